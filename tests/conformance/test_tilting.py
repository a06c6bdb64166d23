"""Importance-sampled (tilted) RDP-moment and privacy-profile intervals: correctness, coverage and power.

Known answers, each computed here from the densities, independently of dpspec.reference:
* Gaussian pair N(1, σ²) vs N(0, σ²): ε(α) = α/(2σ²) (Mironov 2017, Prop. 7), so M − 1 = expm1(α(α − 1)/(2σ²));
  δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) (Balle & Wang 2018, Thm 8), in mpmath at 50 digits.
* Laplace pair Lap(1, b) vs Lap(0, b): ε(α) = log(α/(2α−1) e^{(α−1)/b} + (α−1)/(2α−1) e^{−α/b})/(α − 1)
  (Mironov 2017, Prop. 6); δ(ε) = 1 − e^{(ε − 1/b)/2} for 0 ≤ ε ≤ 1/b (integrating (p − e^ε q)₊ over o ≥ 1/2 +
  εb/2, where the loss (|o| − |o − 1|)/b exceeds ε).
* Poisson-subsampled Gaussian, remove pair (1 − q)N(0, σ²) + qN(1, σ²) vs N(0, σ²): integer α by the binomial
  expansion of E_Q[(1 − q + q z)^α], E_Q[z^k] = e^{k(k−1)/(2σ²)} (as in Mironov, Talwar & Zhang 2019, §3.3), cross-
  checked against mpmath quadrature of the densities (test_sgm_exact_values_agree); fractional α by that
  quadrature; δ(ε) from the threshold u_ε = σ² log((e^ε − 1 + q)/q) + 1/2 where p/q = e^ε:
  δ = (1 − q − e^ε) Φ̄(u_ε/σ) + q Φ̄((u_ε − 1)/σ).

Coverage (nominal 0.999, two-sided): the fast test runs 100 repetitions (n = 2000) per estimator and pair and
allows the number of misses whose binomial tail under the nominal miss rate 0.001 is above 1e-3 (two misses); the
slow test (-m slow) runs 1000 per configuration (44 configurations, n = 1e4; measured: 0 misses in 44 000).
Power: planted under-claims (the true value times 1 − 1e-6, 0.99, 0.97, 0.95, 0.9) at n = 1e5 on base.sgm_rdp's
witness, q ∈ {0.01, 0.05, 0.2}, σ ∈ {0.8, 1.1, 2}, α ∈ {2, 2.5, 3, 4, 8, 12.5, 16, 32, 64}, and on the SGM profile
at δ ∈ {1e-2, 1e-6, 1e-10} (measured, 10 seeds: every 3 % and 5 % under-claim rejected; 1e-6 only at α = 64,
σ = 0.8). The tables are printed by ``python tests/conformance/test_tilting.py [coverage|power|both] [reps]
[power reps] [confidence]``.
"""
from __future__ import annotations

import math
import sys
import time

import mpmath
import numpy as np
import pytest

from dpspec.conformance import tilting
from dpspec.reference.errors import DomainError

CONF = 0.999


@pytest.fixture(autouse=True)
def _fifty_digits():
    """50 digits for this module's tests only (a module-level setting leaked into every later test of the worker)."""
    with mpmath.workdps(50):
        yield

FACTORS = (1 - 1e-6, 0.99, 0.97, 0.95, 0.9)


# ---------------------------------------------------------------------------------------------------------
# Pairs (local, so the estimators are tested on their own), with their family declarations


class GaussianPair:
    id = "test.gaussian"
    params = ()

    def sample(self, rng, n, sigma):
        return 1 + sigma * rng.standard_normal(n)

    def log_p(self, o, sigma):
        return -0.5 * ((o - 1) / sigma) ** 2

    def log_q(self, o, sigma):
        return -0.5 * (o / sigma) ** 2

    def tilt_family(self, sigma):
        return {"family": "gaussian_mixture", "weights": [1.0], "shifts": [1.0], "center": 0.0, "sigma": sigma}


class SGMPair:
    """Remove direction: P = (1 − q)N(0, σ²) + qN(1, σ²), Q = N(0, σ²)."""

    id = "test.sgm"
    params = ()

    def sample(self, rng, n, q, sigma):
        return (rng.random(n) < q) + sigma * rng.standard_normal(n)

    def log_p(self, o, q, sigma):
        return np.logaddexp(math.log1p(-q) - 0.5 * (o / sigma) ** 2, math.log(q) - 0.5 * ((o - 1) / sigma) ** 2)

    def log_q(self, o, q, sigma):
        return -0.5 * (o / sigma) ** 2

    def tilt_family(self, q, sigma):
        return {"family": "gaussian_mixture", "weights": [1 - q, q], "shifts": [0.0, 1.0], "sigma": sigma}


class LaplacePair:
    id = "test.laplace"
    params = ()

    def sample(self, rng, n, b):
        return 1 + rng.laplace(0, b, n)

    def log_p(self, o, b):
        return -np.abs(o - 1) / b

    def log_q(self, o, b):
        return -np.abs(o) / b

    def tilt_family(self, b):
        return {"family": "bounded_loss", "lo": -1 / b, "hi": 1 / b}


