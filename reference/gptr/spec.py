"""The ``gptr.*`` text, seed 003 (Redberg's dissertation), chapter 3 and appendix B (generalized Propose-Test-Release;
Redberg, Zhu & Wang, "Generalized PTR: User-Friendly Recipes for Data-Adaptive Algorithms with Differential
Privacy", AISTATS 2023, arXiv 2301.00301v1): its seed, parameter domains, shared parameters, and its theorems'
conditions by name and text.

Dependency-free (the standard library and ``dpspec.reference.domains`` only): the reference (reference/gptr/*.py)
attaches mpmath predicates to the conditions (``catalogue.Condition.of``), the fast path (fast/gptr/*.py) torch
masks, so both check the same domains and raise the same words.

Conventions (seed 003, §3.3; notes shared/notes/generalized-ptr.md §2.1 and erratum E10): chapter 3 defines
replace-one neighbours, but every data-dependent bound it cites is for add/remove (Thm 3.6.1, Lemma B.4.2, Ex B.3.1)
or for one teacher changing its vote (GNMax, ℓ2 sensitivity √2); each statement says which relation it uses.
"""
from __future__ import annotations

import math

from ..domains import ALPHA, DELTA, EPS, ConditionSpec, Integer, Param, Real

SEED = "003_dabdd6bee088f80a.txt"  # chapter 3 (lines 1461–2830) and appendix B (lines 6037–7413)
SEEDS = (SEED,)

# ---------------------------------------------------------------------------------------------------------------
# Domains and parameters shared by the whole text (owned by the lead)

# δ̂ (the test's δ) and δ′ (the false-positive rate) may be 0 (δ′ = 0 is plain composition, notes §2.2 limit check);
# δ′ ≤ 1 is a probability (δ′ > 1 is refused by the domain: issue 18, "bad input").
PROBABILITY = Real(0, 1, lo_open=False, hi_open=False, scale="log", sample_lo=1e-300, sample_hi=1)
HALF_OPEN_DELTA = Real(0, 1, lo_open=False, hi_open=True, scale="log", sample_lo=1e-300, sample_hi=0.5)
POSITIVE = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1e-3, sample_hi=1e3)
NONNEGATIVE = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=1e3)
COUNT = Integer(1, math.inf, scale="log", sample_hi=10**4)

P_EPS = Param("eps", EPS, "ε ≥ 0, the budget of the mechanism M_φ", example=1)
P_DELTA = Param("delta", DELTA, "δ ∈ (0, 1)", example="1e-5")
P_EPS_HAT = Param("eps_hat", EPS, "ε̂ ≥ 0, the privacy cost of the test", example="0.5")
P_DELTA_HAT = Param("delta_hat", HALF_OPEN_DELTA, "δ̂ ∈ [0, 1), the test's δ", example="1e-6")
P_DELTA_PRIME = Param("delta_prime", PROBABILITY, "δ′ ∈ [0, 1], the test's false-positive rate", example="1e-6")
P_ALPHA = Param("alpha", ALPHA, "Rényi order α > 1", example=2)
# Used by several sections' statements (one definition each, worded for all of them):
# gptr.thm3_3_3, gptr.ex_b3_8 and the gptr.lmin_release pair (Δ, σ); gptr.thm_b3_13 (σ);
# gptr.thm3_5_6 and gptr.lemma3_6_5_coverage (δ_2).
P_SENSITIVITY = Param("sensitivity", POSITIVE, "Δ > 0, the ℓ2 sensitivity of the released statistic f", example=1)
P_SIGMA = Param("sigma", POSITIVE, "σ > 0, the standard deviation of the Gaussian noise", example=5)
P_DELTA_2 = Param("delta_2", DELTA, "δ_2 ∈ (0, 1), a failure probability: the cut-off's tail P[G > T] ≤ δ_2 "
                  "(Thm 3.5.6, Alg 5) or the miss probability P[upper < ε(α, X)] ≤ δ_2 of the private upper bound "
                  "(Lemma 3.6.5 (ii), Alg 6: δ/2)", example="5e-6")

# ---------------------------------------------------------------------------------------------------------------
# Section A (helper A: preliminaries, generalized PTR, private selection, RDP variant) — edit only inside this section

from ..domains import Choice as _Choice  # noqa: E402  (kept inside section A)

