"""Table 1 and the comparison tables and plots of seed 002 ("Generalizing DP-SGD with Shuffling and Batch Clipping",
van Dijk et al., arXiv 2212.05796; seed file 002_5bf9d068e79d7537.txt), regenerated from the catalogue
(``dpspec figures bc``). Every number is computed here, none is typed in: the test vectors of notes
shared/notes/batch-clipping-fdp.md §5.3–§5.6 are what the output should reproduce (tests/conformance/test_figures_bc.py
checks it at a few points against the catalogue).

Files (each a CSV with the data and a PNG rendering):

* ``table1_bc``: Table 1 of seed 002, reconstructed (its header row was lost in extraction; notes §2.14), at one
  stated setting (:data:`TABLE1`): per row the printed h as ε at δ (the ε of the G_μ the row states or approximates:
  the guarantee end of a printed range, reference/bc/table1.py), beside it the exact A1 ε (Def. 4.2 mixture of the
  row's sampler, clipping and group size), the printed tail (e^{−E}, e^{−gE}, e^{−γgE}, g²ms/(N−g), g²/(N/s−g−g²))
  beside the exact tail of q_E at the same cut point, and for row 1 the A0 ε (PLD of C_γ(G_{1/σ})^{⊗T}, fixed-size
  batches, fast/bc/accounting.py's units).
* ``table5_3_bc`` (+ ``table5_3_tails_bc``): Lemma F.2/F.6 (SS, g = 1, N/(sm) = 100): exact A1 ε vs the F.6 printed
  lower bound (the claimed guarantee) vs G_{√E/σ} at δ = 1e-5 and 1e-10, the ε-interval where the printed guarantee
  is violated; and the exact tails at the printed cut points against e^{−E} (the Hoeffding step, seed 002 F.2).
* ``table5_4_bc``: Lemma F.7 / Cor F.8 (IC, SS, general g): exact A1 vs F.7 fL (γ = 1/g) vs Cor F.8's G_μ vs
  G_{√(gE)/σ} vs group privacy G_{g√E/σ}.
* ``table5_5_bc`` (+ ``table5_5_qj_bc``): shuffling with batch clipping: the true occupancy law vs the printed
  Bose–Einstein q_j of G.3 (Lemma G.4), and ε of both against G_{√(gE)/σ}.
* ``table5_6_bc``: the paper's experimental setting (σ = 2, E = 100, g = 1, δ = 1e-5): A1 shuffling (G_{√E/σ},
  Lemma G.2), exact A1 subsampling for sm ∈ {64, …, 1024}, the F.6 range endpoints, and the A0 PLD interval.
* ``fig_tradeoff_bc`` and ``fig_profile_bc``: f (Def. 4.2), f̂U, f̂L (Defs. 4.3/4.4 at the F.6 cut points with the
  exact tails; and with the printed e^{−E}), the A0 curve (PLD bracket) and G_{√E/σ}, as trade-off curves and as
  privacy profiles δ(ε), for the paper's setting with subsampling (:data:`FIGURE`).

Deviation from the notes, stated on the outputs: the notes' N = 50000 and 60000 (CIFAR-10, MNIST) are not multiples
of sm, and Algorithm 1 needs N/(sm) to be an integer (condition ROUNDS_INTEGER, reference/bc/spec.py); the nearest
multiples of 1024 are used instead, N = 50176 and 60416 (the A1 ε moves in the fourth digit, the A0 ε through
q = sm/N by a few tenths of a percent).

A0 units (fast/bc/accounting.py): Algorithm 1 with subsampling draws exactly sm of N samples per round without
replacement and its neighbours are replace-one, so its A0 object is C_γ(G_{1/σ})^{⊗T}, γ = sm/N, T = E·N/(ms)
(Dong, Roth & Su, arXiv 1905.02383, Thm 4.2/5.1): the accountant's ``base.sgm_wor_rdp`` at m = sm, n = N, noise 2σ
(shift 2 per replacement, μ = 1/σ), composed through the symmetric pair C_γ(f) (sound by Thm 4.2), certified PLD
interval. The Poisson add/remove number at q = sm/N (notes §5.6's f_p column) is not a guarantee for this algorithm
and is not shown. A0 exists only for subsampling with g = 1 (notes §3.4); elsewhere the A0 cells are empty.
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

import mpmath
from mpmath import mpf

DELTA = 1e-5
DELTA_SMALL = 1e-10
# Table 1 (notes §2.14): a general (6) configuration with ms = 64 (paper §5: MC has s = 64; here m·s = 4·16), g = 2;
# the paper's σ = 2, E = 100 and N = 50176 (the multiple of 64 — and of 1024 — nearest to CIFAR-10's 50000).
TABLE1 = {"full": {"N": 50176, "m": 4, "s": 16, "g": 2, "E": 100, "sigma": 2},
          "quick": {"N": 1280, "m": 4, "s": 16, "g": 2, "E": 5, "sigma": 2}}
# notes §5.3: (E, σ) with √E/σ = 1 (and the paper's E = 100, σ = 2); c² ~ Binomial(100E, 0.01), here as general (6)
# with N = 6400, m = 4, s = 16 (N/(sm) = 100; for g = 1 the law depends only on T and sm/N).
T53_CONFIG = {"N": 6400, "m": 4, "s": 16}
T53 = {"full": ((16, 4), (64, 8), (100, 10), (100, 2), (400, 20)), "quick": ((16, 4),)}
T53_TAILS_E = {"full": (1, 4, 16, 64, 100), "quick": (4, 16)}
# notes §5.4: (N, m, g, E, σ), IC (s = 1)
T54 = {"full": ((1000, 10, 1, 10, 2), (1000, 10, 2, 10, 2), (1000, 10, 4, 10, 3), (1000, 2, 4, 10, 3),
                (2000, 4, 8, 5, 4)),
       "quick": ((1000, 10, 2, 10, 2),)}
# notes §5.5: (N/s, s, g, E, σ), batch clipping (m = 1) with shuffling; the q_j comparison at N/s = 100, s = 64
T55 = {"full": ((100, 64, 3, 10, 2), (100, 64, 5, 10, 3), (781, 64, 2, 100, 2)), "quick": ((100, 64, 3, 10, 2),)}
T55_QJ = {"full": (2, 3, 5), "quick": (2, 3)}
T55_QJ_CONFIG = {"batches": 100, "s": 64}
# notes §5.6: the paper's experiments (seed 002 §5): σ = 2, E = 100, g = 1
PAPER = {"sigma": 2, "E": 100, "g": 1}
T56 = {"full": {"N": (50176, 60416), "sm": (64, 128, 256, 512, 1024)}, "quick": {"N": (50176,), "sm": (1024,)}}
# the plots: the paper's setting with subsampling, N = 50176 (CIFAR-10 rounded), sm = 256
FIGURE = {"N": 50176, "m": 1, "s": 256, "g": 1, "E": 100, "sigma": 2}
# grid sizes; a0_step: the PLD lattice step of the A0 curves (None: the accountant's choice for ε(1e-5); quick: a
# coarser lattice, still a certified bracket, only wider)
GRIDS = {"full": {"alphas": 241, "eps": 241, "violation": 4000, "a0_step": None},
         "quick": {"alphas": 61, "eps": 61, "violation": 800, "a0_step": 1e-3}}
DPS = 30  # working precision of the reference calls (the reference's @self_checked compares two precisions)

_A0_NOTE = ("A0: C_γ(G_{1/σ})^{⊗T}, γ = sm/N, the paper's fixed-size batches without replacement, replace-one "
            "(Dong–Roth–Su Thm 4.2/5.1; accountant base.sgm_wor_rdp, noise 2σ, symmetric pair C_γ(f), certified PLD "
            "interval); the Poisson add/remove number is not a guarantee for this algorithm.")
_ROUNDING = ("N/(sm) must be an integer (Algorithm 1, ROUNDS_INTEGER): N = 50176 and 60416, the multiples of 1024 "
             "nearest to the paper's 50000 (CIFAR-10) and 60000 (MNIST)")


# ---------------------------------------------------------------------------------------------------------------
# small helpers

def _f(x) -> float | None:
    """A plain float for the CSV (None stays None: an empty cell)."""
    return None if x is None else float(x)


def _gauss_eps(delta, mu) -> float:
    """ε at δ of G_μ (eq. (7) of seed 002; the Gaussian mechanism with σ = 1/μ: base.gaussian_eps, fast path)."""
    from dpspec.fast.base.gaussian import gaussian_eps

    return float(gaussian_eps(float(delta), 1 / float(mu)))


def _a1_eps(delta, sampling, N, m, s, g, E, sigma) -> float:
    """ε at δ of the exact A1 mixture (seed 002 Def. 4.2 / Thm 4.6; fast path of bc.a1_epsilon)."""
    from dpspec.fast.bc.mixture import a1_epsilon

    return float(a1_epsilon(delta, sampling, N, m, s, g, E, sigma))


def _epochs(l, E):
    """1 − (1 − l)^E: the text's per-epoch tail bound over E independent epochs (seed 002 Thm G.1, G.3/G.4)."""
    l = min(mpf(1), mpf(l))
    return mpf(1) if l >= 1 else -mpmath.expm1(E * mpmath.log1p(-l))