class MirroredGaussian(GaussianPair):
    """P = N(−1, σ²): the family's shift is negative (the estimator mirrors the coordinate)."""

    id = "test.gaussian_mirrored"

    def sample(self, rng, n, sigma):
        return -1 + sigma * rng.standard_normal(n)

    def log_p(self, o, sigma):
        return -0.5 * ((o + 1) / sigma) ** 2

    def tilt_family(self, sigma):
        return {"family": "gaussian_mixture", "weights": [1.0], "shifts": [-1.0], "sigma": sigma}


class NoFamily(GaussianPair):
    id = "test.nofamily"
    tilt_family = None


# ---------------------------------------------------------------------------------------------------------
# Known answers (mpmath, from the densities; module docstring)


def _sf(x):
    return mpmath.erfc(x / mpmath.sqrt(2)) / 2


def gaussian_rdp(alpha, sigma):
    return mpmath.mpf(alpha) / (2 * mpmath.mpf(sigma) ** 2)


def gaussian_delta(eps, sigma):
    eps, s = mpmath.mpf(eps), mpmath.mpf(sigma)
    return _sf(eps * s - 1 / (2 * s)) - mpmath.exp(eps) * _sf(eps * s + 1 / (2 * s))


def laplace_rdp(alpha, b):
    a, b = mpmath.mpf(alpha), mpmath.mpf(b)
    return mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) / b) + (a - 1) / (2 * a - 1) * mpmath.exp(-a / b)) / (a - 1)


def laplace_delta(eps, b):
    return -mpmath.expm1((mpmath.mpf(eps) - 1 / mpmath.mpf(b)) / 2)


def sgm_excess_binomial(alpha, q, sigma):
    """E_Q[(p/q)^α] − 1 for integer α: Σ_{k≥2} C(α,k)(1−q)^{α−k} q^k (e^{k(k−1)/(2σ²)} − 1)."""
    q, s = mpmath.mpf(q), mpmath.mpf(sigma)
    return mpmath.fsum(mpmath.binomial(alpha, k) * (1 - q) ** (alpha - k) * q ** k
                       * mpmath.expm1(mpmath.mpf(k * k - k) / (2 * s * s)) for k in range(2, int(alpha) + 1))


def sgm_excess_quad(alpha, q, sigma):
    """∫ N(0, σ²)(z) φ_α(ℓ(z)) dz, ℓ = 1 − q + q e^{(2z−1)/(2σ²)}, φ_α(x) = x^α − 1 − α(x − 1) (any real α > 1)."""
    q, s, a = mpmath.mpf(q), mpmath.mpf(sigma), mpmath.mpf(alpha)

    def f(z):
        ell = 1 - q + q * mpmath.exp((2 * z - 1) / (2 * s * s))
        return mpmath.npdf(z, 0, s) * (ell ** a - 1 - a * (ell - 1))

    with mpmath.workdps(20):
        return mpmath.quad(f, [-mpmath.inf, -6 * s, 0, mpmath.mpf(1) / 2, a / 2, a, a + 8 * s, mpmath.inf])


def sgm_rdp(alpha, q, sigma):
    a = mpmath.mpf(alpha)
    ex = sgm_excess_binomial(alpha, q, sigma) if a == int(a) else sgm_excess_quad(alpha, q, sigma)
    return mpmath.log1p(ex) / (a - 1)


def sgm_delta(eps, q, sigma):
    eps, q, s = mpmath.mpf(eps), mpmath.mpf(q), mpmath.mpf(sigma)
    u = s * s * mpmath.log((mpmath.expm1(eps) + q) / q) + mpmath.mpf(1) / 2
    return (1 - q - mpmath.exp(eps)) * _sf(u / s) + q * _sf((u - 1) / s)


def eps_at(delta_fn, target, hi=1.0):
    """The ε at which a decreasing δ(ε) equals ``target`` (bisection in mpmath); None if δ(0) < target."""
    if delta_fn(0) < target:
        return None
    lo, hi = mpmath.mpf(0), mpmath.mpf(hi)
    while delta_fn(hi) > target:
        hi *= 2
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if delta_fn(mid) > target else (lo, mid)
    return float(lo)


# ---------------------------------------------------------------------------------------------------------
# Cases: (label, estimator, witness, params, axis, truth)


def rdp_case(label, pair, params, alpha, truth):
    return (label, "rdp", pair, params, alpha, float(truth))


def profile_case(label, pair, params, eps, truth):
    return (label, "profile", pair, params, eps, float(truth))


def run_case(case, n, seed, confidence=CONF):
    label, kind, pair, params, axis, truth = case
    fn = tilting.rdp_moment_interval if kind == "rdp" else tilting.profile_interval
    return fn(pair, params, axis, n=n, seed=seed, confidence=confidence)


