"""The standard normal distribution in mpmath, accurate in the far tails (no 1 − x rounding).

Φ(x) = erfc(−x/√2)/2; log Φ(x) is taken from erfc, whose mpmath implementation has no underflow, so
Φ(−40) ≈ 3.7e-350 is returned to full relative precision. mpmath's erfc raises OverflowError for arguments
beyond about 1e150 (it sizes a series from the argument's square as a float), so for |x| ≥ ASYMPTOTIC_FROM
= 1e20 the lower tail is taken from the Mills-ratio expansion instead (:func:`mills_series`):

    Φ(x) = φ(x)/|x| · S(x),   S(x) = Σ_{k≥0} (−1)^k (2k−1)!!/x^{2k}   (x < 0),

which is DLMF 7.12.1 (erfc z ~ e^{−z²}/(z√π) Σ (−1)^k (1/2)_k/z^{2k}) at z = −x/√2. For real arguments the
expansion is enveloping (DLMF 7.12(ii)): after any term the remainder has the sign of, and is at most, the first
omitted term. At |x| ≥ 1e20 each term is at most (2k−1)·1e-40 times the previous one, so a few terms reach
any working precision. The inverse is written for the upper tail, z = Φ^{-1}(1 − a), because f-DP needs it at
type-I errors a as small as 1e-300, where 1 − a rounds to 1.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from .errors import PrecisionError

ASYMPTOTIC_FROM = mpf(10) ** 20  # |x| from which the lower tail comes from the Mills-ratio expansion


def mills_series(x, rel_tol=None) -> mpf:
    """S(x) = |x| Φ(x)/φ(x) for x ≤ −ASYMPTOTIC_FROM, from the enveloping expansion Σ_k (−1)^k (2k−1)!!/x^{2k}
    (module docstring): terms are added until one is below ``rel_tol`` (default 2^(−prec−10)); the remainder
    is below that term, so S is exact to that relative tolerance (S ∈ (1 − 1/x², 1])."""
    x = mpf(x)
    if not x <= -ASYMPTOTIC_FROM:
        raise ValueError(f"mills_series needs x <= -1e20, got {mpmath.nstr(x, 8)}")
    tol = mpf(2) ** (-mp.prec - 10) if rel_tol is None else rel_tol
    inv = 1 / (x * x)
    total, term, k = mpf(1), mpf(1), 0
    while True:
        k += 1
        term *= -(2 * k - 1) * inv
        total += term
        if abs(term) <= tol:
            return total


def _log_ndtr_lower_tail(x) -> mpf:
    """log Φ(x) for x ≤ −ASYMPTOTIC_FROM: −x²/2 − log|x| − ½ log 2π + log S(x)."""
    return -x * x / 2 - mpmath.log(-x) - mpmath.log(2 * mpmath.pi) / 2 + mpmath.log(mills_series(x))


def ndtr(x) -> mpf:
    """Φ(x), the standard normal CDF (every real x, ±inf included)."""
    x = mpf(x)
    if mpmath.isinf(x):
        return mpf(1) if x > 0 else mpf(0)
    if x <= -ASYMPTOTIC_FROM:
        return mpmath.exp(_log_ndtr_lower_tail(x))
    if x >= ASYMPTOTIC_FROM:
        return -mpmath.expm1(_log_ndtr_lower_tail(-x))
    return mpmath.erfc(-x / mpmath.sqrt(2)) / 2


def log_ndtr(x) -> mpf:
    """log Φ(x) (−inf at x = −inf), to full relative precision for every real x."""
    x = mpf(x)
    if mpmath.isinf(x):
        return mpf(0) if x > 0 else mpf("-inf")
    if x <= -ASYMPTOTIC_FROM:
        return _log_ndtr_lower_tail(x)
    if x >= ASYMPTOTIC_FROM:  # log(1 − Φ(−x)), Φ(−x) < e^{−5e39}
        return mpmath.log1p(-mpmath.exp(_log_ndtr_lower_tail(-x)))
    if x > 0:  # log(1 − Φ(−x)) from the small tail: log of a value near 1 would keep only its absolute precision
        return mpmath.log1p(-ndtr(-x))
    return mpmath.log(ndtr(x))



def ndtri_upper(a) -> mpf:
    """z = Φ^{-1}(1 − a) for a ∈ [0, 1] (±inf at the ends): the point whose upper tail Φ(−z) is a.

    Newton's method on log Φ(−z) = log a (for a ≤ 1/2; the other half by symmetry z(a) = −z(1 − a), where
    1 − a is exact enough because a > 1/2). The start is the mpmath inverse error function at a coarse
    precision (or the Mills-ratio asymptote in the far tail), so the iteration converges quadratically."""
    a = mpf(a)
    if a == 0:
        return mpf("inf")
    if a == 1:
        return mpf("-inf")
    if a > mpf(1) / 2:
        return -ndtri_upper(1 - a)
    if a == mpf(1) / 2:
        return mpf(0)
    log_a = mpmath.log(a)
    if a > mpf("1e-10"):
        with mp.workdps(20):
            z = -mpmath.sqrt(2) * mpmath.erfinv(2 * a - 1)
    else:  # Φ(−z) ≈ φ(z)/z, so z² ≈ −2 log a − log(−2 log a) − log 2π
        t = -2 * log_a
        z = mpmath.sqrt(t - mpmath.log(t) - mpmath.log(2 * mpmath.pi))
    z = mpf(z)
    tol = mpf(2) ** (-mp.prec + 4)
    for _ in range(100):
        log_tail = log_ndtr(-z)
        # d/dz log Φ(−z) = −φ(z)/Φ(−z) = −exp(log φ(z) − log Φ(−z))
        slope = -mpmath.exp(-z * z / 2 - mpmath.log(2 * mpmath.pi) / 2 - log_tail)
        step = (log_tail - log_a) / slope
        z -= step
        if abs(step) <= tol * max(1, abs(z)):
            return z
    raise PrecisionError(f"ndtri_upper({mpmath.nstr(a, 10)}): Newton did not converge")
