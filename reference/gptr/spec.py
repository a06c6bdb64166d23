"""The ``gptr.*`` text, seed 003 (Redberg's thesis), chapter 3 (generalized Propose-Test-Release): its seeds; its
domains, shared parameters and conditions' names and texts land here with its statements. Dependency-free: the
standard library and ``dpspec.reference.domains`` only."""
from __future__ import annotations

SEED = "003_dabdd6bee088f80a.txt"  # chapter 3
SEEDS = (SEED,)
