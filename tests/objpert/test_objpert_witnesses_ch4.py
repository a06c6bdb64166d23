"""The chapter-4 dominating pairs of objective perturbation (reference/objpert/witnesses_ch4.py; seed 003 Lemma C.4.6
corrected, Lemma C.4.3, Lemma C.4.7, Algorithm 7 / notes objpert-rdp.md §3 M1, M3, M4): Q is a probability measure
(atom at −∞ included), the privacy loss is a + c + Lx/σ², the hockey-stick divergence of the densities (quadrature)
is Thm 4.3.1's δ(ε) for every real ε, a seeded Monte Carlo of the pair's privacy loss reproduces δ(ε), the log moment
matches quadrature of p^α q^{1−α} and Thm 4.3.2, the k-fold pair reproduces Lemma C.4.7 at k = 2. Seeds fixed; Monte
Carlo intervals at 5 standard errors (two-sided miss probability < 1e-6 each)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.objpert import composition, glm_bounds as G

catalogue.load_all()
PAIR = dict(sigma=5.0, lam=20.0, beta=1.0, L=1.0)


@pytest.fixture(autouse=True)
def _fifty_digits():
    with mpmath.workdps(50):
        yield


def _densities(w, **params):
    lp = lambda x: mpmath.exp(mpf(float(w.log_p(np.array([float(x)]), **params)[0])))
    lq = lambda x: mpmath.exp(mpf(float(w.log_q(np.array([float(x)]), **params)[0])))
    return lp, lq


def test_c4_6_pair_is_a_probability_pair_with_the_stated_loss():
    w = catalogue.get_witness("objpert.c4_6_pair")
    a, c, v = G._constants(5, 20, 1, 1)
    atom = math.exp(float(w.log_q(np.array([-np.inf]), **PAIR)[0]))
    assert abs(atom - float(G.objpert_delta(0, 5, 20, 1, 1))) < 1e-12  # Q(−∞) = δ(0) (notes M1)
    with mpmath.workdps(20):
        lp, lq = _densities(w, **PAIR)
        assert abs(mpmath.quad(lp, [0, 5, 20, 60]) - 1) < 1e-12
        assert abs(mpmath.quad(lq, [0, 5, 20, 60]) + atom - 1) < 1e-12
    o = np.array([0.0, 0.3, 2.0, 11.0])
    loss = w.privacy_loss(o, **PAIR)
    assert np.allclose(loss, float(a + c) + o / 25.0, rtol=0, atol=1e-12)
    assert np.all(w.log_p(np.array([-1.0, -np.inf]), **PAIR) == -np.inf)


def test_c4_6_pair_hockey_stick_equals_thm4_3_1_for_every_real_eps():
    """H_{e^ε}(P‖Q) = ∫[p − e^ε q]₊ (the atom carries no P-mass) by quadrature of the pair's own densities."""
    w = catalogue.get_witness("objpert.c4_6_pair")
    with mpmath.workdps(20):
        lp, lq = _densities(w, **PAIR)
        a, c, _ = G._constants(5, 20, 1, 1)
        for eps in (-1.0, -0.2, 0.0, 0.1, 0.5, 1.0):
            kink = max(mpf(0), (eps - a - c) * 25)  # the loss a + c + x/25 crosses ε there
            pts = sorted({mpf(0), kink, kink + 1, mpf(5), mpf(20), mpf(60)})
            h = mpmath.quad(lambda x: max(mpf(0), lp(x) - mpmath.exp(eps) * lq(x)), pts)
            assert abs(h / G.objpert_delta(eps, 5, 20, 1, 1) - 1) < 1e-8, eps


def test_c4_6_pair_monte_carlo_reproduces_delta():
    """Seed 20261127, n = 400 000 draws of o ~ P: mean[1 − e^{ε − L(o)}]₊ within 5 SE of δ(ε)."""
    w = catalogue.get_witness("objpert.c4_6_pair")
    rng = np.random.default_rng(20261127)
    o = w.sample(rng, 400_000, **PAIR)
    loss = w.privacy_loss(o, **PAIR)
    for eps in (0.0, 0.2, 0.5):
        terms = np.maximum(0.0, -np.expm1(eps - loss))
        se = terms.std() / math.sqrt(len(terms))
        assert abs(terms.mean() - float(G.objpert_delta(eps, 5, 20, 1, 1))) < 5 * se + 1e-12, eps


def test_c4_6_pair_log_moment_matches_quadrature_and_thm4_3_2():
    w = catalogue.get_witness("objpert.c4_6_pair")
    with mpmath.workdps(25):
        lp, lq = _densities(w, **PAIR)
        for alpha in (mpf("0.5"), mpf(2), mpf(5)):
            quad = mpmath.quad(lambda x: lp(x) ** alpha * lq(x) ** (1 - alpha), [0, 1, 5, 20, 80])
            assert abs(w.log_moment(alpha, **PAIR) - mpmath.log(quad)) < 1e-9
    for alpha in ("1.5", "2", "32", "1000"):
        rdp = catalogue.get("objpert.thm4_3_2")(alpha=alpha, sigma=5, lam=20, beta=1, L=1)
        assert abs(w.log_moment(mpf(alpha), **PAIR) / (mpf(alpha) - 1) / rdp - 1) < 1e-40
    assert w.log_moment(mpf(1), **PAIR) == 0 and w.log_moment(mpf(-1), **PAIR) == mpf("inf")


