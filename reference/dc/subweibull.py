"""Sub-Weibull facts of seed 004, Appendix A.1–A.2 (L558–L646): Definition A.1 (property 4 ⇒ 1), Assumption 3.1 made
evaluable (the minimal Orlicz scale K̂_θ of a sample), Lemma A.1 (quantile), Lemma A.2 (sums, g(θ)), Lemma A.3
(sub-Weibull Freedman, a(θ) and b(θ)) and Lemma A.6 (moments); and the θ test of notes §2-test/§4.5 (numpy, not in
the paper). Notes: shared/notes/dc-dpsgd.md §2 (A3.1, Def A.1, Lemmas A.1–A.3, A.6, §2-test), §4.5, §6 E10/E12, §8.

Public helpers (contract, helper A): :func:`freedman_a`, :func:`freedman_b`, :func:`sum_constant_g`,
:func:`moment_bound`, :func:`tail_quantile`, :func:`orlicz_k` (numpy → float), and the θ test
:func:`theta_weibull_plot`, :func:`theta_moment_slope`, :func:`hill_index`, :func:`growth_test`. Lemmas A.4, A.5,
A.7–A.9 and :func:`ahlswede_winter` live in :mod:`.concentration`.

Branch boundaries (erratum E10): Lemma A.3's constants change form at θ = 1/2 (first case: θ = 1/2 exactly) and at
θ = 1 (second case: θ ∈ (1/2, 1]); the branch is chosen from the *exact* value of θ (a Fraction of the input:
ints, floats, decimal strings, Fractions and mpf are all read exactly), never from a rounded one.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from ..errors import ConditionError, DomainError, ParameterError
from ..precision import self_checked, to_mpf
from . import spec

MADDEN = "Madden, Dall'Anese & Becker, High-probability convergence bounds for non-convex stochastic gradient " \
         "descent with sub-Weibull noise (arXiv 2006.05610), 2020"
VLADIMIROVA = "Vladimirova, Girard, Nguyen & Arbel, Sub-Weibull distributions: generalizing sub-Gaussian and " \
              "sub-exponential properties to heavier tailed distributions, Stat 2020 (arXiv 1905.04955)"

HALF = Fraction(1, 2)

# ---------------------------------------------------------------------------------------------------------------
# exact branch selection (E10)


def exact(x) -> Fraction:
    """``x`` as an exact Fraction: ints, floats (their binary value), decimal strings (the decimal value), Fractions
    and mpf (mantissa·2^exponent). Used to choose Lemma A.3's branch at θ = 1/2 and θ = 1 exactly (E10)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, bool):
        raise DomainError("theta", x, "a real number")
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    if isinstance(x, (float, np.floating)):
        if not math.isfinite(float(x)):
            raise DomainError("theta", float(x), spec.THETA.describe())
        return Fraction(float(x))
    if isinstance(x, str):
        try:
            return Fraction(x.strip())
        except (ValueError, ZeroDivisionError):
            raise DomainError("theta", x, "a real number") from None
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            raise DomainError("theta", x, spec.THETA.describe())
        man, exp_ = x.man_exp
        return Fraction(int(man)) * (Fraction(2) ** int(exp_))
    raise DomainError("theta", x, "a real number")


def _theta(theta):
    """(exact θ, θ as mpf), θ > 0 checked (DomainError otherwise)."""
    q = exact(theta)
    if q <= 0:
        raise DomainError("theta", theta if not isinstance(theta, Fraction) else float(theta), spec.THETA.describe())
    return q, (to_mpf(theta) if not isinstance(theta, Fraction) else mpmath.mpf(q.numerator) / q.denominator)


def freedman_case(theta) -> str:
    """Lemma A.3's case (seed 004 L604–L636): "half" for θ = 1/2 exactly, "mid" for θ ∈ (1/2, 1], "heavy" for θ > 1;
    θ < 1/2 is outside the lemma (ConditionError naming spec.THETA_AT_LEAST_HALF)."""
    q, _ = _theta(theta)
    if q < HALF:
        raise ConditionError("dc.lemma_a3", [spec.THETA_AT_LEAST_HALF.describe()])
    if q == HALF:
        return "half"
    return "mid" if q <= 1 else "heavy"


def _check_pos(name, x, domain=None):
    x = to_mpf(x)
    if not (x > 0) or not mpmath.isfinite(x):
        raise DomainError(name, x, (domain or spec.POSITIVE).describe())
    return x


# ---------------------------------------------------------------------------------------------------------------
# public helpers: a(θ), b(θ), g(θ), moments, quantile


