"""Generalized Propose-Test-Release, seed 003 §3.5 and appendix B.2: the accounting of Algorithm 4 (Theorems 3.5.3 and
3.5.7), of Algorithm 12 (Theorem B.2.4) and the RDP form of Algorithm 13 (Theorem B.2.5). Notes:
shared/notes/generalized-ptr.md §2.2, §2.5, §3.4, §3.5, §7.1.

* Theorem 3.5.3 prints (ε + ε̂, δ + δ̂ + δ′). Its proof (appendix B.2.1) shows more: Case I (ε_φ(X) > ε) gives
  (ε̂, δ̂ + δ′), Case II gives (ε + ε̂, δ + δ̂), so "ε* = ε + ε̂ and δ* = max(δ̂ + δ′, δ + δ̂) = δ̂ + max(δ′, δ)" (seed
  003, last line of B.2.1). The default is that max form (Theorem 3.6.6 needs it to reach δ rather than 3δ/2:
  erratum E14); the printed sum is the variant ``printed`` (valid, looser by min(δ, δ′)).
* Theorem 3.5.7 (no proof in the thesis) is Theorem 3.5.3 with the test "ε^P_φ(X) < ε" built on a DP upper bound
  ε^P_φ: a pass on a bad X needs ε^P_φ(X) < ε < ε_φ(X), probability ≤ δ′; T is post-processing of ε^P_φ, so
  (ε̂, δ̂)-DP. Same accounting (max form by default).
* Theorem B.2.4 (Algorithm 12, a uniform bound ε̄(·) instead of a test): (ε + ε̂, δ + δ̂ + δ′). The written proof
  conditions where it should intersect (erratum E9); the statement holds by adaptive composition (condition on A's
  output; the bad set has probability ≤ δ′).
* Theorem B.2.5 (RDP): ε̂(α) + (1/(α−1)) log(δ′e^{(α−1)ε̃(α)} + (1 − δ′)e^{(α−1)ε(α)}). Valid when every bad dataset
  passes with the same probability δ′ (the theorem's own "T(X) = 1 with probability δ′") and the data-dependent RDP
  bounds both directions: then two bad neighbours give the same ⊥ mass and the release part is ≤ δ′e^{(α−1)ε̃};
  a good X against any X′ gives e^{(α−1)ε̂}·e^{(α−1)min(ε, ε̃)} (the test's Rényi moment times the release's), both
  below the bound. With a false-positive rate only ≤ δ′ (Algorithm 13's wording) it is false (erratum E1; notes
  §2.5, §3.5): bad neighbours passing with δ′ and p′ < δ′ contribute δ′^α p′^{1−α} e^{(α−1)ε̃}, and the test's RDP
  does not absorb (δ′/p′)^{α−1}. The hypothesis is the condition ``equal_pass`` on the parameter ``pass_law``; the
  unconditional reading is the variant ``printed`` (not a bound). It has the form of Wang et al. (NeurIPS 2022)'s
  Case-1 term of the RDP of PTR (``ptr.thm4_3``, T1: (1 − δ0)e^{α(α−1)/(2σ1²)} + δ0 e^{α(α−1)/(2σ2²)}), which is
  valid because there every unstable dataset has D = 0 and passes with the same δ0 (notes §7.1).
"""
from __future__ import annotations

import mpmath

from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..domains import ALPHA
from ..errors import DomainError
from ..precision import checked_param, self_checked, to_mpf
from .spec import (
    EQUAL_PASS, P_ALPHA, P_DELTA, P_DELTA_HAT, P_DELTA_PRIME, P_EPS, P_EPS_ALPHA, P_EPS_HAT, P_EPS_HAT_ALPHA,
    P_EPS_TILDE_ALPHA, P_PASS_LAW, PASS_LAW, SEED,
)
from .witnesses import counterexample_log_moment

FORMS = ("max", "sum")

# ---------------------------------------------------------------------------------------------------------------
# Theorems 3.5.3, 3.5.7 and B.2.4: (ε, δ) arithmetic


@self_checked
def gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form="max"):
    """(ε + ε̂, δ̂ + max(δ, δ′)) (``form="max"``, what the proof of seed 003 Thm 3.5.3 in B.2.1 shows) or
    (ε + ε̂, δ + δ̂ + δ′) (``form="sum"``, Thm 3.5.3 / 3.5.7 / B.2.4 as printed). δ′ = 0 is plain composition
    (ε + ε̂, δ + δ̂) in both forms (notes §2.2 limit check)."""
    if form not in FORMS:
        raise DomainError("form", form, "one of {max, sum}")
    if form == "max":
        return eps + eps_hat, delta_hat + max(delta, delta_prime)
    return eps + eps_hat, delta + delta_hat + delta_prime


