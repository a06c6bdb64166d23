"""PATE with generalized PTR (seed 003 §3.6.2; notes shared/notes/generalized-ptr.md §2.4, §3.11–3.12, §5.2, §7.2):
gptr.thm3_6_4 (GNMax data-dependent RDP, Papernot et al. 2018 Thm 6 + Prop 7), gptr.prop7_logq, gptr.gnmax_composed,
gptr.lemma3_6_5 (GNSS), gptr.lemma3_6_5_coverage, gptr.thm3_6_6, gptr.alg6_sigma_s, gptr.smooth_sensitivity, the
witnesses gptr.gnmax and gptr.gnss, and Algorithm 6 (alg6_pate_ptr).

Every number of the notes' §5.2 that concerns these statements is reproduced; independent routes (quadrature of
densities, enumeration of neighbouring vote histograms, a grid over the smooth-sensitivity axioms, Monte Carlo with
stated seed and z) check the closed forms."""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.conformance.sampling import check_sampler
from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError
from dpspec.reference.gptr import pate as P
from dpspec.reference.gptr import smooth_sensitivity as S

catalogue.load_all()
IDS = ("gptr.thm3_6_4", "gptr.prop7_logq", "gptr.gnmax_composed", "gptr.lemma3_6_5", "gptr.lemma3_6_5_coverage",
       "gptr.thm3_6_6", "gptr.alg6_sigma_s", "gptr.smooth_sensitivity")
DELTA = mpf("1e-5")


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(20):
        yield


def _votes(g):
    return [200 + g, 200] + [0] * 8


# ---------------------------------------------------------------------------------------------------------------
# Thm 3.6.4 / Papernot Thm 6 + Prop 7 (notes §5.2 table: σ = 40, α = 22, 10 classes, counts (200 + g, 200, 0, …))

@pytest.mark.parametrize("g, logq, rdp", [(50, -1.67, 0.0138), (100, -3.26, 0.0125), (150, -5.52, 0.00252),
                                          (200, -8.50, 2.31e-4), (300, -16.68, 2.1e-7)])
def test_papernot_thm6_table(g, logq, rdp):
    lq = P.gnmax_logq(_votes(g), 40)
    assert abs(float(lq) - logq) < 0.006
    value = P.gnmax_rdp_data_dependent(_votes(g), 40, 22)
    digits = len(str(rdp).split("e")[0].replace(".", "").lstrip("0"))
    assert float(value) == pytest.approx(rdp, rel=0.6 * 10 ** (1 - digits))
    assert value <= mpf(22) / 40**2  # never above the data-independent α/σ²


def _thm6_float(logq, sigma, order):
    """Papernot Thm 6 with Prop 10's μ, written from the paper's statement in float (numpy), for comparison."""
    mu2 = sigma * math.sqrt(-logq)
    mu1 = mu2 + 1
    e1, e2 = mu1 / sigma**2, mu2 / sigma**2
    q = math.exp(logq)
    A = (1 - q) / (1 - (q * math.exp(e2)) ** ((mu2 - 1) / mu2))
    B = math.exp(e1) / q ** (1 / (mu1 - 1))
    return math.log((1 - q) * A ** (order - 1) + q * B ** (order - 1)) / (order - 1)


@pytest.mark.parametrize("logq, sigma, order", [(-8.5, 40, 22), (-16.7, 40, 22), (-5.0, 20, 3), (-30.0, 13.8, 10)])
def test_thm6_log_space_matches_the_direct_formula(logq, sigma, order):
    assert P.thm6_valid(logq, sigma, order)
    assert float(P.thm6_bound(logq, sigma, order)) == pytest.approx(_thm6_float(logq, sigma, order), rel=1e-9)


def test_thm6_conditions_refuse_where_the_paper_does():
    assert not P.thm6_valid(-1.0, 40, 22)  # μ1 = 41 ≥ 22 but log q above the Lemma 9 bound
    assert not P.thm6_valid(-0.1, 40, 22)  # μ1 = 13.6 < α
    assert P.rdp_from_logq(-0.1, 40, 22) == mpf(22) / 1600  # falls back to α/σ²


