"""Witness pairs of seed 002 (reference/bc/witnesses.py): ``bc.round`` (one round with k subsets, notes §3.1) and
``bc.a1_mixture`` (the label-visible A1 mixture, notes §3.2). Samplers against the exact moments from the pairs' own
densities (conformance.sampling.check_sampler: z = 5, n = 10^5, seed 7), the moments against quadrature and against
an independent sum, Monte Carlo δ(ε) of the mixture against bc.a1_profile, and the uses declared on the statements."""
from __future__ import annotations

import dataclasses

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.conformance import tilting
from dpspec.conformance.sampling import check_sampler
from dpspec.reference import catalogue
from dpspec.reference.base.fdp import gdp_profile
from dpspec.reference.bc import qe, witnesses
from dpspec.reference.errors import ParameterError

catalogue.load_all()
MIX = dict(sampling="subsampling", N=400, m=4, s=1, g=1, E=4, sigma=1)  # notes §3.2: E = 4, R = 100, σ = 1


@pytest.mark.parametrize("wid, params", [("bc.round", {"k": 2, "sigma": 3}),
                                         ("bc.a1_mixture", {**MIX, "sigma": 4}),
                                         ("bc.a1_mixture", dict(sampling="shuffling", N=640, m=2, s=4, g=3, E=3,
                                                                sigma=3))])
def test_sampler_matches_the_exact_moment(wid, params):
    """E_P[e^{(α−1)L}] at α = 2 and E_P[L] = KL against the exact log-moment (n = 10^5, seed 7, z = 5)."""
    checks = check_sampler(wid, params, n=100_000, seed=7)
    assert len(checks) >= 2 and all(c.ok for c in checks), [str(c) for c in checks if not c.ok]


def test_sampler_with_sigma_off_is_caught():
    """The same check rejects a mixture sampler drawing x with σ 15 % too small (its moment is then too large)."""
    w = catalogue.get_witness("bc.a1_mixture")

    def sample(rng, n, **p):
        return w.sample(rng, n, **{**p, "sigma": float(p["sigma"]) * 0.85})

    bad = dataclasses.replace(w, sample=sample)
    params = {**MIX, "sigma": 4}
    assert all(c.ok for c in check_sampler(w, params, n=100_000, seed=7))
    assert not all(c.ok for c in check_sampler(bad, params, n=100_000, seed=7))


def test_round_moment_against_quadrature():
    """log E_Q[(p/q)^α] = α(α−1)k²/(2σ²) against quadrature of the N(k/σ,1) / N(0,1) densities."""
    w = catalogue.get_witness("bc.round")
    with mpmath.workdps(30):
        for a, k, sigma in ((mpf(2), 1, 1), (mpf("3.5"), 3, 2), (mpf("0.5"), 2, mpf("0.7"))):
            mu = mpf(k) / sigma
            quad = mpmath.quad(lambda x: mpmath.npdf(x, mu, 1) ** a * mpmath.npdf(x, 0, 1) ** (1 - a),
                               [-mpmath.inf, 0, mu, mpmath.inf])
            assert abs(w.log_moment(a, k=k, sigma=sigma) - mpmath.log(quad)) < mpf(10) ** -25


def test_mixture_moment_is_the_label_average_of_round_moments():
    """E_Q[(p/q)^α] of the labelled mixture = Σ_c q(c) E_Q[(p/q)^α | c]: the mixture's log-moment against the round
    pair's per label, weighted by the kept law (renormalised)."""
    w, r = catalogue.get_witness("bc.a1_mixture"), catalogue.get_witness("bc.round")
    p = dict(sampling="shuffling", N=640, m=2, s=4, g=3, E=2, sigma=2)
    with mpmath.workdps(30):
        law = qe.qe_law("shuffling", 640, 2, 4, 3, 2)
        for a in (mpf(2), mpf("3.5")):
            direct = mpmath.fsum(q * mpmath.exp(r.log_moment(a, k=1, sigma=2) * c2) for c2, q in
                                 zip(law.support, law.pmf)) / mpmath.fsum(law.pmf)
            assert abs(w.log_moment(a, **p) - mpmath.log(direct)) < mpf(10) ** -25
        assert w.log_moment(0, **p) == 0 and w.log_moment(1, **p) == 0


