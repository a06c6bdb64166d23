"""q_E exactly (seed 002, Def. 4.1; eq. (21), F.1, F.5, G.3; reference/bc/qe.py): per-round and per-epoch laws against
brute-force enumeration of the samplers, the notes' vectors (shared/notes/batch-clipping-fdp.md §5.5, §5.8), the
convolutions against naive exact convolution, the dropped-mass accounting, and one clear error per bad input."""
from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.bc import qe
from dpspec.reference.errors import ConditionError, DomainError

catalogue.load_all()


@pytest.fixture(autouse=True)
def _fifty_digits():
    """The reference's default working precision (the module functions compute at mp.dps)."""
    with mpmath.workdps(50):
        yield


# ---------------------------------------------------------------------------------------------------------------
# One subsampled round


@pytest.mark.parametrize("args, printed", [
    ((30, 3, 2, 3), [0.49852, 0.42562, 0.07389, 0.00197]),
    ((40, 2, 4, 3), [0.50202, 0.44130, 0.05668]),
    ((20, 4, 3, 4), [0.01445, 0.21465, 0.50898, 0.24520, 0.01672]),
])
def test_round_law_f1_reproduces_the_notes_vectors(args, printed):
    """notes §5.8, F.1 q_k (exact enumeration = simulation there), 5 digits as printed."""
    law = qe.round_law_subsampling(*args)
    assert [round(float(x), 5) for x in law] == pytest.approx(printed, abs=1e-5)
    assert abs(mpmath.fsum(law) - 1) < mpf(10) ** -45


@pytest.mark.parametrize("N, m, g", [(30, 3, 2), (50, 7, 4), (12, 12, 3)])
def test_round_law_is_eq21_for_individual_clipping(N, m, g):
    """s = 1: q_k = C(N−g, m−k) C(g, k)/C(N, m) (seed 002, eq. (21)), exactly."""
    exact = qe._round_law_subsampling_exact(N, m, 1, g)
    for k, q in enumerate(exact):
        assert q == Fraction(math.comb(N - g, m - k) * math.comb(g, k), math.comb(N, m))


@pytest.mark.parametrize("N, s, g", [(30, 4, 3), (50000, 64, 2), (60000, 128, 10)])
def test_round_law_is_f5_for_batch_clipping(N, s, g):
    """m = 1: q_1 = 1 − C(N−g, s)/C(N, s) (seed 002, F.5), exactly."""
    exact = qe._round_law_subsampling_exact(N, 1, s, g)
    assert exact == [Fraction(math.comb(N - g, s), math.comb(N, s)), 1 - Fraction(math.comb(N - g, s), math.comb(N, s))]


def test_f9_q_matches_the_notes():
    """notes §5.8: F.9 q = (N/s)(1 − C(N−g,s)/C(N,s)); N = 50000, s = 64: g = 2 → 1.99873997, g = 10 → 9.94348597."""
    for g, printed in ((2, 1.99873997), (5, 4.98741536), (10, 9.94348597)):
        q1 = qe._round_law_subsampling_exact(50000, 1, 64, g)[1]
        assert float(Fraction(50000, 64) * q1) == pytest.approx(printed, abs=1e-8)


def _brute_round(N, m, s, g):
    """P(L = k) by enumerating every ordered draw of the ms batch slots (permutations of the first ms positions)."""
    counts = [0] * (min(m, g) + 1)
    total = 0
    for batch in itertools.permutations(range(N), m * s):
        groups = [batch[h * s:(h + 1) * s] for h in range(m)]
        L = sum(1 for grp in groups if any(i < g for i in grp))
        counts[L] += 1
        total += 1
    return [Fraction(c, total) for c in counts]


@pytest.mark.parametrize("N, m, s, g", [(6, 2, 2, 2), (7, 3, 2, 3), (6, 2, 3, 3), (5, 1, 3, 2)])
def test_round_law_against_enumeration(N, m, s, g):
    assert qe._round_law_subsampling_exact(N, m, s, g) == _brute_round(N, m, s, g)


# ---------------------------------------------------------------------------------------------------------------
# One shuffled epoch