def test_printed_gnmax_rdp_is_gap_free_decreasing_and_above_the_gaussian_bound():
    """Erratum E3 (notes §2.4): e^{−2α/σ²}/α at σ = 40, α = 22 is 0.0442 > α/σ² = 0.01375 (above it for α < 39)."""
    assert float(P.gnmax_rdp_printed(40, 22)) == pytest.approx(0.0442, abs=5e-5)
    assert P.gnmax_rdp_printed(40, 22) > mpf(22) / 1600
    assert P.gnmax_rdp_printed(40, 38) > mpf(38) / 1600 and P.gnmax_rdp_printed(40, 40) < mpf(40) / 1600
    assert P.gnmax_rdp_printed(40, 23) < P.gnmax_rdp_printed(40, 22)
    st = catalogue.get("gptr.thm3_6_4")
    assert not st.evaluate(variant="printed", votes=[_votes(300)], sigma=40, alpha=22).is_bound
    assert st.evaluate(variant="printed", votes=[_votes(300)], sigma=40, alpha=22).value > \
        st.evaluate(votes=[_votes(300)], sigma=40, alpha=22).value * 1000


def test_t_queries_compose_additively():
    rows = [[500, 100] + [0] * 8, [400, 200] + [0] * 8, [550, 50] + [0] * 8]  # 600 teachers each
    total = P.gnmax_rdp_data_dependent(rows, 40, 22)
    assert total == pytest.approx(sum(P.gnmax_rdp_data_dependent(r, 40, 22) for r in rows), rel=1e-15)
    st = catalogue.get("gptr.thm3_6_4")
    assert st.evaluate(variant="data_independent", votes=rows, sigma=40, alpha=22).value == pytest.approx(
        3 * mpf(22) / 1600, rel=1e-18)


# ---------------------------------------------------------------------------------------------------------------
# The GNMax witness: exact output law by quadrature (notes §3.11)

def test_gnmax_law_sums_to_one_and_matches_the_notes_divergences():
    """notes §3.11: n = (300, 60, 40) vs (299, 61, 40), σ = 40: D_α = 2.9e-7 (α = 2), 1.5e-6 (α = 22)."""
    law = P.gnmax_log_law((300, 60, 40), 40)
    assert abs(mpmath.fsum(mpmath.exp(v) for v in law) - 1) < mpf(10) ** -18
    w = catalogue.get_witness("gptr.gnmax")
    for alpha, expect in ((2, 2.9e-7), (22, 1.5e-6)):
        d = w.log_moment(mpf(alpha), votes=[[300, 60, 40]], votes_prime=[[299, 61, 40]], sigma=40) / (alpha - 1)
        assert float(d) == pytest.approx(expect, rel=0.05)


def test_gnmax_law_against_monte_carlo():
    """Seed 11, n = 2e5 draws of argmax(n + 40 Z), z = 5 binomial half-widths."""
    rng = np.random.default_rng(11)
    row = (230, 200, 170)
    n = 200_000
    draws = np.argmax(np.array(row) + 40 * rng.standard_normal((n, 3)), axis=1)
    for k, lp in enumerate(P.gnmax_log_law(row, 40)):
        p = float(mpmath.exp(lp))
        assert abs((draws == k).mean() - p) < 5 * math.sqrt(p * (1 - p) / n)


def test_prop7_logq_bounds_the_exact_error_probability():
    for row, sigma in (((300, 200, 0), 40), ((5, 3, 2), 1)):
        law = P.gnmax_log_law(row, sigma)
        exact = mpmath.log(1 - mpmath.exp(law[0]))  # class 0 is the argmax in every row here
        assert P.gnmax_logq(row, sigma) >= exact


@pytest.mark.parametrize("row, sigma, alpha", [((300, 200, 0), 40, 22), ((30, 25, 5), 8, 4)])
def test_data_dependent_rdp_bounds_the_exact_divergence_of_both_neighbours(row, sigma, alpha):
    """Papernot Thm 6 + Prop 7 at X against the exact D_α(M(X)‖M(X′)) (quadrature of the two output laws) for the
    neighbours that move one vote top → runner-up and runner-up → top."""
    w = catalogue.get_witness("gptr.gnmax")
    bound = P.gnmax_rdp_data_dependent(row, sigma, alpha)
    for move in (P._worst_neighbour, P._best_neighbour):
        exact = w.log_moment(mpf(alpha), votes=[row], votes_prime=[move(row)], sigma=sigma) / (alpha - 1)
        assert 0 <= exact <= bound


def test_gnmax_sampler_matches_its_moment():
    w = catalogue.get_witness("gptr.gnmax")
    params = {"votes": [[230, 200, 170]], "votes_prime": [[229, 201, 170]], "sigma": 40}
    assert all(c.ok for c in check_sampler(w, params, n=50_000, seed=7, dps=20))


