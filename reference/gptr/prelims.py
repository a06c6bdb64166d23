"""Preliminaries of seed 003, chapter 3 (§3.3 and §3.5.1): the Gaussian δ(ε) of Theorem 3.3.3 (corrected sign), classic
PTR's accounting (Theorem 3.3.4, Algorithm 3) with its exact worst case, and the data-dependent ε of the Laplace
mechanism (Example 3.5.2). Notes: shared/notes/generalized-ptr.md §2.1, §2.2, §3.1–§3.3.

* Theorem 3.3.3, Laplace half ("M(X) = f(X) + Lap(Δ1/ε) is ε-DP") is ``base.laplace_pure`` at b = 1/ε (Dwork & Roth
  2014, Thm 3.6): not registered again.
* Theorem 3.3.3, Gaussian half: δ(ε) = Φ(Δ2/(2σ) − εσ/Δ2) − e^ε Φ(−Δ2/(2σ) − εσ/Δ2), the analytic Gaussian of Balle &
  Wang 2018 (Thm 8) with noise σ/Δ2 in units of the sensitivity, i.e. ``base.gaussian_profile(ε, σ/Δ2)``, which this
  module calls (log space, every float64 input). As extracted, the seed prints the second argument as
  −Δ2/(2σ) **+** εσ/Δ2 (seed 003 line ~1722); that form is negative at moderate ε (notes §5.2: −0.3244 at ε = 0.5,
  Δ2/σ = 1) and equals the correct one only at ε = 0 (erratum E8). Seed 003 (C.2.1) in chapter 4 has the correct sign.
* Theorem 3.3.4 (Dwork & Lei 2009): Algorithm 3 is (2ε, δ)-DP. The exact worst case at 2ε is δ/2 (notes §2.1 [CHK],
  §3.3 pair (a)): when D_β(X) = D_β(X′) = 0 both pass with P[Lap(1/ε) > log(1/δ)/ε] = ½e^{−log(1/δ)} = δ/2 and, with
  |f(X) − f(X′)| → ∞, the releases separate, so sup_S P(S) − e^{2ε}Q(S) → δ/2; every other neighbour pair
  (D, D′ ≥ 0 with |D − D′| ≤ 1 and one of them ≥ 1, so |f(X) − f(X′)| ≤ β) has privacy loss ≤ 2ε everywhere
  (pass-probability ratio ≤ e^ε, Laplace release ratio ≤ e^ε) and δ(2ε) = 0. Registered as the variant ``tight``
  (a valid bound, δ/2 ≤ δ).
* Example 3.5.2: ε_φ(X) = Δ_LS(X)/φ for M_φ(X) = f(X) + Lap(φ) (the ratio of Laplace densities at the worst output).
"""
from __future__ import annotations

import mpmath
from mpmath import mp

from ..base.gaussian import gaussian_profile
from ..catalogue import Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..errors import ParameterError, PrecisionError
from ..precision import self_checked, to_mpf
from .spec import (
    P_DELTA_PTR, P_EPS_PROFILE, P_EPS_PTR, P_LOCAL_SENSITIVITY, P_PHI, P_SENSITIVITY, P_SIGMA, SEED,
)

BALLE_WANG = "Balle & Wang, Improving the Gaussian Mechanism for Differential Privacy, ICML 2018 (arXiv 1805.06530)"
MAX_EXTRA_DIGITS = 4000  # digits the printed form's cancellation may cost before it is refused

# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.3.3 (Gaussian half)


