"""Theorem 4.4 (RDP of Poisson-subsampled PTR, the "white-box bound"), full version: appendix 000, A.2,
eqs. (42)–(44) and (87)–(89); main-text version: seed 001, §4.3.

    ε_{PTR∘PoissonSample}(α) ≤ f_α^{-1}(max(B0, B1, B2)),
    B0 = 1 + 2q²α(α−1)((1−δ0)/σ1² + δ0/σ2²)                                                    (42)
    B1 = R_q^(α) + (2α(α−1)/σ1²)[R_q^(α) − 2(1−q)R_q^(α−1) + (1−q)²R_q^(α−2)]                  (43)
    B2 = R̃_q^(α) + (2α(α−1)/σ1²)[R̃_q^(α) − 2(1−q)R̃_q^(α+1) + (1−q)²R̃_q^(α+2)]                (44)

valid under the theorem's conditions (appendix 000, Theorem 4.4 full version; symbols rebuilt, notes §2.10):
    (C1) q ≤ e^{−1/b}/(4 + e^{−1/b})            ⇔ q' := q/(q + (1−q)e^{−1/b}) ≤ 1/5
    (C2) σ1 ≥ σ2 ≥ 4
    (C3) 1 < α ≤ ½σ2² L − 2 ln σ2
    (C4) α ≤ (½σ2² L² − ln 5 − 2 ln σ2) / (L + ln(q'α) + 1/(2σ2²)),   L = ln(1 + 1/(q'(α−1))).
Outside them the bound is false (erratum E1; counterexamples in the errata register), so the catalogue refuses
unless the caller opts in, and marks the opt-in value as not a bound.

The main text (seed 001, Theorem 4.4) prints the factor 2α(α−1) without 1/σ1² (erratum E2): variant
``main_text``. It is looser (the brackets are ≥ 0 and σ1 ≥ 4), hence still a bound inside the conditions.

Evaluation: the brackets equal E_{μ0}[(μ/μ0)^α A²] and E_{μ}[(μ0/μ)^α A²] with A(s) = qρ(s)/(1−q+qρ(s))
(appendix eqs. (74)–(80)); they are computed in that form and B_i − 1 directly (no cancellation; notes §8).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..precision import self_checked
from .spec import (P_ALPHA, P_B, P_DELTA0, P_Q, P_SIGMA1, P_SIGMA2, SEED_APPENDIX, THM4_4_C1, THM4_4_C2, THM4_4_C3,
                   THM4_4_C4)
from .rq import pow1p_excess, ratio_expectation


def q_prime(q, b):
    """q' = q/(q + (1−q)e^{−1/b}) = sup_s A(s), the largest effective sampling rate of the Gaussian part given s
    (appendix 000, Theorem 4.4 full version)."""
    return q / (q + (1 - q) * mpmath.exp(-1 / b))


def q_max(b):
    """Largest q allowed by (C1): e^{−1/b}/(4 + e^{−1/b}) (appendix 000, Theorem 4.4 full version)."""
    e = mpmath.exp(-1 / b)
    return e / (4 + e)


def mtz_L(q, alpha):
    """L = ln(1 + 1/(q(α−1))) of [MTZ19] Thm 11 / Lemma A.1 (appendix 000)."""
    return mpmath.log1p(1 / (q * (alpha - 1)))


_MAX_CONDITION_DPS = 4000  # 2^k·dps up to this: enough to resolve α ~ 1e308 against an O(1) term (the sign of
                           # rhs − lhs needs log10(scale/|rhs − lhs|) digits more than its terms' precision)


def surely_le(terms) -> bool:
    """lhs ≤ rhs for ``terms() = (lhs, rhs, scale)`` (computed at the current precision, ``scale`` bounding the
    size of the terms whose rounding enters rhs − lhs), decided exactly: where |rhs − lhs| is within the terms'
    rounding (10^{10−dps}·scale) the precision is doubled, up to _MAX_CONDITION_DPS digits (bounded work).
    At α = 1e300, q = 1/2, σ = 1e300, (C3) is α ≤ α − 1381.6 + O(1/α): 50 digits cannot see it."""
    dps = mpmath.mp.dps
    while True:
        with mpmath.workdps(dps):
            lhs, rhs, scale = terms()
            d = rhs - lhs
            if abs(d) > abs(scale) * mpf(10) ** (10 - dps) or dps >= _MAX_CONDITION_DPS:
                return d >= 0
        dps *= 2


def _c3_terms(alpha, q, sigma):
    half_s2_L = sigma**2 * mtz_L(q, alpha) / 2
    two_log_s = 2 * mpmath.log(sigma)
    return alpha, half_s2_L - two_log_s, max(alpha, abs(half_s2_L), abs(two_log_s))


def _c4_terms(alpha, q, sigma):
    """α·den ≤ num (den > 0), num = ½σ²L² − ln 5 − 2 ln σ, den = log1p(qα + 1/(α−1)) + 1/(2σ²) (see mtz_c4)."""
    L = mtz_L(q, alpha)
    big, two_log_s = sigma**2 * L**2 / 2, 2 * mpmath.log(sigma)
    lhs = alpha * (mpmath.log1p(q * alpha + 1 / (alpha - 1)) + 1 / (2 * sigma**2))
    return lhs, big - mpmath.log(5) - two_log_s, max(abs(lhs), abs(big), abs(two_log_s), 2)


def mtz_c3(alpha, q, sigma):
    """(C3) of [MTZ19] Thm 11 at (q, σ): 1 < α ≤ ½σ²L − 2 ln σ, decided exactly (:func:`surely_le`). ``q`` is a
    number or a function giving it at the current precision (q' of Theorem 4.4)."""
    q_at = q if callable(q) else (lambda: q)
    return 1 < alpha and surely_le(lambda: _c3_terms(alpha, q_at(), sigma))


def mtz_c4(alpha, q, sigma):
    """(C4) of [MTZ19] Thm 11 at (q, σ): α ≤ (½σ²L² − ln 5 − 2 ln σ)/(L + ln(qα) + 1/(2σ²)), decided exactly
    (:func:`surely_le`). The denominator is formed as log1p(qα + 1/(α−1)) + 1/(2σ²) (= L + ln(qα) + 1/(2σ²), since
    qα(1 + 1/(q(α−1))) = 1 + qα + 1/(α−1); notes §8, > 0): L ≈ −ln(qα) for tiny q, and their sum in the printed
    form cancelled all 50 digits at q = 1e-320, α = 1e200. The fast path (fast/ptr/bounds.py, _mtz_c3_c4) uses
    the same identity."""
    q_at = q if callable(q) else (lambda: q)
    return surely_le(lambda: _c4_terms(alpha, q_at(), sigma))


def _excess_b0(alpha, q, sigma1, sigma2, delta0):
    return 2 * q**2 * alpha * (alpha - 1) * ((1 - delta0) / sigma1**2 + delta0 / sigma2**2)


def _excess_b1(alpha, q, b, factor):
    """B1 − 1 = (R^(α) − 1) + factor·E_{μ0}[r^α A²], r = 1−q+qρ, A = qρ/r; R − 1 = E[pow1p_excess(α, q(ρ−1))]."""
    def g(rho):
        r = 1 - q + q * rho
        return pow1p_excess(alpha, q * (rho - 1)) + factor * r ** (alpha - 2) * (q * rho) ** 2
    return ratio_expectation(g, b)


def _excess_b2(alpha, q, b, factor):
    """B2 − 1 = (R̃^(α) − 1) + factor·E_{μ}[(μ0/μ)^α A²] = E_{μ0}[r^{1−α} − 1 + factor·r^{−1−α}(qρ)²]."""
    def g(rho):
        r = 1 - q + q * rho
        return pow1p_excess(1 - alpha, q * (rho - 1)) + factor * r ** (-1 - alpha) * (q * rho) ** 2
    return ratio_expectation(g, b)


def bound_terms(alpha, q, sigma1, sigma2, b, delta0, *, main_text=False):
    """(B0, B1, B2) of Theorem 4.4 (full version unless ``main_text``)."""
    factor = 2 * alpha * (alpha - 1) / (1 if main_text else sigma1**2)
    return (1 + _excess_b0(alpha, q, sigma1, sigma2, delta0),
            1 + _excess_b1(alpha, q, b, factor),
            1 + _excess_b2(alpha, q, b, factor))


def _eps(alpha, q, sigma1, sigma2, b, delta0, main_text):
    factor = 2 * alpha * (alpha - 1) / (1 if main_text else sigma1**2)
    excess = max(_excess_b0(alpha, q, sigma1, sigma2, delta0), _excess_b1(alpha, q, b, factor),
                 _excess_b2(alpha, q, b, factor))
    return mpmath.log1p(excess) / (alpha - 1)


@self_checked
def thm4_4(alpha, q, sigma1, sigma2, b, delta0):
    """Theorem 4.4, full version (appendix 000, eqs. (42)–(44)): ε(α) ≤ ln max(B0, B1, B2) / (α−1)."""
    return _eps(alpha, q, sigma1, sigma2, b, delta0, main_text=False)


@self_checked
def thm4_4_main_text(alpha, q, sigma1, sigma2, b, delta0):
    """Theorem 4.4 as printed in the main text (seed 001 §4.3): the 1/σ1² factor of B1, B2 is missing (E2)."""
    return _eps(alpha, q, sigma1, sigma2, b, delta0, main_text=True)


def _c1(p):
    """q' ≤ 1/5 ⇔ 4q ≤ (1−q)e^{−1/b} (the form the fast path evaluates in log space), decided exactly."""
    def terms():
        lhs, rhs = 4 * p["q"], (1 - p["q"]) * mpmath.exp(-1 / p["b"])
        return lhs, rhs, max(lhs, rhs)
    return surely_le(terms)


def _c2(p):
    return p["sigma1"] >= p["sigma2"] >= 4


def _c3(p):
    return mtz_c3(p["alpha"], lambda: q_prime(p["q"], p["b"]), p["sigma2"])


def _c4(p):
    return mtz_c4(p["alpha"], lambda: q_prime(p["q"], p["b"]), p["sigma2"])


CONDITIONS = (
    Condition.of(THM4_4_C1, _c1),
    Condition.of(THM4_4_C2, _c2),
    Condition.of(THM4_4_C3, _c3),
    Condition.of(THM4_4_C4, _c4),
)


def conditions_hold(alpha, q, sigma1, sigma2, b, delta0) -> bool:
    """The validity predicate (C1)–(C4) of Theorem 4.4 (full version)."""
    p = {"alpha": mpf(alpha), "q": mpf(q), "sigma1": mpf(sigma1), "sigma2": mpf(sigma2), "b": mpf(b),
         "delta0": mpf(delta0)}
    return all(c.holds(p) for c in CONDITIONS)


def _sub_params(p):
    return {"q": p["q"], "sigma1": p["sigma1"], "sigma2": p["sigma2"], "b": p["b"], "delta0": p["delta0"]}


register(Statement(
    id="ptr.thm4_4",
    fast="dpspec.fast.ptr.bounds:thm4_4",
    source=Source(SEED_APPENDIX, "Theorem 4.4 (full version), eqs. (42)–(44)",
                  "white-box RDP bound of Poisson-subsampled PTR"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≤ ln max(B0, B1, B2)/(α−1) with B0 = 1 + 2q²α(α−1)((1−δ0)/σ1² + δ0/σ2²), "
            "B1 = R^(α) + (2α(α−1)/σ1²)[R^(α) − 2(1−q)R^(α−1) + (1−q)²R^(α−2)], B2 likewise with R̃ and α+1, α+2",
    params=(P_ALPHA, P_Q, P_SIGMA1, P_SIGMA2, P_B, P_DELTA0),
    reference=thm4_4,
    conditions=CONDITIONS,
    variants={"main_text": Variant(thm4_4_main_text, "seed 001 §4.3 prints 2α(α−1) without 1/σ1² in B1 and B2 "
                                   "(erratum E2); looser, still a bound inside (C1)–(C4)", is_bound=True)},
    witnesses=(WitnessUse("ptr.thm4_4.case1_fwd", _sub_params, "lower-bound witness (per subset T)"),
               WitnessUse("ptr.thm4_4.case1_rev", _sub_params, "lower-bound witness (per subset T)"),
               WitnessUse("ptr.thm4_4.case2_fwd", _sub_params, "lower-bound witness (per subset T)"),
               WitnessUse("ptr.thm4_4.case2_rev", _sub_params, "lower-bound witness (per subset T)")),
    privacy=Privacy("add_remove", "both", "poisson"),
    note="False outside (C1)–(C4) (erratum E1). B2's derivation in the paper sets α ← 1−α in a bound proved "
         "for α > 1 (erratum E5); the formula is correct by the [MTZ19] reverse ≤ forward comparison.",
))