# ---------------------------------------------------------------------------------------------------------------
# T-fold data-independent baseline (notes §5.2)

@pytest.mark.parametrize("sigma, eps", [("13.786", 8.0139), ("17.922", 5.9777), ("23.298", 4.4877),
                                        ("30.288", 3.3867), ("39.374", 2.5664), (40, 2.5243), (100, 0.9797)])
def test_gnmax_composed_table(sigma, eps):
    assert float(P.gnmax_composed(200, sigma, DELTA)) == pytest.approx(eps, abs=6e-4)


def test_gnmax_composed_is_the_minimum_over_orders():
    T, sigma = mpf(200), mpf("13.786")
    L = -mpmath.log(DELTA)
    f = lambda a: T * a / sigma**2 + L / (a - 1)
    best = min(f(1 + mpf(k) / 1000) for k in range(1, 20000))
    assert P.gnmax_composed(T, sigma, DELTA) <= best <= P.gnmax_composed(T, sigma, DELTA) * (1 + mpf(10) ** -6)
    a_star = 1 + sigma * mpmath.sqrt(L / T)
    assert float(a_star) == pytest.approx(4.31, abs=0.005)
    assert f(a_star) == pytest.approx(P.gnmax_composed(T, sigma, DELTA), rel=1e-15)


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 6 constants, Lemma 3.6.5 (GNSS) and Theorem 3.6.6 (notes §5.2)

@pytest.mark.parametrize("sigma_s, eps_hat, alpha", [(15, 0.58174, 42.9639), (10, 0.88115, 28.705),
                                                     (20, 0.43419, 57.225), (30, 0.28805, 85.749)])
def test_pate_constants(sigma_s, eps_hat, alpha):
    e = P.pate_eps_hat(sigma_s, DELTA)
    assert float(e) == pytest.approx(eps_hat, abs=6e-6)
    a, s, b = P.pate_constants(e, DELTA)
    assert float(a) == pytest.approx(alpha, abs=1e-3 if alpha > 50 else 6e-4)
    assert s == pytest.approx(sigma_s, rel=1e-15) and b == pytest.approx(mpf("0.2") / a, rel=1e-15)
    if sigma_s == 15:
        assert float(b) == pytest.approx(0.004655, abs=5e-7)


def test_gnss_claimed_vs_thm23_vs_exact_at_the_experiment():
    """notes §5.2: σ_s = 15: claimed (α+1)/σ_s² = 0.19540, Thm 23 = 0.20359; test total 0.58174 vs 0.58994. The exact
    GNSS worst case is below both, and the exact test cost (0.5448) is below ε̂."""
    e = P.pate_eps_hat(15, DELTA)
    a, s, b = P.pate_constants(e, DELTA)
    assert float((a + 1) / s**2) == pytest.approx(0.19540, abs=5e-6)
    assert float(P.thm23(a, b, s)) == pytest.approx(0.20359, abs=5e-6)
    assert float(P.test_cost(e, DELTA, "printed")) == pytest.approx(0.58174, abs=5e-6)
    assert float(P.test_cost(e, DELTA, "thm23")) == pytest.approx(0.58994, abs=5e-6)
    exact = P.gnss_rdp_exact(a, b, s)
    assert exact < (a + 1) / s**2 < P.thm23(a, b, s)
    assert P.test_cost(e, DELTA, "tight") < e


def _gauss_divergence_quad(alpha, m0, s0, m1, s1):
    log_p, log_q = (lambda x: mpmath.log(mpmath.npdf(x, m0, s0))), (lambda x: mpmath.log(mpmath.npdf(x, m1, s1)))
    f = lambda x: mpmath.exp(alpha * log_p(x) + (1 - alpha) * log_q(x))
    return mpmath.log(mpmath.quad(f, [-mpmath.inf, -20 * s0, 0, 20 * s0, mpmath.inf]))


@pytest.mark.parametrize("alpha, m0, s0, m1, s1", [(2, 0, 1, 1, 1), (22, 0, 15, 1, 15.07), (64, 0, 15, 0.995, 14.93),
                                                   ("0.5", 0, 2, 1, 3)])
def test_gaussian_renyi_closed_form_against_quadrature(alpha, m0, s0, m1, s1):
    alpha = mpf(alpha)
    assert P.gaussian_log_moment(alpha, m0, s0, m1, s1) == pytest.approx(
        _gauss_divergence_quad(alpha, m0, mpf(s0), m1, mpf(s1)), rel=1e-12)


