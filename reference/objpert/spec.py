"""The ``objpert.*`` text, seed 003 (Redberg's dissertation), chapters 2 and 4 with appendices A and C (objective
perturbation): chapter 2 = Redberg & Wang, "Privately Publishable Per-instance Privacy", NeurIPS 2021 (arXiv
2111.02281v1): the exact ex-post per-instance DP of objective perturbation and its private privacy reports;
chapter 4 = Redberg, Koskela & Wang, "Improving the Privacy and Practicality of Objective Perturbation for
Differentially Private Linear Learners", NeurIPS 2023 (arXiv 2401.00583v1): its (ε, δ) profile, RDP, dominating pair
and approximate minima perturbation with clipping. Its seed, parameter domains, shared parameters, and its theorems'
conditions by name and text.

Dependency-free (the standard library and ``dpspec.reference.domains`` only): the reference (reference/objpert/*.py)
attaches mpmath predicates to the conditions (``catalogue.Condition.of``), the fast path (fast/objpert/*.py) torch
masks, so both check the same domains and raise the same words.

Conventions (notes objpert-pdp.md and objpert-rdp.md): add/remove neighbours (Def 2.2.1, Def 4.2.1); the data obey
‖x‖ ≤ 1, |y| ≤ 1; the loss is convex, twice differentiable, unconstrained (Θ = R^d); ObjPert releases
argmin Σ ℓ(θ; z) + (λ/2)‖θ‖² + bᵀθ with b ~ N(0, σ² I_d). The printed numbers keep the two chapters apart
(objpert.thm2_3_1 is chapter 2, objpert.thm4_3_1 chapter 4); chapter 2's errata are objpert.E1–E21 (notes
objpert-pdp.md §6), chapter 4's objpert.E4_1–E4_25 (notes objpert-rdp.md §6, "E4_" for the chapter).
"""
from __future__ import annotations

import math

from ..domains import ALPHA, DELTA, EPS, Choice, ConditionSpec, Integer, Param, Points, Real

SEED = "003_dabdd6bee088f80a.txt"  # chapter 2 (lines 245–1460), appendix A (4050–6036), chapter 4 (2831–4052),
#                                    appendix C (7419–11390)
SEEDS = (SEED,)

# ---------------------------------------------------------------------------------------------------------------
# Domains and parameters shared by the whole text (owned by the lead)

POSITIVE = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1e-3, sample_hi=1e3)
NONNEGATIVE = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=1e3)
# ρ, a failure probability of a high-probability bound (ex-post reports, confidence bounds): ρ ∈ (0, 1).
FAILURE = Real(0, 1, lo_open=True, hi_open=True, scale="log", sample_lo=1e-300, sample_hi=0.5)
COUNT = Integer(1, math.inf, scale="log", sample_hi=10**4)
DIMENSION = Integer(1, math.inf, scale="log", sample_hi=10**4)
# Datasets as points: one row per record, the features x (‖x‖ ≤ 1) followed by the label y in the last column.
RECORDS = Points()

P_EPS = Param("eps", EPS, "ε ≥ 0", example=1)
P_DELTA = Param("delta", DELTA, "δ ∈ (0, 1)", example="1e-5")
P_ALPHA = Param("alpha", ALPHA, "Rényi order α > 1", example=2)
P_RHO = Param("rho", FAILURE, "ρ ∈ (0, 1), the failure probability of the high-probability bound", example="1e-6")
P_SIGMA = Param("sigma", POSITIVE, "σ > 0, the standard deviation of objective perturbation's noise b ~ N(0, σ² I_d)",
                example=5)
P_LAM = Param("lam", POSITIVE, "λ > 0, the ridge regulariser (λ/2)‖θ‖² of the perturbed objective", example=20)
P_BETA = Param("beta", NONNEGATIVE, "β ≥ 0, the smoothness of the loss: f'' ≤ β (GLM), ∇²ℓ ⪯ βI", example=1)
P_L = Param("L", POSITIVE, "L > 0, the Lipschitz constant of the loss: ‖∇ℓ(θ; z)‖ ≤ L", example=1)
P_DIM = Param("d", DIMENSION, "d ≥ 1, the dimension of θ", example=10)

LAMBDA_ABOVE_BETA = ConditionSpec("lambda_above_beta", "λ > β (the Jacobian term a = −log(1 − β/λ) is finite; "
                                  "seed 003 Thm 4.3.1, Thm 4.3.2, Thm 4.4.1, Thm C.5.1)")

# ---------------------------------------------------------------------------------------------------------------
# Section A (helper A: chapter 4 core — profile, RDP, lower bound, dominating pair, composition, non-GLM) — edit only
# inside this section

