"""The privacy-loss-distribution (PLD) sandwich, reference side: T-fold composition of the Poisson-subsampled
Gaussian (and of pure ε₀-DP randomized response) bounded from above and below on a loss grid, with exact
(direct) convolution. The oracle the torch FFT accountant (fast/base/pld.py) is checked against.

The construction is docs/pld.md (shared with the fast path):

* one step is a dominating pair (P, Q) given by its privacy loss L = log dP/dQ (:class:`SgmPair`:
  remove P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²); add: the pair swapped; q = 1 is the Gaussian;
  :class:`RandomizedResponsePair`: P = (e^ε₀, 1)/(1+e^ε₀) on losses (+ε₀, −ε₀));
* UPPER: "connect the dots" (Doroshenko, Ghazi, Kamath, Kumar, Manurangsi, PETS 2022, arXiv 2207.04380, §3):
  each bucket (ε_k, ε_{k+1}] of the grid ε_k = kD is split into atoms at its two ends keeping its P- and Q-mass,
  so the discrete δ interpolates δ(e^{ε_k}) linearly in x = e^ε; chords of the convex δ lie above it, so the
  discrete pair dominates (P, Q) and domination survives composition (Dong, Roth & Su 2022, Lemma C.1);
* LOWER: the dots are lowered by g_k = max(G_{k−1}, G_k), G_k = A_k C_k/(A_k + C_k) (the height of the triangle
  between the chord and the two tangents), so every chord lies below δ; the curve is then made the profile of a pair
  dominated by (P, Q) in every case, ψ = max(GCM(lowered polyline with end tangents), 1 − x, P_inf), with its
  off-grid kinks rounded down (:func:`lower_pmf`: the spec's closed-form masses where they are clean);
* T-fold composition by repeated squaring with exact integer convolution (:func:`compose`), δ(ε) and ε(δ) of
  the composed PMF (:func:`pmf_delta`, :func:`pmf_epsilon`); add/remove: both directions, the max.

Numbers. One-step masses are mpmath values at the working precision (LOCAL_GUARD_DPS more digits inside). The
composition holds masses as integers in units of 2^−F (:func:`fixed_bits`: F ≥ mp.prec + 256, a multiple of 256, at
least 512, so both passes of the two-precision self-check use the same F at the default 50 digits), rounded UP for
the upper PMF and DOWN for the lower one, and multiplies them exactly (Kronecker substitution into one decimal
integer per PMF: the same sums as the O(n²) direct convolution, no FFT rounding; :func:`direct_convolution` is the
plain double loop the tests compare it with). After each product the two ends are trimmed where their cumulative mass is ≤ 2^−TAIL_BITS: upper — left
end rounded up to the first kept loss, right end moved to +∞; lower — left end dropped (rounded down to −∞), right
end rounded down to the last kept loss. Both keep the side's direction, so the sandwich stays rigorous.

Grid ends of one step (:meth:`SgmPair.grid_range`): ε_{k0} at the lower end of the support (remove: log(1−q)) or
the largest grid point with P(L ≤ ε_{k0}) ≤ 2^−TAIL_BITS; ε_{k1} at the upper end (add: −log(1−q)) or the smallest
with P(L > ε_{k1}) ≤ 2^−TAIL_BITS. The grid ends are chosen at 20 digits from the exact parameters, so both passes
of the two-precision self-check see the same grid.
"""
from __future__ import annotations

import decimal
import functools
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

from .._normal import ndtr
from ..catalogue import Privacy, Source, Statement, Value, WitnessUse, register
from ..domains import EPS, SAMPLING_RATE, Param
from ..errors import ParameterError, PrecisionError
from ..precision import checked_param as _arg, self_checked
from .gaussian import _exact_difference, delta_shift

DGKKM22 = ("Doroshenko, Ghazi, Kamath, Kumar & Manurangsi, Connect the Dots: Tighter Discrete Approximations of "
           "Privacy Loss Distributions, PETS 2022 (arXiv 2207.04380)")

TAIL_BITS = 200  # grid ends and composition trimming: tails of mass ≤ 2^-200 ≈ 6e-61
FIXED_GUARD_BITS = 256  # fixed-point masses carry at least this many bits beyond the working precision
FIXED_MIN_BITS = 512  # and at least this many in all (a multiple of 256 above it)
LOCAL_GUARD_DPS = 5  # digits added for the one-step masses (differences of normal tails)
MAX_GRID_POINTS = 20000  # one step's grid (a bound on the work; the domains below stay far inside it)
MAX_COMPOSED_POINTS = 200000  # a composed PMF after trimming

# Domains of the catalogue statements (reference/base/spec.py, shared with the fast path) bound the reference's work
# (one-step grid ~ (1/σ² + 33/σ)/D points, the composed support ~ √T times wider): at the worst corner (q = 1,
# σ = 0.5, T = 64, D = 1/8) one evaluation with its two-precision self-check takes about 2.4 s on 2 cores.
from .spec import PLD_DELTA, PLD_GRID_STEP, PLD_NOISE, PLD_STEPS  # noqa: E402
PLD_DIRECTIONS = ("remove", "add")


# ---------------------------------------------------------------------------------------------------------------
# One step: the loss distribution of a dominating pair

def _normal_info(z):
    """(z, Φ(z), Φ(−z)) of a standardised point (±inf allowed): the smaller tail Φ(−|z|) from one erfc
    (reference/_normal.py, accurate far into the tail), the larger as 1 minus it (only ever used across 0)."""
    if mpmath.isinf(z):
        return (z, mpf(1), mpf(0)) if z > 0 else (z, mpf(0), mpf(1))
    small = ndtr(-abs(z))
    return (z, 1 - small, small) if z >= 0 else (z, small, 1 - small)


def _normal_mass(lo, hi):
    """Φ(hi) − Φ(lo) for two :func:`_normal_info` points lo ≤ hi: a difference of the two upper tails where
    lo ≥ 0, of the two lower tails where hi ≤ 0 (each tail to full relative precision; the difference of two tails
    of ratio r loses log10(1/(1 − r)) digits, covered by LOCAL_GUARD_DPS on this grid), and a sum of two erf terms
    across 0."""
    if not lo[0] < hi[0]:
        return mpf(0)
    if lo[0] >= 0:
        return lo[2] - hi[2]
    if hi[0] <= 0:
        return hi[1] - lo[1]
    root2 = mpmath.sqrt(2)
    return (mpmath.erf(hi[0] / root2) + mpmath.erf(-lo[0] / root2)) / 2


def _nonnegative(value, scale, what: str):
    """``value`` where it is ≥ 0; 0 where it is negative by rounding only (|value| ≤ 2^(20−prec)·scale, a
    difference of two terms of size ``scale`` that is 0 or positive in exact arithmetic); PrecisionError beyond."""
    if value >= 0:
        return value
    if -value <= mpf(2) ** (20 - mp.prec) * scale:
        return mpf(0)
    raise PrecisionError(f"PLD reference: {what} = {mpmath.nstr(value, 5)} < 0 beyond rounding (scale "
                         f"{mpmath.nstr(scale, 5)})")