def fast_cases():
    g, s, lap = GaussianPair(), SGMPair(), LaplacePair()
    e_g = eps_at(lambda e: gaussian_delta(e, 1.0), mpmath.mpf("1e-6"))
    e_s = eps_at(lambda e: sgm_delta(e, 0.05, 1.1), mpmath.mpf("1e-8"))
    return [
        rdp_case("gaussian σ=1 α=2", g, {"sigma": 1.0}, 2, gaussian_rdp(2, 1.0)),
        rdp_case("gaussian σ=1 α=16", g, {"sigma": 1.0}, 16, gaussian_rdp(16, 1.0)),
        profile_case("gaussian σ=1 δ=1e-6", g, {"sigma": 1.0}, e_g, gaussian_delta(e_g, 1.0)),
        rdp_case("laplace b=1 α=4", lap, {"b": 1.0}, 4, laplace_rdp(4, 1.0)),
        profile_case("laplace b=1 ε=0.5", lap, {"b": 1.0}, 0.5, laplace_delta(0.5, 1.0)),
        rdp_case("sgm q=0.05 σ=1.1 α=16", s, {"q": 0.05, "sigma": 1.1}, 16, sgm_rdp(16, 0.05, 1.1)),
        profile_case("sgm q=0.05 σ=1.1 δ=1e-8", s, {"q": 0.05, "sigma": 1.1}, e_s, sgm_delta(e_s, 0.05, 1.1)),
    ]


def allowed_misses(reps, rate=1 - CONF, tail=1e-3):
    """The least k with P(Binomial(reps, rate) > k) ≤ tail."""
    k, below = 0, 0.0
    while True:
        below += math.comb(reps, k) * rate ** k * (1 - rate) ** (reps - k)
        if 1 - below <= tail:
            return k
        k += 1


def coverage(cases, reps, n, seed0=0, confidence=CONF):
    """Yields (label, misses, reps, median relative half-width) over ``reps`` seeds per case."""
    for case in cases:
        truth = case[-1]
        misses, widths = 0, []
        for r in range(reps):
            iv = run_case(case, n, seed0 + r, confidence)
            misses += not (iv.lo <= truth <= iv.hi)
            widths.append(max(truth - iv.lo, iv.hi - truth) / truth)
        yield case[0], misses, reps, float(np.median(widths))


# ---------------------------------------------------------------------------------------------------------
# Fast tests


def test_log_phi_all_regimes():
    """φ_α(e^L) = e^{αL} − 1 − α(e^L − 1) in the series, direct and large-L regimes, against mpmath."""
    for alpha in (1.001, 1.5, 2.0, 16.0, 64.0, 300.0):
        L = np.array([-np.inf, -50.0, -3.0, -0.4 / alpha, -1e-9, 1e-12, 1e-6, 0.3 / alpha, 0.6 / alpha, 1.0,
                      29.0 / alpha, 31.0 / alpha, 5.0, 200.0])
        got = tilting._log_phi(L, alpha)
        for l, v in zip(L, got):
            with mpmath.workdps(60):
                x = mpmath.exp(mpmath.mpf(l)) if np.isfinite(l) else mpmath.mpf(0)
                a = mpmath.mpf(alpha)
                want = mpmath.log(x ** a - 1 - a * (x - 1))
            assert abs(v - float(want)) <= 1e-12 * max(1.0, abs(float(want))), (alpha, l, v, want)


def test_sgm_exact_values_agree():
    """The two independent exact SGM moments used below (binomial sum, quadrature of the densities) agree."""
    for alpha, q, sigma in ((2, 0.01, 2.0), (8, 0.05, 1.1), (16, 0.2, 0.8)):
        a, b = sgm_excess_binomial(alpha, q, sigma), sgm_excess_quad(alpha, q, sigma)
        assert abs(a - b) <= 1e-15 * abs(a), (alpha, q, sigma, a, b)  # quadrature at 20 digits


def test_issue_point_is_seen():
    """The issue's point (q = 0.05, σ = 1.1, α = 16): the plug-in of P-samples gave 0.228 for a true 3.416 and no
    lower bound; the tilted interval contains the truth and is 0.1 % wide at n = 1e4."""
    truth = float(sgm_rdp(16, 0.05, 1.1))
    assert abs(truth - 3.416) < 1e-3
    iv = tilting.rdp_moment_interval(SGMPair(), {"q": 0.05, "sigma": 1.1}, 16, n=10_000, seed=0)
    assert iv.lo <= truth <= iv.hi
    assert (iv.hi - iv.lo) / truth < 1e-3
    assert iv.refutes(0.97 * truth)


def test_fast_coverage():
    """100 repetitions per case at nominal 0.999 (n = 2000): misses within the binomial allowance."""
    reps = 100
    allowed = allowed_misses(reps)
    assert allowed == 2
    for label, misses, r, width in coverage(fast_cases(), reps, n=2000):
        print(f"{label}: {misses}/{r} misses, median relative half-width {width:.3g}")
        assert misses <= allowed, label


@pytest.mark.parametrize("q, sigma, alpha", [(0.01, 2.0, 2), (0.01, 0.8, 64), (0.05, 1.1, 16), (0.2, 2.0, 3),
                                             (0.2, 0.8, 12.5)])
