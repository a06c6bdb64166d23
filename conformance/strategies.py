"""Points drawn from a statement's parameter domains (``dpspec.reference.domains``), in two forms with the same
rules: hypothesis strategies (for the test suite) and the deterministic :class:`Draws` of ``dpspec conform``.

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
are left to the caller.

:class:`Draws` (the conformance runner) draws the same kinds of values from ``random.Random(seed)`` rather than
through hypothesis (see the comment above it for why), within the ranges of a profile (``quick`` / ``full``:
:data:`PROFILE_RANGES`, :data:`PROFILE_CURVES`) that keep every reference evaluation cheap; a curve parameter is a
:class:`CurveDraw` (a catalogue curve with its own parameters drawn too) that both the reference and the fast path
can take.
"""
from __future__ import annotations

import hashlib
import math
import random
from typing import Any, Mapping

from hypothesis import strategies as st

from dpspec.reference.base.spec import ZW19_ALPHA as BASE_ZW19_ALPHA
from dpspec.reference.domains import ALPHA, Choice, Curve, Integer, Points, Real
from dpspec.reference.ptr.spec import ZW19_ALPHA as PTR_ZW19_ALPHA

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


def curve(domain: Curve) -> st.SearchStrategy:
    candidates = curve_candidates(domain.kind)
    if not candidates:
        return st.nothing()
    return st.sampled_from(candidates)


def for_domain(domain: Any) -> st.SearchStrategy:
    if isinstance(domain, Real):
        return real(domain)
    if isinstance(domain, Integer):
        return integer(domain)
    if isinstance(domain, Choice):
        return st.sampled_from(domain.options)
    if isinstance(domain, Curve):
        return curve(domain)
    raise TypeError(f"no strategy for domain {domain!r}")


def params(statement, fixed: Mapping[str, Any] | None = None, only: tuple[str, ...] | None = None
           ) -> st.SearchStrategy[dict[str, Any]]:
    """Parameter dicts for ``statement``: ``fixed`` values are kept; parameters not in ``only`` (when given) stay
    at their example (or default); every other parameter is drawn from its domain's strategy."""
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
                parts[p.name] = for_domain(p.domain)
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


# ---------------------------------------------------------------------------------------------------------
# Deterministic draws for the conformance runner (`dpspec conform`)
#
# The runner does not draw through hypothesis: hypothesis mixes into its draws constants read from the source of
# every local module imported so far (hypothesis.internal.conjecture.providers._get_local_constants), so the
# points of a check would depend on which statements ran before it (their fast paths import more modules), and
# its stopping rules read the clock once a failure is found. Here every check draws from its own
# ``random.Random(stable_seed(run seed, statement id, check name))`` with ``random()`` only (stable across Python
# versions): the same code and seed give the same points, whatever ran before and however fast the machine is.

PROFILES = ("quick", "full")
END_SHARE = 0.2  # a drawn Real/Integer is one of the ends of its range this often (where bounds break)
DRAW_DIGITS = 10  # drawn reals are rounded to this many significant digits (short, exact reproduction commands)

# Per profile, the ranges that replace a domain's sampling range (keyed by the domain object; every statement
# whose parameter has that domain draws from it). The cost of a reference evaluation is bounded by what is drawn:
PROFILE_RANGES: dict[str, dict[Any, tuple[float, float]]] = {
    # α: the ZW19 bounds (base.zw19_*, ptr.zw19_*) cost α − 1 curve evaluations per order (ptr.zw19_upper as the
    # curve of base.rdp_composition took 39 s at α = 10⁴, base.zw19_upper 6–22 s); at α ≤ 64 well under 0.2 s.
    # The theorems' α-conditions (ptr.thm4_4 (C3)/(C4), ptr.lemma_a1) are crossed well below 64 (e.g. σ2 = 4).
    "quick": {ALPHA: (1 + 1e-6, 64.0), BASE_ZW19_ALPHA: (1 + 1e-6, 64.0), PTR_ZW19_ALPHA: (1 + 1e-6, 64.0)},
    "full": {ALPHA: (1 + 1e-6, 1e3), BASE_ZW19_ALPHA: (1 + 1e-6, 1e3), PTR_ZW19_ALPHA: (1 + 1e-6, 1e3)},
}