# The α = 1 limit (KL divergence) of Thm 4.3.2's RDP curve as its own statement: the order is the single point 1.
ALPHA_ONE = Real(1, 1, lo_open=False, hi_open=False, sample_lo=1, sample_hi=1)
# ‖x‖ of the differing record (Lemma C.4.3's per-instance profile): the data obey ‖x‖ ≤ 1.
X_NORM_UNIT = Real(0, 1, lo_open=False, hi_open=False, sample_lo=0, sample_hi=1)
# The type-I error of a trade-off function (Lemma C.4.6's f(α)).
TYPE_I = Real(0, 1, lo_open=False, hi_open=False, sample_lo=0, sample_hi=1)
# k of the k-fold composition (Lemma C.4.7): k = 1, 2 are closed form / quadrature, k ≥ 3 a PLD sandwich whose
# grid grows with k (the reference bounds its work at k ≤ 32).
K_FOLD = Integer(1, 32, sample_hi=8)
# Hölder exponent p ∈ (1, ∞) of the (unproven, E4_8) linearised bound C.3.1.
HOLDER_P = Real(1, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1 + 1e-3, sample_hi=1e3)
# Lemma C.10.15's t: E e^{t z²} is finite iff t < 1/(2s²); a parameter t ≥ 0.
MGF_T = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=10)

P_ALPHA_ONE = Param("alpha", ALPHA_ONE, "α = 1: the KL divergence (the α → 1 limit of the RDP curve)", example=1)
P_X_NORM_UNIT = Param("x_norm", X_NORM_UNIT, "‖x‖ ∈ [0, 1] of the differing record (Lemma C.4.3)",
                      example="0.5")
# Lemma C.4.3 scales the loss's derivative bound by ‖x‖: its L bounds |f'| (the GLM's scalar loss), not ‖∇ℓ‖ =
# |f'|·‖x‖. With L a bound on ‖∇ℓ‖ the lemma fails for ‖x‖ < 1 (f(u) = 10u, ‖x‖ = 0.1: ‖∇ℓ‖ = 1, ObjPert is the
# Gaussian mechanism with Δ = σ = 1, δ(0.5) = 0.2384 > 0.0750; erratum objpert.E4_20).
P_L_FPRIME = Param("L", POSITIVE, "L > 0 with |f'(u; y)| ≤ L for the GLM's scalar loss f (the lemma's ‖x‖L bounds "
                   "‖∇ℓ‖ = |f'|‖x‖; not a bound on ‖∇ℓ‖ alone: erratum objpert.E4_20)", example=1)
P_TYPE_I = Param("alpha", TYPE_I, "type-I error α ∈ [0, 1] of the trade-off function", example="0.05")
P_K = Param("k", K_FOLD, "k ≥ 1 compositions of ObjPert (k ≤ 32: a bound on the reference's work)", example=2)
P_MGF_T = Param("t", MGF_T, "t ≥ 0, the MGF argument of Lemma C.10.15", example="0.1")
P_MGF_S = Param("s", POSITIVE, "s > 0, the standard deviation of x, y, z ~ N(0, s²) (Lemma C.10.15)", example=1)

MGF_FINITE = ConditionSpec("mgf_finite", "t < 1/(2s²) (E e^{t z²} with z ~ N(0, s²) is finite; seed 003 Lemma "
                           "C.10.15)")

# ---------------------------------------------------------------------------------------------------------------
# Section B (helper B: chapter 4 — AMP / Algorithm 7, clipped loss, optimisation facts, excess risk, calibration) —
# edit only inside this section

# Algorithm 7 / Algorithm 16 (seed 003 Thm 4.4.1, Thm C.6.1), the clipped loss (Thm C.6.2/C.6.3), App. C.7–C.8.
P_SIGMA_OUT = Param("sigma_out", POSITIVE, "σ_out > 0, the standard deviation of AMP's output noise N(0, σ_out² I_d)",
                    example=0.15)
P_TAU = Param("tau", NONNEGATIVE, "τ ≥ 0, the gradient-norm threshold ‖∇L^P(θ̃)‖ ≤ τ of the approximate minimiser",
              example=0.01)
P_CLIP = Param("C", POSITIVE, "C > 0, the clipping threshold of the per-example gradient norm (Algorithm 7)",
               example=1.4142135623730951)
# Calibration (notes objpert-rdp.md §4 A4): ε > 0 up to 50 (λ starts at 2β/ε; beyond ~50 the RDP→DP search and the
# ×1.05 λ grid are outside what Sec. 4.5 uses, ε ∈ [0.025, 8]).
CALIBRATION_EPS = Real(0, 50, lo_open=True, hi_open=False, scale="log", sample_lo=0.01, sample_hi=10)
P_EPS_CALIBRATION = Param("eps", CALIBRATION_EPS, "target ε ∈ (0, 50]", example=1)
P_F_FACTOR = Param("f", Real(1, math.inf, lo_open=False, hi_open=True, sample_lo=1, sample_hi=10),
                   "f ≥ 1, the accepted ratio σ/σ_G to the analytic Gaussian noise (Sec. 4.5: f = 1.3)", default=1.3,
                   example=1.3)
