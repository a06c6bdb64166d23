"""(ε, δ) amplification by Poisson subsampling.

Balle, Barthe & Gaboardi, "Privacy Amplification by Subsampling: Tight Analyses via Couplings and Divergences",
NeurIPS 2018 (arXiv 1807.01647), Thm 10 (Poisson subsampling, add/remove relation); first in Li, Qardaji & Su,
"On sampling, anonymization, and differential privacy", ASIACCS 2012: if M is (ε, δ)-DP then M∘PoissonSample(q)
is (ε', δ')-DP with
    ε' = log(1 + q(e^ε − 1)),   δ' = q·δ.
"""
from __future__ import annotations

import mpmath

from ..catalogue import Privacy, Source, Statement, Value, register
from ..domains import EPS, SAMPLING_RATE, Param
from ..precision import checked_param as _check, self_checked
from .spec import DELTA_CLOSED





@self_checked
def poisson_amplification(eps, delta, q):
    """(ε', δ') = (log(1 + q(e^ε − 1)), qδ) (BBG18 Thm 10 / LQS12), computed as log1p(q·expm1(ε))."""
    eps, delta, q = _check("eps", EPS, eps), _check("delta", DELTA_CLOSED, delta), _check("q", SAMPLING_RATE, q)
    return mpmath.log1p(q * mpmath.expm1(eps)), q * delta


register(Statement(
    id="base.poisson_amplification",
    fast="dpspec.fast.base.amplification:poisson_amplification",
    source=Source("outside", "Thm 10", "(ε, δ) amplification by Poisson subsampling",
                  "Balle, Barthe & Gaboardi, NeurIPS 2018 (arXiv 1807.01647); Li, Qardaji & Su, ASIACCS 2012"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="(ε, δ) ↦ (log(1 + q(e^ε − 1)), qδ)",
    params=(
        Param("eps", EPS, "ε of the base mechanism", example=1),
        Param("delta", DELTA_CLOSED, "δ of the base mechanism", example="1e-6"),
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.01"),
    ),
    reference=poisson_amplification,
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"eps": +1, "delta": +1, "q": +1},
))
