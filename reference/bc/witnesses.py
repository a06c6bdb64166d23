"""Neighbouring output distributions (P, Q) of seed 002's Algorithm 1 in the A1 model, for sampling the privacy loss
(notes shared/notes/batch-clipping-fdp.md §3). Units are normalised (project onto the line U–U′, divide by 2C).

``bc.round``      one round with k differentiating subsets (seed 002, D.4–D.5; notes §3.1):
                  P = N(k/σ, 1), Q = N(0, 1); L = (k/σ)x − k²/(2σ²). Exact (worst case over gradients).
``bc.a1_mixture`` the whole run seen by the A1 adversary (seed 002, D.7–D.9, D.15, Def. 4.2; notes §3.2), the
                  label-visible mixture: o = (c², x), c² ~ q_E under both, x ~ N(c/σ, 1) under P and N(0, 1) under Q;
                  L = (c/σ)x − c²/(2σ²) (c = 0: L = 0). The label law is :func:`~.qe.qe_law`'s kept support,
                  renormalised (the entries it dropped, below 10^−(dps+30) in all, are not drawn), so the pair is the
                  Def. 4.2 mixture up to that total variation.

Exact log-moments from the pairs' own densities (Gaussian moment generating function; never the statements'
evaluators): for P = N(μ, 1), Q = N(0, 1), E_Q[(p/q)^α] = E_Q[e^{α(μx − μ²/2)}] = e^{α(α−1)μ²/2}; for the labelled
mixture the label's mass cancels in p/q, so E_Q[(p/q)^α] = Σ_c q(c) e^{α(α−1)c²/(2σ²)}.

Both are ``dominating``: ``bc.a1_mixture`` is the A1 pair itself (Def. 4.2's f is exactly its trade-off function;
bc.def4_2, bc.a1_profile and bc.a1_epsilon name it), and ``bc.round`` composed over ``steps`` rounds is the A1 pair
wherever q_E is a point mass (shuffling with g = 1: c² = E, seed 002 Lemma G.2; individual clipping with m = N, where
every round holds all g samples in distinct subsets: c² = T g²; :func:`round_use` maps a point there and refuses
elsewhere). The Def. 4.2 statements do not name ``bc.round``: a use must apply at a statement's example point
(tests/spine/test_registry.py), and theirs is subsampling with g = 1.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from ..catalogue import Witness, register_witness
from ..domains import NOISE, Integer, Param
from ..errors import ParameterError
from ..precision import checked_param, logsumexp
from . import spec
from .qe import qe_law

SOURCE = "seed 002 (002_5bf9d068e79d7537.txt), D.4–D.9, D.15, Def. 4.2; notes batch-clipping-fdp.md §3.1–3.2"
LAW_DPS = 30  # precision of the label law the sampler draws from (float64 draws need far less)
_LOG_2PI = math.log(2 * math.pi)


def _norm_logpdf(x, mean):
    return -0.5 * (np.asarray(x, dtype=np.float64) - mean) ** 2 - 0.5 * _LOG_2PI


def _witness_order(alpha):
    from ..base.sgm import witness_order

    return witness_order(alpha)


# ---------------------------------------------------------------------------------------------------------------
# One round with k differentiating subsets


def _round_mu(k, sigma) -> float:
    return float(k) / float(sigma)


def _round_sample(rng: np.random.Generator, n: int, k, sigma) -> np.ndarray:
    return _round_mu(k, sigma) + rng.standard_normal(n)


def _round_log_p(o, k, sigma):
    return _norm_logpdf(o, _round_mu(k, sigma))


def _round_log_q(o, k, sigma):
    return _norm_logpdf(o, 0.0)


def _round_log_moment(alpha, k, sigma):
    """log E_Q[(p/q)^α] = α(α−1)k²/(2σ²) for P = N(k/σ, 1), Q = N(0, 1) (module docstring)."""
    alpha = _witness_order(alpha)
    k = checked_param("k", ROUND_K, k)
    sigma = checked_param("sigma", NOISE, sigma)
    return alpha * (alpha - 1) * k * k / (2 * sigma * sigma)


def _round_tilt_family(k, sigma):
    """conformance/tilting.py's family: P = N(k/σ, 1) against Q = N(0, 1) (none at k = 0, where P = Q)."""
    mu = _round_mu(k, sigma)
    if mu <= 0:
        return None
    return {"family": "gaussian_mixture", "weights": [1.0], "shifts": [mu], "center": 0.0, "sigma": 1.0}


ROUND_K = Integer(0, math.inf, sample_hi=8)

