"""`dpspec figures bc --out DIR` (seed 002, conformance/figures/bc.py): the PNG and CSV files are written, the numbers
agree with the catalogue at a few points (the reference where the figure used the fast path, and the other way
round), the violated rows of notes §5.3 are marked violated, the bounds sandwich the exact A1 curves, and an unknown
paper is a one-line user error. One --quick run at low DPI (about 15 s) feeds every test."""
import csv
import math

import pytest
from typer.testing import CliRunner

from dpspec.conformance import figures
from dpspec.conformance.cli import app
from dpspec.conformance.figures import bc
from dpspec.reference.errors import ParameterError
from tests._helpers import reference_value, relative_error

NAMES = ("table1_bc", "table5_3_bc", "table5_3_tails_bc", "table5_4_bc", "table5_5_bc", "table5_5_qj_bc",
         "table5_6_bc", "fig_tradeoff_bc", "fig_profile_bc")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("figs_bc")
    result = CliRunner().invoke(app, ["figures", "bc", "--out", str(out), "--quick", "--dpi", "30"])
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


def test_table5_3_exact_eps_is_the_catalogue_value_and_the_violated_row_is_marked(quick):
    """The (E, σ) = (16, 4) row of notes §5.3: exact ε = bc.a1_epsilon (fast path, and the mpmath reference to 1e-6),
    the printed F.6 ε = bc.lemma_f6_eps variant printed, and the row is violated at δ = 1e-5: the exact ε exceeds
    the printed guarantee's, whose ε lies inside the reported violation interval."""
    from dpspec.fast.bc.mixture import a1_epsilon

    rows = {(int(r["E"]), int(r["sigma"])): r for r in _rows(quick[0], "table5_3_bc")}
    row = rows[(16, 4)]
    c = bc.T53_CONFIG
    params = dict(sampling="subsampling", N=c["N"], m=c["m"], s=c["s"], g=1, E=16, sigma=4)
    assert relative_error(row["eps_exact_a1_1e-5"], float(a1_epsilon(1e-5, **params))) < 1e-12
    assert relative_error(row["eps_exact_a1_1e-5"], reference_value("bc.a1_epsilon", dps=20, delta="1e-5",
                                                                    **params)) < 1e-6
    printed = reference_value("bc.lemma_f6_eps", dps=20, variant="printed", delta="1e-5", N=c["N"], m=c["m"],
                              s=c["s"], E=16, sigma=4)
    assert relative_error(row["eps_f6_printed_1e-5"], printed) < 1e-9
    assert row["violated_1e-5"] is True and row["eps_exact_a1_1e-5"] > row["eps_f6_printed_1e-5"]
    assert row["violated_from_eps"] < row["eps_f6_printed_1e-5"] < row["violated_to_eps"]
    assert row["eps_gauss_sqrtE_1e-5"] < row["eps_f6_printed_1e-5"]
    # δ = 1e-10 is below this bound's δ-floor e^{−16}: no finite ε, so nothing to violate
    assert math.isinf(row["eps_f6_printed_1e-10"]) and row["violated_1e-10"] is False


def test_table5_3_tails_show_the_hoeffding_failure(quick):
    """The exact tails at F.2's cut points agree with bc.def4_1 (fast law, tail above/below) and exceed e^{−E}."""
    from dpspec.fast.bc.mixture import def4_1

    c = bc.T53_CONFIG
    for row in _rows(quick[0], "table5_3_tails_bc"):
        E = int(row["E"])
        law = ("subsampling", c["N"], c["m"], c["s"], 1, E)
        above = float(def4_1(*law, math.floor(row["c_L2"]), "above"))
        below = float(def4_1(*law, math.ceil(row["c_U2"]), "below"))
        assert relative_error(row["tail_above_c_L"], above) < 1e-9
        assert relative_error(row["tail_below_c_U"], below) < 1e-9
        assert row["printed_too_small"] is True and min(above, below) > 0.2 > row["printed_e_minus_E"]


