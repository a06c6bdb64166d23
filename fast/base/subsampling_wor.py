"""Sampling without replacement and the replace-one relation, vectorised (mirrors reference/base/subsampling_wor.py,
whose docstring gives the pairs, their sources and derivations): base.sgm_wor_profile, base.sgm_replace_one_profile,
base.sgm_wor_rdp (WBK19, arXiv 1808.00087, Thm 9) and base.sgm_replace_one_rdp (Mironov 2017, Prop. 11).

Float64 accuracy. The WOR profile is fast/base/sgm_profile.py's reduction at (γ, σ/2) (its accuracy note applies).
The replace-one profile is P(X > x*) − e^ε Q(X > x*) in log space (log(e^a − e^b)); x* is where P(S) − e^ε Q(S) is
largest, so its rounding enters to second order, but the difference loses log10(P(X > x*)/δ) digits (measured
against the reference in tests/base/test_subsampling_wor.py; the statement's tolerance is 1e-8). WBK19's sum is
formed in log space with log-binomials from lgamma, in blocks of orders (no loop over points).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import (EPS_REAL, WOR_ALPHA, WOR_ALPHA_MAX, WOR_BATCH, WOR_BATCH_WITHIN_DATA,
                                        WOR_DATASET)
from dpspec.reference.domains import ALPHA, NOISE, SAMPLING_RATE
from dpspec.reference.errors import ConditionError, ParameterError

from .._torch import log_sub, params
from .gaussian import log_delta_sigma
from .pld_pairs_wor import replace_one_threshold
from .sgm import sgm_rdp
from .sgm_profile import log_subsampled

_BLOCK = 512  # orders j summed at once in WBK19's bound
_HALF_MAX = torch.finfo(torch.float64).max / 2


def _gamma(m: torch.Tensor, n: torch.Tensor, who: str, allow_outside: bool = False) -> torch.Tensor:
    """γ = m/n; ConditionError where m > n (as the catalogue's condition check), and with ``allow_outside``
    ParameterError all the same (no batch of m > n records exists: there is nothing to evaluate)."""
    if not bool((m <= n).all()):
        if allow_outside:
            over = m > n
            raise ParameterError(f"{who}: m={int(m[over].flatten()[0])} > n={int(n[over].flatten()[0])}: "
                                 f"{WOR_BATCH_WITHIN_DATA.text}")
        raise ConditionError(who, [WOR_BATCH_WITHIN_DATA.describe()])
    return m / n


def sgm_wor_profile(eps, m, n, sigma, allow_outside: bool = False) -> torch.Tensor:
    """δ(ε) of one Gaussian step on m of n records without replacement, replace-one, both orders (the larger),
    elementwise (mirrors ``base.sgm_wor_profile``; m > n: ConditionError, or ParameterError with allow_outside)."""
    eps, m, n, sigma = params(eps=(eps, EPS_REAL), m=(m, WOR_BATCH), n=(n, WOR_DATASET), sigma=(sigma, NOISE))
    g = _gamma(m, n, "base.sgm_wor_profile", allow_outside)
    half = sigma / 2
    return torch.exp(log_subsampled(eps, g, "max", lambda t: log_delta_sigma(t, half)))


def sgm_replace_one_profile(eps, q, sigma) -> torch.Tensor:
    """δ(ε) of one Poisson-subsampled Gaussian step under replace-one neighbours, elementwise (mirrors
    ``base.sgm_replace_one_profile``): log(e^{log P(X > x*)} − e^{ε + log Q(X > x*)})."""
    eps, q, sigma = params(eps=(eps, EPS_REAL), q=(q, SAMPLING_RATE), sigma=(sigma, NOISE))
    x = replace_one_threshold(eps, q, sigma)
    log_1mq, log_q = torch.log1p(-q), torch.log(q)
    ln = torch.special.log_ndtr
    t0, tp, tm = ln(-x / sigma), ln(-(x - 1) / sigma), ln(-(x + 1) / sigma)
    log_p = torch.logaddexp(log_1mq + t0, log_q + tp)
    log_qq = eps + torch.logaddexp(log_1mq + t0, log_q + tm)
    out = log_sub(log_p, torch.minimum(log_qq, log_p))
    return torch.exp(out)


def _wbk_log_moment(k: torch.Tensor, log_g: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """log of WBK19 Thm 9's moment bound at integer orders k ≥ 2 (reference: _wbk_log_moment), elementwise."""
    e2 = 4 / (sigma * sigma)
    second = torch.minimum(math.log(4) + e2 + torch.log(-torch.expm1(-e2)), math.log(2) + e2)
    lgk = torch.lgamma(k + 1)
    acc = torch.logaddexp(torch.zeros_like(k),
                          lgk - math.log(2) - torch.lgamma(k - 1) + 2 * log_g + second)  # 1 + j = 2 term
    k_max = int(k.max().item()) if k.numel() else 2
    for start in range(3, k_max + 1, _BLOCK):
        j = torch.arange(start, min(start + _BLOCK, k_max + 1), dtype=k.dtype, device=k.device)
        kk, jj = k.unsqueeze(-1), j
        terms = (math.log(2) + lgk.unsqueeze(-1) - torch.lgamma(jj + 1) - torch.lgamma((kk - jj).clamp(min=0) + 1)
                 + jj * log_g.unsqueeze(-1) + (jj - 1) * 2 * jj / (sigma * sigma).unsqueeze(-1))
        terms = torch.where(jj <= kk, terms, torch.full_like(terms, -math.inf))
        acc = torch.logaddexp(acc, torch.logsumexp(terms, dim=-1))
    return acc


def _wor_rdp(alpha, m, n, sigma):
    """WBK19's bound with K interpolated linearly between ⌊α⌋ and ⌈α⌉ (K(1) = 0); α ≤ WOR_ALPHA_MAX, unchecked."""
    log_g = torch.log(m / n)
    lo, hi = torch.floor(alpha), torch.ceil(alpha)
    both = torch.cat([lo.reshape(-1), hi.reshape(-1)])
    rep = lambda v: torch.cat([v.reshape(-1), v.reshape(-1)])  # noqa: E731
    k = _wbk_log_moment(both.clamp(min=2), rep(log_g), rep(sigma))
    k = torch.where(both < 2, torch.zeros_like(k), k)
    k_lo, k_hi = k[: lo.numel()].reshape(alpha.shape), k[lo.numel():].reshape(alpha.shape)
    t = alpha - lo
    return ((1 - t) * k_lo + t * k_hi) / (alpha - 1)


def sgm_wor_rdp(alpha, m, n, sigma, allow_outside: bool = False) -> torch.Tensor:
    """WBK19 Thm 9 RDP bound of one Gaussian step on m of n records without replacement (replace-one),
    elementwise (mirrors ``base.sgm_wor_rdp``; α ≤ 1e4; m > n as in :func:`sgm_wor_profile`)."""
    alpha, m, n, sigma = params(alpha=(alpha, WOR_ALPHA), m=(m, WOR_BATCH), n=(n, WOR_DATASET), sigma=(sigma, NOISE))
    _gamma(m, n, "base.sgm_wor_rdp", allow_outside)
    return _wor_rdp(alpha, m, n, sigma)


def sgm_wor_rdp_curve(alpha, m, n, sigma) -> torch.Tensor:
    """The accountant's per-step curve (fast/mechanisms.py): ``sgm_wor_rdp`` where α ≤ WOR_ALPHA_MAX and +inf (a
    valid, vacuous bound) above, so that the order search may try any α > 1."""
    alpha, m, n, sigma = params(alpha=(alpha, ALPHA), m=(m, WOR_BATCH), n=(n, WOR_DATASET), sigma=(sigma, NOISE))
    _gamma(m, n, "base.sgm_wor_rdp")
    inside = alpha <= WOR_ALPHA_MAX
    value = _wor_rdp(torch.where(inside, alpha, torch.full_like(alpha, 2.0)), m, n, sigma)
    return torch.where(inside, value, torch.full_like(value, math.inf))


def sgm_replace_one_rdp(alpha, q, sigma) -> torch.Tensor:
    """(α − 1/2)/(α − 1)·ε_sgm(2α) + ε_sgm(2α − 1), ε_sgm the remove-direction base.sgm_rdp (mirrors
    ``base.sgm_replace_one_rdp``), elementwise."""
    alpha, q, sigma = params(alpha=(alpha, ALPHA), q=(q, SAMPLING_RATE), sigma=(sigma, NOISE))
    big = alpha > _HALF_MAX  # 2α overflows float64: +inf there (a vacuous, valid bound; the order search reaches it)
    a = torch.where(big, torch.full_like(alpha, 2.0), alpha)
    value = ((a - 0.5) / (a - 1) * sgm_rdp(2 * a, q, sigma, direction="remove")
             + sgm_rdp(2 * a - 1, q, sigma, direction="remove"))
    return torch.where(big, torch.full_like(value, math.inf), value)
