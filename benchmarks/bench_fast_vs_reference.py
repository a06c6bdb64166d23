"""Benchmark 1 (issue 5): the torch fast path against the mpmath reference, per catalogue statement.

For every statement with a fast evaluator whose parameters are all numeric (parameters of other types that
have a default, e.g. ``direction``, are left at it): a parameter grid of ``--points`` points drawn from the
parameter domains (fixed seed; log-uniform where the domain says so, over the domain's sampling range; points
outside the statement's own conditions are redrawn), the fast evaluator on all of them in ONE vectorised call
(best of ``--repeats`` after a warm-up), and the reference on a random subset of ``--ref-points`` points (at its
default 50 digits, with a time budget per statement). The reference time for the whole grid is EXTRAPOLATED
from the subset (10^4 reference evaluations would take hours); the JSON says so. Reports the speed ratio and
the max relative error of the fast path on the subset.

    .venv/bin/python benchmarks/bench_fast_vs_reference.py [--quick] [--out PATH] [--ids base.sgm_rdp ...]
"""
from __future__ import annotations

import argparse
import json
import math
import platform
import time
from pathlib import Path

import numpy as np
import torch

from dpspec.reference import catalogue
from dpspec.reference.domains import Integer, Real
from dpspec.reference.errors import DpspecError, PrecisionError

DEFAULT_OUT = Path(__file__).parent / "results" / "fast_vs_reference.json"


def _draw(domain, rng: np.random.Generator, n: int) -> np.ndarray:
    lo, hi = domain.strategy_range
    if isinstance(domain, Integer):
        lo, hi = int(lo), int(hi)
        if domain.scale == "log" and lo >= 1:
            return np.floor(np.exp(rng.uniform(math.log(lo), math.log(hi + 1), n))).clip(lo, hi)
        return rng.integers(lo, hi + 1, n).astype(float)
    lo, hi = float(lo), float(hi)
    if domain.scale == "log" and lo > 0:
        x = np.exp(rng.uniform(math.log(lo), math.log(hi), n))
    else:
        x = rng.uniform(lo, hi, n)
    return np.array([v if domain.contains(v) else (lo + hi) / 2 for v in x])


def _numeric(statement) -> list | None:
    """The numeric parameters, or None when a parameter without default is not numeric (e.g. a curve)."""
    out = []
    for p in statement.params:
        if isinstance(p.domain, (Real, Integer)):
            out.append(p)
        elif p.required:
            return None
    return out


def _grid(statement, numeric, rng, n):
    """n parameter points inside the domains and the statement's own conditions (redrawn up to 20 times)."""
    cols = {p.name: np.empty(0) for p in numeric}
    for _ in range(20):
        draw = {p.name: _draw(p.domain, rng, 2 * n) for p in numeric}
        keep = np.ones(2 * n, dtype=bool)
        if statement.conditions:
            for i in range(2 * n):
                bound = statement.bind({k: float(v[i]) for k, v in draw.items()})
                keep[i] = not statement.failed_conditions(bound)
        for k in cols:
            cols[k] = np.concatenate([cols[k], draw[k][keep]])
        if len(next(iter(cols.values()))) >= n:
            break
    return {k: v[:n] for k, v in cols.items()}


def _components(v):
    return v if isinstance(v, tuple) else (v,)


def _rel(f: float, r: float) -> float:
    if math.isinf(r) or math.isinf(f):
        return 0.0 if f == r else math.inf
    diff = abs(f - r)
    return 0.0 if diff <= 1e-300 else diff / abs(r)


