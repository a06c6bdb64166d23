"""Privacy-loss distributions of dominating pairs, as the tight accountant (fast/base/pld.py) consumes them.

A pair (P, Q) of one step is given by the distribution of its privacy loss L = log(dP/dQ) under P and under Q:
``LossPair.tails(t)`` returns, at loss thresholds t (a 1-D float64 tensor), the logs of P(L > t), P(L <= t),
Q(L > t), Q(L <= t) over the FINITE losses, and ``inf_mass`` is P(L = +inf) (outcomes that Q cannot produce).
Bucket masses P(t_k < L <= t_{k+1}) are differences of whichever of the two tails is smaller, in log space, so that
masses far in either tail keep their relative precision. ``support(tail)`` is a loss interval [lo, hi] outside
which P has at most ``tail`` mass (P(L < lo) <= tail and P(hi < L < inf) <= tail), used to size the grid.

Every pair here is a monotone transform of one real outcome X (or a two-point pair), so its loss tails are normal
or Laplace tails at a threshold x(t): no quadrature. Pairs (sensitivity 1, add/remove neighbours, Poisson
subsampling with rate q):

* ``sgm_pair(q, sigma, "remove")``: P = (1-q) N(0, s^2) + q N(1, s^2), Q = N(0, s^2);
  L(x) = log(1 - q + q e^{(2x-1)/(2 s^2)}), increasing, L > log(1-q);
* ``sgm_pair(q, sigma, "add")``: P = N(0, s^2), Q = the mixture; L = -(the remove loss), decreasing in x;
  (Zhu, Dong & Wang, "Optimal accounting of differential privacy via characteristic function", AISTATS 2022,
  arXiv 2106.08567v3, Thm 11 and §5: these two pairs dominate Poisson subsampling under add/remove; the answer is
  the max over both.) q = 1 is the Gaussian mechanism (both directions equal).
* ``laplace_pair(q, b, direction)``: the same with Laplace(0, b) noise; L has atoms (x <= 0 and x >= 1).
* ``pure_dp_pair(eps0)``: randomized response, the dominating pair of every eps0-DP mechanism
  (Kairouz, Oh & Viswanath 2015, arXiv 1311.0776v4, Thm 2.1): P = (e^e0, 1)/(1+e^e0) on losses (+e0, -e0).
* ``approx_dp_pair(eps0, delta0)``: the (eps0, delta0)-DP dominating pair (same source): mass delta0 at +inf.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import torch

from dpspec.reference.errors import DomainError

from .._torch import DTYPE, log1mexp

NEG_INF = -math.inf
_log_ndtr = torch.special.log_ndtr


@dataclass(frozen=True)
class LossPair:
    """One step's privacy-loss distribution (see the module docstring)."""

    name: str
    tails: Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]]
    support: Callable[[float], tuple[float, float]]
    inf_mass: float = 0.0        # P(L = +inf)
    minus_inf_mass: float = 0.0  # Q(L = -inf): outcomes P cannot produce


# ---------------------------------------------------------------------------------------------------------------
# Poisson-subsampled Gaussian (q = 1: the Gaussian mechanism)

def _sgm_threshold(t: torch.Tensor, q: float, sigma: float) -> torch.Tensor:
    """x(t) with 1 - q + q e^{(2x-1)/(2 s^2)} = e^t, i.e. x = s^2 log((e^t - (1-q))/q) + 1/2 (the remove loss is
    > t iff X > x(t)); -inf where e^t <= 1 - q."""
    inner = torch.expm1(t) + q  # e^t - (1 - q), exact-ish for t near log(1 - q)
    log_inner = torch.where(inner > 0, torch.log(inner.clamp_min(1e-320)), torch.full_like(t, NEG_INF))
    return sigma * sigma * (log_inner - math.log(q)) + 0.5


def _mixture_tails(x: torch.Tensor, q: float, sigma: float) -> tuple[torch.Tensor, torch.Tensor]:
    """log P(X > x), log P(X <= x) for X ~ (1-q) N(0, s^2) + q N(1, s^2)."""
    log_1mq = math.log1p(-q) if q < 1 else NEG_INF
    log_q = math.log(q)
    up = torch.logaddexp(log_1mq + _log_ndtr(-x / sigma), log_q + _log_ndtr(-(x - 1) / sigma))
    down = torch.logaddexp(log_1mq + _log_ndtr(x / sigma), log_q + _log_ndtr((x - 1) / sigma))
    return up, down


def _normal_tails(x: torch.Tensor, sigma: float) -> tuple[torch.Tensor, torch.Tensor]:
    return _log_ndtr(-x / sigma), _log_ndtr(x / sigma)


