"""Operator checks under `dpspec conform` (issue 12; conformance/operators.py): each passes on the tree, appears in
the run as an ``op.*`` verdict (selectable with ``--only``, counted in the family-wise split), and catches a planted
bug — the power of the check, pinned:

* the accountant dropping the last (σ, q) pair of every 23-pair chunk (README schedule ε 7.291 → 7.148 on the old
  code; conform did not run the accountant), a composition that keeps only the last step, a conversion 2 % low;
* ``calibrate_sigma`` returning 1.01·σ (not the smallest) and 0.99·σ (misses the target);
* PTR-TMEAN's threshold without its factor b (erratum E12), one row too few trimmed, noise 10 % too small;
  the TSGD+Gaussian aggregator trimming one row too many; clipped norms 1 % off; Poisson sampling at 1.1·q.

The statistical checks are Holm-corrected at the share of the family a CLI run gives them (same as `dpspec conform`).
"""
from __future__ import annotations

import functools
import json
import math
from dataclasses import replace

import pytest
import torch

from dpspec.conformance import operators, report, runner
from dpspec.conformance.verdicts import FAIL, PASS, SKIPPED, apply_holm
from dpspec.fast import accountant as fast_accountant
from dpspec.fast import mechanisms
from dpspec.fast.ptr import operators as ptr_ops
from dpspec.fast.ptr import training as ptr_training
from dpspec.reference import catalogue

QUICK = runner.QUICK
FAMILY = len(catalogue.statements()) + len(operators.OPERATORS)
# the tree's calibrate_sigma, memoised: the passing run and the calibrate plants share its answer (seconds a point)
_calibrated = functools.lru_cache(maxsize=None)(fast_accountant.calibrate_sigma)


def _verdict(op_id: str, settings=QUICK):
    v = runner.check_operator(operators.get(op_id), settings)
    apply_holm(v.details, runner._alpha(settings, FAMILY))
    return v.settle() if v.status != SKIPPED else v


def _failed(v) -> set[str]:
    return {c.name for c in v.failures}


@pytest.fixture(scope="module")
def op_run():
    with pytest.MonkeyPatch.context() as mp:  # the same function, memoised for the calibrate plants below
        mp.setattr(fast_accountant, "calibrate_sigma", _calibrated)
        return runner.run(replace(QUICK, only="op.*"), progress=False)


def test_every_operator_check_passes_on_the_tree(op_run):
    by_id = {v.subject: v for v in op_run.verdicts}
    assert set(by_id) == {op.id for op in operators.OPERATORS}
    assert op_run.family == FAMILY  # the family: catalogue statements + operator checks, before --only
    for op_id, v in by_id.items():
        if op_id == "op.audit":
            assert v.status == SKIPPED and "--full" in v.reason  # quick: skipped, saying why
            continue
        assert v.status == PASS, (op_id, v.reason)
        assert v.details and not v.failures
    acc = by_id["op.accountant"]
    records = [c for c in acc.details if c.name == "records"]
    assert records[0].point["distinct"] > 100 and records[1].point["distinct"] == 100  # drawn schedule; README's
    readme_eps = [c for c in acc.details if c.name == "eps-conversion" and c.point["schedule"] == "readme"]
    # notes peer-accountants.md §1.1, row "100 distinct σ ∈ [0.8,1.2] × 100 steps each": Opacus RDP 7.2919 on its
    # grid (ours contains Opacus' orders: never above it), the tight PLD value 6.6950 (no valid bound is below it)
    assert readme_eps and 6.6950 < readme_eps[0].claimed <= 7.29195
    doc = op_run.to_json(timings=False)
    assert {s["id"] for s in doc["statements"]} == set(by_id)
    assert doc["family"]["statements"] == FAMILY
    json.dumps(doc)
    lines = report.table_lines(op_run)
    assert any(line.startswith("op.accountant ") for line in lines)


