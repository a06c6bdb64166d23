"""Shared helpers of the test suite, in the style of SciPy's mpmath tests: one comparison of the torch fast path with
the mpmath reference, and the tolerances that differ from a statement's own in one table, each with its reason.

* :func:`reference_value` / :func:`evaluation` — the catalogue's reference of a statement (``Statement.evaluate``);
* :func:`relative_error` — |value − expected| / |expected| with the suite's conventions (exact zeros, infinities,
  NaN never passes), in float64 or, for two mpmath/decimal-string values, in mpmath;
* :func:`assert_fast_matches_reference` — ``Statement.fast_function()`` on float64 tensors against the reference at
  points drawn by hypothesis from the statement's own ``Param`` domains (``dpspec.conformance.strategies``), with
  values pinned (``fixed`` / keywords) and per-parameter strategies overridden where a test needs other ranges; a
  point outside the theorem's conditions is discarded, and the check fails if fewer than ``min_examples`` points
  were compared (a check that compared nothing cannot pass);
* :func:`assert_fast_matches_at` — the same comparison at one given point (regressions, known hard points);
* :data:`TOLERANCES` / :func:`tolerance` — per statement and region (a predicate on the parameters), the tolerance
  where it differs from ``Statement.tolerance``, with the reason written beside it;
* :func:`curve_arg` — an RDP-curve parameter named once and bound on both sides (``catalogue.curve`` for the
  reference, ``dpspec.fast.conversion.rdp_curve`` for the fast path);
* :func:`log_uniform` — a log-uniform float strategy, for ranges the domains do not give (α − 1, quick sweeps).

Reference values are compared at ``FAST_DPS`` digits (the working precision of the comparisons; the reference is
self-checked at two precisions). Hypothesis is derandomized by tests/conftest.py; the draws of each comparison are
seeded by the statement and the running test, so two tests do not repeat each other's points (the ``explore``
profile draws fresh ones).
"""
from __future__ import annotations

import inspect
import math
import os
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Mapping

import mpmath
from hypothesis import HealthCheck, given, reject, seed, settings, strategies as st
from hypothesis.errors import Unsatisfiable

from dpspec.conformance import strategies as domain_strategies
from dpspec.reference import catalogue
from dpspec.reference.domains import Curve, Integer, Real
from dpspec.reference.errors import ConditionError

FAST_DPS = 30  # digits of the reference in fast-vs-reference comparisons
ATOL = 1e-300  # absolute floor: values below the float64 range underflow to 0 in the fast path


# ---------------------------------------------------------------------------------------------------------------
# the reference


def evaluation(statement_id: str, *, dps: int | None = None, variant: str | None = None, allow_outside: bool = False,
               **params: Any):
    """``Statement.evaluate`` (an Evaluation: value, is_bound, outside, ...); ``dps`` defaults to the catalogue's."""
    kw = {} if dps is None else {"dps": dps}
    return catalogue.get(statement_id).evaluate(variant=variant, allow_outside=allow_outside, **kw, **params)


def reference_value(statement_id: str, *, dps: int | None = None, variant: str | None = None,
                    allow_outside: bool = False, as_float: bool = False, **params: Any):
    """The reference value (mpf, or a tuple of them); ``as_float``: converted with :func:`to_float`."""
    value = evaluation(statement_id, dps=dps, variant=variant, allow_outside=allow_outside, **params).value
    if as_float:
        return tuple(map(to_float, value)) if isinstance(value, tuple) else to_float(value)
    return value


def to_float(x: Any) -> float:
    """float of an mpf, tensor or number; an mpf beyond the float range (float() raises OverflowError, e.g.
    δ ~ e^{−10^600}) becomes 0 or ±inf."""
    try:
        return float(x)
    except OverflowError:
        return 0.0 if abs(x) < 1 else math.copysign(math.inf, x)


# ---------------------------------------------------------------------------------------------------------------
# relative error and the tolerance table


