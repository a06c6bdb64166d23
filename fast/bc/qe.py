"""The sampling-induced law q_E of c² (seed 002, Def. 4.1, eq. (21), F.1, D.15; notes batch-clipping-fdp.md §3.2
table and §4.7), in float64 log space, for both samplers of Algorithm 1. Mirrors ``dpspec.reference.bc.qe``.

A law is a :class:`FastLaw`: ``log_pmf[i]`` = log P(c² = offset + i) (−inf where c² is impossible), plus
``log_dropped``, the log of mass set aside and counted at c² = +inf (the contract of reference/bc/qe.py: dropped mass
is kept, in ``tail_above``, never lost). Every step is a sum of non-negative terms taken in log space (logsumexp):

* one round under subsampling (SS): the number K′ of the g differentiating samples in the round's batch of ms
  samples is hypergeometric (N, g, ms) — computed from its k = 0 end by the ratio chain
  P(k+1)/P(k) = (g−k)(ms−k)/((k+1)(N−g−ms+k+1)) (seed 002, F.4), P(0) = Π_{j<g}(1 − ms/(N−j)) (or from the
  complement when N − g < ms), never as a difference of log-gammas (which loses 1e-16·log N! absolutely);
  given K′ = k, L = the number of the m subsets of s slots that are hit, by the placement recursion
  P_{i+1}(j) = P_i(j)(js − i)/(ms − i) + P_i(j−1)(m − j + 1)s/(ms − i) (items placed one by one without replacement).
  This is F.1's q_k (the "simpler equivalent" of notes §2.12); s = 1 gives eq. (21), m = 1 gives BC's
  q_1 = 1 − C(N−g, s)/C(N, s) (F.5).
* SS over T = E·N/(ms) rounds: c² = Σ_r L_r², the T-fold convolution of the law of L² (notes §4.7); where
  L ∈ {0, 1} (g = 1 or m = 1) c² is Binomial(T, q_1) and is evaluated directly (:func:`binomial_law`).
* one epoch under shuffling (SH): m = 1 (batch clipping): c² = J, the number of the R = N/s batches hit, by the
  placement recursion above over the whole epoch (the true occupancy law of notes §3.2 and §6.3, not the printed
  Bose–Einstein q_j of G.3). m ≥ 2: the g samples take g of the N = R·ms slots uniformly; a round that receives i of
  them has a(i, ℓ) = C(ms, i)·P(L = ℓ | i) slot choices hitting ℓ subsets (the recursion above), so
  q_epoch(v) = [x^g y^v] (Σ_{i,ℓ} a(i, ℓ) x^i y^{ℓ²})^R / C(N, g) = Σ_{j ≤ g} C(R, j) [x^g y^v] U^j / C(N, g),
  U = Σ_{i ≥ 1} a(i, ℓ) x^i y^{ℓ²} (the round generating function; j = number of rounds hit). g = 1 gives c² = E.
* SH over E epochs: the E-fold convolution of the epoch law.

n-fold convolutions (:func:`power_law`, issue 15): by exponentially tilted FFTs (:func:`tilted_power`, section
comment there): the n-fold law is read from φ(ω)^n by one inverse FFT per tilt, each value taken from a tilt that puts
it within e^{−TRUST} of its peak, so the FFT round-off (~1e-15 of a tilt's peak) stays ≲ 5e-15·e^{TRUST} ≈ 1e-10
relative at every point, tails to e^{−745} included (notes §4.7's FFT pitfall is the untilted floor; measured
against the reference: ≤ 3e-13 where a value is within e^{−6} of its tilt's peak, ≤ 4e-11 at e^{−10}). To that adds
the absolute rounding of the exponent nκ(θ) + θ(w − nμ₀), about 1e-16·max(|nκ|, |θ(w − nμ₀)|): a review measured
7.3e-10 relative against exact Binomial(10⁷, 0.3) log-pmfs (2.2e-10 at p = 0.05; ≤ 1e-11 at n = 10⁶). The support's
holes near its two ends are found exactly (boolean n-fold powers); a point of the support that no tilt covers within
TRUST (a deeper valley, e.g. SH with m, s ≥ 2, where c²'s parity is rarely flipped) sends the law to the direct
log-space convolution by squaring (:func:`power`: every output a logsumexp of its exact terms, W² per squaring), as
do laws spanning at most DIRECT_SPAN values. Mass beyond the window (Chernoff-bounded below e^{−770}) and the window
ends below e^{−745} of the total are moved to ``log_dropped`` (counted at +inf c²: more pessimistic for every privacy
quantity). Where the direct path trims intermediate laws (at e^{−745}), the final entries within a few e-folds of
that level miss the trimmed contributions (1e-5 relative measured at e^{−744}); the tilted path has no intermediates.

Cost (one thread, shared 2-core CPU at load ≈ 10, so several times a quiet machine's): E = 10³, N/(sm) = 10⁴ — SS
g = m = 8: 0.08 s (reference 4.9 s); SH batch clipping g = 64: 0.04 s (reference 26.5 s); SS g = m = 16, E = 100:
0.18 s (reference 2.1 s). SH with g = m = 16, E = 100 falls back to the direct path (3.3 s; the epoch law alone ~2 s).
benchmarks/README.md §6 has the ratios.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import torch

from dpspec.reference.bc import spec
from dpspec.reference.errors import ConditionError, ParameterError

from .._torch import DTYPE

NEG_INF = -math.inf
DROP = -745.0  # log of the relative mass below which window ends are cut (moved to +inf c²)
_CHUNK = 1 << 22  # terms per logsumexp block


@dataclass(frozen=True)
class FastLaw:
    """Law of c² on the window offset … offset + len(log_pmf) − 1, plus mass at +inf (``log_dropped``)."""

    offset: int
    log_pmf: torch.Tensor  # float64, log P(c² = offset + i)
    log_dropped: float = NEG_INF

    @property
    def support(self) -> torch.Tensor:
        """The c² values of positive mass (int64), ascending (+inf c² not included)."""
        return torch.nonzero(torch.isfinite(self.log_pmf)).flatten() + self.offset

    def log_mass(self) -> torch.Tensor:
        """log P(c² = v) on :attr:`support`."""
        return self.log_pmf[torch.isfinite(self.log_pmf)]

    def tail_below(self, c2) -> float:
        """P(c² < c2) (strict; c2 any real)."""
        i = min(max(math.ceil(c2) - self.offset, 0), self.log_pmf.numel()) if c2 < math.inf else self.log_pmf.numel()
        return float(torch.exp(torch.logsumexp(self.log_pmf[:i], 0))) if i > 0 else 0.0

    def tail_above(self, c2) -> float:
        """P(c² > c2) (strict; c2 any real), the dropped mass (at +inf) included."""
        n = self.log_pmf.numel()
        i = min(max(math.floor(c2) + 1 - self.offset, 0), n) if c2 > -math.inf else 0
        rest = torch.logsumexp(self.log_pmf[i:], 0) if i < n else torch.tensor(NEG_INF, dtype=DTYPE)
        return float(torch.exp(torch.logaddexp(rest, torch.tensor(self.log_dropped, dtype=DTYPE))))

    def mass_at(self, c2) -> float:
        """P(c² = c2)."""
        if c2 != math.floor(c2):
            return 0.0
        i = int(c2) - self.offset
        return float(torch.exp(self.log_pmf[i])) if 0 <= i < self.log_pmf.numel() else 0.0

    def mean(self) -> float:
        """E[c²] over the finite part (inf when mass was dropped to +inf)."""
        if self.log_dropped > NEG_INF:
            return math.inf
        v = torch.arange(self.log_pmf.numel(), dtype=DTYPE) + self.offset
        return float(torch.sum(torch.exp(self.log_pmf) * v))


# ---------------------------------------------------------------------------------------------------------------
# log-space direct convolution


def log_conv(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """c[k] = log Σ_i e^{a[i] + b[k−i]} over the last dimension (a: (n_a,), b: (..., n_b)), direct: every output is
    a logsumexp of its exact terms; only the finite entries of ``a`` are visited (L² laws have holes)."""
    idx = torch.nonzero(torch.isfinite(a)).flatten()
    n_b = b.shape[-1]
    n_out = a.numel() + n_b - 1
    batch = b.shape[:-1]
    if idx.numel() == 0:
        return torch.full((*batch, n_out), NEG_INF, dtype=DTYPE)
    vals = a[idx]
    pad = torch.full((*batch, a.numel() - 1), NEG_INF, dtype=DTYPE)
    b_pad = torch.cat([pad, b, pad], dim=-1)  # b_pad[p] = b[p − (n_a − 1)]
    k = torch.arange(n_out)
    out = torch.empty((*batch, n_out), dtype=DTYPE)
    rows = max(1, _CHUNK // (idx.numel() * max(1, math.prod(batch))))
    for start in range(0, n_out, rows):  # blocks of output indices (memory), not parameter points
        kk = k[start:start + rows]
        pos = kk.unsqueeze(-1) - idx + (a.numel() - 1)  # index of b[k − i] in b_pad
        terms = b_pad[..., pos] + vals
        out[..., start:start + rows] = torch.logsumexp(terms, dim=-1)
    return out


def _trim(offset: int, log_pmf: torch.Tensor, log_dropped: float) -> FastLaw:
    """Cut the window's ends whose mass is below e^{DROP} of the total (moving it to +inf) and the −inf ends."""
    total = torch.logsumexp(log_pmf, 0)
    keep = log_pmf >= total + DROP
    nz = torch.nonzero(keep).flatten()
    lo, hi = int(nz[0]), int(nz[-1]) + 1
    cut = torch.cat([log_pmf[:lo], log_pmf[hi:]])
    if cut.numel():
        log_dropped = float(torch.logaddexp(torch.tensor(log_dropped, dtype=DTYPE), torch.logsumexp(cut, 0)))
    return FastLaw(offset + lo, log_pmf[lo:hi].clone(), log_dropped)


