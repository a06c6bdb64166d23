"""Objective perturbation for GLMs, seed 003 chapter 4 (Redberg, Koskela & Wang, NeurIPS 2023, arXiv 2401.00583v1):
its privacy profile (Thm 4.3.1), its RDP curve (Thm 4.3.2) and the α = 1 limit, the Gaussian lower bound (Lemma
4.3.4), the per-instance profile (Lemma C.4.3) and the trade-off function of the dominating pair (Lemma C.4.6).

Notation (notes objpert-rdp.md, head): a = −log(1 − β/λ) (the Jacobian term, finite for λ > β), c = L²/(2σ²),
v = L/σ. Every bound of this module is a functional of the privacy-loss variable ω = a + c + v·Y, Y ~ |N(0, 1)| (the
half-normal), which is the PLRV of the corrected Lemma C.4.6 dominating pair (reference/objpert/witnesses_ch4.py):

    δ(ε) = E[1 − e^{ε − ω}]₊,   ε(α) = a + c + (1/(α−1)) log E e^{(α−1) v Y}.

Relations: Lemma 4.3.4's lower bound is base.gaussian_profile at σ/L (the Gaussian mechanism with sensitivity L is the
worst case it exhibits); the Gaussian terms of Thm 4.3.1 are base.gaussian's stable log δ of N(μ, 1) vs N(0, 1)
(:func:`dpspec.reference.base.gaussian.log_delta_at`), not a copy. Chapter 3's gptr.thm_b3_6 / Lemma B.3.4 concern
GLM *output* perturbation (the same thesis); they meet here only in the GLM structure, not in a formula.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from .._normal import log_ndtr, ndtri_upper
from .._solve import root
from ..base.gaussian import gaussian_profile, log_delta_at
from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, WitnessUse, register
from ..errors import ConditionError, DomainError, ParameterError
from ..precision import self_checked
from . import spec
from .witnesses_exact import logcosh_witness_uses

SOURCE_NOTE = "seed 003 (003_dabdd6bee088f80a.txt) ch. 4 / App. C; notes objpert-rdp.md"


# ---------------------------------------------------------------------------------------------------------------
# Public helpers (contract names): the Jacobian term, the profile, the RDP curve, the trade-off function

def _positive(name, x):
    x = mpf(x)
    if not x > 0 or mpmath.isinf(x):
        raise DomainError(name, x, "(0, inf)")
    return x


def _nonneg(name, x):
    x = mpf(x)
    if not x >= 0 or mpmath.isinf(x):
        raise DomainError(name, x, "[0, inf)")
    return x


def jacobian_term(beta, lam):
    """a = −log(1 − β/λ) = −log1p(−β/λ) ≥ 0, the Jacobian term of seed 003 Thm 4.3.1 / Thm 4.3.2 (notes
    objpert-rdp.md §2.2: the bound |log det-ratio| ≤ −log(1 − f''·xᵀH⁻¹x) ≤ −log(1 − β/λ)). Finite only for λ > β
    (ConditionError otherwise, condition ``lambda_above_beta``)."""
    beta, lam = _nonneg("beta", beta), _positive("lam", lam)
    if not lam > beta:
        raise ConditionError("objpert.jacobian_term", [spec.LAMBDA_ABOVE_BETA.describe()])
    if 2 * beta <= lam:
        return -mpmath.log1p(-beta / lam)
    # β/λ > 1/2: log(λ/(λ − β)) — λ − β is one rounding (Sterbenz: exact for float inputs), so a keeps an absolute
    # error of 2^−prec; −log1p(−β/λ) would carry the rounding of β/λ amplified by 1/(1 − β/λ) (10^11 at
    # β/λ = 1 − 10^−11: the self-check of thm4_3_1_epsilon failed there)
    return mpmath.log(lam / (lam - beta))


def jacobian_term_sm(beta, lam):
    """a' = log(1 + β/λ) (notes objpert-rdp.md E4_16, Sherman–Morrison): 1 − f''xᵀH_{Z∋z}⁻¹x = 1/(1 + f''xᵀH_{Z∌z}⁻¹x)
    with H_{Z∌z} ⪰ λI, so in both directions |log det-ratio| ≤ log(1 + β/λ) < −log(1 − β/λ); valid for every λ > 0
    (no λ > β needed). An extension, not the thesis' constant."""
    beta, lam = _nonneg("beta", beta), _positive("lam", lam)
    return mpmath.log1p(beta / lam)


