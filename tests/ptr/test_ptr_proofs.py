"""Proof checks of the PTR paper (dpspec.proofs_checks.ptr): every registered check holds, the independent exact
moments reproduce the vectors of notes §5.2 and agree with the reference witnesses, and helpers reject bad input."""
import mpmath
import pytest
from hypothesis import given, settings, strategies as st
from mpmath import mpf

from dpspec.proofs_checks import ptr
from dpspec.proofs_checks.ptr import _exact, lemma_a1, thm4_4, trimmed_sum
from dpspec.reference.catalogue import get_witness

CHECKS = ptr.all_checks()


def test_the_expected_checks_are_registered():
    for name in ("ptr.threshold.threshold_tail_is_delta0", "ptr.laplace.laplace_rdp_closed_form",
                 "ptr.laplace.inequality_38_41", "ptr.subsampled_laplace.condition_c1_is_q_prime_at_most_one_fifth",
                 "ptr.subsampled_laplace.r_tilde_is_r_at_one_minus_beta",
                 "ptr.subsampled_laplace.a_squared_expansion_gives_the_brackets", "ptr.thm5_2.rho_A_at_most_rho_B",
                 "ptr.thm4_3.thm4_3_equals_max_of_exact_pair_moments",
                 "ptr.thm4_4.white_box_dominates_inside_conditions", "ptr.lemma_a1.lemma_a1_holds_inside_conditions",
                 "ptr.zw19.zw19_lower_at_most_upper_with_equality_at_two",
                 "ptr.trimmed_sum.thm5_1_and_margin_by_brute_force",
                 "ptr.trimmed_sum.margin_has_global_sensitivity_one",
                 "ptr.extension.extension_dominates_relaxed_case2_pairs"):
        assert name in CHECKS


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_check_holds(name):
    result = CHECKS[name]()
    assert result.holds, result.evidence


@pytest.mark.slow
def test_white_box_dominates_on_many_random_points():
    result = thm4_4.white_box_dominates_inside_conditions(count=25, seed=7)
    assert result.holds, [r for r in result.evidence["points"] if not r["dominates"]]


@pytest.mark.slow
def test_brute_force_trimmed_sum_on_more_sets():
    assert trimmed_sum.thm5_1_and_margin_by_brute_force(cases=80, seed=11).holds
    assert trimmed_sum.margin_has_global_sensitivity_one(cases=60, seed=12).holds


@pytest.mark.parametrize("alpha,q,sigma1,b,expected", [
    (2, "0.01", 8, 1, "8.8650856428e-5"),  # notes §5.2: ZW19 lower = case-2 pair at α = 2
    (64, "0.05", 5, 1, "0.0874861622439750"),  # notes §6 E1: exact 0.0875 (moment 247.55)
])
def test_case2_forward_vectors(alpha, q, sigma1, b, expected):
    with mpmath.workdps(30):
        eps = _exact.to_eps(_exact.subsampled_case2_log_forward(alpha, mpf(q), sigma1, b), alpha)
        assert abs(eps - mpf(expected)) <= mpf("1e-10") * mpf(expected)


def test_mnist_case1_vector():
    with mpmath.workdps(30):
        eps = _exact.to_eps(_exact.subsampled_case1_log_forward(8, mpf(256) / 60000, mpf("1.1"), mpf("0.55"),
                                                                mpf("1e-8")), 8)
        assert abs(eps - mpf("4.355131959971735")) <= mpf("1e-12")  # notes §6 E1: "exact ≥ 4.355"


@pytest.mark.parametrize("case,direction", [(1, "fwd"), (1, "rev"), (2, "fwd")])
def test_exact_moments_agree_with_reference_witnesses(case, direction):
    """Two independent implementations of the per-subset moments (ours: binomial sums and our own quadrature)."""
    p = {"q": mpf("0.02"), "sigma1": mpf(6), "sigma2": mpf(4), "b": mpf(1), "delta0": mpf("1e-3")}
    ours = {(1, "fwd"): lambda a: _exact.subsampled_case1_log_forward(a, p["q"], p["sigma1"], p["sigma2"], p["delta0"]),
            (1, "rev"): lambda a: _exact.subsampled_case1_log_reverse(a, p["q"], p["sigma1"], p["sigma2"], p["delta0"]),
            (2, "fwd"): lambda a: _exact.subsampled_case2_log_forward(a, p["q"], p["sigma1"], p["b"])}[(case, direction)]
    theirs = get_witness(f"ptr.thm4_4.case{case}_{direction}").log_moment
    with mpmath.workdps(25):
        for alpha in (2, 5):
            a, b = ours(alpha), theirs(alpha, **p)
            assert abs(a - b) <= mpf("1e-15") * abs(b)


@settings(max_examples=15, deadline=None)
@given(alpha=st.integers(2, 12), A=st.floats(1e-4, 0.5), sigma=st.floats(0.5, 10))
def test_sampled_gaussian_moments_are_at_least_one_and_reverse_below_forward_for_small_A(alpha, A, sigma):
    with mpmath.workdps(20):
        fwd = mpmath.exp(_exact.log_gaussian_mixture_forward(alpha, mpf(A), mpf(sigma)))
        assert fwd >= 1  # Jensen: E[r^α] ≥ (E r)^α = 1
        if A <= 0.2 and sigma >= 4:  # the [MTZ19] regime of the reverse ≤ forward comparison
            assert _exact.gaussian_mixture_reverse(alpha, mpf(A), mpf(sigma)) <= fwd


@settings(max_examples=10, deadline=None)
@given(q=st.sampled_from(["0.2", "0.1", "0.05", "0.01"]), sigma=st.floats(4, 12))
def test_lemma_a1_conditions_hold_on_an_initial_segment(q, sigma):
    top = lemma_a1.largest_valid_alpha(q, sigma, limit=60)
    if top is not None:
        assert all(not lemma_a1.failed_lemma_conditions(a, q, sigma) for a in range(2, top + 1))


def test_helpers_reject_bad_input():
    with pytest.raises(ValueError):
        _exact.subsampled_case2_log_forward(2.5, mpf("0.01"), 8, 1)  # binomial sums need integer orders
    with pytest.raises(ValueError):
        _exact.log_gaussian_mixture_forward(-1, mpf("0.1"), 4)
    assert "alpha > 1" in lemma_a1.failed_lemma_conditions(1, "0.1", 4)
    assert "L undefined" in lemma_a1.failed_lemma_conditions(-3, "0.1", 4)


@pytest.mark.parametrize("l,b", [(0, 1), (1, 2), (2, 1), (7, "0.5"), ("2.5", 3)])
def test_laplace_moment_closed_form_matches_quadrature(l, b):
    with mpmath.workdps(30):
        closed, quad = _exact.laplace_moment_closed_form(l, b), _exact.laplace_moment(l, b)
        assert abs(closed - quad) <= mpf("1e-25") * closed
