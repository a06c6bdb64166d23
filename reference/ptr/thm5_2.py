"""Theorem 5.2 (convergence of SGD with PTR(SUM, TSUM_F) under F corrupted gradients), formal version:
appendix 000, A.4, eqs. (93)–(96), Routine A eqs. (136)–(141), hypothesis (151). Informal: seed 001 §5.

Setting (renamed, notes §6 item 20): the loss is R-Lipschitz, β-smooth and λ-strongly convex (printed α, "lam_sc"),
n gradient oracles with variance ≤ σ_g² (printed σ², "sigma_g"), at most F corrupted per step, noise σ1 (Routine
A, full sum) or σ2 (Routine B, trimmed sum) per coordinate in d dimensions. With η_A = ((n−F)/n)η_B and

    σ2² ≥ ((n−F)(n+1)/n²)·(((n−F)σ_g² + F R²)/d + σ1²)          (151; printed F·R, erratum E10: F·R²)
    0 < η_B < 2λ(n−2F)/(n² + (n−F+1)(n−F)β²)                    (94; printed ≤, but equality gives ρ_B = 1)

the iterates satisfy lim_{t→∞} E||w^(t) − w*||² ≤ M_B/(1 − ρ_B), where
    ρ_B = 1 − 2η_B λ(n−2F) + η_B²(n² + (n−F+1)(n−F)β²)           (95)
    M_B = η_B²(n−F+1)((n−F)σ_g² + dσ2²) + (F/n)² R²               (96)
and for Routine A (eqs. (140)–(141)), at step size η:
    ρ_A = 1 − 2ηλ(n−F) + η²(n² + (n+1)(n−F)β²),  M_A = η²(n+1)((n−F)σ_g² + F R² + dσ1²) + (F/n)² R².
Errata: E9 (the σ2 hypothesis forces σ2 ≳ √(1−F/n)·σ1, outside PTR's σ2 < σ1), E10 (F·R → F·R²), E11 (proof gap:
the untrimmed honest set is selected by norm, eq. (112)). The bound is registered with its hypotheses as
conditions; those errata are for the errata register.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from ..catalogue import Condition, Source, Statement, Value, register
from ..domains import NOISE, Param
from ..precision import self_checked
from .spec import (COUNT, NONNEGATIVE, POSITIVE, SEED_APPENDIX, THM5_2_F_BELOW_HALF, THM5_2_SIGMA2,
                   THM5_2_STEP_SIZE, TRIM)


def rho_b(n, F, beta, lam_sc, eta_B):
    """ρ_B, eq. (95)."""
    return 1 - 2 * eta_B * lam_sc * (n - 2 * F) + eta_B**2 * (n**2 + (n - F + 1) * (n - F) * beta**2)


def m_b(n, F, d, R, sigma_g, sigma2, eta_B):
    """M_B, eq. (96)."""
    return eta_B**2 * (n - F + 1) * ((n - F) * sigma_g**2 + d * sigma2**2) + (mpf(F) / n) ** 2 * R**2


def rho_a(n, F, beta, lam_sc, eta):
    """ρ_A, eq. (140)."""
    return 1 - 2 * eta * lam_sc * (n - F) + eta**2 * (n**2 + (n + 1) * (n - F) * beta**2)


def m_a(n, F, d, R, sigma_g, sigma1, eta, *, printed=False):
    """M_A, eq. (141), with F·R² (erratum E10) or, if ``printed``, the printed F·R."""
    corrupted = F * R if printed else F * R**2
    return eta**2 * (n + 1) * ((n - F) * sigma_g**2 + corrupted + d * sigma1**2) + (mpf(F) / n) ** 2 * R**2


def eta_b_max(n, F, beta, lam_sc):
    """2λ(n−2F)/(n² + (n−F+1)(n−F)β²), eq. (94): ρ_B < 1 iff 0 < η_B < this."""
    return 2 * lam_sc * (n - 2 * F) / (n**2 + (n - F + 1) * (n - F) * beta**2)


def sigma2_hypothesis(n, F, d, R, sigma_g, sigma1, sigma2, *, printed=False) -> bool:
    """Hypothesis (151) (and Theorem 5.2): σ2² ≥ ((n−F)(n+1)/n²)(((n−F)σ_g² + F R²)/d + σ1²); printed: F·R."""
    corrupted = F * R if printed else F * R**2
    return sigma2**2 >= mpf((n - F) * (n + 1)) / n**2 * (((n - F) * sigma_g**2 + corrupted) / d + sigma1**2)


def one_minus_rho_b(n, F, beta, lam_sc, eta_B):
    """1 − ρ_B = η_B(2λ(n−2F) − η_B(n² + (n−F+1)(n−F)β²)) (eq. (95) without forming ρ_B)."""
    return eta_B * (2 * lam_sc * (n - 2 * F) - eta_B * (n**2 + (n - F + 1) * (n - F) * beta**2))


@self_checked
def thm5_2(n, F, d, R, beta, lam_sc, sigma_g, sigma1, sigma2, eta_B):
    """Theorem 5.2 (appendix 000, eq. (93)): lim sup E||w^(t) − w*||² ≤ M_B/(1 − ρ_B).

    Near the step-size bound η_B → 2λ(n−2F)/(n² + …) the difference 1 − ρ_B loses log10(2λ(n−2F)η_B/(1 − ρ_B))
    digits (given η_B exactly): they are measured on a first pass and carried as guard digits."""
    head = 2 * lam_sc * (n - 2 * F) * eta_B
    first = one_minus_rho_b(n, F, beta, lam_sc, eta_B)
    guard = int(mpmath.log10(head / first)) + 5 if first > 0 and head > first else 0
    with mp.workdps(mp.dps + guard):
        return +(m_b(n, F, d, R, sigma_g, sigma2, eta_B) / one_minus_rho_b(n, F, beta, lam_sc, eta_B))


CONDITIONS = (
    Condition.of(THM5_2_F_BELOW_HALF, lambda p: 2 * p["F"] < p["n"]),
    Condition.of(THM5_2_STEP_SIZE, lambda p: p["eta_B"] < eta_b_max(p["n"], p["F"], p["beta"], p["lam_sc"])),
    Condition.of(THM5_2_SIGMA2,
                 lambda p: sigma2_hypothesis(p["n"], p["F"], p["d"], p["R"], p["sigma_g"], p["sigma1"], p["sigma2"])),
)

_POS = POSITIVE
register(Statement(
    id="ptr.thm5_2",
    fast="dpspec.fast.ptr.utility:thm5_2",
    source=Source(SEED_APPENDIX, "Theorem 5.2 (formal version), eqs. (93)–(96)",
                  "convergence of SGD with PTR(SUM, TSUM_F) under at most F corrupted gradients per step"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="lim E||w − w*||² ≤ M_B/(1 − ρ_B), ρ_B = 1 − 2η_Bλ(n−2F) + η_B²(n² + (n−F+1)(n−F)β²), "
            "M_B = η_B²(n−F+1)((n−F)σ_g² + dσ2²) + (F/n)²R²",
    params=(Param("n", COUNT, "number of gradient oracles", example=100),
            Param("F", TRIM, "number of trimmed (possibly corrupted) gradients", example=10),
            Param("d", COUNT, "dimension", example=10),
            Param("R", _POS, "Lipschitz constant (= clipping norm)", example=1),
            Param("beta", _POS, "smoothness β", example=1),
            Param("lam_sc", _POS, "strong convexity λ (printed α)", example=1),
            Param("sigma_g", NONNEGATIVE, "gradient standard deviation σ_g (printed σ)",
                  example="0.1"),
            Param("sigma1", NOISE, "noise std of Routine A (full sum)", example="0.1"),
            Param("sigma2", NOISE, "noise std of Routine B (trimmed sum)", example=5),
            Param("eta_B", _POS, "step size of Routine B; η_A = ((n−F)/n)η_B", example="1e-5")),
    reference=thm5_2,
    conditions=CONDITIONS,
    note="Hypothesis (151) contradicts PTR's σ2 < σ1 (erratum E9); proof gap at eq. (112) (E11).",
))
