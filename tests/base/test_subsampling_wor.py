"""Sampling without replacement and the replace-one relation (reference/base/subsampling_wor.py,
fast/base/subsampling_wor.py, fast/base/pld_pairs_wor.py; issue 14).

* base.sgm_wor_profile and base.sgm_replace_one_profile against mpmath quadrature of ∫ (p − e^ε q)₊ over each
  pair's OWN densities (crossings found by bisection, not from the closed forms), ε < 0 included, and the larger of
  the two orders for WOR;
* the Poisson replace-one pair: no collinear pair ((1−q)N(0)+qN(a), (1−q)N(0)+qN(b)), a, b ∈ [−1, 1], has a larger δ
  (a scan; the antipodal choice a = −b = 1 is the cited worst case);
* the WOR pair is attained by the mechanism itself: the witness's sampler runs the batch draw on the attaining
  datasets, and its δ estimate (seed 7, 2e5 draws, 5-sigma binomial band) agrees with the profile;
* base.sgm_wor_rdp is WBK19 Thm 9 (checked against the formula written out at integer α, against convex
  interpolation at fractional α) and lies above the exact RDP of the attaining pair; base.sgm_replace_one_rdp lies
  above the exact RDP of its pair (quadrature of the witness's densities);
* fast vs reference at drawn points; the tight accountant's one-step sandwich contains the exact profiles; the
  symmetric WOR pair composes above both pure orders and above an alternating schedule (the composition pitfall);
* bad input (m > n, m = 0, n = 0, σ ≤ 0, NaN) refused by both paths with the same words;
* peers (dp-accounting, importorskip): its REPLACE_ONE PLD of the Poisson-subsampled Gaussian lies inside our
  sandwich, its WOR RDP (WBK19) equals ours, its one-step Poisson remove PLD at (γ, σ/2) equals our WOR profile.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch
from hypothesis import strategies as st
from mpmath import mpf

from _helpers import assert_fast_matches_at, assert_fast_matches_reference, hockey_stick_quadrature
from _helpers import reference_value as ev
from dpspec.fast import Accountant
from dpspec.fast.base import pld as pld_mod
from dpspec.fast.base.pld_pairs import sgm_pair
from dpspec.fast.base.pld_pairs_wor import replace_one_pair, wor_pair
from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError, ParameterError

WOR, RO, WOR_RDP, RO_RDP = ("base.sgm_wor_profile", "base.sgm_replace_one_profile", "base.sgm_wor_rdp",
                            "base.sgm_replace_one_rdp")
DPS = 25


def _log_normal(x, mean, s):
    return -((x - mean) / s) ** 2 / 2 - mpmath.log(s) - mpmath.log(2 * mpmath.pi) / 2


def _log_mix(x, w, mean, s, base=0):
    """log((1 − w)N(x; base, s²) + wN(x; mean, s²))."""
    if w == 1:
        return _log_normal(x, mean, s)
    return mpmath.log((1 - w) * mpmath.exp(_log_normal(x, base, s)) + w * mpmath.exp(_log_normal(x, mean, s)))


# ---------------------------------------------------------------------------------------------------------------
# exact profiles against quadrature of the pairs' own densities

@pytest.mark.parametrize("eps,m,n,sigma", [
    ("-0.4", 30, 100, "1.5"), (0, 7, 50, "0.8"), ("0.5", 256, 6000, "1"), ("2", 1, 3, "0.6"), ("1", 5, 5, "2"),
])
def test_wor_profile_is_the_larger_order_by_quadrature(eps, m, n, sigma):
    """Both orders of the attaining datasets (shifted by m): P = (1 − γ)N(0, σ²) + γN(2, σ²) vs N(0, σ²), and
    swapped; the statement is the larger δ."""
    with mpmath.workdps(DPS):
        g, s = mpf(m) / n, mpf(sigma)
        mix = lambda x: _log_mix(x, g, 2, s)  # noqa: E731
        base = lambda x: _log_normal(x, 0, s)  # noqa: E731
        scan = (-30 * s, 2 + 30 * s)
        rem = hockey_stick_quadrature(mix, base, eps, [], scan)
        add = hockey_stick_quadrature(base, mix, eps, [], scan)
        value = ev(WOR, eps=eps, m=m, n=n, sigma=sigma, dps=DPS)
        want = max(rem, add)
        assert abs(value - want) <= mpf(10) ** -15 * want, (value, rem, add)
        if mpf(eps) >= 0:
            assert rem >= add  # the remove order attains it for ε ≥ 0 (module docstring)


@pytest.mark.parametrize("eps,q,sigma", [
    ("-1", "0.01", "0.8"), ("-0.05", "0.3", "2"), (0, "0.1", "1"), ("0.7", "0.01", "0.8"), ("3", "0.5", "0.6"),
    ("1", 1, "1.5"),
])
def test_replace_one_profile_by_quadrature(eps, q, sigma):
    with mpmath.workdps(DPS):
        qq, s = mpf(q), mpf(sigma)
        p = lambda x: _log_mix(x, qq, 1, s)  # noqa: E731
        r = lambda x: _log_mix(x, qq, -1, s)  # noqa: E731
        want = hockey_stick_quadrature(p, r, eps, [], (-30 * s - 1, 1 + 30 * s))
        value = ev(RO, eps=eps, q=q, sigma=sigma, dps=DPS)
        assert abs(value - want) <= mpf(10) ** -15 * want, (value, want)


def test_replace_one_profile_far_tail_at_two_precisions():
    """ε = 30 at q = 1e-4, σ = 0.5: δ ≈ 1e-120; the tails cancel a few digits, recovered by the extra precision."""
    a = ev(RO, eps=30, q="1e-4", sigma="0.5", dps=30)
    b = ev(RO, eps=30, q="1e-4", sigma="0.5", dps=60)
    assert mpf("1e-200") < a < mpf("1e-50")
    assert abs(a - b) <= mpf(10) ** -28 * b


def test_antipodal_is_the_worst_collinear_replace_one_pair():
    """Poisson replace-one, contributions a, b ∈ [−1, 1] (the rest of the batch empty, by joint convexity): δ of
    ((1−q)N(0)+qN(a), (1−q)N(0)+qN(b)) is largest at a = −b = ±1, at each ε of a grid (trapezoid rule, 2e-4 grid,
    the same rule for every pair so that its error does not decide)."""
    q, s = 0.2, 0.7
    x = np.linspace(-9, 9, 18001)
    ln = lambda m: -((x - m) / s) ** 2 / 2 - math.log(s * math.sqrt(2 * math.pi))  # noqa: E731
    grid = np.linspace(-1, 1, 11)
    mix = {a: np.exp(np.logaddexp(math.log1p(-q) + ln(0.0), math.log(q) + ln(a))) for a in grid}
    for eps in (0.0, 0.2, 0.8, 2.0):
        hs = lambda a, b: np.trapezoid(np.maximum(mix[a] - math.exp(eps) * mix[b], 0), x)  # noqa: E731
        top = hs(grid[-1], grid[0])
        assert abs(top - float(ev(RO, eps=eps, q=q, sigma=s))) < 1e-7
        worst = max(hs(a, b) for a in grid for b in grid)
        assert worst <= top + 1e-12, (eps, worst, top)


def test_wor_mechanism_sampler_attains_the_profile():
    """The witness's sampler draws the batch (record i in it iff its position in a uniform permutation is < m) on
    the attaining datasets; the plain estimate of E_P[(1 − e^{ε − L})₊] at ε = 0.3 (seed 7, 2e5 draws) lies within
    5 standard errors of the exact δ."""
    w = catalogue.get_witness("base.sgm_wor")
    m, n, s, eps = 40, 200, 1.2, 0.3
    rng = np.random.default_rng(7)
    o = w.sample(rng, 200_000, m=m, n=n, sigma=s, direction="remove")
    loss = w.log_p(o, m=m, n=n, sigma=s, direction="remove") - w.log_q(o, m=m, n=n, sigma=s, direction="remove")
    vals = np.maximum(0, 1 - np.exp(eps - loss))
    est, se = vals.mean(), vals.std() / math.sqrt(vals.size)
    exact = float(ev(WOR, eps=eps, m=m, n=n, sigma=s))
    assert abs(est - exact) <= 5 * se, (est, exact, se)
    # the batch contains record i with probability γ (noise 1e-9: the sum itself shows it; 5-sigma band)
    member = w.sample(rng, 200_000, m=m, n=n, sigma=1e-9, direction="remove") > -m + 1
    assert abs(member.mean() - m / n) <= 5 * math.sqrt(m / n * (1 - m / n) / member.size)


# ---------------------------------------------------------------------------------------------------------------
# RDP bounds

def test_wbk19_formula_and_interpolation():
    """Integer α: Thm 9's sum written out here from the paper (ε(j) = 2j/σ²); fractional α: (α − 1)ε(α) is the
    linear interpolation of the integer neighbours' (α − 1)ε(α)."""
    m, n, s = 64, 1000, "1.3"
    with mpmath.workdps(40):
        g, sg = mpf(m) / n, mpf(s)
        eps_j = lambda j: 2 * j / sg**2  # noqa: E731
        for a in (2, 3, 7):
            total = 1 + g**2 * mpmath.binomial(a, 2) * min(4 * (mpmath.exp(eps_j(2)) - 1), 2 * mpmath.exp(eps_j(2)))
            total += sum(2 * g**j * mpmath.binomial(a, j) * mpmath.exp((j - 1) * eps_j(j)) for j in range(3, a + 1))
            assert abs(ev(WOR_RDP, alpha=a, m=m, n=n, sigma=s, dps=40) - mpmath.log(total) / (a - 1)) < mpf(10) ** -30
        k = lambda a: (a - 1) * ev(WOR_RDP, alpha=a, m=m, n=n, sigma=s, dps=40)  # noqa: E731
        assert abs(k(mpf("3.25")) - (mpf("0.75") * k(3) + mpf("0.25") * k(4))) < mpf(10) ** -30
        assert abs(k(mpf("1.5")) - k(2) / 2) < mpf(10) ** -30  # K(1) = 0


