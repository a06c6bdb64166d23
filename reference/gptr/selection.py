"""Private selection for generalized PTR, seed 003 §3.5.2 and appendix B.2.2: Liu & Talwar's random stopping
(Algorithm 5, Theorem 3.5.6) and its utility (Theorem B.2.3). Notes: shared/notes/generalized-ptr.md §2.2, §2.5, §4,
§5.2.

* Theorem 3.5.6 = Liu & Talwar 2019, Thm 3.4 (quoted): with T = (1/τ) log(1/δ2) and (ε*, δ*)-DP calls of Algorithm 4,
  Algorithm 5 is (3ε* + 3√(2δ*), √(2δ*)·T + δ2)-DP, whatever the number k of candidates. The cut-off T printed here
  is real; Algorithm 5 loops "for i = 1, …, T̂" with T̂ = min(T, G), so an integer cut-off ⌊T⌋ or ⌈T⌉ is what runs
  (reference/gptr/algorithms.py uses ⌈T⌉, so that P[G > cut-off] ≤ (1 − τ)^T ≤ e^{−τT} = δ2; the accounting then
  uses that integer in √(2δ*)·T).
* Theorem B.2.3 (after Papernot & Steinke 2021, A.2): if each candidate is equally likely to be the best, the
  probability that Algorithm 5 returns the best is β = 1 − E[(1 − 1/k)^T̂], T̂ = min(T, G), G ~ Geometric(τ) on
  {1, 2, …}. Exactly, summing by parts, β = (1 − x)·Σ_{j=1}^{T} P[T̂ ≥ j] x^{j−1} = (1/k)(1 − r^T)/(1 − r) with
  x = 1 − 1/k and r = (1 − τ)x. The proof then linearises f(1 − 1/k) ≈ 1 − E[T̂]/k, i.e. β ≈ E[T̂]/k, which exceeds 1
  at the advised τ = 0.1/k (E[T̂] ≈ 10k; erratum E12): the variant ``printed``. Notes §5.2 [CHK]: k = 30, τ = 0.05/k,
  T = 8705 give E[T̂] = 600.0 and β = 0.9539.
"""
from __future__ import annotations

import mpmath

from ..catalogue import Privacy, Source, Statement, Value, Variant, register
from ..precision import self_checked
from .spec import P_CUTOFF, P_DELTA_2, P_DELTA_STAR, P_EPS_STAR, P_K, P_TAU, SEED
from .witnesses_discrete import THM3_5_6_USES

LIU_TALWAR = "Liu & Talwar, Private Selection from Private Candidates, STOC 2019 (arXiv 1811.07971)"

# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.5.6


@self_checked
def liu_talwar_cutoff(tau, delta_2):
    """The cut-off T = (1/τ) log(1/δ2) of Algorithm 5 (seed 003, Thm 3.5.6), real as printed (notes §5.2: 8705.19 at
    τ = 1/600, δ2 = 5e-7)."""
    return -mpmath.log(delta_2) / tau


@self_checked
def liu_talwar(eps_star, delta_star, tau, delta_2):
    """(3ε* + 3√(2δ*), √(2δ*)·T + δ2), T = (1/τ) log(1/δ2): seed 003, Thm 3.5.6 (Liu & Talwar 2019, Thm 3.4), the
    privacy of Algorithm 5 when every call of Algorithm 4 is (ε*, δ*)-DP. Pure case δ* = 0: (3ε*, δ2)."""
    root = mpmath.sqrt(2 * delta_star)
    return 3 * eps_star + 3 * root, root * liu_talwar_cutoff(tau, delta_2) + delta_2


