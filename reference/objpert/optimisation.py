"""Computational and utility facts of Algorithm 7: seed 003, App. C.7 (gradient descent and SAG iteration counts,
Thm C.7.1) and Thm C.8.1 (excess empirical risk), lines 10160–10700; notes shared/notes/objpert-rdp.md §2.3 (C.7,
Thm C.7.1, Thm C.8.1), §4 A8, §6 E4_13, E4_14.

Notation of App. C.7: f(θ) = Σ_i ℓ_i(θ) + (λ/2)‖θ‖² + bᵀθ is L_s := nβ + λ smooth (the text calls it L, clashing with
the Lipschitz constant) and λ-strongly convex; ‖∇f‖/L_s ≤ ‖θ − θ*‖ ≤ ‖∇f‖/λ and ‖∇f‖² ≤ 2(L_s²/λ)(f − f*) (C.7.1–C.7.3).
The readable algorithms (GD and SAG with the periodic gradient check) are in reference/objpert/amp_algorithms.py."""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Condition, Source, Statement, Value, Variant, register
from ..precision import self_checked
from .spec import (BETA_POSITIVE, GD_PRINTED_REGIME, LAMBDA_AT_LEAST_BETA, P_BETA, P_C_UNIV, P_COUNT_N, P_DIM,
                   P_DIST0, P_FAIL, P_GAMMA, P_ITERS, P_L, P_LAM, P_SIGMA, P_SIGMA_OUT, P_SUBOPT0, P_TAU,
                   P_THETA_NORM, SEED)

SCHMIDT_2017 = "Schmidt, Le Roux & Bach, Minimizing finite sums with the stochastic average gradient, Math. Prog. 2017"


# ---------------------------------------------------------------------------------------------------------------
# Gradient descent (App. C.7.2)


@self_checked
def c7_gd(n, beta, lam, dist0, gamma):
    """Iterations of gradient descent with step 1/L_s, L_s = nβ + λ, after which ‖∇f(θ_T)‖ ≤ γ (seed 003, App. C.7.2):
    ‖∇f(θ_T)‖² ≤ L_s²(1 − λ/L_s)^T‖θ_0 − θ*‖², so T = log(L_s²‖θ_0 − θ*‖²/γ²)/log(1 + λ/(L_s − λ)), with
    L_s − λ = nβ formed exactly; 0 when L_s‖θ_0 − θ*‖ ≤ γ already. At β = 0 (f quadratic, L_s = λ) one step lands on
    θ*: the value is 1 (0 if λ‖θ_0 − θ*‖ ≤ γ). A real number; the iteration count is its ceiling."""
    ls = n * beta + lam
    num = 2 * mpmath.log(ls * dist0 / gamma)
    if num <= 0:
        return mpf(0)
    if beta == 0:
        return mpf(1)
    return num / mpmath.log1p(lam / (n * beta))


@self_checked
def c7_gd_printed(n, beta, lam, dist0, gamma):
    """The text's simplified count (2nβ/λ)·log((nβ + λ)²‖θ_0 − θ*‖²/γ²) (seed 003, App. C.7.2); an upper bound on
    :func:`c7_gd` when λ ≤ nβ (log(1 + x) ≥ x/2 for 0 ≤ x ≤ 1)."""
    return max(mpf(0), 2 * n * beta / lam * 2 * mpmath.log((n * beta + lam) * dist0 / gamma))


