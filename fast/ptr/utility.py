"""Theorem 5.2 of the PTR paper (convergence of SGD with PTR(SUM, TSUM_F) under F corrupted gradients, appendix 000
A.4, eqs. (93)–(96), hypothesis (151)), vectorised. Mirrors ``ptr.thm5_2`` (reference/ptr/thm5_2.py, which
derives the statement and lists its errata E9–E11 and its renamings).

Numerics. Every parameter may be anywhere in its domain (λ, β, R, σ's, η_B up to 1e308 or down to 1e-320), so
products such as 2λ(n−2F), η_B², σ2² or (n−F)(n+1)/n² over- or underflow float64 although the bound M_B/(1 − ρ_B)
is an ordinary double (λ = 1e308 gave 0.0 where the bound is 6.25e-308). The formula and the conditions are
therefore evaluated in base-2 log space: each quantity is a pair (m, e) = m·2^e with |m| ∈ [1/2, 1) (``torch.frexp``)
and a float64 exponent, so products and quotients are exact in the exponent and rounded once in the mantissa
(as float64 arithmetic would be without overflow), sums are aligned on the larger exponent, and only the final
value is rounded to float64 (0 or inf only when the bound itself is outside the float64 range).
"""
from __future__ import annotations

import torch

from dpspec.reference.domains import NOISE
from dpspec.reference.errors import ConditionError
from dpspec.reference.ptr.spec import (COUNT, NONNEGATIVE, POSITIVE, THM5_2_F_BELOW_HALF, THM5_2_SIGMA2,
                                      THM5_2_STEP_SIZE, TRIM)

from .._torch import params

_SHIFT_MIN = -1100.0  # an alignment shift below this leaves nothing of the smaller mantissa (2^-1100 < 2^-1074)


def _split(x: torch.Tensor):
    """x as (m, e): x = m·2^e, |m| ∈ [1/2, 1) or m = 0 (e = 0)."""
    m, e = torch.frexp(x)
    return m, e.to(x.dtype)


def _renorm(m, e):
    mm, de = torch.frexp(m)
    return mm, e + de.to(e.dtype)


def _mul(a, b):
    return _renorm(a[0] * b[0], a[1] + b[1])


def _div(a, b):
    return _renorm(a[0] / b[0], a[1] - b[1])


def _add(a, b):
    """a + b, aligned on the larger exponent of the non-zero terms (a zero term contributes exactly 0)."""
    (ma, ea), (mb, eb) = a, b
    neg_inf = torch.full_like(ea, -torch.inf)
    top = torch.maximum(torch.where(ma == 0, neg_inf, ea), torch.where(mb == 0, neg_inf, eb))
    top = torch.where(torch.isinf(top), torch.zeros_like(top), top)  # both zero
    shift_a = torch.clamp(ea - top, min=_SHIFT_MIN, max=0.0)
    shift_b = torch.clamp(eb - top, min=_SHIFT_MIN, max=0.0)
    return _renorm(ma * torch.exp2(shift_a) + mb * torch.exp2(shift_b), top)


def _neg(a):
    return -a[0], a[1]


def _value(a) -> torch.Tensor:
    """m·2^e rounded once to float64 (2^e applied in two halves, so that m·2^e is formed whenever representable)."""
    m, e = a
    half = torch.floor(e / 2)
    return m * torch.exp2(torch.clamp(half, -1100.0, 1100.0)) * torch.exp2(torch.clamp(e - half, -1100.0, 1100.0))


def _positive(a) -> torch.Tensor:
    return a[0] > 0


def _nonnegative(a) -> torch.Tensor:
    return a[0] >= 0


def _terms(n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B):
    """The quantities of eqs. (93)–(96) and (151) as (m, e) pairs, from checked float64 tensors."""
    n_, F_, d_, R_, beta_, lam_, sg_, s1_, s2_, eta_ = (_split(t) for t in
                                                        (n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B))
    n_minus_F = _split(n - F)  # exact: integers below 2^53 (beyond, rounded once, as the reference's inputs are)
    curvature = _add(_mul(n_, n_), _mul(_mul(_split(n - F + 1), n_minus_F), _mul(beta_, beta_)))  # n² + (n−F+1)(n−F)β²
    drift = _mul(_mul(_split(torch.full_like(n, 2.0)), lam_), _split(n - 2 * F))  # 2λ(n−2F)
    gap = _add(drift, _neg(_mul(eta_, curvature)))  # (1 − ρ_B)/η_B, eq. (95)
    spread = _mul(_split(n - F + 1), _add(_mul(n_minus_F, _mul(sg_, sg_)), _mul(d_, _mul(s2_, s2_))))
    f_over_n = _div(F_, n_)
    bias = _mul(_mul(f_over_n, f_over_n), _mul(R_, R_))  # (F/n)² R²
    # (151): σ2² − ((n−F)(n+1)/n²)(((n−F)σ_g² + F R²)/d + σ1²)
    noise = _add(_div(_add(_mul(n_minus_F, _mul(sg_, sg_)), _mul(F_, _mul(R_, R_))), d_), _mul(s1_, s1_))
    s2_min_sq = _mul(_div(_mul(n_minus_F, _split(n + 1)), _mul(n_, n_)), noise)
    s2_margin = _add(_mul(s2_, s2_), _neg(s2_min_sq))
    # M_B/(1 − ρ_B) with η_B divided out of both: (η_B·spread + (F/n)²R²/η_B)/gap
    bound = _div(_add(_mul(eta_, spread), _div(bias, eta_)), gap)
    return gap, s2_margin, bound


def thm5_2(n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B, allow_outside: bool = False) -> torch.Tensor:
    """lim sup E||w^(t) − w*||² ≤ M_B/(1 − ρ_B) (eq. (93)), elementwise, with
    1 − ρ_B = η_B(2λ(n−2F) − η_B(n² + (n−F+1)(n−F)β²)) formed without the cancellation of 1 − ρ_B (eq. (95)),
    M_B = η_B²(n−F+1)((n−F)σ_g² + dσ2²) + (F/n)²R² (eq. (96)), η_B divided out of both, in base-2 log space
    (module docstring): no intermediate over- or underflow. Raises ConditionError where F < n/2, the step-size
    bound (94) or hypothesis (151) fails (evaluated in the same arithmetic), unless ``allow_outside`` (then the
    values there are not bounds)."""
    n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B = params(
        n=(n, COUNT), F=(F, TRIM), d=(d, COUNT), R=(R, POSITIVE), beta=(beta, POSITIVE),
        lam_sc=(lam_sc, POSITIVE), sigma_g=(sigma_g, NONNEGATIVE), sigma1=(sigma1, NOISE), sigma2=(sigma2, NOISE),
        eta_B=(eta_B, POSITIVE))
    gap, s2_margin, bound = _terms(n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B)
    if not allow_outside:
        failed = []
        if not bool((2 * F < n).all()):
            failed.append(THM5_2_F_BELOW_HALF.describe())
        if not bool(_positive(gap).all()):  # η_B < 2λ(n−2F)/(n² + …)  ⇔  2λ(n−2F) − η_B(n² + …) > 0
            failed.append(THM5_2_STEP_SIZE.describe())
        if not bool(_nonnegative(s2_margin).all()):
            failed.append(THM5_2_SIGMA2.describe())
        if failed:
            raise ConditionError("ptr.thm5_2", failed)
    return _value(bound)
