"""The explicit intermediate inequalities of the convergence proofs of seed 004 (DC-DPSGD, arXiv 2405.17529v1):
Thm B.1's (28) (case ‖∇L_S‖ ≤ c/2, L1088–L1093) and (40)–(45) (case ‖∇L_S‖ ≥ c/2, L855–L880); Thm E.1's (67)/(68)
(L1727–L1744) and (86)–(96) (L1498–L1620); notes shared/notes/dc-dpsgd.md §2 (Thm B.1, Thm 5.3 = E.1), §6 E15–E18.

Each returns the right-hand side as a number: a bound on (1/T)Σ_t‖∇L_S(w_t)‖² (case A: (28), (67), (68)) or on
(1/T)Σ_t‖∇L_S(w_t)‖ (case B: (40)–(45), (86)–(96); the proofs bound Σ_t η_t‖∇L_S‖ and divide by √T, η_t = 1/√T),
for the algorithm the proofs analyse (notes §4.2: ONE stochastic gradient clipped per step, noise N(0, c²σ_dp² I_d)
with Thm 5.1's σ_dp, no 1/B: E17, E20), with probability 1 − O(T δ) as the proofs state. The bracket terms were
derived at T = nε/√(d log(1/δ)) (L1081): for another T the value is the printed expression, not the proof's (24).

Case A (‖∇L_S‖ ≤ c/2 at every step) is a property of the trajectory, not of the parameters: the statements cannot
check it (the simulation of tests/dc/test_dc_convergence.py runs where it holds). Conditions checked: θ ≥ 1/2,
δ ≤ 2/e (log(2/δ) ≥ 1, used to factor the bracket; E18), and for case B the positivity of the coefficient each
inequality divides by (E15) and the case hypothesis K ≥ σ̂_dp / K ≤ σ̂_dp at the threshold used.
"""
from __future__ import annotations

import inspect

import mpmath
from mpmath import mpf

from ..catalogue import Condition, Source, Statement, Value, Variant, register
from ..precision import self_checked, to_mpf
from . import spec
from .spec import (P_BATCH, P_BETA, P_CLIP, P_D, P_DELTA, P_DELTA_E43, P_EPS_POS, P_G, P_K, P_LOSS_GAP, P_M2, P_N,
                   P_N_CASE_B, P_N_E43, P_N_E90, P_REGION, P_STEPS_E43, P_STEPS_E90, P_STEPS_E96, P_STEPS_REAL,
                   P_THETA, P_THETA_HALF, P_UNIT_BATCH, P_UNIT_D, P_UNIT_EPS, P_UNIT_M2, SEED)
from .thresholds import THETA_HALF_UP, a_theta, is_half, lpow, lpow_sqrt, resolve_case, sigma_hat_ratio

E = mpmath.e
HALF = mpf(1) / 2


