"""Generalized PTR's accounting on the torch fast path (float64, broadcasting): seed 003 Theorem 3.5.3 / 3.5.7 (the
(ε + ε̂, δ̂ + max(δ, δ′)) budget the proof of B.2.1 gives, and the printed sum form), Liu–Talwar random stopping
(Theorem 3.5.6) and its cut-off T, the exact selection success of Algorithm 5 (Theorem B.2.3, erratum E12) and the RDP
form of Theorem B.2.5 (a logsumexp, notes generalized-ptr.md §8). Mirrors ``dpspec.reference.gptr.generalized`` and
``dpspec.reference.gptr.selection``.
"""
from __future__ import annotations

import torch

from dpspec.reference.domains import ALPHA, DELTA, EPS
from dpspec.reference.errors import DomainError
from dpspec.reference.gptr import spec
from dpspec.reference.gptr.spec import COUNT, HALF_OPEN_DELTA, PROBABILITY

from .._torch import params
from ._common import refuse_outside

TAU = spec.TAU  # τ ∈ (0, 1] (seed 003 Theorem 3.5.6 prints τ ∈ [0, 1]; τ = 0 has T = ∞ and is refused)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.5.3 / 3.5.7


def gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form: str = "max") -> tuple[torch.Tensor, torch.Tensor]:
    """(ε + ε̂, δ̂ + max(δ, δ′)) (``form="max"``: what the proof of seed 003 Theorem 3.5.3 in App. B.2.1 shows, Case I
    δ̂ + δ′, Case II δ̂ + δ) or (ε + ε̂, δ + δ̂ + δ′) (``form="sum"``: the theorem as printed, valid and looser)."""
    eps, eps_hat, delta, delta_hat, delta_prime = params(
        eps=(eps, EPS), eps_hat=(eps_hat, EPS), delta=(delta, DELTA), delta_hat=(delta_hat, HALF_OPEN_DELTA),
        delta_prime=(delta_prime, PROBABILITY))
    if form == "max":
        return eps + eps_hat, delta_hat + torch.maximum(delta, delta_prime)
    if form == "sum":
        return eps + eps_hat, delta + delta_hat + delta_prime
    raise DomainError("form", form, "one of {max, sum}")


