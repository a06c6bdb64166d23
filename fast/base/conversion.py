"""Fast paths of the RDP → (ε, δ) conversion statements ``base.rdp_to_dp``, ``base.rdp_to_dp_mironov`` and
``base.rdp_to_delta`` (mirrors reference/base/conversion.py). The objectives and the batched order search they use
are the spine's (fast/conversion.py), shared with the accountant.
"""
from __future__ import annotations

from typing import Callable, Sequence

import torch

from dpspec.reference.domains import DELTA, EPS, STEPS

from .._torch import params
from ..conversion import bbg_objective, log_delta_objective, minimise_over_orders, mironov_objective


def rdp_to_dp_order(curve: Callable[[torch.Tensor], torch.Tensor], delta, steps=1, extra: Sequence[float] = ()):
    """(ε, α*) with ε = max(0, F(α*)). ``curve(alpha)`` maps α of shape batch + (k,) to one step's RDP of that
    shape (batch = the broadcast shape of delta and steps); mirrors ``base.rdp_to_dp``'s order search."""
    delta, steps = params(delta=(delta, DELTA), steps=(steps, STEPS))
    d, s = delta.unsqueeze(-1), steps.unsqueeze(-1)
    value, alpha = minimise_over_orders(lambda a: bbg_objective(s * curve(a), a, d), delta.shape, delta, extra)
    return torch.clamp(value, min=0.0), alpha


def rdp_to_dp(curve, delta, steps=1, extra: Sequence[float] = ()) -> torch.Tensor:
    """ε(δ) = max(0, min over α > 1 of F(α)) (BBG+20 Thm 21 / CKS20 Prop. 12)."""
    return rdp_to_dp_order(curve, delta, steps, extra)[0]


def rdp_to_dp_mironov(curve, delta, steps=1, extra: Sequence[float] = ()) -> torch.Tensor:
    """ε(δ) = max(0, min over α > 1 of T·ε(α) + log(1/δ)/(α − 1)) (Mironov 2017, Prop. 3)."""
    delta, steps = params(delta=(delta, DELTA), steps=(steps, STEPS))
    d, s = delta.unsqueeze(-1), steps.unsqueeze(-1)
    value, _ = minimise_over_orders(lambda a: mironov_objective(s * curve(a), a, d), delta.shape, delta, extra)
    return torch.clamp(value, min=0.0)


def rdp_to_delta(curve, eps, steps=1, extra: Sequence[float] = ()) -> torch.Tensor:
    """δ(ε) = min(1, min over α > 1 of exp(log δ(α))) (CKS20 Prop. 12)."""
    eps, steps = params(eps=(eps, EPS), steps=(steps, STEPS))
    e, s = eps.unsqueeze(-1), steps.unsqueeze(-1)
    value, _ = minimise_over_orders(lambda a: log_delta_objective(s * curve(a), a, e), eps.shape, eps, extra)
    return torch.clamp(torch.exp(value), max=1.0)
