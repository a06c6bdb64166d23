"""dc.def3_1 — seed 004 Definition 3.1 ((ε, δ)-DP, L107, eq. (2)) realised for one DC-DPSGD step (reference/dc/
definition.py): the supremum over events of P(M(D) ∈ Y) − e^ε P(M(D') ∈ Y) for the joint step's output laws.

Checked against independent computations: the Gaussian closed form at q = 1 (Balle & Wang 2018 Thm 8,
base.gaussian_profile), base.sgm_profile's shifted-ε reduction at σ = 1/μ (both orders), a direct numerical
supremum over half-line events, and a seeded Monte Carlo of the 2-D pair's hockey-stick divergence (the witness
dc.joint_step's own sampler and densities). Each check is shown able to fail on a planted error."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.base.gaussian import gaussian_profile
from dpspec.reference.base.sgm_profile import sgm_profile
from dpspec.reference.catalogue import get_witness
from dpspec.reference.dc import definition as D
from dpspec.reference.errors import DomainError, ParameterError

catalogue.load_all()

POINTS = [  # (eps, q, sigma_tr, sigma_dp, delta_tr, delta_gp)
    (1, "0.00512", "0.8837", "0.8837", 1, 1),  # CIFAR10 recipe, reading C in the slot model
    (2, "0.1056", "2.5403", "2.5403", 1, "1.9"),  # ImageNette recipe, reading C (Δ_gp = 2 − c2/c1)
    ("0.05", "0.9", 1, "0.7", 0, 1),  # reading B, small ε, large q
    (0, "0.3", 2, "0.5", 1, 1),  # ε = 0: the total variation distance
    (6, 1, 1, "0.3", "0.5", 1),  # no subsampling
]


def _mu(sigma_tr, sigma_dp, delta_tr, delta_gp):
    return mpmath.sqrt((mpf(delta_tr) / mpf(sigma_tr)) ** 2 + (mpf(delta_gp) / mpf(sigma_dp)) ** 2)


@pytest.mark.parametrize("eps", [0, "0.3", 1, 4, 12])
@pytest.mark.parametrize("sigma", ["0.4", 1, 3])
def test_no_subsampling_is_the_analytic_gaussian(eps, sigma):
    """q = 1, Δ_tr = 0: the step is the Gaussian mechanism N(c1, σ²c1²) vs N(0, σ²c1²); Def 3.1's δ(ε) is Balle &
    Wang's closed form at σ (both orders coincide)."""
    with mpmath.workdps(40):
        got = D.def3_1(eps, 1, 1, sigma, 0, 1)
        want = gaussian_profile(eps, sigma)
        assert abs(got - want) <= mpf("1e-30") * want
        assert D.def3_1(eps, 1, 1, sigma, 0, 1, "add") == pytest.approx(float(want), rel=1e-25)


@pytest.mark.parametrize("point", POINTS)
@pytest.mark.parametrize("direction", ["remove", "add", "max"])
def test_equals_base_sgm_profile_at_sigma_one_over_mu(point, direction):
    """The located event gives ZDW22's shifted-ε formula (base.sgm_profile at σ = 1/μ) to 1e-35 at 50 digits."""
    eps, q, st, sd, dt, dg = point
    with mpmath.workdps(50):
        got = D.def3_1(eps, q, st, sd, dt, dg, direction)
        want = sgm_profile(eps, q, 1 / _mu(st, sd, dt, dg), direction)
        assert abs(got - want) <= max(mpf("1e-35") * want, mpf("1e-60")), (got, want)


@pytest.mark.parametrize("point", POINTS[:4])
def test_supremum_over_half_lines_found_by_search(point):
    """A direct numerical supremum of P(u > t) − e^ε Q(u > t) over t (golden-section search on a bracket, no use of
    the threshold formula) reaches the value and does not exceed it; max = the larger order."""
    eps, q, st, sd, dt, dg = point
    with mpmath.workdps(30):
        eps, q, mu = mpf(eps), mpf(q), _mu(st, sd, dt, dg)
        f = lambda t: D.event_gap(eps, q, mu, t, mpmath.inf, "remove")  # noqa: E731
        a, b = mpf(-20), mpf(40)
        g = (mpmath.sqrt(5) - 1) / 2
        for _ in range(80):
            c, d = b - g * (b - a), a + g * (b - a)
            a, b = (a, d) if f(c) > f(d) else (c, b)
        best = f((a + b) / 2)
        value = D.def3_1(eps, q, st, sd, dt, dg, "remove")
        assert best <= value * (1 + mpf("1e-20")) + mpf("1e-40")
        assert abs(best - value) <= mpf("1e-12") * value + mpf("1e-40")
        both = D.def3_1(eps, q, st, sd, dt, dg, "max")
        assert both == max(value, D.def3_1(eps, q, st, sd, dt, dg, "add"))


def test_add_order_vanishes_beyond_the_largest_loss():
    """In the add order the loss is at most −log(1 − q): δ = 0 for ε ≥ −log(1 − q), positive below."""
    q = mpf("0.2")
    edge = -mpmath.log(1 - q)
    assert D.def3_1(edge * mpf("1.001"), q, 1, 1, 1, 1, "add") == 0
    assert D.def3_1(edge * mpf("0.9"), q, 1, 1, 1, 1, "add") > 0


