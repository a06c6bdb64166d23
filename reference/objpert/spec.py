"""The ``objpert.*`` text, seed 003 (Redberg's thesis), chapters 2 and 4 (objective perturbation: per-instance DP of
the released minimiser, its RDP): its seeds; its domains, shared parameters and conditions' names and texts land
here with its statements. Dependency-free: the standard library and ``dpspec.reference.domains`` only."""
from __future__ import annotations

SEED = "003_dabdd6bee088f80a.txt"  # chapters 2 and 4
SEEDS = (SEED,)
