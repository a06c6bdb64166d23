"""Appendix A.1.1 (PTR that does not release Δ̂) and inequality (38)–(41); appendix 000.

Case 2 bound, eq. (37):  R_α(M(S)‖M(S')) ≤ ε_R-N^(σ1)(α) + α/((α−1)b)   (Pr[Δ̂(S') ≤ thr] ≤ e^{1/b} Pr[Δ̂(S) ≤ thr],
likewise for >, then quasi-convexity). Case 1 is identical to Theorem 4.3 (Δ = Δ' = 0), so the variant is
(α, max(T1(α), α/(2σ1²) + α/((α−1)b)))-RDP.

Inequality (38)–(41): ε_R-Lap^(b)(α) < α/((α−1)b) for every α > 1, b > 0 — the releasing bound (Thm 4.3) is the
better one.
"""
from __future__ import annotations

from ..catalogue import Privacy, Source, Statement, Value, WitnessUse, register
from ..precision import self_checked
from .spec import P_ALPHA, P_B, P_DELTA0, P_SIGMA1, P_SIGMA2, SEED_APPENDIX
from .thm4_3 import T1


@self_checked
def laplace_rdp_crude(alpha, b):
    """α/((α−1)b), the right-hand side of (41): the crude bound ln(e^{α/b})/(α−1) on ε_R-Lap^(b)(α)."""
    return alpha / ((alpha - 1) * b)


@self_checked
def case2_no_release(alpha, sigma1, b):
    """Eq. (37): ε_R-N^(σ1)(α) + α/((α−1)b)."""
    return alpha / (2 * sigma1**2) + laplace_rdp_crude(alpha, b)


@self_checked
def a1_1_no_release(alpha, sigma1, sigma2, b, delta0):
    """RDP of PTR without releasing Δ̂ (appendix 000, A.1.1): max(T1(α), eq. (37))."""
    return max(T1(alpha, sigma1, sigma2, delta0), case2_no_release(alpha, sigma1, b))


register(Statement(
    id="ptr.a1_1_no_release",
    fast="dpspec.fast.ptr.bounds:a1_1_no_release",
    source=Source(SEED_APPENDIX, "Appendix A.1.1, eq. (37)", "RDP of the PTR variant that does not release Δ̂"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≤ max(T1(α), α/(2σ1²) + α/((α−1)b))",
    params=(P_ALPHA, P_SIGMA1, P_SIGMA2, P_B, P_DELTA0),
    reference=a1_1_no_release,
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"sigma1": -1, "sigma2": -1, "b": -1},
    note="Releasing Δ̂ costs nothing extra: ptr.thm4_3 ≤ this bound by inequality (38)–(41).",
))

register(Statement(
    id="ptr.ineq38_41",
    fast="dpspec.fast.ptr.bounds:ineq38_41",
    source=Source(SEED_APPENDIX, "Appendix A.1.1, inequality (38)–(41)",
                  "ε_R-Lap^(b)(α) < α/((α−1)b): the crude Laplace bound of the no-release variant"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε_R-Lap^(b)(α) ≤ α/((α−1)b) (strict for every α > 1)",
    params=(P_ALPHA, P_B),
    reference=laplace_rdp_crude,
    witnesses=(WitnessUse("base.laplace", {"b": "b"}, "the Laplace mechanism itself"),),
    privacy=Privacy("any", "both", "none"),
    monotone={"b": -1},
))