@self_checked
def freedman_a(theta):
    """a(θ) of Lemma A.3 (seed 004, L604–L627; Madden et al. 2020): 2 at θ = 1/2; (4θ)^{2θ}e² for θ ∈ (1/2, 1];
    (2^{2θ+1} + 2)Γ(2θ + 1) + 2^{3θ}Γ(3θ + 1)/3 for θ > 1 (Γ in log space: θ up to 20 and beyond). Notes §2 Lemma
    A.3: a(1/2) = 2, a(0.5⁺) = 14.78, a(1) = 118.2, a(1⁺) = 36.0, a(2) = 16176; discontinuous (E10)."""
    case = freedman_case(theta)
    _, t = _theta(theta)
    if case == "half":
        return mpmath.mpf(2)
    if case == "mid":
        return mpmath.exp(2 * t * mpmath.log(4 * t) + 2)
    first = mpmath.exp(mpmath.log(mpmath.mpf(2) ** (2 * t + 1) + 2) + mpmath.loggamma(2 * t + 1))
    second = mpmath.exp(3 * t * mpmath.log(2) + mpmath.loggamma(3 * t + 1)) / 3
    return first + second


@self_checked
def freedman_b(theta, n=None, delta=None, printed=False):
    """b(θ) of Lemma A.3 (seed 004, L615–L627): 0 at θ = 1/2 (the first case has no b: the constraint α ≥ b·max m_i
    is absent and λ is free in (4), which b = 0 reproduces); (4θ)^θ e for θ ∈ (1/2, 1]; for θ > 1 the reconstructed
    2·log^{θ−1}(n/δ) (notes §2 Lemma A.3: the only reading consistent with the theorems' \\hat{log}(T/δ) factor), or,
    with ``printed=True``, the text's "2 log n/δ^{θ−1}" read as 2·log(n)/δ^{θ−1}. n ≥ 1 and δ ∈ (0, 1) are needed
    for θ > 1 only. Notes: b(0.75) = 6.196, b(1) = 10.873, b(1⁺) = 2; n = 10⁴, δ = 10⁻⁵: b(1.5) = 9.10, b(2) = 41.45."""
    case = freedman_case(theta)
    _, t = _theta(theta)
    if case == "half":
        return mpmath.mpf(0)
    if case == "mid":
        return mpmath.exp(t * mpmath.log(4 * t) + 1)
    if n is None or delta is None:
        raise ParameterError("freedman_b: θ > 1 needs n and delta (b = 2·log^{θ−1}(n/δ), seed 004 L626)")
    n = spec.COUNT.check("n", n)
    delta = to_mpf(delta)
    spec.DELTA.check("delta", delta)
    if printed:
        return 2 * mpmath.log(n) / mpmath.exp((t - 1) * mpmath.log(delta))
    return 2 * mpmath.exp((t - 1) * mpmath.log(mpmath.log(n) - mpmath.log(delta)))


@self_checked
def sum_constant_g(theta):
    """g(θ) of Lemma A.2 (seed 004, L596–L601; Vladimirova et al. 2020): (4e)^θ for θ ≤ 1, 2(2eθ)^θ for θ ≥ 1
    (continuous at θ = 1: 4e). Notes: g(0.5) = 3.297, g(1) = 10.873, g(1.5) = 46.58, g(2) = 236.45, g(3) = 8677."""
    q, t = _theta(theta)
    if q <= 1:
        return mpmath.exp(t * (mpmath.log(4) + 1))
    return 2 * mpmath.exp(t * (mpmath.log(2 * t) + 1))


@self_checked
def moment_bound(p, theta, K):
    """E|X|^p ≤ 2Γ(pθ + 1)K^p for X ~ subW(θ, K), p > 0 (seed 004, Lemma A.6, L645–L646; Madden et al. 2020);
    computed as exp(log 2 + logΓ(pθ + 1) + p log K)."""
    p = _check_pos("p", p)
    _, t = _theta(theta)
    K = _check_pos("K", K)
    return mpmath.exp(mpmath.log(2) + mpmath.loggamma(p * t + 1) + p * mpmath.log(K))


@self_checked
def tail_quantile(theta, K, delta):
    """K·log^θ(2/δ): with probability ≥ 1 − δ, |X| ≤ this for X ~ subW(θ, K) (seed 004, Lemma A.1, L585–L593: the
    inverse of Def A.1(1)'s 2exp(−(t/K)^{1/θ}) = δ; notes §2 Lemma A.1)."""
    _, t = _theta(theta)
    K = _check_pos("K", K)
    delta = spec.DELTA.check("delta", to_mpf(delta))
    return K * mpmath.exp(t * mpmath.log(mpmath.log(2) - mpmath.log(delta)))