def test_c4_3_pair_is_the_per_instance_profile():
    w = catalogue.get_witness("objpert.c4_3_pair")
    params = dict(PAIR, x_norm=0.5)
    rng = np.random.default_rng(7)
    loss = w.privacy_loss(w.sample(rng, 400_000, **params), **params)
    for eps in (0.05, 0.2):
        terms = np.maximum(0.0, -np.expm1(eps - loss))
        se = terms.std() / math.sqrt(len(terms))
        exact = catalogue.get("objpert.lemma_c4_3")(eps=eps, sigma=5, lam=20, beta=1, L=1, x_norm="0.5")
        assert abs(terms.mean() - float(exact)) < 5 * se + 1e-12


def test_c4_7_pair_two_fold_monte_carlo():
    """Seed 11, n = 400 000: the product pair's δ(ε) at k = 2 against the quadrature of Lemma C.4.7 (σ = 8, λ = 10)."""
    w = catalogue.get_witness("objpert.c4_7_pair")
    params = dict(sigma=8.0, lam=10.0, beta=1.0, L=1.0, k=2)
    o = w.sample(np.random.default_rng(11), 400_000, **params)
    assert o.shape == (400_000, 2)
    loss = w.privacy_loss(o, **params)
    for eps in (0.2, 0.4):
        terms = np.maximum(0.0, -np.expm1(eps - loss))
        se = terms.std() / math.sqrt(len(terms))
        assert abs(terms.mean() - float(composition.composed_delta(eps, 8, 10, 1, 1, 2))) < 5 * se
    assert w.log_moment(mpf(3), **params) == 2 * catalogue.get_witness("objpert.c4_6_pair").log_moment(
        mpf(3), sigma=8.0, lam=10.0, beta=1.0, L=1.0)


def test_alg7_pair_log_moment_and_thm4_4_1_use():
    """Algorithm 7's pair (notes M3): its log moment is the half-normal part plus the Gaussian α(α−1)Δ²/(2σ_out²);
    at the notes §5.2 I point its Rényi divergence reproduces the Thm 4.4.1 row (0.3253757 at α = 2)."""
    w = catalogue.get_witness("objpert.alg7_pair")
    params = dict(sigma=6.8285, sigma_out=0.15, lam=4.1161, beta=0.5, C=math.sqrt(2), tau=0.01)
    for alpha, expected in ((2, "0.3253757"), (10, "0.4227166"), (100, "2.3335924")):
        got = w.log_moment(mpf(alpha), **params) / (alpha - 1)
        assert abs(got - mpf(expected)) < 2e-6, alpha
    o = w.sample(np.random.default_rng(3), 1000, **params)
    assert o.shape == (1000, 2) and np.all(np.isfinite(w.privacy_loss(o, **params)))
    assert "objpert.alg7_pair" in [u.witness for u in catalogue.get("objpert.thm4_4_1").witnesses]


def test_thm4_3_1_and_thm4_3_2_use_the_exact_logcosh_pairs_from_below():
    """Both statements name helper B's exact 1-D log-cosh pairs (both directions) besides the dominating pair, and
    their exact divergences (quadrature of the change-of-variables densities) lie below the bounds at (σ, λ, β, L) =
    (1, 2, 1, 1) — notes objpert-rdp.md §5.2 D / E4_7: H at ε = 0 is 0.186 for M(∅) vs M({z}), far from the bound
    δ(0) — and, for α = 2, D_α ≤ ε(α)."""
    from dpspec.reference.objpert import witnesses_exact as W

    for sid in ("objpert.thm4_3_1", "objpert.thm4_3_2"):
        used = {u.witness for u in catalogue.get(sid).witnesses}
        assert {"objpert.c4_6_pair", "objpert.logcosh_add", "objpert.logcosh_remove"} <= used, sid
    p = dict(sigma=1, lam=2, beta=1, L=1)
    with mpmath.workdps(20):
        for direction in ("add", "remove"):
            for eps in (0, "0.5"):
                exact = W.logcosh_exact_delta(eps, direction=direction, **p)
                assert 0 <= exact < G.objpert_delta(eps, **p), (direction, eps)
            assert W.logcosh_exact_rdp(2, direction=direction, **p) < G.objpert_rdp(2, **p)
        assert abs(W.logcosh_exact_delta(0, direction="add", **p) - mpf("0.186")) < 1e-3
        # M({z}) vs M(∅): the loss log(1 + f''/λ) − (f'² + 2λθf')/(2σ²) ≤ log(1 + β/λ) = 0.405 (θf' ≥ 0), so H = 0 at
        # ε = 0.5 — the Sherman–Morrison constant of E4_16 is attained in this direction, not a + c
        assert W.logcosh_exact_delta("0.5", direction="remove", **p) == 0
        assert W.logcosh_exact_delta("0.4", direction="remove", **p) > 0
