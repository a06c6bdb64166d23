"""The mpmath PLD sandwich (reference/base/pld.py): one-step discretisations against the exact profile computed
here from the normal CDFs, T-fold compositions against closed forms (Gaussian: base.gdp_profile; pure DP:
base.kov15_profile), the second-order width, the exact convolution, ε(δ), and the four catalogue statements."""
import random

import mpmath
import pytest
from mpmath import mp, mpf

from _helpers import reference_value as ev
from dpspec.reference import catalogue
from dpspec.reference.base import pld
from dpspec.reference.base.composition import kov15_profile
from dpspec.reference.base.fdp import gdp_profile
from dpspec.reference.errors import DomainError

DPS = 30
TOL = mpf(10) ** -22  # relative, at DPS digits (rounding of the masses and the fixed-point products)
TINY = mpf(10) ** -55  # absolute: the trimmed tails are ≤ 2^-200 ≈ 6e-61 each


@pytest.fixture(autouse=True)
def _precision():
    with mp.workdps(DPS):
        yield


def exact_one_step(eps, q, sigma, direction):
    """δ(ε) = P(L > ε) − e^ε Q(L > ε) of one SGM step from the normal CDFs, at 80 digits (independent of the module:
    remove P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²); L > ε iff o > t = σ² log((e^ε − 1 + q)/q) + 1/2; add: the pair
    swapped, L > ε iff o < t = σ² log((e^{−ε} − 1 + q)/q) + 1/2)."""
    with mp.workdps(80):
        eps, q, s = mpf(eps), mpf(q), mpf(sigma)
        sign = 1 if direction == "remove" else -1
        arg = mpmath.exp(sign * eps) - 1 + q
        if arg <= 0:
            return +(1 - mpmath.exp(eps)) if direction == "remove" else mpf(0)
        t = s**2 * mpmath.log(arg / q) + mpf(1) / 2
        if direction == "remove":
            p_tail = (1 - q) * mpmath.ncdf(-t / s) + q * mpmath.ncdf(-(t - 1) / s)
            q_tail = mpmath.ncdf(-t / s)
        else:
            p_tail = mpmath.ncdf(t / s)
            q_tail = (1 - q) * mpmath.ncdf(t / s) + q * mpmath.ncdf((t - 1) / s)
        value = p_tail - mpmath.exp(eps) * q_tail
    return +value


def exact_rr(eps, eps0):
    """δ(ε) of one randomized-response step: Σ over its two atoms above ε of p(1 − e^{ε − l})."""
    e0 = mpf(eps0)
    atoms = [(e0, 1 / (1 + mpmath.exp(-e0))), (-e0, 1 / (1 + mpmath.exp(e0)))]
    return mpmath.fsum(p * -mpmath.expm1(mpf(eps) - l) for l, p in atoms if l > eps)


def below(a, b):
    """a ≤ b up to the rounding of the construction."""
    return a <= b + TOL * abs(b) + TINY


SGM_CASES = [("0.01", "1", "0.05"), ("0.3", "0.7", "0.1"), ("1", "1", "0.1"), ("0.9", "2", "0.05"),
             ("0.05", "0.5", "0.2")]
EPS_POINTS = ["0", "0.013", "0.05", "0.1", "0.37", "1", "1.234", "2.5", "4"]


def test_kronecker_product_is_the_direct_convolution():
    rng = random.Random(20261127)
    for _ in range(100):
        a = [rng.getrandbits(rng.randint(0, 300)) for _ in range(rng.randint(1, 25))]
        b = [rng.getrandbits(rng.randint(0, 300)) for _ in range(rng.randint(1, 25))]
        assert pld._kronecker(a, b) == pld.direct_convolution(a, b)
        assert pld._kronecker(a, a) == pld.direct_convolution(a, a)
    assert pld._kronecker([0, 0, 5], [0, 7]) == [0, 0, 0, 35]


