"""Dominating pairs of objective perturbation, seed 003 chapter 4 / App. C (notes objpert-rdp.md §3 M1, M3, M4):

``objpert.c4_6_pair``  the corrected Lemma C.4.6 pair (E4_3): P = |N(0, σ²)| on [0, ∞); Q = an atom at −∞ of mass
                       1 − 2e^{−a}Φ(−L/σ) (= δ(0)) plus the density e^{−a}·2φ_σ(x + L) on [0, ∞). On [0, ∞)
                       log p − log q = a + L²/(2σ²) + Lx/σ², so the privacy loss under P is ω = a + c + v|N(0, 1)|
                       and H_{e^ε}(P‖Q) = δ(ε) of Thm 4.3.1 for every real ε. The same ordered pair dominates both
                       orderings of neighbours (the bound is on |log R|); never (Q, P) (notes M1).
``objpert.c4_3_pair``  the per-instance pair of Lemma C.4.3: Q's density p(x)·e^{−a−c−‖x‖Lx/σ²}, so
                       ω = a + c + (‖x‖L/σ)|N(0, 1)|; ‖x‖ = 1 is the C.4.6 pair.
``objpert.c4_7_pair``  the k-fold product (Lemma C.4.7, Thm C.4.1): outputs in [0, ∞)^k, ω a sum of k i.i.d. copies.
``objpert.alg7_pair``  Algorithm 7 (AMP with clipping, notes M3): the C.4.6 pair with L := C times the Gaussian pair
                       N(2τ/λ, σ_out²) vs N(0, σ_out²) (Thm C.4.1 composition of dominating pairs); outputs (u, w).

Outputs are numpy arrays; the atom at −∞ is the value −inf (log p = −inf there, log q = log Q(−∞)); P never
produces it. ``log_moment`` is log E_Q[(p/q)^α] = log E_P[e^{(α−1)ω}] from the pair's own densities: on the atom
p = 0, so for α > 0 only the continuous part counts, and there (p/q)^{α−1}p integrates the half-normal MGF
E e^{tY} = 2e^{t²/2}Φ(t) (Y ~ |N(0,1)|): log = (α−1)s + (α−1)²w²/2 + log 2Φ((α−1)w), s the constant part and w the
scale of ω (derived here from the densities, not through objpert.thm4_3_2; α ≤ 0 gives +inf for α < 0, and at
α = 0 the same formula, log Q(p > 0)).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from .._normal import log_ndtr
from ..catalogue import Witness, register_witness
from ..domains import Param
from ..precision import checked_param
from . import spec

SOURCE = "seed 003 (003_dabdd6bee088f80a.txt) Lemma C.4.4, Lemma C.4.6 (corrected, E4_3), Lemma C.4.7, Thm 4.4.1; " \
         "notes objpert-rdp.md §3 M1, M3, M4"
_LOG_2PI = math.log(2 * math.pi)

P_SIGMA_OUT = Param("sigma_out", spec.POSITIVE, "σ_out > 0, the output noise of Algorithm 7", example="0.15")
P_C = Param("C", spec.POSITIVE, "C > 0, the clipping norm (the Lipschitz constant of the clipped loss)", example=1.41)
P_TAU = Param("tau", spec.NONNEGATIVE, "τ ≥ 0, the gradient-norm tolerance of the approximate minimiser",
              example="0.01")
P_K_PAIR = Param("k", spec.K_FOLD, "k ≥ 1 composed ObjPert releases", example=2)
_GLM = (spec.P_SIGMA, spec.P_LAM, spec.P_BETA, spec.P_L)


def _jacobian(beta, lam):
    from .glm_bounds import jacobian_term

    return jacobian_term(beta, lam)


def _shape(sigma, lam, beta, L, x_norm=1):
    """(s, w): the pair's PLRV is ω = s + w|N(0,1)|, s = a + L²/(2σ²), w = ‖x‖L/σ (mpmath)."""
    sigma, L = mpf(sigma), mpf(L)
    v = L / sigma
    return _jacobian(beta, lam) + v * v / 2, mpf(x_norm) * v


