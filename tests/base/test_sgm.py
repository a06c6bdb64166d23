"""base.sgm_rdp: known vectors (peer-accountants.md §1.5), both computation routes, properties, bad input.

Precision: tests run at modest dps (15–30 digits; the self-check still compares two precisions) to stay fast.
"""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from mpmath import mp, mpf

from _helpers import relative_error as rel, working_precision
from dpspec.reference import catalogue
from dpspec.reference.errors import DomainError
from dpspec.reference.base.sgm import log_a_binomial, log_a_series, log_moment_quad, sgm_rdp


_dps = working_precision(20)


def test_v12_per_step_rdp():
    # peer-accountants.md §1.5 V12 (q=0.01, σ=1): α=4: 3.63154048910757e-4; α=4.1: 3.73363332387427e-4
    assert rel(sgm_rdp(4, "0.01", 1), "3.63154048910757e-4") < 1e-13
    assert rel(sgm_rdp("4.1", "0.01", 1), "3.73363332387427e-4") < 1e-13


@pytest.mark.parametrize("alpha, log_a", [("58.9", "2.102050711014788"), ("59.05", "2.113461520701088"),
                                          ("59.3", "2.132555647913206")])
def test_v7_log_a_positive_where_opacus_is_negative(alpha, log_a):
    # V7 (q=0.4, σ=12): log A = (α−1)·ε(α) > 0; Opacus 1.6.0 returns ≈ −30 here (bug B1)
    value = (mpf(alpha) - 1) * sgm_rdp(alpha, "0.4", 12, direction="remove")
    assert value > 0 and rel(value, log_a) < 1e-15


@pytest.mark.parametrize("alpha, printed, exact", [
    ("1.5", "6.70579741e-04", "6.50070897e-04"), ("2.5", "1.08548710e-03", "1.08541806e-03"),
    (5, "2.18075656e-03", None), (50, "2.38460375e-02", None), (100, "1.67416308e02", None)])
def test_v5_dp_accounting_vector(alpha, printed, exact):
    # V5: q=0.01, σ=2.5, T=50 steps. At integer orders the vector is exact (rtol 1e-4 in dp-accounting; we check
    # 1e-8). At the fractional orders it is dp-accounting 0.6.0's conservative absolute-value series (bug B3):
    # an upper bound, 3% high at α=1.5; the exact value agrees with Opacus' signed series (`exact`, 1e-8).
    value = 50 * sgm_rdp(alpha, "0.01", "2.5")
    if exact is None:
        assert rel(value, printed) < 1e-8
    else:
        assert value < mpf(printed) and rel(value, exact) < 1e-8


@pytest.mark.parametrize("alpha, sigma, expected", [(2, "0.1", "90.7896596280238"), (2, "0.25", "6.790784234628705"),
                                                    ("1.25", "0.25", "0.1103603174246269")])
def test_v10_autodp_rows(alpha, sigma, expected):
    # V10 (q=0.01, one step), rows of autodp's test copied from TF-Privacy: float64 values of a series cut at
    # terms < e^{-30} absolute, so agreement is expected to ~1e-12 relative, not beyond (checked at 1e-10)
    assert rel(sgm_rdp(alpha, "0.01", sigma), expected) < 1e-10


def test_q_one_is_the_gaussian():
    for alpha in (2, "3.7"):
        for d in ("max", "remove", "add"):
            assert sgm_rdp(alpha, 1, "0.8", d) == mpf(alpha) / (2 * mpf("0.8") ** 2)


@pytest.mark.parametrize("alpha, q, sigma", [(2, "0.01", 1), (7, "0.3", "0.7"), (40, "1e-3", 2), (3, "0.999", 5)])
def test_binomial_sum_equals_quadrature_at_integer_alpha(alpha, q, sigma):
    q, sigma = mpf(q), mpf(sigma)
    assert rel(log_a_binomial(alpha, q, sigma), log_moment_quad(mpf(alpha), q, sigma)) < 1e-17


@pytest.mark.parametrize("alpha, q, sigma", [("58.9", "0.4", 12), ("256.1", "1e-5", "0.1"), ("30.5", "0.05", 2)])
def test_series_equals_quadrature_at_large_fractional_alpha(alpha, q, sigma):
    a, q, sigma = mpf(alpha), mpf(q), mpf(sigma)
    assert rel(log_a_series(a, q, sigma), log_moment_quad(a, q, sigma)) < 1e-17


