"""One-posterior-sample (OPS) ridge regression with generalized PTR: seed 003, Thm 3.6.1 (Wang 2017), Ex 3.6.2,
Alg 14, Alg 15 / Thm B.4.1, Lemma B.4.2 (Wang 2018, Lemma 12) and Lemma B.4.3 (Weyl); notes
shared/notes/generalized-ptr.md §2.3, §2.7, §3.6, §4, §5.2.

OPS releases θ ~ N(θ*_λ, (γ(XᵀX + λI))⁻¹), θ*_λ = (XᵀX + λI)⁻¹XᵀY (Ex 3.5.5). Thm 3.6.1 bounds its data-dependent
ε at X (add/remove neighbours, both directions of Def 3.5.1) by

    ε_φ(Z) = √(γL² log(2/δ)/λ*) + γL²/(2(λ* + ‖𝒳‖²)) + (1 + log(2/δ))‖𝒳‖²/(2λ*),      λ* = λ + λ_min(X),

with the third term's grouping reconstructed [R] (notes §2.3: the extracted text reads "1 + log(2/δ)‖𝒳‖²/2λ*"; the
per-instance derivation ½log(1 + μ) + (μ/2)log(2/δ), μ ≤ ‖𝒳‖²/λ*, gives (1 + log(2/δ))‖𝒳‖²/(2λ*); the literal
reading is the variant ``literal_grouping``). The γ calibration (γ* of Ex 3.6.2 / Alg 14 line 6) is the stable
root of a quadratic in √γ (notes §8).

Public helpers (names fixed by the session contract): :func:`ops_epsilon`, :func:`ops_gamma_star`,
:func:`release_delta`; and the Alg 15 calibrations :func:`alg15_sigma`, :func:`alg15_sigma_printed`.

Witness pair ``gptr.ops_ridge`` (notes §3.6): the OPS laws on a dataset Z and its neighbour, given by their
sufficient statistics (H = XᵀX, b = XᵀY; a dataset with these statistics, rows of norm ≤ ‖𝒳‖, exists: k copies of
√(h/k)·e_i with labels 0, plus the point z). d = 2; z = (‖𝒳‖e₁, y) lies along the smallest eigenvector of the
smaller Gram matrix; the dataset has λ_min(X) = λ_min and L(X, Y) = L exactly, so Thm 3.6.1 at the statement's
parameters bounds the pair's loss (a lower-bound witness: ``dominating=False``)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from ..base.gaussian import gaussian_profile, gaussian_sigma
from ..base.sgm import witness_order
from ..catalogue import (Condition, Privacy, Source, Statement, Value, Variant, Witness, WitnessUse, register,
                         register_witness)
from ..domains import Choice, Param
from ..errors import ConditionError
from ..precision import checked_param, self_checked
from .spec import (LAMBDA_STAR_POSITIVE, NONNEGATIVE, OPS_GAMMA_FEASIBLE, OPS_GAMMA_FEASIBLE_PRINTED, P_DELTA,
                   REMOVAL_LAMBDA_POSITIVE,
                   P_DELTA_HAT, P_DELTA_P, P_DELTA_PRIME_1, P_DELTA_PRIME_2, P_EPS, P_EPS_HAT, P_EPS_POSITIVE, P_GAMMA,
                   P_L, P_LAM, P_LAM_MIN, P_LAM_MIN_P, P_X_NORM, POSITIVE, SEED)
from .witnesses_ops import EX3_6_2_USES, THM_B4_1_USES

WANG_2017 = "Wang, Per-instance Differential Privacy, JPC 2019 (arXiv 1707.07708)"
WANG_2018 = "Wang, Revisiting differentially private linear regression, UAI 2018 (arXiv 1803.02596)"


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.6.1 and its γ calibration
#
# The printed bound fails on the worst-case dataset of the witness below (the exact hockey-stick δ(ε_φ) of the pair
# reaches 5e4·δ at δ = 1e-12; tests/gptr/test_gptr_ops.py): both tail terms use log(2/δ) where a Gaussian tail needs
# 2 log(2/δ) (P[Z > t] ≤ e^{−t²/2} gives t = √(2 log(1/δ)); the covariance-shape part is a χ² tail). The default
# doubles it: ε_φ(Z) at δ is the printed expression at δ²/2, and the printed expression at δ holds at √(2δ).


def _tail(delta, printed):
    """The tail factor: 2 log(2/δ) (corrected) or log(2/δ) (printed, seed 003, Thm 3.6.1 / Thm B.3.6)."""
    lg = mpmath.log(2 / delta)
    return lg if printed else 2 * lg


def _ops_terms(lam, lam_min, L, x_norm, delta, printed=False):
    """(a, b, c) with ε_φ(Z) = a·γ + b·√γ + c (seed 003, Thm 3.6.1; notes §2.3), t the tail factor (:func:`_tail`):
    a = L²/(2(λ* + ‖𝒳‖²)), b = √(L² t/λ*), c = (1 + t)‖𝒳‖²/(2λ*)."""
    lam_star = lam + lam_min
    t = _tail(delta, printed)
    x2 = x_norm * x_norm
    a = L * L / (2 * (lam_star + x2))
    b = L * mpmath.sqrt(t / lam_star)
    c = (1 + t) * x2 / (2 * lam_star)
    return a, b, c


@self_checked
def ops_epsilon(gamma, lam, lam_min, L, x_norm, delta):
    """Data-dependent ε of OPS ridge regression, corrected (seed 003, Thm 3.6.1 = Wang 2017; notes §2.3 with the
    [R] grouping; tail factor doubled, see above):

        ε_φ(Z) = √(2γL² log(2/δ)/λ*) + γL²/(2(λ* + ‖𝒳‖²)) + (1 + 2 log(2/δ))‖𝒳‖²/(2λ*),   λ* = λ + λ_min(X).

    The γ-free third term is the leakage of the posterior covariance's shape; it stays as γ → 0."""
    a, b, c = _ops_terms(lam, lam_min, L, x_norm, delta)
    return a * gamma + b * mpmath.sqrt(gamma) + c