def exp_neg_power(num, den, theta):
    """exp(−(num/den)^{1/θ}) to full relative precision however large the exponent y = (num/den)^{1/θ}: y carries
    relative error 10^{−dps}, so e^{−y} would lose log10(y) digits; y is computed with that many guard digits (the
    inputs are exact mpf, so the extra precision is meaningful). ``den`` may be a callable (evaluated inside)."""
    with mpmath.workdps(15):
        d0 = den() if callable(den) else den
        y0 = mpmath.exp((mpmath.log(num) - mpmath.log(d0)) / theta)
    guard = int(max(0, mpmath.log10(y0))) + 10 if y0 > 1 else 10
    with mpmath.workdps(mpmath.mp.dps + guard):
        d = den() if callable(den) else den
        out = mpmath.exp(-mpmath.exp((mpmath.log(num) - mpmath.log(d)) / theta))
    return +out


@self_checked
def tail_bound(theta, K, t):
    """2exp(−(t/K)^{1/θ}) ≥ P(|X| > t) for X ~ subW(θ, K), t > 0 (seed 004, Definition A.1, property 4 ⇒ 1, L558–L580:
    Markov's inequality on exp((|X|/K)^{1/θ}) gives K1 = K4 = K; notes §2 Def A.1). Not capped at 1 (the text's
    form; it exceeds 1 for t < K·log^θ 2)."""
    _, th = _theta(theta)
    K = _check_pos("K", K)
    t = _check_pos("t", t)
    return 2 * exp_neg_power(t, K, th)


# ---------------------------------------------------------------------------------------------------------------
# the Orlicz scale K̂_θ (Assumption 3.1 evaluable; notes §2-test step 1, §4.5, §8 "Orlicz K̂ root finding")


def _sample_column(samples, name="samples") -> np.ndarray:
    """|x| of a one-column sample (1-d or (N, 1)), N ≥ 1, finite; ConditionError (spec.SAMPLES_ONE_COLUMN) otherwise."""
    arr = spec.SAMPLES.check(name, samples) if not isinstance(samples, np.ndarray) else samples
    arr = np.asarray(arr, dtype=float)
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1 or arr.size == 0:
        raise ConditionError("dc.a3_1", [spec.SAMPLES_ONE_COLUMN.describe()])
    if not np.all(np.isfinite(arr)):
        raise DomainError(name, "a sample with a non-finite value", spec.SAMPLES.describe())
    return np.abs(arr)


def _theta_float(theta) -> float:
    t = float(theta)
    if not (t > 0) or not math.isfinite(t):
        raise DomainError("theta", theta, spec.THETA.describe())
    return t


def _orlicz_excess_np(logx: np.ndarray, u: float, theta: float) -> float:
    """log((1/N)Σ exp((x_i/e^u)^{1/θ})) − log 2 (decreasing in u), by logsumexp; log x = −inf terms give e^0."""
    y = np.exp((logx - u) / theta)
    m = y.max()
    return float(m + math.log(np.exp(y - m).sum()) - math.log(logx.size) - math.log(2))


def orlicz_bracket(xmax, n, theta):
    """The bracket [log K_lo, log K_hi] of K̂_θ for a sample of size N with maximum x_max > 0 (exact, no expansion
    needed): K_hi = x_max/(log 2)^θ (every term ≤ e^{(x_max/K)^{1/θ}} ≤ 2) and K_lo = x_max/(log 2N)^θ (the largest
    term alone is ≥ 2N). Works for numbers (floats) and mpf alike."""
    log = mpmath.log if isinstance(xmax, mpmath.mpf) else math.log
    return log(xmax) - theta * log(log(2 * n)), log(xmax) - theta * log(log(2))


def orlicz_k(samples, theta) -> float:
    """K̂_θ = inf{K > 0 : (1/N)Σ exp((|x_i|/K)^{1/θ}) ≤ 2}, the minimal Orlicz (ψ_{1/θ}) scale of the empirical law
    of ``samples`` (numpy, float; notes §2-test step 1 and §4.5): the root in u = log K of a decreasing function,
    summed by logsumexp, solved by bisection-safeguarded secant (Brent) inside the exact bracket
    :func:`orlicz_bracket`. 0 for an all-zero sample. The quantity Assumption 3.1 (seed 004 L117–L119) bounds by K;
    Weibull(shape 1/θ, scale λ) has K_θ = 2^θλ exactly (notes §2-test)."""
    from scipy.optimize import brentq  # noqa: PLC0415

    x = _sample_column(samples)
    theta = _theta_float(theta)
    xmax = float(x.max())
    if xmax == 0:
        return 0.0
    with np.errstate(divide="ignore"):
        logx = np.log(x)
    lo, hi = orlicz_bracket(xmax, x.size, theta)
    if x.size == 1 or hi - lo <= 0:
        return math.exp(hi)
    f_lo, f_hi = _orlicz_excess_np(logx, lo, theta), _orlicz_excess_np(logx, hi, theta)
    if f_hi >= 0:
        return math.exp(hi)
    if f_lo <= 0:
        return math.exp(lo)
    u = brentq(lambda v: _orlicz_excess_np(logx, v, theta), lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps,
               maxiter=500)
    return math.exp(u)


