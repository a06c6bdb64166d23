"""R_q^(β) and R̃_q^(β): Rényi moments of the Poisson-subsampled Laplace test (seed 001, Theorem 4.4 and
Remark 4.5; appendix 000, A.2 eqs. (43)–(44), (82)).

    R_q^(β) = E_{s~μ0}[(μ(s)/μ0(s))^β],   R̃_q^(β) = E_{s~μ}[(μ0(s)/μ(s))^β] = R_q^(1−β)   (eq. (82)),
    μ0 = Lap(0,b),  μ = (1−q) Lap(0,b) + q Lap(1,b).

The likelihood ratio ρ(s) = Lap(s;1,b)/Lap(s;0,b) is e^{−1/b} on s < 0, e^{1/b} on s > 1 and e^{(2s−1)/b} on
[0,1], so for every real β (notes §2.10, "How to compute"):

    R_q^(β) = ½ c_−^β + ½ e^{−1/b} c_+^β + ∫_0^1 e^{−s/b}/(2b) · (1−q+q e^{(2s−1)/b})^β ds,   c_∓ = 1−q+q e^{∓1/b}
            = ½ c_−^β + ½ e^{−1/b} c_+^β + (e^{−1/(2b)}/4) [F(e^{1/b}) − F(e^{−1/b})],
              F(u) = −2 u^{−1/2} (1−q)^β ₂F₁(−β, −½; ½; −q u/(1−q)),
    and for integer β = n ≥ 0:  R_q^(n) = Σ_ℓ C(n,ℓ) (1−q)^{n−ℓ} q^ℓ m_ℓ,  m_ℓ = f_ℓ(ε_R-Lap^(b)(ℓ)), m_0 = m_1 = 1.

The three routes are exposed separately (variants of ``ptr.rq``) and cross-checked in the tests.
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Source, Statement, Value, Variant, register
from ..domains import Param
from ..errors import DomainError
from ..errors import PrecisionError
from ..precision import logsumexp, self_checked
from .notation import laplace_log_moment
from .spec import ANY_ORDER, P_B, P_Q, SEED_MAIN


def ratio_expectation(g, b, kink_points=lambda b: ()):
    """E_{s~Lap(0,b)}[g(ρ(s))] for ρ = Lap(·;1,b)/Lap(·;0,b), by the piecewise form: two constant tails and a
    smooth integral over [0, 1] (tanh-sinh quadrature). mpmath's quadrature error control is absolute, so the
    integrand is first scaled to order one by its size at a few nodes; the error estimate must be negligible.
    ``kink_points(b)``: where g∘ρ bends sharply (added as breakpoints; those outside (0, 1) are ignored)."""
    def f(s):
        return mpmath.exp(-s / b) / (2 * b) * g(mpmath.exp((2 * s - 1) / b))

    tails = g(mpmath.exp(-1 / b)) / 2 + mpmath.exp(-1 / b) * g(mpmath.exp(1 / b)) / 2
    kinks = {x for x in kink_points(b) if 0 < x < 1}
    scale = max(abs(f(x)) for x in {mpf(k) / 4 for k in range(5)} | kinks)
    if scale == 0:
        scale = mpf(1)
    body, err = mpmath.quad(lambda s: f(s) / scale, sorted({mpf(0), mpf(1) / 2, mpf(1)} | kinks), error=True)
    if err > abs(body) * mpf(10) ** (-mpmath.mp.dps + 5) and err > mpf(10) ** (-mpmath.mp.dps):
        raise PrecisionError(f"ratio_expectation: quadrature error {mpmath.nstr(err, 5)} too large")
    return tails + body * scale


def _is_nonneg_integer(x) -> bool:
    return x >= 0 and x == int(x)


@self_checked
def rq_binomial(beta, q, b):
    """R_q^(n) for integer n ≥ 0 by the binomial expansion of (1−q+qρ)^n (notes §2.10)."""
    if not _is_nonneg_integer(beta):
        raise DomainError("beta", mpmath.nstr(beta, 15), "integers in [0, inf) (binomial route)")
    n = int(beta)
    terms = []
    for l in range(n + 1):
        log_m = mpf(0) if l < 2 else laplace_log_moment(mpf(l), b)
        terms.append(mpmath.log(mpmath.binomial(n, l)) + (n - l) * mpmath.log1p(-q) + l * mpmath.log(q) + log_m)
    return mpmath.exp(logsumexp(terms))


@self_checked
def rq_quadrature(beta, q, b):
    """R_q^(β) for any real β by the piecewise integral (notes §2.10)."""
    return ratio_expectation(lambda rho: (1 - q + q * rho) ** beta, b, lambda b: _kink(q, b))


def _kink(q, b):
    """1 − q + qρ(s) turns from ≈ 1 − q to ≈ qρ at qρ = 1 − q, i.e. s* = (1 + b log((1−q)/q))/2, over a width of
    about b/2 (the complex singularities lie πb/2 off the real axis there): breakpoints at s* and s* ± b."""
    s_star = (1 + b * mpmath.log((1 - q) / q)) / 2
    return (s_star - b, s_star, s_star + b)


@self_checked
def rq_hyp2f1(beta, q, b):
    """R_q^(β) for any real β by the ₂F₁ antiderivative of u^{−3/2}(1−q+qu)^β (notes §2.10)."""
    def F(u):
        return -2 / mpmath.sqrt(u) * (1 - q) ** beta * mpmath.hyp2f1(-beta, -mpf(1) / 2, mpf(1) / 2,
                                                                     -q * u / (1 - q))
    c_minus, c_plus = 1 - q + q * mpmath.exp(-1 / b), 1 - q + q * mpmath.exp(1 / b)
    return (c_minus**beta / 2 + mpmath.exp(-1 / b) * c_plus**beta / 2
            + mpmath.exp(-1 / (2 * b)) / 4 * (F(mpmath.exp(1 / b)) - F(mpmath.exp(-1 / b))))


@self_checked
def rq(beta, q, b):
    """R_q^(β) = E_{s~Lap(0,b)}[((1−q)+q·Lap(s;1,b)/Lap(s;0,b))^β] (seed 001, Theorem 4.4): binomial sum for
    integer β ≥ 0, piecewise quadrature otherwise."""
    if _is_nonneg_integer(beta) and beta <= 2000:
        return rq_binomial(beta, q, b)
    return rq_quadrature(beta, q, b)


def pow1p_excess(beta, x):
    """(1+x)^β − 1 − βx without cancellation: the binomial series Σ_{k≥2} C(β,k) x^k for |x| < 1/100, else
    direct. With x = q(ρ−1), E_{μ0}[x] = 0, so R_q^(β) − 1 = E_{μ0}[pow1p_excess(β, x)] (notes §8)."""
    if abs(x) >= mpf(1) / 100:
        return mpmath.expm1(beta * mpmath.log1p(x)) - beta * x
    total, term, k = mpf(0), beta * (beta - 1) / 2 * x**2, 2
    while term != 0 and abs(term) > abs(total) * mpmath.eps / 4:
        total += term
        term *= (beta - k) / (k + 1) * x
        k += 1
    return total


@self_checked
def rq_excess(beta, q, b):
    """R_q^(β) − 1 without cancellation, as E_{μ0}[(1+x)^β − 1 − βx], x = q(ρ−1) (notes §8, "Catastrophic
    cancellation"). Used where R is within rounding of 1 (small q, α near 1). Exactly 0 at β ∈ {0, 1}
    (E_{μ0}[1] = E_{μ0}[ρ] = 1), where the integrand is zero and a quadrature would return rounding noise."""
    if beta == 0 or beta == 1:
        return mpf(0)
    return ratio_expectation(lambda rho: pow1p_excess(beta, q * (rho - 1)), b)


@self_checked
def rq_tilde(beta, q, b):
    """R̃_q^(β) = E_{s~μ}[(μ0(s)/μ(s))^β] from its definition, μ = (1−q)Lap(0,b) + q Lap(1,b) (seed 001,
    Theorem 4.4): ∫ μ(s) (μ0(s)/μ(s))^β ds, with μ0/μ constant on s < 0 and on s > 1."""
    def lap(s, mean):
        return mpmath.exp(-abs(s - mean) / b) / (2 * b)

    def mix(s):
        return (1 - q) * lap(s, 0) + q * lap(s, 1)

    c_minus, c_plus = 1 - q + q * mpmath.exp(-1 / b), 1 - q + q * mpmath.exp(1 / b)
    left = c_minus / 2 * c_minus ** (-beta)  # μ(s < 0) = c_− / 2
    right = c_plus * mpmath.exp(-1 / b) / 2 * c_plus ** (-beta)  # μ(s > 1) = c_+ e^{−1/b} / 2
    body = mpmath.quad(lambda s: mix(s) * (lap(s, 0) / mix(s)) ** beta, [0, mpf(1) / 2, 1])
    return left + right + body


@self_checked
def rq_tilde_via_rq(beta, q, b):
    """R̃_q^(β) = R_q^(1−β) (appendix 000, eq. (82))."""
    return rq(1 - beta, q, b)


P_BETA = Param("beta", ANY_ORDER, "order β (any real)", example=2)

register(Statement(
    id="ptr.rq",
    fast="dpspec.fast.ptr.rq:rq",
    source=Source(SEED_MAIN, "Theorem 4.4 (definition of R_q^(α)) and Remark 4.5",
                  "Rényi moment of the Poisson-subsampled Laplace test, at any real order"),
    kind="identity",
    claim="exact",
    value=Value("number"),
    summary="R_q^(β) = E_{s~Lap(0,b)}[((1−q) + q Lap(s;1,b)/Lap(s;0,b))^β]",
    params=(P_BETA, P_Q, P_B),
    reference=rq,
    variants={
        "binomial": Variant(rq_binomial, "Σ_ℓ C(n,ℓ)(1−q)^{n−ℓ} q^ℓ m_ℓ, integer β = n ≥ 0 only"),
        "quadrature": Variant(rq_quadrature, "piecewise: two constant tails + ∫_0^1 (notes §2.10)"),
        "hyp2f1": Variant(rq_hyp2f1, "closed form with ₂F₁(−β, −½; ½; −qu/(1−q)) (notes §2.10)"),
    },
    note="The three routes must agree (tests/ptr/test_ptr_rq.py).",
))

register(Statement(
    id="ptr.rq_tilde",
    fast="dpspec.fast.ptr.rq:rq_tilde",
    source=Source("000_0fe14ad2f9124ea1.txt", "Theorem 4.4 (full version), eq. (82)",
                  "reverse Rényi moment of the subsampled Laplace test and the identity R̃^(β) = R^(1−β)"),
    kind="identity",
    claim="exact",
    value=Value("number"),
    summary="R̃_q^(β) = E_{s~μ}[(μ0(s)/μ(s))^β] = R_q^(1−β)",
    params=(P_BETA, P_Q, P_B),
    reference=rq_tilde,
    variants={"via_rq": Variant(rq_tilde_via_rq, "R_q^(1−β) (eq. (82))")},
))