def test_only_reproduces_an_operator_verdict(op_run):
    whole = next(v for v in op_run.verdicts if v.subject == "op.clip")
    alone = runner.run(replace(QUICK, only="op.clip"), progress=False)
    assert alone.family == FAMILY
    assert [v.to_json() for v in alone.verdicts] == [whole.to_json()]


def test_statement_lists_run_no_operators_unless_asked():
    st = catalogue.get("base.gaussian_rdp")
    plain = runner.run(replace(QUICK, only="op.*"), statements=[st], progress=False)
    assert plain.verdicts == [] and plain.family == 1
    asked = runner.run(replace(QUICK, only="op.clip"), statements=[st], progress=False,
                       operators=operators.OPERATORS)
    assert [v.subject for v in asked.verdicts] == ["op.clip"] and asked.family == 1 + len(operators.OPERATORS)


# ---------------------------------------------------------------------------------------------------------
# planted accountant bugs


def _composed_dropping_chunk_ends(self, alphas, groups):
    """The planted bug: the last tuple of every 23-tuple chunk left out of the composition."""
    total = torch.zeros_like(alphas)
    for mechanism, (keys, counts) in groups.items():
        entry = mechanisms.get(mechanism)
        extra = {"direction": self.direction} if "direction" in entry.options else {}
        for i in range(0, len(keys), 23):
            k, c = keys[i:i + 23][:-1], counts[i:i + 23][:-1]
            if len(k):
                cols = {n: k[:, j:j + 1] for j, n in enumerate(entry.names)}
                total = total + (c.unsqueeze(-1) * entry.curve(alpha=alphas.unsqueeze(0), **cols, **extra)).sum(0)
    return total


def _append_keeping_last(self, mechanism, values, count):
    """The planted bug: a composition that keeps only the last step."""
    self._records = [fast_accountant.Record(mechanism, values, 1)]
    self._last = {mechanism: 0}


def test_accountant_check_catches_dropped_chunk_ends(monkeypatch):
    monkeypatch.setattr(fast_accountant.Accountant, "_composed", _composed_dropping_chunk_ends)
    readme = operators._readme_accountant(operators._readme_events()[1])
    assert readme.get_epsilon(1e-5) < 7.2  # the 7.291 → 7.148
    v = _verdict("op.accountant", replace(QUICK, op_deltas=()))  # the curve checks alone catch it (and quicker)
    assert v.status == FAIL and "rdp-compose" in _failed(v)
    caught = [c for c in v.failures if c.name == "rdp-compose"]
    assert {c.point["schedule"] for c in caught} == {"drawn", "readme"}


def test_accountant_check_catches_last_step_only(monkeypatch):
    monkeypatch.setattr(fast_accountant.Accountant, "_append", _append_keeping_last)
    v = _verdict("op.accountant", replace(QUICK, op_deltas=()))
    assert v.status == FAIL and {"records", "rdp-compose"} <= _failed(v)


def test_accountant_check_catches_a_conversion_two_percent_low(monkeypatch):
    original = fast_accountant.bbg_objective
    monkeypatch.setattr(fast_accountant, "bbg_objective", lambda *a: 0.98 * original(*a))
    v = _verdict("op.accountant")
    assert v.status == FAIL and {"eps-same-orders", "eps-conversion"} <= _failed(v)


# ---------------------------------------------------------------------------------------------------------
# planted calibrate_sigma bugs




@pytest.mark.parametrize("factor, caught_by", [(1.01, "calibrate:smallest"), (0.99, "calibrate:meets")])
def test_calibrate_check_catches_a_wrong_sigma(monkeypatch, factor, caught_by):
    monkeypatch.setattr(fast_accountant, "calibrate_sigma", lambda *a, **k: factor * _calibrated(*a, **k))
    v = _verdict("op.calibrate_sigma")
    assert v.status == FAIL and _failed(v) == {caught_by}


# ---------------------------------------------------------------------------------------------------------
# planted training-operator bugs