def uniform_bound_budget(eps, eps_hat, delta, delta_hat, delta_prime) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε + ε̂, δ + δ̂ + δ′): Algorithm 12 (generalized PTR with a uniform bound; seed 003 Theorem B.2.4, right by
    adaptive composition, erratum E9 on its written proof; ``gptr.thm_b2_4``)."""
    return gptr_budget(eps, eps_hat, delta, delta_hat, delta_prime, form="sum")


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.5.6 (Liu & Talwar 2019, Thm 3.4)


def _cutoff(tau: torch.Tensor, delta_2: torch.Tensor) -> torch.Tensor:
    """T = (1/τ) log(1/δ2) (seed 003 Theorem 3.5.6)."""
    return -torch.log(delta_2) / tau


def liu_talwar_cutoff(tau, delta_2) -> torch.Tensor:
    """The cut-off T = (1/τ) log(1/δ2) of Algorithm 5 (seed 003 Theorem 3.5.6)."""
    tau, delta_2 = params(tau=(tau, TAU), delta_2=(delta_2, DELTA))
    return _cutoff(tau, delta_2)


def liu_talwar(eps_star, delta_star, tau, delta_2) -> tuple[torch.Tensor, torch.Tensor]:
    """(3ε* + 3√(2δ*), √(2δ*)·T + δ2), T = (1/τ) log(1/δ2): Algorithm 5 with (ε*, δ*)-DP calls of Algorithm 4
    (seed 003 Theorem 3.5.6 = Liu & Talwar 2019 Thm 3.4). √(2δ*) is formed as exp((log 2 + log δ*)/2) (δ* ~ 1e-21 in
    the OPS-PTR experiment, notes §8). √(2δ*)·T is formed in logs: T itself overflows a double at τ ≈ 1e-310 where
    the product (≈ 6.5e215 at δ* = 4.6e-195) does not."""
    eps_star, delta_star, tau, delta_2 = params(eps_star=(eps_star, EPS), delta_star=(delta_star, HALF_OPEN_DELTA),
                                                tau=(tau, TAU), delta_2=(delta_2, DELTA))
    root = torch.sqrt(2 * delta_star)
    log_product = torch.log(root) + torch.log(-torch.log(delta_2)) - torch.log(tau)
    return 3 * eps_star + 3 * root, torch.exp(log_product) + delta_2


# ---------------------------------------------------------------------------------------------------------------
# Theorem B.2.3 (utility of Algorithm 5), exact and printed


def _log_geometric_survival(tau: torch.Tensor, k: torch.Tensor) -> torch.Tensor:
    """log r, r = (1 − τ)(1 − 1/k)."""
    return torch.log1p(-tau) + torch.log1p(-1 / k)


def selection_success(k, tau, T) -> torch.Tensor:
    """P[Algorithm 5 returns the best of k equally likely candidates] = 1 − E[(1 − 1/k)^T̂], T̂ = min(T, G),
    G ~ Geometric(τ) on {1, 2, …} (seed 003 Theorem B.2.3's proof, exactly; erratum E12). Summed by parts,
    1 − E[x^T̂] = (1 − x)·Σ_{j=1}^{T} P[T̂ ≥ j]·x^{j−1} = (1/k)(1 − r^T)/(1 − r), r = (1 − τ)(1 − 1/k): a sum of
    positive terms, 1 − r^T as −expm1(T log r) and 1 − r = τ + (1 − τ)/k, no cancellation at k → ∞ or τ → 0."""
    k, tau, T = params(k=(k, COUNT), tau=(tau, TAU), T=(T, COUNT))
    one_minus_r = tau + (1 - tau) / k
    return -torch.expm1(T * _log_geometric_survival(tau, k)) / (k * one_minus_r)


def expected_stopping_time(tau, T) -> torch.Tensor:
    """E[T̂] = Σ_{j=1}^{T} (1 − τ)^{j−1} = (1 − (1 − τ)^T)/τ, T̂ = min(T, Geometric(τ)) (seed 003 B.2.2)."""
    tau, T = params(tau=(tau, TAU), T=(T, COUNT))
    return -torch.expm1(T * torch.log1p(-tau)) / tau


def selection_success_printed(k, tau, T) -> torch.Tensor:
    """β ≈ E[T̂]/k, the linearisation f(1 − 1/k) ≈ 1 − E[T̂]/k of seed 003 Theorem B.2.3's proof (erratum E12: above
    1 wherever E[T̂] > k, e.g. 20.0 at k = 30, τ = 0.05/k, T = 8705). Not a probability."""
    k, tau, T = params(k=(k, COUNT), tau=(tau, TAU), T=(T, COUNT))
    return -torch.expm1(T * torch.log1p(-tau)) / tau / k


# ---------------------------------------------------------------------------------------------------------------
# Theorem B.2.5 (RDP generalized PTR)


def log_mixture(log_w: torch.Tensor, log_1mw: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """log(w + (1 − w) e^{−t}) for t ≥ 0, given log w and log(1 − w): log1p(−(1 − w)(1 − e^{−t})) while
    (1 − w)(1 − e^{−t}) < ½ (the log of a number near 1 keeps its relative precision), else the logaddexp form."""
    u = torch.exp(log_1mw) * -torch.expm1(-t)
    near = torch.log1p(-torch.clamp(u, max=0.5))
    far = torch.logaddexp(log_w, log_1mw - t)
    return torch.where(u < 0.5, near, far)


def rdp_mixture(alpha, eps_tilde, eps, delta_prime):
    """(1/(α − 1)) log(δ′ e^{(α−1)ε̃} + (1 − δ′) e^{(α−1)ε}) on checked tensors, written about m = max(ε̃, ε):
    m + log(w + (1 − w) e^{−(α−1)|ε̃ − ε|})/(α − 1) with w the weight of the larger term (notes §8: the direct
    exp((α−1)ε̃) overflows at α = 43, ε̃ = 20, and near α = 1 the plain logaddexp loses log 2 to cancellation)."""
    am1 = alpha - 1
    log_dp = torch.log(delta_prime)
    log_1mdp = torch.log1p(-delta_prime)
    tilde_larger = eps_tilde >= eps
    log_w = torch.where(tilde_larger, log_dp, log_1mdp)
    log_1mw = torch.where(tilde_larger, log_1mdp, log_dp)
    t = am1 * (eps_tilde - eps).abs()
    m = torch.maximum(eps_tilde, eps)
    value = m + log_mixture(log_w, log_1mw, t) / am1
    # δ′ = 0 or 1: one term only (log 0 = −inf makes the forms above exact too, but not for w = 0 with t = 0)
    value = torch.where(delta_prime == 0, eps, value)
    return torch.where(delta_prime == 1, eps_tilde, value)


def thm_b2_5_rdp(alpha, eps_hat_alpha, eps_tilde_alpha, eps_alpha, delta_prime, pass_law: str = "equal",
                 allow_outside: bool = False) -> torch.Tensor:
    """ε̂(α) + (1/(α − 1)) log(δ′ e^{(α−1)ε̃(α)} + (1 − δ′) e^{(α−1)ε(α)}) (seed 003 Theorem B.2.5), in the log-sum-exp
    form of notes §8. A valid RDP bound only when every "bad" dataset passes the test with the same probability δ′
    (``pass_law="equal"``, condition equal_pass); with ``"at_most"`` (a false-positive rate ≤ δ′, Algorithm 13's
    wording) it is refused unless ``allow_outside`` (erratum E1: the notes' §3.5 pair exceeds it)."""
    alpha, eps_hat_alpha, eps_tilde_alpha, eps_alpha, delta_prime = params(
        alpha=(alpha, ALPHA), eps_hat_alpha=(eps_hat_alpha, EPS), eps_tilde_alpha=(eps_tilde_alpha, EPS),
        eps_alpha=(eps_alpha, EPS), delta_prime=(delta_prime, PROBABILITY))
    spec.PASS_LAW.check("pass_law", pass_law)
    refuse_outside("gptr.thm_b2_5", [(spec.EQUAL_PASS, pass_law == "equal")], allow_outside)
    return eps_hat_alpha + rdp_mixture(alpha, eps_tilde_alpha, eps_alpha, delta_prime)
