"""Two-sided Monte Carlo intervals for RDP moments and privacy profiles, by importance sampling (exponential
tilting) with a PROVEN bound on every summand.

The plain estimators of :mod:`.checks` sample the privacy loss L = log p(o) − log q(o), o ~ P. For the RDP
moment E_P[e^{(α−1)L}] that cannot see the tail (the summands are unbounded, so only a truncated lower bound is
possible), and for δ(ε) = E_P[(1 − e^{ε−L})₊] far below 1/n it sees nothing at all. Here the quantity is written
as an integral ∫ g of a non-negative function and sampled from a proposal r that follows g, so that each summand
X = g(o)/r(o), o ~ r, lies in [0, B] with B a bound on sup_o g/r PROVEN for the pair (below); then X/B ∈ [0, 1]
and the bounded-mean intervals of :mod:`.intervals` (by default the empirical-Bernstein bound of Maurer & Pontil
2009, Thm 4, at level (1 − confidence)/2 per side; ``method="betting"`` for Waudby-Smith & Ramdas 2024, whose
anytime-valid bets are wider at a fixed n here) give a two-sided interval valid for every n, with no CLT and no
tail assumption beyond the bound. Its width is about σ_X √(2 ln(2/β)/n) + 7B ln(2/β)/(3n), so the proposal is
chosen to make both Var X and B/E X small (at best X is constant: the zero-variance tilted law).

What is estimated (both means are of non-negative functions, so relative precision is possible at any size):

* RDP: the excess moment E_Q[φ_α(p/q)] = E_Q[(p/q)^α] − 1 = e^{(α−1)D_α(P‖Q)} − 1, with
  φ_α(x) = x^α − 1 − α(x − 1) ≥ 0 (convexity; the subtracted terms have mean 0 because E_Q[p/q] = 1). Estimating
  M − 1 rather than M keeps the RELATIVE precision of ε(α) = log1p(M − 1)/(α − 1) when (α − 1)ε is tiny (q = 0.01,
  α = 2: (α−1)ε ≈ 3e-5, and a 3 % error in ε is a 1e-6 relative change of M). T-fold composition: the moment of
  the product pair is M^T, so ε_T(α) = T·ε_1(α) and one step is sampled.
* Profile: δ(ε) = ∫ (p − e^ε q)₊.

Families (what a witness must declare; the bound B is proven per family, see the functions named):

* ``gaussian_mixture``: P = Σ_i a_i N(c + s·d_i, σ²), Q = N(c, σ²) (common σ, s = ±1, all d_i ≥ 0, Σ a_i = 1), e.g.
  the Gaussian pair (a = [1], d = [1]) and the REMOVE direction of the Poisson-subsampled Gaussian
  (a = [1 − q, q], d = [0, 1]). In u = s(o − c) the likelihood ratio ℓ(u) = Σ a_i exp((2d_i u − d_i²)/(2σ²)) is
  non-decreasing and log-convex, ℓ'/ℓ ≤ d_max/σ². The proposal is a finite mixture of Gaussians placed along
  the tilted law p^α q^{1−α} (moments) or along (p − e^ε q)₊ (profiles), with weights fitted to the integrand
  (:func:`_fit_weights`), plus two wide (sd 2σ) defensive components of total weight 5 %. B = sup g/r is bounded by
  :func:`_log_sup_ratio`: on each cell [a, b] of a fine, adaptively refined grid, g ≤ max q · max φ(ℓ) (q is
  unimodal, ℓ monotone and φ_α quasi-convex with its minimum at 1, so each maximum is at an end point or at the
  mode) and r ≥ Σ_j π_j min(N_j(a), N_j(b)) (each Gaussian is unimodal); outside the grid the envelopes
  φ_α(ℓ) ≤ max(φ_α(inf ℓ), φ_α(ℓ(T_lo))) (left) and φ_α(ℓ) ≤ ℓ^α, log ℓ(u) ≤ log ℓ(T_hi) + d_max(u − T_hi)/σ²
  (right; for profiles (ℓ − e^ε)₊ ≤ ℓ) against one component at a time leave a concave quadratic in u, maximised
  in closed form. The bound is computed in float64 and widened by the factor e^{1e-6}; every drawn summand is
  checked against it, and the witness's own log-densities are checked against the declared family at every draw
  (a mismatch raises instead of giving a wrong interval). Not covered: the ADD direction of the subsampled
  Gaussian (Q is then the mixture; the remove direction dominates, MTZ19 Thm 5). An optional ``direction`` (a
  vector v) puts a k-D pair on the line o = center + u·v when its loss depends on o only through u (dc.joint_step:
  the 2-D score/gradient pair is the 1-D remove pair at σ = 1/μ along v = (Δ_tr, Δ_gp)).
  T-fold profiles (issue 19): δ_T(ε) = E_P[(1 − e^{ε−S})₊], S = Σ_t L_t a sum of T i.i.d. losses. Every step is
  drawn from the same tilted law r = q·ℓ^α/M(α), α = 1 + λ with λ a non-negative INTEGER, which for this family
  is an exact finite Gaussian mixture (:func:`tilted_step_law`: ℓ^α expanded over count vectors, M(α) = E_Q[ℓ^α]
  the sum of its weights), so Π_t p/r = M^T e^{−λS} and the summand X = (1 − e^{ε−S})₊ M^T e^{−λS} has the
  closed-form supremum B = M^T e^{−λε} λ^λ/(1 + λ)^{1+λ} (at S = ε + log((1 + λ)/λ); λ = 0 is plain sampling,
  B = 1). B is the Chernoff (RDP-conversion) bound at order 1 + λ; λ minimises it (:func:`composed_law`; log B is
  convex in λ). The cost is n·T per-step draws (the runner's ``tilted_composed_draws`` budget). Measured (seed 3,
  n = max(200, 4e6/T), the tight ε from the fast PLD accountant): an ε under-claimed by 10 % is refuted (p ≤ 4e-7)
  at q = 0.00512, σ = 0.8837, T = 9766, δ = 1e-5, at q = 0.01, σ = 1, T = 1000, δ = 1e-8 and at q = 0.2, σ = 3,
  T = 300, δ = 1e-10; 1 % at the last two (p = 0.014, 1e-32), not at the first (p = 0.62). Where the loss is far
  from Gaussian — small σ_eff with q·e^{1/σ²} large (log M(2) ≳ ε/T per step: σ = 0.3, q = 0.05, T = 40) or
  q = 1e-3, σ = 0.6, T = 1e4, δ = 1e-12 — no integer tilt beats plain sampling or B/δ is ~1e5, and the check has
  no power there (a fractional λ needs a law that is not a finite mixture: not implemented).
* ``bounded_loss``: lo ≤ L ≤ hi almost surely under both P and Q (so P and Q are mutually absolutely
  continuous), e.g. the Laplace pair, L ∈ [−1/b, 1/b]. P itself is the proposal: the RDP summand
  φ_α(e^L)e^{−L} (mean E_Q[φ_α(ℓ)]) is quasi-convex in L, so B = its larger end value; the profile summand
  (1 − e^{ε−L})₊ ≤ (1 − e^{ε−T·hi})₊ = B (both bounds taken over [lo, hi] widened by DENSITY_RTOL·(1 + |·|) for
  rounding). Draws outside that range (T·[lo, hi] composed) raise.
* no family: profiles use plain sampling of P with B = 1 (the estimator of :mod:`.checks`); RDP moments raise
  (sampling P gives only a lower bound on them; ``conformance.checks.rdp_moment_check``).

A witness declares its family in its registration, the ``tilt_family`` field of
:class:`dpspec.reference.catalogue.Witness` (any other pair object: an attribute of that name, read by getattr),
``tilt_family(**params)`` returning a plain dict (no import of this module needed)::

    {"family": "gaussian_mixture", "weights": [1 - q, q], "shifts": [0.0, 1.0], "center": 0.0, "sigma": σ}
    {"family": "bounded_loss", "lo": -1 / b, "hi": 1 / b}

or ``None`` where it has none (e.g. base.sgm with direction="add"). In the catalogue base.gaussian, base.sgm
(remove) and base.laplace declare one; no PTR pair fits a family exactly (their outputs are 2-D with a branch-
dependent σ, and their losses are unbounded). The per-draw density check above is what keeps the declarations
honest.

Everything is deterministic for a seed: a numpy Generator from ``SeedSequence(seed)``, sample sizes fixed by the
arguments. Coverage and power are measured in tests/conformance/test_tilting.py (fast: a few repetitions; slow:
the tables quoted there).
"""
from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

