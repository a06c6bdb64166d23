"""Per-instance and ex-post per-instance DP of the Gaussian mechanism (seed 003, appendix A.6: Thm A.6.1, Cor A.6.2)
and the reconstruction attack that motivates private privacy reports (Example 2.2.4); mpmath at the working precision.

o = Q(D) + N(0, σ²I_d), Δ_z := Q(D ± z) − Q(D) (a vector: the text's "|Q(D ± z) − Q(D)| ≤ Δ_z" is erratum E17):

    L(o) = log p_D(o)/p_{D±z}(o) = ‖Δ_z‖²/(2σ²) − Δ_zᵀ(o − Q(D))/σ²,   ε(o, D, D ± z) = |L(o)|   (Thm A.6.1)

(the printed proof computes the reciprocal ratio; harmless under |·|). Under o ~ P, L ~ N(‖Δ‖²/(2σ²), ‖Δ‖²/σ²), so
(Cor A.6.2) the pDP ε at δ is at most ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1 − δ)/σ ≤ ‖Δ‖²/(2σ²) + ‖Δ‖√(2 log(1/δ))/σ and, w.p. 1 − ρ
over o, ε(o) ≤ ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1 − ρ/2)/σ ≤ … √(2 log(2/ρ)) … . Notes objpert-pdp.md §2.D, §3.2, §5.2.
The exact (tight) pDP is the analytic Gaussian base.gaussian_eps at σ/‖Δ‖ (4.886554117 at Δ = σ = 1, δ = 1e-6).
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mp, mpf

from .._normal import ndtri_upper
from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..domains import Param
from ..errors import DomainError, ParameterError
from ..precision import checked_param, self_checked
from . import spec
from .spec import DELTA, NONNEGATIVE, POSITIVE


def _row(name, a):
    arr = np.asarray(a, dtype=float)
    if arr.ndim == 2 and arr.shape[0] != 1 and arr.shape[1] == 1:
        arr = arr.T
    arr = arr.reshape(1, -1) if arr.ndim == 1 else arr
    if arr.ndim != 2 or arr.shape[0] != 1 or arr.shape[1] < 1 or not np.all(np.isfinite(arr)):
        raise DomainError(name, a if np.size(arr) <= 8 else f"array of shape {np.shape(arr)}",
                          "one row of finite reals (a vector of R^d)")
    return [mpf(float(v)) for v in arr[0]]


def gauss_vectors_ok(o, q_d, delta_vec) -> bool:
    """spec.GAUSS_VECTORS_C: o, Q(D), Δ are each one vector (a row, or a column read as a row) of one dimension."""
    from .expost import row_vector

    rows = [row_vector(a) for a in (o, q_d, delta_vec)]
    return all(r is not None for r in rows) and len({r.shape[0] for r in rows}) == 1


_GAUSS_VECTORS = Condition.of(spec.GAUSS_VECTORS_C, lambda p: gauss_vectors_ok(p["o"], p["q_d"], p["delta_vec"]))


@self_checked
def gaussian_expost(o, q_d, delta_vec, sigma):
    """(signed L, |L|) of seed 003 Thm A.6.1: L = ‖Δ‖²/(2σ²) − Δᵀ(o − Q(D))/σ² = log p_D(o) − log p_{D±z}(o) for the
    Gaussian mechanism o = Q(D) + N(0, σ²I), Δ = Q(D ± z) − Q(D) (vectors of R^d, one row each)."""
    sigma = checked_param("sigma", POSITIVE, sigma)
    o, q, dv = _row("o", o), _row("q_d", q_d), _row("delta_vec", delta_vec)
    if not len(o) == len(q) == len(dv):
        raise ParameterError(f"gaussian_expost: o, q_d, delta_vec must have the same dimension, got {len(o)}, "
                             f"{len(q)}, {len(dv)}")
    L = _loss(o, q, dv, sigma)
    return L, abs(L)


def _loss(o, q, dv, sigma):
    """‖Δ‖²/(2σ²) − Δᵀ(o − Q(D))/σ² from lists of mpf."""
    sq = mpmath.fsum(v * v for v in dv)
    inner = mpmath.fsum(v * (a - b) for v, a, b in zip(dv, o, q))
    return sq / (2 * sigma * sigma) - inner / (sigma * sigma)


@self_checked
def thm_a6_1(o, q_d, delta_vec, sigma):
    """Seed 003 Thm A.6.1: ε(o, D, D ± z) = |‖Δ_z‖²/(2σ²) − Δ_zᵀ(o − Q(D))/σ²|."""
    return gaussian_expost(o, q_d, delta_vec, sigma)[1]


@self_checked
def thm_a6_1_signed(o, q_d, delta_vec, sigma):
    """Seed 003 Thm A.6.1 without the absolute value (the privacy loss log p_D(o)/p_{D±z}(o))."""
    return gaussian_expost(o, q_d, delta_vec, sigma)[0]


def _expost_vs_density(statement, p):
    """Property: the formula equals the log ratio of the two normal densities, written out here."""
    o, q, dv = _row("o", p["o"]), _row("q_d", p["q_d"]), _row("delta_vec", p["delta_vec"])
    s2 = p["sigma"] ** 2
    lp = -mpmath.fsum((a - b) ** 2 for a, b in zip(o, q)) / (2 * s2)
    lq = -mpmath.fsum((a - b - v) ** 2 for a, b, v in zip(o, q, dv)) / (2 * s2)
    got = thm_a6_1_signed(**p)
    if abs(got - (lp - lq)) > mpf(10) ** (-25) * (1 + abs(lp) + abs(lq)):
        raise AssertionError(f"Thm A.6.1 L = {mpmath.nstr(got, 20)} but log p − log q = {mpmath.nstr(lp - lq, 20)}")


register(Statement(
    id="objpert.thm_a6_1",
    fast="dpspec.fast.objpert.expost:thm_a6_1",
    source=Source(spec.SEED, "Theorem A.6.1", "exact ex-post per-instance DP of the Gaussian mechanism"),
    kind="pdp",
    claim="exact",
    value=Value("loss"),
    summary="ε(o, D, D ± z) = |‖Δ_z‖²/(2σ²) − Δ_zᵀ(o − Q(D))/σ²|, Δ_z = Q(D ± z) − Q(D), o ~ Q(D) + N(0, σ²I)",
    params=(spec.P_O_ROW_C, spec.P_QD_C, spec.P_DELTA_VEC_C, spec.P_SIGMA_C),
    reference=thm_a6_1,
    conditions=(_GAUSS_VECTORS,),
    privacy=Privacy("add_remove", "P||Q", "none"),
    properties=(_expost_vs_density,),
    note="Signed loss: thm_a6_1_signed (public evaluator). Test vector (notes objpert-pdp.md §5.2): Q(D) = 0, Δ = (1, 0), σ = 1, o = (0.3, 0.5) ⇒ 0.2. The hypothesis "
         "must read Δ_z := Q(D ± z) − Q(D) (erratum E17); the printed proof computes the reciprocal ratio. The λ → ∞ "
         "limit of objpert.cor2_3_2 (Δ = s∇ℓ). Its law under P is N(‖Δ‖²/(2σ²), ‖Δ‖²/σ²): objpert.cor_a6_2, and the "
         "exact profile is base.gaussian_profile at σ/‖Δ‖.",
))


# ---------------------------------------------------------------------------------------------------------------
# Corollary A.6.2


def _cor_args(Delta, sigma, delta):
    return (checked_param("Delta", NONNEGATIVE, Delta), checked_param("sigma", POSITIVE, sigma),
            checked_param("delta", DELTA, delta))


def _first(Delta, sigma):
    return Delta * Delta / (2 * sigma * sigma)


@self_checked
def cor_a6_2(Delta, sigma, delta):
    """Seed 003 Cor A.6.2 (pDP, Φ form): ε(D, D ± z) ≤ ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1 − δ)/σ (the one-sided tail of the
    N(‖Δ‖²/(2σ²), ‖Δ‖²/σ²) privacy loss; Lemma A.7.4)."""
    Delta, sigma, delta = _cor_args(Delta, sigma, delta)
    return _first(Delta, sigma) + Delta * ndtri_upper(delta) / sigma


@self_checked
def cor_a6_2_sqrt(Delta, sigma, delta):
    """Seed 003 Cor A.6.2, the second (intended) form: ‖Δ‖²/(2σ²) + ‖Δ‖√(2 log(1/δ))/σ (the text repeats the Φ form;
    erratum E16)."""
    Delta, sigma, delta = _cor_args(Delta, sigma, delta)
    return _first(Delta, sigma) + Delta * mpmath.sqrt(2 * mpmath.log(1 / delta)) / sigma


@self_checked
def cor_a6_2_expost(Delta, sigma, delta):
    """Seed 003 Cor A.6.2, ex-post with ρ = δ: w.p. 1 − ρ over o, ε(o) ≤ ‖Δ‖²/(2σ²) + ‖Δ‖Φ⁻¹(1 − ρ/2)/σ (two-sided)."""
    Delta, sigma, delta = _cor_args(Delta, sigma, delta)
    return _first(Delta, sigma) + Delta * ndtri_upper(delta / 2) / sigma


@self_checked
def cor_a6_2_expost_sqrt(Delta, sigma, delta):
    """Seed 003 Cor A.6.2 / eq. (A.6.1), ex-post with ρ = δ: ‖Δ‖²/(2σ²) + ‖Δ‖√(2 log(2/ρ))/σ."""
    Delta, sigma, delta = _cor_args(Delta, sigma, delta)
    return _first(Delta, sigma) + Delta * mpmath.sqrt(2 * mpmath.log(2 / delta)) / sigma


register(Statement(
    id="objpert.cor_a6_2",
    fast="dpspec.fast.objpert.expost:cor_a6_2",
    source=Source(spec.SEED, "Corollary A.6.2", "per-instance DP and high-probability ex-post pDP of the Gaussian "
                  "mechanism"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="(ε, δ)-pDP with ε = ‖Δ_z‖²/(2σ²) + ‖Δ_z‖Φ⁻¹(1 − δ)/σ ≤ ‖Δ_z‖²/(2σ²) + ‖Δ_z‖√(2 log(1/δ))/σ; ex-post "
            "w.p. 1 − ρ: Φ⁻¹(1 − ρ/2), √(2 log(2/ρ))",
    params=(spec.P_DELTA_NORM_C, spec.P_SIGMA_C, spec.P_DELTA),
    reference=cor_a6_2,
    variants={"sqrt": Variant(cor_a6_2_sqrt, "√(2 log(1/δ)) in place of Φ⁻¹(1 − δ) (looser; the intended second "
                              "form, erratum E16)"),
              "expost": Variant(cor_a6_2_expost, "the ex-post (1 − ρ)-quantile bound with ρ = δ: Φ⁻¹(1 − δ/2) "
                                "(≥ the Φ form, so also a pDP ε at δ)"),
              "expost_sqrt": Variant(cor_a6_2_expost_sqrt, "the ex-post bound √(2 log(2/ρ)) with ρ = δ (eq. A.6.1)")},
    witnesses=(WitnessUse("base.gaussian", lambda p: {"sigma": p["sigma"] / p["Delta"]},
                          "the per-instance Gaussian pair N(Q(D), σ²I) vs N(Q(D) + Δ_z, σ²I) (notes §3.2) reduces to "
                          "N(1, (σ/‖Δ‖)²) vs N(0, (σ/‖Δ‖)²): the exact pair"),),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"Delta": +1, "sigma": -1, "delta": -1},
    note="Notes objpert-pdp.md §5.2 at Δ = σ = 1, δ = 1e-6: 5.253424309 (Φ) and 5.756521770 (√), against the exact "
         "analytic-Gaussian ε = base.gaussian_eps(δ, σ/Δ) = 4.886554117 (the chapter's tail bounds are loose by 0.4–"
         "0.9). The per-instance Gaussian pair is base.gaussian rescaled (not duplicated here). Used by Thm A.3.4 "
         "(Algorithm 10) and Thm A.3.1, A.4.1 (objpert.thm_a3_*, objpert.thm_a4_1) with Δ their per-instance "
         "sensitivities.",
))


# ---------------------------------------------------------------------------------------------------------------
# Example 2.2.4


@self_checked
def ex2_2_4(count, o, sigma):
    """Seed 003 Ex 2.2.4: the attacker z ∉ D, shown o = Q(D) + N(0, σ²) of a counting query and her own ex-post pDP
    ε(o, D, D + z) (Thm A.6.1 with Δ = Q(D + z) − Q(D) = 1), computes σ²ε = |o − Q(D) − 1/2|, so
    Q(D) ∈ {o − 1/2 − σ²ε, o − 1/2 + σ²ε}: returns σ²ε (footnote: Q(D) = 0, o = 0.1 ⇒ 0.4, candidates 0 and −0.8)."""
    count = checked_param("count", spec.P_COUNT_Q_C.domain, count)
    o = checked_param("o", spec.P_OUT_1D_C.domain, o)
    sigma = checked_param("sigma", POSITIVE, sigma)
    eps = abs(_loss([o], [count], [mpf(1)], sigma))  # Thm A.6.1 (thm_a6_1's formula) at the working precision
    return sigma * sigma * eps


def _attack_recovers_count(statement, p):
    """Property: one of the attacker's two candidates o − 1/2 ± σ²ε is Q(D)."""
    v = statement.reference(**p)
    cands = (p["o"] - mpf(1) / 2 - v, p["o"] - mpf(1) / 2 + v)
    tol = mpf(10) ** (-25) * (1 + abs(p["o"]) + abs(p["count"]))
    if min(abs(c - p["count"]) for c in cands) > tol:
        raise AssertionError(f"neither candidate {[mpmath.nstr(c, 15) for c in cands]} equals Q(D) = {p['count']}")


