"""OPS ridge regression with generalized PTR (seed 003 Thm 3.6.1, Ex 3.6.2, Alg 14, Alg 15 / Thm B.4.1, Lemmas B.4.2,
B.4.3): the notes' §5.2 vectors, the exact check of Thm 3.6.1 on the worst-case witness pair (corrected form ≤ δ, the
printed form above δ), the reference algorithms, and the random-data checks of the lemmas. Deterministic (fixed
seeds); the Monte Carlo tests state their sample sizes."""
from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, ParameterError
from dpspec.reference.gptr import ops
from dpspec.reference.gptr import regression_algorithms as RA

catalogue.load_all()
CASES = [(c, o) for c in ("add", "remove") for o in ("PQ", "QP")]


def worst_ratio(eps, params, delta):
    """max over the four neighbour/order pairs of the exact δ(eps) of the witness, divided by delta."""
    return max(ops.ops_pair_profile(eps, *params, case=c, order=o) for c, o in CASES) / mpf(delta)


# ---------------------------------------------------------------------------------------------------------------
# notes §5.2: γ* of the printed Thm 3.6.1 (‖𝒳‖ = 1)

@pytest.mark.parametrize("eps, delta, lam, lam_min, L, expected", [
    (1, "1e-6", 100, 50, 2, "2.18466"),
    ("0.5", "1e-6", 100, 50, 2, "0.50410"),
    (1, "1e-6", 10, 5, 2, "0.058497"),
    ("0.1667", "2.75e-22", 1000, 500, "1.5", "0.29547"),
])
def test_gamma_star_vectors_of_the_notes(eps, delta, lam, lam_min, L, expected):
    st = catalogue.get("gptr.thm3_6_1_gamma")
    got = st.evaluate(variant="printed", eps=eps, delta=delta, lam=lam, lam_min=lam_min, L=L, x_norm=1).value
    assert abs(got / mpf(expected) - 1) < 5e-5
    try:
        corrected = st.evaluate(eps=eps, delta=delta, lam=lam, lam_min=lam_min, L=L, x_norm=1).value
    except ConditionError:  # (1, 1e-6, 10, 5, 2): the corrected γ-free term 1.034 already exceeds ε = 1
        assert (eps, lam) == (1, 10)
        return
    assert 0 < corrected < got  # the corrected bound is larger, so less γ fits the same ε


def test_gamma_star_meets_its_budget_exactly():
    with mpmath.workdps(40):
        for eps, lam, lm, L, x, d in [(1, 100, 50, 2, 1, "1e-6"), (3, 1000, 5000, 5, 2, "1e-300")]:
            eps, lam, lm, L, x, d = (mpf(v) for v in (eps, lam, lm, L, x, d))
            g = ops.ops_gamma_star(eps, lam, lm, L, x, d)
            assert abs(ops.ops_epsilon(g, lam, lm, L, x, d) - eps) < mpf(10) ** -30
            assert ops.ops_epsilon(g * (1 + mpf(10) ** -6), lam, lm, L, x, d) > eps


def test_corrected_form_is_the_printed_form_at_delta_squared_over_two():
    """2 log(2/δ) = log(2/(δ²/2)): the default at δ equals the printed expression at δ²/2."""
    with mpmath.workdps(50):
        for point in [(1, 10, 5, 2, 1, "1e-6"), ("0.3", "0.5", 0, 7, 3, "1e-20")]:
            g, lam, lm, L, x, d = (mpf(v) for v in point)
            corrected = ops.ops_epsilon(g, lam, lm, L, x, d)
            assert abs(corrected - ops.ops_epsilon_printed(g, lam, lm, L, x, d * d / 2)) < mpf(10) ** -40 * corrected


def test_infeasible_budget_is_refused_not_answered():
    st = catalogue.get("gptr.thm3_6_1_gamma")
    with pytest.raises(ConditionError, match="gamma_feasible"):
        st.evaluate(eps="0.01", lam=10, lam_min=5, L=2, x_norm=1, delta="1e-6")
    with pytest.raises(ConditionError, match=r"gamma_feasible.*γ-free term is 1\.0"):  # (1 + 2 log 2e6)/30 = 1.0339
        ops.ops_gamma_star(mpf(1), mpf(10), mpf(5), mpf(2), mpf(1), mpf("1e-6"))
    assert ops.ops_gamma_star_printed(mpf(1), mpf(10), mpf(5), mpf(2), mpf(1), mpf("1e-6")) > 0  # printed: 0.517 < 1
    with pytest.raises(ConditionError, match="lambda_star_positive"):
        catalogue.get("gptr.thm3_6_1").evaluate(gamma=1, lam=0, lam_min=0, L=1, x_norm=1, delta="1e-6")


