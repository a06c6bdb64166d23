"""The Laplace mechanism (sensitivity 1, scale b): RDP curve, pure ε and exact privacy profile.

Mirrors ``base.laplace_rdp``, ``base.laplace_pure`` and ``base.laplace_profile`` (reference/base/laplace.py).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import EPS_REAL, LAPLACE_ALPHA
from dpspec.reference.domains import NOISE

from .._torch import params


_EXCESS_SERIES = tuple(1 / math.factorial(n) for n in range(2, 21))  # e^y − 1 − y = Σ_{n≥2} y^n/n!


def exp_excess(y: torch.Tensor) -> torch.Tensor:
    """E(y) = e^y − 1 − y ≥ 0 without cancellation: the Taylor series to n = 20 for |y| ≤ 1/2 (the first omitted
    term is below 1e-20 of the sum), else expm1(y) − y (at most a factor 5 of cancellation at |y| = 1/2)."""
    small = y.abs() <= 0.5
    ys = torch.where(small, y, torch.zeros_like(y))
    series = torch.zeros_like(y)
    for c in reversed(_EXCESS_SERIES):
        series = series * ys + c
    return torch.where(small, ys * ys * series, torch.expm1(y) - y)


def laplace_rdp(alpha, b) -> torch.Tensor:
    """ε(α) = log(α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b})/(α−1) (Mironov 2017, Prop. 6), elementwise, in the
    two forms of reference/base/laplace.py (x = 1/b, w₁ = α/(2α−1), w₂ = (α−1)/(2α−1), E(y) = e^y − 1 − y):

    * (α−1)x ≤ 1: (α−1)·ε(α) = log1p(w₁E((α−1)x) + w₂E(−αx)), non-negative terms (w₁p + w₂q = 0), nothing
      cancels and nothing overflows; for large b the printed form cancels O(1/b) terms down to ≈ α/(2b²)
      (b = 1e15 was 1.4% off, b = 1e300 gave a negative ε);
    * (α−1)x > 1: factoring α/(2α−1)·e^{(α−1)x} out of the sum,
          ε(α) = x + log1p((α−1)/(2α−1) · expm1(−(2α−1)x))/(α−1),
      where the log1p term is between log(1/2) and 0 and x dominates: no cancellation, and no (α−1)x product that
      overflows (α = 1e15, b = 1e-300 gave inf where ε = 1e300).

    ε(1) = E(−x) (the KL divergence), ε(∞) = x (Mironov 2017, Table II)."""
    alpha, b = params(alpha=(alpha, LAPLACE_ALPHA), b=(b, NOISE))
    inf, one = torch.isinf(alpha), alpha == 1
    a = torch.where(inf | one, torch.full_like(alpha, 2.0), alpha)
    e, x = a - 1, 1 / b
    near = e * x <= 1
    xn = torch.where(near, x, torch.zeros_like(x))
    cumulant = torch.log1p(a / (2 * a - 1) * exp_excess(e * xn) + e / (2 * a - 1) * exp_excess(-a * xn)) / e
    far = x + torch.log1p(e / (2 * a - 1) * torch.expm1(-(2 * a - 1) * x)) / e
    return torch.where(inf, x, torch.where(one, exp_excess(-x), torch.where(near, cumulant, far)))


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
    """δ(ε) = max(0, 1 − e^{(ε − 1/b)/2}) for ε ≥ −1/b and 1 − e^ε below (every real ε; mirrors
    ``base.laplace_profile``), elementwise (:func:`laplace_profile_unchecked`)."""
    eps, b = params(eps=(eps, EPS_REAL), b=(b, NOISE))
    return laplace_profile_unchecked(eps, b)


def laplace_profile_unchecked(eps: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """δ(ε) of Lap(1, b) vs Lap(0, b) on checked, broadcast tensors: −expm1((εb − 1)/(2b)) below 1/b, with εb − 1
    formed without cancellation (ε − 1/b in floats would inherit the rounding of 1/b: 20% off at ε = 1,
    b = 1 − 6e-16). The product is taken as ε'·m with b = m·2^k (frexp, m ∈ [½, 1)) and ε' = ε·2^k, exact rescalings,
    so that the splitting of the two-product neither over- nor underflows (it gave NaN for b ≥ 1.3e300, e.g. ε = 0,
    b = 1e308); ε' ≥ 1e300 means εb > 1e299: δ = 0. Where εb ≤ −1 (ε < 0), −expm1(ε) (the two forms agree at
    εb = −1, so the float product decides the branch)."""
    low = eps * b <= -1
    out = _profile_above(torch.where(low, torch.zeros_like(eps), eps), b)
    return torch.where(low, -torch.expm1(torch.clamp(eps, max=0.0)), out)


def _profile_above(eps: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """−expm1((εb − 1)/(2b)) where εb > −1, 0 where εb ≥ 1 (:func:`laplace_profile_unchecked`)."""
    mant, expo = torch.frexp(b)
    half = torch.div(expo, 2, rounding_mode="floor")
    scaled = eps * torch.exp2(half.to(b.dtype)) * torch.exp2((expo - half).to(b.dtype))
    huge = ~(scaled < 1e300)
    gap = torch.where(huge, torch.ones_like(eps), _two_product_minus_one(torch.where(huge, torch.zeros_like(eps),
                                                                                     scaled), mant))
    return torch.where(gap >= 0, torch.zeros_like(eps), -torch.expm1(gap / (2 * b)))