register(Statement(
    id="objpert.ex2_2_4",
    source=Source(spec.SEED, "Example 2.2.4", "publishing the exact ex-post pDP reveals the data (reconstruction "
                  "of a count from o and ε(o, D, D + z))"),
    kind="identity",
    claim="exact",
    value=Value("number"),
    summary="σ²ε(o, D, D + z) = |o − Q(D) − 1/2| for o ~ Q(D) + N(0, σ²), ΔQ = 1: Q(D) = o − 1/2 ± σ²ε",
    params=(spec.P_COUNT_Q_C, spec.P_OUT_1D_C, spec.P_SIGMA_C),
    reference=ex2_2_4,
    properties=(_attack_recovers_count,),
    privacy=Privacy("add_remove", "n/a", "none"),
    note="Footnote vector (notes objpert-pdp.md §2.B): Q(D) = 0, o = 0.1 ⇒ σ²ε = 0.4, candidates {0, −0.8}; for an "
         "integer count exactly one candidate is an integer w.p. 1, so the count is revealed (the text says o = 1 "
         "before using o = 0.1; erratum E19). Computed through objpert.thm_a6_1's evaluator; the inversion is "
         "proof-checked symbolically in proofs_checks/objpert (helper G).",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.7.3 (Gaussian tail)


@self_checked
def lemma_a7_3(t):
    """Seed 003 Lemma A.7.3 (first part): for X ~ N(0, σ²) and t > 0, P(X > σt) ≤ e^{−t²/2}/t. True but loose: the
    Mills-ratio bound has an extra 1/√(2π) (erratum E18; variant ``mills``). Its consequences P(X > σ√(2 log(1/δ)))
    ≤ δ and P(|X| > σ√(2 log(2/δ))) ≤ δ (δ ∈ (0, 1], not "all δ > 0") are the √ forms of objpert.cor_a6_2."""
    t = checked_param("t", POSITIVE, t)
    return _tail_bound(t, 1)


def _tail_bound(t, c):
    """e^{−t²/2}/(c·t), with as many more digits as the exponent t²/2 has integer digits (up to t = 1e308)."""
    extra = 10 + max(0, 2 * int(mpmath.log10(t)))
    with mp.workdps(mp.dps + extra):
        v = mpmath.exp(-t * t / 2) / (c * t)
    return +v


@self_checked
def lemma_a7_3_mills(t):
    """The Mills-ratio bound P(X > σt) ≤ φ(t)/t = e^{−t²/2}/(t√(2π)) (Gordon 1941), tighter by √(2π)."""
    t = checked_param("t", POSITIVE, t)
    return _tail_bound(t, mpmath.sqrt(2 * mpmath.pi))


def _tail_above_exact(statement, p):
    """Property: both forms lie above the exact tail Φ(−t) (compared in log space)."""
    from .._normal import log_ndtr

    exact = log_ndtr(-p["t"])
    for name, fn in (("printed", lemma_a7_3), ("mills", lemma_a7_3_mills)):
        t = p["t"]
        log_bound = -t * t / 2 - mpmath.log(t) - (mpmath.log(2 * mpmath.pi) / 2 if name == "mills" else 0)
        if log_bound < exact - mpf(10) ** (-25) * (1 + abs(exact)):
            raise AssertionError(f"{name} form e^{{-t²/2}}/t… = exp({mpmath.nstr(log_bound, 15)}) below the exact "
                                 f"tail exp({mpmath.nstr(exact, 15)}) at t = {mpmath.nstr(t, 10)}")
        if not fn(t) > 0:
            raise AssertionError(f"{name} form is not positive at t = {mpmath.nstr(t, 10)}")


register(Statement(
    id="objpert.lemma_a7_3",
    source=Source(spec.SEED, "Lemma A.7.3", "Gaussian tail bound used by the chapter's pDP and ex-post bounds"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="X ~ N(0, σ²), t > 0: P(X > σt) ≤ e^{−t²/2}/t (Mills: ≤ e^{−t²/2}/(t√(2π)))",
    params=(Param("t", POSITIVE, "t > 0, the threshold in units of σ", example=2),),
    reference=lemma_a7_3,
    variants={"mills": Variant(lemma_a7_3_mills, "with the Mills-ratio factor 1/√(2π) (tighter, still valid; "
                               "erratum E18)")},
    properties=(_tail_above_exact,),
    monotone={"t": -1},
    note="A bound on the probability P(N(0, 1) > t) (not a privacy quantity). The printed form misses 1/√(2π) "
         "(valid, loose) and states its δ-forms 'for all δ > 0' (δ ∈ (0, 1] needed) — erratum E18. Base's exact "
         "Gaussian profile (base.gaussian_profile) replaces these tails where tightness matters.",
))
