"""`dpspec figures gptr --out DIR` (seed 003 Figs 3.1, 3.2, B.1; conformance/figures/gptr.py): the PNG and CSV files
are written, the numbers agree with the catalogue and with the notes' §5.2 values at a few points, the float64
candidate mechanisms and Algorithm 6 mirror the reference algorithms draw for draw, the exact Gen-PTR expectation
agrees with Monte Carlo, a missing scikit-learn is one clear error, and the two examples run (--quick). One --quick
run at low DPI (about 10 s of CPU) feeds the file's CSV tests."""
import csv
import importlib.util
import math
import runpy
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from dpspec.conformance import figures
from dpspec.conformance.cli import app
from dpspec.conformance.figures import gptr as G
from dpspec.reference.errors import ParameterError
from tests._helpers import reference_value, relative_error

NAMES = ("fig3_1_gptr", "ops_accounting_gptr", "fig3_2_gptr", "figb1a_gptr", "figb1b_gptr")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("figs_gptr")
    result = CliRunner().invoke(app, ["figures", "gptr", "--out", str(out), "--quick", "--dpi", "30"])
    assert result.exit_code == 0, result.output
    return out, result.output


def _value(text: str):
    if text == "":
        return None
    if text in ("True", "False"):
        return text == "True"
    try:
        return float(text)
    except ValueError:
        return text


def _rows(out, name):
    with (out / f"{name}.csv").open() as fh:
        return [{k: _value(v) for k, v in row.items()} for row in csv.DictReader(fh)]


def test_cli_writes_every_png_and_its_data(quick):
    out, output = quick
    for name in NAMES:
        png = out / f"{name}.png"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert _rows(out, name)
        assert str(png) in output and str(out / f"{name}.csv") in output
    assert "gptr" in figures.PAPERS


# ---------------------------------------------------------------------------------------------------------------
# Fig 3.1 and its budget


def test_fig3_1_accounting_holds_and_the_printed_alg15_misses_delta(quick):
    """Every valid method's Algorithm 5 run is accounted at most the target (ε, 1e-6) (the reference's Outcome);
    the printed Alg 15's true total δ (Thm 3.5.6 at gptr.thm_b4_1's printed_calibration) exceeds 1e-6 (E7); the
    intervals contain their means and the zero predictor is worse than the non-private ridge."""
    rows = _rows(quick[0], "fig3_1_gptr")
    eps_grid = G.OPS_GRID["quick"]["eps"]
    for eps in eps_grid:
        at = {r["method"]: r for r in rows if r["eps"] == eps}
        assert set(at) == set(G.OPS_METHODS) | {"non_private_ridge", "zero_predictor"}
        assert at["zero_predictor"]["test_mse"] > at["non_private_ridge"]["test_mse"]
        for m in G.OPS_METHODS:
            r = at[m]
            assert r["eps_accounted"] <= eps * (1 + 1e-12) and r["delta_accounted"] <= 1e-6 * (1 + 1e-12)
            assert r["ci_low"] <= r["test_mse"] <= r["ci_high"] and r["mean_T_hat"] >= 1
            assert 0 <= r["bottom_share"] <= 1
        assert at["outpert"]["bottom_share"] == 0  # OutPert never refuses
        printed = at["ops_ptr_alg15_printed"]
        assert printed["valid"] is False and printed["delta_true"] > 1e-6
        assert at["ops_ptr_alg14"]["valid"] is True and at["ops_ptr_alg14"]["delta_true"] is None


