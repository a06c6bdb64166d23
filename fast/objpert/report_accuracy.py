"""The accuracy statements of seed 003's privacy reports on the torch fast path (float64, broadcasting): Thm 2.3.5 (3)
(``objpert.thm2_3_5_accuracy``), Prop A.3.5 (``objpert.prop_a3_5``) and Prop A.5.1 (``objpert.prop_a5_1``) — the
right-hand sides the reference registers (reference/objpert/report_accuracy.py, corrected with ε̄1 and the
noise-scaled additive term, errata E10, E11), with the same conditions and the same refusal words.

The GOE quantile τ(d, ρ) enters these three through their conditions only (λ ≥ 2σ3τ, λ_min ≥ 2σ3τ), decided as the
reference decides them: first by the cheap bounds √2·Φ⁻¹(1 − ρ/2) ≤ τ ≤ √2(2√d + √(2 log(2/ρ))) (reference
tau_bounds, with its 1e-20 relative margin replaced by float64's 1e-12), then, only for the points between them, by
the float64 quantile (fast/objpert/goe.py). Prop A.3.2 and Thm A.3.3, whose VALUES need τ at every point of their ρ
domain (down to 1e-300, where the float64 quantile refuses below 1e-280), have no fast path.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import DomainError
from dpspec.reference.objpert import spec

from .._torch import params, refuse_outside

THM235_FACTOR = 12.0  # Thm 2.3.5 (3)'s factor (reference report_accuracy.THM235_FACTOR)
_MARGIN = 1e-12  # relative margin around the τ bounds (float64 rounding of the bounds themselves)


def _c2(rho: torch.Tensor) -> torch.Tensor:
    """√(2 log(2/ρ)) = √(2(log 2 − log ρ)) (Lemma A.7.3; ρ down to 1e-300)."""
    return torch.sqrt(2 * (math.log(2.0) - torch.log(rho)))


def at_least_2_sigma3_tau(value: torch.Tensor, sigma3: torch.Tensor, d: torch.Tensor, rho: torch.Tensor) -> torch.Tensor:
    """value ≥ 2σ3τ(d, ρ) elementwise (module docstring): decided by the τ bounds where they decide, by the float64
    GOE quantile between them."""
    lo = math.sqrt(2.0) * (-torch.special.ndtri(rho / 2))
    hi = math.sqrt(2.0) * (2 * torch.sqrt(d) + _c2(rho))
    scale = 2 * sigma3
    yes = value >= scale * hi * (1 + _MARGIN)
    no = value < scale * lo * (1 - _MARGIN)
    out = yes.clone()
    band = ~(yes | no)
    if bool(band.any()):
        from .goe import goe_quantile

        tau = goe_quantile(d[band], rho[band])
        out[band] = value[band] >= scale[band] * tau
    return out


def _accuracy_params(eps1bar, grad, lam, beta, sigma, sigma2, sigma3, d, rho):
    return params(eps1bar=(eps1bar, spec.P_EPS1BAR.domain), grad=(grad, spec.P_GRAD.domain),
                  lam=(lam, spec.P_LAM.domain), beta=(beta, spec.P_HBETA.domain), sigma=(sigma, spec.P_SIGMA.domain),
                  sigma2=(sigma2, spec.P_SIGMA2.domain), sigma3=(sigma3, spec.P_SIGMA3.domain),
                  d=(d, spec.P_REPORT_DIM.domain), rho=(rho, spec.P_RHO.domain))


def _refuse_report(statement_id, lam, beta, sigma3, d, rho, allow_outside):
    """Algorithm 2's Require λ ≥ 2σ3τ(d, ρ) and the proof's λ ≥ 2β, in the reference's order."""
    if allow_outside:
        return
    refuse_outside(statement_id, [(spec.GOE_REQUIREMENT, at_least_2_sigma3_tau(lam, sigma3, d, rho)),
                                  (spec.LAMBDA_TWICE_BETA, lam >= 2 * beta)])


