"""The comparison of seed 003 Sec. 4.5 / Fig 4.2 (notes objpert-rdp.md §4 A2, A4–A6, A9): Algorithm 7 (approximate
minima perturbation with gradient clipping) against DP-SGD at the same (ε, δ) for logistic regression, on
scikit-learn's bundled breast-cancer data (no download; the thesis' datasets are not bundled anywhere). Used by
``examples/objpert_amp_vs_dpsgd.py`` (the printed table) and ``dpspec figures objpert-rdp`` (table CSV + plot).

Data: 569 × 30, binary; a fixed-seed 80/20 split (455 train, 114 test); features standardised with the TRAINING mean
and standard deviation (non-private pre-processing, the same for both methods, not accounted), rows scaled to ‖x‖ = 1
(a per-record transform, free) and a bias 1 appended (notes §4 A9): ‖x‖ = √2, so for the logistic loss (labels ±1)
L = sup|f'|·‖x‖ = √2 and β = sup f''·‖x‖² = 1/2 (notes §6 E20).

Algorithm 7 (fast.objpert.algorithms.alg7_amp): C = √2 (a no-op here), τ = 0.01, σ_out = 0.15 (the thesis' values),
(σ, λ) by the Sec. 4.5 rule with f = 1.3 (fast.objpert.calibration.amp_calibrate, RDP conversion), L-BFGS until
‖∇L^P_C‖ ≤ τ (verified). DP-SGD: Poisson sampling with expected batch 64 (q = 64/455), per-example gradients clipped
at C = √2, N(0, σ²C²) on the sum, plain SGD on the mean for 20 epochs (T = ⌈20/q⌉ steps); σ from dpspec's tight
accountant (``calibrate_sigma(..., method="pld")``).

Three protocols per ε:
* fixed — nothing tuned (DP-SGD learning rate 0.5; Algorithm 7 has no privacy-free hyperparameter that matters: the
  minimiser is unique up to τ);
* dishonest — DP-SGD's learning rate chosen as the best of the grid LR_GRID (validation accuracy), the selection not
  charged (the thesis' A5);
* honest — Poisson(µ) random search (Papernot & Steinke 2022, arXiv 2110.03620, Thm 6; fast.objpert.tuning), µ =
  15.4066 (P[K > 10] = 0.9, the thesis' µ ≈ 15.4), charged to BOTH methods the same way: each calibrates its noise so
  that the TUNED release is (ε, δ)-DP (its RDP curve through Thm 6 and BBG+20's conversion). DP-SGD draws its
  learning rate from LR_GRID per run; Algorithm 7 repeats with the same (σ, λ) (fresh b and output noise: selecting
  the best of K noisy releases is what is charged). Selection by accuracy on a VALIDATION half of the held-out rows
  (57 of 114), every protocol's reported accuracy on the other half (57): the thesis' code selects by test accuracy
  (notes A6), which would report the maximum of ~15 noisy test accuracies as the result.
  For Algorithm 7 the tuned calibration keeps the Sec. 4.5 rule: (σ, λ) = amp_calibrate(ε_in) with the largest
  ε_in (bisection, 2 % in ε_in) whose tuned ε is ≤ ε. Both honest calibrations use the RDP route (the only one Thm 6
  has), so the honest columns are not comparable with the fixed ones' tight-accountant DP-SGD σ.
"""
from __future__ import annotations

import math
import time

import torch

from .tuning import amp_curve, calibrate_noise, poisson_mean_for, random_search, sgm_curve, tuned_epsilon

