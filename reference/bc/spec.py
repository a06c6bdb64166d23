"""The ``bc.*`` text, seed 002 (van Dijk, Nguyen, Nguyen, Nguyen, "Generalizing DP-SGD with Shuffling and Batch
Clipping", arXiv 2212.05796; f-DP accounting in the A1 adversarial model): its seeds, parameter domains, shared
parameters, and the conditions of Algorithm 1 by name and text.

Dependency-free (the standard library and ``dpspec.reference.domains`` only): the reference (reference/bc/*.py)
attaches mpmath predicates to the conditions (``catalogue.Condition.of``), the fast path (fast/bc/*.py) torch masks,
so both check the same domains and raise the same words.

Units (notes shared/notes/batch-clipping-fdp.md, "Notation"): normalised, so one round with k differentiating subsets
is G_{k/σ}; c² = Σ_rounds k_r²; q_E is the law of c² (seed 002, Def. 4.1). A round has m subsets of s samples (batch
size ms); R = N/(ms) rounds per epoch, T = E·R rounds in all (Algorithm 1). The noise is N(0, (2Cσ)²I), so σ is the
noise multiplier of a round whose sensitivity is 2C (seed 002, §4 and D.4).
"""
from __future__ import annotations

import math

from ..domains import DELTA, Choice, ConditionSpec, Integer, Param, Points, Real

SEED = "002_5bf9d068e79d7537.txt"
SEEDS = (SEED,)

# ---------------------------------------------------------------------------------------------------------------
# Domains

# The sampler of Algorithm 1 (Sample_{s,m}): subsampling (SS: an independent uniform ms-subset per round, split at
# random into m subsets of s) or shuffling (SH: one random permutation per epoch, cut into N/(ms) disjoint batches).
SAMPLINGS = ("subsampling", "shuffling")
SAMPLING = Choice(SAMPLINGS)
# Counts. The sample ranges keep random draws of the conformance harness cheap (q_E is exact: its cost grows with
# T = E·N/(ms) and with min(m, g)); the domains themselves are unbounded.
DATASET_SIZE = Integer(1, math.inf, scale="log", sample_hi=2000)
SUBSETS = Integer(1, math.inf, sample_hi=8)  # m, subsets per round
SUBSET_SIZE = Integer(1, math.inf, sample_hi=8)  # s, samples per subset
GROUP_SIZE = Integer(1, math.inf, sample_hi=4)  # g, differentiating samples (group privacy)
EPOCHS = Integer(1, math.inf, scale="log", sample_hi=20)  # E ≥ 1 (E = 0 is refused by the domain)
# c² (a value of the support of q_E, an integer Σ_k c_k k²) and j (an occupancy count of G.3).
C_SQUARED = Integer(0, math.inf, sample_hi=200)
OCCUPANCY = Integer(0, math.inf, sample_hi=8)
# The noise multiplier σ > 0 (the domain of NOISE); random draws from 0.25 (the paper's experiments use σ = 2): below,
# one round's G_{1/σ} is nearly blatant non-privacy (f values far below 10^-1000), and the exact reference spends its
# time in thousand-digit arithmetic there without testing anything the wider draws do not.
NOISE_MULTIPLIER = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.25, sample_hi=100)
# Cut points c_U, c_L of Defs. 4.3/4.4 in c units (not squared) and the tail masses u, l.
CUT = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.1, sample_hi=100)
TAIL = Real(0, 1, lo_open=False, hi_open=False, sample_lo=0, sample_hi=1)
# Which part of q_E bc.def4_1 returns: the mass at c², the tail strictly below, or the tail strictly above.
QE_PART = Choice(("at", "below", "above"))

# ---------------------------------------------------------------------------------------------------------------
# Parameters shared by several statements (names fixed by the contract of this text: every layer and the CLI)

P_SAMPLING = Param("sampling", SAMPLING, "Sample_{s,m} of Algorithm 1: subsampling or shuffling",
                   example="subsampling")
