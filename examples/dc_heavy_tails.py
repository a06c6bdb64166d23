"""DC-DPSGD (seed 004, "Clip Body and Tail Separately", arXiv 2405.17529v1, Algorithm 1) against DP-SGD on heavy-tailed
data at the SAME sound (ε, δ): accuracy (or excess risk), and ε as the paper claims it vs as dpspec certifies it.
No download: one task is generated, the other is scikit-learn's bundled digits set made heavy-tailed.

Tasks
* ``regression`` — synthetic least squares with sub-Weibull noise whose constants are all known (the "known problem"
  of notes dc-dpsgd.md §2 A3.2/A3.3): x ~ N(0, I_d/d), y = xᵀw* + ξ, ξ = s·W with s a random sign and W
  Weibull(shape 1/θ, scale λ), so ξ is sub-Weibull(θ) with K_θ = 2^θ λ (notes §4.5: K̂ of a Weibull law is 2^θ λ;
  Assumption 3.1, L117–L119). β (Assumption 3.2) = λ_max(XᵀX)/n of the training design; the metric is the test excess
  risk (1/2)E(xᵀ(w − w*))², exact for the Gaussian design: ‖w − w*‖²/(2d).
* ``digits`` — scikit-learn's 8×8 digits (1797 × 64, 10 classes; bundled with the package), a fixed-seed 70/30 split;
  the TRAINING classes are cut to the long-tailed profile int(n_max·ρ^{i/9}) (ρ = 0.1; the CIFAR10-HT construction of
  the paper's G.1 with imbalance 0.01, notes §5.6, made milder for 1.3k images), and a fraction (5 %) of the training
  rows is multiplied by a Pareto(α = 1.5) factor (infinite variance: heavy-tailed per-sample gradient norms, the
  paper's motivation, notes §6 dc.E12). Softmax regression (10 × 65 parameters with the bias); metric: test accuracy
  on the untouched, balanced test split.

Methods (all Poisson-sampled at rate q, noise on the sum, update w ← w − η·(noisy sum)/(q n)):
* ``dpsgd_c1`` / ``dpsgd_c2`` — DP-SGD clipped at c1 or at c2 (Abadi et al. 2016); σ = calibrate_sigma(ε, δ, q, T).
* ``dc_A`` / ``dc_B`` / ``dc_C`` — DC-DPSGD (tail clipped at c1, body at c2 = c1/10, the paper's defaults, notes §4.1)
  under the three sound readings of notes §3.4, through helper E's operator dpspec.fast.dc.training.DCDPSGD (fresh
  orthonormal sub-Weibull V each step, θ_V = 2, k below; per-sample directions; noisy trace scores with σ_tr = σ_dp,
  the paper's recipe; ONE noise vector N(0, σ_dp²c1² I) on the clipped sum): (A) top-⌊pB⌋ selection kept internal,
  σ_dp = σ(2 − c2/c1); (B) a fixed score threshold τ (E's default_tau: the (1 − p) quantile of a random direction's
  noisy score), σ_dp = σ; (C) the two-component view, σ_tr = σ_dp = σ√(1 + (2 − c2/c1)²) (its gradient part pays A's
  selection cost 2c1 − c2: top-⌊pB⌋ on released scores still moves a shared sample tail → body). Each has effective
  multiplier σ_eff = σ, so
  each is (ε, δ)-DP exactly as DP-SGD is (every sound reading is a Poisson-subsampled Gaussian at σ_eff; the
  operator records it, helper H's dc_epsilon certifies it).
* ``published`` — the authors' public code's step (notes §4.3; dpspec.fast.dc.published.published_step): σ from the
  paper's recipe (RDP calibration for ε/2, used for both the trace and the gradient noise). Its effective multiplier
  is ≈ 0.1345σ (notes §3.2, dc.E6): the certified ε is printed next to the claimed one.

Columns: ``claimed ε`` is what the paper's Theorem 5.1 recipe claims for the noise used (ε_tr + ε_dp, each the RDP
ε of its own σ over T steps at q, as dpspec.fast.dc.accounting.paper_claimed_epsilon; DP-SGD: ε_dp alone);
``certified ε`` is dpspec's sound ε(δ) of the method as run (RDP; ``--pld`` for the tight PLD accountant's certified
upper end). One RDP calibration gives σ (and one more the recipe's σ for ε/2); all accounting is one vectorised call.
Hyperparameters are FIXED (nothing tuned): q = 0.05, T = 200 for both tasks, η and k per task (TASKS), c1, c2, p.
Metric: mean ± standard error over seeds.

What it shows (``--quick``, 2 seeds, ε = 4, δ = 1e-5; measured 2026-11-27): every sound DC-DPSGD reading is
certified at exactly the target ε, and on these data none beats DP-SGD clipped at c1 (digits: 0.70 accuracy vs
0.19–0.35): under a sound account the noise scales with c1 while 90 % of the gradients are clipped to c2 = c1/10,
and the per-sample-direction trace scores do not find the large-norm samples (notes dc.E5). The public code's step is
"claimed" ε = 4 by the recipe and certified ε ≈ 183.

    .venv/bin/python examples/dc_heavy_tails.py --quick          # 2 seeds, both tasks; ~1 min CPU (+ calibration)
    .venv/bin/python examples/dc_heavy_tails.py --seeds 5 --pld --out dc_heavy_tails.png
"""
from __future__ import annotations