@pytest.mark.parametrize("alpha, beta, sigma", [(42.9639, "0.004655", 15), (22, "0.004655", 15), (64, "0.004655", 15),
                                                (3, "0.1", 2), (1.5, "0.3", 0.5), (100, "0.001", 100)])
def test_exact_gnss_is_the_supremum_over_the_smooth_sensitivity_axioms(alpha, beta, sigma):
    """A grid over SS(X′)/SS(X) = r ∈ [e^−β, e^β] and shifts Δ ∈ [0, min(1, r)]: D_α(N(0, σ²) ‖ N(Δ, r²σ²)) never
    exceeds gnss_rdp_exact and reaches it."""
    alpha, beta, sigma = mpf(alpha), mpf(beta), mpf(sigma)
    best = mpf(0)
    for i in range(41):
        r = mpmath.exp(beta * (mpf(i) / 20 - 1))
        for j in range(5):
            d = min(1, r) * mpf(j) / 4
            best = max(best, P.gaussian_log_moment(alpha, 0, sigma, d, r * sigma) / (alpha - 1))
    exact = P.gnss_rdp_exact(alpha, beta, sigma)
    assert best <= exact * (1 + mpf(10) ** -15)
    assert best >= exact * (1 - mpf(10) ** -15)


def test_thm23_holds_for_2_alpha_beta_at_most_half_and_fails_near_the_end_of_its_range():
    for alpha in (2, 10, 22, 42.96, 53.7):
        for sigma in (0.3, 1, 15, 1000):
            assert P.thm23(alpha, "0.004655", sigma) >= P.gnss_rdp_exact(alpha, "0.004655", sigma)
    # α = 64, β = 0.004655 (2αβ = 0.596 < 1): the pair SS(X′) = e^−β SS(X) exceeds Thm 23
    assert float(P.gnss_rdp_exact(64, "0.004655", 15)) == pytest.approx(0.34867, abs=5e-6)
    assert float(P.thm23(64, "0.004655", 15)) == pytest.approx(0.29902, abs=5e-6)
    st = catalogue.get("gptr.lemma3_6_5")
    with pytest.raises(ConditionError, match="thm23_half"):
        st.evaluate(variant="thm23", alpha=64, beta="0.004655", sigma_s=15, sigma_2=15)


def test_printed_lemma_fails_for_large_sigma_s_but_holds_at_alg6_constants():
    """Erratum E2: (3α+2)/(2σ_s²) → 0 as σ_s → ∞, the exact RDP keeps the σ-free scale-mismatch term."""
    a, b = mpf(22), mpf("0.004655")
    assert P.gnss_rdp_printed(a, 1000) < P.gnss_rdp_tight(a, b, 1000, 1000)
    e = P.pate_eps_hat(15, DELTA)
    a, s, b = P.pate_constants(e, DELTA)
    assert P.gnss_rdp_tight(a, b, s, s) < P.gnss_rdp_printed(a, s)
    w = catalogue.get_witness("gptr.gnss")
    lm = w.log_moment(mpf(22), beta="0.004655", sigma_s=1000, sigma_2=1000, direction=-1) / 21
    assert lm > P.gnss_rdp_printed(22, 1000)  # the pair itself refutes the printed form


def test_gnss_witness_attains_the_exact_value_and_samples_correctly():
    w = catalogue.get_witness("gptr.gnss")
    a, b, s = mpf(42), mpf("0.004655"), mpf(15)
    lm = w.log_moment(a, beta=b, sigma_s=s, sigma_2=s, direction=-1) / (a - 1)
    assert lm == pytest.approx(P.gnss_rdp_tight(a, b, s, s), rel=1e-15)
    assert all(c.ok for c in check_sampler(w, {"beta": 0.05, "sigma_s": 2, "sigma_2": 3, "direction": 1},
                                           n=100_000, seed=7))


def test_test_cost_never_exceeds_eps_hat_on_a_grid():
    """The exact test cost of Alg 6 at its printed constants stays below ε̂ (so Thm 3.6.6 holds as printed)."""
    for e in ("0.001", "0.1", "0.58174", "2", "50"):
        for d in ("0.9", "1e-5", "1e-300"):
            assert P.test_cost(e, d, "tight") < mpf(e)


