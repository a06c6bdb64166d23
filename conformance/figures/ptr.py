"""Analogues of Figs. 1–3 of "Rényi Differential Privacy of Propose-Test-Release" (seed 001_c3b5d7d7fc0e2c16.txt,
§4.2–4.3; the figures themselves are not in the seed, only their captions). The paper does not give all parameters;
the choices below are printed on each figure and follow notes ptr-rdp.md §5.1 ("regeneration grid").

- Fig. 1: ε at δ = 1e-5 of one PTR run against the noise σ1 (τ = σ2/σ1 = 0.5, b = 1), for several δ0:
  Thm 4.3 converted with [BBG+20] (``base.rdp_to_dp``, continuous search over α > 1, the paper searched [1, 200])
  against the direct Thm 4.2 with δ = 1e-5 − δ0, both with the analytic Gaussian [BW18] (valid everywhere) and
  with the classical Gaussian (dotted; a bound only where √(2 ln(1.25/δ))/σ1 < 1, marked).
- Fig. 2: ε(α) of one Poisson-subsampled step (q = 0.01, σ1 = 8, σ2 = 4, b = 1, δ0 = 1e-8): white-box Thm 4.4
  (solid inside (C1)–(C4), dashed and "not a bound" outside), black-box [ZW19] Thm 6 with Thm 4.3, and the [ZW19]
  tight formula with Thm 4.3 (a lower bound only while T2(ℓ) ≥ T1(ℓ) for all ℓ ≤ α, erratum ptr.E7; dotted beyond).
- Fig. 3: ε at δ = 1e-5 after T steps (same parameters): RDP composition + [BBG+20] of the white-box bound (orders
  outside (C1)–(C4) skipped) and of the black-box bound, against the direct route ``ptr.fig3_direct`` (Thm 4.2
  with the analytic Gaussian, [BBG18] amplification, [KOV15] optimal composition; δ split: half to the KOV15
  slack, half over the T·q per-step δ's).

Every function returns plain rows (floats) so that the data can be written as CSV next to the PNG.
"""
from __future__ import annotations

import csv
from pathlib import Path

import mpmath

from dpspec.reference.catalogue import curve, get
from dpspec.reference.errors import ConditionError

DPS = 15
DELTA = 1e-5
FIG1 = {"tau": 0.5, "b": 1.0, "delta0s": (1e-8, 1e-6, 5e-6, 9e-6)}
SUBSAMPLED = {"q": 0.01, "sigma1": 8.0, "sigma2": 4.0, "b": 1.0, "delta0": 1e-8}


def _value(statement_id: str, **params) -> float:
    return float(get(statement_id).evaluate(dps=DPS, **params).value)


def fig1_rows(sigmas) -> list[dict]:
    rows = []
    for delta0 in FIG1["delta0s"]:
        delta_gauss = mpmath.mpf(DELTA) - mpmath.mpf(delta0)
        for sigma1 in sigmas:
            p = {"b": FIG1["b"], "sigma1": sigma1, "delta0": delta0}
            rdp = curve("ptr.thm4_3", sigma2=FIG1["tau"] * sigma1, **p)
            classical = get("ptr.thm4_2").evaluate(dps=DPS, allow_outside=True, delta=delta_gauss, **p)
            rows.append({"delta0": delta0, "sigma1": sigma1,
                         "eps_rdp_thm4_3": _value("base.rdp_to_dp", curve=rdp, delta=DELTA),
                         "eps_direct_thm4_2_analytic": _value("ptr.thm4_2_analytic", delta=delta_gauss, **p),
                         "eps_direct_thm4_2_classical": float(classical.value),
                         "classical_is_a_bound": classical.is_bound})
    return rows


def fig2_rows(alphas) -> list[dict]:
    rows = []
    for alpha in alphas:
        white = get("ptr.thm4_4").evaluate(dps=DPS, allow_outside=True, alpha=alpha, **SUBSAMPLED)
        lower = get("ptr.zw19_lower").evaluate(dps=DPS, allow_outside=True, alpha=alpha, **SUBSAMPLED)
        rows.append({"alpha": alpha, "white_box_thm4_4": float(white.value), "white_box_valid": white.is_bound,
                     "black_box_zw19_upper": _value("ptr.zw19_upper", alpha=alpha, **SUBSAMPLED),
                     "lower_zw19": float(lower.value), "lower_valid": lower.is_bound})
    return rows