def _log_2phi_neg(w):
    """log(2Φ(−w)) for w ≥ 0 without cancellation near w = 0 (log1p(−erf(w/√2)) below 1)."""
    if w < 1:
        return mpmath.log1p(-mpmath.erf(w / mpmath.sqrt(2)))
    return mpmath.log(2) + log_ndtr(-w)


def _exp_log(compute):
    """exp(compute()) where compute() is a logarithm: recomputed with log10|log| more digits so the exponential keeps
    the working precision (a relative error r of log δ is |log δ|·r in δ)."""
    with mp.workdps(mp.dps + 5):
        first = compute()
    if mpmath.isinf(first):
        return mpf(0) if first < 0 else mpf("inf")
    extra = int(mpmath.log10(1 + abs(first))) + 5
    with mp.workdps(mp.dps + extra):
        value = mpmath.exp(compute())
    return +value


def halfnormal_profile(e, w):
    """E_{Y~|N(0,1)|}[1 − e^{e − wY}]₊ for real e and w ≥ 0 (notes objpert-rdp.md §2.2, "unified form"; Lemma C.4.3):

        e ≥ 0:  2[Φ(−e/w) − e^{e + w²/2} Φ(−e/w − w)] = 2 δ_{N(w,1)‖N(0,1)}(e + w²/2)  (the analytic Gaussian (C.2.1)
                at the ε whose "a" is −e/w: base.gaussian.log_delta_at(−e/w, w), stable to e^{−10^2000});
        e < 0:  1 − 2e^{e + w²/2} Φ(−w) = −expm1(e + w²/2 + log 2Φ(−w))  (every term of the exponent has its sign, no
                cancellation; log 2Φ(−w) through log1p(−erf) near w = 0);
        w = 0:  [1 − e^e]₊.

    Continuous at e = 0, where it equals 1 − 2e^{w²/2}Φ(−w)."""
    e, w = mpf(e), mpf(w)
    if w == 0:
        return -mpmath.expm1(e) if e < 0 else mpf(0)
    if e >= 0:
        return 2 * _exp_log(lambda: log_delta_at(-mpf(e) / w, w))
    return -mpmath.expm1(e + w * w / 2 + _log_2phi_neg(w))


def _constants(sigma, lam, beta, L, jac=jacobian_term):
    sigma, L = _positive("sigma", sigma), _positive("L", L)
    a = jac(beta, lam)
    v = L / sigma
    return a, v * v / 2, v


def objpert_delta(eps, sigma, lam, beta, L, printed=False):
    """δ(ε) of ObjPert for GLMs, seed 003 Thm 4.3.1 (corrected as in App. C lines 9000–9170 and the authors'
    compute_delta; notes objpert-rdp.md §2.2), every real ε:

        ε ≥ a + c:  δ = 2 H_{e^{ε−a}}(N(L, σ²)‖N(0, σ²)) = 2[Φ(−(ε−a)/v + v/2) − e^{ε−a} Φ(−(ε−a)/v − v/2)]
        ε < a + c:  δ = 1 − 2e^{ε−a} Φ(−v)

    (the hockey-stick divergence of the Lemma C.4.6 pair; :func:`halfnormal_profile` at e = ε − a − c, w = v).

    ``printed=True``: the main text's statement as printed (errata E4_1, E4_2): ε̃ = ε − log(1 − β/λ) = ε + a,
    ε̂ = ε + a − c, δ = 2H_{e^{ε̃}} for ε̂ ≥ 0 and (1 − e^{ε̂}) + e^{ε̂}·2H_{e^{L²/σ²}} below: NOT a bound (tens of
    orders of magnitude below the corrected δ, and non-monotone in ε at (σ, β, λ) = (1, 0.5, 2))."""
    eps = mpf(eps)

    def compute():
        a, c, v = _constants(sigma, lam, beta, L)
        return _printed_delta(eps, a, c, v) if printed else halfnormal_profile(eps - a - c, v)

    return _far_tail_guarded(compute, _tail_size(eps, sigma, lam, beta, L))


def _tail_size(eps, sigma, lam, beta, L, scale=1, k=1, jac=None):
    """An estimate (15 digits) of ((|ε| + k(a + c))/(scale·v))², which bounds |log δ| of every profile of this module
    and composition.py in the far tail (log δ ≈ −(e/w)²/2 with e = ε − k(a + c), w = scale·v; the printed form's
    arguments ε + a and 2c are covered too). Its rounding at the working precision moves log δ by size·2^{−prec}
    (the absolute error of e times e/w²): the number of extra digits :func:`_far_tail_guarded` needs. 0 where
    scale·v = 0 (then no Gaussian tail is evaluated)."""
    with mp.workdps(15):
        a, c, v = _constants(sigma, lam, beta, L, jac or jacobian_term)
        w = mpf(scale) * v
        if not w > 0:
            return mpf(0)
        ratio = (abs(mpf(eps)) + mpf(k) * (abs(a) + c)) / w
        return ratio * ratio


