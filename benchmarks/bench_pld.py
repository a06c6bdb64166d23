"""Tight accounting as users call it (issue 14, "Measured goals" 1–3): dpspec's PLD accountant beside
dp-accounting's PLDAccountant, Opacus' PRVAccountant and RDPAccountant, and ``Accountant(method="rdp")``, with default
arguments, interleaved in one run.

    .venv/bin/python benchmarks/bench_pld.py                 # full: T = 10⁴, --repeats 3, --limit 120 (~18 min)
    .venv/bin/python benchmarks/bench_pld.py --cases headline calibration --repeats 5 \
        --out benchmarks/results/pld_headline.json
    .venv/bin/python benchmarks/bench_pld.py --quick         # T = 10³, 5 σ, hetero T = 20, 1 round, --limit 10
    PYTHONPATH=<shim> python3 benchmarks/bench_pld.py --device cuda --libs dpspec dpspec.rdp --threads 1 \
        --cases headline hetero_a hetero_b --hetero-steps 100 1000 --limit 60   # a GPU machine (README §5)

Cases (δ = 1e-5 throughout):
* ``headline``: q = 0.01, σ = 1, T = 10⁴ (goal 1: upper ε within 2e-4 of 6.18771, interval width ≤ 1e-3, ≥ 10×
  faster than dp-accounting PLD and Opacus PRV);
* ``hetero_a``: 100 distinct σ in [0.8, 1.2] × 100 consecutive steps each, q = 0.01;
* ``hetero_b_T<n>``: n steps with per-step q ∈ [0.005, 0.02] and σ ∈ [0.8, 1.2], uniform, all distinct (seed 0),
  for n in ``--hetero-steps`` (goal 2: 10⁴ steps in < 1 s);
* ``calibration``: σ for ε = 1, δ = 1e-5, q = 0.01, T = 10⁴: ``dpspec.fast.calibrate_sigma(..., method="pld")`` vs
  Opacus ``get_noise_multiplier(accountant="prv")`` (goal 3: < 2 s), and dpspec's certified ε interval at each σ.

How each library is called (what its users write): dpspec and Opacus — a loop of ``step(noise_multiplier=σ,
sample_rate=q)``, then ``get_epsilon(δ)`` twice (dpspec also ``epsilon_interval(δ)``); dp-accounting — one
``compose(PoissonSampledDpEvent(q, GaussianDpEvent(σ)), count)`` per run of equal steps (it convolves at every
``compose``, so a loop of 10⁴ single-step composes of the headline was stopped after 15 minutes; its "steps" time
is the composition), then ``get_epsilon(δ)`` twice. Defaults everywhere: dp-accounting's value_discretization_interval
1e-4, Opacus PRV's eps_error 0.01, dpspec's eps_width 5e-4.

Timing: in each round every library runs once, in turn (a slow phase of the shared machine hits all alike); best of
``--repeats`` rounds per column; a library sits out once its runs took ``--repeat-limit`` s in all (one over 30 s:
one run); one run longer than ``--limit`` seconds is stopped (SIGALRM) and recorded as "timed out" (in ``hetero_b``
it then sits out the larger T). dpspec runs with one torch intra-op thread ("dpspec") and with two ("dpspec.2threads");
the peers are NumPy/SciPy code (pocketfft, one thread). Every run's numbers are kept in the JSON (``runs``; the
first run of a process includes one-time set-up), with the machine, the load average before and after, library
versions and a hash of dpspec's PLD sources. ``--device cuda`` runs dpspec's accountant there (``--libs`` picks the
rows). Writes ``benchmarks/results/pld.json`` (``--out``)."""
from __future__ import annotations

import argparse
import contextlib
import hashlib
import inspect
import json
import os
import platform
import random
import signal
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_EPS = 6.18771  # issue 14: the tight ε of the headline setting
FULL = {"steps": 10_000, "distinct": 100, "hetero_steps": [100, 1_000, 10_000], "repeats": 3, "limit": 120.0,
        "threads": [1, 2]}
QUICK = {"steps": 1_000, "distinct": 5, "hetero_steps": [20], "repeats": 1, "limit": 10.0, "threads": [1]}
TIMINGS = ("steps_s", "first_epsilon_s", "second_epsilon_s", "interval_s")


class TimedOut(Exception):
    """A run exceeded the per-run time limit."""


@contextlib.contextmanager
def time_limit(seconds: float):
    """Raise TimedOut in the main thread after ``seconds`` of wall time (SIGALRM; C calls finish first)."""
    def handler(signum, frame):
        raise TimedOut(f"over {seconds:g} s")

    old = signal.signal(signal.SIGALRM, handler)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def torch_threads(n: int):
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


# -- one run of each library: a list of (q, σ, count) runs of equal steps → timings and ε ----------------------