def convolve(x: FastLaw, y: FastLaw) -> FastLaw:
    """The law of the sum of independent c²'s (mass at +inf: 1 − (1 − d_x)(1 − d_y), kept exactly in log space)."""
    return _trim(x.offset + y.offset, log_conv(x.log_pmf, y.log_pmf), _log_union(x.log_dropped, y.log_dropped))


def _log_union(dx: float, dy: float) -> float:
    """log(d_x + d_y − d_x·d_y) from log d_x, log d_y."""
    if dx == NEG_INF or dy == NEG_INF:
        return max(dx, dy)
    s = max(dx, dy) + math.log1p(math.exp(min(dx, dy) - max(dx, dy)))
    return s + math.log1p(-math.exp(dx + dy - s))


def power(x: FastLaw, n: int) -> FastLaw:
    """The n-fold convolution of ``x`` (exponentiation by squaring: about 2 log₂ n convolutions)."""
    result = None
    base = x
    while True:
        if n & 1:
            result = base if result is None else convolve(result, base)
        n >>= 1
        if not n:
            return result
        base = convolve(base, base)


# ---------------------------------------------------------------------------------------------------------------
# the n-fold convolution by exponentially tilted FFTs (issue 15: the fast q_E)
#
# The n-fold law of a sum S = Σ_r X_r of i.i.d. X ∈ {x_k} (law p_k) is read off its Fourier transform φ(ω)^n, one
# inverse FFT, without any intermediate convolution. An FFT's round-off is ~1e-16 of the LARGEST value of the law it
# returns, which would corrupt every tail (notes §4.7). So the law is computed under exponential tilts: for θ real,
# p_θ(w) = p(w)·e^{θ(w − nμ₀)}/e^{nκ(θ)}, κ(θ) = log Σ_k p_k e^{θ(x_k − μ₀)}, is the n-fold law of the tilted X
# (tilting commutes with convolution), and it peaks near its mean M(θ) = nκ′(θ) + nμ₀. Each tilt's FFT is taken on a
# window around its peak, and a value p(w) is read from the tilt that puts w nearest its top: log p(w) = log p_θ(w) −
# θ(w − nμ₀) + nκ(θ), taken only where p_θ(w) ≥ e^{−TRUST}·max p_θ (the FFT floor, a few 1e-15 of max p_θ, is then
# ≲ 5e-15·e^{TRUST} ≈ 1e-10 of the value; measured in tests/bc/test_bc_qe_fast.py). Tilts are spaced STEP tilted standard deviations apart, from the lower to the upper end of
# the law, where the Chernoff bound P(S beyond M(θ)) ≤ e^{nκ(θ) − θ(M(θ) − nμ₀)} falls below e^{DROP − MARGIN}; that
# bound is added to ``log_dropped`` (mass counted at +inf c²). Holes of the support near its two ends are found
# exactly (:func:`_support_ends`); where a point of the support is not covered within TRUST by some tilt (a hole in the
# middle, a deep valley, a grid too coarse), :func:`power_law` falls back to the direct log-space convolution of
# :func:`power` (exact to float rounding, slower): the FFT path never guesses. The tilts are chosen on a sinh-spaced θ
# grid, refined between the two stops; n·κ(θ) is formed with relative accuracy (:func:`_log_sum_exp`), and the input law
# is not renormalised (n ≤ 10^7 would multiply a 1e-16 shift).
#
# Accuracy of φ(ω)^n: with z_k = x_k − μ₀ (μ₀ a dyadic rational near the mean, so every n·μ₀ and w − nμ₀ is exact),
# φ(ω) − 1 = Σ_k p_θ,k (−2 sin²(ωz_k/2) − i sin(ωz_k)) is formed without cancellation, log φ = ½ log1p(2a + a² + b²)
# + i atan2(b, 1 + a), and n·log φ carries relative error ~1e-16 (no 1e-16·n floor from repeated products). The
# angles ω z_k are reduced modulo 2π exactly (z_k dyadic, ω = 2πq/N_fft).

