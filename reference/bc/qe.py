"""The sampling-induced law q_E of c² (seed 002, Def. 4.1; eq. (21), F.1, F.5, D.9, D.15, G.3), computed exactly.

c² = Σ_rounds L_r², where L_r is the number of the m subsets of round r that hold at least one of the g
differentiating samples (seed 002, Def. 4.1; notes shared/notes/batch-clipping-fdp.md §2.3). The paper calls the exact
law "prohibitive"; it is not (notes §4.7):

* subsampling (SS): the rounds are i.i.d., so q_E is the T-fold convolution (T = E·N/(ms)) of the per-round law of
  L² (:func:`round_law_subsampling`: eq. (21) for s = 1, F.1 for general s, F.5 for m = 1), taken by exponentiation
  by squaring; when L ∈ {0, 1} (g = 1 or m = 1) c² is Binomial(T, q_1) and is summed in closed form;
* shuffling (SH): the epochs are i.i.d., so q_E is the E-fold convolution of the law of one epoch's Σ_b L_b²
  (:func:`epoch_law_shuffling`, exact counting with a generating function, below).

Exact arithmetic. Per-round and per-epoch laws are rationals (Python integers). The convolutions run in binary fixed
point with P = ⌈(2·dps + 60)·log2 10⌉ fractional bits (a Kronecker substitution: each pmf packed into one integer, one
big-integer product per convolution), floors only, so every entry carries an absolute error below n·2^−P (n the
support size), far below the pmf entries kept. Entries below 10^−(dps+30) (dps the working precision) are dropped
after each convolution and their mass is kept in ``Law.dropped``, counted as mass at c² = +∞ (in ``tail_above``, and as
a singular component by the mixture of :mod:`.mixture`, which makes δ larger and f smaller: conservative), never lost.

Generating function of one shuffling epoch (general (6); derived here, checked against enumeration in
tests/bc/test_bc_qe.py). The g differentiating samples occupy a uniform g-subset of the N positions of the epoch's
permutation; the epoch has R = N/(ms) rounds, each of m subsets of s positions. In one round, the number of j-subsets
of its ms positions that hit exactly L of its m subsets is

    w(j, L) = C(m, L) · Σ_{i=0}^{L} (−1)^i C(L, i) C((L − i)s, j)     (inclusion–exclusion over the L subsets),

so the number of g-subsets of the epoch with Σ_b L_b² = c² is [x^g y^{c²}] (Σ_{j,L} w(j, L) x^j y^{L²})^R, and
q_1(c²) is that count over C(N, g). For s = 1, w(j, L) = C(m, L)·[j = L] and one round's law is eq. (21); for
m = 1 (batch clipping) c² = J, the number of distinct batches hit, and the law is the true occupancy law of notes
§3.2 (:func:`bc_shuffling_occupancy`), not the Bose–Einstein q_j printed in G.3 (:func:`bc_shuffling_bose_einstein`,
erratum, notes §6.4).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
from mpmath import mp, mpf

from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, register
from ..errors import ConditionError, ParameterError, PrecisionError
from ..precision import checked_param, self_checked
from . import spec
from .spec import BATCH_FITS, GROUP_FITS, P_C2, P_G, P_J, P_N, P_QE_PART, P_S, QE_PARAMS, ROUNDS_INTEGER, SEED

QE_ID = "bc.def4_1"
DROP_DIGITS = 30  # entries below 10^−(dps + DROP_DIGITS) are dropped into Law.dropped


# ---------------------------------------------------------------------------------------------------------------
# The law


@dataclass(frozen=True)
class Law:
    """A law of c² on the non-negative integers (seed 002, Def. 4.1): ``support`` (ascending Python ints), ``pmf``
    (mpf, same length), and ``dropped``, the mass of entries below 10^−(dps+30) removed during the convolutions,
    counted as mass at c² = +∞. ``pmf`` sums to 1 − dropped within the working precision."""

    support: tuple[int, ...]
    pmf: tuple
    dropped: mpf = field(default_factory=lambda: mpf(0))
    exact_mean: mpf | None = None  # E[c²] from the per-round/per-epoch law when known (dropped mass included)
    dropped_from: int = 0  # every dropped entry had c² ≥ dropped_from (0 is always true; callers may bound tighter)

    def __post_init__(self):
        if len(self.support) != len(self.pmf):
            raise ValueError("Law: support and pmf differ in length")
        if any(b <= a for a, b in zip(self.support, self.support[1:])):
            raise ValueError("Law: support must be strictly ascending")

    def mass_at(self, c2) -> mpf:
        """q_E(c² = c2)."""
        i = _index(self.support, c2)
        return self.pmf[i] if i is not None else mpf(0)

    def tail_below(self, c2) -> mpf:
        """Σ_{c² < c2} q_E (strict)."""
        return mpmath.fsum(q for c, q in zip(self.support, self.pmf) if c < c2)

    def tail_above(self, c2) -> mpf:
        """Σ_{c² > c2} q_E (strict), the dropped mass (at c² = +∞) included."""
        return mpmath.fsum(q for c, q in zip(self.support, self.pmf) if c > c2) + self.dropped

    def mean(self) -> mpf:
        """E[c²]: the exact mean where the law was built from a per-round/per-epoch law, else the support's mean;
        raises when mass was dropped and no exact mean is known (the dropped mass sits at +∞)."""
        if self.exact_mean is not None:
            return self.exact_mean
        if self.dropped:
            raise PrecisionError("Law.mean: mass was dropped to c² = +inf and no exact mean is known")
        return mpmath.fsum(c * q for c, q in zip(self.support, self.pmf))

    def total(self) -> mpf:
        """Σ pmf + dropped (1 within the working precision)."""
        return mpmath.fsum(self.pmf) + self.dropped


def _index(support, c2):
    lo, hi = 0, len(support)
    while lo < hi:
        mid = (lo + hi) // 2
        if support[mid] < c2:
            lo = mid + 1
        else:
            hi = mid
    return lo if lo < len(support) and support[lo] == c2 else None


# ---------------------------------------------------------------------------------------------------------------
# Argument checks (direct Python calls; the catalogue's bind does the same for statements)


def _check_counts(**kw) -> dict:
    """The counts N, m, s, g, E of a direct call checked against their domains (DomainError), as Python ints."""
    domains = {"N": spec.DATASET_SIZE, "m": spec.SUBSETS, "s": spec.SUBSET_SIZE, "g": spec.GROUP_SIZE,
               "E": spec.EPOCHS}
    return {k: int(checked_param(k, domains[k], v)) for k, v in kw.items()}


def failed_conditions(N, m, s, g) -> list[str]:
    """The conditions of Algorithm 1 (spec.QE_CONDITIONS) that (N, m, s, g) fails, as ConditionError words."""
    failed = []
    if not spec.batch_fits(N, m, s):
        failed.append(BATCH_FITS.describe())
    if not spec.group_fits(N, g):
        failed.append(GROUP_FITS.describe())
    if not spec.rounds_integer(N, m, s):  # also fails where the batch does not fit (0 < N/(ms) < 1)
        failed.append(ROUNDS_INTEGER.describe())
    return failed


def _require(N, m, s, g, statement_id=QE_ID, *, whole_run=True):
    """Raise ConditionError naming every failed condition; ``whole_run=False`` (one round's law) needs no
    integer number of rounds."""
    failed = failed_conditions(N, m, s, g)
    if not whole_run:
        failed = [f for f in failed if f != ROUNDS_INTEGER.describe()]
    if failed:
        raise ConditionError(statement_id, failed)


def qe_conditions() -> tuple[Condition, ...]:
    """spec.QE_CONDITIONS with their predicates, for the statements whose parameters include N, m, s, g."""
    return (Condition.of(BATCH_FITS, lambda p: spec.batch_fits(p["N"], p["m"], p["s"])),
            Condition.of(GROUP_FITS, lambda p: spec.group_fits(p["N"], p["g"])),
            Condition.of(ROUNDS_INTEGER, lambda p: spec.rounds_integer(p["N"], p["m"], p["s"])))


# ---------------------------------------------------------------------------------------------------------------
# Exact per-round / per-epoch laws (rationals)


def hits_count(m: int, s: int, j: int, L: int) -> int:
    """w(j, L): the number of j-subsets of a round's ms slots (m subsets of s) that hit exactly L subsets,
    C(m, L)·Σ_i (−1)^i C(L, i) C((L − i)s, j) (inclusion–exclusion; module docstring)."""
    if L < 0 or L > m or j < 0:
        return 0
    return math.comb(m, L) * sum((-1) ** i * math.comb(L, i) * math.comb((L - i) * s, j) for i in range(L + 1))


def _round_law_subsampling_exact(N: int, m: int, s: int, g: int) -> list[Fraction]:
    """P(L = k), k = 0..min(m, g), as Fractions: K' ~ Hypergeom(N, g, ms) differentiating samples in the batch,
    then L | K' = j has law w(j, L)/C(ms, j) (seed 002, F.1's q_k; eq. (21) when s = 1; F.5 when m = 1)."""
    ms = m * s
    total = math.comb(N, ms)
    out = [Fraction(0)] * (min(m, g) + 1)
    for j in range(0, min(g, ms) + 1):
        pj = Fraction(math.comb(g, j) * math.comb(N - g, ms - j), total)
        if pj == 0:
            continue
        cj = math.comb(ms, j)
        for L in range(0, min(m, j) + 1):
            w = hits_count(m, s, j, L)
            if w:
                out[L] += pj * Fraction(w, cj)
    return out


def round_law_subsampling(N, m, s, g) -> list:
    """The law of L, the number of a subsampled round's m subsets that hold a differentiating sample (seed 002,
    eq. (21) for s = 1: q_k = C(N−g, m−k) C(g, k)/C(N, m); F.1 for general s, in the equivalent form of notes §2.12:
    K' ~ Hypergeom(N, g, ms), then the occupied subsets of K' items in m subsets of s slots; F.5 for m = 1:
    q_1 = 1 − C(N−g, s)/C(N, s)). Returns [P(L = k), k = 0..min(m, g)] as mpf (exact rationals rounded once)."""
    a = _check_counts(N=N, m=m, s=s, g=g)
    _require(a["N"], a["m"], a["s"], a["g"], whole_run=False)
    return [mpf(q.numerator) / q.denominator for q in _round_law_subsampling_exact(a["N"], a["m"], a["s"], a["g"])]


def _poly_mul_xtrunc(a: dict, b: dict, gmax: int) -> dict:
    """Product of bivariate integer polynomials {(j, c2): coef}, terms with j > gmax discarded."""
    out: dict = {}
    for (ja, ca), va in a.items():
        for (jb, cb), vb in b.items():
            j = ja + jb
            if j > gmax:
                continue
            key = (j, ca + cb)
            out[key] = out.get(key, 0) + va * vb
    return out


def _epoch_counts_shuffling(N: int, m: int, s: int, g: int) -> dict[int, int]:
    """{c²: number of g-subsets of the epoch's N positions with Σ_b L_b² = c²} = [x^g] (Σ w(j,L) x^j y^{L²})^R
    (module docstring); the counts sum to C(N, g)."""
    R = N // (m * s)
    base = {}
    for j in range(0, min(g, m * s) + 1):
        for L in range(0, min(m, j) + 1):
            w = hits_count(m, s, j, L)
            if w:
                base[(j, L * L)] = w
    result = {(0, 0): 1}
    power = base
    r = R
    while r:
        if r & 1:
            result = _poly_mul_xtrunc(result, power, g)
        r >>= 1
        if r:
            power = _poly_mul_xtrunc(power, power, g)
    counts = {c2: v for (j, c2), v in result.items() if j == g and v}
    if sum(counts.values()) != math.comb(N, g):  # exact integer identity: Vandermonde over the rounds
        raise PrecisionError("epoch_law_shuffling: counts do not sum to C(N, g)")
    return dict(sorted(counts.items()))


def _occupancy_exact(N: int, s: int, g: int) -> list[Fraction]:
    """P(J = j), j = 0..g, J the number of distinct batches of size s (B = N/s of them) that the g differentiating
    samples of a uniform permutation fall in: C(B, j)·Σ_i (−1)^i C(j, i) C((j − i)s, g) / C(N, g) (notes §3.2)."""
    B = N // s
    total = math.comb(N, g)
    return [Fraction(math.comb(B, j) * sum((-1) ** i * math.comb(j, i) * math.comb((j - i) * s, g)
                                           for i in range(j + 1)), total) for j in range(g + 1)]


def bc_shuffling_occupancy(N, s, g) -> list:
    """The true law of J = #distinct batches hit by the g differentiating samples in one shuffled epoch of batch
    clipping (m = 1; seed 002, G.3 setting; notes §3.2 and §6.4): [P(J = j), j = 0..g] (mpf), with
    P(J = j) = C(B, j)·Σ_i (−1)^i C(j, i) C((j − i)s, g) / C(N, g), B = N/s. One epoch's c² is J."""
    a = _check_counts(N=N, s=s, g=g)
    _require(a["N"], 1, a["s"], a["g"], "bc.g3_bose_einstein")
    return [mpf(q.numerator) / q.denominator for q in _occupancy_exact(a["N"], a["s"], a["g"])]


def bc_shuffling_bose_einstein(N, s, g) -> list:
    """Seed 002, G.3 as printed: q_j = C(N/s, j) C(g − 1, j − 1) / C(N/s − 1 + g, g), j = 1..g (returned for
    j = 0..g, q_0 = 0). This is the Bose–Einstein law of g indistinguishable balls in N/s boxes, not the law a
    random permutation induces (erratum, notes §6.4; :func:`bc_shuffling_occupancy` is the true law)."""
    a = _check_counts(N=N, s=s, g=g)
    _require(a["N"], 1, a["s"], a["g"], "bc.g3_bose_einstein")
    B, gg = a["N"] // a["s"], a["g"]
    den = math.comb(B - 1 + gg, gg)
    return [mpf(0)] + [mpf(math.comb(B, j) * math.comb(gg - 1, j - 1)) / den for j in range(1, gg + 1)]


def epoch_law_shuffling(N, m, s, g) -> Law:
    """The law of one shuffled epoch's Σ_b L_b² (seed 002, Def. 4.1 with E = 1; D.15; Appendix G), by exact counting
    (module docstring): the g = 1 case is c² = 1 (G.2), m = 1 the occupancy law of :func:`bc_shuffling_occupancy`."""
    a = _check_counts(N=N, m=m, s=s, g=g)
    _require(a["N"], a["m"], a["s"], a["g"])
    counts = _epoch_counts_shuffling(a["N"], a["m"], a["s"], a["g"])
    total = math.comb(a["N"], a["g"])
    support = tuple(counts)
    pmf = tuple(mpf(v) / total for v in counts.values())
    return Law(support, pmf, mpf(0), mpf(sum(c * v for c, v in counts.items())) / total)


# ---------------------------------------------------------------------------------------------------------------
# Fixed-point convolution (Kronecker substitution) with accounted truncation


def _frac_bits(extra_digits: int = 0) -> int:
    return int(math.ceil((2 * mp.dps + 60 + extra_digits) * math.log2(10)))


@dataclass(frozen=True)
class _Fixed:
    """A law of c² in fixed point: entries vals[i] ≈ 2^P · P(c² = lo + i), ``dropped`` ≈ 2^P · mass at +∞, and
    ``dfrom`` a lower bound on the c² of every dropped entry (meaningless while dropped = 0)."""

    lo: int
    vals: tuple[int, ...]
    dropped: int
    dfrom: int = 0

    def least(self) -> int:
        """A lower bound on every c² of the law, dropped entries included."""
        return min(self.lo, self.dfrom) if self.dropped else self.lo


def _to_fixed(pmf: dict[int, Fraction], P: int) -> _Fixed:
    lo, hi = min(pmf), max(pmf)
    vals = [0] * (hi - lo + 1)
    for c2, q in pmf.items():
        vals[c2 - lo] = (q.numerator << P) // q.denominator
    return _Fixed(lo, tuple(vals), 0, lo)


def _truncate(lo: int, vals: list[int], dropped: int, dfrom: int, threshold: int) -> _Fixed:
    """Move every entry below ``threshold`` into ``dropped`` (lowering ``dfrom`` to its c²) and trim the zero ends."""
    moved = 0
    for i, v in enumerate(vals):
        if 0 < v < threshold:
            moved += v
            vals[i] = 0
            dfrom = min(dfrom, lo + i)
    first = next((i for i, v in enumerate(vals) if v), None)
    if first is None:
        raise PrecisionError("q_E: every entry fell below the truncation threshold")
    last = max(i for i, v in enumerate(vals) if v)
    return _Fixed(lo + first, tuple(vals[first:last + 1]), dropped + moved, dfrom)


def _kronecker(a: tuple[int, ...], b: tuple[int, ...], P: int) -> list[int]:
    """(a ∗ b)_k = Σ_i a_i b_{k−i}, each divided by 2^P (floor), by one big-integer product."""
    n = min(len(a), len(b))
    width = (2 * P + n.bit_length() + 2 + 7) // 8  # bytes per slot: every slot sum is < 2^(2P + log2 n)
    A = int.from_bytes(b"".join(x.to_bytes(width, "little") for x in a), "little")
    B = A if a is b else int.from_bytes(b"".join(x.to_bytes(width, "little") for x in b), "little")
    size = len(a) + len(b) - 1
    raw = (A * B).to_bytes(size * width, "little")
    return [int.from_bytes(raw[i * width:(i + 1) * width], "little") >> P for i in range(size)]


def _convolve(x: _Fixed, y: _Fixed, P: int, threshold: int) -> _Fixed:
    vals = _kronecker(x.vals, y.vals, P)
    one = 1 << P
    dropped = x.dropped + y.dropped - ((x.dropped * y.dropped) >> P)  # 1 − (1 − d_x)(1 − d_y)
    dropped = min(dropped, one)
    # a pair with a dropped part has c² ≥ (that part's bound) + (the other law's least c²)
    bounds = [f.dfrom + o.least() for f, o in ((x, y), (y, x)) if f.dropped]
    dfrom = min(bounds) if bounds else x.lo + y.lo
    return _truncate(x.lo + y.lo, vals, dropped, dfrom, threshold)


def _power(base: _Fixed, n: int, P: int, threshold: int) -> _Fixed:
    """The n-fold convolution of ``base`` (exponentiation by squaring)."""
    result = None
    power = base
    while n:
        if n & 1:
            result = power if result is None else _convolve(result, power, P, threshold)
        n >>= 1
        if n:
            power = _convolve(power, power, P, threshold)
    return result


def _fixed_to_law(f: _Fixed, P: int, mean) -> Law:
    support, pmf = [], []
    for i, v in enumerate(f.vals):
        if v:
            support.append(f.lo + i)
            pmf.append(mpmath.ldexp(mpf(v), -P))
    return Law(tuple(support), tuple(pmf), mpmath.ldexp(mpf(f.dropped), -P), mean, f.dfrom if f.dropped else 0)


def _threshold(P: int, extra_digits: int = 0) -> int:
    """2^P · 10^−(dps + DROP_DIGITS + extra_digits), at least 1."""
    return max(1, (1 << P) // 10 ** (mp.dps + DROP_DIGITS + extra_digits))


# ---------------------------------------------------------------------------------------------------------------
# Binomial closed form (L ∈ {0, 1}: g = 1 or m = 1 under subsampling)


def _binomial_tail(v, k, step, ratio_at, threshold) -> mpf:
    """Σ of the binomial terms beyond the cut (v the last kept term at k, ``step`` ±1, ``ratio_at(k)`` the ratio
    term(k + step)/term(k), non-increasing away from the mode): summed on until a term is below 10^−20 of the sum
    so far with ratio < 1/2, then the geometric bound term·r/(1 − r) is added (an upper bound on the rest)."""
    tail = mpf(0)
    for _ in range(10**6):
        r = ratio_at(k)
        if r <= 0:
            return tail
        v, k = v * r, k + step
        tail += v
        if r < mpf(1) / 2 and v <= tail * mpf(10) ** -20:
            return tail + v * r / (1 - r)
    raise PrecisionError("q_E: binomial tail did not converge")


def _binomial_law(T: int, q1: Fraction, extra_digits: int = 0) -> Law:
    """c² ~ Binomial(T, q1) (seed 002, F.2/F.5: c² = c_1), summed outwards from the mode by the ratio recurrence;
    the entries below 10^−(dps + 30 + extra_digits) on either side are dropped and their mass (summed, plus a
    geometric bound on the far rest, so never less than the true mass) is kept in ``dropped`` (at c² = +∞)."""
    p = mpf(q1.numerator) / q1.denominator
    mean = T * p
    if q1 == 0:
        return Law((0,), (mpf(1),), mpf(0), mpf(0))
    if q1 == 1:
        return Law((T,), (mpf(1),), mpf(0), mpf(T))
    guard = 10 + len(str(T))
    with mp.workdps(mp.dps + guard):
        pp = mpf(q1.numerator) / q1.denominator
        qq = mpf(q1.denominator - q1.numerator) / q1.denominator
        mode = min(T, int((T + 1) * q1))
        log_mode = (mpmath.loggamma(T + 1) - mpmath.loggamma(mode + 1) - mpmath.loggamma(T - mode + 1)
                    + mode * mpmath.log(pp) + (T - mode) * mpmath.log(qq))
        threshold = mpf(10) ** (-(mp.dps - guard) - DROP_DIGITS - extra_digits)
        ratio = pp / qq
        up = lambda k: (T - k) / mpf(k + 1) * ratio  # term(k+1)/term(k)
        down = lambda k: k / mpf(T - k + 1) / ratio  # term(k−1)/term(k)
        entries = {mode: mpmath.exp(log_mode)}
        dropped = mpf(0)
        dfrom = T + 1
        for step, ratio_at in ((1, up), (-1, down)):
            v, k = entries[mode], mode
            while 0 <= k + step <= T:
                r = ratio_at(k)
                if v * r < threshold:
                    dropped += _binomial_tail(v, k, step, ratio_at, threshold)
                    dfrom = min(dfrom, k + 1 if step > 0 else 0)
                    break
                v, k = v * r, k + step
                entries[k] = v
    support = tuple(sorted(entries))
    return Law(support, tuple(+entries[k] for k in support), +dropped, mean, dfrom if dropped else 0)


# ---------------------------------------------------------------------------------------------------------------
# q_E


_CACHE: dict = {}
CACHE_SIZE = 64


def _qe_law_cached(*key) -> Law:
    """:func:`_qe_law_compute` memoised per key (a plain dict, oldest entry evicted first)."""
    if key not in _CACHE:
        if len(_CACHE) >= CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = _qe_law_compute(*key)
    return _CACHE[key]


def _qe_law_compute(sampling: str, N: int, m: int, s: int, g: int, E: int, prec: int, extra_digits: int) -> Law:
    """q_E at working precision ``prec`` (bits; part of the cache key only) with the drop threshold
    10^−(dps + 30 + extra_digits)."""
    P = _frac_bits(extra_digits)
    threshold = _threshold(P, extra_digits)
    if sampling == "subsampling":
        T = E * (N // (m * s))
        q = _round_law_subsampling_exact(N, m, s, g)
        mean_round = sum(k * k * qk for k, qk in enumerate(q))
        mean = mpf(mean_round.numerator) * T / mean_round.denominator
        if len(q) <= 2:  # L ∈ {0, 1}: c² ~ Binomial(T, q_1)
            return _binomial_law(T, q[1] if len(q) == 2 else Fraction(0), extra_digits)
        base = _to_fixed({k * k: qk for k, qk in enumerate(q) if qk}, P)
        return _fixed_to_law(_power(base, T, P, threshold), P, mean)
    counts = _epoch_counts_shuffling(N, m, s, g)
    total = math.comb(N, g)
    mean = mpf(sum(c * v for c, v in counts.items()) * E) / total
    if len(counts) == 1:
        (c2,) = counts
        return Law((c2 * E,), (mpf(1),), mpf(0), mean)
    base = _to_fixed({c2: Fraction(v, total) for c2, v in counts.items()}, P)
    return _fixed_to_law(_power(base, E, P, threshold), P, mean)


MAX_EXTRA_DIGITS = 5000  # a bound on the work of qe_law's extra_digits (PrecisionError beyond)


def qe_law(sampling, N, m, s, g, E, extra_digits: int = 0) -> Law:
    """q_E, the law of c² over the whole run (seed 002, Def. 4.1; notes §4.7): subsampling, the T-fold convolution of
    the per-round law of L² (T = E·N/(ms)); shuffling, the E-fold convolution of one epoch's law. Exact up to the
    dropped entries, those below 10^−(dps + 30 + extra_digits) (module docstring): callers whose value is itself
    tiny ask for more digits (mixture.py). Cached per (parameters, working precision, extra_digits)."""
    sampling = checked_param("sampling", spec.SAMPLING, sampling)
    a = _check_counts(N=N, m=m, s=s, g=g, E=E)
    _require(a["N"], a["m"], a["s"], a["g"])
    too_large = spec.qe_too_large(sampling, a["N"], a["m"], a["s"], a["g"], a["E"])
    if too_large:
        raise ParameterError(too_large)
    extra_digits = int(extra_digits)
    if not 0 <= extra_digits <= MAX_EXTRA_DIGITS:
        raise PrecisionError(f"qe_law: extra_digits={extra_digits} outside [0, {MAX_EXTRA_DIGITS}] (a value below "
                             f"10^-{MAX_EXTRA_DIGITS} was asked for)")
    return _qe_law_cached(sampling, a["N"], a["m"], a["s"], a["g"], a["E"], mp.prec, extra_digits)


# ---------------------------------------------------------------------------------------------------------------
# Statements


@self_checked
def def4_1(sampling, N, m, s, g, E, c2, part="at"):
    """q_E at c² (seed 002, Def. 4.1): ``part`` = "at" gives q_E(c² = c2), "below" Σ_{c² < c2} q_E, "above"
    Σ_{c² > c2} q_E (with the dropped mass, at +∞). c² = Σ_k c_k k², c_k the number of rounds with exactly k
    differentiating subsets."""
    law = qe_law(sampling, N, m, s, g, E)
    c2 = int(c2)
    if part == "at":
        return law.mass_at(c2)
    if part == "below":
        return law.tail_below(c2)
    return law.tail_above(c2)


register(Statement(
    id=QE_ID,
    fast="dpspec.fast.bc.mixture:def4_1",
    source=Source(SEED, "Def. 4.1", "the sampling-induced law q_E of c² = Σ_rounds L_r² (exact; notes §4.7)"),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="q_E(c²) = Pr[Σ_{(b,e)} L_{b,e}² = c²], L_{b,e} = #subsets of round (b,e) holding a differentiating sample",
    params=(*QE_PARAMS, P_C2,
            P_QE_PART),
    conditions=qe_conditions(),
    reference=def4_1,
    privacy=Privacy("replace_one", "n/a", "subsampling or shuffling (Algorithm 1)"),
    note="SS: T-fold convolution of the per-round law (eq. (21), F.1, F.5); SH: E-fold convolution of the exact "
         "per-epoch occupancy law. Entries below 10^-(dps+30) go to mass at c² = +inf (counted in 'above').",
))


@self_checked
def g3_occupancy(N, s, g, j):
    """P(J = j) for batch clipping with shuffling, one epoch (seed 002, G.3 setting): the true occupancy law of a
    random permutation (notes §3.2, §6.4), C(B, j)·Σ_i (−1)^i C(j, i) C((j − i)s, g)/C(N, g), B = N/s."""
    law = bc_shuffling_occupancy(N, s, g)
    j = int(j)
    return law[j] if j < len(law) else mpf(0)


@self_checked
def g3_bose_einstein_printed(N, s, g, j):
    """Seed 002, G.3 as printed: q_j = C(N/s, j) C(g−1, j−1)/C(N/s − 1 + g, g) (Bose–Einstein; erratum, notes
    §6.4)."""
    law = bc_shuffling_bose_einstein(N, s, g)
    j = int(j)
    return law[j] if j < len(law) else mpf(0)


_G3_CONDITIONS = (Condition.of(BATCH_FITS, lambda p: spec.batch_fits(p["N"], 1, p["s"])),
                  Condition.of(GROUP_FITS, lambda p: spec.group_fits(p["N"], p["g"])),
                  Condition.of(ROUNDS_INTEGER, lambda p: spec.rounds_integer(p["N"], 1, p["s"])))

register(Statement(
    id="bc.g3_bose_einstein",
    fast="dpspec.fast.bc.qe:g3_occupancy",
    source=Source(SEED, "G.3 (q_j)", "the law of J = #distinct batches hit by g samples, BC with shuffling"),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="P(J = j) = C(N/s, j)·Σ_i (−1)^i C(j,i) C((j−i)s, g)/C(N, g) (printed: C(N/s,j)C(g−1,j−1)/C(N/s−1+g,g))",
    params=(P_N, P_S, P_G, P_J),
    conditions=_G3_CONDITIONS,
    reference=g3_occupancy,
    variants={"printed": Variant(
        g3_bose_einstein_printed,
        f"{SEED}, G.3 prints q_j = C(N/s, j) C(g−1, j−1)/C(N/s−1+g, g), the Bose–Einstein law of indistinguishable "
        "balls; a random permutation induces the occupancy law of distinguishable samples in batches of s slots "
        "(notes §3.2, §6.4). At N/s = 100, s = 64, g = 2 the printed P(J=1) = 0.0198 against the true 0.00985.",
        is_bound=False)},
    privacy=Privacy("replace_one", "n/a", "shuffling"),
    note="The default is the corrected (true occupancy) law; the id keeps the contract's name for G.3's q_j.",
))
