"""Proof checks and errata of the ``objpert.*`` statements: seed 003 (Redberg's thesis, ``003_dabdd6bee088f80a.txt``),
chapter 2 + appendix A (notes shared/notes/objpert-pdp.md) and chapter 4 + appendix C (notes objpert-rdp.md).

- :mod:`.errata_ch2`: objpert.E1–objpert.E21 (notes objpert-pdp.md §6; E14 settled by a counterexample here);
  :mod:`.errata_ch4`: objpert.E4_1–objpert.E4_25 (notes objpert-rdp.md §6, "4_" for the chapter). Each
  demonstration recomputes its evidence.
- :mod:`.symbolic_ch2`, :mod:`.symbolic_ch4`: the mechanical proof checks (sympy, with numerical comparisons),
  ids ``objpert.symbolic_ch2.<function>`` and ``objpert.symbolic_ch4.<function>``.
- :mod:`._exact_ch2`, :mod:`._exact_ch4` (exact small instances, independent of dpspec.reference) and :mod:`._ref`
  (late access to dpspec.reference.objpert by the contract's public names).
"""
