"""The seed-003 errata (gptr.E1–gptr.E18; dpspec.proofs_checks.gptr.errata): every demonstration reproduces, the
numbers quoted in the entries are what the computations give, and the computations behind them are checked against
independent ones (quadrature, brute-force sums, the notes' vectors of shared/notes/generalized-ptr.md §5) and
shown able to fail (instances outside the hypotheses)."""
import json

import mpmath
import pytest
from mpmath import mp, mpf
from typer.testing import CliRunner

from dpspec.conformance.cli import app
from dpspec.proofs_checks.errata import DemonstrationResult, Erratum, errata, get_erratum, load_all
from dpspec.proofs_checks.gptr import _exact as X
from dpspec.proofs_checks.gptr import errata as gptr_errata
from dpspec.reference import catalogue

GPTR_IDS = tuple(f"gptr.E{i}" for i in range(1, 19))
# E3 (GNMax laws by quadrature) and E4 (16 δ-approximate binary-vote ε's) take ~3–5 s each: their full
# demonstrations are marked slow and their pieces are tested below at cheaper points.
HEAVY = ("gptr.E3", "gptr.E4")


@pytest.fixture(autouse=True)
def _dps():
    load_all()
    with mp.workdps(30):
        yield


def test_the_gptr_errata_are_registered():
    assert {e.id for e in errata() if e.id.startswith("gptr.")} == set(GPTR_IDS)


@pytest.mark.parametrize("erratum_id", [i for i in GPTR_IDS if i not in HEAVY])
def test_gptr_erratum_reproduces(erratum_id):
    result, _ = get_erratum(erratum_id).check()
    assert result.reproduced, (result.message, result.evidence)


@pytest.mark.slow
@pytest.mark.parametrize("erratum_id", HEAVY)
def test_heavy_gptr_erratum_reproduces(erratum_id):
    result, _ = get_erratum(erratum_id).check()
    assert result.reproduced, (result.message, result.evidence)


def test_every_gptr_erratum_is_complete_and_names_gptr_or_base_statements_that_exist():
    ids = {s.id for s in catalogue.statements()}
    for e in errata():
        if e.id.startswith("gptr."):
            assert e.source.startswith(gptr_errata.SEED) and e.printed and e.corrected and e.summary, e.id
            assert e.severity in ("wrong", "typo", "gap"), e.id
            assert e.statements and set(e.statements) <= ids, (e.id, set(e.statements) - ids)
            assert all(s.startswith(("gptr.", "base.")) for s in e.statements), e.id


def test_a_crashing_or_failing_demonstration_is_not_reproduced():
    """The register's machinery can fail: a demonstration that raises, and a _demo whose proof check does not hold."""
    boom = Erratum("gptr.E99", "s", "s", "p", "c", lambda: 1 / 0)
    assert not boom.check()[0].reproduced

    def never():
        from dpspec.proofs_checks.checks import CheckResult
        return CheckResult("never", False)

    never.check_name = "gptr.x.never"
    result = gptr_errata._demo(lambda: (True, {}, "ok"), checks=(never,))()
    assert isinstance(result, DemonstrationResult) and not result.reproduced and "never" in result.message


# --- E1 ---------------------------------------------------------------------------------------------------------

def test_b25_counterexample_numbers_match_the_entry_and_three_computations():
    row = gptr_errata.b25_instance(**gptr_errata.E1_INSTANCE)
    assert abs(row["exact_D_alpha"] - mpf("11.2515")) < mpf("5e-5")
    assert abs(row["printed_bound"] - mpf("8.5466")) < mpf("5e-5")
    assert abs(row["delta_prime"] - mpf("3.167e-5")) < mpf("5e-9") and abs(row["p_prime"] - mpf("2.867e-7")) < mpf("5e-11")
    assert abs(row["exact_D_alpha"] - row["exact_D_alpha (independent)"]) < mpf(10) ** -20
    assert abs(X.b25_divergence_quad(4, 1, 4, mpmath.sqrt(5)) - row["exact_D_alpha"]) < mpf(10) ** -15
    assert len(gptr_errata.b25_search()) == 95


