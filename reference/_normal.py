"""The standard normal distribution in mpmath, accurate in the far tails (no 1 − x rounding).

Φ(x) = erfc(−x/√2)/2; log Φ(x) is taken from erfc, whose mpmath implementation has no underflow, so
Φ(−40) ≈ 3.7e-350 is returned to full relative precision. The inverse is written for the upper tail,
z = Φ^{-1}(1 − a), because f-DP needs it at type-I errors a as small as 1e-300, where 1 − a rounds to 1.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from .errors import PrecisionError

def ndtr(x) -> mpf:
    """Φ(x), the standard normal CDF."""
    return mpmath.erfc(-mpf(x) / mpmath.sqrt(2)) / 2


def log_ndtr(x) -> mpf:
    """log Φ(x) (−inf at x = −inf)."""
    x = mpf(x)
    if mpmath.isinf(x):
        return mpf(0) if x > 0 else mpf("-inf")
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