def _sgm_loss(x: float, q: float, sigma: float) -> float:
    """The remove loss at outcome x (as a float), log(1 - q + q e^{(2x-1)/(2 s^2)})."""
    u = (2 * x - 1) / (2 * sigma * sigma)
    if q == 1:
        return u
    a, b = math.log1p(-q), math.log(q) + u  # log(e^a + e^b)
    return max(a, b) + math.log1p(math.exp(-abs(a - b)))


def _normal_quantile(tail: float) -> float:
    """z with P(N(0,1) > z) <= tail (a few ulps conservative)."""
    z = -float(torch.special.ndtri(torch.tensor(tail, dtype=DTYPE)))
    return z + 1e-9 * max(1.0, z)


def sgm_pair(q: float, sigma: float, direction: str) -> LossPair:
    """The Poisson-subsampled Gaussian's dominating pair in ``direction`` ("remove" or "add")."""
    q, sigma = float(q), float(sigma)
    if not (0 < q <= 1) or not (0 < sigma < math.inf):
        raise DomainError("q, sigma", (q, sigma), "q in (0, 1], sigma in (0, inf)")
    low_end = math.log1p(-q) if q < 1 else NEG_INF  # the remove loss exceeds log(1 - q)

    if direction == "remove":
        def tails(t):
            x = _sgm_threshold(t, q, sigma)
            p_up, p_down = _mixture_tails(x, q, sigma)
            q_up, q_down = _normal_tails(x, sigma)
            return p_up, p_down, q_up, q_down

        def support(tail):
            z = _normal_quantile(tail)
            lo = low_end if q < 1 else _sgm_loss(-sigma * z, q, sigma)  # P(X < -s z) <= Φ(-z) for the mixture
            return lo, _sgm_loss(1 + sigma * z, q, sigma)               # P(X > 1 + s z) <= Φ(-z)
    elif direction == "add":
        def tails(t):
            # add loss = -(remove loss at the same x): L > t iff X < x(-t)
            x = _sgm_threshold(-t, q, sigma)
            p_down_x, p_up_x = _normal_tails(x, sigma)         # log P(X > x), log P(X <= x) under N(0, s^2)
            m_up_x, m_down_x = _mixture_tails(x, q, sigma)
            return p_up_x, p_down_x, m_down_x, m_up_x          # L > t  <=>  X <= x

        def support(tail):
            z = _normal_quantile(tail)
            hi = -low_end if q < 1 else -_sgm_loss(-sigma * z, q, sigma)  # add loss < -log(1 - q)
            return -_sgm_loss(sigma * z, q, sigma), hi
    else:
        raise DomainError("direction", direction, "'remove' or 'add'")
    return LossPair(f"sgm(q={q!r}, sigma={sigma!r}, {direction})", tails, support)


# ---------------------------------------------------------------------------------------------------------------
# Poisson-subsampled Laplace (q = 1: the Laplace mechanism)

def _laplace_tails(x: torch.Tensor, mu: float, b: float) -> tuple[torch.Tensor, torch.Tensor]:
    """log P(X > x), log P(X <= x) for X ~ Laplace(mu, b)."""
    z = (x - mu) / b
    half = math.log(0.5)
    up = torch.where(z >= 0, half - z, log1mexp(half + z.clamp_max(0)))
    down = torch.where(z < 0, half + z, log1mexp(half - z.clamp_min(0)))
    return up, down


def _laplace_mixture_tails(x, q, b):
    log_1mq = math.log1p(-q) if q < 1 else NEG_INF
    u0, d0 = _laplace_tails(x, 0.0, b)
    u1, d1 = _laplace_tails(x, 1.0, b)
    return torch.logaddexp(log_1mq + u0, math.log(q) + u1), torch.logaddexp(log_1mq + d0, math.log(q) + d1)


def _laplace_threshold(t: torch.Tensor, q: float, b: float, strict: bool = False) -> torch.Tensor:
    """The outcome threshold of the remove loss L(x) = log(1 - q + q e^{u(x)}), u(x) = (|x| - |x-1|)/b, which is
    -1/b on x <= 0, (2x-1)/b on [0, 1], 1/b on x >= 1 (non-decreasing, flat at both ends: atoms of the loss).
    Not strict: L > t iff X > x (x = -inf when every outcome has loss > t, +inf when none has).
    Strict: L < t iff X < x (the boundary outcome has probability 0 on the sloped part)."""
    inner = torch.expm1(t) + q
    v = torch.where(inner > 0, torch.log(inner.clamp_min(1e-320)) - math.log(q), torch.full_like(t, NEG_INF))
    x = ((b * v + 1) / 2).clamp(0, 1)  # u(x) = v on (0, 1)
    if strict:  # L < t: none when v <= -1/b, all when v > 1/b
        x = torch.where(v <= -1 / b, torch.full_like(t, NEG_INF), x)
        return torch.where(v > 1 / b, torch.full_like(t, math.inf), x)
    x = torch.where(v < -1 / b, torch.full_like(t, NEG_INF), x)   # every outcome has u >= -1/b > v
    return torch.where(v >= 1 / b, torch.full_like(t, math.inf), x)  # no outcome has u > v