def _orlicz_excess_mp(logx, u, theta):
    """(log mean exp(y_i) − log 2, its derivative in u), y_i = exp((log x_i − u)/θ), in mpmath."""
    ys = [mpmath.exp((lx - u) / theta) for lx in logx]
    m = max(ys)
    ws = [mpmath.exp(y - m) for y in ys]
    s = mpmath.fsum(ws)
    value = m + mpmath.log(s) - mpmath.log(len(ys)) - mpmath.log(2)
    slope = -mpmath.fsum(w * y for w, y in zip(ws, ys)) / (theta * s)
    return value, slope


@self_checked
def orlicz_k_exact(samples, theta):
    """K̂_θ of the empirical law of ``samples`` at the working precision (the reference of dc.a3_1): the root in
    u = log K of log((1/N)Σ exp((|x_i|e^{−u})^{1/θ})) = log 2, by Newton's method safeguarded by bisection inside
    the exact bracket of :func:`orlicz_bracket` (the function is decreasing and convex in u, notes §8). Zero-valued
    points contribute e^0 = 1; an all-zero sample gives 0. The samples are read as binary64 numbers (exactly)."""
    x = _sample_column(samples)
    _, t = _theta(theta)
    pts = [mpmath.mpf(float(v)) for v in x]
    xmax = max(pts)
    if xmax == 0:
        return mpmath.mpf(0)
    logx = [mpmath.log(v) if v > 0 else mpmath.mpf("-inf") for v in pts]
    lo, hi = orlicz_bracket(xmax, len(pts), t)
    if len(pts) == 1:
        return mpmath.exp(hi)
    tol = mpmath.mpf(2) ** (-mpmath.mp.prec + 4) * max(1, abs(hi))
    u = hi
    for _ in range(4 * mpmath.mp.prec):
        f, df = _orlicz_excess_mp(logx, u, t)
        if f == 0:
            return mpmath.exp(u)
        if f > 0:
            lo = u
        else:
            hi = u
        step = u - f / df if df < 0 else None
        nxt = step if step is not None and lo < step < hi else (lo + hi) / 2
        if abs(nxt - u) <= tol or hi - lo <= tol:
            return mpmath.exp(nxt)
        u = nxt
    raise ArithmeticError("orlicz_k_exact: no convergence")  # pragma: no cover - Newton in an exact bracket


# ---------------------------------------------------------------------------------------------------------------
# the θ test (notes §2-test steps 2–5, §4.5): numpy diagnostics, not statements of the text


def theta_weibull_plot(samples, top=0.1) -> float:
    """θ̂ from the Weibull plot (notes §2-test step 3): regress log(−log Ŝ(t)) on log t over the top ``top`` fraction
    of the order statistics, Ŝ(x_(i)) = (N − i + 1/2)/N (a midpoint plotting position: never 0 or 1); θ̂ = 1/slope.
    A Weibull(shape 1/θ) law has log(−log S(t)) = (log t − log λ)/θ exactly."""
    x = np.sort(_sample_column(samples))
    n = x.size
    k = max(int(round(top * n)), 3)
    if n < 4 or k > n:
        raise ConditionError("dc.a3_1", [spec.SAMPLES_ONE_COLUMN.describe() + " (the Weibull plot needs N ≥ 4)"])
    idx = np.arange(n - k, n)
    tail = x[idx]
    surv = (n - idx - 0.5) / n
    keep = tail > 0
    if keep.sum() < 3:
        raise DomainError("samples", "fewer than 3 positive points in the top fraction", "a sample with a tail")
    slope = np.polyfit(np.log(tail[keep]), np.log(-np.log(surv[keep])), 1)[0]
    if not slope > 0:
        raise DomainError("samples", f"Weibull-plot slope {slope}", "a positive slope (a decreasing tail)")
    return float(1 / slope)


