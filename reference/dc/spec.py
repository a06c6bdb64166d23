"""The ``dc.*`` text, seed 004: "Clip Body and Tail Separately: High Probability Guarantees for DPSGD with Heavy
Tails" (Sha, Cao, Liu, Wu, Liu & Chen, arXiv 2405.17529v1; discriminative clipping DP-SGD, DC-DPSGD): its seed,
parameter domains, shared parameters, and its statements' conditions by name and text.

Dependency-free (the standard library and ``dpspec.reference.domains`` only): the reference (reference/dc/*.py)
attaches mpmath predicates to the conditions (``catalogue.Condition.of``), the fast path (fast/dc/*.py) torch
masks, so both check the same domains and raise the same words.

Conventions (notes shared/notes/dc-dpsgd.md §2–§3): add/remove neighbours under Poisson subsampling with rate
q = B/n; natural logarithms (the proofs'); hat-log(x) := log^{max(0, θ−1)}(x); the paper's "ε" in the convergence
theorems is ε_dp (Appendix E, L1148). Seed-file lines are cited as ``L<n>`` (the notes' convention).
"""
from __future__ import annotations

import math

from ..domains import ALPHA, DELTA, EPS, ConditionSpec, Integer, Param, Points, Real

SEED = "004_18684d5c7944b6f0.txt"  # main text L1–L557, App. A L558–L664, B L694–L895, C L897–L1059,
#                                    D L1067–L1130, E L1134–L1651, F L1701–L1757, G L1794–
SEEDS = (SEED,)

# ---------------------------------------------------------------------------------------------------------------
# Domains and parameters shared by the whole text (owned by the lead)

POSITIVE = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1e-3, sample_hi=1e3)
NONNEGATIVE = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=1e3)
# θ of sub-Weibull(θ, K): Def A.1 takes θ > 0 (the text's "θ ≥ 0" is a typo: notes §2 Def A.1); Assumption 3.1 and
# the theorems need θ ≥ 1/2 (condition THETA_AT_LEAST_HALF).
THETA = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.05, sample_hi=20)
PROB_OPEN = Real(0, 1, lo_open=True, hi_open=True, scale="log", sample_lo=1e-300, sample_hi=0.5)
FRACTION = Real(0, 1, lo_open=False, hi_open=False, sample_lo=0, sample_hi=1)
COUNT = Integer(1, math.inf, scale="log", sample_hi=10**6)
DIMENSION = Integer(1, math.inf, scale="log", sample_hi=10**8)
SAMPLES = Points()  # a sample of nonnegative reals (e.g. gradient-noise norms), one per row

P_EPS = Param("eps", EPS, "ε ≥ 0", example=8)
P_DELTA = Param("delta", DELTA, "δ ∈ (0, 1)", example="1e-5")
P_ALPHA = Param("alpha", ALPHA, "Rényi order α > 1", example=8)
P_THETA = Param("theta", THETA, "θ > 0, the sub-Weibull index (θ = 1/2 sub-Gaussian, 1 sub-exponential)", example=1)
P_K = Param("K", POSITIVE, "K > 0, the sub-Weibull scale: E exp((|X|/K)^{1/θ}) ≤ 2 (Def A.1(4))", example=1)
P_STEPS = Param("steps", COUNT, "T ≥ 1, the number of iterations", example=9766)
P_N = Param("n", COUNT, "n ≥ 1, the dataset size", example=50000)
P_BATCH = Param("batch", COUNT, "B ≥ 1, the (expected) batch size; q = B/n", example=256)
P_Q = Param("q", Real(0, 1, lo_open=True, hi_open=False, scale="log", sample_lo=1e-6, sample_hi=1),
            "q ∈ (0, 1], the Poisson sampling rate B/n", example="0.00512")
P_D = Param("d", DIMENSION, "d ≥ 1, the number of model parameters", example=100000)
P_K_SUB = Param("k", COUNT, "k ≥ 1, the dimension of the random projection (Algorithm 1, line 6)", example=200)
P_P_TAIL = Param("p_tail", FRACTION, "p ∈ [0, 1], the fraction of a batch labelled 'tail' (Algorithm 1)",
                 example="0.1")
