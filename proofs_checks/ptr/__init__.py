"""Mechanical checks of the proofs of "Rényi Differential Privacy of Propose-Test-Release" (Wang, Mahloujifar,
Wang, Jia, Mittal; NeurIPS 2022; seeds 001_c3b5d7d7fc0e2c16.txt = main text, 000_0fe14ad2f9124ea1.txt = appendix),
and the paper's errata (:mod:`.errata`).

One module per topic; every check is a function without arguments that *recomputes* its claim and returns a
:class:`CheckResult`. Checks register themselves with :func:`check` in the one proof-check register
(:mod:`dpspec.proofs_checks.checks`, ids ``ptr.<module>.<function>``); :func:`all_checks` lists this paper's.
Symbolic checks use sympy; numerical ones mpmath (numpy only for brute force over small data sets).
"""
from __future__ import annotations

from dpspec.proofs_checks.checks import CheckResult, ProofCheck, check
from dpspec.proofs_checks.checks import all_checks as _all_checks

__all__ = ["CheckResult", "ProofCheck", "check", "all_checks"]


def all_checks() -> dict[str, ProofCheck]:
    """Every registered check of this paper (``ptr.*``), ids in natural order."""
    return _all_checks("ptr")
