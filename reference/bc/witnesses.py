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
from ..domains import NOISE, Integer, Param, Real
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


# ---------------------------------------------------------------------------------------------------------------
# The bound functions of Defs. 4.3/4.4 as mechanisms (notes §3.4), and the A0 round (notes §3.3)
#
# A symmetric trade-off function h is the trade-off function of its canonical pair: P uniform on (0, 1) (the test's
# type-I error α), Q with density −h′(α), plus a Q-only atom of mass 1 − h(0); the loss is L = −log(−h′(α)), +∞ where
# h′ = 0 (notes §3.4). Here α = Φ̄(t) with t ~ N(0, 1) under P (the loss is invariant under this reparametrisation
# and the Gaussian pieces of h become linear in t), so an output is t (and, for fL, a flag column for Q's atom).
# Both pairs are built from h's derivative alone, never from the δ(ε) closed forms that the statements evaluate, so
# the profile check compares two routes: ∫(1 − e^{ε−L})₊ dP of the pair against the notes' closed form.

from scipy import optimize as _optimize  # noqa: E402  (module-level, numpy/scipy only)
from scipy import special as _special  # noqa: E402


def _fu_loss(t, c_U, u, sigma):
    """L(t) of fU's canonical pair (Def. 4.3; fU piecewise as in reference/bc/bounds.py fu, notes §2.5), μ = c_U/σ:
    t ≥ z0 = μ/2 − ln(1−u)/μ (α ≤ β0, h = u + (1−u)G_μ): L = −ln(1−u) − μt + μ²/2;
    z′ ≤ z1 = μ/2 + ln(1−u)/μ with z′ = Φ^{-1}(Φ(t)/(1−u)) (α ≥ β1, h = G_μ((α−u)/(1−u))): L = ln(1−u) − μz′ + μ²/2;
    between (the linear piece β0 + β1 − α): L = 0. At u = 1, fU = 1 − α and L ≡ 0."""
    t = np.asarray(t, dtype=np.float64)
    u, mu = float(u), float(c_U) / float(sigma)
    if u >= 1:
        return np.zeros_like(t)
    lu = math.log1p(-u)
    z0, z1 = mu / 2 - lu / mu, mu / 2 + lu / mu
    with np.errstate(divide="ignore", invalid="ignore"):
        zp = _special.ndtri_exp(np.minimum(_special.log_ndtr(t) - lu, 0.0))
    return np.where(t >= z0, -lu - mu * t + mu * mu / 2, np.where(zp <= z1, lu - mu * zp + mu * mu / 2, 0.0))


def _fu_sample(rng, n, c_U, u, sigma):
    return rng.standard_normal(n)


def _fu_log_p(o, c_U, u, sigma):
    return _norm_logpdf(o, 0.0)


def _fu_log_q(o, c_U, u, sigma):
    return _norm_logpdf(o, 0.0) - _fu_loss(o, c_U, u, sigma)


def _fu_log_moment(alpha, c_U, u, sigma):
    """log E_Q[(p/q)^α] = log E_P[e^{(α−1)L}] of fU's canonical pair, from its three pieces (t ~ N(0, 1) under P,
    k = (1−α)μ, the Gaussian moment generating function E[e^{kt}; t ≥ z] = e^{k²/2}Φ̄(z − k)):
    piece β0: e^{(α−1)(−ln(1−u) + μ²/2)} e^{k²/2} Φ̄(z0 − k); piece β1 (z′ ~ N(0, 1) on z′ ≤ z1 with mass (1−u)Φ(z1)):
    (1−u) e^{(α−1)(ln(1−u) + μ²/2)} e^{k²/2} Φ(z1 − k); the linear piece: its P-mass 1 − Φ̄(z0) − (1−u)Φ(z1)."""
    alpha = _witness_order(alpha)
    c_U = checked_param("c_U", spec.CUT, c_U)
    u = checked_param("u", spec.TAIL, u)
    sigma = checked_param("sigma", NOISE, sigma)
    if u == 1 or alpha in (0, 1):
        return mpf(0)
    mu, lu = c_U / sigma, mpmath.log1p(-u)
    z0, z1, k = mu / 2 - lu / mu, mu / 2 + lu / mu, (1 - alpha) * mu
    lin = 1 - mpmath.ncdf(-z0) - (1 - u) * mpmath.ncdf(z1)
    terms = [(alpha - 1) * (-lu + mu * mu / 2) + k * k / 2 + mpmath.log(mpmath.ncdf(k - z0)),
             lu + (alpha - 1) * (lu + mu * mu / 2) + k * k / 2 + mpmath.log(mpmath.ncdf(z1 - k))]
    if lin > 0:
        terms.append(mpmath.log(lin))
    return logsumexp(terms)