@pytest.mark.parametrize("alpha", [2, "3.5", 10])
def test_rdp_bounds_lie_above_the_exact_rdp_of_their_pairs(alpha):
    """The witnesses' exact log-moments (from their own densities) give D_α of the attaining pairs; each bound lies
    above (WOR: both orders)."""
    a = mpf(alpha)
    wor, ro = catalogue.get_witness("base.sgm_wor"), catalogue.get_witness("base.sgm_replace_one")
    with mpmath.workdps(20):
        for d in ("remove", "add"):
            exact = wor.log_moment(a, m=16, n=200, sigma=1.5, direction=d) / (a - 1)
            assert exact <= ev(WOR_RDP, alpha=alpha, m=16, n=200, sigma="1.5", dps=20)
        exact = ro.log_moment(a, q="0.05", sigma=1.5) / (a - 1)
        bound = ev(RO_RDP, alpha=alpha, q="0.05", sigma="1.5", dps=20)
        assert 0 < exact <= bound  # loose: bound/exact measured 1.3 at α = 2, about 100 at α = 10


# ---------------------------------------------------------------------------------------------------------------
# fast path

@pytest.mark.parametrize("sid", [WOR, RO, RO_RDP])
def test_fast_matches_reference(sid):
    assert_fast_matches_reference(sid, examples=8, min_examples=4)


