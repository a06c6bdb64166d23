"""Neighbouring output distributions (P, Q) of (generalized) Propose-Test-Release, seed 003 chapter 3 and appendix B
(notes shared/notes/generalized-ptr.md §3.3–§3.5, §8), for sampling the privacy loss and exact checks.

Every pair is a *PTR mixture* on the output space {⊥} ∪ R: P = (1 − p)·δ_⊥ + p·m0 and Q = (1 − q)·δ_⊥ + q·m1, where
p, q are the probabilities that the test passes on X and X′ and (m0, m1) the release laws, m0 = Lap(0, 1) or N(0, 1)
and m1 the same law shifted by μ (in units of the release scale). An output is a row (passed, y): passed = 1 with the
release y, passed = 0 for ⊥ (y = 0). The privacy loss is L(⊥) = log((1 − p)/(1 − q)) and
L(y) = log(p/q) + log(m0(y)/m1(y)). Pass probabilities are carried as logarithms (they reach 1e-300 and below).

``gptr.classic_ptr``        Algorithm 3 (notes §3.3): p = P[Lap(1) > log(1/δ) − ε·D_β(X)], q the same at D_β(X′),
                            release Lap(f(X), β/ε), shift μ = |f(X) − f(X′)|/(β/ε). Pair (a): D = D′ = 0, μ large
                            (δ(2ε) → δ/2, the worst case); pair (b): |D − D′| = 1, μ ≤ ε (privacy loss ≤ 2ε).
``gptr.ptr_mixture``        Algorithm 4 (notes §3.4): p, q, the release law and μ as parameters, set adversarially
                            within Thm 3.5.3's hypotheses by the statements' witness mappings.
``gptr.b2_5_counterexample`` notes §3.5 (erratum E1): u(X) = 0, u(X′) = −1, both "bad"; the test passes iff
                            u + N(0, σ_T²) > τ (so p = Φ̄(τ/σ_T) = δ′ and q = Φ̄((τ + 1)/σ_T) < δ′); release N(0, σ²)
                            vs N(Δ, σ²).

Exact quantities from the pairs' own densities (never a statement's evaluator):
* log E_Q[(p/q)^α] = log[(1 − p)^α (1 − q)^{1−α} + p^α q^{1−α} E_{m1}[(m0/m1)^α]], with the release moment
  e^{α(α−1)μ²/2} (Gaussian moment generating function) or the Laplace pair's piecewise integral
  (``base.laplace_witness_log_moment`` at scale 1/μ: Lap(0, 1) vs Lap(μ, 1) is Lap(1, 1/μ) vs Lap(0, 1/μ) after
  y ↦ (μ − y)/μ);
* the hockey-stick divergence sup_S P(S) − e^ε Q(S) = [(1 − p) − e^ε(1 − q)]₊ + p·δ_m(ε − log(p/q)), δ_m(t) the
  release pair's hockey-stick at a real t (notes §8: point mass plus a closed-form continuous part):
  Laplace: 0 for t ≥ μ, 1 − e^{(t−μ)/2} for |t| < μ, 1 − e^t for t ≤ −μ; Gaussian: Φ(μ/2 − t/μ) − e^t Φ(−μ/2 − t/μ).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mp, mpf

from .._normal import log_ndtr
from ..base.laplace import laplace_witness_log_moment
from ..base.sgm import witness_guarded, witness_order
from ..catalogue import Witness, register_witness
from ..domains import DELTA, EPS, Param, Real
from ..errors import PrecisionError
from ..precision import checked_param, log1mexp, logsumexp, to_mpf
from .spec import INSTABILITY_DISTANCE, OPEN_PROBABILITY, POSITIVE, RELEASE, SHIFT

SOURCE = "seed 003 (003_dabdd6bee088f80a.txt) Alg 3, Alg 4, Thm B.2.5; notes generalized-ptr.md §3.3–§3.5, §8"
_LOG_2PI = math.log(2 * math.pi)
THRESHOLD = Real(-math.inf, math.inf, sample_lo=-10, sample_hi=10)  # the test threshold τ of the §3.5 pair


# ---------------------------------------------------------------------------------------------------------------
# The mixture in mpmath: log pass probabilities and the release pair


class _Mix:
    """(log p, log(1 − p), log q, log(1 − q), release, μ) of a PTR mixture, mpmath at the current precision."""

    def __init__(self, log_p, log_1mp, log_q, log_1mq, release, mu):
        self.log_p, self.log_1mp, self.log_q, self.log_1mq = log_p, log_1mp, log_q, log_1mq
        self.release, self.mu = release, mu


def _release_log_moment(alpha, release, mu):
    """log E_{m1}[(m0/m1)^α] of the release pair (module docstring); 0 at μ = 0."""
    if mu == 0:
        return mpf(0)
    if release == "gaussian":
        return alpha * (alpha - 1) * mu * mu / 2
    return laplace_witness_log_moment(alpha, 1 / mu)


def _mix_log_moment(alpha, mix):
    """log E_Q[(P/Q)^α] of the mixture ``mix()`` (a _Mix built at the current precision; module docstring), guarded
    for a moment near 1 (α near 0 or 1)."""
    alpha = witness_order(alpha)
    if alpha == 0 or alpha == 1:
        return mpf(0)  # E_Q[1] = E_Q[P/Q] = 1: the pairs are mutually absolutely continuous

    def compute():
        a = to_mpf(alpha)
        m = mix()
        bot = a * m.log_1mp + (1 - a) * m.log_1mq
        rel = a * m.log_p + (1 - a) * m.log_q + _release_log_moment(a, m.release, m.mu)
        return logsumexp([bot, rel])

    return witness_guarded(compute, "gptr PTR-mixture witness", 0)


def _neg_expm1(x):
    """1 − e^x."""
    return -mpmath.expm1(x)


def _gaussian_hockey(t, mu):
    """Φ(μ/2 − t/μ) − e^t Φ(−μ/2 − t/μ) of N(0, 1) vs N(μ, 1) at a real t (Balle & Wang 2018, Thm 8), the two terms
    formed with as many more digits as they cancel."""
    extra = 10
    while True:
        with mp.workdps(mp.dps + extra):
            a = mpmath.ncdf(mu / 2 - t / mu)
            b = mpmath.exp(t) * mpmath.ncdf(-mu / 2 - t / mu)
            d = a - b
        if d > 0:
            lost = int(mpmath.log10((a + b) / d)) + 1
            if lost + 5 <= extra:
                return +d
            extra = lost + 10
        else:
            extra = 2 * extra + 20
        if extra > 2000:
            raise PrecisionError(f"gptr witness: Gaussian hockey-stick not resolved at t={mpmath.nstr(t, 8)}, "
                                 f"mu={mpmath.nstr(mu, 8)}")


def release_hockey_stick(t, release, mu):
    """δ_m(t) = sup_S m0(S) − e^t m1(S) of the release pair at any real t (module docstring)."""
    t, mu = to_mpf(t), to_mpf(mu)
    if mu == 0:
        return _neg_expm1(t) if t < 0 else mpf(0)
    if release == "gaussian":
        return _gaussian_hockey(t, mu)
    if t >= mu:
        return mpf(0)
    if t > -mu:
        return _neg_expm1((t - mu) / 2)
    return _neg_expm1(t)


def _mix_hockey_stick(eps, mix: _Mix):
    """sup_S P(S) − e^ε Q(S) of the mixture: the ⊥ atom plus p·δ_m(ε − log(p/q)) (module docstring)."""
    eps, m = to_mpf(eps), mix
    bot = mpmath.exp(m.log_1mp) - mpmath.exp(eps + m.log_1mq)
    rel = mpmath.exp(m.log_p) * release_hockey_stick(eps - (m.log_p - m.log_q), m.release, m.mu)
    return max(bot, mpf(0)) + rel


# ---------------------------------------------------------------------------------------------------------------
# The mixture in numpy: sampler, strata and log densities


def _release_logpdf(y, release, loc):
    y = np.asarray(y, dtype=np.float64)
    if release == "gaussian":
        return -0.5 * (y - loc) ** 2 - 0.5 * _LOG_2PI
    return -np.abs(y - loc) - math.log(2)


def _release_sample(rng, n, release):
    return rng.standard_normal(n) if release == "gaussian" else rng.laplace(0.0, 1.0, n)


class _NpMix:
    """The mixture in float64 (log probabilities as floats; a log p below the float range is −inf)."""

    def __init__(self, mix: _Mix):
        self.log_p, self.log_1mp = float(mix.log_p), float(mix.log_1mp)
        self.log_q, self.log_1mq = float(mix.log_q), float(mix.log_1mq)
        self.release, self.mu = mix.release, float(mix.mu)

    def _out(self, passed, y):
        return np.column_stack([passed.astype(np.float64), np.where(passed, y, 0.0)])

    def sample(self, rng, n):
        passed = rng.random(n) < math.exp(self.log_p)
        return self._out(passed, _release_sample(rng, n, self.release))

    def strata(self):
        return [(math.exp(self.log_1mp), lambda rng, n: self._out(np.zeros(n, dtype=bool), np.zeros(n))),
                (math.exp(self.log_p), lambda rng, n: self._out(np.ones(n, dtype=bool),
                                                                 _release_sample(rng, n, self.release)))]

    def log_p_of(self, o):
        o = np.asarray(o, dtype=np.float64)
        passed = o[:, 0] > 0.5
        return np.where(passed, self.log_p + _release_logpdf(o[:, 1], self.release, 0.0), self.log_1mp)

    def log_q_of(self, o):
        o = np.asarray(o, dtype=np.float64)
        passed = o[:, 0] > 0.5
        return np.where(passed, self.log_q + _release_logpdf(o[:, 1], self.release, self.mu), self.log_1mq)


def _register(wid, description, params, mix_of, note, dominating=False):
    """Register a PTR-mixture witness whose mpmath mixture is ``mix_of(**params)`` (a _Mix)."""
    def np_mix(**kw):
        with mp.workdps(30):
            return _NpMix(mix_of(**kw))

    register_witness(Witness(
        id=wid, description=description, params=params,
        sample=lambda rng, n, **kw: np_mix(**kw).sample(rng, n),
        log_p=lambda o, **kw: np_mix(**kw).log_p_of(o),
        log_q=lambda o, **kw: np_mix(**kw).log_q_of(o),
        source=SOURCE, dominating=dominating,
        log_moment=lambda alpha, **kw: _mix_log_moment(alpha, lambda: mix_of(**kw)),
        strata=lambda **kw: np_mix(**kw).strata(),
        note=note))


# ---------------------------------------------------------------------------------------------------------------
# gptr.classic_ptr (Algorithm 3)


def classic_pass_log_probs(eps, delta, d):
    """(log p, log(1 − p)) of p = P[D + Lap(1/ε) > log(1/δ)/ε] = P[Lap(1) > s], s = log(1/δ) − εD (seed 003, Alg 3
    line 2): ½e^{−s} for s ≥ 0, 1 − ½e^{s} below (notes §3.3)."""
    s = -mpmath.log(delta) - eps * d
    log_half = -mpmath.log(2)
    if s >= 0:
        lp = log_half - s
        return lp, log1mexp(lp)
    l1mp = log_half + s
    return log1mexp(l1mp), l1mp


def _classic_mix(eps, delta, d_p, d_q, shift):
    eps = checked_param("eps", EPS, eps)
    delta = checked_param("delta", DELTA, delta)
    d_p = checked_param("d_p", INSTABILITY_DISTANCE, d_p)
    d_q = checked_param("d_q", INSTABILITY_DISTANCE, d_q)
    shift = checked_param("shift", SHIFT, shift)
    return _Mix(*classic_pass_log_probs(eps, delta, d_p), *classic_pass_log_probs(eps, delta, d_q), "laplace", shift)


_CLASSIC_PARAMS = (
    Param("eps", EPS, "ε of Algorithm 3", example="0.5"),
    Param("delta", DELTA, "δ of Algorithm 3's threshold log(1/δ)/ε", example="0.2"),
    Param("d_p", INSTABILITY_DISTANCE, "D_β(X), the distance to instability on P's side", example=1),
    Param("d_q", INSTABILITY_DISTANCE, "D_β(X′) on Q's side", example=0),
    Param("shift", SHIFT, "|f(X) − f(X′)| in units of the release scale β/ε", example=3),
)

_register("gptr.classic_ptr", "classic PTR (Alg 3): ⊥ or f + Lap(β/ε) after the test D_β + Lap(1/ε) > log(1/δ)/ε",
          _CLASSIC_PARAMS, _classic_mix,
          "Lower-bound pair: at D = D′ = 0 and shift → ∞ its δ(2ε) tends to the worst case δ/2 (notes §2.1, §3.3).")


def classic_ptr_hockey_stick(eps_total, eps, delta, d_p, d_q, shift):
    """sup_S P(S) − e^{ε_total} Q(S) of the gptr.classic_ptr pair, exact (module docstring), mpmath."""
    return _mix_hockey_stick(eps_total, _classic_mix(eps, delta, d_p, d_q, shift))


def classic_ptr_log_moment(alpha, eps, delta, d_p, d_q, shift):
    """log E_Q[(P/Q)^α] of the gptr.classic_ptr pair (module docstring)."""
    return _mix_log_moment(alpha, lambda: _classic_mix(eps, delta, d_p, d_q, shift))


# ---------------------------------------------------------------------------------------------------------------
# gptr.ptr_mixture (Algorithm 4 with adversarial parameters)


def _general_mix(p_pass, q_pass, release, shift):
    p = checked_param("p_pass", OPEN_PROBABILITY, p_pass)
    q = checked_param("q_pass", OPEN_PROBABILITY, q_pass)
    release = checked_param("release", RELEASE, release)
    shift = checked_param("shift", SHIFT, shift)
    return _Mix(mpmath.log(p), mpmath.log1p(-p), mpmath.log(q), mpmath.log1p(-q), release, shift)


_MIXTURE_PARAMS = (
    Param("p_pass", OPEN_PROBABILITY, "pass probability of the test on X (P's side)", example="0.3"),
    Param("q_pass", OPEN_PROBABILITY, "pass probability on X′ (Q's side)", example="0.2"),
    Param("release", RELEASE, "release law m0 (m1 is m0 shifted by the shift)", example="laplace"),
    Param("shift", SHIFT, "mean shift μ of m1 in units of the release scale", example=2),
)

_register("gptr.ptr_mixture", "generalized PTR (Alg 4): ⊥ or a Laplace/Gaussian release, pass probabilities p, q",
          _MIXTURE_PARAMS, _general_mix,
          "Lower-bound pair with adversarial parameters: the statements' mappings set (p, q, μ) inside Thm 3.5.3's "
          "hypotheses (Case I: both neighbours bad, p = q = δ′, releases far apart; Case II: a test at its (ε̂, δ̂) "
          "extreme and an ε-close release).")


def mixture_hockey_stick(eps, p_pass, q_pass, release, shift):
    """sup_S P(S) − e^ε Q(S) of the gptr.ptr_mixture pair, exact (module docstring), mpmath."""
    return _mix_hockey_stick(eps, _general_mix(p_pass, q_pass, release, shift))


def mixture_log_moment(alpha, p_pass, q_pass, release, shift):
    """log E_Q[(P/Q)^α] of the gptr.ptr_mixture pair (module docstring)."""
    return _mix_log_moment(alpha, lambda: _general_mix(p_pass, q_pass, release, shift))


# ---------------------------------------------------------------------------------------------------------------
# gptr.b2_5_counterexample (notes §3.5, erratum E1)


def _counterexample_mix(sigma_T, tau, Delta, sigma):
    sigma_T = checked_param("sigma_T", POSITIVE, sigma_T)
    tau = checked_param("tau", THRESHOLD, tau)
    Delta = checked_param("Delta", SHIFT, Delta)
    sigma = checked_param("sigma", POSITIVE, sigma)
    lp, l1mp = log_ndtr(-tau / sigma_T), log_ndtr(tau / sigma_T)  # P[N(0, σ_T²) > τ] and its complement
    lq, l1mq = log_ndtr(-(tau + 1) / sigma_T), log_ndtr((tau + 1) / sigma_T)
    return _Mix(lp, l1mp, lq, l1mq, "gaussian", Delta / sigma)


_COUNTEREXAMPLE_PARAMS = (
    Param("sigma_T", POSITIVE, "noise σ_T of the Gaussian threshold test (statistic of sensitivity 1)", example=1),
    Param("tau", THRESHOLD, "the test's threshold above u(X) = 0 (u(X′) = −1)", example="0.5"),
    Param("Delta", SHIFT, "release mean shift Δ", example=1),
    Param("sigma", POSITIVE, "release noise σ", example=1),
)

_register("gptr.b2_5_counterexample",
          "Thm B.2.5 counterexample (notes §3.5): bad X, X′ pass a Gaussian threshold test with δ′ and p′ < δ′",
          _COUNTEREXAMPLE_PARAMS, _counterexample_mix,
          "Both neighbours are bad; X passes with δ′ = Φ̄(τ/σ_T), X′ with Φ̄((τ+1)/σ_T) < δ′, a false-positive rate "
          "≤ δ′ as Algorithm 13 allows. Its D_α exceeds Theorem B.2.5's bound (erratum E1): at σ_T = 1, τ = 4, "
          "Δ/σ = √5, α = 4, D_α = 11.25 against 8.55.")


def counterexample_log_moment(alpha, sigma_T, tau, Delta, sigma):
    """log E_Q[(P/Q)^α] of the §3.5 pair: (1 − p)^α(1 − p′)^{1−α} + p^α p′^{1−α} e^{α(α−1)Δ²/(2σ²)} (notes §3.5)."""
    return _mix_log_moment(alpha, lambda: _counterexample_mix(sigma_T, tau, Delta, sigma))
