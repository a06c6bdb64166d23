"""DC-DPSGD's accountant as users call it (seed 004, arXiv 2405.17529v1; fast/dc/accounting.py), beside Opacus.

For each of the paper's settings (notes shared/notes/dc-dpsgd.md §2 T5.1 table: ImageNette q = 1000/9469, T = 473,
δ = 1e-4; CIFAR10-HT q = 256/12406, T = 2423, δ = 1e-5; MNIST q = 128/60000, T = 18750, δ = 1e-5; σ_dp = the
table's σ_RDP(ε = 4), c1 = 1, c2 = 0.1) and each sound reading (notes §3.4: B fixed threshold, A internal top-pB,
C the two-component view with σ_tr = σ_dp), with DEFAULT arguments:

* dpspec: ``DcAccountant(reading, c1=1, c2=0.1[, sigma_tr="same"])``, a loop of ``step(noise_multiplier=σ_dp,
  sample_rate=q)`` (T calls), then ``get_epsilon(δ)`` (the certified upper end of the PLD interval);
* Opacus (peers extra; skipped cleanly if missing): ``RDPAccountant`` and ``PRVAccountant`` on the EQUIVALENT
  SGM — the same loop with ``noise_multiplier=σ_eff`` (dc_sigma_eff: what Opacus would need to be told; Opacus has
  no notion of the readings), then ``get_epsilon(δ)``.

Interleaved (every accountant once per round), best of ``--repeats`` rounds per column, one torch thread. Also
one calibration: ``dc_calibrate_sigma("B", 4, δ, q, T, 1, 0.1)`` (PLD, certified by dc_epsilon) beside Opacus'
``get_noise_multiplier(accountant="prv" | "rdp")`` at ImageNette. Prints a table with the time ratios (Opacus /
dpspec: > 1 means dpspec is faster) and ε's, and the command that reproduces it; writes JSON (``--out``).

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_dc.py            # ~3–6 min on the 2-core CPU
    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_dc.py --quick    # ImageNette only, one round (~30 s)

Not run by the tests (times are machine-dependent).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "benchmarks" / "results" / "bench_dc.json"
COMMAND = "OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_dc.py"

# notes §2 T5.1 table: (q, T, δ, σ_RDP at ε = 4)
SETTINGS = {
    "ImageNette": (1000 / 9469, 473, 1e-4, 2.5403),
    "CIFAR10-HT": (256 / 12406, 2423, 1e-5, 1.3927),
    "MNIST": (128 / 60000, 18750, 1e-5, 0.7048),
}
READINGS = {"B": None, "A": None, "C": "same"}
C1, C2 = 1.0, 0.1


def _loop(acc, sigma, q, steps, delta):
    t0 = time.perf_counter()
    for _ in range(steps):
        acc.step(noise_multiplier=sigma, sample_rate=q)
    t1 = time.perf_counter()
    eps = acc.get_epsilon(delta)
    t2 = time.perf_counter()
    return {"steps_s": t1 - t0, "epsilon_s": t2 - t1, "total_s": t2 - t0, "eps": float(eps)}


def _peers():
    try:
        from opacus.accountants import PRVAccountant, RDPAccountant
        from opacus.accountants.utils import get_noise_multiplier
    except ImportError:
        return None
    return {"opacus.rdp": RDPAccountant, "opacus.prv": PRVAccountant, "get_noise_multiplier": get_noise_multiplier}


def bench_setting(name, repeats, peers):
    from dpspec.fast.dc.accounting import DcAccountant, dc_sigma_eff

    q, steps, delta, sigma = SETTINGS[name]
    rows = []
    for reading, sigma_tr in READINGS.items():
        s_eff = float(dc_sigma_eff(reading, sigma, C1, C2, sigma_tr))
        makers = {"dpspec": (lambda r=reading, t=sigma_tr: DcAccountant(r, C1, C2, t), sigma)}
        if peers:
            makers["opacus.rdp"] = (peers["opacus.rdp"], s_eff)
            makers["opacus.prv"] = (peers["opacus.prv"], s_eff)
        best: dict[str, dict] = {}
        for _ in range(repeats):
            for label, (make, s) in makers.items():
                try:
                    r = _loop(make(), s, q, steps, delta)
                except Exception as exc:  # a peer's failure is a result, not a crash
                    r = {"total_s": float("inf"), "error": f"{type(exc).__name__}: {exc}"[:200]}
                if label not in best or r["total_s"] < best[label]["total_s"]:
                    best[label] = r
        rows.append({"setting": name, "reading": reading, "q": q, "steps": steps, "delta": delta,
                     "sigma_dp": sigma, "sigma_eff": s_eff, "results": best})
    return rows


def bench_calibration(peers):
    from dpspec.fast.dc.accounting import dc_calibrate_sigma, dc_epsilon_interval

    q, steps, delta, _ = SETTINGS["ImageNette"]
    out = {"setting": "ImageNette", "target_eps": 4.0, "q": q, "steps": steps, "delta": delta}
    t0 = time.perf_counter()
    s = dc_calibrate_sigma("B", 4.0, delta, q, steps, C1, C2)
    out["dpspec"] = {"s": time.perf_counter() - t0, "sigma": s,
                     "certified_interval": list(dc_epsilon_interval("B", q, steps, delta, s, C1, C2))}
    if peers:
        for acct in ("prv", "rdp"):
            t0 = time.perf_counter()
            try:
                sp = peers["get_noise_multiplier"](target_epsilon=4.0, target_delta=delta, sample_rate=q,
                                                   steps=steps, accountant=acct)
                out[f"opacus.{acct}"] = {"s": time.perf_counter() - t0, "sigma": float(sp),
                                         "dpspec_interval_at_sigma": list(
                                             dc_epsilon_interval("B", q, steps, delta, float(sp), C1, C2))}
            except Exception as exc:
                out[f"opacus.{acct}"] = {"error": f"{type(exc).__name__}: {exc}"[:200]}
    return out


def _fmt(r):
    if "error" in r:
        return "error"
    return f"{r['steps_s']:.3f} + {r['epsilon_s']:.3f} = {r['total_s']:.3f} s, eps {r['eps']:.6g}"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--settings", nargs="*", default=list(SETTINGS), choices=list(SETTINGS))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="ImageNette only, one round")
    ap.add_argument("--no-calibration", action="store_true")
    ap.add_argument("--out", default=str(DEFAULT_OUT))
    args = ap.parse_args(argv)
    if args.quick:
        args.settings, args.repeats = ["ImageNette"], 1
    warnings.filterwarnings("ignore")
    import torch

    torch.set_num_threads(1)
    peers = _peers()
    if peers is None:
        print("opacus not installed (the peers extra): dpspec only, no ratios")
    rows = []
    for name in args.settings:
        rows += bench_setting(name, args.repeats, peers)
    print(f"{'setting':11} {'rd':2} {'σ_eff':>7}  accountant: steps + get_epsilon = total, ε   [Opacus/dpspec]")
    for row in rows:
        base = row["results"]["dpspec"]
        for label, r in row["results"].items():
            ratio = "" if label == "dpspec" or "error" in r else f"   [{r['total_s'] / base['total_s']:.2f}×]"
            print(f"{row['setting']:11} {row['reading']:2} {row['sigma_eff']:7.4f}  {label:10}: {_fmt(r)}{ratio}")
    calibration = None if args.no_calibration else bench_calibration(peers)
    if calibration:
        print("calibration (ImageNette, ε = 4, reading B):", json.dumps(calibration, default=float))
    load = os.getloadavg() if hasattr(os, "getloadavg") else None
    result = {"command": COMMAND + (" --quick" if args.quick else ""), "machine": platform.platform(),
              "processor": platform.processor(), "torch": torch.__version__, "load_average": load,
              "opacus": __import__("opacus").__version__ if peers else None, "repeats": args.repeats,
              "rows": rows, "calibration": calibration}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1, default=float) + "\n")
    print(f"wrote {args.out}\nreproduce: {result['command']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