P_C1 = Param("c1", POSITIVE, "c1 > 0, the tail clipping threshold (large)", example=1)
P_C2 = Param("c2", POSITIVE, "c2 > 0, the body clipping threshold (small); c2 ≤ c1", example="0.1")
P_SIGMA_TR = Param("sigma_tr", POSITIVE, "σ_tr > 0, the std of the trace-score noise", example="0.8837")
P_SIGMA_DP = Param("sigma_dp", POSITIVE, "σ_dp > 0, the gradient noise multiplier (relative to c1)",
                   example="0.8837")
P_M2 = Param("m2", POSITIVE, "m2 > 0, Thm 5.1's unspecified constant (a user parameter: the text never fixes it)",
             example=4)
P_BETA = Param("beta", POSITIVE, "β > 0, the smoothness of the loss (Assumption 3.2)", example=1)
P_G = Param("G", POSITIVE, "G > 0, the gradient bound of Assumption 3.3 (‖∇L‖² ≤ G)", example=1)
P_LOSS_GAP = Param("loss_gap", POSITIVE, "ΔL = L_S(w_1) − min L_S > 0", example=1)

# Conditions used by several sections (one definition each, worded for all of them)
THETA_AT_LEAST_HALF = ConditionSpec("theta_at_least_half", "θ ≥ 1/2 (Assumption 3.1; seed 004 L117)")
C2_AT_MOST_C1 = ConditionSpec("c2_at_most_c1", "c2 ≤ c1 (the body threshold does not exceed the tail threshold; "
                              "Algorithm 1, L190)")
DELTA_AT_MOST_2_OVER_E = ConditionSpec("delta_at_most_2_over_e", "δ ≤ 2/e, so that log(2/δ) ≥ 1 (used by the "
                                       "proofs of Thms B.1 and E.1; notes §6 E18)")

# ---------------------------------------------------------------------------------------------------------------
# Section A (helper A: sub-Weibull facts, Def A.1, Lemmas A.1–A.9, the θ test) — edit only inside this section
from ..domains import Choice as _ChoiceA  # noqa: E402  (section A's own import: the shared import line is the lead's)

UNIT_OPEN_CLOSED = Real(0, 1, lo_open=True, hi_open=False, scale="log", sample_lo=1e-3, sample_hi=1)
AT_LEAST_ONE = Real(1, math.inf, lo_open=False, hi_open=True, scale="log", sample_lo=1, sample_hi=1e3)
P_T = Param("t", POSITIVE, "t > 0, the level of the tail bound P(|X| > t) (Def A.1(1))", example=3)
P_P_MOMENT = Param("p", POSITIVE, "p > 0, the moment order (Lemma A.6; Def A.1(2) takes p ≥ 1)", example=2)
P_K_SUM = Param("K_sum", POSITIVE, "Σ_i K_i > 0, the sum of the summands' sub-Weibull scales (Lemma A.2)", example=20)
P_X_LEVEL = Param("x", NONNEGATIVE, "x ≥ 0, the level the sum exceeds (Lemmas A.2, A.3)",
                  example=100)
P_LAMBDA_F = Param("lam", NONNEGATIVE, "λ ≥ 0, the exponential-moment parameter of Freedman's bound (Lemma A.3)",
                   example="0.005")
P_ALPHA_F = Param("alpha_f", POSITIVE, "α > 0, the slope of the variance-proxy event of Lemma A.3 (E_k)", example=50)
P_BETA_F = Param("beta_f", NONNEGATIVE, "β ≥ 0, the variance proxy of Lemma A.3 (Σ a K²_{i−1} ≤ α Σ ξ_i + β)",
                 example=1000)
P_M_MAX = Param("m_max", NONNEGATIVE, "max_i m_i ≥ 0, the bound on the scales K_{i−1} ≤ m_i (Lemma A.3, θ > 1/2)",
                example=1)
P_EVENT = Param("event", _ChoiceA(("E", "F")), "which event of Lemma A.3: E (eqs. 3/5/7, variance proxy ≤ αΣξ + β) "
                "or F (eqs. 4/6/8, variance proxy ≤ β)", default="E", example="E")
