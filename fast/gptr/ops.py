"""One-posterior-sample (OPS) ridge regression and GLM output perturbation with generalized PTR on the torch fast path
(float64, broadcasting: a column of λ candidates against a row of γ, or against a batch of datasets' λ_min, L):
seed 003 Theorem 3.6.1 (Wang 2017; the data-dependent ε of OPS, add/remove) and its γ* calibration (notes
generalized-ptr.md §2.3, §8), Algorithm 14's ε(γ) (directions corrected, erratum E5), Example 3.6.2's accounting,
Lemmas B.4.2 / B.4.3, Algorithm 15 / Theorem B.4.1 (corrected and printed calibrations, erratum E7). Mirrors
``dpspec.reference.gptr.ops``; the GLM statements (Theorem B.3.6, Remark B.3.7) are in :mod:`.glm`.

Tail factor (reference/gptr/ops.py): the corrected bounds (the defaults, as the reference's) use t = 2 log(2/δ) where
the text prints log(2/δ) (a Gaussian tail needs 2 log(2/δ)); ``printed=True`` gives the text's t = log(2/δ).

All three ε forms are  ε(γ) = a·γ + b·√γ + c  with a, b, c ≥ 0 independent of γ, so the largest γ with ε(γ) ≤ ε is
γ* = s², s = 2(ε − c)/(b + √(b² + 4a(ε − c))) (the stable root: no cancellation of −b + √(…) when a is tiny, notes
§8); feasible iff c < ε. log(2/δ) is log 2 − log δ (δ down to 1e-300).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.gptr import spec

from .._torch import params
from ..base.gaussian import gaussian_sigma, log_delta_sigma
from ._common import log_2_over, refuse_outside

# ---------------------------------------------------------------------------------------------------------------
# the quadratic in √γ


def quadratic_eps(gamma, log_a, log_b, c) -> torch.Tensor:
    """a·γ + b·√γ + c on tensors, from log a and log b (−inf for a zero coefficient): the coefficients of the texts
    overflow or fall subnormal long before ε does (λ = 1e308 gives a ≈ 2e-308 and lost digits; ‖𝒳‖ = 1e308 gave
    inf/inf = NaN), their logarithms never do."""
    log_gamma = torch.log(gamma)
    return torch.exp(log_a + log_gamma) + torch.exp(log_b + log_gamma / 2) + c


def quadratic_gamma_star(eps, log_a, log_b, c) -> torch.Tensor:
    """The largest γ ≥ 0 with aγ + b√γ + c ≤ ε: s², s = 2(ε − c)/(b + √(b² + 4a(ε − c))), evaluated in logs
    (log s = log 2 + log(ε − c) − log(b + √(b² + 4a(ε − c))), each sum a logaddexp); 0 where c ≥ ε (no γ > 0
    meets ε: ⊥, the caller refuses or outputs ⊥); +inf where a = b = 0 < ε − c."""
    slack = eps - c
    feasible = slack > 0
    log_sl = torch.log(torch.where(feasible, slack, torch.ones_like(slack)))
    log_disc = torch.logaddexp(2 * log_b, log_a + math.log(4) + log_sl)  # log(b² + 4a(ε − c))
    log_s = math.log(2) + log_sl - torch.logaddexp(log_b, log_disc / 2)
    return torch.where(feasible, torch.exp(2 * log_s), torch.zeros_like(slack))


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.6.1 (OPS ridge regression)


def tail(delta: torch.Tensor, printed: bool = False) -> torch.Tensor:
    """t = 2 log(2/δ) (corrected) or log(2/δ) (printed, seed 003 Theorem 3.6.1 / B.3.6 / Remark B.3.7)."""
    return log_2_over(delta) if printed else 2 * log_2_over(delta)


def ops_coefficients(lam, lam_min, L, x_norm, delta, printed: bool = False):
    """(log a, log b, c) of Theorem 3.6.1: a = L²/(2(λ* + ‖𝒳‖²)), b = √(L² t/λ*), c = (1 + t)‖𝒳‖²/(2λ*),
    λ* = λ + λ_min, t = :func:`tail` (the third term's grouping reconstructed, notes §2.3 [R]). λ* + ‖𝒳‖² as
    hypot(√λ*, ‖𝒳‖)² and ‖𝒳‖²/λ* as (‖𝒳‖/√λ*)²: no intermediate overflows where the answer is a double."""
    root = torch.sqrt(lam + lam_min)
    x_norm = torch.as_tensor(x_norm, dtype=root.dtype, device=root.device)
    t = tail(delta, printed)
    log_L = torch.log(L)
    log_a = 2 * log_L - math.log(2) - 2 * torch.log(torch.hypot(root, x_norm))
    log_b = log_L + torch.log(t) / 2 - torch.log(root)
    return log_a, log_b, (1 + t) * (x_norm / root) ** 2 / 2


def _ops_args(first, first_param, lam, lam_min, L, x_norm, delta, lam_min_param=spec.P_LAM_MIN, L_param=spec.P_L):
    return params(**{first_param.name: (first, first_param.domain)}, lam=(lam, spec.P_LAM.domain),
                  **{lam_min_param.name: (lam_min, lam_min_param.domain), L_param.name: (L, L_param.domain)},
                  x_norm=(x_norm, spec.P_X_NORM.domain), delta=(delta, spec.P_DELTA.domain))


def ops_epsilon(gamma, lam, lam_min, L, x_norm, delta, allow_outside: bool = False) -> torch.Tensor:
    """ε_φ(Z) = √(γL² t/λ*) + γL²/(2(λ* + ‖𝒳‖²)) + (1 + t)‖𝒳‖²/(2λ*), λ* = λ + λ_min(X), t = 2 log(2/δ) (seed 003
    Theorem 3.6.1 = Wang 2017 with the corrected tail; add/remove; ``gptr.thm3_6_1``). ConditionError where λ* = 0
    unless ``allow_outside`` (then +inf)."""
    gamma, lam, lam_min, L, x_norm, delta = _ops_args(gamma, spec.P_GAMMA, lam, lam_min, L, x_norm, delta)
    refuse_outside("gptr.thm3_6_1", [(spec.LAMBDA_STAR_POSITIVE, lam + lam_min > 0)], allow_outside)
    return quadratic_eps(gamma, *ops_coefficients(lam, lam_min, L, x_norm, delta))


def ops_epsilon_printed(gamma, lam, lam_min, L, x_norm, delta) -> torch.Tensor:
    """Theorem 3.6.1 as printed (t = log(2/δ)); not a bound on the witness of reference/gptr/ops.py."""
    gamma, lam, lam_min, L, x_norm, delta = _ops_args(gamma, spec.P_GAMMA, lam, lam_min, L, x_norm, delta)
    return quadratic_eps(gamma, *ops_coefficients(lam, lam_min, L, x_norm, delta, printed=True))


def ops_gamma_star(eps, lam, lam_min, L, x_norm, delta, allow_outside: bool = False,
                   printed: bool = False) -> torch.Tensor:
    """γ* = sup{γ > 0 : ε_φ(Z) ≤ ε} of Theorem 3.6.1 (Example 3.6.2, Algorithm 14 line 6; ``gptr.thm3_6_1_gamma``),
    the stable root of the quadratic in √γ. Refused (ConditionError, conditions lambda_star_positive /
    gamma_feasible) where λ* = 0 or c = (1 + t)‖𝒳‖²/(2λ*) ≥ ε, as the reference refuses; with ``allow_outside``
    those points give 0 (⊥: Algorithm 14 outputs ⊥ there) — the batched calibration of :mod:`.algorithms` uses that
    form. ``printed``: the text's tail t = log(2/δ)."""
    eps, lam, lam_min, L, x_norm, delta = _ops_args(eps, spec.P_EPS, lam, lam_min, L, x_norm, delta)
    positive = lam + lam_min > 0
    lam = torch.where(positive, lam, torch.ones_like(lam))
    a, b, c = ops_coefficients(lam, lam_min, L, x_norm, delta, printed)
    feasible_spec = spec.OPS_GAMMA_FEASIBLE_PRINTED if printed else spec.OPS_GAMMA_FEASIBLE
    # at λ* = 0 the constant term c = (1 + t)‖𝒳‖²/(2λ*) is +inf: both conditions fail there, as in the reference
    refuse_outside("gptr.thm3_6_1_gamma", [(spec.LAMBDA_STAR_POSITIVE, positive),
                                           (feasible_spec, positive & (c < eps))], allow_outside)
    gamma = quadratic_gamma_star(eps, a, b, c)
    return torch.where(positive, gamma, torch.zeros_like(gamma))


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 14, Example 3.6.2


def alg14_lipschitz(Delta_p: torch.Tensor, x_norm: torch.Tensor) -> torch.Tensor:
    """L̃ = ‖𝒳‖e^{Δ^P} (seed 003 Algorithm 14 line 4)."""
    return x_norm * torch.exp(Delta_p)


def _alg14_args(first, first_param, lam, lam_min_p, Delta_p, x_norm, delta):
    return params(**{first_param.name: (first, first_param.domain)}, lam=(lam, spec.P_LAM.domain),
                  lam_min_p=(lam_min_p, spec.P_LAM_MIN_P.domain), Delta_p=(Delta_p, spec.P_DELTA_P.domain),
                  x_norm=(x_norm, spec.P_X_NORM.domain), delta=(delta, spec.P_DELTA.domain))


def alg14_epsilon(gamma, lam, lam_min_p, Delta_p, x_norm, delta, allow_outside: bool = False) -> torch.Tensor:
    """ε(γ) of Algorithm 14 line 5: Theorem 3.6.1 at λ* = λ + λ^P_min and L̃ = ‖𝒳‖e^{Δ^P} (an upper bound of ε_φ(Z)
    on the event λ^P_min ≤ λ_min, Δ^P ≥ Δ: line 3's directions corrected, erratum E5)."""
    gamma, lam, lam_min_p, Delta_p, x_norm, delta = _alg14_args(gamma, spec.P_GAMMA, lam, lam_min_p, Delta_p, x_norm,
                                                                delta)
    refuse_outside("gptr.alg14", [(spec.LAMBDA_STAR_POSITIVE, lam + lam_min_p > 0)], allow_outside)
    a, b, c = ops_coefficients(lam, lam_min_p, alg14_lipschitz(Delta_p, x_norm), x_norm, delta)
    return quadratic_eps(gamma, a, b, c)


def alg14_gamma_star(eps, lam, lam_min_p, Delta_p, x_norm, delta, printed: bool = False) -> torch.Tensor:
    """γ* of Algorithm 14 line 6 at the released (λ^P_min, Δ^P), 0 where no γ > 0 is feasible (line 7: ⊥); no
    refusal (a batch over λ candidates keeps its infeasible entries as 0). ``printed``: the text's tail."""
    eps, lam, lam_min_p, Delta_p, x_norm, delta = _alg14_args(eps, spec.P_EPS, lam, lam_min_p, Delta_p, x_norm, delta)
    lam_star_ok = lam + lam_min_p > 0
    lam = torch.where(lam_star_ok, lam, torch.ones_like(lam))
    gamma = quadratic_gamma_star(eps, *ops_coefficients(lam, lam_min_p, alg14_lipschitz(Delta_p, x_norm), x_norm,
                                                        delta, printed))
    return torch.where(lam_star_ok, gamma, torch.zeros_like(gamma))


def ex3_6_2(eps, eps_hat, delta, delta_hat, delta_prime_1, delta_prime_2) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε + ε̂, δ + δ̂ + δ′₁ + δ′₂): OPS-PTR (seed 003 Example 3.6.2 / Algorithm 14 through Theorem 3.5.7, the sum
    form printed in the text; δ′ = δ′₁ + δ′₂ by a union bound)."""
    eps, eps_hat, delta, delta_hat, dp1, dp2 = params(
        eps=(eps, spec.P_EPS.domain), eps_hat=(eps_hat, spec.P_EPS_HAT.domain), delta=(delta, spec.P_DELTA.domain),
        delta_hat=(delta_hat, spec.P_DELTA_HAT.domain), delta_prime_1=(delta_prime_1, spec.P_DELTA_PRIME_1.domain),
        delta_prime_2=(delta_prime_2, spec.P_DELTA_PRIME_2.domain))
    return eps + eps_hat, delta + delta_hat + (dp1 + dp2)


# ---------------------------------------------------------------------------------------------------------------
# Lemmas B.4.2, B.4.3; Algorithm 15 / Theorem B.4.1


def lemma_b4_2(lam, lam_min, x_norm, allow_outside: bool = False) -> torch.Tensor:
    """log(1 + ‖𝒳‖²/(λ + λ_min − ‖𝒳‖²)): the local sensitivity of log(‖𝒴‖ + ‖𝒳‖‖θ*_λ‖) under add/remove (seed 003
    Lemma B.4.2 = Wang 2018 Lemma 12, with the removal side's λ* lowered by ‖𝒳‖² (Weyl), as the reference's
    ``gptr.lemma_b4_2``); condition removal_lambda_positive (+inf outside with ``allow_outside``)."""
    lam, lam_min, x_norm = params(lam=(lam, spec.P_LAM.domain), lam_min=(lam_min, spec.P_LAM_MIN.domain),
                                  x_norm=(x_norm, spec.P_X_NORM.domain))
    x2 = x_norm * x_norm
    ok = lam + lam_min > x2
    refuse_outside("gptr.lemma_b4_2", [(spec.REMOVAL_LAMBDA_POSITIVE, ok)], allow_outside)
    out = torch.log1p(x2 / torch.where(ok, lam + lam_min - x2, torch.ones_like(lam)))
    return torch.where(ok, out, torch.full_like(out, math.inf))


def lemma_b4_2_printed(lam, lam_min, x_norm) -> torch.Tensor:
    """log(1 + ‖𝒳‖²/(λ_min + λ)), seed 003 Lemma B.4.2 as printed (parenthesis fixed)."""
    lam, lam_min, x_norm = params(lam=(lam, spec.P_LAM.domain), lam_min=(lam_min, spec.P_LAM_MIN.domain),
                                  x_norm=(x_norm, spec.P_X_NORM.domain))
    return torch.log1p(x_norm * x_norm / (lam_min + lam))


def lemma_b4_3(x_norm) -> torch.Tensor:
    """‖𝒳‖²: the global sensitivity of λ_min(XᵀX) under add/remove (seed 003 Lemma B.4.3, Weyl)."""
    (x_norm,) = params(x_norm=(x_norm, spec.P_X_NORM.domain))
    return x_norm * x_norm


def alg15_sigma_printed(eps: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
    """σ/Δ = √log(6/δ)/(ε/4) of Algorithm 15 lines 3 and 5 as printed ([R] notes §2.7; erratum E7)."""
    return torch.sqrt(math.log(6.0) - torch.log(delta)) / (eps / 4)


def alg15_sigma(eps: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
    """The corrected Algorithm 15 calibration: the analytic-Gaussian σ/Δ for (ε/4, δ/6) per release
    (``fast.base.gaussian.gaussian_sigma``)."""
    return gaussian_sigma(eps / 4, delta / 6)


def alg15_margin(delta: torch.Tensor, sigma_ratio: torch.Tensor) -> torch.Tensor:
    """The one-sided shift of Algorithm 15's releases in units of Δ: (σ/Δ)·√(2 log(2/δ))."""
    return sigma_ratio * torch.sqrt(2 * log_2_over(delta))