@self_checked
def gptr_budget_max(eps, eps_hat, delta, delta_hat, delta_prime):
    """Seed 003 Thm 3.5.3 / 3.5.7, the max form of the proof (B.2.1): (ε + ε̂, δ̂ + max(δ, δ′))."""
    return gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form="max")


@self_checked
def gptr_budget_sum(eps, eps_hat, delta, delta_hat, delta_prime):
    """Seed 003 Thm 3.5.3 / 3.5.7 / B.2.4 as printed: (ε + ε̂, δ + δ̂ + δ′)."""
    return gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form="sum")


@self_checked
def uniform_bound_budget(eps, eps_hat, delta, delta_hat, delta_prime):
    """Seed 003 Thm B.2.4, Algorithm 12 (release a uniform bound ε̄(·) ≥ ε_φ(X) ∀φ w.p. 1 − δ′, pick φ with
    ε̄(φ) ≤ ε, release M_φ(X)): (ε + ε̂, δ + δ̂ + δ′), by adaptive composition (erratum E9 on the written proof)."""
    return gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form="sum")


_BUDGET_PARAMS = (P_EPS, P_EPS_HAT, P_DELTA, P_DELTA_HAT, P_DELTA_PRIME)
_BUDGET_MONOTONE = {"eps": +1, "eps_hat": +1, "delta": +1, "delta_hat": +1, "delta_prime": +1}


def _case_one(p):
    """Case I of B.2.1 (notes §3.4): X and X′ both bad, each passing with δ′, releases 40 Laplace scales apart."""
    return {"p_pass": to_mpf(p["delta_prime"]), "q_pass": to_mpf(p["delta_prime"]), "release": "laplace", "shift": 40}


def _case_two(p):
    """Case II of B.2.1: a test at its (ε̂, δ̂) extreme (randomised response, pass probabilities 1 − q and
    q = (1 − δ̂)/(1 + e^ε̂): P(pass) − e^ε̂ Q(pass) = δ̂) and an ε-DP release (Laplace, shift ε)."""
    q = (1 - to_mpf(p["delta_hat"])) / (1 + mpmath.exp(to_mpf(p["eps_hat"])))
    return {"p_pass": 1 - q, "q_pass": q, "release": "laplace", "shift": to_mpf(p["eps"])}


_MIXTURE_USES = (
    WitnessUse("gptr.ptr_mixture", _case_one, "Case I: bad neighbours passing with δ′, releases far apart"),
    WitnessUse("gptr.ptr_mixture", _case_two, "Case II: a test at its (ε̂, δ̂) extreme, an ε-DP release"),
)