def test_b2_large_integer_alpha_and_tiny_q():
    # B2: Opacus' float binomial overflows for α ≳ 1030 (NaN); the exact sum has no such limit
    v = sgm_rdp(1100, "0.01", 1, direction="remove")
    assert v > 0 and rel(v, log_moment_quad(mpf(1100), mpf("0.01"), mpf(1)) / 1099) < 1e-15
    assert sgm_rdp(10000, "0.01", 1, direction="remove") > 0
    # tiny q: ε(2) = log(1 + q²(e^{1/σ²} − 1)) exactly
    with mp.workdps(30):
        q = mpf("1e-8")
        assert rel(sgm_rdp(2, q, 1), mpmath.log1p(q**2 * mpmath.expm1(1))) < 1e-28


def test_b3_small_fractional_alpha_is_exact_not_inflated():
    # B3: dp-accounting's absolute-value series gives 0.0669 here; the exact value is ≈ 6.12e-4
    v = sgm_rdp("1.1", "0.4", 12)
    assert abs(v - mpf("6.12e-4")) < mpf("0.01e-4")
    assert mpmath.isfinite(sgm_rdp("1.5", "0.1", 1)) and mpmath.isfinite(sgm_rdp("1.1", "0.05", "0.8"))


@pytest.mark.parametrize("alpha, q, sigma", [(2, "0.01", 1), ("4.1", "0.1", "0.8"), (20, "0.5", 3), ("1.3", "0.2", 1)])
def test_remove_dominates_add_mtz19(alpha, q, sigma):
    # MTZ19 Thm 5, checked numerically rather than assumed
    with mp.workdps(15):
        assert sgm_rdp(alpha, q, sigma, "add") <= sgm_rdp(alpha, q, sigma, "remove")
        assert sgm_rdp(alpha, q, sigma) == sgm_rdp(alpha, q, sigma, "remove")


@settings(max_examples=12, deadline=None)
@given(q=st.floats(1e-4, 0.9), sigma=st.floats(0.3, 10), alpha=st.integers(2, 60))
def test_monotone_in_alpha_q_sigma(q, sigma, alpha):
    with mp.workdps(15):
        e = lambda a=alpha, qq=q, s=sigma: sgm_rdp(a, qq, s, "remove")  # noqa: E731
        assert e(alpha + 1) >= e()
        assert e(qq=min(1.0, q * 1.5)) >= e()
        assert e(s=sigma * 1.2) <= e()


def test_cumulant_is_convex_in_alpha():
    k = [(a - 1) * sgm_rdp(a, "0.05", "0.9", "remove") for a in range(2, 40)]
    assert all(k[i - 1] + k[i + 1] - 2 * k[i] >= 0 for i in range(1, len(k) - 1))


def test_witness_log_moment_matches_monte_carlo():
    # E_P[p/q] = exp(D_2(P‖Q)) for the remove pair; fixed seed, 99.9% normal interval (n = 200 000)
    w = catalogue.get_witness("base.sgm")
    params = {"q": 0.2, "sigma": 1.0, "direction": "remove"}
    o = w.sample(np.random.default_rng(7), 200_000, **params)
    ratio = np.exp(w.privacy_loss(o, **params))
    half = 3.29 * ratio.std() / math.sqrt(ratio.size)
    exact = float(mpmath.exp(w.log_moment(2, **params) / 1))  # log E_Q[(p/q)^2] = log E_P[p/q]
    assert abs(ratio.mean() - exact) < half
    # and the add pair's log-densities are the remove pair's swapped
    add = {**params, "direction": "add"}
    assert np.allclose(w.log_p(o, **add), w.log_q(o, **params))


@pytest.mark.parametrize("bad", [{"alpha": 1}, {"alpha": "0.5"}, {"q": "-0.01"}, {"q": "1.5"}, {"sigma": 0},
                                 {"sigma": -1}, {"alpha": float("nan")}, {"q": float("nan")}, {"direction": "both"}])
def test_bad_input(bad):
    args = {"alpha": 2, "q": "0.01", "sigma": 1, **bad}
    with pytest.raises(DomainError) as info:
        sgm_rdp(**args)
    assert info.value.name in bad
    with pytest.raises(DomainError):
        catalogue.get("base.sgm_rdp").evaluate(dps=15, **args)
