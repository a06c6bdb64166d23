"""Figures of seed 004 (DC-DPSGD, "Clip Body and Tail Separately", arXiv 2405.17529v1; seed file
004_18684d5c7944b6f0.txt; notes shared/notes/dc-dpsgd.md), regenerated from the catalogue (``dpspec figures dc``).
The paper has no figure of its bounds: these are the pictures issue 19 asks for — the convergence bounds with their
explicit constants against T, the dc.E9 crossover, and the privacy claim against what dpspec certifies — and the
paper's Figs 3–4 re-run on shipped data (not CIFAR10). Every number is
computed here except the recipe's σ of the four dataset settings (notes §2 T5.1 table: Opacus' RDP calibration for
ε/2 = 4; the ``claimed`` column recomputes ε_tr + ε_dp from it, ≈ 8, which checks them).

Files (each a CSV of the plotted numbers, a PNG and — not with ``--quick`` — a PDF; ``dc_figures.json`` holds every
row):

* ``fig_convergence_dc`` — the explicit right-hand sides of (28) (Thm B.1, DP-SGD clipped at c = 4K log^θ(√T);
  L1088–L1093), (67) (Thm E.1, the light body, c2 = 2√(2a)K log^{1/2}(√T); L1727–L1735) and (68) (the heavy tail,
  c1 = 4^θ·2K log^θ(√T); L1737–L1744), corrected (default) and as printed (dc.E17: 2aK² for 8aK² in (67); (68) without
  K²), at θ ∈ {1/2, 1, 2} against T, with the parameters of notes §2's table: K = β = ΔL = 1, d = 10⁵, n = 5·10⁴,
  ε = 4, δ = 1e-5, B = 256, m2 = 4 (reference: helper C's dpspec.reference.dc.convergence eq28/eq67/eq68, mpmath).
  They bound (1/T)Σ‖∇L_S(w_t)‖² — and are 10⁵–10¹⁰ (vacuous, dc.E17); ``ratio_67_28`` = (67)/(28), the body bound
  over plain DP-SGD's: above 1 at every T plotted (dc.E9).
* ``fig_crossover_dc`` — dc.E9: log10 of the T above which the body threshold c2² = 8aK² log(√T) is below DP-SGD's
  c² = 16K² log^{2θ}(√T), log T = 2(a/2)^{1/(2θ−1)} (helper C's body_beats_dpsgd_log_T; a(θ) of Lemma A.3 by helper
  A's freedman_a): 51.3 at θ = 1 (T ≈ 2.2·10⁵¹), 13.8 at θ = 1.5, 17.4 at θ = 2, 320 at θ = 0.75.
* ``fig_privacy_settings_dc`` — the four dataset settings of notes §3.3 at the recipe's σ (total claim ε = 8): the
  paper's claimed ε_tr + ε_dp (helper H's paper_claimed_epsilon, RDP, the recipe's accountant) against dpspec's
  certified ε(δ) of T steps under readings (A), (B), (C) of notes §3.4 (C with the gradient part's Δ_gp = 2c1 − c2 of
  top-⌊pB⌋ selection, not the notes' c1: MNIST C PLD ε ∈ [72.20, 72.70], RDP 80.1) and of the public code's noise (notes §3.2,
  dc.E6: σ_eff = 0.1345σ) — each a Poisson-subsampled Gaussian at σ_eff (helper H's dc_sigma_eff) composed by dpspec's
  SGM accountant: RDP (``sgm_epsilon``; ``--quick``) or the tight PLD accountant's certified upper end (full run;
  what dc_epsilon(method="pld") returns; the interval's lower end and the RDP value in ``*_pld_lower``, ``*_rdp``;
  at ImageNette also helper B's mpmath reference reading_epsilon, RDP, in ``reference_rdp_*``).
* ``fig_privacy_sigma_dc`` — CIFAR10's (q, T, δ) (notes §3.3): the same five quantities against σ_dp (σ_tr = σ_dp,
  the recipe), RDP.
* ``fig3_training_dc`` — the paper's Fig 3 (L272–L278, "optimization performance during CIFAR10 training") on SHIPPED
  data: training accuracy against the step for DP-SGD clipped at c1 = 1 and at c2 = 0.1 and DC-DPSGD under readings
  A, B, C (helper E's operator DCDPSGD, p = 0.1, k = 50), all at the SAME sound (ε, δ) = (4, 1e-5) (one σ, every
  method's σ_eff = σ; each row carries its certified ε recomputed from the σ_eff its accountant records).
* ``fig4_heatmap_dc`` — the paper's Fig 4 (L304, §6.3: "test accuracy heatmap on CIFAR10 with c1, c2 and η"; c1 ≈ 10c2
  read off it) on the same data: final test accuracy of DC-DPSGD (reading B, the fixed threshold: σ_eff = σ_dp for
  every c1, c2, so one σ serves the grid) over c1/c2 ∈ {1, 10, 100} (1 = DP-SGD), c2 and η.
  Data of both (examples/dc_heavy_tails.py's digits task, reused): scikit-learn's bundled 8×8 digits with
  long-tailed classes and 5 % of the training rows scaled by Pareto(1.5), softmax regression, q = 0.05. What they
  reproduce: the experiments' design (methods at one certified budget; the c1/c2 × c2 × η sweep). What they do
  not: CIFAR10, SimCLRv2/ResNeXt features, the paper's accuracies or its c1 ≈ 10c2 optimum (CIFAR10 is not shipped;
  no downloads). --quick: T = 40, one seed, one η, σ = QUICK_SIGMA (no calibration); full: T = 400 (Fig 3, 3 seeds)
  and T = 200 (Fig 4, 2 seeds, c2 ∈ {0.01, 0.1, 1}, η ∈ {0.5, 2, 8}), σ calibrated by RDP.
"""
from __future__ import annotations

