"""The PTR text (``ptr.*``; Wang, Mahloujifar, Wang, Jia, Mittal, NeurIPS 2022): its seeds, parameter domains,
shared parameters, and its theorems' conditions by name and text.

Dependency-free (the standard library and ``dpspec.reference.domains`` only): the reference (reference/ptr/*.py)
attaches mpmath predicates to the conditions (``catalogue.Condition.of``), the fast path (fast/ptr/*.py) torch
masks, so both check the same domains and raise the same words. mpmath notation (the test threshold, f_α^{-1}, the
Laplace log-moment) is in :mod:`.notation`.

Global conventions (seed 001, §4; appendix 000, A.1): GS_f1 = GS_f2 = 1, so σ1, σ2 and b are noise-to-
sensitivity ratios; add/remove adjacency; the Theorems 4.2–4.4 assume σ1 = σ2/τ (so τ = σ2/σ1).
"""
from __future__ import annotations

import math

from ..domains import ALPHA, NOISE, Choice, ConditionSpec, Integer, Param, Real

SEED_MAIN = "001_c3b5d7d7fc0e2c16.txt"  # seed 001: main text
SEED_APPENDIX = "000_0fe14ad2f9124ea1.txt"  # seed 000: appendix
SEEDS = (SEED_APPENDIX, SEED_MAIN)

# ---------------------------------------------------------------------------------------------------------------
# Domains

# δ0 ∈ (0, 1/2]: the threshold b·ln(1/(2δ0)) of Remark 4.1(3) is ≥ 0 exactly there (seed 001, Remark 4.1(3)).
DELTA0 = Real(0, 0.5, lo_open=True, hi_open=False, scale="log", sample_lo=1e-12, sample_hi=0.5)
# Poisson subsampling rate q ∈ (0, 1) (Thm 4.4; q = 1 is the non-subsampled Thm 4.3).
Q_RATE = Real(0, 1, lo_open=True, hi_open=True, scale="log", sample_lo=1e-6, sample_hi=0.5)
# A Rényi order of any real sign (R_q^(β) is needed at β = 1−α, −α, −1−α).
ANY_ORDER = Real(-math.inf, math.inf, sample_lo=-10, sample_hi=10)
# σ1 may be +inf in the dpspec extension (textbook PTR refuses: Remark 4.1(1), "σ1 → ∞").
NOISE_OR_INF = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.05, sample_hi=100,
                    allow_inf=True)
# The proposed local-sensitivity bound τ ∈ (0, 1] of f2 in units of GS_f2 = 1 (Thm 4.3 extension).
TAU = Real(0, 1, lo_open=True, hi_open=False)
# Positive reals without a natural scale: clip norm R, unnormalised τ, β, λ, η_B (Thm 5.1, 5.2, Algorithm 3).
POSITIVE = Real(0, math.inf)
# σ_g ≥ 0, the gradient standard deviation of Theorem 5.2 (printed σ).
NONNEGATIVE = Real(0, math.inf, lo_open=False)
# Counts: n oracles and d dimensions (≥ 1); F trimmed points and r add/remove steps (≥ 0).
COUNT = Integer(1)
TRIM = Integer(0)
# α of the [ZW19] statements (ptr.zw19_upper, ptr.zw19_lower): their sum has ⌊α⌋ − 1 terms, each a Theorem 4.3
# evaluation (the fast path holds a points × ⌈α⌉ grid; the reference takes about 3 ms a term, a minute at α = 1e4
# with its self-check), so the work is bounded by refusing α above ZW19_ALPHA_MAX (before, α = 1e10 hung the
# reference and exhausted the fast path's memory). The accountant's orders stop at 256.
ZW19_ALPHA_MAX = 1e4
ZW19_ALPHA = Real(1, ZW19_ALPHA_MAX, lo_open=True, hi_open=False, scale="log", sample_lo=1 + 1e-6, sample_hi=1e4)
# T of ptr.fig3_direct: KOV15's composition holds an O(T) log-factorial table (fast) and sums O(√T)·O(log T) terms
# in mpmath (reference, 20 s at T = 1e6); T = 1e15 hung the reference and exhausted the fast path's memory.
FIG3_STEPS = Integer(1, 10**6, scale="log", sample_hi=10**4)
# Algorithm 2 line 4 (dpspec.fast.poisson_sample): n records, each sampled with probability q ∈ [0, 1] (q = 0 and
# q = 1 give the empty and the full batch); n up to 2^62 (torch sizes are int64).
SAMPLE_SIZE = Integer(0, 2**62)
SAMPLE_PROBABILITY = Real(0, 1, lo_open=False, hi_open=False)
# The Gaussian (ε, δ) of Theorem 4.2 in Fig. 3's direct route: [DR14] classical or [BW18] exact.
GAUSSIAN_ROUTE = Choice(("classical", "analytic"))

