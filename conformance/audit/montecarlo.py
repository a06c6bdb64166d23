"""The Monte Carlo truth of an accountant setting: rigorous confidence intervals for the privacy profile δ(ε) of
T-fold composed DP-SGD (Poisson rate q, Gaussian noise σ, add/remove neighbours), both directions.

For add/remove neighbours the profile is δ(ε) = max(δ_rem(ε), δ_add(ε)), with the per-step pairs
remove: P = (1−q)N(0,σ²) + qN(1,σ²) vs Q = N(0,σ²), and add: P = N(0,σ²) vs Q = the mixture (Zhu, Dong & Wang
2022; Lebeda et al. 2024, arXiv 2405.20769). δ_dir(ε) = E_P[(1 − e^{ε−L})₊], L = Σ_t ℓ(o_t) the composed loss.

At δ ≈ 1e-5 plain sampling of P needs ~10⁷ composed draws (auditing notes §3.5), and importance weights are in
general unbounded, which breaks finite-sample intervals. Both directions here use a proposal R whose weighted
term X = (dP/dR)·(1 − e^{ε−L})₊ is *bounded* by a constant B(ε) known in closed form, so Y = X/B ∈ [0, 1] and
the harness's bounded-mean intervals (conformance.intervals: betting or empirical Bernstein) apply exactly:

* remove — exponential tilting of order α = λ+1 (integer): R ∝ P·(p/q)^λ per step, which is the Gaussian mixture
  Σ_k w_k N(k, σ²) with the weights of reference.tilt_weights (the terms of base.sgm_rdp's binomial sum);
  dP/dR = A_α^T e^{−λL} for the composition, so X = A_α^T e^{−λL}(1 − e^{ε−L})₊ ≤ A_α^T e^{−λε} λ^λ/(λ+1)^{λ+1}
  =: B(ε) (the maximum over L > ε, attained at e^{L−ε} = (λ+1)/λ; B is the RDP→δ bound of Balle et al. 2020 at
  order α).
* add — the same tilt R ∝ P·(p/q)^λ = N(0,σ²)·e^{λℓ'} per step, ℓ'(o) = −log(1 − q + q e^{(2o−1)/(2σ²)}), for
  any real λ > 0: ℓ' ≤ c = −log(1−q), so R is drawn exactly by rejection from N(0,σ²) with acceptance
  e^{λ(ℓ'(o)−c)}; its normaliser Z_λ = E_{N(0,σ²)}[e^{λℓ'}] = e^{λ·ρ_add(λ+1)} comes from base.sgm_rdp
  (reference.log_z_add). Then dP/dR = Z_λ^T e^{−λL'} and X ≤ Z_λ^T e^{−λε} λ^λ/(λ+1)^{λ+1} =: B(ε), as for the
  remove direction.

Both constants are evaluated in float64 from the catalogue's mpmath reference (log A_α, log Z_λ); the sums L are
float64 sums of T terms (rounding ~1e-12 absolute, far below the statistical error). The proposal parameters
(α; o₀, λ) are chosen from ε_ref before sampling, never from the samples; any choice gives valid intervals, a good
one narrow ones. Samples are drawn with the harness engine (conformance.sampling.sample_losses), handed the proposal
as a pair-like object whose per-step loss is the true loss ℓ (or ℓ').
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from dpspec.conformance import intervals, sampling

from . import reference

DIRECTIONS = ("remove", "add")
MAX_TILT_ORDER = 256
MIN_ACCEPTANCE = 1e-3  # the add direction's rejection sampler: λ is chosen among those accepting ≥ 0.1 % of draws
#                        (the B9 setting's best λ accepts 0.2 %)
PROPOSAL_CHUNK = 1 << 22  # at most this many N(0, σ²) proposals are drawn at once


def _log_c(lam: float) -> float:
    """log of (λ+1)^{λ+1}/λ^λ, the reciprocal of max_{x<0} e^{λx}(1 − e^x)."""
    return (lam + 1) * math.log(lam + 1) - lam * math.log(lam)


def _remove_loss(o: np.ndarray, q: float, sigma: float) -> np.ndarray:
    """ℓ(o) = log(1 − q + q e^{(2o−1)/(2σ²)}), stably."""
    return np.logaddexp(math.log1p(-q), math.log(q) + (2 * o - 1) / (2 * sigma**2))


@dataclass(frozen=True)
class _Pair:
    """A pair-like object for the harness engine: ``sample`` draws the proposal, log_p − log_q is the per-step
    quantity to be summed (the engine only ever uses the difference)."""

    id: str
    draw: Any
    per_step: Any
    dominating: bool = True
    params: tuple = ()

    def sample(self, rng, n):
        return self.draw(rng, n)

    def log_p(self, o):
        return self.per_step(o)

    def log_q(self, o):
        return np.zeros_like(o)


@dataclass(frozen=True)
class RemoveTilt:
    q: float
    sigma: float
    steps: int
    alpha: int

    @property
    def lam(self) -> float:
        return float(self.alpha - 1)

    def log_bound(self, eps: float) -> float:
        return self.steps * float(reference.log_a(self.alpha, self.q, self.sigma)) - self.lam * eps \
            - _log_c(self.lam)

    def pair(self) -> _Pair:
        w = np.asarray(reference.tilt_weights(self.alpha, self.q, self.sigma))
        q, s = self.q, self.sigma

        edges = np.cumsum(w)[:-1]

        def draw(rng, n):
            u = rng.random(n)
            k = np.zeros(n)
            for e in edges:  # component index = number of cumulative weights below u (α is small)
                k += u > e
            return k + s * rng.standard_normal(n)

        return _Pair(f"sgm-remove-tilt(alpha={self.alpha})", draw, lambda o: _remove_loss(o, q, s))

    def record(self) -> dict[str, Any]:
        return {"proposal": "exponential tilt, Gaussian mixture Σ w_k N(k, σ²)", "alpha": self.alpha}


@dataclass(frozen=True)
class AddTilt:
    q: float
    sigma: float
    steps: int
    lam: float

    @property
    def cap(self) -> float:
        """c = −log(1 − q) ≥ ℓ'(o) for every o (the add loss is bounded above)."""
        return -math.log1p(-self.q)

    def log_acceptance(self) -> float:
        """log P(accept) = log E_{N(0,σ²)}[e^{λ(ℓ'−c)}] = log Z_λ − λc (log Z_λ from base.sgm_rdp)."""
        return float(reference.log_z_add(self.lam, self.q, self.sigma)) - self.lam * self.cap

    def log_bound(self, eps: float) -> float:
        return self.steps * float(reference.log_z_add(self.lam, self.q, self.sigma)) - self.lam * eps \
            - _log_c(self.lam)

    def pair(self) -> _Pair:
        q, s, lam, cap = self.q, self.sigma, self.lam, self.cap
        acceptance = math.exp(self.log_acceptance())
        if not acceptance >= MIN_ACCEPTANCE / 10:
            raise ValueError(f"add-direction proposal λ={lam:g} accepts {acceptance:.3g} of its draws (below "
                             f"{MIN_ACCEPTANCE / 10:g}): no bounded-work sampler")

        def draw(rng, n):
            """Rejection sampling from N(0,σ²) with acceptance e^{λ(ℓ'(o) − c)} ≤ 1: exact draws from R. Each round
            proposes about 1.2·(missing)/acceptance points, so the expected number of rounds is small; more
            than 100 times the expected proposals means the acceptance is not what log Z_λ says (an error,
            never an endless loop)."""
            out, have, proposed = np.empty(n), 0, 0
            limit = 100 * n / acceptance + 10**5
            while have < n:
                if proposed > limit:
                    raise FloatingPointError(f"add-direction rejection sampler: {have} of {n} accepted after "
                                             f"{proposed} proposals (expected acceptance {acceptance:.3g})")
                m = int(min(PROPOSAL_CHUNK, 1.2 * (n - have) / acceptance + 16))
                o = s * rng.standard_normal(m)
                proposed += m
                o = o[np.log(rng.random(o.size)) < lam * (-_remove_loss(o, q, s) - cap)]
                take = min(o.size, n - have)
                out[have:have + take] = o[:take]
                have += take
            return out

        return _Pair(f"sgm-add-tilt(lambda={lam:.4g})", draw, lambda o: -_remove_loss(o, q, s))

    def record(self) -> dict[str, Any]:
        return {"proposal": "exponential tilt R ∝ N(0,σ²)·e^{λℓ'} by rejection sampling", "lambda": self.lam}