import csv
import functools
import json
import math
import textwrap
import warnings
from pathlib import Path

import mpmath

DPS = 30
THETAS = (0.5, 1.0, 2.0)
# notes §2 (Thm B.1 / E.1 tables) and helper C's CASE_A_NOTE: the parameters of the explicit bounds
CONV = {"K": 1, "beta": 1, "loss_gap": 1, "d": 100000, "n": 50000, "eps": 4, "delta": "1e-5", "batch": 256, "m2": 4}
T_GRID = {"full": tuple(float(f"{10 ** (0.5 + 0.25 * i):.6g}") for i in range(47)),  # 10^0.5 … 10^12
          "quick": (10.0, 1e3, 1e6, 1e9, 1e12)}
CROSS_THETAS = {"full": tuple(round(0.55 + 0.05 * i, 2) for i in range(50)), "quick": (0.75, 1.0, 1.5, 2.0)}
# notes §2 T5.1 table / §3.3: (name, n, B, T, δ, σ for ε/2 = 4 by RDP)
SETTINGS = (("MNIST", 60000, 128, 18750, 1e-5, 0.7048), ("CIFAR10", 50000, 256, 9766, 1e-5, 0.8837),
            ("CIFAR10-HT", 12406, 256, 2423, 1e-5, 1.3927), ("ImageNette", 9469, 1000, 473, 1e-4, 2.5403))
QUICK_SETTINGS = ("MNIST", "ImageNette")
C1, C2, P_TAIL = 1.0, 0.1, 0.1  # c2/c1 = 0.1, p = 10 % (notes §4.1)
SIGMA_GRID = {"full": tuple(round(0.4 * 1.15 ** i, 4) for i in range(22)), "quick": (0.7, 2.0)}
QUANTITIES = ("claimed", "A", "B", "C", "published")
_STYLE = {"claimed": ("paper's claim ε_tr + ε_dp (RDP, dc.E2)", "k", "--"),
          "A": ("(A) top-pB internal, Δ = 2c1 − c2", "tab:red", "-"),
          "B": ("(B) fixed threshold τ, Δ = c1", "tab:green", "-"),
          "C": ("(C) scores + gradient, one joint SGM, Δ = 2c1 − c2", "tab:blue", "-"),
          "published": ("public code's noise (0.1345σ, dc.E6)", "tab:purple", ":")}


def _f(x) -> float | None:
    return None if x is None else float(x)


# ---------------------------------------------------------------------------------------------------------------
# data


def convergence_rows(t_grid) -> list[dict]:
    """(28), (67), (68) corrected and printed at θ ∈ THETAS and T ∈ t_grid (reference, DPS digits)."""
    from dpspec.reference.dc.convergence import eq28, eq67, eq68

    rows = []
    with mpmath.workdps(DPS):
        for theta in THETAS:
            for T in t_grid:
                kw = dict(CONV, steps=T)
                e28, e67, e68 = eq28(theta, **kw), eq67(theta, **kw), eq68(theta, **kw)
                rows.append({"theta": theta, "T": T, "eq28_dpsgd": _f(e28), "eq67_body": _f(e67),
                             "eq67_printed_E17": _f(eq67(theta, printed=True, **kw)), "eq68_tail": _f(e68),
                             "eq68_printed_E17": _f(eq68(theta, printed=True, **kw)), "ratio_67_28": _f(e67 / e28),
                             **{k: v for k, v in CONV.items()}, "source": "reference"})
    return rows