def test_table1_rows(quick):
    """Row 1: the A0 interval is ordered and far below the A1 ε (notes §5.6); row 5 (G_{√E/σ}, 'exact') is equal to
    the exact A1 ε; row 4's exact tail (F.6 cut) agrees with bc.def4_1 and exceeds the printed e^{−E}, and the
    exact ε exceeds the printed guarantee there; row 7 (c² ≤ gE) has tail 0 and holds."""
    from dpspec.fast.bc.mixture import def4_1

    rows = {int(r["row"]): r for r in _rows(quick[0], "table1_bc")}
    assert sorted(rows) == list(range(1, 9))
    one, four, five, seven = rows[1], rows[4], rows[5], rows[7]
    assert one["eps_a0_lower"] <= one["eps_a0_upper"] < one["eps_exact_a1"]
    assert relative_error(five["eps_printed"], five["eps_exact_a1"]) < 1e-8 and five["exact_exceeds_printed"] is False
    s = bc.TABLE1["quick"]
    tail = float(def4_1("subsampling", s["N"], s["m"], s["s"], 1, s["E"], math.floor(four["l_cut_c2"]), "above"))
    assert relative_error(four["l_exact"], tail) < 1e-9
    assert four["l_exact"] > four["l_printed"] and four["printed_tail_too_small"] is True
    assert four["exact_exceeds_printed"] is True
    assert seven["l_exact"] == 0 and seven["exact_exceeds_printed"] is False


def test_table5_4_to_5_6_orderings(quick):
    """§5.4: F.7's fL has no finite ε below its δ-floor and Cor F.8's G_μ is looser than the exact A1 ε;
    §5.5: the printed Bose–Einstein law gives a smaller ε than the true one, both below G_{√(gE)/σ};
    §5.6: A1 shuffling is G_{√E/σ} (base Gaussian ε, reference) and A0 is far below A1 subsampling; A0 is the
    fixed-size object C_γ(G_{1/σ})^{⊗T} (the accountant's base.sgm_wor_rdp at noise 2σ), whose certified lower end
    lies above the Poisson add/remove ε at the same (q, σ, T) (it is the weaker guarantee, Dong–Roth–Su Thm 4.2)."""
    from dpspec.fast import Accountant

    out = quick[0]
    for row in _rows(out, "table5_4_bc"):
        assert math.isinf(row["eps_f7_fL_1e-5"]) and row["f7_l_printed"] > 1e-5
        assert row["eps_exact_a1_1e-5"] < row["eps_cor_f8_1e-5"]
        assert row["f7_l_exact"] < row["f7_l_printed"]
    for row in _rows(out, "table5_5_bc"):
        assert row["eps_bose_einstein_printed"] < row["eps_true_occupancy"] <= row["eps_gauss_sqrt_gE"]
        assert row["printed_overstates_privacy"] is True
    for row in _rows(out, "table5_5_qj_bc"):
        assert row["tail_true_J_below_g"] < row["tail_bose_einstein"] and row["u_valid_for_true_law"] is True
    gauss = reference_value("base.gaussian_eps", dps=20, delta="1e-5", sigma="0.2")  # G_5: σ/√E = 2/10
    for row in _rows(out, "table5_6_bc"):
        assert relative_error(row["eps_a1_shuffling_lemma_g2"], gauss) < 1e-8
        assert row["eps_a0_upper"] < row["eps_a1_subsampling_exact"] / 5
        N, sm, T, sigma = int(row["N"]), int(row["sm"]), int(row["rounds"]), float(row["sigma"])
        wor, poisson = Accountant(), Accountant()
        wor.compose("base.sgm_wor_rdp", count=T, m=sm, n=N, sigma=2 * sigma)
        assert (row["eps_a0_lower"], row["eps_a0_upper"]) == pytest.approx(wor.epsilon_interval(bc.DELTA))
        poisson.sgm(q=sm / N, sigma=sigma, steps=T)
        assert row["eps_a0_lower"] > poisson.epsilon_interval(bc.DELTA)[1] * 1.05
        assert row["f6_guarantee_violated"] is True


