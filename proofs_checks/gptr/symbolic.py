"""Symbolic proof checks of seed 003, chapter 3 and appendix B (generalized PTR; sympy, notes
shared/notes/generalized-ptr.md §8 "What can be proof-checked mechanically").

Each check re-derives one step of a proof or one piece of arithmetic the text relies on, symbolically where sympy
can carry it, and compares with the reference evaluator (dpspec.reference.gptr, by the contract's names) at a few
points. Where an inequality holds only on an interval, it is proved from the end points and concavity (sympy
derivatives) and the interval's edge is located numerically (mpmath), as the docstring says.
"""
from __future__ import annotations

import mpmath
import sympy as sp
from mpmath import mp, mpf

from ..checks import CheckResult, check
from . import _exact as X
from ._ref import close, ref

s, z, u, x = sp.symbols("s z u x", real=True)
t_nn = sp.Symbol("t", nonnegative=True)
eps_p, sig, tau_p, a_p, b_p = sp.symbols("epsilon sigma tau a b", positive=True)
T_p, L_p = sp.symbols("T L", positive=True)


def _zero(expr) -> bool:
    return sp.simplify(sp.expand(expr)) == 0


def _lap_diff_density_sym(zz):
    """(1+z)e^{−z}/4 for z ≥ 0 by integrating ½e^{−|v|}·½e^{−|v−z|} over v < 0, 0 < v < z, v > z (sympy)."""
    v = sp.Symbol("v", real=True)
    zp = sp.Symbol("zp", positive=True)
    pieces = (sp.integrate(sp.exp(v) * sp.exp(v - zp) / 4, (v, -sp.oo, 0))
              + sp.integrate(sp.exp(-v) * sp.exp(v - zp) / 4, (v, 0, zp))
              + sp.integrate(sp.exp(-v) * sp.exp(-(v - zp)) / 4, (v, zp, sp.oo)))
    return sp.simplify(pieces).subs(zp, zz)


@check(statements=("gptr.thm_b3_2", "gptr.ex_b3_1"))
def laplace_difference_density_and_tail() -> CheckResult:
    """Seed 003, Ex B.3.1: for L₁, L₂ ~ Lap(1) iid, Z = L₁ − L₂ has density (1+|z|)e^{−|z|}/4 (the convolution,
    sympy, on z > 0; symmetric) and tail P[Z > s] = ∫_s^∞ (1+z)e^{−z}/4 dz = (2+s)e^{−s}/4 for s ≥ 0 (sympy); it
    integrates to 1. So p(t) = P[n₀ + Lap(1/ε) > n₁ + Lap(1/ε)] = (2+εt)/(4e^{εt}) for t = n₁ − n₀ ≥ 0, as printed.
    Numerically: the density by mpmath quadrature of the convolution at z ∈ {0.3, 2, 7}."""
    zp = sp.Symbol("zp", positive=True)
    density = _lap_diff_density_sym(zp)
    ok_density = _zero(density - (1 + zp) * sp.exp(-zp) / 4)
    sp_ = sp.Symbol("s", positive=True)  # s = 0 by continuity
    tail = sp.integrate((1 + zp) * sp.exp(-zp) / 4, (zp, sp_, sp.oo))
    ok_tail = _zero(tail - (2 + sp_) * sp.exp(-sp_) / 4)
    ok_mass = _zero(2 * sp.integrate((1 + zp) * sp.exp(-zp) / 4, (zp, 0, sp.oo)) - 1)
    with mp.workdps(30):
        quad = {str(q): (X.lap_diff_density_quad(q), X.lap_diff_density(q)) for q in ("0.3", "2", "7")}
    ok_num = all(close(a, b, "1e-20") for a, b in quad.values())
    return CheckResult("laplace_difference_density_and_tail", bool(ok_density and ok_tail and ok_mass and ok_num),
                       {"density(z>0)": str(density), "tail": str(sp.simplify(tail)),
                        "quadrature vs closed form": {k: mpmath.nstr(a, 12) for k, (a, b) in quad.items()}})


def _rnm_p(tt):
    return (2 + eps_p * tt) * sp.exp(-eps_p * tt) / 4