def crossover_rows(thetas) -> list[dict]:
    """dc.E9's crossover per θ: log T, log10 T and a(θ) (reference)."""
    from dpspec.reference.dc.subweibull import freedman_a
    from dpspec.reference.dc.thresholds import body_beats_dpsgd_log_T

    rows = []
    with mpmath.workdps(DPS):
        for theta in thetas:
            log_t = body_beats_dpsgd_log_T(theta)
            rows.append({"theta": theta, "a_theta": _f(freedman_a(theta)), "log_T": _f(log_t),
                         "log10_T": _f(log_t / mpmath.log(10)), "source": "reference"})
    return rows


def _sgm(sigma_eff, q, steps, delta, method: str) -> list[float]:
    """ε(δ) of T SGM steps at (q, σ_eff) per element: RDP (ONE vectorised sgm_epsilon call), or the PLD accountant's
    certified interval (lower, upper) (Accountant().sgm(...).epsilon_interval(δ); the upper end is what
    dc_epsilon(method="pld") returns)."""
    import torch

    from dpspec.fast.accountant import Accountant, sgm_epsilon

    if method == "rdp":
        t = lambda v: torch.tensor(v, dtype=torch.float64)  # noqa: E731
        return sgm_epsilon(t(sigma_eff), t(q), t(steps), t(delta)).tolist()
    with warnings.catch_warnings():  # a wide interval is recorded (its lower end beside), not warned about
        warnings.simplefilter("ignore", RuntimeWarning)
        return [Accountant().sgm(a, s, int(n)).epsilon_interval(d) for s, a, n, d in zip(sigma_eff, q, steps, delta)]


def _sigma_effs(sigma) -> dict:
    """σ_eff per reading and for the public code at σ_dp = σ_tr = σ (helper H's dc_sigma_eff), and the recipe's
    component σ itself ("claimed": each of ε_tr, ε_dp is one SGM at σ with unit sensitivity)."""
    from dpspec.fast.dc.accounting import dc_sigma_eff

    out = {r: dc_sigma_eff(r, sigma, C1, C2, sigma_tr=sigma) for r in ("A", "B", "C")}
    out["published"] = dc_sigma_eff("B", sigma, C1, C2, noise="published", p_tail=P_TAIL)
    return {"claimed": sigma.tolist(), **{k: v.tolist() for k, v in out.items()}}


def privacy_rows(cases: list[dict], method: str) -> list[dict]:
    """For each case {setting, q, steps, delta, sigma}: the paper's claimed ε — ε_tr + ε_dp at σ_tr = σ_dp = σ, each
    the RDP ε of its own SGM (helper H's paper_claimed_epsilon, computed here from the same vectorised call) — and
    the certified ε of readings A, B, C and of the public code's noise by ``method`` (RDP: one call for all)."""
    import torch

    sig = torch.tensor([c["sigma"] for c in cases], dtype=torch.float64)
    effs = _sigma_effs(sig)
    m = len(cases)

    def batch(keys, how):
        flat = [s for r in keys for s in effs[r]]
        col = lambda k: [c[k] for c in cases] * len(keys)  # noqa: E731
        vals = _sgm(flat, col("q"), col("steps"), col("delta"), how)
        return {r: vals[j * m:(j + 1) * m] for j, r in enumerate(keys)}

    rdp = batch(QUANTITIES, "rdp")
    cert = rdp if method == "rdp" else {"claimed": rdp["claimed"], **batch(QUANTITIES[1:], method)}
    rows = []
    for i, c in enumerate(cases):
        row = dict(c)
        row["claimed"] = 2 * rdp["claimed"][i]  # ε_tr + ε_dp, σ_tr = σ_dp
        for r in QUANTITIES[1:]:
            if method == "rdp":
                row[r] = cert[r][i]
            else:  # the certified upper end, the certified lower end beside it, and the RDP value
                row[r], row[f"{r}_pld_lower"], row[f"{r}_rdp"] = cert[r][i][1], cert[r][i][0], rdp[r][i]
            row[f"sigma_eff_{r}"] = effs[r][i]
        row.update({"c2_over_c1": C2 / C1, "p_tail": P_TAIL, "method": method,
                    "source": "fast (dc_sigma_eff; dpspec SGM accountant)"})
        if method != "rdp":  # full run: helper B's mpmath reference (RDP) at the cheapest setting, a cross-check
            ref = c["setting"] == REFERENCE_SETTING
            for r in ("A", "B", "C"):
                row[f"reference_rdp_{r}"] = _reference_rdp(r, c) if ref else None
        rows.append(row)
    return rows


