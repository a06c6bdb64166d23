"""Exact computations behind the seed-002 errata and proof checks (``bc.E*``, ``bc.*`` checks), written
independently of the reference's ``bc`` evaluators so that a demonstration *recomputes* its evidence.

Units (notes shared/notes/batch-clipping-fdp.md, "Notation"): one round with k differentiating subsets is G_{k/σ};
c² = Σ_rounds k_r²; q_E is the law of c² (seed 002, Def. 4.1). A law is a pair of equal-length tuples
(support: ascending Python ints c², pmf: mpf or Fraction), plus the mass a builder left out (``dropped``).

Everything runs at the current mpmath precision (the callers set 30 digits). δ_{G_μ}(ε) is evaluated from its
closed form (seed 002 eq. (7)) with erfc at that precision (:func:`delta_g`); this is ~8× faster than the
log-space, self-checked ``base.gdp_profile``, which is needed for the ~10⁴ evaluations of an ε(δ) of a mixture with a
few hundred atoms; tests/bc/test_bc_errata.py (test_delta_g_matches_base_gdp_profile) checks the two against each
other.
"""
from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import mpmath
from mpmath import mpf

from dpspec.reference._normal import ndtr, ndtri_upper
from dpspec.reference._solve import root

SEED = "002_5bf9d068e79d7537.txt"


# ---------------------------------------------------------------------------------------------------------------
# Gaussian trade-off function and its profile

def g_tradeoff(alpha, mu):
    """G_μ(α) = Φ(Φ^{-1}(1−α) − μ) (seed 002 §3; Dong, Roth & Su 2022, Def. 2.7); G_0(α) = 1 − α."""
    alpha = mpf(alpha)
    if alpha <= 0:
        return mpf(1)
    if alpha >= 1:
        return mpf(0)
    return ndtr(ndtri_upper(alpha) - mpf(mu))


def delta_g(eps, mu):
    """δ_{G_μ}(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (seed 002 eq. (7)) for ε ≥ 0; 0 at μ = 0."""
    eps, mu = mpf(eps), mpf(mu)
    if mu == 0:
        return mpf(0)
    r2 = mpmath.sqrt(2)
    value = (mpmath.erfc((eps / mu - mu / 2) / r2) - mpmath.exp(eps) * mpmath.erfc((eps / mu + mu / 2) / r2)) / 2
    return max(value, mpf(0))


def bisect_decreasing(fn, target, lo, hi, rel=mpf(10) ** -12):
    """The x in [lo, hi] with fn(x) = target for a positive, non-increasing fn: the project's bracketed root
    (reference/_solve.py ``root``, Illinois steps) on log fn(x) − log target, to ``rel`` relative; ValueError when
    [lo, hi] does not bracket the target (fn(lo) ≥ target ≥ fn(hi))."""
    lo, hi, target = mpf(lo), mpf(hi), mpf(target)
    log_target = mpmath.log(target)
    g = lambda x: (lambda v: mpmath.log(v) - log_target if v > 0 else -mpmath.inf)(fn(x))  # noqa: E731
    if not (g(lo) >= 0 >= g(hi)):
        raise ValueError(f"target {mpmath.nstr(target, 6)} not bracketed by [{mpmath.nstr(lo, 6)}, "
                         f"{mpmath.nstr(hi, 6)}]")
    return root(g, lo, hi, abs_tol=rel * max(abs(hi), 1))


def eps_g(delta, mu, hi=mpf(10) ** 4):
    """ε of G_μ at δ: the root of δ_{G_μ}(ε) = δ (δ_{G_μ} decreases in ε)."""
    return bisect_decreasing(lambda e: delta_g(e, mu), mpf(delta), 0, hi)


# ---------------------------------------------------------------------------------------------------------------
# Laws of c² and the label-visible Gaussian mixture (seed 002 Def. 4.2, Lemma C.5; notes §3.2, §4.3)