import mpmath
import numpy as np
import torch

from dpspec.reference.errors import DomainError

from . import intervals
from .intervals import Interval
from .sampling import _plain, one_torch_thread, resolve_witness, sample_losses, split_steps, witness_name

FAMILY_HOOK = "tilt_family"
FAMILIES = ("gaussian_mixture", "bounded_loss")
METHODS = intervals.METHODS
BOUND_SLACK = 1e-6  # log of the factor by which the float64 bound B is widened (covers its rounding)
DENSITY_RTOL = 1e-9  # witness loss vs declared family: |ΔL| ≤ DENSITY_RTOL·(1 + |L|)
REFINE_TOL = 0.05  # a cell is refined while its upper bound exceeds the best point value by more than this (log)
MAX_CELLS = 1 << 16  # cells refined per round, at most
MAX_ROUNDS = 40
MAX_COMPONENTS = 400  # proposal components (besides the two defensive ones)
MAX_LATTICE = 1 << 17  # candidate centres evaluated before pruning
PRUNE = 40.0  # candidate centres where log g is more than this below its maximum are dropped
DEFENSIVE = 0.05  # total weight of the two wide defensive components
TAIL_SD = 12.0  # the bound's grid reaches this many σ beyond the outermost component centre
GRID_SD = 0.5  # proposal grid spacing, in σ (rounded down to divide the smallest shift)
LEFT_SD = 6.0  # the moment proposal's grid starts this many σ left of Q's mean
EM_ITERS = 50  # EM steps fitting the proposal's weights to the integrand
COMPOSED_FAMILY = "gaussian_mixture_tfold"  # the interval's family name for T-fold tilted profiles
COMPOSED_MAX_LAMBDA = 256  # the largest per-step tilt λ (order α = 1 + λ) of a T-fold profile
COMPOSED_MAX_COMPONENTS = 4096  # terms of the expansion of q·ℓ^α (a family of k components: C(α + k − 1, k − 1))
COMPOSED_CHUNK = 1 << 20  # per-step draws held at once by the T-fold profile estimator
_LOG_2PI = math.log(2 * math.pi)


# ---------------------------------------------------------------------------------------------------------
# Results


@dataclass(frozen=True)
class TiltedInterval(Interval):
    """A two-sided interval (``lo``, ``hi``, ``estimate``, in the units of ``quantity``: ε(α) for "rdp_eps", δ(ε) for
    "delta") at ``confidence`` (each side (1 − confidence)/2), with what it was computed from: the log of the
    bounded mean's interval (``log_mean_lo``, ``log_mean_hi``, ``log_mean_estimate``: per-step M − 1 for RDP, δ
    for profiles; logs because M − 1 overflows a float at large α), the log of the proven bound B on each summand
    (``log_bound``; −inf when the quantity is exactly 0), the ``family`` and a ``record`` that draws the sample
    again. ``p_above(c)`` / ``p_below(c)`` are p-values of "the witness's value ≤ c" / "≥ c" for a claimed value c
    (same units as ``lo``/``hi``)."""

    quantity: str = ""
    axis: float = math.nan  # α or ε
    steps: int = 1
    family: str = ""
    log_bound: float = math.nan
    log_mean_estimate: float = math.nan
    log_mean_lo: float = math.nan
    log_mean_hi: float = math.nan
    record: dict = field(default_factory=dict, compare=False)
    _scaled: Any = field(default=None, repr=False, compare=False)  # strata [(w, X/B)] for p-values

    def _log_mean_of(self, claimed: float) -> float:
        """log of the claimed value in units of the bounded mean (−inf for a claim ≤ 0, NaN refused)."""
        c = float(claimed)
        if math.isnan(c):
            raise ValueError("claimed value is NaN")
        if self.quantity == "rdp_eps":
            y = (self.axis - 1) * c / self.steps  # log M claimed; M − 1 = expm1(y)
            return _log_expm1(y) if y > 0 else -math.inf
        if c == 0 and isinstance(claimed, mpmath.mpf) and claimed > 0:
            return float(mpmath.log(claimed))  # a δ below the smallest double (e^-3362): its log is an ordinary float
        return math.log(c) if c > 0 else -math.inf

    def p_above(self, claimed: float) -> float:
        """p-value of H0 "the witness's value ≤ claimed" (small: the witness is visibly above an upper claim)."""
        lm = self._log_mean_of(claimed)
        if self._scaled is None:  # the value is exactly 0
            return 1.0 if float(claimed) >= 0 else 0.0
        z = lm - self.log_bound
        if z >= 0:
            return 1.0
        return intervals.pvalue_above(self._scaled, math.exp(z), self.method, 1 - self.confidence)

    def p_below(self, claimed: float) -> float:
        """p-value of H0 "the witness's value ≥ claimed" (small: the witness is visibly below a lower claim)."""
        lm = self._log_mean_of(claimed)
        if self._scaled is None:
            return 1.0 if float(claimed) <= 0 else 0.0
        z = lm - self.log_bound
        if z == -math.inf:
            return 1.0
        if z > 0:
            return 0.0
        return intervals.pvalue_below(self._scaled, math.exp(z), self.method, 1 - self.confidence)

    def refutes(self, claimed: float, side: str = "upper") -> bool:
        """Whether the interval excludes the claim: an upper claim below ``lo``, a lower claim above ``hi``."""
        if side == "upper":
            return self.lo > claimed
        if side == "lower":
            return self.hi < claimed
        if side == "exact":
            return self.lo > claimed or self.hi < claimed
        raise ValueError(f"side={side!r} not in ('upper', 'lower', 'exact')")


