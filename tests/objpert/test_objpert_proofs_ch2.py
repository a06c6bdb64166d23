"""Proof checks of seed 003, chapter 2 and appendix A (dpspec.proofs_checks.objpert.symbolic_ch2): each holds, names
existing statements, and the machinery behind them can tell a false step from a true one."""
import mpmath
import pytest
import sympy as sp
from mpmath import mp, mpf

from dpspec.proofs_checks.checks import CHECKS, all_checks
from dpspec.proofs_checks.objpert import symbolic_ch2 as symbolic
from dpspec.reference import catalogue

CHECK_IDS = tuple(f"objpert.symbolic_ch2.{name}" for name in (
    "gaussian_expost_loss_algebra", "reconstruction_attack_inversion", "goe_release_sensitivity_identity",
    "report_cost_is_one_composed_gaussian", "calibrated_overhead_algebra", "cor2_3_2_from_change_of_variables",
    "sherman_morrison_and_determinant_lemma", "kifer_calibration_units", "subgaussian_tail_inversion"))


def test_the_chapter2_checks_are_registered():
    CHECKS.load()
    mine = {k for k in all_checks("objpert") if k.startswith("objpert.symbolic_ch2.")}
    assert mine == set(CHECK_IDS)
    assert {f.check_name for f in symbolic.CHECK_FUNCTIONS} == set(CHECK_IDS)


@pytest.mark.parametrize("check_id", CHECK_IDS)
def test_chapter2_check_holds(check_id):
    CHECKS.load()
    result = all_checks("objpert")[check_id]()
    assert result.holds, (result.message, result.evidence)


def test_chapter2_checks_name_existing_statements():
    CHECKS.load()
    ids = {s.id for s in catalogue.statements()}
    for cid in CHECK_IDS:
        c = all_checks("objpert")[cid]
        assert c.statements and set(c.statements) <= ids, (c.id, set(c.statements) - ids)


# --- the machinery can fail ---------------------------------------------------------------------------------------

def test_zero_test_rejects_the_printed_forms():
    """The symbolic zero test sees: the printed Kifer σ is not homogeneous of degree 1 in ξ; Thm 2.3.5 (1) with σ3³
    is not the composed Gaussian; the determinant lemma with the wrong sign; a wrong attack candidate."""
    xi, k, e, dl = symbolic.xi_p, symbolic.k_p, symbolic.eps_p, symbolic.dl
    printed = xi ** 2 * (8 * sp.log(2 / dl) + 4 * e) / e ** 2
    assert not symbolic._zero(printed.subs(xi, k * xi) - k * printed)
    s2, s3, beta = symbolic.s2, symbolic.s3, symbolic.beta_p
    S = sp.sqrt(xi ** 2 / s2 ** 2 + beta ** 2 / (2 * s3 ** 2))
    typo = xi ** 2 / (2 * s2 ** 2) + beta ** 2 / (4 * s3 ** 2) + sp.sqrt(xi ** 2 / s2 ** 2 + beta ** 2 / (2 * s3 ** 3)) \
        * sp.sqrt(2 * sp.log(1 / dl))
    assert not symbolic._zero(symbolic._composed_gaussian_eps(S) - typo)
    H, x = symbolic._sym_matrix("H", 3), symbolic._vec("x", 3)
    f2 = symbolic.fpp
    assert sp.expand((H + f2 * x * x.T).det() - (H.det() + f2 * (x.T * H.adjugate() * x)[0, 0])) == 0
    assert sp.expand((H + f2 * x * x.T).det() - (H.det() - f2 * (x.T * H.adjugate() * x)[0, 0])) != 0


def test_goe_vectorisation_is_not_chianis():
    """The Thm A.4.1 identity is specific to the (Z + Zᵀ)/√2 noise: with Chiani's (Z + Zᵀ)/2 the diagonal noise has
    variance σ3² and the off-diagonal σ3²/2, so v(Ĥ) = [diag/√2, upper] would have coordinates of variance σ3²/2 —
    the identity's 'same variance σ3² everywhere' fails (the √2 factor of erratum E2)."""
    s3 = symbolic.s3
    diag_var_chiani = (2 / sp.Integer(2)) ** 2 * s3 ** 2 / 2  # (2Z_kk/2)/√2: variance σ3²/2
    off_var_chiani = (s3 ** 2 + s3 ** 2) / 4
    assert not symbolic._zero(diag_var_chiani - s3 ** 2) and not symbolic._zero(off_var_chiani - s3 ** 2)


def test_cor_a3_6_printed_form_is_above_the_exact_overhead():
    """Cor A.3.6's closed form against Thm A.4.1's pDP at the corollary's own calibration σ3 = (ρ_max/ε)√(2 log(1.25/δ))
    (reference/objpert/report.py: calibrated_overhead vs hessian_eps): above it, strictly, with the gap closing as
    δ → 0 (the second terms' ratio √(log(1/δ)/log(1.25/δ)) → 1)."""
    from dpspec.reference.objpert.report import calibrated_overhead, hessian_eps

    with mp.workdps(30):
        gaps = []
        for delta in ("1e-3", "1e-6", "1e-50"):
            d = mpf(delta)
            for eps, hx, rho_max in ((mpf("0.5"), mpf("0.25"), mpf("0.25")), (mpf("0.9"), mpf("0.1"), mpf("0.25"))):
                sigma3 = rho_max / eps * mpmath.sqrt(2 * mpmath.log(mpf(5) / 4 / d))
                exact, printed = hessian_eps(hx, sigma3, d), calibrated_overhead(eps, hx, rho_max, d)
                assert exact < printed, (delta, eps, hx)
                gaps.append((printed - exact) / printed)
        assert gaps[-1] < mpf("0.002") < gaps[0]