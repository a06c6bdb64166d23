"""Fast paths (torch) of the ``bc.*`` statements, seed 002 (DP-SGD with batch clipping and shuffling, f-DP accounting):
bounds, operators and training code of that text. Empty until the text lands; domains and condition texts come from
``dpspec.reference.bc.spec``."""
