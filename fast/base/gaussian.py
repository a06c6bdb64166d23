"""The Gaussian mechanism (sensitivity 1, noise N(0, σ²)), vectorised: RDP curve, exact privacy profile, the ε
and σ obtained by inverting it, and the classical calibration. Mirrors reference/base/gaussian.py.

The profile of the pair N(μ, 1) vs N(0, 1) (Balle & Wang 2018, Thm 8; Dong, Roth & Su 2022, Cor. 2.13) is

    δ(ε) = Φ(a) − e^ε Φ(b),   a = μ/2 − ε/μ,  b = −μ/2 − ε/μ,

and is computed in log space without the cancellation of the two terms:
* a = (μ²/2 − ε)/μ is formed with μ² split exactly (Dekker's product, :func:`shift_points`), and for the
  mechanism with noise σ as a = (1/2 − εσ²)/σ from σ itself (:func:`shift_points_sigma`; μ = 1/σ rounded moves a
  by ~1e-16·μ): for large μ the root region ε ≈ μ²/2 makes μ/2 and ε/μ cancel, and the float difference lost
  |a| to ~1e-16·ε/μ (5e3 at μ = 1e20). Where a < −1e154 (e.g. ε/μ overflows for μ ≈ 1e-320), δ < exp(−a²/2)
  underflows: log δ = −inf, never NaN.
* a < 0: δ = Φ(a)(1 − r) with r = e^ε Φ(b)/Φ(a). Writing Φ(x) = ½ e^{−x²/2} erfcx(−x/√2) and using
  b² − a² = 2ε, the exponentials cancel exactly: log r = log erfcx(−b/√2) − log erfcx(−a/√2), a difference
  of two O(log(1+|a|)) numbers instead of two O(a²) ones, so log r keeps its relative precision.
  Its error is ~1e-16·|a|/μ relative, so this branch is used for a < 0 unless μ ≤ 1 and ε ≤ 1.
* otherwise: δ = [Φ(a) − Φ(b)] − expm1(ε)·Φ(b); for a ≥ 0 the bracket is ½(erf(a/√2) + erf(−b/√2)), a sum of
  two non-negative terms, and for ε > 1 the product is e^ε Φ(b)(1 − e^{−ε}) with e^ε Φ(b) = ½ erfcx(−b/√2)
  e^{−a²/2} (the same identity; ε + log Φ(b) would cancel two numbers of size μ²/8); for a < 0 with μ ≤ 1 and
  ε ≤ 1 see `_log_mid` (a quadrature form without the |a|/μ cancellation of the erf difference). The subtraction
  there loses a factor D/δ that grows like c², c = −ε/μ (≤ ~1.5e3 where δ is above 1e-308).
* 1 − δ(ε) = Φ(−a) + e^ε Φ(b), a sum of two positive terms (:func:`log1m_delta_shift`): the inversions solve for
  a target δ > 1/2 in log(1 − δ), where log δ ≈ −(1 − δ) would keep only its absolute precision (σ for
  δ = 1 − 2^-53 was 1% off).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import EPS_REAL, GAUSSIAN_CLASSICAL_EPS_BELOW_ONE
from dpspec.reference.domains import ALPHA, DELTA, EPS, NOISE
from dpspec.reference.errors import ConditionError, PrecisionError

from .._torch import gauss_legendre, log1mexp, log_expm1, params

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_BISECTIONS = 200  # enough to shrink any float64 bracket to adjacent floats
_NEWTON_AFTER, _SAFE_STEPS = 40, 100  # with a derivative: 40 bisections (bracket / 1e12), then safeguarded Newton
_FAR = 1e154  # a < −_FAR: δ < Φ(a) < exp(−a²/2) = exp(−5e307 or less), zero in float64
_SPLIT_RANGE = (1e-150, 1e150)  # μ where μ² and its Veltkamp split neither over- nor underflow


def gaussian_rdp(alpha, sigma) -> torch.Tensor:
    """ε(α) = α / (2σ²) (Mironov 2017, Prop. 7), elementwise (mirrors ``base.gaussian_rdp``), as ((α/2)/σ)/σ:
    σ² overflows for σ > 1.3e154 where the value itself is still a float (α = 1e308, σ = 1e300: 5e-293), and 2σ
    overflows for σ > 9e307 (then α/(2σ)/σ gave 0.0 at α = 1.8e307, σ = 1e308, where the value is 9e-310: an RDP
    curve too small, and a conversion below the true minimum). Each division only shrinks (or, for σ < 1, grows) a
    finite value, so an intermediate over- or underflows only where the result does."""
    alpha, sigma = params(alpha=(alpha, ALPHA), sigma=(sigma, NOISE))
    return alpha / 2 / sigma / sigma


def ndtr(x: torch.Tensor) -> torch.Tensor:
    """Φ(x) = erfc(−x/√2)/2, relatively accurate in the lower tail (torch.special.ndtr is not: it is off by
    5e-4 relative at x = −7.5 and returns 0 below x ≈ −8.3 in torch 2.x)."""
    return torch.special.erfc(-x / _SQRT2) / 2


def shift_points(eps: torch.Tensor, mu: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(a, b) = (μ/2 − ε/μ, −μ/2 − ε/μ) for μ > 0. b has no cancellation. a = (μ²/2 − ε)/μ with μ² = p + e split
    exactly: (p/2 − ε) is exact where it cancels (Sterbenz), so a keeps its relative precision even at ε ≈ μ²/2;
    outside _SPLIT_RANGE the plain difference (there a cancellation needs ε ≈ μ²/2 beyond the float range or
    below 1e-300, where δ's sensitivity to a is negligible)."""
    ok = (mu > _SPLIT_RANGE[0]) & (mu < _SPLIT_RANGE[1])
    m = torch.where(ok, mu, torch.ones_like(mu))
    e = torch.where(ok, eps, torch.zeros_like(eps))
    p, err = _two_product(m, m)
    a_split = ((p / 2 - e) + err / 2) / m
    a = torch.where(ok, a_split, mu / 2 - eps / mu)
    return a, -mu / 2 - eps / mu


