"""base.sgm_profile: the exact privacy profile of one Poisson-subsampled Gaussian step (reference/base/sgm_profile.py,
fast/base/sgm_profile.py).

* independent route: mpmath quadrature of ∫ (p − e^ε q)₊ over the pair's own densities, split at the crossing of
  p = e^ε q found by bisection on the densities (not from the closed form's threshold), both directions, ε < 0 and
  the atom 1 − e^ε included; in the far tail (δ ≈ 1e-300 at ε = 50, q = 1e-8) also the threshold form evaluated
  naively at 100 digits;
* q = 1 is base.gaussian_profile (reference and fast path, bit for bit), q → 1 continuously;
* the complement identity δ_add(ε) = 1 − e^ε + e^ε δ_rem(−ε) and the atom δ_rem(ε) = 1 − e^ε for e^ε ≤ 1 − q;
* fast vs reference at drawn points (ε down to −5) and at extremes (ε = 50, q = 1e-8, δ down to 1e-300);
* domains: both paths refuse the same inputs.
"""
from __future__ import annotations

import math

import mpmath
import pytest
import torch
from hypothesis import strategies as st
from mpmath import mpf

from _helpers import (assert_fast_matches_at, assert_fast_matches_reference, hockey_stick_quadrature, sign_changes,
                      reference_value as ev)
from dpspec.fast.base.gaussian import gaussian_profile as fast_gaussian_profile
from dpspec.fast.base.sgm_profile import sgm_profile as fast_sgm_profile
from dpspec.reference import catalogue
from dpspec.reference.base.sgm_profile import sgm_profile_direction
from dpspec.reference.errors import DomainError

SID = "base.sgm_profile"
DPS = 30


def _log_normal(x, mean, s):
    return -((x - mean) / s) ** 2 / 2 - mpmath.log(s) - mpmath.log(2 * mpmath.pi) / 2


def sgm_pair(q, sigma, direction):
    """(log p, log q) of the remove pair ((1−q)N(0,σ²) + qN(1,σ²), N(0,σ²)) or the add pair (swapped)."""
    q, s = mpf(q), mpf(sigma)
    mix = lambda x: mpmath.log((1 - q) * mpmath.exp(_log_normal(x, 0, s)) + q * mpmath.exp(_log_normal(x, 1, s)))
    base = lambda x: _log_normal(x, 0, s)
    return (mix, base) if direction == "remove" else (base, mix)


def sgm_quadrature(eps, q, sigma, direction, scan=None):
    log_p, log_q = sgm_pair(q, sigma, direction)
    s = mpf(sigma)
    return hockey_stick_quadrature(log_p, log_q, eps, [], scan or (-40 * s, 1 + 40 * s))


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("eps,q,sigma", [
    ("-0.7", "0.01", "0.8"),  # remove: e^ε ≤ 1 − q, the atom 1 − e^ε
    ("-0.3", "0.3", "2"),
    ("-0.001", "0.01", "0.8"),
    (0, "0.3", "0.5"),
    ("0.3", "0.3", "2"),
    ("2", "0.9", "0.5"),
    ("0.005", "0.01", "0.8"),  # add: below the largest add loss −log(1 − q) ≈ 0.01005
])
def test_matches_quadrature_of_the_densities(eps, q, sigma, direction):
    with mpmath.workdps(DPS):
        quad = sgm_quadrature(eps, q, sigma, direction)
        value = ev(SID, eps=eps, q=q, sigma=sigma, direction=direction, dps=DPS)
        assert abs(value - quad) <= mpf(10) ** -20 * quad, (value, quad)