def _is_float64(x: Any) -> bool:
    return isinstance(x, float) or hasattr(x, "dtype")  # a float, a torch tensor or a numpy value


def relative_error(value: Any, expected: Any):
    """|value − expected| / |expected|. Conventions: an exact zero or an infinity only agrees with itself (error 0,
    else inf); NaN on either side is inf (never passes). In float64 when either side is a float, tensor or numpy
    value (mpf converted by :func:`to_float`); in mpmath at the current precision when both are mpf, int or decimal
    strings (``relative_error(eps, "6.71227176253")``)."""
    if _is_float64(value) or _is_float64(expected):
        v, e = to_float(value), to_float(expected)
        if math.isnan(v) or math.isnan(e):
            return math.inf
        if v == e:
            return 0.0
        if e == 0 or math.isinf(e) or math.isinf(v):
            return math.inf
        return abs(v - e) / abs(e)
    v, e = mpmath.mpf(value), mpmath.mpf(expected)
    if mpmath.isnan(v) or mpmath.isnan(e):
        return mpmath.inf
    if v == e:
        return mpmath.mpf(0)
    if e == 0 or mpmath.isinf(e) or mpmath.isinf(v):
        return mpmath.inf
    return abs(v - e) / abs(e)


@dataclass(frozen=True)
class Tol:
    """A tolerance of the fast path against the reference: |fast − ref| ≤ rtol·|ref| + atol, where ``where`` (a
    predicate on the parameters, None: everywhere) holds. ``rtol`` may be a function of the parameters."""

    rtol: float | Callable[[Mapping[str, Any]], float]
    reason: str
    where: Callable[[Mapping[str, Any]], bool] | None = None
    atol: float = ATOL

    def applies(self, params: Mapping[str, Any]) -> bool:
        return self.where is None or bool(self.where(params))

    def rtol_at(self, params: Mapping[str, Any]) -> float:
        return float(self.rtol(params)) if callable(self.rtol) else float(self.rtol)


def _at(**point):
    """A region that is one point (a pinned regression): the parameters named equal these values."""
    return lambda p: all(p.get(k) == v for k, v in point.items())


def _thm5_2_eta_margin(p) -> float:
    """1 − η_B/η_max of Theorem 5.2 (η_max = eta_b_max(n, F, β, λ))."""
    from dpspec.reference.ptr.thm5_2 import eta_b_max

    eta_max = eta_b_max(int(p["n"]), int(p["F"]), float(p["beta"]), float(p["lam_sc"]))
    return 1 - float(p["eta_B"]) / float(eta_max)


# Where a comparison uses another tolerance than Statement.tolerance: per statement, regions in order (the first
# that holds applies), each with its reason. Tighter entries pin accuracy that the statement's 1e-10 would not see.
TOLERANCES: dict[str, tuple[Tol, ...]] = {
    "base.sgm_rdp": (
        Tol(1e-13, "μ0·r^α has a shoulder (not a mode) at z = α here; windows around the modes alone missed "
                   "3.5e-12 of the mass: the quadrature itself is checked at 1e-13",
            where=_at(alpha=45.9235, q=0.04, sigma=2.85, direction="remove")),
    ),
    "base.kov15_profile": (
        Tol(1e-12, "log-gamma differences lose 1e-16·log(k!) ≈ 1e-10 at k = 10⁵ (the first fast version was "
                   "1.0e-10 off there); Loader's saddle-point form of the binomial weights keeps a few 1e-16 absolute",
            where=lambda p: float(p["k"]) >= 5e4, atol=0.0),
    ),
    "ptr.thm5_2": (
        Tol(1e-12, "η_B² underflowed to 0 for η_B ≲ 1e-154 (the fast bound was 0.0 where the reference is an "
                   "ordinary double): tiny step sizes are checked at 1e-12",
            where=lambda p: float(p["eta_B"]) < 1e-150, atol=0.0),
        Tol(1e-14, "pinned: the errata regime σ2 < σ1 (allow_outside) agrees to 1e-14 at the refusal test's point",
            where=_at(n=100, F=10, d=10, R=1, beta=1, lam_sc=1, sigma_g=0.1, sigma1=0.1, sigma2=0.05,
                      eta_B=1e-5)),
        Tol(lambda p: max(1e-10, 1e-15 / _thm5_2_eta_margin(p)),
            "1 − ρ_B loses log10(1/(1 − η/η_max)) digits near η_max, in any arithmetic that takes η as given"),
    ),
}


