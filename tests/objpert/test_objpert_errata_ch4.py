"""The seed-003 chapter-4 errata (objpert.E4_1–objpert.E4_25; dpspec.proofs_checks.objpert.errata_ch4): every
demonstration reproduces (once the reference it calls has landed: a demonstration that cannot import a contract
name is skipped with that name), and the computations behind them are checked against independent ones (three
routes to Thm 4.3.1, quadrature of the exact 1-D ObjPert pair, seeded Monte Carlo, the notes' vectors of
shared/notes/objpert-rdp.md §5.2) and shown able to fail."""
import math

import mpmath
import numpy as np
import pytest
from mpmath import mp, mpf

from dpspec.proofs_checks.errata import DemonstrationResult, Erratum, errata, get_erratum, load_all
from dpspec.proofs_checks.objpert import _exact_ch4 as X
from dpspec.proofs_checks.objpert import errata_ch4 as E
from dpspec.reference import catalogue

IDS = (  # literal, so that `dpspec show objpert.E4_n` finds this file
    "objpert.E4_1", "objpert.E4_2", "objpert.E4_3", "objpert.E4_4", "objpert.E4_5",
    "objpert.E4_6", "objpert.E4_7", "objpert.E4_8", "objpert.E4_9", "objpert.E4_10",
    "objpert.E4_11", "objpert.E4_12", "objpert.E4_13", "objpert.E4_14", "objpert.E4_15",
    "objpert.E4_16", "objpert.E4_17", "objpert.E4_18", "objpert.E4_19", "objpert.E4_20",
    "objpert.E4_21", "objpert.E4_22", "objpert.E4_23", "objpert.E4_24", "objpert.E4_25",
)
# Demonstrations over ~3 s (E4_1: 10⁶-draw Monte Carlo; E4_8: 375-pair search; the others: mpmath quadratures of
# the exact pair or slow reference evaluators) run under -m slow; their pieces are tested below at cheaper settings.
HEAVY = ("objpert.E4_1", "objpert.E4_3", "objpert.E4_4", "objpert.E4_5", "objpert.E4_8", "objpert.E4_16", "objpert.E4_18",
         "objpert.E4_22")
# the contract's chapter-4 ids (shared/../contract.md), the chapter-2 ones E4_21 names, and App. C's later entries
CONTRACT_IDS = {f"objpert.{n}" for n in (
    "thm4_3_1", "thm4_3_1_epsilon", "thm4_3_2", "thm4_3_2_kl", "lemma4_3_4", "lemma_c4_3", "lemma_c4_6", "lemma_c4_7",
    "thm_c5_1", "lemma_c10_15", "thm4_4_1", "thm_c6_1", "thm_c6_3", "c7_gd", "c7_sag", "thm_c7_1", "thm_c8_1",
    "amp_calibration", "thm2_2_5", "thm4_2_8",
    "c8_2", "def_c10_13")}  # App. C's C.8.2 and Hölder, registered in session 17 (reference/objpert/appendix_c.py)


@pytest.fixture(autouse=True)
def _dps():
    load_all()
    with mp.workdps(30):
        yield


def _run(erratum_id):
    result, _ = get_erratum(erratum_id).check()  # a renamed reference function fails here (no skip)
    return result


def test_the_chapter4_errata_are_registered():
    assert {e.id for e in errata() if e.id.startswith("objpert.E4_")} == set(IDS)


@pytest.mark.parametrize("erratum_id", [i for i in IDS if i not in HEAVY])
def test_chapter4_erratum_reproduces(erratum_id):
    result = _run(erratum_id)
    assert result.reproduced, (result.message, result.evidence)


@pytest.mark.slow
@pytest.mark.parametrize("erratum_id", HEAVY)
def test_heavy_chapter4_erratum_reproduces(erratum_id):
    result = _run(erratum_id)
    assert result.reproduced, (result.message, result.evidence)


def test_every_chapter4_erratum_is_complete_and_names_contract_statements():
    for e in errata():
        if e.id.startswith("objpert.E4_"):
            assert e.source.startswith(E.SEED) and e.printed and e.corrected and e.summary, e.id
            assert e.severity in ("wrong", "typo", "gap"), e.id
            assert e.statements and set(e.statements) <= CONTRACT_IDS, (e.id, set(e.statements) - CONTRACT_IDS)