def binomial_law(n: int, p, cut=mpf(10) ** -60):
    """Bin(n, p) as a law of c² (SS with g = 1: c² = #rounds containing the differentiating sample, seed 002 F.2;
    BC: F.5). Atoms below ``cut`` above the mode are dropped; their total is returned (``dropped``, to be counted
    at c² = +∞ by a caller that needs a bound). Returns (support, pmf, dropped)."""
    p = mpf(p)
    pmf, support = [], []
    term = (1 - p) ** n
    ratio = p / (1 - p)
    for k in range(n + 1):
        if k > n * p and term < cut:
            break
        support.append(k)
        pmf.append(term)
        term = term * (n - k) / (k + 1) * ratio
    dropped = max(mpf(0), 1 - mpmath.fsum(pmf))
    return tuple(support), tuple(pmf), dropped


def trimmed(law, keep_above):
    """Drop the atoms whose mass is below ``keep_above`` (a component of mass q changes δ by at most q); returns
    (support, pmf, dropped_mass)."""
    support, pmf = law[0], law[1]
    keep = [(c, q) for c, q in zip(support, pmf) if q >= keep_above]
    dropped = mpmath.fsum(q for q in pmf if q < keep_above)
    return tuple(c for c, _ in keep), tuple(q for _, q in keep), dropped


def mixture_delta(support, pmf, sigma, eps):
    """δ(ε) = Σ_c q(c) δ_{G_{c/σ}}(ε) of the label-visible mixture (notes §2.4, §3.2; ε ≥ 0)."""
    sigma = mpf(sigma)
    return mpmath.fsum(mpf(q) * delta_g(eps, mpmath.sqrt(c2) / sigma) for c2, q in zip(support, pmf) if c2 > 0)


def mixture_epsilon(support, pmf, sigma, delta, hi=mpf(500)):
    """ε(δ) of the mixture: the root of Σ_c q(c) δ_{G_{c/σ}}(ε) = δ (bisection to 1e-12 relative)."""
    return bisect_decreasing(lambda e: mixture_delta(support, pmf, sigma, e), mpf(delta), 0, hi)


def mixture_tradeoff(support, pmf, sigma, alpha):
    """f(α) of Def. 4.2 with the c = 0 atom handled (notes §4.3): with μ_c = c/σ,
    R(Λ) = Σ_{c>0} q Φ(Λ/μ + μ/2) + q_0·1[Λ>0] = 1 − α and f = Σ_{c>0} q Φ(Λ/μ − μ/2) + q_0·1[Λ>0]; on
    1 − α ∈ [r0, r0 + q_0] (r0 = Σ_{c>0} q Φ(μ/2)) Λ = 0 and f is the slope −1 segment."""
    sigma, alpha = mpf(sigma), mpf(alpha)
    q0 = mpmath.fsum(mpf(q) for c2, q in zip(support, pmf) if c2 == 0)
    comps = [(mpf(q), mpmath.sqrt(c2) / sigma) for c2, q in zip(support, pmf) if c2 > 0]
    t = 1 - alpha
    r = lambda lam: mpmath.fsum(q * ndtr(lam / mu + mu / 2) for q, mu in comps)
    b = lambda lam: mpmath.fsum(q * ndtr(lam / mu - mu / 2) for q, mu in comps)
    r0 = r(mpf(0))
    if r0 <= t <= r0 + q0:
        return b(mpf(0)) + (t - r0)
    if t < r0:
        target, extra, lo, hi = t, mpf(0), mpf(-1), mpf(0)
        while r(lo) > target:
            lo *= 2
    else:
        target, extra, lo, hi = t - q0, q0, mpf(0), mpf(1)
        while r(hi) < target:
            hi *= 2
    return b(_root_increasing(lambda lam: r(lam) - target, lo, hi)) + extra


def _root_increasing(fn, lo, hi):
    """The root of an increasing fn on [lo, hi] (fn(lo) ≤ 0 ≤ fn(hi)): regula falsi, Illinois variant, to 2^(−prec)
    relative (bisection steps when it stalls)."""
    f_lo, f_hi = fn(lo), fn(hi)
    side = 0
    for i in range(4 * mpmath.mp.prec):
        if hi - lo <= mpf(2) ** (-mpmath.mp.prec) * max(1, abs(lo), abs(hi)):
            break
        mid = lo - f_lo * (hi - lo) / (f_hi - f_lo) if f_hi != f_lo and i % 8 != 7 else (lo + hi) / 2
        if not lo < mid < hi:
            mid = (lo + hi) / 2
        f_mid = fn(mid)
        if f_mid == 0:
            return mid
        if f_mid < 0:
            lo, f_lo = mid, f_mid
            if side == -1:
                f_hi /= 2
            side = -1
        else:
            hi, f_hi = mid, f_mid
            if side == 1:
                f_lo /= 2
            side = 1
    return (lo + hi) / 2


