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

# ---------------------------------------------------------------------------------------------------------------
# Section A (helper A: preliminaries, generalized PTR, private selection, RDP variant) — edit only inside this section

# ---------------------------------------------------------------------------------------------------------------
# Section B (helper B: OPS ridge regression, GLMs, DP-PCA) — edit only inside this section

# ---------------------------------------------------------------------------------------------------------------
# Section C (helper C: PATE, GNMax, smooth sensitivity, GNSS, binary voting) — edit only inside this section
