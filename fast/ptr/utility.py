"""Theorem 5.2 of the PTR paper (convergence of SGD with PTR(SUM, TSUM_F) under F corrupted gradients, appendix 000
A.4, eqs. (93)–(96), hypothesis (151)), vectorised. Mirrors ``ptr.thm5_2`` (reference/ptr/thm5_2.py, which
derives the statement and lists its errata E9–E11 and its renamings)."""
from __future__ import annotations

import torch

from dpspec.reference.domains import NOISE
from dpspec.reference.errors import ConditionError
from dpspec.reference.ptr.spec import (COUNT, NONNEGATIVE, POSITIVE, THM5_2_F_BELOW_HALF, THM5_2_SIGMA2,
                                      THM5_2_STEP_SIZE, TRIM)

from .._torch import params


def thm5_2(n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B, allow_outside: bool = False) -> torch.Tensor:
    """lim sup E||w^(t) − w*||² ≤ M_B/(1 − ρ_B) (eq. (93)), elementwise, with
    1 − ρ_B = η_B(2λ(n−2F) − η_B(n² + (n−F+1)(n−F)β²)) formed without the cancellation of 1 − ρ_B (eq. (95)),
    M_B = η_B²(n−F+1)((n−F)σ_g² + dσ2²) + (F/n)²R² (eq. (96)). Raises ConditionError where F < n/2, the step-size
    bound (94) or hypothesis (151) fails, unless ``allow_outside`` (then the values there are not bounds)."""
    n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B = params(
        n=(n, COUNT), F=(F, TRIM), d=(d, COUNT), R=(R, POSITIVE), beta=(beta, POSITIVE),
        lam_sc=(lam_sc, POSITIVE), sigma_g=(sigma_g, NONNEGATIVE), sigma1=(sigma1, NOISE), sigma2=(sigma2, NOISE),
        eta_B=(eta_B, POSITIVE))
    curvature = n**2 + (n - F + 1) * (n - F) * beta**2
    if not allow_outside:
        failed = []
        if not bool((2 * F < n).all()):
            failed.append(THM5_2_F_BELOW_HALF.describe())
        if not bool((eta_B < 2 * lam_sc * (n - 2 * F) / curvature).all()):
            failed.append(THM5_2_STEP_SIZE.describe())
        sigma2_min_sq = (n - F) * (n + 1) / n**2 * (((n - F) * sigma_g**2 + F * R**2) / d + sigma1**2)
        if not bool((sigma2**2 >= sigma2_min_sq).all()):
            failed.append(THM5_2_SIGMA2.describe())
        if failed:
            raise ConditionError("ptr.thm5_2", failed)
    # M_B/(1 − ρ_B) with η_B divided out of both: (η_B·A + (F/n)²R²/η_B)/gap, A = (n−F+1)((n−F)σ_g² + dσ2²),
    # gap = (1 − ρ_B)/η_B = 2λ(n−2F) − η_B·(n² + …). Forming η_B² first underflowed to 0 for η_B ≲ 1e-154 while
    # the bound is an ordinary double (η_B = 8.4e-285, λ = 2.4e-35: 3.5e-246).
    gap = 2 * lam_sc * (n - 2 * F) - eta_B * curvature
    spread = (n - F + 1) * ((n - F) * sigma_g**2 + d * sigma2**2)
    return (eta_B * spread + (F / n) ** 2 * R**2 / eta_B) / gap