@self_checked
def ops_epsilon_printed(gamma, lam, lam_min, L, x_norm, delta):
    """Thm 3.6.1 as printed (with the notes' [R] grouping of the third term): √(γL² log(2/δ)/λ*) + γL²/(2(λ* +
    ‖𝒳‖²)) + (1 + log(2/δ))‖𝒳‖²/(2λ*). Not a bound at δ (it is one at √(2δ)): see above."""
    a, b, c = _ops_terms(lam, lam_min, L, x_norm, delta, printed=True)
    return a * gamma + b * mpmath.sqrt(gamma) + c


@self_checked
def ops_epsilon_literal(gamma, lam, lam_min, L, x_norm, delta):
    """Thm 3.6.1 with the third term read literally as 1 + log(2/δ)‖𝒳‖²/(2λ*) (seed 003 as extracted)."""
    a, b, _ = _ops_terms(lam, lam_min, L, x_norm, delta, printed=True)
    lam_star = lam + lam_min
    return a * gamma + b * mpmath.sqrt(gamma) + 1 + mpmath.log(2 / delta) * x_norm**2 / (2 * lam_star)


def ops_gamma_feasible(eps, lam, lam_min, x_norm, delta, printed=False) -> bool:
    """Whether some γ > 0 meets ε in Thm 3.6.1: (1 + t)‖𝒳‖²/(2λ*) < ε, t = 2 log(2/δ) (corrected) or log(2/δ)
    (printed) (notes §2.3; Alg 14 line 7)."""
    lam_star = lam + lam_min
    if not lam_star > 0:
        return False  # c = +inf
    return (1 + _tail(delta, printed)) * x_norm**2 / (2 * lam_star) < eps


def _gamma_star(eps, lam, lam_min, L, x_norm, delta, printed):
    a, b, c = _ops_terms(lam, lam_min, L, x_norm, delta, printed)
    if not c < eps:
        spec = OPS_GAMMA_FEASIBLE_PRINTED if printed else OPS_GAMMA_FEASIBLE
        raise ConditionError("gptr.thm3_6_1_gamma", [
            f"{spec.describe()} (here the γ-free term is {mpmath.nstr(c, 8)} ≥ ε = {mpmath.nstr(eps, 8)})"])
    room = eps - c
    s = 2 * room / (b + mpmath.sqrt(b * b + 4 * a * room))
    return s * s


@self_checked
def ops_gamma_star(eps, lam, lam_min, L, x_norm, delta):
    """γ* = sup{γ > 0 : ε_φ(Z) ≤ ε} of Thm 3.6.1, corrected (seed 003, Ex 3.6.2 and Alg 14 line 6; notes §2.3, §8):
    with s = √γ, a s² + b s + c ≤ ε (:func:`_ops_terms`), so

        γ* = s*²,   s* = 2(ε − c)/(b + √(b² + 4a(ε − c)))     (the stable root; no cancellation as a → 0).

    Infeasible (c ≥ ε: no γ > 0 meets the budget, Alg 14 outputs ⊥): refused with a ConditionError naming
    condition ``gamma_feasible`` and the two numbers, also on a direct call — a calibration that cannot be met
    never returns a number (not 0, not a negative γ)."""
    return _gamma_star(eps, lam, lam_min, L, x_norm, delta, printed=False)


@self_checked
def ops_gamma_star_printed(eps, lam, lam_min, L, x_norm, delta):
    """γ* from the printed Thm 3.6.1 (the notes' §5.2 values: (ε, δ, λ, λ_min, L) = (1, 1e-6, 100, 50, 2) gives
    2.18466); too large for ε at δ (the printed bound holds at √(2δ))."""
    return _gamma_star(eps, lam, lam_min, L, x_norm, delta, printed=True)


def _lambda_star_positive(p):
    return p["lam"] + p["lam_min"] > 0


LAMBDA_STAR = Condition.of(LAMBDA_STAR_POSITIVE, _lambda_star_positive)
GAMMA_FEASIBLE = Condition.of(OPS_GAMMA_FEASIBLE, lambda p: ops_gamma_feasible(
    p["eps"], p["lam"], p["lam_min"], p["x_norm"], p["delta"]))
GAMMA_FEASIBLE_PRINTED = Condition.of(OPS_GAMMA_FEASIBLE_PRINTED, lambda p: ops_gamma_feasible(
    p["eps"], p["lam"], p["lam_min"], p["x_norm"], p["delta"], printed=True))
TAIL_NOTE = ("The printed bound is not one: on the witness's worst-case dataset its exact δ(ε) exceeds δ (5e4·δ at "
             "δ = 1e-12); the Gaussian and χ² tails need 2 log(2/δ) where the text prints log(2/δ) (a finding of "
             "this project, not in the notes: the printed form at δ equals the corrected one at √(2δ)).")


