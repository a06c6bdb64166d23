"""DP-PCA as a generalized-PTR instance: seed 003, Theorem B.3.13 (after Dwork, Talwar, Thakurta & Zhang 2014);
notes shared/notes/generalized-ptr.md §2.6, §3 item 13, erratum E13.

Releasing V_kV_kᵀ + E (E symmetric, upper triangle iid N(0, σ²)) for A with rows of norm ≤ 1 has data-dependent

    ε(A) = 2√log(1.25/δ)/(σ(d_k − 2)),     d_k = λ_k − λ_{k+1} (eigengap of AᵀA),

the classical Gaussian calibration σ = √(2 log(1.25/δ))·Δ/ε at the local sensitivity Δ = √2/(d_k − 2) (Frobenius,
reconstructed: notes §2.6). Erratum E13: the theorem needs d_k > 2 and the classical calibration ε(A) ≤ 1 (Dwork &
Roth 2014 Thm A.1, ε < 1, the end point by continuity of the Gaussian profile); both are conditions here. The
variant ``analytic`` is the exact Gaussian ε at δ (base.gaussian_eps at σ/Δ), valid for every ε."""
from __future__ import annotations

import mpmath

from ..base.gaussian import gaussian_eps
from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..precision import self_checked
from .spec import CLASSICAL_GAUSSIAN_EPS, EIGENGAP_ABOVE_TWO, P_DELTA, P_EIGENGAP, P_SIGMA, SEED

DWORK_2014 = "Dwork, Talwar, Thakurta & Zhang, Analyze Gauss: optimal bounds for privacy-preserving PCA, STOC 2014"


def pca_sensitivity(d_k):
    """The local sensitivity √2/(d_k − 2) of V_kV_kᵀ in Frobenius norm (Dwork et al. 2014; implied by seed 003,
    Thm B.3.13, notes §2.6 [R])."""
    return mpmath.sqrt(2) / (d_k - 2)


@self_checked
def thm_b3_13(d_k, sigma, delta):
    """ε(A) = 2√log(1.25/δ)/(σ(d_k − 2)) (seed 003, Thm B.3.13), for d_k > 2 and ε(A) ≤ 1 (erratum E13)."""
    return 2 * mpmath.sqrt(mpmath.log(mpmath.mpf("1.25") / delta)) / (sigma * (d_k - 2))


@self_checked
def thm_b3_13_analytic(d_k, sigma, delta):
    """The exact Gaussian ε at δ for sensitivity √2/(d_k − 2) (Balle & Wang 2018, base.gaussian_eps at σ/Δ): no
    ε ≤ 1 restriction; d_k > 2 still needed."""
    return gaussian_eps(delta, sigma / pca_sensitivity(d_k))


def _gap(p):
    return p["d_k"] > 2


def _classical(p):
    return p["d_k"] > 2 and thm_b3_13.__wrapped_unchecked__(p["d_k"], p["sigma"], p["delta"]) <= 1


GAP = Condition.of(EIGENGAP_ABOVE_TWO, _gap)

register(Statement(
    id="gptr.thm_b3_13",
    fast="dpspec.fast.gptr.pca:thm_b3_13",
    source=Source(SEED, "Theorem B.3.13", "data-dependent DP of DP-PCA under an eigengap (after Dwork et al. 2014)",
                  DWORK_2014),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(A) = 2√log(1.25/δ)/(σ(d_k − 2)), for d_k > 2 and ε(A) ≤ 1",
    params=(P_EIGENGAP, P_SIGMA, P_DELTA),
    reference=thm_b3_13,
    conditions=(GAP, Condition.of(CLASSICAL_GAUSSIAN_EPS, _classical)),
    variants={"analytic": Variant(thm_b3_13_analytic, "the exact Gaussian ε(δ) at σ(d_k − 2)/√2 (base.gaussian_eps): "
                                  "tighter, valid for every ε", conditions=(GAP,))},
    witnesses=(WitnessUse("base.gaussian",
                          lambda p: {"sigma": mpmath.mpf(p["sigma"]) / pca_sensitivity(mpmath.mpf(p["d_k"]))},
                          "the release along the (Frobenius) shift √2/(d_k − 2) of V_kV_kᵀ"),),
    privacy=Privacy("replace_one", "both", "none"),
    monotone={"d_k": -1, "sigma": -1, "delta": -1},
    note="Missing conditions added (erratum E13): d_k > 2 and ε(A) ≤ 1 (the classical Gaussian of Dwork & Roth "
         "Thm A.1, base.gaussian_classical). The local-sensitivity constant √2/(d_k − 2) is not stated in the "
         "text [R]. Neighbours: one row of A changed (Dwork et al. 2014). Suggested use: Alg 5 to tune k with the "
         "noise added to d_k.",
))
