"""DP-PCA with generalized PTR on the torch fast path: seed 003 Theorem B.3.13 (after Dwork, Talwar, Thakurta & Zhang
2014), ε(A) = 2√log(1.25/δ)/(σ(d_k − 2)), with the conditions the text leaves out (erratum E13): d_k > 2 and the
classical Gaussian calibration's ε(A) ≤ 1. Mirrors ``dpspec.reference.gptr.pca``."""
from __future__ import annotations

import math

import torch

from dpspec.reference.gptr import spec

from .._torch import params
from ._common import refuse_outside


def thm_b3_13(d_k, sigma, delta, allow_outside: bool = False) -> torch.Tensor:
    """ε(A) = 2√log(1.25/δ)/(σ(d_k − 2)) (``gptr.thm_b3_13``; log(1.25/δ) as log 1.25 − log δ). Refused where d_k ≤ 2
    (eigengap_above_two) or ε(A) > 1 (classical_gaussian) unless ``allow_outside`` (+inf where d_k ≤ 2)."""
    d_k, sigma, delta = params(d_k=(d_k, spec.P_EIGENGAP.domain), sigma=(sigma, spec.POSITIVE),
                               delta=(delta, spec.P_DELTA.domain))
    gap = d_k > 2
    value = 2 * torch.sqrt(math.log(1.25) - torch.log(delta)) / (sigma * (d_k - 2))
    value = torch.where(gap, value, torch.full_like(value, math.inf))
    refuse_outside("gptr.thm_b3_13", [(spec.EIGENGAP_ABOVE_TWO, gap),
                                      (spec.CLASSICAL_GAUSSIAN_EPS, gap & (value <= 1))], allow_outside)
    return value
