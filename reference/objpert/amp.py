"""RDP of Algorithm 7 (approximate minima perturbation with gradient clipping) and of Algorithm 16 (AMP, Iyengar et
al. 2019), and the (σ, λ) calibration of Sec. 4.5: seed 003, Thm 4.4.1, Rem 4.4.2, Thm C.6.1, Sec. 4.5 (lines
3890–3925); notes shared/notes/objpert-rdp.md §2.2 (Thm 4.4.1, Rem 4.4.2), §2.3 (Thm C.6.1), §4 A2–A4, §5.2 I.

Algorithm 7 is the adaptive composition of objective perturbation (release θ^P; RDP objpert.thm4_3_2 with the clip
norm C as the Lipschitz constant, by Thm C.6.3) and a Gaussian release of θ̃ − θ^P, whose conditional ℓ2-sensitivity
is 2τ/λ by λ-strong convexity (‖θ̃ − θ^P‖ ≤ τ/λ on each side): base.gaussian_rdp with noise σ_out λ/(2τ), i.e.
(2τ/λ)²α/(2σ_out²) = 2τ²α/(σ_out²λ²) (Thm C.2.1, Lemma C.10.5).

Public helpers (names fixed by the session contract): :func:`amp_rdp` (Thm 4.4.1 / C.6.1) and :func:`amp_calibrate`
(Sec. 4.5, procedure A4 of the notes: λ from max(2β/ε, 1.05β) growing ×1.05 until the σ that makes the RDP curve
(ε, δ)-DP through the Balle et al. 2020 / Canonne–Kamath–Steinke 2020 conversion, base.rdp_to_dp, is at most f·σ_G,
σ_G = L·base.gaussian_sigma(ε, δ))."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mp, mpf

from .._solve import root
from ..base.conversion import rdp_to_dp, rdp_to_dp_order
from ..base.gaussian import gaussian_sigma
from ..catalogue import Condition, Privacy, Source, Statement, Value, WitnessUse, register
from ..errors import ConditionError, PrecisionError
from ..precision import self_checked
from .spec import (AMP_CALIBRATION_FEASIBLE, CALIBRATION_BETA_POSITIVE, LAMBDA_ABOVE_BETA, P_ALPHA, P_BETA, P_CLIP,
                   P_DELTA, P_EPS_CALIBRATION, P_F_FACTOR, P_L, P_LAM, P_SIGMA, P_SIGMA_OUT, P_TAU, SEED)

IYENGAR_2019 = ("Iyengar, Near, Song, Thakkar, Thakurta & Wang, Towards practical differentially private convex "
                "optimization, IEEE S&P 2019")
LAMBDA_GROWTH = mpf("1.05")  # Sec. 4.5 / the authors' calibrate_amp (notes §4 A4)
MAX_LAMBDA_STEPS = 5000  # 1.05^5000 ≈ e^244: the search is refused beyond (condition calibration_feasible)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 4.4.1 / Theorem C.6.1


def _objpert_rdp(alpha, sigma, lam, beta, L):
    """Thm 4.3.2 (seed 003) through helper A's public evaluator objpert_rdp (reference/objpert/glm_bounds.py):
    a + αL²/(2σ²) + log(2Φ((α−1)L/σ))/(α−1), a = −log(1 − β/λ)."""
    from .glm_bounds import objpert_rdp  # late import: glm_bounds registers objpert.thm4_3_2

    return objpert_rdp(alpha, sigma, lam, beta, L)


def objpert_rdp_closed_form(alpha, sigma, lam, beta, L):
    """The same closed form written out here (seed 003 Thm 4.3.2; notes §2.2, §8): a + αv²/2 + log1p(erf(t/√2))/(α−1),
    v = L/σ, t = (α−1)v; log(2Φ(t)) = log1p(erf(t/√2)) has no cancellation as t → 0 (α → 1). Used by the tests to
    cross-check objpert_rdp; not registered."""
    a = -mpmath.log1p(-beta / lam)
    v = L / sigma
    t = (alpha - 1) * v
    return a + alpha * v * v / 2 + mpmath.log1p(mpmath.erf(t / mpmath.sqrt(2))) / (alpha - 1)


def gaussian_step_rdp(alpha, sigma_out, lam, tau):
    """The Gaussian part of Thm 4.4.1 / C.6.1 (seed 003): (2τ/λ)²α/(2σ_out²) = 2τ²α/(σ_out²λ²), the RDP of the
    Gaussian release of θ̃ − θ^P with sensitivity 2τ/λ (Rem 4.4.2; base.gaussian_rdp at noise σ_out·λ/(2τ))."""
    return 2 * tau * tau * alpha / (sigma_out * sigma_out * lam * lam)


@self_checked
def amp_rdp(alpha, sigma, sigma_out, lam, beta, C, tau):
    """RDP of Algorithm 7 (seed 003, Thm 4.4.1): ε(α) ≤ −log(1 − β/λ) + C²/(2σ²)
    + (1/(α−1)) log E_{X~N(0, C²/σ²)} e^{(α−1)|X|} + 2τ²α/(σ_out²λ²) for every α > 1, λ > β; the ObjPert RDP of
    Thm 4.3.2 with L := C (the clipped loss has |f_C'|·‖x‖ ≤ C and the same β, Thm C.6.3) plus the Gaussian RDP of
    the sensitivity-2τ/λ release (Rem 4.4.2). Called with C = L it is Thm C.6.1 (AMP)."""
    return _objpert_rdp(alpha, sigma, lam, beta, C) + gaussian_step_rdp(alpha, sigma_out, lam, tau)


@self_checked
def thm_c6_1(alpha, sigma, sigma_out, lam, beta, L, tau):
    """RDP of Algorithm 16, AMP of Iyengar et al. 2019 (seed 003, Thm C.6.1, corrected proof): Thm 4.4.1 with the
    Lipschitz constant L of the unclipped loss in place of C (the proof's γ is τ and its output noise N(0, σ²I) is
    N(0, σ_out²I): erratum E4_11)."""
    return amp_rdp(alpha, sigma, sigma_out, lam, beta, L, tau)


def _lambda_above_beta(p):
    return p["lam"] > p["beta"]


def _tau_zero_is_thm4_3_2(statement, p):
    """Property: the τ-free part is Thm 4.3.2 with L := C (via the closed form written here), the Gaussian part is
    base.gaussian_rdp at σ_out·λ/(2τ), and the total is at least the Gaussian lower bound αC²/(2σ²) (Lemma 4.3.4)."""
    from ..base.gaussian import gaussian_rdp

    names = statement.param_names
    lip = p["C"] if "C" in names else p["L"]
    total = statement.reference(**p)
    obj = objpert_rdp_closed_form(p["alpha"], p["sigma"], p["lam"], p["beta"], lip)
    gauss = gaussian_rdp(p["alpha"], p["sigma_out"] * p["lam"] / (2 * p["tau"])) if p["tau"] > 0 else mpf(0)
    if abs(total - obj - gauss) > mpf(10) ** (-mp.dps + 10) * max(1, abs(total)):
        raise AssertionError(f"{statement.id}: {total} ≠ Thm 4.3.2 {obj} + Gaussian {gauss}")
    if total < p["alpha"] * lip * lip / (2 * p["sigma"] ** 2) * (1 - mpf(10) ** -30):
        raise AssertionError(f"{statement.id}: {total} below the Gaussian lower bound αC²/(2σ²)")


_AMP_NOTE = ("Relates objpert.thm4_3_2 (helper A's objpert_rdp, called with L := C) and base.gaussian_rdp (noise "
             "σ_out·λ/(2τ), sensitivity 1): the two add by adaptive RDP composition (Lemma C.10.5). τ = 0 recovers "
             "Thm 4.3.2; σ_out → 0 with τ > 0 gives ∞. Its dominating pair (notes §3 M3: the C.4.6 pair times "
             "N(2τ/λ, σ_out²) vs N(0, σ_out²)) is helper A's, reference/objpert/witnesses_ch4.py. Test vector (notes "
             "§5.2 I, reconstructed): σ = 6.8285, λ = 4.1161, τ = 0.01, σ_out = 0.15, C = √2, β = 0.5 gives "
             "0.3209670 / 0.3253757 / 0.4227166 / 0.8549355 / 2.3335924 at α = 1.5 / 2 / 10 / 32 / 100.")

register(Statement(
    id="objpert.thm4_4_1",
    fast="dpspec.fast.objpert.amp:amp_rdp",
    source=Source(SEED, "Thm 4.4.1", "RDP of Algorithm 7 (approximate minima perturbation with gradient clipping)"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≤ −log(1 − β/λ) + C²/(2σ²) + (1/(α−1)) log E_{X~N(0,C²/σ²)} e^{(α−1)|X|} + 2τ²α/(σ_out²λ²)",
    params=(P_ALPHA, P_SIGMA, P_SIGMA_OUT, P_LAM, P_BETA, P_CLIP, P_TAU),
    reference=amp_rdp,
    conditions=(Condition.of(LAMBDA_ABOVE_BETA, _lambda_above_beta),),
    witnesses=(WitnessUse("objpert.alg7_pair", {k: k for k in ("sigma", "sigma_out", "lam", "beta", "C", "tau")},
                          "the corrected C.4.6 pair (L := C) times the Gaussian pair of the θ̃ − θ^P release"),),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"alpha": +1, "sigma": -1, "sigma_out": -1, "lam": -1, "beta": +1, "C": +1, "tau": +1},
    properties=(_tau_zero_is_thm4_3_2,),
    note="GLM losses only (the ObjPert part needs GLM structure, App. C.5). " + _AMP_NOTE,
))

register(Statement(
    id="objpert.thm_c6_1",
    fast="dpspec.fast.objpert.amp:thm_c6_1",
    source=Source(SEED, "Thm C.6.1 (Algorithm 16)", "RDP of approximate minima perturbation (AMP), corrected proof",
                  IYENGAR_2019),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≤ −log(1 − β/λ) + L²/(2σ²) + (1/(α−1)) log E_{X~N(0,L²/σ²)} e^{(α−1)|X|} + (2τ/λ)²α/(2σ_out²)",
    params=(P_ALPHA, P_SIGMA, P_SIGMA_OUT, P_LAM, P_BETA, P_L, P_TAU),
    reference=thm_c6_1,
    conditions=(Condition.of(LAMBDA_ABOVE_BETA, _lambda_above_beta),),
    witnesses=(WitnessUse("objpert.alg7_pair", {"sigma": "sigma", "sigma_out": "sigma_out", "lam": "lam",
                                                "beta": "beta", "L": "C", "tau": "tau"},
                          "the Algorithm 7 pair with C := L (no clipping needed for an L-Lipschitz loss)"),),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"alpha": +1, "sigma": -1, "sigma_out": -1, "beta": +1, "L": +1, "tau": +1},  # λ: on thm4_4_1 (same
    # evaluator); here the seed-0 draws left a base point with λ just above β, no partner λ inside the conditions
    properties=(_tau_zero_is_thm4_3_2,),
    note="GLM losses only: the bound contains Thm 4.3.2, which needs ℓ(θ; z) = f(xᵀθ; y) (App. C.5: without GLM "
         "structure the ObjPert part is Thm C.5.1's, objpert.thm_c5_1), although AMP (Iyengar et al. 2019) is usually "
         "run on general convex losses. Algorithm 7 without clipping (objpert.thm4_4_1 at C = L; its evaluator calls "
         "amp_rdp). The printed proof "
         "writes γ for τ and N(0, σ²I) for the output noise; Algorithm 16 writes ∇L^P_C without clipping (erratum "
         "E4_11). It presupposes a solver θ_A(Z, b) that is a deterministic function of (Z, b) (or uses independent "
         "randomness). " + _AMP_NOTE,
))


# ---------------------------------------------------------------------------------------------------------------
# Sec. 4.5: calibration of (σ, λ) (notes §4 A4)


def _amp_curve(sigma, sigma_out, lam, beta, L, tau, alpha=None):
    """α ↦ Thm 4.4.1 curve at σ; with ``alpha`` given instead, σ ↦ the curve at that order."""
    if alpha is not None:
        return lambda s: (objpert_rdp_closed_form(alpha, s, lam, beta, L)
                          + gaussian_step_rdp(alpha, sigma_out, lam, tau))
    return lambda a: (objpert_rdp_closed_form(a, sigma, lam, beta, L)
                      + gaussian_step_rdp(a, sigma_out, lam, tau))


def _limit_curve(sigma_out, lam, beta, tau):
    """σ → ∞: a + 2τ²α/(σ_out²λ²) (the half-normal term vanishes)."""
    a = -mpmath.log1p(-beta / lam)
    return lambda alpha: a + gaussian_step_rdp(alpha, sigma_out, lam, tau)


def _converted(sigma, eps, delta, lam, beta, L, tau, sigma_out):
    """ε of the Thm 4.4.1 curve at σ through base.rdp_to_dp (BBG+20 / CKS20), minus the target ε."""
    return rdp_to_dp(_amp_curve(sigma, sigma_out, lam, beta, L, tau), delta) - eps


def _sigma_for(eps, delta, lam, beta, L, tau, sigma_out, guess=None):
    """The smallest σ with rdp_to_dp(Thm 4.4.1 curve, δ) ≤ ε at this λ (BBG+20 / CKS20 conversion, base.rdp_to_dp),
    or +inf when even σ = ∞ (a + the Gaussian τ-term alone) misses ε. rdp_to_dp is non-increasing in σ (every ε(α)
    is), so the root in log σ is unique; ``guess`` (the float pre-search's σ) narrows the first bracket."""
    if rdp_to_dp(_limit_curve(sigma_out, lam, beta, tau), delta) >= eps:
        return mpf("inf")

    if guess is not None:
        return _sigma_by_envelope(eps, delta, lam, beta, L, tau, sigma_out, mpf(guess))

    def h(t):
        return _converted(mpmath.exp(t), eps, delta, lam, beta, L, tau, sigma_out)

    centre, step = mpmath.log(L / eps), mpf(1)
    lo, hi = centre - step, centre + step
    while h(lo) <= 0:
        lo -= step
        step *= 4
    while h(hi) > 0:
        hi += step
        step *= 4
        if hi > 10**4:
            raise PrecisionError(f"amp_calibrate: no σ < e^{hi} reaches ε = {mpmath.nstr(eps, 8)} at λ = "
                                 f"{mpmath.nstr(lam, 8)}")
    return mpmath.exp(root(h, lo, hi, abs_tol=mpf(2) ** (-mp.prec + 8)))


def _bracket_root(h, centre, step):
    """The root of a decreasing h near ``centre`` (log scale), bracket grown ×4 per step."""
    lo, hi = centre - step, centre + step
    while h(lo) <= 0:
        lo -= step
        step *= 4
    while h(hi) > 0:
        hi += step
        step *= 4
        if hi > 10**4:
            raise PrecisionError("amp_calibrate: no σ < e^10^4 reaches the target ε")
    return root(h, lo, hi, abs_tol=mpf(2) ** (-mp.prec + 8))


def _sigma_by_envelope(eps, delta, lam, beta, L, tau, sigma_out, guess):
    """σ with min_α F(α, σ) = ε, F the BBG+20/CKS20 objective of the Thm 4.4.1 curve: α* = the order base.rdp_to_dp
    picks at the current σ, then σ solves F(α*, σ) = ε (a closed form in σ), repeated until σ is stable; the error in
    α* enters F only at second order (envelope theorem), so two or three rounds reach the working precision. The
    result is confirmed through rdp_to_dp itself."""
    sigma = guess
    for _ in range(12):
        _, alpha = rdp_to_dp_order(_amp_curve(sigma, sigma_out, lam, beta, L, tau), delta)
        curve = _amp_curve(None, sigma_out, lam, beta, L, tau, alpha=alpha)
        conv = mpmath.log((alpha - 1) / alpha) - (mpmath.log(delta) + mpmath.log(alpha)) / (alpha - 1)
        new = mpmath.exp(_bracket_root(lambda t: curve(mpmath.exp(t)) + conv - eps, mpmath.log(sigma), mpf("1e-3")))
        if abs(new - sigma) <= mpf(2) ** (-mp.prec + 10) * sigma:
            sigma = new
            break
        sigma = new
    else:
        raise PrecisionError("amp_calibrate: the order/σ iteration did not settle")
    check = _converted(sigma, eps, delta, lam, beta, L, tau, sigma_out)
    if abs(check) > mpf(2) ** (-mp.prec + 20) * eps:
        raise PrecisionError(f"amp_calibrate: σ = {mpmath.nstr(sigma, 12)} converts to ε + {mpmath.nstr(check, 5)}")
    return sigma


# Float pre-search (numpy) of the λ step: the mpmath reference then checks the step found and its predecessor
# (σ(λ) is non-increasing in λ, so these two settle it) and moves by one step while either check fails.
_ALPHA_GRID = 1 + np.logspace(-4, 5, 1500)


def _float_converted(sigma, delta, lam, beta, L, tau, sigma_out):
    """float64 BBG+20/CKS20 ε of the Thm 4.4.1 curve (min over the α grid, ≥ 0); σ = inf gives the λ-only limit."""
    from scipy.special import log_ndtr

    al = _ALPHA_GRID
    a = -math.log1p(-beta / lam) if math.isfinite(lam) else 0.0
    with np.errstate(divide="ignore", over="ignore"):  # σ_out² or λ² underflowing to 0 give +inf: never private
        gauss = 0.0 if tau == 0 else 2 * tau * tau * al / (sigma_out * sigma_out * lam * lam)
        conv = np.log((al - 1) / al) - (math.log(delta) + np.log(al)) / (al - 1)
        v = L / sigma
        rdp = a + al * v * v / 2 + (math.log(2) + log_ndtr((al - 1) * v)) / (al - 1) + gauss
    best = float(np.min(rdp + conv))
    if math.isnan(best):
        raise PrecisionError(f"amp_calibrate: the float pre-search met NaN at σ = {sigma!r}, λ = {lam!r}")
    return max(0.0, best)


def _float_sigma_for(eps, delta, lam, beta, L, tau, sigma_out):
    from scipy.optimize import brentq

    if _float_converted(math.inf, delta, lam, beta, L, tau, sigma_out) >= eps:
        return math.inf
    conv_eps = lambda sigma: _float_converted(sigma, delta, lam, beta, L, tau, sigma_out)  # noqa: E731
    lo, hi = math.log(L / eps) - 1, math.log(L / eps) + 1
    while conv_eps(math.exp(lo)) <= eps:
        lo -= 2
    while conv_eps(math.exp(hi)) > eps:
        hi += 2
    return math.exp(brentq(lambda t: conv_eps(math.exp(t)) - eps, lo, hi, xtol=1e-12))


def _float_steps(eps, delta, L, beta, tau, sigma_out, f, sigma_g):
    """The first k with σ(λ0·1.05^k) ≤ f·σ_G, in float64 (None when not found within MAX_LAMBDA_STEPS): σ(λ) is
    non-increasing in λ and σ(λ) ≤ f·σ_G iff the curve at σ = f·σ_G converts to ≤ ε, so a doubling then bisection
    search over k."""
    lam0 = max(2 * beta / eps, 1.05 * beta)
    target = f * sigma_g

    def ok(k):
        lam = lam0 * 1.05 ** k
        return (_float_converted(math.inf, delta, lam, beta, L, tau, sigma_out) < eps
                and _float_converted(target, delta, lam, beta, L, tau, sigma_out) <= eps)

    if ok(0):
        return 0
    lo, hi = 0, 1
    while not ok(hi):
        lo, hi = hi, 2 * hi
        if hi > MAX_LAMBDA_STEPS:
            return None
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def calibration_float(eps, delta, L, beta, tau, sigma_out, f=1.3):
    """(σ, λ, σ_G) of the Sec. 4.5 search in float64 (α on a grid of 1500 orders): the pre-search of
    :func:`amp_calibrate`, exposed for the §5.2 I table test (all rows, fast)."""
    eps, delta, L, beta, tau, sigma_out, f = map(float, (eps, delta, L, beta, tau, sigma_out, f))
    sigma_g = L * float(gaussian_sigma(eps, delta))
    k = _float_steps(eps, delta, L, beta, tau, sigma_out, f, sigma_g)
    if k is None:
        raise ConditionError("objpert.amp_calibration", [AMP_CALIBRATION_FEASIBLE.describe()])
    lam = max(2 * beta / eps, 1.05 * beta) * 1.05 ** k
    return _float_sigma_for(eps, delta, lam, beta, L, tau, sigma_out), lam, sigma_g


def sigma_limit(eps, delta, L):
    """σ_∞: the noise the A4 search approaches as λ → ∞ (a → 0 and the τ-term → 0): the smallest σ with
    rdp_to_dp(αL²/(2σ²) + log(2Φ((α−1)L/σ))/(α−1), δ) ≤ ε. The search ends iff σ_∞ < f·σ_G."""
    return _sigma_for(eps, delta, mpf("inf"), mpf(0), L, mpf(0), mpf(1))


def _feasible(p):
    """σ_∞ < f·σ_G(1 − 1e-6), decided by one conversion: the λ = ∞ curve at σ = f·σ_G(1 − 1e-6) converts below ε."""
    if p["beta"] <= 0:
        return True  # reported by calibration_beta_positive
    with mp.workdps(20):
        sigma = p["f"] * p["L"] * gaussian_sigma(p["eps"], p["delta"]) * (1 - mpf(10) ** -6)
        return _converted(sigma, p["eps"], p["delta"], mpf("inf"), mpf(0), p["L"], mpf(0), mpf(1)) < 0


@self_checked
def amp_calibrate(eps, delta, L, beta, tau, sigma_out, f=mpf("1.3")):
    """(σ, λ) for (ε, δ)-DP Algorithm 7 / AMP by the Sec. 4.5 rule (seed 003, lines 3890–3925; notes §4 A4,
    reconstructed from the authors' calibrate_amp): σ_G = L·σ_analytic(ε, δ) (base.gaussian_sigma); λ starts at
    max(2β/ε, 1.05β) (the code's 2β/ε is below β for ε > 2: erratum E4_22) and grows ×1.05; at each λ, σ is the
    smallest noise whose Thm 4.4.1 RDP curve converts to (ε, δ)-DP by Balle et al. 2020 Thm 21 / Canonne et al. 2020
    Prop. 12 (base.rdp_to_dp); the first λ with σ ≤ f·σ_G is returned with its σ. The λ step is located in float64
    and confirmed here (σ(λ_k) ≤ f·σ_G < σ(λ_{k−1}), at the working precision)."""
    if not beta > 0:
        raise ConditionError("objpert.amp_calibration", [CALIBRATION_BETA_POSITIVE.describe()])
    sigma_g = L * gaussian_sigma(eps, delta)
    k = _float_steps(float(eps), float(delta), float(L), float(beta), float(tau), float(sigma_out), float(f),
                     float(sigma_g))
    if k is None:
        raise ConditionError("objpert.amp_calibration", [AMP_CALIBRATION_FEASIBLE.describe()])
    lam0 = max(2 * beta / eps, mpf("1.05") * beta)
    target = f * sigma_g

    def accepted(j):  # σ(λ_j) ≤ f·σ_G ⟺ the curve at σ = f·σ_G converts to ≤ ε (monotone in σ); λ_j ≤ β: no
        lam_j = lam0 * LAMBDA_GROWTH ** j
        if rdp_to_dp(_limit_curve(sigma_out, lam_j, beta, tau), delta) >= eps:
            return False
        return _converted(target, eps, delta, lam_j, beta, L, tau, sigma_out) <= 0

    for _ in range(50):
        if not accepted(k):
            k += 1
        elif k > 0 and accepted(k - 1):
            k -= 1
        else:
            lam = lam0 * LAMBDA_GROWTH ** k
            guess = _float_sigma_for(float(eps), float(delta), float(lam), float(beta), float(L), float(tau),
                                     float(sigma_out))
            return _sigma_for(eps, delta, lam, beta, L, tau, sigma_out, guess=guess), lam
    raise PrecisionError("amp_calibrate: the float pre-search and the reference disagree on the λ step")


@self_checked
def amp_calibration(eps, delta, L, beta, tau, sigma_out, f=mpf("1.3")):
    """σ of :func:`amp_calibrate` (seed 003, Sec. 4.5): the ObjPert noise for (ε, δ)-DP Algorithm 7; λ is the second
    output of amp_calibrate."""
    return amp_calibrate(eps, delta, L, beta, tau, sigma_out, f)[0]


def _calibrated_is_private(statement, p):
    """Property: at the returned (σ, λ), the Thm 4.4.1 curve converts to ε' ≤ ε (within 1e-20), σ ≤ f·σ_G, and λ > β."""
    sigma, lam = amp_calibrate(p["eps"], p["delta"], p["L"], p["beta"], p["tau"], p["sigma_out"], p["f"])
    eps_got = rdp_to_dp(_amp_curve(sigma, p["sigma_out"], lam, p["beta"], p["L"], p["tau"]), p["delta"])
    if eps_got > p["eps"] * (1 + mpf(10) ** -20):
        raise AssertionError(f"calibrated σ = {sigma} gives ε = {eps_got} > {p['eps']}")
    if sigma > p["f"] * p["L"] * gaussian_sigma(p["eps"], p["delta"]) * (1 + mpf(10) ** -20) or not lam > p["beta"]:
        raise AssertionError(f"calibration returned σ = {sigma}, λ = {lam} outside the rule")


register(Statement(
    id="objpert.amp_calibration",
    source=Source(SEED, "Sec. 4.5 (calibration of σ and λ)", "the noise σ (and λ) for (ε, δ)-DP Algorithm 7"),
    kind="calibration",
    claim="exact",
    value=Value("noise"),
    summary="λ = max(2β/ε, 1.05β)·1.05^k, k the first step with σ(λ) ≤ f·σ_G, σ(λ) = min{σ : BBG/CKS(Thm 4.4.1 "
            "curve, δ) ≤ ε}, σ_G = L·σ_analytic(ε, δ); returns σ",
    params=(P_EPS_CALIBRATION, P_DELTA, P_L, P_BETA, P_TAU, P_SIGMA_OUT, P_F_FACTOR),
    reference=amp_calibration,
    conditions=(Condition.of(CALIBRATION_BETA_POSITIVE, lambda p: p["beta"] > 0),
                Condition.of(AMP_CALIBRATION_FEASIBLE, _feasible)),
    privacy=Privacy("add_remove", "both", "none"),
    properties=(_calibrated_is_private,),
    note="A data-independent procedure (no privacy cost), reconstructed by the notes (§4 A4) from the authors' "
         "calibrate_amp: the thesis states only the rule σ ≤ f·σ_G with f = 1.3 (Sec. 4.5). Uses base.gaussian_sigma "
         "(σ_G) and base.rdp_to_dp (the conversion the experiments adopt, BBG+20/CKS20). λ is the second output of "
         "amp_calibrate (reference/objpert/amp.py). The λ step is located in float64 and confirmed at the working "
         "precision (σ is non-increasing in λ). Notes §5.2 I table (L = C = √2, β = 0.5, σ_out = 0.15, δ = 1e-5) "
         "reproduced in tests/objpert/test_objpert_amp.py.",
))

