"""Readable reference implementations of seed 003's regression algorithms with generalized PTR (numpy; the privacy
numbers come from the mpmath statements of :mod:`.ops` and :mod:`.glm`): OPS sampling (Ex 3.5.5), Alg 14 (Ex 3.6.2
with the inequality directions corrected, erratum E5), Alg 15 (the "no-⊥" OPS-PTR, printed and corrected Gaussian
calibrations, erratum E7), Ex B.3.8 (logistic output perturbation with PTR), and the OutPert baseline (Chaudhuri et
al. 2011 as used in Sec 3.6.1). Notes shared/notes/generalized-ptr.md §4.

Each algorithm takes the dataset as arrays (X of shape (n, d), labels y of shape (n,)), the public domain radii
‖𝒳‖, ‖𝒴‖ (rows must satisfy them: checked, never clipped) and a numpy Generator; it returns ``(release, accounting)``
with ``release`` None for ⊥, and ``accounting`` a dict holding the (ε, δ) guarantee (floats) and the intermediate
private quantities.

Not implemented: OPS-Balanced and AdaOPS (Wang 2018), the other Fig 3.1 baselines: seed 003 names them without
defining them (no formula, no calibration), so there is nothing in the text to implement faithfully."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from .._normal import ndtri_upper
from ..base.gaussian import gaussian_sigma
from ..errors import ParameterError
from .glm import (LOGISTIC, ex_b3_8_margin, ex_b3_8_sigma, ex_b3_8_sigma_printed, logistic_gamma_feasible,
                  logistic_gamma_star, logistic_gamma_star_printed, thm_b3_9, thm_b3_9_printed_calibration)
from .ops import (alg15_margin, alg15_sigma, alg15_sigma_printed, ex3_6_2, lemma_b4_2, lemma_b4_2_printed,
                  ops_gamma_feasible, ops_gamma_star, ops_gamma_star_printed, thm_b4_1, thm_b4_1_printed_calibration)

CALIBRATIONS = ("printed", "analytic")


# ---------------------------------------------------------------------------------------------------------------
# data checks and ridge pieces


def _data(X, y, x_norm, y_norm=None):
    """X as (n, d) float64, y as (n,), rows of norm ≤ ‖𝒳‖ and labels of magnitude ≤ ‖𝒴‖ (ParameterError otherwise)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64).reshape(-1)
    if X.ndim != 2 or X.shape[0] != y.shape[0] or not (np.all(np.isfinite(X)) and np.all(np.isfinite(y))):
        raise ParameterError(f"X must be a finite (n, d) array and y a finite (n,) array (got {X.shape}, {y.shape})")
    worst = float(np.max(np.linalg.norm(X, axis=1), initial=0.0))
    if worst > float(x_norm) * (1 + 1e-12):
        raise ParameterError(f"a row of X has norm {worst!r} > x_norm={float(x_norm)!r} (rows are not clipped)")
    if y_norm is not None and float(np.max(np.abs(y), initial=0.0)) > float(y_norm) * (1 + 1e-12):
        raise ParameterError(f"a label has magnitude {float(np.max(np.abs(y)))!r} > y_norm={float(y_norm)!r}")
    return X, y


def ridge(X, y, lam):
    """(H + λI, θ*_λ) with H = XᵀX and θ*_λ = (XᵀX + λI)⁻¹Xᵀy (seed 003, Ex 3.5.5)."""
    d = X.shape[1]
    h_lam = X.T @ X + float(lam) * np.eye(d)
    return h_lam, np.linalg.solve(h_lam, X.T @ y)


def lambda_min(X):
    """λ_min(XᵀX) by a symmetric eigensolver (not the power method: notes §8), clipped of rounding below 0."""
    return max(float(np.linalg.eigvalsh(X.T @ X)[0]), 0.0)


