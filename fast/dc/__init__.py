"""Fast paths (torch) of the ``dc.*`` statements, seed 004 (discriminative clipping DP-SGD, DC-DPSGD, under
heavy-tailed gradients): bounds, operators and training code of that text. Empty until the text lands; domains and
condition texts come from ``dpspec.reference.dc.spec``."""
