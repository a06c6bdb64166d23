"""`dpspec audit ...` command line."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from dpspec.conformance.cli import app

runner = CliRunner()
KEYS = {"library", "version", "accountant", "setting", "claimed", "reference", "mc_interval", "verdict", "evidence"}


def test_mechanism_command_catches_halved_noise(monkeypatch):
    monkeypatch.syspath_prepend("tests")
    bad = runner.invoke(app, ["audit", "mechanism", "_audit_controls:laplace_sum_half_noise", "--d0", "1,1,1",
                              "--d1", "1,1", "--claim", "1", "--seed", "1"])
    assert bad.exit_code == 1 and bad.output.startswith("violation")
    ok = runner.invoke(app, ["audit", "mechanism", "_audit_controls:laplace_sum", "--d0", "[1, 1, 1]",
                             "--d1", "[1, 1]", "--claim", "1", "--json", "--seed", "1"])
    assert ok.exit_code == 0 and json.loads(ok.output)["verdict"] == "consistent"


def test_user_errors_exit_2():
    assert runner.invoke(app, ["audit", "accountants"]).exit_code == 2
    assert runner.invoke(app, ["audit", "accountant", "no.such", "--no-mc"]).exit_code == 2
    assert runner.invoke(app, ["audit", "mechanism", "nomodule", "--d0", "1", "--d1", "", "--claim", "1"]
                         ).exit_code == 2


@pytest.mark.peers
def test_accountant_json_and_violation_exit_status(monkeypatch):
    pytest.importorskip("opacus")
    from dpspec.conformance.audit import accountants

    monkeypatch.setattr(accountants, "OPTIMISE_ORDER", False)  # speed: integer-order reference
    r = runner.invoke(app, ["audit", "accountant", "opacus.gdp", "--setting", "gdp_worst_b9", "--samples", "500",
                            "--json"])
    assert r.exit_code == 1, r.output
    doc = json.loads(r.output)
    assert KEYS <= set(doc) and doc["verdict"] == "violation" and doc["library"] == "opacus"


# ---------------------------------------------------------------------------------------------------------
# Edges: options checked up front, bounded work, captured peer output, MODULE:OBJECT from the current directory


def _one_error_line(r, needle):
    lines = [line for line in r.output.splitlines() if line.strip()]
    assert r.exit_code == 2 and len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], r.output
    assert "Traceback" not in r.output and "╭" not in r.output


@pytest.mark.parametrize("option, needle", [
    (["--claim", "nan"], "--claim=nan"), (["--claim", "inf"], "--claim=inf"), (["--claim", "-1"], "--claim=-1"),
    (["--gdp", "-1"], "--gdp=-1"), (["--gdp", "nan"], "--gdp=nan"),
    (["--claim", "1", "--delta", "nan"], "--delta=nan"), (["--claim", "1", "--delta", "1"], "--delta=1"),
    (["--claim", "1", "--seed", "-1"], "--seed"), (["--claim", "1", "--family", "foo"], "--family=foo"),
])
def test_mechanism_numbers_are_checked_before_the_module_is_loaded(option, needle):
    r = runner.invoke(app, ["audit", "mechanism", "no_such_module_dpspec:f", "--d0", "1", "--d1", "", *option])
    _one_error_line(r, needle)


@pytest.fixture
def never_run(monkeypatch):
    """A registered stand-in accountant that fails the test if its claim ever runs."""
    from dpspec.conformance.audit import adapters

    def run(setting, deltas):
        raise AssertionError("the claim ran")

    monkeypatch.setitem(adapters.ADAPTERS, "test.never", adapters.Adapter(
        "test.never", "dpspec", "stand-in", True, {}, run))
    return "test.never"


CUSTOM = {"--q": "0.2", "--sigma": "1", "--steps": "10", "--delta": "1e-5"}


@pytest.mark.parametrize("change, needle", [
    ({"--sigma": "inf"}, "--sigma=inf"),  # σ = ∞ sent Opacus' series into an endless loop
    ({"--sigma": "nan"}, "--sigma=nan"), ({"--sigma": "0"}, "--sigma=0"), ({"--q": "0"}, "--q=0"),
    ({"--q": "1.5"}, "--q=1.5"), ({"--steps": "0"}, "--steps=0"), ({"--delta": "1"}, "--delta=1"),
    ({"--seed": "-1"}, "--seed"), ({"--timeout": "0"}, "--timeout=0"),
])
def test_accountant_options_are_checked_before_the_claim_runs(never_run, change, needle):
    opts = [x for k, v in {**CUSTOM, **change}.items() for x in (k, v)]
    _one_error_line(runner.invoke(app, ["audit", "accountant", never_run, *opts, "--no-mc"]), needle)


def test_cli_timeout_default_is_the_library_default():
    from dpspec.conformance import cli_audit
    from dpspec.conformance.audit import accountants

    assert cli_audit.PEER_TIMEOUT == accountants.PEER_TIMEOUT


MY_ACCOUNTANTS = '''
import logging, os, time, warnings

def slow(setting, deltas):
    time.sleep(60)
    return 1.0

def noisy(setting, deltas):
    warnings.warn("peer warning {tag}")
    logging.getLogger("peerlib").warning("peer log {tag} at order %d", 3)
    print("peer print {tag}")
    os.write(2, b"peer fd write {tag}\\n")
    return {{d: 9.0 for d in deltas}}
'''


@pytest.fixture
def in_tmp_module_dir(tmp_path, monkeypatch, request):
    """tmp_path as the current directory, with the module ``name`` written there (and forgotten afterwards)."""
    import sys

    monkeypatch.chdir(tmp_path)
    from dpspec.conformance.audit import accountants

    monkeypatch.setattr(accountants, "OPTIMISE_ORDER", False)  # speed: integer-order reference ε

    def write(name, text):
        (tmp_path / f"{name}.py").write_text(text)
        request.addfinalizer(lambda: sys.modules.pop(name, None))
        return name

    return write


def test_custom_accountant_that_hangs_is_a_timed_out_error_row(in_tmp_module_dir):
    import time

    mod = in_tmp_module_dir("dpspec_test_acc_slow", MY_ACCOUNTANTS.format(tag="s"))
    t0 = time.perf_counter()
    r = runner.invoke(app, ["audit", "accountant", f"{mod}:slow", *[x for kv in CUSTOM.items() for x in kv],
                            "--no-mc", "--timeout", "1", "--json"])
    assert time.perf_counter() - t0 < 120  # a hang guard (the 1 s timeout must cut it off), not a speed test
    doc = json.loads(r.output)
    assert r.exit_code == 0 and doc["verdict"] == "error" and "timed out after 1 s" in doc["reason"]
    assert doc["version"] == "own code" and doc["accountant"] == f"{mod}:slow"


def test_peer_output_is_captured_into_the_report_not_the_terminal(in_tmp_module_dir, capfd, tmp_path):
    import sys

    mod = in_tmp_module_dir("dpspec_test_acc_noisy", MY_ACCOUNTANTS.format(tag="xyzzy"))
    args = ["audit", "accountant", f"{mod}:noisy", *[x for kv in CUSTOM.items() for x in kv], "--no-mc"]
    table = runner.invoke(app, args)
    doc = json.loads(runner.invoke(app, [*args, "--json"]).output)
    terminal = table.output + "".join(capfd.readouterr())
    assert table.exit_code == 0 and "xyzzy" not in terminal, terminal
    assert "peer output: 4 " in table.output  # one line with the count
    po = doc["evidence"]["peer_output"]
    assert po["count"] == 4 and po["distinct"] == 4
    for text in ("UserWarning: peer warning xyzzy", "WARNING peerlib: peer log xyzzy at order 3",
                 "peer print xyzzy", "peer fd write xyzzy"):
        assert text in po["messages"], po
    assert doc["claimed"]["epsilon"] == 9.0 and doc["evidence"]["command"].startswith(
        f"dpspec audit accountant {mod}:noisy --q 0.2 --sigma 1.0 --steps 10 --delta 1e-05")
    from dpspec.conformance.audit import report
    from dpspec.conformance.audit.accountants import AuditResult

    row = AuditResult(**{k: doc[k] for k in ("library", "version", "accountant", "setting", "claimed",
                                             "reference", "mc_interval", "verdict", "evidence")})
    md = report.markdown([row])
    assert "## Peer output (captured)" in md and "peer print xyzzy" in md
    assert str(tmp_path) not in sys.path  # the current directory was on the path for the import only


def test_readme_mechanism_example_runs_from_the_current_directory(in_tmp_module_dir):
    mod = in_tmp_module_dir("mymech", '''
import numpy as np

def noisy_sum(x, rng):
    """Claims ε = 1 with Laplace(1) noise on a sum of values in [0, 1] — but forgets to clip."""
    return float(np.sum(x)) + rng.laplace(0.0, 1.0)
''')
    r = runner.invoke(app, ["audit", "mechanism", f"{mod}:noisy_sum", "--d0", "0,0,0", "--d1", "0,0,3",
                            "--claim", "1", "--family", "laplace"])  # README.md, "Audits of third-party DP code"
    assert r.exit_code == 1 and r.output.startswith("violation: ε ≥"), r.output


def test_add_direction_sampler_has_bounded_work():
    """q = 0.5, σ = 100, T = 10 tuned at ε = 0.01: the old λ choice (≈ 87) accepted 8e-27 of the proposals, so the
    rejection sampler never finished; the chosen λ now accepts at least MIN_ACCEPTANCE (up to the float quadrature
    the choice uses), and sampling is quick."""
    import math

    import numpy as np

    from dpspec.conformance.audit import montecarlo as mc

    tilt = mc.choose_add(0.5, 100.0, 10, 0.01)
    acceptance = math.exp(tilt.log_acceptance())
    assert acceptance >= 0.5 * mc.MIN_ACCEPTANCE
    draws = tilt.pair().sample(np.random.default_rng(0), 2000)
    assert draws.shape == (2000,) and np.isfinite(draws).all()


def test_monte_carlo_beyond_its_budget_is_skipped_with_the_reason():
    from dpspec.conformance.audit import accountants
    from dpspec.conformance.audit.settings import Setting

    s = Setting("huge", q=0.01, sigma=1.0, steps=10**9, delta=1e-5)
    truth, why = accountants._truth_for(s, [5.0], samples=3000, seed=0)
    assert truth is None and "MAX_MC_DRAWS" in why