def test_fast_matches_reference_wbk19():
    """α up to 300 here (the reference's sum is O(α) at two precisions; conform draws up to 1e4)."""
    assert_fast_matches_reference(WOR_RDP, examples=8, min_examples=4,
                                  strategies={"alpha": st.floats(1.001, 300), "m": st.integers(1, 64),
                                              "n": st.integers(64, 10**5)})
    for alpha in (1.5, 2.0, 9999.5):
        assert_fast_matches_at(WOR_RDP, alpha=alpha, m=256, n=60000, sigma=3.0)


@pytest.mark.parametrize("eps", [-3.0, -0.01, 0.0, 0.3, 4.0, 25.0])
def test_fast_at_pinned_points(eps):
    assert_fast_matches_at(WOR, eps=eps, m=256, n=60000, sigma=0.8)
    assert_fast_matches_at(RO, eps=eps, q=0.01, sigma=0.8)
    assert_fast_matches_at(RO, eps=eps, q=1.0, sigma=1.7)


# ---------------------------------------------------------------------------------------------------------------
# tight accountant

def test_one_step_sandwich_contains_the_exact_profiles():
    for eps in (0.0, 0.5, 2.0):
        lo, hi = Accountant().compose("base.sgm_wor_rdp", count=1, m=64, n=1000, sigma=1.0).delta_interval(eps)
        exact = float(ev(WOR, eps=eps, m=64, n=1000, sigma=1))
        assert lo <= exact * (1 + 1e-9) and exact <= hi * (1 + 1e-9) and hi - lo <= 1e-3 * exact + 1e-12
        lo, hi = Accountant().compose("base.sgm_replace_one_rdp", count=1, q=0.05, sigma=1.0).delta_interval(eps)
        exact = float(ev(RO, eps=eps, q="0.05", sigma=1))
        assert lo <= exact * (1 + 1e-9) and exact <= hi * (1 + 1e-9) and hi - lo <= 1e-3 * exact + 1e-12


