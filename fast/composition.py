"""Composition, vectorised: RDP additivity and basic (ε, δ) composition (base.rdp_composition,
base.basic_composition), and homogeneous composition of (ε, δ)-DP mechanisms (Kairouz, Oh & Viswanath, ICML
2015, "KOV15") with a padded ℓ-axis (ℓ = 0..max k of the batch). Mirrors reference/composition.py (its docstring
derives the profile of the k-fold canonical pair).

With p = e^ε/(1+e^ε), w_ℓ = C(k,ℓ) p^{k−ℓ} (1−p)^ℓ (Σ w_ℓ = 1) and the active set ℓ with (k−2ℓ)ε > ε_g:
    δ₀(ε_g) = Σ_active w_ℓ (1 − e^{ε_g − (k−2ℓ)ε}),
    1 − δ₀  = Σ_inactive w_ℓ + Σ_active w_ℓ e^{ε_g − (k−2ℓ)ε}     (used when δ₀ > 1/2, no cancellation),
    δ_g     = −expm1(k log1p(−δ) + log(1 − δ₀))                      (KOV15 Thm 3.3).
All sums are of non-negative terms, in log space. log C(k,ℓ) comes from lgamma: its absolute error grows like
1e-16·log Γ(k+1) (≈ 3e-12 relative at k = 2000, 1e-10 at k ≈ 5·10⁴); the statement's domain allows k ≤ 10⁵.
Memory: batch × (max k + 1) float64 values per temporary.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.domains import ALPHA, EPS, STEPS, Integer, Real
from dpspec.reference.errors import DomainError

from ._torch import lbinom, params

# the domains of reference/composition.py (copied: that module imports mpmath)
STEP_DELTA = Real(0, 1, lo_open=False, hi_open=True, scale="log", sample_lo=1e-12, sample_hi=0.5)
SLACK_DELTA = Real(0, 1, lo_open=True, hi_open=False, scale="log", sample_lo=1e-300, sample_hi=1)
PER_STEP_EPS = Real(0, math.inf, lo_open=True, hi_open=True, sample_lo=1e-3, sample_hi=5)
KOV_STEPS = Integer(1, 10**5, scale="log", sample_hi=2000)


def rdp_composition(curve, steps, alpha) -> torch.Tensor:
    """ε_T(α) = T·ε(α) (Mironov 2017, Prop. 1), elementwise; ``curve`` maps an α tensor to ε(α) (e.g.
    :func:`dpspec.fast.conversion.rdp_curve`). A negative ε(α) is no RDP curve: DomainError, as the reference."""
    steps, alpha = params(steps=(steps, STEPS), alpha=(alpha, ALPHA))
    value = curve(alpha)
    if bool((value < 0).any()) or bool(torch.isnan(value).any()):
        bad = value[(value < 0) | torch.isnan(value)][0].item()
        raise DomainError("curve", f"eps(alpha) = {bad!r}", "an RDP curve with eps(alpha) >= 0")
    return steps * value


def basic_composition(eps, delta, k) -> tuple[torch.Tensor, torch.Tensor]:
    """(kε, kδ) (Dwork & Roth 2014, Thm 3.16), elementwise."""
    eps, delta, k = params(eps=(eps, EPS), delta=(delta, STEP_DELTA), k=(k, STEPS))
    return k * eps, k * delta


def kov15_profile(eps, delta, k, eps_total) -> torch.Tensor:
    """δ_g = 1 − (1−δ)^k (1 − Σ_ℓ C(k,ℓ)(e^{(k−ℓ)ε} − e^{ε_g+ℓε})₊/(1+e^ε)^k) (KOV15 Thm 3.3), elementwise."""
    eps, delta, k, eps_total = params(eps=(eps, PER_STEP_EPS), delta=(delta, STEP_DELTA), k=(k, KOV_STEPS),
                                      eps_total=(eps_total, EPS))
    ell = torch.arange(int(k.max().item()) + 1, dtype=eps.dtype, device=eps.device)
    e, kk, g = eps.unsqueeze(-1), k.unsqueeze(-1), eps_total.unsqueeze(-1)
    log_p = -torch.nn.functional.softplus(-e)  # log e^ε/(1+e^ε)
    log_1mp = -torch.nn.functional.softplus(e)  # log 1/(1+e^ε)
    valid = ell <= kk
    ellc = torch.minimum(ell, kk)
    log_w = lbinom(kk, ellc) + (kk - ellc) * log_p + ellc * log_1mp
    gap = g - (kk - 2 * ellc) * e  # < 0 on the active set
    active = valid & (gap < 0)
    neg_inf = torch.full_like(log_w, -math.inf)
    safe_gap = torch.where(active, gap, -torch.ones_like(gap))
    log_delta0 = torch.logsumexp(torch.where(active, log_w + torch.log(-torch.expm1(safe_gap)), neg_inf), -1)
    inactive = torch.logsumexp(torch.where(valid & ~active, log_w, neg_inf), -1)
    active_rest = torch.logsumexp(torch.where(active, log_w + safe_gap, neg_inf), -1)
    log_one_minus = torch.where(log_delta0 <= -math.log(2), torch.log1p(-torch.exp(log_delta0)),
                                torch.logaddexp(inactive, active_rest))
    return -torch.expm1(k * torch.log1p(-delta) + log_one_minus)


def kov15_closed(eps, delta, k, delta_prime) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε̃, δ_g) of KOV15 Thm 3.4: ε̃ = min{kε, kε·tanh(ε/2) + ε√(2k log(e + √(kε²)/δ')),
    kε·tanh(ε/2) + ε√(2k log(1/δ'))}, δ_g = 1 − (1−δ)^k(1 − δ'), elementwise."""
    eps, delta, k, delta_prime = params(eps=(eps, PER_STEP_EPS), delta=(delta, STEP_DELTA), k=(k, KOV_STEPS),
                                        delta_prime=(delta_prime, SLACK_DELTA))
    drift = torch.tanh(eps / 2) * eps * k  # (e^ε − 1)/(e^ε + 1) = tanh(ε/2)
    log_term = torch.logaddexp(torch.ones_like(eps), 0.5 * torch.log(k) + torch.log(eps) - torch.log(delta_prime))
    second = drift + eps * torch.sqrt(2 * k * log_term)
    third = drift + eps * torch.sqrt(2 * k * -torch.log(delta_prime))
    delta_g = -torch.expm1(k * torch.log1p(-delta) + torch.log1p(-delta_prime))
    return torch.minimum(k * eps, torch.minimum(second, third)), delta_g