def _log_expm1(y: float) -> float:
    """log(e^y − 1) for y > 0, without overflow."""
    return y + math.log(-math.expm1(-y)) if y > 1 else math.log(math.expm1(y))


def _log1p_exp(y: float) -> float:
    """log(1 + e^y), without overflow (−inf → 0)."""
    if y == -math.inf:
        return 0.0
    return y + math.log1p(math.exp(-y)) if y > 0 else math.log1p(math.exp(y))


def _result(quantity, axis, steps, fam_name, log_b, strata, confidence, method, n, record) -> TiltedInterval:
    """Scale the bounded-mean interval of X/B back by B (in logs) and map it to the quantity's units."""
    if log_b == -math.inf:
        lm = (-math.inf, -math.inf, -math.inf)  # g ≡ 0: the value is exactly 0
        scaled = None
    else:
        iv = intervals.interval(strata, confidence, method, tune=1 - confidence)
        with np.errstate(divide="ignore"):
            lm = tuple(log_b + (math.log(v) if v > 0 else -math.inf) for v in (iv.estimate, iv.lo, iv.hi))
        scaled = strata
    if quantity == "rdp_eps":
        est, lo, hi = (steps * _log1p_exp(v) / (axis - 1) for v in lm)
    else:
        est, lo, hi = (math.exp(v) for v in lm)
    return TiltedInterval(est, lo, hi, method, confidence, n, quantity=quantity, axis=axis, steps=steps,
                          family=fam_name, log_bound=log_b, log_mean_estimate=lm[0], log_mean_lo=lm[1],
                          log_mean_hi=lm[2], record=record, _scaled=scaled)


# ---------------------------------------------------------------------------------------------------------
# Families


@dataclass(frozen=True)
class GaussianMixture:
    """P = Σ_i a_i N(center + sign·d_i, σ²), Q = N(center, σ²), all d_i ≥ 0 (see the module docstring)."""

    weights: np.ndarray
    shifts: np.ndarray
    center: float
    sigma: float
    sign: float = 1.0
    direction: Any = None  # None: 1-D output; a vector v: the output is center + sign·u·v (a line in R^k)

    name = "gaussian_mixture"

    @property
    def d_max(self) -> float:
        return float(self.shifts.max())

    @property
    def log_a0(self) -> float:
        """log inf ℓ = log of the weight of the components equal to Q (−inf if none)."""
        a0 = float(self.weights[self.shifts == 0].sum())
        return math.log(a0) if a0 > 0 else -math.inf

    def log_q(self, u):
        u = np.asarray(u, dtype=np.float64)
        return -0.5 * (u / self.sigma) ** 2 - math.log(self.sigma) - 0.5 * _LOG_2PI

    def log_ell(self, u):
        """log ℓ(u) = log p/q in the normalised coordinate u."""
        u = np.asarray(u, dtype=np.float64)
        s2 = self.sigma ** 2
        if self.weights.size <= 4:  # a pairwise log-sum (no (K, N) array): the T-fold estimator calls this on 1e6 draws
            flat, out = u.ravel(), None
            for a, d in zip(np.log(self.weights), self.shifts):
                term = (a - d * d / (2 * s2)) + (d / s2) * flat if d != 0 else np.full(flat.shape, a)
                out = term if out is None else np.logaddexp(out, term)
            return out.reshape(u.shape)
        terms = np.log(self.weights)[:, None] + (2 * self.shifts[:, None] * u.ravel()[None, :]
                                                 - self.shifts[:, None] ** 2) / (2 * s2)
        return _logsumexp(terms, axis=0).reshape(u.shape)

    def to_output(self, u):
        if self.direction is None:
            return self.center + self.sign * np.asarray(u)
        u = np.asarray(u, dtype=np.float64).ravel()
        out = np.empty((u.size, self.direction.size))
        for j, (c, v) in enumerate(zip(np.asarray(self.center), self.direction)):
            out[:, j] = c + (self.sign * v) * u
        return out


@dataclass(frozen=True)
class BoundedLoss:
    """lo ≤ L ≤ hi almost surely under P and Q."""

    lo: float
    hi: float

    name = "bounded_loss"


def family(witness: Any, params: Mapping[str, Any]) -> GaussianMixture | BoundedLoss | None:
    """The declared family of a witness at its own parameters (``steps`` removed), or None."""
    pair = resolve_witness(witness)
    hook = getattr(pair, FAMILY_HOOK, None)  # the Witness field (catalogue) or an attribute (any pair object)
    if hook is None:
        return None
    spec = hook(**params)
    return None if spec is None else _parse_family(spec, witness_name(pair))


def _parse_family(spec: Mapping[str, Any], who: str):
    kind = spec.get("family")
    if kind == "gaussian_mixture":
        a = np.asarray(spec["weights"], dtype=np.float64).ravel()
        d = np.asarray(spec["shifts"], dtype=np.float64).ravel()
        sigma = float(spec["sigma"])
        direction = spec.get("direction")
        if direction is not None:  # a k-D output on the line center + u·direction (e.g. dc.joint_step)
            direction = np.asarray(direction, dtype=np.float64).ravel()
            center = np.broadcast_to(np.asarray(spec.get("center", 0.0), dtype=np.float64), direction.shape).copy()
            if direction.size == 0 or not (np.all(np.isfinite(direction)) and np.all(np.isfinite(center))):
                raise ValueError(f"{who}: tilt family direction {direction.tolist()} must be a finite, non-empty vector")
        else:
            center = float(spec.get("center", 0.0))
        if a.shape != d.shape or a.size == 0:
            raise ValueError(f"{who}: tilt family weights and shifts must be non-empty and of one length")
        if not (np.all(np.isfinite(a)) and np.all(a >= 0) and abs(a.sum() - 1) <= 1e-12):
            raise ValueError(f"{who}: tilt family weights {a.tolist()} must be non-negative and sum to 1")
        if not (math.isfinite(sigma) and sigma > 0) or not np.all(np.isfinite(center)) or not np.all(np.isfinite(d)):
            raise ValueError(f"{who}: tilt family needs finite shifts, center and sigma > 0 (sigma={sigma})")
        keep = a > 0
        a, d = a[keep], d[keep]
        if np.all(d <= 0) and np.any(d < 0):
            sign, d = -1.0, -d
        elif np.all(d >= 0):
            sign = 1.0
        else:
            raise ValueError(f"{who}: gaussian_mixture needs all shifts on one side of Q's mean (got {d.tolist()})")
        return GaussianMixture(a, d, center, sigma, sign, direction)
    if kind == "bounded_loss":
        lo, hi = float(spec["lo"]), float(spec["hi"])
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= 0 <= hi):
            raise ValueError(f"{who}: bounded_loss needs finite lo ≤ 0 ≤ hi (got lo={lo}, hi={hi})")
        return BoundedLoss(lo, hi)
    raise ValueError(f"{who}: unknown tilt family {kind!r}; known: {FAMILIES}")


