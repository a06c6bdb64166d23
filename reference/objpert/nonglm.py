"""Objective perturbation without GLM structure, seed 003 App. C.5 (Thm C.5.1), the MGF inequality Lemma C.10.15 and
the unproven "linearised" RDP bound of App. C.3.1 (notes objpert-rdp.md §2.3, §5.2 J, E4_6', E4_8).

Thm C.5.1 (corrected: L²/(2σ²) where "L/(2σ²)" is printed, E4_6'): with ‖∇ℓ‖ ≤ L, ∇²ℓ ≺ βI, λ > β,

    ε(α) ≤ −d log(1 − β/λ) + L²/(2σ²) + (1/(α−1)) log E_{Z~χ_d} e^{(α−1)(L/σ)Z},

from |log R| ≤ d·a + c + (L/σ²)‖b‖ (Chapter 2 Thm 2.3.3 for the determinant, Cauchy–Schwarz for |bᵀ∇ℓ|). At d = 1
the χ_1 law is the half-normal and the bound is objpert.thm4_3_2 exactly.

The C.3.1 bound is not a statement (E4_8: its proof replaces the b-dependent Hessian by ∇²L(θ*_λ), the very
dependence bug the chapter criticises, and drops a 1/σ²): :func:`linearised_rdp_heuristic` exposes the printed form
(z ~ N(0, σ²): +inf whenever 2q(α−1)βσ²/λ ≥ 1) and the 1/σ²-restored one (z ~ N(0, 1)) for the errata.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from ..catalogue import Condition, Privacy, Source, Statement, Value, Variant, register
from ..errors import DomainError
from ..precision import self_checked
from . import spec
from .glm_bounds import LAM_ABOVE_BETA, _constants, jacobian_term

HYP1F1_MAX = 400  # d·t² up to which the Kummer closed form is used; the centred quadrature beyond


def _chi_mean(d):
    """E Z = √2 Γ((d+1)/2)/Γ(d/2) for Z ~ χ_d (through log-gamma: d reaches 1e4 and beyond)."""
    return mpmath.sqrt(2) * mpmath.exp(mpmath.loggamma((d + 1) / mpf(2)) - mpmath.loggamma(d / mpf(2)))


def _log_chi_mgf_kummer(t, d):
    """log of 1F1(d/2; 1/2; t²/2) + t√2 Γ((d+1)/2)/Γ(d/2) 1F1((d+1)/2; 3/2; t²/2) (notes objpert-rdp.md §2.3,
    Thm C.5.1: the χ_d MGF; both terms are positive for t ≥ 0). M − 1 ≈ t·E Z is taken with log10(1/t) more digits
    so log M keeps the working precision as t → 0."""
    extra = int(max(0, -mpmath.log10(t))) + 5 if t > 0 else 5
    with mp.workdps(mp.dps + extra):
        t, half = mpf(t), mpf(d) / 2
        z = t * t / 2
        m = mpmath.hyp1f1(half, mpf(1) / 2, z) + t * _chi_mean(d) * mpmath.hyp1f1(half + mpf(1) / 2, mpf(3) / 2, z)
        out = mpmath.log(m)
    return +out


def _log_chi_mgf_quad(t, d):
    """log E e^{tZ}, Z ~ χ_d, by quadrature of the log-density (d−1)log z − z²/2 − (d/2−1)log 2 − logΓ(d/2) + tz,
    centred at its maximiser z* = (t + √(t² + 4(d−1)))/2 (so the integrand is exp(≤ 0) and nothing overflows: the
    value itself reaches e^{10^{12}} at d = 10⁴, t = 10⁶), split at z* ± 1, 3, 6, 12, 24, 48 curvature widths."""
    d = mpf(d)
    zstar = (t + mpmath.sqrt(t * t + 4 * (d - 1))) / 2

    def logf(z):
        if z <= 0:
            return mpf("-inf")
        return (d - 1) * mpmath.log(z) - z * z / 2 + t * z

    top = logf(zstar) if zstar > 0 else mpf(0)
    width = 1 / mpmath.sqrt(1 + (d - 1) / zstar**2) if zstar > 0 else mpf(1)
    pts = sorted({mpf(0), *(max(mpf(0), zstar + k * width) for k in (-48, -24, -12, -6, -3, -1, 0, 1, 3, 6, 12, 24,
                                                                         48))})
    pts.append(mpf("inf"))
    integral = mpmath.quad(lambda z: mpmath.exp(logf(z) - top) if z > 0 else mpf(0), pts)
    return top + mpmath.log(integral) - (d / 2 - 1) * mpmath.log(2) - mpmath.loggamma(d / 2)


def log_chi_mgf(t, d):
    """log E e^{tZ} for Z ~ χ_d, t ≥ 0, d ≥ 1 (Kummer closed form for d·t² ≤ HYP1F1_MAX, else the centred
    quadrature; tests compare the two)."""
    t = mpf(t)
    if not t >= 0 or mpmath.isinf(t):
        raise DomainError("t", t, "[0, inf)")
    d = int(d)
    if d < 1:
        raise DomainError("d", d, "[1, inf)")
    if t == 0:
        return mpf(0)
    if d * t * t <= HYP1F1_MAX:
        return _log_chi_mgf_kummer(t, d)
    return _log_chi_mgf_quad(t, d)


def chi_mgf(t, d):
    """E e^{tZ}, Z ~ χ_d (seed 003 Thm C.5.1; notes objpert-rdp.md §2.3, §5.2 J: (1, 0.1) = 1.08506747114,
    (10, 1) = 28.2548847569, (100, 3) = 1.04677174222e14)."""
    return mpmath.exp(log_chi_mgf(t, d))


def nonglm_rdp(alpha, sigma, lam, beta, L, d, printed=False):
    """seed 003 Thm C.5.1 (corrected L²/(2σ²), E4_6'): ε(α) = d·a + c + log E e^{(α−1)vZ}/(α−1), Z ~ χ_d.
    Near α = 1 (t = (α−1)v < 2^{−prec/2}) the series log M(t)/t = E Z + t(d − (E Z)²)/2 + O(t²).
    ``printed=True``: the theorem as printed, c = L/(2σ²) (erratum objpert.E4_6: not a bound for L > 1)."""
    alpha, d = mpf(alpha), int(d)
    a, c, v = _constants(sigma, lam, beta, L)
    if printed:
        c = mpf(L) / (2 * mpf(sigma) ** 2)
    t = (alpha - 1) * v
    if t < mpf(2) ** (-mp.prec / 2 - 4):
        mu = _chi_mean(d)
        ratio = mu + t * (d - mu * mu) / 2
    else:
        ratio = log_chi_mgf(t, d) / t
    return d * a + c + v * ratio


def linearised_rdp_heuristic(alpha, sigma, lam, beta, L, p, restored=True):
    """The C.3.1 "linearised RDP bound" of seed 003 (lines 8099–8560; notes objpert-rdp.md §2.3, E4_8 — NOT proven):
    with 1/p + 1/q = 1,

        a + c + (1/(α−1)) log( E_{u~N(0,v²)}[e^{p(α−1)u}]^{1/p} · E_z[e^{q(α−1)(β/λ)z²}]^{1/q} )
        = a + c + p(α−1)v²/2 − log(1 − 2q(α−1)(β/λ)s²)/(2q(α−1)),

    z ~ N(0, s²) with s = σ as printed (``restored=False``: +inf whenever 2q(α−1)βσ²/λ ≥ 1) and s = 1 with the dropped
    1/σ² restored (``restored=True``: finite iff 2q(α−1)β/λ < 1). (E e^{kz²} = (1 − 2ks²)^{−1/2}.)"""
    alpha, p = mpf(alpha), mpf(p)
    if not alpha > 1:
        raise DomainError("alpha", alpha, "(1, inf)")
    if not p > 1 or mpmath.isinf(p):
        raise DomainError("p", p, "(1, inf)")
    a, c, v = _constants(sigma, lam, beta, L)
    q = p / (p - 1)
    s2 = mpf(1) if restored else mpf(sigma) ** 2
    k = q * (alpha - 1) * mpf(beta) / mpf(lam)
    if 2 * k * s2 >= 1:
        return mpf("inf")
    return a + c + p * (alpha - 1) * v * v / 2 - mpmath.log1p(-2 * k * s2) / (2 * q * (alpha - 1))


def linearised_rdp_heuristic_min(alpha, sigma, lam, beta, L, restored=True):
    """(min over p ∈ (1, ∞) of :func:`linearised_rdp_heuristic`, the minimiser p): golden-section search in
    u = log(p − 1) over the p where the z-expectation is finite (q < λ/(2(α−1)βs²)), after a coarse scan; +inf (and
    p = nan-free +inf) where no p gives a finite value. A heuristic's optimum: not certified (notes §5.2 J: 0.16065
    at (σ, β, λ) = (5, 1, 20), α = 2, restored)."""
    alpha = mpf(alpha)
    s2 = mpf(1) if restored else mpf(sigma) ** 2
    kappa = 2 * (alpha - 1) * mpf(beta) * s2 / mpf(lam)  # finite iff q·kappa < 1
    f = lambda u: linearised_rdp_heuristic(alpha, sigma, lam, beta, L, 1 + mpmath.exp(u), restored)
    if kappa >= 1:
        return mpf("inf"), mpf("inf")
    lo = mpmath.log(kappa / (1 - kappa)) if kappa > 0 else mpf(-60)  # p − 1 > κ/(1 − κ) ⇔ qκ < 1
    lo += mpf("1e-12")
    hi = max(lo + 1, mpf(60))
    grid = [lo + (hi - lo) * i / 200 for i in range(201)]
    vals = [f(u) for u in grid]
    i = min(range(len(grid)), key=lambda j: vals[j])
    a_, b_ = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    ratio = (mpmath.sqrt(5) - 1) / 2
    for _ in range(200):
        c1, c2 = b_ - ratio * (b_ - a_), a_ + ratio * (b_ - a_)
        if f(c1) <= f(c2):
            b_ = c2
        else:
            a_ = c1
        if b_ - a_ < mpf(2) ** (-mp.prec / 2):
            break
    u = (a_ + b_) / 2
    return f(u), 1 + mpmath.exp(u)


# ---------------------------------------------------------------------------------------------------------------
# Catalogue entries

@self_checked
def thm_c5_1(alpha, sigma, lam, beta, L, d):
    """seed 003 Thm C.5.1 (corrected, E4_6'): the non-GLM RDP bound — :func:`nonglm_rdp`."""
    return nonglm_rdp(alpha, sigma, lam, beta, L, d)


@self_checked
def thm_c5_1_printed(alpha, sigma, lam, beta, L, d):
    """seed 003 Thm C.5.1 as printed: "L/(2σ²)" where the proof gives L²/(2σ²) (erratum objpert.E4_6, notes
    objpert-rdp.md §6 E6′): below the exact D_α of a linear-loss ObjPert for L > 1 — not a bound."""
    return nonglm_rdp(alpha, sigma, lam, beta, L, d, printed=True)


register(Statement(
    id="objpert.thm_c5_1",
    fast="dpspec.fast.objpert.glm_bounds:thm_c5_1",
    source=Source(spec.SEED, "Thm C.5.1", "RDP of objective perturbation without GLM structure (dimension-dependent)"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) = −d log(1 − β/λ) + L²/(2σ²) + (1/(α−1)) log E_{Z~χ_d} e^{(α−1)(L/σ)Z}",
    params=(spec.P_ALPHA, spec.P_SIGMA, spec.P_LAM, spec.P_BETA, spec.P_L, spec.P_DIM),
    conditions=(LAM_ABOVE_BETA,),
    reference=thm_c5_1,
    variants={"printed": Variant(thm_c5_1_printed, "as printed: L/(2σ²) for L²/(2σ²) (erratum objpert.E4_6): "
                                 "9.18334 < the exact D_5 = 10 of the linear loss ℓ = 2θ at (α, σ, λ, β, L, d) "
                                 "= (5, 1, 1, 0.01, 2, 1)", is_bound=False)},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"alpha": +1, "sigma": -1, "L": +1, "d": +1},
    note="Printed with 'L/(2σ²)' (E4_6'); corrected to L²/(2σ²) as in the proof. The χ_d MGF in Kummer form (notes "
         "§2.3) or by centred quadrature for large d·t². At d = 1 it equals objpert.thm4_3_2 (tested). No witness: "
         "the text gives no pair (notes M5); the non-GLM radial negative control is helper B's "
         "(reference/objpert/witnesses_exact.py). The per-example determinant bound is chapter 2's "
         "objpert.thm2_3_3.",
))