# ---------------------------------------------------------------------------------------------------------------
# Thm 3.6.1 against the exact privacy loss of the worst-case witness pair

GRID = list(itertools.product([1e-4, 1, 100], [0.1, 10], [0, 100], [0.1, 10], [0.3, 3], ["1e-2", "1e-6", "1e-50"]))


def test_corrected_thm3_6_1_bounds_the_exact_delta_on_the_witness():
    """288 points × 4 pairs (add/remove, both orders), exact hockey-stick at the claimed ε: δ(ε) ≤ δ everywhere (the
    largest ratio is about 0.09)."""
    worst = mpf(0)
    with mpmath.workdps(60):
        for g, lam, lm, L, x, d in GRID:
            eps = ops.ops_epsilon(g, lam, lm, L, x, mpf(d))
            worst = max(worst, worst_ratio(eps, (g, lam, lm, L, x), d))
    assert worst < 0.2, worst


@pytest.mark.parametrize("params, delta, at_least", [
    ((100, 1, 0, 10, "0.1"), "1e-2", mpf("1.03")),      # the mean shift: √(log(2/δ)) < Φ̄⁻¹(δ)
    (("0.01", "0.1", 0, "0.5", 3), "1e-6", mpf(50)),     # the covariance shape: a χ² tail with half its log
    ((100, 1, 0, 10, "0.1"), "1e-12", mpf(10) ** 4),
])
def test_printed_thm3_6_1_exceeds_its_delta_on_the_witness(params, delta, at_least):
    with mpmath.workdps(60):
        eps = catalogue.get("gptr.thm3_6_1").evaluate(
            variant="printed", dps=60, gamma=params[0], lam=params[1], lam_min=params[2], L=params[3],
            x_norm=params[4], delta=delta).value
        assert worst_ratio(eps, params, delta) >= at_least


def test_witness_sampler_matches_the_exact_profile():
    """Monte Carlo of the witness's own sampler and log-densities (n = 400 000, seed 3) against ops_pair_profile
    at a point where δ(ε) ≈ 1e-2: within 6 binomial-style standard errors."""
    w = catalogue.get_witness("gptr.ops_ridge")
    rng = np.random.default_rng(3)
    p = dict(gamma=1, lam=10, lam_min=5, L=2, x_norm=1)
    eps = 1.0
    for case, order in CASES:
        o = w.sample(rng, 400_000, **p, case=case, order=order)
        loss = w.log_p(o, **p, case=case, order=order) - w.log_q(o, **p, case=case, order=order)
        x = np.maximum(0.0, 1 - np.exp(np.minimum(eps - loss, 50)))
        exact = float(ops.ops_pair_profile(eps, *p.values(), case=case, order=order))
        assert abs(x.mean() - exact) <= 6 * x.std() / math.sqrt(x.size) + 1e-12, (case, order, x.mean(), exact)


def test_witness_dataset_has_the_statements_lambda_min_and_L():
    """The witness's sufficient statistics realise λ_min(XᵀX) = λ_min and L(X, Y) = L at X (module docstring)."""
    for case in ("add", "remove"):
        g, lam, lm, L, x = 1.0, 2.0, 3.0, 5.0, 1.5
        (mean_x, prec_x), _ = ops.ops_pair_statistics(g, lam, lm, L, x, case, "PQ")
        h_x = prec_x / g - lam
        assert abs(h_x.min() - lm) < 1e-12
        y_bound = L / x if case == "add" else L / (x * (1 + x * x / (lm + x * x + lam)))
        assert abs(x * (x * np.linalg.norm(mean_x) + y_bound) - L) < 1e-12


# ---------------------------------------------------------------------------------------------------------------
# Lemmas B.4.2 and B.4.3 on random data