def test_curves_are_sandwiched(quick):
    """With the exact tails, f̂L ≤ f ≤ f̂U (Thms 4.5/4.6) and δ_fU ≤ δ_A1 ≤ δ_fL at every grid point; the A0 curve
    lies above the A1 f and, being the fixed-size object C_γ(G_{1/σ})^{⊗T}, below the Poisson add/remove curve at the
    same (q, σ, T) (Dong–Roth–Su Thm 4.2; the brackets may touch, but somewhere they separate); the printed F.6 lower
    bound is violated somewhere on the ε grid."""
    import torch

    from dpspec.fast.base import pld

    out = quick[0]
    fig = bc.FIGURE
    sm = fig["m"] * fig["s"]
    poisson = pld.sgm_pld(sm / fig["N"], float(fig["sigma"]), fig["E"] * (fig["N"] // sm),
                          grid_step=bc.GRIDS["quick"]["a0_step"])
    curve = _rows(out, "fig_tradeoff_bc")
    p_lo, p_hi = poisson.tradeoff_interval(torch.tensor([r["alpha"] for r in curve], dtype=torch.float64))
    assert all(r["f_a0_lower"] <= float(h) + 1e-12 for r, h in zip(curve, p_hi))
    assert any(r["f_a0_upper"] < float(l) * 0.95 for r, l in zip(curve, p_lo))
    for r in _rows(out, "fig_tradeoff_bc"):
        assert r["fL_hat_exact_l"] <= r["f_a1_exact"] * (1 + 1e-9) + 1e-12
        assert r["f_a1_exact"] <= r["fU_hat_exact_u"] * (1 + 1e-9) + 1e-12
        assert r["f_a0_lower"] <= r["f_a0_upper"] and r["f_a1_exact"] <= r["f_a0_lower"] + 1e-9
    profile = _rows(out, "fig_profile_bc")
    for r in profile:
        assert r["delta_fU_exact_u"] <= r["delta_a1_exact"] * (1 + 1e-9) + 1e-300
        assert r["delta_a1_exact"] <= r["delta_fL_exact_l"] * (1 + 1e-9) + 1e-300
    assert any(r["printed_f6_violated"] for r in profile)


def test_unknown_paper_is_a_one_line_user_error(tmp_path):
    with pytest.raises(ParameterError, match="known papers are bc, dc, gptr, objpert-pdp, objpert-rdp, ptr"):
        figures.render("nope", tmp_path)
    result = CliRunner().invoke(app, ["figures", "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "known papers" in result.output and len(result.output.strip().splitlines()) == 1


@pytest.mark.slow
def test_full_tables_reproduce_the_notes_vectors():
    """The full §5.3 and §5.4 grids against the test vectors of notes §5.3/§5.4 (computed there with scipy/mpmath,
    independently of this project): the printed F.6 guarantee is violated at δ = 1e-5 exactly for (E, σ) = (16, 4)
    and (100, 2), at δ = 1e-10 for (64, 8), (100, 10), (100, 2), and from ε ≈ 7.95 on for (400, 20) (δ ≈ 1.7e-14);
    the exact A1 ε of §5.4 to 1e-3."""
    rows = {(r["E"], r["sigma"]): r for r in bc.table5_3_rows(bc.T53["full"], bc.GRIDS["full"]["violation"])}
    assert {k for k, r in rows.items() if r["violated_1e-5"]} == {(16, 4), (100, 2)}
    assert {k for k, r in rows.items() if r["violated_1e-10"]} == {(64, 8), (100, 10), (100, 2)}
    assert abs(rows[(400, 20)]["violated_from_eps"] - 7.95) < 0.01
    assert abs(rows[(100, 10)]["violated_from_eps"] - 5.90) < 0.03
    notes = {(1000, 10, 1): 9.176, (1000, 10, 2): 13.329, (1000, 10, 4): 11.805, (1000, 2, 4): 11.546,
             (2000, 4, 8): 8.106}
    for r in bc.table5_4_rows(bc.T54["full"]):
        assert abs(r["eps_exact_a1_1e-5"] - notes[(r["N"], r["m"], r["g"])]) < 1e-3
