"""The Laplace mechanism with ℓ1-sensitivity 1 and noise Lap(0, b) (density e^{−|x|/b}/(2b)): pure ε, the RDP
curve and the exact privacy profile.

The witness pair ``base.laplace`` is P = Lap(1, b), Q = Lap(0, b). Its privacy loss
L(o) = (|o| − |o − 1|)/b ∈ [−1/b, 1/b] has the same law under P as −L under Q, so both directions coincide,
and the pair is dominating for a scalar query with sensitivity 1.
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mp, mpf

from ..catalogue import Privacy, Source, Statement, Value, Witness, WitnessUse, register, register_witness
from ..domains import NOISE, Param
from ..precision import self_checked
from .spec import EPS_REAL, LAPLACE_ALPHA

MIRONOV = "Mironov, Rényi Differential Privacy, CSF 2017"

SCALE = NOISE  # b > 0, in units of the ℓ1 sensitivity


@self_checked
def laplace_pure(b):
    """Pure DP of the Laplace mechanism (Dwork, McSherry, Nissim & Smith 2006; Dwork & Roth 2014, Thm 3.6):
    noise Lap(Δ₁/ε) gives ε-DP, so at sensitivity 1 and scale b, ε = 1/b (tight: the privacy loss reaches
    ±1/b with positive probability)."""
    return 1 / b


register(Statement(
    id="base.laplace_pure",
    fast="dpspec.fast.base.laplace:laplace_pure",
    source=Source("outside", "Thm 3.6", "pure ε-DP of the Laplace mechanism",
                  "Dwork & Roth, The Algorithmic Foundations of Differential Privacy, 2014"),
    kind="eps_delta",
    claim="exact",
    value=Value("pure_eps"),
    summary="ε = 1/b (δ = 0)",
    params=(Param("b", SCALE, "Laplace scale relative to the ℓ1 sensitivity", example=1),),
    reference=laplace_pure,
    witnesses=(WitnessUse("base.laplace", {"b": "b"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"b": -1},
))


def laplace_witness_log_moment(alpha, b):
    """log E_Q[(p/q)^α] for the witness pair P = Lap(1, b), Q = Lap(0, b), any finite real α, by integrating
    q^{1−α}p^α over the three pieces where the privacy loss is constant or linear (derived here, never through
    laplace_rdp): with q(o) = e^{−|o|/b}/(2b) and p/q = e^{(|o| − |o−1|)/b},

        o ≤ 0:      p/q = e^{−1/b},          Q-mass ½             → ½ e^{−α/b}
        o ≥ 1:      p/q = e^{1/b},           Q-mass ½ e^{−1/b}     → ½ e^{(α−1)/b}
        0 < o < 1:  ∫_0^1 e^{−o/b} e^{α(2o−1)/b} do/(2b) = e^{−α/b}/(2b) · (e^x − 1)/x,  x = (2α − 1)/b

    ((e^x − 1)/x = 1 at x = 0). The sum equals Mironov 2017, Prop. 6 (α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b})
    where 2α ≠ 1: tests/conformance/test_witnesses.py. log M near 0 (large b, α near 0 or 1) is resolved by
    raising the precision (:func:`dpspec.reference.base.sgm.witness_guarded`)."""
    from ..precision import checked_param, to_mpf
    from .sgm import witness_guarded, witness_order

    a0, b0 = witness_order(alpha), checked_param("b", SCALE, b)
    # M − 1 ≈ α(α−1)/(2b²) for large b (both first-order terms, ∓α/(2b) and ±(α−1)/(2b), cancel against 1/(2b)):
    # that many digits of M − 1 are lost against 1
    lost = 2 * max(0, mpmath.log10(b0)) + sum(max(0, -mpmath.log10(abs(v))) for v in (a0, a0 - 1) if v != 0)

    def compute():
        a, bb = to_mpf(alpha), to_mpf(b)
        if a == 0 or a == 1:
            return mpf(0)  # E_Q[1] = E_Q[p/q] = 1 (P and Q are mutually absolutely continuous)
        x = (2 * a - 1) / bb
        middle = mpmath.expm1(x) / x if x != 0 else mpf(1)
        total = (mpmath.exp(-a / bb) / 2 + mpmath.exp((a - 1) / bb) / 2
                 + mpmath.exp(-a / bb) / (2 * bb) * middle)
        return mpmath.log(total)

    return witness_guarded(compute, "base.laplace witness", lost)


def _laplace_tilt_family(b):
    """conformance/tilting.py's family: the privacy loss (|o| − |o − 1|)/b lies in [−1/b, 1/b]."""
    return {"family": "bounded_loss", "lo": -1.0 / float(b), "hi": 1.0 / float(b)}


