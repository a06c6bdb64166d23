"""Composition: RDP additivity, basic composition, KOV15 optimal (Thm 3.3) and closed form (Thm 3.4)."""
import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from scipy import stats

from _helpers import reference_value as ev
from dpspec.reference import catalogue
from dpspec.reference.errors import DomainError

PROPS = settings(max_examples=20, deadline=None)


def test_rdp_composition_adds_the_curve():
    curve = catalogue.curve("base.gaussian_rdp", sigma="0.7")
    with mpmath.workdps(50):
        expected = 25 * mpmath.mpf(3) / (2 * mpmath.mpf("0.7") ** 2)
    assert abs(ev("base.rdp_composition", curve=curve, steps=25, alpha=3) / expected - 1) < 1e-45
    lap = catalogue.curve("base.laplace_rdp", b=2)
    assert ev("base.rdp_composition", curve=lap, steps=1, alpha=4) == ev("base.laplace_rdp", alpha=4, b=2)
    with pytest.raises(DomainError):
        ev("base.rdp_composition", curve=lambda a: mpmath.mpf(-1), steps=2, alpha=2)
    with pytest.raises(DomainError):
        ev("base.rdp_composition", curve=curve, steps=0, alpha=2)


def test_basic_composition_pair():
    eps, delta = ev("base.basic_composition", eps="0.1", delta="1e-6", k=10)
    with mpmath.workdps(50):
        assert eps == 10 * mpmath.mpf("0.1") and delta == 10 * mpmath.mpf("1e-6")


def _thm33_delta_i(eps, delta, k, i):
    """KOV15 Thm 3.3 as printed: 1 − (1−δ)^k (1 − δ_i), δ_i = Σ_{ℓ<i} C(k,ℓ)(e^{(k−ℓ)ε} − e^{(k−2i+ℓ)ε})/(1+e^ε)^k."""
    e = mpmath.mpf(eps)
    delta_i = sum(mpmath.binomial(k, l) * (mpmath.exp((k - l) * e) - mpmath.exp((k - 2 * i + l) * e))
                  for l in range(i)) / (1 + mpmath.exp(e)) ** k
    return 1 - (1 - mpmath.mpf(delta)) ** k * (1 - delta_i)


@pytest.mark.parametrize("eps,delta,k", [("0.1", "0", 30), ("0.5", "1e-4", 11), ("1.3", "0.01", 7)])
def test_kov15_profile_reproduces_thm_3_3_at_its_grid_points(eps, delta, k):
    for i in range(0, k // 2 + 1):
        with mpmath.workdps(80):
            printed = _thm33_delta_i(eps, delta, k, i)
            eps_total = (k - 2 * i) * mpmath.mpf(eps)
        value = ev("base.kov15_profile", eps=eps, delta=delta, k=k, eps_total=eps_total)
        # (ε_g is rebound at the evaluator's precision, so at i = 0 a 1e-58-sized term may survive)
        assert abs(value - printed) <= mpmath.mpf(10) ** -45 * printed + mpmath.mpf(10) ** -55


@PROPS
@given(eps=st.floats(0.01, 2), k=st.integers(1, 150), eps_total=st.floats(0, 10))
def test_kov15_profile_equals_composed_randomised_response_in_scipy(eps, k, eps_total):
    # k-fold randomised response: L = (k − 2ℓ)ε with ℓ ~ Bin(k, 1/(1+e^ε)) under P; δ = E_P[(1 − e^{ε_g − L})₊]
    ell = np.arange(k + 1)
    loss = (k - 2 * ell) * eps
    pmf = stats.binom.pmf(ell, k, 1 / (1 + math.exp(eps)))
    expected = float(np.sum(pmf * np.maximum(0.0, -np.expm1(eps_total - loss))))
    value = float(ev("base.kov15_profile", eps=eps, delta=0, k=k, eps_total=eps_total))
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-300)


@PROPS
@given(eps=st.floats(0.005, 1.5), k=st.integers(1, 400), log_dp=st.floats(-30, -0.5),
       delta=st.sampled_from([0, 1e-8, 1e-3]))
def test_kov15_optimal_inverts_the_profile_and_is_below_the_closed_form(eps, k, log_dp, delta):
    dp = mpmath.mpf(10) ** log_dp
    eps_g, delta_g = ev("base.kov15_optimal", eps=eps, delta=delta, k=k, delta_prime=dp)
    closed, delta_closed = ev("base.kov15_closed", eps=eps, delta=delta, k=k, delta_prime=dp)
    assert delta_g == delta_closed
    with mpmath.workdps(50):
        assert abs(delta_g - (1 - (1 - mpmath.mpf(delta)) ** k * (1 - dp))) < 1e-45
    with mpmath.workdps(50):
        assert 0 <= eps_g <= closed * (1 + mpmath.mpf(10) ** -40)  # Thm 3.4 bounds the optimum of Thm 3.3
        assert eps_g <= k * mpmath.mpf(eps) * (1 + mpmath.mpf(10) ** -40)
    if eps_g > 0:  # the optimum sits exactly on the boundary δ_g(ε_g) = δ_g
        # ε_g to 70 digits: δ_g(ε) is ill-conditioned where δ' ≪ 1 (k = 1, ε = 1, δ' = 1e-17: a 50-digit ε_g, exact
        # to its last digit, moves δ_g by 2e-35 relative), so the boundary is checked with a 70-digit ε_g
        eps_70, _ = ev("base.kov15_optimal", dps=70, eps=eps, delta=delta, k=k, delta_prime=dp)
        assert abs(eps_70 - eps_g) <= abs(eps_g) * mpmath.mpf(10) ** -48  # the 50-digit answer is right to 48
        at = ev("base.kov15_profile", dps=70, eps=eps, delta=delta, k=k, eps_total=eps_70)
        assert abs(at / delta_g - 1) < 1e-35
    else:
        at = ev("base.kov15_profile", eps=eps, delta=delta, k=k, eps_total=eps_g)
        assert at <= delta_g * (1 + mpmath.mpf(10) ** -40)


