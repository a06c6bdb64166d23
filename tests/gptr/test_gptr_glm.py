"""GLMs with generalized PTR and DP-PCA (seed 003, App B.3.2–B.3.4: Lemma B.3.4, Ex B.3.5, Thm B.3.6, Rem B.3.7,
Ex B.3.8, Thm B.3.9, Thm B.3.11, Prop B.3.12, Thm B.3.13): the notes' §5.2 vectors (γ* of Rem B.3.7, the E7
calibration table), the squared-loss exact check of Thm B.3.6, random-instance checks of B.3.4, B.3.11, B.3.12, and
the Ex B.3.8 reference algorithm. Deterministic (fixed seeds)."""
from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, ParameterError
from dpspec.reference.gptr import glm, ops, pca
from dpspec.reference.gptr import regression_algorithms as RA

catalogue.load_all()
CASES = [(c, o) for c in ("add", "remove") for o in ("PQ", "QP")]


# ---------------------------------------------------------------------------------------------------------------
# Rem B.3.7 γ* (notes §5.2: ε/2 = 0.5, δ/2 = 5e-7)

@pytest.mark.parametrize("alpha, expected", [(100, "0.56039"), (1000, "14.2539")])
def test_logistic_gamma_star_vectors_of_the_notes(alpha, expected):
    st = catalogue.get("gptr.rem_b3_7_gamma")
    got = st.evaluate(variant="printed", eps="0.5", alpha_sc=alpha, delta="5e-7").value
    assert abs(got / mpf(expected) - 1) < 5e-5
    with mpmath.workdps(40):  # γ* meets the printed Rem B.3.7 with equality
        e = glm.logistic_epsilon_printed(mpf(alpha), got, mpf("5e-7"))
        assert abs(e - mpf("0.5")) < mpf(10) ** -12


def test_logistic_gamma_star_infeasible_at_alpha_30():
    """α = 30 < 1.25(1 + log(4e6))/0.5 = 40.5 (printed) and < 78.5 (corrected): refused, never 0."""
    st = catalogue.get("gptr.rem_b3_7_gamma")
    for variant in ("printed", None):
        with pytest.raises(ConditionError, match="gamma_feasible"):
            st.evaluate(variant=variant, eps="0.5", alpha_sc=30, delta="5e-7")
    threshold = 1.25 * (1 + float(mpmath.log(4e6))) / 0.5
    assert 40.4 < threshold < 40.6
    st.evaluate(variant="printed", eps="0.5", alpha_sc=41, delta="5e-7")  # just above: answers
    with pytest.raises(ConditionError, match=r"α = 30\.0"):
        glm.logistic_gamma_star(mpf("0.5"), mpf(30), mpf("5e-7"))


def test_corrected_logistic_forms_are_the_printed_ones_at_delta_squared_over_two():
    with mpmath.workdps(50):
        a, g, d = mpf(150), mpf(2), mpf("1e-6")
        assert abs(glm.logistic_epsilon(a, g, d) - glm.logistic_epsilon_printed(a, g, d * d / 2)) < mpf(10) ** -40
        rem = catalogue.get("gptr.rem_b3_7").evaluate(alpha_sc=150, gamma=2, delta="1e-6", dps=50).value
        assert abs(rem - glm.glm_epsilon(1, 1, mpf(1) / 4, a, g, d)) < mpf(10) ** -40
        assert abs(glm.logistic_gamma_star(mpf("0.5"), mpf(1000), d)
                   - glm.logistic_gamma_star_printed(mpf("0.5"), mpf(1000), d * d / 2)) < mpf(10) ** -35


# ---------------------------------------------------------------------------------------------------------------
# Thm B.3.6 on the squared loss (the OPS witness pair is output perturbation with l = (y − s)²/2)


def _glm_worst_ratio(fn, R, L, alpha, gamma, delta):
    with mpmath.workdps(60):
        eps = fn(mpf(R), mpf(L), mpf(1), mpf(alpha), mpf(gamma), mpf(delta))
        return max(ops.ops_pair_profile(eps, gamma, alpha, 0, L, 1, case=c, order=o) for c, o in CASES) / mpf(delta)


@pytest.mark.parametrize("R, L, alpha, gamma, delta, at_least", [
    ("1e-3", "0.1", "0.5", "1e-4", "1e-6", 1e5),   # the shape term R(L + β) vanishes as R → 0
    (1, "0.01", 10000, 1000000, "1e-40", 1e15),    # the mean term √(γL² log(2/δ)/α) misses √2
])
def test_printed_thm_b3_6_exceeds_its_delta_on_the_squared_loss(R, L, alpha, gamma, delta, at_least):
    assert _glm_worst_ratio(glm.glm_epsilon_printed, R, L, alpha, gamma, delta) > at_least


