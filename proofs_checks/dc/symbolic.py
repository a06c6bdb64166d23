"""Symbolic proof checks of seed 004 (DC-DPSGD, arXiv 2405.17529v1; sympy with numerical cross-checks), the list of
notes shared/notes/dc-dpsgd.md §8 "Mechanical checks" ("Symbolic, done" and "Symbolic, to do") plus Lemma A.4's
elementary inequality and the two Theorem 5.2 steps of erratum dc.E5.

Each check re-derives one step of a proof or one identity the text relies on and returns a
:class:`~dpspec.proofs_checks.checks.CheckResult`. Every check takes keyword arguments with defaults (the registry
calls it without any): the defaults are the text's corrected claim; passing the printed or a planted claim shows the
check has power (tests/dc/test_dc_proofs.py). Where the contract names a reference helper (dpspec.reference.dc,
through :mod:`._ref`), the check compares with it when it can be imported, and says so in the evidence otherwise.
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp
from mpmath import mp, mpf

from ..checks import CheckResult, check
from ._ref import available, close, ref

t, u, x, r = sp.symbols("t u x r", positive=True)
K, lam, p, th, dl, q, e_, a_, T_ = sp.symbols("K lambda p theta delta q epsilon a T", positive=True)


def _zero(expr) -> bool:
    return sp.simplify(sp.gammasimp(sp.expand(expr))) == 0


def _exact(v):
    """A sympy number for a substitution: ints and sympy numbers as they are, strings and mpf as 40-digit Floats
    (an mpf made at 15 digits would otherwise enter as a double)."""
    if isinstance(v, (int, sp.Basic)):
        return v
    return sp.Float(v if isinstance(v, str) else mpmath.nstr(mpf(v), 40), 40)


def _num(expr, subs, digits=30) -> mpf:
    with mp.workdps(digits + 10):
        return mpf(str(sp.N(expr.subs({k: _exact(v) for k, v in subs.items()}), digits)))


def freedman_a_independent(theta) -> mpf:
    """a(θ) of Lemma A.3 (seed 004 L604–L636; Madden et al. 2020), written out independently of helper A: 2 at θ = 1/2,
    (4θ)^{2θ}e² on (1/2, 1], (2^{2θ+1} + 2)Γ(2θ+1) + 2^{3θ}Γ(3θ+1)/3 for θ > 1 (notes §2 Lemma A.3); the branch
    boundaries exactly (θ = 1/2 first case, θ = 1 second; erratum dc.E10). θ < 1/2 is outside the lemma."""
    theta = mpf(theta)
    if theta < mpf(1) / 2:
        raise ValueError(f"theta = {theta}: Lemma A.3 needs theta >= 1/2")
    if theta == mpf(1) / 2:
        return mpf(2)
    if theta <= 1:
        return (4 * theta) ** (2 * theta) * mpmath.e ** 2
    return (2 ** (2 * theta + 1) + 2) * mpmath.gamma(2 * theta + 1) + 2 ** (3 * theta) * mpmath.gamma(3 * theta + 1) / 3


# --- Lemma A.6: the moment integral ------------------------------------------------------------------------------

A6_POINTS = ((3, "0.7", "1.3"), ("1.5", 2, "0.5"), (2, "0.5", 1))


@check(statements=("dc.lemma_a6",))
def lemma_a6_moment_integral(claim: str = "2*K**p*gamma(p*theta + 1)") -> CheckResult:
    """Seed 004, Lemma A.6 (L645–L646; Madden et al. 2020): E|X|^p = ∫₀^∞ p t^{p−1} P(|X| > t) dt ≤ ∫₀^∞ p t^{p−1}
    2exp(−(t/K)^{1/θ}) dt = 2K^pΓ(pθ + 1). Sympy with the substitution t = K u^θ (the integrand becomes
    2pθK^p u^{pθ−1}e^{−u}); mpmath quadrature of the original integral at three (p, θ, K); the reference
    moment_bound (helper A) at the same points where it exists. ``claim`` is the closed form compared (a sympy
    expression in K, p, theta)."""
    claimed = sp.sympify(claim, locals={"K": K, "p": p, "theta": th})
    integrand = p * (K * u ** th) ** (p - 1) * 2 * sp.exp(-u) * K * th * u ** (th - 1)  # dt = Kθu^{θ−1}du
    integrand = sp.powsimp(sp.expand_power_base(integrand, force=True), force=True)
    value = sp.integrate(integrand, (u, 0, sp.oo), conds="none")
    ok_sym = _zero(value - claimed)
    numeric, ref_note = {}, "reference moment_bound not available"
    ok_num = True
    with mp.workdps(30):
        for pp, tt, kk in A6_POINTS:
            pp, tt, kk = mpf(pp), mpf(tt), mpf(kk)
            quad = mpmath.quad(lambda s: pp * s ** (pp - 1) * 2 * mpmath.exp(-(s / kk) ** (1 / tt)), [0, kk, 10 * kk, mpmath.inf])
            want = _num(claimed, {K: kk, p: pp, th: tt})
            numeric[f"p={pp}, theta={tt}, K={kk}"] = [mpmath.nstr(quad, 12), mpmath.nstr(want, 12)]
            ok_num = ok_num and close(quad, want, "1e-20")
        if available("moment_bound"):
            got = [ref("moment_bound")(mpf(pp), mpf(tt), mpf(kk)) for pp, tt, kk in A6_POINTS]
            want = [2 * mpf(kk) ** mpf(pp) * mpmath.gamma(mpf(pp) * mpf(tt) + 1) for pp, tt, kk in A6_POINTS]
            ok_ref = all(close(g, w, "1e-20") for g, w in zip(got, want))
            ref_note = {"agrees with 2K^p Gamma(p theta + 1)": ok_ref}
            ok_num = ok_num and ok_ref
    return CheckResult("lemma_a6_moment_integral", bool(ok_sym and ok_num),
                       {"integral": str(sp.gammasimp(value)), "claim": str(claimed), "symbolic": ok_sym,
                        "quadrature vs claim": numeric, "reference": ref_note})


# --- Lemma A.1: the tail quantile ----------------------------------------------------------------------------------

@check(statements=("dc.lemma_a1", "dc.def_a1"))
def lemma_a1_inversion(claim: str = "K*log(2/delta)**theta") -> CheckResult:
    """Seed 004, Lemma A.1 (L585–L593) from Def A.1(1) (L558–L580): solving 2exp(−(t/K)^{1/θ}) = δ for t gives
    t = K log^θ(2/δ) (sympy solve); the tail bound evaluated back at the solution is δ; the reference tail_quantile
    (helper A) at (θ, K, δ) = (2, 1.5, 1e-5), (0.5, 1, 0.3) where it exists."""
    claimed = sp.sympify(claim, locals={"K": K, "delta": dl, "theta": th})
    sols = sp.solve(sp.Eq(2 * sp.exp(-(t / K) ** (1 / th)), dl), t)
    ok_sym = any(_zero(sp.expand_log(s - claimed, force=True)) for s in sols)
    back = 2 * sp.exp(-(claimed / K) ** (1 / th))
    pts = ((2, "1.5", "1e-5"), ("0.5", 1, "0.3"))
    ok_back = all(close(_num(back, {K: str(k), th: str(a), dl: d}), mpf(d), "1e-25") for a, k, d in pts)
    ref_note = "reference tail_quantile not available"
    ok_ref = True
    if available("tail_quantile"):
        with mp.workdps(30):
            got = [ref("tail_quantile")(mpf(a), mpf(k), mpf(d)) for a, k, d in pts]
        ok_ref = all(close(g, _num(claimed, {K: str(k), th: str(a), dl: d}), "1e-20") for g, (a, k, d) in zip(got, pts))
        ref_note = {"agrees": ok_ref, "values": [mpmath.nstr(g, 10) for g in got]}
    return CheckResult("lemma_a1_inversion", bool(ok_sym and ok_back and ok_ref),
                       {"solutions": [str(s) for s in sols], "claim": str(claimed), "symbolic": ok_sym,
                        "tail at the claim equals delta": ok_back, "reference": ref_note})


# --- Weibull: K_θ = 2^θ λ ------------------------------------------------------------------------------------------

WEIBULL_MC = dict(n=20_000, seed=20261127, theta=1, lam=1, rtol=0.05)


@check(statements=("dc.a3_1", "dc.def_a1"))
def weibull_orlicz_scale(claim: str = "2**theta*lam") -> CheckResult:
    """Notes §2-test step 1 (Def A.1(4), seed 004 L558–L580): for W ~ Weibull(shape 1/θ, scale λ), (W/λ)^{1/θ} ~ Exp(1)
    and E e^{sE} = 1/(1 − s) (sympy), so E exp((W/K)^{1/θ}) = 1/(1 − (λ/K)^{1/θ}) = 2 exactly at K = 2^θλ. The
    empirical Orlicz scale of a seeded Weibull sample (helper A's orlicz_k; n = 2·10⁴, θ = 1, λ = 1) is within 5 % of
    it where orlicz_k exists. ``claim`` is the closed form compared (in theta, lam)."""
    claimed = sp.sympify(claim, locals={"theta": th, "lam": lam})
    s = sp.Symbol("s", positive=True)
    mgf = sp.integrate(sp.exp(s * x) * sp.exp(-x), (x, 0, sp.oo), conds="none")
    ok_mgf = _zero(mgf - 1 / (1 - s))
    at_claim = sp.simplify((1 / (1 - (lam / claimed) ** (1 / th))).subs({}))
    ok_sym = _zero(sp.powsimp(sp.expand_power_base(at_claim, force=True), force=True) - 2)
    mc_note = "reference orlicz_k not available"
    ok_mc = True
    if available("orlicz_k"):
        rng = np.random.default_rng(WEIBULL_MC["seed"])
        w = WEIBULL_MC["lam"] * rng.weibull(1 / WEIBULL_MC["theta"], WEIBULL_MC["n"])
        k_hat = float(ref("orlicz_k")(w, WEIBULL_MC["theta"]))
        want = float(_num(claimed, {th: WEIBULL_MC["theta"], lam: WEIBULL_MC["lam"]}))
        ok_mc = abs(k_hat - want) <= WEIBULL_MC["rtol"] * want
        mc_note = {"orlicz_k": k_hat, "claim": want, **WEIBULL_MC}
    return CheckResult("weibull_orlicz_scale", bool(ok_mgf and ok_sym and ok_mc),
                       {"E e^{sE}": str(mgf), "E exp((W/K)^(1/theta)) at the claim": str(sp.simplify(at_claim)),
                        "Monte Carlo": mc_note})


# --- Claim C(3): the amplification algebra, p1437–p1447 -------------------------------------------------------------

AMP_DRAWS = dict(n=200_000, seed=20261127)


def _amp_lines(C, Cp, E, q_, eps, d):
    """The sides of seed 004 L1031–L1047 (paper p1437–p1447) at arrays (numpy): (LHS, line 1437, 1440, 1441, 1442,
    the p1447 right-hand side, the ratio it bounds)."""
    m = np.minimum(Cp, E)
    mix = q_ * Cp + (1 - q_) * E
    lhs = q_ * C + (1 - q_) * E - q_ * d
    l1437 = q_ * (np.exp(eps) * m + d) + (1 - q_) * E - q_ * d
    l1440 = q_ * (Cp + (np.exp(eps) - 1) * mix + d) + (1 - q_) * E - q_ * d
    l1441 = q_ * (Cp + (np.exp(eps) - 1) * mix + d) + (1 - q_) * E
    l1442 = (1 + q_ * (np.exp(eps) - 1)) * mix
    ratio = lhs / mix
    full = q_ * C + (1 - q_) * E
    p1447 = q_ * (np.exp(eps) - 1) * np.where(mix > 0, full / mix, 1.0)
    return lhs, l1437, l1440, l1441, l1442, p1447, ratio


@check(statements=("dc.claim_c3",))
def amplification_algebra(claim: str = "p1442") -> CheckResult:
    """Seed 004, Claim C(3)'s proof (L1026–L1047, paper p1437–p1447): from C ≤ e^ε min{C′, E} + δ (the base
    mechanism's (ε, δ)-DP), qC + (1 − q)E − qδ ≤ (1 + q(e^ε − 1))(qC′ + (1 − q)E) (line p1442): sympy shows line
    p1440 equals p1442 identically and p1437 ≤ p1440 follows from min{C′, E} ≤ C′ and ≤ qC′ + (1 − q)E; a seeded
    random search (2·10⁵ draws) finds no violation. Hence the (log(1 + q(e^ε − 1)), qδ) form, and the printed
    (q(e^ε − 1), qδ) since 1 + y ≤ e^y. The printed final line p1447 (ratio ≤ q(e^ε − 1)·P[M(D)]/P[M(D′)]) fails
    (violations up to ≈ 1), and the intermediate step p1441 → p1442 is off by +qδ (p1441 drops the −qδ; p1440 →
    p1442 holds directly). ``claim`` names the line whose universal validity is asserted: "p1442" (default),
    "p1447" or "p1441" (the last two are planted failures: the check then does not hold)."""
    Cs, Cps, Es = sp.symbols("C Cp E", nonnegative=True)
    mix = q * Cps + (1 - q) * Es
    s1440 = q * (Cps + (sp.exp(e_) - 1) * mix + dl) + (1 - q) * Es - q * dl
    s1442 = (1 + q * (sp.exp(e_) - 1)) * mix
    s1441 = s1440 + q * dl
    ok_identity = _zero(s1440 - s1442)
    gap_1441 = sp.simplify(s1441 - s1442)
    rng = np.random.default_rng(AMP_DRAWS["seed"])
    n = AMP_DRAWS["n"]
    Cp, E = rng.uniform(0, 1, n), rng.uniform(0, 1, n)
    eps, d, qq = rng.uniform(0, 10, n), rng.uniform(0, 0.2, n), rng.uniform(1e-3, 1, n)
    C = np.minimum(1.0, np.exp(eps) * np.minimum(Cp, E) + d) * rng.uniform(0, 1, n) ** 0.25
    lhs, l1437, l1440, l1441, l1442, p1447, ratio = _amp_lines(C, Cp, E, qq, eps, d)
    tol = 1e-12
    viol = {"p1437": float(np.max(lhs - l1437)), "p1440": float(np.max(l1437 - l1440)),
            "p1442": float(np.max(lhs - l1442)), "p1441->p1442": float(np.max(l1441 - l1442)),
            "p1447": float(np.max(ratio - p1447))}
    chain = viol["p1437"] <= tol and viol["p1440"] <= tol and viol["p1442"] <= tol
    # the final (ε′, δ′) forms: log(1 + q(e^ε − 1)) ≤ q(e^ε − 1)
    ok_forms = bool(np.all(np.log1p(qq * np.expm1(eps)) <= qq * np.expm1(eps) + tol))
    asserted = {"p1442": chain and ok_identity, "p1447": viol["p1447"] <= tol, "p1441": viol["p1441->p1442"] <= tol}
    if claim not in asserted:
        raise ValueError(f"claim = {claim!r}: one of {sorted(asserted)}")
    refuted = viol["p1447"] > 0.5 and viol["p1441->p1442"] > 0
    holds = asserted[claim] and ok_forms and (claim != "p1442" or refuted)
    return CheckResult("amplification_algebra", bool(holds),
                       {"p1440 == p1442 (sympy)": ok_identity, "p1441 - p1442": str(gap_1441),
                        "largest violations (2e5 seeded draws)": viol, "log1p form <= printed form": ok_forms,
                        "claim": claim})


# --- (28) from (27): c = 4K log^θ(√T) ------------------------------------------------------------------------------

EQ28_POINTS = (dict(delta="1e-5", d=10 ** 5, n=50000, eps=4, beta=1, B=256, m2=4),
               dict(delta=str(2 / mpmath.e), d=10 ** 5, n=50000, eps=4, beta=1, B=256, m2=4),
               dict(delta="0.5", d=10, n=10 ** 6, eps=8, beta=1, B=1, m2=1))


def _eq27_28():
    """Sympy forms of (27) with c² = 16K²L (L = log^{2θ}(√T)) and of (28) (seed 004 L1081–L1093), and the symbols."""
    dd, nn, be, BB, m2, LL, DL, Gm = sp.symbols("d n beta B m2 L DeltaL Gamma2", positive=True)
    l2, l1 = sp.log(2 / dl), sp.log(1 / dl)
    c2 = 16 * K ** 2 * LL
    ne = nn * e_
    r27 = (4 * DL + 2 * be * c2 + 8 * be * m2 * sp.E * sp.sqrt(dd) * c2 * BB ** 2 * l2 ** sp.Rational(3, 2) / ne
           + 8 * be * sp.sqrt(sp.E * m2) * dd ** sp.Rational(1, 4) * c2 * BB * sp.sqrt(l2) / sp.sqrt(ne)
           + 8 * sp.sqrt(sp.E * m2) * c2 * BB * sp.sqrt(l2) + 64 * dd ** sp.Rational(1, 4) * c2 * l1 ** sp.Rational(5, 4) / sp.sqrt(ne)
           + 8 * K ** 2 * Gm) / sp.sqrt(T_)
    r28 = (4 * DL / sp.sqrt(T_) + 8 * K ** 2 * Gm / sp.sqrt(T_)
           + 16 * K ** 2 * LL * l2 / sp.sqrt(T_) * (2 * be + 8 * be * m2 * sp.E * sp.sqrt(dd) * BB ** 2 * sp.sqrt(l2) / ne
                                                 + 8 * be * sp.sqrt(sp.E * m2) * dd ** sp.Rational(1, 4) * BB / (sp.sqrt(l2) * sp.sqrt(ne))
                                                 + 8 * sp.sqrt(sp.E * m2) * BB / sp.sqrt(l2)
                                                 + 64 * dd ** sp.Rational(1, 4) * l1 ** sp.Rational(1, 4) / sp.sqrt(ne)))
    gap = 16 * K ** 2 * LL / sp.sqrt(T_) * (2 * be * (l2 - 1) + 64 * dd ** sp.Rational(1, 4) * (l2 * l1 ** sp.Rational(1, 4) - l1 ** sp.Rational(5, 4)) / sp.sqrt(ne))
    return r27, r28, gap, dict(d=dd, n=nn, beta=be, B=BB, m2=m2, L=LL, DeltaL=DL, Gamma2=Gm)


@check(statements=("dc.thm_b1_eq28", "dc.thm_b1"))
def eq28_from_eq27(points: tuple = EQ28_POINTS) -> CheckResult:
    """Seed 004, Thm B.1 proof (L1081–L1093): substituting c = 4K log^θ(√T) into (27) and factoring
    16K² log^{2θ}(√T) log(2/δ) gives (28) up to the difference (28) − (27) = (16K² log^{2θ}(√T)/√T)·[2β(log(2/δ) − 1)
    + 64d^{1/4}(log(2/δ)log^{1/4}(1/δ) − log^{5/4}(1/δ))/√(nε)] (sympy, exact). The second bracket term is ≥ 0 for
    every δ; the first needs log(2/δ) ≥ 1, i.e. δ ≤ 2/e, which the text never states (erratum dc.E18; spec condition
    delta_at_most_2_over_e). At each of ``points`` (K = 1, T = 9766, θ = 1, ΔL = 1) the check asserts (28) ≥ (27);
    a point with δ > 2/e and large nε (e.g. δ = 0.9, n = 10⁶, ε = 8, d = 10) is a planted failure."""
    r27, r28, gap, S = _eq27_28()
    ok_gap = _zero(r28 - r27 - gap)
    values = {}
    ok_points = True
    with mp.workdps(30):
        for pt in points:
            subs = {K: 1, T_: 9766, S["L"]: mpmath.log(mpmath.sqrt(9766)) ** 2, S["DeltaL"]: 1, S["Gamma2"]: 2,
                    dl: mpf(pt["delta"]), S["d"]: pt["d"], S["n"]: pt["n"], e_: pt["eps"], S["beta"]: pt["beta"],
                    S["B"]: pt["B"], S["m2"]: pt["m2"]}
            v27, v28 = _num(r27, subs), _num(r28, subs)
            values[f"delta={pt['delta'][:8]}, d={pt['d']}, n={pt['n']}, eps={pt['eps']}"] = [mpmath.nstr(v27, 8), mpmath.nstr(v28, 8)]
            ok_points = ok_points and v28 >= v27
    return CheckResult("eq28_from_eq27", bool(ok_gap and ok_points),
                       {"(28) - (27) == gap (sympy)": ok_gap, "gap": str(gap), "[(27), (28)] per point": values})


# --- (67)/(68) from (66) ---------------------------------------------------------------------------------------------

@check(statements=("dc.thm_e1_eq67", "dc.thm_e1_eq68", "dc.thm_e1"))
def eq67_eq68_constants(claim: str = "corrected") -> CheckResult:
    """Seed 004, Thm E.1 proof (L1714–L1760, eqs. (64)–(68)): (66) bounds ¼Σ_t η_t‖∇L_S‖² with the term Eq.10 =
    2aK²Σ_t η_t exp(−(c/(2√(2a)K))²) (body) or 4^{2θ}K²Σ_t η_t exp(−¼(c/(2K))^{1/θ}) (tail). Sympy: each exponential
    equals 1/√T exactly at c2 = 2√(2a)K log^{1/2}(√T), resp. c1 = 4^θ·2K log^θ(√T); with η_t = 1/√T the term is then
    2aK², resp. 4^{2θ}K²; multiplying (66) by 4 and by 1/√T gives the constants 8aK²/√T (67) and 4^{2θ+1}K²/√T (68),
    and the c²-prefactors c2² = 8aK² log(√T), c1² = 4^{2θ+1}K² log^{2θ}(√T). The print has 2aK²/√T in both and
    4^{2θ+1}log^{2θ}(√T) without K² in (68) (erratum dc.E17). ``claim`` = "corrected" (default) or "printed"
    (the printed constants are compared with the derivation: a planted failure)."""
    Lh = sp.log(sp.sqrt(T_))
    c2 = 2 * sp.sqrt(2 * a_) * K * sp.sqrt(Lh)
    c1 = 4 ** th * 2 * K * Lh ** th
    ok_exp = (_zero(sp.simplify(sp.exp(-(c2 / (2 * sp.sqrt(2 * a_) * K)) ** 2) - 1 / sp.sqrt(T_)))
              and _zero(sp.powdenest(sp.expand_power_base((c1 / (2 * K)) ** (1 / th) / 4 - Lh, force=True), force=True)))
    eta_sum = T_ * (1 / sp.sqrt(T_))  # Σ_t η_t with η_t = 1/√T
    body_term = 2 * a_ * K ** 2 * eta_sum / sp.sqrt(T_)  # Eq.10 with exp = 1/√T
    tail_term = 4 ** (2 * th) * K ** 2 * eta_sum / sp.sqrt(T_)
    derived = {"(67) constant": sp.simplify(4 * body_term / sp.sqrt(T_)),
               "(68) constant": sp.simplify(4 * tail_term / sp.sqrt(T_)),
               "(67) prefactor": sp.expand(c2 ** 2), "(68) prefactor": sp.simplify(c1 ** 2)}
    forms = {
        "corrected": {"(67) constant": 8 * a_ * K ** 2 / sp.sqrt(T_), "(68) constant": 4 ** (2 * th + 1) * K ** 2 / sp.sqrt(T_),
                      "(67) prefactor": 8 * a_ * K ** 2 * Lh, "(68) prefactor": 4 ** (2 * th + 1) * K ** 2 * Lh ** (2 * th)},
        "printed": {"(67) constant": 2 * a_ * K ** 2 / sp.sqrt(T_), "(68) constant": 2 * a_ * K ** 2 / sp.sqrt(T_),
                    "(67) prefactor": 8 * a_ * K ** 2 * Lh, "(68) prefactor": 4 ** (2 * th + 1) * Lh ** (2 * th)},
    }
    if claim not in forms:
        raise ValueError(f"claim = {claim!r}: one of {sorted(forms)}")
    agree = {k: _zero(sp.powsimp(sp.expand_power_base(derived[k] - forms[claim][k], force=True), force=True))
             for k in derived}
    printed_differs = {k: not _zero(sp.powsimp(sp.expand_power_base(derived[k] - forms["printed"][k], force=True), force=True))
                       for k in derived}
    holds = ok_exp and all(agree.values())
    return CheckResult("eq67_eq68_constants", bool(holds),
                       {"thresholds give exp(...) = 1/sqrt(T)": ok_exp, "derived": {k: str(v) for k, v in derived.items()},
                        "agrees with the claim": agree, "printed differs": printed_differs, "claim": claim})


# --- c1 = c2 at θ = 1/2 ---------------------------------------------------------------------------------------------

@check(statements=("dc.thm5_3", "dc.thm_e1"))
def thresholds_equal_at_half(theta=sp.Rational(1, 2)) -> CheckResult:
    """Seed 004, Thm 5.3 (L226–L242) / E.1: at θ = 1/2 (sub-Gaussian, a(1/2) = 2) the body threshold
    c2 = max(2√(2a)K log^{1/2}(√T), 33√(2a)K log^{1/2}(2/δ)) and the tail threshold c1 = max(4^θ·2K log^θ(√T),
    4^θ·33K log^θ(2/δ)) coincide term by term: 4K log^{1/2}(√T) and 66K log^{1/2}(2/δ) (sympy), as a method that
    reduces to DP-SGD for light tails must; a(1/2) from helper A's freedman_a where it exists, else the closed form
    (and both where both exist). ``theta`` other than 1/2 (a planted failure, e.g. 1) gives c1 ≠ c2."""
    theta = sp.nsimplify(theta)
    a_ind = freedman_a_independent(mpf(str(sp.N(theta, 30))))
    a_note = "freedman_a not available"
    if available("freedman_a"):
        a_ref = ref("freedman_a")(mpf(str(sp.N(theta, 30))))
        a_note = {"freedman_a": mpmath.nstr(a_ref, 12), "agrees": close(a_ref, a_ind, "1e-20")}
        if not close(a_ref, a_ind, "1e-20"):
            return CheckResult("thresholds_equal_at_half", False, {"a(theta)": a_note, "independent": mpmath.nstr(a_ind, 12)})
    a_val = sp.nsimplify(sp.Float(mpmath.nstr(a_ind, 40), 40), rational=False) if theta != sp.Rational(1, 2) else sp.Integer(2)
    Lh, L2 = sp.log(sp.sqrt(T_)), sp.log(2 / dl)
    t_body, t_tail = 2 * sp.sqrt(2 * a_val) * K * sp.sqrt(Lh), 4 ** theta * 2 * K * Lh ** theta
    d_body, d_tail = 33 * sp.sqrt(2 * a_val) * K * sp.sqrt(L2), 4 ** theta * 33 * K * L2 ** theta
    eq_t, eq_d = _zero(t_body - t_tail), _zero(d_body - d_tail)
    return CheckResult("thresholds_equal_at_half", bool(eq_t and eq_d),
                       {"theta": str(theta), "a(theta)": a_note, "T-terms": [str(t_body), str(t_tail)],
                        "delta-terms": [str(d_body), str(d_tail)], "equal": [eq_t, eq_d]})


# --- Lemma A.4's e^r − r − 1 ≤ r² -------------------------------------------------------------------------------------

@check(statements=("dc.lemma_a4",))
def lemma_a4_exp_bound(r_max=1) -> CheckResult:
    """Seed 004, Lemma A.4 (L634–L640; Zhang 2005) uses e^r − r − 1 ≤ r² for r ∈ (0, ρ], ρ ≤ 1. With f(r) = r² − e^r
    + r + 1: f(0) = f′(0) = 0 and f‴ = −e^r < 0, so f′ is concave and f′ ≥ 0 on [0, r_max] iff f′(r_max) ≥ 0; then f
    is non-decreasing and f ≥ 0 there (sympy for the derivatives, exact sign of f′(r_max)); a 10⁴-point grid agrees.
    f′(1) = 3 − e > 0. ``r_max`` = 2 (f′(2) = 5 − e² < 0, f(2) = 7 − e² < 0) is a planted failure."""
    rr = sp.Symbol("r", real=True)
    f = rr ** 2 - sp.exp(rr) + rr + 1
    f1, f3 = sp.diff(f, rr), sp.diff(f, rr, 3)
    rm = sp.nsimplify(r_max)
    ok_structure = _zero(f.subs(rr, 0)) and _zero(f1.subs(rr, 0)) and _zero(f3 + sp.exp(rr))
    slope_end = f1.subs(rr, rm)
    ok_end = bool(slope_end >= 0)
    grid = np.linspace(1e-9, float(rm), 10_001)
    ok_grid = bool(np.all(np.expm1(grid) - grid <= grid ** 2 + 1e-15))
    return CheckResult("lemma_a4_exp_bound", bool(ok_structure and ok_end and ok_grid),
                       {"f'(r_max)": str(slope_end), "f'(r_max) >= 0": ok_end, "grid": ok_grid, "r_max": str(rm)})


# --- Thm 5.2 (49): |‖a‖² − ‖b‖²| ------------------------------------------------------------------------------------

@check(statements=("dc.thm5_2",))
def eq49_square_difference(form: str = "corrected") -> CheckResult:
    """Seed 004, Thm 5.2 proof step (49) (L1073): |‖a‖² − ‖b‖²| = |⟨a − b, a + b⟩| ≤ ‖a − b‖·‖a + b‖ (sympy identity
    in 3-D, Cauchy–Schwarz; a seeded search over 10⁴ random pairs); with a = Mĝ, b = M̂ĝ, ‖ĝ‖ = 1 and ‖M‖, ‖M̂‖ ≤ 1
    this is ≤ 2‖M − M̂‖. The printed (49) |‖a‖² − ‖b‖²| ≤ ‖a − b‖² is false: a = 1.1u, b = u gives 0.21 > 0.01
    (erratum dc.E5). ``form`` = "corrected" (default) or "printed" (a planted failure)."""
    av, bv = sp.symbols("a1:4", real=True), sp.symbols("b1:4", real=True)
    na2, nb2 = sum(v ** 2 for v in av), sum(v ** 2 for v in bv)
    inner = sum((ai - bi) * (ai + bi) for ai, bi in zip(av, bv))
    ok_identity = _zero(na2 - nb2 - inner)
    rng = np.random.default_rng(20261127)
    A, B = rng.normal(size=(10_000, 3)), rng.normal(size=(10_000, 3))
    B = A + rng.uniform(0, 2, (10_000, 1)) * B
    lhs = np.abs((A ** 2).sum(1) - (B ** 2).sum(1))
    bounds = {"corrected": np.linalg.norm(A - B, axis=1) * np.linalg.norm(A + B, axis=1),
              "printed": np.linalg.norm(A - B, axis=1) ** 2}
    if form not in bounds:
        raise ValueError(f"form = {form!r}: one of {sorted(bounds)}")
    ok_search = bool(np.all(lhs <= bounds[form] * (1 + 1e-12) + 1e-12))
    uvec = np.array([1.0, 0.0, 0.0])
    a, b = 1.1 * uvec, uvec
    example = {"|a|^2-|b|^2": float(abs(a @ a - b @ b)), "|a-b|^2": float((a - b) @ (a - b)),
               "|a-b||a+b|": float(np.linalg.norm(a - b) * np.linalg.norm(a + b))}
    ok_example = example["|a|^2-|b|^2"] <= (example["|a-b||a+b|"] if form == "corrected" else example["|a-b|^2"]) + 1e-12
    return CheckResult("eq49_square_difference", bool(ok_identity and ok_search and ok_example),
                       {"identity (sympy)": ok_identity, "search (1e4 seeded pairs)": ok_search,
                        "a = 1.1u, b = u": example, "form": form})


# --- (41): the 4.6x division slip -----------------------------------------------------------------------------------

@check(statements=("dc.thm_b1_eq41", "dc.thm_b1"))
def eq41_coefficient(divisor=None) -> CheckResult:
    """Seed 004, Thm B.1 proof (40)–(41) (L836–L846): the coefficient of Σ_t η_t‖∇L_S‖ in (40) is c/3 − (19/3)K L₂ −
    4√e σ̂ L₁ (L₂ = log^{1/2}(2/δ), L₁ = log^{1/2}(1/δ)). With c = 39K L₂, K ≥ σ̂ and L₁ < L₂ it is ≥ (20/3 − 4√e)K L₂
    = 0.0718·K L₂ (sympy, exact), and no larger bound holds uniformly (σ̂ = K, δ → 0 approaches it). (41) divides
    by (1/3)K L₂ instead: an error of the factor (1/3)/(20/3 − 4√e) = 4.64 (erratum dc.E15). ``divisor`` (a
    multiple of K L₂) is the one asserted valid: the default is the derived 20/3 − 4√e; 1/3 (the printed) is a
    planted failure."""
    lower = sp.Rational(20, 3) - 4 * sp.sqrt(sp.E)
    coeff = sp.Rational(39, 3) - sp.Rational(19, 3) - 4 * sp.sqrt(sp.E) * x  # x = (σ̂/K)(L₁/L₂) ∈ (0, 1]
    inf_coeff = sp.limit(coeff, x, 1)
    ok_lower = _zero(inf_coeff - lower) and bool(lower > 0)
    div = lower if divisor is None else sp.nsimplify(divisor)
    valid = bool(sp.N(div - inf_coeff, 30) <= 0)
    factor = sp.N(sp.Rational(1, 3) / lower, 12)
    return CheckResult("eq41_coefficient", bool(ok_lower and valid),
                       {"coefficient lower bound (x K L2)": str(sp.N(lower, 8)), "printed divisor": "1/3",
                        "slip factor": str(factor), "divisor asserted": str(div), "valid": valid})
