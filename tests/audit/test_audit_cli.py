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