def convolve(law_a, law_b):
    """Law of the sum of independent c²'s (exact in the arithmetic of the pmfs)."""
    out: dict[int, object] = {}
    for (ca, qa), (cb, qb) in itertools.product(zip(*law_a[:2]), zip(*law_b[:2])):
        out[ca + cb] = out.get(ca + cb, 0) + qa * qb
    keys = sorted(out)
    return tuple(keys), tuple(out[k] for k in keys)


def power(law, n: int):
    """n-fold convolution (exponentiation by squaring)."""
    result, base = ((0,), (1,)), (tuple(law[0]), tuple(law[1]))
    while n:
        if n & 1:
            result = convolve(result, base)
        n >>= 1
        if n:
            base = convolve(base, base)
    return result


def trinomial_law(n: int, q1, q2, cut=mpf(10) ** -60):
    """Law of c² = Σ_{r≤n} L_r² with L_r ∈ {0, 1, 2} i.i.d., P(L=1) = q1, P(L=2) = q2 (IC with SS and g = 2, seed
    002 eq. (21)): c² = n1 + 4·n2 for (n0, n1, n2) multinomial. Terms below ``cut`` (past the mode of each count)
    are skipped; their total is returned as ``dropped``."""
    q1, q2 = mpf(q1), mpf(q2)
    q0 = 1 - q1 - q2
    out: dict[int, mpf] = {}
    for n2 in range(n + 1):
        head = mpmath.binomial(n, n2) * q2 ** n2
        if n2 > n * q2 and head < cut:
            break
        rest = n - n2
        for n1 in range(rest + 1):
            term = head * mpmath.binomial(rest, n1) * q1 ** n1 * q0 ** (rest - n1)
            if n1 > rest * q1 and term < cut:
                break
            out[n1 + 4 * n2] = out.get(n1 + 4 * n2, mpf(0)) + term
    keys = sorted(out)
    pmf = tuple(out[k] for k in keys)
    return tuple(keys), pmf, max(mpf(0), 1 - mpmath.fsum(pmf))


# ---------------------------------------------------------------------------------------------------------------
# Bound functions of Defs 4.3/4.4 as (ε, δ) (notes §2.5, §2.6: closed forms)

def fl_beta(mu, l):
    """β of Def. 4.4: the root of G_μ(β) − l = β on [0, 1] (G_μ(β) − l − β decreases strictly)."""
    l = mpf(l)
    lo, hi = mpf(0), mpf(1)
    for _ in range(mpmath.mp.prec + 20):
        mid = (lo + hi) / 2
        if g_tradeoff(mid, mu) - l - mid > 0:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def fl_delta(eps, mu, l, beta=None):
    """δ(ε) of fL (Def. 4.4, ε ≥ 0; notes §2.6): l + δ_{G_μ}(ε) where e^ε ≥ s_β = exp(μ z_β − μ²/2)
    (z_β = Φ^{-1}(1−β)), else 1 − β(1 + e^ε). ``beta`` (:func:`fl_beta`) may be passed to save its root."""
    eps, mu, l = mpf(eps), mpf(mu), mpf(l)
    beta = fl_beta(mu, l) if beta is None else beta
    s_beta = mpmath.exp(mu * ndtri_upper(beta) - mu * mu / 2)
    if mpmath.exp(eps) >= s_beta:
        return l + delta_g(eps, mu)
    return 1 - beta * (1 + mpmath.exp(eps))


def fl_epsilon(delta, mu, l):
    """ε(δ) of fL: +inf when δ ≤ l (the δ-floor, notes §4.6), else the root of δ_{fL}(ε) = δ."""
    delta, l = mpf(delta), mpf(l)
    if delta <= l:
        return mpmath.inf
    beta = fl_beta(mu, l)
    return bisect_decreasing(lambda e: fl_delta(e, mu, l, beta), delta, 0, mpf(10) ** 4)


def fu_hat_delta(eps, mu, u):
    """δ(ε) of f̂U(α) = u + (1−u)G_μ(α) (Def. 4.3): sup_α 1 − u − (1−u)G_μ(α) − e^ε α
    = (1−u)·δ_{G_μ}(ε − ln(1−u))."""
    u = mpf(u)
    return (1 - u) * delta_g(mpf(eps) - mpmath.log1p(-u), mu)


