"""Late access to the ``dc.*`` reference (dpspec.reference.dc) by the contract's public names, and to the catalogue,
for the errata and proof checks of seed 004 (DC-DPSGD, arXiv 2405.17529v1; notes shared/notes/dc-dpsgd.md).

The import happens when a demonstration or check runs, not when the registers are discovered: a renamed or missing
reference function then fails that one demonstration (``dpspec errata`` reports it as not reproduced, with the
name), not the discovery of every register. The contract lets each helper put a public name in one of two or more
modules (helper A: subweibull.py or concentration.py; B: privacy.py or readings.py; C: convergence.py,
thresholds.py, subspace.py or rates.py), so :func:`ref` looks the name up in the owner's modules in turn.
"""
from __future__ import annotations

import importlib

from mpmath import mpf

from dpspec.reference import catalogue

# the contract's owners of the public helper names and the modules each may put them in
OWNERS = {
    "A": ("subweibull", "concentration"),
    "B": ("privacy", "readings"),
    "C": ("convergence", "thresholds", "subspace", "rates"),
}
NAMES = {
    "freedman_a": "A", "freedman_b": "A", "sum_constant_g": "A", "moment_bound": "A", "tail_quantile": "A",
    "ahlswede_winter": "A", "orlicz_k": "A",
    "amplify": "B", "sigma_eff": "B", "reading_epsilon": "B", "thm51_sigma": "B", "implied_m2": "B",
    "threshold_c": "C", "eq28": "C", "eq67": "C", "eq68": "C", "body_beats_dpsgd_T": "C", "c1_over_c2": "C",
    "subspace_error": "C",
}


def ref(name: str, *modules: str):
    """The contract's public name ``name`` from ``dpspec.reference.dc.<module>``, trying ``modules`` (default: the
    owner's modules of :data:`NAMES`) in turn; AttributeError naming every module tried when none has it."""
    modules = modules or OWNERS[NAMES[name]]
    tried = []
    for module in modules:
        try:
            mod = importlib.import_module(f"dpspec.reference.dc.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"dpspec.reference.dc.{module}":
                raise
            tried.append(f"{module} (no such module)")
            continue
        if hasattr(mod, name):
            return getattr(mod, name)
        tried.append(module)
    raise AttributeError(f"dpspec.reference.dc has no {name!r} (the contract's public name) in {', '.join(tried)}")


def available(name: str) -> bool:
    """True when the contract's public name exists now (its owner's module is there and defines it). A module that
    exists but fails to import raises: a broken reference fails the demonstration instead of being skipped."""
    try:
        ref(name)
    except AttributeError:
        return False
    return True


def exists(statement_id: str) -> bool:
    """True when the catalogue holds the statement."""
    try:
        catalogue.get(statement_id)
    except ValueError:
        return False
    return True


def cat(statement_id: str, variant: str | None = None, allow_outside: bool = False, dps: int = 30, **params):
    """The catalogue's Evaluation of a statement (its ``variant``) at ``dps`` digits."""
    extra = {"variant": variant} if variant else {}
    return catalogue.get(statement_id).evaluate(dps=dps, allow_outside=allow_outside, **extra, **params)


def close(a, b, rel="1e-15") -> bool:
    """|a − b| ≤ rel·max(|a|, |b|) (or both equal)."""
    a, b = mpf(a), mpf(b)
    return a == b or abs(a - b) <= mpf(rel) * max(abs(a), abs(b))