def test_the_named_statements_exist_in_the_catalogue():
    ids = {s.id for s in catalogue.statements()}
    named = {s for e in errata() if e.id.startswith("objpert.E4_") for s in e.statements}
    assert named <= ids, sorted(named - ids)


def test_a_crashing_or_failing_demonstration_is_not_reproduced():
    boom = Erratum("objpert.E4_99", "s", "s", "p", "c", lambda: 1 / 0)
    assert not boom.check()[0].reproduced

    def never():
        from dpspec.proofs_checks.checks import CheckResult
        return CheckResult("never", False)

    never.check_name = "objpert.x.never"
    result = E._demo(lambda: (True, {}, "ok"), checks=(never,))()
    assert isinstance(result, DemonstrationResult) and not result.reproduced and "never" in result.message


# --- Thm 4.3.1: three routes, the notes' table, the printed form (E4_1, E4_2, E4_3, E4_18) ------------------------

TABLE_A = {(5, 1, 20): ("0.515135416597", "0.200593447934", "2.15103088874e-3", "1.04262363084e-23"),
           (10, 1, 5): ("0.5534263593", "0.263724539643", "1.93984676437e-4", "1.68157982002e-72")}


@pytest.mark.parametrize("row", list(TABLE_A))
def test_thm431_closed_form_matches_notes_and_two_quadratures(row):
    sigma, beta, lam = row
    for eps, want in zip(("-0.5", "0", "0.5", "2"), TABLE_A[row]):
        closed = X.delta_431(eps, sigma, lam, beta, 1)
        assert abs(closed / mpf(want) - 1) < mpf("1e-10"), (row, eps)
        assert abs(X.delta_omega_quad(eps, sigma, lam, beta, 1) / closed - 1) < mpf("1e-10")
        assert abs(X.delta_pair_quad(eps, sigma, lam, beta, 1) / closed - 1) < mpf("1e-10")


def test_printed_thm431_matches_notes_and_is_not_monotone():
    assert abs(X.delta_431_printed("0.5", 10, 5, 1, 1) / mpf("9.14e-15") - 1) < mpf("1e-3")
    assert abs(X.delta_431_printed("0.2", 10, 5, 1, 1) / mpf("6.17e-7") - 1) < mpf("1e-3")
    assert X.delta_431_printed("0.25", 1, 2, "0.5", 1) > X.delta_431_printed("0.1", 1, 2, "0.5", 1)
    # the corrected profile is non-increasing on the same grid
    vals = [X.delta_431(e, 1, 2, "0.5", 1) for e in ("-1", "0", "0.1", "0.25", "0.5", "1")]
    assert all(b <= a for a, b in zip(vals, vals[1:]))


def test_printed_c46_atom_is_negative_and_corrected_atom_is_delta0():
    assert abs(X.printed_c46_atom(5, 20, 1, 1) - mpf("-0.100593")) < mpf("5e-7")
    assert abs(X.corrected_c46_atom(5, 20, 1, 1) - X.delta_431(0, 5, 20, 1, 1)) < mpf(10) ** -25


def test_float64_log_delta_matches_mpmath_including_deep_tails():
    for eps in (-0.5, 0.0, 0.3, 1.0, 2.0, 5.0):
        for (s, b, l) in ((5, 1, 20), (10, 1, 5), (1, 0.5, 2)):
            want = mpmath.log(X.delta_431(eps, s, l, b, 1))
            got = float(X.log_delta_431_64(eps, s, l, b, 1))
            assert abs(got - float(want)) < 1e-9 * max(1.0, abs(float(want))), (eps, s, b, l)


# --- the exact 1-D pair (E4_1, E4_4, E4_7, E4_16) --------------------------------------------------------------------

