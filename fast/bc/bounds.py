"""The upper and lower bound functions of seed 002 (Defs. 4.3 and 4.4, D.13/D.14; Thms 4.5/4.6) and their privacy
profiles, vectorised (torch float64). Mirrors ``dpspec.reference.bc.bounds``; closed forms of notes
batch-clipping-fdp.md §2.5, §2.6 and §4.4 (G_μ with μ = c/σ throughout):

* f̂U(α) = u + (1 − u) G_μ(α)  (Def. 4.3, μ = c_U/σ);
* fU = min{f̂U, f̂U^{-1}}**: u + (1 − u)G_μ(α) on [0, β0]; β0 + β1 − α on [β0, β1]; G_μ((α − u)/(1 − u)) on [β1, 1],
  β0 = Φ(−μ/2 + ln(1−u)/μ), β1 = u + (1 − u)Φ(−μ/2 − ln(1−u)/μ) (Def. 4.3 / D.14, with D.14's G_{cL/σ} read as
  G_{cU/σ}); u = 1 gives 1 − α (the limit β0 → 0, β1 → 1), f̂U = 1 there;
* δ_fU(ε) = (1 − u) δ_{G_μ}(ε − ln(1 − u)) (notes §2.5, "my closed (ε,δ) form");
* f̂L(α) = G_μ(min{1, α + l}) (Def. 4.4, μ = c_L/σ);
* fL = max{f̂L, f̂L^{-1}}: G_μ(α) − l on [0, β], G_μ(min{1, α + l}) on [β, 1], β the root of G_μ(β) − l = β
  (Def. 4.4 / D.13; found by bisection and Newton steps, the left side decreasing);
* δ_fL(ε) = l + δ_{G_μ}(ε) where e^ε ≥ s_β = e^{μ z_β − μ²/2} (z_β = Φ^{-1}(1 − β)), else 1 − β(1 + e^ε) (notes §2.6).

ε ≥ 0 (the reference's domain). ln(1 − u) is log1p(−u) (notes §8.2: u = e^{−100}). The inverses ε(δ) are those of
reference/bc/bounds.py: fU: max{0, ln(1 − u) + ε_{G_μ}(δ/(1 − u))} (0 where δ ≥ 1 − u); fL: +inf where δ ≤ l, the
closed form e^ε = (1 − δ)/β − 1 above the kink, else ε_{G_μ}(δ − l).

Theorems 4.5/4.6 and Lemmas C.2/C.3 with the exact tails u = Σ_{c < c_U} q_E(c), l = Σ_{c > c_L} q_E(c) (D.11) take
the tails from fast/bc/qe.py's law (the comparison c² < c_U² is exact: c_U² is formed as a float plus its rounding
error).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import TYPE_I
from dpspec.reference.bc import spec
from dpspec.reference.domains import DELTA, EPS, NOISE

from .._torch import params
from ..base.gaussian import _bisect_decreasing, _two_product, gaussian_eps, log_delta_shift, ndtr
from . import mixture


def _G(alpha: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """G_μ(α) = Φ(−Φ^{-1}(α) − μ) (no 1 − α rounding at small α)."""
    return ndtr(-torch.special.ndtri(alpha) - mu)


def _betas(mu: torch.Tensor, u: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(β0, β1) of Def. 4.3 (u < 1)."""
    safe = torch.where(u < 1, u, torch.zeros_like(u))
    shift = torch.log1p(-safe) / mu
    return ndtr(-mu / 2 + shift), safe + (1 - safe) * ndtr(-mu / 2 - shift)


def fu_hat(alpha, c_U, u, sigma) -> torch.Tensor:
    """f̂U_{cU}(α) = u + (1 − u) G_{cU/σ}(α) (seed 002 Def. 4.3)."""
    alpha, c_U, u, sigma = params(alpha=(alpha, TYPE_I), c_U=(c_U, spec.CUT), u=(u, spec.TAIL), sigma=(sigma, NOISE))
    return u + (1 - u) * _G(alpha, c_U / sigma)


def fu(alpha, c_U, u, sigma) -> torch.Tensor:
    """fU_{cU} = min{f̂U, f̂U^{-1}}**(α), piecewise (seed 002 Def. 4.3, D.14)."""
    alpha, c_U, u, sigma = params(alpha=(alpha, TYPE_I), c_U=(c_U, spec.CUT), u=(u, spec.TAIL), sigma=(sigma, NOISE))
    mu = c_U / sigma
    b0, b1 = _betas(mu, u)
    one = u >= 1
    us = torch.where(one, torch.zeros_like(u), u)
    first = us + (1 - us) * _G(alpha, mu)
    middle = b0 + b1 - alpha
    last = _G(torch.clamp((alpha - us) / (1 - us), 0.0, 1.0), mu)
    out = torch.where(alpha <= b0, first, torch.where(alpha <= b1, middle, last))
    return torch.where(one, 1 - alpha, out)


