"""Late access to the ``gptr.*`` reference (dpspec.reference.gptr) by the contract's public names, and to the
catalogue, for the errata and proof checks of this package.

The import happens when a demonstration or check runs, not when the registers are discovered: a renamed or missing
reference function then fails that one demonstration (``dpspec errata`` reports it as not reproduced, with the
name), not the discovery of every register.
"""
from __future__ import annotations

import importlib

from mpmath import mpf

from dpspec.reference import catalogue


def ref(module: str, name: str):
    """``dpspec.reference.gptr.<module>.<name>``, e.g. ``ref("generalized", "gptr_budget")``."""
    mod = importlib.import_module(f"dpspec.reference.gptr.{module}")
    try:
        return getattr(mod, name)
    except AttributeError:
        raise AttributeError(f"dpspec.reference.gptr.{module} has no {name!r} (the contract's public name)") from None


def cat(statement_id: str, variant: str | None = None, allow_outside: bool = False, dps: int = 30, **params):
    """The catalogue's Evaluation of a statement (its ``variant``) at ``dps`` digits."""
    extra = {"variant": variant} if variant else {}
    return catalogue.get(statement_id).evaluate(dps=dps, allow_outside=allow_outside, **extra, **params)


def close(a, b, rel="1e-15") -> bool:
    """|a − b| ≤ rel·max(|a|, |b|) (or both equal)."""
    a, b = mpf(a), mpf(b)
    return a == b or abs(a - b) <= mpf(rel) * max(abs(a), abs(b))
