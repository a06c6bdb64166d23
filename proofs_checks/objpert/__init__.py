"""Proof checks and errata of the ``objpert.*`` statements, seed 003 (Redberg's thesis), chapters 2 and 4 (objective
perturbation: per-instance DP of the released minimiser, its RDP). Empty until the text lands."""