# ---------------------------------------------------------------------------------------------------------------
# Parameters shared by several statements

P_ALPHA = Param("alpha", ALPHA, "Rényi order α", example=2)
P_ALPHA_ZW19 = Param("alpha", ZW19_ALPHA, "Rényi order α (the [ZW19] sum has ⌊α⌋ − 1 terms)", example=2)
P_SIGMA1 = Param("sigma1", NOISE, "noise ratio σ1 of the f1 release (test failed)", example=8)
P_SIGMA2 = Param("sigma2", NOISE, "noise ratio σ2 of the f2 release (test passed); τ = σ2/σ1", example=4)
P_B = Param("b", NOISE, "Laplace scale b of the noisy safety margin Δ̂", example=1)
P_DELTA0 = Param("delta0", DELTA0, "δ0 = Pr[Lap(0,b) > threshold]", example="1e-8")
P_Q = Param("q", Q_RATE, "Poisson subsampling rate q", example="0.01")

# ---------------------------------------------------------------------------------------------------------------
# Conditions (names and texts; the predicates are the reference's, the masks the fast path's)

# ptr.thm4_2 and ptr.fig3_direct: the classical Gaussian mechanism [DR14, Thm A.1] needs ε_N < 1.
THM4_2_CLASSICAL = ConditionSpec("classical_gaussian", "[DR14, Thm A.1] needs ε_N = √(2 ln(1.25/δ))/σ1 < 1")
FIG3_CLASSICAL = ConditionSpec("classical_gaussian",
                               "gaussian='classical' needs √(2 ln(1.25/δ_g))/σ1 < 1 ([DR14] A.1)")

# ptr.thm4_4 (appendix 000, Theorem 4.4 full version; symbols rebuilt, notes §2.10).
THM4_4_C1 = ConditionSpec("C1", "q ≤ e^{−1/b}/(4 + e^{−1/b}), i.e. q' = q/(q + (1−q)e^{−1/b}) ≤ 1/5")
THM4_4_C2 = ConditionSpec("C2", "σ1 ≥ σ2 ≥ 4")
THM4_4_C3 = ConditionSpec("C3", "1 < α ≤ ½σ2² L − 2 ln σ2, L = ln(1 + 1/(q'(α−1)))")
THM4_4_C4 = ConditionSpec("C4", "α ≤ (½σ2² L² − ln 5 − 2 ln σ2)/(L + ln(q'α) + 1/(2σ2²))")
THM4_4_CONDITIONS = (THM4_4_C1, THM4_4_C2, THM4_4_C3, THM4_4_C4)

# ptr.lemma_a1 (appendix 000 eq. (63); [MTZ19] Thm 11).
LEMMA_A1_Q = ConditionSpec("q", "q ≤ 1/5")
LEMMA_A1_SIGMA = ConditionSpec("sigma", "σ ≥ 4")
LEMMA_A1_C3 = ConditionSpec("C3", "1 < α ≤ ½σ²L − 2 ln σ, L = ln(1 + 1/(q(α−1)))")
LEMMA_A1_C4 = ConditionSpec("C4", "α ≤ (½σ²L² − ln 5 − 2 ln σ)/(L + ln(qα) + 1/(2σ²))")
LEMMA_A1_CONDITIONS = (LEMMA_A1_Q, LEMMA_A1_SIGMA, LEMMA_A1_C3, LEMMA_A1_C4)

# ptr.zw19_lower (erratum E7's proviso).
ZW19_LOWER_CASE2_DOMINATES = ConditionSpec("case2_dominates",
                                           "T2(ℓ) ≥ T1(ℓ) for every integer 2 ≤ ℓ ≤ α (erratum E7)")

# ptr.thm5_1, variant "printed" (erratum E16).
THM5_1_PRINTED_M_GT_F = ConditionSpec("m_gt_F", "the printed formula needs m > F (erratum E16)")

# ptr.thm5_2 (appendix 000 A.4, eq. (94) and hypothesis (151)).
THM5_2_F_BELOW_HALF = ConditionSpec("F_below_half", "F < n/2 (seed 001, Theorem 5.2 informal: F < m/2)")
THM5_2_STEP_SIZE = ConditionSpec(
    "step_size", "0 < η_B < 2λ(n−2F)/(n² + (n−F+1)(n−F)β²) (eq. (94), strict so that ρ_B < 1)")
THM5_2_SIGMA2 = ConditionSpec(
    "sigma2", "σ2² ≥ ((n−F)(n+1)/n²)(((n−F)σ_g² + F R²)/d + σ1²) (eq. (151), F·R² per erratum E10)")
THM5_2_CONDITIONS = (THM5_2_F_BELOW_HALF, THM5_2_STEP_SIZE, THM5_2_SIGMA2)