def empirical_moment_norms(samples, ps) -> np.ndarray:
    """‖X‖_{p, emp} = ((1/N)Σ|x_i|^p)^{1/p} at each p, in log space (logsumexp)."""
    x = _sample_column(samples)
    ps = np.asarray(ps, dtype=float)
    with np.errstate(divide="ignore"):
        logx = np.log(x)
    out = []
    for p in ps:
        z = p * logx
        m = z.max()
        out.append((m + math.log(np.exp(z - m).sum()) - math.log(x.size)) / p)
    return np.exp(np.array(out))


def theta_moment_slope(samples, num=20) -> float:
    """θ̂ from the moment slope (notes §2-test step 4): the slope of log ‖X‖_{p, emp} on log p for p ∈ [1, log N]
    (Def A.1(2): ‖X‖_p ≤ K2 p^θ). Biased low at finite N (notes: 0.28, 0.66, 1.38 for θ₀ = 0.5, 1, 2 at N = 10⁵);
    do not use it alone."""
    x = _sample_column(samples)
    if x.size < 8:
        raise ConditionError("dc.a3_1", [spec.SAMPLES_ONE_COLUMN.describe() + " (the moment slope needs N ≥ 8)"])
    ps = np.geomspace(1, math.log(x.size), num)
    norms = empirical_moment_norms(x, ps)
    return float(np.polyfit(np.log(ps), np.log(norms), 1)[0])


def hill_index(samples, top=0.1) -> float:
    """The Hill estimator of the polynomial tail index α̂ (notes §2-test step 5): with the k = ⌈top·N⌉ largest points
    x_(N−k+1..N) and the threshold x_(N−k), 1/α̂ = (1/k)Σ log(x_(N−i+1)/x_(N−k)). A Pareto(α) law gives α̂ ≈ α; a
    Weibull law gives α̂ growing with N (no polynomial tail)."""
    x = np.sort(_sample_column(samples))
    n = x.size
    k = max(int(math.ceil(top * n)), 2)
    if k >= n or x[n - k - 1] <= 0:
        raise DomainError("samples", "the Hill threshold is not positive", "a sample with N > k and x_(N−k) > 0")
    gamma = float(np.mean(np.log(x[n - k:] / x[n - k - 1])))
    if not gamma > 0:
        raise DomainError("samples", "a constant top fraction", "a sample with a tail")
    return 1 / gamma


def growth_test(samples, theta, sizes=None, max_slope=0.5):
    """The growth diagnostic of notes §2-test step 2 (§4.5): K̂_θ on nested prefixes of ``samples`` of sizes
    ``sizes`` (default 10³, 10⁴, … up to N). If the candidate θ is below the true index θ₀, K̂_θ grows like
    (log N)^{θ₀−θ}; for a polynomial tail like a power of N. Returns (sizes, K̂ values, slope, flat): slope is the
    least-squares slope of log K̂ on log log N (≈ θ₀ − θ for a Weibull law with θ < θ₀, ≈ 0 for θ ≥ θ₀, large for a
    polynomial tail) and flat = slope ≤ ``max_slope``. K̂'s sampling law is heavy-tailed (E e^{2(X/K)^{1/θ}} = ∞ at
    θ = θ₀), so a single run separates only clear cases (notes: Weibull θ₀ = 2: K̂_2 ≈ 3.7–4.4 flat, K̂_1 6.7 → 30.6
    → 14.7 at N = 10³..10⁶; Pareto α = 1.5: K̂_1 = 23 → 631). The prefixes are nested: pass a shuffled sample."""
    x = _sample_column(samples)
    if sizes is None:
        sizes = [10**j for j in range(3, 12) if 10**j <= x.size] or [x.size]
    sizes = [int(s) for s in sizes]
    if any(s < 2 or s > x.size for s in sizes):
        raise DomainError("sizes", str(sizes), f"sizes in [2, {x.size}]")
    ks = np.array([orlicz_k(x[:s], theta) for s in sizes])
    if len(sizes) < 2 or not np.all(ks > 0):
        return np.array(sizes), ks, 0.0, True
    slope = float(np.polyfit(np.log(np.log(np.array(sizes, dtype=float))), np.log(ks), 1)[0])
    return np.array(sizes), ks, slope, slope <= max_slope


# ---------------------------------------------------------------------------------------------------------------
# statement evaluators


