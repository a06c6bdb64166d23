"""Symbolic proof checks of seed 002 (sympy; notes shared/notes/batch-clipping-fdp.md §8.3): eq. (10) G'_μ, the
Lemma C.5 stationarity and its one-component reduction, D.14's β0/β1 identities, D.13's inverses, [2] Cor 3.3 for
Gaussians, and [2] Prop 2.12 for G_μ (which gives eq. (7)).

Φ is written with erf (Φ(x) = (1 + erf(x/√2))/2), φ(x) = e^{−x²/2}/√(2π). Φ^{-1} is never inverted symbolically: a
point α is written through z = Φ^{-1}(1 − α) (so α = 1 − Φ(z) = Φ(−z), G_μ(α) = Φ(z − μ)), and dz/dα = −1/φ(z) is
derived by implicit differentiation of Φ(z(α)) = 1 − α. Where an identity holds only on a region or involves a
min/max, it is checked numerically (mpmath) on a grid instead, and the docstring says so.
"""
from __future__ import annotations

import mpmath
import sympy as sp
from mpmath import mp, mpf

from dpspec.reference import catalogue

from ..checks import CheckResult, check
from . import _exact as X

z, mu, x, eps, lam = sp.symbols("z mu x epsilon lambda", real=True)
mu_p = sp.Symbol("mu", positive=True)
u = sp.Symbol("u", positive=True)


def Phi(t):
    return (1 + sp.erf(t / sp.sqrt(2))) / 2


def phi(t):
    return sp.exp(-t ** 2 / 2) / sp.sqrt(2 * sp.pi)


def _zero(expr) -> bool:
    return sp.simplify(sp.expand(expr)) == 0


def g_prime_at(zz, m):
    """G'_μ(α) at α = 1 − Φ(zz), by the chain rule: G_μ(α) = Φ(z(α) − μ), z'(α) = −1/φ(z) (derived in
    :func:`eq10_gaussian_derivative`)."""
    return (sp.diff(Phi(z - m), z) * (-1 / phi(z))).subs(z, zz)


@check(statements=("base.gdp_tradeoff", "bc.def4_2"))
def eq10_gaussian_derivative() -> CheckResult:
    """Seed 002 eq. (10): G'_μ(x) = −exp(μΦ^{-1}(1−x) − μ²/2). z(α) = Φ^{-1}(1−α) satisfies Φ(z(α)) = 1 − α, so
    z' = −1/φ(z) (implicit differentiation, sympy); then d/dα Φ(z − μ) = −φ(z − μ)/φ(z) = −e^{μz − μ²/2}."""
    a = sp.Symbol("alpha", real=True)
    zf = sp.Function("z")(a)
    dz = sp.solve(sp.Eq(sp.diff(Phi(zf), a), sp.diff(1 - a, a)), sp.diff(zf, a))[0]
    implicit_ok = _zero(dz.subs(zf, z) + 1 / phi(z))
    derivative = sp.diff(Phi(zf - mu), a).subs(sp.diff(zf, a), dz).subs(zf, z)
    eq10_ok = _zero(sp.simplify(derivative + sp.exp(mu * z - mu ** 2 / 2)))
    return CheckResult("eq10_gaussian_derivative", bool(implicit_ok and eq10_ok),
                       {"dz/dalpha": str(sp.simplify(dz.subs(zf, z))), "G'": str(sp.simplify(derivative))})


