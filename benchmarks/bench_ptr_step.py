"""Benchmark 3 (issue 5): one PTR-TMEAN aggregation step (dpspec.fast.ptr.operators.ptr_trimmed_sum) vs a plain
clip-sum-noise DP-SGD step on the same per-sample gradients (batch 256, d = 10^6 by default). Goal: ratio ≤ 1.2.

The DP-SGD step is written out as Opacus' DPOptimizer does it (per-sample norms, clip factor
min(1, R/(||g||+1e-6)), einsum over the batch, + σR·N(0, I)), independently of dpspec. Both steps are timed
best-of-``--reps`` (interleaved, after a warm-up), on the same tensor; on CUDA with synchronisation.

    .venv/bin/python benchmarks/bench_ptr_step.py --out bench_ptr_step.json          # full: 256 × 10^6 float32
    .venv/bin/python benchmarks/bench_ptr_step.py --quick                           # 256 × 10^5, 5 reps
"""
from __future__ import annotations

import argparse
import json
import platform
import statistics
import time

import torch

from dpspec.fast.ptr.operators import ptr_trimmed_sum

# Paper hyperparameters for MNIST (appendix seed 000 B.1.3): R = 1, τ = 0.5, σ = 1.1, δ0 = 1e-8, b = 1; F = 25% of
# the batch (the TSGD+Gaussian value; TSGD+PTR adapts F around it).
CLIP, TAU, SIGMA, DELTA0, B = 1.0, 0.5, 1.1, 1e-8, 1.0


def dpsgd_step(grads: torch.Tensor, clip: float, sigma: float, generator) -> torch.Tensor:
    """Opacus-style clip-sum-noise: Σ_i min(1, R/(||g_i||+1e-6)) g_i + σR·N(0, I)."""
    norms = torch.linalg.vector_norm(grads.reshape(grads.shape[0], -1), dim=1)
    factor = torch.clamp(clip / (norms + 1e-6), max=1.0)
    summed = torch.einsum("i,i...->...", factor, grads)
    return summed + sigma * clip * torch.randn(summed.shape, generator=generator, device=grads.device,
                                               dtype=grads.dtype)


def ptr_step(grads, F, generator):
    return ptr_trimmed_sum(grads, F, TAU, CLIP, B, DELTA0, SIGMA, generator=generator)


def _time(fn, device) -> float:
    if device.type == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    out = fn()
    if device.type == "cuda":
        torch.cuda.synchronize()
    else:
        (out.aggregate if hasattr(out, "aggregate") else out).sum().item()  # force completion, uniformly
    return time.perf_counter() - t0


def run(batch: int, d: int, reps: int, dtype: torch.dtype, device: torch.device, seed: int = 0) -> dict:
    gen = torch.Generator(device=device).manual_seed(seed)
    grads = torch.randn(batch, d, generator=gen, device=device, dtype=dtype)
    grads *= torch.rand(batch, 1, generator=gen, device=device, dtype=dtype) * (2.0 / d ** 0.5)  # norms ~U(0, 2)
    F = batch // 4
    steps = {"dpsgd": lambda: dpsgd_step(grads, CLIP, SIGMA, gen), "ptr": lambda: ptr_step(grads, F, gen)}
    for fn in steps.values():  # warm-up
        _time(fn, device)
    times = {k: [] for k in steps}
    for _ in range(reps):
        for k, fn in steps.items():
            times[k].append(_time(fn, device))
    best = {k: min(v) for k, v in times.items()}
    median = {k: statistics.median(v) for k, v in times.items()}
    return {"batch": batch, "d": d, "dtype": str(dtype).replace("torch.", ""), "device": str(device),
            "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor(),
            "threads": torch.get_num_threads(), "torch": torch.__version__, "reps": reps, "F": F,
            "params": {"clip": CLIP, "tau": TAU, "sigma": SIGMA, "delta0": DELTA0, "b": B},
            "seconds": times, "best_seconds": best, "median_seconds": median,
            "ratio_ptr_over_dpsgd": best["ptr"] / best["dpsgd"], "median_ratio": median["ptr"] / median["dpsgd"],
            "goal_ratio": 1.2, "goal_met": best["ptr"] / best["dpsgd"] <= 1.2}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="d = 10^5 and 5 repetitions")
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--d", type=int, default=None, help="gradient dimension (default 10^6, 10^5 with --quick)")
    ap.add_argument("--reps", type=int, default=None, help="timed repetitions per step (default 15, 5 with --quick)")
    ap.add_argument("--dtype", choices=["float32", "float64"], default="float32")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--out", help="write the JSON result here")
    args = ap.parse_args(argv)
    d = args.d or (10 ** 5 if args.quick else 10 ** 6)
    reps = args.reps or (5 if args.quick else 15)
    result = run(args.batch, d, reps, getattr(torch, args.dtype), torch.device(args.device))
    text = json.dumps(result, indent=2)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    print(f"batch {args.batch}, d {d}, {args.dtype} on {args.device}: DP-SGD {result['best_seconds']['dpsgd']*1e3:.2f} ms, "
          f"PTR {result['best_seconds']['ptr']*1e3:.2f} ms, ratio {result['ratio_ptr_over_dpsgd']:.3f} "
          f"(goal ≤ 1.2: {'met' if result['goal_met'] else 'missed'})")
    return result


if __name__ == "__main__":
    main()