def _exceeds(a, b) -> bool | None:
    """a > b beyond rounding (a, b: ε values; None where either is missing)."""
    if a is None or b is None:
        return None
    return bool(a > b * (1 + 1e-9) + 1e-12)


# ---------------------------------------------------------------------------------------------------------------
# Table 1 (notes §2.14)

def _table1_tails(row: int, cfg: dict, E: int, N: int, m: int, s: int) -> dict:
    """The printed tail and the exact tail of q_E at the same cut point (c² units) for one row of Table 1 (seed 002;
    cut points as in the lemma each row comes from, notes §2.12–§2.13): l at c_L (lower bounds, Def. 4.4) and u at
    c_U (upper bounds, Def. 4.3). Empty where the row has no tail (row 1, A0)."""
    from dpspec.reference.bc.appendix_f import f7_cut, hoeffding_cuts2
    from dpspec.reference.bc.appendix_g import g3_l, g4_u
    from dpspec.reference.bc.bounds import exact_tail_above, exact_tail_below

    g, mm, ss = cfg["g"], cfg["m"], cfg["s"]
    sampling = "subsampling" if row <= 4 else "shuffling"
    law = (sampling, N, mm, ss, g, E)
    out = dict.fromkeys(("l_cut_c2", "l_printed", "l_exact", "u_cut_c2", "u_printed", "u_exact"))
    if row == 1:
        return out
    if row == 2:  # Lemma F.7 with Cor F.8's γ = 1/g: c_L² = (e^{N/(N−g−m)} + γ) min{m,g} g E, l = e^{−γgE}
        c_L, l = f7_cut(N, mm, g, E, mpf(1) / g)
        out.update(l_cut_c2=c_L ** 2, l_printed=l)
    elif row in (3, 4):  # Lemma F.9 (q ≈ g, as Table 1 prints it) / F.6: c² = (1 ± 1/√(2·mean))·mean, e^{−mean}
        mean = g * E if row == 3 else E
        cu2, cl2 = hoeffding_cuts2(mpf(mean))
        out.update(l_cut_c2=cl2, l_printed=mpmath.exp(-mean), u_cut_c2=cu2, u_printed=mpmath.exp(-mean))
    elif row == 5:  # Lemma G.2: c² = E exactly
        out.update(l_cut_c2=mpf(E), l_printed=mpf(0), u_cut_c2=mpf(E), u_printed=mpf(0))
    elif row == 6:  # Lemma G.3 / Thm G.1: l = g²ms/(N−g) per epoch, 1 − (1−l)^E over E epochs, cut c² = gE
        out.update(l_cut_c2=mpf(g * E), l_printed=_epochs(g3_l(N, m, s, g), E))
    elif row == 7:  # Lemma G.4: c² ≤ gE always
        out.update(l_cut_c2=mpf(g * E), l_printed=mpf(0))
    elif row == 8:  # Lemma G.4 upper: u = g²/(N/s − g − g²) per epoch (s = ms for BC), over E epochs, cut c² = gE
        u = g4_u(N, ss, g)
        out.update(u_cut_c2=mpf(g * E), u_printed=_epochs(u, E) if u > 0 else None)
    if out["l_cut_c2"] is not None:
        out["l_exact"] = exact_tail_above(*law, out["l_cut_c2"])
    if out["u_cut_c2"] is not None:
        out["u_exact"] = exact_tail_below(*law, out["u_cut_c2"])
    return {k: _f(v) for k, v in out.items()}