def test_symmetric_pair_has_the_statement_profile_at_every_eps():
    """One step of the symmetric WOR pair (lattice 1e-4): its pessimistic and optimistic δ(ε) bracket the exact
    max-over-orders profile for ε < 0 as well (the add order decides there)."""
    up, low = pld_mod.compose_direction([({"remove": wor_pair(64, 1000, 1.0)}, 1)], 1e-4, "remove")
    eps = torch.tensor([-1.0, -0.3, -0.01, 0.0, 0.4], dtype=torch.float64)
    hi, lo = up.delta(eps), low.delta(eps)
    for e, h, l in zip(eps.tolist(), hi.tolist(), lo.tolist()):
        exact = float(ev(WOR, eps=e, m=64, n=1000, sigma=1))
        assert l * (1 - 1e-9) <= exact <= h * (1 + 1e-9) and h - l <= 1e-3 * exact, (e, l, exact, h)


def test_symmetric_wor_pair_covers_alternating_orders():
    """Under replace-one the order of the pair can change between steps (Lebeda et al. 2024): δ of 6 steps of the
    symmetric pair ≥ δ of 6 remove steps, of 6 add steps and of 3 + 3 mixed (pessimistic PLDs, lattice 1e-3).
    (At these parameters the mixed schedule stays below the pure remove one; the symmetric pair is what DRS22
    Thm 4.2 certifies for every schedule, and it costs: 0.51 against 0.43 at ε = 0.)"""
    g, s = 0.2, 1.0  # WOR γ = 1/5 at σ = 1 (the pairs at σ/2)
    rem, add = sgm_pair(g, s / 2, "remove"), sgm_pair(g, s / 2, "add")
    sym = wor_pair(1, 5, s)
    acc = lambda groups: pld_mod.compose_direction(groups, 1e-3, "remove")[0]  # noqa: E731
    composed = {"sym": acc([({"remove": sym}, 6)]), "rem": acc([({"remove": rem}, 6)]),
                "add": acc([({"remove": add}, 6)]), "mixed": acc([({"remove": rem}, 3), ({"remove": add}, 3)])}
    eps = torch.tensor([0.0, 0.25, 0.5, 1.0, 2.0], dtype=torch.float64)
    d = {k: v.delta(eps) for k, v in composed.items()}
    for k in ("rem", "add", "mixed"):
        assert bool((d["sym"] >= d[k] * (1 - 1e-9)).all()), (k, d)
    assert bool((d["sym"] > d["rem"]).any())


