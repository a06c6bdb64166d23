"""The Gaussian mechanism with ℓ2-sensitivity 1 and noise N(0, σ²): its RDP curve, its exact privacy profile
(and the ε, σ obtained by inverting it), and the classical (ε, δ) calibration.

The witness pair ``base.gaussian`` is P = N(1, σ²), Q = N(0, σ²) (sensitivity 1), which is dominating for
every statement about the Gaussian mechanism (the privacy loss is symmetric, so both directions coincide).
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mp, mpf

from .._normal import ASYMPTOTIC_FROM, log_ndtr, mills_series
from .._solve import root
from ..catalogue import Condition, Privacy, Source, Statement, Value, Witness, WitnessUse, register, register_witness
from ..domains import ALPHA, DELTA, EPS, NOISE, Param
from ..errors import PrecisionError
from ..precision import log1mexp, self_checked
from .spec import EPS_REAL, GAUSSIAN_CLASSICAL_EPS_BELOW_ONE


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
    """log E_Q[(p/q)^α] = α(α−1)/(2σ²) for P = N(1,σ²), Q = N(0,σ²), any finite real α, derived here from the
    densities (not through gaussian_rdp): p/q = e^{(2o−1)/(2σ²)}, so E_Q[(p/q)^α] = e^{−α/(2σ²)}·E_{o~N(0,σ²)}[e^{to}]
    at t = α/σ², and the Gaussian moment generating function E[e^{to}] = e^{t²σ²/2} gives e^{(α² − α)/(2σ²)}.
    (The Rényi divergence of two normals, e.g. Gil, Alajaji & Linder, Information Sciences 249 (2013); tested
    against quadrature of the pair's densities in tests/conformance/test_witnesses.py.)"""
    from ..precision import checked_param
    from .sgm import witness_order

    alpha, sigma = witness_order(alpha), checked_param("sigma", NOISE, sigma)
    return alpha * (alpha - 1) / (2 * sigma * sigma)


def _gaussian_tilt_family(sigma):
    """conformance/tilting.py's family: P = N(1, σ²) against Q = N(0, σ²)."""
    return {"family": "gaussian_mixture", "weights": [1.0], "shifts": [1.0], "center": 0.0, "sigma": float(sigma)}


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
    tilt_family=_gaussian_tilt_family,
))


# ---------------------------------------------------------------------------------------------------
# (ε, δ): the exact privacy profile (analytic Gaussian) and the classical calibration.

MAX_GUARD_DIGITS = 2000  # δ = exp(log δ) is formed only for |log δ| < 10^2000 (see delta_shift)
MAX_CANCELLATION_DIGITS = 4000  # digits the cancellation inside log(1 − r) may cost (see log_delta_shift)


def _log_exp_eps_ndtr(eps, a, b) -> mpf:
    """log(e^ε Φ(b)) for the pair (a = μ/2 − ε/μ, b = −μ/2 − ε/μ). Where b ≤ −1e20 it is taken from the Mills
    expansion with the exact identity ε − b²/2 = −a²/2 (b² − a² = 2ε), so the two huge numbers ε and b²/2 never
    cancel: −a²/2 − log|b| − ½ log 2π + log S(b)."""
    if b <= -ASYMPTOTIC_FROM:
        return -a * a / 2 - mpmath.log(-b) - mpmath.log(2 * mpmath.pi) / 2 + mpmath.log(mills_series(b))
    return eps + log_ndtr(b)


def _log_delta_far(mu, a, b):
    """log δ(ε) where a = μ/2 − ε/μ ≤ −1e20 (so b = a − μ < a too): both tails from the Mills expansion
    Φ(x) = φ(x) S(x)/|x| (reference/_normal.py). With b² − a² = 2ε the exponentials cancel exactly:
    r = e^ε Φ(b)/Φ(a) = (a/b)·S(b)/S(a), so

        1 − r = (μ S(a) − |a| D) / (|b| S(a)),   D = S(b) − S(a) = Σ_{k≥1} (−1)^k (2k−1)!! a^{−2k} expm1(2k log(a/b)),

    log(a/b) = log1p(μ/b) < 0. Every term of D is formed without cancellation, and |a| D ≈ 2μ/a² ≤ 2e-40·μ S(a),
    so the numerator does not cancel either: no digits beyond the working precision are needed, whatever |a|
    (a float ε/μ reaches 1e632). The series for D is cut when the remainders of S(a) and S(b) (each below the
    first omitted term, at most (2k+1)!!/a^{2k+2}) are below 2^(−prec−10) of μ S(a)/|a|."""
    tol = mpf(2) ** (-mp.prec - 10)
    s_a = mills_series(a)
    log_ab = mpmath.log1p(mu / b)
    inv_a2 = 1 / (a * a)
    coef, d, k = mpf(1), mpf(0), 0
    while True:
        k += 1
        coef *= (2 * k - 1) * inv_a2  # (2k−1)!! a^{−2k}
        d += (-1) ** k * coef * mpmath.expm1(2 * k * log_ab)
        if -a * 2 * coef * (2 * k + 1) * inv_a2 <= tol * mu * s_a:
            break
    one_minus_r = (mu * s_a + a * d) / (-b * s_a)
    log_phi_a = -a * a / 2 - mpmath.log(-a) - mpmath.log(2 * mpmath.pi) / 2 + mpmath.log(s_a)
    return log_phi_a + mpmath.log(one_minus_r)