import argparse
import math
import time

import torch

DELTA = 1e-5
EPS = 4.0
C1, C2 = 1.0, 0.1  # c1 = 10·c2, the paper's default (§6.1 L268; notes §4.1)
P_TAIL = 0.1  # tail ratio p (notes §4.1)
Q, STEPS = 0.05, 200  # shared by both tasks: one calibration serves every method (σ_eff = σ, module docstring)
TASKS = {
    # k: the projection dimension (the paper's 200 needs d ≥ 200; these models have d = 10 and 650); η the step size
    "regression": {"n": 2000, "d": 10, "theta": 2.0, "lam": 0.5, "k": 5, "lr": 0.5},
    "digits": {"rho": 0.1, "corrupt": 0.05, "pareto": 1.5, "k": 50, "lr": 2.0},
}
METHODS = ("dpsgd_c1", "dpsgd_c2", "dc_A", "dc_B", "dc_C", "published")
DC_READINGS = {"dc_A": "A", "dc_B": "B", "dc_C": "C"}


# ---------------------------------------------------------------------------------------------------------------
# data


def regression_data(n: int, d: int, theta: float, lam: float, seed: int = 0) -> dict:
    """The known problem: X (n × d, rows N(0, I/d)), w* = 1/√d·(1, …, 1), y = Xw* + ξ with ξ = ±Weibull(1/θ, λ)
    (sub-Weibull(θ) with K_θ = 2^θ λ; notes §4.5). Returns train/test tensors and the constants (K, θ, β)."""
    gen = torch.Generator().manual_seed(seed)
    weib = torch.distributions.Weibull(torch.tensor(lam, dtype=torch.float64),
                                       torch.tensor(1.0 / theta, dtype=torch.float64))

    def draw(m):
        x = torch.randn(m, d, generator=gen, dtype=torch.float64) / math.sqrt(d)
        sign = torch.randint(0, 2, (m,), generator=gen).to(torch.float64) * 2 - 1
        torch.manual_seed(int(torch.randint(0, 2**31 - 1, (1,), generator=gen)))  # Weibull has no generator arg
        return x, sign * weib.sample((m,))

    w_star = torch.full((d,), 1.0 / math.sqrt(d), dtype=torch.float64)
    xtr, ntr = draw(n)
    xte, nte = draw(n)
    beta = float(torch.linalg.eigvalsh(xtr.T @ xtr / n)[-1])
    constants = {"theta": theta, "K": 2.0**theta * lam, "beta": round(beta, 4)}
    try:  # helper A's Orlicz K̂_θ of the drawn noise (the quantity Assumption 3.1 bounds): ≈ K for large n
        from dpspec.reference.dc.subweibull import orlicz_k

        constants["K_hat"] = round(float(orlicz_k(ntr.numpy(), theta)), 4)
    except ImportError:  # pragma: no cover - helper A's module is part of the package
        pass
    return {"train": (xtr, xtr @ w_star + ntr), "test": (xte, xte @ w_star + nte), "w_star": w_star,
            "constants": constants}