REFERENCE_SETTING = "ImageNette"  # T = 473: the mpmath reference's RDP composition is quickest there


def _reference_rdp(reading: str, case: dict) -> float:
    """Helper B's reading_epsilon (dpspec.reference.dc.readings; mpmath, RDP) at the case's (q, T, δ, σ), σ_tr = σ."""
    from dpspec.reference.dc.readings import reading_epsilon

    with mpmath.workdps(DPS):
        return float(reading_epsilon(reading, case["q"], case["steps"], case["delta"], case["sigma"], C1, C2,
                                     sigma_tr=case["sigma"], method="rdp"))


def settings_cases(names=None) -> list[dict]:
    return [{"setting": name, "q": b / n, "steps": T, "delta": d, "sigma": s}
            for name, n, b, T, d, s in SETTINGS if names is None or name in names]


def sigma_cases(grid) -> list[dict]:
    _, n, b, T, d, _ = SETTINGS[1]
    return [{"setting": "CIFAR10", "q": b / n, "steps": T, "delta": d, "sigma": s} for s in grid]


# ---------------------------------------------------------------------------------------------------------------
# Figs 3–4 of the paper, on shipped data (seed 004 §6.2–6.3, L272–L304)

# The paper's Fig 3 ("optimization performance during CIFAR10 training": training accuracy per step, DPSGD vs
# DC-DPSGD) and Fig 4 ("test accuracy heatmap on CIFAR10 with c1, c2 and η"; §6.3 reads c1 ≈ 10c2 off it) on the
# data examples/dc_heavy_tails.py trains on: scikit-learn's bundled digits with long-tailed classes and 5 % of the
# training rows scaled by Pareto(1.5) factors (heavy-tailed per-sample gradient norms), softmax regression. CIFAR10
# is not shipped (no downloads): these reproduce the experiments' DESIGN (same sound (ε, δ) for every method, the
# ratio c1/c2 ∈ {1, 10, 100}, c2 and η swept) — not the paper's numbers, data or model.
FIG_EPS, FIG_DELTA, FIG_Q = 4.0, 1e-5, 0.05  # the example's target and Poisson rate
# --quick skips the RDP calibration (~9 s of CPU): σ = 0.8774 is calibrate_sigma(4, 1e-5, 0.05, 40, method="rdp",
# rtol=1e-3) = 0.87731 of the full mode's route, rounded up to 4 digits; every row's certified ε is recomputed from
# the run's σ_eff either way (3.9990 here).
QUICK_SIGMA = 0.8774
FIG3 = {"quick": {"steps": 40, "every": 10, "seeds": 1, "sigma": QUICK_SIGMA},
        "full": {"steps": 400, "every": 20, "seeds": 3, "sigma": None}}
FIG3_METHODS = (("dpsgd", C1), ("dpsgd", C2), ("dc", "A"), ("dc", "B"), ("dc", "C"))
FIG4 = {"quick": {"ratios": (1, 10, 100), "c2": (0.1,), "lr": (4.0,), "steps": 40, "seeds": 1,
                  "sigma": QUICK_SIGMA},
        "full": {"ratios": (1, 10, 100), "c2": (0.01, 0.1, 1.0), "lr": (0.5, 2.0, 8.0), "steps": 200, "seeds": 2,
                 "sigma": None}}
FIG_CAPTION = ("digits (scikit-learn, bundled; long-tailed classes, 5 % Pareto(1.5)-scaled rows), softmax "
               "regression — NOT the paper's CIFAR10 (not shipped): the experiment's design, not its numbers")


@functools.lru_cache(maxsize=None)
def _example():
    """examples/dc_heavy_tails.py of this checkout (its data, per-sample gradients, Poisson batches, DP-SGD step and
    RDP calibration are reused, not copied). The figures need the source tree (an editable install)."""
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "examples" / "dc_heavy_tails.py"
    if not path.exists():
        raise SystemExit(f"dpspec figures dc: Figs 3–4 reuse {path.name} of the source tree, not found at {path}")
    spec_ = importlib.util.spec_from_file_location("_dpspec_dc_heavy_tails", path)
    module = importlib.util.module_from_spec(spec_)
    spec_.loader.exec_module(module)
    return module


