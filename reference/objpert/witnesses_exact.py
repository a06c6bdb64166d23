"""Exact per-instance pairs of objective perturbation (seed 003 ch. 4): the 1-D log-cosh ObjPert pair, whose
densities are known exactly by change of variables, and the non-GLM radial negative control; notes
shared/notes/objpert-rdp.md §3 M1' and M5, §5.2 D and G, §8 ("exact 1-D divergences ≤ bounds", "negative control").

**1-D log-cosh pair** (M1'). ℓ(θ; z) = f(xθ) with f(u) = (L²/β) log cosh(βu/L) (helper C's losses.logcosh: f' =
L tanh(βu/L), sup|f'| = L, f'' = β sech²(βu/L) ≤ β), x = 1, Z = ∅, Z' = {z}; λ > 0, b ~ N(0, σ²). ObjPert releases
θ with J'(θ) + b = 0, J_Z(θ) = λθ²/2, J_Z'(θ) = f(θ) + λθ²/2, so by change of variables (seed 003 Lemmas C.10.6–8)

    p_Z(θ) = λ φ_σ(λθ),     p_Z'(θ) = (f''(θ) + λ) φ_σ(f'(θ) + λθ)

(θ ↦ J'(θ) is increasing). H_{e^ε} and D_α are 1-D integrals of these densities, computed here by mpmath
quadrature split at the sign changes of p − e^ε q and around the peak of p^α q^{1−α}. It satisfies the hypotheses of
Thm 4.3.1/4.3.2 (GLM, |f'|·|x| ≤ L, f'' ≤ β), so its divergences are lower bounds on the worst case: the witness
pairs ``objpert.logcosh_add`` (P = M(Z), Q = M(Z')) and ``objpert.logcosh_remove`` (P = M(Z'), Q = M(Z)) are not
dominating, and a statement using them is checked from below (exact ≤ bound).

**Radial negative control** (M5, §5.2 G). ℓ(θ) = L√(‖θ‖² + s²) in R^d: ‖∇ℓ‖ < L, ∇²ℓ ⪯ (L/s)I, but not a GLM. With
Z = ∅, Z' = {z} the output depends on b only through R = ‖b‖/σ ~ χ_d: θ = −ρ b/‖b‖ with Lρ/r + λρ = ‖b‖, r =
√(ρ² + s²), and the Hessian of ℓ has eigenvalues L/r (d − 1 times) and Ls²/r³, so the privacy loss is an explicit
function of R; δ(ε) = E[1 − e^{ε − PLRV}]_+ is a 1-D integral against the χ_d law (exact) and is also sampled
(Monte Carlo). At d = 400, λ = 20, σ = 2, L = s = 1 (β = 1) it exceeds Thm 4.3.1's δ: Thm 4.3.1 does not extend to
non-GLM losses (App. C.5)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from ..catalogue import Witness, WitnessUse, register_witness
from ..errors import DomainError
from .spec import P_BETA, P_L, P_LAM, P_SIGMA

DIRECTIONS = ("add", "remove")


# ---------------------------------------------------------------------------------------------------------------
# 1-D log-cosh pair: densities (mpmath and numpy)


def _mp_log_p_z(theta, sigma, lam):
    """log p_Z(θ) = log λ + log φ_σ(λθ) (Z = ∅)."""
    return mpmath.log(lam) - (lam * theta) ** 2 / (2 * sigma ** 2) - mpmath.log(sigma) - mpmath.log(2 * mpmath.pi) / 2


def _mp_log_p_zprime(theta, sigma, lam, beta, L):
    """log p_Z'(θ) = log(f''(θ) + λ) + log φ_σ(f'(θ) + λθ) (Z' = {z}, x = 1)."""
    if beta == 0:
        d1, d2 = mpf(0), mpf(0)
    else:
        d1 = L * mpmath.tanh(beta * theta / L)
        d2 = beta * mpmath.sech(beta * theta / L) ** 2
    g = d1 + lam * theta
    return mpmath.log(d2 + lam) - g * g / (2 * sigma ** 2) - mpmath.log(sigma) - mpmath.log(2 * mpmath.pi) / 2


def _mp_pair(direction, sigma, lam, beta, L):
    """(log p, log q) of the ordered pair as mpmath functions of θ."""
    lz = lambda t: _mp_log_p_z(t, sigma, lam)  # noqa: E731
    lzp = lambda t: _mp_log_p_zprime(t, sigma, lam, beta, L)  # noqa: E731
    if direction == "add":
        return lz, lzp
    if direction == "remove":
        return lzp, lz
    raise DomainError("direction", direction, "one of {add, remove}")


def _np_log_p_z(theta, sigma, lam):
    t = np.asarray(theta, float)
    return math.log(lam) - (lam * t) ** 2 / (2 * sigma ** 2) - math.log(sigma) - 0.5 * math.log(2 * math.pi)


def _np_log_p_zprime(theta, sigma, lam, beta, L):
    t = np.asarray(theta, float)
    if beta == 0:
        d1 = d2 = np.zeros_like(t)
    else:
        d1 = L * np.tanh(beta * t / L)
        d2 = beta * (1 / np.cosh(np.minimum(np.abs(beta * t / L), 700.0))) ** 2
    g = d1 + lam * t
    return np.log(d2 + lam) - g * g / (2 * sigma ** 2) - math.log(sigma) - 0.5 * math.log(2 * math.pi)


def solve_logcosh_output(b, lam, beta, L):
    """θ with L tanh(βθ/L) + λθ = −b (vectorised, float64): 80 bisection steps on [(−b − L)/λ, (−b + L)/λ] (the
    left side is increasing and within λθ ± L), then two Newton steps."""
    b = np.asarray(b, float)
    if beta == 0:
        return -b / lam
    lo, hi = (-b - L) / lam, (-b + L) / lam
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        up = L * np.tanh(beta * mid / L) + lam * mid + b > 0
        hi = np.where(up, mid, hi)
        lo = np.where(up, lo, mid)
    t = 0.5 * (lo + hi)
    for _ in range(2):
        g = L * np.tanh(beta * t / L) + lam * t + b
        t = t - g / (beta * (1 / np.cosh(np.minimum(np.abs(beta * t / L), 700.0))) ** 2 + lam)
    return t


# ---------------------------------------------------------------------------------------------------------------
# 1-D log-cosh pair: exact divergences by quadrature


def _scale(sigma, lam, L):
    return sigma / lam, L / lam


def _np_pair(direction, sigma, lam, beta, L):
    """(log p, log q) of the ordered pair as numpy functions of θ (for locating sign changes and peaks)."""
    lz = lambda t: _np_log_p_z(t, sigma, lam)  # noqa: E731
    lzp = lambda t: _np_log_p_zprime(t, sigma, lam, beta, L)  # noqa: E731
    return (lz, lzp) if direction == "add" else (lzp, lz)


def _bisect(h, lo, hi):
    """The sign change of h in [lo, hi] to the working precision."""
    flo = h(lo)
    for _ in range(mpmath.mp.prec + 4):
        mid = (lo + hi) / 2
        fm = h(mid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
    return (lo + hi) / 2


def logcosh_exact_delta(eps, sigma, lam, beta, L, direction="add"):
    """H_{e^ε}(P‖Q) = ∫[p − e^ε q]_+ dθ of the 1-D log-cosh pair (module docstring), P, Q = M(Z), M(Z') ("add") or
    M(Z'), M(Z) ("remove"); mpmath quadrature between the sign changes of p − e^ε q (located on a float grid of 4001
    points over ±(40σ + 2L)/λ, bisected at the working precision), split every 4σ/λ (at most 24 pieces), tails
    included."""
    eps, sigma, lam, beta, L = (mpf(v) for v in (eps, sigma, lam, beta, L))
    if direction not in DIRECTIONS:
        raise DomainError("direction", direction, "one of {add, remove}")
    log_p, log_q = _mp_pair(direction, sigma, lam, beta, L)
    np_p, np_q = _np_pair(direction, float(sigma), float(lam), float(beta), float(L))
    s, m = _scale(sigma, lam, L)
    w = float(40 * s + 2 * m)
    grid = np.linspace(-w, w, 4001)
    sign = np_p(grid) - float(eps) - np_q(grid) > 0

    def h(t):
        return log_p(t) - eps - log_q(t)

    cuts = [mpf("-inf")]
    for k in np.nonzero(sign[1:] != sign[:-1])[0]:
        cuts.append(_bisect(h, mpf(grid[k]), mpf(grid[k + 1])))
    cuts.append(mpf("inf"))
    positive = [bool(sign[0])] + [bool(sign[k + 1]) for k in np.nonzero(sign[1:] != sign[:-1])[0]]
    total = mpf(0)
    for (a, b), pos in zip(zip(cuts, cuts[1:]), positive):
        if not pos:
            continue
        lo = a if mpmath.isfinite(a) else mpf(-w)
        hi = b if mpmath.isfinite(b) else mpf(w)
        n_split = max(2, min(24, int((hi - lo) / (4 * s)) + 1))
        pts = [a] + [lo + (hi - lo) * k / n_split for k in range(1, n_split)] + [b]
        total += mpmath.quad(lambda t: mpmath.exp(log_p(t)) - mpmath.exp(eps + log_q(t)), pts)
    return max(total, mpf(0))


def logcosh_log_moment(alpha, sigma, lam, beta, L, direction="add"):
    """log ∫ p^α q^{1−α} dθ = log E_Q[(p/q)^α] of the 1-D log-cosh pair, by quadrature around the peak of the
    integrand (located on a float grid reaching (|α| + 2)L/λ + 40σ/λ), split every 4σ/λ over ±24σ/λ, tails
    included."""
    alpha, sigma, lam, beta, L = (mpf(v) for v in (alpha, sigma, lam, beta, L))
    if direction not in DIRECTIONS:
        raise DomainError("direction", direction, "one of {add, remove}")
    log_p, log_q = _mp_pair(direction, sigma, lam, beta, L)
    np_p, np_q = _np_pair(direction, float(sigma), float(lam), float(beta), float(L))
    s, m = _scale(sigma, lam, L)

    def g(t):
        return alpha * log_p(t) + (1 - alpha) * log_q(t)

    w = float((abs(alpha) + 2) * m + 40 * s)
    grid = np.linspace(-w, w, 8001)
    gv = float(alpha) * np_p(grid) + (1 - float(alpha)) * np_q(grid)
    peak = mpf(grid[int(np.argmax(gv))])
    top = g(peak)
    pts = [mpf("-inf"), *[peak + s * k for k in range(-24, 25, 4)], mpf("inf")]
    return top + mpmath.log(mpmath.quad(lambda t: mpmath.exp(g(t) - top), pts))


def logcosh_exact_rdp(alpha, sigma, lam, beta, L, direction="add"):
    """D_α(P‖Q) = log E_Q[(p/q)^α]/(α − 1) of the 1-D log-cosh pair (α > 1)."""
    return logcosh_log_moment(alpha, sigma, lam, beta, L, direction) / (mpf(alpha) - 1)


# ---------------------------------------------------------------------------------------------------------------
# Witness pairs


def _sampler(direction):
    def sample(rng, n, sigma, lam, beta, L):
        b = float(sigma) * rng.standard_normal(n)
        if direction == "add":
            return -b / float(lam)
        return solve_logcosh_output(b, float(lam), float(beta), float(L))

    return sample


def _log_density(which):
    def log_density(o, sigma, lam, beta, L):
        if which == "z":
            return _np_log_p_z(o, float(sigma), float(lam))
        return _np_log_p_zprime(o, float(sigma), float(lam), float(beta), float(L))

    return log_density


def _log_moment(direction):
    def log_moment(alpha, sigma, lam, beta, L):
        return logcosh_log_moment(alpha, sigma, lam, beta, L, direction)

    return log_moment


_PAIR_PARAMS = (P_SIGMA, P_LAM, P_BETA, P_L)
_PAIR_NOTE = ("Exact per-instance pair (notes objpert-rdp.md §3 M1', §5.2 D): the log-cosh loss (L²/β) log cosh(βu/L), "
              "x = 1, Z = ∅ vs Z' = {z}; not dominating (a concrete instance): Monte Carlo and the exact moments "
              "check the statements from below. log_moment by mpmath quadrature of the densities.")

for _direction, _p, _q, _desc in (
        ("add", "z", "zp", "P = M(∅) = N(0, σ²/λ²), Q = M({z}) (log-cosh loss, x = 1): θ ~ P vs Z' = Z ∪ {z}"),
        ("remove", "zp", "z", "P = M({z}) (log-cosh loss, x = 1), Q = M(∅) = N(0, σ²/λ²)")):
    register_witness(Witness(
        id=f"objpert.logcosh_{_direction}",
        description="1-D objective perturbation, exact densities by change of variables: " + _desc,
        params=_PAIR_PARAMS,
        sample=_sampler(_direction),
        log_p=_log_density(_p),
        log_q=_log_density(_q),
        source="seed 003 ch. 4 (Thm 4.3.1/4.3.2 hypotheses; Lemmas C.10.6–8); notes objpert-rdp.md §3 M1'",
        dominating=False,
        log_moment=_log_moment(_direction),
        note=_PAIR_NOTE,
    ))


def logcosh_witness_uses() -> tuple[WitnessUse, ...]:
    """The WitnessUses for objpert.thm4_3_1 / objpert.thm4_3_2 (parameters sigma, lam, beta, L map by name): both
    directions of the 1-D log-cosh pair; they check the bounds from below (exact ≤ bound)."""
    names = {"sigma": "sigma", "lam": "lam", "beta": "beta", "L": "L"}
    return (WitnessUse("objpert.logcosh_add", names, "exact 1-D log-cosh instance, M(∅) vs M({z})"),
            WitnessUse("objpert.logcosh_remove", names, "exact 1-D log-cosh instance, M({z}) vs M(∅)"))


# ---------------------------------------------------------------------------------------------------------------
# Radial non-GLM negative control (M5)


def _radial_rho(bnorm, lam, L, s):
    """ρ ≥ 0 with Lρ/√(ρ² + s²) + λρ = ‖b‖ (vectorised bisection on [0, ‖b‖/λ])."""
    bnorm = np.asarray(bnorm, float)
    lo, hi = np.zeros_like(bnorm), bnorm / lam
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        up = L * mid / np.sqrt(mid * mid + s * s) + lam * mid > bnorm
        hi = np.where(up, mid, hi)
        lo = np.where(up, lo, mid)
    return 0.5 * (lo + hi)


def radial_plrv(R, sigma, lam, L, s, d, direction="remove"):
    """The privacy loss of the radial pair (module docstring) as a function of R = ‖b‖/σ (numpy): "remove" is
    log p_Z'(θ)/p_Z(θ) at θ ~ M(Z') (Z' = {z}); "add" is log p_Z(θ)/p_Z'(θ) at θ ~ M(Z) = −b/λ. With r = √(ρ² + s²):
    log det(I + ∇²ℓ/λ) = (d − 1) log(1 + L/(rλ)) + log(1 + Ls²/(r³λ))."""
    bnorm = sigma * np.asarray(R, float)
    if direction == "remove":
        rho = _radial_rho(bnorm, lam, L, s)
        r = np.sqrt(rho * rho + s * s)
        return ((lam * rho) ** 2 - bnorm ** 2) / (2 * sigma ** 2) + (d - 1) * np.log1p(L / (r * lam)) \
            + np.log1p(L * s * s / (r ** 3 * lam))
    if direction == "add":
        rho = bnorm / lam
        r = np.sqrt(rho * rho + s * s)
        grad = lam * rho + L * rho / r
        return (grad ** 2 - bnorm ** 2) / (2 * sigma ** 2) - (d - 1) * np.log1p(L / (r * lam)) \
            - np.log1p(L * s * s / (r ** 3 * lam))
    raise DomainError("direction", direction, "one of {add, remove}")


def radial_mc_delta(eps, sigma, lam, L, s, d, n, rng=None, direction="remove"):
    """Monte Carlo δ(ε) = E[1 − e^{ε − PLRV}]_+ of the radial pair (notes §5.2 G): n draws of R = ‖b‖/σ ~ χ_d
    (sampled as √χ²_d). Returns (estimate, standard error)."""
    rng = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    R = np.sqrt(rng.chisquare(d, size=n))
    w = -np.expm1(np.minimum(eps - radial_plrv(R, sigma, lam, L, s, d, direction), 0.0))
    return float(w.mean()), float(w.std(ddof=1) / math.sqrt(n))


def radial_exact_delta(eps, sigma, lam, L, s, d, direction="remove"):
    """δ(ε) of the radial pair as a 1-D integral against the χ_d density (numpy float64 trapezoid on 20001 points over
    the mode ± 40, where the χ_d law has all but e^{−700} of its mass for d ≤ 1e4): an exact-to-~1e-10 check of
    radial_mc_delta."""
    mode = math.sqrt(max(d - 1, 0))
    R = np.linspace(max(mode - 40.0, 1e-12), mode + 40.0, 20001)
    log_chi = (d - 1) * np.log(R) - R * R / 2 - (d / 2 - 1) * math.log(2) - math.lgamma(d / 2)
    w = -np.expm1(np.minimum(eps - radial_plrv(R, sigma, lam, L, s, d, direction), 0.0))
    return float(np.trapezoid(w * np.exp(log_chi), R))

