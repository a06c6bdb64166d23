"""The tight accountant's privacy loss distributions (fast/base/pld.py, fast/base/pld_pairs.py): each side of the
sandwich against exact answers (Gaussian, T-fold Gaussian = Gaussian with sigma/sqrt(T), randomized response
composed = KOV15, Laplace, one subsampled step by quadrature of the densities), the second-order shrinking of the
width, the masses, FFT against direct convolution, the accountant's PLD method and its bad input."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import torch

from dpspec.fast import Accountant
from dpspec.fast.base import pld, pld_pairs
from dpspec.fast.base.composition import kov15_profile
from dpspec.fast.base.fdp import gdp_profile
from dpspec.fast.base.gaussian import gaussian_profile
from dpspec.fast.base.laplace import laplace_profile
from dpspec.reference.errors import DomainError, ParameterError

EPS_GRID = torch.tensor([0.0, 0.013, 0.1, 0.37, 1.0, 2.5, 4.0])


def _one(pair, step):
    up, low = pld.discretise_both(pair, step)
    return pld.compose([(up, 1)]), pld.compose([(low, 1)]), up, low


@pytest.mark.parametrize("sigma", [0.3, 1.0, 4.0])
def test_one_gaussian_step_is_sandwiched_and_the_upper_side_interpolates(sigma):
    cu, cl, up, low = _one(pld_pairs.sgm_pair(1.0, sigma, "remove"), 1e-2)
    exact = gaussian_profile(EPS_GRID, sigma)
    lo, hi = cl.delta(EPS_GRID), cu.delta(EPS_GRID)
    assert bool((lo <= exact * (1 + 1e-12)).all()) and bool((exact <= hi * (1 + 1e-12)).all()), (lo, exact, hi)
    # connect-the-dots: the upper profile equals the true one at the lattice points (0.01 multiples)
    on_grid = torch.tensor([0.0, 0.01, 0.5, 1.0, 2.0])
    assert torch.allclose(cu.delta(on_grid), gaussian_profile(on_grid, sigma), rtol=1e-9, atol=1e-300)
    # masses: non-negative; the upper side is a probability distribution (with its mass at +inf)
    for pmf in (up, low):
        assert bool((pmf.masses >= 0).all())
    assert abs(float(up.masses.sum()) + up.inf_mass - 1) < 1e-12
    assert float(low.masses.sum()) + low.inf_mass + low.dropped <= 1 + 1e-12


def _sgm_profile_quadrature(eps, q, sigma, direction):
    """delta(eps) = ∫ (p - e^eps q)_+ of the subsampled Gaussian's pair, by mpmath quadrature of the densities
    (independent of the loss-threshold formulas of pld_pairs), at 30 digits (restored after: a global setting leaked
    into later tests of the same worker)."""
    with mpmath.workdps(30):
        return _sgm_profile_quadrature_here(eps, q, sigma, direction)


def _sgm_profile_quadrature_here(eps, q, sigma, direction):
    s = mpmath.mpf(sigma)
    n0 = lambda x: mpmath.npdf(x, 0, s)  # noqa: E731
    mix = lambda x: (1 - q) * mpmath.npdf(x, 0, s) + q * mpmath.npdf(x, 1, s)  # noqa: E731
    p, r = (mix, n0) if direction == "remove" else (n0, mix)
    f = lambda x: max(p(x) - mpmath.e ** eps * r(x), 0)  # noqa: E731
    # the integrand is positive on a half-line: split at its root for the quadrature
    g = lambda x: p(x) - mpmath.e ** eps * r(x)  # noqa: E731
    lo, hi = -40 * s, 1 + 40 * s
    grid = [lo + (hi - lo) * i / 400 for i in range(401)]
    pts = [lo]
    for a, b in zip(grid[:-1], grid[1:]):
        if (g(a) > 0) != (g(b) > 0):
            pts.append(mpmath.findroot(g, (a, b), solver="bisect"))
    pts.append(hi)
    return float(mpmath.quad(f, pts))


@pytest.mark.parametrize("q,sigma,direction", [(0.01, 1.0, "remove"), (0.01, 1.0, "add"), (0.3, 0.7, "add"),
                                               (0.3, 0.7, "remove")])
def test_one_subsampled_gaussian_step_is_sandwiched(q, sigma, direction):
    # the one-step loss of a subsampled Gaussian spreads over about q/sigma: a lattice step of 1e-4 resolves it
    cu, cl, _, _ = _one(pld_pairs.sgm_pair(q, sigma, direction), 1e-4)
    for eps in (0.0, 0.004, 0.05, 0.2):
        exact = _sgm_profile_quadrature(eps, q, sigma, direction)
        lo, hi = float(cl.delta(eps)), float(cu.delta(eps))
        assert lo <= exact * (1 + 1e-9) + 1e-300 and exact <= hi * (1 + 1e-9) + 1e-300, (eps, lo, exact, hi)
        if exact > 1e-12:
            assert hi - lo <= 1e-3 * exact + 1e-15


@pytest.mark.parametrize("sigma,steps", [(2.0, 100), (8.0, 1000)])
def test_composed_gaussians_contain_the_exact_gaussian_and_the_width_is_second_order(sigma, steps):
    mu = math.sqrt(steps) / sigma
    eps = [0.5, 1.0, 3.0]
    exact = gdp_profile(torch.tensor(eps), mu).tolist()
    widths = []
    for step in (1e-2, 5e-3):
        s = pld.sgm_pld(1.0, sigma, steps, grid_step=step)
        w = 0.0
        for e, x in zip(eps, exact):
            lo, hi = s.delta_interval(e)
            assert lo <= x * (1 + 1e-9) and x <= hi * (1 + 1e-9), (step, e, lo, x, hi)
            w = max(w, (hi - lo) / x)
        widths.append(w)
    assert widths[1] <= widths[0] / 3, widths  # halving the step shrinks the width about 4x (second order)


def test_heterogeneous_gaussians_compose_to_one_gaussian():
    """Gaussian steps with sigma_i compose to the Gaussian with sigma = (sum sigma_i^-2)^-1/2 exactly."""
    sigmas, counts = [1.5, 3.0, 6.0], [3, 10, 40]
    groups = [({"remove": pld_pairs.sgm_pair(1.0, s, "remove")}, n) for s, n in zip(sigmas, counts)]
    s = pld.sandwich(groups, 5e-3)
    mu = math.sqrt(sum(n / x ** 2 for x, n in zip(sigmas, counts)))
    for e in (0.2, 1.0, 2.0):
        x = float(gdp_profile(torch.tensor(e), mu))
        lo, hi = s.delta_interval(e)
        assert lo <= x <= hi and hi - lo < 1e-3 * x, (e, lo, x, hi)


def test_composed_randomized_response_is_kov15():
    """eps0-DP randomized response composed k times: the exact profile is KOV15's (delta = 0); with eps0 on the
    lattice the upper side is exact at the lattice points."""
    eps0, k, step = 0.1, 30, 0.01
    s = pld.sandwich([({"remove": pld_pairs.pure_dp_pair(eps0)}, k)], step)
    for e in (0.0, 0.3, 1.0, 2.0):
        x = float(kov15_profile(eps0, 0.0, k, e))
        lo, hi = s.delta_interval(e)
        assert lo <= x * (1 + 1e-9) + 1e-15 and x <= hi * (1 + 1e-9) + 1e-15, (e, lo, x, hi)
        # exact up to the FFT allowance (eta per bin, about 1e-14 relative here)
        assert hi == pytest.approx(x, rel=1e-6, abs=1e-14)


def test_approximate_dp_mass_at_infinity_and_an_uncertifiable_epsilon():
    s = pld.sandwich([({"remove": pld_pairs.approx_dp_pair(0.5, 1e-3)}, 4)], 1e-2)
    lo, hi = s.delta_interval(10.0)  # only the mass at +inf is left: 1 - (1 - 1e-3)^4
    assert lo == pytest.approx(-math.expm1(4 * math.log1p(-1e-3)), rel=1e-9) and hi >= lo
    assert s.epsilon_interval(1e-4)[1] == math.inf  # δ below the mass at +inf: no finite ε is certified


@pytest.mark.parametrize("b", [0.5, 2.0])
def test_laplace_step_is_sandwiched(b):
    cu, cl, _, _ = _one(pld_pairs.laplace_pair(1.0, b, "remove"), 1e-3)
    exact = laplace_profile(EPS_GRID, b)
    lo, hi = cl.delta(EPS_GRID), cu.delta(EPS_GRID)
    assert bool((lo <= exact * (1 + 1e-9) + 1e-300).all()) and bool((exact <= hi * (1 + 1e-9) + 1e-300).all())


def test_fft_composition_matches_direct_convolution():
    pairs = [pld_pairs.sgm_pair(0.2, 0.8, "remove"), pld_pairs.sgm_pair(0.05, 1.3, "remove")]
    pmfs = [pld.discretise(p, 2e-2, "upper") for p in pairs]
    composed = pld.compose([(pmfs[0], 2), (pmfs[1], 3)], tail=1e-300)
    direct = np.array([1.0])
    for pmf, n in ((pmfs[0], 2), (pmfs[1], 3)):
        for _ in range(n):
            direct = np.convolve(direct, pmf.masses.numpy())
    base = 2 * pmfs[0].offset + 3 * pmfs[1].offset
    got = np.zeros_like(direct)
    start = composed.offset - base
    got[start:start + composed.masses.numel()] = composed.masses.numpy()
    assert np.max(np.abs(got - direct)) <= 2 * composed.eta + 1e-15


def test_accountant_pld_is_the_default_and_tight():
    acc = Accountant()
    for _ in range(1000):
        acc.step(noise_multiplier=1.0, sample_rate=0.01)
    lo, hi = acc.epsilon_interval(1e-5)
    assert acc.get_epsilon(1e-5) == hi and lo <= hi <= lo + 5e-4
    rdp = Accountant(method="rdp").sgm(0.01, 1.0, 1000).get_epsilon(1e-5)
    assert hi < rdp  # tight accounting is below the RDP bound here (1.83 vs 2.10)
    dlo, dhi = acc.delta_interval(lo)
    # the true δ at the lower ε is at least 1e-5 (the lower ε is below the true one): the upper δ there must be too
    assert dlo <= dhi and dhi >= 1e-5 * (1 - 1e-9)
    assert acc.grid_step is not None and acc.grid_step <= 1e-3


def test_accountant_pld_bad_input_and_unsupported_records():
    acc = Accountant().sgm(0.01, 1.0, 10)
    for bad in (0.0, 1.0, -1e-5, math.nan, "x"):
        with pytest.raises(DomainError):
            acc.epsilon_interval(bad)
    for bad in (-0.5, math.nan):
        with pytest.raises(DomainError):
            acc.delta_interval(bad)
    with pytest.raises(DomainError):
        Accountant(method="tight")
    with pytest.raises(DomainError):
        Accountant(eps_width=0)
    ptr = Accountant().ptr(sigma1=1.0, sigma2=2.0, b=1.0, delta0=1e-3)
    with pytest.raises(ParameterError, match="method='rdp'"):
        ptr.get_epsilon(1e-5)
    assert Accountant(method="rdp").ptr(sigma1=1.0, sigma2=2.0, b=1.0, delta0=1e-3).get_epsilon(1e-5) > 0
    assert Accountant().epsilon_interval(1e-5) == (0.0, 0.0)
    with pytest.raises(DomainError):
        pld.pld_sgm_delta(1.0, 0.01, 1.0, 10, grid_step=0.0)
    with pytest.raises(DomainError):
        pld.pld_sgm_delta(1.0, 0.01, 1.0, 0)


def test_calibrate_sigma_by_the_tight_method():
    from dpspec.fast import calibrate_sigma

    q, steps, delta, target = 0.1, 100, 1e-5, 2.0
    sigma = float(calibrate_sigma(target, delta, q, steps, method="pld"))
    assert Accountant().sgm(q, sigma, steps).epsilon_interval(delta)[1] <= target  # never above the target
    assert Accountant().sgm(q, sigma * 0.99, steps).epsilon_interval(delta)[0] > target  # and not much above σ*
    # the tight method needs less noise: at its σ the RDP bound is above the target
    assert Accountant(method="rdp").sgm(q, sigma, steps).get_epsilon(delta) > target
    with pytest.raises(DomainError):
        calibrate_sigma(target, delta, q, steps, method="tight")
    # a tight rtol: the final raise until the user's own query certifies the target grows its step (a fixed
    # (1 + rtol/2) step could not close the query's 1e-4 width and raised DomainError)
    fine = float(calibrate_sigma(target, delta, q, steps, method="pld", rtol=1e-6))
    assert Accountant().sgm(q, fine, steps).get_epsilon(delta) <= target


def test_tradeoff_and_gdp_fit_of_a_composed_gaussian():
    """T Gaussian steps are G_μ with μ = sqrt(T)/σ: the trade-off sandwich contains G_μ and the fitted μ interval
    contains μ (on an α range the lattice can certify)."""
    from dpspec.fast.base.fdp import gdp_tradeoff

    s = pld.sgm_pld(1.0, 2.0, 100, grid_step=5e-3)
    alpha = torch.tensor([1e-6, 1e-3, 0.05, 0.3, 0.7, 0.9])
    lo, hi = s.tradeoff_interval(alpha)
    exact = gdp_tradeoff(alpha, 5.0)
    assert bool((lo <= exact * (1 + 1e-9)).all()) and bool((exact <= hi * (1 + 1e-9)).all()), (lo, exact, hi)
    mu_lo, mu_hi = s.gdp_mu_interval((1e-6, 0.9))
    assert mu_lo <= 5.0 <= mu_hi and mu_hi - mu_lo < 1e-2, (mu_lo, mu_hi)


def test_epsilon_below_the_first_lattice_point_solves_the_first_segment():
    """A composed PMF whose window starts above ε = 0 (a large mean loss): the crossing below the first lattice point
    is solved on (−inf, l_0], where δ(ε) = S_P − e^ε S_Q, not returned as l_0 (too large for a lower bound)."""
    c = pld.Composed(0.1, 10, torch.tensor([0.5, 0.5], dtype=torch.float64), 0.0, "lower")
    s_q = 0.5 * math.exp(-1.0) + 0.5 * math.exp(-1.1)
    assert c.epsilon(0.5) == pytest.approx(math.log(0.5 / s_q), rel=1e-12)  # 0.3556, below l_0 = 1.0
    assert float(c.delta(c.epsilon(0.5))) == pytest.approx(0.5, rel=1e-12)


# the first one-step PLD whose convex repair did not close (calibrate_sigma(0.1, 1e-5, 64/455, 143, method="pld",
# rtol=1e-3) raised ParameterError): σ large against q, so the loss support is narrow around 0 and the bottom of the
# profile (phi = 1 - x + 1e-160) sits at v ≈ 0.06, where the hull was taken of v and its kinks were below rounding
NARROW_SGM = dict(q=64 / 455, sigma=51.80177316480782, step=5.8156007443726256e-05, tail=1e-30 / 1430)


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_lower_side_of_a_narrow_subsampled_gaussian_step_builds_and_stays_below(direction):
    from dpspec.reference.base.sgm_profile import sgm_profile

    c = NARROW_SGM
    up, low = pld.discretise_both(pld_pairs.sgm_pair(c["q"], c["sigma"], direction), c["step"], tail=c["tail"])
    assert bool((low.masses >= 0).all()) and float(low.masses.sum()) + low.inf_mass + low.dropped <= 1 + 1e-12
    cu, cl = pld.compose([(up, 1)]), pld.compose([(low, 1)])
    # negative ε included: the repaired dot is at loss -0.0585, next to 1 - e^ε
    for eps in (-0.1, -0.0585, -0.03, -0.003, 0.0, 0.001, 0.003, 0.01, 0.02, 0.05):
        exact = float(sgm_profile(eps, c["q"], c["sigma"], direction))
        lo, hi = float(cl.delta(eps)), float(cu.delta(eps))
        assert lo <= exact * (1 + 1e-12) + 1e-300, (eps, lo, exact)
        assert exact <= hi * (1 + 1e-12) + 1e-300, (eps, exact, hi)


def test_calibrate_sigma_by_the_tight_method_at_a_large_sigma():
    from dpspec.fast import calibrate_sigma

    q, steps, delta = 64 / 455, 143, 1e-5
    # each decision is certified at some lattice step down to PLD_CALIBRATION_STEP = 2e-5; the sandwich at that step
    # (both sides are valid bounds at every step) must certify the target and contain the truth
    for target, rtol in ((0.1, 1e-3), (0.1, 3e-3), (0.5, 3e-3)):  # the settings that raised
        sigma = float(calibrate_sigma(target, delta, q, steps, method="pld", rtol=rtol))
        lo, hi = pld.sgm_pld(q, sigma, steps, direction="remove", grid_step=2e-5).epsilon_interval(delta)
        assert lo <= hi <= target, (target, sigma, lo, hi)
        # and the call a user makes to check it (the default refinement, coarser than the calibration's) agrees:
        # before the fix it read 0.10009 at target 0.1 (issue 14)
        assert Accountant().sgm(q, sigma, steps).get_epsilon(delta) <= target, (target, sigma)
