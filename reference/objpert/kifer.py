"""Kifer, Smith & Thakurta's (2012) privacy of objective perturbation with Gaussian noise, as seed 003 states it twice:
chapter 2, Theorem 2.2.5 (a noise calibration, printed with σ for σ² — erratum objpert.E1) and chapter 4, Theorem
4.2.8 (printed correctly, and inverted into δ_Kifer(ε) for Fig 4.1).

    λ ≥ 2β/ε1 and σ² = ξ²(8 log(2/δ) + 4ε1)/ε1²  ⇒  Algorithm 1 (ObjPert) is (ε1, δ)-DP;
    inverse (objpert-rdp.md §2.2):  δ_Kifer(ε) = 2 exp(−(ε²σ²/L² − 4ε)/8)  when λ ≥ 2β/ε.

Notes objpert-pdp.md §2.B (Thm 2.2.5), §5.3 (calibration table), §6 E1, E14; objpert-rdp.md §2.2 (Thm 4.2.8), §5.1
(ε = 1, δ = 1e-5, L = 1 ⇒ σ ≥ 10.0821). The proof needs the GLM structure (seed 003 App. C.5.1, erratum E14: a
doubt for non-GLM losses, which the harness audits with the per-instance pair of witnesses_ch2.py).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..precision import checked_param, self_checked
from . import spec
from .spec import DELTA, EPS_POSITIVE_C, NONNEGATIVE, POSITIVE

KIFER_2012 = ("Kifer, Smith & Thakurta, Private Convex Empirical Risk Minimization and High-dimensional Regression, "
              "COLT 2012, Thm 2 / Algorithm 1")


@self_checked
def kifer_sigma(eps, delta, xi):
    """σ = ξ·√(8 log(2/δ) + 4ε1)/ε1, the noise of Kifer et al. 2012 (seed 003 Thm 2.2.5 corrected — erratum E1 —
    and Thm 4.2.8 as printed: σ ≥ L√(8 log(2/δ) + 4ε)/ε; notes objpert-pdp.md §5.3)."""
    eps = checked_param("eps", EPS_POSITIVE_C, eps)
    delta = checked_param("delta", DELTA, delta)
    xi = checked_param("xi", POSITIVE, xi)
    return xi * mpmath.sqrt(8 * mpmath.log(2 / delta) + 4 * eps) / eps


@self_checked
def kifer_sigma_printed(eps, delta, xi):
    """Seed 003 Thm 2.2.5 as printed: σ = ξ²(8 log(2/δ) + 4ε1)/ε1² (the variance read as the standard deviation,
    erratum E1: dimensionally σ must scale like ξ; 11× the correct σ at ε1 = 1, δ = 1e-6, ξ = 1, and smaller than
    the correct σ — too little noise — whenever ξ < ε1/√(8 log(2/δ) + 4ε1))."""
    eps = checked_param("eps", EPS_POSITIVE_C, eps)
    delta = checked_param("delta", DELTA, delta)
    xi = checked_param("xi", POSITIVE, xi)
    return xi * xi * (8 * mpmath.log(2 / delta) + 4 * eps) / (eps * eps)


@self_checked
def kifer_delta(eps, sigma, L, beta, lam):
    """δ_Kifer(ε) = min{1, 2 exp(−(ε²σ²/L² − 4ε)/8)} when λ ≥ 2β/ε, else 1 (no guarantee): the inverse of
    σ = L√(8 log(2/δ) + 4ε)/ε (seed 003 Thm 4.2.8; notes objpert-rdp.md §2.2, the Fig 4.1 curve). At ε = 0 the
    condition needs β = 0 and the value is 1."""
    eps = checked_param("eps", spec.EPS, eps)
    sigma = checked_param("sigma", POSITIVE, sigma)
    L = checked_param("L", POSITIVE, L)
    beta = checked_param("beta", NONNEGATIVE, beta)
    lam = checked_param("lam", POSITIVE, lam)
    if eps == 0 or lam * eps < 2 * beta:
        return mpf(1)
    # exp(x) carries x's absolute error as relative error: guard the digits of |x| (ε = 20, σ = 1e3, L = 1e-3 gives
    # x ≈ −5e13, and at the working precision the two passes of the self-check disagreed in the 45th digit)
    guard = 10 + int(mpmath.log10(1 + eps * eps * sigma * sigma / (L * L)))
    with mpmath.workdps(mpmath.mp.dps + guard):
        log_delta = mpmath.log(2) - (eps * eps * sigma * sigma / (L * L) - 4 * eps) / 8
        value = mpf(1) if log_delta >= 0 else mpmath.exp(log_delta)
    return +value


@self_checked
def thm2_2_5(eps, delta, xi, beta, lam):
    """Seed 003 Theorem 2.2.5 (Kifer et al. 2012), corrected (erratum E1): with ∇²ℓ ≺ βI, ‖∇ℓ‖ ≤ ξ and
    λ ≥ 2β/ε1, the noise σ = ξ√(8 log(2/δ) + 4ε1)/ε1 makes Algorithm 1 (ε1, δ)-DP. Returns σ."""
    return kifer_sigma(eps, delta, xi)


@self_checked
def thm2_2_5_printed(eps, delta, xi, beta, lam):
    """Seed 003 Theorem 2.2.5 as printed: σ = ξ²(8 log(2/δ) + 4ε1)/ε1² (erratum E1, not a valid calibration)."""
    return kifer_sigma_printed(eps, delta, xi)


@self_checked
def thm4_2_8(eps, sigma, L, beta, lam):
    """Seed 003 Theorem 4.2.8 (Kifer et al. 2012) as a privacy profile: for λ ≥ 2β/ε, ObjPert with b ~ N(0, σ²I) is
    (ε, δ_Kifer(ε))-DP, δ_Kifer(ε) = min{1, 2 exp(−(ε²σ²/L² − 4ε)/8)} (notes objpert-rdp.md §2.2)."""
    return kifer_delta(eps, sigma, L, beta, lam)


_KIFER_CONDITION = Condition.of(spec.KIFER_LAMBDA_C, lambda p: p["lam"] * p["eps"] >= 2 * p["beta"])


def _calibration_inverts_profile(statement, p):
    """Property: at the calibrated σ (L = ξ), Thm 4.2.8's δ_Kifer(ε1) returns δ (the two chapters' forms agree)."""
    sigma = statement.reference(**p)
    back = kifer_delta(p["eps"], sigma, p["xi"], p["beta"], p["lam"])
    if abs(back - p["delta"]) > p["delta"] * mpf(10) ** (-20):
        raise AssertionError(f"δ_Kifer(ε1) at the Thm 2.2.5 σ is {mpmath.nstr(back, 15)}, not δ = "
                             f"{mpmath.nstr(p['delta'], 15)}")


register(Statement(
    id="objpert.thm2_2_5",
    fast="dpspec.fast.objpert.kifer:thm2_2_5",
    source=Source(spec.SEED, "Theorem 2.2.5 (Kifer et al. 2012)", "noise calibration of objective perturbation "
                  "(Algorithm 1) for (ε1, δ)-DP", KIFER_2012),
    kind="calibration",
    claim="upper",
    value=Value("noise"),
    summary="λ ≥ 2β/ε1 and σ = ξ√(8 log(2/δ) + 4ε1)/ε1 ⇒ Algorithm 1 is (ε1, δ)-DP (printed: σ = ξ²(8 log(2/δ) + "
            "4ε1)/ε1², erratum E1)",
    params=(spec.P_EPS1_C, spec.P_DELTA, spec.P_XI_C, spec.P_BETA_KIFER_C, spec.P_LAM_KIFER_C),
    reference=thm2_2_5,
    conditions=(_KIFER_CONDITION,),
    variants={"printed": Variant(thm2_2_5_printed, "as printed: σ = ξ²(8 log(2/δ) + 4ε1)/ε1², the variance taken "
                                 "for the standard deviation (erratum objpert.E1); dimensionally wrong (too little "
                                 "noise whenever ξ is small)", is_bound=False)},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": -1, "delta": -1, "xi": +1},
    properties=(_calibration_inverts_profile,),
    note="Seed 003 ch. 2 (line ~700); the same theorem is objpert.thm4_2_8 (ch. 4, printed correctly), whose profile "
         "δ_Kifer(ε) inverts this σ exactly (property). Notes objpert-pdp.md §5.3 table reproduced in "
         "tests/objpert/test_objpert_kifer.py (σ = 10.9576 at ε1 = 1, δ = 1e-6). The worst case needs the GLM "
         "structure (App. C.5.1, erratum E14); for GLM losses chapter 4's objpert.thm4_3_1 is tighter except in "
         "about 1.5 % of parameter draws (objpert.E4_17). Compare base.gaussian_sigma (the analytic Gaussian at Δ = ξ: "
         "4.2247 at ε = 1, δ = 1e-6) — objective perturbation pays for the unknown minimiser.",
))


def _objpert_pair_use(p):
    """The per-instance ObjPert pair (witnesses_ch2.py: logistic loss, ‖x‖ ≤ 1, so ξ = 1, β = 1/4) applies where the
    statement's L ≥ 1 and β ≥ 1/4; the mapping refuses (DomainError) elsewhere."""
    from ..errors import DomainError

    if p["L"] < 1:
        raise DomainError("L", p["L"], "L ≥ 1 for the logistic per-instance pair")
    if p["beta"] < mpf(1) / 4:
        raise DomainError("beta", p["beta"], "β ≥ 1/4 for the logistic per-instance pair")
    return {"sigma": p["sigma"], "lam": p["lam"], "member": "out"}