DELTA = 1e-5
EPSILONS = (0.1, 0.5, 1.0, 2.0, 4.0, 8.0)
C = math.sqrt(2.0)  # clip norm = L = sup|f'|·‖x‖ with the bias (notes §6 E20)
BETA = 0.5  # sup f''·‖x‖² = (1/4)·2
TAU, SIGMA_OUT, F = 0.01, 0.15, 1.3  # thesis values (notes §4 A2, A4)
BATCH, EPOCHS, LR = 64, 20, 0.5  # DP-SGD, fixed protocol
LR_GRID = tuple(float(v) for v in torch.logspace(-1.5, 0.5, 10, dtype=torch.float64))  # 0.032 … 3.16
MU = poisson_mean_for(10, 0.9)  # 15.4066 (notes §5.1 l. 3862)


def load(seed: int = 0):
    """The breast-cancer data (module docstring). Returns (X_train, y_train), (X_test, y_test) as float64 tensors."""
    try:
        from sklearn.datasets import load_breast_cancer
    except ImportError as exc:  # pragma: no cover - depends on the installed extras
        raise SystemExit("this experiment needs scikit-learn: pip install -c constraints.txt -e '.[examples]'") from exc
    bunch = load_breast_cancer()
    x = torch.tensor(bunch.data, dtype=torch.float64)
    y = torch.tensor(bunch.target, dtype=torch.float64) * 2 - 1
    perm = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))
    cut = int(0.8 * len(y))
    tr, te = perm[:cut], perm[cut:]
    mean, std = x[tr].mean(0), x[tr].std(0)

    def prep(rows):
        z = (rows - mean) / std
        z = z / torch.linalg.vector_norm(z, dim=1, keepdim=True)
        return torch.cat([z, torch.ones(len(z), 1, dtype=z.dtype)], 1)

    return (prep(x[tr]), y[tr]), (prep(x[te]), y[te])


def accuracy(theta: torch.Tensor, X: torch.Tensor, y: torch.Tensor) -> float:
    return float(((X @ theta).sign() == y).double().mean())


def run_amp(train, sigma, lam, seed):
    """One release of Algorithm 7 (L-BFGS); returns (θ, wall seconds)."""
    from .algorithms import alg7_amp

    X, y = train
    t0 = time.perf_counter()
    out = alg7_amp(torch.cat([X, y[:, None]], 1), "logistic", lam, sigma, SIGMA_OUT, TAU, C, generator=seed,
                   solver="lbfgs", x_bound=C)
    return out["output"][0], time.perf_counter() - t0


def run_dpsgd(train, sigma, steps, seed, lr=LR):
    """DP-SGD for logistic regression (labels ±1): Poisson batches at rate q, per-example gradient f'(xᵀθ)x with
    f'(u) = −y·sigmoid(−yu), clipped to C, summed, plus N(0, σ²C²I), divided by the expected batch size."""
    X, y = train
    n, d = X.shape
    q = BATCH / n
    gen = torch.Generator().manual_seed(seed)
    theta = torch.zeros(d, dtype=torch.float64)
    t0 = time.perf_counter()
    for _ in range(steps):
        idx = torch.nonzero(torch.rand(n, generator=gen, dtype=torch.float64) < q).reshape(-1)
        xb, yb = X[idx], y[idx]
        g = (-yb * torch.sigmoid(-yb * (xb @ theta)))[:, None] * xb
        g = g * torch.clamp(C / torch.linalg.vector_norm(g, dim=1).clamp(min=1e-300), max=1.0)[:, None]
        noisy = g.sum(0) + sigma * C * torch.randn(d, generator=gen, dtype=torch.float64)
        theta = theta - lr * noisy / BATCH
    return theta, time.perf_counter() - t0


def dpsgd_sigma(eps, q, steps):
    """σ for T DP-SGD steps at (ε, δ): dpspec's tight accountant (certified PLD upper end); where its lower-side
    construction refuses (a ParameterError) with rtol 1e-3 and 1e-2, the RDP calibration, marked "(rdp)"."""
    from dpspec.reference.errors import ParameterError

    from ..accountant import calibrate_sigma

    for rtol in (1e-3, 1e-2):  # another rtol bisects through other σ (the refusal depends on σ)
        try:
            return float(calibrate_sigma(eps, DELTA, q, steps, method="pld", rtol=rtol)), ""
        except ParameterError:
            pass
    return float(calibrate_sigma(eps, DELTA, q, steps, method="rdp", rtol=1e-3)), " (rdp)"


