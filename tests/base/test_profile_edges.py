"""Domain edges that peers' test suites use (issue 14): exact profiles at ε < 0 (base.gaussian_profile,
base.laplace_profile, base.gdp_profile), KOV15's optimal composition at per-step ε = 0 (base.kov15_profile,
base.kov15_optimal) and the subsampled Gaussian's RDP at q = 0 (base.sgm_rdp).

* ε < 0: against quadrature of the hockey-stick integral ∫ (p − e^ε q)₊ of the pairs' densities, against the closed
  forms evaluated naively at 60 digits where they apply (the Gaussian's Φ(a) − e^ε Φ(b) holds for every real ε), the
  identity δ(ε) = 1 − e^ε + e^ε δ(−ε), the limits δ → 1 − e^ε (ε → −∞) and continuity at ε = 0; fast vs reference;
* KOV15 at ε = 0: δ_g = 1 − (1−δ)^k for every ε_g ≥ 0 (both paths), ε_g = 0 for the optimal pair, and continuity
  from ε > 0;
* base.sgm_rdp at q = 0: exactly 0 in both paths, and q → 0 is continuous.
"""
from __future__ import annotations

import math

import mpmath
import pytest
import torch
from hypothesis import strategies as st
from mpmath import mpf

from _helpers import assert_fast_matches_at, assert_fast_matches_reference, reference_value as ev
from dpspec.reference import catalogue
from dpspec.reference.errors import DomainError

NEG = ["-1e-9", "-0.01", "-0.5", "-1", "-3", "-40"]


def _hockey_stick(log_p, log_q, eps, pieces):
    """∫ (p − e^ε q)₊ over ``pieces`` (breakpoints; the sign of p − e^ε q is constant on each)."""
    eps = mpf(eps)
    f = lambda x: mpmath.exp(log_p(x)) - mpmath.exp(eps + log_q(x))
    total = mpf(0)
    for a, b in zip(pieces[:-1], pieces[1:]):
        mid = (a + b) / 2 if mpmath.isfinite(a) and mpmath.isfinite(b) else (b - 1 if mpmath.isfinite(b) else a + 1)
        if f(mid) > 0:
            total += mpmath.quad(f, [a, b])
    return total


@pytest.mark.parametrize("eps", ["-0.01", "-0.7", "-3"])
@pytest.mark.parametrize("sigma", ["0.5", "2"])
def test_gaussian_negative_eps_matches_quadrature_and_closed_form(eps, sigma):
    with mpmath.workdps(30):
        e, s = mpf(eps), mpf(sigma)
        t = e * s**2 + mpf(1) / 2  # p/q = e^ε at x = εσ² + 1/2; p > e^ε q above it
        log_n = lambda x, m: -((x - m) / s) ** 2 / 2 - mpmath.log(s) - mpmath.log(2 * mpmath.pi) / 2
        quad = _hockey_stick(lambda x: log_n(x, 1), lambda x: log_n(x, 0), e, [-mpmath.inf, t, mpmath.inf])
        value = ev("base.gaussian_profile", eps=eps, sigma=sigma, dps=30)
        assert abs(value - quad) <= mpf(10) ** -20 * quad
    with mpmath.workdps(60):
        e, s = mpf(eps), mpf(sigma)
        closed = mpmath.ncdf(1 / (2 * s) - e * s) - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * s) - e * s)
        assert abs(ev("base.gaussian_profile", eps=eps, sigma=sigma) - closed) <= mpf(10) ** -45


@pytest.mark.parametrize("eps", ["-0.3", "-1.2", "-4"])
def test_laplace_negative_eps_matches_quadrature(eps):
    with mpmath.workdps(30):
        b = mpf(1)
        log_lap = lambda x, m: -abs(x - m) / b - mpmath.log(2 * b)
        e = mpf(eps)
        cut = (1 + e * b) / 2  # (|x| − |x − 1|)/b = ε on (0, 1)
        pts = [-mpmath.inf, 0, *([cut] if 0 < cut < 1 else []), 1, mpmath.inf]
        quad = _hockey_stick(lambda x: log_lap(x, 1), lambda x: log_lap(x, 0), e, pts)
        value = ev("base.laplace_profile", eps=eps, b=1, dps=30)
        assert abs(value - quad) <= mpf(10) ** -20 * quad