def test_properties_pass_and_can_fail(monkeypatch):
    """The statement's two properties pass at every point, and each raises on a planted value 1 % too small (the
    'no event exceeds' property) or a planted event threshold that forgets the subsampling, t* = (ε + μ²/2)/μ (the
    base.sgm_profile agreement: that event is not the supremum)."""
    st = catalogue.get("dc.def3_1")
    names = ("eps", "q", "sigma_tr", "sigma_dp", "delta_tr", "delta_gp")
    with mpmath.workdps(30):
        for pt in POINTS:
            for prop in st.properties:
                prop(st, dict(zip(names, pt)))
        p = dict(zip(names, POINTS[0]), direction="remove")
        real = D.def3_1
        monkeypatch.setattr(D, "def3_1", lambda *a, **k: real(*a, **k) * mpf("0.99"))
        with pytest.raises(AssertionError, match="gives"):
            D._no_event_exceeds(st, p)
        monkeypatch.setattr(D, "def3_1", real)
        monkeypatch.setattr(D, "remove_event", lambda eps, q, mu: (eps + mu**2 / 2) / mu)
        with pytest.raises(AssertionError, match="base.sgm_profile"):
            D._agrees_with_base_sgm_profile(st, p)


def _mc_delta(eps, q, sigma_tr, sigma_dp, delta_tr, delta_gp, n, seed):
    """E_P[(1 − e^{ε − L})_+] on n draws of the witness dc.joint_step (its sampler and log densities), with a 99.9 %
    normal interval (the summand lies in [0, 1])."""
    w = get_witness("dc.joint_step")
    kw = dict(q=q, sigma_tr=sigma_tr, sigma_dp=sigma_dp, delta_tr=delta_tr, delta_gp=delta_gp)
    o = w.sample(np.random.default_rng(seed), n, **kw)
    loss = w.log_p(o, **kw) - w.log_q(o, **kw)
    x = -np.expm1(np.minimum(eps - loss, 0.0))
    half = 3.29 * x.std(ddof=1) / math.sqrt(n)
    return x.mean(), half


@pytest.mark.parametrize("eps, q, st, sd, dt, dg", [(0.5, 0.3, 0.8, 0.8, 1.0, 1.0), (1.0, 0.05, 1.5, 0.6, 1.0, 1.9),
                                                    (0.2, 1.0, 1.0, 1.0, 0.0, 1.0)])
def test_monte_carlo_of_the_joint_pair_agrees(eps, q, st, sd, dt, dg):
    """Seed 20261127, n = 4·10⁵ draws of the 2-D pair, 99.9 % interval: the remove-order value lies in it; a planted
    error — μ without the released scores' term (Δ_tr ignored), or the printed amplification q(e^ε − 1) style
    δ·2 — falls outside (measured: the planted values are > 10 half-widths away at the first two points)."""
    est, half = _mc_delta(eps, q, st, sd, dt, dg, 400_000, 20261127)
    value = float(D.def3_1(eps, q, st, sd, dt, dg, "remove"))
    assert abs(est - value) <= half, (est, half, value)
    assert abs(2 * value - est) > half
    if dt > 0:
        planted = float(D.def3_1(eps, q, 1e6, sd, dt, dg, "remove"))  # σ_tr → ∞: the score term dropped
        assert abs(planted - est) > half, (planted, est, half)


def test_refusals():
    with pytest.raises(DomainError):
        D.def3_1(-1, "0.1", 1, 1)
    with pytest.raises(DomainError):
        D.def3_1(1, 0, 1, 1)
    with pytest.raises(DomainError):
        D.def3_1(1, "0.1", 1, 1, delta_gp=0)
    with pytest.raises(DomainError):
        D.def3_1(1, "0.1", 1, 1, direction="both")


def test_witness_uses_cover_both_orders():
    """dc.joint_step (the 2-D pair, remove order) applies where the remove order attains the value and refuses
    (ParameterError) elsewhere; base.sgm at σ = 1/μ applies everywhere in the attaining order (under 'max' remove won
    at every ε ≥ 0 tried; add only ties at ε = 0 or q = 1)."""
    remove_pt = dict(eps=1, q="0.00512", sigma_tr="0.8837", sigma_dp="0.8837")
    add_pt = dict(eps="0.1", q="0.3", sigma_tr=2, sigma_dp="0.5", direction="add")
    assert D._order(remove_pt) == "remove" and D._order(add_pt) == "add"
    assert D._order({**add_pt, "direction": "max"}) == "remove"
    st = catalogue.get("dc.def3_1")
    joint, sgm = st.witnesses
    assert joint.witness_params(remove_pt)["delta_gp"] == 1
    assert sgm.witness_params(remove_pt)["direction"] == "remove"
    with pytest.raises(ParameterError):
        joint.witness_params(add_pt)
    s = sgm.witness_params(add_pt)
    assert s["direction"] == "add" and float(s["sigma"]) == pytest.approx(1 / math.hypot(0.5, 2.0), rel=1e-12)
