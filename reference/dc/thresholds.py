"""Clipping thresholds of the convergence theorems of seed 004 (DC-DPSGD, arXiv 2405.17529v1): Thm 4.1 (L155–L157),
Thm B.1 (L694–L700, restated L883–L885), Thm 5.3 (L226–L242), Thm E.1 (L1148–L1160, restated L1643–L1647 and
L1740–L1745 for F.1), the E9 crossover and the E21 log-base arithmetic; notes shared/notes/dc-dpsgd.md §2 (Thm 4.1,
B.1, 5.3/E.1, 5.4/F.1), §5.6 (threshold table), §6 E9, E10, E15, E21.

Notation: L(x) := log x (natural, the proofs'); T may be real (the theory's T = nε/√(d log(1/δ)), L694);
σ̂_dp² := m2·T·d·c²·B²·log(1/δ)/(n²ε²) (L694, L833: σ̂_dp = √d·c·σ_dp with Thm 5.1's σ_dp² = m2 T q² log(1/δ)/ε²,
q = B/n). a(θ) is Lemma A.3's constant (reference/dc/subweibull.py: freedman_a, branch boundaries exact, E10).

The θ = 1/2 case split "K ≤ σ̂_dp / K ≥ σ̂_dp" (and E.1's c2 split at every θ) is circular (E15): σ̂_dp ∝ c, yet it
selects c. It is implemented as the text reads: σ̂_dp is evaluated at the candidate c of each case, and a case is
taken only if its hypothesis holds there (``resolve_case``). With ``case="auto"`` the K ≥ σ̂ branch (the one the
main text keeps) is tried first; when neither case is self-consistent (K strictly between σ̂(c_le) and σ̂(c_ge))
the statement is outside its conditions (spec.THRESHOLD_CASE_CONSISTENT).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Condition, Source, Statement, Value, Variant, register
from ..errors import ConditionError, DomainError, ParameterError
from ..precision import self_checked, to_mpf
from . import spec
from .spec import (P_BATCH, P_CASE, P_D, P_DELTA, P_EPS_POS, P_K, P_M2, P_N, P_STEPS_REAL, P_THETA, P_WHICH,
                   SEED)

THEOREMS = spec.THRESHOLD_THEOREMS
CASES = ("K_ge_sigma_hat", "K_le_sigma_hat")
_STATEMENT_OF = {"thm4_1": "dc.thm_b1", "thm_b1": "dc.thm_b1", "thm5_3_c1": "dc.thm5_3", "thm5_3_c2": "dc.thm5_3",
                 "thm_e1_c1": "dc.thm_e1", "thm_e1_c2": "dc.thm_e1", "thm_e1_c2_end": "dc.thm_e1",
                 "thm_f1_c1": "dc.thm_e1", "thm_f1_c2": "dc.thm_e1"}


# ---------------------------------------------------------------------------------------------------------------
# small pieces shared with convergence.py and rates.py


def is_half(theta) -> bool:
    """θ = 1/2 exactly (the branch boundary of Lemma A.3 and of every case split; E10)."""
    from .subweibull import freedman_case

    return freedman_case(theta) == "half"


def a_theta(theta):
    """a(θ) of Lemma A.3 / Thm 5.3 (L234): helper A's freedman_a (reference/dc/subweibull.py), θ ≥ 1/2."""
    from .subweibull import freedman_a

    return freedman_a(theta)


def lpow(x, p):
    """log(x)^p for x ≥ 1 (0 at x = 1; the natural log of the proofs)."""
    lx = mpmath.log(x)
    if lx == 0:
        return mpf(0)
    return mpmath.exp(p * mpmath.log(lx))


def lpow_sqrt(steps, p):
    """log(√T)^p = (log(T)/2)^p, without rounding √T first (T near 1: log √T is tiny and the power amplifies the
    rounding of √T)."""
    lx = mpmath.log(steps) / 2
    if lx == 0:
        return mpf(0)
    return mpmath.exp(p * mpmath.log(lx))


def hat_log(x, theta):
    """\\hat{log}(x) := log^{max(0, θ−1)}(x) (Table 1 caption, L141; Thm B.1)."""
    return lpow(x, max(mpf(0), to_mpf(theta) - 1))