def _brute_epoch(N, m, s, g):
    """{c²: count} over all placements of the g differentiating samples (g-subsets of the permuted positions)."""
    out = {}
    for pos in itertools.combinations(range(N), g):
        c2 = 0
        for b in range(N // (m * s)):
            subsets = {p // s for p in pos if b * m * s <= p < (b + 1) * m * s}
            c2 += len(subsets) ** 2
        out[c2] = out.get(c2, 0) + 1
    return dict(sorted(out.items()))


@pytest.mark.parametrize("N, m, s, g", [(12, 2, 2, 3), (12, 3, 2, 4), (16, 2, 4, 3), (12, 1, 3, 4), (12, 6, 1, 3),
                                        (8, 2, 2, 1)])
def test_epoch_generating_function_against_enumeration(N, m, s, g):
    """The generating function [x^g](Σ w(j,L) x^j y^{L²})^R counts exactly what enumeration counts."""
    assert qe._epoch_counts_shuffling(N, m, s, g) == _brute_epoch(N, m, s, g)


def test_epoch_law_g1_is_one_round():
    """Lemma G.2: with g = 1 exactly one round holds the sample: c² = 1 per epoch, c² = E over E epochs."""
    law = qe.epoch_law_shuffling(64, 4, 2, 1)
    assert law.support == (1,) and law.pmf == (1,)
    run = qe.qe_law("shuffling", 64, 4, 2, 1, 7)
    assert run.support == (7,) and run.pmf[0] == 1 and run.dropped == 0


@pytest.mark.parametrize("g", [2, 3, 5])
def test_bc_occupancy_is_the_m1_epoch_law(g):
    """m = 1: one epoch's c² is J, the number of distinct batches hit (notes §3.2)."""
    occ = qe.bc_shuffling_occupancy(640, 64, g)
    epoch = qe.epoch_law_shuffling(640, 1, 64, g)
    for j, p in enumerate(occ):
        assert abs(epoch.mass_at(j) - p) < mpf(10) ** -45


@pytest.mark.parametrize("g, true, printed", [
    (2, [0.00985, 0.99015], [0.0198, 0.9802]),
    (3, [0.0001, 0.02925, 0.97065], [0.00058, 0.05766, 0.94176]),
    (5, [0, 1e-5, 0.00234, 0.09278, 0.90486], [0, 0.00022, 0.01055, 0.17056, 0.81868]),
])
def test_g3_true_and_bose_einstein_laws_match_the_notes(g, true, printed):
    """notes §5.5: N/s = 100, s = 64; the true occupancy law and the printed (Bose–Einstein) q_j, j = 1..g."""
    occ = [float(x) for x in qe.bc_shuffling_occupancy(6400, 64, g)[1:]]
    be = [float(x) for x in qe.bc_shuffling_bose_einstein(6400, 64, g)[1:]]
    assert occ == pytest.approx(true, abs=6e-6)
    assert be == pytest.approx(printed, abs=6e-6)
    # the tails P(J < g) of §5.5: BE about twice the true one
    assert 1 - occ[-1] < 1 - be[-1]


def test_g3_statement_default_is_true_and_printed_is_not_a_bound():
    st = catalogue.get("bc.g3_bose_einstein")
    true = st.evaluate(N=6400, s=64, g=2, j=1)
    printed = st.evaluate(N=6400, s=64, g=2, j=1, variant="printed")
    assert float(true.value) == pytest.approx(0.0098453, rel=1e-4) and true.is_bound
    assert float(printed.value) == pytest.approx(100 / 5050, rel=1e-12) and not printed.is_bound


@pytest.mark.parametrize("N, m, s, g, simulated", [
    (6400, 4, 16, 2, 0.00752), (6400, 4, 16, 3, 0.02222), (6400, 64, 1, 3, 0.02894), (6400, 1, 64, 3, 0.0),
    (64000, 8, 8, 4, 0.00514)])
def test_g2_simulated_tails_of_the_notes(N, m, s, g, simulated):
    """notes §5.5, G.2 table: P(c² > g) simulated with 10^5 draws; the exact value lies within 5 binomial standard
    errors (sd = sqrt(p(1−p)/10^5)); m = 1 (BC) has c² = J ≤ g exactly."""
    p = float(qe.epoch_law_shuffling(N, m, s, g).tail_above(g))
    if simulated == 0:
        assert p == 0
    else:
        assert abs(p - simulated) <= 5 * math.sqrt(p * (1 - p) / 1e5)


# ---------------------------------------------------------------------------------------------------------------
# Convolutions


def _naive_power(pmf: dict, n: int) -> dict:
    out = {0: Fraction(1)}
    for _ in range(n):
        nxt = {}
        for a, pa in out.items():
            for b, pb in pmf.items():
                nxt[a + b] = nxt.get(a + b, 0) + pa * pb
        out = nxt
    return out


@pytest.mark.parametrize("sampling, N, m, s, g, E", [
    ("subsampling", 12, 2, 2, 3, 2), ("subsampling", 20, 4, 1, 3, 1), ("subsampling", 12, 3, 1, 1, 3),
    ("subsampling", 12, 1, 3, 2, 2), ("shuffling", 12, 2, 2, 3, 3), ("shuffling", 12, 1, 3, 4, 2)])
def test_qe_law_equals_naive_exact_convolution(sampling, N, m, s, g, E):
    """The fixed-point squaring (and the binomial closed form) against a naive convolution of exact Fractions."""
    if sampling == "subsampling":
        base = {k * k: q for k, q in enumerate(qe._round_law_subsampling_exact(N, m, s, g)) if q}
        n = E * N // (m * s)
    else:
        counts = qe._epoch_counts_shuffling(N, m, s, g)
        base = {c2: Fraction(v, math.comb(N, g)) for c2, v in counts.items()}
        n = E
    exact = _naive_power(base, n)
    with mpmath.workdps(50):
        law = qe.qe_law(sampling, N, m, s, g, E)
        assert law.dropped < mpf(10) ** -79
        for c2, q in exact.items():
            assert abs(law.mass_at(c2) - mpf(q.numerator) / q.denominator) <= mpf(10) ** -45 * (1 + 0 * q)
        assert set(law.support) <= set(exact)
        mean = sum(c * q for c, q in exact.items())
        assert abs(law.mean() - mpf(mean.numerator) / mean.denominator) < mpf(10) ** -40


def test_qe_law_g1_subsampling_vector():
    """notes §5.2: SS g = 1, E = 4, N/(sm) = 100: q_E(0) = 0.0179505533 (= 0.99^400), not e^{−4}."""
    law = qe.qe_law("subsampling", 400, 4, 1, 1, 4)
    assert float(law.mass_at(0)) == pytest.approx(0.0179505533, abs=1e-10)
    assert abs(law.mass_at(0) - mpf("0.99") ** 400) < mpf(10) ** -45


def test_dropped_mass_is_accounted_not_lost():
    """A long run drops far-tail entries: they sit in ``dropped`` (at c² = +∞), the law still sums to 1, and
    tail_above the largest kept c² is exactly the dropped mass."""
    for args in (("subsampling", 100000, 10, 1, 3, 10), ("subsampling", 4000, 1, 4, 2, 30),
                 ("shuffling", 6400, 4, 16, 3, 40)):
        law = qe.qe_law(*args)
        assert law.dropped > 0, args
        assert abs(law.total() - 1) < mpf(10) ** -45, args
        assert law.tail_above(law.support[-1]) == law.dropped
        assert law.tail_below(law.support[0]) == 0
        mid = law.support[len(law.support) // 2]
        assert abs(law.tail_below(mid) + law.mass_at(mid) + law.tail_above(mid) - 1) < mpf(10) ** -45
        assert min(law.pmf) >= mpf(10) ** -(mpmath.mp.dps + qe.DROP_DIGITS) / 2


def test_large_t_is_fast_and_has_the_exact_mean():
    """T = 10^5 rounds (IC, g = 3): the mean is T·E[L²] (E[L²] from eq. (21)); runs in well under a second."""
    law = qe.qe_law("subsampling", 100000, 10, 1, 3, 10)
    q = qe._round_law_subsampling_exact(100000, 10, 1, 3)
    mean = 100000 * sum(k * k * x for k, x in enumerate(q))
    assert abs(law.mean() - mpf(mean.numerator) / mean.denominator) < mpf(10) ** -40
    kept = mpmath.fsum(c * p for c, p in zip(law.support, law.pmf))
    assert abs(kept - law.mean()) < mpf(10) ** -40  # the dropped far tail carries no visible mean


def test_more_digits_drop_less():
    a = qe.qe_law("subsampling", 400, 4, 1, 1, 4)
    b = qe.qe_law("subsampling", 400, 4, 1, 1, 4, extra_digits=100)
    assert b.dropped < a.dropped * mpf(10) ** -90 and len(b.support) > len(a.support)
    for c2, p in zip(a.support, a.pmf):
        assert abs(b.mass_at(c2) - p) <= mpf(10) ** -45 * p


# ---------------------------------------------------------------------------------------------------------------
# Errors: one clear error per bad input


@pytest.mark.parametrize("N, m, s, g, E, cls, words", [
    (10, 4, 3, 1, 1, ConditionError, "batch_fits"),
    (12, 2, 2, 13, 1, ConditionError, "group_fits"),
    (10, 2, 2, 1, 1, ConditionError, "rounds_integer"),
    (12, 2, 2, 1, 0, DomainError, "E=0"),
    (12, 0, 2, 1, 1, DomainError, "m=0"),
])
def test_bad_inputs_raise_one_clear_error(N, m, s, g, E, cls, words):
    with pytest.raises(cls, match=words):
        qe.qe_law("subsampling", N, m, s, g, E)
    with pytest.raises(cls, match=words):
        catalogue.get("bc.def4_1").evaluate(sampling="shuffling", N=N, m=m, s=s, g=g, E=E, c2=1)


def test_bad_sampler_is_a_domain_error():
    with pytest.raises(DomainError, match="sampling="):
        qe.qe_law("poisson", 12, 2, 2, 1, 1)


def test_def4_1_statement_parts():
    st = catalogue.get("bc.def4_1")
    p = dict(sampling="subsampling", N=400, m=4, s=1, g=1, E=4)
    at, below, above = (st.evaluate(c2=4, part=x, **p).value for x in ("at", "below", "above"))
    assert abs(at + below + above - 1) < mpf(10) ** -45
    assert float(st.evaluate(c2=0, **p).value) == pytest.approx(0.0179505533, abs=1e-10)
