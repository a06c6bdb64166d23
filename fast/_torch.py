"""Shared helpers of the torch fast path: tensor conversion with domain checks, stable special functions,
and cached Gauss–Legendre rules.

Every public fast evaluator takes its statement's parameter names as keyword arguments (tensors, numpy
arrays or Python numbers), broadcasts them against each other, and returns a float64 tensor on the inputs'
device: inputs of any real dtype are promoted to float64 first. Bad input raises the same
:class:`DomainError` as the reference; shapes that do not broadcast raise ValueError.
"""
from __future__ import annotations

import math
from functools import lru_cache
from typing import Iterable

import torch

from dpspec.reference.domains import ConditionSpec, Integer, Real
from dpspec.reference.errors import ConditionError, DomainError

DTYPE = torch.float64


def as_tensor(x, *, like: torch.Tensor | None = None, name: str = "value") -> torch.Tensor:
    """``x`` as a float64 tensor (on ``like``'s device if given).

    Bounds are always computed in float64: float16/bfloat16/float32 and integer inputs are promoted (exactly),
    because float32 underflows at ~1e-38 and carries 7 digits — too few for δ or for ε near a budget. Strings,
    None, booleans and complex numbers are refused with a DomainError naming ``name``."""
    if isinstance(x, torch.Tensor):
        if x.dtype == torch.bool or x.is_complex():
            raise DomainError(name, f"tensor of dtype {x.dtype}", "a real number or real tensor")
        t = x if x.dtype == DTYPE else x.to(DTYPE)
        return t.to(like.device) if like is not None and t.device != like.device else t
    if x is None or isinstance(x, (str, bytes, bool, complex)):
        raise DomainError(name, x, "a real number or real tensor")
    device = like.device if like is not None else None
    kind = getattr(getattr(x, "dtype", None), "kind", None)  # numpy arrays and scalars: 'f', 'i', 'u', 'b', ...
    if kind is not None and kind not in "fiu":
        raise DomainError(name, x, "a real number or real tensor")
    try:
        # numpy input keeps its own dtype until the exact promotion below; Python numbers and lists are read
        # as float64 directly (torch's default dtype, float32, would round them first)
        t = torch.as_tensor(x, device=device) if kind is not None else torch.as_tensor(x, dtype=DTYPE, device=device)
    except (TypeError, ValueError, RuntimeError) as exc:
        raise DomainError(name, x, f"a real number or real tensor ({exc})") from None
    return t.to(DTYPE)


def check(name: str, x: torch.Tensor, domain) -> torch.Tensor:
    """Raise DomainError (as the reference does) when any element of ``x`` lies outside ``domain``.

    An integer domain never contains ±inf or NaN, whatever its upper end."""
    if isinstance(domain, Real):
        finite = torch.isfinite(x)
        ok = finite & ((x > domain.lo) if domain.lo_open else (x >= domain.lo))
        ok &= (x < domain.hi) if domain.hi_open else (x <= domain.hi)
        if domain.allow_inf:
            ok |= x == math.inf
    elif isinstance(domain, Integer):
        ok = torch.isfinite(x) & (x == torch.round(x)) & (x >= domain.lo) & (x <= domain.hi)
    else:  # pragma: no cover - only numeric domains reach the fast path
        raise TypeError(f"unsupported domain {domain!r}")
    if not bool(ok.all()):
        bad = x[~ok].flatten()[0].item()
        raise DomainError(name, bad, domain.describe())
    return x


def params(**named) -> list[torch.Tensor]:
    """Convert and check ``name=(value, domain)`` pairs; returns float64 tensors broadcast to one shape.

    The first tensor argument fixes the device for Python numbers. Shapes that do not broadcast raise a
    ValueError naming every parameter's shape."""
    like = next((v for v, _ in named.values() if isinstance(v, torch.Tensor)), None)
    out = [check(name, as_tensor(v, like=like, name=name), dom) for name, (v, dom) in named.items()]
    try:
        return list(torch.broadcast_tensors(*out))
    except RuntimeError:
        shapes = ", ".join(f"{name}: {tuple(t.shape)}" for name, t in zip(named, out))
        raise ValueError(f"parameter shapes do not broadcast against each other ({shapes})") from None


