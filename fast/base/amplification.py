"""(ε, δ) amplification by Poisson subsampling (Balle, Barthe & Gaboardi 2018, Thm 10; Li, Qardaji & Su 2012),
vectorised. Mirrors ``base.poisson_amplification`` (reference/base/amplification.py)."""
from __future__ import annotations

import torch

from dpspec.reference.base.spec import DELTA_CLOSED
from dpspec.reference.domains import EPS, SAMPLING_RATE

from .._torch import params


def poisson_amplification(eps, delta, q) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε', δ') = (log(1 + q(e^ε − 1)), qδ), elementwise. ε' is log1p(q·expm1(ε)) for ε ≤ 1 (no cancellation
    for small ε) and log((1 − q) + q e^ε) = logaddexp(log1p(−q), log q + ε) above (no overflow for large ε)."""
    eps, delta, q = params(eps=(eps, EPS), delta=(delta, DELTA_CLOSED), q=(q, SAMPLING_RATE))
    small = torch.log1p(q * torch.expm1(torch.clamp(eps, max=1.0)))
    large = torch.logaddexp(torch.log1p(-q), torch.log(q) + eps)
    return torch.where(eps <= 1, small, large), q * delta
