"""The standard results the texts use (``base.*``): parameter domains and the conditions' names and texts.

Dependency-free (the standard library and ``dpspec.reference.domains`` only): the reference (reference/base/*.py)
attaches mpmath predicates to the conditions (``catalogue.Condition.of``), the fast path (fast/base/*.py) torch
masks, so both check the same domains and raise the same words. The generic domains (ALPHA, DELTA, EPS, NOISE,
SAMPLING_RATE, STEPS) are in ``dpspec.reference.domains``.
"""
from __future__ import annotations

import math

from ..domains import Choice, ConditionSpec, Curve, Integer, Real

# No seed: every base.* statement is an outside result (Source("outside", number, purpose, citation)); the seeds
# that use one cite it from their own statements.
SEEDS: tuple[str, ...] = ()

# ---------------------------------------------------------------------------------------------------------------
# Domains

# The Rényi order for Laplace, with the two limits of Mironov's Table II included as values: α = 1 (the
# KL divergence) and α = ∞ (the max divergence, i.e. pure ε).
LAPLACE_ALPHA = Real(1, math.inf, lo_open=False, hi_open=False, allow_inf=True, scale="log",
                     sample_lo=1 + 1e-6, sample_hi=1e4)
# Composition: per-mechanism δ may be 0 (pure DP); δ = 1 is excluded (vacuous, and 1 − δ = 0 breaks the logs).
STEP_DELTA = Real(0, 1, lo_open=False, hi_open=True, scale="log", sample_lo=1e-12, sample_hi=0.5)
SLACK_DELTA = Real(0, 1, lo_open=True, hi_open=False, scale="log", sample_lo=1e-300, sample_hi=1)
PER_STEP_EPS = Real(0, math.inf, lo_open=True, hi_open=True, sample_lo=1e-3, sample_hi=5)
# KOV15's optimal composition (base.kov15_profile, base.kov15_optimal) also at ε = 0: k mechanisms that are (0, δ)-DP
# compose to (ε_g, 1 − (1−δ)^k) for every ε_g ≥ 0 (Thm 3.4's closed form keeps ε > 0).
KOV_EPS = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=1e-3, sample_hi=5)
# KOV15's optimal composition sums O(√k) terms around the binomial mode for each δ₀ it evaluates, and searches
# O(log k) segments: the reference takes 1–4 s at k = 10⁵ on the 2-core machine (δ' near 1 the slowest).
KOV_STEPS = Integer(1, 10**5, scale="log", sample_hi=2000)
# (ε, δ) amplification: δ = 0 and δ = 1 allowed.
DELTA_CLOSED = Real(0, 1, lo_open=False, hi_open=False, scale="log", sample_lo=1e-300, sample_hi=1)
# f-DP: the type-I error α, the GDP parameter μ ≥ 0, the δ of f_{ε,δ}, the group size.
TYPE_I = Real(0, 1, lo_open=False, hi_open=False, sample_lo=0, sample_hi=1)
MU = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=10)
TRADEOFF_DELTA = Real(0, 1, lo_open=False, hi_open=True, scale="log", sample_lo=1e-12, sample_hi=0.5)
GROUP = Integer(1, math.inf, sample_hi=100)
# α of the ZW19 statements (base.zw19_upper, base.zw19_lower): their sums have ⌈α⌉ − 1 terms, each an evaluation
# of the curve at an integer order (the fast path holds a batch × ⌈α⌉ grid of them), so the work is bounded by
# refusing α above ZW19_ALPHA_MAX (α = 1e15 hung the reference and made the fast path ask for 8e15 bytes; α = 1e308
# raised OverflowError). At the bound the reference takes about 3 s with the cheapest curves (base.gaussian_rdp,
# base.laplace_rdp: one catalogue evaluation per order and precision; 30–50 s at α = 1e5); costlier curves scale
# with their own cost. ptr.zw19_* (reference/ptr/spec.py), which call these evaluators, use the same bound.
ZW19_ALPHA_MAX = 1e4
ZW19_ALPHA = Real(1, ZW19_ALPHA_MAX, lo_open=True, hi_open=False, scale="log", sample_lo=1 + 1e-6, sample_hi=1e4)
# Curves given as parameters: an RDP curve α ↦ ε(α) and a trade-off function α ↦ f(α).
RDP_CURVE = Curve("rdp")
TRADEOFF_CURVE = Curve("tradeoff")
# The sampled Gaussian's divergence direction: remove D(P‖Q), add D(Q‖P), max both; a witness realises one.
SGM_DIRECTIONS = ("max", "remove", "add")
SGM_DIRECTION = Choice(SGM_DIRECTIONS)
SGM_WITNESS_DIRECTION = Choice(("remove", "add"))
# The ε of an exact privacy profile δ(ε) = sup_S P(S) − e^ε Q(S): every real ε (for ε < 0 the hockey-stick divergence
# is still defined, between 1 − e^ε and 1; base.gaussian_profile, base.laplace_profile, base.gdp_profile,
# base.sgm_profile, base.laplace_subsampled_profile). Random draws stay in [0, 20] as for EPS: the conformance
# harness's importance sampling (conformance/tilting.py) takes ε ≥ 0 only; ε < 0 is tested in tests/base.
EPS_REAL = Real(-math.inf, math.inf, lo_open=True, hi_open=True, sample_lo=0, sample_hi=20)
# base.sgm_rdp also at q = 0 (the record is never sampled: P = Q, ε(α) = 0); draws as SAMPLING_RATE.
SAMPLING_RATE_WITH_ZERO = Real(0, 1, lo_open=False, hi_open=False, scale="log", sample_lo=1e-8, sample_hi=1)

