"""Fast paths (torch float64) of the ``bc.*`` statements, seed 002 (DP-SGD with batch clipping and shuffling, f-DP
accounting in the A1 model): ``qe`` (the law q_E of c², Def. 4.1), ``mixture`` (the exact A1 trade-off function
f, δ(ε), ε(δ): Def. 4.2, ``bc.a1_profile``, ``bc.a1_epsilon``), ``bounds`` (Defs 4.3/4.4, Thms 4.5/4.6, Lemmas
C.2/C.3), ``accounting`` (A1 next to the tight A0 ε), ``training`` (Algorithm 1's operators). Domains and condition
texts come from ``dpspec.reference.bc.spec``.

Every statement whose fast path checks Algorithm 1's conditions (s·m ≤ N, g ≤ N, N/(ms) an integer) accepts
``allow_outside`` like every fast path with conditions, but these conditions cannot be waived: q_E does not exist
outside them, so both paths refuse there with or without it (the reference's evaluators check them too)."""
