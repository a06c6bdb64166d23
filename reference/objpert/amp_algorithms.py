"""Readable reference algorithms (numpy float64, seeded numpy Generators) of seed 003 chapter 4: Algorithm 7
(approximate minima perturbation with gradient clipping, line 3669), Algorithm 16 (AMP of Iyengar et al. 2019,
line 9890), gradient descent and SAG with the periodic gradient-norm check (App. C.7); notes
shared/notes/objpert-rdp.md §4 A2, A3, A8.

Records are an (n, d + 1) array: the features x (‖x‖ ≤ 1 for the theorems) followed by the label y. The exact
minimiser θ^P of the perturbed objective comes from helper C's damped Newton (reference/objpert/solver.py,
objpert_minimiser), applied to the clipped loss of reference/objpert/clipping.py (a GlmLoss). Privacy: Thm 4.4.1 /
Thm C.6.1 (objpert.thm4_4_1, objpert.thm_c6_1)."""
from __future__ import annotations

import numpy as np

from ..errors import DomainError, ParameterError, PrecisionError
from .clipping import clipped_glm
from .losses import get_loss
from .solver import objpert_minimiser


def _rng(rng):
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def _split(records):
    r = np.asarray(records, dtype=float)
    if r.ndim != 2 or r.shape[1] < 2:
        raise ParameterError(f"records: expected an (n, d + 1) array (features then label), got shape {r.shape}")
    if not np.all(np.isfinite(r)):
        raise DomainError("records", "non-finite entry", "finite reals")
    return r[:, :-1], r[:, -1]


def _positive(name, v, allow_zero=False):
    v = float(v)
    if not (np.isfinite(v) and (v >= 0 if allow_zero else v > 0)):
        raise DomainError(name, v, "≥ 0 (finite)" if allow_zero else "> 0 (finite)")
    return v


def perturbed_gradient(X, y, loss, lam, b, theta):
    """∇L^P(θ) = Σ_i f'(x_iᵀθ; y_i) x_i + λθ + b (seed 003, Algorithm 7 step 3)."""
    return X.T @ loss.d1(X @ theta, y) + lam * theta + b


def perturbed_objective(X, y, loss, lam, b, theta):
    """L^P(θ) = Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + bᵀθ."""
    return float(np.sum(loss.f(X @ theta, y)) + 0.5 * lam * theta @ theta + b @ theta)


def gd_until(X, y, loss, lam, b, gamma, theta0=None, max_iter=10**6):
    """Gradient descent with step 1/L_s, L_s = nβ·max‖x_i‖² + λ (= nβ + λ of App. C.7 for unit-norm features), run
    until ‖∇L^P(θ)‖ ≤ γ (the check of Iyengar et al. 2019; seed 003 App. C.7.2). Returns (θ, T), T the number of
    gradient steps taken; raises PrecisionError after ``max_iter`` steps."""
    loss = get_loss(loss)
    X = np.asarray(X, float)
    b = np.asarray(b, float)
    lam, gamma = _positive("lam", lam), _positive("gamma", gamma)
    ls = X.shape[0] * loss.beta * float(np.max(np.sum(X * X, axis=1), initial=0.0)) + lam
    theta = np.zeros(X.shape[1]) if theta0 is None else np.asarray(theta0, float).copy()
    for t in range(max_iter + 1):
        g = perturbed_gradient(X, y, loss, lam, b, theta)
        if np.linalg.norm(g) <= gamma:
            return theta, t
        theta = theta - g / ls
    raise PrecisionError(f"gd_until: ‖∇L^P‖ = {np.linalg.norm(g):.3g} > γ = {gamma:g} after {max_iter} steps")


