"""Parameter domains of catalogue statements. Dependency-free (no mpmath, no torch): the fast path and
the hypothesis strategies of the conformance harness read the same objects.

A domain checks one value and describes itself in words; ``sample_lo``/``sample_hi`` and ``scale`` tell
strategy generators where random testing is meaningful (e.g. α up to 10^4 on a log scale).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .errors import DomainError


def _is_nan(x: Any) -> bool:
    try:
        return x != x
    except Exception:  # pragma: no cover - exotic types
        return False


@dataclass(frozen=True)
class Real:
    """A real interval. ``lo_open``/``hi_open`` say whether the end points are excluded."""

    lo: float = -math.inf
    hi: float = math.inf
    lo_open: bool = True
    hi_open: bool = True
    scale: str = "linear"  # "linear" or "log": how strategies should spread samples
    sample_lo: float | None = None  # practical range for random testing (defaults to lo/hi)
    sample_hi: float | None = None
    allow_inf: bool = False  # +inf accepted as a value (e.g. sigma1 = inf: textbook PTR)

    def describe(self) -> str:
        left = "(" if self.lo_open else "["
        right = ")" if self.hi_open else "]"
        fmt = lambda v: "inf" if v == math.inf else "-inf" if v == -math.inf else f"{v:g}"
        s = f"{left}{fmt(self.lo)}, {fmt(self.hi)}{right}"
        return s + (" or inf" if self.allow_inf and self.hi != math.inf else "")

    def contains(self, x: Any) -> bool:
        if _is_nan(x):
            return False
        if x == math.inf or x == -math.inf:
            return self.allow_inf and x == math.inf
        if x < self.lo or (self.lo_open and x == self.lo):
            return False
        if x > self.hi or (self.hi_open and x == self.hi):
            return False
        return True

    def check(self, name: str, x: Any) -> Any:
        if not self.contains(x):
            raise DomainError(name, _show(x), self.describe())
        return x

    @property
    def strategy_range(self) -> tuple[float, float]:
        lo = self.sample_lo if self.sample_lo is not None else self.lo
        hi = self.sample_hi if self.sample_hi is not None else self.hi
        return lo, hi


@dataclass(frozen=True)
class Integer:
    """An integer interval [lo, hi] (both ends included)."""

    lo: int = 0
    hi: float = math.inf
    scale: str = "linear"
    sample_hi: int | None = None

    def describe(self) -> str:
        return f"integers in [{self.lo}, {'inf)' if self.hi == math.inf else str(int(self.hi)) + ']'}"

    def contains(self, x: Any) -> bool:
        if _is_nan(x):
            return False
        try:
            if int(x) != x:
                return False
        except (TypeError, ValueError, OverflowError):
            return False
        return self.lo <= x <= self.hi

    def check(self, name: str, x: Any) -> Any:
        if not self.contains(x):
            raise DomainError(name, _show(x), self.describe())
        return int(x)

    @property
    def strategy_range(self) -> tuple[int, int]:
        hi = self.sample_hi if self.sample_hi is not None else (self.hi if self.hi != math.inf else self.lo + 1000)
        return self.lo, int(hi)


@dataclass(frozen=True)
class Choice:
    """One of a fixed set of strings."""

    options: tuple[str, ...]

    def describe(self) -> str:
        return "one of {" + ", ".join(self.options) + "}"

    def contains(self, x: Any) -> bool:
        return x in self.options

    def check(self, name: str, x: Any) -> Any:
        if not self.contains(x):
            raise DomainError(name, _show(x), self.describe())
        return x


@dataclass(frozen=True)
class Curve:
    """A function α ↦ ε(α): in Python any callable, on the command line the id of an RDP statement
    whose other parameters are given alongside (e.g. ``curve=base.sgm_rdp q=0.01 sigma=1``)."""

    kind: str = "rdp"

    def describe(self) -> str:
        return f"a callable alpha -> eps(alpha) or the id of a '{self.kind}' statement"

    def contains(self, x: Any) -> bool:
        return callable(x)

    def check(self, name: str, x: Any) -> Any:
        if not callable(x):
            raise DomainError(name, _show(x), self.describe())
        return x


@dataclass(frozen=True)
class Points:
    """A finite multiset of vectors in R^d: an (m, d) array of finite reals, m = 0 allowed (a 1-d array is
    read as m points in R^1). On the command line: JSON, e.g. ``points=[[0.1,0.2],[1,0]]``."""

    def describe(self) -> str:
        return "an (m, d) array of finite reals (JSON on the command line)"

    def _parse(self, x: Any):
        import json

        import numpy as np

        if isinstance(x, str):
            x = json.loads(x)
        arr = np.asarray(x, dtype=float)
        if arr.ndim == 1:
            arr = arr.reshape(-1, 1)
        if arr.ndim != 2 or not np.all(np.isfinite(arr)):
            raise ValueError("not an (m, d) array of finite reals")
        return arr

    def contains(self, x: Any) -> bool:
        try:
            self._parse(x)
            return True
        except (ValueError, TypeError):
            return False

    def check(self, name: str, x: Any) -> Any:
        try:
            return self._parse(x)
        except (ValueError, TypeError):
            raise DomainError(name, _show(x), self.describe()) from None


Domain = Real | Integer | Choice | Curve | Points

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Param:
    """A named parameter of a statement: its domain, meaning and optional default."""

    name: str
    domain: Domain
    doc: str = ""
    default: Any = field(default=_NO_DEFAULT)
    example: Any = None  # a typical value, used by `dpspec list`, docs and smoke tests

    @property
    def required(self) -> bool:
        return self.default is _NO_DEFAULT

    def describe(self) -> str:
        s = f"{self.name} ∈ {self.domain.describe()}"
        if not self.required:
            s += f" (default {self.default})"
        return s


@dataclass(frozen=True)
class ConditionSpec:
    """One of a theorem's own conditions by name and text, without its predicate. A text's ``spec.py`` holds
    these; the reference attaches an mpmath predicate (``catalogue.Condition.of(spec, holds)``), the fast path a
    torch mask, and both list a failed condition in a ``ConditionError`` as :meth:`describe` words it."""

    name: str
    text: str

    def describe(self) -> str:
        return f"{self.name}: {self.text}"


def _show(x: Any) -> Any:
    """A short, printable form of a value for error messages."""
    try:
        if isinstance(x, (int, float, str)) or type(x).__name__ == "mpf":
            return x  # DomainError formats numbers compactly (errors.format_value), exponent kept
        return str(x)[:40]
    except Exception:  # pragma: no cover
        return "<value>"


# Domains used again and again: the Rényi order, probabilities, noise scales.
ALPHA = Real(1, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=1 + 1e-6, sample_hi=1e4)
SAMPLING_RATE = Real(0, 1, lo_open=True, hi_open=False, scale="log", sample_lo=1e-8, sample_hi=1)
DELTA = Real(0, 1, lo_open=True, hi_open=True, scale="log", sample_lo=1e-300, sample_hi=0.5)
EPS = Real(0, math.inf, lo_open=False, hi_open=True, sample_lo=0, sample_hi=20)
NOISE = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.05, sample_hi=100)
STEPS = Integer(1, math.inf, scale="log", sample_hi=10**6)