def _far_tail_guarded(compute, size):
    """compute() with log10(1 + size) + 2 more digits, size from :func:`_tail_size` (or the trade-off's (z + v)²):
    far in the tail log δ ≈ −size/2, and the Gaussian argument formed at the working precision would carry an
    absolute error of log δ of size·2^{−prec} (the self-check's 38- and 50-digit passes disagreed at δ ≈ e^{−4.8e9};
    and for Lemma C.4.3 at small ‖x‖, for Lemma C.4.6 at L/σ ≈ 1e5, where the scale was missed). compute() must
    form every derived quantity (a, c, v, z, …) from the exact inputs itself, so recomputing it is exact."""
    guard = int(mpmath.log10(1 + size)) + 2
    with mp.workdps(mp.dps + guard):
        value = compute()
    return +value


def _gauss_h(t, v):
    """H_{e^t}(N(L, σ²)‖N(0, σ²)) = δ_{N(v,1)‖N(0,1)}(t) for t ≥ 0 (C.2.1), via base.gaussian.log_delta_at."""
    return _exp_log(lambda: log_delta_at(v / 2 - mpf(t) / v, v))


def _printed_delta(eps, a, c, v):
    """seed 003 Thm 4.3.1 as printed (sign of log(1 − β/λ) flipped; H_{e^{L²/σ²}} in the second case)."""
    eps_tilde = eps + a
    eps_hat = eps_tilde - c
    if eps_hat >= 0:
        return 2 * _gauss_h(eps_tilde, v)
    return -mpmath.expm1(eps_hat) + mpmath.exp(eps_hat) * 2 * _gauss_h(2 * c, v)


def _log_2phi(t):
    """log(2Φ(t)) = log1p(erf(t/√2)) for t ≥ 0 (notes objpert-rdp.md §8)."""
    return mpmath.log1p(mpmath.erf(t / mpmath.sqrt(2)))


def _halfnormal_cgf_ratio(t):
    """log(2Φ(t))/t for t > 0 (= log E e^{tY}/t − t/2 for Y ~ |N(0,1)|); near t = 0 the series
    √(2/π) − t/π + (s³/3 − s/6)t², s = √(2/π) (notes objpert-rdp.md §8), used where the omitted O(t³) term is below
    the working precision (t < 2^{−prec/3})."""
    s = mpmath.sqrt(2 / mpmath.pi)
    if t == 0:
        return s
    if t < mpf(2) ** (-mp.prec / 3 - 4):
        return s - t / mpmath.pi + (s**3 / 3 - s / 6) * t * t
    return _log_2phi(t) / t


def objpert_rdp(alpha, sigma, lam, beta, L, jac=jacobian_term):
    """ε(α) of ObjPert for GLMs, seed 003 Thm 4.3.2 (notes objpert-rdp.md §2.2), α > 1:

        ε(α) = a + c + (1/(α−1)) log E_{X~N(0, v²)} e^{(α−1)|X|} = a + αc + log(2Φ((α−1)v))/(α−1)

    (half-normal MGF E e^{t|X|} = 2e^{t²v²/2}Φ(tv)). log(2Φ(t))/(α−1) = v·log(2Φ(t))/t with t = (α−1)v, its series
    near t = 0 (:func:`_halfnormal_cgf_ratio`): ε(α) → a + c + v√(2/π) as α → 1."""
    alpha = mpf(alpha)
    a, c, v = _constants(sigma, lam, beta, L, jac)
    t = (alpha - 1) * v
    return a + alpha * c + v * _halfnormal_cgf_ratio(t)


def objpert_rdp_alpha1(sigma, lam, beta, L, clause=False):
    """The α = 1 end of seed 003 Thm 4.3.2. ``clause=False``: the KL limit a + c + v√(2/π) (= a + c + E|X|, X ~
    N(0, v²); the proof's bound on E|log R|). ``clause=True``: the printed α = 1 clause a + c + log E e^{|X|} =
    a + 2c + log 2Φ(v), which is ε(2) (erratum E4_5: valid, since D_1 ≤ D_2, but not the limit)."""
    a, c, v = _constants(sigma, lam, beta, L)
    if clause:
        return a + 2 * c + _log_2phi(v)
    return a + c + v * mpmath.sqrt(2 / mpmath.pi)