P_LOSS_CLIPPED = Param("loss", Choice(("logistic", "logistic01", "squared")),
                       "the GLM loss f(u; y): logistic (labels ±1), logistic01 (labels {0, 1}), squared (u − y)²/2",
                       example="logistic")
P_X_NORM = Param("x_norm", POSITIVE, "‖x‖ > 0, the feature norm of the record", example=1)
P_LABEL = Param("y", Real(-1, 1, lo_open=False, hi_open=False), "the label y (|y| ≤ 1)", example=1)
P_COUNT_N = Param("n", COUNT, "n ≥ 1, the number of records", example=1000)
P_DIST0 = Param("dist0", POSITIVE, "‖θ_0 − θ*‖ > 0, the initial distance to the minimiser of the perturbed objective",
                example=1)
P_SUBOPT0 = Param("subopt0", NONNEGATIVE, "f(θ_0) − f* ≥ 0, the initial suboptimality", example=1)
P_GAMMA = Param("gamma", POSITIVE, "γ > 0, the target gradient norm ‖∇f(θ)‖ ≤ γ (App. C.7; τ of Algorithm 7)",
                example="1e-3")
P_ITERS = Param("T", Integer(0, math.inf, scale="log", sample_hi=10**7), "T ≥ 0, the number of SAG iterations",
                example=100000)
P_C_UNIV = Param("C_univ", POSITIVE, "the universal constant of Thm C.7.1 (existence: unspecified in the text)",
                 example=1)
P_FAIL = Param("delta", FAILURE, "δ ∈ (0, 1), the failure probability of the termination guarantee", example="1e-3")
P_THETA_NORM = Param("theta_norm", NONNEGATIVE, "‖θ*‖ ≥ 0, the norm of the (non-private) empirical risk minimiser",
                     example=1)

LAMBDA_AT_LEAST_BETA = ConditionSpec("lambda_at_least_beta", "λ ≥ β (seed 003 Thm C.7.1)")
BETA_POSITIVE = ConditionSpec("beta_positive", "β > 0 (the bound of seed 003 Thm C.7.1 has log(nβ·…); at β = 0 it is "
                              "vacuous)")
GD_PRINTED_REGIME = ConditionSpec("lambda_at_most_n_beta", "λ ≤ nβ (the simplified count (2nβ/λ)·log(…) of seed 003 "
                                  "App. C.7 uses log(1 + x) ≥ x/2 at x = λ/(nβ) ≤ 1)")
LABEL_CODING = ConditionSpec("label_coding", "the label fits the loss: y ∈ {−1, 1} (logistic), y ∈ {0, 1} "
                             "(logistic01), |y| ≤ 1 (squared)")
CALIBRATION_BETA_POSITIVE = ConditionSpec("calibration_beta_positive", "β > 0 (the Sec. 4.5 search starts at "
                                          "λ = max(2β/ε, 1.05β); at β = 0 it has no start)")
AMP_CALIBRATION_FEASIBLE = ConditionSpec(
    "calibration_feasible", "f·σ_G exceeds σ_∞, the noise needed as λ → ∞ (ObjPert RDP with a = 0, no τ term): "
    "otherwise the Sec. 4.5 search (λ ×1.05 until σ ≤ f·σ_G) never ends")

# ---------------------------------------------------------------------------------------------------------------
# Section C (helper C: chapter 2 core — Kifer's calibration, exact ex-post pDP, data-independent bounds, Gaussian
# mechanism pDP) — edit only inside this section

# ε1 > 0 of Kifer et al.'s calibration (σ ∝ 1/ε1 and λ ≥ 2β/ε1 are infinite at ε1 = 0).
EPS_POSITIVE_C = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1e-3, sample_hi=20)
LOSS_NAMES_C = ("logistic", "squared", "logcosh")  # reference/objpert/losses.py LOSSES (logcosh: L = β = 1); logistic01
#   is logistic under y ↦ (y + 1)/2, left out so that one records example serves every option
MAX_REFERENCE_DIM_C = 64  # the mpmath reference of the ex-post pDP (d×d solves at 50+ digits) refuses larger d

