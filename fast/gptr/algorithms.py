"""Seed 003's PTR algorithms on the torch fast path: Algorithm 3 (classic PTR), 4 (generalized PTR), 5 (PTR with
hyperparameter selection, Liu–Talwar random stopping), 6 (PATE-PTR over a T × C vote tensor), 14 and 15 (OPS-PTR for
ridge regression over a batch of λ candidates: one eigen-decomposition of XᵀX reused for every λ). Each returns the
release together with its privacy accounting (the catalogue statements' fast evaluators), and draws its randomness
from a ``torch.Generator`` (None: torch's default generator). Mirrors reference/gptr/algorithms.py,
smooth_sensitivity.py (``alg6_pate_ptr``) and regression_algorithms.py; notes generalized-ptr.md §4.

⊥ is a mask: every result carries ``passed`` (a bool tensor, False where the algorithm outputs ⊥) and the release
tensor holds 0 at those entries (never NaN). Batching: Algorithm 3's inputs broadcast (many datasets or repetitions
in one call); Algorithm 4 calls the given mechanism and upper bound once each on the generator; Algorithm 5 runs all
T̂ calls of Algorithm 4 as one batch (``run`` receives the vector of drawn candidate indices); Algorithms 14/15 run
every λ of a vector at once (the per-λ releases use independent noise, as separate runs would).
"""
from __future__ import annotations

import math
from typing import Any, Callable, NamedTuple

import torch

from dpspec.reference.errors import DomainError, ParameterError
from dpspec.reference.gptr import spec

from .._torch import as_tensor, params
from ..base.gaussian import gaussian_sigma
from . import ops, pate
from ._common import log_2_over, refuse_outside
from .generalized import gptr_budget
from .prelims import classic_ptr


class Outcome(NamedTuple):
    """A release (0 where ⊥), the ⊥ mask ``passed``, the accounting (ε, δ) and run details."""

    release: Any
    passed: torch.Tensor
    eps: torch.Tensor
    delta: torch.Tensor
    details: dict


def _generator(generator: torch.Generator | None) -> torch.Generator | None:
    if generator is not None and not isinstance(generator, torch.Generator):
        raise ParameterError(f"generator must be a torch.Generator (or None), got {type(generator).__name__}")
    return generator


def _laplace(shape, scale: torch.Tensor, generator) -> torch.Tensor:
    """Lap(0, scale) by inversion: −scale·sign(u)·log(1 − 2|u|), u ~ U(−½, ½)."""
    u = torch.rand(shape, dtype=torch.float64, generator=generator, device=scale.device) - 0.5
    return -scale * torch.sign(u) * torch.log1p(-2 * u.abs())


def _normal(shape, generator, like: torch.Tensor) -> torch.Tensor:
    return torch.randn(shape, dtype=torch.float64, generator=generator, device=like.device)


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 3 (classic PTR) and Algorithm 4 (generalized PTR)


def alg3_classic_ptr(value, distance, eps, delta, beta, generator: torch.Generator | None = None) -> Outcome:
    """Seed 003 Algorithm 3 (Dwork & Lei 2009): ⊥ if D_β(X) + Lap(1/ε) ≤ log(1/δ)/ε, else f(X) + Lap(β/ε).
    ``value`` = f(X), ``distance`` = D_β(X) (integers ≥ 0), β > 0; all broadcast (one run per element).
    Accounting (2ε, δ) (``gptr.thm3_3_4``; exactly (2ε, δ/2) in the worst case)."""
    generator = _generator(generator)
    value = as_tensor(value, name="value")
    eps_total, delta_total = classic_ptr(*params(eps=(eps, spec.POSITIVE), delta=(delta, spec.P_DELTA.domain)))
    distance, eps, delta, beta = params(distance=(distance, spec.INSTABILITY_DISTANCE), eps=(eps, spec.POSITIVE),
                                        delta=(delta, spec.P_DELTA.domain), beta=(beta, spec.POSITIVE))
    value, distance, eps, delta, beta = torch.broadcast_tensors(value.to(distance.device), distance, eps, delta, beta)
    noisy = distance + _laplace(distance.shape, 1 / eps, generator)
    passed = noisy > -torch.log(delta) / eps
    release = torch.where(passed, value + _laplace(value.shape, beta / eps, generator), torch.zeros_like(value))
    return Outcome(release, passed, eps_total, delta_total, {"noisy_distance": noisy})