def test_exact_pair_matches_notes_vectors_in_mpmath_and_float64():
    mp.dps = 15  # restored by the fixture
    assert abs(X.Pair1D(1, 1, 2, 1).hockey("0.5", 0) - mpf("0.094357")) < mpf("5e-7")
    f64 = X.pair1d_divergences64(1, 1, 2, 1, (0.0, 1.0, 2.0), (2.0, 10.0))
    for key, want in (((("H", 0.0, 0)), 0.18581), (("H", 1.0, 0), 0.045626), (("H", 2.0, 0), 0.0080585),
                      (("D", 2.0, 0), 0.48963), (("D", 10.0, 0), 5.07304)):
        assert abs(f64[key] / want - 1) < 5e-5, key
    assert abs(X.pair1d_divergences64(1, 1, 20, 5, (0.5,))[("H", 0.5, 0)] / 1.8739e-5 - 1) < 1e-4
    assert abs(X.pair1d_divergences64(1, 1, 5, 10, (0.25,))[("H", 0.25, 0)] / 4.5329e-4 - 1) < 1e-4


def test_e1_monte_carlo_lower_bound_is_far_above_the_printed_delta():
    """Seed 20261127, 2·10⁵ draws of the exact PLRV (direction M(Z′)‖M(Z)), Maurer–Pontil at confidence 1 − 1e-9:
    the estimate is within 4 standard errors of the exact δ (float64 quadrature) and the lower bound ≫ printed."""
    m = E.E1_MECH
    exact = X.pair1d_divergences64(m["L"], m["beta"], float(m["lam"]), m["sigma"], (0.5,))[("H", 0.5, 1)]
    mc = E.e1_monte_carlo(n=200000)
    se = math.sqrt(exact * (1 - exact) / mc["n"])
    assert abs(mc["estimate"] - exact) < 4 * se
    printed = X.delta_431_printed(E.E1_EPS, m["sigma"], m["lam"], m["beta"], m["L"])
    assert printed < mpf(10) ** -30 and mc["lower"] > 0.009 and mc["lower"] < exact
    assert exact <= float(X.delta_431(E.E1_EPS, m["sigma"], m["lam"], m["beta"], m["L"]))


def test_eb_lower_is_below_the_mean_and_covers_a_known_mean():
    rng = np.random.default_rng(3)
    misses = 0
    for _ in range(200):
        x = (rng.random(2000) < 0.05).astype(float)
        misses += X.eb_lower(x, 0.05) > 0.05
    assert misses <= 10  # level 0.05: expected ≤ 10 of 200 (conservative bound; typically 0)
    with pytest.raises(ValueError):
        X.eb_lower(np.array([0.5, 1.5]), 0.1)


def test_sherman_morrison_certificate_holds_and_fails_without_the_jacobian_term():
    for pair in E.E16_PAIRS:
        assert E.e16_pointwise(*pair) <= 1e-9
    # drop the Jacobian term entirely: the certificate is violated where f″ matters (power of the check)
    assert max(E.e16_pointwise(*pair, jac=0.0) for pair in E.E16_PAIRS) > 1e-3


def test_exact_pairs_below_thm431_with_the_sherman_morrison_term():
    for (L, b, l, s) in E.E16_PAIRS:
        L, b, l, s = float(L), float(b), float(l), float(s)
        div = X.pair1d_divergences64(L, b, l, s, (0.0, 0.5, 1.0))
        for e in (0.0, 0.5, 1.0):
            bound = float(X.delta_431(e, s, l, b, L, a=X.jac_sm(b, l)))
            assert max(div[("H", e, 0)], div[("H", e, 1)]) <= bound + 1e-12


# --- RDP: Thm 4.3.2, α = 1 clause, C.5.1, C.3.1 (E4_5, E4_6, E4_8) ---------------------------------------------------

def test_thm432_vectors_limit_and_clause():
    for alpha, want in ((1.5, "0.234577635277"), (10, "0.324243902905"), (1000, "20.0519871354")):
        assert abs(X.rdp_432(alpha, 5, 20, 1, 1) - mpf(want)) < mpf("1e-11")
    assert abs(X.rdp_432_quad(10, 5, 20, 1, 1) - X.rdp_432(10, 5, 20, 1, 1)) < mpf(10) ** -20
    assert abs(X.kl_432(5, 20, 1, 1) - mpf("0.230870206548")) < mpf("1e-11")
    assert X.alpha1_clause_432(5, 20, 1, 1) == X.rdp_432(2, 5, 20, 1, 1)
    assert abs(X.rdp_432(1 + mpf(10) ** -15, 5, 20, 1, 1) - X.kl_432(5, 20, 1, 1)) < mpf(10) ** -13


