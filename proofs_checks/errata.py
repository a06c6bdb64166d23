"""The errata register: each statement printed wrongly in a seed, with its printed form, its corrected form,
and a demonstration that shows the difference *by computation* (never a stored number).

An entry is registered with :func:`register_erratum` in the module of ``dpspec.proofs_checks`` that holds its
demonstration; the modules are discovered by the registry mechanism (:mod:`dpspec.reference.registry`).
``dpspec errata`` re-runs every demonstration. ("Witness" is reserved for the neighbouring distribution pairs
of the catalogue.)
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

from dpspec.reference.registry import Registry


@dataclass(frozen=True)
class DemonstrationResult:
    """What a demonstration computed. ``reproduced`` is True when the computation shows the printed form wrong
    (or different from the corrected form) as the erratum claims; ``evidence`` holds the numbers."""

    reproduced: bool
    evidence: dict[str, Any] = field(default_factory=dict)
    message: str = ""


@dataclass(frozen=True)
class Erratum:
    id: str  # e.g. "ptr.E1"
    source: str  # seed file + statement number, e.g. "000_0fe14ad2f9124ea1.txt, Theorem 4.4 (appendix)"
    summary: str  # one line
    printed: str  # the printed statement, verbatim up to extraction garbling
    corrected: str  # what is true instead
    demonstration: Callable[[], DemonstrationResult]  # recomputes the evidence
    statements: tuple[str, ...] = ()  # catalogue ids affected (their `printed` variants, where they exist)
    severity: str = "wrong"  # "wrong" (false statement), "typo" (harmless slip), "gap" (missing condition/step)
    note: str = ""

    def check(self) -> tuple[DemonstrationResult, float]:
        start = time.perf_counter()
        try:
            result = self.demonstration()
        except Exception as exc:  # a demonstration that crashes has not reproduced
            result = DemonstrationResult(False, {}, f"demonstration raised {type(exc).__name__}: {exc}")
        return result, time.perf_counter() - start


def demonstration_with_checks(fn: Callable[[], tuple[Any, dict, str]], checks: tuple = (),
                              dps: int = 30) -> Callable[[], DemonstrationResult]:
    """A demonstration from ``fn() -> (reproduced, evidence, message)``, run at ``dps`` digits, that also runs the proof
    checks ``checks`` (registered functions with ``check_name``; reproduced only if they hold too).
    ``demonstration.checks`` names them for the back-links of ``dpspec show``; ``__wrapped__`` is ``fn``, so
    ``dpspec show`` locates the entry's own computation (``inspect.unwrap``)."""
    import mpmath

    def demonstration() -> DemonstrationResult:
        results = [c() for c in checks]
        with mpmath.workdps(dps):
            ok, evidence, message = fn()
        evidence = {**evidence, **{r.name: {"holds": r.holds} for r in results}}
        failed = [r.name for r in results if not r.holds]
        if failed:
            message += f"; checks that did not hold: {failed}"
        return DemonstrationResult(bool(ok) and not failed, evidence, message)

    demonstration.checks = tuple(c.check_name for c in checks)
    demonstration.__wrapped__ = fn
    return demonstration


ERRATA: Registry[Erratum] = Registry("erratum", ("dpspec.proofs_checks",), "`dpspec errata` lists them")


def register_erratum(erratum: Erratum) -> Erratum:
    return ERRATA.register(erratum)


def load_all() -> None:
    ERRATA.load()


def errata() -> list[Erratum]:
    """Every erratum, ids in natural order (ptr.E2 before ptr.E10)."""
    return ERRATA.items()


def get_erratum(erratum_id: str) -> Erratum:
    return ERRATA.get(erratum_id)
