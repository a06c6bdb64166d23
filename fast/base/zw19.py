"""Poisson subsampling of any mechanism given its RDP curve (Zhu & Wang, ICML 2019, "ZW19"), vectorised over
the parameters with a padded ℓ-axis. Mirrors reference/base/zw19.py (see its docstring for the statements, where
they come from, and the treatment of non-integer α).

With γ = q, w_ℓ = C(α,ℓ)(1−γ)^{α−ℓ}γ^ℓ and Σ_{ℓ=0}^{α} w_ℓ = 1, the ℓ = 0, 1 head of both sums is
(1−γ)^{α−1}(αγ − γ + 1) = w_0 + w_1 = 1 − Σ_{ℓ≥2} w_ℓ, so the cumulants K(α) = (α−1)·ε_sub(α) are
    Thm 6 (upper):  K = log1p( w_2(e^{ε(2)} − 1) + Σ_{ℓ≥3} w_ℓ (3e^{(ℓ−1)ε(ℓ)} − 1) ),
    Thm 5 (lower):  K = log1p( Σ_{ℓ≥2} w_ℓ (e^{(ℓ−1)ε(ℓ)} − 1) ),
sums of non-negative terms (ε ≥ 0), formed in log space. The printed form 1 − O(γ²) + O(γ²) would cancel
catastrophically in float64 for small γ (at γ = 1e-8 every digit is lost); this form keeps full relative
precision. log C(α,ℓ) comes from lgamma (absolute error ~1e-16·log Γ(α), i.e. ~1e-13 relative at α ~ 10³).

The curve: a callable taking a float tensor of integer orders ℓ of shape (1,)*batch.ndim + (L,) and returning
ε(ℓ) broadcastable to batch + (L,) (batch = the broadcast shape of alpha and q), e.g.
``lambda a: gaussian_rdp(a, sigma)`` or ``conversion.rdp_curve("base.sgm_rdp", q=0.01, sigma=1)``.
Cost O(batch × ⌈max α⌉) memory and time; α ≤ ZW19_ALPHA_MAX = 1e4 (reference/base/spec.py).
"""
from __future__ import annotations

import math
from typing import Callable

import torch

from dpspec.reference.base.spec import ZW19_ALPHA
from dpspec.reference.domains import SAMPLING_RATE

from .._torch import lbinom, log1p_exp, log_expm1, params

_LOG2, _LOG3 = math.log(2.0), math.log(3.0)


def log_excess(m: torch.Tensor, q: torch.Tensor, ell: torch.Tensor, eps_ell: torch.Tensor, factor_3: bool):
    """log of the non-negative sum in K(m) (module docstring), for integer m ≥ 2; shapes: m, q batch + (1,);
    ell, eps_ell broadcastable to batch + (L,)."""
    log_w = lbinom(m, torch.minimum(ell, m)) + ell * torch.log(q) + torch.special.xlog1py(m - ell, -q)
    x = (ell - 1) * eps_ell
    if factor_3:  # log(3e^x − 1) = log 2 + log1p(1.5·expm1(x)) for ℓ ≥ 3; log(e^x − 1) for ℓ = 2
        log_gain = torch.where(ell >= 3, _LOG2 + torch.log1p(1.5 * torch.expm1(torch.clamp(x, max=700.0)))
                               + torch.clamp(x - 700.0, min=0.0), log_expm1(x))
    else:
        log_gain = log_expm1(x)
    # a weight that is exactly 0 (q = 1: (1−q)^{m−ℓ} = 0 for ℓ < m) contributes 0 even where the gain is infinite
    # (ε(ℓ) = inf, e.g. Laplace b = 1e-323): −inf + inf would be NaN
    terms = torch.where((ell <= m) & ~torch.isneginf(log_w), log_w + log_gain, torch.full_like(log_w, -math.inf))
    return torch.logsumexp(terms, dim=-1)


def _cgf(m: torch.Tensor, q: torch.Tensor, curve: Callable, factor_3: bool) -> torch.Tensor:
    """K(m) = log(1 + excess) at the integer orders m ≥ 2 (any shape, broadcast with q)."""
    m, q = torch.broadcast_tensors(m, q)
    n_max = int(m.max().item())
    ell = torch.arange(2, n_max + 1, dtype=m.dtype, device=m.device).reshape((1,) * m.ndim + (-1,))
    eps_ell = torch.as_tensor(curve(ell), dtype=m.dtype, device=m.device)
    if bool((eps_ell < 0).any()) or bool(torch.isnan(eps_ell).any()):
        raise ValueError("curve: an RDP curve must return ε(ℓ) ≥ 0 (no NaN)")
    excess = log_excess(m.unsqueeze(-1), q.unsqueeze(-1), ell, eps_ell, factor_3)
    return log1p_exp(excess)


def zw19_upper(alpha, q, curve: Callable) -> torch.Tensor:
    """ZW19 Thm 6 black-box upper bound on the RDP of M∘PoissonSample(q); non-integer α by linear interpolation
    of K between ⌊α⌋ and ⌈α⌉ (K(1) = 0), as ``base.zw19_upper``."""
    alpha, q = params(alpha=(alpha, ZW19_ALPHA), q=(q, SAMPLING_RATE))
    n = torch.floor(alpha)
    k = _cgf(torch.stack([torch.clamp(n, min=2), n + 1]), q, curve, factor_3=True)
    k_low = torch.where(n >= 2, k[0], torch.zeros_like(k[0]))
    t = alpha - n
    k_alpha = torch.where(t == 0, k_low, (1 - t) * k_low + t * k[1])
    return k_alpha / (alpha - 1)


def zw19_lower(alpha, q, curve: Callable) -> torch.Tensor:
    """ZW19 Thm 5 tight formula at ⌊α⌋ (0 for α < 2), as ``base.zw19_lower``."""
    alpha, q = params(alpha=(alpha, ZW19_ALPHA), q=(q, SAMPLING_RATE))
    n = torch.floor(alpha)
    k = _cgf(torch.clamp(n, min=2), q, curve, factor_3=False)
    return torch.where(n >= 2, k / torch.clamp(n - 1, min=1), torch.zeros_like(k))