@pytest.mark.parametrize("q,sigma,step", SGM_CASES)
def test_one_step_masses_upper_sum_to_one_lower_at_most_one(q, sigma, step):
    for direction in pld.PLD_DIRECTIONS:
        b = pld._buckets_cached(pld.SgmPair(mpf(q), mpf(sigma), direction).key(), mpf(step), mp.prec)  # shared
        up, lo = pld.upper_pmf(b), pld.lower_pmf(b)
        assert all(m >= 0 for m in up.masses) and up.m_inf >= 0
        assert all(m >= 0 for m in lo.masses) and lo.m_inf >= 0 and lo.dropped >= 0
        assert abs(mpmath.fsum(up.masses) + up.m_inf - 1) < mpf(10) ** -25
        # the lower curve ψ has ψ(0) = 1: its atoms, its mass at +∞ and what it dropped add up to 1
        lower_total = mpmath.fsum(lo.masses) + lo.m_inf
        assert lower_total <= 1 + mpf(10) ** -28 and abs(lower_total + lo.dropped - 1) < mpf(10) ** -25
        fixed = pld.to_fixed(lo, "lower", pld.fixed_bits(mp.prec))
        assert min(fixed.masses) >= 0 and sum(fixed.masses) + fixed.inf <= (1 + mpf(10) ** -28) * 2 ** fixed.bits
        # the bucket masses are computed one by one: their sum with the tails is 1 only if each is right
        total_p = mpmath.fsum(b.P) + b.p_lo + b.p_hi + b.p_inf
        assert abs(total_p - 1) < mpf(10) ** -25 and abs(mpmath.fsum(b.Q) + b.q_lo + b.q_hi - 1) < mpf(10) ** -25


@pytest.mark.parametrize("q,sigma,step", SGM_CASES)
def test_one_step_sandwich_contains_the_exact_profile(q, sigma, step):
    for direction in pld.PLD_DIRECTIONS:
        pair = pld.SgmPair(mpf(q), mpf(sigma), direction)
        up, lo = pld.composed(pair, step, 1, "upper"), pld.composed(pair, step, 1, "lower")
        for eps in EPS_POINTS:
            exact = exact_one_step(eps, q, sigma, direction)
            u, l = pld.pmf_delta(up, mpf(eps)), pld.pmf_delta(lo, mpf(eps))
            assert below(l, exact) and below(exact, u), (direction, eps, l, exact, u)
        # connect the dots interpolates: at the grid points the upper δ is the exact one
        for k in (0, 1, 3, 7):
            eps = k * mpf(step)
            exact = exact_one_step(eps, q, sigma, direction)
            assert abs(pld.pmf_delta(up, eps) - exact) <= TOL * exact + TINY, (direction, k)


@pytest.mark.parametrize("direction", pld.PLD_DIRECTIONS)
def test_top_hockey_stick_closed_form_matches_the_normal_cdfs(direction):
    # the mass at +inf of the upper PMF is δ(ε_k1), taken from the Gaussian profile (SgmPair.hockey_stick)
    for q, sigma in (("0.01", "1"), ("0.3", "0.7"), ("0.9", "2")):
        pair = pld.SgmPair(mpf(q), mpf(sigma), direction)
        for l in ("0", "0.05", "0.3", "1.5", "6"):
            exact = exact_one_step(l, q, sigma, direction)
            assert abs(pair.hockey_stick(lambda: mpf(l)) - exact) <= TOL * exact + mpf(10) ** -70, (q, sigma, l)


@pytest.mark.parametrize("sigma,steps", [("1", 4), ("2", 16), ("0.7", 9)])
def test_gaussian_composition_is_sandwiched_by_the_gdp_profile(sigma, steps):
    pair = pld.SgmPair(mpf(1), mpf(sigma), "remove")
    up, lo = pld.composed(pair, "0.1", steps, "upper"), pld.composed(pair, "0.1", steps, "lower")
    mu = mpmath.sqrt(steps) / mpf(sigma)
    for eps in ("0", "0.33", "1", "2.05", "4"):
        exact = gdp_profile(mpf(eps), mu)  # T Gaussian steps are exactly μ-GDP with μ = √T/σ
        u, l = pld.pmf_delta(up, mpf(eps)), pld.pmf_delta(lo, mpf(eps))
        assert below(l, exact) and below(exact, u), (eps, l, exact, u)
        assert u - l < mpf("0.1") * exact  # and tight at this grid (measured: at most 0.062 of δ, at ε = 4)


@pytest.mark.parametrize("eps0,steps,step", [("0.37", 12, "0.1"), ("1.1", 5, "0.2"), ("0.123", 20, "0.05")])
def test_pure_dp_composition_is_sandwiched_by_kov15(eps0, steps, step):
    pair = pld.RandomizedResponsePair(mpf(eps0))
    one_up, one_lo = pld.composed(pair, step, 1, "upper"), pld.composed(pair, step, 1, "lower")
    up, lo = pld.composed(pair, step, steps, "upper"), pld.composed(pair, step, steps, "lower")
    for eps in ("0", "0.2", "0.5", "1", "2.5"):
        e = mpf(eps)
        assert below(pld.pmf_delta(one_lo, e), exact_rr(e, eps0)) and below(exact_rr(e, eps0), pld.pmf_delta(one_up, e))
        exact = kov15_profile(mpf(eps0), mpf(0), steps, e)  # the optimal composition of ε₀-DP is T-fold RR
        u, l = pld.pmf_delta(up, e), pld.pmf_delta(lo, e)
        assert below(l, exact) and below(exact, u), (eps, l, exact, u)


