"""The catalogue walker, verdicts, reports, strategies and the `dpspec conform` command, on small statements built
here (a correct one, planted wrong ones, one whose kind gives no Monte Carlo check)."""
import json

from hypothesis import given, settings
from typer.testing import CliRunner

from dpspec.conformance import report, runner, strategies
from dpspec.conformance.cli import app
from dpspec.reference import catalogue
from dpspec.reference.catalogue import Source, Statement, Value, WitnessUse
from dpspec.reference.domains import ALPHA, DELTA, NOISE, STEPS, Choice, Param
from dpspec.reference.precision import self_checked

FAST = runner.Settings(samples=20_000, property_examples=5)
SRC = Source("outside", "test", "a planted control", "dpspec tests")


@self_checked
def _understated(alpha, sigma):
    return alpha / (2 * (sigma * 13 / 10) ** 2)  # planted bug: the Gaussian RDP for σ·1.3


@self_checked
def _not_monotone(alpha, sigma):
    return alpha / (2 * sigma**2) + 1 / alpha  # a valid bound (≥ α/2σ²), increasing in α for α > √2·σ


def _statement(id_, reference, monotone=None, kind="rdp", witnesses=None):
    value = Value("rdp_eps", "alpha") if kind == "rdp" else Value("number")
    return Statement(id=id_, source=SRC, kind=kind, claim="upper", value=value,
                     params=(Param("alpha", ALPHA, example=2), Param("sigma", NOISE, example=1)),
                     reference=reference,
                     witnesses=witnesses if witnesses is not None else (WitnessUse("base.gaussian", {"sigma": "sigma"}),),
                     monotone=monotone or {})


def _run(*statements):
    return runner.run(FAST, statements=statements, progress=False)


def test_correct_statement_passes_and_planted_understatement_fails_with_a_witness():
    good = catalogue.get("base.gaussian_rdp")
    bad = _statement("test.gaussian_understated", _understated, {"sigma": -1})
    result = _run(good, bad)
    by_id = {v.subject: v for v in result.verdicts}
    assert by_id["base.gaussian_rdp"].status == "pass"
    v = by_id["test.gaussian_understated"]
    assert v.status == "fail"
    moments = [c for c in v.failures if c.name == "rdp-moment"]
    assert moments and moments[0].reproduction["witness"] == "base.gaussian" and moments[0].reproduction["samples"] == 20_000
    assert moments[0].lo > moments[0].claimed
    assert v.command == "dpspec conform --only 'test.gaussian_understated' --seed 0 --confidence 0.999"


def test_a_wrong_monotone_declaration_is_found_by_the_draws():
    st = _statement("test.monotone", _not_monotone, {"alpha": -1})  # α/2σ² + 1/α is not non-increasing in α
    v = _run(st).verdicts[0]
    assert v.status == "fail"
    (c,) = [c for c in v.failures if c.name == "monotone:alpha"]
    assert "non-increasing" in c.message and "alpha" in c.point


def test_kind_without_a_derivable_check_is_skipped_with_reason():
    st = _statement("test.utility", lambda alpha, sigma: alpha, kind="utility", witnesses=())
    v = _run(st).verdicts[0]
    assert v.status == "skipped" and "no Monte Carlo check for a value that is a number" in v.reason


def test_a_statement_must_declare_what_its_value_is():
    """No guessing from parameter names: a statement without a value declaration, a value its kind cannot have,
    or an axis that is not a parameter is refused at registration."""
    import pytest

    common = dict(source=SRC, claim="upper", reference=lambda alpha, sigma: alpha,
                  params=(Param("alpha", ALPHA, example=2), Param("sigma", NOISE, example=1)))
    with pytest.raises(ValueError, match="declare what the value is"):
        Statement(id="test.none", kind="rdp", **common)
    with pytest.raises(ValueError, match="returns one of"):
        Statement(id="test.wrong", kind="rdp", value=Value("delta", "alpha"), **common)
    with pytest.raises(ValueError, match="is not a parameter"):
        Statement(id="test.axis", kind="rdp", value=Value("rdp_eps", "order"), **common)
    with pytest.raises(ValueError, match="needs an axis"):
        Value("rdp_eps")
    with pytest.raises(ValueError, match="not in"):
        Value("trade_off_curve_of_a_mixture", "alpha")


