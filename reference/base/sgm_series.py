"""The sampled Gaussian's moment at large |β|: the two-sided series of MTZ19 §3.3, truncated with proven bounds.

Mironov, Talwar & Zhang, "Rényi Differential Privacy of the Sampled Gaussian Mechanism", arXiv 1908.10530 (MTZ19),
§3.3: the series of the moment (their Thm 5, that remove dominates add, is not used here). A helper of
reference/base/sgm.py (``log_excess``): it returns log(E_{μ0}[r^β] − 1) where the bounds below pin it to relative
10^{−(dps+10)}, else None (the caller then takes its quadrature). Its work does not grow with |β|: a head of terms
whose length is set by q·|β| and σ (about 60 terms at the point of issue 13: α ≈ 277559, q ≈ 9.39e-7, σ = 100,
where the ψ quadrature took ~2 s at 20 digits), erfc at each, and a few log-gamma values for the bounds.

Notation (as in sgm.py). μ0 = N(0, σ²), L(z) = e^{(2z−1)/(2σ²)}, r = 1 − q + qL, β = α (remove, A = E_{μ0}[r^α]) or
β = 1 − α (add, B = E_{μ0}[r^{1−α}]); M(m) = E_{μ0}[L^m] = e^{(m²−m)/(2σ²)} for every real m, and, as
φ_σ(z)L(z)^m = M(m)φ_σ(z − m) (φ_σ the N(0, σ²) density),
    E_{μ0}[L^m; z ≤ c] = M(m)Φ((c − m)/σ),     E_{μ0}[L^m; z > c] = M(m)Φ((m − c)/σ).                       (T)
With c' = q/(1 − q) < 1 (q < ½) and t = c'L, r = (1 − q)(1 + t); t = τ at z_τ = ½ + σ²(log τ − log c'). The split
is τ = 1 for β > 0 (z_1 = z0 of sgm.py: qL = 1 − q) and τ = TAU_ADD < 1 for β < 0.

The identity. On z ≤ z_τ, 0 < t ≤ τ and (1 + t)^β = Σ_k C(β,k)t^k converges absolutely (Σ_k |C(β,k)|τ^k is finite:
|C(β,k)| ~ k^{−β−1} for β > 0, and it is (1 − τ)^β for β < 0), so by Fubini and (T)
    E[r^β; z ≤ z_τ] = (1 − q)^β Σ_k C(β,k) c'^k M(k) Φ_k,   Φ_k = Φ((z_τ − k)/σ).
As (1 − q)^β Σ_k C(β,k)c'^k = (1 − q)^β (1 + c')^β = 1, for every n ≥ 0
    E[r^β; z ≤ z_τ] − 1 = Σ_{k<n} h_k + R_n − P_n,
    h_k = (1 − q)^β C(β,k) c'^k (expm1((k² − k)/(2σ²)) − M(k)Φ̄_k),   Φ̄_k = 1 − Φ_k,
    R_n = Σ_{k≥n} C(β,k) a_k,  a_k = (1 − q)^β c'^k M(k) Φ_k,     P_n = (1 − q)^β Σ_{k≥n} C(β,k) c'^k.
On z > z_τ: for β > 0 (τ = 1, s = 1/t < 1), (1 + t)^β = Σ_k C(β,k) t^{β−k} (MTZ19's second series), so
    E[r^β; z > z0] = Σ_k C(β,k) b_k,   b_k = (1 − q)^k q^{β−k} M(β − k) Φ((β − k − z0)/σ) ≥ 0;
for β < 0, r ≥ (1 − q)(1 + τ) there, so 0 ≤ E[r^β; z > z_τ] ≤ ((1 − q)(1 + τ))^β Φ̄(z_τ/σ) =: U.
The route sums the heads (k < n, and k < n_u of the second series) and bounds everything else:

(a) a_k = (1 − q)^β E[t^k; z ≤ z_τ] and b_k = E[(qL)^β s^k; z > z0] are non-increasing in k (t ≤ τ ≤ 1 and s < 1
    there); a_k ≤ (1 − q)^β c'^k M(k) (Φ ≤ 1) and, for k ≥ z_τ, as Φ(−x) ≤ ½e^{−x²/2} (x ≥ 0) and
    c'^k M(k) e^{−(k − z_τ)²/(2σ²)} = τ^k e^{−z_τ²/(2σ²)}: a_k ≤ (1 − q)^β τ^k e^{−z_τ²/(2σ²)}. Likewise
    b_k ≤ (1 − q)^k q^{β−k} M(β − k), and b_k ≤ (1 − q)^β e^{−z0²/(2σ²)} where β − k ≤ z0 (qL(z0) = 1 − q).
(b) Signs. β > 0: C(β,k) > 0 for k ≤ ⌈β⌉ (β not an integer; C(β,k) = 0 for k > β if it is), then alternating with
    |C(β,k)| non-increasing, so a tail Σ_{k≥K} C(β,k)w_k, K ≥ ⌈β⌉ + 1, w_k ≥ 0 non-increasing, is at most
    |C(β,K)|w_K in absolute value (Leibniz). β < 0: |C(β,k)| = C(k − β − 1, k) and Σ_k |C(β,k)|τ^k = (1 − τ)^β;
    for −1 < β < 0, C(β,k) alternates from k = 0 with |C(β,k)| non-increasing (ratio (k − β)/(k + 1) < 1), so
    |R_n| ≤ |C(β,n)|a_n and |P_n| ≤ (1 − q)^β |C(β,n)|c'^n (Leibniz again; no block is needed).
(c) Blocks. g(k) = log|C(β,k)| is concave in real k (log Γ(β+1) − log Γ(k+1) − log Γ(β−k+1) on (−1, β+1) for
    β > 0; log Γ(k−β) − log Γ(k+1) − log Γ(−β) on k ≥ 0 for β ≤ −1, where g' = ψ(k−β) − ψ(k+1) decreases), so it
    lies below its tangent at any point, and each bound of (a) is log|C(β,k)·w_k| ≤ g(k) + c0 + c1·k + c2·k² with
    c2 ≥ 0: convex once g is replaced by a tangent. On an integer block [a, b] the sum is therefore at most
    (b − a + 1)·e^{max(h(a), h(b))}, h the convex bound (:func:`_log_block_bound`, which splits blocks at their
    geometric mean while that tightens the bound, at most MAX_PIECES pieces).
(d) β < 0, P_n: by concavity g(k) ≤ g(n) + g'(n)(k − n), so |P_n| ≤ (1 − q)^β |C(β,n)| c'^n / (1 − c'e^{g'(n)})
    where c'e^{g'(n)} < 1.
The second series' exchange of sum and expectation is Fubini's too (Σ_k |C(β,k)|s^k ≤ Σ_k |C(β,k)| < ∞ for β > 0).
All terms are formed at mp.dps + WORK_GUARD digits plus the digits of the largest log involved (|β|·log(1/q),
β²/(2σ²), z_τ²/(2σ²), (z_τ/σ)² inside erfc: :func:`_extra_digits`, at most MAX_EXTRA), so that their rounding stays
far below the target; the result is log(Σ h_k + Σ_{k<n_u} C(β,k)b_k) when that sum
is positive, its terms cancel by less than 10^CANCEL_MAX, and the bounds of (a)–(d) add up to at most
10^{−(dps+10)}/2 of it (then log(A − 1) is within 10^{−(dps+10)} of the returned value); otherwise None.
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

TAU_ADD = mpf(1) / 2  # β < 0: the split t = τ (the lower series needs τ < 1; U falls like (1 + τ)^β)
HEAD_MAX = 1000  # terms of a head before the route gives up
MAX_PIECES = 256  # blocks of one bound (c)
WORK_GUARD = 15  # extra digits of the sums
CANCEL_MAX = 5  # digits the head sums may cancel
CUT_SIGMAS = 8  # the first series' head ends this many σ before z_τ (else the route does not apply)
MAX_EXTRA = 40  # digits the route may add for the size of its logs (beyond: None, the quadrature serves)
PLAN_MARGIN = 10  # the tail bounds are planned e^{PLAN_MARGIN} below the share the result allows
_NINF, _INF = mpf("-inf"), mpf("inf")


def _log_add(x, y):
    """log(e^x + e^y)."""
    if x == _NINF:
        return y
    if y == _NINF:
        return x
    big, small = (x, y) if x >= y else (y, x)
    return big + mpmath.log1p(mpmath.exp(small - big))


def _log_binomial(beta):
    """(g, g') with g(k) = log|C(β,k)| for real k (β > 0: k ∈ (−1, β + 1); β < 0: k ≥ 0), concave (see (c)) except
    for −1 < β < 0 (where only its values are used: (b))."""
    if beta > 0:
        top = mpmath.loggamma(beta + 1)
        return (lambda k: top - mpmath.loggamma(k + 1) - mpmath.loggamma(beta - k + 1),
                lambda k: mpmath.digamma(beta - k + 1) - mpmath.digamma(k + 1))
    b = -beta
    bottom = mpmath.loggamma(b)
    return (lambda k: mpmath.loggamma(k + b) - mpmath.loggamma(k + 1) - bottom,
            lambda k: mpmath.digamma(k + b) - mpmath.digamma(k + 1))


def _log_block_bound(g, dg, a: int, b: int, c0, c1, c2, budget):
    """log of an upper bound on Σ_{k=a}^{b} e^{g(k) + c0 + c1·k + c2·k²} (g concave on [a, b], c2 ≥ 0): (c) of the
    module docstring, on pieces split at their geometric mean while a piece's bound exceeds its share of ``budget`` (a
    piece at depth d gets budget − d·log 2, so that the shares add up to the budget), at most MAX_PIECES pieces. −∞
    for an empty block; +∞ at once where a term at an end of the block exceeds ``budget`` (no split can help). The
    bound is valid whatever the split; the caller compares it with its budget."""
    if a > b:
        return _NINF
    if max(g(mpf(k)) + c0 + c1 * k + c2 * k * k for k in {a, b}) > budget:
        return _INF  # an end term alone exceeds the budget: no split can help (+∞ is a valid bound)
    total, pieces, stack = _NINF, 0, [(a, b, 0)]
    while stack:
        lo, hi, depth = stack.pop()
        pieces += 1
        if lo == hi:
            total = _log_add(total, g(mpf(lo)) + c0 + c1 * lo + c2 * lo * lo)
            continue
        m = max(lo + 1, min(hi, int(mpmath.sqrt(mpf(lo) * hi)) if lo > 0 else (lo + hi + 1) // 2))
        gm, slope = g(mpf(m)), dg(mpf(m))
        h = lambda k: gm + slope * (k - m) + c0 + c1 * k + c2 * k * k  # noqa: E731  convex, ≥ the log term
        bound = mpmath.log(hi - lo + 1) + max(h(lo), h(hi))
        if bound <= budget - depth * mpmath.log(2) or pieces + len(stack) + 2 > MAX_PIECES:
            total = _log_add(total, bound)
        else:
            stack += [(lo, m - 1, depth + 1), (m, hi, depth + 1)]
    return total


def _log_ncdf(x):
    """log Φ(x) for any real x (mpmath's exponent range is unbounded)."""
    return mpmath.log(_erfc(-x / mpmath.sqrt(2)) / 2)


class _Series:
    """The quantities of the module docstring at one (β, q, σ), at the current precision."""

    def __init__(self, beta, q, sigma):
        self.beta, self.q, self.sigma = beta, q, sigma
        self.inv = 1 / (2 * sigma**2)
        self.lq, self.l1q = mpmath.log(q), mpmath.log1p(-q)
        self.lc = self.lq - self.l1q  # log c'
        self.tau = mpf(1) if beta > 0 else TAU_ADD
        self.z_tau = mpf(1) / 2 + sigma**2 * (mpmath.log(self.tau) - self.lc)
        self.g, self.dg = _log_binomial(beta)
        if beta > 0:
            self.kmax = int(mpmath.floor(beta)) if beta == mpmath.floor(beta) else int(mpmath.floor(beta)) + 1
        else:
            self.kmax = None  # no positive block ends: C(β,k) alternates from k = 0

    def log_m(self, m):
        return (m * m - m) * self.inv

    # -- the first series (z ≤ z_τ) ----------------------------------------------------------------------------
    def lower_head(self, k, coef):
        """(h_k, |expm1 part|, |Φ̄ part|) with coef = C(β,k)."""
        base = coef * mpmath.exp(self.beta * self.l1q + k * self.lc)
        g2 = (k * k - k) * self.inv
        first = base * mpmath.expm1(g2)
        second = base * mpmath.exp(g2) * _erfc((self.z_tau - k) / (self.sigma * mpmath.sqrt(2))) / 2
        return first - second, abs(first), abs(second)

    def log_lower_tail(self, n: int, budget):
        """log of a bound on |R_n| + |P_n| ((a)–(d))."""
        beta, zt, inv = self.beta, self.z_tau, self.inv
        c0 = beta * self.l1q
        if -1 < beta < 0:  # (b): both tails alternate from k = 0 with non-increasing magnitudes: their first terms
            log_c = self.g(mpf(n))
            log_a = c0 + n * self.lc + self.log_m(mpf(n)) + _log_ncdf((zt - n) / self.sigma)
            return _log_add(log_c + log_a, log_c + c0 + n * self.lc)
        near_end = int(mpmath.floor(zt)) if self.kmax is None else min(int(mpmath.floor(zt)), self.kmax)
        out = _log_block_bound(self.g, self.dg, n, near_end, c0, self.lc - inv, inv, budget)
        far_start = max(n, int(mpmath.ceil(zt)))
        far_c0 = c0 - zt * zt * inv
        if beta > 0:
            out = _log_add(out, _log_block_bound(self.g, self.dg, far_start, self.kmax, far_c0, mpmath.log(self.tau),
                                                 0, budget))
            out = _log_add(out, _log_block_bound(self.g, self.dg, n, self.kmax, c0, self.lc, 0, budget))  # P_n
            K = max(n, self.kmax + 1)
            if beta != mpmath.floor(beta):  # Leibniz tails of R_n and P_n at K
                log_c = self.log_abs_coef(K)
                log_a = c0 + K * self.lc + self.log_m(mpf(K)) + _log_ncdf((zt - K) / self.sigma)
                out = _log_add(out, log_c + log_a)
                out = _log_add(out, log_c + c0 + K * self.lc)
            return out
        out = _log_add(out, far_c0 + beta * mpmath.log1p(-self.tau))  # the far part (b): k ≥ z_τ
        slope = self.dg(mpf(n)) + self.lc  # (d)
        if not slope < 0:
            return _INF
        return _log_add(out, self.g(mpf(n)) + c0 + n * self.lc - mpmath.log(-mpmath.expm1(slope)))

    def log_abs_coef(self, k: int):
        """log|C(β,k)| for an integer k ≥ 0 (β > 0: also beyond β + 1, through C(β, ⌈β⌉))."""
        if self.beta < 0 or k <= self.kmax:
            return self.g(mpf(k))
        j = self.kmax
        value = self.g(mpf(j))
        for i in range(j, k):
            value += mpmath.log(abs(self.beta - i)) - mpmath.log(i + 1)
        return value

    # -- the second series (z > z0, β > 0) ---------------------------------------------------------------------
    def log_upper_term(self, k: int):
        """log(b_k) (without C(β,k))."""
        j = self.beta - k
        return k * self.l1q + j * self.lq + self.log_m(j) + _log_ncdf((j - self.z_tau) / self.sigma)

    def log_upper_tail(self, n: int, budget):
        """log of a bound on |Σ_{k≥n} C(β,k) b_k| ((a)–(c))."""
        beta, z0, inv = self.beta, self.z_tau, self.inv
        split = beta - z0  # b_k's bound changes form at k = β − z0
        near_end = min(int(mpmath.floor(split)), self.kmax)
        c0 = beta * self.lq + (beta * beta - beta) * inv
        c1 = self.l1q - self.lq - (2 * beta - 1) * inv
        out = _log_block_bound(self.g, self.dg, n, near_end, c0, c1, inv, budget)
        if out == _INF:
            return out
        out = _log_add(out, _log_block_bound(self.g, self.dg, max(n, int(mpmath.ceil(split))), self.kmax,
                                             beta * self.l1q - z0 * z0 * inv, 0, 0, budget))
        K = max(n, self.kmax + 1)
        if beta != mpmath.floor(beta):
            out = _log_add(out, self.log_abs_coef(K) + self.log_upper_term(K))
        return out

    def log_u_bound(self):
        """β < 0: log U, U ≥ E[r^β; z > z_τ] ≥ 0."""
        return self.beta * (self.l1q + mpmath.log1p(self.tau)) + _log_ncdf(-self.z_tau / self.sigma)


def _erfc(x):
    """erfc(x); beyond x = 10^{(dps+4)/2} the leading asymptotic term e^{−x²}/(x√π), whose relative error is below
    1/(2x²) (mpmath's erfc takes ~20 ms at x = 1e100)."""
    if x > mpf(10) ** ((mp.dps + 4) / 2):
        return mpmath.exp(-x * x) / (x * mpmath.sqrt(mpmath.pi))
    if x < -mpf(10) ** ((mp.dps + 4) / 2):
        return mpf(2)
    return mpmath.erfc(x)


def _scan(log_terms, ref, drop, limit: int, start: int = 0, raise_ref: bool = True):
    """(n, ref): the first n > start such that log term n − 1 (an estimate or bound) is below ``ref`` − ``drop`` and
    below the one before, ``ref`` raised to the largest log term seen where ``raise_ref``; None if there is none
    below ``limit``. Only chooses where a head ends (low precision; the bounds decide)."""
    previous = None
    for k, value in enumerate(log_terms):
        if k >= limit:
            return None
        if raise_ref:
            ref = max(ref, value)
        if k >= start and previous is not None and value < previous and value < ref - drop:
            return k + 1, ref
        previous = value
    return None


def _extra_digits(beta, q, sigma) -> int:
    """Digits for the size of the logs the route adds up (|β|·log(1/q), β²/(2σ²), z_τ²/(2σ²), (z_τ/σ)² in erfc), so
    that their rounding stays below 10^{−(dps+WORK_GUARD)} absolute; at 20 digits."""
    with mp.workdps(20):
        beta, q, sigma = abs(mpf(beta)), mpf(q), mpf(sigma)
        logs = abs(mpmath.log(q)) + abs(mpmath.log1p(-q)) + mpmath.log(2 + beta) + 1
        z = mpf(1) / 2 + sigma**2 * (abs(mpmath.log(q)) + 1)
        size = (beta + z + HEAD_MAX) * logs + (beta + z + HEAD_MAX) ** 2 / sigma**2 + (z / sigma) ** 2
        return int(mpmath.ceil(mpmath.log10(1 + size)))


def log_excess_series(beta, q, sigma):
    """log(E_{μ0}[(1 − q + qL)^β] − 1) by the truncated two-sided series (module docstring), or None where its bounds
    do not pin it to relative 10^{−(dps+10)} (heads longer than HEAD_MAX, a head reaching within CUT_SIGMAS·σ of z_τ,
    cancellation, logs too large for MAX_EXTRA extra digits, q ≥ ½ or 0 ≤ β ≤ 1).

    At mp.dps + WORK_GUARD + :func:`_extra_digits` digits: first the head lengths and the tail bounds, from the terms'
    sizes (no erfc) and an estimate of the sum (:func:`_plan`), so that a point where the route does not apply costs
    little; then the heads, and the bounds are checked against their sum."""
    if not (0 < q < mpf(1) / 2 and (beta > 1 or beta < 0)):
        return None
    extra = _extra_digits(beta, q, sigma)
    if extra > MAX_EXTRA:
        return None
    target = (mp.dps + 10) * mpmath.log(10)
    with mp.workdps(mp.dps + WORK_GUARD + extra):
        target = +target
        beta, q, sigma = +beta, +q, +sigma
        s = _Series(beta, q, sigma)
        plan = _plan(s, target + PLAN_MARGIN)
        if plan is None:
            return None
        n, n_u, log_tails = plan
        total, size, coef = mpf(0), mpf(0), mpf(1)
        for k in range(n):  # the first series' head
            term, p1, p2 = s.lower_head(k, coef)
            total, size = total + term, size + p1 + p2
            coef = coef * (beta - k) / (k + 1)
        coef = mpf(1)
        for k in range(n_u):  # the second series' head (β > 0)
            term = coef * mpmath.exp(s.log_upper_term(k))
            total, size = total + term, size + abs(term)
            coef = coef * (beta - k) / (k + 1)
        if not total > 0 or size > total * mpf(10) ** CANCEL_MAX:
            return None
        log_total = mpmath.log(total)
        if log_tails > log_total - target - mpmath.log(2):
            return None
        return log_total


def _plan(s, drop):
    """(n, n_u, log of the sum of the tail bounds) with head lengths at which the tail bounds are below e^{−drop} of
    the estimated sum, or None. The sum is estimated by the leading term β(β − 1)/2·q²(e^{1/σ²} − 1) (sgm.py's
    ``_closed_small_q``) and by the largest term of the second series; the terms' sizes by the bounds (a), without
    erfc. The bounds returned are valid whatever the estimate; the caller compares them with the sum."""
    beta, zt, inv = s.beta, s.z_tau, s.inv
    ref = mpmath.log(abs(beta * (beta - 1)) / 2) + 2 * s.lq + mpmath.log(mpmath.expm1(2 * inv))
    log_tau = mpmath.log(s.tau)

    def lower_logs(excess=False):
        """log of a bound on the k-th terms of R and P, (1 − q)^β |C(β,k)| c'^k max(1, M(k)Φ_k) (a), or with
        ``excess`` the size of h_k where Φ̄_k is negligible, (1 − q)^β |C(β,k)| c'^k (M(k) − 1)."""
        log_c, k = mpf(0), 0
        while True:
            m = (k * k - k) * inv
            if excess:
                log_m1 = _NINF if k < 2 else (m if m > 40 else mpmath.log(mpmath.expm1(m)))
                yield beta * s.l1q + log_c + k * s.lc + log_m1
            else:
                if k >= zt:
                    m = min(m, k * (log_tau - s.lc) - zt * zt * inv)
                yield beta * s.l1q + log_c + k * s.lc + max(0, m)
            log_c, k = log_c + mpmath.log(abs(beta - k)) - mpmath.log(k + 1), k + 1

    # the head must end CUT_SIGMAS standard deviations before z_τ (where Φ̄_k is small: beyond, the Φ̄ parts of h_k
    # cancel against the rest; the ψ quadrature serves those points)
    limit = min(HEAD_MAX, int(mpmath.floor(max(zt - CUT_SIGMAS * s.sigma, 0))))
    found = _scan(lower_logs(), ref, drop, limit, start=2, raise_ref=False)
    if found is None:
        return None
    n, _ = found
    if beta < 0:  # the terms alternate: their largest must not exceed the estimated sum by more than 10^CANCEL_MAX
        gen = lower_logs(excess=True)
        if max(next(gen) for _ in range(n)) > ref + CANCEL_MAX * mpmath.log(10):
            return None
    lower = s.log_lower_tail(n, ref - drop)
    if lower > ref - drop:
        return None
    if beta < 0:
        upper = s.log_u_bound()
        return (n, 0, _log_add(lower, upper)) if upper <= ref - drop else None
    upper = s.log_upper_tail(0, ref - drop)
    if upper <= ref - drop:
        return n, 0, _log_add(lower, upper)
    far = beta * s.l1q - zt * zt * inv

    def upper_logs():  # log of a bound on C(β,k)·b_k (a)
        log_c, k = mpf(0), 0
        while True:
            j = beta - k
            near = k * s.l1q + j * s.lq + s.log_m(j)
            yield log_c + (min(near, far) if j <= zt else near)
            log_c, k = log_c + mpmath.log(abs(beta - k)) - mpmath.log(k + 1), k + 1

    found = _scan(upper_logs(), ref, drop, HEAD_MAX)
    if found is None:
        return None
    n_u, ref = found
    upper = s.log_upper_tail(n_u, ref - drop)
    return (n, n_u, _log_add(lower, upper)) if upper <= ref - drop else None