_PAIR_SOURCE = ("seed 002 (002_5bf9d068e79d7537.txt) Defs. 4.3/4.4, D.13–D.14; notes batch-clipping-fdp.md §2.5–2.6, "
                "§3.4 (canonical pair of a trade-off function)")

register_witness(Witness(
    id="bc.fu_pair",
    description="canonical pair of Def. 4.3's fU: t ~ N(0,1) under P (α = Φ̄(t)), Q with density −fU′(Φ̄(t))φ(t)",
    params=(Param("c_U", spec.CUT, "cut point c_U (c units)", example=2),
            Param("u", spec.TAIL, "tail mass u", example="0.05"),
            Param("sigma", NOISE, "noise multiplier σ", example=1)),
    sample=_fu_sample,
    log_p=_fu_log_p,
    log_q=_fu_log_q,
    source=_PAIR_SOURCE,
    dominating=True,
    log_moment=_fu_log_moment,
    note="Its trade-off function is fU itself (the canonical pair of a symmetric trade-off function), so its δ(ε) is "
         "bc.def4_3_profile exactly; the linear piece of fU carries L = 0 (notes §3.4).",
))


def _fl_z_float(mu, l):
    """z_β = Φ^{-1}(1 − β) of Def. 4.4 in float64: the root of Φ(z − μ) − Φ(−z) = l, z ≥ μ/2 (its left side
    increases from 0 at z = μ/2); μ/2 at l = 0."""
    if l <= 0:
        return mu / 2
    h = lambda z: math.exp(_special.log_ndtr(z - mu)) - math.exp(_special.log_ndtr(-z)) - l
    lo, hi = mu / 2, mu / 2 + 1
    while h(hi) < 0:
        lo, hi = hi, 2 * hi + 1
    return _optimize.brentq(h, lo, hi, xtol=1e-15, rtol=1e-15, maxiter=200)


def _fl_loss(t, c_L, l, sigma):
    """L(t) of fL's canonical pair (Def. 4.4; fL = G_μ(α) − l on [0, β], G_μ(min{1, α + l}) on [β, 1], notes §2.6),
    μ = c_L/σ, α = Φ̄(t): t ≥ z_β (α ≤ β): L = −μt + μ²/2; Φ(t) > l (β ≤ α < 1 − l): L = −μz′ + μ²/2 with
    z′ = Φ^{-1}(Φ(t) − l) (h = G_μ(α + l)); Φ(t) ≤ l (α ≥ 1 − l, where fL = 0): L = +∞."""
    t = np.asarray(t, dtype=np.float64)
    l, mu = float(l), float(c_L) / float(sigma)
    zb = _fl_z_float(mu, l)
    lt = _special.log_ndtr(t)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.exp(math.log(l) - lt) if l > 0 else np.zeros_like(t)
        zp = _special.ndtri_exp(lt + np.log1p(-np.minimum(ratio, 1.0)))
        mid = np.where(ratio < 1, -mu * zp + mu * mu / 2, np.inf)
    return np.where(t >= zb, -mu * t + mu * mu / 2, mid)


def _fl_sample(rng, n, c_L, l, sigma):
    return np.stack([np.zeros(n), rng.standard_normal(n)], axis=1)


def _fl_log_p(o, c_L, l, sigma):
    o = np.atleast_2d(np.asarray(o, dtype=np.float64))
    return np.where(o[:, 0] > 0.5, -np.inf, _norm_logpdf(o[:, 1], 0.0))


