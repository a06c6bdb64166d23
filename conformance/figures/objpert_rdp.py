"""The privacy figures of seed 003 chapter 4 and appendix C (Redberg's dissertation: objective perturbation with RDP
and hockey-stick analyses; seed file 003_dabdd6bee088f80a.txt), regenerated from the catalogue (``dpspec figures
objpert-rdp``). Every number is computed here, none is typed in; shared/notes/objpert-rdp.md §5.1 gives the figure
parameters and §5.2 B, C, F, J the values the outputs should reproduce (tests/objpert/test_figures_objpert_rdp.py
checks them, and the CSVs against the catalogue, at a few points).

Files (each a CSV with the data and a PNG rendering; the ``source`` column says reference (mpmath) or fast (torch)):

* ``fig4_1_objpert_rdp`` — Fig 4.1 (seed 003 l. 3607), both panels, (σ, β, λ) = (5, 1, 20) and (10, 1, 5), L = 1
  (the text does not state L; notes §5.1): δ(ε) of Kifer et al. (Thm 4.2.8, ``objpert.thm4_2_8``), the RDP bound of
  Thm 4.3.2 converted by Mironov's classic conversion (Mironov 2017 Prop. 3 solved for δ, :func:`rdp_delta_classic`;
  cross-checked against base.rdp_to_dp_mironov in the tests) and by BBG+20/CKS20 (``base.rdp_to_delta``), Thm 4.3.1
  corrected (``objpert.thm4_3_1``), the Gaussian lower bound (Lemma 4.3.4, ``objpert.lemma4_3_4``) and, dashed, the
  printed Thm 4.3.1 (erratum objpert.E4_1/E4_2: NOT a bound). All reference (mpmath at :data:`DPS` digits).
* ``fig4_1_eps_objpert_rdp`` — the same five bounds as ε(δ) at δ ∈ {1e-3, 1e-5, 1e-8} for (5, 1, 20), (10, 1, 5)
  and (8, 1, 10) (notes §5.2 B's first table): Kifer (Thm 4.2.8 solved for ε), base.rdp_to_dp_mironov,
  base.rdp_to_dp, Thm 4.3.1 inverted (objpert_epsilon), base.gaussian_eps at σ/L. Reference.
* ``figc2_objpert_rdp`` — Fig C.2 (seed 003 l. 9554): (σ, β, λ) = (8, 1, 10), L = 1, k = 1..4, ε ∈ [0.2, 1.4]:
  δ_k(ε) of the k-fold composition of the Lemma C.4.6 dominating pair (Lemma C.4.7, eq. C.4.11) by the tight PLD
  accountant (fast/objpert/pairs.py, both sides of the sandwich: ``pld_lower`` ≤ δ_k ≤ ``pld_upper``; fast, torch)
  against RDP→DP (k·ε(α) of Thm 4.3.2 through base.rdp_to_delta, CKS20; reference). ``exact_reference``: the
  catalogue's exact δ_k for k = 1 (closed form) and k = 2 (quadrature), objpert.lemma_c4_7's reference. The text
  does not say which RDP conversion it used ("standard composition results (Mironov, 2017)"); CKS is the one the
  notes compared.
* ``figc1_objpert_rdp`` — Fig C.1 (seed 003 l. 8669): RDP ε(α) of ObjPert (Thm 4.3.2), the Gaussian mechanism
  αL²/(2σ²) (Thm C.2.1, base.gaussian_rdp at σ/L) and the "half-normal mechanism" — a formula only (objpert.E4_10:
  f(Z) + |N(0, σ²)| as literally defined has infinite divergence), Thm 4.3.2 with a = 0 (β = 0) — at the
  (σ, λ) of :data:`FIGC1` (the text's sub-figure parameters are lost: "varying σ and λ"; a stated choice). Reference.
* ``figc3_objpert_rdp`` — Fig C.3 (seed 003 l. 11125, C.9.1): RDP of ObjPert (Thm 4.3.2, reference) vs the
  Gaussian mechanism (reference) vs DP-SGD, T steps of the Poisson-subsampled Gaussian (T·base.sgm_rdp, direction
  max; fast path dpspec.fast.base.sgm, checked against the reference in the tests), (a) σ = 100, p = 0.1,
  σ_DP-SGD = 10; (b) σ = 40, p = 0.5, σ_DP-SGD = 20. T = 1/p² (100 and 4) is the notes' guess from C.9.1's "n²
  rounds with Poisson sampling probability 1/n"; β = 1, λ = 20, L = 1 are also not in the text (notes §5.1) — the
  CSV's ``note`` column and the PNG caption say so.
* ``amp_vs_dpsgd_objpert_rdp`` — the experiment of Sec. 4.5 / Fig 4.2 (notes §4 A2–A6, A9) on scikit-learn's
  bundled breast-cancer data (fast/objpert/experiment.py, also examples/objpert_amp_vs_dpsgd.py): test accuracy
  (mean ± SE over seeds, on 57 held-out rows; the tuning selects on the other 57) of Algorithm 7 and DP-SGD at the
  same (ε, δ = 1e-5) — fixed hyperparameters, DP-SGD with
  its learning rate tuned without charge ("dishonest") and both methods under Papernot–Steinke Poisson(µ = 15.41)
  random search charged to each ("honest", arXiv 2110.03620 Thm 6) — with the calibrated noise and mean wall time per
  run. :data:`EXPERIMENT` sets the sizes: quick ε = 1 with 2 seeds (≈ 40 s on 2 quiet cores, most of it Algorithm
  7's tuned calibration), full the thesis' ε ∈ {0.1, 0.5, 1, 2, 4, 8} with 10 seeds (minutes).
"""
from __future__ import annotations