# τ ∈ (0, 1], the stopping probability of Algorithm 5's geometric G (Thm 3.5.6 prints τ ∈ [0, 1]; τ = 0 makes the
# cut-off T = log(1/δ2)/τ infinite and is refused: issue 18, "bad input").
TAU = Real(0, 1, lo_open=True, hi_open=False, scale="log", sample_lo=1e-6, sample_hi=1)
# The pass law of the test on "bad" datasets (Thm B.2.5): "equal" = every dataset with ε_φ(α, X) > ε(α) passes with
# the same probability δ′ (the theorem's own wording, "T(X) = 1 with probability δ′"); "at_most" = only a false-
# positive rate ≤ δ′ (Alg 13's wording), under which the bound is false (notes §2.5).
PASS_LAW = _Choice(("equal", "at_most"))
# Pass probabilities of the witness pairs (open: both outputs ⊥ and release have positive mass, so the pairs are
# mutually absolutely continuous and every Rényi moment is finite).
OPEN_PROBABILITY = Real(0, 1, lo_open=True, hi_open=True, scale="log", sample_lo=1e-300, sample_hi=0.5)
# Release pair of the witnesses: P-release Lap(0, 1) or N(0, 1) against the Q-release shifted by μ (scale units).
RELEASE = _Choice(("laplace", "gaussian"))
SHIFT = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=50)
# The distance to instability D_β(X) of Algorithm 3 (an integer ≥ 0; 10^6 bounds it: the pass probability is 1 − ½e^{−(εD −
# log(1/δ))} far above the threshold).
INSTABILITY_DISTANCE = Integer(0, 10**6, sample_hi=10)

P_EPS_PROFILE = Param("eps", EPS, "ε ≥ 0 at which δ(ε) is evaluated", example=1)
P_EPS_PTR = Param("eps", EPS, "ε ≥ 0 of Algorithm 3 (test Lap(1/ε), threshold log(1/δ)/ε, release Lap(β/ε); ε = 0 "
                  "is the limit that always outputs ⊥)", example="0.5")
P_DELTA_PTR = Param("delta", DELTA, "δ ∈ (0, 1) of Algorithm 3's threshold log(1/δ)/ε", example="1e-4")
P_LOCAL_SENSITIVITY = Param("local_sensitivity", NONNEGATIVE, "Δ_LS(X) = max_{X′≃X} |f(X) − f(X′)| ≥ 0", example=1)
P_PHI = Param("phi", POSITIVE, "Laplace scale φ > 0 of M_φ(X) = f(X) + Lap(φ)", example=2)
P_EPS_STAR = Param("eps_star", EPS, "ε* ≥ 0 of each call of Algorithm 4", example="0.3333")
P_DELTA_STAR = Param("delta_star", HALF_OPEN_DELTA, "δ* ∈ [0, 1) of each call of Algorithm 4", example="1.6495e-21")
P_TAU = Param("tau", TAU, "stopping probability τ ∈ (0, 1] of the geometric G", example="0.0016666666666666667")
P_K = Param("k", COUNT, "number of candidates k (each equally likely to be the best)", example=30)
P_CUTOFF = Param("T", COUNT, "the integer cut-off T ≥ 1 of Algorithm 5 (T̂ = min(T, G))", example=8705)
P_EPS_HAT_ALPHA = Param("eps_hat_alpha", EPS, "ε̂(α) ≥ 0, the RDP of the test T at α", example=2)
P_EPS_TILDE_ALPHA = Param("eps_tilde_alpha", EPS, "ε̃(α) ≥ 0, the data-independent RDP of M_φ at α", example=10)
P_EPS_ALPHA = Param("eps_alpha", EPS, "ε(α) ≥ 0, the RDP budget of M_φ on datasets that pass (ε_φ(α, X) ≤ ε(α))",
                    example="0.01")
P_PASS_LAW = Param("pass_law", PASS_LAW, "how bad datasets pass the test: 'equal' (all with probability δ′, the "
                   "theorem's hypothesis) or 'at_most' (a false-positive rate ≤ δ′ only)", default="equal",
                   example="equal")

# Thm B.2.5's hypothesis as printed in the theorem ("T(X) = 1 with probability δ′"): without it (a rate ≤ δ′, as
# Alg 13 says) two bad neighbours may pass with different probabilities and the bound fails (notes §2.5, §3.5).
EQUAL_PASS = ConditionSpec(
    "equal_pass", "every dataset X with ε_φ(α, X) > ε(α) passes the test with the same probability δ′ (pass_law = "
    "'equal'); a false-positive rate only ≤ δ′ does not suffice (erratum E1)")

# ---------------------------------------------------------------------------------------------------------------
# Section B (helper B: OPS ridge regression, GLMs, DP-PCA) — edit only inside this section