# ---------------------------------------------------------------------------------------------------------
# Public estimators


def rdp_moment_interval(witness: Any, params: Mapping[str, Any], alpha: float, *, n: int, seed: int = 0,
                        confidence: float = 0.999, method: str = "eb") -> TiltedInterval:
    """Two-sided interval for ε(α) = D_α(P‖Q) of the witness (T·D_α for ``steps`` = T in ``params``), from ``n``
    importance-sampled draws of the excess moment E_Q[φ_α(p/q)] = e^{(α−1)D_α} − 1 (module docstring).

    Needs a family (the witness's ``tilt_family``); raises ``ValueError`` without one."""
    pair = resolve_witness(witness)
    own, steps = split_steps(pair, params)
    a = _check_axis("alpha", alpha, 1.0, open_lo=True)
    _check_run(n, confidence, method)
    fam = family(pair, own)
    if fam is None:
        raise ValueError(f"{witness_name(pair)}: no tilt family at {own} (tilt_family returned None or is absent): "
                         "sampling P gives only a lower bound on the RDP moment (conformance.checks.rdp_moment_check)")
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    with one_torch_thread():
        if isinstance(fam, GaussianMixture):
            target = _Target("moment", a, fam)
            x, log_b, extra = _importance_draws(pair, own, fam, target, n, rng)
            strata = [(1.0, x)]
        else:
            sample = sample_losses(pair, own, n, seed, steps=1)
            log_b = _bounded_moment_log_bound(a, fam) + BOUND_SLACK
            strata, extra = _bounded_terms(sample, fam, lambda L: _log_phi(L, a) - L, log_b, 1), {}
    record = {"witness": witness_name(pair), "params": {k: _plain(v) for k, v in own.items()}, "steps": steps,
              "alpha": a, "seed": seed, "samples": n, "family": fam.name, "method": method, **extra}
    return _result("rdp_eps", a, steps, fam.name, log_b, strata, confidence, method, n, record)


def profile_interval(witness: Any, params: Mapping[str, Any], eps: float, *, n: int, seed: int = 0,
                     confidence: float = 0.999, method: str = "eb") -> TiltedInterval:
    """Two-sided interval for the witness's δ(ε) = E_P[(1 − e^{ε−L})₊] from ``n`` draws: importance sampling for a
    ``gaussian_mixture`` family (single step; T-fold: every step tilted by one integer λ, ``n`` composed draws of T
    steps each, family name COMPOSED_FAMILY), P with the sharp bound for ``bounded_loss`` (composed too), plain
    sampling of P (B = 1) otherwise."""
    pair = resolve_witness(witness)
    own, steps = split_steps(pair, params)
    e = _check_axis("eps", eps, 0.0, open_lo=False)
    _check_run(n, confidence, method)
    fam = family(pair, own)
    extra: dict[str, Any] = {}
    with one_torch_thread():
        if isinstance(fam, GaussianMixture) and steps == 1:
            rng = np.random.default_rng(np.random.SeedSequence(seed))
            x, log_b, extra = _importance_draws(pair, own, fam, _Target("hockey", e, fam), n, rng)
            strata = [(1.0, x)]
        elif isinstance(fam, GaussianMixture) and composed_law(fam, steps, e) is not None:
            rng = np.random.default_rng(np.random.SeedSequence(seed))
            x, log_b, extra = _composed_draws(pair, own, fam, steps, e, n, rng)
            strata = [(1.0, x)]
        elif isinstance(fam, BoundedLoss):
            sample = sample_losses(pair, own, n, seed, steps=steps)
            top = steps * fam.hi + _loss_tol(steps * fam.lo, steps * fam.hi)  # the largest loss accepted
            log_b = math.log(-math.expm1(e - top)) + BOUND_SLACK if top > e else -math.inf
            strata = _bounded_terms(sample, fam, lambda L: _log_hockey(L, e), log_b, steps) \
                if log_b > -math.inf else []
        else:
            fam_name = "plain" if fam is None else f"plain ({fam.name}, {steps}-fold)"
            sample = sample_losses(pair, own, n, seed, steps=steps)
            strata = [(s.weight, intervals.hockey_stick_terms(s.losses, e)) for s in sample.strata]
            log_b, extra = 0.0, {"note": "no importance sampling: " + fam_name}
    if fam is None or not (steps == 1 or isinstance(fam, BoundedLoss) or "tilt_lambda" in extra):
        name = "plain"
    else:
        name = fam.name if steps == 1 or isinstance(fam, BoundedLoss) else COMPOSED_FAMILY
    record = {"witness": witness_name(pair), "params": {k: _plain(v) for k, v in own.items()}, "steps": steps,
              "eps": e, "seed": seed, "samples": n, "family": name, "method": method, **extra}
    return _result("delta", e, steps, name, log_b, strata, confidence, method, n, record)


def check(witness: Any, params: Mapping[str, Any], quantity: str, axis: float, claimed: Any, side: str,
          point: Mapping[str, Any], *, n: int, seed: int, confidence: float = 0.999, method: str = "eb"):
    """A statistical :class:`~.verdicts.Check` of a claimed value (ε(α) for ``quantity`` "rdp_eps", δ(ε) for
    "delta", at ``axis`` = α or ε) against the tilted interval: ``side`` "upper" (the claim fails when the witness is
    visibly above it; p-value of H0 "witness ≤ claimed"), "lower" (visibly below) or "exact" (either, p doubled).
    The interval is two-sided, so lower RDP claims are checkable too (by a dominating witness). Names "rdp-tilted"
    and "profile-tilted"; ``lo``/``hi`` are the interval at ``confidence``."""
    from .verdicts import Check

    if side not in ("upper", "lower", "exact"):
        raise ValueError(f"side={side!r} not in ('upper', 'lower', 'exact')")
    c = float(claimed)
    if math.isnan(c):
        raise ValueError(f"claimed value is NaN at {dict(point)}")
    if quantity == "rdp_eps":
        iv = rdp_moment_interval(witness, params, axis, n=n, seed=seed, confidence=confidence, method=method)
        name, what = "rdp-tilted", f"ε({iv.axis:.6g})"
    elif quantity == "delta":
        iv = profile_interval(witness, params, axis, n=n, seed=seed, confidence=confidence, method=method)
        name, what = "profile-tilted", f"δ({iv.axis:.6g})"
    else:
        raise ValueError(f"quantity={quantity!r} not in ('rdp_eps', 'delta')")
    p_above = 1.0 if c == math.inf else iv.p_above(claimed)  # the claim as given: an mpf δ may underflow a double
    p_below = 0.0 if c == math.inf else iv.p_below(claimed)
    p = {"upper": p_above, "lower": p_below, "exact": min(1.0, 2 * min(p_above, p_below))}[side]
    shown = mpmath.nstr(claimed, 6) if c == 0 and isinstance(claimed, mpmath.mpf) else f"{c:.6g}"
    msg = (f"{what} claimed {shown}; witness ∈ [{iv.lo:.6g}, {iv.hi:.6g}] (estimate {iv.estimate:.6g}, "
           f"{iv.family}, n = {iv.n}, bound/estimate = e^{iv.log_bound - iv.log_mean_estimate:.3g})")
    return Check(name, dict(point), claimed=c, estimate=iv.estimate, lo=iv.lo, hi=iv.hi, p_value=p, side=side,
                 methods={"p_above": p_above, "p_below": p_below, "method": iv.method, "family": iv.family,
                          "log_bound": iv.log_bound},
                 reproduction=iv.record, message=msg)