register(Statement(
    id="objpert.thm4_2_8",
    fast="dpspec.fast.objpert.kifer:thm4_2_8",
    source=Source(spec.SEED, "Theorem 4.2.8 (Kifer et al. 2012)", "DP of objective perturbation, as a privacy "
                  "profile (Fig 4.1's Kifer curve)", KIFER_2012),
    kind="profile",
    claim="upper",
    value=Value("delta", "eps"),
    summary="λ ≥ 2β/ε ⇒ ObjPert is (ε, δ)-DP with δ = min{1, 2 exp(−(ε²σ²/L² − 4ε)/8)} (⇔ σ ≥ L√(8 log(2/δ) + "
            "4ε)/ε)",
    params=(spec.P_EPS1_C, spec.P_SIGMA, spec.P_L, spec.P_BETA, spec.P_LAM),
    reference=thm4_2_8,
    conditions=(_KIFER_CONDITION,),
    witnesses=(WitnessUse("objpert.pdp_objpert", _objpert_pair_use,
                          "per-instance pair (D, z) of a 2-D logistic regression (ξ = 1, β = 1/4): its profile "
                          "δ_{D,z}(ε) must lie below δ_Kifer(ε) (not a dominating pair: checks from one side)"),),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": -1, "sigma": -1, "L": +1},
    note="Seed 003 ch. 4 (line 3218); notes objpert-rdp.md §2.2, §5.1 (σ ≥ 10.0821 at ε = 1, δ = 1e-5, L = 1) and "
         "§5.2.B (Kifer column). Calls kifer_delta; objpert.thm2_2_5 is the same theorem in chapter 2 (printed with σ "
         "for σ², erratum E1) and calls kifer_sigma, its inverse. δ is min'ed with 1 (a trivial bound) where the "
         "exponent is positive. Compare objpert.thm4_3_1 (tighter except in ≈ 1.5 % of draws, objpert.E4_17).",
))
