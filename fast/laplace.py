"""The Laplace mechanism (sensitivity 1, scale b): RDP curve, pure ε and exact privacy profile.

Mirrors ``base.laplace_rdp``, ``base.laplace_pure`` and ``base.laplace_profile`` (reference/laplace.py).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.domains import EPS, NOISE, Real

from ._torch import params

LAPLACE_ALPHA = Real(1, math.inf, lo_open=False, hi_open=False, allow_inf=True)


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


def laplace_profile(eps, b) -> torch.Tensor:
    """δ(ε) = max(0, 1 − e^{(ε − 1/b)/2}), computed as −expm1((ε − 1/b)/2) below 1/b."""
    eps, b = params(eps=(eps, EPS), b=(b, NOISE))
    return torch.where(eps >= 1 / b, torch.zeros_like(eps), -torch.expm1((eps - 1 / b) / 2))