def test_corrected_thm_b3_6_bounds_the_squared_loss_inside_its_condition():
    """R ∈ {1/2, 1, 2} (R(L + β) ≥ β/2 with β = 1), 72 points × 4 pairs: exact δ(ε) ≤ δ."""
    worst = 0
    for R, L, alpha, gamma, delta in itertools.product(["0.5", 1, 2], ["0.01", 1, 10], [1, 10000], [1e-4, 100],
                                                       ["1e-2", "1e-12"]):
        assert 2 * mpf(R) * (mpf(L) + 1) >= 1
        worst = max(worst, _glm_worst_ratio(glm.glm_epsilon, R, L, alpha, gamma, delta))
    assert worst <= 1, worst


def test_thm_b3_6_refuses_outside_its_shape_condition():
    st = catalogue.get("gptr.thm_b3_6")
    with pytest.raises(ConditionError, match="shape_term"):
        st.evaluate(R="1e-3", L="0.1", beta=1, alpha_sc=1, gamma=1, delta="1e-6")
    assert st.evaluate(variant="printed", R="1e-3", L="0.1", beta=1, alpha_sc=1, gamma=1, delta="1e-6").value > 0


# ---------------------------------------------------------------------------------------------------------------
# Ex B.3.8 / Thm B.3.9: the λ_min release calibration (E7)

@pytest.mark.parametrize("eps, delta, expected, meets", [
    ("0.1", "1e-5", 5.8e-7, True), ("0.5", "1e-6", 8.08e-7, False), (1, "1e-5", 7.22e-6, False),
    (2, "1e-6", 4.67e-6, False),
])
def test_ex_b3_8_printed_calibration_table(eps, delta, expected, meets):
    """notes §5.2 (E7): the exact δ at ε/2 of σ = Δ√log(4/δ)/(ε/2) against δ/2; the corrected σ gives δ/2."""
    st = catalogue.get("gptr.ex_b3_8")
    with mpmath.workdps(40):
        e, d = mpf(eps), mpf(delta)
        printed = st.evaluate(variant="printed", eps=eps, delta=delta, sensitivity="2.25").value
        got = ops.release_delta(e / 2, mpf("2.25"), printed)
        assert abs(got / expected - 1) < 0.01 and (got <= d / 2) == meets
        corrected = st.evaluate(eps=eps, delta=delta, sensitivity="2.25").value
        assert abs(ops.release_delta(e / 2, mpf("2.25"), corrected) / (d / 2) - 1) < mpf(10) ** -20
        assert (corrected > printed) == (not meets)


def test_thm_b3_9_accounting():
    st = catalogue.get("gptr.thm_b3_9")
    for eps in ("0.1", 1, 2):
        value = st.evaluate(eps=eps, delta="1e-6").value
        assert float(value[0]) == float(eps) and mpf("1e-6") < value[1] <= mpf("2e-6")
        assert float(st.evaluate(variant="printed", eps=eps, delta="1e-6").value[1]) == 2e-6
    # the printed algorithm (printed σ and printed Rem B.3.7) is far from (ε, 2δ): √δ = 1e-3 from the tail alone
    assert st.evaluate(variant="printed_calibration", eps=2, delta="1e-6").value[1] > mpf("1e-3")
    assert ops.release_delta(mpf(1), 1, glm.ex_b3_8_sigma_printed(mpf(2), mpf("1e-6"), 1)) > 2 * mpf("1e-6")


def test_lmin_margin_false_positive_is_below_delta():
    """P[λ^p_min > λ_min] = Φ̄(√(2 log(1/δ))) ≤ δ for the shift σ√(2 log(1/δ)), at every δ tried."""
    for d in ("0.3", "1e-6", "1e-300"):
        assert glm._lmin_false_positive(mpf(d)) <= mpf(d)


# ---------------------------------------------------------------------------------------------------------------
# Thm B.3.11, Prop B.3.12, Lemma B.3.4, Ex B.3.5 on random instances


def _logistic_data(rng, n, d):
    X = rng.standard_normal((n, d))
    X *= (rng.uniform(0.1, 1.0, n) / np.linalg.norm(X, axis=1))[:, None]
    return X, rng.choice([-1.0, 1.0], n)