def _fl_log_q(o, c_L, l, sigma):
    o = np.atleast_2d(np.asarray(o, dtype=np.float64))
    atom = math.log(float(l)) if float(l) > 0 else -math.inf
    return np.where(o[:, 0] > 0.5, atom, _norm_logpdf(o[:, 1], 0.0) - _fl_loss(o[:, 1], c_L, l, sigma))


register_witness(Witness(
    id="bc.fl_pair",
    description="canonical pair of Def. 4.4's fL: (0, t), t ~ N(0,1) under P (α = Φ̄(t)); Q: density −fL′(Φ̄(t))φ(t) "
                "and an atom (1, 0) of mass l",
    params=(Param("c_L", spec.CUT, "cut point c_L (c units)", example=2),
            Param("l", spec.TAIL, "tail mass l", example="0.05"),
            Param("sigma", NOISE, "noise multiplier σ", example=1)),
    sample=_fl_sample,
    log_p=_fl_log_p,
    log_q=_fl_log_q,
    source=_PAIR_SOURCE,
    dominating=True,
    note="Its trade-off function is fL itself: P-only mass l (L = +∞, where fL = 0) and a Q-only atom of mass l "
         "(fL(0) = 1 − l), the δ-floor of notes §2.6. No log_moment: D_α(P‖Q) = ∞ for α > 1 whenever l > 0.",
))


# --- the A0 round: the canonical pair of C_p(G_{1/σ}) (notes §3.3; [2] = Dong–Roth–Su, Thm 5.1 and Def. of C_p) ---

def _a0_parts(p, sigma):
    """(μ, x*, mass of the linear piece) of C_p(G_μ), μ = 1/σ: x* = Φ(−μ/2) the fixed point of G_μ, and the linear
    piece [x*, f_p(x*)] of C_p has P-mass f_p(x*) − x* = (1 − p)(1 − 2x*) (f_p = pG_μ + (1−p)Id, G_μ(x*) = x*)."""
    mu = 1.0 / float(sigma)
    xs = float(_special.ndtr(-mu / 2))
    return mu, xs, (1 - float(p)) * (1 - 2 * xs)


def _log_mix(z, p, mu):
    """log((1−p)φ(z) + pφ(z − μ))."""
    return np.logaddexp(math.log1p(-p) + _norm_logpdf(z, 0.0), math.log(p) + _norm_logpdf(z, mu)) if p < 1 \
        else _norm_logpdf(z, mu)


def _a0_sample(rng, n, p, sigma):
    """Outputs (piece, z): piece 0 (α ≤ x*: z ~ N(0,1) on z ≥ μ/2), 1 (the linear piece, z = 0), 2 (α ≥ f_p(x*):
    z ~ (1−p)N(0,1) + pN(μ,1) on z ≥ μ/2), drawn with the pieces' P-masses x*, (1−p)(1−2x*), the rest."""
    p = float(p)
    mu, xs, lin = _a0_parts(p, sigma)
    m2 = (1 - p) * xs + p * float(_special.ndtr(mu / 2))
    piece = rng.choice(3, size=n, p=np.array([xs, lin, m2]) / (xs + lin + m2))
    half = mu / 2
    z = np.zeros(n)
    i0 = piece == 0
    z[i0] = -_special.ndtri(rng.random(i0.sum()) * xs)  # N(0,1) given z ≥ μ/2: Φ̄(z) uniform on (0, x*)
    i2 = np.flatnonzero(piece == 2)
    shifted = rng.random(i2.size) < p * float(_special.ndtr(mu / 2)) / m2 if m2 > 0 else np.zeros(i2.size, bool)
    tail0 = -_special.ndtri(rng.random(i2.size) * xs)
    tail1 = mu - _special.ndtri(rng.random(i2.size) * float(_special.ndtr(mu / 2)))  # N(μ,1) given z ≥ μ/2
    z[i2] = np.where(shifted, tail1, tail0)
    assert np.all(z[piece != 1] >= half - 1e-12)
    return np.stack([piece.astype(np.float64), z], axis=1)


