"""Benchmark of seed 003 ch. 3's fast path (fast/gptr) against the mpmath reference (reference/gptr), on what a user
calls with the defaults (issue 18: "the fast path in torch: batched over λ candidates and over queries"):

* ``pate_report``: the privacy report of Algorithm 6 (PATE-PTR) over T = 200 queries of 400 teachers, 10 classes
  (synthetic high-consensus votes, seeded): E(X) = Σ_t β(q̃_t) at Alg 6's order α, the smooth sensitivity SS_β(X)
  and the test cost, for ε̂ = 0.58174 (σ_s = 15), δ = 1e-5, σ1 = 40. Fast: ``algorithms.alg6_privacy_report`` on the
  whole (200, 10) vote tensor in one call. Reference: the catalogue's ``gptr.smooth_sensitivity`` and
  ``gptr.thm3_6_4`` (``Statement.evaluate``, default digits, self-checked at two precisions) on the first
  ``--ref-queries`` queries, whose time is EXTRAPOLATED linearly to 200 (each query's walk costs the same order; the
  JSON says so; ``--ref-queries 200`` measures it all), plus ``gptr.thm3_6_6`` once. The fast value at the same
  queries is compared with the reference's (relative error).
* ``gamma_star``: Theorem 3.6.1's γ* (``gptr.thm3_6_1_gamma``) for 30 λ (log-spaced on [2.5, 2.5^10], the OPS-PTR
  experiment's grid) × 10⁵ datasets (λ_min, L drawn), ε = 1, δ = 1e-6, ‖𝒳‖ = 1: one broadcast fast call (infeasible
  entries 0 = ⊥, ``allow_outside=True``) against the reference per point on ``--ref-points`` random feasible
  points, its whole-grid time EXTRAPOLATED (mean per point × 3·10⁶).

    .venv/bin/python benchmarks/bench_gptr.py [--quick] [--out PATH] [--ref-queries N] [--ref-points N]

Torch uses one thread; CPU; best of ``--repeats`` for the fast side; the machine may be shared (times are noisy).
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

from dpspec.fast.gptr import algorithms as fa, ops as fo, pate as fp
from dpspec.reference import catalogue

DEFAULT_OUT = Path(__file__).parent / "results" / "bench_gptr.json"
COMMAND = ".venv/bin/python benchmarks/bench_gptr.py"


def _best(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def _rel(f: float, r: float) -> float:
    if r == f:
        return 0.0
    return abs(f - r) / abs(r) if r != 0 else math.inf


def synthetic_votes(T: int, teachers: int, classes: int, seed: int) -> np.ndarray:
    """High-consensus votes: each query's class probabilities Dirichlet(0.1) (one class usually dominates)."""
    rng = np.random.default_rng(seed)
    return np.array([rng.multinomial(teachers, rng.dirichlet(np.full(classes, 0.1))) for _ in range(T)],
                    dtype=np.float64)


def bench_pate(args) -> dict:
    votes = synthetic_votes(args.queries, args.teachers, 10, args.seed)
    sigma_1, eps_hat, delta = 40.0, 0.58174, 1e-5
    t_fast, report = _best(lambda: fa.alg6_privacy_report(votes, sigma_1, eps_hat, delta), args.repeats)
    alpha, beta = float(report["alpha"]), float(report["beta"])
    sub = votes[:args.ref_queries]
    ss_st, rdp_st, acc_st = (catalogue.get(s) for s in ("gptr.smooth_sensitivity", "gptr.thm3_6_4", "gptr.thm3_6_6"))
    t0 = time.perf_counter()
    ref_ss = ss_st.evaluate(votes=sub.tolist(), teachers=args.teachers, sigma=sigma_1, alpha=alpha, beta=beta).value
    t_ss = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref_rdp = rdp_st.evaluate(votes=sub.tolist(), sigma=sigma_1, alpha=alpha).value
    t_rdp = time.perf_counter() - t0
    t0 = time.perf_counter()
    ref_acc = acc_st.evaluate(eps_prime=2.0, eps_hat=eps_hat, delta=delta).value
    t_acc = time.perf_counter() - t0
    fast_sub_ss = float(fp.smooth_sensitivity(sub, args.teachers, sigma_1, alpha, beta))
    fast_sub_rdp = float(fp.gnmax_rdp_data_dependent(sub, sigma_1, alpha))
    fast_acc = fp.thm3_6_6(2.0, eps_hat, delta)
    scale = args.queries / len(sub)
    t_ref = (t_ss + t_rdp) * scale + t_acc
    return {
        "queries": args.queries, "teachers": args.teachers, "classes": 10, "sigma_1": sigma_1, "eps_hat": eps_hat,
        "delta": delta, "alpha": alpha, "beta": beta,
        "fast_seconds_all_queries": t_fast,
        "reference_queries_evaluated": len(sub),
        "reference_seconds": {"smooth_sensitivity": t_ss, "thm3_6_4": t_rdp, "thm3_6_6": t_acc},
        "reference_seconds_all_queries_extrapolated": t_ref if scale != 1 else None,
        "reference_seconds_all_queries_measured": t_ref if scale == 1 else None,
        "speed_ratio": t_ref / t_fast,
        "values_fast": {"rdp_E": float(report["rdp"]), "smooth_sensitivity": float(report["smooth_sensitivity"]),
                        "test_cost_tight": float(report["test_cost"]["tight"]),
                        "test_cost_thm23": float(report["test_cost"]["thm23"]),
                        "eps_data_dependent": float(report["eps_data_dependent"]),
                        "data_independent_eps": float(report["data_independent_eps"])},
        "max_rel_error_on_reference_queries": max(_rel(fast_sub_ss, float(ref_ss)), _rel(fast_sub_rdp, float(ref_rdp)),
                                                  _rel(float(fast_acc[0]), float(ref_acc[0]))),
        "note": "values_fast.rdp_E is Alg 6 line 4's E(X) = Σ β(q̃) (Papernot's _compute_rdp_gnmax); the error compares "
                "gptr.thm3_6_4 (Σ min(α/σ², Thm 6)), gptr.smooth_sensitivity and gptr.thm3_6_6 on both sides",
    }