def test_ops_budget_reproduces_the_notes_and_the_catalogue(quick):
    """notes §5.2: T = (1/τ) log(1/δ2) = 8705.19 at k = 30, δ = 1e-6; δ* = ((δ − δ2)/T)²/2 = 1.6495e-21 at that T
    (the CSV's δ* uses Algorithm 5's integer cut-off 8706, so that its accounting closes at δ); Thm 3.5.6
    (gptr.thm3_5_6, reference) at (ε*, δ*) is (ε, ≤ δ); the per-PTR split's Ex 3.6.2 total is (ε*, δ*)
    (gptr.ex3_6_2); the printed Alg 15's per-candidate δ is gptr.thm_b4_1's printed_calibration."""
    for r in _rows(quick[0], "ops_accounting_gptr"):
        assert abs(r["T_real"] - 8705.19) < 0.01 and r["T_cutoff"] == 8706
        assert relative_error(((1e-6 - 5e-7) / r["T_real"]) ** 2 / 2, 1.6495e-21) < 1e-4
        assert relative_error(r["delta_star"], ((1e-6 - 5e-7) / 8706) ** 2 / 2) < 1e-12
        eps_lt, delta_lt = reference_value("gptr.thm3_5_6", dps=30, as_float=True, eps_star=repr(r["eps_star"]),
                                           delta_star=repr(r["delta_star"]), tau=repr(r["tau"]), delta_2="5e-7")
        assert relative_error(eps_lt, r["eps"]) < 1e-9 and delta_lt <= 1e-6
        assert relative_error(r["alg5_delta"], 1e-6) < 1e-9 and relative_error(r["alg5_eps"], r["eps"]) < 1e-9
        assert relative_error(r["ex3_6_2_eps"], r["eps_star"]) < 1e-12
        assert relative_error(r["ex3_6_2_delta"], r["delta_star"]) < 1e-12
        assert r["alg15_delta"] <= r["delta_star"] and r["alg15_eps"] <= r["eps_star"] * (1 + 1e-12)
        printed = reference_value("gptr.thm_b4_1", dps=30, variant="printed_calibration", as_float=True,
                                  eps=repr(r["eps_star"]), delta=repr(r["delta_star"]))
        assert relative_error(r["alg15_printed_delta_per_candidate"], printed[1]) < 1e-9
        assert r["alg15_printed_misses_delta"] is True and r["alg15_printed_total_delta"] > 1e-6


def test_candidates_mirror_the_reference_algorithms():
    """The float64 candidates replay regression_algorithms' reference algorithms: with the same seeded generator
    they make the same draws and return the same release (or both ⊥) — Alg 14, Alg 15 (analytic and printed),
    OutPert, and OPS without PTR (whose γ* meets ε* in gptr.thm3_6_1 at λ_min = 0, L = 1 + √(n/λ))."""
    from dpspec.reference.gptr.regression_algorithms import alg14_ops_ptr, alg15_ops_ptr, ops_sample, outpert

    X, y = G.load_diabetes_scaled()
    path = G.RidgePath.build(X, y, np.random.default_rng([G.SEED, 0]))
    n = path.X.shape[0]
    budget = G.selection_budget(16.0)
    const = G.candidate_constants(budget["eps_star"], budget["delta_star"], path.lams, n)
    es, ds = budget["eps_star"], budget["delta_star"]
    c14 = const.alg14
    seen = {"bottom": 0, "release": 0}
    for j in (2, 15, 24):
        lam = path.lams[j]
        for which, mirror, reference in (
                ("alg14", lambda g: G.run_alg14(path, j, g, c14),
                 lambda g: alg14_ops_ptr(path.X, path.y, lam, eps=c14["eps"], delta=c14["delta"],
                                         eps_hat=c14["eps_hat"], delta_hat=c14["delta_hat"],
                                         delta_prime_1=c14["delta_prime_1"], delta_prime_2=c14["delta_prime_2"],
                                         rng=g)[0]),
                ("alg15", lambda g: G.run_alg15(path, j, g, const.alg15),
                 lambda g: alg15_ops_ptr(path.X, path.y, lam, eps=es, delta=ds, rng=g, calibration="analytic")[0]),
                ("alg15p", lambda g: G.run_alg15(path, j, g, const.alg15_printed),
                 lambda g: alg15_ops_ptr(path.X, path.y, lam, eps=es, delta=ds, rng=g, calibration="printed")[0]),
                ("outpert", lambda g: G.run_outpert(path, j, g, const.outpert_sigma),
                 lambda g: outpert(path.X, path.y, lam, eps=es, delta=ds, rng=g, n_max=n)[0])):
            got, want = mirror(np.random.default_rng(j)), reference(np.random.default_rng(j))
            assert (got is None) == (want is None), (which, j)
            if want is None:
                seen["bottom"] += 1
            else:
                seen["release"] += 1
                np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=f"{which} at λ = {lam}")
        gamma = const.ops_gamma[j]
        if gamma is not None:
            np.testing.assert_allclose(G.run_ops(path, j, np.random.default_rng(j), const.ops_gamma),
                                       ops_sample(path.X, path.y, lam, gamma, np.random.default_rng(j)), rtol=1e-9)
            eps_at = reference_value("gptr.thm3_6_1", dps=30, as_float=True, gamma=repr(gamma), lam=repr(float(lam)),
                                     lam_min="0", L=repr(1 + math.sqrt(n / lam)), x_norm="1", delta=repr(ds))
            assert relative_error(eps_at, es) < 1e-9
    assert seen["bottom"] >= 1 and seen["release"] >= 4  # both branches compared


