"""Edge search over every statement's domain: points concentrated at the ends of each parameter's domain, and the
properties that must hold there for the reference and (where there is one) the torch fast path.

Where the points come from (a statement's declared ``Param`` domains only; nothing here knows a statement id):

* ``Real``: the closed ends themselves; each finite end ± 1, 2, 3 ulps and ± 2⁻⁵²·|end| … 1e-3·|end| (so α = 1+1e-9,
  q = 1 − 1e-12 and δ0 = ½ − 1e-9 are drawn); at an end 0 the subnormals 5e-324, 1e-320, 1e-310, the smallest normal
  2.2250738585072014e-308 and 1e-300 … 1e-3; at an end ±inf the magnitudes 1e3 … 1e300, 1e308, 1.7976931348623157e308
  (and inf where the domain allows it); the landmarks 0, ±1 (± an ulp, ± 1e-9) and the practical sampling range's
  ends. Every candidate is filtered by ``domain.contains``;
* ``Integer``: lo, lo+1, lo+2, hi−2, hi−1, hi, and for an unbounded end 2³¹−1, 2³¹, 2³², 10⁶, 10⁹, 10¹², 2⁵³−1, 2⁵³,
  10¹⁵, 10¹⁸;
* ``Choice``: its options; ``Points``: the example and a few extreme sets (empty, one point, subnormal and 1e300
  coordinates, repeated points); ``Curve``: the catalogue's RDP statements whose fast curve
  (``dpspec.fast.conversion.rdp_curve``) is the same function as the reference curve (``catalogue.curve``; checked
  at probe orders, so an entry such as ``ptr.thm4_4``, whose table curve is the tightest of two bounds, is left out),
  with their own parameters drawn the same way.

A point is either one numeric parameter at an edge with the others at their examples (a third of the draws: so a
statement with restrictive conditions is still evaluated at each edge), or every parameter drawn independently: an
edge value in half the draws, otherwise the example or an ordinary value spread over the practical range as
``conformance.strategies`` spreads its draws, so edges meet ordinary values of the other parameters. One draw in ten
then puts one parameter just outside its domain (an open end itself, the next float beyond an end, NaN, ±inf, a
non-integer, an unknown option, a non-finite point set), where both paths must refuse with ``DomainError``. Every
choice is uniform over its branches and candidates, so a small example count still spreads over the edges. A search
with a ``seed`` draws point i from a ``random.Random`` seeded by (seed, i) (:func:`point_random`): the same points on
every machine and in every context, which hypothesis's own generation does not give (its pool of constants depends on
the modules loaded). :func:`edge_points` is the same generator as a hypothesis strategy; a search without a seed (the
``explore`` profile) draws through it.

What is checked at each point (:func:`edge_search`; every failure carries the ``dpspec eval`` command that
reproduces it):

* the reference answers with a number (a pair for ``eps_delta`` values) or refuses with ``DomainError``,
  ``ConditionError``, ``ParameterError`` or ``PrecisionError`` in one line of at most :data:`MESSAGE_LIMIT`
  characters; any other exception fails;
* the fast path (float64 tensors) answers iff the reference answers, refusing with the same class otherwise (its own
  ``PrecisionError``, a value out of float64's reach, is a refusal too; a point where the reference raised
  ``PrecisionError`` or ran out of time constrains nothing); its output is float64 and never
  NaN; where the reference value is a positive normal double, the fast value is finite and positive; every component
  agrees within the tolerance (``Statement.tolerance``, or the ``tolerance`` callable given — the test suite passes
  its per-region table) plus an absolute 1e-300 (values below the double range underflow);
* the same point given as float32/float16/bfloat16 tensors, int64 tensors, Python numbers and numpy values, for each
  value exactly representable in that type, gives the same fast answer (or refusal) as float64 tensors, bit for bit:
  the fast path promotes every real dtype to float64 (``dpspec.fast._torch.as_tensor``);
* each evaluation's wall time is recorded (:meth:`EdgeReport.slowest`); ``time_limit_s`` turns an evaluation that
  runs past it (in CPU time) into an ``edge:timeout`` failure (SIGPROF: scripts, and a generous hang guard in the
  test suite).

The search is bounded by the number of examples, not by time; :func:`edge_checks` returns the findings as
:class:`~dpspec.conformance.verdicts.Check` objects for the conformance runner.
"""
from __future__ import annotations

import contextlib
import json
import math
import random
import shlex
import signal
import threading
import time
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Mapping

import mpmath
from hypothesis import HealthCheck, Phase, Verbosity, given, reject, settings, strategies as st
from hypothesis.errors import Unsatisfiable

from dpspec.reference import catalogue
from dpspec.reference.domains import Choice, Curve, Integer, Points, Real
from dpspec.reference.errors import ConditionError, DomainError, ParameterError, PrecisionError

from . import strategies
from .verdicts import Check

EDGE_DPS = 30  # digits of the reference in the search (self-checked at two higher precisions)
# a refusal is one line of at most this many characters: a ConditionError names every failed condition with its
# text from the seed (ptr.thm4_4 with (C1), (C3) and (C4) failed: 350 characters; ptr.thm5_2: 391), which is what a
# user needs; the defect this guards against is messages of thousands of characters (a 900-digit number printed)
MESSAGE_LIMIT = 600
ATOL = 1e-300  # absolute floor of the comparison: values below the double range underflow in float64
TINY_NORMAL = 2.2250738585072014e-308  # the smallest positive normal double
OUTSIDE_RATE = 10  # one draw in this many puts one parameter just outside its domain