# ---------------------------------------------------------------------------------------------------------
# Summands


def _log_phi(L, alpha: float):
    """log φ_α(e^L), φ_α(x) = x^α − 1 − α(x − 1) ≥ 0, elementwise over an array of L (−inf allowed: φ_α(0) = α − 1).

    |αL| ≤ 1/2: the series Σ_{k≥2} (α^k − α) L^k / k! (terms shrink by ≥ 1/2 each, no cancellation: the ratio of
    the third to the second term is (α + 1)L/3, |·| ≤ 1/3); αL > 30: αL + log1p(−t), t = (1 − α)e^{−αL} +
    α e^{−(α−1)L} < 1; otherwise e^L·expm1((α − 1)L) − (α − 1)·expm1(L) (both terms of order (α − 1), so α → 1
    keeps its relative precision)."""
    L = np.asarray(L, dtype=np.float64)
    out = np.empty_like(L)
    a = float(alpha)
    small = np.abs(a * L) <= 0.5
    big = a * L > 30
    mid = ~(small | big)
    if small.any():
        x = L[small]
        total = np.zeros_like(x)
        power = x * x / 2.0  # L^k / k!
        for k in range(2, 30):
            total += math.expm1((k - 1) * math.log(a)) * a * power  # (α^k − α) L^k / k!
            power = power * x / (k + 1)
        with np.errstate(divide="ignore"):
            out[small] = np.log(total)
    if big.any():
        x = L[big]
        t = (1 - a) * np.exp(-a * x) + a * np.exp(-(a - 1) * x)
        out[big] = a * x + np.log1p(-t)
    if mid.any():
        x = L[mid]
        with np.errstate(over="ignore", invalid="ignore"):
            v = np.where(np.isneginf(x), a - 1, np.exp(x) * np.expm1((a - 1) * x) - (a - 1) * np.expm1(x))
        out[mid] = np.log(v)
    return out


