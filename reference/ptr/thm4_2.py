"""Theorem 4.2 (direct (ε, δ)-DP analysis of PTR), seed 001 §4.1; proof in appendix 000, A.1.

Printed (seed 001, Theorem 4.2): Algorithm 1 is (ε_Lap^(b) + ε_N^(σ1)(δ), δ0 + δ)-DP with ε_Lap^(b) = e^{1/b} and
ε_N^(σ1)(δ) = σ1 √(2 ln(1.25/δ)). Both parameters are misprinted (errata E3, E4): the Laplace mechanism is
(1/b, 0)-DP (its privacy-loss ratio is bounded by e^{1/b}) and the classical Gaussian mechanism [DR14, Thm A.1]
gives ε_N = √(2 ln(1.25/δ))/σ1, valid only when this is < 1. What the proof shows (Case 1: Δ = Δ' = 0 and the f2
branch, of probability δ0, goes into δ; Case 2: basic composition of the Laplace test and the Gaussian release):

    ε = 1/b + √(2 ln(1.25/δ))/σ1,  total δ0 + δ   (``ptr.thm4_2``, condition √(2 ln(1.25/δ))/σ1 < 1),
    ε = 1/b + ε_G(δ; σ1),          total δ0 + δ   (``ptr.thm4_2_analytic``: the exact Gaussian ε of
                                                   [BW18, Thm 8] in place of the classical one; no condition).

The second is a dpspec choice (notes §2.6): the same proof with the analytic Gaussian mechanism, which is valid
for every σ1 and is what Fig. 1's regime (ε ≈ 1.3–6) needs. Both return ε; the total δ is δ0 + δ.
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, register
from ..domains import DELTA, Param
from ..precision import self_checked
from .spec import P_B, P_DELTA0, P_SIGMA1, SEED_MAIN, THM4_2_CLASSICAL


def classical_gaussian_eps(delta, sigma1):
    """ε_N^(σ1)(δ) = √(2 ln(1.25/δ))/σ1 [DR14, Thm A.1], the corrected form of seed 001 §4 (erratum E4).
    ln(1.25/δ) = ln 1.25 − ln δ, as the fast path forms it (there 1.25/δ overflows below δ ≈ 7e-309; mpmath's
    exponent range is unbounded, so here the two forms are the same number)."""
    return mpmath.sqrt(2 * (mpmath.log(mpf("1.25")) - mpmath.log(delta))) / sigma1


@self_checked
def thm4_2(b, sigma1, delta0, delta):
    """Theorem 4.2, corrected (errata E3, E4): ε = 1/b + √(2 ln(1.25/δ))/σ1 for total δ0 + δ."""
    return 1 / b + classical_gaussian_eps(delta, sigma1)


@self_checked
def thm4_2_printed(b, sigma1, delta0, delta):
    """Theorem 4.2 as printed (seed 001 §4.1): ε = e^{1/b} + σ1 √(2 ln(1.25/δ)). Not a bound: it grows with
    the noise σ1 (erratum E4) and overstates the Laplace cost (E3)."""
    return mpmath.exp(1 / b) + sigma1 * mpmath.sqrt(2 * mpmath.log(mpf("1.25") / delta))


@self_checked
def thm4_2_analytic(b, sigma1, delta0, delta):
    """Theorem 4.2's proof with the analytic Gaussian mechanism [BW18, Thm 8]: ε = 1/b + ε_G(δ; σ1), where
    ε_G(δ; σ) = min{ε ≥ 0 : Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) ≤ δ}."""
    from ..base.gaussian import gaussian_eps

    return 1 / b + gaussian_eps(delta, sigma1)


def _classical_valid(p) -> bool:
    return classical_gaussian_eps(p["delta"], p["sigma1"]) < 1


_PARAMS = (P_B, P_SIGMA1, P_DELTA0,
           Param("delta", DELTA, "δ of the Gaussian release; the total δ is δ0 + δ", example="1e-5"))

register(Statement(
    id="ptr.thm4_2",
    fast="dpspec.fast.ptr.bounds:thm4_2",
    source=Source(SEED_MAIN, "Theorem 4.2", "direct (ε, δ)-DP analysis of PTR (corrected: errata E3, E4)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="(1/b + √(2 ln(1.25/δ))/σ1, δ0 + δ)-DP, for √(2 ln(1.25/δ))/σ1 < 1",
    params=_PARAMS,
    reference=thm4_2,
    conditions=(Condition.of(THM4_2_CLASSICAL, _classical_valid),),
    variants={"printed": Variant(thm4_2_printed, "seed 001 Theorem 4.2 verbatim: e^{1/b} + σ1√(2 ln(1.25/δ)) "
                                 "(errata E3, E4); grows with σ1", is_bound=False)},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"b": -1, "sigma1": -1, "delta": -1},
    note="Returns ε; the guarantee is (ε, δ0 + δ). ptr.thm4_2_analytic is the same proof with the exact "
         "Gaussian ε, valid without the ε_N < 1 condition.",
))

register(Statement(
    id="ptr.thm4_2_analytic",
    fast="dpspec.fast.ptr.bounds:thm4_2_analytic",
    source=Source(SEED_MAIN, "Theorem 4.2 with the analytic Gaussian [BW18] (dpspec choice, notes §2.6)",
                  "direct (ε, δ)-DP of PTR valid for every σ1"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="(1/b + ε_G(δ; σ1), δ0 + δ)-DP with ε_G the exact Gaussian ε [Balle & Wang 2018, Thm 8]",
    params=_PARAMS,
    reference=thm4_2_analytic,
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"b": -1, "sigma1": -1, "delta": -1},
    extension=True,
    note="Appendix 000 A.1's proof uses only that the f1/f2 releases are (ε_N(δ), δ)-DP at normalised shift "
         "1/σ1; any valid Gaussian (ε, δ) may be used, the exact one is the smallest.",
))