def test_thm3_6_6_variants():
    st = catalogue.get("gptr.thm3_6_6")
    e = P.pate_eps_hat(15, DELTA)
    v = st.evaluate(eps_prime=2, eps_hat=e, delta=DELTA).value
    assert v[0] == pytest.approx(2 + P.test_cost(e, DELTA), rel=1e-18)
    assert v[1] == pytest.approx(DELTA, rel=1e-18)  # max form: δ/2 + max(δ/2, δ_2 = δ/2)
    assert st.evaluate(variant="sum_form", eps_prime=2, eps_hat=e, delta=DELTA).value[1] == pytest.approx(
        3 * DELTA / 2, rel=1e-18)
    assert float(st.evaluate(variant="thm23", eps_prime=0, eps_hat=e, delta=DELTA).value[0]) == pytest.approx(
        0.58994, abs=5e-6)
    assert st.evaluate(variant="printed", eps_prime=2, eps_hat=e, delta=DELTA).value[0] == pytest.approx(2 + e,
                                                                                                     rel=1e-18)


def test_alg6_sigma_s_calibrations_reach_the_budget():
    e = mpf("0.58174")
    a, s_printed, b = P.pate_constants(e, DELTA)
    conv = mpmath.log(2 / DELTA) / (a - 1)
    s = P.alg6_sigma_s(e, DELTA)
    assert P.gnss_rdp_tight(a, b, s, s) + conv == pytest.approx(e, rel=1e-15)
    s23 = P.alg6_sigma_s_thm23(e, DELTA)
    assert P.gnss_rdp(a, b, s23, s23) + conv == pytest.approx(e, rel=1e-15)
    assert s < s_printed < s23


# ---------------------------------------------------------------------------------------------------------------
# Lemma 3.6.5 (ii): coverage (notes §5.2: 2.26e-11 at α = 42.96, 5.35e-13 at α = 22; δ_2 = 5e-6, σ_2 = 15)

def _coverage_other_route(delta_2, beta, sigma_2):
    """P[Z_1 < −c e^{s(Z_2 + c)}] integrated over Z_1 instead: ∫_{−∞}^0 φ(z) Φ(log(−z/c)/s − c) dz."""
    c = mpmath.sqrt(2 * mpmath.log(2 / mpf(delta_2)))
    s = mpf(beta) * mpf(sigma_2)
    f = lambda z: mpmath.npdf(z) * mpmath.ncdf(mpmath.log(-z / c) / s - c)
    return mpmath.quad(f, [-mpmath.inf, -40, -c - 2, -c, -c / 2, -1, -mpf("1e-3"), 0])


@pytest.mark.parametrize("alpha, expect", [(42.96, 2.26e-11), (22, 5.35e-13)])
def test_coverage_failure_probability(alpha, expect):
    beta = mpf("0.2") / alpha
    value = P.coverage_failure("5e-6", beta, 15)
    assert float(value) == pytest.approx(expect, rel=0.003)
    assert value == pytest.approx(_coverage_other_route("5e-6", beta, 15), rel=1e-8)
    assert value < mpf("5e-6")


def _coverage_large_s(delta_2, beta, sigma_2):
    """Another route for βσ_2 = s ≫ 1: with u = s(z + c), p = Φ(−c)/2 + (1/s)∫ φ(−c + u/s) g(u) du, g(u) = Φ(−c e^u)
    − ½·[u < 0] (decays like e^u on the left, double-exponentially on the right, within 1/c² of 0)."""
    c = mpmath.sqrt(2 * mpmath.log(2 / mpf(delta_2)))
    s = mpf(beta) * mpf(sigma_2)
    left = lambda u: mpmath.npdf(-c + u / s) * -(mpmath.ncdf(c * mpmath.exp(u)) - mpf(1) / 2)
    right = lambda u: mpmath.npdf(-c + u / s) * mpmath.ncdf(-c * mpmath.exp(u))
    tail = mpmath.quad(left, [-mpmath.inf, -60, -30, -15, -8, -4, -2, -1, -mpf("0.5"), 0])
    tail += mpmath.quad(right, [0] + [mpf(k) / c**2 for k in (1, 4, 16)] + [mpf(1) / 4, 1, 3])
    return mpmath.ncdf(-c) / 2 + tail / s


@pytest.mark.parametrize("delta_2, beta, sigma_2", [("1e-300", "0.4", 1000), ("0.999", "1e5", 1000),
                                                    ("1e-5", "1e6", "1e6")])
