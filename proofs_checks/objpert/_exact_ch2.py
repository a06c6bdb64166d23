"""Exact and Monte Carlo computations behind the chapter-2 ``objpert.*`` errata and proof checks, written
independently of dpspec.reference (the cross-check side: each demonstration compares them with the reference
evaluator it concerns, reached by the contract's names through :mod:`._ref`).

Seed 003 (Redberg's dissertation, ``003_dabdd6bee088f80a.txt``), chapter 2 and appendix A (Redberg & Wang 2021,
arXiv 2111.02281); notes shared/notes/objpert-pdp.md (§3 pairs, §4 algorithms, §5 vectors, §6 errata, §8). Float64
numpy for the batched Monte Carlo of the privacy report (Algorithm 2) and the densities of the ObjPert release;
mpmath at the caller's precision for the closed forms. Nothing here is a statement of the catalogue.

- Logistic loss with labels ±1 (f, f', f''), a batched Newton solver of objective perturbation, the exact ex-post
  loss of Cor 2.3.2 (terms T1, T2, T3) and the direct log-density ratio by change of variables (Thm 2.3.1's proof,
  Lemma A.7.7), the thesis' recursive µ_j of Thm 2.3.1 (the proof device the slogdet form replaces).
- Algorithm 2 (DATA-DEP) with explicit noises, printed (g^P without |·|, µ^P without the min: E8, E9) and corrected,
  its upper-bound claim of Thm 2.3.5(3) (printed, and with ε̄1 and the proof's additive term: E10, E11).
- Kifer et al.'s calibration σ² = ξ²(8 log(2/δ) + 4ε)/ε² (Thm 2.2.5, E1), the analytic-Gaussian δ(ε).
- The GOE largest eigenvalue at d = 2 in closed form (both normalisations, E2), a GOE sampler.
- A non-GLM loss (pseudo-Huber in θ − x, full-rank Hessian) and the exact log-density of the ObjPert release under
  it, for the Thm 2.2.5 (non-GLM) search (E14).
- Clopper–Pearson intervals for Monte Carlo failure rates.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf
from scipy import stats
from scipy.special import expit, ndtri

# --- logistic loss, labels ±1 (notes §2.C "Specialisations") ------------------------------------------------------


def logistic_d1(u, y):
    """f'(u; y) = −y·sigmoid(−yu) for f = log(1 + e^{−yu})."""
    return -y * expit(-y * u)


def logistic_d2(u, y):
    """f''(u; y) = sigmoid(u)·sigmoid(−u) ∈ (0, 1/4]."""
    return expit(u) * expit(-u)


def logistic_f(u, y):
    return np.logaddexp(0.0, -y * u)


def newton_batch(X, y, lam, B, iters=60):
    """θ̂P for each row b of B: argmin Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖² + bᵀθ (eq. (2.2.1), logistic ±1), by plain
    Newton from θ = −b/λ on the whole batch (J is λ-strongly convex with f'' ≤ 1/4, so Newton converges from any
    start after a few damped-looking steps; the residual is returned to be checked)."""
    B = np.atleast_2d(np.asarray(B, dtype=float))
    R, d = B.shape
    theta = -B / lam
    eye = np.eye(d)
    for _ in range(iters):
        U = theta @ X.T  # (R, n)
        grad = logistic_d1(U, y) @ X + lam * theta + B
        W = logistic_d2(U, y)
        H = np.einsum("rn,ni,nj->rij", W, X, X) + lam * eye
        step = np.linalg.solve(H, grad[..., None])[..., 0]
        norm = np.linalg.norm(step, axis=1, keepdims=True)
        theta = theta - step * np.minimum(1.0, 2.0 / np.maximum(norm, 1e-300))  # cap early steps at length 2
        if np.max(np.linalg.norm(grad, axis=1)) < 1e-13 * (1 + np.max(np.abs(B))):
            break
    U = theta @ X.T
    resid = np.linalg.norm(logistic_d1(U, y) @ X + lam * theta + B, axis=1)
    return theta, resid