def test_rdp_three_percent_under_claim_rejected(q, sigma, alpha):
    """base.sgm_rdp's witness at quick sample size n = 1e5: a curve claimed 3 % too small is rejected (its claim
    is below the lower end, and its p-value is below the per-side level); the truth is inside."""
    truth = float(sgm_rdp(alpha, q, sigma))
    iv = tilting.rdp_moment_interval("base.sgm", {"q": q, "sigma": sigma, "direction": "remove"}, alpha,
                                     n=100_000, seed=7)
    assert iv.lo <= truth <= iv.hi
    assert iv.refutes(0.97 * truth)
    assert iv.p_above(0.97 * truth) < (1 - CONF) / 2
    assert iv.p_above(truth) > (1 - CONF) / 2


@pytest.mark.parametrize("pair, params, delta_fn", [
    (GaussianPair(), {"sigma": 2.0}, lambda e: gaussian_delta(e, 2.0)),
    (SGMPair(), {"q": 0.01, "sigma": 0.8}, lambda e: sgm_delta(e, 0.01, 0.8)),
])
def test_profile_down_to_1e10(pair, params, delta_fn):
    """δ(ε) = 1e-10 with n = 1e5 draws: the truth is inside, a profile claimed 5 % too small is rejected."""
    eps = eps_at(delta_fn, mpmath.mpf("1e-10"))
    truth = float(delta_fn(eps))
    iv = tilting.profile_interval(pair, params, eps, n=100_000, seed=3)
    assert iv.lo <= truth <= iv.hi
    assert iv.refutes(0.95 * truth)
    assert not iv.refutes(truth)
    assert iv.p_above(0.95 * truth) < (1 - CONF) / 2


def test_catalogue_witnesses_match_their_declared_families():
    """The tilt families declared in the registrations of base.gaussian, base.sgm and base.laplace pass the
    per-draw density check."""
    iv = tilting.rdp_moment_interval("base.gaussian", {"sigma": 1.5}, 8, n=2000, seed=0)
    assert iv.lo <= float(gaussian_rdp(8, 1.5)) <= iv.hi
    iv = tilting.profile_interval("base.sgm", {"q": 0.1, "sigma": 1.0, "direction": "remove"}, 1.0, n=2000, seed=0)
    assert iv.family == "gaussian_mixture" and iv.lo <= float(sgm_delta(1.0, 0.1, 1.0)) <= iv.hi
    iv = tilting.rdp_moment_interval("base.laplace", {"b": 2.0}, 3, n=2000, seed=0)
    assert iv.family == "bounded_loss" and iv.lo <= float(laplace_rdp(3, 2.0)) <= iv.hi


def test_mirrored_family():
    """P = N(−1, σ²) declared with shift −1: the same draws in the mirrored coordinate, the same interval."""
    iv = tilting.rdp_moment_interval(MirroredGaussian(), {"sigma": 1.0}, 4, n=2000, seed=0)
    ref = tilting.rdp_moment_interval(GaussianPair(), {"sigma": 1.0}, 4, n=2000, seed=0)
    assert iv.lo <= 2.0 <= iv.hi
    for a, b in ((iv.lo, ref.lo), (iv.estimate, ref.estimate), (iv.hi, ref.hi)):
        assert a == pytest.approx(b, rel=1e-12)


def test_composition_scales_rdp():
    """ε_T(α) = T·ε_1(α): the T-fold interval is T times the one-step interval of the same draws."""
    one = tilting.rdp_moment_interval(SGMPair(), {"q": 0.05, "sigma": 1.1}, 8, n=2000, seed=4)
    many = tilting.rdp_moment_interval(SGMPair(), {"q": 0.05, "sigma": 1.1, "steps": 100}, 8, n=2000, seed=4)
    assert many.steps == 100
    for a, b in ((one.lo, many.lo), (one.estimate, many.estimate), (one.hi, many.hi)):
        assert b == pytest.approx(100 * a, rel=1e-12)
    assert many.p_above(100 * one.lo * 0.999) == pytest.approx(one.p_above(one.lo * 0.999), rel=1e-9)


def test_composed_bounded_loss_profile():
    """Laplace, 3-fold: the summand bound is 1 − e^{ε−3/b}; on the same draws the interval is narrower than plain
    sampling's (B = 1), and the two intervals overlap."""
    iv = tilting.profile_interval(LaplacePair(), {"b": 1.0, "steps": 3}, 1.0, n=4000, seed=0)
    plain = tilting.profile_interval(NoFamilyLaplace(), {"b": 1.0, "steps": 3}, 1.0, n=4000, seed=0)
    assert iv.family == "bounded_loss" and plain.family == "plain"
    assert iv.log_bound == pytest.approx(math.log(-math.expm1(1.0 - 3.0)), abs=1e-5)
    assert iv.hi - iv.lo < plain.hi - plain.lo  # the sharper bound narrows the same draws' interval
    assert max(iv.lo, plain.lo) <= min(iv.hi, plain.hi)


class NoFamilyLaplace(LaplacePair):
    id = "test.laplace_nofamily"
    tilt_family = None


