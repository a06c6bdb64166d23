"""The O-rates of seed 004 (DC-DPSGD, arXiv 2405.17529v1) with their unspecified constants as parameters: Thm 4.1
(L155–L157), Table 1 (L139–L153), Thm 5.4 (L250–L254), F.1's eq. (102) (L1740–L1745), and the constants β, G of
Assumptions 3.2/3.3 (L123–L129) for a known least-squares problem; notes shared/notes/dc-dpsgd.md §2 (Table 1,
Thm 4.1, Thm 5.4 = F.1, A3.2, A3.3), §6 E11, E14, E16.

Existence/asymptotic statements: each value is the text's O(·)-expression times ``constant`` (unspecified in the
text), natural logs, \\hat{log}(x) := log^{max(0, θ−1)}(x); the theory's T = nε/√(d log(1/δ)) may be real.
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mpf

from ..catalogue import Condition, Source, Statement, Value, Variant, register
from ..precision import self_checked
from . import spec
from .spec import (P_BATCH, P_BETA, P_COLUMN, P_CONSTANT, P_D, P_DELTA, P_DELTA_M_PRIME, P_EPS_POS, P_K,
                   P_K_SUB, P_LOSS_GAP, P_M2, P_N, P_P_TAIL, P_RADIUS, P_ROW, P_SAMPLES_XY, P_STEPS_REAL, P_THETA,
                   SEED)
from .thresholds import THETA_HALF_UP, hat_log, lpow, lpow_sqrt

OUTSIDE_PAPERS = {
    "yang2022": "Yang et al. 2022 (normalized/clipped DP-SGD, expectation bound)",
    "bu2024": "Bu et al. 2024 (automatic clipping, arXiv 2206.07136)",
    "zhou2021": "Zhou, Wu & Banerjee 2021 (public subspace, arXiv 2007.03813)",
    "madden2020": "Madden, Dall'Anese & Becker 2020 (arXiv 2006.07904)",
    "li_liu2022": "Li & Liu 2022 (high-probability SGD, heavy tails)",
    "li_liu2022_clipped": "Li & Liu 2022 (clipped SGD, heavy tails)",
}


def _privacy(d, n, eps, steps, delta, power):
    """d^{1/4} log^{power}(T/δ)/(nε)^{1/2}: the privacy factor of the 'Our' rows (power 1/4 in Table 1 and
    Thm 4.1, 5/4 in Thms B.1/E.1/5.3/5.4: E14)."""
    return mpmath.power(d, mpf(1) / 4) * lpow(steps / delta, power) / mpmath.sqrt(n * eps)


def _cell(row, column, theta, steps, delta, d, n, eps, k, p_tail, power):
    T, L = steps, mpmath.log
    rt = mpmath.sqrt(T)
    if column == "dpsgd":
        if row == "yang2022":
            return mpmath.cbrt(d) * L(T / delta) / mpmath.sqrt(n * eps)
        if row == "bu2024":
            return mpmath.sqrt(d) / (n * eps)
        if row == "zhou2021":
            return mpf(k) / (n * eps)
        tail = hat_log(T / delta, theta) * lpow_sqrt(T, 2 * theta)
        if row == "our_dpsgd":
            return _privacy(d, n, eps, T, delta, power) * tail
        if row == "our_dc_dpsgd":
            return _privacy(d, n, eps, T, delta, power) * (p_tail * tail + (1 - p_tail) * L(T) / 2)
    else:
        if row == "bu2024":
            return d / mpmath.cbrt(T)
        if row == "madden2020":
            return (mpmath.sqrt(L(T)) * lpow(1 / delta, theta) + hat_log(T / delta, theta) * L(1 / delta)) / rt
        if row == "li_liu2022":
            return (lpow(1 / delta, 2 * theta) * L(T) + hat_log(T / delta, theta) * L(1 / delta)) / rt
        if row == "li_liu2022_clipped":
            return (lpow(T / delta, theta) * L(T) + lpow(T, 2 * theta + 1) * L(T / delta)) / rt
    return mpf(0)  # no printed cell (outside spec.TABLE1_CELL_PRINTED)


PRINTED_CELLS = {("yang2022", "dpsgd"), ("bu2024", "dpsgd"), ("bu2024", "sgd"), ("zhou2021", "dpsgd"),
                 ("madden2020", "sgd"), ("li_liu2022", "sgd"), ("li_liu2022_clipped", "sgd"), ("our_dpsgd", "dpsgd"),
                 ("our_dc_dpsgd", "dpsgd")}


@self_checked
def table1(row, theta, steps, delta, d, n, eps, k, p_tail, column="dpsgd", constant=1):
    """A cell of Table 1 (seed 004 L139–L153; notes §2 Table 1) times ``constant``: e.g. our_dpsgd =
    d^{1/4} log^{1/4}(T/δ)·\\hat{log}(T/δ) log^{2θ}(√T)/(nε)^{1/2}; our_dc_dpsgd = d^{1/4} log^{1/4}(T/δ)·(p·\\hat{log}(T/δ)
    log^{2θ}(√T) + (1 − p) log(√T))/(nε)^{1/2}; madden2020 (SGD) = √(log T) log^θ(1/δ)/√T + \\hat{log}(T/δ)
    log(1/δ)/√T, … as extracted (the ∛d, ∛T may be extraction artefacts)."""
    return constant * _cell(row, column, theta, steps, delta, d, n, eps, k, p_tail, mpf(1) / 4)


@self_checked
def table1_theorems(row, theta, steps, delta, d, n, eps, k, p_tail, column="dpsgd", constant=1):
    """Table 1 with the 'Our' rows as Thms B.1/5.3/5.4 state them: log^{5/4}(T/δ) where the table prints log^{1/4}
    (E14); the other rows unchanged."""
    return constant * _cell(row, column, theta, steps, delta, d, n, eps, k, p_tail, mpf(5) / 4)


TABLE1_CELL = Condition.of(spec.TABLE1_CELL_PRINTED, lambda p: (p["row"], p.get("column", "dpsgd")) in PRINTED_CELLS)

register(Statement(
    id="dc.table1",
    source=Source(SEED, "Table 1", "the literature's and the paper's convergence rates (O-expressions)"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="Table 1's rate for a row and column, times a constant (e.g. Our DPSGD: d^{1/4} log^{1/4}(T/δ) "
            "\\hat{log}(T/δ) log^{2θ}(√T)/(nε)^{1/2})",
    params=(P_ROW, P_THETA, P_STEPS_REAL, P_DELTA, P_D, P_N, P_EPS_POS, P_K_SUB, P_P_TAIL, P_COLUMN, P_CONSTANT),
    reference=table1,
    conditions=(TABLE1_CELL, THETA_HALF_UP),
    variants={"theorems": Variant(table1_theorems, "the 'Our' rows with log^{5/4}(T/δ) as in Thms B.1/E.1/5.4 "
                                  "(the table prints log^{1/4}: E14)")},
    monotone={"constant": +1},
    note="existence/asymptotic: constant unspecified in the text. Rows of other papers are as extracted here (not "
         "checked against their sources; " + "; ".join(OUTSIDE_PAPERS.values()) + "). Table 1's 'Our' rows drop a "
         "log(T/δ) factor against the theorems (E14): the variant 'theorems' restores it. The DC row is Thm 5.4's "
         "p-weighted mix (dc.thm5_4), which is heuristic (E11).",
))


@self_checked
def thm4_1(theta, steps, delta, d, n, eps, constant=1):
    """Thm 4.1's rate (seed 004 L155–L157; notes §2 Thm 4.1) times ``constant``:
    d^{1/4} log^{1/4}(T/δ)/(nε)^{1/2} · log(T/δ)·\\hat{log}(T/δ) · log^{2θ}(√T) (privacy · tail · clipping), the tail
    factor reconstructed (printed "log(T/δ) log(T/δ)"; Thm B.1 has log^{5/4}(T/δ)\\hat{log}(T/δ))."""
    T = steps
    return (constant * _privacy(d, n, eps, T, delta, mpf(1) / 4) * mpmath.log(T / delta) * hat_log(T / delta, theta)
            * lpow_sqrt(T, 2 * theta))


@self_checked
def thm4_1_printed(theta, steps, delta, d, n, eps, constant=1):
    """Thm 4.1 as extracted: the tail factor log(T/δ)·log(T/δ) (notes §2 Thm 4.1)."""
    T = steps
    return (constant * _privacy(d, n, eps, T, delta, mpf(1) / 4) * mpmath.log(T / delta) ** 2
            * lpow_sqrt(T, 2 * theta))


register(Statement(
    id="dc.thm4_1",
    fast="dpspec.fast.dc.convergence:thm4_1",
    source=Source(SEED, "Thm 4.1", "high-probability convergence rate of heavy-tailed DPSGD (O-form)"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="(1/T)Σ min{‖∇L_S‖, ‖∇L_S‖²} ≤ C·d^{1/4} log^{1/4}(T/δ)/(nε)^{1/2}·log(T/δ)\\hat{log}(T/δ)·log^{2θ}(√T)",
    params=(P_THETA, P_STEPS_REAL, P_DELTA, P_D, P_N, P_EPS_POS, P_CONSTANT),
    reference=thm4_1,
    conditions=(THETA_HALF_UP,),
    variants={"printed": Variant(thm4_1_printed, "the extraction's tail factor log(T/δ)·log(T/δ) (reconstructed as "
                                 "log(T/δ)\\hat{log}(T/δ) from Thm B.1)")},
    monotone={"constant": +1, "d": +1, "n": -1, "eps": -1, "steps": +1},
    note="existence/asymptotic: constant unspecified in the text. Hypotheses: Assumptions 3.1, 3.2, η_t = 1/√T, "
         "T = O(nε/(d log(1/δ))) (B.1: √(d log(1/δ)), E13). Its threshold c = max(4K log^θ(√T), 39K log^θ(2/δ)) "
         "is dc.thm_b1 variant 'main_text'; the explicit inequalities of the proof are dc.thm_b1_eq28 and "
         "dc.thm_b1_eq40 … eq45. Relation: B.1's rate has log^{5/4}(T/δ) (dc.table1 variant 'theorems').",
))


@self_checked
def thm5_4(theta, steps, delta, d, n, eps, p_tail, constant=1):
    """Thm 5.4 (seed 004 L250–L254; F.1 L1701–L1710) times ``constant``: p·d^{1/4} log^{5/4}(T/δ)\\hat{log}(T/δ)
    log^{2θ}(√T)/(nε)^{1/2} + (1 − p)·d^{1/4} log^{5/4}(T/δ) log(√T)/(nε)^{1/2} (the same constant for both O's)."""
    return constant * _cell("our_dc_dpsgd", "dpsgd", theta, steps, delta, d, n, eps, 0, p_tail, mpf(5) / 4)


register(Statement(
    id="dc.thm5_4",
    fast="dpspec.fast.dc.convergence:thm5_4",
    source=Source(SEED, "Thm 5.4 = F.1", "the 'uniform bound' of DC-DPSGD: a p-weighted mix of Thm 5.3's rates"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="(1/T)Σ min{‖∇L_S‖, ‖∇L_S‖²} ≤ C·d^{1/4} log^{5/4}(T/δ)(p \\hat{log}(T/δ) log^{2θ}(√T) + (1 − p) "
            "log(√T))/(nε)^{1/2}",
    params=(P_THETA, P_STEPS_REAL, P_DELTA, P_D, P_N, P_EPS_POS, P_P_TAIL, P_CONSTANT),
    reference=thm5_4,
    conditions=(THETA_HALF_UP,),
    monotone={"constant": +1, "d": +1, "n": -1, "eps": -1},
    note="existence/asymptotic: constant unspecified in the text; and heuristic: it rests on eq. (102), posited, not "
         "derived (E11; dc.thm_f1). The main text's C_u is a sum with \\hat L (L251), the appendix's an average. "
         "p = 1 gives Thm 5.3(i)'s rate, p = 0 its (ii) (the light-body rate has no θ, but its constant a(θ) grows "
         "like Γ(3θ + 1): E9).",
))


@self_checked
def thm_f1(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, p_tail, delta_m_prime):
    """Eq. (102) of F.1 (seed 004 L1740–L1745) with C_tail, C_body the explicit (68), (67) (dc.thm_e1_eq68/eq67,
    corrected): C_u = (1 − δ'_m)p C_tail + (1 − δ'_m)(1 − p) C_body + δ'_m|C_tail − C_body|. Posited, not derived
    (E11)."""
    from .convergence import eq67, eq68

    args = (theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps)
    tail, body = eq68(*args), eq67(*args)
    return ((1 - delta_m_prime) * p_tail * tail + (1 - delta_m_prime) * (1 - p_tail) * body
            + delta_m_prime * abs(tail - body))


register(Statement(
    id="dc.thm_f1",
    fast="dpspec.fast.dc.convergence:thm_f1",
    source=Source(SEED, "Thm F.1, eq. (102)", "the posited mix of the tail and body bounds (heuristic)"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="C_u = (1 − δ'_m) p C_tail(c1) + (1 − δ'_m)(1 − p) C_body(c2) + δ'_m |C_tail − C_body|, C_tail = (68), "
            "C_body = (67)",
    params=(P_THETA, P_K, P_BETA, P_LOSS_GAP, P_D, P_N, P_EPS_POS, P_DELTA, P_BATCH, P_M2, P_STEPS_REAL, P_P_TAIL,
            P_DELTA_M_PRIME),
    reference=thm_f1,
    conditions=(THETA_HALF_UP,
                Condition.of(spec.DELTA_AT_MOST_2_OVER_E, lambda p: p["delta"] <= 2 / mpmath.e)),
    monotone={"loss_gap": +1, "beta": +1, "m2": +1, "batch": +1},
    note="Not a theorem (E11): (102) posits the stationarity measure as a probability-weighted mix of two bounds "
         "derived under different global clipping rules, while both thresholds act inside every step of one "
         "trajectory; 'probability (1 − p)(1 − δ')' mixes a fraction with a probability. Registered to evaluate "
         "what the text asserts, with c1 = 4^θ2K log^θ(√T), c2 = 2√(2a)K log^{1/2}(√T) (dc.thm_e1 variant 'f1'). "
         "For θ > 1/2 and T below body_beats_dpsgd_T(θ) it exceeds the plain DPSGD bound dc.thm_b1_eq28 (E9).",
))


# ---------------------------------------------------------------------------------------------------------------
# Assumptions 3.2 and 3.3 on a known problem: least squares ℓ(w, (x, y)) = ½(xᵀw − y)²


def _xy(samples):
    arr = np.asarray(samples, dtype=float)
    X = mpmath.matrix(arr[:, :-1].tolist())
    y = mpmath.matrix(arr[:, -1].tolist())
    return X, y, arr.shape[0]


def _gram(X, n):
    return (X.T * X) / n


def _lmax(A):
    ev = mpmath.eigsy(A, eigvals_only=True)
    return max(ev[i] for i in range(A.rows))


@self_checked
def a3_2(samples):
    """Assumption 3.2 (seed 004 L123–L125) for least squares ℓ(w, (x, y)) = ½(xᵀw − y)²: ∇ℓ(w) − ∇ℓ(w') =
    xxᵀ(w − w'), so the smallest β valid for every example is β = max_i ‖x_i‖² (exact)."""
    X, _, n = _xy(samples)
    return max(sum(X[i, j] ** 2 for j in range(X.cols)) for i in range(n))


@self_checked
def a3_2_empirical(samples):
    """The smoothness of the empirical risk L_S(w) = (1/2n)‖Xw − y‖² instead: λ_max(XᵀX/n) ≤ max_i ‖x_i‖²."""
    X, _, n = _xy(samples)
    return _lmax(_gram(X, n))


@self_checked
def a3_3(samples, radius):
    """Assumption 3.3 (seed 004 L127–L129) for least squares on ‖w‖₂ ≤ R: ∇L_S(w) = Aw − b, A = XᵀX/n,
    b = Xᵀy/n, so sup ‖∇L_S‖² ≤ (λ_max(A)R + ‖b‖)² (G may be any bound: the assumption needs ‖∇L‖² ≤ G; the proofs
    use G as a bound on ‖∇L‖, E16)."""
    X, y, n = _xy(samples)
    A = _gram(X, n)
    b = (X.T * y) / n
    return (_lmax(A) * radius + mpmath.norm(b)) ** 2


LS_ROWS = Condition.of(spec.LEAST_SQUARES_ROWS, lambda p: np.asarray(p["samples"]).shape[0] >= 1
                       and np.asarray(p["samples"]).shape[1] >= 2)

register(Statement(
    id="dc.a3_2",
    source=Source(SEED, "Assumption 3.2", "β-smoothness, computed for a least-squares data set"),
    kind="utility",
    claim="exact",
    value=Value("number"),
    summary="ℓ(w, (x, y)) = ½(xᵀw − y)²: β = max_i ‖x_i‖² (variant: λ_max(XᵀX/n) for L_S)",
    params=(P_SAMPLES_XY,),
    reference=a3_2,
    conditions=(LS_ROWS,),
    variants={"empirical": Variant(a3_2_empirical, "the empirical risk's smoothness λ_max(XᵀX/n) (≤ the per-example "
                                   "β)")},
    note="The known problem on which every constant of the convergence bounds is known (with sub-Weibull noise of "
         "known θ, K: helper A's orlicz_k; the simulation of tests/dc/test_dc_convergence.py uses the isotropic "
         "special case ℓ(w, z) = (β/2)‖w − z‖²).",
))

register(Statement(
    id="dc.a3_3",
    source=Source(SEED, "Assumption 3.3", "a bound G on ‖∇L_S‖² over a ball, for a least-squares data set"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="sup_{‖w‖ ≤ R} ‖XᵀXw/n − Xᵀy/n‖² ≤ (λ_max(XᵀX/n)R + ‖Xᵀy/n‖)²",
    params=(P_SAMPLES_XY, P_RADIUS),
    reference=a3_3,
    conditions=(LS_ROWS,),
    monotone={"radius": +1},
    note="Assumption 3.3 holds on a bounded domain only (‖∇L_S‖ grows linearly in ‖w‖ for least squares). The proofs "
         "use G as a bound on ‖∇L‖ rather than ‖∇L‖² (E16): pass √G there.",
))
