"""The exact privacy profile of one Poisson-subsampled Gaussian step, vectorised (mirrors reference/base/sgm_profile.py,
whose docstring derives it; Zhu, Dong & Wang 2022, arXiv 2106.08567; Balle, Barthe & Gaboardi 2018, arXiv 1807.01647),
and the reduction shared with fast/base/laplace_subsampled.py:

    remove: δ(ε) = q·δ_B(ε'),  ε' = log(1 + (e^ε − 1)/q)      (1 − e^ε where e^ε ≤ 1 − q),
    add:    δ(ε) = e^ε g(−ε)·δ_B(−ε''),  ε'' = log(1 + (e^{−ε} − 1)/q),  g(x) = e^x − 1 + q   (0 where g(−ε) ≤ 0),

with δ_B the base pair's profile (here the Gaussian's, fast/base/gaussian.py's log-space evaluation) and, for a
negative argument, δ_B(t) = (1 − e^t) + e^t δ_B(−t), a sum of non-negative terms; all in log space.

Float64 accuracy: ε' is formed as log1p(expm1(ε)/q) for ε ≤ 1 (no cancellation where ε' is tiny) and as
ε + log1p(−(1 − q)e^{−ε}) − log q above; its rounding (a few ulps) is amplified by the base profile's slope
(t·|d log δ_B/dt| ≲ 2|log δ_B| + t: about 1e3 ulps where δ ~ 1e-300). g(x) for x < 0 cancels near e^x = 1 − q: for
remove (ε < 0) that costs nothing relative to δ ≥ 1 − e^ε ≈ q there, for add it is the largest loss ε ≈ −log(1 − q),
where δ_add → 0 and its relative error grows like 1e-16·q/g(−ε) (the reference recomputes with more digits there).
q = 1 is the base profile itself: ε' = ε exactly.
"""
from __future__ import annotations

import torch

from dpspec.reference.base.spec import EPS_REAL, SGM_DIRECTION
from dpspec.reference.domains import NOISE, SAMPLING_RATE

from .._torch import log1mexp, params
from .gaussian import log_delta_sigma


def shift(x: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """log(1 + (e^x − 1)/q) where e^x − 1 + q > 0 (elsewhere unspecified); x itself where q = 1."""
    small = x <= 1
    xs = torch.where(small, x, torch.zeros_like(x))
    xl = torch.where(small, torch.ones_like(x), x)
    near = torch.log1p(torch.expm1(xs) / q)
    far = xl + torch.log1p(-(1 - q) * torch.exp(-xl)) - torch.log(q)
    return torch.where(q == 1, x, torch.where(small, near, far))


def _log_remove(eps, q, log_base):
    neg = eps < 0
    g = q + torch.expm1(torch.clamp(eps, max=0.0))  # e^ε − 1 + q, read where ε < 0
    atom = neg & ~(g > 0) & (q < 1)  # e^ε ≤ 1 − q: S = everything (q = 1: e^ε − 1 + q = e^ε underflows)
    t = shift(torch.where(atom, torch.zeros_like(eps), eps), q)  # ε' (≥ 0 iff ε ≥ 0)
    value = log_base(t.abs())
    log_q = torch.log(q)
    en = torch.clamp(eps, max=0.0)
    below = torch.logaddexp(log1mexp(en), log_q + t + value)
    out = torch.where(neg, below, log_q + value)
    return torch.where(atom, log1mexp(en), out)


def _log_add(eps, q, log_base):
    g = q + torch.expm1(-torch.clamp(eps, min=0.0))  # e^{−ε} − 1 + q, read where ε > 0
    dead = (eps > 0) & ~(g > 0) & (q < 1)  # ε ≥ −log(1 − q): beyond the largest loss (none at q = 1)
    t = shift(torch.where(dead, torch.zeros_like(eps), -eps), q)  # ε'' (≤ 0 iff ε ≥ 0)
    value = log_base(t.abs())
    log_q = torch.log(q)
    above = eps + log_q + t + value  # log A + log δ_B(−ε''), log A = ε + log q + ε''
    below = torch.logaddexp(log1mexp(torch.clamp(eps, max=0.0)), log_q + eps + value)
    out = torch.where(eps > 0, above, below)
    return torch.where(dead, torch.full_like(out, -float("inf")), out)


def log_subsampled(eps: torch.Tensor, q: torch.Tensor, direction: str, log_base) -> torch.Tensor:
    """log δ(ε) of the Poisson-subsampled base pair (module docstring), one direction or "max"; ``log_base(t)``
    (t ≥ 0, broadcast like ε) is the base profile's log δ_B. Unchecked."""
    if direction == "remove":
        return _log_remove(eps, q, log_base)
    if direction == "add":
        return _log_add(eps, q, log_base)
    return torch.maximum(_log_remove(eps, q, log_base), _log_add(eps, q, log_base))


def sgm_profile(eps, q, sigma, direction: str = "max") -> torch.Tensor:
    """δ(ε) of one Poisson-subsampled Gaussian step (sensitivity 1, rate q, noise σ), every real ε, elementwise;
    "remove", "add" or "max" (mirrors ``base.sgm_profile``). Underflows to 0 below the float64 range."""
    SGM_DIRECTION.check("direction", direction)
    eps, q, sigma = params(eps=(eps, EPS_REAL), q=(q, SAMPLING_RATE), sigma=(sigma, NOISE))
    return torch.exp(log_subsampled(eps, q, direction, lambda t: log_delta_sigma(t, sigma)))