import csv
from pathlib import Path

import mpmath
import numpy as np
from mpmath import mpf

DPS = 30  # working precision of the reference calls
# Fig 4.1 (seed 003 l. 3607; notes §5.1): the two panels; L = 1 assumed (not stated in the text)
FIG4_1 = ({"panel": "left", "sigma": 5, "beta": 1, "lam": 20, "L": 1},
          {"panel": "right", "sigma": 10, "beta": 1, "lam": 5, "L": 1})
EPS_TABLE = (0.25, 0.5, 0.75, 1.0, 1.5, 2.0)  # the ε of notes §5.2 B's δ(ε) table
FIG4_1_GRID = {"full": tuple(sorted({round(0.05 * i, 2) for i in range(1, 41)} | set(EPS_TABLE))),
               "quick": EPS_TABLE}
# notes §5.2 B's ε(δ) table
EPS_AT_DELTA = {"settings": ((5, 1, 20), (10, 1, 5), (8, 1, 10)), "deltas": ("1e-3", "1e-5", "1e-8")}
# Fig C.2 (seed 003 l. 9554): σ = 8, β = 1, λ = 10, L = 1 (assumed), k = 1..4, ε from 0.2 to 1.4
FIGC2 = {"sigma": 8, "beta": 1, "lam": 10, "L": 1, "k": (1, 2, 3, 4)}
FIGC2_GRID = {"full": tuple(sorted({round(0.2 + 0.02 * i, 2) for i in range(61)})),
              "quick": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4)}
# the ε where the exact k = 2 value (mpmath quadrature, ~0.5 s each) is computed: all (full), four (quick)
FIGC2_EXACT = {"full": None, "quick": (0.2, 0.6, 1.0, 1.4)}
PLD_STEP = 1e-3  # lattice step of the PLD sandwich (fast/objpert/pairs.py's default)
# Fig C.1 (seed 003 l. 8669): the sub-figures' (σ, λ) are not in the text (references "??"); a stated choice: the two
# Fig 4.1 settings (notes §5.2 C rows), a small σ with a small λ (a large leading term a), and λ = 1e30 (a ≈ 0: ObjPert
# is the half-normal formula; notes §5.2 C's σ = 3 check); β = 1, L = 1
FIGC1 = ({"sigma": 1, "lam": 2}, {"sigma": 5, "lam": 20}, {"sigma": 10, "lam": 5}, {"sigma": 3, "lam": 1e30})
FIGC1_BETA_L = {"beta": 1, "L": 1}
# Fig C.3 (seed 003 l. 11125): σ_ObjPert = σ_GM, p, σ_DP-SGD from the text; T = 1/p², β, λ, L assumed (notes §5.1)
FIGC3 = ({"panel": "a", "sigma": 100, "p": 0.1, "sigma_sgd": 10},
         {"panel": "b", "sigma": 40, "p": 0.5, "sigma_sgd": 20})