P_RHO = Param("rho", UNIT_OPEN_CLOSED, "ρ ∈ (0, 1], the trade-off parameter of Lemma A.4", example="0.5")
P_VAR_SUM = Param("var_sum", NONNEGATIVE, "σ_n² ≥ 0, the sum of the conditional variances (Lemma A.4)", example=10)
P_XI_BOUND = Param("xi_bound", POSITIVE, "b > 0, the bound |ξ_k − E_{z_k} ξ_k| ≤ b (Lemma A.4)", example=1)
P_V_NORM = Param("v_norm", NONNEGATIVE, "‖∇L_S(w)‖₂ ≥ 0 (Lemma A.5's v)", example=1)
P_DEV_NORM = Param("dev_norm", NONNEGATIVE, "‖g − ∇L_S(w)‖₂ ≥ 0 (Lemma A.5)", example="0.1")
P_SCALE_W = Param("scale", POSITIVE, "λ > 0, the scale of the Weibull law (shape 1/θ) whose tail I(x) = (x/λ)^{1/θ} "
                  "captures (Lemmas A.7/A.8)", example=1)
P_M_IID = Param("m", COUNT, "m ≥ 1, the number of i.i.d. summands (Lemmas A.7–A.9)", example=100)
P_ETA = Param("eta", UNIT_OPEN_CLOSED, "η ∈ (0, 1], the free parameter of Lemmas A.7/A.8 (the text's '∀β ∈ (0, 1]')",
              example="0.5")
P_X_MEAN = Param("x", NONNEGATIVE, "x ≥ 0, the mean deviation level: P(S_m − ES_m > m x) (Lemma A.7)", example=2)
P_T_DEV = Param("t", POSITIVE, "t > 0, the mean deviation level: P(S_m > m t) (Lemma A.8)", example=1)
P_MU_AW = Param("mu", Real(0, 1, lo_open=True, hi_open=True, scale="log", sample_lo=1e-3, sample_hi=1),
                "μ ∈ (0, 1), the deviation level of Ahlswede–Winter (Lemma A.9)", example="0.5")
P_R_AW = Param("R", AT_LEAST_ONE, "R ≥ 1, the bound ‖Y‖₂ ≤ R (Lemma A.9)", example=1)
P_SAMPLES = Param("samples", SAMPLES, "a sample x_1..x_N (one column; |x_i| is used, as Def A.1 bounds |X|), e.g. "
                  "gradient-noise norms ‖∇ℓ(w_t, z_i) − ∇L_S(w_t)‖ at a fixed w_t", example="[0.5, 1.2, 2.0, 0.1, 3.3]")

SAMPLES_ONE_COLUMN = ConditionSpec("samples_one_column", "the sample has N ≥ 1 points, one column (a sample of "
                                   "reals; notes §2-test)")
A3_LAMBDA_RANGE = ConditionSpec("lemma_a3_lambda_range", "λ ≤ 1/(2α) for the event E (eqs. 3, 5, 7), and for the event "
                                "F λ ≤ 1/(b·max m_i) when θ > 1/2 (eqs. 6, 8) (seed 004 Lemma A.3, L604–L636)")
A3_ALPHA_RANGE = ConditionSpec("lemma_a3_alpha_range", "α ≥ b·max m_i for the event E when θ > 1/2 (eqs. 5, 7; seed "
                               "004 Lemma A.3, L615, L626)")
TAIL_AT_MOST_LINEAR = ConditionSpec("tail_at_most_linear", "θ ≥ 1, so that I(x) = (x/λ)^{1/θ} = O(x) as x → ∞ "
                                    "(Lemma A.7's hypothesis on I, seed 004 L648–L653)")
XMAX_FINITE = ConditionSpec("xmax_finite", "η < 1 (at η = 1 v(L, η) grows without bound in L for the Weibull law — "
                            "like L²/(θ − 1) for θ > 1, L³ at θ = 1 — so x_max = ∞ and (10) says nothing; Lemma A.7)")