def ops_sample(X, y, lam, gamma, rng, x_norm=1.0):
    """One posterior sample (seed 003, Ex 3.5.5): θ ~ N(θ*_λ, (γ(XᵀX + λI))⁻¹) ∝ exp(−(γ/2)(‖y − Xθ‖² + λ‖θ‖²))."""
    X, y = _data(X, y, x_norm)
    h_lam, theta = ridge(X, y, lam)
    chol = np.linalg.cholesky(float(gamma) * h_lam)  # γH_λ = CCᵀ; θ = θ* + C⁻ᵀξ has covariance (γH_λ)⁻¹
    return theta + np.linalg.solve(chol.T, rng.standard_normal(X.shape[1]))


def log_lipschitz(X, y, lam, x_norm, y_norm):
    """Δ(X) = log(‖𝒴‖ + ‖𝒳‖‖θ*_λ‖) (seed 003, Alg 14 line 3, Lemma B.4.2)."""
    _, theta = ridge(X, y, lam)
    return math.log(float(y_norm) + float(x_norm) * float(np.linalg.norm(theta)))


def _f(v) -> float:
    return float(v)


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 14 (directions corrected) and Algorithm 15


def alg14_ops_ptr(X, y, lam, *, eps, delta, eps_hat, delta_hat, delta_prime_1, delta_prime_2, rng, x_norm=1.0,
                  y_norm=1.0):
    """Alg 14 (seed 003; erratum E5 corrected: λ^P_min ≤ λ_min w.p. 1 − δ′₁, Δ^P ≥ Δ w.p. 1 − δ′₂).

    Line 3 is open-ended in the text; here (as Alg 15 does) each release gets half of (ε̂, δ̂) with the
    analytic-Gaussian σ (base.gaussian_sigma): λ^P_min = max(λ_min + σ₁Z − σ₁z(δ′₁), 0), σ₁ = ‖𝒳‖²σ(ε̂/2, δ̂/2)
    (Lemma B.4.3), and Δ^P = Δ + σ₂Z′ + σ₂z(δ′₂), σ₂ = log(1 + ‖𝒳‖²/(λ + λ^P − ‖𝒳‖²))σ(ε̂/2, δ̂/2) (the corrected
    Lemma B.4.2 at the private λ^P; ⊥ where λ + λ^P ≤ ‖𝒳‖²), with z(p) = Φ̄⁻¹(p). Then γ* (the corrected Thm 3.6.1
    at λ^P, L̃ = ‖𝒳‖e^{Δ^P}); ⊥ (None) if no γ > 0 meets ε, else an OPS sample. Accounting: Ex 3.6.2,
    (ε + ε̂, δ + δ̂ + δ′₁ + δ′₂)."""
    X, y = _data(X, y, x_norm, y_norm)
    if not float(eps_hat) > 0:
        raise ParameterError(f"eps_hat={eps_hat!r}: the Gaussian releases need ε̂ > 0")
    for name, v in (("delta_hat", delta_hat), ("delta_prime_1", delta_prime_1), ("delta_prime_2", delta_prime_2)):
        if not 0 < float(v) < 1:
            raise ParameterError(f"{name}={v!r}: the Gaussian releases need a value in (0, 1)")
    noise = _f(gaussian_sigma(mpf(eps_hat) / 2, mpf(delta_hat) / 2))
    s1 = float(x_norm) ** 2 * noise
    lam_p = max(lambda_min(X) + s1 * rng.standard_normal() - s1 * _f(ndtri_upper(mpf(delta_prime_1))), 0.0)
    if lam + lam_p <= float(x_norm) ** 2:
        return None, {"reason": "λ + λ^P_min ≤ ‖𝒳‖²: Lemma B.4.2 gives no finite sensitivity for removals",
                      "lam_min_p": lam_p}
    s2 = _f(lemma_b4_2(mpf(lam), mpf(lam_p), mpf(x_norm))) * noise
    delta_p = log_lipschitz(X, y, lam, x_norm, y_norm) + s2 * rng.standard_normal() \
        + s2 * _f(ndtri_upper(mpf(delta_prime_2)))
    budget = ex3_6_2(mpf(eps), mpf(eps_hat), mpf(delta), mpf(delta_hat), mpf(delta_prime_1), mpf(delta_prime_2))
    accounting = {"eps": _f(budget[0]), "delta": _f(budget[1]), "lam_min_p": lam_p, "Delta_p": delta_p}
    L_tilde = mpf(x_norm) * mpmath.exp(delta_p)  # mpf: Δ^P > 709 at small λ and ε (e^Δ overflows a double)
    args = (mpf(eps), mpf(lam), mpf(lam_p), L_tilde, mpf(x_norm), mpf(delta))
    if not ops_gamma_feasible(mpf(eps), mpf(lam), mpf(lam_p), mpf(x_norm), mpf(delta)):
        return None, {**accounting, "gamma": None, "reason": "no γ > 0 meets ε (Alg 14 line 10: ⊥)"}
    return _sample_or_underflow(X, y, lam, ops_gamma_star(*args), rng, x_norm, accounting)