def alg4_generalized_ptr(mechanism: Callable, upper_bound: Callable, eps, eps_hat, delta, delta_hat, delta_prime,
                         generator: torch.Generator | None = None, form: str = "max") -> Outcome:
    """Seed 003 Algorithm 4 with Theorem 3.5.7's test: ε^P = ``upper_bound(generator)`` (an (ε̂, δ̂)-DP release ≥ ε_φ(X)
    w.p. 1 − δ′, a tensor), pass iff ε^P < ε, release ``mechanism(generator)`` where passed. Accounting
    ``gptr.thm3_5_3``: (ε + ε̂, δ̂ + max(δ, δ′)) (``form="sum"``: as printed)."""
    generator = _generator(generator)
    eps_total, delta_total = gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form=form)
    bound = as_tensor(upper_bound(generator), name="upper_bound")
    passed = bound < as_tensor(eps, like=bound)
    theta = as_tensor(mechanism(generator), name="mechanism")
    mask = passed.reshape(passed.shape + (1,) * max(theta.ndim - passed.ndim, 0))
    release = torch.where(mask, theta, torch.zeros_like(theta))
    return Outcome(release, passed, eps_total, delta_total, {"upper_bound": bound})


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 5 (Liu–Talwar random stopping)


def alg5_cutoff(tau, delta_2) -> int:
    """The integer cut-off ⌈(1/τ) log(1/δ2)⌉ (reference ``alg5_cutoff``; P[G > T] ≤ δ2)."""
    tau, delta_2 = params(tau=(tau, spec.TAU), delta_2=(delta_2, spec.P_DELTA.domain))
    return int(math.ceil(float(-torch.log(delta_2) / tau)))


def alg5_ptr_selection(run: Callable, score: Callable, k: int, eps_star, delta_star, tau, delta_2,
                       generator: torch.Generator | None = None) -> Outcome:
    """Seed 003 Algorithm 5: T = ⌈(1/τ) log(1/δ2)⌉, G ~ Geometric(τ) on {1, 2, …}, T̂ = min(T, G); T̂ candidates
    drawn uniformly from k, all run at once: ``run(indices, generator)`` → (releases (T̂, …), passed (T̂,)), each
    call of Algorithm 4 (ε*, δ*)-DP; the release is (index, release) of the highest ``score(releases)`` among the
    passed calls (⊥ where none passed). Accounting ``gptr.thm3_5_6`` at the integer cut-off:
    (3ε* + 3√(2δ*), √(2δ*)·T + δ2)."""
    generator = _generator(generator)
    if int(k) < 1:
        raise DomainError("k", k, "integers in [1, inf)")
    eps_star, delta_star, tau, delta_2 = params(eps_star=(eps_star, spec.P_EPS_STAR.domain),
                                                delta_star=(delta_star, spec.P_DELTA_STAR.domain),
                                                tau=(tau, spec.TAU), delta_2=(delta_2, spec.P_DELTA.domain))
    cutoff = alg5_cutoff(tau, delta_2)
    u = torch.rand((), dtype=torch.float64, generator=generator)
    g = 1 if float(tau) == 1 else int(math.floor(math.log1p(-float(u)) / math.log1p(-float(tau)))) + 1
    t_hat = min(cutoff, g)
    idx = torch.randint(int(k), (t_hat,), generator=generator)
    releases, passed = run(idx, generator)
    passed = torch.as_tensor(passed, dtype=torch.bool)
    scores = torch.where(passed, as_tensor(score(releases), name="score"), torch.tensor(-math.inf, dtype=torch.float64))
    best = int(torch.argmax(scores))
    root = torch.sqrt(2 * delta_star)
    any_passed = bool(passed.any())
    return Outcome((int(idx[best]), releases[best]) if any_passed else None, torch.tensor(any_passed),
                   3 * eps_star + 3 * root, root * cutoff + delta_2,
                   {"T": cutoff, "G": g, "T_hat": t_hat, "tried": idx, "scores": scores})


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 6 (PATE-PTR)


