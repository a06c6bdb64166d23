"""The objective-perturbation minimiser (Algorithm 1 of seed 003, eq. (2.2.1)) and the GLM gradient/Hessian of the
(unperturbed) regularised objective J(θ; D) = Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖², numpy float64.

θ̂P = argmin_θ J(θ; D) + bᵀθ; the ex-post pDP identity ∇J(θ̂P; D) = −b holds only at the exact minimiser, so the
solver runs damped Newton (J is λ-strongly convex, Hessian explicit) until ‖∇J(θ; D) + b‖ is at rounding level and
raises otherwise (notes objpert-pdp.md §4.1, §8.1).
"""
from __future__ import annotations

import numpy as np

from ..errors import DomainError, ParameterError, PrecisionError
from .losses import get_loss


def _as_data(X, y, d=None):
    """X as an (n, d) float array and y as an (n,) float array (n = 0 allowed when d is given)."""
    X = np.asarray(X, dtype=float)
    if X.ndim == 1:
        X = X.reshape(0, d) if X.size == 0 and d is not None else X.reshape(1, -1)
    if X.ndim != 2:
        raise ParameterError(f"X: expected an (n, d) array of features, got shape {X.shape}")
    y = np.asarray(y, dtype=float).reshape(-1)
    if y.shape[0] != X.shape[0]:
        raise ParameterError(f"y: expected {X.shape[0]} labels (one per row of X), got {y.shape[0]}")
    if not np.all(np.isfinite(X)):
        raise DomainError("X", X[~np.isfinite(X)][0], "finite features")
    return X, y


def _check_lam(lam):
    lam = float(lam)
    if not (np.isfinite(lam) and lam > 0):
        raise DomainError("lam", lam, "λ > 0 (finite)")
    return lam


def glm_gradient(X, y, loss, lam, theta) -> np.ndarray:
    """∇J(θ; D) = Σ_i f'(x_iᵀθ; y_i) x_i + λθ (seed 003 eq. (2.2.1) with r = 0; notes objpert-pdp.md §4.1 gJ)."""
    theta = np.asarray(theta, dtype=float).reshape(-1)
    X, y = _as_data(X, y, theta.shape[0])
    loss = get_loss(loss)
    u = X @ theta
    return X.T @ loss.d1(u, y) + _check_lam(lam) * theta


def glm_hessian(X, y, loss, lam, theta) -> np.ndarray:
    """∇²J(θ; D) = Σ_i f''(x_iᵀθ; y_i) x_i x_iᵀ + λI (notes objpert-pdp.md §4.1 H; θ-free for the squared loss)."""
    theta = np.asarray(theta, dtype=float).reshape(-1)
    X, y = _as_data(X, y, theta.shape[0])
    loss = get_loss(loss)
    w = loss.d2(X @ theta, y)
    return (X.T * w) @ X + _check_lam(lam) * np.eye(theta.shape[0])


def _objective(X, y, loss, lam, b, theta):
    return float(np.sum(loss.f(X @ theta, y)) + 0.5 * lam * theta @ theta + b @ theta)


def objpert_minimiser(X, y, loss, lam, b, tol=1e-12, theta0=None, max_iter=200) -> np.ndarray:
    """θ̂P = argmin_θ Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + bᵀθ (seed 003, Algorithm 1 / eq. (2.2.1), r = 0), by damped
    Newton with Armijo backtracking.

    Stops when ‖∇J(θ) + b‖ ≤ tol·s, s = 1 + ‖b‖ + λ‖θ‖ + Σ_i |f'_i|‖x_i‖ (the size of the terms summed, so the test
    is at rounding level for tol = 1e-12), or when a full Newton step changes θ by less than 4 ulps and the
    gradient is within 1e3·tol·s; raises PrecisionError if neither happens within ``max_iter`` steps."""
    loss = get_loss(loss)
    b = np.asarray(b, dtype=float).reshape(-1)
    d = b.shape[0]
    X, y = _as_data(X, y, d)
    if X.shape[0] and X.shape[1] != d:
        raise ParameterError(f"b: expected {X.shape[1]} coordinates (the feature dimension), got {d}")
    if not np.all(np.isfinite(b)):
        raise DomainError("b", b, "finite noise vector")
    lam = _check_lam(lam)
    loss.check_labels(y)
    theta = -b / lam if theta0 is None else np.asarray(theta0, dtype=float).reshape(-1).copy()
    row_norms = np.linalg.norm(X, axis=1)
    for _ in range(max_iter):
        u = X @ theta
        g1 = loss.d1(u, y)
        grad = X.T @ g1 + lam * theta + b
        scale = 1.0 + np.linalg.norm(b) + lam * np.linalg.norm(theta) + float(np.abs(g1) @ row_norms)
        gnorm = np.linalg.norm(grad)
        if gnorm <= tol * scale:
            return theta
        H = (X.T * loss.d2(u, y)) @ X + lam * np.eye(d)
        step = np.linalg.solve(H, grad)
        if np.linalg.norm(step) <= 4 * np.finfo(float).eps * max(1.0, np.linalg.norm(theta)) \
                and gnorm <= 1e3 * tol * scale:
            return theta
        f0 = _objective(X, y, loss, lam, b, theta)
        slope = float(grad @ step)
        t = 1.0
        while t > 1e-12:
            cand = theta - t * step
            if _objective(X, y, loss, lam, b, cand) <= f0 - 1e-4 * t * slope or t == 1.0 and gnorm < 1e-6 * scale:
                break
            t *= 0.5
        theta = theta - t * step
    raise PrecisionError(f"objpert_minimiser: Newton did not reach ‖∇J + b‖ ≤ {tol:g}·{scale:.3g} in {max_iter} "
                         f"steps (last ‖∇J + b‖ = {gnorm:.3g})")