def test_thm_b3_11_on_random_logistic_instances():
    """300 random add-one-point instances (seed 4; n ∈ [3, 30), d ∈ {1, 2, 3}, λ ∈ {1, 1.5, 3}): |λ_min(∇²F(θ*)) −
    λ_min(∇²F̃(θ̃*))| ≤ 2RL + β = 2.25 (the regulariser's λ cancels in the difference)."""
    bound = float(catalogue.get("gptr.thm_b3_11").evaluate(R=1, L=1, beta="0.25", lam=1).value)
    rng = np.random.default_rng(4)
    worst = 0.0
    for _ in range(300):
        n, d, lam = int(rng.integers(3, 30)), int(rng.integers(1, 4)), float(rng.choice([1, 1.5, 3]))
        X, y = _logistic_data(rng, n, d)
        z, yz = _logistic_data(rng, 1, d)
        _, h0 = RA.logistic_fit(X, y, lam)
        _, h1 = RA.logistic_fit(np.vstack([X, z]), np.append(y, yz), lam)
        worst = max(worst, abs(np.linalg.eigvalsh(h1)[0] - np.linalg.eigvalsh(h0)[0]))
    assert worst <= bound and bound == 2.25
    with pytest.raises(ConditionError, match="lambda_ge_RL"):
        catalogue.get("gptr.thm_b3_11").evaluate(R=1, L=1, beta="0.25", lam="0.5")
    lit = catalogue.get("gptr.thm_b3_11").evaluate(variant="literal_definition", R="0.5", L=1, beta="0.25", lam=1)
    assert lit.value == bound  # Def B.3.3's R = 1/2 for logistic (E6): 4RL + β gives the same 2.25


def test_prop_b3_12_on_random_strongly_convex_quadratics():
    """200 pairs F = ½θᵀAθ − bᵀθ, f = ½θᵀBθ − cᵀθ (B ⪰ 0; seed 6): ‖θ* − θ̃*‖ ≤ min(‖∇f(θ̃*)‖/α, ‖∇f(θ*)‖/α̃)."""
    rng = np.random.default_rng(6)
    st = catalogue.get("gptr.prop_b3_12")
    for _ in range(200):
        d = int(rng.integers(1, 5))
        M, N = rng.standard_normal((d, d)), rng.standard_normal((d, d)) * rng.uniform(0, 2)
        A, B = M @ M.T + rng.uniform(0.1, 2) * np.eye(d), N @ N.T
        b, c = rng.standard_normal(d), rng.standard_normal(d)
        t0, t1 = np.linalg.solve(A, b), np.linalg.solve(A + B, b + c)
        grad = lambda t: B @ t - c  # noqa: E731
        alpha, alpha_t = np.linalg.eigvalsh(A)[0], np.linalg.eigvalsh(A + B)[0]
        bound = float(st.evaluate(g=float(np.linalg.norm(grad(t0))), g_tilde=float(np.linalg.norm(grad(t1))),
                                  alpha_F=float(alpha), alpha_Ft=float(alpha_t)).value)
        assert np.linalg.norm(t0 - t1) <= bound * (1 + 1e-9) + 1e-12


def test_lemma_b3_4_on_the_logistic_hessian():
    """Random logistic data (seed 8), θ and steps v: the eigenvalues of H(θ)^{-1/2}H(θ+v)H(θ)^{-1/2} lie in
    [e^{−‖v‖}, e^{‖v‖}] (R = 1, ‖x‖ ≤ 1, Bach's convention); the standard form's factor (1 − R‖v‖)^{−2} is larger."""
    rng = np.random.default_rng(8)
    st = catalogue.get("gptr.lemma_b3_4")
    for _ in range(100):
        d = int(rng.integers(1, 4))
        X, y = _logistic_data(rng, 20, d)
        theta, v = rng.standard_normal(d), rng.standard_normal(d) * rng.uniform(0.01, 3)

        def hessian(t):
            p = 0.5 * (1 - np.tanh(y * (X @ t) / 2))
            return (X * (p * (1 - p))[:, None]).T @ X

        h0, h1 = hessian(theta), hessian(theta + v)
        w, U = np.linalg.eigh(h0)
        root = U @ np.diag(w ** -0.5) @ U.T
        ev = np.linalg.eigvalsh(root @ h1 @ root)
        factor = float(st.evaluate(R=1, v_norm=float(np.linalg.norm(v))).value)
        assert 1 / factor * (1 - 1e-9) <= ev.min() and ev.max() <= factor * (1 + 1e-9)
    assert st.evaluate(variant="standard", R=1, v_norm="0.5").value > st.evaluate(R=1, v_norm="0.5").value
    with pytest.raises(ConditionError, match="step_small"):
        st.evaluate(variant="standard", R=2, v_norm="0.5")


