"""Lemma A.1 (= [MTZ19] Theorem 11 as restated in seed 000, A.2 eq. (63)) and its use in Theorem 4.4.

    If q ≤ 1/5, σ ≥ 4, 1 < α ≤ ½σ²L − 2 ln σ and α ≤ (½σ²L² − ln 5 − 2 ln σ)/(L + ln(qα) + 1/(2σ²)),
    L = ln(1 + 1/(q(α−1))), then for f of ℓ2-sensitivity τ:
        E_{t~N(f(T),σ²)}[((1−q) + q N(t; f(T'),σ²)/N(t; f(T),σ²))^α] ≤ 1 + 2q²τ²α(α−1)/σ².

The left side is the sampled-Gaussian moment G_α(q, σ/τ) (shift τ, noise σ ≡ shift 1, noise σ/τ), computed
exactly (binomial sum, integer α) in ``_exact``. The conditions are implemented here as printed, independently of
the reference's copy, so that both can be compared.
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from dpspec.reference.catalogue import get

from . import CheckResult, check
from ._exact import gaussian_mixture_reverse, log_gaussian_mixture_forward


def failed_lemma_conditions(alpha, q, sigma) -> list[str]:
    """The printed hypotheses of Lemma A.1 that fail at (α, q, σ); "L undefined" when 1 + 1/(q(α−1)) ≤ 0."""
    alpha, q, sigma = mpf(alpha), mpf(q), mpf(sigma)
    failed = [name for name, ok in (("q <= 1/5", q <= mpf(1) / 5), ("sigma >= 4", sigma >= 4), ("alpha > 1", alpha > 1))
              if not ok]
    if alpha == 1 or 1 + 1 / (q * (alpha - 1)) <= 0:
        return failed + ["L undefined"]
    L = mpmath.log(1 + 1 / (q * (alpha - 1)))
    if not alpha <= sigma**2 * L / 2 - 2 * mpmath.log(sigma):
        failed.append("C3")
    denominator = L + mpmath.log(q * alpha) + 1 / (2 * sigma**2)
    if not alpha <= (sigma**2 * L**2 / 2 - mpmath.log(5) - 2 * mpmath.log(sigma)) / denominator:
        failed.append("C4")
    return failed


def largest_valid_alpha(q, sigma, limit: int = 200) -> int | None:
    """The largest integer α ≤ limit satisfying the hypotheses (they hold on an initial segment of integers)."""
    valid = [a for a in range(2, limit + 1) if not failed_lemma_conditions(a, q, sigma)]
    return max(valid) if valid else None


def lemma_bound(alpha, q, sigma, tau=1) -> mpf:
    """1 + 2q²τ²α(α−1)/σ² (eq. (63))."""
    alpha, q, sigma, tau = mpf(alpha), mpf(q), mpf(sigma), mpf(tau)
    return 1 + 2 * q**2 * tau**2 * alpha * (alpha - 1) / sigma**2


# (q, σ) grid of notes §2.11, with the largest valid integer α computed there.
GRID = {("0.2", 4): 4, ("0.1", 4): 6, ("0.01", 4): 14, ("0.001", 4): 26, ("0.01", 8): 37, ("0.05", 5): 10,
        ("0.0842", 4): 6}


@check
def lemma_a1_holds_inside_conditions() -> CheckResult:
    """For every (q, σ) of GRID and every integer α allowed by the hypotheses, the exact G_α(q, σ) ≤ (63)'s bound;
    the largest allowed α matches notes §2.11, and the reference ``ptr.lemma_a1`` has the same validity range (its
    predicate holds up to that α and fails just above) and dominates the exact ε there."""
    rows, holds = {}, True
    st = get("ptr.lemma_a1")
    with mpmath.workdps(30):
        for (q, sigma), expected in GRID.items():
            top = largest_valid_alpha(q, sigma)
            ratios, ref_ok = [], True
            for a in range(2, (top or 1) + 1):
                exact = log_gaussian_mixture_forward(a, mpf(q), sigma)
                ratios.append(mpmath.exp(exact) / lemma_bound(a, q, sigma))
                ref_ok &= st.evaluate(dps=30, alpha=a, q=q, sigma=sigma).value >= exact / (a - 1)
            ref_range = (not st.failed_conditions(st.bind({"alpha": top, "q": q, "sigma": sigma}))
                         and bool(st.failed_conditions(st.bind({"alpha": top + 1, "q": q, "sigma": sigma}))))
            worst = max(ratios) if ratios else None
            holds &= top == expected and worst is not None and worst <= 1 and ref_ok and ref_range
            rows[f"q={q}, sigma={sigma}"] = {"largest_alpha": top, "expected": expected,
                                             "max_moment_over_bound": mpmath.nstr(worst, 8),
                                             "reference_dominates": ref_ok, "reference_same_range": ref_range}
    return CheckResult("lemma_a1_holds_inside_conditions", bool(holds), rows)


@check
def lemma_a1_sensitivity_needs_sigma_over_tau() -> CheckResult:
    """Erratum ptr.E6(a): the hypotheses are stated on σ, the conclusion for any sensitivity τ. At q = 0.2, σ = 4,
    α = 2, τ = 8 the hypotheses on σ hold, yet the exact moment 1 + q²(e^{τ²/σ²} − 1) exceeds 1 + 2q²τ²α(α−1)/σ²;
    the corrected hypotheses, on σ/τ = 0.5, fail."""
    q, sigma, tau, alpha = mpf("0.2"), mpf(4), mpf(8), 2
    with mpmath.workdps(30):
        exact = mpmath.exp(log_gaussian_mixture_forward(alpha, q, sigma / tau))
        closed = 1 + q**2 * mpmath.expm1(tau**2 / sigma**2)
        bound = lemma_bound(alpha, q, sigma, tau)
    printed_ok = not failed_lemma_conditions(alpha, q, sigma)
    corrected_fail = failed_lemma_conditions(alpha, q, sigma / tau)
    holds = printed_ok and bool(corrected_fail) and exact > bound and abs(exact - closed) < mpf("1e-20") * closed
    return CheckResult("lemma_a1_sensitivity_needs_sigma_over_tau", bool(holds),
                       {"exact_moment": mpmath.nstr(exact, 12), "lemma_bound": mpmath.nstr(bound, 12),
                        "hypotheses_on_sigma_hold": printed_ok, "hypotheses_on_sigma_over_tau_fail": corrected_fail})


@check(statements=("ptr.lemma_a1", "ptr.thm4_4"))
def printed_bound_on_A_is_below_sup_A() -> CheckResult:
    """Erratum ptr.E6(d): the proof of Thm 4.4 (seed 000, case 2) bounds A(s) = qμ1(s)/μ(s) by
    q/((1−q) + q e^{−1/b}); but on s > 1, A = q e^{1/b}/(1−q+q e^{1/b}) = q/(q + (1−q)e^{−1/b}) = q' (the theorem's
    q'), which is larger for q < 1/2. Evaluated at q = 0.05, b = 1 from the Laplace densities at s = 2."""
    q, b, s = mpf("0.05"), mpf(1), mpf(2)
    lap = lambda x, m: mpmath.exp(-abs(x - m) / b) / (2 * b)
    a_at_s = q * lap(s, 1) / ((1 - q) * lap(s, 0) + q * lap(s, 1))
    printed = q / ((1 - q) + q * mpmath.exp(-1 / b))
    q_prime = q / (q + (1 - q) * mpmath.exp(-1 / b))
    holds = a_at_s > printed and abs(a_at_s - q_prime) <= mpf(10) ** (5 - mpmath.mp.dps) * q_prime
    return CheckResult("printed_bound_on_A_is_below_sup_A", bool(holds),
                       {"A(s=2)": mpmath.nstr(a_at_s, 12), "printed_bound": mpmath.nstr(printed, 12),
                        "q_prime": mpmath.nstr(q_prime, 12)})


