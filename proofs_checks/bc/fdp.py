"""Errata of the f-DP background statements (seed 002 imports them from Dong, Roth & Su 2022).

bc.E9 — seed 002 (Appendix A, text line 882) prints the trade-off function of (ε,δ)-DP as
    f_{ε,δ}(α) = min{0, 1 − δ − e^ε α, (1 − δ − α) e^{−ε}},
which is ≤ 0 everywhere (not a trade-off function); Dong, Roth & Su 2022, Prop. 2.5 has max{…}.
The demonstration computes the Neyman–Pearson trade-off curve of the canonical (ε,δ) pair exactly (likelihood-ratio
tests on four atoms, mpmath) and compares it with both forms of ``base.eps_delta_tradeoff``.
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from dpspec.reference import catalogue

from ..errata import DemonstrationResult, Erratum, register_erratum


def canonical_pair(eps, delta):
    """The canonical (ε,δ) pair: P and Q on four atoms (Kairouz, Oh & Viswanath 2015, Thm 2.1 construction)."""
    e = mpmath.exp(eps)
    p = [delta, (1 - delta) * e / (1 + e), (1 - delta) / (1 + e), mpf(0)]
    q = [mpf(0), (1 - delta) / (1 + e), (1 - delta) * e / (1 + e), delta]
    return p, q


def neyman_pearson_tradeoff(p, q, alpha):
    """f(α) = inf{β_φ : α_φ ≤ α} with α_φ = E_P[φ], β_φ = 1 − E_Q[φ], for discrete P, Q (exact, by rejecting
    atoms in decreasing order of q/p, the last one randomised)."""
    ratio = lambda i: mpmath.inf if p[i] == 0 else q[i] / p[i]
    budget, power = mpf(alpha), mpf(0)
    for i in sorted(range(len(p)), key=ratio, reverse=True):
        if p[i] <= budget:
            budget -= p[i]
            power += q[i]
        else:
            power += q[i] * budget / p[i]
            break
    return 1 - power


def _demonstration() -> DemonstrationResult:
    st = catalogue.get("base.eps_delta_tradeoff")
    eps, delta = mpf(1), mpf("1e-3")
    with mpmath.workdps(40):
        p, q = canonical_pair(eps, delta)
        rows = []
        for alpha in (mpf(0), mpf("0.1"), mpf("0.3"), mpf(1)):
            truth = neyman_pearson_tradeoff(p, q, alpha)
            corrected = st.evaluate(alpha=alpha, eps=eps, delta=delta, dps=40).value
            printed = st.evaluate(alpha=alpha, eps=eps, delta=delta, dps=40, variant="printed").value
            rows.append((alpha, truth, corrected, printed))
    corrected_ok = all(abs(t - c) < mpf(10) ** -30 for _, t, c, _ in rows)
    printed_wrong = any(abs(t - pr) > mpf("1e-3") for _, t, _, pr in rows)
    printed_negative = any(pr < 0 for *_, pr in rows)
    evidence = {f"alpha={mpmath.nstr(a, 3)}": {"neyman_pearson": mpmath.nstr(t, 15),
                                               "corrected": mpmath.nstr(c, 15), "printed": mpmath.nstr(pr, 15)}
                for a, t, c, pr in rows}
    return DemonstrationResult(
        corrected_ok and printed_wrong and printed_negative, evidence,
        "canonical (1, 1e-3) pair: the max form equals the exact Neyman–Pearson curve; the printed min form does "
        "not and is negative")


register_erratum(Erratum(
    id="bc.E9",
    source="002_5bf9d068e79d7537.txt, Appendix A (f-DP background, text line 882; [2] Prop. 2.5)",
    summary="f_{ε,δ} printed with min{0,…}: the printed function is ≤ 0, not a trade-off function",
    printed="f_{ε,δ}(α) = min{0, 1 − δ − e^ε α, (1 − δ − α) e^{−ε}}",
    corrected="f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, (1 − δ − α) e^{−ε}} (Dong, Roth & Su 2022, Prop. 2.5)",
    demonstration=_demonstration,
    statements=("base.eps_delta_tradeoff",),
    severity="typo",
    note="notes/batch-clipping-fdp.md §6 item 9; the seed text confirms the printed min.",
))