def hessian(X, y, lam, theta):
    """∇²J(θ; D) = Σ_i f''(x_iᵀθ) x_i x_iᵀ + λI for a batch of θ (rows)."""
    theta = np.atleast_2d(theta)
    W = logistic_d2(theta @ X.T, y)
    return np.einsum("rn,ni,nj->rij", W, X, X) + lam * np.eye(X.shape[1])


def expost_terms(X, y, x, yz, lam, sigma, theta, b, member="out"):
    """Cor 2.3.2 (notes §4.1 ExPostPDP_GLM) for a batch: T1 = −log(1 + s f''µ), T2 = f'²‖x‖²/(2σ²),
    T3 = −s f' bᵀx/σ² (∇J(θ̂P; D) = −b), s = +1 (z ∉ D, D holds X, y) or −1 (z ∈ D: X, y include z).
    Returns (T1, T2, T3, f', f'', µ) as arrays over the batch."""
    s = 1.0 if member == "out" else -1.0
    theta = np.atleast_2d(theta)
    u = theta @ x
    f1, f2 = logistic_d1(u, yz), logistic_d2(u, yz)
    H = hessian(X, y, lam, theta)
    mu = np.einsum("i,ri->r", x, np.linalg.solve(H, np.broadcast_to(x, theta.shape)[..., None])[..., 0])
    T1 = -np.log1p(s * f2 * mu)
    T2 = f1 ** 2 * (x @ x) / (2 * sigma ** 2)
    T3 = -s * f1 * (np.atleast_2d(b) @ x) / sigma ** 2
    return T1, T2, T3, f1, f2, mu


def log_density_glm(X, y, lam, sigma, theta):
    """log p_D(θ) of the ObjPert release by change of variables (Lemma A.7.7; notes §3.1):
    log φ_σ(∇J(θ; D)) + log det ∇²J(θ; D), b = −∇J(θ; D) (logistic ±1, r = 0). theta: (d,) or a batch (R, d)."""
    theta = np.asarray(theta, dtype=float)
    T = np.atleast_2d(theta)
    d = T.shape[1]
    g = logistic_d1(T @ X.T, y) @ X + lam * T
    H = hessian(X, y, lam, T)
    out = -np.sum(g * g, axis=1) / (2 * sigma ** 2) - d / 2 * math.log(2 * math.pi * sigma ** 2) + np.linalg.slogdet(H)[1]
    return out if theta.ndim == 2 else float(out[0])


def thesis_mu_product(H, G, s):
    """Thm 2.3.1's first term as printed: −log Π_j (1 ∓ µ_j), µ_j = λ_j u_jᵀ(∇b ∓ Σ_{k<j} λ_k u_k u_kᵀ)^{-1}u_j with
    ∇b = −H and the per-example Hessian G = Σ_k λ_k u_k u_kᵀ; "∓" is −s (add: s = +1). Returns (value, µ_j's)."""
    lam_j, U = np.linalg.eigh(G)
    mus, acc = [], np.zeros_like(H)
    for j in range(len(lam_j)):
        u = U[:, j]
        mus.append(lam_j[j] * u @ np.linalg.solve(-H - s * acc, u))
        acc = acc + lam_j[j] * np.outer(u, u)
    mus = np.array(mus)
    return -np.sum(np.log(1 - s * mus)), mus  # Π_j (1 ∓ µ_j) with ∓ = −s


# --- Algorithm 2 (DATA-DEP) with explicit noise; Thm 2.3.5(3) -----------------------------------------------------