@pytest.mark.parametrize("sid,noise", [("base.gaussian_profile", {"sigma": "0.8"}), ("base.gdp_profile", {"mu": "1.3"}),
                                       ("base.gdp_profile", {"mu": 0}), ("base.laplace_profile", {"b": "0.6"}),
                                       ("base.laplace_profile", {"b": 5})])
@pytest.mark.parametrize("eps", NEG)
def test_negative_eps_identity(sid, noise, eps):
    """δ(ε) = 1 − e^ε + e^ε δ(−ε) (complement identity; the pairs are symmetric), and 1 − e^ε ≤ δ(ε) ≤ 1."""
    with mpmath.workdps(50):
        e = mpf(eps)
        value = ev(sid, eps=e, **noise)
        expected = -mpmath.expm1(e) + mpmath.exp(e) * ev(sid, eps=-e, **noise)
        assert abs(value - expected) <= mpf(10) ** -45 * value
        assert -mpmath.expm1(e) <= value <= 1


@pytest.mark.parametrize("sid,noise", [("base.gaussian_profile", {"sigma": "0.8"}), ("base.gdp_profile", {"mu": 2}),
                                       ("base.laplace_profile", {"b": "0.6"})])
def test_continuous_at_zero_and_limit_at_minus_infinity(sid, noise):
    with mpmath.workdps(50):
        at_zero = ev(sid, eps=0, **noise)
        assert abs(ev(sid, eps="-1e-30", **noise) - at_zero) < mpf("1e-29")
        assert abs(ev(sid, eps="1e-30", **noise) - at_zero) < mpf("1e-29")
        assert abs(ev(sid, eps=-200, **noise) + mpmath.expm1(-200)) <= mpf(10) ** -80


def test_laplace_negative_eps_closed_form():
    """−1/b ≤ ε < 0: 1 − e^{(ε − 1/b)/2}; ε ≤ −1/b: 1 − e^ε (b = 0.5: the switch at ε = −2)."""
    with mpmath.workdps(50):
        for eps in (mpf("-0.5"), mpf(-2), mpf("-2.5")):
            expected = -mpmath.expm1((eps - 2) / 2) if eps >= -2 else -mpmath.expm1(eps)
            assert abs(ev("base.laplace_profile", eps=eps, b="0.5") - expected) <= mpf(10) ** -48


@pytest.mark.parametrize("sid", ["base.gaussian_profile", "base.gdp_profile", "base.laplace_profile"])
def test_fast_matches_reference_at_negative_eps(sid):
    assert_fast_matches_reference(sid, examples=20, strategies={"eps": st.floats(-50, 0)})
    noise = {"base.gaussian_profile": {"sigma": 0.3}, "base.gdp_profile": {"mu": 0.0},
             "base.laplace_profile": {"b": 1e-300}}[sid]
    for eps in (-1e-300, -1e-9, -1.0, -700.0, -1e308):
        assert_fast_matches_at(sid, eps=eps, **noise)


@pytest.mark.parametrize("sid,noise", [("base.gaussian_profile", {"sigma": 1}), ("base.gdp_profile", {"mu": 1}),
                                       ("base.laplace_profile", {"b": 1})])
def test_still_refused(sid, noise):
    for bad in (math.nan, math.inf, -math.inf):
        with pytest.raises(DomainError):
            catalogue.get(sid).evaluate(eps=bad, **noise)
        with pytest.raises(DomainError):
            catalogue.get(sid).fast_function()(eps=bad, **{k: float(v) for k, v in noise.items()})


# ---------------------------------------------------------------------------------------------------------
# KOV15 at per-step ε = 0