@functools.lru_cache(maxsize=None)
def fig_sigma(steps: int) -> float:
    """σ with certified ε(δ) ≤ FIG_EPS after T Poisson-subsampled Gaussian steps at FIG_Q (the example's RDP
    calibration, dpspec.fast.accountant.calibrate_sigma); every method below runs at σ_eff = σ."""
    return _example().sound_sigma(FIG_EPS, FIG_Q, steps)


def _digits():
    ex = _example()
    cfg = ex.TASKS["digits"]
    return ex.digits_data(cfg["rho"], cfg["corrupt"], cfg["pareto"]), cfg


def dc_sigmas(reading: str, sigma: float, c1: float, c2: float) -> tuple[float, float]:
    """(σ_dp, σ_tr) of reading A/B/C such that σ_eff = σ (notes §3.4; σ_tr = σ_dp, the paper's recipe): A and C pay
    the selection's Δ_gp = 2c1 − c2 (A: σ_dp = σ(2 − c2/c1); C: σ√(1 + (2 − c2/c1)²)), B pays c1 (σ_dp = σ)."""
    a = 2 - c2 / c1
    s = {"A": sigma * a, "B": sigma, "C": sigma * math.hypot(1.0, a)}[reading]
    return s, s


def _accuracy(w, x, y) -> float:
    return float(((x @ w.reshape(10, -1).T).argmax(1) == y).double().mean())


def train_run(kind: str, arg, *, c1: float, c2: float, sigma: float, lr: float, steps: int, seed: int, every: int,
              data, k: int) -> dict:
    """One Poisson-sampled run on the digits task (w ← w − η·noisy sum/(q n), from w = 0): kind "dpsgd" (Abadi et
    al. clipped at ``arg``, noise σ·arg) or "dc" (the operator DCDPSGD, reading ``arg``, c1, c2, p = 0.1, σ's from
    :func:`dc_sigmas`). Returns the training-accuracy trajectory (every ``every`` steps), the final test accuracy
    and the σ_eff the run's accountant records."""
    import torch

    ex = _example()
    x, y = data["train"]
    n = len(y)
    gen = torch.Generator().manual_seed(seed)
    w = torch.zeros(10 * x.shape[1], dtype=torch.float64)
    opt = None
    if kind == "dc":
        from dpspec.fast.dc.training import DCDPSGD

        s_dp, s_tr = dc_sigmas(arg, sigma, c1, c2)
        w = torch.nn.Parameter(w)
        opt = DCDPSGD([w], lr=lr, c1=c1, c2=c2, sigma_dp=s_dp, sample_rate=FIG_Q, expected_batch_size=FIG_Q * n,
                      k=k, reading=arg, p_tail=P_TAIL, sigma_tr=s_tr, generator=gen)
        sigma_eff = float(opt.sigma_eff)
    else:
        sigma_eff = sigma
    traj = [(0, _accuracy(w.detach(), x, y))]
    for t in range(1, steps + 1):
        idx = ex.poisson_batch(n, FIG_Q, gen)
        grads = ex.per_sample_grads("digits", w.detach(), x[idx], y[idx])
        if opt is not None:
            opt.step([grads])
        else:
            w = w - lr * ex.dpsgd_sum(grads, arg, sigma, gen) / (FIG_Q * n)
        if t % every == 0 or t == steps:
            traj.append((t, _accuracy(w.detach(), x, y)))
    xt, yt = data["test"]
    return {"trajectory": traj, "test_accuracy": _accuracy(w.detach(), xt, yt), "sigma_eff": sigma_eff}


def _certify(sigma_effs, steps) -> list[float]:
    """dpspec's RDP ε(δ) of T Poisson-subsampled Gaussian steps at each run's σ_eff (one vectorised call)."""
    return _sgm(list(sigma_effs), [FIG_Q] * len(sigma_effs), [steps] * len(sigma_effs),
                [FIG_DELTA] * len(sigma_effs), "rdp")


def _label(kind, arg) -> str:
    return f"DP-SGD c = {arg:g}" if kind == "dpsgd" else f"DC-DPSGD ({arg})"