def _exp_excess(y) -> mpf:
    """e^y − 1 − y ≥ 0 without cancellation: the Taylor series Σ_{n≥2} y^n/n! for |y| < 1/2 (cut where a term
    is below 2^(−prec−10) of the sum; for y < 0 the sum is at least y²/2·(1 − |y|/3), so the alternating terms
    cost no digits), else expm1(y) − y (at most a factor 5 of cancellation at |y| = 1/2, carried by 2 guard digits)."""
    y = mpf(y)
    if abs(y) < mpf(1) / 2:
        term, total, n = y * y / 2, mpf(0), 2
        tol = mpf(2) ** (-mp.prec - 10)
        while True:
            total += term
            n += 1
            term *= y / n
            if abs(term) <= tol * total:
                return total + term
    with mp.workdps(mp.dps + 2):
        value = mpmath.expm1(y) - y
    return +value


@self_checked
def laplace_rdp(alpha, b):
    """RDP of the Laplace mechanism, sensitivity 1, scale b (Mironov 2017, Prop. 6 and Table II):

        ε(α) = 1/(α−1) · log( α/(2α−1) · e^{(α−1)/b} + (α−1)/(2α−1) · e^{−α/b} ),   α > 1,
        ε(1) = 1/b + e^{−1/b} − 1   (the KL divergence, the limit α → 1+),
        ε(∞) = 1/b                  (pure ε-DP, the limit α → ∞).

    Exact, both directions. The weights w₁ = α/(2α−1), w₂ = (α−1)/(2α−1) sum to 1 and the exponents
    p = (α−1)/b, q = −α/b have w₁p + w₂q = 0, so (with E(y) = e^y − 1 − y ≥ 0)

        (α−1)·ε(α) = log(w₁e^p + w₂e^q) = log1p(w₁E(p) + w₂E(q)),

    a log1p of a sum of non-negative terms: no cancellation anywhere (the printed form loses log10(b) digits to
    the O(1/b) terms that cancel to O(1/b²): at b = 1e308 it was negative at one precision; the true value,
    ≈ α/(2b²) = 1e-616 at α = 2, is returned to full precision), and near α = 1 every term is O(α − 1)
    (w₂ is, and E(p) = O((α−1)²)), so the quotient is formed without 0/0. ε(1) = E(−1/b)."""
    if mpmath.isinf(alpha):
        return 1 / b
    if alpha == 1:
        return _exp_excess(-1 / b)
    w1, w2 = alpha / (2 * alpha - 1), (alpha - 1) / (2 * alpha - 1)
    return mpmath.log1p(w1 * _exp_excess((alpha - 1) / b) + w2 * _exp_excess(-alpha / b)) / (alpha - 1)


register(Statement(
    id="base.laplace_rdp",
    fast="dpspec.fast.base.laplace:laplace_rdp",
    source=Source("outside", "Prop. 6 (Table II)", "RDP of the Laplace mechanism", MIRONOV),
    kind="rdp",
    claim="exact",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) = log(α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b})/(α−1); ε(1) = KL, ε(∞) = 1/b",
    params=(
        Param("alpha", LAPLACE_ALPHA, "Rényi order (1 gives the KL divergence, inf the max divergence)",
              example=2),
        Param("b", SCALE, "Laplace scale relative to the ℓ1 sensitivity", example=1),
    ),
    reference=laplace_rdp,
    witnesses=(WitnessUse("base.laplace", {"b": "b"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"alpha": +1, "b": -1},
))


