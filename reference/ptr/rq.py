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

import functools

import mpmath
from mpmath import mp, mpf

from ..catalogue import Source, Statement, Value, Variant, register
from ..domains import Param
from ..errors import DomainError
from ..errors import PrecisionError
from ..precision import logsumexp, self_checked
from .notation import laplace_log_moment
from .spec import ANY_ORDER, P_B, P_Q, SEED_MAIN


def _checked_quad(f, kinks, who: str):
    """∫_0^1 f by tanh-sinh with breakpoints {0, ½, 1} ∪ ``kinks``. mpmath's quadrature error control is
    absolute, so the integrand is first scaled to order one by its size at a few nodes; the error estimate must be
    negligible (PrecisionError naming ``who`` otherwise)."""
    scale = max(abs(f(x)) for x in {mpf(k) / 4 for k in range(5)} | kinks)
    if scale == 0:
        scale = mpf(1)
    body, err = mpmath.quad(lambda s: f(s) / scale, sorted({mpf(0), mpf(1) / 2, mpf(1)} | kinks), error=True)
    if err > abs(body) * mpf(10) ** (-mpmath.mp.dps + 5) and err > mpf(10) ** (-mpmath.mp.dps):
        raise PrecisionError(f"{who}: quadrature error {mpmath.nstr(err, 5)} too large")
    return body * scale


def ratio_expectation(g, b, kink_points=lambda b: ()):
    """E_{s~Lap(0,b)}[g(ρ(s))] for ρ = Lap(·;1,b)/Lap(·;0,b), by the piecewise form: two constant tails and a
    smooth integral over [0, 1] (tanh-sinh quadrature, :func:`_checked_quad`).
    ``kink_points(b)``: where g∘ρ bends sharply (added as breakpoints; those outside (0, 1) are ignored)."""
    def f(s):
        return mpmath.exp(-s / b) / (2 * b) * g(mpmath.exp((2 * s - 1) / b))

    tails = g(mpmath.exp(-1 / b)) / 2 + mpmath.exp(-1 / b) * g(mpmath.exp(1 / b)) / 2
    return tails + _checked_quad(f, {x for x in kink_points(b) if 0 < x < 1}, "ratio_expectation")


# The reference's range for R_q^(β) (every route): the log of the integrand r(ρ(s))^β·e^{−s/b} varies by
# V = |β|·ln(c₊/c₋) + 1/b over s ∈ [0, 1] (c± = 1 − q + q e^{±1/b}), which sets the narrowest boundary layer the
# quadrature must resolve (width ≈ 1/V); tested to 50 digits up to V ≈ 2e8, erratic from 2e10 on. Beyond
# _MAX_VARIATION the statements refuse with a DomainError (before: β = 1e308 gave a self-check failure hundreds of
# digits long, β = −1e300 ran without end). Inside it, |ln R| ≤ V (mean of r^β over r ∈ [c₋, c₊], at least half
# the mass at c₋), and that many digits of ln R are carried as guard digits, so R's mantissa keeps mp.dps digits
# (R = e^{1.7e6} at β = 1e8 needs ln R to 56 digits).
_MAX_VARIATION = mpf(10) ** 9


def _guard_digits(order, q, b, beta, order_text: str) -> int:
    """Guard digits for R_q^(order) at the current precision; DomainError (naming b, or beta with its supported
    range at this q, b) outside the reference's range."""
    rule = f"the reference's quadrature range |{order_text}|·ln(c₊/c₋) + 1/b ≤ 1e9, c± = 1 − q + q·e^(±1/b)"
    if 1 / b > _MAX_VARIATION / 2:  # (orders ≤ ½ do not get here: closed form, _in_range)
        raise DomainError("b", mpmath.nstr(b, 10), f"b ≥ {mpmath.nstr(2 / _MAX_VARIATION, 3)} where "
                          f"{order_text} > 1/2 ({rule})")
    spread = mpmath.log1p(q * mpmath.expm1(1 / b)) - mpmath.log1p(q * mpmath.expm1(-1 / b))  # ln(c₊/c₋) ≥ 0
    variation = abs(order) * spread + 1 / b
    if variation > _MAX_VARIATION:
        limit = (_MAX_VARIATION - 1 / b) / spread
        raise DomainError("beta", mpmath.nstr(beta, 10), f"|{order_text}| ≤ {mpmath.nstr(limit, 3)} at "
                          f"q={mpmath.nstr(q, 6)}, b={mpmath.nstr(b, 6)} ({rule})")
    return int(mpmath.ceil(mpmath.log10(variation + 1))) + 3


