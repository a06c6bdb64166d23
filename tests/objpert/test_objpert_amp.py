"""Algorithm 7 / AMP (seed 003 Thm 4.4.1, Thm C.6.1), its calibration (Sec. 4.5, notes objpert-rdp.md §4 A4), the
clipped loss (Thm C.6.2/C.6.3), the optimisation facts (App. C.7, Thm C.7.1) and the excess risk (Thm C.8.1).
Test vectors: notes objpert-rdp.md §5.2 I (a reconstruction of the notes, not thesis numbers: ~1 % tolerance)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.base.conversion import rdp_to_dp
from dpspec.reference.base.gaussian import gaussian_rdp
from dpspec.reference.errors import ConditionError
from dpspec.reference.objpert import amp, amp_algorithms as A, clipping, optimisation as O
from dpspec.reference.objpert.glm_bounds import objpert_rdp
from dpspec.reference.objpert.solver import objpert_minimiser

catalogue.load_all()
SQRT2 = math.sqrt(2)


@pytest.fixture(autouse=True)
def _thirty_digits():
    with mpmath.workdps(30):
        yield


# ---------------------------------------------------------------------------------------------------------------
# Thm 4.4.1 / C.6.1


def test_thm4_4_1_notes_vector():
    """Notes §5.2 I: σ = 6.8285, λ = 4.1161, τ = 0.01, σ_out = 0.15, C = √2, β = 0.5 (7 digits given)."""
    want = {1.5: 0.3209670, 2: 0.3253757, 10: 0.4227166, 32: 0.8549355, 100: 2.3335924}
    st = catalogue.get("objpert.thm4_4_1")
    for alpha, value in want.items():
        got = st(alpha=alpha, sigma="6.8285", sigma_out="0.15", lam="4.1161", beta="0.5", C=SQRT2, tau="0.01")
        assert abs(got - value) < 6e-8, (alpha, got)


def test_amp_rdp_is_objpert_plus_gaussian():
    """amp_rdp = helper A's objpert_rdp (L := C) + base.gaussian_rdp at σ_out λ/(2τ); the closed form written in amp.py
    agrees with objpert_rdp; τ = 0 gives Thm 4.3.2 exactly; C.6.1 at L = C equals 4.4.1."""
    for alpha, sigma, so, lam, beta, c, tau in [(2, 5, 0.15, 20, 1, 1, 0.01), (1 + 1e-6, 0.5, 1, 3, 2.5, 2, 0.3),
                                                (1e4, 30, 0.01, 1e3, 0, 1.5, 1e-3)]:
        got = amp.amp_rdp(alpha, sigma, so, lam, beta, c, tau)
        obj = objpert_rdp(mpf(alpha), mpf(sigma), mpf(lam), mpf(beta), mpf(c))
        closed = amp.objpert_rdp_closed_form(mpf(alpha), mpf(sigma), mpf(lam), mpf(beta), mpf(c))
        assert abs(obj - closed) <= mpf(10) ** -25 * abs(obj)
        gauss = gaussian_rdp(mpf(alpha), mpf(so) * mpf(lam) / (2 * mpf(tau)))
        assert abs(got - obj - gauss) <= mpf(10) ** -25 * got
        assert amp.amp_rdp(alpha, sigma, so, lam, beta, c, 0) == pytest.approx(float(obj), rel=1e-25)
        st = catalogue.get("objpert.thm_c6_1")
        assert st(alpha=alpha, sigma=sigma, sigma_out=so, lam=lam, beta=beta, L=c, tau=tau) == got


def test_thm4_4_1_refuses_lambda_not_above_beta():
    with pytest.raises(ConditionError, match="lambda_above_beta"):
        catalogue.get("objpert.thm4_4_1")(alpha=2, sigma=1, sigma_out=1, lam=1, beta=1, C=1, tau=0.1)


# ---------------------------------------------------------------------------------------------------------------
# Calibration (Sec. 4.5; notes §5.2 I)

# ε: (σ_G, λ(τ=0.01), σ(τ=0.01), λ(τ=0.0005), σ(τ=0.0005)) — notes §5.2 I
TABLE_I = {
    0.025: (152.640, 231.67, 197.92, 220.64, 198.14), 0.05: (81.700, 105.07, 105.71, 100.06, 105.76),
    0.1: (43.487, 47.649, 56.335, 45.380, 56.299), 0.25: (18.789, 17.288, 24.393, 16.465, 24.333),
    0.5: (9.9445, 8.2323, 12.925, 7.8403, 12.875), 1: (5.2759, 4.1161, 6.8285, 3.7335, 6.8508),
    2: (2.8197, 2.0581, 3.6513, 1.9601, 3.6326), 4: (1.5290, 1.0914, 1.9820, 1.0395, 1.9761),
    8: (0.8489, 0.6700, 1.0978, 0.6700, 1.0850),
}


def test_calibration_float_search_reproduces_notes_table():
    """All 18 (σ, λ) entries and the 9 σ_G of notes §5.2 I within 1 % (the float64 pre-search the reference uses)."""
    for eps, (sg, lam1, s1, lam2, s2) in TABLE_I.items():
        for tau, lam_want, s_want in ((0.01, lam1, s1), (0.0005, lam2, s2)):
            sigma, lam, sigma_g = amp.calibration_float(eps, 1e-5, SQRT2, 0.5, tau, 0.15)
            assert sigma_g == pytest.approx(sg, rel=1e-3)
            assert lam == pytest.approx(lam_want, rel=1e-2), (eps, tau)
            assert sigma == pytest.approx(s_want, rel=1e-2), (eps, tau)


@pytest.mark.parametrize("eps,tau,col", [(1, 0.01, 0), (8, 0.0005, 1)])
def test_calibration_reference_rows(eps, tau, col):
    """The mpmath reference at two rows of §5.2 I; the σ returned converts to ε (BBG/CKS, base.rdp_to_dp), the λ step
    before it does not reach σ ≤ f·σ_G."""
    row = TABLE_I[eps]
    sigma, lam = amp.amp_calibrate(mpf(eps), mpf("1e-5"), mpf(2).sqrt(), mpf("0.5"), mpf(tau), mpf("0.15"))
    assert float(lam) == pytest.approx(row[1 + 2 * col], rel=1e-2)
    assert float(sigma) == pytest.approx(row[2 + 2 * col], rel=1e-2)
    curve = amp._amp_curve(sigma, mpf("0.15"), lam, mpf("0.5"), mpf(2).sqrt(), mpf(tau))
    assert abs(rdp_to_dp(curve, mpf("1e-5")) - eps) < mpf(10) ** -20
    lam_prev = lam / mpf("1.05")
    if lam_prev > max(2 * mpf("0.5") / eps, mpf("0.525")) * (1 - mpf(10) ** -20):
        prev = amp._sigma_for(mpf(eps), mpf("1e-5"), lam_prev, mpf("0.5"), mpf(2).sqrt(), mpf(tau), mpf("0.15"))
        assert prev > mpf("1.3") * mpf(row[0]) * (1 - mpf("1e-3"))  # σ_G of the table includes L = √2


def test_calibration_refuses_infeasible_factor():
    """f = 1 is below σ_∞/σ_G (the half-normal and the RDP conversion cost more than the exact Gaussian): refused."""
    st = catalogue.get("objpert.amp_calibration")
    with pytest.raises(ConditionError, match="calibration_feasible"):
        st(eps=1, delta="1e-5", L=SQRT2, beta="0.5", tau="0.01", sigma_out="0.15", f=1)
    assert amp.sigma_limit(mpf(1), mpf("1e-5"), mpf(2).sqrt()) > mpf(2).sqrt() * 3.7


# ---------------------------------------------------------------------------------------------------------------
# Clipped loss (Thm C.6.2 / C.6.3)


@pytest.mark.parametrize("loss,y", [("logistic", 1), ("logistic", -1), ("logistic01", 0), ("logistic01", 1),
                                    ("squared", 0.4), ("squared", -1)])
@pytest.mark.parametrize("C,x_norm", [(0.1, 1), (0.3, 0.5), (2.0, 1.0), (SQRT2, SQRT2), (0.05, 0.07)])
def test_thm_c6_3_properties(loss, y, C, x_norm):
    """The statement's property (|f_C'|‖x‖ ≤ C, convexity, f_C'' ≤ sup ≤ β, continuity) at each point."""
    st = catalogue.get("objpert.thm_c6_3")
    bound = st.bind(dict(loss=loss, C=C, x_norm=x_norm, y=y))
    for prop in st.properties:
        prop(st, bound)


def test_clipping_is_a_no_op_when_not_needed_and_clips_otherwise():
    """Logistic (|f'| < 1): C ≥ ‖x‖ leaves f unchanged; C < ‖x‖ gives slope ±C/‖x‖ outside (u_L, u_H). No NaN when
    y ∓ C/‖x‖ leaves (0, 1) (the guarded logit)."""
    u = np.linspace(-30, 30, 601)
    base = clipping.get_loss("logistic01")
    for y in (0.0, 1.0):
        same = clipping.clipped_glm("logistic01", 1.0, 1.0)
        assert np.allclose(same.f(u, y), base.f(u, y), rtol=1e-13, atol=1e-13)
        cl = clipping.clipped_glm("logistic01", 0.2, 1.0)
        assert np.all(np.isfinite(cl.f(u, y))) and np.all(np.isfinite(cl.d2(u, y)))
        assert np.max(np.abs(cl.d1(u, y))) == pytest.approx(0.2, rel=1e-12)
    sq = clipping.clipped_glm("squared", 0.5, 2.0)  # c = 0.25: u_L, u_H = y ∓ 0.25
    assert sq.d1(np.array([-3.0, 0.1, 3.0]), 0.0).tolist() == pytest.approx([-0.25, 0.1, 0.25])
    assert sq.f(np.array([3.0]), 0.0)[0] == pytest.approx(0.25 ** 2 / 2 + 0.25 * (3 - 0.25))


def test_clipped_gradient_norm_in_theta():
    """‖∇_θ f_C(xᵀθ; y)‖ = |f_C'|‖x‖ ≤ C on random records and parameters (seeded)."""
    rng = np.random.default_rng(7)
    X = rng.standard_normal((200, 4)) * rng.uniform(0.1, 3, size=(200, 1))
    y = rng.choice([-1.0, 1.0], size=200)
    cl = clipping.clipped_glm("logistic", 0.3, np.linalg.norm(X, axis=1))
    for _ in range(20):
        theta = 5 * rng.standard_normal(4)
        g = cl.d1(X @ theta, y)[:, None] * X
        assert np.max(np.linalg.norm(g, axis=1)) <= 0.3 * (1 + 1e-12)


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 7 / 16, GD and SAG (App. C.7)


def _data(n=40, d=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    y = np.where(rng.random(n) < 1 / (1 + np.exp(-2 * X[:, 0])), 1.0, -1.0)
    return np.c_[X, y]


@pytest.mark.parametrize("solver", ["gd", "sag"])
def test_alg7_output_within_tau_over_lambda(solver):
    """Rem 4.4.2 / Thm C.6.1: ‖∇L^P_C(θ̃)‖ ≤ τ ⇒ ‖θ̃ − θ^P‖ ≤ τ/λ (λ-strong convexity), before the output noise;
    θ^P from helper C's Newton on the clipped loss; 5 seeds."""
    rec = _data()
    lam, tau = 2.0, 0.05
    for seed in range(5):
        r = A.alg7_amp(rec, "logistic", lam, 1.0, 0.15, tau, 0.5, rng=seed, solver=solver)
        assert r["grad_norm"] <= tau
        assert np.linalg.norm(r["theta_tilde"] - r["theta_P"]) <= tau / lam
        assert np.linalg.norm(r["output"] - r["theta_tilde"]) > 0


def test_alg16_equals_alg7_without_clipping():
    """C ≥ sup|f'|‖x‖ = 1 (logistic, unit features): Algorithm 7 is AMP (same seed, same draws, same output)."""
    rec = _data()
    r7 = A.alg7_amp(rec, "logistic", 1.5, 2.0, 0.1, 0.01, 1.0, rng=3)
    r16 = A.alg16_amp(rec, "logistic", 1.5, 2.0, 0.1, 0.01, rng=3)
    assert np.allclose(r7["output"], r16["output"], rtol=0, atol=1e-12)


def test_gd_until_within_c7_gd():
    """App. C.7.2: GD (step 1/(nβ + λ)) passes ‖∇f‖ ≤ γ within ⌈T⌉ steps, T = objpert.c7_gd; the printed
    simplification is larger (λ ≤ nβ)."""
    rec = _data(n=60, d=4, seed=2)
    X, y = rec[:, :-1], rec[:, -1]
    rng = np.random.default_rng(5)
    for lam, gamma in ((1.0, 1e-4), (5.0, 1e-8), (0.3, 1e-3)):
        b = 2 * rng.standard_normal(4)
        star = objpert_minimiser(X, y, "logistic", lam, b)
        _, steps = A.gd_until(X, y, "logistic", lam, b, gamma)
        bound = O.c7_gd(60, mpf("0.25"), mpf(lam), mpf(float(np.linalg.norm(star))), mpf(gamma))
        assert steps <= math.ceil(bound)
        assert O.c7_gd_printed(60, mpf("0.25"), mpf(lam), mpf(float(np.linalg.norm(star))), mpf(gamma)) >= bound


def test_sag_with_check_stops_and_counts():
    """A8: SAG with the check every n steps stops at ‖∇f‖ ≤ γ after a multiple of n incremental gradients."""
    rec = _data(n=30, d=2, seed=4)
    X, y = rec[:, :-1], rec[:, -1]
    b = np.array([0.5, -1.0])
    theta, evals = A.sag_with_check(X, y, "logistic", 1.0, b, 1e-5, rng=1)
    assert evals % 30 == 0 and evals > 0
    assert np.linalg.norm(A.perturbed_gradient(X, y, clipping.get_loss("logistic"), 1.0, b, theta)) <= 1e-5


def test_c7_sag_printed_is_half_and_decreasing():
    """E4_13: the printed bound misses the factor 2 of (C.7.2); the bound decreases in T at rate 1 − min(λ/(16L_s),
    1/(8n))."""
    st = catalogue.get("objpert.c7_sag")
    p = dict(n=100, beta="0.25", lam=1, subopt0=2, dist0=3)
    v1, v2 = st(T=1000, **p), st(T=2000, **p)
    printed = st.evaluate(variant="printed", T=1000, **p).value
    assert v1 == 2 * printed
    rate = 1 - min(mpf(1) / (16 * 26), mpf(1) / 800)
    assert abs(v2 / v1 - rate ** 1000) < mpf(10) ** -25


def test_thm_c7_1_existence_constant_scales():
    st = catalogue.get("objpert.thm_c7_1")
    p = dict(n=1000, beta="0.25", lam=1, dist0=2, subopt0=5, gamma="1e-4", delta="1e-3")
    assert st(C_univ=3, **p) == 3 * st(C_univ=1, **p)
    assert st(C_univ=1, **p) == pytest.approx(1000 * math.log(1000 * 0.25 * 5 / 1e-7), rel=1e-12)
    with pytest.raises(ConditionError, match="lambda_at_least_beta"):
        st(C_univ=1, **{**p, "lam": "0.1"})


def test_thm_c8_1_monte_carlo():
    """Thm C.8.1 on Algorithm 16 (logistic, unit features, L = 1), seeded, 150 runs: the mean excess empirical risk
    (plus 4 standard errors) is below the bound; θ* by Newton at λ = 1e-9 on non-separable data."""
    rec = _data(n=40, d=2, seed=11)
    X, y = rec[:, :-1], rec[:, -1]
    loss = clipping.get_loss("logistic")
    star = objpert_minimiser(X, y, loss, 1e-9, np.zeros(2))
    risk = lambda th: float(np.sum(loss.f(X @ th, y)))  # noqa: E731
    lam, sigma, so, tau = 4.0, 2.0, 0.05, 0.05
    excess = np.array([risk(A.alg16_amp(rec, loss, lam, sigma, so, tau, rng=s)["output"]) - risk(star)
                       for s in range(150)])
    bound = O.thm_c8_1(40, mpf(1), mpf(tau), mpf(lam), mpf(so), 2, mpf(sigma), mpf(float(np.linalg.norm(star))))
    assert excess.mean() + 4 * excess.std(ddof=1) / math.sqrt(150) <= float(bound)
    assert excess.mean() > 0
