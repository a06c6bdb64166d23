"""Appendix F of seed 002 (subsampling): Lemmas F.2, F.6, F.7, F.9, Corollaries F.3, F.4, F.8 and Theorem F.1's cases
(notes shared/notes/batch-clipping-fdp.md §2.12, §5.3, §5.4, §5.8, §6 item 1–2).

The Hoeffding step (seed 002, App. F.2 and F.5) drops the 1/n of exp(−2t²/n): the tails at the printed cut points
c_U² = (1 − 1/√(2E))E, c_L² = (1 + 1/√(2E))E are ≈ 0.22–0.27 (notes §5.3), not e^{−E}. So for Lemmas F.2, F.6, F.9
and Theorem F.1 [g = 1], [BC]:
* default (corrected): the printed cut points with the exact tails of q_E there (u = Σ_{c<c_U} q_E(c),
  l = Σ_{c>c_L} q_E(c), from reference/bc/qe.py), plugged into the printed forms f̂U / f̂L (Thms 4.5/4.6). This
  keeps the statement's structure and changes only what the erratum is about; it is valid, but the lower bound has a
  δ-floor l ≈ 0.25 (ε = ∞ below it).
* variant ``chernoff`` (lower bounds only; a bound): the notes' repair, c_L² = 3·E[c²] with l = e^{−E[c²]}
  (multiplicative Chernoff P(X ≥ (1+t)μ) ≤ exp(−μt²/(2+t)) at t = 2, c² binomial): the printed tail with a wider cut.
* variant ``printed``: the text's e^{−E} (not a bound: the exact A1 f violates the lower bound at small δ, notes §5.3).

Lemma F.2's upper inequality is about the A0 object C_{m/N}(G_{1/σ})^{⊗(N/m)E} and is false there in every form (the
A0 trade-off is far closer to 1 − α, notes §5.7); its default here is the A1 reading (an upper bound on the A1 f).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..base.fdp import gdp_tradeoff
from ..base.gaussian import gaussian_eps
from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..domains import Param
from ..precision import self_checked
from .bounds import (P_ALPHA, P_DELTA, P_EPS, exact_tail_above, exact_tail_below, fl, fl_eps, fl_hat, fu_delta,
                     fu_hat)
from .witnesses import a1_use
from .spec import (BATCH_FITS, CASE_BC, CASE_G1, CASE_IC, F7_N_LARGE, GROUP_FITS, P_E, P_F1_LOWER_CASE,
                   P_F1_UPPER_CASE, P_G, P_GAMMA, P_LIMIT_MU, P_M, P_N, P_S, P_SIGMA, ROUNDS_INTEGER, SEED, batch_fits,
                   group_fits, rounds_integer)

_SS = "subsampling"


# ---------------------------------------------------------------------------------------------------------------
# Cut points, tails and q of the text

def hoeffding_cuts2(mean):
    """(c_U², c_L²) of seed 002 App. F.2 / F.5 for a binomial c² of mean ``mean`` (E for g = 1, qE for F.9):
    c_U² = (1 − 1/√(2·mean))·mean, c_L² = (1 + 1/√(2·mean))·mean (squared: the tails compare c² exactly)."""
    r = 1 / mpmath.sqrt(2 * mean)
    return (1 - r) * mean, (1 + r) * mean


def hoeffding_cuts(mean):
    """(c_U, c_L), the square roots of :func:`hoeffding_cuts2` (c units, as Defs. 4.3/4.4 take them)."""
    cu2, cl2 = hoeffding_cuts2(mean)
    return mpmath.sqrt(cu2), mpmath.sqrt(cl2)


def f9_q(N, s, g):
    """q = (N/s)(1 − C(N−g, s)/C(N, s)) of seed 002, Lemma F.9 (≈ g for s/N ≪ 1), with
    C(N−g, s)/C(N, s) = Π_{j<g} (N−s−j)/(N−j) (0 when N − g < s). E[c²] = qE for BC with subsampling (F.5)."""
    ratio = mpf(1)
    for j in range(int(g)):
        ratio *= mpf(max(int(N) - int(s) - j, 0)) / (int(N) - j)
    return mpf(N) / s * (1 - ratio)


def _lower(alpha, sigma, law_args, mean, variant):
    """f̂L at the Hoeffding cut c_L for a c² of mean ``mean`` (law_args fix q_E): exact / chernoff / printed tail."""
    if variant == "chernoff":
        return fl_hat(alpha, mpmath.sqrt(3 * mean), mpmath.exp(-mean), sigma)
    _, cl2 = hoeffding_cuts2(mean)
    l = mpmath.exp(-mean) if variant == "printed" else exact_tail_above(*law_args, cl2)
    return fl_hat(alpha, mpmath.sqrt(cl2), l, sigma)


def _upper(alpha, sigma, law_args, mean, variant):
    """f̂U at the Hoeffding cut c_U: exact / printed tail."""
    cu2, _ = hoeffding_cuts2(mean)
    u = mpmath.exp(-mean) if variant == "printed" else exact_tail_below(*law_args, cu2)
    return fu_hat(alpha, mpmath.sqrt(cu2), u, sigma)


def _lower_eps(delta, sigma, law_args, mean, variant):
    """ε(δ) of the symmetrised lower bound fL (D.13) at the Hoeffding cut (or the Chernoff cut)."""
    if variant == "chernoff":
        return fl_eps(delta, mpmath.sqrt(3 * mean), mpmath.exp(-mean), sigma)
    _, cl2 = hoeffding_cuts2(mean)
    l = mpmath.exp(-mean) if variant == "printed" else exact_tail_above(*law_args, cl2)
    return fl_eps(delta, mpmath.sqrt(cl2), l, sigma)


# ---------------------------------------------------------------------------------------------------------------
# Lemma F.2 (IC, g = 1) and Corollary F.4

def _ic(N, m, E):
    return (_SS, N, m, 1, 1, E)


@self_checked
def lemma_f2_lower(alpha, N, m, E, sigma):
    """Lemma F.2, lower inequality (seed 002), corrected: G_{c_L/σ}(min{1, α + l}) with the printed
    c_L² = (1 + 1/√(2E))E and the exact tail l = P(c² > c_L²), c² ~ Binomial(EN/m, m/N) (IC, g = 1). A lower bound on
    the A1 trade-off f (Thm 4.6 / Lemma C.2), hence on the A0 one."""
    return _lower(alpha, sigma, _ic(N, m, E), E, "exact")


@self_checked
def lemma_f2_lower_printed(alpha, N, m, E, sigma):
    """Lemma F.2, lower inequality as printed (seed 002): G_{√((1+1/√(2E))E)/σ}(min{1, α + e^{−E}})."""
    return _lower(alpha, sigma, _ic(N, m, E), E, "printed")


@self_checked
def lemma_f2_lower_chernoff(alpha, N, m, E, sigma):
    """Lemma F.2, lower inequality with the Chernoff repair (notes §6 item 1): G_{√(3E)/σ}(min{1, α + e^{−E}})."""
    return _lower(alpha, sigma, _ic(N, m, E), E, "chernoff")


@self_checked
def lemma_f2_upper(alpha, N, m, E, sigma):
    """Lemma F.2, upper inequality read in model A1 (seed 002, Thm 4.5 at the printed c_U² = (1 − 1/√(2E))E with the
    exact tail u = P(c² < c_U²)): u + (1−u) G_{c_U/σ}(α) ≥ the A1 trade-off f. As printed the lemma puts the A0
    object C_{m/N}(G_{1/σ})^{⊗(N/m)E} below it, which is false in every form (notes §5.7)."""
    return _upper(alpha, sigma, _ic(N, m, E), E, "exact")


@self_checked
def lemma_f2_upper_printed(alpha, N, m, E, sigma):
    """Lemma F.2, upper inequality as printed (seed 002): e^{−E} + (1 − e^{−E}) G_{√((1−1/√(2E))E)/σ}(α)."""
    return _upper(alpha, sigma, _ic(N, m, E), E, "printed")


@self_checked
def lemma_f2_upper_profile(eps, N, m, E, sigma):
    """δ(ε) implied by Lemma F.2's upper inequality in model A1 (exact tail): a symmetric trade-off function below
    f̂U is below fU = min{f̂U, f̂U^{-1}}** (D.12), so its δ(ε) is at least δ_{fU}(ε) (Def. 4.3, notes §2.5)."""
    cu2, _ = hoeffding_cuts2(E)
    return fu_delta(eps, mpmath.sqrt(cu2), exact_tail_below(*_ic(N, m, E), cu2), sigma)


@self_checked
def lemma_f2_upper_profile_printed(eps, N, m, E, sigma):
    """The δ(ε) the printed Lemma F.2 upper inequality implies for the (symmetric) A0 trade-off
    C_{m/N}(G_{1/σ})^{⊗(N/m)E}: δ_A0(ε) ≥ δ_{fU}(ε) with u = e^{−E}, c_U² = (1 − 1/√(2E))E (notes §5.7's 'paper-implied
    δ'; a pessimistic PLD of the A0 object below it refutes the lemma)."""
    c_U, _ = hoeffding_cuts(E)
    return fu_delta(eps, c_U, mpmath.exp(-mpf(E)), sigma)


def _ic_conditions():
    return (Condition.of(BATCH_FITS, lambda p: batch_fits(p["N"], p["m"], 1)),
            Condition.of(ROUNDS_INTEGER, lambda p: rounds_integer(p["N"], p["m"], 1)))


def _general_conditions():
    return (Condition.of(BATCH_FITS, lambda p: batch_fits(p["N"], p["m"], p["s"])),
            Condition.of(ROUNDS_INTEGER, lambda p: rounds_integer(p["N"], p["m"], p["s"])))


def _bc_conditions():
    return (Condition.of(BATCH_FITS, lambda p: batch_fits(p["N"], 1, p["s"])),
            Condition.of(GROUP_FITS, lambda p: group_fits(p["N"], p["g"])),
            Condition.of(ROUNDS_INTEGER, lambda p: rounds_integer(p["N"], 1, p["s"])))


_A1 = Privacy("replace_one", "both", "without_replacement")
_HOEFFDING = ("seed 002 App. F.2/F.5 applies Hoeffding without the 1/n (exp(−2t²) for exp(−2t²/n)): the tail at the "
              "printed cut is ≈ 0.22–0.27, not e^{{−{mean}}} (notes §5.3, §6 item 1)")
_P_M_IC = Param("m", P_M.domain, "m, samples per round (individual clipping, s = 1)", example=4)
_F2_PARAMS = (P_ALPHA, P_N, _P_M_IC, P_E, P_SIGMA)

register(Statement(
    id="bc.lemma_f2_lower",
    source=Source(SEED, "Lemma F.2 (lower inequality)", "DP-SGD (IC, SS, g = 1): a lower bound in G_{√E/σ} form"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="G_{c_L/σ}(min{1, α + l}) ≤ f, c_L² = (1+1/√(2E))E, l = P(c² > c_L²) exact (printed: e^{−E})",
    params=_F2_PARAMS,
    reference=lemma_f2_lower,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", s=1, g=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_ic_conditions(),
    variants={
        "printed": Variant(lemma_f2_lower_printed, _HOEFFDING.format(mean="E") + "; the exact A1 f violates the "
                           "printed bound at small δ (ε(1e-5) 4.93 vs 4.81 at E = 16, σ = 4). It holds numerically "
                           "for the A0 object, unproven.", is_bound=False),
        "chernoff": Variant(lemma_f2_lower_chernoff, "the notes' repair (§6 item 1): c_L² = 3E, l = e^{−E} by the "
                            "multiplicative Chernoff bound at t = 2 (valid for the binomial c²)"),
    },
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="Default: the printed cut point with the exact tail (only the erratum changed); ε = ∞ below δ = l ≈ 0.25.",
))

register(Statement(
    id="bc.lemma_f2_upper",
    source=Source(SEED, "Lemma F.2 (upper inequality)", "DP-SGD (IC, SS, g = 1): claimed upper bound on the A0 "
                  "trade-off; valid only as an A1 statement with the exact tail"),
    kind="tradeoff",
    claim="upper",
    value=Value("beta", "alpha"),
    summary="f_A1 ≤ u + (1−u) G_{c_U/σ}(α), c_U² = (1−1/√(2E))E, u = P(c² < c_U²) exact (printed: e^{−E}, on A0)",
    params=_F2_PARAMS,
    reference=lemma_f2_upper,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", s=1, g=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_ic_conditions(),
    variants={"printed": Variant(lemma_f2_upper_printed, _HOEFFDING.format(mean="E") + "; and as printed it bounds "
                                 "the A0 trade-off C_{m/N}(G_{1/σ})^{⊗(N/m)E} from above, which is false (a "
                                 "pessimistic PLD of the A0 object gives far smaller δ, notes §5.7)", is_bound=False)},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="An upper bound on the A1 trade-off f only: the A0 (standard DP-SGD) trade-off is far above it (notes §6 "
         "item 2); never test A0 accountants against it.",
))

register(Statement(
    id="bc.lemma_f2_upper_profile",
    source=Source(SEED, "Lemma F.2 (upper inequality, (ε, δ) form)", "the δ(ε) that Lemma F.2's upper bound implies"),
    kind="profile",
    claim="lower",
    value=Value("delta", "eps"),
    summary="δ_f(ε) ≥ (1−u) δ_{G_{c_U/σ}}(ε − ln(1−u)), c_U² = (1−1/√(2E))E, u exact (printed: e^{−E}, A0)",
    params=(P_EPS, P_N, _P_M_IC, P_E, P_SIGMA),
    reference=lemma_f2_upper_profile,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", s=1, g=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_ic_conditions(),
    variants={"printed": Variant(lemma_f2_upper_profile_printed, _HOEFFDING.format(mean="E") + "; as printed it "
                                 "claims δ_A0(ε) ≥ this for the A0 trade-off, refuted by the pessimistic PLD "
                                 "(notes §5.7: δ_A0(1) = 1.09e-3 vs 6.07e-2 at E = 4, m/N = 0.1, σ = 2)",
                                 is_bound=False)},
    privacy=_A1,
    monotone={"eps": -1, "sigma": -1},
))

register(Statement(
    id="bc.cor_f4",
    source=Source(SEED, "Corollary F.4", "DP-SGD is G_{√((1+1/√(2E))E)/σ}(min{1, α + e^{−E}})-DP whatever N"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="G_{c_L/σ}(min{1, α + l}) ≤ f, c_L² = (1+1/√(2E))E, l = P(c² > c_L²) exact (printed: e^{−E})",
    params=_F2_PARAMS,
    reference=lemma_f2_lower,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", s=1, g=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_ic_conditions(),
    variants={
        "printed": Variant(lemma_f2_lower_printed, _HOEFFDING.format(mean="E") + "; not implied by the A1 analysis "
                           "(the exact A1 f violates it at small δ); the A0 trade-off satisfies it numerically, but "
                           "the text's proof is the A1 one", is_bound=False),
        "chernoff": Variant(lemma_f2_lower_chernoff, "c_L² = 3E, l = e^{−E} (Chernoff, notes §6 item 1)"),
    },
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="The corrected form depends on N and m through the exact tail; the printed one claims independence of N.",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma F.6 (general (6), g = 1)

def _general(N, m, s, E):
    return (_SS, N, m, s, 1, E)


@self_checked
def lemma_f6_lower(alpha, N, m, s, E, sigma):
    """Lemma F.6, lower bound (seed 002), corrected: as Lemma F.2's with c² ~ Binomial(EN/(sm), sm/N) (general (6),
    g = 1): G_{c_L/σ}(min{1, α + l}), c_L² = (1 + 1/√(2E))E, l = P(c² > c_L²) exact."""
    return _lower(alpha, sigma, _general(N, m, s, E), E, "exact")


@self_checked
def lemma_f6_lower_printed(alpha, N, m, s, E, sigma):
    """Lemma F.6, lower bound as printed (seed 002): G_{√((1+1/√(2E))E)/σ}(min{1, α + e^{−E}})."""
    return _lower(alpha, sigma, _general(N, m, s, E), E, "printed")


@self_checked
def lemma_f6_lower_chernoff(alpha, N, m, s, E, sigma):
    """Lemma F.6, lower bound with the Chernoff repair (notes §6 item 1): G_{√(3E)/σ}(min{1, α + e^{−E}})."""
    return _lower(alpha, sigma, _general(N, m, s, E), E, "chernoff")


@self_checked
def lemma_f6_upper(alpha, N, m, s, E, sigma):
    """Lemma F.6, upper bound (seed 002), corrected: u + (1−u) G_{c_U/σ}(α), c_U² = (1 − 1/√(2E))E, u = P(c² < c_U²)
    exact (Thm 4.5; an upper bound on every h̄ with M h̄-DP in model A1)."""
    return _upper(alpha, sigma, _general(N, m, s, E), E, "exact")


@self_checked
def lemma_f6_upper_printed(alpha, N, m, s, E, sigma):
    """Lemma F.6, upper bound as printed (seed 002): e^{−E} + (1 − e^{−E}) G_{√((1−1/√(2E))E)/σ}(α)."""
    return _upper(alpha, sigma, _general(N, m, s, E), E, "printed")


@self_checked
def lemma_f6_eps(delta, N, m, s, E, sigma):
    """ε(δ) of Lemma F.6's lower bound, symmetrised (fL of Def. 4.4 at the printed c_L, exact tail l): the (ε, δ)
    guarantee it gives; +inf for δ ≤ l (notes §2.6)."""
    return _lower_eps(delta, sigma, _general(N, m, s, E), E, "exact")


@self_checked
def lemma_f6_eps_printed(delta, N, m, s, E, sigma):
    """ε(δ) of Lemma F.6's printed lower bound, symmetrised (fL with c_L² = (1+1/√(2E))E, l = e^{−E}): the notes §5.3
    column 'F.6 lower bound' (4.8139 at E = 16, σ = 4; 34.7224 at E = 100, σ = 2; δ = 1e-5)."""
    return _lower_eps(delta, sigma, _general(N, m, s, E), E, "printed")


@self_checked
def lemma_f6_eps_chernoff(delta, N, m, s, E, sigma):
    """ε(δ) of Lemma F.6's Chernoff-repaired lower bound (fL with c_L² = 3E, l = e^{−E})."""
    return _lower_eps(delta, sigma, _general(N, m, s, E), E, "chernoff")


_F6_PARAMS = (P_ALPHA, P_N, P_M, P_S, P_E, P_SIGMA)
_F6_VIOLATION = "; the exact A1 f violates it at small δ (notes §5.3: ε(1e-5) 4.93 vs 4.81 at E = 16, σ = 4)"

register(Statement(
    id="bc.lemma_f6_lower",
    source=Source(SEED, "Lemma F.6 (lower bound)", "general (6), subsampling, g = 1: some h-DP guarantee"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="G_{c_L/σ}(min{1, α + l}) ≤ f, c_L² = (1+1/√(2E))E, l = P(c² > c_L²) exact (printed: e^{−E})",
    params=_F6_PARAMS,
    reference=lemma_f6_lower,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", g=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_general_conditions(),
    variants={
        "printed": Variant(lemma_f6_lower_printed, _HOEFFDING.format(mean="E") + _F6_VIOLATION, is_bound=False),
        "chernoff": Variant(lemma_f6_lower_chernoff, "c_L² = 3E, l = e^{−E} (Chernoff, notes §6 item 1)"),
    },
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
))

register(Statement(
    id="bc.lemma_f6_upper",
    source=Source(SEED, "Lemma F.6 (upper bound)", "general (6), subsampling, g = 1: no h̄ better than this"),
    kind="tradeoff",
    claim="upper",
    value=Value("beta", "alpha"),
    summary="f ≤ u + (1−u) G_{c_U/σ}(α), c_U² = (1−1/√(2E))E, u = P(c² < c_U²) exact (printed: e^{−E})",
    params=_F6_PARAMS,
    reference=lemma_f6_upper,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", g=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_general_conditions(),
    variants={"printed": Variant(lemma_f6_upper_printed, _HOEFFDING.format(mean="E") + "; so its proof fails (u = "
                                 "e^{−E} is far below the true tail). Numerically it still lies above the A1 f where "
                                 "checked (tests/bc/test_bc_appendix.py), but that is not established",
                                 is_bound=False)},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
))

register(Statement(
    id="bc.lemma_f6_eps",
    source=Source(SEED, "Lemma F.6 (lower bound, (ε, δ) form)", "ε(δ) of the F.6 guarantee, symmetrised (D.13)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) of fL_{c_L}, c_L² = (1+1/√(2E))E, l exact (printed: e^{−E}); ∞ for δ ≤ l",
    params=(P_DELTA, P_N, P_M, P_S, P_E, P_SIGMA),
    reference=lemma_f6_eps,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", g=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_general_conditions(),
    variants={
        "printed": Variant(lemma_f6_eps_printed, _HOEFFDING.format(mean="E") + "; the exact A1 ε exceeds it "
                           "(notes §5.3: 4.9348 vs 4.8139 at E = 16, σ = 4; 35.0088 vs 34.7224 at E = 100, σ = 2)",
                           is_bound=False),
        "chernoff": Variant(lemma_f6_eps_chernoff, "c_L² = 3E, l = e^{−E} (Chernoff, notes §6 item 1)"),
    },
    privacy=_A1,
    monotone={"delta": -1, "sigma": -1},
))


# ---------------------------------------------------------------------------------------------------------------
# Corollary F.3 (asymptotic)

@self_checked
def cor_f3(alpha, mu):
    """Corollary F.3 (seed 002): for E → ∞ with √E/σ → μ, the trade-off converges to G_μ; the value is the limit
    G_μ(α). True for the A1 mixture f of Def. 4.2 (SS, g = 1; c²/E → 1, rate ~1/√E, notes §6 'limit checks').
    FALSE as printed for the A0 object C_{m/N}(G_{1/σ})^{⊗(N/m)E}: with m/N fixed and σ → ∞, [2] Cor 5.4 gives the
    limit G_{μ√(m/N)} (notes §2.12, §6 item 2)."""
    return gdp_tradeoff(alpha, mu)


register(Statement(
    id="bc.cor_f3",
    source=Source(SEED, "Corollary F.3", "the limit G_μ as E → ∞ with √E/σ → μ (asymptotic)"),
    kind="tradeoff",
    claim="exact",
    value=Value("beta", "alpha"),
    summary="lim_{E→∞, √E/σ→μ} f_A1 = G_μ (printed for the A0 object: false there)",
    params=(P_ALPHA, P_LIMIT_MU),
    reference=cor_f3,
    privacy=_A1,
    monotone={"alpha": -1, "mu": -1},
    note="Asymptotic: the value is the limit. It is the limit of the A1 trade-off f (Def. 4.2), not of the A0 "
         "trade-off the corollary names, whose limit is G_{μ√(m/N)} by [2] Cor 5.4 (notes §2.12).",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma F.7 (IC, general g) and Corollary F.8

def f7_cut(N, m, g, E, gamma):
    """(c_L, l) of seed 002, Lemma F.7: c_L = √(β min{m,g} g E), β = e^{N/(N−g−m)} + γ, l = e^{−γgE}."""
    beta = mpmath.exp(mpf(N) / (N - g - m)) + gamma
    return mpmath.sqrt(beta * min(m, g) * g * E), mpmath.exp(-gamma * g * E)


@self_checked
def lemma_f7(alpha, N, m, g, E, sigma, gamma):
    """Lemma F.7 (seed 002): DP-SGD (IC, SS) is fL_{c_L}-DP in model A1 for groups of size g, c_L and l of
    :func:`f7_cut` (valid: the F.4 tail bound q_k ≤ (g/(N−g−m))^k C(m,k) is correct, notes §2.12). Value fL(α)."""
    c_L, l = f7_cut(N, m, g, E, gamma)
    return fl(alpha, c_L, l, sigma)


@self_checked
def lemma_f7_hat(alpha, N, m, g, E, sigma, gamma):
    """Lemma F.7's weaker form f̂L = G_{√(β min{m,g} gE)/σ}(min{1, α + e^{−γgE}}) ≤ fL (seed 002)."""
    c_L, l = f7_cut(N, m, g, E, gamma)
    return fl_hat(alpha, c_L, l, sigma)


@self_checked
def lemma_f7_eps(delta, N, m, g, E, sigma, gamma):
    """ε(δ) of Lemma F.7's fL (Def. 4.4): +inf for δ ≤ e^{−γgE} (notes §5.4: ∞ at δ = 1e-5 and 13.503 at δ = 1e-3 for
    N = 1000, m = 10, g = 1, E = 10, σ = 2, γ = 1/g)."""
    c_L, l = f7_cut(N, m, g, E, gamma)
    return fl_eps(delta, c_L, l, sigma)


def cor_f8_mu(m, g, E, sigma):
    """μ = √((e + 1/g) min{m, g} g E)/σ of seed 002, Corollary F.8 (as printed)."""
    return mpmath.sqrt((mpmath.e + mpf(1) / g) * min(m, g) * g * E) / sigma


def cor_f8_group_mu(g, E, sigma):
    """μ′ = √((1 + 1/√(2E)) g g E)/σ of seed 002 after Corollary F.8 (group privacy of Lemma F.2's lower bound)."""
    return mpmath.sqrt((1 + 1 / mpmath.sqrt(2 * mpf(E))) * g * g * E) / sigma


@self_checked
def cor_f8(delta, N, m, g, E, sigma):
    """Corollary F.8 (seed 002), corrected: what Lemma F.7 with γ = 1/g gives at δ — the ε of fL_{c_L} with
    l = e^{−E} (+inf for δ ≤ e^{−E}): the "≈ G_μ" drops the δ-floor l (notes §2.12, §6 item 6)."""
    return lemma_f7_eps(delta, N, m, g, E, sigma, mpf(1) / g)


@self_checked
def cor_f8_printed(delta, N, m, g, E, sigma):
    """Corollary F.8 as printed (seed 002): ε at δ of G_μ, μ = √((e + 1/g) min{m,g} gE)/σ."""
    return gaussian_eps(delta, 1 / cor_f8_mu(m, g, E, sigma))


_F7_CONDITION = Condition.of(F7_N_LARGE, lambda p: p["N"] - p["g"] - p["m"] > 0)
_F7_PARAMS = (P_N, _P_M_IC, P_G, P_E, P_SIGMA, P_GAMMA)

register(Statement(
    id="bc.lemma_f7",
    source=Source(SEED, "Lemma F.7", "DP-SGD (IC, SS), group size g: fL with c_L = √(β min{m,g} gE), l = e^{−γgE}"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f ≥ fL_{c_L}(α), c_L² = (e^{N/(N−g−m)} + γ) min{m,g} gE, l = e^{−γgE}",
    params=(P_ALPHA, *_F7_PARAMS),
    reference=lemma_f7,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", s=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=(_F7_CONDITION,),
    variants={"hat": Variant(lemma_f7_hat, "the lemma's weaker form f̂L = G_{c_L/σ}(min{1, α + e^{−γgE}}) ≤ fL")},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="Valid but loose (notes §5.4): the exact tail above c_L is far below e^{−γgE}.",
))

register(Statement(
    id="bc.lemma_f7_eps",
    source=Source(SEED, "Lemma F.7 ((ε, δ) form)", "ε(δ) of Lemma F.7's fL"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) of fL_{c_L}, l = e^{−γgE}; ∞ for δ ≤ l",
    params=(P_DELTA, *_F7_PARAMS),
    reference=lemma_f7_eps,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", s=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=(_F7_CONDITION,),
    privacy=_A1,
    monotone={"delta": -1, "sigma": -1},
))

register(Statement(
    id="bc.cor_f8",
    source=Source(SEED, "Corollary F.8", "IC, general g: 'approximately G_μ-DP', μ = √((e+1/g) min{m,g} gE)/σ"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) of Lemma F.7's fL at γ = 1/g (printed: ε of G_μ, μ = √((e+1/g) min{m,g} gE)/σ)",
    params=(P_DELTA, P_N, _P_M_IC, P_G, P_E, P_SIGMA),
    reference=cor_f8,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", s=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=(_F7_CONDITION,),
    variants={"printed": Variant(cor_f8_printed, "seed 002 Cor. F.8's '≈ G_μ' drops Lemma F.7's δ-floor "
                                 "l = e^{−E}: below δ = e^{−E} nothing follows (ε = ∞), and the exact A1 f is not "
                                 "G_μ-DP for that μ (its strict μ* is c_max/σ); notes §2.12, §6 item 6",
                                 is_bound=False)},
    privacy=_A1,
    monotone={"delta": -1, "sigma": -1},
    note="The printed comparison 'g > m ⇒ G_μ beats G_μ′' (μ′ = √((1+1/√(2E)) g² E)/σ, cor_f8_group_mu) needs "
         "g ≳ 2.7m (notes §6 item 11).",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma F.9 (BC, general g)

def _bc(N, s, g, E):
    return (_SS, N, 1, s, g, E)


@self_checked
def lemma_f9_q(N, s, g):
    """q of seed 002, Lemma F.9: (N/s)(1 − C(N−g, s)/C(N, s)) (notes §5.8: 1.99873997 at N = 50000, s = 64, g = 2)."""
    return f9_q(N, s, g)


@self_checked
def lemma_f9_lower(alpha, N, s, g, E, sigma):
    """Lemma F.9, lower bound (seed 002), corrected: G_{c_L/σ}(min{1, α + l}), c_L² = (1 + 1/√(2qE))qE, l = P(c² > c_L²)
    exact, c² ~ Binomial(EN/s, q_1), q_1 = 1 − C(N−g,s)/C(N,s) (BC with SS, F.5)."""
    return _lower(alpha, sigma, _bc(N, s, g, E), f9_q(N, s, g) * E, "exact")


@self_checked
def lemma_f9_lower_printed(alpha, N, s, g, E, sigma):
    """Lemma F.9, lower bound as printed (seed 002): G_{√((1+1/√(2qE))qE)/σ}(min{1, α + e^{−qE}})."""
    return _lower(alpha, sigma, _bc(N, s, g, E), f9_q(N, s, g) * E, "printed")


@self_checked
def lemma_f9_lower_chernoff(alpha, N, s, g, E, sigma):
    """Lemma F.9, lower bound with the Chernoff repair: G_{√(3qE)/σ}(min{1, α + e^{−qE}}) (notes §6 item 1)."""
    return _lower(alpha, sigma, _bc(N, s, g, E), f9_q(N, s, g) * E, "chernoff")


@self_checked
def lemma_f9_upper(alpha, N, s, g, E, sigma):
    """Lemma F.9, upper bound (seed 002), corrected: u + (1−u) G_{c_U/σ}(α), c_U² = (1 − 1/√(2qE))qE, u exact."""
    return _upper(alpha, sigma, _bc(N, s, g, E), f9_q(N, s, g) * E, "exact")


@self_checked
def lemma_f9_upper_printed(alpha, N, s, g, E, sigma):
    """Lemma F.9, upper bound as printed (seed 002): e^{−qE} + (1 − e^{−qE}) G_{√((1−1/√(2qE))qE)/σ}(α)."""
    return _upper(alpha, sigma, _bc(N, s, g, E), f9_q(N, s, g) * E, "printed")


_P_S_BC = Param("s", P_S.domain, "s, samples per round (batch clipping, m = 1)", example=4)
_F9_PARAMS = (P_ALPHA, P_N, _P_S_BC, P_G, P_E, P_SIGMA)

register(Statement(
    id="bc.lemma_f9_q",
    source=Source(SEED, "Lemma F.9 (its q)", "q = (N/s)(1 − C(N−g,s)/C(N,s)) ≈ g, the mean of c² per epoch (BC, SS)"),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="q = (N/s)(1 − C(N−g, s)/C(N, s))",
    params=(P_N, _P_S_BC, P_G),
    reference=lemma_f9_q,
    conditions=(Condition.of(BATCH_FITS, lambda p: batch_fits(p["N"], 1, p["s"])),
                Condition.of(GROUP_FITS, lambda p: group_fits(p["N"], p["g"]))),
    privacy=Privacy("n/a", "n/a", "without_replacement"),
    monotone={"g": +1},
))

register(Statement(
    id="bc.lemma_f9_lower",
    source=Source(SEED, "Lemma F.9 (lower bound)", "batch clipping with subsampling, group size g"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="G_{c_L/σ}(min{1, α + l}) ≤ f, c_L² = (1+1/√(2qE))qE, l exact (printed: e^{−qE})",
    params=_F9_PARAMS,
    reference=lemma_f9_lower,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", m=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_bc_conditions(),
    variants={
        "printed": Variant(lemma_f9_lower_printed, _HOEFFDING.format(mean="qE"), is_bound=False),
        "chernoff": Variant(lemma_f9_lower_chernoff, "c_L² = 3qE, l = e^{−qE} (Chernoff, notes §6 item 1)"),
    },
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
))

register(Statement(
    id="bc.lemma_f9_upper",
    source=Source(SEED, "Lemma F.9 (upper bound)", "batch clipping with subsampling: no h̄ better than this (A1)"),
    kind="tradeoff",
    claim="upper",
    value=Value("beta", "alpha"),
    summary="f ≤ u + (1−u) G_{c_U/σ}(α), c_U² = (1−1/√(2qE))qE, u exact (printed: e^{−qE})",
    params=_F9_PARAMS,
    reference=lemma_f9_upper,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling", m=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_bc_conditions(),
    variants={"printed": Variant(lemma_f9_upper_printed, _HOEFFDING.format(mean="qE") + "; its proof fails "
                                 "(numerically it lies above the A1 f where checked; not established)",
                                 is_bound=False)},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem F.1 (summary of the cases)

def _f1_lower(alpha, case, N, m, s, g, E, sigma, gamma, variant):
    if case == "g1":
        fn = {"exact": lemma_f6_lower, "printed": lemma_f6_lower_printed}[variant]
        return fn(alpha, N, m, s, E, sigma)
    if case == "ic":
        return lemma_f7(alpha, N, m, g, E, sigma, gamma)
    fn = {"exact": lemma_f9_lower, "printed": lemma_f9_lower_printed}[variant]
    return fn(alpha, N, s, g, E, sigma)


def _f1_upper(alpha, case, N, m, s, g, E, sigma, variant):
    if case == "g1":
        fn = {"exact": lemma_f6_upper, "printed": lemma_f6_upper_printed}[variant]
        return fn(alpha, N, m, s, E, sigma)
    fn = {"exact": lemma_f9_upper, "printed": lemma_f9_upper_printed}[variant]
    return fn(alpha, N, s, g, E, sigma)


@self_checked
def thm_f1_lower(alpha, case, N, m, s, g, E, sigma, gamma):
    """Theorem F.1 (seed 002), its lower bounds, corrected: [g = 1] = Lemma F.6 (exact tail), [general g, IC] =
    Lemma F.7 (fL; valid as printed), [general g, BC] = Lemma F.9 (exact tail)."""
    return _f1_lower(alpha, case, N, m, s, g, E, sigma, gamma, "exact")


@self_checked
def thm_f1_lower_printed(alpha, case, N, m, s, g, E, sigma, gamma):
    """Theorem F.1's lower bounds as printed (seed 002): e^{−E} / e^{−qE} tails in the [g = 1] and [BC] cases."""
    return _f1_lower(alpha, case, N, m, s, g, E, sigma, gamma, "printed")


@self_checked
def thm_f1_upper(alpha, case, N, m, s, g, E, sigma):
    """Theorem F.1 (seed 002), its upper bounds (model A1), corrected: [g = 1] = Lemma F.6, [BC] = Lemma F.9."""
    return _f1_upper(alpha, case, N, m, s, g, E, sigma, "exact")


@self_checked
def thm_f1_upper_printed(alpha, case, N, m, s, g, E, sigma):
    """Theorem F.1's upper bounds as printed (seed 002)."""
    return _f1_upper(alpha, case, N, m, s, g, E, sigma, "printed")


def _f1_conditions(with_f7: bool):
    conds = [
        Condition.of(CASE_G1, lambda p: p["case"] != "g1" or p["g"] == 1),
        Condition.of(CASE_IC, lambda p: p["case"] != "ic" or p["s"] == 1),
        Condition.of(CASE_BC, lambda p: p["case"] != "bc" or p["m"] == 1),
        Condition.of(BATCH_FITS, lambda p: batch_fits(p["N"], p["m"], p["s"])),
        Condition.of(GROUP_FITS, lambda p: group_fits(p["N"], p["g"])),
        Condition.of(ROUNDS_INTEGER, lambda p: rounds_integer(p["N"], p["m"], p["s"])),
    ]
    if with_f7:
        conds.append(Condition.of(F7_N_LARGE, lambda p: p["case"] != "ic" or p["N"] - p["g"] - p["m"] > 0))
    return tuple(conds)


_P_GAMMA_F1 = Param("gamma", P_GAMMA.domain, "γ > 0 of the [general g, IC] case (Lemma F.7); unused otherwise",
                    default=1, example=1)

register(Statement(
    id="bc.thm_f1_lower",
    source=Source(SEED, "Theorem F.1 (lower bounds)", "subsampling: the [g=1], [general g, IC], [general g, BC] "
                  "guarantees"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="case g1: Lemma F.6; ic: Lemma F.7 (fL); bc: Lemma F.9 — with exact tails at the printed cuts",
    params=(P_ALPHA, P_F1_LOWER_CASE, P_N, P_M, P_S, P_G, P_E, P_SIGMA, _P_GAMMA_F1),
    reference=thm_f1_lower,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling"), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_f1_conditions(True),
    variants={"printed": Variant(thm_f1_lower_printed, _HOEFFDING.format(mean="E (qE in case bc)") + "; case ic "
                                 "is valid as printed", is_bound=False)},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="The [g = 1, IC] case, h = C_{m/N}(G_{1/σ})^{⊗(N/m)E} ([2] Thm 5.1, model A0), is the A0 trade-off; "
         "dpspec computes it with the PLD (base.pld_sgm_*, fast/base/pld.py), not here.",
))

register(Statement(
    id="bc.thm_f1_upper",
    source=Source(SEED, "Theorem F.1 (upper bounds)", "subsampling: no h better than these in model A1"),
    kind="tradeoff",
    claim="upper",
    value=Value("beta", "alpha"),
    summary="case g1: Lemma F.6 upper; bc: Lemma F.9 upper — exact tails at the printed cuts",
    params=(P_ALPHA, P_F1_UPPER_CASE, P_N, P_M, P_S, P_G, P_E, P_SIGMA),
    reference=thm_f1_upper,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("subsampling"), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_f1_conditions(False),
    variants={"printed": Variant(thm_f1_upper_printed, _HOEFFDING.format(mean="E (qE in case bc)"),
                                 is_bound=False)},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
))