def test_pure_dp_on_the_grid_is_exact():
    # ε₀ = 3D: both atoms sit on grid points, nothing is split or lowered, so both sides are the exact profile
    pair = pld.RandomizedResponsePair(mpf("0.75"))
    up, lo = pld.composed(pair, "0.25", 7, "upper"), pld.composed(pair, "0.25", 7, "lower")
    for eps in ("0", "0.5", "1.1", "3"):
        exact = kov15_profile(mpf("0.75"), mpf(0), 7, mpf(eps))
        assert abs(pld.pmf_delta(up, mpf(eps)) - exact) <= TOL * exact + TINY
        assert abs(pld.pmf_delta(lo, mpf(eps)) - exact) <= TOL * exact + TINY


def _width(pair, step, steps, eps):
    return (pld.pmf_delta(pld.composed(pair, step, steps, "upper"), eps)
            - pld.pmf_delta(pld.composed(pair, step, steps, "lower"), eps))


@pytest.mark.parametrize("q,sigma,steps,floor", [("1", "2", 16, 3.5), ("0.3", "1", 8, 2.8)])
def test_width_shrinks_like_the_square_of_the_grid_step(q, sigma, steps, floor):
    # measured ratios when D halves from 0.2 to 0.1: 4.3–4.4 (Gaussian), 3.4–3.6 (q = 0.3, remove); a first-order
    # construction gives about 2. (Not the add direction: its loss piles up at the support's end −log(1 − q), and
    # the lower side there converges like D with a constant that depends on where the end falls in its bucket.)
    pair = pld.SgmPair(mpf(q), mpf(sigma), "remove")
    for eps in (mpf("0.5"), mpf(1), mpf(2)):
        coarse, fine = _width(pair, "0.2", steps, eps), _width(pair, "0.1", steps, eps)
        assert floor < coarse / fine < 6, (eps, coarse, fine)


def test_the_spec_literal_lower_masses_fail_at_the_support_ends_and_the_reference_repairs_them():
    # the first lower construction's m~ formulas (FINDINGS.md, issue 14): remove's grid starts at log(1 − q), where δ(x_k0) = 1 − x_k0 and the lowered dot
    # falls below 1 − x (m~_k0 < 0); add's ends at −log(1 − q), where the lowered dot falls below P_inf = 0
    # (m~_k1 < 0). The reference's ψ = max(GCM, 1 − x, P_inf) keeps every mass ≥ 0 and agrees with the formulas
    # wherever the polyline is clean (checked on the Gaussian's central dots).
    def literal(b):
        n, xs = b.k1 - b.k0 + 1, b.x
        h = [xs[i + 1] - xs[i] for i in range(n - 1)]
        G = [(A * C / (A + C)) if A + C > 0 else mpf(0) for A, C in zip(b.A, b.C)]
        g = [max(G[i - 1] if i > 0 else 0, G[i] if i < n - 1 else 0) for i in range(n)]
        up = pld.upper_pmf(b).masses
        m = [b.C[0] / mpmath.expm1(b.step) - xs[0] * (g[1] - g[0]) / h[0]]
        m += [up[i] - xs[i] * ((g[i + 1] - g[i]) / h[i] - (g[i] - g[i - 1]) / h[i - 1]) for i in range(1, n - 1)]
        m.append(b.A[-1] * mpmath.exp(b.step) / mpmath.expm1(b.step) + xs[-1] * (g[-1] - g[-2]) / h[-1]
                 + b.p_hi - g[-1])
        return m

    remove = pld.SgmPair(mpf("0.3"), mpf(1), "remove").buckets(mpf("0.1"))
    add = pld.SgmPair(mpf("0.3"), mpf(1), "add").buckets(mpf("0.1"))
    assert literal(remove)[0] < -mpf("0.01") and literal(add)[-1] < -mpf("0.01")
    assert all(m >= 0 for m in pld.lower_pmf(remove).masses + pld.lower_pmf(add).masses)
    gauss = pld.SgmPair(mpf(1), mpf(1), "remove").buckets(mpf("0.1"))
    lit, robust = literal(gauss), pld.lower_pmf(gauss).masses
    centre = [i for i in range(len(lit)) if lit[i] > mpf(10) ** -20]
    assert len(centre) > 100
    assert all(abs(lit[i] - robust[i]) <= mpf(10) ** -25 * lit[i] for i in centre[3:-3])