register(Statement(
    id="gptr.thm3_5_6",
    fast="dpspec.fast.gptr.generalized:liu_talwar",
    source=Source(SEED, "Theorem 3.5.6 (Liu & Talwar 2019, Thm 3.4)", "privacy of PTR with hyperparameter selection "
                  "(Algorithm 5, random stopping)", LIU_TALWAR),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="Algorithm 5 with (ε*, δ*)-DP calls is (3ε* + 3√(2δ*), √(2δ*)T + δ2)-DP, T = (1/τ) log(1/δ2)",
    params=(P_EPS_STAR, P_DELTA_STAR, P_TAU, P_DELTA_2),
    reference=liu_talwar,
    privacy=Privacy("any", "both", "none"),
    monotone={"eps_star": +1, "delta_star": +1, "tau": -1},
    witnesses=THM3_5_6_USES,
    note="Quoted from Liu & Talwar (not proved in the thesis). The ε cost does not depend on the number k of "
         "candidates. Notes §5.2 (OPS-PTR experiment, k = 30, δ = 1e-6, τ = 0.05/k, δ2 = δ/2): T = 8705.19 and "
         "δ* = ((δ − δ2)/T)²/2 = 1.6495e-21 make the δ part exactly δ.",
))

# ---------------------------------------------------------------------------------------------------------------
# Theorem B.2.3


def _log_r(k, tau):
    """log r, r = (1 − τ)(1 − 1/k) (−inf at τ = 1 or k = 1)."""
    if tau == 1 or k == 1:
        return mpmath.mpf("-inf")
    return mpmath.log1p(-tau) + mpmath.log1p(-mpmath.mpf(1) / k)


@self_checked
def selection_success(k, tau, T):
    """P[Algorithm 5 returns the best of k equally likely candidates] = 1 − E[(1 − 1/k)^T̂], T̂ = min(T, G),
    G ~ Geometric(τ) on {1, 2, …} (seed 003, Thm B.2.3's proof, exactly): (1/k)(1 − r^T)/(1 − r) with
    r = (1 − τ)(1 − 1/k), 1 − r = τ + (1 − τ)/k and 1 − r^T = −expm1(T log r) (positive terms, no cancellation)."""
    k = mpmath.mpf(k)
    one_minus_r = tau + (1 - tau) / k
    return -mpmath.expm1(T * _log_r(k, tau)) / (k * one_minus_r)


@self_checked
def expected_stopping_time(tau, T):
    """E[T̂] = Σ_{j=1}^{T} (1 − τ)^{j−1} = (1 − (1 − τ)^T)/τ for T̂ = min(T, Geometric(τ)) (seed 003, B.2.2)."""
    if tau == 1:
        return mpmath.mpf(1)
    return -mpmath.expm1(T * mpmath.log1p(-tau)) / tau


@self_checked
def selection_success_printed(k, tau, T):
    """The linearisation of seed 003, Thm B.2.3's proof: f(1 − 1/k) ≈ f(1) − f′(1)/k = 1 − E[T̂]/k with
    f(x) = E[x^T̂], so β = 1 − f(1 − 1/k) ≈ E[T̂]/k. Not a probability where E[T̂] > k (notes §5.2: 20.0 at
    k = 30, τ = 0.05/k, T = 8705; erratum E12)."""
    return expected_stopping_time(tau, T) / k


register(Statement(
    id="gptr.thm_b2_3",
    fast="dpspec.fast.gptr.generalized:selection_success",
    source=Source(SEED, "Theorem B.2.3 (proof)", "utility of Algorithm 5: the probability of returning the best "
                  "candidate", "Papernot & Steinke, Hyperparameter Tuning with Renyi Differential Privacy, ICLR 2022 "
                  "(arXiv 2110.03620), A.2"),
    kind="utility",
    claim="exact",
    value=Value("number"),
    summary="P[best of k returned] = 1 − E[(1 − 1/k)^T̂] = (1/k)(1 − r^T)/(1 − r), r = (1 − τ)(1 − 1/k), "
            "T̂ = min(T, Geometric(τ)); printed: ≈ E[T̂]/k",
    params=(P_K, P_TAU, P_CUTOFF),
    reference=selection_success,
    variants={"printed": Variant(selection_success_printed, "the proof's linearisation β ≈ E[T̂]/k (from "
                                 "f(1 − 1/k) ≈ 1 − E[T̂]/k): above 1 wherever E[T̂] > k, e.g. 20.0 at k = 30, "
                                 "τ = 0.05/k, T = 8705 (erratum E12)", is_bound=False)},
    monotone={"k": -1, "tau": -1, "T": +1},
    note="Scope (the theorem's hypothesis, not a parameter): each call of Algorithm 4 is equally likely to score "
         "best, independently. Notes §5.2: k = 30, τ = 0.05/k, T = 8705 give 0.9539 (E[T̂] = 600.0). The theorem's "
         "headline, the expected quantile E[1 − 1/(T̂ + 1)] of the selected candidate, is gptr.thm_b2_3_quantile.",
))

