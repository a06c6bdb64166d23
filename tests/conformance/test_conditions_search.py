"""The ``conditions`` property check (conformance/properties.py, issue 12): both paths refuse the same points naming
the same conditions, and a boundary search finds, for each condition, points where it alone fails, so that a
condition removed from the reference or from the fast path is caught even where the drawn points fail it only
together with others (the self-test's ``ptr.thm4_4:no-C1/C3/C4:ref`` and ``ptr.lemma_a1:no-C3/C4:ref`` plants
survived the drawn points alone: the other conditions still refused there)."""
import dataclasses
import functools
import importlib

import pytest

from dpspec.conformance import properties, selftest
from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError

EXAMPLES, SEED, DPS = 5, 0, properties.PROPERTY_DPS  # what `dpspec conform --quick` uses (runner.QUICK)
SEARCHED = ("ptr.thm4_4", "ptr.lemma_a1", "ptr.thm4_2", "ptr.zw19_lower")


def _statement(sid):
    catalogue.load_all()
    return catalogue.get(sid)


@functools.cache
def _base_points(sid):
    """The unplanted statement's base draws (what `dpspec conform` draws first; the reference evaluations there are
    most of the cost, so the focused checks below reuse them: the conditions check only takes the points drawn)."""
    return properties._base_points(_statement(sid), EXAMPLES, SEED, DPS, "quick", True)


def _conditions(statement):
    """The conditions check as `dpspec conform --quick` runs it, on the unplanted base draws."""
    return properties._conditions_check(statement, _base_points(statement.id), EXAMPLES, SEED, DPS, "quick")


@functools.cache
def _baseline_failures(sid):
    return _failed(properties.statement_properties(_statement(sid), examples=EXAMPLES, seed=SEED))


def _failed(checks):
    return {c.name: c.message for c in checks if c.ok is False}


def _names(exc: ConditionError):
    return [f.partition(":")[0] for f in exc.failed]


@pytest.mark.parametrize("sid", SEARCHED)
def test_each_condition_is_found_failing_alone_and_both_paths_refuse_there(sid):
    st = _statement(sid)
    check = _conditions(st)
    assert check.ok, check.message
    alone = check.methods["alone"]
    assert set(alone) == {c.name for c in st.conditions}
    assert all(alone[c.name] >= 1 for c in st.conditions), alone
    # the points reported are what they claim: the reference refuses there naming that condition only, and the
    # fast path refuses naming it too
    fn = st.fast_function()
    from dpspec.conformance.strategies import fast_args
    for name, pts in check.methods["alone_points"].items():
        for shown in pts:
            point = {k: v for k, v in shown.items() if k != "found"}
            with pytest.raises(ConditionError) as ref:
                st.evaluate(dps=DPS, **{k: repr(v) if isinstance(v, float) else v for k, v in point.items()})
            assert _names(ref.value) == [name]
            with pytest.raises(ConditionError) as fast:
                fn(**fast_args(st, point))
            assert _names(fast.value) == [name]
    # the work is bounded by the settings, not by time
    n = len(st.params)
    bound = (properties.DRAW_FACTOR + 1) * EXAMPLES + properties.START_FACTOR * min(
        EXAMPLES, properties.ALONE_CAP) * 2 * n * (1 + properties.SEARCH_STEPS)
    assert check.methods["evaluations"] <= bound


def test_a_condition_that_cannot_fail_alone_is_named_not_failed():
    # ptr.thm5_2 (seed 000 appendix, Theorem 5.2, eq. (94)): where F < n/2 fails, the step-size condition
    # η_B < 2λ(n−2F)/(n² + (n−F+1)(n−F)β²) fails too (its right side is ≤ 0 < η_B), so F < n/2 never fails alone:
    # reported, not a failure
    check = _conditions(_statement("ptr.thm5_2"))
    assert check.ok, check.message
    assert check.methods["alone"]["F_below_half"] == 0
    assert "none found for F_below_half" in check.message
    assert check.methods["alone"]["step_size"] >= 1 and check.methods["alone"]["sigma2"] >= 1


def test_the_search_is_deterministic():
    st = _statement("ptr.lemma_a1")
    points = lambda: properties._base_points(st, EXAMPLES, SEED, DPS, "quick", True)
    a = properties._conditions_check(st, points(), EXAMPLES, SEED, DPS, "quick")
    b = properties._conditions_check(st, points(), EXAMPLES, SEED, DPS, "quick")
    assert a.methods == b.methods and a.message == b.message