P_EPS1_C = Param("eps", EPS_POSITIVE_C, "ε1 > 0, the target DP level of objective perturbation", example=1)
P_XI_C = Param("xi", POSITIVE, "ξ > 0, the gradient bound ‖∇ℓ(θ; z)‖ ≤ ξ (logistic with ‖x‖ ≤ 1: ξ = 1)", example=1)
P_BETA_KIFER_C = Param("beta", NONNEGATIVE, "β ≥ 0, the smoothness bound ∇²ℓ(θ; z) ⪯ βI (logistic: β = 1/4)",
                     example=0.25)
P_LAM_KIFER_C = Param("lam", POSITIVE, "λ > 0, the ridge regulariser of the perturbed objective", example=0.5)
P_RECORDS_C = Param("records", RECORDS, "the dataset D: n rows (x, y), features x (‖x‖ ≤ 1) then the label y; "
                  "contains the target row when member = in; d ≤ 64 (mpmath reference)",
                  example=[[1, 0, 1], [0, 1, -1]])
P_TARGET_C = Param("target", RECORDS, "the target individual z = (x, y), one row of d + 1 numbers",
                   example=[[0.6, 0.8, 1]])
P_THETA_C = Param("theta", RECORDS, "the released θ̂P ∈ R^d, one row (any θ is the minimiser for b = −∇J(θ; D))",
                example=[[0.3, -0.2]])
P_LOSS_C = Param("loss", Choice(LOSS_NAMES_C), "the GLM loss f(xᵀθ; y): logistic (labels ±1), squared ((u − y)²/2), "
                 "logcosh (log cosh u, y ignored)", default="logistic",
               example="logistic")
P_MEMBER_C = Param("member", Choice(("out", "in")), "out: z ∉ D, D' = D + z (s = +1); in: z ∈ D, D' = D − z (s = −1)",
                 default="out", example="out")
P_SIGMA_C = Param("sigma", POSITIVE, "σ > 0, the standard deviation of the noise", example=1)
P_LAM_C = Param("lam", POSITIVE, "λ > 0, the ridge regulariser of the perturbed objective", example=1)
P_EIGS_C = Param("eigs", RECORDS, "the eigenvalues λ_j ≥ 0 of the per-example Hessian ∇²ℓ(θ̂P; z), one per row "
               "(GLM: the single value f''·‖x‖²)", example=[[0.25]])
P_GRAD_ROW_C = Param("grad", RECORDS, "the per-example gradient ∇ℓ(θ̂P; z) = f'(xᵀθ̂P; y)·x as one row of d numbers",
               example=[[0.6, 0.8]])
P_RHO_C = Param("rho", FAILURE, "ρ ∈ (0, 1), the failure probability over the noise b", example=0.01)
P_O_ROW_C = Param("o", RECORDS, "the released output o ∈ R^d, one row", example=[[0.3, 0.5]])
P_QD_C = Param("q_d", RECORDS, "Q(D) ∈ R^d, the query on D, one row", example=[[0, 0]])
P_DELTA_VEC_C = Param("delta_vec", RECORDS, "Δ_z = Q(D ± z) − Q(D) ∈ R^d, one row", example=[[1, 0]])
P_DELTA_NORM_C = Param("Delta", NONNEGATIVE, "‖Δ_z‖ = ‖Q(D ± z) − Q(D)‖ ≥ 0, the per-instance ℓ2 sensitivity", example=1)
P_COUNT_Q_C = Param("count", Real(-math.inf, math.inf, sample_lo=-100, sample_hi=100),
                "Q(D), the counting query's value on D (an integer in the text's example)", example=0)
P_OUT_1D_C = Param("o", Real(-math.inf, math.inf, sample_lo=-100, sample_hi=100), "the released o = Q(D) + N(0, σ²)",
                 example=0.1)

KIFER_LAMBDA_C = ConditionSpec("kifer_lambda", "λ ≥ 2β/ε1 (seed 003 Thm 2.2.5, Thm 4.2.8; Kifer et al. 2012)")
EIGS_BELOW_LAMBDA_C = ConditionSpec("eigs_below_lambda", "λ > λ_j for every eigenvalue λ_j of ∇²ℓ(θ̂P; z) (the "
                                  "printed bound −Σ log(1 − λ_j/λ) is finite; missing in seed 003 Thm 2.3.3, "
                                  "notes objpert-pdp.md E5)")
TARGET_IN_RECORDS_C = ConditionSpec("target_in_records", "member = in: the target is a record of D (D' = D − z; "
                                  "seed 003 Def 2.2.1)")
# The data requirements of the ex-post statements (a Points domain accepts any (m, d) array of finite reals, so every
# requirement on the shapes and values of records / target / theta / eigs / grad / o / q_d / delta_vec is a
# condition; both paths refuse with these words, kept short: a ConditionError naming all five stays under the
# 600-character limit of the edge search's message check).
EXPOST_SHAPES_C = ConditionSpec("expost_shapes", "theta (1, d), d ≥ 1; target (1, d + 1); records (n, d + 1), n ≥ 0 "
                                "(x then y; [] = none)")