# Any real (the logistic margin s of Ex B.3.5).
REAL_LINE = Real(-math.inf, math.inf, sample_lo=-30, sample_hi=30)
# Strictly positive parameters of the regression statements (γ, L, ‖𝒳‖, R, α, σ, Δ): the shared POSITIVE domain.
# λ ≥ 0 and λ_min ≥ 0 (their sum λ* must be > 0: condition LAMBDA_STAR_POSITIVE); β ≥ 0; ‖v‖ ≥ 0.
P_GAMMA = Param("gamma", POSITIVE, "γ > 0, the inverse temperature (noise scale 1/γ) of OPS / output perturbation",
                example=1)
P_LAM = Param("lam", NONNEGATIVE, "λ ≥ 0, the proposed ridge regularisation strength", example=10)
P_LAM_MIN = Param("lam_min", NONNEGATIVE, "λ_min(XᵀX) ≥ 0 (or its private lower bound λ^P_min)", example=5)
P_L = Param("L", POSITIVE, "L > 0, the local Lipschitz constant ‖𝒳‖(‖𝒳‖‖θ*_λ‖ + ‖𝒴‖) (or its upper bound L̃)",
            example=2)
P_X_NORM = Param("x_norm", POSITIVE, "‖𝒳‖ > 0, the radius of the feature domain", example=1)
P_R_GSC = Param("R", POSITIVE, "R > 0, the (generalized) self-concordance constant (Bach's convention)", example=1)
P_L_LIP = Param("L", POSITIVE, "L > 0, the Lipschitz constant of the per-example loss", example=1)
P_BETA_SMOOTH = Param("beta", NONNEGATIVE, "β ≥ 0, the smoothness constant of the per-example loss", example="0.25")
P_BETA_GLM = Param("beta", NONNEGATIVE, "β ≥ 0, sup |l″| on the segment between the optima (1 for the squared loss)",
                   example=1)
P_ALPHA_SC = Param("alpha_sc", POSITIVE, "α > 0, the local strong convexity of F_s at θ* (λ_min + λ)",
                   example=100)
P_DELTA_PRIME_1 = Param("delta_prime_1", PROBABILITY, "δ′₁ ∈ [0, 1], failure probability of λ^P_min ≤ λ_min",
                        example="5e-7")
P_DELTA_PRIME_2 = Param("delta_prime_2", PROBABILITY, "δ′₂ ∈ [0, 1], failure probability of Δ^P ≥ Δ",
                        example="5e-7")
P_LAM_MIN_P = Param("lam_min_p", NONNEGATIVE, "λ^P_min ≥ 0, the released lower bound of λ_min(XᵀX)", example=5)
P_DELTA_P = Param("Delta_p", REAL_LINE, "Δ^P, the released upper bound of Δ = log(‖𝒴‖ + ‖𝒳‖‖θ*_λ‖)", example="0.7")
P_EPS_POSITIVE = Param("eps", POSITIVE, "ε > 0, the total budget of Alg 15 (split ε/4, ε/4, ε/2)", example=1)

# Thm 3.6.1 and Alg 14 (seed 003): the posterior covariance (γ(XᵀX + λI))⁻¹ needs λ* = λ + λ_min(X) > 0.
LAMBDA_STAR_POSITIVE = ConditionSpec("lambda_star_positive", "λ* = λ + λ_min > 0 (the OPS posterior is proper)")
# Thm 3.6.1 solved for γ (notes §2.3, §8): some γ > 0 meets ε iff the γ-free term is below ε.
# The corrected bounds use the sub-Gaussian tail 2 log(2/δ) where the text prints log(2/δ) (see reference/gptr/ops.py);
# the printed variants keep the text's form.
OPS_GAMMA_FEASIBLE = ConditionSpec(
    "gamma_feasible", "(1 + 2 log(2/δ))‖𝒳‖²/(2λ*) < ε: some γ > 0 meets the budget (else Alg 14 outputs ⊥)")
OPS_GAMMA_FEASIBLE_PRINTED = ConditionSpec(
    "gamma_feasible", "(1 + log(2/δ))‖𝒳‖²/(2λ*) < ε: some γ > 0 meets the printed bound")
# Rem B.3.7 solved for γ (notes §2.6): feasible iff α > 1.25(1 + 2 log(2/δ))/ε (printed: 1.25(1 + log(2/δ))/ε).
LOGISTIC_GAMMA_FEASIBLE = ConditionSpec(
    "gamma_feasible", "α > 1.25(1 + 2 log(2/δ))/ε: some γ > 0 meets the budget (Rem B.3.7, corrected tail)")