def _memoised(fn):
    cache: dict = {}

    def wrapped(alpha):
        key = (mpmath.mp.dps, mpmath.nstr(alpha, mpmath.mp.dps))
        if key not in cache:
            cache[key] = fn(alpha)
        return cache[key]

    return wrapped


def fig3_rows(steps_grid) -> list[dict]:
    white = _memoised(curve("ptr.thm4_4", **SUBSAMPLED))  # raises ConditionError outside (C1)–(C4): skipped
    black = _memoised(curve("ptr.zw19_upper", **SUBSAMPLED))
    rows = []
    for steps in steps_grid:
        q, delta0 = SUBSAMPLED["q"], SUBSAMPLED["delta0"]
        delta_gauss = DELTA / 2 / (steps * q) - delta0
        direct_eps, direct_delta = get("ptr.fig3_direct").evaluate(
            dps=DPS, steps=steps, q=q, sigma1=SUBSAMPLED["sigma1"], b=SUBSAMPLED["b"], delta0=delta0,
            delta_gauss=delta_gauss, delta_slack=DELTA / 2, gaussian="analytic").value
        if direct_delta > DELTA * (1 + 1e-9):
            raise ConditionError("ptr.fig3_direct", [f"δ split gives total δ = {float(direct_delta)} > {DELTA}"])
        rows.append({"steps": steps,
                     "eps_white_box": _value("base.rdp_to_dp", curve=white, delta=DELTA, steps=steps),
                     "eps_black_box": _value("base.rdp_to_dp", curve=black, delta=DELTA, steps=steps),
                     "eps_direct": float(direct_eps), "direct_total_delta": float(direct_delta)})
    return rows


# --- rendering ------------------------------------------------------------------------------------------------

def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _note(ax, text: str) -> None:
    ax.text(0.02, 0.98, text, transform=ax.transAxes, va="top", ha="left", fontsize=7,
            bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.85, "edgecolor": "0.7"})


