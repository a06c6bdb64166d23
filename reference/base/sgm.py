"""The Poisson-subsampled Gaussian mechanism (SGM): its exact RDP for every real order α > 1.

Mironov, Talwar & Zhang, "Rényi Differential Privacy of the Sampled Gaussian Mechanism", arXiv 1908.10530
(MTZ19). With sampling rate q, noise σ and sensitivity 1, the neighbouring output distributions are

    μ0 = N(0, σ²)                    (the record is absent)
    μ  = (1 − q)·N(0, σ²) + q·N(1, σ²)  (the record is present, add/remove neighbours)

and the two directions are
    remove: D_α(μ‖μ0) = log A_α / (α − 1),  A_α = E_{z~μ0}[(1 − q + q·L(z))^α],
    add:    D_α(μ0‖μ) = log B_α / (α − 1),  B_α = E_{z~μ0}[(1 − q + q·L(z))^{1−α}],
with the likelihood ratio L(z) = N(1,σ²)(z)/N(0,σ²)(z) = exp((2z − 1)/(2σ²)).

How each quantity is computed (the method is chosen per regime; the work is bounded everywhere):
- closed forms, where a proven two-sided bound pins ε to relative 10^{−(dps+10)} (`_closed_remove`,
  `_closed_add`): remove, q^α e^{α(α−1)/(2σ²)} ≤ A_α ≤ (1+η)^α q^α e^{α(α−1)/(2σ²)} + (1+1/η)^α (1−q)^α, so
  ε = α(log q + (α−1)/(2σ²))/(α−1) once (α−1)/(2σ²) exceeds about log α + 2.3·dps + log(1/q) (every order at
  tiny σ, α = 1e7 or 1e308 at σ = 1: no O(α) sum); add, (1−q)^{1−α}Φ(z*/σ)e^{−τ} ≤ B_α ≤ (1−q)^{1−α}, so
  ε = −log(1 − q) for σ below ~0.01 and for huge α;
- remove, integer 2 ≤ α ≤ BINOMIAL_MAX: the exact binomial sum (MTZ19 §3.3)
      A_α − 1 = Σ_{k=2}^{α} C(α,k) (1−q)^{α−k} q^k (e^{(k²−k)/(2σ²)} − 1),
  a sum of non-negative terms (the k = 0, 1 terms vanish because Σ_k C(α,k)(1−q)^{α−k}q^k = 1), so log A_α =
  log1p(A_α − 1) keeps full relative precision even for q = 1e-8. Cost O(α) multiplications: the terms are
  built by their exact ratio recurrence (mpmath's exponent range is unbounded, so nothing overflows). Larger
  integer orders take the routes below (or the closed form);
- ordinary parameters (2·log10(1/q) + 2·log10 σ ≤ 20 with σ ≥ 0.01, 1e-6 ≤ |β(β−1)|, |β| ≤ 1e4, β = α or 1 − α):
  log A at 10 + 2·log10(1/q) + 2·max(0, log10 σ) guard digits (they cover the cancellation of A − 1 ≈ C(α,2) q² (e^{1/σ²} − 1) against 1):
  - fractional α ≥ SERIES_MIN_ALPHA (remove): `log_a_series`, the two-sided series of MTZ19 §3.3 (the route of
    Opacus and dp-accounting), summed with signs at working precision, when it converges within
    SERIES_MAX_TERMS terms: its terms decay only polynomially (~ k^{−α−2}), so this is the large-α regime (e.g.
    V7, α ≈ 59, in ~100 terms);
  - otherwise, where it applies, the truncated two-sided series below; else `log_moment_quad`: quadrature of
    ∫ N(0,σ²)(z) (1 − q + q L(z))^β dz in log space, split at the stationary points of the integrand (found by
    bisection, see `_peaks`) and truncated where the log-integrand has dropped by more than the working precision
    (tails bounded by a Gaussian);
- the two-sided series of MTZ19 §3.3 truncated with proven bounds (`sgm_series.log_excess_series`, every order
  β = α > 1 or β = 1 − α < 0, q < ½): A − 1 directly as a head of terms, the rest bounded by the concavity of
  log|C(β,k)| in k, the Gaussian tails of the split at qL = (1 − q)τ and Leibniz's bound where the coefficients
  alternate (proof in that module). Its work does not grow with α: about 60 terms at α ≈ 277559, q ≈ 9.39e-7, σ = 100
  (the cliff that the RDP → δ order search of issue 13 probes some 80 times; the ψ quadrature took ~2 s an order
  there at 20 digits, the series ~0.02 s). It applies where the split lies many σ beyond the head (z0/σ large:
  large σ with small q, the regime of DP-SGD accounting) and returns None elsewhere (then the quadratures);
- everything else (tiny q, huge σ, small σ, α near 1, huge |β|), where the truncated series does not apply:
  `log_excess_quad`, the quadrature of
  A − 1 = E_{μ0}[ψ_β(x)], ψ_β(x) = (1 + x)^β − 1 − βx ≥ 0, x = q(e^u − 1) (E_{μ0}[x] = 0), which integrates the
  excess directly (no guard digits for q or σ: q = 1e-320 and σ = 1e308 cost what q = 0.01 and σ = 1 cost), split at
  z = 0, 1, 2, the modes of the integrand, the shoulder at α and the transition z_s of log r (graded split points
  around it); the precision is raised only for the difference inside ψ and for the scale of z/σ, and where that
  would exceed QUAD_MAX_GUARD digits (orders above ~1e40σ, which only occur without a closed form for σ above ~1e37)
  a PrecisionError says so.
The tests cross-check the routes where more than one applies (tests/base/test_sgm.py, test_sgm_edges.py,
test_sgm_large_alpha.py).

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
from ..domains import ALPHA, NOISE, SAMPLING_RATE, Param, Real
from ..errors import PrecisionError
from ..precision import checked_param as _arg, self_checked, to_mpf
from .sgm_series import log_excess_series
from .spec import SAMPLING_RATE_WITH_ZERO, SGM_DIRECTION as DIRECTION, SGM_WITNESS_DIRECTION as WITNESS_DIRECTION

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


def _binomial_excess_terms(n: int, q, sigma) -> list:
    """The terms C(n,k)(1−q)^{n−k} q^k (e^{(k²−k)/(2σ²)} − 1), k = 2..n, of A_n − 1 (all ≥ 0)."""
    terms = []
    for k, u, e_k in _binomial_terms(n, q, sigma):
        if k < 2:
            continue
        g = mpf(k * k - k) / (2 * sigma**2)
        terms.append(u * (mpmath.expm1(g) if g < 1 else e_k - 1))
    return terms


def log_a_binomial(alpha: int, q, sigma):
    """log A_α for integer α ≥ 2 by the exact binomial sum (see module docstring)."""
    return mpmath.log1p(mpmath.fsum(_binomial_excess_terms(int(alpha), q, sigma)))


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
    """Extra digits for log A: log A ≈ C(α,2) q² (e^{1/σ²} − 1) can be tiny, and the quadrature and the series
    compute it as a difference of O(1) logarithms (mpmath logs: q and σ may lie outside the float range)."""
    lost = 2 * max(0, -mpmath.log10(q)) + 2 * max(0, mpmath.log10(sigma))
    return 10 + int(mpmath.ceil(lost))


SERIES_MAX_TERMS = 400  # fractional α: the series is used when it converges within this many terms ...
SERIES_MIN_ALPHA = 20  # ... and is not even tried below this order (terms ~ k^{−α−2} decay too slowly)
ORDINARY_GUARD = 30  # log A (series or quadrature) at up to this many guard digits; beyond, the ψ quadrature
BINOMIAL_MAX = 10**4  # integer orders above this are not summed term by term (O(α) work): see sgm_rdp
QUAD_MAX_GUARD = 80  # guard digits the ψ quadrature may take for the scale of z (beyond: PrecisionError)


def log_moment(beta, q, sigma):
    """log E_{μ0}[(1 − q + qL)^β] = log1p of :func:`log_excess` (kept for the witness and the tests)."""
    return _log1p_exp(log_excess(beta, q, sigma))


def _log1p_exp(x):
    """log(1 + e^x) without overflow (mpmath)."""
    return x + mpmath.log1p(mpmath.exp(-x)) if x > 0 else mpmath.log1p(mpmath.exp(x))


def _closed_small_q(beta, q, sigma):
    """log(A − 1) = log(β(β−1)/2 · q²(e^{1/σ²} − 1)) where a proven remainder bound pins it to 10^{−(dps+10)}
    (relative in A − 1, so in ε), else None: the leading term of the expansion in q, for tiny q (q = 1e-200, 5e-324:
    O(1) work instead of a quadrature).

    With x = q(L − 1) ≥ −q (L = e^{(2z−1)/(2σ²)} > 0, E_{μ0}[x] = 0), Taylor's theorem with Lagrange remainder gives
    ψ_β(x) = (1 + x)^β − 1 − βx = β(β−1)/2·x² + β(β−1)(β−2)/6·(1 + ξ)^{β−3}·x³ with ξ between 0 and x, and
    E_{μ0}[x²] = q²(M(2) − 1) = q²(e^{1/σ²} − 1), M(m) = E_{μ0}[L^m] = e^{m(m−1)/(2σ²)} (the Gaussian MGF, any real
    m). The remainder's expectation is at most |β(β−1)(β−2)|/6 · q³ · E[|L − 1|³ (1 + ξ)^{β−3}], with
    |L − 1|³ ≤ L³ + 1 and: for a = β − 3 ≤ 0, (1 + ξ)^a ≤ (1 − q)^a (1 + ξ ≥ 1 − q), so E[...] ≤ (1 − q)^a (M(3) + 1);
    for a > 0, (1 + ξ)^a ≤ (1 + q + qL)^a ≤ 2^a((1 + q)^a + q^a L^a), so
    E[...] ≤ 2^a((1 + q)^a (M(3) + 1) + q^a (M(3 + a) + M(a))). The ratio r of the remainder to the leading term is
    then at most |β − 2|/3 · q · E[...]/(e^{1/σ²} − 1); where r ≤ 10^{−(dps+10)}, log(A − 1) is the leading term's
    log to within 2r."""
    if not (beta < 0 or beta > 1) or not q < mpf("1e-3"):
        return None
    inv = 1 / sigma**2
    log_m = lambda m: m * (m - 1) * inv / 2  # noqa: E731  log M(m)
    a = beta - 3
    log_m3p1 = _log1p_exp(log_m(3))  # log(M(3) + 1)
    if a <= 0:
        log_e = a * mpmath.log1p(-q) + log_m3p1
    else:
        second = a * mpmath.log(q) + mpmath.log(mpmath.exp(log_m(3 + a) - log_m(a)) + 1) + log_m(a)
        first = a * mpmath.log1p(q) + log_m3p1
        big = max(first, second)
        log_e = a * mpmath.log(2) + big + mpmath.log1p(mpmath.exp(min(first, second) - big))
    log_lead_scale = mpmath.log(mpmath.expm1(inv))
    log_r = mpmath.log(abs(beta - 2) / 3) + mpmath.log(q) + log_e - log_lead_scale if beta != 2 else -_inf()
    if log_r > -(mp.dps + 10) * mpmath.log(10):
        return None
    return mpmath.log(beta * (beta - 1) / 2) + 2 * mpmath.log(q) + log_lead_scale


def _inf():
    return mpf("inf")


def log_excess(beta, q, sigma):
    """log(E_{μ0}[(1 − q + qL)^β] − 1) for integer β ≥ 2, β > 1 or β < 0, 0 < q < 1, the method chosen per regime:
    - tiny q where the remainder bound of :func:`_closed_small_q` pins it: the leading term β(β−1)/2·q²(e^{1/σ²} − 1);
    - integer 2 ≤ β ≤ BINOMIAL_MAX: the exact binomial sum (A − 1 is its sum of positive terms);
    - ordinary parameters (at most ORDINARY_GUARD guard digits for q and σ, σ ≥ 0.01, 1e-6 ≤ |β(β−1)|,
      |β| ≤ 1e4): log A at mp.dps + guard digits, then A − 1 = expm1(log A) — by the MTZ19 series for fractional
      β ≥ SERIES_MIN_ALPHA when it converges within SERIES_MAX_TERMS terms (tried only for β < SERIES_MAX_TERMS − 2:
      it stops after k > β + 1 terms), else by the truncated series or :func:`log_moment_quad`;
    - the MTZ19 two-sided series truncated with proven bounds (:func:`sgm_series.log_excess_series`), any β with
      q < ½ where it applies (its head ends well before the split point z0; large σ, small q, any |β|): A − 1
      directly, the omitted terms bounded to 10^{−(dps+10)} relative;
    - otherwise (tiny q, huge σ, small σ, α near 1, huge |β|): the quadrature of E[ψ_β(x)]
      (:func:`log_excess_quad`), which integrates A − 1 directly and needs no guard digits for tiny q or huge σ
      (the routes agree where both apply: tests/base/test_sgm_edges.py)."""
    closed = _closed_small_q(beta, q, sigma)
    if closed is not None:
        return closed
    if 2 <= beta <= BINOMIAL_MAX and _is_integer(beta):
        return mpmath.log(mpmath.fsum(_binomial_excess_terms(int(beta), q, sigma)))
    guard = _guard_digits(q, sigma)
    ordinary = (guard <= ORDINARY_GUARD and sigma >= mpf("0.01") and abs(beta) <= 10**4
                and abs(beta * (beta - 1)) >= mpf("1e-6"))
    if ordinary and SERIES_MIN_ALPHA <= beta < SERIES_MAX_TERMS - 2:  # (it stops only after k > β + 1 terms)
        with mp.workdps(mp.dps + guard):
            try:
                log_a = log_a_series(beta, q, sigma, max_terms=SERIES_MAX_TERMS)
            except PrecisionError:
                log_a = None
            if log_a is not None and log_a > 0:
                return +mpmath.log(mpmath.expm1(log_a))
    truncated = log_excess_series(beta, q, sigma)
    if truncated is not None:
        return truncated
    if ordinary:
        with mp.workdps(mp.dps + guard):
            log_a = log_moment_quad(beta, q, sigma)
            if log_a > 0:
                return +mpmath.log(mpmath.expm1(log_a))
    return log_excess_quad(beta, q, sigma)


# ---------------------------------------------------------------------------------------------------
# quadrature of A − 1 = E_{μ0}[ψ_β(x)], ψ_β(x) = (1 + x)^β − 1 − βx ≥ 0 (x = q(e^u − 1), E_{μ0}[x] = 0)


def _log_psi(beta, q, u):
    """log ψ_β(x) at x = q·(e^u − 1), at the current precision plus the 6 guard digits the caller adds.

    Where |x|·(|β| + 2) ≤ 1e-4: the series ψ = y² Σ_{j≥2} c_j y^{j−2}, y = βx, c_2 = (β − 1)/(2β),
    c_{j+1} = c_j (β − j)/((j + 1)β), whose terms fall by 1e4× at least (summed until below the precision).
    Elsewhere, with L = log(1 + x) (formed as log(1 − q + q e^u) where x < −1/2, q → 1), M = x − L ≥ 0,
    R = L − x/(1 + x) ≥ 0 and E2(y) = e^y − 1 − y ≥ 0, sums of non-negative terms (as in the fast path):
        β ∈ (1, 2):  ψ = (1 + x)·[E2((β−1)L) + (β−1)R],   β ≤ 0:  ψ = E2(βL) + |β|M,
        β ≥ 2:       ψ = E2(βL) − βM  (βM ≤ E2(βL)/2).
    No term needs digits that depend on β − 1 or β (α near 1, huge |β|): E2(y), M and R are formed as
    differences with absolute errors 10^{−p}·|y| or 10^{−p}·|x|, and since |βx| > 1e-4·|β|/(|β| + 2) here, each is
    below 10^{5.5−p} relative to ψ (ψ ≥ y²/2 for β ≤ 0, ≥ β(β−1)x²/2·(1 − O(y)) for β ≥ 2, ≥ (β−1)x²/2·(1 − O(x))
    for β ∈ (1, 2))."""
    em1 = mpmath.expm1(u)
    if em1 == 0:
        return mpf("-inf")
    x = q * em1
    log_ax = mpmath.log(q) + mpmath.log(abs(em1))
    if abs(x) * (abs(beta) + 2) <= mpf("1e-4"):
        y, inv = beta * x, 1 / beta
        coef, total, power, j = (beta - 1) * inv / 2, mpf(0), mpf(1), 2
        eps = mpf(2) ** (-mp.prec - 4)
        while True:
            term = coef * power
            total += term
            if abs(term) <= eps * abs(total):
                break
            coef, power, j = coef * (beta - j) * inv / (j + 1), power * y, j + 1
        return 2 * (mpmath.log(abs(beta)) + log_ax) + mpmath.log(total)
    log_1px = mpmath.log1p(x) if x > -0.5 else mpmath.log(1 - q + q * mpmath.exp(u))
    e2 = lambda y: mpmath.expm1(y) - y  # noqa: E731
    if 1 < beta < 2:
        eps = beta - 1
        psi = e2(eps * log_1px) + eps * (log_1px - x * mpmath.exp(-log_1px))  # 1 + x = e^L (x ≈ −1 when q → 1)
        log_psi = log_1px + mpmath.log(psi) if psi > 0 else None
    else:
        psi = e2(beta * log_1px) - beta * (x - log_1px)
        log_psi = mpmath.log(psi) if psi > 0 else None
    if log_psi is None:
        raise PrecisionError(f"SGM ψ lost all digits (β={mpmath.nstr(beta, 20)}, q={mpmath.nstr(q, 20)}, u={u})")
    return log_psi


def _negative_mode(beta, q, sigma):
    """The mode of φ·r^β for β < 0 (log-concave): the root of h(z) = z − β·w(z), increasing, in [β·w(0), 0]
    (w the posterior weight of the shifted component). Bisection in v = asinh(−z/σ), to 1e-6 in v (the mode is
    only a split point of the quadrature), with the sign of h taken in logs (|β| may be astronomically large)."""
    z_s = _split_point(q, sigma)
    log_w = lambda z: -_log1p_exp(-(z - z_s) / sigma**2)  # noqa: E731  log w(z)
    log_b = mpmath.log(-beta)
    hi = mpmath.asinh(mpmath.exp(log_b + log_w(mpf(0))) / sigma)
    lo = mpf(0)
    while hi - lo > mpf(10) ** -6:
        mid = (lo + hi) / 2
        z = -sigma * mpmath.sinh(mid)
        if mpmath.log(-z) < log_b + log_w(z):  # h(z) > 0: the root lies further left
            lo = mid
        else:
            hi = mid
    return -sigma * mpmath.sinh((lo + hi) / 2)


def _quad_features(beta, q, sigma):
    """Where the integrand φ·ψ_β has its mass or its structure: z = 0, 1, 2 (ψ's terms in x and x²), the modes of
    φ·r^β (for β > 0 its stationary points, :func:`_peaks`, and its shoulder at z = β), and the transition z_s of
    log r, whose analyticity strip is πσ² wide (with split points graded from σ² up to σ around it)."""
    z_s = _split_point(q, sigma)
    feats = [mpf(0), mpf(1), mpf(2), z_s]
    feats += (_peaks(beta, q, sigma) + [beta]) if beta > 0 else [_negative_mode(beta, q, sigma)]
    graded = []
    if sigma < 1:
        step = sigma**2
        while step < sigma and len(graded) < 80:
            graded += [z_s - step, z_s + step]
            step *= 8
    return feats, graded


def log_excess_quad(beta, q, sigma):
    """log(E_{μ0}[r^β] − 1) = log ∫ N(0,σ²)(z) ψ_β(x(z)) dz by tanh-sinh quadrature, split at the features
    (:func:`_quad_features`), truncated where the log-integrand has dropped by more than the working precision
    (tails bounded by a Gaussian). The working precision is raised by the digits the difference in ψ needs and by
    2·log10(1 + Z/σ), Z the largest feature, for the rounding of u = (2z − 1)/(2σ²) at the nodes."""
    psi_digits = 6  # see _log_psi
    feats, _ = _quad_features(beta, q, sigma)
    z_s, others = feats[3], feats[:3] + feats[4:]
    span = max(abs(f) for f in others)
    if abs(z_s) <= span + 40 * sigma:  # a transition far out in the Gaussian tail carries no mass
        span = max(span, abs(z_s))
    z_digits = int(mpmath.ceil(2 * mpmath.log10(1 + span / sigma)))
    if z_digits > QUAD_MAX_GUARD:
        raise PrecisionError(
            f"base.sgm_rdp: the quadrature at alpha={mpmath.nstr(beta if beta > 0 else 1 - beta, 15)}, "
            f"sigma={mpmath.nstr(sigma, 15)} would need {z_digits} guard digits (mass at {mpmath.nstr(span / sigma, 5)} "
            f"standard deviations; limit {QUAD_MAX_GUARD} digits): orders above ~1e40σ with σ above ~1e37 "
            "are not supported")
    with mp.workdps(mp.dps + 10 + psi_digits + z_digits):
        beta, q, sigma = +beta, +q, +sigma
        inv2s2 = 1 / (2 * sigma**2)

        def log_f(z):
            return -z * z * inv2s2 + _log_psi(beta, q, (2 * z - 1) * inv2s2)

        feats, graded = _quad_features(beta, q, sigma)
        values = [log_f(z) for z in feats]
        c = max(values)
        drop = (mp.dps + 10) * mpmath.log(10)
        # a feature where the integrand is below the truncation level carries no mass (e.g. the transition z_s
        # far out in the Gaussian tail when σ² log(1/q) ≫ σ): it would only stretch the tails' search
        kept = [z for z, v in zip(feats, values) if v >= c - drop]
        if feats[3] not in kept:
            graded = []
        feats = kept
        lo, hi = _tail(log_f, min(feats), -sigma, c - drop), _tail(log_f, max(feats), sigma, c - drop)
        # each feature's Gaussian scale is split off (σ ≪ the distance between features: an interval with a bump
        # of width σ at one end converges slowly in tanh-sinh at high precision)
        merged = []  # features closer than σ/1000 are one split point (0, 1, 2 when σ is huge)
        for z in sorted(feats):
            if not merged or z - merged[-1] > sigma / 1000:
                merged.append(z)
        near = [z + k * sigma for z in merged for k in (-8, 8)]
        points = sorted({lo, hi, *(z for z in merged + graded + near if lo < z < hi)})
        integral, error = mpmath.quad(lambda z: mpmath.exp(log_f(z) - c), points, error=True)
        if not error <= integral * mpf(10) ** (5 - mp.dps):
            raise PrecisionError(f"SGM ψ quadrature did not converge (β={mpmath.nstr(beta, 20)}, "
                                 f"q={mpmath.nstr(q, 20)}, σ={mpmath.nstr(sigma, 20)}): error {mpmath.nstr(error, 5)}")
        value = c + mpmath.log(integral) - mpmath.log(mpmath.sqrt(2 * mpmath.pi) * sigma)
    return +value


# ---------------------------------------------------------------------------------------------------
# closed forms where a proven two-sided bound pins ε to 10^{−(dps+10)} relative (huge α, tiny σ)


def _closed_remove(alpha, q, sigma):
    """ε (remove) where M = q^α e^{α(α−1)/(2σ²)} ≤ A_α ≤ (1+η)^α M + (1+1/η)^α (1−q)^α pins it, else None.

    The bounds: (1 − q + qe^u)^α ≥ (qe^u)^α, and for any η > 0, 1 − q + qe^u ≤ max((1+η)qe^u, (1+1/η)(1−q))
    (split at qe^u = (1−q)/η); E_{μ0}[e^{αu}] = e^{α(α−1)/(2σ²)} (u = (2z − 1)/(2σ²)), so log A = log M + Δ with
    0 ≤ Δ ≤ αη + e^D, D = α(log(1 + 1/η) + log(1−q)) − log M. With K = log q + (α−1)/(2σ²) (log M = αK),
    η = δ/α and δ = ½·10^{−k}·αK: if K > 0 and D ≤ log δ then Δ ≤ 2δ = 10^{−k} log M, and
    ε = log A/(α − 1) = αK/(α − 1) to relative 10^{−k}, k = dps + 10. This holds when (α−1)/(2σ²) exceeds about
    log α + 2.3k + log(1/q): every order at tiny σ, and α = 1e7 or 1e308 at σ = 1 (no O(α) sum, no quadrature)."""
    K = mpmath.log(q) + (alpha - 1) / (2 * sigma**2)
    if not K > 0:
        return None
    log_delta = mpmath.log(mpf(10) ** -(mp.dps + 10) / 2) + mpmath.log(alpha) + mpmath.log(K)
    D = alpha * (_log1p_exp(mpmath.log(alpha) - log_delta) - K + mpmath.log1p(-q))
    return alpha * K / (alpha - 1) if D <= log_delta else None


def _closed_add(alpha, q, sigma):
    """ε (add) = −log(1 − q) where the bounds below pin it to relative 10^{−(dps+10)}, else None.

    B_α = (1−q)^{1−α}·I, I = E_{μ0}[(1 + y)^{−(α−1)}] ∈ (0, 1], y = e^{(z − z_s)/σ²}, z_s = ½ + σ² log((1−q)/q).
    The integrand is ≥ e^{−(α−1)y(z*)} for z ≤ z*, so I ≥ Φ(z*/σ)·e^{−τ}, τ = (α−1)y(z*). With y(z*) = τ' =
    ½·10^{−k}·(−log(1 − q)): −log(1−q) − τ' − (−log Φ(z*/σ))/(α−1) ≤ ε ≤ −log(1−q), and the closed form holds
    when the last term is ≤ τ' too (−log Φ(t) ≤ erfc(t/√2) for t ≥ 0). Every σ below ~0.01, huge α."""
    c = -mpmath.log1p(-q)
    log_tau = mpmath.log(mpf(10) ** -(mp.dps + 10) / 2) + mpmath.log(c)
    t = (mpf(1) / 2 + sigma**2 * (mpmath.log1p(-q) - mpmath.log(q) + log_tau)) / sigma
    # log of an upper bound on −log Φ(t): erfc(t/√2) (t ≥ 0), with erfc(x) ≤ e^{−x²}/(x√π) beyond t = 10;
    # for t < −10 the Mills bound Φ(t) ≥ φ(t)|t|/(1 + t²) (mpmath's erfc overflows at |t| ~ 1e150)
    if t > 10:
        log_bound = -t * t / 2 - mpmath.log(t * mpmath.sqrt(mpmath.pi / 2))
    elif t >= 0:
        log_bound = mpmath.log(mpmath.erfc(t / mpmath.sqrt(2)))
    elif t > -10:
        log_bound = mpmath.log(-mpmath.log(mpmath.ncdf(t)))
    else:
        log_bound = mpmath.log(t * t / 2 + mpmath.log(mpmath.sqrt(2 * mpmath.pi) * (1 + t * t) / -t))
    return c if log_bound - mpmath.log(alpha - 1) <= log_tau else None


def _eps_remove(alpha, q, sigma):
    closed = _closed_remove(alpha, q, sigma)
    if closed is not None:
        return closed
    if _is_integer(alpha) and alpha > BINOMIAL_MAX:
        span = alpha / sigma
        if 2 * mpmath.log10(1 + span) > QUAD_MAX_GUARD:
            raise PrecisionError(f"base.sgm_rdp: integer alpha={mpmath.nstr(alpha, 15)} > {BINOMIAL_MAX} at "
                                 f"sigma={mpmath.nstr(sigma, 15)} has no closed form here and its quadrature would need "
                                 f"{int(2 * mpmath.log10(1 + span))} guard digits (limit {QUAD_MAX_GUARD}): orders above "
                                 "~1e40σ with σ above ~1e37 are not supported")
    return _log1p_exp(log_excess(alpha, q, sigma)) / (alpha - 1)


def _eps_add(alpha, q, sigma):
    closed = _closed_add(alpha, q, sigma)
    if closed is not None:
        return closed
    return _log1p_exp(log_excess(1 - alpha, q, sigma)) / (alpha - 1)


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
def _add_below_remove(alpha: str, q: str, sigma: str, remove: str) -> bool:
    """At 20 digits: is D_α(μ0‖μ) ≤ D_α(μ‖μ0) (= ``remove``, already computed by the caller at the working
    precision) with a margin of 1e-10 relative? (MTZ19 prove ≤.)"""
    with mp.workdps(_CHECK_DPS):
        a, qq, s = mpf(alpha), mpf(q), mpf(sigma)
        return _eps_add(a, qq, s) <= mpf(remove) * (1 - mpf("1e-10"))


@self_checked
def sgm_rdp(alpha, q, sigma, direction="max"):
    """Exact RDP of the Poisson-subsampled Gaussian mechanism (MTZ19, arXiv 1908.10530), every real α > 1.

        remove: ε(α) = D_α((1−q)N(0,σ²) + qN(1,σ²) ‖ N(0,σ²))
        add:    ε(α) = D_α(N(0,σ²) ‖ (1−q)N(0,σ²) + qN(1,σ²))
        max:    the larger of the two (= remove, MTZ19 Thm 5; checked numerically, see module docstring)

    Sensitivity 1, add/remove neighbours, Poisson sampling with rate q ∈ [0, 1]. q = 1 is the Gaussian
    mechanism, ε(α) = α/(2σ²) (Mironov 2017, Prop. 7), in both directions; q = 0 never samples the record
    (P = Q = N(0, σ²)): ε(α) = 0 exactly.
    """
    alpha, q, sigma = _arg("alpha", ALPHA, alpha), _arg("q", SAMPLING_RATE_WITH_ZERO, q), _arg("sigma", NOISE, sigma)
    direction = _arg("direction", DIRECTION, direction)
    if q == 0:
        return mpf(0)
    if q == 1:
        return alpha / (2 * sigma**2)
    if direction == "remove":
        return _eps_remove(alpha, q, sigma)
    if direction == "add":
        return _eps_add(alpha, q, sigma)
    remove = _eps_remove(alpha, q, sigma)
    if remove >= -mpmath.log1p(-q):  # add ≤ −log(1 − q) always (r ≥ 1 − q and 1 − α < 0): settled
        return remove
    if _add_below_remove(*(mpmath.nstr(x, 30) for x in (alpha, q, sigma, remove))):
        return remove
    return max(remove, _eps_add(alpha, q, sigma))


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
        Param("q", SAMPLING_RATE_WITH_ZERO, "Poisson sampling rate (0: the record is never sampled)",
              example="0.01"),
        Param("sigma", NOISE, "noise multiplier (std / ℓ2 sensitivity)", example=1),
        Param("direction", DIRECTION, "remove: D(P‖Q); add: D(Q‖P); max: both", default="max"),
    ),
    reference=sgm_rdp,
    witnesses=(WitnessUse("base.sgm", lambda p: {"q": p["q"], "sigma": p["sigma"],
                                                 "direction": _WITNESS_DIRECTION(p)},
                          note="for direction=max the remove pair, which dominates (MTZ19 Thm 5)"),),
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"alpha": +1, "q": +1, "sigma": -1},
    note="closed forms with proven bounds at huge α/σ² and small σ; integer α ≤ 1e4: exact binomial sum; "
         "otherwise the MTZ19 series or a quadrature (of log A, or of A − 1 at tiny q, huge σ, α → 1) (module docstring)",
))