def test_deterministic_for_a_seed():
    a = tilting.profile_interval(SGMPair(), {"q": 0.05, "sigma": 1.1}, 2.0, n=3000, seed=11)
    b = tilting.profile_interval(SGMPair(), {"q": 0.05, "sigma": 1.1}, 2.0, n=3000, seed=11)
    c = tilting.profile_interval(SGMPair(), {"q": 0.05, "sigma": 1.1}, 2.0, n=3000, seed=12)
    assert (a.lo, a.estimate, a.hi) == (b.lo, b.estimate, b.hi)
    assert (a.lo, a.estimate, a.hi) != (c.lo, c.estimate, c.hi)


def test_bound_holds_on_a_dense_grid():
    """The proven B bounds g/r at 2e5 points spread over the whole range, and is within REFINE_TOL (+ slack) of the
    largest value found there: the bound is sound and not loose."""
    for kind, axis, w, d, sigma in (("moment", 64.0, (0.99, 0.01), (0.0, 1.0), 0.8),
                                    ("moment", 2.0, (0.95, 0.05), (0.0, 1.0), 2.0),
                                    ("moment", 7.5, (1.0,), (1.0,), 1.0),
                                    ("hockey", 3.0, (0.8, 0.2), (0.0, 1.0), 0.8),
                                    ("hockey", 0.0, (1.0,), (1.0,), 2.0)):
        prop, log_b, info = tilting._prepared(kind, axis, w, d, sigma)
        fam = tilting.GaussianMixture(np.array(w), np.array(d), 0.0, sigma)
        target = tilting._Target(kind, axis, fam)
        u = np.linspace(-20 * sigma, axis * max(d) + 20 * sigma + 30, 200_000)
        ratio = target.log_g(u) - prop.log_density(u)
        assert float(ratio.max()) <= log_b, (kind, axis)
        assert log_b - float(ratio.max()) <= tilting.REFINE_TOL + 1e-3, (kind, axis, log_b, ratio.max())


def test_wrong_family_raises():
    """A declaration that does not describe the pair is caught at the draws, not turned into a wrong interval."""

    class Wrong(GaussianPair):
        def tilt_family(self, sigma):
            return {"family": "gaussian_mixture", "weights": [1.0], "shifts": [1.0], "sigma": 1.1 * sigma}

    with pytest.raises(ValueError, match="declared gaussian_mixture family"):
        tilting.rdp_moment_interval(Wrong(), {"sigma": 1.0}, 4, n=100, seed=0)

    class WrongRange(LaplacePair):
        def tilt_family(self, b):
            return {"family": "bounded_loss", "lo": -0.5 / b, "hi": 0.5 / b}

    with pytest.raises(ValueError, match="outside the declared bounded_loss range"):
        tilting.profile_interval(WrongRange(), {"b": 1.0}, 0.1, n=100, seed=0)


def test_without_family():
    """RDP needs a family (P-sampling only bounds the moment from below); profiles fall back to plain sampling;
    base.sgm's add direction declares none."""
    with pytest.raises(ValueError, match="no tilt family"):
        tilting.rdp_moment_interval(NoFamily(), {"sigma": 1.0}, 2, n=100, seed=0)
    with pytest.raises(ValueError, match="no tilt family"):
        tilting.rdp_moment_interval("base.sgm", {"q": 0.1, "sigma": 1.0, "direction": "add"}, 2, n=100, seed=0)
    iv = tilting.profile_interval(NoFamily(), {"sigma": 1.0}, 0.5, n=2000, seed=0)
    assert iv.family == "plain" and iv.lo <= float(gaussian_delta(0.5, 1.0)) <= iv.hi


def test_exact_zero():
    """Beyond the largest loss the profile is exactly 0 (Laplace, ε > 1/b): a degenerate interval, not a NaN."""
    iv = tilting.profile_interval(LaplacePair(), {"b": 1.0}, 1.5, n=100, seed=0)
    assert (iv.lo, iv.estimate, iv.hi) == (0.0, 0.0, 0.0)
    assert iv.p_above(0.0) == 1.0 and iv.p_above(-1e-9) == 0.0


@pytest.mark.parametrize("kwargs, name", [
    ({"alpha": 1.0}, "alpha"), ({"alpha": float("nan")}, "alpha"), ({"alpha": math.inf}, "alpha"),
    ({"n": 1}, "n"), ({"n": 10.5}, "n"), ({"confidence": 1.0}, "confidence"), ({"method": "clt"}, "method"),
])
def test_bad_input(kwargs, name):
    args = {"alpha": 2.0, "n": 100, "seed": 0, "confidence": 0.99, "method": "eb", **kwargs}
    alpha = args.pop("alpha")
    with pytest.raises(DomainError, match=name):
        tilting.rdp_moment_interval(GaussianPair(), {"sigma": 1.0}, alpha, **args)


def test_bad_eps():
    with pytest.raises(DomainError, match="eps"):
        tilting.profile_interval(GaussianPair(), {"sigma": 1.0}, -0.1, n=100, seed=0)