FIGC3_FIXED = {"beta": 1, "lam": 20, "L": 1}
ALPHA_GRID = {"full": {"c1": (1.01, 1000.0, 121), "c3": (1.01, 1e4, 161)},
              "quick": {"c1": (1.01, 1000.0, 13), "c3": (1.01, 1e4, 17)}}

_L_NOTE = "L = 1 assumed (the text does not state it; notes objpert-rdp.md §5.1)"
_C1_NOTE = ("sub-figure (sigma, lambda) not in the text (lost '??' references): a stated choice; half_normal is "
            "the formula Thm 4.3.2 with a = 0 (objpert.E4_10: the literal mechanism has infinite divergence)")
_C3_NOTE = ("T = 1/p^2 is the notes' guess from C.9.1 ('n^2 rounds with Poisson rate 1/n'); beta = 1, lambda = 20, "
            "L = 1 assumed: none is stated in the text")


def _f(x) -> float | None:
    return None if x is None else float(x)


ALPHA_TABLE = (1.5, 2.0, 5.0, 10.0, 32.0, 100.0, 1000.0)  # the orders of notes §5.2 C


def _alphas(spec: tuple) -> tuple[float, ...]:
    """n orders log-spaced on [lo, hi], with notes §5.2 C's orders added."""
    lo, hi, n = spec
    return tuple(sorted({float(a) for a in np.geomspace(lo, hi, n)} | {a for a in ALPHA_TABLE if lo <= a <= hi}))


# ---------------------------------------------------------------------------------------------------------------
# the conversions