# Candidate values near the ends of a domain (filtered by ``domain.contains``).
TINY = (5e-324, 1e-320, 1e-310, TINY_NORMAL, 1e-300, 1e-200, 1e-100, 1e-30, 1e-16, 1e-9, 1e-6, 1e-3)
HUGE = (1e3, 1e6, 2.0**53, 1e15, 1e30, 1e100, 1e200, 1e300, 1e308, 1.7976931348623157e308)
RELATIVE = (2.0**-52, 1e-15, 1e-12, 1e-9, 1e-6, 1e-3)  # relative steps into the domain from a non-zero end
ULPS = 3
INT_BIG = (2**31 - 1, 2**31, 2**32, 10**6, 10**9, 10**12, 2**53 - 1, 2**53, 10**15, 10**18)
LANDMARKS = (0.0, 1.0, -1.0)

# Refusal classes (the class of the exception each path raised).
VALUE, DOMAIN, CONDITION, PARAMETER, PRECISION, ERROR, TIMEOUT = (
    "value", "DomainError", "ConditionError", "ParameterError", "PrecisionError", "error", "timeout")


# ---------------------------------------------------------------------------------------------------------------
# edge values of one domain


def _next(x: float, toward: float, n: int = 1) -> float:
    for _ in range(n):
        x = math.nextafter(x, toward)
    return x


def real_edges(domain: Real) -> list[float]:
    """The edge candidates of a real domain that lie in it (sorted, distinct)."""
    out: list[float] = []
    for end, inward in ((domain.lo, math.inf), (domain.hi, -math.inf)):
        sign = 1.0 if inward > 0 else -1.0
        if math.isinf(end):
            out += [-sign * h for h in HUGE]  # lo = −inf: large negatives; hi = +inf: large positives
            if end > 0 and domain.allow_inf:
                out.append(math.inf)
            continue
        out.append(end)
        out += [_next(end, inward, k) for k in range(1, ULPS + 1)]
        if end == 0:
            out += [sign * t for t in TINY]
        else:
            out += [end + sign * abs(end) * r for r in RELATIVE]
    if domain.allow_inf:
        out.append(math.inf)
    for mark in LANDMARKS:
        out += [mark, _next(mark, math.inf), _next(mark, -math.inf), mark + 1e-9, mark - 1e-9]
    lo, hi = domain.strategy_range
    out += [v for v in (lo, hi) if v is not None]
    return sorted({float(v) for v in out if domain.contains(float(v))})


def integer_edges(domain: Integer) -> list[int]:
    out = [domain.lo, domain.lo + 1, domain.lo + 2]
    if math.isinf(domain.hi):
        out += list(INT_BIG)
    else:
        hi = int(domain.hi)
        out += [hi - 2, hi - 1, hi]
    _, sample_hi = domain.strategy_range
    out.append(sample_hi)
    return sorted({int(v) for v in out if domain.contains(v)})


POINT_SETS = ([], [[0.0]], [[0.5, 0.5]], [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], [[5e-324, 0.0], [0.0, 1e-320]],
              [[1e300, -1e300], [0.0, 0.0]], [[1e-300, 1.0], [1.0, 1e-300], [0.5, 0.5]])


def outside_values(domain: Any) -> list[Any]:
    """Values just outside a domain (each refused by ``domain.contains``)."""
    if isinstance(domain, Real):
        out = [math.nan, -math.inf, math.inf]
        for end, outward in ((domain.lo, -math.inf), (domain.hi, math.inf)):
            if math.isfinite(end):
                out += [end, _next(end, outward)]
        return [v for v in out if not domain.contains(v)]
    if isinstance(domain, Integer):
        out = [math.nan, math.inf, -math.inf, domain.lo - 1, domain.lo + 0.5]
        if math.isfinite(domain.hi):
            out.append(int(domain.hi) + 1)
        return [v for v in out if not domain.contains(v)]
    if isinstance(domain, Choice):
        return ["__not_an_option__"]
    if isinstance(domain, Points):
        return [[[math.nan, 0.0]], [[math.inf]]]
    return []


def _is_numeric(domain: Any) -> bool:
    return isinstance(domain, (Real, Integer))


# ---------------------------------------------------------------------------------------------------------------
# curves


@dataclass(frozen=True)
class CurveSpec:
    """An RDP-curve parameter: a catalogue statement id and its other parameters, made into ``catalogue.curve`` for
    the reference and ``dpspec.fast.conversion.rdp_curve`` (float64 tensors) for the fast path."""

    statement_id: str
    params: tuple[tuple[str, Any], ...]

    def reference(self):
        return catalogue.curve(self.statement_id, **dict(self.params))

    def fast(self):
        import torch

        from dpspec.fast.conversion import rdp_curve

        return rdp_curve(self.statement_id, **{k: v if isinstance(v, str) else torch.tensor(float(v),
                                               dtype=torch.float64) for k, v in self.params})

    def __repr__(self) -> str:
        return f"{self.statement_id}({', '.join(f'{k}={v!r}' for k, v in self.params)})"


def _number(v: Any) -> Any:
    """A numeric example given as a decimal string (``"1e-8"``) as a float; anything else as it is."""
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return v
    return v


PROBE_ORDERS = (1.5, 2.0, 8.0, 64.0, 1000.0)


CURVE_RETURNS = strategies.CURVE_RETURNS  # Curve.kind -> the declared value of the statements that are such curves


@lru_cache(maxsize=None)
def curve_ids(kind: str) -> tuple[str, ...]:
    """Catalogue statements that are curves of ``kind`` (``Value.returns`` of :data:`CURVE_RETURNS`), take no curve
    themselves and have an example for every required parameter other than the axis."""
    out = []
    for s in catalogue.statements():
        if s.value.returns != CURVE_RETURNS.get(kind) or any(isinstance(p.domain, Curve) for p in s.params):
            continue
        others = [p for p in s.params if p.name != s.value.axis]
        if all(p.example is not None or not p.required for p in others):
            out.append(s.id)
    return tuple(out)


