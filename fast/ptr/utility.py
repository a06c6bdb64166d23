"""Theorem 5.2 of the PTR paper (convergence of SGD with PTR(SUM, TSUM_F) under F corrupted gradients, appendix 000
A.4, eqs. (93)–(96), hypothesis (151)), vectorised. Mirrors ``ptr.thm5_2`` (reference/ptr/thm5_2.py, which
derives the statement and lists its errata E9–E11, E20)."""
from __future__ import annotations

import math

import torch

from dpspec.reference.domains import NOISE, Integer, Real
from dpspec.reference.errors import ConditionError

from .._torch import params

_POS = Real(0, math.inf)
_SIGMA_G = Real(0, math.inf, lo_open=False)


def thm5_2(n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B, allow_outside: bool = False) -> torch.Tensor:
    """lim sup E||w^(t) − w*||² ≤ M_B/(1 − ρ_B) (eq. (93)), elementwise, with
    1 − ρ_B = η_B(2λ(n−2F) − η_B(n² + (n−F+1)(n−F)β²)) formed without the cancellation of 1 − ρ_B (eq. (95)) and
    M_B = η_B²(n−F+1)((n−F)σ_g² + dσ2²) + (F/n)²R² (eq. (96)). Raises ConditionError where F < n/2, the step-size
    bound (94) or hypothesis (151) fails, unless ``allow_outside`` (then the values there are not bounds)."""
    n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B = params(
        n=(n, Integer(1)), F=(F, Integer(0)), d=(d, Integer(1)), R=(R, _POS), beta=(beta, _POS),
        lam_sc=(lam_sc, _POS), sigma_g=(sigma_g, _SIGMA_G), sigma1=(sigma1, NOISE), sigma2=(sigma2, NOISE),
        eta_B=(eta_B, _POS))
    curvature = n**2 + (n - F + 1) * (n - F) * beta**2
    if not allow_outside:
        failed = []
        if not bool((2 * F < n).all()):
            failed.append("F_below_half: F < n/2")
        if not bool((eta_B < 2 * lam_sc * (n - 2 * F) / curvature).all()):
            failed.append("step_size: 0 < η_B < 2λ(n−2F)/(n² + (n−F+1)(n−F)β²) (eq. (94))")
        sigma2_min_sq = (n - F) * (n + 1) / n**2 * (((n - F) * sigma_g**2 + F * R**2) / d + sigma1**2)
        if not bool((sigma2**2 >= sigma2_min_sq).all()):
            failed.append("sigma2: σ2² ≥ ((n−F)(n+1)/n²)(((n−F)σ_g² + F R²)/d + σ1²) (eq. (151), erratum E10)")
        if failed:
            raise ConditionError("ptr.thm5_2", failed)
    one_minus_rho = eta_B * (2 * lam_sc * (n - 2 * F) - eta_B * curvature)
    m_b = eta_B**2 * (n - F + 1) * ((n - F) * sigma_g**2 + d * sigma2**2) + (F / n) ** 2 * R**2
    return m_b / one_minus_rho
