"""RDP → (ε, δ) conversions with a vectorised, continuous order search (mirrors reference/base/conversion.py).

For T steps of a mechanism with RDP curve ε(α), every α > 1 gives (F(α), δ)-DP with
    F(α) = T·ε(α) + log((α−1)/α) − (log δ + log α)/(α − 1)
(Balle et al. 2020 Thm 21; Canonne, Kamath & Steinke 2020 Prop. 12), or, more loosely, with
    F(α) = T·ε(α) + log(1/δ)/(α − 1)   (Mironov 2017, Prop. 3),
and (ε, δ(α))-DP with
    log δ(α) = (α − 1)(T·ε(α) − ε) − log α + (α − 1)·log(1 − 1/α).

Curves: ``curve`` is a callable mapping a float tensor of orders α (shape batch + (k,), batch = the broadcast
shape of the numeric parameters) to one step's RDP of that shape, e.g. ``lambda a: sgm_rdp(a, 0.01, 1.0)``, or
``rdp_curve("base.sgm_rdp", q=..., sigma=...)`` (the fast counterpart of ``catalogue.curve``, over the mechanism
table of fast/mechanisms.py that the accountant shares; tensor parameters there get a trailing axis so they
broadcast against the orders).

Search: a dense geometric grid in α − 1 (``GRID`` points over [1e-12, ALPHA_MAX − 1], the range the reference
searches) plus any ``extra``
orders (e.g. Opacus' default orders, so the result is never above the best of those), then golden-section
refinement on log(α − 1) inside the bracket around the best grid point, all batched. The reported value is
the objective at the best order found, so it is a valid bound at that order; ε is reported as max(0, ·) and δ
as min(1, ·) (see the reference module docstring for why these are bounds, not clipped values).
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import torch


ALPHA_MAX = 1e6  # as reference/base/conversion.py
GRID = 361  # 20 points per decade over [1e-12, 1e6) in α − 1
GOLDEN_STEPS = 80
_INVPHI = (math.sqrt(5) - 1) / 2


def bbg_objective(rdp_total, alpha, delta):
    """F(α) = T·ε(α) + log((α−1)/α) − (log δ + log α)/(α − 1) (``rdp_total`` = T·ε(α))."""
    return rdp_total + torch.log1p(-1 / alpha) - (torch.log(delta) + torch.log(alpha)) / (alpha - 1)


def mironov_objective(rdp_total, alpha, delta):
    """F(α) = T·ε(α) + log(1/δ)/(α − 1) (Mironov 2017, Prop. 3)."""
    return rdp_total - torch.log(delta) / (alpha - 1)


def log_delta_objective(rdp_total, alpha, eps):
    """log δ(α) = (α − 1)(T·ε(α) − ε) − log α + (α − 1) log(1 − 1/α)."""
    return (alpha - 1) * (rdp_total - eps) - torch.log(alpha) + (alpha - 1) * torch.log1p(-1 / alpha)


def default_grid(like: torch.Tensor) -> torch.Tensor:
    """The dense geometric grid in α − 1 over [1e-12, ALPHA_MAX − 1]."""
    t = torch.linspace(-12, math.log10(ALPHA_MAX - 1), GRID, dtype=like.dtype, device=like.device)
    grid = 1 + 10**t
    return grid[grid > 1]  # in float32 the smallest orders round to 1


def minimise_over_orders(objective: Callable[[torch.Tensor], torch.Tensor], batch_shape, like: torch.Tensor,
                         extra: Sequence[float] = (), grid: torch.Tensor | None = None,
                         golden_steps: int = GOLDEN_STEPS) -> tuple[torch.Tensor, torch.Tensor]:
    """(min value, argmin α) of ``objective(alpha)`` over α ∈ (1, ALPHA_MAX]; ``alpha`` has shape
    batch_shape + (k,) and the objective must return that shape (NaN/+inf count as +inf)."""
    grid_alpha = default_grid(like) if grid is None else grid
    if extra:
        grid_alpha = torch.cat([grid_alpha, torch.as_tensor(list(extra), dtype=like.dtype, device=like.device)])
    grid_alpha, _ = torch.sort(grid_alpha)
    alpha = grid_alpha.expand(*batch_shape, -1)
    values = _clean(objective(alpha))
    best = values.argmin(-1, keepdim=True)
    n = grid_alpha.numel()
    lo = torch.log(torch.gather(alpha, -1, (best - 1).clamp(min=0)) - 1)
    hi = torch.log(torch.gather(alpha, -1, (best + 1).clamp(max=n - 1)) - 1)
    # golden-section search on s = log(α − 1) in [lo, hi]
    x1, x2 = hi - _INVPHI * (hi - lo), lo + _INVPHI * (hi - lo)
    f1, f2 = _clean(objective(1 + torch.exp(x1))), _clean(objective(1 + torch.exp(x2)))
    for _ in range(golden_steps):
        left = f1 < f2  # the minimum lies in [lo, x2]: drop (x2, hi]; else drop [lo, x1)
        hi, lo = torch.where(left, x2, hi), torch.where(left, lo, x1)
        x1, x2, f1, f2 = (torch.where(left, hi - _INVPHI * (hi - lo), x2), torch.where(left, x1, lo + _INVPHI * (hi - lo)),
                          torch.where(left, f1, f2), torch.where(left, f1, f2))
        new = _clean(objective(1 + torch.exp(torch.where(left, x1, x2))))
        f1, f2 = torch.where(left, new, f1), torch.where(left, f2, new)
    cand_alpha = torch.cat([torch.gather(alpha, -1, best), 1 + torch.exp(x1), 1 + torch.exp(x2)], -1)
    cand = torch.cat([torch.gather(values, -1, best), f1, f2], -1)
    i = cand.argmin(-1, keepdim=True)
    return torch.gather(cand, -1, i).squeeze(-1), torch.gather(cand_alpha, -1, i).squeeze(-1)


def _clean(v: torch.Tensor) -> torch.Tensor:
    return torch.where(torch.isnan(v), torch.full_like(v, math.inf), v)


def rdp_curve(statement_id: str, **params_) -> Callable[[torch.Tensor], torch.Tensor]:
    """α ↦ ε(α) of an accountable mechanism with its parameters bound (the fast counterpart of
    ``catalogue.curve``): ``statement_id`` is an id of the mechanism table ``dpspec.fast.mechanisms.MECHANISMS``
    (the one the accountant composes; for ``ptr.thm4_4`` the curve is the tightest valid bound, see its entry).
    Tensor parameters get a trailing axis, so a batch of curves broadcasts against the order axis that the
    conversions append. Keyword options of the entry (e.g. the SGM ``direction``) pass through."""
    from .mechanisms import get

    mechanism = get(statement_id)
    mechanism.check_names(params_, options=True)
    fn = mechanism.curve
    bound = {k: v.unsqueeze(-1) if isinstance(v, torch.Tensor) and v.ndim > 0 else v for k, v in params_.items()}
    curve = lambda alpha: fn(alpha=alpha, **bound)  # noqa: E731
    curve.__name__ = statement_id
    return curve