def bench_gamma(args) -> dict:
    rng = np.random.default_rng(args.seed)
    lams = torch.tensor(2.5 ** np.linspace(1, 10, 30), dtype=torch.float64)
    n = args.datasets
    lam_min = torch.tensor(rng.uniform(0, 200, n), dtype=torch.float64)
    L = torch.tensor(rng.uniform(0.5, 5, n), dtype=torch.float64)
    eps, delta = 1.0, 1e-6
    call = lambda: fo.ops_gamma_star(eps, lams[:, None], lam_min[None, :], L[None, :], 1.0, delta,  # noqa: E731
                                     allow_outside=True)
    t_fast, grid = _best(call, args.repeats)
    st_ = catalogue.get("gptr.thm3_6_1_gamma")
    feasible = torch.nonzero(grid > 0)
    pick = feasible[rng.choice(len(feasible), size=min(args.ref_points, len(feasible)), replace=False)]
    times, errors = [], []
    for i, j in pick.tolist():
        t0 = time.perf_counter()
        r = st_.evaluate(eps=eps, lam=float(lams[i]), lam_min=float(lam_min[j]), L=float(L[j]), x_norm=1.0,
                         delta=delta).value
        times.append(time.perf_counter() - t0)
        errors.append(_rel(float(grid[i, j]), float(r)))
    per_point = float(np.mean(times))
    return {"lambdas": 30, "datasets": n, "points": 30 * n, "feasible_fraction": float((grid > 0).double().mean()),
            "fast_seconds_all_points": t_fast, "reference_points_evaluated": len(times),
            "reference_seconds_per_point": per_point,
            "reference_seconds_all_points_extrapolated": per_point * 30 * n,
            "speed_ratio_extrapolated": per_point * 30 * n / t_fast,
            "max_rel_error_on_subset": max(errors)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--quick", action="store_true", help="T = 20 queries, 10^4 datasets, 1 repeat, 2 reference queries")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--teachers", type=int, default=400)
    ap.add_argument("--ref-queries", type=int, default=10, help="queries the reference evaluates (extrapolated to T)")
    ap.add_argument("--datasets", type=int, default=10**5)
    ap.add_argument("--ref-points", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20261127)
    args = ap.parse_args(argv)
    if args.quick:
        args.queries, args.ref_queries, args.datasets, args.ref_points, args.repeats = 20, 2, 10**4, 30, 1
    torch.set_num_threads(1)
    pate_row = bench_pate(args)
    t_ref = pate_row["reference_seconds_all_queries_extrapolated"] or pate_row["reference_seconds_all_queries_measured"]
    print(f"PATE report T={args.queries}: fast {pate_row['fast_seconds_all_queries']:.3g} s, reference {t_ref:.3g} s"
          f" -> x{pate_row['speed_ratio']:.3g} (max rel err {pate_row['max_rel_error_on_reference_queries']:.2g})",
          flush=True)
    gamma_row = bench_gamma(args)
    print(f"gamma* 30 x {args.datasets}: fast {gamma_row['fast_seconds_all_points']:.3g} s, reference "
          f"{gamma_row['reference_seconds_all_points_extrapolated']:.3g} s (extrapolated) -> "
          f"x{gamma_row['speed_ratio_extrapolated']:.3g} (max rel err {gamma_row['max_rel_error_on_subset']:.2g})")
    report = {
        "benchmark": "seed 003 ch. 3 fast path (fast/gptr) vs reference (reference/gptr), issue 18",
        "command": COMMAND + (" --quick" if args.quick else ""),
        "method": ("fast: one vectorised call, best of repeats, torch threads = 1, CPU. Reference: Statement.evaluate "
                   "(default digits, self-checked at two precisions); PATE: on the first ref_queries queries, time "
                   "EXTRAPOLATED linearly to all queries unless ref_queries = queries; gamma*: mean per point on a "
                   "random feasible subset x grid size (EXTRAPOLATED). Errors compare both on the same points."),
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
        "machine": {"platform": platform.platform(), "torch": torch.__version__, "device": "cpu"},
        "summary": {"pate_report_speed_ratio": pate_row["speed_ratio"],
                    "gamma_star_speed_ratio_extrapolated": gamma_row["speed_ratio_extrapolated"],
                    "max_rel_error": max(pate_row["max_rel_error_on_reference_queries"],
                                         gamma_row["max_rel_error_on_subset"])},
        "results": {"pate_report": pate_row, "gamma_star": gamma_row},
    }
    try:
        report["settings"]["out"] = str(args.out.resolve().relative_to(Path(__file__).resolve().parent.parent))
    except ValueError:
        report["settings"]["out"] = str(args.out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2))
    print(f"wrote {args.out}")
    return report


if __name__ == "__main__":
    main()
