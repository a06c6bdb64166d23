"""Proof checks and errata of seed 002 (DP-SGD with batch clipping and shuffling, f-DP; ``bc.*``).

Modules: :mod:`.errata` (bc.E1–bc.E16, numbered after notes shared/notes/batch-clipping-fdp.md §6), :mod:`.fdp`
(bc.E9, f_{ε,δ} printed with min), :mod:`.symbolic` (sympy checks: eq. (10), Lemma C.5, D.13/D.14, [2] Cor 3.3 and
Prop 2.12), :mod:`.counting` (F.1, F.4, Lemma F.7's tail, G.2, G.3 occupancy laws), :mod:`.a0` (the canonical pair
of C_p(G_{1/σ}) used as the A0 witness); :mod:`._exact` and :mod:`._a0` hold the shared computations.
"""
