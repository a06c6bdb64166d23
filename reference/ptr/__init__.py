"""Rényi DP of Propose-Test-Release (Wang, Mahloujifar, Wang, Jia, Mittal, NeurIPS 2022).

Seeds: ``001_c3b5d7d7fc0e2c16.txt`` (main text) and ``000_0fe14ad2f9124ea1.txt`` (appendix); working notes
``shared/notes/ptr-rdp.md``. One module per statement or small group; every module registers its catalogue
entries at import (discovered by :func:`dpspec.reference.catalogue.load_all`). Seeds, domains, shared parameters and
the conditions' names and texts (dependency-free, shared with the fast path): :mod:`.spec`; mpmath notation (the test
threshold, f_α^{-1}, the Laplace log-moment): :mod:`.notation`.
"""