def fig3_rows(mode: str) -> list[dict]:
    """Fig 3: training accuracy against the step for DP-SGD (clipped at c1 and at c2) and DC-DPSGD under readings
    A, B, C (c1 = 1, c2 = 0.1, p = 0.1), all at the same sound (ε, δ) = (4, 1e-5): one RDP calibration σ, every
    method's σ_eff = σ (certified ε recomputed per run)."""
    cfg = FIG3[mode]
    data, task = _digits()
    sigma = cfg["sigma"] or fig_sigma(cfg["steps"])
    runs = []
    for kind, arg in FIG3_METHODS:
        for seed in range(cfg["seeds"]):
            r = train_run(kind, arg, c1=C1, c2=C2, sigma=sigma, lr=task["lr"], steps=cfg["steps"], seed=seed,
                          every=cfg["every"], data=data, k=task["k"])
            runs.append((kind, arg, seed, r))
    eps = _certify([r["sigma_eff"] for *_, r in runs], cfg["steps"])
    rows = []
    for (kind, arg, seed, r), e in zip(runs, eps):
        for step, acc in r["trajectory"]:
            rows.append({"method": _label(kind, arg), "seed": seed, "step": step, "train_accuracy": acc,
                         "final_test_accuracy": r["test_accuracy"], "sigma": sigma, "sigma_eff": r["sigma_eff"],
                         "certified_eps": e, "target_eps": FIG_EPS, "delta": FIG_DELTA, "q": FIG_Q,
                         "steps": cfg["steps"], "c1": C1, "c2": C2, "lr": task["lr"], "data": "digits-HT"})
    return rows


def fig4_rows(mode: str) -> list[dict]:
    """Fig 4: final test accuracy over c1/c2 ∈ {1, 10, 100}, c2 and η (DC-DPSGD reading B — a fixed score threshold,
    σ_eff = σ_dp for every c1, c2 — at the same sound (4, 1e-5); c1 = c2 is DP-SGD clipped at c2, as §6.3 says),
    mean over seeds."""
    cfg = FIG4[mode]
    data, task = _digits()
    sigma = cfg["sigma"] or fig_sigma(cfg["steps"])
    cells = []
    for ratio in cfg["ratios"]:
        for c2 in cfg["c2"]:
            for lr in cfg["lr"]:
                accs, effs = [], []
                for seed in range(cfg["seeds"]):
                    r = train_run("dc", "B", c1=ratio * c2, c2=c2, sigma=sigma, lr=lr, steps=cfg["steps"], seed=seed,
                                  every=cfg["steps"], data=data, k=task["k"])
                    accs.append(r["test_accuracy"])
                    effs.append(r["sigma_eff"])
                cells.append((ratio, c2, lr, accs, min(effs)))  # equal across seeds; the smallest certifies all
    eps = _certify([c[4] for c in cells], cfg["steps"])
    return [{"ratio_c1_c2": ratio, "c1": ratio * c2, "c2": c2, "lr": lr, "test_accuracy": sum(a) / len(a),
             "test_accuracy_min": min(a), "test_accuracy_max": max(a), "seeds": len(a), "reading": "B",
             "sigma": sigma, "sigma_eff": s_eff, "certified_eps": e, "target_eps": FIG_EPS, "delta": FIG_DELTA,
             "q": FIG_Q, "steps": cfg["steps"], "data": "digits-HT"}
            for (ratio, c2, lr, a, s_eff), e in zip(cells, eps)]


# ---------------------------------------------------------------------------------------------------------------
# output


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _log(ax, x: bool = True, y: bool = True) -> None:
    """Log scales with at most ~7 major ticks and no minor ticks (the axes span up to 12 decades; matplotlib's
    default tick search dominates the rendering time there)."""
    from matplotlib.ticker import LogLocator, NullLocator

    for on, axis, setter in ((x, ax.xaxis, ax.set_xscale), (y, ax.yaxis, ax.set_yscale)):
        if on:
            setter("log")
            axis.set_major_locator(LogLocator(numticks=7))
            axis.set_minor_locator(NullLocator())


