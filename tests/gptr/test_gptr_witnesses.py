"""The PTR-mixture witness pairs of seed 003 (gptr.classic_ptr, gptr.ptr_mixture, gptr.b2_5_counterexample; notes
shared/notes/generalized-ptr.md §3.3–§3.5, §8): their closed-form Rényi moments and hockey-sticks against quadrature of
their densities (written here from the definitions), the numpy densities against mpmath, the samplers against the
moments (conformance.sampling.check_sampler: z = 5, n = 1e5, seed 7), and their use by the statements."""
from __future__ import annotations

import dataclasses

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.conformance.sampling import check_sampler
from dpspec.reference import catalogue
from dpspec.reference.errors import DomainError
from dpspec.reference.gptr import generalized as G
from dpspec.reference.gptr import witnesses as W

catalogue.load_all()
IDS = ("gptr.classic_ptr", "gptr.ptr_mixture", "gptr.b2_5_counterexample")


@pytest.fixture(autouse=True)
def _thirty_digits():
    with mpmath.workdps(30):
        yield


def _release_pdf(release, loc):
    if release == "gaussian":
        return lambda y: mpmath.npdf(y, loc, 1)
    return lambda y: mpmath.exp(-abs(y - loc)) / 2


def _quad_moment(alpha, p, q, release, mu):
    """(1 − p)^α (1 − q)^{1−α} + p^α q^{1−α} ∫ m0^α m1^{1−α} dy, the integral by quadrature (breakpoints 0, μ)."""
    m0, m1 = _release_pdf(release, 0), _release_pdf(release, mu)
    pts = sorted({mpf(0), mpf(mu)})
    integral = mpmath.quad(lambda y: m0(y) ** alpha * m1(y) ** (1 - alpha), [-mpmath.inf, *pts, mpmath.inf])
    return mpmath.log((1 - p) ** alpha * (1 - q) ** (1 - alpha) + p**alpha * q ** (1 - alpha) * integral)


def _quad_hockey(eps, p, q, release, mu):
    """[(1 − p) − e^ε(1 − q)]₊ + ∫ (p m0 − e^ε q m1)₊ dy, the integral by quadrature over where it is positive."""
    m0, m1 = _release_pdf(release, 0), _release_pdf(release, mu)
    f = lambda y: max(p * m0(y) - mpmath.exp(eps) * q * m1(y), 0)
    pts = sorted({mpf(-40), mpf(0), mpf(mu), mpf(mu) + 40} | set(_crossings(eps, p, q, release, mu)))
    return max((1 - p) - mpmath.exp(eps) * (1 - q), 0) + mpmath.quad(f, [-mpmath.inf, *pts, mpmath.inf])


def _crossings(eps, p, q, release, mu):
    """Where p m0 = e^ε q m1 (the kinks of the hockey-stick integrand), so quadrature pieces are smooth."""
    c = eps + mpmath.log(q / p)
    if mu == 0:
        return []
    if release == "gaussian":  # log m0/m1 = (μ² − 2μy)/2 = c
        return [(mu * mu / 2 - c) / mu]
    y = (mu - c) / 2  # log m0/m1 = |y − μ| − |y| = μ − 2y on (0, μ)
    return [y] if 0 < y < mu else []


CASES = [(mpf("0.3"), mpf("0.2"), "laplace", mpf(2)), (mpf("0.3"), mpf("0.2"), "gaussian", mpf("1.5")),
         (mpf("1e-6"), mpf("1e-7"), "laplace", mpf(6)), (mpf("0.6"), mpf("0.4"), "gaussian", mpf(0))]


@pytest.mark.parametrize("p, q, release, mu", CASES)
def test_moment_closed_form_against_quadrature(p, q, release, mu):
    for alpha in (mpf("2.5"), mpf(3), mpf("0.5")):
        assert abs(W.mixture_log_moment(alpha, p, q, release, mu) - _quad_moment(alpha, p, q, release, mu)) < mpf(
            "1e-20")


@pytest.mark.parametrize("p, q, release, mu", CASES)
def test_hockey_stick_closed_form_against_quadrature(p, q, release, mu):
    """At ε below, inside and above the release loss range (so every branch of δ_m, negative t included)."""
    for eps in (mpf(-1), mpf(0), mpf("0.7"), mpf(3), mpf(9)):
        exact, quad = W.mixture_hockey_stick(eps, p, q, release, mu), _quad_hockey(eps, p, q, release, mu)
        assert abs(exact - quad) <= mpf("1e-15") * max(quad, mpf("1e-30")), (eps, exact, quad)


def test_counterexample_pass_probabilities_and_moment():
    """Notes §2.5: δ′ = Φ̄(4) = 3.17e-5, p′ = Φ̄(5) = 2.87e-7 at σ_T = 1, threshold 4; the §3.5 moment in closed form."""
    mix = W._counterexample_mix(1, 4, mpmath.sqrt(5), 1)
    assert abs(mpmath.exp(mix.log_p) - mpf("3.17e-5")) < mpf("5e-8")
    assert abs(mpmath.exp(mix.log_q) - mpf("2.87e-7")) < mpf("5e-10")
    a, p, q = mpf(4), mpmath.ncdf(-4), mpmath.ncdf(-5)
    closed = mpmath.log((1 - p) ** a * (1 - q) ** (1 - a) + p**a * q ** (1 - a) * mpmath.exp(a * (a - 1) * 5 / 2))
    assert abs(W.counterexample_log_moment(a, 1, 4, mpmath.sqrt(5), 1) - closed) < mpf("1e-25")
    assert abs(G.b2_5_counterexample_divergence(a, 1, 4, mpmath.sqrt(5), 1) - closed / 3) < mpf("1e-25")