def _log_hockey(L, eps: float):
    """log (1 − e^{ε−L})₊ (−inf where L ≤ ε)."""
    L = np.asarray(L, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(L > eps, np.log(-np.expm1(np.minimum(eps - L, 0.0))), -np.inf)


def _bounded_moment_log_bound(alpha: float, fam: BoundedLoss) -> float:
    """log sup φ_α(e^L)e^{−L} over the accepted losses [lo − tol, hi + tol]: φ_α(x)/x has derivative
    (α−1)(x^α − 1)/x², so it is quasi-convex with its minimum at x = 1 and the supremum is at an end."""
    tol = _loss_tol(fam.lo, fam.hi)
    ends = np.array([fam.lo - tol, fam.hi + tol])
    return float(np.max(_log_phi(ends, alpha) - ends))


def _bounded_terms(sample, fam: BoundedLoss, log_summand, log_b: float, steps: int):
    """Strata [(w, X/B)] of a bounded-loss sample; draws outside steps·[lo, hi] raise."""
    lo, hi = steps * fam.lo, steps * fam.hi
    tol = _loss_tol(lo, hi)
    out = []
    for s in sample.strata:
        L = s.losses.numpy()
        bad = (L < lo - tol) | (L > hi + tol) | np.isnan(L)
        if bad.any():
            raise ValueError(f"{sample.witness}: a privacy loss {float(L[bad][0])!r} lies outside the declared "
                             f"bounded_loss range [{lo}, {hi}] at {sample.params}")
        out.append((s.weight, _scaled(log_summand(L) - log_b, sample.witness)))
    return out


def _loss_tol(lo: float, hi: float) -> float:
    """How far outside a declared bounded_loss range [lo, hi] a loss may fall by rounding (and still be accepted)."""
    return DENSITY_RTOL * (1 + max(abs(lo), abs(hi)))


def _scaled(log_x_over_b, who: str) -> torch.Tensor:
    """X/B from log(X/B), with B already widened by BOUND_SLACK; a summand above B raises (the bound failed)."""
    z = np.asarray(log_x_over_b, dtype=np.float64)
    if np.isnan(z).any():
        raise FloatingPointError(f"{who}: NaN summand (log-densities infinite at a drawn point?)")
    if z.size and float(z.max()) > 0:
        raise ArithmeticError(f"{who}: a summand exceeds its proven bound by a factor e^{float(z.max()):.3g}; the "
                              "declared tilt family does not describe this pair")
    return torch.from_numpy(np.exp(z))


# ---------------------------------------------------------------------------------------------------------
# Gaussian-mixture family: integrand, proposal, proven bound


class _Target:
    """The integrand g(u) ≥ 0 in the normalised coordinate u: "moment": q(u) φ_α(ℓ(u)) (∫g = M − 1);
    "hockey": q(u) (ℓ(u) − e^ε)₊ (∫g = δ(ε)). ``k`` is the power of ℓ in the right-tail envelope g ≤ q ℓ^k."""

    def __init__(self, kind: str, axis: float, fam: GaussianMixture):
        self.kind, self.axis, self.fam = kind, float(axis), fam
        self.k = self.axis if kind == "moment" else 1.0

    def log_factor(self, L):
        """log of g/q as a function of the loss L = log ℓ."""
        if self.kind == "moment":
            return _log_phi(L, self.axis)
        L = np.asarray(L, dtype=np.float64)
        return L + _log_hockey(L, self.axis)

    def log_g(self, u):
        return self.fam.log_q(u) + self.log_factor(self.fam.log_ell(u))

    def log_g_upper(self, a, b):
        """An upper bound of log g on each cell [a, b] (module docstring)."""
        fam = self.fam
        log_q_max = fam.log_q(np.clip(0.0, a, b))
        la, lb = fam.log_ell(a), fam.log_ell(b)
        if self.kind == "moment":
            f = np.maximum(self.log_factor(la), self.log_factor(lb))  # φ quasi-convex in L, ℓ monotone
        else:
            f = self.log_factor(lb)  # (ℓ − e^ε)₊ non-decreasing in u
        return log_q_max + f

    def left_envelope(self, t_lo: float) -> float:
        """A with log(g/q) ≤ A for all u ≤ t_lo."""
        l_lo = float(self.fam.log_ell(np.array([t_lo]))[0])
        if self.kind == "moment":
            return float(np.max(self.log_factor(np.array([self.fam.log_a0, l_lo]))))
        return -math.inf if l_lo <= self.axis else math.inf  # the grid starts below the threshold (see caller)

    def right_envelope(self, t_hi: float) -> tuple[float, float]:
        """(A, κ) with log(g/q) ≤ A + κ(u − t_hi) for all u ≥ t_hi: g/q ≤ ℓ^k, log ℓ has slope ≤ d_max/σ²."""
        l_hi = float(self.fam.log_ell(np.array([t_hi]))[0])
        if self.kind == "moment" and l_hi < 0:
            raise AssertionError("right envelope needs ℓ(T_hi) ≥ 1")  # the grid is built so that this holds
        return self.k * l_hi, self.k * self.fam.d_max / self.fam.sigma ** 2

    def threshold(self) -> float:
        """u_ε with log ℓ(u_ε) = ε (hockey), by bisection (ℓ is continuous and non-decreasing)."""
        fam, eps = self.fam, self.axis
        f = lambda u: float(fam.log_ell(np.array([u]))[0]) - eps
        i = int(np.argmax(fam.shifts))
        hi = (eps - math.log(fam.weights[i])) * fam.sigma ** 2 / fam.d_max + fam.d_max / 2 + 1.0
        lo = min(-1.0, hi - 2.0)
        for _ in range(200):
            if f(lo) < 0:
                break
            lo = 2 * lo - 1
        else:
            raise ArithmeticError("no threshold found")
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if f(mid) < 0:
                lo = mid
            else:
                hi = mid
            if hi - lo <= 1e-12 * max(1.0, abs(hi)):
                break
        return hi


@dataclass(frozen=True)
class _Proposal:
    """r(u) = Σ_j π_j N(u; m_j, s_j²)."""

    means: np.ndarray
    sds: np.ndarray
    log_pi: np.ndarray

    def sample(self, rng: np.random.Generator, n: int) -> np.ndarray:
        idx = rng.choice(self.means.size, size=n, p=np.exp(self.log_pi - _logsumexp(self.log_pi, axis=0)))
        return self.means[idx] + self.sds[idx] * rng.standard_normal(n)

    def log_components(self, u) -> np.ndarray:
        """log π_j + log N(u; m_j, s_j²), shape (J, len(u))."""
        u = np.asarray(u, dtype=np.float64).ravel()
        z = (u[None, :] - self.means[:, None]) / self.sds[:, None]
        return self.log_pi[:, None] - 0.5 * z * z - np.log(self.sds)[:, None] - 0.5 * _LOG_2PI

    def log_density(self, u, chunk: int = 1 << 15) -> np.ndarray:
        u = np.asarray(u, dtype=np.float64).ravel()
        out = np.empty(u.size)
        for s in range(0, u.size, chunk):
            out[s:s + chunk] = _logsumexp(self.log_components(u[s:s + chunk]), axis=0)
        return out

    def log_density_lower(self, a, b, chunk: int = 1 << 14) -> np.ndarray:
        """A lower bound of log r on each cell [a, b]: Σ_j π_j min(N_j(a), N_j(b))."""
        out = np.empty(a.size)
        for s in range(0, a.size, chunk):
            ca, cb = self.log_components(a[s:s + chunk]), self.log_components(b[s:s + chunk])
            out[s:s + chunk] = _logsumexp(np.minimum(ca, cb), axis=0)
        return out


def _proposal(target: _Target) -> tuple[_Proposal, float, float]:
    """The mixture proposal for a target and the grid range [T_lo, T_hi] of its bound."""
    fam = target.fam
    sigma, d_max = fam.sigma, fam.d_max
    if target.kind == "moment":
        top = target.axis * d_max  # the centre of the tilted law of the farthest component
        pos = fam.shifts[fam.shifts > 0]
        d_min = float(pos.min())  # the tilted law of an integer order sits on multiples of the shifts
        step = d_min / math.ceil(d_min / (sigma * GRID_SD)) if d_min >= sigma * GRID_SD else sigma * GRID_SD
        step = max(step, (top + LEFT_SD * sigma) / MAX_LATTICE)
        start = -step * math.floor(LEFT_SD * sigma / step)  # φ_α(ℓ) → φ_α(inf ℓ) > 0 as u → −∞: g has mass there
        centres = np.unique(np.append(np.arange(start, top + 0.5 * step, step), top))
        sds = np.full(centres.size, sigma)
        wide = np.array([0.0, top])
    else:
        u_eps = target.threshold()
        width = min(sigma, sigma ** 2 / max(u_eps - d_max, 1e-300))  # decay length of (p − e^ε q)₊ beyond u_ε
        end = max(u_eps + 12 * width, d_max + 6 * sigma)
        step = max(width / 2, (end - u_eps) / MAX_COMPONENTS)
        centres = np.arange(u_eps, end + 0.5 * step, step)
        sds = np.full(centres.size, width)
        wide = np.array([u_eps, max(u_eps, d_max)])
    log_g = target.log_g(centres)
    keep = log_g > log_g.max() - PRUNE  # components with weight < e^{-PRUNE} of the largest are never drawn
    centres, sds, log_g = centres[keep], sds[keep], log_g[keep]
    if centres.size > MAX_COMPONENTS:  # thin out evenly; wider components fill the gaps
        k = math.ceil(centres.size / MAX_COMPONENTS)
        centres, sds, log_g = centres[::k], np.maximum(sds[::k], k * step), log_g[::k]
    log_pi = _fit_weights(centres, sds, log_g + np.log(sds), target) + math.log1p(-DEFENSIVE)
    means = np.concatenate([centres, wide])
    all_sds = np.concatenate([sds, np.full(2, 2 * sigma)])
    log_pi = np.concatenate([log_pi, np.full(2, math.log(DEFENSIVE / 2))])
    log_pi = log_pi - _logsumexp(log_pi, axis=0)  # r is exactly the law sampled (up to rounding)
    t_lo = min(means.min(), 0.0) - TAIL_SD * sigma
    t_hi = means.max() + TAIL_SD * sigma
    if target.kind == "hockey":
        t_lo = min(t_lo, target.threshold() - sigma)
    return _Proposal(means, all_sds, log_pi), t_lo, t_hi


def _fit_weights(centres: np.ndarray, sds: np.ndarray, log_pi: np.ndarray, target: _Target) -> np.ndarray:
    """Normalised log weights of the components N(m_j, s_j²) fitted to g by EM_ITERS steps of EM on a quadrature of g
    (trapezoid on ±4 s_j around each centre): π_j ← ∫ g π_j N_j / r / ∫ g, which decreases KL(g/∫g ‖ r). Only the
    efficiency depends on this; the bound B is computed for whatever weights come out."""
    z = np.linspace(-4.0, 4.0, 17)
    pts = np.unique((centres[:, None] + sds[:, None] * z[None, :]).ravel())
    dx = np.diff(pts)
    wq = np.zeros_like(pts)
    wq[:-1] += dx / 2
    wq[1:] += dx / 2
    with np.errstate(divide="ignore"):
        log_gw = target.log_g(pts) + np.log(wq)
    ok = np.isfinite(log_gw)
    log_pi = log_pi - _logsumexp(log_pi, axis=0)
    if ok.sum() < 2:
        return log_pi
    pts, log_gw = pts[ok], log_gw[ok] - _logsumexp(log_gw[ok], axis=0)
    zz = (pts[None, :] - centres[:, None]) / sds[:, None]
    log_n = -0.5 * zz * zz - np.log(sds)[:, None]
    for _ in range(EM_ITERS):
        joint = log_pi[:, None] + log_n
        log_r = _logsumexp(joint, axis=0)
        log_pi = _logsumexp(joint - log_r[None, :] + log_gw[None, :], axis=1)
        log_pi = log_pi - _logsumexp(log_pi, axis=0)
    return np.maximum(log_pi, np.log(np.finfo(float).tiny))


def _tail_sup(prop: _Proposal, sigma: float, envelope: tuple[float, float], t: float, side: str) -> float:
    """sup over u ≥ t (side "right") or u ≤ t ("left") of log g − log r, where log g ≤ A + κ(u − t) + log q(u):
    for each component j, A + κ(u − t) + log q − log π_j N_j is a quadratic c2 u² + c1 u + c0 (c2 ≤ 0 when
    s_j ≥ σ); its supremum on the half line is taken in closed form and the least over j is returned."""
    A, kappa = envelope
    if A == -math.inf:
        return -math.inf
    best = math.inf
    for m, s, lp in zip(prop.means, prop.sds, prop.log_pi):
        c2 = 1 / (2 * s * s) - 1 / (2 * sigma * sigma)
        c1 = kappa - m / (s * s)
        c0 = A - kappa * t + m * m / (2 * s * s) + math.log(s / sigma) - lp
        if c2 > 0:
            continue
        if c2 == 0:
            if (side == "right" and c1 > 0) or (side == "left" and c1 < 0):
                continue
            u = t
        else:
            v = -c1 / (2 * c2)
            u = max(v, t) if side == "right" else min(v, t)
        best = min(best, c2 * u * u + c1 * u + c0)
    return best


def _log_sup_ratio(target: _Target, prop: _Proposal, t_lo: float, t_hi: float) -> tuple[float, dict]:
    """A proven upper bound on log sup_u g(u)/r(u) (module docstring), and how it was obtained.

    Cells of [t_lo, t_hi] whose bound exceeds the largest exact point value found so far by more than REFINE_TOL are
    split in 8 (at most MAX_CELLS per round, MAX_ROUNDS rounds); the rest keep their bound. The result is the
    largest cell bound or tail bound, whatever the refinement reached, so it is an upper bound in every case."""
    sigma = target.fam.sigma
    left = _tail_sup(prop, sigma, (target.left_envelope(t_lo), 0.0), t_lo, "left")
    right = _tail_sup(prop, sigma, target.right_envelope(t_hi), t_hi, "right")
    edges = np.linspace(t_lo, t_hi, 4097)
    a, b = edges[:-1], edges[1:]
    done, best_point, cells = -math.inf, -math.inf, 0
    for _ in range(MAX_ROUNDS):
        ub = target.log_g_upper(a, b) - prop.log_density_lower(a, b)
        pts = np.concatenate([a, b[-1:]])
        exact = target.log_g(pts) - prop.log_density(pts)
        best_point = max(best_point, float(np.max(exact)))
        cells += a.size
        active = ub > best_point + REFINE_TOL
        if (~active).any():
            done = max(done, float(ub[~active].max()))
        if not active.any():
            a = b = np.empty(0)
            break
        a, b = a[active], b[active]
        if a.size * 8 > MAX_CELLS:
            break
        w, k = ((b - a) / 8)[:, None], np.arange(8)[None, :]
        a, b = (a[:, None] + w * k).ravel(), np.concatenate([a[:, None] + w * (k[:, 1:]), b[:, None]], 1).ravel()
    rest = float(np.max(target.log_g_upper(a, b) - prop.log_density_lower(a, b))) if a.size else -math.inf
    log_b = max(done, rest, left, right)
    return log_b, {"bound_cells": int(cells), "bound_over_best_point": float(log_b - best_point),
                   "tail_left": float(left), "tail_right": float(right)}


@functools.lru_cache(maxsize=64)
def _prepared(kind: str, axis: float, weights: tuple, shifts: tuple, sigma: float):
    """Proposal and proven log-bound of a target (deterministic in its arguments, so cached; the centre and the
    side of the family do not enter the normalised coordinate u)."""
    fam = GaussianMixture(np.array(weights), np.array(shifts), 0.0, sigma)
    if fam.d_max == 0:  # P = Q: ℓ ≡ 1, so φ_α(ℓ) = 0 and (ℓ − e^ε)₊ = 0 for ε ≥ 0
        return None, -math.inf, {}
    target = _Target(kind, axis, fam)
    prop, t_lo, t_hi = _proposal(target)
    log_b, info = _log_sup_ratio(target, prop, t_lo, t_hi)
    return prop, log_b, info


def _importance_draws(pair, own, fam: GaussianMixture, target: _Target, n: int, rng: np.random.Generator):
    """X/B for n draws from the proposal; the witness's loss is checked against the family at every draw."""
    prop, log_b, info = _prepared(target.kind, target.axis, tuple(fam.weights), tuple(fam.shifts), fam.sigma)
    info = dict(info)
    who = witness_name(pair)
    if log_b == -math.inf:  # g ≡ 0 (e.g. P = Q)
        return torch.zeros(n, dtype=torch.float64), -math.inf, info
    log_b += BOUND_SLACK
    u = prop.sample(rng, n)
    o = fam.to_output(u)
    L = np.asarray(pair.log_p(o, **own), dtype=np.float64) - np.asarray(pair.log_q(o, **own), dtype=np.float64)
    L_fam = fam.log_ell(u)
    bad = ~(np.abs(L - L_fam) <= DENSITY_RTOL * (1 + np.abs(L_fam)))
    bad &= ~(np.isneginf(L) & np.isneginf(L_fam))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{who}: its privacy loss at o={o[i]!r} is {L[i]!r}, the declared {fam.name} family "
                         f"gives {L_fam[i]!r} (parameters {own})")
    log_x = fam.log_q(u) - prop.log_density(u) + target.log_factor(L)
    info.update({"components": int(prop.means.size), "log_bound": log_b})
    return _scaled(log_x - log_b, who), log_b, info


