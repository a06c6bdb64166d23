"""Counting proof checks of seed 002 (notes shared/notes/batch-clipping-fdp.md §8.3): the F.4 ratio q_{k+1}/q_k and
the bounds derived from it (F.4, Lemma F.7), the F.1 q_k (normalisation and enumeration), Vandermonde for the
Bose–Einstein q_j of G.3, the true occupancy law of shuffling, and the G.2 counting bound. Exact integers and
fractions throughout; sympy where an identity is symbolic in a parameter.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb, prod

import mpmath
import sympy as sp
from mpmath import mp, mpf

from ..checks import CheckResult, check
from . import _exact as X


@check(statements=("bc.lemma_f7",))
def f4_ratio_and_bounds() -> CheckResult:
    """F.4: with q_k = C(N−g, m−k) C(g, k)/C(N, m) (eq. (21)), q_{k+1}/q_k = (m−k)(g−k)/((N−g−m+k+1)(k+1)) (sympy,
    symbolic N, m, g, k); then, exhaustively for N ≤ 30 with N > g + m: the ratio is ≤ (g/(N−g−m))(m−k)/(k+1),
    q_1 ≤ gm/N ≤ (g/(N−g−m))m, and q_k ≤ (g/(N−g−m))^k C(m, k)."""
    N, m, g, k = sp.symbols("N m g k", positive=True, integer=True)
    q = lambda kk: sp.binomial(N - g, m - kk) * sp.binomial(g, kk) / sp.binomial(N, m)
    ratio = sp.combsimp(sp.gammasimp(q(k + 1) / q(k)))
    printed = (m - k) * (g - k) / ((N - g - m + k + 1) * (k + 1))
    symbolic_ok = sp.simplify(sp.gammasimp(ratio / printed)) == 1
    bad = []
    count = 0
    for NN in range(3, 31):
        for mm in range(1, NN):
            for gg in range(1, NN - mm):
                qs = X.hypergeometric_q(NN, mm, gg)
                c = Fraction(gg, NN - gg - mm)
                count += 1
                for kk in range(len(qs) - 1):
                    if qs[kk] and qs[kk + 1] / qs[kk] > c * Fraction(mm - kk, kk + 1):
                        bad.append(("ratio", NN, mm, gg, kk))
                if len(qs) > 1 and not (qs[1] <= Fraction(gg * mm, NN) <= c * mm):
                    bad.append(("q1", NN, mm, gg))
                bad += [("qk", NN, mm, gg, kk) for kk in range(len(qs)) if qs[kk] > c ** kk * comb(mm, kk)]
    return CheckResult("f4_ratio_and_bounds", bool(symbolic_ok and not bad),
                       {"ratio": str(ratio), "cases": count, "violations": bad[:5]})


@check(statements=("bc.lemma_f7", "bc.lemma_f7_eps"))
def f7_tail_bound_holds() -> CheckResult:
    """Lemma F.7 (from F.4): the exact tail P(c² > c_L²), c_L² = β min{m,g} g E, β = e^{N/(N−g−m)} + γ, of IC with SS
    is ≤ l = e^{−γgE}, at (N, m, g, E, γ) = (1000, 10, 2, 10, 1/2) (trinomial law of c² over T = EN/m rounds,
    mpmath 30 digits; notes §5.4: the exact tail is far below, ~1e-14)."""
    N, m, g, E, gamma = 1000, 10, 2, 10, mpf(1) / 2
    with mp.workdps(30):
        q = X.hypergeometric_q(N, m, g)
        support, pmf, dropped = X.trinomial_law(E * N // m, mpf(q[1].numerator) / q[1].denominator,
                                                mpf(q[2].numerator) / q[2].denominator)
        beta = mpmath.exp(mpf(N) / (N - g - m)) + gamma
        cut = beta * min(m, g) * g * E
        tail = mpmath.fsum(p for c, p in zip(support, pmf) if c > cut) + dropped
        bound = mpmath.exp(-gamma * g * E)
    return CheckResult("f7_tail_bound_holds", bool(tail <= bound),
                       {"c_L^2": mpmath.nstr(cut, 8), "exact tail": mpmath.nstr(tail, 5), "l": mpmath.nstr(bound, 5)})


F1_CASES = ((6, 2, 2, 2), (7, 2, 2, 3), (6, 3, 2, 2), (7, 2, 3, 2), (6, 2, 3, 3), (5, 1, 3, 2))


@check(statements=("bc.def4_1",))
def f1_qk_matches_enumeration() -> CheckResult:
    """F.1 (general s, typos corrected: s − k′_h, k′_h ≠ 0): q_k sums to 1 and equals the law of L obtained by
    enumerating every ordered draw of ms distinct indices split into m consecutive subsets of s (small (N, m, s, g));
    at m = 1 it equals 1 − C(N−g, s)/C(N, s) (F.5); at s = 1 it equals eq. (21). Exact fractions."""
    rows = {}
    for case in F1_CASES:
        formula, brute = X.f1_q(*case), X.round_q_brute_force(*case)
        rows[str(case)] = (formula == brute and sum(formula) == 1, [str(v) for v in formula])
    bc_ok = all(X.f1_q(N, 1, s, g)[1] == 1 - Fraction(comb(N - g, s), comb(N, s))
                for N, s, g in ((10, 3, 2), (12, 4, 3), (9, 2, 1)))
    ic_ok = all(X.f1_q(N, m, 1, g) == X.hypergeometric_q(N, m, g) for N, m, g in ((10, 3, 2), (12, 4, 3), (9, 2, 4)))
    ok = all(v[0] for v in rows.values()) and bc_ok and ic_ok
    return CheckResult("f1_qk_matches_enumeration", bool(ok),
                       {"cases": {k: v[1] for k, v in rows.items()}, "m=1 (F.5)": bc_ok, "s=1 (eq. 21)": ic_ok})


@check(statements=("bc.g3_bose_einstein",))
def bose_einstein_vandermonde() -> CheckResult:
    """G.3: Σ_{j=1}^{g} C(B, j) C(g−1, j−1) = C(B + g − 1, g) (Vandermonde), so the printed q_j sum to 1: symbolic in
    B for g = 1..6 (sympy, binomials expanded as polynomials in B) and exhaustively for B ≤ 40, g ≤ 12."""
    B = sp.Symbol("B")
    symbolic = {}
    for g in range(1, 7):
        lhs = sum(sp.expand_func(sp.binomial(B, j)) * sp.binomial(g - 1, j - 1) for j in range(1, g + 1))
        rhs = sp.expand_func(sp.binomial(B + g - 1, g))
        symbolic[g] = sp.expand(lhs - rhs) == 0
    exhaustive = all(sum(X.occupancy_bose_einstein(b, g)) == 1 for b in range(1, 41) for g in range(1, 13))
    return CheckResult("bose_einstein_vandermonde", bool(all(symbolic.values()) and exhaustive),
                       {"symbolic g=1..6": all(symbolic.values()), "exhaustive B<=40, g<=12": exhaustive})


@check(statements=("bc.lemma_g4", "bc.g3_bose_einstein"))
def true_occupancy_law_matches_enumeration() -> CheckResult:
    """The law of J (distinct batches hit by g samples under a uniform permutation, BC with shuffling; notes §3.2):
    C(B, j) Σ_i (−1)^i C(j, i) C((j−i)s, g)/C(N, g) equals enumeration of all g-subsets of the N = Bs positions for
    small (B, s, g), sums to 1, and differs from the printed Bose–Einstein q_j whenever g ≥ 2 and B ≥ 2."""
    cases = ((4, 2, 2), (4, 2, 3), (3, 3, 3), (5, 2, 4), (6, 3, 2))
    rows = {str(c): (X.occupancy_true(*c) == X.occupancy_brute_force(*c) and sum(X.occupancy_true(*c)) == 1,
                     X.occupancy_true(*c) != X.occupancy_bose_einstein(c[0], c[2])) for c in cases}
    ok = all(a and b for a, b in rows.values())
    return CheckResult("true_occupancy_law_matches_enumeration", bool(ok),
                       {k: {"equals enumeration": a, "differs from BE": b} for k, (a, b) in rows.items()})


def _distinct_rounds_brute_force(N: int, ms: int, g: int) -> Fraction:
    import itertools

    hits = total = 0
    for pos in itertools.combinations(range(N), g):
        total += 1
        hits += len({p // ms for p in pos}) == g
    return Fraction(hits, total)


@check(statements=("bc.lemma_g3", "bc.lemma_g2"))
def g2_counting_bound() -> CheckResult:
    """G.2: P(the g samples fall into g distinct rounds of one epoch) = Π_{i<g} (N − i·ms)/(N − i) (equal to
    enumeration for small N) satisfies the printed chain ≥ C(N − gms + g, g)/C(N, g) ≥ ((N − gms + 1)/(N − g + 1))^g
    ≥ 1 − g²(ms−1)/(N−g+1) ≥ 1 − g²ms/(N−g), the Bernoulli step under g(ms−1)/(N−g+1) ≤ 1 (exhaustive: N ≤ 240,
    ms | N, g ≤ 6, exact fractions)."""
    brute_ok = all(prod(Fraction(N - i * ms, N - i) for i in range(g)) == _distinct_rounds_brute_force(N, ms, g)
                   for N, ms, g in ((12, 3, 2), (12, 4, 3), (12, 2, 4), (10, 5, 2)))
    bad, count = [], 0
    for N in range(2, 241):
        for ms in (d for d in range(1, N + 1) if N % d == 0):
            for g in range(1, min(6, N // ms) + 1):
                if g * (ms - 1) > N - g + 1 or N == g:
                    continue
                count += 1
                exact = prod(Fraction(N - i * ms, N - i) for i in range(g))
                chain = [exact, Fraction(comb(N - g * ms + g, g), comb(N, g)),
                         Fraction(N - g * ms + 1, N - g + 1) ** g, 1 - Fraction(g * g * (ms - 1), N - g + 1),
                         1 - Fraction(g * g * ms, N - g)]
                if any(a < b for a, b in zip(chain, chain[1:])):
                    bad.append((N, ms, g))
    return CheckResult("g2_counting_bound", bool(brute_ok and not bad),
                       {"enumeration": brute_ok, "cases": count, "violations": bad[:5]})