LOGISTIC_GAMMA_FEASIBLE_PRINTED = ConditionSpec(
    "gamma_feasible", "α > 1.25(1 + log(2/δ))/ε: some γ > 0 meets the printed Rem B.3.7")
# Thm B.3.6: the γ-free (Hessian-shape) term must cover the added point's Hessian β·xxᵀ (squared loss is R-GSC for
# every R > 0 and leaks through the covariance as R → 0).
GLM_SHAPE_TERM = ConditionSpec("shape_term", "R(L + β) ≥ β/2 (the γ-free term covers the added point's Hessian)")
# Lemma B.4.2 under add/remove: removing z lowers λ_min by up to ‖𝒳‖² (Weyl), so the removal side needs
# λ + λ_min − ‖𝒳‖² > 0.
REMOVAL_LAMBDA_POSITIVE = ConditionSpec("removal_lambda_positive",
                                        "λ + λ_min − ‖𝒳‖² > 0 (λ* after removing a point, by Weyl)")
# Lemma B.3.4(a): standard self-concordance needs R‖v‖_H < 1.
HESSIAN_STEP_SMALL = ConditionSpec("step_small", "R‖v‖_{H_θ} < 1 (Lemma B.3.4(a))")
# Thm B.3.11: λ ≥ RL (so that e^x − 1 ≤ 2x applies with x = RL/λ̃_min ≤ 1); the literal Def B.3.3 (factor 2,
# erratum E6) doubles R.
LAMBDA_AT_LEAST_RL = ConditionSpec("lambda_ge_RL", "λ ≥ RL (seed 003, Thm B.3.11)")
LAMBDA_AT_LEAST_2RL = ConditionSpec("lambda_ge_2RL", "λ ≥ 2RL (Thm B.3.11 with Def B.3.3's factor 2: R → 2R)")
# Thm B.3.13 (erratum E13): the local sensitivity √2/(d_k − 2) needs d_k > 2, the classical Gaussian ε ≤ 1.
EIGENGAP_ABOVE_TWO = ConditionSpec("eigengap_above_two", "d_k > 2 (the local sensitivity √2/(d_k − 2) is finite)")
CLASSICAL_GAUSSIAN_EPS = ConditionSpec(
    "classical_gaussian", "ε(A) = 2√log(1.25/δ)/(σ(d_k − 2)) ≤ 1 (the classical Gaussian calibration, Dwork–Roth A.1)")
P_EIGENGAP = Param("d_k", POSITIVE, "d_k = λ_k − λ_{k+1}, the k-th eigengap of AᵀA", example=50)
P_HNORM = Param("v_norm", NONNEGATIVE, "‖v‖ ≥ 0, the step (‖v‖_2 for (b), ‖v‖_{H_θ} for (a))", example="0.5")
P_MARGIN = Param("s", REAL_LINE, "s ∈ R, the margin y·xᵀθ at which l = log(1 + e^s) is evaluated", example=1)
P_GRAD = Param("g", NONNEGATIVE, "‖g‖_* ≥ 0, g ∈ ∂f(θ*)", example=1)
P_GRAD_TILDE = Param("g_tilde", NONNEGATIVE, "‖g̃‖_* ≥ 0, g̃ ∈ ∂f(θ̃*)", example=1)
P_ALPHA_F = Param("alpha_F", POSITIVE, "α > 0, strong convexity of F on the segment [θ*, θ̃*]", example=2)
P_ALPHA_FT = Param("alpha_Ft", POSITIVE, "α̃ > 0, strong convexity of F̃ = F + f on the segment", example=3)

# ---------------------------------------------------------------------------------------------------------------
# Section C (helper C: PATE, GNMax, smooth sensitivity, GNSS, binary voting) — edit only inside this section

# GNMax vote histograms (seed 003, Alg 6 line 3; Thm 3.6.4): a (T, C) matrix, one row per query, C ≥ 2 classes,
# non-negative integer counts; every row sums to the number of teachers (each teacher votes once per query). The
# neighbouring relation is "one teacher changes its votes" (ℓ2 sensitivity √2 per query; notes §2.1, erratum E10).
from ..domains import Choice, Points  # noqa: E402  (kept inside section C)