def table1_rows(setting: dict, delta: float = DELTA) -> list[dict]:
    """Table 1 of seed 002 (reconstructed, notes §2.14) at ``setting`` (N, m, s, g, E, σ): reference/bc/table1.py's
    printed and exact ε, the tails of :func:`_table1_tails`, and for row 1 the A0 ε interval (PLD)."""
    from dpspec.fast.bc.accounting import report
    from dpspec.reference.bc.table1 import ROWS
    from dpspec.reference.bc.table1 import table1_rows as reference_rows

    N, m, s, g, E, sigma = (setting[k] for k in ("N", "m", "s", "g", "E", "sigma"))
    with mpmath.workdps(DPS):
        ref = reference_rows(N, m, s, g, E, sigma, delta)
        rows = []
        for r in ref:
            cfg = r["config"]
            eps_printed, eps_exact = _f(r["eps_printed"]), _f(r["eps_exact"])
            row = {"row": r["row"], "sampling": r["sampling"], "clipping": r["clipping"], "groups": r["groups"],
                   "model": r["model"], "printed_h": r["printed_h"],
                   "approximation": next(x.approximation for x in ROWS if x.number == r["row"]),
                   "statements": " ".join(r["statements"]),
                   "N": cfg["N"], "m": cfg["m"], "s": cfg["s"], "g": cfg["g"], "E": E, "sigma": sigma,
                   "delta": delta, "printed_mu": _f(r["printed_mu"]), "eps_printed": eps_printed,
                   "eps_exact_a1": eps_exact, "eps_a0_lower": None, "eps_a0_upper": None,
                   "exact_exceeds_printed": _exceeds(eps_exact, eps_printed)}
            if r["row"] == 1:
                rep = report("subsampling", N, cfg["m"], cfg["s"], 1, E, sigma, delta)
                row["eps_a0_lower"], row["eps_a0_upper"] = rep.eps_a0_interval
            tails = _table1_tails(r["row"], cfg, E, N, m, s)
            row.update(tails)
            row["printed_tail_too_small"] = any(
                tails[f"{k}_exact"] is not None and tails[f"{k}_printed"] is not None
                and tails[f"{k}_exact"] > tails[f"{k}_printed"] * (1 + 1e-9) + 1e-300 for k in ("l", "u"))
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------------------------
# §5.3: Lemma F.2/F.6, the Hoeffding failure (SS, g = 1)

def _f6_printed_cut(E):
    """(c_L, l) of Lemma F.6's printed lower bound: c_L² = (1 + 1/√(2E))E, l = e^{−E} (seed 002 F.2, Lemma F.6)."""
    return math.sqrt((1 + 1 / math.sqrt(2 * E)) * E), math.exp(-E)


def _violation_interval(E, sigma, points: int) -> tuple[float | None, float | None]:
    """The ε-interval on which the exact A1 δ(ε) exceeds the δ(ε) of Lemma F.6's printed lower bound (fL of Def. 4.4
    with the printed c_L and l = e^{−E}), i.e. where the printed "guarantee" is violated: a grid of ``points`` from
    ε = 0 to the exact ε at δ = 1e-30, each end refined on two finer grids (to 1/4096 of a grid step); the upper end
    is None where the violation lasts to the grid's end, and (None, None) when the grid finds none."""
    import torch

    from dpspec.fast.bc.bounds import fl_delta
    from dpspec.fast.bc.mixture import a1_profile

    c = T53_CONFIG
    c_L, l = _f6_printed_cut(E)

    def gap(eps):  # log δ_A1 − log δ_F6 (> 0: violated)
        eps = torch.as_tensor(eps, dtype=torch.float64)
        return (torch.log(a1_profile(eps, "subsampling", c["N"], c["m"], c["s"], 1, E, sigma))
                - torch.log(fl_delta(eps, c_L, l, sigma)))

    top = _a1_eps(1e-30, "subsampling", c["N"], c["m"], c["s"], 1, E, sigma)
    grid = torch.linspace(0, top, points, dtype=torch.float64)
    bad = torch.nonzero(gap(grid) > 0).flatten()
    if bad.numel() == 0:
        return None, None

    def refine(lo, hi, rising: bool):
        """The sign change of gap in [lo, hi] (rising: ≤ 0 at lo, > 0 at hi), by two finer grids of 65 points."""
        for _ in range(2):
            x = torch.linspace(lo, hi, 65, dtype=torch.float64)
            hit = torch.nonzero(gap(x) > 0).flatten()
            if hit.numel() == 0:  # rounding between the batched and the finer evaluation: keep the bracket
                break
            i = min(max(int(hit[0]), 1), 64) if rising else max(min(int(hit[-1]), 63), 0)
            lo, hi = (float(x[i - 1]), float(x[i])) if rising else (float(x[i]), float(x[i + 1]))
        return hi if rising else lo

    first, last = int(bad[0]), int(bad[-1])
    start = 0.0 if first == 0 else refine(float(grid[first - 1]), float(grid[first]), True)
    end = None if last == points - 1 else refine(float(grid[last]), float(grid[last + 1]), False)
    return start, end