EXPOST_DIM_C = ConditionSpec("expost_dim", f"d ≤ {MAX_REFERENCE_DIM_C} (the mpmath reference's limit)")
FEATURES_IN_BALL_C = ConditionSpec("features_in_ball", "‖x‖ ≤ 1 (+1e-12) for target and records (seed 003 "
                                   "§2.2.3)")
LABELS_FOR_LOSS_C = ConditionSpec("labels_for_loss", "labels y suit the loss: ±1 logistic, {0, 1} logistic01, "
                                  "|y| ≤ 1 others (§2.2.3)")
EIGS_NONNEGATIVE_C = ConditionSpec("eigs_nonnegative", "every λ_j ≥ 0 (the Hessian ∇²ℓ(θ̂P; z) of a convex loss is "
                                   "positive semidefinite; seed 003 Thm 2.3.3)")
GRAD_ROW_C = ConditionSpec("grad_row", "grad is one vector ∇ℓ(θ̂P; z) ∈ R^d, d ≥ 1: one row (or one column, read as "
                           "a row); seed 003 Thm 2.3.4")
GAUSS_VECTORS_C = ConditionSpec("gauss_vectors", "o, q_d and delta_vec are each one vector of R^d (one row, or one "
                                "column read as a row) of the same dimension d ≥ 1; seed 003 Thm A.6.1")

# ---------------------------------------------------------------------------------------------------------------
# Section D (helper D: chapter 2 — privacy reports, Algorithms 2, 8–11, their privacy and accuracy) — edit only inside
# this section

P_SIGMA2 = Param("sigma2", POSITIVE, "σ2 > 0, the noise of the gradient release (Algorithm 10: e ~ N(0, σ2² I_d))",
                 example=5)
P_SIGMA3 = Param("sigma3", POSITIVE, "σ3 > 0, the noise of the Hessian release (Algorithm 11: H + (Z + Zᵀ)/√2, "
                 "Z_ij ~ N(0, σ3²))", example="0.5")
P_SIGMA4 = Param("sigma4", POSITIVE, "σ4 > 0, the noise of the smallest-eigenvalue release (Algorithm 8: "
                 "λ_min(H) + N(0, σ4²))", example=1)
P_XI = Param("xi", NONNEGATIVE, "ξ ≥ 0, the gradient sensitivity: sup_z ‖∇ℓ(θ̂P; z)‖ for DP, or one target's "
             "‖∇ℓ(θ̂P; z)‖ = |f'(xᵀθ̂P; y)|·‖x‖ for pDP", example=1)
P_HBETA = Param("beta", NONNEGATIVE, "β ≥ 0, the Hessian sensitivity: sup_z ‖∇²ℓ(θ̂P; z)‖_F (≤ the smoothness for a "
                "GLM with ‖x‖ ≤ 1) for DP, or one target's f''(xᵀθ̂P; y)·‖x‖² for pDP", example="0.25")
P_HX = Param("hx", NONNEGATIVE, "f''(xᵀθ̂P; y)·‖x‖² = ‖∇²ℓ(θ̂P; z)‖_F ≥ 0, one target's Hessian sensitivity",
             example="0.25")
P_RHO_MAX = Param("rho_max", POSITIVE, "ρ_max = sup_z ‖∇²ℓ(θ̂P; z)‖_F > 0 (Cor A.3.6's name for β; not the failure "
                  "probability ρ)", example="0.25")
P_EPS_CAL = Param("eps", Real(0, 1, lo_open=True, hi_open=True, sample_lo=1e-3, sample_hi=0.999),
                  "ε ∈ (0, 1), the target of the classical Gaussian calibration σ = (ρ_max/ε)√(2 log(1.25/δ))",
                  example="0.5")
P_EPS1BAR = Param("eps1bar", NONNEGATIVE, "ε̄1 = |T1| + T2 + |T3| ≥ 0, the sum of the absolute values of the three "
                  "terms of the exact ex-post pDP (Cor 2.3.2; the printed forms read it as ε1 = |T1 + T2 + T3|)",
                  example="0.3")
P_GRAD = Param("grad", NONNEGATIVE, "|f'(xᵀθ̂P; y)|·‖x‖ ≥ 0, the target's gradient norm (‖·‖₁ in Prop A.3.5's part "
               "'domain')", example="0.5")
P_LAM_MIN = Param("lam_min", POSITIVE, "λ_min(H) > 0, the smallest eigenvalue of H = Σ_i ∇²ℓ(θ̂P; z_i) + λI",
                  example=40)
