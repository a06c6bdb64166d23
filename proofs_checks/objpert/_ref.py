"""Late access to the ``objpert.*`` reference (dpspec.reference.objpert) by the contract's public names, and to the
catalogue, for the errata and proof checks of seed 003's chapters 2 and 4 (objective perturbation).

The import happens when a demonstration or check runs, not when the registers are discovered: a renamed or missing
reference function then fails that one demonstration (``dpspec errata`` reports it as not reproduced, with the
name), not the discovery of every register. Shared by errata_ch2.py / errata_ch4.py and their proof checks.
"""
from __future__ import annotations

import importlib

from mpmath import mpf

from dpspec.reference import catalogue


def ref(module: str, name: str):
    """``dpspec.reference.objpert.<module>.<name>``, e.g. ``ref("glm_bounds", "objpert_delta")``."""
    mod = importlib.import_module(f"dpspec.reference.objpert.{module}")
    try:
        return getattr(mod, name)
    except AttributeError:
        raise AttributeError(f"dpspec.reference.objpert.{module} has no {name!r} (the contract's public name)") from None


def cat(statement_id: str, variant: str | None = None, allow_outside: bool = False, dps: int = 30, **params):
    """The catalogue's Evaluation of a statement (its ``variant``) at ``dps`` digits."""
    extra = {"variant": variant} if variant else {}
    return catalogue.get(statement_id).evaluate(dps=dps, allow_outside=allow_outside, **extra, **params)


def close(a, b, rel="1e-15") -> bool:
    """|a − b| ≤ rel·max(|a|, |b|) (or both equal)."""
    a, b = mpf(a), mpf(b)
    return a == b or abs(a - b) <= mpf(rel) * max(abs(a), abs(b))


def cat_fill(statement_id: str, variant: str | None = None, allow_outside: bool = False, dps: int = 30, **known):
    """Like :func:`cat`, passing only the parameters the statement declares out of ``known`` (a superset of
    shared names: eps, alpha, sigma, lam, beta, L, d, …); raises KeyError naming any declared parameter that
    ``known`` lacks. For statements whose parameter list the contract does not fix."""
    st = catalogue.get(statement_id)
    names = [p.name for p in st.params]
    missing = [n for n in names if n not in known]
    if missing:
        raise KeyError(f"{statement_id} declares {missing}, not supplied")
    return cat(statement_id, variant, allow_outside, dps, **{n: known[n] for n in names})


def has_variant(statement_id: str, variant: str) -> bool:
    """True when the catalogue statement exists and declares the variant."""
    try:
        st = catalogue.get(statement_id)
    except ValueError:
        return False
    return variant in st.variants