def objpert_minimiser_batch(X, y, loss, lam, B, tol=1e-12, max_iter=200) -> np.ndarray:
    """θ̂P for every row b of B (m, d) at once: the minimisers of Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + bᵀθ (seed 003,
    Algorithm 1), by batched damped Newton (the same stopping rule as :func:`objpert_minimiser`, per row). Used by
    the per-instance witness sampler (witnesses_ch2.py) and the coverage Monte Carlo; raises PrecisionError if a
    row has not converged after ``max_iter`` steps."""
    loss = get_loss(loss)
    B = np.atleast_2d(np.asarray(B, dtype=float))
    m, d = B.shape
    X, y = _as_data(X, y, d)
    if X.shape[0] and X.shape[1] != d:
        raise ParameterError(f"B: expected rows of {X.shape[1]} coordinates (the feature dimension), got {d}")
    lam = _check_lam(lam)
    loss.check_labels(y)
    theta = -B / lam
    row_norms = np.linalg.norm(X, axis=1)
    eye = np.eye(d)

    def objective(th):
        return np.sum(loss.f(th @ X.T, y[None, :]), axis=1) + 0.5 * lam * np.sum(th * th, axis=1) \
            + np.sum(B * th, axis=1)

    active = np.ones(m, dtype=bool)
    for _ in range(max_iter):
        idx = np.flatnonzero(active)
        if idx.size == 0:
            return theta
        th, b = theta[idx], B[idx]
        u = th @ X.T
        g1 = loss.d1(u, y[None, :])
        grad = g1 @ X + lam * th + b
        scale = 1.0 + np.linalg.norm(b, axis=1) + lam * np.linalg.norm(th, axis=1) + np.abs(g1) @ row_norms
        gnorm = np.linalg.norm(grad, axis=1)
        done = gnorm <= tol * scale
        H = np.einsum("mi,ij,ik->mjk", loss.d2(u, y[None, :]), X, X) + lam * eye
        step = np.linalg.solve(H, grad[..., None])[..., 0]
        tiny = (np.linalg.norm(step, axis=1) <= 4 * np.finfo(float).eps * np.maximum(1.0, np.linalg.norm(th, axis=1))) \
            & (gnorm <= 1e3 * tol * scale)
        done |= tiny
        active[idx[done]] = False
        keep = ~done
        if not keep.any():
            continue
        near = (gnorm < 1e-6 * scale)[keep]  # the quadratic region: full Newton steps (Armijo is at rounding level)
        idx, th, step, grad = idx[keep], th[keep], step[keep], grad[keep]
        b_keep = B[idx]
        f0 = np.sum(loss.f(th @ X.T, y[None, :]), axis=1) + 0.5 * lam * np.sum(th * th, axis=1) \
            + np.sum(b_keep * th, axis=1)
        slope = np.sum(grad * step, axis=1)
        t = np.ones(idx.size)
        pending = np.ones(idx.size, dtype=bool)
        for _ in range(60):
            cand = th - t[:, None] * step
            fc = np.sum(loss.f(cand @ X.T, y[None, :]), axis=1) + 0.5 * lam * np.sum(cand * cand, axis=1) \
                + np.sum(b_keep * cand, axis=1)
            ok = (fc <= f0 - 1e-4 * t * slope) | (near & (t == 1.0))
            pending &= ~ok
            if not pending.any():
                break
            t = np.where(pending, 0.5 * t, t)
        theta[idx] = th - t[:, None] * step
    if active.any():
        raise PrecisionError(f"objpert_minimiser_batch: {int(active.sum())} of {m} rows did not converge in "
                             f"{max_iter} Newton steps")
    return theta