register(Statement(
    id="gptr.thm3_5_3",
    fast="dpspec.fast.gptr.generalized:gptr_budget",
    source=Source(SEED, "Theorem 3.5.3", "privacy of generalized PTR (Algorithm 4); proof in App. B.2.1"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="Algorithm 4 is (ε + ε̂, δ̂ + max(δ, δ′))-DP (the proof's form; printed: δ + δ̂ + δ′)",
    params=_BUDGET_PARAMS,
    reference=gptr_budget_max,
    variants={"printed": Variant(gptr_budget_sum, "the theorem as printed, (ε + ε̂, δ + δ̂ + δ′): valid, looser than "
                                 "the proof's δ̂ + max(δ, δ′) by min(δ, δ′)")},
    witnesses=_MIXTURE_USES,
    privacy=Privacy("replace_one", "both", "none"),
    monotone=_BUDGET_MONOTONE,
    note="Hypotheses: M_φ is (ε_φ(X), δ) data-dependent DP (Def 3.5.1, both directions), T is (ε̂, δ̂)-DP and a bad "
         "X (ε_φ(X) > ε) passes with probability ≤ δ′. Classic PTR (gptr.thm3_3_4) is the instance φ = β/ε, ε̂ = ε, "
         "δ̂ = δ = 0, δ′ = δ/2, where the max form gives the tight (2ε, δ/2) (notes §2.2). Composition pieces: "
         "base.basic_composition. Wang et al.'s RDP of classic PTR is ptr.thm4_3.",
))

register(Statement(
    id="gptr.thm3_5_7",
    fast="dpspec.fast.gptr.generalized:gptr_budget",
    source=Source(SEED, "Theorem 3.5.7", "generalized PTR with a private upper bound ε^P_φ(X) as the test"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="T(X) = 1 iff ε^P_φ(X) < ε, with ε^P_φ an (ε̂, δ̂)-DP release ≥ ε_φ(X) w.p. 1 − δ′: Algorithm 4 is "
            "(ε + ε̂, δ̂ + max(δ, δ′))-DP (printed: δ + δ̂ + δ′)",
    params=_BUDGET_PARAMS,
    reference=gptr_budget_max,
    variants={"printed": Variant(gptr_budget_sum, "as printed, (ε + ε̂, δ + δ̂ + δ′): valid, looser")},
    witnesses=_MIXTURE_USES,
    privacy=Privacy("replace_one", "both", "none"),
    monotone=_BUDGET_MONOTONE,
    note="No proof in the thesis (notes §2.2 [R]): T is post-processing of ε^P_φ (so (ε̂, δ̂)-DP) and a false "
         "positive needs ε^P_φ(X) < ε < ε_φ(X) (probability ≤ δ′), so Theorem 3.5.3 applies (gptr.thm3_5_3).",
))

register(Statement(
    id="gptr.thm_b2_4",
    fast="dpspec.fast.gptr.generalized:uniform_bound_budget",
    source=Source(SEED, "Theorem B.2.4", "generalized PTR with a uniform bound ε̄(·) (Algorithm 12)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="Algorithm 12 (release ε̄(·) ≥ ε_φ(X) ∀φ w.p. 1 − δ′ by an (ε̂, δ̂)-DP A, pick φ with ε̄(φ) ≤ ε, release "
            "M_φ(X)) is (ε + ε̂, δ + δ̂ + δ′)-DP",
    params=_BUDGET_PARAMS,
    reference=uniform_bound_budget,
    witnesses=_MIXTURE_USES,
    privacy=Privacy("replace_one", "both", "none"),
    monotone=_BUDGET_MONOTONE,
    note="Right by adaptive composition (condition on A's output; the bad outputs have probability ≤ δ′); the "
         "written proof uses conditional probabilities where joint ones are needed (erratum E9). Algorithm 4 with "
         "Thm 3.5.7's test is the one-candidate case (⊥ when ε̄(φ) > ε), so the generalized-PTR mixtures apply.",
))

# ---------------------------------------------------------------------------------------------------------------
# Theorem B.2.5: RDP


def _rdp_mixture(alpha, eps_tilde, eps, delta_prime):
    """(1/(α−1)) log(δ′e^{(α−1)ε̃} + (1 − δ′)e^{(α−1)ε}) as log1p(δ′·expm1((α−1)ε̃) + (1 − δ′)·expm1((α−1)ε))/(α−1):
    every term ≥ 0 (no cancellation), and near α = 1 or at tiny ε the log of a number near 1 keeps its digits
    (the plain log-sum-exp rounds 1 + 1e-300 to 1). mpmath's exponent range is unbounded (no overflow at
    α = 43, ε̃ = 20, notes §8)."""
    am1 = alpha - 1
    inner = delta_prime * mpmath.expm1(am1 * eps_tilde) + (1 - delta_prime) * mpmath.expm1(am1 * eps)
    return mpmath.log1p(inner) / am1


@self_checked
def thm_b2_5_rdp(alpha, eps_hat_alpha, eps_tilde_alpha, eps_alpha, delta_prime, pass_law="equal"):
    """Seed 003, Thm B.2.5: Algorithm 13 is (α, ε̂(α) + (1/(α−1)) log(δ′e^{(α−1)ε̃(α)} + (1 − δ′)e^{(α−1)ε(α)}))-RDP
    when M_φ is (α, ε̃(α))-RDP on every dataset, T is (α, ε̂(α))-RDP and every bad dataset passes with the same
    probability δ′ (``pass_law="equal"``; module docstring). The number does not depend on ``pass_law``: the
    catalogue entry refuses "at_most" (condition ``equal_pass``, erratum E1), its ``printed`` variant does not."""
    checked_param("pass_law", PASS_LAW, pass_law)
    return eps_hat_alpha + _rdp_mixture(alpha, eps_tilde_alpha, eps_alpha, delta_prime)


@self_checked
def thm_b2_5_printed(alpha, eps_hat_alpha, eps_tilde_alpha, eps_alpha, delta_prime, pass_law="equal"):
    """Seed 003, Thm B.2.5 read with Algorithm 13's "false positive rate ≤ δ′" (any ``pass_law``): the same number,
    claimed where it is false (erratum E1; :func:`b2_5_counterexample_divergence`)."""
    return thm_b2_5_rdp(alpha, eps_hat_alpha, eps_tilde_alpha, eps_alpha, delta_prime, pass_law)


def _equal_pass_use(p):
    """Both neighbours bad and passing with δ′ (the hypothesis), Gaussian releases at Rényi distance ε̃(α): the
    mixture's D_α is log((1 − δ′) + δ′e^{(α−1)ε̃})/(α−1), the bound at ε̂ = ε = 0."""
    return {"p_pass": to_mpf(p["delta_prime"]), "q_pass": to_mpf(p["delta_prime"]), "release": "gaussian",
            "shift": mpmath.sqrt(2 * to_mpf(p["eps_tilde_alpha"]) / to_mpf(p["alpha"]))}


register(Statement(
    id="gptr.thm_b2_5",
    fast="dpspec.fast.gptr.generalized:thm_b2_5_rdp",
    source=Source(SEED, "Theorem B.2.5", "RDP of generalized PTR (Algorithm 13), 'amplified' by the pass probability "
                  "δ′ (Remark 3.5.4)"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≤ ε̂(α) + (1/(α−1)) log(δ′e^{(α−1)ε̃(α)} + (1 − δ′)e^{(α−1)ε(α)}), when every bad dataset passes "
            "with probability exactly δ′",
    params=(P_ALPHA, P_EPS_HAT_ALPHA, P_EPS_TILDE_ALPHA, P_EPS_ALPHA, P_DELTA_PRIME, P_PASS_LAW),
    conditions=(Condition.of(EQUAL_PASS, lambda p: p["pass_law"] == "equal"),),
    reference=thm_b2_5_rdp,
    variants={"printed": Variant(
        thm_b2_5_printed, "the bound claimed for a false-positive rate ≤ δ′ (Algorithm 13; pass_law='at_most'): "
        "false, bad neighbours passing with δ′ and p′ < δ′ exceed it (erratum E1: D_α = 11.25 > 8.55 at σ_T = 1, "
        "threshold 4, ε̃(4) = 10, ε(4) = 0.01)", is_bound=False, conditions=())},
    witnesses=(WitnessUse("gptr.ptr_mixture", _equal_pass_use,
                          "both neighbours bad, passing with δ′ (the hypothesis), Gaussian releases at D_α = ε̃(α)"),),
    privacy=Privacy("replace_one", "both", "none"),
    monotone={"eps_hat_alpha": +1, "eps_tilde_alpha": +1, "eps_alpha": +1},
    note="Valid under the hypothesis (module docstring of dpspec.reference.gptr.generalized); needs the data-dependent "
         "RDP to bound both directions. Limits: δ′ = 0 gives ε̂ + ε (composition, base.rdp_composition), δ′ = 1 "
         "gives ε̂ + ε̃. Same mixture as ptr.thm4_3's T1 (Wang et al. 2022, textbook PTR: unstable datasets all pass "
         "with δ0); the counterexample pair gptr.b2_5_counterexample (notes §3.5) refutes the printed reading.",
))


@self_checked
def b2_5_counterexample_divergence(alpha, sigma_T, tau, Delta, sigma):
    """Exact D_α(P‖Q) of the Theorem B.2.5 counterexample (notes §3.5, erratum E1): X, X′ with u(X) = 0, u(X′) = −1,
    both bad; the test passes iff u + N(0, σ_T²) > τ (p = Φ̄(τ/σ_T), p′ = Φ̄((τ + 1)/σ_T)); releases N(0, σ²) and
    N(Δ, σ²):

        D_α = log[(1 − p)^α (1 − p′)^{1−α} + p^α p′^{1−α} e^{α(α−1)Δ²/(2σ²)}]/(α − 1).

    Notes §2.5 [CHK]: σ_T = 1, τ = 4, Δ/σ = √5 (ε̃(4) = 10), α = 4 gives 11.25, above Thm B.2.5's 8.55 at
    ε̂(4) = α/(2σ_T²) = 2, δ′ = p, ε(4) = 0.01 (the witness pair gptr.b2_5_counterexample)."""
    alpha = checked_param("alpha", ALPHA, alpha)
    return counterexample_log_moment(alpha, sigma_T, tau, Delta, sigma) / (alpha - 1)


__all__ = ["gptr_budget", "gptr_budget_max", "gptr_budget_sum", "uniform_bound_budget", "thm_b2_5_rdp",
           "thm_b2_5_printed", "b2_5_counterexample_divergence"]
