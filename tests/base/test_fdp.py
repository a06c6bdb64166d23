"""f-DP: G_μ, f_{ε,δ} (and its printed erratum), μ-GDP ↔ (ε, δ), δ(ε) via the convex conjugate, C_p(G_μ),
group privacy and composition."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from _helpers import reference_value as ev
from dpspec.reference import catalogue
from dpspec.reference.errors import DomainError

PROPS = settings(max_examples=25, deadline=None)


def bound_curve(sid, **params):
    """α ↦ f(α) for a trade-off statement (catalogue.curve validates with α = 2, outside [0, 1])."""
    st_ = catalogue.get(sid)
    return lambda a: st_.evaluate(dps=mpmath.mp.dps, alpha=a, **params).value


# ---------------------------------------------------------------------------------------------------
# G_μ

@PROPS
@given(alpha=st.floats(1e-12, 1 - 1e-6), mu=st.floats(0, 6))
def test_gdp_tradeoff_matches_scipy(alpha, mu):
    expected = stats.norm.cdf(stats.norm.isf(alpha) - mu)
    assert float(ev("base.gdp_tradeoff", alpha=alpha, mu=mu)) == pytest.approx(expected, rel=1e-9, abs=1e-300)


def test_gdp_tradeoff_ends_symmetry_and_far_tail():
    assert ev("base.gdp_tradeoff", alpha=0, mu=2) == 1 and ev("base.gdp_tradeoff", alpha=1, mu=2) == 0
    with mpmath.workdps(50):
        assert abs(ev("base.gdp_tradeoff", alpha="0.3", mu=0) - mpmath.mpf("0.7")) < 1e-48  # G_0 = 1 − α
    # G_μ^{-1} = G_μ; for α = 1e-20, G(α) ≈ 1 − 1e-19 keeps only ~31 of its 50 digits about α
    for alpha, mu, tol in (("0.01", "1", 1e-40), ("0.4", "3", 1e-40), ("1e-20", "0.5", 1e-25)):
        g = ev("base.gdp_tradeoff", alpha=alpha, mu=mu)
        with mpmath.workdps(50):
            assert abs(ev("base.gdp_tradeoff", alpha=g, mu=mu) / mpmath.mpf(alpha) - 1) < tol
    # α = 1e-300: independent inverse by erfinv with 340 extra digits
    g = ev("base.gdp_tradeoff", alpha="1e-300", mu=2)
    with mpmath.workdps(400):
        z = -mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf("1e-300") - 1)
        brute = mpmath.ncdf(z - 2)
        assert abs(g / brute - 1) < 1e-45


# ---------------------------------------------------------------------------------------------------
# f_{ε,δ} and the printed min

def test_eps_delta_tradeoff_is_the_max_form_and_printed_min_is_no_tradeoff_function():
    st_ = catalogue.get("base.eps_delta_tradeoff")
    with mpmath.workdps(50):
        e, d = mpmath.e, mpmath.mpf("0.01")
        for a in ("0", "0.05", "0.2", "0.5", "0.99", "1"):
            a = mpmath.mpf(a)
            expected = max(0, 1 - d - e * a, (1 - d - a) / e)
            assert abs(st_.evaluate(alpha=a, eps=1, delta="0.01").value - expected) < 1e-45
    printed = [st_.evaluate(alpha=a, eps=1, delta="0.01", variant="printed") for a in ("0", "0.3", "1")]
    assert all(p.value <= 0 and not p.is_bound for p in printed)
    assert printed[0].value == 0 < st_.evaluate(alpha=0, eps=1, delta="0.01").value  # 0 instead of 1 − δ
    assert printed[2].value < 0  # negative: not a trade-off function at all
    assert st_.variants["printed"].is_bound is False and "002" in st_.variants["printed"].note


@PROPS
@given(a1=st.floats(0, 1), a2=st.floats(0, 1), eps=st.floats(0, 5), delta=st.floats(0, 0.5))
def test_eps_delta_tradeoff_is_a_tradeoff_function(a1, a2, eps, delta):
    lo, hi = sorted((a1, a2))
    f = lambda a: ev("base.eps_delta_tradeoff", alpha=a, eps=eps, delta=delta)
    assert 0 <= f(hi) <= f(lo) <= 1 - mpmath.mpf(lo) + mpmath.mpf(10) ** -45
    with mpmath.workdps(60):
        mid = (mpmath.mpf(lo) + mpmath.mpf(hi)) / 2  # exact
        assert f(mid) <= (f(lo) + f(hi)) / 2 + mpmath.mpf(10) ** -45  # convex


# ---------------------------------------------------------------------------------------------------
# μ-GDP ↔ (ε, δ), and δ(ε) of any trade-off function

@settings(max_examples=15, deadline=None)
@given(eps=st.floats(0, 10), log_delta=st.floats(-80, -1))
def test_gdp_mu_inverts_the_gdp_profile(eps, log_delta):
    delta = mpmath.mpf(10) ** log_delta
    mu = ev("base.gdp_mu", eps=eps, delta=delta)
    assert abs(ev("base.gdp_profile", eps=eps, mu=mu) / delta - 1) < 1e-40


def test_gdp_profile_known_values_and_mu_zero():
    # G_1 at ε = 1 (eq. (7) of seed 002 / DRS Cor. 2.13), against scipy
    assert float(ev("base.gdp_profile", eps=1, mu=1)) == pytest.approx(
        stats.norm.cdf(-0.5) - math.e * stats.norm.cdf(-1.5), rel=1e-12)
    assert ev("base.gdp_profile", eps=1, mu=0) == 0 and ev("base.gdp_profile", eps=0, mu=0) == 0


def test_tradeoff_profile_of_eps_delta_tradeoff_is_its_profile():
    f = bound_curve("base.eps_delta_tradeoff", eps=1, delta="1e-5")
    with mpmath.workdps(50):
        d = mpmath.mpf("1e-5")
        # for ε' < ε: δ(ε') = δ + (1 − δ)(e^ε − e^{ε'})/(1 + e^ε) (the canonical pair's profile)
        expected = d + (1 - d) * (mpmath.e - mpmath.exp(mpmath.mpf("0.5"))) / (1 + mpmath.e)
    assert abs(ev("base.tradeoff_profile", curve=f, eps="0.5") - expected) < 1e-45
    with mpmath.workdps(50):
        assert abs(ev("base.tradeoff_profile", curve=f, eps=1) / d - 1) < 1e-40
        assert abs(ev("base.tradeoff_profile", curve=f, eps=3) / d - 1) < 1e-40
    pure = bound_curve("base.eps_delta_tradeoff", eps=1, delta=0)
    assert ev("base.tradeoff_profile", curve=pure, eps=2) == 0
    assert ev("base.kov15_profile", eps=1, delta="1e-5", k=1, eps_total="0.5") == pytest.approx(expected, rel=1e-40)


def test_tradeoff_profile_of_g_mu_is_the_gdp_profile():
    f = bound_curve("base.gdp_tradeoff", mu=1)
    value = ev("base.tradeoff_profile", curve=f, eps=1)
    assert abs(value / ev("base.gdp_profile", eps=1, mu=1) - 1) < 1e-40


@pytest.mark.slow
def test_tradeoff_profile_of_g_mu_small_delta():
    f = bound_curve("base.gdp_tradeoff", mu=1)
    assert abs(ev("base.tradeoff_profile", curve=f, eps=6) / ev("base.gdp_profile", eps=6, mu=1) - 1) < 1e-40


def test_tradeoff_profile_rejects_values_outside_unit_interval():
    with pytest.raises(DomainError):
        ev("base.tradeoff_profile", curve=lambda a: mpmath.mpf(2), eps=1)


# ---------------------------------------------------------------------------------------------------
# C_p(G_μ), group privacy, composition

def _hull_cp(alpha_points, p, mu, n=200001):
    """Independent float64 construction: lower convex hull of min{f_p, f_p^{-1}} on a grid."""
    x = np.linspace(0, 1, n)
    fp = p * stats.norm.cdf(stats.norm.isf(x) - mu) + (1 - p) * (1 - x)
    fp_inv = np.interp(x, fp[::-1], x[::-1])  # f_p is decreasing: swap the axes
    y = np.minimum(fp, fp_inv)
    hull = []  # monotone-chain lower hull
    for pt in zip(x, y):
        while len(hull) >= 2 and (hull[-1][0] - hull[-2][0]) * (pt[1] - hull[-2][1]) - \
                (hull[-1][1] - hull[-2][1]) * (pt[0] - hull[-2][0]) <= 0:
            hull.pop()
        hull.append(pt)
    hx, hy = np.array(hull).T
    return np.interp(alpha_points, hx, hy)


@pytest.mark.parametrize("p,mu", [(0.1, 1.0), (0.5, 2.0), (0.02, 4.0)])
def test_gdp_subsampled_matches_numerical_double_conjugate(p, mu):
    alphas = np.array([0.0, 0.001, 0.05, 0.2, 0.3, 0.45, 0.5, 0.6, 0.8, 0.95, 0.999, 1.0])
    hull = _hull_cp(alphas, p, mu)
    for a, h in zip(alphas, hull):
        assert float(ev("base.gdp_subsampled", alpha=a, p=p, mu=mu)) == pytest.approx(h, abs=2e-6)


@PROPS
@given(alpha=st.floats(0, 1), p=st.floats(0.001, 1), mu=st.floats(0, 5))
def test_gdp_subsampled_properties(alpha, p, mu):
    c = ev("base.gdp_subsampled", alpha=alpha, p=p, mu=mu)
    with mpmath.workdps(50):
        g = ev("base.gdp_tradeoff", alpha=alpha, mu=mu)
        assert g - mpmath.mpf(10) ** -40 <= c <= 1 - mpmath.mpf(alpha) + mpmath.mpf(10) ** -40
    if 1e-10 < c < 1 - 1e-10:  # symmetric: C(C(α)) = α (away from the ends, where C is ill-conditioned)
        with mpmath.workdps(50):
            assert abs(ev("base.gdp_subsampled", alpha=c, p=p, mu=mu) - mpmath.mpf(alpha)) < 1e-35


def test_gdp_subsampled_p_one_is_g_mu():
    for a in ("0.01", "0.3", "0.7"):
        with mpmath.workdps(50):
            assert abs(ev("base.gdp_subsampled", alpha=a, p=1, mu="1.5") - ev("base.gdp_tradeoff", alpha=a, mu="1.5")) \
                < 1e-45


def test_group_and_composition():
    assert ev("base.gdp_group", g=3, mu="0.5") == mpmath.mpf("1.5")
    with mpmath.workdps(50):
        assert abs(ev("base.gdp_composition", mu="0.5", k=16) - 2) < 1e-48
    # composition in μ is the same as squaring-and-summing: 2 then 2 more mechanisms
    two = ev("base.gdp_composition", mu="0.3", k=2)
    assert abs(ev("base.gdp_composition", mu=two, k=2) - ev("base.gdp_composition", mu="0.3", k=4)) < 1e-45
    with pytest.raises(DomainError):
        ev("base.gdp_group", g=0, mu=1)


@pytest.mark.parametrize("sid,bad", [
    ("base.gdp_tradeoff", {"alpha": 1.5, "mu": 1}),
    ("base.gdp_tradeoff", {"alpha": 0.5, "mu": -1}),
    ("base.gdp_profile", {"eps": float("nan"), "mu": 1}),
    ("base.gdp_mu", {"eps": 1, "delta": 0}),
    ("base.gdp_mu", {"eps": 1, "delta": float("nan")}),
    ("base.eps_delta_tradeoff", {"alpha": 0.5, "eps": 1, "delta": 1}),
    ("base.gdp_subsampled", {"alpha": 0.5, "p": 0, "mu": 1}),
    ("base.gdp_subsampled", {"alpha": 0.5, "p": 1.2, "mu": 1}),
])
def test_bad_input(sid, bad):
    with pytest.raises(DomainError):
        catalogue.get(sid).evaluate(**bad)


def test_gdp_profile_keeps_full_relative_precision_for_tiny_mu():
    """Regression (found by `dpspec conform`): for μ → 0, |log δ| ≈ ε²/(2μ²) ≈ 1e125 here, and exponentiating
    a log δ rounded to the working precision lost every digit; the self-check raised. δ must now evaluate and
    match Φ(a) − e^ε Φ(b) computed by plain subtraction at 400 digits (stable to 800, checked when written).
    δ's condition number in μ is ≈ 1e125, so the truth is computed for the same binary μ the evaluator
    receives (the decimal string parsed at the 50 working digits), not for the decimal 2.3e-66."""
    st = catalogue.get("base.gdp_profile")
    v = st.evaluate(eps="0.001", mu="2.3e-66").value
    with mpmath.workdps(50):
        eps, mu = mpmath.mpf("0.001"), mpmath.mpf("2.3e-66")
    with mpmath.workdps(400):
        a, b = mu / 2 - eps / mu, -mu / 2 - eps / mu
        truth = mpmath.ncdf(a) - mpmath.exp(eps) * mpmath.ncdf(b)
        assert abs(v / truth - 1) < mpmath.mpf(10) ** -45


def test_gdp_profile_refuses_clearly_beyond_its_supported_range():
    """μ = 1e-300 makes |μ/2 − ε/μ| = 1e300; mpmath's erfc overflowed (a bare OverflowError), then (until the
    Mills-ratio tails of reference/_normal.py) it was refused. It now evaluates (δ = exp(−5e599)); only δ below
    exp(−10^2000), which no float64 input reaches, is refused: a PrecisionError naming the parameters and the
    supported range."""
    from dpspec.reference.errors import PrecisionError

    value = catalogue.get("base.gdp_profile").evaluate(eps=1, mu="1e-300").value
    assert 0 < value and abs(-mpmath.log(value) / mpmath.mpf("5e599") - 1) < mpmath.mpf(10) ** -40
    with pytest.raises(PrecisionError, match=r"eps=1\.0, mu=1\.0e-1200 .*below the supported exp\(−10\^2000\)"):
        catalogue.get("base.gdp_profile").evaluate(eps=1, mu="1e-1200")