def test_far_tail_at_full_relative_precision():
    """ε = 50, q = 1e-8, σ = 0.5463 (remove): δ ≈ 1e-300, near the bottom of the float range. Against the brief's
    threshold form δ = qΦ̄((x* − 1)/σ) − (e^ε − 1 + q)Φ̄(x*/σ), x* = σ² log((e^ε − (1−q))/q) + 1/2, evaluated
    naively at 100 digits (its two terms cancel about 8 digits there): 1e-28 relative; against Gauss–Legendre
    quadrature of the densities beyond the crossing (found by bisection; pieces of 1/64, the integrand's length scale
    there is σ²/x* ≈ 0.015): 1e-12 relative (mpmath's tanh-sinh on the semi-infinite piece was 0.3 % off); the
    reference at 30 and 60 digits: 1e-28."""
    eps, q, sigma = 50, "1e-8", "0.5463"
    value = ev(SID, eps=eps, q=q, sigma=sigma, direction="remove", dps=DPS)
    assert mpf("1e-301") < value < mpf("1e-299")
    with mpmath.workdps(100):
        e, qq, s = mpf(eps), mpf(q), mpf(sigma)
        x_star = s**2 * mpmath.log((mpmath.exp(e) - (1 - qq)) / qq) + mpf(1) / 2
        naive = qq * mpmath.ncdf(-(x_star - 1) / s) - (mpmath.exp(e) - 1 + qq) * mpmath.ncdf(-x_star / s)
        assert abs(value - naive) <= mpf(10) ** -28 * naive
    with mpmath.workdps(DPS):
        log_p, log_q = sgm_pair(q, sigma, "remove")
        f = lambda x: log_p(x) - mpf(eps) - log_q(x)
        (cut,) = sign_changes(f, mpf(0), mpf(100))
        pts = [cut + mpf(k) / 64 for k in range(129)] + [mpmath.inf]
        quad = mpmath.quad(lambda x: mpmath.exp(log_p(x)) * -mpmath.expm1(-f(x)), pts, method="gauss-legendre")
        assert abs(value - quad) <= mpf(10) ** -12 * quad, (value, quad)
    high = ev(SID, eps=eps, q=q, sigma=sigma, direction="remove", dps=60)
    assert abs(value - high) <= mpf(10) ** -28 * value


@pytest.mark.parametrize("eps", ["-3", "-0.2", 0, "0.5", 1, 7])
def test_q_one_is_the_gaussian_profile(eps):
    for direction in ("remove", "add", "max"):
        assert ev(SID, eps=eps, q=1, sigma="0.7", direction=direction) == ev("base.gaussian_profile", eps=eps,
                                                                              sigma="0.7")
        fast = fast_sgm_profile(float(eps), 1.0, 0.7, direction)
        assert torch.equal(fast, fast_gaussian_profile(float(eps), 0.7))
    # q → 1: continuous (the derivative in q is bounded, so 1e-12 in q moves δ by about 1e-12)
    near = ev(SID, eps=eps, q="0.999999999999", sigma="0.7")
    assert abs(near / ev("base.gaussian_profile", eps=eps, sigma="0.7") - 1) < 1e-10


@pytest.mark.parametrize("eps", ["-2", "-0.01", "0.001", "0.4", 3])
@pytest.mark.parametrize("q,sigma", [("0.01", "0.8"), ("0.5", "3")])
def test_complement_identity_and_max(eps, q, sigma):
    """δ_add(ε) = 1 − e^ε + e^ε δ_rem(−ε) (sup_S Q(S) − γP(S) over complements), and max is the larger one."""
    with mpmath.workdps(40):
        rem = lambda e: ev(SID, eps=e, q=q, sigma=sigma, direction="remove", dps=40)
        add = ev(SID, eps=eps, q=q, sigma=sigma, direction="add", dps=40)
        e = mpf(eps)
        expected = -mpmath.expm1(e) + mpmath.exp(e) * rem(-e)
        assert abs(add - expected) <= mpf(10) ** -30 * max(add, mpf(10) ** -300)
        assert ev(SID, eps=eps, q=q, sigma=sigma, direction="max", dps=40) == max(add, rem(e))