# ---------------------------------------------------------------------------------------------------------------
# Section B (helper B: privacy — Thm 5.1, Claims C(1)–C(3), the three sound readings, witness pairs) — edit only
# inside this section
# (notes dc-dpsgd.md §2 Thm 5.1, §3, §6 E1–E4/E6–E8/E22; seed 004 L174, L897–L1059)
from ..domains import Choice as _ChoiceB  # noqa: E402  (section B's own import: the shared import line is the lead's)

READING = _ChoiceB(("A", "B", "C"))  # notes §3.4: (A) internal top-pB, (B) fixed threshold, (C) two-component view
NOISE_FORM = _ChoiceB(("single", "per_sample", "published"))  # notes §3.2: one vector σc1, Alg. 1 literal, the code's
SELECTION = _ChoiceB(("fixed", "recomputed"))  # Claim C(2)'s neighbour: tail/body assignment held fixed or recomputed
PLD_STEPS_DC = Integer(1, 64, scale="log", sample_hi=64)  # the mpmath PLD reference composes at most 64 steps
PLD_SIGMA_DC = Real(0.5, math.inf, lo_open=False, hi_open=True, scale="log", sample_lo=0.5, sample_hi=100)
PLD_DELTA_DC = Real(0.99e-10, 1, lo_open=False, hi_open=True, scale="log", sample_lo=1e-10, sample_hi=0.5)

P_READING = Param("reading", READING, "sound reading of the selection step (notes §3.4): A internal top-pB "
                  "(Δ_gp = 2c1 − c2), B fixed threshold (Δ_gp = c1), C two-component (TS released, Δ_tr, Δ_gp = c1)",
                  example="B")
P_NOISE_FORM = Param("noise", NOISE_FORM, "gradient-noise form (notes §3.2): single N(0, σ²c1²I) on the sum, "
                     "Algorithm 1's per-sample noise, or the public code's", default="single")
P_SELECTION = Param("selection", SELECTION, "neighbour model of Claim C(2): the tail/body assignment fixed, or "
                    "recomputed on D' (one other sample may move tail → body)", default="fixed")
P_DELTA_TR = Param("delta_tr", POSITIVE, "Δ_tr > 0, the ℓ2 sensitivity of the released score vector (1; 1/k for the "
                   "1/k-averaged V; √2 with the code's batch normalisation; notes §3.1, §3.4 C)", default=1)
# The accountant statements (dc.reading_*, dc.thm5_1_total, dc.implied_m2) take every q ∈ (0, 1], 1 ≤ T ≤ 1e6,
# δ ∈ (0, 1), σ > 0 (their documented domain); their Monte Carlo and property points are DRAWN from narrower ranges, because one value is a certified RDP
# order search over base.sgm_rdp (seconds at the paper's sizes, minutes at σ = 0.001, q = 1e-7, T = 1e6): the base
# statements (base.sgm_rdp, base.rdp_to_dp) are conformance-checked over their whole ranges themselves.
Q_DRAWN = Real(0, 1, lo_open=True, hi_open=False, scale="log", sample_lo=1e-4, sample_hi=1)
STEPS_DRAWN = Integer(1, 10**6, scale="log", sample_hi=10**4)  # T ≤ 1e6: the documented range of these statements
DELTA_DRAWN = Real(0, 1, lo_open=True, hi_open=True, scale="log", sample_lo=1e-12, sample_hi=0.5)
SIGMA_DRAWN = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.3, sample_hi=30)
P_Q_ACC = Param("q", Q_DRAWN, P_Q.doc, example="0.00512")
P_STEPS_ACC = Param("steps", STEPS_DRAWN, P_STEPS.doc, example=9766)
P_DELTA_ACC = Param("delta", DELTA_DRAWN, P_DELTA.doc, example="1e-5")
P_SIGMA_DP_ACC = Param("sigma_dp", SIGMA_DRAWN, P_SIGMA_DP.doc, example="0.8837")
P_SIGMA_TR_ACC = Param("sigma_tr", SIGMA_DRAWN, P_SIGMA_TR.doc, example="0.8837")
P_SIGMA_NOISE = Param("sigma", SIGMA_DRAWN, "σ > 0, the noise multiplier of the T-fold subsampled Gaussian",
                      example="0.8837")