@self_checked
def sum_tail_bound(theta, K_sum, x):
    """2exp(−(x/(g(θ)ΣK_i))^{1/θ}) ≥ P(Σ_i X_i ≥ x) for X_i ~ subW(θ, K_i), x ≥ 0 (seed 004, Lemma A.2, L596–L601;
    Vladimirova et al. 2020, Madden et al. 2020; independence not needed). 2 at x = 0 (the text's form, not capped)."""
    _, t = _theta(theta)
    K_sum = _check_pos("K_sum", K_sum)
    x = to_mpf(x)
    if x == 0:
        return mpmath.mpf(2)
    return 2 * exp_neg_power(x, lambda: sum_constant_g(theta) * K_sum, t)


def _freedman_value(theta, x, beta_f, lam, delta, event):
    """exp(−λx + 2λ²β) (event E: eqs. 3, 5, 7) or exp(−λx + λ²β/2) (event F: eqs. 4, 6, 8), plus 2δ for θ > 1."""
    quad = 2 * lam**2 * beta_f if event == "E" else lam**2 * beta_f / 2
    out = mpmath.exp(-lam * x + quad)
    if freedman_case(theta) == "heavy":
        out += 2 * delta
    return out


@self_checked
def freedman_bound(theta, x, alpha_f, beta_f, lam, m_max, n, delta, event="E"):
    """Lemma A.3 (sub-Weibull Freedman; seed 004 L604–L636, Madden et al. 2020): the bound on P(∪_{k≤n} E_k) —
    E_k = {Σ_{i≤k} ξ_i ≥ x and Σ_{i≤k} a K²_{i−1} ≤ α Σ_{i≤k} ξ_i + β} — namely exp(−λx + 2λ²β) (eqs. 3, 5) and
    + 2δ for θ > 1 (eq. 7); with ``event="F"`` (F_k: Σ a K²_{i−1} ≤ β) exp(−λx + λ²β/2) (eqs. 4, 6), + 2δ for θ > 1
    (eq. 8). a(θ) (:func:`freedman_a`) enters the events, b(θ) (:func:`freedman_b`) the ranges of α and λ (the
    statement's conditions). α, m_max, n are used by the conditions only; δ for θ > 1 only."""
    return _freedman_value(theta, x, beta_f, lam, delta, event)


def _b_or_none(p, printed=False):
    try:
        return freedman_b(p["theta"], n=p["n"], delta=p["delta"], printed=printed)
    except ConditionError:
        return None


def _a3_lambda_ok(p, printed=False):
    b = _b_or_none(p, printed)
    if b is None:
        return True  # reported by theta_at_least_half
    if p["event"] == "E":
        return 2 * exact(p["alpha_f"]) * exact(p["lam"]) <= 1  # exactly (ties such as α = 50, λ = 0.01 occur)
    return b == 0 or b * p["m_max"] == 0 or p["lam"] <= 1 / (b * p["m_max"])


def _a3_alpha_ok(p, printed=False):
    b = _b_or_none(p, printed)
    if b is None or p["event"] == "F":
        return True
    return p["alpha_f"] >= b * p["m_max"]


# ---------------------------------------------------------------------------------------------------------------
# registration

from ..catalogue import Condition, Source, Statement, Value, Variant, register  # noqa: E402

_THETA_HALF = Condition.of(spec.THETA_AT_LEAST_HALF, lambda p: p["theta"] >= mpmath.mpf(1) / 2)


def samples_ok(samples) -> bool:
    """spec.SAMPLES_ONE_COLUMN as a predicate (a parsed (N, d) array: N ≥ 1, d = 1)."""
    arr = np.asarray(samples)
    return arr.ndim == 2 and arr.shape[0] >= 1 and arr.shape[1] == 1 or arr.ndim == 1 and arr.size >= 1


register(Statement(
    id="dc.def_a1",
    fast="dpspec.fast.dc.subweibull:tail_bound",
    source=Source(spec.SEED, "Definition A.1 (4 ⇒ 1)", "the sub-Weibull tail bound implied by the Orlicz condition "
                  "E exp((|X|/K)^{1/θ}) ≤ 2", VLADIMIROVA),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="X ~ subW(θ, K) ⇒ P(|X| > t) ≤ 2exp(−(t/K)^{1/θ}) for all t > 0",
    params=(spec.P_THETA, spec.P_K, spec.P_T),
    reference=tail_bound,
    monotone={"K": +1, "t": -1},
    note="Property 4 (E exp((|X|/K4)^{1/θ}) ≤ 2, the notation subW(θ, K) of seed 004, L558–L580) implies property 1 "
         "with K1 = K4 by Markov's inequality; Lemma A.1 (dc.lemma_a1) is its inverse. The text's 'θ ≥ 0' is read "
         "θ > 0 and property 2's '∀k ≥ 1' as ∀p ≥ 1 (notes §2 Def A.1). Property 3 is garbled in the text: "
         "E[exp((λ|X|^{1/θ}))] ≤ exp((λK3)^{1/θ}) is dimensionally inconsistent; the reconstruction "
         "E[exp((λ|X|)^{1/θ})] ≤ exp((λK3)^{1/θ}), λ ∈ (0, 1/K3), is what Vladimirova et al. state. Property 3 does "
         "not enter this bound, so neither reading is a variant here. Weibull(shape 1/θ, scale λ) has the minimal "
         "K = 2^θλ (dc.a3_1) and exact tail exp(−(t/λ)^{1/θ}) = (bound/2)^{2}: at t = K log^θ(2/δ) the exact tail is "
         "(δ/2)² (notes §2 Lemma A.1).",
))