def test_atom_below_the_smallest_remove_loss():
    """Where e^ε ≤ 1 − q every loss value of the remove pair exceeds ε: δ = P(all) − e^ε Q(all) = 1 − e^ε."""
    with mpmath.workdps(50):
        q = mpf("0.2")
        for eps in (mpmath.log(1 - q) - mpf("1e-9"), mpf(-1), mpf(-30)):
            value = ev(SID, eps=eps, q=q, sigma=2, direction="remove")
            assert abs(value + mpmath.expm1(eps)) <= mpf(10) ** -45 * value
        # just above the smallest loss log(1 − q): the atom plus (e^ε − 1 + q)·δ_σ(−ε'), ≈ 8e-10 more at σ = 0.05
        # (where δ_σ(19.3) ≈ 1)
        above = mpmath.log(1 - q) + mpf("1e-9")
        extra = ev(SID, eps=above, q=q, sigma="0.05", direction="remove") + mpmath.expm1(above)
        assert abs(extra / (mpmath.exp(above) - (1 - q)) - 1) < mpf("1e-6")


def test_add_vanishes_beyond_the_largest_add_loss():
    with mpmath.workdps(50):
        q = mpf("0.05")
        top = -mpmath.log1p(-q)
        assert ev(SID, eps=top + mpf("1e-12"), q=q, sigma=1, direction="add") == 0
        below = ev(SID, eps=top - mpf("1e-6"), q=q, sigma=1, direction="add")
        assert 0 < below < mpf("1e-5")


def test_fast_matches_reference_at_drawn_points():
    assert_fast_matches_reference(SID, examples=30, strategies={"eps": st.floats(-5, 20)})


@pytest.mark.parametrize("direction", ["remove", "add", "max"])
@pytest.mark.parametrize("eps,q,sigma", [
    (50.0, 1e-8, 0.8), (50.0, 0.01, 5.0), (20.0, 1e-8, 100.0), (1e-9, 1e-8, 1.0), (0.001, 1e-8, 0.05),
    (-1e-9, 1e-8, 1.0), (-50.0, 0.3, 0.5), (-1e-3, 0.9, 100.0), (5e-9, 1e-8, 0.3), (1e-300, 0.5, 1.0),
])
def test_fast_matches_reference_at_extremes(eps, q, sigma, direction):
    assert_fast_matches_at(SID, eps=eps, q=q, sigma=sigma, direction=direction)


def test_fast_keeps_relative_precision_near_1e_300():
    """σ chosen so that δ_rem(50) ≈ 1e-300 at q = 1e-8 (bisection in log σ on the fast path; δ decreases in σ):
    fast vs reference within 1e-11 relative there."""
    lo, hi = math.log(0.01), math.log(2.0)
    for _ in range(60):
        mid = (lo + hi) / 2
        value = fast_sgm_profile(50.0, 1e-8, math.exp(mid), "remove").item()
        lo, hi = (lo, mid) if value < 1e-300 else (mid, hi)
    sigma = math.exp(lo)
    fast, ref = assert_fast_matches_at(SID, tol=1e-11, eps=50.0, q=1e-8, sigma=sigma, direction="remove")
    assert 1e-301 < float(ref) < 1e-299


def test_witness_direction_of_max_attains_it():
    for eps in ("0", "0.004", "0.5", "-0.3"):
        p = {"eps": eps, "q": "0.01", "sigma": "0.8", "direction": "max"}
        d = sgm_profile_direction(p)
        assert ev(SID, eps=eps, q="0.01", sigma="0.8", direction=d) == ev(SID, **p)
    assert sgm_profile_direction({"eps": 1, "q": "0.1", "sigma": 1, "direction": "add"}) == "add"


@pytest.mark.parametrize("bad", [{"q": 0}, {"q": "1.5"}, {"sigma": 0}, {"eps": math.nan}, {"eps": math.inf},
                                 {"direction": "both"}])
def test_both_paths_refuse_the_same_inputs(bad):
    point = {"eps": 1.0, "q": 0.1, "sigma": 1.0, "direction": "max", **bad}
    with pytest.raises(DomainError):
        catalogue.get(SID).evaluate(**point)
    with pytest.raises(DomainError):
        fast_sgm_profile(**{k: (float(v) if k != "direction" else v) for k, v in point.items()})