def _ops_witness_uses(lam_min_name="lam_min", L_of=None):
    """The four uses of ``gptr.ops_ridge`` (add and remove neighbours, both directions of Def 3.5.1)."""
    def mapping(case, order):
        def f(p):
            L = p["L"] if L_of is None else L_of(p)
            return {"gamma": p["gamma"], "lam": p["lam"], "lam_min": p[lam_min_name], "L": L, "x_norm": p["x_norm"],
                    "case": case, "order": order}
        return f
    return tuple(WitnessUse("gptr.ops_ridge", mapping(case, order),
                            f"{case} neighbour, {'M(X) vs M(X′)' if order == 'PQ' else 'M(X′) vs M(X)'}")
                 for case in ("add", "remove") for order in ("PQ", "QP"))


register(Statement(
    id="gptr.thm3_6_1",
    fast="dpspec.fast.gptr.ops:ops_epsilon",
    source=Source(SEED, "Theorem 3.6.1", "data-dependent DP of one-posterior-sample ridge regression (from Wang 2017)",
                  WANG_2017),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε_φ(Z) = √(2γL² log(2/δ)/λ*) + γL²/(2(λ* + ‖𝒳‖²)) + (1 + 2 log(2/δ))‖𝒳‖²/(2λ*), λ* = λ + λ_min(X) "
            "(the text prints log(2/δ) for 2 log(2/δ))",
    params=(P_GAMMA, P_LAM, P_LAM_MIN, P_L, P_X_NORM, P_DELTA),
    reference=ops_epsilon,
    conditions=(LAMBDA_STAR,),
    variants={
        "printed": Variant(ops_epsilon_printed, "as printed (notes §2.3 grouping): log(2/δ) in both tail terms; "
                           "exceeds its δ on the worst-case dataset (holds at √(2δ))", is_bound=False),
        "literal_grouping": Variant(ops_epsilon_literal, "as printed with the third term read 1 + log(2/δ)‖𝒳‖²/(2λ*) "
                                    "(garbled grouping, erratum E15)", is_bound=False),
    },
    witnesses=_ops_witness_uses(),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"gamma": +1, "lam": -1, "lam_min": -1, "L": +1, "delta": -1},
    note="Data-dependent (per-instance, maximised over the added/removed point) ε of Def 3.5.1 at dataset X, "
         "add/remove neighbours (erratum E10: chapter 3 defines replace-one, the cited bound is add/remove). "
         + TAIL_NOTE + " The third term's grouping is reconstructed [R] (notes §2.3). Limits: λ* → ∞ gives 0; γ → 0 "
         "leaves (1 + 2 log(2/δ))‖𝒳‖²/(2λ*). Used by gptr.thm3_6_1_gamma (γ*), gptr.alg14 (at the private λ^P_min, "
         "L̃) and Alg 15 (gptr.thm_b4_1). The GLM analogue is gptr.thm_b3_6.",
))

register(Statement(
    id="gptr.thm3_6_1_gamma",
    fast="dpspec.fast.gptr.ops:ops_gamma_star",
    source=Source(SEED, "Theorem 3.6.1 solved for γ (Ex 3.6.2, Alg 14 line 6)",
                  "largest inverse temperature γ* meeting an ε budget in OPS ridge regression"),
    kind="calibration",
    claim="exact",
    value=Value("noise"),
    summary="γ* = s*², s* = 2(ε − c)/(b + √(b² + 4a(ε − c))), a = L²/(2(λ* + ‖𝒳‖²)), b = √(2L² log(2/δ)/λ*), "
            "c = (1 + 2 log(2/δ))‖𝒳‖²/(2λ*); feasible iff c < ε",
    params=(P_EPS, P_LAM, P_LAM_MIN, P_L, P_X_NORM, P_DELTA),
    reference=ops_gamma_star,
    conditions=(LAMBDA_STAR, GAMMA_FEASIBLE),
    variants={"printed": Variant(ops_gamma_star_printed, "γ* from the printed Thm 3.6.1 (log(2/δ)): too large for "
                                 "(ε, δ); gives the notes' §5.2 values", is_bound=False,
                                 conditions=(LAMBDA_STAR, GAMMA_FEASIBLE_PRINTED))},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": +1, "lam": +1, "lam_min": +1, "L": -1, "delta": +1},
    note="γ* is the inverse noise scale: larger is less noise. Infeasible budgets (c ≥ ε) are refused (condition "
         "gamma_feasible, also on a direct call of ops_gamma_star), never answered with 0: Alg 14 outputs ⊥ there "
         "(its line 7 tests γ* ≥ 0 where existence, γ* > 0, is meant; erratum E15). Test vectors of the printed "
         "variant (‖𝒳‖ = 1, notes §5.2): (ε, δ, λ, λ_min, L) = (1, 1e-6, 100, 50, 2) → 2.18466. " + TAIL_NOTE,
))


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 14: ε(γ) at the private bounds, directions corrected (erratum E5)

def alg14_lipschitz(Delta_p, x_norm):
    """L̃ = ‖𝒳‖e^{Δ^P} (seed 003, Alg 14 line 4): an upper bound of L = ‖𝒳‖(‖𝒴‖ + ‖𝒳‖‖θ*‖) when Δ^P ≥ Δ."""
    return x_norm * mpmath.exp(Delta_p)


