"""dc concentration tools (helper A): seed 004 Lemmas A.4, A.5, A.7, A.8, A.9 (notes shared/notes/dc-dpsgd.md §2).
Property tests (hypothesis, derandomized by tests/conftest.py) for A.4's e^r − r − 1 ≤ r² and the deterministic A.5;
exact checks of A.7 against the Gamma law of exponential sums (θ = 1); Monte Carlo on numpy Generators with fixed seeds
(one-sided, Z = 5 standard errors: level 2.9e-7 per check) for A.4, A.7, A.8 (θ = 2) and A.9 (random PSD matrices);
fast (torch) against reference (mpmath) for the closed forms."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.dc import concentration as C
from dpspec.reference.errors import ConditionError
from tests._helpers import assert_fast_matches_reference

catalogue.load_all()
Z = 5.0


@pytest.fixture(autouse=True)
def _thirty_digits():
    with mpmath.workdps(30):
        yield


def ev(sid, variant=None, allow_outside=False, dps=30, **params):
    return catalogue.get(sid).evaluate(dps=dps, variant=variant, allow_outside=allow_outside, **params)


def upper_ok(hits: int, n: int, bound: float) -> bool:
    """The empirical frequency hits/n is consistent with P ≤ bound: hits/n − Z·sqrt(b(1 − b)/n) ≤ bound (b = the
    bound, capped at 1; for bound ≥ 1 trivially)."""
    b = min(bound, 1.0)
    return hits / n - Z * math.sqrt(max(b * (1 - b), 1 / n) / n) <= bound


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.4


@given(st.floats(min_value=1e-12, max_value=1.0))
@settings(max_examples=200, deadline=None)
def test_lemma_a4_exp_inequality(r):
    """The step of Lemma A.4's proof (notes §2 Lemma A.4): e^r − r − 1 ≤ r² on (0, 1] (at 30 digits)."""
    r = mpf(r)
    assert mpmath.exp(r) - r - 1 <= r**2


def test_lemma_a4_exp_inequality_grid_and_sharpness():
    r = np.linspace(1e-4, 1, 10**4)
    assert np.all(np.expm1(r) - r <= r**2)
    assert math.expm1(1.8) - 1.8 > 1.8**2  # and it fails beyond (0, 1] (at r = 1.8: 3.2496 > 3.24)


def test_lemma_a4_monte_carlo():
    """ξ_k = b·(Rademacher), n = 100, σ_n² = n b², ρ = sqrt(log(1/δ)/n) (the optimising ρ), δ = 0.05: the deviation
    exceeds (9) with frequency ≤ δ over 2·10^4 runs (seed 21)."""
    rng = np.random.default_rng(21)
    n, b, delta, runs = 100, 1.5, 0.05, 2 * 10**4
    rho = math.sqrt(math.log(1 / delta) / n)
    bound = float(ev("dc.lemma_a4", rho=rho, var_sum=n * b * b, xi_bound=b, delta=delta).value)
    assert abs(bound - 2 * b * math.sqrt(n * math.log(1 / delta))) < 1e-9
    sums = (rng.integers(0, 2, (runs, n)) * 2 - 1).sum(1) * b
    assert upper_ok(int((sums > bound).sum()), runs, delta)


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.5 (deterministic)

VEC = st.lists(st.floats(-10, 10, allow_nan=False), min_size=1, max_size=5)


@given(VEC, VEC)
@settings(max_examples=300, deadline=None)
def test_lemma_a5_property(g, v):
    """⟨g/‖g‖, v⟩ ≥ ‖v‖/3 − 8‖g − v‖/3 for every g ≠ 0 (Cutkosky & Mehta 2020), both sides at 30 digits."""
    d = min(len(g), len(v))
    g, v = g[:d], v[:d]
    if all(x == 0 for x in g):
        return
    inner, rhs = C.normalized_inner_lower_vectors(g, v)
    assert inner >= rhs - mpf(10) ** -25


def test_lemma_a5_statement_from_norms_and_near_tight_case():
    assert ev("dc.lemma_a5", v_norm=3, dev_norm="0.375").value == 0
    # g = v (no noise): ⟨v/‖v‖, v⟩ = ‖v‖ ≥ ‖v‖/3
    inner, rhs = C.normalized_inner_lower_vectors([3, 4], [3, 4])
    assert inner == 5 and abs(rhs - mpf(5) / 3) < mpf(10) ** -28
    # g opposite to v with ‖g − v‖ = ‖v‖ + ‖g‖: the right-hand side is very negative, the inequality holds
    inner, rhs = C.normalized_inner_lower_vectors([-1, 0], [2, 0])
    assert inner == -2 and rhs == mpf(2) / 3 - 8


# ---------------------------------------------------------------------------------------------------------------
# Lemmas A.7 / A.8 for the Weibull law


def test_weibull_v_closed_form_theta_one():
    """θ = 1, λ = 1 (Exp(1)), L > μ = 1: c = ηI(L)/L = η and
    v(L, η) = e^{−L} + 1 − 2/e + e^{−1}γ(3, (1 − η)(L − 1))/(1 − η)³ (the integral done by hand)."""
    for L, eta in (("3", "0.5"), ("40", "0.9"), ("1.5", "0.2")):
        L, eta = mpf(L), mpf(eta)
        closed = (mpmath.exp(-L) + 1 - 2 / mpmath.e
                  + mpmath.gammainc(3, 0, (1 - eta) * (L - 1)) / (mpmath.e * (1 - eta) ** 3))
        assert abs(C.weibull_v(L, eta, 1, 1) / closed - 1) < mpf(10) ** -25


