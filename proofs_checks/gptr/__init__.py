"""Proof checks and errata of the ``gptr.*`` statements: seed 003 (Redberg's thesis, ``003_dabdd6bee088f80a.txt``),
chapter 3 and appendix B (generalized Propose-Test-Release; notes shared/notes/generalized-ptr.md).

- :mod:`.symbolic`: the mechanical proof checks of notes §8 (sympy, with numerical comparisons against the reference),
  ids ``gptr.symbolic.<function>``.
- :mod:`.errata`: gptr.E1–gptr.E18 (notes §6; E16–E18 found by this project), each with a demonstration that recomputes
  its evidence.
- :mod:`._exact` (exact laws of the small instances, independent of dpspec.reference) and :mod:`._ref` (late access
  to dpspec.reference.gptr by the contract's public names).
"""
