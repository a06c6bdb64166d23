"""Benchmark of seed 003 ch. 2 + 4's fast path (fast/objpert) on what a user calls with the defaults:

* ``expost``: the exact ex-post pDP of objective perturbation (Cor 2.3.2) for 10⁵ target individuals at d = 50, a
  logistic regression on n = 1000 records (synthetic, seeded, ‖x‖ ≤ 1). Fast: ``expost.expost_loss_glm`` — one
  Cholesky of H and one batched triangular solve (``--device cuda`` to run it on a GPU). Side by side, in the same
  run: (a) a per-target numpy loop over the same formula (H and ∇J built once, one ``np.linalg.solve`` per target —
  the straightforward float64 implementation), timed on ``--loop-targets`` targets and EXTRAPOLATED linearly to 10⁵;
  (b) the mpmath reference ``reference.objpert.expost.expost_loss_glm`` (50 digits, self-checked) on
  ``--ref-targets`` targets, EXTRAPOLATED. Errors: fast against both on the targets they computed.
* ``newton``: Algorithm 1 for 256 noise draws (n = 1000, d = 20, logistic, λ = 1, σ = 5): the batched damped Newton
  (``algorithms.objpert_release``) against helper C's numpy Newton (``reference.objpert.solver.objpert_minimiser``) in
  a loop over ``--ref-draws`` draws, EXTRAPOLATED to 256; error = max |θ_fast − θ_ref|.
* ``profile``: Thm 4.3.1's δ(ε) (``glm_bounds.thm4_3_1``) on 10⁵ (ε, σ) points against the catalogue's reference
  (``Statement.evaluate``) on ``--ref-points`` of them, EXTRAPOLATED.

    OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_objpert.py [--quick] [--out PATH] [--device cpu|cuda]

Torch uses one thread on the CPU; best of ``--repeats`` for the fast side; the machine may be shared (times are noisy).
"""
from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np
import torch

from dpspec.fast.objpert import algorithms as fa, expost as fe, glm_bounds as fg

DEFAULT_OUT = Path(__file__).parent / "results" / "bench_objpert.json"
COMMAND = "OMP_NUM_THREADS=1 .venv/bin/python benchmarks/bench_objpert.py"


def _best(fn, repeats):
    times, out = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return min(times), out


