"""Audits of third-party DP implementations (issue 6).

* Accountants (accountants.py, adapters.py, settings.py, montecarlo.py): peer accountants (Opacus RDP/PRV/GDP,
  dp-accounting RDP/PLD, autodp RDP and its general Poisson bound, prv_accountant) against the mpmath reference and
  a Monte Carlo truth with rigorous intervals; verdicts consistent | loose | violation | error.
* Black-box mechanisms (mechanisms.py): empirical lower bounds on ε from samples of a callable on two neighbouring
  datasets, and empirical f-DP trade-off points with simultaneous bands.
* Reports (report.py): terminal table, JSON, Markdown.
* Isolation (isolation.py): each peer claim runs in a time-limited child process, its warnings, logs and
  prints captured into the report; loading.py resolves MODULE:OBJECT (your own mechanism or accountant)
  from the current directory first.

The peers are imported lazily inside the adapters; dpspec itself never needs them.
"""
from .accountants import AuditResult, audit_accountant, audit_all
from .settings import SETTINGS, Setting, get_setting

__all__ = ["AuditResult", "audit_accountant", "audit_all", "SETTINGS", "Setting", "get_setting"]