def _a0_log_dens(o, p, sigma, swap):
    o = np.atleast_2d(np.asarray(o, dtype=np.float64))
    p = float(p)
    mu, _, lin = _a0_parts(p, sigma)
    piece, z = o[:, 0], o[:, 1]
    a, b = _norm_logpdf(z, 0.0), _log_mix(z, p, mu)
    if swap:
        a, b = b, a
    return np.where(piece < 0.5, a, np.where(piece < 1.5, math.log(lin) if lin > 0 else -np.inf, b))


def _a0_log_moment(alpha, p, sigma):
    """log E_Q[(p/q)^α] of the A0 round's canonical pair by quadrature of its own densities (piece 0: P = φ,
    Q = (1−p)φ + pφ_μ on z ≥ μ/2; piece 2 the same swapped; the linear piece's atom cancels: mass (1−p)(1−2x*))."""
    alpha = _witness_order(alpha)
    p = checked_param("p", _A0_RATE, p)
    sigma = checked_param("sigma", NOISE, sigma)
    if alpha in (0, 1):
        return mpf(0)

    def compute():
        a, pp, mu = mpmath.mpf(alpha), mpmath.mpf(p), 1 / mpmath.mpf(sigma)
        lphi = lambda z: -z * z / 2 - mpmath.log(2 * mpmath.pi) / 2
        lmix = lambda z: logsumexp([mpmath.log1p(-pp) + lphi(z), mpmath.log(pp) + lphi(z - mu)]) if pp < 1 \
            else lphi(z - mu)
        from ..base.sgm import witness_log_quad
        half = mu / 2
        hi = half + 40 + 4 * abs(a) * mu
        pts = [half, mu, abs(a) * mu + half, hi] if abs(a) * mu > 0 else [half, hi]
        pts = [x for x in pts if x >= half]
        t0 = witness_log_quad(lambda z: a * lphi(z) + (1 - a) * lmix(z), pts, "bc.a0_round witness", 1)
        t2 = witness_log_quad(lambda z: a * lmix(z) + (1 - a) * lphi(z), pts, "bc.a0_round witness", 1)
        terms = [t0, t2]
        lin = (1 - pp) * (1 - 2 * mpmath.ncdf(-half))
        if lin > 0:
            terms.append(mpmath.log(lin))
        return logsumexp(terms)

    from ..base.sgm import witness_guarded
    return witness_guarded(compute, "bc.a0_round witness", 0)


_A0_RATE = Real(0, 1, lo_open=True, hi_open=False, scale="log", sample_lo=1e-4, sample_hi=1)

register_witness(Witness(
    id="bc.a0_round",
    description="one A0 DP-SGD round, the canonical pair of C_p(G_{1/σ}) (notes §3.3): outputs (piece, z)",
    params=(Param("p", _A0_RATE, "p = sm/N, the fraction of the data a round uses", example="0.1"),
            Param("sigma", NOISE, "noise multiplier σ", example=2)),
    sample=_a0_sample,
    log_p=lambda o, p, sigma: _a0_log_dens(o, p, sigma, swap=False),
    log_q=lambda o, p, sigma: _a0_log_dens(o, p, sigma, swap=True),
    source="seed 002 Table 1 row 1, Thm F.1 [g = 1, IC]; Dong, Roth & Su 2019 (arXiv 1905.02383) Thm 5.1; notes §3.3",
    dominating=True,
    log_moment=_a0_log_moment,
    note="Composed over steps = E·N/(sm) rounds it is the A0 object C_p(G_{1/σ})^{⊗T} of Lemma F.2 as printed "
         "(:func:`a0_use`). No catalogue statement's default is an A0 claim (the text's A0 sentences are printed "
         "variants, refuted: tests/bc/test_bc_witnesses.py), so no statement names it.",
))