def test_thm_b2_5_holds_when_bad_datasets_pass_with_the_same_probability():
    """The corrected reading: with p = p′ = δ′ the exact mixture divergence (Gaussian releases at D_α = ε̃, plus the
    test's Gaussian RDP) is below Thm B.2.5 at every grid point — the bound is only refuted by unequal passes."""
    thm = catalogue.get("gptr.thm_b2_5")
    for alpha in (2, 4, 8):
        for et in (5, 20):
            for dp in (mpf("1e-5"), mpf("0.01")):
                alpha_, et_ = mpf(alpha), mpf(et)
                exact = mpmath.log((1 - dp) + dp * mpmath.exp((alpha_ - 1) * et_)) / (alpha_ - 1) + alpha_ / 2
                bound = thm.evaluate(alpha=alpha, eps_hat_alpha=alpha_ / 2, eps_tilde_alpha=et, eps_alpha="0.01",
                                     delta_prime=dp, pass_law="equal", dps=30).value
                assert exact <= bound


# --- E2, E3 -------------------------------------------------------------------------------------------------------

def test_pate_constants_at_sigma_15_match_the_notes():
    eps_hat, alpha, beta = X.pate_constants_from_sigma(15, "1e-5")
    assert abs(eps_hat - mpf("0.58174")) < mpf("5e-6") and abs(alpha - mpf("42.9639")) < mpf("5e-5")
    assert abs(X.papernot_thm23(alpha, beta, 15) - mpf("0.20359")) < mpf("5e-6")
    assert abs((alpha + 1) / 225 - mpf("0.19540")) < mpf("5e-6")


def test_gnss_worst_case_matches_the_reference_closed_form_and_quadrature():
    """_exact's grid over the SS_β ratio r agrees with the reference's three closed-form candidates (so the maximum
    sits at an end or at r = 1), the Gaussian Rényi closed form with quadrature, and the printed lemma crosses the
    exact one between σ_s = 15 and 100 at the experiment's α, β."""
    from dpspec.reference.gptr import pate
    assert abs(X.gaussian_renyi(3, 0, 2, 1, "1.5") - X.gaussian_renyi_quad(3, 0, 2, 1, "1.5")) < mpf(10) ** -20
    assert X.gaussian_renyi(3, 0, 1, 0, "0.5") == mpf("inf")  # 3·0.5 − 2·1 < 0: the integral diverges
    for alpha, beta, sigma in ((2, "0.1", 1), (10, "0.02", 5), (64, "0.004655", 15), (42.96, "0.004655", 1000)):
        mine, r = X.gnss_worst(alpha, beta, sigma)
        assert abs(mine - pate.gnss_rdp_exact(alpha, beta, sigma)) < mpf(10) ** -20 * mine
    _, alpha, beta = X.pate_constants_from_sigma(15, "1e-5")
    crossing = gptr_errata.gnss_crossing(alpha, beta)
    assert abs(crossing - mpf("81.859")) < mpf("1e-3")
    below, above = gptr_errata.gnss_lemma(alpha, beta, crossing * mpf("0.99")), gptr_errata.gnss_lemma(alpha, beta, crossing * mpf("1.01"))
    printed = lambda s: (3 * alpha + 2) / (2 * s ** 2)  # noqa: E731
    assert below < printed(crossing * mpf("0.99")) and above > printed(crossing * mpf("1.01"))


def test_gnmax_law_is_a_distribution_and_tiny_for_a_one_vote_move():
    mp.dps = 15  # restored by the fixture
    law = X.gnmax_law((300, 60, 40), 40)
    assert abs(mpmath.fsum(law) - 1) < mpf(10) ** -12
    law2 = X.gnmax_law((299, 61, 40), 40)
    d2 = X.renyi_discrete(law, law2, 2)
    assert mpf("2.8e-7") < d2 < mpf("3.0e-7")  # notes §3.11: 2.9e-7, far below α/σ² = 1.25e-3


