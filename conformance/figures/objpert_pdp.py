"""Figures 2.3.1, 2.1, 2.2, A.1–A.4 and A.5/A.6 of seed 003 (Redberg's dissertation, chapter 2 and appendix A:
ex-post per-instance DP of objective perturbation and its privacy reports; Redberg & Wang, NeurIPS 2021, arXiv
2111.02281), regenerated from the catalogue (``dpspec figures objpert-pdp``). Every number is computed here, none is typed in;
shared/notes/objpert-pdp.md (§2.C Fig 2.3.1, §4.6 experiment pipelines, §5.1 printed settings, §5.3 calibrations,
§6 objpert.E20/objpert.E21) says what the text shows. tests/objpert/test_figures_objpert_pdp.py checks the CSVs against the reference
(reference/objpert/expost.py Cor 2.3.2, releases.py Algorithm 2) at a few points.

Files (each a CSV with the data and a PNG rendering):

* ``fig2_3_1_objpert_pdp`` — Fig 2.3.1: ε1 (Cor 2.3.2, exact ex-post pDP) of every point of a 2-D separable data set
  (member = in) and of hypothetical points z ∉ D on a grid over the unit disc (member = out, labelled by the true
  separator), for θ̂P := θ̂ (the non-private minimiser, λ = 1, logistic ±1 labels) rotated counter-clockwise by
  ω ∈ {0, π/12, π/4, π/2, 3π/4, π}. Data: :data:`ROT` (n points uniform on the unit disc, labels sign(x1), the band
  |x1| < 0.2 removed: margin 0.4). σ and n are not given in the text (objpert.E20(c)): σ = 5 and n = 60 here (stated):
  at σ = 5 the log-det term T1 dominates |T2 + T3| on most of the disc for ω ≤ π/12 and the gradient terms for
  ω ≥ π/4, as the text describes (column ``t1_dominates``).
* ``fig2_1_objpert_pdp`` — Fig 2.1 (§2.4.1): test 0-1 loss of Algorithm 1 (σ from Thm 2.2.5 corrected, objpert.E1) against the
  λ inflation c (λ = c·2β/ε1) for several ε1 (not given in the text), mean over seeded trials, with the non-private
  minimiser at the same λ; the star is Algorithm 2 DEP's required inflation c* = 2σ3τ/(2β/ε1) at ε3 = 0.1 (the text's
  ε3 is not stated; the CSV also gives c* at ε3 = 1).
* ``fig2_2_objpert_pdp`` — Fig 2.2 (§2.4.2): per individual z ∈ D, the true ε1(z) (Cor 2.3.2, member = in, known to
  the data holder) and the report of Algorithm 2 — INDEP at (ε1, ε2, ε3) = (1, 0, 0), DEP at (0.2, 0.7, 0.1), whose
  ε^P_1 + ε2 + ε3 is plotted — (a) the distributions, (b) the ratio report/ε1; on the synthetic set and on scikit-
  learn's bundled breast-cancer data (569 × 30, replacing UCI credit default: no download; columns z-scored, rows
  scaled to ‖x‖ = 1, labels ±1 with benign = +1).
* ``figA3_A4_objpert_pdp`` — Figs A.3/A.4: the same for the DEP allocations (0.2, 0.7, 0.1), (0.4, 0.5, 0.1),
  (0.5, 0.25, 0.25), (0.8, 0.1, 0.1) against INDEP (1, 0, 0).
* ``reports_settings_objpert_pdp`` — one row per (data set, budget): σ, λ of Thm 2.2.5, the λ used, the inflation, σ2,
  σ3 (analytic Gaussian for (ε2, ρ) with Δ = ξ = 1 and for (ε3, ρ) with Δ = β/√2, notes §5.3), τ(d, ρ) (the GOE
  (Z+Zᵀ)/√2, objpert.E2), quantiles of ε1, the report and the ratio, the share of individuals whose report is below ε1.
* ``figA1_A2_objpert_pdp`` — Figs A.1/A.2 (A.2.1): max over D of ε1 and of both reports against n (d = 50) and
  against d (n = 1000), synthetic data, ε1 = 1 for θ̂P; DEP at (ε2, ε3) = (1, 1) (A.2.3's report budget).
* ``figA5_A6_objpert_pdp`` — Figs A.5/A.6 (A.2.3, logistic): per individual the true ε1 against the report total and
  their ratio, INDEP (1, 0, 0) and DEP (1, 1, 1), on scikit-learn's bundled wine data, class 0 against the rest
  (178 × 13), in place of UCI chronic kidney disease (not bundled anywhere). Figs A.7/A.8 (UCI wine quality, linear
  regression) are not made: the calibration and reports here are logistic only.

objpert.E20 (Algorithm 2 DEP requires λ ≥ 2σ3τ; at ε3 = 0.1 that is λ ≥ 187 at d = 30 against Thm 2.2.5's λ = 2.5 at
ε1 = 0.2): the text's settings cannot run DEP as printed; here every DEP release uses λ = max(2β/ε1, 2σ3τ) (a larger λ
keeps Thm 2.2.5's (ε1, δ)-DP) and the inflation λ/(2β/ε1) is reported in the CSVs and on the figures. For Figs A.1/A.2
the λ = 2β/ε1 release (INDEP only) and the inflated release (both reports) are shown side by side.

Synthetic data (§2.4.1, notes §4.6): x_i, θ* ~ N(0, I_d), rows scaled to ‖x_i‖ = 1, Y = Xθ* min-max rescaled to
[0, 1]; the text does not say how logistic labels come from Y (objpert.E20(b)): y = +1 iff Y ≥ 1/2 here (stated). Logistic
loss with ±1 labels (β = 1/4, ξ = 1), r = 0, δ = ρ = 1e-6 (§2.4.2). Computation: the torch fast path
(fast/objpert/algorithms.py batched Newton for Algorithm 1, fast/objpert/expost.py batched Cor 2.3.2,
fast/objpert/report.py Algorithm 2); constants (σ of Thm 2.2.5, analytic Gaussian σ2, σ3) from the reference.
"""
from __future__ import annotations

