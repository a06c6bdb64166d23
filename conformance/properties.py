"""Property checks of a catalogue statement at points drawn from its parameter domains.

What is checked comes from the statement's data only:

* ``domain``: at every drawn point the reference answers, or refuses by the theorem's own conditions
  (``ConditionError``); any other error (or NaN) is a failure — it must evaluate there or say why;
* ``monotone:<param>``: the value is non-decreasing (+1) or non-increasing (−1) in that parameter, the others held
  fixed (tuples componentwise), up to a relative tolerance of the working precision;
* ``fast``: the torch evaluator agrees with the reference within ``statement.tolerance`` (relative; NaN never
  agrees), curve parameters included (a drawn curve is given to the reference as ``catalogue.curve`` and to the
  fast path as the same statement's torch path, :class:`~dpspec.conformance.strategies.CurveDraw`);
* ``conditions`` (statements with conditions and a fast path): at every drawn point, inside the conditions and
  outside them, the fast path refuses with ``ConditionError`` exactly where the reference does;
* ``property:<fn>``: extra callables ``f(statement, params)`` that raise on a violation.

The work is fixed by the settings, never by time: each statement draws its points with
:class:`~dpspec.conformance.strategies.Draws` seeded by ``stable_seed(run seed, statement id, check name)``. The
base points (check name ``points``; drawn until ``examples`` of them are inside the conditions, at most
``DRAW_FACTOR · examples`` draws) are shared by the ``domain``, ``fast``, ``monotone`` and ``property`` checks, so
each reference value is computed once; a ``monotone`` check draws its second value from its own seed, and the
``conditions`` check adds ``examples`` draws of its own to the base draws. Nothing is shared between statements, so
``dpspec conform --only ID`` draws exactly the points of a full run.

A check that compared fewer points than asked fails, saying how many draws were outside the conditions ("0 of 5
examples satisfied the conditions"), instead of passing on nothing. A failing check reports the first failing
point (there is no shrinking: its cost would not be bounded by the settings).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import mpmath

from dpspec.reference.errors import ConditionError

from .strategies import CurveDraw, Draws, fast_args, plain, reference_args, stable_seed
from .verdicts import Check

PROPERTY_DPS = 30
DRAW_FACTOR = 20  # draws allowed per asked example (a base point, a monotone partner) before a check gives up
OTHER_TRIES = 10  # draws of a monotone partner value per base point (distinct value, inside the conditions)


@dataclass
class _Draw:
    """One drawn base point and what the reference did there."""

    point: dict[str, Any]
    value: Any = None  # the reference value when inside
    outside: bool = False  # refused by the theorem's conditions
    error: str | None = None  # any other error

    @property
    def inside(self) -> bool:
        return not self.outside and self.error is None


@dataclass
class _Points:
    seed: int
    draws: list[_Draw] = field(default_factory=list)
    draw_error: str | None = None  # why no (further) point could be drawn

    @property
    def inside(self) -> list[_Draw]:
        return [d for d in self.draws if d.inside]


def statement_properties(statement, *, examples: int = 5, seed: int = 0, dps: int = PROPERTY_DPS,
                         profile: str = "quick") -> list[Check]:
    """Every property check of ``statement`` (see the module docstring) at ``examples`` points each."""
    if examples < 1:
        return []
    fast = statement.fast is not None
    points = _base_points(statement, examples, seed, dps, profile, fast)
    checks = [_domain_check(statement, points, examples, profile, dps)]
    for name, direction in statement.monotone.items():
        checks.append(_monotone_check(statement, name, direction, points, examples, seed, dps, profile))
    if fast:
        checks.append(_fast_check(statement, points, examples, profile, dps))
        if statement.conditions:
            checks.append(_conditions_check(statement, points, examples, seed, dps, profile))
    for fn in statement.properties:
        checks.append(_custom_check(statement, fn, points, examples, profile, dps))
    return checks


# ---------------------------------------------------------------------------------------------------------
# base points


def evaluate(statement, point: dict[str, Any], dps: int):
    """The reference value at a drawn point (floats as decimal strings: the point as printed)."""
    return statement.evaluate(dps=dps, **reference_args(point)).value


def _base_points(statement, examples: int, seed: int, dps: int, profile: str, fast: bool) -> _Points:
    s = stable_seed(seed, statement.id, "points")
    draws = Draws(s, profile)
    out = _Points(s)
    while len(out.inside) < examples and len(out.draws) < DRAW_FACTOR * examples:
        try:
            point = draws.params(statement, fast=fast)
        except (TypeError, ValueError) as exc:  # e.g. a required parameter without draws or example
            out.draw_error = _error(exc)
            break
        d = _Draw(point)
        try:
            d.value = evaluate(statement, point, dps)
            if any(_is_nan(v) for v in _components(d.value)):
                d.error = "the reference returned NaN"
        except ConditionError:
            d.outside = True
        except Exception as exc:  # noqa: BLE001 - any other error at a point of the domain is a finding
            d.error = _error(exc)
        out.draws.append(d)
    return out


def _repro(seed: int, examples: int, profile: str, dps: int, **more) -> dict[str, Any]:
    return {"seed": seed, "examples": examples, "profile": profile, "dps": dps, **more}


def _shortfall(name: str, got: int, examples: int, drawn: int, outside: int, repro: dict, points: list,
               extra: str = "") -> Check:
    return Check(name, {}, ok=False, side="n/a",
                 message=(f"{got} of {examples} examples satisfied the conditions ({drawn} drawn, {outside} outside "
                          f"the conditions{extra})"),
                 methods={"checked": got, "points": points}, reproduction=repro)


def _domain_check(statement, points: _Points, examples: int, profile: str, dps: int) -> Check:
    repro = _repro(points.seed, examples, profile, dps)
    errors = [d for d in points.draws if d.error is not None]
    inside = len(points.inside)
    outside = sum(d.outside for d in points.draws)
    counts = {"drawn": len(points.draws), "inside": inside, "outside": outside, "errors": len(errors),
              "points": [plain(d.point) for d in points.draws]}
    if points.draw_error is not None:
        return Check("domain", {}, ok=False, side="n/a", message=f"no point could be drawn: {points.draw_error}",
                     methods=counts, reproduction=repro)
    if errors:
        d = errors[0]
        return Check("domain", plain(d.point), ok=False, side="n/a", message=f"the reference raised {d.error}",
                     methods=counts, reproduction=repro)
    if inside < examples:
        return _shortfall("domain", inside, examples, len(points.draws), outside, repro, counts["points"])
    return Check("domain", {}, ok=True, side="n/a",
                 message=f"{inside} points inside the conditions ({len(points.draws)} drawn)",
                 methods=counts, reproduction=repro)


# ---------------------------------------------------------------------------------------------------------
# monotone


def _monotone_check(statement, name: str, direction: int, points: _Points, examples: int, seed: int, dps: int,
                    profile: str) -> Check:
    check_name = f"monotone:{name}"
    s = stable_seed(seed, statement.id, check_name)
    repro = _repro(s, examples, profile, dps, points_seed=points.seed)
    param = next((p for p in statement.params if p.name == name), None)
    if param is None:
        return Check(check_name, {}, ok=False, side="n/a", reproduction=repro,
                     message=f"monotone declares {name!r}, which is not a parameter")
    draws = Draws(s, profile)
    compared: list[dict[str, Any]] = []
    tries = outside = 0
    tol = mpmath.mpf(10) ** (-(dps - 10))
    for base in points.inside:
        if len(compared) >= examples or tries >= DRAW_FACTOR * examples:
            break
        for _ in range(OTHER_TRIES):
            tries += 1
            try:
                other = draws.near(param.domain, base.point[name], statement.fast is not None)
            except (TypeError, ValueError) as exc:
                return Check(check_name, {}, ok=False, side="n/a", reproduction=repro,
                             message=f"no second value of {name} could be drawn: {_error(exc)}")
            if _same(other, base.point[name]):
                continue
            moved = {**base.point, name: other}
            try:
                v_other = evaluate(statement, moved, dps)
            except ConditionError:
                outside += 1
                continue
            except Exception as exc:  # noqa: BLE001
                return Check(check_name, plain(moved), ok=False, side="n/a", reproduction=repro,
                             message=f"the reference raised {_error(exc)}",
                             methods={"checked": len(compared), "points": compared})
            shown = {**plain(base.point), "other": plain({name: other})[name]}
            problem = _not_monotone(name, direction, (base.point[name], base.value), (other, v_other), tol)
            if problem:
                return Check(check_name, shown, ok=False, side="n/a", reproduction=repro, message=problem,
                             methods={"checked": len(compared), "points": compared})
            compared.append(shown)
            break
    if len(compared) < examples:
        return _shortfall(check_name, len(compared), examples, tries, outside, repro, compared,
                          extra=f"; {len(points.inside)} base points inside")
    return Check(check_name, {}, ok=True, side="n/a", message=f"{len(compared)} examples",
                 methods={"checked": len(compared), "points": compared}, reproduction=repro)


def _not_monotone(name: str, direction: int, first, second, tol) -> str:
    """'' if the values at the two parameter values are ordered as declared, else what is wrong."""
    try:
        (x_lo, v_lo), (x_hi, v_hi) = sorted([first, second], key=lambda t: float(t[0]))
    except (TypeError, ValueError):
        return f"monotone in {name}, whose values {first[0]!r}, {second[0]!r} are not numbers"
    for a, b in zip(_components(v_lo), _components(v_hi)):
        if _is_nan(a) or _is_nan(b):
            return f"NaN at {name}={_num(x_lo)} or {name}={_num(x_hi)}"
        if a == b:
            continue
        if (b - a) * direction < -tol * max(abs(a), abs(b)):
            return (f"not {'non-decreasing' if direction > 0 else 'non-increasing'} in {name}: {name}={_num(x_lo)} "
                    f"gives {mpmath.nstr(a, 12)}, {name}={_num(x_hi)} gives {mpmath.nstr(b, 12)}")
    return ""


# ---------------------------------------------------------------------------------------------------------
# fast path


def _fast_check(statement, points: _Points, examples: int, profile: str, dps: int) -> Check:
    repro = _repro(points.seed, examples, profile, dps, tolerance=statement.tolerance)
    fn = statement.fast_function()
    compared, worst = [], 0.0
    for d in points.inside[:examples]:
        try:
            out = fn(**fast_args(statement, d.point))
        except Exception as exc:  # noqa: BLE001 - the reference answered here
            return Check("fast", plain(d.point), ok=False, side="n/a", reproduction=repro,
                         methods={"checked": len(compared), "points": compared},
                         message=f"the fast path raised {_error(exc)} where the reference answers")
        problem, err = _compare(statement, d.value, out)
        if problem:
            return Check("fast", plain(d.point), ok=False, side="n/a", message=problem, reproduction=repro,
                         methods={"checked": len(compared), "points": compared})
        worst = max(worst, err)
        compared.append(plain(d.point))
    if len(compared) < examples:
        return _shortfall("fast", len(compared), examples, len(points.draws),
                          sum(d.outside for d in points.draws), repro, compared)
    return Check("fast", {}, ok=True, side="n/a",
                 message=f"{len(compared)} examples (largest relative error {worst:.3g})",
                 methods={"checked": len(compared), "max_relative_error": worst, "points": compared},
                 reproduction=repro)


def _compare(statement, ref, out) -> tuple[str, float]:
    """('' or what is wrong, largest relative error) of a fast output against the reference value."""
    ref_values, fast_values = _components(ref), out if isinstance(out, tuple) else (out,)
    if len(ref_values) != len(fast_values):
        return f"fast returns {len(fast_values)} values, the reference {len(ref_values)}", math.inf
    worst = 0.0
    for r, f in zip(ref_values, fast_values):
        f = float(f)
        r = _float(r)
        if math.isnan(f) or math.isnan(r):
            return f"fast {f!r} vs reference {r!r}: NaN never agrees", math.inf
        if math.isinf(r) or math.isinf(f):
            if r != f:
                return f"fast {f!r} vs reference {r!r}", math.inf
            continue
        err = abs(f - r) / abs(r) if r != 0 else (0.0 if f == 0 else math.inf)
        if abs(f - r) > statement.tolerance * abs(r) + 1e-300:
            return (f"fast {f!r} vs reference {r!r}: relative error {err:.3g} > {statement.tolerance}"), err
        worst = max(worst, err if math.isfinite(err) else 0.0)
    return "", worst


# ---------------------------------------------------------------------------------------------------------
# conditions: the fast path refuses exactly where the reference does


def _conditions_check(statement, points: _Points, examples: int, seed: int, dps: int, profile: str) -> Check:
    s = stable_seed(seed, statement.id, "conditions")
    repro = _repro(s, examples, profile, dps, points_seed=points.seed)
    draws = Draws(s, profile)
    candidates = [d.point for d in points.draws if d.error is None]
    for _ in range(examples):
        try:
            candidates.append(draws.params(statement, fast=True))
        except (TypeError, ValueError):  # reported by the domain check (the same draws fail there)
            break
    fn = statement.fast_function()
    compared, inside, outside = [], 0, 0
    for point in candidates:
        try:
            refused = _reference_refuses(statement, point, dps)
        except Exception as exc:  # noqa: BLE001 - a drawn point is in the domains: binding it must not fail
            return Check("conditions", plain(point), ok=False, side="n/a", reproduction=repro,
                         methods={"checked": len(compared), "points": compared},
                         message=f"the reference could not bind the point: {_error(exc)}")
        try:
            fn(**fast_args(statement, point))
            fast_refused, fast_error = False, None
        except ConditionError as exc:
            fast_refused, fast_error = True, exc
        except Exception as exc:  # noqa: BLE001
            return Check("conditions", plain(point), ok=False, side="n/a", reproduction=repro,
                         methods={"checked": len(compared), "points": compared},
                         message=f"the fast path raised {_error(exc)}; the reference "
                                 + (f"refuses ({'; '.join(refused)})" if refused else "answers"))
        if bool(refused) != fast_refused:
            what = (f"the reference refuses ({'; '.join(refused)}), the fast path answers" if refused else
                    f"the fast path refuses ({_error(fast_error)}), the reference answers")
            return Check("conditions", plain(point), ok=False, side="n/a", message=what, reproduction=repro,
                         methods={"checked": len(compared), "points": compared})
        inside += not refused
        outside += bool(refused)
        compared.append({**plain(point), "refused": bool(refused)})
    if not inside or not outside:
        side = "inside" if not inside else "outside"
        return Check("conditions", {}, ok=False, side="n/a", reproduction=repro,
                     methods={"checked": len(compared), "inside": inside, "outside": outside, "points": compared},
                     message=(f"{len(compared)} points agree, but none was {side} the conditions: "
                              f"{'answers' if side == 'inside' else 'refusals'} were not compared"))
    return Check("conditions", {}, ok=True, side="n/a",
                 message=f"{len(compared)} points agree: {inside} answered by both, {outside} refused by both",
                 methods={"checked": len(compared), "inside": inside, "outside": outside, "points": compared},
                 reproduction=repro)


def _reference_refuses(statement, point: dict[str, Any], dps: int) -> list[str]:
    """The conditions the reference finds failed at ``point``: exactly the test ``Statement.evaluate`` makes before
    it evaluates (its predicates on the bound, validated parameters at ``dps`` digits)."""
    with mpmath.workdps(dps):
        return statement.failed_conditions(statement.bind(reference_args(point)))


# ---------------------------------------------------------------------------------------------------------
# declared extra properties


def _custom_check(statement, fn: Callable, points: _Points, examples: int, profile: str, dps: int) -> Check:
    name = f"property:{getattr(fn, '__name__', 'check')}"
    repro = _repro(points.seed, examples, profile, dps)
    compared = []
    for d in points.inside[:examples]:
        try:
            with mpmath.workdps(dps):
                fn(statement, statement.bind(reference_args(d.point)))
        except Exception as exc:  # noqa: BLE001
            return Check(name, plain(d.point), ok=False, side="n/a", message=f"counterexample: {_error(exc)}",
                         methods={"checked": len(compared), "points": compared}, reproduction=repro)
        compared.append(plain(d.point))
    if len(compared) < examples:
        return _shortfall(name, len(compared), examples, len(points.draws),
                          sum(d.outside for d in points.draws), repro, compared)
    return Check(name, {}, ok=True, side="n/a", message=f"{len(compared)} examples",
                 methods={"checked": len(compared), "points": compared}, reproduction=repro)


# ---------------------------------------------------------------------------------------------------------
# helpers


def _components(v):
    return v if isinstance(v, tuple) else (v,)


def _is_nan(v) -> bool:
    try:
        return bool(mpmath.isnan(v))
    except (TypeError, ValueError):
        return False


def _float(r) -> float:
    if isinstance(r, mpmath.mpf):
        if mpmath.isnan(r):
            return math.nan
        if not mpmath.isfinite(r):
            return math.inf if r > 0 else -math.inf
        try:
            return float(r)
        except OverflowError:
            return math.inf if r > 0 else -math.inf
    return float(r)


def _same(a, b) -> bool:
    if isinstance(a, CurveDraw) or isinstance(b, CurveDraw) or isinstance(a, str) and not _numeric(a):
        return a is b or a == b
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return a == b


def _numeric(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def _error(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"