def fu_delta(eps, c_U, u, sigma) -> torch.Tensor:
    """δ(ε) of fU: (1 − u) δ_{G_{cU/σ}}(ε − ln(1 − u)) at ε ≥ 0 (notes §2.5), the symmetric complement below 0."""
    eps, c_U, u, sigma = params(eps=(eps, EPS), c_U=(c_U, spec.CUT), u=(u, spec.TAIL), sigma=(sigma, NOISE))
    return _fu_delta(eps, c_U / sigma, u)


def _fu_delta(eps, mu, u):
    one = u >= 1
    us = torch.where(one, torch.zeros_like(u), u)
    log1mu = torch.log1p(-us)
    value = torch.exp(log1mu + log_delta_shift(eps - log1mu, mu))
    return torch.where(one, torch.zeros_like(value), value)


def fu_eps(delta, c_U, u, sigma) -> torch.Tensor:
    """The smallest ε ≥ 0 with δ_fU(ε) ≤ δ: max{0, ln(1 − u) + ε_{G_μ}(δ/(1 − u))}, 0 where δ ≥ 1 − u."""
    delta, c_U, u, sigma = params(delta=(delta, DELTA), c_U=(c_U, spec.CUT), u=(u, spec.TAIL), sigma=(sigma, NOISE))
    trivial = delta >= 1 - u
    us = torch.where(trivial, torch.zeros_like(u), u)
    ratio = torch.where(trivial, torch.full_like(delta, 0.5), delta / (1 - us))
    value = torch.clamp(torch.log1p(-us) + gaussian_eps(ratio, sigma / c_U), min=0.0)
    return torch.where(trivial, torch.zeros_like(value), value)


def fl_hat(alpha, c_L, l, sigma) -> torch.Tensor:
    """f̂L_{cL}(α) = G_{cL/σ}(min{1, α + l}) (seed 002 Def. 4.4)."""
    alpha, c_L, l, sigma = params(alpha=(alpha, TYPE_I), c_L=(c_L, spec.CUT), l=(l, spec.TAIL), sigma=(sigma, NOISE))
    return _G(torch.clamp(alpha + l, max=1.0), c_L / sigma)


def _beta(mu: torch.Tensor, l: torch.Tensor) -> torch.Tensor:
    """The root β ∈ [0, 1] of G_μ(β) − l = β (G_μ(β) − l − β decreases from 1 − l ≥ 0 to −l − 1 < 0)."""
    h = lambda b: _G(b, mu) - l - b  # noqa: E731
    slope = lambda b: -torch.exp(-mu * torch.special.ndtri(b) - mu**2 / 2) - 1  # noqa: E731  G′ = −e^{μz − μ²/2}
    root = _bisect_decreasing(h, torch.zeros_like(mu), torch.ones_like(mu), slope)
    return torch.where(l >= 1, torch.zeros_like(root), root)


def _G_minus(alpha, mu, l):
    """G_μ(α) − l, where G_μ(α) > ½ as (1 − l) − Φ(Φ^{-1}(α) + μ) (1 − G_μ(α) = Φ(Φ^{-1}(α) + μ) without rounding
    1 − α, and 1 − l exact for l ≥ ½): the small difference near β then keeps digits relative to 1 − l, not to 1."""
    z = torch.special.ndtri(alpha)
    g = ndtr(-z - mu)
    return torch.where(g > 0.5, (1 - l) - ndtr(z + mu), g - l)


def fl_beta(c_L, l, sigma) -> torch.Tensor:
    """β of Def. 4.4: the root of G_{cL/σ}(β) − l = β."""
    c_L, l, sigma = params(c_L=(c_L, spec.CUT), l=(l, spec.TAIL), sigma=(sigma, NOISE))
    return _beta(c_L / sigma, l)


def fl(alpha, c_L, l, sigma) -> torch.Tensor:
    """fL_{cL} = max{f̂L, f̂L^{-1}}(α): G(α) − l on [0, β], G(min{1, α + l}) on [β, 1] (seed 002 Def. 4.4, D.13)."""
    alpha, c_L, l, sigma = params(alpha=(alpha, TYPE_I), c_L=(c_L, spec.CUT), l=(l, spec.TAIL), sigma=(sigma, NOISE))
    mu = c_L / sigma
    beta = _beta(mu, l)
    left = torch.clamp(_G_minus(alpha, mu, l), min=0.0)
    right = _G(torch.clamp(alpha + l, max=1.0), mu)
    return torch.where(alpha <= beta, left, right)