@self_checked
def gaussian_delta(eps, sensitivity, sigma):
    """δ(ε) of the Gaussian mechanism f(X) + N(0, σ²) with ℓ2 sensitivity Δ2 (seed 003, Thm 3.3.3, sign corrected as
    in seed 003 (C.2.1); erratum E8):

        δ(ε) = Φ(Δ2/(2σ) − εσ/Δ2) − e^ε Φ(−Δ2/(2σ) − εσ/Δ2),   ε ≥ 0, Δ2 > 0, σ > 0,

    the hockey-stick divergence of N(Δ2, σ²) and N(0, σ²): ``base.gaussian_profile`` at noise σ/Δ2 (Balle & Wang
    2018, Thm 8), exact and tight."""
    # δ depends on σ/Δ2 through a ≈ −εσ/Δ2 and log δ ≈ −a²/2: a relative rounding r of the ratio moves log δ by
    # ≈ a²·r, so the ratio (and the profile, which rounds its inputs to the precision it runs at) gets 2·log10|a|
    # more digits (σ/Δ2 = 4.1e5 at ε = 8.8 gives log δ = −6.3e12: at the working precision the two self-check
    # passes disagreed)
    guard = 10 + int(2 * mpmath.log10(1 + eps * sigma / sensitivity + sensitivity / sigma))
    with mp.workdps(mp.dps + guard):
        value = gaussian_profile(eps, sigma / sensitivity)
    return +value


def _printed_terms(eps, sensitivity, sigma):
    half = sensitivity / (2 * sigma)
    shift = eps * sigma / sensitivity
    return mpmath.ncdf(half - shift), mpmath.exp(eps) * mpmath.ncdf(-half + shift)


@self_checked
def gaussian_delta_printed(eps, sensitivity, sigma):
    """Seed 003, Thm 3.3.3 as extracted: Φ(Δ2/(2σ) − εσ/Δ2) − e^ε Φ(−Δ2/(2σ) + εσ/Δ2) (the sign typo of erratum E8).

    Not a bound: negative for ε > 0 at moderate Δ2/σ (notes §5.2: −0.3244, −1.5711, −2.5693, −6.8286 at (ε, Δ2/σ) =
    (0.5, 1), (1, 1), (1, 0.5), (2, 1)); equal to the corrected δ at ε = 0. The two terms may cancel (both near ½
    for small ε and Δ2/σ): they are formed with as many more digits as the difference is below them."""
    if eps == 0:
        return gaussian_delta(eps, sensitivity, sigma)
    extra = 10
    while True:
        with mp.workdps(mp.dps + extra):
            first, second = _printed_terms(eps, sensitivity, sigma)
            diff = first - second
        if diff != 0:
            lost = int(mpmath.log10((abs(first) + abs(second)) / abs(diff))) + 1
            if lost + 5 <= extra:
                return +diff
            extra = lost + 10
        else:
            extra = 2 * extra + 20
        if extra > MAX_EXTRA_DIGITS:
            raise PrecisionError(f"gaussian_delta_printed: the two terms cancel beyond {MAX_EXTRA_DIGITS} digits at "
                                 f"eps={mpmath.nstr(eps, 8)}, sensitivity={mpmath.nstr(sensitivity, 8)}, "
                                 f"sigma={mpmath.nstr(sigma, 8)}")


# Where the base.gaussian witness is used (elsewhere the use does not apply, and the statement is checked by its
# properties only): σ/Δ2 in the range base.gaussian's own statements draw (domains.NOISE's sampling range; beyond it
# the pair's float64 log-densities lose digits against its declared tilting family: at σ = 5.8e4 the tilted draws
# o ~ 2e9 give a privacy loss off by 2e-7 relative and conformance/tilting.py refuses the pair), and δ(ε) within the
# float64 range of the harness's intervals: a = Δ2/(2σ) − εσ/Δ2 ≥ −37, since δ < Φ(a) ≤ ½e^{−a²/2} < 1e-297 below
# (at ε = 16.4, σ = 5Δ2, δ ≈ e^{−3354} is claimed as 0.0 and the tilted check of an exact claim rejects it).
WITNESS_NOISE_RANGE = (0.05, 100.0)
WITNESS_MIN_SHIFT = -37