TRUST = 10.0  # a tilt's value is used within e^{-TRUST} of that tilt's peak (measured error ≲ 5e-15·e^{drop})
STEP = 7.0  # spacing of the tilts' means, in tilted standard deviations (Gaussian drop midway ≈ 6 < TRUST)
MARGIN = 25.0  # the window extends until the Chernoff bound of what lies beyond is below e^{DROP − MARGIN}
_GRID = 1024  # θ grid (sinh-spaced) on which the tilts are chosen; a gap wider than STEP shows as a TRUST failure
_DYADIC = 1 << 16
DIRECT_SPAN = 512  # n-fold laws spanning at most this many c² are convolved directly (exact; a few ms)
_ONE_SIZE = 1 << 10  # below this FFT size every tilt shares the largest size (one batched FFT)


def _dyadic(v: float) -> float:
    return round(v * _DYADIC) / _DYADIC


def _log_sum_exp(a: torch.Tensor) -> torch.Tensor:
    """log Σ_k e^{a_k} over the last dimension as max + log1p(Σ_{k ≠ argmax} e^{a_k − max}): its absolute error is
    ~1e-16·|result| rather than torch.logsumexp's ~1e-16 (log of 1 + small), which n·κ(θ) would multiply by n ≤ 10^7."""
    top, arg = a.max(dim=-1, keepdim=True)
    rest = torch.exp(a - top).scatter(-1, arg, 0.0).sum(-1)
    return top.squeeze(-1) + torch.log1p(rest)


