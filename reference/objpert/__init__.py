"""Reference evaluators of the ``objpert.*`` statements: seed 003 (Redberg's thesis), chapters 2 and 4 (objective
perturbation: per-instance DP of the released minimiser, its RDP); working notes shared/notes/objpert-pdp.md and
objpert-rdp.md.

Shape (as reference/ptr/): the dependency-free :mod:`.spec` (seeds, domains, ``Param``s, condition names and texts),
one module per statement or small group registering its catalogue entries, and the witness pairs. Empty until the
text lands."""
