"""Proof checks and errata of the ``gptr.*`` statements, seed 003 (Redberg's thesis), chapter 3 (generalized
Propose-Test-Release). Empty until the text lands."""