def sigma_hat_ratio(m2, steps, d, batch, n, eps, delta):
    """σ̂_dp / c = √(m2·T·d·B²·log(1/δ))/(nε) (Thm B.1 L694; L833: σ̂_dp = √d·c·σ_dp, σ_dp from Thm 5.1)."""
    return mpmath.sqrt(m2 * steps * d * mpmath.log(1 / delta)) * batch / (n * eps)


@self_checked
def sigma_hat_dp(c, m2, steps, d, batch, n, eps, delta):
    """σ̂_dp = √(m2·T·d·c²·B²·log(1/δ))/(nε) (seed 004, Thm B.1 L694 and L833; Thm E.1 L1148): the ℓ2 scale of the
    Gaussian privacy noise ζ_t ~ N(0, c²σ_dp² I_d) with Thm 5.1's σ_dp² = m2·T·q²·log(1/δ)/ε², q = B/n."""
    return c * sigma_hat_ratio(m2, steps, d, batch, n, eps, delta)


def _check(theta, K, steps, delta, theorem):
    if theorem not in THEOREMS:
        raise ParameterError(f"theorem={theorem!r}: expected one of {', '.join(THEOREMS)}")
    theta = spec.THETA.check("theta", to_mpf(theta))
    K = spec.POSITIVE.check("K", to_mpf(K))
    steps = spec.STEPS_REAL.check("steps", to_mpf(steps))
    delta = spec.PROB_OPEN.check("delta", to_mpf(delta))
    if theta < mpf(1) / 2:
        raise ConditionError(_STATEMENT_OF[theorem], [spec.THETA_AT_LEAST_HALF.describe()])
    return theta, K, steps, delta


def split_applies(theorem, theta) -> bool:
    """Whether the text splits ``theorem``'s threshold on K ≤ σ̂_dp / K ≥ σ̂_dp at this θ: B.1, E.1's c1 and the
    restated c2 at θ = 1/2; E.1's stated c2 (L1158–L1160) at every θ."""
    if theorem == "thm_e1_c2":
        return True
    return theorem in ("thm_b1", "thm_e1_c1", "thm_e1_c2_end") and is_half(theta)


def _candidate(theorem, theta, K, steps, delta, case):
    """The threshold of ``theorem`` in ``case`` (case read only where the text splits), all logs natural."""
    L1, L2 = mpf(1) / delta, mpf(2) / delta
    half = mpf(1) / 2
    four_t = mpmath.power(4, theta)
    if theorem == "thm4_1":  # Thm 4.1 (L155): max(4K log^θ(√T), 39K log^θ(2/δ))
        return max(4 * K * lpow_sqrt(steps, theta), 39 * K * lpow(L2, theta))
    if theorem == "thm_b1":  # Thm B.1 (L694–L696, L883–L885)
        t_part = 4 * K * lpow_sqrt(steps, theta)
        if not is_half(theta):
            return max(t_part, 20 * K * lpow(L2, theta))
        if case == "K_le_sigma_hat":
            return max(t_part, 19 * K * lpow(L1, half) / 12)
        return max(t_part, 39 * K * lpow(L2, half))
    if theorem == "thm5_3_c1":  # Thm 5.3(i) (L236): max(4^θ 2K log^θ(√T), 4^θ 33K log^θ(2/δ))
        return max(four_t * 2 * K * lpow_sqrt(steps, theta), four_t * 33 * K * lpow(L2, theta))
    s2a = mpmath.sqrt(2 * a_theta(theta))
    if theorem == "thm5_3_c2":  # Thm 5.3(ii) (L240): max(2√(2a)K log^{1/2}(√T), 33√(2a)K log^{1/2}(2/δ))
        return max(2 * s2a * K * lpow_sqrt(steps, half), 33 * s2a * K * lpow(L2, half))
    a = a_theta(theta)
    if theorem == "thm_e1_c1":  # Thm E.1(i) (1)–(3) (L1154–L1156)
        if not is_half(theta):
            return max(four_t * 2 * K * lpow_sqrt(steps, theta), 17 * K * lpow(L2, theta))
        if case == "K_le_sigma_hat":
            return max(4 * K * lpow_sqrt(steps, half), 16 * a * K * lpow(L1, half) / 12)
        return max(4 * K * lpow_sqrt(steps, half), 33 * s2a * K * lpow(L2, half))
    if theorem == "thm_e1_c2":  # Thm E.1(ii) (1)–(2) (L1158–L1160), every θ
        if case == "K_le_sigma_hat":
            return max(2 * s2a * K * lpow_sqrt(steps, half), 16 * a * K * lpow(L1, half) / 12)
        return max(2 * s2a * K * lpow_sqrt(steps, half), 33 * s2a * K * lpow(L2, half))
    if theorem == "thm_e1_c2_end":  # end of E.1's proof (L1643–L1647): log^θ(√T) in the T-part, 17K for θ > 1/2
        t_part = 2 * s2a * K * lpow_sqrt(steps, theta)
        if not is_half(theta):
            return max(t_part, 17 * K * lpow(L2, theta))
        if case == "K_le_sigma_hat":
            return max(t_part, 16 * a * K * lpow(L1, half) / 12)
        return max(t_part, 33 * s2a * K * lpow(L2, half))
    if theorem == "thm_f1_c1":  # F.1 (L1745), the c of (68): 4^θ 2K log^θ(√T)
        return four_t * 2 * K * lpow_sqrt(steps, theta)
    return 2 * s2a * K * lpow_sqrt(steps, half)  # thm_f1_c2: F.1 (L1745), the c of (67): 2√(2a)K log^{1/2}(√T)


