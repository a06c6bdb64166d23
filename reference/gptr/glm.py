"""Generalized linear models with generalized PTR: seed 003, appendix B.3.2–B.3.3 (Def B.3.3, Lemma B.3.4,
Ex B.3.5, Thm B.3.6, Rem B.3.7, Ex B.3.8, Thm B.3.9, Thm B.3.11, Prop B.3.12); notes
shared/notes/generalized-ptr.md §2.6, §3.7–§3.8, §4, §5.2, §6 (E6, E7).

Self-concordance convention (erratum E6): Def B.3.3 prints ∇³f(u)[v,v,v] ≤ 2R‖v‖∇²f(u)[v,v], but "logistic is
1-GSC", Lemma B.3.4(b)'s e^{±R‖v‖} and Thm B.3.11's 2RL + β all use Bach's (2010) convention without the 2. Every
R here is Bach's; the literal definition's R is half of it (Thm B.3.11 then reads 4RL + β: variant
``literal_definition``).

Public helpers (names fixed by the session contract): :func:`glm_epsilon` (Thm B.3.6), :func:`logistic_gamma_star`
(Rem B.3.7 solved for γ); the Ex B.3.8 calibrations :func:`ex_b3_8_sigma`, :func:`ex_b3_8_sigma_printed`,
:func:`ex_b3_8_margin`. ``release_delta`` (E7 evidence) is in :mod:`.ops`.

Witness pair ``gptr.lmin_release`` (notes §3.8): the Gaussian release of λ_min, N(λ_min, σ²) against
N(λ_min − Δ, σ²) with Δ the global sensitivity (2RL + β for GLMs by Thm B.3.11, ‖𝒳‖² for ridge by Lemma B.4.3)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from ..base.gaussian import gaussian_sigma
from ..base.sgm import witness_order
from ..catalogue import (Condition, Privacy, Source, Statement, Value, Variant, Witness, WitnessUse, register,
                         register_witness)
from ..errors import ConditionError, ParameterError
from ..precision import checked_param, self_checked
from .ops import _tail, release_delta
from .spec import (GLM_SHAPE_TERM, HESSIAN_STEP_SMALL, LAMBDA_AT_LEAST_2RL, LAMBDA_AT_LEAST_RL, LOGISTIC_GAMMA_FEASIBLE,
                   P_BETA_GLM,
                   LOGISTIC_GAMMA_FEASIBLE_PRINTED, P_ALPHA_F,
                   P_ALPHA_FT, P_ALPHA_SC, P_BETA_SMOOTH, P_DELTA, P_EPS, P_EPS_POSITIVE, P_GAMMA, P_GRAD,
                   P_GRAD_TILDE, P_HNORM, P_L_LIP, P_LAM, P_MARGIN, P_R_GSC, P_SENSITIVITY, P_SIGMA, POSITIVE, SEED)
from .witnesses_glm import REM_B3_7_USES, THM_B3_9_USES

BACH_2010 = "Bach, Self-concordant analysis for logistic regression, EJS 2010 (arXiv 0910.4627)"
NESTEROV_1994 = "Nesterov & Nemirovskii, Interior-Point Polynomial Algorithms in Convex Programming, SIAM 1994"
LOGISTIC = {"R": mpf(1), "L": mpf(1), "beta": mpf(1) / 4}  # Rem B.3.7: ‖x‖ ≤ 1, |l'| ≤ 1, l'' ≤ 1/4, 1-GSC


# ---------------------------------------------------------------------------------------------------------------
# Lemma B.3.4 and Example B.3.5


@self_checked
def lemma_b3_4(R, v_norm):
    """Hessian stability under R-generalized self-concordance (seed 003, Lemma B.3.4(b); Bach 2010 Prop 1):
    e^{−R‖v‖}∇²F(θ) ⪯ ∇²F(θ + v) ⪯ e^{R‖v‖}∇²F(θ). Returns the upper factor e^{R‖v‖} (the lower is its inverse)."""
    return mpmath.exp(R * v_norm)


@self_checked
def lemma_b3_4_standard(R, v_norm):
    """Part (a), standard R-self-concordance (Nesterov–Nemirovskii 1994 Thm 2.1.1): for R‖v‖_{H_θ} < 1,
    (1 − R‖v‖_H)²∇²F(θ) ⪯ ∇²F(θ + v) ⪯ (1 − R‖v‖_H)^{−2}∇²F(θ). Returns the upper factor (1 − R‖v‖_H)^{−2}."""
    return 1 / (1 - R * v_norm) ** 2


def logistic_l2(s):
    """l''(s) for l(s) = log(1 + e^s): e^s/(1 + e^s)² = e^{−|s|}/(1 + e^{−|s|})² (seed 003, Ex B.3.5)."""
    e = mpmath.exp(-abs(s))
    return e / (1 + e) ** 2


def logistic_l3(s):
    """l'''(s) = e^s(1 − e^s)/(1 + e^s)³ (seed 003, Ex B.3.5), written with e^{−|s|} (odd in s). The factor
    1 − e^{−|s|} is −expm1(−|s|): the difference would cancel and keep only dps − log10(1/|s|) digits (none at
    |s| < 10^{−dps}, where it returned 0 against l''' ≈ −s/8)."""
    s = mpf(s)
    e = mpmath.exp(-abs(s))
    return mpmath.sign(-s) * e * -mpmath.expm1(-abs(s)) / (1 + e) ** 3


def _logistic_hessian_within_factor(statement, p):
    """Property: with R ≥ 1 (logistic is 1-GSC, Ex B.3.5), l''(s + v)/l''(s) ∈ [e^{−R|v|}, e^{R|v|}] on a grid of s
    (the 1-D case of Lemma B.3.4(b), v = ±‖v‖)."""
    if p["R"] < 1:
        return
    upper = statement.reference(p["R"], p["v_norm"])
    for s in (mpf(k) / 4 for k in range(-80, 81, 3)):
        for v in (p["v_norm"], -p["v_norm"]):
            r = logistic_l2(s + v) / logistic_l2(s)
            if not (1 / upper * (1 - mpf(10) ** -20) <= r <= upper * (1 + mpf(10) ** -20)):
                raise AssertionError(f"l''({s}+{v})/l''({s}) = {mpmath.nstr(r, 10)} outside e^(±R‖v‖)")


register(Statement(
    id="gptr.lemma_b3_4",
    fast="dpspec.fast.gptr.glm:lemma_b3_4",
    source=Source(SEED, "Lemma B.3.4 (Nesterov–Nemirovskii 1994 Thm 2.1.1; Bach 2010 Prop 1)",
                  "stability of the Hessian under (generalized) self-concordance", BACH_2010),
    kind="sensitivity",
    claim="upper",
    value=Value("number"),
    summary="R-GSC: e^{−R‖v‖}∇²F(θ) ⪯ ∇²F(θ + v) ⪯ e^{R‖v‖}∇²F(θ) (value: e^{R‖v‖}); standard SC: factor "
            "(1 − R‖v‖_H)^{−2} for R‖v‖_H < 1",
    params=(P_R_GSC, P_HNORM),
    reference=lemma_b3_4,
    variants={"standard": Variant(lemma_b3_4_standard, "part (a): standard self-concordance, (1 − R‖v‖_H)^{−2} "
                                  "for R‖v‖_{H_θ} < 1", conditions=(Condition.of(
                                      HESSIAN_STEP_SMALL, lambda p: p["R"] * p["v_norm"] < 1),))},
    properties=(_logistic_hessian_within_factor,),
    monotone={"R": +1, "v_norm": +1},
    note="Bach's convention (erratum E6). The aside e^{−2x} ≤ 1 − x ≤ e^{−x} for x ≤ 1/2 (true on [0, 0.797]) is "
         "proof-checked in proofs_checks/gptr. The property checks the 1-D logistic Hessian ratio against the "
         "factor (R ≥ 1). Used by Thm B.3.11 (gptr.thm_b3_11).",
))


@self_checked
def ex_b3_5(s):
    """|l'''(s)|/l''(s) for the logistic loss l(s) = log(1 + e^s) (seed 003, Ex B.3.5): |1 − e^s|/(1 + e^s) =
    |tanh(s/2)| < 1, so |l'''| ≤ l'' and logistic regression (‖x‖ ≤ 1) is 1-GSC in Bach's convention (erratum E6:
    ½-GSC under Def B.3.3 as printed). Computed from the two derivatives."""
    return abs(logistic_l3(s)) / logistic_l2(s)


def _gsc_constant_at_most_one(statement, p):
    """Property: the ratio |l'''|/l'' is at most 1 (R = 1), and equals |tanh(s/2)|."""
    r = statement.reference(p["s"])
    if not r <= 1:
        raise AssertionError(f"|l'''|/l'' = {mpmath.nstr(r, 10)} > 1 at s = {p['s']}")
    if abs(r - abs(mpmath.tanh(p["s"] / 2))) > mpf(10) ** -20:
        raise AssertionError(f"|l'''|/l'' = {mpmath.nstr(r, 20)} differs from |tanh(s/2)| at s = {p['s']}")


