"""base.laplace_subsampled_profile and its witness base.laplace_subsampled (reference/base/laplace_subsampled.py,
fast/base/laplace_subsampled.py).

* independent route: mpmath quadrature of ∫ (p − e^ε q)₊ over the pair's own densities, split at the kinks 0 and 1
  and at the crossings of p = e^ε q found by bisection, both directions, ε < 0 included;
* the atoms of the remove loss (x ≤ 0 and x ≥ 1): below the smallest loss δ = 1 − e^ε exactly, above the largest
  δ = 0, and the one-sided slopes dδ/dε = −e^ε Q(L > ε) at both atoms equal −e^ε × (the atom's Q-mass side);
* q = 1 is base.laplace_profile (reference and fast path, bit for bit);
* fast vs reference at drawn points (ε down to −5) and at extremes (ε up to 50, q down to 1e-8);
* the witness: its moment against quadrature of p^α q^{1−α}, its sampler (both directions) against the moment,
  its declared bounded-loss range against the pair's losses.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch
from hypothesis import strategies as st
from mpmath import mpf

from _helpers import (assert_fast_matches_at, assert_fast_matches_reference, hockey_stick_quadrature,
                      reference_value as ev)
from dpspec.conformance.sampling import check_sampler
from dpspec.fast.base.laplace import laplace_profile as fast_laplace_profile
from dpspec.fast.base.laplace_subsampled import laplace_subsampled_profile as fast_profile
from dpspec.reference import catalogue
from dpspec.reference.base.laplace_subsampled import laplace_subsampled_direction
from dpspec.reference.errors import DomainError

SID = "base.laplace_subsampled_profile"
WID = "base.laplace_subsampled"
DPS = 30


# the quadrature of tests/base/test_sgm_profile.py (copied: test modules do not import each other)
def _log_laplace(x, mean, b):
    return -abs(x - mean) / b - mpmath.log(2 * b)


def laplace_pair(q, b, direction):
    """(log p, log q) of the remove pair ((1−q)Lap(0,b) + qLap(1,b), Lap(0,b)) or the add pair (swapped)."""
    q, b = mpf(q), mpf(b)
    mix = lambda x: mpmath.log((1 - q) * mpmath.exp(_log_laplace(x, 0, b)) + q * mpmath.exp(_log_laplace(x, 1, b)))
    base = lambda x: _log_laplace(x, 0, b)
    return (mix, base) if direction == "remove" else (base, mix)


def laplace_quadrature(eps, q, b, direction):
    log_p, log_q = laplace_pair(q, b, direction)
    return hockey_stick_quadrature(log_p, log_q, eps, [mpf(0), mpf(1)], (mpf(0), mpf(1)))


@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("eps,q,b", [
    ("-1.5", "0.1", "1"), ("-0.05", "0.1", "1"), ("-0.01", "0.5", "0.5"), (0, "0.1", "1"), ("0.05", "0.1", "1"),
    ("0.5", "0.7", "0.5"), ("1.2", "0.9", "0.5"), ("0.01", "0.01", "2"),
])
def test_matches_quadrature_of_the_densities(eps, q, b, direction):
    with mpmath.workdps(DPS):
        quad = laplace_quadrature(eps, q, b, direction)
        value = ev(SID, eps=eps, q=q, b=b, direction=direction, dps=DPS)
        assert abs(value - quad) <= mpf(10) ** -20 * max(quad, mpf(10) ** -300), (value, quad)


def test_atoms_of_the_remove_loss():
    """Remove loss L = log(1 − q + q r(x)): L_min = log(1 − q + q e^{−1/b}) on x ≤ 0 (Q-mass ½), L_max =
    log(1 − q + q e^{1/b}) on x ≥ 1 (Q-mass e^{−1/b}/2). δ = 1 − e^ε up to L_min, 0 from L_max on, and
    dδ/dε = −e^ε Q(L > ε) jumps at each atom: −e^ε below L_min, −e^ε/2 just above it; −e^ε·e^{−1/b}/2 just below
    L_max, 0 above (finite differences with h = 1e-25 at 60 digits)."""
    with mpmath.workdps(60):
        q, b, h = mpf("0.3"), mpf("0.7"), mpf("1e-25")
        lo, hi = mpmath.log1p(q * mpmath.expm1(-1 / b)), mpmath.log1p(q * mpmath.expm1(1 / b))
        d = lambda e: ev(SID, eps=e, q=q, b=b, direction="remove", dps=60)
        assert abs(d(lo) + mpmath.expm1(lo)) <= mpf(10) ** -50
        assert abs(d(lo - 1) + mpmath.expm1(lo - 1)) <= mpf(10) ** -50
        assert d(hi + mpf("1e-55")) == 0 and d(hi + 1) == 0  # (hi itself is rounded: δ(hi) is 0 or ~1e-60)
        assert d(hi) <= mpf("1e-58")
        slope = lambda e0, e1: (d(e1) - d(e0)) / (e1 - e0)
        assert abs(slope(lo, lo + h) / (-mpmath.exp(lo) / 2) - 1) < mpf("1e-20")
        assert abs(slope(lo - h, lo) / -mpmath.exp(lo) - 1) < mpf("1e-20")
        assert abs(slope(hi - h, hi) / (-mpmath.exp(hi) * mpmath.exp(-1 / b) / 2) - 1) < mpf("1e-20")


def test_add_direction_ends():
    """Add loss −L ∈ [−L_max, −L_min]: δ_add = 0 from ε = −L_min = −log(1 − q + q e^{−1/b}) on, 1 − e^ε up to −L_max."""
    with mpmath.workdps(50):
        q, b = mpf("0.3"), mpf("0.7")
        top = -mpmath.log1p(q * mpmath.expm1(-1 / b))
        bottom = -mpmath.log1p(q * mpmath.expm1(1 / b))
        assert ev(SID, eps=top, q=q, b=b, direction="add") == 0
        assert ev(SID, eps=top - mpf("1e-3"), q=q, b=b, direction="add") > 0
        for e in (bottom, bottom - 2):
            assert abs(ev(SID, eps=e, q=q, b=b, direction="add") + mpmath.expm1(e)) <= mpf(10) ** -45


@pytest.mark.parametrize("eps", ["-3", "-0.5", 0, "0.3", "0.99", 2])
def test_q_one_is_the_laplace_profile(eps):
    for direction in ("remove", "add", "max"):
        assert ev(SID, eps=eps, q=1, b=1, direction=direction) == ev("base.laplace_profile", eps=eps, b=1)
        assert torch.equal(fast_profile(float(eps), 1.0, 1.0, direction), fast_laplace_profile(float(eps), 1.0))
    near = ev(SID, eps=eps, q="0.999999999999", b=1)
    full = ev("base.laplace_profile", eps=eps, b=1)
    assert abs(near - full) <= mpf("1e-10") * max(full, mpf("1e-12"))


@pytest.mark.parametrize("eps", ["-2", "-0.05", "0.02", "0.4"])
def test_complement_identity_and_max(eps):
    with mpmath.workdps(40):
        e = mpf(eps)
        rem = lambda x: ev(SID, eps=x, q="0.2", b="0.8", direction="remove", dps=40)
        add = ev(SID, eps=eps, q="0.2", b="0.8", direction="add", dps=40)
        assert abs(add - (-mpmath.expm1(e) + mpmath.exp(e) * rem(-e))) <= mpf(10) ** -30
        assert ev(SID, eps=eps, q="0.2", b="0.8", direction="max", dps=40) == max(add, rem(e))


def test_fast_matches_reference_at_drawn_points():
    assert_fast_matches_reference(SID, examples=30, strategies={"eps": st.floats(-5, 20)})


@pytest.mark.parametrize("direction", ["remove", "add", "max"])
@pytest.mark.parametrize("eps,q,b", [
    (50.0, 1e-8, 0.01), (20.0, 0.5, 0.05), (1e-9, 1e-8, 1.0), (0.001, 1e-8, 0.5), (-1e-9, 1e-8, 1.0),
    (-50.0, 0.3, 0.5), (-1e-3, 0.9, 100.0), (5e-9, 1e-8, 0.3), (1e-300, 0.5, 1.0), (0.3, 1e-4, 100.0),
])
def test_fast_matches_reference_at_extremes(eps, q, b, direction):
    assert_fast_matches_at(SID, eps=eps, q=q, b=b, direction=direction)


def test_witness_direction_of_max_attains_it():
    for eps in ("0", "0.01", "0.3", "-0.2"):
        p = {"eps": eps, "q": "0.1", "b": 1, "direction": "max"}
        d = laplace_subsampled_direction(p)
        assert ev(SID, eps=eps, q="0.1", b=1, direction=d) == ev(SID, **p)


@pytest.mark.parametrize("bad", [{"q": 0}, {"q": "1.5"}, {"b": 0}, {"eps": math.nan}, {"eps": -math.inf},
                                 {"direction": "both"}])
def test_both_paths_refuse_the_same_inputs(bad):
    point = {"eps": 1.0, "q": 0.1, "b": 1.0, "direction": "max", **bad}
    with pytest.raises(DomainError):
        catalogue.get(SID).evaluate(**point)
    with pytest.raises(DomainError):
        fast_profile(**{k: (float(v) if k != "direction" else v) for k, v in point.items()})


# ---------------------------------------------------------------------------------------------------------
# the witness pair

@pytest.mark.parametrize("direction", ["remove", "add"])
@pytest.mark.parametrize("alpha", ["2", "3.5", "0.5"])
def test_witness_moment_matches_quadrature(alpha, direction):
    """log ∫ p^α q^{1−α} over (−∞, 0, 1, ∞) with the densities written here, against the witness's moment."""
    w = catalogue.get_witness(WID)
    with mpmath.workdps(DPS):
        log_p, log_q = laplace_pair("0.2", "0.8", direction)
        a = mpf(alpha)
        quad = mpmath.quad(lambda x: mpmath.exp(a * log_p(x) + (1 - a) * log_q(x)), [-mpmath.inf, 0, 1, mpmath.inf])
        moment = w.log_moment(a, q="0.2", b="0.8", direction=direction)
        assert abs(moment - mpmath.log(quad)) <= mpf(10) ** -22


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_witness_sampler_matches_its_moment(direction):
    """conformance.sampling.check_sampler (z = 5), n = 1e5, seed 3, at q = 0.3, b = 0.7."""
    checks = check_sampler(WID, {"q": 0.3, "b": 0.7, "direction": direction}, n=100_000, seed=3)
    assert len(checks) >= 2 and all(c.ok for c in checks), [str(c) for c in checks if not c.ok]


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_witness_losses_lie_in_the_declared_range(direction):
    w = catalogue.get_witness(WID)
    params = {"q": 0.3, "b": 0.7, "direction": direction}
    fam = w.tilt_family(**params)
    o = w.sample(np.random.default_rng(0), 20_000, **params)
    loss = w.log_p(o, **params) - w.log_q(o, **params)
    assert fam["lo"] - 1e-12 <= loss.min() and loss.max() <= fam["hi"] + 1e-12
    # both ends are atoms, with P-masses (x ≤ 0 and x ≥ 1 under P): remove (1−q)/2 + q e^{−1/b}/2 at lo and
    # (1−q)e^{−1/b}/2 + q/2 at hi; add e^{−1/b}/2 at lo and 1/2 at hi (shares of n = 2e4 draws within 5 s.d.)
    e = math.exp(-1 / 0.7)
    masses = ((0.7 / 2 + 0.3 * e / 2, 0.7 * e / 2 + 0.3 / 2) if direction == "remove" else (e / 2, 0.5))
    for end, mass in zip((fam["lo"], fam["hi"]), masses):
        share = (np.abs(loss - end) < 1e-12).mean()
        assert abs(share - mass) < 5 * math.sqrt(mass * (1 - mass) / loss.size), (end, share, mass)