def _sample_or_underflow(X, y, lam, gamma, rng, x_norm, accounting):
    """The OPS sample at γ*, or None where γ* is below the smallest double (the sample's variance 1/γ* would not be a
    number): a function of the released (λ^P_min, Δ^P) only, so ⊥ there is post-processing and costs no privacy."""
    g = _f(gamma)
    if g == 0.0:
        return None, {**accounting, "gamma": g, "reason": f"γ* = {mpmath.nstr(gamma, 5)} underflows a double"}
    return ops_sample(X, y, lam, g, rng, x_norm), {**accounting, "gamma": g}


def alg15_ops_ptr(X, y, lam, *, eps, delta, rng, calibration="printed", x_norm=1.0, y_norm=1.0):
    """Alg 15 (seed 003; notes §4, [R] line 5): releases λ̃_min and Δ with σ/Δ = √log(6/δ)/(ε/4) (``printed``) or
    the analytic σ for (ε/4, δ/6) (``analytic``, erratum E7), each shifted by σ√(2 log(2/δ)) (down for λ̃_min, up
    for Δ); L̃ = ‖𝒳‖e^Δ; γ from Thm 3.6.1 at (ε/2, δ/3); one OPS sample. ``printed`` is Alg 15 as printed
    throughout (Lemma B.4.2 and Thm 3.6.1 as printed); ``analytic`` uses the corrected Lemma B.4.2 (λ + λ̃ − ‖𝒳‖²)
    and the corrected Thm 3.6.1 (2 log(2/δ)). The text assumes ‖𝒳‖ = 1 (Δ_GS(λ_min) = ‖𝒳‖², Lemma B.4.3, is used
    here). Where no γ > 0 meets ε/2 the algorithm has no output: None, with the reason. Accounting: gptr.thm_b4_1
    (analytic) or its ``printed_calibration`` variant."""
    if calibration not in CALIBRATIONS:
        raise ParameterError(f"calibration={calibration!r} is not one of {CALIBRATIONS}")
    X, y = _data(X, y, x_norm, y_norm)
    e, d = mpf(eps), mpf(delta)
    ratio = alg15_sigma_printed(e, d) if calibration == "printed" else alg15_sigma(e, d)
    margin = _f(alg15_margin(e, d, ratio))  # in units of the sensitivity
    ratio = _f(ratio)
    x2 = float(x_norm) ** 2
    lam_t = max(lambda_min(X) + x2 * ratio * rng.standard_normal() - x2 * margin, 0.0)
    budget = thm_b4_1(e, d) if calibration == "analytic" else thm_b4_1_printed_calibration(e, d)
    accounting = {"eps": _f(budget[0]), "delta": _f(budget[1]), "lam_min_p": lam_t, "calibration": calibration}
    printed = calibration == "printed"
    if lam + lam_t <= (0 if printed else x2):
        return None, {**accounting, "reason": "λ + λ̃_min too small: Lemma B.4.2 / Thm 3.6.1 do not apply"}
    s = _f((lemma_b4_2_printed if printed else lemma_b4_2)(mpf(lam), mpf(lam_t), mpf(x_norm)))
    delta_p = log_lipschitz(X, y, lam, x_norm, y_norm) + s * ratio * rng.standard_normal() + s * margin
    accounting["Delta_p"] = delta_p
    L_tilde = mpf(x_norm) * mpmath.exp(delta_p)  # mpf: Δ can exceed 709 (e^Δ overflows a double)
    if not ops_gamma_feasible(e / 2, mpf(lam), mpf(lam_t), mpf(x_norm), d / 3, printed=printed):
        return None, {**accounting, "gamma": None, "reason": "no γ > 0 meets ε/2 (Thm 3.6.1 at δ/3)"}
    solve = ops_gamma_star_printed if printed else ops_gamma_star
    gamma = solve(e / 2, mpf(lam), mpf(lam_t), L_tilde, mpf(x_norm), d / 3)
    return _sample_or_underflow(X, y, lam, gamma, rng, x_norm, accounting)


