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
import math
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