def alg6_pate_ptr(votes, sigma_1, eps_hat, eps_prime, delta, generator: torch.Generator | None = None, *,
                  teachers=None, corrected: bool = True) -> Outcome:
    """Seed 003 Algorithm 6 (PATE-PTR) over a (T, C) vote tensor (the clean version of notes §4, as
    reference ``alg6_pate_ptr``): line 2 α = 2 log(2/δ)/ε̂ + 1, σ_s = σ2 = √((3α+2)/ε̂), δ2 = δ/2, β = 0.2/α;
    line 3 GNMax labels argmax_j(n_j + N(0, σ1²)) for all T queries at once; line 4 E(X) = Σ_t β(q̃_t) (Papernot's
    data-dependent RDP at α); line 5 SS_β(X) (the vectorised walk of :func:`.pate.local_sensitivities`); line 6
    μ = log SS + βσ2 Z2 + √(2 log(2/δ2)) σ2 β; line 7 upper = E + SS σ_s Z1 + σ_s √(2 log(2/δ2)) e^μ (Lemma 3.6.5);
    line 8 ε_σ1 = upper + log(2/δ)/(α − 1); line 9 release the labels iff ε′ ≥ ε_σ1. Accounting ``gptr.thm3_6_6``:
    (ε′ + ε̂_test, δ) (``corrected``; the printed (ε′ + ε̂, δ) otherwise). Bad votes (not integer histograms, or rows
    not summing to ``teachers``) raise ConditionError."""
    generator = _generator(generator)
    v = pate.as_votes(votes)
    if v.ndim != 2:
        raise DomainError("votes", f"shape {tuple(v.shape)}",
                          "an (m, d) array of finite reals (JSON on the command line)")
    K = int(v.sum(-1)[0]) if pate.votes_ok(v) else 0
    refuse_outside("gptr.thm3_6_6", [(spec.VOTES_COUNTS, pate.votes_ok(v)),
                                          (spec.VOTES_SUM, teachers is None or pate.votes_sum_ok(v, teachers))])
    sigma_1, eps_hat, eps_prime, delta = params(sigma_1=(sigma_1, spec.P_GNMAX_SIGMA.domain),
                                                eps_hat=(eps_hat, spec.POSITIVE),
                                                eps_prime=(eps_prime, spec.P_EPS_PRIME.domain),
                                                delta=(delta, spec.P_DELTA.domain))
    alpha, sigma_s, beta = pate._constants(eps_hat, delta)
    sigma_2, delta_2 = sigma_s, delta / 2
    labels = torch.argmax(v + sigma_1 * _normal(v.shape, generator, v), dim=-1)
    E = pate.data_dependent_rdp_beta(v, sigma_1, alpha)
    SS = pate._smooth_sensitivity(v, sigma_1, alpha, beta, K)
    c = torch.sqrt(2 * log_2_over(delta_2))
    z = _normal((2,), generator, v)
    mu = torch.log(SS) + beta * sigma_2 * z[1] + c * sigma_2 * beta
    upper = torch.where(SS > 0, E + SS * sigma_s * z[0] + sigma_s * c * torch.exp(mu), E)
    eps_sigma1 = upper + log_2_over(delta) / (alpha - 1)
    passed = eps_prime >= eps_sigma1
    cost = pate.test_cost(eps_hat, delta) if corrected else eps_hat
    details = {"alpha": alpha, "sigma_s": sigma_s, "beta": beta, "rdp": E, "smooth_sensitivity": SS, "mu": mu,
               "upper": upper, "eps_sigma1": eps_sigma1, "labels": labels,
               "gnss_rdp": pate.gnss_exact(alpha, beta, sigma_s) + alpha / (2 * sigma_2**2)}
    release = torch.where(passed, labels, torch.zeros_like(labels))
    return Outcome(release, passed, eps_prime + cost, delta, details)