@check(statements=("gptr.thm_b3_2",))
def binary_rnm_log_ratio_is_increasing() -> CheckResult:
    """Seed 003, Ex B.3.1 / Thm B.3.2 (erratum E4): with p(t) = (2+εt)e^{−εt}/4 (t ≥ 0),
    log(p(t)/p(t+1)) = ε + log((2+εt)/(2+εt+ε)) (sympy); its t-derivative ε/(2+εt) − ε/(2+εt+ε) is > 0, it tends
    to ε as t → ∞ and lies in (0, ε): the pure data-dependent ε *increases* with the gap. The printed bound
    ε·log(1 − ε/(2+ε(t+1))) is negative (its argument is in (0, 1)), so it bounds nothing; the printed rewriting
    (2+εt)/(2+ε(t+1)) = 1 − ε/(2+ε(t+1)) is right, the factor e^ε was lost and a factor ε added."""
    ratio = sp.expand_log(sp.log(_rnm_p(t_nn) / _rnm_p(t_nn + 1)), force=True)
    exact = eps_p + sp.log(2 + eps_p * t_nn) - sp.log(2 + eps_p * t_nn + eps_p)
    ok_identity = _zero(ratio - exact)
    derivative = sp.simplify(sp.diff(exact, t_nn))
    ok_increasing = _zero(derivative - (eps_p / (2 + eps_p * t_nn) - eps_p / (2 + eps_p * t_nn + eps_p))) and \
        bool(sp.simplify(derivative * (2 + eps_p * t_nn) * (2 + eps_p * t_nn + eps_p) - eps_p ** 2) == 0)
    ok_limit = _zero(sp.limit(exact, t_nn, sp.oo) - eps_p)
    # 0 < value < ε: the log term is in (−∞, 0) and ε + log(2/(2+ε)) > 0 at t = 0 (log(1 + ε/2) < ε)
    at0 = exact.subs(t_nn, 0)
    ok_range = bool(sp.simplify((2 + eps_p * t_nn) / (2 + eps_p * t_nn + eps_p) - 1).is_negative) and \
        bool(sp.simplify(sp.diff(at0, eps_p)).is_positive) and _zero(at0.subs(eps_p, 0))
    printed_arg = 1 - eps_p / (2 + eps_p * (t_nn + 1))
    ok_rewrite = _zero((2 + eps_p * t_nn) / (2 + eps_p * (t_nn + 1)) - printed_arg)
    ok_printed_negative = bool(sp.simplify(printed_arg - 1).is_negative) and bool(sp.simplify(printed_arg).is_positive)
    holds = ok_identity and ok_increasing and ok_limit and ok_range and ok_rewrite and ok_printed_negative
    return CheckResult("binary_rnm_log_ratio_is_increasing", bool(holds),
                       {"log p(t)/p(t+1)": str(exact), "d/dt": str(derivative), "limit t->oo": str(sp.limit(exact, t_nn, sp.oo)),
                        "printed argument in (0,1)": bool(ok_printed_negative)})


@check(statements=("gptr.ex_b3_5", "gptr.lemma_b3_4"))
def logistic_third_derivative_bounded_by_second() -> CheckResult:
    """Seed 003, Ex B.3.5 (erratum E6): for l(s) = log(1 + e^s), l'' = e^s/(1+e^s)², l''' = e^s(1−e^s)/(1+e^s)³ and
    l'''/l'' = (1 − e^s)/(1 + e^s) = −tanh(s/2) (sympy), so |l'''| ≤ l'' with sup |l'''|/l'' = 1 (limits s → ±∞):
    logistic is 1-GSC in Bach's convention |∇³f[v,v,v]| ≤ R‖v‖∇²f[v,v], and only ½-GSC in Def B.3.3's with the 2."""
    l = sp.log(1 + sp.exp(s))
    l2, l3 = sp.diff(l, s, 2), sp.diff(l, s, 3)
    ok_l2 = _zero(l2 - sp.exp(s) / (1 + sp.exp(s)) ** 2)
    ok_l3 = _zero(l3 - sp.exp(s) * (1 - sp.exp(s)) / (1 + sp.exp(s)) ** 3)
    ratio = sp.simplify(l3 / l2)
    ok_ratio = _zero((ratio - (1 - sp.exp(s)) / (1 + sp.exp(s))).rewrite(sp.exp)) and \
        _zero((ratio + sp.tanh(s / 2)).rewrite(sp.exp))
    sup = (sp.limit(ratio, s, -sp.oo), sp.limit(ratio, s, sp.oo))
    ok_sup = sup == (1, -1)
    return CheckResult("logistic_third_derivative_bounded_by_second", bool(ok_l2 and ok_l3 and ok_ratio and ok_sup),
                       {"l'''/l''": str(ratio), "limits (s->-oo, s->oo)": [str(v) for v in sup],
                        "R (Bach)": 1, "R (Def B.3.3 with the 2)": "1/2"})