# --- E4, E10 ------------------------------------------------------------------------------------------------------

def test_binary_rnm_exact_eps_matches_the_notes_and_the_tail_by_quadrature():
    for t, want in ((0, "0.5945"), (1, "0.7123"), (5, "0.8665"), (10, "0.9200"), (100, "0.9902")):
        assert abs(X.rnm_eps(t, 1) - mpf(want)) < mpf("5e-5")
    tail = mpmath.quad(X.lap_diff_density, [mpf("1.5"), mpmath.inf])
    assert abs(tail - X.lap_diff_tail("1.5")) < mpf(10) ** -20
    assert abs(X.lap_diff_tail(-2) + X.lap_diff_tail(2) - 1) < mpf(10) ** -25


def test_binary_rnm_approximate_eps_is_not_monotone_and_replace_one_is_larger():
    vals = [X.rnm_eps(t, 1, "1e-5") for t in range(16)]
    assert vals[8] > vals[0] and vals[13] < vals[8] and vals[14] == 0
    for t in (0, 3, 7):
        assert X.rnm_eps(t, 1, step=2) > X.rnm_eps(t, 1, step=1)


# --- E5, E16: the OPS pair ----------------------------------------------------------------------------------------

def test_gaussian_pair_delta_matches_quadrature_and_the_equal_variance_closed_form():
    m1, v1, m2, v2, eps = mpf("0.1"), mpf("0.5"), mpf("0.4"), mpf("0.3"), mpf("0.7")
    g = lambda o: mpmath.npdf(o, m1, mpmath.sqrt(v1)) - mpmath.exp(eps) * mpmath.npdf(o, m2, mpmath.sqrt(v2))
    grid = mpmath.linspace(-12, 12, 241)  # the kinks of (p − e^ε q)_+ by a sign scan and bisection, not the roots
    kinks = [mpmath.findroot(g, (a, b), solver="bisect") for a, b in zip(grid, grid[1:]) if g(a) * g(b) < 0]
    quad = mpmath.quad(lambda o: max(mpf(0), g(o)), [-mpmath.inf] + kinks + [mpmath.inf])
    assert len(kinks) == 2 and abs(quad - X.gaussian_pair_delta(m1, v1, m2, v2, eps)) < mpf(10) ** -20
    assert abs(X.gaussian_pair_delta(0, 4, 1, 4, eps) - X.analytic_gaussian_delta(eps, mpf(1) / 2)) < mpf(10) ** -25
    e = X.gaussian_pair_eps(m1, v1, m2, v2, "1e-3")
    assert X.gaussian_pair_delta(m1, v1, m2, v2, e) <= mpf("1e-3") < X.gaussian_pair_delta(m1, v1, m2, v2, e - mpf("1e-8"))


def test_ops_calibration_is_safe_in_the_corrected_direction_only():
    rows = {name: gptr_errata.ops_release_case(*fns) for name, fns in gptr_errata.E5_CASES.items()}
    good, *bad = rows.values()
    eps = mpf(gptr_errata.E5_DATA["eps"])
    assert good["exact eps at delta (neighbour z)"] <= eps
    assert all(r["exact eps at delta (neighbour z)"] > eps for r in bad)
    assert abs(good["gamma*"] - mpf("0.08481")) < mpf("5e-6")


def test_printed_ops_bound_fails_and_the_corrected_one_holds_on_the_1d_data_set():
    rows = gptr_errata.ops_tail_rows()
    assert all(p < e <= c for e, p, c, *_ in rows.values())
    assert abs(rows[1][0] - mpf("3.7758")) < mpf("5e-4") and abs(rows[1][1] - mpf("3.2058")) < mpf("5e-4")
    # Alg 14's line 5 at the true statistics is Thm 3.6.1 (printed and corrected alike)
    assert all(abs(a_p - p) < mpf(10) ** -20 * p and abs(a_c - c) < mpf(10) ** -20 * c
               for _, p, c, a_p, a_c in rows.values())


