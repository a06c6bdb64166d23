"""Fast paths (torch) of the ``gptr.*`` statements, seed 003 (Redberg's thesis), chapter 3 (generalized Propose-Test-
Release): bounds, operators and training code of that text. Empty until the text lands; domains and condition texts
come from ``dpspec.reference.gptr.spec``."""