def _show(x) -> str:
    """A parameter for an error message: the shortest float repr inside the normal float range, else 8 digits."""
    x = mpf(x)
    if x == 0 or mpf("2.2250738585072014e-308") <= abs(x) <= mpf("1.7976931348623157e308"):
        return repr(float(x))
    return mpmath.nstr(x, 8)


def _describe(eps, mu, sigma=None) -> str:
    if sigma is not None:
        return f"eps={_show(eps)}, sigma={_show(sigma)}"
    return f"eps={_show(eps)}, mu={_show(mu)}"


def log_delta_shift(eps, mu=None, *, sigma=None):
    """log δ(ε) of the pair N(μ, 1) vs N(0, 1) (−inf where δ = 0, i.e. μ = 0), unchecked helper shared with f-DP;
    every ε ≥ 0 and μ ≥ 0; give ``mu`` or ``sigma`` (μ = 1/σ: then a = 1/(2σ) − εσ is formed from σ itself).

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (Balle & Wang 2018, Thm 8 with μ = Δ/σ; Dong, Roth & Su 2022,
    Cor 2.13). With a = μ/2 − ε/μ, b = −μ/2 − ε/μ:
    * a is formed from the exact inputs with as many more digits as μ/2 and ε/μ cancel (:func:`_exact_difference`):
      near ε = μ²/2 (large μ) a float ε leaves |a| ~ 1e3 out of terms ~5e19, and a rounded to the working
      precision made the 38- and 50-digit passes disagree;
    * a ≤ −1e20: :func:`_log_delta_far` (both tails asymptotic, the difference formed term by term);
    * otherwise log Φ(a) + log(1 − r), r = exp(log(e^ε Φ(b)) − log Φ(a)) < 1 (:func:`_log_exp_eps_ndtr`), so that
      neither term under- or overflows and the cancellation of the two terms is confined to log(1 − r). That
      loses about log10(1/|log r|) digits (r → 1 for small μ, or large ε/μ²) on top of the magnitude of the
      terms (about a²/2 < 1e40, or ε where b > −1e20): a pass measures log r, and the value is recomputed with more
      digits until the precision used covers both. The digits so needed are at most ~400 for float64 inputs
      (|log r| ≳ ε/a² with |a| < 1e20, ε ≥ 5e-324); beyond MAX_CANCELLATION_DIGITS the evaluation is refused."""
    eps = mpf(eps)
    if sigma is not None:
        sigma = mpf(sigma)

        def point():
            a = _exact_difference(lambda: 1 / (2 * sigma), lambda: eps * sigma)
            return eps, 1 / sigma, a, -1 / (2 * sigma) - eps * sigma

        return _log_delta(point, lambda: _describe(eps, None, sigma), "sigma")
    mu = mpf(mu)
    if mu == 0:
        return mpf("-inf")

    def point():
        return eps, mu, _exact_difference(lambda: mu / 2, lambda: eps / mu), -mu / 2 - eps / mu

    return _log_delta(point, lambda: _describe(eps, mu), "mu")


def log_delta_at(a, mu):
    """log δ of the pair N(μ, 1) vs N(0, 1) at the ε with μ/2 − ε/μ = a, i.e. ε = μ(μ/2 − a) (a ≤ μ/2): the
    parametrisation of the inversions, where ε ≈ μ²/2 for large μ could not carry a in its digits."""
    a, mu = mpf(a), mpf(mu)
    return _log_delta(lambda: (mu * (mu / 2 - a), mu, a, a - mu), lambda: f"a={mpmath.nstr(a, 8)}, mu={_show(mu)}",
                      "mu")


