"""Appendix E of seed 002 (probabilistic filtered batches; notes shared/notes/batch-clipping-fdp.md §2.11, §6 item 16):
each of a round's m subsets is kept independently with probability ½, so of k differentiating subsets k′ ~ Bin(k, ½)
remain. In model A1 (the adversary sees which subsets were kept, as it sees the subsets in Def. 4.2) the round is the
label-visible mixture of G_{k′/σ} with binomial weights — App. E's "transform q by binomial redistribution" —, with
δ(ε) = Σ_{k′} C(k, k′) 2^{−k} δ_{G_{k′/σ}}(ε) (the default, exact; k′ = 0 contributes 0 for ε ≥ 0).

The text's heuristic "in expectation the sensitivity is kC, so G_{k/(2σ)}: a factor 2 improvement (at best)" is the
``heuristic`` variant, registered as not a bound: a mixture of G_{k′/σ} is not G_{E(k′)/σ}, and its δ exceeds
δ_{G_{k/(2σ)}} (erratum bc.E16; already at ε = 0.25 for k = 2, σ = 1: 0.3143 vs 0.3077).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..base.gaussian import delta_shift
from ..catalogue import Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..errors import ParameterError
from ..precision import self_checked
from .bounds import P_EPS
from .spec import P_K, P_SIGMA, SEED


MAX_TERMS = 2_000  # the exact mixture is summed term by term (one δ_{G_μ} per k′): refused beyond this k


@self_checked
def app_e_round_profile(eps, k, sigma):
    """Seed 002, App. E, read in model A1: δ(ε) = Σ_{k′=1}^{k} C(k, k′) 2^{−k} δ_{G_{k′/σ}}(ε) of one filtered round
    with k differentiating subsets (module docstring; δ_{G_μ} of [2] Cor 2.13 / seed 002 eq. (7)). Exact, term by
    term (no term dropped): a ParameterError above MAX_TERMS (an edge search found k = 10⁶ running for minutes)."""
    k = int(k)
    if k > MAX_TERMS:
        raise ParameterError(f"k = {k}: the exact binomial mixture of App. E sums one Gaussian profile per kept count "
                             f"k′ = 1 … k; dpspec computes it only for k ≤ {MAX_TERMS}")
    log_half_k = k * mpmath.log(2)
    log_k_fact = mpmath.loggamma(k + 1)

    def weight(j):
        return mpmath.exp(log_k_fact - mpmath.loggamma(j + 1) - mpmath.loggamma(k - j + 1) - log_half_k)

    return mpmath.fsum(weight(j) * delta_shift(eps, mpf(j) / sigma) for j in range(1, k + 1))


@self_checked
def app_e_round_profile_heuristic(eps, k, sigma):
    """App. E's heuristic as printed: δ_{G_{k/(2σ)}}(ε) (not a bound, erratum bc.E16)."""
    return delta_shift(eps, mpf(int(k)) / (2 * sigma))


register(Statement(
    id="bc.app_e_round_profile",
    source=Source(SEED, "Appendix E (line 2346; the heuristic at line 2464)", "one round with each subset kept with "
                  "probability ½: the binomial redistribution of k (model A1)"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = Σ_{k′} C(k,k′) 2^{−k} δ_{G_{k′/σ}}(ε), k′ ~ Bin(k, ½) kept differentiating subsets",
    params=(P_EPS, P_K, P_SIGMA),
    reference=app_e_round_profile,
    witnesses=(WitnessUse("bc.filtered_round", {"k": "k", "sigma": "sigma"},
                          "the label-visible binomial mixture of one filtered round"),),
    variants={"heuristic": Variant(app_e_round_profile_heuristic, "App. E's 'G_{k/(2σ)}, a factor 2 improvement' "
                                   "from the mean sensitivity: not a bound (erratum bc.E16)", is_bound=False)},
    privacy=Privacy("replace_one", "both", "n/a"),
    monotone={"eps": -1, "sigma": -1, "k": +1},
    note="The paper leaves App. E as future work; dpspec computes the A1 object it describes, for one round (compose "
         "rounds with the Def. 4.2 machinery on the redistributed law).",
))