def _random_data(rng, n, d, x_norm=1.0):
    X = rng.standard_normal((n, d))
    X *= (x_norm * rng.uniform(0.2, 1.0, n) / np.linalg.norm(X, axis=1))[:, None]
    y = rng.uniform(-1, 1, n)
    return X, y


def test_lemma_b4_2_local_sensitivity_on_random_neighbours():
    """300 random data sets (n ∈ [2, 20), d ∈ {1, 2, 3}, λ ∈ {0.1, 1.5, 3, 10}), each with one added and one removed
    point (seed 11), ‖𝒳‖ = ‖𝒴‖ = 1: the corrected |Δ(X) − Δ(X′)| ≤ log(1 + ‖𝒳‖²/(λ + λ_min(X) − ‖𝒳‖²)) holds for both;
    the printed log(1 + ‖𝒳‖²/(λ + λ_min(X))) holds for added points and fails for some removed one."""
    rng = np.random.default_rng(11)
    worst = {"add": 0.0, "remove": 0.0}
    worst_printed = {"add": 0.0, "remove": 0.0}
    one = mpf(1)
    for _ in range(300):
        n, d, lam = int(rng.integers(2, 20)), int(rng.integers(1, 4)), float(rng.choice([0.1, 1.5, 3, 10]))
        X, y = _random_data(rng, n, d)
        z, yz = _random_data(rng, 1, d)
        lm = mpf(RA.lambda_min(X))
        ls = float(ops.lemma_b4_2(mpf(lam), lm, one)) if lam + lm > 1 else math.inf  # outside its condition
        ls_printed = float(ops.lemma_b4_2_printed(mpf(lam), lm, one))
        here = RA.log_lipschitz(X, y, lam, 1, 1)
        for case, (Xn, yn) in (("add", (np.vstack([X, z]), np.append(y, yz))), ("remove", (X[1:], y[1:]))):
            change = abs(RA.log_lipschitz(Xn, yn, lam, 1, 1) - here)
            worst[case] = max(worst[case], change / ls)
            worst_printed[case] = max(worst_printed[case], change / ls_printed)
    assert max(worst.values()) <= 1 + 1e-12, worst
    assert worst_printed["add"] <= 1 + 1e-12 < worst_printed["remove"], worst_printed
    st = catalogue.get("gptr.lemma_b4_2")
    with pytest.raises(ConditionError, match="removal_lambda_positive"):
        st.evaluate(lam="0.5", lam_min="0.5", x_norm=1)
    assert abs(float(st.evaluate(variant="printed", lam="0.5", lam_min="0.5", x_norm=1).value) - math.log(2)) < 1e-15