def resolve_case(theorem, theta, K, steps, delta, case, m2, d, batch, n, eps):
    """(case, c, consistent): the case the text's split selects and its threshold. ``case`` "auto" tries K ≥ σ̂_dp
    at its own c, then K ≤ σ̂_dp at its own c (σ̂_dp evaluated at the candidate c: the text's circular rule, E15);
    ``consistent`` is False when the named (or, for auto, either) case fails at its own c; auto then returns the
    K ≥ σ̂ branch. Where the text does not split, (None, c, True)."""
    if not split_applies(theorem, theta):
        return None, _candidate(theorem, theta, K, steps, delta, None), True
    if case not in ("auto", None, *CASES):
        raise DomainError("case", case, spec.THRESHOLD_CASE.describe())
    if any(v is None for v in (m2, d, batch, n, eps)):
        if case in CASES:  # the caller names the case; nothing to check it against
            return case, _candidate(theorem, theta, K, steps, delta, case), True
        raise ParameterError(f"{theorem} at θ = {mpmath.nstr(theta, 6)} splits on K vs σ̂_dp: give case="
                             f"'K_ge_sigma_hat' or 'K_le_sigma_hat', or m2, d, batch, n, eps to evaluate σ̂_dp")
    ratio = sigma_hat_ratio(to_mpf(m2), steps, to_mpf(d), to_mpf(batch), to_mpf(n), to_mpf(eps), delta)
    c_ge = _candidate(theorem, theta, K, steps, delta, "K_ge_sigma_hat")
    c_le = _candidate(theorem, theta, K, steps, delta, "K_le_sigma_hat")
    ge_ok, le_ok = K >= ratio * c_ge, K <= ratio * c_le
    if case == "K_ge_sigma_hat":
        return case, c_ge, ge_ok
    if case == "K_le_sigma_hat":
        return case, c_le, le_ok
    if ge_ok:
        return "K_ge_sigma_hat", c_ge, True
    if le_ok:
        return "K_le_sigma_hat", c_le, True
    return "K_ge_sigma_hat", c_ge, False