@check(statements=("ptr.lemma_a1", "ptr.thm4_4"))
def substituted_order_violates_lemma_hypotheses() -> CheckResult:
    """Erratum ptr.E5(i): (83)–(86) "set α ← 1−α" in (81), i.e. use Lemma A.1 at the order 1−α ≤ −1. There the
    hypothesis α > 1 fails and L = ln(1 + 1/(q(−α))) is the log of a negative number when qα < 1 (examples)."""
    rows = {}
    for alpha, q, sigma in ((2, "0.01", 8), (10, "0.01", 8), (5, "0.05", 5)):
        rows[f"alpha={alpha}, q={q}, sigma={sigma}"] = {
            "at_alpha": failed_lemma_conditions(alpha, q, sigma),
            "at_1-alpha": failed_lemma_conditions(1 - alpha, q, sigma)}
    holds = all(not r["at_alpha"] and "alpha > 1" in r["at_1-alpha"] and "L undefined" in r["at_1-alpha"]
                for r in rows.values())
    return CheckResult("substituted_order_violates_lemma_hypotheses", holds, rows)


@check(statements=("ptr.thm4_4",))
def reverse_moment_below_forward() -> CheckResult:
    """Erratum ptr.E5(ii), the corrected route to B2: the reverse sampled-Gaussian moment H_α(A, σ) =
    E_mix[(N0/mix)^α] is ≤ the forward G_α(A, σ) ([MTZ19]), hence ≤ 1 + 2A²α(α−1)/σ² inside the hypotheses; checked
    for A ∈ {q/2, q} and every integer α allowed at (q, σ) ∈ {(0.1, 4), (0.05, 5)}."""
    rows, holds = [], True
    with mpmath.workdps(20):
        for q, sigma in (("0.1", 4), ("0.05", 5)):
            for a in range(2, largest_valid_alpha(q, sigma) + 1):
                for A in (mpf(q) / 2, mpf(q)):
                    rev = gaussian_mixture_reverse(a, A, sigma)
                    fwd = mpmath.exp(log_gaussian_mixture_forward(a, A, sigma))
                    ok = rev <= fwd <= lemma_bound(a, A, sigma)
                    holds &= ok
                    if not ok or A == mpf(q):
                        rows.append({"q": q, "sigma": sigma, "alpha": a, "A": mpmath.nstr(A, 6),
                                     "reverse": mpmath.nstr(rev, 12), "forward": mpmath.nstr(fwd, 12), "ok": ok})
    return CheckResult("reverse_moment_below_forward", bool(holds), {"rows": rows})