def plot_convergence(rows, paths, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(THETAS) + 1, figsize=(17, 4.2))
    keys = (("eq28_dpsgd", "(28) DP-SGD, Thm B.1", "k", "-"), ("eq67_body", "(67) body, corrected", "tab:green", "-"),
            ("eq67_printed_E17", "(67) as printed (dc.E17)", "tab:green", ":"),
            ("eq68_tail", "(68) tail, corrected", "tab:red", "-"),
            ("eq68_printed_E17", "(68) as printed (dc.E17)", "tab:red", ":"))
    for ax, theta in zip(axes, THETAS):
        sub = [r for r in rows if r["theta"] == theta]
        for key, label, colour, style in keys:
            ax.plot([r["T"] for r in sub], [r[key] for r in sub], style, color=colour, label=label)
        _log(ax)
        ax.set_xlabel("T")
        ax.set_ylabel("bound on (1/T)Σ‖∇L_S(w_t)‖²")
        ax.set_title(f"θ = {theta:g}", fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[0].legend(fontsize=7)
    ax = axes[-1]
    for theta in THETAS:
        sub = [r for r in rows if r["theta"] == theta]
        ax.plot([r["T"] for r in sub], [r["ratio_67_28"] for r in sub], label=f"θ = {theta:g}")
    ax.axhline(1.0, color="grey", lw=1)
    _log(ax)
    ax.set_xlabel("T")
    ax.set_ylabel("(67) / (28)")
    ax.set_title("body bound over DP-SGD's (dc.E9: ≥ 1)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    c = CONV
    fig.suptitle(f"seed 004: explicit convergence bounds (reference), K = β = ΔL = 1, d = {c['d']:g}, n = {c['n']:g}, "
                 f"ε = {c['eps']}, δ = {c['delta']}, B = {c['batch']}, m2 = {c['m2']} (notes §2)", fontsize=9)
    fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=dpi)
    plt.close(fig)


def plot_crossover(rows, paths, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    ax.plot([r["theta"] for r in rows], [r["log10_T"] for r in rows], "o-" if len(rows) < 10 else "-")
    for T, label in ((1e4, "T = 10⁴"), (1e6, "T = 10⁶")):
        ax.axhline(math.log10(T), color="grey", ls="--", lw=1)
        ax.text(rows[-1]["theta"], math.log10(T), label, fontsize=7, va="bottom", ha="right")
    _log(ax, x=False)
    ax.set_xlabel("θ")
    ax.set_ylabel("log10 T above which the body bound beats DP-SGD")
    ax.set_title("seed 004 erratum dc.E9: log^{2θ−1}(√T) > a(θ)/2 (reference)", fontsize=9)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=dpi)
    plt.close(fig)


def plot_privacy_settings(rows, paths, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.5, 4.4))
    width = 0.8 / len(QUANTITIES)
    for j, key in enumerate(QUANTITIES):
        label, colour, _ = _STYLE[key]
        ax.bar([i + (j - 2) * width for i in range(len(rows))], [r[key] for r in rows], width, color=colour,
               label=label, hatch="//" if key == "claimed" else None, alpha=0.85)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['setting']}\nσ = {r['sigma']:g}, T = {r['steps']}" for r in rows], fontsize=7)
    _log(ax, x=False)
    ax.axhline(8.0, color="k", lw=0.8)
    ax.set_ylabel("ε(δ) of the whole run")
    ax.set_title(f"seed 004: claimed vs certified ε at the paper's σ (certified by {rows[0]['method'].upper()})",
                 fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, axis="y", alpha=0.3)
    fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=dpi)
    plt.close(fig)