def laplace_pair(q: float, b: float, direction: str) -> LossPair:
    """The Poisson-subsampled Laplace mechanism's dominating pair (q = 1: Laplace; both directions coincide)."""
    q, b = float(q), float(b)
    if not (0 < q <= 1) or not (0 < b < math.inf):
        raise DomainError("q, b", (q, b), "q in (0, 1], b in (0, inf)")
    top = math.log1p(-q + q * math.exp(1 / b)) if q < 1 else 1 / b
    bottom = math.log1p(-q + q * math.exp(-1 / b)) if q < 1 else -1 / b

    def remove_tails(t):
        x = _laplace_threshold(t, q, b)
        p_up, p_down = _laplace_mixture_tails(x, q, b)
        q_up, q_down = _laplace_tails(x, 0.0, b)
        return p_up, p_down, q_up, q_down

    if direction == "remove":
        tails = remove_tails
        support = lambda tail: (bottom, top)  # noqa: E731
    elif direction == "add":
        def tails(t):
            # add loss = -(remove loss): L > t iff the remove loss < -t iff X < x (strict threshold at -t)
            x = _laplace_threshold(-t, q, b, strict=True)
            p_x_up, p_x_down = _laplace_tails(x, 0.0, b)          # P = Laplace(0, b): P(X > x), P(X <= x)
            m_x_up, m_x_down = _laplace_mixture_tails(x, q, b)    # Q = the mixture
            return p_x_down, p_x_up, m_x_down, m_x_up             # L > t iff X < x (P(X = x) = 0)
        support = lambda tail: (-top, -bottom)  # noqa: E731
    else:
        raise DomainError("direction", direction, "'remove' or 'add'")
    return LossPair(f"laplace(q={q!r}, b={b!r}, {direction})", tails, support)


# ---------------------------------------------------------------------------------------------------------------
# pure and approximate DP (randomized response)

def approx_dp_pair(eps0: float, delta0: float = 0.0) -> LossPair:
    """The dominating pair of (eps0, delta0)-DP: P = (delta0 at +inf, (1-delta0) e^e0/(1+e^e0) at loss +e0,
    (1-delta0)/(1+e^e0) at -e0); Q mirrored (Kairouz, Oh & Viswanath 2015, Thm 2.1)."""
    eps0, delta0 = float(eps0), float(delta0)
    if not (0 <= eps0 < math.inf) or not (0 <= delta0 < 1):
        raise DomainError("eps0, delta0", (eps0, delta0), "eps0 in [0, inf), delta0 in [0, 1)")
    log_keep = math.log1p(-delta0)
    log_hi = log_keep - math.log1p(math.exp(-eps0))   # P-mass at +e0
    log_lo = log_keep - math.log1p(math.exp(eps0))    # P-mass at -e0 (= Q-mass at +e0)

    def tails(t):
        full = torch.full_like(t, 0.0)
        ninf = torch.full_like(t, NEG_INF)
        above_hi = t >= eps0         # no finite loss > t
        above_lo = t >= -eps0        # only +e0 is > t
        p_up = torch.where(above_hi, ninf, torch.where(above_lo, full + log_hi, full + log_keep))
        p_down = torch.where(above_hi, full + log_keep, torch.where(above_lo, full + log_lo, ninf))
        q_up = torch.where(above_hi, ninf, torch.where(above_lo, full + log_lo, full + log_keep))
        q_down = torch.where(above_hi, full + log_keep, torch.where(above_lo, full + log_hi, ninf))
        return p_up, p_down, q_up, q_down

    return LossPair(f"approx_dp(eps0={eps0!r}, delta0={delta0!r})", tails, lambda tail: (-eps0, eps0), delta0, delta0)


def pure_dp_pair(eps0: float) -> LossPair:
    """Randomized response: the dominating pair of every eps0-DP mechanism."""
    return approx_dp_pair(eps0, 0.0)