@check(statements=("bc.def4_2",))
def lemma_c5_stationarity() -> CheckResult:
    """Lemma C.5 (proof, App. C.5): minimising Σ_i q_i G_{μ_i}(α_i) subject to Σ_i q_i α_i = α, the Lagrange condition
    q_i G'_{μ_i}(α_i) + λ q_i = 0 with eq. (10) gives z_i = Λ/μ_i + μ_i/2 (Λ = ln λ), hence G_{μ_i}(α_i) =
    Φ(Λ/μ_i − μ_i/2) and 1 − α = Σ q_i Φ(Λ/μ_i + μ_i/2) (sympy solve); the objective is convex (G'' = μe^{μz−μ²/2}/φ(z)
    > 0), so the stationary point is the minimum."""
    Lam = sp.Symbol("Lambda", real=True)
    condition = sp.Eq(-sp.exp(mu_p * z - mu_p ** 2 / 2) + sp.exp(Lam), 0)  # G'(α_i) = −λ, λ = e^Λ
    sol = sp.solve(condition, z)
    z_i = sp.simplify(sol[0]) if len(sol) == 1 else None
    ok_z = z_i is not None and _zero(z_i - (Lam / mu_p + mu_p / 2))
    ok_beta = z_i is not None and _zero(Phi(z_i - mu_p) - Phi(Lam / mu_p - mu_p / 2))
    ok_alpha = z_i is not None and _zero((1 - (1 - Phi(z_i))) - Phi(Lam / mu_p + mu_p / 2))
    second = sp.simplify(sp.diff(-sp.exp(mu_p * z - mu_p ** 2 / 2), z) * (-1 / phi(z)))  # G'' = d(G')/dz · z'
    convex = bool(sp.simplify(second).is_positive)
    return CheckResult("lemma_c5_stationarity", bool(ok_z and ok_beta and ok_alpha and convex),
                       {"z_i": str(z_i), "G''": str(second)})


@check(statements=("bc.def4_2",))
def lemma_c5_single_component_is_g_mu() -> CheckResult:
    """Lemma C.5 with one component (q = 1): 1 − α = Φ(Λ/μ + μ/2) gives Λ = μ(z − μ/2), z = Φ^{-1}(1−α), and
    f(α) = Φ(Λ/μ − μ/2) = Φ(z − μ) = G_μ(α) (sympy); and numerically, Def. 4.2's mixture with one atom equals
    base.gdp_tradeoff at three points."""
    Lam_sym = sp.Symbol("Lambda", real=True)
    # Φ is strictly increasing, so Φ(Λ/μ + μ/2) = 1 − α = Φ(z) iff Λ/μ + μ/2 = z
    sol = sp.solve(sp.Eq(Lam_sym / mu_p + mu_p / 2, z), Lam_sym)
    Lam = sol[0]
    ok_eq = len(sol) == 1 and _zero(Phi(Lam / mu_p + mu_p / 2) - Phi(z)) and _zero(Lam - mu_p * (z - mu_p / 2))
    ok_f = _zero(Phi(Lam / mu_p - mu_p / 2) - Phi(z - mu_p))
    st = catalogue.get("base.gdp_tradeoff")
    rows = {}
    with mp.workdps(30):
        for a in ("0.01", "0.2", "0.7"):
            mix = X.mixture_tradeoff((9,), (mpf(1),), 2, mpf(a))  # c = 3, σ = 2: G_{1.5}
            ref = st.evaluate(alpha=a, mu="1.5", dps=30).value
            rows[a] = (mix, ref)
    ok_num = all(abs(m - r) < mpf(10) ** -20 for m, r in rows.values())
    return CheckResult("lemma_c5_single_component_is_g_mu", bool(ok_eq and ok_f and ok_num),
                       {a: [mpmath.nstr(m, 15), mpmath.nstr(r, 15)] for a, (m, r) in rows.items()})


