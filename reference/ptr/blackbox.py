"""Theorem 4.3 fed to the general Poisson-subsampling bounds of [ZW19] (seed 001 §4.3, Fig. 2: the "black-box
bound" and the "lower bound").

    ``ptr.zw19_upper``: ZW19 Thm 6 with ε(ℓ) = ε_PTR(ℓ) (Theorem 4.3) — an upper bound on the RDP of
                        Poisson-subsampled PTR, since Thm 6 is non-decreasing in every ε(ℓ).
    ``ptr.zw19_lower``: the ZW19 tight formula with ε(ℓ) = ε_PTR(ℓ). For integer α it is the binomial expansion of
                        E_{μ0}[(1−q+qρ)^α] of one pair attaining every ε(ℓ), ℓ ≤ α. When T2(ℓ) ≥ T1(ℓ) for all
                        integers 2 ≤ ℓ ≤ α it equals the exact forward moment of the Case-2 per-subset pair
                        (witness ``ptr.thm4_4.case2_fwd``), which is realisable (S = ∅, S' = {x}), so it is a lower
                        bound on the true RDP; otherwise no single pair attains all ε(ℓ) and it is not (erratum
                        E7). That proviso is the statement's condition.
Non-integer α: as in dpspec.reference.base.zw19 (upper: cumulant interpolation; lower: the value at ⌊α⌋).
"""
from __future__ import annotations

import mpmath

from ..catalogue import Condition, Privacy, Source, Statement, Value, WitnessUse, register
from ..precision import self_checked
from .spec import P_ALPHA_ZW19, P_B, P_DELTA0, P_Q, P_SIGMA1, P_SIGMA2, SEED_MAIN, ZW19_LOWER_CASE2_DOMINATES
from .thm4_3 import case2_dominates_at, thm4_3


def thm4_3_curve(sigma1, sigma2, b, delta0):
    """α ↦ ε_PTR(α) of Theorem 4.3 at fixed parameters (mpf at the current precision)."""
    return lambda alpha: thm4_3(mpmath.mpf(alpha), sigma1, sigma2, b, delta0)


@self_checked
def zw19_upper_ptr(alpha, q, sigma1, sigma2, b, delta0):
    """[ZW19] Thm 6 black-box upper bound with the Theorem 4.3 curve (Fig. 2, blue)."""
    from ..base.zw19 import zw19_upper

    return zw19_upper(alpha, q, thm4_3_curve(sigma1, sigma2, b, delta0))


@self_checked
def zw19_lower_ptr(alpha, q, sigma1, sigma2, b, delta0):
    """[ZW19] tight formula with the Theorem 4.3 curve (Fig. 2, green)."""
    from ..base.zw19 import zw19_lower

    return zw19_lower(alpha, q, thm4_3_curve(sigma1, sigma2, b, delta0))


def case2_dominates(p) -> bool:
    """T2(ℓ) ≥ T1(ℓ) for every integer 2 ≤ ℓ ≤ α (erratum E7's proviso), each decided exactly by
    :func:`.thm4_3.case2_dominates_at` (comparing the rounded T1 and T2 was decided by their last digit where both
    are a/(ℓ−1) plus corrections below the working precision)."""
    n = int(mpmath.floor(p["alpha"]))
    return all(case2_dominates_at(l, p["sigma1"], p["sigma2"], p["b"], p["delta0"]) for l in range(2, n + 1))


def _sub_params(p):
    return {k: p[k] for k in ("q", "sigma1", "sigma2", "b", "delta0")}


_PARAMS = (P_ALPHA_ZW19, P_Q, P_SIGMA1, P_SIGMA2, P_B, P_DELTA0)

register(Statement(
    id="ptr.zw19_upper",
    fast="dpspec.fast.ptr.bounds:zw19_upper",
    source=Source(SEED_MAIN, "§4.3 and Fig. 2 (black-box bound: [ZW19] Thm 6 with Theorem 4.3)",
                  "general Poisson-amplification upper bound applied to PTR"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ZW19 Thm 6 with ε(ℓ) = ε_PTR(ℓ) of Theorem 4.3",
    params=_PARAMS,
    reference=zw19_upper_ptr,
    witnesses=(WitnessUse("ptr.thm4_4.case2_fwd", _sub_params, "lower-bound witness"),
               WitnessUse("ptr.thm4_4.case1_fwd", _sub_params, "lower-bound witness")),
    privacy=Privacy("add_remove", "both", "poisson"),
))

def below_the_upper_bound(statement, params):
    """A property check (``Statement.properties``): the ZW19 lower bound never exceeds the ZW19 upper bound
    (``ptr.zw19_upper``) at the same point. Both bound the same true RDP of the subsampled PTR mechanism, from below
    and from above, so lower ≤ upper wherever both hold; termwise too (factor 1 vs 3 for ℓ ≥ 3, and at non-integer α
    K(⌊α⌋)/(⌊α⌋ − 1) ≤ K̂(α)/(α − 1) for the upper bound's convex interpolation K̂ with K̂(1) = 0). This is the one
    check that can refute a lower bound made too large: a witness pair only bounds the truth from below."""
    from ..catalogue import get

    value = statement.reference(**params)
    upper = get("ptr.zw19_upper").reference(**params)
    tol = mpmath.mpf(10) ** (-(mpmath.mp.dps - 10))
    if value > upper * (1 + tol):
        raise AssertionError(f"{statement.id} = {mpmath.nstr(value, 12)} exceeds ptr.zw19_upper = "
                             f"{mpmath.nstr(upper, 12)} at the same point (a lower bound above an upper bound)")


below_the_upper_bound.why = "a lower bound of the true RDP cannot exceed the ZW19 upper bound of the same mechanism"

register(Statement(
    id="ptr.zw19_lower",
    fast="dpspec.fast.ptr.bounds:zw19_lower",
    source=Source(SEED_MAIN, "§4.3 and Fig. 2 (lower bound: [ZW19] tight formula with Theorem 4.3)",
                  "the 'lower bound' curve of Fig. 2, a lower bound when the Case-2 term dominates (erratum E7)"),
    kind="rdp",
    claim="lower",
    value=Value("rdp_eps", "alpha"),
    summary="(1/(α−1)) ln{(1−q)^{α−1}(αq−q+1) + Σ_{ℓ=2}^{α} C(α,ℓ)(1−q)^{α−ℓ}q^ℓ e^{(ℓ−1)ε_PTR(ℓ)}}",
    params=_PARAMS,
    reference=zw19_lower_ptr,
    conditions=(Condition.of(ZW19_LOWER_CASE2_DOMINATES, case2_dominates),),
    witnesses=(WitnessUse("ptr.thm4_4.case2_fwd", _sub_params, "attains the value at integer α"),),
    privacy=Privacy("add_remove", "P||Q", "poisson"),
    properties=(below_the_upper_bound,),
))