def digits_data(rho: float, corrupt: float, pareto: float, seed: int = 0) -> dict:
    """scikit-learn's digits, 70/30 split (fixed seed), features scaled to [0, 1] (÷16) plus a bias column; the
    training classes cut to int(n_max·ρ^{i/9}) (a long-tailed profile, notes §5.6's CIFAR10-HT formula) and a
    fraction ``corrupt`` of the kept training rows multiplied by Pareto(α = ``pareto``) factors ≥ 1."""
    try:
        from sklearn.datasets import load_digits
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise SystemExit("this example needs scikit-learn: pip install -c constraints.txt -e '.[examples]'") from exc
    bunch = load_digits()
    x = torch.tensor(bunch.data, dtype=torch.float64) / 16.0
    x = torch.cat([x, torch.ones(len(x), 1, dtype=torch.float64)], 1)
    y = torch.tensor(bunch.target, dtype=torch.long)
    gen = torch.Generator().manual_seed(seed)
    perm = torch.randperm(len(y), generator=gen)
    cut = int(0.7 * len(y))
    tr, te = perm[:cut], perm[cut:]
    keep = []
    n_max = int(min((y[tr] == c).sum() for c in range(10)))
    for c in range(10):
        idx = tr[y[tr] == c]
        keep.append(idx[: max(1, int(n_max * rho ** (c / 9)))])
    tr = torch.cat(keep)
    xtr, ytr = x[tr].clone(), y[tr]
    hit = torch.rand(len(ytr), generator=gen, dtype=torch.float64) < corrupt
    u = torch.rand(len(ytr), generator=gen, dtype=torch.float64)
    xtr[hit] = xtr[hit] * u[hit].pow(-1.0 / pareto)[:, None]  # Pareto(α) by inversion: U^{−1/α} ≥ 1
    return {"train": (xtr, ytr), "test": (x[te], y[te]), "constants": {"corrupted": int(hit.sum()), "pareto": pareto,
                                                                        "class_counts": [len(k) for k in keep]}}


# ---------------------------------------------------------------------------------------------------------------
# models: per-sample gradients in closed form (linear models), metrics


