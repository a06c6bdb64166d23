"""R_q^(β), R̃_q^(β) of the subsampled Laplace test: vectors (notes §5.2) and the three routes of notes §2.10."""
import mpmath
import pytest
from hypothesis import given, settings, strategies as st
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.ptr import rq as R

VECTORS = [  # beta, q, b, value (notes §5.2)
    (2, "0.01", 1, "1.00008572996467"), (10, "0.1", "0.5", "11.3104734802583"),
    (-1, "0.01", 1, "1.00008486639016"), ("1.5", "0.05", 3, "1.00009511530962"),
    ("-2.5", "0.1", "0.5", "1.10351481243878"),
]


@pytest.mark.parametrize("beta,q,b,value", VECTORS)
def test_rq_vectors_all_routes(beta, q, b, value):
    st_ = catalogue.get("ptr.rq")
    variants = ["default", "quadrature", "hyp2f1"] + (["binomial"] if mpf(beta) >= 0 and mpf(beta) % 1 == 0 else [])
    for v in variants:
        got = st_.evaluate(dps=50, variant=v, beta=beta, q=q, b=b).value
        assert abs(got - mpf(value)) <= mpf(10) ** -14 * abs(mpf(value)), v


def test_rq_tilde_of_2_is_rq_of_minus_1():
    with mpmath.workdps(50):
        assert abs(R.rq_tilde(mpf(2), mpf("0.01"), mpf(1)) - mpf("1.00008486639016")) < mpf(10) ** -14


@pytest.mark.parametrize("q,b", [("0.3", 1), ("1e-6", 5)])
def test_orders_zero_and_one_are_exactly_one(q, b):
    for beta in (0, 1):
        for v in ("default", "quadrature", "hyp2f1"):
            got = catalogue.get("ptr.rq").evaluate(dps=40, variant=v, beta=beta, q=q, b=b).value
            assert abs(got - 1) < mpf(10) ** -38
        with mpmath.workdps(25):  # the cancellation-free R − 1 is exactly 0 there, not quadrature noise
            assert R.rq_excess(mpf(beta), mpf(q), mpf(b)) == 0


@settings(max_examples=8, deadline=None)
@given(beta=st.one_of(st.integers(-6, 30), st.floats(-8, 25, allow_nan=False).map(lambda x: round(x, 3))),
       q=st.sampled_from(["1e-4", "0.01", "0.05", "0.3", "0.9"]), b=st.sampled_from(["0.3", "1", "3", "20"]))
def test_three_routes_agree_and_identity_82(beta, q, b):
    with mpmath.workdps(25):
        beta, q, b = mpf(beta), mpf(q), mpf(b)
        ref = R.rq_quadrature(beta, q, b)
        assert abs(R.rq_hyp2f1(beta, q, b) - ref) <= abs(ref) * mpf(10) ** -20
        if beta >= 0 and beta % 1 == 0:
            assert abs(R.rq_binomial(beta, q, b) - ref) <= abs(ref) * mpf(10) ** -20
        # eq. (82): R̃^(β) = R^(1−β), the left side from its definition under μ
        assert abs(R.rq_tilde(beta, q, b) - R.rq(1 - beta, q, b)) <= abs(ref) * mpf(10) ** -20
        # the cancellation-free R − 1
        assert abs(R.rq_excess(beta, q, b) - (ref - 1)) <= abs(ref) * mpf(10) ** -20


@settings(max_examples=10, deadline=None)
@given(q=st.sampled_from(["1e-3", "0.05", "0.5"]), b=st.sampled_from(["0.5", "2"]),
       beta=st.floats(1.01, 12).map(lambda x: round(x, 2)))
def test_rq_is_at_least_one_and_log_convex(q, b, beta):
    """R^(β) ≥ 1 for β ∉ (0,1) (Jensen, E[μ/μ0] = 1), and ln R^(β) is convex in β (a cumulant)."""
    with mpmath.workdps(25):
        q, b, beta = mpf(q), mpf(b), mpf(beta)
        r = [R.rq(x, q, b) for x in (beta - mpf("0.5"), beta, beta + mpf("0.5"))]
        assert r[1] >= 1 and R.rq(1 - beta, q, b) >= 1
        assert 2 * mpmath.log(r[1]) <= mpmath.log(r[0]) + mpmath.log(r[2]) + mpf(10) ** -20


def test_tiny_q_excess_keeps_relative_precision():
    with mpmath.workdps(30):
        q, b = mpf("1e-12"), mpf(1)
        ex = R.rq_excess(mpf(2), q, b)
        # R^(2) − 1 = q²(m_2 − 1) with m_2 = (2/3)e^{1/b} + (1/3)e^{−2/b}
        exact = q**2 * (mpf(2) / 3 * mpmath.e + mpmath.exp(-2) / 3 - 1)
        assert abs(ex - exact) <= abs(exact) * mpf(10) ** -25


@pytest.mark.parametrize("oracle", [
    "rq_hyp2f1",  # the closed-form ₂F₁ route: 0.04 s
    pytest.param("rq_binomial", marks=pytest.mark.slow),  # 10⁴ + 1 binomial terms at 50 digits: ~13 s
])
def test_quadrature_route_handles_the_sharp_kink_at_large_beta_small_b(oracle):
    """Regression (found by the fast-path tests): at β = 1e4, b = 0.05, q = 1e-8 the integrand bends over a width
    ≈ b/2 around s* = (1 + b log((1−q)/q))/2 and the quadrature over [0, ½, 1] failed its error check. With the
    kink as a breakpoint it agrees with the binomial route and with the ₂F₁ route (an independent closed form;
    test_three_routes_agree_and_identity_82 checks the routes against each other elsewhere)."""
    from dpspec.reference.ptr import rq

    beta, q, b = mpmath.mpf(10000), mpmath.mpf("1e-8"), mpmath.mpf("0.05")
    with mpmath.workdps(50):
        quad, exact = rq.rq_quadrature(beta, q, b), getattr(rq, oracle)(beta, q, b)
        assert abs(quad / exact - 1) < mpmath.mpf(10) ** -40
