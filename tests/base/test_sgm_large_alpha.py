"""base.sgm_rdp at large orders: the truncated two-sided series (reference/base/sgm_series.py, MTZ19 arXiv
1908.10530 §3.3) against the ψ quadrature it replaces there, its tail bounds against brute-force sums, and the
RDP → δ search of issue 13 (q = 9.394516208467836e-07, σ = 100, ε = 0.001: a cliff of ε(α) near α ≈ 277559, where
the search evaluates the curve ~80 times; ~80 s with the quadrature, ~2 s with the series).

Reference values at 15–20 digits (the self-check still compares two precisions) to keep the file fast; the dozen
points at 50 digits are in the slow test at the end.
"""
import mpmath
import pytest
from hypothesis import given, settings, strategies as st
from mpmath import mp, mpf

from _helpers import relative_error as rel, working_precision
from dpspec.reference import catalogue
from dpspec.reference.base import conversion, sgm
from dpspec.reference.base.sgm_series import _log_binomial, _log_block_bound, _Series, log_excess_series

_dps = working_precision(20)

Q13, SIGMA13 = "9.394516208467836e-07", 100  # the point of issue 13
CLIFF = "277559.684471"  # near the order the search settles on there


# ---------------------------------------------------------------------------------------------------------------
# 1. the series against the ψ quadrature (the route it replaces), across its branches


@pytest.mark.parametrize("beta, q, sigma", [
    (CLIFF, Q13, SIGMA13),  # remove at the cliff: the bulk and the far peak of the second series
    ("-277558.684471", Q13, SIGMA13),  # add at the cliff (β = 1 − α): blocks, far part and (d)
    ("300000.25", Q13, SIGMA13),  # above the cliff: the second series' head carries the sum
    (20000, "1e-6", SIGMA13),  # an integer order above BINOMIAL_MAX (C(β,k) = 0 beyond β)
    ("1.0025", "1e-3", 10),  # 1 < β < 2: Leibniz from k = 3
    ("-0.0025", "1e-3", 10),  # −1 < β < 0 (the add direction near α = 1): Leibniz from the head's end
])
def test_series_matches_the_psi_quadrature(beta, q, sigma):
    with mp.workdps(15):
        b, qq, s = mpf(beta), mpf(q), mpf(sigma)
        series = log_excess_series(b, qq, s)
        assert series is not None
        assert rel(series, sgm.log_excess_quad(b, qq, s)) < 1e-14


def test_log_excess_takes_the_series_at_the_cliff(monkeypatch):
    """Both directions at the cliff come from the series (not a quadrature), and equal it."""
    b, q, s = mpf(CLIFF), mpf(Q13), mpf(SIGMA13)
    expected = [log_excess_series(beta, q, s) for beta in (b, 1 - b)]

    def refuse(*_):
        raise AssertionError("a quadrature was called")

    monkeypatch.setattr(sgm, "log_excess_quad", refuse)
    monkeypatch.setattr(sgm, "log_moment_quad", refuse)
    assert [sgm.log_excess(beta, q, s) for beta in (b, 1 - b)] == expected


@pytest.mark.parametrize("beta, q, sigma, why", [
    ("300.5", "0.5", 100, "q ≥ ½: c' = q/(1 − q) ≥ 1"),
    ("0.5", "1e-3", 100, "0 ≤ β ≤ 1 is no order of either direction"),
    ("40.5", "0.01", "0.05", "σ small: the head would reach the split z0 (Φ̄ parts cancel)"),
    ("1e5", "0.3", 100, "q·β large: the head exceeds HEAD_MAX terms"),
    ("2.5", "1e-3", "1e30", "σ huge: the logs need more than MAX_EXTRA extra digits"),
])
def test_series_declines_where_its_bounds_do_not_apply(beta, q, sigma, why):
    assert log_excess_series(mpf(beta), mpf(q), mpf(sigma)) is None, why


def test_declined_points_still_answer_through_the_quadrature():
    a, q, s = mpf("40.5"), mpf("0.01"), mpf("0.05")
    assert log_excess_series(a, q, s) is None
    assert sgm.sgm_rdp(a, q, s, direction="remove") > 0


# ---------------------------------------------------------------------------------------------------------------
# 2. the bounds: (c) blocks against brute-force sums, and the first series' tails against the exact tails


@settings(max_examples=40, deadline=None)
@given(beta=st.one_of(st.floats(1.5, 400), st.floats(-400, -1.0)), a=st.integers(0, 150), width=st.integers(0, 250),
       c1=st.floats(-20, 5), c2=st.floats(0, 0.05), slack=st.floats(-5, 60))
