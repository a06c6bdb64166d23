"""Coverage of every estimator by simulation on pairs with known answers (Gaussian and Laplace), Holm, p-values.

Each coverage test draws 200 independent small samples (fixed seed) and asserts that the measured coverage is at
least the nominal level minus 3 Monte Carlo standard errors (≈ 99.9 % one-sided confidence for the assertion);
the measured coverage is printed (pytest -s) and recorded as a test property.
"""
import math

import numpy as np
import pytest
import torch
from scipy.stats import norm

from dpspec.conformance import intervals
from dpspec.conformance.sampling import sample_losses
from dpspec.conformance.verdicts import holm

REPS, N = 200, 400


def gaussian_delta(eps, sigma):
    """Balle & Wang 2018, Thm 8 (sensitivity 1): the exact δ(ε) of N(1,σ²) vs N(0,σ²)."""
    return norm.cdf(0.5 / sigma - eps * sigma) - math.exp(eps) * norm.cdf(-0.5 / sigma - eps * sigma)


def laplace_delta(eps, b):
    """δ(ε) of Lap(1,b) vs Lap(0,b) for 0 ≤ ε ≤ 1/b: 1 − exp((ε − 1/b)/2) (e.g. Balle et al. 2018, §4)."""
    return 1 - math.exp((eps - 1 / b) / 2)


class LaplacePair:  # the base.laplace pair, local so that the estimators are tested on their own
    id = "test.laplace"
    params = ()

    def sample(self, rng, n, b):
        return 1 + rng.laplace(0, b, n)

    def log_p(self, o, b):
        return -np.abs(o - 1) / b

    def log_q(self, o, b):
        return -np.abs(o) / b


class GaussianPair:
    id = "test.gaussian"
    params = ()

    def sample(self, rng, n, sigma):
        return 1 + sigma * rng.standard_normal(n)

    def log_p(self, o, sigma):
        return -0.5 * ((o - 1) / sigma) ** 2

    def log_q(self, o, sigma):
        return -0.5 * (o / sigma) ** 2


def _coverage(hits, nominal, record, label):
    cov = float(sum(bool(h) for h in hits)) / len(hits)
    floor = nominal - 3 * math.sqrt(nominal * (1 - nominal) / len(hits))
    print(f"{label}: coverage {cov:.3f} (nominal {nominal}, floor {floor:.3f})")
    record(label, cov)
    assert cov >= floor, f"{label}: coverage {cov} < {floor}"


@pytest.mark.parametrize("method", intervals.METHODS)
@pytest.mark.parametrize("pair, params, eps, truth", [
    (GaussianPair(), {"sigma": 1.0}, 1.0, gaussian_delta(1.0, 1.0)),
    (LaplacePair(), {"b": 1.0}, 0.5, laplace_delta(0.5, 1.0)),
])
def test_two_sided_delta_interval_covers(method, pair, params, eps, truth, record_property):
    hits = []
    for rep in range(REPS):
        s = sample_losses(pair, params, N, seed=1000 + rep)
        x = intervals.hockey_stick_terms(s.strata[0].losses, eps)
        iv = intervals.interval([(1.0, x)], 0.8, method)
        hits.append(iv.lo <= truth <= iv.hi)
    _coverage(hits, 0.8, record_property, f"{method} δ({eps}) {pair.id}")