@lru_cache(maxsize=None)
def fast_curve_ids() -> tuple[str, ...]:
    """The RDP curves of :func:`curve_ids` whose fast counterpart is the same function: in the fast mechanism
    table (``rdp_curve``), numeric parameters only, and equal to the statement's own fast path (value or refusal
    class) at the example point and :data:`PROBE_ORDERS`."""
    import torch

    from dpspec.fast.mechanisms import MECHANISMS

    out = []
    for sid in curve_ids("rdp"):
        s = catalogue.get(sid)
        if s.fast is None or sid not in MECHANISMS:
            continue
        others = [p for p in s.params if p.name != s.value.axis]
        example = {p.name: _number(p.example) for p in others if p.example is not None and _is_numeric(p.domain)}
        if any(p.required and p.name not in example for p in others):
            continue
        spec = CurveSpec(sid, tuple(sorted(example.items())))
        same = True
        for a in PROBE_ORDERS:
            alpha = torch.tensor(a, dtype=torch.float64)
            own = _outcome(lambda: s.fast_function()(**{s.value.axis: alpha}, **{
                k: torch.tensor(float(v), dtype=torch.float64) for k, v in example.items()}))
            table = _outcome(lambda: spec.fast()(alpha))
            if own[0] != table[0] or (own[0] == VALUE and float(own[1]) != float(table[1])):
                same = False
                break
        if same:
            out.append(sid)
    return tuple(out)


# ---------------------------------------------------------------------------------------------------------------
# drawing points


class NoPoint(Exception):
    """The statement has a parameter of which no value can be drawn (a curve kind without candidates)."""


def _draw_curve(rnd: random.Random, domain: Curve, fast: bool) -> CurveSpec:
    """A curve of the domain's kind with its own parameters drawn by :func:`draw_param`: one with a fast
    counterpart (:func:`fast_curve_ids`) when ``fast``, else any catalogue curve of the kind."""
    ids = (fast_curve_ids() if domain.kind == "rdp" else ()) if fast else curve_ids(domain.kind)
    if not ids:
        raise NoPoint(f"no catalogue curve of kind {domain.kind!r}")
    s = catalogue.get(ids[rnd.randrange(len(ids))])
    for _ in range(CURVE_CONDITION_DRAWS):
        params = {p.name: draw_param(rnd, p, fast) for p in s.params
                  if p.name != s.value.axis and (_is_numeric(p.domain) or p.required)}
        if not s.conditions or _curve_conditions_hold(s, params):
            break
    return CurveSpec(s.id, tuple(sorted(params.items())))


CURVE_CONDITION_DRAWS = 20  # redraws of a curve's own parameters until its theorem's conditions hold (λ > β, ...)


def _curve_conditions_hold(s, params: dict) -> bool:
    """A curve is a mechanism's RDP bound inside its theorem's conditions (seed 003's objpert.thm4_4_1 needs λ > β):
    outside them the fast table refuses while a consumer that never evaluates the curve at some order answers, a
    disagreement about the curve, not about the consumer. The last draw is kept if none holds (the edge search then
    reports what it meets)."""
    import mpmath

    probe = {**params, s.value.axis: 2}
    try:
        with mpmath.workdps(30):
            return not s.failed_conditions(s.bind(probe))
    except Exception:  # noqa: BLE001 - a point the statement cannot bind: not inside its conditions
        return False


def ordinary_value(rnd: random.Random, domain: Real | Integer) -> float | int:
    """A value spread over the domain's practical sampling range as ``conformance.strategies`` spreads its draws:
    log-uniform where the domain's scale is "log", uniform otherwise, the ends of the range in one draw of five."""
    if isinstance(domain, Integer):
        lo, hi = domain.strategy_range
        if rnd.random() < 0.2:
            return lo if rnd.random() < 0.5 else hi
        if domain.scale == "log" and lo >= 1 and hi > lo:
            return min(hi, max(lo, int(round(math.exp(rnd.uniform(0.0, math.log(hi)))))))
        return rnd.randint(lo, hi)
    lo, hi = strategies._finite_range(domain)
    for _ in range(8):
        if rnd.random() < 0.2:
            v = lo if rnd.random() < 0.5 else hi
        elif domain.scale == "log" and lo > 0:
            v = math.exp(rnd.uniform(math.log(lo), math.log(hi)))
        else:
            v = rnd.uniform(lo, hi)
        if domain.contains(v):
            return v
    return (lo + hi) / 2 if domain.contains((lo + hi) / 2) else real_edges(domain)[0]


def draw_param(rnd: random.Random, p, fast: bool = True, edge_share: float = 0.5) -> Any:
    """One parameter: an edge value with probability ``edge_share``; otherwise the example in a fifth of the rest
    and an ordinary value (:func:`ordinary_value`) else. Choice options, point sets and curves are drawn uniformly."""
    d = p.domain
    example = _example(p)
    if isinstance(d, (Real, Integer)):
        edges = real_edges(d) if isinstance(d, Real) else integer_edges(d)
        u = rnd.random()
        if edges and u < edge_share:
            return edges[rnd.randrange(len(edges))]
        if example is not None and u >= 1 - 0.2 * (1 - edge_share):
            return example
        return ordinary_value(rnd, d)
    if isinstance(d, Choice):
        return d.options[rnd.randrange(len(d.options))]
    if isinstance(d, Points):
        sets = ([example] if example is not None else []) + [s for s in POINT_SETS if d.contains(s)]
        return sets[rnd.randrange(len(sets))]
    if isinstance(d, Curve):
        return _draw_curve(rnd, d, fast)
    raise TypeError(f"no edge strategy for domain {d!r}")


def _example(p) -> Any:
    """A parameter's example (or default) when it is a usable value of its domain (numbers as floats), else None."""
    v = _number(p.example if p.example is not None else (None if p.required else p.default))
    if v is None or isinstance(p.domain, Curve):
        return None
    if isinstance(p.domain, (Real, Integer)) and (isinstance(v, bool) or not isinstance(v, (int, float))):
        return None
    return v if p.domain.contains(v) else None


