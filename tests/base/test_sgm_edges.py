"""base.sgm_rdp at the edges of its domain: small and subnormal σ, huge σ, q → 1 and subnormal q, α → 1 and huge α.

Each test pins a defect found there (fast path below the reference, NaN, hangs, unbounded work), against the
reference or against an independent quadrature of the pair's densities. Reference values at 20 digits (the
self-check still compares two precisions) to keep the file fast.
"""
import contextlib
import itertools
import math
import signal

import mpmath
import pytest
import torch
from mpmath import mp, mpf

from _helpers import assert_fast_matches_at, relative_error as rel, working_precision
from dpspec.fast.base import sgm as fast_sgm
from dpspec.reference.base import sgm as ref_sgm
from dpspec.reference.errors import PrecisionError

_dps = working_precision(20)


@contextlib.contextmanager
def within(seconds: int):
    """Fail (instead of hanging the suite) when the block runs longer than ``seconds``."""
    def _raise(*_):
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, _raise)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def independent_rdp(alpha, q, sigma, direction):
    """D_α between μ = (1−q)N(0,σ²) + qN(1,σ²) and μ0 = N(0,σ²) (add: D_α(μ0‖μ), remove: D_α(μ‖μ0)) by plain
    quadrature of the two densities, p^α q^{1−α}, split at 0, 1, α and at the transition z_s of the likelihood
    ratio (graded by σ²): none of the module's formulas (ψ, windows, closed forms) is used."""
    a, q, s = mpf(alpha), mpf(q), mpf(sigma)

    def log_p0(z):
        return -z * z / (2 * s * s)

    def log_mix(z):
        return mpmath.log((1 - q) * mpmath.exp(-z * z / (2 * s * s)) + q * mpmath.exp(-(z - 1) ** 2 / (2 * s * s)))

    if direction == "add":
        f = lambda z: mpmath.exp(a * log_p0(z) + (1 - a) * log_mix(z))  # noqa: E731
    else:
        f = lambda z: mpmath.exp(a * log_mix(z) + (1 - a) * log_p0(z))  # noqa: E731
    z_s = mpf(1) / 2 + s * s * (mpmath.log(1 - q) - mpmath.log(q))
    points = sorted({-40 * s, -s, mpf(0), s, z_s - 40 * s * s, z_s - s * s, z_s, z_s + s * s, z_s + 40 * s * s,
                     1 - s, mpf(1), 1 + s, a, 1 + 40 * s, a + 40 * s})
    return mpmath.log(mpmath.quad(f, points) / (mpmath.sqrt(2 * mpmath.pi) * s)) / (a - 1)


def fast(alpha, q, sigma, direction="max"):
    return float(fast_sgm.sgm_rdp(alpha, q, sigma, direction=direction))


# ---------------------------------------------------------------------------------------------------------------
# 1. soundness: the add direction at small σ and q → 1 (fast was 4.2 % low: Gauss–Legendre panels 24σ wide, and
#    1 + x formed from x ≈ −1)


def test_add_at_small_sigma_and_q_near_one_matches_an_independent_quadrature():
    a, q, s = 1.002696106339895, 0.9999999998683845, 0.008910218831514313
    expected = independent_rdp(a, q, s, "add")
    assert rel(expected, "22.751136351086") < 1e-12
    assert rel(fast(a, q, s, "add"), expected) < 1e-10  # was 21.80
    assert rel(ref_sgm.sgm_rdp(a, q, s, direction="add"), expected) < 1e-12


@pytest.mark.parametrize("alpha, q, sigma, direction, old_error", [
    (64, 1 - 1e-10, 1.0, "add", 4.6e-9),  # 1 + x = 1 − q + q e^u was formed as 1 + x from x ≈ −1
    (2.5, 0.5, 0.03, "add", 1.8e-10),  # panels too wide for a Gaussian of width σ
    (1 + 1e-6, 0.5, 0.03, "add", 2.1e-10),
])
def test_add_direction_matches_an_independent_quadrature(alpha, q, sigma, direction, old_error):
    assert rel(fast(alpha, q, sigma, direction), independent_rdp(alpha, q, sigma, direction)) < 1e-11


@pytest.mark.parametrize("alpha, q, sigma, direction", [
    (2.5, 0.5, 1e-3, "add"),  # fast was 0.439 (reference log 2): the closed form −log(1 − q) holds here
    (1 + 1e-6, 0.9999999999, 1e-3, "add"),  # fast was 1.38 (reference 23.03)
    (1 + 1e-6, 0.5, 1e-3, "remove"),  # fast did not answer in 5 s (4·10⁶ lattice nodes per order)
    (2.5, 1e-320, 1e-3, "remove"),  # fast: RuntimeError "repeats can not be negative" (log1p(1/q) = inf)
])
def test_small_sigma_matches_an_independent_quadrature(alpha, q, sigma, direction):
    assert rel(fast(alpha, q, sigma, direction), independent_rdp(alpha, q, sigma, direction)) < 1e-11