def per_sample_grads(task: str, w: torch.Tensor, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """(B, dim w) per-sample gradients: least squares (xᵀw − y)x, or softmax cross-entropy (softmax(Wx) − e_y)xᵀ
    flattened (W is 10 × d, stored as a vector)."""
    if task == "regression":
        return (x @ w - y)[:, None] * x
    logits = x @ w.reshape(10, -1).T
    r = torch.softmax(logits, 1)
    r[torch.arange(len(y)), y] -= 1.0
    return (r[:, :, None] * x[:, None, :]).reshape(len(y), -1)


def metric(task: str, w: torch.Tensor, data: dict) -> float:
    """regression: the test excess risk ‖w − w*‖²/(2d) (exact for the N(0, I/d) design); digits: test accuracy."""
    if task == "regression":
        return float(((w - data["w_star"]) ** 2).sum() / (2 * len(w)))
    x, y = data["test"]
    return float(((x @ w.reshape(10, -1).T).argmax(1) == y).double().mean())


def dim(task: str, data: dict) -> int:
    d = data["train"][0].shape[1]
    return d if task == "regression" else 10 * d


# ---------------------------------------------------------------------------------------------------------------
# training: plain SGD from w = 0, w ← w − η·(noisy clipped sum)/(q n) on Poisson batches


def poisson_batch(n: int, q: float, gen: torch.Generator) -> torch.Tensor:
    return torch.nonzero(torch.rand(n, generator=gen, dtype=torch.float64) < q).reshape(-1)


def dpsgd_sum(grads: torch.Tensor, clip: float, sigma: float, gen: torch.Generator) -> torch.Tensor:
    """Σ_i g_i·min(1, c/‖g_i‖) + N(0, σ²c² I) (Abadi et al. 2016, Algorithm 1)."""
    norms = torch.linalg.vector_norm(grads, dim=1).clamp(min=1e-300)
    clipped = (grads * torch.clamp(clip / norms, max=1.0)[:, None]).sum(0)
    return clipped + sigma * clip * torch.randn(grads.shape[1], generator=gen, dtype=torch.float64)


class Run:
    """One training run of ``method``; ``sigma_eff`` is the effective multiplier its accountant records."""

    def __init__(self, method: str, task: str, data: dict, sigma_dp: float, sigma_tr: float | None, q: float,
                 lr: float, k: int, seed: int):
        self.method, self.task, self.data, self.q, self.lr = method, task, data, q, lr
        self.n = len(data["train"][1])
        self.gen = torch.Generator().manual_seed(seed)
        self.w = torch.zeros(dim(task, data), dtype=torch.float64)
        self.sigma_dp, self.sigma_tr, self.k = sigma_dp, sigma_tr, k
        self.opt = None
        if method in DC_READINGS:  # helper E's operator (late import): the sound DC-DPSGD step + its accountant
            from dpspec.fast.dc.training import DCDPSGD

            self.w = torch.nn.Parameter(self.w)
            self.opt = DCDPSGD([self.w], lr=lr, c1=C1, c2=C2, sigma_dp=sigma_dp, sample_rate=q,
                               expected_batch_size=q * self.n, k=k, reading=DC_READINGS[method], p_tail=P_TAIL,
                               sigma_tr=sigma_tr, generator=self.gen)
            self.sigma_eff = self.opt.sigma_eff
        elif method == "published":
            from dpspec.fast.dc.accounting import dc_sigma_eff

            self.sigma_eff = float(dc_sigma_eff("B", sigma_dp, C1, C2, noise="published", p_tail=P_TAIL))
        else:
            self.sigma_eff = sigma_dp  # DP-SGD: Δ = c, noise σc

    def step(self) -> None:
        x, y = self.data["train"]
        idx = poisson_batch(self.n, self.q, self.gen)
        w = self.w.detach()
        grads = per_sample_grads(self.task, w, x[idx], y[idx])
        if self.opt is not None:
            self.opt.step([grads])
            return
        if self.method == "published":
            if len(idx) == 0:
                return  # the public code takes the mean of a non-empty batch (its loaders never give an empty one)
            from dpspec.fast.dc.published import published_step

            noisy = published_step(grads, self.sigma_dp, C1, C2, P_TAIL, self.k, self.gen).noisy_sum
        else:
            noisy = dpsgd_sum(grads, C1 if self.method == "dpsgd_c1" else C2, self.sigma_dp, self.gen)
        self.w = w - self.lr * noisy / (self.q * self.n)

    def train(self, steps: int) -> torch.Tensor:
        for _ in range(steps):
            self.step()
        return self.w.detach()


# ---------------------------------------------------------------------------------------------------------------
# privacy: one SGM calibration per target; every sound reading reuses it (σ_eff = σ)


def sound_sigma(eps: float, q: float, steps: int) -> float:
    """σ with ε(δ) ≤ eps after T Poisson-subsampled Gaussian steps (dpspec.fast.accountant.calibrate_sigma, RDP)."""
    from dpspec.fast.accountant import calibrate_sigma

    return float(calibrate_sigma(eps, DELTA, q, steps, method="rdp", rtol=1e-3))


def reading_sigmas(method: str, sigma: float, paper_sigma: float) -> tuple[float, float | None]:
    """(σ_dp, σ_tr) per method: DP-SGD σ (no trace step); (A) σ(2 − c2/c1) so that σ_eff = σ_dp·c1/(2c1 − c2) = σ;
    (B) σ; (C) σ√(1 + a²), a = 2 − c2/c1, so that (σ_tr⁻² + a²σ_dp⁻²)^{−1/2} = σ (notes §3.4 with C's gradient
    part Δ_gp = 2c1 − c2, as the operator's top-⌊pB⌋ selection needs); the public code the recipe's σ. The DC runs use
    σ_tr = σ_dp, the paper's recipe (Thm 5.1 needs σ_tr > 0 for its claim); in (A) and (B) the trace noise has no
    privacy role (it only blurs the selection)."""
    if method == "dc_A":
        return sigma * (2 - C2 / C1), sigma * (2 - C2 / C1)
    if method == "dc_B":
        return sigma, sigma
    if method == "dc_C":
        s = sigma * math.hypot(1.0, 2 - C2 / C1)
        return s, s
    if method == "published":
        return paper_sigma, paper_sigma
    return sigma, None


def epsilons(runs: list[Run], q: float, steps: int, pld: bool) -> list[tuple[float, float]]:
    """(claimed, certified) per run. claimed: what the paper's recipe says for the noise used — ε_tr + ε_dp, each the
    RDP ε of ONE subsampled Gaussian at its σ (helper H's paper_claimed_epsilon, vectorised here; DP-SGD: ε_dp alone,
    its standard claim). certified:
    dpspec's ε(δ) of T Poisson-subsampled Gaussian steps at the run's σ_eff (the operator's accountant records exactly
    that: DCDPSGD.sigma_eff; the public code's via dc_sigma_eff(noise="published")) — RDP in ONE vectorised call, or
    the tight PLD accountant's certified upper end with ``pld``."""
    from dpspec.fast.accountant import Accountant, sgm_epsilon

    comps = [[r.sigma_dp] + ([r.sigma_tr] if r.sigma_tr else []) for r in runs]
    sig = [r.sigma_eff for r in runs] + [s for c in comps for s in c]
    eps = sgm_epsilon(torch.tensor(sig, dtype=torch.float64), q, steps, DELTA).tolist()
    cert, rest = eps[:len(runs)], eps[len(runs):]
    if pld:
        cert = [float(Accountant().sgm(q, r.sigma_eff, steps).get_epsilon(DELTA)) for r in runs]
    out, i = [], 0
    for c, cc in zip(cert, comps):
        out.append((sum(rest[i:i + len(cc)]), c))
        i += len(cc)
    return out


# ---------------------------------------------------------------------------------------------------------------
# the run


def mean_se(values):
    m = sum(values) / len(values)
    if len(values) < 2:
        return m, 0.0
    return m, math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1) / len(values))


