"""benchmarks/bench_pld.py (issue 14, measured goals 1–3): its quick mode writes the JSON the README section is
built from, and its timing machinery (per-run time limit, interleaved best-of rounds, ratios, schedules) does what
the docstring says. The benchmark's numbers themselves are not asserted (never timed unit tests)."""
import importlib.util
import json
import time
from pathlib import Path

import pytest
import torch

PATH = Path(__file__).parents[2] / "benchmarks" / "bench_pld.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_pld", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_time_limit_stops_a_long_run_and_leaves_no_alarm(bench):
    t0 = time.perf_counter()
    with pytest.raises(bench.TimedOut):
        with bench.time_limit(0.2):
            while True:
                pass
    assert time.perf_counter() - t0 < 60  # the 0.2 s limit cut the loop off (a hang guard, not a speed test)
    with bench.time_limit(5):  # a short run passes, and the alarm is cancelled on exit
        pass
    time.sleep(0.01)


def test_interleaved_keeps_the_best_time_and_records_every_outcome(bench):
    order = []
    durations = iter([0.03, 0.01, 0.02])

    def fast():
        order.append("fast")
        d = next(durations)
        return {"steps_s": 0.0, "first_epsilon_s": d, "second_epsilon_s": d / 2, "eps": 1.5}

    def slow():
        order.append("slow")
        time.sleep(5)

    def broken():
        order.append("broken")
        raise RuntimeError("peer failure")

    rows = bench.interleaved({"fast": fast, "slow": slow, "broken": broken}, repeats=3, limit=0.3, repeat_limit=30,
                             skip=None)
    # round-robin: every task once in round 1; the timed-out and the failing one sit out later rounds
    assert order == ["fast", "slow", "broken", "fast", "fast"]
    assert rows["fast"]["status"] == "ok" and len(rows["fast"]["runs"]) == 3
    best = bench._best(rows["fast"]["runs"])  # each column's best, over the rounds
    assert best["first_epsilon_s"] == 0.01 and best["second_epsilon_s"] == 0.005 and best["total_s"] == 0.01
    assert rows["slow"]["status"] == "timed out" and rows["slow"]["runs"] == []
    assert rows["broken"]["status"] == "error" and "peer failure" in rows["broken"]["why"]
    before = len(order)
    skipped = bench.interleaved({"fast": fast}, repeats=1, limit=1, repeat_limit=30, skip={"fast": "why"})
    assert skipped["fast"]["status"] == "skipped" and len(order) == before  # not run


def test_a_task_over_the_repeat_limit_runs_once(bench):
    calls = []

    def costly():
        calls.append(1)
        return {"seconds": 2.0, "sigma": 1.0}

    rows = bench.interleaved({"c": costly}, repeats=3, limit=10, repeat_limit=1.0)
    assert len(calls) == 1 and rows["c"]["status"] == "ok"


def test_ratios_divide_peer_time_by_dpspec_time(bench):
    rows = {"dpspec": {"best": {"total_s": 2.0, "first_epsilon_s": 1.0}},
            "peer": {"best": {"total_s": 6.0, "first_epsilon_s": 4.0}},
            "gone": {"status": "timed out"}}
    assert bench.ratios(rows) == {"peer/dpspec": {"total": 3.0, "first_epsilon": 4.0}}


def test_schedules_match_the_issue(bench):
    a = bench.hetero_a(100, 100)
    assert len(a) == 100 and sum(c for *_, c in a) == 10_000
    assert a[0][1] == 0.8 and abs(a[-1][1] - 1.2) < 1e-12 and {q for q, *_ in a} == {0.01}
    b = bench.hetero_b(500)
    assert b == bench.hetero_b(500)  # fixed seed
    assert len({(q, s) for q, s, _ in b}) == 500  # all distinct
    assert all(0.005 <= q <= 0.02 and 0.8 <= s <= 1.2 and c == 1 for q, s, c in b)


@pytest.mark.slow  # about 40 s on the shared 2-core machine
def test_quick_mode_writes_every_case(bench, tmp_path):
    out = tmp_path / "pld_quick.json"
    threads = torch.get_num_threads()
    try:
        assert bench.main(["--quick", "--out", str(out)]) == 0
    finally:
        torch.set_num_threads(threads)
    report = json.loads(out.read_text())
    assert report["quick"] and report["settings"]["steps"] == 1_000
    assert {"machine", "load_before", "load_after", "cases"} <= set(report)
    assert set(report["cases"]) == {"headline", "hetero_a", "hetero_b_T20", "calibration"}
    head = report["cases"]["headline"]["rows"]
    assert set(head) == {"dpspec", "dp_accounting.pld", "opacus.prv", "opacus.rdp", "dpspec.rdp"}
    d = head["dpspec"]["best"]
    assert d["eps_lower"] <= d["eps_upper"] == d["eps"] and d["width"] == d["eps_upper"] - d["eps_lower"]
    for key in ("steps_s", "first_epsilon_s", "second_epsilon_s", "interval_s", "total_s"):
        assert d[key] >= 0
    # the tight peers land inside (or just above: Opacus PRV's eps_error is 0.01) dpspec's interval; RDP above it
    assert head["dp_accounting.pld"]["best"]["eps"] >= d["eps_lower"] - 1e-3
    assert head["opacus.rdp"]["best"]["eps"] > d["eps_upper"]
    assert "dp_accounting.pld/dpspec" in report["cases"]["headline"]["ratios"]
    for name in ("hetero_a", "hetero_b_T20"):
        assert set(report["cases"][name]["rows"]) == {"dpspec", "dp_accounting.pld", "opacus.prv"}
        assert report["cases"][name]["rows"]["dpspec"]["status"] == "ok"
    cal = report["cases"]["calibration"]["rows"]
    for name, row in cal.items():
        if row["status"] == "ok":
            assert row["best"]["certified_eps_upper"] <= 1.0 or name != "dpspec"