def _split(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """Veltkamp's split x = hi + lo into two halves of 26 bits (|x| < 1e300)."""
    c = 134217729.0 * x  # 2^27 + 1
    hi = c - (c - x)
    return hi, x - hi


def _two_product(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(p, e) with p = fl(xy) and p + e = xy exactly (Dekker, no fma), for |x|, |y| < 1e300 and no underflow."""
    p = x * y
    xh, xl = _split(x)
    yh, yl = _split(y)
    return p, ((xh * yh - p) + xh * yl + xl * yh) + xl * yl


def shift_points_sigma(eps: torch.Tensor, sigma: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(a, b) = (1/(2σ) − εσ, −1/(2σ) − εσ) from σ itself: μ = 1/σ rounded would move a by about (μ/2 + ε/μ)·1e-16,
    and δ's sensitivity to a made δ 4.5e-8 off at σ = 1e-9, ε = 5e17 (a ≈ 0). a = (1/2 − εσ²)/σ with εσ² formed
    exactly (two products) where 1/2 and εσ² can cancel (εσ² ∈ [1/4, 1]; then every intermediate is within the
    float range for σ ∈ (1e-150, 1e150)); elsewhere the plain difference has no cancellation."""
    near = (sigma > _SPLIT_RANGE[0]) & (sigma < _SPLIT_RANGE[1])
    s = torch.where(near, sigma, torch.ones_like(sigma))
    e = torch.where(near, eps, torch.zeros_like(eps))
    s_hi, s_lo = _two_product(s, s)  # σ² = s_hi + s_lo
    t_hi, t_lo = _two_product(e, s_hi)  # ε s_hi = t_hi + t_lo
    near &= (t_hi >= 0.25) & (t_hi <= 1.0)
    numerator = ((0.5 - t_hi) - t_lo) - e * s_lo  # 1/2 − εσ², 0.5 − t_hi exact (Sterbenz)
    eps_sigma = torch.where(eps == 0, torch.zeros_like(eps), eps * sigma)  # 0·σ = 0 also at σ = inf (a root search
    # in log σ passes e^t = inf: the σ for ε = 0, δ = 5e-324 is 8e322)
    plain = 0.5 / sigma - eps_sigma  # (1/(2σ) would overflow 2σ at the largest floats)
    return torch.where(near, numerator / s, plain), -0.5 / sigma - eps_sigma


def _log_exp_eps_ndtr(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """log(e^ε Φ(b)) = log(½ erfcx(−b/√2)) − a²/2 (b² − a² = 2ε; b < 0 always): no ε + log Φ(b) cancellation."""
    return torch.log(torch.special.erfcx(-b / _SQRT2) / 2) - a**2 / 2


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
    log_phi = -c**2 / 2 - _LOG_SQRT_2PI
    return log_phi + torch.log(integral) + torch.log1p(-torch.clamp(ratio, max=1.0))


def log_delta_shift(eps: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """log δ(ε) of N(μ, 1) vs N(0, 1) (−inf where δ = 0, e.g. μ = 0), unchecked (see the module docstring)."""
    pos = mu > 0
    m = torch.where(pos, mu, torch.ones_like(mu))
    a, b = shift_points(eps, m)
    out = _log_delta(eps, m, a, b)
    return torch.where(pos, out, torch.full_like(out, -math.inf))


def log_delta_sigma(eps: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """log δ(ε) of the Gaussian mechanism with noise σ (μ = 1/σ), a and b formed from σ (:func:`shift_points_sigma`)."""
    a, b = shift_points_sigma(eps, sigma)
    return _log_delta(eps, 1 / sigma, a, b)


def _log_delta(eps: torch.Tensor, m: torch.Tensor, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """log δ from (ε, μ > 0, a, b) (module docstring)."""
    far = ~(a >= -_FAR)  # also a = −inf (ε/μ overflowed)
    a = torch.where(far, -torch.ones_like(a), a)
    b = torch.where(far, -1 - m, b)
    small = (a < 0) & (m <= 1) & (eps <= 1) & ~far
    tail = (a < 0) & ~small & ~far
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
    nonneg = a >= 0
    ap = torch.where(nonneg, a, torch.zeros_like(a))
    bp = torch.where(nonneg, b, -m)
    ep = torch.where(nonneg, eps, torch.zeros_like(eps))
    bracket = (torch.special.erf(ap / _SQRT2) + torch.special.erf(-bp / _SQRT2)) / 2
    log_product = torch.where(ep <= 1, log_expm1(torch.clamp(ep, max=1.0)) + torch.special.log_ndtr(bp),
                              _log_exp_eps_ndtr(ap, bp) + log1mexp(-torch.clamp(ep, min=1.0)))
    log_pos = torch.log(torch.clamp(bracket - torch.exp(log_product), min=0.0))
    out = torch.where(tail, log_tail, torch.where(small, log_small, log_pos))
    return torch.where(far, torch.full_like(out, -math.inf), out)


def _log1m_delta(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """log(1 − δ) = log(Φ(−a) + e^ε Φ(b)) from (a, b), a sum of positive terms (0 where a < −1e154: δ = 0)."""
    far = ~(a >= -_FAR)
    a = torch.where(far, -torch.ones_like(a), a)
    b = torch.where(far, -2 * torch.ones_like(b), b)
    out = torch.logaddexp(torch.special.log_ndtr(-a), _log_exp_eps_ndtr(a, b))
    return torch.where(far, torch.zeros_like(out), out)


def log1m_delta_shift(eps: torch.Tensor, mu: torch.Tensor) -> torch.Tensor:
    """log(1 − δ(ε)) of N(μ, 1) vs N(0, 1) (0 where δ = 0, e.g. μ = 0), unchecked."""
    pos = mu > 0
    a, b = shift_points(eps, torch.where(pos, mu, torch.ones_like(mu)))
    out = _log1m_delta(a, b)
    return torch.where(pos, out, torch.zeros_like(out))


def log_profile_real(eps: torch.Tensor, log_nonneg) -> torch.Tensor:
    """log δ(ε) of a symmetric pair at every real ε from ``log_nonneg`` (its log δ at |ε| ≥ 0): for ε < 0 the
    complement identity δ(ε) = (1 − e^ε) + e^ε δ(−ε), a sum of non-negative terms (reference ``profile_real``)."""
    value = log_nonneg(eps.abs())
    neg = torch.clamp(eps, max=0.0)
    return torch.where(eps < 0, torch.logaddexp(log1mexp(neg), neg + value), value)


def gaussian_profile(eps, sigma) -> torch.Tensor:
    """δ(ε) = Φ(1/(2σ) − εσ) − e^ε Φ(−1/(2σ) − εσ) (Balle & Wang 2018, Thm 8), elementwise, every real ε (for ε < 0
    by :func:`log_profile_real`); underflows to 0 below the float64 range (mirrors ``base.gaussian_profile``)."""
    eps, sigma = params(eps=(eps, EPS_REAL), sigma=(sigma, NOISE))
    return torch.exp(log_profile_real(eps, lambda t: log_delta_sigma(t, sigma)))


def _bisect_decreasing(h, lo: torch.Tensor, hi: torch.Tensor, slope=None) -> torch.Tensor:
    """The root of h (decreasing, h(lo) > 0 > h(hi)), vectorised: bisection, then (when ``slope``, the
    derivative of h, is given) safeguarded Newton steps: each evaluation narrows the bracket, and a Newton point that
    is not finite or leaves the bracket is replaced by the midpoint, until no point moves (at most _SAFE_STEPS).
    Without ``slope``, bisection all the way down to adjacent floats. (Plain Newton after 40 bisections stopped
    where h is flat and its slope underflows: at ε = 1e308 the σ of gaussian_sigma and the μ of gdp_mu were 4e-10
    off; there adjacent floats of σ move a = 1/(2σ) − εσ by 1e138, so only bisection reaches the root.)"""
    for _ in range(_BISECTIONS if slope is None else _NEWTON_AFTER):
        mid = (lo + hi) / 2
        above = h(mid) > 0
        lo, hi = torch.where(above, mid, lo), torch.where(above, hi, mid)
    x = (lo + hi) / 2
    if slope is None:
        return x
    for _ in range(_SAFE_STEPS):
        value = h(x)
        zero = value == 0
        lo = torch.where((value > 0) | zero, x, lo)  # a NaN value leaves the bracket as it is
        hi = torch.where((value < 0) | zero, x, hi)
        newton = x - value / slope(x)
        inside = torch.isfinite(newton) & (newton > lo) & (newton < hi)
        following = torch.where(inside, newton, (lo + hi) / 2)
        moved = (following != x) & (lo < hi)
        x = torch.where(moved, following, x)
        if not bool(moved.any()):
            break
    return x


def _points(eps: torch.Tensor, mu=None, sigma=None):
    """(μ, a, b) of the pair at ε, from μ > 0 (:func:`shift_points`) or from σ (:func:`shift_points_sigma`)."""
    if sigma is not None:
        a, b = shift_points_sigma(eps, sigma)
        return 1 / sigma, a, b
    a, b = shift_points(eps, mu)
    return mu, a, b


def profile_objective(eps: torch.Tensor, delta: torch.Tensor, *, mu=None, sigma=None) -> torch.Tensor:
    """A function of (ε, μ or σ) whose zero is δ(ε) = δ, increasing in δ(ε), without cancellation: log δ(ε) − log δ
    where δ ≤ 1/2, and log(1 − δ) − log(1 − δ(ε)) where δ > 1/2 (module docstring)."""
    m, a, b = _points(eps, mu, sigma)
    return torch.where(delta > 0.5, torch.log1p(-delta) - _log1m_delta(a, b), _log_delta(eps, m, a, b) - torch.log(delta))


def _objective_value(eps, delta, m, a, b):
    """log δ(ε) (δ ≤ 1/2) or log(1 − δ(ε)) (δ > 1/2): the denominators of the derivatives below."""
    return torch.where(delta > 0.5, _log1m_delta(a, b), _log_delta(eps, m, a, b))


def _objective_dlogmu(eps: torch.Tensor, delta: torch.Tensor, *, mu=None, sigma=None) -> torch.Tensor:
    """∂/∂ log μ of :func:`profile_objective`: μ φ(a)/δ(ε) or μ φ(a)/(1 − δ(ε)) (∂δ/∂μ = φ(a), Balle & Wang 2018,
    proof of Thm 8)."""
    m, a, b = _points(eps, mu, sigma)
    return torch.exp(torch.log(m) - a**2 / 2 - _LOG_SQRT_2PI - _objective_value(eps, delta, m, a, b))


def _objective_deps(eps: torch.Tensor, delta: torch.Tensor, *, mu=None, sigma=None) -> torch.Tensor:
    """∂/∂ε of :func:`profile_objective`: −e^ε Φ(b)/δ(ε) or −e^ε Φ(b)/(1 − δ(ε)) (∂δ/∂ε = −e^ε Φ(b))."""
    m, a, b = _points(eps, mu, sigma)
    return -torch.exp(_log_exp_eps_ndtr(a, b) - _objective_value(eps, delta, m, a, b))


def gaussian_eps(delta, sigma) -> torch.Tensor:
    """The smallest ε ≥ 0 with δ_σ(ε) ≤ δ (Balle & Wang 2018, Thm 8 inverted), elementwise; 0 where
    δ ≥ δ_σ(0). Bracket [0, μ²/2 + μ√(2 log(1/δ))] (μ = 1/σ): there a = −√(2 log(1/δ)), so
    δ_σ(ε) < Φ(a) ≤ e^{−a²/2}/2 = δ/2 (inf where that end overflows: then ε ≥ μ²/2 − μ√(2 log 2) is beyond
    the float range too). Then bisection and Newton on :func:`profile_objective`, with a formed from σ (ε was 1e-8
    off at σ = 1e-20 when a came from μ/2 − ε/μ in floats; mirrors ``base.gaussian_eps``)."""
    delta, sigma = params(delta=(delta, DELTA), sigma=(sigma, NOISE))
    h = lambda e: profile_objective(e, delta, sigma=sigma)  # noqa: E731  decreasing in ε
    # the end ε = μ(μ/2 + √(2 log(1/δ))) as (1/(2σ) + w)/σ, raised by 1e-15 relative so that a = 1/(2σ) − εσ, formed
    # from σ, is at most −w there although the end is rounded (near ε = μ²/2 one float step of ε moves a by ~1e-16·μ)
    hi = (0.5 / sigma + torch.sqrt(-2 * torch.log(delta))) / sigma * (1 + 1e-15)
    finite = torch.isfinite(hi)
    hi_f = torch.where(finite, hi, torch.ones_like(hi))
    root = _bisect_decreasing(h, torch.zeros_like(hi), hi_f, lambda e: _objective_deps(e, delta, sigma=sigma))
    root = torch.where(finite, root, torch.full_like(root, math.inf))
    return torch.where(h(torch.zeros_like(hi)) <= 0, torch.zeros_like(root), root)


def gaussian_sigma(eps, delta) -> torch.Tensor:
    """The smallest σ > 0 with δ_σ(ε) ≤ δ (Balle & Wang 2018, Thm 8 solved for σ), elementwise; bisection in
    t = log σ. Upper end t = 1 + log(1/δ): δ_σ(ε) ≤ δ_σ(0) = 2Φ(1/(2σ)) − 1 ≤ 1/(σ√(2π)) < δ there. Lower end
    found by doubling from t = −1 (mirrors ``base.gaussian_sigma``)."""
    eps, delta = params(eps=(eps, EPS), delta=(delta, DELTA))
    h = lambda t: profile_objective(eps, delta, sigma=torch.exp(t))  # noqa: E731  decreasing in t
    hi = 1 - torch.log(delta)
    lo = -torch.ones_like(hi)
    for _ in range(12):  # down to t = −4096, i.e. σ = e^{−4096}
        low = h(lo) <= 0
        if not bool(low.any()):
            break
        lo = torch.where(low, 2 * lo, lo)
    else:
        raise PrecisionError("gaussian_sigma: no σ > e^-4096 reaches the target δ")
    sigma = torch.exp(_bisect_decreasing(h, lo, hi, lambda t: -_objective_dlogmu(eps, delta, sigma=torch.exp(t))))
    # beyond the largest float σ the search stops at its edge (σ = inf makes δ_σ = 0): there the value is inf
    # (ε = 0, δ = 5e-324 needs σ = 8e322; the edge 9e307 was returned before)
    beyond = profile_objective(eps, delta, sigma=torch.full_like(sigma, torch.finfo(sigma.dtype).max)) > 0
    return torch.where(beyond, torch.full_like(sigma, math.inf), sigma)


def gaussian_classical(delta, sigma, allow_outside: bool = False) -> torch.Tensor:
    """ε = √(2 ln(1.25/δ)) / σ (Dwork & Roth 2014, Thm A.1 solved for ε), elementwise, with ln(1.25/δ) as
    ln 1.25 − ln δ (1.25/δ overflowed for δ < 7e-309). The theorem assumes ε < 1: like the reference, any point
    with ε ≥ 1 raises ConditionError unless ``allow_outside``."""
    delta, sigma = params(delta=(delta, DELTA), sigma=(sigma, NOISE))
    eps = torch.sqrt(2 * (math.log(1.25) - torch.log(delta))) / sigma
    if not allow_outside and not bool((eps < 1).all()):
        raise ConditionError("base.gaussian_classical", [GAUSSIAN_CLASSICAL_EPS_BELOW_ONE.describe()])
    return eps
