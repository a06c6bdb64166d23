"""Theorem 5.1 of seed 004 (DC-DPSGD, arXiv 2405.17529v1, L174) as printed, its total (ε_tr + ε_dp, δ), the
amplification of Claim C(3) (L976–L1058), and the m2 that the exact accountant implies.

Notes shared/notes/dc-dpsgd.md §2 (Thm 5.1, Claims C(1)–C(3)), §3.4, §6 E1, E2, E7, E22, §7.
- Thm 5.1 is an EXISTENCE statement (Abadi et al. 2016, Thm 1, restated): there are m1, m2 such that for
  ε ≤ m1 q² T, σ² = m2 T q² ln(1/δ)/ε² suffices. m2 and m1 are user parameters here; m2 is NOT a constant (E1): the
  exact accountant's calibrated σ implies m2 from ≈ 1.6 to ≈ 21.7 at the paper's settings (dc.implied_m2).
- The printed total ε_tr + ε_dp composes two separately subsampled accountants on ONE batch, which is invalid
  (E2); the sound total is reading (C) of readings.py: ONE subsampled Gaussian with μ_step² = σ_tr⁻² + σ_dp⁻².
- Claim C(3) amplification: the printed (q(e^ε − 1), qδ) is valid but loose; the tight classical form is
  (log(1 + q(e^ε − 1)), qδ) (Li–Qardaji–Su 2012, Balle et al. 2018; E22).
All accounting calls the base SGM accountant (readings.sgm_epsilon_rdp / sgm_epsilon_pld): nothing is duplicated.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from .._solve import root
from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..errors import ConditionError, ParameterError, PrecisionError
from ..precision import checked_param as _arg, self_checked
from . import spec
from .readings import _reading_epsilon, sgm_epsilon_pld, sgm_epsilon_rdp

_Q = spec.P_Q.domain


# ---------------------------------------------------------------------------------------------------------------
# Claim C(3): amplification by subsampling


def _amplify(eps, delta, q, printed=False):
    eps, q = _arg("eps", spec.EPS, eps), _arg("q", _Q, q)
    delta = _arg("delta", spec.P_DELTA_BASE.domain, delta)
    if printed:
        return q * mpmath.expm1(eps), q * delta
    return mpmath.log1p(q * mpmath.expm1(eps)), q * delta


@self_checked
def amplify(eps, delta, q, printed=False):
    """(ε', δ') of M ∘ Poisson-subsample(q) for an (ε, δ)-DP M: ε' = log(1 + q(e^ε − 1)), δ' = qδ (Li, Qardaji & Su
    2012; Balle, Barthe & Gaboardi 2018, Thm 8) — the tight form of seed 004 Claim C(3) (L976–L1058); with
    printed=True the paper's (q(e^ε − 1), qδ) (p1442: valid, since log(1 + x) ≤ x, but looser: erratum dc.E22).
    Notes §3.4: ε = 4, q = 0.1: 1.85 vs 5.36; ε = 8: 5.70 vs 298; ε = 1, q = 0.002133: 0.003658 vs 0.003665."""
    return _amplify(eps, delta, q, printed)


@self_checked
def claim_c3(eps, delta, q):
    """dc.claim_c3: the tight amplified (ε', δ') (:func:`amplify`)."""
    return _amplify(eps, delta, q)


@self_checked
def claim_c3_printed(eps, delta, q):
    """dc.claim_c3, variant printed: (q(e^ε − 1), qδ) (seed 004 p1442–p1447; valid and looser, dc.E22)."""
    return _amplify(eps, delta, q, printed=True)


def _amp_witness(p):
    # the amplified base pair: M = a Gaussian mechanism calibrated to (ε, δ) exactly, subsampled at q (one step)
    from ..base.gaussian import gaussian_sigma  # noqa: PLC0415

    return {"q": p["q"], "sigma": gaussian_sigma(mpf(p["eps"]), mpf(p["delta"])), "direction": "remove"}


register(Statement(
    id="dc.claim_c3",
    source=Source(spec.SEED, "Claim C(3)", "amplification by Poisson subsampling of an (ε, δ)-DP step"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="(ε', δ') = (log(1 + q(e^ε − 1)), qδ); printed (q(e^ε − 1), qδ) is valid and looser",
    params=(spec.P_EPS_BASE, spec.P_DELTA_BASE, spec.P_Q),
    reference=claim_c3,
    variants={"printed": Variant(claim_c3_printed, "the printed (q(e^ε − 1), qδ) (p1442; erratum dc.E22): valid "
                                 "(log(1 + x) ≤ x) but looser: 298 vs 5.70 at ε = 8, q = 0.1; e^ε − 1 > ε at q = 1",
                                 is_bound=True)},
    witnesses=(WitnessUse("base.sgm", _amp_witness, "the amplified per-step pair: a Gaussian mechanism that is exactly "
                          "(ε, δ)-DP (base.gaussian_sigma), Poisson-subsampled at q (base.sgm's remove pair)"),),
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"eps": +1, "delta": +1, "q": +1},
    note="The printed final ratio at p1447 ('≤ q(e^ε−1)·P[M(D)=Y]/P[M(D')=Y]') is false (randomised check, notes §2); "
         "the step at p1442 is correct and gives the printed form. The last paragraph's T-fold '(O(qε), O(δ))' is "
         "asserted, not proved (E7). Per-step only: DC-DPSGD's T-fold accounting is dc.reading_a/b/c (base.sgm). "
         "Relates: base.poisson_amplification.",
))


# ---------------------------------------------------------------------------------------------------------------
# Theorem 5.1 as printed


def _thm51_sigma(eps, delta, q, steps, m2):
    eps = _arg("eps", spec.POSITIVE, eps)
    delta, q = _arg("delta", spec.DELTA, delta), _arg("q", _Q, q)
    steps, m2 = _arg("steps", spec.COUNT, steps), _arg("m2", spec.POSITIVE, m2)
    return mpmath.sqrt(m2 * steps * q**2 * mpmath.log(1 / delta)) / eps


@self_checked
def thm51_sigma(eps, delta, q, steps, m2):
    """σ = √(m2·T·q²·ln(1/δ))/ε, Thm 5.1 of seed 004 (L174) as printed, for σ_tr (ε = ε_tr) or σ_dp (ε = ε_dp).
    An existence statement with m2 unspecified (erratum dc.E1): m2 is a parameter."""
    return _thm51_sigma(eps, delta, q, steps, m2)


@self_checked
def thm5_1(eps, delta, q, steps, m2, m1=100):
    """dc.thm5_1's evaluator: :func:`thm51_sigma` (m1 enters the condition ε ≤ m1 q² T only)."""
    _arg("m1", spec.POSITIVE, m1)
    return _thm51_sigma(eps, delta, q, steps, m2)