register_witness(Witness(
    id="bc.round",
    description="one round of Algorithm 1 with k differentiating subsets: P = N(k/σ, 1), Q = N(0, 1)",
    params=(Param("k", ROUND_K, "k, the round's subsets holding a differentiating sample", example=1),
            Param("sigma", NOISE, "noise multiplier σ", example=1)),
    sample=_round_sample,
    log_p=_round_log_p,
    log_q=_round_log_q,
    source=SOURCE,
    dominating=True,
    log_moment=_round_log_moment,
    tilt_family=_round_tilt_family,
))


def round_use(p) -> dict:
    """bc.round composed over the run where q_E is a point mass c² = steps·k² (module docstring); refuses (a
    ParameterError) elsewhere."""
    N, m, s, g, E = (int(p[k]) for k in ("N", "m", "s", "g", "E"))
    if p["sampling"] == "shuffling" and g == 1:
        return {"k": 1, "sigma": p["sigma"], "steps": E}
    if s == 1 and m == N:
        return {"k": g, "sigma": p["sigma"], "steps": E}
    raise ParameterError("bc.round: q_E is not a point mass here (only shuffling with g = 1, or s = 1 and m = N)")


# ---------------------------------------------------------------------------------------------------------------
# The A1 label-visible mixture


_LAW_CACHE: dict = {}


def _label_law(sampling, N, m, s, g, E):
    """(support of c² as float64, log-probabilities renormalised over the kept support, probabilities) of q_E."""
    key = (sampling, int(N), int(m), int(s), int(g), int(E))
    if key not in _LAW_CACHE:
        with mpmath.workdps(LAW_DPS):
            law = qe_law(*key)
            log_total = mpmath.log(mpmath.fsum(law.pmf))
            logs = np.array([float(mpmath.log(q) - log_total) for q in law.pmf])
        support = np.array(law.support, dtype=np.float64)
        probs = np.exp(logs)
        _LAW_CACHE[key] = (support, logs, probs / probs.sum())
        if len(_LAW_CACHE) > 32:
            _LAW_CACHE.pop(next(iter(_LAW_CACHE)))
    return _LAW_CACHE[key]


def _mixture_sample(rng: np.random.Generator, n: int, sampling, N, m, s, g, E, sigma) -> np.ndarray:
    support, _, probs = _label_law(sampling, N, m, s, g, E)
    c2 = support[rng.choice(len(support), size=n, p=probs)]
    x = np.sqrt(c2) / float(sigma) + rng.standard_normal(n)
    return np.stack([c2, x], axis=1)


def _label_log_mass(c2, law):
    support, logs, _ = law
    i = np.searchsorted(support, c2)
    i = np.clip(i, 0, len(support) - 1)
    return np.where(support[i] == c2, logs[i], -np.inf)


def _mixture_log_p(o, sampling, N, m, s, g, E, sigma):
    o = np.asarray(o, dtype=np.float64)
    law = _label_law(sampling, N, m, s, g, E)
    return _label_log_mass(o[:, 0], law) + _norm_logpdf(o[:, 1], np.sqrt(o[:, 0]) / float(sigma))


def _mixture_log_q(o, sampling, N, m, s, g, E, sigma):
    o = np.asarray(o, dtype=np.float64)
    law = _label_law(sampling, N, m, s, g, E)
    return _label_log_mass(o[:, 0], law) + _norm_logpdf(o[:, 1], 0.0)


def _mixture_log_moment(alpha, sampling, N, m, s, g, E, sigma):
    """log E_Q[(p/q)^α] = log Σ_c q(c) e^{α(α−1)c²/(2σ²)} − log Σ_c q(c) over the kept support (module docstring),
    in log space at the working precision."""
    alpha = _witness_order(alpha)
    sigma = checked_param("sigma", NOISE, sigma)
    law = qe_law(sampling, N, m, s, g, E)
    logs = [mpmath.log(q) for q in law.pmf]
    tilt = alpha * (alpha - 1) / (2 * sigma * sigma)
    if tilt == 0:
        return mpf(0)
    return logsumexp(lq + tilt * c2 for lq, c2 in zip(logs, law.support)) - logsumexp(logs)


_MIXTURE_PARAMS = (*spec.QE_PARAMS, Param("sigma", NOISE, "noise multiplier σ", example=4))

register_witness(Witness(
    id="bc.a1_mixture",
    description="A1 whole run (label-visible mixture): c² ~ q_E, then x ~ N(c/σ, 1) under P, N(0, 1) under Q",
    params=_MIXTURE_PARAMS,
    sample=_mixture_sample,
    log_p=_mixture_log_p,
    log_q=_mixture_log_q,
    source=SOURCE,
    dominating=True,
    log_moment=_mixture_log_moment,
    note="Outputs are (c², x) pairs; no tilting family describes a label-visible mixture, so profiles are checked "
         "by plain sampling of P.",
))