def plot_privacy_sigma(rows, paths, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.4))
    for key in QUANTITIES:
        label, colour, style = _STYLE[key]
        ax.plot([r["sigma"] for r in rows], [r[key] for r in rows], style, color=colour, label=label,
                marker="o" if len(rows) < 8 else None)
    _log(ax)
    lo, hi = min(r["sigma"] for r in rows), max(r["sigma"] for r in rows)
    ticks = [t for t in (0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0) if lo <= t <= hi]
    ax.set_xticks(ticks)
    ax.set_xticklabels([f"{t:g}" for t in ticks])
    ax.set_xlabel("σ_dp (= σ_tr)")
    ax.set_ylabel("ε(δ = 1e-5) after T steps")
    r0 = rows[0]
    ax.set_title(f"CIFAR10 (q = {r0['q']:.4g}, T = {r0['steps']}): claimed vs certified (RDP)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=dpi)
    plt.close(fig)


def plot_fig3(rows, paths, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        steps = sorted({r["step"] for r in mine})
        mean = [sum(r["train_accuracy"] for r in mine if r["step"] == s) /
                sum(1 for r in mine if r["step"] == s) for s in steps]
        ax.plot(steps, mean, marker=".", label=method)
    r0 = rows[0]
    ax.set_xlabel("step")
    ax.set_ylabel("training accuracy")
    ax.set_title(f"Fig 3 analogue: every method certified ε ≤ {r0['target_eps']:g} at δ = {r0['delta']:g} "
                 f"(q = {r0['q']:g}, T = {r0['steps']})\n" + textwrap.fill(FIG_CAPTION, 100), fontsize=7)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    for p in paths:
        fig.savefig(p, dpi=dpi)
    plt.close(fig)


def plot_fig4(rows, paths, dpi: int) -> None:
    import matplotlib.pyplot as plt

    lrs = sorted({r["lr"] for r in rows})
    ratios, c2s = sorted({r["ratio_c1_c2"] for r in rows}), sorted({r["c2"] for r in rows})
    fig, axes = plt.subplots(1, len(lrs), figsize=(max(6.4, 3.2 * len(lrs)), 3.8), squeeze=False)
    fig.subplots_adjust(top=0.78, bottom=0.14, right=0.86, wspace=0.35)
    for ax, lr in zip(axes[0], lrs):
        grid = [[next(r["test_accuracy"] for r in rows if r["lr"] == lr and r["ratio_c1_c2"] == a and r["c2"] == c)
                 for c in c2s] for a in ratios]
        im = ax.imshow(grid, vmin=0, vmax=1, cmap="viridis", origin="lower", aspect="auto")
        for i, line in enumerate(grid):
            for j, v in enumerate(line):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=7, color="w" if v < 0.6 else "k")
        ax.set_xticks(range(len(c2s)))
        ax.set_xticklabels([f"{c:g}" for c in c2s])
        ax.set_yticks(range(len(ratios)))
        ax.set_yticklabels([f"{a:g}" for a in ratios])
        ax.set_xlabel("c2")
        ax.set_ylabel("c1 / c2 (1 = DP-SGD)")
        ax.set_title(f"η = {lr:g}", fontsize=8)
    fig.colorbar(im, cax=fig.add_axes([0.89, 0.14, 0.02, 0.64]), label="test accuracy")
    r0 = rows[0]
    fig.suptitle(f"Fig 4 analogue: DC-DPSGD (B), certified ε ≤ {r0['target_eps']:g} at δ = {r0['delta']:g}, "
                 f"T = {r0['steps']}\n" + textwrap.fill(FIG_CAPTION, 100), fontsize=7)
    for p in paths:
        fig.savefig(p, dpi=dpi)
    plt.close(fig)


def render(out: Path, *, quick: bool = False, dpi: int = 150) -> list[Path]:
    """Compute the four figures and write ``NAME.csv``, ``NAME.png``, ``NAME.pdf`` for each and ``dc_figures.json``
    into ``out``; returns the paths written. ``quick``: coarse grids, two dataset settings, RDP only, no PDF."""
    import matplotlib

    matplotlib.use("Agg")
    mode = "quick" if quick else "full"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    everything: dict[str, list[dict]] = {}

    def emit(name, rows, draw):
        everything[name] = rows
        _write_csv(out / f"{name}.csv", rows)
        paths = [out / f"{name}.png"] + ([] if quick else [out / f"{name}.pdf"])
        draw(rows, paths, dpi)
        written.extend([out / f"{name}.csv", *paths])

    emit("fig_convergence_dc", convergence_rows(T_GRID[mode]), plot_convergence)
    emit("fig_crossover_dc", crossover_rows(CROSS_THETAS[mode]), plot_crossover)
    settings, sigmas = settings_cases(QUICK_SETTINGS if quick else None), sigma_cases(SIGMA_GRID[mode])
    if quick:  # one vectorised RDP call for both figures
        both = privacy_rows(settings + sigmas, "rdp")
        priv_settings, priv_sigma = both[:len(settings)], both[len(settings):]
    else:
        priv_settings, priv_sigma = privacy_rows(settings, "pld"), privacy_rows(sigmas, "rdp")
    emit("fig_privacy_settings_dc", priv_settings, plot_privacy_settings)
    emit("fig_privacy_sigma_dc", priv_sigma, plot_privacy_sigma)
    emit("fig3_training_dc", fig3_rows(mode), plot_fig3)
    emit("fig4_heatmap_dc", fig4_rows(mode), plot_fig4)
    (out / "dc_figures.json").write_text(json.dumps(everything, indent=1, ensure_ascii=False))
    written.append(out / "dc_figures.json")
    return written