def _implied_witness(p):
    # at the printed σ the DP-SGD component is base.sgm at σ (noise multiplier relative to c1), T-fold
    s = _thm51_sigma(p["eps"], p["delta"], p["q"], p["steps"], p["m2"])
    return {"q": p["q"], "sigma": s, "direction": "remove", "steps": p["steps"]}


register(Statement(
    id="dc.thm5_1",
    fast="dpspec.fast.dc.accounting:thm5_1",
    source=Source(spec.SEED, "Thm 5.1", "noise calibration of the two Gaussian perturbations (as printed)"),
    kind="calibration",
    claim="upper",
    value=Value("noise"),
    summary="σ = √(m2 T q² ln(1/δ))/ε for ε ≤ m1 q² T (m1, m2 unspecified in the text: parameters)",
    params=(spec.P_EPS_THM51, spec.P_DELTA, spec.P_Q, spec.P_STEPS, spec.P_M2, spec.P_M1),
    conditions=(Condition.of(spec.EPS_AT_MOST_M1_Q2_T,
                             lambda p: mpf(p["eps"]) <= mpf(p["m1"]) * mpf(p["q"]) ** 2 * int(p["steps"])),),
    reference=thm5_1,
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"eps": -1, "delta": -1, "steps": +1, "q": +1, "m2": +1},
    note="Existence/asymptotic: constants m1, m2 unspecified in the text (Abadi et al. 2016 Thm 1 restated; erratum "
         "dc.E1). The value is the printed σ for a user-given m2, NOT a certified calibration: with m2 below "
         "dc.implied_m2 (≈ 1.6–21.7 at the paper's settings, rising as σ falls below 1) it is too small. The sound "
         "calibration is the base SGM accountant's (base.sgm_rdp → base.rdp_to_dp, dc.implied_m2); the theorem's "
         "total δ should be 2δ under basic composition (E1). Appendix D's σ_tr = m2√(TB log(1/δ))/(nε_tr) differs "
         "(E8).",
))