def test_thm_c51_vectors_and_printed_underestimate():
    for (d, alpha), want in (((2, 2), "0.382073"), ((10, 10), "1.24615")):
        assert abs(X.rdp_c51(alpha, 5, 20, 1, 1, d) - mpf(want)) < mpf("5e-6")
    assert abs(X.chi_mgf_quad("1.0", 10) - mpf("28.2548847569")) < mpf("1e-9")
    # the printed L/(2σ²) at L = 2 is below the exact Gaussian RDP of a linear loss
    p = E.E6_POINT
    printed = X.rdp_c51(p["alpha"], p["sigma"], p["lam"], p["beta"], p["L"], 1, printed=True)
    assert printed < mpf(p["alpha"]) * p["L"] ** 2 / (2 * p["sigma"] ** 2) < X.rdp_c51(p["alpha"], p["sigma"], p["lam"], p["beta"], p["L"], 1)


def test_linearised_heuristic_values_and_its_search_on_exact_pairs():
    assert abs(X.linearised_opt(2, 5, 20, 1, 1)[0] - mpf("0.16065")) < mpf("5e-5")
    assert abs(X.linearised_opt(10, 5, 20, 1, 1)[0] - mpf("2.2127")) < mpf("5e-4")
    assert X.linearised_opt(2, 5, 20, 1, 1, restored=False)[0] == mpf("inf")
    h64, p64 = X.linearised_opt64(2.0, 5.0, 20.0, 1.0, 1.0)
    assert abs(h64 - float(X.linearised_opt(2, 5, 20, 1, 1)[0])) < 1e-6 and abs(p64 - 1.455) < 0.01
    found = E.e8_search(compare=False)
    assert found["pairs"] == 375 and found["violations"] == []
    assert 0 < found["smallest margin"]["margin"] < 1  # the search gets within reach of the heuristic


# --- Kifer (E4_17) ------------------------------------------------------------------------------------------------

def test_kifer_witness_and_search_fraction():
    w = E.E17_WITNESS
    d431 = X.delta_431(w["eps"], w["sigma"], w["lam"], w["beta"], w["L"])
    dk = X.kifer_delta(w["eps"], w["sigma"], w["L"])
    assert d431 > dk * mpf(10) ** 5 and mpf(w["lam"]) >= 2 * mpf(w["beta"]) / mpf(w["eps"])
    assert X.delta_431(w["eps"], w["sigma"], w["lam"], w["beta"], w["L"], a=X.jac_sm(w["beta"], w["lam"])) < dk
    assert abs(X.kifer_delta(1, "10.0821", 1) / mpf("1e-5") - 1) < mpf("1e-3")  # Thm 4.2.8 example, notes §5.1
    s = E.e17_search(n=8000, seed=5)
    assert s["exceed (a)"] > 0 and s["exceed (a')"] == 0 and 0.002 < s["fraction (a)"] < 0.05


# --- small ones -----------------------------------------------------------------------------------------------------

def test_clipped_loss_construction_is_continuous_only_with_the_constants():
    u = np.array([-1e-9, 1e-9])
    with_c, without = E.song_clipped(u, 0.5, 1.0), E.song_clipped(u, 0.5, 1.0, constants=False)
    assert abs(with_c[1] - with_c[0]) < 1e-8 and abs(abs(without[1] - without[0]) - math.log(2)) < 1e-8


def test_c81_rate_ratio_is_sqrt_d():
    for d in (4, 400):
        lg = mpmath.log(mpf(10) ** 5)
        text = E.c81_risk(d, 1, 1, mpmath.sqrt(d * lg), d * mpmath.sqrt(lg))
        assert abs(text / (mpmath.sqrt(d * lg)) - mpmath.sqrt(d)) < mpf(10) ** -20
