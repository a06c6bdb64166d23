"""Objective perturbation's dominating pair for the tight accountant (fast/base/pld.py): seed 003 Lemma C.4.6
(corrected; notes objpert-rdp.md §3 M1) as a :class:`~dpspec.fast.base.pld_pairs.LossPair`, its k-fold composition
(Lemma C.4.7, eq. C.4.11) by the PLD sandwich, and Algorithm 7's pair (M3: the C.4.6 pair with L := C times the
Gaussian release N(2τ/λ, σ_out²) vs N(0, σ_out²), Thm C.4.1).

The pair (a = −log(1 − β/λ), c = L²/(2σ²), v = L/σ): P = |N(0, σ²)| on [0, ∞); Q = e^{−a}·2φ_σ(x + L) on [0, ∞) plus
an atom at −∞ of mass Q(−∞) = 1 − 2e^{−a}Φ(−v) = δ(0) (``minus_inf_mass``: outcomes P cannot produce). On x ≥ 0 the
privacy loss is log(p/q)(x) = a + c + Lx/σ², so L > t iff Y = x/σ > y(t) = (t − a − c)/v, and

    P(L > t) = 2Φ(−y⁺),  P(L ≤ t) = 2Φ(y) − 1 = erf(y/√2) (y ≥ 0),
    Q(L > t) = 2e^{−a}Φ(−y⁺ − v),  Q(L ≤ t, finite) = 2e^{−a}[Φ(−v) − Φ(−y − v)] (y ≥ 0)

(all in log space). The same ordered pair (P, Q) dominates both orderings of neighbours (the bound is on |log R|), so
``objpert_pair`` returns it under "remove" and "add"; never (Q, P), whose loss is +∞ with probability δ(0).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.objpert import spec

from .._torch import DTYPE, gauss_legendre, log1mexp
from ..base import pld_pairs
from ..base.pld_pairs import LossPair

LOG2 = math.log(2.0)
_SQRT2 = math.sqrt(2.0)
_log_ndtr = torch.special.log_ndtr


def _constants(sigma, lam, beta, L):
    sigma, lam, beta, L = (float(v) for v in (sigma, lam, beta, L))
    for name, v, lo in (("sigma", sigma, 0.0), ("lam", lam, 0.0), ("L", L, 0.0)):
        if not (math.isfinite(v) and v > lo):
            raise DomainError(name, v, "(0, inf)")
    if not (math.isfinite(beta) and beta >= 0):
        raise DomainError("beta", beta, "[0, inf)")
    if not lam > beta:
        raise ConditionError("objpert.lemma_c4_6", [spec.LAMBDA_ABOVE_BETA.describe()])
    a = -math.log1p(-beta / lam)
    v = L / sigma
    return a, v * v / 2, v


def objpert_loss_pair(sigma, lam, beta, L) -> LossPair:
    """The corrected Lemma C.4.6 pair of ObjPert (seed 003) as a LossPair (module docstring); condition λ > β."""
    a, c, v = _constants(sigma, lam, beta, L)
    shift = a + c
    from .glm_bounds import log_2phi_neg

    log_qfin = -a + float(log_2phi_neg(torch.tensor(v, dtype=DTYPE)))  # log Q([0, ∞)) = log(1 − δ(0))
    minus_inf = -math.expm1(log_qfin)

    def tails(t):
        y = (t - shift) / v
        yp = torch.clamp(y, min=0.0)
        neg = y < 0
        p_up = torch.where(neg, torch.zeros_like(y), LOG2 + _log_ndtr(-yp))
        p_down = torch.where(neg, torch.full_like(y, -math.inf), torch.log(torch.special.erf(yp / _SQRT2)))
        q_up = LOG2 - a + _log_ndtr(-yp - v)
        # Φ(−v) − Φ(−y − v) = Φ(−v)(1 − e^{logΦ(−y−v) − logΦ(−v)})
        lv = float(_log_ndtr(torch.tensor(-v, dtype=DTYPE)))
        q_down = torch.where(neg, torch.full_like(y, -math.inf),
                             LOG2 - a + lv + log1mexp(torch.clamp(_log_ndtr(-yp - v) - lv, max=0.0)))
        return p_up, p_down, q_up, q_down

    def support(tail):
        z = pld_pairs._normal_quantile(tail / 2)  # P(Y > z) = 2Φ(−z) ≤ tail
        return shift, shift + v * z

    return LossPair(f"objpert(sigma={float(sigma)!r}, lam={float(lam)!r}, beta={float(beta)!r}, L={float(L)!r})",
                    tails, support, 0.0, minus_inf)


def objpert_pair(sigma, lam, beta, L) -> dict[str, LossPair]:
    """{direction: LossPair} of one ObjPert release for the accountant: the same (P, Q) under "remove" and "add"
    (notes objpert-rdp.md §3 M1)."""
    pair = objpert_loss_pair(sigma, lam, beta, L)
    return {"remove": pair, "add": pair}


def composed_delta_interval(eps: float, sigma, lam, beta, L, k: int, grid_step: float = 1e-3) -> tuple[float, float]:
    """(lower, upper) on δ(ε) of k ObjPert releases (seed 003 Lemma C.4.7, E_{s~ω1+…+ωk}[1 − e^{ε−s}]₊): the PLD
    sandwich of fast/base/pld.py on the lattice of ``grid_step``."""
    return _sandwich(sigma, lam, beta, L, int(k), float(grid_step)).delta_interval(float(eps))


_CACHE: dict = {}


def _sandwich(sigma, lam, beta, L, k, step):
    from ..base.pld import sandwich

    key = (float(sigma), float(lam), float(beta), float(L), k, step)
    if key not in _CACHE:
        if len(_CACHE) > 16:
            _CACHE.clear()
        _CACHE[key] = sandwich([(objpert_pair(sigma, lam, beta, L), k)], step)
    return _CACHE[key]


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 7 (M3): the C.4.6 pair with L := C, times the Gaussian release of θ̃ − θ^P


def amp_loss_pair(sigma, sigma_out, lam, beta, C, tau, nodes: int = 64) -> LossPair:
    """The dominating pair of Algorithm 7 (seed 003 Thm 4.4.1 / Thm C.4.1; notes objpert-rdp.md §3 M3): the product of
    the Lemma C.4.6 pair (L := C) and N(Δ, σ_out²) vs N(0, σ_out²), Δ = 2τ/λ. Its loss is ω1 + ω2 with ω1 = a + c + vY
    (Y half-normal) and ω2 ~ N(μ², 2μ²)/… = the Gaussian loss (μ = Δ/σ_out: N(μ²/2, μ²) under P, N(−μ²/2, μ²) under
    Q); the tails are one-dimensional integrals over Y (Gauss–Legendre on [0, 40], ``nodes`` points per unit width
    block), in log space. τ = 0 gives :func:`objpert_loss_pair`."""
    a, c, v = _constants(sigma, lam, beta, C)
    tau, sigma_out = float(tau), float(sigma_out)
    if not (math.isfinite(sigma_out) and sigma_out > 0):
        raise DomainError("sigma_out", sigma_out, "(0, inf)")
    if not (math.isfinite(tau) and tau >= 0):
        raise DomainError("tau", tau, "[0, inf)")
    if tau == 0:
        return objpert_loss_pair(sigma, lam, beta, C)
    mu = 2 * tau / float(lam) / sigma_out
    shift = a + c
    base = objpert_loss_pair(sigma, lam, beta, C)
    # Y-quadrature: blocks of width 1/2 on [0, 40] (the half-normal's mass beyond 40 is e^{-800})
    x, w = gauss_legendre(16, torch.zeros(()))
    edges = torch.arange(0, 80 + 1, dtype=DTYPE) / 2
    lo, hi = edges[:-1], edges[1:]
    yq = ((lo + hi) / 2).unsqueeze(-1) + ((hi - lo) / 2).unsqueeze(-1) * x
    wq = ((hi - lo) / 2).unsqueeze(-1) * w
    yq, wq = yq.flatten(), wq.flatten()
    log_py = LOG2 - yq * yq / 2 - 0.5 * math.log(2 * math.pi) + torch.log(wq)  # P's half-normal density × weight

    def tails(t):
        # ω = shift + vY + G, G ~ N(±μ²/2, μ²): P(ω > t | Y) = Φ̄((t − shift − vY − μ²/2)/μ)
        tt = t.unsqueeze(-1)
        r = tt - shift - v * yq
        p_up = torch.logsumexp(log_py + _log_ndtr(-(r - mu * mu / 2) / mu), -1)
        p_down = torch.logsumexp(log_py + _log_ndtr((r - mu * mu / 2) / mu), -1)
        # under Q: Y has density e^{−a}·2φ(y + v) = e^{−(a + c + v y)}·2φ(y) on [0, ∞), G ~ N(−μ²/2, μ²)
        log_qy = log_py - shift - v * yq
        q_up = torch.logsumexp(log_qy + _log_ndtr(-(r + mu * mu / 2) / mu), -1)
        q_down = torch.logsumexp(log_qy + _log_ndtr((r + mu * mu / 2) / mu), -1)
        return p_up, p_down, q_up, q_down

    def support(tail):
        z = pld_pairs._normal_quantile(tail / 4)
        lo_, hi_ = base.support(tail / 2)
        return lo_ + mu * mu / 2 - mu * z, hi_ + mu * mu / 2 + mu * z

    return LossPair(f"amp(sigma={float(sigma)!r}, sigma_out={sigma_out!r}, lam={float(lam)!r}, beta={float(beta)!r}, "
                    f"C={float(C)!r}, tau={tau!r})", tails, support, 0.0, base.minus_inf_mass)


def amp_pair(sigma, sigma_out, lam, beta, C, tau) -> dict[str, LossPair]:
    """{direction: LossPair} of one Algorithm 7 release (the same product pair in both directions)."""
    pair = amp_loss_pair(sigma, sigma_out, lam, beta, C, tau)
    return {"remove": pair, "add": pair}
