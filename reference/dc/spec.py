"""The ``dc.*`` text, seed 004 (discriminative clipping DP-SGD, DC-DPSGD, under heavy-tailed gradients): its seeds; its
domains, shared parameters and conditions' names and texts land here with its statements. Dependency-free: the
standard library and ``dpspec.reference.domains`` only."""
from __future__ import annotations

SEED = "004_18684d5c7944b6f0.txt"
SEEDS = (SEED,)