# ---------------------------------------------------------------------------------------------------------------
# Occupancy laws of shuffling with batch clipping (seed 002 G.3; notes §3.2, §6.3)

def occupancy_true(batches: int, s: int, g: int) -> list[Fraction]:
    """P(J = j), j = 0..g: J = number of distinct batches (of s slots, ``batches`` of them, N = batches·s) hit by g
    distinct samples placed by a uniform permutation: C(B, j)·Σ_i (−1)^i C(j, i) C((j−i)s, g) / C(N, g)
    (inclusion–exclusion over the j chosen batches; notes §3.2)."""
    n = batches * s
    total = comb(n, g)
    return [Fraction(comb(batches, j) * sum((-1) ** i * comb(j, i) * comb((j - i) * s, g) for i in range(j + 1)),
                     total) for j in range(g + 1)]


def occupancy_bose_einstein(batches: int, g: int) -> list[Fraction]:
    """Seed 002, G.3 as printed: q_j = C(N/s, j) C(g−1, j−1) / C(N/s − 1 + g, g), j = 0..g (q_0 = 0)."""
    return [Fraction(comb(batches, j) * comb(g - 1, j - 1), comb(batches - 1 + g, g)) if j >= 1 else Fraction(0)
            for j in range(g + 1)]


def occupancy_brute_force(batches: int, s: int, g: int) -> list[Fraction]:
    """P(J = j) by enumerating every g-subset of the N = batches·s positions (small cases only)."""
    counts = [0] * (g + 1)
    for pos in itertools.combinations(range(batches * s), g):
        counts[len({p // s for p in pos})] += 1
    total = sum(counts)
    return [Fraction(c, total) for c in counts]


# ---------------------------------------------------------------------------------------------------------------
# One round's L under subsampling (seed 002 eq. (21), F.1)

def hypergeometric_q(N: int, m: int, g: int) -> list[Fraction]:
    """Seed 002 eq. (21) (IC, s = 1): q_k = C(N−g, m−k) C(g, k) / C(N, m), k = 0..min(m, g)."""
    return [Fraction(comb(N - g, m - k) * comb(g, k), comb(N, m)) for k in range(min(m, g) + 1)]


def _multinomial(total: int, parts) -> int:
    out, left = 1, total
    for p in parts:
        out *= comb(left, p)
        left -= p
    return out


def f1_q(N: int, m: int, s: int, g: int) -> list[Fraction]:
    """Seed 002 F.1 (general s), with the typos corrected (s − k'_h for "s − h'_h", k'_h ≠ 0 for "k_h ≠ 0"):
    q_k = Σ_{(k'_1..k'_m) ∈ K_k} C(N−g, ms−Σk') C(g, Σk') Mult(Σk'; k') Mult(ms−Σk'; s−k'_1, …, s−k'_m)
          / [C(N, ms) Mult(ms; s, …, s)],   K_k = {k' : #{h : k'_h ≠ 0} = k, 0 ≤ k'_h ≤ s}."""
    top = min(m, g)
    out = [Fraction(0)] * (top + 1)
    denominator = comb(N, m * s) * _multinomial(m * s, [s] * m)
    for kp in itertools.product(range(s + 1), repeat=m):
        total = sum(kp)
        if total > g or total > m * s:
            continue
        k = sum(1 for x in kp if x)
        term = (comb(N - g, m * s - total) * comb(g, total) * _multinomial(total, kp)
                * _multinomial(m * s - total, [s - x for x in kp]))
        out[k] += Fraction(term, denominator)
    return out


def round_q_brute_force(N: int, m: int, s: int, g: int) -> list[Fraction]:
    """P(L = k) by enumerating every ordered draw of ms distinct indices (a uniform batch with a uniform partition
    into m consecutive subsets of s); samples 0..g−1 are the differentiating ones (small cases only)."""
    counts = [0] * (min(m, g) + 1)
    for draw in itertools.permutations(range(N), m * s):
        k = sum(1 for h in range(m) if any(x < g for x in draw[h * s:(h + 1) * s]))
        counts[k] += 1
    total = sum(counts)
    return [Fraction(c, total) for c in counts]
