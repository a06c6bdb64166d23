"""Lemma C.5 of seed 002 as a standalone statement (notes shared/notes/batch-clipping-fdp.md §2.9): the infimum
f(α) = inf_{Σ q_i α_i = α} Σ_i q_i G_{μ_i}(α_i) of a Gaussian mixture with explicit weights q_i and means μ_i > 0
(Lemma C.1's mixture trade-off, solved by a Lagrange multiplier): f(α) = Σ_i q_i Φ(Λ/μ_i − μ_i/2) where
1 − α = Σ_i q_i Φ(Λ/μ_i + μ_i/2). It is the trade-off function of the label-visible mixture (i, X_i) (notes §2.9).

The evaluator is Def. 4.2's (reference/bc/mixture.py :func:`~.mixture.mixture_tradeoff`, the same Lagrange form with
certified truncation) on the law with c² = μ_i² at σ = 1: Def. 4.2 *is* this lemma applied to q_E with μ_c = c/σ.
The lemma's own hypotheses are its conditions: the weights form a law and every μ_i > 0 (the degenerate μ_i = 0, the
c = 0 atom of Def. 4.2, is not covered by the lemma — erratum bc.E5 is about that case).
"""
from __future__ import annotations

import numpy as np
from mpmath import mpf

from ..catalogue import Condition, Privacy, Source, Statement, Value, register
from ..precision import self_checked
from .bounds import P_ALPHA
from .mixture import mixture_tradeoff
from .spec import C5_MEANS, C5_NONEMPTY, C5_WEIGHTS, COMPONENTS, P_COMPONENTS, SEED, components_ok


def _components(components):
    return np.asarray(COMPONENTS.check("components", components), dtype=float)


@self_checked
def lemma_c5(alpha, components):
    """Seed 002, Lemma C.5 (App. C): f(α) = Σ_i q_i Φ(Λ(α)/μ_i − μ_i/2) with 1 − α = Σ_i q_i Φ(Λ(α)/μ_i + μ_i/2), for
    the rows (q_i, μ_i) of ``components`` (module docstring); Def. 4.2's evaluator at c² = μ_i², σ = 1."""
    arr = _components(components)
    support = [mpf(float(m)) ** 2 for m in arr[:, 1]]
    pmf = [mpf(float(q)) for q in arr[:, 0]]
    return mixture_tradeoff((support, pmf), 1, alpha)


def _cond(i):
    return lambda p: components_ok(_components(p["components"]))[i]


register(Statement(
    id="bc.lemma_c5",
    source=Source(SEED, "Lemma C.5 (line 1175; proof App. C.5, line 1588)",
                  "the trade-off infimum of a Gaussian mixture with explicit weights (App. C)"),
    kind="tradeoff",
    claim="exact",
    value=Value("beta", "alpha"),
    summary="f(α) = Σ_i q_i Φ(Λ/μ_i − μ_i/2), 1 − α = Σ_i q_i Φ(Λ/μ_i + μ_i/2)",
    params=(P_ALPHA, P_COMPONENTS),
    reference=lemma_c5,
    conditions=(Condition.of(C5_NONEMPTY, _cond(0)), Condition.of(C5_WEIGHTS, _cond(1)),
                Condition.of(C5_MEANS, _cond(2))),
    privacy=Privacy("replace_one", "both", "n/a"),
    monotone={"alpha": -1},
    note="The label-visible mixture's trade-off function (Lemma C.1's f); with one component it is G_μ (proof check "
         "bc.symbolic). bc.def4_2 is this lemma at μ_c = c/σ with q_E's weights.",
))