@check(statements=("gptr.thm_b3_11",))
def exp_minus_one_below_two_x_on_unit_interval() -> CheckResult:
    """Seed 003, proof of Thm B.3.11: e^x − 1 ≤ 2x for x ∈ [0, 1]. g(x) = 2x − e^x + 1 has g(0) = 0, g(1) = 3 − e > 0
    and g'' = −e^x < 0 (sympy), so g ≥ 0 on [0, 1] (a concave function above 0 at both ends); the inequality first
    fails at the positive root of g, x ≈ 1.2564 (mpmath), beyond the x ≤ 1 the proof uses (λ̃_min ≥ λ ≥ RL)."""
    g = 2 * x - sp.exp(x) + 1
    ends = (g.subs(x, 0), sp.simplify(g.subs(x, 1)))
    concave = bool(sp.simplify(-sp.diff(g, x, 2)).is_positive)
    ok = ends[0] == 0 and bool(ends[1] > 0) and concave
    with mp.workdps(30):
        root = mpmath.findroot(lambda y: 2 * y - mpmath.exp(y) + 1, 1.25)
    ok &= 1 < root < 2
    return CheckResult("exp_minus_one_below_two_x_on_unit_interval", bool(ok),
                       {"g(0), g(1)": [str(e) for e in ends], "g''": str(sp.diff(g, x, 2)),
                        "first failure x": mpmath.nstr(root, 8)})


@check(statements=("gptr.lemma_b3_4",))
def exponential_sandwich_on_half_interval() -> CheckResult:
    """Seed 003, Lemma B.3.4 aside: e^{−2x} ≤ 1 − x ≤ e^{−x} for x ∈ [0, ½]. The right inequality holds for all x
    (e^{−x} − (1 − x) is convex with minimum 0 at 0, sympy); for the left, h(x) = 1 − x − e^{−2x} has h(0) = 0,
    h(½) = ½ − e^{−1} > 0 and h'' = −4e^{−2x} < 0, so h ≥ 0 on [0, ½]. It holds up to the root x ≈ 0.7968 of h
    (mpmath), as the notes say (§2.6)."""
    right = sp.exp(-x) - (1 - x)
    ok_right = right.subs(x, 0) == 0 and _zero(sp.diff(right, x).subs(x, 0)) and \
        bool(sp.simplify(sp.diff(right, x, 2)).is_positive)
    h = 1 - x - sp.exp(-2 * x)
    ok_left = h.subs(x, 0) == 0 and bool(sp.N(h.subs(x, sp.Rational(1, 2))) > 0) and \
        bool(sp.simplify(-sp.diff(h, x, 2)).is_positive)
    with mp.workdps(30):
        root = mpmath.findroot(lambda y: 1 - y - mpmath.exp(-2 * y), 0.8)
    ok = ok_right and ok_left and mpf("0.5") < root < mpf("0.8")
    return CheckResult("exponential_sandwich_on_half_interval", bool(ok),
                       {"h(1/2)": str(sp.N(h.subs(x, sp.Rational(1, 2)), 8)), "edge of validity": mpmath.nstr(root, 8)})