register(Statement(
    id="dc.a3_1",
    fast="dpspec.fast.dc.subweibull:a3_1",
    source=Source(spec.SEED, "Assumption 3.1", "the sub-Weibull gradient-noise assumption made evaluable: the minimal "
                  "Orlicz scale K̂_θ of a sample (the K the assumption posits), exact for the empirical law"),
    kind="utility",
    claim="exact",
    value=Value("number"),
    summary="K̂_θ = inf{K > 0 : (1/N)Σ_i exp((|x_i|/K)^{1/θ}) ≤ 2} (Assumption 3.1's K for the empirical law)",
    params=(spec.P_SAMPLES, spec.P_THETA),
    reference=orlicz_k_exact,
    conditions=(_THETA_HALF, Condition.of(spec.SAMPLES_ONE_COLUMN, lambda p: samples_ok(p["samples"]))),
    note="Assumption 3.1 (seed 004 L117–L119): E_t exp((‖∇ℓ(w_t) − ∇L(w_t)‖/K)^{1/θ}) ≤ 2 with θ ≥ 1/2. For a sample "
         "of noise norms at a fixed w_t, the smallest K satisfying it under the empirical law is K̂_θ (notes "
         "§2-test step 1): the root in log K of a decreasing function, solved in an exact bracket [x_max/(log 2N)^θ, "
         "x_max/(log 2)^θ]. Test vectors (notes §2-test): Weibull(shape 1/θ, scale λ) has K_θ = 2^θλ; K̂_{θ0} at "
         "N = 10⁵ is 1.408, 1.979, 3.949 for θ0 = 0.5, 1, 2 (exact 1.414, 2, 4); a Pareto sample's K̂_1 keeps "
         "growing (erratum E12: subW(θ) has all moments, the motivation's infinite-variance noise does not). The θ "
         "test around it (Weibull plot, moment slope, Hill index, growth diagnostic) is in dpspec.reference.dc."
         "subweibull (numpy) and dpspec.fast.dc.subweibull (torch).",
))

