"""Fast paths of the RDP → (ε, δ) conversion statements ``base.rdp_to_dp``, ``base.rdp_to_dp_mironov`` and
``base.rdp_to_delta`` (mirrors reference/base/conversion.py). The objectives, the curve checks and the batched order
search they use are the spine's (fast/conversion.py), shared with the accountant.

``curve(alpha)`` maps orders of shape batch + (k,) to one step's RDP of that shape (batch = the broadcast shape of the
numeric parameters; a batch of curves, e.g. ``rdp_curve("base.laplace_rdp", b=tensor)``, broadcasts with it and the
result takes the broadcast shape). A curve value that is NaN, negative or of the wrong shape raises a DomainError
naming the curve and the order (fast/conversion.py ``curve_values``).
"""
from __future__ import annotations

from typing import Callable, Sequence

import torch

from dpspec.reference.base.spec import RDP_CURVE
from dpspec.reference.domains import ALPHA, DELTA, EPS, STEPS

from .._torch import as_tensor, check, params
from ..conversion import (LOG_DELTA_UNDERFLOW, bbg_objective, curve_values, log_delta_objective, minimise_over_orders,
                          mironov_objective)


def _orders(extra, like) -> Sequence[float]:
    """The ``extra`` orders, checked (finite, > 1)."""
    if extra is None or (not isinstance(extra, torch.Tensor) and len(extra) == 0):
        return ()
    t = check("extra", as_tensor(extra, like=like, name="extra").reshape(-1), ALPHA)
    return t.tolist()


def _search(objective, curve, target, steps, extra, settled_below=None):
    curve = RDP_CURVE.check("curve", curve)
    t, s = target.unsqueeze(-1), steps.unsqueeze(-1)
    return minimise_over_orders(lambda a: objective(s * curve_values(curve, a), a, t), target.shape, target,
                                _orders(extra, target), settled_below=settled_below)


def rdp_to_dp_order(curve: Callable[[torch.Tensor], torch.Tensor], delta, steps=1, extra: Sequence[float] = ()):
    """(ε, α*) with ε = max(0, F(α*)), F of BBG+20 Thm 21 / CKS20 Prop. 12; mirrors ``base.rdp_to_dp``'s order
    search (fast/conversion.py)."""
    delta, steps = params(delta=(delta, DELTA), steps=(steps, STEPS))
    value, alpha = _search(bbg_objective, curve, delta, steps, extra)
    return torch.clamp(value, min=0.0), alpha


def rdp_to_dp(curve, delta, steps=1, extra: Sequence[float] = ()) -> torch.Tensor:
    """ε(δ) = max(0, min over α > 1 of F(α)) (BBG+20 Thm 21 / CKS20 Prop. 12)."""
    return rdp_to_dp_order(curve, delta, steps, extra)[0]


def rdp_to_dp_mironov(curve, delta, steps=1, extra: Sequence[float] = ()) -> torch.Tensor:
    """ε(δ) = max(0, min over α > 1 of T·ε(α) + log(1/δ)/(α − 1)) (Mironov 2017, Prop. 3)."""
    delta, steps = params(delta=(delta, DELTA), steps=(steps, STEPS))
    value, _ = _search(mironov_objective, curve, delta, steps, extra)
    return torch.clamp(value, min=0.0)


def rdp_to_delta(curve, eps, steps=1, extra: Sequence[float] = ()) -> torch.Tensor:
    """δ(ε) = min(1, min over α > 1 of exp(log δ(α))) (CKS20 Prop. 12), the minimum taken in log space (a δ below
    the float64 range is 0; the search is not extended beyond an order where δ is already 0.0 in float64)."""
    eps, steps = params(eps=(eps, EPS), steps=(steps, STEPS))
    value, _ = _search(log_delta_objective, curve, eps, steps, extra, settled_below=LOG_DELTA_UNDERFLOW)
    return torch.clamp(torch.exp(value), max=1.0)