# Per profile and curve kind, the catalogue statements whose curves are drawn for a Curve parameter (None: every
# candidate of :func:`curve_candidates`). A conversion evaluates its curve at 50–100 orders and the ZW19 bounds at
# α − 1 orders, so only curves that cost well under a millisecond per order are drawn (measured at α = 2.5 and
# 40.5: every one below is a closed form); left out: ptr.thm4_4 (0.3 s per order), ptr.zw19_* (O(α) per order),
# ptr.lemma_a1 (refuses most orders), and for trade-off curves base.gdp_tradeoff / base.gdp_subsampled (cheap
# themselves, but base.tradeoff_profile raises its precision with log10(1/δ): 1.4 s at ε = 0, 120 s at ε = 20).
CLOSED_FORM_CURVES = {
    "rdp": ("base.gaussian_rdp", "base.laplace_rdp", "ptr.a1_1_no_release", "ptr.ineq38_41", "ptr.thm4_3",
            "ptr.thm4_3_general"),
    "tradeoff": ("base.eps_delta_tradeoff",),
}
PROFILE_CURVES: dict[str, dict[str, tuple[str, ...] | None]] = {"quick": CLOSED_FORM_CURVES,
                                                                 "full": CLOSED_FORM_CURVES}


def stable_seed(*parts: Any) -> int:
    """A 64-bit seed from ``parts`` (e.g. run seed, statement id, check name): SHA-256 of their ``|``-joined
    strings, so the same on every machine and interpreter (unlike Python's salted ``hash``)."""
    digest = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "big")


class CurveDraw:
    """A drawn curve parameter: the curve of catalogue statement ``statement_id`` with its other parameters bound
    to ``params``. Called with an order α it is the reference curve (``catalogue.curve``); :meth:`fast` is the same
    statement's torch path with the same parameters (:func:`has_fast_form`)."""

    __slots__ = ("statement_id", "params", "_reference")

    def __init__(self, statement_id: str, params: Mapping[str, Any]):
        self.statement_id = statement_id
        self.params = dict(params)
        self._reference = None

    def __call__(self, alpha):
        if self._reference is None:
            from dpspec.reference import catalogue

            self._reference = catalogue.curve(self.statement_id, **{k: _decimal(v) for k, v in self.params.items()})
        return self._reference(alpha)

    def fast(self):
        """α ↦ ε(α) (or f(α)) of the statement's fast path with the same parameters (as float64 tensors)."""
        from dpspec.reference import catalogue

        if not has_fast_form(self.statement_id):
            raise ValueError(f"{self.statement_id} has no fast form as a curve (no fast path, or conditions)")
        st_ = catalogue.get(self.statement_id)
        fn, axis = st_.fast_function(), st_.value.axis
        bound = fast_args(st_, self.params)
        return lambda alpha: fn(**{axis: alpha}, **bound)

    def describe(self) -> str:
        return f"{self.statement_id}(" + ", ".join(f"{k}={_short(v)}" for k, v in self.params.items()) + ")"

    def __repr__(self) -> str:
        return f"CurveDraw({self.statement_id!r}, {self.params!r})"


def has_fast_form(statement_id: str) -> bool:
    """A curve's torch form is its statement's fast path with the same parameters, which is the same function as
    the reference curve only where the statement has a fast path and no conditions of its own (the reference
    curve of a conditioned statement refuses orders one at a time, which a conversion reads as +∞)."""
    from dpspec.reference import catalogue

    st_ = catalogue.get(statement_id)
    return st_.fast is not None and not st_.conditions