def test_ops_witness_rebuilt_from_its_datasets_matches_the_reference_profile_and_the_ridge_fit():
    """_exact's 1-D laws of gptr.ops_ridge (rebuilt from the datasets) give the reference's exact profile, and the
    remove-case dataset really has L(X) = ‖𝒳‖(‖𝒴‖ + ‖𝒳‖|θ*|) = L (explicit ridge fit on the first coordinate)."""
    from dpspec.reference.gptr import ops
    for eps, gamma, lam, lam_min, L, x in (("1.3", "0.7", 10, 5, 2, 1), ("0.5", "0.15", 1000, 0, 10, 1),
                                           (2, 3, 2, 1, 4, "0.5")):
        ref = max(ops.ops_pair_profile(eps, gamma, lam, lam_min, L, x, case=c, order=o)
                  for c in ("add", "remove") for o in ("PQ", "QP"))
        assert abs(X.ops_witness_delta(eps, gamma, lam, lam_min, L, x) - ref) < mpf(10) ** -20 * ref
    lam, lam_min, L, x = mpf(3), mpf(2), mpf(4), mpf("0.5")
    (m, v), (m2, v2) = X.ops_witness_laws(1, lam, lam_min, L, x, "remove")
    y = m * (lam_min + x * x + lam) / x  # the label of z from the posterior mean Σxy/(Σx² + λ)
    assert abs(x * (y + x * abs(m)) - L) < mpf(10) ** -25 and m2 == 0 and v2 > v
    with pytest.raises(ValueError):
        X.ops_witness_laws(1, lam, lam_min, L, x, "replace")


def test_alg15_ops_step_with_the_printed_calibration_exceeds_the_claimed_delta():
    a15 = gptr_errata.E16_ALG15
    rows = gptr_errata.alg15_ops_step(**a15)
    d = mpf(a15["delta"])
    (g_p, ex_p, ind_p), (g_c, ex_c, ind_c) = rows["printed"], rows["corrected"]
    assert ex_p > d > d / 3 >= max(ex_c, ind_c) and g_p > g_c
    assert abs(ex_p - ind_p) < mpf(10) ** -15 * ex_p and abs(g_p - mpf("0.150214")) < mpf("5e-6")
    # smaller budgets leave the printed step below δ: the failure needs a point like E16_ALG15's
    assert gptr_errata.alg15_ops_step(eps="0.1", delta="1e-6", lam=1000, lam_min=0, L=10)["printed"][1] < d


# --- E17: Thm B.3.6 on the squared loss -------------------------------------------------------------------------

def test_printed_thm_b3_6_misses_its_delta_and_the_corrected_one_holds_on_the_squared_loss():
    with mp.workdps(gptr_errata.E17_DPS):
        (k1, p1), (k2, p2) = gptr_errata.E17_POINTS.items()
        _, ex1, ind1 = gptr_errata.squared_loss_delta("printed", **p1)
        _, ex2, _ = gptr_errata.squared_loss_delta("printed", **p2)
        assert ex1 / mpf(p1["delta"]) > 10 ** 5 and ex2 / mpf(p2["delta"]) > 10 ** 15
        assert abs(ex1 - ind1) < mpf(10) ** -20 * ex1
        for p in (p2,) + gptr_errata.E17_INSIDE:
            assert gptr_errata.squared_loss_delta(None, **p)[1] <= mpf(p["delta"])
        # the second point lies inside the added condition R(L + β) ≥ β/2 (β = 1): there the printed form fails by
        # its tail factor alone, so the condition without the doubled tail is not enough
        assert 2 * mpf(p2["R"]) * (mpf(p2["L"]) + 1) >= 1
        assert all(2 * mpf(p["R"]) * (mpf(p["L"]) + 1) >= 1 for p in gptr_errata.E17_INSIDE)


# --- E18: Lemma B.4.2 under removal -----------------------------------------------------------------------------