def test_anchored_coordinates_below_sigma_1e_3():
    # α − 1 < ~1600σ²: the remove direction is neither a closed form nor a binomial sum; the nodes around z = 1
    # are offsets from t = 1/σ (a float t near 1/σ = 1e4 would misplace them by ulp(1e4) ~ 2e-12 σ)
    a, q, s = 1 + 1e-9, 0.5, 1e-4
    expected = independent_rdp(a, q, s, "remove")
    assert rel(fast(a, q, s, "remove"), expected) < 1e-10


# ---------------------------------------------------------------------------------------------------------------
# 2. subnormal σ: σ² underflows to 0 (fast returned NaN with exit status 0)


def test_subnormal_sigma_is_inf_not_nan():
    # ε(α) ≈ α/(2σ²) ≈ 2e640 exceeds the float range: +inf is its float64 value (and a valid, vacuous bound)
    ref = ref_sgm.sgm_rdp(4, "0.01", 1e-320, direction="remove")
    assert ref > mpf("1e640") and float(ref) == math.inf
    for direction in ("max", "remove"):
        assert fast(4, 0.01, 1e-320, direction) == math.inf
    # the add direction is bounded by −log(1 − q), and equals it when the two distributions are disjoint
    assert rel(fast(4, 0.01, 1e-320, "add"), -math.log1p(-0.01)) < 1e-15
    assert rel(ref_sgm.sgm_rdp(4, "0.01", 1e-320, direction="add"), -mpmath.log1p(-mpf("0.01"))) < 1e-18
    # the reference's add quadrature returned −1.2e600 here
    assert ref_sgm.sgm_rdp(1 + 1e-9, "0.5", 1e-320, direction="add") == mpmath.log(2)


def test_result_below_the_normal_range_is_divided_in_logs():
    # A − 1 = C(α,2) q² (e^{1/σ²} − 1)·(1 + O(q e^{2/σ²})) ≈ 2e-323 here (subnormal): log1p(A − 1) rounded to a few
    # subnormal steps before the division by α − 1 = 2.8e-7, and ε (8.4e-317) came out 15 % low
    a, q, s = 1.0000002777554848, 8.935189844532533e-160, 0.4320832242673348
    expected = mpf(a) * mpf(q) ** 2 * mpmath.expm1(1 / mpf(s) ** 2) / 2  # ε = (A − 1)/(α − 1) to leading order
    assert rel(fast(a, q, s, "remove"), expected) < 1e-6  # a subnormal carries ~7 digits here


_A = [1 + 1e-9, 1 + 1e-6, 2.0, 2.5, 64.0, 1e4, 1e6, 1e308]
_Q = [1e-320, 1e-8, 0.5, 1 - 1e-10, 1.0]
_S = [1e-320, 1e-3, 0.03, 1.0, 1e3, 1e308]


@pytest.mark.parametrize("direction", ["remove", "add", "max"])
def test_extreme_grid_is_never_nan_and_batches_like_single_points(direction):
    # every (α, q, σ) of the probe grid, as one batch: finite or +inf, never NaN or negative, q = 1 the Gaussian
    grid = [(a, q, s) for a, q, s in itertools.product(_A, _Q, _S) if not (a >= 1e300 and s >= 1e150)]
    a, q, s = (torch.tensor(v, dtype=torch.float64) for v in zip(*grid))
    eps = fast_sgm.sgm_rdp(a, q, s, direction=direction)
    assert not torch.isnan(eps).any() and (eps >= 0).all()
    gauss = q == 1
    # q = 1 is the Gaussian mechanism, α/(2σ²), formed as ((α/2)/σ)/σ so that neither σ² nor 2σ overflows
    # (fast.gaussian_rdp; at σ = 1e300 the value is still a double where α/(2σ²) gave 0.0)
    assert torch.equal(eps[gauss], a[gauss] / 2 / s[gauss] / s[gauss])
    for i in (0, 37, 101, len(grid) - 1):  # a batch element does not depend on the rest of the batch
        assert eps[i].item() == fast(*grid[i], direction) or (math.isinf(eps[i].item()) and math.isinf(fast(*grid[i], direction)))


# ---------------------------------------------------------------------------------------------------------------
# 3. bounded work: huge α and huge σ answer (reference hung for minutes or ran out of memory; fast raised
#    "repeats can not be negative")