class Draws:
    """Deterministic draws of parameter values and points for one check (``random.Random(seed)``)."""

    def __init__(self, seed: int, profile: str = "quick"):
        if profile not in PROFILES:
            raise ValueError(f"profile={profile!r} not in {PROFILES}")
        self.seed, self.profile = seed, profile
        self.rng = random.Random(seed)

    def _u(self) -> float:
        return self.rng.random()

    def _pick(self, options):
        return options[min(len(options) - 1, int(self._u() * len(options)))]

    def value(self, domain: Any, example: Any = None, fast: bool = False) -> Any:
        """One value of ``domain`` (its example for a domain without draws, e.g. point sets)."""
        if isinstance(domain, Real):
            return self._real(domain)
        if isinstance(domain, Integer):
            return self._integer(domain)
        if isinstance(domain, Choice):
            return self._pick(domain.options)
        if isinstance(domain, Curve):
            return self._curve(domain, fast)
        if example is None:
            raise TypeError(f"no draws for domain {domain!r} and no example")
        return example

    def _range(self, domain) -> tuple[float, float]:
        override = PROFILE_RANGES[self.profile].get(domain)
        if override is not None:
            return override
        return _finite_range(domain) if isinstance(domain, Real) else domain.strategy_range

    def _real(self, domain: Real) -> float:
        lo, hi = self._range(domain)
        ends = [v for v in (float(lo), float(hi)) if domain.contains(v)]
        for _ in range(100):
            if ends and self._u() < END_SHARE:
                return self._pick(ends)
            if domain.scale == "log" and lo > 0:
                x = math.exp(math.log(lo) + self._u() * (math.log(hi) - math.log(lo)))
            else:
                x = lo + self._u() * (hi - lo)
            x = float(f"{x:.{DRAW_DIGITS}g}")
            if domain.contains(x):
                return x
        raise ValueError(f"no value of {domain.describe()} drawn in 100 tries")

    def near(self, domain: Any, x: Any, fast: bool = False) -> Any:
        """Half the time a value of ``domain`` (:meth:`value`), otherwise one near ``x``: within a factor of 10 on a
        log scale, within a tenth of the range on a linear one (kept in the profile's range) — a second value for a
        monotonicity check that stays where the theorem applies more often than a draw from the whole range."""
        if not isinstance(domain, (Real, Integer)) or self._u() < 0.5:
            return self.value(domain, None, fast)
        lo, hi = (float(v) for v in self._range(domain))
        for _ in range(100):
            u = 2 * self._u() - 1
            if domain.scale == "log" and float(x) > 0 and lo > 0:
                y = float(x) * math.exp(u * math.log(10))
            else:
                y = float(x) + u * (hi - lo) / 10
            y = min(hi, max(lo, y))
            y = int(round(y)) if isinstance(domain, Integer) else float(f"{y:.{DRAW_DIGITS}g}")
            if domain.contains(y):
                return y
        return self.value(domain, None, fast)

    def _integer(self, domain: Integer) -> int:
        lo, hi = (int(v) for v in self._range(domain))
        if self._u() < END_SHARE:
            return self._pick([lo, hi])
        if domain.scale == "log" and lo >= 1 and hi > lo:
            return min(hi, max(lo, int(round(math.exp(self._u() * math.log(hi))))))
        return min(hi, lo + int(self._u() * (hi - lo + 1)))

    def _curve(self, domain: Curve, fast: bool) -> CurveDraw:
        from dpspec.reference import catalogue

        names = [c.statement_id for c in curve_candidates(domain.kind)]
        allowed = PROFILE_CURVES[self.profile].get(domain.kind)
        if allowed is not None:
            names = [n for n in names if n in allowed]
        if fast:
            names = [n for n in names if has_fast_form(n)]
        if not names:
            raise TypeError(f"no catalogue curve of kind {domain.kind!r} to draw")
        st_ = catalogue.get(self._pick(names))
        params = {}
        for p in st_.params:
            if p.name == st_.value.axis or isinstance(p.domain, Curve):
                continue
            if p.required or p.example is not None:
                params[p.name] = self.value(p.domain, example_value(p))
        return CurveDraw(st_.id, params)

    def params(self, statement, fast: bool = False) -> dict[str, Any]:
        """A point of ``statement``'s domains: half the time every parameter drawn, otherwise one parameter drawn
        and the others at their examples (so that a theorem with conditions is met often, and each parameter's
        range, ends included, is crossed with the others at a point where the statement applies). ``fast``: curves
        only from statements with a fast form. The theorem's own conditions are left to the caller."""
        drawable = [p for p in statement.params if _drawable(p.domain)]
        one = self._pick(drawable).name if drawable and self._u() < 0.5 else None
        point: dict[str, Any] = {}
        for p in statement.params:
            example = _example(p, fast)
            if one is not None and p.name != one and example is not None:
                point[p.name] = example
            elif _drawable(p.domain):
                point[p.name] = self.value(p.domain, example, fast)
            elif example is not None:
                point[p.name] = example
            elif p.required:
                raise TypeError(f"{statement.id}: parameter {p.name} has no draws and no example")
        return point