def test_pvalues_agree_with_interval():
    iv = tilting.profile_interval(SGMPair(), {"q": 0.2, "sigma": 1.0}, 1.0, n=5000, seed=0)
    beta = (1 - CONF) / 2
    for c in (0.9 * iv.lo, 0.999 * iv.lo, 1.001 * iv.lo, iv.estimate):
        assert (iv.p_above(c) <= beta * (1 + 1e-6)) == iv.refutes(c), c
    for c in (1.1 * iv.hi, 1.001 * iv.hi, 0.999 * iv.hi, iv.estimate):
        assert (iv.p_below(c) <= beta * (1 + 1e-6)) == iv.refutes(c, "lower"), c


def test_check_for_the_runner():
    """tilting.check builds the runner's statistical Check: an upper claim 3 % low fails (p below the level), the
    truth passes, a lower claim 3 % high fails (two-sided interval), +inf holds trivially."""
    truth = float(sgm_rdp(8, 0.05, 1.1))
    params = {"q": 0.05, "sigma": 1.1, "direction": "remove"}
    kw = dict(n=20_000, seed=5, confidence=CONF)
    low = tilting.check("base.sgm", params, "rdp_eps", 8, 0.97 * truth, "upper", {"alpha": 8}, **kw)
    ok = tilting.check("base.sgm", params, "rdp_eps", 8, truth, "exact", {"alpha": 8}, **kw)
    high = tilting.check("base.sgm", params, "rdp_eps", 8, 1.03 * truth, "lower", {"alpha": 8}, **kw)
    inf = tilting.check("base.sgm", params, "rdp_eps", 8, math.inf, "upper", {"alpha": 8}, **kw)
    assert low.name == "rdp-tilted" and low.lo <= truth <= low.hi
    assert low.p_value < 1 - CONF and ok.p_value > 1 - CONF and high.p_value < 1 - CONF and inf.p_value == 1.0
    assert low.reproduction["seed"] == 5 and low.reproduction["samples"] == 20_000
    e = eps_at(lambda x: sgm_delta(x, 0.05, 1.1), mpmath.mpf("1e-9"))
    d = float(sgm_delta(e, 0.05, 1.1))
    prof = tilting.check("base.sgm", params, "delta", e, 0.95 * d, "upper", {"eps": e}, **kw)
    assert prof.name == "profile-tilted" and prof.p_value < 1 - CONF
    with pytest.raises(ValueError, match="NaN"):
        tilting.check("base.sgm", params, "delta", e, float("nan"), "upper", {"eps": e}, **kw)


def test_profile_claim_below_the_smallest_double():
    """An exact δ(ε) below the smallest double (σ = 5, ε = 16.4: δ ≈ e^-3362) is judged by its logarithm: the true
    mpf claim passes (before, its float 0.0 against an interval [0, 0] gave p = 0 — a false failure), and half of it
    is refuted by the same sample."""
    truth = gaussian_delta(mpmath.mpf("16.4"), 5)
    assert 0 < truth < mpmath.mpf(10) ** -1000 and float(truth) == 0.0
    kw = dict(n=100_000, seed=7, confidence=CONF)
    ok = tilting.check("base.gaussian", {"sigma": 5.0}, "delta", 16.4, truth, "exact", {"eps": 16.4}, **kw)
    low = tilting.check("base.gaussian", {"sigma": 5.0}, "delta", 16.4, truth / 2, "upper", {"eps": 16.4}, **kw)
    assert ok.p_value > 1 - CONF, ok.message
    assert low.p_value < 1 - CONF, low.message
    assert "e-" in ok.message  # the claim is shown, not as 0


# ---------------------------------------------------------------------------------------------------------
# Slow: the measured tables (also printed by running this file)


def coverage_cases():
    g, s, lap = GaussianPair(), SGMPair(), LaplacePair()
    cases = []
    for sigma in (0.8, 2.0):
        for alpha in (2, 16, 64):
            cases.append(rdp_case(f"gaussian σ={sigma} α={alpha}", g, {"sigma": sigma}, alpha,
                                  gaussian_rdp(alpha, sigma)))
        for d in ("1e-3", "1e-10"):
            e = eps_at(lambda x: gaussian_delta(x, sigma), mpmath.mpf(d))
            cases.append(profile_case(f"gaussian σ={sigma} δ={d}", g, {"sigma": sigma}, e, gaussian_delta(e, sigma)))
    for b in (1.0, 5.0):
        for alpha in (1.5, 8, 64):
            cases.append(rdp_case(f"laplace b={b} α={alpha}", lap, {"b": b}, alpha, laplace_rdp(alpha, b)))
        for e in (0.0, 0.5 / b):
            cases.append(profile_case(f"laplace b={b} ε={e}", lap, {"b": b}, e, laplace_delta(e, b)))
    for q, sigma in ((0.01, 0.8), (0.01, 2.0), (0.2, 0.8), (0.2, 2.0)):
        for alpha in (2, 16, 64, 12.5):
            cases.append(rdp_case(f"sgm q={q} σ={sigma} α={alpha}", s, {"q": q, "sigma": sigma}, alpha,
                                  sgm_rdp(alpha, q, sigma)))
        for d in ("1e-4", "1e-10"):
            e = eps_at(lambda x: sgm_delta(x, q, sigma), mpmath.mpf(d))
            cases.append(profile_case(f"sgm q={q} σ={sigma} δ={d}", s, {"q": q, "sigma": sigma}, e,
                                      sgm_delta(e, q, sigma)))
    return cases


