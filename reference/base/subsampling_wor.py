"""Subsampling WITHOUT replacement and the REPLACE-ONE (substitution) neighbouring relation for the Gaussian sum
query with per-record contributions of ℓ2 norm ≤ 1 (the add/remove sensitivity 1 of base.sgm_*): a replacement moves
the sum by at most 2. Four statements (issue 14, "what peers' own test suites test and dpspec cannot answer yet"):

* ``base.sgm_wor_profile``: the exact privacy profile δ(ε) of ONE step that draws a batch of exactly m of n records
  uniformly (γ = m/n), replace-one neighbours, both orders of the pair (the relation is symmetric), every real ε;
* ``base.sgm_replace_one_profile``: the exact profile of ONE Poisson-subsampled step (rate q), replace-one;
* ``base.sgm_wor_rdp``: Wang, Balle & Kasiviswanathan's RDP upper bound for sampling without replacement (WBK19,
  arXiv 1808.00087, Thm 9), at the Gaussian's replace-one RDP ε(j) = 2j/σ²: a valid bound, not tight;
* ``base.sgm_replace_one_rdp``: an RDP upper bound for the Poisson replace-one pair by the weak triangle inequality
  of Rényi divergences through N(0, σ²) (Mironov 2017, arXiv 1702.07476, Prop. 11 with p = q = 2): valid, loose.

Which pairs, and why they dominate (checked with the papers; our derivation where the text leaves a step):

WOR, replace-one. A batch B of m of n records contains the replaced record i with probability γ = m/n, so
M(D) = (1 − γ)R + γA, M(D') = (1 − γ)R + γA' (R: batches without i, the same under D and D'). Balle, Barthe &
Gaboardi 2018 (arXiv 1807.01647, Thm 9/10 with their coupling of batches) bound every ordered pair by
δ'(ε') = γ·δ_B(ε), ε' = log(1 + γ(e^ε − 1)), δ_B the profile of the base mechanism under replace-one, here the
Gaussian with shift 2: N(2, σ²) vs N(0, σ²). That is exactly the REMOVE formula of the Poisson profile
(reference/base/sgm_profile.py) at rate γ and noise σ/2 (N(2, σ²) vs N(0, σ²) is N(1, (σ/2)²) vs N(0, (σ/2)²)
scaled by 2). It is attained: with n − 1 records at −e and record i at +e in D (all n at −e in D'),
M(D) = (1 − γ)N(−m, σ²) + γN(−m + 2, σ²), M(D') = N(−m, σ²) (the witness ``base.sgm_wor``). The swapped order
realises the ADD formula. So for each ε the one-step profile is max(remove, add) at (γ, σ/2), for every real ε
(remove is the larger for ε ≥ 0: both are below Balle et al.'s bound, which remove attains). For COMPOSITION the two
orders may alternate from step to step (Lebeda, Regehr, Kamath & Steinke 2024, arXiv 2405.20769: the worst case of
one step need not be the worst case of the composition), so the accountant composes the symmetric pair whose
trade-off function is C_γ(f) = min{f_γ, f_γ^{-1}}** (Dong, Roth & Su 2022, arXiv 1905.02383, Thm 4.2: subsampling
without replacement under replace-one is C_γ(f)-DP, f the base mechanism's trade-off); its profile is the maximum of
the two orders' profiles at every ε (the conjugate of a convex envelope of a minimum is the maximum of the
conjugates), i.e. this statement (fast/base/pld_pairs_wor.py builds its loss distribution).

Poisson, replace-one. M(D) = E_S[(1 − q)N(s_S, σ²) + qN(s_S + a, σ²)], M(D') the same with b (|a|, |b| ≤ 1,
S the other records' sample, shared); joint convexity of the hockey-stick divergence reduces to S = ∅ and the pair
((1 − q)N(0) + qN(a), (1 − q)N(0) + qN(b)); a = −b = e gives P = (1 − q)N(0, σ²) + qN(1, σ²),
Q = (1 − q)N(0, σ²) + qN(−1, σ²) (dp-accounting's REPLACE pair for the subsampled Gaussian,
pld/privacy_loss_mechanism.py, AdditiveNoisePrivacyLoss; Zhu, Dong & Wang 2022, arXiv 2106.08567, §5). The pair is
symmetric (x ↦ −x swaps P and Q), so both orders have one profile and it composes without the pitfall above. That
the antipodal choice a = −b is the worst over the unit ball is the cited papers' claim; tests/base/
test_subsampling_wor.py scans collinear a, b ∈ [−1, 1] and finds no larger δ.
Its loss L(x) = log(1 − q + q e^{(2x−1)/(2σ²)}) − log(1 − q + q e^{(−2x−1)/(2σ²)}) increases in x from −∞ to +∞,
so δ(ε) = P(X > x*) − e^ε Q(X > x*) with L(x*) = ε; with y = e^{x/σ²}, c = e^{−1/(2σ²)}, E = e^ε, L(x) = ε is the
quadratic q c y² − (1 − q)(E − 1) y − E q c = 0 (derivation: divide both mixtures by N(x; 0, σ²)), so
y = [(1 − q)(E − 1) + √((1 − q)²(E − 1)² + 4q²c²E)]/(2qc): closed form, evaluated at raised precision where the two
tails cancel (:func:`_replace_one_log_delta`).
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mp, mpf

from ..catalogue import Condition, Privacy, Source, Statement, Value, Witness, WitnessUse, register, register_witness
from ..domains import ALPHA, NOISE, SAMPLING_RATE, Param
from ..errors import ParameterError, PrecisionError
from ..precision import checked_param as _arg, logsumexp, self_checked, to_mpf
from .gaussian import profile_real
from .sgm import (_log_normal, _mp_log_normal, _sgm_log_moment, sgm_rdp, witness_guarded, witness_log_quad,
                  witness_order, witness_truncation)
from .sgm_profile import _gaussian_base, evaluate
from .spec import (EPS_REAL, SGM_WITNESS_DIRECTION, WOR_ALPHA, WOR_BATCH, WOR_BATCH_WITHIN_DATA, WOR_DATASET)

BBG18 = "Balle, Barthe & Gaboardi, Privacy Amplification by Subsampling, NeurIPS 2018 (arXiv 1807.01647), Thm 9/10"
DRS22 = "Dong, Roth & Su, Gaussian Differential Privacy, JRSS-B 2022 (arXiv 1905.02383), Thm 4.2"
LRKS24 = ("Lebeda, Regehr, Kamath & Steinke, Avoiding Pitfalls for Privacy Accounting of Subsampled Mechanisms "
          "under Composition, 2024 (arXiv 2405.20769)")
ZDW22 = ("Zhu, Dong & Wang, Optimal Accounting of Differential Privacy via Characteristic Function, AISTATS 2022 "
         "(arXiv 2106.08567)")
WBK19 = ("Wang, Balle & Kasiviswanathan, Subsampled Rényi Differential Privacy and Analytical Moments Accountant, "
         "AISTATS 2019 (arXiv 1808.00087), Thm 9")
MIRONOV17 = "Mironov, Rényi Differential Privacy, CSF 2017 (arXiv 1702.07476), Prop. 11"
GAMMA_GUARD = 60  # digits beyond the working precision at which γ = m/n is formed (evaluate adds ≥ 15 of its own)


def _gamma(m: int, n: int):
    """γ = m/n as an mpf with GAMMA_GUARD more digits than the working precision (m, n are exact integers)."""
    with mp.workdps(mp.dps + GAMMA_GUARD):
        return mpf(m) / n


def _check_wor(m, n, who: str):
    """m, n as ints; ParameterError where m > n (no such batch: the condition batch_within_data, which the
    catalogue checks first, names it; a direct call or allow_outside lands here)."""
    m, n = _arg("m", WOR_BATCH, m), _arg("n", WOR_DATASET, n)
    if m > n:
        raise ParameterError(f"{who}: m={m} > n={n}: {WOR_BATCH_WITHIN_DATA.text}")
    return m, n


def _batch_within_data(p) -> bool:
    return p["m"] <= p["n"]


# ---------------------------------------------------------------------------------------------------------------
# base.sgm_wor_profile

@self_checked
def sgm_wor_profile(eps, m, n, sigma):
    """Exact privacy profile of one Gaussian step on a batch of m of n records drawn without replacement,
    replace-one neighbours (contributions of norm ≤ 1), both orders (module docstring; BBG18 Thm 9/10, DRS22
    Thm 4.2, LRKS24):

        δ(ε) = max(remove, add) of base.sgm_profile at q = γ = m/n and noise σ/2,
        remove: γ·δ_{σ/2}(log(1 + (e^ε − 1)/γ)),  add: (1 − (1 − γ)e^ε)·δ_{σ/2}(−log(1 + (e^{−ε} − 1)/γ)),

    δ_s the Gaussian profile Φ(1/(2s) − εs) − e^ε Φ(−1/(2s) − εs). m = n is the Gaussian mechanism with shift 2."""
    eps, sigma = _arg("eps", EPS_REAL, eps), _arg("sigma", NOISE, sigma)
    m, n = _check_wor(m, n, "base.sgm_wor_profile")
    half = sigma / 2  # exact in binary
    if m == n:
        return profile_real(eps, sigma=half)
    return evaluate(eps, _gamma(m, n), "max", lambda: _gaussian_base(half), "base.sgm_wor_profile")


def _wor_order(point) -> str:
    """The witness order that attains ``base.sgm_wor_profile`` at ``point`` (the larger δ, remove on ties; 20
    digits: a witness mapping, not a bound)."""
    with mp.workdps(20):
        eps, sigma = to_mpf(point["eps"]), to_mpf(point["sigma"])
        m, n = int(point["m"]), int(point["n"])
        if eps >= 0 or m == n:
            return "remove"
        g = _gamma(m, n)
        rem, add = (evaluate(eps, g, d, lambda: _gaussian_base(sigma / 2), "base.sgm_wor") for d in ("remove", "add"))
    return "remove" if rem >= add else "add"


def _wor_witness(order_of):
    return lambda p: {"m": p["m"], "n": p["n"], "sigma": p["sigma"], "direction": order_of(p)}


_WOR_PARAMS = (
    Param("m", WOR_BATCH, "batch size (records drawn without replacement)", example=256),
    Param("n", WOR_DATASET, "dataset size", example=60000),
    Param("sigma", NOISE, "noise multiplier (std / per-record clipping norm; a replacement moves the sum by ≤ 2)",
          example="0.8"),
)

register(Statement(
    id="base.sgm_wor_profile",
    fast="dpspec.fast.base.subsampling_wor:sgm_wor_profile",
    source=Source("outside", "Gaussian sum, m of n without replacement, replace-one: BBG18 Thm 9/10, DRS22 Thm 4.2",
                  "exact (ε, δ) of one DP-SGD step with shuffled fixed-size batches", f"{BBG18}; {DRS22}; {LRKS24}"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="max over both orders of base.sgm_profile at q = m/n, σ/2: γ·δ_{σ/2}(log(1 + (e^ε − 1)/γ)) for ε ≥ 0",
    params=(Param("eps", EPS_REAL, "any real ε (ε < 0 allowed)", example=1),) + _WOR_PARAMS,
    conditions=(Condition.of(WOR_BATCH_WITHIN_DATA, _batch_within_data),),
    reference=sgm_wor_profile,
    witnesses=(WitnessUse("base.sgm_wor", _wor_witness(_wor_order),
                          note="the attaining datasets (n − 1 records at −1, record i at ±1); for ε < 0 the order "
                               "with the larger δ"),),
    privacy=Privacy("replace_one", "both", "without_replacement"),
    monotone={"eps": -1, "m": +1, "n": -1, "sigma": -1},
    note="one step only: for composition the accountant uses the symmetric pair C_γ(f) (module docstring)",
))


# ---------------------------------------------------------------------------------------------------------------
# base.sgm_replace_one_profile

def _replace_one_threshold(eps, q, sigma):
    """x* with L(x*) = ε for the Poisson replace-one pair (module docstring's quadratic), current precision."""
    c = mpmath.exp(-1 / (2 * sigma**2))
    big_e = mpmath.exp(eps)
    b = (1 - q) * mpmath.expm1(eps)  # (1 − q)(E − 1)
    root = mpmath.sqrt(b**2 + 4 * q**2 * c**2 * big_e)
    if b >= 0:
        y = (b + root) / (2 * q * c)
    else:  # the rationalised form: no cancellation of b + root
        y = 2 * big_e * q * c / (root - b)
    return sigma**2 * mpmath.log(y)


def _log_tail(x, mean, sigma):
    """log P(N(mean, σ²) > x)."""
    return mpmath.log(mpmath.ncdf(-(x - mean) / sigma))


def _replace_one_log_delta(eps, q, sigma):
    """(log δ, digits lost): δ = P(X > x*) − e^ε Q(X > x*) as the difference of two mixtures' tails. x* maximises
    P(S) − e^ε Q(S) over half-lines, so its rounding moves δ only to second order; the digits lost are those of
    the difference, log10 of (the larger tail over δ)."""
    x = _replace_one_threshold(eps, q, sigma)
    log_1mq, log_q = mpmath.log1p(-q), mpmath.log(q)
    t0, tp, tm = _log_tail(x, 0, sigma), _log_tail(x, 1, sigma), _log_tail(x, -1, sigma)
    log_p = logsumexp([log_1mq + t0, log_q + tp])
    log_qq = eps + logsumexp([log_1mq + t0, log_q + tm])
    if log_p <= log_qq:
        return mpf("-inf"), mp.dps
    diff = mpmath.exp(log_p) - mpmath.exp(log_qq)
    log_delta = mpmath.log(diff)
    lost = int(mpmath.ceil(max(0, (log_p - log_delta) / mpmath.log(10))))
    return log_delta, lost


@self_checked
def sgm_replace_one_profile(eps, q, sigma):
    """Exact privacy profile of one Poisson-subsampled Gaussian step under replace-one neighbours (contributions of
    norm ≤ 1), every real ε (ZDW22 §5; dp-accounting's REPLACE pair; module docstring):

        P = (1 − q)N(0, σ²) + qN(1, σ²),  Q = (1 − q)N(0, σ²) + qN(−1, σ²),
        δ(ε) = P(X > x*) − e^ε Q(X > x*),  x* = σ² log y,
        y = [(1 − q)(e^ε − 1) + √((1 − q)²(e^ε − 1)² + 4q²c²e^ε)]/(2qc),

    c = e^{−1/(2σ²)}. q = 1 is the Gaussian mechanism with shift 2 (noise σ/2). Evaluated with as many more digits as
    the two tails cancel (recomputed until covered)."""
    eps, q, sigma = _arg("eps", EPS_REAL, eps), _arg("q", SAMPLING_RATE, q), _arg("sigma", NOISE, sigma)
    if q == 1:
        return profile_real(eps, sigma=sigma / 2)
    extra = 15
    for _ in range(8):
        with mp.workdps(mp.dps + extra):
            log_delta, lost = _replace_one_log_delta(eps, q, sigma)
            need = 15 + lost + int(mpmath.ceil(mpmath.log10(1 + abs(log_delta)))) if mpmath.isfinite(log_delta) \
                else 15 + lost
            if need <= extra:
                return mpf(0) if mpmath.isinf(log_delta) else +mpmath.exp(log_delta)
        extra = need + 10
        if extra > 4000:
            break
    raise PrecisionError(f"base.sgm_replace_one_profile: δ(ε) at eps={mpmath.nstr(eps, 17)} loses more than 4000 "
                         "digits")


register(Statement(
    id="base.sgm_replace_one_profile",
    fast="dpspec.fast.base.subsampling_wor:sgm_replace_one_profile",
    source=Source("outside", "Poisson-subsampled Gaussian, replace-one: the pair ((1−q)N(0)+qN(1), (1−q)N(0)+qN(−1))",
                  "exact (ε, δ) of one DP-SGD step when neighbours replace a record", ZDW22),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="P(X > x*) − e^ε Q(X > x*), P = (1−q)N(0,σ²)+qN(1,σ²), Q = (1−q)N(0,σ²)+qN(−1,σ²), L(x*) = ε (closed form)",
    params=(
        Param("eps", EPS_REAL, "any real ε (ε < 0 allowed)", example=1),
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.01"),
        Param("sigma", NOISE, "noise multiplier (std / per-record clipping norm)", example="0.8"),
    ),
    reference=sgm_replace_one_profile,
    witnesses=(WitnessUse("base.sgm_replace_one", {"q": "q", "sigma": "sigma"}),),
    privacy=Privacy("replace_one", "both", "poisson"),
    monotone={"eps": -1, "q": +1, "sigma": -1},
    tolerance=1e-8,
    note="symmetric pair: one profile for both orders; composes without the order pitfall (module docstring)",
))


# ---------------------------------------------------------------------------------------------------------------
# base.sgm_wor_rdp (WBK19 Thm 9)

def _wbk_log_moment(k: int, g, sigma):
    """log of WBK19 Thm 9's bound on E[(p/q)^k] at integer k ≥ 2, Gaussian base under replace-one
    (ε(j) = j·2²/(2σ²) = 2j/σ², ε(∞) = ∞, so min{2, (e^{ε(∞)} − 1)^j} = 2):
        1 + γ²C(k,2)·min{4(e^{ε(2)} − 1), 2e^{ε(2)}} + Σ_{j=3}^k 2γ^j C(k,j) e^{(j−1)ε(j)}   (all terms ≥ 0)."""
    log_g = mpmath.log(g)
    e2 = 4 / sigma**2  # ε(2)
    second = min(mpmath.log(4) + e2 + mpmath.log(-mpmath.expm1(-e2)), mpmath.log(2) + e2)
    log_binom = mpmath.log(mpf(k * (k - 1)) / 2)  # log C(k, 2)
    terms = [mpf(0), log_binom + 2 * log_g + second]  # log 1, then the j = 2 term
    # j ≥ 3: log of 2γ^j C(k,j) e^{(j−1)ε(j)} by its ratio to the previous j: C(k,j)/C(k,j−1) = (k − j + 1)/j and
    # (j−1)·2j/σ² − (j−2)·2(j−1)/σ² = 4(j − 1)/σ²
    log_term = mpmath.log(2) + log_binom + 2 * log_g + 4 / sigma**2  # j = 2 in the generic form
    step = 4 / sigma**2
    for j in range(3, k + 1):
        log_term += mpmath.log(mpf(k - j + 1) / j) + log_g + step * (j - 1)
        terms.append(log_term)
    return mpmath.log1p(mpmath.exp(logsumexp(terms[1:])))  # log(1 + S): no cancellation where S ≪ 1


@self_checked
def sgm_wor_rdp(alpha, m, n, sigma):
    """RDP upper bound of one Gaussian step on a batch of m of n records without replacement, replace-one
    neighbours (WBK19 Thm 9 with the Gaussian's replace-one RDP ε(j) = 2j/σ²): for integer α ≥ 2

        ε(α) ≤ 1/(α−1) · log(1 + γ²C(α,2) min{4(e^{ε(2)} − 1), 2e^{ε(2)}} + Σ_{j=3}^α 2γ^j C(α,j) e^{(j−1)ε(j)}),

    γ = m/n; at fractional α, the linear interpolation of K(α) = (α−1)ε(α) between ⌊α⌋ and ⌈α⌉ (K(1) = 0): K is
    convex in α (a cumulant generating function), so the interpolation of upper bounds at the integers is an
    upper bound (as TF-Privacy/dp-accounting's _compute_rdp_sample_wor_gaussian do). A valid bound, not tight."""
    alpha, sigma = _arg("alpha", WOR_ALPHA, alpha), _arg("sigma", NOISE, sigma)
    m, n = _check_wor(m, n, "base.sgm_wor_rdp")
    g = _gamma(m, n)
    lo, hi = int(mpmath.floor(alpha)), int(mpmath.ceil(alpha))
    k_lo = mpf(0) if lo == 1 else _wbk_log_moment(lo, g, sigma)
    if lo == hi:
        return k_lo / (alpha - 1)
    k_hi = _wbk_log_moment(hi, g, sigma)
    t = alpha - lo
    return ((1 - t) * k_lo + t * k_hi) / (alpha - 1)


register(Statement(
    id="base.sgm_wor_rdp",
    fast="dpspec.fast.base.subsampling_wor:sgm_wor_rdp",
    source=Source("outside", "WBK19 Thm 9 (general upper bound), Gaussian base ε(j) = 2j/σ² under replace-one",
                  "RDP accounting of DP-SGD with fixed-size batches (TF-Privacy / dp-accounting's WOR accountant)",
                  WBK19),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="1/(α−1)·log(1 + γ²C(α,2)min{4(e^{ε(2)}−1), 2e^{ε(2)}} + Σ_{j≥3} 2γ^j C(α,j)e^{(j−1)ε(j)}), ε(j) = 2j/σ²",
    params=(Param("alpha", WOR_ALPHA, "Rényi order", example=8),) + _WOR_PARAMS,
    conditions=(Condition.of(WOR_BATCH_WITHIN_DATA, _batch_within_data),),
    reference=sgm_wor_rdp,
    witnesses=tuple(WitnessUse("base.sgm_wor", _wor_witness(lambda p, d=d: d), note=f"the {d} order")
                    for d in ("remove", "add")),
    privacy=Privacy("replace_one", "both", "without_replacement"),
    monotone={"m": +1, "n": -1, "sigma": -1},
    note="an upper bound (WBK19's general bound); the tight answer is the PLD of the symmetric pair",
))


# ---------------------------------------------------------------------------------------------------------------
# base.sgm_replace_one_rdp (weak triangle inequality)

@self_checked
def sgm_replace_one_rdp(alpha, q, sigma):
    """RDP upper bound of one Poisson-subsampled Gaussian step under replace-one neighbours, P = (1−q)N(0)+qN(1)
    vs Q = (1−q)N(0)+qN(−1), through R = N(0, σ²) (Mironov 2017, Prop. 11 with p = q = 2, derived by Hölder):

        ε(α) ≤ (α − 1/2)/(α − 1)·ε_rem(2α) + ε_rem(2α − 1),

    ε_rem the remove-direction RDP of base.sgm_rdp (D_{2α}(P‖R) is remove; D_{2α−1}(R‖Q) is the add direction by
    the reflection x ↦ −x, at most remove: MTZ19 Thm 5). Valid for every α > 1; loose (the tight answer is the PLD)."""
    alpha, q, sigma = _arg("alpha", ALPHA, alpha), _arg("q", SAMPLING_RATE, q), _arg("sigma", NOISE, sigma)
    rdp = sgm_rdp.__wrapped_unchecked__
    return ((alpha - mpf(1) / 2) / (alpha - 1) * rdp(2 * alpha, q, sigma, "remove")
            + rdp(2 * alpha - 1, q, sigma, "remove"))


register(Statement(
    id="base.sgm_replace_one_rdp",
    fast="dpspec.fast.base.subsampling_wor:sgm_replace_one_rdp",
    source=Source("outside", "weak triangle inequality (Prop. 11, p = q = 2) through N(0, σ²), with MTZ19's curve",
                  "RDP accounting of Poisson-subsampled DP-SGD under replace-one neighbours", MIRONOV17),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="(α − 1/2)/(α − 1)·ε_sgm(2α) + ε_sgm(2α − 1), ε_sgm the remove-direction base.sgm_rdp",
    params=(
        Param("alpha", ALPHA, "Rényi order", example=8),
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.01"),
        Param("sigma", NOISE, "noise multiplier (std / per-record clipping norm)", example="0.8"),
    ),
    reference=sgm_replace_one_rdp,
    witnesses=(WitnessUse("base.sgm_replace_one", {"q": "q", "sigma": "sigma"}),),
    privacy=Privacy("replace_one", "both", "poisson"),
    monotone={"q": +1, "sigma": -1},
    note="an upper bound built from base.sgm_rdp; the tight answer is the PLD of the symmetric pair",
))


# ---------------------------------------------------------------------------------------------------------------
# Witness pairs

def _wor_sample(rng: np.random.Generator, size: int, m, n, sigma, direction):
    """The mechanism on the attaining datasets: record i sits at position U of a uniform permutation of the n
    records and is in the batch iff U < m; the batch sum is −m + 2·[i in batch] (remove order: D holds +1 at i)
    or −m (add order: P = M(D'), all records −1); plus N(0, σ²)."""
    m, n, s = int(m), int(n), float(sigma)
    noise = s * rng.standard_normal(size)
    if direction == "add":
        return -m + noise
    return -m + 2.0 * (rng.integers(0, n, size) < m) + noise


def _wor_log_mixture(o, m, n, s):
    g = m / n
    a = _log_normal(o, -m, s) + (np.log1p(-g) if g < 1 else -np.inf)
    b = _log_normal(o, -m + 2, s) + np.log(g)
    return np.logaddexp(a, b)


def _wor_log_p(o, m, n, sigma, direction):
    o, m, n, s = np.asarray(o, dtype=float), int(m), int(n), float(sigma)
    return _log_normal(o, -m, s) if direction == "add" else _wor_log_mixture(o, m, n, s)


def _wor_log_q(o, m, n, sigma, direction):
    o, m, n, s = np.asarray(o, dtype=float), int(m), int(n), float(sigma)
    return _wor_log_mixture(o, m, n, s) if direction == "add" else _log_normal(o, -m, s)


def _wor_log_moment(alpha, m, n, sigma, direction):
    """log E_Q[(p/q)^α] of the pair: o ↦ (o + m)/2 maps it onto base.sgm's pair at (γ, σ/2) (Rényi divergences are
    invariant under bijections), whose moment comes from its own densities (binomial sum or quadrature)."""
    m, n = _check_wor(m, n, "base.sgm_wor witness")
    sigma = _arg("sigma", NOISE, sigma)
    with mp.workdps(mp.dps + GAMMA_GUARD):
        half = sigma / 2
    return _sgm_log_moment(alpha, _gamma(m, n), half, direction)


def _wor_tilt_family(m, n, sigma, direction):
    if direction == "add":
        return None
    g = int(m) / int(n)
    return {"family": "gaussian_mixture", "weights": [1.0 - g, g], "shifts": [0.0, 2.0], "center": -float(m),
            "sigma": float(sigma)}


register_witness(Witness(
    id="base.sgm_wor",
    description="batch of m of n without replacement, replace-one: remove order P = (1−γ)N(−m,σ²) + γN(−m+2,σ²), "
                "Q = N(−m,σ²) (γ = m/n); add: swapped",
    params=(
        Param("m", WOR_BATCH, "batch size", example=256),
        Param("n", WOR_DATASET, "dataset size", example=60000),
        Param("sigma", NOISE, "noise standard deviation", example=1),
        Param("direction", SGM_WITNESS_DIRECTION, "which order of the neighbouring pair", example="remove"),
    ),
    sample=_wor_sample,
    log_p=_wor_log_p,
    log_q=_wor_log_q,
    source=f"{BBG18}; {LRKS24}",
    dominating=True,
    log_moment=_wor_log_moment,
    tilt_family=_wor_tilt_family,
    note="the sampler runs the mechanism on the attaining datasets (n − 1 records at −1, record i at +1 or −1)",
))


def _ro_sample(rng: np.random.Generator, size: int, q, sigma):
    return (rng.random(size) < float(q)).astype(float) + float(sigma) * rng.standard_normal(size)


def _ro_log_mixture(o, q, s, shift):
    a = _log_normal(o, 0.0, s) + (np.log1p(-q) if q < 1 else -np.inf)
    return np.logaddexp(a, _log_normal(o, shift, s) + np.log(q))


def _ro_log_p(o, q, sigma):
    return _ro_log_mixture(np.asarray(o, dtype=float), float(q), float(sigma), 1.0)


def _ro_log_q(o, q, sigma):
    return _ro_log_mixture(np.asarray(o, dtype=float), float(q), float(sigma), -1.0)


def _mp_ro_log(o, q, s, shift):
    if q == 1:
        return _mp_log_normal(o, shift, s)
    return logsumexp([mpmath.log1p(-q) + _mp_log_normal(o, 0, s), mpmath.log(q) + _mp_log_normal(o, shift, s)])


def _ro_log_moment(alpha, q, sigma):
    """log ∫ p^α q^{1−α} of the replace-one pair by quadrature of its own densities (q = 1: N(1) vs N(−1),
    2α(α − 1)/σ² in closed form). The integrand is below N(o; 0, σ²)-like bumps at 0, ±1 times (p/q)^α, whose
    log grows at most like |α|·(2|o| + 1)/(2σ²) + |α|·log(1/(q(1 − q))): it peaks near α(1 + 1/(1 − q)·[q near 1]),
    so the range is cut at witness_truncation·σ beyond −(2|α| + 1) and 2|α| + 1 (points at 0, ±1, ±α, ±(2α − 1))."""
    alpha = witness_order(alpha)
    _arg("q", SAMPLING_RATE, q), _arg("sigma", NOISE, sigma)
    if alpha in (0, 1):
        return mpf(0)

    def compute():
        a, qq, s = to_mpf(alpha), to_mpf(q), to_mpf(sigma)
        if qq == 1:
            return 2 * a * (a - 1) / s**2
        cap = (abs(a) + 1) * (mpmath.log(2) - mpmath.log(qq) - mpmath.log1p(-qq))
        half = witness_truncation(a, cap) * s
        reach = 2 * abs(a) + 1
        points = [-reach - half, -1, 0, 1, reach + half, a, -a, 2 * a - 1, 1 - 2 * a]
        points = [p for p in points if -reach - half <= p <= reach + half]
        return witness_log_quad(lambda o: a * _mp_ro_log(o, qq, s, 1) + (1 - a) * _mp_ro_log(o, qq, s, -1),
                                points, "base.sgm_replace_one witness", s)

    return witness_guarded(compute, "base.sgm_replace_one witness")


register_witness(Witness(
    id="base.sgm_replace_one",
    description="Poisson rate q, replace-one: P = (1−q)N(0,σ²) + qN(1,σ²), Q = (1−q)N(0,σ²) + qN(−1,σ²) (symmetric)",
    params=(
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.01"),
        Param("sigma", NOISE, "noise standard deviation", example=1),
    ),
    sample=_ro_sample,
    log_p=_ro_log_p,
    log_q=_ro_log_q,
    source=f"{ZDW22}; dp-accounting pld/privacy_loss_mechanism.py (REPLACE)",
    dominating=True,
    log_moment=_ro_log_moment,
    note="record i contributes +1 in D and −1 in D' when sampled (rate q), the rest of the batch empty",
))