def _exact_difference(x, y):
    """x() − y() to the working precision's relative accuracy, however much the two cancel: ``x`` and ``y`` are
    recomputed from exact inputs with as many more digits as the difference is below them (0 when they are equal
    at 4× the digits, which for quotients of the inputs means equal)."""
    extra = 10
    while True:
        with mp.workdps(mp.dps + extra):
            xv, yv = x(), y()
            d = xv - yv
        if d != 0:
            lost = int(mpmath.log10((abs(xv) + abs(yv)) / abs(d))) + 1
            if lost + 5 <= extra:
                return +d
            extra = lost + 10
        elif extra >= 3 * mp.dps + 60:
            return mpf(0)
        else:
            extra = 2 * extra + 20
        if extra > MAX_CANCELLATION_DIGITS:
            raise PrecisionError("the shift a = μ/2 − ε/μ cancels more than the supported "
                                 f"{MAX_CANCELLATION_DIGITS} digits")


def _log_delta(point, describe, noise_name):
    """log δ at ``point()`` = (ε, μ, a, b), re-evaluated at every working precision from the exact inputs it closes
    over (see :func:`log_delta_shift`)."""
    eps, mu, a, b = point()
    if a <= -ASYMPTOTIC_FROM:
        return _log_delta_far(mu, a, b)

    def log_delta(extra):
        with mp.workdps(mp.dps + extra):
            eps, _, a, b = point()
            log_pa = log_ndtr(a)
            log_r = _log_exp_eps_ndtr(eps, a, b) - log_pa  # < 0 in exact arithmetic: e^ε Φ(b) < Φ(a) for μ > 0
            return (log_pa + log1mexp(log_r) if log_r < 0 else None), log_r

    magnitude = int(mpmath.log10(1 + a * a + (eps if b > -ASYMPTOTIC_FROM else 0)))  # digits of the terms in log r
    extra = magnitude + 10
    for _ in range(8):
        value, log_r = log_delta(extra)
        if log_r < 0:
            needed = magnitude + max(0, int(-mpmath.log10(-log_r))) + 10
            if needed <= extra:
                return +value
        else:  # log r rounded to ≥ 0: all digits lost, try much harder
            needed = 2 * extra + 20
        if needed > MAX_CANCELLATION_DIGITS:
            raise PrecisionError(
                f"δ(ε) of the Gaussian pair at {describe()}: the difference Φ(a) − e^ε Φ(b) cancels more than the "
                f"supported {MAX_CANCELLATION_DIGITS} digits (every float64 eps and {noise_name} is within the "
                "supported range)")
        extra = needed + 5
    raise PrecisionError(f"log_delta_shift: cancellation not resolved at {describe()}")


def delta_shift(eps, mu=None, *, sigma=None):
    """δ(ε) of the pair N(μ, 1) vs N(0, 1) = exp(log_delta_shift(ε, μ)); give ``mu`` or ``sigma`` (μ = 1/σ).

    The exponential is taken at enough extra digits: a relative error r in log δ becomes |log δ|·r in δ, and
    |log δ| ≈ a²/2 can be huge (μ → 0: a ≈ −ε/μ reaches 1e632 for float64 inputs), so a first pass sizes
    |log δ| and log δ is recomputed with log10(1 + |log δ|) + 5 more digits. Below δ = exp(−10^MAX_GUARD_DIGITS)
    the value is refused with a PrecisionError naming the parameters."""
    eps = mpf(eps)
    if sigma is None and mpf(mu) == 0:
        return mpf(0)
    log_value = log_delta_shift(eps, mu, sigma=sigma)
    if mpmath.isinf(log_value):
        return mpf(0)
    guard = int(mpmath.log10(1 + abs(log_value))) + 5
    if guard > MAX_GUARD_DIGITS + 5:
        raise PrecisionError(
            f"δ(ε) of the Gaussian pair at {_describe(eps, mu, sigma)} is exp(−{mpmath.nstr(-log_value, 5)}): below "
            f"the supported exp(−10^{MAX_GUARD_DIGITS}), which every float64 eps and "
            f"{'sigma' if sigma is not None else 'mu'} stays above")
    with mp.workdps(mp.dps + guard):
        value = mpmath.exp(log_delta_shift(eps, mu, sigma=sigma))
    return +value