def test_accountant_rdp_method_lies_above_the_tight_method():
    for mech, p in (("base.sgm_wor_rdp", dict(m=256, n=60000, sigma=1.0)),
                    ("base.sgm_replace_one_rdp", dict(q=0.01, sigma=1.0))):
        tight = Accountant().compose(mech, count=50, **p).epsilon_interval(1e-5)
        rdp = Accountant(method="rdp").compose(mech, count=50, **p).get_epsilon(1e-5)
        assert tight[0] <= tight[1] <= rdp


def test_replace_one_pair_tails_are_consistent():
    """P(L > t) + P(L ≤ t) = 1, Q(L > t) ≤ e^{−t} P(L > t) (the likelihood ratio exceeds e^t there), both pairs."""
    t = torch.linspace(-6, 6, 97, dtype=torch.float64)
    for pair in (replace_one_pair(0.05, 0.9), wor_pair(30, 100, 1.1), replace_one_pair(1.0, 0.9)):
        p_up, p_down, q_up, q_down = pair.tails(t)
        assert torch.allclose(torch.logaddexp(p_up, p_down), torch.zeros_like(t), atol=1e-12)
        assert torch.allclose(torch.logaddexp(q_up, q_down), torch.zeros_like(t), atol=1e-12)
        assert bool((q_up <= p_up - t + 1e-9).all())


# ---------------------------------------------------------------------------------------------------------------
# bad input

def test_bad_input_is_refused_by_both_paths():
    for sid, extra in ((WOR, dict(eps=1.0)), (WOR_RDP, dict(alpha=2.0))):
        st = catalogue.get(sid)
        with pytest.raises(ConditionError) as ref:
            st.evaluate(m=11, n=10, sigma=1.0, **extra)
        with pytest.raises(ConditionError) as fast:
            st.fast_function()(m=11, n=10, sigma=1.0, **extra)
        assert str(ref.value) == str(fast.value) and "m ≤ n" in str(ref.value)
        with pytest.raises(ParameterError, match="m=11 > n=10"):
            st.evaluate(m=11, n=10, sigma=1.0, allow_outside=True, **extra)
        with pytest.raises(ParameterError, match="m=11 > n=10"):
            st.fast_function()(m=11, n=10, sigma=1.0, allow_outside=True, **extra)
        for bad in (dict(m=0, n=10, sigma=1.0), dict(m=1, n=0, sigma=1.0), dict(m=1, n=10, sigma=0.0),
                    dict(m=1, n=10, sigma=-1.0), dict(m=1.5, n=10, sigma=1.0), dict(m=1, n=10, sigma=math.nan)):
            with pytest.raises(DomainError):
                st.evaluate(**bad, **extra)
            with pytest.raises(DomainError):
                st.fast_function()(**bad, **extra)
    for sid, extra in ((RO, dict(eps=1.0)), (RO_RDP, dict(alpha=2.0))):
        st = catalogue.get(sid)
        for bad in (dict(q=0.0, sigma=1.0), dict(q=1.5, sigma=1.0), dict(q=0.1, sigma=0.0)):
            with pytest.raises(DomainError):
                st.evaluate(**bad, **extra)
            with pytest.raises(DomainError):
                st.fast_function()(**bad, **extra)
    with pytest.raises(ParameterError):
        wor_pair(11, 10, 1.0)
    with pytest.raises(DomainError):
        wor_pair(0, 10, 1.0)


# ---------------------------------------------------------------------------------------------------------------
# peers

