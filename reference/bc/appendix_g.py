"""Appendix G of seed 002 (shuffling): Lemmas G.2, G.3, G.4 and Theorem G.1's cases (notes
shared/notes/batch-clipping-fdp.md §2.13, §5.5, §6 items 3, 6, 13).

* Lemma G.2 (g = 1): exactly one round per epoch holds the sample, so c² = E and f = G_{√E/σ} (exact in A1).
* Lemma G.3 (general (6), g ≥ 1): one epoch has c² ≤ g with probability ≥ 1 − l, l = g²ms/(N−g) (the G.2 counting;
  valid). The text composes fL_{√g}^{⊗E} and calls it ≈ G_{√(gE)/σ}. dpspec's closed form for E epochs (notes §2.13):
  Thm 4.6 on q_E with c_L = √(gE) and l_E = 1 − (1 − l)^E (all E epochs have c_e² ≤ g with probability ≥ (1−l)^E).
* Lemma G.4 (batch clipping): c² = Σ_e J_e ≤ gE always, so G_{√(gE)/σ} is a guarantee; for g ≤ s the text's f uses
  the Bose–Einstein q_j = C(N/s, j) C(g−1, j−1)/C(N/s−1+g, g), which is not the law of a random permutation
  (notes §6 item 3): the default f^{⊗E} uses the true occupancy law (reference/bc/qe.py); the BE law is ``printed``.
  Its upper bound (c_U = √g, u = g²/(N/s − g − g²), composed E times) has the closed-form counterpart fU at
  c_U = √(gE) with the exact tail u = P(c² < gE) (default) or with u_E = 1 − (1 − u)^E (``printed`` u; still a valid
  bound: P(J < g) ≤ C(g,2)(s−1)/(N−1) ≤ u by the union bound over pairs).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..base.fdp import gdp_tradeoff
from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..domains import Param
from ..precision import self_checked
from .bounds import P_ALPHA, P_DELTA, exact_tail_above, exact_tail_below, fl, fu
from .mixture import mixture_epsilon, mixture_tradeoff
from .qe import bc_shuffling_bose_einstein, qe_law
from .witnesses import a1_use, shuffling_g1_use
from .spec import (BATCH_FITS, CASE_BC, CASE_G1, G3_N_ABOVE_G, G3_TAIL_AT_MOST_ONE, G4_GROUP_IN_BATCH, G4_U_POSITIVE,
                   GROUP_FITS, P_E, P_G, P_G1_LOWER_CASE, P_G1_UPPER_CASE, P_M, P_N, P_S, P_SIGMA, ROUNDS_INTEGER, SEED,
                   batch_fits, group_fits, rounds_integer)

_SH = "shuffling"
_A1 = Privacy("replace_one", "both", "shuffle")


# ---------------------------------------------------------------------------------------------------------------
# The text's tail bounds

def g3_l(N, m, s, g):
    """l = g²ms/(N − g) of seed 002, G.2 derivation and Lemma G.3: a bound on P(one epoch has c² > g)."""
    return mpf(g) ** 2 * m * s / (N - g)


def g2_distinct_rounds(N, m, s, g):
    """P(the g differentiating samples fall in g distinct rounds of one shuffled epoch) = Π_{i<g} (N − i·ms)/(N − i)
    (notes §2.13, 'Exact'); then c² = g. 1 − this bounds P(c² ≠ g) (notes §5.5: 1.260e-3 at N = 50000, ms = 64,
    g = 2, against l = 5.120205e-3)."""
    p = mpf(1)
    for i in range(int(g)):
        p *= mpf(max(int(N) - i * int(m) * int(s), 0)) / (int(N) - i)
    return p


def g4_u(N, s, g):
    """u = g²/(N/s − g − g²) of seed 002, G.3 derivation and Lemma G.4 (notes §5.5: 5.161290e-3 at N/s = 781, g = 2):
    the text's bound on P(J < g) for one epoch of batch clipping."""
    return mpf(g) ** 2 / (mpf(N) / s - g - mpf(g) ** 2)


def _epochs(l, E):
    """1 − (1 − l)^E: a bound on P(some of E independent epochs fails), each failing with probability ≤ l."""
    return -mpmath.expm1(E * mpmath.log1p(-l)) if l < 1 else mpf(1)


