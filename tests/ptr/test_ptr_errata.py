"""The PTR errata register entries (dpspec.proofs_checks.ptr.errata): every entry is complete and its demonstration
reproduces by computation; the demonstrations can also fail (they are not stored verdicts)."""
import pytest

from dpspec.proofs_checks import errata as register
from dpspec.proofs_checks.ptr import errata as ptr_errata
from dpspec.proofs_checks.ptr import thm4_4

REQUIRED = ("ptr.E1", "ptr.E2", "ptr.E3", "ptr.E4", "ptr.E5", "ptr.E6", "ptr.E7", "ptr.E8", "ptr.E9", "ptr.E10",
            "ptr.E11", "ptr.E12", "ptr.E14", "ptr.E15", "ptr.E16", "ptr.E17", "ptr.E19")
PTR_ERRATA = [e for e in register.errata() if e.id.startswith("ptr.")]


def test_required_entries_are_registered_and_complete():
    ids = {e.id for e in PTR_ERRATA}
    assert set(REQUIRED) <= ids
    for e in PTR_ERRATA:
        assert "001_c3b5d7d7fc0e2c16.txt" in e.source or "000_0fe14ad2f9124ea1.txt" in e.source, e.id
        assert e.summary and e.printed and e.corrected, e.id
        assert e.severity in ("wrong", "typo", "gap"), e.id


@pytest.mark.parametrize("erratum_id", sorted(e.id for e in PTR_ERRATA))
def test_demonstration_reproduces(erratum_id):
    result, seconds = register.get_erratum(erratum_id).check()
    assert result.reproduced, (result.message, result.evidence)
    assert result.evidence


def test_e1_names_both_counterexamples_and_the_failed_conditions():
    result, _ = register.get_erratum("ptr.E1").check()
    rows = result.evidence["white_box_fails_outside_conditions"]["points"]
    assert [r["params"]["alpha"] for r in rows] == ["64", "8"]
    assert all(r["bound_violated"] and r["marked_not_a_bound"] and r["failed_conditions"] for r in rows)
    assert "C2: σ1 ≥ σ2 ≥ 4" in rows[1]["failed_conditions"]
    assert result.evidence["white_box_fails_outside_conditions"]["mnist_first_alpha"] == 6


def test_the_counterexample_test_does_not_fire_inside_the_conditions():
    """The same comparison at a point inside (C1)–(C4) finds no violation (so E1's demonstration can fail)."""
    row = thm4_4.counterexample({"alpha": 10, "q": "0.01", "sigma1": 8, "sigma2": 4, "b": 1, "delta0": "1e-8"},
                                "case2_fwd")
    assert row["failed_conditions"] == [] and not row["bound_violated"]


def test_table_demonstration_detects_an_injected_error(monkeypatch):
    tables = {k: list(v) for k, v in ptr_errata.TABLES.items()}
    row = tables["Table 1 MNIST"][0]
    tables["Table 1 MNIST"][0] = row[:4] + ("4.9",) + row[5:]  # 91.43 − 87.53 = 3.90, not 4.9
    monkeypatch.setattr(ptr_errata, "TABLES", tables)
    mismatches = ptr_errata.table_mismatches()
    assert {"table": "Table 1 MNIST", "row": "- CR=0", "level": "first ε", "printed": "4.9",
            "actual": "3.90"} in mismatches
    result, _ = register.get_erratum("ptr.E17").check()
    assert not result.reproduced


def test_rounding_tolerance_of_the_tables():
    assert ptr_errata._half_unit("93.29") == ptr_errata.Decimal("0.005")
    assert ptr_errata._half_unit("3.138") == ptr_errata.Decimal("0.0005")


def test_affected_statements_exist_in_the_catalogue():
    from dpspec.reference.catalogue import get

    for e in PTR_ERRATA:
        for statement_id in e.statements:
            get(statement_id)