def test_kov15_known_values_and_closed_form():
    # closed form recomputed literally from the printed Thm 3.4
    eps, k, dp = mpmath.mpf("0.1"), 100, mpmath.mpf("1e-5")
    closed, _ = ev("base.kov15_closed", eps="0.1", delta=0, k=100, delta_prime="1e-5")
    with mpmath.workdps(50):
        eps, dp = mpmath.mpf("0.1"), mpmath.mpf("1e-5")
        drift = (mpmath.exp(eps) - 1) * eps * k / (mpmath.exp(eps) + 1)
        printed = min(k * eps, drift + eps * mpmath.sqrt(2 * k * mpmath.log(mpmath.e + mpmath.sqrt(k * eps**2) / dp)),
                      drift + eps * mpmath.sqrt(2 * k * mpmath.log(1 / dp)))
        assert abs(closed - printed) < mpmath.mpf(10) ** -45
    optimal, _ = ev("base.kov15_optimal", eps="0.1", delta=0, k=100, delta_prime="1e-5")
    assert mpmath.nstr(optimal, 8) == "4.3067914" and mpmath.nstr(closed, 8) == "5.2981097"
    # with δ' = 1 everything is allowed: ε_g = 0
    assert ev("base.kov15_optimal", eps="0.3", delta=0, k=5, delta_prime=1)[0] == 0


def test_kov15_canonical_witness_monte_carlo():
    """δ_g(ε_g) = E_P[(1 − e^{ε_g − L})₊] for the 3-fold canonical pair; seed 1, n = 3e5, 99.9 % interval."""
    w = catalogue.get_witness("base.kov15_canonical")
    params = dict(eps=0.5, delta=0.01, k=3)
    rng = np.random.default_rng(1)
    o = w.sample(rng, 300_000, **params)
    loss = w.privacy_loss(o, **params)
    for eps_total in (0.0, 0.5, 1.2):
        with np.errstate(over="ignore"):
            x = np.where(np.isinf(loss), 1.0, np.maximum(0.0, 1 - np.exp(eps_total - loss)))
        half = 3.29 * x.std() / math.sqrt(len(x))
        exact = float(ev("base.kov15_profile", eps=0.5, delta=0.01, k=3, eps_total=eps_total))
        assert abs(x.mean() - exact) < half


@pytest.mark.parametrize("sid,bad", [
    ("base.kov15_optimal", {"eps": -1, "delta": 0, "k": 10, "delta_prime": "1e-5"}),
    ("base.kov15_optimal", {"eps": "0.1", "delta": 0, "k": 0, "delta_prime": "1e-5"}),
    ("base.kov15_optimal", {"eps": "0.1", "delta": 0, "k": 10, "delta_prime": 0}),
    ("base.kov15_closed", {"eps": "0.1", "delta": 1, "k": 10, "delta_prime": "1e-5"}),
    ("base.kov15_profile", {"eps": "0.1", "delta": 0, "k": 10, "eps_total": -1}),
    ("base.basic_composition", {"eps": float("nan"), "delta": 0, "k": 2}),
    ("base.basic_composition", {"eps": 1, "delta": 0, "k": "2.5"}),
])
def test_bad_input(sid, bad):
    with pytest.raises(DomainError):
        catalogue.get(sid).evaluate(**bad)


def test_kov15_profile_stays_real_and_below_one_when_delta0_is_near_one():
    """Regression (found by `dpspec conform`): with kε large, δ₀ → 1 and 1 − δ₀ was formed by cancellation,
    giving log1p of a number below −1 (a complex result). 1 − δ₀ is now a sum of positive terms."""
    st = catalogue.get("base.kov15_profile")
    for eps in ("5", "50"):
        v = st.evaluate(eps=eps, delta="1e-12", k=2000, eps_total="1").value
        with mpmath.workdps(60):
            assert isinstance(v, mpmath.mpf) and 1 - mpmath.mpf("1e-40") < v <= 1
    small = st.evaluate(eps="0.001", delta="1e-12", k=2000, eps_total="2").value  # δ₀ = 0: δ_g = 1 − (1−δ)^k
    with mpmath.workdps(60):
        assert abs(small - (1 - (1 - mpmath.mpf("1e-12")) ** 2000)) < mpmath.mpf(10) ** -55


def test_kov15_optimal_with_no_slack_left_is_zero_even_when_delta0_rounds_to_one():
    # found by hypothesis (explore profile): 1 − δ₀(0) ~ e^{-800} rounded log δ₀(0) to ≥ 0 at 38 digits only
    eps_g, delta_g = ev("base.kov15_optimal", eps=1, delta=0, k=804, delta_prime=1)
    assert eps_g == 0 and delta_g == 1
