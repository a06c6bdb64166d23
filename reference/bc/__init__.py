"""Reference evaluators of the ``bc.*`` statements: seed 002 (DP-SGD with batch clipping and shuffling, f-DP
accounting); working notes shared/notes/batch-clipping-fdp.md.

Shape (as reference/ptr/): the dependency-free :mod:`.spec` (seeds, domains, ``Param``s, condition names and texts),
one module per statement or small group registering its catalogue entries, and the witness pairs. Empty until the
text lands."""