P_LAM_HAT = Param("lam_hat", POSITIVE, "λ̂ = max{λ, λ̂P_min − σ4 Φ⁻¹(1 − ρ/2)} > 0, Algorithm 9's lower confidence "
                  "bound of λ_min(H)", example=20)
P_ESTIMATOR = Param("estimator", Choice(("standard", "regularised")), "Algorithm 9's leverage estimator: 'standard' "
                    "xᵀĤ⁻¹x (λ̂ ≥ 2τσ3) or 'regularised' xᵀ(Ĥ + τσ3 I)⁻¹x", example="regularised")
P_USERS = Param("n", COUNT, "n ≥ 1, the number of users the report must hold for simultaneously", example=1000)
P_PART = Param("part", Choice(("users", "domain")), "Prop A.3.5's part: 'users' (all n users of D, Algorithm 2 "
               "DATA-DEP) or 'domain' (all x ∈ X, third term replaced by |f'|·‖x‖₁√(2 log(2d/ρ))/σ)", example="users")

# d for the statements that need the exact GOE quantile τ(d, ρ) (reference/objpert/goe.py): the same range as section
# E's GOE_DIMENSION (defined below; the exact law is computed for d ≤ 100), sampled up to 20 (a quantile costs seconds).
REPORT_DIMENSION = Integer(1, 100, scale="log", sample_hi=20)
P_REPORT_DIM = Param("d", REPORT_DIMENSION, "d ∈ [1, 100], the dimension of θ (the exact GOE quantile τ(d, ρ) is "
                     "computed for d ≤ 100)", example=5)

GOE_REQUIREMENT = ConditionSpec("lam_above_goe", "λ ≥ 2σ3·τ(d, ρ), τ = F⁻¹_{λ1 GOE(d)}(1 − ρ/2) for the GOE "
                                "(Z + Zᵀ)/√2 (seed 003, Algorithm 2's Require; then λ_min(H) ≥ λ ≥ 2σ3τ as Prop A.5.1 "
                                "needs — printed with σ2 there, erratum E12)")
LAMMIN_ABOVE_GOE = ConditionSpec("lam_min_above_goe", "λ_min(H) ≥ 2σ3·τ(d, ρ), τ = F⁻¹_{λ1 GOE(d)}(1 − ρ/2) "
                                 "(seed 003, Prop A.5.1 with σ3 for the printed σ2, erratum E12; Thm A.3.3)")
LAMBDA_TWICE_BETA = ConditionSpec("lam_at_least_2beta", "λ ≥ 2β (so that f''µP ≤ β/λ ≤ 1/2 and the report's "
                                  "−log(1 − f''µP) is finite; used by the proofs of Thm 2.3.5 and Thm A.3.3, missing "
                                  "from both statements: errata E9, E13)")
LAMMIN_ABOVE_2BETA = ConditionSpec("lam_min_at_least_2beta", "λ_min(H) ≥ 2β (seed 003, Thm A.3.3)")
LAMHAT_ACCURATE = ConditionSpec("sigma4_small", "σ4·Φ⁻¹(1 − ρ/2) ≤ λ_min(H)/4 (so that λ̂ ≥ λ_min(H)/2 on the "
                                "event of Prop A.3.2; used by the proof of Thm A.3.3, missing from it: erratum E13)")
LAMMIN_ABOVE_LAM = ConditionSpec("lam_min_at_least_lam", "λ_min(H) ≥ λ (H = Σ_i ∇²ℓ + λI with convex ℓ)")
STANDARD_ESTIMATOR = ConditionSpec("standard_needs_margin", "λ̂ ≥ 2τσ3 for the standard estimator (seed 003, "
                                   "Algorithm 9 / Prop A.3.2 (iii); the proof needs only λ̂ > τσ3)")

# ---------------------------------------------------------------------------------------------------------------
# Section E (helper E: the GOE largest-eigenvalue law, Lemmas A.4.2–A.4.4) — edit only inside this section

# The exact law of λ1 of the d×d GOE (Chiani 2014, Thm 2; reference/objpert/goe.py): the reference forms and factors
# (d + d mod 2)×(d + d mod 2) skew matrices in mpmath (pure Python: ~1 s per evaluation at d = 100, a quantile ~10–20
# evaluations), so d is limited to GOE_MAX_DIM; larger d is refused by the domain (a DomainError naming d).
GOE_MAX_DIM = 100
GOE_DIMENSION = Integer(1, GOE_MAX_DIM, scale="log", sample_hi=40)
# The point x at which P[λ1 > x] is evaluated: any real (both tails are computed without cancellation).
GOE_POINT = Real(-math.inf, math.inf, sample_lo=-5, sample_hi=30)
# The GOE's normalisation: "sqrt2" = (Z + Zᵀ)/√2 (off-diagonal N(0, 1), diagonal N(0, 2): seed 003 Alg 11, Lemma
# A.4.3/A.4.4), "chiani" = (Z + Zᵀ)/2 (off-diagonal N(0, 1/2), diagonal N(0, 1): Chiani 2014, the thesis' τ = 12).
GOE_NORM = Choice(("sqrt2", "chiani"))