@check(statements=("gptr.gnmax_composed",))
def composed_gaussian_rdp_minimum() -> CheckResult:
    """Seed 003, Thm 3.6.4 (data-independent half) with Mironov's conversion (notes §2.4): min over α > 1 of
    Tα/σ² + L/(α − 1), L = log(1/δ), is attained at α* = 1 + σ√(L/T) (stationary, second derivative 2L/(α−1)³ > 0,
    sympy) with value T/σ² + 2√(TL)/σ (sympy). Numerically equal to gptr.gnmax_composed's evaluator at
    (T, σ, δ) = (200, 40, 1e-5) and to the notes' vector 2.5243 (§5.2)."""
    al = sp.Symbol("alpha", positive=True)
    f = T_p * al / sig ** 2 + L_p / (al - 1)
    a_star = 1 + sig * sp.sqrt(L_p / T_p)
    ok_stationary = _zero(sp.diff(f, al).subs(al, a_star))
    ok_convex = _zero(sp.diff(f, al, 2) - 2 * L_p / (al - 1) ** 3)
    value = sp.simplify(f.subs(al, a_star))
    ok_value = _zero(value - (T_p / sig ** 2 + 2 * sp.sqrt(T_p * L_p) / sig))
    with mp.workdps(30):
        closed = mpf(200) / 1600 + 2 * mpmath.sqrt(200 * mpmath.log(mpf(10) ** 5)) / 40
        reference = ref("pate", "gnmax_composed")(mpf(200), mpf(40), mpf("1e-5"))
    ok_num = close(closed, reference, "1e-20") and abs(closed - mpf("2.5243")) < mpf("5e-5")
    return CheckResult("composed_gaussian_rdp_minimum", bool(ok_stationary and ok_convex and ok_value and ok_num),
                       {"alpha*": str(a_star), "min": str(value), "T=200, sigma=40, delta=1e-5": mpmath.nstr(reference, 10)})


@check(statements=("gptr.thm3_6_6", "gptr.lemma3_6_5"))
def alg6_constants_arithmetic() -> CheckResult:
    """Seed 003, Alg 6 and the sketch of Thm 3.6.6: α = 2 log(2/δ)/ε̂ + 1 makes the conversion cost
    log(2/δ)/(α − 1) = ε̂/2, and σ_s² = (3α + 2)/ε̂ makes Lemma 3.6.5's printed cost (3α + 2)/(2σ_s²) = ε̂/2, which
    is the reconstructed sum (α + 1)/σ_s² (GNSS, as cited) + α/(2σ_2²) (the μ release, σ_2 = σ_s) (sympy). So ε̂ pays
    for publishing the test, ε′ is the labels' threshold (erratum E11). Numerically: gptr.pate_constants at
    ε̂ = 0.58174…, δ = 1e-5 gives σ_s = 15 and α = 42.964 (notes §5.2)."""
    d = sp.Symbol("delta", positive=True)
    alpha = 2 * sp.log(2 / d) / eps_p + 1
    ok_conversion = _zero(sp.log(2 / d) / (alpha - 1) - eps_p / 2)
    al = sp.Symbol("alpha", positive=True)
    sigma_s2 = (3 * al + 2) / eps_p
    ok_release = _zero((3 * al + 2) / (2 * sigma_s2) - eps_p / 2)
    ok_sum = _zero((al + 1) / sig ** 2 + al / (2 * sig ** 2) - (3 * al + 2) / (2 * sig ** 2))
    with mp.workdps(30):
        eps_hat, alpha_n, beta_n = X.pate_constants_from_sigma(15, "1e-5")
        a_ref, s_ref, b_ref = ref("pate", "pate_constants")(eps_hat, mpf("1e-5"))
    ok_num = close(s_ref, 15, "1e-20") and close(a_ref, alpha_n, "1e-20") and close(b_ref, beta_n, "1e-20") and \
        abs(a_ref - mpf("42.9639")) < mpf("1e-4") and abs(eps_hat - mpf("0.58174")) < mpf("1e-5")
    return CheckResult("alg6_constants_arithmetic", bool(ok_conversion and ok_release and ok_sum and ok_num),
                       {"eps_hat at sigma_s=15": mpmath.nstr(eps_hat, 8), "alpha": mpmath.nstr(a_ref, 8),
                        "sigma_s": mpmath.nstr(s_ref, 8), "beta": mpmath.nstr(b_ref, 8)})


