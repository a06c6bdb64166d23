"""The command line: list, eval, errata, and one-line errors for bad input."""
import json

import pytest
from typer.testing import CliRunner

from dpspec.conformance.cli import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_list_json_has_the_contract_fields():
    r = run("list", "--json")
    assert r.exit_code == 0, r.output
    entries = json.loads(r.stdout)
    assert entries and {"id", "source", "kind", "claim", "params", "has_fast", "witnesses", "variants"} <= set(entries[0])
    assert "base.gaussian_rdp" in {e["id"] for e in entries}


def test_eval_json_gives_the_value_with_the_requested_digits():
    r = run("eval", "base.gaussian_rdp", "alpha=3", "sigma=0.7", "--json", "--dps", "30")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert out["id"] == "base.gaussian_rdp" and out["variant"] == "default"
    assert out["value"].startswith("3.061224489795918367346938775")  # 3 / (2 * 0.49)
    assert len(out["value"].replace(".", "")) == 30


@pytest.mark.parametrize("args, needle", [
    (("eval", "base.nope", "alpha=2"), "unknown statement id"),
    (("eval", "base.gaussian_rdp", "alpha=2"), "missing parameter sigma"),
    (("eval", "base.gaussian_rdp", "alpha=2", "sigma=1", "q=0.1"), "unknown parameter"),
    (("eval", "base.gaussian_rdp", "alpha=1", "sigma=1"), "alpha=1"),
    (("eval", "base.gaussian_rdp", "alpha=nan", "sigma=1"), "alpha=nan"),
    (("eval", "base.gaussian_rdp", "alpha=2", "sigma=-1"), "sigma=-1"),
    (("eval", "base.gaussian_rdp", "alpha", "sigma=1"), "expected name=value"),
])
def test_bad_input_exits_2_with_one_line_and_no_traceback(args, needle):
    r = run(*args)
    assert r.exit_code == 2
    lines = [l for l in r.output.strip().splitlines() if l.strip()]
    assert len(lines) == 1 and needle in lines[0], r.output
    assert "Traceback" not in r.output


def test_errata_json_is_a_list():
    """The JSON form on a glob (nine errata, a few seconds; each text's errata tests run every demonstration, and
    `dpspec errata` over all of them took 29 s of the suite)."""
    r = run("errata", "--only", "gptr.E1?", "--json")
    assert r.exit_code == 0
    rows = json.loads(r.stdout)
    assert isinstance(rows, list) and [row["id"] for row in rows] == [f"gptr.E1{i}" for i in range(9)]
    for row in rows:
        assert {"id", "source", "summary", "reproduced"} <= set(row)


def test_eval_marks_a_printed_variant_that_is_not_a_bound():
    result = run("eval", "ptr.thm4_2", "b=1", "sigma1=8", "delta0=1e-8", "delta=1e-6", "--variant", "printed")
    assert result.exit_code == 0
    assert "[NOT A BOUND: the printed variant is not a bound]" in result.output
    default = run("eval", "ptr.thm4_2", "b=1", "sigma1=8", "delta0=1e-8", "delta=1e-6")
    assert default.exit_code == 0 and "NOT A BOUND" not in default.output


def test_eval_fast_takes_curves_and_choices_and_agrees_with_the_reference():
    for args in (["base.rdp_to_dp", "curve=base.sgm_rdp", "q=0.01", "sigma=1", "steps=10000", "delta=1e-5"],
                 ["base.zw19_upper", "alpha=7.5", "q=0.01", "curve=base.gaussian_rdp", "sigma=1"],
                 ["base.sgm_rdp", "alpha=8", "q=0.01", "sigma=1", "direction=add"]):
        fast = run("eval", *args, "--fast", "--json")
        ref = run("eval", *args, "--json", "--dps", "20")
        assert fast.exit_code == 0 and ref.exit_code == 0, fast.output + ref.output
        f, r = float(json.loads(fast.output)["value"]), float(json.loads(ref.output)["value"])
        assert abs(f - r) <= 1e-10 * abs(r)


def test_eval_fast_rejects_a_non_number_in_one_line():
    result = run("eval", "base.rdp_to_dp", "curve=base.sgm_rdp", "q=0.01", "sigma=x", "steps=1", "delta=1e-5", "--fast")
    assert result.exit_code == 2 and "sigma='x'" in result.output and "Traceback" not in result.output


def test_eval_fast_names_missing_parameters_and_reads_points_as_json():
    missing = run("eval", "ptr.safety_margin", "--fast")
    assert missing.exit_code == 2 and "missing parameter(s) points, F, tau, R" in missing.output
    assert "Traceback" not in missing.output
    pts = "points=[[0.1,0.2],[0.5,0.1],[0.9,0.3],[0.2,0.2]]"
    fast = run("eval", "ptr.thm5_1", pts, "F=1", "r=0", "R=1", "--fast", "--json")
    ref = run("eval", "ptr.thm5_1", pts, "F=1", "r=0", "R=1", "--json")
    assert fast.exit_code == 0 and ref.exit_code == 0, fast.output + ref.output
    assert abs(float(json.loads(fast.output)["value"]) - float(json.loads(ref.output)["value"])) <= 1e-15
