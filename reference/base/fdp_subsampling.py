"""The subsampling operator of f-DP applied to G_μ (Dong, Roth & Su 2022, Thm 4.2), in closed form.

DRS Thm 4.2: if M is f-DP on data sets of size n, then M ∘ Sample_m (a uniformly random subset of m of the
n records, without replacement; replace-one neighbours) is C_p(f)-DP with p = m/n, where

    f_p = p f + (1 − p) Id⁻,  Id⁻(α) = 1 − α,      C_p(f) = min{f_p, f_p^{-1}}**.

Closed form for f = G_μ (derived here; it is the explicit form DRS give for symmetric f with f(0) = 1):
f_p(0) = 1 and f_p is steeper than f_p^{-1} near 0, so min{f_p, f_p^{-1}} = f_p up to its fixed point and
f_p^{-1} beyond. Its convex envelope replaces the non-convex part around the diagonal by the segment of
slope −1 between the points where f_p and f_p^{-1} have slope −1: f_p'(x) = p G_μ'(x) − (1 − p) = −1 iff
G_μ'(x) = −1 iff x = x* := Φ(−μ/2) (the fixed point of G_μ), and by symmetry f_p^{-1} has slope −1 at
f_p(x*). Hence

    C_p(G_μ)(α) = f_p(α)                  for α ∈ [0, x*],
                = x* + f_p(x*) − α        for α ∈ [x*, f_p(x*)],
                = f_p^{-1}(α)             for α ∈ [f_p(x*), 1],

with f_p(x*) = p Φ(−μ/2) + (1 − p) Φ(μ/2). On the last piece f_p^{-1}(α) = Φ(−z), where z ≥ μ/2 solves
p Φ(μ − z) + (1 − p) Φ(−z) = 1 − α (upper tails, so α near 1 loses nothing).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from .._normal import log_ndtr, ndtr
from .._solve import root
from ..catalogue import Privacy, Source, Statement, Value, register
from ..domains import SAMPLING_RATE, Param
from .fdp import DRS, gdp_tradeoff
from ..precision import logsumexp, self_checked
from .spec import MU, TYPE_I


def _f_p(x, p, mu):
    """f_p(x) = p G_μ(x) + (1 − p)(1 − x)."""
    return p * gdp_tradeoff(x, mu) + (1 - p) * (1 - x)


def _f_p_inverse(alpha, p, mu):
    """f_p^{-1}(α) for α ≥ f_p(x*): Φ(−z) with log(p Φ(μ − z) + (1 − p) Φ(−z)) = log(1 − α), z ≥ μ/2."""
    if alpha == 1:
        return mpf(0)
    log_target = mpmath.log(1 - alpha)
    log_tail = lambda z: logsumexp([mpmath.log(p) + log_ndtr(mu - z), mpmath.log1p(-p) + log_ndtr(-z)]
                                   if p < 1 else [log_ndtr(mu - z)])
    h = lambda z: log_tail(z) - log_target  # decreasing in z
    lo, hi = mu / 2, mu / 2 + 1
    while h(hi) > 0:
        lo, hi = hi, 2 * hi
    return ndtr(-root(h, lo, hi))


@self_checked
def gdp_subsampled(alpha, p, mu):
    """C_p(G_μ)(α), the f-DP guarantee of a μ-GDP mechanism run on a p-fraction subsample (DRS 2022,
    Thm 4.2; closed form derived in the module docstring):

        C_p(G_μ)(α) = f_p(α) on [0, x*],  x* + f_p(x*) − α on [x*, f_p(x*)],  f_p^{-1}(α) on [f_p(x*), 1],

    with f_p = p G_μ + (1 − p)(1 − α) and x* = Φ(−μ/2)."""
    x_star = ndtr(-mu / 2)
    if alpha <= x_star:
        return _f_p(alpha, p, mu)
    y_star = p * x_star + (1 - p) * ndtr(mu / 2)  # f_p(x*) = p G_μ(x*) + (1 − p)(1 − x*), G_μ(x*) = x*
    if alpha <= y_star:
        return x_star + y_star - alpha
    return _f_p_inverse(alpha, p, mu)


register(Statement(
    id="base.gdp_subsampled",
    fast="dpspec.fast.base.fdp:gdp_subsampled",
    source=Source("outside", "Thm 4.2", "the subsampling operator C_p on G_μ (closed form derived in the "
                  "module docstring)", DRS),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="C_p(G_μ) = min{f_p, f_p^{-1}}**, f_p = p G_μ + (1 − p)(1 − α)",
    params=(
        Param("alpha", TYPE_I, "type-I error α", example="0.1"),
        Param("p", SAMPLING_RATE, "sampling fraction p = m/n", example="0.1"),
        Param("mu", MU, "GDP parameter μ of the mechanism on the subsample", example=1),
    ),
    reference=gdp_subsampled,
    privacy=Privacy("replace_one", "both", "without_replacement"),
    monotone={"alpha": -1, "p": -1, "mu": -1},
))