P_EPS_THM51 = Param("eps", POSITIVE, "ε > 0 (Thm 5.1 divides by ε)", example=8)
P_M1 = Param("m1", POSITIVE, "m1 > 0, Thm 5.1's unspecified constant of the side condition ε ≤ m1 q² T", example=100)
P_EPS_TR = Param("eps_tr", POSITIVE, "ε_tr > 0, the trace-sorting budget of Thm 5.1", example=4)
P_EPS_DP = Param("eps_dp", POSITIVE, "ε_dp > 0, the gradient-perturbation budget of Thm 5.1", example=4)
# ε of the base mechanism: every ε ≥ 0; drawn from [0.01, 20] (at ε → 0 the witness's calibrated σ → ∞: σ ≈ 1e10,
# where the harness's tilted base.sgm check overflows its float64 bound — a harness limit, reported, not a domain one)
P_EPS_BASE = Param("eps", Real(0, math.inf, lo_open=False, hi_open=True, scale="log", sample_lo=1e-2, sample_hi=20),
                   "ε ≥ 0 of the base (not subsampled) mechanism M", example=4)
P_DELTA_BASE = Param("delta", Real(0, 1, lo_open=False, hi_open=False, scale="log", sample_lo=1e-12, sample_hi=0.5),
                     "δ ∈ [0, 1] of the base mechanism M", example="1e-5")
P_STEPS_PLD = Param("steps", PLD_STEPS_DC, "T ∈ [1, 64] (the mpmath PLD composes exactly; larger T: the fast PLD)",
                    example=16)
P_SIGMA_DP_PLD = Param("sigma_dp", PLD_SIGMA_DC, "σ_dp ≥ 0.5 (the PLD reference's noise domain, on σ_eff)",
                       example=1)
P_DELTA_PLD = Param("delta", PLD_DELTA_DC, "δ ≥ 1e-10 (the PLD reference's δ domain)", example="1e-5")
P_GRID_STEP = Param("grid_step", Real(0.125, 1, lo_open=False, hi_open=False, scale="log"),
                    "PLD loss-grid step D (base.pld_sgm_epsilon)", default="0.125")

P_P_TAIL_DEFAULT = Param("p_tail", FRACTION, "p ∈ [0, 1], the tail fraction (the printed Claim C(2) and the "
                         "per-sample/published noise forms only; the paper's experiments use p = 0.1)", default="0.1")
P_BATCH_DEFAULT = Param("batch", COUNT, "B ≥ 1, the batch size (the per-sample noise form only)", default=256)

EPS_AT_MOST_M1_Q2_T = ConditionSpec("eps_at_most_m1_q2_T", "ε ≤ m1·q²·T (Thm 5.1's side condition; seed 004 L174)")
EPS_PARTS_AT_MOST_M1_Q2_T = ConditionSpec("eps_parts_at_most_m1_q2_T", "ε_tr ≤ m1·q²·T and ε_dp ≤ m1·q²·T (Thm 5.1's "
                                          "side condition; seed 004 L174)")
DELTA_BELOW_ONE = ConditionSpec("delta_below_one", "δ < 1, so that ln(1/δ) > 0 (Thm 5.1's σ² ∝ ln(1/δ))")
SIGMA_EFF_IN_PLD_DOMAIN = ConditionSpec("sigma_eff_in_pld_domain", "σ_eff ≥ 0.5 (the PLD reference's noise domain, "
                                        "base.pld_sgm_epsilon)")

# ---------------------------------------------------------------------------------------------------------------
# Section C (helper C: convergence — Thms 4.1/B.1, 5.2/D.1, 5.3/E.1, 5.4/F.1, Table 1, Assumptions 3.2–3.3) — edit
# only inside this section
# (notes dc-dpsgd.md §2 Table 1, Thm 4.1, B.1, 5.2/D.1, 5.3/E.1, 5.4/F.1, §5.6, §6 E5, E9–E11, E13–E18, E21, §8;
# seed 004 L137–L157, L210–L254, L694–L895, L1067–L1130, L1134–L1757)
from ..domains import Choice as _ChoiceC  # noqa: E402  (section C's own import: the shared import line is the lead's)