VOTES = Points()
# GNMax noise σ1 (Alg 6 input): any positive real; the statements work in log space at every scale.
GNMAX_SIGMA = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1, sample_hi=1e3)
# σ_s, σ_2 of the GNSS release (Lemma 3.6.5): any positive real (notes §5.2 uses 10–30).
GNSS_SIGMA = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1, sample_hi=1e3)
# β of the β-smooth sensitivity (Alg 6: β = 0.2/α): β > 0 (Thm 23's condition α < 1/(2β) bounds it above).
SMOOTH_BETA = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1e-6, sample_hi=0.5)
# Number of teachers K (seed 003 §3.6.2: 400). Papernot's LS-at-distance-k array has K entries; 10^6 bounds the walk.
TEACHERS = Integer(1, 10**6, scale="log", sample_hi=10**4)
# Number of GNMax queries T (seed 003 §3.6.2: T = 200).
QUERIES = Integer(1, math.inf, scale="log", sample_hi=10**4)
# Binary voting (Ex B.3.1): the signed vote gap t = n1 − n0 (any integer; |t| ≤ 10^15 voters).
VOTE_GAP = Integer(-10**15, 10**15, sample_hi=10**3)
# The binary procedures of Ex B.3.1 (notes §4).
BINARY_PROCEDURE = Choice(("gen_ptr", "classic", "laplace"))

P_VOTES = Param("votes", VOTES, "vote counts, a (T, C) matrix: one row per query, C ≥ 2 classes, each row summing "
                "to the number of teachers (a single query is one row: [[n_1, …, n_C]])",
                example=[[300, 200, 0, 0, 0, 0, 0, 0, 0, 0]])
P_GNMAX_SIGMA = Param("sigma", GNMAX_SIGMA, "GNMax noise σ1 (standard deviation added to each vote count)",
                      example=40)
P_GNMAX_ALPHA = Param("alpha", ALPHA, "Rényi order α > 1", example=22)
P_TEACHERS = Param("teachers", TEACHERS, "number of teachers K (every row of votes sums to K)", example=500)
P_QUERIES = Param("T", QUERIES, "number of GNMax queries T", example=200)
P_SIGMA_S = Param("sigma_s", GNSS_SIGMA, "σ_s, the GNSS noise multiplier of the smooth sensitivity", example=15)
P_SIGMA_2 = Param("sigma_2", GNSS_SIGMA, "σ_2, the noise multiplier of the μ = log SS_β release", example=15)
P_SMOOTH_BETA = Param("beta", SMOOTH_BETA, "β of the β-smooth sensitivity", example="0.004655")
P_EPS_PRIME = Param("eps_prime", EPS, "ε′ ≥ 0, the budget the labels' converted DP is tested against",
                    example=2)
P_VOTE_GAP = Param("t", VOTE_GAP, "vote gap t = n1(X) − n0(X) (any sign)", example=5)
P_RNM_EPS = Param("eps", EPS, "ε = 1/b, the inverse Laplace scale of report-noisy-max", example=1)
P_RNM_DELTA = Param("delta", HALF_OPEN_DELTA, "δ ∈ [0, 1): 0 gives the pure data-dependent ε of Thm B.3.2",
                    default=0, example=0)

# Conditions
VOTES_COUNTS = ConditionSpec("votes_counts", "votes is a (T, C) matrix of non-negative integer counts with T ≥ 1 "
                             "and C ≥ 2 classes, every row with the same total ≥ 1 (the teachers)")
VOTES_SUM = ConditionSpec("votes_sum", "every row of votes sums to the number of teachers K")
THM23_ORDER = ConditionSpec("thm23_order", "1 < α < 1/(2β) (Papernot et al. 2018, Thm 23; seed 003 Lemma 3.6.5)")
THM23_HALF = ConditionSpec("thm23_half", "2αβ ≤ 1/2 (where Papernot's Thm 23 closed form is proven to bound the "
                            "GNSS worst case; it fails near α = 1/(2β))")
RNM_PRINTED_GAP = ConditionSpec("printed_gap", "the printed bound is derived for t ≥ 0 (seed 003, Ex B.3.1)")
SINGLE_QUERY = ConditionSpec("single_query", "votes holds one query (one row): Papernot Prop 7 bounds one GNMax "
                             "answer")
# The GNSS witness's neighbour: SS_β(X′) = e^{dβ} SS_β(X) with d = ±1 (notes §3.12).
GNSS_DIRECTION = Integer(-1, 1)
THM6_Q0 = ConditionSpec("thm6_at_ub", "Papernot's Thm 6 conditions hold at log q = min(−(1+1/σ)², −((α−0.99)/σ)², "
                        "−1/σ²) (the start of their q0 search, arXiv 1802.08908 App. B)")