def test_weyl_and_lemma_b4_3_on_random_matrices():
    """Weyl (Lemma B.4.3): max_i |σ_i(A) − σ_i(A + E)| ≤ ‖E‖₂ on 200 random pairs; and |Δλ_min(XᵀX)| ≤ ‖𝒳‖² when a row
    of norm ≤ ‖𝒳‖ is added (seed 5), with equality in d = 1."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        m, n = int(rng.integers(2, 7)), int(rng.integers(1, 5))
        m = max(m, n)
        A, E = rng.standard_normal((m, n)), rng.standard_normal((m, n)) * rng.uniform(0.01, 2)
        gap = np.max(np.abs(np.linalg.svd(A, compute_uv=False) - np.linalg.svd(A + E, compute_uv=False)))
        assert gap <= np.linalg.norm(E, 2) * (1 + 1e-12)
        X, _ = _random_data(rng, m, n, x_norm=2.0)
        z, _ = _random_data(rng, 1, n, x_norm=2.0)
        assert abs(RA.lambda_min(np.vstack([X, z])) - RA.lambda_min(X)) <= float(ops.lemma_b4_3(mpf(2))) + 1e-9
    X = np.array([[0.5], [1.0]])
    assert float(catalogue.get("gptr.lemma_b4_3").evaluate(x_norm=2).value) == 4.0
    assert abs(RA.lambda_min(np.vstack([X, [[2.0]]])) - RA.lambda_min(X) - float(ops.lemma_b4_3(mpf(2)))) < 1e-12


# ---------------------------------------------------------------------------------------------------------------
# Alg 15 / Thm B.4.1 (E7) and Ex 3.6.2


@pytest.mark.parametrize("eps, expected", [("0.1", 5.7e-8), ("0.5", 3.0e-7), (1, 6.4e-7), (2, 1.44e-6)])
def test_alg15_printed_calibration_delta_table(eps, expected):
    """notes §5.2 (E7): the exact δ at ε/4 of σ/Δ = √log(6/δ)/(ε/4), δ = 1e-6; the analytic σ gives δ/6 exactly."""
    with mpmath.workdps(40):
        e, d = mpf(eps), mpf("1e-6")
        got = ops.release_delta(e / 4, 1, ops.alg15_sigma_printed(e, d))
        assert abs(got / expected - 1) < 0.05
        assert abs(ops.release_delta(e / 4, 1, ops.alg15_sigma(e, d)) / (d / 6) - 1) < mpf(10) ** -20


def test_thm_b4_1_accounting():
    st = catalogue.get("gptr.thm_b4_1")
    for eps in ("0.1", 1, 2):
        eps_total, delta_total = st.evaluate(eps=eps, delta="1e-6").value
        assert float(eps_total) == float(eps) and delta_total <= mpf("1e-6")
        printed = st.evaluate(variant="printed_calibration", eps=eps, delta="1e-6").value[1]
        assert printed > mpf("1e-6")  # the printed algorithm misses its δ (E7 and the Thm 3.6.1 tail)
    # without the OPS tail the releases alone exceed δ at ε = 2 (E7): 2·1.44e-6 > 1e-6
    assert 2 * ops.release_delta(mpf("0.5"), 1, ops.alg15_sigma_printed(mpf(2), mpf("1e-6"))) > mpf("1e-6")


def test_ex3_6_2_sum_and_max_forms():
    st = catalogue.get("gptr.ex3_6_2")
    p = dict(eps=1, eps_hat="0.5", delta="1e-6", delta_hat="2e-6", delta_prime_1="3e-7", delta_prime_2="4e-7")
    with mpmath.workdps(50):
        assert st.evaluate(**p).value == (mpf("1.5"), mpf("3.7e-6"))
        assert st.evaluate(variant="max_form", **p).value == (mpf("1.5"), mpf("3e-6"))
        p["delta_prime_2"] = "9e-7"  # δ′ = 1.2e-6 > δ: the max form takes δ′
        assert st.evaluate(variant="max_form", **p).value[1] == mpf("3.2e-6")


def test_alg14_epsilon_is_thm3_6_1_at_the_private_bounds():
    with mpmath.workdps(50):
        a = catalogue.get("gptr.alg14").evaluate(gamma=2, lam=10, lam_min_p=3, Delta_p="0.4", x_norm=2, delta="1e-6")
        b = catalogue.get("gptr.thm3_6_1").evaluate(gamma=2, lam=10, lam_min=3, L=2 * mpmath.exp(mpf("0.4")),
                                                     x_norm=2, delta="1e-6")
        assert abs(a.value - b.value) < mpf(10) ** -40


# ---------------------------------------------------------------------------------------------------------------
# reference algorithms


def _regression_data(seed=0, n=400, d=3):
    rng = np.random.default_rng(seed)
    X, _ = _random_data(rng, n, d)
    y = np.clip(X @ np.array([0.5, -0.3, 0.2][:d]) + 0.1 * rng.standard_normal(n), -1, 1)
    return X, y


def test_ops_sample_has_the_posterior_mean_and_covariance():
    """n = 5 000 draws (seed 2): the sample mean within 5 standard errors of θ*_λ, the covariance within 10 % (the
    relative standard error of a variance at n = 5000 is 2 %)."""
    X, y = _regression_data()
    rng = np.random.default_rng(2)
    draws = np.array([RA.ops_sample(X, y, 5.0, 3.0, rng) for _ in range(5_000)])
    h_lam, theta = RA.ridge(X, y, 5.0)
    cov = np.linalg.inv(3.0 * h_lam)
    assert np.all(np.abs(draws.mean(0) - theta) <= 5 * np.sqrt(np.diag(cov) / len(draws)))
    assert np.allclose(np.cov(draws.T), cov, rtol=0.1, atol=0.1 * np.abs(cov).max())


def test_alg14_and_alg15_release_and_account():
    X, y = _regression_data()
    theta, acc = RA.alg14_ops_ptr(X, y, 10.0, eps=1, delta=1e-6, eps_hat=1, delta_hat=1e-6, delta_prime_1=5e-7,
                                  delta_prime_2=5e-7, rng=np.random.default_rng(0))
    assert theta is not None and acc["gamma"] > 0 and acc["lam_min_p"] <= RA.lambda_min(X)
    assert acc["Delta_p"] >= RA.log_lipschitz(X, y, 10.0, 1, 1)
    assert (acc["eps"], acc["delta"]) == (2.0, pytest.approx(3e-6))
    for cal in RA.CALIBRATIONS:
        theta, acc = RA.alg15_ops_ptr(X, y, 10.0, eps=2, delta=1e-6, rng=np.random.default_rng(1), calibration=cal)
        assert theta is not None and acc["gamma"] > 0
        assert (acc["delta"] <= 1e-6) == (cal == "analytic")
    # a budget no γ meets gives ⊥ with the reason, not a release
    theta, acc = RA.alg14_ops_ptr(X[:5], y[:5], 0.1, eps=0.1, delta=1e-6, eps_hat=1, delta_hat=1e-6,
                                  delta_prime_1=5e-7, delta_prime_2=5e-7, rng=np.random.default_rng(0))
    assert theta is None and acc["reason"]


def test_algorithms_refuse_bad_data_instead_of_clipping():
    X, y = _regression_data()
    with pytest.raises(ParameterError, match="norm"):
        RA.alg15_ops_ptr(2 * X, y, 10.0, eps=1, delta=1e-6, rng=np.random.default_rng(0))
    with pytest.raises(ParameterError, match="calibration"):
        RA.alg15_ops_ptr(X, y, 10.0, eps=1, delta=1e-6, rng=np.random.default_rng(0), calibration="classical")
    with pytest.raises(ParameterError, match="delta_hat"):
        RA.alg14_ops_ptr(X, y, 10.0, eps=1, delta=1e-6, eps_hat=1, delta_hat=0, delta_prime_1=5e-7,
                         delta_prime_2=5e-7, rng=np.random.default_rng(0))


def test_outpert_sensitivity_bounds_random_neighbours():
    """OutPert's Δ (Prop B.3.12 with ‖θ*‖ ≤ ‖𝒴‖√(n/λ)) bounds ‖θ*(X) − θ*(X′)‖ on 200 random add/remove pairs."""
    rng = np.random.default_rng(9)
    for _ in range(200):
        n, d, lam = int(rng.integers(2, 30)), int(rng.integers(1, 4)), float(rng.choice([0.5, 2, 20]))
        X, y = _random_data(rng, n, d)
        z, yz = _random_data(rng, 1, d)
        _, t0 = RA.ridge(X, y, lam)
        _, t1 = RA.ridge(np.vstack([X, z]), np.append(y, yz), lam)
        assert np.linalg.norm(t1 - t0) <= RA.outpert_sensitivity(lam, 1, 1, n) * (1 + 1e-12)
    theta, acc = RA.outpert(*_regression_data(), 10.0, eps=1, delta=1e-6, rng=np.random.default_rng(0))
    assert theta.shape == (3,) and acc["sigma"] > acc["sensitivity"]


def test_a_gamma_below_the_smallest_double_is_bottom_not_a_crash():
    """Δ^P above 709 (small λ and ε) made L̃ = ‖𝒳‖e^Δ overflow a double (OverflowError in Alg 14/15, found by the
    figures of session 15); L̃ is an mpf now, and a γ* below the smallest double gives ⊥ with its reason (the sample's
    variance 1/γ* is not a number; ⊥ is post-processing of the released statistics)."""
    import mpmath
    import numpy as np

    from dpspec.reference.gptr import regression_algorithms as R

    X = np.eye(2) / 2
    out, acc = R._sample_or_underflow(X, np.zeros(2), 1.0, mpmath.mpf("1e-400"), np.random.default_rng(0), 1.0, {})
    assert out is None and "underflows" in acc["reason"]
    out, acc = R._sample_or_underflow(X, np.zeros(2), 1.0, mpmath.mpf(2), np.random.default_rng(0), 1.0, {})
    assert out is not None and acc["gamma"] == 2.0