def choose_remove(q: float, sigma: float, steps: int, eps_ref: float) -> RemoveTilt:
    best = None
    for alpha in range(2, MAX_TILT_ORDER + 1):
        b = RemoveTilt(q, sigma, steps, alpha).log_bound(eps_ref)
        if best is None or b < best[0]:
            best = (b, alpha)
        elif b > best[0] + 50:  # the bound is convex-like in α: stop well past the minimum
            break
    return RemoveTilt(q, sigma, steps, best[1])


def choose_add(q: float, sigma: float, steps: int, eps_ref: float) -> AddTilt:
    """λ minimising the bound at ε_ref, on a grid, with log Z_λ from a float quadrature (only the choice), among
    the λ whose rejection sampler accepts at least MIN_ACCEPTANCE of its proposals (log Z_λ − λc; the acceptance
    falls with λ, so the grid's smallest λ is the fallback). Without that floor a valid setting could pick an
    acceptance of 8e-27 (q = 0.5, σ = 100, T = 10, ε_ref = 0.01: λ ≈ 87) and the sampler never finished; any
    λ gives valid intervals, this one narrow ones at bounded work."""
    o = np.linspace(-12 * sigma, 12 * sigma, 4001)
    log_phi = -0.5 * (o / sigma) ** 2 - math.log(sigma * math.sqrt(2 * math.pi))
    loss = -_remove_loss(o, q, sigma)
    cap = -math.log1p(-q)
    lams = np.geomspace(0.05, 200, 160)
    best = None
    for lam in lams:
        log_z = float(np.log(np.trapezoid(np.exp(log_phi + lam * loss), o)))
        if log_z - lam * cap < math.log(MIN_ACCEPTANCE):
            continue
        b = steps * log_z - lam * eps_ref - _log_c(float(lam))
        if best is None or b < best[0]:
            best = (b, float(lam))
    return AddTilt(q, sigma, steps, round(best[1] if best else float(lams[0]), 6))


