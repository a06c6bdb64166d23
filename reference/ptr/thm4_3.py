"""Theorem 4.3 (RDP of PTR), seed 001 §4.2 display (3); proof in appendix 000, A.1, eqs. (9)–(32).

    ε_PTR(α) ≤ max(T1(α), T2(α)),
    T1(α) = f_α^{-1}((1−δ0) f_α(α/(2σ1²)) + δ0 f_α(α/(2σ2²)))
          = ln[(1−δ0) e^{α(α−1)/(2σ1²)} + δ0 e^{α(α−1)/(2σ2²)}] / (α−1)        (Case 1: LS_f2 > τ on both sides)
    T2(α) = α/(2σ1²) + ε_R-Lap^(b)(α)                                           (Case 2)

for GS_f1 = GS_f2 = 1, σ1 = σ2/τ, any real α > 1, b > 0, δ0 ∈ (0, 1/2]. Each term is attained by a concrete
pair (witnesses ``ptr.thm4_3.case1`` / ``ptr.thm4_3.case2``), so the bound is tight at every α (notes §2.8).

The dpspec extension ``ptr.thm4_3_general`` drops σ1 = σ2/τ (erratum E8): the Case-2 conditional moment is
e^{α(α−1)/(2σ1²)} on s ≤ thr and e^{α(α−1)τ²/(2σ2²)} on s > thr, so (derivation, notes §2.8)

    E_{μ}[(μ'/μ)^α] ≤ max(e^{α(α−1)/(2σ1²)}, e^{α(α−1)τ²/(2σ2²)}) · E_{s~Lap(Δ,b)}[(Lap(Δ',b)/Lap(Δ,b))^α]
                    ≤ f_α(α·max(1/σ1², τ²/σ2²)/2 + ε_R-Lap^(b)(α))           (|Δ − Δ'| ≤ 1, Remark 4.1(4)),

and Case 1 is unchanged (it never used σ1 = σ2/τ). Hence ε ≤ max(T1, α·max(1/σ1², τ²/σ2²)/2 + ε_R-Lap(α)).
Textbook PTR (refuse on failure, Remark 4.1(1)) is σ1 = ∞: the ⊥ branch has equal probability on both sides,
so T1 = ln[(1−δ0) + δ0 e^{α(α−1)/(2σ2²)}]/(α−1) and the Case-2 Gaussian factor is τ²/σ2². For σ2 = τσ1 the
extension equals Theorem 4.3 exactly.
"""
from __future__ import annotations

import mpmath

from ..catalogue import Privacy, Source, Statement, Value, WitnessUse, register
from ..domains import Param
from ..precision import self_checked
from .notation import eps_from_log_moment, laplace_log_moment
from .spec import NOISE_OR_INF, P_ALPHA, P_B, P_DELTA0, P_SIGMA1, P_SIGMA2, SEED_APPENDIX, SEED_MAIN, TAU


def _gaussian_log_moment(alpha, inv_sigma_sq):
    """ln f_α(ε_R-N(α)) = α(α−1)/(2σ²), written with 1/σ² so that σ = ∞ gives 0."""
    return alpha * (alpha - 1) * inv_sigma_sq / 2


def _inv_sq(sigma):
    return mpmath.mpf(0) if mpmath.isinf(sigma) else 1 / sigma**2


def case1_log_moment(alpha, sigma1, sigma2, delta0):
    """ln[(1−δ0) e^{α(α−1)/(2σ1²)} + δ0 e^{α(α−1)/(2σ2²)}] (appendix 000, eq. (24)); σ1 = ∞ allowed.

    Formed as log1p(X), X = (1−δ0)(e^a − 1) + δ0(e^c − 1) ≥ 0 (the fast path's form, notes §8): the log of the
    sum itself is ln(1 + X) with X ≈ 6e-10 at σ1 = 1e10, σ2 = 4, δ0 = 1e-8, α = 2, and taking it from 1 + X lost
    log10(1/X) ≈ 9 digits, more than the self-check's guard (PrecisionError). mpmath's exponent range is
    unbounded, so e^a never overflows."""
    a = _gaussian_log_moment(alpha, _inv_sq(sigma1))
    c = _gaussian_log_moment(alpha, _inv_sq(sigma2))
    return mpmath.log1p((1 - delta0) * mpmath.expm1(a) + delta0 * mpmath.expm1(c))


@self_checked
def T1(alpha, sigma1, sigma2, delta0):
    """Case-1 term of Theorem 4.3 (seed 001, display (3), first argument of the max)."""
    return eps_from_log_moment(case1_log_moment(alpha, sigma1, sigma2, delta0), alpha)


@self_checked
def T2(alpha, sigma1, b):
    """Case-2 term of Theorem 4.3: α/(2σ1²) + ε_R-Lap^(b)(α) (seed 001, display (3), second argument)."""
    return alpha / (2 * sigma1**2) + laplace_log_moment(alpha, b) / (alpha - 1)


@self_checked
def thm4_3(alpha, sigma1, sigma2, b, delta0):
    """Theorem 4.3 (seed 001 §4.2; appendix 000 A.1): ε_PTR(α) ≤ max(T1(α), T2(α))."""
    return max(T1(alpha, sigma1, sigma2, delta0), T2(alpha, sigma1, b))