P_N = Param("N", DATASET_SIZE, "data set size N", example=400)
P_M = Param("m", SUBSETS, "m, subsets per round (s = 1: individual clipping; m = 1: batch clipping)", example=4)
P_S = Param("s", SUBSET_SIZE, "s, samples per subset", example=1)
P_G = Param("g", GROUP_SIZE, "g, group size (number of differentiating samples)", example=1)
P_E = Param("E", EPOCHS, "E, epochs (T = E·N/(ms) rounds)", example=4)
P_SIGMA = Param("sigma", NOISE_MULTIPLIER, "noise multiplier σ (noise N(0, (2Cσ)²I))", example=1)
P_C2 = Param("c2", C_SQUARED, "a value c² = Σ_k c_k k² of the support of q_E", example=4)
P_J = Param("j", OCCUPANCY, "j, the number of distinct batches of one epoch hit by the g samples", example=2)
P_C_U = Param("c_U", CUT, "cut point c_U (in c units, not squared)", example=2)
P_C_L = Param("c_L", CUT, "cut point c_L (in c units, not squared)", example=2)
P_U = Param("u", TAIL, "tail mass u = Σ_{c < c_U} q_E(c)", example="0.05")
P_L = Param("l", TAIL, "tail mass l = Σ_{c > c_L} q_E(c)", example="0.05")
P_DELTA = Param("delta", DELTA, "δ ∈ (0, 1)", example="1e-5")
P_QE_PART = Param("part", QE_PART, "at: q_E(c2); below: Σ_{c² < c2} q_E; above: Σ_{c² > c2} q_E (+ dropped mass)",
                  default="at", example="at")

# The five parameters that fix q_E, in catalogue order (after the sampler).
QE_PARAMS = (P_SAMPLING, P_N, P_M, P_S, P_G, P_E)

# ---------------------------------------------------------------------------------------------------------------
# Conditions (names and texts; the predicates are the reference's, the masks the fast path's)

BATCH_FITS = ConditionSpec("batch_fits", "s·m ≤ N (a round's batch of ms samples is drawn from the N samples)")
GROUP_FITS = ConditionSpec("group_fits", "g ≤ N (the g differentiating samples are among the N samples)")
ROUNDS_INTEGER = ConditionSpec("rounds_integer", "N/(s·m) is an integer (Algorithm 1, T = E·N/(ms))")
QE_CONDITIONS = (BATCH_FITS, GROUP_FITS, ROUNDS_INTEGER)


# ---------------------------------------------------------------------------------------------------------------
# Appendices F and G (bc.lemma_f*, bc.cor_f*, bc.thm_f1*, bc.lemma_g*, bc.thm_g1*): their extra domains, parameters
# and conditions, moved here verbatim from reference/bc/spec_appendix.py (helper B's) so that this module is the one
# source of the text's condition words (tests/spine/test_layout.py). Notes §2.12, §2.13, §6 item 13.

# γ > 0 of Lemma F.7 (β = e^{N/(N−g−m)} + γ, l = e^{−γgE}).
GAMMA = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.01, sample_hi=10)
# μ > 0, the limit of √E/σ in Corollary F.3.
LIMIT_MU = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.05, sample_hi=10)

P_GAMMA = Param("gamma", GAMMA, "γ > 0 of Lemma F.7 (β = e^{N/(N−g−m)} + γ, l = e^{−γgE})", example=1)
P_LIMIT_MU = Param("mu", LIMIT_MU, "μ = lim √E/σ (Corollary F.3)", example=1)