def _strings_as_mpf(fn):
    """Direct Python calls may pass decimal strings ('1e-5'), as the command line does: parsed at the working
    precision (the catalogue's bind does the same)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        conv = lambda k, v: to_mpf(v) if isinstance(v, str) and k not in ("region",) else v
        names = list(inspect.signature(fn).parameters)
        args = tuple(conv(names[i] if i < len(names) else "", a) for i, a in enumerate(args))
        return fn(*args, **{k: conv(k, v) for k, v in kwargs.items()})
    return wrapper


# ---------------------------------------------------------------------------------------------------------------
# case A: (28), (67), (68)


def bracket(beta, d, n, eps, delta, batch, m2):
    """The bracket of (28)/(67)/(68) (seed 004 L1090–L1091, L1731–L1733): 2β + 8βm2·e·d^{1/2}B² log^{1/2}(2/δ)/(nε)
    + 8β√(e m2) d^{1/4} B log^{−1/2}(2/δ)/√(nε) + 8√(e m2) B log^{−1/2}(2/δ) + 64 d^{1/4} log^{1/4}(1/δ)/√(nε).
    Its largest term at the notes' §2 parameters is the second (3.1·10⁴ of 3.35·10⁴), not the non-decaying fourth
    (1.9·10³) that notes §2/E17 name."""
    l2, l1 = mpmath.log(2 / delta), mpmath.log(1 / delta)
    ne = n * eps
    d4 = mpmath.power(d, mpf(1) / 4)
    sem = mpmath.sqrt(E * m2)
    return (2 * beta + 8 * beta * m2 * E * mpmath.sqrt(d) * batch ** 2 * mpmath.sqrt(l2) / ne
            + 8 * beta * sem * d4 * batch / (mpmath.sqrt(l2) * mpmath.sqrt(ne))
            + 8 * sem * batch / mpmath.sqrt(l2)
            + 64 * d4 * mpmath.power(l1, mpf(1) / 4) / mpmath.sqrt(ne))


def _case_a(const, pref, loss_gap, steps, beta, d, n, eps, delta, batch, m2):
    rt = mpmath.sqrt(steps)
    return (4 * loss_gap + const) / rt + pref * mpmath.log(2 / delta) / rt * bracket(beta, d, n, eps, delta, batch, m2)


@_strings_as_mpf
@self_checked
def eq28(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """Eq. (28) of Thm B.1's proof (seed 004 L1088–L1093; notes §2 Thm B.1), c = 4K log^θ(√T):
    (1/T)Σ‖∇L_S‖² ≤ 4ΔL/√T + 8K²Γ(2θ+1)/√T + (16K² log^{2θ}(√T) log(2/δ)/√T)·[bracket], the bracket of
    :func:`bracket`. From (27) with c² = 16K² log^{2θ}(√T), 2βc² ≤ 2βc² log(2/δ) needing log(2/δ) ≥ 1 (E18)."""
    const = 8 * K ** 2 * mpmath.gamma(2 * theta + 1)
    pref = 16 * K ** 2 * lpow_sqrt(steps, 2 * theta)
    return _case_a(const, pref, loss_gap, steps, beta, d, n, eps, delta, batch, m2)


@_strings_as_mpf
@self_checked
def eq67(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, printed=False):
    """Eq. (67) of Thm E.1's proof (light body, seed 004 L1727–L1735; notes §2 Thm E.1, E17), c2 = 2√(2a)K
    log^{1/2}(√T): (1/T)Σ‖∇L_S‖² ≤ 4ΔL/√T + 8aK²/√T + (8aK² log(√T) log(2/δ)/√T)·[bracket]. The printed constant
    term is 2aK²/√T (``printed=True``); (66) with Eq.10 ≤ 2aK² and the factor 4 of (25) gives 8aK² (E17)."""
    a = a_theta(theta)
    const = (2 if printed else 8) * a * K ** 2
    pref = 8 * a * K ** 2 * mpmath.log(steps) / 2
    return _case_a(const, pref, loss_gap, steps, beta, d, n, eps, delta, batch, m2)


@self_checked
def eq67_printed(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """(67) as printed: constant term 2aK²/√T (seed 004 L1729; E17)."""
    return eq67(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, printed=True)


@_strings_as_mpf
@self_checked
def eq68(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, printed=False):
    """Eq. (68) of Thm E.1's proof (heavy tail, seed 004 L1737–L1744; notes §2 Thm E.1, E17), c1 = 4^θ·2K
    log^θ(√T), c1² = 4^{2θ+1}K² log^{2θ}(√T): (1/T)Σ‖∇L_S‖² ≤ 4ΔL/√T + 4^{2θ+1}K²/√T + (4^{2θ+1}K² log^{2θ}(√T)
    log(2/δ)/√T)·[bracket] ((65): Eq.10 ≤ 4^{2θ}K², times 4). Printed (``printed=True``): constant 2aK²/√T and the
    prefactor without K²."""
    f = mpmath.power(4, 2 * theta + 1)
    lt = lpow_sqrt(steps, 2 * theta)
    if printed:
        const, pref = 2 * a_theta(theta) * K ** 2, f * lt
    else:
        const, pref = f * K ** 2, f * K ** 2 * lt
    return _case_a(const, pref, loss_gap, steps, beta, d, n, eps, delta, batch, m2)


@self_checked
def eq68_printed(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """(68) as printed: 2aK²/√T and 4^{2θ+1} log^{2θ}(√T) log(2/δ)/√T without K² (seed 004 L1737–L1739; E17)."""
    return eq68(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, printed=True)


DELTA_SMALL = Condition.of(spec.DELTA_AT_MOST_2_OVER_E, lambda p: p["delta"] <= 2 / E)
CASE_A_PARAMS = (P_THETA, P_K, P_BETA, P_LOSS_GAP, P_D, P_N, P_EPS_POS, P_DELTA, P_BATCH, P_M2, P_STEPS_REAL)
CASE_A_NOTE = ("Case ‖∇L_S(w_t)‖ ≤ c/2 at every step (a trajectory property the statement cannot check). Vacuous at "
               "realistic parameters (notes §2 table: 10⁵–10¹⁰ at K = β = ΔL = 1, d = 10⁵, n = 5·10⁴, ε = 4, "
               "B = 256, m2 = 4): the B² of the noise term (no 1/B, E17) dominates. T real: the theory's "
               "T = nε/√(d log(1/δ)) = 186.4 there. ")
CASE_A_MONOTONE = {"loss_gap": +1, "K": +1, "beta": +1, "m2": +1, "batch": +1, "d": +1, "n": -1, "eps": -1}

register(Statement(
    id="dc.thm_b1_eq28",
    fast="dpspec.fast.dc.convergence:eq28",
    source=Source(SEED, "Thm B.1, eq. (28)", "explicit bound of heavy-tailed DPSGD, case ‖∇L_S‖ ≤ c/2"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="(1/T)Σ‖∇L_S‖² ≤ 4ΔL/√T + 8K²Γ(2θ+1)/√T + 16K² log^{2θ}(√T) log(2/δ)/√T · [2β + 8βm2 e √d B² "
            "log^{1/2}(2/δ)/(nε) + 8β√(e m2) d^{1/4}B log^{-1/2}(2/δ)/√(nε) + 8√(e m2) B log^{-1/2}(2/δ) + 64 d^{1/4} "
            "log^{1/4}(1/δ)/√(nε)]",
    params=CASE_A_PARAMS,
    reference=eq28,
    conditions=(THETA_HALF_UP, DELTA_SMALL),
    monotone=CASE_A_MONOTONE,
    note=CASE_A_NOTE + "As printed; (25) substitutes log^{3/2}(2/δ) for log²(2/δ)/log^{1/2}(1/δ) (a factor "
         "√(log(2/δ)/log(1/δ)) = 1.03 at δ = 1e-5 too small in the second bracket term). Test vectors: 1.25e6 / "
         "3.27e6 / 2.24e7 at θ = 0.5 / 1 / 2, T = 186.4 (notes §2).",
))

register(Statement(
    id="dc.thm_e1_eq67",
    fast="dpspec.fast.dc.convergence:eq67",
    source=Source(SEED, "Thm E.1, eq. (67)", "explicit bound of DC-DPSGD, light body, case ‖∇L_S‖ ≤ c/2"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="(1/T)Σ‖∇L_S‖² ≤ 4ΔL/√T + 8aK²/√T + 8aK² log(√T) log(2/δ)/√T · [bracket of (28)]",
    params=CASE_A_PARAMS,
    reference=eq67,
    conditions=(THETA_HALF_UP, DELTA_SMALL),
    variants={"printed": Variant(eq67_printed, "(67) as printed: constant term 2aK²/√T where (66) gives 8aK²/√T "
                                 "(E17); not implied by the argument", is_bound=False)},
    monotone=CASE_A_MONOTONE,
    note=CASE_A_NOTE + "With F.1's c2 = 2√(2a)K log^{1/2}(√T). For θ > 1/2 it exceeds dc.thm_b1_eq28 until "
         "T > body_beats_dpsgd_T(θ) (E9: e^{118.2} at θ = 1). Test vectors (notes §2): 7.41e7 (θ = 1), 1.01e10 "
         "(θ = 2) at T = 186.4; 1.80e7, 2.46e9 at T = 9766.",
))

register(Statement(
    id="dc.thm_e1_eq68",
    fast="dpspec.fast.dc.convergence:eq68",
    source=Source(SEED, "Thm E.1, eq. (68)", "explicit bound of DC-DPSGD, heavy tail, case ‖∇L_S‖ ≤ c/2"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="(1/T)Σ‖∇L_S‖² ≤ 4ΔL/√T + 4^{2θ+1}K²/√T + 4^{2θ+1}K² log^{2θ}(√T) log(2/δ)/√T · [bracket of (28)]",
    params=CASE_A_PARAMS,
    reference=eq68,
    conditions=(THETA_HALF_UP, DELTA_SMALL),
    variants={"printed": Variant(eq68_printed, "(68) as printed: K² missing from the prefactor, constant 2aK²/√T "
                                 "where (65) gives 4^{2θ+1}K²/√T (E17); not implied by the argument",
                                 is_bound=False)},
    monotone=CASE_A_MONOTONE,
    note=CASE_A_NOTE + "With F.1's c1 = 4^θ·2K log^θ(√T). Test vectors (notes §2): 1.31e7 (θ = 1), 1.43e9 (θ = 2) at "
         "T = 186.4; 5.59e6, 1.89e9 at T = 9766; at θ = 1/2 (67) = (68) = (28) up to the constant term.",
))


# ---------------------------------------------------------------------------------------------------------------
# case B of Thm B.1: (40)–(45)


def _case_b_bracket(beta, d, n, eps, delta, batch, m2, steps, c):
    """(40)'s factor of Σ η_t² (seed 004 L857): 2βm2·e·d·T c² B² log²(2/δ)/(n²ε²) + 2β√(e m2 T d) c² B log(2/δ)/(nε)
    + βc²/2."""
    l2 = mpmath.log(2 / delta)
    ne = n * eps
    return (2 * beta * m2 * E * d * steps * c ** 2 * batch ** 2 * l2 ** 2 / ne ** 2
            + 2 * beta * mpmath.sqrt(E * m2 * steps * d) * c ** 2 * batch * l2 / ne + beta * c ** 2 / 2)


def eq40_coefficient(theta, K, d, n, eps, delta, batch, m2, steps, c):
    """c/3 − (19/3)K log^θ(2/δ) − 4√e σ̂_dp log^{1/2}(1/δ), σ̂_dp at c (seed 004 L855, (39)–(40))."""
    s = sigma_hat_ratio(m2, steps, d, batch, n, eps, delta)
    return (c / 3 - mpf(19) / 3 * K * lpow(2 / delta, theta)
            - 4 * mpmath.sqrt(E) * s * c * mpmath.sqrt(mpmath.log(1 / delta)))


def _eq40(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c):
    coef = eq40_coefficient(theta, K, d, n, eps, delta, batch, m2, steps, c)
    rhs = loss_gap + _case_b_bracket(beta, d, n, eps, delta, batch, m2, steps, c)  # Σ η_t² = 1
    if coef <= 0:
        return mpmath.inf  # outside the condition (allow_outside): (40) bounds nothing
    return rhs / (coef * mpmath.sqrt(steps))


@_strings_as_mpf
@self_checked
def eq40(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c):
    """Eq. (40) of Thm B.1's proof (case ‖∇L_S‖ ≥ c/2; seed 004 L855–L858; notes §2 Thm B.1), η_t = 1/√T, divided by
    its coefficient and √T: (1/T)Σ‖∇L_S‖ ≤ (ΔL + 2βm2·e·dTc²B² log²(2/δ)/(n²ε²) + 2β√(e m2 T d) c²B log(2/δ)/(nε) +
    βc²/2) / ((c/3 − (19/3)K log^θ(2/δ) − 4√e σ̂_dp log^{1/2}(1/δ))·√T), the coefficient positive
    (spec.EQ40_COEFFICIENT_POSITIVE; +inf outside it)."""
    return _eq40(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c)


def _b1_case_c(case, theta, K, steps, delta):
    """The c of B.1's sub-case (its full threshold max(T-part, δ-part), L694–L696)."""
    from .thresholds import _candidate

    return _candidate("thm_b1", theta, K, steps, delta, case)