def plot_fig1(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    fig, (ax, ratio) = plt.subplots(1, 2, figsize=(10, 4.4))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for colour, delta0 in zip(colours, FIG1["delta0s"]):
        sub = [r for r in rows if r["delta0"] == delta0]
        s = [r["sigma1"] for r in sub]
        ax.plot(s, [r["eps_rdp_thm4_3"] for r in sub], "-o", ms=3, color=colour)
        ax.plot(s, [r["eps_direct_thm4_2_analytic"] for r in sub], "--", color=colour)
        ax.plot(s, [r["eps_direct_thm4_2_classical"] for r in sub], ":", color=colour, lw=1)
        invalid = [r for r in sub if not r["classical_is_a_bound"]]
        ax.plot([r["sigma1"] for r in invalid], [r["eps_direct_thm4_2_classical"] for r in invalid], "x",
                color=colour, ms=4)
        ratio.plot(s, [r["eps_rdp_thm4_3"] / r["eps_direct_thm4_2_analytic"] for r in sub], "-o", ms=3,
                   color=colour, label=f"δ0 = {delta0:g}")
    ax.set_xlabel("σ1 (noise of the f1 release; σ2 = τσ1)")
    ax.set_ylabel("ε at δ = 1e-5")
    ax.set_yscale("log")
    ax.set_title("ε of one PTR run", fontsize=9)
    styles = [Line2D([], [], color="k", ls="-", marker="o", ms=3, label="Thm 4.3 + [BBG+20] (RDP route)"),
              Line2D([], [], color="k", ls="--", label="Thm 4.2, analytic Gaussian [BW18]"),
              Line2D([], [], color="k", ls=":", marker="x", ms=4,
                     label="Thm 4.2, classical Gaussian (× = outside its validity)")]
    ax.legend(handles=styles, fontsize=7, loc="upper right")
    _note(ax, f"τ = {FIG1['tau']}, b = {FIG1['b']:g}, δ = 1e-5\ndirect: δ_G = δ − δ0\ncolour = δ0 (right panel)")
    ax.texts[-1].set_position((0.02, 0.02))
    ax.texts[-1].set_va("bottom")
    ratio.axhline(1, color="0.5", lw=0.8)
    ratio.set_xlabel("σ1")
    ratio.set_ylabel("ε(RDP route) / ε(direct, analytic Gaussian)")
    ratio.set_title("< 1: the RDP route wins", fontsize=9)
    ratio.legend(fontsize=7)
    fig.suptitle("Fig. 1 analogue: Thm 4.3 converted to (ε, δ) vs the direct Thm 4.2", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_fig2(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    a = [r["alpha"] for r in rows]
    valid = [r for r in rows if r["white_box_valid"]]
    ax.plot(a, [r["black_box_zw19_upper"] for r in rows], "-", color="tab:blue", label="black-box: [ZW19] Thm 6 ∘ Thm 4.3")
    lower_valid = [r for r in rows if r["lower_valid"]]
    ax.plot(a, [r["lower_zw19"] for r in rows], ":", color="tab:green",
            label="[ZW19] tight formula ∘ Thm 4.3 where T1 dominates some ℓ ≤ α: not a lower bound (ptr.E7)")
    ax.plot([r["alpha"] for r in lower_valid], [r["lower_zw19"] for r in lower_valid], "-", color="tab:green",
            label="lower bound: [ZW19] tight formula ∘ Thm 4.3 (T2 dominates)")
    ax.plot(a, [r["white_box_thm4_4"] for r in rows], "--", color="tab:orange",
            label="white-box Thm 4.4 outside (C1)–(C4): not a bound")
    ax.plot([r["alpha"] for r in valid], [r["white_box_thm4_4"] for r in valid], "-", lw=2.2, color="tab:orange",
            label="white-box Thm 4.4 inside (C1)–(C4)")
    if valid:
        ax.axvspan(min(a), max(r["alpha"] for r in valid), color="tab:orange", alpha=0.08)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks([2, 4, 8, 16, 32, 64])
    ax.set_xticklabels(["2", "4", "8", "16", "32", "64"])
    ax.minorticks_off()
    ax.set_xlabel("Rényi order α")
    ax.set_ylabel("ε(α) of one subsampled PTR step")
    ax.set_title("Fig. 2 analogue: subsampled PTR, white-box vs black-box vs lower bound", fontsize=9)
    p = SUBSAMPLED
    _note(ax, f"q = {p['q']}, σ1 = {p['sigma1']:g}, σ2 = {p['sigma2']:g} (τ = {p['sigma2'] / p['sigma1']:g}), "
              f"b = {p['b']:g}, δ0 = {p['delta0']:g}\nshaded: orders where Thm 4.4's conditions hold")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_fig3(rows, path: Path, dpi: int) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    t = [r["steps"] for r in rows]
    ax.plot(t, [r["eps_white_box"] for r in rows], "-o", ms=3, color="tab:orange",
            label="white-box Thm 4.4 (only orders inside (C1)–(C4): α ≤ 10) + [BBG+20]")
    ax.plot(t, [r["eps_black_box"] for r in rows], "-o", ms=3, color="tab:blue", label="black-box [ZW19] + [BBG+20]")
    ax.plot(t, [r["eps_direct"] for r in rows], "-o", ms=3, color="tab:gray",
            label="direct: Thm 4.2 + [BBG18] + [KOV15]")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of compositions T")
    ax.set_ylabel("ε at δ = 1e-5")
    ax.set_title("Fig. 3 analogue: T steps of Poisson-subsampled PTR", fontsize=9)
    p = SUBSAMPLED
    _note(ax, f"q = {p['q']}, σ1 = {p['sigma1']:g}, σ2 = {p['sigma2']:g}, b = {p['b']:g}, δ0 = {p['delta0']:g}, "
              "δ = 1e-5\ndirect: analytic Gaussian, δ split ½ KOV15 slack, ½ over T·q steps")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


FULL = {"sigmas": [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10],
        "alphas": [2, 3, 4, 5, 6, 8, 10, 12, 16, 20, 24, 32, 40, 48, 64],
        "steps": [1, 3, 10, 30, 100, 300, 1000, 3000, 10000]}
QUICK = {"sigmas": [1, 4, 10], "alphas": [2, 5, 16], "steps": [1, 100]}


def render(out: Path, *, quick: bool = False, dpi: int = 150) -> list[Path]:
    """Compute the data and write fig{1,2,3}_ptr.png and .csv into ``out``; returns the paths written."""
    import matplotlib

    matplotlib.use("Agg")
    out.mkdir(parents=True, exist_ok=True)
    grid = QUICK if quick else FULL
    written = []
    for name, rows, plot in (("fig1_ptr", fig1_rows(grid["sigmas"]), plot_fig1),
                             ("fig2_ptr", fig2_rows(grid["alphas"]), plot_fig2),
                             ("fig3_ptr", fig3_rows(grid["steps"]), plot_fig3)):
        _write_csv(out / f"{name}.csv", rows)
        plot(rows, out / f"{name}.png", dpi)
        written += [out / f"{name}.csv", out / f"{name}.png"]
    return written
