"""base.kov15_heterogeneous_profile and base.heterogeneous_basic_composition (Murtagh & Vadhan 2016, arXiv
1507.03113v3, Thm 1.5): against KOV15's homogeneous profile, against the hockey-stick divergence of the canonical
product computed by brute force over all 4^k outcomes, and their refusals."""
import itertools
import math

import mpmath
import numpy as np
import pytest

from dpspec.reference.base import composition_heterogeneous as H
from dpspec.reference.base.composition import kov15_profile
from dpspec.reference.errors import DomainError, ParameterError

MIXED = [[0.5, 1e-6], [0.1, 0.0], [0.3, 1e-3], [0.1, 0.0]]


def _hockey_stick_brute_force(mechanisms, eps_total):
    """Σ_o (P(o) − e^{ε_g} Q(o))₊ over the 4^k outcomes of the canonical product (independent of the formula)."""
    p, q = [], []
    for e, d in mechanisms:  # KOV15 §3's canonical pair, at the working precision
        e, d = mpmath.mpf(e), mpmath.mpf(d)
        hi, lo = (1 - d) * mpmath.exp(e) / (1 + mpmath.exp(e)), (1 - d) / (1 + mpmath.exp(e))
        p.append((d, hi, lo, 0))
        q.append((0, lo, hi, d))
    k = len(p)
    total = mpmath.mpf(0)
    for o in itertools.product(range(4), repeat=k):
        pp = mpmath.fprod(p[i][o[i]] for i in range(k))
        qq = mpmath.fprod(q[i][o[i]] for i in range(k))
        total += max(pp - mpmath.exp(eps_total) * qq, 0)
    return total


@pytest.mark.parametrize("eps,delta,k,eps_total", [(0.1, 1e-6, 10, 0.5), (1.0, 0.0, 7, 2.5), (0.01, 1e-3, 40, 0.05),
                                                   (2.0, 1e-9, 3, 0.0)])
def test_equal_mechanisms_give_kov15(eps, delta, k, eps_total):
    got = H.kov15_heterogeneous_profile([[eps, delta]] * k, eps_total)
    want = kov15_profile(eps, delta, k, eps_total)
    assert abs(got - want) <= mpmath.mpf(10) ** -40 * max(want, mpmath.mpf(10) ** -300)


@pytest.mark.parametrize("eps_total", [0.0, 0.2, 0.55, 0.7, 1.0, 1.5])
def test_matches_the_canonical_products_hockey_stick(eps_total):
    """The brute force at 50 digits: agreement to 1e-40 relative (the formula's log-space sum vs a direct sum)."""
    with mpmath.workdps(50):
        got = H.kov15_heterogeneous_profile(MIXED, eps_total)
        want = _hockey_stick_brute_force(MIXED, eps_total)
        assert abs(got - want) <= mpmath.mpf(10) ** -40 * want, (eps_total, got, want)


def test_basic_composition_is_the_profile_at_the_summed_eps():
    eps, delta = H.heterogeneous_basic_composition(MIXED)
    assert eps == mpmath.mpf(1.0)
    assert delta == -mpmath.expm1(mpmath.log1p(-mpmath.mpf(1e-6)) + mpmath.log1p(-mpmath.mpf(1e-3)))
    assert abs(H.kov15_heterogeneous_profile(MIXED, eps) - delta) <= mpmath.mpf(10) ** -45
    assert delta < mpmath.mpf(1e-6) + mpmath.mpf(1e-3)  # tighter than Dwork–Roth's Σδᵢ


def test_profile_decreases_in_the_total_eps():
    values = [H.kov15_heterogeneous_profile(MIXED, e) for e in (0, 0.1, 0.3, 0.6, 0.9)]
    assert all(a > b for a, b in zip(values, values[1:]))


def test_refusals():
    for bad in ([[0.1, 1.0]], [[-0.1, 0.0]], [[0.1, 0.0, 0.0]], [], [[0.1, -1e-9]]):
        with pytest.raises(DomainError):
            H.kov15_heterogeneous_profile(bad, 0.5)
    with pytest.raises(ParameterError):  # 2^20 count vectors
        H.kov15_heterogeneous_profile([[0.01 * (i + 1), 0.0] for i in range(20)], 0.5)


def test_the_canonical_products_sampler_matches_its_moment():
    """The witness's sampler: the empirical E_P[(p/q)^{α−1}] of the product (δᵢ = 0) against its log_moment
    (seed 0, 2·10⁵ draws; a 5 % error in the moment is ~20 standard errors here)."""
    mech = [[0.5, 0.0], [0.1, 0.0], [0.3, 0.0]]
    rng = np.random.default_rng(0)
    o = H._sample(rng, 200_000, mech)
    loss = H._log_density(0)(o, mech) - H._log_density(1)(o, mech)
    alpha = 3.0
    est = math.log(np.mean(np.exp((alpha - 1) * loss)))
    assert abs(est - float(H._log_moment(alpha, mech))) < 0.01