@self_checked
def lemma_c10_15(t, s):
    """seed 003 Lemma C.10.15: for x, y, z ~ N(0, s²) (x, y possibly dependent) E[e^{t|x||y|}] ≤ E[e^{tz²}] =
    (1 − 2ts²)^{−1/2}, finite iff t < 1/(2s²). Returns the right-hand side. (The proof's middle line has
    E e^{tx²/2} where Cauchy–Schwarz gives E e^{tx²}; the inequality holds by AM–GM then Cauchy–Schwarz, notes §2.3.)"""
    return 1 / mpmath.sqrt(1 - 2 * t * s * s)


register(Statement(
    id="objpert.lemma_c10_15",
    source=Source(spec.SEED, "Lemma C.10.15", "the MGF inequality E e^{t|x||y|} ≤ E e^{tz²} used by App. C.3.1"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="E_{x,y}[e^{t|x||y|}] ≤ E_z[e^{tz²}] = (1 − 2ts²)^{−1/2}",
    params=(spec.P_MGF_T, spec.P_MGF_S),
    conditions=(Condition.of(spec.MGF_FINITE, lambda p: 2 * p["t"] * p["s"] ** 2 < 1),),
    reference=lemma_c10_15,
    monotone={"t": +1, "s": +1},
    note="An upper bound on E e^{t|x||y|} for every coupling of x, y ~ N(0, s²); equality at x = y. Used only by the "
         "unproven C.3.1 bound (E4_8). Monte Carlo of heavy-tailed MGFs is biased low near t = 1/(2s²) (notes §8): "
         "tests compare with quadrature.",
))

_ = jacobian_term