# The convergence bounds are closed forms in T; the theory sets T = nε/√(d log(1/δ)) (Thm B.1, L694), which is not an
# integer (186.4 at the notes' §2 parameters), so these statements accept a real T ≥ 1 under the shared name "steps".
STEPS_REAL = Real(1, math.inf, lo_open=False, hi_open=True, scale="log", sample_lo=1, sample_hi=1e8)
THRESHOLD_CASE = _ChoiceC(("auto", "K_ge_sigma_hat", "K_le_sigma_hat"))
WHICH_THRESHOLD = _ChoiceC(("c1", "c2"))
TABLE1_ROW = _ChoiceC(("yang2022", "bu2024", "zhou2021", "madden2020", "li_liu2022", "li_liu2022_clipped",
                       "our_dpsgd", "our_dc_dpsgd"))
TABLE1_COLUMN = _ChoiceC(("dpsgd", "sgd"))
RATE_REGION = _ChoiceC(("tail", "body"))
# the thresholds threshold_c knows (reference/dc/thresholds.py, fast/dc/convergence.py)
THRESHOLD_THEOREMS = ("thm4_1", "thm_b1", "thm5_3_c1", "thm5_3_c2", "thm_e1_c1", "thm_e1_c2", "thm_e1_c2_end",
                      "thm_f1_c1", "thm_f1_c2")

P_STEPS_REAL = Param("steps", STEPS_REAL, "T ≥ 1, the number of iterations; a real T is accepted (the theory's "
                     "T = nε/√(d log(1/δ)), Thm B.1 L694, is not an integer)", example=9766)
P_EPS_POS = Param("eps", POSITIVE, "ε > 0, the privacy budget (ε_dp in the convergence theorems, L1148; the bounds "
                  "divide by nε)", example=8)
P_CLIP = Param("c", POSITIVE, "c > 0, the clipping threshold (free in the inequalities (40) and (86)/(87))",
               example=3000)
P_CONSTANT = Param("constant", POSITIVE, "the O(·)'s multiplicative constant (unspecified in the text)", default=1)
P_CASE = Param("case", THRESHOLD_CASE, "which case of the threshold (θ = 1/2; every θ for E.1's c2): K ≥ σ̂_dp, "
               "K ≤ σ̂_dp, or auto (the case that holds at σ̂_dp evaluated at its own c; notes §6 E15)",
               default="auto")
P_WHICH = Param("which", WHICH_THRESHOLD, "c1 (heavy tail) or c2 (light body)", example="c1")
P_REGION = Param("region", RATE_REGION, "the heavy-tail (c1) or light-body (c2) region of Thm 5.3/E.1",
                 example="body")
P_ROW = Param("row", TABLE1_ROW, "the row of Table 1 (L139–L153)", example="our_dpsgd")
P_COLUMN = Param("column", TABLE1_COLUMN, "the DPSGD or SGD column of Table 1", default="dpsgd")
P_DELTA_M = Param("delta_m", PROB_OPEN, "δ_m ∈ (0, 1), Thm 5.2's failure probability of Ahlswede–Winter",
                  example="0.01")
P_DELTA_NOISE = Param("delta_noise", PROB_OPEN, "δ_tr ∈ (0, 1), Thm 5.2's failure probability of the trace-noise "
                      "tail (the text's δ_tr; not the sensitivity Δ_tr of section B)", example="1e-5")
P_DELTA_M_PRIME = Param("delta_m_prime", PROB_OPEN, "δ'_m = δ_m + δ_tr ∈ (0, 1), the identification error "
                        "probability of eq. (102)", example="0.01")
P_SAMPLES_XY = Param("samples", SAMPLES, "a least-squares data set, one row (x_i, y_i) per example: the features "
                     "then the response in the last column", example="[[1, 0, 0.5], [0, 1, -0.2], [1, 1, 1.0]]")
P_RADIUS = Param("radius", POSITIVE, "R > 0, the radius of the parameter domain ‖w‖₂ ≤ R", example=1)

THETA_ABOVE_HALF = ConditionSpec("theta_above_half", "θ > 1/2 (the heavy-tailed case of Thms B.1/E.1, and the "
                                 "crossover of notes §6 E9)")