# Below b = 2/_MAX_VARIATION the quadrature is refused, but for orders ≤ ½ the value has a closed form:
#
#   R_q^(β) = c₋^β·(1 + η),  |η| ≤ e^{−10^8},  for b < 2e-9 and β ≤ ½,  c₋ = 1 − q + q·e^{−1/b}.
#
# Proof (t = e^{−1/b} ≤ e^{−5·10^8}; R = ½c₋^β + ½t·c₊^β + ¼∫_0^{2/b} e^{−v/2} r_v^β dv, r_v = 1 − q + q·t·e^v ∈
# [c₋, c₊], the piecewise form of ratio_expectation with v = (2s − 1)/b + 1/b; the weight's mass is ½(1 − t)):
#  * β ≤ 0: r^β ≤ c₋^β and c₊^β ≤ c₋^β give R ≤ c₋^β(1 + t/2). On v ≤ 1/(2b), r_v ≤ c_h = 1 − q + q·t^{1/2}, so the
#    body is ≥ ½(1 − t^{1/4})c_h^β, and c_h^β ≥ c₋^β(1 − |β|q·t^{1/2}/c₋) (Bernoulli, β ≤ 0):
#    R ≥ c₋^β(1 − t^{1/4}/2 − |β|q·t^{1/2}/(2c₋)).
#  * 0 < β ≤ ½: r ≥ c₋ gives R ≥ c₋^β(1 − t/2). Above: on v ≤ 1/b, r^β ≤ c₋^β + βc₋^{β−1}(r_v − c₋) (concavity),
#    which adds at most ½βq·c₋^{β−1}t^{1/2}; on v ∈ [1/b, 2/b], r_v ≤ e^{v−1/b} adds at most ¼t^{1/2}/b; and
#    ½t·c₊^β ≤ ½t^{1−β} ≤ ½t^{1/2} (c₊ ≤ 1/t): R ≤ c₋^β + t^{1/2}(½βq/c₋^{1−β} + 1/(4b) + ½).
#  With |β| ≤ 1.8e308 < e^{710}, 1/b ≤ 2.03e323 < e^{745}, c₋ ≥ 1 − q ≥ 2^{−53} and c₋^β ≥ (1 − q)^{1/2} for β ≤ ½,
#  every correction is below e^{−1.25·10^8 + 800}·c₋^β (t^{1/4} the largest). mpmath carries at most 10^4 digits
#  here, so c₋^β is R to every digit the self-check uses. Above ½ the end s = 1 adds about q^β·e^{(β−1)/b}/(2β − 1),
#  not negligible near β = 1 and astronomically large beyond: those orders stay refused.
_TINY_B_MAX_ORDER = mpf(1) / 2


def _tiny_b_closed_form(order, q, b):
    """c₋^order = exp(order·log1p(q·expm1(−1/b))) (the proven form above, for 1/b > _MAX_VARIATION/2 and order
    ≤ ½), with the digits of its exponent carried as guard digits."""
    log_c_minus = mpmath.log1p(q * mpmath.expm1(-1 / b))
    guard = int(mpmath.ceil(mpmath.log10(abs(order * log_c_minus) + 1))) + 3
    with mp.workdps(mp.dps + guard):
        return mpmath.exp(order * mpmath.log1p(q * mpmath.expm1(-1 / b)))


