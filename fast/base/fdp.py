"""Gaussian differential privacy (Dong, Roth & Su, JRSS-B 2022), vectorised: G_μ, μ-GDP ↔ (ε, δ), group privacy
and composition. Mirrors the G_μ statements of reference/base/fdp.py (base.gdp_*)."""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import EPS_REAL, GROUP, MU, TYPE_I
from dpspec.reference.domains import DELTA, EPS, SAMPLING_RATE, STEPS

from .._torch import params
from .gaussian import _bisect_decreasing, _objective_dlogmu, log_delta_shift, log_profile_real, ndtr, profile_objective


def gdp_tradeoff(alpha, mu) -> torch.Tensor:
    """G_μ(α) = Φ(Φ^{-1}(1−α) − μ) (DRS 2022, Def. 2.7), elementwise, written as Φ(−Φ^{-1}(α) − μ) so that
    small α loses nothing to 1 − α rounding."""
    alpha, mu = params(alpha=(alpha, TYPE_I), mu=(mu, MU))
    return ndtr(-torch.special.ndtri(alpha) - mu)


def gdp_profile(eps, mu) -> torch.Tensor:
    """δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (DRS 2022, Cor. 2.13), 0 for μ = 0; the cancellation-free
    log-space evaluation of fast/base/gaussian.py; every real ε (ε < 0: (1 − e^ε) + e^ε δ(−ε), 1 − e^ε at μ = 0)."""
    eps, mu = params(eps=(eps, EPS_REAL), mu=(mu, MU))
    return torch.exp(log_profile_real(eps, lambda t: log_delta_shift(t, mu)))


def gdp_mu(eps, delta) -> torch.Tensor:
    """The μ > 0 with δ_μ(ε) = δ (DRS 2022, Cor. 2.13 inverted), by bisection in t = log μ on the objective of
    fast/base/gaussian.py (log δ, or log(1 − δ) for δ > 1/2, where log δ ≈ −(1 − δ) kept only its absolute
    precision: μ at δ = 1 − 2^-53 was 0.6% off). Bracket: at μ = δ, δ_μ(ε) ≤ 2Φ(μ/2) − 1 ≤ μ/√(2π) < δ (so
    t = log δ is below the root, as in the reference); the upper end starts at t = 1 and is doubled until
    δ_μ(ε) > δ (t = 2^12 passes every float ε: the root is near log √(2ε) ≤ 355)."""
    eps, delta = params(eps=(eps, EPS), delta=(delta, DELTA))
    h = lambda t: -profile_objective(eps, delta, mu=torch.exp(t))  # noqa: E731  decreasing in t
    lo = torch.log(delta)
    hi = torch.full_like(lo, 1.0)
    for _ in range(12):
        short = h(hi) >= 0
        if not bool(short.any()):
            break
        hi = torch.where(short, 2 * hi, hi)
    return torch.exp(_bisect_decreasing(h, lo, hi, lambda t: -_objective_dlogmu(eps, delta, mu=torch.exp(t))))


def gdp_group(g, mu) -> torch.Tensor:
    """μ_g = g·μ (DRS 2022, Thm 2.14)."""
    g, mu = params(g=(g, GROUP), mu=(mu, MU))
    return g * mu


def gdp_composition(mu, k) -> torch.Tensor:
    """μ_k = √k·μ (DRS 2022, Cor. 3.3)."""
    mu, k = params(mu=(mu, MU), k=(k, STEPS))
    return torch.sqrt(k) * mu


def gdp_subsampled(alpha, p, mu) -> torch.Tensor:
    """C_p(G_μ)(α) (DRS 2022, Thm 4.2; the closed form of reference/base/fdp_subsampling.py), elementwise:

        f_p(α) = p G_μ(α) + (1 − p)(1 − α)        on [0, x*],   x* = Φ(−μ/2),
        x* + y* − α = 2p x* + (1 − α − p)           on [x*, y*],  y* = f_p(x*) = p x* + (1 − p) Φ(μ/2),
        f_p^{-1}(α) = Φ(−z)                         on [y*, 1],   p Φ(μ − z) + (1 − p) Φ(−z) = 1 − α, z ≥ μ/2.

    The middle piece is ≥ x* but its terms are ~1: 1 − α − p is formed with the rounding error of 1 − α carried
    exactly (a Fast2Sum), so a value near x* = Φ(−5) ≈ 3e-7 (μ = 10) keeps its digits. The last piece solves for
    z by bisection and Newton steps (see _gdp_subsampled_inverse)."""
    alpha, p, mu = params(alpha=(alpha, TYPE_I), p=(p, SAMPLING_RATE), mu=(mu, MU))
    alpha, p, mu = torch.broadcast_tensors(alpha, p, mu)
    x_star = ndtr(-mu / 2)
    y_star = p * x_star + (1 - p) * ndtr(mu / 2)
    first = p * ndtr(-torch.special.ndtri(alpha) - mu) + (1 - p) * (1 - alpha)
    one_minus = 1 - alpha
    rounding = (1 - one_minus) - alpha  # exact (Sterbenz twice): 1 − α = one_minus + rounding
    c = (one_minus - p) + rounding  # 1 − α − p (one_minus − p is exact wherever it cancels)
    middle = 2 * p * x_star + c
    last = _gdp_subsampled_inverse(alpha, p, mu, c)
    return torch.where(alpha <= x_star, first, torch.where(alpha <= y_star, middle, last))


