"""The Laplace mechanism (sensitivity 1, scale b): RDP curve, pure ε and exact privacy profile.

Mirrors ``base.laplace_rdp``, ``base.laplace_pure`` and ``base.laplace_profile`` (reference/base/laplace.py).
"""
from __future__ import annotations

import torch

from dpspec.reference.base.spec import LAPLACE_ALPHA
from dpspec.reference.domains import EPS, NOISE

from .._torch import params


def laplace_rdp(alpha, b) -> torch.Tensor:
    """ε(α) = log(α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b})/(α−1) (Mironov 2017, Prop. 6), elementwise.

    Factoring α/(2α−1)·e^{(α−1)/b} out of the sum and using α/(2α−1) = 1 − (α−1)/(2α−1):
        (α−1)·ε(α) = (α−1)/b + log1p(−(α−1)/(2α−1)) + log1p((α−1)/α · e^{−(2α−1)/b})
                   = (α−1)/b + log1p((α−1)/(2α−1) · expm1(−(2α−1)/b)),
    (the two log1p terms combine because (1 + x e^{−c})/(1 + x) = 1 + x/(1 + x)·(e^{−c} − 1) with
    x = (α−1)/α, x/(1 + x) = (α−1)/(2α−1)): nothing overflows, and every term is O(α − 1), so the quotient
    near α = 1 is formed without 0/0. ε(1) = 1/b + e^{−1/b} − 1 (KL), ε(∞) = 1/b (Mironov 2017, Table II)."""
    alpha, b = params(alpha=(alpha, LAPLACE_ALPHA), b=(b, NOISE))
    inf, one = torch.isinf(alpha), alpha == 1
    a = torch.where(inf | one, torch.full_like(alpha, 2.0), alpha)
    e = a - 1
    finite = e / b + torch.log1p(e / (2 * a - 1) * torch.expm1(-(2 * a - 1) / b))
    return torch.where(inf, 1 / b, torch.where(one, 1 / b + torch.expm1(-1 / b), finite / e))


def laplace_pure(b) -> torch.Tensor:
    """ε = 1/b (Dwork & Roth 2014, Thm 3.6)."""
    (b,) = params(b=(b, NOISE))
    return 1 / b


def _two_product_minus_one(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """x·y − 1 with the product's rounding error restored (Dekker's two-product with Veltkamp splitting, no fma):
    p = fl(xy) and err = xy − p exactly, so (p − 1) + err is accurate even when xy ≈ 1 (p − 1 is then exact)."""
    def split(v):
        c = 134217729.0 * v  # 2^27 + 1
        hi = c - (c - v)
        return hi, v - hi

    p = x * y
    xh, xl = split(x)
    yh, yl = split(y)
    err = ((xh * yh - p) + xh * yl + xl * yh) + xl * yl
    return (p - 1) + err


def laplace_profile(eps, b) -> torch.Tensor:
    """δ(ε) = max(0, 1 − e^{(ε − 1/b)/2}), computed as −expm1((εb − 1)/(2b)) below 1/b, with εb − 1 formed
    without cancellation (ε − 1/b in floats would inherit the rounding of 1/b: 20% off at ε = 1, b = 1 − 6e-16)."""
    eps, b = params(eps=(eps, EPS), b=(b, NOISE))
    big = torch.isfinite(eps * b) & (torch.abs(eps * b) < 1e300)
    gap = torch.where(big, _two_product_minus_one(eps, b), eps * b - 1)  # split overflows beyond ~1e300
    return torch.where(gap >= 0, torch.zeros_like(eps), -torch.expm1(gap / (2 * b)))
