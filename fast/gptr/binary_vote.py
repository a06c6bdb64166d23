"""Binary voting with report-noisy-max on the torch fast path (float64, batched over vote gaps): the exact
data-dependent ε of seed 003 Theorem B.3.2 (δ = 0) and its δ-approximate version (notes generalized-ptr.md §2.6,
erratum E4), and Example B.3.1's accounting of the three procedures. Mirrors ``dpspec.reference.gptr.binary_vote``.

M(X) = argmax_i n_i(X) + Lap(1/ε); with t = n1 − n0 the output is class 0 with probability p(t) = P[Z > εt],
Z = Lap(1) − Lap(1): log p(u) = log(2 + εu) − εu − log 4 for u ≥ 0 (no underflow at εu > 745), and p(−t) = 1 − p(t).
The neighbours reach t ± 1, and ε(X) is even in t. Every log-ratio is formed without cancellation: the class-0 ratio
analytically, log p(u)/p(u + d) = εd − log1p(εd/(2 + εu)), and the class-1 ratio from it,
log (1 − p(u))/(1 − p(u + d)) = log1p(p(u)·expm1(−r0)/(1 − p(u + d))) (the two logs of numbers near 1 would cancel
for small ε).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import DomainError
from dpspec.reference.gptr import spec

from .._torch import log1mexp, params

_LOG4 = math.log(4.0)


def log_p0(u: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    """log p(u) = log(2 + εu) − εu − log 4, u ≥ 0."""
    s = eps * u
    return torch.log(2 + s) - s - _LOG4


def _exp_times_expm1(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """e^x·expm1(y) as sign(y)·exp(x + log|expm1(y)|): at ε = 1e300 the product is 0·inf (e^x underflows where
    expm1(y) overflows), NaN before; log|expm1(y)| is y + log(1 − e^{−y}) for y > 0 and log(1 − e^y) for y < 0."""
    pos = y > 0
    log_abs = torch.where(pos, y + log1mexp(-y.abs()), log1mexp(-y.abs()))
    return torch.where(y == 0, torch.zeros_like(x), torch.where(pos, 1.0, -1.0) * torch.exp(x + log_abs))


def _candidates(u: torch.Tensor, d: float, eps: torch.Tensor, delta: torch.Tensor) -> list[torch.Tensor]:
    """The log-ratio candidates of the Bernoulli pair (P at gap u ≥ 0, Q at u + d), both directions and outcomes:
    δ = 0: ±r0, ±r1 (r0 = log p(u)/p(u+d), r1 = log (1−p(u))/(1−p(u+d))); δ > 0: log((P(o) − δ)/Q(o)) where
    P(o) > δ, −inf elsewhere."""
    ud = u + d
    a0, b0 = log_p0(u, eps), log_p0(ud, eps)
    a1, b1 = log1mexp(a0), log1mexp(b0)
    r0 = eps * d - torch.log1p(eps * d / (2 + eps * u))
    r1 = torch.log1p(_exp_times_expm1(a0 - b1, -r0))
    ld = torch.log(delta)
    out = []
    for x, ratio in ((a0, r0), (b0, -r0), (a1, r1), (b1, -r1)):
        approx = torch.where(x > ld, ratio + log1mexp(torch.clamp(ld - x, max=0.0)), torch.full_like(x, -math.inf))
        out.append(torch.where(delta == 0, ratio, approx))
    return out


def thm_b3_2(t, eps, delta=0.0) -> torch.Tensor:
    """ε(X) = max over t′ = t ± 1 and both directions of max(|log p/p′|, |log (1−p)/(1−p′)|) (seed 003 Theorem B.3.2,
    δ = 0, exact), or for δ > 0 the smallest ε ≥ 0 with both hockey-stick divergences ≤ δ: max(0, max_o
    log((P(o) − δ)/Q(o))) (``gptr.thm_b3_2``). t, ε, δ broadcast (a vector of gaps in one call)."""
    t, eps, delta = params(t=(t, spec.P_VOTE_GAP.domain), eps=(eps, spec.P_RNM_EPS.domain),
                           delta=(delta, spec.P_RNM_DELTA.domain))
    u = t.abs()
    out = torch.zeros_like(u)
    for d in (1.0, -1.0):
        valid = u + d >= 0
        ud = torch.where(valid, u, torch.ones_like(u))
        for c in _candidates(ud, d, eps, delta):
            out = torch.where(valid, torch.maximum(out, c), out)
    return torch.where(eps == 0, torch.zeros_like(out), out)


def thm_b3_2_printed(t, eps) -> torch.Tensor:
    """−ε log1p(ε/(2 + εt)) = ε·log((2 + εt)/(2 + ε(t + 1))), seed 003 Ex B.3.1's printed bound for t ≥ 0 (erratum
    E4(i): negative, not a bound)."""
    t, eps = params(t=(t, spec.P_VOTE_GAP.domain), eps=(eps, spec.P_RNM_EPS.domain))
    return -eps * torch.log1p(eps / (2 + eps * t))


def ex_b3_1(procedure, eps, eps_tilde, eps_prime, delta) -> tuple[torch.Tensor, torch.Tensor]:
    """Seed 003 Example B.3.1's accounting (``gptr.ex_b3_1``): Gen-PTR (ε̃ + ε′, δ), classic PTR (ε̃, δ), Laplace
    report-noisy-max (ε, 0)."""
    spec.BINARY_PROCEDURE.check("procedure", procedure)
    eps, eps_tilde, eps_prime, delta = params(eps=(eps, spec.P_RNM_EPS.domain), eps_tilde=(eps_tilde, spec.EPS),
                                              eps_prime=(eps_prime, spec.P_EPS_PRIME.domain),
                                              delta=(delta, spec.P_DELTA.domain))
    if procedure == "gen_ptr":
        return eps_tilde + eps_prime, delta
    if procedure == "classic":
        return eps_tilde, delta
    if procedure == "laplace":
        return eps, torch.zeros_like(delta)
    raise DomainError("procedure", procedure, spec.BINARY_PROCEDURE.describe())  # pragma: no cover