def _in_range(reverse: bool = False, excess: bool = False, integer_only: bool = False):
    """Decorator for an evaluator f(beta, q, b) of R_q^(β) (``reverse``: of R_q^(1−β); ``excess``: of R − 1):
    refuses outside the reference's range and evaluates with the guard digits of :func:`_guard_digits`; below
    b = 2e-9 with an order ≤ ½ it returns the proven closed form c₋^order (:func:`_tiny_b_closed_form`).
    ``integer_only``: a β that is not a non-negative integer goes to the route's own refusal first."""
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(beta, q, b):
            order = 1 - beta if reverse else beta
            if integer_only and not _is_nonneg_integer(beta):
                return fn(beta, q, b)  # the route's own DomainError
            if 1 / b > _MAX_VARIATION / 2 and order <= _TINY_B_MAX_ORDER:
                with mp.workdps(mp.dps + 5):
                    value = _tiny_b_closed_form(order, q, b)
                    if excess:  # c₋^β − 1 = expm1(β·ln c₋), no cancellation
                        value = mpmath.expm1(order * mpmath.log1p(q * mpmath.expm1(-1 / b)))
                return +value
            guard = _guard_digits(order, q, b, beta, "1−β" if reverse else "β")
            with mp.workdps(mp.dps + guard):
                value = fn(beta, q, b)
            return +value
        return wrapper
    return deco


def _is_nonneg_integer(x) -> bool:
    return x >= 0 and x == int(x)


@self_checked
@_in_range(integer_only=True)
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
@_in_range()
def rq_quadrature(beta, q, b):
    """R_q^(β) for any real β by the piecewise integral (notes §2.10)."""
    return ratio_expectation(lambda rho: _r_pow(beta, q, rho - 1), b, lambda b: _kink(q, b) + _layers(beta, q, b))


def _r_pow(beta, q, rho_minus_1):
    """r^β = (1 − q + qρ)^β as exp(β·log1p(q(ρ−1))): r itself rounds to 1 when q(ρ−1) is below the working
    precision (q = 1e-300, β = 1e300 gave R = 1.0 where R ≈ E[e^{ρ−1}] > 1)."""
    return mpmath.exp(beta * mpmath.log1p(q * rho_minus_1))


def _layers(order, q, b):
    """Breakpoints resolving the boundary layers at s = 0 and s = 1. The log-integrand −s/b + order·ln r(s) has
    slope at most (2|order|·min(1, q e^{1/b}/(1−q)) + 1)/b (d ln r/ds = (2/b)·qρ/r, qρ/r ≤ min(1, qρ/(1−q))), so
    layers are at least w = 1/slope wide: w·4^k from each end (none when w ≥ 1/64, where tanh-sinh resolves the
    layer within [0, ½] and [½, 1]). O(log(1/w)) points; 1/w ≤ 2e9 in the reference's range."""
    w = b / (2 * abs(order) * min(1, q * mpmath.exp(1 / b) / (1 - q)) + 1)
    points = []
    while w < mpf(1) / 64:
        points += [w, 1 - w]
        w *= 4
    return tuple(points)


def _kink(q, b):
    """1 − q + qρ(s) turns from ≈ 1 − q to ≈ qρ at qρ = 1 − q, i.e. s* = (1 + b log((1−q)/q))/2, over a width of
    about b/2 (the complex singularities lie πb/2 off the real axis there): breakpoints at s* and s* ± b."""
    s_star = (1 + b * mpmath.log((1 - q) / q)) / 2
    return (s_star - b, s_star, s_star + b)


@self_checked
@_in_range()
def rq_hyp2f1(beta, q, b):
    """R_q^(β) for any real β by the ₂F₁ antiderivative of u^{−3/2}(1−q+qu)^β (notes §2.10)."""
    def F(u):
        return -2 / mpmath.sqrt(u) * _r_pow(beta, q, -1) * mpmath.hyp2f1(-beta, -mpf(1) / 2, mpf(1) / 2,
                                                                        -q * u / (1 - q))
    c_minus_pow, c_plus_pow = _r_pow(beta, q, mpmath.expm1(-1 / b)), _r_pow(beta, q, mpmath.expm1(1 / b))
    return (c_minus_pow / 2 + mpmath.exp(-1 / b) * c_plus_pow / 2
            + mpmath.exp(-1 / (2 * b)) / 4 * (F(mpmath.exp(1 / b)) - F(mpmath.exp(-1 / b))))