# ---------------------------------------------------------------------------------------------------
# witness pair: P = mixture, Q = N(0, σ²) (remove) or swapped (add)
#
# The witness's exact moment is computed from the pair's own densities, never through sgm_rdp (issue 12: the exact
# conformance check must not compare the reference with itself): mpmath quadrature of p^α q^{1−α} (any real α,
# both directions) and, for the remove direction at integer 0 ≤ α ≤ WITNESS_BINOMIAL_MAX, the binomial expansion of
# E_Q[(1 − q + qL)^α] with the Gaussian moments E_Q[L^k] = e^{k(k−1)/(2σ²)} (MTZ19 §3.3, written out again here;
# no code is shared with the reference routes above). tests/conformance/test_witnesses.py checks both routes
# against each other, against sgm_rdp, and the sampler against them.

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


WITNESS_BINOMIAL_MAX = 256  # remove direction, integer α up to this: the O(α) binomial sum; above it, quadrature
WITNESS_GL_MAX_DPS = 80  # Gauss–Legendre up to this precision (fewer integrand calls), tanh-sinh above
WITNESS_PIECE = 32  # quadrature pieces wider than this many of the integrand's length scales are split further
WITNESS_MAX_GUARD = 2000  # digits a witness moment may add for cancellation (log M ≈ 0) before it refuses
_WITNESS_ALPHA = Real(-math.inf, math.inf)  # any finite real order (the moments of these pairs are all finite)


