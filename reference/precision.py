"""Working precision, the two-precision self-check, and log-space arithmetic for the mpmath reference.

Every public reference evaluator is wrapped in :func:`self_checked`: when called from outside another
self-checked evaluator, it runs twice, at ``mp.dps + GUARD_LOW`` and ``mp.dps + GUARD_HIGH`` digits, and
returns the higher-precision value rounded to ``mp.dps`` digits only if both agree to ``mp.dps``
significant digits; otherwise it raises :class:`PrecisionError` instead of returning a doubtful value.
Nested calls (an evaluator that calls another) run once, at the precision already set.
"""
from __future__ import annotations

import contextvars
import functools
import inspect
import math
import numbers
from typing import Any, Callable, Iterable

import mpmath
from mpmath import mp, mpf

from .errors import PrecisionError, format_value

DEFAULT_DPS = 50
GUARD_LOW = 8
GUARD_HIGH = 20

_inside = contextvars.ContextVar("dpspec_self_check_inside", default=False)


def _agree(a, b, digits: int) -> bool:
    if mpmath.isnan(a) or mpmath.isnan(b):
        return False
    if mpmath.isinf(a) or mpmath.isinf(b):
        return a == b
    if a == b:
        return True
    scale = max(abs(a), abs(b))
    return abs(a - b) <= scale * mpf(10) ** (-digits)


def _as_tuple(v):
    return v if isinstance(v, tuple) else (v,)


def self_checked(fn: Callable) -> Callable:
    """Decorator: two-precision self-check of an mpmath evaluator (see module docstring).

    The wrapped function must compute at the current ``mp`` precision and return an ``mpf`` (or a tuple
    of them). NaN is never returned: it raises :class:`PrecisionError`.
    """

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        args, kwargs = _entry_mpf(fn, args, kwargs)
        if _inside.get():
            out = fn(*args, **kwargs)
            for v in _as_tuple(out):
                if isinstance(v, mpmath.mpf) and mpmath.isnan(v):
                    raise PrecisionError(f"{fn.__qualname__} produced NaN")
            return out
        digits = mp.dps
        token = _inside.set(True)
        try:
            with mp.workdps(digits + GUARD_LOW):
                low = fn(*args, **kwargs)
            with mp.workdps(digits + GUARD_HIGH):
                high = fn(*args, **kwargs)
        finally:
            _inside.reset(token)
        for a, b in zip(_as_tuple(low), _as_tuple(high)):
            if isinstance(b, (mpmath.mpf, int, float)) and not _agree(mpf(a), mpf(b), digits):
                raise PrecisionError(
                    f"{fn.__qualname__}: self-check failed, values at {digits + GUARD_LOW} and "
                    f"{digits + GUARD_HIGH} digits disagree at {digits} digits: {format_value(mpf(a))} vs "
                    f"{format_value(mpf(b))}"
                )
        if isinstance(high, tuple):
            return tuple(+mpf(v) if isinstance(v, (mpmath.mpf, int, float)) else v for v in high)
        return +mpf(high) if isinstance(high, (mpmath.mpf, int, float)) else high

    wrapper.__wrapped_unchecked__ = fn
    return wrapper


_ENTRY: dict = {}  # evaluator → (its parameter names, its statement's non-Integer parameters, None), from the catalogue


def _entry_params(fn):
    """(the evaluator's positional parameter names, the names of its statement's parameters that are not Integer, None)
    for a registered evaluator (a statement's reference or a variant's); None for one no statement registers. Looked up in the catalogue on first use (evaluators are
    decorated before they register) and remembered once found."""
    from .catalogue import STATEMENTS  # noqa: PLC0415 - the catalogue imports this module
    from .domains import Integer  # noqa: PLC0415

    entries = STATEMENTS._entries  # what has registered so far (no load: this may run while modules import)
    hit = _ENTRY.get(fn)
    if hit is not None and (hit[0] is not None or hit[2] == len(entries)):
        return hit if hit[0] is not None else None
    for st in list(entries.values()):
        refs = [st.reference, *(v.reference for v in st.variants.values())]
        if any(getattr(r, "__wrapped_unchecked__", None) is fn for r in refs):
            reals = frozenset(p.name for p in st.params if not isinstance(p.domain, Integer))
            hit = (tuple(inspect.signature(fn).parameters), reals, None)
            _ENTRY[fn] = hit
            return hit
    _ENTRY[fn] = (None, None, len(entries))  # not registered (yet): looked up again when the catalogue grows
    return None


def _plain_number(v) -> bool:
    """A Python or NumPy int or float (not a bool, not an mpf)."""
    return not isinstance(v, bool) and isinstance(v, (int, float, numbers.Integral))


