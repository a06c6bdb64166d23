"""Gaussian (exact profile, its inverses, classical calibration) and Laplace (pure ε, RDP, profile)."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from _helpers import reference_value as ev
from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError

PROPS = settings(max_examples=25, deadline=None)


# ---------------------------------------------------------------------------------------------------
# Gaussian profile

@PROPS
@given(eps=st.floats(0, 8), sigma=st.floats(0.3, 5))
def test_gaussian_profile_matches_scipy_where_well_conditioned(eps, sigma):
    a, b = 1 / (2 * sigma) - eps * sigma, -1 / (2 * sigma) - eps * sigma
    expected = stats.norm.cdf(a) - math.exp(eps) * stats.norm.cdf(b)
    if expected < 1e-8:  # float64 cancellation: not a trustworthy comparison
        return
    assert float(ev("base.gaussian_profile", eps=eps, sigma=sigma)) == pytest.approx(expected, rel=1e-7)


@pytest.mark.parametrize("eps,sigma", [(0.5, 1.0), (2.0, 0.7), (0.0, 2.0)])
def test_gaussian_profile_equals_hockey_stick_quadrature(eps, sigma):
    # δ(ε) = ∫ (p(o) − e^ε q(o))₊ do for P = N(1, σ²), Q = N(0, σ²); the integrand is positive for o > t
    with mpmath.workdps(30):
        e, s = mpmath.mpf(eps), mpmath.mpf(sigma)
        t = e * s**2 + mpmath.mpf(1) / 2  # p/q = e^ε  ⇔  o = εσ² + 1/2
        integrand = lambda o: mpmath.npdf(o, 1, s) - mpmath.exp(e) * mpmath.npdf(o, 0, s)
        quad = mpmath.quad(integrand, [t, t + 5 * s, mpmath.inf])
        value = ev("base.gaussian_profile", eps=eps, sigma=sigma)
        assert abs(value - quad) <= mpmath.mpf(10) ** -25 * max(1, abs(quad))


def test_gaussian_profile_at_zero_is_total_variation():
    for sigma in ("0.1", "1", "7.5"):
        with mpmath.workdps(50):
            tv = mpmath.erf(1 / (2 * mpmath.sqrt(2) * mpmath.mpf(sigma)))
            assert abs(ev("base.gaussian_profile", eps=0, sigma=sigma) - tv) < mpmath.mpf(10) ** -45 * tv


def test_gaussian_profile_tiny_delta_against_brute_precision():
    # δ ≈ 1e-300 region: recompute the printed formula naively with 700 digits (cancellation is harmless there)
    for eps, sigma in (("37.5", "1"), ("400", "0.1")):
        value = ev("base.gaussian_profile", eps=eps, sigma=sigma)
        with mpmath.workdps(700):
            e, s = mpmath.mpf(eps), mpmath.mpf(sigma)
            brute = mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)
            assert brute < mpmath.mpf(10) ** -100
            assert abs(value - brute) <= mpmath.mpf(10) ** -45 * brute


def test_gaussian_profile_equals_gdp_profile_with_mu_one_over_sigma():
    for eps, sigma, mu in (("0", "1", "1"), ("1", "0.5", "2"), ("3.5", "2", "0.5"), ("0.01", "0.25", "4")):
        assert ev("base.gaussian_profile", eps=eps, sigma=sigma) == ev("base.gdp_profile", eps=eps, mu=mu)


@PROPS
@given(eps=st.floats(0, 10), s1=st.floats(0.2, 5), s2=st.floats(0.2, 5))
def test_gaussian_profile_non_increasing_in_eps_and_sigma(eps, s1, s2):
    lo, hi = sorted((s1, s2))
    assert ev("base.gaussian_profile", eps=eps, sigma=hi) <= ev("base.gaussian_profile", eps=eps, sigma=lo)
    assert ev("base.gaussian_profile", eps=eps + 0.5, sigma=lo) <= ev("base.gaussian_profile", eps=eps, sigma=lo)


def test_gaussian_eps_known_value_and_round_trip():
    # notes/batch-clipping-fdp.md §6: the G_1 value ε(1e-5) = 4.3772
    eps = ev("base.gaussian_eps", delta="1e-5", sigma=1)
    assert mpmath.nstr(eps, 5) == "4.3772"
    with mpmath.workdps(50):
        back = ev("base.gaussian_profile", eps=eps, sigma=1)
        assert abs(back - mpmath.mpf("1e-5")) < mpmath.mpf(10) ** -50
    assert ev("base.gaussian_eps", delta="0.9", sigma=1) == 0  # δ ≥ TV: ε = 0


@PROPS
@given(log_delta=st.floats(-250, -1), sigma=st.floats(0.2, 20))
def test_gaussian_eps_inverts_the_profile(log_delta, sigma):
    delta = mpmath.mpf(10) ** log_delta
    eps = ev("base.gaussian_eps", delta=delta, sigma=sigma)
    if eps > 0:
        back = ev("base.gaussian_profile", eps=eps, sigma=sigma)
        assert abs(back / delta - 1) < 1e-40


def test_gaussian_sigma_calibration_round_trip_and_below_classical():
    for eps, delta in (("1", "1e-6"), ("0.5", "1e-5"), ("5", "1e-10")):
        sigma = ev("base.gaussian_sigma", eps=eps, delta=delta)
        with mpmath.workdps(50):
            back = ev("base.gaussian_profile", eps=eps, sigma=sigma)
            assert abs(back / mpmath.mpf(delta) - 1) < mpmath.mpf(10) ** -40
        if mpmath.mpf(eps) < 1:  # the classical σ = √(2 ln(1.25/δ))/ε is larger (Balle & Wang 2018)
            assert sigma < mpmath.sqrt(2 * mpmath.log(mpmath.mpf("1.25") / mpmath.mpf(delta))) / mpmath.mpf(eps)


def test_classical_gaussian_value_condition_and_validity():
    st_ = catalogue.get("base.gaussian_classical")
    value = st_.evaluate(delta="1e-5", sigma=5).value
    with mpmath.workdps(50):
        assert value == mpmath.sqrt(2 * mpmath.log(mpmath.mpf("1.25") / mpmath.mpf("1e-5"))) / 5
    # where it applies it is a valid bound: exact ε(δ) ≤ classical ε
    assert ev("base.gaussian_eps", delta="1e-5", sigma=5) < value
    with pytest.raises(ConditionError):
        st_.evaluate(delta="1e-5", sigma=4)  # ε = 1.21 > 1
    outside = st_.evaluate(delta="1e-5", sigma=4, allow_outside=True)
    assert not outside.is_bound and outside.outside


@pytest.mark.parametrize("sid,bad", [
    ("base.gaussian_profile", {"eps": 1, "sigma": 0}),
    ("base.gaussian_profile", {"eps": 1, "sigma": -1}),
    ("base.gaussian_profile", {"eps": float("-inf"), "sigma": 1}),
    ("base.gaussian_profile", {"eps": float("nan"), "sigma": 1}),
    ("base.gaussian_eps", {"delta": 0, "sigma": 1}),
    ("base.gaussian_eps", {"delta": 1, "sigma": 1}),
    ("base.gaussian_eps", {"delta": float("nan"), "sigma": 1}),
    ("base.gaussian_classical", {"delta": 1.5, "sigma": 10}),
    ("base.gaussian_sigma", {"eps": -1, "delta": "1e-5"}),
    ("base.laplace_rdp", {"alpha": "0.5", "b": 1}),
    ("base.laplace_rdp", {"alpha": 2, "b": 0}),
    ("base.laplace_pure", {"b": -2}),
    ("base.laplace_profile", {"eps": float("inf"), "b": 1}),
    ("base.laplace_profile", {"eps": 1, "b": float("nan")}),
])
def test_bad_input_raises_domain_error(sid, bad):
    with pytest.raises(DomainError):
        catalogue.get(sid).evaluate(**bad)


# ---------------------------------------------------------------------------------------------------
# Laplace

def _laplace_renyi_quadrature(alpha, b):
    """D_α(Lap(1,b) ‖ Lap(0,b)) by quadrature, split at the kinks 0 and 1."""
    alpha, b = mpmath.mpf(alpha), mpmath.mpf(b)
    p = lambda o: mpmath.exp(-abs(o - 1) / b) / (2 * b)
    q = lambda o: mpmath.exp(-abs(o) / b) / (2 * b)
    integral = mpmath.quad(lambda o: p(o) ** alpha * q(o) ** (1 - alpha), [-mpmath.inf, 0, 1, mpmath.inf])
    return mpmath.log(integral) / (alpha - 1)


@pytest.mark.parametrize("alpha,b", [(2, 1), ("1.5", "0.5"), (10, 3), ("3.7", "0.8")])
def test_laplace_rdp_matches_quadrature(alpha, b):
    with mpmath.workdps(30):
        quad = _laplace_renyi_quadrature(alpha, b)
    value = ev("base.laplace_rdp", alpha=alpha, b=b)
    assert abs(value - quad) < mpmath.mpf(10) ** -20 * quad


def test_laplace_rdp_limits():
    with mpmath.workdps(50):
        for b in ("0.3", "1", "4"):
            bb = mpmath.mpf(b)
            kl = 1 / bb + mpmath.exp(-1 / bb) - 1
            assert ev("base.laplace_rdp", alpha=1, b=b) == pytest.approx(kl, rel=1e-45)
            assert abs(ev("base.laplace_rdp", alpha="1.000000000001", b=b) - kl) < 1e-10
            assert ev("base.laplace_rdp", alpha="inf", b=b) == 1 / bb
            big = ev("base.laplace_rdp", alpha="1e8", b=b)
            assert big < 1 / bb and 1 / bb - big < 1e-6
            assert ev("base.laplace_pure", b=b) == 1 / bb


def test_laplace_rdp_self_check_survives_alpha_near_one():
    # α − 1 = 1e-30: the 0/0 quotient would lose 30 digits without the extra precision
    value = ev("base.laplace_rdp", alpha="1.000000000000000000000000000001", b=1)
    with mpmath.workdps(50):
        kl = 1 + mpmath.exp(-1) - 1
        assert abs(value - kl) < 1e-25


@PROPS
@given(a1=st.floats(1.0001, 200), a2=st.floats(1.0001, 200), b=st.floats(0.1, 10))
def test_laplace_rdp_monotone_and_convex_cgf(a1, a2, b):
    lo, hi = sorted((a1, a2))
    assert ev("base.laplace_rdp", alpha=lo, b=b) <= ev("base.laplace_rdp", alpha=hi, b=b)
    assert ev("base.laplace_rdp", alpha=lo, b=b * 1.5) <= ev("base.laplace_rdp", alpha=lo, b=b)
    # (α − 1)ε(α) is convex: the midpoint lies below the chord
    cgf = lambda a: (mpmath.mpf(a) - 1) * ev("base.laplace_rdp", alpha=a, b=b)
    mid = (mpmath.mpf(lo) + mpmath.mpf(hi)) / 2
    assert cgf(mid) <= (cgf(lo) + cgf(hi)) / 2 + mpmath.mpf(10) ** -40


def test_laplace_witness_log_moment_is_the_cgf():
    w = catalogue.get_witness("base.laplace")
    for alpha, b in ((2, 1), ("5.5", "0.7")):
        with mpmath.workdps(50):
            assert abs(w.log_moment(mpmath.mpf(alpha), mpmath.mpf(b))
                       - (mpmath.mpf(alpha) - 1) * ev("base.laplace_rdp", alpha=alpha, b=b)) < 1e-45


def test_laplace_profile_closed_form_quadrature_and_tv():
    for eps, b in (("0.3", "1"), ("0", "2"), ("1.2", "0.5"), ("0.1", "5")):
        with mpmath.workdps(30):
            e, bb = mpmath.mpf(eps), mpmath.mpf(b)
            p = lambda o: mpmath.exp(-abs(o - 1) / bb) / (2 * bb)
            q = lambda o: mpmath.exp(-abs(o) / bb) / (2 * bb)
            kink = (1 + e * bb) / 2  # where p = e^ε q
            quad = mpmath.quad(lambda o: max(p(o) - mpmath.exp(e) * q(o), 0),
                               sorted({mpmath.mpf(0), min(kink, 1), mpmath.mpf(1)}) + [mpmath.inf])
        value = ev("base.laplace_profile", eps=eps, b=b)
        assert abs(value - quad) < 1e-12
    with mpmath.workdps(50):
        assert ev("base.laplace_profile", eps=0, b=2) == -mpmath.expm1(-mpmath.mpf(1) / 4)  # TV = 1 − e^{−1/(2b)}
    assert ev("base.laplace_profile", eps=2, b=1) == 0 and ev("base.laplace_profile", eps=1, b=1) == 0


def test_laplace_profile_monte_carlo_witness():
    """δ(ε) = E_P[(1 − e^{ε − L})₊] estimated from the witness; seed 0, n = 4e5, 99.9 % normal interval."""
    w = catalogue.get_witness("base.laplace")
    rng = np.random.default_rng(0)
    o = w.sample(rng, 400_000, b=1.0)
    loss = w.privacy_loss(o, b=1.0)
    for eps in (0.0, 0.3, 0.8):
        x = np.maximum(0.0, 1 - np.exp(eps - loss))
        half = 3.29 * x.std() / math.sqrt(len(x))
        assert abs(x.mean() - float(ev("base.laplace_profile", eps=eps, b=1))) < half
