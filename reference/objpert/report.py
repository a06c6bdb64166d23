"""The privacy of the privacy reports of seed 003, chapter 2 (Redberg & Wang, NeurIPS 2021, arXiv 2111.02281v1):
the extra releases of Algorithms 2 and 9 — the noisy smallest eigenvalue (Algorithm 8, Thm A.3.1), the noisy gradient
(Algorithm 10, Thm A.3.4), the GOE "Analyze-Gauss" Hessian (Algorithm 11, Thm A.4.1), their composition
(Thm 2.3.5 statements 1 and 2) and the calibrated overhead (Cor A.3.6).

Each is a Gaussian mechanism (notes objpert-pdp.md §3.3–3.6): conditioned on θ̂P the release is N(v, σ²I) against
N(v + Δ, σ²I), so its privacy loss is N(S²/2, S²) with S = ‖Δ‖/σ, and the text's ε is the tail bound
S²/2 + S√(2 log(1/δ)) (Lemma A.7.3/A.7.4, Cor A.6.2). With per-target sensitivities (‖∇ℓ(θ̂P; z)‖,
f''(xᵀθ̂P; y)‖x‖²) the same formula is the per-instance (pDP) statement, with their suprema (ξ, β) the DP statement;
one evaluator serves both (its parameter's doc says so). Each statement has the variant ``analytic``: the exact ε of the
Gaussian at noise 1/S (base.gaussian_eps, Balle & Wang 2018), a tighter valid bound (notes §5.2: 0.7098 against the
tail bound 0.9195 at the (ε2, ε3) = (0.7, 0.1) calibration).

Witness: base.gaussian at noise 1/S (the exact pair of the release; dominating and tight), where the harness can
compare it.
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..base.gaussian import gaussian_eps
from ..catalogue import Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..errors import ParameterError
from ..precision import self_checked, to_mpf
from . import spec
from .spec import P_DELTA, SEED

NEIGHBOURS = Privacy("add_remove", "both", "none")

# Where the base.gaussian witness is compared (as gptr.thm3_3_3 does): noise 1/S in base.gaussian's sampling range,
# and δ(ε) of the pair above 1e-297 (a = S/2 − ε/S ≥ −37), beyond which the harness's float64 intervals see 0.
WITNESS_NOISE_RANGE = (0.05, 100.0)
WITNESS_MIN_SHIFT = -37


# ---------------------------------------------------------------------------------------------------------------
# The Gaussian tail bound and its exact counterpart (shared by every statement below)


def gaussian_tail_eps(S, delta):
    """ε = S²/2 + S√(2 log(1/δ)): the (ε, δ) of a Gaussian mechanism with ‖Δ‖/σ = S by the tail bound
    P[N(S²/2, S²) > ε] ≤ P[N(0,1) > √(2 log(1/δ))] ≤ δ (seed 003, Lemma A.7.3 and A.7.4; Cor A.6.2). S ≥ 0."""
    return S * S / 2 + S * mpmath.sqrt(2 * mpmath.log(1 / delta))


def gaussian_exact_eps(S, delta):
    """The exact ε(δ) of the Gaussian mechanism with ‖Δ‖/σ = S (base.gaussian_eps at noise 1/S, Balle & Wang 2018,
    Thm 8); 0 at S = 0 (the release does not depend on the target)."""
    if S == 0:
        return mpf(0)
    return gaussian_eps(delta, 1 / S)


def _gaussian_use(ratio_of):
    """A WitnessUse mapping: base.gaussian at noise σ/‖Δ‖ = 1/S, where the harness can compare it."""

    def use(p):
        S = ratio_of(p)
        if S == 0:
            raise ParameterError("objpert report witness: S = 0 (the release ignores the target; ε = 0 exactly)")
        ratio = 1 / S
        lo, hi = WITNESS_NOISE_RANGE
        if not lo <= ratio <= hi:
            raise ParameterError(f"objpert report witness: noise 1/S = {mpmath.nstr(ratio, 8)} is outside "
                                 f"[{lo}, {hi}]")
        claimed = gaussian_tail_eps(S, to_mpf(p["delta"]))
        if S / 2 - claimed / S < WITNESS_MIN_SHIFT:
            raise ParameterError(f"objpert report witness: δ(ε) of the pair is below 1e-297 at S = "
                                 f"{mpmath.nstr(S, 8)}, δ = {mpmath.nstr(to_mpf(p['delta']), 8)}")
        return {"sigma": ratio}

    return use


# ---------------------------------------------------------------------------------------------------------------
# Theorem A.3.1 (Algorithm 8: λ_min(H) + N(0, σ4²))


def _s_a3_1(p):
    return to_mpf(p["beta"]) / to_mpf(p["sigma4"])


@self_checked
def lambda_min_eps(beta, sigma4, delta):
    """ε4 = β²/(2σ4²) + β√(2 log(1/δ))/σ4 (seed 003, Thm A.3.1): Algorithm 8 releases λ_min(H) + N(0, σ4²), and by
    Weyl (Lemma A.7.6) adding or removing z moves λ_min(H) by at most ‖f''xxᵀ‖₂ = f''(xᵀθ̂P; y)‖x‖² (pDP with
    β := that value; DP with β ≥ sup_x f''‖x‖²). For a general smooth loss ‖∇²ℓ(θ̂P; z)‖₂ ≤ ‖·‖_F serves."""
    return gaussian_tail_eps(beta / sigma4, delta)


@self_checked
def lambda_min_eps_analytic(beta, sigma4, delta):
    """The exact Gaussian ε(δ) at S = β/σ4 (base.gaussian_eps; extension, tighter than Thm A.3.1's tail bound)."""
    return gaussian_exact_eps(beta / sigma4, delta)


register(Statement(
    id="objpert.thm_a3_1",
    fast="dpspec.fast.objpert.report:thm_a3_1",
    source=Source(SEED, "Theorem A.3.1", "pDP and DP of Algorithm 8 (the noisy smallest eigenvalue of H)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="Algorithm 8 (λ_min(H) + N(0, σ4²)) is (β²/(2σ4²) + β√(2 log(1/δ))/σ4, δ)-DP (β ≥ sup f''‖x‖²) and "
            "pDP with β := f''(xᵀθ̂P; y)‖x‖²",
    params=(spec.P_HBETA, spec.P_SIGMA4, P_DELTA),
    reference=lambda_min_eps,
    variants={"analytic": Variant(lambda_min_eps_analytic, "the exact ε(δ) of the same Gaussian release "
                                  "(base.gaussian_eps at noise σ4/β; Balle & Wang 2018): tighter, valid")},
    witnesses=(WitnessUse("base.gaussian", _gaussian_use(_s_a3_1),
                          "the release's own pair N(λ_min(H), σ4²) vs N(λ_min(H) ± β, σ4²) at noise σ4/β"),),
    privacy=NEIGHBOURS,
    monotone={"beta": +1, "sigma4": -1, "delta": -1},
    note="A Gaussian mechanism: base.gaussian_eps at noise σ4/β is its exact ε (variant 'analytic'); the printed ε "
         "is the classic tail bound (notes objpert-pdp.md §2.D, §3.3). Notes §5.2: β = 0.25, σ4 = 1, δ = 1e-6 give "
         "1.345380442. Used by Algorithm 9 (ε4) and composed there with objpert.thm2_3_5.",
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem A.3.4 (Algorithm 10: ∇J(θ̂P; D) + N(0, σ2² I))


def _s_a3_4(p):
    return to_mpf(p["xi"]) / to_mpf(p["sigma2"])


@self_checked
def gradient_eps(xi, sigma2, delta):
    """ε2 = ξ²/(2σ2²) + ξ√(2 log(1/δ))/σ2 (seed 003, Thm A.3.4 (1)): with θ̂P fixed, Algorithm 10 is a Gaussian
    mechanism with per-instance sensitivity ∇ℓ(θ̂P; z) (ξ := ‖∇ℓ(θ̂P; z)‖ for pDP, ξ ≥ sup ‖∇ℓ‖ for DP). Its
    statement (2), the ex-post pDP w.p. 1 − ρ, is the 'algorithm' variant at δ = ρ (Cor A.6.2)."""
    return gaussian_tail_eps(xi / sigma2, delta)


@self_checked
def gradient_eps_algorithm(xi, sigma2, delta):
    """ξ²/(2σ2²) + ξ√(2 log(2/δ))/σ2: Algorithm 10's printed ε2 (2/δ where Thm A.3.4 has 1/δ; erratum E19 (small)):
    valid and looser; with δ := ρ it is Thm A.3.4 (2), the ex-post bound w.p. 1 − ρ."""
    S = xi / sigma2
    return S * S / 2 + S * mpmath.sqrt(2 * mpmath.log(2 / delta))


@self_checked
def gradient_eps_analytic(xi, sigma2, delta):
    """The exact Gaussian ε(δ) at S = ξ/σ2 (base.gaussian_eps; extension)."""
    return gaussian_exact_eps(xi / sigma2, delta)


register(Statement(
    id="objpert.thm_a3_4",
    fast="dpspec.fast.objpert.report:thm_a3_4",
    source=Source(SEED, "Theorem A.3.4", "pDP (and ex-post pDP) of Algorithm 10 (the noisy gradient at θ̂P)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="Algorithm 10 (∇J(θ̂P; D) + N(0, σ2² I)) is (ξ²/(2σ2²) + ξ√(2 log(1/δ))/σ2, δ)-pDP with "
            "ξ = ‖∇ℓ(θ̂P; z)‖",
    params=(spec.P_XI, spec.P_SIGMA2, P_DELTA),
    reference=gradient_eps,
    variants={"algorithm": Variant(gradient_eps_algorithm, "Algorithm 10's printed ε2 with log(2/δ) (looser, valid); "
                                   "at δ = ρ the theorem's ex-post statement (2)"),
              "analytic": Variant(gradient_eps_analytic, "the exact ε(δ) of the same Gaussian release "
                                  "(base.gaussian_eps at noise σ2/ξ): tighter, valid")},
    witnesses=(WitnessUse("base.gaussian", _gaussian_use(_s_a3_4),
                          "the release's own pair N(∇J, σ2² I) vs N(∇J ± ∇ℓ(θ̂P; z), σ2² I) at noise σ2/ξ"),),
    privacy=NEIGHBOURS,
    monotone={"xi": +1, "sigma2": -1, "delta": -1},
    note="A Gaussian mechanism with sensitivity ∇ℓ(θ̂P; z) (notes objpert-pdp.md §3.4): base.gaussian_eps at noise "
         "σ2/ξ is exact (variant 'analytic'). Dataset-independent, so the report need not publish it. The input "
         "'linear loss' of Algorithm 10 is not needed (nothing GLM-specific). Composed with objpert.thm_a4_1 in "
         "objpert.thm2_3_5.",
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem A.4.1 (Algorithm 11: H + (Z + Zᵀ)/√2, Z_ij ~ N(0, σ3²))


def _s_a4_1(p):
    return to_mpf(p["beta"]) / (mpmath.sqrt(2) * to_mpf(p["sigma3"]))


@self_checked
def hessian_eps(beta, sigma3, delta):
    """ε3 = β²/(4σ3²) + β√(2 log(1/δ))/(√2σ3) (seed 003, Thm A.4.1): Algorithm 11 is equivalent to releasing
    [diag(H)/√2, strict-upper(H)] + N(0, σ3² I_{d(d+1)/2}), whose per-instance ℓ2 sensitivity is
    √(Σ_{i<j} H_x[i,j]² + Σ_k H_x[k,k]²/2) = ‖H_x‖_F/√2 (β := ‖H_x‖_F = f''‖x‖² for pDP, ≥ sup for DP)."""
    return gaussian_tail_eps(beta / (mpmath.sqrt(2) * sigma3), delta)


@self_checked
def hessian_eps_analytic(beta, sigma3, delta):
    """The exact Gaussian ε(δ) at S = β/(√2σ3) (base.gaussian_eps; extension)."""
    return gaussian_exact_eps(beta / (mpmath.sqrt(2) * sigma3), delta)


register(Statement(
    id="objpert.thm_a4_1",
    fast="dpspec.fast.objpert.report:thm_a4_1",
    source=Source(SEED, "Theorem A.4.1", "pDP and DP of Algorithm 11 (the GOE variant of Analyze-Gauss)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="Algorithm 11 (H + (Z + Zᵀ)/√2, Z_ij ~ N(0, σ3²)) is (β²/(4σ3²) + β√(2 log(1/δ))/(√2σ3), δ)-DP "
            "(β ≥ sup ‖H_x‖_F) and pDP with β := ‖H_x‖_F",
    params=(spec.P_HBETA, spec.P_SIGMA3, P_DELTA),
    reference=hessian_eps,
    variants={"analytic": Variant(hessian_eps_analytic, "the exact ε(δ) of the same Gaussian release "
                                  "(base.gaussian_eps at noise √2σ3/β): tighter, valid")},
    witnesses=(WitnessUse("base.gaussian", _gaussian_use(_s_a4_1),
                          "the vectorised release N(v(H), σ3² I) vs N(v(H) ± v(H_x), σ3² I), ‖v(H_x)‖ = β/√2: "
                          "base.gaussian at noise √2σ3/β"),),
    privacy=NEIGHBOURS,
    monotone={"beta": +1, "sigma3": -1, "delta": -1},
    note="Standard Analyze-Gauss (Dwork et al. 2014) with noise σ has sensitivity ‖H_x‖_F; at σ3 = σ/√2 this is "
         "exactly its ε, with half the off-diagonal variance (notes objpert-pdp.md §2.D, §3.5). The proof checks "
         "Σ_{i<j}H_ij² + Σ_k H_kk²/2 = ‖H‖_F²/2 (helper G's symbolic check). Notes §5.2: β = 0.25, σ3 = 1, δ = 1e-6 "
         "give 0.9448555472. Its spectral-norm confidence bound is objpert.lemma_a4_4 (the GOE quantile).",
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem 2.3.5, statements 1 and 2 (the cost of Algorithm 2's DATA-DEP releases: Algorithms 10 and 11 composed)


def _s_2_3_5(p):
    xi, beta = to_mpf(p["xi"]), to_mpf(p["beta"])
    s2, s3 = to_mpf(p["sigma2"]), to_mpf(p["sigma3"])
    return mpmath.sqrt(xi**2 / s2**2 + beta**2 / (2 * s3**2))


@self_checked
def report_cost(xi, beta, sigma2, sigma3, delta):
    """ε = ξ²/(2σ2²) + β²/(4σ3²) + √(ξ²/σ2² + β²/(2σ3²))·√(2 log(1/δ)) (seed 003, Thm 2.3.5 statement 1 with the
    σ3³ → σ3² typo corrected, erratum E12; statement 2 is the same with ξ := |f'|‖x‖, β := f''‖x‖²). Conditioned
    on θ̂P, Algorithms 10 and 11 together are one Gaussian mechanism with S² = ξ²/σ2² + β²/(2σ3²) (notes
    objpert-pdp.md §2.C "Derivation of 1-2", §3.6); ε = S²/2 + S√(2 log(1/δ)). The λ condition of the theorem is
    needed only by its statement 3 (objpert.thm2_3_5_accuracy)."""
    S = mpmath.sqrt(xi**2 / sigma2**2 + beta**2 / (2 * sigma3**2))
    return gaussian_tail_eps(S, delta)


@self_checked
def report_cost_printed(xi, beta, sigma2, sigma3, delta):
    """As printed: β²/(2σ3³) inside the square root (erratum E12): smaller than the corrected ε wherever σ3 > 1,
    hence not a bound there."""
    S = mpmath.sqrt(xi**2 / sigma2**2 + beta**2 / (2 * sigma3**3))
    return xi**2 / (2 * sigma2**2) + beta**2 / (4 * sigma3**2) + S * mpmath.sqrt(2 * mpmath.log(1 / delta))


@self_checked
def report_cost_analytic(xi, beta, sigma2, sigma3, delta):
    """The exact ε(δ) of the composed Gaussian at S = √(ξ²/σ2² + β²/(2σ3²)) (base.gaussian_eps; extension;
    notes §5.2: 0.7098 at the (0.7, 0.1) calibration, where the tail bound gives 0.9195)."""
    return gaussian_exact_eps(mpmath.sqrt(xi**2 / sigma2**2 + beta**2 / (2 * sigma3**2)), delta)


register(Statement(
    id="objpert.thm2_3_5",
    fast="dpspec.fast.objpert.report:thm2_3_5",
    source=Source(SEED, "Theorem 2.3.5 (statements 1, 2)", "DP and pDP cost of Algorithm 2's data-dependent "
                  "releases (the noisy gradient and the GOE Hessian)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="Algorithms 10 + 11: ε = ξ²/(2σ2²) + β²/(4σ3²) + √(ξ²/σ2² + β²/(2σ3²))·√(2 log(1/δ)) (DP with sup "
            "sensitivities; pDP with ξ = |f'|‖x‖, β = f''‖x‖²)",
    params=(spec.P_XI, spec.P_HBETA, spec.P_SIGMA2, spec.P_SIGMA3, P_DELTA),
    reference=report_cost,
    variants={"printed": Variant(report_cost_printed, "as printed, β²/(2σ3³) inside the root (erratum E12): below "
                                 "the corrected value for σ3 > 1", is_bound=False),
              "analytic": Variant(report_cost_analytic, "the exact ε(δ) of the composed Gaussian (base.gaussian_eps "
                                  "at noise 1/S): tighter, valid")},
    witnesses=(WitnessUse("base.gaussian", _gaussian_use(_s_2_3_5),
                          "the two releases as one Gaussian with S² = ξ²/σ2² + β²/(2σ3²): base.gaussian at noise "
                          "1/S"),),
    privacy=NEIGHBOURS,
    monotone={"xi": +1, "beta": +1, "sigma2": -1, "sigma3": -1, "delta": -1},
    note="The composition of objpert.thm_a3_4 and objpert.thm_a4_1 as one Gaussian (not the sum of their ε's, "
         "which is larger); base.gaussian_eps at noise 1/S is exact (variant 'analytic'). Its statement 3, the "
         "report's accuracy, is objpert.thm2_3_5_accuracy. Notes §5.2: ξ = 1, β = 0.25, σ2 = 5, σ3 = 1, δ = 1e-6 "
         "give 1.438732357. Algorithm 9 adds objpert.thm_a3_1 (ε4). The objective-perturbation release itself is "
         "objpert.thm2_2_5 (DP) and objpert.cor2_3_2 (ex-post pDP); the full pipeline is their adaptive "
         "composition, which the text bounds by adding the ε's. Joint-DP reading (billboard lemma A.7.8).",
))


# ---------------------------------------------------------------------------------------------------------------
# Corollary A.3.6 (the overhead at the classical calibration)


def _s_a3_6(p):
    eps, hx, rmax, delta = (to_mpf(p[k]) for k in ("eps", "hx", "rho_max", "delta"))
    sigma3 = rmax / eps * mpmath.sqrt(2 * mpmath.log(mpf(5) / 4 / delta))
    return hx / (mpmath.sqrt(2) * sigma3)


@self_checked
def calibrated_overhead(eps, hx, rho_max, delta):
    """ε(·) = ε²(f'')²‖x‖⁴/(8ρ_max² log(1.25/δ)) + ε f''‖x‖²/(ρ_max√2) (seed 003, Cor A.3.6; hx = f''‖x‖²).

    Reading (notes objpert-pdp.md §2.D; the corollary's σ2 and ρ_max are Algorithm 11's σ3 and β, erratum E19):
    Algorithm 11 calibrated classically, σ3 = (ρ_max/ε)√(2 log(1.25/δ)), has by Thm A.4.1 the pDP
    hx²/(4σ3²) + hx√(2 log(1/δ))/(√2σ3) = ε²hx²/(8ρ_max² log(1.25/δ)) + (ε hx/(√2ρ_max))·√(log(1/δ)/log(1.25/δ)),
    and log(1/δ) ≤ log(1.25/δ) gives the printed bound."""
    return eps**2 * hx**2 / (8 * rho_max**2 * mpmath.log(mpf(5) / 4 / delta)) + eps * hx / (rho_max * mpmath.sqrt(2))


register(Statement(
    id="objpert.cor_a3_6",
    fast="dpspec.fast.objpert.report:cor_a3_6",
    source=Source(SEED, "Corollary A.3.6", "the pDP overhead of the Hessian release at the classical Gaussian "
                  "calibration"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="σ3 = (ρ_max/ε)√(2 log(1.25/δ)) ⇒ Algorithm 11 is (ε²hx²/(8ρ_max² log(1.25/δ)) + ε·hx/(√2ρ_max), δ)-pDP, "
            "hx = f''‖x‖²",
    params=(spec.P_EPS_CAL, spec.P_HX, spec.P_RHO_MAX, P_DELTA),
    reference=calibrated_overhead,
    witnesses=(WitnessUse("base.gaussian", _gaussian_use(_s_a3_6),
                          "Algorithm 11's pair at σ3 = (ρ_max/ε)√(2 log(1.25/δ)): base.gaussian at noise √2σ3/hx"),),
    privacy=NEIGHBOURS,
    monotone={"eps": +1, "hx": +1, "rho_max": -1, "delta": +1},
    note="objpert.thm_a4_1 at the classical calibration (base.gaussian_classical_eps's σ for sensitivity ρ_max), "
         "bounded with log(1/δ) ≤ log(1.25/δ); equality of the first terms. ε < 1 is the classical calibration's "
         "hypothesis (the algebra itself holds for every ε > 0). The text's σ2 is the Hessian noise σ3 and ρ_max is β "
         "(it clashes with the failure probability ρ; erratum E19). The text's further claim (the overhead is below "
         "the ex-post pDP of Thm 2.3.1 when f'' ≤ |f'|) is informal and not registered.",
))