def test_lemma_b4_2_removal_family_attains_the_corrected_bound():
    for lam, h in (("0.1", "0.1"), ("0.001", "0.001"), (1, 1)):
        f = gptr_errata.b42_removal_family(lam, h)
        a = f["lam"] + f["h"] + 1  # λ + λ_min(X)
        assert abs(f["change"] - mpmath.log(1 + 1 / (a - 1))) < mpf(10) ** -25
        assert abs(f["printed"] - mpmath.log(1 + 1 / a)) < mpf(10) ** -25
        assert abs(f["change"] - f["change (float)"]) < 1e-9 and f["change"] > f["printed"]
    worst = gptr_errata.b42_removal_family("0.001", "0.001")
    assert abs(worst["change"] / worst["printed"] - mpf("8.982")) < mpf("5e-4")
    # the ratio grows without bound as λ + λ_min(X) ↓ ‖𝒳‖² = 1
    ratios = [f["change"] / f["printed"] for f in (gptr_errata.b42_removal_family(t, t) for t in ("0.1", "0.01", "0.001"))]
    assert ratios[0] < ratios[1] < ratios[2]


def test_lemma_b4_2_random_search_respects_the_corrected_bound_only():
    out = gptr_errata.b42_random_search()
    assert out["remove/printed"][0] > 1 and out["add/printed"][0] <= 1 + 1e-12
    assert out["any/corrected"][0] <= 1 + 1e-12


# --- E9 ------------------------------------------------------------------------------------------------------------

def test_alg12_exact_instance_and_a_violation_outside_the_hypotheses():
    holds, worst, _ = gptr_errata.alg12_statement_holds(**gptr_errata.E9_INSTANCE)
    assert holds and abs(worst - mpf("0.0367564")) < mpf("5e-7")
    # A's bound failing with probability 0.5 > δ′ (outside the hypotheses): the same δ′ no longer covers it
    outside = dict(gptr_errata.E9_INSTANCE, a="0.5")
    assert not gptr_errata.alg12_statement_holds(**outside)[0]
    assert len(gptr_errata.alg12_random_instances(count=20, seed=1)) == 20


# --- E12, E13 -------------------------------------------------------------------------------------------------------

def test_truncated_geometric_closed_forms_match_brute_force():
    tau, T, x = mpf("0.2"), 7, mpf("0.9")
    probs = [tau * (1 - tau) ** (g - 1) for g in range(1, T)] + [(1 - tau) ** (T - 1)]
    assert abs(mpmath.fsum(probs) - 1) < mpf(10) ** -25
    assert abs(mpmath.fsum(p * x ** g for g, p in enumerate(probs, 1)) - X.truncated_geometric_pgf(x, tau, T)) < mpf(10) ** -25
    assert abs(mpmath.fsum(g * p for g, p in enumerate(probs, 1)) - X.truncated_geometric_mean(tau, T)) < mpf(10) ** -25


def test_classical_gaussian_fails_only_well_above_one():
    c = mpmath.sqrt(2 * mpmath.log(mpf("1.25") / mpf("1e-5")))
    assert X.analytic_gaussian_delta(1, 1 / c) < mpf("1e-5") and X.analytic_gaussian_delta(5, 5 / c) < mpf("1e-5")
    assert X.analytic_gaussian_delta(10, 10 / c) > mpf("1e-5")


# --- the command line ---------------------------------------------------------------------------------------------

def test_dpspec_errata_and_show_reproduce_a_gptr_erratum():
    runner = CliRunner()
    r = runner.invoke(app, ["errata", "--only", "gptr.E8", "--json"])
    assert r.exit_code == 0, r.output
    (row,) = json.loads(r.stdout)
    assert row["id"] == "gptr.E8" and row["reproduced"] is True and row["statements"] == ["gptr.thm3_3_3"]
    s = runner.invoke(app, ["show", "gptr.E1", "--no-run"])
    assert s.exit_code == 0 and "gptr.thm_b2_5" in s.stdout and "verdict: not run" in s.stdout