# The PLD sandwich statements (base.pld_sgm_*; reference/base/pld.py recomputes them with exact convolution, so
# their work is bounded): T up to 64 steps, lattice step D in [1/8, 1] (1/8, not 0.1: a decimal 0.1 lies below the
# double 0.1), σ >= 0.5; δ down to 1e-10 (the bound sits a little below, so that the decimal 1e-10 is inside in
# every precision): the fast path's FFT
# carries an absolute allowance of about 1e-14 per lattice bin (fast/base/pld.py), which at smaller δ moves its
# (valid, upper) ε visibly away from the exact-arithmetic value.
PLD_STEPS = Integer(1, 64, scale="log", sample_hi=64)
PLD_GRID_STEP = Real(0.125, 1, lo_open=False, hi_open=False, scale="log")
PLD_NOISE = Real(0.5, math.inf, lo_open=False, hi_open=True, scale="log", sample_lo=0.5, sample_hi=100)
PLD_DELTA = Real(0.99e-10, 1, lo_open=False, hi_open=True, scale="log", sample_lo=1e-10, sample_hi=0.5)
# The accountant's target width of its certified ε interval (dpspec.fast.Accountant(eps_width=...)).
PLD_EPS_WIDTH = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1e-6, sample_hi=1)

# ---------------------------------------------------------------------------------------------------------------
# Conditions (names and texts; the predicates are the reference's, the masks the fast path's)

# base.gaussian_classical (Dwork & Roth 2014, Thm A.1).
GAUSSIAN_CLASSICAL_EPS_BELOW_ONE = ConditionSpec("eps_below_one",
                                                 "Thm A.1 assumes ε ∈ (0, 1): needs √(2 ln(1.25/δ))/σ < 1")

# ---------------------------------------------------------------------------------------------------------------
# Sampling without replacement and the replace-one relation (reference/base/subsampling_wor.py; issue 14)

# Sampling WITHOUT replacement draws a batch of exactly m of the n records (γ = m/n). m ≥ 1 and n ≥ 1 are domains;
# m ≤ n is a condition (both paths refuse m > n naming it). Draws: m up to 512, n up to 10^5 (log scale), so that
# random points mostly satisfy m ≤ n.
WOR_BATCH = Integer(1, math.inf, scale="log", sample_hi=512)
WOR_DATASET = Integer(1, math.inf, scale="log", sample_hi=10**5)
WOR_BATCH_WITHIN_DATA = ConditionSpec("batch_within_data",
                                      "sampling without replacement draws m of the n records: needs m ≤ n")
# base.sgm_wor_rdp (WBK19 Thm 9) sums ⌈α⌉ − 1 terms: α is bounded as for ZW19 (the reference's work is O(α));
# the accountant's curve (fast/base/subsampling_wor.py) answers +inf (a valid, vacuous bound) above it.
WOR_ALPHA_MAX = 1e4
WOR_ALPHA = Real(1, WOR_ALPHA_MAX, lo_open=True, hi_open=False, scale="log", sample_lo=1 + 1e-6, sample_hi=1e4)
