"""Exact laws of the small instances behind the chapter-4 ``objpert.*`` errata and proof checks (objective
perturbation, RDP and privacy profiles), computed independently of dpspec.reference (the "truth" side: each
demonstration compares it with the reference evaluator it concerns).

Seed 003 (Redberg's dissertation, ``003_dabdd6bee088f80a.txt``), chapter 4 and appendix C; notes
shared/notes/objpert-rdp.md (§3 pairs, §5.2 vectors, §6 errata). mpmath at the current precision unless a function
says "float64" (those serve seeded Monte Carlo and grid searches; every hit they report is re-checked in mpmath).
Nothing here is a statement of the catalogue.

- The Jacobian terms a = −log(1 − β/λ) (Thm 4.3.1) and a′ = log(1 + β/λ) (Sherman–Morrison, notes §6 E16).
- Balle–Wang's analytic Gaussian δ(ε) (seed 003, eq. (C.2.1)); Thm 4.3.1 corrected and as printed; the same δ by
  quadrature of the PLRV ω = a + c + v|N(0, 1)| and of the corrected Lemma C.4.6 pair; the printed C.4.6 Q's mass.
- Thm 4.3.2's RDP (closed form, quadrature of the ω moment), its α → 1 limit and printed α = 1 clause; Thm C.5.1
  (χ_d MGF by quadrature) corrected and as printed; the C.3.1 linearised heuristic (printed and 1/σ²-restored).
- The exact one-dimensional ObjPert pair (notes §3 M1′): Z = ∅, Z′ = {(x, y)}, log-cosh loss
  f(u) = (L²/β) log cosh(β(u − y)/L) (or the linear loss f(u) = L·u, β = 0); densities by change of variables,
  hockey-stick and Rényi divergences by quadrature, both directions; a float64 sampler of its PLRV.
- Kifer et al.'s δ(ε) from Thm 4.2.8's σ (inverted), and a Maurer–Pontil empirical-Bernstein lower bound.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from dpspec.reference.errors import ParameterError

# --- quadrature break points (mpmath.quad silently loses digits on intervals much wider than the integrand's
# decay length: e.g. 1.4e-6 relative for a N(0,1) tail piece at x = −17.7 over one unit) --------------------------------


def _tail_points(k) -> list:
    """Break points for ∫_k^∞ of an integrand ∝ φ(x) (times a bounded factor), k the lower end (≥ 0 here): steps of
    the decay length h = 1/max(1, k) out to 64h, then 12 more units (the rest is < e^{−64} relative)."""
    k = mpf(k)
    h = 1 / max(mpf(1), k)
    return [k] + [k + mpf(j) * h for j in ("0.125", "0.5", 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64)] + [k + 64 * h + 12]


def _bump_points(centre, width, lower=None) -> list:
    """Break points every ``width`` over centre ± 12·width (clipped at ``lower``), for a Gaussian-like bump of
    standard deviation about ``width``. Mass more than 12 widths below the centre (< e^{−72} relative for a
    log-concave bump) is dropped: the lower end is max(lower, centre − 12·width)."""
    centre, width = mpf(centre), mpf(width)
    pts = [centre + width * j for j in range(-12, 13)]
    if lower is not None:
        pts = [p for p in pts if p > lower]
        if pts[0] > centre - 12 * width:
            pts = [mpf(lower)] + pts
    return pts


# --- Jacobian terms, Gaussian profile -------------------------------------------------------------------------------


def jac(beta, lam) -> mpf:
    """a = −log(1 − β/λ) = |log(1 − β/λ)| (seed 003, Thm 4.3.1, corrected sign; needs 0 ≤ β < λ)."""
    beta, lam = mpf(beta), mpf(lam)
    if not 0 <= beta < lam:
        raise ParameterError(f"the Jacobian term needs 0 <= beta < lam, got beta={beta}, lam={lam}")
    return -mpmath.log1p(-beta / lam)


def jac_sm(beta, lam) -> mpf:
    """a′ = log(1 + β/λ): the Sherman–Morrison bound on |log det-ratio| (notes §6 E16), any λ > 0."""
    return mpmath.log1p(mpf(beta) / mpf(lam))


def gauss_delta(eps, mu) -> mpf:
    """H_{e^ε}(N(μ, 1) ‖ N(0, 1)) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) (Balle–Wang 2018, seed 003 eq. (C.2.1))."""
    eps, mu = mpf(eps), mpf(mu)
    return mpmath.ncdf(mu / 2 - eps / mu) - mpmath.exp(eps) * mpmath.ncdf(-mu / 2 - eps / mu)


def delta_431(eps, sigma, lam, beta, L, a=None) -> mpf:
    """Seed 003, Thm 4.3.1 corrected (appendix line 9117 sign, H_{e^{L²/(2σ²)}}): with e = ε − a, c = L²/(2σ²),
    v = L/σ: 2·H_{e^e}(N(L,σ²)‖N(0,σ²)) if e ≥ c, else (1 − e^{e−c}) + e^{e−c}·2·H_{e^c}. ``a`` overrides the
    Jacobian term (a′ for the Sherman–Morrison variant)."""
    a = jac(beta, lam) if a is None else mpf(a)
    c, v = mpf(L) ** 2 / (2 * mpf(sigma) ** 2), mpf(L) / mpf(sigma)
    e = mpf(eps) - a
    if e >= c:
        return 2 * gauss_delta(e, v)
    return (1 - mpmath.exp(e - c)) + mpmath.exp(e - c) * 2 * gauss_delta(c, v)


def delta_431_printed(eps, sigma, lam, beta, L) -> mpf:
    """Seed 003, Thm 4.3.1 as printed in the main text (lines 3282–3330): ε̃ = ε − log(1 − β/λ) = ε + a,
    ε̂ = ε̃ − L²/(2σ²); δ = 2H_{e^ε̃}(P‖Q) if ε̂ ≥ 0, else (1 − e^ε̂) + e^ε̂·2·H_{e^{L²/σ²}}(P‖Q)."""
    a = jac(beta, lam)
    c, v = mpf(L) ** 2 / (2 * mpf(sigma) ** 2), mpf(L) / mpf(sigma)
    et = mpf(eps) + a
    eh = et - c
    if eh >= 0:
        return 2 * gauss_delta(et, v)
    return (1 - mpmath.exp(eh)) + mpmath.exp(eh) * 2 * gauss_delta(2 * c, v)


def delta_omega_quad(eps, sigma, lam, beta, L, a=None) -> mpf:
    """E[1 − e^{ε−ω}]_+ for ω = a + c + v|N(0, 1)| (Lemma C.4.6's PLRV), by quadrature split at the kink."""
    a = jac(beta, lam) if a is None else mpf(a)
    c, v = mpf(L) ** 2 / (2 * mpf(sigma) ** 2), mpf(L) / mpf(sigma)
    k = max(mpf(0), (mpf(eps) - a - c) / v)
    f = lambda x: 2 * mpmath.npdf(x) * (1 - mpmath.exp(mpf(eps) - a - c - v * x))
    return mpmath.quad(f, _tail_points(k))


def delta_pair_quad(eps, sigma, lam, beta, L) -> mpf:
    """∫_0^∞ [p(x) − e^ε q(x)]_+ dx for the corrected Lemma C.4.6 pair: p = 2φ_σ(x), q = e^{−a}·2φ_σ(x + L) on
    [0, ∞) (Q's atom at −∞ carries no P mass). log(p/q) = a + c + Lx/σ² is increasing: one kink."""
    a = jac(beta, lam)
    sigma, L, eps = mpf(sigma), mpf(L), mpf(eps)
    c = L ** 2 / (2 * sigma ** 2)
    k = max(mpf(0), (eps - a - c) * sigma ** 2 / L)
    f = lambda z: 2 * mpmath.npdf(z) - mpmath.exp(eps - a) * 2 * mpmath.npdf(z + L / sigma)  # x = σz
    return mpmath.quad(f, _tail_points(k / sigma))


def printed_c46_atom(sigma, lam, beta, L) -> mpf:
    """Q(−∞) of Lemma C.4.6 as printed (density ∝ e^{−(t−L)²/(2σ²)} on [0, ∞), "2σ" read as 2σ²):
    1 − e^{−a}·2Φ(L/σ), negative when e^{−a}·2Φ(L/σ) > 1 (seed 003, eq. (C.4.10))."""
    a = jac(beta, lam)
    mass = mpmath.exp(-a) * mpmath.quad(lambda t: 2 * mpmath.npdf(t, mpf(L), mpf(sigma)), [0, L, mpmath.inf])
    return 1 - mass


def corrected_c46_atom(sigma, lam, beta, L) -> mpf:
    """Q(−∞) of the corrected Lemma C.4.6 ((x + L)): 1 − e^{−a}·2Φ(−L/σ) ∈ (0, 1)."""
    a = jac(beta, lam)
    mass = mpmath.exp(-a) * mpmath.quad(lambda t: 2 * mpmath.npdf(t, -mpf(L), mpf(sigma)), [0, mpmath.inf])
    return 1 - mass


# --- RDP --------------------------------------------------------------------------------------------------------------


def half_normal_log_mgf(t) -> mpf:
    """log E e^{t|N(0,1)|} = t²/2 + log(2Φ(t)) (the half-normal MGF, seed 003 Thm 4.3.2's proof)."""
    t = mpf(t)
    return t ** 2 / 2 + mpmath.log(2 * mpmath.ncdf(t))


def rdp_432(alpha, sigma, lam, beta, L, a=None) -> mpf:
    """Seed 003, Thm 4.3.2: a + c + (1/(α−1)) log E e^{(α−1)|N(0, L²/σ²)|} (closed form), α > 1."""
    a = jac(beta, lam) if a is None else mpf(a)
    alpha, c, v = mpf(alpha), mpf(L) ** 2 / (2 * mpf(sigma) ** 2), mpf(L) / mpf(sigma)
    return a + c + half_normal_log_mgf((alpha - 1) * v) / (alpha - 1)


def rdp_432_quad(alpha, sigma, lam, beta, L) -> mpf:
    """The same by quadrature of E e^{(α−1)ω}, ω = a + c + v|N(0,1)| (log-space integrand)."""
    alpha, a = mpf(alpha), jac(beta, lam)
    c, v = mpf(L) ** 2 / (2 * mpf(sigma) ** 2), mpf(L) / mpf(sigma)
    t = (alpha - 1) * v
    m = mpmath.quad(lambda x: 2 * mpmath.npdf(x) * mpmath.exp(t * x), _bump_points(t, 1, lower=0))
    return a + c + mpmath.log(m) / (alpha - 1)


def kl_432(sigma, lam, beta, L) -> mpf:
    """The α → 1 limit a + c + v√(2/π) = a + c + E|N(0, v²)| (notes §6 E5)."""
    v = mpf(L) / mpf(sigma)
    return jac(beta, lam) + v ** 2 / 2 + v * mpmath.sqrt(2 / mpmath.pi)


def alpha1_clause_432(sigma, lam, beta, L) -> mpf:
    """Thm 4.3.2's printed α = 1 clause a + c + log E e^{|N(0, L²/σ²)|}."""
    v = mpf(L) / mpf(sigma)
    return jac(beta, lam) + v ** 2 / 2 + half_normal_log_mgf(v)


def chi_mgf_quad(t, d) -> mpf:
    """E e^{tZ}, Z ~ χ_d, by quadrature of the χ_d density (log-space)."""
    t, d = mpf(t), int(d)
    logc = (1 - mpf(d) / 2) * mpmath.log(2) - mpmath.loggamma(mpf(d) / 2)
    f = lambda z: mpmath.exp(logc + (d - 1) * mpmath.log(z) - z ** 2 / 2 + t * z) if z > 0 else mpf(0)
    mode = (t + mpmath.sqrt(t ** 2 + 4 * (d - 1))) / 2
    return mpmath.quad(f, _bump_points(mode, 1, lower=0))


def rdp_c51(alpha, sigma, lam, beta, L, d, printed=False) -> mpf:
    """Seed 003, Thm C.5.1: −d log(1 − β/λ) + L²/(2σ²) + (1/(α−1)) log E_{Z~χ_d} e^{(α−1)(L/σ)Z};
    ``printed=True``: "L/(2σ²)" as printed (notes §6 E6′)."""
    alpha, L, sigma = mpf(alpha), mpf(L), mpf(sigma)
    c = L / (2 * sigma ** 2) if printed else L ** 2 / (2 * sigma ** 2)
    return int(d) * jac(beta, lam) + c + mpmath.log(chi_mgf_quad((alpha - 1) * L / sigma, d)) / (alpha - 1)


def linearised(alpha, sigma, lam, beta, L, p, restored=True) -> mpf:
    """Seed 003, App. C.3.1's final display at Hölder exponent p (1/p + 1/q = 1): a + c + (1/(α−1))[(1/p) log
    E e^{p(α−1)u} + (1/q) log E e^{q(α−1)(β/λ)z²}], u ~ N(0, L²/σ²), z ~ N(0, σ²) as printed or N(0, 1) with the
    dropped 1/σ² restored; E e^{kz²} = (1 − 2k s²)^{−1/2} for z ~ N(0, s²), +inf when 2ks² ≥ 1."""
    alpha, sigma, lam, beta, L, p = map(mpf, (alpha, sigma, lam, beta, L, p))
    q = p / (p - 1)
    s2 = mpf(1) if restored else sigma ** 2
    k = q * (alpha - 1) * beta / lam
    if 2 * k * s2 >= 1:
        return mpf("inf")
    first = p * (alpha - 1) ** 2 * L ** 2 / (2 * sigma ** 2)  # p·log E e^{(α−1)u}·... = (1/p)·(p(α−1))²v²/2
    second = -mpmath.log(1 - 2 * k * s2) / (2 * q)
    return jac(beta, lam) + L ** 2 / (2 * sigma ** 2) + (first + second) / (alpha - 1)


def linearised_opt(alpha, sigma, lam, beta, L, restored=True):
    """min over p > 1 of :func:`linearised` (a scan in log(p − 1), then golden-section refinement); returns
    (value, p). +inf if infinite for every p."""
    f = lambda lp: linearised(alpha, sigma, lam, beta, L, 1 + mpmath.exp(lp), restored)
    grid = [mpf(i) / 4 for i in range(-60, 61)]
    vals = [f(g) for g in grid]
    i = min(range(len(grid)), key=lambda j: vals[j])
    if vals[i] == mpf("inf"):
        return mpf("inf"), None
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    g = (mpmath.sqrt(5) - 1) / 2
    for _ in range(80):
        m1, m2 = hi - g * (hi - lo), lo + g * (hi - lo)
        if f(m1) <= f(m2):
            hi = m2
        else:
            lo = m1
    best = (lo + hi) / 2
    return min(f(best), vals[i]), 1 + mpmath.exp(best)


# --- the exact one-dimensional ObjPert pair (notes §3 M1′) -----------------------------------------------------------


class Pair1D:
    """Objective perturbation in d = 1 on Z = ∅ and Z′ = {(x, y)} (seed 003 Def 4.2.7; notes §3 M1′, §5.2.D):
    θ(Z) = −b/λ, θ(Z′) solves x f′(xθ − y) + λθ + b = 0, b ~ N(0, σ²). Densities by change of variables:
    p_Z(θ) = λ φ_σ(λθ), p_Z′(θ) = (λ + x² f″) φ_σ(λθ + x f′). ``loss`` "logcosh": f(u) = (L²/β) log cosh(βu/L)
    (β-smooth, |f′| < L); "linear": f(u) = L·u (β = 0 admissible for every β ≥ 0: a Gaussian mechanism)."""

    def __init__(self, L, beta, lam, sigma, x=1, y=0, loss="logcosh"):
        self.L, self.beta, self.lam, self.sigma, self.x, self.y = map(mpf, (L, beta, lam, sigma, x, y))
        self.loss = loss
        if loss not in ("logcosh", "linear"):
            raise ParameterError(f"loss must be 'logcosh' or 'linear', got {loss!r}")

    def d1(self, u):
        if self.loss == "linear":
            return self.L
        return self.L * mpmath.tanh(self.beta * (u - self.y) / self.L)

    def d2(self, u):
        if self.loss == "linear":
            return mpf(0)
        return self.beta * mpmath.sech(self.beta * (u - self.y) / self.L) ** 2

    def log_p(self, th, which):
        """log density of θ under M(Z) (which=0) or M(Z′) (which=1)."""
        lam, s, x = self.lam, self.sigma, self.x
        if which == 0:
            return mpmath.log(lam) + mpmath.log(mpmath.npdf(lam * th, 0, s))
        u = x * th
        g = lam * th + x * self.d1(u)
        return mpmath.log(lam + x ** 2 * self.d2(u)) - g ** 2 / (2 * s ** 2) - mpmath.log(s * mpmath.sqrt(2 * mpmath.pi))

    def plrv(self, th, which):
        """log p_which(θ) − log p_other(θ)."""
        return self.log_p(th, which) - self.log_p(th, 1 - which)

    def _breaks(self, width=12):
        scale = (width * self.sigma + abs(self.x) * self.L + abs(self.y)) / self.lam
        return [-mpmath.inf] + [scale * mpf(i) / 8 for i in range(-8, 9)] + [mpmath.inf]

    def hockey(self, eps, which=0) -> mpf:
        """H_{e^ε}(M(Z)‖M(Z′)) (which=0) or H_{e^ε}(M(Z′)‖M(Z)) (which=1): ∫[p − e^ε q]_+, kinks located by a sign
        scan and bisection."""
        eps = mpf(eps)
        g = lambda th: self.plrv(th, which) - eps
        br = self._breaks()
        inner = [b for b in br if mpmath.isfinite(b)]
        scan = mpmath.linspace(inner[0] * 3, inner[-1] * 3, 601)
        kinks = [mpmath.findroot(g, (u, w), solver="bisect") for u, w in zip(scan, scan[1:]) if g(u) * g(w) < 0]
        pts = sorted(set(br + kinks))

        def f(th):
            lp = self.log_p(th, which)
            return max(mpf(0), mpmath.exp(lp) * (1 - mpmath.exp(eps - self.plrv(th, which))))

        return mpmath.quad(f, pts)

    def renyi(self, alpha, which=0) -> mpf:
        """D_α(M(Z)‖M(Z′)) (which=0) or reversed, α > 1: (1/(α−1)) log ∫ p^α q^{1−α}."""
        alpha = mpf(alpha)
        f = lambda th: mpmath.exp(alpha * self.log_p(th, which) + (1 - alpha) * self.log_p(th, 1 - which))
        return mpmath.log(mpmath.quad(f, self._breaks(12 + 2 * float(alpha)))) / (alpha - 1)

    def kl(self, which=0) -> mpf:
        """KL(M(Z)‖M(Z′)) (which=0) or reversed: ∫ p log(p/q) (the α → 1 Rényi divergence)."""
        f = lambda th: mpmath.exp(self.log_p(th, which)) * self.plrv(th, which)
        return mpmath.quad(f, self._breaks())

    # float64: the PLRV sampler for Monte Carlo (direction which; seeded numpy Generator) ---------------------------
    def sample_plrv(self, n, which, rng) -> np.ndarray:
        """n draws of log p_which(θ) − log p_other(θ) under θ ~ M(Z) (0) or M(Z′) (1), float64. M(Z′) solves the
        monotone scalar equation x f′(xθ − y) + λθ = −b by vectorised bisection (60 halvings)."""
        L, beta, lam, s, x, y = (float(v) for v in (self.L, self.beta, self.lam, self.sigma, self.x, self.y))
        b = rng.normal(0.0, s, size=n)
        d1 = (lambda u: np.full_like(u, L)) if self.loss == "linear" else (lambda u: L * np.tanh(beta * (u - y) / L))
        d2 = (lambda u: np.zeros_like(u)) if self.loss == "linear" else (lambda u: beta / np.cosh(beta * (u - y) / L) ** 2)
        if which == 0:
            th = -b / lam
        else:
            lo, hi = (-b - abs(x) * L) / lam - 1.0, (-b + abs(x) * L) / lam + 1.0
            for _ in range(60):
                mid = (lo + hi) / 2
                pos = x * d1(x * mid) + lam * mid + b > 0
                hi, lo = np.where(pos, mid, hi), np.where(pos, lo, mid)
            th = (lo + hi) / 2
        u = x * th
        g0, g1 = lam * th, lam * th + x * d1(u)
        l01 = (g1 ** 2 - g0 ** 2) / (2 * s ** 2) - np.log1p(x ** 2 * d2(u) / lam)  # log p_Z − log p_Z′
        return l01 if which == 0 else -l01


# --- Kifer et al.; confidence bounds ---------------------------------------------------------------------------------


def kifer_delta(eps, sigma, L) -> mpf:
    """δ from Thm 4.2.8's σ = L√(8 log(2/δ) + 4ε)/ε (Kifer et al. 2012), inverted: 2 exp(−(ε²σ²/L² − 4ε)/8)
    (capped at 1); the theorem also needs λ ≥ 2β/ε."""
    eps, sigma, L = mpf(eps), mpf(sigma), mpf(L)
    return min(mpf(1), 2 * mpmath.exp(-((eps * sigma / L) ** 2 - 4 * eps) / 8))


def eb_lower(x: np.ndarray, conf_fail: float) -> float:
    """Maurer–Pontil (2009, Thm 4) empirical-Bernstein lower confidence bound on the mean of x ∈ [0, 1]^n, valid
    with probability ≥ 1 − conf_fail: mean − √(2V ln(2/β)/n) − 7 ln(2/β)/(3(n − 1))."""
    x = np.asarray(x, dtype=float)
    if x.min() < 0 or x.max() > 1:
        raise ParameterError("eb_lower needs samples in [0, 1]")
    n, t = x.size, math.log(2 / conf_fail)
    return max(0.0, float(x.mean()) - math.sqrt(2 * float(x.var(ddof=1)) * t / n) - 7 * t / (3 * (n - 1)))


# --- float64 grid quadrature of the same pair (searches; hits are re-checked with Pair1D in mpmath) -------------------


def pair1d_logdens64(L, beta, lam, sigma, x=1.0, y=0.0, loss="logcosh", n=200001, width=14.0):
    """float64: (θ grid, log p_Z, log p_Z′, dθ) on a uniform grid covering both laws to ``width`` standard
    deviations of b (the trapezoid rule converges fast for these smooth, Gaussian-tailed densities)."""
    W = (width * sigma + abs(x) * L + abs(y)) / lam
    th = np.linspace(-W, W, n)
    u = x * th
    if loss == "linear":
        d1, d2 = np.full_like(u, L), np.zeros_like(u)
    else:
        d1, d2 = L * np.tanh(beta * (u - y) / L), beta / np.cosh(beta * (u - y) / L) ** 2
    c0 = -0.5 * math.log(2 * math.pi) - math.log(sigma)
    lp0 = math.log(lam) + c0 - (lam * th) ** 2 / (2 * sigma ** 2)
    lp1 = np.log(lam + x ** 2 * d2) + c0 - (lam * th + x * d1) ** 2 / (2 * sigma ** 2)
    return th, lp0, lp1, th[1] - th[0]


def pair1d_divergences64(L, beta, lam, sigma, eps_list=(), alpha_list=(), x=1.0, y=0.0, loss="logcosh", n=200001,
                         width=14.0):
    """float64: {("H", ε, dir): …, ("D", α, dir): …, ("KL", dir): …} for dir 0 = M(Z)‖M(Z′), 1 = M(Z′)‖M(Z), by the trapezoid rule
    on :func:`pair1d_logdens64`'s grid (log-sum-exp for D_α)."""
    th, lp0, lp1, h = pair1d_logdens64(L, beta, lam, sigma, x, y, loss, n=n, width=width)
    out = {}
    for w, (lp, lq) in enumerate(((lp0, lp1), (lp1, lp0))):
        for e in eps_list:
            out[("H", e, w)] = float(np.sum(np.maximum(np.exp(lp) - math.exp(e) * np.exp(lq), 0.0)) * h)
        out[("KL", w)] = float(np.sum(np.exp(lp) * (lp - lq)) * h)
        for a in alpha_list:
            z = a * lp + (1 - a) * lq
            m = z.max()
            out[("D", a, w)] = float((m + math.log(np.sum(np.exp(z - m)) * h)) / (a - 1))
    return out


def log_delta_431_64(eps, sigma, lam, beta, L, sm=False):
    """float64, vectorised: log δ of Thm 4.3.1 corrected (a, or a′ = log(1 + β/λ) with ``sm``), in the stable form
    of notes §8 (log_ndtr, −expm1): e = ε − a ≥ c: log 2 + logΦ(A) + log(−expm1(e + logΦ(B) − logΦ(A))),
    A = −e/v + v/2, B = A − v; else log(−expm1(e + log 2 + logΦ(−v)))."""
    from scipy.special import log_ndtr

    eps, sigma, lam, beta, L = np.broadcast_arrays(*(np.asarray(t, dtype=float) for t in (eps, sigma, lam, beta, L)))
    a = np.log1p(beta / lam) if sm else -np.log1p(-beta / lam)
    v = L / sigma
    c = v ** 2 / 2
    e = eps - a
    A = -e / v + v / 2
    B = A - v
    with np.errstate(all="ignore"):
        case1 = np.log(2) + log_ndtr(A) + np.log(-np.expm1(e + log_ndtr(B) - log_ndtr(A)))
        case2 = np.log(-np.expm1(e + np.log(2) + log_ndtr(-v)))
    return np.where(e >= c, case1, case2)


def log_kifer_delta_64(eps, sigma, L):
    """float64: log of :func:`kifer_delta` before the cap, log 2 − (ε²σ²/L² − 4ε)/8."""
    eps, sigma, L = (np.asarray(t, dtype=float) for t in (eps, sigma, L))
    return np.log(2) - ((eps * sigma / L) ** 2 - 4 * eps) / 8


def linearised_opt64(alpha, sigma, lam, beta, L, restored=True, n=4001) -> tuple[float, float]:
    """float64: min over a grid of p = 1 + e^s, s ∈ [−15, 9] (n points), of :func:`linearised` (its grid minimum is ≥
    the infimum by at most the grid's resolution; searches confirm hits with :func:`linearised_opt`)."""
    p = 1.0 + np.exp(np.linspace(-15.0, 9.0, n))
    q = p / (p - 1.0)
    s2 = 1.0 if restored else sigma ** 2
    k2 = 2.0 * q * (alpha - 1.0) * beta / lam * s2
    with np.errstate(all="ignore"):
        second = np.where(k2 < 1.0, -np.log1p(-np.minimum(k2, 0.999999999999)) / (2.0 * q), np.inf)
    val = -math.log1p(-beta / lam) + L ** 2 / (2 * sigma ** 2) + (p * (alpha - 1.0) ** 2 * L ** 2 / (2 * sigma ** 2)
                                                                   + second) / (alpha - 1.0)
    i = int(np.argmin(val))
    return float(val[i]), float(p[i])
