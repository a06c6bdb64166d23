"""Seed 003 ch. 2 privacy reports (helper D): the privacy of Algorithms 8, 10, 11 and their composition
(objpert.thm_a3_1, thm_a3_4, thm_a4_1, thm2_3_5, cor_a3_6), the accuracy statements (thm2_3_5_accuracy, prop_a5_1,
prop_a3_2, thm_a3_3, prop_a3_5) and the reference algorithms (reference/objpert/releases.py).

Monte Carlo tests are seeded; each states its sample size and the binomial test it applies (scipy.stats.binom,
one-sided, level 1e-3 unless said)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from scipy.stats import binom

from dpspec.reference import catalogue
from dpspec.reference.base.gaussian import gaussian_profile, gaussian_sigma
from dpspec.reference.errors import ConditionError
from dpspec.reference.objpert import releases, report_accuracy
from dpspec.reference.objpert.expost import expost_loss_glm
from dpspec.reference.objpert.solver import glm_hessian, objpert_minimiser

catalogue.load_all()


def ev(sid, variant=None, **p):
    return catalogue.get(sid).evaluate(variant=variant, **p).value


# ---------------------------------------------------------------------------------------------------------------
# Privacy statements: notes objpert-pdp.md §5.2 vectors


def test_notes_vectors_privacy():
    """Notes §5.2: Thm A.4.1 (‖H_x‖_F = 0.25, σ3 = 1, δ = 1e-6) 0.9448555472; Thm A.3.1 (0.25, σ4 = 1) 1.345380442;
    Thm 2.3.5(1) (ξ = 1, β = 0.25, σ2 = 5, σ3 = 1) 1.438732357."""
    assert abs(ev("objpert.thm_a4_1", beta="0.25", sigma3=1, delta="1e-6") - mpmath.mpf("0.9448555472")) < 1e-10
    assert abs(ev("objpert.thm_a3_1", beta="0.25", sigma4=1, delta="1e-6") - mpmath.mpf("1.345380442")) < 1e-9
    assert abs(ev("objpert.thm2_3_5", xi=1, beta="0.25", sigma2=5, sigma3=1, delta="1e-6")
               - mpmath.mpf("1.438732357")) < 1e-9


def test_notes_vectors_composed_calibration():
    """Notes §5.2/§5.3: σ2, σ3 by the analytic Gaussian for (ε2, ε3) = (0.7, 0.1) at δ = 1e-6 (σ3 with the GOE
    sensitivity β/√2, β = 1/4): σ2 = 5.8863, σ3 = 6.41782; the composed tail bound is 0.9195, the exact composed
    Gaussian (variant 'analytic') 0.7098."""
    s2 = gaussian_sigma(mpmath.mpf("0.7"), mpmath.mpf("1e-6"))
    s3 = gaussian_sigma(mpmath.mpf("0.1"), mpmath.mpf("1e-6")) * mpmath.mpf("0.25") / mpmath.sqrt(2)
    assert abs(s2 - mpmath.mpf("5.8863")) < 1e-4 and abs(s3 - mpmath.mpf("6.41782")) < 1e-5
    p = dict(xi=1, beta="0.25", sigma2=s2, sigma3=s3, delta="1e-6")
    assert abs(ev("objpert.thm2_3_5", **p) - mpmath.mpf("0.9195")) < 5e-5
    assert abs(ev("objpert.thm2_3_5", "analytic", **p) - mpmath.mpf("0.7098")) < 5e-5


@pytest.mark.parametrize("sid,params,s_of", [
    ("objpert.thm_a3_1", dict(beta="0.3", sigma4="0.7"), lambda p: mpmath.mpf("0.3") / mpmath.mpf("0.7")),
    ("objpert.thm_a3_4", dict(xi="0.8", sigma2=2), lambda p: mpmath.mpf("0.4")),
    ("objpert.thm_a4_1", dict(beta="0.25", sigma3="0.2"), lambda p: mpmath.mpf("0.25") / (mpmath.sqrt(2) / 5)),
    ("objpert.thm2_3_5", dict(xi=1, beta="0.25", sigma2=3, sigma3="0.5"),
     lambda p: mpmath.sqrt(mpmath.mpf(1) / 9 + mpmath.mpf("0.0625") / (2 * mpmath.mpf("0.25")))),
])
@pytest.mark.parametrize("delta", ["1e-3", "1e-6", "1e-12"])
def test_tail_bound_is_valid_and_above_exact(sid, params, s_of, delta):
    """The printed tail-bound ε is a valid (ε, δ) for the Gaussian at S (its exact δ(ε) ≤ δ, base.gaussian_profile)
    and not below the exact ε (variant 'analytic'), which is itself tight (δ(ε_exact) = δ)."""
    S = s_of(params)
    eps = ev(sid, delta=delta, **params)
    exact = ev(sid, "analytic", delta=delta, **params)
    assert gaussian_profile(eps, 1 / S) <= mpmath.mpf(delta)
    assert exact < eps
    assert abs(gaussian_profile(exact, 1 / S) / mpmath.mpf(delta) - 1) < 1e-8


def test_composition_reduces_to_its_parts():
    """Thm 2.3.5(1) with β = 0 is Thm A.3.4 and with ξ = 0 is Thm A.4.1; the joint Gaussian is below the sum of the
    two ε's (composition as one Gaussian, notes §3.6)."""
    d = "1e-6"
    assert ev("objpert.thm2_3_5", xi="0.7", beta=0, sigma2=2, sigma3=1, delta=d) == \
        ev("objpert.thm_a3_4", xi="0.7", sigma2=2, delta=d)
    assert abs(ev("objpert.thm2_3_5", xi=0, beta="0.3", sigma2=2, sigma3="0.4", delta=d)
               - ev("objpert.thm_a4_1", beta="0.3", sigma3="0.4", delta=d)) < 1e-12
    both = ev("objpert.thm2_3_5", xi="0.7", beta="0.3", sigma2=2, sigma3="0.4", delta=d)
    assert both < ev("objpert.thm_a3_4", xi="0.7", sigma2=2, delta=d) + ev("objpert.thm_a4_1", beta="0.3",
                                                                          sigma3="0.4", delta=d)