def power_table(reps=10, n=100_000):
    """Detection rates of planted under-claims (truth × factor) for base.sgm_rdp's witness on the issue's grid
    (RDP) and for the SGM profile at δ ∈ {1e-2, 1e-6, 1e-10}."""
    rows = []
    for q in (0.01, 0.05, 0.2):
        for sigma in (0.8, 1.1, 2.0):
            for alpha in (2, 3, 4, 8, 16, 32, 64, 2.5, 12.5):
                truth = float(sgm_rdp(alpha, q, sigma))
                hits = [0] * len(FACTORS)
                for r in range(reps):
                    iv = tilting.rdp_moment_interval("base.sgm", {"q": q, "sigma": sigma, "direction": "remove"},
                                                     alpha, n=n, seed=1000 + r, confidence=CONF)
                    for i, f in enumerate(FACTORS):
                        hits[i] += iv.refutes(f * truth)
                rows.append(("rdp", q, sigma, alpha, truth, [h / reps for h in hits]))
            for d in ("1e-2", "1e-6", "1e-10"):
                e = eps_at(lambda x: sgm_delta(x, q, sigma), mpmath.mpf(d))
                if e is None:
                    continue
                truth = float(sgm_delta(e, q, sigma))
                hits = [0] * len(FACTORS)
                for r in range(reps):
                    iv = tilting.profile_interval("base.sgm", {"q": q, "sigma": sigma, "direction": "remove"}, e,
                                                  n=n, seed=1000 + r, confidence=CONF)
                    for i, f in enumerate(FACTORS):
                        hits[i] += iv.refutes(f * truth)
                rows.append(("profile δ=" + d, q, sigma, e, truth, [h / reps for h in hits]))
    return rows


@pytest.mark.slow
def test_slow_coverage():
    reps = 1000
    allowed = allowed_misses(reps)
    for label, misses, r, width in coverage(coverage_cases(), reps, n=10_000, seed0=10_000):
        print(f"{label}: {misses}/{r} misses, median relative half-width {width:.3g}")
        assert misses <= allowed, label


@pytest.mark.slow
def test_slow_power():
    for kind, q, sigma, axis, truth, rates in power_table(reps=5):
        print(kind, q, sigma, axis, truth, rates)
        assert rates[FACTORS.index(0.97)] == 1.0 and rates[FACTORS.index(0.95)] == 1.0, (kind, q, sigma, axis)


def _main():  # pragma: no cover - the measured tables for the README
    which = sys.argv[1] if len(sys.argv) > 1 else "both"
    if which in ("coverage", "both"):
        reps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
        conf = float(sys.argv[4]) if len(sys.argv) > 4 else CONF
        t = time.time()
        print(f"coverage at nominal {conf}, n = 10000 per interval, {reps} repetitions per row "
              f"(binomial allowance {allowed_misses(reps, 1 - conf)})")
        for label, misses, r, width in coverage(coverage_cases(), reps, n=10_000, seed0=10_000, confidence=conf):
            print(f"| {label} | {misses}/{r} | {width:.3g} |", flush=True)
        print(f"({time.time() - t:.0f} s)")
    if which in ("power", "both"):
        reps = int(sys.argv[3]) if len(sys.argv) > 3 else 10
        t = time.time()
        print(f"power at n = 100000, nominal {CONF}, {reps} seeds; detection rate of truth × {FACTORS}")
        for kind, q, sigma, axis, truth, rates in power_table(reps=reps):
            print(f"| {kind} | {q} | {sigma} | {axis:.6g} | {truth:.6g} | "
                  + " | ".join(f"{x:.2f}" for x in rates) + " |", flush=True)
        print(f"({time.time() - t:.0f} s)")


if __name__ == "__main__":  # pragma: no cover
    _main()


# ---------------------------------------------------------------------------------------------------------
# T-fold profiles of Gaussian-mixture families: every step tilted by one integer λ (issue 19)


def test_tilted_step_law_is_the_expansion_of_q_ell_alpha():
    """q(u)ℓ(u)^α = Σ_c w_c N(u; D_c, σ²) pointwise (α = 1…5; a 2- and a 3-component family), and M(α) = Σ_c w_c is
    E_Q[ℓ^α] (the binomial sum of the module docstring for the SGM family)."""
    fams = [tilting._parse_family({"family": "gaussian_mixture", "weights": [0.9, 0.1], "shifts": [0.0, 1.0],
                                   "sigma": 0.8}, "t"),
            tilting._parse_family({"family": "gaussian_mixture", "weights": [0.5, 0.3, 0.2],
                                   "shifts": [0.0, 0.5, 1.5], "sigma": 1.3}, "t")]
    u = np.linspace(-4, 8, 41)
    for fam in fams:
        for alpha in range(1, 6):
            means, log_w = tilting.tilted_step_law(fam, alpha)
            lhs = fam.log_q(u) + alpha * fam.log_ell(u)
            comp = log_w[:, None] - 0.5 * ((u[None, :] - means[:, None]) / fam.sigma) ** 2 \
                - math.log(fam.sigma) - 0.5 * math.log(2 * math.pi)
            rhs = tilting._logsumexp(comp, axis=0)
            assert np.allclose(lhs, rhs, rtol=0, atol=1e-11), (alpha, np.max(np.abs(lhs - rhs)))
    for alpha in (2, 3, 8):
        _, log_w = tilting.tilted_step_law(fams[0], alpha)
        exact = float(mpmath.log1p(sgm_excess_binomial(alpha, 0.1, 0.8)))
        assert float(tilting._logsumexp(log_w, axis=0)) == pytest.approx(exact, rel=1e-12, abs=1e-15)