def test_candidates_refuse_where_gamma_underflows():
    """At ε = 0.25 and λ = 2.5 the released Δ^P is in the hundreds, L̃ = e^{Δ^P} beyond float64 and γ* ∝ 1/L̃² below
    it: the candidates output ⊥ (the reference algorithms raise OverflowError there, see the module docstring);
    from λ ≈ 1000 on they release."""
    X, y = G.load_diabetes_scaled()
    path = G.RidgePath.build(X, y, np.random.default_rng([G.SEED, 0]))
    budget = G.selection_budget(0.25)
    const = G.candidate_constants(budget["eps_star"], budget["delta_star"], path.lams, path.X.shape[0])
    trace = []
    assert G.run_alg14(path, 0, np.random.default_rng(1), const.alg14, trace) is None
    assert trace[0][2] > 709  # Δ^P
    assert G.run_alg15(path, 0, np.random.default_rng(1), const.alg15) is None
    assert G.run_alg14(path, 29, np.random.default_rng(1), const.alg14) is not None


# ---------------------------------------------------------------------------------------------------------------
# Fig 3.2


def test_fig3_2_reproduces_the_catalogue_at_its_points(quick):
    """At σ1 = 1.3^10 = 13.786 the Gaussian baseline is gptr.gnmax_composed (notes §5.2: 8.0139); Alg 6's constants
    at σ_s = 15 are the notes' (ε̂ = 0.58174, α = 42.9639) and the test costs are pate.test_cost's (Thm 23: 0.58994,
    the notes' E2; exact GNSS 0.5448 < ε̂); the non-private data-dependent ε is never above the Gaussian one; the
    purple-region floors are ε̂ + mean ε_σ1."""
    rows = _rows(quick[0], "fig3_2_gptr")
    assert {r["consensus"] for r in rows} == set(G.CONSENSUS)
    for r in rows:
        gauss = reference_value("gptr.gnmax_composed", dps=30, as_float=True, T=200, sigma=repr(r["sigma_1"]),
                                delta="1e-5")
        assert relative_error(r["eps_gaussian"], gauss) < 1e-12
        if abs(r["sigma_1"] - 13.786) < 1e-3:
            assert abs(r["eps_gaussian"] - 8.0139) < 1e-3
        assert abs(r["eps_hat_printed"] - 0.58174) < 1e-5 and abs(r["alpha"] - 42.9639) < 1e-4
        assert abs(r["eps_hat_thm23"] - 0.58994) < 1e-5 and r["eps_hat_tight"] < r["eps_hat_printed"]
        assert r["eps_data_dependent"] <= r["eps_gaussian"] * (1 + 1e-9)
        assert r["eps_sigma1_min"] <= r["eps_sigma1_mean"] <= r["eps_sigma1_max"]
        assert relative_error(r["eps_ptr_tight"], r["eps_sigma1_mean"] + r["eps_hat_tight"]) < 1e-12
        assert relative_error(r["eps_ptr_printed"], r["eps_sigma1_mean"] + r["eps_hat_printed"]) < 1e-12
    high = [r for r in rows if r["consensus"] == "high"]
    low = [r for r in rows if r["consensus"] == "low"]
    assert min(r["mean_gap"] for r in high) > 200 > max(r["mean_gap"] for r in low)
    assert all(120 < r["mean_top_votes"] < 170 for r in low)


