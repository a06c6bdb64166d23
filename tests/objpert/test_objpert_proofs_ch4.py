"""Proof checks of seed 003, chapter 4 and appendix C (dpspec.proofs_checks.objpert.symbolic_ch4): each holds,
names existing statements, and the machinery behind them can tell a false step from a true one."""
import pytest
import sympy as sp
from mpmath import mp, mpf

from dpspec.proofs_checks.checks import CHECKS, all_checks
from dpspec.proofs_checks.objpert import _exact_ch4 as X
from dpspec.proofs_checks.objpert import symbolic_ch4 as S
from dpspec.reference import catalogue

CHECK_IDS = tuple(f"objpert.symbolic_ch4.{name}" for name in (
    "gaussian_plrv_law", "half_normal_mgf", "c46_log_ratio", "case2_simplification", "continuity_at_switch",
    "analytic_gaussian_c21", "sherman_morrison_determinant", "lemma_c48_derivative", "chi1_mgf_is_half_normal",
    "mgf_inequality_cauchy_schwarz"))


def test_the_chapter4_checks_are_registered():
    CHECKS.load()
    mine = {i for i in all_checks("objpert") if i.startswith("objpert.symbolic_ch4.")}
    assert mine == set(CHECK_IDS)
    assert {f.check_name for f in S.CHECK_FUNCTIONS} == set(CHECK_IDS)


@pytest.mark.parametrize("check_id", CHECK_IDS)
def test_chapter4_check_holds(check_id):
    CHECKS.load()
    result = all_checks("objpert")[check_id]()
    assert result.holds, (result.message, result.evidence)


def test_chapter4_checks_name_existing_statements():
    CHECKS.load()
    ids = {s.id for s in catalogue.statements()}
    named = {s for c in all_checks("objpert").values() if c.id in CHECK_IDS for s in c.statements}
    assert named and all(s.startswith("objpert.") for s in named)
    assert not sorted(named - ids)


# --- the machinery can fail -----------------------------------------------------------------------------------------

def test_zero_test_rejects_the_printed_steps():
    """The printed (x − L) log ratio is not the corrected one; H_{e^{L²/σ²}} is not continuous at ε̂ = 0; Remark 4.3.3's
    exponent α does not give αc; the printed Lemma C.10.15 middle term is not E e^{tx²}."""
    L, sig, a, v = S.L, S.sig, S.a, S.v
    xp = sp.Symbol("x", nonnegative=True)
    P = 2 * S.phi(xp, 0, sig)
    Qp = sp.exp(-a) * 2 * S.phi(xp - L, 0, sig)
    printed = sp.expand(sp.expand_log(sp.log(P / Qp), force=True))
    assert not S._zero(printed - (a + L ** 2 / (2 * sig ** 2) + L * xp / sig ** 2))
    cc = v ** 2 / 2
    jump = 2 * (S.gauss_H(cc, v) - S.gauss_H(2 * cc, v))
    assert float(jump.subs(v, 1)) > 0.1
    al = S.al
    c = sp.Symbol("c", positive=True)
    assert not S._zero(sp.log(sp.exp(al * c + al ** 2 * c)) / (al - 1) - al * c)
    t = sp.Rational(3, 10)
    assert (1 - t) ** sp.Rational(-1, 2) < (1 - 2 * t) ** sp.Rational(-1, 2)


def test_sherman_morrison_identity_fails_with_the_printed_minus_sign():
    """det(H + f″xxᵀ) = det H·(1 − f″xᵀH⁻¹x) (the sign of the thesis' a) is false for a 2×2 H."""
    H = sp.Matrix([[2, 1], [1, 3]])
    xv = sp.Matrix([1, 2])
    f2 = sp.Rational(1, 2)
    quad = (xv.T * H.inv() * xv)[0]
    assert (H + f2 * xv * xv.T).det() == H.det() * (1 + f2 * quad)
    assert (H + f2 * xv * xv.T).det() != H.det() * (1 - f2 * quad)


def test_chi_mgf_quadrature_sees_a_wrong_dimension():
    with mp.workdps(30):
        assert abs(X.chi_mgf_quad("0.5", 1) - X.chi_mgf_quad("0.5", 2)) > mpf("0.1")
        assert abs(X.chi_mgf_quad("0.5", 1) / (2 * mp.exp(mpf("0.125")) * mp.ncdf("0.5")) - 1) < mpf(10) ** -20