# ---------------------------------------------------------------------------------------------------------------
# Example B.3.8: logistic output perturbation with PTR


def logistic_fit(X, y, lam, tol=1e-13, max_iter=100):
    """θ*_λ = argmin Σ log(1 + e^{−y_i x_iᵀθ}) + λ‖θ‖²/2 by Newton's method (labels ±1), to a gradient norm
    ≤ tol·(1 + n); returns (θ*, Hessian of the unregularised loss at θ*)."""
    n, d = X.shape
    theta = np.zeros(d)
    for _ in range(max_iter):
        m = y * (X @ theta)
        p = 0.5 * (1 - np.tanh(m / 2))  # σ(−m) = 1/(1 + e^m), stable
        grad = -(X.T @ (y * p)) + lam * theta
        w = p * (1 - p)  # l''(−m) = σ(m)σ(−m)
        hess = (X * w[:, None]).T @ X
        step = np.linalg.solve(hess + lam * np.eye(d), grad)
        theta = theta - step
        if np.linalg.norm(grad) <= tol * (1 + n):
            break
    else:
        raise ArithmeticError(f"logistic_fit: Newton did not converge in {max_iter} steps")
    m = y * (X @ theta)
    p = 0.5 * (1 - np.tanh(m / 2))
    return theta, (X * (p * (1 - p))[:, None]).T @ X


