"""The ``bc.*`` text, seed 002 (DP-SGD with batch clipping and shuffling, f-DP accounting): its seeds; its domains,
shared parameters and conditions' names and texts land here with its statements. Dependency-free: the standard
library and ``dpspec.reference.domains`` only."""
from __future__ import annotations

SEED = "002_5bf9d068e79d7537.txt"
SEEDS = (SEED,)
