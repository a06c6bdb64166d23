"""Approximate minima perturbation (AMP) on the torch fast path (float64, broadcasting): seed 003 Theorem 4.4.1 (RDP
of Algorithm 7, objective perturbation with gradient clipping, approximate minimiser ‖∇L^P_C(θ̃)‖ ≤ τ, output noise
N(0, σ_out² I)) and Theorem C.6.1 (Algorithm 16, AMP of Iyengar et al. 2019, corrected proof). Mirrors
``dpspec.reference.objpert.amp``: the ObjPert RDP of Thm 4.3.2 (``glm_bounds.objpert_rdp``, L := C) plus the Gaussian
RDP (2τ/λ)²α/(2σ_out²) of the sensitivity-2τ/λ release of θ̃ − θ^P (Remark 4.4.2)."""
from __future__ import annotations

import torch

from dpspec.reference.objpert import spec

from .._torch import params, refuse_outside
from .glm_bounds import jacobian_term, log2phi_term, quadratic_term


def gaussian_step_rdp(alpha: torch.Tensor, sigma_out: torch.Tensor, lam: torch.Tensor, tau: torch.Tensor):
    """(2τ/λ)²α/(2σ_out²) = 2α(τ/(λσ_out))² (seed 003 Thm 4.4.1, last term), unchecked tensors; formed as a square of
    a ratio so that nothing over- or underflows before the result does."""
    r = tau / lam / sigma_out
    out = (alpha * r) * r * 2  # not 2α first: 2α overflows at α ≈ 1.8e308 (inf·0 = NaN at τ = 0)
    return torch.where(r == 0, torch.zeros_like(out), out)


def _amp(sid, alpha, sigma, sigma_out, lam, beta, C, tau, c_name, allow_outside):
    alpha, sigma, sigma_out, lam, beta, C, tau = params(
        alpha=(alpha, spec.P_ALPHA.domain), sigma=(sigma, spec.P_SIGMA.domain),
        sigma_out=(sigma_out, spec.P_SIGMA_OUT.domain), lam=(lam, spec.P_LAM.domain), beta=(beta, spec.P_BETA.domain),
        **{c_name: (C, spec.P_CLIP.domain if c_name == "C" else spec.P_L.domain)}, tau=(tau, spec.P_TAU.domain))
    refuse_outside(sid, [(spec.LAMBDA_ABOVE_BETA, lam > beta)], allow_outside)
    v = C / sigma
    objpert = jacobian_term(beta, lam) + quadratic_term(alpha, v) + log2phi_term(alpha, v)
    return objpert + gaussian_step_rdp(alpha, sigma_out, lam, tau)


def amp_rdp(alpha, sigma, sigma_out, lam, beta, C, tau, allow_outside: bool = False) -> torch.Tensor:
    """ε(α) ≤ −log(1 − β/λ) + αC²/(2σ²) + log(2Φ((α − 1)C/σ))/(α − 1) + 2τ²α/(σ_out²λ²) (seed 003 Thm 4.4.1,
    ``objpert.thm4_4_1``); condition λ > β."""
    return _amp("objpert.thm4_4_1", alpha, sigma, sigma_out, lam, beta, C, tau, "C", allow_outside)


def thm_c6_1(alpha, sigma, sigma_out, lam, beta, L, tau, allow_outside: bool = False) -> torch.Tensor:
    """Theorem 4.4.1 with the Lipschitz constant L for C (seed 003 Thm C.6.1, Algorithm 16 = AMP without clipping,
    ``objpert.thm_c6_1``); condition λ > β."""
    return _amp("objpert.thm_c6_1", alpha, sigma, sigma_out, lam, beta, L, tau, "L", allow_outside)
