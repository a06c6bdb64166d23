"""Fast paths (torch) of the ``objpert.*`` statements, seed 003 (Redberg's thesis), chapters 2 and 4 (objective
perturbation: per-instance DP of the released minimiser, its RDP): bounds, operators and training code of that text.
Empty until the text lands; domains and condition texts come from ``dpspec.reference.objpert.spec``."""