P_GOE_X = Param("x", GOE_POINT, "the threshold x of the tail P[λ1 > x]", example=17)
P_GOE_DIM = Param("d", GOE_DIMENSION, f"d ∈ [1, {GOE_MAX_DIM}], the size of the d×d GOE matrix", example=50)
P_GOE_NORM = Param("norm", GOE_NORM, "normalisation of the GOE: 'sqrt2' = (Z+Zᵀ)/√2 (Alg 11, Lemma A.4.4) or "
                   "'chiani' = (Z+Zᵀ)/2 (Chiani 2014)", default="sqrt2", example="sqrt2")
P_GOE_SIGMA = Param("sigma", POSITIVE, "σ > 0, the noise scale of A = σ(Z + Zᵀ)/√2: off-diagonal N(0, σ²), diagonal "
                    "N(0, 2σ²) (Algorithm 11's σ3)", example=1)
P_GOE_RHO = Param("rho", FAILURE, "ρ ∈ (0, 1), the failure probability: ‖A‖₂ ≤ στ w.p. 1 − ρ", example="8.465e-6")
# objpert.goe_quantile's ρ: down to 1e-200, where the float64 fast quantile is resolved at every d ≤ 100 (at d = 100
# it fails below ρ ≈ 1e-240; the reference goe_quantile takes any ρ ∈ (0, 1): below 1e-200 use it directly).
GOE_QUANTILE_RHO = Real(1e-200, 1, lo_open=False, hi_open=True, scale="log", sample_lo=1e-200, sample_hi=0.5)
P_GOE_QUANTILE_RHO = Param("rho", GOE_QUANTILE_RHO, "ρ ∈ [1e-200, 1): τ is exceeded by λ1 with probability ρ/2",
                           example="1e-6")
P_GOE_QUANTILE_DIM = Param("d", GOE_DIMENSION, f"d ∈ [1, {GOE_MAX_DIM}], the size of the d×d GOE matrix", example=10)
P_SUBG_SIGMA = Param("sigma", POSITIVE, "σ > 0, the subgaussian scale of A's entries (Lemma A.4.2; for A.4.3 the "
                     "off-diagonal standard deviation of A = σ(Z+Zᵀ)/√2)", example=1)
P_SUBG_DELTA = Param("delta", DELTA, "δ ∈ (0, 1), the failure probability of the high-probability bound", example="1e-6")
P_SUBG_DIM = Param("d", DIMENSION, "d ≥ 1, the size of the d×d matrix A", example=50)
P_RV_C_UNIV = Param("C_univ", POSITIVE, "C > 0, the universal constant in front of Rudelson & Vershynin's tail bound "
                 "C e^{−c d t^{3/2}} (unspecified in the text)", example=1)
P_SMALL_C_UNIV = Param("c_univ", POSITIVE, "c > 0, the universal constant in the exponent of Rudelson & Vershynin's "
                       "tail bound C e^{−c d t^{3/2}} (unspecified in the text)", example=1)

_ = (Choice,)  # Choice is re-exported for the sections' use

# ---------------------------------------------------------------------------------------------------------------
# Section F (lead: Definitions 2.2.1–2.2.3 and Lemmas A.7.1, A.7.2, A.7.4–A.7.8, reference/objpert/appendix_a7.py)

SMW_INVERTIBLE_F = ConditionSpec("smw_invertible", "A is d×d, U d×r, C r×r, V r×d; A, C and C⁻¹ + VA⁻¹U are "
                                 "invertible (seed 003 Lemma A.7.1)")
RANK_ONE_INVERTIBLE_F = ConditionSpec("rank_one_invertible", "A is an invertible d×d matrix and c, d are vectors of "
                                      "R^d (seed 003 Lemma A.7.2)")
WEYL_SHAPES_F = ConditionSpec("weyl_shapes", "A and E are m×n matrices with m ≥ n (seed 003 Lemma A.7.6)")
AFFINE_INVERTIBLE_F = ConditionSpec("affine_invertible", "M is an invertible d×d matrix and shift, y are vectors of "
                                    "R^d: g(x) = Mx + shift is a bijection (seed 003 Lemma A.7.7)")

# ---------------------------------------------------------------------------------------------------------------
# Section G (helper I: App. C.7 facts, C.8.2, Lemma C.4.8, App. C.10 tool lemmas; reference/objpert/appendix_c.py) —
# edit only inside this section