def alg2_dep(x, yz, X, y, lam, sigma, sigma2, sigma3, rho, theta, b, e, Z, printed):
    """ε^P_1(z) of Algorithm 2, DATA-DEP branch (notes §4.2), for a batch of releases θ̂P (rows of theta) with the
    gradient noise e ~ N(0, σ2² I) and the GOE noise Z (d×d, N(0, σ3²) entries; Ĥ = H + (Z + Zᵀ)/√2) given.
    printed: g^P = min{f'ĝᵀx + σ2|f'|‖x‖c, σ|f'|‖x‖c} and µ^P = (3/2)xᵀĤ⁻¹x; corrected (E8, E9):
    g^P = min{|f'ĝᵀx| + σ2|f'|‖x‖c, σ|f'|‖x‖c}, µ^P = min{(3/2)xᵀĤ⁻¹x, ‖x‖²/λ}. ĝ = ∇J(θ̂P; D) + e = −b + e.
    Returns (ε^P_1, f''µ^P); ε^P_1 is +inf where f''µ^P ≥ 1 (the log is undefined) or Ĥ is not positive definite."""
    c = float(ndtri(1 - rho / 2))
    u = theta @ x
    f1, f2 = logistic_d1(u, yz), logistic_d2(u, yz)
    xn = math.sqrt(x @ x)
    ghat_x = (-b + e) @ x
    if printed:
        gp = np.minimum(f1 * ghat_x + sigma2 * np.abs(f1) * xn * c, sigma * np.abs(f1) * xn * c)
    else:
        gp = np.minimum(np.abs(f1 * ghat_x) + sigma2 * np.abs(f1) * xn * c, sigma * np.abs(f1) * xn * c)
    Hhat = hessian(X, y, lam, theta) + (Z + np.swapaxes(Z, 1, 2)) / math.sqrt(2)
    pd = np.all(np.linalg.eigvalsh(Hhat) > 0, axis=1)
    q = np.einsum("i,ri->r", x, np.linalg.solve(Hhat, np.broadcast_to(x, theta.shape)[..., None])[..., 0])
    mup = 1.5 * q if printed else np.minimum(1.5 * q, xn ** 2 / lam)
    a = f2 * mup
    with np.errstate(invalid="ignore", divide="ignore"):
        first = np.where(pd & (a < 1), np.abs(-np.log1p(-np.where(a < 1, a, 0.0))), np.inf)
    return first + f1 ** 2 * xn ** 2 / (2 * sigma ** 2) + np.abs(gp) / sigma ** 2, a


def additive_term(f1, xn, sigma, sigma2, rho, printed):
    """Thm 2.3.5(3)'s additive term: printed |f'|‖x‖√(2 log(2/ρ))/σ²; the proof's (E11)
    min{σ, σ2}|f'|‖x‖√(2 log(2/ρ))/σ²."""
    base = np.abs(f1) * xn * math.sqrt(2 * math.log(2 / rho)) / sigma ** 2
    return base if printed else min(sigma, sigma2) * base


# --- a fixed small logistic instance and the Monte Carlo of the report -------------------------------------------