def objpert_tradeoff(alpha, sigma, lam, beta, L):
    """Trade-off function of the corrected Lemma C.4.6 pair (P = |N(0, σ²)|, Q = atom at −∞ plus
    e^{−a}·2φ_σ(x + L) on [0, ∞)), seed 003 Lemma C.4.6 / notes objpert-rdp.md §2.3:

        f(α) = 2e^{−a}[1 − Φ(Φ⁻¹((1+α)/2) + L/σ)] = 2e^{−a} Φ(−z − v),   z = Φ⁻¹(1 − (1−α)/2),  α ∈ [0, 1].

    (The most powerful test rejects P on {x ≤ z σ} and always on the atom.) f(0) = 1 − δ(0), f(1) = 0, and
    δ(ε) = sup_α [1 − α − e^ε f(α)] reproduces Thm 4.3.1."""
    alpha = mpf(alpha)
    if not 0 <= alpha <= 1:
        raise DomainError("alpha", alpha, "[0, 1]")
    _constants(sigma, lam, beta, L)  # validates (DomainError / ConditionError) before anything else
    if alpha == 1:
        return mpf(0)

    def log_f():
        # every derived quantity from the exact inputs at the current (guarded) precision: log f ≈ −(z + v)²/2
        a, _, v = _constants(sigma, lam, beta, L)
        return mpmath.log(2) - a + log_ndtr(-(ndtri_upper((1 - alpha) / 2) + v))

    with mp.workdps(15):
        size = (ndtri_upper((1 - alpha) / 2) + _constants(sigma, lam, beta, L)[2]) ** 2
    return _far_tail_guarded(lambda: _exp_log(log_f), size)


def objpert_instance_delta(eps, sigma, lam, beta, L, x_norm):
    """Per-instance profile of seed 003 Lemma C.4.3: δ_x(ε) = E_{s~ω_x}[1 − e^{ε−s}]₊ with
    ω_x = a + c + |N(0, ‖x‖²L²/σ²)| (the printed |N(‖x‖²L²/σ²)| lacks its mean 0 [recon], notes §2.3): with
    e = ε − a − c, v_x = ‖x‖L/σ, e ≥ 0: 2[Φ(−e/v_x) − e^{e+v_x²/2}Φ(−e/v_x − v_x)], e < 0: 1 − 2e^{e+v_x²/2}Φ(−v_x).
    Non-decreasing in ‖x‖ (inequality (C.4.4)); ‖x‖ = 1 is Thm 4.3.1."""
    x_norm = mpf(x_norm)
    if not 0 <= x_norm <= 1:
        raise DomainError("x_norm", x_norm, "[0, 1]")

    def compute():
        a, c, v = _constants(sigma, lam, beta, L)
        return halfnormal_profile(mpf(eps) - a - c, x_norm * v)

    # the tail scale is e/v_x = e/(‖x‖v): a guard from e/v alone missed ‖x‖ ≲ 1e-6 (PrecisionError at δ ≈ 1e-10^19)
    return _far_tail_guarded(compute, _tail_size(eps, sigma, lam, beta, L, scale=x_norm))


def objpert_epsilon(delta, sigma, lam, beta, L):
    """The smallest ε ≥ 0 with δ(ε) ≤ δ for the corrected Thm 4.3.1 profile (seed 003 Thm 4.3.1 inverted, notes
    objpert-rdp.md §5.2 B "Thm 4.3.1" column). δ(ε) is continuous and strictly decreasing where positive, so
    ε solves log δ(ε) = log δ on [0, a + c + v√(2 log(1/δ))] (at the upper end −(ε−a)/v + v/2 = −√(2 log 1/δ) and
    δ(ε) ≤ 2Φ(−√(2 log 1/δ)) ≤ δ); 0 where δ(0) ≤ δ."""
    delta = mpf(delta)
    if not 0 < delta < 1:
        raise DomainError("delta", delta, "(0, 1)")
    a, c, v = _constants(sigma, lam, beta, L)
    log_target = mpmath.log(delta)
    h = lambda e: mpmath.log(halfnormal_profile(e - a - c, v)) - log_target  # decreasing in e
    if h(mpf(0)) <= 0:
        return mpf(0)
    hi = a + c + v * mpmath.sqrt(-2 * log_target)
    return root(h, mpf(0), hi, abs_tol=mpf(2) ** (-mp.prec + 8) * (1 + hi))


# ---------------------------------------------------------------------------------------------------------------
# Catalogue entries

def _lam_above_beta(p) -> bool:
    return p["lam"] > p["beta"]


