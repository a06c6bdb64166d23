"""Gaussian differential privacy (Dong, Roth & Su, JRSS-B 2022), vectorised: G_μ, μ-GDP ↔ (ε, δ), group privacy
and composition. Mirrors the G_μ statements of reference/fdp.py (base.gdp_*)."""
from __future__ import annotations

import math

import torch

from dpspec.reference.domains import DELTA, EPS, STEPS, Integer, Real

from ._torch import params
from .gaussian import _bisect_decreasing, _dlogdelta_dlogmu, log_delta_shift, ndtr

# the domains of reference/fdp.py (copied: that module imports mpmath)
TYPE_I = Real(0, 1, lo_open=False, hi_open=False, sample_lo=0, sample_hi=1)
MU = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=10)
GROUP = Integer(1, math.inf, sample_hi=100)


def gdp_tradeoff(alpha, mu) -> torch.Tensor:
    """G_μ(α) = Φ(Φ^{-1}(1−α) − μ) (DRS 2022, Def. 2.7), elementwise, written as Φ(−Φ^{-1}(α) − μ) so that
    small α loses nothing to 1 − α rounding."""
    alpha, mu = params(alpha=(alpha, TYPE_I), mu=(mu, MU))
    return ndtr(-torch.special.ndtri(alpha) - mu)


def gdp_profile(eps, mu) -> torch.Tensor:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS 2022, Cor. 2.13), 0 for μ = 0; the cancellation-free
    log-space evaluation of fast/gaussian.py."""
    eps, mu = params(eps=(eps, EPS), mu=(mu, MU))
    return torch.exp(log_delta_shift(eps, mu))


def gdp_mu(eps, delta) -> torch.Tensor:
    """The μ > 0 with δ_μ(ε) = δ (DRS 2022, Cor. 2.13 inverted), by bisection in t = log μ. Bracket: at μ = δ,
    δ_μ(ε) ≤ 2Φ(μ/2) − 1 ≤ μ/√(2π) < δ (so t = log δ is below the root, as in the reference); the upper end
    starts at t = 1 and is doubled until δ_μ(ε) > δ."""
    eps, delta = params(eps=(eps, EPS), delta=(delta, DELTA))
    log_target = torch.log(delta)
    h = lambda t: log_target - log_delta_shift(eps, torch.exp(t))  # noqa: E731  decreasing in t
    lo = log_target.clone()
    hi = torch.full_like(lo, 1.0)
    for _ in range(12):
        short = h(hi) >= 0
        if not bool(short.any()):
            break
        hi = torch.where(short, 2 * hi, hi)
    return torch.exp(_bisect_decreasing(h, lo, hi, lambda t: -_dlogdelta_dlogmu(eps, torch.exp(t))))


def gdp_group(g, mu) -> torch.Tensor:
    """μ_g = g·μ (DRS 2022, Thm 2.14)."""
    g, mu = params(g=(g, GROUP), mu=(mu, MU))
    return g * mu


def gdp_composition(mu, k) -> torch.Tensor:
    """μ_k = √k·μ (DRS 2022, Cor. 3.3)."""
    mu, k = params(mu=(mu, MU), k=(k, STEPS))
    return torch.sqrt(k) * mu