@check(statements=("bc.def4_3",))
def d14_beta_identities() -> CheckResult:
    """D.14 / Def. 4.3: with μ = c_U/σ, z0 = μ/2 − ln(1−u)/μ, z1 = μ/2 + ln(1−u)/μ, β0 = 1 − Φ(z0) and
    β1 = u + (1−u)(1 − Φ(z1)) are where f̂U = u + (1−u)G_μ and f̂U^{-1}(α) = G_μ((α−u)/(1−u)) have slope −1, and
    f̂U(β0) = β1, f̂U^{-1}(β1) = β0 (so the chord β0 + β1 − α joins them) — all by sympy (z0 − μ = −z1)."""
    log1mu = sp.log(1 - u)
    z0 = mu_p / 2 - log1mu / mu_p
    z1 = mu_p / 2 + log1mu / mu_p
    beta0 = 1 - Phi(z0)
    beta1 = u + (1 - u) * (1 - Phi(z1))
    slope_hat = sp.simplify((1 - u) * g_prime_at(z0, mu_p))  # f̂U'(β0), Φ^{-1}(1 − β0) = z0
    slope_inv = sp.simplify(g_prime_at(z1, mu_p) / (1 - u))  # (f̂U^{-1})'(β1): (β1 − u)/(1 − u) = 1 − Φ(z1)
    f_at_b0 = u + (1 - u) * Phi(z0 - mu_p)  # f̂U(β0) = u + (1−u)G_μ(β0)
    finv_at_b1 = Phi(z1 - mu_p)  # G_μ((β1 − u)/(1 − u))
    checks = {"slope f_hat at beta0 = -1": _zero(slope_hat + 1), "slope f_hat^-1 at beta1 = -1": _zero(slope_inv + 1),
              "f_hat(beta0) = beta1": _zero(f_at_b0 - beta1), "f_hat^-1(beta1) = beta0": _zero(finv_at_b1 - beta0)}
    return CheckResult("d14_beta_identities", all(checks.values()), {k: bool(v) for k, v in checks.items()})


@check(statements=("bc.def4_4", "bc.def4_4_hat"))
def d13_inverse_formulas() -> CheckResult:
    """D.13 / Def. 4.4: G_μ(G_μ(α)) = α (sympy, through z: G_μ(α) = Φ(z − μ) = 1 − Φ(μ − z)); then numerically
    (mpmath at 20 digits, α ∈ {1/8, 1/2, 7/8}, μ ∈ {0.5, 2}, l ∈ {0.01, 0.2}): f̂L^{-1}(α) := inf{t ∈ [0,1] : f̂L(t) ≤ α} (bisection) equals
    max{0, G_μ(α) − l}, and fL = max{f̂L, f̂L^{-1}} is continuous at β (G_μ(β) − l = β ⇒ f̂L(β) = β)."""
    symmetric = _zero(Phi((mu - z) - mu) - (1 - Phi(z)))  # G(G(α)): Φ^{-1}(1 − G(α)) = μ − z
    worst = mpf(0)
    with mp.workdps(20):
        for m in (mpf("0.5"), mpf(2)):
            for l in (mpf("0.01"), mpf("0.2")):
                f_hat = lambda t: X.g_tradeoff(min(mpf(1), t + l), m)
                for a in (mpf(i) / 8 for i in (1, 4, 7)):
                    lo, hi = mpf(0), mpf(1)
                    if f_hat(lo) <= a:
                        inv = mpf(0)
                    else:
                        for _ in range(56):
                            mid = (lo + hi) / 2
                            lo, hi = (lo, mid) if f_hat(mid) <= a else (mid, hi)
                        inv = hi
                    worst = max(worst, abs(inv - max(mpf(0), X.g_tradeoff(a, m) - l)))
                beta = X.fl_beta(m, l)
                worst = max(worst, abs(f_hat(beta) - beta))
    ok = symmetric and worst < mpf(10) ** -14
    return CheckResult("d13_inverse_formulas", bool(ok), {"G(G(alpha)) = alpha": bool(symmetric),
                                                          "max deviation": mpmath.nstr(worst, 3)})