# ---------------------------------------------------------------------------------------------------------
# Gaussian-mixture family, T-fold profiles: every step tilted by one λ (a product of exact Gaussian mixtures)


@dataclass(frozen=True)
class ComposedLaw:
    """The per-step proposal of a T-fold profile: r(u) = q(u)ℓ(u)^α / M(α), α = 1 + λ (λ a non-negative integer), an
    exact finite Gaussian mixture Σ_c π_c N(u; D_c, σ²) (:func:`tilted_step_law`), with ``log_m`` = log M(α) =
    log E_Q[ℓ^α] and ``log_bound`` = log B, B = M^T e^{−λε} λ^λ/(1 + λ)^{1+λ} (:func:`composed_law`)."""

    lam: int
    log_m: float
    means: np.ndarray
    log_pi: np.ndarray
    log_bound: float


def tilted_step_law(fam: GaussianMixture, alpha: int) -> tuple[np.ndarray, np.ndarray] | None:
    """(means D_c, log weights log w_c) with q(u)ℓ(u)^α = Σ_c w_c N(u; D_c, σ²) for an integer α ≥ 0, or None when
    the expansion has more than COMPOSED_MAX_COMPONENTS terms.

    Expanding ℓ^α = (Σ_i a_i e^{(2d_i u − d_i²)/(2σ²)})^α over count vectors c (Σ_i c_i = α):
    q(u)e^{2Du/(2σ²)} = N(u; D, σ²)e^{D²/(2σ²)} with D = Σ_i c_i d_i, so
    w_c = α!/Π c_i! · Π a_i^{c_i} · exp((D² − Σ_i c_i d_i²)/(2σ²)) and M(α) = E_Q[ℓ^α] = Σ_c w_c."""
    a, d, s2 = np.log(fam.weights), fam.shifts, fam.sigma ** 2
    k = a.size
    if math.comb(alpha + k - 1, k - 1) > COMPOSED_MAX_COMPONENTS:
        return None
    counts = [c for c in _compositions(alpha, k)]
    c = np.array(counts, dtype=np.float64).reshape(len(counts), k)
    big_d = c @ d
    log_w = (math.lgamma(alpha + 1) - np.sum([[math.lgamma(x + 1) for x in row] for row in c], axis=1) + c @ a
             + (big_d ** 2 - c @ (d ** 2)) / (2 * s2))
    return big_d, log_w