def tolerance(statement_id: str, params: Mapping[str, Any] | None = None) -> Tol:
    """The tolerance of ``statement_id`` at ``params``: the first region of :data:`TOLERANCES` that holds there,
    else the statement's own (``Statement.tolerance``)."""
    for entry in TOLERANCES.get(statement_id, ()):
        if params is not None and entry.applies(params):
            return entry
    s = catalogue.get(statement_id)
    return Tol(s.tolerance, "Statement.tolerance", atol=max(ATOL, s.abs_tolerance))


# ---------------------------------------------------------------------------------------------------------------
# an independent hockey-stick divergence (exact profiles of base.sgm_profile, base.laplace_subsampled_profile)

def sign_changes(f, lo, hi, n=400):
    """Sign changes of f on a grid of [lo, hi], each refined by 200 bisections."""
    xs = [lo + (hi - lo) * i / n for i in range(n + 1)]
    out = []
    for a, b in zip(xs[:-1], xs[1:]):
        fa, fb = f(a), f(b)
        if (fa > 0) != (fb > 0):
            for _ in range(200):
                m = (a + b) / 2
                if (f(m) > 0) == (fa > 0):
                    a = m
                else:
                    b = m
            out.append((a + b) / 2)
    return out


def hockey_stick_quadrature(log_p, log_q, eps, breaks, scan):
    """∫ (p − e^ε q)₊ by mpmath quadrature: the line is split at ``breaks`` and at the crossings of p = e^ε q found
    on ``scan`` = (lo, hi); on each piece the sign of p − e^ε q is constant, and the positive pieces are integrated
    (in the form e^{log p}(1 − e^{ε + log q − log p}), so the far tail keeps its relative precision)."""
    eps = mpmath.mpf(eps)
    f = lambda x: log_p(x) - eps - log_q(x)  # > 0 iff p > e^ε q
    pts = sorted(set([-mpmath.inf, *breaks, *sign_changes(f, *scan), mpmath.inf]))
    total = mpmath.mpf(0)
    for a, b in zip(pts[:-1], pts[1:]):
        mid = (a + b) / 2 if mpmath.isfinite(a) and mpmath.isfinite(b) else (b - 1 if mpmath.isfinite(b) else a + 1)
        if f(mid) <= 0:
            continue
        total += mpmath.quad(lambda x: mpmath.exp(log_p(x)) * -mpmath.expm1(-f(x)), [a, b])
    return total


# ---------------------------------------------------------------------------------------------------------------
# parameters on both sides


@dataclass(frozen=True)
class CurveArg:
    """An RDP curve parameter: statement id and its bound parameters, made into ``catalogue.curve`` for the
    reference and ``rdp_curve`` for the fast path."""

    statement_id: str
    params: tuple[tuple[str, Any], ...]

    def reference(self):
        return catalogue.curve(self.statement_id, **dict(self.params))

    def fast(self):
        from dpspec.fast.conversion import rdp_curve

        return rdp_curve(self.statement_id, **{k: _fast_number(v) for k, v in self.params})

    def __repr__(self) -> str:
        return f"curve_arg({self.statement_id!r}, {', '.join(f'{k}={v!r}' for k, v in self.params)})"


def curve_arg(statement_id: str, **params: Any) -> CurveArg:
    return CurveArg(statement_id, tuple(sorted(params.items())))


class _NoFastForm(Exception):
    """A drawn parameter has no fast-path form (e.g. a curve of a statement without a fast RDP curve)."""