@check(statements=("base.gdp_composition",))
def cor33_gaussian_composition() -> CheckResult:
    """[2] Cor 3.3 (seed 002 App. A, (13)): G_{μ1} ⊗ G_{μ2} = G_{√(μ1²+μ2²)}. The privacy loss of N(0,I) vs N((μ1,μ2),I)
    is −(μ1x1 + μ2x2 − (μ1²+μ2²)/2) (log-density ratio, sympy); under P its negative has the moment generating function
    of N(−(μ1²+μ2²)/2, μ1²+μ2²) (product of the components' MGFs, sympy) — the law of the one-dimensional G_μ pair's loss with μ² = μ1² + μ2², and a
    trade-off function is determined by its privacy-loss law."""
    m1, m2, t = sp.symbols("mu1 mu2 t", positive=True)
    x1, x2 = sp.symbols("x1 x2", real=True)
    log_ratio = sp.expand(sp.log(phi(x1) * phi(x2)) - sp.log(phi(x1 - m1) * phi(x2 - m2)))
    log_ratio = sp.simplify(sp.expand_log(log_ratio, force=True))
    expected = -(m1 * x1 + m2 * x2 - (m1 ** 2 + m2 ** 2) / 2)  # log p/q = −(μ·x − |μ|²/2)
    ok_form = _zero(log_ratio - expected)
    # the loss −L = μ1X1 + μ2X2 − |μ|²/2 under P: its MGF is the product of the N(0, μ_i²) MGFs times e^{−t|μ|²/2},
    # which is the MGF of N(−s/2, s) with s = μ1² + μ2² (the one-dimensional pair N(0,1) vs N(√s, 1))
    mgf = sp.exp(m1 ** 2 * t ** 2 / 2) * sp.exp(m2 ** 2 * t ** 2 / 2) * sp.exp(-t * (m1 ** 2 + m2 ** 2) / 2)
    s2 = m1 ** 2 + m2 ** 2
    mgf_1d = sp.exp(-t * s2 / 2 + s2 * t ** 2 / 2)
    mean, var = sp.diff(sp.log(mgf), t).subs(t, 0), sp.diff(sp.log(mgf), t, 2).subs(t, 0)
    ok_law = _zero(sp.log(mgf) - sp.log(mgf_1d)) and _zero(mean + s2 / 2) and _zero(var - s2)
    return CheckResult("cor33_gaussian_composition", bool(ok_form and ok_law),
                       {"log p/q": str(log_ratio), "mean of -L under P": str(sp.simplify(mean)),
                        "variance": str(sp.simplify(var))})


@check(statements=("base.gdp_profile",))
def prop212_gives_eq7() -> CheckResult:
    """[2] Prop 2.12 for G_μ gives seed 002 eq. (7): δ(ε) = sup_α 1 − G_μ(α) − e^ε α; the objective is concave
    (G_μ convex) and stationary where G'_μ(α) = −e^ε, i.e. (eq. (10)) z = ε/μ + μ/2 (sympy solve); there
    1 − G_μ(α) − e^ε α = Φ(μ − z) − e^ε Φ(−z) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2). Numerically, this equals
    base.gdp_profile at (ε, μ) = (1, 1), (0.5, 2)."""
    sol = sp.solve(sp.Eq(-sp.exp(mu_p * z - mu_p ** 2 / 2), -sp.exp(eps)), z)
    z_star = sp.simplify(sol[0]) if len(sol) == 1 else None
    ok_z = z_star is not None and _zero(z_star - (eps / mu_p + mu_p / 2))
    value = (1 - Phi(z_star - mu_p)) - sp.exp(eps) * (1 - Phi(z_star))
    eq7 = Phi(-eps / mu_p + mu_p / 2) - sp.exp(eps) * Phi(-eps / mu_p - mu_p / 2)
    ok_form = ok_z and _zero(value - eq7)
    st = catalogue.get("base.gdp_profile")
    rows = {}
    with mp.workdps(30):
        for e, m in ((1, 1), ("0.5", 2)):
            closed = sp.N(eq7.subs({eps: sp.Rational(str(e)), mu_p: m}), 30)
            rows[f"eps={e}, mu={m}"] = (mpf(str(closed)), st.evaluate(eps=e, mu=m, dps=30).value)
        ok_num = all(abs(a - b) < mpf(10) ** -20 for a, b in rows.values())
    return CheckResult("prop212_gives_eq7", bool(ok_form and ok_num),
                       {"z*": str(z_star), **{k: [mpmath.nstr(a, 15), mpmath.nstr(b, 15)] for k, (a, b) in rows.items()}})