def draw_point(rnd: random.Random, statement, fast: bool = True) -> dict[str, Any]:
    """A parameter dict of ``statement``: in a third of the draws one numeric parameter at an edge and the others at
    their examples (so a statement with restrictive conditions is still evaluated at each edge), otherwise every
    parameter drawn by :func:`draw_param`; in one draw of :data:`OUTSIDE_RATE` one parameter is then put just
    outside its domain and ``"__outside__"`` names it. ``fast``: curve parameters only with a fast counterpart (the
    search passes whether the statement has a fast path, so a reference-only search draws the same kind of points).
    """
    numeric = [p for p in statement.params if _is_numeric(p.domain)]
    point = {}
    if numeric and rnd.random() < 1 / 3:
        lone = numeric[rnd.randrange(len(numeric))]
        for p in statement.params:
            example = _example(p)
            if p is lone:
                point[p.name] = draw_param(rnd, p, fast, edge_share=1.0)
            else:
                point[p.name] = example if example is not None else draw_param(rnd, p, fast)
    else:
        point = {p.name: draw_param(rnd, p, fast) for p in statement.params}
    movable = [p for p in statement.params if outside_values(p.domain)]
    if movable and rnd.randrange(OUTSIDE_RATE) == 0:
        p = movable[rnd.randrange(len(movable))]
        values = outside_values(p.domain)
        point[p.name] = values[rnd.randrange(len(values))]
        point["__outside__"] = p.name
    return point