register(Statement(
    id="dc.lemma_a1",
    fast="dpspec.fast.dc.subweibull:tail_quantile",
    source=Source(spec.SEED, "Lemma A.1", "high-probability magnitude of a sub-Weibull variable"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="X ~ subW(θ, K), δ ∈ (0, 1) ⇒ P(|X| ≤ K log^θ(2/δ)) ≥ 1 − δ",
    params=(spec.P_THETA, spec.P_K, spec.P_DELTA),
    reference=tail_quantile,
    monotone={"K": +1, "delta": -1},
    note="The inverse of dc.def_a1's tail bound at level δ (seed 004 L585–L593; sympy: 2e^{−(t/K)^{1/θ}} = δ ⇔ "
         "t = K log^θ(2/δ)). For Weibull(1/θ, λ) with K = 2^θλ the exact exceedance probability at this t is "
         "(δ/2)² (notes §2 Lemma A.1). Used throughout the proofs of Thms B.1 and E.1 (c = 4K log^θ(√T)).",
))

register(Statement(
    id="dc.lemma_a2",
    fast="dpspec.fast.dc.subweibull:sum_tail_bound",
    source=Source(spec.SEED, "Lemma A.2", "tail of a sum of sub-Weibull variables", VLADIMIROVA + "; " + MADDEN),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="X_i ~ subW(θ, K_i) ⇒ P(Σ X_i ≥ x) ≤ 2exp(−(x/(g(θ)ΣK_i))^{1/θ}), g = (4e)^θ (θ ≤ 1), 2(2eθ)^θ (θ ≥ 1)",
    params=(spec.P_THETA, spec.P_K_SUM, spec.P_X_LEVEL),
    reference=sum_tail_bound,
    monotone={"K_sum": +1, "x": -1},
    note="Seed 004 L596–L601; g(θ) is sum_constant_g (continuous at θ = 1: 4e). Independence is not needed (the "
         "quasi-triangle inequality of the ψ_{1/θ} norm). Notes §2 Lemma A.2: g(0.5) = 3.297, g(1) = 10.873, "
         "g(1.5) = 46.58, g(2) = 236.45, g(3) = 8677; for n = 20 iid Weibull the empirical tail is ≤ 0.26 × the bound "
         "at the quantiles 0.5–0.9999 (tests/dc/test_dc_subweibull.py reproduces this by Monte Carlo).",
))

_A3_CONDITIONS = (
    _THETA_HALF,
    Condition.of(spec.A3_LAMBDA_RANGE, _a3_lambda_ok),
    Condition.of(spec.A3_ALPHA_RANGE, _a3_alpha_ok),
)
_A3_PRINTED_CONDITIONS = (
    _THETA_HALF,
    Condition.of(spec.A3_LAMBDA_RANGE, lambda p: _a3_lambda_ok(p, printed=True)),
    Condition.of(spec.A3_ALPHA_RANGE, lambda p: _a3_alpha_ok(p, printed=True)),
)

register(Statement(
    id="dc.lemma_a3",
    fast="dpspec.fast.dc.subweibull:freedman_bound",
    source=Source(spec.SEED, "Lemma A.3", "sub-Weibull Freedman inequality for martingale differences", MADDEN),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="P(∪_k {Σξ ≥ x, Σ aK² ≤ αΣξ + β}) ≤ exp(−λx + 2λ²β) (+2δ if θ > 1); F-event: exp(−λx + λ²β/2) (+2δ)",
    params=(spec.P_THETA, spec.P_X_LEVEL, spec.P_ALPHA_F, spec.P_BETA_F, spec.P_LAMBDA_F, spec.P_M_MAX, spec.P_N,
            spec.P_DELTA, spec.P_EVENT),
    reference=freedman_bound,
    conditions=_A3_CONDITIONS,
    variants={"printed": Variant(freedman_bound, "b(θ) for θ > 1 as printed, '2 log n/δ^{θ−1}' read as "
                                 "2·log(n)/δ^{θ−1} (L626): larger than the reconstructed 2·log^{θ−1}(n/δ), so its "
                                 "ranges α ≥ b·max m_i and λ ≤ 1/(b·max m_i) are stricter — still a bound where they "
                                 "hold", conditions=_A3_PRINTED_CONDITIONS)},
    monotone={"x": -1, "beta_f": +1, "delta": +1},
    note="Seed 004 L604–L636 (Madden et al. 2020). Cases (erratum E10, branch chosen from the exact θ): θ = 1/2: "
         "a = 2, no b (b = 0 here: α > 0 and λ ≤ 1/(2α) for E, any λ ≥ 0 for F); θ ∈ (1/2, 1]: a = (4θ)^{2θ}e², "
         "b = (4θ)^θ e; θ > 1: a = (2^{2θ+1} + 2)Γ(2θ+1) + 2^{3θ}Γ(3θ+1)/3, b = 2·log^{θ−1}(n/δ) [reconstructed, "
         "notes §2: the only reading consistent with the theorems' \\hat{log}(T/δ)], + 2δ. a and b "
         "(dpspec.reference.dc.subweibull.freedman_a/freedman_b) are discontinuous at θ = 1/2 and 1 and a is "
         "non-monotone: a(1/2) = 2, a(1/2⁺) = 14.78, a(1) = 118.2, a(1⁺) = 36.0 (E10). The value does not involve a "
         "(it defines the events); α, m_max and n enter through the conditions.",
))

register(Statement(
    id="dc.lemma_a6",
    fast="dpspec.fast.dc.subweibull:moment_bound",
    source=Source(spec.SEED, "Lemma A.6", "moments of a sub-Weibull variable", MADDEN),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="X ~ subW(θ, K) ⇒ E|X|^p ≤ 2Γ(pθ + 1)K^p for all p > 0",
    params=(spec.P_P_MOMENT, spec.P_THETA, spec.P_K),
    reference=moment_bound,
    monotone={"K": +1},
    note="Seed 004 L645–L646; sympy: ∫_0^∞ p t^{p−1}·2e^{−(t/K)^{1/θ}} dt = 2K^pΓ(pθ+1) (notes §8). Weibull(1/θ, λ) "
         "has E X^p = λ^pΓ(1 + pθ) and K = 2^θλ: slack 2·2^{pθ} (32 at θ = 2, p = 2; 2.83 at θ = 0.5, p = 1). "
         "Used as E‖g − ∇L‖² ≤ 2Γ(2θ+1)K² in Thm B.1's proof (L744).",
))
