"""Private privacy reports of objective perturbation on the torch fast path (float64, broadcasting): seed 003 chapter 2
and appendix A — the privacy of the report's releases as closed forms (Thm A.3.1: Algorithm 8's λ_min release; Thm
A.3.4: Algorithm 10's gradient release; Thm A.4.1: Algorithm 11's GOE Hessian release; Thm 2.3.5 (1)/(2): the report's
DP / pDP cost; Cor A.3.6: the calibrated overhead), and Algorithms 2 and 9 themselves, batched over many target
individuals (Algorithm 2 DATA-INDEP and DATA-DEP; Algorithm 9, the adaptive report, :func:`alg9_report` /
:func:`report_adaptive`; the corrected default with the printed g^P sign bug objpert.E8 and the missing minimum
objpert.E9 behind ``printed=True``). Mirrors ``dpspec.reference.objpert.report`` and ``.releases``.

Every release is a Gaussian mechanism with ℓ2 sensitivity-to-noise ratio S, and the text's ε is the tail bound
S²/2 + S√(2 log(1/δ)) (Lemma A.7.3/A.7.4; notes objpert-pdp.md §2.C-D); log(1/δ) = −log δ keeps δ down to 1e-300.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import ConditionError, ParameterError
from dpspec.reference.objpert import spec

from .._torch import params, refuse_outside

_SQRT2 = math.sqrt(2.0)


def gaussian_tail_eps(S: torch.Tensor, delta: torch.Tensor) -> torch.Tensor:
    """S²/2 + S√(2 log(1/δ)) (seed 003 Lemma A.7.3/A.7.4: the (ε, δ) tail bound of a Gaussian mechanism whose
    sensitivity over noise is S), unchecked tensors."""
    return S * S / 2 + S * torch.sqrt(-2 * torch.log(delta))


def thm_a3_1(beta, sigma4, delta) -> torch.Tensor:
    """ε4 = β²/(2σ4²) + β√(2 log(1/δ))/σ4: Algorithm 8's λ_min(H) + N(0, σ4²) release, Weyl sensitivity β = f''‖x‖²
    (seed 003 Thm A.3.1, ``objpert.thm_a3_1``)."""
    beta, sigma4, delta = params(beta=(beta, spec.P_HBETA.domain), sigma4=(sigma4, spec.P_SIGMA4.domain),
                                 delta=(delta, spec.P_DELTA.domain))
    return gaussian_tail_eps(beta / sigma4, delta)


def thm_a3_4(xi, sigma2, delta) -> torch.Tensor:
    """ε2 = ξ²/(2σ2²) + ξ√(2 log(1/δ))/σ2: Algorithm 10's noisy gradient, sensitivity ξ = ‖∇ℓ(θ̂P; z)‖ (seed 003
    Thm A.3.4, ``objpert.thm_a3_4``)."""
    xi, sigma2, delta = params(xi=(xi, spec.P_XI.domain), sigma2=(sigma2, spec.P_SIGMA2.domain),
                               delta=(delta, spec.P_DELTA.domain))
    return gaussian_tail_eps(xi / sigma2, delta)


def thm_a4_1(beta, sigma3, delta) -> torch.Tensor:
    """ε3 = β²/(4σ3²) + β√(2 log(1/δ))/(√2σ3): Algorithm 11's GOE Hessian release, sensitivity ‖H_x‖_F/√2 (seed 003
    Thm A.4.1, ``objpert.thm_a4_1``)."""
    beta, sigma3, delta = params(beta=(beta, spec.P_HBETA.domain), sigma3=(sigma3, spec.P_SIGMA3.domain),
                                 delta=(delta, spec.P_DELTA.domain))
    return gaussian_tail_eps(beta / sigma3 / _SQRT2, delta)  # not √2σ3: inexact for subnormal σ3


def thm2_3_5(xi, beta, sigma2, sigma3, delta, printed: bool = False) -> torch.Tensor:
    """ε = S²/2 + S√(2 log(1/δ)), S = √(ξ²/σ2² + β²/(2σ3²)): the DP (ξ, β suprema) or pDP (one target's) cost of
    Algorithm 2's extra releases (seed 003 Thm 2.3.5 (1)/(2), ``objpert.thm2_3_5``). ``printed``: β²/(2σ3³) in the
    root (erratum E12, not a bound)."""
    xi, beta, sigma2, sigma3, delta = params(
        xi=(xi, spec.P_XI.domain), beta=(beta, spec.P_HBETA.domain), sigma2=(sigma2, spec.P_SIGMA2.domain),
        sigma3=(sigma3, spec.P_SIGMA3.domain), delta=(delta, spec.P_DELTA.domain))
    g, h = xi / sigma2, beta / sigma3 / _SQRT2
    if printed:
        root = torch.sqrt(g * g + h * h / sigma3)
        return g * g / 2 + h * h / 2 + root * torch.sqrt(-2 * torch.log(delta))
    return gaussian_tail_eps(torch.hypot(g, h), delta)


def cor_a3_6(eps, hx, rho_max, delta) -> torch.Tensor:
    """ε(z) = ε²h_x²/(8ρ_max² log(1.25/δ)) + εh_x/(ρ_max√2): Thm A.4.1's pDP at σ3 = (ρ_max/ε)√(2 log(1.25/δ))
    (seed 003 Cor A.3.6 with σ3 for the printed σ2, erratum E19; ``objpert.cor_a3_6``)."""
    eps, hx, rho_max, delta = params(eps=(eps, spec.P_EPS_CAL.domain), hx=(hx, spec.P_HX.domain),
                                     rho_max=(rho_max, spec.P_RHO_MAX.domain), delta=(delta, spec.P_DELTA.domain))
    # r = εh_x/ρ_max in log space where the direct product or quotient leaves the normal range (subnormal ε, h_x or
    # ρ_max: 5e-324·1000/1e-320); relative error ≤ 1e-16·(|log ε| + |log h_x| + |log ρ_max|) < 3e-13 there
    direct = eps * (hx / rho_max)
    logs = torch.exp(torch.log(eps) + torch.log(hx) - torch.log(rho_max))
    normal = torch.isfinite(direct) & (direct > 1e-290) & (eps > 1e-290) & (hx > 1e-290) & (rho_max > 1e-290)
    r = torch.where(hx == 0, torch.zeros_like(direct), torch.where(normal, direct, logs))
    return r * r / (8 * (math.log(1.25) - torch.log(delta))) + r / _SQRT2


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 2, batched over targets (and Algorithms 10, 11: the releases, from a torch.Generator)


def _first_term(a: torch.Tensor) -> torch.Tensor:
    """|−log(1 − a)|, +inf where a ≥ 1 (the printed log-det bound is undefined there; flagged, never NaN)."""
    ok = a < 1
    return torch.where(ok, (-torch.log1p(-torch.where(ok, a, torch.zeros_like(a)))).abs(),
                       torch.full_like(a, math.inf))


def _target_terms(theta, targets, loss):
    from .expost import get_loss, split_records

    loss = get_loss(loss)
    tx, ty = split_records(targets, "target")
    th = torch.as_tensor(theta, dtype=torch.float64).reshape(-1)
    if th.numel() != tx.shape[1]:
        raise ParameterError(f"theta has {th.numel()} entries, the targets' features {tx.shape[1]}")
    loss.check_labels(ty)
    u = tx @ th
    return tx, loss.d1(u, ty), loss.d2(u, ty), torch.linalg.vector_norm(tx, dim=1), th


def _quantile(rho) -> float:
    """c = Φ⁻¹(1 − ρ/2) = −Φ⁻¹(ρ/2) (ρ down to 1e-300)."""
    (r,) = params(rho=(rho, spec.FAILURE))
    return float(-torch.special.ndtri(r / 2))


def report_indep(theta, targets, loss, lam, sigma, rho) -> torch.Tensor:
    """ε^P_1(z) of Algorithm 2, DATA-INDEP (seed 003; Thm 2.3.3 and Thm 2.3.4, GLM form) for every target row (x, y):
    |−log(1 − f''‖x‖²/λ)| + f'²‖x‖²/(2σ²) + |f'|‖x‖Φ⁻¹(1 − ρ/2)/σ (+inf where f''‖x‖² ≥ λ); ε2 = ε3 = 0.
    Mirrors reference/objpert/releases.py report_indep."""
    lam_t, sigma_t = params(lam=(lam, spec.P_LAM.domain), sigma=(sigma, spec.P_SIGMA.domain))
    tx, f1, f2, xn, _ = _target_terms(theta, targets, loss)
    c = _quantile(rho)
    g = f1.abs() * xn
    return _first_term(f2 * xn * xn / lam_t) + g * g / (2 * sigma_t**2) + g * c / sigma_t


def report_dep(theta, targets, loss, lam, sigma, sigma2, rho, g_hat, H_hat, printed: bool = False):
    """ε^P_1(z) of Algorithm 2, DATA-DEP, for every target row from the released ĝP (Algorithm 10) and ĤP
    (Algorithm 11), with one Cholesky factor of ĤP and one batched triangular solve: µP = min{(3/2)xᵀĤP⁻¹x, ‖x‖²/λ}
    (``printed``: no min, erratum E9), g^P = min{|f'ĝᵀx| + σ2|f'|‖x‖c, σ|f'|‖x‖c} (``printed``: f'ĝᵀx without |·|,
    erratum E8), c = Φ⁻¹(1 − ρ/2); ε^P_1 = |−log(1 − f''µP)| + f'²‖x‖²/(2σ²) + |g^P|/σ². Returns (ε^P_1, undefined:
    f''µP ≥ 1). The corrected form needs ĤP ≻ 0 (ConditionError otherwise). Mirrors releases.py report_dep."""
    lam_t, sigma_t, sigma2_t = params(lam=(lam, spec.P_LAM.domain), sigma=(sigma, spec.P_SIGMA.domain),
                                      sigma2=(sigma2, spec.P_SIGMA2.domain))
    tx, f1, f2, xn, _ = _target_terms(theta, targets, loss)
    Hh = torch.as_tensor(H_hat, dtype=torch.float64)
    gh = torch.as_tensor(g_hat, dtype=torch.float64).reshape(-1)
    chol, info = torch.linalg.cholesky_ex(Hh)
    if int(info) != 0:
        if not printed:
            raise ConditionError("objpert.alg2_report", ["H_hat_positive: the released ĤP must be positive definite "
                                                         "(corrected Algorithm 2, erratum E9)"])
        mu_hat = (tx * torch.linalg.solve(Hh, tx.T).T).sum(1)
    else:
        w = torch.linalg.solve_triangular(chol, tx.T, upper=False)
        mu_hat = (w * w).sum(0)
    mu_p = 1.5 * mu_hat if printed else torch.minimum(1.5 * mu_hat, xn * xn / lam_t)
    c = _quantile(rho)
    gx = f1 * (tx @ gh)
    g_p = torch.minimum((gx if printed else gx.abs()) + sigma2_t * f1.abs() * xn * c, sigma_t * f1.abs() * xn * c)
    a = f2 * mu_p
    eps1p = _first_term(a) + (f1 * xn) ** 2 / (2 * sigma_t**2) + g_p.abs() / sigma_t**2
    return eps1p, a >= 1


def _generator(generator) -> torch.Generator:
    if isinstance(generator, torch.Generator):
        return generator
    g = torch.Generator()
    g.manual_seed(0 if generator is None else int(generator))
    return g


def alg10_noisy_gradient(records, loss, lam, theta, sigma2, generator=None) -> torch.Tensor:
    """ĝP = ∇L(θ̂P; D) + λθ̂P + e, e ~ N(0, σ2²I_d) (seed 003 Algorithm 10, r = 0; = −b + e at the exact minimiser)."""
    from .expost import factor, split_records

    X, y = split_records(records)
    fac = factor(X, y, theta, lam, 1.0, loss)
    (s2,) = params(sigma2=(sigma2, spec.P_SIGMA2.domain))
    return fac.grad + float(s2) * torch.randn(X.shape[1], generator=_generator(generator), dtype=torch.float64)


def alg11_goe_hessian(H, sigma3, generator=None) -> torch.Tensor:
    """ĤP = H + (Z + Zᵀ)/√2, Z_ij ~ N(0, σ3²) (seed 003 Algorithm 11: off-diagonal N(0, σ3²), diagonal N(0, 2σ3²))."""
    H = torch.as_tensor(H, dtype=torch.float64)
    (s3,) = params(sigma3=(sigma3, spec.P_SIGMA3.domain))
    Z = float(s3) * torch.randn(H.shape, generator=_generator(generator), dtype=torch.float64)
    return H + (Z + Z.T) / _SQRT2


def alg2_report(theta, records, targets, loss, lam, sigma, sigma2, sigma3, rho, mode: str = "DEP", generator=None,
                printed: bool = False, delta=None, tau=None) -> dict:
    """Algorithm 2 of seed 003 (the privacy report of ObjPert on GLMs; notes objpert-pdp.md §4.2) for every target
    row at once. "INDEP": :func:`report_indep`, ε2 = ε3 = 0. "DEP": releases ĝP (Algorithm 10, σ2) and ĤP (Algorithm
    11, σ3) from ``generator`` (one torch.Generator for both, in that order), checks the Require λ ≥ 2σ3τ(d, ρ)
    (condition lam_above_goe; τ from fast/objpert/goe.py unless given), and reports ε^P_1 (:func:`report_dep`) with
    ε2 (Thm A.3.4) and ε3 (Thm A.4.1) per target at ``delta`` (default ρ). Returns a dict of (m,) tensors
    (eps1P, eps2, eps3, undefined) and the releases (g_hat, H_hat, tau)."""
    from .expost import factor, get_loss, split_records

    delta = float(rho if delta is None else delta)
    if mode == "INDEP":
        eps1p = report_indep(theta, targets, loss, lam, sigma, rho)
        zero = torch.zeros_like(eps1p)
        return {"eps1P": eps1p, "eps2": zero, "eps3": zero, "undefined": ~torch.isfinite(eps1p)}
    if mode != "DEP":
        raise ParameterError(f"mode: expected 'INDEP' or 'DEP', got {mode!r}")
    X, y = split_records(records)
    d = X.shape[1]
    if tau is None:
        from .goe import goe_quantile

        tau = float(goe_quantile(d, rho))
    lam_f, s3 = float(lam), float(sigma3)
    refuse_outside("objpert.alg2_report", [(spec.GOE_REQUIREMENT, lam_f >= 2 * s3 * float(tau))])
    gen = _generator(generator)
    fac = factor(X, y, theta, lam, 1.0, get_loss(loss))
    H = fac.chol @ fac.chol.T
    g_hat = fac.grad + float(sigma2) * torch.randn(d, generator=gen, dtype=torch.float64)
    H_hat = alg11_goe_hessian(H, s3, gen)
    eps1p, undefined = report_dep(theta, targets, loss, lam, sigma, sigma2, rho, g_hat, H_hat, printed)
    _, f1, f2, xn, _ = _target_terms(theta, targets, loss)
    dl = torch.tensor(delta, dtype=torch.float64)
    eps2 = gaussian_tail_eps(f1.abs() * xn / float(sigma2), dl)
    eps3 = gaussian_tail_eps(f2 * xn * xn / s3 / _SQRT2, dl)
    return {"eps1P": eps1p, "eps2": eps2, "eps3": eps3, "undefined": undefined, "g_hat": g_hat, "H_hat": H_hat,
            "tau": float(tau)}


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 9 (the adaptive report, any λ), batched over targets


def _quadratic(M: torch.Tensor, tx: torch.Tensor) -> torch.Tensor:
    """xᵀM⁻¹x for every row x of tx: one Cholesky factor and one batched triangular solve; a general solve where M
    is not positive definite (the release's GOE noise beyond its good event: the value is then what the text's
    formula gives, and ε^P_1 is not claimed there)."""
    chol, info = torch.linalg.cholesky_ex(M)
    if int(info) != 0:
        return (tx * torch.linalg.solve(M, tx.T).T).sum(1)
    w = torch.linalg.solve_triangular(chol, tx.T, upper=False)
    return (w * w).sum(0)


def report_adaptive(theta, targets, loss, sigma, sigma2, sigma3, rho, g_hat, H_hat, lam_hat, tau,
                    printed: bool = False):
    """ε^P_1(z) of Algorithm 9 (seed 003; notes objpert-pdp.md §4.3) for every target row, from the released ĝP
    (Algorithm 10), ĤP (Algorithm 11) and λ̂ = max{λ, λ̂P_min − σ4c} (Algorithm 8): µP = min{((λ̂ + τσ3)/λ̂)xᵀĤP⁻¹x,
    ‖x‖²/λ̂} where λ̂ ≥ 2τσ3 (Prop A.3.2 (iii)), else min{((λ̂ + 2τσ3)/λ̂)xᵀ(ĤP + τσ3I)⁻¹x, ‖x‖²/λ̂} (Prop A.3.2
    (ii)); g^P = |f'ĝᵀx| + σ2|f'|‖x‖c (``printed``: f'ĝᵀx without |·|, erratum E8); ε^P_1 = |−log(1 − f''µP)| +
    f'²‖x‖²/(2σ²) + |g^P|/σ². One factorisation for all targets. Returns (ε^P_1, undefined: f''µP ≥ 1). Mirrors
    reference/objpert/releases.py report_adaptive."""
    return _adaptive_from_terms(_target_terms(theta, targets, loss), sigma, sigma2, sigma3, rho, g_hat, H_hat, lam_hat,
                                tau, printed)


def _adaptive_from_terms(terms, sigma, sigma2, sigma3, rho, g_hat, H_hat, lam_hat, tau, printed):
    """:func:`report_adaptive` from the targets' (x, f', f'', ‖x‖) already computed (one pass over the targets)."""
    sigma_t, sigma2_t, sigma3_t = params(sigma=(sigma, spec.P_SIGMA.domain), sigma2=(sigma2, spec.P_SIGMA2.domain),
                                         sigma3=(sigma3, spec.P_SIGMA3.domain))
    lh, tau_f = float(lam_hat), float(tau)
    if not (math.isfinite(lh) and lh > 0 and math.isfinite(tau_f) and tau_f > 0):
        raise ParameterError(f"report_adaptive: λ̂ = {lh!r} and τ = {tau_f!r} must be positive and finite")
    tx, f1, f2, xn, _ = terms
    Hh = torch.as_tensor(H_hat, dtype=torch.float64)
    ts = tau_f * float(sigma3_t)
    if lh >= 2 * ts:
        mu = (lh + ts) / lh * _quadratic(Hh, tx)
    else:
        mu = (lh + 2 * ts) / lh * _quadratic(Hh + ts * torch.eye(Hh.shape[0], dtype=torch.float64), tx)
    mu_p = torch.minimum(mu, xn * xn / lh)
    c = _quantile(rho)
    gx = f1 * (tx @ torch.as_tensor(g_hat, dtype=torch.float64).reshape(-1))
    g_p = (gx if printed else gx.abs()) + sigma2_t * f1.abs() * xn * c
    a = f2 * mu_p
    return _first_term(a) + (f1 * xn) ** 2 / (2 * sigma_t**2) + g_p.abs() / sigma_t**2, a >= 1


def alg9_report(theta, records, targets, loss, lam, sigma, sigma2, sigma3, sigma4, rho, generator=None,
                printed: bool = False, delta=None, tau=None) -> dict:
    """Algorithm 9 of seed 003 (the adaptive privacy report; notes objpert-pdp.md §4.3) for every target row at once:
    releases ĝP (Algorithm 10, σ2), ĤP (Algorithm 11, σ3) and λ̂P_min = λ_min(H) + N(0, σ4²) (Algorithm 8), drawn
    from ``generator`` in that order (as the reference draws them); λ̂ = max{λ, λ̂P_min − σ4c}; ε^P_1 by
    :func:`report_adaptive`; the overhead per target at ``delta`` (default ρ): ε2 (Thm A.3.4), ε3 (Thm A.4.1), ε4
    (Thm A.3.1). No Require: Algorithm 9 works with any λ. Returns a dict of (m,) tensors (eps1P, eps2, eps3, eps4,
    undefined) and the releases (g_hat, H_hat, lam_hat, tau). Mirrors reference/objpert/releases.py
    alg9_adaptive_report (same formulas; tests compare them on the same releases)."""
    from .expost import factor, get_loss, split_records

    X, y = split_records(records)
    d = X.shape[1]
    (s4,) = params(sigma4=(sigma4, spec.P_SIGMA4.domain))
    if tau is None:
        from .goe import goe_quantile

        tau = float(goe_quantile(d, rho))
    delta = float(rho if delta is None else delta)
    gen = _generator(generator)
    fac = factor(X, y, theta, lam, 1.0, get_loss(loss))
    H = fac.chol @ fac.chol.T
    g_hat = fac.grad + float(sigma2) * torch.randn(d, generator=gen, dtype=torch.float64)
    H_hat = alg11_goe_hessian(H, sigma3, gen)
    lam_raw = float(torch.linalg.eigvalsh(H)[0]) + float(s4) * float(torch.randn((), generator=gen,
                                                                                  dtype=torch.float64))
    lam_hat = max(float(lam), lam_raw - float(s4) * _quantile(rho))
    terms = _target_terms(theta, targets, loss)
    eps1p, undefined = _adaptive_from_terms(terms, sigma, sigma2, sigma3, rho, g_hat, H_hat, lam_hat, tau, printed)
    _, f1, f2, xn, _ = terms
    dl = torch.tensor(delta, dtype=torch.float64)
    hx = f2 * xn * xn
    return {"eps1P": eps1p, "eps2": gaussian_tail_eps(f1.abs() * xn / float(sigma2), dl),
            "eps3": gaussian_tail_eps(hx / float(sigma3) / _SQRT2, dl), "eps4": gaussian_tail_eps(hx / float(s4), dl),
            "undefined": undefined, "g_hat": g_hat, "H_hat": H_hat, "lam_hat": lam_hat, "tau": float(tau)}