REAL_G = Real(-math.inf, math.inf, sample_lo=-10, sample_hi=10)
# Hölder's exponent p ∈ (1, ∞) (Def C.10.13), q = p/(p − 1).
HOLDER_P_G = Real(1, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1 + 1e-3, sample_hi=1e3)
MGF_T_G = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=5)

P_RECORDS_LS_G = Param("records", RECORDS, "the least-squares data: n rows (x, y), features x then the label y; "
                       "ℓ_i(θ) = (x_iᵀθ − y_i)²/2", example=[[1, 0, 1], [0.5, 0.5, -1], [0, 1, 0.5]])
P_LAM_G = Param("lam", POSITIVE, "λ > 0, the ridge regulariser (λ/2)‖θ‖²", example=1)
P_B_ROW_G = Param("b", RECORDS, "the linear term b ∈ R^d of f (ObjPert's noise), one row", example=[[0.3, -0.2]])
P_THETA_ROW_G = Param("theta", RECORDS, "the point θ ∈ R^d, one row", example=[[1, 1]])
P_X_G = Param("X", RECORDS, "the design matrix X (n × d), one row x_iᵀ per record",
              example=[[1, 0], [0.5, 0.5], [0, 1]])
P_SIGMA_G = Param("sigma", POSITIVE, "σ > 0, the standard deviation of the Gaussian", example=1)
P_CURV_LO_G = Param("c", POSITIVE, "c > 0, the lower curvature bound c ≤ f''(xᵀθ; y)", example="0.5")
P_CURV_HI_G = Param("C", POSITIVE, "C > 0, the upper curvature bound f''(xᵀθ; y) ≤ C", example=1)
P_MATRIX_G = Param("A", RECORDS, "A, a d×d matrix", example=[[2, 0.5], [0.5, 1]])
P_VECTOR_G = Param("x", RECORDS, "x ∈ R^d, one row", example=[[1, -2]])
P_DIM_G = Param("d", DIMENSION, "d ≥ 1, the dimension", example=10)
P_MU_G = Param("mu", REAL_G, "µ ∈ R, the mean", example=0)
P_T_G = Param("t", MGF_T_G, "t ≥ 0, the MGF argument", example="0.5")
P_SAMPLES_G = Param("samples", RECORDS, "n paired samples (x, y): an (n, 2) array; E is the empirical mean",
                    example=[[1, 2], [-0.5, 1], [2, -1], [0.1, 0.3]])
P_HOLDER_P_G = Param("p", HOLDER_P_G, "p > 1, Hölder's exponent (q = p/(p − 1))", example=2)
P_C_LOW_G = Param("c", REAL_G, "c ≥ µ, the lower end of the integral ∫_c^∞", example="0.5")
P_EPS_G = Param("eps", EPS, "ε ≥ 0 of g(s) = [1 − e^{ε − s}]₊", example="0.5")

SANDWICH_SHAPES_G = ConditionSpec("sandwich_shapes", "records (n, d + 1) with n ≥ 1, d ≥ 1; b and theta one row of d "
                                  "numbers each (seed 003 App. C.7)")
CURVATURE_ORDER_G = ConditionSpec("curvature_order", "c ≤ C (c ≤ f'' ≤ C, the curvature reading of the printed "
                                  "'c ≤ f ≤ C'; seed 003 App. C.8.2, erratum objpert.E4_15)")
CURVATURE_AT_MOST_ONE_G = ConditionSpec("curvature_at_most_one", "c ≤ 1 (XᵀΛX + λI ⪰ c(XᵀX + λI) needs c ≤ 1; "
                                        "seed 003 App. C.8.2)")
DESIGN_SHAPE_G = ConditionSpec("design_shape", "X is an n×d matrix with n ≥ 1, d ≥ 1 (seed 003 App. C.8.2)")
INVERTIBLE_G = ConditionSpec("invertible", "A is an invertible square matrix (seed 003 Lemma C.10.8)")
SYMMETRIC_G = ConditionSpec("symmetric", "A is a symmetric d×d matrix, d ≥ 1 (seed 003 Lemma C.10.9)")
SPD_VECTOR_G = ConditionSpec("spd_vector", "A is a symmetric positive-definite d×d matrix and x one row of d numbers "
                             "(seed 003 Lemma C.10.10)")
PAIRED_SAMPLES_G = ConditionSpec("paired_samples", "samples is an (n, 2) array with n ≥ 1: one (x, y) per row (seed "
                                 "003 Def C.10.13)")
C_AT_LEAST_MU_G = ConditionSpec("c_at_least_mu", "c ≥ µ (seed 003 Lemma C.4.8)")