def profile_real(eps, mu=None, *, sigma=None):
    """δ(ε) of the pair N(μ, 1) vs N(0, 1) (give ``mu`` or ``sigma``, μ = 1/σ) at every real ε, unchecked: ε ≥ 0
    from :func:`delta_shift`; ε < 0 from the complement identity of the hockey-stick divergence,
    sup_S P(S) − γQ(S) = 1 − γ + γ·sup_S Q(S) − P(S)/γ (γ = e^ε), and the symmetry of the pair (Q vs P has the
    profile of P vs Q): δ(ε) = (1 − e^ε) + e^ε δ(−ε), a sum of non-negative terms (no cancellation). The closed form
    Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) holds there too (its derivation never uses ε ≥ 0); tests/base/
    test_profile_edges.py checks the identity against it and against quadrature."""
    eps = mpf(eps)
    if eps >= 0:
        return delta_shift(eps, mu, sigma=sigma)
    return -mpmath.expm1(eps) + mpmath.exp(eps) * delta_shift(-eps, mu, sigma=sigma)


@self_checked
def gaussian_profile(eps, sigma):
    """Exact privacy profile of the Gaussian mechanism, sensitivity 1 (Balle & Wang 2018, Thm 8):

        δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ),   every real ε (for ε < 0: (1 − e^ε) + e^ε δ(−ε)),

    the hockey-stick divergence E_Q[(p/q − e^ε)₊] of P = N(1, σ²), Q = N(0, σ²) (both directions are
    equal). The mechanism is (ε, δ)-DP iff δ ≥ δ(ε). Evaluated in log space for every ε ≥ 0, σ > 0 down to
    δ = exp(−10^2000) (every float64 pair; e.g. σ = 1e308, ε = 1 gives δ = exp(−5e615)), refused below; ε < 0 by
    :func:`profile_real` (δ between 1 − e^ε and 1)."""
    return profile_real(eps, sigma=sigma)


register(Statement(
    id="base.gaussian_profile",
    fast="dpspec.fast.base.gaussian:gaussian_profile",
    source=Source("outside", "Thm 8", "exact (ε, δ) of the Gaussian mechanism (the analytic Gaussian)",
                  "Balle & Wang, Improving the Gaussian Mechanism for Differential Privacy, ICML 2018"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) (every real ε)",
    params=(
        Param("eps", EPS_REAL, "any real ε (ε < 0: 1 − e^ε + e^ε δ(−ε))", example=1),
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

    δ(ε) is continuous and strictly decreasing where positive. The root is solved for a = μ/2 − ε/μ (μ = 1/σ),
    ε = μ(μ/2 − a), on a ∈ [−√(2 log(1/δ)), μ/2]: a = μ/2 is ε = 0, and at the lower end δ(ε) < Φ(a) ≤
    e^{−a²/2}/2 = δ/2. (In ε the root is ≈ μ²/2 + μ√(2 log(1/δ)) for large μ, and at σ = 1e-300 the working
    precision could not represent the ε of the bracket's end apart from μ²/2.) For μ ≥ 1 the upper end is also
    at most √(2 log(2/(1 − δ))): for a ≥ 0, e^ε Φ(b) = ½ erfcx(−b/√2) e^{−a²/2} ≤ φ(a)/|b| ≤ 2φ(a)/μ, so
    δ ≥ 1 − e^{−a²/2}(1/2 + 0.8/μ) > δ there (a bracket [−5, 5e299] took 1300 bisections). Safeguarded Illinois
    iteration."""
    mu, log_target = 1 / sigma, mpmath.log(delta)
    h = lambda a: log_delta_at(a, mu) - log_target  # increasing in a
    if h(mu / 2) <= 0:
        return mpf(0)
    hi = mu / 2 if mu < 1 else min(mu / 2, mpmath.sqrt(2 * mpmath.log(2 / (1 - delta))))
    a = root(h, -mpmath.sqrt(-2 * log_target), hi)
    return mu * (mu / 2 - a)


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

    δ_σ(ε) decreases in σ (from 1 as σ → 0 to 0 as σ → ∞), so σ solves log δ_σ(ε) = log δ in log σ, searched
    over σ ∈ [e^(−10^4), e^(10^4)] (a bound on the work)."""
    log_target = mpmath.log(delta)
    if log_target <= -mpf(10) ** 200:
        raise PrecisionError(f"gaussian_sigma: delta={_show(delta)} is below the supported exp(−10^200)")

    def h(t):  # t = log σ; decreasing in t
        return log_delta_shift(eps, mpmath.exp(-t)) - log_target

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