def _fast_number(v: Any) -> Any:
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return v
    return v


def _reference_arg(v: Any) -> Any:
    return v.reference() if isinstance(v, CurveArg) else v


def _fast_arg(domain: Any, v: Any) -> Any:
    import torch

    if isinstance(v, CurveArg):
        return v.fast()
    if isinstance(domain, Curve) or callable(v):
        sid = getattr(v, "statement_id", None)  # a catalogue.curve drawn from the domain: its fast counterpart
        if sid is None:
            raise _NoFastForm(f"curve {v!r}")
        try:
            return CurveArg(sid, tuple(sorted(getattr(v, "params", {}).items()))).fast()
        except ValueError as exc:
            raise _NoFastForm(str(exc)) from None
    if isinstance(domain, (Real, Integer)) and not isinstance(v, bool):
        return torch.tensor(float(v), dtype=torch.float64)
    return v  # a Choice (a string), a point set, or a parameter the statement does not declare


def _components(v: Any) -> tuple:
    return tuple(v) if isinstance(v, tuple) else (v,)


def _show(params: Mapping[str, Any]) -> str:
    return "(" + ", ".join(f"{k}={v!r}" for k, v in params.items()) + ")"


# ---------------------------------------------------------------------------------------------------------------
# the comparison


def _compare(statement_id: str, params: Mapping[str, Any], *, fast: Callable | None, tol: float | Tol | None,
             dps: int, allow_outside: bool, variant: str | None, skip: tuple[type[BaseException], ...]):
    """Compare at one point; returns None when the point was skipped (the reference raised one of ``skip``)."""
    import torch

    s = catalogue.get(statement_id)
    try:
        ref = s.evaluate(dps=dps, variant=variant, allow_outside=allow_outside,
                         **{k: _reference_arg(v) for k, v in params.items()}).value
    except skip:
        return None
    domains = {p.name: p.domain for p in s.params}
    fn = fast if fast is not None else s.fast_function()
    assert fn is not None, f"{statement_id} has no fast path"
    kwargs = {k: _fast_arg(domains.get(k), v) for k, v in params.items()}
    if allow_outside and "allow_outside" in inspect.signature(fn).parameters:
        kwargs["allow_outside"] = True
    out = fn(**kwargs)
    entry = tol if isinstance(tol, Tol) else Tol(tol, "given by the test") if tol is not None else \
        tolerance(statement_id, params)
    rtol = entry.rtol_at(params)
    fast_values, ref_values = _components(out), _components(ref)
    assert len(fast_values) == len(ref_values), \
        f"{statement_id}{_show(params)}: fast returns {len(fast_values)} values, the reference {len(ref_values)}"
    for i, (f, r) in enumerate(zip(fast_values, ref_values)):
        if isinstance(f, torch.Tensor):
            assert f.dtype == torch.float64, f"{statement_id}{_show(params)}: fast dtype {f.dtype}"
        fv, rv = to_float(f), to_float(r)
        ok = fv == rv or (math.isfinite(fv) and math.isfinite(rv) and abs(fv - rv) <= rtol * abs(rv) + entry.atol)
        if not ok:
            which = f" (component {i})" if len(ref_values) > 1 else ""
            shown = mpmath.nstr(r, 17) if isinstance(r, mpmath.mpf) else repr(r)
            raise AssertionError(f"{statement_id}{_show(params)}{which}: fast {fv!r} vs reference {shown}: "
                                 f"relative error {relative_error(fv, rv):.3g} > {rtol:g} ({entry.reason})")
    return out, ref


def assert_fast_matches_at(statement_id: str, *, fast: Callable | None = None, tol: float | Tol | None = None,
                           dps: int = FAST_DPS, allow_outside: bool = False, variant: str | None = None,
                           **params: Any):
    """The fast path agrees with the reference at this one point (every component), within ``tol`` (default:
    :func:`tolerance`). ``fast``: another callable than ``Statement.fast_function()`` (same keyword arguments).
    Returns (fast value, reference value)."""
    return _compare(statement_id, params, fast=fast, tol=tol, dps=dps, allow_outside=allow_outside,
                    variant=variant, skip=())


