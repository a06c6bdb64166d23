"""Reference evaluators of the ``gptr.*`` statements: seed 003 (Redberg's thesis), chapter 3 (generalized Propose-Test-
Release); working notes shared/notes/generalized-ptr.md.

Shape (as reference/ptr/): the dependency-free :mod:`.spec` (seeds, domains, ``Param``s, condition names and texts),
one module per statement or small group registering its catalogue entries, and the witness pairs. Empty until the
text lands."""