def test_alg6_mirror_matches_the_reference_algorithm():
    """figures.gptr.alg6_run (fast-path E and SS, float64 lines 6–9) replays smooth_sensitivity.alg6_pate_ptr (mpmath)
    on a 2-query slice of the synthetic votes with the same seeded generator: the same labels, the same pass/fail,
    E, SS and ε_σ1 to 1e-6."""
    from dpspec.reference.gptr.smooth_sensitivity import alg6_pate_ptr

    setting = G.pate_setting()
    votes, _ = G.synthetic_votes("low", np.random.default_rng(7), queries=2)
    outcomes = []
    for sigma_1, eps_prime in ((30.0, 40.0), (13.0, 0.5)):  # the first passes, the second gives ⊥ (ε_σ1 ≈ 1.0)
        want = alg6_pate_ptr(votes.tolist(), sigma_1, setting["eps_hat"], eps_prime, 1e-5, np.random.default_rng(3))
        got = G.alg6_run(votes, sigma_1, eps_prime, np.random.default_rng(3), setting)
        assert got["passed"] == want["passed"]
        outcomes.append(got["passed"])
        assert (got["labels"] is None) == (want["labels"] is None)
        np.testing.assert_array_equal(got["gnmax_labels"], np.argmax(
            votes + sigma_1 * np.random.default_rng(3).standard_normal(votes.shape), axis=1))
        if want["labels"] is not None:
            np.testing.assert_array_equal(got["labels"], want["labels"])
        for key in ("rdp", "smooth_sensitivity", "eps_sigma1", "upper"):
            assert relative_error(got[key], want[key]) < 1e-6, key
        assert relative_error(got["guarantee"][0], want["guarantee"][0]) < 1e-12
    assert outcomes == [True, False]


# ---------------------------------------------------------------------------------------------------------------
# Fig B.1


def test_figb1a_shows_the_opposite_trend(quick):
    """notes §2.6 at ε = 10: the exact pure ε is 8.208 at gap 0 and 9.394 at gap 1 and increases towards ε with the
    gap (E4: the opposite of the text's claim); at δ = 1e-5 it is 0 from gap 5 on; the printed bound is negative."""
    rows = {int(r["gap"]): r for r in _rows(quick[0], "figb1a_gptr")}
    assert abs(rows[0]["eps_data_dependent_pure"] - 8.208) < 1e-3
    assert abs(rows[1]["eps_data_dependent_pure"] - 9.394) < 1e-3
    gaps = sorted(rows)
    pure = [rows[g]["eps_data_dependent_pure"] for g in gaps]
    assert all(a < b for a, b in zip(pure, pure[1:])) and pure[-1] < 10
    for g in gaps:
        r = rows[g]
        assert r["eps_printed"] < 0 and r["printed_below_exact"] is True and r["eps_laplace"] == 10
        if g >= 5:
            assert r["eps_data_dependent_delta"] == 0
        assert relative_error(r["eps_data_dependent_pure"], reference_value(
            "gptr.thm_b3_2", dps=30, as_float=True, t=g, eps=10, delta=0)) < 1e-12


def test_figb1b_orderings_and_alignment(quick):
    """At t = 100, b ∈ (0, 0.5]: Gen-PTR (ε̃ + E[ε_p], ε̃ = 1/(2b)) < Laplace (1/b) < classic PTR at the aligned error
    rate; the classic ε̃ really aligns: ½F(log(1/δ) − ε̃(t − 1)) = p(εt) (recomputed here in log space)."""
    for r in _rows(quick[0], "figb1b_gptr"):
        eps = 1 / r["b"]
        assert r["eps_gen_ptr"] < r["eps_laplace"] < r["eps_classic_ptr"]
        assert r["expected_eps_p_printed"] <= r["expected_eps_p"] * (1 + 1e-9) + 1e-300
        x = math.log(1e5) - r["eps_classic_ptr"] * 99
        log_err_classic = math.log(0.25) + x if x < 0 else math.log(0.5 * (1 - 0.5 * math.exp(-x)))
        log_err_laplace = math.log(2 + 100 * eps) - 100 * eps - math.log(4)
        assert abs(log_err_classic - log_err_laplace) < 1e-9 * abs(log_err_laplace)
        assert abs(r["log10_error_rate"] * math.log(10) - log_err_laplace) < 1e-9 * abs(log_err_laplace)