# ---------------------------------------------------------------------------------------------------------------
# Lemma G.2

@self_checked
def lemma_g2(alpha, E, sigma):
    """Lemma G.2 (seed 002): general (6) with shuffling, g = 1, is G_{√E/σ}-DP, tight in A1 (c² = E exactly: the sample
    is in exactly one round per epoch; [2] Cor 3.3)."""
    return gdp_tradeoff(alpha, mpmath.sqrt(E) / sigma)


register(Statement(
    id="bc.lemma_g2",
    source=Source(SEED, "Lemma G.2", "shuffling, g = 1: exactly G_{√E/σ} in model A1"),
    kind="tradeoff",
    claim="exact",
    value=Value("beta", "alpha"),
    summary="f = G_{√E/σ}",
    params=(P_ALPHA, P_E, P_SIGMA),
    reference=lemma_g2,
    witnesses=(WitnessUse("bc.round", shuffling_g1_use, "c² = E: E rounds with one subset (notes §2.13)"),),
    privacy=_A1,
    monotone={"alpha": -1, "E": -1, "sigma": +1},
    note="Independent of N, m, s (each epoch has exactly one round with L = 1).",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma G.3

@self_checked
def lemma_g3(alpha, N, m, s, g, E, sigma):
    """Lemma G.3 (seed 002) for E epochs: fL_{c_L}(α) with c_L = √(gE), l_E = 1 − (1 − l)^E, l = g²ms/(N−g) (Thm 4.6
    applied to q_E directly; at E = 1 exactly the lemma's fL_{√g}). A guarantee (lower bound on the A1 f)."""
    return fl(alpha, mpmath.sqrt(g * E), _epochs(g3_l(N, m, s, g), E), sigma)


@self_checked
def lemma_g3_exact(alpha, N, m, s, g, E, sigma):
    """Lemma G.3's bound with the exact tail: fL at c_L = √(gE), l = P(c² > gE) under q_E (reference/bc/qe.py)."""
    return fl(alpha, mpmath.sqrt(g * E), exact_tail_above(_SH, N, m, s, g, E, g * E), sigma)


@self_checked
def lemma_g3_printed(alpha, N, m, s, g, E, sigma):
    """Lemma G.3's composed claim as printed (seed 002): fL^{⊗E} ≈ G_{√(gE)/σ}."""
    return gdp_tradeoff(alpha, mpmath.sqrt(g * E) / sigma)


def _qe_conditions(m_fixed=None):
    mm = (lambda p: m_fixed) if m_fixed is not None else (lambda p: p["m"])
    return (Condition.of(BATCH_FITS, lambda p: batch_fits(p["N"], mm(p), p["s"])),
            Condition.of(GROUP_FITS, lambda p: group_fits(p["N"], p["g"])),
            Condition.of(ROUNDS_INTEGER, lambda p: rounds_integer(p["N"], mm(p), p["s"])))


_G3_CONDITIONS = (Condition.of(G3_N_ABOVE_G, lambda p: p["N"] > p["g"]),
                  Condition.of(G3_TAIL_AT_MOST_ONE,
                               lambda p: p["N"] > p["g"] and g3_l(p["N"], p["m"], p["s"], p["g"]) <= 1))
_G_PARAMS = (P_ALPHA, P_N, P_M, P_S, P_G, P_E, P_SIGMA)

register(Statement(
    id="bc.lemma_g3",
    source=Source(SEED, "Lemma G.3",
                  "shuffling, general (6), group size g: fL with c_L = √g, l = g²ms/(N−g) per epoch"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f ≥ fL_{√(gE)}(α), l_E = 1 − (1 − g²ms/(N−g))^E (E = 1: the lemma as printed)",
    params=_G_PARAMS,
    reference=lemma_g3,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("shuffling"), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_qe_conditions() + _G3_CONDITIONS,
    variants={
        "exact": Variant(lemma_g3_exact, "the same cut c_L = √(gE) with the exact tail P(c² > gE) of q_E",
                         conditions=_qe_conditions()),
        "printed": Variant(lemma_g3_printed, "seed 002 Lemma G.3 / Thm G.1 [g ≥ 1]: fL^{⊗E} '≈ G_{√(gE)/σ}' drops "
                           "the δ-floor 1 − (1−l)^E (0.40 at N = 50000, ms = 64, g = 2, E = 100), and for m > 1 c² can "
                           "exceed gE (two samples in one round, different subsets: L² = 4 > 2); notes §6 item 6",
                           is_bound=False, conditions=_qe_conditions()),
    },
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="The text composes fL_{√g} over E epochs (a PLD); the default is the closed-form alternative of notes §2.13.",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma G.4 (batch clipping)

def _be_law(N, s, g, E):
    """The text's f^{⊗E} as a mixture: the E-fold convolution of the Bose–Einstein epoch law of c_e² = j (seed 002,
    G.3; :func:`~.qe.bc_shuffling_bose_einstein`), as (support, pmf) of c²."""
    epoch = bc_shuffling_bose_einstein(N, s, g)
    law = [mpf(1)]
    for _ in range(int(E)):
        new = [mpf(0)] * (len(law) + len(epoch) - 1)
        for i, a in enumerate(law):
            if a:
                for j, b in enumerate(epoch):
                    if b:
                        new[i + j] += a * b
        law = new
    support = tuple(i for i, q in enumerate(law) if q)
    return support, tuple(law[i] for i in support)


@self_checked
def lemma_g4(alpha, N, s, g, E, sigma):
    """Lemma G.4 (seed 002), corrected: batch clipping with shuffling is f^{⊗E}-DP with f the Def. 4.2 mixture of one
    epoch's law of J (#distinct batches hit) — the true occupancy law (notes §3.2); f^{⊗E} of the label-visible
    mixture is the mixture of the E-fold convolution, i.e. the A1 f of qe_law('shuffling', N, 1, s, g, E)."""
    return mixture_tradeoff(qe_law(_SH, N, 1, s, g, E), sigma, alpha)


@self_checked
def lemma_g4_printed(alpha, N, s, g, E, sigma):
    """Lemma G.4 as printed (seed 002): f^{⊗E} with the Bose–Einstein q_j of G.3 (not a bound: f_BE > f_true)."""
    return mixture_tradeoff(_be_law(N, s, g, E), sigma, alpha)


@self_checked
def lemma_g4_eps(delta, N, s, g, E, sigma):
    """ε(δ) of Lemma G.4's f^{⊗E} with the true occupancy law (notes §5.5: 14.7547 at N/s = 100, s = 64, g = 3,
    E = 10, σ = 2, δ = 1e-5)."""
    return mixture_epsilon(qe_law(_SH, N, 1, s, g, E), sigma, delta)


@self_checked
def lemma_g4_eps_printed(delta, N, s, g, E, sigma):
    """ε(δ) of Lemma G.4's printed f^{⊗E} (Bose–Einstein q_j; notes §5.5: 14.6791 in the setting above)."""
    return mixture_epsilon(_be_law(N, s, g, E), sigma, delta)


@self_checked
def lemma_g4_gauss(alpha, g, E, sigma):
    """Lemma G.4's first claim (seed 002): batch clipping with shuffling is G_{√(gE)/σ}-DP for every g (c² = Σ_e J_e
    ≤ gE always, and G_{c/σ} decreases in c)."""
    return gdp_tradeoff(alpha, mpmath.sqrt(g * E) / sigma)


@self_checked
def lemma_g4_upper(alpha, N, s, g, E, sigma):
    """Lemma G.4's upper bound in closed form (seed 002; Thm 4.5 on q_E at c_U = √(gE), exact u = P(c² < gE)): every
    h with M h-DP in A1 satisfies h ≤ fU_{√(gE)}. The text's (fU_{√g})^{⊗E} is another upper bound (not computed)."""
    return fu(alpha, mpmath.sqrt(g * E), exact_tail_below(_SH, N, 1, s, g, E, g * E), sigma)


@self_checked
def lemma_g4_upper_printed_u(alpha, N, s, g, E, sigma):
    """Lemma G.4's upper bound with the text's u = g²/(N/s − g − g²) per epoch (capped at 1: a probability bound),
    u_E = 1 − (1 − u)^E over E epochs, at c_U = √(gE). Valid: P(J < g) ≤ C(g,2)(s−1)/(N−1) ≤ u (module docstring)."""
    return fu(alpha, mpmath.sqrt(g * E), _epochs(min(mpf(1), g4_u(N, s, g)), E), sigma)


_P_S_BC = Param("s", P_S.domain, "s, samples per round (batch clipping, m = 1)", example=4)
_G4_PARAMS = (P_ALPHA, P_N, _P_S_BC, P_G, P_E, P_SIGMA)
_G4_BE = Condition.of(G4_GROUP_IN_BATCH, lambda p: p["g"] <= p["s"])
_G4_U = Condition.of(G4_U_POSITIVE, lambda p: mpf(p["N"]) / p["s"] > p["g"] + p["g"] ** 2)
_BE_NOTE = ("seed 002 G.3/G.4 q_j = C(N/s, j) C(g−1, j−1)/C(N/s−1+g, g) is the Bose–Einstein law of indistinguishable "
            "balls, not the occupancy law of a random permutation (it about doubles the collision probability); the "
            "resulting f overstates privacy (notes §5.5: ε(1e-5) 14.68 vs the true 14.75 at N/s = 100, s = 64, g = 3, "
            "E = 10, σ = 2; §6 item 3)")

register(Statement(
    id="bc.lemma_g4",
    source=Source(SEED, "Lemma G.4", "batch clipping with shuffling: f^{⊗E}-DP with the Def. 4.2 mixture of one epoch"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f^{⊗E}, f(α) = Σ_j q_j Φ(Λσ/√j − √j/(2σ)), q_j the true occupancy law (printed: Bose–Einstein)",
    params=_G4_PARAMS,
    reference=lemma_g4,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("shuffling", m=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_qe_conditions(1),
    variants={"printed": Variant(lemma_g4_printed, _BE_NOTE, is_bound=False,
                                 conditions=_qe_conditions(1) + (_G4_BE,))},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="With the true law this is the exact A1 trade-off (bc.def4_2 at sampling='shuffling', m = 1); it needs no "
         "g ≤ s. The printed form is stated for g ≤ s.",
))

register(Statement(
    id="bc.lemma_g4_eps",
    source=Source(SEED, "Lemma G.4 ((ε, δ) form)", "ε(δ) of the Lemma G.4 mixture"),
    kind="eps_delta",
    claim="exact",
    value=Value("eps", "delta"),
    summary="ε(δ) of f^{⊗E} (true occupancy law; printed: Bose–Einstein)",
    params=(P_DELTA, P_N, _P_S_BC, P_G, P_E, P_SIGMA),
    reference=lemma_g4_eps,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("shuffling", m=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_qe_conditions(1),
    variants={"printed": Variant(lemma_g4_eps_printed, _BE_NOTE, is_bound=False,
                                 conditions=_qe_conditions(1) + (_G4_BE,))},
    privacy=_A1,
    monotone={"delta": -1, "sigma": -1},
))

register(Statement(
    id="bc.lemma_g4_gauss",
    source=Source(SEED, "Lemma G.4 (first claim)", "batch clipping with shuffling is G_{√(gE)/σ}-DP for every g"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f ≥ G_{√(gE)/σ}",
    params=(P_ALPHA, P_G, P_E, P_SIGMA),
    reference=lemma_g4_gauss,
    privacy=_A1,
    monotone={"alpha": -1, "g": -1, "E": -1, "sigma": +1},
    note="Valid for batch clipping (c_e² = J_e ≤ g); not for general (6) with m > 1.",
))

register(Statement(
    id="bc.lemma_g4_upper",
    source=Source(SEED, "Lemma G.4 (upper bound)", "batch clipping with shuffling: no guarantee better than fU"),
    kind="tradeoff",
    claim="upper",
    value=Value("beta", "alpha"),
    summary="f ≤ fU_{√(gE)}(α), u = P(c² < gE) exact (variant: u_E = 1 − (1 − g²/(N/s−g−g²))^E)",
    params=_G4_PARAMS,
    reference=lemma_g4_upper,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("shuffling", m=1), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_qe_conditions(1),
    variants={"printed": Variant(lemma_g4_upper_printed_u, "the text's per-epoch u = g²/(N/s − g − g²) (derived "
                                 "from the Bose–Einstein law, yet valid for the true one by the union bound), composed "
                                 "as u_E = 1 − (1 − u)^E at c_U = √(gE)",
                                 conditions=_qe_conditions(1) + (_G4_BE, _G4_U))},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="The text composes (fU_{√g})^{⊗E} (a PLD); this is the closed-form counterpart from Thm 4.5 on q_E.",
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem G.1 (summary of the cases)

def _g1_lower(alpha, case, N, m, s, g, E, sigma, printed):
    if case == "g1":
        return lemma_g2(alpha, E, sigma)
    if case == "general":
        return (lemma_g3_printed if printed else lemma_g3)(alpha, N, m, s, g, E, sigma)
    return lemma_g4_gauss(alpha, g, E, sigma)


@self_checked
def thm_g1_lower(alpha, case, N, m, s, g, E, sigma):
    """Theorem G.1 (seed 002), its guarantees: [g = 1] G_{√E/σ} (Lemma G.2), [g ≥ 1] Lemma G.3 (fL at √(gE) with
    l_E = 1 − (1 − g²ms/(N−g))^E), [general g, BC] G_{√(gE)/σ} (Lemma G.4)."""
    return _g1_lower(alpha, case, N, m, s, g, E, sigma, False)


@self_checked
def thm_g1_lower_printed(alpha, case, N, m, s, g, E, sigma):
    """Theorem G.1's guarantees as printed (seed 002): the [g ≥ 1] case read as its '≈ G_{√(gE)/σ}'."""
    return _g1_lower(alpha, case, N, m, s, g, E, sigma, True)


@self_checked
def thm_g1_upper(alpha, case, N, m, s, g, E, sigma):
    """Theorem G.1 (seed 002), its upper bounds in A1: [g = 1] G_{√E/σ} (tight), [general g, BC] Lemma G.4's fU
    (exact tail at c_U = √(gE))."""
    if case == "g1":
        return lemma_g2(alpha, E, sigma)
    return lemma_g4_upper(alpha, N, s, g, E, sigma)


def _g1_conditions(lower: bool):
    conds = [Condition.of(CASE_G1, lambda p: p["case"] != "g1" or p["g"] == 1),
             Condition.of(CASE_BC, lambda p: p["case"] != "bc" or p["m"] == 1),
             *_qe_conditions()]
    if lower:
        conds += [Condition.of(G3_N_ABOVE_G, lambda p: p["case"] != "general" or p["N"] > p["g"]),
                  Condition.of(G3_TAIL_AT_MOST_ONE, lambda p: p["case"] != "general" or (
                      p["N"] > p["g"] and g3_l(p["N"], p["m"], p["s"], p["g"]) <= 1))]
    return tuple(conds)


register(Statement(
    id="bc.thm_g1_lower",
    source=Source(SEED, "Theorem G.1 (lower bounds)", "shuffling: the [g=1], [g≥1], [general g, BC] guarantees"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="case g1: G_{√E/σ}; general: fL_{√(gE)} with l_E = 1 − (1 − g²ms/(N−g))^E; bc: G_{√(gE)/σ}",
    params=(P_ALPHA, P_G1_LOWER_CASE, P_N, P_M, P_S, P_G, P_E, P_SIGMA),
    reference=thm_g1_lower,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("shuffling"), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_g1_conditions(True),
    variants={"printed": Variant(thm_g1_lower_printed, "case general as printed, '(fL)^{⊗E} ≈ G_{√(gE)/σ}': drops the "
                                 "δ-floor 1 − (1−l)^E and, for m > 1, c² > gE is possible (notes §6 item 6)",
                                 is_bound=False, conditions=_g1_conditions(False))},
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
    note="Case bc's mixture f^{⊗E} (Lemma G.4 with q_j) is bc.lemma_g4.",
))

register(Statement(
    id="bc.thm_g1_upper",
    source=Source(SEED, "Theorem G.1 (upper bounds)", "shuffling: no guarantee better than these in model A1"),
    kind="tradeoff",
    claim="upper",
    value=Value("beta", "alpha"),
    summary="case g1: G_{√E/σ} (tight); bc: fU_{√(gE)} with u = P(c² < gE) exact",
    params=(P_ALPHA, P_G1_UPPER_CASE, P_N, P_M, P_S, P_G, P_E, P_SIGMA),
    reference=thm_g1_upper,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use("shuffling"), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=_g1_conditions(False),
    privacy=_A1,
    monotone={"alpha": -1, "sigma": +1},
))