def rdp_delta_classic(curve, eps, steps: int = 1):
    """δ(ε) = min(1, inf_{α>1} exp((α − 1)(T·ε(α) − ε))): Mironov 2017 (arXiv 1702.07476) Prop. 3, ε = T·ε(α) +
    log(1/δ)/(α − 1), solved for δ — the "RDP classic" curve of Fig 4.1 (notes objpert-rdp.md §5.2 B). The exponent
    (α − 1)T·ε(α) − (α − 1)ε is convex in α for a Rényi-divergence curve (base/conversion.py's premise), so it is
    unimodal in s = log(α − 1); a golden-section search on s ∈ [−30, 30] (120 steps: a final bracket of
    60·0.618^120 ≈ 5e-24) finds its minimum, and every α gives a valid δ, so the value returned (the objective at the
    best α tried) is a valid bound whatever the search does. mpmath at the caller's precision."""
    eps = mpf(eps)

    def objective(s):
        am1 = mpmath.exp(s)
        return am1 * (steps * mpf(curve(1 + am1)) - eps)

    lo, hi = mpf(-30), mpf(30)
    g = (mpmath.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = objective(x1), objective(x2)
    for _ in range(120):
        if f1 <= f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = objective(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = objective(x2)
    best = min(f1, f2, objective(lo), objective(hi))
    return mpf(1) if best >= 0 else mpmath.exp(best)


def kifer_epsilon(delta, sigma, L, beta, lam):
    """The ε at which Thm 4.2.8's δ_Kifer(ε) = 2 exp(−(ε²σ²/L² − 4ε)/8) equals δ (seed 003 Thm 4.2.8, σ =
    L√(8 log(2/δ) + 4ε)/ε solved for ε): ε = (4 + √(16 + 32 s log(2/δ)))/(2s), s = σ²/L² (notes §5.2 B "Kifer");
    None where the theorem's condition λ ≥ 2β/ε fails at that ε (no guarantee)."""
    delta, sigma, L = mpf(delta), mpf(sigma), mpf(L)
    s = sigma * sigma / (L * L)
    eps = (4 + mpmath.sqrt(16 + 32 * s * mpmath.log(2 / delta))) / (2 * s)
    return eps if mpf(lam) * eps >= 2 * mpf(beta) else None


def _rdp_curve(sigma, lam, beta, L):
    from dpspec.reference.objpert.glm_bounds import objpert_rdp

    return lambda alpha: objpert_rdp(alpha, sigma, lam, beta, L)


# ---------------------------------------------------------------------------------------------------------------
# the data


def fig4_1_rows(eps_grid) -> list[dict]:
    """Fig 4.1's δ(ε) per panel and ε (module docstring), reference at DPS digits."""
    from dpspec.reference.base.conversion import rdp_to_delta
    from dpspec.reference.objpert.glm_bounds import lemma4_3_4, objpert_delta, thm4_3_1
    from dpspec.reference.objpert.kifer import thm4_2_8

    rows = []
    with mpmath.workdps(DPS):
        for panel in FIG4_1:
            s, b, lam, L = panel["sigma"], panel["beta"], panel["lam"], panel["L"]
            curve = _rdp_curve(s, lam, b, L)
            for eps in eps_grid:
                e = mpf(eps)
                rows.append({"panel": panel["panel"], "sigma": s, "beta": b, "lam": lam, "L": L, "eps": eps,
                             "kifer_thm4_2_8": _f(thm4_2_8(e, s, L, b, lam)),
                             "rdp_classic": _f(rdp_delta_classic(curve, e)),
                             "rdp_cks": _f(rdp_to_delta(curve, e)),
                             "thm4_3_1": _f(thm4_3_1(e, s, lam, b, L)),
                             "gaussian_lower_lemma4_3_4": _f(lemma4_3_4(e, s, L)),
                             "thm4_3_1_printed_E4_1": _f(objpert_delta(e, s, lam, b, L, printed=True)),
                             "source": "reference", "note": _L_NOTE})
    return rows


def fig4_1_eps_rows() -> list[dict]:
    """ε(δ) of the five Fig 4.1 bounds at notes §5.2 B's (σ, β, λ) and δ, reference at DPS digits."""
    from dpspec.reference.base.conversion import rdp_to_dp, rdp_to_dp_mironov
    from dpspec.reference.base.gaussian import gaussian_eps
    from dpspec.reference.objpert.glm_bounds import objpert_epsilon

    rows, L = [], 1
    with mpmath.workdps(DPS):
        for s, b, lam in EPS_AT_DELTA["settings"]:
            curve = _rdp_curve(s, lam, b, L)
            for d in EPS_AT_DELTA["deltas"]:
                delta = mpf(d)
                rows.append({"sigma": s, "beta": b, "lam": lam, "L": L, "delta": float(delta),
                             "kifer_thm4_2_8": _f(kifer_epsilon(delta, s, L, b, lam)),
                             "rdp_classic": _f(rdp_to_dp_mironov(curve, delta)),
                             "rdp_cks": _f(rdp_to_dp(curve, delta)),
                             "thm4_3_1": _f(objpert_epsilon(delta, s, lam, b, L)),
                             "gaussian_lower_lemma4_3_4": _f(gaussian_eps(delta, mpf(s) / L)),
                             "source": "reference", "note": _L_NOTE})
    return rows


def figc2_rows(eps_grid, exact_at=None) -> list[dict]:
    """Fig C.2: per k and ε, the PLD sandwich of k composed Lemma C.4.6 pairs (fast), RDP→DP (CKS20, reference) and,
    for k ≤ 2, the catalogue's exact δ_k (reference: objpert.lemma_c4_7's composed_delta) — for k = 2 only at the ε
    of ``exact_at`` when given (None: every ε)."""
    from dpspec.fast.objpert.pairs import composed_delta_interval
    from dpspec.reference.base.conversion import rdp_to_delta
    from dpspec.reference.objpert.composition import composed_delta

    s, b, lam, L = FIGC2["sigma"], FIGC2["beta"], FIGC2["lam"], FIGC2["L"]
    curve = _rdp_curve(s, lam, b, L)
    rows = []
    with mpmath.workdps(DPS):
        for k in FIGC2["k"]:
            for eps in eps_grid:
                lo, hi = composed_delta_interval(eps, s, lam, b, L, k, PLD_STEP)
                wanted = k == 1 or (k == 2 and (exact_at is None or eps in exact_at))
                exact = composed_delta(mpf(eps), s, lam, b, L, k) if wanted else None
                rows.append({"sigma": s, "beta": b, "lam": lam, "L": L, "k": k, "eps": eps, "pld_lower": lo,
                             "pld_upper": hi, "exact_reference": _f(exact),
                             "rdp_cks": _f(rdp_to_delta(curve, mpf(eps), steps=k)), "pld_step": PLD_STEP,
                             "source": "pld: fast (torch sandwich); rdp_cks, exact_reference: reference",
                             "note": _L_NOTE})
    return rows


def figc1_rows(alphas) -> list[dict]:
    """Fig C.1: ε(α) of ObjPert (Thm 4.3.2), Gaussian (base.gaussian_rdp at σ/L) and the half-normal formula
    (Thm 4.3.2 at β = 0, so a = 0), reference."""
    from dpspec.reference.base.gaussian import gaussian_rdp
    from dpspec.reference.objpert.glm_bounds import objpert_rdp

    b, L = FIGC1_BETA_L["beta"], FIGC1_BETA_L["L"]
    rows = []
    with mpmath.workdps(DPS):
        for panel in FIGC1:
            s, lam = panel["sigma"], panel["lam"]
            for alpha in alphas:
                a = mpf(alpha)
                rows.append({"sigma": s, "lam": lam, "beta": b, "L": L, "alpha": alpha,
                             "objpert_thm4_3_2": _f(objpert_rdp(a, s, lam, b, L)),
                             "gaussian": _f(gaussian_rdp(a, mpf(s) / L)),
                             "half_normal_formula": _f(objpert_rdp(a, s, lam, 0, L)),
                             "source": "reference", "note": _C1_NOTE})
    return rows


def figc3_rows(alphas) -> list[dict]:
    """Fig C.3: ε(α) of ObjPert (Thm 4.3.2, reference), the Gaussian mechanism (reference) and T = 1/p² steps of
    DP-SGD (T·sgm_rdp(α, p, σ_DP-SGD), direction max; fast path)."""
    import torch

    from dpspec.fast.base.sgm import sgm_rdp
    from dpspec.reference.base.gaussian import gaussian_rdp
    from dpspec.reference.objpert.glm_bounds import objpert_rdp

    b, lam, L = FIGC3_FIXED["beta"], FIGC3_FIXED["lam"], FIGC3_FIXED["L"]
    rows = []
    for panel in FIGC3:
        s, p, s_sgd = panel["sigma"], panel["p"], panel["sigma_sgd"]
        steps = round(1 / (p * p))
        sgd = sgm_rdp(torch.tensor(alphas, dtype=torch.float64), p, s_sgd).tolist()
        with mpmath.workdps(DPS):
            for alpha, one in zip(alphas, sgd):
                a = mpf(alpha)
                rows.append({"panel": panel["panel"], "sigma": s, "p": p, "sigma_sgd": s_sgd, "T": steps,
                             "beta": b, "lam": lam, "L": L, "alpha": alpha,
                             "objpert_thm4_3_2": _f(objpert_rdp(a, s, lam, b, L)),
                             "gaussian": _f(gaussian_rdp(a, mpf(s) / L)), "dp_sgd": steps * one,
                             "source": "objpert, gaussian: reference; dp_sgd: fast (torch base.sgm_rdp)",
                             "note": _C3_NOTE})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# output


def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _positive(xs, ys):
    pts = [(x, y) for x, y in zip(xs, ys) if y is not None and y > 0]
    return [p[0] for p in pts], [p[1] for p in pts]


_F41 = (("kifer_thm4_2_8", "Kifer et al. (Thm 4.2.8)", "tab:red", "-"),
        ("rdp_classic", "RDP (Thm 4.3.2) → DP, Mironov", "tab:orange", "-"),
        ("rdp_cks", "RDP (Thm 4.3.2) → DP, BBG/CKS", "tab:olive", "-"),
        ("thm4_3_1", "Thm 4.3.1 (hockey-stick, corrected)", "tab:blue", "-"),
        ("gaussian_lower_lemma4_3_4", "Gaussian lower bound (Lemma 4.3.4)", "k", "-"),
        ("thm4_3_1_printed_E4_1", "Thm 4.3.1 as printed (E4_1: NOT a bound)", "tab:blue", "--"))


def plot_fig4_1(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4))
    for ax, panel in zip(axes, FIG4_1):
        sub = [r for r in rows if r["panel"] == panel["panel"]]
        for key, label, colour, style in _F41:
            xs, ys = _positive([r["eps"] for r in sub], [r[key] for r in sub])
            ax.plot(xs, ys, style, color=colour, label=label, marker="." if len(xs) < 12 else None)
        ax.set_yscale("log")
        ax.set_ylim(top=2)
        ax.set_xlabel("ε")
        ax.set_ylabel("δ(ε)")
        ax.set_title(f"σ = {panel['sigma']}, β = {panel['beta']}, λ = {panel['lam']}, L = {panel['L']}")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].legend(fontsize=7, loc="lower left")
    fig.suptitle("seed 003 Fig 4.1: (ε, δ) bounds for objective perturbation (reference; L = 1 assumed)", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_fig4_1_eps(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.4))
    settings = EPS_AT_DELTA["settings"]
    for key, label, colour, _ in _F41[:5]:
        xs, ys = [], []
        for i, r in enumerate(rows):
            if r[key] is not None:
                xs.append(i)
                ys.append(r[key])
        ax.plot(xs, ys, "o", color=colour, label=label)
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['sigma']},{r['beta']},{r['lam']}\nδ={r['delta']:g}" for r in rows], fontsize=6)
    ax.set_ylabel("ε(δ)")
    ax.set_title(f"ε(δ) of the Fig 4.1 bounds at (σ, β, λ) ∈ {settings} (reference)", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_figc2(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.6))
    colours = ("tab:blue", "tab:orange", "tab:green", "tab:red")
    for k, colour in zip(FIGC2["k"], colours):
        sub = [r for r in rows if r["k"] == k]
        xs, ys = _positive([r["eps"] for r in sub], [r["rdp_cks"] for r in sub])
        ax.plot(xs, ys, "--", color=colour, label=f"RDP k = {k}")
        xs, ys = _positive([r["eps"] for r in sub], [r["pld_upper"] for r in sub])
        ax.plot(xs, ys, "-", color=colour, label=f"Hockey-stick (PLD) k = {k}")
    ax.set_yscale("log")
    ax.set_ylim(1e-15, 1)
    ax.set_xlabel("ε")
    ax.set_ylabel("δ(ε)")
    ax.set_title("seed 003 Fig C.2: σ = 8, β = 1, λ = 10, L = 1 (assumed); PLD (fast) vs RDP→DP CKS (reference)",
                 fontsize=8)
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_figc1(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(10, 7.5))
    for ax, panel in zip(axes.ravel(), FIGC1):
        sub = [r for r in rows if r["sigma"] == panel["sigma"] and r["lam"] == panel["lam"]]
        xs = [r["alpha"] for r in sub]
        ax.plot(xs, [r["objpert_thm4_3_2"] for r in sub], color="tab:blue", label="ObjPert (Thm 4.3.2)")
        ax.plot(xs, [r["gaussian"] for r in sub], color="k", label="normal (Gaussian mechanism)")
        ax.plot(xs, [r["half_normal_formula"] for r in sub], "--", color="tab:orange",
                label="half-normal (formula, a = 0; E4_10)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("α")
        ax.set_ylabel("ε(α)")
        ax.set_title(f"σ = {panel['sigma']}, λ = {panel['lam']:g}, β = {FIGC1_BETA_L['beta']}, L = 1", fontsize=9)
        ax.grid(True, alpha=0.3)
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("seed 003 Fig C.1: RDP curves (reference); (σ, λ) a stated choice, the text's are lost", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_figc3(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4.6))
    for ax, panel in zip(axes, FIGC3):
        sub = [r for r in rows if r["panel"] == panel["panel"]]
        xs = [r["alpha"] for r in sub]
        ax.plot(xs, [r["objpert_thm4_3_2"] for r in sub], color="tab:blue", label="ObjPert (Thm 4.3.2)")
        ax.plot(xs, [r["gaussian"] for r in sub], color="k", label="Gaussian mechanism")
        ax.plot(xs, [r["dp_sgd"] for r in sub], color="tab:red", label=f"DP-SGD, T = {sub[0]['T']} (assumed)")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("α")
        ax.set_ylabel("ε(α)")
        ax.set_title(f"({panel['panel']}) σ_ObjPert = σ_GM = {panel['sigma']}; p = {panel['p']}, "
                     f"σ_DP-SGD = {panel['sigma_sgd']}", fontsize=9)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    fig.text(0.5, 0.01, "T = 1/p² (notes' guess from C.9.1), β = 1, λ = 20, L = 1: not stated in the text",
             ha="center", fontsize=8)
    fig.suptitle("seed 003 Fig C.3: RDP of objective perturbation vs DP-SGD", fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 1))
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def render(out: Path, *, quick: bool = False, dpi: int = 150) -> list[Path]:
    """Compute Figs 4.1 (and its ε(δ) table), C.2, C.1, C.3 and write each as ``NAME.csv`` and ``NAME.png`` into
    ``out``; returns the paths written. ``quick``: the ε of notes §5.2 B / F only and coarse α grids."""
    import matplotlib

    matplotlib.use("Agg")
    mode = "quick" if quick else "full"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    def emit(name, rows, draw):
        _write_csv(out / f"{name}.csv", rows)
        draw(rows, out / f"{name}.png")
        written.extend([out / f"{name}.csv", out / f"{name}.png"])

    emit("fig4_1_objpert_rdp", fig4_1_rows(FIG4_1_GRID[mode]), lambda r, p: plot_fig4_1(r, p, dpi))
    emit("fig4_1_eps_objpert_rdp", fig4_1_eps_rows(), lambda r, p: plot_fig4_1_eps(r, p, dpi))
    emit("figc2_objpert_rdp", figc2_rows(FIGC2_GRID[mode], FIGC2_EXACT[mode]), lambda r, p: plot_figc2(r, p, dpi))
    emit("figc1_objpert_rdp", figc1_rows(_alphas(ALPHA_GRID[mode]["c1"])), lambda r, p: plot_figc1(r, p, dpi))
    emit("figc3_objpert_rdp", figc3_rows(_alphas(ALPHA_GRID[mode]["c3"])), lambda r, p: plot_figc3(r, p, dpi))
    if EXPERIMENT[mode] is not None:
        emit("amp_vs_dpsgd_objpert_rdp", experiment_rows(**EXPERIMENT[mode]), lambda r, p: plot_experiment(r, p, dpi))
    return written