def dpsgd_sigma_tuned(eps, q, steps, mu=MU):
    """σ for DP-SGD under Poisson(µ) random search: the smallest σ (1e-4 relative) whose T-step RDP curve, through
    Papernot & Steinke Thm 6 and BBG+20, gives ≤ ε at δ."""
    return calibrate_noise(sgm_curve(q, steps), eps, DELTA, mu, 0.3, 1e4)


def amp_calibrate_tuned(eps, mu=MU, rel=0.02):
    """(σ, λ, ε_in) for Algorithm 7 under Poisson(µ) random search: amp_calibrate(ε_in) (the Sec. 4.5 rule) with the
    largest ε_in ∈ (0, ε] (to ``rel``) whose tuned ε (Thm 6, BBG+20) is ≤ ε."""
    from .calibration import amp_calibrate

    def tuned(e_in):
        sigma, lam = amp_calibrate(e_in, DELTA, C, BETA, TAU, SIGMA_OUT, F)
        return tuned_epsilon(amp_curve(lam, BETA, C, TAU, SIGMA_OUT)(sigma), DELTA, mu), sigma, lam

    lo, hi = eps / 8, eps  # ε_in/ε ≈ 0.2 at ε = 1, µ = 15.4 (a small ε_in makes amp_calibrate slow: many λ steps)
    e_lo, s_lo, l_lo = tuned(lo)
    while e_lo > eps:
        lo /= 4
        e_lo, s_lo, l_lo = tuned(lo)
    best = (s_lo, l_lo, lo)
    while hi / lo - 1 > rel:
        mid = math.sqrt(lo * hi)
        e_mid, s_mid, l_mid = tuned(mid)
        if e_mid <= eps:
            lo, best = mid, (s_mid, l_mid, mid)
        else:
            hi = mid
    return best


def nonprivate(train):
    """argmin Σ log(1 + e^{−y xᵀθ}) + (1/2)‖θ‖² (σ = 1e-12 stands in for b = 0) by Newton to τ = 1e-8."""
    from .algorithms import alg7_amp

    X, y = train
    out = alg7_amp(torch.cat([X, y[:, None]], 1), "logistic", 1.0, 1e-12, 1e-12, 1e-8, 10.0, generator=0,
                   solver="newton", x_bound=C)
    return out["theta_tilde"][0]


def mean_se(values):
    m = sum(values) / len(values)
    if len(values) < 2:
        return m, 0.0
    var = sum((v - m) ** 2 for v in values) / (len(values) - 1)
    return m, math.sqrt(var / len(values))


