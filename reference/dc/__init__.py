"""Reference evaluators of the ``dc.*`` statements: seed 004 (discriminative clipping DP-SGD, DC-DPSGD, under
heavy-tailed gradients); working notes shared/notes/dc-dpsgd.md.

Shape (as reference/ptr/): the dependency-free :mod:`.spec` (seeds, domains, ``Param``s, condition names and texts),
one module per statement or small group registering its catalogue entries, and the witness pairs. Empty until the
text lands."""