@pytest.mark.parametrize("method", intervals.METHODS)
def test_stratified_lower_bound_covers(method, record_property):
    """Two strata of a Laplace pair (o ≤ 1 / o > 1 under P, each of probability 1/2)."""
    b, eps = 1.0, 0.25
    truth = laplace_delta(eps, b)
    pair = LaplacePair()
    hits = []
    for rep in range(REPS):
        rng = np.random.default_rng(rep)
        low = 1 - rng.exponential(b, N // 2)  # P conditioned on o ≤ 1
        high = 1 + rng.exponential(b, N // 2)
        strata = [(0.5, intervals.hockey_stick_terms(torch.from_numpy(pair.log_p(o, b) - pair.log_q(o, b)), eps))
                  for o in (low, high)]
        hits.append(intervals.stratified_lower(strata, 0.1, method) <= truth)
    _coverage(hits, 0.9, record_property, f"{method} stratified LCB")


@pytest.mark.parametrize("method", intervals.METHODS)
def test_truncated_moment_lower_bound_covers(method, record_property):
    """E_P[e^{(α−1)L}] = e^{α(α−1)/(2σ²)} for the Gaussian pair (Mironov 2017, Prop. 7)."""
    sigma, alpha = 1.0, 3.0
    log_truth = alpha * (alpha - 1) / (2 * sigma**2)
    log_c = log_truth + math.log(2)
    hits = []
    for rep in range(REPS):
        s = sample_losses(GaussianPair(), {"sigma": sigma}, N, seed=5000 + rep)
        z = intervals.moment_terms(s.strata[0].losses, alpha, log_c)
        lcb = intervals.lower_bound(z, 0.1, method)
        hits.append(lcb == 0 or log_c + math.log(lcb) <= log_truth)
    _coverage(hits, 0.9, record_property, f"{method} moment LCB")


def test_pvalue_matches_the_bound():
    """p(m0) ≤ β exactly when the level-β lower bound exceeds m0 (EB: closed form both ways)."""
    x = torch.from_numpy(np.random.default_rng(0).beta(2, 5, 2000))
    beta = 1e-3
    lcb = intervals.eb_lower(x, beta)
    assert intervals.eb_pvalue(x, lcb * 0.999) < beta < intervals.eb_pvalue(x, lcb * 1.001)
    lcb_b = intervals.betting_lower(x, beta)
    assert intervals.betting_pvalue(x, lcb_b * 0.99, beta) <= beta
    assert intervals.betting_pvalue(x, min(1.0, lcb_b * 1.02), beta) > beta
    strat = intervals.pvalue_above([(0.5, x), (0.5, x)], lcb * 0.9, "eb", beta)
    assert strat <= 2 * intervals.eb_pvalue(x, lcb * 0.9) * 1.01


def test_bounds_detect_a_mean_far_from_the_claim_and_never_leave_zero_one():
    x = torch.ones(100) * 0.5
    assert 0 < intervals.betting_lower(x, 1e-3) < 0.5 < 1 - intervals.betting_lower(1 - x, 1e-3)
    assert intervals.eb_lower(torch.zeros(50), 0.1) == 0.0
    with pytest.raises(ValueError):
        intervals.eb_lower(torch.tensor([0.5, 1.5]), 0.1)


def test_holm_step_down():
    assert holm([0.001, 0.04, 0.03, 0.2], 0.05) == [True, False, False, False]
    assert holm([0.01, 0.02, 0.03], 0.1) == [True, True, True]  # 0.01 ≤ .1/3, 0.02 ≤ .1/2, 0.03 ≤ .1
    assert holm([], 0.05) == []


def test_sampling_is_reproducible_and_composes():
    pair = GaussianPair()
    a = sample_losses(pair, {"sigma": 2.0}, 1000, seed=7).strata[0].losses
    b = sample_losses(pair, {"sigma": 2.0}, 1000, seed=7).strata[0].losses
    assert torch.equal(a, b)
    t = sample_losses(pair, {"sigma": 2.0, "steps": 16}, 4000, seed=1)
    assert t.steps == 16 and t.n == 4000
    # the T-fold loss of the Gaussian pair is N(Tμ, 2Tμ) with μ = 1/(2σ²) = 1/8 (auditing notes §3.4)
    L = t.strata[0].losses
    assert abs(float(L.mean()) - 2.0) < 4 * math.sqrt(4.0 / 4000)
    assert abs(float(L.var()) - 4.0) < 0.4
