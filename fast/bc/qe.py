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
* SS over T = E·N/(ms) rounds: c² = Σ_r L_r², the T-fold convolution of the law of L² by squaring (notes §4.7);
  where L ∈ {0, 1} (g = 1 or m = 1) c² is Binomial(T, q_1) and is evaluated directly (:func:`binomial_law`).
* one epoch under shuffling (SH): the g samples take g of the N = R·ms slots uniformly; a round that receives i of
  them has a(i, ℓ) = C(ms, i)·P(L = ℓ | i) slot choices hitting ℓ subsets (the recursion above), so
  q_epoch(v) = [x^g y^v] (Σ_{i,ℓ} a(i, ℓ) x^i y^{ℓ²})^R / C(N, g) = Σ_{j ≤ g} C(R, j) [x^g y^v] U^j / C(N, g),
  U = Σ_{i ≥ 1} a(i, ℓ) x^i y^{ℓ²} (the round generating function; j = number of rounds hit). m = 1 (batch
  clipping) gives the true occupancy law of J = #distinct batches hit (notes §3.2 and §6.3, not the printed
  Bose–Einstein q_j of G.3); g = 1 gives c² = E.
* SH over E epochs: the E-fold convolution of the epoch law by squaring.

Convolutions are direct (every output a logsumexp of its exact terms: no FFT round-off floor — notes §4.7 saw FFT
leave ~1e-14 of spurious tail mass), so tails far below 1e-300 and the support (−inf entries) are exact up to
float64 rounding of each log term: relative error ≲ (number of convolution steps)·1e-16·max|log q| (≲ 1e-11 in the
tested domain). After each convolution the ends of the window whose mass is below ``DROP`` (relative, e^{−745}:
below the smallest float64) are cut and their mass is moved to ``log_dropped`` (counted at +inf c²: more
pessimistic for every privacy quantity).

Cost: SS takes about 2·log₂ T convolutions of windows of up to W values (W: the c² that carry mass above e^{−745}
of the total), W² terms each once the window is dense; SH's epoch law costs about g²·V·min(m, g)·g terms (V = g·min(m, g) + 1 values of
one epoch's c²). Measured on a shared 2-core CPU (one thread): E = 10³, N/(sm) = 10⁴ — g = 1 or m = 1 (binomial) well
under a second, g = m = 8: 6 s, SH batch clipping g = 64: 7 s; g = m = 16, E = 100: 9 s (SS), 1 s (SH);
SH g = m = 32, E = 10: 14 s; SS g = m = 64, E = 100: 38 s. Too slow for interactive use: SS with g, m ≥ 32 and
E = 10³ (minutes, W ≈ 2·10⁴) and SH with g = m = 64 (the epoch law alone, minutes). The mpmath reference (exact
big-integer Kronecker products) is of the same order here — it is not the bottleneck for q_E; the fast path's gain
is in f, δ and ε over grids (benchmarks/bench_bc.py).
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
    table = torch.full((items + 1, lmax + 1), NEG_INF, dtype=DTYPE)
    table[0, 0] = 0.0
    j = torch.arange(lmax + 1, dtype=DTYPE)
    for i in range(items):  # over placed items (≤ g), not parameter points
        prev = table[i]
        stay = torch.log(torch.clamp(j * s - i, min=0.0)) - math.log(m * s - i)
        new = torch.log(torch.clamp((m - j + 1) * s, min=0.0)) - math.log(m * s - i)
        shifted = torch.cat([torch.tensor([NEG_INF], dtype=DTYPE), prev[:-1]])
        table[i + 1] = torch.logaddexp(prev + stay, shifted + new)
    return table


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
    """(P·U) truncated to x-degree ≤ g and y-degree < V (log space, direct)."""
    out = torch.full_like(P, NEG_INF)
    for i1 in range(1, g + 1):  # x-degree of U's term (≤ g)
        row = U[i1]
        if not bool(torch.isfinite(row).any()):
            continue
        src = P[: g + 1 - i1]  # rows i2 with i1 + i2 ≤ g
        conv = log_conv(row, src)[..., :V]
        out[i1:] = torch.logaddexp(out[i1:], conv)
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
        return power(_squares_law(round_law), T)
    return power(epoch_law_shuffling(N, m, s, g), E)


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