def test_block_bound_is_above_the_brute_force_sum(beta, a, width, c1, c2, slack):
    with mp.workdps(20):
        beta = mpf(beta)
        b = a + width
        if beta > 0:  # g is concave on (−1, β + 1): blocks stay inside [0, ⌈β⌉]
            top = int(mpmath.ceil(beta)) if beta != int(beta) else int(beta)
            if b > top:
                b = top
            a = min(a, b)
        g, dg = _log_binomial(beta)
        terms = [g(mpf(k)) + c1 * k + c2 * k * k for k in range(a, b + 1)]
        exact = max(terms) + mpmath.log(mpmath.fsum(mpmath.exp(t - max(terms)) for t in terms))
        budget = exact + slack  # from a budget above the sum (one piece suffices) to one below it (+∞ or splits)
        bound = _log_block_bound(g, dg, a, b, 0, c1, c2, budget)
        assert bound >= exact - mpf(10) ** -15 * (1 + abs(exact))
        if slack >= 0 and b - a <= 100:  # the splits meet the budget: leaves within their shares, or single terms
            assert bound <= budget + mpmath.log(2)  # (whose sum is at most e^exact ≤ e^budget)


def _exact_lower_tails(s, n, terms=600):
    """log(|R_n| + |P_n|) by long sums (the a_k fall like τ^k beyond z_τ; C(β,k)c'^k geometrically)."""
    beta, r_sum, p_sum, coef = s.beta, mpf(0), mpf(0), mpf(1)
    for k in range(terms):
        if k >= n:
            a_k = mpmath.exp(beta * s.l1q + k * s.lc + s.log_m(mpf(k))) * mpmath.ncdf((s.z_tau - k) / s.sigma)
            r_sum += coef * a_k
            p_sum += coef * mpmath.exp(beta * s.l1q + k * s.lc)
        coef = coef * (beta - k) / (k + 1)
    return mpmath.log(abs(r_sum) + abs(p_sum))


@pytest.mark.parametrize("beta", ["-5.5", "-0.4", "-30.25"])
@pytest.mark.parametrize("n", [3, 8, 20])
def test_lower_tail_bound_is_above_the_exact_tails(beta, n):
    """β < 0 (τ = ½): blocks (c), the far part (b), (d), and Leibniz for −1 < β < 0, at heads short enough that the
    tails are not negligible."""
    with mp.workdps(40):
        s = _Series(mpf(beta), mpf("0.01"), mpf(2))
        exact = _exact_lower_tails(s, n)
        bound = s.log_lower_tail(n, exact + 3)
        assert exact <= bound < exact + 12  # above the tails, and not vacuous


# ---------------------------------------------------------------------------------------------------------------
# 3. the RDP → δ search of issue 13


def test_issue13_rdp_to_delta_uses_no_quadrature_and_keeps_its_answer(monkeypatch):
    """The order search at the point of issue 13 runs on the series alone (every order it probes), and its δ equals
    the objective at its α* recomputed through the ψ quadrature (the route it used before, ~80 s in all)."""
    curve = catalogue.curve("base.sgm_rdp", q=Q13, sigma=SIGMA13)
    quad, moment = sgm.log_excess_quad, sgm.log_moment_quad

    def refuse(*_):
        raise AssertionError("a quadrature was called")

    monkeypatch.setattr(sgm, "log_excess_quad", refuse)
    monkeypatch.setattr(sgm, "log_moment_quad", refuse)
    conversion._minimise.cache_clear()
    delta = conversion.rdp_to_delta(curve, "0.001", 1)
    with mp.workdps(20):
        log_delta, alpha = conversion._optimum("delta", curve, 1, mpf("0.001"))
    monkeypatch.setattr(sgm, "log_excess_quad", quad)
    monkeypatch.setattr(sgm, "log_moment_quad", moment)
    assert rel(mpmath.log(delta), log_delta) < 1e-17
    assert mpf("277550") < alpha < mpf("277570")  # the foot of the cliff
    with mp.workdps(20):
        q, s = mpf(Q13), mpf(SIGMA13)
        remove = sgm._log1p_exp(quad(alpha, q, s)) / (alpha - 1)
        add = sgm._log1p_exp(quad(1 - alpha, q, s)) / (alpha - 1)
        assert add < remove  # max(remove, add) = remove here
        old = conversion.log_delta_at_order(remove, alpha, mpf("0.001"))
    assert rel(log_delta, old) < 1e-17


# ---------------------------------------------------------------------------------------------------------------
# 4. slow: a dozen points at 50 digits, the series against the quadrature to ≥ 40 digits


DOZEN = [(CLIFF, Q13, SIGMA13), ("-277558.684471", Q13, SIGMA13), ("277535.76", Q13, SIGMA13),
         ("200000.5", Q13, SIGMA13), ("-199999.5", Q13, SIGMA13), ("300000.25", Q13, SIGMA13),
         ("20000.5", Q13, SIGMA13), ("-19999.5", Q13, SIGMA13), ("12345.5", "1e-4", 100), ("-12345.5", "1e-4", 100),
         ("1.0025", Q13, SIGMA13), ("-0.0025", Q13, SIGMA13), ("2500.5", "1e-8", "1e4"), ("150.25", "0.3", "1e4")]


@pytest.mark.slow
@pytest.mark.parametrize("beta, q, sigma", DOZEN)
def test_series_matches_the_quadrature_to_40_digits(beta, q, sigma):
    with mp.workdps(50):
        b, qq, s = mpf(beta), mpf(q), mpf(sigma)
        series = log_excess_series(b, qq, s)
        assert series is not None
        assert rel(series, sgm.log_excess_quad(b, qq, s)) < mpf(10) ** -40