LAM_ABOVE_BETA = Condition.of(spec.LAMBDA_ABOVE_BETA, _lam_above_beta)
_GLM_PARAMS = (spec.P_SIGMA, spec.P_LAM, spec.P_BETA, spec.P_L)
_PRIVACY = Privacy("add_remove", "both", "none")
_PAIR = "objpert.c4_6_pair"
_PAIR_USE = WitnessUse(_PAIR, {"sigma": "sigma", "lam": "lam", "beta": "beta", "L": "L"},
                       "the corrected Lemma C.4.6 dominating pair: its hockey-stick divergence is δ(ε) exactly and its "
                       "Rényi divergence ε(α) exactly (both orderings of neighbours are dominated by the same (P, Q))")


@self_checked
def thm4_3_1(eps, sigma, lam, beta, L):
    """seed 003 Thm 4.3.1 (corrected; notes objpert-rdp.md §2.2, errata E4_1, E4_2, E4_18): δ(ε) of ObjPert for
    unconstrained convex GLMs, ‖x‖ ≤ 1, f'' ≤ β, |f'| ≤ L, λ > β — :func:`objpert_delta`."""
    return objpert_delta(eps, sigma, lam, beta, L)


@self_checked
def thm4_3_1_printed(eps, sigma, lam, beta, L):
    """seed 003 Thm 4.3.1 as printed in the main text (E4_1 sign, E4_2 H_{e^{L²/σ²}}): not a bound."""
    return objpert_delta(eps, sigma, lam, beta, L, printed=True)


@self_checked
def thm4_3_1_sherman_morrison(eps, sigma, lam, beta, L):
    """Thm 4.3.1 with a' = log(1 + β/λ) in place of a (notes objpert-rdp.md E4_16: Sherman–Morrison bounds the
    determinant ratio in both directions by 1 + β‖x‖²/λ): a valid bound for every λ > 0 (no λ > β needed); a dpspec
    extension, smaller than the thesis' δ."""
    def compute():
        a, c, v = _constants(sigma, lam, beta, L, jacobian_term_sm)
        return halfnormal_profile(mpf(eps) - a - c, v)

    return _far_tail_guarded(compute, _tail_size(eps, sigma, lam, beta, L, jac=jacobian_term_sm))


register(Statement(
    id="objpert.thm4_3_1",
    fast="dpspec.fast.objpert.glm_bounds:thm4_3_1",
    source=Source(spec.SEED, "Thm 4.3.1", "privacy profile δ(ε) of objective perturbation for GLMs"),
    kind="profile",
    claim="upper",
    value=Value("delta", "eps"),
    summary="δ(ε) = 2[Φ(−(ε−a)/v + v/2) − e^{ε−a}Φ(−(ε−a)/v − v/2)] (ε ≥ a + c), 1 − 2e^{ε−a}Φ(−v) below; "
            "a = −log(1 − β/λ), c = L²/(2σ²), v = L/σ",
    params=(spec.P_EPS, *_GLM_PARAMS),
    conditions=(LAM_ABOVE_BETA,),
    reference=thm4_3_1,
    witnesses=(_PAIR_USE, *logcosh_witness_uses()),
    variants={
        "printed": Variant(thm4_3_1_printed, "the main text as printed: ε̃ = ε − log(1 − β/λ), ε̂ = ε̃ − L²/(2σ²), "
                           "second case with H_{e^{L²/σ²}} (errata E4_1, E4_2): NOT a bound — 9.1e-15 against the "
                           "true 1.9e-4 at (ε, σ, β, λ) = (0.5, 10, 1, 5), non-monotone at (1, 0.5, 2)", is_bound=False),
        "sherman_morrison": Variant(thm4_3_1_sherman_morrison, "a' = log(1 + β/λ) for a (E4_16, Sherman–Morrison): "
                                    "a valid, tighter bound, needing no λ > β (dpspec extension)", conditions=()),
    },
    privacy=_PRIVACY,
    monotone={"eps": -1, "sigma": -1, "L": +1},
    note="Corrected from the appendix (lines 9000–9170): the main text's sign of log(1 − β/λ) and H_{e^{L²/σ²}} are "
         "errata E4_1/E4_2 (variant `printed`). The function covers every real ε (the proof does, Def 4.2.5 needs "
         "it; E4_18); the statement's domain is ε ≥ 0 as printed. Unified form δ = E[1 − e^{ε−ω}]₊, "
         "ω = a + c + v|N(0,1)| (notes §2.2); the Gaussian terms are base.gaussian's log δ (log_delta_at). Lower "
         "bound: objpert.lemma4_3_4 (= base.gaussian_profile at σ/L); dominating pair: objpert.lemma_c4_6; "
         "composition: objpert.lemma_c4_7; per-instance: objpert.lemma_c4_3. Chapter 2's Kifer calibration "
         "(objpert.thm4_2_8) is the baseline it improves on, except near λ ≈ 2β/ε (E4_17).",
))


