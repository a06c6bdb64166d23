"""Dominating pairs for sampling WITHOUT replacement and for the REPLACE-ONE relation, as the tight accountant
(fast/base/pld.py) consumes them (``LossPair``, fast/base/pld_pairs.py). The pairs and why they dominate:
reference/base/subsampling_wor.py's module docstring. Contributions have ℓ2 norm ≤ 1 (a replacement moves the
Gaussian sum by at most 2).

* ``wor_pair(m, n, sigma)``: a batch of m of n records without replacement, γ = m/n. The two orders of one step are
  the Poisson remove/add pairs at (γ, σ/2); since the order may change from step to step under composition
  (Lebeda, Regehr, Kamath & Steinke 2024, arXiv 2405.20769), the accountant gets ONE symmetric pair whose trade-off
  function is C_γ(f) = min{f_γ, f_γ^{-1}}** (Dong, Roth & Su 2022, arXiv 1905.02383, Thm 4.2). From the remove
  pair (P_r, Q_r) with a continuous loss L_r: losses above 0 as in the remove pair, an atom at loss 0, losses below 0
  mirrored (P_s(L_s ∈ dℓ) = Q_r(L_r ∈ −dℓ), Q_s(L_s ∈ dℓ) = P_r(L_r ∈ −dℓ) for ℓ < 0). So for t ≥ 0 its tails are
  the remove pair's, and for t < 0
      P_s(L_s > t) = Q_r(L_r ≤ −t),  P_s(L_s ≤ t) = Q_r(L_r > −t),
      Q_s(L_s > t) = P_r(L_r ≤ −t),  Q_s(L_s ≤ t) = P_r(L_r > −t).
  The atom's mass P_r(L_r ≤ 0) − Q_r(L_r > 0) = (1 − γ)(Φ(a) − Φ(−a)), a = 1/σ (the remove loss is > 0 iff x > 1
  at noise σ/2 in the shift-2 picture), is ≥ 0: the pair exists. Its profile at ε ≥ 0 is the remove pair's, at
  ε < 0 the larger of both orders': base.sgm_wor_profile.
* ``replace_one_pair(q, sigma)``: Poisson rate q, P = (1−q)N(0,σ²) + qN(1,σ²), Q = (1−q)N(0,σ²) + qN(−1,σ²);
  L(x) = s(x) − s(−x), s(x) = log(1 − q + q e^{(2x−1)/(2σ²)}), increasing from −∞ to ∞; L > t iff X > x*(t),
  x*(t) = σ² log y from the quadratic of the reference's docstring, formed in log space (no overflow at large t).
  Symmetric: one pair for both orders.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import DomainError, ParameterError
from dpspec.reference.base.spec import WOR_BATCH, WOR_BATCH_WITHIN_DATA, WOR_DATASET

from .._torch import log1mexp, log_expm1
from .pld_pairs import LossPair, _mixture_tails, _normal_quantile, _sgm_loss, sgm_pair


def _wor_gamma(m, n) -> tuple[int, int, float]:
    m, n = WOR_BATCH.check("m", m), WOR_DATASET.check("n", n)
    if m > n:
        raise ParameterError(f"sampling without replacement: m={m} > n={n}: {WOR_BATCH_WITHIN_DATA.text}")
    return m, n, m / n


def symmetrised(remove: LossPair, name: str) -> LossPair:
    """The symmetric pair with trade-off min{f, f^{-1}}** built from a remove pair with a continuous loss (module
    docstring)."""
    def tails(t):
        pos = t >= 0
        p_up, p_down, q_up, q_down = remove.tails(torch.where(pos, t, -t))
        return (torch.where(pos, p_up, q_down), torch.where(pos, p_down, q_up),
                torch.where(pos, q_up, p_down), torch.where(pos, q_down, p_up))

    def support(tail):
        _, hi = remove.support(tail)  # P_s(L_s < −hi) = Q_r(L_r > hi) ≤ P_r(L_r > hi) ≤ tail
        return -hi, hi

    return LossPair(name, tails, support)


def wor_pair(m, n, sigma) -> LossPair:
    """The symmetric dominating pair of one Gaussian step on m of n records without replacement (replace-one)."""
    m, n, g = _wor_gamma(m, n)
    sigma = float(sigma)
    if not (0 < sigma < math.inf):
        raise DomainError("sigma", sigma, "(0, inf)")
    if m == n:  # the Gaussian mechanism with shift 2: already symmetric
        return sgm_pair(1.0, sigma / 2, "remove")
    return symmetrised(sgm_pair(g, sigma / 2, "remove"), f"sgm_wor(m={m}, n={n}, sigma={sigma!r})")


def wor_pairs(m, n, sigma):
    """{direction: pair} for the accountant: one symmetric pair (both orders)."""
    return {"remove": wor_pair(m, n, sigma)}


# ---------------------------------------------------------------------------------------------------------------
# Poisson, replace-one

def _log_root_sum(log_b: torch.Tensor, log_d: torch.Tensor) -> torch.Tensor:
    """log(b + √(b² + d)) for b ≥ 0 (log b may be −inf), d > 0, without overflow."""
    r = log_b - log_d / 2
    big = r >= 0
    rb = torch.where(big, r, torch.zeros_like(r))
    rs = torch.where(big, torch.zeros_like(r), r)
    return torch.where(big, log_b + torch.log1p(torch.sqrt(1 + torch.exp(-2 * rb))),
                       log_d / 2 + torch.log(torch.exp(rs) + torch.sqrt(1 + torch.exp(2 * rs))))


def replace_one_threshold(t: torch.Tensor, q: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """x*(t) with L(x*) = t (module docstring): with c = e^{−1/(2σ²)}, d = 4q²c²e^t, |b| = (1 − q)|e^t − 1|,
    y = (b + √(b² + d))/(2qc) for t ≥ 0 and y = 2e^t qc/(|b| + √(b² + d)) for t < 0; x* = σ² log y."""
    log_1mq = torch.log1p(-q)  # −inf at q = 1
    log_q, log_c = torch.log(q), -1 / (2 * sigma * sigma)
    log_d = math.log(4) + 2 * log_q + 2 * log_c + t
    pos = t >= 0
    ta = t.abs()
    log_abs_em1 = torch.where(pos, log_expm1(ta.clamp(min=1e-300)), log1mexp(-ta))  # log|e^t − 1|
    log_abs_em1 = torch.where(t == 0, torch.full_like(t, -math.inf), log_abs_em1)
    log_sum = _log_root_sum(log_1mq + log_abs_em1, log_d)
    log_y = torch.where(pos, log_sum - math.log(2) - log_q - log_c,
                        math.log(2) + t + log_q + log_c - log_sum)
    return sigma * sigma * log_y


def replace_one_pair(q, sigma) -> LossPair:
    """The Poisson-subsampled Gaussian's pair under replace-one (symmetric; q = 1: N(1, σ²) vs N(−1, σ²))."""
    q, sigma = float(q), float(sigma)
    if not (0 < q <= 1) or not (0 < sigma < math.inf):
        raise DomainError("q, sigma", (q, sigma), "q in (0, 1], sigma in (0, inf)")
    if q == 1:  # N(1, σ²) vs N(−1, σ²) is N(1, (σ/2)²) vs N(0, (σ/2)²) shifted and scaled
        return sgm_pair(1.0, sigma / 2, "remove")
    qt, st = torch.tensor(q, dtype=torch.float64), torch.tensor(sigma, dtype=torch.float64)

    def tails(t):
        x = replace_one_threshold(t, qt.to(t.device), st.to(t.device))
        p_up, p_down = _mixture_tails(x, q, sigma)
        m_up, m_down = _mixture_tails(-x, q, sigma)  # Q(X > x) = P(X < −x), Q(X ≤ x) = P(X ≥ −x)
        return p_up, p_down, m_down, m_up

    def loss(x: float) -> float:
        return _sgm_loss(x, q, sigma) - _sgm_loss(-x, q, sigma)

    def support(tail):
        z = _normal_quantile(tail)
        return loss(-sigma * z), loss(1 + sigma * z)  # P(X < −σz) ≤ Φ(−z), P(X > 1 + σz) ≤ Φ(−z)

    return LossPair(f"sgm_replace_one(q={q!r}, sigma={sigma!r})", tails, support)


def replace_one_pairs(q, sigma):
    """{direction: pair} for the accountant: one symmetric pair (both orders)."""
    return {"remove": replace_one_pair(q, sigma)}