def _log_2phi(x):
    """log(2Φ(x)), every real x (log1p(erf) near 0)."""
    x = mpf(x)
    if abs(x) < 1:
        return mpmath.log1p(mpmath.erf(x / mpmath.sqrt(2)))
    return mpmath.log(2) + log_ndtr(x)


def _halfnormal_log_moment(alpha, s, w):
    """log E_P[e^{(α−1)ω}], ω = s + wY, Y ~ |N(0,1)| (module docstring); +inf for α < 0."""
    from ..base.sgm import witness_order

    alpha = witness_order(alpha)
    if alpha < 0:
        return mpf("inf")
    if alpha == 1:
        return mpf(0)
    t = alpha - 1
    return t * s + t * t * w * w / 2 + _log_2phi(t * w)


def _log_p(o, sigma):
    """log of the half-normal density 2φ_σ(o) on [0, ∞) (−inf below, the atom included)."""
    o = np.asarray(o, dtype=float)
    s = float(sigma)
    with np.errstate(invalid="ignore"):
        out = math.log(2) - math.log(s) - 0.5 * _LOG_2PI - 0.5 * (o / s) ** 2
    return np.where(o >= 0, out, -np.inf)


def _log_q(o, sigma, lam, beta, L, x_norm=1.0):
    """log q: log p(o) − a − c − ‖x‖Lo/σ² on [0, ∞) (for ‖x‖ = 1: log of e^{−a}·2φ_σ(o + L)); log Q(−∞) at o = −inf."""
    s_mp, w_mp = _shape(sigma, lam, beta, L, x_norm)
    o = np.asarray(o, dtype=float)
    sig = float(sigma)
    atom = float(mpmath.log(-mpmath.expm1(-s_mp + w_mp * w_mp / 2 + _log_2phi(-w_mp))))  # log(1 − 2e^{−s+w²/2}Φ(−w))
    with np.errstate(invalid="ignore"):
        cont = _log_p(o, sigma) - float(s_mp) - float(w_mp) * o / sig
    return np.where(o >= 0, cont, np.where(np.isneginf(o), atom, -np.inf))


def _sample_halfnormal(rng, n, sigma):
    return float(sigma) * np.abs(rng.standard_normal(n))


# -- the corrected Lemma C.4.6 pair ---------------------------------------------------------------------------

register_witness(Witness(
    id="objpert.c4_6_pair",
    description="P = |N(0, σ²)|, Q = δ(0)·δ_{−∞} + e^{−a}·2φ_σ(x + L)1[x ≥ 0] (corrected Lemma C.4.6): "
                "privacy loss a + L²/(2σ²) + Lx/σ²",
    params=_GLM,
    sample=lambda rng, n, sigma, lam, beta, L: _sample_halfnormal(rng, n, sigma),
    log_p=lambda o, sigma, lam, beta, L: _log_p(o, sigma),
    log_q=lambda o, sigma, lam, beta, L: _log_q(o, sigma, lam, beta, L),
    source=SOURCE,
    dominating=True,
    log_moment=lambda alpha, sigma, lam, beta, L: _halfnormal_log_moment(alpha, *_shape(sigma, lam, beta, L)),
    note="Dominating for objpert.thm4_3_1 / thm4_3_2 / lemma_c4_6 (upper bounds on every GLM instance); its own "
         "divergences equal those statements' values. Printed Q (x − L, '2σ') is not a probability measure (E4_3).",
))


register_witness(Witness(
    id="objpert.c4_3_pair",
    description="P = |N(0, σ²)|, Q = atom at −∞ + p(x)e^{−a−c−‖x‖Lx/σ²} (Lemma C.4.3's per-instance pair)",
    params=(*_GLM, spec.P_X_NORM_UNIT),
    sample=lambda rng, n, sigma, lam, beta, L, x_norm: _sample_halfnormal(rng, n, sigma),
    log_p=lambda o, sigma, lam, beta, L, x_norm: _log_p(o, sigma),
    log_q=lambda o, sigma, lam, beta, L, x_norm: _log_q(o, sigma, lam, beta, L, x_norm),
    source=SOURCE,
    dominating=True,
    log_moment=lambda alpha, sigma, lam, beta, L, x_norm: _halfnormal_log_moment(
        alpha, *_shape(sigma, lam, beta, L, checked_param("x_norm", spec.X_NORM_UNIT, x_norm))),
))