# The cases of Theorem F.1 (seed 002, App. F): lower bounds [g = 1] (= Lemma F.6), [general g, IC] (= Lemma F.7),
# [general g, BC] (= Lemma F.9); upper bounds [g = 1] and [general g, BC]. The [g = 1, IC] case is the A0 trade-off
# C_{m/N}(G_{1/σ})^{⊗(N/m)E} of [2] Thm 5.1, which the reference does not evaluate (a PLD; fast/base/pld.py).
THM_F1_LOWER_CASE = Choice(("g1", "ic", "bc"))
THM_F1_UPPER_CASE = Choice(("g1", "bc"))
# The cases of Theorem G.1 (seed 002, App. G): lower bounds [g = 1] (= Lemma G.2), [g ≥ 1] (= Lemma G.3),
# [general g, BC] (G_{√(gE)/σ}, Lemma G.4); upper bounds [g = 1] (tight: G_{√E/σ}) and [general g, BC] (Lemma G.4).
THM_G1_LOWER_CASE = Choice(("g1", "general", "bc"))
THM_G1_UPPER_CASE = Choice(("g1", "bc"))
P_F1_LOWER_CASE = Param("case", THM_F1_LOWER_CASE, "which case of Theorem F.1: g1 (F.6), ic (F.7), bc (F.9)",
                        example="g1")
P_F1_UPPER_CASE = Param("case", THM_F1_UPPER_CASE, "which case of Theorem F.1: g1 (F.6), bc (F.9)", example="g1")
P_G1_LOWER_CASE = Param("case", THM_G1_LOWER_CASE, "which case of Theorem G.1: g1 (G.2), general (G.3), bc (G.4)",
                        example="g1")
P_G1_UPPER_CASE = Param("case", THM_G1_UPPER_CASE, "which case of Theorem G.1: g1 (G.2), bc (G.4)", example="g1")

# ---------------------------------------------------------------------------------------------------------------
# Conditions

# Lemma F.7: β = e^{N/(N−g−m)} + γ needs N − g − m > 0 (and the F.4 derivation divides by it).
F7_N_LARGE = ConditionSpec("n_exceeds_g_plus_m", "N − g − m > 0 (Lemma F.7: β = e^{N/(N−g−m)} + γ)")
# Theorem F.1 / G.1 cases and the clipping they are stated for.
CASE_G1 = ConditionSpec("case_g1", "the g = 1 cases need g = 1")
CASE_IC = ConditionSpec("case_ic", "the individual-clipping case needs s = 1")
CASE_BC = ConditionSpec("case_bc", "the batch-clipping case needs m = 1")
# Lemma G.3 (and the G.2 counting): l = g²ms/(N − g) needs N > g; it is a probability bound only if ≤ 1.
G3_N_ABOVE_G = ConditionSpec("n_exceeds_g", "N > g (l = g²ms/(N − g), Lemma G.3)")
G3_TAIL_AT_MOST_ONE = ConditionSpec("tail_at_most_one",
                                    "g²ms/(N − g) ≤ 1 (Lemma G.3's l is a probability bound; the G.2 Bernoulli step)")
# Lemma G.4 (and the G.3 q_j count): g ≤ s; u = g²/(N/s − g − g²) needs N/s > g + g².
G4_GROUP_IN_BATCH = ConditionSpec("g_at_most_s", "g ≤ s (Lemma G.4 and the q_j count of G.3)")
G4_U_POSITIVE = ConditionSpec("u_defined", "N/s > g + g² (Lemma G.4: u = g²/(N/s − g − g²) > 0)")


def batch_fits(N, m, s) -> bool:
    """s·m ≤ N (exact integer arithmetic; shared by the reference's predicate and the fast path's check)."""
    return int(s) * int(m) <= int(N)


def group_fits(N, g) -> bool:
    """g ≤ N."""
    return int(g) <= int(N)


def rounds_integer(N, m, s) -> bool:
    """ms divides N."""
    return int(N) % (int(s) * int(m)) == 0



# ---------------------------------------------------------------------------------------------------------------
# The supported size of the exact q_E (both paths refuse beyond it, with the same words)
#
# q_E is computed exactly (reference: rationals and fixed-point big integers; fast path: log-space convolutions), so
# its cost grows with the width of the law of c² and, for shuffling, with one epoch's generating function. Both paths
# estimate these sizes from the parameters alone, before any work, and refuse with a ParameterError beyond the limits
# below (an edge search found E = 10^9 running for minutes). The estimate: a round's L is at most K', the number of
# the g samples in its batch (hypergeometric, mean λ = g·ms/N), so E[c²] ≤ T·E[K'²] ≈ T(λ + λ²) and the standard
# deviation is about √(T·E[K'⁴]); the law is kept to about 40 standard deviations around its mean.

