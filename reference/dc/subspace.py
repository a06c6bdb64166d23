"""Thm 5.2 = D.1 of seed 004 (subspace skewing for identification; L210–L214, proof L1067–L1130), notes
shared/notes/dc-dpsgd.md §2 Thm 5.2, §6 E5, E8.

The text's claim: with probability 1 − δ_m − δ_tr, |λ_{t,i} − λ̂_t + ζ_t| ≤ 4 log(2d/δ_m)/k + m2√B log^{1/2}(1/δ_tr)/√d
(printed), the proof's (55) being 4 log(2d/δ_m)/k + σ_tr log^{1/2}(2/δ_tr). Both rest on (49) |‖a‖² − ‖b‖²| ≤
‖a − b‖², which is false (a = 1.1u, b = u), and on Ahlswede–Winter for "orthogonal" (not independent) v_i (E5).

The corrected form registered as the default: for unit ĝ and M = (1/k)Σ_j v_j v_jᵀ with independent unit v_j
(Algorithm 1 line 6's 1/k average, L196), λ = ĝᵀMĝ and λ̂ = ĝᵀ(E M)ĝ, so |λ − λ̂| ≤ ‖M − E M‖₂ ≤ μ with μ =
2√(log(2d/δ_m)/k) (Lemma A.9 with R = 1, m = k, inverted), and ≤ 1 always (both lie in [0, 1]); the Gaussian trace
noise obeys |ζ| ≤ σ_tr√(2 log(2/δ_tr)) with probability ≥ 1 − δ_tr (P(|Z| > t) ≤ 2e^{−t²/2}; the printed
σ_tr log^{1/2}(2/δ_tr) misses the √2). It says nothing about identification: λ's between-sample spread is ~k/d² at
most while the bound is O(0.1–1) (E5).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Condition, Source, Statement, Value, Variant, register
from ..errors import ParameterError
from ..precision import self_checked, to_mpf
from . import spec
from .spec import P_BATCH, P_D, P_DELTA_M, P_DELTA_NOISE, P_K_SUB, P_M2, P_SIGMA_TR, SEED


def _aw_mu(d, k, delta_m):
    """μ = 2√(log(2d/δ_m)/k): Lemma A.9 (R = 1, m = k) solved for P(‖M − E M‖₂ > μ) = δ_m (L662; (51)–(53))."""
    return 2 * mpmath.sqrt(mpmath.log(2 * d / delta_m) / k)


def _check(d, k, delta_m, sigma_tr, delta_tr):
    d = spec.DIMENSION.check("d", d)
    k = spec.COUNT.check("k", k)
    delta_m = spec.PROB_OPEN.check("delta_m", to_mpf(delta_m))
    sigma_tr = spec.POSITIVE.check("sigma_tr", to_mpf(sigma_tr))
    delta_tr = spec.PROB_OPEN.check("delta_tr", to_mpf(delta_tr))
    return d, k, delta_m, sigma_tr, delta_tr


@self_checked
def subspace_error(d, k, delta_m, sigma_tr, delta_tr, form="eq55"):
    """The trace-error bound of Thm 5.2 (seed 004, D.1, L1067–L1130): ``form="eq55"`` the proof's (55)
    4 log(2d/δ_m)/k + σ_tr log^{1/2}(2/δ_tr) (the claim helper D checks: 0.258 + … at d = 2000, k = 200, δ_m = 0.01,
    notes §2); ``form="corrected"`` min(1, 2√(log(2d/δ_m)/k)) + σ_tr√(2 log(2/δ_tr)) (module docstring). Natural
    logs. δ_tr is the noise tail's failure probability (not section B's sensitivity Δ_tr)."""
    d, k, delta_m, sigma_tr, delta_tr = _check(d, k, delta_m, sigma_tr, delta_tr)
    if form == "eq55":
        return 4 * mpmath.log(2 * d / delta_m) / k + sigma_tr * mpmath.sqrt(mpmath.log(2 / delta_tr))
    if form == "corrected":
        return min(mpf(1), _aw_mu(d, k, delta_m)) + sigma_tr * mpmath.sqrt(2 * mpmath.log(2 / delta_tr))
    raise ParameterError(f"form={form!r}: expected 'eq55' or 'corrected'")


@self_checked
def thm5_2(d, k, delta_m, delta_noise, sigma_tr, m2, batch):
    """Thm 5.2 corrected (module docstring): min(1, 2√(log(2d/δ_m)/k)) + σ_tr√(2 log(2/δ_tr)), probability
    1 − δ_m − δ_tr, for the 1/k-averaged V of independent unit vectors (m2, B unused: the printed form's)."""
    return subspace_error(d, k, delta_m, sigma_tr, delta_noise, form="corrected")


@self_checked
def thm5_2_eq55(d, k, delta_m, delta_noise, sigma_tr, m2, batch):
    """The proof's (55) (seed 004 L1113–L1117): 4 log(2d/δ_m)/k + σ_tr log^{1/2}(2/δ_tr)."""
    return subspace_error(d, k, delta_m, sigma_tr, delta_noise, form="eq55")


@self_checked
def thm5_2_printed(d, k, delta_m, delta_noise, sigma_tr, m2, batch):
    """Thm 5.2 as printed (seed 004 L212, L1071): 4 log(2d/δ_m)/k + m2√B log^{1/2}(1/δ_tr)/√d (Appendix D's
    σ_tr = m2√(TB log(1/δ))/(nε_tr) at T = nε_tr/√(d log(1/δ)), then T ≥ 1; E8)."""
    return (4 * mpmath.log(2 * d / delta_m) / k
            + m2 * mpmath.sqrt(batch) * mpmath.sqrt(mpmath.log(1 / delta_noise)) / mpmath.sqrt(d))


AW_MU = Condition.of(spec.AW_MU_BELOW_ONE, lambda p: p["k"] > 4 * mpmath.log(2 * p["d"] / p["delta_m"]))

register(Statement(
    id="dc.thm5_2",
    fast="dpspec.fast.dc.convergence:thm5_2",
    source=Source(SEED, "Thm 5.2 = D.1", "subspace skewing: the error of one sample's noisy projected trace"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="|λ_{t,i} − λ̂_t + ζ_t| ≤ min(1, 2√(log(2d/δ_m)/k)) + σ_tr√(2 log(2/δ_tr)) w.p. 1 − δ_m − δ_tr "
            "(printed: 4 log(2d/δ_m)/k + m2√B log^{1/2}(1/δ_tr)/√d)",
    params=(P_D, P_K_SUB, P_DELTA_M, P_DELTA_NOISE, P_SIGMA_TR, P_M2, P_BATCH),
    reference=thm5_2,
    variants={
        "eq55": Variant(thm5_2_eq55, "the proof's (55), 4 log(2d/δ_m)/k + σ_tr log^{1/2}(2/δ_tr): (49) is false and "
                        "the Gaussian quantile lacks √2 (E5); not a bound", is_bound=False, conditions=(AW_MU,)),
        "printed": Variant(thm5_2_printed, "Thm 5.2 as printed, with Appendix D's σ_tr (E5, E8); not a bound",
                           is_bound=False, conditions=(AW_MU,)),
    },
    monotone={"d": +1, "k": -1, "delta_m": -1, "delta_noise": -1, "sigma_tr": +1},
    note="A high-probability bound on one trace's error, valid for M = (1/k)Σ v_j v_jᵀ with independent unit v_j; "
         "for an orthonormal V (Thm 5.2's own hypothesis VᵀV = I_k) M is a projection and ‖M − E M‖₂ = 1 − k/d "
         "(0.9 at d = 2000, k = 200), so only the trivial |λ − λ̂| ≤ 1 remains (E5). Uninformative: for an "
         "isotropic V, λ̂ = k/d is the same for every sample (E5). σ_tr from Thm 5.1 (dc.thm5_1) or Appendix D "
         "(the printed form; E8).",
))
