"""PTR bounds of Wang, Mahloujifar, Wang, Jia, Mittal (NeurIPS 2022), vectorised: Theorems 4.2, 4.3 (and the
σ2 ≠ τσ1 extension), 4.4 (full version, with its validity mask), Lemma A.1, appendix A.1.1, and [ZW19] fed with
Theorem 4.3. Mirrors reference/ptr/*.py (statement ids ``ptr.*``); seed 001 = main text, seed 000 = appendix.

Names for the accountant (stable): :func:`ptr_rdp`, :func:`ptr_subsampled_rdp`, :func:`ptr_zw19_upper`.

Numerics (notes ptr-rdp.md §8):
* T1: ln[(1−δ0)e^{a} + δ0 e^{c}] = log1p(X), X = (1−δ0)(e^a − 1) + δ0(e^c − 1) ≥ 0, with log X from a
  logaddexp of log_expm1's: no overflow for large exponents, no cancellation near α = 1 (X = O(α − 1)).
* Theorem 4.4 and [ZW19]: B − 1 and e^{K} − 1 are sums of positive terms, formed directly in log space, then
  ε = log1p(e^{log(B−1)})/(α−1); see fast/ptr/rq.py and :func:`_zw19_log_excess`.
* Large orders: Theorem 4.3 is formed as ε, never as (α−1)ε, and T1 with its largest exponent taken out
  (:func:`_case1_eps`): α(α−1)/(2σ²) overflowed at α = 1e300 where ε ≈ α/(2σ²) = 3e298.
* Conditions (C1)–(C4) and Lemma A.1's are evaluated from log q (:func:`_mtz_c3_c4`), with the identities the
  reference uses, so that both paths accept the same points down to q = 5e-324.
* [ZW19] holds a points × ⌈α⌉ grid: α is bounded by ``ZW19_ALPHA`` (reference/ptr/spec.py), as in the reference.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.domains import ALPHA, DELTA, NOISE, ConditionSpec
from dpspec.reference.errors import ConditionError
from dpspec.reference.ptr.spec import (DELTA0, FIG3_CLASSICAL, FIG3_STEPS, GAUSSIAN_ROUTE, LEMMA_A1_CONDITIONS,
                                      NOISE_OR_INF, Q_RATE, TAU, THM4_2_CLASSICAL, THM4_4_CONDITIONS, ZW19_ALPHA,
                                      ZW19_LOWER_CASE2_DOMINATES)

from .._torch import log1p_exp, log_expm1, params, refuse_outside
from ..base.gaussian import gaussian_eps
from ..base.laplace import laplace_rdp
from .rq import log_excess_b
from ..base.zw19 import log_excess as zw19_log_excess


_LOG_1_25 = math.log(1.25)


def _inv_sq(sigma: torch.Tensor) -> torch.Tensor:
    """1/σ², 0 at σ = ∞."""
    return 1 / sigma**2


# ---------------------------------------------------------------------------------------------------------------
# Theorem 4.2 (seed 001 §4.1, corrected: errata E3, E4)

def thm4_2(b, sigma1, delta0, delta, allow_outside: bool = False) -> torch.Tensor:
    """ε = 1/b + √(2 ln(1.25/δ))/σ1 for total δ0 + δ (mirrors ``ptr.thm4_2``); raises ConditionError where the
    classical Gaussian ε_N = √(2 ln(1.25/δ))/σ1 is not < 1 ([DR14, Thm A.1]) unless ``allow_outside``."""
    b, sigma1, delta0, delta = params(b=(b, NOISE), sigma1=(sigma1, NOISE), delta0=(delta0, DELTA0),
                                      delta=(delta, DELTA))
    return 1 / b + _classical_gaussian_eps(delta, sigma1, "ptr.thm4_2", THM4_2_CLASSICAL, allow_outside)


def _classical_gaussian_eps(delta, sigma1, statement_id: str, condition: ConditionSpec,
                            allow_outside: bool) -> torch.Tensor:
    """ε_N = √(2 ln(1.25/δ))/σ1 of [DR14, Thm A.1], raising ConditionError for ``statement_id`` where ε_N ≥ 1
    (the theorem's ``condition``) unless ``allow_outside``. ln(1.25/δ) is formed as ln 1.25 − ln δ: 1.25/δ
    overflows for δ < 1.25/DBL_MAX ≈ 7e-309 (δ = 1e-310 gave ε_N = inf and a refusal where ε_N = 3.8e-5 at
    σ1 = 1e6); both terms are positive, so nothing cancels."""
    eps_n = torch.sqrt(2 * (_LOG_1_25 - torch.log(delta))) / sigma1
    if not allow_outside and not bool((eps_n < 1).all()):
        raise ConditionError(statement_id, [condition.describe()])
    return eps_n


def thm4_2_analytic(b, sigma1, delta0, delta) -> torch.Tensor:
    """ε = 1/b + ε_G(δ; σ1), the exact Gaussian ε of [BW18, Thm 8] (mirrors ``ptr.thm4_2_analytic``)."""
    b, sigma1, delta0, delta = params(b=(b, NOISE), sigma1=(sigma1, NOISE), delta0=(delta0, DELTA0),
                                      delta=(delta, DELTA))
    return 1 / b + gaussian_eps(delta, sigma1)


def fig3_direct(steps, q, sigma1, b, delta0, delta_gauss, delta_slack, gaussian: str = "classical",
                allow_outside: bool = False) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε, δ_total) after T steps of Poisson-subsampled PTR by the direct route of Fig. 3 (mirrors
    ``ptr.fig3_direct``, reference/ptr/fig3_direct.py): Theorem 4.2 per step (``gaussian``: the classical [DR14]
    ε, whose condition ε_N < 1 raises ConditionError unless ``allow_outside``, or the exact [BW18] one), Poisson
    amplification [BBG18, Thm 10] of (ε_s, δ0 + δ_g), then KOV15's optimal composition over T steps with slack δ'
    (:func:`dpspec.fast.base.composition.kov15_optimal_unchecked`: any T, O(√T) terms)."""
    from ..base.amplification import poisson_amplification
    from ..base.composition import kov15_optimal_unchecked

    GAUSSIAN_ROUTE.check("gaussian", gaussian)
    steps, q, sigma1, b, delta0, delta_gauss, delta_slack = params(
        steps=(steps, FIG3_STEPS), q=(q, Q_RATE), sigma1=(sigma1, NOISE), b=(b, NOISE), delta0=(delta0, DELTA0),
        delta_gauss=(delta_gauss, DELTA), delta_slack=(delta_slack, DELTA))
    if gaussian == "classical":
        _classical_gaussian_eps(delta_gauss, sigma1, "ptr.fig3_direct", FIG3_CLASSICAL, allow_outside)
        eps_step = thm4_2(b, sigma1, delta0, delta_gauss, allow_outside=True)
    else:
        eps_step = thm4_2_analytic(b, sigma1, delta0, delta_gauss)
    # ε_s = inf where 1/b or ε_G exceeds the float64 range (b = 1e-320): then so do the amplified ε
    # (≥ ε_s + ln q) and the composed ε; the finite stand-in 1 only carries δ, which does not depend on ε
    overflow = torch.isinf(eps_step)
    eps_amp, delta_amp = poisson_amplification(torch.where(overflow, torch.ones_like(eps_step), eps_step),
                                               delta0 + delta_gauss, q)
    eps, delta = kov15_optimal_unchecked(eps_amp, delta_amp, steps, delta_slack)
    return torch.where(overflow, torch.full_like(eps, math.inf), eps), delta


# ---------------------------------------------------------------------------------------------------------------
# Theorem 4.3 (seed 001 §4.2, display (3); appendix 000 A.1) and its σ2 ≠ τσ1 extension

_LARGE_MOMENT = 40.0  # above this (α−1)·max(T1 exponents), e^{−x} < 5e-18 of 1: T1 is formed by its large form


def _case1_eps(alpha, inv1, inv2, delta0):
    """T1 = ln[(1−δ0) e^{a} + δ0 e^{c}]/(α−1), a = α(α−1)/(2σ1²), c = α(α−1)/(2σ2²) (appendix 000 eq. (24)),
    written with 1/σ².

    Small exponents: log1p(X)/(α−1), X = (1−δ0)(e^a − 1) + δ0(e^c − 1) ≥ 0 from log_expm1's (no cancellation near
    α = 1). Large exponents (max(a, c) ≥ 40, where a or c may overflow float64 although T1 ≈ α·max(1/σ²)/2 does
    not, e.g. α = 1e300): T1 = α·m/2 + ln[(1−δ0)e^{−α(α−1)(m − 1/σ1²)/2} + δ0 e^{−α(α−1)(m − 1/σ2²)/2}]/(α−1),
    m = max(1/σ1², 1/σ2²) — the same quantity with the largest exponent taken out, no overflow."""
    half = alpha * (alpha - 1) / 2
    log_x = torch.logaddexp(torch.log1p(-delta0) + log_expm1(half * inv1), torch.log(delta0) + log_expm1(half * inv2))
    small = log1p_exp(log_x) / (alpha - 1)
    top = torch.maximum(inv1, inv2)

    def drop(inv):  # −α(α−1)(m − 1/σ²)/2 ≤ 0, 0 (not NaN) where 1/σ² is the maximum
        d = top - inv
        return torch.where(d > 0, -alpha * ((alpha - 1) * d / 2), torch.zeros_like(d))

    large = alpha * top / 2 + torch.logaddexp(torch.log1p(-delta0) + drop(inv1), torch.log(delta0) + drop(inv2)) / (
        alpha - 1)
    return torch.where(alpha * ((alpha - 1) * top / 2) >= _LARGE_MOMENT, large, small)


def _thm4_3_eps(alpha, sigma1, sigma2, b, delta0, case2_inv_sq):
    """max(T1, T2), T2 = α·case2_inv_sq/2 + ε_R-Lap^(b)(α) (Mironov 2017, Prop. 6), as ε (not (α−1)ε: no
    overflow of α(α−1) at large α)."""
    t1 = _case1_eps(alpha, _inv_sq(sigma1), _inv_sq(sigma2), delta0)
    t2 = alpha * case2_inv_sq / 2 + laplace_rdp(alpha, b)
    return torch.maximum(t1, t2)


def thm4_3(alpha, sigma1, sigma2, b, delta0) -> torch.Tensor:
    """Theorem 4.3: ε(α) ≤ max(T1, T2), T1 = ln[(1−δ0)e^{α(α−1)/(2σ1²)} + δ0 e^{α(α−1)/(2σ2²)}]/(α−1),
    T2 = α/(2σ1²) + ε_R-Lap^(b)(α) (mirrors ``ptr.thm4_3``)."""
    alpha, sigma1, sigma2, b, delta0 = params(alpha=(alpha, ALPHA), sigma1=(sigma1, NOISE), sigma2=(sigma2, NOISE),
                                              b=(b, NOISE), delta0=(delta0, DELTA0))
    return _thm4_3_eps(alpha, sigma1, sigma2, b, delta0, _inv_sq(sigma1))


def thm4_3_general(alpha, sigma1, sigma2, tau, b, delta0) -> torch.Tensor:
    """dpspec extension (notes §2.8, erratum E8): ε ≤ max(T1, α·max(1/σ1², τ²/σ2²)/2 + ε_R-Lap^(b)(α)); σ1 = ∞ is
    textbook PTR (mirrors ``ptr.thm4_3_general``)."""
    alpha, sigma1, sigma2, tau, b, delta0 = params(
        alpha=(alpha, ALPHA), sigma1=(sigma1, NOISE_OR_INF), sigma2=(sigma2, NOISE), tau=(tau, TAU), b=(b, NOISE),
        delta0=(delta0, DELTA0))
    case2 = torch.maximum(_inv_sq(sigma1), (tau / sigma2) ** 2)  # not τ²/σ2²: 0/0 = NaN at τ, σ2 ~ 1e-323
    return _thm4_3_eps(alpha, sigma1, sigma2, b, delta0, case2)


def ptr_rdp(alpha, sigma1, sigma2, b, delta0, tau=None) -> torch.Tensor:
    """RDP ε(α) of one run of PTR: Theorem 4.3 (σ2 = τσ1), or its extension when ``tau`` is given."""
    if tau is None:
        return thm4_3(alpha, sigma1, sigma2, b, delta0)
    return thm4_3_general(alpha, sigma1, sigma2, tau, b, delta0)


# ---------------------------------------------------------------------------------------------------------------
# Appendix A.1.1 (PTR without releasing Δ̂) and inequality (38)–(41)

def ineq38_41(alpha, b) -> torch.Tensor:
    """α/((α−1)b), the crude bound on ε_R-Lap^(b)(α) of appendix 000 (41) (mirrors ``ptr.ineq38_41``)."""
    alpha, b = params(alpha=(alpha, ALPHA), b=(b, NOISE))
    return alpha / (alpha - 1) / b


def a1_1_no_release(alpha, sigma1, sigma2, b, delta0) -> torch.Tensor:
    """max(T1(α), α/(2σ1²) + α/((α−1)b)), appendix 000 A.1.1 eq. (37) (mirrors ``ptr.a1_1_no_release``)."""
    alpha, sigma1, sigma2, b, delta0 = params(alpha=(alpha, ALPHA), sigma1=(sigma1, NOISE), sigma2=(sigma2, NOISE),
                                              b=(b, NOISE), delta0=(delta0, DELTA0))
    t1 = _case1_eps(alpha, _inv_sq(sigma1), _inv_sq(sigma2), delta0)
    return torch.maximum(t1, alpha / (2 * sigma1**2) + alpha / (alpha - 1) / b)


# ---------------------------------------------------------------------------------------------------------------
# Conditions of Lemma A.1 ([MTZ19] Thm 11) and Theorem 4.4 (appendix 000; symbols rebuilt, notes §2.10)

def q_prime(q, b):
    """q' = q/(q + (1−q)e^{−1/b}) = sup_s A(s) (appendix 000, Theorem 4.4 full version)."""
    return torch.exp(_log_q_prime(q, b))


def _log_q_prime(q, b):
    """log q' = log q − log(q + (1−q)e^{−1/b}), in log space (q = 1e-320 and e^{−1/b} = 0 are ordinary inputs)."""
    log_q = torch.log(q)
    return log_q - torch.logaddexp(log_q, torch.log1p(-q) - 1 / b)


def _c1(q, b):
    """(C1) q' ≤ 1/5  ⇔  4q ≤ (1−q)e^{−1/b}  ⇔  ln 4 + ln q ≤ ln(1−q) − 1/b (no division, no underflow)."""
    return math.log(4) + torch.log(q) <= torch.log1p(-q) - 1 / b


def _mtz_c3_c4(alpha, log_q, sigma):
    """(C3) 1 < α ≤ ½σ²L − 2 ln σ and (C4) α ≤ (½σ²L² − ln 5 − 2 ln σ)/(L + ln(qα) + 1/(2σ²)),
    L = ln(1 + 1/(q(α−1))) ([MTZ19] Thm 11 / Lemma A.1), from log q, computed so that nothing over- or underflows
    (q = 1e-320 made 1/(q(α−1)) = inf and (C4) inf/inf = NaN, refused where the reference accepts):

        L = log1p(e^{−x}), x = ln q + ln(α−1), and ln L = −x − e^{−x}/2 for x > 30 (L subnormal there);
        ½σ²L = e^{2 ln σ + ln L − ln 2},  ½σ²L² = e^{2 ln σ + 2 ln L − ln 2};
        L + ln(qα) = ln(qα(1 + 1/(q(α−1)))) = log1p(qα + 1/(α−1)) (no cancellation of L ≈ −ln(qα)).

    The reference (reference/ptr/thm4_4.py, mtz_c3/mtz_c4) uses the same identities."""
    x = log_q + torch.log(alpha - 1)
    L = log1p_exp(-x)
    log_L = torch.where(x > 30, -x - 0.5 * torch.exp(-torch.clamp(x, min=30)), torch.log(L))
    log_s = torch.log(sigma)
    c3 = (alpha > 1) & (alpha <= torch.exp(2 * log_s + log_L - math.log(2)) - 2 * log_s)
    num = torch.exp(2 * log_s + 2 * log_L - math.log(2)) - math.log(5) - 2 * log_s
    den = torch.log1p(torch.exp(log_q + torch.log(alpha)) + 1 / (alpha - 1)) + 0.5 / sigma**2
    c4 = alpha <= num / den
    return c3, c4


def thm4_4_condition_masks(alpha, q, sigma1, sigma2, b, delta0) -> dict[str, torch.Tensor]:
    """Boolean tensors (C1)–(C4) of Theorem 4.4 (full version), elementwise, by the names of
    ``dpspec.reference.ptr.spec.THM4_4_CONDITIONS`` (whose mpmath predicates are in reference/ptr/thm4_4.py)."""
    alpha, q, sigma1, sigma2, b, delta0 = params(
        alpha=(alpha, ALPHA), q=(q, Q_RATE), sigma1=(sigma1, NOISE), sigma2=(sigma2, NOISE), b=(b, NOISE),
        delta0=(delta0, DELTA0))
    c3, c4 = _mtz_c3_c4(alpha, _log_q_prime(q, b), sigma2)
    return {"C1": _c1(q, b), "C2": (sigma1 >= sigma2) & (sigma2 >= 4), "C3": c3, "C4": c4}


def thm4_4_valid(alpha, q, sigma1, sigma2, b, delta0) -> torch.Tensor:
    """(C1) ∧ (C2) ∧ (C3) ∧ (C4), elementwise: where Theorem 4.4 is a bound."""
    masks = thm4_4_condition_masks(alpha, q, sigma1, sigma2, b, delta0)
    return masks["C1"] & masks["C2"] & masks["C3"] & masks["C4"]


def lemma_a1_condition_masks(alpha, q, sigma) -> dict[str, torch.Tensor]:
    """Boolean tensors of Lemma A.1's conditions (appendix 000 eq. (63); [MTZ19] Thm 11), elementwise, by the names
    of ``dpspec.reference.ptr.spec.LEMMA_A1_CONDITIONS``."""
    alpha, q, sigma = params(alpha=(alpha, ALPHA), q=(q, Q_RATE), sigma=(sigma, NOISE))
    c3, c4 = _mtz_c3_c4(alpha, torch.log(q), sigma)
    return {"q": q <= 0.2, "sigma": sigma >= 4, "C3": c3, "C4": c4}


def lemma_a1_valid(alpha, q, sigma) -> torch.Tensor:
    """Lemma A.1's predicate (all four conditions), vectorised boolean."""
    masks = lemma_a1_condition_masks(alpha, q, sigma)
    return masks["q"] & masks["sigma"] & masks["C3"] & masks["C4"]


def _raise_outside(statement_id: str, masks: dict[str, torch.Tensor], conditions: tuple[ConditionSpec, ...]) -> None:
    """ConditionError listing, in the spec's order, every condition whose mask is False somewhere."""
    refuse_outside(statement_id, [(c, masks[c.name]) for c in conditions])


def lemma_a1(alpha, q, sigma, allow_outside: bool = False) -> torch.Tensor:
    """Lemma A.1 as an RDP bound, ln(1 + 2q²α(α−1)/σ²)/(α−1) (mirrors ``ptr.lemma_a1``); ConditionError outside
    its conditions unless ``allow_outside``."""
    alpha, q, sigma = params(alpha=(alpha, ALPHA), q=(q, Q_RATE), sigma=(sigma, NOISE))
    if not allow_outside:
        _raise_outside("ptr.lemma_a1", lemma_a1_condition_masks(alpha, q, sigma), LEMMA_A1_CONDITIONS)
    return torch.log1p(2 * q**2 * alpha * (alpha - 1) / sigma**2) / (alpha - 1)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 4.4 (appendix 000 A.2, eqs. (42)–(44), full version)

def _thm4_4_log_excess(alpha, q, sigma1, sigma2, b, delta0, main_text=False):
    """log(max(B0, B1, B2) − 1), elementwise on checked tensors of one shape."""
    shape = alpha.shape
    alpha, q, sigma1, sigma2, b, delta0 = (t.reshape(-1) for t in (alpha, q, sigma1, sigma2, b, delta0))
    log_aa = torch.log(alpha) + torch.log(alpha - 1)
    log_b0 = math.log(2) + 2 * torch.log(q) + log_aa + torch.log((1 - delta0) / sigma1**2 + delta0 / sigma2**2)
    log_c = math.log(2) + log_aa - (0 if main_text else 2 * torch.log(sigma1))
    log_b1 = log_excess_b(alpha, q, b, log_c, reverse=False)
    log_b2 = log_excess_b(alpha, q, b, log_c, reverse=True)
    return torch.maximum(log_b0, torch.maximum(log_b1, log_b2)).reshape(shape)


def thm4_4_with_validity(alpha, q, sigma1, sigma2, b, delta0, main_text: bool = False):
    """(ε, valid): Theorem 4.4's value ln max(B0, B1, B2)/(α−1) at every point, and the boolean mask of
    (C1)–(C4). Where ``valid`` is False the value is NOT a bound (erratum E1). ``main_text``: the seed 001 §4.3
    form without 1/σ1² in B1, B2 (erratum E2)."""
    alpha, q, sigma1, sigma2, b, delta0 = params(
        alpha=(alpha, ALPHA), q=(q, Q_RATE), sigma1=(sigma1, NOISE), sigma2=(sigma2, NOISE), b=(b, NOISE),
        delta0=(delta0, DELTA0))
    eps = log1p_exp(_thm4_4_log_excess(alpha, q, sigma1, sigma2, b, delta0, main_text)) / (alpha - 1)
    return eps, thm4_4_valid(alpha, q, sigma1, sigma2, b, delta0)


def thm4_4(alpha, q, sigma1, sigma2, b, delta0, allow_outside: bool = False) -> torch.Tensor:
    """Theorem 4.4, full version (mirrors ``ptr.thm4_4``): ConditionError when any point is outside (C1)–(C4),
    unless ``allow_outside`` (then the values there are not bounds)."""
    if not allow_outside:
        _raise_outside("ptr.thm4_4", thm4_4_condition_masks(alpha, q, sigma1, sigma2, b, delta0),
                       THM4_4_CONDITIONS)
    return thm4_4_with_validity(alpha, q, sigma1, sigma2, b, delta0)[0]


def ptr_subsampled_rdp(alpha, q, sigma1, sigma2, b, delta0):
    """(ε, valid) of Poisson-subsampled PTR by Theorem 4.4 (full version); see :func:`thm4_4_with_validity`."""
    return thm4_4_with_validity(alpha, q, sigma1, sigma2, b, delta0)


# ---------------------------------------------------------------------------------------------------------------
# [ZW19] fed with Theorem 4.3 (seed 001 §4.3, Fig. 2; reference/ptr/blackbox.py, reference/base/zw19.py)

_ZW19_CHUNK = 1 << 22  # elements of the (points × orders) grid formed at once


def _zw19_log_excess(n, q, sigma1, sigma2, b, delta0, factor_3: bool):
    """log(e^{K(n)} − 1) at integer n ≥ 2 (flat tensors), K the log of the ZW19 sum with ε(ℓ) = Thm 4.3.

    With Σ_ℓ C(n,ℓ)(1−q)^{n−ℓ}q^ℓ = 1 and the head (1−q)^{n−1}(1 + (n−1)q) being its ℓ = 0, 1 terms,
    e^{K} − 1 = Σ_{ℓ=2}^{n} C(n,ℓ)(1−q)^{n−ℓ}q^ℓ (c_ℓ e^{(ℓ−1)ε(ℓ)} − 1), c_ℓ = 3 for ℓ ≥ 3 in Thm 6, else 1:
    every term is ≥ 0, so no cancellation for small q."""
    n_max = int(n.max())
    ell = torch.arange(2, n_max + 1, dtype=n.dtype, device=n.device)
    out = torch.empty_like(n)
    step = max(1, _ZW19_CHUNK // max(1, ell.numel()))
    for i in range(0, n.numel(), step):
        nn, qq, s1, s2, bb, d0 = (t[i:i + step].unsqueeze(-1) for t in (n, q, sigma1, sigma2, b, delta0))
        l_ = torch.minimum(ell, nn)  # terms with ℓ > n are masked by the generic sum
        eps_ell = _thm4_3_eps(l_, s1, s2, bb, d0, _inv_sq(s1))  # ε(ℓ) = Thm 4.3
        out[i:i + step] = zw19_log_excess(nn, qq, ell, eps_ell, factor_3)
    return out


def _zw19_args(alpha, q, sigma1, sigma2, b, delta0):
    return params(alpha=(alpha, ZW19_ALPHA), q=(q, Q_RATE), sigma1=(sigma1, NOISE), sigma2=(sigma2, NOISE),
                  b=(b, NOISE), delta0=(delta0, DELTA0))


def zw19_upper(alpha, q, sigma1, sigma2, b, delta0) -> torch.Tensor:
    """[ZW19] Thm 6 with ε(ℓ) = Theorem 4.3 (Fig. 2 "black-box bound"; mirrors ``ptr.zw19_upper``). Non-integer
    α: the cumulant K = (α−1)ε is interpolated linearly between ⌊α⌋ and ⌈α⌉ (K(1) = 0), an upper bound by
    convexity (reference/base/zw19.py)."""
    alpha, q, sigma1, sigma2, b, delta0 = _zw19_args(alpha, q, sigma1, sigma2, b, delta0)
    shape = alpha.shape
    alpha, q, sigma1, sigma2, b, delta0 = (t.reshape(-1) for t in (alpha, q, sigma1, sigma2, b, delta0))
    lo = torch.floor(alpha)
    t = alpha - lo
    hi = torch.where(t > 0, lo + 1, lo)
    both = torch.cat([lo, hi])
    rest = [torch.cat([x, x]) for x in (q, sigma1, sigma2, b, delta0)]
    k = log1p_exp(_zw19_log_excess(torch.clamp(both, min=2), *rest, factor_3=True))
    k = torch.where(both >= 2, k, torch.zeros_like(k))  # K(1) = 0
    k_lo, k_hi = k[: alpha.numel()], k[alpha.numel():]
    # at integer α, K(α) itself (not 1·K + 0·K, which is NaN where K = inf: σ1 = 1e-320 gave NaN)
    k_alpha = torch.where(t == 0, k_lo, (1 - t) * k_lo + t * k_hi)
    return (k_alpha / (alpha - 1)).reshape(shape)


def ptr_zw19_upper(alpha, q, sigma1, sigma2, b, delta0) -> torch.Tensor:
    """The [ZW19] black-box RDP bound of Poisson-subsampled PTR (:func:`zw19_upper`)."""
    return zw19_upper(alpha, q, sigma1, sigma2, b, delta0)


_G_SERIES = tuple(1 / math.factorial(n) for n in range(2, 22))  # G(y) = (e^y − 1 − y)/y² = Σ_{n≥2} y^{n−2}/n!


def _excess_over_sq(y: torch.Tensor) -> torch.Tensor:
    """G(y) = (e^y − 1 − y)/y² > 0: the series for |y| ≤ 1/2 (first omitted term < 1e-21 of the sum), else
    (expm1(y) − y)/y² (at most a factor 5 of cancellation at |y| = 1/2). G(0) = 1/2."""
    small = y.abs() <= 0.5
    ys = torch.where(small, y, torch.zeros_like(y))
    series = torch.zeros_like(y)
    for c in reversed(_G_SERIES):
        series = series * ys + c
    yl = torch.where(small, torch.ones_like(y), y)
    return torch.where(small, series, (torch.expm1(yl) - yl) / yl**2)


def _log_of_log1p(log_s: torch.Tensor) -> torch.Tensor:
    """log(log1p(S)) from log S, for any S ≥ 0 (S = e^{log_s} may under- or overflow): log S − S/2 below
    e^{−30}, log(log1p(S)) in between, log(log S + log1p(1/S)) above e^{40}."""
    s = torch.exp(torch.clamp(log_s, -30.0, 40.0))
    mid = torch.log(torch.log1p(s))
    low = log_s - torch.exp(torch.clamp(log_s, max=-30.0)) / 2
    high = torch.log(log_s + torch.exp(-torch.clamp(log_s, min=40.0)))
    return torch.where(log_s < -30, low, torch.where(log_s > 40, high, mid))


def _log_laplace_log_moment(ell, b):
    """log L, L = (ℓ−1)·ε_R-Lap^(b)(ℓ) = log(w₁e^{(ℓ−1)x} + w₂e^{−ℓx}) > 0 (x = 1/b, w₁ = ℓ/(2ℓ−1), w₂ = (ℓ−1)/(2ℓ−1);
    Mironov 2017, Prop. 6), for ℓ > 1 and every b, with no under- or overflow of L itself:

    * (ℓ−1)x ≤ 1: L = log1p(S), S = w₁E((ℓ−1)x) + w₂E(−ℓx) = x²·(w₁(ℓ−1)²G((ℓ−1)x) + w₂ℓ²G(−ℓx)) (E(y) = y²G(y),
      :func:`_excess_over_sq`), so log S = −2 ln b + log(…) holds at b = 1e200, where S ~ 1e-400 underflows;
    * (ℓ−1)x > 1: L = (ℓ−1)x + r, r = log1p(w₂ expm1(−(2ℓ−1)x)) ∈ [ln ½, 0] (fast/base/laplace.py's far form), so
      log L = ln(ℓ−1) − ln b + log1p(r·b/(ℓ−1)), finite even where x = 1/b = inf."""
    log_b = torch.log(b)
    x = 1 / b
    w1, w2 = ell / (2 * ell - 1), (ell - 1) / (2 * ell - 1)
    near = (ell - 1) * x <= 1
    xn = torch.where(near, x, torch.zeros_like(x))
    h = w1 * (ell - 1) ** 2 * _excess_over_sq((ell - 1) * xn) + w2 * ell**2 * _excess_over_sq(-ell * xn)
    log_near = _log_of_log1p(torch.log(h) - 2 * log_b)
    r = torch.log1p(w2 * torch.expm1(-(2 * ell - 1) * x))
    log_far = torch.log(ell - 1) - log_b + torch.log1p(r * b / (ell - 1))
    return torch.where(near, log_near, log_far)


def _case2_dominates(n, sigma1, sigma2, b, delta0) -> torch.Tensor:
    """T2(ℓ) ≥ T1(ℓ) for every integer 2 ≤ ℓ ≤ n (erratum E7's proviso; reference/ptr/blackbox.py).

    Not by comparing the two rounded terms: both are ℓ/(2σ1²) plus a correction, and at σ2 ≥ σ1 with b = 1e200
    the corrections (< 1e-300) vanish in the rounding, so the float comparison was decided by an ulp of T1 (it
    refused α = 2666, q = ½, σ1 = 8, σ2 = 1e300, b = 1e200, δ0 = 1e-300, a point where the condition holds). With
    a = ℓ(ℓ−1)/(2σ1²), c = ℓ(ℓ−1)/(2σ2²) (appendix 000 eq. (24)),

        (ℓ−1)T1 = a + D,  D = ln[(1−δ0) + δ0 e^{c−a}] = log1p(δ0·expm1(d)),  d = c − a,
        (ℓ−1)T2 = a + L,  L = (ℓ−1)ε_R-Lap^(b)(ℓ) > 0,

    so the condition is L ≥ D, decided without the common a: true where d ≤ 0 (σ2 ≥ σ1: D ≤ 0 < L, exactly),
    else log L ≥ log D in log space (:func:`_log_laplace_log_moment`), with
    ln d = ln(ℓ(ℓ−1)/2) + ln(σ1 − σ2) + log1p(σ2/σ1) − ln σ1 − 2 ln σ2 (d = ℓ(ℓ−1)(σ1² − σ2²)/(2σ1²σ2²); σ1 − σ2
    is exact where the two are close) and log D = log(log1p(e^y)), y = ln δ0 + ln expm1(d).

    Limit: log L and log D carry ~1e-15 relative rounding, so where L and D agree to about that (e.g. ℓ = 2,
    σ2 = 1e-150, b = 1e-300: L ≈ 1/b and D ≈ 1/σ2² − 745 differ by the 16th digit of the two inputs' reciprocals)
    the decision may differ from the reference's exact one (reference/ptr/thm4_3.py, case2_dominates_at)."""
    n_max = int(n.max()) if n.numel() else 2
    ell = torch.arange(2, max(n_max, 2) + 1, dtype=n.dtype, device=n.device)
    nn, s1, s2, bb, d0 = (x.unsqueeze(-1) for x in (n, sigma1, sigma2, b, delta0))
    above = s1 > s2  # d > 0
    # where d ≤ 0 the value is not used: stand-ins σ1 = 2, σ2 = 1 keep every log finite
    s1a, s2a = torch.where(above, s1, torch.full_like(s1, 2.0)), torch.where(above, s2, torch.ones_like(s2))
    log_d = (torch.log(ell * (ell - 1) / 2) + torch.log(s1a - s2a) + torch.log1p(s2a / s1a) - torch.log(s1a)
             - 2 * torch.log(s2a))
    d = torch.exp(torch.clamp(log_d, max=700.0))
    y = torch.log(d0) + torch.where(log_d < -30, log_d + d / 2, log_expm1(d))  # ln(δ0·expm1(d))
    # d > e^700: D = d + ln δ0 + O(e^{−d}) with |ln δ0| ≤ 745, so ln D = ln d to double precision
    log_D = torch.where(log_d > 700, log_d, _log_of_log1p(y))
    holds = ~above | (_log_laplace_log_moment(ell, bb) >= log_D)
    return (holds | (ell > nn)).all(dim=-1)


def zw19_lower(alpha, q, sigma1, sigma2, b, delta0, allow_outside: bool = False) -> torch.Tensor:
    """The [ZW19] tight formula with ε(ℓ) = Theorem 4.3 at ⌊α⌋ (0 for α < 2) (Fig. 2 "lower bound"; mirrors
    ``ptr.zw19_lower``). A lower bound only where T2(ℓ) ≥ T1(ℓ) for 2 ≤ ℓ ≤ α (erratum E7): ConditionError
    elsewhere unless ``allow_outside``."""
    alpha, q, sigma1, sigma2, b, delta0 = _zw19_args(alpha, q, sigma1, sigma2, b, delta0)
    n = torch.floor(alpha)
    if not allow_outside and not bool(_case2_dominates(n.reshape(-1), *(x.reshape(-1) for x in (
            sigma1, sigma2, b, delta0))).all()):
        raise ConditionError("ptr.zw19_lower", [ZW19_LOWER_CASE2_DOMINATES.describe()])
    shape = alpha.shape
    flat = [x.reshape(-1) for x in (n, q, sigma1, sigma2, b, delta0)]
    k = log1p_exp(_zw19_log_excess(torch.clamp(flat[0], min=2), *flat[1:], factor_3=False))
    out = torch.where(flat[0] >= 2, k / (flat[0] - 1), torch.zeros_like(k))
    huge = torch.isinf(out)
    if bool(huge.any()):  # K = log Σ overflowed although K/(α − 1) may be a double: form the quotient directly
        out[huge] = _zw19_lower_top(*(x[huge] for x in flat))
    return out.reshape(shape)


def _zw19_lower_top(n, q, sigma1, sigma2, b, delta0) -> torch.Tensor:
    """K(n)/(n − 1) where K overflows (terms (ℓ−1)ε(ℓ) beyond ~1e308, e.g. b = 2.2e-308: ε ≈ 4.5e307): then one term
    of the sum exceeds all others by a factor e^{1e290} or more, so K = max_ℓ [log w_ℓ + (ℓ−1)ε(ℓ)] up to
    log(n) + log 2 absolute, and K/(n − 1) = max_ℓ [log w_ℓ/(n−1) + ((ℓ−1)/(n−1))·ε(ℓ)] is formed without the
    overflowing product (relative error below 1e-290 at these sizes). A LOWER bound must not become inf where the
    value is a double: the fast path answered inf at 4.49e307 (found by the agreement run)."""
    n_max = int(n.max())
    ell = torch.arange(2, n_max + 1, dtype=n.dtype, device=n.device)
    nn, qq, s1, s2, bb, d0 = (t.unsqueeze(-1) for t in (n, q, sigma1, sigma2, b, delta0))
    l_ = torch.minimum(ell, nn)
    eps_ell = _thm4_3_eps(l_, s1, s2, bb, d0, _inv_sq(s1))
    log_w = (torch.lgamma(nn + 1) - torch.lgamma(l_ + 1) - torch.lgamma(nn - l_ + 1) + l_ * torch.log(qq)
             + torch.special.xlog1py(nn - l_, -qq))
    terms = log_w / (nn - 1) + ((l_ - 1) / (nn - 1)) * eps_ell
    terms = torch.where((ell <= nn) & ~torch.isneginf(log_w), terms, torch.full_like(terms, -math.inf))
    return terms.max(dim=-1).values