def _thm5_1_total(eps_tr, eps_dp, delta, q, steps, m2, c1, c2, m1):
    _arg("m1", spec.POSITIVE, m1)
    s_tr = _thm51_sigma(eps_tr, delta, q, steps, m2)
    s_dp = _thm51_sigma(eps_dp, delta, q, steps, m2)
    return _reading_epsilon("C", q, steps, delta, s_dp, c1, c2, sigma_tr=s_tr, method="rdp")


@self_checked
def thm5_1_total(eps_tr, eps_dp, delta, q, steps, m2, c1, c2, m1=100):
    """The sound total ε(δ) of Thm 5.1's two perturbations at the printed σ_tr, σ_dp (seed 004 L174, Claim C(2)
    L954–L973): both on the same Poisson batch, so ONE subsampled Gaussian with μ² = σ_tr⁻² + ((2c1 − c2)/(c1σ_dp))²
    (reading C, Δ_tr = 1, Δ_gp = 2c1 − c2: the top-⌊pB⌋ selection moves a shared sample tail → body; notes §3.3,
    §3.4 corrected), T-fold, by base.sgm_rdp → base.rdp_to_dp. c1, c2 are required: Thm 5.1 prints no clipping
    thresholds, but Claim C(2)'s setting has c2 < c1, where the gradient part costs (2 − c2/c1)²; at c1 = c2 this
    is the notes' μ² = σ_tr⁻² + σ_dp⁻²."""
    return _thm5_1_total(eps_tr, eps_dp, delta, q, steps, m2, c1, c2, m1)


@self_checked
def thm5_1_total_printed(eps_tr, eps_dp, delta, q, steps, m2, c1, c2, m1=100):
    """The printed total ε_tr + ε_dp (seed 004 Thm 5.1, L174): NOT a bound (erratum dc.E2); c1, c2 unused."""
    _arg("m1", spec.POSITIVE, m1), _thm51_sigma(eps_tr, delta, q, steps, m2), _thm51_sigma(eps_dp, delta, q, steps, m2)
    _arg("c1", spec.POSITIVE, c1), _arg("c2", spec.POSITIVE, c2)
    return eps_tr + eps_dp


def _total_witness(p):
    s_tr = _thm51_sigma(p["eps_tr"], p["delta"], p["q"], p["steps"], p["m2"])
    s_dp = _thm51_sigma(p["eps_dp"], p["delta"], p["q"], p["steps"], p["m2"])
    return {"q": p["q"], "sigma_tr": s_tr, "sigma_dp": s_dp, "delta_tr": 1,
            "delta_gp": 2 - mpf(p["c2"]) / mpf(p["c1"]), "steps": p["steps"]}