@pytest.mark.parametrize("delta,k", [(0, 10), ("1e-3", 10), ("1e-6", 2000), ("0.3", 7)])
def test_kov15_at_eps_zero(delta, k):
    with mpmath.workdps(50):
        expected = -mpmath.expm1(k * mpmath.log1p(-mpf(delta)))  # 1 − (1−δ)^k
        for eps_total in (0, "0.5", 30):
            value = ev("base.kov15_profile", eps=0, delta=delta, k=k, eps_total=eps_total)
            assert abs(value - expected) <= mpf(10) ** -45 * max(expected, mpf(10) ** -300)
        eps_g, delta_g = ev("base.kov15_optimal", eps=0, delta=delta, k=k, delta_prime="1e-5")
        assert eps_g == 0
        assert abs(delta_g + mpmath.expm1(k * mpmath.log1p(-mpf(delta)) + mpmath.log1p(mpf("-1e-5")))) <= \
            mpf(10) ** -45 * delta_g
    assert_fast_matches_at("base.kov15_profile", eps=0.0, delta=float(delta), k=k, eps_total=0.0)
    assert_fast_matches_at("base.kov15_optimal", eps=0.0, delta=float(delta), k=k, delta_prime=1e-5)


def test_kov15_is_continuous_at_eps_zero():
    """δ₀ at per-step ε → 0 is O(kε): ε = 1e-15 moves δ_g by about 1e-13 at k = 100."""
    for eps_total in (0, 1):
        zero = ev("base.kov15_profile", eps=0, delta="1e-3", k=100, eps_total=eps_total)
        near = ev("base.kov15_profile", eps="1e-15", delta="1e-3", k=100, eps_total=eps_total)
        assert zero <= near <= zero + mpf("1e-12")
    eps_g, _ = ev("base.kov15_optimal", eps="1e-15", delta="1e-3", k=100, delta_prime="1e-5")
    assert 0 <= eps_g < mpf("1e-12")


def test_kov15_fast_batches_mix_zero_and_positive_eps():
    from dpspec.fast.base.composition import kov15_optimal, kov15_profile

    eps = torch.tensor([0.0, 0.1, 0.0, 1.0], dtype=torch.float64)
    batch = kov15_profile(eps, 1e-3, 50, 0.5)
    single = torch.stack([kov15_profile(e, 1e-3, 50, 0.5) for e in eps])
    assert torch.allclose(batch, single, rtol=1e-14, atol=0)
    eps_g, _ = kov15_optimal(eps, 1e-3, 50, 1e-5)
    assert eps_g[0] == 0 and eps_g[2] == 0 and bool((eps_g[[1, 3]] > 0).all())


def test_kov15_closed_still_refuses_eps_zero():
    """Thm 3.4's closed form assumes ε > 0: its domain is unchanged."""
    with pytest.raises(DomainError):
        catalogue.get("base.kov15_closed").evaluate(eps=0, delta=0, k=10, delta_prime="1e-5")


# ---------------------------------------------------------------------------------------------------------
# base.sgm_rdp at q = 0

@pytest.mark.parametrize("direction", ["remove", "add", "max"])
def test_sgm_rdp_at_q_zero(direction):
    from dpspec.fast.base.sgm import sgm_rdp

    for alpha in (2, "2.5", 1000):
        assert ev("base.sgm_rdp", alpha=alpha, q=0, sigma="0.7", direction=direction) == 0
    fast = sgm_rdp(torch.tensor([2.0, 2.5, 1000.0]), torch.tensor([0.0, 0.0, 0.01]), 0.7, direction)
    assert fast[0] == 0 and fast[1] == 0 and fast[2] > 0
    # q → 0: ε(α) ≈ C(α,2) q² (e^{1/σ²} − 1)/(α − 1) → 0
    tiny = ev("base.sgm_rdp", alpha=2, q="1e-150", sigma="0.7", direction=direction)
    assert 0 < tiny < mpf("1e-298")
    with pytest.raises(DomainError):
        ev("base.sgm_rdp", alpha=2, q="-1e-300", sigma=1)