def test_composed_lower_stays_below_upper_where_the_spec_masses_were_negative():
    for direction in pld.PLD_DIRECTIONS:
        pair = pld.SgmPair(mpf("0.3"), mpf(1), direction)
        up, lo = pld.composed(pair, "0.1", 8, "upper"), pld.composed(pair, "0.1", 8, "lower")
        for eps in ("0", "0.3", "1", "2"):
            assert pld.pmf_delta(lo, mpf(eps)) <= pld.pmf_delta(up, mpf(eps))


def test_trimming_rounds_each_side_its_own_way():
    bits = pld.TAIL_BITS + 60  # tails of mass ≤ 2^-TAIL_BITS are 2^60 units here
    big, small = 1 << (bits - 1), 1 << 59
    masses = (small, 0, big, big - 7, 3, 0)  # losses −0.2 … 0.3 on the grid 0.1
    up = pld._trim(pld.FixedPmf(-2, mpf("0.1"), masses, 1, bits, "upper"))
    lo = pld._trim(pld.FixedPmf(-2, mpf("0.1"), masses, 0, bits, "lower"))
    assert (up.start, up.masses, up.inf) == (0, (big + small, big - 7), 1 + 3)  # left rounded up, right to +inf
    assert (lo.start, lo.masses, lo.inf) == (0, (big, big - 7 + 3), 0)  # left dropped, right rounded down


def test_epsilon_inverts_delta_and_is_monotone():
    pair = pld.SgmPair(mpf("0.2"), mpf("0.9"), "remove")
    for side in pld.SIDES:
        p = pld.composed(pair, "0.1", 10, side)
        for e in ("0.25", "0.71", "1.93", "3.02"):  # off the grid: δ is strictly decreasing there
            delta = pld.pmf_delta(p, mpf(e))
            assert abs(pld.pmf_epsilon(p, delta) - mpf(e)) < mpf(10) ** -20
        previous = mpf("inf")
        for delta in ("1e-12", "1e-8", "1e-4", "0.01", "0.1"):
            eps = pld.pmf_epsilon(p, mpf(delta))
            assert eps <= previous and pld.pmf_delta(p, eps) <= mpf(delta) * (1 + TOL)
            previous = eps
        assert pld.pmf_epsilon(p, pld.pmf_delta(p, mpf(0)) * (1 + mpf(10) ** -20)) == 0
    up = pld.composed(pair, "0.1", 10, "upper")
    assert up.inf > 0 and pld.pmf_epsilon(up, mpf(up.inf) / 2 ** up.bits) == mpf("inf")  # cannot be certified


def test_catalogue_statements_bracket_each_other_at_the_example():
    params = catalogue.get("base.pld_sgm_delta").example_params()
    upper, lower = ev("base.pld_sgm_delta", **params), ev("base.pld_sgm_delta_lower", **params)
    assert 0 < lower < upper < 1
    p = {k: v for k, v in params.items() if k != "eps"}
    e_up, e_lo = ev("base.pld_sgm_epsilon", delta="1e-5", **p), ev("base.pld_sgm_epsilon_lower", delta="1e-5", **p)
    assert 0 < e_lo < e_up < mpf("inf")
    with mp.workdps(50):
        # the upper ε is where the upper δ falls to 1e-5
        assert abs(ev("base.pld_sgm_delta", eps=e_up, **p) - mpf("1e-5")) < mpf(10) ** -40
    with pytest.raises(DomainError):
        ev("base.pld_sgm_delta", **{**params, "grid_step": "0.01"})  # outside the reference's domain (work bound)
    with pytest.raises(DomainError):
        ev("base.pld_sgm_delta", **{**params, "steps": 65})


def test_lower_witness_maps_to_the_direction_of_the_larger_value():
    st = catalogue.get("base.pld_sgm_delta_lower")
    for eps in ("0.3", "2"):
        bound = st.bind({**st.example_params(), "eps": eps})
        values = pld.sgm_direction_values("delta", bound["eps"], bound["q"], bound["sigma"], bound["steps"],
                                          bound["grid_step"], "lower")
        chosen = st.witnesses[0].witness_params(bound)
        assert values[chosen["direction"]] == max(values.values()) and chosen["steps"] == bound["steps"]
