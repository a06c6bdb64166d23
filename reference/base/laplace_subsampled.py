"""The exact privacy profile δ(ε) of one Poisson-subsampled Laplace step (ℓ1-sensitivity 1, rate q, scale b), both
directions and their maximum, for every real ε; and its witness pair ``base.laplace_subsampled``.

The pair (Balle, Barthe & Gaboardi 2018, arXiv 1807.01647; Zhu, Dong & Wang 2022, arXiv 2106.08567):

    remove: P = (1 − q)Lap(0, b) + q Lap(1, b),  Q = Lap(0, b);      add: the same pair swapped.

The likelihood ratio r(x) = Lap(1,b)/Lap(0,b)(x) = e^{(|x| − |x − 1|)/b} is e^{−1/b} on x ≤ 0, e^{(2x−1)/b} on
(0, 1) and e^{1/b} on x ≥ 1, so the remove loss L = log(1 − q + q r) has two atoms (its smallest value
log(1 − q + q e^{−1/b}) with P-mass (1 − q)/2 + q e^{−1/b}/2, its largest log(1 − q + q e^{1/b}) with P-mass
(1 − q)e^{−1/b}/2 + q/2) and is continuous in between. By the reduction of reference/base/sgm_profile.py (module
docstring there), with δ_L the profile of Lap(1, b) vs Lap(0, b) at real t (reference/base/laplace.py,
laplace_profile_value: 1 − e^{(t − 1/b)/2} for |t| < 1/b, 0 above, 1 − e^t below — the atoms are its kinks):

    remove: δ(ε) = q·δ_L(ε'),  ε' = log(1 + (e^ε − 1)/q)   (1 − e^ε where e^ε ≤ 1 − q);
    add:    δ(ε) = (1 − (1 − q)e^ε)·δ_L(−ε''),  ε'' = log(1 + (e^{−ε} − 1)/q)   (0 where ε ≥ −log(1 − q)).

So remove is 0 from ε = log(1 − q + q e^{1/b}) (the largest loss) on and equals 1 − e^ε up to ε = log(1 − q +
q e^{−1/b}) (the smallest loss, where ε' = −1/b); add is 0 from ε = −log(1 − q + q e^{−1/b}) on. Near the kink
ε' = 1/b the base factor 1 − e^{(ε' − 1/b)/2} loses log10(1/|1 − bε'|) digits to the rounding of ε': they are
counted and recomputed with (sgm_profile.evaluate). Checked against quadrature of the densities with the atoms as
point masses in tests/base/test_subsampled_laplace.py; q = 1 is base.laplace_profile itself.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mp, mpf

from ..catalogue import Privacy, Source, Statement, Value, Witness, WitnessUse, register, register_witness
from ..domains import NOISE, SAMPLING_RATE, Param
from ..precision import checked_param as _arg, self_checked, to_mpf
from .laplace import laplace_profile_value
from .sgm_profile import ZDW22, evaluate, larger_direction
from .spec import EPS_REAL, SGM_DIRECTION, SGM_WITNESS_DIRECTION

SCALE = NOISE  # b > 0, in units of the ℓ1 sensitivity


def _laplace_base(b):
    """log δ_L(t) for t ≥ 0 and the digits lost to a rounded t: tb/|tb − 1| (the kink at t = 1/b), as log10."""
    def log_base(t):
        gap = mpmath.fsub(mpmath.fmul(t, b, exact=True), 1, exact=True)  # tb − 1, exact for the given t
        lost = mp.dps if gap == 0 else int(mpmath.ceil(mpmath.log10(1 + t * b / abs(gap))))
        if gap >= 0:
            return mpf("-inf"), lost
        return mpmath.log(-mpmath.expm1(gap / (2 * b))), lost

    return log_base


def _check(eps, q, b, direction):
    return (_arg("eps", EPS_REAL, eps), _arg("q", SAMPLING_RATE, q), _arg("b", SCALE, b),
            _arg("direction", SGM_DIRECTION, direction))


@self_checked
def laplace_subsampled_profile(eps, q, b, direction="max"):
    """Exact privacy profile of one Poisson-subsampled Laplace step (ℓ1-sensitivity 1, rate q, scale b), every real ε
    (Balle, Barthe & Gaboardi 2018; Zhu, Dong & Wang 2022, arXiv 2106.08567; derivation in the module docstring):

        remove: δ(ε) = q·δ_L(log(1 + (e^ε − 1)/q))            (1 − e^ε where e^ε ≤ 1 − q),
        add:    δ(ε) = (1 − (1−q)e^ε)·δ_L(−log(1 + (e^{−ε} − 1)/q))   (0 where ε ≥ −log(1 − q)),
        max:    the larger of the two,

    δ_L(t) = 1 − e^{(t − 1/b)/2} for |t| < 1/b, 0 for t ≥ 1/b, 1 − e^t for t ≤ −1/b (base.laplace_profile at real t).
    q = 1 is base.laplace_profile."""
    eps, q, b, direction = _check(eps, q, b, direction)
    if q == 1:
        return laplace_profile_value(eps, b)
    return evaluate(eps, q, direction, lambda: _laplace_base(b), "base.laplace_subsampled_profile")


def laplace_subsampled_direction(point) -> str:
    """The witness direction of ``base.laplace_subsampled_profile`` at ``point`` (sgm_profile.larger_direction)."""
    return larger_direction(point, _check, _laplace_base, "b", "base.laplace_subsampled_profile")


register(Statement(
    id="base.laplace_subsampled_profile",
    fast="dpspec.fast.base.laplace_subsampled:laplace_subsampled_profile",
    source=Source("outside", "Poisson-subsampled pairs, with the Laplace profile of base.laplace_profile",
                  "exact (ε, δ) of one Poisson-subsampled Laplace step", ZDW22),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="remove: q·δ_L(log(1 + (e^ε − 1)/q)); add: (1 − (1−q)e^ε)·δ_L(−log(1 + (e^{−ε} − 1)/q)); max of both",
    params=(
        Param("eps", EPS_REAL, "any real ε (ε < 0 allowed)", example="0.3"),
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.5"),
        Param("b", SCALE, "Laplace scale relative to the ℓ1 sensitivity", example="0.5"),
        Param("direction", SGM_DIRECTION, "remove: (P, Q) = (mixture, Lap(0, b)); add: swapped; max: both",
              default="max"),
    ),
    reference=laplace_subsampled_profile,
    witnesses=(WitnessUse("base.laplace_subsampled", lambda p: {"q": p["q"], "b": p["b"],
                                                                "direction": laplace_subsampled_direction(p)},
                          note="for direction=max the direction with the larger δ at that ε"),),
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"eps": -1, "q": +1, "b": -1},
    note="the remove loss has atoms at x ≤ 0 and x ≥ 1 (the kinks of δ_L); exact for every real ε",
))


# ---------------------------------------------------------------------------------------------------
# witness pair

def _log_laplace(o, mean, b):
    return -np.abs(o - mean) / b - np.log(2 * b)


def _log_mixture(o, q, b):
    if q == 1.0:
        return _log_laplace(o, 1.0, b)
    return np.logaddexp(np.log1p(-q) + _log_laplace(o, 0.0, b), np.log(q) + _log_laplace(o, 1.0, b))


def _sample(rng: np.random.Generator, n: int, q, b, direction):
    noise = rng.laplace(0.0, float(b), n)
    if direction == "add":
        return noise
    return (rng.random(n) < float(q)).astype(float) + noise


def _log_p(o, q, b, direction):
    o = np.asarray(o, dtype=float)
    return _log_laplace(o, 0.0, float(b)) if direction == "add" else _log_mixture(o, float(q), float(b))


def _log_q(o, q, b, direction):
    o = np.asarray(o, dtype=float)
    return _log_mixture(o, float(q), float(b)) if direction == "add" else _log_laplace(o, 0.0, float(b))


def _lost_digits(alpha, q, b):
    """Digits M − 1 may lose against 1, a priori: M − 1 ≈ C(β,2) q² E[(r − 1)²] with E[(r − 1)²] ≈ 2/b² for large b
    (β = α or 1 − α): 2·log10(1/q) + 2·log10 b (b > 1) + log10(1/|α(α−1)|)."""
    q, b, alpha = to_mpf(q), to_mpf(b), to_mpf(alpha)
    return (2 * max(0, -mpmath.log10(q)) + 2 * max(0, mpmath.log10(b))
            + sum(max(0, -mpmath.log10(abs(v))) for v in (alpha, alpha - 1) if v != 0))


def laplace_subsampled_log_moment(alpha, q, b, direction):
    """log E_Q[(p/q)^α] of the pair, exact (mpmath), from its own densities (never through a statement evaluator):
    both directions are E_{Lap(0,b)}[(1 − q + q r(x))^β] with β = α (remove: Q = Lap(0, b)) or 1 − α (add:
    ∫ p^α m^{1−α} with p = Lap(0, b) and m/p = 1 − q + q r), and with c± = 1 − q + q e^{±1/b},

        = ½ c₋^β + ½ e^{−1/b} c₊^β + ∫_0^1 (1 − q + q e^{(2x−1)/b})^β e^{−x/b}/(2b) dx

    (the Q-masses of x ≤ 0 and x ≥ 1, and quadrature of the smooth middle piece, split at its midpoint:
    Gauss–Legendre up to sgm.WITNESS_GL_MAX_DPS digits, tanh-sinh above). Guard digits for log M ≈ 0 as the other witnesses (sgm.witness_guarded)."""
    from .sgm import WITNESS_GL_MAX_DPS, witness_guarded, witness_order

    witness_order(alpha), _arg("q", SAMPLING_RATE, q), _arg("b", SCALE, b)
    direction = _arg("direction", SGM_WITNESS_DIRECTION, direction)

    def compute():
        a, qq, bb = to_mpf(alpha), to_mpf(q), to_mpf(b)
        if a == 0 or a == 1:
            return mpf(0)
        beta = a if direction == "remove" else 1 - a
        ratio = lambda u: 1 - qq + qq * mpmath.exp(u / bb)  # 1 − q + q e^{u/b}
        ends = (ratio(-1) ** beta + mpmath.exp(-1 / bb) * ratio(1) ** beta) / 2
        middle = mpmath.quad(lambda x: ratio(2 * x - 1) ** beta * mpmath.exp(-x / bb) / (2 * bb),
                             [0, mpf(1) / 2, 1],
                             method="gauss-legendre" if mp.dps <= WITNESS_GL_MAX_DPS else "tanh-sinh")
        return mpmath.log(ends + middle)

    return witness_guarded(compute, "base.laplace_subsampled witness", _lost_digits(alpha, q, b))


def _tilt_family(q, b, direction):
    """conformance/tilting.py's family: the loss is bounded, between log c₋ and log c₊ (remove; c± = 1 − q + q e^{±1/b})
    or their negatives swapped (add)."""
    qf, bf = float(q), float(b)
    lo, hi = math.log1p(qf * math.expm1(-1 / bf)), math.log1p(qf * math.expm1(1 / bf))
    if direction == "add":
        lo, hi = -hi, -lo
    return {"family": "bounded_loss", "lo": lo, "hi": hi}


register_witness(Witness(
    id="base.laplace_subsampled",
    description="remove: P = (1−q)Lap(0,b) + qLap(1,b), Q = Lap(0,b); add: the same pair swapped",
    params=(
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.1"),
        Param("b", SCALE, "Laplace scale", example=1),
        Param("direction", SGM_WITNESS_DIRECTION, "which divergence the pair realises", example="remove"),
    ),
    sample=_sample,
    log_p=_log_p,
    log_q=_log_q,
    source="Balle, Barthe & Gaboardi 2018 (arXiv 1807.01647); Zhu, Dong & Wang 2022 (arXiv 2106.08567)",
    dominating=True,
    log_moment=laplace_subsampled_log_moment,
    tilt_family=_tilt_family,
    note="one Poisson-subsampled Laplace step on ℓ1-sensitivity-1 neighbours (scalar queries)",
))