def test_closed_form_for_huge_alpha_is_the_binomial_sum_where_both_apply():
    # the closed form εα = α(log q + (α−1)/(2σ²))/(α−1) (a two-sided bound pins it to 10^{-(dps+10)}) agrees with
    # the exact binomial sum at an integer order where both are available
    a, q, s = mpf(200), mpf("0.01"), mpf("0.5")
    closed = ref_sgm._closed_remove(a, q, s)
    assert closed is not None
    assert rel(closed, ref_sgm.log_a_binomial(200, q, s) / (a - 1)) < mpf(10) ** -18
    assert rel(fast(200.0, 0.01, 0.5, "remove"), closed) < 1e-14
    # below the threshold the closed form is not claimed
    assert ref_sgm._closed_remove(mpf(3), q, mpf(2)) is None


@pytest.mark.parametrize("alpha", ["1e7", "1e308"])
def test_huge_alpha_answers_at_once(alpha):
    a, q = mpf(alpha), mpf("0.01")
    expected = a / 2 + a * mpmath.log(q) / (a - 1)  # σ = 1: the closed form, within 10^{-30} relative
    with within(300):  # the binomial sum took > 60 s at α = 1e7 and ran out of memory at 1e308
        assert ref_sgm._closed_remove(a, q, mpf(1)) is not None  # no O(α) binomial sum
        assert rel(ref_sgm.sgm_rdp(alpha, "0.01", 1), expected) < mpf(10) ** -18
    assert rel(fast(float(alpha), 0.01, 1.0), float(expected)) < 1e-15  # 1e308: "repeats can not be negative"


def test_huge_alpha_add_direction():
    # add ≤ −log(1 − q), with equality to 1e-17 at α = 1e308 (the closed form); at α = 1e7 just below it
    assert rel(fast(1e308, 0.01, 1.0, "add"), -math.log1p(-0.01)) < 1e-15
    assert ref_sgm._closed_add(mpf(1e308), mpf("0.01"), mpf(1)) == -mpmath.log1p(-mpf("0.01"))
    with within(300):
        ref = ref_sgm.sgm_rdp("1e7", "0.01", 1, direction="add")
    assert ref < -mpmath.log1p(-mpf("0.01")) and rel(fast(1e7, 0.01, 1.0, "add"), ref) < 1e-12


def test_huge_sigma_answers_and_underflows_to_zero():
    # σ = 1e308: ε(2) = log(1 + q²(e^{1/σ²} − 1)) = 1e-620, below the float range (0.0 in float64). The default
    # direction (max) settles add ≤ remove numerically: that add quadrature took > 120 s (616 guard digits)
    with within(300):
        value = ref_sgm.sgm_rdp(2, "0.01", 1e308)
    assert rel(value, mpmath.log1p(mpf("0.01") ** 2 * mpmath.expm1(1 / mpf(1e308) ** 2))) < mpf(10) ** -18
    for direction in ("remove", "add"):
        assert fast(2.0, 0.01, 1e308, direction) == 0.0
        assert fast(2.5, 0.5, 1e308, direction) == 0.0  # was RuntimeError "repeats can not be negative"


def test_tiny_q_uses_no_guard_digits():
    # q = 1e-320 needed 650 guard digits in the quadrature of log A (minutes); the ψ quadrature integrates A − 1
    with within(300):
        value = ref_sgm.sgm_rdp("2.5", 1e-320, "0.03", direction="add")
    assert 0 < value < mpf("1e-320")
    assert fast(2.5, 1e-320, 0.03, "add") == float(value)  # 2.9e-328, a subnormal: both round to the same float
    remove = ref_sgm.sgm_rdp(64, 1e-320, "0.03", direction="remove")  # the binomial sum
    assert rel(fast(64.0, 1e-320, 0.03, "remove"), remove) < 1e-13


@pytest.mark.parametrize("beta, q, sigma", [("3.7", "0.01", 1), ("-2.5", "0.2", "0.7")])
def test_psi_quadrature_equals_the_log_moment_quadrature(beta, q, sigma):
    # the two quadrature routes of the reference (A − 1 directly, and log A at guard digits) agree
    beta, q, sigma = mpf(beta), mpf(q), mpf(sigma)
    with mp.workdps(mp.dps + ref_sgm._guard_digits(q, sigma)):
        via_log_a = mpmath.log(mpmath.expm1(ref_sgm.log_moment_quad(beta, q, sigma)))
    assert rel(ref_sgm.log_excess_quad(beta, q, sigma), via_log_a) < mpf(10) ** -17


def test_fast_refuses_where_float64_cannot_integrate():
    # the mass lies beyond 2^40 standard deviations: a PrecisionError naming the parameters, never NaN
    with pytest.raises(PrecisionError, match="alpha=1e[+]308.*sigma=1e[+]154"):
        fast_sgm.sgm_rdp(1e308, 0.5, 1e154, direction="remove")


# ---------------------------------------------------------------------------------------------------------------
# 4. bounded work in the fast path at small σ (the lattice had ~2/(0.45σ²) nodes: 4·10⁶ per order at σ = 1e-3,
#    and the accountant's order search evaluates ~440 orders)