@self_checked
def alg14_epsilon(gamma, lam, lam_min_p, Delta_p, x_norm, delta):
    """ε(γ) of Alg 14 line 5 (seed 003): Thm 3.6.1 at λ^P_min and L̃ = ‖𝒳‖e^{Δ^P},

        ε(γ) = √(γL̃² log(2/δ)/(λ + λ^P)) + γL̃²/(2(λ + λ^P + ‖𝒳‖²)) + (1 + log(2/δ))‖𝒳‖²/(2(λ + λ^P)).

    An upper bound of ε_φ(Z) on the event λ^P_min ≤ λ_min and Δ^P ≥ Δ (erratum E5: line 3 prints both
    inequalities reversed; Thm 3.6.1 decreases in λ_min and increases in L). Corrected tail 2 log(2/δ) (as
    gptr.thm3_6_1)."""
    return ops_epsilon(gamma, lam, lam_min_p, alg14_lipschitz(Delta_p, x_norm), x_norm, delta)


@self_checked
def alg14_epsilon_printed(gamma, lam, lam_min_p, Delta_p, x_norm, delta):
    """Alg 14 line 5 as printed (log(2/δ); gptr.thm3_6_1's ``printed`` variant at λ^P_min, L̃)."""
    return ops_epsilon_printed(gamma, lam, lam_min_p, alg14_lipschitz(Delta_p, x_norm), x_norm, delta)


register(Statement(
    id="gptr.alg14",
    fast="dpspec.fast.gptr.ops:alg14_epsilon",
    source=Source(SEED, "Algorithm 14, line 5", "private upper bound ε(γ) of OPS-PTR's data-dependent DP"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(γ) = Thm 3.6.1 at (λ^P_min, L̃ = ‖𝒳‖e^{Δ^P}); an upper bound of ε_φ(Z) when λ^P_min ≤ λ_min and "
            "Δ^P ≥ Δ",
    params=(P_GAMMA, P_LAM, P_LAM_MIN_P, P_DELTA_P, P_X_NORM, P_DELTA),
    reference=alg14_epsilon,
    conditions=(Condition.of(LAMBDA_STAR_POSITIVE, lambda p: p["lam"] + p["lam_min_p"] > 0),),
    variants={"printed": Variant(alg14_epsilon_printed, "line 5 as printed, log(2/δ) in the tail terms (as "
                                 "gptr.thm3_6_1's printed variant): not a bound at δ", is_bound=False)},
    witnesses=_ops_witness_uses("lam_min_p", lambda p: alg14_lipschitz(mpf(p["Delta_p"]), mpf(p["x_norm"]))),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"gamma": +1, "lam": -1, "lam_min_p": -1, "Delta_p": +1, "delta": -1},
    note="Directions corrected (erratum E5): a valid upper bound needs λ^P_min ≤ λ_min (w.p. 1 − δ′₁) and Δ^P ≥ Δ "
         "(w.p. 1 − δ′₂); the text's line 3 states both reversed. The witness is the OPS pair of a dataset on the "
         "event (λ_min = λ^P_min, L = L̃). γ* of line 6 is gptr.thm3_6_1_gamma at (λ^P_min, L̃); line 7 should test "
         "γ* > 0 (erratum E15). Reference algorithm: regression_algorithms.alg14_ops_ptr.",
))


# ---------------------------------------------------------------------------------------------------------------
# Example 3.6.2: OPS-PTR accounting (Thm 3.5.7)


def _gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form):
    from .generalized import gptr_budget  # helper A's Thm 3.5.3 / 3.5.7 bookkeeping (imported when used)

    return gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form=form)


@self_checked
def ex3_6_2(eps, eps_hat, delta, delta_hat, delta_prime_1, delta_prime_2):
    """OPS-PTR (seed 003, Ex 3.6.2 / Alg 14; Thm 3.5.7): (ε + ε̂, δ + δ̂ + δ′) with δ′ = δ′₁ + δ′₂ (union bound over
    the λ^P_min and Δ^P failures), the sum form printed in the text."""
    return _gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime_1 + delta_prime_2, "sum")


@self_checked
def ex3_6_2_max(eps, eps_hat, delta, delta_hat, delta_prime_1, delta_prime_2):
    """The same with the max form δ̂ + max(δ, δ′) that the proof of Thm 3.5.3 gives (notes §2.2; tighter)."""
    return _gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime_1 + delta_prime_2, "max")