REMOVED = ["ptr.thm4_4:no-C1:ref", "ptr.thm4_4:no-C2:ref", "ptr.thm4_4:no-C3:ref", "ptr.thm4_4:no-C4:ref",
           "ptr.lemma_a1:no-C3:ref", "ptr.lemma_a1:no-C4:ref"]


@pytest.mark.parametrize("plant", REMOVED)
def test_selftest_plant_removing_a_condition_from_the_reference_is_caught(plant):
    p = selftest.get(plant)
    sid = p.ids[0]
    assert not _baseline_failures(sid)
    with p.applied():
        failed = _failed(properties.statement_properties(_statement(sid), examples=EXAMPLES, seed=SEED))
    assert "conditions" in failed, failed
    removed = plant.split(":no-")[1].split(":")[0]
    assert f"{removed}:" in failed["conditions"]  # the removed condition is named (by the fast path's refusal)


@pytest.mark.parametrize("plant", ["ptr.thm4_2:no-classical:ref", "ptr.zw19_lower:no-case2:ref"])
def test_selftest_plant_removing_the_only_condition_is_caught(plant):
    # without conditions left the reference answers everywhere: the fast path's refusals are found by the fast check
    p = selftest.get(plant)
    assert not _baseline_failures(p.ids[0])
    with p.applied():
        failed = _failed(properties.statement_properties(_statement(p.ids[0]), examples=EXAMPLES, seed=SEED))
    assert failed, plant


# Plants only the points where one condition alone fails can expose: the condition is dropped exactly where it
# fails alone, and kept (with the same words) wherever another condition fails too.

ALONE_CASES = [("ptr.thm4_4", "C1"), ("ptr.thm4_4", "C3"), ("ptr.thm4_4", "C4"), ("ptr.lemma_a1", "C3"),
               ("ptr.lemma_a1", "C4")]


@pytest.mark.parametrize("sid,name", ALONE_CASES)
def test_reference_answering_where_only_that_condition_fails_is_caught(monkeypatch, sid, name):
    st = _statement(sid)
    others = [c for c in st.conditions if c.name != name]
    mine = next(c for c in st.conditions if c.name == name)
    weakened = dataclasses.replace(mine, holds=lambda p: mine.holds(p) or all(o.holds(p) for o in others))
    planted = dataclasses.replace(st, conditions=tuple(weakened if c is mine else c for c in st.conditions))
    monkeypatch.setitem(catalogue.STATEMENTS._entries, sid, planted)
    check = _conditions(catalogue.get(sid))
    assert not check.ok
    assert check.message.startswith(f"where only {name} fails, the reference answers, the fast path refuses "
                                    f"({name}:"), check.message


def _fast_without(sid, name, everywhere):
    """The statement's fast function without condition ``name``: it answers where that condition alone fails and,
    if ``everywhere``, leaves it out of its refusals elsewhere too."""
    st = _statement(sid)
    module, _, attr = st.fast.partition(":")
    original = getattr(importlib.import_module(module), attr)

    @functools.wraps(original)
    def planted(*args, **kwargs):
        try:
            return original(*args, **kwargs)
        except ConditionError as exc:
            kept = [f for f in exc.failed if f.partition(":")[0] != name]
            if not kept:
                return original(*args, **kwargs, allow_outside=True)
            raise ConditionError(exc.statement_id, kept if everywhere else exc.failed) from None
    return module, attr, planted


@pytest.mark.parametrize("everywhere", [False, True], ids=["where-alone", "everywhere"])
@pytest.mark.parametrize("sid,name", ALONE_CASES)
def test_fast_path_without_a_condition_is_caught(monkeypatch, sid, name, everywhere):
    module, attr, planted = _fast_without(sid, name, everywhere)
    monkeypatch.setattr(importlib.import_module(module), attr, planted)
    check = _conditions(_statement(sid))
    assert not check.ok
    ref_says, _, fast_says = check.message.partition(", the fast path ")
    assert "the reference refuses (" in ref_says and f"{name}:" in ref_says, check.message
    assert f"{name}:" not in fast_says, check.message
    if not everywhere:
        assert check.message.startswith(f"where only {name} fails, the reference refuses ({name}:")
        assert "the fast path answers" in check.message