# ---------------------------------------------------------------------------------------------------------------
# Theorem B.2.3, the expected quantile


DIRECT_TERMS = 2000  # Σ_{m=2}^{T} r^m/m is summed term by term up to this many terms, else by the Lerch tail


def _partial_log_series(tau, T):
    """Σ_{m=2}^{T} r^m/m, r = 1 − τ (0 < τ < 1, T ≥ 1; τ is passed, not r, since r rounds to 1 for τ ≪ 10^−dps).

    Term by term (stopping where the remaining geometric tail is below 2^(−prec−10) of the sum) when that takes at
    most DIRECT_TERMS terms; otherwise (then r > ½ and the sum is ≥ r²/2 ≥ 1/8) from
    Σ_{m=1}^{T} r^m/m = ∫_0^r (1 − x^T)/(1 − x) dx = ∫_{log τ}^{0} (1 − (1 − e^v)^T) dv (x = 1 − e^v), a smooth
    integrand rising from T e^v to 1 around v = −log T, integrated with breakpoints there (tanh-sinh)."""
    tol = mpmath.mpf(2) ** (-mpmath.mp.prec - 10)
    r = 1 - tau
    total, term, m = mpmath.mpf(0), r, 1
    while m < T and m <= DIRECT_TERMS:
        m += 1
        term *= r
        total += term / m
        if term * r / ((m + 1) * tau) <= tol * total:
            return total
    if m >= T:
        return total
    lo, mid = mpmath.log(tau), -mpmath.log(T)
    points = sorted({lo, mpmath.mpf(0), *(x for x in (mid - 40, mid - 5, mid, mid + 5) if lo < x < 0)})
    with mpmath.workdps(mpmath.mp.dps + 10):
        integral = mpmath.quad(lambda v: -mpmath.expm1(T * mpmath.log1p(-mpmath.exp(v))), points)
        value = integral - (1 - tau)
    return +value


@self_checked
def expected_quantile(tau, T):
    """E[1 − 1/(T̂ + 1)], T̂ = min(T, Geometric(τ)) (seed 003, Thm B.2.3: the expected quantile of the best of T̂
    candidates whose scores are i.i.d. continuous). With r = 1 − τ,

        E[1/(T̂ + 1)] = Σ_{g=1}^{T−1} τ r^{g−1}/(g + 1) + r^{T−1}/(T + 1) = (τ/r²)·Σ_{m=2}^{T} r^m/m + r^{T−1}/(T + 1)

    (:func:`_partial_log_series`); τ = 1 gives T̂ = 1 and ½."""
    if tau == 1:
        return mpmath.mpf(1) / 2
    r = 1 - tau
    inv = tau / r**2 * _partial_log_series(tau, T) + mpmath.exp((T - 1) * mpmath.log1p(-tau)) / (T + 1)
    return 1 - inv


register(Statement(
    id="gptr.thm_b2_3_quantile",
    source=Source(SEED, "Theorem B.2.3", "utility of Algorithm 5: expected quantile of the selected candidate",
                  "Papernot & Steinke, Hyperparameter Tuning with Renyi Differential Privacy, ICLR 2022 "
                  "(arXiv 2110.03620), A.2"),
    kind="utility",
    claim="exact",
    value=Value("number"),
    summary="E[quantile of the best of T̂ candidates] = E[1 − 1/(T̂ + 1)], T̂ = min(T, Geometric(τ))",
    params=(P_TAU, P_CUTOFF),
    reference=expected_quantile,
    monotone={"tau": -1, "T": +1},
    note="The theorem as printed (gptr.thm_b2_3 is its proof's P[best of k]). Scope: the scores of the candidates "
         "are i.i.d. continuous (the quantile of the maximum of n i.i.d. uniforms has mean n/(n + 1)).",
))
