"""The exact privacy profile δ(ε) of ONE Poisson-subsampled Gaussian step (sensitivity 1, rate q, noise σ), both
directions and their maximum, for every real ε; and the reduction that any Poisson-subsampled pair shares
(reference/base/laplace_subsampled.py uses it for the Laplace mechanism).

Neighbouring outputs (add/remove neighbours; Balle, Barthe & Gaboardi 2018, arXiv 1807.01647, for the dominating
pairs of Poisson subsampling): with a base pair B1 (record present) and B0 (absent),

    remove: P = (1 − q)B0 + qB1,  Q = B0;          add: P = B0,  Q = (1 − q)B0 + qB1,

and δ(ε) = sup_S P(S) − e^ε Q(S) (the hockey-stick divergence; Zhu, Dong & Wang, "Optimal accounting of
differential privacy via characteristic function", AISTATS 2022, arXiv 2106.08567, whose Poisson-subsampled pairs
these are). For the Gaussian, B1 = N(1, σ²), B0 = N(0, σ²); the loss L(x) = log(1 − q + q e^{(2x−1)/(2σ²)}) of the
remove pair is increasing in x, so the supremum is at S = {x > x*}, x* = σ² log((e^ε − (1−q))/q) + 1/2.

Derivation used here (checked in tests/base/test_sgm_profile.py against quadrature of the densities). Write
δ_B(t) = sup_S B1(S) − e^t B0(S) for the base pair at real t (for the Gaussian, Balle & Wang's Φ(1/(2σ) − tσ) −
e^t Φ(−1/(2σ) − tσ), which holds for every real t), and g(x) = e^x − 1 + q.

* remove: P(S) − e^ε Q(S) = q·[B1(S) − e^{t} B0(S)] − (e^ε − 1 + q − q e^t)·B0(S). With q e^t = g(ε), i.e.
  t = ε' = log(1 + (e^ε − 1)/q) (defined where g(ε) > 0), the second term vanishes: δ_rem(ε) = q·δ_B(ε'). Where
  g(ε) ≤ 0 (e^ε ≤ 1 − q) the coefficient of B0(S) is ≥ 0, S = everything: δ_rem(ε) = 1 − e^ε. At the Gaussian
  base this is exactly the threshold x* above (x* = σ²ε' + 1/2).
* add: the complement identity sup_S Q(S) − γP(S) = 1 − γ + γ·sup_S P(S) − Q(S)/γ gives δ_add(ε) = 1 − e^ε +
  e^ε δ_rem(−ε). With ε'' = log(1 + (e^{−ε} − 1)/q) and the symmetry of the base pair,
  δ_B(−t) = 1 − e^{−t} + e^{−t} δ_B(t) (both base pairs here are symmetric: B1 − 1 and −B0 have one law), this is
      δ_add(ε) = A·δ_B(−ε''),  A = 1 − (1 − q)e^ε = e^ε g(−ε)   where g(−ε) > 0 (ε < −log(1 − q)),  else 0.
* max: the larger of the two.

Every branch is evaluated as a product or a sum of non-negative terms in log space: for ε ≥ 0 remove is
log q + log δ_B(ε') and add is log A + log δ_B(−ε'') with ε', −ε'' ≥ 0; for ε < 0, δ_B at a negative argument is
written by the symmetry above as (1 − e^ε) + (positive), so no term cancels. What can cancel are g(ε) near
e^ε = 1 − q (remove, ε < 0; there δ ≥ 1 − e^ε ≈ q) and g(−ε) near ε = −log(1 − q) (add: the largest loss, where
δ_add → 0); the inputs are exact, so the digits lost there (and those by which δ_B amplifies the rounding of its
argument, and those of exp(log δ)) are measured and the value is recomputed with as many more (:func:`evaluate`).
q = 1 is the base pair itself (both directions): the statements evaluate it with the base profile's own code.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from ..catalogue import Privacy, Source, Statement, Value, WitnessUse, register
from ..domains import NOISE, SAMPLING_RATE, Param
from ..errors import PrecisionError
from ..precision import checked_param as _arg, log1mexp, logsumexp, self_checked
from .gaussian import log_delta_shift, profile_real
from .spec import EPS_REAL, SGM_DIRECTION

ZDW22 = ("Zhu, Dong & Wang, Optimal Accounting of Differential Privacy via Characteristic Function, AISTATS 2022 "
         "(arXiv 2106.08567); Balle, Barthe & Gaboardi, Privacy Amplification by Subsampling, NeurIPS 2018 "
         "(arXiv 1807.01647)")
MAX_EXTRA_DIGITS = 4000  # digits the cancellations of a subsampled profile may cost before it is refused


def _digits(x) -> int:
    """log10(1 + |x|), rounded up (0 for x = 0 or ±inf)."""
    if not mpmath.isfinite(x) or x == 0:
        return 0
    return int(mpmath.ceil(mpmath.log10(1 + abs(x))))


def shift(x, q):
    """log(1 + (e^x − 1)/q) where e^x − 1 + q > 0 (current precision; x itself at q = 1)."""
    if q == 1:
        return +x
    return mpmath.log1p(mpmath.expm1(x) / q)


def _excess(x, q):
    """(g, digits lost): g = e^x − 1 + q and the digits its sum loses (log10 of the larger term over |g|)."""
    e = mpmath.expm1(x)
    g = e + q
    if g == 0:
        return g, mp.dps  # all digits lost: decided at a higher precision
    return g, max(0, int(mpmath.ceil(mpmath.log10(max(abs(e), q) / abs(g)))))


def log_direction(eps, q, direction, log_base):
    """(log δ, digits lost) of one direction at the current precision (module docstring); ``log_base(t)`` for t ≥ 0
    returns (log δ_B(t), digits its value loses to the rounding of t)."""
    log_q = mpmath.log(q)
    if direction == "remove":
        if eps >= 0:
            value, lost = log_base(shift(eps, q))
            return log_q + value, lost
        g, lost_g = _excess(eps, q)
        if g <= 0:
            return log1mexp(eps), lost_g
        t = shift(eps, q)  # ε' < 0
        value, lost = log_base(-t)
        return logsumexp([log1mexp(eps), log_q + t + value]), lost + lost_g
    g, lost_g = _excess(-eps, q)
    if g <= 0:
        return mpf("-inf"), lost_g
    t = shift(-eps, q)  # ε''
    if eps > 0:  # log A = ε + log g(−ε) = ε + log q + ε''
        value, lost = log_base(-t)
        return eps + log_q + t + value, lost + lost_g
    value, lost = log_base(t)
    return logsumexp([log1mexp(eps), log_q + eps + value]), lost + lost_g


def evaluate(eps, q, direction, make_base, who: str):
    """δ(ε) of one direction ("remove", "add") or their maximum, to the working precision: computed at mp.dps +
    extra digits, where extra covers the digits lost to cancellation, to the rounding of the base profile's argument
    and to exp(log δ) (|log δ| of them); recomputed with more until the count is covered. ``make_base()`` builds the
    base log-profile at the precision in force (its parameters read again there)."""
    if direction == "max":
        return max(evaluate(eps, q, "remove", make_base, who), evaluate(eps, q, "add", make_base, who))
    extra = 15
    for _ in range(8):
        with mp.workdps(mp.dps + extra):
            log_delta, lost = log_direction(eps, q, direction, make_base())
            need = 15 + lost + _digits(log_delta)
            if need <= extra:
                return mpf(0) if mpmath.isinf(log_delta) else +mpmath.exp(log_delta)
        extra = need + 10
        if extra > MAX_EXTRA_DIGITS:
            break
    raise PrecisionError(f"{who}: δ(ε) at eps={mpmath.nstr(eps, 17)}, q={mpmath.nstr(q, 17)} ({direction}) loses more "
                         f"than {MAX_EXTRA_DIGITS} digits")


def _gaussian_base(sigma):
    """log δ_B(t) of N(1, σ²) vs N(0, σ²) for t ≥ 0 (reference/base/gaussian.py, log_delta_shift) and the digits it
    loses to a rounded t: t·|d log δ/dt| ≤ about 2|log δ| + |t| in every regime (in the far tail d log δ/dt ≈ |a|/μ
    with t ≈ |a|μ, a = 1/(2σ) − tσ), so log10 of (1 + |t|)(1 + |log δ|) digits, and one more."""
    def log_base(t):
        value = log_delta_shift(t, sigma=sigma)
        return value, _digits(t) + _digits(value) + 1

    return log_base


def _check(eps, q, sigma, direction):
    return (_arg("eps", EPS_REAL, eps), _arg("q", SAMPLING_RATE, q), _arg("sigma", NOISE, sigma),
            _arg("direction", SGM_DIRECTION, direction))


@self_checked
def sgm_profile(eps, q, sigma, direction="max"):
    """Exact privacy profile of one Poisson-subsampled Gaussian step (sensitivity 1, rate q, noise σ), every real ε
    (Zhu, Dong & Wang 2022, arXiv 2106.08567; Balle, Barthe & Gaboardi 2018, arXiv 1807.01647):

        remove: δ(ε) = q·δ_σ(ε'),  ε' = log(1 + (e^ε − 1)/q)   (1 − e^ε where e^ε ≤ 1 − q),
        add:    δ(ε) = (1 − (1 − q)e^ε)·δ_σ(−ε''),  ε'' = log(1 + (e^{−ε} − 1)/q)   (0 where ε ≥ −log(1 − q)),
        max:    the larger of the two,

    with δ_σ(t) = Φ(1/(2σ) − tσ) − e^t Φ(−1/(2σ) − tσ) the Gaussian profile (Balle & Wang 2018, Thm 8) at real t.
    Remove is the hockey-stick divergence of (1 − q)N(0,σ²) + qN(1,σ²) against N(0,σ²) (threshold x* = σ²ε' + 1/2),
    add that of the swapped pair (derivation in the module docstring). q = 1 is the Gaussian profile."""
    eps, q, sigma, direction = _check(eps, q, sigma, direction)
    if q == 1:  # the Gaussian mechanism, both directions: base.gaussian_profile's own evaluation
        return profile_real(eps, sigma=sigma)
    return evaluate(eps, q, direction, lambda: _gaussian_base(sigma), "base.sgm_profile")


def larger_direction(point, check, make_base, noise: str, who: str) -> str:
    """The witness direction that attains a subsampled profile at ``point`` (its ε, q, noise, direction): the
    direction named, or for "max" the one with the larger δ (remove on ties), compared at 20 digits (a witness
    mapping, not a bound). ``check`` and ``make_base`` are the statement's argument check and base profile."""
    direction = point.get("direction", "max")
    if direction != "max":
        return direction
    with mp.workdps(20):
        eps, q, scale, _ = check(point["eps"], point["q"], point[noise], "max")
        rem, add = (evaluate(eps, q, d, lambda: make_base(scale), who) for d in ("remove", "add"))
    return "remove" if rem >= add else "add"


def sgm_profile_direction(point) -> str:
    """The witness direction of ``base.sgm_profile`` at ``point`` (:func:`larger_direction`)."""
    return larger_direction(point, _check, _gaussian_base, "sigma", "base.sgm_profile")


register(Statement(
    id="base.sgm_profile",
    fast="dpspec.fast.base.sgm_profile:sgm_profile",
    source=Source("outside", "Poisson-subsampled pairs, with the Gaussian profile of Balle & Wang 2018, Thm 8",
                  "exact (ε, δ) of one DP-SGD step: the tight accountant's one-step answer", ZDW22),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="remove: q·δ_σ(log(1 + (e^ε − 1)/q)); add: (1 − (1−q)e^ε)·δ_σ(−log(1 + (e^{−ε} − 1)/q)); max of both",
    params=(
        Param("eps", EPS_REAL, "any real ε (ε < 0 allowed)", example=1),
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.01"),
        Param("sigma", NOISE, "noise multiplier (std / ℓ2 sensitivity)", example="0.8"),
        Param("direction", SGM_DIRECTION, "remove: (P, Q) = (mixture, N(0,σ²)); add: swapped; max: both",
              default="max"),
    ),
    reference=sgm_profile,
    witnesses=(WitnessUse("base.sgm", lambda p: {"q": p["q"], "sigma": p["sigma"],
                                                 "direction": sgm_profile_direction(p)},
                          note="for direction=max the direction with the larger δ at that ε"),),
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"eps": -1, "q": +1, "sigma": -1},
    note="remove and add reduce to the Gaussian profile at a shifted ε (module docstring); exact for every real ε",
))