def alg6_privacy_report(votes, sigma_1, eps_hat, delta, teachers=None) -> dict:
    """The data-dependent quantities of Algorithm 6 without the noise: E(X) = Σ_t β(q̃_t), SS_β(X) and the test cost
    (exact GNSS, Thm 23 and printed forms), with the data-independent baseline T/σ1² + 2√(T log(1/δ))/σ1 (Fig 3.2):
    what a user reads before choosing ε′."""
    v = pate.as_votes(votes)
    ok = pate.votes_ok(v)
    refuse_outside("gptr.thm3_6_6", [(spec.VOTES_COUNTS, ok),
                                          (spec.VOTES_SUM, teachers is None or pate.votes_sum_ok(v, teachers))])
    sigma_1, eps_hat, delta = params(sigma_1=(sigma_1, spec.P_GNMAX_SIGMA.domain), eps_hat=(eps_hat, spec.POSITIVE),
                                     delta=(delta, spec.P_DELTA.domain))
    alpha, sigma_s, beta = pate._constants(eps_hat, delta)
    K = int(v.sum(-1).reshape(-1)[0])
    E = pate.data_dependent_rdp_beta(v, sigma_1, alpha)
    return {"alpha": alpha, "sigma_s": sigma_s, "beta": beta, "rdp": E,
            "eps_data_dependent": E + log_2_over(delta) / (alpha - 1),
            "smooth_sensitivity": pate._smooth_sensitivity(v, sigma_1, alpha, beta, K),
            "test_cost": {form: pate.test_cost(eps_hat, delta, form) for form in ("tight", "thm23", "printed")},
            "data_independent_eps": pate.gnmax_composed(v.shape[-2], sigma_1, delta)}


# ---------------------------------------------------------------------------------------------------------------
# Algorithms 14 and 15 (OPS-PTR, batched over λ)


class OPSBatch(NamedTuple):
    """The per-λ results of Algorithm 14 / 15: samples θ (L, d) (0 where ⊥), ``passed`` (L,), γ (L,) (0 where ⊥),
    the released λ^P_min and Δ^P (L,), the accounting (ε, δ) and the λ-independent pieces."""

    theta: torch.Tensor
    passed: torch.Tensor
    gamma: torch.Tensor
    lam_min_p: torch.Tensor
    Delta_p: torch.Tensor
    eps: torch.Tensor
    delta: torch.Tensor
    details: dict


def _ridge_batch(X: torch.Tensor, y: torch.Tensor, lams: torch.Tensor):
    """One eigen-decomposition XᵀX = V diag(w) Vᵀ for every λ: θ*_λ = V diag(1/(w + λ)) Vᵀ Xᵀy (L, d), λ_min = w_0
    (rounding below 0 clipped), and the pieces to sample N(θ*_λ, (γ(XᵀX + λI))⁻¹)."""
    w, V = torch.linalg.eigh(X.T @ X)
    w = torch.clamp(w, min=0.0)
    b = V.T @ (X.T @ y)  # (d,)
    theta = (b / (w + lams.unsqueeze(-1))) @ V.T  # (L, d)
    return w, V, theta


def _ops_samples(theta, w, V, lams, gamma, generator):
    """θ*_λ + V diag(1/√(γ(w + λ))) ξ per λ (γ > 0 where used)."""
    xi = _normal(theta.shape, generator, theta)
    g = torch.where(gamma > 0, gamma, torch.ones_like(gamma))
    return theta + (xi / torch.sqrt(g.unsqueeze(-1) * (w + lams.unsqueeze(-1)))) @ V.T