# ---------------------------------------------------------------------------------------------------------------
# The experiment (Sec. 4.5 / Fig 4.2 on a bundled dataset; fast/objpert/experiment.py)

EXPERIMENT = {"quick": {"eps": (1.0,), "seeds": 2}, "full": {"eps": (0.1, 0.5, 1.0, 2.0, 4.0, 8.0), "seeds": 10}}


def experiment_rows(eps, seeds) -> list[dict]:
    """One row per ε: every column of fast.objpert.experiment.compare (honest and dishonest included) and the
    setting (n, d, T, µ, the non-private accuracy)."""
    from dpspec.fast.objpert.experiment import compare

    rows, setting = compare(tuple(eps), seeds=seeds)
    keep = {k: v for k, v in setting.items() if k != "lr_grid"}
    return [{**r, **keep, "lr_grid": " ".join(f"{v:.4g}" for v in setting["lr_grid"]),
             "source": "fast (torch): Algorithm 7 alg7_amp, DP-SGD loop; accountants fast"} for r in rows]


def plot_experiment(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    eps = [r["eps"] for r in rows]
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    series = (("amp", "Algorithm 7 (fixed)", "C0", "-"), ("dpsgd", "DP-SGD (fixed lr)", "C1", "-"),
              ("dpsgd_dishonest", "DP-SGD, lr tuned uncharged", "C1", ":"),
              ("amp_honest", "Algorithm 7, P&S tuning charged", "C0", "--"),
              ("dpsgd_honest", "DP-SGD, P&S tuning charged", "C1", "--"))
    for key, label, colour, ls in series:
        if rows[0].get(f"{key}_acc") is None:
            continue
        ax.errorbar(eps, [r[f"{key}_acc"] for r in rows], yerr=[1.96 * r[f"{key}_se"] for r in rows], marker="o",
                    capsize=3, color=colour, ls=ls, label=label)
    ax.axhline(rows[0]["nonprivate_acc"], color="grey", ls="--", lw=1, label="non-private")
    ax.set_xscale("log")
    ax.set_xticks(eps, [f"{e:g}" for e in eps])
    ax.minorticks_off()
    ax.set_xlabel(f"ε (δ = {rows[0]['delta']:g})")
    ax.set_ylabel(f"test accuracy (mean ± 1.96 SE, {rows[0]['seeds']} seeds)")
    ax.set_title(f"breast cancer (n = {rows[0]['n_train']}), logistic regression; µ = {rows[0]['mu']:.2f}",
                 fontsize=9)
    ax.legend(loc="lower right", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)

