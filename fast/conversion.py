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

Curve values are checked (``curve_values``): the output must hold one value per order (last dimension = the
orders', broadcasting with them), and a NaN, a negative value (RDP is ≥ 0) or a non-numeric output raises a
DomainError naming the curve and the order; +inf is allowed (no bound at that order). A DomainError on ``alpha``
raised by the curve (an order outside its α domain, e.g. the ZW19 sum's α ≤ 1e5) makes those orders +inf: the
orders are then evaluated one column at a time.

Search (a bounded number of orders; the reference's certified search in reference/base/conversion.py explains why it
finds the minimum: the objectives are convex in 1/(α − 1) (ε) or α − 1 (δ) when (α − 1)·ε(α) is convex in α, as it is
for a Rényi divergence, hence unimodal in s = log(α − 1), so the best grid point's neighbours bracket the minimiser):
1. a geometric grid in α − 1, ``GRID`` points over [1e-6, 1e4] (4 per decade), or the caller's ``grid``, plus any
   ``extra`` orders (e.g. Opacus' default orders, so the result is never above the best of those);
2. where the best point of some batch element is the highest order, the orders ``HIGH`` above the grid (1e5 … 1e308:
   a tiny δ puts the BBG+20 minimiser near α ≈ 1/δ, and a huge σ the Mironov minimiser near α ≈ σ·√(2 log(1/δ)/T),
   e.g. 1.8e307 at σ = 1e308; the ladder stopped at 1e300 before, 9000× above the minimum there) are added for the
   whole batch, once; where it is the lowest, the orders ``LOW`` below it (down to 1 + 1e-12). An element whose best
   value is already below ``settled_below`` needs no extension (δ(ε): log δ < LOG_DELTA_UNDERFLOW is δ = 0.0 in
   float64, and the minimum can only be lower; the orders above could only cost curve evaluations there, and the
   fast SGM refuses α ≳ 1e12σ at σ ≳ 1e9);
3. golden-section refinement on s in the bracket of the best point's two neighbours, until the bracket is narrower
   than ``S_TOL`` = 1e-12 (at most ``MAX_GOLDEN`` steps; the width of the widest bracket sets the count). Not 1e-8:
   where the curve has a kink (a bound that switches case, e.g. ptr.thm4_3 at a small σ2) the objective is V-shaped
   at its minimum and the value error is the slope times the bracket — at 1e-8, 5.8e-10 relative (ptr.thm4_3,
   σ2 = 0.064, 20264 steps, δ = 1.5e-294; dpspec conform --seed 0 found it); the grid's bracket (≈ 1.15 in s) needs
   ≈ 58 steps to reach 1e-12.
At most GRID + len(HIGH) + 6 + 2 + MAX_GOLDEN = 128 orders per call with the default grid (6 of the LOW orders lie
below it; with the accountant's grid: its length + 89). The reported value is the objective at the best order found,
so it is a valid bound at that order; ε is reported as max(0, ·) and δ as min(1, ·) (see the reference module
docstring for why these are bounds, not clipped values). δ is exp of the minimised log δ: below the float64 range
(≈ 5e-324) it is 0.
"""
from __future__ import annotations

import math
from typing import Callable, Sequence

import torch

from dpspec.reference.errors import DomainError

ALPHA_MAX = 1e308  # the highest α − 1 the search may try (near the float64 maximum; the reference goes further)
GRID = 41  # 4 points per decade over [1e-6, 1e4] in α − 1
HIGH = (1e5, 1e6, 1e8, 1e12, 1e16, 1e24, 1e32, 1e48, 1e64, 1e96, 1e128, 1e192, 1e256, 1e300, ALPHA_MAX)  # α − 1 ...
LOW = (1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6, 1e-5)  # ... and below the grid, added only where needed
S_TOL = 1e-12  # see step 3 of the module docstring
MAX_GOLDEN = 64
GOLDEN_STEPS = MAX_GOLDEN  # the bound on the refinement steps (kept for callers that name it)
_INVPHI = (math.sqrt(5) - 1) / 2
# log δ below this rounds to δ = 0.0 in float64 (exp(x) < 2^−1075, half the smallest subnormal): an order with a
# lower log δ settles the δ search, since the minimum can only be lower (``settled_below`` of minimise_over_orders)
LOG_DELTA_UNDERFLOW = -746.0
_CURVE_DOMAIN = "RDP values: one number in [0, inf] per order (the orders' shape, or broadcasting to it)"


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
    """The geometric grid in α − 1 over [1e-6, 1e4], 4 points per decade."""
    t = torch.linspace(-6, 4, GRID, dtype=like.dtype, device=like.device)
    grid = 1 + 10**t
    return grid[grid > 1]  # in float32 the smallest orders round to 1


def _curve_name(curve) -> str:
    name = getattr(curve, "__name__", None) or type(curve).__name__
    return name if len(name) <= 100 else name[:99] + "…"


def _broadcast(a: tuple, b: tuple) -> tuple | None:
    """The broadcast of two shapes, or None (``torch.broadcast_shapes`` without its first-call import of
    torch._refs and sympy: seconds, once per process)."""
    out = []
    for x, y in zip(reversed((1,) * (len(b) - len(a)) + a), reversed((1,) * (len(a) - len(b)) + b)):
        if x != y and 1 not in (x, y):
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


def _checked(curve, alpha: torch.Tensor, out, name: str) -> torch.Tensor:
    at = f"at alpha={alpha.reshape(-1)[0].item()!r}" + (", ..." if alpha.numel() > 1 else "")
    if not isinstance(out, torch.Tensor):
        kind = getattr(getattr(out, "dtype", None), "kind", None)
        if out is None or isinstance(out, (str, bytes, bool, complex)) or (kind is not None and kind not in "fiu"):
            raise DomainError(name, f"{_curve_name(curve)} (returns {type(out).__name__} {at})", _CURVE_DOMAIN)
        try:
            out = torch.as_tensor(out, dtype=alpha.dtype, device=alpha.device)
        except (TypeError, ValueError, RuntimeError):
            shown = f"{_curve_name(curve)} (returns {type(out).__name__} {at})"
            raise DomainError(name, shown, _CURVE_DOMAIN) from None
    if out.dtype == torch.bool or out.is_complex():
        raise DomainError(name, f"{_curve_name(curve)} (returns a {out.dtype} tensor {at})", _CURVE_DOMAIN)
    out = out.to(device=alpha.device, dtype=alpha.dtype)
    shape = _broadcast(tuple(out.shape), tuple(alpha.shape))
    if out.ndim == 0 or out.shape[-1] != alpha.shape[-1] or shape is None:
        raise DomainError(name, f"{_curve_name(curve)} (returns shape {tuple(out.shape)} for orders of shape "
                                f"{tuple(alpha.shape)} {at})", _CURVE_DOMAIN)
    bad = torch.isnan(out) | (out < 0)
    if bool(bad.any()):
        bad, out_b, alpha_b = torch.broadcast_tensors(bad, out, alpha)
        i = bad.nonzero()[0].tolist()
        raise DomainError(name, f"{_curve_name(curve)} (returns {out_b[tuple(i)].item()!r} at alpha="
                                f"{alpha_b[tuple(i)].item()!r})", _CURVE_DOMAIN)
    return out


def curve_values(curve: Callable[[torch.Tensor], torch.Tensor], alpha: torch.Tensor,
                 name: str = "curve") -> torch.Tensor:
    """``curve(alpha)`` checked (module docstring): one step's RDP, one value in [0, +inf] per order. Orders outside
    the curve's α domain (it raises DomainError on ``alpha``) are +inf."""
    try:
        return _checked(curve, alpha, curve(alpha), name)
    except DomainError as exc:
        if exc.name != "alpha":
            raise
    columns = []
    for j in range(alpha.shape[-1]):
        column = alpha[..., j:j + 1]
        try:
            columns.append(_checked(curve, column, curve(column), name))
        except DomainError as exc:
            if exc.name != "alpha":
                raise
            columns.append(None)
    shape = next((c.shape[:-1] for c in columns if c is not None), alpha.shape[:-1])
    full = [torch.full((*shape, 1), math.inf, dtype=alpha.dtype, device=alpha.device) if c is None
            else c.expand(*shape, 1) for c in columns]
    return torch.cat(full, -1)


def minimise_over_orders(objective: Callable[[torch.Tensor], torch.Tensor], batch_shape, like: torch.Tensor,
                         extra: Sequence[float] = (), grid: torch.Tensor | None = None,
                         golden_steps: int = MAX_GOLDEN,
                         settled_below: float | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(min value, argmin α) of ``objective(alpha)`` over α ∈ (1, ALPHA_MAX] (module docstring); ``alpha`` has shape
    batch + (k,) and the objective returns batch' + (k,), batch' the broadcast of batch and the curves' own batch
    (which then sets the output shape); NaN counts as +inf. At most ``golden_steps`` refinement steps. Elements whose
    best value is below ``settled_below`` are not extended (step 2 of the module docstring)."""
    base = default_grid(like) if grid is None else grid.to(dtype=like.dtype, device=like.device).reshape(-1)
    if len(extra):
        base = torch.cat([base, torch.as_tensor(list(extra), dtype=like.dtype, device=like.device).reshape(-1)])
    base = torch.unique(base[base > 1])  # sorted
    values = _clean(objective(base.expand(*batch_shape, -1)))
    batch = values.shape[:-1]
    orders = base
    best = values.argmin(-1)
    for side, ladder in (("high", HIGH), ("low", LOW)):
        at_end = best == (orders.numel() - 1 if side == "high" else 0)
        if settled_below is not None:
            at_end = at_end & ~(values.min(-1).values < settled_below)
        if not bool(at_end.any()):
            continue
        ext = torch.tensor([1 + v for v in ladder], dtype=like.dtype, device=like.device)
        ext = ext[(ext > orders[-1]) if side == "high" else ((ext < orders[0]) & (ext > 1))]
        if not ext.numel():
            continue
        more = _clean(objective(ext.expand(*batch, -1))).expand(*batch, -1)
        orders = torch.cat([orders, ext] if side == "high" else [ext, orders])
        values = torch.cat([values.expand(*batch, -1), more] if side == "high" else [more, values.expand(*batch, -1)],
                           -1)
        best = values.argmin(-1)
    values = values.expand(*batch, -1)
    alpha = orders.expand(*batch, -1)
    best = best.unsqueeze(-1)
    n = orders.numel()
    lo = torch.log(torch.gather(alpha, -1, (best - 1).clamp(min=0)) - 1)
    hi = torch.log(torch.gather(alpha, -1, (best + 1).clamp(max=n - 1)) - 1)
    # golden-section search on s = log(α − 1) in [lo, hi]; the widest bracket sets the number of steps
    width = float((hi - lo).max()) if lo.numel() else 0.0
    steps = 0 if width <= S_TOL else min(golden_steps, math.ceil(math.log(width / S_TOL) / -math.log(_INVPHI)))
    x1, x2 = hi - _INVPHI * (hi - lo), lo + _INVPHI * (hi - lo)
    f1, f2 = _clean(objective(1 + torch.exp(x1))), _clean(objective(1 + torch.exp(x2)))
    for _ in range(steps):
        left = f1 < f2  # the minimum lies in [lo, x2]: drop (x2, hi]; else drop [lo, x1)
        hi, lo = torch.where(left, x2, hi), torch.where(left, lo, x1)
        x1, x2, f1, f2 = (torch.where(left, hi - _INVPHI * (hi - lo), x2), torch.where(left, x1, lo + _INVPHI * (hi - lo)),
                          torch.where(left, f1, f2), torch.where(left, f1, f2))
        new = _clean(objective(1 + torch.exp(torch.where(left, x1, x2))))
        f1, f2 = torch.where(left, new, f1), torch.where(left, f2, new)
    cand_alpha = torch.cat([torch.gather(alpha, -1, best), 1 + torch.exp(x1), 1 + torch.exp(x2)], -1)
    cand = torch.cat([torch.gather(values, -1, best), f1.expand_as(x1), f2.expand_as(x2)], -1)
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
