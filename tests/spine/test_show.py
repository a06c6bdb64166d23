"""`dpspec show ID`: a statement, an erratum, a proof check or a witness pair with its computed back-links
(dpspec.conformance.links). Errata demonstrations are skipped (--no-run) except where a test checks a verdict."""
import json

import pytest
from typer.testing import CliRunner

from dpspec.conformance import links
from dpspec.conformance.cli import app

runner = CliRunner()


def show(*args):
    r = runner.invoke(app, ["show", *args])
    return r


def show_json(*args):
    r = show(*args, "--json")
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_show_thm4_4_lists_reference_fast_witnesses_errata_checks_and_tests():
    doc = show_json("ptr.thm4_4", "--no-run")
    assert doc["type"] == "statement" and doc["id"] == "ptr.thm4_4"
    assert doc["source"]["seed"] == "000_0fe14ad2f9124ea1.txt" and doc["summary"]
    assert doc["kind"] == "rdp" and doc["claim"] == "upper"
    assert [c["name"] for c in doc["conditions"]] == ["C1", "C2", "C3", "C4"]
    assert [p["name"] for p in doc["params"]] == ["alpha", "q", "sigma1", "sigma2", "b", "delta0"]
    assert all(p["domain"] for p in doc["params"])
    assert doc["reference"]["target"] == "dpspec.reference.ptr.thm4_4:thm4_4"
    assert doc["reference"]["file"] == "reference/ptr/thm4_4.py" and doc["reference"]["line"] > 0
    assert doc["fast"]["target"] == "dpspec.fast.ptr.bounds:thm4_4" and doc["fast"]["file"] == "fast/ptr/bounds.py"
    assert {w["id"] for w in doc["witnesses"]} == {f"ptr.thm4_4.case{c}_{d}" for c in (1, 2) for d in ("fwd", "rev")}
    assert all(w["source"] and w["registered"]["file"] == "reference/ptr/witnesses.py" for w in doc["witnesses"])
    assert {v["name"]: v["is_bound"] for v in doc["variants"]} == {"default": True, "main_text": True}
    errata = {e["id"] for e in doc["errata"]}
    assert {"ptr.E1", "ptr.E2", "ptr.E5", "ptr.E6"} <= errata
    assert all(e["verdict"] is None for e in doc["errata"])  # --no-run
    checks = {c["id"] for c in doc["checks"]}
    assert {"ptr.thm4_4.white_box_dominates_inside_conditions", "ptr.thm4_4.white_box_fails_outside_conditions",
            "ptr.subsampled_laplace.condition_c1_is_q_prime_at_most_one_fifth"} <= checks
    tests = {t["path"]: t["tests"] for t in doc["tests"]}
    assert "tests/ptr/test_ptr_reference.py" in tests and "test_thm4_4_vectors" in tests["tests/ptr/test_ptr_reference.py"]
    assert "tests/spine/test_show.py" in tests  # this file names it
    commands = doc["commands"]
    assert "dpspec conform --only ptr.thm4_4" in commands and "dpspec errata --only ptr.E1" in commands
    assert "dpspec show ptr.thm4_4.white_box_dominates_inside_conditions" in commands
    assert any(c.startswith("pytest tests/ptr/test_ptr_reference.py -k ") and "test_thm4_4_vectors" in c
               for c in commands)
    assert commands[0].startswith("dpspec eval ptr.thm4_4 alpha=")


def test_show_thm4_4_as_text_has_every_section():
    r = show("ptr.thm4_4", "--no-run")
    assert r.exit_code == 0, r.output
    for needle in ("source: 000_0fe14ad2f9124ea1.txt", "conditions:", "  C2: σ1 ≥ σ2 ≥ 4", "parameters:",
                   "reference: dpspec.reference.ptr.thm4_4:thm4_4", "fast: dpspec.fast.ptr.bounds:thm4_4",
                   "witness pairs:", "  ptr.thm4_4.case2_fwd", "variants:", "main_text: a bound", "errata:",
                   "ptr.E1 [wrong]", "not run", "proof checks:", "ptr.thm4_4.white_box_dominates_inside_conditions",
                   "tests:", "tests/ptr/test_ptr_reference.py", "reproduce:", "dpspec errata --only ptr.E2"):
        assert needle in r.stdout, needle


def test_show_sgm_rdp_lists_reference_fast_witness_and_tests_and_no_errata():
    doc = show_json("base.sgm_rdp")
    assert doc["reference"]["target"] == "dpspec.reference.base.sgm:sgm_rdp"
    assert doc["fast"]["target"] == "dpspec.fast.base.sgm:sgm_rdp"
    assert [w["id"] for w in doc["witnesses"]] == ["base.sgm"] and doc["witnesses"][0]["mapping"] == "computed"
    assert doc["errata"] == [] and doc["checks"] == []
    assert {"tests/base/test_sgm.py", "tests/base/test_base_fast.py"} <= {t["path"] for t in doc["tests"]}
    assert any(p["name"] == "direction" and p["default"] == "max" for p in doc["params"])
    text = show("base.sgm_rdp").stdout
    assert "errata: (none)" in text and "proof checks: (none)" in text and "reference: dpspec.reference.base.sgm" in text


