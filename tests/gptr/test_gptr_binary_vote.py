"""Binary voting with report-noisy-max (seed 003 Ex B.3.1, Thm B.3.2; notes shared/notes/generalized-ptr.md §2.6,
§3.10, §4, §5.2, erratum E4): gptr.thm_b3_2 (exact data-dependent ε, its δ > 0 version, the printed bound),
gptr.ex_b3_1 (the three procedures' accounting), the witness gptr.binary_rnm and the three procedures.

Independent routes: the Laplace-difference tail by quadrature of the density (1 + |z|)e^{−|z|}/4, the four
neighbours built from (n0, n1) with the max(·, 0) clamp, hockey-stick divergences of the two-point laws, and
Monte Carlo of the mechanisms (seeds and z stated)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.conformance.sampling import check_sampler
from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.gptr import binary_vote as B

catalogue.load_all()


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(30):
        yield


def _p_class0_by_quadrature(n0, n1, eps):
    """P[n0 + Lap(1/ε) > n1 + Lap(1/ε)] = P[Z > ε(n1 − n0)], Z with density (1 + |z|)e^{−|z|}/4 (Ex B.3.1)."""
    s = mpf(eps) * (n1 - n0)
    f = lambda z: (1 + abs(z)) * mpmath.exp(-abs(z)) / 4
    if s < 0:
        return mpmath.quad(f, sorted({s, mpf(0), s + 50}) + [mpmath.inf])
    return mpmath.quad(f, [s, s + 50, mpmath.inf])


def _eps_by_definition(n0, n1, eps, delta=0):
    """Thm B.3.2 from its definition: the four neighbours n0 → max(n0 ± 1, 0), n1 → max(n1 ± 1, 0), both
    directions, the smallest ε ≥ 0 with max_o (P(o) − e^ε Q(o)) ≤ δ (δ = 0: max |log ratio|)."""
    p = _p_class0_by_quadrature(n0, n1, eps)
    best = mpf(0)
    for m0, m1 in ((max(n0 + 1, 0), n1), (max(n0 - 1, 0), n1), (n0, max(n1 + 1, 0)), (n0, max(n1 - 1, 0))):
        q = _p_class0_by_quadrature(m0, m1, eps)
        for a, b in (((p, 1 - p), (q, 1 - q)), ((q, 1 - q), (p, 1 - p))):
            for x, y in zip(a, b):
                if x > delta:
                    best = max(best, mpmath.log((x - delta) / y))
    return best


# ---------------------------------------------------------------------------------------------------------------
# gptr.thm_b3_2

@pytest.mark.parametrize("eps, t, expect", [(1, 0, 0.5945), (1, 1, 0.7123), (1, 5, 0.8665), (1, 10, 0.9200),
                                            (1, 100, 0.9902), (10, 0, 8.208), (10, 1, 9.394), (10, 100, 9.990)])
def test_notes_table(eps, t, expect):
    digits = len(str(expect).replace(".", "").lstrip("0"))
    value = B.binary_rnm_epsilon(t, eps)
    assert abs(float(value) - expect) <= 0.5 * 10 ** (math.floor(math.log10(expect)) - digits + 1) + 1e-12
    assert value == B.binary_rnm_epsilon(-t, eps)  # even in t


@pytest.mark.parametrize("n0, n1, eps, delta", [(0, 0, 1, 0), (0, 3, 1, 0), (7, 2, "0.5", 0), (10, 10, 2, 0),
                                                (0, 1, 1, "1e-5"), (3, 15, 1, "1e-5"), (40, 33, "0.3", "1e-3")])
def test_closed_form_against_the_definition(n0, n1, eps, delta):
    assert B.binary_rnm_epsilon(n1 - n0, eps, delta) == pytest.approx(_eps_by_definition(n0, n1, eps, mpf(delta)),
                                                                      abs=1e-20)


def test_exact_epsilon_increases_to_eps_and_the_printed_bound_is_negative():
    """E4(i)–(ii): the exact ε(t) = ε + log((2+εt)/(2+ε(t+1))) at the worst neighbour increases towards ε; the printed
    ε·log((2+εt)/(2+ε(t+1))) is negative."""
    for eps in ("0.1", 1, 10):
        values = [B.binary_rnm_epsilon(t, eps) for t in (0, 1, 2, 5, 20, 200, 10**6)]
        assert all(a < b for a, b in zip(values, values[1:])) and values[-1] < mpf(eps)
        assert mpf(eps) - values[-1] < mpf(eps) * 1e-5
        for t in (0, 3, 50):
            assert B.binary_rnm_epsilon_printed(t, eps) < 0 < B.binary_rnm_epsilon(t, eps)
    st = catalogue.get("gptr.thm_b3_2")
    assert not st.evaluate(variant="printed", t=5, eps=1).is_bound
    with pytest.raises(ConditionError, match="printed_gap"):
        st.evaluate(variant="printed", t=-5, eps=1)


def test_approximate_version_vanishes_once_neighbours_are_delta_close():
    """notes §2.6: at δ = 1e-5 the approximate ε is 0 for t ≥ 20 (ε = 1) and t ≥ 5 (ε = 10); the first zero is at
    t = 14 and t = 3. Not monotone before (E4(iii)): 0.59, 0.71, 0.78, …, 0.89, then down to 0."""
    d = mpf("1e-5")
    one = [B.binary_rnm_epsilon(t, 1, d) for t in range(0, 25)]
    assert [float(round(v, 2)) for v in one[:3]] == [0.59, 0.71, 0.78]
    assert all(v == 0 for v in one[14:]) and one[13] > 0
    assert max(one) > one[10] > one[12]  # rises, then falls
    ten = [B.binary_rnm_epsilon(t, 10, d) for t in range(0, 8)]
    assert all(v == 0 for v in ten[3:]) and ten[2] > 0


def test_claimed_epsilon_is_tight_for_the_hockey_stick():
    """At the claimed ε every neighbour/direction has hockey-stick ≤ δ, and slightly below ε one exceeds δ."""
    for t, eps, delta in ((2, 1, mpf("1e-5")), (0, "0.7", mpf("1e-3")), (6, 3, mpf(0))):
        e = B.binary_rnm_epsilon(t, eps, delta)
        law = B.log_p_signed

        def hs(x, a, b):
            pa, pb = [mpmath.exp(v) for v in law(a, eps)], [mpmath.exp(v) for v in law(b, eps)]
            return sum(max(u - mpmath.exp(x) * w, 0) for u, w in zip(pa, pb))

        pairs = [(t, t + 1), (t + 1, t), (t, t - 1), (t - 1, t)]
        assert all(hs(e, a, b) <= delta + mpf(10) ** -25 for a, b in pairs)
        assert any(hs(e - mpf("1e-9"), a, b) > delta for a, b in pairs)


def test_extremes():
    assert B.binary_rnm_epsilon(0, 0) == 0
    assert B.binary_rnm_epsilon(10**15, 1e308) == pytest.approx(mpf(1e308), rel=1e-20)
    assert B.binary_rnm_epsilon(-(10**15), "1e-300", "1e-300") < mpf("1e-299")
    with pytest.raises(DomainError):
        catalogue.get("gptr.thm_b3_2").evaluate(t=0.5, eps=1)
    with pytest.raises(DomainError):
        catalogue.get("gptr.thm_b3_2").evaluate(t=1, eps=1, delta=1)


def test_report_noisy_max_frequency_matches_p():
    """Monte Carlo of laplace_rnm, seed 3, n = 40000 runs, z = 5."""
    rng = np.random.default_rng(3)
    n = 40_000
    for n0, n1, eps in ((5, 6, 1), (3, 1, "0.5")):
        wins0 = sum(B.laplace_rnm(n0, n1, float(eps), rng) == 0 for _ in range(n))
        p = float(mpmath.exp(B.log_p_signed(n1 - n0, eps)[0]))
        assert abs(wins0 / n - p) < 5 * math.sqrt(p * (1 - p) / n)


# ---------------------------------------------------------------------------------------------------------------
# the witness

def test_witness_moment_and_sampler():
    w = catalogue.get_witness("gptr.binary_rnm")
    params = {"t": 1, "t_prime": 2, "eps": 1}
    p, q = (mpmath.exp(v) for v in B.log_p_signed(1, 1)), (mpmath.exp(v) for v in B.log_p_signed(2, 1))
    p, q = list(p), list(q)
    direct = mpmath.log(sum(a**3 * b**-2 for a, b in zip(p, q)))
    assert w.log_moment(mpf(3), **params) == pytest.approx(direct, rel=1e-25)
    assert all(c.ok for c in check_sampler(w, params, n=100_000, seed=7))


def test_worst_pair_attains_the_statement():
    for t, eps, delta in ((0, 1, 0), (5, 1, 0), (-3, 2, 0), (2, 1, mpf("1e-5"))):
        wp = B.worst_pair({"t": t, "eps": mpf(eps), "delta": delta})
        assert B.pair_epsilon(wp["t"], wp["t_prime"], eps, delta) == pytest.approx(
            B.binary_rnm_epsilon(t, eps, delta), abs=1e-25)


# ---------------------------------------------------------------------------------------------------------------
# gptr.ex_b3_1 and the three procedures

def test_three_procedures_accounting():
    st = catalogue.get("gptr.ex_b3_1")
    kw = dict(eps=2, eps_tilde="0.5", eps_prime=1, delta="1e-5")
    assert st.evaluate(procedure="gen_ptr", **kw).value == pytest.approx((mpf("1.5"), mpf("1e-5")), rel=1e-40)
    assert st.evaluate(procedure="classic", **kw).value == pytest.approx((mpf("0.5"), mpf("1e-5")), rel=1e-40)
    assert st.evaluate(procedure="laplace", **kw).value == (2, 0)
    assert st.evaluate(procedure="laplace", variant="printed", **kw).value[1] == pytest.approx(mpf("1e-5"), rel=1e-40)


def test_gen_ptr_upper_bound_needs_the_supremum():
    """E4(iii): ε_{δ/2}(·) is not monotone, so ε(t_p) can be below ε(t) for t > t_p; sup_{g ≥ t_p} ε(g) is not."""
    d = mpf("5e-6")
    for t_p in (-3.5, 0.2, 2.0, 7.9):
        sup = B.sup_epsilon_above(t_p, 1, d)
        for g in range(max(0, math.ceil(t_p)), 40):
            assert sup >= float(B.binary_rnm_epsilon(g, 1, d)) - 1e-15
    assert B.binary_rnm_epsilon(2, 1, d) < B.binary_rnm_epsilon(8, 1, d)  # ε(t_p = 2) misses ε(8)
    assert B.sup_epsilon_above(40.0, 1, d) == 0.0
    assert B.sup_epsilon_above(0.0, "1e-6", d) == 1e-6  # more than SCAN_LIMIT gaps: the Laplace ε


def test_procedures_run_and_classic_false_pass_rate():
    rng = np.random.default_rng(9)
    out = [B.gen_ptr_binary_vote(100, 0, 10, 5, 1, "1e-5", rng) for _ in range(50)]
    assert all(o == 0 for o in out)  # a gap of 100: ε_p = 0 ≤ ε′, and RNM at ε = 10 picks class 0
    refused = [B.gen_ptr_binary_vote(3, 2, 10, 5, "0.1", "1e-5", rng) for _ in range(50)]
    assert all(o is None for o in refused)  # a gap of 1: ε_p ≈ ε = 10 > 0.1
    # classic PTR on an unstable pair (gap 1): it releases the majority only when t_p > 1, w.p. ≤ δ/2 (seed 9,
    # n = 20000, δ = 0.2, z = 5)
    n, delta = 20_000, 0.2
    hits = 0
    for _ in range(n):
        t_p = B._private_gap_lower_bound(1, 1.0, delta, rng)
        hits += t_p > 1
    assert hits / n <= delta / 2 + 5 * math.sqrt(delta / 2 / n)
    assert B.classic_ptr_binary_vote(500, 0, 1.0, 1e-5, rng) == 0