def _regression_data(X, y, lams, x_norm, y_norm):
    X = as_tensor(X, name="X")
    y = as_tensor(y, like=X, name="y").reshape(-1)
    lams = as_tensor(lams, like=X, name="lams").reshape(-1)
    if X.ndim != 2 or X.shape[0] != y.shape[0] or not (bool(torch.isfinite(X).all()) and bool(torch.isfinite(y).all())):
        raise ParameterError(f"X must be a finite (n, d) tensor and y a finite (n,) tensor (got {tuple(X.shape)}, "
                             f"{tuple(y.shape)})")
    worst = float(torch.linalg.vector_norm(X, dim=1).max()) if X.shape[0] else 0.0
    if worst > float(x_norm) * (1 + 1e-12):
        raise ParameterError(f"a row of X has norm {worst!r} > x_norm={float(x_norm)!r} (rows are not clipped)")
    if y.numel() and float(y.abs().max()) > float(y_norm) * (1 + 1e-12):
        raise ParameterError(f"a label has magnitude {float(y.abs().max())!r} > y_norm={float(y_norm)!r}")
    (lams,) = params(lams=(lams, spec.P_LAM.domain))
    return X, y, lams


def alg14_ops_ptr(X, y, lams, *, eps, delta, eps_hat, delta_hat, delta_prime_1, delta_prime_2,
                  generator: torch.Generator | None = None, x_norm=1.0, y_norm=1.0) -> OPSBatch:
    """Algorithm 14 (seed 003; erratum E5 corrected) for every λ of ``lams`` at once, as the reference
    ``alg14_ops_ptr``: each release gets half of (ε̂, δ̂) with the analytic-Gaussian σ, λ^P_min = max(λ_min + σ1 Z −
    σ1 z(δ′1), 0), σ1 = ‖𝒳‖²σ(ε̂/2, δ̂/2) (Lemma B.4.3), Δ^P = Δ + σ2 Z′ + σ2 z(δ′2), σ2 = log(1 + ‖𝒳‖²/(λ + λ^P −
    ‖𝒳‖²))·σ(ε̂/2, δ̂/2) (the corrected Lemma B.4.2; ⊥ where λ + λ^P ≤ ‖𝒳‖²), z(p) = Φ̄^{-1}(p); γ* from the
    corrected Theorem 3.6.1 at (λ^P, L̃ = ‖𝒳‖e^{Δ^P}); ⊥ where no γ > 0 meets ε; else one OPS sample. Accounting
    ``gptr.ex3_6_2``: (ε + ε̂, δ + δ̂ + δ′1 + δ′2)."""
    generator = _generator(generator)
    X, y, lams = _regression_data(X, y, lams, x_norm, y_norm)
    eps_t, eps_hat_t, delta_t, delta_hat_t, dp1, dp2 = params(
        eps=(eps, spec.P_EPS.domain), eps_hat=(eps_hat, spec.POSITIVE), delta=(delta, spec.P_DELTA.domain),
        delta_hat=(delta_hat, spec.P_DELTA.domain), delta_prime_1=(delta_prime_1, spec.P_DELTA.domain),
        delta_prime_2=(delta_prime_2, spec.P_DELTA.domain))
    x2 = float(x_norm) ** 2
    w, V, theta = _ridge_batch(X, y, lams)
    noise = gaussian_sigma(eps_hat_t / 2, delta_hat_t / 2)
    s1 = x2 * noise
    z1 = -torch.special.ndtri(dp1)
    z2 = -torch.special.ndtri(dp2)
    L = lams.shape[0]
    lam_p = torch.clamp(w[0] + s1 * _normal((L,), generator, X) - s1 * z1, min=0.0)
    removal_ok = lams + lam_p > x2
    s2 = torch.log1p(x2 / torch.where(removal_ok, lams + lam_p - x2, torch.ones_like(lams))) * noise
    log_lip = torch.log(float(y_norm) + float(x_norm) * torch.linalg.vector_norm(theta, dim=-1))
    Delta_p = log_lip + s2 * _normal((L,), generator, X) + s2 * z2
    gamma = ops.alg14_gamma_star(eps_t, lams, lam_p, Delta_p, float(x_norm), delta_t)
    passed = removal_ok & (gamma > 0)
    gamma = torch.where(passed, gamma, torch.zeros_like(gamma))
    samples = _ops_samples(theta, w, V, lams, gamma, generator)
    eps_total, delta_total = ops.ex3_6_2(eps_t, eps_hat_t, delta_t, delta_hat_t, dp1, dp2)
    return OPSBatch(torch.where(passed.unsqueeze(-1), samples, torch.zeros_like(samples)), passed, gamma, lam_p,
                    Delta_p, eps_total, delta_total, {"lambda_min": w[0], "theta_ridge": theta, "sigma_unit": noise})