register(Statement(
    id="objpert.c7_gd",
    source=Source(SEED, "App. C.7.2 (gradient descent)", "GD iterations until the gradient-norm check passes"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="T = log(L_s²‖θ_0 − θ*‖²/γ²)/log(1 + λ/(L_s − λ)) ≤ (2nβ/λ) log((nβ + λ)²‖θ_0 − θ*‖²/γ²), L_s = nβ + λ",
    params=(P_COUNT_N, P_BETA, P_LAM, P_DIST0, P_GAMMA),
    reference=c7_gd,
    variants={"printed_bound": Variant(
        c7_gd_printed, "the text's simplification (2nβ/λ)·log(...): valid for λ ≤ nβ",
        conditions=(Condition.of(GD_PRINTED_REGIME, lambda p: p["lam"] <= p["n"] * p["beta"]),))},
    monotone={"n": +1, "beta": +1, "dist0": +1, "gamma": -1},
    note="Deterministic: after ⌈T⌉ steps of GD (step 1/(nβ + λ), ‖x‖ ≤ 1) the check ‖∇f‖ ≤ γ holds (tested on "
         "gd_until in reference/objpert/amp_algorithms.py). The text's O(n² log n) total (λ independent of n) and "
         "O(n^1.5 log n) for accelerated GD are asymptotic, not registered.",
))


# ---------------------------------------------------------------------------------------------------------------
# SAG (App. C.7.2, Schmidt et al. 2017) and Theorem C.7.1


def _sag_rate(n, beta, lam):
    ls = n * beta + lam
    return 1 - min(lam / (16 * ls), 1 / (8 * mpf(n)))


def sag_suboptimality(n, beta, lam, T, subopt0, dist0):
    """E[f(θ_T) − f*] ≤ (1 − min{λ/(16L_s), 1/(8n)})^T·(3n/2·(f(θ_0) − f*) + 4L_s‖θ_0 − θ*‖²) (seed 003, App.
    C.7.2, quoting Schmidt et al. 2017 Thm 1 for f = Σ_i f_i, f_i = ℓ_i + λ‖θ‖²/(2n) + bᵀθ/n, step 1/(16(β + λ/n)))."""
    ls = n * beta + lam
    return _sag_rate(n, beta, lam) ** T * (mpf(3) * n / 2 * subopt0 + 4 * ls * dist0 ** 2)


@self_checked
def c7_sag(n, beta, lam, T, subopt0, dist0):
    """E‖∇f(θ_T)‖² after T SAG steps (seed 003, App. C.7.2), corrected: (C.7.2) gives ‖∇f‖² ≤ (2L_s²/λ)(f − f*), so
    E‖∇f(θ_T)‖² ≤ (2L_s²/λ)·(1 − min{λ/(16L_s), 1/(8n)})^T·(3n/2·(f(θ_0) − f*) + 4L_s‖θ_0 − θ*‖²). The text drops
    the factor 2 (erratum E4_13: variant ``printed``)."""
    ls = n * beta + lam
    return 2 * ls * ls / lam * sag_suboptimality(n, beta, lam, T, subopt0, dist0)


@self_checked
def c7_sag_printed(n, beta, lam, T, subopt0, dist0):
    """The printed (L_s²/λ)·(…) (seed 003, App. C.7.2): half of :func:`c7_sag`, not implied by (C.7.2) (E4_13)."""
    ls = n * beta + lam
    return ls * ls / lam * sag_suboptimality(n, beta, lam, T, subopt0, dist0)


register(Statement(
    id="objpert.c7_sag",
    source=Source(SEED, "App. C.7.2 (SAG)", "expected squared gradient norm of SAG after T steps", SCHMIDT_2017),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="E‖∇f(θ_T)‖² ≤ (2L_s²/λ)(1 − min{λ/(16L_s), 1/(8n)})^T (3n/2 (f(θ_0) − f*) + 4L_s‖θ_0 − θ*‖²)",
    params=(P_COUNT_N, P_BETA, P_LAM, P_ITERS, P_SUBOPT0, P_DIST0),
    reference=c7_sag,
    variants={"printed": Variant(c7_sag_printed, "(L_s²/λ)·(…) as printed: the factor 2 of (C.7.2) is missing "
                                 "(erratum E4_13); not implied by the argument", is_bound=False)},
    monotone={"T": -1, "subopt0": +1, "dist0": +1},
    note="The suboptimality bound E[f(θ_T) − f*] is sag_suboptimality (same module), quoted from Schmidt et al. "
         "2017 with the text's constants (3n/2 and 4L_s for the sum f = Σ f_i, looser than Schmidt's average-form "
         "3/(2n), 4L/n). Markov's inequality turns it into the tail bound that Thm C.7.1 (objpert.thm_c7_1) uses. "
         "A Monte Carlo check of sag_with_check (reference/objpert/amp_algorithms.py) is in "
         "tests/objpert/test_objpert_amp.py.",
))


@self_checked
def thm_c7_1(n, beta, lam, dist0, subopt0, gamma, delta, C_univ):
    """Incremental-gradient evaluations of SAG with the gradient check every n steps (seed 003, Thm C.7.1; existence,
    universal constant unspecified in the text): with probability ≥ 1 − δ it stops in fewer than
    C·max{n, nβ/λ}·log(nβ·max{‖θ_0 − θ*‖, f(θ_0) − f*}/(γδ)). The value is the text's expression at C = C_univ
    (it is ≤ 0 where the logarithm's argument is ≤ 1: the asymptotic statement says nothing there)."""
    return C_univ * max(mpf(n), n * beta / lam) * mpmath.log(n * beta * max(dist0, subopt0) / (gamma * delta))


register(Statement(
    id="objpert.thm_c7_1",
    source=Source(SEED, "Thm C.7.1", "SAG with a periodic gradient-norm check stops after O(n log n) incremental "
                  "gradients w.h.p.", SCHMIDT_2017),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="P[stop within C·max{n, nβ/λ}·log(nβ·max{‖θ_0 − θ*‖, f(θ_0) − f*}/(γδ)) evaluations] ≥ 1 − δ",
    params=(P_COUNT_N, P_BETA, P_LAM, P_DIST0, P_SUBOPT0, P_GAMMA, P_FAIL, P_C_UNIV),
    reference=thm_c7_1,
    conditions=(Condition.of(LAMBDA_AT_LEAST_BETA, lambda p: p["lam"] >= p["beta"]),
                Condition.of(BETA_POSITIVE, lambda p: p["beta"] > 0)),
    monotone={"C_univ": +1, "dist0": +1, "subopt0": +1, "gamma": -1, "delta": -1},
    note="existence: constant unspecified in the text (C_univ; the text's C also names the clip norm, erratum E4_13). "
         "Under λ ≥ β, max{n, nβ/λ} = n. Follows from objpert.c7_sag by Markov's inequality. The γ choice after it "
         "(output noise γ²/(2λ²ρ), sensitivity γ/λ where Thm C.6.1 uses 2γ/λ: E4_13) is not registered.",
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem C.8.1


@self_checked
def thm_c8_1(n, L, tau, lam, sigma_out, d, sigma, theta_norm):
    """Excess empirical risk of Algorithm 7 (seed 003, Thm C.8.1): E[L(θ̃^P; Z)] − L(θ*; Z) ≤ nL(τ/λ + σ_out√d)
    + dσ²/(2λ) + (λ/2)‖θ*‖², from nL-Lipschitzness, ‖θ̃ − θ^P‖ ≤ τ/λ, E‖N(0, σ_out²I_d)‖ ≤ σ_out√d (Lemma C.10.11)
    and L_λ(θ^P) − L_λ(θ*_λ) ≤ ‖b‖²/(2λ), E‖b‖² = dσ²."""
    return n * L * (tau / lam + sigma_out * mpmath.sqrt(d)) + d * sigma * sigma / (2 * lam) + lam / 2 * theta_norm ** 2


register(Statement(
    id="objpert.thm_c8_1",
    source=Source(SEED, "Thm C.8.1", "excess empirical risk of Algorithm 7"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="E[L(θ̃^P)] − L(θ*) ≤ nL(τ/λ + σ_out√d) + dσ²/(2λ) + (λ/2)‖θ*‖²",
    params=(P_COUNT_N, P_L, P_TAU, P_LAM, P_SIGMA_OUT, P_DIM, P_SIGMA, P_THETA_NORM),
    reference=thm_c8_1,
    monotone={"n": +1, "L": +1, "tau": +1, "sigma_out": +1, "d": +1, "sigma": +1, "theta_norm": +1},
    note="L is the per-example Lipschitz constant (‖x‖ ≤ 1); with clipping the bound is on the clipped objective "
         "(L := C). ‖θ*‖ is data dependent. The 'optimal rate' choice of C.8.1 (σ ≍ L√(d log(1/δ))/ε, λ = dL√log(1/δ)"
         "/(ε‖θ*‖)) is asymptotic and √d off the optimal rate (erratum E4_14): not registered. Monte Carlo check on "
         "alg7_amp (reference/objpert/amp_algorithms.py) in tests/objpert/test_objpert_amp.py.",
))