def test_printed_e12_not_a_bound_for_large_sigma3():
    """Erratum E12: β²/(2σ3³) inside the root is below the corrected value for σ3 > 1 (so not a bound there) and above
    it for σ3 < 1."""
    p = dict(xi=1, beta="0.25", sigma2=5, delta="1e-6")
    assert ev("objpert.thm2_3_5", "printed", sigma3=2, **p) < ev("objpert.thm2_3_5", sigma3=2, **p)
    assert ev("objpert.thm2_3_5", "printed", sigma3="0.5", **p) > ev("objpert.thm2_3_5", sigma3="0.5", **p)
    assert not catalogue.get("objpert.thm2_3_5").variants["printed"].is_bound


def test_algorithm10_variant_and_cor_a3_6():
    """Algorithm 10's 2/δ form is above Thm A.3.4's 1/δ form; Cor A.3.6 bounds Thm A.4.1 at the classical
    calibration σ3 = (ρ_max/ε)√(2 log(1.25/δ)) and equals it in its first term (hx = ρ_max, δ → the log ratio)."""
    assert ev("objpert.thm_a3_4", "algorithm", xi=1, sigma2=3, delta="1e-6") > \
        ev("objpert.thm_a3_4", xi=1, sigma2=3, delta="1e-6")
    for eps, hx, delta in (("0.5", "0.25", "1e-6"), ("0.9", "0.1", "1e-3"), ("0.01", "0.25", "1e-12")):
        e, h, dl = (mpmath.mpf(v) for v in (eps, hx, delta))
        s3 = mpmath.mpf("0.25") / e * mpmath.sqrt(2 * mpmath.log(mpmath.mpf("1.25") / dl))
        cor = ev("objpert.cor_a3_6", eps=eps, hx=hx, rho_max="0.25", delta=delta)
        a41 = ev("objpert.thm_a4_1", beta=hx, sigma3=s3, delta=delta)
        assert a41 <= cor
        first = h**2 / (4 * s3**2)
        assert abs(cor - first - e * h / (mpmath.sqrt(2) * mpmath.mpf("0.25"))) < 1e-12