@dataclass
class DirectionTruth:
    """Importance-weighted composed losses of one direction; ``interval(eps)`` is the δ interval at ε."""

    direction: str
    proposal: Any
    losses: torch.Tensor  # composed losses under the proposal
    record: dict[str, Any] = field(default_factory=dict)

    def scaled_terms(self, eps: float) -> torch.Tensor:
        """Y = X / B(ε) ∈ [0, 1]."""
        lam = self.proposal.lam
        hockey = torch.clamp(-torch.expm1(eps - self.losses), min=0.0)  # (1 − e^{ε−L})₊
        log_y = lam * (eps - self.losses) + _log_c(lam) + torch.log(hockey)  # −inf where L ≤ ε
        return torch.exp(log_y).clamp(0.0, 1.0)  # ≤ 1 by construction; the clamp only absorbs rounding

    def interval(self, eps: float, confidence: float, method: str) -> tuple[float, float, float]:
        """(estimate, lo, hi) for δ_dir(ε) at two-sided ``confidence``."""
        y = self.scaled_terms(eps)
        iv = intervals.interval([(1.0, y)], confidence, method)
        scale = math.exp(self.proposal.log_bound(eps))
        return iv.estimate * scale, iv.lo * scale, min(1.0, iv.hi * scale)


@dataclass
class SgmTruth:
    """Monte Carlo truth of one setting: both directions, sampled once, evaluated at any ε."""

    q: float
    sigma: float
    steps: int
    samples: int
    seed: int
    eps_ref: float
    directions: dict[str, DirectionTruth]
    method: str = "betting"

    def delta_interval(self, eps: float, confidence: float = 0.999) -> dict[str, Any]:
        """Interval for δ(ε) = max over directions; each direction at 1 − (1 − confidence)/2 (union bound), so the
        pair of intervals, and hence [max lo, max hi], holds with probability ≥ ``confidence``."""
        per = 1 - (1 - confidence) / len(self.directions)
        parts = {d: t.interval(eps, per, self.method) for d, t in self.directions.items()}
        return {
            "eps": eps,
            "estimate": max(p[0] for p in parts.values()),
            "lo": max(p[1] for p in parts.values()),
            "hi": max(p[2] for p in parts.values()),
            "confidence": confidence,
            "method": self.method,
            "per_direction": {d: {"estimate": p[0], "lo": p[1], "hi": p[2], "confidence": per}
                              for d, p in parts.items()},
        }

    def violation_pvalue(self, eps: float, delta: float) -> float:
        """p-value of H0 "δ(ε) ≤ delta", the test behind ``delta_interval(eps, c)["lo"] > delta``: that holds iff
        some direction's lower bound at level (1 − c)/(2k) (k directions, each two-sided) exceeds delta, so
        p = min(1, 2k · min over directions of the least β at which the lower bound exceeds delta) (bisection on
        log β, from above, as intervals._bisect_pvalue)."""
        k = len(self.directions)
        best = 1.0
        for t in self.directions.values():
            m0 = delta / math.exp(t.proposal.log_bound(eps))
            if m0 >= 1:
                continue
            y = t.scaled_terms(eps)
            best = min(best, intervals._bisect_pvalue(
                lambda b: intervals.lower_bound(y, b, self.method) > m0))
        return min(1.0, 2 * k * best)

    def record(self) -> dict[str, Any]:
        return {"q": self.q, "sigma": self.sigma, "steps": self.steps, "samples": self.samples, "seed": self.seed,
                "eps_ref": self.eps_ref, "method": self.method,
                "proposals": {d: t.proposal.record() for d, t in self.directions.items()}}


