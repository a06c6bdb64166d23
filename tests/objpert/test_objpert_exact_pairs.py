"""Exact per-instance ObjPert pairs (seed 003 ch. 4; notes objpert-rdp.md §3 M1', M5, §5.2 D, G): the 1-D log-cosh
pair (exact densities by change of variables, H and D_α by quadrature) checks Thm 4.3.1 / 4.3.2 from below; the
radial non-GLM loss is the negative control (Thm 4.3.1 fails for it at d = 400: App. C.5)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.objpert import witnesses_exact as W
from dpspec.reference.objpert.glm_bounds import objpert_delta, objpert_rdp

catalogue.load_all()


@pytest.fixture(autouse=True)
def _twenty_digits():
    """Quadrature at 20 digits (the notes give 5): fast enough for the default suite."""
    with mpmath.workdps(20):
        yield


def test_notes_5_2_D_values():
    """Notes §5.2 D, (L, β, λ, σ) = (1, 1, 2, 1), x = 1, Z = ∅: H(Z‖Z') at ε = 0/0.5/1/2 and D_α(Z‖Z') at α = 2/5/10
    (5 digits given)."""
    for eps, want in ((0, 0.18581), (0.5, 0.094357), (1, 0.045626), (2, 0.0080585)):
        assert float(W.logcosh_exact_delta(eps, 1, 2, 1, 1, "add")) == pytest.approx(want, rel=1e-4)
    for alpha, want in ((2, 0.48963), (5, 2.46013), (10, 5.07304)):
        assert float(W.logcosh_exact_rdp(alpha, 1, 2, 1, 1, "add")) == pytest.approx(want, rel=1e-5)
    assert float(W.logcosh_exact_delta(0.5, 5, 20, 1, 1, "add")) == pytest.approx(1.8739e-5, rel=1e-4)
    assert float(W.logcosh_exact_delta(0.25, 10, 5, 1, 1, "add")) == pytest.approx(4.5329e-4, rel=1e-4)


def test_small_delta_by_independent_float_quadrature():
    """(1, 1, 20, 5) at ε = 1: the notes print 7.6040e-10; scipy's adaptive quadrature of the same densities between
    the two roots of p = e^ε q gives 7.7582e-10, as the mpmath route does (a 2 % slip in the notes' table)."""
    from scipy.integrate import quad
    from scipy.optimize import brentq

    s, lam = 5.0, 20.0
    h = lambda t: W._np_log_p_z(t, s, lam) - 1.0 - W._np_log_p_zprime(t, s, lam, 1.0, 1.0)  # noqa: E731
    root = brentq(h, 0.1, 5.0, xtol=1e-15)
    def dens(t):
        return math.exp(W._np_log_p_z(t, s, lam)) - math.exp(1.0 + W._np_log_p_zprime(t, s, lam, 1.0, 1.0))

    ref = 2 * quad(dens, root, 30, epsabs=0, epsrel=1e-12, limit=500)[0]  # the pair is symmetric in θ
    got = float(W.logcosh_exact_delta(1, 5, 20, 1, 1, "add"))
    assert got == pytest.approx(ref, rel=1e-8)
    assert got == pytest.approx(7.7582e-10, rel=1e-4)


@pytest.mark.parametrize("sigma,lam,beta,L", [(1, 2, 1, 1), pytest.param(5, 20, 1, 1, marks=pytest.mark.slow),
                                               pytest.param(0.5, 1.5, 1, 0.7, marks=pytest.mark.slow)])
def test_exact_pair_below_thm4_3_1_and_thm4_3_2(sigma, lam, beta, L):
    """Claims from below: both directions' exact H_{e^ε} ≤ Thm 4.3.1's δ(ε) and D_α ≤ Thm 4.3.2's ε(α) (helper A's
    objpert_delta / objpert_rdp)."""
    for direction in W.DIRECTIONS:
        for eps in (0, 0.3, 1.0):
            exact = W.logcosh_exact_delta(eps, sigma, lam, beta, L, direction)
            assert exact <= objpert_delta(mpf(eps), mpf(sigma), mpf(lam), mpf(beta), mpf(L))
        for alpha in (1.5, 4):
            exact = W.logcosh_exact_rdp(alpha, sigma, lam, beta, L, direction)
            assert 0 <= exact <= objpert_rdp(mpf(alpha), mpf(sigma), mpf(lam), mpf(beta), mpf(L))


@pytest.mark.parametrize("direction", W.DIRECTIONS)
def test_witness_sampler_matches_exact(direction):
    """The registered witness pair: the sampler and log-densities give a Monte Carlo H_{e^ε}(P‖Q) and E_P[(p/q)^{α−1}]
    that agree with the quadrature (seed 1, 200 000 draws, 5 standard errors)."""
    w = catalogue.get_witness(f"objpert.logcosh_{direction}")
    params = dict(sigma=1.0, lam=2.0, beta=1.0, L=1.0)
    o = w.sample(np.random.default_rng(1), 200_000, **params)
    loss = w.privacy_loss(o, **params)
    for eps in (0.0, 0.2):
        vals = -np.expm1(np.minimum(eps - loss, 0.0))
        exact = float(W.logcosh_exact_delta(eps, 1, 2, 1, 1, direction))
        assert abs(vals.mean() - exact) <= 5 * vals.std(ddof=1) / math.sqrt(len(vals)) + 1e-12
    vals = np.exp(loss)  # α = 2: E_P[p/q] = E_Q[(p/q)²]
    exact = math.exp(float(w.log_moment(2, **params)))
    assert abs(vals.mean() - exact) <= 5 * vals.std(ddof=1) / math.sqrt(len(vals))


def test_solver_inverts_the_first_order_condition():
    b = np.random.default_rng(3).normal(0, 10, 1000)
    t = W.solve_logcosh_output(b, 0.5, 3.0, 2.0)
    assert np.max(np.abs(2.0 * np.tanh(1.5 * t) + 0.5 * t + b)) < 1e-10


# ---------------------------------------------------------------------------------------------------------------
# Radial negative control (M5; notes §5.2 G)


def test_radial_violates_thm4_3_1_at_d400_and_not_at_d1():
    """L = s = 1 (β = L/s = 1), λ = 20, σ = 2: at d = 400 the exact δ(1.0) and δ(1.5) of the non-GLM pair exceed Thm
    4.3.1 (notes: MC 2.348e-2 against 1.746e-2, 3.48e-3 against 1.10e-3); at d = 1 the loss is a GLM (x = 1) and the
    bound holds."""
    bound = {e: float(objpert_delta(mpf(e), mpf(2), mpf(20), mpf(1), mpf(1))) for e in (1.0, 1.5)}
    assert bound[1.0] == pytest.approx(1.746e-2, rel=1e-3) and bound[1.5] == pytest.approx(1.10e-3, rel=1e-2)
    add = {e: W.radial_exact_delta(e, 2, 20, 1, 1, 400, "add") for e in (1.0, 1.5)}
    assert add[1.0] == pytest.approx(2.348e-2, rel=2e-2) and add[1.5] == pytest.approx(3.48e-3, rel=3e-2)
    for e in (1.0, 1.5):
        assert add[e] > bound[e]
        assert W.radial_exact_delta(e, 2, 20, 1, 1, 400, "remove") > bound[e]
    assert W.radial_exact_delta(1.5, 2, 20, 1, 1, 1000, "add") == pytest.approx(5.70e-3, rel=2e-2)
    for direction in W.DIRECTIONS:
        for e in (0.0, 0.2, 0.5):
            one = W.radial_exact_delta(e, 2, 20, 1, 1, 1, direction)
            assert one <= float(objpert_delta(mpf(e), mpf(2), mpf(20), mpf(1), mpf(1))) * (1 + 1e-9)


def test_radial_plrv_matches_vector_solution():
    """The χ-reduction of the radial pair against the d-dimensional computation (explicit b, θ, Hessian slogdet) on a
    few draws at d = 6."""
    rng = np.random.default_rng(2)
    d, sigma, lam, L, s = 6, 1.5, 3.0, 1.0, 0.7
    for _ in range(5):
        b = sigma * rng.standard_normal(d)
        rho = W._radial_rho(np.linalg.norm(b), lam, L, s)
        theta = -rho * b / np.linalg.norm(b)
        r = math.sqrt(theta @ theta + s * s)
        grad = L * theta / r + lam * theta
        assert np.allclose(grad, -b, atol=1e-10)
        hess = L * (np.eye(d) / r - np.outer(theta, theta) / r ** 3) + lam * np.eye(d)
        plrv = ((lam * rho) ** 2 - b @ b) / (2 * sigma ** 2) + np.linalg.slogdet(hess)[1] - d * math.log(lam)
        assert W.radial_plrv(np.linalg.norm(b) / sigma, sigma, lam, L, s, d, "remove") == pytest.approx(plrv, 1e-10)


@pytest.mark.slow
def test_radial_monte_carlo_d400():
    """Notes §5.2 G by Monte Carlo (seed 0, 200 000 draws of ‖b‖ per direction): within 5 standard errors of the
    exact χ_d integral, and above Thm 4.3.1 by more than 5 standard errors."""
    bound = float(objpert_delta(mpf(1), mpf(2), mpf(20), mpf(1), mpf(1)))
    for direction in W.DIRECTIONS:
        est, se = W.radial_mc_delta(1.0, 2, 20, 1, 1, 400, 200_000, 0, direction)
        assert abs(est - W.radial_exact_delta(1.0, 2, 20, 1, 1, 400, direction)) <= 5 * se
        assert est - 5 * se > bound