def _compositions(total: int, parts: int):
    """Every vector of ``parts`` non-negative integers summing to ``total``."""
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first,) + rest


def _xlogx(x: float) -> float:
    return x * math.log(x) if x > 0 else 0.0


@functools.lru_cache(maxsize=256)
def _composed_law_cached(weights: tuple, shifts: tuple, sigma: float, steps: int, eps: float):
    fam = GaussianMixture(np.array(weights), np.array(shifts), 0.0, sigma)
    best = None
    for lam in range(COMPOSED_MAX_LAMBDA + 1):
        law = tilted_step_law(fam, 1 + lam)
        if law is None:
            break
        means, log_w = law
        log_m = float(_logsumexp(log_w, axis=0))
        log_b = steps * log_m - lam * eps + _xlogx(lam) - _xlogx(1 + lam)
        if not math.isfinite(log_b):
            break
        if best is not None and log_b > best.log_bound:
            break  # log B(λ) is convex in λ (T·K(λ) − λε plus a convex term): the first rise ends the search
        best = ComposedLaw(lam, log_m, means, log_w - log_m, log_b)
    return best


def composed_law(fam: GaussianMixture, steps: int, eps: float) -> ComposedLaw | None:
    """The tilt λ ∈ {0, 1, …, COMPOSED_MAX_LAMBDA} minimising the proven summand bound B(λ) of the T-fold profile
    estimator (module docstring, "T-fold profiles"), or None where the family's expansion is too large."""
    if fam.d_max == 0:
        return None
    return _composed_law_cached(tuple(fam.weights), tuple(fam.shifts), fam.sigma, int(steps), float(eps))


def _family_losses(pair, own, fam: GaussianMixture, u: np.ndarray) -> np.ndarray:
    """The family's loss log ℓ(u) at the draws, after checking the witness's own log p − log q against it at every
    draw (a mismatch raises: the declared family does not describe the pair)."""
    o = fam.to_output(u)
    L = np.asarray(pair.log_p(o, **own), dtype=np.float64) - np.asarray(pair.log_q(o, **own), dtype=np.float64)
    L_fam = fam.log_ell(u)
    bad = ~(np.abs(L - L_fam) <= DENSITY_RTOL * (1 + np.abs(L_fam)))
    bad &= ~(np.isneginf(L) & np.isneginf(L_fam))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{witness_name(pair)}: its privacy loss at o={o[i]!r} is {L[i]!r}, the declared {fam.name} "
                         f"family gives {L_fam[i]!r} (parameters {own})")
    return L_fam


def _composed_draws(pair, own, fam: GaussianMixture, steps: int, eps: float, n: int, rng: np.random.Generator):
    """X/B for n draws of the T-fold tilted estimator of δ_T(ε) (module docstring): each of the T steps drawn from the
    per-step law r = qℓ^α/M (α = 1 + λ), S = Σ L_t, X = (1 − e^{ε−S})₊ · M^T e^{−λS} (= (1 − e^{ε−S})₊ Π p/r), and
    X ≤ B = M^T e^{−λε}λ^λ/(1+λ)^{1+λ} (the supremum over S of (1 − e^{ε−S})e^{−λS}, at S = ε + log((1+λ)/λ)).
    S is the sum of the family's losses, checked against the witness's at every draw (DENSITY_RTOL)."""
    law = composed_law(fam, steps, eps)
    who = witness_name(pair)
    log_b = law.log_bound + BOUND_SLACK
    pi = np.exp(law.log_pi - _logsumexp(law.log_pi, axis=0))
    pi = pi / pi.sum()
    log_x = np.empty(n)
    per = max(1, COMPOSED_CHUNK // steps)
    for start in range(0, n, per):
        m = min(per, n - start)
        idx = rng.choice(law.means.size, size=m * steps, p=pi)
        u = law.means[idx] + fam.sigma * rng.standard_normal(m * steps)
        S = _family_losses(pair, own, fam, u).reshape(m, steps).sum(axis=1)
        log_x[start:start + m] = _log_hockey(S, eps) + steps * law.log_m - law.lam * S
    info = {"tilt_lambda": law.lam, "tilt_alpha": 1 + law.lam, "components": int(law.means.size),
            "log_bound": log_b, "step_draws": int(n) * int(steps)}
    return _scaled(log_x - log_b, who), log_b, info


# ---------------------------------------------------------------------------------------------------------
# Helpers


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(x - m), axis=axis))


def _check_axis(name: str, value: Any, lo: float, open_lo: bool) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise DomainError(name, value, f"a real number {'>' if open_lo else '≥'} {lo:g}") from None
    if not math.isfinite(v) or v < lo or (open_lo and v == lo):
        raise DomainError(name, value, f"({lo:g}, ∞)" if open_lo else f"[{lo:g}, ∞)")
    return v


def _check_run(n: Any, confidence: Any, method: str) -> None:
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 2:
        raise DomainError("n", n, "integers ≥ 2")
    c = float(confidence)
    if not (0 < c < 1):
        raise DomainError("confidence", confidence, "(0, 1)")
    if method not in METHODS:
        raise DomainError("method", method, f"one of {METHODS}")
