"""Property checks of a catalogue statement at points drawn from its parameter domains.

What is checked comes from the statement's data only:

* ``domain``: at every drawn point the reference answers, or refuses by the theorem's own conditions
  (``ConditionError``); any other error (or NaN) is a failure — it must evaluate there or say why;
* ``monotone:<param>``: the value is non-decreasing (+1) or non-increasing (−1) in that parameter, the others held
  fixed (tuples componentwise), up to a relative tolerance of the working precision;
* ``fast``: the torch evaluator agrees with the reference within ``statement.tolerance`` (relative; NaN never
  agrees), curve parameters included (a drawn curve is given to the reference as ``catalogue.curve`` and to the
  fast path as the same statement's torch path, :class:`~dpspec.conformance.strategies.CurveDraw`);
* ``conditions`` (statements with conditions and a fast path): at every point compared, inside the conditions and
  outside them, the fast path refuses with ``ConditionError`` exactly where the reference does, naming the same
  conditions. The points are the drawn ones and those of a boundary search that looks, for each condition, for
  points where it alone fails (the others hold): from each point inside the conditions, one parameter at a time
  is moved towards each end of its drawn range and the crossing of the conditions' boundary is bisected, so that
  a condition removed from one path (the path answers where only that condition fails) is found even where the
  drawn points fail it only together with others. The check's detail counts such points per condition (a
  condition none was found for is named; that alone is not a failure: e.g. ``ptr.thm5_2``'s F < n/2 cannot fail
  alone, its step-size condition then fails too);
* ``property:<fn>``: extra callables ``f(statement, params)`` that raise on a violation.

The work is fixed by the settings, never by time: each statement draws its points with
:class:`~dpspec.conformance.strategies.Draws` seeded by ``stable_seed(run seed, statement id, check name)``. The
base points (check name ``points``; drawn until ``examples`` of them are inside the conditions, at most
``DRAW_FACTOR · examples`` draws) are shared by the ``domain``, ``fast``, ``monotone`` and ``property`` checks, so
each reference value is computed once; a ``monotone`` check draws its second value from its own seed, and the
``conditions`` check adds ``examples`` draws of its own to the base draws and searches from at most
``START_FACTOR · w`` inside points, each at most 2 × parameters × (1 + ``SEARCH_STEPS``) evaluations of the
conditions, stopping once every condition has w = min(``examples``, ``ALONE_CAP``) points where it alone fails.
Nothing is shared between statements, so ``dpspec conform --only ID`` draws exactly the points of a full run.

A check that compared fewer points than asked fails, saying how many draws were outside the conditions ("0 of 5
examples satisfied the conditions"), instead of passing on nothing. A failing check reports the first failing
point (there is no shrinking: its cost would not be bounded by the settings).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import mpmath

from dpspec.reference.domains import Integer, Points, Real
from dpspec.reference.errors import ConditionError

from .edges import POINT_SETS
from .strategies import DRAW_DIGITS, CurveDraw, Draws, _numeric, fast_args, plain, reference_args, stable_seed
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
            else:
                d.error = _out_of_range(statement, point, d.value, dps)
        except ConditionError:
            d.outside = True
        except Exception as exc:  # noqa: BLE001 - any other error at a point of the domain is a finding
            d.error = _error(exc)
        out.draws.append(d)
    return out


def _out_of_range(statement, point: dict[str, Any], value: Any, dps: int) -> str | None:
    """What the value means bounds it, whatever the formula (a scaled or misread formula often leaves the range):
    a δ that is exact or a lower bound lies in [0, 1] (an upper bound may be vacuous, above 1); a trade-off value
    β = f(α) lies in [0, 1], and when it is a lower bound on a true trade-off function also β ≤ 1 − α (every
    trade-off function lies below the perfectly private one, Dong, Roth & Su 2022, Def. 2.1; an "exact" entry may
    define a function that is not one, e.g. seed 002's f̂_U of Def. 4.3, so it is spared this rule); an exact or lower
    RDP ε(α) is ≥ 0 (a Rényi divergence is non-negative). None when in range."""
    returns, claim = statement.value.returns, statement.claim
    if returns not in ("delta", "beta", "rdp_eps") or not isinstance(value, (int, float, mpmath.mpf)):
        return None
    v, tol = mpmath.mpf(value), mpmath.mpf(10) ** (-(dps - 10))
    low = returns != "rdp_eps" or claim in ("exact", "lower")
    if low and v < -tol:
        return f"the reference returned {mpmath.nstr(v, 8)} < 0 for a {returns}"
    if returns == "delta" and claim in ("exact", "lower") and v > 1 + tol:
        return f"the reference returned δ = {mpmath.nstr(v, 8)} > 1 (claim {claim})"
    if returns == "beta":
        if v > 1 + tol:
            return f"the reference returned β = {mpmath.nstr(v, 8)} > 1"
        axis = statement.value.axis
        if claim == "lower" and axis in point:
            alpha = mpmath.mpf(reference_args(point)[axis])
            if v > 1 - alpha + tol:
                return (f"the reference returned β = {mpmath.nstr(v, 8)} > 1 − α = {mpmath.nstr(1 - alpha, 8)} "
                        f"(a lower bound on a trade-off function, which lies below 1 − α)")
    return None


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
        if abs(f - r) > statement.tolerance * abs(r) + statement.abs_tolerance + 1e-300:
            return (f"fast {f!r} vs reference {r!r}: relative error {err:.3g} > {statement.tolerance}"
                    + (f" (+ {statement.abs_tolerance:g} absolute)" if statement.abs_tolerance else "")), err
        if abs(f - r) > statement.tolerance * abs(r):
            continue  # inside the absolute allowance: not counted in the largest relative error
        worst = max(worst, err if math.isfinite(err) else 0.0)
    return "", worst


# ---------------------------------------------------------------------------------------------------------
# conditions: the fast path refuses exactly where the reference does, and each condition is met alone

SEARCH_STEPS = 14  # bisection evaluations per crossing of the conditions' boundary along one parameter
ALONE_CAP = 25  # points wanted per condition where it alone fails: min(examples, this) (--full asks 100 examples)
START_FACTOR = 4  # inside points the boundary search starts from, per point wanted per condition


class _Finding(Exception):
    """Unwinds the conditions search with its failing Check."""

    def __init__(self, check: Check):
        super().__init__(check.message)
        self.check = check


@dataclass
class _Refusal:
    """The reference's refusal at one point: the names of the conditions it finds failed (() where it answers)."""

    point: dict[str, Any]
    failed: tuple[str, ...]
    how: str  # how the point was reached ("drawn", or the ray of the boundary search)


class _Conditions:
    """The reference's conditions and the fast path's refusals at points. The reference's failed conditions drive
    the search; the fast path is compared at every point: where the reference refuses, at once (it must refuse,
    naming the same conditions); where the reference answers, in batches (:meth:`flush`: one broadcast call per
    group of points that share their choices and curves, point by point only where that call refuses or fails),
    since an answer costs a full evaluation.
    Per condition, the points where it alone fails are kept: drawn points, and the outside end of each crossing the
    boundary search finds."""

    BATCH = 256  # answers checked per broadcast call of the fast path

    def __init__(self, statement, dps: int, repro: dict, target: int):
        self.statement, self.dps, self.repro, self.target = statement, dps, repro, target
        self.fn = statement.fast_function()
        self.compared: list[dict[str, Any]] = []
        self.inside = self.outside = self.evaluations = self.crossings = 0
        self.alone: dict[str, list[_Refusal]] = {c.name: [] for c in statement.conditions}
        self.pending: list[tuple[dict[str, Any], str]] = []  # (point, how) where the reference answers

    def _fail(self, point, message: str) -> _Finding:
        return _Finding(Check("conditions", plain(point), ok=False, side="n/a", message=message,
                              reproduction=self.repro, methods=self.methods()))

    def at(self, point: dict[str, Any], how: str) -> _Refusal:
        self.evaluations += 1
        try:
            ref_text = tuple(_reference_refuses(self.statement, point, self.dps))
        except Exception as exc:  # noqa: BLE001 - a point of the domains: binding it must not fail
            raise self._fail(point, f"the reference could not bind the point ({how}): {_error(exc)}") from None
        r = _Refusal(point, _names(ref_text), how)
        if ref_text:
            self.outside += 1
            self._compare(point, ref_text, self._fast_refusal(point, how, ref_text), how)
        else:
            self.inside += 1
            self.pending.append((point, how))
            if len(self.pending) >= self.BATCH:
                self.flush()
        return r

    def _fast_refusal(self, point, how: str, ref_text) -> tuple[str, ...] | None:
        """The fast path's ConditionError words at ``point`` (None where it answers)."""
        try:
            self.fn(**fast_args(self.statement, point))
            return None
        except ConditionError as exc:
            return tuple(exc.failed)
        except Exception as exc:  # noqa: BLE001
            raise self._fail(point, f"the fast path raised {_error(exc)} ({how}); the reference "
                             + (f"refuses ({'; '.join(ref_text)})" if ref_text else "answers")) from None

    def _compare(self, point, ref_text, fast_text, how: str) -> None:
        """Fail unless both answer (``fast_text`` None, no ``ref_text``) or both refuse naming the same conditions."""
        if ref_text and fast_text is not None and set(_names(ref_text)) == set(_names(fast_text)):
            return
        if not ref_text and fast_text is None:
            return
        ref_says = f"the reference refuses ({'; '.join(ref_text)})" if ref_text else "the reference answers"
        fast_says = (f"the fast path refuses ({'; '.join(fast_text)})" if fast_text is not None
                     else "the fast path answers")
        failed = set(_names(ref_text)) | set(_names(fast_text or ()))
        where = f"where only {next(iter(failed))} fails, " if len(failed) == 1 else ""
        raise self._fail(point, f"{where}{ref_says}, {fast_says} ({how})")

    def flush(self) -> None:
        """Check that the fast path answers at every pending point (where the reference answers)."""
        pending, self.pending = self.pending, []
        groups: dict[Any, list[tuple[dict[str, Any], str]]] = {}
        for point, how in pending:  # one batch per value of the parameters that are not stacked (choices, curves)
            groups.setdefault(_group_key(self.statement, point), []).append((point, how))
        for group in groups.values():
            args = _batch_args(self.statement, [p for p, _ in group])
            if args is not None:
                try:
                    self.fn(**args)
                    continue  # the masks are elementwise: no refusal in the batch is none at any of its points
                except Exception:  # noqa: BLE001 - a refusal (or a failure) somewhere: found point by point below
                    pass
            for point, how in group:
                self._compare(point, (), self._fast_refusal(point, how, ()), how)

    def keep(self, r: _Refusal) -> None:
        """Count ``r`` for its condition if exactly one condition fails there."""
        if len(r.failed) == 1:
            self.alone.setdefault(r.failed[0], []).append(r)

    def wanted(self, failed=None) -> bool:
        """Whether some condition (of ``failed``, or any) has fewer than ``target`` points."""
        names = self.alone if failed is None else failed
        return any(len(self.alone.get(n, ())) < self.target for n in names)

    def methods(self) -> dict[str, Any]:
        return {"checked": len(self.compared), "evaluations": self.evaluations, "crossings": self.crossings,
                "inside": self.inside, "outside": self.outside, "alone": {n: len(v) for n, v in self.alone.items()},
                "alone_points": {n: [{**plain(r.point), "found": r.how} for r in v[:3]]
                                 for n, v in self.alone.items()},
                "points": self.compared}


def _group_key(statement, point: dict[str, Any]) -> tuple:
    """The values of ``point`` that a batch cannot stack (anything but a Real or Integer number), hashable."""
    domains = {p.name: p.domain for p in statement.params}
    key = []
    for k, v in point.items():
        if isinstance(domains.get(k), (Real, Integer)) and not isinstance(v, CurveDraw):
            continue
        key.append((k, v if isinstance(v, (str, int, float, bool, type(None))) else id(v)))
    return tuple(key)


def _batch_args(statement, pts: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The fast path's arguments for all of ``pts`` at once (numbers as float64 vectors), or None where they cannot
    be stacked (a curve, choice or point set that differs between the points, or a point set at all)."""
    import torch

    domains = {p.name: p.domain for p in statement.params}
    keys = list(pts[0])
    if any(list(p) != keys for p in pts):
        return None
    out: dict[str, Any] = {}
    for k in keys:
        if isinstance(domains.get(k), (Real, Integer)) and not isinstance(pts[0][k], CurveDraw):
            out[k] = torch.tensor([float(p[k]) for p in pts], dtype=torch.float64)
        elif isinstance(domains.get(k), Points) or any(p[k] is not pts[0][k] and p[k] != pts[0][k] for p in pts):
            return None
        else:
            out[k] = fast_args(statement, {k: pts[0][k]})[k]
    return out


def _conditions_check(statement, points: _Points, examples: int, seed: int, dps: int, profile: str) -> Check:
    s = stable_seed(seed, statement.id, "conditions")
    repro = _repro(s, examples, profile, dps, points_seed=points.seed, search_steps=SEARCH_STEPS)
    draws = Draws(s, profile)
    candidates = [d.point for d in points.draws if d.error is None]
    for _ in range(examples):
        try:
            candidates.append(draws.params(statement, fast=True))
        except (TypeError, ValueError):  # reported by the domain check (the same draws fail there)
            break
    sets = [(p.name, s) for p in statement.params if isinstance(p.domain, Points) for s in POINT_SETS
            if p.domain.contains(s)]
    if candidates and sets:  # point sets are held at their example by the draws: add the edge search's sets
        candidates += [{**candidates[0], name: s} for name, s in sets]
    wanted = min(examples, ALONE_CAP)
    state = _Conditions(statement, dps, repro, wanted)
    try:
        starts = []
        for point in candidates:
            r = state.at(point, "drawn")
            state.keep(r)
            state.compared.append({**plain(point), "refused": bool(r.failed)})
            if not r.failed:
                starts.append(point)
        _search(statement, state, draws, starts, START_FACTOR * wanted)
        state.flush()
    except _Finding as found:
        return found.check
    methods = state.methods()
    if not state.inside or not state.outside:
        side = "inside" if not state.inside else "outside"
        return Check("conditions", {}, ok=False, side="n/a", reproduction=repro, methods=methods,
                     message=(f"{state.evaluations} points agree, but none was {side} the conditions: "
                              f"{'answers' if side == 'inside' else 'refusals'} were not compared"))
    counts = ", ".join(f"{n} {len(v)}" for n, v in state.alone.items())
    missing = [n for n, v in state.alone.items() if not v]
    return Check("conditions", {}, ok=True, side="n/a", reproduction=repro, methods=methods,
                 message=(f"{state.evaluations} points agree ({state.inside} answered by both, {state.outside} "
                          f"refused by both); points where one condition alone fails: {counts}"
                          + (f" (none found for {', '.join(missing)})" if missing else "")))


def _search(statement, state: _Conditions, draws: Draws, starts: list[dict[str, Any]], max_starts: int) -> None:
    """The boundary search. From a point inside every condition, each numeric parameter in turn is moved towards
    each end of its drawn range; where that end is outside a condition that still lacks points, the crossing is
    bisected (log space on a log scale): ``SEARCH_STEPS`` evaluations, ending just outside, where usually one
    condition alone fails. Starts are the drawn inside points, then (breadth first) the inside end of each ray
    searched (its far end, or the inside side of its crossing), which moves two parameters away from the draws; at
    most ``max_starts`` starts, each at most 2 × parameters × (1 + ``SEARCH_STEPS``) evaluations. It stops once every
    condition has ``state.target`` points where it alone fails."""
    queue = list(starts)
    done = 0
    while queue and done < max_starts and state.wanted():
        start = queue.pop(0)
        done += 1
        for p in statement.params:
            if not isinstance(p.domain, (Real, Integer)) or p.name not in start or isinstance(start[p.name], bool):
                continue
            x0 = start[p.name]
            for end in (float(v) for v in draws._range(p.domain)):
                if not state.wanted():
                    return
                ray = _Ray(p.domain, float(x0), end)
                far = None if ray.degenerate else ray.at(1.0)
                if far is None or _same(far, x0):
                    continue
                how = f"moving {p.name} from {_num(x0)} towards {_num(end)}"
                r_far = state.at({**start, p.name: far}, how)
                if not r_far.failed:
                    queue.append({**start, p.name: far})
                    continue
                if not state.wanted(r_far.failed):
                    continue
                a, b, x_in, r_out = 0.0, 1.0, x0, r_far
                for _ in range(SEARCH_STEPS):
                    m = (a + b) / 2
                    x = ray.at(m)
                    if x is None or _same(x, x_in) or _same(x, r_out.point[p.name]):
                        break
                    r = state.at({**start, p.name: x}, how)
                    if r.failed:
                        b, r_out = m, r
                    else:
                        a, x_in = m, x
                state.crossings += 1
                state.keep(r_out)
                if a > 0:
                    queue.append({**start, p.name: x_in})


class _Ray:
    """The values of one parameter from ``x0`` (t = 0) to ``end`` (t = 1): log-linear on a positive log scale,
    linear otherwise; rounded as drawn values are (integers, or ``DRAW_DIGITS`` significant digits), None where the
    rounded value is outside the domain (an open end)."""

    def __init__(self, domain, x0: float, end: float):
        self.domain, self.x0, self.end = domain, x0, end
        self.log = domain.scale == "log" and x0 > 0 and end > 0
        self.degenerate = not (math.isfinite(x0) and math.isfinite(end)) or x0 == end

    def at(self, t: float):
        if self.log:
            x = math.exp(math.log(self.x0) + t * (math.log(self.end) - math.log(self.x0)))
        else:
            x = self.x0 + t * (self.end - self.x0)
        if t == 1.0:
            x = self.end
        if isinstance(self.domain, Integer):
            x = int(round(x))
        else:
            x = float(f"{x:.{DRAW_DIGITS}g}")
        if not self.domain.contains(x) and t == 1.0:  # an open end: the last drawable value before it
            return self.at(1.0 - 2.0 ** -SEARCH_STEPS)
        return x if self.domain.contains(x) else None


def _names(failed) -> tuple[str, ...]:
    """Condition names from ConditionError words (``ConditionSpec.describe()``: 'name: text')."""
    return tuple(str(f).partition(":")[0].strip() for f in failed)


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




def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def _error(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text[:300]}"