@self_checked
def thm4_3_general(alpha, sigma1, sigma2, tau, b, delta0):
    """dpspec extension of Theorem 4.3 to σ2 ≠ τσ1 and to textbook PTR (σ1 = ∞); derivation in the module
    docstring (notes §2.8). ε ≤ max(T1, α·max(1/σ1², τ²/σ2²)/2 + ε_R-Lap^(b)(α))."""
    t1 = T1(alpha, sigma1, sigma2, delta0)
    case2_gauss = alpha * max(_inv_sq(sigma1), tau**2 / sigma2**2) / 2
    t2 = case2_gauss + laplace_log_moment(alpha, b) / (alpha - 1)
    return max(t1, t2)


def case2_dominates_at(ell, sigma1, sigma2, b, delta0) -> bool:
    """T2(ℓ) ≥ T1(ℓ) (erratum E7's proviso at one order ℓ > 1), decided exactly.

    T1 and T2 are both a/(ℓ−1) plus a correction, a = ℓ(ℓ−1)/(2σ1²), and the corrections can be far below the
    working precision (σ2 = 1e300, b = 1e200, δ0 = 1e-300: both < 1e-300 at α ~ 10³), so comparing the two rounded
    terms is decided by their last digit. Without the common a (appendix 000 eq. (24); seed 001 §4 "Laplace
    Mechanism"):

        (ℓ−1)T1 = a + D,  D = ln[(1−δ0) + δ0 e^{c−a}] = log1p(δ0·expm1(c − a)),  c − a = ℓ(ℓ−1)(σ1² − σ2²)/(2σ1²σ2²),
        (ℓ−1)T2 = a + L,  L = (ℓ−1)·ε_R-Lap^(b)(ℓ) > 0,

    so T2 ≥ T1 ⇔ D ≤ L: true where σ2 ≥ σ1 (D ≤ 0), else decided by :func:`.thm4_4.surely_le` (precision raised
    while |L − D| is within the rounding of max(L, D)). The fast path (fast/ptr/bounds.py, _case2_dominates) uses
    the same form in log space."""
    from .thm4_4 import surely_le

    ell, sigma1, sigma2, b, delta0 = (mpmath.mpf(v) for v in (ell, sigma1, sigma2, b, delta0))
    if sigma2 >= sigma1:
        return True

    def terms():
        d = ell * (ell - 1) * (sigma1 - sigma2) * (sigma1 + sigma2) / (2 * sigma1**2 * sigma2**2)
        big_d = mpmath.log1p(delta0 * mpmath.expm1(d))
        big_l = laplace_log_moment(ell, b)
        return big_d, big_l, max(big_d, big_l)

    return surely_le(terms)


def _case_params(p):
    return {"sigma1": p["sigma1"], "sigma2": p["sigma2"], "b": p["b"], "delta0": p["delta0"]}


register(Statement(
    id="ptr.thm4_3",
    fast="dpspec.fast.ptr.bounds:thm4_3",
    source=Source(SEED_MAIN, "Theorem 4.3 (display (3))", "RDP of generalised PTR (Algorithm 1)"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≤ max( ln[(1−δ0)e^{α(α−1)/(2σ1²)} + δ0 e^{α(α−1)/(2σ2²)}]/(α−1), α/(2σ1²) + ε_R-Lap^(b)(α) )",
    params=(P_ALPHA, P_SIGMA1, P_SIGMA2, P_B, P_DELTA0),
    reference=thm4_3,
    witnesses=(WitnessUse("ptr.thm4_3.case1", _case_params, "attains T1"),
               WitnessUse("ptr.thm4_3.case2", _case_params, "attains T2")),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"alpha": +1, "sigma1": -1, "sigma2": -1, "b": -1},
    note="Tight per α: equals the larger of the two exact pair moments (notes §3.3). Appendix proof: "
         f"{SEED_APPENDIX}, A.1 eqs. (9)–(32).",
))

register(Statement(
    id="ptr.thm4_3_general",
    fast="dpspec.fast.ptr.bounds:thm4_3_general",
    source=Source(SEED_MAIN, "Theorem 4.3, relaxed (dpspec extension; notes §2.8, erratum E8)",
                  "RDP of PTR without σ1 = σ2/τ, including textbook PTR (σ1 = ∞, Remark 4.1(1))"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≤ max(T1(α), α·max(1/σ1², τ²/σ2²)/2 + ε_R-Lap^(b)(α)); σ1 = ∞ is textbook PTR",
    params=(P_ALPHA,
            Param("sigma1", NOISE_OR_INF, "noise ratio of the f1 release; inf = refuse (textbook PTR)",
                  example=8),
            P_SIGMA2,
            Param("tau", TAU, "proposed local-sensitivity bound τ of f2 "
                  "(GS_f2 = 1)", example="0.5"),
            P_B, P_DELTA0),
    reference=thm4_3_general,
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"alpha": +1, "sigma2": -1, "b": -1, "tau": +1},
    extension=True,
    note="Derivation in the module docstring of dpspec.reference.ptr.thm4_3 (notes §2.8): Case 1 of the "
         "appendix proof is unchanged; in Case 2 the conditional Gaussian moment is bounded by its larger "
         "branch and pulled out of the Laplace expectation. Equals ptr.thm4_3 when σ2 = τσ1.",
))