def test_weibull_v_unbounded_at_eta_one():
    """At η = 1 v(L, 1) grows like L²/(θ − 1) (θ = 2: L²), so x_max = ∞ (condition xmax_finite)."""
    with mpmath.workdps(15):
        v = [C.weibull_v(L, 1, 2, 1) for L in (10**3, 10**4)]
    assert 50 < v[1] / v[0] < 200 and abs(v[1] / 10**8 - 1) < 0.1
    with pytest.raises(ConditionError, match="xmax_finite"):
        ev("dc.lemma_a7", dps=15, theta=2, scale=1, m=10, x=1, eta=1)
    with pytest.raises(ConditionError, match="tail_at_most_linear"):
        ev("dc.lemma_a7", dps=15, theta="0.5", scale=1, m=10, x=1, eta="0.5")


def test_lemma_a7_x_max_identity_and_continuity():
    """At x_max, η v(m x_max, η) I(m x_max) = m x_max² (its definition), so the printed second-branch remainder
    m·exp(−m x_max²/(ηv)) equals m·exp(−I(m x_max)) and (10) is continuous at x = x_max (notes §2 Lemma A.7)."""
    with mpmath.workdps(20):
        m, eta, theta = 20, mpf("0.5"), 2
        xm = C.weibull_x_max(m, eta, theta, 1)
        v = C.weibull_v(m * xm, eta, theta, 1)
        I = (m * xm) ** (mpf(1) / theta)
        assert abs(eta * v * I / (m * xm**2) - 1) < mpf(10) ** -15
        below = C.bakhshizadeh_a7(theta, 1, m, xm * (1 - mpf(10) ** -12), eta)
        above = C.bakhshizadeh_a7(theta, 1, m, xm * (1 + mpf(10) ** -12), eta)
        assert abs(below / above - 1) < mpf(10) ** -9


def test_lemma_a7_exact_gamma_theta_one():
    """θ = 1, λ = 1: S_m ~ Gamma(m, 1), P(S_m − m > mx) = Q(m, m(1 + x)) exactly; the bound exceeds it in both
    branches (x_max = 3.075 at m = 20, η = 1/2)."""
    with mpmath.workdps(15):
        for x in ("0.5", "2", "4"):
            bound = ev("dc.lemma_a7", dps=15, theta=1, scale=1, m=20, x=x, eta="0.5").value
            exact = mpmath.gammainc(20, 20 * (1 + mpf(x)), mpmath.inf, regularized=True)
            assert exact < bound < 1


def test_lemma_a7_a8_monte_carlo_theta_two():
    """θ = 2, λ = 1 (Weibull shape 1/2: mean 2, variance 20), m = 20, η = 1/2, 10^5 sums (seed 31): the empirical
    P(S_m − ES_m > mx) (A.7) and P(Σ(X_i − μ) > mt) (A.8) at x = t ∈ {4, 8} (bounds 0.38 and 0.024 for A.7, 0.46
    and 0.050 for A.8) are below the bounds (one-sided, Z = 5)."""
    rng = np.random.default_rng(31)
    n, m = 10**5, 20
    dev = rng.weibull(0.5, (n, m)).sum(1) - m * 2.0
    with mpmath.workdps(15):
        for x in (4, 8):
            hits = int((dev > m * x).sum())
            b7 = float(ev("dc.lemma_a7", dps=15, theta=2, scale=1, m=m, x=x, eta="0.5").value)
            b8 = float(ev("dc.lemma_a8", dps=15, theta=2, scale=1, m=m, t=x, eta="0.5").value)
            assert b7 < 1 and b8 < 1
            assert upper_ok(hits, n, b7) and upper_ok(hits, n, b8)


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.9


def test_lemma_a9_inversion():
    for d, m, R, delta in ((3, 200, 3, "0.01"), (10**8, 10**6, 1, "1e-300")):
        mu = C.ahlswede_winter_mu(d, m, R, delta)
        assert abs(ev("dc.lemma_a9", d=d, m=m, mu=mu, R=R).value / mpf(delta) - 1) < mpf(10) ** -25
    # Thm 5.2's first term: μ² = 4 log(2d/δ_m)/k at R = 1, m = k
    mu = C.ahlswede_winter_mu(2000, 200, 1, "0.01")
    assert abs(mu**2 - 4 * mpmath.log(2 * 2000 / mpf("0.01")) / 200) < mpf(10) ** -25


def test_lemma_a9_monte_carlo_psd():
    """Y = d·uu^T, u uniform on the sphere S^{d−1}: E Y = I (‖EY‖ = 1), ‖Y‖ = d = R. d = 3, m = 200, μ = 0.5 (bound
    6e^{−25/6} = 0.093) and μ = 0.45 (0.17): over 3000 runs (seed 41) ‖(1/m)ΣY_i − I‖₂ > μ no more often than the
    bound allows (one-sided, Z = 5)."""
    rng = np.random.default_rng(41)
    d, m, runs = 3, 200, 3000
    u = rng.standard_normal((runs, m, d))
    u /= np.linalg.norm(u, axis=-1, keepdims=True)
    mean = d * np.einsum("rmi,rmj->rij", u, u) / m
    dev = np.abs(np.linalg.eigvalsh(mean - np.eye(d))).max(-1)
    for mu in (0.5, 0.45):
        bound = float(ev("dc.lemma_a9", d=d, m=m, mu=mu, R=d).value)
        assert bound < 1
        assert upper_ok(int((dev > mu).sum()), runs, bound)


# ---------------------------------------------------------------------------------------------------------------
# fast path


@pytest.mark.parametrize("sid", ["dc.lemma_a4", "dc.lemma_a5", "dc.lemma_a9"])
def test_fast_matches_reference(sid):
    assert_fast_matches_reference(sid, examples=12, tol=1e-10)