register(Statement(
    id="dc.thm5_1_total",
    fast="dpspec.fast.dc.accounting:thm5_1_total",
    tolerance=1e-6,  # the order searches of the two paths (observed ≤ 6e-16)
    source=Source(spec.SEED, "Thm 5.1", "the total (ε, δ) of trace sorting + gradient perturbation at the printed σ's"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) of T-fold SGM(q, (σ_tr⁻² + ((2c1−c2)/(c1σ_dp))²)^{−1/2}), σ_· = √(m2Tq² ln(1/δ))/ε_·; printed: "
            "ε_tr + ε_dp",
    params=(spec.P_EPS_TR, spec.P_EPS_DP, spec.P_DELTA_ACC, spec.P_Q_ACC, spec.P_STEPS_ACC, spec.P_M2, spec.P_C1,
            spec.P_C2, spec.P_M1),
    conditions=(Condition.of(spec.EPS_PARTS_AT_MOST_M1_Q2_T,
                             lambda p: max(mpf(p["eps_tr"]), mpf(p["eps_dp"]))
                             <= mpf(p["m1"]) * mpf(p["q"]) ** 2 * int(p["steps"])),
                Condition.of(spec.C2_AT_MOST_C1, lambda p: mpf(p["c2"]) <= mpf(p["c1"]))),
    reference=thm5_1_total,
    variants={"printed": Variant(thm5_1_total_printed, "the printed ε_tr + ε_dp: composes two SEPARATELY subsampled "
                                 "accountants on one batch (erratum dc.E2); MNIST 4+4 at m2 = 8.09: the true ε is "
                                 "≈ 14.1 (RDP) / 12.45 (PLD), not 8", is_bound=False)},
    witnesses=(WitnessUse("dc.joint_step", _total_witness, "the joint step's two-component subsampled Gaussian "
                          "(scores and gradient on the same batch), T-fold"),),
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"m2": -1},
    note="Reading (C) of notes §3.4 (dc.reading_c) at the printed σ's with Δ_tr = 1 and Δ_gp = 2c1 − c2 (the "
         "selection is recomputed: corrected from the notes' Δ_gp = c1); m2 is a user parameter (E1). c1, c2: Thm "
         "5.1 prints none; Claim C(2)'s setting has c2 < c1 (at c1 = c2 the readings A and C's gradient parts "
         "coincide with DP-SGD's). The regression test for E2: this exceeds the 'separate' sum of two subsampled "
         "accountants whenever σ ≲ 1.",
))


# ---------------------------------------------------------------------------------------------------------------
# the m2 the exact accountant implies (notes §2 T5.1 table)


def _sgm_eps(method, q, sigma, steps, delta):
    if method == "rdp":
        return sgm_epsilon_rdp(q, sigma, steps, delta)
    if method == "pld":
        return sgm_epsilon_pld(q, sigma, steps, delta)
    raise ParameterError(f"method={method!r}: one of ('rdp', 'pld')")


_CALIBRATED: dict = {}  # (method, eps, delta, q, steps) as strings → log σ (a calibration is solved once at 20 digits)


def _calibrate(eps, delta, q, steps, method="rdp"):
    """The σ with ε_SGM(q, σ, T, δ) = eps (ε is continuous and decreasing in σ): Illinois root in log σ at 20 digits
    to absolute 1e-9 (a calibration, not a bound at the working precision; solved once, remembered, so the
    two-precision self-check does not repeat it), bracketed around Abadi's σ ≈ q√(2T ln(1/δ))/ε."""
    eps, delta, q = _arg("eps", spec.POSITIVE, eps), _arg("delta", spec.DELTA, delta), _arg("q", _Q, q)
    steps = int(_arg("steps", spec.COUNT, steps))
    if method not in ("rdp", "pld"):
        raise ParameterError(f"method={method!r}: one of ('rdp', 'pld')")
    key = (method, *(mpmath.nstr(x, 40) for x in (eps, delta, q)), steps)
    if key not in _CALIBRATED:
        _CALIBRATED[key] = _solve_log_sigma(eps, delta, q, steps, method)
    return mpmath.exp(_CALIBRATED[key])


def _solve_log_sigma(eps, delta, q, steps, method):
    if method == "pld":
        return _solve_log_sigma_bracketed(eps, delta, q, steps, method)
    return _solve_log_sigma_rdp(eps, delta, q, steps)


_RDP_OUTER = 30  # outer iterations of the envelope iteration (α* settles in 2–3 once σ_k is near σ*)


