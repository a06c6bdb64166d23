"""Generalized linear models with generalized PTR on the torch fast path (float64, broadcasting): seed 003 appendix
B.3.2–B.3.3 — Theorem B.3.6 (GLM output perturbation with Hessian-shaped noise) and Remark B.3.7 (logistic) with the
corrected tail 2 log(2/δ) and their γ calibration, Lemma B.3.4 (Hessian stability), Example B.3.5 (the logistic GSC
ratio), Example B.3.8 (the λ_min release noise, analytic Gaussian; erratum E7), Theorem B.3.9 (per-λ accounting),
Theorem B.3.11 (global sensitivity 2RL + β) and Proposition B.3.12. Mirrors ``dpspec.reference.gptr.glm``; Bach's
self-concordance convention throughout (erratum E6)."""
from __future__ import annotations

import math

import torch

from dpspec.reference.gptr import spec

from .._torch import params
from ..base.gaussian import gaussian_sigma
from ._common import refuse_outside
from .ops import quadratic_eps, quadratic_gamma_star, tail


def glm_coefficients(R, L, beta, alpha_sc, delta, printed: bool = False):
    """(log a, log b, c) of Theorem B.3.6: a = L²/α, b = √(L² t/α), c = R(L + β)(1 + t)/α, t = :func:`tail`
    (logs: :func:`.ops.quadratic_eps`)."""
    t = tail(delta, printed)
    log_L, log_alpha = torch.log(L), torch.log(alpha_sc)
    return 2 * log_L - log_alpha, log_L + (torch.log(t) - log_alpha) / 2, R * (L + beta) * (1 + t) / alpha_sc


def glm_epsilon(R, L, beta, alpha_sc, gamma, delta, allow_outside: bool = False) -> torch.Tensor:
    """ε(Z) ≤ R(L + β)(1 + t)/α + γL²/α + √(γL² t/α), t = 2 log(2/δ) (seed 003 Theorem B.3.6 with the corrected tail,
    ``gptr.thm_b3_6``); condition shape_term R(L + β) ≥ β/2."""
    R, L, beta, alpha_sc, gamma, delta = params(
        R=(R, spec.P_R_GSC.domain), L=(L, spec.P_L_LIP.domain), beta=(beta, spec.P_BETA_GLM.domain),
        alpha_sc=(alpha_sc, spec.P_ALPHA_SC.domain), gamma=(gamma, spec.P_GAMMA.domain),
        delta=(delta, spec.P_DELTA.domain))
    refuse_outside("gptr.thm_b3_6", [(spec.GLM_SHAPE_TERM, 2 * R * (L + beta) >= beta)], allow_outside)
    return quadratic_eps(gamma, *glm_coefficients(R, L, beta, alpha_sc, delta))


_LOGISTIC = (1.0, 1.0, 0.25)  # R, L, β of Remark B.3.7 (logistic loss, ‖x‖ ≤ 1, Bach's convention)


def _logistic_coefficients(alpha_sc, delta, printed=False):
    one = torch.ones_like(alpha_sc)
    R, L, beta = (v * one for v in _LOGISTIC)
    return glm_coefficients(R, L, beta, alpha_sc, delta, printed)


def logistic_epsilon(alpha_sc, gamma, delta) -> torch.Tensor:
    """ε(X) = 1.25(1 + t)/α + γ/α + √(γt/α), t = 2 log(2/δ) (seed 003 Remark B.3.7, corrected tail;
    ``gptr.rem_b3_7``)."""
    alpha_sc, gamma, delta = params(alpha_sc=(alpha_sc, spec.P_ALPHA_SC.domain), gamma=(gamma, spec.P_GAMMA.domain),
                                    delta=(delta, spec.P_DELTA.domain))
    return quadratic_eps(gamma, *_logistic_coefficients(alpha_sc, delta))


def logistic_gamma_star(eps, alpha_sc, delta, allow_outside: bool = False, printed: bool = False) -> torch.Tensor:
    """The largest γ with Remark B.3.7's ε(X) ≤ ε (``gptr.rem_b3_7_gamma``); refused where α ≤ 1.25(1 + t)/ε
    (condition gamma_feasible) unless ``allow_outside`` (then 0: ⊥). ``printed``: t = log(2/δ)."""
    eps, alpha_sc, delta = params(eps=(eps, spec.P_EPS.domain), alpha_sc=(alpha_sc, spec.P_ALPHA_SC.domain),
                                  delta=(delta, spec.P_DELTA.domain))
    a, b, c = _logistic_coefficients(alpha_sc, delta, printed)
    feasible_spec = spec.LOGISTIC_GAMMA_FEASIBLE_PRINTED if printed else spec.LOGISTIC_GAMMA_FEASIBLE
    refuse_outside("gptr.rem_b3_7_gamma", [(feasible_spec, c < eps)], allow_outside)
    return quadratic_gamma_star(eps, a, b, c)