@self_checked
def threshold_c(theorem, theta, K, steps, delta, case=None, *, m2=None, d=None, batch=None, n=None, eps=None):
    """The clipping threshold that ``theorem`` prescribes (seed 004; notes §2, §5.6), natural logs, real T ≥ 1:

    - "thm4_1": Thm 4.1 (L155) max(4K log^θ(√T), 39K log^θ(2/δ));
    - "thm_b1": Thm B.1 (L694–L696): θ = 1/2, K ≤ σ̂: max(4K log^θ(√T), 19K log^{1/2}(1/δ)/12); θ = 1/2, K ≥ σ̂:
      max(4K log^θ(√T), 39K log^{1/2}(2/δ)); θ > 1/2: max(4K log^θ(√T), 20K log^θ(2/δ));
    - "thm5_3_c1" / "thm5_3_c2": Thm 5.3 (L236, L240) max(4^θ2K log^θ(√T), 4^θ33K log^θ(2/δ)) and
      max(2√(2a)K log^{1/2}(√T), 33√(2a)K log^{1/2}(2/δ));
    - "thm_e1_c1": Thm E.1(i) (L1154–L1156): θ = 1/2: max(4K log^{1/2}(√T), 16aK log^{1/2}(1/δ)/12) (K ≤ σ̂) or
      max(4K log^{1/2}(√T), 33√(2a)K log^{1/2}(2/δ)) (K ≥ σ̂); θ > 1/2: max(4^θ2K log^θ(√T), 17K log^θ(2/δ));
    - "thm_e1_c2": Thm E.1(ii) (L1158–L1160), at every θ: max(2√(2a)K log^{1/2}(√T), 16aK log^{1/2}(1/δ)/12)
      (K ≤ σ̂) or max(2√(2a)K log^{1/2}(√T), 33√(2a)K log^{1/2}(2/δ)) (K ≥ σ̂);
    - "thm_e1_c2_end": the restatement ending E.1's proof (L1643–L1647): 2√(2a)K log^θ(√T) in the T-part and
      17K log^θ(2/δ) for θ > 1/2;
    - "thm_f1_c1" / "thm_f1_c2": the T-parts used by (67)/(68) and (102) (L1711, L1727, L1745): 4^θ2K log^θ(√T)
      and 2√(2a)K log^{1/2}(√T).

    Where the text splits on K vs σ̂_dp, ``case`` names the case, or (None/"auto") σ̂_dp is evaluated at each
    candidate c from m2, d, batch, n, eps (:func:`resolve_case`, E15); a case that fails at its own c raises
    ConditionError (spec.THRESHOLD_CASE_CONSISTENT)."""
    theta, K, steps, delta = _check(theta, K, steps, delta, theorem)
    chosen, c, ok = resolve_case(theorem, theta, K, steps, delta, case, m2, d, batch, n, eps)
    if not ok:
        raise ConditionError(_STATEMENT_OF[theorem], [spec.THRESHOLD_CASE_CONSISTENT.describe()])
    return c


# ---------------------------------------------------------------------------------------------------------------
# E9 and E21


@self_checked
def body_beats_dpsgd_log_T(theta):
    """log T above which the light-body threshold's square c2² = 8aK² log(√T) (F.1's c2, the c of (67)) is below plain
    DPSGD's c² = 16K² log^{2θ}(√T) (the c of (28)): log^{2θ−1}(√T) > a/2, i.e. log T > 2(a/2)^{1/(2θ−1)} (notes §6
    E9; seed 004 L1727 vs L1088). θ > 1/2 (at θ = 1/2 the two coincide: never strictly better)."""
    theta = spec.THETA.check("theta", to_mpf(theta))
    if theta <= mpf(1) / 2:
        raise ConditionError("dc.thm_e1", [spec.THETA_ABOVE_HALF.describe()])
    return 2 * mpmath.exp(mpmath.log(a_theta(theta) / 2) / (2 * theta - 1))


@self_checked
def body_beats_dpsgd_T(theta):
    """The crossover T of notes §6 E9: the DC-DPSGD body bound's threshold beats plain DPSGD's only for T above this
    (e^{118.2} ≈ 2.2·10⁵¹ at θ = 1, 5.9·10¹³ at θ = 1.5, 2.7·10¹⁷ at θ = 2, e^{737} at θ = 0.75). mpf (no overflow:
    mpmath exponents are unbounded); see :func:`body_beats_dpsgd_log_T`."""
    return mpmath.exp(body_beats_dpsgd_log_T(theta))


