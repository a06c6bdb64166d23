"""Individual, batch and mixed clipping (Algorithm 1 of seed 002, van Dijk et al., arXiv 2212.05796) at the paper's
σ = 2: test accuracy, wall time and peak memory per step, and ε(δ) under the A1 (exact q_E mixture, Def 4.2) and A0
(standard DP-SGD) accounting.

Each round draws a batch of B = ms samples (``--sampling``: subsampling, an independent uniform B-subset per round, or
shuffling, one permutation per epoch cut into N/B batches), splits it into m subsets of s, computes eq (6)'s mean
gradient over each subset at the current w, clips each to C, sums, adds N(0, (2Cσ)² I), divides by m and steps
(dpspec.fast.bc.training). The three methods share B (seed 002 §5): IC s = 1, m = B (DP-SGD); BC m = 1, s = B; MC
s = ``--mc-s``, m = B/s. The learning rate is multiplied by γ = 0.9 after an epoch whose test accuracy fell (§5).

Data (no downloads): ``--data digits`` (default) is scikit-learn's bundled handwritten digits (1 797 8×8 images,
10 classes; the ``examples`` extra), ``--n-train`` of them for training (default 1 536 = 24·64, so N/B is an integer
for B | 1536, as Algorithm 1 needs) and the rest for testing, after a fixed-seed shuffle; ``--data blobs`` is a
deterministic 10-class Gaussian-blob problem in R^20 (torch only).

Privacy (dpspec.fast.bc.accounting.report). g = ``--group`` differentiating samples. A1 (seed 002 Def 4.2,
Thm 4.6): ε of the exact mixture Σ q_E(c) δ_{G_{c/σ}}(ε). A0 (DP-SGD's per-round analysis composed, Table 1 row 1 of
seed 002): C_γ(G_{1/σ})^{⊗T}, γ = B/N, over T rounds — fixed-size batches of B of N without replacement,
replace-one neighbours (Dong, Roth & Su, arXiv 1905.02383, Thm 4.2/5.1; the accountant's base.sgm_wor_rdp at noise
2σ, certified PLD interval; the Poisson add/remove number is not a guarantee for this sampler), for subsampling with
g = 1 only; the text has no A0 analysis of shuffling (notes §3.4), so none is printed. The note under the table says which. For g = 1 the A1 number does not depend on how B splits into
m·s (IC, BC and MC share it); the per-step noise does: Ū/m has noise std 2Cσ/m, so BC (m = 1) adds B times more
noise to a mean gradient than IC, and on this small data set (a few hundred rounds, against the paper's ~10^5) BC
and MC train far worse than IC at σ = 2 (seed 002 Table 2 reports comparable accuracies after E = 100 epochs of
MNIST/CIFAR-10 with C tuned per setting).

Per step: the first round is a warm-up (vmap tracing, cuBLAS workspaces), the second measures peak memory (on CUDA
torch.cuda.max_memory_allocated; on CPU the peak of torch's allocation timeline, torch.profiler with profile_memory,
both above the memory held before the step), the rest are timed (wall time per round, CUDA synchronised).

    .venv/bin/pip install -c constraints.txt -e ".[examples]"
    .venv/bin/python examples/train_bc.py --quick            # under a minute on 2 CPU cores
    .venv/bin/python examples/train_bc.py --sampling shuffling --epochs 30 --batch 128 --mc-s 32
    .venv/bin/python examples/train_bc.py --model cnn --device cuda
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time

import torch

from dpspec.fast.bc.training import BatchClippingSGD, BatchSampler

CLASSES, BLOBS_DIM, HIDDEN = 10, 20, 64
DELTA = 1e-5
SIGMA = 2.0  # seed 002 §5: "the used noise is given by σ = 2"
GAMMA = 0.9  # seed 002 §5: the step size is multiplied by γ = 0.9 when test accuracy decreased


def make_digits(n_train: int, seed: int = 0):
    """scikit-learn's bundled digits (no download), pixels in [0, 1], a fixed-seed split: n_train / the rest."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise SystemExit("--data digits needs scikit-learn: pip install -c constraints.txt -e '.[examples]' "
                         "(or use --data blobs)") from exc
    bunch = load_digits()
    x = torch.tensor(bunch.data, dtype=torch.float32) / 16.0
    y = torch.tensor(bunch.target, dtype=torch.long)
    if not 0 < n_train < len(y):
        raise SystemExit(f"--n-train must be in [1, {len(y) - 1}] for digits")
    perm = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))
    return (x[perm[:n_train]], y[perm[:n_train]]), (x[perm[n_train:]], y[perm[n_train:]])