def run_task(task: str, args, sigma: float, paper_sigma: float) -> dict:
    """Train every method of ``args.methods`` on ``task``, ``args.seeds`` runs each; returns the task's data summary
    and, per method, (method, first run, metrics, seconds per run)."""
    cfg = TASKS[task]
    data = (regression_data(args.n or cfg["n"], cfg["d"], cfg["theta"], cfg["lam"]) if task == "regression"
            else digits_data(cfg["rho"], cfg["corrupt"], cfg["pareto"]))
    results = []
    for method in args.methods:
        s_dp, s_tr = reading_sigmas(method, sigma, paper_sigma)
        t0 = time.perf_counter()
        runs = [Run(method, task, data, s_dp, s_tr, args.q, cfg["lr"], cfg["k"], seed) for seed in range(args.seeds)]
        vals = [metric(task, r.train(args.steps), data) for r in runs]
        results.append((method, runs[0], vals, (time.perf_counter() - t0) / args.seeds))
    return {"task": task, "data": data, "cfg": cfg, "results": results}


def print_task(done: dict, eps: list[tuple[float, float]], args, out_rows: list) -> None:
    task, data, cfg = done["task"], done["data"], done["cfg"]
    n = len(data["train"][1])
    what = "test excess risk" if task == "regression" else "test accuracy"
    print(f"\n[{task}] n = {n}, dim w = {dim(task, data)}, q = {args.q}, T = {args.steps}, η = {cfg['lr']}, "
          f"c1 = {C1}, c2 = {C2}, p = {P_TAIL}, k = {cfg['k']}; {data['constants']}")
    header = (f"{'method':>10} | {what:>20} | {'σ_dp':>7} {'σ_tr':>7} {'σ_eff':>7} | {'claimed ε':>10} "
              f"{'certified ε':>12} | {'s/run':>6}")
    print(header)
    print("-" * len(header))
    for (method, run, vals, secs), (claim, cert) in zip(done["results"], eps):
        m, se = mean_se(vals)
        s_tr = f"{run.sigma_tr:7.4f}" if run.sigma_tr else f"{'-':>7}"
        flag = " (!)" if cert > 10 * args.eps else ""
        print(f"{method:>10} | {m:>11.4g} ±{se:>7.2g} | {run.sigma_dp:>7.4f} {s_tr} {run.sigma_eff:>7.4f} | "
              f"{claim:>10.4g} {cert:>12.4g}{flag} | {secs:>6.2f}")
        out_rows.append({"task": task, "method": method, "metric": m, "se": se, "sigma_dp": run.sigma_dp,
                         "sigma_tr": run.sigma_tr, "sigma_eff": run.sigma_eff, "claimed_eps": claim,
                         "certified_eps": cert, "q": args.q, "steps": args.steps, "n": n})


