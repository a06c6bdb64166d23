"""The Gaussian mechanism with ℓ2-sensitivity 1 and noise N(0, σ²): its RDP curve, its exact privacy profile
(and the ε, σ obtained by inverting it), and the classical (ε, δ) calibration.

The witness pair ``base.gaussian`` is P = N(1, σ²), Q = N(0, σ²) (sensitivity 1), which is dominating for
every statement about the Gaussian mechanism (the privacy loss is symmetric, so both directions coincide).
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mp, mpf

from .._normal import log_ndtr
from .._solve import expand_bracket, root
from ..catalogue import Condition, Privacy, Source, Statement, Value, Witness, WitnessUse, register, register_witness
from ..domains import ALPHA, DELTA, EPS, NOISE, Param
from ..errors import PrecisionError
from ..precision import log1mexp, self_checked
from .spec import GAUSSIAN_CLASSICAL_EPS_BELOW_ONE


@self_checked
def gaussian_rdp(alpha, sigma):
    """RDP of the Gaussian mechanism (Mironov 2017, Prop. 7): ε(α) = α / (2σ²).

    Exact for sensitivity-1 neighbours, every real α > 1, both directions.
    """
    return alpha / (2 * sigma**2)


register(Statement(
    id="base.gaussian_rdp",
    fast="dpspec.fast.base.gaussian:gaussian_rdp",
    source=Source("outside", "Prop. 7", "RDP of the Gaussian mechanism, used by every seed",
                  "Mironov, Rényi Differential Privacy, CSF 2017"),
    kind="rdp",
    claim="exact",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) = α / (2σ²)",
    params=(
        Param("alpha", ALPHA, "Rényi order", example=2),
        Param("sigma", NOISE, "noise standard deviation relative to the ℓ2 sensitivity", example=1),
    ),
    reference=gaussian_rdp,
    witnesses=(WitnessUse("base.gaussian", {"sigma": "sigma"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"alpha": +1, "sigma": -1},
))


def _gaussian_sample(rng: np.random.Generator, n: int, sigma) -> np.ndarray:
    return 1.0 + float(sigma) * rng.standard_normal(n)


def _gaussian_log_density(mean: float):
    def log_density(o, sigma):
        s = float(sigma)
        return -0.5 * ((np.asarray(o) - mean) / s) ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi)

    return log_density


def _gaussian_log_moment(alpha, sigma):
    """log E_Q[(p/q)^α] = α(α−1)/(2σ²) for P = N(1,σ²), Q = N(0,σ²)."""
    return alpha * (alpha - 1) / (2 * mpf(sigma) ** 2)


register_witness(Witness(
    id="base.gaussian",
    description="P = N(1, σ²), Q = N(0, σ²): the Gaussian mechanism on sensitivity-1 neighbours",
    params=(Param("sigma", NOISE, "noise standard deviation", example=1),),
    sample=_gaussian_sample,
    log_p=_gaussian_log_density(1.0),
    log_q=_gaussian_log_density(0.0),
    source="Mironov 2017; Balle & Wang 2018",
    dominating=True,
    log_moment=_gaussian_log_moment,
))


# ---------------------------------------------------------------------------------------------------
# (ε, δ): the exact privacy profile (analytic Gaussian) and the classical calibration.

A_MAX = mpf(10) ** 100  # largest |μ/2 − ε/μ| log_delta_shift evaluates


def log_delta_shift(eps, mu):
    """log δ(ε) of the pair N(μ, 1) vs N(0, 1) (−inf where δ = 0), unchecked helper shared with f-DP.

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (Balle & Wang 2018, Thm 8 with μ = Δ/σ; Dong, Roth & Su 2022,
    Cor 2.13). Written as log Φ(a) + log(1 − r), r = exp(ε + log Φ(b) − log Φ(a)) < 1, so that neither term
    under- or overflows and the cancellation of the two terms is confined to log1mexp(log r). That loses
    about log10(1/|log r|) digits (r → 1 for small μ, or large ε/μ²) on top of the magnitude of the terms
    (about a²/2): a pass measures log r, and the value is recomputed with more digits until the precision
    used covers both."""
    eps, mu = mpf(eps), mpf(mu)
    if mu == 0:
        return mpf("-inf")

    def log_delta(extra):
        with mp.workdps(mp.dps + extra):
            a, b = mu / 2 - eps / mu, -mu / 2 - eps / mu
            log_pa = log_ndtr(a)
            log_r = eps + log_ndtr(b) - log_pa  # < 0 in exact arithmetic: e^ε Φ(b) < Φ(a) for μ > 0
            return (log_pa + log1mexp(log_r) if log_r < 0 else None), log_r

    a = mu / 2 - eps / mu
    if abs(a) > A_MAX:  # mpmath's erfc overflows choosing its series length; δ < exp(−10^200) here anyway
        raise PrecisionError(f"δ(ε) of the Gaussian shift pair for ε={mpmath.nstr(eps, 8)}, μ={mpmath.nstr(mu, 8)}: "
                             f"|μ/2 − ε/μ| = {mpmath.nstr(abs(a), 8)} exceeds the supported {mpmath.nstr(A_MAX, 3)} "
                             f"(δ < exp(−10^200))")
    magnitude = int(mpmath.log10(1 + a * a + eps))  # digits of the terms that cancel inside log r
    extra = magnitude + 10
    for _ in range(8):
        value, log_r = log_delta(extra)
        if log_r < 0:
            needed = magnitude + max(0, int(-mpmath.log10(-log_r))) + 10
            if needed <= extra:
                return +value
            extra = needed + 5
        else:  # log r rounded to ≥ 0: all digits lost, try much harder
            extra = 2 * extra + 20
    raise PrecisionError(f"log_delta_shift: cancellation not resolved at ε={mpmath.nstr(eps, 8)}, "
                         f"μ={mpmath.nstr(mu, 8)}")


def delta_shift(eps, mu):
    """δ(ε) of the pair N(μ, 1) vs N(0, 1) = exp(log_delta_shift(ε, μ)), with the exponential taken at enough
    extra digits: a relative error r in log δ becomes |log δ|·r in δ, and |log δ| ≈ (ε/μ)²/2 can be huge
    (μ → 0), so log δ is computed with log10(1 + |log δ|) more digits before exponentiating."""
    eps, mu = mpf(eps), mpf(mu)
    if mu == 0:
        return mpf(0)
    a = mu / 2 - eps / mu
    guard = int(mpmath.log10(1 + a * a / 2 + eps)) + 5
    with mp.workdps(mp.dps + guard):
        value = mpmath.exp(log_delta_shift(eps, mu))
    return +value


@self_checked
def gaussian_profile(eps, sigma):
    """Exact privacy profile of the Gaussian mechanism, sensitivity 1 (Balle & Wang 2018, Thm 8):

        δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ),   ε ≥ 0,

    the hockey-stick divergence E_Q[(p/q − e^ε)₊] of P = N(1, σ²), Q = N(0, σ²) (both directions are
    equal). The mechanism is (ε, δ)-DP iff δ ≥ δ(ε). Evaluated in log space, accurate for δ ≪ 1e-300."""
    return delta_shift(eps, 1 / sigma)


register(Statement(
    id="base.gaussian_profile",
    fast="dpspec.fast.base.gaussian:gaussian_profile",
    source=Source("outside", "Thm 8", "exact (ε, δ) of the Gaussian mechanism (the analytic Gaussian)",
                  "Balle & Wang, Improving the Gaussian Mechanism for Differential Privacy, ICML 2018"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ)",
    params=(
        Param("eps", EPS, "ε ≥ 0", example=1),
        Param("sigma", NOISE, "noise standard deviation relative to the ℓ2 sensitivity", example=1),
    ),
    reference=gaussian_profile,
    witnesses=(WitnessUse("base.gaussian", {"sigma": "sigma"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": -1, "sigma": -1},
))


@self_checked
def gaussian_eps(delta, sigma):
    """The smallest ε ≥ 0 with δ(ε) ≤ δ for the exact Gaussian profile (Balle & Wang 2018, Thm 8):
    ε(δ) = inf{ε ≥ 0 : Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) ≤ δ}; 0 when δ ≥ δ(0) = 2Φ(1/(2σ)) − 1.

    δ(ε) is continuous and strictly decreasing where positive, so ε(δ) solves log δ(ε) = log δ; the root
    is bracketed by doubling and found by a safeguarded Illinois iteration."""
    mu, log_target = 1 / sigma, mpmath.log(delta)
    h = lambda e: log_delta_shift(e, mu) - log_target
    if h(0) <= 0:
        return mpf(0)
    lo, hi = expand_bracket(h, 0, 1 + mu * mu)
    return root(h, lo, hi)


register(Statement(
    id="base.gaussian_eps",
    fast="dpspec.fast.base.gaussian:gaussian_eps",
    source=Source("outside", "Thm 8 (inverted)", "ε for a target δ from the exact Gaussian profile",
                  "Balle & Wang, Improving the Gaussian Mechanism for Differential Privacy, ICML 2018"),
    kind="eps_delta",
    claim="exact",
    value=Value("eps", "delta"),
    summary="ε(δ) = min{ε ≥ 0 : δ_σ(ε) ≤ δ}",
    params=(
        Param("delta", DELTA, "target δ", example="1e-5"),
        Param("sigma", NOISE, "noise standard deviation relative to the ℓ2 sensitivity", example=1),
    ),
    reference=gaussian_eps,
    witnesses=(WitnessUse("base.gaussian", {"sigma": "sigma"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"delta": -1, "sigma": -1},
))


@self_checked
def gaussian_sigma(eps, delta):
    """The analytic Gaussian calibration (Balle & Wang 2018, Thm 8 solved for σ, their Algorithm 1):
    the smallest σ > 0 with Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) ≤ δ, sensitivity 1.

    δ_σ(ε) decreases in σ (from 1 as σ → 0 to 0 as σ → ∞), so σ solves log δ_σ(ε) = log δ in log σ."""
    log_target = mpmath.log(delta)
    log_floor = -mpf(10) ** 200  # log δ at |μ/2 − ε/μ| > A_MAX, μ/2 < ε/μ: δ < exp(−10^200) (see log_delta_shift)
    if log_target <= log_floor:
        raise PrecisionError(f"gaussian_sigma: δ = {mpmath.nstr(delta, 5)} is below the supported exp(−10^200)")

    def h(t):  # t = log σ; decreasing in t
        mu = mpmath.exp(-t)
        if eps / mu - mu / 2 > A_MAX:  # the doubling search can reach σ ~ e^1024 for ε ~ 1e-308: δ is below any target
            return log_floor - log_target
        return log_delta_shift(eps, mu) - log_target

    lo, hi = mpf(-1), mpf(1)
    while h(lo) <= 0:  # σ = e^lo is still private enough: go lower
        lo *= 2
        if lo < -10**4:
            raise PrecisionError(f"gaussian_sigma: no σ > e^{lo} reaches δ = {mpmath.nstr(delta, 5)}")
    while h(hi) >= 0:
        hi *= 2
        if hi > 10**4:
            raise PrecisionError(f"gaussian_sigma: no σ < e^{hi} reaches δ = {mpmath.nstr(delta, 5)}")
    return mpmath.exp(root(h, lo, hi, abs_tol=mpf(2) ** (-mp.prec + 4)))  # absolute in log σ


register(Statement(
    id="base.gaussian_sigma",
    fast="dpspec.fast.base.gaussian:gaussian_sigma",
    source=Source("outside", "Thm 8 (solved for σ; Alg. 1)", "analytic Gaussian noise calibration",
                  "Balle & Wang, Improving the Gaussian Mechanism for Differential Privacy, ICML 2018"),
    kind="calibration",
    claim="exact",
    value=Value("noise"),
    summary="σ(ε, δ) = min{σ > 0 : Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) ≤ δ}",
    params=(
        Param("eps", EPS, "target ε ≥ 0", example=1),
        Param("delta", DELTA, "target δ", example="1e-5"),
    ),
    reference=gaussian_sigma,
    witnesses=(WitnessUse("base.gaussian", lambda p: {"sigma": gaussian_sigma(mpf(p["eps"]), mpf(p["delta"]))},
                          "the Gaussian mechanism at the calibrated σ(ε, δ)"),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": -1, "delta": -1},
))


@self_checked
def gaussian_classical_eps(delta, sigma):
    """The classical Gaussian mechanism calibration (Dwork & Roth 2014, Thm A.1): for ε ∈ (0, 1) and
    c² > 2 ln(1.25/δ), noise σ ≥ c·Δ₂/ε gives (ε, δ)-DP. Solved for ε at sensitivity Δ₂ = 1:

        ε = √(2 ln(1.25/δ)) / σ,   valid only where this ε < 1 (the theorem's own condition).

    (At the boundary c² = 2 ln(1.25/δ) the guarantee follows from the theorem for every ε' ∈ (ε, 1) and
    the continuity of the Gaussian profile.)"""
    return mpmath.sqrt(2 * mpmath.log(mpf("1.25") / delta)) / sigma


def _classical_eps_below_one(p) -> bool:
    return gaussian_classical_eps.__wrapped_unchecked__(p["delta"], p["sigma"]) < 1


register(Statement(
    id="base.gaussian_classical",
    fast="dpspec.fast.base.gaussian:gaussian_classical",
    source=Source("outside", "Thm A.1", "classical (ε, δ) calibration of the Gaussian mechanism",
                  "Dwork & Roth, The Algorithmic Foundations of Differential Privacy, 2014"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε = √(2 ln(1.25/δ)) / σ, for ε < 1",
    params=(
        Param("delta", DELTA, "δ", example="1e-5"),
        Param("sigma", NOISE, "noise standard deviation relative to the ℓ2 sensitivity", example=5),
    ),
    conditions=(Condition.of(GAUSSIAN_CLASSICAL_EPS_BELOW_ONE, _classical_eps_below_one),),
    reference=gaussian_classical_eps,
    witnesses=(WitnessUse("base.gaussian", {"sigma": "sigma"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"delta": -1, "sigma": -1},
))
