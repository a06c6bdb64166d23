"""Kifer, Smith & Thakurta 2012 (COLT, Thm 2 / Algorithm 1) on the torch fast path (float64, broadcasting): the noise
calibration of objective perturbation as seed 003 prints it twice — Theorem 2.2.5 (chapter 2; σ for (ε1, δ), with the
σ-vs-σ² misprint as the ``printed`` form, erratum E1) and Theorem 4.2.8 (chapter 4; its inverse, the profile
δ_Kifer(ε) = min{1, 2 exp(−(ε²σ²/L² − 4ε)/8)} of Fig 4.1). Mirrors ``dpspec.reference.objpert.kifer``; both refuse
outside λ ≥ 2β/ε1 (condition kifer_lambda)."""
from __future__ import annotations

import math

import torch

from dpspec.reference.objpert import spec

from .._torch import params, refuse_outside

LOG2 = math.log(2.0)


def kifer_sigma(eps, delta, xi) -> torch.Tensor:
    """σ = ξ√(8 log(2/δ) + 4ε1)/ε1 (seed 003 Thm 2.2.5 corrected, Thm 4.2.8); log(2/δ) = log 2 − log δ (2/δ
    overflows for δ < 1e-308)."""
    eps, delta, xi = params(eps=(eps, spec.EPS_POSITIVE_C), delta=(delta, spec.P_DELTA.domain),
                            xi=(xi, spec.POSITIVE))
    return _sigma(eps, delta, xi)


def _sigma(eps, delta, xi):
    A = 8 * (LOG2 - torch.log(delta))
    # √(A + 4ε)/ε, as √(A/ε² + 4/ε) for ε ≥ 1 (A + 4ε overflows at ε ≈ 4e307); ξ·√(…) alone may overflow
    ratio = torch.where(eps >= 1, torch.sqrt(A / eps / eps + 4 / eps), torch.sqrt(A + 4 * eps) / eps)
    return xi * ratio


def thm2_2_5(eps, delta, xi, beta, lam, printed: bool = False, allow_outside: bool = False) -> torch.Tensor:
    """The noise σ of Algorithm 1 for (ε1, δ)-DP (seed 003 Thm 2.2.5, ``objpert.thm2_2_5``), condition λ ≥ 2β/ε1.
    ``printed``: σ = ξ²(8 log(2/δ) + 4ε1)/ε1² as printed (erratum E1, not a valid calibration)."""
    eps, delta, xi, beta, lam = params(
        eps=(eps, spec.P_EPS1_C.domain), delta=(delta, spec.P_DELTA.domain), xi=(xi, spec.POSITIVE),
        beta=(beta, spec.P_BETA_KIFER_C.domain), lam=(lam, spec.P_LAM_KIFER_C.domain))
    refuse_outside("objpert.thm2_2_5", [(spec.KIFER_LAMBDA_C, lam * eps >= 2 * beta)], allow_outside)
    if printed:
        r = xi / eps
        return r * r * (8 * (LOG2 - torch.log(delta)) + 4 * eps)
    return _sigma(eps, delta, xi)


def kifer_log_delta(eps: torch.Tensor, sigma: torch.Tensor, L: torch.Tensor) -> torch.Tensor:
    """log of 2 exp(−(ε²σ²/L² − 4ε)/8) capped at 0 (δ ≤ 1), unchecked: log 2 − (εσ/L)²/8 + ε/2."""
    r = eps * sigma / L
    return torch.clamp(LOG2 - r * r / 8 + eps / 2, max=0.0)


def thm4_2_8(eps, sigma, L, beta, lam, allow_outside: bool = False) -> torch.Tensor:
    """δ_Kifer(ε) = min{1, 2 exp(−(ε²σ²/L² − 4ε)/8)} (seed 003 Thm 4.2.8, ``objpert.thm4_2_8``), condition
    λ ≥ 2β/ε; with ``allow_outside`` the value there is 1 (no guarantee), as the reference's kifer_delta."""
    eps, sigma, L, beta, lam = params(
        eps=(eps, spec.P_EPS1_C.domain), sigma=(sigma, spec.P_SIGMA.domain), L=(L, spec.P_L.domain),
        beta=(beta, spec.P_BETA.domain), lam=(lam, spec.P_LAM.domain))
    ok = lam * eps >= 2 * beta
    refuse_outside("objpert.thm4_2_8", [(spec.KIFER_LAMBDA_C, ok)], allow_outside)
    return torch.where(ok, torch.exp(kifer_log_delta(eps, sigma, L)), torch.ones_like(eps))
