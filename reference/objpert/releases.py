"""The privacy-report algorithms of seed 003, chapter 2 and appendix A (Redberg & Wang, NeurIPS 2021, arXiv
2111.02281v1), as readable numpy float64 with a seeded ``numpy.random.Generator``: Algorithm 8 (noisy λ_min(H)),
Algorithm 10 (noisy gradient), Algorithm 11 (GOE Hessian), Algorithm 2 (the privacy report, DATA-INDEP and DATA-DEP)
and Algorithm 9 (the adaptive report); notes objpert-pdp.md §4.2–4.4.

``printed=True`` reproduces the text: the one-sided g^P of Algorithm 2 DATA-DEP and Algorithm 9 used as a bound on
|∇Jᵀ∇ℓ| (erratum E8) and Algorithm 2's µ^P = (3/2)xᵀĤ⁻¹x without the pointwise minimum with ‖x‖²/λ that the proof of
Thm 2.3.5 uses (erratum E9). The default is corrected: g^P = |f'ĝᵀx| + σ2|f'|‖x‖c (and the σ branch), µ^P with the
minimum. Where f''µ^P ≥ 1 the report's −log(1 − f''µ^P) is undefined: it is reported as +inf and flagged in
``undefined`` (only reachable with printed=True or λ < β).

:func:`simulate_report` runs objective perturbation and the report many times at once (vectorised over runs: a
batched damped Newton, batched solves) and returns the exact ex-post pDP terms (Cor 2.3.2) beside the report, for the
Monte Carlo checks of Thm 2.3.5 (3) and errata E8/E10 (4000 runs at n = 40, d = 5 take well under a second).

Conventions (notes §2.C, §4.1): records are an (n, d+1) array, features then label; a target z = (x, y) with
``member = "out"`` is not in D (D' = D ∪ {z}, s = +1); with ``member = "in"`` the target is *added to the records* to
form D (D' = the records, s = −1). The signed loss is L = log p_D(θ̂P)/p_{D'}(θ̂P) = T1 + T2 + T3 with
T1 = −log(1 + s f''µ), T2 = f'²‖x‖²/(2σ²), T3 = s f'·∇J(θ̂P; D)ᵀx/σ² (∇J(θ̂P; D) = −b), µ = xᵀH_D⁻¹x; ε1 = |L|,
ε̄1 = |T1| + T2 + |T3|.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..errors import ConditionError, DomainError, ParameterError, PrecisionError
from .losses import get_loss
from .solver import glm_gradient, glm_hessian

SQRT2 = math.sqrt(2.0)


def normal_quantile_upper(rho: float) -> float:
    """c = Φ⁻¹(1 − ρ/2), computed as −Φ⁻¹(ρ/2) (no rounding of 1 − ρ/2); ρ ∈ (0, 1)."""
    rho = float(rho)
    if not 0 < rho < 1:
        raise DomainError("rho", rho, "(0, 1)")
    return -NormalDist().inv_cdf(rho / 2)


def goe_tau(d: int, rho: float) -> float:
    """τ = F⁻¹_{λ1 GOE(d)}(1 − ρ/2) for the GOE (Z + Zᵀ)/√2 that Algorithm 11 adds (seed 003, Lemma A.4.4; helper
    E's reference/objpert/goe.py, imported late; the thesis' τ ≈ 12 at d = 50 is Chiani's normalisation, E2)."""
    from .goe import goe_quantile  # late import: the GOE module is its own

    return float(goe_quantile(int(d), rho, norm="sqrt2"))


def _split(records):
    R = np.asarray(records, dtype=float)
    if R.ndim != 2 or R.shape[1] < 2:
        raise ParameterError(f"records: expected an (n, d+1) array (features then label), got shape {R.shape}")
    return R[:, :-1], R[:, -1]


def _positive(name, value):
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise DomainError(name, value, "(0, inf)")
    return value


# ---------------------------------------------------------------------------------------------------------------
# Algorithms 8, 10, 11


def alg8_lambda_min(H, sigma4, rng) -> float:
    """λ̂P_min = λ_min(H) + N(0, σ4²) (seed 003, Algorithm 8; privacy objpert.thm_a3_1)."""
    H = np.asarray(H, dtype=float)
    return float(np.linalg.eigvalsh(H)[0] + _positive("sigma4", sigma4) * rng.standard_normal())


def alg10_noisy_gradient(records, loss, lam, theta, sigma2, rng) -> np.ndarray:
    """ĝP = ∇L(θ̂P; D) + λθ̂P + e, e ~ N(0, σ2² I_d) (seed 003, Algorithm 10 with r = 0; = −b + e at the exact
    minimiser; privacy objpert.thm_a3_4). g^P(z) = ĝPᵀ∇ℓ(θ̂P; z)."""
    X, y = _split(records)
    grad = glm_gradient(X, y, loss, lam, theta)
    return grad + _positive("sigma2", sigma2) * rng.standard_normal(grad.shape[0])


def alg11_goe_hessian(H, sigma3, rng) -> np.ndarray:
    """ĤP = H + (Z + Zᵀ)/√2, Z_ij ~ N(0, σ3²) i.i.d. (seed 003, Algorithm 11: off-diagonal noise N(0, σ3²), diagonal
    N(0, 2σ3²); privacy objpert.thm_a4_1)."""
    H = np.asarray(H, dtype=float)
    Z = _positive("sigma3", sigma3) * rng.standard_normal(H.shape)
    return H + (Z + Z.T) / SQRT2


# ---------------------------------------------------------------------------------------------------------------
# The report formulas (vectorised over targets and, for the batched simulation, over runs)


def _first_term(a):
    """|−log(1 − a)| elementwise, +inf where a ≥ 1 (undefined: flagged by the caller)."""
    a = np.asarray(a, dtype=float)
    out = np.full(a.shape, np.inf)
    ok = a < 1
    out[ok] = np.abs(-np.log1p(-a[ok]))
    return out


def _targets(target):
    T = np.atleast_2d(np.asarray(target, dtype=float))
    return T[:, :-1], T[:, -1]


def report_indep(theta, target, loss, lam, sigma, rho) -> np.ndarray:
    """ε^P_1(z) of Algorithm 2, DATA-INDEP (seed 003; Thm 2.3.3 and Thm 2.3.4, GLM form):
    |−log(1 − f''‖x‖²/λ)| + f'²‖x‖²/(2σ²) + σ|f'|‖x‖Φ⁻¹(1 − ρ/2)/σ², per target row (x, y); ε2 = ε3 = 0.
    +inf where f''‖x‖² ≥ λ (the printed log-det bound is undefined there; objpert.thm2_3_3)."""
    loss = get_loss(loss)
    lam, sigma = _positive("lam", lam), _positive("sigma", sigma)
    tx, ty = _targets(target)
    u = tx @ np.asarray(theta, dtype=float)
    f1, f2 = loss.d1(u, ty), loss.d2(u, ty)
    xn = np.linalg.norm(tx, axis=1)
    c = normal_quantile_upper(rho)
    gP = sigma * np.abs(f1) * xn * c
    return _first_term(f2 * xn**2 / lam) + (f1 * xn) ** 2 / (2 * sigma**2) + gP / sigma**2


def _dep_first_and_third(f1, f2, xn, gx, mu_hat, lam, sigma, sigma2, c, printed):
    """(µP, gP) of Algorithm 2 DATA-DEP from f', f'', ‖x‖, ĝᵀx and µ̂ = xᵀĤ⁻¹x (arrays of one shape)."""
    branch_sigma = sigma * np.abs(f1) * xn * c
    if printed:  # the text: one-sided g^P (E8), no min in µP (E9)
        gP = np.minimum(f1 * gx + sigma2 * np.abs(f1) * xn * c, branch_sigma)
        muP = 1.5 * mu_hat
    else:
        gP = np.minimum(np.abs(f1 * gx) + sigma2 * np.abs(f1) * xn * c, branch_sigma)
        muP = np.minimum(1.5 * mu_hat, xn**2 / lam)
    return muP, gP


def report_dep(theta, target, loss, lam, sigma, sigma2, sigma3, rho, g_hat, H_hat, printed=False):
    """ε^P_1(z) of Algorithm 2, DATA-DEP, from the released ĝP (Algorithm 10) and ĤP (Algorithm 11), per target
    row (seed 003, Algorithm 2): µP = min{(3/2)xᵀĤP⁻¹x, ‖x‖²/λ} (printed: no min, E9), g^P = min{|f'ĝᵀx| +
    σ2|f'|‖x‖c, σ|f'|‖x‖c} (printed: f'ĝᵀx without |·|, E8), c = Φ⁻¹(1 − ρ/2);
    ε^P_1 = |−log(1 − f''µP)| + f'²‖x‖²/(2σ²) + |g^P|/σ². Returns (ε^P_1, undefined) arrays. The corrected form
    needs ĤP ≻ 0 (ConditionError otherwise; E9). σ3 is checked but enters only through ĤP (ε3 is objpert.thm_a4_1)."""
    loss = get_loss(loss)
    lam, sigma, sigma2 = _positive("lam", lam), _positive("sigma", sigma), _positive("sigma2", sigma2)
    _positive("sigma3", sigma3)
    tx, ty = _targets(target)
    theta = np.asarray(theta, dtype=float)
    H_hat = np.asarray(H_hat, dtype=float)
    if not printed and np.linalg.eigvalsh(H_hat)[0] <= 0:
        raise ConditionError("objpert.alg2_report", ["H_hat_positive: the released ĤP must be positive definite "
                                                     "(corrected Algorithm 2, erratum E9)"])
    u = tx @ theta
    f1, f2 = loss.d1(u, ty), loss.d2(u, ty)
    xn = np.linalg.norm(tx, axis=1)
    mu_hat = np.einsum("ti,ti->t", tx, np.linalg.solve(H_hat, tx.T).T)
    muP, gP = _dep_first_and_third(f1, f2, xn, tx @ np.asarray(g_hat, float), mu_hat, lam, sigma, sigma2,
                                   normal_quantile_upper(rho), printed)
    a = f2 * muP
    return _first_term(a) + (f1 * xn) ** 2 / (2 * sigma**2) + np.abs(gP) / sigma**2, a >= 1


def adaptive_mu(lam_hat, ts, mu_std, mu_reg, xn):
    """µP of Algorithm 9 (seed 003, notes objpert-pdp.md §4.3; Prop A.3.2 (ii)/(iii)), elementwise (arrays broadcast):
    min{((λ̂ + τσ3)/λ̂)·xᵀĤP⁻¹x, ‖x‖²/λ̂} where λ̂ ≥ 2τσ3 (standard), else min{((λ̂ + 2τσ3)/λ̂)·xᵀ(ĤP + τσ3I)⁻¹x,
    ‖x‖²/λ̂} (regularised). ``mu_std`` = xᵀĤP⁻¹x and ``mu_reg`` = xᵀ(ĤP + τσ3I)⁻¹x (either may be None where its
    branch is not taken)."""
    lam_hat = np.asarray(lam_hat, dtype=float)
    standard = lam_hat >= 2 * ts
    cap = xn**2 / lam_hat
    std = np.minimum((lam_hat + ts) / lam_hat * mu_std, cap) if mu_std is not None else np.inf
    reg = np.minimum((lam_hat + 2 * ts) / lam_hat * mu_reg, cap) if mu_reg is not None else np.inf
    return np.where(standard, std, reg)


def adaptive_g(f1, gx, xn, sigma2, c, printed=False):
    """g^P of Algorithm 9 from ĝPᵀx: |f'ĝᵀx| + σ2|f'|‖x‖c (printed: f'ĝᵀx without |·|, erratum E8; Thm A.3.4 (2)
    with the noise e of Algorithm 10: |∇Jᵀ∇ℓ − ĝᵀ∇ℓ| ≤ σ2‖∇ℓ‖c w.p. 1 − ρ)."""
    g = f1 * gx
    return (g if printed else np.abs(g)) + sigma2 * np.abs(f1) * xn * c


@dataclass(frozen=True)
class Report:
    """A released privacy report at the given targets: ε^P_1 per target, the extra pDP costs (ε2, ε3, ε4 per target at
    δ; zeros where not released), the releases themselves (ĝP, ĤP, λ̂P_min) and τ."""

    eps1P: np.ndarray
    eps2: np.ndarray
    eps3: np.ndarray
    eps4: np.ndarray
    undefined: np.ndarray
    g_hat: np.ndarray | None = None
    H_hat: np.ndarray | None = None
    lam_hat: float | None = None
    tau: float | None = None


def _tail_eps(S, delta):
    return S**2 / 2 + S * math.sqrt(2 * math.log(1 / delta))


def _costs(f1, f2, xn, sigma2, sigma3, sigma4, delta):
    """ε2, ε3, ε4 per target at δ (Thm A.3.4, A.4.1, A.3.1: Gaussian tail bounds with per-target sensitivities)."""
    eps2 = _tail_eps(np.abs(f1) * xn / sigma2, delta) if sigma2 else np.zeros_like(xn)
    eps3 = _tail_eps(f2 * xn**2 / (SQRT2 * sigma3), delta) if sigma3 else np.zeros_like(xn)
    eps4 = _tail_eps(f2 * xn**2 / sigma4, delta) if sigma4 else np.zeros_like(xn)
    return eps2, eps3, eps4


def alg2_report(theta, records, target, loss, lam, sigma, sigma2, sigma3, rho, mode="DEP", rng=None,
                printed=False, delta=None, tau=None) -> Report:
    """Algorithm 2 of seed 003 (privacy report for objective perturbation on GLMs), notes §4.2.

    ``mode`` = "INDEP" (ε2 = ε3 = 0; Thm 2.3.3/2.3.4 bounds) or "DEP" (releases ĝP by Algorithm 10 with σ2 and ĤP by
    Algorithm 11 with σ3, from ``rng``). The Require λ ≥ 2σ3τ(d, ρ) is checked in DEP mode (ConditionError; τ from
    helper E's goe_quantile unless given). ε2, ε3 are reported per target at ``delta`` (default ρ)."""
    X, y = _split(records)
    loss = get_loss(loss)
    delta = float(rho if delta is None else delta)
    tx, ty = _targets(target)
    theta = np.asarray(theta, dtype=float)
    u = tx @ theta
    f1, f2, xn = loss.d1(u, ty), loss.d2(u, ty), np.linalg.norm(tx, axis=1)
    if mode == "INDEP":
        eps1P = report_indep(theta, target, loss, lam, sigma, rho)
        zero = np.zeros_like(eps1P)
        return Report(eps1P, zero, zero, zero, ~np.isfinite(eps1P))
    if mode != "DEP":
        raise ParameterError(f"mode: expected 'INDEP' or 'DEP', got {mode!r}")
    if rng is None:
        raise ParameterError("alg2_report: DATA-DEP needs a numpy Generator rng")
    tau = goe_tau(X.shape[1], rho) if tau is None else float(tau)
    if lam < 2 * sigma3 * tau:
        raise ConditionError("objpert.alg2_report", [f"lam_above_goe: λ = {lam:g} < 2σ3τ = {2 * sigma3 * tau:g} "
                                                     "(Algorithm 2's Require)"])
    H = glm_hessian(X, y, loss, lam, theta)
    g_hat = alg10_noisy_gradient(records, loss, lam, theta, sigma2, rng)
    H_hat = alg11_goe_hessian(H, sigma3, rng)
    eps1P, undefined = report_dep(theta, target, loss, lam, sigma, sigma2, sigma3, rho, g_hat, H_hat, printed)
    eps2, eps3, _ = _costs(f1, f2, xn, sigma2, sigma3, None, delta)
    return Report(eps1P, eps2, eps3, np.zeros_like(eps1P), undefined, g_hat, H_hat, None, tau)


def report_adaptive(theta, target, loss, sigma, sigma2, sigma3, rho, g_hat, H_hat, lam_hat, tau, printed=False):
    """ε^P_1(z) of Algorithm 9 (seed 003, notes objpert-pdp.md §4.3) for every target row, from the released ĝP
    (Algorithm 10), ĤP (Algorithm 11) and λ̂ = max{λ, λ̂P_min − σ4c} (Algorithm 8): µP by :func:`adaptive_mu`
    (standard estimator xᵀĤP⁻¹x where λ̂ ≥ 2τσ3, else regularised xᵀ(ĤP + τσ3I)⁻¹x), g^P by :func:`adaptive_g`;
    ε^P_1 = |−log(1 − f''µP)| + f'²‖x‖²/(2σ²) + |g^P|/σ². Returns (ε^P_1, undefined: f''µP ≥ 1)."""
    loss = get_loss(loss)
    sigma, sigma2, sigma3 = _positive("sigma", sigma), _positive("sigma2", sigma2), _positive("sigma3", sigma3)
    lam_hat, tau = _positive("lam_hat", lam_hat), _positive("tau", tau)
    tx, ty = _targets(target)
    theta = np.asarray(theta, dtype=float)
    H_hat = np.asarray(H_hat, dtype=float)
    u = tx @ theta
    f1, f2, xn = loss.d1(u, ty), loss.d2(u, ty), np.linalg.norm(tx, axis=1)
    ts = tau * sigma3
    if lam_hat >= 2 * ts:
        mu_std, mu_reg = np.einsum("ti,ti->t", tx, np.linalg.solve(H_hat, tx.T).T), None
    else:
        mu_std, mu_reg = None, np.einsum("ti,ti->t", tx, np.linalg.solve(H_hat + ts * np.eye(len(theta)), tx.T).T)
    a = f2 * adaptive_mu(lam_hat, ts, mu_std, mu_reg, xn)
    gP = adaptive_g(f1, tx @ np.asarray(g_hat, dtype=float), xn, sigma2, normal_quantile_upper(rho), printed)
    return _first_term(a) + (f1 * xn) ** 2 / (2 * sigma**2) + np.abs(gP) / sigma**2, a >= 1


def alg9_adaptive_report(theta, records, target, loss, lam, sigma, sigma2, sigma3, sigma4, rho, rng,
                         printed=False, delta=None, tau=None) -> Report:
    """Algorithm 9 of seed 003 (the adaptive privacy report, any λ), notes §4.3: releases ĝP (Alg 10, σ2), ĤP
    (Alg 11, σ3) and λ̂P_min (Alg 8, σ4); λ̂ = max{λ, λ̂P_min − σ4c}; µP = min{((λ̂ + τσ3)/λ̂)xᵀĤP⁻¹x, ‖x‖²/λ̂} if
    λ̂ ≥ 2τσ3 else min{((λ̂ + 2τσ3)/λ̂)xᵀ(ĤP + τσ3I)⁻¹x, ‖x‖²/λ̂}; g^P = |f'ĝᵀx| + σ2|f'|‖x‖c (printed: without |·|,
    E8); ε^P_1 = |−log(1 − f''µP)| + f'²‖x‖²/(2σ²) + |g^P|/σ²; overhead ε2 + ε3 + ε4 per target at δ."""
    X, y = _split(records)
    loss = get_loss(loss)
    lam, sigma, sigma2 = _positive("lam", lam), _positive("sigma", sigma), _positive("sigma2", sigma2)
    sigma3, sigma4 = _positive("sigma3", sigma3), _positive("sigma4", sigma4)
    delta = float(rho if delta is None else delta)
    tau = goe_tau(X.shape[1], rho) if tau is None else float(tau)
    c = normal_quantile_upper(rho)
    theta = np.asarray(theta, dtype=float)
    H = glm_hessian(X, y, loss, lam, theta)
    g_hat = alg10_noisy_gradient(records, loss, lam, theta, sigma2, rng)
    H_hat = alg11_goe_hessian(H, sigma3, rng)
    lam_raw = alg8_lambda_min(H, sigma4, rng)
    lam_hat = max(lam, lam_raw - sigma4 * c)
    eps1P, undefined = report_adaptive(theta, target, loss, sigma, sigma2, sigma3, rho, g_hat, H_hat, lam_hat, tau,
                                       printed)
    tx, ty = _targets(target)
    u = tx @ theta
    f1, f2, xn = loss.d1(u, ty), loss.d2(u, ty), np.linalg.norm(tx, axis=1)
    eps2, eps3, eps4 = _costs(f1, f2, xn, sigma2, sigma3, sigma4, delta)
    return Report(eps1P, eps2, eps3, eps4, undefined, g_hat, H_hat, lam_hat, tau)


# ---------------------------------------------------------------------------------------------------------------
# Batched simulation (objective perturbation + report, many runs at once)


def batched_minimiser(X, y, loss, lam, B, tol=1e-12, max_iter=100) -> np.ndarray:
    """θ̂P for every row b of B at once: argmin Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + bᵀθ (seed 003, Algorithm 1), by damped
    Newton with per-run Armijo backtracking, to the stopping rule of solver.objpert_minimiser (‖∇J + b‖ ≤ tol·s).
    Raises PrecisionError if a run does not converge."""
    loss = get_loss(loss)
    B = np.atleast_2d(np.asarray(B, dtype=float))
    R, d = B.shape
    lam = _positive("lam", lam)
    eye = np.eye(d)
    row_norms = np.linalg.norm(X, axis=1)

    def objective(T):
        return loss.f(T @ X.T, y).sum(axis=1) + 0.5 * lam * np.einsum("ri,ri->r", T, T) + np.einsum("ri,ri->r", B, T)

    theta = -B / lam
    for _ in range(max_iter):
        U = theta @ X.T
        G1 = loss.d1(U, y)
        grad = G1 @ X + lam * theta + B
        scale = 1.0 + np.linalg.norm(B, axis=1) + lam * np.linalg.norm(theta, axis=1) + np.abs(G1) @ row_norms
        gnorm = np.linalg.norm(grad, axis=1)
        if np.all(gnorm <= tol * scale):
            return theta
        H = np.einsum("rn,ni,nj->rij", loss.d2(U, y), X, X) + lam * eye
        step = np.linalg.solve(H, grad[..., None])[..., 0]
        f0, slope = objective(theta), np.einsum("ri,ri->r", grad, step)
        t = np.ones(R)
        for _ in range(40):
            bad = objective(theta - t[:, None] * step) > f0 - 1e-4 * t * slope
            bad &= gnorm > 1e-6 * scale  # near the optimum take the full step (rounding in the objective)
            if not bad.any():
                break
            t[bad] *= 0.5
        theta = theta - t[:, None] * step
    raise PrecisionError(f"batched_minimiser: {int(np.sum(gnorm > tol * scale))} of {R} runs did not reach "
                         f"‖∇J + b‖ ≤ {tol:g}·s in {max_iter} Newton steps")


def simulate_report(records, target, loss, lam, sigma, sigma2, sigma3, rho, runs, seed=0, member="out",
                    printed=False, mode="DEP", tau=None, check_require=True, sigma4=None) -> dict[str, np.ndarray]:
    """Objective perturbation followed by Algorithm 2 (``mode`` "DEP" or "INDEP") or Algorithm 9 (``mode``
    "ADAPTIVE", with ``sigma4``), ``runs`` times, vectorised over runs, for one target z = (x, y) (a (d+1,) row):
    returns a dict of (runs,) arrays — the exact ex-post pDP terms T1, T2, T3 and L = T1 + T2 + T3 (Cor 2.3.2),
    eps1 = |L|, eps1bar = |T1| + T2 + |T3|, the report eps1P, its undefined flag, and the noise b (runs, d); ADAPTIVE
    adds lam_hat (λ̂ of Algorithm 9) and lam_min (λ_min(H)). ``member`` as in the module docstring. Seeded:
    numpy.random.default_rng(seed) draws b, then e (Alg 10), then Z (Alg 11), then (ADAPTIVE) the N(0, σ4²) of
    Alg 8, each as one (runs, ...) block. ADAPTIVE has no Require (Algorithm 9 works with any λ).

    Signature for the errata Monte Carlo (E8, E10): simulate_report(records, target, "logistic", lam=0.6, sigma=2,
    sigma2=2, sigma3=0.02, rho=1e-3, runs=4000, seed=..., printed=True|False)."""
    loss = get_loss(loss)
    X, y = _split(records)
    z = np.asarray(target, dtype=float).reshape(-1)
    x, yz = z[:-1], z[-1]
    if member == "in":
        X, y, s = np.vstack([X, x]), np.append(y, yz), -1.0
    elif member == "out":
        s = 1.0
    else:
        raise ParameterError(f"member: expected 'out' or 'in', got {member!r}")
    loss.check_labels(y)
    lam, sigma, sigma2 = _positive("lam", lam), _positive("sigma", sigma), _positive("sigma2", sigma2)
    sigma3 = _positive("sigma3", sigma3)
    n, d = X.shape
    rng = np.random.default_rng(seed)
    B = sigma * rng.standard_normal((runs, d))
    theta = batched_minimiser(X, y, loss, lam, B)
    U = theta @ X.T
    gradJ = loss.d1(U, y) @ X + lam * theta  # ∇J(θ̂P; D) (= −b at the exact minimiser)
    H = np.einsum("rn,ni,nj->rij", loss.d2(U, y), X, X) + lam * np.eye(d)
    u = theta @ x
    f1, f2, xn = loss.d1(u, yz), loss.d2(u, yz), float(np.linalg.norm(x))
    mu = np.einsum("i,ri->r", x, np.linalg.solve(H, np.broadcast_to(x, (runs, d))[..., None])[..., 0])
    T1 = -np.log1p(s * f2 * mu)
    T2 = (f1 * xn) ** 2 / (2 * sigma**2)
    T3 = s * f1 * (gradJ @ x) / sigma**2
    L = T1 + T2 + T3
    c = normal_quantile_upper(rho)
    out = {"T1": T1, "T2": T2, "T3": T3, "L": L, "eps1": np.abs(L), "eps1bar": np.abs(T1) + T2 + np.abs(T3), "b": B}
    if mode == "INDEP":
        a = f2 * xn**2 / lam * np.ones(runs)
        out["eps1P"] = _first_term(a) + T2 + sigma * np.abs(f1) * xn * c / sigma**2
        out["undefined"] = a >= 1
        return out
    if mode not in ("DEP", "ADAPTIVE"):
        raise ParameterError(f"mode: expected 'INDEP', 'DEP' or 'ADAPTIVE', got {mode!r}")
    if mode == "ADAPTIVE":
        return _simulate_adaptive(out, rng, x, f1, f2, xn, H, gradJ, lam, sigma, sigma2, sigma3,
                                  _positive("sigma4", sigma4), c, goe_tau(d, rho) if tau is None else float(tau),
                                  printed)
    if check_require:
        tau = goe_tau(d, rho) if tau is None else float(tau)
        if lam < 2 * sigma3 * tau:
            raise ConditionError("objpert.alg2_report", [f"lam_above_goe: λ = {lam:g} < 2σ3τ = "
                                                         f"{2 * sigma3 * tau:g} (Algorithm 2's Require)"])
    g_hat = gradJ + sigma2 * rng.standard_normal((runs, d))
    Z = sigma3 * rng.standard_normal((runs, d, d))
    H_hat = H + (Z + np.swapaxes(Z, 1, 2)) / SQRT2
    if not printed and np.any(np.linalg.eigvalsh(H_hat)[:, 0] <= 0):
        raise ConditionError("objpert.alg2_report", ["H_hat_positive: a released ĤP is not positive definite "
                                                     "(corrected Algorithm 2, erratum E9)"])
    mu_hat = np.einsum("i,ri->r", x, np.linalg.solve(H_hat, np.broadcast_to(x, (runs, d))[..., None])[..., 0])
    muP, gP = _dep_first_and_third(f1, f2, xn, g_hat @ x, mu_hat, lam, sigma, sigma2, c, printed)
    a = f2 * muP
    out["eps1P"] = _first_term(a) + T2 + np.abs(gP) / sigma**2
    out["undefined"] = a >= 1
    return out


def _simulate_adaptive(out, rng, x, f1, f2, xn, H, gradJ, lam, sigma, sigma2, sigma3, sigma4, c, tau, printed):
    """Algorithm 9 for every run of :func:`simulate_report` (the releases ĝP, ĤP, λ̂P_min drawn in that order, one
    block each): the same formulas as :func:`alg9_adaptive_report` (adaptive_mu, adaptive_g), batched over runs."""
    runs, d = gradJ.shape
    g_hat = gradJ + sigma2 * rng.standard_normal((runs, d))
    Z = sigma3 * rng.standard_normal((runs, d, d))
    H_hat = H + (Z + np.swapaxes(Z, 1, 2)) / SQRT2
    lam_min = np.linalg.eigvalsh(H)[:, 0]
    lam_hat = np.maximum(lam, lam_min + sigma4 * rng.standard_normal(runs) - sigma4 * c)
    ts = tau * sigma3
    xs = np.broadcast_to(x, (runs, d))[..., None]
    standard = lam_hat >= 2 * ts
    mu_std = np.full(runs, np.nan)
    mu_reg = np.full(runs, np.nan)
    if standard.any():
        mu_std[standard] = np.einsum("i,ri->r", x, np.linalg.solve(H_hat[standard], xs[standard])[..., 0])
    if (~standard).any():
        shifted = H_hat[~standard] + ts * np.eye(d)
        mu_reg[~standard] = np.einsum("i,ri->r", x, np.linalg.solve(shifted, xs[~standard])[..., 0])
    muP = adaptive_mu(lam_hat, ts, np.where(standard, mu_std, 0.0), np.where(standard, 0.0, mu_reg), xn)
    a = f2 * muP
    out["eps1P"] = _first_term(a) + out["T2"] + np.abs(adaptive_g(f1, g_hat @ x, xn, sigma2, c, printed)) / sigma**2
    out["undefined"] = a >= 1
    out["lam_hat"], out["lam_min"] = lam_hat, lam_min
    return out
