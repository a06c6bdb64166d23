"""Objective perturbation for GLMs on the torch fast path (float64, broadcasting): seed 003 chapter 4 and appendix C —
Theorem 4.3.1 (the privacy profile δ(ε), corrected: errata E4_1/E4_2), Theorem 4.3.2 (RDP, with the α → 1 series)
and its α = 1 clause (E4_5), Lemma 4.3.4 (the Gaussian lower bound), Lemma C.4.3 (the per-instance profile in ‖x‖),
Lemma C.4.6 (the trade-off function of the corrected dominating pair) and Theorem C.5.1 (non-GLM RDP, the χ_d moment
generating function in log space). Mirrors ``dpspec.reference.objpert.glm_bounds`` / ``nonglm``.

Notation (notes objpert-rdp.md): a = −log(1 − β/λ) (the Jacobian term, finite iff λ > β), c = L²/(2σ²), v = L/σ.
The privacy loss is dominated by ω = a + c + v·Y with Y ~ |N(0, 1)|, and every profile here is E[1 − e^{ε − ω}]₊ of
such a shifted half-normal: with t = ε − a − c + v²/2 (the Gaussian profile's argument),

    t ≥ v²/2:  δ = 2·δ_G(t; v)                 (δ_G: the Gaussian profile of N(v, 1) vs N(0, 1))
    t < v²/2:  δ = 1 − e^t·2Φ(−v) = −expm1(t + log 2 + log Φ(−v))

(notes §2.2, "unified form", and §8 "stable evaluation"); δ_G comes from ``fast.base.gaussian.log_delta_shift``
(log space, no cancellation), so δ keeps its relative precision down to 1e-300 and below.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import EPS_REAL as _EPS_REAL
from dpspec.reference.domains import ALPHA
from dpspec.reference.objpert import spec

from .._torch import gauss_legendre, log1mexp, params, refuse_outside
from ..base.gaussian import log_delta_shift

LOG2 = math.log(2.0)
_SQRT2 = math.sqrt(2.0)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_SERIES_BELOW = 1e-5  # t = (α − 1)v below this: the series of log(2Φ(t))/t (error O(t³) ≈ 1e-16 relative)

_log_ndtr = torch.special.log_ndtr


# ---------------------------------------------------------------------------------------------------------------
# shared pieces


def jacobian_term(beta: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
    """a = −log(1 − β/λ) (seed 003 Thm 4.3.1; +inf where β = λ): −log((λ − β)/λ) where β/λ > 1/2 (λ − β is exact
    there, Sterbenz: 1 − β/λ formed from the rounded quotient lost ~1e-16/(1 − β/λ) relative as β/λ → 1), else
    −log1p(−β/λ)."""
    r = beta / lam
    near = r > 0.5
    return torch.where(near, -torch.log(torch.where(near, (lam - beta) / lam, torch.ones_like(r))), -torch.log1p(-r))


def log_2phi_neg(w: torch.Tensor) -> torch.Tensor:
    """log(2Φ(−w)) for w ≥ 0: log1p(−erf(w/√2)) below 1 (log 2 + log Φ(−w) cancels to ~1e-16/w relative as w → 0),
    log 2 + log_ndtr(−w) above (notes objpert-rdp.md §8)."""
    small = w < 1
    ws = torch.where(small, w, torch.zeros_like(w))
    return torch.where(small, torch.log1p(-torch.special.erf(ws / _SQRT2)), LOG2 + _log_ndtr(-w))


def log_halfnormal_profile(t: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """log E[1 − e^{t − v²/2 − vY}]₊, Y ~ |N(0, 1)| (module docstring): log 2 + log δ_G(t; v) where t ≥ v²/2, else
    log(−expm1(t + log 2 + log Φ(−v))). v = 0 gives log[1 − e^t]₊."""
    upper = t >= v * v / 2
    pos = v > 0
    vv = torch.where(pos, v, torch.ones_like(v))
    tu = torch.where(upper & pos, t, vv * vv / 2 + 1)
    log_up = LOG2 + log_delta_shift(tu, vv)
    tl = torch.where(upper, torch.zeros_like(t), t)
    inner = tl + log_2phi_neg(v)  # ≤ 0 where t < v²/2 (the profile at t = v²/2 is ≥ 0)
    log_low = torch.log(-torch.expm1(torch.clamp(inner, max=0.0)))
    out = torch.where(upper, log_up, log_low)
    zero_v = torch.where(t < 0, log1mexp(torch.clamp(t, max=0.0)), torch.full_like(t, -math.inf))
    return torch.where(pos, out, zero_v)


def _ch4_params(sigma, lam, beta, L, first=None, **after):
    """Checked, broadcast tensors in the order: ``first`` (name, (value, domain)), σ, λ, β, L, then ``after``."""
    head = dict([first]) if first is not None else {}
    return params(**head, sigma=(sigma, spec.P_SIGMA.domain), lam=(lam, spec.P_LAM.domain),
                  beta=(beta, spec.P_BETA.domain), L=(L, spec.P_L.domain), **after)


def _refuse_beta(sid: str, beta, lam, allow_outside: bool) -> None:
    refuse_outside(sid, [(spec.LAMBDA_ABOVE_BETA, lam > beta)], allow_outside)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 4.3.1: the privacy profile


def objpert_log_delta(eps, sigma, lam, beta, L, printed: bool = False, allow_outside: bool = False) -> torch.Tensor:
    """log δ(ε) of Theorem 4.3.1 (seed 003, corrected; notes objpert-rdp.md §2.2 and §8), every real ε. ``printed``:
    the main text's form (errata E4_1/E4_2: ε̃ = ε + a, ε̂ = ε + a − c, H_{e^{L²/σ²}} in the second case) — not a
    bound."""
    eps, sigma, lam, beta, L = _ch4_params(sigma, lam, beta, L, first=("eps", (eps, _EPS_REAL)))
    _refuse_beta("objpert.thm4_3_1", beta, lam, allow_outside)
    a = jacobian_term(beta, lam)
    v = L / sigma
    if not printed:
        return log_halfnormal_profile(eps - a, v)
    c = v * v / 2
    e_hat = eps + a - c
    first = LOG2 + log_delta_shift(torch.where(e_hat >= 0, eps + a, c), v)
    log_h2 = LOG2 + log_delta_shift(2 * c, v)  # 2·H_{e^{L²/σ²}}
    en = torch.clamp(e_hat, max=0.0)
    second = torch.logaddexp(log1mexp(en), en + log_h2)
    return torch.where(e_hat >= 0, first, second)


def objpert_delta(eps, sigma, lam, beta, L, printed: bool = False, allow_outside: bool = False) -> torch.Tensor:
    """δ(ε) = E[1 − e^{ε − ω}]₊, ω = a + c + |N(0, L²/σ²)| (seed 003 Thm 4.3.1, corrected; ``objpert.thm4_3_1``),
    every real ε; condition λ > β. Below the float64 range δ underflows to 0 (``objpert_log_delta`` keeps it)."""
    return torch.exp(objpert_log_delta(eps, sigma, lam, beta, L, printed=printed, allow_outside=allow_outside))


def objpert_delta_sherman_morrison(eps, sigma, lam, beta, L) -> torch.Tensor:
    """Theorem 4.3.1 with a' = log(1 + β/λ) in place of a (erratum E4_16, Sherman–Morrison; valid for every λ > 0,
    no λ > β needed)."""
    eps, sigma, lam, beta, L = _ch4_params(sigma, lam, beta, L, first=("eps", (eps, _EPS_REAL)))
    return torch.exp(log_halfnormal_profile(eps - torch.log1p(beta / lam), L / sigma))


# ---------------------------------------------------------------------------------------------------------------
# Theorem 4.3.2: RDP


def log2phi_over_t(t: torch.Tensor) -> torch.Tensor:
    """log(2Φ(t))/t for t ≥ 0 = log1p(erf(t/√2))/t (stable as t → 0), and the series √(2/π) − t/π +
    (k³/3 − k/6)t² (k = √(2/π)) below 1e-5; t = 0 gives √(2/π) (notes objpert-rdp.md §8)."""
    small = t < _SERIES_BELOW
    ts = torch.where(small, torch.ones_like(t), t)
    direct = torch.log1p(torch.special.erf(ts / _SQRT2)) / ts
    k = _SQRT_2_OVER_PI
    series = k - t / math.pi + (k**3 / 3 - k / 6) * t * t
    return torch.where(small, series, direct)


def quadratic_term(alpha: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """αv²/2 without a spurious under- or overflow: (αv)·v/2 for v < 1 (v² underflows at v ≈ 1e-160 while α v² may
    be a double), α·(v²/2) otherwise."""
    return torch.where(v < 1, (alpha * v) * v / 2, alpha * (v * v / 2))


def log2phi_term(alpha: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """log(2Φ((α − 1)v))/(α − 1) = v·log(2Φ(t))/t, t = (α − 1)v: the series times v for t < 1e-5, else
    log1p(erf(t/√2))/(α − 1) (no inf·0 where v overflows: log 2/(α − 1) there)."""
    t = (alpha - 1) * v
    small = t < _SERIES_BELOW
    direct = torch.log1p(torch.special.erf(torch.where(small, torch.ones_like(t), t) / _SQRT2)) / (alpha - 1)
    return torch.where(small, v * log2phi_over_t(torch.where(small, t, torch.zeros_like(t))), direct)


def objpert_rdp(alpha, sigma, lam, beta, L, allow_outside: bool = False) -> torch.Tensor:
    """ε(α) = a + αL²/(2σ²) + log(2Φ((α − 1)L/σ))/(α − 1) (seed 003 Thm 4.3.2, closed form with the half-normal MGF;
    ``objpert.thm4_3_2``); condition λ > β."""
    alpha, sigma, lam, beta, L = _ch4_params(sigma, lam, beta, L, first=("alpha", (alpha, ALPHA)))
    _refuse_beta("objpert.thm4_3_2", beta, lam, allow_outside)
    v = L / sigma
    return jacobian_term(beta, lam) + quadratic_term(alpha, v) + log2phi_term(alpha, v)


def objpert_rdp_alpha1(sigma, lam, beta, L, clause: bool = False, allow_outside: bool = False) -> torch.Tensor:
    """The α = 1 (KL) value: the limit a + c + (L/σ)√(2/π) (seed 003 Thm 4.3.2 as α → 1; ``objpert.thm4_3_2_kl``);
    ``clause``: the printed α = 1 clause a + c + log E e^{|X|} = the α = 2 value (erratum E4_5, valid, looser)."""
    sigma, lam, beta, L = _ch4_params(sigma, lam, beta, L)
    _refuse_beta("objpert.thm4_3_2_kl", beta, lam, allow_outside)
    v = L / sigma
    a = jacobian_term(beta, lam)
    if clause:
        return a + v * v + torch.log1p(torch.special.erf(v / _SQRT2))
    return a + v * v / 2 + v * _SQRT_2_OVER_PI


# ---------------------------------------------------------------------------------------------------------------
# Lemma 4.3.4, Lemma C.4.3, Lemma C.4.6


def gaussian_lower(eps, sigma, L) -> torch.Tensor:
    """H_{e^ε}(N(0, σ²) ‖ N(L, σ²)) = Φ(L/(2σ) − εσ/L) − e^ε Φ(−L/(2σ) − εσ/L): the Gaussian profile with Δ = L that
    the worst case of ObjPert reaches (seed 003 Lemma 4.3.4, corrected quantifier E4_7; every real ε)."""
    eps, sigma, L = params(eps=(eps, _EPS_REAL), sigma=(sigma, spec.P_SIGMA.domain), L=(L, spec.P_L.domain))
    from ..base.gaussian import log_profile_real

    v = L / sigma
    return torch.exp(log_profile_real(eps, lambda e: log_delta_shift(e, v)))


def per_instance_delta(eps, sigma, lam, beta, L, x_norm, allow_outside: bool = False) -> torch.Tensor:
    """E[1 − e^{ε − ω_x}]₊, ω_x = a + c + |N(0, ‖x‖²L²/σ²)| (seed 003 Lemma C.4.3, the mean 0 restored; notes §2.3):
    the half-normal profile with v_x = ‖x‖L/σ at t = ε − a − c + v_x²/2; condition λ > β."""
    eps, sigma, lam, beta, L, x_norm = _ch4_params(sigma, lam, beta, L, ("eps", (eps, _EPS_REAL)),
                                                   x_norm=(x_norm, spec.X_NORM_UNIT))
    _refuse_beta("objpert.lemma_c4_3", beta, lam, allow_outside)
    v = L / sigma
    vx = x_norm * v
    root = torch.sqrt((1 - x_norm) * (1 + x_norm))
    w = torch.where(root == 0, torch.zeros_like(v), root * v)  # (1 − ‖x‖²)c = w²/2, no 0·inf at ‖x‖ = 1, v = inf
    t = eps - jacobian_term(beta, lam) - w * w / 2
    return torch.exp(log_halfnormal_profile(t, vx))


def objpert_tradeoff(alpha, sigma, lam, beta, L, allow_outside: bool = False) -> torch.Tensor:
    """f(α) = 2e^{−a}[1 − Φ(Φ⁻¹((1 + α)/2) + L/σ)] = 2e^{−a}Φ(Φ⁻¹((1 − α)/2) − L/σ), α ∈ [0, 1]: the trade-off
    function of the corrected dominating pair (seed 003 Lemma C.4.6; notes objpert-rdp.md §2.3); λ > β."""
    alpha, sigma, lam, beta, L = _ch4_params(sigma, lam, beta, L, first=("alpha", (alpha, spec.TYPE_I)))
    _refuse_beta("objpert.lemma_c4_6", beta, lam, allow_outside)
    z = torch.special.ndtri((1 - alpha) / 2)  # = −Φ⁻¹((1 + α)/2), exact near α = 1
    return torch.exp(LOG2 - jacobian_term(beta, lam) + _log_ndtr(z - L / sigma))


# ---------------------------------------------------------------------------------------------------------------
# Theorem C.5.1: non-GLM RDP with the χ_d moment generating function

_CHI_NODES = 24      # Gauss–Legendre nodes per segment
_CHI_SEGMENTS = 24   # segments on [max(0, z* − 40), z* + 40] (the log-density is 1-strongly concave)
_CHI_HALF = 40.0
_CHI_EXPM1_BELOW = 1.0  # t below this: log M = log1p(E[expm1(tZ)]) (relative precision as t → 0)


def _log1p_minus(u: torch.Tensor) -> torch.Tensor:
    """log(1 + u) − u for u > −1, without cancellation: the alternating series to u^40 for |u| < 0.25 (error below
    0.25^41/41 relative to u²/2, < 1e-24), log1p(u) − u otherwise."""
    small = u.abs() < 0.25
    us = torch.where(small, u, torch.zeros_like(u))
    acc = torch.zeros_like(u)
    power = us * us
    for k in range(2, 41):
        acc = acc + (1 if k % 2 else -1) * power / k
        power = power * us
    return torch.where(small, acc, torch.log1p(torch.where(small, torch.zeros_like(u), u)) - u)


def _chi_log_q(z: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """log of the χ_d density up to a constant, q(z) = (z/z0)^{d−1} e^{−(z² − z0²)/2}, z0 = √(d − 1) (its mode):
    with u = z/z0 − 1, log q = z0²(log1p(u) − u) − (z − z0)²/2 — no cancellation of terms of size d (d up to
    1e15 keeps full precision; d = 1: −z²/2)."""
    z0 = torch.sqrt(d - 1)
    one = d == 1
    z0s = torch.where(one, torch.ones_like(z0), z0)
    u = z / z0s - 1
    w = z - z0s
    return torch.where(one, -z * z / 2, (z0s * z0s) * _log1p_minus(u) - w * w / 2)


def _chi_nodes(centre: torch.Tensor, d: torch.Tensor):
    """Nodes z (..., S·n) and log weights + log q(z) on [max(0, centre − 40), centre + 40] (composite Gauss–Legendre;
    the log-integrands used here are 1-strongly concave with their mode at ``centre``, so the window holds all but
    e^{−800} of the mass)."""
    lo = torch.clamp(centre - _CHI_HALF, min=0.0)
    hi = centre + _CHI_HALF
    edges = torch.linspace(0, 1, _CHI_SEGMENTS + 1, dtype=centre.dtype, device=centre.device)
    br = lo.unsqueeze(-1) + (hi - lo).unsqueeze(-1) * edges  # (..., S+1)
    x, w = gauss_legendre(_CHI_NODES, centre)
    a, b = br[..., :-1], br[..., 1:]
    half = (b - a) / 2
    z = ((a + half).unsqueeze(-1) + half.unsqueeze(-1) * x).flatten(-2)
    log_w = (torch.log(half).unsqueeze(-1) + torch.log(w)).flatten(-2)
    return z, log_w + _chi_log_q(z, d.unsqueeze(-1))


def _expm1_ratio(x: torch.Tensor) -> torch.Tensor:
    """expm1(x)/x, 1 at x = 0."""
    xs = torch.where(x == 0, torch.ones_like(x), x)
    return torch.where(x == 0, torch.ones_like(x), torch.expm1(xs) / xs)


def _chi_parts(t: torch.Tensor, d: torch.Tensor):
    """(use_small, log M(t) by the tilted quadrature, log M(t)/t by the small-t route) — see :func:`chi_log_mgf`."""
    z0 = torch.sqrt(d - 1)
    z, lw = _chi_nodes(z0, d)
    log_norm = torch.logsumexp(lw, -1)
    use_small = t * (z0 + 1) < _CHI_EXPM1_BELOW  # tZ ≲ 1 on the bulk: E[expm1(tZ)] is not dominated by overflow
    ts = torch.where(use_small, t, torch.zeros_like(t)).unsqueeze(-1)
    # log M/t = [log1p(m)/m]·(m/t), m = E[expm1(tZ)], m/t = E[Z·expm1(tZ)/(tZ)]: no 0/0 as t → 0 (t may underflow)
    m_over_t = (torch.exp(lw - log_norm.unsqueeze(-1)) * z * _expm1_ratio(ts * z)).sum(-1)
    m = ts.squeeze(-1) * m_over_t
    small_over_t = m_over_t * torch.where(m == 0, torch.ones_like(m), torch.log1p(m) / torch.where(m == 0, 1.0, m))
    zt, lwt = _chi_nodes((t + torch.sqrt(t * t + 4 * (d - 1))) / 2, d)
    big = torch.logsumexp(lwt + t.unsqueeze(-1) * zt, -1) - log_norm
    return use_small, big, small_over_t


def chi_log_mgf(t, d) -> torch.Tensor:
    """log E e^{tZ}, Z ~ χ_d, t ≥ 0 (seed 003 Thm C.5.1; the closed form is Kummer's 1F1, notes §2.3), as the ratio
    ∫ q e^{tz} / ∫ q of two composite Gauss–Legendre sums in log space (q the unnormalised density of
    :func:`_chi_log_q`: the normalising constant, a difference of terms of size d, never appears); where
    t(√(d−1) + 1) < 1 as log1p(E[expm1(tZ)]), which keeps its relative precision as t → 0."""
    t, d = torch.broadcast_tensors(torch.as_tensor(t, dtype=torch.float64), torch.as_tensor(d, dtype=torch.float64))
    use_small, big, small_over_t = _chi_parts(t, d)
    return torch.where(use_small, t * small_over_t, big)


_CHI_ASYMPTOTIC_ABOVE = 1e6


def chi_log_mgf_over_t(t, d) -> torch.Tensor:
    """log E e^{tZ}/t, Z ~ χ_d, t > 0: :func:`chi_log_mgf`/t, and above t = 1e6 Laplace's expansion
    t/2 + [½log(2π) + (d − 1) log t − (d/2 − 1) log 2 − log Γ(d/2)]/t (relative error O(d²/t⁴)); +inf at t = +inf."""
    big = t > _CHI_ASYMPTOTIC_ABOVE
    tq = torch.where(big, torch.ones_like(t), t)
    use_small, log_m, small_over_t = _chi_parts(tq, d)
    quad = torch.where(use_small, small_over_t, log_m / tq)
    tb = torch.where(big & torch.isfinite(t), t, torch.full_like(t, 2 * _CHI_ASYMPTOTIC_ABOVE))
    asym = tb / 2 + (0.5 * math.log(2 * math.pi) + (d - 1) * torch.log(tb) - (d / 2 - 1) * LOG2
                     - torch.lgamma(d / 2)) / tb
    asym = torch.where(torch.isinf(t), torch.full_like(t, math.inf), asym)
    return torch.where(big, asym, quad)


def nonglm_rdp(alpha, sigma, lam, beta, L, d, allow_outside: bool = False) -> torch.Tensor:
    """ε(α) ≤ −d log(1 − β/λ) + L²/(2σ²) + log E_{Z~χ_d} e^{(α−1)(L/σ)Z}/(α − 1) (seed 003 Thm C.5.1 with L² — erratum
    E4_6'; ``objpert.thm_c5_1``); condition λ > β. As α → 1 the last term tends to (L/σ)E[Z]."""
    alpha, sigma, lam, beta, L, d = _ch4_params(sigma, lam, beta, L, ("alpha", (alpha, ALPHA)),
                                                d=(d, spec.P_DIM.domain))
    _refuse_beta("objpert.thm_c5_1", beta, lam, allow_outside)
    v = L / sigma
    t = (alpha - 1) * v
    return d * jacobian_term(beta, lam) + v * v / 2 + v * chi_log_mgf_over_t(t, d)



# ---------------------------------------------------------------------------------------------------------------
# Catalogue-facing evaluators: the statements' own parameter domains (a value outside them is refused as the
# reference's Statement refuses it), names and order


def thm4_3_1(eps, sigma, lam, beta, L, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm4_3_1``: δ(ε) of seed 003 Thm 4.3.1 (corrected) at ε ≥ 0 — :func:`objpert_delta`."""
    params(eps=(eps, spec.P_EPS.domain))
    return objpert_delta(eps, sigma, lam, beta, L, allow_outside=allow_outside)


def thm4_3_2(alpha, sigma, lam, beta, L, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm4_3_2``: ε(α) of seed 003 Thm 4.3.2 — :func:`objpert_rdp`."""
    return objpert_rdp(alpha, sigma, lam, beta, L, allow_outside=allow_outside)


def thm4_3_2_kl(alpha, sigma, lam, beta, L, clause: bool = False, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm4_3_2_kl``: the α = 1 value of seed 003 Thm 4.3.2 (α is the single point 1) —
    :func:`objpert_rdp_alpha1`."""
    alpha, sigma, lam, beta, L = _ch4_params(sigma, lam, beta, L, first=("alpha", (alpha, spec.P_ALPHA_ONE.domain)))
    _refuse_beta("objpert.thm4_3_2_kl", beta, lam, allow_outside)
    return objpert_rdp_alpha1(sigma, lam, beta, L, clause=clause, allow_outside=True) + 0 * alpha


def lemma4_3_4(eps, sigma, L) -> torch.Tensor:
    """``objpert.lemma4_3_4``: the Gaussian lower bound of seed 003 Lemma 4.3.4 at ε ≥ 0 — :func:`gaussian_lower`."""
    params(eps=(eps, spec.P_EPS.domain))
    return gaussian_lower(eps, sigma, L)


def lemma_c4_3(eps, sigma, lam, beta, L, x_norm, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.lemma_c4_3``: the per-instance profile of seed 003 Lemma C.4.3 at ε ≥ 0 — :func:`per_instance_delta`."""
    _, _, lam_t, beta_t, _, _ = _ch4_params(sigma, lam, beta, L, ("eps", (eps, spec.P_EPS.domain)),
                                            x_norm=(x_norm, spec.P_X_NORM_UNIT.domain))
    _refuse_beta("objpert.lemma_c4_3", beta_t, lam_t, allow_outside)
    return per_instance_delta(eps, sigma, lam, beta, L, x_norm, allow_outside=True)  # then ‖x‖ ≤ 1, as the reference


def lemma_c4_6(alpha, sigma, lam, beta, L, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.lemma_c4_6``: the trade-off function of seed 003 Lemma C.4.6 — :func:`objpert_tradeoff`."""
    params(alpha=(alpha, spec.P_TYPE_I.domain))
    return objpert_tradeoff(alpha, sigma, lam, beta, L, allow_outside=allow_outside)


def thm_c5_1(alpha, sigma, lam, beta, L, d, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm_c5_1``: the non-GLM RDP of seed 003 Thm C.5.1 — :func:`nonglm_rdp`."""
    return nonglm_rdp(alpha, sigma, lam, beta, L, d, allow_outside=allow_outside)


def thm4_3_1_epsilon(delta, sigma, lam, beta, L, allow_outside: bool = False) -> torch.Tensor:
    """``objpert.thm4_3_1_epsilon``: the smallest ε ≥ 0 with δ(ε) ≤ δ for the corrected Thm 4.3.1 profile (seed 003;
    notes objpert-rdp.md §5.2 B): 0 where δ(0) ≤ δ, else the root of log δ(ε) = log δ on [0, a + c + v√(2 log(1/δ))]
    (δ(ε) ≤ 2Φ(−√(2 log 1/δ)) ≤ δ at the upper end), by 200 vectorised bisections (the bracket shrinks to adjacent
    floats); condition λ > β. Mirrors reference objpert_epsilon."""
    delta, sigma, lam, beta, L = _ch4_params(sigma, lam, beta, L, first=("delta", (delta, spec.P_DELTA.domain)))
    _refuse_beta("objpert.thm4_3_1_epsilon", beta, lam, allow_outside)
    a = jacobian_term(beta, lam)
    v = L / sigma
    log_target = torch.log(delta)
    h = lambda e: log_halfnormal_profile(e - a, v) - log_target  # noqa: E731  (decreasing in e)
    lo = torch.zeros_like(delta)
    hi = a + v * v / 2 + v * torch.sqrt(-2 * log_target)
    done = h(lo) <= 0
    for _ in range(200):
        mid = (lo + hi) / 2
        pos = h(mid) > 0
        lo = torch.where(pos, mid, lo)
        hi = torch.where(pos, hi, mid)
    return torch.where(done, torch.zeros_like(hi), hi)