@self_checked
def c1_over_c2(delta, base, theta=2):
    """The §6.3 guidance c1/c2 = log^θ(1/δ)/log^{1/2}(1/δ) = log_b^{θ−1/2}(1/δ) in log base b (seed 004 L304: c1 =
    O(log^θ(1/δ)), c2 = O(log^{1/2}(1/δ)), θ ≈ 2): at δ = 10⁻⁵ it is 11.18 with log10 (the text's "≈ 10"), 39.06 with
    the natural log the proofs use, 67.69 with log2 (notes §5.6, §6 E21). ``base``: a positive number ≠ 1, or "e"."""
    delta = spec.PROB_OPEN.check("delta", to_mpf(delta))
    b = mpmath.e if isinstance(base, str) and base.strip().lower() == "e" else to_mpf(base)
    if not (b > 0) or b == 1 or not mpmath.isfinite(b):
        raise DomainError("base", base, "a positive number ≠ 1, or 'e'")
    theta = spec.THETA.check("theta", to_mpf(theta))
    lb = mpmath.log(1 / delta) / mpmath.log(b)
    if lb <= 0:
        raise DomainError("base", base, "a base > 1 (log_b(1/δ) > 0)")
    return mpmath.exp((theta - mpf(1) / 2) * mpmath.log(lb))


# ---------------------------------------------------------------------------------------------------------------
# statements


def _case_consistent(theorem):
    def holds(p):
        if p["theta"] < mpf(1) / 2:
            return True  # reported by theta_at_least_half
        return resolve_case(theorem, p["theta"], p["K"], p["steps"], p["delta"], p.get("case", "auto"), p["m2"],
                            p["d"], p["batch"], p["n"], p["eps"])[2]
    return holds


def _e1_theorem(which):
    return "thm_e1_c1" if which == "c1" else "thm_e1_c2"


def _e1_case_consistent(p):
    if p["theta"] < mpf(1) / 2:
        return True
    return resolve_case(_e1_theorem(p["which"]), p["theta"], p["K"], p["steps"], p["delta"], p["case"], p["m2"],
                        p["d"], p["batch"], p["n"], p["eps"])[2]


def _e1_end_case_consistent(p):
    if p["theta"] < mpf(1) / 2:
        return True
    th = "thm_e1_c1" if p["which"] == "c1" else "thm_e1_c2_end"
    return resolve_case(th, p["theta"], p["K"], p["steps"], p["delta"], p["case"], p["m2"], p["d"], p["batch"],
                        p["n"], p["eps"])[2]


THETA_HALF_UP = Condition.of(spec.THETA_AT_LEAST_HALF, lambda p: p["theta"] >= mpf(1) / 2)


def _resolved(theorem, theta, K, steps, delta, case, m2, d, batch, n, eps):
    return resolve_case(theorem, theta, K, steps, delta, case, m2, d, batch, n, eps)[1]


@self_checked
def thm_b1(theta, K, steps, delta, m2, d, batch, n, eps, case="auto"):
    """Thm B.1's clipping threshold c (seed 004 L694–L696; notes §2 Thm B.1, §5.6): θ = 1/2 and K ≤ σ̂_dp:
    max(4K log^θ(√T), 19K log^{1/2}(1/δ)/12); θ = 1/2 and K ≥ σ̂_dp: max(4K log^θ(√T), 39K log^{1/2}(2/δ)); θ > 1/2:
    max(4K log^θ(√T), 20K log^θ(2/δ)); the case at θ = 1/2 by σ̂_dp at the candidate c (E15)."""
    return _resolved("thm_b1", theta, K, steps, delta, case, m2, d, batch, n, eps)


@self_checked
def thm4_1_threshold(theta, K, steps, delta, m2, d, batch, n, eps, case="auto"):
    """Thm 4.1's (main text) c = max(4K log^θ(√T), 39K log^θ(2/δ)) (seed 004 L155); no case split (E15: 39 vs B.1's
    20 for θ > 1/2)."""
    return _candidate("thm4_1", theta, K, steps, delta, None)


