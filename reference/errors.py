"""Errors raised by dpspec. Dependency-free: the fast path imports this module too.

Every user error is a ``ValueError`` subclass whose message names the parameter, the offending value and
the domain, so that the command line can print it as one line. Values are shown compactly (:func:`format_value`:
a float's shortest repr, not an mpf's 50 digits; long strings and sequences cut with their length stated).
"""
from __future__ import annotations

import decimal
import math
import sys

SIGNIFICANT_DIGITS = 8  # an mpf beyond the float range is shown with this many significant digits
MAX_SHOWN = 80  # a value (string, sequence, other object) is cut to about this many characters in a message
MAX_DOMAIN = 200  # and a domain description to this many


def _cut(text: str, limit: int) -> str:
    text = " ".join(str(text).split())  # one line
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text)} characters)"


def format_value(value: object, limit: int = MAX_SHOWN) -> str:
    """A short, one-line form of a parameter value for an error message.

    Floats, and mpf values inside the float range, are shown by ``repr`` of the float: the shortest decimal that
    reads back as the same double (at most 17 significant digits: ``1/3`` is ``0.3333333333333333``, not 50
    digits); an mpf beyond the float range, and an integer of more than 20 digits, with ``SIGNIFICANT_DIGITS``
    significant digits and its exponent (``-1.2345679e+5000``); strings, sequences and other objects are cut to
    about ``limit`` characters with their full length stated. Dependency-free: an mpf is recognised through
    ``sys.modules`` (one can only exist when mpmath is loaded)."""
    if value is None or (isinstance(value, str) and value == ""):
        return repr(value)
    if isinstance(value, bool):
        return repr(value)
    mpmath = sys.modules.get("mpmath")
    if mpmath is not None and isinstance(value, mpmath.mpf):
        if mpmath.isnan(value):
            return "nan"
        if mpmath.isinf(value):
            return "inf" if value > 0 else "-inf"
        f = float(value)  # 0.0 or ±inf outside the float range
        if value == 0 or (math.isfinite(f) and abs(f) >= sys.float_info.min):
            return repr(f)
        exponent = mpmath.log10(abs(value))
        if abs(exponent) > 10**15:  # the exponent itself would print with hundreds of digits
            sign = "-" if value < 0 else ""
            return f"{sign}10^({mpmath.nstr(exponent, SIGNIFICANT_DIGITS)})"
        return mpmath.nstr(value, SIGNIFICANT_DIGITS)
    if isinstance(value, int):
        if abs(value) < 10**20:
            return str(value)
        return format(decimal.Decimal(value), f".{SIGNIFICANT_DIGITS}g")  # no int -> str digit limit
    if isinstance(value, float) or type(value).__name__ in ("float64", "float32", "float16"):
        return repr(float(value))  # a numpy scalar would print as np.float64(...)
    if isinstance(value, str):
        return _cut(value, limit)
    if isinstance(value, (tuple, list)):
        inner = ", ".join(format_value(v, limit) for v in value[:8]) + (", …" if len(value) > 8 else "")
        left, right = ("(", ")") if isinstance(value, tuple) else ("[", "]")
        return _cut(left + inner + right, limit)
    try:
        return _cut(str(value), limit)
    except Exception:  # pragma: no cover - an object whose str raises
        return f"<{type(value).__name__}>"


class DpspecError(ValueError):
    """Base class of every user-facing dpspec error."""


class UnknownStatementError(DpspecError, KeyError):
    """An id that is not in the catalogue (statement, witness or erratum)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown id"


class ParameterError(DpspecError):
    """A parameter is missing, unknown, or malformed."""


class DomainError(ParameterError):
    """A parameter value lies outside its domain (NaN included)."""

    def __init__(self, name: str, value: object, domain: str):
        self.name, self.value, self.domain = name, value, domain
        super().__init__(f"{_cut(name, MAX_SHOWN)}={format_value(value)} is outside its domain "
                         f"{_cut(domain, MAX_DOMAIN)}")


class ConditionError(DpspecError):
    """A theorem is evaluated outside its own conditions (its validity predicate is false).

    The caller may opt in with ``allow_outside=True``; the result is then marked as not a bound.
    """

    def __init__(self, statement_id: str, failed: list[str]):
        self.statement_id, self.failed = statement_id, list(failed)
        super().__init__(
            f"{statement_id}: outside the statement's own conditions: {'; '.join(failed)} "
            "(pass allow_outside=True / --allow-outside to evaluate anyway; the result is then not a bound)"
        )


class PrecisionError(ArithmeticError):
    """A reference value failed its self-check (two working precisions disagree), or is NaN."""