def test_coverage_failure_at_large_beta_sigma(delta_2, beta, sigma_2):
    """Large s = βσ_2, where the cliff of Φ(−c e^{s(z+c)}) is 1/s wide: the reference (the y-form of its docstring)
    against the u-form route above, and 0 < p ≤ δ_2 (the previous z-form quadrature raised PrecisionError at
    δ_2 = 0.999, β = 1e5, σ_2 = 1e3, and as s → ∞: see test_coverage_failure_limits)."""
    value = P.coverage_failure(delta_2, beta, sigma_2)
    assert 0 < value <= mpf(delta_2)
    assert value == pytest.approx(_coverage_large_s(delta_2, beta, sigma_2), rel=1e-15)


def test_coverage_failure_limits():
    """s → 0: Φ(−c e^{s(z+c)}) → Φ(−c), p → Φ(−c); s → ∞: p → P[Z_1 < 0]·Φ(−c) = Φ(−c)/2 (both within O(s) and
    O(c/s) relative), at δ_2 = 1e-300 and 0.9."""
    for delta_2 in ("1e-300", "0.9"):
        tail = mpmath.ncdf(-mpmath.sqrt(2 * mpmath.log(2 / mpf(delta_2))))
        assert P.coverage_failure(delta_2, "1e-200", "1e-100") == pytest.approx(tail, rel=1e-18)
        assert P.coverage_failure(delta_2, "1e200", "1e100") == pytest.approx(tail / 2, rel=1e-18)


# ---------------------------------------------------------------------------------------------------------------
# Smooth sensitivity (Papernot App. B)

def test_smooth_sensitivity_matches_the_authors_code():
    """Values of tensorflow/privacy research/pate_2018 (compute_local_sensitivity_bounds_gnmax + the discounted max of
    the summed arrays), run in float64 on the same inputs (β = 0.004655, σ = 40)."""
    cases = [([[300, 200, 0, 0, 0, 0, 0, 0, 0, 0]], 500, 22, 0.0008452788507846465),
             ([[45, 3, 2], [40, 10, 0], [50, 0, 0]], 50, 22, 0.0020004491483422327)]
    for votes, K, alpha, expect in cases:
        assert float(S.smooth_sensitivity(votes, K, 40, alpha, "0.004655")) == pytest.approx(expect, rel=1e-10)


def _ss_by_walking(rows, K, sigma, alpha, beta):
    """Papernot's route step by step: each query's walk (local_sensitivities), the arrays summed over d < K, the
    discounted max."""
    walks = [S.local_sensitivities(r, sigma, alpha) for r in rows]
    total = lambda d: mpmath.fsum(v[d] if d < len(v) else p for v, p in walks)
    return max(mpmath.exp(-beta * d) * total(d) for d in range(K))


def test_branch_and_bound_equals_the_walk():
    """Seed 21: random 2-query histograms (4 classes, 60 teachers) at σ ∈ {3, 8}, α ∈ {2, 6}, β = 0.03."""
    rng = np.random.default_rng(21)
    for _ in range(4):
        rows = [tuple(int(x) for x in rng.multinomial(60, rng.dirichlet([3, 1, 0.5, 0.5]))) for _ in range(2)]
        sigma, alpha = mpf(int(rng.choice([3, 8]))), mpf(int(rng.choice([2, 6])))
        fast = S.smooth_sensitivity_value(rows, 60, sigma, alpha, mpf("0.03"))
        assert fast == pytest.approx(_ss_by_walking(rows, 60, sigma, alpha, mpf("0.03")), rel=1e-15)


def test_papernot_array_is_not_monotone_at_the_end_of_a_right_walk():
    """One query (400, 0, …, 0), σ = 40, α = 42.96: LS_d peaks just before q̃ reaches q1 and then falls to the plateau,
    so the array is not the (monotone) LS at distance d; the discounted max is unaffected (a cumulative max would give
    the same value), and the branch and bound does not assume monotonicity."""
    values, plateau = S.local_sensitivities((400,) + (0,) * 9, mpf(40), mpf("42.96"))
    assert max(values) > values[-1] and max(values) > plateau
    assert S.smooth_sensitivity_value([(400,) + (0,) * 9], 400, mpf(40), mpf("42.96"), mpf("0.004655")) == \
        pytest.approx(_ss_by_walking([(400,) + (0,) * 9], 400, mpf(40), mpf("42.96"), mpf("0.004655")), rel=1e-15)