def _example(p, fast: bool = False) -> Any:
    """A parameter's example (or default) as a drawn value: a curve example (a statement id) as a
    :class:`CurveDraw` with that statement's own examples; None when there is none (or, with ``fast``, when the
    example curve has no fast form)."""
    if isinstance(p.domain, Curve):
        sid = p.example if isinstance(p.example, str) else None
        if sid is None or (fast and not has_fast_form(sid)):
            return None
        from dpspec.reference import catalogue

        st_ = catalogue.get(sid)
        return CurveDraw(sid, {q.name: example_value(q) for q in st_.params
                               if q.name != st_.value.axis and example_value(q) is not None})
    return example_value(p)


def _drawable(domain: Any) -> bool:
    return isinstance(domain, (Real, Integer, Choice, Curve))


def _decimal(v: Any) -> Any:
    """A drawn float as the decimal string of its shortest repr (what ``dpspec eval`` parses); others as they are."""
    return repr(v) if isinstance(v, float) else v


def reference_args(point: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of ``Statement.evaluate`` for a drawn point: floats as decimal strings (so that the printed
    point, given to ``dpspec eval``, is exactly the point checked), curves as callables."""
    return {k: _decimal(v) for k, v in point.items()}


def fast_args(statement, point: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments of the statement's fast path for a drawn point, by the parameter's domain: numbers as float64
    tensors (the nearest double of the decimal the reference gets), curves as their fast form, choices as strings,
    point sets as (m, d) tensors."""
    import torch

    domains = {p.name: p.domain for p in statement.params}
    out = {}
    for k, v in point.items():
        domain = domains.get(k)
        if isinstance(v, CurveDraw):
            out[k] = v.fast()
        elif isinstance(domain, (Real, Integer)):
            out[k] = torch.tensor(float(v), dtype=torch.float64)
        elif isinstance(domain, Points):
            rows = domain.check(k, v)
            out[k] = torch.tensor(rows, dtype=torch.float64)  # (m, d) already, m = 0 included
        else:
            out[k] = v
    return out


def plain(point: Mapping[str, Any]) -> dict[str, Any]:
    """A drawn point as JSON-able values (a curve as ``id(param=value, ...)``)."""
    return {k: v.describe() if isinstance(v, CurveDraw) else _plain_value(v) for k, v in point.items()}


def _plain_value(v: Any) -> Any:
    if isinstance(v, (int, float, str, bool)) or v is None:
        return v
    if callable(v):
        return getattr(v, "statement_id", "curve")
    try:
        return [[float(c) for c in row] for row in v]
    except TypeError:
        return str(v)


def _short(v: Any) -> str:
    return repr(v) if isinstance(v, float) else str(v)