def alg15_false_positive(delta: torch.Tensor) -> torch.Tensor:
    """δ′ = 2Φ̄(√(2 log(2/δ))) (each release shifted by σ√(2 log(2/δ)); exp of log Φ, no underflow of Φ̄ to 0 before
    δ′ itself does)."""
    return 2 * torch.exp(torch.special.log_ndtr(-torch.sqrt(2 * log_2_over(delta))))


def release_delta(eps, sensitivity, sigma) -> torch.Tensor:
    """The exact analytic-Gaussian δ at ε of a Gaussian release with sensitivity Δ and noise σ (Balle & Wang 2018,
    Thm 8, at noise σ/Δ: ``fast.base.gaussian.log_delta_sigma``); erratum E7's evidence."""
    eps, sensitivity, sigma = params(eps=(eps, spec.P_EPS.domain), sensitivity=(sensitivity, spec.POSITIVE),
                                     sigma=(sigma, spec.POSITIVE))
    return torch.exp(log_delta_sigma(eps, sigma / sensitivity))


def thm_b4_1(eps, delta) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε, δ/6 + δ/6 + δ/3 + 2Φ̄(√(2 log(2/δ)))): Algorithm 15 with the corrected (analytic-Gaussian) releases
    (ε/4, δ/6) each, OPS at (ε/2, δ/3) and the releases' false positive δ′ (seed 003 Theorem B.4.1 through Theorem
    3.5.7, sum form; [R] split of notes §2.7)."""
    eps, delta = params(eps=(eps, spec.P_EPS_POSITIVE.domain), delta=(delta, spec.P_DELTA.domain))
    return eps, 2 * (delta / 6) + delta / 3 + alg15_false_positive(delta)