def edge_points(statement, fast: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """:func:`draw_point` as a hypothesis strategy (its ``random.Random`` seeded by hypothesis), for property tests
    that want edge points of a statement; ``param_strategy`` does the same for one parameter."""
    def draw(rnd):
        try:
            return draw_point(rnd, statement, fast)
        except NoPoint:
            reject()

    return st.randoms(note_method_calls=False, use_true_random=True).map(draw)


def param_strategy(p, fast: bool = True, edge_share: float = 0.5) -> st.SearchStrategy:
    """:func:`draw_param` as a hypothesis strategy."""
    return st.randoms(note_method_calls=False, use_true_random=True).map(lambda rnd: draw_param(rnd, p, fast,
                                                                                                 edge_share))


def point_random(seed: int, index: int) -> random.Random:
    """The generator of the ``index``-th point of a search with ``seed`` (the same on every machine and in every
    context: hypothesis's own generation depends on the modules loaded, through its pool of local constants)."""
    return random.Random(zlib.crc32(f"{seed}|{index}".encode()) * 2**32 + index)


# ---------------------------------------------------------------------------------------------------------------
# evaluation


class _OutOfTime(Exception):
    pass


WALL_FACTOR = 10  # a block that waits rather than computes (sleeps, locks) is cut off after this many times the limit


@contextlib.contextmanager
def _time_limit(seconds: float | None, alarm: dict):
    """Interrupt the block after ``seconds`` of this process's CPU time (ITIMER_PROF / SIGPROF), or after
    WALL_FACTOR × ``seconds`` of wall time for a block that waits instead of computing (ITIMER_REAL / SIGALRM); main
    thread only; None: no limit. ``alarm["fired"]`` records that it did, so that an error the interrupted code raised
    in its place (a wrapper that turns any exception of a curve into a ParameterError) still counts as the timeout.
    CPU time decides: the verdict must not depend on how busy the machine is (on a loaded 2-core machine a 20 s
    evaluation took 70 s of wall time and was reported as a hang). Scripts only, never the test suite's default."""
    if seconds is None or not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        alarm["fired"] = True
        raise _OutOfTime(f"no answer within {seconds} s of CPU time")

    previous = {sig: signal.signal(sig, expire) for sig in (signal.SIGPROF, signal.SIGALRM)}
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, WALL_FACTOR * seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _outcome(fn: Callable[[], Any], time_limit_s: float | None = None) -> tuple[str, Any, float]:
    """(class, value or exception, seconds) of one evaluation."""
    start = time.perf_counter()
    alarm = {"fired": False}
    try:
        with _time_limit(time_limit_s, alarm):
            value = fn()
        kind = VALUE
    except _OutOfTime as exc:
        kind, value = TIMEOUT, exc
    except DomainError as exc:
        kind, value = DOMAIN, exc
    except ConditionError as exc:
        kind, value = CONDITION, exc
    except ParameterError as exc:
        kind, value = PARAMETER, exc
    except PrecisionError as exc:
        kind, value = PRECISION, exc
    except Exception as exc:  # noqa: BLE001 - any other exception is what the search looks for
        kind, value = ERROR, exc
    if alarm["fired"]:
        kind = TIMEOUT
    return kind, value, time.perf_counter() - start


def _components(v: Any) -> tuple:
    return tuple(v) if isinstance(v, tuple) else (v,)


def _to_float(x: Any) -> float:
    try:
        return float(x)
    except OverflowError:
        return 0.0 if abs(x) < 1 else math.copysign(math.inf, x)


def _plain(v: Any) -> Any:
    return repr(v) if isinstance(v, CurveSpec) else v


@dataclass
class Tolerance:
    rtol: float
    atol: float = ATOL
    reason: str = "Statement.tolerance"


def _tolerance_of(statement, tolerance, point) -> Tolerance:
    if tolerance is None:
        return Tolerance(statement.tolerance, max(ATOL, statement.abs_tolerance))
    t = tolerance(point)
    if isinstance(t, (int, float)):
        return Tolerance(float(t))
    rtol = t.rtol_at(point) if hasattr(t, "rtol_at") else float(t.rtol)
    return Tolerance(rtol, float(getattr(t, "atol", ATOL)), str(getattr(t, "reason", "")))


# ---------------------------------------------------------------------------------------------------------------
# reproduction


def _arg_text(v: Any) -> str:
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isfinite(v) and v == int(v) and abs(v) < 1e16:
            return str(int(v))
        return repr(v)
    if isinstance(v, (list, tuple)):
        return json.dumps(v)
    return str(v)


def command(statement, point: Mapping[str, Any], fast: bool = False) -> str:
    """The ``dpspec eval`` command for ``point`` (floats by their shortest repr, which ``--fast`` reads exactly and
    the reference reads as that decimal, i.e. to within half an ulp), or a ``python -c`` line where the command line
    cannot say it (a curve parameter sharing a name with the statement's own)."""
    args: list[str] = []
    for name, v in point.items():
        if name.startswith("__"):
            continue
        if isinstance(v, CurveSpec):
            if any(k in statement.param_names for k, _ in v.params):
                return python_command(statement, point, fast)
            args.append(f"{name}={v.statement_id}")
            args += [f"{k}={_arg_text(x)}" for k, x in v.params]
        else:
            args.append(f"{name}={shlex.quote(_arg_text(v))}")
    return f"dpspec eval {statement.id} " + " ".join(args) + (" --fast" if fast else "")


def _py_value(v: Any, fast: bool, dtype: str | None = None) -> str:
    if isinstance(v, CurveSpec):
        inner = ", ".join(f"{k}={_py_value(x, fast)}" for k, x in v.params)
        if fast:
            return f"__import__('dpspec.fast.conversion').fast.conversion.rdp_curve({v.statement_id!r}, {inner})"
        return f"c.curve({v.statement_id!r}, {inner})"
    if isinstance(v, float):
        text = f"float({repr(v)!r})" if not math.isfinite(v) else repr(v)
    else:
        text = repr(v)
    if fast and isinstance(v, (int, float)) and not isinstance(v, bool):
        return f"torch.tensor({text}, dtype=torch.{dtype or 'float64'})"
    if fast and isinstance(v, list):
        return f"torch.tensor({text}, dtype=torch.float64)"
    return text


def python_command(statement, point: Mapping[str, Any], fast: bool, dtypes: Mapping[str, str] | None = None,
                   raw: Mapping[str, str] | None = None) -> str:
    """A ``python -c`` line evaluating the reference (or the fast path, with ``dtypes`` per parameter, or ``raw``
    Python source per parameter) at ``point``."""
    dtypes, raw = dict(dtypes or {}), dict(raw or {})
    parts = []
    for name, v in point.items():
        if name.startswith("__"):
            continue
        text = raw[name] if name in raw else _py_value(v, fast, dtypes.get(name))
        parts.append(f"{name}={text}")
    if fast:
        body = (f"import torch; from dpspec.reference import catalogue as c; "
                f"print(c.get({statement.id!r}).fast_function()({', '.join(parts)}))")
    else:
        body = (f"from dpspec.reference import catalogue as c; "
                f"print(c.get({statement.id!r}).evaluate(dps={EDGE_DPS}, {', '.join(parts)}).value)")
    return "python -c " + shlex.quote(body)


# ---------------------------------------------------------------------------------------------------------------
# the search


@dataclass
class PointRecord:
    """What happened at one point: each path's outcome class, value (floats) and seconds."""

    point: dict[str, Any]  # as drawn (curve parameters as CurveSpec); ``shown`` for reports
    outside: str | None
    reference: str
    reference_value: tuple[float, ...] | None
    reference_seconds: float
    fast: str | None = None
    fast_value: tuple[float, ...] | None = None
    fast_seconds: float | None = None
    failures: list[str] = field(default_factory=list)  # check names failed here
    agreed: bool | None = None  # both answered and every component within tolerance

    @property
    def seconds(self) -> float:
        return self.reference_seconds + (self.fast_seconds or 0.0)

    @property
    def shown(self) -> dict[str, Any]:
        return _show_point(self.point)

    def flat(self) -> dict[str, Any]:
        """The point with a curve parameter spelled out: ``curve`` (its statement id) and ``curve.q`` etc."""
        out: dict[str, Any] = {}
        for k, v in self.point.items():
            if isinstance(v, CurveSpec):
                out[k] = v.statement_id
                out.update({f"{k}.{name}": x for name, x in v.params})
            else:
                out[k] = v
        return out

    def to_json(self) -> dict[str, Any]:
        from dpspec.reference.precision import jsonable

        return jsonable({"point": self.flat(), "outside": self.outside, "reference": self.reference,
                         "reference_value": self.reference_value, "reference_seconds": self.reference_seconds,
                         "fast": self.fast, "fast_value": self.fast_value, "fast_seconds": self.fast_seconds,
                         "failures": self.failures, "agreed": self.agreed})


@dataclass
class EdgeReport:
    statement_id: str
    examples: int
    seed: int | None
    records: list[PointRecord] = field(default_factory=list)
    failures: list[Check] = field(default_factory=list)
    seconds: float = 0.0
    statement: Any = field(default=None, repr=False)

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.records:
            key = ("outside:" if r.outside else "") + r.reference
            out[key] = out.get(key, 0) + 1
        return out

    def slowest(self, n: int = 5) -> list[tuple[float, str, str]]:
        """The ``n`` slowest evaluations: (seconds, path, command)."""
        st_ = self.statement if self.statement is not None else catalogue.get(self.statement_id)
        evals = []
        for r in self.records:
            evals.append((r.reference_seconds, "reference", command(st_, r.point)))
            if r.fast_seconds is not None:
                evals.append((r.fast_seconds, "fast", command(st_, r.point, fast=True)))
        evals.sort(key=lambda t: -t[0])
        return evals[:n]

    def summary(self, timings: bool = True) -> str:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts().items()))
        slow = self.slowest(1) if timings else []
        worst = f"; slowest {slow[0][0]:.2f} s ({slow[0][1]})" if slow else ""
        return f"{len(self.records)} points ({counts}){worst}; {len(self.failures)} failure(s)"

    def describe_failures(self, limit: int = 40) -> str:
        lines = [f"{c.name}: {c.message}" for c in self.failures[:limit]]
        if len(self.failures) > limit:
            lines.append(f"... and {len(self.failures) - limit} more")
        lines.append("slowest evaluations:")
        lines += [f"  {s:8.3f} s  {path:9s} {cmd}" for s, path, cmd in self.slowest(5)]
        return "\n".join(lines)


