"""Black-box mechanism audits (dpspec.conformance.audit.mechanisms): correct mechanisms pass, planted bugs are
caught. Every test uses a fixed seed and confidence 0.95 (the default).

Sample sizes (defaults: 4000 selection + 10000 estimation draws per dataset) are chosen so that the planted bugs
are caught with a wide margin: for Laplace noise with true ε = 2 the Clopper–Pearson lower bound with 10⁴ draws
is ≈ 1.9 (measured 1.93 at seed 1) against a claim of 1, and the Gaussian bug gives ≈ 4.6 against 2.5.
The correct mechanisms give lower bounds ≈ 0.93 (true 1) and ≈ 1.9 (true ε(0.01) ≈ 2.4 < claim 2.5)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from dpspec.conformance.audit import mechanisms as m

import _audit_controls as C

E0, E1 = [1.0] * 5, [1.0] * 4  # add/remove neighbours, records in [0, 1]


@pytest.mark.parametrize("fn", [C.laplace_sum])
@pytest.mark.parametrize("family", [None, "laplace"])
def test_correct_laplace_passes(fn, family):
    r = m.audit_mechanism(fn, E0, E1, claim_eps=C.EPS, family=family, seed=1)
    assert r.verdict == "consistent", r.reason
    assert 0.5 < r.eps_lower_bound <= C.EPS  # the attack has power: close to the true ε = 1


@pytest.mark.parametrize("fn", [C.laplace_sum_half_noise, C.laplace_sum_double_sensitivity])
def test_laplace_bugs_caught(fn):
    r = m.audit_mechanism(fn, E0, E1, claim_eps=C.EPS, seed=1)
    assert r.verdict == "violation", r.reason
    assert C.EPS < r.eps_lower_bound <= 2.0  # never above the true ε = 2


def test_mean_dividing_by_true_count_caught():
    r = m.audit_mechanism(C.laplace_mean_true_count, [1.0, 1.0], [1.0, 1.0, 0.0], claim_eps=C.EPS, seed=1)
    assert r.verdict == "violation", r.reason


def test_gaussian_control_and_halved_noise():
    ok = m.audit_mechanism(C.gaussian_sum, E0, E1, claim_eps=2.5, claim_delta=0.01, family="gaussian", seed=1)
    bug = m.audit_mechanism(C.gaussian_sum_half_noise, E0, E1, claim_eps=2.5, claim_delta=0.01,
                            family="gaussian", seed=1)
    assert ok.verdict == "consistent", ok.reason
    assert bug.verdict == "violation", bug.reason
    assert bug.attack["score"] == "gaussian log-likelihood ratio"


def test_tradeoff_audit_gdp():
    """σ = 1 is exactly 1-GDP (passes); σ = 0.5 is 2-GDP and contradicts a 1-GDP claim (DKW bands, n = 4000)."""
    ok = m.audit_tradeoff(C.gaussian_sum, E0, E1, m.gaussian_tradeoff(1.0), family="gaussian", seed=1)
    bug = m.audit_tradeoff(C.gaussian_sum_half_noise, E0, E1, m.gaussian_tradeoff(1.0), family="gaussian", seed=1)
    assert ok.verdict == "consistent" and bug.verdict == "violation"
    assert bug.worst["gap"] > 0.1 and ok.worst["gap"] <= 0


def test_clopper_pearson_and_lower_bound_algebra():
    lo, hi = m.clopper_pearson(50, 100, 0.025)
    assert 0.39 < lo < 0.5 < hi < 0.61
    assert m.clopper_pearson(0, 10, 0.05)[0] == 0.0 and m.clopper_pearson(10, 10, 0.05)[1] == 1.0
    assert m.eps_lower_bound(5, 5, 100, 100, 0.0, 0.05) == 0.0  # nothing certified
    # k_a = n: lcb = (β/2)^{1/n}; k_b = 0: ucb = 1 − (β/2)^{1/n}
    n, beta = 1000, 0.05
    expected = math.log((beta / 2) ** (1 / n) / (1 - (beta / 2) ** (1 / n)))
    assert m.eps_lower_bound(n, 0, n, n, 0.0, beta) == pytest.approx(expected, rel=1e-9)


def test_clopper_pearson_coverage():
    """Coverage of the one-sided CP lower bound at β = 0.1, p = 0.2, n = 50: ≥ 0.9 minus 3 MC standard errors
    (2000 repetitions, seed 0)."""
    rng = np.random.default_rng(0)
    k = rng.binomial(50, 0.2, size=2000)
    cover = np.mean([m.clopper_pearson(int(x), 50, 0.1)[0] <= 0.2 for x in k])
    assert cover >= 0.9 - 3 * math.sqrt(0.09 / 2000)


def test_rejects_bad_input():
    with pytest.raises(ValueError):
        m.audit_mechanism(C.laplace_sum, E0, E1, claim_eps=-1)
    with pytest.raises(ValueError):
        m.audit_mechanism(lambda x, rng: float("nan"), E0, E1, claim_eps=1, n_select=100, n_estimate=100)
    with pytest.raises(ValueError):
        m.load_callable("no_colon")


def test_printed_ptr_thm4_2_used_as_a_bound_is_caught():
    """Seed 001 Theorem 4.2 as printed, ε = e^{1/b} + σ1√(2 ln(1.25/δ)), is small for small σ1 (it grows with the
    noise, erratum E4). A PTR run whose test passes releases f1(S) + N(0, σ1²); with σ1 = 0.2 the printed claim
    is ε ≈ 1.73 at δ0 + δ, while the true ε of the release is ≈ 20. The corrected form at a σ1 inside its own
    condition (σ1 = 4: ε ≈ 0.88) passes."""
    try:
        from dpspec.reference import catalogue
        from dpspec.reference.ptr.mechanisms import generalized_ptr

        st = catalogue.get("ptr.thm4_2")
    except Exception as exc:  # the PTR reference is written by another helper
        pytest.skip(f"ptr.thm4_2 not available: {exc}")
    b, delta0, delta = 10.0, 1e-8, 0.01

    def ptr(sigma1):
        def release(S, rng):
            _, y = generalized_ptr(rng, S, f1=np.sum, f2=np.sum, Delta=lambda _: 100.0, b=b, delta0=delta0,
                                   sigma1=sigma1, sigma2=sigma1)
            return y
        return release

    printed = float(st.evaluate(variant="printed", b=b, sigma1=0.2, delta0=delta0, delta=delta,
                                allow_outside=True).value)
    bug = m.audit_mechanism(ptr(0.2), E0, E1, claim_eps=printed, claim_delta=delta0 + delta, family="gaussian",
                            seed=1)
    assert bug.verdict == "violation", bug.reason
    corrected = float(st.evaluate(b=b, sigma1=4.0, delta0=delta0, delta=delta).value)
    ok = m.audit_mechanism(ptr(4.0), E0, E1, claim_eps=corrected, claim_delta=delta0 + delta, family="gaussian",
                           seed=1)
    assert ok.verdict == "consistent", ok.reason


# ---------------------------------------------------------------------------------------------------------
# Issue 12: flat Laplace tails decided by rounding; rare events at δ = 1e-5


def _readme_noisy_sum(x, rng):
    """README "Audits of third-party DP code": sum + Laplace(1) on (0,0,0) vs (0,0,3), true ε = 3."""
    return float(np.sum(x)) + rng.laplace(0.0, 1.0)


def test_laplace_flat_tail_rounding_is_not_an_event():
    """Seed 0 gave ε ≥ 3.934 on the README example (true ε = 3) and flagged the correct sum + Laplace(1) on
    (1,1,1,1,1) vs (1,1,1,1) at claim 1 (ε ≥ 2.048): the unclipped score's flat tails differed by rounding. With
    the clipped score both are within the truth; the score is exactly constant on the tails."""
    r = m.audit_mechanism(_readme_noisy_sum, [0, 0, 0], [0, 0, 3], 1.0, family="laplace", seed=0)
    assert r.verdict == "violation" and 2.0 < r.eps_lower_bound <= 3.0, r.reason
    ok = m.audit_mechanism(C.laplace_sum, E0, E1, claim_eps=C.EPS, family="laplace", seed=0)
    assert ok.verdict == "consistent" and ok.eps_lower_bound <= C.EPS, ok.reason
    x = np.array([[-50.0], [-7.3], [-1e-3], [20.25], [3e5]])
    score, _ = m.fit_score(np.zeros((3, 1)), np.full((3, 1), 3.0), "laplace")
    s = score(x)
    assert s[0] == s[1] == s[2] and s[3] == s[4] and s[0] > s[3]


def _gaussian_batched(sigma):
    def release(x, rng, size):
        return float(np.sum(x)) + sigma * rng.standard_normal(size)
    return release


def _sigma_1_1e5():
    from dpspec.reference import catalogue

    # σ(ε = 1, δ = 1e-5) of the exact Gaussian profile (base.gaussian_sigma: Balle & Wang 2018 Thm 8), ≈ 3.7306
    return float(catalogue.get("base.gaussian_sigma").evaluate(eps=1.0, delta=1e-5).value)


def test_gaussian_sigma_20_percent_small_caught_at_delta_1e5():
    """Claimed (1, 1e-5)-DP with σ 0.8 × the exact σ (true ε(1e-5) ≈ 1.28): the old search (401 quantiles of 4000
    selection draws, 10⁴ estimation draws) never saw the events that matter (probability ≈ 1e-4) and could not
    certify them; the tail-targeted search with the batched defaults (10⁵ + 10⁷ draws, seed 0) gives ε ≥ 1.13.
    The correct σ stays below its claim (0.89)."""
    sigma = _sigma_1_1e5()
    bug = m.audit_mechanism(_gaussian_batched(0.8 * sigma), E0, E1, 1.0, 1e-5, family="gaussian", seed=0)
    assert bug.verdict == "violation" and 1.0 < bug.eps_lower_bound < 1.28, bug.reason
    assert bug.n_estimate == 10**7 and bug.attack["how"] == "gaussian tail fit"
    ok = m.audit_mechanism(_gaussian_batched(sigma), E0, E1, 1.0, 1e-5, family="gaussian", seed=0)
    assert ok.verdict == "consistent", ok.reason


def test_batched_mechanism_shape_is_checked():
    with pytest.raises(ValueError, match="batched mechanism must return 5 outputs"):
        m.sample_outputs(lambda x, rng, size: np.zeros(size + 1), E0, 5, np.random.default_rng(0))


@pytest.mark.slow
def test_rates_over_seeds():
    """Opt-in (-m slow): seeds 0–9. Measured: σ 20 % small caught 10/10 (ε_LB 1.04–1.27), correct σ flagged 0/10;
    README Laplace example ε_LB ≤ 3 in 10/10 (2.72–2.99); correct sum + Laplace(1), claim 1, family laplace:
    flagged 0/10 (the old score, same seeds: 6/10 of the README bounds above 3, 4/10 of this pair flagged)."""
    sigma = _sigma_1_1e5()
    caught = sum(m.audit_mechanism(_gaussian_batched(0.8 * sigma), E0, E1, 1.0, 1e-5, family="gaussian",
                                   seed=s).verdict == "violation" for s in range(10))
    false = sum(m.audit_mechanism(_gaussian_batched(sigma), E0, E1, 1.0, 1e-5, family="gaussian",
                                  seed=s).verdict == "violation" for s in range(10))
    above3 = sum(m.audit_mechanism(_readme_noisy_sum, [0, 0, 0], [0, 0, 3], 1.0, family="laplace",
                                   seed=s).eps_lower_bound > 3 for s in range(10))
    lap = sum(m.audit_mechanism(C.laplace_sum, E0, E1, C.EPS, family="laplace", seed=s).verdict == "violation"
              for s in range(10))
    assert caught >= 9 and false <= 1 and above3 <= 1 and lap <= 1, (caught, false, above3, lap)