def fl_delta(eps, c_L, l, sigma) -> torch.Tensor:
    """δ(ε) of fL (notes §2.6): l + δ_{G_μ}(ε) where e^ε ≥ s_β, else 1 − β(1 + e^ε); ε < 0 by the symmetric
    complement."""
    eps, c_L, l, sigma = params(eps=(eps, EPS), c_L=(c_L, spec.CUT), l=(l, spec.TAIL), sigma=(sigma, NOISE))
    return _fl_delta(eps, c_L / sigma, l)


def _log_s(mu, l, beta):
    """log s_β = μ z_β − μ²/2 with z_β = Φ^{-1}(1 − β), the slope at β of Def. 4.4's kink. At the root,
    Φ(z_β − μ) = G_μ(β) = l + β, so z_β = μ + Φ^{-1}(l + β) and log s_β = μ(μ/2 + Φ^{-1}(l + β)): this form needs no
    Φ^{-1}(β) of a β that underflows (μ ≳ 38: β below the double range, where −μΦ^{-1}(β) − μ²/2 gave a wrong
    finite value and chose the wrong branch — an edge search found δ = 1 + l > 1 at μ = 5e30); where l + β is near 1
    (Φ^{-1} of it rounds) the direct form, whose β is then not small, is used."""
    direct = -mu * torch.special.ndtri(beta) - mu**2 / 2
    via_l = mu * (mu / 2 + torch.special.ndtri(torch.clamp(l + beta, max=1.0)))
    return torch.where(l + beta < 0.999, via_l, direct)


def _fl_delta(eps, mu, l):
    beta = _beta(mu, l)
    log_s = _log_s(mu, l, beta)  # log s_β (+inf where β underflows and μ²/2 dominates)
    gauss = l + torch.exp(log_delta_shift(eps, mu))
    # 1 − β(1 + e^ε) = (1 − 2β) − β·expm1(ε), decreasing in ε and equal to l + δ_G(ε) ≥ 0 at e^ε = s_β, so positive
    # on this branch (the clamp only guards the last rounding)
    kink = torch.clamp((1 - 2 * beta) - beta * torch.expm1(torch.clamp(eps, max=700.0)), min=0.0)
    return torch.where(eps >= log_s, gauss, kink)


def fl_eps(delta, c_L, l, sigma) -> torch.Tensor:
    """The smallest ε ≥ 0 with δ_fL(ε) ≤ δ: +inf where δ ≤ l (the δ-floor of Lemma C.2), ln((1 − δ)/β − 1) (or 0)
    where δ is at least the kink's δ, else ε_{G_μ}(δ − l)."""
    delta, c_L, l, sigma = params(delta=(delta, DELTA), c_L=(c_L, spec.CUT), l=(l, spec.TAIL), sigma=(sigma, NOISE))
    mu = c_L / sigma
    beta = _beta(mu, l)
    log_s = _log_s(mu, l, beta)
    kink = l + torch.exp(log_delta_shift(torch.where(torch.isfinite(log_s), log_s, torch.zeros_like(log_s)), mu))
    floor = delta <= l
    upper = delta >= kink
    closed = torch.where(delta >= 1 - 2 * beta, torch.zeros_like(delta),
                         torch.log(torch.clamp((1 - delta) / beta - 1, min=1.0)))
    gauss_delta = torch.where(floor | upper, torch.full_like(delta, 0.5), delta - l)
    gauss = gaussian_eps(gauss_delta, sigma / c_L)
    out = torch.where(upper, closed, gauss)
    return torch.where(floor, torch.full_like(out, math.inf), out)


# ---------------------------------------------------------------------------------------------------------------
# Theorems 4.5 / 4.6, Lemmas C.2 / C.3 with the exact tails of q_E


def _tails(statement_id, sampling, N, m, s, g, E, cut, cut_name, below: bool, others: dict):
    """(tail, rest): Σ_{c² < cut²} q_E (``below``) or Σ_{c² > cut²} q_E (+ the mass at +inf) per point."""
    table, rest = mixture.laws_of(sampling, N, m, s, g, E, statement_id=statement_id,
                                  others={**others, cut_name: (cut, spec.CUT)})
    cut_t = rest[-1]
    r = table.row
    v = torch.round(table.c[r] ** 2)  # integers c², exact in float64
    p, err = _two_product(cut_t, cut_t)  # cut² = p + err exactly
    p, err = p.unsqueeze(-1), err.unsqueeze(-1)
    less = (v < p) | ((v == p) & (err > 0))
    more = (v > p) | ((v == p) & (err < 0))
    sel = less if below else more
    lq = table.logp[r]
    ninf = torch.full_like(lq, -math.inf)
    log_tail = torch.logsumexp(torch.where(sel & ~torch.isneginf(lq), lq, ninf), dim=-1)
    log_rest = torch.logsumexp(torch.where(~sel & ~torch.isneginf(lq), lq, ninf), dim=-1)  # the other side, c² = cut²
    if below:  # the mass at +inf is on the other side
        log_rest = torch.logaddexp(log_rest, table.log_inf[r])
    else:
        log_tail = torch.logaddexp(log_tail, table.log_inf[r])
    # a tail above ½ as 1 − (the rest): exactly 1 where the rest is empty (the sum of the masses is 1 only to rounding)
    tail = torch.where(log_tail > -math.log(2), -torch.expm1(log_rest), torch.exp(log_tail))
    return torch.clamp(tail, 0.0, 1.0), rest