register(Statement(
    id="gptr.ex3_6_2",
    fast="dpspec.fast.gptr.ops:ex3_6_2",
    source=Source(SEED, "Example 3.6.2 (with Alg 14)", "privacy of OPS-PTR for ridge regression"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="(ε + ε̂, δ + δ̂ + δ′₁ + δ′₂): λ^P_min, Δ^P released with (ε̂, δ̂); OPS (ε, δ) data-dependent; "
            "false positive δ′ = δ′₁ + δ′₂",
    params=(P_EPS, P_EPS_HAT, P_DELTA, P_DELTA_HAT, P_DELTA_PRIME_1, P_DELTA_PRIME_2),
    reference=ex3_6_2,
    variants={"max_form": Variant(ex3_6_2_max, "δ̂ + max(δ, δ′₁ + δ′₂): what the proof of Thm 3.5.3 gives (notes "
                                  "§2.2); tighter, still a bound")},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": +1, "eps_hat": +1, "delta": +1, "delta_hat": +1, "delta_prime_1": +1, "delta_prime_2": +1},
    witnesses=EX3_6_2_USES,
    note="An instance of gptr.thm3_5_7 (generalized PTR with a private upper bound; bookkeeping by "
         "generalized.gptr_budget). The text's 'w.p. 1 − δ′, ε^P_λ(Z) ≤ ε_λ(Z)' is reversed (erratum E5): the test "
         "needs an upper bound. The mechanism's (ε, δ) is Thm 3.6.1 (gptr.thm3_6_1) at γ*; the releases are Alg 14 "
         "line 3 (Alg 15 gives one concrete choice: gptr.thm_b4_1).",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma B.4.2 (Wang 2018, Lemma 12) and Lemma B.4.3 (Weyl)


@self_checked
def lemma_b4_2(lam, lam_min, x_norm):
    """Local sensitivity of Δ(X) = log(‖𝒴‖ + ‖𝒳‖‖θ*_λ‖) under add/remove, corrected (seed 003, Lemma B.4.2 = Wang
    2018, Lemma 12; garbled parenthesis fixed, erratum E15): log(1 + ‖𝒳‖²/(λ + λ_min(X) − ‖𝒳‖²)).

    By Prop B.3.12, |Δ(X) − Δ(X′)| ≤ log(1 + ‖𝒳‖²/(λ + λ_min(smaller of X, X′))). For an added point the smaller is
    X and the printed log(1 + ‖𝒳‖²/(λ_min + λ)) holds; for a removed point it is X∖{z}, whose λ_min can be ‖𝒳‖²
    lower (Weyl): the printed form fails there (ratio 1.41 on random data, tests/gptr/test_gptr_ops.py; unbounded on
    the attaining family of erratum E18, proofs_checks/gptr/errata.py). Outside the condition λ + λ_min > ‖𝒳‖²
    (no strong convexity left after a removal) the bound is vacuous: +inf, as the fast path's ``allow_outside``
    (a log1p below −1 would be a complex number)."""
    denominator = lam + lam_min - x_norm**2
    if denominator <= 0:
        return mpmath.inf
    return mpmath.log1p(x_norm**2 / denominator)


@self_checked
def lemma_b4_2_printed(lam, lam_min, x_norm):
    """Lemma B.4.2 as printed: log(1 + ‖𝒳‖²/(λ_min + λ)); a bound for added points only."""
    return mpmath.log1p(x_norm**2 / (lam_min + lam))


register(Statement(
    id="gptr.lemma_b4_2",
    fast="dpspec.fast.gptr.ops:lemma_b4_2",
    source=Source(SEED, "Lemma B.4.2 (Lemma 12 of Wang 2018)", "local sensitivity of log(‖𝒴‖ + ‖𝒳‖‖θ*_λ‖)",
                  WANG_2018),
    kind="sensitivity",
    claim="upper",
    value=Value("number"),
    summary="LS(log(‖𝒴‖ + ‖𝒳‖‖θ*_λ‖)) ≤ log(1 + ‖𝒳‖²/(λ + λ_min − ‖𝒳‖²)) under add/remove (printed: "
            "log(1 + ‖𝒳‖²/(λ_min + λ)), true for added points only)",
    params=(P_LAM, P_LAM_MIN, P_X_NORM),
    reference=lemma_b4_2,
    conditions=(Condition.of(REMOVAL_LAMBDA_POSITIVE, lambda p: p["lam"] + p["lam_min"] > p["x_norm"] ** 2),),
    variants={"printed": Variant(lemma_b4_2_printed, "as printed, λ_min of X: true for an added point, exceeded "
                                 "when a point is removed (λ_min drops by up to ‖𝒳‖²)", is_bound=False,
                                 conditions=(LAMBDA_STAR,))},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"lam": -1, "lam_min": -1, "x_norm": +1},
    note="Used by Alg 15 line 5 at the private λ̃_min (valid on the event λ̃_min ≤ λ_min; a local, not global, "
         "sensitivity: notes §3 item 9). The removal side was found here (not in the notes): Prop B.3.12 bounds "
         "the change by the smaller data set's strong convexity. tests/gptr/test_gptr_ops.py checks both forms on "
         "random add/remove neighbours.",
))


@self_checked
def lemma_b4_3(x_norm):
    """Global sensitivity of λ_min(XᵀX) under add/remove (seed 003, Lemma B.4.3 = Weyl, Stewart 1990 Thm 4.11):
    XᵀX changes by the rank-one xxᵀ, ‖xxᵀ‖₂ = ‖x‖² ≤ ‖𝒳‖², so |Δλ_min| ≤ ‖𝒳‖²."""
    return x_norm * x_norm


register(Statement(
    id="gptr.lemma_b4_3",
    fast="dpspec.fast.gptr.ops:lemma_b4_3",
    source=Source(SEED, "Lemma B.4.3 (Weyl; Stewart 1990, Thm 4.11)",
                  "global sensitivity ‖𝒳‖² of λ_min(XᵀX)"),
    kind="sensitivity",
    claim="upper",
    value=Value("number"),
    summary="max_i |σ_i(A) − σ_i(A + E)| ≤ ‖E‖₂, so Δ_GS(λ_min(XᵀX)) ≤ ‖𝒳‖² (attained in d = 1)",
    params=(P_X_NORM,),
    reference=lemma_b4_3,
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"x_norm": +1},
    note="Sensitivity of the λ_min release of Alg 14/15 (Alg 15 assumes ‖𝒳‖ = 1). Weyl's inequality itself is "
         "checked on random matrices in tests/gptr/test_gptr_ops.py.",
))


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 15 / Theorem B.4.1


@self_checked
def release_delta(eps, sensitivity, sigma):
    """The exact δ at ε of a Gaussian release with ℓ2 sensitivity Δ and noise σ (the analytic Gaussian, Balle & Wang
    2018 Thm 8, through base.gaussian_profile at σ/Δ). The evidence of erratum E7: a calibration meets (ε, δ) iff
    release_delta(ε, Δ, σ) ≤ δ."""
    eps, sensitivity, sigma = (mpf(v) if not isinstance(v, mpf) else v for v in (eps, sensitivity, sigma))
    return gaussian_profile(eps, sigma / sensitivity)


def alg15_sigma_printed(eps, delta):
    """Alg 15 lines 3 and 5 (seed 003; [R] reading of line 5's '/(ε/(4√(6/δ)))'): σ/Δ = √log(6/δ)/(ε/4)."""
    return mpmath.sqrt(mpmath.log(6 / delta)) / (eps / 4)


def alg15_sigma(eps, delta):
    """The corrected Alg 15 calibration (E7): the analytic Gaussian σ/Δ for (ε/4, δ/6) per release."""
    return gaussian_sigma(eps / 4, delta / 6)


def alg15_margin(eps, delta, sigma_ratio):
    """The shift of Alg 15's releases (lines 3, 5) as a multiple of Δ: σ/Δ·√(2 log(2/δ)); for the printed σ this
    is √(2 log(6/δ) log(2/δ))/(ε/4)."""
    return sigma_ratio * mpmath.sqrt(2 * mpmath.log(2 / delta))


def alg15_false_positive(delta):
    """P[λ̃_min > λ_min] + P[Δ^P < Δ] = 2Φ̄(√(2 log(2/δ))) (each release shifted by σ√(2 log(2/δ)))."""
    return 2 * mpmath.ncdf(-mpmath.sqrt(2 * mpmath.log(2 / delta)))


def _alg15_budget(eps, delta, release_delta_each, ops_delta):
    """(ε, δ̂ + δ_M + δ′) of Alg 15: releases (ε/4, each δ) ×2, OPS (ε/2, δ_M), false positive δ′ (Thm 3.5.7, sum)."""
    return eps, 2 * release_delta_each + ops_delta + alg15_false_positive(delta)


@self_checked
def thm_b4_1(eps, delta):
    """Alg 15 with the corrected (analytic-Gaussian) calibration (seed 003, Thm B.4.1, notes §2.7, [R] split):
    λ̃_min and Δ^P each released (ε/4, δ/6)-DP, OPS calibrated by Thm 3.6.1 at (ε/2, δ/3), false positive
    δ′ = 2Φ̄(√(2 log(2/δ))); Thm 3.5.7 (sum form) gives (ε, δ/3 + δ/3 + δ′) ⪯ (ε, δ). Thm 3.6.1 here is the
    corrected gptr.thm3_6_1."""
    return _alg15_budget(eps, delta, delta / 6, delta / 3)


@self_checked
def thm_b4_1_printed_calibration(eps, delta):
    """Alg 15 exactly as printed (σ/Δ = √log(6/δ)/(ε/4), γ from the printed Thm 3.6.1 at (ε/2, δ/3)): the same
    bookkeeping with each release's exact δ at ε/4, release_delta(ε/4, 1, σ/Δ) (erratum E7: above δ/6 for ε ≳ 0.1
    and above δ/3 for ε ≥ 1 at δ = 1e-6), and the OPS step's δ √(2δ/3) (the printed Thm 3.6.1 at δ/3 is the
    corrected one at √(2δ/3))."""
    release = release_delta(eps / 4, 1, alg15_sigma_printed(eps, delta))
    return _alg15_budget(eps, delta, release, mpmath.sqrt(2 * delta / 3))


@self_checked
def thm_b4_1_printed(eps, delta):
    """The claim as printed: Alg 15 run with budget (ε, δ) is (ε, δ)-DP (Thm B.4.1's (ε + ε̂, δ + δ̂ + δ′) with the
    internal split of Alg 15; ε̂, δ̂, δ′ are never defined there, erratum E11). False with the printed calibration
    (erratum E7: see thm_b4_1_printed_calibration)."""
    return eps, delta


register(Statement(
    id="gptr.thm_b4_1",
    fast="dpspec.fast.gptr.ops:thm_b4_1",
    source=Source(SEED, "Theorem B.4.1 (Algorithm 15)", "privacy of OPS-PTR without ⊥ (Alg 15)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="Alg 15(ε, δ) is (ε, δ/6 + δ/6 + δ/3 + 2Φ̄(√(2 log(2/δ))))-DP with analytic-Gaussian releases "
            "(ε/4, δ/6) each and OPS at (ε/2, δ/3)",
    params=(P_EPS_POSITIVE, P_DELTA),
    reference=thm_b4_1,
    variants={
        "printed_calibration": Variant(thm_b4_1_printed_calibration,
                                       "Alg 15 as printed, σ/Δ = √log(6/δ)/(ε/4) and the printed Thm 3.6.1: the "
                                       "releases' exact δ at ε/4 (erratum E7) and √(2δ/3) for the OPS step; a valid "
                                       "bound for the printed algorithm"),
        "printed": Variant(thm_b4_1_printed, "the text's claim (ε, δ) for the printed Alg 15: false (errata E7, "
                           "E11, E16 (the Thm 3.6.1 tail factor), E18)", is_bound=False),
    },
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": +1, "delta": +1},
    witnesses=THM_B4_1_USES,
    note="[R] Alg 15's internal split (notes §2.7): ε/4 + ε/4 (λ_min, Δ releases: the test, ε̂ = ε/2) + ε/2 (OPS); "
         "δ from log(6/δ): δ/6 per release, OPS at δ/3 (line 7); shifts σ√(2 log(2/δ)) give δ′ = 2Φ̄(√(2 log(2/δ))). "
         "The Δ release has local sensitivity log(1 + ‖𝒳‖²/(λ + λ̃_min − ‖𝒳‖²)) (gptr.lemma_b4_2, corrected for "
         "removed points; the printed log(1 + ‖𝒳‖²/(λ + λ̃_min)) covers added points only, a further gap of the "
         "printed algorithm not priced in printed_calibration, erratum E18), valid on λ̃_min ≤ λ_min (within δ′). Gaussian "
         "releases relate base.gaussian_profile / base.gaussian_sigma. Inequality directions in the proof "
         "corrected (erratum E5). The composition is gptr.thm3_5_7 (sum form).",
))


# ---------------------------------------------------------------------------------------------------------------
# Witness pair: OPS on a dataset and its neighbour (notes §3.6)


def ops_pair_statistics(gamma, lam, lam_min, L, x_norm, case, order):
    """The two OPS laws of the witness as (mean, precision-diagonal) per law, floats: P first (numpy side).

    ``case`` add: X has Gram diag(λ_min, λ_min + ‖𝒳‖²) and Y = 0 (θ* = 0, so L(X) = ‖𝒳‖‖𝒴‖ with ‖𝒴‖ = L/‖𝒳‖);
    X′ = X ∪ {(‖𝒳‖e₁, ‖𝒴‖)}. ``case`` remove: X = rest ∪ {z}, rest with Gram diag(λ_min, λ_min) and labels 0, z =
    (‖𝒳‖e₁, ‖𝒴‖) with ‖𝒴‖ = L/(‖𝒳‖(1 + ‖𝒳‖²/(λ_min + ‖𝒳‖² + λ))) so that L(X) = L; X′ = rest. ``order`` PQ:
    (P, Q) = (M(X), M(X′)); QP: (M(X′), M(X))."""
    g, lam, lm, L, x = (float(v) for v in (gamma, lam, lam_min, L, x_norm))
    x2 = x * x
    if case == "add":
        y = L / x
        h_x, b_x = np.array([lm, lm + x2]), np.zeros(2)
        h_n, b_n = h_x + np.array([x2, 0.0]), np.array([x * y, 0.0])
    else:
        y = L / (x * (1 + x2 / (lm + x2 + lam)))
        h_x, b_x = np.array([lm + x2, lm]), np.array([x * y, 0.0])
        h_n, b_n = np.array([lm, lm]), np.zeros(2)
    laws = [(b / (h + lam), g * (h + lam)) for h, b in ((h_x, b_x), (h_n, b_n))]
    return laws if order == "PQ" else laws[::-1]


def _ops_logpdf(o, mean, prec):
    o = np.asarray(o, dtype=np.float64)
    z = o - mean
    return 0.5 * np.sum(np.log(prec)) - 0.5 * np.sum(prec * z * z, axis=-1) - math.log(2 * math.pi)


def _ops_sample(rng, n, gamma, lam, lam_min, L, x_norm, case="add", order="PQ"):
    (mean, prec), _ = ops_pair_statistics(gamma, lam, lam_min, L, x_norm, case, order)
    return mean + rng.standard_normal((n, 2)) / np.sqrt(prec)


def _ops_log(which):
    def log_density(o, gamma, lam, lam_min, L, x_norm, case="add", order="PQ"):
        mean, prec = ops_pair_statistics(gamma, lam, lam_min, L, x_norm, case, order)[which]
        return _ops_logpdf(o, mean, prec)
    return log_density


def _mp_statistics(gamma, lam, lam_min, L, x_norm, case, order):
    """:func:`ops_pair_statistics` in mpmath: [(means, variances)] of (P, Q), per coordinate."""
    x2 = x_norm * x_norm
    if case == "add":
        y = L / x_norm
        h_x, b_x = [lam_min, lam_min + x2], [mpf(0), mpf(0)]
        h_n, b_n = [lam_min + x2, lam_min + x2], [x_norm * y, mpf(0)]
    else:
        y = L / (x_norm * (1 + x2 / (lam_min + x2 + lam)))
        h_x, b_x = [lam_min + x2, lam_min], [x_norm * y, mpf(0)]
        h_n, b_n = [lam_min, lam_min], [mpf(0), mpf(0)]
    laws = [([bi / (hi + lam) for hi, bi in zip(h, b)], [1 / (gamma * (hi + lam)) for hi in h])
            for h, b in ((h_x, b_x), (h_n, b_n))]
    return laws if order == "PQ" else laws[::-1]


_CASE = Choice(("add", "remove"))
_ORDER = Choice(("PQ", "QP"))


def _ops_log_moment(alpha, gamma, lam, lam_min, L, x_norm, case="add", order="PQ"):
    """log E_Q[(p/q)^α] = log ∫ p^α q^{1−α} of the two Gaussians, coordinate by coordinate (diagonal covariances):
    per coordinate with P = N(m₁, v₁), Q = N(m₂, v₂), v_α = αv₂ + (1 − α)v₁,

        (1 − α)/2·log v₁ + α/2·log v₂ − ½ log v_α − α(1 − α)(m₁ − m₂)²/(2v_α),

    +inf where v_α ≤ 0 (the integral diverges). From the densities (Gaussian integral), no statement evaluator."""
    alpha = witness_order(alpha)
    gamma, L, x_norm = (checked_param(n, POSITIVE, v) for n, v in (("gamma", gamma), ("L", L), ("x_norm", x_norm)))
    lam, lam_min = checked_param("lam", NONNEGATIVE, lam), checked_param("lam_min", NONNEGATIVE, lam_min)
    case, order = _CASE.check("case", case), _ORDER.check("order", order)
    if alpha == 0 or alpha == 1:
        return mpf(0)
    (m1, v1), (m2, v2) = _mp_statistics(gamma, lam, lam_min, L, x_norm, case, order)
    total = mpf(0)
    for a1, s1, a2, s2 in zip(m1, v1, m2, v2):
        va = alpha * s2 + (1 - alpha) * s1
        if va <= 0:
            return mpf("inf")
        total += ((1 - alpha) * mpmath.log(s1) + alpha * mpmath.log(s2) - mpmath.log(va)) / 2 \
            - alpha * (1 - alpha) * (a1 - a2) ** 2 / (2 * va)
    return total


register_witness(Witness(
    id="gptr.ops_ridge",
    description="OPS ridge regression on a dataset with λ_min(XᵀX) = λ_min, L(X, Y) = L and its add/remove "
                "neighbour along the smallest eigenvector: N(θ*, (γ(H + λI))⁻¹) in R², both orders",
    params=(P_GAMMA, P_LAM, P_LAM_MIN, P_L, P_X_NORM,
            Param("case", _CASE, "add: X′ = X ∪ {z}; remove: X = X′ ∪ {z}", default="add", example="add"),
            Param("order", _ORDER, "PQ: P = M(X), Q = M(X′); QP: the reverse", default="PQ", example="PQ")),
    sample=_ops_sample,
    log_p=_ops_log(0),
    log_q=_ops_log(1),
    source="notes generalized-ptr.md §3.6; seed 003, Thm 3.6.1 and Ex 3.5.5",
    dominating=False,
    log_moment=_ops_log_moment,
    note="Lower-bound witness: the worst neighbour of Thm 3.6.1 is not explicit (notes §3.6); z along the smallest "
         "eigenvector with the largest label is a good candidate. The dataset is given by its sufficient "
         "statistics (H, XᵀY), which fix the OPS law; one with rows of norm ≤ ‖𝒳‖ exists (module docstring).",
))


def ops_pair_profile(eps, gamma, lam, lam_min, L, x_norm, case="add", order="PQ"):
    """The exact hockey-stick δ(ε) = P[ℓ > ε] − e^ε Q[ℓ > ε] of the ``gptr.ops_ridge`` pair, from its densities
    (mpmath; no statement evaluator): the second coordinate has the same law under P and Q, and on the first the
    privacy loss ℓ(o) − ε = Ao² + Bo + C is a quadratic, so {ℓ > ε} is one interval or the complement of one and
    both masses are normal CDF differences. Used by the tests (the exact check of gptr.thm3_6_1 and of its printed
    form at δ down to 1e-50) and by the errata."""
    eps = mpf(eps)
    (m1, v1), (m2, v2) = _mp_statistics(*(mpf(t) for t in (gamma, lam, lam_min, L, x_norm)), case, order)
    a1, s1, a2, s2 = m1[0], v1[0], m2[0], v2[0]
    A = 1 / (2 * s2) - 1 / (2 * s1)
    B = a1 / s1 - a2 / s2
    C = a2 * a2 / (2 * s2) - a1 * a1 / (2 * s1) + (mpmath.log(s2) - mpmath.log(s1)) / 2 - eps
    inf = mpmath.inf
    if A == 0:
        intervals = [(-inf, inf)] if B == 0 and C > 0 else [] if B == 0 else \
            [(-C / B, inf)] if B > 0 else [(-inf, -C / B)]
    else:
        disc = B * B - 4 * A * C
        if disc <= 0:
            intervals = [(-inf, inf)] if A > 0 else []
        else:
            r1, r2 = sorted(((-B - mpmath.sqrt(disc)) / (2 * A), (-B + mpmath.sqrt(disc)) / (2 * A)))
            intervals = [(-inf, r1), (r2, inf)] if A > 0 else [(r1, r2)]

    def mass(mean, var, lo, hi):
        sd = mpmath.sqrt(var)
        return mpmath.ncdf((hi - mean) / sd) - mpmath.ncdf((lo - mean) / sd)

    return max(mpf(0), mpmath.fsum(mass(a1, s1, lo, hi) - mpmath.exp(eps) * mass(a2, s2, lo, hi)
                                   for lo, hi in intervals))