def edge_search(statement, *, examples: int, seed: int | None, fast: bool = True,
                tolerance: Callable[[Mapping[str, Any]], Any] | None = None, dps: int = EDGE_DPS,
                time_limit_s: float | None = None, stop_after_timeout: bool = False,
                dtype_variants: bool = True,
                on_record: Callable[[PointRecord, list[Check]], None] | None = None) -> EdgeReport:
    """Evaluate ``statement`` at ``examples`` edge points (:func:`draw_point`; ``seed`` fixes them, None draws fresh
    ones through hypothesis) and check
    the properties of the module docstring. ``fast``: compare with the fast path where the statement has one.
    ``tolerance(point)``: a float or an object with ``rtol``/``rtol_at``, ``atol``, ``reason`` (default
    ``Statement.tolerance``). ``time_limit_s``: cut an evaluation off after this long (an ``edge:timeout`` failure);
    ``stop_after_timeout``: then end the search (the statement has failed already). ``on_record(record, failures)``
    is called after each point with the failures found there (a script can stream them)."""
    report = EdgeReport(statement.id, examples, seed, statement=statement)
    use_fast = fast and statement.fast is not None
    if use_fast:
        _warm_up(statement)
    seen: set[str] = set()
    start = time.perf_counter()
    fast_curves = statement.fast is not None

    def body(point):
        key = repr(sorted((k, repr(v)) for k, v in point.items()))
        if key in seen or (stop_after_timeout and any(c.name == "edge:timeout" for c in report.failures)):
            return
        seen.add(key)
        before = len(report.failures)
        record = _check_point(statement, point, report, use_fast, tolerance, dps, time_limit_s, dtype_variants)
        report.records.append(record)
        if on_record is not None:
            on_record(record, report.failures[before:])

    if seed is not None:  # the same points in every context: a seeded random.Random per point
        try:
            for i in range(examples):
                body(draw_point(point_random(seed, i), statement, fast_curves))
        except NoPoint:
            pass
    else:  # fresh points (the `explore` profile): hypothesis draws the generators
        run = settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                       verbosity=Verbosity.quiet, phases=(Phase.generate,),
                       suppress_health_check=list(HealthCheck))(given(edge_points(statement, fast_curves))(body))
        try:
            run()
        except Unsatisfiable:  # no point can be drawn (a curve kind without candidates): no records
            pass
    report.seconds = time.perf_counter() - start
    return report


def edge_checks(statement, *, examples: int, seed: int, fast: bool = True,
                tolerance: Callable[[Mapping[str, Any]], Any] | None = None,
                time_limit_s: float | None = None, stop_after_timeout: bool = True,
                timings: bool = True) -> list[Check]:
    """The edge search as conformance checks: one failed ``edge:*`` Check per finding (its message ends with the
    reproducing command, also in ``reproduction["command"]``), then one ``edge`` Check summarising the search (ok
    True when nothing failed; ``methods`` holds the counts and, with ``timings``, the five slowest evaluations —
    left out by ``dpspec conform``, whose JSON must not depend on machine speed)."""
    report = edge_search(statement, examples=examples, seed=seed, fast=fast, tolerance=tolerance,
                         time_limit_s=time_limit_s, stop_after_timeout=stop_after_timeout)
    methods = {"examples": len(report.records), "seed": seed, "counts": report.counts()}
    if timings:
        methods["seconds"] = round(report.seconds, 3)
        methods["slowest"] = [{"seconds": round(s, 4), "path": p, "command": c} for s, p, c in report.slowest(5)]
    summary = Check("edge", {}, ok=not report.failures, side="n/a", message=report.summary(timings),
                    methods=methods)
    return [*report.failures, summary]


def _warm_up(statement) -> None:
    """One fast evaluation at the example (imports, caches) so that the first timed point is not the import."""
    try:
        args = {}
        for p in statement.params:
            v = strategies.example_value(p)
            if v is None:
                if isinstance(p.domain, Curve) and fast_curve_ids():
                    s = catalogue.get(fast_curve_ids()[0])
                    v = CurveSpec(s.id, tuple(sorted((q.name, q.example) for q in s.params
                                                     if q.name != s.value.axis and q.example is not None)))
                else:
                    continue
            elif callable(v):
                continue
            args[p.name] = v
        _fast_call(statement, args)
    except Exception:  # noqa: BLE001 - a warm-up that fails is found again (and reported) by the search itself
        pass


def _reference_args(point: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v.reference() if isinstance(v, CurveSpec) else v) for k, v in point.items() if not k.startswith("__")}


def _fast_args(statement, point: Mapping[str, Any], convert: Callable[[str, Any], Any] | None = None) -> dict:
    import numpy as np
    import torch

    domains = {p.name: p.domain for p in statement.params}
    out = {}
    for k, v in point.items():
        if k.startswith("__"):
            continue
        d = domains.get(k)
        if isinstance(v, CurveSpec):
            out[k] = v.fast()
        elif isinstance(d, Points):
            try:
                arr = d.check(k, v)
                out[k] = torch.from_numpy(np.ascontiguousarray(arr, dtype=np.float64))
            except DomainError:
                out[k] = torch.tensor(v, dtype=torch.float64)
        elif _is_numeric(d) and isinstance(v, (int, float)) and not isinstance(v, bool):
            converted = convert(k, v) if convert is not None else None
            out[k] = converted if converted is not None else torch.tensor(float(v), dtype=torch.float64)
        else:
            out[k] = v
    return out


def _fast_call(statement, point: Mapping[str, Any], convert=None):
    return statement.fast_function()(**_fast_args(statement, point, convert))


def _message_problem(exc: BaseException) -> str | None:
    text = str(exc)
    if "\n" in text:
        return "is not one line"
    if len(text) > MESSAGE_LIMIT:
        return f"is {len(text)} characters (limit {MESSAGE_LIMIT})"
    if not text.strip():
        return "is empty"
    return None