def _gaussian_use(p):
    """base.gaussian at noise σ/Δ2 (sensitivity 1) where the harness can compare it (see WITNESS_NOISE_RANGE)."""
    eps, ratio = to_mpf(p["eps"]), to_mpf(p["sigma"]) / to_mpf(p["sensitivity"])
    lo, hi = WITNESS_NOISE_RANGE
    if not lo <= ratio <= hi or 1 / (2 * ratio) - eps * ratio < WITNESS_MIN_SHIFT:
        raise ParameterError(f"gptr.thm3_3_3's witness: σ/Δ2 = {mpmath.nstr(ratio, 8)}, ε = {mpmath.nstr(eps, 8)} "
                             f"is outside σ/Δ2 ∈ [{lo}, {hi}] or has δ below 1e-297")
    return {"sigma": ratio}


register(Statement(
    id="gptr.thm3_3_3",
    fast="dpspec.fast.gptr.prelims:gaussian_delta",
    source=Source(SEED, "Theorem 3.3.3 (Gaussian half)", "exact (ε, δ(ε)) of the Gaussian mechanism, every ε ≥ 0",
                  BALLE_WANG),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = Φ(Δ2/(2σ) − εσ/Δ2) − e^ε Φ(−Δ2/(2σ) − εσ/Δ2) (sign corrected; printed: +εσ/Δ2)",
    params=(P_EPS_PROFILE, P_SENSITIVITY, P_SIGMA),
    reference=gaussian_delta,
    variants={"printed": Variant(
        gaussian_delta_printed, "as extracted, −Δ2/(2σ) + εσ/Δ2 in the second Φ (erratum E8): negative for ε > 0 at "
        "moderate Δ2/σ (−0.3244 at ε = 0.5, Δ2 = σ), equal to the corrected δ only at ε = 0", is_bound=False)},
    witnesses=(WitnessUse("base.gaussian", _gaussian_use,
                          "the Gaussian pair at noise σ/Δ2 (sensitivity 1): dominating and tight"),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": -1, "sigma": -1, "sensitivity": +1},
    note="Equals base.gaussian_profile(ε, σ/Δ2) (Balle & Wang 2018, Thm 8; seed 003 (C.2.1)); the reference calls it. "
         "The Laplace half of Thm 3.3.3 is base.laplace_pure at b = Δ1/ε. Seed 003 chapter 3 defines replace-one "
         "neighbours (erratum E10); the Gaussian profile depends only on the sensitivity under either relation.",
))

# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.3.4 (classic PTR, Algorithm 3)


@self_checked
def classic_ptr(eps, delta):
    """(2ε, δ): seed 003, Thm 3.3.4 (Dwork & Lei 2009), the accounting of Algorithm 3: the test D_β(X) + Lap(1/ε) is
    ε-DP (D_β has sensitivity 1), the release f(X) + Lap(β/ε) is ε-DP wherever Δ_LS ≤ β, and an unstable X
    (D_β(X) = 0) passes with probability P[Lap(1/ε) > log(1/δ)/ε] = δ/2 ≤ δ."""
    return 2 * eps, delta


@self_checked
def classic_ptr_tight(eps, delta):
    """(2ε, δ/2): the exact worst case of Algorithm 3 at 2ε (notes §2.1 [CHK], §3.3 pair (a); module docstring):
    sup over neighbour pairs and functions f of sup_S P(S) − e^{2ε}Q(S) is the pass probability δ/2 of an unstable
    dataset, approached as |f(X) − f(X′)| → ∞ with D_β(X) = D_β(X′) = 0."""
    return 2 * eps, delta / 2


register(Statement(
    id="gptr.thm3_3_4",
    fast="dpspec.fast.gptr.prelims:classic_ptr",
    source=Source(SEED, "Theorem 3.3.4", "privacy of classic Propose-Test-Release (Algorithm 3; Dwork & Lei 2009)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="Algorithm 3 (test D_β(X) + Lap(1/ε) > log(1/δ)/ε, release f(X) + Lap(β/ε)) is (2ε, δ)-DP; "
            "exactly (2ε, δ/2) in the worst case",
    params=(P_EPS_PTR, P_DELTA_PTR),
    reference=classic_ptr,
    variants={"tight": Variant(classic_ptr_tight, "the exact worst case δ(2ε) = δ/2 (notes §2.1, §3.3: unstable "
                               "neighbours pass with δ/2, releases far apart); a valid, tighter bound")},
    witnesses=(WitnessUse("gptr.classic_ptr", lambda p: {"eps": p["eps"], "delta": p["delta"], "d_p": 0, "d_q": 0,
                                                         "shift": 40},
                          "pair (a): D_β(X) = D_β(X′) = 0, releases 40 scales apart (δ(2ε) = (δ/2)(1 − e^{−20})), "
                          "notes §3.3"),
               WitnessUse("gptr.classic_ptr", lambda p: {"eps": p["eps"], "delta": p["delta"], "d_p": 1, "d_q": 0,
                                                         "shift": p["eps"]},
                          "pair (b): D_β = 1 vs 0, releases β apart (ε release scales; privacy loss ≤ 2ε: δ(2ε) = 0)")),
    privacy=Privacy("replace_one", "both", "none"),
    monotone={"eps": +1, "delta": +1},
    note="Seed 003 §3.3 (replace-one neighbours). Classic PTR is generalized PTR (gptr.thm3_5_3) with φ = β/ε, ε̂ = ε, "
         "δ̂ = 0, δ = 0, δ′ = δ/2: the max form gives exactly the tight (2ε, δ/2) (notes §2.2 [CHK]). The RDP of PTR "
         "(Wang et al., NeurIPS 2022) is ptr.thm4_3 (its Case 1 is the same 'both unstable, equal pass probability' "
         "mixture as the worst pair here) and ptr.thm4_3_general with σ1 = ∞ (textbook PTR refusing with ⊥).",
))

# ---------------------------------------------------------------------------------------------------------------
# Example 3.5.2 (data-dependent DP of the Laplace mechanism)


@self_checked
def laplace_data_dependent_eps(local_sensitivity, phi):
    """ε_φ(X) = Δ_LS(X)/φ (seed 003, Example 3.5.2): for M_φ(X) = f(X) + Lap(φ), log Pr[M_φ(X) = y]/Pr[M_φ(X′) = y]
    ≤ |f(X) − f(X′)|/φ with equality for y beyond both means, maximised over the neighbours X′ of X (δ = 0;
    Definition 3.5.1 asks δ > 0, the example uses δ = 0: erratum E15)."""
    return local_sensitivity / phi


register(Statement(
    id="gptr.ex3_5_2",
    fast="dpspec.fast.gptr.prelims:laplace_data_dependent_eps",
    source=Source(SEED, "Example 3.5.2", "data-dependent DP of the Laplace mechanism M_φ(X) = f(X) + Lap(φ)"),
    kind="pdp",
    claim="exact",
    value=Value("loss"),
    summary="ε_φ(X) = max_{X′≃X} |f(X) − f(X′)|/φ = Δ_LS(X)/φ (δ = 0)",
    params=(P_LOCAL_SENSITIVITY, P_PHI),
    reference=laplace_data_dependent_eps,
    privacy=Privacy("replace_one", "both", "none"),
    monotone={"local_sensitivity": +1, "phi": -1},
    note="The data-dependent version of base.laplace_pure (ε = 1/b at sensitivity 1): Δ_LS(X)/φ = base.laplace_pure "
         "at b = φ/Δ_LS(X); maximised over X it is Δ_GS/φ. With φ = β/ε it is > ε exactly when Δ_LS(X) > β, the "
         "reduction of classic PTR to generalized PTR (seed 003 §3.5, after Remark 3.5.4).",
))