def _solve_log_sigma_rdp(eps, delta, q, steps):
    """log σ* with ε_RDP(σ*) = eps, ε_RDP(σ) = min_α F(α, σ), F the BBG+20/CKS20 objective of T·base.sgm_rdp (the
    objective base.rdp_to_dp minimises). Envelope iteration: α_k = the certified optimal order at σ_k
    (base.rdp_to_dp_order), σ_{k+1} the root of F(α_k, σ) = eps in log σ (one curve value per step). Since
    F(α_k, ·) ≥ ε_RDP, ε_RDP(σ_{k+1}) ≤ eps: σ_{k+1} ≥ σ* always, and at a fixed point α_k is optimal at σ_{k+1},
    so ε_RDP(σ_{k+1}) = F(α_k, σ_{k+1}) = eps. Stops when log σ moves by < 1e-10 (about 3 searches instead of one
    per root step)."""
    from ..base.conversion import dp_at_order, rdp_to_dp_order  # noqa: PLC0415
    from ..base.sgm import sgm_rdp  # noqa: PLC0415
    from .readings import SgmCurve  # noqa: PLC0415

    with mp.workdps(20):
        log_s = mpmath.log(max(_thm51_sigma(eps, delta, q, steps, 2), mpf("0.02")))
        for _ in range(_RDP_OUTER):
            _, alpha = rdp_to_dp_order(SgmCurve(q, mpmath.exp(log_s)), delta, steps)
            if mpmath.isinf(alpha):
                raise PrecisionError(f"implied_m2: no finite optimal order at σ = {mpmath.nstr(mpmath.exp(log_s), 8)}")

            if dp_at_order(0, alpha, delta) >= eps:  # at this order no σ reaches ε (its floor as σ → ∞): σ_k is
                log_s += 1                          # far too small; move up and take the order there
                continue

            def h(x, alpha=alpha):
                return dp_at_order(steps * sgm_rdp(alpha, q, mpmath.exp(x), "remove"), alpha, delta) - eps

            lo, hi = log_s - mpf("0.5"), log_s + mpf("0.5")
            while h(lo) < 0:
                lo, hi = lo - 1, lo
                if lo < mpmath.log(mpf("0.01")):
                    raise PrecisionError(f"implied_m2: ε ≤ {mpmath.nstr(eps, 5)} already at σ = 0.01 (RDP)")
            while h(hi) > 0:
                lo, hi = hi, hi + 1
                if hi > 40:
                    raise PrecisionError(f"implied_m2: no σ < e^40 reaches ε = {mpmath.nstr(eps, 5)}")
            new = root(h, lo, hi, abs_tol=mpf("1e-12"))
            if abs(new - log_s) < mpf("1e-10"):
                return new
            log_s = new
    raise PrecisionError(f"implied_m2: the order/σ iteration did not settle in {_RDP_OUTER} steps")


def _solve_log_sigma_bracketed(eps, delta, q, steps, method):
    lo_cap = mpf("0.5")
    with mp.workdps(20):
        seen: dict = {}

        def h(log_s):
            k = mpmath.nstr(log_s, 25)
            if k not in seen:
                seen[k] = _sgm_eps(method, q, mpmath.exp(log_s), steps, delta) - eps
            return seen[k]

        guess = max(_thm51_sigma(eps, delta, q, steps, 2), lo_cap * 2)
        lo, hi = mpmath.log(guess) - mpf("0.25"), mpmath.log(guess) + mpf("0.25")
        while h(lo) < 0:
            lo, hi = lo - 1, lo
            if lo < mpmath.log(lo_cap):
                raise PrecisionError(f"implied_m2: ε ≤ {mpmath.nstr(eps, 5)} already at σ = "
                                     f"{mpmath.nstr(lo_cap, 3)} ({method}): no calibration in the accountant's domain")
        while h(hi) > 0:
            lo, hi = hi, hi + 1
            if hi > 40:
                raise PrecisionError(f"implied_m2: no σ < e^40 reaches ε = {mpmath.nstr(eps, 5)}")
        return root(h, lo, hi, abs_tol=mpf("1e-9"))


