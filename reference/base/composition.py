"""Composition: RDP additivity, basic (ε, δ) composition, and the optimal homogeneous (ε, δ) composition of
Kairouz, Oh & Viswanath (2015) with its closed-form bound.

The optimal composition is computed from the k-fold product of the canonical (ε, δ) pair of KOV15 (their
§3, "a simple mechanism that dominates all (ε, δ)-DP mechanisms"), registered as the witness
``base.kov15_canonical``: on outcomes {0, 1, 2, 3},

    P̃ = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0),    Q̃ = (0, (1−δ)/(1+e^ε), (1−δ)e^ε/(1+e^ε), δ).

Its k-fold hockey-stick divergence at a total ε_g is

    δ_g(ε_g) = 1 − (1−δ)^k (1 − δ₀(ε_g)),
    δ₀(ε_g) = Σ_{ℓ=0}^{k} C(k,ℓ) (e^{(k−ℓ)ε} − e^{ε_g + ℓε})₊ / (1 + e^ε)^k,

which at ε_g = (k − 2i)ε is exactly KOV15 Thm 3.3's 1 − (1−δ)^k (1 − δ_i),
δ_i = Σ_{ℓ=0}^{i−1} C(k,ℓ)(e^{(k−ℓ)ε} − e^{(k−2i+ℓ)ε})/(1+e^ε)^k, and between those points is the boundary of
the privacy region that the theorem describes (δ₀ is linear in e^{ε_g} there).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mp, mpf

from ..catalogue import Privacy, Source, Statement, Value, Witness, WitnessUse, register, register_witness
from ..domains import ALPHA, EPS, STEPS, Param
from ..errors import DomainError, PrecisionError
from ..precision import log1mexp, logsumexp, self_checked
from .spec import KOV_EPS, KOV_STEPS, PER_STEP_EPS, RDP_CURVE, SLACK_DELTA, STEP_DELTA

KOV15 = "Kairouz, Oh & Viswanath, The Composition Theorem for Differential Privacy, ICML 2015"


# ---------------------------------------------------------------------------------------------------
# RDP additivity

def curve_statement(curve):
    """The catalogue statement a curve parameter was bound from (``catalogue.curve``), or None for a plain callable."""
    from ..catalogue import get

    sid = getattr(curve, "statement_id", None)
    return get(sid) if sid is not None else None


def alpha_monotone_where(applies, why: str):
    """A property check (``Statement.properties``): the statement's value is non-decreasing in α at the drawn point,
    compared at (1 + α)/2 < α < α + 1 (α + 1 capped at the domain's end), where ``applies(curve)`` holds; elsewhere it
    checks nothing (the declaration is conditional). ``why`` names the reason, for the docstring and the report."""
    def alpha_monotone_for_exact_curves(statement, params):
        if not applies(params["curve"]):
            return
        domain = next(p.domain for p in statement.params if p.name == "alpha")
        alpha = mpf(params["alpha"])
        orders = [(1 + alpha) / 2, alpha, min(alpha + 1, mpf(domain.hi))]
        values = [statement.reference(**{**params, "alpha": a}) for a in orders]
        tol = mpf(10) ** (-(mp.dps - 10))
        for (a, va), (b, vb) in zip(zip(orders, values), zip(orders[1:], values[1:])):
            if vb < va - tol * max(abs(va), abs(vb)):
                raise AssertionError(f"{statement.id} decreases in alpha with curve {params['curve'].__name__}: "
                                     f"alpha={mpmath.nstr(a, 12)} gives {mpmath.nstr(va, 12)}, alpha={mpmath.nstr(b, 12)} "
                                     f"gives {mpmath.nstr(vb, 12)} ({why})")
    alpha_monotone_for_exact_curves.why = why
    return alpha_monotone_for_exact_curves


def _is_mechanism_curve(curve) -> bool:
    """The curve is the exact RDP curve of a mechanism: bound from a catalogue RDP statement whose claim is exact."""
    st = curve_statement(curve)
    return st is not None and st.value.returns == "rdp_eps" and st.claim == "exact"


@self_checked
def rdp_composition(curve, steps, alpha):
    """RDP composition (Mironov 2017, Prop. 1): if each of T adaptively chosen mechanisms is (α, ε(α))-RDP,
    their composition is (α, T·ε(α))-RDP. Homogeneous form ε_T(α) = T·ε(α). (Equality holds for the product
    of identical independent pairs, by additivity of the Rényi divergence.)

    Monotonicity in α is declared only where it holds: when ε(·) is the exact RDP curve of a mechanism (a catalogue
    RDP statement with claim "exact": base.gaussian_rdp, base.laplace_rdp, base.sgm_rdp), ε(α) is a supremum of
    Rényi divergences D_α(P‖Q), each non-decreasing in α (van Erven & Harremoës, "Rényi Divergence and
    Kullback–Leibler Divergence", IEEE Trans. Inf. Theory 2014, Thm 3), so T·ε(α) is non-decreasing. A curve that
    is only an upper bound need not be: ptr.ineq38_41's α/((α−1)b) decreases in α (a valid but loose bound at small
    α), and so does T times it (conformance with seed 3 found it when the monotonicity was declared for every curve).
    Monotone in T for every curve (ε ≥ 0)."""
    value = curve(alpha)
    if value < 0:
        raise DomainError("curve", f"eps({mpmath.nstr(alpha, 8)}) = {mpmath.nstr(value, 8)}",
                          "an RDP curve with eps(alpha) >= 0")
    return steps * value


class _GaussianCurve:
    """The example curve of base.rdp_composition: base.gaussian_rdp at σ = 1 (Mironov 2017, Prop. 7), bound on first
    use (the Gaussian statement registers after this module may import). Like ``catalogue.curve``'s result it carries
    ``statement_id`` and ``params``, so the witness mapping below reads σ from it; ``dpspec eval`` takes it as
    ``curve=base.gaussian_rdp sigma=1``."""

    statement_id = "base.gaussian_rdp"
    __name__ = "base.gaussian_rdp"

    def __init__(self, sigma: str = "1"):
        self.params = {"sigma": sigma}

    def __call__(self, alpha):
        from ..catalogue import curve

        return curve(self.statement_id, **self.params)(alpha)

    def __str__(self) -> str:
        return self.statement_id

    def __repr__(self) -> str:
        return f"{self.statement_id}(sigma={self.params['sigma']})"


def _composed_gaussian(p):
    """Witness parameters of base.rdp_composition where its curve is the Gaussian mechanism's exact RDP curve
    (base.gaussian_rdp at σ): the T-fold product of the Gaussian pair N(1, σ²) vs N(0, σ²), whose D_α is exactly
    T·α/(2σ²) (Rényi divergence is additive over independent products, Mironov 2017 Prop. 1 with equality, and
    Prop. 7). So T·ε(α) is attained and any smaller composed value is refuted. Any other curve (a plain callable,
    another statement's curve) raises DomainError: this use does not apply there (the conformance runner skips it)."""
    curve = p["curve"]
    sigma = (getattr(curve, "params", None) or {}).get("sigma")
    if getattr(curve, "statement_id", None) != "base.gaussian_rdp" or sigma is None:
        raise DomainError("curve", getattr(curve, "statement_id", None) or "a plain callable",
                          "the curve of base.gaussian_rdp with its sigma (the only curve the Gaussian witness maps)")
    return {"sigma": sigma, "steps": p["steps"]}


register(Statement(
    id="base.rdp_composition",
    fast="dpspec.fast.base.composition:rdp_composition",
    source=Source("outside", "Prop. 1", "adaptive composition of RDP mechanisms adds their ε(α)",
                  "Mironov, Rényi Differential Privacy, CSF 2017"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε_T(α) = T · ε(α)",
    params=(
        Param("curve", RDP_CURVE, "per-step RDP curve α ↦ ε(α)", example=_GaussianCurve()),
        Param("steps", STEPS, "number of composed mechanisms T", example=10),
        Param("alpha", ALPHA, "Rényi order", example=2),
    ),
    reference=rdp_composition,
    witnesses=(WitnessUse("base.gaussian", _composed_gaussian,
                          "T-fold Gaussian pair where the curve is base.gaussian_rdp (attains T·α/(2σ²))"),),
    privacy=Privacy("any", "both", "none"),
    monotone={"steps": +1},
    properties=(alpha_monotone_where(_is_mechanism_curve, "the exact RDP curve of a mechanism is non-decreasing in α: "
                                     "van Erven & Harremoës 2014, Thm 3"),),
    note="non-decreasing in alpha where the curve is the exact RDP curve of a mechanism (see the docstring)",
))


# ---------------------------------------------------------------------------------------------------
# Basic (ε, δ) composition

@self_checked
def basic_composition(eps, delta, k):
    """Basic composition (Dwork & Roth 2014, Thm 3.16): the composition of k (ε, δ)-DP mechanisms is
    (kε, kδ)-DP. Returns the pair (kε, kδ) (kδ ≥ 1 is a true but vacuous statement)."""
    return k * eps, k * delta


register(Statement(
    id="base.basic_composition",
    fast="dpspec.fast.base.composition:basic_composition",
    source=Source("outside", "Thm 3.16", "basic composition of (ε, δ)-DP mechanisms",
                  "Dwork & Roth, The Algorithmic Foundations of Differential Privacy, 2014"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="(ε_g, δ_g) = (kε, kδ)",
    params=(
        Param("eps", EPS, "per-mechanism ε", example="0.1"),
        Param("delta", STEP_DELTA, "per-mechanism δ", example="1e-6"),
        Param("k", STEPS, "number of composed mechanisms", example=10),
    ),
    reference=basic_composition,
    witnesses=(WitnessUse("base.kov15_canonical", {"eps": "eps", "delta": "delta", "k": "k"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": +1, "delta": +1, "k": +1},
    note="returns a pair; the monotone declarations hold for both components",
))


# ---------------------------------------------------------------------------------------------------
# KOV15: the optimal homogeneous composition (Thm 3.3) and its closed form (Thm 3.4)

def _log_binomial_sum(k, log_s, log_f, ell_end, factor=None):
    """log Σ_{ℓ=0}^{ell_end−1} C(k,ℓ) s^ℓ f^{k−ℓ} · factor(ℓ), for factor(ℓ) ∈ [0, 1] (default 1).

    Log-sum-exp with the shift log C(k,ℓ₀) s^ℓ₀ f^{k−ℓ₀} taken at ℓ₀, the largest binomial weight in the range
    (the mode or ell_end − 1; exact log-gamma there). The shifted weights C(k,ℓ)s^ℓ f^{k−ℓ} / (the same at
    ℓ₀) ≤ 1 are carried by the exact ratio recurrence (k−ℓ)/(ℓ+1)·s/f, walking away from ℓ₀ in both
    directions; the weights decrease along each walk, so a walk stops once a weight falls below
    2^(−prec−10)/(k+1) of the running sum: everything left out is below 2^(−prec−10) of the result."""
    ell_end = min(ell_end, k + 1)
    if ell_end <= 0:
        return mpf("-inf")
    factor = factor or (lambda ell: 1)
    mode = min(int(mpmath.floor((k + 1) * mpmath.exp(log_s))), k)
    start = min(mode, ell_end - 1)
    log_shift = (mpmath.loggamma(k + 1) - mpmath.loggamma(start + 1) - mpmath.loggamma(k - start + 1)
                 + start * log_s + (k - start) * log_f)
    ratio = mpmath.exp(log_s - log_f)  # s/f
    negligible = mpf(2) ** (-mp.prec - 10) / (k + 1)
    total = factor(start)
    for step in (-1, +1):
        weight, ell = mpf(1), start
        while 0 <= ell + step < ell_end:
            weight *= (mpf(k - ell) / (ell + 1) * ratio) if step > 0 else (mpf(ell) / (k - ell + 1) / ratio)
            ell += step
            if weight < negligible * total:
                break
            total += weight * factor(ell)
    return log_shift + mpmath.log(total) if total > 0 else mpf("-inf")


def _log_q(eps):
    """log 1/(1+e^ε) (the weight of the "low" outcome of the canonical pair), without overflow."""
    return -(eps + mpmath.log1p(mpmath.exp(-eps)))


def _log_p(eps):
    """log e^ε/(1+e^ε)."""
    return -mpmath.log1p(mpmath.exp(-eps))


def _active(eps_g, eps, k):
    """The number i of terms ℓ = 0..i−1 with (k−2ℓ)ε > ε_g (the terms of δ₀(ε_g) that are positive)."""
    i = max(0, min(k + 1, int(mpmath.ceil((k - eps_g / eps) / 2))))
    while i > 0 and not (k - 2 * (i - 1)) * eps > eps_g:
        i -= 1
    while i <= k and (k - 2 * i) * eps > eps_g:
        i += 1
    return i


def _log_delta0(eps_g, eps, k):
    """log δ₀(ε_g) = log Σ_{ℓ : (k−2ℓ)ε > ε_g} C(k,ℓ)(e^{(k−ℓ)ε} − e^{ε_g+ℓε})/(1+e^ε)^k. Each term is
    C(k,ℓ) p^{k−ℓ} q^ℓ · (1 − e^{ε_g − (k−2ℓ)ε}) with p = e^ε/(1+e^ε), q = 1 − p, all positive (no cancellation;
    the factor is taken from expm1, or as 1 − e^x where x < −log 2 and nothing cancels: expm1 is several times
    slower in mpmath, and k = 1e5 sums thousands of terms)."""
    factor = lambda ell: _one_minus_exp(eps_g - (k - 2 * ell) * eps)
    return _log_binomial_sum(k, _log_q(eps), _log_p(eps), _active(eps_g, eps, k), factor)


def _one_minus_exp(x):
    """1 − e^x for x ≤ 0, to full relative precision."""
    return 1 - mpmath.exp(x) if x < -mpmath.ln2 else -mpmath.expm1(x)


def _log_one_minus_delta0(eps_g, eps, k):
    """log(1 − δ₀(ε_g)) without cancellation. For δ₀ ≤ 1/2, log1p(−δ₀) from log δ₀. For δ₀ → 1 (e.g. large
    kε) as a sum of positive terms: since the
    weights C(k,ℓ)p^{k−ℓ}q^ℓ sum to 1, 1 − δ₀ = Σ_{ℓ inactive} C(k,ℓ)p^{k−ℓ}q^ℓ
    + Σ_{ℓ active} C(k,ℓ)p^{k−ℓ}q^ℓ e^{ε_g − (k−2ℓ)ε}. The inactive sum runs over m = k−ℓ = 0..k−i; the active
    one is e^{ε_g} Σ_{ℓ<i} C(k,ℓ)p^ℓ q^{k−ℓ} (q/p = e^{−ε}), a binomial sum whose walk starts at its own largest
    term (written with the factor e^{gap}, the terms grew along the walk and it never stopped early: 5e4 terms,
    6 s at ε = 1e300, k = 1e5)."""
    log_delta0 = _log_delta0(eps_g, eps, k)
    if log_delta0 <= -mpmath.log(2):
        return mpmath.log1p(-mpmath.exp(log_delta0))
    i = _active(eps_g, eps, k)
    inactive = _log_binomial_sum(k, _log_p(eps), _log_q(eps), k - i + 1)
    active = eps_g + _log_binomial_sum(k, _log_p(eps), _log_q(eps), i)
    return logsumexp([inactive, active])


def _delta_total(delta, k, log_one_minus_delta0):
    """1 − (1−δ)^k (1 − δ₀) without cancellation: −expm1(k log1p(−δ) + log(1 − δ₀))."""
    return -mpmath.expm1(k * mpmath.log1p(-delta) + log_one_minus_delta0)


@self_checked
def kov15_profile(eps, delta, k, eps_total):
    """The optimal δ_g for a total ε_g under k-fold adaptive composition of (ε, δ)-DP mechanisms
    (Kairouz, Oh & Viswanath 2015, Thm 3.3 and the privacy region it characterises):

        δ_g(ε_g) = 1 − (1−δ)^k (1 − Σ_{ℓ=0}^{k} C(k,ℓ)(e^{(k−ℓ)ε} − e^{ε_g+ℓε})₊ / (1+e^ε)^k),

    which equals Thm 3.3's 1 − (1−δ)^k(1 − δ_i) at ε_g = (k−2i)ε and is achieved by the canonical pair, so
    no smaller δ_g holds for the whole class (optimal). Log-space sum of positive terms. At ε = 0 no term is
    positive ((k−2ℓ)·0 > ε_g never holds): δ_g = 1 − (1−δ)^k for every ε_g ≥ 0 ((0, δ)-DP mechanisms compose to
    (0, 1 − (1−δ)^k) and, by the canonical pair, no better)."""
    if eps == 0:
        return -mpmath.expm1(k * mpmath.log1p(-delta))
    return _delta_total(delta, k, _log_one_minus_delta0(eps_total, eps, k))


_KOV_PARAMS = (
    Param("eps", PER_STEP_EPS, "per-mechanism ε > 0", example="0.1"),
    Param("delta", STEP_DELTA, "per-mechanism δ", example=0),
    Param("k", KOV_STEPS, "number of composed mechanisms", example=100),
)
# Thm 3.3 (the profile and the optimal pair) also at ε = 0; Thm 3.4's closed form keeps ε > 0.
_KOV_PARAMS_OPTIMAL = (Param("eps", KOV_EPS, "per-mechanism ε ≥ 0", example="0.1"),) + _KOV_PARAMS[1:]

register(Statement(
    id="base.kov15_profile",
    fast="dpspec.fast.base.composition:kov15_profile",
    source=Source("outside", "Thm 3.3", "optimal δ for a total ε under homogeneous (ε, δ) composition", KOV15),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps_total"),
    summary="δ_g = 1 − (1−δ)^k (1 − Σ_ℓ C(k,ℓ)(e^{(k−ℓ)ε} − e^{ε_g+ℓε})₊/(1+e^ε)^k)",
    params=_KOV_PARAMS_OPTIMAL + (Param("eps_total", EPS, "total ε_g ≥ 0", example=1),),
    reference=kov15_profile,
    witnesses=(WitnessUse("base.kov15_canonical", {"eps": "eps", "delta": "delta", "k": "k"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": +1, "delta": +1, "k": +1, "eps_total": -1},
))


@self_checked
def kov15_optimal(eps, delta, k, delta_prime):
    """Optimal homogeneous composition (Kairouz, Oh & Viswanath 2015, Thm 3.3): k-fold adaptive
    composition of (ε, δ)-DP mechanisms is ((k−2i)ε, 1 − (1−δ)^k(1 − δ_i))-DP for i = 0..⌊k/2⌋, with
    δ_i = Σ_{ℓ=0}^{i−1} C(k,ℓ)(e^{(k−ℓ)ε} − e^{(k−2i+ℓ)ε})/(1+e^ε)^k, and nothing better holds.

    Returned in the form of Thm 3.4, for comparison with ``kov15_closed``: for a slack δ' ∈ (0, 1],
    the pair (ε_g, 1 − (1−δ)^k(1 − δ')) with ε_g = min{ε' ≥ 0 : δ₀(ε') ≤ δ'} the smallest total ε the
    privacy region allows (δ₀ as in ``kov15_profile``, with δ = 0). δ₀ is linear in e^{ε'} between the
    points (k−2i)ε, so ε_g is found in closed form on the right segment: with A, B the sums over
    ℓ < i of C(k,ℓ)e^{(k−ℓ)ε} and C(k,ℓ)e^{ℓε} (over (1+e^ε)^k), ε_g = log((A − δ')/B), computed as
    log1p((D − δ')/B) with D = A − B = Σ_{ℓ<i} C(k,ℓ)(e^{(k−ℓ)ε} − e^{ℓε})/(1+e^ε)^k a sum of positive terms (see
    :func:`_segment_eps`)."""
    delta_g = -mpmath.expm1(k * mpmath.log1p(-delta) + mpmath.log1p(-delta_prime))
    if eps == 0:  # δ₀ ≡ 0 (no ℓ has (k−2ℓ)·0 > ε'): ε_g = 0
        return mpf(0), delta_g
    # δ' = 1: δ₀ ≤ 1 always; decided here because log δ₀(0) can round to ≥ 0 when 1 − δ₀(0) is below the working
    # precision (ε = 1, k = 804: the 38- and 50-digit passes disagreed)
    if delta_prime >= 1:
        return mpf(0), delta_g
    # near δ' = 1, log δ₀ − log δ' ≈ (1 − δ') − (1 − δ₀) loses log10(1/(1 − δ')) digits: carry them as guard digits
    # (ε = 1, k = 117, δ' = 1 − 1.4e-7 failed the two-precision self-check without them)
    extra = 0
    for _ in range(6):
        with mp.workdps(mp.dps + extra):
            eps_g, lost = _kov15_optimal_eps(mpf(eps), k, mpf(delta_prime))
        if lost <= max(extra, 3):  # up to 3 digits are covered by the self-check's guard digits (8 or more)
            return +eps_g, delta_g
        extra = lost + 5
        if extra > KOV_MAX_EXTRA_DIGITS:
            break
    raise PrecisionError(f"kov15_optimal at eps={mpmath.nstr(eps, 17)}, k={k}, delta_prime={mpmath.nstr(delta_prime, 17)}: "
                         f"D − δ' cancels more than {KOV_MAX_EXTRA_DIGITS} digits")


KOV_MAX_EXTRA_DIGITS = 1000  # digits D − δ' may cost (a few for float64 δ'; see _segment_eps)


def _kov15_optimal_eps(eps, k, delta_prime):
    """(ε_g, digits lost) of :func:`kov15_optimal` (see there), at the current precision.

    Comparisons of δ₀ with δ' > 1/2 are made between 1 − δ₀ (:func:`_log_one_minus_delta0`, positive sums) and
    1 − δ' (exact): near δ' = 1, log δ₀ − log δ' ≈ (1 − δ') − (1 − δ₀) kept only log10(1/(1 − δ')) fewer digits
    (ε = 1, k = 117, δ' = 1 − 1.4e-7 failed the self-check; guard digits fixed that, but the 20-digit search
    below could not resolve δ' = 1 − 2^-53 and walked i one by one: 33 s at k = 1e5)."""
    near = delta_prime > mpf(1) / 2
    log_dp, log_1m_dp = mpmath.log(delta_prime), mpmath.log1p(-delta_prime)

    def at_least(grid):  # δ₀(grid) ≥ δ'
        if near:
            return _log_one_minus_delta0(grid, eps, k) <= log_1m_dp
        return _log_delta0(grid, eps, k) >= log_dp

    zero = mpf(0)
    if (_log_one_minus_delta0(zero, eps, k) >= log_1m_dp) if near else (_log_delta0(zero, eps, k) <= log_dp):
        return zero, 0  # δ₀(0) ≤ δ'
    log_q, log_p = _log_q(eps), _log_p(eps)

    def reaches(i):  # δ₀ at the grid point (k−2i)ε is ≥ δ' (or the grid point is ≤ 0)
        grid = (k - 2 * i) * eps
        return grid <= 0 or at_least(grid)

    # δ₀((k−2i)ε) increases with i: binary search (at 20 digits, for speed) for the first i ≥ 1 that
    # reaches δ', then confirm or correct it at the working precision
    lo, hi = 1, (k + 1) // 2 + 1  # reaches(hi) holds: (k − 2hi)ε ≤ 0
    with mp.workdps(20):
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if reaches(mid) else (mid + 1, hi)
    while not reaches(lo):
        lo += 1
    while lo > 1 and reaches(lo - 1):
        lo -= 1
    return _segment_eps(eps, k, lo, delta_prime, log_q, log_p)


def _segment_eps(eps, k, i, delta_prime, log_q, log_p):
    """The root of δ₀(ε') = δ' on the segment of ``i`` (active terms ℓ < i, ℓ < k/2: δ₀ = A − e^{ε'}B), and the
    digits its subtraction costs. e^{ε_g} = (A − δ')/B = 1 + (D − δ')/B with D = A − B = Σ_{ℓ<i} w_ℓ(1 − e^{−(k−2ℓ)ε}),
    w_ℓ = C(k,ℓ)p^{k−ℓ}(1−p)^ℓ: D and B are sums of positive terms, so the only cancellation is D − δ' = B(e^{ε_g} − 1)
    > 0 (log A − log B lost log10(1/ε_g) digits instead, all of them for ε = 1e-300: ε_g came out 0 where it is
    9.05e-300). For δ' > 1/2 it is formed as (1 − δ') − (1 − D), 1 − D = Σ_{ℓ≥i} w_ℓ + B, so near δ' = 1 only
    the digits of (1 − δ')/(D − δ') are lost, not those of 1/(1 − δ'). The digits lost (the condition number of
    ε_g in δ') are returned; the caller recomputes with them."""
    log_b = _log_binomial_sum(k, log_p, log_q, i)  # log B: Σ_{ℓ<i} C(k,ℓ)e^{ℓε}/(1+e^ε)^k
    if delta_prime > mpf(1) / 2:
        log_big = mpmath.log1p(-delta_prime)  # log(1 − δ')
        log_small = logsumexp([_log_binomial_sum(k, log_p, log_q, k - i + 1), log_b])  # log(1 − D)
    else:
        log_big = _log_binomial_sum(k, log_q, log_p, i, lambda ell: _one_minus_exp(-(k - 2 * ell) * eps))  # log D
        log_small = mpmath.log(delta_prime)
    if log_big <= log_small:  # D − δ' > 0 in exact arithmetic: all digits lost at this precision
        return mpf(0), 2 * mp.dps + 20
    log_gap = log_big + log1mexp(log_small - log_big)
    lost = max(0, int(-mpmath.log10(-mpmath.expm1(log_small - log_big))))
    return mpmath.log1p(mpmath.exp(log_gap - log_b)), lost


register(Statement(
    id="base.kov15_optimal",
    fast="dpspec.fast.base.composition:kov15_optimal",
    source=Source("outside", "Thm 3.3", "optimal homogeneous composition of (ε, δ)-DP mechanisms", KOV15),
    kind="eps_delta",
    claim="exact",
    value=Value("eps_delta"),
    summary="(ε_g, 1 − (1−δ)^k(1−δ')), ε_g = min{ε' : Σ_ℓ C(k,ℓ)(e^{(k−ℓ)ε} − e^{ε'+ℓε})₊/(1+e^ε)^k ≤ δ'}",
    params=_KOV_PARAMS_OPTIMAL + (Param("delta_prime", SLACK_DELTA, "slack δ' ∈ (0, 1]", example="1e-5"),),
    reference=kov15_optimal,
    witnesses=(WitnessUse("base.kov15_canonical", {"eps": "eps", "delta": "delta", "k": "k"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": +1, "delta": +1, "k": +1},
    note="returns the pair (ε_g, δ_g); the monotone declarations hold for both components",
))


@self_checked
def kov15_closed(eps, delta, k, delta_prime):
    """Closed-form composition bound (Kairouz, Oh & Viswanath 2015, Thm 3.4): for ε > 0, δ ∈ [0, 1] and
    δ' ∈ (0, 1], k-fold adaptive composition of (ε, δ)-DP mechanisms is (ε̃, 1 − (1−δ)^k(1 − δ'))-DP with

        ε̃ = min{ kε,
                 (e^ε − 1)εk/(e^ε + 1) + ε √(2k log(e + √(kε²)/δ')),
                 (e^ε − 1)εk/(e^ε + 1) + ε √(2k log(1/δ')) }.

    Returns the pair (ε̃, δ_g)."""
    drift = mpmath.tanh(eps / 2) * eps * k  # (e^ε − 1)/(e^ε + 1) = tanh(ε/2)
    second = drift + eps * mpmath.sqrt(2 * k * mpmath.log(mpmath.e + mpmath.sqrt(k * eps**2) / delta_prime))
    third = drift + eps * mpmath.sqrt(2 * k * mpmath.log(1 / delta_prime))
    delta_g = -mpmath.expm1(k * mpmath.log1p(-delta) + mpmath.log1p(-delta_prime))
    return min(k * eps, second, third), delta_g


register(Statement(
    id="base.kov15_closed",
    fast="dpspec.fast.base.composition:kov15_closed",
    source=Source("outside", "Thm 3.4", "closed-form bound on homogeneous (ε, δ) composition", KOV15),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="ε̃ = min{kε, k ε tanh(ε/2) + ε√(2k log(e + √(kε²)/δ')), k ε tanh(ε/2) + ε√(2k log(1/δ'))}",
    params=_KOV_PARAMS + (Param("delta_prime", SLACK_DELTA, "slack δ' ∈ (0, 1]", example="1e-5"),),
    reference=kov15_closed,
    witnesses=(WitnessUse("base.kov15_canonical", {"eps": "eps", "delta": "delta", "k": "k"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps": +1, "delta": +1, "k": +1},
    note="returns the pair (ε̃, δ_g); the monotone declarations hold for both components",
))


# ---------------------------------------------------------------------------------------------------
# The canonical (ε, δ) pair of KOV15, k-fold

def _canonical_probs(eps, delta):
    e = math.exp(-float(eps))  # e^{−ε}; the weights e^ε/(1+e^ε) = 1/(1+e^{−ε}) written without overflow
    d = float(delta)
    hi, lo = (1 - d) / (1 + e), (1 - d) * e / (1 + e)
    return np.array([d, hi, lo, 0.0]), np.array([0.0, lo, hi, d])


def _canonical_sample(rng: np.random.Generator, n: int, eps, delta, k) -> np.ndarray:
    p, _ = _canonical_probs(eps, delta)
    return rng.choice(4, size=(n, int(k)), p=p)


def _canonical_log_density(which: int):
    def log_density(o, eps, delta, k):
        probs = _canonical_probs(eps, delta)[which]
        with np.errstate(divide="ignore"):
            return np.log(probs)[np.asarray(o)].sum(axis=-1)

    return log_density


def _canonical_log_moment(alpha, eps, delta, k):
    """log E_Q̃[(p̃/q̃)^α] of the k-fold pair: +inf when δ > 0 (P̃ has an atom where Q̃ has none, α > 1);
    otherwise k·log((e^{αε} + e^{(1−α)ε})/(1 + e^ε))."""
    alpha, eps = mpf(alpha), mpf(eps)
    if delta > 0 and alpha > 1:
        return mpf("inf")
    return int(k) * (logsumexp([alpha * eps, (1 - alpha) * eps]) - mpmath.log1p(mpmath.exp(eps)))


register_witness(Witness(
    id="base.kov15_canonical",
    description="k-fold product of the canonical (ε, δ) pair of KOV15 on {0, 1, 2, 3}",
    params=_KOV_PARAMS,
    sample=_canonical_sample,
    log_p=_canonical_log_density(0),
    log_q=_canonical_log_density(1),
    source=KOV15 + ", §3 (the dominating mechanism in the proof of Thm 3.3)",
    dominating=True,
    log_moment=_canonical_log_moment,
    note="outputs have shape (n, k); the privacy loss is +inf on outcome 0 (probability δ per step)",
))