def logistic_instance(n, d, seed):
    """A seeded logistic dataset: x_i uniform in the unit ball of R^d, labels ±1 from a noisy linear rule
    (y = sign(x_iᵀw + 0.5g), w ~ N(0, I)); the target is z = (e_1, +1) ∉ D (notes §6 E8)."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((n, d))
    X = G / np.linalg.norm(G, axis=1, keepdims=True) * rng.random((n, 1)) ** (1 / d)
    w = rng.standard_normal(d)
    y = np.where(X @ w + 0.5 * rng.standard_normal(n) >= 0, 1.0, -1.0)
    x = np.zeros(d)
    x[0] = 1.0
    return X, y, x, 1.0



E8_SETUP = dict(n=40, d=5, data_seed=2, lam=0.6, sigma=2.0, sigma2=2.0, sigma3=0.02, rho=1e-3)  # notes §6 E8


def e8_instance():
    """Erratum E8's instance: (records (n, d+1), target (d+1,)) = logistic_instance(40, 5, seed 2) with the target
    (e1, +1) ∉ D; its parameters are E8_SETUP (errata_ch2 E8, conformance op.objpert_report)."""
    Xd, y, x, yz = logistic_instance(E8_SETUP["n"], E8_SETUP["d"], E8_SETUP["data_seed"])
    return np.column_stack([Xd, y]), np.append(x, yz)

def report_monte_carlo(X, y, x, yz, lam, sigma, sigma2, sigma3, rho, runs, seed):
    """Seeded Monte Carlo of Algorithm 2 (DATA-DEP) on (D, z), z ∉ D: per run b, e, Z, θ̂P; returns a dict of
    boolean arrays: lower-bound failures ε1 > ε^P_1 (printed, corrected), upper-bound failures of Thm 2.3.5(3)
    (printed: ε^P_1 > 12ε1 + printed additive; ε1 with the proof's additive; ε̄1 = |T1| + T2 + |T3| with it), the
    arrays ε1, ε̄1, ε^P_1 and the solver residual."""
    rng = np.random.default_rng(seed)
    d = X.shape[1]
    B = sigma * rng.standard_normal((runs, d))
    E = sigma2 * rng.standard_normal((runs, d))
    Z = sigma3 * rng.standard_normal((runs, d, d))
    theta, resid = newton_batch(X, y, lam, B)
    T1, T2, T3, f1, _, _ = expost_terms(X, y, x, yz, lam, sigma, theta, B, "out")
    eps1 = np.abs(T1 + T2 + T3)
    bar = np.abs(T1) + T2 + np.abs(T3)
    rep_p, _ = alg2_dep(x, yz, X, y, lam, sigma, sigma2, sigma3, rho, theta, B, E, Z, printed=True)
    rep_c, _ = alg2_dep(x, yz, X, y, lam, sigma, sigma2, sigma3, rho, theta, B, E, Z, printed=False)
    xn = math.sqrt(x @ x)
    add_p = additive_term(f1, xn, sigma, sigma2, rho, True)
    add_c = additive_term(f1, xn, sigma, sigma2, rho, False)
    return {"lower_printed": eps1 > rep_p, "lower_corrected": eps1 > rep_c,
            "upper_printed": rep_p > 12 * eps1 + add_p, "upper_eps1_corrected_additive": rep_c > 12 * eps1 + add_c,
            "upper_bar_corrected": rep_c > 12 * bar + add_c,
            "eps1": eps1, "eps1_bar": bar, "report_printed": rep_p, "report_corrected": rep_c, "residual": resid,
            "B": B, "E": E, "Z": Z, "theta": theta}


def clopper_pearson(k, n, confidence=0.99):
    """Two-sided Clopper–Pearson interval for a binomial proportion (exact: beta quantiles)."""
    a = 1 - confidence
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


# --- Kifer et al.'s calibration, analytic Gaussian (mpmath) -------------------------------------------------------


def kifer_sigma(eps, delta, xi) -> mpf:
    """σ = ξ√(8 log(2/δ) + 4ε)/ε (Kifer, Smith & Thakurta 2012, Alg. 1: the variance is ξ²(8 log(2/δ) + 4ε)/ε²)."""
    eps, delta, xi = mpf(eps), mpf(delta), mpf(xi)
    return xi * mpmath.sqrt(8 * mpmath.log(2 / delta) + 4 * eps) / eps


def kifer_sigma_printed(eps, delta, xi) -> mpf:
    """Thm 2.2.5 as printed: σ = ξ²(8 log(2/δ) + 4ε1)/ε1² (the variance used as the standard deviation, E1)."""
    eps, delta, xi = mpf(eps), mpf(delta), mpf(xi)
    return xi ** 2 * (8 * mpmath.log(2 / delta) + 4 * eps) / eps ** 2


def gaussian_delta(eps, mu) -> mpf:
    """Analytic-Gaussian δ(ε) = Φ(µ/2 − ε/µ) − e^ε Φ(−µ/2 − ε/µ) for sensitivity/σ = µ (Balle & Wang 2018)."""
    eps, mu = mpf(eps), mpf(mu)
    return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


# --- the GOE largest eigenvalue at d = 2 (E2) --------------------------------------------------------------------


def goe2_cdf(x, norm="sqrt2") -> mpf:
    """P[λ1 ≤ x] for the 2×2 GOE. For A = (Z + Zᵀ)/√2 (diag N(0, 2), off-diagonal N(0, 1)): λ1 = U + √(V² + W²) with
    U = (A11 + A22)/2, V = (A11 − A22)/2, W = A12 iid N(0, 1), so P[λ1 ≤ x] = ∫_0^∞ Φ(x − r) r e^{−r²/2} dr
    = Φ(x) − e^{−x²/4} Φ(x/√2)/√2 (integration by parts). Chiani's (Z + Zᵀ)/2 is 1/√2 times it."""
    x = mpf(x) * (mpmath.sqrt(2) if norm == "chiani" else 1)
    return mpmath.ncdf(x) - mpmath.exp(-x ** 2 / 4) * mpmath.ncdf(x / mpmath.sqrt(2)) / mpmath.sqrt(2)


def goe2_cdf_quad(x, norm="sqrt2") -> mpf:
    """The same CDF by quadrature of ∫_0^∞ Φ(x − r) r e^{−r²/2} dr."""
    x = mpf(x) * (mpmath.sqrt(2) if norm == "chiani" else 1)
    return mpmath.quad(lambda r: mpmath.ncdf(x - r) * r * mpmath.exp(-r ** 2 / 2), [0, max(x, mpf(1)), mpmath.inf])


def goe_lambda1_samples(d, runs, seed, norm="sqrt2"):
    """λ1 of (Z + Zᵀ)/√2 (or /2 for norm="chiani"), Z with iid N(0, 1) entries, ``runs`` seeded draws."""
    rng = np.random.default_rng(seed)
    out = np.empty(runs)
    scale = math.sqrt(2) if norm == "sqrt2" else 2.0
    chunk = max(500, 50000 // (d * d))
    for start in range(0, runs, chunk):
        m = min(chunk, runs - start)
        Z = rng.standard_normal((m, d, d))
        out[start:start + m] = np.linalg.eigvalsh((Z + np.swapaxes(Z, 1, 2)) / scale)[:, -1]
    return out


# --- a non-GLM loss: pseudo-Huber in θ − x (E14) -----------------------------------------------------------------


def huber_grad_hess(theta, x, xi, beta):
    """ℓ(θ; z) = (ξ²/β)(√(1 + β²‖θ − x‖²/ξ²) − 1): convex, ‖∇ℓ‖ < ξ, ∇²ℓ ⪯ βI with ∇²ℓ(x) = βI (full rank: not
    a GLM). ∇ℓ = β r/q, ∇²ℓ = (β/q)(I − β² r rᵀ/(ξ² q²)), r = θ − x, q = √(1 + β²‖r‖²/ξ²). theta: (..., d)."""
    r = theta - x
    q = np.sqrt(1 + beta ** 2 * np.sum(r * r, axis=-1) / xi ** 2)
    g = beta * r / q[..., None]
    d = theta.shape[-1]
    Hs = beta / q[..., None, None] * (np.eye(d) - beta ** 2 * r[..., :, None] * r[..., None, :] / (xi ** 2 * q[..., None, None] ** 2))
    return g, Hs


def huber_pair_log_ratio(theta, x, xi, beta, lam, sigma):
    """L(θ) = log p_{D}(θ) − log p_{D'}(θ) for D = {z}, D' = ∅ (z ∈ D, removal) under the pseudo-Huber loss, by
    change of variables (notes §3.1): J_D = ℓ(·; z) + (λ/2)‖θ‖², J_∅ = (λ/2)‖θ‖², so
    L = log det(I + ∇²ℓ/λ) − (‖λθ + ∇ℓ‖² − ‖λθ‖²)/(2σ²). Also returns log p_D(θ)."""
    g, Hs = huber_grad_hess(theta, x, xi, beta)
    d = theta.shape[-1]
    logdet = np.linalg.slogdet(np.eye(d) + Hs / lam)[1]
    gD = lam * theta + g
    L = logdet - (np.sum(gD * gD, axis=-1) - lam ** 2 * np.sum(theta * theta, axis=-1)) / (2 * sigma ** 2)
    logp = -np.sum(gD * gD, axis=-1) / (2 * sigma ** 2) - d / 2 * math.log(2 * math.pi * sigma ** 2) \
        + np.linalg.slogdet(lam * np.eye(d) + Hs)[1]
    return L, logp


def huber_delta_lower(d, eps, delta, xi=1.0, beta=0.25, loss_beta=0.24, radius=4.0, step=0.08):
    """A lower bound on the per-instance δ_{D,z}(ε) = ∫(p_D − e^ε p_{D'})₊ of ObjPert at Thm 2.2.5's calibration
    (λ = 2β/ε, σ² = ξ²(8 log(2/δ) + 4ε)/ε²) for D = {z}, D' = ∅, the pseudo-Huber loss with curvature
    ``loss_beta`` < β (so ∇²ℓ ⪯ loss_beta·I ≺ βI, the theorem's strict hypothesis), x = e_1: the integral over the
    cube of half-width ``radius`` around x only (midpoint rule, a positive integrand; d ≤ 3 here).
    Returns (lower bound, max L on the grid, the log-det term d·log(1 + loss_beta/λ) at θ = x, λ, σ)."""
    lam = 2 * beta / eps
    sigma = float(kifer_sigma(eps, delta, xi))
    x = np.zeros(d)
    x[0] = 1.0
    ticks = np.arange(-radius + step / 2, radius, step)
    mesh = np.stack(np.meshgrid(*([ticks] * d), indexing="ij"), axis=-1).reshape(-1, d) + x
    total, Lmax = 0.0, -np.inf
    for start in range(0, mesh.shape[0], 200000):
        th = mesh[start:start + 200000]
        L, logp = huber_pair_log_ratio(th, x, xi, loss_beta, lam, sigma)
        Lmax = max(Lmax, float(L.max()))
        total += float(np.sum(np.exp(logp) * np.maximum(0.0, -np.expm1(eps - L))))
    return total * step ** d, Lmax, d * math.log1p(loss_beta / lam), lam, sigma


# --- Thm A.3.3's constant (E13) ----------------------------------------------------------------------------------


def a33_worst_ratio(c_factor=1.0, lam_at_least_2beta=True, lam_hat_fracs=(0.5, 0.6, 0.75, 0.9, 1.0)):
    """Grid of the adaptive report's worst first term over the true one, divided by Thm A.3.3's (1 + C/λ_min) with
    C = c_factor·(4τσ3 + 2β) (t = τσ3 = 1 fixes the scale). On the event ‖G‖ ≤ t the standard estimator gives
    µ^P ≤ m·µ with m = min{(1 + t/λ̂)·λ_min/(λ_min − t), λ_min/λ̂} (x along the λ_min eigenvector attains it),
    λ̂ ∈ [λ_min/2, λ_min] (the proof's λ̂ ≥ λ_min/2), λ̂ ≥ 2t (standard branch); the theorem's assumption
    λ_min ≥ max{2β, 2t}, and (``lam_at_least_2beta``) λ̂ ≥ 2β (from λ ≥ 2β, which the proof needs for µ^P ≤ 1/2);
    a = f''µ ∈ (0, β/λ_min]. The report's first term is −log(1 − a m) (Alg 9), the true one log(1 + a) (z ∉ D, the
    smaller of the two). Grid: λ_min/t ∈ [2, 60] (59 points), β/t ∈ [0.01, 30] (93), a/(β/λ_min) ∈ [0.01, 1] (50).
    Returns (max ratio, its point)."""
    lm = np.linspace(2, 60, 59)[:, None, None, None]
    beta = np.concatenate([np.linspace(0.01, 1, 34), np.linspace(1, 30, 59)])[None, :, None, None]
    lf = np.asarray(lam_hat_fracs, dtype=float)[None, None, :, None]
    af = np.linspace(0.01, 1, 50)[None, None, None, :]
    t = 1.0
    lh = lf * lm
    ok = (lm >= np.maximum(2 * beta, 2 * t)) & (lh >= 2 * t)
    if lam_at_least_2beta:
        ok = ok & (lh >= 2 * beta)
    m = np.minimum((1 + t / lh) * lm / (lm - t), lm / lh)
    a = af * beta / lm
    ok = ok & (a * m < 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = -np.log1p(-np.where(ok, a * m, 0.0)) / np.log1p(a) / (1 + c_factor * (4 * t + 2 * beta) / lm)
    ratio = np.where(ok, ratio, -np.inf)
    i = np.unravel_index(np.argmax(ratio), ratio.shape)
    shape = np.broadcast_shapes(lm.shape, beta.shape, lf.shape, af.shape)
    full = lambda arr: np.broadcast_to(arr, shape)[i]
    return float(ratio[i]), {"lam_min/t": float(full(lm)), "beta/t": float(full(beta)),
                             "lam_hat/lam_min": float(full(lf)), "a/(beta/lam_min)": float(full(af)),
                             "multiplier m": float(full(m))}