def a0_use(p) -> dict:
    """The A0 object C_{sm/N}(G_{1/σ})^{⊗EN/(sm)} of a point of the text's parameters (N, m, E, σ and s = 1 unless
    given): bc.a0_round composed over T = E·N/(sm) rounds."""
    N, m, E = int(p["N"]), int(p["m"]), int(p["E"])
    s = int(p.get("s", 1))
    return {"p": mpf(s * m) / N, "sigma": p["sigma"], "steps": E * (N // (s * m))}


# ---------------------------------------------------------------------------------------------------------------
# Witness uses of the statements (mappings from a statement's parameters to the pair's)

_QE_NAMES = ("sampling", "N", "m", "s", "g", "E", "sigma")


def a1_use(sampling=None, **fixed):
    """A WitnessUse mapping to bc.a1_mixture: the statement's own (sampling, N, m, s, g, E, σ), with the ones the
    statement fixes (a lemma about shuffling, g = 1, individual clipping s = 1, batch clipping m = 1) given here."""
    def mapping(p):
        out = {k: fixed[k] if k in fixed else p[k] for k in _QE_NAMES if k != "sampling"}
        return {"sampling": sampling if sampling is not None else p["sampling"], **out}

    mapping.__doc__ = f"bc.a1_mixture at sampling={sampling or 'the statement’s'}, fixed {fixed or 'nothing'}"
    return mapping


def shuffling_g1_use(p) -> dict:
    """Lemma G.2's object: shuffling with g = 1 puts the sample in exactly one round per epoch, c² = E (notes §2.13),
    i.e. bc.round with k = 1 composed over E rounds."""
    return {"k": 1, "sigma": p["sigma"], "steps": p["E"]}


def fu_use(p) -> dict:
    """bc.fu_pair at the statement's (c_U, u, σ)."""
    return {"c_U": p["c_U"], "u": p["u"], "sigma": p["sigma"]}


def fl_use(p) -> dict:
    """bc.fl_pair at the statement's (c_L, l, σ)."""
    return {"c_L": p["c_L"], "l": p["l"], "sigma": p["sigma"]}


# --- Appendix E's filtered round: k′ ~ Bin(k, ½) kept differentiating subsets, label visible (notes §2.11) ---

def _filtered_law(k):
    k = int(k)
    probs = np.array([math.comb(k, j) for j in range(k + 1)], dtype=np.float64) / 2.0 ** k
    return np.arange(k + 1, dtype=np.float64), probs


def _filtered_sample(rng, n, k, sigma):
    support, probs = _filtered_law(k)
    kp = rng.choice(support, size=n, p=probs)
    return np.stack([kp, kp / float(sigma) + rng.standard_normal(n)], axis=1)


def _filtered_log(o, k, sigma, shifted):
    o = np.atleast_2d(np.asarray(o, dtype=np.float64))
    kp = o[:, 0]
    support, probs = _filtered_law(k)
    idx = np.clip(kp, 0, int(k)).astype(np.int64)
    label = np.where(support[idx] == kp, np.log(probs)[idx], -np.inf)
    return label + _norm_logpdf(o[:, 1], kp / float(sigma) if shifted else 0.0)


def _filtered_log_moment(alpha, k, sigma):
    """log E_Q[(p/q)^α] = log Σ_{k′} C(k, k′) 2^{−k} e^{α(α−1)k′²/(2σ²)} (the label's mass cancels in p/q)."""
    alpha = _witness_order(alpha)
    k = int(checked_param("k", spec.FILTERED_SUBSETS, k))
    sigma = checked_param("sigma", NOISE, sigma)
    tilt = alpha * (alpha - 1) / (2 * sigma * sigma)
    return logsumexp(mpmath.log(math.comb(k, j)) - k * mpmath.log(2) + tilt * j * j for j in range(k + 1))


register_witness(Witness(
    id="bc.filtered_round",
    description="App. E's filtered round: k′ ~ Bin(k, ½), then x ~ N(k′/σ, 1) under P, N(0, 1) under Q; outputs (k′, x)",
    params=(Param("k", spec.FILTERED_SUBSETS, "k, differentiating subsets before filtering", example=2),
            Param("sigma", NOISE, "noise multiplier σ", example=1)),
    sample=_filtered_sample,
    log_p=lambda o, k, sigma: _filtered_log(o, k, sigma, True),
    log_q=lambda o, k, sigma: _filtered_log(o, k, sigma, False),
    source="seed 002 (002_5bf9d068e79d7537.txt) Appendix E; notes batch-clipping-fdp.md §2.11",
    dominating=True,
    log_moment=_filtered_log_moment,
    note="Model A1: which subsets were kept is visible (as the subsets are in Def. 4.2).",
))