def main(argv=None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="2 seeds")
    ap.add_argument("--seeds", type=int, default=None, help="runs per method (default 5; --quick 2)")
    ap.add_argument("--eps", type=float, default=EPS, help=f"the target ε at δ = {DELTA:g} (default {EPS:g})")
    ap.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    ap.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    ap.add_argument("--q", type=float, default=Q, help=f"Poisson sampling rate (default {Q})")
    ap.add_argument("--steps", type=int, default=STEPS, help=f"T (default {STEPS})")
    ap.add_argument("--n", type=int, default=None, help="override the regression n (tests)")
    ap.add_argument("--sigma", type=float, default=None, help="skip the sound calibration: use this σ")
    ap.add_argument("--paper-sigma", type=float, default=None, help="skip the recipe's calibration: use this σ")
    ap.add_argument("--pld", action="store_true", help="certify with the tight PLD accountant (slower)")
    ap.add_argument("--out", default="", help="PNG plot path ('' for none)")
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    args.seeds = args.seeds or (2 if args.quick else 5)
    t0 = time.perf_counter()
    sigma = args.sigma or sound_sigma(args.eps, args.q, args.steps)
    paper_sigma = args.paper_sigma or sound_sigma(args.eps / 2, args.q, args.steps)  # the recipe: ε/2 by RDP
    print(f"(ε, δ) = ({args.eps:g}, {DELTA:g}), q = {args.q}, T = {args.steps}: sound σ = {sigma:.4f} (every method "
          f"but 'published' has σ_eff = σ); the paper's recipe σ (ε/2 by RDP, for both noises) = {paper_sigma:.4f} "
          f"[{time.perf_counter() - t0:.1f} s]")
    done = [run_task(task, args, sigma, paper_sigma) for task in args.tasks]
    every = [run for d in done for _, run, _, _ in d["results"]]
    eps = epsilons(every, args.q, args.steps, args.pld)  # one accounting call for every run (same q, T)
    rows: list[dict] = []
    for d in done:
        k = len(d["results"])
        print_task(d, eps[:k], args, rows)
        eps = eps[k:]
    print("claimed ε: the paper's recipe for the noise used (ε_tr + ε_dp, each its own RDP accountant: erratum dc.E2);"
          " certified ε: dpspec's sound ε(δ) ('pld' with --pld, else RDP). (!) the public code's noise is ≈ 0.1345σ "
          "relative to its sensitivity c1 (notes §3.2, erratum dc.E6): no meaningful guarantee.")
    if args.out:
        plot(rows, args.out)
    return rows


def plot(rows: list[dict], path: str) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover
        print("matplotlib not installed: no plot")
        return
    tasks = sorted({r["task"] for r in rows})
    fig, axes = plt.subplots(1, len(tasks), figsize=(5.5 * len(tasks), 3.8), squeeze=False)
    for ax, task in zip(axes[0], tasks):
        sub = [r for r in rows if r["task"] == task]
        ax.bar(range(len(sub)), [r["metric"] for r in sub], yerr=[1.96 * r["se"] for r in sub], capsize=3)
        ax.set_xticks(range(len(sub)))
        ax.set_xticklabels([f"{r['method']}\nε≤{r['certified_eps']:.3g}" for r in sub], fontsize=7)
        ax.set_ylabel("test excess risk" if task == "regression" else "test accuracy")
        ax.set_title(f"{task}: same sound (ε, δ) except 'published'", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"plot written to {path}")


if __name__ == "__main__":
    main()