@self_checked
@_in_range()
def rq(beta, q, b):
    """R_q^(β) = E_{s~Lap(0,b)}[((1−q)+q·Lap(s;1,b)/Lap(s;0,b))^β] (seed 001, Theorem 4.4): binomial sum for
    integer β ≥ 0, piecewise quadrature otherwise."""
    if _is_nonneg_integer(beta) and beta <= 2000:
        return rq_binomial(beta, q, b)
    return rq_quadrature(beta, q, b)


def pow1p_excess(beta, x):
    """(1+x)^β − 1 − βx without cancellation: the binomial series Σ_{k≥2} C(β,k) x^k for |x| < 1/100, else
    direct (around β = 1 as (1+x)·expm1((β−1)·log1p(x)) − (β−1)x). With x = q(ρ−1), E_{μ0}[x] = 0, so R_q^(β) − 1 = E_{μ0}[pow1p_excess(β, x)] (notes §8)."""
    if abs(x) >= mpf(1) / 100:
        L = mpmath.log1p(x)
        if abs(beta - 1) < mpf(1) / 2:
            # (1+x)^β − 1 − βx = (1+x)·expm1((β−1)L) − (β−1)x: at β = 1 + 2e-16 the direct form cancels
            # (1 + x) − 1 − x, losing 16 digits (Theorem 4.4's self-check failed at α = 1 + 2.2e-16)
            return (1 + x) * mpmath.expm1((beta - 1) * L) - (beta - 1) * x
        return mpmath.expm1(beta * L) - beta * x
    total, term, k = mpf(0), beta * (beta - 1) / 2 * x**2, 2
    while term != 0 and abs(term) > abs(total) * mpmath.eps / 4:
        total += term
        term *= (beta - k) / (k + 1) * x
        k += 1
    return total


@self_checked
@_in_range(excess=True)
def rq_excess(beta, q, b):
    """R_q^(β) − 1 without cancellation, as E_{μ0}[(1+x)^β − 1 − βx], x = q(ρ−1) (notes §8, "Catastrophic
    cancellation"). Used where R is within rounding of 1 (small q, α near 1). Exactly 0 at β ∈ {0, 1}
    (E_{μ0}[1] = E_{μ0}[ρ] = 1), where the integrand is zero and a quadrature would return rounding noise."""
    if beta == 0 or beta == 1:
        return mpf(0)
    return ratio_expectation(lambda rho: pow1p_excess(beta, q * (rho - 1)), b)


@self_checked
@_in_range(reverse=True)
def rq_tilde(beta, q, b):
    """R̃_q^(β) = E_{s~μ}[(μ0(s)/μ(s))^β] from its definition, μ = (1−q)Lap(0,b) + q Lap(1,b) (seed 001,
    Theorem 4.4): ∫ μ(s) (μ0(s)/μ(s))^β ds, with μ0/μ constant on s < 0 and on s > 1."""
    def lap0(s):
        return mpmath.exp(-abs(s) / b) / (2 * b)

    def mix_times_ratio_pow(s):
        """μ(s)(μ0(s)/μ(s))^β with μ = μ0·r, r = 1 + q(ρ − 1), ρ = Lap(s;1,b)/Lap(s;0,b): μ0·r^{1−β}, r^{1−β} by
        :func:`_r_pow` (forming μ = (1−q)μ0 + qμ1 first lost q(ρ − 1) below the working precision)."""
        return lap0(s) * _r_pow(1 - beta, q, mpmath.expm1((abs(s) - abs(s - 1)) / b))

    # μ(s < 0) = c_−/2 with μ0/μ = 1/c_−, μ(s > 1) = c_+e^{−1/b}/2 with μ0/μ = 1/c_+: c^{1−β}, as _r_pow
    left = _r_pow(1 - beta, q, mpmath.expm1(-1 / b)) / 2
    right = mpmath.exp(-1 / b) * _r_pow(1 - beta, q, mpmath.expm1(1 / b)) / 2
    body = _checked_quad(mix_times_ratio_pow, {x for x in _kink(q, b) + _layers(1 - beta, q, b) if 0 < x < 1},
                         "rq_tilde")  # (unchecked before: 0.505 instead of 1.0101 at β = 2, q = 0.01, b = 1e-300)
    return left + right + body


@self_checked
@_in_range(reverse=True)
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