# ---------------------------------------------------------------------------------------------------------------
# Lemma B.3.4, Example B.3.5, Example B.3.8, Theorem B.3.9, Theorem B.3.11, Proposition B.3.12


def lemma_b3_4(R, v_norm) -> torch.Tensor:
    """e^{R‖v‖}: the upper factor of e^{−R‖v‖}∇²F(θ) ⪯ ∇²F(θ + v) ⪯ e^{R‖v‖}∇²F(θ) under R-generalized
    self-concordance (seed 003 Lemma B.3.4(b); Bach 2010 Prop 1)."""
    R, v_norm = params(R=(R, spec.P_R_GSC.domain), v_norm=(v_norm, spec.P_HNORM.domain))
    return torch.exp(R * v_norm)


def ex_b3_5(s) -> torch.Tensor:
    """|l‴(s)|/l″(s) = |1 − e^s|/(1 + e^s) = |tanh(s/2)| for l = log(1 + e^s) (seed 003 Example B.3.5: logistic is
    1-GSC in Bach's convention)."""
    (s,) = params(s=(s, spec.P_MARGIN.domain))
    return torch.tanh(s / 2).abs()


def ex_b3_8(eps, delta, sensitivity) -> torch.Tensor:
    """σ = Δ_GS·σ_analytic(ε/2, δ/2): the λ_min release noise of Example B.3.8 step 4, corrected (erratum E7; the
    analytic Gaussian of ``fast.base.gaussian.gaussian_sigma``)."""
    eps, delta, sensitivity = params(eps=(eps, spec.P_EPS_POSITIVE.domain), delta=(delta, spec.P_DELTA.domain),
                                     sensitivity=(sensitivity, spec.POSITIVE))
    return sensitivity * gaussian_sigma(eps / 2, delta / 2)


def ex_b3_8_sigma_printed(eps, delta, sensitivity) -> torch.Tensor:
    """σ = Δ_GS√log(4/δ)/(ε/2), Example B.3.8 step 4 as printed (misses (ε/2, δ/2) for ε ≳ 0.5, erratum E7)."""
    eps, delta, sensitivity = params(eps=(eps, spec.P_EPS_POSITIVE.domain), delta=(delta, spec.P_DELTA.domain),
                                     sensitivity=(sensitivity, spec.POSITIVE))
    return sensitivity * torch.sqrt(math.log(4.0) - torch.log(delta)) / (eps / 2)


def thm_b3_9(eps, delta) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε, δ/2 + δ/2 + Φ̄(√(2 log(1/δ)))): Example B.3.8 per proposed λ with the corrected calibration (seed 003
    Theorem B.3.9 through Theorem 3.5.7, sum form; ``gptr.thm_b3_9``)."""
    eps, delta = params(eps=(eps, spec.P_EPS_POSITIVE.domain), delta=(delta, spec.P_DELTA.domain))
    return eps, delta + torch.exp(torch.special.log_ndtr(-torch.sqrt(-2 * torch.log(delta))))


def thm_b3_11(R, L, beta, lam, allow_outside: bool = False) -> torch.Tensor:
    """2RL + β: the global sensitivity of λ_min(∇²F(θ*_λ)) for λ ≥ RL (seed 003 Theorem B.3.11; condition
    lambda_ge_RL)."""
    R, L, beta, lam = params(R=(R, spec.P_R_GSC.domain), L=(L, spec.P_L_LIP.domain),
                             beta=(beta, spec.P_BETA_SMOOTH.domain), lam=(lam, spec.P_LAM.domain))
    refuse_outside("gptr.thm_b3_11", [(spec.LAMBDA_AT_LEAST_RL, lam >= R * L)], allow_outside)
    return 2 * R * L + beta


def prop_b3_12(g, g_tilde, alpha_F, alpha_Ft) -> torch.Tensor:
    """‖θ* − θ̃*‖ ≤ min{‖g̃‖_*/α, ‖g‖_*/α̃} (seed 003 Proposition B.3.12)."""
    g, g_tilde, alpha_F, alpha_Ft = params(g=(g, spec.P_GRAD.domain), g_tilde=(g_tilde, spec.P_GRAD_TILDE.domain),
                                           alpha_F=(alpha_F, spec.P_ALPHA_F.domain),
                                           alpha_Ft=(alpha_Ft, spec.P_ALPHA_FT.domain))
    return torch.minimum(g_tilde / alpha_F, g / alpha_Ft)
