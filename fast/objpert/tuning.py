"""Private hyperparameter tuning by random search with a Poisson number of runs (Papernot & Steinke, "Hyperparameter
Tuning with Renyi Differential Privacy", ICLR 2022, arXiv 2110.03620v2, Theorem 6 — the Poisson case; the
truncated-negative-binomial family is their Theorem 2), the "honest" tuning of seed 003 Sec. 4.5 (notes
objpert-rdp.md §4 A6, M7, [PS21/22]), on the torch fast path (float64).

The tuned algorithm: draw K ~ Poisson(µ); run the base algorithm K times, each with hyperparameters drawn i.i.d. from
a grid; release the best run by its score (nothing when K = 0). If every run is (α, ε(α))-RDP for all α and
(ε̂, δ̂)-DP, the release is (α, ε'(α))-RDP with

    ε'(α) = ε(α) + µ·δ̂(α) + log(µ)/(α − 1),    ε̂(α) = log(1 + 1/(α − 1))                       (Theorem 6)

(the formula of dp_accounting's ``_compute_rdp_repeat_and_select``, Poisson branch, and of the thesis' code, notes
§4 A6). δ̂(α) is here a valid δ of the base run at ε̂(α) from its own RDP curve (Balle et al. 2020 Thm 21 /
Canonne, Kamath & Steinke 2020 Prop. 12, minimised over the order grid), and the tuned (ε, δ) is the same
conversion of ε'. Every minimum is over the fixed grid :data:`ALPHAS`, so each value is a valid bound at the order
attaining it (no continuous search is needed for soundness).

When the hyperparameters change the privacy (a grid of noise levels), the base curve must bound every candidate
(their maximum); the experiment tunes only privacy-free hyperparameters (DP-SGD's learning rate, Algorithm 7's
L-BFGS solver seed), so one curve serves.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import DomainError

from .._torch import DTYPE

ALPHAS = torch.cat([1 + torch.logspace(-2, 0, 17, dtype=DTYPE)[:-1],
                    torch.logspace(math.log10(2), 3, 80, dtype=DTYPE)])  # 1.01 … 1000


def _mu(mu) -> float:
    mu = float(mu)
    if not (math.isfinite(mu) and mu >= 1):
        raise DomainError("mu", mu, "[1, inf) (Papernot & Steinke Thm 6 needs E[K] ≥ 1)")
    return mu


def log_delta_from_rdp(rdp: torch.Tensor, alphas: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    """log δ at each ε of ``eps`` from an RDP curve on ``alphas`` (BBG+20 Thm 21 / CKS20 Prop. 12):
    min_α (α − 1)(ε(α) − ε) − log α + (α − 1) log(1 − 1/α); ``eps`` any shape, result the same shape."""
    a = alphas.reshape(*([1] * eps.dim()), -1)
    r = rdp.reshape(*([1] * eps.dim()), -1)
    obj = (a - 1) * (r - eps.unsqueeze(-1)) - torch.log(a) + (a - 1) * torch.log1p(-1 / a)
    return obj.min(-1).values


def epsilon_from_rdp(rdp: torch.Tensor, alphas: torch.Tensor, delta: float) -> float:
    """ε at δ from an RDP curve on ``alphas`` (BBG+20 Thm 21): min_α ε(α) + log(1 − 1/α) − (log δ + log α)/(α − 1),
    at least 0."""
    obj = rdp + torch.log1p(-1 / alphas) - (math.log(delta) + torch.log(alphas)) / (alphas - 1)
    return max(0.0, float(obj.min()))


def ps_poisson_rdp(rdp: torch.Tensor, alphas: torch.Tensor, mu) -> torch.Tensor:
    """ε'(α) = ε(α) + µ·δ̂(α) + log(µ)/(α − 1), ε̂(α) = log(1 + 1/(α − 1)) (Papernot & Steinke 2022, Thm 6): the RDP
    of Poisson(µ) random search over runs whose RDP curve is ``rdp`` on ``alphas`` (δ̂ from that curve, δ̂ ≤ 1)."""
    mu = _mu(mu)
    eps_hat = torch.log1p(1 / (alphas - 1))
    delta_hat = torch.exp(log_delta_from_rdp(rdp, alphas, eps_hat)).clamp(max=1.0)
    return rdp + mu * delta_hat + math.log(mu) / (alphas - 1)


def tuned_epsilon(rdp: torch.Tensor, delta: float, mu, alphas: torch.Tensor = ALPHAS) -> float:
    """(ε, δ) of Poisson(µ) random search (Thm 6, then BBG+20's conversion); µ = None: the base run alone."""
    curve = rdp if mu is None else ps_poisson_rdp(rdp, alphas, mu)
    return epsilon_from_rdp(curve, alphas, delta)


def poisson_mean_for(s: int = 10, prob: float = 0.9) -> float:
    """µ with P[Poisson(µ) > s] = prob (the thesis' µ ≈ 15.4 for s = 10, prob = 0.9; notes §5.1: 15.4066), by
    bisection on P[K ≤ s] = Q(s + 1, µ) (regularised upper incomplete gamma)."""
    lo, hi = 1.0, 10.0 * (s + 1) + 100.0
    target = torch.tensor(1 - prob, dtype=DTYPE)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if torch.special.gammaincc(torch.tensor(s + 1.0, dtype=DTYPE), torch.tensor(mid, dtype=DTYPE)) > target:
            lo = mid
        else:
            hi = mid
    return hi


def calibrate_noise(curve_at, eps: float, delta: float, mu, lo: float, hi: float, rtol: float = 1e-4) -> float:
    """The smallest noise s in [lo, hi] (to ``rtol``, an upper end) with tuned_epsilon(curve_at(s)) ≤ ε, for a curve
    non-increasing in s (bisection in log s); DomainError when even ``hi`` misses ε."""
    def ok(s):
        return tuned_epsilon(curve_at(s), delta, mu) <= eps

    if not ok(hi):
        raise DomainError("eps", eps, f"reachable with noise ≤ {hi:g} (tuned, µ = {mu})")
    if ok(lo):
        return lo
    while hi / lo - 1 > rtol:
        mid = math.sqrt(lo * hi)
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def sgm_curve(q: float, steps: int):
    """s ↦ the RDP on ALPHAS of ``steps`` Poisson-subsampled Gaussian steps at rate q, noise multiplier s (the
    accountant's base.sgm_rdp)."""
    from ..accountant import Accountant

    return lambda s: Accountant(method="rdp").sgm(q, s, steps).rdp(ALPHAS)


def amp_curve(lam: float, beta: float, C: float, tau: float, sigma_out: float):
    """σ ↦ the RDP on ALPHAS of one run of Algorithm 7 (seed 003 Thm 4.4.1, the accountant's objpert.thm4_4_1)."""
    from ..accountant import Accountant

    return lambda s: Accountant(method="rdp").compose("objpert.thm4_4_1", count=1, sigma=s, sigma_out=sigma_out,
                                                      lam=lam, beta=beta, C=C, tau=tau).rdp(ALPHAS)


def random_search(run, grid, mu, generator: torch.Generator):
    """Poisson(µ) random search: K ~ Poisson(µ) candidates, each ``run(h, k)`` with h drawn uniformly from ``grid``
    (i.i.d., with replacement: the model of Papernot & Steinke; the thesis' code draws without replacement, notes
    E23); ``run`` returns (score, result). Returns (best result or None when K = 0, K)."""
    K = int(torch.poisson(torch.tensor(float(_mu(mu)), dtype=DTYPE), generator=generator))
    best = None
    for k in range(K):
        h = grid[int(torch.randint(len(grid), (), generator=generator))]
        score, result = run(h, k)
        if best is None or score > best[0]:
            best = (score, result)
    return (None if best is None else best[1]), K