def calibrate_sgm_sigma(eps, delta, q, steps, method="rdp"):
    """σ of T Poisson-subsampled Gaussian steps (sensitivity 1) with ε(δ) = eps by the base accountant
    (method "rdp": base.sgm_rdp → base.rdp_to_dp; "pld": base.pld_sgm_epsilon, T ≤ 64), to relative ~1e-9."""
    return _calibrate(eps, delta, q, steps, method)


def _implied_m2(eps, delta, q, steps, method="rdp"):
    s = _calibrate(eps, delta, q, steps, method)
    eps, delta, q = mpf(eps), mpf(delta), mpf(q)
    return s**2 * eps**2 / (int(steps) * q**2 * mpmath.log(1 / delta))


@self_checked
def implied_m2(eps, delta, q, steps, method="rdp"):
    """m2 = σ²ε²/(T q² ln(1/δ)) at the σ the exact accountant calibrates for (ε, δ) (notes §2 T5.1 table; seed 004
    Thm 5.1, L174; erratum dc.E1): the m2 that makes Thm 5.1's σ equal the certified one. The calibration is a
    root to relative ~1e-9 in σ (so m2 to ~2e-9), not a certified bound."""
    return _implied_m2(eps, delta, q, steps, method)


@self_checked
def implied_m2_at_sigma(q, steps, delta, sigma):
    """dc.implied_m2's evaluator: m2 = σ²ε²/(T q² ln(1/δ)) with ε = ε_RDP(T-fold SGM(q, σ), δ) (base.sgm_rdp →
    base.rdp_to_dp): the m2 for which Thm 5.1's σ (seed 004 L174) at ε = ε(σ) is exactly σ, i.e. :func:`implied_m2`
    at the ε that σ certifies — one order search instead of a calibration (notes §2 T5.1 table: evaluate at σ_RDP)."""
    q, delta = _arg("q", _Q, q), _arg("delta", spec.DELTA, delta)
    steps, sigma = int(_arg("steps", spec.COUNT, steps)), _arg("sigma", spec.POSITIVE, sigma)
    eps = sgm_epsilon_rdp(q, sigma, steps, delta)
    return sigma**2 * eps**2 / (steps * q**2 * mpmath.log(1 / delta))


register(Statement(
    id="dc.implied_m2",
    source=Source(spec.SEED, "Thm 5.1", "the m2 that makes Thm 5.1's σ equal the exact accountant's σ (E1)"),
    kind="identity",
    claim="exact",
    value=Value("number"),
    summary="m2 = σ²ε(σ)²/(T q² ln(1/δ)), ε(σ) = ε_RDP(T-fold SGM(q, σ), δ) (base.sgm_rdp → base.rdp_to_dp)",
    params=(spec.P_Q_ACC, spec.P_STEPS_ACC, spec.P_DELTA_ACC, spec.P_SIGMA_NOISE),
    reference=implied_m2_at_sigma,
    privacy=Privacy("add_remove", "both", "poisson"),
    note="Not a constant (erratum dc.E1): at the σ_RDP of the notes' §2 table, MNIST (q = 0.0021333, T = 18750, "
         "δ = 1e-5) 21.68 / 8.09 / 3.42 at σ = 0.5769 / 0.7048 / 0.9166 (ε = 8 / 4 / 2); ImageNette (q = 0.105608, "
         "T = 473, δ = 1e-4) 3.13 / 2.13 / 1.65; q = 1 gives ≈ 0.8–2.0 (notes §2). Parametrised by σ (one certified "
         "order search); the calibrating form, m2 at a target ε, is privacy.implied_m2(eps, delta, q, steps) (an "
         "envelope iteration: ~3 searches). RDP orders: base.rdp_to_dp's certified continuous search (the notes' "
         "integer grid gives values within ~0.5 %).",
))