def laplace_profile_value(eps, b):
    """δ(ε) of :func:`laplace_profile` at every real ε, unchecked (the current precision). For ε < 0 the complement
    identity δ(ε) = (1 − e^ε) + e^ε δ(−ε) (the pair is symmetric) gives 1 − e^{(ε − 1/b)/2} again for −1/b ≤ ε < 0
    (1 − e^ε + e^ε − e^{ε/2 − 1/(2b)}), and 1 − e^ε for ε ≤ −1/b (every loss value ±1/b exceeds ε: S = everything);
    the branch is decided by εb + 1, exact."""
    if mpmath.fadd(mpmath.fmul(eps, b, exact=True), 1, exact=True) <= 0:
        return -mpmath.expm1(eps)
    gap = mpmath.fsub(mpmath.fmul(eps, b, exact=True), 1, exact=True)  # εb − 1, exact
    if gap >= 0:
        return mpf(0)
    return -mpmath.expm1(gap / (2 * b))


@self_checked
def laplace_profile(eps, b):
    """Exact privacy profile of the Laplace mechanism, sensitivity 1, scale b: the hockey-stick divergence
    δ(ε) = E_Q[(p/q − e^ε)₊] of P = Lap(1, b), Q = Lap(0, b),

        δ(ε) = 1 − exp((ε − 1/b)/2)  for −1/b ≤ ε < 1/b,     δ(ε) = 0  for ε ≥ 1/b,     δ(ε) = 1 − e^ε  for ε < −1/b
        (:func:`laplace_profile_value` for ε < 0).

    Derivation (standard; e.g. Balle, Barthe & Gaboardi 2018, §3 for the profile notion): L > ε iff
    o > t = (1 + εb)/2 ∈ [1/2, 1), and P(o > t) − e^ε Q(o > t) = 1 − ½e^{−(1−t)/b} − ½e^{ε−t/b}
    = 1 − e^{(ε−1/b)/2}. Both directions are equal. Computed as −expm1((εb − 1)/(2b)) with εb − 1 exact
    (mpmath's exact product and difference): ε − 1/b would carry the rounding of 1/b, which near the kink
    (ε ≈ 1/b) is amplified by 1/|εb − 1| (the self-check failed at ε = 1e-300, b = 1e300)."""
    return laplace_profile_value(eps, b)


register(Statement(
    id="base.laplace_profile",
    fast="dpspec.fast.base.laplace:laplace_profile",
    source=Source("outside", "hockey-stick divergence of Lap(1, b) vs Lap(0, b) (derived in the docstring)",
                  "exact (ε, δ) of the Laplace mechanism",
                  "Balle, Barthe & Gaboardi, Privacy Amplification by Subsampling, NeurIPS 2018 (privacy "
                  "profiles); Dwork & Roth 2014, Def. 3.3 (Laplace mechanism)"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = max(0, 1 − e^{(ε − 1/b)/2}) for ε ≥ −1/b; 1 − e^ε below",
    params=(
        Param("eps", EPS_REAL, "any real ε (ε < 0: 1 − e^ε + e^ε δ(−ε))", example="0.5"),
        Param("b", SCALE, "Laplace scale relative to the ℓ1 sensitivity", example=1),
    ),
    reference=laplace_profile,
    witnesses=(WitnessUse("base.laplace", {"b": "b"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": -1, "b": -1},
))


def _laplace_sample(rng: np.random.Generator, n: int, b) -> np.ndarray:
    return 1.0 + rng.laplace(0.0, float(b), n)


def _laplace_log_density(mean: float):
    def log_density(o, b):
        s = float(b)
        return -np.abs(np.asarray(o) - mean) / s - np.log(2 * s)

    return log_density


register_witness(Witness(
    id="base.laplace",
    description="P = Lap(1, b), Q = Lap(0, b): the Laplace mechanism on sensitivity-1 neighbours",
    params=(Param("b", SCALE, "Laplace scale", example=1),),
    sample=_laplace_sample,
    log_p=_laplace_log_density(1.0),
    log_q=_laplace_log_density(0.0),
    source="Mironov 2017, Prop. 6",
    dominating=True,
    log_moment=laplace_witness_log_moment,
    tilt_family=_laplace_tilt_family,
    note="dominating for scalar queries with ℓ1-sensitivity 1",
))