def test_ex_b3_5_ratio_is_tanh_and_below_one():
    st = catalogue.get("gptr.ex_b3_5")
    with mpmath.workdps(40):
        for s in ("-700", "-3", "0", "0.5", "40", "1e300"):
            r = st.evaluate(s=s).value
            assert r <= 1 and abs(r - abs(mpmath.tanh(mpf(s) / 2))) < mpf(10) ** -30
            x = mpf(s)  # against the printed derivatives e^s(1 − e^s)/(1 + e^s)³ and e^s/(1 + e^s)², moderate s
            if abs(x) < 50:
                e = mpmath.exp(x)
                assert abs(r - abs(e * (1 - e) / (1 + e) ** 3) / (e / (1 + e) ** 2)) < mpf(10) ** -30


@pytest.mark.parametrize("s", ["1e-12", "-1e-52", "1.3e-52", "1e-300", "-3e-5"])
def test_ex_b3_5_keeps_its_digits_at_small_margins(s):
    """l‴ = e^{−|s|}·(−expm1(−|s|))/(1 + e^{−|s|})³·sign(−s): no cancellation in 1 − e^{−|s|} (which raised a
    PrecisionError at s = 1e-12 and gave 0 at |s| = 1e-52, 50 digits). The ratio is |tanh(s/2)| ≈ |s|/2 to the
    working precision, and l‴(s) ≈ −s/8 (its Taylor series −s/8 + s³/32 − …)."""
    st = catalogue.get("gptr.ex_b3_5")
    x = mpf(s)
    r = st.evaluate(s=s).value
    assert r > 0 and abs(r / abs(mpmath.tanh(x / 2)) - 1) < mpf(10) ** -45
    assert abs(glm.logistic_l3(x) / (-x / 8) - 1) < mpf(10) ** -8


# ---------------------------------------------------------------------------------------------------------------
# Thm B.3.13 (E13)


def test_thm_b3_13_conditions_and_analytic_variant():
    st = catalogue.get("gptr.thm_b3_13")
    with pytest.raises(ConditionError, match="eigengap_above_two"):
        st.evaluate(d_k=2, sigma=5, delta="1e-5")
    with pytest.raises(ConditionError, match="classical_gaussian"):
        st.evaluate(d_k=3, sigma="0.1", delta="1e-5")  # ε(A) = 2√log(1.25e5)/0.1 ≈ 68 > 1
    classical = st.evaluate(d_k=50, sigma=5, delta="1e-5").value
    analytic = st.evaluate(variant="analytic", d_k=50, sigma=5, delta="1e-5").value
    assert 0 < analytic < classical <= 1
    with mpmath.workdps(30):  # the exact δ of the release at the classical ε is below δ
        assert ops.release_delta(classical, pca.pca_sensitivity(mpf(50)), mpf(5)) <= mpf("1e-5")
    assert st.evaluate(variant="analytic", d_k=3, sigma="0.1", delta="1e-5").value > 1  # no ε ≤ 1 needed there


# ---------------------------------------------------------------------------------------------------------------
# Ex B.3.8 reference algorithm


def test_ex_b3_8_logistic_ptr_releases_or_refuses():
    rng = np.random.default_rng(0)
    X, _ = _logistic_data(rng, 3000, 2)
    X = X / np.linalg.norm(X, axis=1)[:, None]  # unit rows: a large λ_min
    y = np.sign(X @ np.array([0.3, -0.3]) + rng.standard_normal(3000))  # weak signal: l'' ≈ 1/4, λ_min ≈ 350
    theta_star, hess = RA.logistic_fit(X, y, 5.0)
    grad = -(X.T @ (y * 0.5 * (1 - np.tanh(y * (X @ theta_star) / 2)))) + 5.0 * theta_star
    assert np.linalg.norm(grad) < 1e-9
    for cal in RA.CALIBRATIONS:
        theta, acc = RA.ex_b3_8_logistic_ptr(X, y, 5.0, eps=4, delta=1e-6, rng=np.random.default_rng(1),
                                             calibration=cal)
        assert theta is not None and acc["gamma"] > 0 and acc["lam_min_p"] <= np.linalg.eigvalsh(hess)[0]
    theta, acc = RA.ex_b3_8_logistic_ptr(X[:20], y[:20], 1.0, eps="0.5", delta=1e-6, rng=np.random.default_rng(1))
    assert theta is None and "γ" in acc["reason"]
    with pytest.raises(ParameterError, match="λ ≥ RL"):
        RA.ex_b3_8_logistic_ptr(X, y, 0.5, eps=1, delta=1e-6, rng=rng)
    with pytest.raises(ParameterError, match="labels"):
        RA.ex_b3_8_logistic_ptr(X, np.zeros(len(y)), 2.0, eps=1, delta=1e-6, rng=rng)