def test_smooth_sensitivity_when_a_walk_fills_all_k_distances():
    """Papernot's array has K entries (d = 0 … K − 1); a walk that computes all of them leaves no plateau entry, so
    the plateau must not enter the discounted max. votes [[0, 1]], K = 1, σ = 1, α = 10: the array is [0] (the
    plateau 0.327 would be the answer if it were added at d = K − 1); (1, 1, 1, 1, 1), σ = 2, α = 3: the left walk
    fills d = 0 … 4 with [0, 0, 0, 0, 0.1646], plateau 0.3425."""
    values, plateau = S.local_sensitivities((0, 1), mpf(1), mpf(10))
    assert values == [0] and plateau > mpf("0.3")
    for beta in ("0.001", "0.01", "0.3"):
        assert S.smooth_sensitivity([[0, 1]], 1, 1, 10, beta) == 0
    row = (1, 1, 1, 1, 1)
    values, plateau = S.local_sensitivities(row, mpf(2), mpf(3))
    assert len(values) == 5 and plateau > max(values) > 0
    for beta in (mpf("0.01"), mpf("0.2")):
        ss = S.smooth_sensitivity_value([row], 5, mpf(2), mpf(3), beta)
        assert ss == pytest.approx(mpmath.exp(-4 * beta) * values[4], rel=1e-18)
        assert ss == _ss_by_walking([row], 5, mpf(2), mpf(3), beta)


@pytest.mark.parametrize("dps", [20, 30, 38, 50])
def test_plateau_uses_b_u_of_q1_equal_to_q0_exactly(dps):
    """b_u(q1) = b_u(b_l(q0)) = q0 exactly, where β jumps from Thm 6 to α/σ² when q0 is the natural bound (votes
    [[2, 0, 0, 0]], σ = 1, α = 1.778): the local sensitivity at the plateau is taken with β(q0) = α/σ², at every
    precision (the rounded round trip gave 1.70 at 20, 38 and 50 digits but 1.10 at 30, and the self-check failed)."""
    with mpmath.workdps(dps):
        sigma, alpha, m = mpf(1), mpf("1.778"), 4
        lq0, lq1 = S.logq0(sigma, alpha), S.logq1(sigma, alpha, m)
        assert S.thm6_bound(lq0, sigma, alpha) < alpha / sigma**2  # the natural bound: β jumps at q0
        assert abs(S.log_b_upper(lq1, sigma, m) - lq0) < mpf(10) ** (8 - dps) * abs(lq0)  # the identity
        b1 = S.rdp_beta(lq1, sigma, alpha)
        want = max(alpha / sigma**2 - b1, b1 - S.rdp_beta(S.log_b_lower(lq1, sigma, m), sigma, alpha))
        assert S.local_sensitivity_at_q(lq1, sigma, alpha, m) == want == alpha / sigma**2 - b1  # the b_u side
        ss = S.smooth_sensitivity_value([(2, 0, 0, 0)], 2, sigma, alpha, mpf("0.01"))
        assert abs(ss / (mpmath.exp(mpf("-0.01")) * want) - 1) < mpf(10) ** (3 - dps)  # the plateau at d = 1
        assert float(ss) == pytest.approx(1.7040927229740242, rel=1e-15)
    assert float(S.smooth_sensitivity([[2, 0, 0, 0]], 2, 1, "1.778", "0.01")) == pytest.approx(1.7040927229740242,
                                                                                               rel=1e-15)


def _moves(rows):
    """Every histogram matrix one teacher's change away (the same teacher moves a vote a → b on each query)."""
    C = len(rows[0])
    options = [[(a, b) for a in range(C) for b in range(C) if r[a] > 0] for r in rows]
    out = []
    for choice in np.ndindex(*[len(o) for o in options]):
        new = []
        for r, o, i in zip(rows, options, choice):
            a, b = o[i]
            nr = list(r)
            nr[a] -= 1
            nr[b] += 1
            new.append(tuple(nr))
        out.append(new)
    return out