def test_expected_eps_p_matches_monte_carlo():
    """The exact E[ε_p] against 6000 draws of Ex B.3.1's Gen-PTR test statistic (binary_vote's
    _private_gap_lower_bound and sup_epsilon_above, the reference), at a point where ε_p varies (t = 25, ε = 1,
    ε̃ = 1, δ = 1e-5: t_p ≈ 13.5 + Lap(1) straddles the gaps where ε_{δ/2} falls from 0.83 to 0); seed 11, within 4
    standard errors; the printed ε(t_p) has a smaller mean."""
    import mpmath

    from dpspec.reference.gptr.binary_vote import _private_gap_lower_bound, sup_epsilon_above

    rng = np.random.default_rng(11)
    cache = {}
    draws = []
    for _ in range(6000):
        g = max(0, math.ceil(_private_gap_lower_bound(25, 1.0, 1e-5, rng)))
        if g not in cache:
            with mpmath.workdps(20):
                cache[g] = sup_epsilon_above(g, 1.0, mpmath.mpf(1e-5) / 2)
        draws.append(cache[g])
    with mpmath.workdps(30):
        exact = float(G.expected_eps_p(25, 1, 1, 1e-5))
        printed = float(G.expected_eps_p(25, 1, 1, 1e-5, printed=True))
    se = np.std(draws, ddof=1) / math.sqrt(len(draws))
    assert se > 1e-3 and abs(np.mean(draws) - exact) < 4 * se
    assert printed < exact


# ---------------------------------------------------------------------------------------------------------------
# errors and examples


def test_missing_scikit_learn_is_one_clear_error(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "sklearn" else real(name, *a))
    with pytest.raises(ParameterError, match="needs scikit-learn"):
        figures.render("gptr", tmp_path / "x", quick=True)
    result = CliRunner().invoke(app, ["figures", "gptr", "--out", str(tmp_path / "y"), "--quick"])
    assert result.exit_code == 2
    assert "scikit-learn" in result.output and len(result.output.strip().splitlines()) == 1
    assert not (tmp_path / "y").exists()  # refused before writing anything


def _example(name, argv, capsys):
    old = sys.argv
    sys.argv = [name] + argv
    try:
        with pytest.raises(SystemExit) as exit_:
            runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    finally:
        sys.argv = old
    return exit_.value.code, capsys.readouterr().out


def test_ops_ptr_example_quick(capsys):
    """examples/ops_ptr_regression.py --quick: prints the budget, the per-λ trace and the MSE table; its check line
    shows the reference alg14_ops_ptr and the float64 mirror giving the same γ*."""
    code, out = _example("ops_ptr_regression.py", ["--quick"], capsys)
    assert code == 0, out
    assert "T = (1/tau) log(1/delta_2) = 8705.19" in out and "OPS-PTR (Alg 14 in Alg 5)" in out
    line = next(li for li in out.splitlines() if "check at lambda" in li)
    ref = float(line.split("reference alg14_ops_ptr gamma = ")[1].split(",")[0])
    mirror = float(line.split("float64 mirror gamma = ")[1])
    assert relative_error(mirror, ref) < 1e-9


def test_pate_ptr_example_quick(capsys):
    """examples/pate_ptr_synthetic.py --quick: Alg 6 end to end; the printed guarantees are ε′ + the three test
    costs of pate.test_cost."""
    code, out = _example("pate_ptr_synthetic.py", ["--quick"], capsys)
    assert code == 0, out
    assert ("PASSED" in out) != ("FAILED" in out)
    s = G.pate_setting()
    assert f"eps = {15 + s['cost_tight']:.5f}" in out and f"eps = {15 + s['eps_hat']:.5f}" in out
    assert "accuracy vs the votes' argmax" in out


# ---------------------------------------------------------------------------------------------------------------
# the full grids (minutes)


@pytest.mark.slow
def test_full_run(tmp_path):
    """The full run: every file written, every valid Fig 3.1 run accounted within its target, the printed Alg 15
    missing δ at every ε, the data-dependent ε below the Gaussian one at every σ1, Gen-PTR below Laplace below
    classic PTR at every b, and the diabetes reader equal to scikit-learn's loader."""
    from sklearn.datasets import load_diabetes

    X, y = G._diabetes_raw()
    X2, y2 = load_diabetes(return_X_y=True, scaled=False)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    figures.render("gptr", tmp_path, quick=False, dpi=40)
    for r in _rows(tmp_path, "fig3_1_gptr"):
        if r["method"] in G.OPS_METHODS:
            assert r["delta_accounted"] <= 1e-6 * (1 + 1e-12)
            assert (r["delta_true"] > 1e-6) if r["method"] == "ops_ptr_alg15_printed" else r["valid"]
    for r in _rows(tmp_path, "fig3_2_gptr"):
        assert r["eps_data_dependent"] <= r["eps_gaussian"] * (1 + 1e-9)
    for r in _rows(tmp_path, "figb1b_gptr"):
        assert r["eps_gen_ptr"] < r["eps_laplace"] < r["eps_classic_ptr"]