import csv
import functools
import math
from pathlib import Path

import numpy as np

from dpspec.reference.errors import ParameterError

# ---------------------------------------------------------------------------------------------------------------
# settings (seed 003 §2.3 Fig 2.3.1, §2.4.1, §2.4.2, A.2.1; notes objpert-pdp.md §4.6, §5.1, §5.3)

SEED = 20210204  # base seed of every random stream here
DELTA = RHO = 1e-6  # §2.4.2: δ = ρ = 1e-6
BETA, XI = 0.25, 1.0  # logistic loss, ‖x‖ ≤ 1 (notes §2.C)
LOSS = "logistic"  # labels ±1
ROT = {"margin": 0.4, "lam": 1.0, "sigma": 5.0, "omegas": (0.0, math.pi / 12, math.pi / 4, math.pi / 2,
                                                             3 * math.pi / 4, math.pi)}
ROT_GRID = {"full": {"n": 60, "grid": 41}, "quick": {"n": 30, "grid": 9}}
FIG21_GRID = {"full": {"eps": (0.1, 0.3, 1.0, 3.0), "c": tuple(float(c) for c in np.geomspace(1, 3000, 12)),
                       "trials": 10, "n": 1000, "d": 50, "n_test": 2000},
              "quick": {"eps": (0.3, 1.0), "c": (1.0, 30.0, 1000.0), "trials": 2, "n": 200, "d": 10,
                        "n_test": 400}}
STAR_EPS3 = (0.1, 1.0)  # ε3 of the star (the first is plotted)
INDEP = (1.0, 0.0, 0.0)
DEP_BUDGETS = ((0.2, 0.7, 0.1), (0.4, 0.5, 0.1), (0.5, 0.25, 0.25), (0.8, 0.1, 0.1))
REPORT_GRID = {"full": {"synthetic": (1000, 50), "cancer": True}, "quick": {"synthetic": (200, 10), "cancer": True}}
WORST_GRID = {"full": {"n": (100, 200, 500, 1000, 2000, 5000, 10000), "d_at": 50,
                       "d": (1, 2, 5, 10, 20, 30, 40, 50, 60), "n_at": 1000},
              "quick": {"n": (100, 300), "d_at": 10, "d": (2, 10), "n_at": 200}}
WORST_BUDGET = (1.0, 1.0, 1.0)  # ε1 for θ̂P; (ε2, ε3) of the DEP report (A.2.3)

_SYNTH_NOTE = ("synthetic (sec 2.4.1): x, theta* ~ N(0, I), ||x|| = 1, Y = X theta* min-max scaled to [0,1], "
               "y = +1 iff Y >= 1/2 (label rule not in the text, objpert.E20(b))")
_CANCER_NOTE = ("breast cancer: scikit-learn's bundled 569 x 30 (replaces UCI credit default), columns z-scored, "
                "rows to ||x|| = 1, benign = +1")
_E20_NOTE = "DEP needs lam >= 2 sigma3 tau (objpert.E20): lam inflated to max(2 beta/eps1, 2 sigma3 tau)"


# ---------------------------------------------------------------------------------------------------------------
# data


def _breast_cancer_raw() -> tuple[np.ndarray, np.ndarray]:
    """The 569 × 30 breast-cancer data and its 0/1 target (0 = malignant) as scikit-learn ships them
    (sklearn/datasets/data/breast_cancer.csv), read without importing scikit-learn; one ParameterError when
    scikit-learn is not installed."""
    import importlib.util

    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise ParameterError("dpspec figures objpert-pdp needs scikit-learn for its real data set (the bundled "
                             "breast-cancer data): pip install -c constraints.txt -e '.[examples]'")
    path = Path(next(iter(spec.submodule_search_locations))) / "datasets" / "data" / "breast_cancer.csv"
    if path.is_file():
        raw = np.loadtxt(path, delimiter=",", skiprows=1)
        return raw[:, :-1], raw[:, -1]
    from sklearn.datasets import load_breast_cancer  # pragma: no cover - another scikit-learn layout

    return load_breast_cancer(return_X_y=True)  # pragma: no cover