def thm2_3_5_accuracy(eps1bar, grad, lam, beta, sigma, sigma2, sigma3, d, rho, printed: bool = False,
                      allow_outside: bool = False) -> torch.Tensor:
    """12·ε̄1 + min{σ, 2σ2}·|f'|‖x‖·√(2 log(2/ρ))/σ² (seed 003 Thm 2.3.5 (3), corrected, errata E10, E11;
    ``objpert.thm2_3_5_accuracy``): w.p. 1 − 3ρ Algorithm 2 DATA-DEP reports ε1 ≤ ε^P_1 ≤ this. ``printed``: 12ε1 +
    |f'|‖x‖√(2 log(2/ρ))/σ² (not a bound). Conditions λ ≥ 2σ3τ(d, ρ) and λ ≥ 2β (ConditionError otherwise)."""
    e, g, lam, beta, sigma, sigma2, sigma3, d, rho = _accuracy_params(eps1bar, grad, lam, beta, sigma, sigma2,
                                                                      sigma3, d, rho)
    _refuse_report("objpert.thm2_3_5_accuracy", lam, beta, sigma3, d, rho, allow_outside)
    scale = torch.ones_like(sigma) if printed else torch.minimum(sigma, 2 * sigma2)
    return THM235_FACTOR * e + scale * g * _c2(rho) / sigma**2


def prop_a3_5(eps1bar, grad, lam, beta, sigma, sigma2, sigma3, d, rho, n, part, printed: bool = False,
              allow_outside: bool = False) -> torch.Tensor:
    """Seed 003 Prop A.3.5, corrected (``objpert.prop_a3_5``): part 'users' — 12ε̄1 + min{σ, 2σ2}·|f'|‖x‖·√(2 log(2n/ρ))
    /σ² simultaneously for the n users; 'domain' — 12ε̄1 + |f'|‖x‖₁√(2 log(2d/ρ))/σ for all x (``grad`` = |f'|‖x‖₁).
    ``printed``: log(n/ρ) and no noise scale for 'users' (not a bound). Conditions as Thm 2.3.5 (3)."""
    if part not in spec.P_PART.domain.options:
        raise DomainError("part", part, spec.P_PART.domain.describe())
    e, g, lam, beta, sigma, sigma2, sigma3, d, rho = _accuracy_params(eps1bar, grad, lam, beta, sigma, sigma2,
                                                                      sigma3, d, rho)
    (n,) = params(n=(n, spec.P_USERS.domain))
    _refuse_report("objpert.prop_a3_5", lam, beta, sigma3, d, rho, allow_outside)
    if part == "domain":
        return THM235_FACTOR * e + g * torch.sqrt(2 * (torch.log(2 * d) - torch.log(rho))) / sigma
    if printed:
        return THM235_FACTOR * e + g * torch.sqrt(2 * (torch.log(n) - torch.log(rho))) / sigma**2
    return THM235_FACTOR * e + torch.minimum(sigma, 2 * sigma2) * g * torch.sqrt(
        2 * (torch.log(2 * n) - torch.log(rho))) / sigma**2


def prop_a5_1(lam_min, sigma3, d, rho, allow_outside: bool = False) -> torch.Tensor:
    """3/2 (seed 003 Prop A.5.1, ``objpert.prop_a5_1``): if λ_min(H) ≥ 2σ3τ(d, ρ), w.p. 1 − ρ
    ½xᵀĤP⁻¹x ≤ xᵀH⁻¹x ≤ (3/2)xᵀĤP⁻¹x for all x (the value is the upper factor). ConditionError outside."""
    lam_min, sigma3, d, rho = params(lam_min=(lam_min, spec.P_LAM_MIN.domain), sigma3=(sigma3, spec.P_SIGMA3.domain),
                                     d=(d, spec.P_REPORT_DIM.domain), rho=(rho, spec.P_RHO.domain))
    if not allow_outside:
        refuse_outside("objpert.prop_a5_1",
                       [(spec.LAMMIN_ABOVE_GOE, at_least_2_sigma3_tau(lam_min, sigma3, d, rho))])
    return torch.full_like(lam_min, 1.5)
