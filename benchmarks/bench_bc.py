"""Benchmark of seed 002's fast path (fast/bc) against the mpmath reference (reference/bc): q_E, and the exact A1
trade-off f, δ(ε) and ε(δ) on grids, for a few configurations of Algorithm 1 (issue 15: "the benchmark shows the fast
q_E and f at ≥ 10³× the reference").

Per configuration:
* ``qe``: one law, both sides cold (their caches cleared): fast ``fast.bc.qe.qe_law`` vs reference
  ``reference.bc.qe.qe_law`` at 50 digits; fast best of ``--repeats``, reference best of ``--repeats // 2`` (at least
  one), run one after the other (interleaved) with the 1-minute load average noted beside each.
* ``QE_EXTREMES`` (q_E only, the issue's done-when corners: E up to 10³, N/(sm) = 10⁴, g up to 64), where the reference
  takes seconds: the same measurement, and the fast path's relative error on the reference's entries above 1e-60.
* ``def4_2`` / ``a1_profile`` / ``a1_epsilon``: the fast evaluator on a grid of ``--points`` α (uniform on [0, 1]),
  ε (uniform on [0, 2·ε(1e-5)]) or δ (log-uniform on [1e-12, 0.5]) in ONE vectorised call with its q_E built cold
  inside the timing (best of ``--repeats``), against the catalogue's reference (``Statement.evaluate``, default 50
  digits, self-checked at two precisions, q_E cached after its first point) on ``--ref-points`` random grid points
  within ``--ref-budget`` seconds. As in bench_fast_vs_reference.py the reference time for the whole grid is
  EXTRAPOLATED (mean per point × grid size); the JSON says so. Also the max relative error on those points.

    .venv/bin/python benchmarks/bench_bc.py [--quick] [--qe-only] [--out PATH]

Torch uses one thread; CPU; the machine may be shared (times are noisy).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from pathlib import Path

import mpmath
import numpy as np
import torch

from dpspec.fast.bc import mixture as fm, qe as fq
from dpspec.reference import catalogue
from dpspec.reference.bc import qe as rq

DEFAULT_OUT = Path(__file__).parent / "results" / "bench_bc.json"

CONFIGS = [  # (label, sampling, N, m, s, g, E, σ)
    ("paper SS BC (σ=2, E=100, sm=64)", "subsampling", 51200, 1, 64, 1, 100, 2.0),
    ("SS IC g=2", "subsampling", 400, 4, 1, 2, 4, 1.0),
    ("SS MC g=3", "subsampling", 240, 3, 2, 3, 6, 1.0),
    ("SH BC g=3 (true occupancy)", "shuffling", 6400, 1, 64, 3, 10, 2.0),
    ("SH MC g=4", "shuffling", 960, 4, 4, 4, 5, 1.5),
]

QE_EXTREMES = [  # (label, sampling, N, m, s, g, E): q_E alone at the done-when corners
    ("SS BC g=1, E=10^3, N/(sm)=10^4 (binomial)", "subsampling", 640000, 1, 64, 1, 1000),
    ("SS MC g=m=8, E=10^3, N/(sm)=10^4", "subsampling", 640000, 8, 8, 8, 1000),
    ("SS MC g=m=16, E=100, N/(sm)=10^4", "subsampling", 2560000, 16, 16, 16, 100),
    ("SH BC g=8, E=10^3, N/(sm)=10^4", "shuffling", 640000, 1, 64, 8, 1000),
    ("SH BC g=64, E=10^3, N/(sm)=10^4", "shuffling", 640000, 1, 64, 64, 1000),
    ("SH MC g=m=16, E=100, N/(sm)=10^4 (direct fallback)", "shuffling", 2560000, 16, 16, 16, 100),
]


def _best(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def _rel(f: float, r: float) -> float:
    if math.isinf(r) or math.isinf(f):
        return 0.0 if f == r else math.inf
    diff = abs(f - r)
    return 0.0 if diff <= 1e-300 else diff / abs(r)


def _clear_reference_cache():
    """Empty the reference's q_E memo (a dict ``_CACHE`` or an lru_cache, whichever reference/bc/qe.py has)."""
    cache = getattr(rq, "_CACHE", None)
    if cache is not None:
        cache.clear()
    elif hasattr(rq._qe_law_cached, "cache_clear"):
        rq._qe_law_cached.cache_clear()