@pytest.mark.peers
@pytest.mark.slow
@pytest.mark.parametrize("q,sigma,steps", [(0.01, 1.0, 1000), (256 / 60000, 1.0, 1000), (0.1, 2.0, 100)])
def test_dp_accounting_replace_one_composition_inside_our_sandwich(q, sigma, steps):
    """Their PLD (pessimistic, connect-the-dots, 1e-4) of T steps under REPLACE_ONE lies inside our sandwich at
    δ = 1e-5 (measured: 2.843446 in (2.843261, 2.843528); 1.112019 in (1.111783, 1.112116); 4.368097 in
    (4.368012, 4.368139))."""
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm

    theirs = pldm.from_gaussian_mechanism(sigma, sensitivity=1, sampling_prob=q,
                                          neighboring_relation=dpa.NeighboringRelation.REPLACE_ONE,
                                          value_discretization_interval=1e-4).self_compose(steps)
    lo, hi = Accountant().compose("base.sgm_replace_one_rdp", count=steps, q=q, sigma=sigma).epsilon_interval(1e-5)
    their_eps = theirs.get_epsilon_for_delta(1e-5)
    assert lo - 1e-9 <= their_eps <= hi + 1e-9, (lo, their_eps, hi)


@pytest.mark.peers
def test_dp_accounting_agrees():
    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import privacy_loss_distribution as pldm
    from dp_accounting.rdp import rdp_privacy_accountant as rdpm

    nr = dpa.NeighboringRelation
    # one step: their pessimistic δ agrees with the exact profile to 1e-6 relative
    one = pldm.from_gaussian_mechanism(0.8, sensitivity=1, sampling_prob=0.01, neighboring_relation=nr.REPLACE_ONE,
                                       value_discretization_interval=1e-4)
    for eps in (0.1, 1.0):
        exact = float(ev(RO, eps=eps, q="0.01", sigma="0.8"))
        assert abs(one.get_delta_for_epsilon(eps) - exact) <= 1e-6 * exact
    # WOR RDP: their curve (σ relative to the replace-one sensitivity 2, so σ/2) equals WBK19 Thm 9 here
    m, n, s = 256, 60000, 1.0
    alphas = [2, 3.5, 8, 32]
    their_curve = rdpm._compute_rdp_sample_wor_gaussian(m / n, s / 2, alphas)
    ours = [float(ev(WOR_RDP, alpha=a, m=m, n=n, sigma=s)) for a in alphas]
    assert np.allclose(their_curve, ours, rtol=1e-9, atol=0)
    # WOR one step: our profile is their Poisson remove PLD at (γ, σ/2) for ε ≥ 0
    p1 = pldm.from_gaussian_mechanism(s / 2, sensitivity=1, sampling_prob=m / n, value_discretization_interval=1e-4)
    for eps in (0.5, 2.0):
        exact = float(ev(WOR, eps=eps, m=m, n=n, sigma=s))
        assert abs(p1.get_delta_for_epsilon(eps) - exact) <= 1e-6 * exact


def test_accountant_refuses_to_mix_relations():
    """Replace-one records composed with add/remove ones hold under neither relation: one clear error, on every
    path that adds a record (compose, step, load_state_dict), and a single relation still composes."""
    from dpspec.fast import Accountant
    from dpspec.reference.errors import ParameterError

    with pytest.raises(ParameterError, match="neither neighbouring relation"):
        Accountant().sgm(0.01, 1.0, 10).compose("base.sgm_wor_rdp", count=10, m=10, n=1000, sigma=1.0)
    wor = Accountant().compose("base.sgm_wor_rdp", count=10, m=10, n=1000, sigma=1.0)
    with pytest.raises(ParameterError, match="neither neighbouring relation"):
        wor.step(noise_multiplier=1.0, sample_rate=0.01)
    mixed = Accountant().sgm(0.01, 1.0, 10).state_dict()
    mixed["records"] = list(mixed["records"]) + list(wor.state_dict()["records"])
    with pytest.raises(ParameterError, match="neither neighbouring relation"):
        Accountant().load_state_dict(mixed)
    both = wor.compose("base.sgm_replace_one_rdp", count=5, q=0.01, sigma=1.0)
    assert math.isfinite(both.get_epsilon(1e-5))
