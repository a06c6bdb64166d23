"""Bracketed root finding and concave maximisation in mpmath, with their own error control.

Both raise :class:`PrecisionError` instead of returning a value they cannot vouch for.
"""
from __future__ import annotations

from typing import Callable

import mpmath
from mpmath import mp, mpf

from .errors import PrecisionError


def root(h: Callable, lo, hi, *, abs_tol=0, max_iter: int = 2000) -> mpf:
    """The root of a continuous function h with a sign change on [lo, hi], to the working precision.

    Illinois (modified regula falsi) steps, with a bisection step whenever an Illinois step fails to halve
    the bracket, so convergence is at least linear and usually superlinear. Stops when the bracket is
    narrower than max(2^(4−prec)·max(|lo|, |hi|), abs_tol): relative by default (then a root at exactly 0
    is not supported); give ``abs_tol`` when solving for a logarithm."""
    lo, hi = mpf(lo), mpf(hi)
    h_lo, h_hi = h(lo), h(hi)
    if h_lo == 0:
        return lo
    if h_hi == 0:
        return hi
    if (h_lo > 0) == (h_hi > 0):
        raise PrecisionError(f"root: no sign change on [{mpmath.nstr(lo, 10)}, {mpmath.nstr(hi, 10)}]")
    tol = mpf(2) ** (-mp.prec + 4)
    side = 0
    for _ in range(max_iter):
        width = hi - lo
        if width <= max(tol * max(abs(lo), abs(hi)), abs_tol):
            return (lo + hi) / 2
        x = (lo * h_hi - hi * h_lo) / (h_hi - h_lo)
        if not lo < x < hi:
            x = (lo + hi) / 2
        h_x = h(x)
        if h_x == 0:
            return x
        if (h_x > 0) == (h_lo > 0):
            lo, h_lo = x, h_x
            if side == -1:
                h_hi /= 2
            side = -1
        else:
            hi, h_hi = x, h_x
            if side == 1:
                h_lo /= 2
            side = 1
        if hi - lo > width / 2:  # the Illinois step was poor: bisect once
            mid = (lo + hi) / 2
            h_mid = h(mid)
            if h_mid == 0:
                return mid
            if (h_mid > 0) == (h_lo > 0):
                lo, h_lo = mid, h_mid
            else:
                hi, h_hi = mid, h_mid
            side = 0
    raise PrecisionError("root: no convergence")


def expand_bracket(h: Callable, lo, hi, *, limit=mpf(10) ** 30) -> tuple[mpf, mpf]:
    """Double ``hi`` (lo fixed, lo < hi, hi > 0) until h changes sign on [lo, hi]; raises past ``limit``."""
    lo, hi = mpf(lo), mpf(hi)
    sign_lo = h(lo) > 0
    while (h(hi) > 0) == sign_lo:
        lo, hi = hi, 2 * hi
        if hi > limit:
            raise PrecisionError(f"expand_bracket: no sign change below {mpmath.nstr(limit, 5)}")
    return lo, hi


def maximise_concave(g: Callable, a, b, *, rel_tol=None) -> tuple[mpf, mpf]:
    """max over [a, b] of a concave function g, returning (value, argmax).

    Golden-section search. The result is certified by concavity: with a < c < b in the current bracket, g
    lies below the chords' extensions, so sup g ≤ g(c) + max(s_l·(b − c), −s_r·(c − a)), where s_l, s_r
    are the slopes of the chords to the left and right end points (outside the bracket g is below its end values:
    the bracket holds the maximiser). The search stops as soon as the gap between this upper bound and the best
    value found is below ``rel_tol``·max(|best|, tiny) (default 2^(8−prec)) — checked after every step, so a
    maximum whose neighbourhood is flat is certified long before the bracket shrinks to a few ulps (at ε = 17 a
    Gaussian trade-off function's maximiser sits at x ≈ 1e-64: 480 steps to the ulp bound at 100 digits, each an
    inverse-normal evaluation) — or, at the latest, when the bracket is a few ulps wide; PrecisionError if the gap is
    still too large then."""
    a, b = mpf(a), mpf(b)
    if rel_tol is None:
        rel_tol = mpf(2) ** (-mp.prec + 8)
    tiny = mpf(2) ** (-mp.prec)
    ratio = (mpmath.sqrt(5) - 1) / 2
    # the end points are candidates too (the maximum of a monotone g sits at one of them)
    g_a, g_b = g(a), g(b)
    c, d = b - ratio * (b - a), a + ratio * (b - a)
    g_c, g_d = g(c), g(d)
    lo, hi, g_lo, g_hi = a, b, g_a, g_b
    width_tol = mpf(2) ** (-mp.prec + 4) * max(1, abs(a), abs(b))  # a few ulps: x cannot be finer

    def certified():
        best = max((g_c, c), (g_d, d), (g_lo, lo), (g_hi, hi), (g_a, a), (g_b, b), key=lambda t: t[0])
        slope_left = (g_c - g_lo) / (c - lo) if c > lo else mpf(0)
        slope_right = (g_hi - g_c) / (hi - c) if hi > c else mpf(0)
        upper = g_c + max(slope_left * (hi - c), -slope_right * (c - lo), mpf(0))
        gap = upper - best[0]
        return best, gap, gap <= rel_tol * max(abs(best[0]), tiny)

    for _ in range(4 * mp.prec + 100):
        if hi - lo <= width_tol or certified()[2]:
            break
        if g_c >= g_d:
            hi, g_hi, d, g_d = d, g_d, c, g_c
            c = hi - ratio * (hi - lo)
            g_c = g(c)
        else:
            lo, g_lo, c, g_c = c, g_c, d, g_d
            d = lo + ratio * (hi - lo)
            g_d = g(d)
    else:
        raise PrecisionError("maximise_concave: the bracket did not shrink")
    (best, x_best), gap, ok = certified()
    if not ok:
        raise PrecisionError(
            f"maximise_concave: certified gap {mpmath.nstr(gap, 5)} exceeds the tolerance at value "
            f"{mpmath.nstr(best, 10)} (is the function concave and accurate?)")
    return best, x_best