def ex_b3_8_logistic_ptr(X, y, lam, *, eps, delta, rng, calibration="printed"):
    """Ex B.3.8 steps 2–7 for one proposed λ (seed 003): θ*_λ (Newton), λ_min of the unregularised Hessian at θ*_λ
    (eigvalsh), λ^p_min = max(λ_min + σZ − σ√(2 log(1/δ)), 0) with Δ_GS = 2RL + β = 2.25 (Thm B.3.11, needs
    λ ≥ RL = 1) and σ as printed (Δ√log(4/δ)/(ε/2)) or analytic for (ε/2, δ/2) (erratum E7); α = λ^p_min + λ;
    γ from Rem B.3.7 at (ε/2, δ/2) (printed, or with the corrected tail 2 log(2/δ) for ``analytic``);
    θ̂ ~ N(θ*, (γ(H + λI))⁻¹). ⊥ (None) where no γ > 0 meets ε/2. Labels ±1, ‖x‖ ≤ 1. Accounting: gptr.thm_b3_9
    (analytic) or its ``printed_calibration`` variant."""
    if calibration not in CALIBRATIONS:
        raise ParameterError(f"calibration={calibration!r} is not one of {CALIBRATIONS}")
    X, y = _data(X, y, 1.0)
    if not np.all(np.abs(y) == 1):
        raise ParameterError("Ex B.3.8 needs labels in {−1, +1}")
    if not float(lam) >= float(LOGISTIC["R"] * LOGISTIC["L"]):
        raise ParameterError(f"lam={lam!r}: Thm B.3.11 (Δ_GS = 2.25) needs λ ≥ RL = 1")
    e, d = mpf(eps), mpf(delta)
    sens = 2 * LOGISTIC["R"] * LOGISTIC["L"] + LOGISTIC["beta"]
    sigma = ex_b3_8_sigma_printed(e, d, sens) if calibration == "printed" else ex_b3_8_sigma(e, d, sens)
    margin = _f(ex_b3_8_margin(d, sigma))
    theta, hess = logistic_fit(X, y, float(lam))
    lmin = max(float(np.linalg.eigvalsh(hess)[0]), 0.0)
    lam_p = max(lmin + _f(sigma) * rng.standard_normal() - margin, 0.0)
    alpha = lam_p + float(lam)
    budget = thm_b3_9(e, d) if calibration == "analytic" else thm_b3_9_printed_calibration(e, d)
    accounting = {"eps": _f(budget[0]), "delta": _f(budget[1]), "lam_min_p": lam_p, "alpha": alpha,
                  "calibration": calibration}
    printed = calibration == "printed"
    if not logistic_gamma_feasible(e / 2, mpf(alpha), d / 2, printed=printed):
        return None, {**accounting, "gamma": None, "reason": "no γ > 0 meets ε/2 (Rem B.3.7 at δ/2)"}
    gamma = _f((logistic_gamma_star_printed if printed else logistic_gamma_star)(e / 2, mpf(alpha), d / 2))
    chol = np.linalg.cholesky(gamma * (hess + float(lam) * np.eye(X.shape[1])))
    return theta + np.linalg.solve(chol.T, rng.standard_normal(X.shape[1])), {**accounting, "gamma": gamma}


# ---------------------------------------------------------------------------------------------------------------
# OutPert (Chaudhuri et al. 2011), the Fig 3.1 baseline


def outpert_sensitivity(lam, x_norm, y_norm, n_max):
    """ℓ2 sensitivity of the ridge minimiser under add/remove (Prop B.3.12 with α̃ ≥ λ): ‖θ* − θ̃*‖ ≤ ‖∇f_z(θ*)‖/λ ≤
    ‖𝒳‖(‖𝒳‖‖θ*‖ + ‖𝒴‖)/λ at the smaller dataset's θ*, and ‖θ*‖ ≤ ‖𝒴‖√(n/λ) there (F(θ*) ≤ F(0) ≤ n‖𝒴‖²/2),
    n ≤ n_max a public bound on the dataset size."""
    lam, x, yb = float(lam), float(x_norm), float(y_norm)
    return x * (x * yb * math.sqrt(n_max / lam) + yb) / lam


def outpert(X, y, lam, *, eps, delta, rng, x_norm=1.0, y_norm=1.0, n_max=None):
    """Output perturbation (Sec 3.6.1 baseline; Chaudhuri et al. 2011): θ* + N(0, σ²I) with σ = Δ·σ_analytic(ε, δ)
    (base.gaussian_sigma), Δ from :func:`outpert_sensitivity`; (ε, δ)-DP (add/remove, n ≤ n_max public)."""
    X, y = _data(X, y, x_norm, y_norm)
    if not float(lam) > 0:
        raise ParameterError(f"lam={lam!r}: OutPert needs λ > 0 (strong convexity)")
    n_max = X.shape[0] if n_max is None else int(n_max)
    if n_max < X.shape[0]:
        raise ParameterError(f"n_max={n_max} is below the dataset size {X.shape[0]}")
    sens = outpert_sensitivity(lam, x_norm, y_norm, n_max)
    sigma = sens * _f(gaussian_sigma(mpf(eps), mpf(delta)))
    _, theta = ridge(X, y, lam)
    return theta + sigma * rng.standard_normal(X.shape[1]), {"eps": float(eps), "delta": float(delta),
                                                             "sigma": sigma, "sensitivity": sens}