register(Statement(
    id="dc.thm_b1",
    fast="dpspec.fast.dc.convergence:thm_b1",
    source=Source(SEED, "Thm B.1 (threshold c)", "the clipping threshold of heavy-tailed DPSGD, per case"),
    kind="utility",
    claim="exact",
    value=Value("number"),
    summary="c = max(4K log^θ√T, 39K log^{1/2}(2/δ)) (θ = 1/2, K ≥ σ̂), max(4K log^θ√T, 19K log^{1/2}(1/δ)/12) "
            "(θ = 1/2, K ≤ σ̂), max(4K log^θ√T, 20K log^θ(2/δ)) (θ > 1/2)",
    params=(P_THETA, P_K, P_STEPS_REAL, P_DELTA, P_M2, P_D, P_BATCH, P_N, P_EPS_POS, P_CASE),
    reference=thm_b1,
    conditions=(THETA_HALF_UP, Condition.of(spec.THRESHOLD_CASE_CONSISTENT, _case_consistent("thm_b1"))),
    variants={"main_text": Variant(thm4_1_threshold, "Thm 4.1's (main text, L155) c = max(4K log^θ(√T), "
                                   "39K log^θ(2/δ)), no case split", conditions=(THETA_HALF_UP,))},
    monotone={"K": +1},
    note="A threshold, not a bound: the value the theorem prescribes (exact). The convergence statement itself is "
         "O-only (dc.thm4_1 registers its rate with an explicit constant); the explicit inequalities of its proof "
         "are dc.thm_b1_eq28 (case ‖∇L_S‖ ≤ c/2) and dc.thm_b1_eq40/eq41/eq43/eq45 (case ≥ c/2). The θ = 1/2 split "
         "is circular (σ̂_dp ∝ c; notes §6 E15): σ̂_dp is evaluated at each candidate c and a case is used only "
         "where its hypothesis holds there (case='auto' tries K ≥ σ̂ first). Monotone in K only: at θ = 1/2 the "
         "case (hence c) can switch with T, δ, m2, d, B, n, ε. Test vectors: notes §5.6 table (Thm 4.1 c, B.1 c).",
))


@self_checked
def thm5_3(theta, K, steps, delta, which):
    """Thm 5.3's thresholds (seed 004 L236, L240; notes §2 Thm 5.3, §5.6): c1 = max(4^θ·2K log^θ(√T),
    4^θ·33K log^θ(2/δ)) (heavy tail), c2 = max(2√(2a)K log^{1/2}(√T), 33√(2a)K log^{1/2}(2/δ)) (light body), a = a(θ)
    of Lemma A.3."""
    return _candidate("thm5_3_c1" if which == "c1" else "thm5_3_c2", theta, K, steps, delta, None)


register(Statement(
    id="dc.thm5_3",
    fast="dpspec.fast.dc.convergence:thm5_3",
    source=Source(SEED, "Thm 5.3 (thresholds c1, c2)", "the discriminative clipping thresholds of the main text"),
    kind="utility",
    claim="exact",
    value=Value("number"),
    summary="c1 = max(4^θ2K log^θ√T, 4^θ33K log^θ(2/δ)), c2 = max(2√(2a)K log^{1/2}√T, 33√(2a)K log^{1/2}(2/δ))",
    params=(P_THETA, P_K, P_STEPS_REAL, P_DELTA, P_WHICH),
    reference=thm5_3,
    conditions=(THETA_HALF_UP,),
    monotone={"K": +1, "steps": +1, "delta": -1},
    note="Thresholds, not bounds. The appendix version (Thm E.1, dc.thm_e1) differs: c1's δ-part is 17K log^θ(2/δ) "
         "for θ > 1/2 (vs 4^θ·33K here), so c1/c2 is 3.79 here but 0.122 in E.1 at θ = 2, T = 18750 (notes §5.6, "
         "E15). At θ = 1/2, c1 = c2 (a = 2). The O-rates of Thm 5.3 are dc.table1 (rows our_*) and dc.thm5_4; the "
         "explicit inequalities are dc.thm_e1_eq67/eq68 and dc.thm_e1_eq86 ... eq96.",
))


