"""Proof checks of seed 003, chapter 3 and appendix B (dpspec.proofs_checks.gptr.symbolic): each holds, names
existing statements, and the machinery behind them can tell a false step from a true one."""
import mpmath
import pytest
import sympy as sp
from mpmath import mp, mpf

from dpspec.proofs_checks.checks import CHECKS, all_checks
from dpspec.proofs_checks.gptr import _exact as X
from dpspec.proofs_checks.gptr import symbolic
from dpspec.reference import catalogue

CHECK_IDS = tuple(f"gptr.symbolic.{name}" for name in (
    "laplace_difference_density_and_tail", "binary_rnm_log_ratio_is_increasing",
    "logistic_third_derivative_bounded_by_second", "exp_minus_one_below_two_x_on_unit_interval",
    "exponential_sandwich_on_half_interval", "composed_gaussian_rdp_minimum", "alg6_constants_arithmetic",
    "gamma_star_quadratic_root", "gnss_constant_misses_a_sigma_free_term", "generalized_ptr_delta_bookkeeping",
    "classic_ptr_false_positive_is_half_delta", "liu_talwar_cutoff_tail"))


def test_the_gptr_checks_are_registered():
    CHECKS.load()
    assert set(all_checks("gptr")) == set(CHECK_IDS)
    assert {f.check_name for f in symbolic.CHECK_FUNCTIONS} == set(CHECK_IDS)


@pytest.mark.parametrize("check_id", CHECK_IDS)
def test_gptr_check_holds(check_id):
    CHECKS.load()
    result = all_checks("gptr")[check_id]()
    assert result.holds, (result.message, result.evidence)


def test_gptr_checks_name_existing_statements():
    CHECKS.load()
    ids = {s.id for s in catalogue.statements()}
    for c in all_checks("gptr").values():
        assert c.statements and set(c.statements) <= ids, (c.id, set(c.statements) - ids)


# --- the machinery can fail ---------------------------------------------------------------------------------------

def test_symbolic_zero_test_rejects_false_steps():
    """The zero test sees: the Laplace-difference tail with the wrong constant, the binary-vote log-ratio without the
    e^ε factor (the printed form), and the composed-RDP minimum without the factor 2."""
    s = sp.Symbol("s", positive=True)
    z = sp.Symbol("z", positive=True)
    tail = sp.integrate((1 + z) * sp.exp(-z) / 4, (z, s, sp.oo))
    assert symbolic._zero(tail - (2 + s) * sp.exp(-s) / 4)
    assert not symbolic._zero(tail - (1 + s) * sp.exp(-s) / 4)
    t, e = symbolic.t_nn, symbolic.eps_p
    ratio = sp.expand_log(sp.log(symbolic._rnm_p(t) / symbolic._rnm_p(t + 1)), force=True)
    assert not symbolic._zero(ratio - sp.log((2 + e * t) / (2 + e * (t + 1))))
    T, L, sig = symbolic.T_p, symbolic.L_p, symbolic.sig
    al = sp.Symbol("alpha", positive=True)
    value = sp.simplify((T * al / sig ** 2 + L / (al - 1)).subs(al, 1 + sig * sp.sqrt(L / T)))
    assert not symbolic._zero(value - (T / sig ** 2 + sp.sqrt(T * L) / sig))


def test_the_interval_inequalities_fail_just_outside_their_intervals():
    """e^x − 1 ≤ 2x fails at x = 1.3 (proof of Thm B.3.11 uses x ≤ 1); e^{−2x} ≤ 1 − x fails at x = 0.85 (Lemma
    B.3.4's aside is stated for x ≤ ½, true to 0.7968)."""
    with mp.workdps(30):
        assert mpmath.exp(mpf("1.3")) - 1 > 2 * mpf("1.3") and mpmath.exp(1) - 1 <= 2
        assert mpmath.exp(-2 * mpf("0.85")) > 1 - mpf("0.85") and mpmath.exp(-1) <= mpf("0.5")


def test_logistic_hessian_ratio_approaches_e_but_not_above():
    """The 1-D logistic Hessian ratio l''(u + 1)/l''(u) is < e everywhere and → e as u → −∞ (Lemma B.3.4(b) with
    Bach's R = 1 is tight; Def B.3.3's R = ½ would claim e^{½})."""
    with mp.workdps(30):
        l2 = lambda s: mpmath.exp(s) / (1 + mpmath.exp(s)) ** 2
        ratios = [l2(mpf(u) + 1) / l2(mpf(u)) for u in range(-40, 41, 4)]
        assert max(ratios) < mpmath.e and max(ratios) > mpmath.e * (1 - mpf(10) ** -15)
        assert max(ratios) > mpmath.exp(mpf("0.5"))


def test_gnss_floor_is_positive_for_every_beta_in_range():
    """(βα − ½ log(1 − 2αβ))/(α − 1) > 0 on a grid of 0 < 2αβ < 1: Thm 23 never reduces to (α + 1)/σ² as σ → ∞."""
    with mp.workdps(30):
        for alpha in (2, 10, 43):
            for frac in ("0.01", "0.4", "0.99"):
                beta = mpf(frac) / (2 * alpha)
                big_sigma = mpf(10) ** 8
                floor = X.papernot_thm23(alpha, beta, big_sigma) - (alpha + 1) / big_sigma ** 2
                assert floor > 0