def witness_order(alpha):
    """α of a witness's ``log_moment`` as an mpf: any finite real (DomainError otherwise, NaN included)."""
    return _arg("alpha", _WITNESS_ALPHA, alpha)


def witness_guarded(compute, who: str, cancelled=0):
    """log M = compute() with enough digits for a log M near 0. ``cancelled``: an a-priori count of the digits that
    M − 1 may lose against 1 (where M − 1 is below 10^{−(dps+10)}, M rounds to 1 and no a-posteriori test can see
    it). First at mp.dps + 10 + cancelled digits; then, where |log M| is below 10^{−10−cancelled} all the same (the
    a-priori count was short), again with log10(1/|log M|) extra digits. The digits are rounded up to a multiple
    of 10 (quadrature nodes are cached per precision). At most WITNESS_MAX_GUARD extra digits in all
    (PrecisionError beyond). ``compute`` reads its inputs again at the precision it finds."""
    extra = int(mpmath.ceil(max(0, cancelled)))
    for _ in range(2):
        if extra > WITNESS_MAX_GUARD:
            raise PrecisionError(f"{who}: the log moment needs more than {WITNESS_MAX_GUARD} guard digits")
        with mp.workdps(-(-(mp.dps + 10 + extra) // 10) * 10):
            value = compute()
        if value == 0 or abs(value) >= mpf(10) ** (-10 - extra):
            break
        extra = int(mpmath.ceil(-mpmath.log10(abs(value))))
    return +value


def witness_log_quad(log_f, points, who: str, scale=None):
    """log ∫ e^{log_f(x)} dx over [points[0], points[−1]], split at the sorted ``points`` (put the integrand's peaks
    there, so that each piece is smooth and at most unimodal): Gauss–Legendre quadrature of e^{log_f − m}, m the
    largest log_f at a breakpoint (tanh-sinh above WITNESS_GL_MAX_DPS digits, where Legendre nodes take seconds to
    build: 3.6 s at 100 digits, measured). ``scale``: the integrand's length scale (a Gaussian's σ); a piece wider than
    WITNESS_PIECE scales (a peak at one end and a long tail, e.g. the remove pair's [z0, α] at α = 1e4) is split
    further at scale·2^j from both ends, so that no sub-piece asks a low-degree polynomial to follow a Gaussian over
    many widths (O(log(width/scale)) sub-pieces). PrecisionError when mpmath's error estimate exceeds 10^{5−dps}
    of the integral."""
    pts = sorted(set(points))
    if scale is not None:
        extra = []
        for u, v in zip(pts[:-1], pts[1:]):
            if v - u > WITNESS_PIECE * scale:
                step = scale
                while 2 * step < v - u:
                    extra += [u + step, v - step]
                    step *= 2
        pts = sorted(set(pts) | set(extra))
    shift = max(log_f(x) for x in pts)
    method = "gauss-legendre" if mp.dps <= WITNESS_GL_MAX_DPS else "tanh-sinh"
    value, err = mpmath.quad(lambda x: mpmath.exp(log_f(x) - shift), pts, method=method, error=True)
    if not value > 0 or err > value * mpf(10) ** (5 - mp.dps):
        raise PrecisionError(f"{who}: quadrature error {mpmath.nstr(err, 3)} on {mpmath.nstr(value, 5)}")
    return shift + mpmath.log(value)


def witness_truncation(beta, log_cap=0):
    """Half-width, in standard deviations, beyond which the tails of ∫ N(x; c, s²)·f(x) dx are below
    10^{−(dps+10)} of the integral, when f ≤ e^{log_cap}·(its value scale) there: sqrt(2(ln 10·(dps + 10) + log_cap)) + 1
    (the Gaussian tail Φ(−L) ≤ e^{−L²/2})."""
    return mpmath.sqrt(2 * (mpmath.log(10) * (mp.dps + 10) + log_cap)) + 1


def _mp_log_normal(o, mean, sigma):
    return -((o - mean) / sigma) ** 2 / 2 - mpmath.log(sigma) - mpmath.log(2 * mpmath.pi) / 2


def _mp_log_mixture(o, q, sigma):
    """log((1 − q)N(o; 0, σ²) + qN(o; 1, σ²)) in mpmath: the mixture P of the remove direction."""
    one = mpmath.log(q) + _mp_log_normal(o, 1, sigma)
    if q == 1:
        return one
    zero = mpmath.log1p(-q) + _mp_log_normal(o, 0, sigma)
    m = max(zero, one)
    return m + mpmath.log(mpmath.exp(zero - m) + mpmath.exp(one - m))


def _sgm_lost_digits(alpha, q, sigma):
    """Digits M − 1 may lose against 1, a priori: M − 1 ≈ C(α,2)q²(e^{1/σ²} − 1) for small q (β = α or 1 − α alike),
    so 2·log10(1/q) + 2·log10 σ (σ > 1) + log10(1/|α(α−1)|)."""
    q, sigma, alpha = to_mpf(q), to_mpf(sigma), to_mpf(alpha)
    return (2 * max(0, -mpmath.log10(q)) + 2 * max(0, mpmath.log10(sigma))
            + sum(max(0, -mpmath.log10(abs(v))) for v in (alpha, alpha - 1) if v != 0))


def _sgm_witness_densities(q, sigma, direction):
    """(log p, log q) of the pair in mpmath, the same pair as _sgm_log_p/_sgm_log_q (tested against them)."""
    mix = lambda o: _mp_log_mixture(o, q, sigma)
    normal = lambda o: _mp_log_normal(o, 0, sigma)
    return (normal, mix) if direction == "add" else (mix, normal)


def sgm_witness_log_moment_quad(alpha, q, sigma, direction):
    """log ∫ p^α q^{1−α} do by quadrature of the pair's own densities (any real α, both directions).

    In o the integrand is N(o; 0, σ²)·r(o)^β with r = 1 − q + qL = (mixture)/N(0, σ²), β = α (remove) or 1 − α
    (add). Since min(1, L) ≤ r ≤ max(1, L) (a convex combination) and 1 − q ≤ r, the integrand is below
    N(o; 0, σ²)·c + c'·N(o; β, σ²)·(the β-tilted Gaussian's mass) with c, c' ≤ 2^{|β|}(1−q)^{−|β|} times the
    integral, so cutting at L(β)·σ beyond 0 and β (:func:`witness_truncation`) loses < 10^{−(dps+10)} relative.
    Breakpoints: 0 and β (the two tilted peaks) and z0 = σ² log((1−q)/q) + 1/2 (where qL = 1 − q)."""
    witness_order(alpha), _arg("q", SAMPLING_RATE, q), _arg("sigma", NOISE, sigma)
    direction = _arg("direction", WITNESS_DIRECTION, direction)

    def compute():  # the inputs are read again at each precision (a string '0.01' is one hundredth at every one)
        a, qq, s = to_mpf(alpha), to_mpf(q), to_mpf(sigma)
        log_p, log_q = _sgm_witness_densities(qq, s, direction)
        beta = a if direction == "remove" else 1 - a
        cap = abs(beta) * (mpmath.log(2) - (mpmath.log1p(-qq) if qq < 1 else 0))
        half = witness_truncation(beta, cap) * s
        lo, hi = min(0, beta) - half, max(0, beta) + half
        points = [lo, mpf(0), beta, hi]
        if qq < 1:
            z0 = s**2 * (mpmath.log1p(-qq) - mpmath.log(qq)) + mpf(1) / 2
            if lo < z0 < hi:
                points.append(z0)
        return witness_log_quad(lambda o: a * log_p(o) + (1 - a) * log_q(o), points, "base.sgm witness", s)

    return witness_guarded(compute, "base.sgm witness", _sgm_lost_digits(alpha, q, sigma))


def sgm_witness_log_moment_binomial(alpha: int, q, sigma):
    """log E_Q[(1 − q + qL)^n], remove direction, integer n ≥ 0: Σ_k C(n,k)(1−q)^{n−k} q^k E_Q[L^k] with
    E_Q[L^k] = E_{o~N(0,σ²)}[e^{k(2o−1)/(2σ²)}] = e^{−k/(2σ²)}·e^{k²/(2σ²)} (the Gaussian MGF), in log space."""
    n = int(alpha)
    _arg("q", SAMPLING_RATE, q), _arg("sigma", NOISE, sigma)

    def compute():
        qq, s = to_mpf(q), to_mpf(sigma)
        if qq == 1:
            return mpf(n * (n - 1)) / (2 * s**2)
        lq, l1q = mpmath.log(qq), mpmath.log1p(-qq)
        terms = [mpmath.log(mpmath.binomial(n, k)) + k * lq + (n - k) * l1q + mpf(k * (k - 1)) / (2 * s**2)
                 for k in range(n + 1)]
        m = max(terms)
        return m + mpmath.log(mpmath.fsum(mpmath.exp(t - m) for t in terms))

    return witness_guarded(compute, "base.sgm witness", _sgm_lost_digits(n, q, sigma))


def _sgm_log_moment(alpha, q, sigma, direction):
    """log E_Q[(p/q)^α] = (α − 1)·D_α(P‖Q) of the witness pair, exact (mpmath), from the pair's own densities:
    the binomial sum for the remove direction at integer 0 ≤ α ≤ WITNESS_BINOMIAL_MAX, quadrature otherwise (never
    through sgm_rdp)."""
    alpha = witness_order(alpha)
    direction = _arg("direction", WITNESS_DIRECTION, direction)
    if alpha in (0, 1):
        _arg("q", SAMPLING_RATE, q), _arg("sigma", NOISE, sigma)
        return mpf(0)  # E_Q[1] = E_Q[p/q] = 1 (P ≪ Q and Q ≪ P)
    if direction == "remove" and alpha == int(alpha) and 0 <= alpha <= WITNESS_BINOMIAL_MAX:
        return sgm_witness_log_moment_binomial(int(alpha), q, sigma)
    return sgm_witness_log_moment_quad(alpha, q, sigma, direction)


def _sgm_tilt_family(q, sigma, direction):
    """conformance/tilting.py's family: the remove pair is a Gaussian mixture against N(0, σ²); add has none."""
    if direction == "add":
        return None
    return {"family": "gaussian_mixture", "weights": [1.0 - float(q), float(q)], "shifts": [0.0, 1.0],
            "center": 0.0, "sigma": float(sigma)}


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
    tilt_family=_sgm_tilt_family,
    note="one DP-SGD step on sensitivity-1 neighbours; exact for every statement about the sampled Gaussian",
))