def _entry_mpf(fn, args, kwargs):
    """The arguments of a direct Python call with every int and float of a real parameter as an mpf at the current
    precision, as the catalogue's ``Statement.bind`` passes them (``laplace_rdp(2, 1)`` computed α/(2α − 1) = 2/3 in
    float, 4e-17 off). Only the statement's own parameters are converted: those with an Integer domain keep their ints
    (the evaluators use them as counts), other arguments (bools, strings, curves, extra keywords) are left as they are,
    and evaluators that no statement registers (helpers) are unchanged."""
    if not any(map(_plain_number, args)) and not any(map(_plain_number, kwargs.values())):
        return args, kwargs
    found = _entry_params(fn)
    if found is None:
        return args, kwargs
    names, reals, _ = found

    def convert(name, v):
        if not (_plain_number(v) and name in reals):
            return v
        return mpf(float(v)) if isinstance(v, float) else mpf(int(v))

    args = tuple(convert(names[i] if i < len(names) else None, a) for i, a in enumerate(args))
    return args, {k: convert(k, v) for k, v in kwargs.items()}


def to_mpf(x) -> mpf:
    """A parameter as an mpf at the current precision: strings are parsed as decimals (so '0.01' is
    one hundredth to the working precision), floats are taken exactly."""
    if isinstance(x, mpmath.mpf):
        return +x
    if isinstance(x, str):
        return mpf(x.strip())
    return mpf(x)


def checked_param(name: str, domain, value):
    """Validate one argument of a direct Python call to an evaluator against its domain (the catalogue's
    ``Statement.bind`` validates too): numbers become mpf first; curves and choices are checked as they are."""
    from .domains import Choice, Curve, Points

    if isinstance(domain, (Curve, Choice, Points)):
        return domain.check(name, value)
    try:
        x = to_mpf(value)
    except (TypeError, ValueError):
        x = value
    return domain.check(name, x)


# ---------------------------------------------------------------------------------------------------
# Log-space arithmetic. mpmath's exponent range is unbounded, but sums of exponentials are still written
# in log space so that the reference reads like (and checks) the stable formulas of the fast path.


def logsumexp(terms: Iterable) -> mpf:
    """log Σ exp(t) for a finite iterable of mpf (−inf terms allowed)."""
    ts = [mpf(t) for t in terms]
    if not ts:
        return mpf("-inf")
    m = max(ts)
    if mpmath.isinf(m):
        return m
    return m + mpmath.log(mpmath.fsum(mpmath.exp(t - m) for t in ts))



def log_add(a, b) -> mpf:
    """log(e^a + e^b)."""
    return logsumexp([a, b])


def log_sub(a, b) -> mpf:
    """log(e^a − e^b) for a ≥ b; raises on a < b (a negative result has no log)."""
    a, b = mpf(a), mpf(b)
    if b > a:
        raise PrecisionError(f"log_sub: e^a - e^b is negative (a={a}, b={b})")
    if mpmath.isinf(b) and b < 0:
        return a
    if a == b:
        return mpf("-inf")
    return a + log1mexp(b - a)


def log1mexp(x) -> mpf:
    """log(1 − e^x) for x ≤ 0, to full relative precision at both ends (Mächler's switch at −log 2: log(−expm1 x)
    loses relative precision for very negative x, where 1 − e^x rounds to 1)."""
    x = mpf(x)
    if x > 0:
        raise PrecisionError(f"log1mexp: x={x} > 0")
    if x > -mpmath.log(2):
        return mpmath.log(-mpmath.expm1(x))
    return mpmath.log1p(-mpmath.exp(x))


def jsonable(v: Any, mpf_digits: int | None = None) -> Any:
    """A JSON-ready copy of ``v`` (the one converter of dpspec's reports): None, bool, int and str as they are;
    a non-finite float as "inf" / "-inf" / "nan"; an mpf as a float, or as a decimal string of ``mpf_digits``
    digits when given (errata evidence keeps its digits); dicts and sequences recursively; anything else that
    converts to float as a float, otherwise ``str(v)``."""
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        return v if math.isfinite(v) else ("inf" if v > 0 else "-inf" if v < 0 else "nan")
    if isinstance(v, dict):
        return {str(k): jsonable(x, mpf_digits) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x, mpf_digits) for x in v]
    if isinstance(v, mpmath.mpf) and mpf_digits is not None:
        return mpmath.nstr(v, mpf_digits)
    try:
        return jsonable(float(v))
    except (TypeError, ValueError):
        return str(v)
