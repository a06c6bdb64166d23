"""Proof checks and errata of the ``dc.*`` statements, seed 004 (discriminative clipping DP-SGD, DC-DPSGD, under
heavy-tailed gradients). Empty until the text lands."""