@check(statements=("gptr.thm3_6_1_gamma", "gptr.rem_b3_7"))
def gamma_star_quadratic_root() -> CheckResult:
    """Seed 003, Thm 3.6.1 calibration (Ex 3.6.2 / Alg 14 line 6) and Rem B.3.7: ε(γ) = a·γ + b·√γ + c is a quadratic
    in s = √γ; for c < ε its positive root is s* = (−b + √(b² + 4a(ε − c)))/(2a) = 2(ε − c)/(b + √(b² + 4a(ε − c)))
    (the stable form; sympy), ε(s*²) = ε, and ε(γ) is increasing, so γ* = s*² is the largest feasible γ; for c ≥ ε no
    γ > 0 is feasible. Numerically: the root with the printed coefficients gives the notes' vectors (§5.2: 2.18466,
    0.50410, 0.058497 at ‖𝒳‖ = 1, δ = 1e-6, = gptr's ops_gamma_star_printed; Rem B.3.7: 0.56039 at α = 100 and
    14.2539 at α = 1000, ε = 0.5, δ = 5e-7), and the catalogue's calibrations ops_gamma_star and
    logistic_gamma_star are the roots of their own ε(γ) (ε(γ*) = ε, ε(γ*(1 + 1e-9)) > ε)."""
    e = sp.Symbol("eps", positive=True)
    c = sp.Symbol("c", nonnegative=True)
    root = (-b_p + sp.sqrt(b_p ** 2 + 4 * a_p * (e - c))) / (2 * a_p)
    stable = 2 * (e - c) / (b_p + sp.sqrt(b_p ** 2 + 4 * a_p * (e - c)))
    ok_stable = _zero(sp.radsimp(root - stable))
    ok_solves = _zero(sp.expand(a_p * root ** 2 + b_p * root + c - e))
    ok_increasing = bool(sp.diff(a_p * s ** 2 + b_p * s + c, s).subs(s, sp.Symbol("q", positive=True)).is_positive)
    rows, roots = {}, {}
    with mp.workdps(30):
        for eps_v, lam, lmin, L, want in ((1, 100, 50, 2, "2.18466"), ("0.5", 100, 50, 2, "0.50410"),
                                          (1, 10, 5, 2, "0.058497")):
            eps_v, delta, lam, lmin, L = mpf(eps_v), mpf("1e-6"), mpf(lam), mpf(lmin), mpf(L)
            ls, lg = lam + lmin, mpmath.log(2 / delta)
            a, b, cc = L ** 2 / (2 * (ls + 1)), mpmath.sqrt(L ** 2 * lg / ls), (1 + lg) / (2 * ls)  # as printed
            mine = (2 * (eps_v - cc) / (b + mpmath.sqrt(b * b + 4 * a * (eps_v - cc)))) ** 2
            rows[f"printed Thm 3.6.1, eps={eps_v}, lam={lam}"] = (mine, ref("ops", "ops_gamma_star_printed")(
                eps_v, lam, lmin, L, mpf(1), delta), mpf(want))
            # the catalogue's (corrected) calibration is the root of its own ε(γ): ε(γ*) = ε, ε(γ*(1 + 1e-9)) > ε
            if not ref("ops", "ops_gamma_feasible")(eps_v, lam, lmin, mpf(1), delta):
                continue  # the corrected c can exceed ε where the printed one does not
            g = ref("ops", "ops_gamma_star")(eps_v, lam, lmin, L, mpf(1), delta)
            f = lambda gg: ref("ops", "ops_epsilon")(gg, lam, lmin, L, mpf(1), delta)
            roots[f"ops eps={eps_v}, lam={lam}"] = (g, f(g), f(g * (1 + mpf(10) ** -9)), eps_v)
        for alpha_sc, want in ((100, "0.56039"), (1000, "14.2539")):
            eps_v, dl, al = mpf("0.5"), mpf("5e-7"), mpf(alpha_sc)
            lg = mpmath.log(2 / dl)
            a, b, cc = 1 / al, mpmath.sqrt(lg / al), mpf("1.25") * (1 + lg) / al  # Rem B.3.7 as printed
            mine = (2 * (eps_v - cc) / (b + mpmath.sqrt(b * b + 4 * a * (eps_v - cc)))) ** 2
            g = ref("glm", "logistic_gamma_star")(eps_v, al, dl)
            f = lambda gg: ref("glm", "logistic_epsilon")(al, gg, dl)
            rows[f"printed Rem B.3.7, alpha={alpha_sc}"] = (mine, mine, mpf(want))
            roots[f"logistic alpha={alpha_sc}"] = (g, f(g), f(g * (1 + mpf(10) ** -9)), eps_v)
    ok_num = all(close(m, th, "1e-15") and abs(m - w) <= mpf("6e-6") * max(1, w) for m, th, w in rows.values())
    ok_num &= len(roots) >= 3 and all(close(at, e, "1e-15") and above > e for _, at, above, e in roots.values())
    return CheckResult("gamma_star_quadratic_root", bool(ok_stable and ok_solves and ok_increasing and ok_num),
                       {**{k: [mpmath.nstr(m, 8), mpmath.nstr(th, 8)] for k, (m, th, w) in rows.items()},
                        **{k: mpmath.nstr(g, 8) for k, (g, *_) in roots.items()}})