def test_local_sensitivity_bound_and_smoothness_by_enumeration():
    """Two queries, 3 classes, 30 teachers, σ = 4, α = 5: LS_0 ≥ |E(X′) − E(X)| for every neighbour, and
    SS_β(X) ≤ e^β SS_β(X′) (smoothness)."""
    rows = [(24, 5, 1), (20, 10, 0)]
    sigma, alpha, beta = mpf(4), mpf(5), mpf("0.05")
    E = S.data_dependent_rdp_beta(rows, sigma, alpha)
    ls0 = sum(v[0] if v else plateau for v, plateau in (S.local_sensitivities(r, sigma, alpha) for r in rows))
    ss = S.smooth_sensitivity_value(rows, 30, sigma, alpha, beta)
    neighbours = _moves(rows)
    assert len(neighbours) > 50
    for nb in neighbours:
        assert abs(S.data_dependent_rdp_beta(nb, sigma, alpha) - E) <= ls0 * (1 + mpf(10) ** -15)
    for i in np.random.default_rng(5).choice(len(neighbours), 6, replace=False):  # seed 5: six of them
        nb = neighbours[i]
        assert ss <= mpmath.exp(beta) * S.smooth_sensitivity_value(nb, 30, sigma, alpha, beta) * (1 + mpf(10) ** -15)


def test_papernot_condition_c5_beta_non_decreasing_below_q0():
    """Condition C5 (Papernot App. B.4.2), numerically: β(q) non-decreasing on (0, q0) at the notes' parameters."""
    for sigma, alpha in ((40, 22), (40, 42.96), (15, 10)):
        lq0 = S.logq0(sigma, alpha)
        grid = [lq0 * (1 + mpf(k) / 10) for k in range(0, 60)][::-1]  # from very small q up to q0
        values = [S.rdp_beta(lq, sigma, alpha) for lq in grid]
        assert all(a <= b * (1 + mpf(10) ** -15) for a, b in zip(values, values[1:]))
        assert S.rdp_beta(lq0 * mpf("1.0001"), sigma, alpha) <= P.data_independent_rdp(sigma, alpha)


def test_beta_rdp_is_above_the_min_form_and_equal_below_q0():
    for g in (50, 150, 200, 300):
        row = tuple(_votes(g))
        lq = P.logq_row(row, 40)
        assert S.rdp_beta(lq, 40, 22) >= P.rdp_from_logq(lq, 40, 22)
        if lq < S.logq0(40, 22):
            assert S.rdp_beta(lq, 40, 22) == P.rdp_from_logq(lq, 40, 22)


# ---------------------------------------------------------------------------------------------------------------
# Bad input and Algorithm 6

def test_vote_validation():
    st = catalogue.get("gptr.smooth_sensitivity")
    with pytest.raises(ConditionError, match="votes_sum"):
        st.evaluate(votes=[[300, 100, 0]], teachers=500, sigma=40, alpha=22, beta="0.004655")
    for bad in ([[300.5, 199.5]], [[400]], [[-1, 401]], [[300, 200], [300, 100]], [[0, 0]]):
        with pytest.raises(ConditionError, match="votes_counts"):
            catalogue.get("gptr.thm3_6_4").evaluate(votes=bad, sigma=40, alpha=22)
    with pytest.raises(ConditionError, match="single_query"):
        catalogue.get("gptr.prop7_logq").evaluate(votes=[[3, 1], [2, 2]], sigma=1)
    with pytest.raises(ConditionError, match="votes_sum"):
        S.alg6_pate_ptr([[300, 100, 0]], 40, "0.58174", 2, DELTA, np.random.default_rng(0), teachers=500)


def test_alg6_pate_ptr_releases_when_the_budget_allows_and_refuses_otherwise():
    votes = [[48, 2, 0, 0], [50, 0, 0, 0], [45, 5, 0, 0], [49, 1, 0, 0]]  # 50 teachers, high consensus
    out = S.alg6_pate_ptr(votes, 40, "0.58174", 5, DELTA, np.random.default_rng(3))
    assert out["passed"] and out["labels"] is not None and len(out["labels"]) == 4
    assert out["eps_sigma1"] <= 5 and out["upper"] >= out["rdp"]  # the noise was small enough here
    assert out["guarantee"][0] == pytest.approx(5 + float(P.test_cost("0.58174", DELTA)), rel=1e-12)
    refused = S.alg6_pate_ptr(votes, 40, "0.58174", "0.01", DELTA, np.random.default_rng(3))
    assert not refused["passed"] and refused["labels"] is None
    assert refused["eps_sigma1"] >= float(mpmath.log(2 / DELTA) / (refused["alpha"] - 1))


@pytest.mark.parametrize("sid", [i for i in IDS if i != "gptr.lemma3_6_5_coverage"])  # coverage: tested above
def test_every_statement_evaluates_at_its_example(sid):
    st = catalogue.get(sid)
    v = st.evaluate(dps=20, **st.example_params()).value
    for x in (v if isinstance(v, tuple) else (v,)):
        assert mpmath.isfinite(x)
