"""Readable reference implementations of seed 003's PTR algorithms (numpy randomness, mpmath accounting): Algorithm 3
(classic PTR), Algorithm 4 (generalized PTR), Algorithm 5 (PTR with hyperparameter selection, Liu–Talwar random
stopping) and Algorithm 12 (generalized PTR with a uniform bound). Notes: shared/notes/generalized-ptr.md §4.

Every function takes a seeded ``numpy.random.Generator`` and returns an :class:`Outcome`: the release (``None`` for
⊥), and the (ε, δ) the catalogue statements give for it (gptr.thm3_3_4, gptr.thm3_5_3, gptr.thm3_5_6, gptr.thm_b2_4).
The data enter through what the algorithms need of them (f(X), D_β(X), a mechanism and a test as callables), so
that the same code runs on any dataset; what is private is the caller's responsibility (the accounting is valid
only under the statements' hypotheses, which these functions cannot check).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

import mpmath
import numpy as np

from ..domains import DELTA, EPS
from ..errors import DomainError, ParameterError
from ..precision import checked_param
from .generalized import gptr_budget
from .prelims import classic_ptr
from .selection import liu_talwar_cutoff
from .spec import HALF_OPEN_DELTA, INSTABILITY_DISTANCE, POSITIVE, PROBABILITY, TAU


@dataclass(frozen=True)
class Outcome:
    """What an algorithm returns: the release (None for ⊥), its accounting (ε, δ) as mpf, and run details."""

    release: Any
    eps: Any
    delta: Any
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def refused(self) -> bool:
        return self.release is None


@functools.lru_cache(maxsize=256)
def _cached(fn, *args, **kwargs):
    """An accounting value (a self-checked evaluator at fixed arguments), computed once per argument tuple: the
    algorithms are run thousands of times in Monte Carlo tests with the same budget."""
    return fn(*args, **kwargs)


def _rng(rng):
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng must be a numpy.random.Generator (e.g. numpy.random.default_rng(seed)), got "
                             f"{type(rng).__name__}")
    return rng


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 3 (classic PTR)


def alg3_threshold(eps, delta):
    """log(1/δ)/ε, Algorithm 3 line 2 (float)."""
    return math.log(1 / float(delta)) / float(eps)


def alg3_pass_probability(eps, delta, distance):
    """P[D + Lap(1/ε) > log(1/δ)/ε] = P[Lap(1) > s], s = log(1/δ) − εD: ½e^{−s} (s ≥ 0), 1 − ½e^{s} (s < 0), mpmath
    (notes §3.3). At D = 0 it is δ/2, the worst case of Thm 3.3.4."""
    s = -mpmath.log(mpmath.mpf(delta)) - mpmath.mpf(eps) * distance
    return mpmath.exp(-s) / 2 if s >= 0 else 1 - mpmath.exp(s) / 2


def alg3_classic_ptr(rng, value, distance, eps, delta, beta) -> Outcome:
    """Seed 003, Algorithm 3 (Dwork & Lei 2009): if D_β(X) + Lap(1/ε) ≤ log(1/δ)/ε output ⊥, else release
    f(X) + Lap(β/ε). ``value`` = f(X), ``distance`` = D_β(X) (an integer ≥ 0), β > 0 the proposed bound on the local
    sensitivity. Accounting (2ε, δ) (gptr.thm3_3_4); ε > 0 here (ε = 0 has no Laplace test)."""
    rng = _rng(rng)
    eps = checked_param("eps", POSITIVE, eps)
    delta = checked_param("delta", DELTA, delta)
    beta = checked_param("beta", POSITIVE, beta)
    distance = checked_param("distance", INSTABILITY_DISTANCE, distance)
    eps_total, delta_total = _cached(classic_ptr, eps, delta)
    noisy = float(distance) + rng.laplace(0.0, 1 / float(eps))
    if noisy <= alg3_threshold(eps, delta):
        return Outcome(None, eps_total, delta_total, {"noisy_distance": noisy})
    release = float(value) + rng.laplace(0.0, float(beta) / float(eps))
    return Outcome(release, eps_total, delta_total, {"noisy_distance": noisy})


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 4 (generalized PTR)


def alg4_generalized_ptr(rng, mechanism: Callable, test: Callable, eps, eps_hat, delta, delta_hat, delta_prime,
                         form: str = "max") -> Outcome:
    """Seed 003, Algorithm 4: if not T(X) output ⊥, else release θ = M_φ(X). ``test(rng) -> bool`` is the (ε̂, δ̂)-DP
    test T(X) with false-positive rate ≤ δ′, ``mechanism(rng)`` draws M_φ(X) (a mechanism with data-dependent DP
    ε_φ(X) w.r.t. δ; budget ε). Accounting gptr.thm3_5_3: (ε + ε̂, δ̂ + max(δ, δ′)) (``form="sum"``: as printed)."""
    rng = _rng(rng)
    eps_total, delta_total = _cached(
        gptr_budget, checked_param("eps", EPS, eps), checked_param("eps_hat", EPS, eps_hat),
        checked_param("delta", DELTA, delta), checked_param("delta_hat", HALF_OPEN_DELTA, delta_hat),
        checked_param("delta_prime", PROBABILITY, delta_prime), form=form)
    passed = bool(test(rng))
    if not passed:
        return Outcome(None, eps_total, delta_total, {"passed": False})
    return Outcome(mechanism(rng), eps_total, delta_total, {"passed": True})


def upper_bound_test(upper_bound: Callable, eps) -> Callable:
    """The test of Thm 3.5.7: T(X) = 1 iff ε^P_φ(X) < ε, for ``upper_bound(rng)`` drawing the (ε̂, δ̂)-DP upper bound
    ε^P_φ(X) (≥ ε_φ(X) with probability ≥ 1 − δ′)."""
    bound = float(checked_param("eps", EPS, eps))
    return lambda rng: float(upper_bound(rng)) < bound


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 5 (PTR with hyperparameter selection)


def alg5_cutoff(tau, delta_2) -> int:
    """The integer cut-off ⌈(1/τ) log(1/δ2)⌉ (notes §4): P[G > it] = (1 − τ)^⌈T⌉ ≤ e^{−τT} = δ2."""
    return int(mpmath.ceil(_cached(liu_talwar_cutoff, tau, delta_2)))


def _alg5_accounting(eps_star, delta_star, cutoff, delta_2):
    """(3ε* + 3√(2δ*), √(2δ*)·T + δ2) at the integer cut-off T (gptr.thm3_5_6)."""
    root = mpmath.sqrt(2 * delta_star)
    return 3 * eps_star + 3 * root, root * cutoff + delta_2


def alg5_ptr_selection(rng, candidates: Sequence, run: Callable, score: Callable, eps_star, delta_star, tau,
                       delta_2) -> Outcome:
    """Seed 003, Algorithm 5 (Liu & Talwar random stopping): T = ⌈(1/τ) log(1/δ2)⌉, G ~ Geometric(τ) on {1, 2, …},
    T̂ = min(T, G); for i = 1..T̂ pick φ uniformly from ``candidates`` and run Algorithm 4 with it
    (``run(rng, φ)`` → a release or None for ⊥, each call (ε*, δ*)-DP); output the highest-scored candidate
    (``score(release)``; ⊥ scores −∞), as the release ``(φ, release)``, or None if every call gave ⊥.
    Accounting gptr.thm3_5_6 at the integer cut-off: (3ε* + 3√(2δ*), √(2δ*)·T + δ2)."""
    rng = _rng(rng)
    if len(candidates) == 0:
        raise DomainError("candidates", "[]", "a non-empty sequence of proposals φ1..φk")
    eps_star = checked_param("eps_star", EPS, eps_star)
    delta_star = checked_param("delta_star", HALF_OPEN_DELTA, delta_star)
    tau = checked_param("tau", TAU, tau)
    delta_2 = checked_param("delta_2", DELTA, delta_2)
    cutoff = alg5_cutoff(tau, delta_2)
    g = int(rng.geometric(float(tau)))
    t_hat = min(cutoff, g)
    best, best_score, tried = None, -math.inf, []
    for _ in range(t_hat):
        phi = candidates[int(rng.integers(len(candidates)))]
        release = run(rng, phi)
        s = -math.inf if release is None else float(score(release))
        tried.append(phi)
        if s > best_score:
            best, best_score = (phi, release), s
    eps_total, delta_total = _cached(_alg5_accounting, eps_star, delta_star, cutoff, delta_2)
    return Outcome(best, eps_total, delta_total, {"T": cutoff, "G": g, "T_hat": t_hat, "tried": tried,
                                                  "score": best_score})


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 12 (generalized PTR with a uniform bound)


def alg12_uniform_bound(rng, release_bound: Callable, mechanisms: Mapping[Any, Callable], eps, eps_hat, delta,
                        delta_hat, delta_prime, choose: Callable | None = None) -> Outcome:
    """Seed 003, Algorithm 12: release ε̄(·) = A(X) (``release_bound(rng)`` → a callable φ ↦ ε̄(φ) or a mapping; A
    (ε̂, δ̂)-DP with ε̄(φ) ≥ ε_φ(X) for all φ w.p. 1 − δ′), choose φ with ε̄(φ) ≤ ε (``choose(feasible)``, default the
    first in ``mechanisms``' order) and release M_φ(X) (``mechanisms[φ](rng)``). The thesis does not say what to do
    when no φ is feasible; this returns ⊥ (None; notes §2.5). Accounting gptr.thm_b2_4: (ε + ε̂, δ + δ̂ + δ′)."""
    rng = _rng(rng)
    eps = checked_param("eps", EPS, eps)
    eps_total, delta_total = _cached(
        gptr_budget, eps, checked_param("eps_hat", EPS, eps_hat), checked_param("delta", DELTA, delta),
        checked_param("delta_hat", HALF_OPEN_DELTA, delta_hat), checked_param("delta_prime", PROBABILITY, delta_prime),
        form="sum")
    bound = release_bound(rng)
    value_of = bound.__getitem__ if isinstance(bound, Mapping) else bound
    feasible = [phi for phi in mechanisms if float(value_of(phi)) <= float(eps)]
    if not feasible:
        return Outcome(None, eps_total, delta_total, {"feasible": []})
    phi = (choose or (lambda options: options[0]))(feasible)
    return Outcome((phi, mechanisms[phi](rng)), eps_total, delta_total, {"feasible": feasible, "phi": phi})
