"""bc.E9 (seed 002's f_{ε,δ} printed with min) and the errata register walk."""
import mpmath

from dpspec.proofs_checks.bc import fdp as base_fdp
from dpspec.proofs_checks.errata import errata, get_erratum


def test_bc_e9_witness_reproduces():
    result, _ = get_erratum("bc.E9").check()
    assert result.reproduced, result.message


def test_neyman_pearson_tradeoff_of_the_canonical_pair_has_the_known_end_points():
    p, q = base_fdp.canonical_pair(mpmath.mpf(1), mpmath.mpf("0.01"))
    assert base_fdp.neyman_pearson_tradeoff(p, q, 0) == 1 - mpmath.mpf("0.01")
    assert abs(base_fdp.neyman_pearson_tradeoff(p, q, 1)) < mpmath.mpf(10) ** -14


def test_every_erratum_names_source_printed_and_corrected_forms():
    for e in errata():
        assert e.source and e.printed and e.corrected and e.summary, e.id
        assert e.severity in ("wrong", "typo", "gap"), e.id