THETA_IS_HALF = ConditionSpec("theta_is_half", "θ = 1/2 (the sub-Gaussian sub-cases (41)/(43), (88)–(94))")
THRESHOLD_CASE_CONSISTENT = ConditionSpec(
    "threshold_case_consistent", "the case K ≥ σ̂_dp or K ≤ σ̂_dp that selects c holds at σ̂_dp evaluated at that c, "
    "σ̂_dp² = m2·T·d·c²·B²·log(1/δ)/(n²ε²) (Thms B.1/E.1, L694, L1148; the split is circular, notes §6 E15)")
EQ40_COEFFICIENT_POSITIVE = ConditionSpec(
    "eq40_coefficient_positive", "c/3 − (19/3)K log^θ(2/δ) − 4√e σ̂_dp log^{1/2}(1/δ) > 0, the coefficient (40) "
    "divides by (seed 004 L855; notes §6 E15)")
EQ86_COEFFICIENT_POSITIVE = ConditionSpec(
    "eq86_coefficient_positive", "c/3 − (16/3)√(2a)K log^{1/2 or θ}(2/δ) − 4√e σ̂_dp log^{1/2}(1/δ) > 0, the "
    "coefficient (86)/(87) divide by (seed 004 L1498–L1512; notes §2 Thm E.1)")
AW_MU_BELOW_ONE = ConditionSpec("aw_mu_below_one", "k > 4 log(2d/δ_m), i.e. Ahlswede–Winter's μ = 2√(log(2d/δ_m)/k) "
                                "< 1 (Lemma A.9, L662; Thm 5.2's (51)–(53))")
LEAST_SQUARES_ROWS = ConditionSpec("least_squares_rows", "the data set has n ≥ 1 rows of d + 1 ≥ 2 columns "
                                   "(features, then the response)")
TABLE1_CELL_PRINTED = ConditionSpec("table1_cell_printed", "Table 1 prints a rate for this row and column (its "
                                   "cells marked × or left empty have none; L139–L153)")
# Case B of Thms B.1/E.1 divides by c/3 − … − 4√e σ̂_dp log^{1/2}(1/δ): at the §2 parameters (n = 5·10⁴) σ̂_dp ≈ 10²c
# and the coefficient is negative for every c, so those statements' examples take a large n (σ̂_dp ≪ c).
P_N_CASE_B = Param("n", COUNT, "n ≥ 1, the dataset size (example 10¹²: σ̂_dp ≪ c, else (40)/(86) have a negative "
                   "coefficient)", example=10**12)
P_THETA_HALF = Param("theta", THETA, "θ > 0, the sub-Weibull index (these sub-cases need θ = 1/2)", example="0.5")
EQ43_EXAMPLE_NOTE = ("(43)'s case K ≤ σ̂_dp with a positive coefficient needs σ̂_dp ≥ K while 4√e σ̂_dp log^{1/2}(1/δ) "
                     "< c/3 − (19/3)K log^{1/2}(2/δ): only for T ≳ e^{122} at δ = 0.7 (the example)")
P_STEPS_E43 = Param("steps", STEPS_REAL, "T ≥ 1 (real); " + EQ43_EXAMPLE_NOTE, example="1e54")
P_N_E43 = Param("n", COUNT, "n ≥ 1, the dataset size (example: σ̂_dp/c ≈ 0.032 at the T example)",
                example=18600000000000000000000000000)
P_DELTA_E43 = Param("delta", DELTA, "δ ∈ (0, 1) (example 0.7 ≤ 2/e)", example="0.7")
P_UNIT_M2 = Param("m2", POSITIVE, "m2 > 0, Thm 5.1's unspecified constant", example=1)
P_UNIT_D = Param("d", DIMENSION, "d ≥ 1, the number of model parameters", example=1)
P_UNIT_BATCH = Param("batch", COUNT, "B ≥ 1, the (expected) batch size", example=1)
P_UNIT_EPS = Param("eps", POSITIVE, "ε > 0 (ε_dp)", example=1)
EQ90_EXAMPLE_NOTE = ("(90)/(94)'s case K ≤ σ̂_dp with a positive coefficient (86)/(87) needs T ≳ e^{249} at θ = 1/2, "
                     "δ = 0.7 (the example)")