@self_checked
def thm4_3_1_epsilon(delta, sigma, lam, beta, L):
    """ε(δ) of seed 003 Thm 4.3.1 (corrected) by root finding — :func:`objpert_epsilon`."""
    return objpert_epsilon(delta, sigma, lam, beta, L)


register(Statement(
    id="objpert.thm4_3_1_epsilon",
    fast="dpspec.fast.objpert.glm_bounds:thm4_3_1_epsilon",
    source=Source(spec.SEED, "Thm 4.3.1 (inverted)", "ε for a target δ from the ObjPert profile (Fig 4.1, §5.2 B)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) = min{ε ≥ 0 : δ_{4.3.1}(ε) ≤ δ}",
    params=(spec.P_DELTA, *_GLM_PARAMS),
    conditions=(LAM_ABOVE_BETA,),
    reference=thm4_3_1_epsilon,
    witnesses=(_PAIR_USE,),
    privacy=_PRIVACY,
    monotone={"delta": -1, "sigma": -1, "L": +1},
    note="The inverse of objpert.thm4_3_1 (notes objpert-rdp.md §5.2 B, 'Thm 4.3.1' column reproduced in "
         "tests/objpert/test_objpert_glm_bounds.py).",
))


@self_checked
def thm4_3_2(alpha, sigma, lam, beta, L):
    """seed 003 Thm 4.3.2: ε(α) = a + αc + log(2Φ((α−1)v))/(α−1) — :func:`objpert_rdp`."""
    return objpert_rdp(alpha, sigma, lam, beta, L)


@self_checked
def thm4_3_2_alpha1_clause(alpha, sigma, lam, beta, L):
    """seed 003 Thm 4.3.2 with its printed α = 1 clause read as a bound for α ∈ (1, 2]: the clause's value
    a + c + log E e^{|X|} = ε(2) (E4_5) bounds every D_α with α ≤ 2 (D_α is non-decreasing in α); ε(α) above 2."""
    alpha = mpf(alpha)
    return objpert_rdp(max(alpha, mpf(2)), sigma, lam, beta, L)


@self_checked
def thm4_3_2_sherman_morrison(alpha, sigma, lam, beta, L):
    """Thm 4.3.2 with a' = log(1 + β/λ) (E4_16): valid for every λ > 0 (dpspec extension)."""
    return objpert_rdp(alpha, sigma, lam, beta, L, jac=jacobian_term_sm)


register(Statement(
    id="objpert.thm4_3_2",
    fast="dpspec.fast.objpert.glm_bounds:thm4_3_2",
    source=Source(spec.SEED, "Thm 4.3.2", "RDP of objective perturbation for GLMs"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) = a + αL²/(2σ²) + log(2Φ((α−1)L/σ))/(α−1), a = −log(1 − β/λ)",
    params=(spec.P_ALPHA, *_GLM_PARAMS),
    conditions=(LAM_ABOVE_BETA,),
    reference=thm4_3_2,
    witnesses=(_PAIR_USE, *logcosh_witness_uses()),
    variants={
        "alpha1_clause": Variant(thm4_3_2_alpha1_clause, "the printed α = 1 clause's value ε(2) used for α ≤ 2 "
                                 "(E4_5): valid (D_α ≤ D_2), looser than the curve"),
        "sherman_morrison": Variant(thm4_3_2_sherman_morrison, "a' = log(1 + β/λ) (E4_16): valid for every λ > 0, "
                                    "tighter (dpspec extension)", conditions=()),
    },
    privacy=_PRIVACY,
    monotone={"alpha": +1, "sigma": -1, "L": +1},
    note="Closed form of the half-normal MGF (notes objpert-rdp.md §2.2); the proof's last displays (App. C.3, lines "
         "8040–8090) drop L², (1/(α−1)) log and write |Lu²/σ²| (E4_6), the statement is right. As α → 1 the "
         "series of log(2Φ(t))/t is used; the limit is objpert.thm4_3_2_kl. Differs from base.gaussian_rdp "
         "(at σ/L) by a + log(2Φ((α−1)v))/(α−1) ∈ [a, a + log 2/(α−1)] (C.9.1); AMP: objpert.thm4_4_1 adds the "
         "output Gaussian; non-GLM: objpert.thm_c5_1 (equal at d = 1).",
))


@self_checked
def thm4_3_2_kl(alpha, sigma, lam, beta, L):
    """The α = 1 end of seed 003 Thm 4.3.2 (the KL divergence): a + c + v√(2/π), the α → 1 limit
    (notes objpert-rdp.md §2.2, E4_5) — :func:`objpert_rdp_alpha1`."""
    return objpert_rdp_alpha1(sigma, lam, beta, L)


@self_checked
def thm4_3_2_kl_clause(alpha, sigma, lam, beta, L):
    """The printed α = 1 clause a + c + log E e^{|X|} = ε(2) (E4_5): a valid, looser KL bound."""
    return objpert_rdp_alpha1(sigma, lam, beta, L, clause=True)


register(Statement(
    id="objpert.thm4_3_2_kl",
    fast="dpspec.fast.objpert.glm_bounds:thm4_3_2_kl",
    source=Source(spec.SEED, "Thm 4.3.2 (α = 1)", "KL divergence (α = 1) of objective perturbation for GLMs"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="D_1 ≤ a + L²/(2σ²) + (L/σ)√(2/π)",
    params=(spec.P_ALPHA_ONE, *_GLM_PARAMS),
    conditions=(LAM_ABOVE_BETA,),
    reference=thm4_3_2_kl,
    witnesses=(_PAIR_USE,),
    variants={"alpha1_clause": Variant(thm4_3_2_kl_clause, "as printed: a + L²/(2σ²) + log E e^{|X|}, X ~ N(0, L²/σ²) "
                                       "(E4_5): equals ε(2), valid (D_1 ≤ D_2) but not the limit")},
    privacy=_PRIVACY,
    monotone={"sigma": -1, "L": +1},
    note="The limit of objpert.thm4_3_2 as α → 1 (E|log R| ≤ a + c + E|N(0, v²)|, the same proof); the thesis' α = 1 "
         "clause (variant alpha1_clause) is the α = 2 value (notes §5.2 C: 0.230870 vs 0.238436 at (5, 1, 20)). Witnesses "
         "(conform's α = 1 checks: the exact KL d/dα log_moment at 1 and a sampled E_P[L]): the corrected Lemma C.4.6 "
         "dominating pair, whose KL is its mean privacy loss a + c + v√(2/π) — the bound itself, exactly (the 1-D "
         "log-cosh pairs of objpert.thm4_3_2 sit 100× below the bound at the drawn points and their quadrature "
         "moments cost ~40 s of CPU here: not attached).",
))


@self_checked
def lemma4_3_4(eps, sigma, L):
    """seed 003 Lemma 4.3.4 with the corrected quantifier (notes objpert-rdp.md §2.2): sup over losses with
    ‖∇ℓ‖ ≤ L and neighbours of H_{e^ε}(θ^P(Z)‖θ^P(Z')) ≥ H_{e^ε}(N(0, σ²)‖N(L, σ²)) — the linear loss ℓ = xᵀθ with
    ‖x‖ = L makes ObjPert the Gaussian mechanism with sensitivity L/λ and noise σ/λ; the value is
    base.gaussian_profile(ε, σ/L)."""
    return gaussian_profile(eps, sigma / L)


def _gaussian_noise_of(p):
    """base.gaussian's σ for Lemma 4.3.4's instance: σ/L, used where it lies in base.gaussian_profile's own sampled
    range [0.05, 100] (ParameterError beyond: the use does not apply there). The conformance harness's tilted check of
    base.gaussian failed on its own float64 arithmetic at σ/L = 2089 (privacy loss at o ≈ 5e7 off by 2e-9
    relative), an issue of that witness at extreme σ, not of this statement."""
    noise = mpf(p["sigma"]) / mpf(p["L"])
    if not mpf("0.05") <= noise <= 100:
        raise ParameterError(f"sigma/L={float(noise)!r}: base.gaussian is used for σ/L ∈ [0.05, 100]")
    return {"sigma": noise}


register(Statement(
    id="objpert.lemma4_3_4",
    fast="dpspec.fast.objpert.glm_bounds:lemma4_3_4",
    source=Source(spec.SEED, "Lemma 4.3.4", "lower bound: the worst case of ObjPert is at least the Gaussian mechanism"),
    kind="profile",
    claim="lower",
    value=Value("delta", "eps"),
    summary="sup_{ℓ, Z≃Z'} δ(ε) ≥ Φ(L/(2σ) − εσ/L) − e^ε Φ(−L/(2σ) − εσ/L)",
    params=(spec.P_EPS, spec.P_SIGMA, spec.P_L),
    reference=lemma4_3_4,
    witnesses=(WitnessUse("base.gaussian", _gaussian_noise_of,
                          "the worst-case instance itself: linear loss, ‖x‖ = L, Z' = ∅ (Gaussian, σ/L ∈ [0.05, 100])"),),
    privacy=_PRIVACY,
    monotone={"eps": -1, "sigma": -1, "L": +1},
    note="The printed 'for every loss and all neighbours' is false (E4_7: exact 1-D log-cosh pairs fall below the "
         "Gaussian, 0.186 < 0.383 at ε = 0, σ = λ/2 = β = L = 1); the proof exhibits one instance, so the claim is "
         "about the supremum — registered as that lower bound. Equals base.gaussian_profile at σ/L (calls it).",
))


@self_checked
def lemma_c4_3(eps, sigma, lam, beta, L, x_norm):
    """seed 003 Lemma C.4.3: the per-instance profile in ‖x‖ — :func:`objpert_instance_delta`."""
    return objpert_instance_delta(eps, sigma, lam, beta, L, x_norm)


register(Statement(
    id="objpert.lemma_c4_3",
    fast="dpspec.fast.objpert.glm_bounds:lemma_c4_3",
    source=Source(spec.SEED, "Lemma C.4.3", "per-instance privacy profile of ObjPert, in ‖x‖ of the differing record"),
    kind="profile",
    claim="upper",
    value=Value("delta", "eps"),
    summary="δ_x(ε) = E[1 − e^{ε − a − c − (‖x‖L/σ)|N(0,1)|}]₊",
    params=(spec.P_EPS, spec.P_SIGMA, spec.P_LAM, spec.P_BETA, spec.P_L_FPRIME, spec.P_X_NORM_UNIT),
    conditions=(LAM_ABOVE_BETA,),
    reference=lemma_c4_3,
    witnesses=(WitnessUse("objpert.c4_3_pair", {"sigma": "sigma", "lam": "lam", "beta": "beta", "L": "L",
                                                "x_norm": "x_norm"},
                          "the per-instance dominating pair (PLRV a + c + (‖x‖L/σ)|N(0,1)|)"),),
    privacy=_PRIVACY,
    monotone={"eps": -1, "sigma": -1, "L": +1, "x_norm": +1},
    note="Printed ω_x = a + c + |N(‖x‖²L²/σ²)| lacks the mean 0 [recon]; non-decreasing in ‖x‖ (inequality (C.4.4), "
         "Lemma C.4.8), equal to objpert.thm4_3_1 at ‖x‖ = 1. Its L bounds |f'|, the derivative of the GLM's scalar "
         "loss (the ‖x‖-scaling needs it); read as a bound on ‖∇ℓ‖ only, as Thm 4.3.1's L may be, it fails for "
         "‖x‖ < 1 (erratum objpert.E4_20; found by review, session 16).",
))


@self_checked
def lemma_c4_6(alpha, sigma, lam, beta, L):
    """seed 003 Lemma C.4.6 (corrected, E4_3): the trade-off function of the dominating pair —
    :func:`objpert_tradeoff`."""
    return objpert_tradeoff(alpha, sigma, lam, beta, L)


register(Statement(
    id="objpert.lemma_c4_6",
    fast="dpspec.fast.objpert.glm_bounds:lemma_c4_6",
    source=Source(spec.SEED, "Lemma C.4.6", "the dominating pair of ObjPert, as a trade-off function (f-DP)"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f(α) = 2e^{−a}[1 − Φ(Φ⁻¹((1+α)/2) + L/σ)]",
    params=(spec.P_TYPE_I, *_GLM_PARAMS),
    conditions=(LAM_ABOVE_BETA,),
    reference=lemma_c4_6,
    witnesses=(_PAIR_USE,),
    privacy=_PRIVACY,
    monotone={"alpha": -1, "sigma": +1, "L": -1},
    note="The printed Q density e^{−(t−L)²/(2σ²)} and '2σ' are errata (E4_3: Q(−∞) = −0.1006 at (5, 1, 20)); "
         "corrected Q = (1 − 2e^{−a}Φ(−L/σ))δ_{−∞} + e^{−a}·2φ_σ(x + L) on [0, ∞). The trade-off function is "
         "derived in the notes (§2.3), δ(ε) = sup_α[1 − α − e^ε f(α)] gives objpert.thm4_3_1 (tested); f(0) = "
         "1 − δ(0). The pair itself is the witness objpert.c4_6_pair.",
))