def sgm_truth(q: float, sigma: float, steps: int, eps_ref: float, samples: int = 4000, seed: int = 0,
              method: str = "betting", directions: tuple[str, ...] = DIRECTIONS,
              max_draws: float | None = None) -> SgmTruth:
    """Sample the composed losses of both directions (proposals tuned at ``eps_ref``). ``max_draws``: refuse
    (ValueError, before sampling) when a direction needs more per-step draws than this: samples × steps for the
    remove direction, samples × steps / acceptance proposals for the add direction's rejection sampler."""
    if not 0 < q < 1:
        raise ValueError(f"q={q}: the Monte Carlo truth needs 0 < q < 1")
    if max_draws is not None and samples * steps > max_draws:
        raise ValueError(f"samples × steps = {samples * steps:.3g} draws exceed max_draws = {max_draws:.3g}")
    out: dict[str, DirectionTruth] = {}
    for i, d in enumerate(directions):
        child_seed = seed * 2 + i
        if d == "remove":
            tilt = choose_remove(q, sigma, steps, eps_ref)
            s = sampling.sample_losses(tilt.pair(), {}, samples, seed=child_seed, steps=steps)
            out[d] = DirectionTruth(d, tilt, s.strata[0].losses, s.record())
        elif d == "add":
            tilt = choose_add(q, sigma, steps, eps_ref)
            proposals = samples * steps / math.exp(tilt.log_acceptance())
            if max_draws is not None and proposals > max_draws:
                raise ValueError(f"the add direction needs {proposals:.3g} proposals (acceptance "
                                 f"{math.exp(tilt.log_acceptance()):.3g}), above max_draws = {max_draws:.3g}")
            s = sampling.sample_losses(tilt.pair(), {}, samples, seed=child_seed, steps=steps)
            out[d] = DirectionTruth(d, tilt, s.strata[0].losses, s.record())
        else:
            raise ValueError(f"direction={d!r} not in {DIRECTIONS}")
    return SgmTruth(q, sigma, steps, samples, seed, eps_ref, out, method)
