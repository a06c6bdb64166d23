"""Profiles by conjugation ([2] Prop 2.12: δ_f(ε) = sup_α 1 − f(α) − e^ε α for a symmetric f, ε ≥ 0) against the
closed forms the bc errata use (notes shared/notes/batch-clipping-fdp.md §2.4–§2.6): the A1 mixture's δ is the
q_E-weighted sum of δ_{G_{c/σ}} (Def. 4.2, with a c = 0 atom), fU's δ is (1−u)δ_{G_μ}(ε − ln(1−u)) (Def. 4.3), fL's
is l + δ_{G_μ}(ε) or 1 − β(1 + e^ε) (Def. 4.4). The sup is found by golden-section search on the concave objective
(mpmath, 20 digits; for fU on each of f̂U and f̂U^{-1}, whose minimum has the same conjugate as its convex hull)."""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from ..checks import CheckResult, check
from . import _exact as X

EPS_GRID = (0, "0.5", 2)


def sup_concave(obj, lo=0, hi=1, iters=60):
    """max of a concave ``obj`` on [lo, hi] (golden section)."""
    lo, hi = mpf(lo), mpf(hi)
    g = (mpf(5) ** mpf("0.5") - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = obj(a), obj(b)
    for _ in range(iters):
        if fa >= fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = obj(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = obj(b)
    return max(fa, fb, obj(mpf(lo)), obj(mpf(hi)))


def _profile(f, eps, lo=0, hi=1):
    e = mpmath.exp(mpf(eps))
    return sup_concave(lambda a: 1 - f(a) - e * a, lo, hi)


@check(statements=("bc.a1_profile", "bc.def4_2"))
def mixture_profile_is_weighted_sum() -> CheckResult:
    """Def. 4.2 (notes §2.4): for the law c² ∈ {0, 1, 4, 9} with q = (0.1, 0.4, 0.3, 0.2) (a c = 0 atom included) and
    σ = 1.5, sup_α 1 − f(α) − e^ε α of the Lagrange-form f equals Σ_c q(c) δ_{G_{c/σ}}(ε) at ε ∈ {0, 0.5, 2}."""
    support, pmf, sigma = (0, 1, 4, 9), tuple(mpf(x) for x in ("0.1", "0.4", "0.3", "0.2")), mpf("1.5")
    rows = {}
    with mp.workdps(20):
        for eps in EPS_GRID:
            rows[str(eps)] = (_profile(lambda a: X.mixture_tradeoff(support, pmf, sigma, a), eps),
                              X.mixture_delta(support, pmf, sigma, eps))
    ok = all(abs(a - b) < mpf(10) ** -12 for a, b in rows.values())
    return CheckResult("mixture_profile_is_weighted_sum", bool(ok),
                       {e: [mpmath.nstr(a, 12), mpmath.nstr(b, 12)] for e, (a, b) in rows.items()})


@check(statements=("bc.def4_3", "bc.def4_3_profile"))
def fu_profile_closed_form() -> CheckResult:
    """Def. 4.3 (notes §2.5): δ of fU = min{f̂U, f̂U^{-1}}** is max of the sups for f̂U = u + (1−u)G_μ and
    f̂U^{-1} = min{1, G_μ((α−u)/(1−u))}, and equals (1−u)δ_{G_μ}(ε − ln(1−u)) (μ = 2, u = 0.05 and μ = 1, u = 0.3;
    notes §5.2: δ(0, 1) = 0.6407774, 0.4755133 at the first)."""
    rows, ok = {}, True
    with mp.workdps(20):
        for mu, u in ((mpf(2), mpf("0.05")), (mpf(1), mpf("0.3"))):
            f_hat = lambda a: u + (1 - u) * X.g_tradeoff(a, mu)
            f_inv = lambda a: X.g_tradeoff((a - u) / (1 - u), mu) if a > u else mpf(1)
            for eps in EPS_GRID:
                conj = max(_profile(f_hat, eps), _profile(f_inv, eps, u, 1))
                closed = X.fu_hat_delta(eps, mu, u)
                ok &= abs(conj - closed) < mpf(10) ** -12
                rows[f"mu={mu}, u={u}, eps={eps}"] = [mpmath.nstr(conj, 12), mpmath.nstr(closed, 12)]
        ok &= abs(X.fu_hat_delta(1, 2, "0.05") - mpf("0.4755133")) < mpf("5e-8")
    return CheckResult("fu_profile_closed_form", bool(ok), rows)


@check(statements=("bc.def4_4", "bc.def4_4_profile"))
def fl_profile_closed_form() -> CheckResult:
    """Def. 4.4 (notes §2.6): δ of fL = max{G_μ(α) − l, G_μ(min{1, α + l})} (convex) equals the closed form
    l + δ_{G_μ}(ε) for e^ε ≥ s_β, else 1 − β(1 + e^ε) (μ = 2, l = 0.05 and μ = 1, l = 0.3)."""
    rows, ok = {}, True
    with mp.workdps(20):
        for mu, l in ((mpf(2), mpf("0.05")), (mpf(1), mpf("0.3"))):
            beta = X.fl_beta(mu, l)
            f_l = lambda a: max(X.g_tradeoff(a, mu) - l, X.g_tradeoff(min(mpf(1), a + l), mu))
            for eps in EPS_GRID:
                conj = _profile(f_l, eps, 0, 1 - l)
                closed = X.fl_delta(eps, mu, l, beta)
                ok &= abs(conj - closed) < mpf(10) ** -12
                rows[f"mu={mu}, l={l}, eps={eps}"] = [mpmath.nstr(conj, 12), mpmath.nstr(closed, 12)]
    return CheckResult("fl_profile_closed_form", bool(ok), rows)