def test_the_axis_is_read_from_the_declaration_not_from_names():
    """A profile whose claimed ε is a parameter not named eps… (here `level`) is checked at that parameter; the
    runner used to look for a name starting with "eps"."""
    from dpspec.reference.domains import EPS
    from dpspec.reference.base.gaussian import gaussian_profile

    st = Statement(id="test.profile_level", source=SRC, kind="profile", claim="exact", value=Value("delta", "level"),
                   params=(Param("level", EPS, example=1), Param("sigma", NOISE, example=1)),
                   reference=lambda level, sigma: gaussian_profile(level, sigma),
                   witnesses=(WitnessUse("base.gaussian", {"sigma": "sigma"}),))
    v = _run(st).verdicts[0]
    points = [c.point.get("level") for c in v.details if c.name.startswith("profile")]
    assert v.status == "pass" and len(points) >= 2, (v.status, v.reason, points)


def test_json_and_markdown_reports(tmp_path):
    result = _run(catalogue.get("base.gaussian_rdp"),
                  _statement("test.gaussian_understated", _understated))
    path = tmp_path / "run.json"
    report.write_json(result, path)
    doc = json.loads(path.read_text())
    assert doc["settings"]["confidence"] == 0.999 and doc["summary"] == {"pass": 1, "fail": 1, "skipped": 0}
    entry = {s["id"]: s for s in doc["statements"]}["test.gaussian_understated"]
    assert entry["verdict"] == "fail" and entry["command"] and entry["checks"]
    assert {"claimed", "lo", "p_value", "reproduction"} <= set(entry["checks"][0])
    md = report.write_markdown(result, tmp_path / "rep")
    text = md.read_text()
    assert "test.gaussian_understated" in text and "## Failures" in text and "![" in text
    # one figure per statement family (text prefix × kind of value), each statement a panel of it
    assert {p.name for p in (tmp_path / "rep").iterdir() if p.suffix == ".png"} == {
        "family_base_rdp_eps.png", "family_test_rdp_eps.png"}
    assert "### base: RDP curves ε(α)" in text


@settings(max_examples=50, derandomize=True, deadline=None)
@given(strategies.params(_statement("test.s", _understated)))
def test_strategies_stay_in_their_domains(p):
    assert ALPHA.contains(p["alpha"]) and NOISE.contains(p["sigma"])


def test_strategies_are_log_uniform_and_reach_the_ends():
    seen = []

    @settings(max_examples=200, derandomize=True, deadline=None)
    @given(strategies.real(DELTA), strategies.integer(STEPS), strategies.for_domain(Choice(("a", "b"))))
    def draw(d, t, c):
        seen.append((d, t, c))
        assert DELTA.contains(d) and STEPS.contains(t) and c in ("a", "b")

    draw()
    deltas = [d for d, _, _ in seen]
    assert min(deltas) <= 1e-200 and max(deltas) >= 0.1  # log-uniform reaches tiny δ
    assert sum(1e-200 < d < 1e-50 for d in deltas) > 10
    assert 1 in {t for _, t, _ in seen}


def test_conform_command_exit_status_and_json(tmp_path):
    cli = CliRunner()
    out = tmp_path / "c.json"
    r = cli.invoke(app, ["conform", "--only", "base.gaussian_rdp", "--seed", "3", "--json", str(out)])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    assert [s["id"] for s in doc["statements"]] == ["base.gaussian_rdp"] and doc["settings"]["seed"] == 3
    r = cli.invoke(app, ["conform", "--only", "no.such.*"])
    assert r.exit_code == 2
    r = cli.invoke(app, ["conform", "--quick", "--full"])
    assert r.exit_code == 2


def test_lazy_import_keeps_the_package_light():
    import subprocess
    import sys

    code = ("import sys, dpspec.conformance as c; assert 'torch' not in sys.modules and 'hypothesis' not in "
            "sys.modules; assert callable(c.verify_rdp_bound)")
    subprocess.run([sys.executable, "-c", code], check=True)