def test_show_runs_errata_demonstrations_and_reports_the_current_verdict():
    doc = show_json("base.eps_delta_tradeoff")  # named by bc.E9 (a fast demonstration)
    (e,) = doc["errata"]
    assert e["id"] == "bc.E9" and e["verdict"]["reproduced"] is True and e["verdict"]["evidence"]
    assert {v["name"]: v["is_bound"] for v in doc["variants"]} == {"default": True, "printed": False}
    assert doc["ok"] is True


def test_show_erratum_prints_printed_corrected_statements_and_verdict():
    doc = show_json("ptr.E3")
    assert doc["type"] == "erratum" and doc["printed"] and doc["corrected"] and doc["severity"] == "typo"
    assert [s["id"] for s in doc["statements"]] == ["ptr.thm4_2", "base.laplace_pure"]
    assert doc["verdict"]["reproduced"] is True and "laplace_pure_dp_is_one_over_b" in doc["verdict"]["evidence"]
    assert [c["id"] for c in doc["checks"]] == ["ptr.laplace.laplace_pure_dp_is_one_over_b"]
    assert doc["commands"][0] == "dpspec errata --only ptr.E3"
    text = show("ptr.E3").stdout
    for needle in ("printed: ", "corrected: ", "statements:", "  ptr.thm4_2", "verdict: reproduced", "evidence:"):
        assert needle in text, needle
    assert "verdict: not run" in show("ptr.E3", "--no-run").stdout


def test_show_proof_check_runs_it():
    doc = show_json("ptr.threshold.threshold_tail_is_delta0")
    assert doc["type"] == "proof check" and doc["result"]["holds"] is True
    assert [s["id"] for s in doc["statements"]] == ["ptr.thm4_2", "ptr.thm4_3", "ptr.thm4_4"]
    assert doc["location"]["file"] == "proofs_checks/ptr/threshold.py"
    assert show_json("ptr.threshold.threshold_tail_is_delta0", "--no-run")["result"] is None


def test_show_witness_pair_lists_the_statements_using_it():
    doc = show_json("base.gaussian")
    assert doc["type"] == "witness pair" and doc["exact_log_moment"] is True
    assert {"base.gaussian_rdp", "base.gaussian_profile", "base.gaussian_sigma"} <= {s["id"] for s in doc["used_by"]}


@pytest.mark.parametrize("bad", ["ptr.thm44", "nope", "ptr.E99"])
def test_unknown_id_is_one_line_and_exit_2(bad):
    r = show(bad)
    assert r.exit_code == 2
    lines = [l for l in r.output.strip().splitlines() if l.strip()]
    assert len(lines) == 1 and f"unknown id {bad!r}" in lines[0] and "Traceback" not in r.output
    if bad == "ptr.thm44":
        assert "did you mean" in lines[0] and "ptr.thm4_4" in lines[0]


def test_a_demonstration_that_no_longer_reproduces_exits_1(monkeypatch):
    from dpspec.proofs_checks import errata

    e = errata.get_erratum("bc.E9")
    broken = type(e)(**{**e.__dict__, "demonstration": lambda: errata.DemonstrationResult(False, {}, "broken")})
    monkeypatch.setitem(errata.ERRATA._entries, "bc.E9", broken)
    r = show("bc.E9")
    assert r.exit_code == 1 and "DOES NOT REPRODUCE" in r.stdout and "broken" in r.stdout


def test_without_a_checkout_no_test_files_are_listed(monkeypatch):
    monkeypatch.setattr(links, "repo_root", lambda: None)
    links._test_sources.cache_clear()
    try:
        doc = show_json("ptr.thm4_4", "--no-run")
        assert doc["tests"] == [] and not any(c.startswith("pytest") for c in doc["commands"])
        assert "installed without its tests" in show("ptr.thm4_4", "--no-run").stdout
    finally:
        links._test_sources.cache_clear()


def test_id_pattern_matches_whole_ids_only():
    p = links.id_pattern("ptr.thm4_4")
    assert p.search('"ptr.thm4_4"') and p.search("see ptr.thm4_4.") and p.search("ptr.thm4_4,")
    assert not p.search("ptr.thm4_4_main") and not p.search("ptr.thm4_4.case1_fwd") and not p.search("xptr.thm4_4")
    assert links.id_pattern("ptr.E1").search("ptr.E1:") and not links.id_pattern("ptr.E1").search("ptr.E10")


def _statement_ids():
    from dpspec.reference import catalogue
    return [st.id for st in catalogue.statements()]


@pytest.mark.parametrize("statement_id", _statement_ids())  # one test per statement: xdist spreads the ~50 s
def test_every_printed_eval_command_evaluates(statement_id):
    """`dpspec show ID` prints `dpspec eval ID <example>`: it must run as printed (a curve example is its statement
    id followed by the curve's own parameters: `curve=base.gaussian_rdp sigma=1` for base.rdp_composition)."""
    import shlex

    from dpspec.reference import catalogue

    runner = CliRunner()
    for st in [catalogue.get(statement_id)]:
        line = links.statement_links(st.id).commands()[0]
        assert line.startswith(f"dpspec eval {st.id}"), line
        result = runner.invoke(app, shlex.split(line)[1:] + ["--dps", "20"])
        assert result.exit_code == 0, (line, result.output)