@check(statements=("gptr.lemma3_6_5",))
def gnss_constant_misses_a_sigma_free_term() -> CheckResult:
    """Seed 003, Lemma 3.6.5 proof sketch vs Papernot et al. 2018 Thm 23 (erratum E2): Thm 23's RDP
    αe^{2β}/σ² + (βα − ½ log(1 − 2αβ))/(α − 1) minus the cited (α + 1)/σ² tends, as σ → ∞, to
    (βα − ½ log(1 − 2αβ))/(α − 1) (sympy limit), which is > 0 for 0 < 2αβ < 1 since −log(1 − y) > y; with
    β = 0.2/α it is (0.2 − ½ log 0.6)/(α − 1) = 0.45541/(α − 1). So the cited (α + 1)/σ² is not what Thm 23
    says. The leak is real, not an artefact of Thm 23: the GNSS pair with SS_β ratio r = e^{−β} has the σ-free
    divergence V(e^{−β}) = (−αβ − ½ log(1 − α(1 − e^{−2β})))/(α − 1) > 0 (sympy: its σ → ∞ limit), 0.0012837 at
    the experiment's α, β, while (α + 1)/σ² → 0 (erratum E2). Numerically, gptr.gnss_rdp minus the μ release
    α/(2σ_2²) equals Thm 23 at (α, β, σ) = (42.96, 0.2/α, 15)."""
    al, be = sp.symbols("alpha beta", positive=True)
    thm23 = al * sp.exp(2 * be) / sig ** 2 + (be * al - sp.log(1 - 2 * al * be) / 2) / (al - 1)
    free = sp.limit(thm23 - (al + 1) / sig ** 2, sig, sp.oo)
    ok_free = _zero(free - (be * al - sp.log(1 - 2 * al * be) / 2) / (al - 1))
    y = sp.Symbol("y", positive=True)
    k = -sp.log(1 - y) - y  # k(0) = 0, k' = y/(1 − y) > 0 on (0, 1)
    ok_positive = k.subs(y, 0) == 0 and _zero(sp.diff(k, y) - y / (1 - y))
    at_02 = sp.simplify(free.subs(be, sp.Rational(1, 5) / al) * (al - 1))
    ok_02 = abs(float(at_02) - 0.45541) < 1e-5
    # the exact GNSS pair at r = e^{−β}: N(0, σ²) vs N(e^{−β}, e^{−2β}σ²), Gaussian Rényi closed form, σ → ∞
    r2, y_r = sp.exp(-2 * be), 1 - al * (1 - sp.exp(-2 * be))
    pair = al * r2 / (2 * sig ** 2 * y_r) + (al * sp.log(r2) / 2 - sp.log(y_r) / 2) / (al - 1)
    v_free = sp.limit(pair, sig, sp.oo)
    ok_v = _zero(v_free - (-al * be - sp.log(y_r) / 2) / (al - 1))
    with mp.workdps(30):
        _, alpha_n, beta_n = X.pate_constants_from_sigma(15, "1e-5")
        mine = X.papernot_thm23(alpha_n, beta_n, 15)
        theirs = ref("pate", "gnss_rdp")(alpha_n, beta_n, mpf(15), mpf(15)) - alpha_n / (2 * mpf(15) ** 2)
        v_num = mpf(sp.N(v_free.subs({al: sp.Float(str(alpha_n), 30), be: sp.Float(str(beta_n), 30)}), 30))
        exact_far = X.gnss_worst(alpha_n, beta_n, 10 ** 8)[0]
    ok_num = close(mine, theirs, "1e-20") and abs(mine - mpf("0.20359")) < mpf("1e-5")
    ok_leak = ok_v and v_num > 0 and close(exact_far, v_num, "1e-6") and abs(v_num - mpf("0.0012837")) < mpf("1e-7")
    return CheckResult("gnss_constant_misses_a_sigma_free_term",
                       bool(ok_free and ok_positive and ok_02 and ok_num and ok_leak),
                       {"sigma-free term": str(free), "(alpha-1) x term at beta=0.2/alpha": str(at_02),
                        "exact pair's sigma-free part at the experiment's alpha, beta": mpmath.nstr(v_num, 8),
                        "Thm 23 at sigma_s=15": mpmath.nstr(mine, 8), "cited (alpha+1)/sigma^2": mpmath.nstr((alpha_n + 1) / 225, 8)})


