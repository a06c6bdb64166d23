"""`dpspec figures ptr --out DIR`: the PNG and CSV files are written, the data are consistent with the catalogue,
and a bad paper name is a one-line user error. Small grids and low DPI keep it fast."""
import csv

import pytest
from typer.testing import CliRunner

from dpspec.conformance import figures
from dpspec.conformance.cli import app
from dpspec.conformance.figures import ptr
from dpspec.reference.errors import ParameterError


@pytest.fixture(scope="module")
def quick_figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("figs")
    result = CliRunner().invoke(app, ["figures", "ptr", "--out", str(out), "--quick", "--dpi", "40"])
    assert result.exit_code == 0, result.output
    return out, result.output


def _rows(path):
    with path.open() as fh:
        return list(csv.DictReader(fh))


def test_cli_writes_three_pngs_and_their_data(quick_figures):
    out, output = quick_figures
    for name in ("fig1_ptr", "fig2_ptr", "fig3_ptr"):
        png, data = out / f"{name}.png", out / f"{name}.csv"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert _rows(data)
        assert str(png) in output


def test_fig1_data_rdp_route_is_flat_in_delta0_at_large_noise(quick_figures):
    """The caption's claim where T2 dominates (σ1 = 10): the converted Thm 4.3 does not depend on δ0."""
    rows = [r for r in _rows(quick_figures[0] / "fig1_ptr.csv") if float(r["sigma1"]) == 10]
    values = {round(float(r["eps_rdp_thm4_3"]), 9) for r in rows}
    assert len(rows) == len(ptr.FIG1["delta0s"]) and len(values) == 1


def test_fig2_data_orders_the_three_bounds(quick_figures):
    rows = _rows(quick_figures[0] / "fig2_ptr.csv")
    for r in rows:
        assert float(r["lower_zw19"]) <= float(r["black_box_zw19_upper"])
    by_alpha = {int(float(r["alpha"])): r for r in rows}
    assert by_alpha[2]["white_box_valid"] == "True" and by_alpha[16]["white_box_valid"] == "False"
    assert float(by_alpha[2]["white_box_thm4_4"]) > float(by_alpha[2]["black_box_zw19_upper"])


def test_fig3_data_respects_the_delta_budget_and_grows_with_steps(quick_figures):
    rows = _rows(quick_figures[0] / "fig3_ptr.csv")
    assert all(float(r["direct_total_delta"]) <= 1e-5 for r in rows)
    first, last = rows[0], rows[-1]
    for key in ("eps_white_box", "eps_black_box", "eps_direct"):
        assert float(first[key]) <= float(last[key])


def test_unknown_paper_is_a_user_error(tmp_path):
    with pytest.raises(ParameterError, match="known papers"):
        figures.render("nope", tmp_path)
    result = CliRunner().invoke(app, ["figures", "nope", "--out", str(tmp_path)])
    assert result.exit_code == 2
    assert "known papers" in result.output
