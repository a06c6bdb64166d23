"""The Gaussian mechanism (sensitivity 1, noise N(0, σ²)), vectorised: RDP curve, exact privacy profile, the ε
and σ obtained by inverting it, and the classical calibration. Mirrors reference/base/gaussian.py.

The profile of the pair N(μ, 1) vs N(0, 1) (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13) is

    δ(ε) = Φ(a) − e^ε Φ(b),   a = μ/2 − ε/μ,  b = −μ/2 − ε/μ,

and is computed in log space without the cancellation of the two terms:
* a < 0: δ = Φ(a)(1 − r) with r = e^ε Φ(b)/Φ(a). Writing Φ(x) = ½ e^{−x²/2} erfcx(−x/√2) and using
  b² − a² = 2ε, the exponentials cancel exactly: log r = log erfcx(−b/√2) − log erfcx(−a/√2), a difference
  of two O(log(1+|a|)) numbers instead of two O(a²) ones, so log r keeps its relative precision.
  Its error is ~1e-16·|a|/μ relative, so this branch is used for a < 0 unless μ ≤ 1 and ε ≤ 1.
* otherwise: δ = [Φ(a) − Φ(b)] − expm1(ε)·Φ(b); for a ≥ 0 the bracket is ½(erf(a/√2) + erf(−b/√2)), a sum of
  two non-negative terms; for a < 0 with μ ≤ 1 and ε ≤ 1 see `_log_mid` (a quadrature form without the
  |a|/μ cancellation of the erf difference). The subtraction there loses a factor D/δ that grows like c²,
  c = −ε/μ (≤ ~1.5e3 where δ is above 1e-308).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import GAUSSIAN_CLASSICAL_EPS_BELOW_ONE
from dpspec.reference.domains import ALPHA, DELTA, EPS, NOISE
from dpspec.reference.errors import ConditionError, PrecisionError

from .._torch import gauss_legendre, log1mexp, log_expm1, params

_SQRT2 = math.sqrt(2.0)
_BISECTIONS = 200  # enough to shrink any float64 bracket to adjacent floats
_NEWTON_AFTER, _NEWTON_STEPS = 40, 5  # with a derivative: 40 bisections (bracket / 1e12), then Newton


def gaussian_rdp(alpha, sigma) -> torch.Tensor:
    """ε(α) = α / (2σ²) (Mironov 2017, Prop. 7), elementwise (mirrors ``base.gaussian_rdp``)."""
    alpha, sigma = params(alpha=(alpha, ALPHA), sigma=(sigma, NOISE))
    return alpha / (2 * sigma**2)


def ndtr(x: torch.Tensor) -> torch.Tensor:
    """Φ(x) = erfc(−x/√2)/2, relatively accurate in the lower tail (torch.special.ndtr is not: it is off by
    5e-4 relative at x = −7.5 and returns 0 below x ≈ −8.3 in torch 2.x)."""
    return torch.special.erfc(-x / _SQRT2) / 2


def _log_mid(c: torch.Tensor, mu: torch.Tensor, eps: torch.Tensor) -> torch.Tensor:
    """log δ for a < 0, μ ≤ 1, ε ≤ 1 (c = −ε/μ, b = c − μ/2): δ = D − E with
        D = Φ(c + μ/2) − Φ(c − μ/2) = φ(c)·I,  I = ∫_{−μ/2}^{μ/2} e^{−ct − t²/2} dt  (16-point Gauss–Legendre; the
            integrand varies by at most e^{1.2} here, so the rule's error is below 1e-30 relative),
        E = expm1(ε) Φ(b) = expm1(ε) φ(b) R(−b),  R(x) = Φ(−x)/φ(x) = √(π/2)·erfcx(x/√2),
    so E/D = expm1(ε) R(−b) e^{μc/2 − μ²/8} / I (φ(b)/φ(c) = e^{−(b²−c²)/2} exactly) and
    log δ = log φ(c) + log I + log1p(−E/D): the large exponent −c²/2 appears once, outside the subtraction
    (forming D and E separately would put its rounding, ~1e-16·c², into both and amplify it by D/δ ~ c²)."""
    x, w = gauss_legendre(16, c)
    t = (mu / 2).unsqueeze(-1) * x
    integral = (mu / 2) * (w * torch.exp(-c.unsqueeze(-1) * t - t**2 / 2)).sum(-1)
    b = c - mu / 2
    ratio = (torch.expm1(eps) * math.sqrt(math.pi / 2) * torch.special.erfcx(-b / _SQRT2)
             * torch.exp(mu * c / 2 - mu**2 / 8) / integral)
    log_phi = -c**2 / 2 - 0.5 * math.log(2 * math.pi)
    return log_phi + torch.log(integral) + torch.log1p(-torch.clamp(ratio, max=1.0))


def log_delta_shift(eps: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """log δ(ε) of N(μ, 1) vs N(0, 1) (−inf where δ = 0, e.g. μ = 0), unchecked (see the module docstring)."""
    pos = mu > 0
    m = torch.where(pos, mu, torch.ones_like(mu))
    a, b = m / 2 - eps / m, -m / 2 - eps / m
    small = (a < 0) & (m <= 1) & (eps <= 1)
    tail = (a < 0) & ~small
    # a < 0, not small: log Φ(a) + log1mexp(log r), log r from the scaled complementary error function
    an = torch.where(tail, a, -torch.ones_like(a))
    bn = torch.where(tail, b, -1 - m)
    log_r = torch.log(torch.special.erfcx(-bn / _SQRT2)) - torch.log(torch.special.erfcx(-an / _SQRT2))
    log_tail = torch.special.log_ndtr(an) + log1mexp(torch.clamp(log_r, max=0.0))
    # a < 0, small: see _log_mid
    ms = torch.where(small, m, torch.ones_like(m))
    es = torch.where(small, eps, torch.ones_like(eps))
    log_small = _log_mid(-es / ms, ms, es)
    # a ≥ 0: [Φ(a) − Φ(b)] − expm1(ε) Φ(b), the bracket as erf + erf, the product in log space (no overflow)
    ap = torch.where(a >= 0, a, torch.zeros_like(a))
    bp = torch.where(a >= 0, b, -m)
    ep = torch.where(a >= 0, eps, torch.zeros_like(eps))
    bracket = (torch.special.erf(ap / _SQRT2) + torch.special.erf(-bp / _SQRT2)) / 2
    subtract = torch.exp(log_expm1(ep) + torch.special.log_ndtr(bp))
    log_pos = torch.log(torch.clamp(bracket - subtract, min=0.0))
    out = torch.where(tail, log_tail, torch.where(small, log_small, log_pos))
    return torch.where(pos, out, torch.full_like(out, -math.inf))


def gaussian_profile(eps, sigma) -> torch.Tensor:
    """δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) (Balle & Wang 2018, Thm 8), elementwise; underflows to 0
    below the float64 range (mirrors ``base.gaussian_profile``)."""
    eps, sigma = params(eps=(eps, EPS), sigma=(sigma, NOISE))
    return torch.exp(log_delta_shift(eps, 1 / sigma))


def _bisect_decreasing(h, lo: torch.Tensor, hi: torch.Tensor, slope=None) -> torch.Tensor:
    """The root of h (decreasing, h(lo) > 0 > h(hi)), vectorised: bisection, then (when ``slope``, the
    derivative of h, is given) Newton steps kept inside the final bracket, which converge quadratically from
    there; without ``slope``, bisection all the way down to adjacent floats."""
    for _ in range(_BISECTIONS if slope is None else _NEWTON_AFTER):
        mid = (lo + hi) / 2
        above = h(mid) > 0
        lo, hi = torch.where(above, mid, lo), torch.where(above, hi, mid)
    x = (lo + hi) / 2
    if slope is not None:
        for _ in range(_NEWTON_STEPS):
            step = h(x) / slope(x)
            x = torch.where(torch.isfinite(step), torch.clamp(x - step, min=lo, max=hi), x)
    return x


def _dlogdelta_dlogmu(eps: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """d log δ / d log μ = μ φ(μ/2 − ε/μ) / δ (∂δ/∂μ = φ(a), Balle & Wang 2018, proof of Thm 8)."""
    a = mu / 2 - eps / mu
    return torch.exp(torch.log(mu) - a**2 / 2 - 0.5 * math.log(2 * math.pi) - log_delta_shift(eps, mu))


def gaussian_eps(delta, sigma) -> torch.Tensor:
    """The smallest ε ≥ 0 with δ_σ(ε) ≤ δ (Balle & Wang 2018, Thm 8 inverted), elementwise; 0 where
    δ ≥ δ_σ(0). Bracket [0, μ²/2 + μ√(2 log(1/δ))] (μ = 1/σ): there a = −√(2 log(1/δ)), so
    δ_σ(ε) < Φ(a) ≤ e^{−a²/2}/2 = δ/2. Then bisection on log δ_σ(ε) − log δ (mirrors ``base.gaussian_eps``)."""
    delta, sigma = params(delta=(delta, DELTA), sigma=(sigma, NOISE))
    mu, log_target = 1 / sigma, torch.log(delta)
    h = lambda e: log_delta_shift(e, mu) - log_target  # noqa: E731
    hi = mu**2 / 2 + mu * torch.sqrt(-2 * log_target)
    slope = lambda e: -torch.exp(e + torch.special.log_ndtr(-mu / 2 - e / mu) - log_delta_shift(e, mu))  # noqa: E731
    root = _bisect_decreasing(h, torch.zeros_like(hi), hi, slope)  # ∂δ/∂ε = −e^ε Φ(b)
    return torch.where(h(torch.zeros_like(hi)) <= 0, torch.zeros_like(root), root)


def gaussian_sigma(eps, delta) -> torch.Tensor:
    """The smallest σ > 0 with δ_σ(ε) ≤ δ (Balle & Wang 2018, Thm 8 solved for σ), elementwise; bisection in
    t = log σ. Upper end t = 1 + log(1/δ): δ_σ(ε) ≤ δ_σ(0) = 2Φ(1/(2σ)) − 1 ≤ 1/(σ√(2π)) < δ there. Lower end
    found by doubling from t = −1 (mirrors ``base.gaussian_sigma``)."""
    eps, delta = params(eps=(eps, EPS), delta=(delta, DELTA))
    log_target = torch.log(delta)
    h = lambda t: log_delta_shift(eps, torch.exp(-t)) - log_target  # noqa: E731  decreasing in t
    hi = 1 - log_target
    lo = -torch.ones_like(hi)
    for _ in range(12):  # down to t = −4096, i.e. σ = e^{−4096}
        low = h(lo) <= 0
        if not bool(low.any()):
            break
        lo = torch.where(low, 2 * lo, lo)
    else:
        raise PrecisionError("gaussian_sigma: no σ > e^-4096 reaches the target δ")
    return torch.exp(_bisect_decreasing(h, lo, hi, lambda t: _dlogdelta_dlogmu(eps, torch.exp(-t)) * -1))


def gaussian_classical(delta, sigma, allow_outside: bool = False) -> torch.Tensor:
    """ε = √(2 ln(1.25/δ)) / σ (Dwork & Roth 2014, Thm A.1 solved for ε), elementwise. The theorem assumes
    ε < 1: like the reference, any point with ε ≥ 1 raises ConditionError unless ``allow_outside``."""
    delta, sigma = params(delta=(delta, DELTA), sigma=(sigma, NOISE))
    eps = torch.sqrt(2 * torch.log(1.25 / delta)) / sigma
    if not allow_outside and not bool((eps < 1).all()):
        raise ConditionError("base.gaussian_classical", [GAUSSIAN_CLASSICAL_EPS_BELOW_ONE.describe()])
    return eps