@self_checked
def thm_e1(theta, K, steps, delta, which, m2, d, batch, n, eps, case="auto"):
    """Thm E.1's thresholds (seed 004 L1154–L1160; notes §2 Thm E.1, §5.6): c1 per (1)–(3), c2 per (ii)(1)–(2) (the
    K vs σ̂_dp split at every θ for c2), via :func:`resolve_case`."""
    return _resolved(_e1_theorem(which), theta, K, steps, delta, case, m2, d, batch, n, eps)


@self_checked
def thm_e1_end(theta, K, steps, delta, which, m2, d, batch, n, eps, case="auto"):
    """The thresholds restated at the end of E.1's proof (seed 004 L1640–L1647): c1 as E.1(i); c2 =
    max(2√(2a)K log^θ(√T), ·) with 17K log^θ(2/δ) for θ > 1/2 (a third version of c2; E15)."""
    th = "thm_e1_c1" if which == "c1" else "thm_e1_c2_end"
    return _resolved(th, theta, K, steps, delta, case, m2, d, batch, n, eps)


@self_checked
def thm_f1_thresholds(theta, K, steps, delta, which, m2, d, batch, n, eps, case="auto"):
    """The c1, c2 of F.1's (102) and of (67)/(68) (seed 004 L1711, L1727, L1745): c1 = 4^θ·2K log^θ(√T),
    c2 = 2√(2a)K log^{1/2}(√T) (the T-parts only)."""
    return _candidate("thm_f1_c1" if which == "c1" else "thm_f1_c2", theta, K, steps, delta, None)


register(Statement(
    id="dc.thm_e1",
    fast="dpspec.fast.dc.convergence:thm_e1",
    source=Source(SEED, "Thm E.1 (thresholds c1, c2)", "the discriminative clipping thresholds of the appendix"),
    kind="utility",
    claim="exact",
    value=Value("number"),
    summary="c1: θ = 1/2: max(4K log^{1/2}√T, 33√(2a)K log^{1/2}(2/δ)) (K ≥ σ̂) or max(·, 16aK log^{1/2}(1/δ)/12) "
            "(K ≤ σ̂); θ > 1/2: max(4^θ2K log^θ√T, 17K log^θ(2/δ)). c2: max(2√(2a)K log^{1/2}√T, 33√(2a)K "
            "log^{1/2}(2/δ)) (K ≥ σ̂) or max(·, 16aK log^{1/2}(1/δ)/12) (K ≤ σ̂)",
    params=(P_THETA, P_K, P_STEPS_REAL, P_DELTA, P_WHICH, P_M2, P_D, P_BATCH, P_N, P_EPS_POS, P_CASE),
    reference=thm_e1,
    conditions=(THETA_HALF_UP, Condition.of(spec.THRESHOLD_CASE_CONSISTENT, _e1_case_consistent)),
    variants={
        "end_of_proof": Variant(thm_e1_end, "the restatement at the end of E.1's proof (L1643–L1647): c2 = "
                                "max(2√(2a)K log^θ√T, 17K log^θ(2/δ)) for θ > 1/2",
                                conditions=(THETA_HALF_UP,
                                            Condition.of(spec.THRESHOLD_CASE_CONSISTENT, _e1_end_case_consistent))),
        "f1": Variant(thm_f1_thresholds, "the T-parts that (67)/(68) and F.1's (102) use (L1727, L1745): c1 = "
                      "4^θ2K log^θ√T, c2 = 2√(2a)K log^{1/2}√T", conditions=(THETA_HALF_UP,)),
    },
    monotone={"K": +1},
    note="Thresholds, not bounds. Three versions of c2 (Thm 5.3, E.1's statement, the end of its proof) and two of c1 "
         "(4^θ·33K vs 17K) disagree (notes §6 E15); with natural logs c1 < c2 in most of them (§5.6: c1/c2 = 0.122 "
         "at θ = 2), and the text's 'c1 ≈ 10 c2' needs log10 (E21, c1_over_c2 in this module). a(θ) is "
         "discontinuous at θ = 1/2 and 1 (E10): no monotonicity in θ. The K ≤ σ̂ split is circular (E15; "
         "resolve_case). Test vectors: notes §5.6 (E.1 c1, 5.3/E.1 c2, F.1 c1/c2 columns).",
))