def sag_with_check(X, y, loss, lam, b, gamma, rng=None, theta0=None, max_epochs=10**5):
    """SAG (Schmidt et al. 2017) on f = Σ_i f_i, f_i(θ) = ℓ_i(θ) + λ‖θ‖²/(2n) + bᵀθ/n (β‖x_i‖² + λ/n smooth), step
    1/(16 L_max), memory y_i = 0 at the start, uniform index draws; every n incremental steps the full gradient is
    checked and the run stops when ‖∇f‖ ≤ γ (seed 003 App. C.7, Thm C.7.1; notes §4 A8). Returns (θ, evaluations),
    the number of incremental gradient evaluations (a multiple of n; the checks' full gradients are not counted)."""
    loss = get_loss(loss)
    rng = _rng(rng)
    X = np.asarray(X, float)
    b = np.asarray(b, float)
    lam, gamma = _positive("lam", lam), _positive("gamma", gamma)
    n, d = X.shape
    l_max = loss.beta * float(np.max(np.sum(X * X, axis=1))) + lam / n
    step = 1.0 / (16.0 * l_max)
    theta = np.zeros(d) if theta0 is None else np.asarray(theta0, float).copy()
    memory = np.zeros((n, d))
    total = np.zeros(d)
    evals = 0
    rows = [loss.row(i) for i in range(n)] if hasattr(loss, "row") else [loss] * n  # per-record clipped losses
    for _ in range(max_epochs):
        if np.linalg.norm(perturbed_gradient(X, y, loss, lam, b, theta)) <= gamma:
            return theta, evals
        for i in rng.integers(0, n, size=n):
            g = rows[i].d1(np.array([X[i] @ theta]), np.array([y[i]]))[0] * X[i] + (lam * theta + b) / n
            total += g - memory[i]
            memory[i] = g
            theta = theta - step * total / n  # Schmidt et al.: x ← x − (α/n)Σ_i y_i, α = 1/(16 L_max)
        evals += n
    raise PrecisionError(f"sag_with_check: no ‖∇f‖ ≤ γ = {gamma:g} within {max_epochs} epochs")


def _approximate(X, y, loss, lam, b, tau, solver, rng):
    if solver == "gd":
        return gd_until(X, y, loss, lam, b, tau)[0]
    if solver == "sag":
        return sag_with_check(X, y, loss, lam, b, tau, rng=rng)[0]
    raise ParameterError(f"solver: expected 'gd' or 'sag', got {solver!r}")


def _amp(records, loss, lam, sigma, sigma_out, tau, rng, solver):
    X, y = _split(records)
    loss.check_labels(y)
    lam, sigma = _positive("lam", lam), _positive("sigma", sigma)
    sigma_out, tau = _positive("sigma_out", sigma_out), _positive("tau", tau)
    rng = _rng(rng)
    d = X.shape[1]
    b = sigma * rng.standard_normal(d)
    theta_tilde = _approximate(X, y, loss, lam, b, tau, solver, rng)
    theta_p = objpert_minimiser(X, y, loss, lam, b)
    out = theta_tilde + sigma_out * rng.standard_normal(d)
    return {"output": out, "theta_tilde": theta_tilde, "theta_P": theta_p, "b": b,
            "grad_norm": float(np.linalg.norm(perturbed_gradient(X, y, loss, lam, b, theta_tilde)))}


def alg7_amp(records, loss, lam, sigma, sigma_out, tau, C, rng=None, solver="gd"):
    """Algorithm 7 (seed 003, line 3669): clip each record's loss at C (Thm C.6.2, clipped_glm with ‖x_i‖), draw
    b ~ N(0, σ²I_d), find θ̃ with ‖∇L^P_C(θ̃)‖ ≤ τ (solver "gd" or "sag": gd_until / sag_with_check), release
    θ̃ + N(0, σ_out²I_d). Returns a dict: output, theta_tilde, theta_P (the exact minimiser of L^P_C, helper C's
    objpert_minimiser, for checks only: ‖θ̃ − θ^P‖ ≤ τ/λ by λ-strong convexity), b, grad_norm. RDP: objpert.thm4_4_1."""
    X, _ = _split(records)
    norms = np.linalg.norm(X, axis=1)
    if np.any(norms == 0):
        raise DomainError("records", "a zero feature vector", "x ≠ 0 (Thm C.6.2 needs x ≠ 0; its loss is constant)")
    clipped = clipped_glm(loss, C, norms)
    return _amp(records, clipped, lam, sigma, sigma_out, tau, rng, solver)


def alg16_amp(records, loss, lam, sigma, sigma_out, tau, rng=None, solver="gd"):
    """Algorithm 16, AMP of Iyengar et al. 2019 (seed 003, line 9890; no clipping: the loss must be L-Lipschitz):
    as :func:`alg7_amp` without step 1. RDP: objpert.thm_c6_1."""
    return _amp(records, get_loss(loss), lam, sigma, sigma_out, tau, rng, solver)