def _loop_run(acc, schedule, delta, interval: bool) -> dict:
    """Opacus-style: step() per step, then get_epsilon twice (and epsilon_interval for dpspec)."""
    t0 = time.perf_counter()
    for q, sigma, count in schedule:
        for _ in range(count):
            acc.step(noise_multiplier=sigma, sample_rate=q)
    t1 = time.perf_counter()
    eps = acc.get_epsilon(delta)
    t2 = time.perf_counter()
    acc.get_epsilon(delta)
    t3 = time.perf_counter()
    out = {"steps_s": t1 - t0, "first_epsilon_s": t2 - t1, "second_epsilon_s": t3 - t2, "eps": float(eps)}
    if interval:
        lo, hi = acc.epsilon_interval(delta)
        out.update(interval_s=time.perf_counter() - t3, eps_lower=float(lo), eps_upper=float(hi),
                   width=float(hi - lo), grid_step=getattr(acc, "grid_step", None))
    return out


def run_dpspec(schedule, delta, threads=1, method="pld", device="cpu"):
    from dpspec.fast import Accountant

    with torch_threads(threads):
        return _loop_run(Accountant(method=method, device=device), schedule, delta, interval=method == "pld")


def run_opacus(schedule, delta, kind):
    from opacus.accountants import PRVAccountant, RDPAccountant

    return _loop_run({"prv": PRVAccountant, "rdp": RDPAccountant}[kind](), schedule, delta, interval=False)


def run_dp_accounting(schedule, delta):
    from dp_accounting import dp_event
    from dp_accounting.pld import pld_privacy_accountant

    acc = pld_privacy_accountant.PLDAccountant()
    t0 = time.perf_counter()
    for q, sigma, count in schedule:
        acc.compose(dp_event.PoissonSampledDpEvent(q, dp_event.GaussianDpEvent(sigma)), count)
    t1 = time.perf_counter()
    eps = acc.get_epsilon(delta)
    t2 = time.perf_counter()
    acc.get_epsilon(delta)
    t3 = time.perf_counter()
    return {"steps_s": t1 - t0, "first_epsilon_s": t2 - t1, "second_epsilon_s": t3 - t2, "eps": float(eps)}


def libraries(args, peers: tuple[str, ...]) -> dict:
    """The tasks of a case: dpspec per thread count (on ``args.device``), then ``peers``, filtered by --libs."""
    libs = {}
    dev = args.device
    for n in args.threads:
        libs["dpspec" if n == 1 else f"dpspec.{n}threads"] = lambda s, d, n=n: run_dpspec(s, d, threads=n, device=dev)
    table = {"dp_accounting.pld": run_dp_accounting,
             "opacus.prv": lambda s, d: run_opacus(s, d, "prv"),
             "opacus.rdp": lambda s, d: run_opacus(s, d, "rdp"),
             "dpspec.rdp": lambda s, d: run_dpspec(s, d, method="rdp", device=dev)}
    libs.update({name: table[name] for name in peers})
    return {k: v for k, v in libs.items() if args.libs is None or k in args.libs}


# -- interleaved rounds --------------------------------------------------------------------------------------

def _best(runs: list[dict]) -> dict:
    best = dict(runs[-1])
    for k in TIMINGS:
        vals = [r[k] for r in runs if k in r]
        if vals:
            best[k] = min(vals)
    best["total_s"] = min(r["steps_s"] + r["first_epsilon_s"] for r in runs)
    return best


def _cost(run: dict) -> float:
    return run["seconds"] if "seconds" in run else run["steps_s"] + run["first_epsilon_s"]


def interleaved(tasks: dict, repeats: int, limit: float, repeat_limit: float, skip: dict | None = None) -> dict:
    """{name: {"status", "runs"[, "why"]}}: one run of every task per round, ``repeats`` rounds; a task stops after
    a timeout or an error, or once its runs have cost more than ``repeat_limit`` seconds (module docstring)."""
    rows = {name: {"status": "ok", "runs": []} for name in tasks}
    for name, why in (skip or {}).items():
        if name in rows:
            rows[name] = {"status": "skipped", "why": why, "runs": []}
    for r in range(repeats):
        for name, fn in tasks.items():
            row = rows[name]
            if row["status"] != "ok" or sum(_cost(x) for x in row["runs"]) > repeat_limit:
                continue
            try:
                with time_limit(limit):
                    row["runs"].append(fn())
            except TimedOut:
                row.update(status="timed out", why=f"one run exceeded the {limit:g} s limit")
            except Exception as exc:  # a peer's own failure is a result, reported as such
                row.update(status="error", why=f"{type(exc).__name__}: {exc}")
            print(f"    round {r + 1} {name:18s} {row['status']:9s} "
                  + (_fmt(row["runs"][-1]) if row["status"] == "ok" else row.get("why", "")), flush=True)
    return rows