@pytest.mark.parametrize("sigma", [1e-3, 1e-6])
def test_nodes_per_order_do_not_grow_like_one_over_sigma_squared(sigma, monkeypatch):
    calls = []
    original = fast_sgm._log_f
    monkeypatch.setattr(fast_sgm, "_log_f", lambda s, *rest: calls.append(s.numel()) or original(s, *rest))
    from dpspec.fast.conversion import default_grid

    alpha = default_grid(torch.zeros((), dtype=torch.float64))
    alpha = alpha[alpha != torch.round(alpha)]  # the binomial sum takes the integer orders
    eps = fast_sgm.sgm_rdp(alpha, 0.01, sigma, direction="remove")
    assert torch.isfinite(eps).all() and (eps > 0).all()
    nodes = sum(calls)
    assert nodes <= 3000 * alpha.numel(), f"{nodes / alpha.numel():.0f} nodes per order"


def test_accountant_at_small_sigma_answers():
    from dpspec.fast import Accountant

    with within(300):  # was killed at 30 s (σ = 0.003: 110 s)
        eps = float(Accountant(method="rdp").sgm(q=0.01, sigma=1e-3).get_epsilon(1e-5))
    assert math.isfinite(eps) and eps > 0


# ---------------------------------------------------------------------------------------------------------------
# 5. float16 inputs are promoted to float64 (exactly) before anything is computed


@pytest.mark.parametrize("direction", ["remove", "add"])
def test_float16_inputs(direction):
    a16 = torch.tensor([4.0, 2.5, 1.0009765625], dtype=torch.float16)
    q16, s16 = torch.tensor(0.01, dtype=torch.float16), torch.tensor(0.8, dtype=torch.float16)
    out = fast_sgm.sgm_rdp(a16, q16, s16, direction=direction)
    assert out.dtype == torch.float64
    assert torch.equal(out, fast_sgm.sgm_rdp(a16.double(), q16.double(), s16.double(), direction=direction))
    q, s = float(q16), float(s16)  # 0.01000213623046875, 0.7998046875: the float16 values, exactly
    assert rel(out[0].item(), ref_sgm.sgm_rdp(4, q, s, direction=direction)) < 1e-12
    assert rel(out[1].item(), independent_rdp(2.5, q, s, direction)) < 1e-11


# ---------------------------------------------------------------------------------------------------------------
# issue 13 (H9): at tiny q every order went through a quadrature (~0.5–1 s each), so a conversion with
# curve=base.sgm_rdp q=1e-200 took 20–35 s; the leading term β(β−1)/2·q²(e^{1/σ²} − 1) with its proven remainder
# bound (_closed_small_q) answers in O(1)


@pytest.mark.parametrize("beta, q, sigma", [(2, "1e-60", 3), (7, "1e-55", "0.8"), (50, "1e-100", "0.9"),
                                            (3, "1e-200", "0.9590308538660799")])
def test_tiny_q_closed_form_is_the_binomial_sum(beta, q, sigma):
    with mp.workdps(40):
        q, sigma = mpf(q), mpf(sigma)
        closed = ref_sgm._closed_small_q(mpf(beta), q, sigma)
        assert closed is not None
        exact = mpmath.log(mpmath.fsum(ref_sgm._binomial_excess_terms(beta, q, sigma)))
        assert abs(closed - exact) <= abs(exact) * mpf(10) ** -38


@pytest.mark.parametrize("beta", ["3.5", "-2.5", "1.5", "40.5"])
def test_tiny_q_closed_form_matches_the_psi_quadrature(beta):
    with mp.workdps(30):
        q, sigma = mpf("1e-60"), mpf("0.9")
        closed = ref_sgm._closed_small_q(mpf(beta), q, sigma)
        assert closed is not None
        with mp.workdps(45):
            quad = ref_sgm.log_excess_quad(mpf(beta), q, sigma)
        assert abs(closed - quad) <= abs(quad) * mpf(10) ** -29


def test_tiny_q_closed_form_refuses_where_its_remainder_is_not_small():
    with mp.workdps(30):
        # q = 1e-8, σ = 1000: the remainder bound is ~1e-2·α relative, far above 10^-40
        assert ref_sgm._closed_small_q(mpf("2.5"), mpf("1e-8"), mpf(1000)) is None
        assert ref_sgm._closed_small_q(mpf("2.5"), mpf("0.01"), mpf(1)) is None


def test_tiny_q_orders_answer_at_once():
    with within(120):
        for alpha in ("847.067", "12480.7", "2038.45", "1.5"):
            for direction in ("remove", "add", "max"):
                value = ref_sgm.sgm_rdp(alpha, "1e-200", "0.9590308538660799", direction)
                assert 0 < value < mpmath.inf  # ~1e-398 below the cliff near α ≈ 850, far larger above it
