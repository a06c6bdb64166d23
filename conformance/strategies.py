"""Hypothesis strategies generated from a statement's parameter domains (``dpspec.reference.domains``).

* ``Real``: log-uniform over ``strategy_range`` where ``scale="log"`` (and the range is positive), uniform
  otherwise; the ends of the range (when they belong to the domain) are drawn often, because that is where
  bounds break (auditing notes §5: σ→0, q→1, α→1⁺, ...).
* ``Integer``: log-uniform integers where ``scale="log"``, uniform otherwise, ends included.
* ``Choice``: one of the options.
* any other domain (e.g. point sets): held at the parameter's example (no draws when it has none);
* ``Curve``: the curve of a catalogue statement of the wanted kind (e.g. an RDP curve α ↦ ε(α)), its other
  parameters at their examples (:func:`curve_candidates`).

:func:`params` composes these into a strategy of parameter dicts for a statement; ``fixed`` pins some parameters
and ``only`` lets the rest vary. A drawn dict always passes the statement's domains; the theorem's own conditions
are left to the caller (the property runner discards draws outside them).
"""
from __future__ import annotations

import math
import time
from typing import Any, Mapping

from hypothesis import strategies as st

from dpspec.reference.domains import Choice, Curve, Integer, Real

UNBOUNDED_SPAN = 1e3  # how far strategies go beyond a finite end of an unbounded range without sample_hi/lo


def real(domain: Real) -> st.SearchStrategy[float]:
    lo, hi = _finite_range(domain)
    if domain.scale == "log" and lo > 0:
        body = st.floats(math.log(lo), math.log(hi)).map(math.exp)
    else:
        body = st.floats(lo, hi, allow_nan=False, allow_infinity=False)
    ends = [v for v in (lo, hi) if domain.contains(v)]
    strategy = st.one_of(st.sampled_from(ends), body) if ends else body
    return strategy.filter(domain.contains)


def integer(domain: Integer) -> st.SearchStrategy[int]:
    lo, hi = domain.strategy_range
    if domain.scale == "log" and lo >= 1 and hi > lo:
        body = st.floats(0.0, math.log(hi)).map(lambda u: min(hi, max(lo, int(round(math.exp(u))))))
    else:
        body = st.integers(lo, hi)
    return st.one_of(st.sampled_from([lo, hi]), body).filter(domain.contains)


def curve(domain: Curve, cheap: bool = False) -> st.SearchStrategy:
    candidates = cheap_curves(domain.kind) if cheap else curve_candidates(domain.kind)
    if not candidates:
        return st.nothing()
    return st.sampled_from(candidates)


def for_domain(domain: Any, cheap: bool = False) -> st.SearchStrategy:
    if isinstance(domain, Real):
        return real(domain)
    if isinstance(domain, Integer):
        return integer(domain)
    if isinstance(domain, Choice):
        return st.sampled_from(domain.options)
    if isinstance(domain, Curve):
        return curve(domain, cheap)
    raise TypeError(f"no strategy for domain {domain!r}")


def params(statement, fixed: Mapping[str, Any] | None = None, only: tuple[str, ...] | None = None,
           cheap: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Parameter dicts for ``statement``: ``fixed`` values are kept; parameters not in ``only`` (when given) stay
    at their example (or default); every other parameter is drawn from its domain's strategy (``cheap``: curves
    only from the cheapest statements, see :func:`cheap_curves`)."""
    fixed = dict(fixed or {})
    parts: dict[str, st.SearchStrategy] = {}
    for p in statement.params:
        if p.name in fixed:
            parts[p.name] = st.just(fixed[p.name])
        elif only is not None and p.name not in only:
            value = example_value(p)
            if value is None:
                continue
            parts[p.name] = st.just(value)
        else:
            try:
                parts[p.name] = for_domain(p.domain, cheap)
            except TypeError:  # a domain without a strategy (e.g. point sets): held at its example
                value = example_value(p)
                if value is None and p.required:
                    return st.nothing()
                if value is not None:
                    parts[p.name] = st.just(value)
    return st.fixed_dictionaries(parts)


def example_value(p) -> Any:
    """A parameter's example, with a Curve example given as a statement id turned into its curve."""
    value = p.example if p.example is not None else (None if p.required else p.default)
    if isinstance(p.domain, Curve) and isinstance(value, str):
        matches = [c for c in curve_candidates(p.domain.kind) if getattr(c, "statement_id", None) == value]
        return matches[0] if matches else None
    return value


CURVE_RETURNS = {"rdp": "rdp_eps", "tradeoff": "beta"}  # Curve.kind -> the declared value (Statement.value.returns)


def curve_candidates(kind: str) -> list:
    """Curves α ↦ value of every catalogue statement whose declared value is a curve of ``kind`` (an RDP curve:
    ``Value("rdp_eps", axis)``) and whose other parameters all have examples (bound at those examples)."""
    from dpspec.reference import catalogue

    out = []
    for s in catalogue.statements():
        if s.value.returns != CURVE_RETURNS.get(kind):
            continue
        others = {p.name: p.example for p in s.params if p.name != s.value.axis}
        if any(v is None or isinstance(v, str) and not _numeric(v) for v in others.values()):
            continue
        if any(isinstance(p.domain, Curve) for p in s.params):
            continue
        try:
            out.append(catalogue.curve(s.id, **others))
        except Exception:  # a statement whose examples do not bind is not a usable curve
            continue
    return out


CHEAP_CURVE_S = 0.005  # a "cheap" curve evaluates at its statement's example α in under this many seconds
_COSTS: dict[str, list] = {}


def cheap_curves(kind: str) -> list:
    """The candidate curves that evaluate quickly (timed once per process), at least the cheapest one: quick
    property searches draw only these, so that a statement taking a curve (e.g. a conversion that minimises over
    α) is not dominated by an expensive curve's quadrature."""
    if kind not in _COSTS:
        timed = []
        for c in curve_candidates(kind):
            start = time.perf_counter()
            try:
                c(_alpha_example(c))
            except Exception:  # a curve that does not evaluate at these orders is not a cheap test input
                continue
            timed.append((time.perf_counter() - start, c))
        timed.sort(key=lambda t: t[0])
        _COSTS[kind] = [c for cost, c in timed if cost < CHEAP_CURVE_S] or [c for _, c in timed[:1]]
    return _COSTS[kind]


def _alpha_example(c) -> Any:
    from dpspec.reference import catalogue

    st_ = catalogue.get(c.statement_id)
    return next((p.example for p in st_.params if p.name == st_.value.axis and p.example is not None), 2)


def _finite_range(domain: Real) -> tuple[float, float]:
    lo, hi = domain.strategy_range
    if math.isinf(lo) and math.isinf(hi):
        lo, hi = -UNBOUNDED_SPAN, UNBOUNDED_SPAN
    elif math.isinf(hi):
        hi = lo * UNBOUNDED_SPAN if domain.scale == "log" and lo > 0 else lo + UNBOUNDED_SPAN
    elif math.isinf(lo):
        lo = hi - UNBOUNDED_SPAN
    return float(lo), float(hi)


def _numeric(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False