def make_blobs(n_train: int, seed: int = 0):
    """Class means ~ N(0, I) in R^20 (fixed seed), points = mean + N(0, I); n_train training, n_train/4 test points."""
    g = torch.Generator().manual_seed(seed)
    means = torch.randn(CLASSES, BLOBS_DIM, generator=g)

    def draw(n):
        y = torch.randint(0, CLASSES, (n,), generator=g)
        return means[y] + torch.randn(n, BLOBS_DIM, generator=g), y
    return draw(n_train), draw(max(n_train // 4, 100))


def make_model(kind: str, dim: int, seed: int) -> torch.nn.Module:
    """A small MLP (dim → 64 → 10), or for 8×8 digits a LeNet-like CNN (two conv + avg-pool stages, seed 002 §5)."""
    torch.manual_seed(seed)
    if kind == "mlp":
        return torch.nn.Sequential(torch.nn.Linear(dim, HIDDEN), torch.nn.ReLU(), torch.nn.Linear(HIDDEN, CLASSES))
    if dim != 64:
        raise SystemExit("--model cnn needs the 8×8 digits")
    return torch.nn.Sequential(
        torch.nn.Unflatten(-1, (1, 8, 8)),
        torch.nn.Conv2d(1, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.AvgPool2d(2),
        torch.nn.Conv2d(8, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.AvgPool2d(2),
        torch.nn.Flatten(-3), torch.nn.Linear(16 * 2 * 2, CLASSES))


def accuracy(model, x, y) -> float:
    with torch.no_grad():
        return (model(x).argmax(-1) == y).float().mean().item()


@contextlib.contextmanager
def _quiet_stderr():
    """Silence file descriptor 2 (torch's C++ profiler writes "USDT: … profiler_start/stop" lines there on every run);
    Python-level errors raised inside still propagate as exceptions."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
            yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def peak_step_memory(opt: BatchClippingSGD, xb, yb) -> int:
    """Bytes allocated by torch at the peak of one round, above what was held before it (see the module docstring)."""
    if xb.is_cuda:
        torch.cuda.synchronize()
        base = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        opt.step(xb, yb)
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated() - base
    from torch.profiler import ProfilerActivity, profile
    with _quiet_stderr(), profile(activities=[ProfilerActivity.CPU], profile_memory=True) as prof:
        opt.step(xb, yb)
    current = peak = 0
    for event in sorted(prof.events(), key=lambda e: e.time_range.start):
        current += event.self_cpu_memory_usage
        peak = max(peak, current)
    return peak


def train(method: str, m: int, s: int, data, args) -> dict:
    """Algorithm 1 with (m, s) for ``args.epochs`` epochs; returns the row printed by main."""
    (x, y), (x_test, y_test) = data
    x, y, x_test, y_test = (t.to(args.device) for t in (x, y, x_test, y_test))
    N = len(y)
    model = make_model(args.model, x.shape[1], args.seed).to(args.device)
    gen = torch.Generator(device=args.device).manual_seed(args.seed)
    opt = BatchClippingSGD(model, torch.nn.functional.cross_entropy, lr=args.lr, clip=args.clip, sigma=args.sigma,
                           m=m, s=s, generator=gen)
    sampler = BatchSampler(args.sampling, N, m, s, epochs=1, generator=torch.Generator().manual_seed(args.seed))
    step_time, rounds, timed, memory, accs = 0.0, 0, 0, None, []
    for _ in range(args.epochs):
        for idx in sampler:
            idx = idx.to(args.device)
            if rounds == 0:  # warm-up (vmap tracing, cuBLAS workspaces): neither timed nor measured
                opt.step(x[idx], y[idx])
            elif memory is None:
                memory = peak_step_memory(opt, x[idx], y[idx])
            else:
                t0 = time.perf_counter()
                opt.step(x[idx], y[idx])
                if x.is_cuda:
                    torch.cuda.synchronize()
                step_time += time.perf_counter() - t0
                timed += 1
            rounds += 1
        accs.append(accuracy(model, x_test, y_test))
        if len(accs) >= 2 and accs[-1] < accs[-2]:
            opt.lr *= GAMMA
    return dict(method=method, m=m, s=s, accuracy=accs[-1], rounds=rounds, clipped_fraction=opt.clipped_fraction,
                seconds_per_step=step_time / timed, peak_memory_bytes=memory)


def privacy(sampling: str, N: int, m: int, s: int, g: int, E: int, sigma: float, delta: float):
    """(ε_A1, ε_A0 or None, note) from dpspec.fast.bc.accounting.report: A1 the exact q_E mixture (seed 002 Def 4.2,
    Thm 4.6), A0 the certified upper end of the accountant's PLD interval (subsampling with g = 1 only)."""
    from dpspec.fast.bc.accounting import report
    r = report(sampling=sampling, N=N, m=m, s=s, g=g, E=E, sigma=sigma, delta=delta)
    return r.eps_a1, r.eps_a0, r.a0_note


def _megabytes(n) -> str:
    return f"{n / 2**20:.2f}"


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", choices=["digits", "blobs"], default="digits")
    ap.add_argument("--n-train", type=int, default=None, help="training points N (default 1536 digits, 6400 blobs)")
    ap.add_argument("--model", choices=["mlp", "cnn"], default="mlp")
    ap.add_argument("--sampling", choices=["subsampling", "shuffling"], default="subsampling")
    ap.add_argument("--batch", type=int, default=64, help="batch size B = ms (seed 002 §5: 64 … 1024)")
    ap.add_argument("--mc-s", type=int, default=16, help="s of mixed clipping (m = B/s; seed 002 §5 uses 64)")
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--sigma", type=float, default=SIGMA)
    ap.add_argument("--clip", type=float, default=1.0, help="clipping constant C")
    ap.add_argument("--lr", type=float, default=0.5, help="initial step size η (line 24: w ← w − η Ū/m)")
    ap.add_argument("--group", type=int, default=1, help="group size g of the privacy guarantee")
    ap.add_argument("--delta", type=float, default=DELTA)
    ap.add_argument("--methods", default="IC,BC,MC")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--device", default="cpu", help="cpu, cuda, or cuda:N")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (1 is fastest for these models)")
    ap.add_argument("--quick", action="store_true", help="3 epochs, MLP (under a minute on 2 CPU cores)")
    ap.add_argument("--no-accounting", action="store_true", help="skip the ε computations")
    args = ap.parse_args(argv)
    if args.quick:
        args.epochs, args.model = min(args.epochs, 3), "mlp"
    torch.set_num_threads(args.threads)
    n_train = args.n_train or (1536 if args.data == "digits" else 6400)
    data = make_digits(n_train, args.seed) if args.data == "digits" else make_blobs(n_train, args.seed)
    B = args.batch
    if B % args.mc_s:
        raise SystemExit(f"--mc-s = {args.mc_s} must divide --batch = {B}")
    if args.epochs * (n_train // B) < 3:
        raise SystemExit("need at least 3 rounds (a warm-up, a memory measurement, a timed round): raise --epochs")
    shapes = {"IC": (B, 1), "BC": (1, B), "MC": (B // args.mc_s, args.mc_s)}
    methods = [name.strip() for name in args.methods.split(",")]
    print(f"{args.data}: N = {n_train}, B = {B}, {args.sampling}, E = {args.epochs} "
          f"(T = {args.epochs * n_train // B} rounds), σ = {args.sigma}, C = {args.clip}, η = {args.lr}, "
          f"{args.model} on {args.device}")
    head = f"{'method':<6} {'m':>5} {'s':>5} {'test acc':>9} {'ms/step':>8} {'peak MiB':>9} {'clipped':>8}"
    if not args.no_accounting:
        head += f" {'ε A1':>8} {'ε A0':>8}  (δ = {args.delta:g}, g = {args.group})"
    print(head)
    rows, notes = [], []
    for method in methods:
        m, s = shapes[method]
        row = train(method, m, s, data, args)
        line = (f"{method:<6} {m:>5} {s:>5} {row['accuracy']:>9.2%} {1e3 * row['seconds_per_step']:>8.2f} "
                f"{_megabytes(row['peak_memory_bytes']):>9} {row['clipped_fraction']:>8.1%}")
        if not args.no_accounting:
            eps_a1, eps_a0, note = privacy(args.sampling, n_train, m, s, args.group, args.epochs, args.sigma,
                                           args.delta)
            row.update(eps_a1=eps_a1, eps_a0=eps_a0)
            line += f" {eps_a1:>8.3f} {'—' if eps_a0 is None else f'{eps_a0:.3f}':>8}"
            notes += [note] if note not in notes else []
        print(line, flush=True)
        rows.append(row)
    for note in notes:
        print(note)
    return rows


if __name__ == "__main__":
    main()
