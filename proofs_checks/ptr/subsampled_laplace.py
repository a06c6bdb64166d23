"""The Poisson-subsampled Laplace test of Thm 4.4 (seed 000, A.2; seed 001, Thm 4.4 and Remark 4.5).

μ0 = Lap(0, b), μ1 = Lap(1, b), μ = (1−q)μ0 + qμ1, A(s) = qμ1(s)/μ(s); R_q^(β) = E_{μ0}[(μ/μ0)^β] and
R̃_q^(β) = E_μ[(μ0/μ)^β]. The identities below are pointwise in the density values (μ0, μ1 > 0), so they hold
for the integrals too.
"""
from __future__ import annotations

import sympy as sp

from . import CheckResult, check

q, w, mu0, mu1, beta, alpha, rho, kappa = sp.symbols("q w mu0 mu1 beta alpha rho kappa", positive=True)
mu = (1 - q) * mu0 + q * mu1
A = q * mu1 / mu


@check(statements=("ptr.thm4_4",))
def condition_c1_is_q_prime_at_most_one_fifth() -> CheckResult:
    """(C1) of Thm 4.4 (full version, seed 000): q ≤ e^{−1/b}/(4 + e^{−1/b}) ⇔ q' ≤ 1/5 with
    q' = q/(q + (1−q)e^{−1/b}). With w = e^{−1/b} ∈ (0,1): q' is increasing in q (derivative w/(q+(1−q)w)² > 0)
    and equals 1/5 exactly at q = w/(4+w); and q' = sup_s A(s) (the value of A on s > 1, where μ1/μ0 = e^{1/b})."""
    q_prime = q / (q + (1 - q) * w)
    derivative = sp.simplify(sp.diff(q_prime, q))
    roots = sp.solve(sp.Eq(q_prime, sp.Rational(1, 5)), q)
    sup_a = sp.simplify(A.subs(mu1, mu0 / w) - q_prime)  # on s > 1: μ1 = μ0·e^{1/b} = μ0/w
    positive = sp.simplify(derivative * (q + (1 - q) * w) ** 2 - w) == 0  # = w / (positive)²
    holds = (positive and len(roots) == 1 and sp.simplify(roots[0] - w / (4 + w)) == 0
             and sup_a == 0)
    return CheckResult("condition_c1_is_q_prime_at_most_one_fifth", bool(holds),
                       {"dq'/dq": str(derivative), "q at q'=1/5": [str(r) for r in roots],
                        "A(s>1) - q'": str(sup_a)})


@check(statements=("ptr.rq_tilde", "ptr.rq"))
def r_tilde_is_r_at_one_minus_beta() -> CheckResult:
    """Eq. (82): R̃^(β) = R^(1−β) for every real β, from the pointwise identity μ(μ0/μ)^β = μ0(μ/μ0)^{1−β}."""
    m = sp.Symbol("mu", positive=True)  # the mixture density value, positive
    residual = sp.simplify(sp.powsimp(sp.expand_power_base(m * (mu0 / m) ** beta - mu0 * (m / mu0) ** (1 - beta),
                                                           force=True), force=True))
    return CheckResult("r_tilde_is_r_at_one_minus_beta", residual == 0, {"residual": str(residual)})


@check(statements=("ptr.thm4_4",))
def a_squared_expansion_gives_the_brackets() -> CheckResult:
    """Eqs. (75)–(80) and the B2 analogue: A = 1 − (1−q)μ0/μ, hence
    (μ/μ0)^α A² = (μ/μ0)^α − 2(1−q)(μ/μ0)^{α−1} + (1−q)²(μ/μ0)^{α−2}   (integrated under μ0: the B1 bracket), and
    (μ0/μ)^α A² = (μ0/μ)^α − 2(1−q)(μ0/μ)^{α+1} + (1−q)²(μ0/μ)^{α+2}   (integrated under μ: the B2 bracket)."""
    a_form = sp.simplify(A - (1 - (1 - q) * mu0 / mu))
    # with ρ = μ/μ0 (B1) and κ = μ0/μ (B2): A = 1 − (1−q)/ρ = 1 − (1−q)κ
    expand = lambda e: sp.simplify(sp.powsimp(sp.expand(e), force=True))
    a_rho, a_kappa = 1 - (1 - q) / rho, 1 - (1 - q) * kappa
    b1 = expand(rho**alpha * a_rho**2 - (rho**alpha - 2 * (1 - q) * rho ** (alpha - 1) + (1 - q) ** 2 * rho ** (alpha - 2)))
    b2 = expand(kappa**alpha * a_kappa**2
                - (kappa**alpha - 2 * (1 - q) * kappa ** (alpha + 1) + (1 - q) ** 2 * kappa ** (alpha + 2)))
    return CheckResult("a_squared_expansion_gives_the_brackets", a_form == 0 and b1 == 0 and b2 == 0,
                       {"A - (1-(1-q)mu0/mu)": str(a_form), "B1 residual": str(b1), "B2 residual": str(b2)})