def _gdp_subsampled_inverse(alpha, p, mu, c):
    """Φ(−z) where p Φ(μ − z) + (1 − p) Φ(−z) = 1 − α, z ≥ μ/2 (0 at α = 1); only meaningful where α ≥ y*.

    Written with c = 1 − α − p (exact) as (1 − p) Φ(−z) = c + p Φ(z − μ): both sides are tails whose logs have
    slopes of order z, while the printed form's left side is dominated by p Φ(μ − z) ≈ p, nearly flat in z, where
    the root lies below μ (that form lost 1e-10 at α = 0.99, p = 0.01, μ = 10). For c ≥ 0 the equation is
    log((1 − p)Φ(−z)) = log(c + p Φ(z − μ)), for c < 0 it is log((1 − p)Φ(−z) + |c|) = log(p Φ(z − μ)). Where the
    root lies beyond μ the printed form, log(p Φ(μ − z) + (1 − p)Φ(−z)) = log(1 − α), is used instead (there
    c ≈ −p would cancel). Each difference decreases in z. Bisection, then Newton steps on it."""
    log_p, log_1mp = torch.log(p), torch.log1p(-p)
    log_c = torch.log(c.abs())
    positive = c >= 0
    log_target = torch.log(1 - alpha)  # exact: α > 1/2 here (−inf at α = 1)
    # the root lies beyond z = μ iff the tails at μ exceed 1 − α: there p Φ(μ − z) is no longer ≈ p, and the
    # printed form is the well-conditioned one (the c form would cancel c ≈ −p against p Φ(z − μ) ≈ p)
    printed = log_target < torch.logaddexp(log_p - math.log(2), log_1mp + torch.special.log_ndtr(-mu))
    log_phi = lambda x: -x**2 / 2 - 0.5 * math.log(2 * math.pi)  # noqa: E731

    def logs(z):
        low = log_1mp + torch.special.log_ndtr(-z)  # log (1 − p)Φ(−z), decreasing
        high = log_p + torch.special.log_ndtr(z - mu)  # log p Φ(z − μ), increasing
        tails = torch.logaddexp(log_p + torch.special.log_ndtr(mu - z), low)  # log (p Φ(μ − z) + (1 − p)Φ(−z))
        return low, high, tails

    def h(z):
        low, high, tails = logs(z)
        c_form = torch.where(positive, low - torch.logaddexp(log_c, high), torch.logaddexp(low, log_c) - high)
        return torch.where(printed, tails - log_target, c_form)

    def slope(z):
        low, high, tails = logs(z)
        d_low = torch.where(torch.isinf(low), torch.zeros_like(z), -torch.exp(log_1mp + log_phi(z) - low))  # p = 1
        d_high = torch.exp(log_p + log_phi(z - mu) - high)  # d high/dz
        d_tails = -torch.exp(torch.logaddexp(log_p + log_phi(mu - z), log_1mp + log_phi(z)) - tails)
        w_high = torch.where(positive, torch.exp(high - torch.logaddexp(log_c, high)), torch.ones_like(z))
        w_low = torch.where(positive, torch.ones_like(z), torch.exp(low - torch.logaddexp(low, log_c)))
        return torch.where(printed, d_tails, w_low * d_low - w_high * d_high)

    lo = mu / 2
    hi = lo + 1
    for _ in range(12):  # log Φ(−z) ≈ −z²/2: z = 2^12 passes any float target
        short = h(hi) > 0
        if not bool(short.any()):
            break
        lo, hi = torch.where(short, hi, lo), torch.where(short, 2 * hi, hi)
    z = _bisect_decreasing(h, lo, hi, slope)
    return torch.where(alpha < 1, ndtr(-z), torch.zeros_like(z))