def _show_point(point: Mapping[str, Any]) -> dict[str, Any]:
    return {k: _plain(v) for k, v in point.items() if not k.startswith("__")}


def _fail(report: EdgeReport, record: PointRecord | None, statement, point, name: str, message: str,
          cmd: str) -> None:
    report.failures.append(Check(f"edge:{name}", _show_point(point), ok=False, side="n/a",
                                 message=f"{message}  [reproduce: {cmd}]", reproduction={"command": cmd}))
    if record is not None:
        record.failures.append(name)


def _check_point(statement, point, report, use_fast, tolerance, dps, time_limit_s, dtype_variants) -> PointRecord:
    outside = point.get("__outside__")
    with mpmath.workdps(dps):
        rkind, rval, rsec = _outcome(lambda: statement.evaluate(dps=dps, **_reference_args(point)).value,
                                     time_limit_s)
    record = PointRecord({k: v for k, v in point.items() if not k.startswith("__")}, outside, rkind, None, rsec)
    ref_cmd = command(statement, point)
    fast_cmd = command(statement, point, fast=True)
    where = "outside its domain" if outside else "at a point of its domain"

    # -- the reference --------------------------------------------------------------------------------------
    if rkind == TIMEOUT:
        _fail(report, record, statement, point, "timeout", f"the reference did not answer within {time_limit_s} s of CPU time",
              ref_cmd)
    elif rkind == ERROR:
        _fail(report, record, statement, point, "reference-error",
              f"the reference raised {type(rval).__name__}: {_one_line(rval)} {where}", ref_cmd)
    elif rkind == VALUE:
        values = _components(rval)
        bad = [v for v in values if not isinstance(v, (mpmath.mpf, int)) or isinstance(v, bool)]
        arity = 2 if statement.value.returns == "eps_delta" else 1
        if bad or len(values) != arity:
            _fail(report, record, statement, point, "reference-value",
                  f"the reference returned {rval!r}, not {arity} number(s)", ref_cmd)
        else:
            record.reference_value = tuple(_to_float(v) for v in values)
        if outside:
            _fail(report, record, statement, point, "reference-domain",
                  f"the reference answered with {outside}={_plain(point[outside])!r} outside its domain", ref_cmd)
    else:
        problem = _message_problem(rval)
        if problem:
            _fail(report, record, statement, point, "message",
                  f"the reference's {rkind} message {problem}: {str(rval)[:120]!r}...", ref_cmd)
        if outside and rkind != DOMAIN:
            _fail(report, record, statement, point, "reference-domain",
                  f"the reference raised {rkind}, not DomainError, for {outside}={_plain(point[outside])!r} "
                  f"outside its domain", ref_cmd)
    if not use_fast:
        return record

    # -- the fast path ----------------------------------------------------------------------------------------
    fkind, fval, fsec = _outcome(lambda: _fast_call(statement, point), time_limit_s)
    record.fast, record.fast_seconds = fkind, fsec
    if fkind == TIMEOUT:
        _fail(report, record, statement, point, "timeout", f"the fast path did not answer within {time_limit_s} s of CPU time",
              fast_cmd)
        return record
    if fkind == ERROR:
        _fail(report, record, statement, point, "fast-error",
              f"the fast path raised {type(fval).__name__}: {_one_line(fval)} {where} (reference: {rkind})",
              fast_cmd)
        return record
    fast_floats = None
    if fkind == VALUE:
        fast_floats = _fast_floats(fval)
        if fast_floats is None:
            _fail(report, record, statement, point, "fast-dtype",
                  f"the fast path returned {_describe_output(fval)}, not float64 scalar tensor(s)", fast_cmd)
        else:
            record.fast_value = fast_floats
            if any(math.isnan(f) for f in fast_floats):
                _fail(report, record, statement, point, "fast-nan",
                      f"the fast path returned NaN {where} (reference: {_ref_text(rkind, rval)})", fast_cmd)
    else:
        problem = _message_problem(fval)
        if problem:
            _fail(report, record, statement, point, "message",
                  f"the fast path's {fkind} message {problem}: {str(fval)[:120]!r}...", fast_cmd)

    if rkind in (VALUE, DOMAIN, CONDITION, PARAMETER) and fkind != rkind and not (
            rkind == VALUE and record.reference_value is None):
        _fail(report, record, statement, point, "refusal-mismatch",
              f"reference {_ref_text(rkind, rval)} but fast {_fast_text(fkind, fval, fast_floats)} {where}",
              fast_cmd)
    elif rkind == VALUE and fkind == VALUE and record.reference_value is not None and fast_floats is not None \
            and not any(math.isnan(f) for f in fast_floats):
        record.agreed = _compare(statement, point, record, report, tolerance, rval, fast_floats, fast_cmd)

    if dtype_variants and fkind in (VALUE, DOMAIN, CONDITION, PARAMETER, PRECISION) and (fkind != VALUE or fast_floats):
        _check_variants(statement, point, record, report, fkind, fval, fast_floats)
    return record


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 200 else text[:200] + "..."


def _ref_text(kind: str, value: Any) -> str:
    if kind == VALUE:
        return "answered " + ", ".join(mpmath.nstr(v, 12) if isinstance(v, mpmath.mpf) else repr(v)
                                       for v in _components(value))
    return f"refused ({kind}: {_one_line(value)[:100]})"


def _fast_text(kind: str, value: Any, floats) -> str:
    if kind == VALUE:
        return "answered " + (", ".join(repr(f) for f in floats) if floats else _describe_output(value))
    return f"refused ({kind}: {_one_line(value)[:100]})"


def _fast_floats(out: Any) -> tuple[float, ...] | None:
    """The fast output as floats, or None when a component is not a one-element float64 tensor."""
    import torch

    values = []
    for v in _components(out):
        if not isinstance(v, torch.Tensor) or v.dtype != torch.float64 or v.numel() != 1:
            return None
        values.append(float(v.item()))
    return tuple(values)