def table5_3_rows(pairs, points: int) -> list[dict]:
    """notes §5.3, second table: ε at δ = 1e-5 and 1e-10 of the exact A1 f (bc.a1_epsilon, fast), of Lemma F.6's
    printed lower bound (bc.lemma_f6_eps, variant printed: fL with c_L² = (1 + 1/√(2E))E, l = e^{−E}), and of
    G_{√E/σ}; ``violated_*``: the exact ε exceeds the printed guarantee's."""
    from dpspec.reference.bc.appendix_f import lemma_f6_eps_printed

    c = T53_CONFIG
    rows = []
    with mpmath.workdps(DPS):
        for E, sigma in pairs:
            row = {"E": E, "sigma": sigma, "N": c["N"], "m": c["m"], "s": c["s"], "rounds_per_epoch":
                   c["N"] // (c["m"] * c["s"]), "sqrtE_over_sigma": math.sqrt(E) / sigma}
            for tag, delta in (("1e-5", DELTA), ("1e-10", DELTA_SMALL)):
                exact = _a1_eps(delta, "subsampling", c["N"], c["m"], c["s"], 1, E, sigma)
                printed = float(lemma_f6_eps_printed(mpf(delta), c["N"], c["m"], c["s"], E, sigma))
                row.update({f"eps_exact_a1_{tag}": exact, f"eps_f6_printed_{tag}": printed,
                            f"eps_gauss_sqrtE_{tag}": _gauss_eps(delta, math.sqrt(E) / sigma),
                            f"violated_{tag}": _exceeds(exact, printed)})
            row["violated_from_eps"], row["violated_to_eps"] = _violation_interval(E, sigma, points)
            rows.append(row)
    return rows


def table5_3_tail_rows(epochs) -> list[dict]:
    """notes §5.3, first table: exact tails of c² ~ Binomial(100E, 0.01) at the printed cut points
    c_L² = (1 + 1/√(2E))E and c_U² = (1 − 1/√(2E))E (reference qe_law), against the printed e^{−E} (seed 002 F.2)."""
    from dpspec.reference.bc.appendix_f import hoeffding_cuts2
    from dpspec.reference.bc.bounds import exact_tail_above, exact_tail_below

    c = T53_CONFIG
    rows = []
    with mpmath.workdps(DPS):
        for E in epochs:
            cu2, cl2 = hoeffding_cuts2(mpf(E))
            law = ("subsampling", c["N"], c["m"], c["s"], 1, E)
            above, below, printed = exact_tail_above(*law, cl2), exact_tail_below(*law, cu2), mpmath.exp(-E)
            rows.append({"E": E, "c_L2": float(cl2), "tail_above_c_L": float(above), "c_U2": float(cu2),
                         "tail_below_c_U": float(below), "printed_e_minus_E": float(printed),
                         "printed_too_small": bool(min(above, below) > printed)})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# §5.4: Lemma F.7 / Cor F.8 (IC, SS, general g)

def table5_4_rows(settings) -> list[dict]:
    """notes §5.4: for IC (s = 1) with subsampling, ε at δ = 1e-5 (and 1e-3) of the exact A1 f, of Lemma F.7's fL with
    γ = 1/g (bc.lemma_f7_eps; +inf below its δ-floor l = e^{−γgE}), of Cor F.8's printed G_μ (bc.cor_f8 printed),
    of G_{√(gE)/σ} and of group privacy G_{g√E/σ}; the exact tail of q_E at F.7's cut beside l, and E[c²]."""
    from dpspec.reference.bc.appendix_f import cor_f8_mu, f7_cut, lemma_f7_eps
    from dpspec.reference.bc.bounds import exact_tail_above
    from dpspec.reference.bc.qe import qe_law

    rows = []
    with mpmath.workdps(DPS):
        for N, m, g, E, sigma in settings:
            law = ("subsampling", N, m, 1, g, E)
            c_L, l = f7_cut(N, m, g, E, mpf(1) / g)
            mu = cor_f8_mu(m, g, E, sigma)
            row = {"N": N, "m": m, "g": g, "E": E, "sigma": sigma, "mean_c2": float(qe_law(*law).mean()),
                   "f7_c_L2": float(c_L ** 2), "f7_l_printed": float(l),
                   "f7_l_exact": float(exact_tail_above(*law, c_L ** 2)), "cor_f8_mu": float(mu)}
            for tag, delta in (("1e-5", DELTA), ("1e-3", 1e-3)):
                row[f"eps_exact_a1_{tag}"] = _a1_eps(delta, *law, sigma)
                row[f"eps_f7_fL_{tag}"] = float(lemma_f7_eps(mpf(delta), N, m, g, E, sigma, mpf(1) / g))
                row[f"eps_cor_f8_{tag}"] = _gauss_eps(delta, mu)
                row[f"eps_gauss_sqrt_gE_{tag}"] = _gauss_eps(delta, math.sqrt(g * E) / sigma)
                row[f"eps_group_g_sqrtE_{tag}"] = _gauss_eps(delta, g * math.sqrt(E) / sigma)
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------------------------
# §5.5: shuffling, the true occupancy law vs the printed Bose–Einstein q_j (G.3 / Lemma G.4)

def table5_5_rows(settings) -> list[dict]:
    """notes §5.5: batch clipping with shuffling, ε at δ = 1e-5 of Lemma G.4's f^{⊗E} with the true occupancy law
    (the exact A1 f, bc.a1_epsilon fast) and with the printed Bose–Einstein q_j (bc.lemma_g4_eps printed), and of
    G_{√(gE)/σ} (Lemma G.4's first claim: c² ≤ gE). ``printed_overstates_privacy``: ε_BE < ε_true."""
    from dpspec.reference.bc.appendix_g import lemma_g4_eps_printed

    rows = []
    with mpmath.workdps(DPS):
        for batches, s, g, E, sigma in settings:
            N = batches * s
            true = _a1_eps(DELTA, "shuffling", N, 1, s, g, E, sigma)
            be = float(lemma_g4_eps_printed(mpf(DELTA), N, s, g, E, sigma))
            gauss = _gauss_eps(DELTA, math.sqrt(g * E) / sigma)
            rows.append({"N_over_s": batches, "s": s, "N": N, "g": g, "E": E, "sigma": sigma, "delta": DELTA,
                         "eps_true_occupancy": true, "eps_bose_einstein_printed": be, "eps_gauss_sqrt_gE": gauss,
                         "printed_overstates_privacy": _exceeds(true, be),
                         "gauss_bound_holds": not _exceeds(true, gauss)})
    return rows


def table5_5_qj_rows(groups) -> list[dict]:
    """notes §5.5: one epoch's law of J (#distinct batches hit by g samples, batch clipping with shuffling), true
    (bc_shuffling_occupancy) vs printed (bc_shuffling_bose_einstein, seed 002 G.3), P(J < g) of both, and the text's
    u = g²/(N/s − g − g²) (G.3 derivation): valid for the true law when P_true(J < g) ≤ u."""
    from dpspec.reference.bc.appendix_g import g4_u
    from dpspec.reference.bc.qe import bc_shuffling_bose_einstein, bc_shuffling_occupancy

    s = T55_QJ_CONFIG["s"]
    N = T55_QJ_CONFIG["batches"] * s
    rows = []
    with mpmath.workdps(DPS):
        for g in groups:
            true, be = bc_shuffling_occupancy(N, s, g), bc_shuffling_bose_einstein(N, s, g)
            t_true, t_be, u = sum(true[:g]), sum(be[:g]), g4_u(N, s, g)
            rows.append({"N_over_s": N // s, "s": s, "g": g,
                         "q_true_j1_to_g": " ".join(f"{float(q):.6g}" for q in true[1:]),
                         "q_bose_einstein_j1_to_g": " ".join(f"{float(q):.6g}" for q in be[1:]),
                         "tail_true_J_below_g": float(t_true), "tail_bose_einstein": float(t_be),
                         "u_printed": float(u), "u_valid_for_true_law": bool(t_true <= u)})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# §5.6: the paper's experimental setting

def table5_6_rows(grid: dict) -> list[dict]:
    """notes §5.6 at σ = 2, E = 100, g = 1, δ = 1e-5: exact A1 ε with subsampling (bc.a1_epsilon) and the A0 PLD
    interval (fast/bc/accounting.report: C_γ(G_{1/σ})^{⊗T}, γ = sm/N, T = E·N/(sm) rounds) per (N, sm);
    A1 with shuffling (Lemma G.2: G_{√E/σ}); the F.6 printed range endpoints G_{√((1±1/√(2E))E)/σ}; the CLT μ of A0
    ([2] Cor 5.4: q√T √(e^{1/σ²} − 1)) and its ε."""
    from dpspec.fast.bc.accounting import report

    sigma, E = PAPER["sigma"], PAPER["E"]
    mu_lo = math.sqrt((1 + 1 / math.sqrt(2 * E)) * E) / sigma
    mu_hi = math.sqrt((1 - 1 / math.sqrt(2 * E)) * E) / sigma
    eps_lo, eps_hi = _gauss_eps(DELTA, mu_lo), _gauss_eps(DELTA, mu_hi)
    rows = []
    with mpmath.workdps(DPS):
        for N in grid["N"]:
            for sm in grid["sm"]:
                rep = report("subsampling", N, sm, 1, 1, E, sigma, DELTA)
                q, T = sm / N, rep.rounds
                clt = q * math.sqrt(T) * math.sqrt(math.expm1(1 / sigma ** 2))
                rows.append({"N": N, "sm": sm, "rounds": T, "sigma": sigma, "E": E, "delta": DELTA,
                             "eps_a1_subsampling_exact": rep.eps_a1,
                             "eps_a1_shuffling_lemma_g2": _a1_eps(DELTA, "shuffling", N, sm, 1, 1, E, sigma),
                             "eps_f6_printed_lower_mu": eps_lo, "f6_lower_mu": mu_lo,
                             "eps_f6_printed_upper_mu": eps_hi, "f6_upper_mu": mu_hi,
                             "eps_a0_lower": rep.eps_a0_interval[0], "eps_a0_upper": rep.eps_a0_interval[1],
                             "a0_clt_mu": clt, "eps_a0_clt": _gauss_eps(DELTA, clt),
                             "a1_over_a0": rep.eps_a1 / rep.eps_a0_interval[1],
                             "f6_guarantee_violated": _exceeds(rep.eps_a1, eps_lo),
                             "note": _ROUNDING + "; " + _A0_NOTE})
    return rows


# ---------------------------------------------------------------------------------------------------------------
# the plots: f, f̂U, f̂L, A0 at the paper's setting

def _a0_sandwich(setting: dict, grid_step: float | None = None):
    """The certified PLD sandwich of the A0 run C_γ(G_{1/σ})^{⊗T} (fast/base/pld.sandwich of the symmetric pair
    fast/base/pld_pairs_wor.wor_pairs(sm, N, 2σ); units of fast/bc/accounting.py), at ``grid_step``, by default the
    lattice step the accountant chose for ε(δ = 1e-5) of the same record."""
    from dpspec.fast import Accountant
    from dpspec.fast.base import pld
    from dpspec.fast.base.pld_pairs_wor import wor_pairs

    N, sm, E, sigma = setting["N"], setting["m"] * setting["s"], setting["E"], float(setting["sigma"])
    T = E * (N // sm)
    if grid_step is None:
        acc = Accountant()
        acc.compose("base.sgm_wor_rdp", count=T, m=sm, n=N, sigma=2 * sigma)
        acc.epsilon_interval(DELTA)
        grid_step = acc.grid_step
    return pld.sandwich([(wor_pairs(sm, N, 2 * sigma), T)], grid_step)


def _cuts_and_tails(setting: dict):
    """Lemma F.6's printed cut points c_U, c_L (c² = (1 ∓ 1/√(2E))E) with the exact tails u, l of q_E there
    (fast bc.def4_1; Thms 4.5/4.6 at those cuts, notes §4.7) and the printed tail e^{−E}."""
    from dpspec.fast.bc.mixture import def4_1

    E = setting["E"]
    cu2, cl2 = (1 - 1 / math.sqrt(2 * E)) * E, (1 + 1 / math.sqrt(2 * E)) * E
    law = ("subsampling", setting["N"], setting["m"], setting["s"], setting["g"], E)
    u = float(def4_1(*law, math.ceil(cu2), "below"))  # integer c²: c² < c_U² ⇔ c² < ⌈c_U²⌉ (c_U² not an integer)
    l = float(def4_1(*law, math.floor(cl2), "above"))
    return math.sqrt(cu2), u, math.sqrt(cl2), l, math.exp(-E)


def tradeoff_rows(setting: dict, points: int, sandwich) -> list[dict]:
    """α on a log grid from 1e-12 to 1: the exact A1 f (bc.def4_2, fast), f̂U and f̂L (Defs. 4.3/4.4) at Lemma F.6's
    cut points with the exact tails and with the printed e^{−E}, G_{√E/σ}, and the A0 trade-off bracket
    (Sandwich.tradeoff_interval). ``printed_fL_above_f``: the printed lower bound is above f (violated)."""
    import torch

    from dpspec.fast.bc.bounds import fl_hat, fu_hat
    from dpspec.fast.bc.mixture import def4_2

    s = setting
    sigma = float(s["sigma"])
    alpha = torch.logspace(-12, 0, points, dtype=torch.float64).clamp_max(1.0)
    c_U, u, c_L, l, printed = _cuts_and_tails(s)
    f = def4_2(alpha, "subsampling", s["N"], s["m"], s["s"], s["g"], s["E"], sigma)
    cols = {"f_a1_exact": f, "fU_hat_exact_u": fu_hat(alpha, c_U, u, sigma),
            "fL_hat_exact_l": fl_hat(alpha, c_L, l, sigma), "fU_hat_printed": fu_hat(alpha, c_U, printed, sigma),
            "fL_hat_printed": fl_hat(alpha, c_L, printed, sigma)}
    mu = math.sqrt(s["E"]) / sigma
    cols["g_sqrtE_over_sigma"] = torch.special.ndtr(torch.special.ndtri(1 - alpha) - mu)
    cols["f_a0_lower"], cols["f_a0_upper"] = sandwich.tradeoff_interval(alpha)
    rows = []
    for i, a in enumerate(alpha.tolist()):
        row = {"alpha": a, **{k: float(v[i]) for k, v in cols.items()}}
        row["printed_fL_above_f"] = row["fL_hat_printed"] > row["f_a1_exact"] * (1 + 1e-9) + 1e-15
        rows.append(row)
    return rows


def profile_rows(setting: dict, points: int, sandwich) -> list[dict]:
    """ε on [0, 60]: δ(ε) of the exact A1 mixture (bc.a1_profile, fast), of fL / fU at Lemma F.6's cut points with
    the exact tails (valid upper / lower bounds on it) and of the printed F.6 lower bound (l = e^{−E}; violated
    where it is below the exact δ), of G_{√E/σ}, and the A0 PLD interval."""
    import torch

    from dpspec.fast.bc.bounds import fl_delta, fu_delta
    from dpspec.fast.bc.mixture import a1_profile

    s = setting
    sigma = float(s["sigma"])
    eps = torch.linspace(0, 60, points, dtype=torch.float64)
    c_U, u, c_L, l, printed = _cuts_and_tails(s)
    from dpspec.fast.base.gaussian import gaussian_profile

    cols = {"delta_a1_exact": a1_profile(eps, "subsampling", s["N"], s["m"], s["s"], s["g"], s["E"], sigma),
            "delta_fL_exact_l": fl_delta(eps, c_L, l, sigma), "delta_fU_exact_u": fu_delta(eps, c_U, u, sigma),
            "delta_fL_printed": fl_delta(eps, c_L, printed, sigma),
            "delta_g_sqrtE_over_sigma": gaussian_profile(eps, sigma / math.sqrt(s["E"])),
            "delta_a0_lower": torch.stack([c.delta(eps) for c in sandwich.lower.values()]).max(0).values,
            "delta_a0_upper": torch.stack([c.delta(eps) for c in sandwich.upper.values()]).max(0).values}
    rows = []
    for i, e in enumerate(eps.tolist()):
        row = {"eps": e, **{k: float(v[i]) for k, v in cols.items()}}
        row["printed_f6_violated"] = row["delta_a1_exact"] > row["delta_fL_printed"] * (1 + 1e-9)
        rows.append(row)
    return rows


# ---------------------------------------------------------------------------------------------------------------
# rendering

def _write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def _cell(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        if math.isinf(v):
            return "∞"
        return f"{v:.6g}" if (v == 0 or 1e-3 <= abs(v) < 1e5) else f"{v:.3e}"
    return str(v)


def render_table(rows: list[dict], columns: list[tuple[str, str]], path: Path, dpi: int, title: str, note: str,
                 flag: str | None = None) -> None:
    """A PNG of ``rows`` (``columns``: (key, header)) as a monospaced table, one text line per row (fast to draw);
    rows whose ``flag`` is true are drawn in red and marked "◀"."""
    import matplotlib.pyplot as plt

    text = [[_cell(r[k]) for k, _ in columns] for r in rows]
    widths = [max(len(h), *(len(t[i]) for t in text)) for i, (_, h) in enumerate(columns)]

    left = [isinstance(rows[0][k], str) for k, _ in columns]  # text columns flush left, numbers flush right

    def line(cells):
        return "  ".join(c.ljust(w) if lf else c.rjust(w) for c, w, lf in zip(cells, widths, left))

    header = line([h for _, h in columns])
    lines = [(header, "k"), ("-" * len(header), "0.5")]
    lines += [(line(t) + (" ◀" if flag and r.get(flag) else ""), "#c00000" if flag and r.get(flag) else "k")
              for t, r in zip(text, rows)]
    size, step = 7.0, 7.0 * 1.45 / 72  # font size (pt) and line height (inches)
    width = max(5.0, (len(header) + 4) * 0.61 * size / 72 + 0.3, 0.55 * size / 72 * max(len(title), len(note) / 2))
    height = (len(lines) + 5) * step + 0.2
    fig = plt.figure(figsize=(width, height))
    top = 1 - 0.1 / height
    fig.text(0.02, top, title, fontsize=size + 1, va="top", ha="left", weight="bold")
    for i, (content, colour) in enumerate(lines):
        fig.text(0.02, top - (i + 2) * step / height, content, fontsize=size, family="monospace", va="top",
                 ha="left", color=colour)
    fig.text(0.02, 0.1 / height, note, fontsize=size - 1, va="bottom", ha="left", wrap=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def _setting_text(s: dict) -> str:
    return ", ".join(f"{k} = {s[k]:g}" for k in ("N", "m", "s", "g", "E", "sigma"))


TABLE1_COLUMNS = [("row", "row"), ("sampling", "sampling"), ("clipping", "clip"), ("groups", "g"),
                  ("model", "model"), ("printed_h", "printed h (reconstructed)"), ("m", "m′"), ("s", "s′"),
                  ("g", "g′"), ("eps_printed", "ε printed G_μ"), ("eps_exact_a1", "ε exact A1"),
                  ("eps_a0_upper", "ε A0 (PLD)"), ("l_printed", "l printed"), ("l_exact", "l exact"),
                  ("u_printed", "u printed"), ("u_exact", "u exact")]


_LABELS = {
    "f": r"$f$: exact A1 (Def. 4.2)",
    "fU": r"$\hat f_U$, exact tail $u$ (Thm 4.5)",
    "fL": r"$\hat f_L$, exact tail $l$ (Thm 4.6)",
    "fL_printed": r"$\hat f_L$ as printed, $l = e^{-E}$ (Lemma F.6)",
    "gauss": r"$G_{\sqrt{E}/\sigma}$",
    "a0": r"A0: $C_\gamma(G_{1/\sigma})^{\otimes T}$, PLD bracket ($\gamma = sm/N$, fixed size)",
}


def _box(ax, text: str, where=(0.02, 0.02)) -> None:
    ax.text(*where, text, transform=ax.transAxes, fontsize=7, va="bottom", ha="left",
            bbox={"boxstyle": "round", "facecolor": "white", "alpha": 0.85, "edgecolor": "0.7"})


def plot_tradeoff(rows, path: Path, dpi: int, setting: dict) -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.6, 5.4))
    a = [r["alpha"] for r in rows]
    ax.plot(a, [r["f_a1_exact"] for r in rows], "-", color="k", lw=2, label=_LABELS["f"])
    ax.plot(a, [r["fU_hat_exact_u"] for r in rows], "--", color="tab:red", label=_LABELS["fU"])
    ax.plot(a, [r["fL_hat_exact_l"] for r in rows], "--", color="tab:blue", label=_LABELS["fL"])
    ax.plot(a, [r["fL_hat_printed"] for r in rows], ":", color="tab:blue", label=_LABELS["fL_printed"])
    ax.plot(a, [r["g_sqrtE_over_sigma"] for r in rows], "-.", color="0.5", label=_LABELS["gauss"])
    ax.fill_between(a, [r["f_a0_lower"] for r in rows], [r["f_a0_upper"] for r in rows], color="tab:green",
                    alpha=0.5, lw=1.2, edgecolor="tab:green", label=_LABELS["a0"])
    ax.set_xscale("log")
    ax.set_xlabel(r"type-I error $\alpha$")
    ax.set_ylabel(r"type-II error $f(\alpha)$")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title("Seed 002, the paper's setting: the A1 trade-off f, its bounds, and A0", fontsize=9)
    _box(ax, f"subsampling, {_setting_text(setting)}\n"
             r"cuts $c^2 = (1 \mp 1/\sqrt{2E})E$ (Lemma F.6)", (0.02, 0.06))
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def plot_profile(rows, path: Path, dpi: int, setting: dict) -> None:
    import matplotlib.pyplot as plt

    fig, (ax, ratio) = plt.subplots(1, 2, figsize=(11, 4.8))
    e = [r["eps"] for r in rows]

    def curve(axis, key, *args, **kw):
        pts = [(x, r[key]) for x, r in zip(e, rows) if r[key] > 0]
        axis.plot([p[0] for p in pts], [p[1] for p in pts], *args, **kw)

    curve(ax, "delta_a1_exact", "-", color="k", lw=2, label=_LABELS["f"])
    curve(ax, "delta_fL_exact_l", "--", color="tab:blue", label=r"$f_L$, exact tail $l$ (a valid bound, Thm 4.6)")
    curve(ax, "delta_fU_exact_u", "--", color="tab:red", label=r"$f_U$, exact tail $u$ (Thm 4.5)")
    curve(ax, "delta_fL_printed", ":", color="tab:blue", label=r"$f_L$ as printed, $l = e^{-E}$ (Lemma F.6)")
    curve(ax, "delta_g_sqrtE_over_sigma", "-.", color="0.5", label=_LABELS["gauss"])
    curve(ax, "delta_a0_upper", "-", color="tab:green", label="A0, PLD upper end")
    curve(ax, "delta_a0_lower", "-", color="tab:green", lw=0.8, alpha=0.6, label="A0, PLD lower end")
    ax.set_yscale("log")
    ax.set_ylim(1e-16, 1.5)
    ax.set_xlabel(r"$\varepsilon$")
    ax.set_ylabel(r"$\delta(\varepsilon)$")
    ax.set_title("privacy profiles (the A0 upper end levels off at ≈ 1e-30, below this axis: the PLD's certified "
                 "allowance for mass outside the composed window)", fontsize=7)
    ax.legend(fontsize=6.5, loc="lower left")
    for key, style, label in (("delta_fL_printed", ":", "printed Lemma F.6 lower bound"),
                              ("delta_fL_exact_l", "--", r"$f_L$ with the exact tail")):
        pts = [(x, r["delta_a1_exact"] / r[key]) for x, r in zip(e, rows) if r[key] > 0 and r["delta_a1_exact"] > 0]
        ratio.plot([p[0] for p in pts], [p[1] for p in pts], style, color="tab:blue", label=label)
    ratio.axhline(1, color="0.4", lw=0.8)
    bad = [x for x, r in zip(e, rows) if r["printed_f6_violated"]]
    if bad:
        ratio.axvspan(min(bad), max(bad), color="tab:red", alpha=0.1, label="printed guarantee violated")
    ratio.set_yscale("log")
    ratio.set_xlabel(r"$\varepsilon$")
    ratio.set_ylabel(r"$\delta_{A1}(\varepsilon)\,/\,\delta_{bound}(\varepsilon)$   (> 1: violated)")
    ratio.set_title("exact A1 δ over the claimed guarantee's δ", fontsize=9)
    ratio.legend(fontsize=7)
    fig.suptitle(f"Seed 002, subsampling, {_setting_text(setting)}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)


def render(out: Path, *, quick: bool = False, dpi: int = 150) -> list[Path]:
    """Compute the tables and curves and write each as ``NAME.csv`` and ``NAME.png`` into ``out``; returns the paths
    written. ``quick``: Table 1 at a small setting and subsets of the §5.x rows (at least one violated §5.3 row)."""
    import matplotlib

    matplotlib.use("Agg")
    out.mkdir(parents=True, exist_ok=True)
    mode = "quick" if quick else "full"
    written: list[Path] = []

    def emit(name, rows, draw):
        _write_csv(out / f"{name}.csv", rows)
        draw(rows, out / f"{name}.png")
        written.extend([out / f"{name}.csv", out / f"{name}.png"])

    t1 = TABLE1[mode]
    emit("table1_bc", table1_rows(t1), lambda rows, p: render_table(
        rows, TABLE1_COLUMNS, p, dpi, f"Table 1 of seed 002 (reconstructed, notes §2.14) at {_setting_text(t1)}, "
        f"δ = {DELTA:g}",
        "ε printed: the G_μ the row states (guarantee end of a printed range, tails ignored); ε exact A1: Def. 4.2 "
        "mixture at the row's (m′, s′, g′), batch size ms kept; l/u: tails of q_E at the row's cut points, as printed "
        "and exact. Red: the exact A1 ε exceeds the printed guarantee's ε. A0: C_γ(G_{1/σ})^{⊗T}, γ = ms/N (WOR).",
        flag="exact_exceeds_printed"))
    emit("table5_3_bc", table5_3_rows(T53[mode], GRIDS[mode]["violation"]), lambda rows, p: render_table(
        rows, [(k, k.replace("_", " ")) for k in ("E", "sigma", "eps_exact_a1_1e-5", "eps_f6_printed_1e-5",
                                                   "eps_gauss_sqrtE_1e-5", "violated_1e-5", "eps_exact_a1_1e-10",
                                                   "eps_f6_printed_1e-10", "violated_1e-10", "violated_from_eps",
                                                   "violated_to_eps")],
        p, dpi, "notes §5.3: exact A1 ε vs Lemma F.6's printed guarantee vs G_{√E/σ} (SS, g = 1, N/(sm) = 100)",
        "Red: the printed lower bound (fL, c_L² = (1+1/√(2E))E, l = e^{−E}) is violated at δ = 1e-5. Violated "
        "from/to: the ε-interval where δ_A1(ε) exceeds the printed bound's δ(ε) (to '—': beyond the ε of δ = 1e-30).",
        flag="violated_1e-5"))
    emit("table5_3_tails_bc", table5_3_tail_rows(T53_TAILS_E[mode]), lambda rows, p: render_table(
        rows, [(k, k.replace("_", " ")) for k in rows[0]], p, dpi,
        "notes §5.3: exact tails of c² ~ Bin(100E, 0.01) at the printed cut points vs the printed e^{−E} (F.2)",
        "Hoeffding without the 1/n (seed 002 F.2/F.5): the true tails are ≈ 0.22–0.27 for E ≥ 4.",
        flag="printed_too_small"))
    emit("table5_4_bc", table5_4_rows(T54[mode]), lambda rows, p: render_table(
        rows, [(k, k.replace("_", " ")) for k in ("N", "m", "g", "E", "sigma", "eps_exact_a1_1e-5",
                                                   "eps_f7_fL_1e-5", "eps_f7_fL_1e-3", "eps_cor_f8_1e-5",
                                                   "eps_gauss_sqrt_gE_1e-5", "eps_group_g_sqrtE_1e-5",
                                                   "f7_l_printed", "f7_l_exact", "mean_c2")],
        p, dpi, "notes §5.4: IC with subsampling, general g, δ = 1e-5 (F.7 fL also at 1e-3)",
        "F.7 fL with γ = 1/g: ∞ where δ ≤ l = e^{−γgE}; Cor F.8: G_μ, μ = √((e+1/g)min{m,g}gE)/σ."))
    emit("table5_5_bc", table5_5_rows(T55[mode]), lambda rows, p: render_table(
        rows, [(k, k.replace("_", " ")) for k in rows[0]], p, dpi,
        "notes §5.5: batch clipping with shuffling, true occupancy law vs the printed Bose–Einstein q_j (G.3)",
        "Red: the printed (Bose–Einstein) f^{⊗E} gives a smaller ε than the true law (it overstates privacy).",
        flag="printed_overstates_privacy"))
    emit("table5_5_qj_bc", table5_5_qj_rows(T55_QJ[mode]), lambda rows, p: render_table(
        rows, [(k, k.replace("_", " ")) for k in rows[0]], p, dpi,
        "notes §5.5: one epoch's law of J, true vs Bose–Einstein (G.3), N/s = 100, s = 64",
        "q listed for j = 1..g; u printed = g²/(N/s − g − g²)."))
    emit("table5_6_bc", table5_6_rows(T56[mode]), lambda rows, p: render_table(
        rows, [(k, k.replace("_", " ")) for k in ("N", "sm", "rounds", "eps_a1_subsampling_exact",
                                                   "eps_a1_shuffling_lemma_g2", "eps_f6_printed_lower_mu",
                                                   "eps_f6_printed_upper_mu", "eps_a0_lower", "eps_a0_upper",
                                                   "eps_a0_clt", "a1_over_a0")],
        p, dpi, "notes §5.6: the paper's setting σ = 2, E = 100, g = 1, δ = 1e-5",
        _ROUNDING + ". Red: the exact A1 ε exceeds the ε of Lemma F.6's printed G_{√((1+1/√(2E))E)/σ}. " + _A0_NOTE,
        flag="f6_guarantee_violated"))
    sandwich = _a0_sandwich(FIGURE, GRIDS[mode]["a0_step"])
    emit("fig_tradeoff_bc", tradeoff_rows(FIGURE, GRIDS[mode]["alphas"], sandwich),
         lambda rows, p: plot_tradeoff(rows, p, dpi, FIGURE))
    emit("fig_profile_bc", profile_rows(FIGURE, GRIDS[mode]["eps"], sandwich),
         lambda rows, p: plot_profile(rows, p, dpi, FIGURE))
    return written