def assert_fast_matches_reference(statement_id: str, *, examples: int = 10, min_examples: int | None = None,
                                  strategies: Mapping[str, st.SearchStrategy] | None = None,
                                  strategy: st.SearchStrategy | None = None, fixed: Mapping[str, Any] | None = None,
                                  where: Callable[[Mapping[str, Any]], bool] | None = None,
                                  fast: Callable | None = None, tol: float | Tol | None = None,
                                  dps: int = FAST_DPS, allow_outside: bool = False, variant: str | None = None,
                                  skip: tuple[type[BaseException], ...] = (ConditionError,),
                                  **fixed_params: Any) -> list[dict[str, Any]]:
    """The fast path agrees with the reference at ``examples`` hypothesis draws.

    Points: every parameter from its ``Param`` domain (``dpspec.conformance.strategies.params``), except those
    pinned by ``fixed`` / keyword arguments and those with a strategy in ``strategies``; or ``strategy``, a whole
    strategy of parameter dicts (then ``fixed`` and ``strategies`` are laid over it). ``where`` discards points
    (e.g. within rounding of a condition's boundary). A point where the reference raises one of ``skip`` (default:
    ConditionError, outside the theorem's conditions) is discarded; any other error fails. Fails unless at least
    ``min_examples`` (default: half of ``examples``, at least 1) points were compared. Returns the points compared.
    """
    s = catalogue.get(statement_id)
    pinned = {**(fixed or {}), **fixed_params}
    overrides = {k: v for k, v in (strategies or {}).items() if k not in pinned}
    if strategy is None:
        draws = domain_strategies.params(s, fixed={**{k: None for k in overrides}, **pinned})
    else:
        draws = strategy.map(lambda p: {**p, **pinned}) if pinned else strategy
    if overrides:
        draws = st.tuples(draws, st.fixed_dictionaries(overrides)).map(lambda t: {**t[0], **t[1]})
    need = max(1, examples // 2) if min_examples is None else min_examples
    compared: list[dict[str, Any]] = []

    def body(params):
        if where is not None and not where(params):
            reject()
        try:
            done = _compare(statement_id, params, fast=fast, tol=tol, dps=dps, allow_outside=allow_outside,
                            variant=variant, skip=skip)
        except _NoFastForm:
            reject()
        if done is None:
            reject()
        compared.append(dict(params))

    run = settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))(given(draws)(body))
    if settings().derandomize:  # the same points on every machine, but not the same for every test and statement
        test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
        run = seed(zlib.crc32(f"{statement_id}|{test}".encode()))(run)
    try:
        run()
    except Unsatisfiable:
        pass
    assert len(compared) >= need, (f"{statement_id}: only {len(compared)} of {examples} draws compared (at least "
                                   f"{need} needed): the others were outside the conditions or discarded by `where`")
    return compared


def working_precision(dps: int):
    """An autouse fixture running each test of a module at ``dps`` mpmath digits: ``_dps = working_precision(20)``."""
    import pytest

    @pytest.fixture(autouse=True)
    def _dps():
        with mpmath.workdps(dps):
            yield

    return _dps


# ---------------------------------------------------------------------------------------------------------------
# strategies


def param_strategy(statement_id: str, name: str) -> st.SearchStrategy:
    """The strategy of one parameter's domain (``dpspec.conformance.strategies.for_domain``), e.g. to draw a
    curve's noise from the domain of the curve statement's own ``sigma``."""
    param = next(p for p in catalogue.get(statement_id).params if p.name == name)
    return domain_strategies.for_domain(param.domain)


def log_uniform(lo: float, hi: float) -> st.SearchStrategy[float]:
    """Floats with log10 uniform on [log10 lo, log10 hi]."""
    return st.floats(math.log10(lo), math.log10(hi)).map(lambda t: 10.0**t)