register(Statement(
    id="gptr.ex_b3_5",
    fast="dpspec.fast.gptr.glm:ex_b3_5",
    source=Source(SEED, "Example B.3.5", "the logistic loss is 1-generalized-self-concordant (Bach's convention)"),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="|l'''(s)|/l''(s) = |1 − e^s|/(1 + e^s) = |tanh(s/2)| ≤ 1 for l = log(1 + e^s)",
    params=(P_MARGIN,),
    reference=ex_b3_5,
    properties=(_gsc_constant_at_most_one,),
    note="The ratio is the local GSC constant of l at s; its supremum 1 is Ex B.3.5's R = 1 (erratum E6: Def "
         "B.3.3's factor 2 would make it R = 1/2). The sympy proof of |l'''| ≤ l'' is in proofs_checks/gptr.",
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem B.3.6 and Remark B.3.7


def _glm_epsilon(R, L, beta, alpha_sc, gamma, delta, printed):
    t = _tail(delta, printed)
    return R * (L + beta) / alpha_sc * (1 + t) + gamma * L * L / alpha_sc + L * mpmath.sqrt(gamma * t / alpha_sc)


@self_checked
def glm_epsilon(R, L, beta, alpha_sc, gamma, delta):
    """Data-dependent ε of GLM output perturbation with Hessian-shaped noise, corrected tail (seed 003, Thm B.3.6;
    notes §2.6; the printed log(2/δ) doubled as in gptr.thm3_6_1):

        ε(Z) ≤ R(L + β)/α·(1 + 2 log(2/δ)) + γL²/α + √(2γL² log(2/δ)/α),

    θ̂ = θ* + N(0, γ⁻¹∇²F_s(θ*)⁻¹) (the text writes the covariance at θ, erratum E15), l R-GSC (Bach), F_s locally
    α-strongly convex, L, β the sup of |l′|, |l″| on the segment between the two optima, ‖x‖ ≤ 1; condition
    R(L + β) ≥ β/2 (the squared loss is R-GSC for every R > 0: below it the covariance-shape leak is uncovered)."""
    return _glm_epsilon(R, L, beta, alpha_sc, gamma, delta, printed=False)


@self_checked
def glm_epsilon_printed(R, L, beta, alpha_sc, gamma, delta):
    """Thm B.3.6 as printed: R(L + β)(1 + log(2/δ))/α + γL²/α + √(γL² log(2/δ)/α). Fails on the squared-loss (OPS)
    witness: at small R (2.5e5·δ at R = 1e-3) and even at R = 1 for tiny δ (1e16·δ at δ = 1e-40)."""
    return _glm_epsilon(R, L, beta, alpha_sc, gamma, delta, printed=True)


def _squared_loss_witness(case, order):
    """Thm B.3.6 on the squared loss l = (y − s)²/2 (l″ = 1, l‴ = 0: R-GSC for every R > 0): output perturbation
    with Hessian-shaped noise is OPS ridge regression with λ = α, λ_min = 0, ‖𝒳‖ = 1 and |l′| ≤ L on the segment
    (the ``gptr.ops_ridge`` datasets: label L, θ* between 0 and the neighbour's optimum). Covered by the statement
    only where its β ≥ 1 (ParameterError otherwise: the use does not apply there)."""
    def f(p):
        if not mpf(p["beta"]) >= 1:
            raise ParameterError("the squared-loss witness has l″ = 1 and needs beta >= 1")
        return {"gamma": p["gamma"], "lam": p["alpha_sc"], "lam_min": 0, "L": p["L"], "x_norm": 1,
                "case": case, "order": order}
    return WitnessUse("gptr.ops_ridge", f, f"squared loss, {case} neighbour, order {order}")


register(Statement(
    id="gptr.thm_b3_6",
    fast="dpspec.fast.gptr.glm:glm_epsilon",
    source=Source(SEED, "Theorem B.3.6", "data-dependent DP of GLM output perturbation with Hessian-shaped noise"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(Z) ≤ R(L + β)(1 + 2 log(2/δ))/α + γL²/α + √(2γL² log(2/δ)/α), for R(L + β) ≥ β/2 (the text prints "
            "log(2/δ) for 2 log(2/δ) and has no condition)",
    params=(P_R_GSC, P_L_LIP, P_BETA_GLM, P_ALPHA_SC, P_GAMMA, P_DELTA),
    reference=glm_epsilon,
    conditions=(Condition.of(GLM_SHAPE_TERM, lambda p: 2 * p["R"] * (p["L"] + p["beta"]) >= p["beta"]),),
    variants={"printed": Variant(glm_epsilon_printed, "as printed (log(2/δ), no condition): exceeds its δ on the "
                                 "squared-loss witness", is_bound=False, conditions=())},
    witnesses=tuple(_squared_loss_witness(c, o) for c in ("add", "remove") for o in ("PQ", "QP")),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"R": +1, "L": +1, "beta": +1, "alpha_sc": -1, "gamma": +1, "delta": -1},
    note="Per-instance DP maximised over the added/removed z (the text's self-reference 'Theorem B.3.6' should "
         "point to the Ch. 2 / Wang 2017 pDP result). Bach's GSC convention (erratum E6). Corrections found here "
         "(not in the notes; the notes' logistic check used δ = 1e-2): the tail factor 2 log(2/δ) (as "
         "gptr.thm3_6_1) and the condition R(L + β) ≥ β/2, both forced by the squared-loss witness (OPS ridge "
         "regression is this mechanism for l = (y − s)²/2). Not shown sufficient for every GSC loss: the text's "
         "proof is absent and a d-dimensional Hessian change e^{±R‖v‖} suggests a dimension factor it does not "
         "have. The GLM analogue of gptr.thm3_6_1; γ → 0 leaves R(L + β)(1 + 2 log(2/δ))/α; α = 0 gives ε = ∞, "
         "hence the regulariser λ‖θ‖²/2 (α ≥ λ). Logistic regression: gptr.rem_b3_7.",
))


@self_checked
def logistic_epsilon(alpha_sc, gamma, delta):
    """Rem B.3.7 (seed 003) with the corrected tail: Thm B.3.6 for logistic regression (R = 1, L ≤ 1, β ≤ 1/4,
    ‖x‖ ≤ 1): ε(X) = 1.25(1 + 2 log(2/δ))/α + γ/α + √(2γ log(2/δ)/α)."""
    return glm_epsilon(LOGISTIC["R"], LOGISTIC["L"], LOGISTIC["beta"], alpha_sc, gamma, delta)


@self_checked
def logistic_epsilon_printed(alpha_sc, gamma, delta):
    """Rem B.3.7 as printed: 1.25(1 + log(2/δ))/α + γ/α + √(γ log(2/δ)/α)."""
    return glm_epsilon_printed(LOGISTIC["R"], LOGISTIC["L"], LOGISTIC["beta"], alpha_sc, gamma, delta)


register(Statement(
    id="gptr.rem_b3_7",
    fast="dpspec.fast.gptr.glm:logistic_epsilon",
    source=Source(SEED, "Remark B.3.7", "data-dependent DP of logistic-regression output perturbation"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(X) = 1.25(1 + 2 log(2/δ))/α + γ/α + √(2γ log(2/δ)/α), α the local strong convexity at θ*_λ (the "
            "text prints log(2/δ))",
    params=(P_ALPHA_SC, P_GAMMA, P_DELTA),
    reference=logistic_epsilon,
    variants={"printed": Variant(logistic_epsilon_printed, "as printed, log(2/δ) (gptr.thm_b3_6's printed form)",
                                 is_bound=False)},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"alpha_sc": -1, "gamma": +1, "delta": -1},
    witnesses=REM_B3_7_USES,
    note="gptr.thm_b3_6 at R = 1, L = 1, β = 1/4 (logistic loss with ‖x‖ ≤ 1, Bach's convention: erratum E6; "
         "R(L + β) = 1.25 ≥ β/2). In Ex B.3.8 α = λ^p_min + λ (the regularised Hessian's smallest eigenvalue). "
         "The mean-shift part of the printed form is short of the Gaussian tail at small δ (gptr.thm_b3_6).",
))


def logistic_gamma_feasible(eps, alpha_sc, delta, printed=False) -> bool:
    """Rem B.3.7: some γ > 0 meets ε iff 1.25(1 + t)/α < ε, t = 2 log(2/δ) (corrected) or log(2/δ) (printed)."""
    t = _tail(delta, printed)
    return LOGISTIC["R"] * (LOGISTIC["L"] + LOGISTIC["beta"]) * (1 + t) / alpha_sc < eps


def _logistic_gamma_star(eps, alpha_sc, delta, printed):
    t = _tail(delta, printed)
    c = LOGISTIC["R"] * (LOGISTIC["L"] + LOGISTIC["beta"]) * (1 + t) / alpha_sc
    if not c < eps:
        spec = LOGISTIC_GAMMA_FEASIBLE_PRINTED if printed else LOGISTIC_GAMMA_FEASIBLE
        raise ConditionError("gptr.rem_b3_7_gamma", [
            f"{spec.describe()} (here α = {mpmath.nstr(alpha_sc, 8)}, 1.25(1 + t)/ε = "
            f"{mpmath.nstr(c * alpha_sc / eps, 8) if eps > 0 else 'inf'})"])
    room = eps - c
    u = 2 * room / (mpmath.sqrt(t) + mpmath.sqrt(t + 4 * room))
    return alpha_sc * u * u


@self_checked
def logistic_gamma_star(eps, alpha_sc, delta):
    """γ* = sup{γ > 0 : Rem B.3.7's ε(X) ≤ ε}, corrected tail (seed 003, Rem B.3.7 and Ex B.3.8 step 6; notes §2.6,
    §8): with u = √(γ/α) and t = 2 log(2/δ), u² + √t·u + c − ε ≤ 0, c = 1.25(1 + t)/α, so

        γ* = α u*²,   u* = 2(ε − c)/(√t + √(t + 4(ε − c)))   (the stable root).

    Infeasible (α ≤ 1.25(1 + t)/ε) is refused with a ConditionError naming condition ``gamma_feasible`` and the
    numbers, also on a direct call (Ex B.3.8 then outputs ⊥ for this λ)."""
    return _logistic_gamma_star(eps, alpha_sc, delta, printed=False)


@self_checked
def logistic_gamma_star_printed(eps, alpha_sc, delta):
    """γ* from the printed Rem B.3.7 (t = log(2/δ)): the notes' §5.2 values (ε = 0.5, δ = 5e-7, α = 100 → 0.56039)."""
    return _logistic_gamma_star(eps, alpha_sc, delta, printed=True)


register(Statement(
    id="gptr.rem_b3_7_gamma",
    fast="dpspec.fast.gptr.glm:logistic_gamma_star",
    source=Source(SEED, "Remark B.3.7 solved for γ (Ex B.3.8 step 6)",
                  "largest γ meeting an ε budget in logistic output perturbation"),
    kind="calibration",
    claim="exact",
    value=Value("noise"),
    summary="γ* = α u*², u* = 2(ε − c)/(√t + √(t + 4(ε − c))), t = 2 log(2/δ), c = 1.25(1 + t)/α; feasible iff "
            "α > 1.25(1 + 2 log(2/δ))/ε",
    params=(P_EPS, P_ALPHA_SC, P_DELTA),
    reference=logistic_gamma_star,
    conditions=(Condition.of(LOGISTIC_GAMMA_FEASIBLE,
                             lambda p: logistic_gamma_feasible(p["eps"], p["alpha_sc"], p["delta"])),),
    variants={"printed": Variant(logistic_gamma_star_printed, "γ* from the printed Rem B.3.7 (log(2/δ)); the notes' "
                                 "§5.2 values", is_bound=False,
                                 conditions=(Condition.of(LOGISTIC_GAMMA_FEASIBLE_PRINTED, lambda p:
                                                          logistic_gamma_feasible(p["eps"], p["alpha_sc"],
                                                                                  p["delta"], printed=True)),))},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": +1, "alpha_sc": +1, "delta": +1},
    note="γ is the inverse noise scale (larger: less noise). Ex B.3.8 calls it at (ε/2, δ/2) with α = λ^p_min + λ. "
         "Printed-variant test vectors (notes §5.2, ε = 0.5, δ = 5e-7): α = 100 → 0.56039, α = 1000 → 14.2539, "
         "α = 30 infeasible (needs α > 40.5). Infeasible budgets are refused, never answered with 0.",
))


# ---------------------------------------------------------------------------------------------------------------
# Example B.3.8 and Theorem B.3.9: the λ_min release and the per-λ accounting


def ex_b3_8_sigma_printed(eps, delta, sensitivity):
    """Ex B.3.8 step 4 as printed (seed 003): σ = Δ_GS√log(4/δ)/(ε/2) for the λ_min release at (ε/2, δ/2)."""
    return sensitivity * mpmath.sqrt(mpmath.log(4 / delta)) / (eps / 2)


def ex_b3_8_sigma(eps, delta, sensitivity):
    """The corrected calibration (erratum E7): the analytic Gaussian σ for (ε/2, δ/2) (Balle & Wang 2018 Thm 8,
    base.gaussian_sigma), times Δ_GS."""
    return sensitivity * gaussian_sigma(eps / 2, delta / 2)


def ex_b3_8_margin(delta, sigma):
    """The shift of Ex B.3.8 step 4, σ√(2 log(1/δ)) (= √(2 log(4/δ) log(1/δ))Δ_GS/(ε/2) for the printed σ): then
    P[λ^p_min > λ_min] = Φ̄(√(2 log(1/δ))) ≤ δ."""
    return sigma * mpmath.sqrt(2 * mpmath.log(1 / delta))


@self_checked
def ex_b3_8(eps, delta, sensitivity):
    """Noise σ of the λ_min release in Ex B.3.8 step 4 (seed 003), corrected (erratum E7): the smallest σ with which
    λ_min + σZ is (ε/2, δ/2)-DP at global sensitivity Δ_GS (2RL + β, Thm B.3.11): Δ_GS·σ_analytic(ε/2, δ/2).
    The released lower bound is λ^p_min = max(λ_min + σZ − σ√(2 log(1/δ)), 0) (:func:`ex_b3_8_margin`)."""
    return ex_b3_8_sigma(eps, delta, sensitivity)


@self_checked
def ex_b3_8_printed(eps, delta, sensitivity):
    """Ex B.3.8 step 4 as printed: σ = Δ_GS√log(4/δ)/(ε/2); its exact δ at ε/2 exceeds δ/2 for ε ≳ 0.5 (erratum
    E7: ε = 1, δ = 1e-5 gives 7.22e-6 against 5e-6)."""
    return ex_b3_8_sigma_printed(eps, delta, sensitivity)


register(Statement(
    id="gptr.ex_b3_8",
    fast="dpspec.fast.gptr.glm:ex_b3_8",
    source=Source(SEED, "Example B.3.8, step 4", "noise of the private lower bound of λ_min(∇²F(θ*_λ))"),
    kind="calibration",
    claim="exact",
    value=Value("noise"),
    summary="σ = Δ_GS·σ_analytic(ε/2, δ/2); λ^p_min = max(λ_min + σZ − σ√(2 log(1/δ)), 0) ≤ λ_min w.p. ≥ 1 − δ",
    params=(P_EPS_POSITIVE, P_DELTA, P_SENSITIVITY),
    reference=ex_b3_8,
    variants={"printed": Variant(ex_b3_8_printed, "σ = Δ_GS√log(4/δ)/(ε/2) as printed: misses (ε/2, δ/2) for "
                                 "ε ≳ 0.5 (erratum E7)", is_bound=False)},
    witnesses=(WitnessUse("gptr.lmin_release",
                          lambda p: {"sensitivity": p["sensitivity"],
                                     "sigma": ex_b3_8_sigma(mpf(p["eps"]), mpf(p["delta"]), mpf(p["sensitivity"]))},
                          "the λ_min release at the calibrated σ"),),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": -1, "delta": -1, "sensitivity": +1},
    note="Relates base.gaussian_sigma (the analytic calibration) and base.gaussian_profile (release_delta in "
         "reference/gptr/ops.py gives the exact δ of either calibration). The printed σ is about √2 below the "
         "classical √(2 log(1.25/δ)) form (erratum E7; notes §5.2 table). Use λ_min from a symmetric eigensolver, "
         "not the power method the text suggests (it finds the largest eigenvalue). Δ_GS = 2.25 for logistic "
         "regression (gptr.thm_b3_11, λ ≥ 1).",
))


def _lmin_false_positive(delta):
    """P[λ^p_min > λ_min] = Φ̄(√(2 log(1/δ))) (Ex B.3.8's shift; ≤ δ)."""
    return mpmath.ncdf(-mpmath.sqrt(2 * mpmath.log(1 / delta)))


@self_checked
def thm_b3_9(eps, delta):
    """Ex B.3.8 per proposed λ, corrected calibration (seed 003, Thm B.3.9 via Thm 3.5.7, sum form): λ_min release
    (ε/2, δ/2), output perturbation data-dependent (ε/2) w.r.t. δ/2 (Rem B.3.7 at γ*), false positive
    δ′ = Φ̄(√(2 log(1/δ))) ≤ δ: (ε, δ/2 + δ/2 + δ′) ⪯ (ε, 2δ)."""
    return eps, delta + _lmin_false_positive(delta)


@self_checked
def thm_b3_9_printed(eps, delta):
    """The text's (ε, 2δ) (δ′ bounded by δ): valid with the corrected calibration."""
    return eps, 2 * delta


@self_checked
def thm_b3_9_printed_calibration(eps, delta):
    """Ex B.3.8 exactly as printed (σ = Δ_GS√log(4/δ)/(ε/2), γ from the printed Rem B.3.7 at δ/2): the release's
    exact δ at ε/2 replaces δ/2 (erratum E7; ε = 2, δ = 1e-6: 4.67e-6), and the mechanism's δ is √δ (the printed
    Rem B.3.7 at δ/2 is the corrected one at √(2·δ/2))."""
    release = release_delta(eps / 2, 1, ex_b3_8_sigma_printed(eps, delta, 1))
    return eps, release + mpmath.sqrt(delta) + _lmin_false_positive(delta)


register(Statement(
    id="gptr.thm_b3_9",
    fast="dpspec.fast.gptr.glm:thm_b3_9",
    source=Source(SEED, "Theorem B.3.9", "privacy of logistic output perturbation with PTR, per proposed λ"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="(ε, δ/2 + δ/2 + Φ̄(√(2 log(1/δ)))) ⪯ (ε, 2δ): λ_min release (ε/2, δ/2), output perturbation (ε/2, δ/2) "
            "data-dependent, false positive Φ̄(√(2 log(1/δ)))",
    params=(P_EPS_POSITIVE, P_DELTA),
    reference=thm_b3_9,
    variants={
        "printed": Variant(thm_b3_9_printed, "(ε, 2δ) as printed (δ′ ≤ δ); valid with the corrected calibration"),
        "printed_calibration": Variant(thm_b3_9_printed_calibration,
                                       "Ex B.3.8 as printed: the λ_min release's exact δ at ε/2 (erratum E7) and √δ "
                                       "for the printed Rem B.3.7 at δ/2; a valid bound for the printed algorithm"),
    },
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": +1, "delta": +1},
    witnesses=THM_B3_9_USES,
    note="An instance of gptr.thm3_5_7 (sum form). The proof's 'for all X' should be 'for all γ' (erratum E15). "
         "The λ_min release is gptr.ex_b3_8, the mechanism gptr.rem_b3_7 at δ/2, its γ gptr.rem_b3_7_gamma. "
         "Tuning over λ goes through Alg 5 (gptr.thm3_5_6).",
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem B.3.11 and Proposition B.3.12


@self_checked
def thm_b3_11(R, L, beta, lam):
    """Global sensitivity of λ_min(∇²F(θ*_λ)) (seed 003, Thm B.3.11): 2RL + β, for λ ≥ RL (Weyl for the added
    Hessian ≤ β; Lemma B.3.4(b) and Prop B.3.12 for the moved optimum ≤ (e^{RL/λ̃} − 1)λ̃ ≤ 2RL)."""
    return 2 * R * L + beta


@self_checked
def thm_b3_11_literal(R, L, beta, lam):
    """Thm B.3.11 with R in Def B.3.3's literal convention (factor 2, erratum E6): Lemma B.3.4(b) then reads
    e^{±2R‖v‖}, and the bound 4RL + β for λ ≥ 2RL."""
    return 4 * R * L + beta


register(Statement(
    id="gptr.thm_b3_11",
    fast="dpspec.fast.gptr.glm:thm_b3_11",
    source=Source(SEED, "Theorem B.3.11", "global sensitivity of λ_min of the Hessian at the regularised optimum"),
    kind="sensitivity",
    claim="upper",
    value=Value("number"),
    summary="sup_{X,x} |λ_min(∇²F(θ*_λ)) − λ_min(∇²F̃(θ̃*_λ))| ≤ 2RL + β for λ ≥ RL (logistic: 2.25, λ ≥ 1)",
    params=(P_R_GSC, P_L_LIP, P_BETA_SMOOTH, P_LAM),
    reference=thm_b3_11,
    conditions=(Condition.of(LAMBDA_AT_LEAST_RL, lambda p: p["lam"] >= p["R"] * p["L"]),),
    variants={"literal_definition": Variant(
        thm_b3_11_literal, "R as in Def B.3.3's literal definition (factor 2): 4RL + β for λ ≥ 2RL (erratum E6)",
        conditions=(Condition.of(LAMBDA_AT_LEAST_2RL, lambda p: p["lam"] >= 2 * p["R"] * p["L"]),))},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"R": +1, "L": +1, "beta": +1},
    note="Bach's convention (erratum E6); the text says 'R-self-concordant' but uses the GSC form. Stated "
         "one-sided; adding a convex f only raises the Hessian, so two-sided. Uses e^x − 1 ≤ 2x for x ≤ 1 (true to "
         "1.2564; proof-checked in proofs_checks/gptr). Δ_GS of the λ_min release gptr.ex_b3_8. "
         "tests/gptr/test_gptr_glm.py checks it on random logistic add-one-point instances.",
))


@self_checked
def prop_b3_12(g, g_tilde, alpha_F, alpha_Ft):
    """‖θ* − θ̃*‖ ≤ min{‖g̃‖_*/α, ‖g‖_*/α̃} (seed 003, Prop B.3.12): θ*, θ̃* minimise F and F̃ = F + f, F (F̃)
    α- (α̃-) strongly convex on their segment, g ∈ ∂f(θ*), g̃ ∈ ∂f(θ̃*)."""
    return min(g_tilde / alpha_F, g / alpha_Ft)


register(Statement(
    id="gptr.prop_b3_12",
    fast="dpspec.fast.gptr.glm:prop_b3_12",
    source=Source(SEED, "Proposition B.3.12", "distance between the optima of F and F + f"),
    kind="sensitivity",
    claim="upper",
    value=Value("number"),
    summary="‖θ* − θ̃*‖ ≤ min{‖g̃‖_*/α, ‖g‖_*/α̃}, g ∈ ∂f(θ*), g̃ ∈ ∂f(θ̃*)",
    params=(P_GRAD, P_GRAD_TILDE, P_ALPHA_F, P_ALPHA_FT),
    reference=prop_b3_12,
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"g": +1, "g_tilde": +1, "alpha_F": -1, "alpha_Ft": -1},
    note="Standard (first-order optimality plus strong convexity on the segment); typo '˜theta' in the text. Used "
         "by Thm B.3.11 and Lemma B.4.2. tests/gptr/test_gptr_glm.py checks it on random strongly convex "
         "quadratics.",
))


# ---------------------------------------------------------------------------------------------------------------
# Witness pair: the Gaussian release of λ_min (notes §3.8)


def _lmin_sample(rng, n, sensitivity, sigma):
    return float(sensitivity) + float(sigma) * rng.standard_normal(n)


def _lmin_log(mean_is_shift: bool):
    def log_density(o, sensitivity, sigma):
        m = float(sensitivity) if mean_is_shift else 0.0
        s = float(sigma)
        return -0.5 * ((np.asarray(o, dtype=np.float64) - m) / s) ** 2 - math.log(s) - 0.5 * math.log(2 * math.pi)
    return log_density


def _lmin_log_moment(alpha, sensitivity, sigma):
    """log E_Q[(p/q)^α] for P = N(Δ, σ²), Q = N(0, σ²): p/q = e^{(2oΔ − Δ²)/(2σ²)}, and the Gaussian moment
    generating function E_Q[e^{toΔ/σ²}] = e^{t²Δ²/(2σ²)} at t = α gives α(α − 1)Δ²/(2σ²)."""
    alpha = witness_order(alpha)
    sensitivity = checked_param("sensitivity", POSITIVE, sensitivity)
    sigma = checked_param("sigma", POSITIVE, sigma)
    return alpha * (alpha - 1) * sensitivity**2 / (2 * sigma**2)


register_witness(Witness(
    id="gptr.lmin_release",
    description="the Gaussian release of λ_min with global sensitivity Δ: P = N(Δ, σ²), Q = N(0, σ²) (shifted so "
                "that Q's mean is 0)",
    params=(P_SENSITIVITY, P_SIGMA),
    sample=_lmin_sample,
    log_p=_lmin_log(True),
    log_q=_lmin_log(False),
    source="notes generalized-ptr.md §3.8; seed 003, Ex B.3.8 step 4, Alg 15 line 3",
    dominating=True,
    log_moment=_lmin_log_moment,
    tilt_family=lambda sensitivity, sigma: {"family": "gaussian_mixture", "weights": [1.0],
                                            "shifts": [float(sensitivity)], "center": 0.0, "sigma": float(sigma)},
    note="Dominating for a release with global sensitivity Δ (Δ_GS = 2RL + β for GLMs, Thm B.3.11; ‖𝒳‖² for ridge, "
         "Lemma B.4.3). The same pair as base.gaussian at σ/Δ, kept at the release's own scale.",
))