@check(statements=("gptr.thm3_5_3", "gptr.thm3_6_6"))
def generalized_ptr_delta_bookkeeping() -> CheckResult:
    """Seed 003, proof of Thm 3.5.3 (App. B.2.1): Case I gives (ε̂, δ̂ + δ′), Case II (ε + ε̂, δ + δ̂), so
    ε* = max(ε̂, ε + ε̂) = ε + ε̂ and δ* = max(δ̂ + δ′, δ + δ̂) = δ̂ + max(δ, δ′) ≤ δ + δ̂ + δ′, with equality iff
    min(δ, δ′) = 0 (sympy, on the two orderings). For Thm 3.6.6 (δ̂ = δ/2 test conversion, labels' δ/2, false
    positive δ_2 = δ/2) the max form gives δ and the printed sum 3δ/2 (erratum E14). Numerically gptr_budget's two
    forms at (ε, ε̂, δ, δ̂, δ′) = (1, 0.5, 1e-5, 5e-6, 5e-6)."""
    e, eh, d, dh, dp = sp.symbols("eps eps_hat delta delta_hat delta_prime", nonnegative=True)
    ok_eps = _zero(sp.Max(eh, e + eh) - (e + eh))
    gap_d_ge = (d + dh + dp) - (dh + d)      # δ ≥ δ′: max = δ, slack = δ′ ≥ 0
    gap_dp_ge = (d + dh + dp) - (dh + dp)    # δ′ ≥ δ: max = δ′, slack = δ ≥ 0
    ok_slack = _zero(gap_d_ge - dp) and _zero(gap_dp_ge - d)
    half = sp.Symbol("delta", positive=True) / 2
    ok_666 = _zero(half + sp.Max(half, half) - 2 * half) and _zero((half + half + half) - 3 * half)
    with mp.workdps(30):
        budget = ref("generalized", "gptr_budget")
        args = [mpf(v) for v in (1, "0.5", "1e-5", "5e-6", "5e-6")]
        mx, sm = budget(*args, form="max"), budget(*args, form="sum")
        args[2] = mpf("5e-6")
        pate = budget(*args, form="max"), budget(*args, form="sum")
    ok_num = close(mx[0], "1.5", "1e-25") and close(sm[0], "1.5", "1e-25") and close(mx[1], "1.5e-5", "1e-20") \
        and close(sm[1], "2e-5", "1e-20") and close(pate[0][1], "1e-5", "1e-20") and close(pate[1][1], "1.5e-5", "1e-20")
    return CheckResult("generalized_ptr_delta_bookkeeping", bool(ok_eps and ok_slack and ok_666 and ok_num),
                       {"max form (1,.5,1e-5,5e-6,5e-6)": [mpmath.nstr(v, 8) for v in mx],
                        "sum form": [mpmath.nstr(v, 8) for v in sm],
                        "Thm 3.6.6 max vs sum": [mpmath.nstr(pate[0][1], 6), mpmath.nstr(pate[1][1], 6)]})