def _data(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(1.0, 2.0, size=(n, 1))
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def bench_expost(targets, loop_targets, ref_targets, repeats, device):
    n, d, lam, sigma = 1000, 50, 2.0, 4.0
    X, y = _data(n, d, 1)
    Xt, yt = _data(targets, d, 2)
    theta = np.random.default_rng(3).normal(size=d) * 0.2
    tX, ty, tXt, tyt, tth = (torch.tensor(a, dtype=torch.float64, device=device) for a in (X, y, Xt, yt, theta))
    t_fast, fast = _best(lambda: fe.expost_loss_glm(tX, ty, tXt, tyt, tth, lam, sigma, "logistic", "out"), repeats)
    signed = fast.signed.cpu().numpy()

    # (a) the per-target numpy loop
    def loop(m):
        u = X @ theta
        s = 1 / (1 + np.exp(-u))
        H = (X.T * (s * (1 - s))) @ X + lam * np.eye(d)
        g = X.T @ (-y / (1 + np.exp(y * u))) + lam * theta
        out = np.empty(m)
        for k in range(m):
            x, yk = Xt[k], yt[k]
            uk = x @ theta
            f1 = -yk / (1 + np.exp(yk * uk))
            f2 = 1 / (1 + np.exp(-uk)) / (1 + np.exp(uk))
            mu = x @ np.linalg.solve(H, x)
            out[k] = -np.log1p(f2 * mu) + f1 * f1 * (x @ x) / (2 * sigma**2) + f1 * (g @ x) / sigma**2
        return out

    t0 = time.perf_counter()
    looped = loop(loop_targets)
    t_loop = (time.perf_counter() - t0) * targets / loop_targets
    err_loop = float(np.max(np.abs(signed[:loop_targets] - looped) / np.maximum(np.abs(looped), 1e-300)))

    # (b) the mpmath reference
    from dpspec.reference.objpert.expost import expost_loss_glm as ref

    t0 = time.perf_counter()
    refs = [float(ref(X, y, Xt[k], yt[k], theta, lam, sigma, "logistic", "out")[0]) for k in range(ref_targets)]
    t_ref = (time.perf_counter() - t0) * targets / ref_targets
    err_ref = max(abs(signed[k] - r) / abs(r) for k, r in enumerate(refs))
    return {"targets": targets, "n": n, "d": d, "fast_s": t_fast, "device": str(device),
            "loop": {"targets_timed": loop_targets, "extrapolated_s": t_loop, "speedup": t_loop / t_fast,
                     "max_rel_err": err_loop},
            "reference": {"targets_timed": ref_targets, "extrapolated_s": t_ref, "speedup": t_ref / t_fast,
                          "max_rel_err": err_ref}}


def bench_newton(draws, ref_draws, repeats):
    from dpspec.reference.objpert.losses import get_loss
    from dpspec.reference.objpert.solver import objpert_minimiser

    n, d, lam, sigma = 1000, 20, 1.0, 5.0
    X, y = _data(n, d, 4)
    rec = np.c_[X, y]
    t_fast, out = _best(lambda: fa.objpert_release(rec, "logistic", lam, sigma, count=draws, generator=7), repeats)
    B = out["b"].numpy()
    loss = get_loss("logistic")
    t0 = time.perf_counter()
    ths = [objpert_minimiser(X, y, loss, lam, B[k]) for k in range(ref_draws)]
    t_ref = (time.perf_counter() - t0) * draws / ref_draws
    err = max(float(np.abs(ths[k] - out["theta"][k].numpy()).max()) for k in range(ref_draws))
    return {"draws": draws, "n": n, "d": d, "fast_s": t_fast, "reference_loop_extrapolated_s": t_ref,
            "reference_draws_timed": ref_draws, "speedup": t_ref / t_fast, "max_abs_err_theta": err}


def bench_profile(points, ref_points, repeats):
    from dpspec.reference import catalogue

    rng = np.random.default_rng(5)
    eps = rng.uniform(0, 5, size=points)
    sigma = 10 ** rng.uniform(-1, 2, size=points)
    te, ts = torch.tensor(eps), torch.tensor(sigma)
    t_fast, fast = _best(lambda: fg.thm4_3_1(te, ts, 20.0, 1.0, 1.0), repeats)
    st = catalogue.get("objpert.thm4_3_1")
    t0 = time.perf_counter()
    refs = [st.evaluate(eps=float(eps[k]), sigma=float(sigma[k]), lam=20, beta=1, L=1).value for k in range(ref_points)]
    t_ref = (time.perf_counter() - t0) * points / ref_points
    errs = [abs(float(fast[k]) - float(r)) / float(r) for k, r in enumerate(refs) if float(r) > 1e-300]
    return {"points": points, "fast_s": t_fast, "reference_extrapolated_s": t_ref, "reference_points_timed": ref_points,
            "speedup": t_ref / t_fast, "max_rel_err": max(errs)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="10⁴ targets, fewer reference points")
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--loop-targets", type=int, default=2000)
    ap.add_argument("--ref-targets", type=int, default=1)
    ap.add_argument("--ref-draws", type=int, default=16)
    ap.add_argument("--ref-points", type=int, default=50)
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    targets = 10**4 if args.quick else 10**5
    result = {
        "command": COMMAND + (" --quick" if args.quick else ""),
        "torch": torch.__version__, "python": platform.python_version(), "machine": platform.machine(),
        "threads": torch.get_num_threads(), "cuda": torch.cuda.is_available(),
        "expost": bench_expost(targets, min(args.loop_targets, targets), 1 if args.quick else args.ref_targets,
                               args.repeats, torch.device(args.device)),
        "newton": bench_newton(64 if args.quick else 256, 4 if args.quick else args.ref_draws, args.repeats),
        "profile": bench_profile(10**4 if args.quick else 10**5, 10 if args.quick else args.ref_points,
                                 args.repeats),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