def _describe_output(out: Any) -> str:
    parts = []
    for v in _components(out):
        dtype = getattr(v, "dtype", type(v).__name__)
        shape = tuple(getattr(v, "shape", ()))
        parts.append(f"{type(v).__name__}(dtype={dtype}, shape={shape})")
    return ", ".join(parts)


def _compare(statement, point, record, report, tolerance, rval, fast_floats, fast_cmd) -> bool:
    tol = _tolerance_of(statement, tolerance, _show_point(point))
    refs = _components(rval)
    if len(refs) != len(fast_floats):
        _fail(report, record, statement, point, "fast-value",
              f"fast returns {len(fast_floats)} value(s), the reference {len(refs)}", fast_cmd)
        return False
    agreed = True
    for i, (r, f) in enumerate(zip(refs, fast_floats)):
        rf = _to_float(r)
        which = f" (component {i})" if len(refs) > 1 else ""
        if math.isfinite(rf) and rf >= TINY_NORMAL and not (math.isfinite(f) and f > 0):
            _fail(report, record, statement, point, "fast-not-positive",
                  f"fast {f!r} where the reference is {mpmath.nstr(r, 17)}{which}", fast_cmd)
            agreed = False
            continue
        ok = f == rf or (math.isfinite(f) and math.isfinite(rf) and abs(f - rf) <= tol.rtol * abs(rf) + tol.atol)
        if not ok:
            err = abs(f - rf) / abs(rf) if math.isfinite(f) and math.isfinite(rf) and rf != 0 else math.inf
            _fail(report, record, statement, point, "tolerance",
                  f"fast {f!r} vs reference {mpmath.nstr(r, 17)}{which}: relative error {err:.3g} > {tol.rtol:g} "
                  f"({tol.reason})", fast_cmd)
            agreed = False
    return agreed


# -- dtypes ---------------------------------------------------------------------------------------------------


def _representable(v: float, dtype) -> bool:
    import torch

    if isinstance(v, float) and math.isnan(v):
        return True
    try:
        back = torch.tensor(float(v), dtype=torch.float64).to(dtype).to(torch.float64).item()
    except (RuntimeError, OverflowError):
        return False
    return back == v


def _variant_converters():
    """(name, converter(name, value) -> converted input or None when the value has no exact form in that type)."""
    import numpy as np
    import torch

    def torch_dtype(dtype):
        def convert(_, v):
            return torch.tensor(float(v), dtype=dtype) if _representable(v, dtype) else None
        return convert

    def int64(_, v):
        if isinstance(v, float) and not math.isfinite(v):
            return None
        if v != int(v) or abs(v) >= 2**63:
            return None
        return torch.tensor(int(v), dtype=torch.int64)

    def python(_, v):
        if isinstance(v, float) and math.isfinite(v) and v == int(v):
            return int(v)  # an integral value as a Python int (exact; torch reads it as float64)
        return float(v)

    def numpy32(_, v):
        return np.float32(v) if _representable(v, torch.float32) else None

    def numpy64(_, v):
        return np.asarray(float(v), dtype=np.float64)

    return (("float32", torch_dtype(torch.float32), "torch.float32"),
            ("float16", torch_dtype(torch.float16), "torch.float16"),
            ("bfloat16", torch_dtype(torch.bfloat16), "torch.bfloat16"),
            ("int64", int64, "torch.int64"),
            ("python", python, "Python int/float"),
            ("numpy32", numpy32, "numpy.float32"),
            ("numpy64", numpy64, "a 0-d numpy float64 array"))


def _check_variants(statement, point, record, report, fkind, fval, fast_floats) -> None:
    domains = {p.name: p.domain for p in statement.params}
    numeric = [k for k, v in point.items() if not k.startswith("__") and _is_numeric(domains.get(k))
               and isinstance(v, (int, float)) and not isinstance(v, bool)]
    if not numeric:
        return
    for name, convert, words in _variant_converters():
        converted = {k: convert(k, point[k]) for k in numeric}
        converted = {k: c for k, c in converted.items() if c is not None}
        if not converted:
            continue
        kind, val, _ = _outcome(lambda: _fast_call(statement, point, lambda k, v: converted.get(k)))
        same = kind == fkind
        if same and kind == VALUE:
            floats = _fast_floats(val)
            same = floats is not None and len(floats) == len(fast_floats) and all(
                a == b or (math.isnan(a) and math.isnan(b)) for a, b in zip(floats, fast_floats))
        else:
            floats = None
        if not same:
            raw = {k: _source_of(c) for k, c in converted.items()}
            cmd = python_command(statement, point, True, raw=raw)
            _fail(report, record, statement, point, "dtype",
                  f"{', '.join(sorted(converted))} as {words}: fast {_fast_text(kind, val, floats)} but with float64 "
                  f"tensors {_fast_text(fkind, fval, fast_floats)}", cmd)


def _source_of(c: Any) -> str:
    import numpy as np
    import torch

    if isinstance(c, torch.Tensor):
        v = c.item()
        text = f"float({repr(v)!r})" if isinstance(v, float) and not math.isfinite(v) else repr(v)
        return f"torch.tensor({text}, dtype={c.dtype})"
    if isinstance(c, np.ndarray):
        return f"__import__('numpy').asarray({float(c)!r}, dtype='float64')"
    if isinstance(c, np.floating):
        v = float(c)
        text = f"float({repr(v)!r})" if not math.isfinite(v) else repr(v)
        return f"__import__('numpy').float32({text})"
    if isinstance(c, float) and not math.isfinite(c):
        return f"float({repr(c)!r})"
    return repr(c)


def stable_seed(statement_id: str, salt: str = "edges") -> int:
    """A per-statement hypothesis seed from its id (crc32: the same on every machine and Python)."""
    return zlib.crc32(f"{salt}|{statement_id}".encode())
