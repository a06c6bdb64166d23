"""Benchmark 2 (issue 5): ε of heterogeneous SGM schedules, dpspec.fast.Accountant vs Opacus' RDPAccountant and
dp-accounting's RdpAccountant, all on the SAME orders (Opacus 1.6.0's default alphas), side by side in one run.

    (a) `distinct` σ values × `steps` steps each (q fixed);
    (b) `steps` steps with per-step q and σ (all distinct).

Reported per case: ε of each library, max relative difference to dpspec, time of each (best of `repeats` rounds, the
libraries timed in turn within each round; a library sits out once a minute is spent; imports excluded; dp-accounting's time includes `compose`, where it evaluates the RDP), speed ratios.
dp-accounting sums the absolute values of the fractional-order series (bug B3 of
/work/shared/notes/peer-accountants.md): an upper bound, so its ε may exceed the exact one; the case is then
repeated at the integer orders 2…63 (exact on all sides) to separate that from composition errors.

    .venv/bin/python benchmarks/bench_accountants.py --out benchmarks/bench_accountants.json [--quick]
"""
from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np
import torch

from dpspec.fast.accountant import OPACUS_ALPHAS, Accountant

DELTA = 1e-5


def interleaved_best_times(fns: dict, repeats: int, budget_s: float = 60.0) -> dict:
    """{name: (value, best time, runs)}: the functions are timed in rounds, one run of each per round (so that a
    slow phase of a shared machine hits all of them alike), for ``repeats`` rounds; a function whose runs have
    taken ``budget_s`` seconds in all sits out the remaining rounds."""
    times = {name: [] for name in fns}
    values = {}
    for _ in range(repeats):
        for name, fn in fns.items():
            if times[name] and sum(times[name]) >= budget_s:
                continue
            start = time.perf_counter()
            values[name] = fn()
            times[name].append(time.perf_counter() - start)
    return {name: (values[name], min(times[name]), len(times[name])) for name in fns}


def schedules(quick: bool):
    rng = np.random.default_rng(0)
    distinct, per = (10, 100) if quick else (100, 100)
    a = [(float(s), 0.01, per) for s in np.linspace(0.8, 1.2, distinct)]
    n = 300 if quick else 10_000
    b = [(float(s), float(q), 1) for s, q in zip(rng.uniform(0.8, 1.2, n), rng.uniform(0.005, 0.02, n))]
    return {f"a: {distinct} sigma x {per} steps": a, f"b: {n} steps, per-step q and sigma": b}


def dpspec_eps(history, orders):
    acc = Accountant()
    acc.sgm(q=torch.tensor([q for _, q, _ in history], dtype=torch.float64),
            sigma=torch.tensor([s for s, _, _ in history], dtype=torch.float64),
            steps=torch.tensor([n for *_, n in history]))
    return acc.get_epsilon(DELTA, alphas=orders)


def opacus_eps(history, orders):
    from opacus.accountants import RDPAccountant

    acc = RDPAccountant()
    for s, q, n in history:  # recorded as the optimizer hook does, one step at a time
        for _ in range(n):
            acc.step(noise_multiplier=s, sample_rate=q)
    return acc.get_epsilon(DELTA, alphas=list(orders))


def dp_accounting_eps(history, orders):
    import dp_accounting
    from dp_accounting import rdp

    acc = rdp.RdpAccountant(orders=list(orders))
    for s, q, n in history:
        acc.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(s)), n)
    return acc.get_epsilon(DELTA)


LIBRARIES = {"dpspec.fast": dpspec_eps, "opacus RDPAccountant": opacus_eps, "dp-accounting RdpAccountant": dp_accounting_eps}


def run_case(history, orders, repeats):
    timed = interleaved_best_times({name: (lambda fn=fn: fn(history, orders)) for name, fn in LIBRARIES.items()},
                                   repeats)
    out = {name: {"epsilon": eps, "seconds": seconds, "runs": runs} for name, (eps, seconds, runs) in timed.items()}
    ours = out["dpspec.fast"]
    for name, row in out.items():
        if name != "dpspec.fast":
            row["rel_diff_to_dpspec"] = abs(row["epsilon"] - ours["epsilon"]) / ours["epsilon"]
            row["dpspec_speedup"] = row["seconds"] / ours["seconds"]
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="benchmarks/bench_accountants.json")
    parser.add_argument("--quick", action="store_true", help="small schedules (10 sigma; 300 steps)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cases", default="ab", help="which cases to run: a, b or ab")
    parser.add_argument("--threads", type=int, default=1, help="torch intra-op threads (numpy peers are serial)")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    import dp_accounting
    import opacus

    report = {"delta": DELTA, "quick": args.quick, "repeats": args.repeats, "torch_threads": args.threads,
              "machine": platform.processor() or platform.machine(), "torch": torch.__version__,
              "opacus": opacus.__version__, "dp_accounting": getattr(dp_accounting, "__version__", "?"),
              "cases": {}}
    for label, history in schedules(args.quick).items():
        if label[0] not in args.cases:
            continue
        report["cases"][label] = {
            "opacus default orders": run_case(history, OPACUS_ALPHAS, args.repeats),
            "integer orders 2..63": run_case(history, list(range(2, 64)), args.repeats),
        }
        print(label, json.dumps(report["cases"][label], indent=1), flush=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=2)


if __name__ == "__main__":
    main()