def _case_holds(case, theta, K, steps, delta, m2, d, batch, n, eps):
    return resolve_case("thm_b1", theta, K, steps, delta, case, m2, d, batch, n, eps)[2]


@self_checked
def eq41(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """(41)'s case (θ = 1/2, K ≥ σ̂_dp; seed 004 L861–L868), corrected: (40) evaluated at B.1's threshold
    c = max(4K log^{1/2}(√T), 39K log^{1/2}(2/δ)). The printed closed form divides by (1/3)K log^{1/2}(2/δ) where
    the coefficient is only ≥ 0.072·K log^{1/2}(2/δ) (E15, 4.6×) and drops c from the cross term."""
    c = _b1_case_c("K_ge_sigma_hat", theta, K, steps, delta)
    return _eq40(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c)


@self_checked
def eq41_printed(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """(41) as printed, divided by √T ((42)): [3ΔL/(K L) + 6βeK L + 6β√e L + 3β(39²/2)K L]/√T, L = log^{1/2}(2/δ)."""
    L = mpmath.sqrt(mpmath.log(2 / delta))
    return (3 * loss_gap / (K * L) + 6 * beta * E * K * L + 6 * beta * mpmath.sqrt(E) * L
            + 3 * beta * mpf(39) ** 2 / 2 * K * L) / mpmath.sqrt(steps)


@self_checked
def eq43(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """(43)'s case (θ = 1/2, K ≤ σ̂_dp; seed 004 L870–L878), corrected: (40) at B.1's threshold c = max(4K
    log^{1/2}(√T), 19K log^{1/2}(1/δ)/12). At c = 19K log^{1/2}(1/δ)/12 the coefficient c/3 − (19/3)K
    log^{1/2}(2/δ) − … is negative: (43) does not follow from (40) unless the T-part dominates enormously."""
    c = _b1_case_c("K_le_sigma_hat", theta, K, steps, delta)
    return _eq40(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c)


@self_checked
def eq43_printed(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """(43) as printed, divided by √T ((44)): [ΔL/(K L) + 2βeK L + 2β√e L + β(27²/2)K L]/√T, L = log^{1/2}(2/δ)."""
    L = mpmath.sqrt(mpmath.log(2 / delta))
    return (loss_gap / (K * L) + 2 * beta * E * K * L + 2 * beta * mpmath.sqrt(E) * L
            + beta * mpf(27) ** 2 / 2 * K * L) / mpmath.sqrt(steps)


@self_checked
def eq45(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """(45)'s case (θ > 1/2; seed 004 L880–L881), corrected: (40) at B.1's threshold c = max(4K log^θ(√T),
    20K log^θ(2/δ)). The printed form drops the σ̂_dp term of the coefficient without a stated condition (E15)."""
    c = _b1_case_c(None, theta, K, steps, delta)
    return _eq40(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c)


@self_checked
def eq45_printed(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    """(45) as printed, divided by √T ((46)): [3ΔL/(K L) + (19²/24)βK L + 190βK L + 3β·20²K L]/√T, L = log^θ(2/δ)."""
    L = lpow(2 / delta, theta)
    return (3 * loss_gap / (K * L) + mpf(19) ** 2 / 24 * beta * K * L + 190 * beta * K * L
            + 3 * beta * 400 * K * L) / mpmath.sqrt(steps)


def _coef40_at(cfun):
    def holds(p):
        c = cfun(p)
        return eq40_coefficient(p["theta"], p["K"], p["d"], p["n"], p["eps"], p["delta"], p["batch"], p["m2"],
                                p["steps"], c) > 0
    return holds


def _theta_ok(p):
    return p["theta"] >= HALF


def _b1_c(case):
    return lambda p: _b1_case_c(case, p["theta"], p["K"], p["steps"], p["delta"])


def _b1_case_ok(case):
    def holds(p):
        if not _theta_ok(p) or not is_half(p["theta"]):
            return True
        return _case_holds(case, p["theta"], p["K"], p["steps"], p["delta"], p["m2"], p["d"], p["batch"], p["n"],
                           p["eps"])
    return holds


def _coef_guarded(cfun):
    inner = _coef40_at(cfun)
    return lambda p: (not _theta_ok(p)) or inner(p)


THETA_IS_HALF = Condition.of(spec.THETA_IS_HALF, lambda p: p["theta"] >= HALF and is_half(p["theta"]))
THETA_ABOVE_HALF = Condition.of(spec.THETA_ABOVE_HALF, lambda p: p["theta"] > HALF)
CASE_B_PARAMS = (P_THETA, P_K, P_BETA, P_LOSS_GAP, P_D, P_N_CASE_B, P_EPS_POS, P_DELTA, P_BATCH, P_M2, P_STEPS_REAL)
CASE_B_NOTE = ("Case ‖∇L_S(w_t)‖ ≥ c/2 (a trajectory property). A bound on (1/T)Σ‖∇L_S‖ only where the "
               "coefficient is positive: at the notes' §2 parameters (n = 5·10⁴, d = 10⁵, B = 256, ε = 4, m2 = 4) "
               "σ̂_dp ≈ 37c and it is negative for every c (the example takes n = 10¹²). ")

register(Statement(
    id="dc.thm_b1_eq40",
    fast="dpspec.fast.dc.convergence:eq40",
    source=Source(SEED, "Thm B.1, eq. (40)", "explicit bound of heavy-tailed DPSGD, case ‖∇L_S‖ ≥ c/2, any c"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="(1/T)Σ‖∇L_S‖ ≤ (ΔL + 2βm2 e dTc²B² log²(2/δ)/(n²ε²) + 2β√(e m2 T d)c²B log(2/δ)/(nε) + βc²/2)"
            " / ((c/3 − (19/3)K log^θ(2/δ) − 4√e σ̂_dp log^{1/2}(1/δ))√T)",
    params=CASE_B_PARAMS + (P_CLIP,),
    reference=eq40,
    conditions=(THETA_HALF_UP, DELTA_SMALL,
                Condition.of(spec.EQ40_COEFFICIENT_POSITIVE, _coef_guarded(lambda p: p["c"]))),
    monotone={"loss_gap": +1, "beta": +1},
    note=CASE_B_NOTE + "(41), (43), (45) are this at B.1's thresholds (dc.thm_b1_eq41/eq43/eq45).",
))

for _id, _fn, _printed, _case, _cond, _params, _num, _what in (
        ("dc.thm_b1_eq41", eq41, eq41_printed, "K_ge_sigma_hat", THETA_IS_HALF,
         (P_THETA_HALF,) + CASE_B_PARAMS[1:], "(41)", "θ = 1/2, K ≥ σ̂_dp"),
        ("dc.thm_b1_eq43", eq43, eq43_printed, "K_le_sigma_hat", THETA_IS_HALF,
         (P_THETA_HALF, P_K, P_BETA, P_LOSS_GAP, P_UNIT_D, P_N_E43, P_UNIT_EPS, P_DELTA_E43, P_UNIT_BATCH,
          P_UNIT_M2, P_STEPS_E43), "(43)", "θ = 1/2, K ≤ σ̂_dp"),
        ("dc.thm_b1_eq45", eq45, eq45_printed, None, THETA_ABOVE_HALF, CASE_B_PARAMS, "(45)", "θ > 1/2")):
    _conds = (_cond, DELTA_SMALL, Condition.of(spec.EQ40_COEFFICIENT_POSITIVE, _coef_guarded(_b1_c(_case))))
    if _case is not None:
        _conds += (Condition.of(spec.THRESHOLD_CASE_CONSISTENT, _b1_case_ok(_case)),)
    register(Statement(
        id=_id,
        source=Source(SEED, f"Thm B.1, eq. {_num}", f"explicit bound of heavy-tailed DPSGD, case ‖∇L_S‖ ≥ c/2, "
                      f"{_what}"),
        kind="utility",
        claim="upper",
        value=Value("number"),
        summary=f"(1/T)Σ‖∇L_S‖ ≤ (40) at B.1's threshold for {_what}",
        params=_params,
        reference=_fn,
        conditions=_conds,
        variants={"printed": Variant(_printed, f"{_num} as printed (divided by √T): not implied by (40) (E15: the "
                                     "coefficient it divides by, the dropped σ̂_dp and c factors)", is_bound=False,
                                     conditions=(_cond, DELTA_SMALL))},
        monotone={"loss_gap": +1, "beta": +1},
        note=CASE_B_NOTE + "Corrected = dc.thm_b1_eq40 at c = B.1's threshold for this case (dc.thm_b1)." + (
            " " + spec.EQ43_EXAMPLE_NOTE + "." if _id.endswith("eq43") else ""),
    ))


# ---------------------------------------------------------------------------------------------------------------
# case B of Thm E.1: (86)–(96)


def _deviation(region, theta, K):
    """The bound on ‖g_t − ∇L_S‖ the coefficient of (86)/(87) carries, from (82)/(83): √(2a)K (body; the print has
    aK) or 4^θK (tail), times log^{1/2}(2/δ) (body) or log^θ(2/δ) (tail)."""
    return mpmath.sqrt(2 * a_theta(theta)) * K if region == "body" else mpmath.power(4, theta) * K


def eq86_coefficient(region, theta, K, d, n, eps, delta, batch, m2, steps, c, printed=False):
    """c/3 − (16/3)X log^{1/2 or θ}(2/δ) − 4√e σ̂_dp log^{1/2}(1/δ), X = √(2a)K (body) or 4^θK (tail) as (84)/(85)
    derive, X = aK as (86)/(87) print (seed 004 L1498, L1508)."""
    p = HALF if region == "body" else theta
    x = a_theta(theta) * K if printed else _deviation(region, theta, K)
    s = sigma_hat_ratio(m2, steps, d, batch, n, eps, delta)
    return c / 3 - mpf(16) / 3 * x * lpow(2 / delta, p) - 4 * mpmath.sqrt(E) * s * c * mpmath.sqrt(mpmath.log(1 / delta))


def _eq86(region, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G, c, printed=False):
    coef = eq86_coefficient(region, theta, K, d, n, eps, delta, batch, m2, steps, c, printed)
    if coef <= 0:
        return mpmath.inf
    p = HALF if region == "body" else theta
    if printed or region == "body":  # (86)/(87) print √(2a)KG·√(Σ η_t²)·log^{1/2 or θ}(1/δ); (84) body: the same
        g_term = mpmath.sqrt(2 * a_theta(theta)) * K * G * lpow(1 / delta, p)
    else:  # (85): (4^θKG/T)Σ_t η_t log^θ(1/δ) = 4^θKG log^θ(1/δ)/√T
        g_term = mpmath.power(4, theta) * K * G * lpow(1 / delta, theta) / mpmath.sqrt(steps)
    rhs = loss_gap + _case_b_bracket(beta, d, n, eps, delta, batch, m2, steps, c) + g_term
    return rhs / (coef * mpmath.sqrt(steps))


@_strings_as_mpf
@self_checked
def eq86(region, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G, c):
    """Eqs. (86) (light body) / (87) (heavy tail) of Thm E.1's proof (seed 004 L1498–L1512; notes §2 Thm E.1),
    divided by the coefficient and √T: (1/T)Σ‖∇L_S‖ ≤ (ΔL + [bracket of (40)] + G-term)/(coef·√T), with the
    coefficient and G-term as (84)/(85) derive them: body √(2a)K log^{1/2}(2/δ) and √(2a)KG log^{1/2}(1/δ); tail
    4^θK log^θ(2/δ) and 4^θKG log^θ(1/δ)/√T. +inf where the coefficient is ≤ 0."""
    return _eq86(region, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G, c)


@self_checked
def eq86_printed(region, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G, c):
    """(86)/(87) as printed: (16/3)aK in the coefficient, √(2a)KG log^{1/2 or θ}(1/δ) (looser than (84)/(85):
    a ≥ √(2a) and a ≥ 4^θ for θ ≥ 1/2)."""
    return _eq86(region, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G, c, printed=True)


E1_CASE_B_PARAMS = (P_THETA, P_K, P_BETA, P_LOSS_GAP, P_D, P_N_CASE_B, P_EPS_POS, P_DELTA, P_BATCH, P_M2, P_STEPS_REAL,
                    P_G)

register(Statement(
    id="dc.thm_e1_eq86",
    source=Source(SEED, "Thm E.1, eqs. (86)/(87)", "explicit bound of DC-DPSGD, case ‖∇L_S‖ ≥ c/2, any c"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="(1/T)Σ‖∇L_S‖ ≤ (ΔL + [bracket of (40)] + G-term)/((c/3 − (16/3)X log^{1/2 or θ}(2/δ) − 4√e σ̂_dp "
            "log^{1/2}(1/δ))√T), X = √(2a)K (body), 4^θK (tail)",
    params=(P_REGION,) + E1_CASE_B_PARAMS + (P_CLIP,),
    reference=eq86,
    conditions=(THETA_HALF_UP, DELTA_SMALL,
                Condition.of(spec.EQ86_COEFFICIENT_POSITIVE, lambda p: (not _theta_ok(p)) or eq86_coefficient(
                    p["region"], p["theta"], p["K"], p["d"], p["n"], p["eps"], p["delta"], p["batch"], p["m2"],
                    p["steps"], p["c"]) > 0)),
    variants={"printed": Variant(eq86_printed, "(86)/(87) as printed: (16/3)aK and √(2a)KG log^{1/2 or θ}(1/δ), "
                                 "looser than (84)/(85) derive", is_bound=True,
                                 conditions=(THETA_HALF_UP, DELTA_SMALL, Condition.of(
                                     spec.EQ86_COEFFICIENT_POSITIVE, lambda p: (not _theta_ok(p)) or eq86_coefficient(
                                         p["region"], p["theta"], p["K"], p["d"], p["n"], p["eps"], p["delta"],
                                         p["batch"], p["m2"], p["steps"], p["c"], printed=True) > 0)))},
    monotone={"loss_gap": +1, "beta": +1, "G": +1},
    note=CASE_B_NOTE + "G enters as a bound on ‖∇L_S‖ (m_t = η_tKG, (75)), where Assumption 3.3 bounds ‖∇L‖² by G "
         "(E16). (88)–(96) are this at E.1's thresholds.",
))


def _e1_sub_c(sub, theta, K, steps, delta):
    """The c of (88)–(96) (E.1's thresholds, L1514–L1620): (88)/(92): 33√(2a)K log^{1/2}(2/δ) with the T-part;
    (90)/(94): the K ≤ σ̂ threshold; (96): max(4^θ2K log^θ(√T), 17K log^θ(2/δ))."""
    from .thresholds import _candidate

    if sub in ("eq88", "eq92"):
        return _candidate("thm_e1_c2" if sub == "eq88" else "thm_e1_c1", theta, K, steps, delta, "K_ge_sigma_hat")
    if sub in ("eq90", "eq94"):
        return _candidate("thm_e1_c2" if sub == "eq90" else "thm_e1_c1", theta, K, steps, delta, "K_le_sigma_hat")
    return _candidate("thm_e1_c1", theta, K, steps, delta, None)


_E1_REGION = {"eq88": "body", "eq90": "body", "eq92": "tail", "eq94": "tail", "eq96": "tail"}
_E1_CASE = {"eq88": "K_ge_sigma_hat", "eq90": "K_le_sigma_hat", "eq92": "K_ge_sigma_hat", "eq94": "K_le_sigma_hat",
            "eq96": None}


def _e1_sub(sub, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G):
    c = _e1_sub_c(sub, theta, K, steps, delta)
    return _eq86(_E1_REGION[sub], theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G, c)


def _e1_sub_printed(sub, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G):
    """(88)/(92), (90)/(94), (96) as printed (seed 004 L1514–L1620; notes §2), divided by √T."""
    a = a_theta(theta)
    s2a = mpmath.sqrt(2 * a)
    L2, L1 = mpmath.sqrt(mpmath.log(2 / delta)), mpmath.sqrt(mpmath.log(1 / delta))
    if sub in ("eq88", "eq92"):
        v = (3 * loss_gap / (s2a * K * L2) + 3 * G * L1 / L2 + 6 * beta * E * a ** 2 * K * L2 / s2a
             + 6 * beta * mpmath.sqrt(E) + 3 * beta * mpf(33) ** 2 * s2a * K * L2 / 2)
    elif sub in ("eq90", "eq94"):
        c = _e1_sub_c(sub, theta, K, steps, delta)
        sh = c * sigma_hat_ratio(m2, steps, d, batch, n, eps, delta)
        v = (loss_gap / (mpmath.sqrt(E) * sh * L2) + s2a * K * G / (mpmath.sqrt(E) * sh) + 2 * beta * E * K * L2
             + 2 * beta * mpmath.sqrt(E) * L2 + beta * mpf(27) ** 2 / 2 * K * L2)
    else:
        Lt = lpow(2 / delta, theta)
        v = (3 * loss_gap / (s2a * K * Lt) + 3 * G + mpf(16) ** 2 / 24 * beta * K * Lt + 136 * beta * K * Lt
             + 3 * beta * 289 * K * Lt)
    return v / mpmath.sqrt(steps)


def _make_e1(sub):
    @self_checked
    def corrected(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G):
        return _e1_sub(sub, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G)

    @self_checked
    def printed(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G):
        return _e1_sub_printed(sub, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, G)

    corrected.__name__ = corrected.__qualname__ = sub
    printed.__name__ = printed.__qualname__ = sub + "_printed"
    corrected.__doc__ = (f"({sub[2:]}) of Thm E.1's proof (seed 004 L1514–L1620; notes §2 Thm E.1), corrected: "
                         f"(86)/(87) as derived ({_E1_REGION[sub]} region) at E.1's threshold for this case.")
    printed.__doc__ = f"({sub[2:]}) as printed, divided by √T (seed 004 L1514–L1620)."
    return corrected, printed


def _e1_coef_ok(sub):
    def holds(p):
        if not _theta_ok(p):
            return True
        c = _e1_sub_c(sub, p["theta"], p["K"], p["steps"], p["delta"])
        return eq86_coefficient(_E1_REGION[sub], p["theta"], p["K"], p["d"], p["n"], p["eps"], p["delta"],
                                p["batch"], p["m2"], p["steps"], c) > 0
    return holds


def _e1_case_ok(sub):
    th = "thm_e1_c2" if _E1_REGION[sub] == "body" else "thm_e1_c1"

    def holds(p):
        if not _theta_ok(p):
            return True
        return resolve_case(th, p["theta"], p["K"], p["steps"], p["delta"], _E1_CASE[sub], p["m2"], p["d"],
                            p["batch"], p["n"], p["eps"])[2]
    return holds


eq88, eq88_printed = _make_e1("eq88")
eq90, eq90_printed = _make_e1("eq90")
eq92, eq92_printed = _make_e1("eq92")
eq94, eq94_printed = _make_e1("eq94")
eq96, eq96_printed = _make_e1("eq96")

_E1_WHAT = {"eq88": "light body, K ≥ σ̂_dp", "eq90": "light body, K ≤ σ̂_dp", "eq92": "heavy tail, θ = 1/2, K ≥ σ̂_dp",
            "eq94": "heavy tail, θ = 1/2, K ≤ σ̂_dp", "eq96": "heavy tail, θ > 1/2"}
for _sub, (_fn, _pr) in {"eq88": (eq88, eq88_printed), "eq90": (eq90, eq90_printed), "eq92": (eq92, eq92_printed),
                         "eq94": (eq94, eq94_printed), "eq96": (eq96, eq96_printed)}.items():
    _theta_cond = {"eq92": THETA_IS_HALF, "eq94": THETA_IS_HALF, "eq96": THETA_ABOVE_HALF}.get(_sub, THETA_HALF_UP)
    _conds = (_theta_cond, DELTA_SMALL, Condition.of(spec.EQ86_COEFFICIENT_POSITIVE, _e1_coef_ok(_sub)))
    if _E1_CASE[_sub] is not None:
        _conds += (Condition.of(spec.THRESHOLD_CASE_CONSISTENT, _e1_case_ok(_sub)),)
    _params = E1_CASE_B_PARAMS
    if _sub in ("eq92", "eq94"):
        _params = (P_THETA_HALF,) + E1_CASE_B_PARAMS[1:]
    if _sub in ("eq90", "eq94"):  # K ≤ σ̂_dp with a positive coefficient: an absurd corner (as for (43))
        _params = (P_THETA_HALF, P_K, P_BETA, P_LOSS_GAP, P_UNIT_D, P_N_E90, P_UNIT_EPS, P_DELTA_E43, P_UNIT_BATCH,
                   P_UNIT_M2, P_STEPS_E90, P_G)
    if _sub == "eq96":  # the T-part of c must dominate 16·4^θK log^θ(2/δ)
        _params = (P_THETA, P_K, P_BETA, P_LOSS_GAP, P_D, P_N_CASE_B, P_EPS_POS, P_DELTA_E43, P_BATCH, P_M2,
                   P_STEPS_E96, P_G)
    register(Statement(
        id=f"dc.thm_e1_{_sub}",
        source=Source(SEED, f"Thm E.1, eq. ({_sub[2:]})", f"explicit bound of DC-DPSGD, case ‖∇L_S‖ ≥ c/2, "
                      f"{_E1_WHAT[_sub]}"),
        kind="utility",
        claim="upper",
        value=Value("number"),
        summary=f"(1/T)Σ‖∇L_S‖ ≤ (86)/(87) at E.1's threshold for {_E1_WHAT[_sub]}",
        params=_params,
        reference=_fn,
        conditions=_conds,
        variants={"printed": Variant(_pr, f"({_sub[2:]}) as printed (divided by √T): not implied by (86)/(87) "
                                     "(the coefficient it divides by; dropped σ̂_dp terms; E15, E16)",
                                     is_bound=False, conditions=(_theta_cond, DELTA_SMALL))},
        monotone={"loss_gap": +1, "beta": +1, "G": +1},
        note=CASE_B_NOTE + "Corrected = dc.thm_e1_eq86 at the threshold of this case (dc.thm_e1). (92)/(94) print the "
             "same closed forms as (88)/(90) for the heavy tail at θ = 1/2." + (
                 " " + spec.EQ90_EXAMPLE_NOTE + "." if _sub in ("eq90", "eq94") else "") + (
                 " (96) divides by (1/3)K log^θ(2/δ), but (85) gives the coefficient c/3 − (16/3)4^θK log^θ(2/δ) − …:"
                 " at c = 17K log^θ(2/δ) it is negative (E15)." if _sub == "eq96" else ""),
    ))