def _fmt(r: dict) -> str:
    if "seconds" in r:
        return f"{r['seconds']:.3f} s  sigma {r['sigma']:.6f}"
    s = (f"steps {r['steps_s']:.3f} s  get_epsilon {r['first_epsilon_s']:.3f} s (again {r['second_epsilon_s']:.3f} s)"
         f"  eps {r['eps']:.6f}")
    if "width" in r:
        s += f"  [{r['eps_lower']:.6f}, {r['eps_upper']:.6f}] width {r['width']:.2e}"
    return s


def ratios(rows: dict, base: str = "dpspec") -> dict:
    """Peer time / dpspec time, for steps + first get_epsilon (where the work is done) and the first get_epsilon."""
    out = {}
    b = rows.get(base, {}).get("best")
    if not b:
        return out
    for name, row in rows.items():
        if name != base and row.get("best"):
            out[f"{name}/{base}"] = {
                "total": row["best"]["total_s"] / b["total_s"],
                "first_epsilon": row["best"]["first_epsilon_s"] / b["first_epsilon_s"]}
    return out


# -- the cases -----------------------------------------------------------------------------------------------

def hetero_a(distinct: int, per: int, q: float = 0.01):
    return [(q, 0.8 + 0.4 * i / (distinct - 1), per) for i in range(distinct)]


def hetero_b(steps: int, seed: int = 0):
    rng = random.Random(seed)
    return [(rng.uniform(0.005, 0.02), rng.uniform(0.8, 1.2), 1) for _ in range(steps)]


def case(name, schedule, libs, delta, args, skip=None) -> dict:
    print(f"{name}: {sum(c for *_, c in schedule)} steps, {len({(q, s) for q, s, _ in schedule})} distinct (q, sigma)",
          flush=True)
    tasks = {n: (lambda fn=fn: fn(schedule, delta)) for n, fn in libs.items()}
    rows = interleaved(tasks, args.repeats, args.limit, args.repeat_limit, skip)
    for row in rows.values():
        if row["runs"]:
            row["best"] = _best(row["runs"])
    out = {"steps": sum(c for *_, c in schedule), "distinct": len({(q, s) for q, s, _ in schedule}),
           "rows": rows, "ratios": ratios(rows)}
    d = rows.get("dpspec", {}).get("best")
    if name == "headline" and d and "eps_upper" in d:
        out["dpspec_upper_minus_reference"] = abs(d["eps_upper"] - REFERENCE_EPS)
    for n, row in rows.items():
        b = row.get("best")
        print(f"  {n:18s} " + (f"best: {_fmt(b)}" if b else f"{row['status']}: {row.get('why', '')}"), flush=True)
    for k, v in out["ratios"].items():
        print(f"  {k}: total {v['total']:.2f}x, first get_epsilon {v['first_epsilon']:.2f}x", flush=True)
    return out


def calibration(args, threads) -> dict:
    """σ for ε = 1 by the tight method: dpspec (if calibrate_sigma takes method=) vs Opacus' PRV calibration."""
    import dpspec.fast

    eps, delta, q, T = 1.0, 1e-5, 0.01, args.steps
    print(f"calibration: eps {eps}, delta {delta}, q {q}, T {T}", flush=True)
    tasks = {}
    skip = {}
    has_method = "method" in inspect.signature(dpspec.fast.calibrate_sigma).parameters
    for n in threads:
        name = "dpspec" if n == 1 else f"dpspec.{n}threads"
        if not has_method:
            skip[name] = "dpspec.fast.calibrate_sigma has no method argument (the tight calibration is not there yet)"

        def dp(n=n):
            with torch_threads(n):
                t0 = time.perf_counter()
                s = dpspec.fast.calibrate_sigma(eps, delta, q, T, method="pld")
                return {"seconds": time.perf_counter() - t0, "sigma": float(s)}
        tasks[name] = dp

    def op():
        from opacus.accountants.utils import get_noise_multiplier

        t0 = time.perf_counter()
        s = get_noise_multiplier(target_epsilon=eps, target_delta=delta, sample_rate=q, steps=T, accountant="prv")
        return {"seconds": time.perf_counter() - t0, "sigma": float(s)}
    tasks["opacus.prv"] = op
    tasks = {k: v for k, v in tasks.items() if args.libs is None or k in args.libs}
    skip = {k: v for k, v in skip.items() if k in tasks}
    rows = interleaved(tasks, args.repeats, args.limit, args.repeat_limit, skip)
    from dpspec.fast import Accountant

    for name, row in rows.items():
        if row["runs"]:
            best = {"seconds": min(x["seconds"] for x in row["runs"]), "sigma": row["runs"][-1]["sigma"]}
            try:  # the certified ε interval at that σ (dpspec's PLD accountant, default width)
                with time_limit(args.limit):
                    lo, hi = Accountant().sgm(q, best["sigma"], T).epsilon_interval(delta)
                best.update(certified_eps_lower=lo, certified_eps_upper=hi, within_target=hi <= eps)
            except Exception as exc:
                best["certified"] = f"{type(exc).__name__}: {exc}"
            row["best"] = best
        print(f"  {name:18s} " + (f"{row['best']}" if row.get("best") else f"{row['status']}: {row.get('why', '')}"),
              flush=True)
    return {"eps": eps, "delta": delta, "q": q, "steps": T, "rows": rows}


