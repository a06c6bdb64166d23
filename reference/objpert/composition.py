"""k-fold composition of objective perturbation, seed 003 Lemma C.4.7 (notes objpert-rdp.md §2.3, §3 M4, §5.2 F):
with ω_i i.i.d. ~ a + c + v|N(0, 1)| (the PLRV of the corrected Lemma C.4.6 pair; products of dominating pairs
dominate adaptive compositions, Thm C.4.1 = Zhu, Dong & Wang 2022),

    δ_k(ε) = E_{s ~ ω_1 + … + ω_k}[1 − e^{ε − s}]₊.

Reference routes:
* k = 1: the closed form of Thm 4.3.1 (:func:`dpspec.reference.objpert.glm_bounds.objpert_delta`);
* k = 2: one-dimensional quadrature over the law of Y_1 + Y_2 (density (2/√π)e^{−s²/4}erf(s/2), :func:`_two_fold`),
  split beyond the kink; for e = ε − 2(a+c) ≤ 0 the closed form 1 − e^{e}(2e^{v²/2}Φ(−v))²;
* k ≥ 3: the PLD sandwich of reference/base/pld.py through its public ``composed(pair, grid_step, steps, side)``
  and ``pmf_delta`` (connect-the-dots upper side, lowered-dots lower side, fixed-point exact composition):
  :class:`ObjPertPair` has base.pld's pair interface (``key()``, ``buckets(step)``); its buckets
  (:func:`objpert_buckets`) hold the P- and Q-masses of the loss buckets (ε_k, ε_{k+1}] in closed form
  (P: 2[Φ(−y_k) − Φ(−y_{k+1})], Q: 2e^{−s+w²/2}[Φ(−y_k − w) − Φ(−y_{k+1} − w)], y_k = (ε_k − s)/w clipped at 0) and
  the Q atom at −∞ below the grid. The upper side is a rigorous upper bound for every grid step (DGKKM22), the lower
  side a rigorous lower bound; the statement returns the upper.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from .._normal import ndtr
from ..base.pld import LOCAL_GUARD_DPS, TAIL_BITS, Buckets, composed, pmf_delta
from ..catalogue import Privacy, Source, Statement, Value, WitnessUse, register
from ..errors import DomainError, ParameterError, PrecisionError
from ..precision import self_checked
from . import spec
from ..base.gaussian import log_delta_at
from .glm_bounds import (LAM_ABOVE_BETA, _constants, _exp_log, _far_tail_guarded, _log_2phi_neg, _tail_size,
                         halfnormal_profile, objpert_delta)

GRID_PER_SCALE = 50  # default grid step D = v/50 (loss units) for k ≥ 3
MAX_BUCKETS = 20000


# ---------------------------------------------------------------------------------------------------------------
# k = 2: quadrature

def _two_fold(eps, a, c, v):
    """δ_2(ε) (module docstring): S = Y_1 + Y_2 (two half-normals) has the density
    f_S(s) = ∫_0^s 2φ(y)·2φ(s − y) dy = (2/√π) e^{−s²/4} erf(s/2) (complete the square: y² + (s−y)² =
    s²/2 + 2(y − s/2)²), so δ_2(ε) = ∫_{s*}^∞ f_S(s)(1 − e^{e − vs}) ds, e = ε − 2(a + c), s* = e/v; mpmath.quad split
    at s* + h(2^j − 1), h = 1/(4(1 + s*)) (the integrand's scale beyond the kink). For e ≤ 0 the closed form
    1 − e^{e}(2e^{v²/2}Φ(−v))² (the two factors independent)."""
    s = a + c
    e = mpf(eps) - 2 * s
    log_mgf_neg = v * v / 2 + _log_2phi_neg(v)  # log E e^{−vY}, Y ~ |N(0,1)|
    if e <= 0:
        return -mpmath.expm1(e + 2 * log_mgf_neg)
    sstar = e / v
    # erf = 1 − erfc: the "1" part in closed form, 4[Φ(−s*/√2) − e^{e+v²}Φ(−(s*+2v)/√2)] (complete the square in
    # e^{−s²/4 − vs}), i.e. 4·δ_{N(μ,1)‖N(0,1)} with μ = √2 v at the ε whose Gaussian "a" is −s*/√2 (base.gaussian's
    # log_delta_at, stable in the far tail); the erfc part by quadrature — relatively e^{−s*²/4} smaller, so its
    # quadrature error is negligible where δ_2 is tiny
    mu = mpmath.sqrt(2) * v
    closed = 4 * _exp_log(lambda: log_delta_at(-sstar / mpmath.sqrt(2), mu))
    h = 1 / (4 * (1 + sstar))
    pts = [sstar + h * (2**j - 1) for j in range(16)] + [mpf("inf")]
    k = 2 / mpmath.sqrt(mpmath.pi)
    rest = mpmath.quad(lambda x: k * mpmath.exp(-x * x / 4) * mpmath.erfc(x / 2) * -mpmath.expm1(e - v * x), pts)
    return closed - rest


# ---------------------------------------------------------------------------------------------------------------
# k ≥ 3: the PLD sandwich with base.pld's generic machinery

def _nonnegative_bucket(value, what):
    """A_k or C_k: each is the P-expectation of a non-negative function over its bucket ((1 − e^{ε_k − ω}) resp.
    (e^{ε_{k+1} − ω} − 1) on ε_k < ω ≤ ε_{k+1}), relatively of order D (the grid step) and formed with
    LOCAL_GUARD_DPS + 10 extra digits, so a negative value is a precision failure, never clipped."""
    if value < 0:
        raise PrecisionError(f"objpert PLD buckets: {what} = {mpmath.nstr(value, 5)} < 0 (grid step too small for "
                             f"the working precision)")
    return value


def objpert_buckets(a, c, v, step, x_norm=1) -> Buckets:
    """The ObjPert pair (PLRV ω = s + wY, s = a + c, w = ‖x‖v, Y ~ |N(0,1)|) on the loss grid ε_k = kD (base.pld
    :class:`Buckets`): k0 = ⌊s/D⌋ (no P-mass at or below it), k1 the first k with P(ω > kD) = 2Φ(−y_k) ≤ 2^−TAIL_BITS;
    masses at LOCAL_GUARD_DPS + 10 more digits (A_k, C_k lose log10(1/D) digits to cancellation)."""
    s, w, step = mpf(a) + mpf(c), mpf(x_norm) * mpf(v), mpf(step)
    if not w > 0:
        raise ParameterError("objpert_buckets: the PLRV scale w = ‖x‖L/σ must be > 0")
    with mp.workdps(20):
        y_tail = mpf(1)
        while 2 * ndtr(-y_tail) > mpf(2) ** -TAIL_BITS:
            y_tail += 1
        k0 = int(mpmath.floor(s / step))
        k1 = int(mpmath.ceil((s + w * y_tail) / step))
    if k1 - k0 + 1 > MAX_BUCKETS:
        raise ParameterError(f"PLD grid of {k1 - k0 + 1} points (grid_step={float(step)}, v={float(w)}) exceeds "
                             f"{MAX_BUCKETS}")
    with mp.workdps(mp.dps + LOCAL_GUARD_DPS + 10):
        s, w, step = +s, +w, +step
        ys = [max(mpf(0), (k * step - s) / w) for k in range(k0, k1 + 1)]
        tail_p = [2 * ndtr(-y) for y in ys]  # P(ω > ε_k)
        q_scale = 2 * mpmath.exp(-s + w * w / 2)
        tail_q = [q_scale * ndtr(-y - w) for y in ys]  # Q(ω > ε_k) (continuous part)
        xs = [mpmath.exp(k * step) for k in range(k0, k1 + 1)]
        P, Q, A, C = [], [], [], []
        for i in range(k1 - k0):
            p, q = tail_p[i] - tail_p[i + 1], tail_q[i] - tail_q[i + 1]
            P.append(p)
            Q.append(q)
            A.append(_nonnegative_bucket(p - xs[i] * q, "A_k"))
            C.append(_nonnegative_bucket(xs[i + 1] * q - p, "C_k"))
        q_atom = -mpmath.expm1(-s + w * w / 2 + _log_2phi_neg(w))
        delta_top = halfnormal_profile(k1 * step - s, w)
        b = Buckets(k0, k1, step, P, Q, A, C, mpf(0), q_atom, tail_p[-1], tail_q[-1], mpf(0), delta_top)
    return b


class ObjPertPair:
    """The corrected Lemma C.4.6 dominating pair (per-instance at ‖x‖ = x_norm, Lemma C.4.3) with the interface of
    base.pld's :class:`~dpspec.reference.base.pld.SgmPair` (``key()``, ``buckets(step)``), so base.pld's public
    :func:`~dpspec.reference.base.pld.composed` composes it and caches the result. One pair serves both orderings of
    neighbours (notes objpert-rdp.md M1)."""

    def __init__(self, sigma, lam, beta, L, x_norm=1):
        self.sigma, self.lam, self.beta, self.L, self.x_norm = (mpf(x) for x in (sigma, lam, beta, L, x_norm))
        self.p_inf = mpf(0)  # the loss is finite P-almost surely (the atom at −∞ is Q's)

    def key(self):
        return ("objpert", self.sigma, self.lam, self.beta, self.L, self.x_norm)

    def buckets(self, step) -> Buckets:
        """:func:`objpert_buckets` with a, c, v formed from the exact inputs at the guarded precision."""
        with mp.workdps(mp.dps + LOCAL_GUARD_DPS + 10):
            a, c, v = _constants(self.sigma, self.lam, self.beta, self.L)
        return objpert_buckets(a, c, v, step, self.x_norm)


def composed_pmf(sigma, lam, beta, L, k, step, side):
    """The ``side`` ("upper" or "lower") PMF of k composed ObjPert pairs on the grid of step D: base.pld's
    :func:`~dpspec.reference.base.pld.composed` (cached there per pair, step, k, side and working precision)."""
    return composed(ObjPertPair(sigma, lam, beta, L), mpf(step), int(k), side)


def composed_delta_sandwich(eps, sigma, lam, beta, L, k, grid_step=None):
    """(lower, upper) bounds on δ_k(ε) from the PLD sandwich (module docstring); grid step D (default v/50)."""
    _, _, v = _constants(sigma, lam, beta, L)
    step = mpf(grid_step) if grid_step is not None else v / GRID_PER_SCALE
    lo = pmf_delta(composed_pmf(sigma, lam, beta, L, k, step, "lower"), eps)
    hi = pmf_delta(composed_pmf(sigma, lam, beta, L, k, step, "upper"), eps)
    return lo, hi


def composed_delta(eps, sigma, lam, beta, L, k, grid_step=None):
    """δ_k(ε) of seed 003 Lemma C.4.7 (module docstring): exact for k = 1 (closed form) and k = 2 (quadrature), the
    PLD sandwich's upper side for k ≥ 3 (a rigorous upper bound on the exact δ_k; grid step D = v/50 by default:
    within 1e-3 relative of notes §5.2 F's k = 3, 4 rows, sandwich width ≤ 3e-3 relative there, see tests)."""
    k = int(k)
    if k < 1:
        raise DomainError("k", k, "[1, inf)")
    if k == 1:
        return objpert_delta(eps, sigma, lam, beta, L)
    if k == 2:
        # a, c, v formed inside the guarded precision (far in the tail log δ_2 ≈ −(e/v)²/4 would otherwise carry the
        # inputs' rounding times (e/v)²: PrecisionError at δ_2 ≈ 1e-470751303)
        return _far_tail_guarded(lambda: _two_fold(eps, *_constants(sigma, lam, beta, L)),
                                 _tail_size(eps, sigma, lam, beta, L, k=2))
    return composed_delta_sandwich(eps, sigma, lam, beta, L, k, grid_step)[1]


@self_checked
def lemma_c4_7(eps, sigma, lam, beta, L, k):
    """seed 003 Lemma C.4.7: δ(ε) of the k-fold adaptive composition of ObjPert — :func:`composed_delta`."""
    return composed_delta(eps, sigma, lam, beta, L, k)


register(Statement(
    id="objpert.lemma_c4_7",
    source=Source(spec.SEED, "Lemma C.4.7", "k-fold composition of ObjPert through its dominating pair (PLD)"),
    kind="profile",
    claim="upper",
    value=Value("delta", "eps"),
    summary="δ_k(ε) = E_{s~ω_1+…+ω_k}[1 − e^{ε−s}]₊, ω_i i.i.d. a + c + (L/σ)|N(0,1)|",
    params=(spec.P_EPS, spec.P_SIGMA, spec.P_LAM, spec.P_BETA, spec.P_L, spec.P_K),
    conditions=(LAM_ABOVE_BETA,),
    reference=lemma_c4_7,
    witnesses=(WitnessUse("objpert.c4_7_pair", {"sigma": "sigma", "lam": "lam", "beta": "beta", "L": "L", "k": "k"},
                          "the k-fold product of the Lemma C.4.6 pair: its hockey-stick divergence is δ_k exactly"),),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": -1, "sigma": -1, "L": +1, "k": +1},
    note="The text cites 'Thm. 4.2.4' for Lemma 4.2.4 (E4_19 label). k = 1 is objpert.thm4_3_1; k = 2 exact by "
         "quadrature; k ≥ 3 the upper side of base.pld's connect-the-dots sandwich (DGKKM22) on the ObjPert pair's "
         "buckets at D = L/(50σ) — a rigorous upper bound (the lower side is composed_delta_sandwich). Notes §5.2 F "
         "(Fig C.2) reproduced in tests.",
))

_ = (ndtr,)