def test_classic_pair_tends_to_half_delta():
    """Pair (a) of notes §3.3: D = D′ = 0, δ(2ε) = (δ/2)(1 − e^{(2ε − μ)/2}) rises to δ/2 with the shift μ."""
    eps, delta = mpf("0.5"), mpf("1e-4")
    values = [W.classic_ptr_hockey_stick(2 * eps, eps, delta, 0, 0, mu) for mu in (2, 5, 10, 25, 60)]
    assert all(a < b for a, b in zip(values, values[1:])) and values[-1] < delta / 2
    for mu, v in zip((2, 5, 10, 25, 60), values):
        assert abs(v - delta / 2 * -mpmath.expm1((2 * eps - mu) / 2)) < mpf("1e-28")


@pytest.mark.parametrize("wid", IDS)
def test_numpy_densities_are_the_mpmath_laws(wid):
    w = catalogue.get_witness(wid)
    params = {p.name: p.example for p in w.params}
    o = w.sample(np.random.default_rng(3), 400, **params)
    assert set(np.unique(o[:, 0])) <= {0.0, 1.0} and np.all(o[o[:, 0] == 0, 1] == 0)
    mix = {"gptr.classic_ptr": W._classic_mix, "gptr.ptr_mixture": W._general_mix,
           "gptr.b2_5_counterexample": W._counterexample_mix}[wid](**params)
    m0, m1 = _release_pdf(mix.release, 0), _release_pdf(mix.release, mix.mu)
    for row, lp, lq in zip(o[:40], w.log_p(o[:40], **params), w.log_q(o[:40], **params)):
        if row[0] == 1:
            ep, eq = mix.log_p + mpmath.log(m0(mpf(row[1]))), mix.log_q + mpmath.log(m1(mpf(row[1])))
        else:
            ep, eq = mix.log_1mp, mix.log_1mq
        assert abs(lp - float(ep)) < 1e-12 * max(1, abs(lp)) and abs(lq - float(eq)) < 1e-12 * max(1, abs(lq))


@pytest.mark.parametrize("wid", IDS)
def test_moments_at_orders_zero_one_and_bad_input(wid):
    w = catalogue.get_witness(wid)
    params = {p.name: p.example for p in w.params}
    assert [w.log_moment(a, **params) for a in (0, 1)] == [0, 0]
    with pytest.raises(DomainError, match="alpha="):
        w.log_moment(float("nan"), **params)
    name = w.params[0].name
    with pytest.raises(DomainError, match=f"{name}="):
        w.log_moment(2, **{**params, name: -1})


def test_strata_cover_both_outputs():
    w = catalogue.get_witness("gptr.ptr_mixture")
    params = dict(p_pass="1e-9", q_pass="1e-10", release="gaussian", shift=3)
    (w_bot, s_bot), (w_rel, s_rel) = w.strata(**params)
    assert abs(w_bot + w_rel - 1) < 1e-15 and abs(w_rel - 1e-9) < 1e-24
    rng = np.random.default_rng(0)
    assert np.all(s_bot(rng, 10)[:, 0] == 0) and np.all(s_rel(rng, 10)[:, 0] == 1)


def test_sampler_with_a_wrong_shift_is_caught():
    """check_sampler at p = 0.3, q = 0.2, Gaussian shift 2 (n = 1e5, seed 7): the sampler passes; one drawing the
    release with 1.5× the shift on P's side is caught."""
    w = catalogue.get_witness("gptr.ptr_mixture")
    params = dict(p_pass="0.3", q_pass="0.2", release="gaussian", shift=2)
    assert all(c.ok for c in check_sampler(w, params, n=100_000, seed=7))

    def bad_sample(rng, n, **kw):
        o = w.sample(rng, n, **kw)
        o[:, 1] = np.where(o[:, 0] == 1, o[:, 1] - 1.0, 0.0)  # P's release drawn around −1 instead of 0
        return o

    bad = dataclasses.replace(w, sample=bad_sample, strata=None)
    assert not all(c.ok for c in check_sampler(bad, params, n=100_000, seed=7))


def test_b2_5_witness_use_is_tight_at_zero_test_cost():
    """Thm B.2.5's witness use (both neighbours bad, passing with δ′, Gaussian releases at D_α = ε̃(α)) has exactly
    the bound's D_α where ε̂(α) = ε(α) = 0, and stays below it elsewhere."""
    st = catalogue.get("gptr.thm_b2_5")
    use = st.witnesses[0]
    for alpha, dp, eps_t in ((2, "1e-3", 5), (16, "1e-8", 3), ("1.5", "0.3", 40)):
        p = dict(alpha=mpf(alpha), eps_hat_alpha=mpf(0), eps_tilde_alpha=mpf(eps_t), eps_alpha=mpf(0),
                 delta_prime=mpf(dp), pass_law="equal")
        exact = W.mixture_log_moment(p["alpha"], **use.witness_params(p)) / (p["alpha"] - 1)
        bound = st.evaluate(dps=30, **p).value
        assert abs(exact - bound) <= mpf("1e-25") * bound
        assert exact < st.evaluate(dps=30, **{**p, "eps_alpha": mpf("0.1")}).value