# -- provenance ----------------------------------------------------------------------------------------------

def _versions() -> dict:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for pkg in ("torch", "numpy", "scipy", "opacus", "dp-accounting", "prv-accountant"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def _source_hash() -> str:
    h = hashlib.sha256()
    for rel in ("fast/base/pld.py", "fast/base/pld_pairs.py", "fast/accountant.py", "fast/mechanisms.py"):
        p = ROOT / rel
        h.update(p.read_bytes() if p.exists() else b"")
    return h.hexdigest()[:16]


def machine() -> dict:
    import torch

    return {"platform": platform.platform(), "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(), "python": sys.version.split()[0],
            "gpu": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
            "versions": _versions(), "dpspec_pld_sources_sha256": _source_hash()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, help="T of the headline and calibration cases (10⁴; quick 10³)")
    ap.add_argument("--distinct", type=int, help="hetero_a: distinct sigma, T/distinct steps each (100; quick 5)")
    ap.add_argument("--hetero-steps", type=int, nargs="*", help="hetero_b: T values (100 1000 10000; quick 20)")
    ap.add_argument("--repeats", type=int, help="rounds (3; quick 1)")
    ap.add_argument("--limit", type=float, help="per-run time limit in seconds (120; quick 10)")
    ap.add_argument("--repeat-limit", type=float, default=30.0, help="a library whose runs took longer runs once")
    ap.add_argument("--threads", type=int, nargs="*", help="torch threads for dpspec (1 2; quick 1)")
    ap.add_argument("--cases", nargs="*", default=["headline", "hetero_a", "hetero_b", "calibration"])
    ap.add_argument("--libs", nargs="*", help="only these rows (dpspec, dpspec.2threads, dp_accounting.pld, "
                                              "opacus.prv, opacus.rdp, dpspec.rdp); default all")
    ap.add_argument("--device", default="cpu", help="dpspec's torch device (Accountant(device=...))")
    ap.add_argument("--quick", action="store_true", help="the small settings above (< 60 s)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "pld.json"))
    args = ap.parse_args(argv)
    for k, v in (QUICK if args.quick else FULL).items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    warnings.filterwarnings("ignore")
    delta = 1e-5
    result = {"command": " ".join([Path(sys.argv[0]).name] + (argv if argv is not None else sys.argv[1:])),
              "quick": args.quick, "delta": delta, "reference_eps": REFERENCE_EPS,
              "settings": {k: getattr(args, k) for k in ("steps", "distinct", "hetero_steps", "repeats", "limit",
                                                          "repeat_limit", "threads", "cases", "libs", "device")},
              "machine": machine(), "load_before": os.getloadavg(), "cases": {}}
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)

    def save():
        result["load_after"] = os.getloadavg()
        out.write_text(json.dumps(result, indent=1, default=str) + "\n")

    peers_all = ("dp_accounting.pld", "opacus.prv", "opacus.rdp", "dpspec.rdp")
    peers_tight = ("dp_accounting.pld", "opacus.prv")
    if "headline" in args.cases:
        result["cases"]["headline"] = case("headline", [(0.01, 1.0, args.steps)], libraries(args, peers_all),
                                           delta, args)
        save()
    if "hetero_a" in args.cases:
        result["cases"]["hetero_a"] = case("hetero_a", hetero_a(args.distinct, max(1, args.steps // args.distinct)),
                                           libraries(args, peers_tight), delta, args)
        save()
    if "hetero_b" in args.cases:
        skip: dict[str, str] = {}
        for n in sorted(args.hetero_steps):
            name = f"hetero_b_T{n}"
            c = case(name, hetero_b(n), libraries(args, peers_tight), delta, args, dict(skip))
            result["cases"][name] = c
            for lib, row in c["rows"].items():
                if row["status"] in ("timed out", "skipped") and lib not in skip:
                    skip[lib] = f"{row['status']} at T = {n}"
            save()
    if "calibration" in args.cases:
        result["cases"]["calibration"] = calibration(args, args.threads)
        save()
    save()
    print(f"wrote {out} (load average before {result['load_before']}, after {result['load_after']})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