def bench_statement(statement, rng, points: int, ref_points: int, repeats: int, ref_budget: float) -> dict:
    numeric = _numeric(statement)
    grid = _grid(statement, numeric, rng, points)
    n = len(next(iter(grid.values())))
    tensors = {k: torch.tensor(v, dtype=torch.float64) for k, v in grid.items()}
    fast = statement.fast_function()
    out = fast(**tensors)  # warm-up (and the values compared below)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fast(**tensors)
        times.append(time.perf_counter() - t0)
    fast_time = min(times)
    subset = rng.choice(n, size=min(ref_points, n), replace=False)
    ref_times, errors, failures = [], [], []
    started = time.perf_counter()
    for i in subset:
        if time.perf_counter() - started > ref_budget and ref_times:
            break
        p = {k: float(v[i]) for k, v in grid.items()}
        t0 = time.perf_counter()
        try:
            ref = statement.evaluate(**p).value
        except (PrecisionError, DpspecError) as exc:
            failures.append({"params": p, "error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        ref_times.append(time.perf_counter() - t0)
        errs = [_rel(float(f[i]), float(r)) for f, r in zip(_components(out), _components(ref))]
        errors.append(max(errs))
    per_point_ref = float(np.mean(ref_times)) if ref_times else None
    result = {
        "id": statement.id, "fast": statement.fast, "tolerance": statement.tolerance,
        "params": {k: [float(v.min()), float(v.max())] for k, v in grid.items()},
        "points": n, "fast_seconds_all_points": fast_time, "fast_seconds_per_point": fast_time / n,
        "fast_repeats": repeats,
        "reference_points_evaluated": len(ref_times), "reference_failures": failures,
        "reference_seconds_per_point": per_point_ref,
        "reference_seconds_all_points_extrapolated": None if per_point_ref is None else per_point_ref * n,
        "speed_ratio_extrapolated": None if per_point_ref is None else per_point_ref * n / fast_time,
        "max_rel_error_on_subset": max(errors) if errors else None,
        "within_tolerance": None if not errors else max(errors) <= statement.tolerance,
    }
    return result


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quick", action="store_true", help="10^3 points, 5 reference points, 2 repeats")
    ap.add_argument("--points", type=int, default=10**4)
    ap.add_argument("--ref-points", type=int, default=30)
    ap.add_argument("--ref-budget", type=float, default=60.0, help="seconds of reference time per statement")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--seed", type=int, default=20240501)
    ap.add_argument("--ids", nargs="*", help="only these statement ids (default: every one with a fast path)")
    args = ap.parse_args(argv)
    if args.quick:
        args.points, args.ref_points, args.repeats, args.ref_budget = 1000, 5, 2, 15.0
    torch.set_num_threads(1)
    rows, skipped = [], []
    for s in catalogue.statements():
        if not s.fast or (args.ids and s.id not in args.ids):
            continue
        if _numeric(s) is None:
            skipped.append({"id": s.id, "why": "a required parameter is not numeric (e.g. a curve)"})
            continue
        rng = np.random.default_rng([args.seed, sum(map(ord, s.id))])
        try:
            row = bench_statement(s, rng, args.points, args.ref_points, args.repeats, args.ref_budget)
        except Exception as exc:  # report and go on: one broken fast path must not hide the others
            skipped.append({"id": s.id, "why": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        rows.append(row)
        ratio = row["speed_ratio_extrapolated"]
        print(f"{s.id:40s} fast {row['fast_seconds_all_points']:.4f}s/{row['points']}  "
              f"ref {row['reference_seconds_per_point'] or float('nan'):.4f}s/pt "
              f"({row['reference_points_evaluated']} pts)  ratio {ratio or float('nan'):.3g}  "
              f"max rel err {row['max_rel_error_on_subset']}", flush=True)
        _write(args, rows, skipped)  # after every statement, so an interrupted run keeps what it measured
    report = _write(args, rows, skipped)
    print(f"wrote {args.out}")
    return report


def _write(args, rows, skipped) -> dict:
    ratios = [r["speed_ratio_extrapolated"] for r in rows if r["speed_ratio_extrapolated"]]
    report = {
        "benchmark": "fast vs reference (issue 5, benchmark 1)",
        "method": ("fast: one vectorised call on all grid points, best of repeats after a warm-up, torch "
                   "threads = 1; reference: evaluated at its default precision on a random subset only, and its "
                   "time for the whole grid EXTRAPOLATED as (mean seconds per subset point) x (grid size); "
                   "speed_ratio_extrapolated = that extrapolation / fast time; max_rel_error_on_subset compares "
                   "the fast values with the reference on the subset (|f - r| <= 1e-300 counts as 0)"),
        "goal": "speed ratio >= 1e3 for every statement",
        "settings": {"points": args.points, "ref_points": args.ref_points, "ref_budget_s": args.ref_budget,
                     "repeats": args.repeats, "seed": args.seed, "quick": args.quick},
        "machine": {"platform": platform.platform(), "torch": torch.__version__, "device": "cpu"},
        "summary": {"statements": len(rows), "min_speed_ratio": min(ratios) if ratios else None,
                    "statements_below_goal": [r["id"] for r in rows if r["speed_ratio_extrapolated"]
                                              and r["speed_ratio_extrapolated"] < 1e3],
                    "statements_outside_tolerance": [r["id"] for r in rows if r["within_tolerance"] is False]},
        "results": rows,
        "skipped": skipped,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