P_STEPS_E90 = Param("steps", STEPS_REAL, "T ≥ 1 (real); " + EQ90_EXAMPLE_NOTE, example="1e110")
P_N_E90 = Param("n", COUNT, "n ≥ 1, the dataset size (example: σ̂_dp/c ≈ 0.0226 at the T example)",
                example=264000000000000000000000000000000000000000000000000000000)
P_STEPS_E96 = Param("steps", STEPS_REAL, "T ≥ 1 (real); (96)'s coefficient with the 4^θK of (85) is positive only "
                    "where the T-part of c dominates: T ≳ e^{16.8} at θ = 1, δ = 0.7 (the example)", example="1e8")

# ---------------------------------------------------------------------------------------------------------------
# Section E (helper E: Algorithm 1, the sound variants and the public code, the training operator) — edit only inside
# this section

from ..domains import Choice as _Choice  # noqa: E402  (section E's own import: the shared import line is the lead's)

# The three sound readings of the selection step are section B's READING (notes §3.4 Step 2): "A" top-⌊pB⌋ kept
# internal (Δ_gp = 2c1 − c2), "B" a fixed, data-independent score threshold τ (Δ_gp = c1; the operator's default),
# "C" the two-component view (noisy scores released, Δ_tr/σ_tr and c1/σ_dp composed in μ on the same subsample).
# Algorithm 1 line 6 (L199): V Vᵀ = (1/k) Σ v_i v_iᵀ as printed ("averaged", scores in [0, 1/k]) or Vᵀ V = I_k as
# Theorem 5.2 assumes (L212; "orthonormal", scores in [0, 1]).
PROJECTION_FORM = _Choice(("orthonormal", "averaged"))
# The gradient noise: one N(0, σ_dp² c1² I) on the clipped sum (sound, notes §4.4) or Algorithm 1 line 10's per-sample
# N(0, c_i² σ_dp² I) (L202–L203; not covered by any accountant: variance mismatch, notes §3.2).
STEP_NOISE = _Choice(("single", "per_sample"))
# The public code's trace-noise std (notes §4.3): σ (models/DP-CNN-based) or σ/B (the other scripts).
PUBLISHED_TRACE_NOISE = _Choice(("sigma", "sigma_over_B"))
K_AT_MOST_D = ConditionSpec("k_at_most_d", "k ≤ d (k orthonormal columns of the projection V ∈ R^{d×k}; Algorithm 1 "
                            "line 6, L199)")

# ---------------------------------------------------------------------------------------------------------------
# Section G (session 18, helper G: Definition 3.1 realised, reading C in the slot model) — edit only inside this
# section (reference/dc/definition.py, reference/dc/slot_model.py; seed 004 L107, notes §3.1, §3.4 (C))
from ..domains import Choice as _ChoiceG  # noqa: E402  (section G's own import: the shared import line is the lead's)

DEF_DIRECTION = _ChoiceG(("max", "remove", "add"))  # Def 3.1's two orders of a neighbouring pair, and their maximum
P_EPS_DEF = Param("eps", EPS, "ε ≥ 0, the privacy budget of Definition 3.1 (eq. (2))", example=1)
P_DELTA_TR_DEF = Param("delta_tr", NONNEGATIVE, "Δ_tr ≥ 0, the ℓ2 shift of the released trace scores (0: scores kept "
                       "internal, readings A and B; 1 orthonormal V; 1/k averaged V)", default=1)
P_DELTA_GP_DEF = Param("delta_gp", POSITIVE, "Δ_gp/c1 > 0, the gradient sum's shift in c1 units (1: c1, readings B "
                       "and the slot model; 2 − c2/c1: readings A and C)", default=1)
P_DIRECTION_DEF = Param("direction", DEF_DIRECTION, "remove: (P, Q) = (law with z, law without); add: swapped; max: "
                        "both orders (Definition 3.1 quantifies over every ordered neighbouring pair)", default="max")