# -- k-fold product (Lemma C.4.7) -------------------------------------------------------------------------------

def _k(k):
    return int(checked_param("k", spec.K_FOLD, k))


register_witness(Witness(
    id="objpert.c4_7_pair",
    description="the k-fold product of the corrected Lemma C.4.6 pair (Lemma C.4.7): outputs in [0, ∞)^k",
    params=(*_GLM, P_K_PAIR),
    sample=lambda rng, n, sigma, lam, beta, L, k: float(sigma) * np.abs(rng.standard_normal((n, _k(k)))),
    log_p=lambda o, sigma, lam, beta, L, k: _log_p(o, sigma).sum(axis=-1),
    log_q=lambda o, sigma, lam, beta, L, k: _log_q(o, sigma, lam, beta, L).sum(axis=-1),
    source=SOURCE,
    dominating=True,
    log_moment=lambda alpha, sigma, lam, beta, L, k: _k(k) * _halfnormal_log_moment(
        alpha, *_shape(sigma, lam, beta, L)),
))


# -- Algorithm 7 (AMP with clipping): C.4.6 pair × Gaussian pair (notes M3) ---------------------------------------

def _alg7_shift(tau, lam):
    return 2 * mpf(tau) / mpf(lam)


def _alg7_sample(rng, n, sigma, sigma_out, lam, beta, C, tau):
    u = _sample_halfnormal(rng, n, sigma)
    w = float(_alg7_shift(tau, lam)) + float(sigma_out) * rng.standard_normal(n)
    return np.stack([u, w], axis=-1)


def _gauss_log(w, mean, s):
    s = float(s)
    return -0.5 * ((np.asarray(w) - mean) / s) ** 2 - math.log(s) - 0.5 * _LOG_2PI


def _alg7_log_p(o, sigma, sigma_out, lam, beta, C, tau):
    o = np.asarray(o, dtype=float)
    return _log_p(o[..., 0], sigma) + _gauss_log(o[..., 1], float(_alg7_shift(tau, lam)), sigma_out)


def _alg7_log_q(o, sigma, sigma_out, lam, beta, C, tau):
    o = np.asarray(o, dtype=float)
    return _log_q(o[..., 0], sigma, lam, beta, C) + _gauss_log(o[..., 1], 0.0, sigma_out)


def _alg7_log_moment(alpha, sigma, sigma_out, lam, beta, C, tau):
    """The sum of the two factors' log moments (a product pair): the half-normal part (module docstring, L := C) and
    the Gaussian pair's α(α−1)Δ²/(2σ_out²), Δ = 2τ/λ (Gaussian MGF)."""
    from ..base.sgm import witness_order

    alpha = witness_order(alpha)
    first = _halfnormal_log_moment(alpha, *_shape(sigma, lam, beta, C))
    delta = _alg7_shift(tau, lam)
    return first + alpha * (alpha - 1) * delta * delta / (2 * mpf(sigma_out) ** 2)


register_witness(Witness(
    id="objpert.alg7_pair",
    description="Algorithm 7 (AMP): (|N(0,σ²)| × N(2τ/λ, σ_out²), Q_{C.4.6, L:=C} × N(0, σ_out²)) (notes M3)",
    params=(spec.P_SIGMA, P_SIGMA_OUT, spec.P_LAM, spec.P_BETA, P_C, P_TAU),
    sample=_alg7_sample,
    log_p=_alg7_log_p,
    log_q=_alg7_log_q,
    source=SOURCE + "; Thm C.4.1 (Zhu, Dong & Wang 2022: products of dominating pairs dominate the composition)",
    dominating=True,
    log_moment=_alg7_log_moment,
    note="For objpert.thm4_4_1 (Algorithm 7's RDP; registered in reference/objpert/amp.py): its WitnessUse maps the "
         "statement's (sigma, sigma_out, lam, beta, C, tau) one to one. The PLD version of Thm 4.4.1 is asserted "
         "'straightforward' in the text (line 9525), not proved: the pair is Thm C.4.1 applied to the two pairs.",
))