def test_ptr_check_catches_the_threshold_without_b(monkeypatch):
    monkeypatch.setattr(ptr_ops, "threshold", lambda b, delta0: math.log(1 / (2 * delta0)))  # erratum E12
    v = _verdict("op.ptr_trimmed_sum")
    assert v.status == FAIL and "ptr:branch" in _failed(v)


def test_ptr_check_catches_one_row_too_few_trimmed(monkeypatch):
    original = ptr_ops.ptr_trimmed_sum
    monkeypatch.setattr(ptr_ops, "ptr_trimmed_sum", lambda g, F, tau, clip, b, d0, sigma, generator=None:
                        original(g, max(0, F - 1), tau, clip, b, d0, sigma, generator=generator))
    v = _verdict("op.ptr_trimmed_sum")
    assert v.status == FAIL and {"ptr:delta", "ptr:aggregate"} <= _failed(v)


def test_ptr_check_catches_noise_ten_percent_small(monkeypatch):
    original = ptr_ops.ptr_trimmed_sum
    monkeypatch.setattr(ptr_ops, "ptr_trimmed_sum", lambda g, F, tau, clip, b, d0, sigma, generator=None:
                        original(g, F, tau, clip, b, d0, 0.9 * sigma, generator=generator))
    v = _verdict("op.ptr_trimmed_sum")
    assert v.status == FAIL and _failed(v) == {"noise-scale"}


def test_gaussian_trimmed_sum_check_catches_one_row_too_many_trimmed(monkeypatch):
    original = ptr_ops.gaussian_trimmed_sum
    monkeypatch.setattr(ptr_ops, "gaussian_trimmed_sum", lambda g, F, clip, sigma, generator=None:
                        original(g, F + 1, clip, sigma, generator=generator))
    v = _verdict("op.gaussian_trimmed_sum")
    assert v.status == FAIL and "tsgd:aggregate" in _failed(v)


def test_clip_check_catches_norms_one_percent_off(monkeypatch):
    original = ptr_ops._row_norms
    monkeypatch.setattr(ptr_ops, "_row_norms", lambda rows: (lambda f, n: (f, 1.01 * n))(*original(rows)))
    v = _verdict("op.clip")
    assert v.status == FAIL and "clip" in _failed(v)


def test_poisson_check_catches_a_rate_ten_percent_high(monkeypatch):
    original = ptr_training.poisson_sample
    monkeypatch.setattr(ptr_training, "poisson_sample",
                        lambda n, q, generator=None, device=None: original(n, min(1.0, 1.1 * q), generator, device))
    v = _verdict("op.poisson_sample")
    assert v.status == FAIL and "sample:rate" in _failed(v)


# ---------------------------------------------------------------------------------------------------------
# the audit check (--full only: about 5 s)


@pytest.fixture
def _integer_order_reference(monkeypatch):
    """Speed (as tests/audit/test_audit_accountants.py): the audit's verdict logic does not depend on how its
    reference RDP-derived ε is optimised; the integer-order search is seconds quicker than base.rdp_to_dp's."""
    from dpspec.conformance.audit import accountants as audit_accountants

    monkeypatch.setattr(audit_accountants, "OPTIMISE_ORDER", False)


@pytest.mark.usefixtures("_integer_order_reference")
def test_audit_check_flags_the_under_reporter_and_passes_dpspec():
    v = _verdict("op.audit", replace(QUICK, op_audit=True))
    assert v.status == PASS, v.reason
    assert [c.name for c in v.details] == ["audit:correct", "audit:under-reporting"]


@pytest.mark.usefixtures("_integer_order_reference")
def test_audit_check_fails_when_the_audit_flags_nothing(monkeypatch):
    from dpspec.conformance.audit import accountants as audit_accountants

    original = audit_accountants.audit_accountant

    def blind(*a, **k):
        r = original(*a, **k)
        r.verdict = "consistent"
        return r
    monkeypatch.setattr(audit_accountants, "audit_accountant", blind)
    v = _verdict("op.audit", replace(QUICK, op_audit=True))
    assert v.status == FAIL and _failed(v) == {"audit:under-reporting"}
