"""RDP → (ε, δ): base.rdp_to_dp (BBG+20 / CKS20), base.rdp_to_dp_mironov, base.rdp_to_delta; the order search."""
import pytest
from mpmath import mpf

from _helpers import relative_error as rel, working_precision
from dpspec.reference import catalogue
from dpspec.reference.base.conversion import (dp_at_order, rdp_to_delta, rdp_to_dp, rdp_to_dp_mironov,
                                         rdp_to_dp_order)
from dpspec.reference.errors import ConditionError, DomainError


_dps = working_precision(20)


def test_v12_headline_dp_sgm():
    # V12: q=0.01, σ=1, T=1e4, δ=1e-5: ε* = 6.71227176253 at α* = 4.135065099 (continuous order search);
    # at the grid orders α=4 / 4.1 the libraries get 6.71940211794 / 6.71273829755
    curve = catalogue.curve("base.sgm_rdp", q="0.01", sigma=1, direction="remove")
    eps, alpha = rdp_to_dp_order(curve, "1e-5", 10_000)
    assert rel(eps, "6.71227176253") < 1e-11 and rel(alpha, "4.135065099") < 1e-9
    for a, expected in ((4, "6.71940211794"), ("4.1", "6.71273829755")):
        assert rel(dp_at_order(10_000 * curve(mpf(a)), mpf(a), mpf("1e-5")), expected) < 1e-11


def test_per_order_vectors():
    # V8: constant RDP 1.1, δ=1e-5, at α=32 (the end of dp-accounting's order list): 1.32783806176
    assert rel(dp_at_order(mpf("1.1"), mpf(32), mpf("1e-5")), "1.32783806176") < 1e-11
    # ptr-rdp.md §5.1: RDP ε=1 at α=10, δ=1e-5 converts to 1.91801063678
    assert rel(dp_at_order(mpf(1), mpf(10), mpf("1e-5")), "1.91801063678") < 1e-11


def test_search_beats_a_dense_grid_and_lands_on_an_interior_minimum():
    curve = catalogue.curve("base.gaussian_rdp", sigma=3)
    eps, alpha = rdp_to_dp_order(curve, "1e-6", 5)
    grid = [1 + mpf(10) ** (mpf(i) / 200) for i in range(-600, 601)]
    best = min(dp_at_order(5 * curve(a), a, mpf("1e-6")) for a in grid)
    assert eps <= best and best - eps < mpf("1e-5") * eps  # the grid steps α−1 by 1.2%
    h = alpha * mpf("1e-4")
    for a in (alpha - h, alpha + h):
        assert dp_at_order(5 * curve(a), a, mpf("1e-6")) > eps


def test_steps_compose_additively():
    g = catalogue.curve("base.gaussian_rdp", sigma=4)
    scaled = lambda a: 7 * g(a)  # noqa: E731
    assert rdp_to_dp(g, "1e-5", 7) == rdp_to_dp(scaled, "1e-5")


def test_eps_non_increasing_in_delta_and_improved_beats_mironov():
    g = catalogue.curve("base.gaussian_rdp", sigma=2)
    values = [rdp_to_dp(g, d) for d in ("1e-12", "1e-8", "1e-5", "1e-2", "0.3")]
    assert all(a >= b for a, b in zip(values, values[1:]))
    assert rdp_to_dp(g, "1e-5") < rdp_to_dp_mironov(g, "1e-5")


def test_delta_and_eps_are_consistent():
    g = catalogue.curve("base.gaussian_rdp", sigma=2)
    eps = rdp_to_dp(g, "1e-5")
    assert rdp_to_delta(g, eps) <= mpf("1e-5") * (1 + mpf("1e-12"))
    assert rdp_to_delta(g, eps / 2) > mpf("1e-5")
    assert rdp_to_delta(g, 0) <= 1


def test_negative_formula_reports_zero_not_a_negative_eps():
    g = catalogue.curve("base.gaussian_rdp", sigma=100)
    eps, alpha = rdp_to_dp_order(g, "0.5")
    assert eps == 0
    assert dp_at_order(g(alpha), alpha, mpf("0.5")) < 0  # the formula itself went below 0


def test_curve_infinite_above_some_order():
    g = catalogue.curve("base.gaussian_rdp", sigma=1)
    capped = lambda a: g(a) if a <= 3 else mpf("inf")  # noqa: E731
    eps, alpha = rdp_to_dp_order(capped, "1e-5")
    assert alpha <= 3 and eps >= rdp_to_dp(g, "1e-5")
    with pytest.raises(ConditionError):
        rdp_to_dp(lambda a: mpf("inf"), "1e-5")


def test_catalogue_entry_and_bad_input():
    st = catalogue.get("base.rdp_to_dp")
    g = catalogue.curve("base.gaussian_rdp", sigma=1)
    assert rel(st.evaluate(dps=15, curve=g, delta="1e-5").value, rdp_to_dp(g, "1e-5")) < 1e-14
    for bad in ({"delta": 0}, {"delta": 1}, {"delta": float("nan")}, {"steps": 0}, {"steps": "1.5"},
                {"curve": "not callable"}):
        args = {"curve": g, "delta": "1e-5", "steps": 1, **bad}
        with pytest.raises(DomainError):
            rdp_to_dp(**args)
        with pytest.raises(DomainError):
            st.evaluate(dps=15, **args)
    with pytest.raises(DomainError):
        rdp_to_delta(g, -1)


def test_order_search_stops_when_the_best_order_is_at_the_top_of_the_range():
    """Regression (found by the fast-path tests): a curve that keeps improving with α (Laplace, whose RDP tends to
    1/b) put the best grid point at the top; the search kept 'extending' a grid whose top point was filtered out
    and never stopped. It must answer, and never above the pure-DP ε = T/b."""
    v = catalogue.get("base.rdp_to_dp").evaluate(curve=catalogue.curve("base.laplace_rdp", b=1), steps=10,
                                                delta="1e-5").value
    assert 9.9 < v < 10