def thm4_5(alpha, sampling, N, m, s, g, E, sigma, c_U, allow_outside: bool = False) -> torch.Tensor:
    """Seed 002 Thm 4.5 with the exact u = Σ_{c < c_U} q_E(c): fU_{c_U}(α), an upper bound on the A1 f."""
    u, (alpha, sigma, c_U) = _tails("bc.thm4_5", sampling, N, m, s, g, E, c_U, "c_U", True,
                                    {"alpha": (alpha, TYPE_I), "sigma": (sigma, NOISE)})
    return fu(alpha, c_U, u, sigma)


def thm4_6(alpha, sampling, N, m, s, g, E, sigma, c_L, allow_outside: bool = False) -> torch.Tensor:
    """Seed 002 Thm 4.6 with the exact l = Σ_{c > c_L} q_E(c): fL_{c_L}(α), a lower bound on the A1 f."""
    l, (alpha, sigma, c_L) = _tails("bc.thm4_6", sampling, N, m, s, g, E, c_L, "c_L", False,
                                    {"alpha": (alpha, TYPE_I), "sigma": (sigma, NOISE)})
    return fl(alpha, c_L, l, sigma)


def thm4_5_profile(eps, sampling, N, m, s, g, E, sigma, c_U, allow_outside: bool = False) -> torch.Tensor:
    """δ(ε) of Thm 4.5's fU with the exact tail (a lower bound on the A1 mixture's δ)."""
    u, (eps, sigma, c_U) = _tails("bc.thm4_5_profile", sampling, N, m, s, g, E, c_U, "c_U", True,
                                  {"eps": (eps, EPS), "sigma": (sigma, NOISE)})
    return _fu_delta(eps, c_U / sigma, u)


def thm4_6_profile(eps, sampling, N, m, s, g, E, sigma, c_L, allow_outside: bool = False) -> torch.Tensor:
    """δ(ε) of Thm 4.6's fL with the exact tail (an upper bound on the A1 mixture's δ: a valid guarantee)."""
    l, (eps, sigma, c_L) = _tails("bc.thm4_6_profile", sampling, N, m, s, g, E, c_L, "c_L", False,
                                  {"eps": (eps, EPS), "sigma": (sigma, NOISE)})
    return _fl_delta(eps, c_L / sigma, l)


def lemma_c2(alpha, sampling, N, m, s, g, E, sigma, c_L, allow_outside: bool = False) -> torch.Tensor:
    """Seed 002 Lemma C.2 on the A1 mixture: G_{c_L/σ}(min{1, α + p}), p = Σ_{c > c_L} q_E(c)."""
    p, (alpha, sigma, c_L) = _tails("bc.lemma_c2", sampling, N, m, s, g, E, c_L, "c_L", False,
                                    {"alpha": (alpha, TYPE_I), "sigma": (sigma, NOISE)})
    return _G(torch.clamp(alpha + p, max=1.0), c_L / sigma)


def lemma_c3(alpha, sampling, N, m, s, g, E, sigma, c_U, allow_outside: bool = False) -> torch.Tensor:
    """Seed 002 Lemma C.3 on the A1 mixture: p + (1 − p) G_{c_U/σ}(min{1, α/(1 − p)}), p = Σ_{c < c_U} q_E(c);
    1 at p = 1."""
    p, (alpha, sigma, c_U) = _tails("bc.lemma_c3", sampling, N, m, s, g, E, c_U, "c_U", True,
                                    {"alpha": (alpha, TYPE_I), "sigma": (sigma, NOISE)})
    one = p >= 1
    ps = torch.where(one, torch.zeros_like(p), p)
    value = ps + (1 - ps) * _G(torch.clamp(alpha / (1 - ps), max=1.0), c_U / sigma)
    return torch.where(one, torch.ones_like(value), value)


__all__ = ["fu_hat", "fu", "fu_delta", "fu_eps", "fl_hat", "fl", "fl_beta", "fl_delta", "fl_eps", "thm4_5",
           "thm4_6", "thm4_5_profile", "thm4_6_profile", "lemma_c2", "lemma_c3"]