@dataclass(frozen=True)
class Buckets:
    """One step on the grid ε_k = kD, k = k0..k1: P_k, Q_k of the buckets (ε_k, ε_{k+1}] (lists of length
    k1 − k0), A_k = P_k − x_k Q_k, C_k = x_{k+1} Q_k − P_k, the tails P_lo = P(L ≤ ε_{k0}), Q_lo,
    P_hi = P(ε_{k1} < L < ∞), Q_hi, P_inf = P(L = ∞), and delta_top = δ(ε_{k1}) = P_hi + P_inf − x_{k1} Q_hi
    (each computed without cancellation, see the pairs)."""

    k0: int
    k1: int
    step: mpf
    P: list
    Q: list
    A: list
    C: list
    p_lo: mpf
    q_lo: mpf
    p_hi: mpf
    q_hi: mpf
    p_inf: mpf
    delta_top: mpf

    @property
    def x(self) -> list:
        return [mpmath.exp(k * self.step) for k in range(self.k0, self.k1 + 1)]


class SgmPair:
    """One step of the Poisson-subsampled Gaussian mechanism (sensitivity 1, noise σ, rate q), Mironov, Talwar &
    Zhang 2019 (arXiv 1908.10530) §3; Zhu, Dong & Wang 2022 (the add/remove pair of Poisson subsampling):

        remove: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²),  L(o) = log(1 − q + q e^{(2o−1)/(2σ²)}) (increasing in o);
        add:    P = N(0,σ²), Q = the mixture,              L(o) = −log(1 − q + q e^{(2o−1)/(2σ²)}) (decreasing).

    The loss exceeds l iff o passes the threshold t(l) = σ² log((e^{±l} − (1−q))/q) + 1/2, so every probability of
    the loss is a normal probability of o. q = 1 (the Gaussian mechanism) has one direction: both pairs give
    L ~ N(1/(2σ²), 1/σ²) under P."""

    def __init__(self, q, sigma, direction: str):
        if direction not in PLD_DIRECTIONS:
            raise ParameterError(f"direction={direction!r}: one of {PLD_DIRECTIONS}")
        self.q, self.sigma = mpf(q), mpf(sigma)
        self.direction = "remove" if self.q == 1 else direction
        self.p_inf = mpf(0)
        self._cache = {}

    # -- the threshold on o ----------------------------------------------------------------------------------
    @property
    def support(self):
        """(lo, hi): the finite losses lie in [lo, hi] (log(1−q) below for remove, −log(1−q) above for add)."""
        if self.q == 1:
            return mpf("-inf"), mpf("inf")
        edge = mpmath.log1p(-self.q)
        return (edge, mpf("inf")) if self.direction == "remove" else (mpf("-inf"), -edge)

    def _constants(self):
        """(log(1 − q), log q) at the current precision (cached per precision)."""
        key = mp.prec
        if key not in self._cache:
            self._cache[key] = (mpmath.log1p(-self.q), mpmath.log(self.q))
        return self._cache[key]

    def _gauss_eps(self, signed_l):
        """log((e^{s} − (1 − q))/q) for s = ±l, or None where e^{s} ≤ 1 − q (no o passes). The difference
        d = s − log(1−q) is re-formed from the exact inputs with more digits (:func:`_exact_difference`) where it
        cancels (a grid point near the end of the support)."""
        if self.q == 1:
            return signed_l()
        log1mq, logq = self._constants()
        s = signed_l()
        d = s - log1mq
        if abs(d) <= mpf(2) ** (-mp.prec // 2) * (abs(s) + abs(log1mq)):
            d = _exact_difference(signed_l, lambda: mpmath.log1p(-self.q))
        if d <= 0:
            return None
        return log1mq + _log_expm1(d) - logq

    def threshold(self, l_fn):
        """t(l) with l = l_fn() (a function, so the difference to log(1−q) can be re-formed at more digits):
        remove: L > l iff o > t; add: L > l iff o < t. ±inf at the ends of the support."""
        l = l_fn()
        if mpmath.isinf(l):
            return l if self.direction == "remove" else -l
        sign = 1 if self.direction == "remove" else -1
        e = self._gauss_eps(lambda: sign * l_fn())
        if e is None:
            return mpf("-inf")
        return self.sigma**2 * e + mpf(1) / 2

    def _components(self, t):
        """Normal info of o = t under N(0,σ²) and N(1,σ²)."""
        if mpmath.isinf(t):
            return _normal_info(t), _normal_info(t)
        return _normal_info(t / self.sigma), _normal_info((t - 1) / self.sigma)

    def _masses(self, lo_info, hi_info):
        """(P, Q) of o in (lo, hi) from the normal infos of its ends."""
        n0 = _normal_mass(lo_info[0], hi_info[0])
        n1 = _normal_mass(lo_info[1], hi_info[1])
        mix = n1 if self.q == 1 else (1 - self.q) * n0 + self.q * n1
        return (mix, n0) if self.direction == "remove" else (n0, mix)

    def interval(self, a_fn, b_fn):
        """(P(a < L ≤ b), Q(a < L ≤ b)) for finite losses (a, b from functions; ±inf allowed)."""
        ta, tb = self.threshold(a_fn), self.threshold(b_fn)
        lo, hi = (ta, tb) if self.direction == "remove" else (tb, ta)
        return self._masses(self._components(lo), self._components(hi))

    def tail_p(self, l):
        """P(L > l) (at the current precision; used to place the grid ends)."""
        return self.interval(lambda: mpf(l), lambda: mpf("inf"))[0]

    def head_p(self, l):
        """P(L ≤ l)."""
        return self.interval(lambda: mpf("-inf"), lambda: mpf(l))[0]

    def hockey_stick(self, l_fn):
        """δ(l) = P(L > l) − e^l Q(L > l) for l ≥ 0, through the Gaussian profile δ_G of N(1, σ²) vs N(0, σ²)
        (base.gaussian_profile, Balle & Wang 2018 Thm 8, evaluated without cancellation by delta_shift):
        remove δ(l) = q·δ_G(ε'), ε' = log((e^l − 1 + q)/q) (Balle, Barthe & Gaboardi 2018, amplification by
        subsampling, tight for this pair); add δ(l) = e^l q e^{−ε''} δ_G(ε''), ε'' = −log((e^{−l} − 1 + q)/q), 0 for
        l ≥ −log(1−q). (Derived by writing e^{±l} − (1−q) = q e^{(2t−1)/(2σ²)} at the threshold t.)"""
        l = l_fn()
        if l < 0:
            raise ParameterError("hockey_stick: the closed form is written for l ≥ 0")
        if self.direction == "remove":
            e = self._gauss_eps(l_fn)
            return self.q * delta_shift(e, sigma=self.sigma)
        e = self._gauss_eps(lambda: -l_fn())
        if e is None:
            return mpf(0)
        return self.q * mpmath.exp(l + e) * delta_shift(-e, sigma=self.sigma)

    # -- the grid --------------------------------------------------------------------------------------------
    def grid_range(self, step):
        """(k0, k1) (module docstring), chosen at 20 digits from the exact q, σ, D."""
        with mp.workdps(20):
            tail = mpf(2) ** -TAIL_BITS
            lo, hi = self.support
            up = _first_int(lambda k: self.tail_p(k * step) <= tail, 1)
            down = -_first_int(lambda k: self.head_p(-k * step) <= tail, 0)  # largest k ≤ 0 with P(L ≤ kD) ≤ τ
            k1 = up if mpmath.isinf(hi) else min(up, int(mpmath.ceil(hi / step)))
            k0 = down if mpmath.isinf(lo) else max(down, int(mpmath.floor(lo / step)))
        if k1 - k0 + 1 > MAX_GRID_POINTS:
            raise ParameterError(f"PLD grid of {k1 - k0 + 1} points at q={float(self.q)}, sigma={float(self.sigma)}, "
                                 f"grid_step={float(step)} exceeds {MAX_GRID_POINTS}")
        return k0, k1

    def buckets(self, step) -> Buckets:
        """The step on its grid (:class:`Buckets`), at LOCAL_GUARD_DPS more digits."""
        k0, k1 = self.grid_range(step)
        with mp.workdps(mp.dps + LOCAL_GUARD_DPS):
            step = +step
            ts = [self.threshold(lambda k=k: k * step) for k in range(k0, k1 + 1)]
            infos = [self._components(t) for t in ts]
            xs = [mpmath.exp(k * step) for k in range(k0, k1 + 1)]
            lo_end, hi_end = self._components(mpf("-inf")), self._components(mpf("inf"))
            if self.direction == "add":
                lo_end, hi_end = hi_end, lo_end
            P, Q, A, C = [], [], [], []
            for i in range(k1 - k0):
                lo, hi = (infos[i], infos[i + 1]) if self.direction == "remove" else (infos[i + 1], infos[i])
                p, qq = self._masses(lo, hi)
                x0, x1 = xs[i], xs[i + 1]
                P.append(p)
                Q.append(qq)
                A.append(_nonnegative(p - x0 * qq, p, "A_k"))
                C.append(_nonnegative(x1 * qq - p, p, "C_k"))
            lo_pair = (lo_end, infos[0]) if self.direction == "remove" else (infos[0], lo_end)
            hi_pair = (infos[-1], hi_end) if self.direction == "remove" else (hi_end, infos[-1])
            p_lo, q_lo = self._masses(*lo_pair)
            p_hi, q_hi = self._masses(*hi_pair)
            delta_top = self.hockey_stick(lambda: k1 * step)
        return Buckets(k0, k1, step, P, Q, A, C, p_lo, q_lo, p_hi, q_hi, self.p_inf, delta_top)

    def key(self):
        return ("sgm", self.q, self.sigma, self.direction)


class RandomizedResponsePair:
    """Pure ε₀-DP randomized response, the dominating pair of every ε₀-DP mechanism (Kairouz, Oh & Viswanath 2015,
    §3 with δ = 0): P = (e^ε₀, 1)/(1 + e^ε₀), Q = (1, e^ε₀)/(1 + e^ε₀) on two outcomes, losses +ε₀ and −ε₀."""

    def __init__(self, eps0):
        self.eps0 = mpf(eps0)
        if not self.eps0 > 0:
            raise ParameterError(f"eps0={self.eps0}: randomized response needs ε₀ > 0")
        self.p_inf = mpf(0)

    def _atoms(self):
        """[(loss, P-mass)]: P(L = ε₀) = 1/(1 + e^{−ε₀}), P(L = −ε₀) = 1/(1 + e^{ε₀})."""
        e = self.eps0
        return [(-e, 1 / (1 + mpmath.exp(e))), (e, 1 / (1 + mpmath.exp(-e)))]

    def grid_range(self, step):
        """ε_{k0} < −ε₀ (no left tail) and ε_{k1} ≥ ε₀ (no right tail), compared at the working precision."""
        k0, k1 = int(mpmath.floor(-self.eps0 / step)), int(mpmath.ceil(self.eps0 / step))
        while k0 * step >= -self.eps0:
            k0 -= 1
        while k1 * step < self.eps0:
            k1 += 1
        return k0, k1

    def buckets(self, step) -> Buckets:
        """Atom by atom: an atom of P-mass p at loss l in (ε_k, ε_{k+1}] has Q-mass p e^{−l},
        A = p(1 − e^{ε_k − l}) = −p·expm1(ε_k − l) and C = p·expm1(ε_{k+1} − l), both without cancellation; an atom
        at or below ε_{k0} is the left tail, one above ε_{k1} the right tail."""
        k0, k1 = self.grid_range(step)
        n = k1 - k0
        P, Q, A, C = ([mpf(0)] * n for _ in range(4))
        p_lo = q_lo = p_hi = q_hi = mpf(0)
        for loss, p in self._atoms():
            if loss <= k0 * step:
                p_lo, q_lo = p_lo + p, q_lo + p * mpmath.exp(-loss)
                continue
            if loss > k1 * step:
                p_hi, q_hi = p_hi + p, q_hi + p * mpmath.exp(-loss)
                continue
            i = next(i for i in range(n) if (k0 + i + 1) * step >= loss)  # (ε_{k0+i}, ε_{k0+i+1}] holds the loss
            P[i] += p
            Q[i] += p * mpmath.exp(-loss)
            A[i] += -p * mpmath.expm1((k0 + i) * step - loss)
            C[i] += p * mpmath.expm1((k0 + i + 1) * step - loss)
        return Buckets(k0, k1, step, P, Q, A, C, p_lo, q_lo, p_hi, q_hi, self.p_inf,
                       self.hockey_stick(lambda: k1 * step))

    def hockey_stick(self, l_fn):
        l = l_fn()
        return mpmath.fsum(p * -mpmath.expm1(l - loss) for loss, p in self._atoms() if loss > l)

    def key(self):
        return ("rr", self.eps0)


def _log_expm1(d):
    """log(e^d − 1) for d > 0."""
    return d + mpmath.log(-mpmath.expm1(-d)) if d > 1 else mpmath.log(mpmath.expm1(d))


def _first_int(holds, start: int) -> int:
    """The smallest integer k ≥ start with holds(k), for a predicate false then true (doubling, then bisection)."""
    if holds(start):
        return start
    lo, width = start, 1
    while not holds(lo + width):
        lo, width = lo + width, width * 2
        if width > 10**7:
            raise ParameterError("PLD grid: the tail does not fall below 2^-TAIL_BITS within 10^7 grid steps")
    hi = lo + width
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if holds(mid) else (mid, hi)
    return hi


# ---------------------------------------------------------------------------------------------------------------
# One step on the grid: the upper and lower PMFs (mpmath masses)

@dataclass(frozen=True)
class Pmf:
    """Masses at the losses (start + i)·step, i = 0..len(masses)−1, plus m_inf at +∞; ``dropped`` is the mass
    rounded down to −∞ (lower side; 0 for upper). mpmath values (one step) — see :class:`FixedPmf` composed."""

    start: int
    step: mpf
    masses: list
    m_inf: mpf
    dropped: mpf = mpf(0)


def upper_pmf(b: Buckets) -> Pmf:
    """The connect-the-dots PMF (DGKKM22, arXiv 2207.04380, §3; docs/pld.md UPPER): a_k = A_k x_{k+1}/(x_{k+1} − x_k)
    to ε_{k+1}, b_k = C_k x_k/(x_{k+1} − x_k) to ε_k; m_{k0} = P_lo + b_{k0}, m_k = b_k + a_{k−1},
    m_{k1} = a_{k1−1} + x_{k1} Q_hi, m_inf = δ(ε_{k1}) (= P_inf + P_hi − x_{k1} Q_hi). With h_k = x_k(e^D − 1):
    a_k = A_k e^D/(e^D − 1), b_k = C_k/(e^D − 1)."""
    em1, e = mpmath.expm1(b.step), mpmath.exp(b.step)
    a = [A * e / em1 for A in b.A]
    bb = [C / em1 for C in b.C]
    n = b.k1 - b.k0 + 1
    masses = [b.p_lo + bb[0]] + [bb[i] + a[i - 1] for i in range(1, n - 1)] + \
             [a[n - 2] + mpmath.exp(b.k1 * b.step) * b.q_hi]
    return Pmf(b.k0, b.step, masses, b.delta_top)


@dataclass
class _Vertex:
    x: mpf
    v: mpf  # the lowered curve's value
    w: mpf  # v − (1 − x): the same curve above the trivial line 1 − x
    tag: object  # "start" (x = 0), a grid position i (x = x_{k0+i}), or "right" (the tangent's kink beyond ε_{k1})


def lower_pmf(b: Buckets) -> Pmf:
    """The lowered-dots PMF (docs/pld.md LOWER), made a valid lower bound in every case.

    Dots (x_k, v_k), v_k = δ(x_k) − g_k, g_k = max(G_{k−1}, G_k), G_k = A_k C_k/(A_k + C_k): the chord of segment k
    through the lowered dots is ≤ δ (it lies below max of the tangents at x_k, x_{k+1}, whose gap to the chord is
    at most G_k). Left of x_{k0} the tangent line with slope −Q(L > ε_{k0}) through the dot, right of x_{k1} the
    tangent with slope −Q_hi down to P_inf, then flat: this curve H is ≤ δ everywhere. The spec's masses are
    those of H where H is convex and H ≥ max(1 − x, P_inf) at the dots. dpspec's reference takes in every case

        ψ = max(GCM(H), 1 − x, P_inf)

    (GCM: the greatest convex minorant, still ≤ δ; 1 − x and P_inf are ≤ δ too): ψ is convex, ψ(0) = 1,
    ψ ≥ (1 − x)₊ and ψ → P_inf, so it is the hockey-stick curve of a genuine pair dominated by (P, Q) (Blackwell;
    Dong, Roth & Su 2022, Prop. 2.12/Lemma C.1). Its kinks are at grid points, except where ψ meets 1 − x (x_a) or
    P_inf (x_c) between grid points, and the right tangent's kink beyond ε_{k1}: those atoms are rounded DOWN to
    the grid point below (to −∞, i.e. dropped, left of ε_{k0}), which can only lower E[(1 − e^{ε − ΣL})₊]. Where
    the spec's conditions hold (GCM(H) = H, x_a ≤ x_{k0}, H ≥ P_inf) this is exactly the spec's PMF.

    Where they fail (tests/base/test_pld_reference.py shows each): the remove pair's grid starts at or below the
    support's end log(1 − q), so δ(x_{k0}) = 1 − x_{k0} and the lowered dot falls below 1 − x (the spec's m~_{k0}
    < 0: −0.035 at q = 0.3, σ = 1, D = 0.1); the add pair's grid ends at −log(1 − q), where δ(x_{k1}) = 0 and the
    lowered dot falls below P_inf = 0 (m~_{k1} = −0.049 there); on coarse grids lowered dots fall below 0 inside
    the grid too (q = 0.01, σ = 1, D = 0.05: v = −0.002 at ε = 0.05, where δ = 4e-4 and g = 2.4e-3); and far in
    the tails m~ < 0 at the 1e-45 level (the spec's GCM case)."""
    n = b.k1 - b.k0 + 1
    xs = b.x
    h = [xs[i + 1] - xs[i] for i in range(n - 1)]
    G = [(A * C / (A + C)) if A + C > 0 else mpf(0) for A, C in zip(b.A, b.C)]
    g = [max(G[i - 1] if i > 0 else mpf(0), G[i] if i < n - 1 else mpf(0)) for i in range(n)]
    up = upper_pmf(b).masses
    # δ at the dots from the top (positive terms): δ_i = δ_{i+1} + A_i + h_i Q(L > ε_{i+1}); δ' = δ − (1 − x)
    # from the bottom: δ'_{i+1} = δ'_i + h_i Q(L ≤ ε_i) + C_i.
    delta, s_above = [mpf(0)] * n, [mpf(0)] * n
    delta[-1], s_above[-1] = b.delta_top, b.q_hi
    for i in range(n - 2, -1, -1):
        delta[i] = delta[i + 1] + b.A[i] + h[i] * s_above[i + 1]
        s_above[i] = s_above[i + 1] + b.Q[i]
    other, s_below = [mpf(0)] * n, [mpf(0)] * n
    other[0] = _nonnegative(xs[0] * b.q_lo - b.p_lo, b.p_lo, "x Q_lo − P_lo")
    s_below[0] = b.q_lo
    for i in range(n - 1):
        other[i + 1] = other[i] + h[i] * s_below[i] + b.C[i]
        s_below[i + 1] = s_below[i] + b.Q[i]
    c = b.p_inf

    # natural slopes: (v-slope, w-slope) of the edge right of each dot (exact forms, no differences of values)
    def dot_slopes(i):
        dg = (g[i + 1] - g[i]) / h[i]
        return -(b.A[i] / h[i] + s_above[i + 1]) - dg, s_below[i] + b.C[i] / h[i] - dg

    def natural_mass(i):
        """x_i·(slope jump) at dot i between its natural neighbours (the spec's m~ formulas; at k1 without the
        right kink's atom, which the "right" vertex carries)."""
        if i == 0:
            return b.C[0] / mpmath.expm1(b.step) - xs[0] * (g[1] - g[0]) / h[0]
        if i == n - 1:
            return up[-1] - xs[-1] * b.q_hi + xs[-1] * (g[-1] - g[-2]) / h[-1]  # a_{k1−1} + x(g_k1 − g_k1−1)/h
        return up[i] - xs[i] * ((g[i + 1] - g[i]) / h[i] - (g[i] - g[i - 1]) / h[i - 1])

    verts = [_Vertex(mpf(0), 1 - b.p_lo - g[0], -b.p_lo - g[0], "start")]
    verts += [_Vertex(xs[i], delta[i] - g[i], other[i] - g[i], i) for i in range(n)]
    v_last = delta[-1] - g[-1]
    if v_last > c:
        if not b.q_hi > 0:
            raise PrecisionError("PLD lower: the curve lies above P_inf at the last grid point with Q_hi = 0")
        xr = xs[-1] + (v_last - c) / b.q_hi
        verts.append(_Vertex(xr, c, c - 1 + xr, "right"))

    def natural(a: _Vertex, p: _Vertex) -> bool:
        return ((a.tag == "start" and p.tag == 0) or (a.tag == n - 1 and p.tag == "right")
                or (isinstance(a.tag, int) and isinstance(p.tag, int) and p.tag == a.tag + 1))

    def slopes(a: _Vertex, p: _Vertex):
        """(v-slope, w-slope) of the edge a → p (they differ by 1): exact forms on natural edges, else from the
        coordinates of whichever representation is smaller there."""
        if a.tag == "start" and p.tag == 0:
            return -(1 - b.q_lo), b.q_lo
        if a.tag == n - 1 and p.tag == "right":
            return -b.q_hi, 1 - b.q_hi
        if natural(a, p):
            return dot_slopes(a.tag)
        dx = p.x - a.x
        if max(abs(a.w), abs(p.w)) < max(abs(a.v), abs(p.v)):
            sw = (p.w - a.w) / dx
            return sw - 1, sw
        sv = (p.v - a.v) / dx
        return sv, sv + 1

    def kink(a: _Vertex, mid: _Vertex, p):
        """The atom x·(slope(mid → p) − slope(a → mid)) at ``mid`` (p None: the flat ray after it)."""
        if p is not None and isinstance(mid.tag, int) and natural(a, mid) and natural(mid, p):
            return natural_mass(mid.tag)
        sv_l, sw_l = slopes(a, mid)
        if p is None:
            return mid.x * -sv_l
        sv_r, sw_r = slopes(mid, p)
        return mid.x * ((sw_r - sw_l) if abs(mid.w) < abs(mid.v) else (sv_r - sv_l))

    # GCM: cut after the first lowest vertex (the minorant is flat from there), then the lower hull
    low = min(range(len(verts)), key=lambda j: (verts[j].v, j))
    hull: list[_Vertex] = []
    for p in verts[:low + 1]:
        while len(hull) >= 2 and kink(hull[-2], hull[-1], p) <= 0:
            hull.pop()
        hull.append(p)
    return _psi_pmf(hull, natural, slopes, kink, b, xs, c)


def _grid_index_below(xs, x) -> int:
    """The largest i with xs[i] ≤ x (−1 when x < xs[0])."""
    lo, hi = -1, len(xs) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if xs[mid] <= x else (lo, mid - 1)
    return lo


def _psi_pmf(hull, natural, slopes, kink, b: Buckets, xs, c) -> Pmf:
    """The PMF of ψ = max(hull, 1 − x, c) (:func:`lower_pmf`), its off-grid atoms rounded down. The hull starts at
    x = 0 and ends with a flat ray. ψ = 1 − x on [0, x_a], the hull on [x_a, x_c], c beyond (w = hull − (1 − x) is
    convex and ≤ 0 at 0, so {w ≤ 0} is an interval from 0; hull − c is non-increasing). An atom where ψ meets 1 − x
    has mass x_a·(w-slope), where it meets c mass x_c·(−v-slope); a crossing at a vertex lands on that vertex."""
    n, m = len(xs), len(hull)
    masses, dropped = [mpf(0)] * n, [mpf(0)]

    def put(index, mass):
        mass = _nonnegative(mass, mpf(1), "a lower PMF atom")  # a slope jump of the hull: ≥ 0 but for rounding
        if index < 0:
            dropped[0] += mass
        else:
            masses[index] += mass

    def edge_index(a, p, x):
        """Grid point at or below x on the edge a → p (the left vertex's own point on natural edges)."""
        if a.tag == "start":
            return -1 if natural(a, p) else _grid_index_below(xs, x)
        if a.tag == "right":
            return n - 1
        if natural(a, p):
            return a.tag
        return max(a.tag, min(_grid_index_below(xs, x), n - 1))

    # x_a on edge e_a (edge j: hull[j−1] → hull[j]; j = m: the flat ray)
    e_a = next((j for j in range(m) if hull[j].w > 0), m)
    e_c = next((j for j in range(m) if hull[j].v < c), None)
    if e_a == m:
        x_a = 1 - hull[-1].v if hull[-1].w < 0 else hull[-1].x
    else:
        a, p = hull[e_a - 1], hull[e_a]
        x_a = a.x - a.w / slopes(a, p)[1]
    if e_c is not None:
        a, p = hull[e_c - 1], hull[e_c]
        x_c = a.x + (c - a.v) / slopes(a, p)[0]
    if e_c is not None and (e_c < e_a or (e_c == e_a and x_c <= x_a)):
        put(_grid_index_below(xs, 1 - c), 1 - c)  # ψ = max(1 − x, c): one atom at 1 − c
        return Pmf(b.k0, b.step, masses, c, dropped[0])
    if e_a == m:  # the hull stays below 1 − x up to the flat ray
        put(_grid_index_below(xs, x_a), x_a)
        return Pmf(b.k0, b.step, masses, hull[-1].v, dropped[0])
    a, p = hull[e_a - 1], hull[e_a]
    put(edge_index(a, p, x_a), x_a * slopes(a, p)[1])
    end = e_c if e_c is not None else m
    for j in range(e_a, end):
        put(hull[j].tag if isinstance(hull[j].tag, int) else n - 1,
            kink(hull[j - 1], hull[j], hull[j + 1] if j + 1 < m else None))
    if e_c is None:
        return Pmf(b.k0, b.step, masses, hull[-1].v, dropped[0])
    a, p = hull[e_c - 1], hull[e_c]
    put(edge_index(a, p, x_c), x_c * -slopes(a, p)[0])
    return Pmf(b.k0, b.step, masses, c, dropped[0])


# ---------------------------------------------------------------------------------------------------------------
# Composition: fixed-point integer masses, exact convolution

SIDES = ("upper", "lower")


@dataclass(frozen=True)
class FixedPmf:
    """Masses M_i·2^−bits at the losses (start + i)·step, and M_inf·2^−bits at +∞. ``side`` says how they were
    rounded (up for "upper", down for "lower") and how products and trimming round."""

    start: int
    step: mpf
    masses: tuple
    inf: int
    bits: int
    side: str

    @property
    def losses(self) -> list:
        return [(self.start + i) * self.step for i in range(len(self.masses))]


def to_fixed(pmf: Pmf, side: str, bits: int) -> FixedPmf:
    """Round each mass to a multiple of 2^−bits: up for the upper side, down for the lower (a larger mass at a loss
    can only raise E[(1 − e^{ε − L})₊], and composition is monotone in every mass)."""
    if side not in SIDES:
        raise ParameterError(f"side={side!r}: one of {SIDES}")
    rnd = mpmath.ceil if side == "upper" else mpmath.floor
    conv = lambda m: int(rnd(mpmath.ldexp(m, bits)))
    masses = [conv(m) for m in pmf.masses]
    return _trim(FixedPmf(pmf.start, pmf.step, tuple(masses), conv(pmf.m_inf), bits, side))


def direct_convolution(a, b) -> list:
    """c_k = Σ_{i+j=k} a_i b_j by the double loop (the definition; tests compare :func:`_kronecker` with it)."""
    c = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                c[i + j] += x * y
    return c


_EXACT = decimal.Context(prec=decimal.MAX_PREC, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                         traps=[decimal.Inexact, decimal.Rounded, decimal.InvalidOperation])


def _kronecker(a, b) -> list:
    """The same exact integer convolution as :func:`direct_convolution`, by Kronecker substitution: write each
    sequence as one decimal integer with slots of ``width`` digits, wide enough that no coefficient of the product
    (< min(len)·max²) overflows its slot; multiply exactly (the decimal module's number-theoretic transform, with
    every rounding trapped); read the slots back. Masses are non-negative, so the slots need no sign handling.
    (5000 masses of 450 bits: 0.3 s, where CPython's Karatsuba on the binary packing took 1.4 s.)"""
    if not a or not b:
        return []
    top = max(max(a), max(b), 1)
    width = len(str(top * top * min(len(a), len(b)))) + 1
    pack = lambda s: decimal.Decimal("".join(str(v).zfill(width) for v in reversed(s)))
    pa = pack(a)
    digits = str(_EXACT.multiply(pa, pa if a is b else pack(b)))
    length = len(a) + len(b) - 1
    digits = digits.zfill(length * width)
    end = len(digits)
    return [int(digits[end - (i + 1) * width:end - i * width]) for i in range(length)]


def _shift(v: int, bits: int, side: str) -> int:
    """v·2^−bits rounded up (upper) or down (lower)."""
    return -((-v) >> bits) if side == "upper" else v >> bits


def _trim(p: FixedPmf) -> FixedPmf:
    """Cut both ends where their cumulative mass is ≤ 2^−TAIL_BITS (module docstring: upper — the left end is
    rounded up to the first kept loss, the right end moved to +∞; lower — the left end dropped, the right end
    rounded down to the last kept loss)."""
    limit = 1 << max(0, p.bits - TAIL_BITS)
    m = list(p.masses)
    lo, cut_lo = 0, 0
    while lo < len(m) - 1 and cut_lo + m[lo] <= limit:
        cut_lo += m[lo]
        lo += 1
    hi, cut_hi = len(m) - 1, 0
    while hi > lo and cut_hi + m[hi] <= limit:
        cut_hi += m[hi]
        hi -= 1
    kept = m[lo:hi + 1]
    inf = p.inf
    if p.side == "upper":
        kept[0] += cut_lo
        inf += cut_hi
    else:
        kept[-1] += cut_hi
    while len(kept) > 1 and kept[-1] == 0:
        kept.pop()
    start = p.start + lo
    while len(kept) > 1 and kept[0] == 0:
        kept.pop(0)
        start += 1
    return FixedPmf(start, p.step, tuple(kept), inf, p.bits, p.side)


def convolve(p: FixedPmf, r: FixedPmf) -> FixedPmf:
    """The PMF of the sum of the two losses (independent steps): finite masses by exact convolution; the +∞
    mass is every pair with an infinite member, M_inf = I_p (F_r + I_r) + F_p I_r (F: finite totals); dropped
    (−∞) mass does not exist in either, so it stays dropped. Then rescaled to 2^−bits and trimmed."""
    if p.step != r.step or p.bits != r.bits or p.side != r.side:
        raise ParameterError("convolve: the two PMFs need the same grid step, bits and side")
    ma = list(p.masses)
    c = _kronecker(ma, ma if r is p else list(r.masses))
    if len(c) > MAX_COMPOSED_POINTS:
        raise ParameterError(f"PLD composition: {len(c)} grid points exceed {MAX_COMPOSED_POINTS}")
    fin_p, fin_r = sum(p.masses), sum(r.masses)
    inf = p.inf * (fin_r + r.inf) + fin_p * r.inf
    masses = tuple(_shift(v, p.bits, p.side) for v in c)
    return _trim(FixedPmf(p.start + r.start, p.step, masses, _shift(inf, p.bits, p.side), p.bits, p.side))


def compose(p: FixedPmf, steps: int) -> FixedPmf:
    """The ``steps``-fold composition by repeated squaring (⌊log₂ T⌋ squarings and popcount(T) − 1 products)."""
    steps = int(steps)
    if steps < 1:
        raise ParameterError(f"steps={steps}: at least 1")
    result, base = None, p
    while True:
        if steps & 1:
            result = base if result is None else convolve(result, base)
        steps >>= 1
        if not steps:
            return result
        base = convolve(base, base)


# ---------------------------------------------------------------------------------------------------------------
# δ(ε) and ε(δ) of a PMF

def _first_above(p: FixedPmf, eps) -> int:
    """The first index whose loss is > eps."""
    j = max(0, int(mpmath.floor(eps / p.step)) - p.start)
    while j < len(p.masses) and (p.start + j) * p.step <= eps:
        j += 1
    while j > 0 and (p.start + j - 1) * p.step > eps:
        j -= 1
    return j


QUANTUM_SLACK_BITS = 64  # δ is rounded outward to a multiple of 2^−(F − 64) (see pmf_delta)


def pmf_delta(p: FixedPmf, eps):
    """δ(ε) = m_inf + Σ_{l_j > ε} m_j (1 − e^{ε − l_j}) (docs/pld.md, last paragraph): a sum of non-negative terms,
    rounded outward (up for the upper side, down for the lower) to a multiple of 2^−(F − 64). Far beyond the
    support δ is made of a few units 2^−F from the directed rounding of tiny masses, and which of them round up
    depends on the last digits of the one-step masses; the coarser outward rounding makes the two passes of the
    self-check agree there (it changes δ by < 2^−448 ≈ 1e-135, in the bound's own direction)."""
    eps = mpf(eps)
    j = _first_above(p, eps)
    terms = [mpf(m) * -mpmath.expm1(eps - (p.start + i) * p.step)
             for i, m in enumerate(p.masses[j:], start=j) if m]
    scaled = mpmath.ldexp(mpf(p.inf) + mpmath.fsum(terms), -QUANTUM_SLACK_BITS)  # δ in units of 2^−(F − 64)
    rounded = mpmath.ceil(scaled) if p.side == "upper" else mpmath.floor(scaled)
    return mpmath.ldexp(rounded, QUANTUM_SLACK_BITS - p.bits)


def _exact(x) -> Fraction:
    """An mpf as the exact rational it is."""
    man, exp = mpf(x).man_exp
    return Fraction(man) * (Fraction(2) ** exp)


def pmf_epsilon(p: FixedPmf, delta):
    """The smallest ε ≥ 0 with δ(ε) ≤ δ (docs/pld.md): between consecutive losses δ is linear in e^ε, so on the
    segment below the atom j, ε = log((m_inf + S_P − δ)/S_Q), S_P = Σ_{i ≥ j} m_i, S_Q = Σ_{i ≥ j} m_i e^{−l_i}.
    +inf where m_inf ≥ δ (cannot be certified). The difference m_inf + S_P − δ is formed exactly (the masses are
    dyadic rationals), so it loses no digits however close δ is to S_P."""
    delta = mpf(delta)
    if _exact(delta) <= Fraction(p.inf, 1 << p.bits):
        return mpf("inf")
    n = len(p.masses)
    losses = p.losses
    s_p, s_q = [0] * (n + 1), [mpf(0)] * (n + 1)  # suffix sums over i ≥ j
    for i in range(n - 1, -1, -1):
        s_p[i] = s_p[i + 1] + p.masses[i]
        s_q[i] = s_q[i + 1] + (mpf(p.masses[i]) * mpmath.exp(-losses[i]) if p.masses[i] else 0)
    target = _exact(delta) * (1 << p.bits)

    def excess(j):  # (m_inf + S_P(j) − δ)·2^bits, exact
        return p.inf + s_p[j] - target

    def above(j, eps_x):  # δ at a point of segment "atoms ≥ j", x = e^ε given, is > δ
        return mpf(excess(j).numerator) / excess(j).denominator > eps_x * s_q[j]

    j = _first_above(p, mpf(0))
    if not above(j, mpf(1)):
        return mpf(0)
    while True:  # δ(l_j) with atoms ≥ j + 1 above; stop at the first l_j with δ(l_j) ≤ δ
        if j >= n:  # δ = m_inf < δ beyond the last atom: unreachable (m_inf < δ checked above)
            raise PrecisionError("pmf_epsilon: no segment reaches delta")
        if not above(j + 1, mpmath.exp(losses[j])):
            break
        j += 1
    e = excess(j)
    return mpmath.log(mpf(e.numerator) / e.denominator / s_q[j])


# ---------------------------------------------------------------------------------------------------------------
# The sandwich of T composed SGM steps

def fixed_bits(prec: int) -> int:
    """F of the fixed-point masses at working precision ``prec`` (module docstring)."""
    return max(FIXED_MIN_BITS, -(-(prec + FIXED_GUARD_BITS) // 256) * 256)


@functools.lru_cache(maxsize=32)
def _buckets_cached(key, step, prec: int) -> Buckets:
    with mp.workprec(prec):
        return _pair_of(key).buckets(step)


@functools.lru_cache(maxsize=64)
def _composed_cached(key, step, steps: int, side: str, prec: int) -> FixedPmf:
    with mp.workprec(prec):
        b = _buckets_cached(key, step, prec)
        one = upper_pmf(b) if side == "upper" else lower_pmf(b)
        return compose(to_fixed(one, side, fixed_bits(prec)), steps)


_PAIRS: dict = {}  # key → pair, filled by composed(): the caches above are keyed by pair.key(), not by the pair
_PAIRS_MAX = 256  # oldest entries dropped beyond this (a pair is looked up right after composed() stores it)


def _pair_of(key):
    """The pair whose ``key()`` is ``key``: the one :func:`composed` stored, else an SgmPair or RandomizedResponsePair
    rebuilt from its key (direct callers of :func:`_buckets_cached` pass such keys)."""
    pair = _PAIRS.get(key)
    if pair is not None:
        return pair
    if key[0] == "sgm":
        return SgmPair(key[1], key[2], key[3])
    if key[0] == "rr":
        return RandomizedResponsePair(key[1])
    raise ParameterError(f"PLD reference: no pair with key {key!r} (pass the pair to composed())")


def composed(pair, grid_step, steps, side: str) -> FixedPmf:
    """The ``side`` PMF of ``steps`` composed copies of ``pair`` on the grid of step ``grid_step`` (cached per
    working precision). ``pair`` is any object with the interface of :class:`SgmPair`: ``key()`` — a hashable tuple
    that determines the pair (its kind first, then every parameter; two pairs with equal keys must be equal) — and
    ``buckets(step) -> Buckets`` at the working precision (e.g. reference/objpert/composition.py's ObjPert pair)."""
    if side not in SIDES:
        raise ParameterError(f"side={side!r}: one of {SIDES}")
    key = pair.key()
    _PAIRS.pop(key, None)
    _PAIRS[key] = pair
    while len(_PAIRS) > _PAIRS_MAX:
        del _PAIRS[next(iter(_PAIRS))]
    return _composed_cached(key, mpf(grid_step), int(steps), side, mp.prec)


def _sgm_args(q, sigma, steps, grid_step):
    return (_arg("q", SAMPLING_RATE, q), _arg("sigma", PLD_NOISE, sigma), int(_arg("steps", PLD_STEPS, steps)),
            _arg("grid_step", PLD_GRID_STEP, grid_step))


def _directions(q):
    return ("remove",) if q == 1 else PLD_DIRECTIONS


def sgm_pld(q, sigma, steps, grid_step, side: str, direction: str) -> FixedPmf:
    """The composed ``side`` PMF of T SGM steps in one ``direction`` ("remove" or "add")."""
    q, sigma, steps, grid_step = _sgm_args(q, sigma, steps, grid_step)
    return composed(SgmPair(q, sigma, direction), grid_step, steps, side)


def sgm_direction_values(what: str, at, q, sigma, steps, grid_step, side: str) -> dict:
    """{direction: δ(ε) ("delta", at = ε) or ε(δ) ("epsilon", at = δ)} of the composed ``side`` PMF."""
    fn = pmf_delta if what == "delta" else pmf_epsilon
    return {d: fn(sgm_pld(q, sigma, steps, grid_step, side, d), at) for d in _directions(mpf(q))}


@self_checked
def pld_sgm_delta(eps, q, sigma, steps, grid_step):
    """Upper bound on δ(ε) of T composed Poisson-subsampled Gaussian steps: the connect-the-dots PLD
    (Doroshenko et al., PETS 2022, arXiv 2207.04380, §3) on the loss grid kD, composed exactly, max over the
    add and remove directions (docs/pld.md UPPER)."""
    return max(sgm_direction_values("delta", eps, q, sigma, steps, grid_step, "upper").values())


@self_checked
def pld_sgm_delta_lower(eps, q, sigma, steps, grid_step):
    """Lower bound on δ(ε) of T composed SGM steps: the lowered-dots PLD (docs/pld.md LOWER; :func:`lower_pmf`),
    composed exactly, max over the two directions."""
    return max(sgm_direction_values("delta", eps, q, sigma, steps, grid_step, "lower").values())


@self_checked
def pld_sgm_epsilon(delta, q, sigma, steps, grid_step):
    """Upper bound on ε(δ) of T composed SGM steps: the smallest ε ≥ 0 with δ_upper(ε) ≤ δ, max over the two
    directions; +inf where the upper PMF's mass at +∞ is ≥ δ."""
    return max(sgm_direction_values("epsilon", delta, q, sigma, steps, grid_step, "upper").values())


@self_checked
def pld_sgm_epsilon_lower(delta, q, sigma, steps, grid_step):
    """Lower bound on ε(δ) of T composed SGM steps: ε of the lower PMF, max over the two directions."""
    return max(sgm_direction_values("epsilon", delta, q, sigma, steps, grid_step, "lower").values())


# ---------------------------------------------------------------------------------------------------------------
# Catalogue entries

def _witness_of_lower(what: str, at: str):
    """Witness mapping of a lower statement: its value is the larger of the two directions' lower values, a lower
    bound on THAT direction's δ(ε) (or ε(δ)), so the T-fold witness pair of that direction can refute it (the other
    direction's pair need not: its true value may be smaller)."""
    def mapping(p):
        values = sgm_direction_values(what, p[at], p["q"], p["sigma"], p["steps"], p["grid_step"], "lower")
        direction = max(values, key=lambda d: (values[d], d == "remove"))
        return {"q": p["q"], "sigma": p["sigma"], "direction": direction, "steps": p["steps"]}

    return mapping


def _witness_of_direction(direction: str):
    return lambda p: {"q": p["q"], "sigma": p["sigma"], "direction": direction, "steps": p["steps"]}


_UPPER_WITNESSES = tuple(
    WitnessUse("base.sgm", _witness_of_direction(d),
               f"the T-fold {d} pair: an upper bound on the max over directions bounds this direction's value")
    for d in PLD_DIRECTIONS)


def _common_params(first: Param) -> tuple:
    return (
        first,
        Param("q", SAMPLING_RATE, "Poisson sampling rate (q = 1: the Gaussian mechanism)", example="0.1"),
        Param("sigma", PLD_NOISE, "noise multiplier (std / ℓ2 sensitivity)", example=1),
        Param("steps", PLD_STEPS, "number of composed steps T", example=16),
        Param("grid_step", PLD_GRID_STEP, "loss grid step D of the discretisation", example="0.125"),
    )


_EPS_PARAM = Param("eps", EPS, "ε ≥ 0", example=1)
_DELTA_PARAM = Param("delta", PLD_DELTA, "target δ (>= 1e-10: see PLD_DELTA)", example="1e-5")
_PRIVACY = Privacy("add_remove", "both", "poisson")
# The FFT path against this exact reference, measured where δ ≥ 1e-9: 1e-13–1e-9 relative (its error allowance is
# absolute, ~1e-13 of the largest bin, and its tails are cut at 1e-30: below those floors no relative tolerance holds)
_FAST_TOLERANCE = 1e-6
# the fast path's FFT allowance: every composed bin carries eta = 16 u (log2 N + T) max|bin| (fast/base/pld.py), so its
# δ may exceed the exact-arithmetic value by up to about 1e-12 in absolute terms whatever δ is
_FAST_ABS_TOLERANCE = 1e-12
# ... which moves the fast upper ε at δ near 1e-10 by up to about 1e-4 relative (the ε statements' tolerance)
_FAST_EPS_TOLERANCE = 1e-3
_LOWER_NOTE = ("dpspec's lowered-dots construction (the reference's lower_pmf docstring and docs/pld.md), made a pair "
               "dominated by the step's pair in every case: ψ = max(GCM(lowered polyline), 1 − x, P_inf), off-grid "
               "atoms rounded down")

register(Statement(
    id="base.pld_sgm_delta",
    fast="dpspec.fast.base.pld:pld_sgm_delta",
    source=Source("outside", "§3 (connect the dots)", "upper bound on δ(ε) of T composed DP-SGD steps (PLD)", DGKKM22),
    kind="profile",
    claim="upper",
    value=Value("delta", "eps"),
    summary="δ(ε) ≤ max over add/remove of δ of the T-fold connect-the-dots PLD on the grid kD",
    params=_common_params(_EPS_PARAM),
    reference=pld_sgm_delta,
    witnesses=_UPPER_WITNESSES,
    privacy=_PRIVACY,
    tolerance=_FAST_TOLERANCE,
    abs_tolerance=_FAST_ABS_TOLERANCE,
    monotone={"eps": -1},
    note="exact integer convolution of the grid PMFs; tails of mass ≤ 2^-200 trimmed in the bound's direction",
))

register(Statement(
    id="base.pld_sgm_delta_lower",
    fast="dpspec.fast.base.pld:pld_sgm_delta_lower",
    source=Source("outside", "lower side of the PLD sandwich", "lower bound on δ(ε) of T composed DP-SGD steps",
                  "dpspec (docs/pld.md), after " + DGKKM22),
    kind="profile",
    claim="lower",
    value=Value("delta", "eps"),
    summary="δ(ε) ≥ max over add/remove of δ of the T-fold lowered-dots PLD on the grid kD",
    params=_common_params(_EPS_PARAM),
    reference=pld_sgm_delta_lower,
    witnesses=(WitnessUse("base.sgm", _witness_of_lower("delta", "eps"),
                          "the T-fold pair of the direction whose lower value is the larger (it bounds that one)"),),
    privacy=_PRIVACY,
    tolerance=_FAST_TOLERANCE,
    abs_tolerance=_FAST_ABS_TOLERANCE,
    monotone={"eps": -1},
    extension=True,
    note=_LOWER_NOTE,
))

register(Statement(
    id="base.pld_sgm_epsilon",
    fast="dpspec.fast.base.pld:pld_sgm_epsilon",
    source=Source("outside", "§3 (connect the dots)", "upper bound on ε(δ) of T composed DP-SGD steps (PLD)", DGKKM22),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) ≤ min{ε ≥ 0 : δ_upper(ε) ≤ δ}, max over add/remove; +inf where the mass at +∞ is ≥ δ",
    params=_common_params(_DELTA_PARAM),
    reference=pld_sgm_epsilon,
    witnesses=_UPPER_WITNESSES,
    privacy=_PRIVACY,
    tolerance=_FAST_EPS_TOLERANCE,
    monotone={"delta": -1},
    note="ε of the upper PMF, piecewise exact between its losses (linear in e^ε)",
))

register(Statement(
    id="base.pld_sgm_epsilon_lower",
    fast="dpspec.fast.base.pld:pld_sgm_epsilon_lower",
    source=Source("outside", "lower side of the PLD sandwich", "lower bound on ε(δ) of T composed DP-SGD steps",
                  "dpspec (docs/pld.md), after " + DGKKM22),
    kind="eps_delta",
    claim="lower",
    value=Value("eps", "delta"),
    summary="ε(δ) ≥ min{ε ≥ 0 : δ_lower(ε) ≤ δ}, max over add/remove",
    params=_common_params(_DELTA_PARAM),
    reference=pld_sgm_epsilon_lower,
    witnesses=(WitnessUse("base.sgm", _witness_of_lower("epsilon", "delta"),
                          "the T-fold pair of the direction whose lower value is the larger (it bounds that one)"),),
    privacy=_PRIVACY,
    tolerance=_FAST_EPS_TOLERANCE,
    monotone={"delta": -1},
    extension=True,
    note=_LOWER_NOTE,
))
