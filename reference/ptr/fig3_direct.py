"""The direct baseline of Fig. 3 (seed 001 §4.3): Theorem 4.2 per step, Poisson amplification of (ε, δ)
[BBG18, Thm 10], then [KOV15] optimal homogeneous composition over T steps.

The paper does not say whether the direct baseline was amplified by subsampling, nor how δ was split (notes §4.8,
erratum E19); dpspec amplifies (the fair choice) and takes the split as parameters:
    per step:  (ε_s, δ_s) = (1/b + ε_G(δ_g; σ1), δ0 + δ_g)                     (Theorem 4.2, corrected)
    amplified: (ln(1 + q(e^{ε_s} − 1)), q(δ0 + δ_g))                          ([BBG18] Thm 10)
    T steps:   (ε, 1 − (1 − q(δ0 + δ_g))^T (1 − δ'))                          ([KOV15] Thm 3.3, slack δ')
with ε_G the classical [DR14] ε (condition ε_G < 1) or, with gaussian="analytic", the exact [BW18] one.
Returns (ε, δ_total).
"""
from __future__ import annotations


from ..catalogue import Condition, Privacy, Source, Statement, Value, register
from ..domains import DELTA, Param
from ..precision import self_checked
from .spec import FIG3_CLASSICAL, FIG3_STEPS, GAUSSIAN_ROUTE, P_B, P_DELTA0, P_Q, P_SIGMA1, SEED_MAIN
from .thm4_2 import classical_gaussian_eps, thm4_2, thm4_2_analytic


@self_checked
def fig3_direct(steps, q, sigma1, b, delta0, delta_gauss, delta_slack, gaussian="classical"):
    """(ε, δ_total) after T steps of Poisson-subsampled PTR by the direct route (module docstring)."""
    from ..base.amplification import poisson_amplification
    from ..base.composition import kov15_optimal

    step = thm4_2 if gaussian == "classical" else thm4_2_analytic
    eps_step = step(b, sigma1, delta0, delta_gauss)
    eps_amp, delta_amp = poisson_amplification(eps_step, delta0 + delta_gauss, q)
    return kov15_optimal(eps_amp, delta_amp, int(steps), delta_slack)


def _classical_valid(p) -> bool:
    return p["gaussian"] == "analytic" or classical_gaussian_eps(p["delta_gauss"], p["sigma1"]) < 1


register(Statement(
    id="ptr.fig3_direct",
    fast="dpspec.fast.ptr.bounds:fig3_direct",
    source=Source(SEED_MAIN, "Fig. 3 (direct analysis: Theorem 4.2 + [KOV15]); amplification per [BBG18]",
                  "the (ε, δ) composition baseline of Fig. 3"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="(ε, 1 − (1 − q(δ0+δ_g))^T(1 − δ')) from KOV15 over T steps of (ln(1 + q(e^{ε_s}−1)), q(δ0+δ_g))",
    params=(Param("steps", FIG3_STEPS, "number of compositions T", example=100), P_Q, P_SIGMA1, P_B, P_DELTA0,
            Param("delta_gauss", DELTA, "δ_g of each step's Gaussian release", example="1e-7"),
            Param("delta_slack", DELTA, "slack δ' of the KOV15 composition", example="1e-6"),
            Param("gaussian", GAUSSIAN_ROUTE, "Gaussian (ε, δ): [DR14] classical or [BW18] exact",
                  default="classical")),
    reference=fig3_direct,
    conditions=(Condition.of(FIG3_CLASSICAL, _classical_valid),),
    privacy=Privacy("add_remove", "both", "poisson"),
    extension=True,
    note="The amplification step and the δ split are dpspec choices (the paper states neither).",
))
