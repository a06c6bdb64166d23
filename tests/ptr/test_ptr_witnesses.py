"""The PTR witness pairs: densities, samplers and strata against their exact moments (fixed seeds; Monte Carlo
checks at a normal-approximation 99.9% level, |z| < 3.3)."""
import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.ptr.notation import threshold

Z = 3.3  # two-sided 99.9%
PAIRS = dict(sigma1=2.0, sigma2=1.0, b=1.0, delta0=1e-8)
SUB = dict(q=0.05, sigma1=2.0, sigma2=1.0, b=1.0, delta0=1e-3)
IDS = ["ptr.thm4_3.case1", "ptr.thm4_3.case2", "ptr.thm4_4.case1_fwd", "ptr.thm4_4.case1_rev",
       "ptr.thm4_4.case2_fwd", "ptr.thm4_4.case2_rev"]


def params(wid):
    return PAIRS if wid.startswith("ptr.thm4_3") else SUB


def mean_ci(x):
    return x.mean(), Z * x.std(ddof=1) / np.sqrt(x.size)


@pytest.mark.parametrize("wid", IDS)
def test_samples_have_shape_n_by_2_and_densities_are_consistent(wid):
    """E_P[q/p] = 1 for any pair with Q ≪ P (here both have full support)."""
    w, p = catalogue.get_witness(wid), params(wid)
    o = w.sample(np.random.default_rng(1), 40000, **p)
    assert o.shape == (40000, 2) and np.isfinite(o).all()
    m, h = mean_ci(np.exp(-w.privacy_loss(o, **p)))
    assert abs(m - 1) < h + 1e-12


@pytest.mark.parametrize("wid", IDS)
def test_stratified_moment_matches_the_exact_log_moment(wid):
    """E_Q[(p/q)^α] = E_P[(p/q)^{α−1}], estimated stratum by stratum and weighted, at α = 2."""
    w, p, alpha = catalogue.get_witness(wid), params(wid), 2
    rng = np.random.default_rng(2)
    strata = w.strata(**p)
    assert abs(sum(float(pr) for pr, _ in strata) - 1) < 1e-12
    est, var = 0.0, 0.0
    for pr, sampler in strata:
        o = sampler(rng, 20000)
        x = np.exp((alpha - 1) * w.privacy_loss(o, **p))
        est += float(pr) * x.mean()
        var += float(pr) ** 2 * x.var(ddof=1) / x.size
    with mpmath.workdps(20):
        exact = float(mpmath.exp(w.log_moment(alpha, **{k: mpf(v) for k, v in p.items()})))
    assert abs(est - exact) < Z * np.sqrt(var) + 1e-12


def test_rare_branch_stratum_samples_beyond_the_threshold_and_has_the_sigma2_moment():
    """δ0 = 1e-8: the upper stratum (probability δ0) lies beyond b ln(1/(2δ0)) and releases with σ2."""
    w = catalogue.get_witness("ptr.thm4_3.case1")
    (p_low, low), (p_up, up) = w.strata(**PAIRS)
    assert p_up == pytest.approx(1e-8, rel=1e-9) and p_low == pytest.approx(1 - 1e-8, rel=1e-15)
    thr = float(threshold(mpf(1), mpf("1e-8")))
    rng = np.random.default_rng(3)
    hi, lo = up(rng, 20000), low(rng, 20000)
    assert (hi[:, 0] > thr).all() and (lo[:, 0] <= thr).all()
    # within the upper stratum the loss is Gaussian with σ2: E[e^{(α−1)L}] = e^{α(α−1)/(2σ2²)}, α = 1.5
    m, h = mean_ci(np.exp(0.5 * w.privacy_loss(hi, **PAIRS)))
    assert abs(m - np.exp(1.5 * 0.5 / 2)) < h


def test_subsampled_witnesses_are_lower_bound_witnesses_and_thm4_3_pairs_dominate():
    for wid in IDS:
        w = catalogue.get_witness(wid)
        assert w.dominating == wid.startswith("ptr.thm4_3"), wid
        assert w.log_moment is not None and w.strata is not None


def test_case2_fwd_moment_at_integer_order_matches_both_routes():
    """Integer orders use the binomial Gaussian moment inside the Laplace integral; the quadrature route (used for
    other orders) must agree with it."""
    from dpspec.reference.ptr import witnesses as W

    with mpmath.workdps(25):
        q, s1, b = mpf("0.05"), mpf(2), mpf(1)
        integer_route = W._case2_sub_log_moment(mpf(3), q, s1, b)
        shifted = W._case2_sub_log_moment(mpf(3) + mpf(10) ** -30, q, s1, b)  # non-integer: the quadrature route
        assert abs(integer_route - shifted) < mpf(10) ** -20