@functools.lru_cache(maxsize=1)
def load_breast_cancer_scaled() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's bundled breast-cancer data (no download) in the text's setting (seed 003 §2.2.3: ‖x‖ ≤ 1, y ∈
    {±1}): columns z-scored, each row scaled to Euclidean norm 1, y = +1 for benign, −1 for malignant."""
    X, t = _breast_cancer_raw()
    X = (X - X.mean(0)) / X.std(0)
    X = X / np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(t > 0.5, 1.0, -1.0)


def synthetic(n: int, d: int, seed: int, n_test: int = 0):
    """Seed 003 §2.4.1's synthetic logistic data (notes §4.6): x_i, θ* ~ N(0, I_d), ‖x_i‖ = 1, Y = Xθ* min-max scaled
    to [0, 1] (train min/max), y = +1 iff Y ≥ 1/2 (the text's label rule is unstated, objpert.E20(b)). Returns (X, y) and,
    with ``n_test``, a test set (X_test, y_test) from the same θ*."""
    rng = np.random.default_rng([SEED, 1, n, d, seed])
    theta = rng.standard_normal(d)
    X = rng.standard_normal((n + n_test, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    u = X @ theta
    lo, hi = u[:n].min(), u[:n].max()
    y = np.where((u - lo) / (hi - lo) >= 0.5, 1.0, -1.0)
    if n_test:
        return X[:n], y[:n], X[n:], y[n:]
    return X, y


def rotation_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Fig 2.3.1's data (seed 003 §2.3; notes §2.C): n points uniform on the unit disc outside the band |x1| < m/2
    (margin m = 0.4), labels sign(x1) — two linearly separable classes."""
    rng = np.random.default_rng([SEED, 2, n, seed])
    pts = []
    half = ROT["margin"] / 2
    while len(pts) < n:
        p = rng.uniform(-1, 1, 2)
        if p @ p <= 1 and abs(p[0]) >= half:
            pts.append(p)
    X = np.array(pts)
    return X, np.sign(X[:, 0])


def _records(X, y):
    return np.column_stack([X, y])


def _rotate(theta, omega):
    c, s = math.cos(omega), math.sin(omega)
    return np.array([c * theta[0] - s * theta[1], s * theta[0] + c * theta[1]])


# ---------------------------------------------------------------------------------------------------------------
# calibration (reference constants)


@functools.lru_cache(maxsize=None)
def kifer(eps1: float) -> tuple[float, float]:
    """(σ, λ) of Thm 2.2.5 corrected (seed 003; erratum objpert.E1, notes §5.3): σ = ξ√(8 log(2/δ) + 4ε1)/ε1, λ = 2β/ε1."""
    from dpspec.reference.objpert.kifer import kifer_sigma

    return float(kifer_sigma(eps1, DELTA, XI)), 2 * BETA / eps1


@functools.lru_cache(maxsize=None)
def analytic_sigma(eps: float) -> float:
    """The analytic-Gaussian σ (base.gaussian_sigma, Balle & Wang 2018) for (ε, ρ)-DP at sensitivity 1."""
    import mpmath

    from dpspec.reference.base.gaussian import gaussian_sigma

    with mpmath.workdps(30):
        return float(gaussian_sigma(mpmath.mpf(eps), mpmath.mpf(RHO)))


@functools.lru_cache(maxsize=None)
def tau(d: int) -> float:
    """τ(d, ρ) = F⁻¹(1 − ρ/2) of λ1 of the GOE (Z+Zᵀ)/√2 that Algorithm 11 adds (seed 003 Lemma A.4.4, erratum objpert.E2;
    fast/objpert/goe.py)."""
    from dpspec.fast.objpert.goe import goe_quantile

    return float(goe_quantile(d, RHO))


def calibration(budget: tuple, d: int) -> dict:
    """Noise and λ for a budget (ε1, ε2, ε3) at dimension d: σ, λ of Thm 2.2.5; for DEP (ε2, ε3 > 0) σ2 = analytic σ
    at (ε2, ρ) × ξ, σ3 = analytic σ at (ε3, ρ) × β/√2 (notes §5.3), τ(d, ρ), and λ = max(2β/ε1, 2σ3τ) (objpert.E20)."""
    eps1, eps2, eps3 = budget
    sigma, lam_k = kifer(eps1)
    out = {"eps1": eps1, "eps2": eps2, "eps3": eps3, "mode": "DEP" if eps3 > 0 else "INDEP", "sigma": sigma,
           "lam_kifer": lam_k, "lam": lam_k, "inflation": 1.0, "sigma2": None, "sigma3": None, "tau": None,
           "lam_required": None}
    if eps3 > 0:
        s2 = analytic_sigma(eps2) * XI
        s3 = analytic_sigma(eps3) * BETA / math.sqrt(2)
        t = tau(d)
        need = 2 * s3 * t
        lam = max(lam_k, need)
        out.update(sigma2=s2, sigma3=s3, tau=t, lam_required=need, lam=lam, inflation=lam / lam_k)
    return out


# ---------------------------------------------------------------------------------------------------------------
# the fast-path runs


def _t(a):
    import torch

    return torch.as_tensor(np.asarray(a, dtype=np.float64))


def release(X, y, lam: float, sigma: float, seed) -> np.ndarray:
    """θ̂P of Algorithm 1 (seed 003; objective perturbation with b ~ N(0, σ²I), fast/objpert/algorithms.py) from the
    torch generator seeded with ``seed``."""
    from dpspec.fast.objpert.algorithms import objpert_release

    out = objpert_release(_t(_records(X, y)), LOSS, float(lam), float(sigma), count=1, generator=int(seed),
                          tol=1e-11)
    return out["theta"][0].numpy()


def true_eps1(X, y, theta, lam, sigma, targets_X=None, targets_y=None, member="in"):
    """Cor 2.3.2 (seed 003) for every target (default: every z ∈ D, member = in) with one Cholesky of ∇²J(θ̂P; D)
    (fast/objpert/expost.py); returns the ExPost (signed, eps1, t1, t2, t3, mu) as numpy arrays."""
    from dpspec.fast.objpert.expost import expost_batch, factor

    fac = factor(_t(X), _t(y), _t(theta), float(lam), float(sigma), LOSS)
    tx, ty = (X, y) if targets_X is None else (targets_X, targets_y)
    e = expost_batch(fac, _t(tx), _t(ty), member)
    return {k: getattr(e, k).numpy() for k in ("signed", "eps1", "t1", "t2", "t3", "mu")}


def reports(X, y, theta, cal: dict, seed) -> dict:
    """Algorithm 2 (seed 003; fast/objpert/report.py alg2_report, corrected objpert.E8/objpert.E9) for every z ∈ D: INDEP, or DEP with
    the releases ĝP, ĤP drawn from the torch generator seeded with ``seed``. numpy arrays eps1P, eps2, eps3, undefined
    (and for DEP the releases g_hat, H_hat)."""
    from dpspec.fast.objpert.report import alg2_report

    rec = _t(_records(X, y))
    r = alg2_report(_t(theta), rec, rec, LOSS, cal["lam"], cal["sigma"], cal["sigma2"] or 1.0,
                    cal["sigma3"] or 1.0, RHO, mode=cal["mode"], generator=int(seed), delta=DELTA, tau=cal["tau"])
    return {k: r[k].numpy() for k in ("eps1P", "eps2", "eps3", "undefined", "g_hat", "H_hat") if k in r}


# ---------------------------------------------------------------------------------------------------------------
# Fig 2.3.1


def rotation_setting(n: int) -> dict:
    """Fig 2.3.1's data and θ̂ = argmin J(θ; D) (b = 0, λ = 1, logistic; reference solver objpert_minimiser)."""
    from dpspec.reference.objpert.solver import objpert_minimiser

    X, y = rotation_data(n)
    theta = objpert_minimiser(X, y, LOSS, ROT["lam"], np.zeros(2))
    return {"X": X, "y": y, "theta": np.asarray(theta, dtype=np.float64)}


def disc_grid(k: int) -> np.ndarray:
    """The k × k grid on [−1, 1]² inside the unit disc (the hypothetical targets of Fig 2.3.1)."""
    g = np.linspace(-1, 1, k)
    P = np.array([(a, b) for b in g for a in g])
    return P[(P * P).sum(1) <= 1 + 1e-12]


def fig2_3_1_rows(n: int, k: int) -> list[dict]:
    """Cor 2.3.2 at θ̂P = θ̂ rotated by each ω: the data points (member = in) and the disc grid (member = out, label
    sign(x1); points on x1 = 0 get +1)."""
    s = rotation_setting(n)
    X, y = s["X"], s["y"]
    G = disc_grid(k)
    gy = np.where(G[:, 0] >= 0, 1.0, -1.0)
    rows = []
    for omega in ROT["omegas"]:
        th = _rotate(s["theta"], omega)
        for kind, TX, TY, member in (("data", X, y, "in"), ("grid", G, gy, "out")):
            e = true_eps1(X, y, th, ROT["lam"], ROT["sigma"], TX, TY, member)
            for i in range(len(TY)):
                rows.append({"omega": omega, "omega_over_pi": omega / math.pi, "kind": kind, "member": member,
                             "x1": TX[i, 0], "x2": TX[i, 1], "y": TY[i], "theta1": th[0], "theta2": th[1],
                             "lam": ROT["lam"], "sigma": ROT["sigma"], "n": n, "mu": e["mu"][i], "t1": e["t1"][i],
                             "t2": e["t2"][i], "t3": e["t3"][i], "eps1": e["eps1"][i],
                             "t1_dominates": bool(abs(e["t1"][i]) > abs(e["t2"][i] + e["t3"][i]))})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# Fig 2.1


def fig2_1_rows(grid: dict) -> list[dict]:
    """Test 0-1 loss of Algorithm 1 vs the λ inflation c (λ = c·2β/ε1, σ of Thm 2.2.5), mean over ``trials`` seeded
    releases (batched Newton), and of the non-private minimiser at the same λ; extra rows (``star``) at Algorithm 2
    DEP's required inflation c* = 2σ3τ/(2β/ε1) for ε3 ∈ :data:`STAR_EPS3`."""
    import torch

    from dpspec.fast.objpert.algorithms import newton_batch

    X, y, Xt, yt = synthetic(grid["n"], grid["d"], 0, grid["n_test"])
    d = grid["d"]
    stars = {e3: 2 * analytic_sigma(e3) * BETA / math.sqrt(2) * tau(d) for e3 in STAR_EPS3}
    rows = []
    for i, eps1 in enumerate(grid["eps"]):
        sigma, lam_k = kifer(eps1)
        cs = [(c, None) for c in grid["c"]] + [(lam / lam_k, e3) for e3, lam in stars.items()]
        for j, (c, star) in enumerate(cs):
            gen = torch.Generator().manual_seed(SEED + 1000 * i + j)
            B = sigma * torch.randn(grid["trials"], d, generator=gen, dtype=torch.float64)
            B = torch.cat([B, torch.zeros(1, d, dtype=torch.float64)])
            th = newton_batch(_t(X), _t(y), LOSS, float(c * lam_k), B, tol=1e-9).theta.numpy()
            err = (np.sign(Xt @ th.T) != yt[:, None]).mean(0)
            priv = err[:-1]
            rows.append({"eps1": eps1, "inflation": c, "lam": c * lam_k, "sigma": sigma, "star_eps3": star,
                         "test_01_loss": float(priv.mean()),
                         "se": float(priv.std(ddof=1) / math.sqrt(len(priv))) if len(priv) > 1 else 0.0,
                         "test_01_loss_nonprivate": float(err[-1]), "trials": grid["trials"], "n": grid["n"],
                         "d": d, "tau": tau(d), "c_star_eps3_0.1": stars[0.1] / lam_k,
                         "c_star_eps3_1": stars[1.0] / lam_k})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# Fig 2.2, A.3, A.4 (per-individual reports)


def datasets(mode: str) -> dict:
    """The data sets of Figs 2.2/A.3/A.4: the synthetic set at the mode's (n, d) and the breast-cancer data."""
    n, d = REPORT_GRID[mode]["synthetic"]
    out = {"synthetic": synthetic(n, d, 0)}
    if REPORT_GRID[mode]["cancer"]:
        out["cancer"] = load_breast_cancer_scaled()
    return out


def report_experiment(X, y, budget: tuple, seed: int) -> tuple[dict, dict, np.ndarray]:
    """One release and its report: (calibration, per-individual arrays, θ̂P). The release's generator seed is
    ``seed``, the report's ``seed + 1``."""
    cal = calibration(budget, X.shape[1])
    theta = release(X, y, cal["lam"], cal["sigma"], seed)
    e = true_eps1(X, y, theta, cal["lam"], cal["sigma"])
    r = reports(X, y, theta, cal, seed + 1)
    total = r["eps1P"] + r["eps2"] + r["eps3"]
    return cal, {"eps1": e["eps1"], "eps1P": r["eps1P"], "eps2": r["eps2"], "eps3": r["eps3"],
                 "report_total": total, "undefined": r["undefined"], "g_hat": r.get("g_hat"),
                 "H_hat": r.get("H_hat")}, theta


def _budget_name(b) -> str:
    return "INDEP 1/0/0" if b[2] == 0 else f"DEP {b[0]:g}/{b[1]:g}/{b[2]:g}"


def _seed_of(ds: str, budget) -> int:
    return SEED + 97 * (["synthetic", "cancer"].index(ds)) + int(round(1000 * budget[0])) + int(round(100 * budget[1]))


def report_rows(mode: str, budgets) -> tuple[list[dict], list[dict]]:
    """(per-individual rows, settings rows) for every data set and budget."""
    rows, settings = [], []
    for ds, (X, y) in datasets(mode).items():
        for b in budgets:
            seed = _seed_of(ds, b)
            cal, r, _ = report_experiment(X, y, b, seed)
            ratio = r["report_total"] / r["eps1"]
            for i in range(len(y)):
                rows.append({"dataset": ds, "budget": _budget_name(b), "mode": cal["mode"], "index": i,
                             "y": y[i], "eps1": r["eps1"][i], "eps1P": r["eps1P"][i], "eps2": r["eps2"][i],
                             "eps3": r["eps3"][i], "report_total": r["report_total"][i], "ratio": ratio[i],
                             "undefined": bool(r["undefined"][i])})
            q = lambda a, p: float(np.quantile(a, p))  # noqa: E731
            settings.append({"dataset": ds, "n": X.shape[0], "d": X.shape[1], "budget": _budget_name(b),
                             "mode": cal["mode"], "eps1": b[0], "eps2": b[1], "eps3": b[2], "seed": seed,
                             "sigma": cal["sigma"], "lam_kifer": cal["lam_kifer"], "lam": cal["lam"],
                             "inflation": cal["inflation"], "sigma2": cal["sigma2"], "sigma3": cal["sigma3"],
                             "tau": cal["tau"], "lam_required": cal["lam_required"],
                             "eps1_median": q(r["eps1"], 0.5), "eps1_max": float(r["eps1"].max()),
                             "report_median": q(r["report_total"], 0.5), "report_max": float(r["report_total"].max()),
                             "ratio_median": q(ratio, 0.5), "ratio_min": float(ratio.min()),
                             "share_report_below_eps1": float((r["eps1P"] < r["eps1"]).mean()),
                             "undefined": int(r["undefined"].sum()),
                             "note": (_SYNTH_NOTE if ds == "synthetic" else _CANCER_NOTE)
                             + ("; " + _E20_NOTE if cal["mode"] == "DEP" else "")})
    return rows, settings


# ---------------------------------------------------------------------------------------------------------------
# Figs A.1, A.2


def worst_case_rows(grid: dict) -> list[dict]:
    """max over z ∈ D of ε1 and of the reports vs n (d = d_at) and vs d (n = n_at), synthetic data, ε1 = 1: the
    λ = 2β/ε1 release (INDEP report only: DEP's requirement fails) and the λ = max(2β/ε1, 2σ3τ) release (INDEP and
    DEP at (ε2, ε3) = (1, 1))."""
    rows = []
    pts = [("n", n, grid["d_at"]) for n in grid["n"]] + [("d", grid["n_at"], d) for d in grid["d"]]
    for k, (sweep, n, d) in enumerate(pts):
        X, y = synthetic(n, d, 1)
        dep = calibration(WORST_BUDGET, d)
        for setting, cal in (("lam_kifer", calibration(INDEP, d)), ("lam_inflated", dep)):
            seed = SEED + 7 * k + (setting == "lam_inflated")
            theta = release(X, y, cal["lam"], cal["sigma"], seed)
            e = true_eps1(X, y, theta, cal["lam"], cal["sigma"])
            ind = reports(X, y, theta, {**cal, "mode": "INDEP"}, seed + 1)
            row = {"sweep": sweep, "n": n, "d": d, "setting": setting, "lam": cal["lam"],
                   "inflation": cal["lam"] / cal["lam_kifer"], "sigma": cal["sigma"], "seed": seed,
                   "max_eps1": float(e["eps1"].max()), "max_indep": float(ind["eps1P"].max()),
                   "max_dep_eps1P": None, "max_dep_total": None, "sigma2": dep["sigma2"], "sigma3": dep["sigma3"],
                   "tau": dep["tau"]}
            if setting == "lam_inflated":
                r = reports(X, y, theta, dep, seed + 2)
                row.update(max_dep_eps1P=float(r["eps1P"].max()),
                           max_dep_total=float((r["eps1P"] + r["eps2"] + r["eps3"]).max()))
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------------------------
# output


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        for r in rows:
            writer.writerow({k: ("" if v is None else (repr(float(v)) if isinstance(v, (float, np.floating))
                                                      else v)) for k, v in r.items()})


def _caption(fig, text: str) -> None:
    fig.text(0.01, 0.005, text, fontsize=6, va="bottom", wrap=True)


def plot_fig2_3_1(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.colors import LogNorm

    vals = np.array([r["eps1"] for r in rows])
    norm = LogNorm(vmin=max(vals[vals > 0].min(), 1e-4), vmax=vals.max())
    fig, axes = plt.subplots(2, 3, figsize=(12, 8.4))
    for ax, omega in zip(axes.flat, ROT["omegas"]):
        at = [r for r in rows if r["omega"] == omega]
        grid = [r for r in at if r["kind"] == "grid"]
        data = [r for r in at if r["kind"] == "data"]
        sc = ax.scatter([r["x1"] for r in grid], [r["x2"] for r in grid], c=[max(r["eps1"], 1e-4) for r in grid],
                        norm=norm, cmap="viridis", marker="s", s=18, alpha=0.6)
        for lab, mk in ((1.0, "o"), (-1.0, "^")):
            pts = [r for r in data if r["y"] == lab]
            ax.scatter([r["x1"] for r in pts], [r["x2"] for r in pts], c=[max(r["eps1"], 1e-4) for r in pts],
                       norm=norm, cmap="viridis", marker=mk, s=40, edgecolors="k")
        th = np.array([at[0]["theta1"], at[0]["theta2"]])
        ax.arrow(0, 0, *(0.6 * th / np.linalg.norm(th)), color="r", width=0.01)
        perp = np.array([-th[1], th[0]]) / np.linalg.norm(th)
        ax.plot([-perp[0], perp[0]], [-perp[1], perp[1]], "r--", lw=1)
        ax.set_title(f"ω = {omega / math.pi:.4g}π")
        ax.set_aspect("equal")
        ax.set_xlim(-1.05, 1.05)
        ax.set_ylim(-1.05, 1.05)
    fig.colorbar(sc, ax=axes, label="ε1 (Cor 2.3.2)")
    fig.suptitle("Fig 2.3.1: ex-post pDP of θ̂P = rotated θ̂ (logistic, λ = 1, margin 0.4; circles y = +1, "
                 "triangles y = −1 in D; squares: z ∉ D)")
    _caption(fig, f"σ = {ROT['sigma']:g} and n = {rows[0]['n']} are not given in the text (objpert.E20(c)); chosen here. "
                  "Red arrow: θ̂P, dashed: its decision boundary.")
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_fig2_1(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 5))
    for k, eps1 in enumerate(sorted({r["eps1"] for r in rows})):
        line = sorted((r for r in rows if r["eps1"] == eps1 and r["star_eps3"] is None), key=lambda r: r["inflation"])
        colour = f"C{k}"
        ax.errorbar([r["inflation"] for r in line], [r["test_01_loss"] for r in line],
                    yerr=[1.96 * r["se"] for r in line], color=colour, marker="o", ms=3, label=f"ε1 = {eps1:g}")
        ax.plot([r["inflation"] for r in line], [r["test_01_loss_nonprivate"] for r in line], color=colour, ls=":",
                lw=1)
        star = [r for r in rows if r["eps1"] == eps1 and r["star_eps3"] == STAR_EPS3[0]]
        ax.plot([r["inflation"] for r in star], [r["test_01_loss"] for r in star], "*", color=colour, ms=14,
                markeredgecolor="k")
    ax.set_xscale("log")
    ax.set_xlabel("λ inflation c (λ = c · 2β/ε1)")
    ax.set_ylabel("test 0-1 loss")
    ax.legend(fontsize=8)
    ax.set_title(f"Fig 2.1: synthetic n = {rows[0]['n']}, d = {rows[0]['d']}, {rows[0]['trials']} trials; "
                 "dotted: non-private at the same λ", fontsize=9)
    _caption(fig, f"Star: Alg 2 DEP's required inflation 2σ3τ/(2β/ε1) at ε3 = {STAR_EPS3[0]} (ε3 not given in the "
                  "text), ρ = 1e-6, τ of (Z+Zᵀ)/√2. " + _SYNTH_NOTE)
    fig.subplots_adjust(left=0.1, right=0.97, top=0.93, bottom=0.2)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def _bins(*arrays):
    v = np.concatenate([np.asarray(a, dtype=float) for a in arrays])
    v = v[np.isfinite(v) & (v > 0)]
    return np.geomspace(v.min(), v.max(), 40) if len(v) else 10


def _arrays(rows) -> dict:
    """{(dataset, budget): {"eps1", "report_total", "ratio"} arrays} from the per-individual rows (one pass)."""
    out: dict = {}
    for r in rows:
        cell = out.setdefault((r["dataset"], r["budget"]), {"eps1": [], "report_total": [], "ratio": []})
        for k in cell:
            cell[k].append(r[k])
    return {key: {k: np.asarray(v, dtype=float) for k, v in cell.items()} for key, cell in out.items()}


def _hist_pair(ax_a, ax_b, cells: dict, title, legend: bool = True):
    """(a) ε1 (dashed) and the report (solid) per budget; (b) the ratio report/ε1 per budget."""
    bins = _bins(*(c["eps1"] for c in cells.values()), *(c["report_total"] for c in cells.values()))
    for k, (b, c) in enumerate(cells.items()):
        ax_a.hist(c["eps1"], bins=bins, histtype="step", color=f"C{k}", ls="--", label=f"ε1, {b}")
        rep = c["report_total"]
        ax_a.hist(rep[np.isfinite(rep)], bins=bins, histtype="step", color=f"C{k}", label=f"report, {b}")
    ax_a.set_xscale("log")
    ax_a.set_title(f"{title} (a)", fontsize=8)
    if legend:
        ax_a.legend(fontsize=5)
    rb = _bins(*(c["ratio"] for c in cells.values()))
    for k, (b, c) in enumerate(cells.items()):
        ax_b.hist(c["ratio"][np.isfinite(c["ratio"])], bins=rb, histtype="step", color=f"C{k}", label=b)
    ax_b.set_xscale("log")
    ax_b.set_title(f"{title} (b) report / ε1", fontsize=8)
    if legend:
        ax_b.legend(fontsize=5)


def plot_fig2_2(rows, settings, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    cells = _arrays(rows)
    dss = list(dict.fromkeys(ds for ds, _ in cells))
    budgets = list(dict.fromkeys(b for _, b in cells))
    fig, axes = plt.subplots(len(dss), 2, figsize=(11, 4 * len(dss)), squeeze=False)
    for row_axes, ds in zip(axes, dss):
        _hist_pair(row_axes[0], row_axes[1], {b: cells[(ds, b)] for b in budgets}, ds)
    infl = "; ".join(f"{s['dataset']} {s['budget']}: λ ×{s['inflation']:.3g}" for s in settings
                     if s["mode"] == "DEP" and s["budget"] in budgets)
    fig.suptitle("Fig 2.2: true ex-post ε1(z) (dashed) and Algorithm 2's report ε^P_1 (+ε2+ε3 for DEP), z ∈ D")
    _caption(fig, f"{_E20_NOTE}: {infl}. {_CANCER_NOTE}. δ = ρ = 1e-6.")
    fig.subplots_adjust(left=0.06, right=0.98, top=0.92, bottom=0.09, hspace=0.35)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_figA3_A4(rows, settings, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    cells = _arrays(rows)
    dss = list(dict.fromkeys(ds for ds, _ in cells))
    deps = [_budget_name(b) for b in DEP_BUDGETS]
    fig, axes = plt.subplots(2 * len(dss), len(deps), figsize=(4 * len(deps), 3.2 * 2 * len(dss)), squeeze=False)
    for i, ds in enumerate(dss):
        for j, b in enumerate(deps):
            pair = {name: cells[(ds, name)] for name in (_budget_name(INDEP), b)}
            _hist_pair(axes[2 * i, j], axes[2 * i + 1, j], pair, f"{ds} {b}", legend=j == 0)
    infl = "; ".join(f"{s['dataset']} {s['budget']}: ×{s['inflation']:.3g}" for s in settings if s["mode"] == "DEP")
    fig.suptitle("Figs A.3/A.4: INDEP (1,0,0) vs the DEP allocations")
    _caption(fig, f"{_E20_NOTE}: {infl}")
    fig.subplots_adjust(left=0.04, right=0.99, top=0.95, bottom=0.05, hspace=0.45, wspace=0.2)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_settings(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    labels = [f"{r['dataset']}\n{r['budget']}" for r in rows]
    x = np.arange(len(rows))
    ax.bar(x - 0.2, [r["lam"] for r in rows], 0.4, label="λ used")
    ax.bar(x + 0.2, [r["lam_kifer"] for r in rows], 0.4, label="λ of Thm 2.2.5")
    ax.set_yscale("log")
    ax.set_xticks(x, labels, fontsize=6)
    ax.legend(fontsize=8)
    ax.set_title("λ per release: Thm 2.2.5's 2β/ε1 and the DEP requirement 2σ3τ (objpert.E20)", fontsize=9)
    fig.subplots_adjust(left=0.08, right=0.98, top=0.9, bottom=0.22)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_figA1_A2(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(12, 4.8))
    series = (("lam_kifer", "max_eps1", "ε1, λ = 2β/ε1", "C0", "-"), ("lam_kifer", "max_indep", "INDEP, λ = 2β/ε1",
                                                                         "C1", "-"),
              ("lam_inflated", "max_eps1", "ε1, λ inflated", "C0", "--"),
              ("lam_inflated", "max_indep", "INDEP, λ inflated", "C1", "--"),
              ("lam_inflated", "max_dep_eps1P", "DEP ε^P_1, λ inflated", "C2", "--"),
              ("lam_inflated", "max_dep_total", "DEP ε^P_1+ε2+ε3, λ inflated", "C3", "--"))
    for ax, sweep in zip(axes, ("n", "d")):
        for setting, key, label, colour, ls in series:
            pts = sorted((r for r in rows if r["sweep"] == sweep and r["setting"] == setting), key=lambda r: r[sweep])
            ax.plot([r[sweep] for r in pts], [r[key] for r in pts], color=colour, ls=ls, marker="o", ms=3,
                    label=label)
        ax.set_yscale("log")
        ax.set_xlabel(sweep)
        if sweep == "n":
            ax.set_xscale("log")
        ax.set_ylabel("max over z ∈ D")
        ax.legend(fontsize=6)
    axes[0].set_title(f"Fig A.1: vs n (d = {[r for r in rows if r['sweep'] == 'n'][0]['d']})", fontsize=9)
    axes[1].set_title(f"Fig A.2: vs d (n = {[r for r in rows if r['sweep'] == 'd'][0]['n']})", fontsize=9)
    _caption(fig, "ε1 = 1 for θ̂P (Thm 2.2.5, δ = 1e-6); DEP at (ε2, ε3) = (1, 1), " + _E20_NOTE + ". "
             + _SYNTH_NOTE)
    fig.subplots_adjust(left=0.06, right=0.98, top=0.93, bottom=0.18, wspace=0.2)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def render(out: Path, *, quick: bool = False, dpi: int = 150) -> list[Path]:
    """Compute Figs 2.3.1, 2.1, 2.2, A.3/A.4 (with their settings table), A.1/A.2 and A.5/A.6 and write each as ``NAME.csv``
    and ``NAME.png`` into ``out``; returns the paths written. ``quick``: small n, d and grids."""
    import matplotlib

    matplotlib.use("Agg")
    mode = "quick" if quick else "full"
    load_breast_cancer_scaled()  # refuses (ParameterError) before any work when scikit-learn is missing
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def emit(name, rows, draw):
        _write_csv(out / f"{name}.csv", rows)
        draw(rows, out / f"{name}.png")
        written.extend([out / f"{name}.csv", out / f"{name}.png"])

    g = ROT_GRID[mode]
    emit("fig2_3_1_objpert_pdp", fig2_3_1_rows(g["n"], g["grid"]), lambda r, p: plot_fig2_3_1(r, p, dpi))
    emit("fig2_1_objpert_pdp", fig2_1_rows(FIG21_GRID[mode]), lambda r, p: plot_fig2_1(r, p, dpi))
    rows, settings = report_rows(mode, (INDEP,) + DEP_BUDGETS)
    fig22 = {_budget_name(INDEP), _budget_name(DEP_BUDGETS[0])}
    emit("fig2_2_objpert_pdp", [r for r in rows if r["budget"] in fig22],
         lambda r, p: plot_fig2_2(r, settings, p, dpi))
    emit("figA3_A4_objpert_pdp", rows, lambda r, p: plot_figA3_A4(r, settings, p, dpi))
    emit("reports_settings_objpert_pdp", settings, lambda r, p: plot_settings(r, p, dpi))
    emit("figA1_A2_objpert_pdp", worst_case_rows(WORST_GRID[mode]), lambda r, p: plot_figA1_A2(r, p, dpi))
    emit("figA5_A6_objpert_pdp", figA5_A6_rows(), lambda r, p: plot_figA5_A6(r, p, dpi))
    return written


# ---------------------------------------------------------------------------------------------------------------
# Figs A.5, A.6 (A.2.3: a small real logistic data set; the thesis' UCI kidney is not bundled anywhere)


@functools.lru_cache(maxsize=1)
def load_wine_binary_scaled() -> tuple[np.ndarray, np.ndarray]:
    """Stand-in for A.2.3's UCI chronic-kidney data (logistic): scikit-learn's bundled wine data (178 × 13,
    sklearn/datasets/data/wine_data.csv, read without importing scikit-learn), class 0 (59 rows) against classes 1
    and 2, labels ±1; columns z-scored, rows scaled to ‖x‖ = 1 (seed 003 §2.2.3)."""
    import importlib.util

    spec = importlib.util.find_spec("sklearn")
    if spec is None or not spec.submodule_search_locations:
        raise ParameterError("dpspec figures objpert-pdp needs scikit-learn for its real data sets: pip install -c "
                             "constraints.txt -e '.[examples]'")
    raw = np.loadtxt(Path(next(iter(spec.submodule_search_locations))) / "datasets" / "data" / "wine_data.csv",
                     delimiter=",", skiprows=1)
    X, t = raw[:, :-1], raw[:, -1]
    X = (X - X.mean(0)) / X.std(0)
    return X / np.linalg.norm(X, axis=1, keepdims=True), np.where(t == 0, 1.0, -1.0)


def figA5_A6_rows() -> list[dict]:
    """Figs A.5/A.6 as A.2.3 describes them (ε1 = 1 for θ̂P; the DATA-DEP report with ε2 = ε3 = 1, and the
    DATA-INDEP report (1, 0, 0) beside it) on the wine stand-in: per individual (member "in") the true ex-post ε1
    (Cor 2.3.2) and the report's ε^P_1, its total ε^P_1 + ε2 + ε3 and the ratio total/ε1. A.7/A.8 (UCI wine
    quality, linear regression) are not made: this module's calibration and reports are logistic only."""
    X, y = load_wine_binary_scaled()
    rows = []
    for b in (INDEP, WORST_BUDGET):
        seed = SEED + 500 + int(round(100 * b[1]))
        cal, r, _ = report_experiment(X, y, b, seed)
        for i in range(len(y)):
            rows.append({"dataset": "wine (class 0 vs rest; stand-in for UCI kidney)", "budget": _budget_name(b),
                         "mode": cal["mode"], "index": i, "y": y[i], "eps1": r["eps1"][i], "eps1P": r["eps1P"][i],
                         "report_total": r["report_total"][i], "ratio": r["report_total"][i] / r["eps1"][i],
                         "undefined": bool(r["undefined"][i]), "lam": cal["lam"], "inflation": cal["inflation"],
                         "sigma": cal["sigma"], "seed": seed})
    return rows


def plot_figA5_A6(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, (ax_a, ax_b) = plt.subplots(1, 2, figsize=(10, 4))
    for b in dict.fromkeys(r["budget"] for r in rows):
        sel = [r for r in rows if r["budget"] == b and not r["undefined"]]
        e1 = np.array([r["eps1"] for r in sel])
        tot = np.array([r["report_total"] for r in sel])
        ax_a.scatter(e1, tot, s=8, label=b)
        ax_b.hist(np.log10(tot / e1), bins=30, alpha=0.6, label=b)
    lim = [min(r["eps1"] for r in rows), max(r["report_total"] for r in rows if not r["undefined"])]
    ax_a.plot(lim, lim, color="grey", lw=1, ls="--", label="report = ε1")
    ax_a.set_xscale("log"), ax_a.set_yscale("log")
    ax_a.set_xlabel("true ex-post ε1(z) (Cor 2.3.2)"), ax_a.set_ylabel("reported ε^P_1 + ε2 + ε3")
    ax_b.set_xlabel("log10(report total / ε1)"), ax_b.set_ylabel("individuals")
    ax_a.legend(fontsize=7), ax_b.legend(fontsize=7)
    dep = next((r for r in rows if r["mode"] == "DEP"), None)
    fig.suptitle("Figs A.5/A.6 (A.2.3): wine, class 0 vs rest (stand-in for UCI kidney), n = "
                 f"{sum(1 for r in rows if r['budget'] == rows[0]['budget'])}, ε1 = 1"
                 + (f"; DEP λ inflated ×{dep['inflation']:.3g} (objpert.E20)" if dep else ""), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