def log_expm1(x: torch.Tensor) -> torch.Tensor:
    """log(e^x − 1) for x > 0, accurate for tiny and huge x."""
    return torch.where(x > 30, x + torch.log1p(-torch.exp(-x)), torch.log(torch.expm1(torch.clamp(x, max=30))))


def log1p_exp(x: torch.Tensor) -> torch.Tensor:
    """log(1 + e^x), accurate for every x (softplus without a cut-off)."""
    return torch.where(x > 0, x + torch.log1p(torch.exp(-x.abs())), torch.log1p(torch.exp(torch.clamp(x, max=0))))


def log1mexp(x: torch.Tensor) -> torch.Tensor:
    """log(1 − e^x) for x ≤ 0 (Mächler's switch at −log 2)."""
    return torch.where(x > -math.log(2), torch.log(-torch.expm1(x)), torch.log1p(-torch.exp(x)))


def log_sub(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """log(e^a − e^b) for a ≥ b (−inf when equal)."""
    return a + log1mexp(torch.clamp(b - a, max=0.0))


def log_factorials(n_max: int, like: torch.Tensor) -> torch.Tensor:
    """The table log n! for n = 0..n_max (dtype and device of ``like``), to look log C(n, k) up by index."""
    return torch.lgamma(torch.arange(n_max + 1, dtype=like.dtype, device=like.device) + 1)


def lbinom(n: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """log C(n, k) for real n ≥ k ≥ 0."""
    return torch.lgamma(n + 1) - torch.lgamma(k + 1) - torch.lgamma(n - k + 1)


@lru_cache(maxsize=None)
def _leggauss(n: int) -> tuple[tuple[float, ...], tuple[float, ...]]:
    import numpy as np

    x, w = np.polynomial.legendre.leggauss(n)
    return tuple(x.tolist()), tuple(w.tolist())


def gauss_legendre(n: int, like: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Nodes and weights of the n-point Gauss–Legendre rule on [−1, 1]."""
    x, w = _leggauss(n)
    return (torch.tensor(x, dtype=like.dtype, device=like.device),
            torch.tensor(w, dtype=like.dtype, device=like.device))


def log_integral(log_f, breakpoints: torch.Tensor, mask: torch.Tensor | None = None, n: int = 16) -> torch.Tensor:
    """log ∫ f over the segments between consecutive ``breakpoints`` (last dimension, sorted), in log space.

    ``log_f(z)`` maps node positions (shape ``batch + (segments, n)``) to log f; segments whose ``mask`` is
    False are left out. Composite ``n``-point Gauss–Legendre rule on every segment."""
    x, w = gauss_legendre(n, breakpoints)
    a, b = breakpoints[..., :-1], breakpoints[..., 1:]
    half = (b - a) / 2
    z = (a + half).unsqueeze(-1) + half.unsqueeze(-1) * x
    log_w = torch.log(half).unsqueeze(-1) + torch.log(w)
    if mask is not None:
        log_w = torch.where(mask.unsqueeze(-1), log_w, torch.full_like(log_w, -math.inf))
    terms = log_w + log_f(z)
    terms = torch.where(torch.isneginf(log_w), torch.full_like(terms, -math.inf), terms)
    return torch.logsumexp(terms.flatten(-2), dim=-1)


def refuse_outside(statement_id: str, checks: Iterable[tuple[ConditionSpec, torch.Tensor | bool]],
                   allow_outside: bool = False) -> None:
    """ConditionError(statement_id, [spec.describe() …]) listing, in the given (the statement's) order, every
    condition whose mask is False at some point — the reference's words, from the text's spec module; nothing with
    ``allow_outside`` (the values there are not bounds)."""
    if allow_outside:
        return
    failed = [spec.describe() for spec, mask in checks
              if not (bool(mask) if isinstance(mask, bool) else bool(torch.as_tensor(mask).all()))]
    if failed:
        raise ConditionError(statement_id, failed)
