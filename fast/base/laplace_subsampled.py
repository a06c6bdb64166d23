"""The exact privacy profile of one Poisson-subsampled Laplace step, vectorised (mirrors
reference/base/laplace_subsampled.py, whose docstring derives it; Balle, Barthe & Gaboardi 2018, arXiv 1807.01647;
Zhu, Dong & Wang 2022, arXiv 2106.08567): the reduction of fast/base/sgm_profile.py with the Laplace base profile

    δ_L(t) = 1 − e^{(t − 1/b)/2}  (|t| < 1/b),   0  (t ≥ 1/b),

taken in log space as log(−expm1((tb − 1)/(2b))) with tb − 1 from fast/base/laplace.py's two-product (exact for the
given t). t = ε' carries a few ulps of rounding, which near the kink t = 1/b (ε at the largest loss
log(1 − q + q e^{1/b})) costs log10(1/|1 − tb|) digits: δ → 0 linearly there. q = 1 is base.laplace_profile's own
fast evaluation.
"""
from __future__ import annotations

import torch

from dpspec.reference.base.spec import EPS_REAL, SGM_DIRECTION
from dpspec.reference.domains import NOISE, SAMPLING_RATE

from .._torch import params
from .laplace import laplace_profile_unchecked
from .sgm_profile import log_subsampled


def log_laplace_base(t: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """log δ_L(t) for t ≥ 0 (−inf where t ≥ 1/b)."""
    return torch.log(laplace_profile_unchecked(t, b))


def laplace_subsampled_profile(eps, q, b, direction: str = "max") -> torch.Tensor:
    """δ(ε) of one Poisson-subsampled Laplace step (ℓ1-sensitivity 1, rate q, scale b), every real ε, elementwise;
    "remove", "add" or "max" (mirrors ``base.laplace_subsampled_profile``)."""
    SGM_DIRECTION.check("direction", direction)
    eps, q, b = params(eps=(eps, EPS_REAL), q=(q, SAMPLING_RATE), b=(b, NOISE))
    value = torch.exp(log_subsampled(eps, q, direction, lambda t: log_laplace_base(t, b)))
    return torch.where(q == 1, laplace_profile_unchecked(eps, b), value)
