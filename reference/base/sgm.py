"""The Poisson-subsampled Gaussian mechanism (SGM): its exact RDP for every real order α > 1.

Mironov, Talwar & Zhang, "Rényi Differential Privacy of the Sampled Gaussian Mechanism", arXiv 1908.10530
(MTZ19). With sampling rate q, noise σ and sensitivity 1, the neighbouring output distributions are

    μ0 = N(0, σ²)                    (the record is absent)
    μ  = (1 − q)·N(0, σ²) + q·N(1, σ²)  (the record is present, add/remove neighbours)

and the two directions are
    remove: D_α(μ‖μ0) = log A_α / (α − 1),  A_α = E_{z~μ0}[(1 − q + q·L(z))^α],
    add:    D_α(μ0‖μ) = log B_α / (α − 1),  B_α = E_{z~μ0}[(1 − q + q·L(z))^{1−α}],
with the likelihood ratio L(z) = N(1,σ²)(z)/N(0,σ²)(z) = exp((2z − 1)/(2σ²)).

How each quantity is computed (the method is chosen per regime):
- remove, integer α: the exact binomial sum (MTZ19 §3.3)
      A_α − 1 = Σ_{k=2}^{α} C(α,k) (1−q)^{α−k} q^k (e^{(k²−k)/(2σ²)} − 1),
  a sum of non-negative terms (the k = 0, 1 terms vanish because Σ_k C(α,k)(1−q)^{α−k}q^k = 1), so log A_α =
  log1p(A_α − 1) keeps full relative precision even for q = 1e-8. Cost O(α) multiplications: the terms are
  built by their exact ratio recurrence (mpmath's exponent range is unbounded, so nothing overflows).
- remove, small fractional α, and add (any α): quadrature of ∫ N(0,σ²)(z) (1 − q + q L(z))^β dz (β = α or 1 − α) in
  log space, split at the stationary points of the integrand (found by bisection, see `_peaks`) and truncated
  where the log-integrand has dropped by more than the working precision (tails bounded by a Gaussian).
  Internal guard digits cover the cancellation in log A when A ≈ 1 (tiny q, large σ).
- remove, fractional α: `log_a_series`, the two-sided series of MTZ19 §3.3 (the route of Opacus and
  dp-accounting), summed with signs at working precision, when it converges within SERIES_MAX_TERMS terms: its
  terms decay only polynomially (~ k^{−α−2}), so this is the large-α regime (e.g. V7, α ≈ 59, in ~100 terms);
  otherwise the quadrature below. The tests cross-check the two routes where both apply.

direction="max" (the default) returns max(remove, add). MTZ19 (Thm 5 there) prove that remove dominates; this
module does not assume it: it evaluates add at 20 digits and checks that it lies below remove with a margin,
and evaluates add at full precision whenever that check does not settle the question.
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
from mpmath import mp, mpf

from ..catalogue import Privacy, Source, Statement, Value, Witness, WitnessUse, register, register_witness
from ..domains import ALPHA, NOISE, SAMPLING_RATE, Param
from ..errors import PrecisionError
from ..precision import checked_param as _arg, self_checked, to_mpf
from .spec import SGM_DIRECTION as DIRECTION, SGM_WITNESS_DIRECTION as WITNESS_DIRECTION

_CHECK_DPS = 20  # precision of the numerical check that add ≤ remove (direction="max")




def _is_integer(alpha) -> bool:
    return alpha == mpmath.floor(alpha)


# ---------------------------------------------------------------------------------------------------
# remove direction, integer α: exact binomial sum


def _binomial_terms(n: int, q, sigma):
    """(k, u_k, e^{g_k}) for k = 0..n, with u_k = C(n,k)(1−q)^{n−k} q^k and g_k = (k² − k)/(2σ²), built by their exact
    ratio recurrences (0 < q < 1; mpmath's exponent range is unbounded, so nothing overflows)."""
    ratio = q / (1 - q)
    step = mpmath.exp(1 / sigma**2)  # e^{g_{k+1} − g_k} = e^{k/σ²}
    u = (1 - q) ** n
    e_k, growth = mpf(1), mpf(1)  # e_k = e^{g_k}; growth = e^{k/σ²}
    yield 0, u, e_k
    for k in range(n):
        u = u * (n - k) / (k + 1) * ratio
        e_k, growth = e_k * growth, growth * step
        yield k + 1, u, e_k


def log_a_binomial(alpha: int, q, sigma):
    """log A_α for integer α ≥ 2 by the exact binomial sum (see module docstring)."""
    terms = []
    for k, u, e_k in _binomial_terms(int(alpha), q, sigma):
        if k < 2:
            continue
        g = mpf(k * k - k) / (2 * sigma**2)
        terms.append(u * (mpmath.expm1(g) if g < 1 else e_k - 1))
    return mpmath.log1p(mpmath.fsum(terms))


def sgm_binomial_log_terms(alpha, q, sigma) -> list:
    """log C(α,k)(1−q)^{α−k} q^k e^{k(k−1)/(2σ²)}, k = 0..α (integer α ≥ 1, 0 < q < 1), at the working precision:
    the terms of A_α = Σ_k (the binomial sum above, same recurrence). Normalised, they are the weights w_k of the
    exponentially tilted remove pair μ·(μ/μ0)^{α−1}/A_α = Σ_k w_k N(k, σ²), the proposal of the Monte Carlo audit
    (conformance/audit/montecarlo.py)."""
    from ..domains import Integer, Real

    n = int(_arg("alpha", Integer(1), alpha))
    q, sigma = _arg("q", Real(0, 1), q), _arg("sigma", NOISE, sigma)
    return [mpmath.log(u) + mpf(k * k - k) / (2 * sigma**2) for k, u, _ in _binomial_terms(n, q, sigma)]


# ---------------------------------------------------------------------------------------------------
# quadrature, any real α, both directions


def _split_point(q, sigma):
    """z0 = σ² log((1 − q)/q) + 1/2, where q·L(z0) = 1 − q: the centre of the integrand's transition."""
    return sigma**2 * (mpmath.log1p(-q) - mpmath.log(q)) + mpf(1) / 2


def _log_integrand(beta, q, sigma):
    """z ↦ −z²/(2σ²) + β·log(1 − q + q L(z)), with log(1 − q + qL) = log(1−q) + softplus((z − z0)/σ²)."""
    z0, inv_s2, log_1mq = _split_point(q, sigma), 1 / sigma**2, mpmath.log1p(-q)

    def log_f(z):
        u = (z - z0) * inv_s2
        softplus = u + mpmath.log1p(mpmath.exp(-u)) if u > 0 else mpmath.log1p(mpmath.exp(u))
        return -z * z * inv_s2 / 2 + beta * (log_1mq + softplus)

    return log_f


def _peaks(beta, q, sigma):
    """Stationary points of the log-integrand −z²/(2σ²) + β·log(1 − q + q L(z)).

    Its derivative is (β·w(z) − z)/σ² with w(z) = qL/(1 − q + qL) ∈ (0, 1) a logistic function of z, so the
    roots of h(z) = z − β·w(z) lie in (min(0,β), max(0,β)). h' = 1 − β·w(1−w)/σ² vanishes at most twice (where
    w(1 − w) = σ²/β), which splits the interval into at most three monotone pieces; each sign change is then
    a single root, found by bisection. The roots only serve as split points of the quadrature, so they are
    located to about 12 digits."""
    z0 = _split_point(q, sigma)
    h = lambda z: z - beta / (1 + mpmath.exp(-(z - z0) / sigma**2))
    lo, hi = (mpf(0), beta) if beta > 0 else (beta, mpf(0))
    cuts = [lo, hi]
    if beta > 4 * sigma**2:
        r = mpmath.sqrt(1 - 4 * sigma**2 / beta)
        for w in ((1 - r) / 2, (1 + r) / 2):
            z = z0 + sigma**2 * (mpmath.log(w) - mpmath.log1p(-w))
            if lo < z < hi:
                cuts.append(z)
    cuts.sort()
    roots = []
    for a, b in zip(cuts[:-1], cuts[1:]):
        ha, hb = h(a), h(b)
        if ha == 0:
            roots.append(a)
        elif hb == 0:
            roots.append(b)
        elif (ha < 0) != (hb < 0):
            roots.append(_bisect(h, a, b, sigma))
    return sorted(set(roots))


def _bisect(h, a, b, scale):
    """The root of a monotone h on [a, b] with a sign change, to about 12 digits relative to |a|+|b|+scale."""
    ha = h(a)
    tol = (abs(a) + abs(b) + scale) * mpf(10) ** -12
    while b - a > tol:
        m = (a + b) / 2
        hm = h(m)
        if hm == 0:
            return m
        if (hm < 0) == (ha < 0):
            a, ha = m, hm
        else:
            b = m
    return (a + b) / 2


def log_moment_quad(beta, q, sigma):
    """log E_{z~N(0,σ²)}[(1 − q + q L(z))^β] by quadrature (β = α: log A_α; β = 1 − α: log B_α)."""
    log_f = _log_integrand(beta, q, sigma)
    peaks = _peaks(beta, q, sigma)
    c = max(log_f(z) for z in peaks)
    drop = (mp.dps + 10) * mpmath.log(10)
    lo, hi = _tail(log_f, min(peaks), -sigma, c - drop), _tail(log_f, max(peaks), sigma, c - drop)
    z0 = _split_point(q, sigma)  # the transition of 1 − q + qL has width σ², which can be ≪ σ
    points = sorted({lo, *peaks, hi} | ({z0} if lo < z0 < hi else set()))
    integral, error = mpmath.quad(lambda z: mpmath.exp(log_f(z) - c), points, error=True)
    if not error <= integral * mpf(10) ** (5 - mp.dps):
        raise PrecisionError(f"SGM quadrature did not converge (β={beta}, q={q}, σ={sigma}): error {error}")
    return c + mpmath.log(integral) - mpmath.log(mpmath.sqrt(2 * mpmath.pi) * sigma)


def _tail(log_f, start, step, level):
    """A point beyond `start` (in the direction of `step`) where log_f < level. The log-integrand is below
    −z²/(2σ²) + const on either tail, so the mass beyond it is below e^{level} times a Gaussian tail."""
    z = start + step
    while log_f(z) >= level:
        step *= 2
        z = start + step
    return z


def _guard_digits(q, sigma) -> int:
    """Extra digits for the quadrature: log A ≈ C(α,2) q² (e^{1/σ²} − 1) can be tiny, and the quadrature
    computes it as a difference of O(1) logarithms."""
    lost = 2 * max(0, -math.log10(float(q))) + 2 * max(0, math.log10(float(sigma)))
    return 10 + int(math.ceil(lost))


SERIES_MAX_TERMS = 400  # fractional α: the series is used when it converges within this many terms ...
SERIES_MIN_ALPHA = 20  # ... and is not even tried below this order (terms ~ k^{−α−2} decay too slowly)


def log_moment(beta, q, sigma):
    """log E_{μ0}[(1 − q + qL)^β], the method chosen per regime:
    integer β ≥ 2: the exact binomial sum; fractional β ≥ SERIES_MIN_ALPHA: the MTZ19 series when it
    converges within SERIES_MAX_TERMS terms, else quadrature; β < 0 (the add direction): quadrature."""
    if beta >= 2 and _is_integer(beta):
        return log_a_binomial(int(beta), q, sigma)
    with mp.workdps(mp.dps + _guard_digits(q, sigma)):
        value = None
        if beta >= SERIES_MIN_ALPHA:
            try:
                value = log_a_series(beta, q, sigma, max_terms=SERIES_MAX_TERMS)
            except PrecisionError:
                value = None
        if value is None:
            value = log_moment_quad(beta, q, sigma)
    return +value


def log_a_series(alpha, q, sigma, max_terms: int = 20000):
    """log A_α by the two-sided series of MTZ19 §3.3 (fractional α). With z0 the split point where qL = 1 − q,
        A_α = Σ_k C(α,k) q^k (1−q)^{α−k} e^{(k²−k)/(2σ²)} ½erfc((k − z0)/(√2σ))
            + Σ_k C(α,k) (1−q)^k q^{α−k} e^{(j²−j)/(2σ²)} ½erfc((z0 − j)/(√2σ)),  j = α − k.
    Terms are summed with their signs until both are below the working precision relative to the sum (after
    k > α their magnitudes decrease, like k^{−α−2}). Raises PrecisionError after `max_terms` terms or when the
    signed sum cancels more than 10 digits (this is where the float libraries fail: bugs B1 and B3)."""
    z0 = _split_point(q, sigma)
    s = mpmath.sqrt(2) * sigma
    total, biggest, coef = mpf(0), mpf(0), mpf(1)
    eps = mpf(10) ** (-mp.dps - 5)
    log_q, log_1mq, half_inv_s2 = mpmath.log(q), mpmath.log1p(-q), 1 / (2 * sigma**2)
    for k in range(max_terms):
        j = alpha - k
        t0 = coef * mpmath.exp(k * log_q + j * log_1mq + (k * k - k) * half_inv_s2) * mpmath.erfc((k - z0) / s) / 2
        t1 = coef * mpmath.exp(k * log_1mq + j * log_q + (j * j - j) * half_inv_s2) * mpmath.erfc((z0 - j) / s) / 2
        total += t0 + t1
        biggest = max(biggest, abs(t0), abs(t1))
        if k > alpha + 1 and max(abs(t0), abs(t1)) < eps * abs(total):
            if biggest > abs(total) * mpf(10) ** 10:
                break
            return mpmath.log(total)
        coef = coef * (alpha - k) / (k + 1)
    raise PrecisionError(f"log_a_series: no convergence in {max_terms} terms or cancellation "
                         f"(α={alpha}, q={q}, σ={sigma})")


# ---------------------------------------------------------------------------------------------------
# the public evaluator


@functools.lru_cache(maxsize=256)
def _add_below_remove(alpha: str, q: str, sigma: str) -> bool:
    """At 20 digits: is D_α(μ0‖μ) ≤ D_α(μ‖μ0) with a margin of 1e-10 relative? (MTZ19 prove ≤.)"""
    with mp.workdps(_CHECK_DPS):
        a, qq, s = mpf(alpha), mpf(q), mpf(sigma)
        add, remove = log_moment(1 - a, qq, s), log_moment(a, qq, s)
        return add <= remove * (1 - mpf("1e-10"))


@self_checked
def sgm_rdp(alpha, q, sigma, direction="max"):
    """Exact RDP of the Poisson-subsampled Gaussian mechanism (MTZ19, arXiv 1908.10530), every real α > 1.

        remove: ε(α) = D_α((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²))
        add:    ε(α) = D_α(N(0,σ²) ‖ (1−q)N(0,σ²) + qN(1,σ²))
        max:    the larger of the two (= remove, MTZ19 Thm 5; checked numerically, see module docstring)

    Sensitivity 1, add/remove neighbours, Poisson sampling with rate q ∈ (0, 1]. q = 1 is the Gaussian
    mechanism, ε(α) = α/(2σ²) (Mironov 2017, Prop. 7), in both directions.
    """
    alpha, q, sigma = _arg("alpha", ALPHA, alpha), _arg("q", SAMPLING_RATE, q), _arg("sigma", NOISE, sigma)
    direction = _arg("direction", DIRECTION, direction)
    if q == 1:
        return alpha / (2 * sigma**2)
    if direction == "remove":
        return log_moment(alpha, q, sigma) / (alpha - 1)
    if direction == "add":
        return log_moment(1 - alpha, q, sigma) / (alpha - 1)
    remove = log_moment(alpha, q, sigma) / (alpha - 1)
    if _add_below_remove(*(mpmath.nstr(x, 30) for x in (alpha, q, sigma))):
        return remove
    return max(remove, log_moment(1 - alpha, q, sigma) / (alpha - 1))


_WITNESS_DIRECTION = lambda p: "add" if p["direction"] == "add" else "remove"

register(Statement(
    id="base.sgm_rdp",
    fast="dpspec.fast.base.sgm:sgm_rdp",
    source=Source("outside", "§3.3 and Thm 5", "exact RDP of the Poisson-subsampled Gaussian (DP-SGD step)",
                  "Mironov, Talwar & Zhang, Rényi DP of the Sampled Gaussian Mechanism, arXiv 1908.10530"),
    kind="rdp",
    claim="exact",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) = max over directions of D_α((1−q)N(0,σ²)+qN(1,σ²) ‖ N(0,σ²)); q=1 gives α/(2σ²)",
    params=(
        Param("alpha", ALPHA, "Rényi order (any real > 1)", example=4),
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.01"),
        Param("sigma", NOISE, "noise multiplier (std / ℓ2 sensitivity)", example=1),
        Param("direction", DIRECTION, "remove: D(P‖Q); add: D(Q‖P); max: both", default="max"),
    ),
    reference=sgm_rdp,
    witnesses=(WitnessUse("base.sgm", lambda p: {"q": p["q"], "sigma": p["sigma"],
                                                 "direction": _WITNESS_DIRECTION(p)},
                          note="for direction=max the remove pair, which dominates (MTZ19 Thm 5)"),),
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"alpha": +1, "q": +1, "sigma": -1},
    note="integer α: exact binomial sum; fractional α and the add direction: quadrature (module docstring)",
))


