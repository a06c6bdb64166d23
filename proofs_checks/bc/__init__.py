"""Proof checks and errata of seed 002 (DP-SGD with batch clipping and shuffling, f-DP; ``bc.*``)."""
