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