def test_composed_bound_is_the_supremum():
    """B/M^T = e^{−λε}λ^λ/(1+λ)^{1+λ} is sup_S (1 − e^{ε−S})e^{−λS} (a dense grid reaches it within 1e-6 and never
    exceeds it; grid step 2e-4), for λ = 1…6 and ε ∈ {0, 0.7, 5}."""
    for lam in range(1, 7):
        for eps in (0.0, 0.7, 5.0):
            S = np.linspace(eps, eps + 20, 100_001)[1:]
            log_f = np.log(-np.expm1(eps - S)) - lam * S
            closed = -lam * eps + lam * math.log(lam) - (1 + lam) * math.log(1 + lam)
            assert log_f.max() <= closed + 1e-12 and log_f.max() >= closed - 1e-6


def test_composed_gaussian_profile_covers_the_exact_value():
    """T-fold Gaussian pair N(1, σ²) vs N(0, σ²) is the Gaussian pair at σ/√T: δ_T(ε) = gaussian_delta(ε, σ/√T)
    (T = 100, σ = 10, ε ∈ {0.5, 3, 6}, n = 2000, seed 0): the interval covers it; at δ ≤ 2e-3 the chosen λ ≥ 1 puts B
    within e^3 of δ, and an ε under-claimed by 10 % is refuted (δ(0.9ε) is above the claimed δ(ε))."""
    for eps in (0.5, 3.0, 6.0):
        truth = gaussian_delta(eps, 1.0)
        iv = tilting.profile_interval(GaussianPair(), {"sigma": 10.0, "steps": 100}, eps, n=2000, seed=0)
        assert iv.family == tilting.COMPOSED_FAMILY
        assert iv.lo <= float(truth) <= iv.hi, (eps, iv.lo, float(truth), iv.hi)
        if truth < 2e-3:
            assert iv.record["tilt_lambda"] >= 1
            assert iv.log_bound - math.log(float(truth)) < 3  # B within e^3 of δ: the tilt does its work
            low = tilting.profile_interval(GaussianPair(), {"sigma": 10.0, "steps": 100}, 0.9 * eps, n=2000, seed=1)
            assert low.refutes(float(truth)), (eps, low.lo, float(truth))


def test_composed_sgm_profile_agrees_with_the_pld_accountant():
    """T-fold remove pair of the subsampled Gaussian (q = 0.05, σ = 1, T = 200) at δ ≈ 1e-6: the interval meets the
    fast PLD accountant's certified δ interval (an independent method), and the δ at 0.9·ε is far above it (the
    check that catches an ε under-claimed by 10 %)."""
    pytest.importorskip("torch")
    from dpspec.fast import Accountant

    acc = Accountant().sgm(0.05, 1.0, 200)
    eps = acc.epsilon_interval(1e-6)[0]
    lo, hi = acc.delta_interval(eps)
    iv = tilting.profile_interval(SGMPair(), {"q": 0.05, "sigma": 1.0, "steps": 200}, eps, n=2000, seed=1)
    assert iv.lo <= hi and lo <= iv.hi, (iv.lo, iv.hi, lo, hi)
    c = tilting.check(SGMPair(), {"q": 0.05, "sigma": 1.0, "steps": 200}, "delta", 0.9 * eps, hi, "upper", {},
                      n=2000, seed=2)
    assert c.p_value < 1e-6 and c.reproduction["tilt_lambda"] >= 1


def test_composed_draws_check_the_declared_family():
    """A pair whose densities disagree with its declaration (σ 10 % off) raises in the T-fold estimator too."""
    class Wrong(GaussianPair):
        id = "test.wrong"

        def tilt_family(self, sigma):
            return {"family": "gaussian_mixture", "weights": [1.0], "shifts": [1.0], "sigma": 1.1 * sigma}
    with pytest.raises(ValueError, match="declared gaussian_mixture"):
        tilting.profile_interval(Wrong(), {"sigma": 2.0, "steps": 10}, 1.0, n=200, seed=0)


def test_composed_profile_is_deterministic():
    """The same seed gives the same interval; another seed another one."""
    args = (SGMPair(), {"q": 0.1, "sigma": 1.2, "steps": 50}, 1.0)
    a = tilting.profile_interval(*args, n=500, seed=3)
    b = tilting.profile_interval(*args, n=500, seed=3)
    c = tilting.profile_interval(*args, n=500, seed=4)
    assert (a.lo, a.estimate, a.hi) == (b.lo, b.estimate, b.hi) and a.estimate != c.estimate