def _tilt_grid(lp: torch.Tensor, z: torch.Tensor, scale: float, u_lo: float, u_hi: float, points: int):
    """κ(θ), the tilted mean and variance of one X (in z units) on θ = scale·sinh(u), u uniform on [u_lo, u_hi]."""
    theta = scale * torch.sinh(torch.linspace(u_lo, u_hi, points, dtype=DTYPE))
    rows = max(1, (1 << 22) // lp.numel())
    kap, mean, var = [], [], []
    for start in range(0, points, rows):  # blocks of θ (memory), not parameter points
        a = lp + theta[start:start + rows, None] * z
        k = _log_sum_exp(a)
        pt = torch.exp(a - k[:, None])
        m1 = pt @ z
        kap.append(k)
        mean.append(m1)
        var.append(torch.clamp(pt @ (z * z) - m1 * m1, min=0.0))
    return theta, torch.cat(kap), torch.cat(mean), torch.cat(var)


def _ends(theta, kap, mean, n: int, nmu0: float, top: int):
    """Grid indices (i_lo, i_hi) of the last θ < 0 at or beyond the lower stop and the first θ > 0 at or beyond the
    upper stop (Chernoff bound below e^{DROP − MARGIN}, or the support's end), or None."""
    M = n * mean + nmu0
    C = n * kap - theta * (n * mean)
    stop = DROP - MARGIN
    left = torch.nonzero((theta < 0) & ((C < stop) | (M <= 0.5))).flatten()
    right = torch.nonzero((theta > 0) & ((C < stop) | (M >= top - 0.5))).flatten()
    if not left.numel() or not right.numel():
        return None
    return int(left[-1]), int(right[0])


def _choose_tilts(theta, kap, mean, var, n: int, nmu0: float, top: int):
    """Indices of the grid's tilts (ascending) and the window [lo, hi] of w, with the log Chernoff bounds of the mass
    below lo and above hi (−inf where the window reaches the support's end), or None if the grid does not reach both
    ends. The tilts are the grid points where the distance from the lowest, counted in tilted standard deviations
    (Σ ΔM / S), passes a multiple of STEP."""
    M = n * mean + nmu0
    S = torch.sqrt(n * var)
    C = n * kap - theta * (n * mean)  # log Chernoff bound at the tilted mean (θ(M − nμ₀) = θ·n·κ′)
    ends = _ends(theta, kap, mean, n, nmu0, top)
    if ends is None:
        return None
    i_lo, i_hi = ends
    Mw, Sw = M[i_lo:i_hi + 1], S[i_lo:i_hi + 1]
    gap = torch.diff(Mw) / torch.clamp(torch.minimum(Sw[1:], Sw[:-1]), min=1e-300)
    dist = torch.cat([torch.zeros(1, dtype=DTYPE), torch.cumsum(gap, 0)])
    bucket = torch.floor(dist / STEP)
    last = torch.nonzero(torch.diff(bucket) > 0).flatten()  # the last grid point of each bucket
    chosen = torch.unique(torch.cat([torch.tensor([0]), last, last + 1, torch.tensor([i_hi - i_lo])])) + i_lo
    m_lo, m_hi = float(M[i_lo]), float(M[i_hi])
    lo = 0 if m_lo <= 0.5 else max(0, math.floor(m_lo))
    hi = top if m_hi >= top - 0.5 else min(top, math.ceil(m_hi))
    below = NEG_INF if lo == 0 else float(C[i_lo])
    above = NEG_INF if hi == top else float(C[i_hi])
    return chosen, lo, hi, below, above


def _tilted_values(lp, z, n: int, nmu0: float, theta: torch.Tensor, kap: torch.Tensor, centers: list[int],
                   size: int):
    """For tilts θ_j (one FFT size): positions w (tilts × size) and (log p_θ(w) − log max p_θ, log p(w))."""
    pt = torch.exp(lp + theta[:, None] * z - kap[:, None])  # tilted law of one X
    q = torch.arange(size // 2 + 1, dtype=DTYPE)
    r = torch.remainder(q[:, None] * z + size / 2, size) - size / 2  # q·z_k reduced mod N_fft, exact (dyadic)
    ang = (math.pi / size) * r  # ω z_k / 2
    A = -2.0 * torch.sin(ang) ** 2
    B = -torch.sin(2.0 * ang)
    re = pt @ A.T
    im = pt @ B.T
    logmod = 0.5 * torch.log1p(2.0 * re + re * re + im * im)
    arg = torch.atan2(im, 1.0 + re)
    off = torch.tensor(centers, dtype=DTYPE) - size // 2  # window start per tilt (integer)
    shift = torch.remainder(q * (nmu0 - off)[:, None] + size / 2, size) - size / 2  # q(nμ₀ − o) mod N_fft, exact
    phase = n * arg - (2.0 * math.pi / size) * shift
    F = torch.polar(torch.exp(n * logmod), phase)
    f = torch.fft.irfft(F, n=size, dim=-1)
    w = off[:, None] + torch.arange(size, dtype=DTYPE)
    logf = torch.log(torch.clamp(f, min=0.0))
    top = logf.max(dim=-1, keepdim=True).values
    ends = torch.cat([f[:, : size // 8], f[:, -size // 8:]], dim=-1).abs().max(dim=-1).values
    aliased = bool((ends > 1e-13 * torch.exp(top.squeeze(-1))).any())
    logp = logf - theta[:, None] * (w - nmu0) + n * kap[:, None]
    return w, logf - top, logp, aliased


def _reachable(coins: torch.Tensor, n: int, size: int) -> torch.Tensor:
    """Which of 0 … size − 1 are sums of exactly n of ``coins`` (non-negative ints, 0 among them): the boolean n-fold
    power truncated to [0, size) (truncation commutes with sums of non-negative terms), by squaring; each product is
    an FFT of 0/1 vectors, whose counts (≤ size) are read against 1/2 — exact."""
    base = torch.zeros(size, dtype=DTYPE)
    base[coins[coins < size]] = 1.0
    result = None
    m = 2 * size
    while True:  # over the bits of n (≤ 64)
        if n & 1:
            result = base if result is None else (torch.fft.irfft(torch.fft.rfft(result, m) * torch.fft.rfft(base, m),
                                                                   m)[:size] > 0.5).to(DTYPE)
        n >>= 1
        if not n:
            return result > 0.5
        spec_b = torch.fft.rfft(base, m)
        base = (torch.fft.irfft(spec_b * spec_b, m)[:size] > 0.5).to(DTYPE)


def _support_ends(wk: torch.Tensor, n: int, lo: int, hi: int, top: int) -> torch.Tensor:
    """A mask over w = lo … hi: False where w is not a sum of n of the values ``wk`` (0 = min, gcd 1), exact within
    8·max(wk) + 64 values of either end of [0, top] (the Frobenius holes of the coin set and the count limit live
    there); True elsewhere (where a hole would be missed, the TRUST check of :func:`tilted_power` sends the law to the direct
    path)."""
    wmax = int(wk[-1])
    span = 8 * wmax + 64
    mask = torch.ones(hi - lo + 1, dtype=torch.bool)
    values = set(wk.tolist())
    if lo < span and not (1 in values and min(hi, span) <= n):  # with a 1 among the values every u ≤ n is a sum
        size = min(hi, span) + 1
        mask[: size - lo] = _reachable(wk, n, size)[lo:]
    if top - hi < span and not (wmax - 1 in values and min(top - lo, span) <= n):
        size = min(top - lo, span) + 1
        rev = _reachable(wmax - wk, n, size)  # u = top − w
        u_lo = top - hi
        mask[hi - lo - (size - 1 - u_lo): hi - lo + 1] &= rev[u_lo:size].flip(0)
    return mask


def _fft_size(s: float) -> int:
    return 1 << max(6, math.ceil(math.log2(16.0 * s + 64.0)))


def tilted_power(x: FastLaw, n: int, trust: float = TRUST) -> FastLaw | None:
    """The n-fold convolution of ``x`` by tilted FFTs (section comment above), or None where a point of the support in
    the window is not covered within ``trust`` by any tilt (the caller then convolves directly)."""
    parts = tilted_parts(x, n)
    if parts is None or bool((parts.best[parts.support] < -trust).any()):
        return None
    return parts.law


@dataclass(frozen=True)
class TiltedParts:
    """What :func:`tilted_parts` computed: the law (values from the best tilt everywhere) and, per w = lo … hi of the
    window (c² = start + d·(w − lo)), ``best`` = log p_θ(w) − log max p_θ of the tilt the value came from (+inf at a
    hole), ``support`` (False at the holes found exactly near the ends)."""

    law: FastLaw
    start: int
    d: int
    best: torch.Tensor
    support: torch.Tensor


def tilted_parts(x: FastLaw, n: int) -> TiltedParts | None:
    """The tilted-FFT n-fold law of ``x`` with its per-point coverage (:class:`TiltedParts`), before the TRUST check;
    None where the tilts cannot be placed (mass at +inf in ``x``, a point mass, a θ grid that misses an end, or
    aliasing that window doubling does not remove)."""
    if x.log_dropped > NEG_INF:
        return None
    vals = torch.nonzero(torch.isfinite(x.log_pmf)).flatten()
    if vals.numel() < 2:
        return None
    xmin = int(vals[0])
    d = 0
    for v in (vals - xmin).tolist():  # over the support of one X (≤ a few thousand values)
        d = math.gcd(d, v)
    wk = (vals - xmin) // d
    lp = x.log_pmf[vals]  # not renormalised: a shift of ~1e-16 in every log p_k would become n·1e-16 in log q_E
    wf = wk.to(DTYPE)
    mu0 = _dyadic(float(torch.exp(lp) @ wf))
    z = wf - mu0
    nmu0 = n * mu0  # exact: μ₀ dyadic, n·μ₀ < 2^53
    top = n * int(wk[-1])
    var0 = float(torch.exp(lp) @ (z * z)) - float(torch.exp(lp) @ z) ** 2
    scale = 0.5 / math.sqrt(max(n * var0, 1e-300))
    u_max = math.asinh(2500.0 / scale)  # θ up to ±2500 per unit of z: beyond every stop
    theta, kap, mean, _ = _tilt_grid(lp, z, scale, -u_max, u_max, _GRID // 2)  # where the stops are
    ends = _ends(theta, kap, mean, n, nmu0, top)
    if ends is None:
        return None
    u = torch.asinh(theta / scale)
    theta, kap, mean, var = _tilt_grid(lp, z, scale, float(u[ends[0]]), float(u[ends[1]]), _GRID)  # the fine grid
    pick = _choose_tilts(theta, kap, mean, var, n, nmu0, top)
    if pick is None:
        return None
    chosen, lo, hi, below, above = pick
    idx = chosen
    th, ka = theta[idx], kap[idx]
    centers = [int(round(c)) for c in (n * mean[idx] + nmu0).tolist()]
    sizes = [_fft_size(s) for s in torch.sqrt(n * var[idx]).tolist()]
    if max(sizes) <= _ONE_SIZE:
        sizes = [max(sizes)] * len(sizes)  # one batch: per-call overhead dominates below this size
    width = hi - lo + 1
    best = torch.full((width,), -math.inf, dtype=DTYPE)
    value = torch.full((width,), NEG_INF, dtype=DTYPE)
    parts = []
    for size in sorted(set(sizes)):  # over distinct FFT sizes (a handful), not parameter points
        sel = [j for j, s in enumerate(sizes) if s == size]
        for _ in range(8):  # double the window while a tilted law reaches its ends (aliasing)
            w, drop, logp, aliased = _tilted_values(lp, z, n, nmu0, th[sel], ka[sel], [centers[j] for j in sel], size)
            if not aliased:
                break
            size *= 2
        else:
            return None
        parts.append((w.flatten(), drop.flatten(), logp.flatten()))
    w = torch.cat([p[0] for p in parts])
    drop = torch.cat([p[1] for p in parts])
    logp = torch.cat([p[2] for p in parts])
    inside = (w >= lo) & (w <= hi) & torch.isfinite(drop)
    pos = (w[inside] - lo).to(torch.int64)
    drop, logp = drop[inside], logp[inside]
    best = best.scatter_reduce(0, pos, drop, reduce="amax")
    support = _support_ends(wk, n, lo, hi, top)
    if not bool(torch.isfinite(best[support]).all()):
        return None
    best[~support] = math.inf  # a hole: no tilt's value is taken
    win = drop == best[pos]
    value[pos[win]] = logp[win]
    log_pmf = torch.full((d * (width - 1) + 1,), NEG_INF, dtype=DTYPE)
    log_pmf[torch.arange(width) * d] = value
    start = n * xmin + d * lo + n * x.offset
    law = _trim(start, log_pmf, _log_union(below, above))
    return TiltedParts(law, start, d, best, support)


def power_law(x: FastLaw, n: int) -> FastLaw:
    """The n-fold convolution of ``x``: by tilted FFTs (:func:`tilted_power`) where they cover the whole window within
    TRUST, else directly (:func:`power`)."""
    if n == 1:
        return x
    finite = torch.nonzero(torch.isfinite(x.log_pmf)).flatten()
    if n * (int(finite[-1]) - int(finite[0])) <= DIRECT_SPAN:  # a small law: the direct path is cheaper and exact
        return power(x, n)
    fast = tilted_power(x, n)
    return fast if fast is not None else power(x, n)


# ---------------------------------------------------------------------------------------------------------------
# one round


def _log_hypergeometric(N: int, g: int, n: int) -> torch.Tensor:
    """log P(K = k), k = 0..min(g, n), K ~ Hypergeometric(population N, g marked, n drawn) (−inf where impossible),
    from the end of zero probability mass-free: P(0) = Π_{j<g}(1 − n/(N−j)) and the ratio chain of F.4 when
    N − g ≥ n; else by a complement whose direct chain applies (one level, no recursion beyond it): K = g − K″,
    K″ ~ Hypergeometric(N, g, N − n) when n ≥ g, or K = n − K‴, K‴ ~ Hypergeometric(N, N − g, n) when n < g (an
    edge point N = g = 4, n = 1 recursed without end before)."""
    kmax = min(g, n)
    if N - g >= n:
        j = torch.arange(g, dtype=DTYPE)
        log_p0 = torch.sum(torch.log1p(-n / (N - j)))
        k = torch.arange(kmax, dtype=DTYPE)
        ratios = torch.log(g - k) + torch.log(n - k) - torch.log(k + 1) - torch.log(N - g - n + k + 1)
        return torch.cat([log_p0.reshape(1), log_p0 + torch.cumsum(ratios, 0)])
    if n == N:
        out = torch.full((kmax + 1,), NEG_INF, dtype=DTYPE)
        out[g] = 0.0
        return out
    out = torch.full((kmax + 1,), NEG_INF, dtype=DTYPE)
    if n >= g:  # K″ = g − K, the marked among the N − n not drawn: Hypergeometric(N, g, N − n), N − g ≥ N − n
        comp = _log_hypergeometric(N, g, N - n)
        out[g - torch.arange(comp.numel())] = comp
    else:  # N − g < n < g: K‴ = n − K, the unmarked drawn: Hypergeometric(N, N − g, n), N − (N − g) = g > n
        comp = _log_hypergeometric(N, N - g, n)
        out[n - torch.arange(comp.numel())] = comp
    return out


def _log_occupancy(items: int, m: int, s: int) -> torch.Tensor:
    """(items + 1, min(m, items) + 1) table: log P(ℓ of m groups of s slots are hit | i items in distinct uniform
    slots), i = 0..items (placement recursion of the module docstring, positive terms only)."""
    lmax = min(m, items)
    table = torch.full((items + 1, lmax + 2), NEG_INF, dtype=DTYPE)  # column 0: −inf padding (ℓ = −1)
    table[0, 1] = 0.0
    j = torch.arange(lmax + 1, dtype=DTYPE)
    i = torch.arange(items, dtype=DTYPE)[:, None]
    den = torch.log(m * s - i)
    stay = torch.log(torch.clamp(j * s - i, min=0.0)) - den  # (items, ℓ): the item lands in a hit group
    new = torch.log(torch.clamp((m - j + 1) * s, min=0.0)) - den  # … in one of the m − ℓ + 1 unhit groups
    for k in range(items):  # over placed items (≤ g), not parameter points
        table[k + 1, 1:] = torch.logaddexp(table[k, 1:] + stay[k], table[k, :-1] + new[k])
    return table[:, 1:]


def round_law_subsampling(N: int, m: int, s: int, g: int) -> torch.Tensor:
    """log P(L = k), k = 0..min(m, g): the number of the round's m subsets that contain a differentiating sample
    (seed 002 eq. (21) for s = 1, F.1's q_k in general, F.5's q_1 for m = 1)."""
    N, m, s, g, _ = _check(N, m, s, g, 1, rounds=False)
    hyp = _log_hypergeometric(N, g, m * s)  # K′ = 0..min(g, ms)
    occ = _log_occupancy(hyp.numel() - 1, m, s)  # (K′, ℓ)
    law = torch.logsumexp(hyp.unsqueeze(-1) + occ, dim=0)
    out = torch.full((min(m, g) + 1,), NEG_INF, dtype=DTYPE)
    out[:law.numel()] = law
    return out


def _squares_law(log_pl: torch.Tensor) -> FastLaw:
    """The law of L² from that of L (values k², holes −inf)."""
    K = log_pl.numel() - 1
    out = torch.full((K * K + 1,), NEG_INF, dtype=DTYPE)
    out[torch.arange(K + 1) ** 2] = log_pl
    return _trim(0, out, NEG_INF)


def binomial_law(T: int, log_p: float, log_1mp: float) -> FastLaw:
    """c² ~ Binomial(T, p) (seed 002 F.2/F.5: c² = c_1 when L ∈ {0, 1}, i.e. g = 1 or m = 1), its log pmf by Loader's
    saddle-point form (fast/base/composition.py: absolute error a few 1e-16·(1 + |log term|) at any T, where
    log-gamma differences would lose 1e-16·log T! ≈ 1e-8 at T = 10^7) on a window around the mode that is widened
    until both ends are below e^{DROP} of the mode; the mass beyond the window (bounded by the geometric series of
    the log-concave pmf's end ratios) goes to ``log_dropped``."""
    from ..base.composition import _log_binomial_pmf

    p = math.exp(log_p)
    mode = min(T, int((T + 1) * p))
    half = int(math.sqrt(2 * 800 * (T * p * (1 - p) + 1))) + 64
    lf = torch.lgamma(torch.arange(17, dtype=DTYPE) + 1)
    lp, l1p = torch.tensor([log_1mp], dtype=DTYPE), torch.tensor([log_p], dtype=DTYPE)
    while True:
        lo, hi = max(0, mode - half), min(T, mode + half)
        k = torch.arange(lo, hi + 1, dtype=DTYPE)
        log_pmf = _log_binomial_pmf(k, torch.tensor([float(T)], dtype=DTYPE), lp, l1p, lf)
        top = float(log_pmf.max())
        if (lo == 0 or float(log_pmf[0]) < top + DROP - 30) and (hi == T or float(log_pmf[-1]) < top + DROP - 30):
            break
        half *= 2
    outside = []
    if lo > 0:  # ratio pmf(k−1)/pmf(k) at the left end, < 1 there
        r = float(log_pmf[0] - log_pmf[1])
        outside.append(float(log_pmf[0]) + r - math.log(-math.expm1(r)))
    if hi < T:
        r = float(log_pmf[-1] - log_pmf[-2])
        outside.append(float(log_pmf[-1]) + r - math.log(-math.expm1(r)))
    log_out = float(torch.logsumexp(torch.tensor(outside, dtype=DTYPE), 0)) if outside else NEG_INF
    return _trim(lo, log_pmf, log_out)


# ---------------------------------------------------------------------------------------------------------------
# one epoch of shuffling


def _log_comb(n: int, k: int) -> float:
    """log C(n, k) for small k as a sum of k logs (relative error ~k·1e-16, no log-gamma cancellation)."""
    if k < 0 or k > n:
        return NEG_INF
    k = min(k, n - k)
    t = torch.arange(k, dtype=DTYPE)
    return float(torch.sum(torch.log((n - t) / (k - t))))


def epoch_law_shuffling(N: int, m: int, s: int, g: int) -> FastLaw:
    """The law of one epoch's Σ_b L_b² under shuffling (round generating function of the module docstring; m = 1:
    J = #distinct batches hit, the true occupancy law; g = 1: c² = 1)."""
    N, m, s, g, _ = _check(N, m, s, g, 1)
    R = N // (m * s)
    if m == 1:  # c² = J, the number of the R batches (of s slots) hit: the placement recursion over the whole epoch
        return _trim(0, _log_occupancy(g, R, s)[g], NEG_INF)
    items = min(g, m * s)
    occ = _log_occupancy(items, m, s)  # (i, ℓ)
    lmax = occ.shape[1] - 1
    V = g * min(m, g) + 1
    # U[i, v]: log Σ_ℓ a(i, ℓ) [v = ℓ²], i = 0..g (rows beyond ms slots impossible), a(i, ℓ) = C(ms, i) P(ℓ | i)
    U = torch.full((g + 1, V), NEG_INF, dtype=DTYPE)
    for i in range(1, items + 1):  # over items per round (≤ g)
        U[i, torch.arange(lmax + 1) ** 2] = _log_comb(m * s, i) + occ[i]
    total = torch.full((V,), NEG_INF, dtype=DTYPE)
    P = U.clone()  # U^j
    for j in range(1, min(g, R) + 1):  # over rounds hit (≤ g)
        total = torch.logaddexp(total, _log_comb(R, j) + P[g])
        if j == min(g, R):
            break
        P = _mul_x(P, U, g, V)
    log_pmf = total - _log_comb(N, g)
    return _trim(0, log_pmf, NEG_INF)


def _mul_x(P: torch.Tensor, U: torch.Tensor, g: int, V: int) -> torch.Tensor:
    """(P·U) truncated to x-degree ≤ g and y-degree < V (log space, direct: every output a logsumexp of its exact
    terms). U's y-support is the squares ℓ², so out[i, v] = log Σ_{i1 ≥ 1, ℓ} U[i1, ℓ²]·P[i − i1, v − ℓ²], gathered
    for blocks of output rows i at once."""
    lmax = math.isqrt(V - 1) if V > 1 else 0
    sq = torch.arange(lmax + 1) ** 2
    lmax = int(torch.nonzero(torch.isfinite(U[:, sq]).any(0)).flatten()[-1])
    sq = sq[: lmax + 1]
    pad = int(sq[-1])
    Uv = U[:, sq]  # (g + 1, ℓ), row 0 unused (U has no x⁰ term)
    Ppad = torch.cat([torch.full((g + 1, pad), NEG_INF, dtype=DTYPE), P], dim=1)
    yidx = torch.arange(V)[:, None] - sq[None, :] + pad  # (V, ℓ): index of P[·, v − ℓ²] in Ppad
    out = torch.full_like(P, NEG_INF)
    live = torch.nonzero(torch.isfinite(P).any(1)).flatten()
    if not live.numel():
        return out
    first = int(live[0]) + 1  # the least x-degree of P·U
    rows = max(1, _CHUNK // max(1, g * V * (lmax + 1)))
    i1 = torch.arange(1, g + 1)
    for start in range(first, g + 1, rows):  # blocks of output x-degrees (memory), not parameter points
        i = torch.arange(start, min(g + 1, start + rows))
        src = i[:, None] - i1[None, :]  # (rows, g): P's x-degree
        ok = src >= 0
        terms = Ppad[src.clamp(min=0)][:, :, yidx] + Uv[i1][None, :, None, :]  # (rows, g, V, ℓ)
        terms = torch.where(ok[:, :, None, None], terms, torch.full_like(terms, NEG_INF))
        out[i] = torch.logsumexp(terms.permute(0, 2, 1, 3).reshape(i.numel(), V, -1), dim=-1)
    return out


# ---------------------------------------------------------------------------------------------------------------
# q_E


def _check(N, m, s, g, E, statement_id: str = "bc.def4_1", rounds: bool = True) -> tuple[int, int, int, int, int]:
    """Domains (the reference's DomainError) and the conditions of Algorithm 1 (ConditionError with the texts of
    reference/bc/spec.py); returns the five counts as Python ints."""
    N = spec.DATASET_SIZE.check("N", N)
    m = spec.SUBSETS.check("m", m)
    s = spec.SUBSET_SIZE.check("s", s)
    g = spec.GROUP_SIZE.check("g", g)
    E = spec.EPOCHS.check("E", E)
    failed = []
    if not spec.batch_fits(N, m, s):
        failed.append(spec.BATCH_FITS.describe())
    if not spec.group_fits(N, g):
        failed.append(spec.GROUP_FITS.describe())
    if rounds and not spec.rounds_integer(N, m, s):
        failed.append(spec.ROUNDS_INTEGER.describe())
    if failed:
        raise ConditionError(statement_id, failed)
    return N, m, s, g, E


def _check_size(sampling: str, N: int, m: int, s: int, g: int, E: int) -> None:
    """The reference's refusal beyond the supported size of the exact q_E (reference/bc/spec.py qe_too_large: the
    same estimate from the parameters alone, the same words)."""
    too_large = spec.qe_too_large(sampling, N, m, s, g, E)
    if too_large:
        raise ParameterError(too_large)


@lru_cache(maxsize=64)
def qe_law(sampling: str, N: int, m: int, s: int, g: int, E: int) -> FastLaw:
    """q_E (seed 002 Def. 4.1, D.15): SS — the T-fold convolution of one round's L² (T = E·N/(ms)); SH — the
    E-fold convolution of one epoch's Σ_b L_b²."""
    spec.SAMPLING.check("sampling", sampling)
    N, m, s, g, E = _check(N, m, s, g, E)
    _check_size(sampling, N, m, s, g, E)
    if sampling == "subsampling":
        round_law = round_law_subsampling(N, m, s, g)
        T = E * (N // (m * s))
        if round_law.numel() == 2 and torch.isfinite(round_law).all():  # L ∈ {0, 1}: c² ~ Binomial(T, q_1)
            return binomial_law(T, float(round_law[1]), float(round_law[0]))
        return power_law(_squares_law(round_law), T)
    return power_law(epoch_law_shuffling(N, m, s, g), E)


# ---------------------------------------------------------------------------------------------------------------
# G.3: the law of J (batch clipping with shuffling, one epoch), true and as printed


def _g3_points(N, s, g, j):
    """Checked, broadcast (N, s, g, j) and the distinct (N, s, g) (conditions of bc.g3_bose_einstein, m = 1)."""
    from .._torch import params

    N, s, g, j = params(N=(N, spec.DATASET_SIZE), s=(s, spec.SUBSET_SIZE), g=(g, spec.GROUP_SIZE),
                        j=(j, spec.OCCUPANCY))
    keys = torch.stack([N.flatten(), s.flatten(), g.flatten()], dim=-1).to(torch.int64)
    unique, inverse = torch.unique(keys, dim=0, return_inverse=True)
    for Nv, sv, gv in unique.tolist():  # over distinct configurations
        _check(Nv, 1, sv, gv, 1, "bc.g3_bose_einstein")
    return unique.tolist(), inverse, j


def _g3_gather(tables, inverse, j):
    width = max(t.numel() for t in tables)
    padded = torch.full((len(tables), width + 1), NEG_INF, dtype=DTYPE)
    for i, t in enumerate(tables):
        padded[i, : t.numel()] = t
    idx = torch.clamp(j.flatten().to(torch.int64), max=width)  # j beyond g: probability 0 (the −inf column)
    return torch.exp(padded[inverse, idx]).reshape(j.shape)


def g3_occupancy(N, s, g, j, allow_outside: bool = False) -> torch.Tensor:
    """P(J = j), J = #distinct batches (of s slots, B = N/s of them) hit by the g differentiating samples in one
    shuffled epoch (seed 002, G.3 setting; the true occupancy law of notes §3.2/§6.4, by the placement recursion of
    this module — statement ``bc.g3_bose_einstein``, default)."""
    configs, inverse, j = _g3_points(N, s, g, j)
    tables = []
    for Nv, sv, gv in configs:
        law = epoch_law_shuffling(Nv, 1, sv, gv)  # c² = J when m = 1
        t = torch.full((gv + 1,), NEG_INF, dtype=DTYPE)
        t[law.offset: law.offset + law.log_pmf.numel()] = law.log_pmf
        tables.append(t)
    return _g3_gather(tables, inverse, j)


def g3_bose_einstein_printed(N, s, g, j) -> torch.Tensor:
    """Seed 002 G.3 as printed: q_j = C(N/s, j) C(g − 1, j − 1)/C(N/s − 1 + g, g), j = 1..g (0 at j = 0): the
    Bose–Einstein law (erratum, notes §6.4; variant ``printed`` of ``bc.g3_bose_einstein``)."""
    configs, inverse, j = _g3_points(N, s, g, j)
    tables = []
    for Nv, sv, gv in configs:
        B = Nv // sv
        t = torch.full((gv + 1,), NEG_INF, dtype=DTYPE)
        den = _log_comb(B - 1 + gv, gv)
        for jj in range(1, gv + 1):  # over j ≤ g
            t[jj] = _log_comb(B, jj) + _log_comb(gv - 1, jj - 1) - den
        tables.append(t)
    return _g3_gather(tables, inverse, j)
