"""f-DP (Dong, Roth & Su, "Gaussian Differential Privacy", JRSS-B 2022; arXiv 1905.02383): the Gaussian
trade-off function G_μ, the (ε, δ) trade-off function f_{ε,δ}, μ-GDP ↔ (ε, δ), the privacy profile of any
trade-off function via its convex conjugate, group privacy and composition of GDP.

Notation (DRS): a trade-off function f maps the type-I error α ∈ [0, 1] of a test to the smallest type-II
error; a mechanism is f-DP if T(M(d), M(d')) ≥ f for all neighbours. A trade-off *guarantee* is therefore a
lower bound on the true trade-off function (``claim="lower"``); G_μ is exact for the Gaussian mechanism.
DRS use replace-one neighbours throughout; the statements here hold for whichever relation the underlying
mechanism's guarantee uses.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from .._normal import ndtr, ndtri_upper
from .._solve import maximise_concave, root
from ..catalogue import Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..domains import DELTA, EPS, STEPS, Param
from ..errors import DomainError, PrecisionError
from .gaussian import MAX_GUARD_DIGITS, _show, log_delta_shift, profile_real
from ..precision import self_checked
from .spec import EPS_REAL, GROUP, MU, TRADEOFF_CURVE, TRADEOFF_DELTA, TYPE_I

DRS = "Dong, Roth & Su, Gaussian Differential Privacy, JRSS-B 2022"
SEED_002 = "002_5bf9d068e79d7537.txt"



def _mu_of_sigma(p):
    return {"sigma": 1 / p["mu"]}


# ---------------------------------------------------------------------------------------------------
# G_μ

@self_checked
def gdp_tradeoff(alpha, mu):
    """The Gaussian trade-off function (DRS 2022, Def. 2.7): G_μ(α) = T(N(0,1), N(μ,1))(α) = Φ(Φ^{-1}(1−α) − μ).

    Exact trade-off function of the Gaussian mechanism with σ = 1/μ (sensitivity 1). Φ^{-1}(1 − α) is
    computed for the upper tail (no 1 − α rounding), so G_μ is accurate for α down to 1e-300.

    Φ's relative condition number at x = Φ^{-1}(1 − α) − μ < 0 is about x², and x carries the absolute errors
    of z = Φ^{-1}(1 − α) and of the subtraction (about 2^(−prec)·(|z| + |x|)): the value is recomputed with
    log10(1 + x(|x| + |z|)) more digits (620 at μ = 1e308; 5 digits lost at μ = 1e5 before). G_μ(α) below
    exp(−10^2000) (|x| > 1.4e1000, only from decimal strings) is refused with a PrecisionError."""
    z = ndtri_upper(alpha)
    if mpmath.isinf(z):
        return ndtr(z)
    x = z - mu
    guard = int(mpmath.log10(1 + (abs(x) * (abs(x) + abs(z)) if x < 0 else abs(x) + abs(z)))) + 5
    if x < 0 and x * x / 2 > mpf(10) ** MAX_GUARD_DIGITS:
        raise PrecisionError(f"G_mu(alpha) at alpha={_show(alpha)}, mu={_show(mu)} is below the supported "
                             f"exp(−10^{MAX_GUARD_DIGITS}) (|Φ^(-1)(1 − α) − μ| = {mpmath.nstr(abs(x), 5)}), "
                             "which every float64 alpha and mu stays above")
    with mp.workdps(mp.dps + guard):
        value = ndtr(ndtri_upper(alpha) - mu)
    return +value


register(Statement(
    id="base.gdp_tradeoff",
    fast="dpspec.fast.base.fdp:gdp_tradeoff",
    source=Source("outside", "Def. 2.7", "the Gaussian trade-off function G_μ", DRS),
    kind="tradeoff",
    claim="exact",
    value=Value("beta", "alpha"),
    summary="G_μ(α) = Φ(Φ^{-1}(1−α) − μ)",
    params=(
        Param("alpha", TYPE_I, "type-I error α", example="0.1"),
        Param("mu", MU, "GDP parameter μ (= 1/σ for the Gaussian mechanism)", example=1),
    ),
    reference=gdp_tradeoff,
    witnesses=(WitnessUse("base.gaussian", _mu_of_sigma, "σ = 1/μ; needs μ > 0"),),
    privacy=Privacy("any", "both", "none"),
    monotone={"alpha": -1, "mu": -1},
))


# ---------------------------------------------------------------------------------------------------
# f_{ε,δ}: max, not min (erratum of seed 002)

@self_checked
def eps_delta_tradeoff(alpha, eps, delta):
    """The trade-off function of (ε, δ)-DP (DRS 2022, Prop. 2.5, after Wasserman & Zhou 2010): a mechanism
    is (ε, δ)-DP iff it is f_{ε,δ}-DP, with

        f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)}.

    Seed 002 (Appendix A, where it restates [2] Prop. 2.5) prints min{0, …} instead of max; the min is ≤ 0
    everywhere and is not a trade-off function. That printed form is the ``printed`` variant."""
    return max(mpf(0), 1 - delta - mpmath.exp(eps) * alpha, mpmath.exp(-eps) * (1 - delta - alpha))


@self_checked
def eps_delta_tradeoff_printed(alpha, eps, delta):
    """Seed 002, Appendix A (restating Dong, Roth & Su Prop. 2.5), verbatim:
    f_{ε,δ}(α) = min{0, 1 − δ − e^ε α, (1 − δ − α)e^{−ε}}. Not a trade-off function (it is ≤ 0); kept to
    demonstrate the erratum."""
    return min(mpf(0), 1 - delta - mpmath.exp(eps) * alpha, (1 - delta - alpha) * mpmath.exp(-eps))


register(Statement(
    id="base.eps_delta_tradeoff",
    source=Source("outside", "Prop. 2.5", "(ε, δ)-DP as a trade-off function (restated in seed 002, App. A)",
                  DRS),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)}",
    params=(
        Param("alpha", TYPE_I, "type-I error α", example="0.1"),
        Param("eps", EPS, "ε ≥ 0", example=1),
        Param("delta", TRADEOFF_DELTA, "δ ∈ [0, 1)", example="1e-5"),
    ),
    reference=eps_delta_tradeoff,
    variants={"printed": Variant(
        eps_delta_tradeoff_printed,
        f"{SEED_002}, Appendix A (restating [2] Prop. 2.5; text line ~882) prints min{{0, …}}; the min is ≤ 0 "
        "for every α, so it is no trade-off function and bounds nothing; DRS Prop. 2.5 has max. See "
        "shared/notes/batch-clipping-fdp.md §2.1 and §6 item 9.",
        is_bound=False)},
    witnesses=(WitnessUse("base.kov15_canonical", lambda p: {"eps": p["eps"], "delta": p["delta"], "k": 1},
                          "the canonical (ε, δ) pair has trade-off function exactly f_{ε,δ}; needs ε > 0"),),
    privacy=Privacy("any", "both", "none"),
    monotone={"alpha": -1, "eps": -1, "delta": -1},
))


# ---------------------------------------------------------------------------------------------------
# μ-GDP ↔ (ε, δ)

@self_checked
def gdp_profile(eps, mu):
    """μ-GDP as (ε, δ)-DP (DRS 2022, Cor. 2.13; seed 002 eq. (7)): a mechanism is μ-GDP iff it is
    (ε, δ(ε))-DP for all ε ≥ 0, with

        δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)   (and δ ≡ 0 for μ = 0, ε ≥ 0).

    Computed in log space (shared with ``base.gaussian_profile``, which is the case μ = 1/σ). Every real ε: for
    ε < 0, δ(ε) = (1 − e^ε) + e^ε δ(−ε) (the hockey-stick divergence of G_μ's symmetric pair; 1 − e^ε at μ = 0)."""
    return profile_real(eps, mu)


register(Statement(
    id="base.gdp_profile",
    fast="dpspec.fast.base.fdp:gdp_profile",
    source=Source("outside", "Cor. 2.13", "μ-GDP as a family of (ε, δ) guarantees (seed 002 eq. (7))", DRS),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (every real ε)",
    params=(
        Param("eps", EPS_REAL, "any real ε (ε < 0: 1 − e^ε + e^ε δ(−ε))", example=1),
        Param("mu", MU, "GDP parameter μ", example=1),
    ),
    reference=gdp_profile,
    witnesses=(WitnessUse("base.gaussian", _mu_of_sigma, "σ = 1/μ; needs μ > 0"),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": -1, "mu": +1},
))


@self_checked
def gdp_mu(eps, delta):
    """The μ for which μ-GDP gives exactly (ε, δ) (DRS 2022, Cor. 2.13 inverted): the unique μ > 0 with
    Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) = δ. δ_μ(ε) increases continuously and strictly in μ from 0 (μ → 0)
    to 1 (μ → ∞), so the root is bracketed and solved for log μ in log δ."""
    log_target = mpmath.log(delta)
    h = lambda t: log_delta_shift(eps, mpmath.exp(t)) - log_target  # t = log μ; increasing in t
    # at μ = δ: δ_μ(ε) ≤ δ_μ(0) = 2Φ(μ/2) − 1 ≤ μ/√(2π) < δ, so t = log δ is below the root; search
    # down from t = 0 in growing steps, stopping there at the latest
    lo, hi, step = mpf(0), mpf(0), 1
    while h(lo) >= 0:
        if lo == log_target:
            raise PrecisionError(f"gdp_mu: δ_μ(ε) ≥ δ at μ = δ = {mpmath.nstr(delta, 5)} (cannot happen)")
        hi, lo, step = lo, max(lo - step, log_target), 2 * step
    step = 1
    while h(hi) <= 0:  # up in growing steps: the root is near log √(2ε) for large ε (355 at ε = 1e308)
        lo, hi, step = hi, hi + step, 2 * step
        if hi > 10**4:  # a bound on the work; float64 inputs stay below t = 360
            raise PrecisionError(f"gdp_mu: no μ < e^10000 gives delta={_show(delta)} at eps={_show(eps)}")
    return mpmath.exp(root(h, lo, hi, abs_tol=mpf(2) ** (-mp.prec + 4)))


register(Statement(
    id="base.gdp_mu",
    fast="dpspec.fast.base.fdp:gdp_mu",
    source=Source("outside", "Cor. 2.13 (inverted)", "the GDP μ equivalent to one (ε, δ) point", DRS),
    kind="gdp",
    claim="exact",
    value=Value("mu"),
    summary="μ such that Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) = δ",
    params=(
        Param("eps", EPS, "ε ≥ 0", example=1),
        Param("delta", DELTA, "δ ∈ (0, 1)", example="1e-5"),
    ),
    reference=gdp_mu,
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": +1, "delta": +1},
))


# ---------------------------------------------------------------------------------------------------
# δ(ε) of any trade-off function

def _conjugate_profile(f, eps, rel_tol):
    """sup_{x ∈ [0,1]} (1 − f(x) − e^ε x), certified by concavity to ``rel_tol`` (see maximise_concave).

    Near x = 0 a trade-off function can fall from f(0) = 1 to almost 0 within a width far below any bracket a search
    can resolve (G_μ at μ = 1e308 drops at x ≈ e^{−μ²/2}); the chord certificate then fails at every precision (the
    reference took minutes and raised). So [0, x1], x1 = rel_tol·e^{−ε}/4, is bounded first without a search: there
    g(x) ≤ 1 − f(x1) = g(x1) + rel_tol/4 (f is non-increasing, e^ε x ≥ 0), which is within rel_tol of g(x1) once
    g(x1) ≥ 1/4; then only [x1, 1] is searched (its certified best is ≥ g(x1)), or not at all when g already falls
    after x1 (see the code). Otherwise the whole [0, 1] is."""
    slope = mpmath.exp(eps)

    def g(x):
        value = f(x)
        if not 0 <= value <= 1:
            raise DomainError("curve", f"f({mpmath.nstr(x, 8)}) = {mpmath.nstr(value, 8)}",
                              "a trade-off function with values in [0, 1]")
        return 1 - value - slope * x

    x1 = rel_tol / (4 * slope)
    lo = 0
    try:
        g1 = g(x1) if 0 < 3 * x1 < 1 else None
    except ArithmeticError:  # f out of reach that close to 0 (mpmath's exp overflows below about e^(−10^300))
        g1 = None
    if g1 is not None and g1 >= mpf(1) / 4:
        lo = x1
        # the maximum at x1 itself (δ ≈ 1 − f(0+), e.g. G_μ at a huge μ): g concave and g(x1 + h) ≤ g(x1) bound g by
        # g(x1) beyond x1 + h (the chord through x1, x1 + h extended) and by g(x1 + h) + (g(x1 + h) − g(x1 + 2h)) on
        # [x1, x1 + h] (the chord through x1 + h, x1 + 2h extended); with h = x1 that is ≤ g(x1) + rel_tol/4 (f is
        # non-increasing), so three evaluations certify g(x1) instead of a golden-section search
        g2, g3 = g(2 * x1), g(3 * x1)
        if g2 <= g1 and g2 + max(g2 - g3, 0) - g1 <= rel_tol * g1:
            return g1
    try:
        a, b = _scale_bracket(g, lo, x1)
    except ArithmeticError:  # f out of reach at some 2^-k: search the whole range
        a, b = lo, 1
    best, _ = maximise_concave(g, a, b, rel_tol=rel_tol)
    return best


def _scale_bracket(g, lo, x1):
    """[a, b] ⊂ [lo, 1] holding a maximiser of the concave g on [lo, 1], by its scale: h(k) = g(2^{−k}) for
    0 ≤ k ≤ K = ⌊log2(1/x1)⌋ is unimodal in k (a concave function is unimodal along any monotone sequence of points,
    and a flat stretch of it is at its maximum), so bisection finds the first k with h(k + 1) ≤ h(k) in about
    log2 K steps; then g(2^{−k}) is at least both neighbours' values and, by concavity, g is at most that outside
    [2^{−k−1}, 2^{−k+1}]. The golden-section search then starts from a bracket of the maximiser's own size instead of
    [0, 1] — at ε = 17 with a Gaussian trade-off curve the maximiser is at x ≈ 1e-64: about 300 steps fewer per
    precision pass, each an inverse-normal evaluation."""
    k_max = max(1, int(mpmath.floor(mpmath.log(1 / x1, 2))))
    values: dict = {}

    def h(k):
        if k not in values:
            values[k] = g(mpf(2) ** -k)
        return values[k]

    first, last = 0, k_max
    while first < last:
        mid = (first + last) // 2
        if h(mid + 1) <= h(mid):
            last = mid
        else:
            first = mid + 1
    k = first
    a = mpf(2) ** -(k + 1) if k < k_max else mpf(lo)
    b = mpf(2) ** -(k - 1) if k > 0 else mpf(1)
    return max(a, mpf(lo)), min(b, mpf(1))


@self_checked
def tradeoff_profile(curve, eps):
    """The privacy profile of a trade-off function (DRS 2022, Prop. 2.12, primal–dual): an f-DP mechanism
    is (ε, δ(ε))-DP for every ε ≥ 0 with

        δ(ε) = 1 + f*(−e^ε) = sup_{x ∈ [0,1]} (1 − f(x) − e^ε x),

    where f*(y) = sup_x (yx − f(x)) is the convex conjugate. f is convex, so the objective is concave and
    a golden-section search finds its maximum with a certificate (chord bounds). The subtraction
    1 − f(x) − e^ε x loses about log10(1/δ) digits, so a 20-digit pass sizes δ and the result is computed
    with that many more digits (f is evaluated at the raised precision too). The certificate is asked for dps + 6
    digits (relative) whatever the working precision, so that a steep objective (slope e^{ε0} for f_{ε0,δ0}) is
    resolved by working with more digits rather than failing at every precision.

    A certified maximum of 0 at dps + 6 digits is returned as 0: that covers the exact zeros (f_{ε',0} at ε ≥ ε',
    f(x) = 1 − x) but also a positive δ below about 10^(−2(dps+6)), which the search cannot tell apart. The first
    time a pass cannot resolve δ (0 or a failed certificate), the a-priori bound δ(ε) ≤ 1 − f(min(1, e^{−ε}))
    (for x ≥ e^{−ε} the objective is at most −f(x) ≤ 0, and below it 1 − f(x) ≤ 1 − f(e^{−ε}), f non-increasing)
    is evaluated once with 1010 digits: below 1e-1000 the value is refused at once (PrecisionError) instead of
    being searched for at every precision up to 1000 digits (G_1 at ε = 1e15 took 90 s and returned 0)."""
    target = mp.dps
    working = 20  # a cheap first pass only sizes δ
    bound_checked = False
    while True:
        try:
            with mp.workdps(working):
                # the certificate needs only the target's digits (+6); the digits worked beyond them absorb the
                # objective's slope, which bounds what the final bracket can resolve: for f_{ε0,δ0} it is e^{ε0}, and
                # a tolerance of 2^(16 − prec) failed at every precision once e^{ε0} > 2^12 (ε0 = 14.8, conformance)
                tol = max(mpf(2) ** (-mp.prec + 16), mpf(10) ** (-(target + 6)))
                value = _conjugate_profile(curve, eps, tol)
        except PrecisionError:
            value = None
        if (value is None or value == 0) and not bound_checked:
            bound_checked = True
            if _profile_bound_below(curve, eps, 1000):
                raise PrecisionError(f"tradeoff_profile: δ at eps={_show(eps)} is at most 1 − f(e^(−ε)) < 1e-1000, "
                                     "below the supported range")
        if value is None:
            if working >= target + 1000:
                raise PrecisionError(f"tradeoff_profile: δ at eps={_show(eps)} is not resolved at {working} digits")
            working += 40  # the certificate failed at this precision: δ is smaller than it resolves
            continue
        if value == 0 and working >= target + 6:
            return mpf(0)  # (g(0) = 1 − f(0) ≥ 0 is always a candidate, so 0 means f(0) = 1 and no gain)
        needed = target + 6 + (max(0, int(-mpmath.log10(value))) if value > 0 else 40)
        if working >= needed:
            return +value
        if needed > target + 1000:
            raise PrecisionError(f"tradeoff_profile: δ({mpmath.nstr(eps, 8)}) is below 1e-1000 or zero")
        working = max(needed, working + 20)


def _profile_bound_below(curve, eps, digits: int) -> bool:
    """Whether 1 − f(min(1, e^{−ε})), an upper bound on δ(ε) (see tradeoff_profile), is below 10^(−digits):
    evaluated with 10 digits to spare, so a computed value below half of it is conclusive."""
    with mp.workdps(digits + 10):
        x0 = mpmath.exp(-mpf(eps)) if eps > 0 else mpf(1)
        return 1 - curve(x0) < mpf(10) ** (-digits) / 2


register(Statement(
    id="base.tradeoff_profile",
    source=Source("outside", "Prop. 2.12", "δ(ε) of any trade-off function via its convex conjugate", DRS),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = 1 + f*(−e^ε) = sup_x (1 − f(x) − e^ε x)",
    params=(
        Param("curve", TRADEOFF_CURVE, "a trade-off function α ↦ f(α) (convex, non-increasing)",
              example="base.gdp_tradeoff"),
        Param("eps", EPS, "ε ≥ 0", example=1),
    ),
    reference=tradeoff_profile,
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": -1},
    note="exact for the given f: the tightest (ε, δ) implied by f-DP",
))


# ---------------------------------------------------------------------------------------------------
# group privacy and composition of GDP

@self_checked
def gdp_group(g, mu):
    """Group privacy of GDP (DRS 2022, Thm 2.14): a μ-GDP mechanism is gμ-GDP for groups of size g
    (neighbours at distance g), i.e. G_μ ↦ G_{gμ}."""
    return g * mu


register(Statement(
    id="base.gdp_group",
    fast="dpspec.fast.base.fdp:gdp_group",
    source=Source("outside", "Thm 2.14", "group privacy of μ-GDP", DRS),
    kind="gdp",
    claim="upper",
    value=Value("mu"),
    summary="μ_g = g·μ",
    params=(
        Param("g", GROUP, "group size", example=2),
        Param("mu", MU, "GDP parameter μ of one individual", example=1),
    ),
    reference=gdp_group,
    privacy=Privacy("any", "both", "none"),
    monotone={"g": +1, "mu": +1},
    note="exact for the Gaussian mechanism (a group shift of g has ℓ2 norm g)",
))


@self_checked
def gdp_composition(mu, k):
    """Composition of GDP (DRS 2022, Cor. 3.3): G_{μ_1} ⊗ … ⊗ G_{μ_k} = G_{√(Σ μ_i²)}; homogeneous form
    √k·μ for k mechanisms that are each μ-GDP (adaptively composed)."""
    return mpmath.sqrt(k) * mu


register(Statement(
    id="base.gdp_composition",
    fast="dpspec.fast.base.fdp:gdp_composition",
    source=Source("outside", "Cor. 3.3", "composition of μ-GDP mechanisms", DRS),
    kind="gdp",
    claim="exact",
    value=Value("mu"),
    summary="μ_k = √k·μ",
    params=(
        Param("mu", MU, "GDP parameter μ of each mechanism", example=1),
        Param("k", STEPS, "number of composed mechanisms", example=10),
    ),
    reference=gdp_composition,
    privacy=Privacy("any", "both", "none"),
    monotone={"mu": +1, "k": +1},
    note="G_μ^{⊗k} = G_{√k μ} is an identity of trade-off functions (exact)",
))
