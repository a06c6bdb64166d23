"""Proof check of the dpspec extension ``ptr.thm4_3_general`` (Theorem 4.3 without σ1 = σ2/τ, and textbook PTR
σ1 = ∞; derivation in dpspec.reference.ptr.thm4_3 and notes §2.8, erratum E8).

Case 2 of the appendix proof (seed 000, A.1, eqs. (25)–(32)) with the relaxed parameters: Δ(S) and Δ(S') differ by
one (GS(Δ) = 1), the f1 release is shifted by ≤ 1 under noise σ1 (or both sides output ⊥ when σ1 = ∞) and the f2
release by ≤ τ under noise σ2. The exact Rényi moment of such a pair (worst shifts, both orders of Δ, every
position Δ relative to the threshold) is

    E_Q[(p/q)^α] = ∫ Lap(s; Δ_P, b)^α Lap(s; Δ_Q, b)^{1−α} · exp(α(α−1)·shift(s)²/(2σ(s)²)) ds,

with shift/σ = 1/σ1 on s ≤ thr and τ/σ2 on s > thr, computed here by quadrature. Case 1 is T1 exactly (the
tightness check of Thm 4.3 covers it). The extension must dominate every such pair, and equal Thm 4.3 at σ2 = τσ1.
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from dpspec.reference.catalogue import get

from . import CheckResult, check

# (α, σ1, σ2, τ, b, δ0): σ2 ≠ τσ1 both ways, textbook PTR (σ1 = ∞), a large δ0 and a non-integer order.
POINTS = ((4, 8, 3, "0.5", 1, "1e-6"), (4, 4, 6, "0.5", 1, "1e-3"), (10, "inf", 5, "0.5", 1, "1e-8"),
          ("2.5", "inf", 2, "0.3", 2, "0.1"), (6, 2, 2, 1, "0.5", "1e-4"))


def case2_log_moment(alpha, sigma1, sigma2, tau, b, delta0, delta_p: int, delta_q: int) -> mpf:
    """log E_Q[(p/q)^α] of the relaxed case-2 pair with safety margins Δ_P, Δ_Q (see the module docstring)."""
    alpha, sigma2, tau, b = mpf(alpha), mpf(sigma2), mpf(tau), mpf(b)
    thr = b * mpmath.log(1 / (2 * mpf(delta0)))
    inv1 = 0 if mpmath.isinf(sigma1) else 1 / mpf(sigma1) ** 2
    gauss_low, gauss_high = alpha * (alpha - 1) * inv1 / 2, alpha * (alpha - 1) * tau**2 / (2 * sigma2**2)

    def integrand(s):
        lap = -(alpha * abs(s - delta_p) + (1 - alpha) * abs(s - delta_q)) / b - mpmath.log(2 * b)
        return mpmath.exp(lap + (gauss_low if s <= thr else gauss_high))

    cuts = sorted({mpf(delta_p), mpf(delta_q), thr})
    return mpmath.log(mpmath.quad(integrand, [-mpmath.inf, *cuts, mpmath.inf]))


def worst_case2_eps(alpha, sigma1, sigma2, tau, b, delta0) -> tuple[mpf, tuple[int, int]]:
    """max over Δ ∈ {0, …, ⌈thr⌉ + 2} and both orders of (Δ, Δ+1) of the exact case-2 ε."""
    thr = mpf(b) * mpmath.log(1 / (2 * mpf(delta0)))
    best, where = mpf("-inf"), (0, 0)
    for d in range(int(mpmath.ceil(thr)) + 3):
        for pair in ((d, d + 1), (d + 1, d)):
            eps = case2_log_moment(alpha, sigma1, sigma2, tau, b, delta0, *pair) / (mpf(alpha) - 1)
            if eps > best:
                best, where = eps, pair
    return best, where


@check(statements=("ptr.thm4_3_general",))
def extension_dominates_relaxed_case2_pairs() -> CheckResult:
    """ptr.thm4_3_general ≥ the exact ε of every relaxed case-2 pair at each point of POINTS."""
    rows, holds = [], True
    with mpmath.workdps(20):
        for alpha, sigma1, sigma2, tau, b, delta0 in POINTS:
            p = {"alpha": alpha, "sigma1": sigma1, "sigma2": sigma2, "tau": tau, "b": b, "delta0": delta0}
            bound = get("ptr.thm4_3_general").evaluate(dps=20, **p).value
            exact, where = worst_case2_eps(**{k: mpf(v) for k, v in p.items()})
            holds &= bound >= exact
            rows.append({"params": p, "extension": mpmath.nstr(bound, 10), "worst_case2_pair": mpmath.nstr(exact, 10),
                         "at_(Delta_P, Delta_Q)": where})
    return CheckResult("extension_dominates_relaxed_case2_pairs", bool(holds), {"points": rows})


@check(statements=("ptr.thm4_3_general", "ptr.thm4_3"))
def extension_equals_thm4_3_when_sigma2_is_tau_sigma1() -> CheckResult:
    """At σ2 = τσ1 the extension is Theorem 4.3 (to 1e-25 relative at 30 digits)."""
    rows, holds = [], True
    with mpmath.workdps(30):
        for alpha, sigma1, tau, b, delta0 in ((2, 8, "0.5", 1, "1e-8"), (32, 4, "0.25", 1, "1e-5"), ("3.5", 2, 1, 2, "0.1")):
            sigma2 = mpf(sigma1) * mpf(tau)
            general = get("ptr.thm4_3_general").evaluate(dps=30, alpha=alpha, sigma1=sigma1, sigma2=sigma2, tau=tau,
                                                         b=b, delta0=delta0).value
            plain = get("ptr.thm4_3").evaluate(dps=30, alpha=alpha, sigma1=sigma1, sigma2=sigma2, b=b,
                                               delta0=delta0).value
            holds &= abs(general - plain) <= mpf("1e-25") * plain
            rows.append({"alpha": str(alpha), "general": mpmath.nstr(general, 15), "thm4_3": mpmath.nstr(plain, 15)})
    return CheckResult("extension_equals_thm4_3_when_sigma2_is_tau_sigma1", bool(holds), {"points": rows})


@check(statements=("ptr.thm4_3", "ptr.thm4_3_general"))
def thm4_3_needs_sigma1_equal_sigma2_over_tau() -> CheckResult:
    """Erratum ptr.E8: Theorem 4.3 assumes σ1 = σ2/τ. Read with a deployment's own σ1 ≠ σ2/τ (σ1 = 8, σ2 = 2,
    τ = 0.5, so σ2/τ = 4; α = 8, b = 1, δ0 = 1e-8) its value is below the exact ε of the relaxed case-2 pair, so
    it is not a bound there; ptr.thm4_3_general covers the pair; and textbook PTR (σ1 = ∞, Remark 4.1(1)) is
    outside Theorem 4.3's domain."""
    from dpspec.reference.errors import DomainError

    p = {"alpha": 8, "sigma1": 8, "sigma2": 2, "b": 1, "delta0": "1e-8"}
    with mpmath.workdps(20):
        literal = get("ptr.thm4_3").evaluate(dps=20, **p).value
        general = get("ptr.thm4_3_general").evaluate(dps=20, tau="0.5", **p).value
        exact, where = worst_case2_eps(**{k: mpf(v) for k, v in p.items()}, tau=mpf("0.5"))
        try:
            get("ptr.thm4_3").evaluate(dps=20, **{**p, "sigma1": "inf"})
            textbook_refused = False
        except DomainError:
            textbook_refused = True
    holds = literal < exact <= general and textbook_refused
    return CheckResult("thm4_3_needs_sigma1_equal_sigma2_over_tau", bool(holds),
                       {"params": {**p, "tau": "0.5"}, "thm4_3_as_printed": mpmath.nstr(literal, 10),
                        "exact_relaxed_case2_pair": mpmath.nstr(exact, 10), "at_(Delta_P, Delta_Q)": where,
                        "thm4_3_general": mpmath.nstr(general, 10), "sigma1=inf_outside_thm4_3": textbook_refused})