def test_mixture_loss_is_the_gaussian_loss_given_the_label():
    w = catalogue.get_witness("bc.a1_mixture")
    o = w.sample(np.random.default_rng(3), 1000, **MIX)
    L = w.privacy_loss(o, **MIX)
    c = np.sqrt(o[:, 0])
    np.testing.assert_allclose(L, c * o[:, 1] - o[:, 0] / 2, rtol=1e-12, atol=1e-12)
    assert set(np.unique(o[:, 0])) <= set(float(c2) for c2 in qe.qe_law(*list(MIX.values())[:6]).support)


def test_mixture_monte_carlo_profile_matches_a1_profile():
    """notes §3.2: E = 4, R = 100, σ = 1, δ(0, 1, 2) = 0.64653, 0.47328, 0.31506 (exact); δ̂(ε) = mean of
    (1 − e^{ε−L})₊ over n = 4·10^5 draws of P (seed 11) lies within 5 standard errors of bc.a1_profile."""
    w = catalogue.get_witness("bc.a1_mixture")
    L = w.privacy_loss(w.sample(np.random.default_rng(11), 400_000, **MIX), **MIX)
    st = catalogue.get("bc.a1_profile")
    for eps in (0, 1, 2):
        x = np.maximum(0.0, 1 - np.exp(eps - L))
        exact = float(st.evaluate(dps=20, eps=eps, **MIX).value)
        assert abs(x.mean() - exact) <= 5 * x.std(ddof=1) / np.sqrt(len(x)), (eps, x.mean(), exact)


def test_round_tilt_family_describes_the_pair():
    fam = witnesses._round_tilt_family(3, 2)
    assert fam == {"family": "gaussian_mixture", "weights": [1.0], "shifts": [1.5], "center": 0.0, "sigma": 1.0}
    parsed = tilting._parse_family(fam, "bc.round")
    assert parsed is not None
    o = np.linspace(-4, 6, 11)
    w = catalogue.get_witness("bc.round")
    np.testing.assert_allclose(w.privacy_loss(o, k=3, sigma=2), 1.5 * o - 1.5 ** 2 / 2, rtol=1e-12, atol=1e-12)
    assert witnesses._round_tilt_family(0, 2) is None


def test_round_use_only_where_qe_is_a_point_mass():
    """bc.round composed E times is the A1 pair for shuffling with g = 1 (c² = E, Lemma G.2): the statements equal
    G_{√E/σ}; the use refuses elsewhere."""
    p = dict(sampling="shuffling", N=64, m=4, s=2, g=1, E=9, sigma=2)
    assert witnesses.round_use(p) == {"k": 1, "sigma": 2, "steps": 9}
    v = catalogue.get("bc.a1_profile")(eps="0.5", **p)
    with mpmath.workdps(50):
        assert abs(v - gdp_profile(mpf("0.5"), mpf(3) / 2)) < mpf(10) ** -14
    ic = dict(sampling="subsampling", N=8, m=8, s=1, g=3, E=2, sigma=2)
    assert witnesses.round_use(ic) == {"k": 3, "sigma": 2, "steps": 2}
    law = qe.qe_law("subsampling", 8, 8, 1, 3, 2)
    assert law.support == (2 * 9,) and law.pmf[0] == 1  # every round holds the 3 samples in 3 distinct subsets
    with pytest.raises(ParameterError, match="point mass"):
        witnesses.round_use(MIX)


def test_statements_name_the_witnesses():
    for sid in ("bc.def4_2", "bc.a1_profile", "bc.a1_epsilon"):
        assert [u.witness for u in catalogue.get(sid).witnesses] == ["bc.a1_mixture"]