# ---------------------------------------------------------------------------------------------------------------
# The reference algorithms


def _dataset(seed=1, n=40, d=5):
    """n logistic records in the unit ball (‖x‖ ∈ [0.3, 1]), labels ±1 from a noisy linear rule (seeded)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X /= np.linalg.norm(X, axis=1)[:, None]
    X *= rng.uniform(0.3, 1, (n, 1))
    y = np.where(X @ np.ones(d) + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return np.column_stack([X, y])


TARGET = np.array([1.0, 0, 0, 0, 0, 1.0])  # z = (e_1, +1), the notes' E8 target
TAU_5_1E3 = 6.84107605346819  # τ(5, 1e-3), (Z + Zᵀ)/√2 (notes §5.4: 6.8411); checked against goe_quantile below


def test_tau_constant_matches_goe():
    assert abs(releases.goe_tau(5, 1e-3) - TAU_5_1E3) < 1e-10


@pytest.mark.parametrize("member", ["out", "in"])
def test_simulation_matches_solver_and_exact_expost(member):
    """simulate_report's batched Newton agrees with solver.objpert_minimiser, and its T1, T2, T3 with helper C's
    mpmath expost_loss_glm (Cor 2.3.2), for the first runs."""
    rec = _dataset()
    out = releases.simulate_report(rec, TARGET, "logistic", 0.6, 2, 2, 0.02, 1e-3, 8, seed=11, member=member,
                                   tau=TAU_5_1E3)
    D = rec if member == "out" else np.vstack([rec, TARGET])
    X, y = D[:, :-1], D[:, -1]
    for r in range(3):
        theta = objpert_minimiser(X, y, "logistic", 0.6, out["b"][r])
        batched = releases.batched_minimiser(X, y, "logistic", 0.6, out["b"][r:r + 1])[0]
        assert np.max(np.abs(theta - batched)) < 1e-10
        L, absL, t1, t2, t3 = expost_loss_glm(X, y, TARGET[:-1], TARGET[-1], theta, 0.6, 2, "logistic", member)
        assert abs(float(t1) - out["T1"][r]) < 1e-9 and abs(float(t2) - out["T2"][r]) < 1e-12
        assert abs(float(t3) - out["T3"][r]) < 1e-9 and abs(float(L) - out["L"][r]) < 1e-9


def test_alg2_and_alg9_single_runs():
    """alg2_report (DEP/INDEP) and alg9_adaptive_report run on a solved θ̂P; DEP's ε^P_1 is report_dep's formula
    recomputed by hand from the released ĝP, ĤP; the Require λ ≥ 2σ3τ refuses."""
    rec = _dataset()
    X, y = rec[:, :-1], rec[:, -1]
    rng = np.random.default_rng(5)
    theta = objpert_minimiser(X, y, "logistic", 0.6, 2 * rng.standard_normal(5))
    rep = releases.alg2_report(theta, rec, TARGET, "logistic", 0.6, 2, 2, 0.02, 1e-3, "DEP", rng, tau=TAU_5_1E3)
    x, c = TARGET[:-1], releases.normal_quantile_upper(1e-3)
    u = x @ theta
    f1 = -1 / (1 + math.exp(u))  # logistic, y = +1: f' = −sigmoid(−u)
    f2 = 1 / (1 + math.exp(-u)) / (1 + math.exp(u))
    mu_p = min(1.5 * x @ np.linalg.solve(rep.H_hat, x), 1 / 0.6)
    g_p = min(abs(f1 * rep.g_hat @ x) + 2 * abs(f1) * c, 2 * abs(f1) * c)
    want = abs(-math.log1p(-f2 * mu_p)) + f1**2 / 8 + g_p / 4
    assert abs(rep.eps1P[0] - want) < 1e-12
    assert rep.eps2[0] > 0 and rep.eps3[0] > 0
    indep = releases.alg2_report(theta, rec, TARGET, "logistic", 0.6, 2, 2, 0.02, 1e-3, "INDEP")
    assert indep.eps1P[0] > 0 and indep.eps2[0] == 0
    with pytest.raises(ConditionError):
        releases.alg2_report(theta, rec, TARGET, "logistic", 0.6, 2, 2, 0.1, 1e-3, "DEP", rng, tau=TAU_5_1E3)
    rep9 = releases.alg9_adaptive_report(theta, rec, TARGET, "logistic", 0.6, 2, 2, 0.02, 0.05, 1e-3, rng,
                                         tau=TAU_5_1E3)
    assert rep9.lam_hat >= 0.6 and rep9.eps1P[0] > 0 and rep9.eps4[0] > 0


# ---------------------------------------------------------------------------------------------------------------
# Monte Carlo: Thm 2.3.5 (3) and errata E8, E10, E11 (notes §6; 4000 runs, n = 40, d = 5, λ = 0.6, σ = σ2 = 2,
# σ3 = 0.02, ρ = 1e-3, target (e_1, +1) ∉ D)

RUNS, RHO = 4000, 1e-3


def _too_many(k, n, p, level=1e-3):
    """k failures out of n are significantly more than a rate p (one-sided binomial test at ``level``)."""
    return binom.sf(k - 1, n, p) < level


@pytest.fixture(scope="module")
def e8_runs():
    rec = _dataset()
    return {printed: releases.simulate_report(rec, TARGET, "logistic", 0.6, 2, 2, 0.02, RHO, RUNS, seed=3,
                                              printed=printed, tau=TAU_5_1E3) for printed in (True, False)}


def _upper_coefficients(sid, variant=None, **p):
    """The accuracy statements are affine in (eps1bar, grad): their two coefficients, from the reference."""
    base = dict(lam="0.6", beta="0.25", sigma=2, sigma2=2, sigma3="0.02", d=5, rho=RHO, **p)
    c0 = ev(sid, variant, eps1bar=0, grad=0, **base)
    a = ev(sid, variant, eps1bar=1, grad=0, **base) - c0
    b = ev(sid, variant, eps1bar=0, grad=1, **base) - c0
    return float(a), float(b)


def test_e8_lower_bound_printed_fails_corrected_holds(e8_runs):
    """E8: with the printed one-sided g^P the report falls below the exact ε1 far more often than 3ρ (notes: 4.05 %
    on their data; here the failure count is significantly above 3ρ·4000 = 12); corrected: not significantly
    above 3ρ."""
    fails = {p: int(np.sum(o["eps1"] > o["eps1P"])) for p, o in e8_runs.items()}
    assert _too_many(fails[True], RUNS, 3 * RHO), fails
    assert not _too_many(fails[False], RUNS, 3 * RHO), fails


def test_e10_upper_bound(e8_runs):
    """Thm 2.3.5 (3): the printed upper bound (12ε1 + |f'|‖x‖√(2log(2/ρ))/σ², printed report) fails significantly
    more often than 3ρ (E10, notes 8.1 %); the corrected one (12ε̄1 + min{σ, 2σ2}·…, corrected report) does not."""
    a, b = _upper_coefficients("objpert.thm2_3_5_accuracy", "printed")
    o = e8_runs[True]
    grad = np.sqrt(2 * o["T2"]) * 2  # |f'|‖x‖ = σ√(2 T2)
    printed_fails = int(np.sum(o["eps1P"] > a * o["eps1"] + b * grad))
    a, b = _upper_coefficients("objpert.thm2_3_5_accuracy")
    o = e8_runs[False]
    grad = np.sqrt(2 * o["T2"]) * 2
    corrected_fails = int(np.sum(o["eps1P"] > a * o["eps1bar"] + b * grad))
    assert _too_many(printed_fails, RUNS, 3 * RHO), printed_fails
    assert not _too_many(corrected_fails, RUNS, 3 * RHO), corrected_fails


def test_proof_additive_min_sigma_sigma2_is_not_enough():
    """The additive term min{σ, σ2}|f'|‖x‖√(2log(2/ρ))/σ² (the proof's, the notes') is violated far more often than
    3ρ where σ2 < σ and T3 ≈ 0 can happen (λ = 1e5 makes T1 ≈ 0, σ = 200 makes T2 ≈ 0; σ2 = 90, ρ = 1e-4, 4000
    runs: ≈ 1 % against 3ρ = 0.03 %); min{σ, 2σ2} (registered) is not."""
    rec, rho = _dataset(), 1e-4
    o = releases.simulate_report(rec, TARGET, "logistic", 1e5, 200, 90, 0.02, rho, RUNS, seed=5,
                                 tau=releases.goe_tau(5, rho))
    grad = np.sqrt(2 * o["T2"]) * 200
    c2 = math.sqrt(2 * math.log(2 / rho))
    proof = 12 * o["eps1bar"] + min(200, 90) * grad * c2 / 200**2
    ours = 12 * o["eps1bar"] + min(200, 2 * 90) * grad * c2 / 200**2
    assert _too_many(int(np.sum(o["eps1P"] > proof)), RUNS, 3 * rho)
    assert not _too_many(int(np.sum(o["eps1P"] > ours)), RUNS, 3 * rho)
    assert not _too_many(int(np.sum(o["eps1"] > o["eps1P"])), RUNS, 3 * rho)


# ---------------------------------------------------------------------------------------------------------------
# Accuracy statements: conditions, factors, the Thm A.3.3 constant


def test_accuracy_conditions_refuse():
    """thm2_3_5_accuracy refuses λ < 2σ3τ(d, ρ) and λ < 2β; thm_a3_3 refuses σ4Φ⁻¹(1 − ρ/2) > λ_min/4."""
    p = dict(eps1bar="0.3", grad="0.5", beta="0.25", sigma=5, sigma2=5, d=5, rho=RHO)
    with pytest.raises(ConditionError, match="lam_above_goe"):
        ev("objpert.thm2_3_5_accuracy", lam=1, sigma3="0.1", **p)  # 2σ3τ = 1.37
    with pytest.raises(ConditionError, match="lam_at_least_2beta"):
        ev("objpert.thm2_3_5_accuracy", lam="0.4", sigma3="0.01", **p)
    q = dict(eps1bar="0.3", grad="0.5", lam=10, lam_min=40, beta="0.25", sigma=5, sigma2=5, sigma3="0.5", d=5,
             rho=RHO)
    assert ev("objpert.thm_a3_3", sigma4=1, **q) > 0
    with pytest.raises(ConditionError, match="sigma4_small"):
        ev("objpert.thm_a3_3", sigma4=4, **q)  # 4·3.29 > 10


def test_sandwich_factors():
    """Prop A.5.1: the tight factor 1 + τσ3/λ_min is 3/2 exactly at λ_min = 2σ3τ; Prop A.3.2's regularised factor is
    1 + 2τσ3/λ̂ and the standard one refuses λ̂ < 2τσ3."""
    tau = releases.goe_tau(5, RHO)
    lam_min = 2 * 0.1 * tau
    assert abs(ev("objpert.prop_a5_1", "tight", lam_min=lam_min * (1 + 1e-12), sigma3="0.1", d=5, rho=RHO)
               - 1.5) < 1e-9
    assert ev("objpert.prop_a5_1", lam_min=40, sigma3="0.1", d=5, rho=RHO) == 1.5
    assert abs(ev("objpert.prop_a3_2", lam_hat=2, sigma3="0.1", d=5, rho=RHO, estimator="regularised")
               - (1 + 0.2 * tau / 2)) < 1e-12
    with pytest.raises(ConditionError, match="standard_needs_margin"):
        ev("objpert.prop_a3_2", lam_hat=1, sigma3="0.1", d=5, rho=RHO, estimator="standard")


def test_prop_a5_1_monte_carlo():
    """Prop A.5.1 at its boundary λ_min(H) = 2σ3τ(5, ρ), ρ = 0.05: over 2000 GOE draws (seed 9) the sandwich
    ½xᵀĤ⁻¹x ≤ xᵀH⁻¹x ≤ (3/2)xᵀĤ⁻¹x fails for some of 50 random x in at most a binomially plausible ρ fraction, and
    Prop A.3.2's regularised sandwich likewise (its event ‖G‖ ≤ τσ3 is the same)."""
    rho, sigma3, d, draws = 0.05, 0.1, 5, 2000
    tau = releases.goe_tau(d, rho)
    rng = np.random.default_rng(9)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    H = Q @ np.diag(2 * sigma3 * tau * np.array([1, 1.5, 2, 3, 5])) @ Q.T
    xs = rng.standard_normal((50, d))
    mu = np.einsum("ti,ti->t", xs, np.linalg.solve(H, xs.T).T)
    fails = fails_reg = 0
    for _ in range(draws):
        Hh = releases.alg11_goe_hessian(H, sigma3, rng)
        mh = np.einsum("ti,ti->t", xs, np.linalg.solve(Hh, xs.T).T)
        fails += not np.all((0.5 * mh <= mu) & (mu <= 1.5 * mh))
        mr = np.einsum("ti,ti->t", xs, np.linalg.solve(Hh + tau * sigma3 * np.eye(d), xs.T).T)
        lam_hat = 2 * sigma3 * tau  # = λ_min: a valid λ̂
        fails_reg += not np.all((mr <= mu) & (mu <= (lam_hat + 2 * tau * sigma3) / lam_hat * mr))
    assert not _too_many(fails, draws, rho) and not _too_many(fails_reg, draws, rho), (fails, fails_reg)


def _first_term_ratio_factor(factor):
    """max over a grid of (t, b) ∈ (0, ½]² of [sup_a r(a) − 1]/(4t + 2b)/factor, r(a) = −log(1 − min(κa, 2b, ½))/
    log(1 + a), a ∈ (0, b], κ the worst leverage factor on Prop A.3.2's event with λ̂ ∈ [λ_min/2, λ_min]:
    (1 + t')/(1 − t) (standard, t ≤ t' ≤ min(2t, ½)) or 1 + 2t' (regularised, ½ < t' ≤ 2t); t = τσ3/λ_min,
    b = β/λ_min."""
    worst = 0.0
    grid = np.linspace(0.005, 0.5, 100)
    a_frac = np.concatenate([np.geomspace(1e-4, 1, 300)])
    for t in grid:
        kappa = (1 + min(2 * t, 0.5)) / (1 - t)
        if 2 * t > 0.5:
            kappa = max(kappa, 1 + 4 * t)
        for b in grid:
            a = a_frac * b
            r = -np.log1p(-np.minimum(np.minimum(kappa * a, 2 * b), 0.5)) / np.log1p(a)
            worst = max(worst, (r.max() - 1) / (4 * t + 2 * b) / factor)
    return worst


def test_thm_a3_3_constant():
    """E13: the first-term ratio needs more than C = 4τσ3 + 2β (worst (ratio − 1)/(C/λ_min) > 1 on the grid) and
    C = 1.41(4τσ3 + 2β) (registered) suffices on the grid."""
    assert _first_term_ratio_factor(1.0) > 1.0
    assert _first_term_ratio_factor(float(report_accuracy.C_FACTOR_A3_3)) <= 1.0


def test_alg9_monte_carlo():
    """Thm A.3.3 (corrected) by Monte Carlo through simulate_report(mode="ADAPTIVE") (the batched Algorithm 9, equal
    run by run to alg9_adaptive_report: tests/objpert/test_objpert_report_conform.py): 4000 runs (seed 21; n = 40,
    d = 5, λ = 0.6, σ = σ2 = 2, σ3 = 0.02, σ4 = 0.05, ρ = 0.01): the lower bound ε1 ≤ ε^P_1 and the registered upper
    bound (1 + C/λ_min)ε̄1 + 2σ2|f'|‖x‖√(2log(2/ρ))/σ² fail at most at a binomially plausible 3ρ rate."""
    rec, rho, runs = _dataset(), 0.01, 4000
    tau = releases.goe_tau(5, rho)
    o = releases.simulate_report(rec, TARGET, "logistic", 0.6, 2, 2, 0.02, rho, runs, seed=21, mode="ADAPTIVE",
                                 sigma4=0.05, tau=tau)
    grad = np.sqrt(2 * o["T2"]) * 2  # |f'|‖x‖ = σ√(2 T2)
    C = float(report_accuracy.C_FACTOR_A3_3) * (4 * tau * 0.02 + 0.5)
    bound = (1 + C / o["lam_min"]) * o["eps1bar"] + 2 * 2 * grad * math.sqrt(2 * math.log(2 / rho)) / 4
    low, up = int(np.sum(o["eps1"] > o["eps1P"])), int(np.sum(o["eps1P"] > bound))
    assert not _too_many(low, runs, 3 * rho) and not _too_many(up, runs, 3 * rho), (low, up)


def test_prop_a3_5_parts():
    """Prop A.3.5: the users' additive grows like √(log(2n/ρ)) and is above Thm 2.3.5 (3)'s at n = 1; the printed
    users' bound has log(n/ρ) (below the corrected one)."""
    p = dict(eps1bar="0.3", grad="0.5", lam=20, beta="0.25", sigma=5, sigma2=5, sigma3="0.5", d=5, rho=RHO)
    one = ev("objpert.prop_a3_5", n=1, part="users", **p)
    assert abs(one - ev("objpert.thm2_3_5_accuracy", **p)) < 1e-12
    assert ev("objpert.prop_a3_5", n=1000, part="users", **p) > one
    assert ev("objpert.prop_a3_5", "printed", n=1000, part="users", **p) < ev("objpert.prop_a3_5", n=1000,
                                                                              part="users", **p)


@pytest.mark.parametrize("d,rho", [(1, 0.5), (5, 1e-3), (10, 1e-6), (8, 1e-30)])
def test_tau_bounds_bracket_the_exact_quantile(d, rho):
    """The cheap bounds the conditions use first (√2Φ⁻¹(1 − ρ/2) ≤ τ ≤ √2(2√d + √(2log(2/ρ)))) bracket the exact τ."""
    lo, hi = report_accuracy.tau_bounds(d, mpmath.mpf(rho))
    tau = report_accuracy.goe_tau(d, mpmath.mpf(rho))
    assert lo <= tau <= hi


def test_e9_printed_leverage_without_min_is_undefined():
    """E9: without the minimum with ‖x‖²/λ, Algorithm 2's f''µP = (3/2)f''xᵀĤ⁻¹x exceeds 1 (the report's log is
    undefined) for a target in a direction the data do not cover (µ ≈ ‖x‖²/λ, so f''µP ≈ 1.5f''/λ > 1): λ = 0.3
    (allowed by the printed Require λ ≥ 2σ3τ at σ3 = 0.001, but below the proof's λ ≥ 2β), features in the first 4
    coordinates,
    target (e_5, +1), σ = 0.05 (θ̂P stays near 0, f'' ≈ 1/4): 400 runs (seed 4) — printed undefined in most runs,
    corrected in none."""
    rec = _dataset()
    rec[:, 4] = 0.0
    target = np.array([0, 0, 0, 0, 1.0, 1.0])
    runs = {p: releases.simulate_report(rec, target, "logistic", 0.3, 0.05, 2, 0.001, RHO, 400, seed=4, printed=p,
                                        tau=TAU_5_1E3) for p in (True, False)}
    assert runs[True]["undefined"].mean() > 0.5
    assert not runs[False]["undefined"].any() and np.all(np.isfinite(runs[False]["eps1P"]))