def bench_qe(cfg, repeats):
    sampling, N, m, s, g, E = cfg

    def fast():
        fq.qe_law.cache_clear()
        return fq.qe_law(sampling, N, m, s, g, E)

    def ref():
        _clear_reference_cache()
        with mpmath.workdps(50):
            return rq.qe_law(sampling, N, m, s, g, E)

    load0 = os.getloadavg()[0]
    tr, rlaw = _best(ref, max(1, repeats // 2))
    tf, flaw = _best(fast, repeats)
    return {"fast_seconds": tf, "reference_seconds": tr, "speed_ratio": tr / tf,
            "load_average_1min": [load0, os.getloadavg()[0]], "fast_path": _path(cfg),
            "max_rel_error_above_1e-60": _law_error(flaw, rlaw)}


def _path(cfg) -> str:
    """Which way the fast q_E was built: binomial closed form, direct log-space convolution, or tilted FFTs."""
    sampling, N, m, s, g, E = cfg
    if sampling == "subsampling":
        rl = fq.round_law_subsampling(N, m, s, g)
        if rl.numel() == 2:
            return "binomial"
        base, n = fq._squares_law(rl), E * (N // (m * s))
    else:
        base, n = fq.epoch_law_shuffling(N, m, s, g), E
    fin = torch.nonzero(torch.isfinite(base.log_pmf)).flatten()
    if n == 1 or fin.numel() < 2:
        return "point mass / one copy"
    if n * (int(fin[-1]) - int(fin[0])) <= fq.DIRECT_SPAN:
        return "direct (small law)"
    return "tilted FFT" if fq.tilted_power(base, n) is not None else "direct (fallback: a point not covered)"


def _law_error(fast, ref) -> float:
    """Max relative error of the fast law on the reference's entries above 1e-60."""
    worst = 0.0
    for c2, q in zip(ref.support, ref.pmf):
        r = float(q)
        if r > 1e-60:
            worst = max(worst, abs(fast.mass_at(c2) - r) / r)
    return worst


def bench_grid(sid, fast_fn, axis, grid, cfg, sigma, repeats, ref_points, ref_budget, rng):
    sampling, N, m, s, g, E = cfg
    x = torch.tensor(grid, dtype=torch.float64)

    def fast():
        fq.qe_law.cache_clear()
        return fast_fn(x, sampling, N, m, s, g, E, sigma)

    tf, out = _best(fast, repeats)
    statement = catalogue.get(sid)
    idx = rng.choice(len(grid), size=min(ref_points, len(grid)), replace=False)
    times, errors, failures = [], [], []
    started = time.perf_counter()
    for i in idx:
        if time.perf_counter() - started > ref_budget and times:
            break
        p = {axis: float(grid[i]), "sampling": sampling, "N": N, "m": m, "s": s, "g": g, "E": E, "sigma": sigma}
        t0 = time.perf_counter()
        try:
            r = statement.evaluate(**p).value
        except Exception as exc:  # noqa: BLE001 — reported, not hidden
            failures.append({"params": p, "error": f"{type(exc).__name__}: {exc}"[:300]})
            continue
        times.append(time.perf_counter() - t0)
        errors.append(_rel(float(out[i]), float(r)))
    per_point = float(np.mean(times)) if times else None
    return {"points": len(grid), "fast_seconds_all_points": tf,
            "reference_points_evaluated": len(times), "reference_seconds_per_point": per_point,
            "reference_seconds_all_points_extrapolated": None if per_point is None else per_point * len(grid),
            "speed_ratio_extrapolated": None if per_point is None else per_point * len(grid) / tf,
            "max_rel_error_on_subset": max(errors) if errors else None, "reference_failures": failures}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quick", action="store_true", help="10^3 points, 2 reference points, 1 repeat, 2 configs")
    ap.add_argument("--points", type=int, default=10**4)
    ap.add_argument("--ref-points", type=int, default=5)
    ap.add_argument("--ref-budget", type=float, default=60.0, help="seconds of reference time per row")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--qe-only", action="store_true", help="only the q_E rows (CONFIGS and QE_EXTREMES), no grids")
    args = ap.parse_args(argv)
    configs = CONFIGS
    if args.quick:
        args.points, args.ref_points, args.repeats, args.ref_budget = 1000, 2, 1, 20.0
        configs = CONFIGS[1:3]
    torch.set_num_threads(1)
    rows, extremes = [], []
    args.extremes = extremes
    for label, sampling, N, m, s, g, E in ([] if args.quick else QE_EXTREMES):
        row = {"config": label, "sampling": sampling, "N": N, "m": m, "s": s, "g": g, "E": E,
               "qe": bench_qe((sampling, N, m, s, g, E), args.repeats)}
        extremes.append(row)
        print(f"{label:52s} qe ×{row['qe']['speed_ratio']:.3g} ({row['qe']['fast_path']}, ref "
              f"{row['qe']['reference_seconds']:.3g} s, err {row['qe']['max_rel_error_above_1e-60']:.2g}, load "
              f"{row['qe']['load_average_1min'][0]:.1f})", flush=True)
        _write(args, rows)
    for label, sampling, N, m, s, g, E, sigma in configs:
        cfg = (sampling, N, m, s, g, E)
        rng = np.random.default_rng([args.seed, N, m, s, g, E])
        row = {"config": label, "sampling": sampling, "N": N, "m": m, "s": s, "g": g, "E": E, "sigma": sigma,
               "qe": bench_qe(cfg, args.repeats)}
        if args.qe_only:
            rows.append(row)
            print(f"{label:34s} qe ×{row['qe']['speed_ratio']:.3g} ({row['qe']['fast_path']}, ref "
                  f"{row['qe']['reference_seconds']:.3g} s, load {row['qe']['load_average_1min'][0]:.1f})", flush=True)
            _write(args, rows)
            continue
        eps5 = float(fm.a1_epsilon(1e-5, *cfg, sigma))
        grids = {
            "def4_2": ("bc.def4_2", fm.def4_2, "alpha", np.linspace(0, 1, args.points)),
            "a1_profile": ("bc.a1_profile", fm.a1_profile, "eps", np.linspace(0, 2 * eps5, args.points)),
            "a1_epsilon": ("bc.a1_epsilon", fm.a1_epsilon, "delta",
                           np.exp(np.linspace(math.log(1e-12), math.log(0.5), args.points))),
        }
        for key, (sid, fn, axis, grid) in grids.items():
            row[key] = bench_grid(sid, fn, axis, grid, cfg, sigma, args.repeats, args.ref_points, args.ref_budget, rng)
        rows.append(row)
        print(f"{label:34s} qe ×{row['qe']['speed_ratio']:.3g}  " + "  ".join(
            f"{k} ×{row[k]['speed_ratio_extrapolated'] or float('nan'):.3g} (err {row[k]['max_rel_error_on_subset']})"
            for k in grids), flush=True)
        _write(args, rows)
    report = _write(args, rows)
    print(f"wrote {args.out}")
    return report


def _write(args, rows) -> dict:
    grid_ratios = [r[k]["speed_ratio_extrapolated"] for r in rows for k in ("def4_2", "a1_profile", "a1_epsilon")
                   if k in r and r[k]["speed_ratio_extrapolated"]]
    report = {
        "benchmark": "seed 002 fast path vs reference (issue 15)",
        "method": ("qe: one law, both cold, best of repeats (reference at 50 digits). Grid rows: the fast evaluator on "
                   "all grid points in one vectorised call with q_E built cold inside the timing, best of repeats, "
                   "torch threads = 1; the reference (Statement.evaluate, default digits, self-checked, q_E cached "
                   "after its first point) on a random subset, its whole-grid time EXTRAPOLATED as mean per point x "
                   "grid size; max_rel_error_on_subset compares both on the subset (|f - r| <= 1e-300 counts as 0)"),
        "goal": "fast q_E and f at >= 1e3 x the reference",
        "settings": {"points": args.points, "ref_points": args.ref_points, "ref_budget_s": args.ref_budget,
                     "repeats": args.repeats, "seed": args.seed, "quick": args.quick, "qe_only": args.qe_only},
        "machine": {"platform": platform.platform(), "torch": torch.__version__, "device": "cpu"},
        "summary": {"min_grid_speed_ratio": min(grid_ratios) if grid_ratios else None,
                    "qe_speed_ratios": {r["config"]: r["qe"]["speed_ratio"] for r in rows},
                    "qe_extreme_speed_ratios": {r["config"]: r["qe"]["speed_ratio"] for r in args.extremes}},
        "results": rows,
        "qe_extremes": args.extremes,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