@check(statements=("gptr.thm3_3_4",))
def classic_ptr_false_positive_is_half_delta() -> CheckResult:
    """Seed 003, Alg 3 / Thm 3.3.4: on an unstable dataset (D_β = 0) the test passes iff Lap(1/ε) > log(1/δ)/ε,
    with probability ∫_{log(1/δ)/ε}^∞ (ε/2)e^{−εy} dy = δ/2 (sympy), so the exact worst case is (2ε, δ/2) and the
    printed (2ε, δ) is valid but loose; numerically gptr's classic_ptr_tight gives δ/2 at (ε, δ) = (0.5, 1e-4)."""
    d = sp.Symbol("delta", positive=True)
    yv = sp.Symbol("y", positive=True)
    p_pass = sp.integrate(eps_p / 2 * sp.exp(-eps_p * yv), (yv, sp.log(1 / d) / eps_p, sp.oo))
    ok = _zero(sp.simplify(p_pass) - d / 2)
    with mp.workdps(30):
        eps2, delta_half = ref("prelims", "classic_ptr_tight")(mpf("0.5"), mpf("1e-4"))
    ok_num = close(eps2, 1, "1e-25") and close(delta_half, "5e-5", "1e-25")
    return CheckResult("classic_ptr_false_positive_is_half_delta", bool(ok and ok_num),
                       {"P[pass | D=0]": str(sp.simplify(p_pass)), "classic_ptr_tight(0.5, 1e-4)":
                        [mpmath.nstr(eps2, 6), mpmath.nstr(delta_half, 6)]})


@check(statements=("gptr.thm3_5_6",))
def liu_talwar_cutoff_tail() -> CheckResult:
    """Seed 003, Thm 3.5.6 (Liu & Talwar 2019, Thm 3.4): with T = (1/τ) log(1/δ_2), the geometric stopping time
    exceeds T with probability (1 − τ)^T ≤ e^{−τT} = δ_2 (log(1 − τ) ≤ −τ: the difference is 0 at τ = 0 with
    derivative −τ/(1 − τ) ≤ 0, sympy); numerically gptr's liu_talwar_cutoff(τ = 1/600, δ_2 = 5e-7) = 8705.19
    (notes §5.2) and (1 − τ)^T ≤ δ_2 there."""
    d2 = sp.Symbol("delta_2", positive=True)
    T = sp.log(1 / d2) / tau_p
    ok_bound = _zero(sp.exp(-tau_p * T) - d2)
    g = sp.log(1 - tau_p) + tau_p
    ok_log = g.subs(tau_p, 0) == 0 and _zero(sp.diff(g, tau_p) + tau_p / (1 - tau_p))
    with mp.workdps(30):
        tau, delta_2 = mpf(1) / 600, mpf("5e-7")
        cut = ref("selection", "liu_talwar_cutoff")(tau, delta_2)
        tail = (1 - tau) ** cut
    ok_num = abs(cut - mpf("8705.19")) < mpf("0.01") and tail <= delta_2 and close(cut, 600 * mpmath.log(2 * mpf(10) ** 6))
    return CheckResult("liu_talwar_cutoff_tail", bool(ok_bound and ok_log and ok_num),
                       {"T": mpmath.nstr(cut, 8), "(1-tau)^T": mpmath.nstr(tail, 6), "delta_2": "5e-7"})


CHECK_FUNCTIONS = (laplace_difference_density_and_tail, binary_rnm_log_ratio_is_increasing,
                   logistic_third_derivative_bounded_by_second, exp_minus_one_below_two_x_on_unit_interval,
                   exponential_sandwich_on_half_interval, composed_gaussian_rdp_minimum, alg6_constants_arithmetic,
                   gamma_star_quadratic_root, gnss_constant_misses_a_sigma_free_term,
                   generalized_ptr_delta_bookkeeping, classic_ptr_false_positive_is_half_delta,
                   liu_talwar_cutoff_tail)