# ---------------------------------------------------------------------------------------------------
# witness pair: P = mixture, Q = N(0, σ²) (remove) or swapped (add)


def _log_normal(o, mean, s):
    return -0.5 * ((o - mean) / s) ** 2 - np.log(s) - 0.5 * np.log(2 * np.pi)


def _log_mixture(o, q, s):
    q = float(q)
    if q == 1.0:
        return _log_normal(o, 1.0, s)
    return np.logaddexp(np.log1p(-q) + _log_normal(o, 0.0, s), np.log(q) + _log_normal(o, 1.0, s))


def _sgm_sample(rng: np.random.Generator, n: int, q, sigma, direction):
    s = float(sigma)
    if direction == "add":
        return s * rng.standard_normal(n)
    return (rng.random(n) < float(q)).astype(float) + s * rng.standard_normal(n)


def _sgm_log_p(o, q, sigma, direction):
    o, s = np.asarray(o, dtype=float), float(sigma)
    return _log_normal(o, 0.0, s) if direction == "add" else _log_mixture(o, q, s)


def _sgm_log_q(o, q, sigma, direction):
    o, s = np.asarray(o, dtype=float), float(sigma)
    return _log_mixture(o, q, s) if direction == "add" else _log_normal(o, 0.0, s)


def _sgm_log_moment(alpha, q, sigma, direction):
    """log E_Q[(p/q)^α] = (α − 1)·D_α(P‖Q), exact (mpmath)."""
    alpha = to_mpf(alpha)
    return (alpha - 1) * sgm_rdp(alpha, q, sigma, direction)


register_witness(Witness(
    id="base.sgm",
    description="remove: P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²); add: the same pair swapped",
    params=(
        Param("q", SAMPLING_RATE, "Poisson sampling rate", example="0.01"),
        Param("sigma", NOISE, "noise standard deviation", example=1),
        Param("direction", WITNESS_DIRECTION, "which divergence the pair realises", example="remove"),
    ),
    sample=_sgm_sample,
    log_p=_sgm_log_p,
    log_q=_sgm_log_q,
    source="Mironov, Talwar & Zhang 2019 (arXiv 1908.10530)",
    dominating=True,
    log_moment=_sgm_log_moment,
    note="one DP-SGD step on sensitivity-1 neighbours; exact for every statement about the sampled Gaussian",
))