MAX_QE_SUPPORT = 200_000  # estimated support points of q_E (reference: ~4 s at 10^5 points, g = 1)
MAX_EPOCH_TABLE = 40_000  # (g + 1)·(g·min(m, g) + 1) entries of one shuffling epoch's table (g = m = 32: 33 825, ~4 s)


def qe_size(sampling, N, m, s, g, E) -> tuple[float, int]:
    """(estimated number of support points of the exact q_E, entries of one shuffling epoch's generating-function
    table — 0 for subsampling) for counts that passed their domains and Algorithm 1's conditions."""
    N, m, s, g, E = int(N), int(m), int(s), int(g), int(E)
    k = min(m, g)
    T = E * (N // (m * s))
    lam = g * (m * s) / N
    mean = T * (lam + lam * lam)
    fourth = lam + 7 * lam ** 2 + 6 * lam ** 3 + lam ** 4  # E[K'^4] of a Poisson(λ) (hypergeometric: smaller)
    width = mean + 40 * math.sqrt(T * fourth) + k * k + 1
    table = (g + 1) * (g * k + 1) if sampling == "shuffling" else 0
    return width, table


def qe_too_large(sampling, N, m, s, g, E) -> str:
    """'' when the exact q_E is within the supported size; otherwise the refusal's words (both paths raise a
    ParameterError with them)."""
    width, table = qe_size(sampling, N, m, s, g, E)
    where = f"sampling={sampling}, N={N}, m={m}, s={s}, g={g}, E={E}"
    if width > MAX_QE_SUPPORT:
        return (f"the exact q_E at {where} spans about {width:.3g} values of c² (E[c²] ≈ E·g·(1 + g·ms/N)); the "
                f"supported size is {MAX_QE_SUPPORT:,} (reference/bc/spec.py MAX_QE_SUPPORT)")
    if table > MAX_EPOCH_TABLE:
        return (f"the exact shuffling q_E at {where} needs one epoch's generating function with {table:,} entries "
                f"((g + 1)·(g·min(m, g) + 1)); the supported size is {MAX_EPOCH_TABLE:,} "
                "(reference/bc/spec.py MAX_EPOCH_TABLE)")
    return ""


# ---------------------------------------------------------------------------------------------------------------
# Lemma C.5 standalone (bc.lemma_c5) and Appendix E's filtered round (bc.app_e_round_profile); session 18

# Lemma C.5's mixture: an (n, 2) array of rows (q_i, μ_i), the weights and Gaussian means of f_i = G_{μ_i}.
COMPONENTS = Points()
P_COMPONENTS = Param("components", COMPONENTS, "rows (q_i, μ_i): weights and means of the Gaussian components G_{μ_i}",
                     example="[[0.5, 1], [0.5, 2]]")
C5_WEIGHTS = ConditionSpec("weights_are_a_law", "q_i ≥ 0 and Σ q_i = 1 (to 1e-12: the weights are read as floats)")
C5_MEANS = ConditionSpec("means_positive", "μ_i > 0 for every component (Lemma C.5; μ_i = 0 is not covered)")
C5_NONEMPTY = ConditionSpec("components_given", "at least one component, each row (q_i, μ_i)")
# Appendix E: k differentiating subsets in a round, each kept with probability ½.
FILTERED_SUBSETS = Integer(1, math.inf, sample_hi=8)
P_K = Param("k", FILTERED_SUBSETS, "k, differentiating subsets in the round (each kept with probability ½)",
            example=2)


def components_ok(arr) -> tuple[bool, bool, bool]:
    """(rows of two, weights a law, means positive) of an already parsed (n, d) array (shared by both paths)."""
    shaped = arr.ndim == 2 and arr.shape[0] >= 1 and arr.shape[1] == 2
    if not shaped:
        return False, False, False
    q, mu = arr[:, 0], arr[:, 1]
    return True, bool((q >= 0).all() and abs(q.sum() - 1) <= 1e-12), bool((mu > 0).all())