def compare(eps_list=EPSILONS, seeds: int = 10, honest: bool = True, dishonest: bool = True, pld: bool = False,
            mu: float = MU, log=None) -> tuple[list[dict], dict]:
    """The table: one row per ε with the mean ± SE test accuracy over ``seeds`` of each protocol (module docstring),
    the calibrated noise and the mean wall time per run; returns (rows, setting). ``pld``: also Algorithm 7's
    certified PLD ε at the fixed calibration (seconds each). A seed whose honest search drew K = 0 releases nothing:
    it counts as accuracy 0.5 (a constant guess; the thesis does not say)."""
    from .calibration import amp_calibrate, amp_epsilon

    train, held = load()
    half = len(held[1]) // 2
    val, test = (held[0][:half], held[1][:half]), (held[0][half:], held[1][half:])  # selection / report
    n = len(train[1])
    q = BATCH / n
    steps = math.ceil(EPOCHS / q)
    setting = {"n_train": n, "n_val": len(val[1]), "n_test": len(test[1]), "d": int(train[0].shape[1]),
               "delta": DELTA, "q": q,
               "steps": steps, "seeds": seeds, "mu": mu, "lr_grid": LR_GRID,
               "nonprivate_acc": accuracy(nonprivate(train), *test)}
    run_amp(train, 1.0, 1.0, 0)  # warm-up, untimed: torch.optim's first optimiser imports torch._dynamo (seconds)
    rows = []
    for eps in eps_list:
        row = {"eps": eps}
        t0 = time.perf_counter()
        sigma, lam = amp_calibrate(eps, DELTA, C, BETA, TAU, SIGMA_OUT, F)
        acct = amp_epsilon(DELTA, sigma, SIGMA_OUT, lam, BETA, C, TAU, pld=pld, eps_width=1e-3)
        row.update(amp_sigma=sigma, amp_lam=lam, amp_eps_rdp=acct["rdp"],
                   amp_eps_pld=acct["pld"][1] if acct["pld"] else None, amp_cal_s=time.perf_counter() - t0)
        amp = [run_amp(train, sigma, lam, s) for s in range(seeds)]
        t0 = time.perf_counter()
        sg, how = dpsgd_sigma(eps, q, steps)
        row.update(dpsgd_sigma=sg, dpsgd_sigma_how=how.strip(" ()") or "pld", dpsgd_cal_s=time.perf_counter() - t0)
        sgd = [run_dpsgd(train, sg, steps, s) for s in range(seeds)]
        row["amp_acc"], row["amp_se"] = mean_se([accuracy(th, *test) for th, _ in amp])
        row["dpsgd_acc"], row["dpsgd_se"] = mean_se([accuracy(th, *test) for th, _ in sgd])
        row["amp_run_s"] = sum(t for _, t in amp) / seeds
        row["dpsgd_run_s"] = sum(t for _, t in sgd) / seeds
        if dishonest:
            best = [accuracy(max((run_dpsgd(train, sg, steps, 1000 * s + j, lr)[0] for j, lr in enumerate(LR_GRID)),
                                 key=lambda th: accuracy(th, *val)), *test) for s in range(seeds)]
            row["dpsgd_dishonest_acc"], row["dpsgd_dishonest_se"] = mean_se(best)
        if honest:
            row.update(_honest(eps, train, val, test, q, steps, seeds, mu))
        rows.append(row)
        if log:
            log(row)
    return rows, setting


def _honest(eps, train, val, test, q, steps, seeds, mu) -> dict:
    """Poisson(µ) random search for both methods (module docstring), each calibrated for the tuned release."""
    t0 = time.perf_counter()
    s_amp, l_amp, e_in = amp_calibrate_tuned(eps, mu)
    s_sgd = dpsgd_sigma_tuned(eps, q, steps, mu)
    cal = time.perf_counter() - t0
    accs_amp, accs_sgd, ks = [], [], []
    for s in range(seeds):
        gen = torch.Generator().manual_seed(10_000 + s)
        th, k = random_search(lambda h, j: _scored(run_amp(train, s_amp, l_amp, 100 * s + j)[0], val), (None,), mu,
                              gen)
        accs_amp.append(0.5 if th is None else accuracy(th, *test))
        th, k2 = random_search(lambda h, j: _scored(run_dpsgd(train, s_sgd, steps, 100 * s + j, h)[0], val),
                               LR_GRID, mu, gen)
        accs_sgd.append(0.5 if th is None else accuracy(th, *test))
        ks += [k, k2]
    a, a_se = mean_se(accs_amp)
    d, d_se = mean_se(accs_sgd)
    return {"amp_honest_acc": a, "amp_honest_se": a_se, "amp_honest_sigma": s_amp, "amp_honest_lam": l_amp,
            "amp_honest_eps_in": e_in, "dpsgd_honest_acc": d, "dpsgd_honest_se": d_se, "dpsgd_honest_sigma": s_sgd,
            "honest_mean_K": sum(ks) / len(ks), "honest_cal_s": cal}


def _scored(theta, val):
    return accuracy(theta, *val), theta