def alg15_ops_ptr(X, y, lams, *, eps, delta, generator: torch.Generator | None = None, calibration: str = "printed",
                  x_norm=1.0, y_norm=1.0) -> OPSBatch:
    """Algorithm 15 (seed 003; notes §4, [R] line 5) for every λ of ``lams`` at once, as the reference
    ``alg15_ops_ptr``: λ̃_min and Δ released with σ/Δ = √log(6/δ)/(ε/4) (``printed``) or the analytic σ for (ε/4, δ/6)
    (``analytic``, erratum E7), each shifted by σ√(2 log(2/δ)); L̃ = ‖𝒳‖e^Δ; γ from Theorem 3.6.1 at (ε/2, δ/3) (the
    printed Lemma B.4.2 and Theorem 3.6.1 with ``printed``, the corrected ones with ``analytic``); one OPS sample per
    λ (⊥ where no γ > 0 meets ε/2). Accounting ``gptr.thm_b4_1`` (analytic) or the δ of its printed calibration
    (each release's exact δ at ε/4, and √(2δ/3) for the OPS step)."""
    generator = _generator(generator)
    if calibration not in ("printed", "analytic"):
        raise ParameterError(f"calibration={calibration!r} is not one of ('printed', 'analytic')")
    X, y, lams = _regression_data(X, y, lams, x_norm, y_norm)
    e, d = params(eps=(eps, spec.P_EPS_POSITIVE.domain), delta=(delta, spec.P_DELTA.domain))
    printed = calibration == "printed"
    ratio = ops.alg15_sigma_printed(e, d) if printed else ops.alg15_sigma(e, d)
    margin = ops.alg15_margin(d, ratio)
    x2 = float(x_norm) ** 2
    w, V, theta = _ridge_batch(X, y, lams)
    L = lams.shape[0]
    lam_t = torch.clamp(w[0] + x2 * ratio * _normal((L,), generator, X) - x2 * margin, min=0.0)
    ok = lams + lam_t > (0.0 if printed else x2)
    denominator = lams + lam_t - (0.0 if printed else x2)
    s = torch.log1p(x2 / torch.where(ok, denominator, torch.ones_like(lams)))
    log_lip = torch.log(float(y_norm) + float(x_norm) * torch.linalg.vector_norm(theta, dim=-1))
    Delta_p = log_lip + s * ratio * _normal((L,), generator, X) + s * margin
    lam_safe = torch.where(ok, lams, torch.ones_like(lams))
    a, b, c = ops.ops_coefficients(lam_safe, lam_t, float(x_norm) * torch.exp(Delta_p), float(x_norm), d / 3, printed)
    gamma = ops.quadratic_gamma_star(e / 2, a, b, c)
    passed = ok & (gamma > 0)
    gamma = torch.where(passed, gamma, torch.zeros_like(gamma))
    samples = _ops_samples(theta, w, V, lams, gamma, generator)
    if printed:
        release = ops.release_delta(e / 4, 1.0, ratio)
        eps_total, delta_total = e, 2 * release + torch.sqrt(2 * d / 3) + ops.alg15_false_positive(d)
    else:
        eps_total, delta_total = ops.thm_b4_1(e, d)
    return OPSBatch(torch.where(passed.unsqueeze(-1), samples, torch.zeros_like(samples)), passed, gamma, lam_t,
                    Delta_p, eps_total, delta_total, {"lambda_min": w[0], "theta_ridge": theta, "sigma_unit": ratio,
                                                      "calibration": calibration})


__all__ = ["Outcome", "OPSBatch", "alg3_classic_ptr", "alg4_generalized_ptr", "alg5_cutoff", "alg5_ptr_selection",
           "alg6_pate_ptr", "alg6_privacy_report", "alg14_ops_ptr", "alg15_ops_ptr"]
