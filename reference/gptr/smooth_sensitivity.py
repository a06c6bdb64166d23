"""Smooth sensitivity of GNMax's data-dependent RDP and Algorithm 6 (PATE-PTR) — seed 003 §3.6.2 (the unnumbered
"smooth sensitivity" paragraph, Lemma 3.6.5, Algorithm 6), notes shared/notes/generalized-ptr.md §2.4, §4, §7.2, §8.

The construction is Papernot, Song, Mironov, Raghunathan, Talwar & Erlingsson, "Scalable Private Learning with PATE",
ICLR 2018, arXiv 1802.08908v1, Appendix B: Algorithm 3 (local sensitivity at q via the bounds b_l, b_u of q̃ on a
neighbour, Prop 13), Algorithms 4–5 (local sensitivity at distance k, the monotone walk over vote histograms) and
the β-smooth sensitivity SS_β = max_k e^{−βk} LS_k (Nissim, Raskhodnikova & Smith 2007). It follows the authors'
public code (tensorflow/privacy research/pate_2018/smooth_sensitivity.py) step for step, in mpmath and log space.

The data-dependent RDP whose sensitivity is bounded is Papernot's β(q̃) := Thm 6 at q̃ for log q̃ < log q0(σ, α)
and α/σ² above (their ``_compute_rdp_gnmax``; q0 is where the two cross, found by root finding). Below q0 it equals
gptr.thm3_6_4's min(α/σ², Thm 6) (there Thm 6 is the smaller); above it is the data-independent value, which is ≥
the min: so β(q̃) is a valid data-dependent RDP too. The bounds b_l, b_u rely on Papernot's conditions C5–C6
(β non-decreasing in q on (0, q0), and β(b_u(q)) − β(q) non-decreasing on (0, b_l(q0))), which their code checks with
sympy per (σ, α); the tests here check them numerically at the notes' parameters.

Over T queries (one teacher changes its vote on every query), E(X) = Σ_i β(q̃_i) and the local sensitivity at
distance k of the sum is at most the sum of the per-query ones (notes §8); SS_β(E) = max_k e^{−βk} Σ_i LS_k^{(i)}.
The walk's histogram at any step has a closed form, so the discounted max is found by branch and bound over k
(exact, O(log K) evaluations per branch; K up to 10^6) rather than by walking all K steps. Papernot's array is not
monotone in k (at the end of a walk towards q1 its values exceed the plateau), which the bound does not assume; the
discounted max equals that of the array's cumulative maximum (the true, monotone LS at distance k bound).

Statement: ``gptr.smooth_sensitivity``. Reference algorithm: :func:`alg6_pate_ptr`.
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mp, mpf

from .._normal import log_ndtr, ndtri_upper
from .._solve import root
from ..catalogue import Condition, Privacy, Source, Statement, Value, register
from ..errors import ConditionError, PrecisionError
from ..precision import self_checked
from . import spec
from .pate import (PAPERNOT, data_independent_rdp, gnss_rdp, logq_row, pate_constants, thm6_bound, thm6_valid,
                   vote_rows, votes_ok, votes_sum_ok)

# ---------------------------------------------------------------------------------------------------------------
# q0, q1 and the monotone data-dependent RDP β(q) (Papernot Appendix B; their compute_logq0_gnmax)

_Q0_CACHE: dict = {}


def logq0(sigma, alpha) -> mpf:
    """log q0(σ, α): the point below which Thm 6 beats α/σ² (Papernot's ``compute_logq0_gnmax``): the root of
    Thm6(log q) − α/σ² on (−∞, log_ub], log_ub = min(−(1 + 1/σ)², −((α − 0.99)/σ)², −1/σ²) (where Thm 6's conditions
    hold); log_ub itself when Thm 6 is already below there. Thm 6's conditions are checked at the result."""
    sigma, alpha = mpf(sigma), mpf(alpha)
    key = (str(sigma), str(alpha), mp.prec)
    if key in _Q0_CACHE:
        return _Q0_CACHE[key]
    ind = data_independent_rdp(sigma, alpha)
    ub = min(-(1 + 1 / sigma) ** 2, -((alpha - mpf("0.99")) / sigma) ** 2, -1 / sigma**2)
    if not thm6_valid(ub, sigma, alpha):
        raise PrecisionError(f"logq0: Thm 6's conditions fail at log q = {mpmath.nstr(ub, 8)} (σ = "
                             f"{mpmath.nstr(sigma, 8)}, α = {mpmath.nstr(alpha, 8)})")

    def gap(lq):
        return thm6_bound(lq, sigma, alpha) - ind

    if gap(ub) < 0:
        out = ub
    else:
        lb = 2 * ub
        while gap(lb) > 0:
            lb *= mpf("1.5")
            if lb < -mpf(10) ** 12 * max(1, -ub):
                raise PrecisionError("logq0: no crossing of Thm 6 and α/σ² found")
        out = root(gap, lb, ub)
        if not thm6_valid(out, sigma, alpha):
            raise PrecisionError("logq0: Thm 6's conditions fail at the crossing")
    _Q0_CACHE[key] = out
    if len(_Q0_CACHE) > 512:
        _Q0_CACHE.pop(next(iter(_Q0_CACHE)))
    return out


def rdp_beta(logq, sigma, alpha) -> mpf:
    """Papernot's β(q̃): Thm 6 below log q0, α/σ² from log q0 up (their ``_compute_rdp_gnmax``)."""
    if mpf(logq) >= logq0(sigma, alpha):
        return data_independent_rdp(sigma, alpha)
    return thm6_bound(logq, sigma, alpha)


def log_b_upper(logq, sigma, m) -> mpf:
    """log b_u(q) = log min(1, (m−1)/2 · erfc(erfcinv(2q/(m−1)) − 1/σ)) (Papernot Appendix B, ``_compute_bu_gnmax``):
    with z = Φ^{-1}(1 − q/(m−1)), (m−1)/2 · erfc(erfcinv(2q/(m−1)) ∓ 1/σ) = (m−1) Φ(±√2/σ − z)."""
    z = ndtri_upper(mpmath.exp(mpf(logq)) / (m - 1))
    return min(mpf(0), mpmath.log(m - 1) + log_ndtr(mpmath.sqrt(2) / mpf(sigma) - z))


def log_b_lower(logq, sigma, m) -> mpf:
    """log b_l(q) = log((m−1)/2 · erfc(erfcinv(2q/(m−1)) + 1/σ)) (Papernot's ``_compute_bl_gnmax``)."""
    z = ndtri_upper(mpmath.exp(mpf(logq)) / (m - 1))
    return mpmath.log(m - 1) + log_ndtr(-z - mpmath.sqrt(2) / mpf(sigma))


def logq1(sigma, alpha, m) -> mpf:
    """log q1 = log b_l(q0) (Papernot's ``_compute_logq1``)."""
    return log_b_lower(logq0(sigma, alpha), sigma, m)


def local_sensitivity_at_q(logq, sigma, alpha, m) -> mpf:
    """Papernot Algorithm 3 (Prop 13): an upper bound on the local sensitivity of β at a histogram with q̃ = q,
    max(β(b_u(q)) − β(q), β(q) − β(b_l(q))), with q moved to q1 inside [q1, q0] (their
    ``_compute_local_sens_gnmax``).

    At the moved point b_u(q1) = b_u(b_l(q0)) = q0 exactly (b_u and b_l are inverse maps: with z = Φ^{-1}(1 −
    q/(m−1)), b_l shifts z by +√2/σ and b_u by −√2/σ), so β(b_u(q1)) is taken as β(q0) = α/σ² from the identity,
    not from the rounded round trip. That side is the right one: Papernot's β is α/σ² from log q0 up (``logq >=
    logq0`` in their ``_compute_rdp_gnmax``), a neighbour whose q̃ is exactly q0 exists in the bound's supremum, and
    it is the larger (safe) value for an upper bound on the local sensitivity. Where q0 is the natural bound log_ub
    (Thm 6 already below α/σ² there) β jumps at q0, and the round trip, landing a rounding error below or above
    log q0, made the value depend on the precision (votes [[2, 0, 0, 0]], σ = 1, α = 1.778: 1.70 at 20, 38 and 50
    digits, 1.10 at 30)."""
    lq0, lq1 = logq0(sigma, alpha), logq1(sigma, alpha, m)
    logq = mpf(logq)
    moved = lq1 <= logq <= lq0
    if moved:
        logq = lq1
    b = rdp_beta(logq, sigma, alpha)
    b_up = data_independent_rdp(sigma, alpha) if moved else rdp_beta(log_b_upper(logq, sigma, m), sigma, alpha)
    b_lo = rdp_beta(log_b_lower(logq, sigma, m), sigma, alpha)
    return max(b_up - b, b - b_lo)


def local_sensitivities(row, sigma, alpha, max_d=None) -> tuple[list[mpf], mpf]:
    """Papernot Algorithms 4–5 (their ``compute_local_sensitivity_bounds_gnmax``): LS at distance d of β for one
    query, as (the values for d = 0 … len − 1, the plateau value every further d takes). The walk moves one vote
    at a time from the runner-up to the top class while log q̃ > log q0 (towards the plateau region), or from the
    top to the runner-up while log q̃ < log q1; ``max_d`` stops it early (the remaining d are bounded by
    :func:`_ls_cap`)."""
    m = len(row)
    lq0, lq1 = logq0(sigma, alpha), logq1(sigma, alpha, m)
    plateau = local_sensitivity_at_q(lq1, sigma, alpha, m)
    lq = logq_row(row, sigma)
    if lq1 <= lq <= lq0:
        return [], plateau
    votes = sorted(row, reverse=True)
    out = [local_sensitivity_at_q(lq, sigma, alpha, m)]
    go_left = lq > lq0
    teachers = sum(row)
    while (go_left and lq > lq0 and votes[1] > 0) or (not go_left and lq < lq1):
        if len(out) >= teachers or (max_d is not None and len(out) > max_d):
            break
        if go_left:
            votes[0] += 1
            votes[1] -= 1
            i = 1
            while i < m - 1 and votes[i] < votes[i + 1]:
                votes[i], votes[i + 1] = votes[i + 1], votes[i]
                i += 1
        else:
            votes[0] -= 1
            votes[1] += 1
        lq = logq_row(votes, sigma)
        out.append(local_sensitivity_at_q(lq, sigma, alpha, m))
    return out, plateau


def _water_fill(others, d):
    """The other classes' counts after the left walk has taken d votes from them, always from the current largest
    (Papernot's re-sorting walk): every count above a level L drops to L, and the remaining r votes come from r of
    the classes then at L (the multiset is what matters for q̃)."""
    def removed(level):
        return sum(max(o - level, 0) for o in others)

    lo, hi = 0, max(others)
    while lo < hi:  # smallest L with removed(L) ≤ d (removed is non-increasing in L)
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if removed(mid) <= d else (mid + 1, hi)
    level, r = lo, d - removed(lo)
    out = sorted((min(o, level) for o in others), reverse=True)
    for i in range(len(out)):
        if r and out[i] == level and level > 0:
            out[i] -= 1
            r -= 1
    return sorted(out, reverse=True)


class _QueryWalk:
    """One query's LS at distance d (Papernot Algs 4–5), evaluated at any d directly instead of step by step: the
    walk's histogram after d steps is (v0 − d, v1 + d, rest) going right and (v0 + d, water-filled rest) going left
    (:func:`_water_fill`); log q̃ is monotone along either walk, so its stopping step is found by bisection. Values
    are those of :func:`local_sensitivities` (tested against it)."""

    def __init__(self, row, sigma, alpha, teachers):
        self.sigma, self.alpha, self.m = sigma, alpha, len(row)
        self.lq0, self.lq1 = logq0(sigma, alpha), logq1(sigma, alpha, self.m)
        self.plateau = local_sensitivity_at_q(self.lq1, sigma, alpha, self.m)
        self.votes = sorted(row, reverse=True)
        lq = logq_row(self.votes, sigma)
        self.flat = self.lq1 <= lq <= self.lq0
        self.left = lq > self.lq0
        self.cache: dict = {}
        self.lq_cache: dict = {}
        self.stop = 0 if self.flat else self._stop(teachers)

    def hist(self, d):
        v = self.votes
        if self.left:
            return [v[0] + d] + _water_fill(v[1:], d)
        return [v[0] - d, v[1] + d] + v[2:]

    def _continues(self, d):
        """Whether the walk takes another step after reaching step d (Papernot's loop condition)."""
        h = self.hist(d)
        lq = logq_row(h, self.sigma)
        if self.left:
            return lq > self.lq0 and h[1] > 0
        return lq < self.lq1

    def _stop(self, teachers):
        """The last step the walk computes: the first d ≥ 1 after which it stops, at most K − 1 (the array's end)."""
        hi = teachers - 1
        if self.left:
            hi = min(hi, sum(self.votes[1:]))
        else:
            hi = min(hi, max(1, (self.votes[0] - self.votes[1] + 1) // 2))
        if hi < 1:
            return 0
        if self._continues(hi - 1) if hi > 1 else False:
            return hi
        lo = 1  # _continues(0) holds (the walk started); find the first d with not _continues(d)
        while lo < hi:
            mid = (lo + hi) // 2
            lo, hi = (mid + 1, hi) if self._continues(mid) else (lo, mid)
        return lo

    def logq(self, d) -> mpf:
        if d not in self.lq_cache:
            self.lq_cache[d] = logq_row(self.hist(d), self.sigma)
        return self.lq_cache[d]

    def ls(self, d) -> mpf:
        """LS at distance d: Papernot's value at the walk's d-th histogram, the plateau beyond the walk."""
        if self.flat or d > self.stop:
            return self.plateau
        if d not in self.cache:
            self.cache[d] = local_sensitivity_at_q(self.logq(d), self.sigma, self.alpha, self.m)
        return self.cache[d]

    def upper(self, a, b) -> mpf:
        """An upper bound on ls(d) for a ≤ d ≤ b, from two evaluations of q̃. β is non-decreasing in q (Papernot's
        C5) and b_l, b_u are increasing, so along the right walk (q̃ rises with d, below q1 before the last step)
        ls(d) ≤ max(β(b_u(q_b)) − β(q_a), β(q_b) − β(b_l(q_a))); along the left walk (q̃ falls, above q0, where
        β(b_u(q)) = β(q) = α/σ²) ls(d) = α/σ² − β(b_l(q̃)) rises with d, so ls(b) bounds it. (Papernot's array is
        not monotone at the end of a right walk — its values just below q1 exceed the plateau — hence the bound.)"""
        if self.flat or a > self.stop:
            return self.plateau
        parts = []
        if b > self.stop:
            parts.append(self.plateau)
            b = self.stop
        if self.left:
            return max(parts + [self.ls(b)])
        if b == self.stop:
            parts.append(self.ls(b))
            b -= 1
        if a <= b:
            if a == b:
                parts.append(self.ls(a))
            else:
                sg, al, m = self.sigma, self.alpha, self.m
                qa, qb = self.logq(a), self.logq(b)
                parts.append(max(rdp_beta(log_b_upper(qb, sg, m), sg, al) - rdp_beta(qa, sg, al),
                                 rdp_beta(qb, sg, al) - rdp_beta(log_b_lower(qa, sg, m), sg, al)))
        return max(parts)


def smooth_sensitivity_value(rows, teachers, sigma, alpha, beta) -> mpf:
    """SS_β of E(X) = Σ_i β(q̃_i) at X: max over 0 ≤ d < K of e^{−βd} S(d), S(d) = Σ_i LS_d^{(i)} (Papernot's
    ``compute_discounted_max`` of the summed arrays, notes §8), by branch and bound over d: on [a, b] the discounted
    value is at most e^{−βa} Σ_i upper_i(a, b) (:meth:`_QueryWalk.upper`); intervals that cannot beat the best value
    found are dropped, so the maximum is exact with O(log K) evaluations per surviving branch. Identical rows share
    one walk."""
    sigma, alpha, beta = mpf(sigma), mpf(alpha), mpf(beta)
    walks: dict = {}
    weights: dict = {}
    for r in rows:
        key = tuple(r)
        if key not in walks:
            walks[key] = _QueryWalk(key, sigma, alpha, teachers)
        weights[key] = weights.get(key, 0) + 1

    def S(d):
        return mpmath.fsum(w * walks[k].ls(d) for k, w in weights.items())

    def U(a, b):
        return mpmath.fsum(w * walks[k].upper(a, b) for k, w in weights.items())

    last = teachers - 1
    best = max(S(0), mpmath.exp(-beta * last) * S(last))
    stack = [(0, last)]
    while stack:
        a, b = stack.pop()
        if b - a <= 1 or mpmath.exp(-beta * (a + 1)) * U(a + 1, b - 1) <= best:
            continue  # the ends a, b are evaluated already
        mid = (a + b) // 2
        best = max(best, mpmath.exp(-beta * mid) * S(mid))
        stack += [(a, mid), (mid, b)]
    return best


@self_checked
def smooth_sensitivity(votes, teachers, sigma, alpha, beta):
    """The β-smooth sensitivity of the data-dependent RDP of T GNMax queries (seed 003 §3.6.2, Alg 6 line 5; Papernot
    et al. 2018, arXiv 1802.08908v1, Appendix B Algs 3–5 and the discounted max): max_d e^{−βd} Σ_i LS_d^{(i)}."""
    rows = vote_rows(votes, "gptr.smooth_sensitivity")
    if sum(rows[0]) != int(teachers):
        raise ConditionError("gptr.smooth_sensitivity", [spec.VOTES_SUM.describe()])
    return smooth_sensitivity_value(rows, int(teachers), sigma, alpha, beta)


def data_dependent_rdp_beta(rows, sigma, alpha) -> mpf:
    """E(X) = Σ_i β(q̃_i), the data-dependent RDP whose smooth sensitivity :func:`smooth_sensitivity` bounds."""
    return mpmath.fsum(rdp_beta(logq_row(r, sigma), sigma, alpha) for r in rows)


def _ss_conditions(p) -> bool:
    return votes_sum_ok(p["votes"], p["teachers"]) or not votes_ok(p["votes"])


def _thm6_q0_ok(p) -> bool:
    """Papernot's construction needs Thm 6 valid at log_ub (α > 1 and σ > 0 always give it, see :func:`logq0`)."""
    ub = min(-(1 + 1 / p["sigma"]) ** 2, -((p["alpha"] - mpf("0.99")) / p["sigma"]) ** 2, -1 / p["sigma"] ** 2)
    return thm6_valid(ub, p["sigma"], p["alpha"])


register(Statement(
    id="gptr.smooth_sensitivity",
    fast="dpspec.fast.gptr.pate:smooth_sensitivity",
    source=Source(spec.SEED, "§3.6.2, smooth sensitivity SS_β (Alg 6 line 5)", "β-smooth upper bound on the local "
                  "sensitivity of the data-dependent RDP of T GNMax queries (Papernot et al. 2018, App. B)",
                  citation=PAPERNOT),
    kind="sensitivity",
    claim="upper",
    value=Value("number"),
    summary="SS_β(X) = max_{0≤d<K} e^{−βd} Σ_i LS_d^{(i)}(X), LS_d from Papernot Algs 3–5",
    params=(spec.P_VOTES, spec.P_TEACHERS, spec.P_GNMAX_SIGMA, spec.P_GNMAX_ALPHA, spec.P_SMOOTH_BETA),
    reference=smooth_sensitivity,
    conditions=(Condition.of(spec.VOTES_COUNTS, lambda p: votes_ok(p["votes"])),
                Condition.of(spec.VOTES_SUM, _ss_conditions),
                Condition.of(spec.THM6_Q0, _thm6_q0_ok)),
    privacy=Privacy("replace_one", "n/a", "none"),
    monotone={"beta": -1},
    note="Smoothness SS_β(X) ≤ e^β SS_β(X′) holds by construction (Nissim et al. 2007); LS_d bounds rely on "
         "Papernot's conditions C5–C6 (checked by their code with sympy; C5 here numerically in "
         "tests/gptr/test_gptr_pate.py). The RDP it is the sensitivity of is Papernot's β(q̃) (Thm 6 below q0, α/σ² "
         "above), which is ≥ gptr.thm3_6_4's value and equal to it below q0. Equals the authors' code (float) to "
         "1e-10 on the tested inputs.",
))


# ---------------------------------------------------------------------------------------------------------------
# Algorithm 6 (PATE-PTR), reference implementation


def gnmax(votes, sigma, rng: np.random.Generator) -> np.ndarray:
    """GNMax labels (seed 003 Alg 6 line 3): argmax_j (n_j(x_i) + N(0, σ1²)) for every query i."""
    counts = np.asarray(vote_rows(votes), dtype=np.float64)
    return np.argmax(counts + float(sigma) * rng.standard_normal(counts.shape), axis=1)


def alg6_pate_ptr(votes, sigma_1, eps_hat, eps_prime, delta, rng: np.random.Generator, *, teachers=None,
                  corrected: bool = True, dps: int = 20) -> dict:
    """Seed 003 Algorithm 6 (PATE-PTR), the clean version of notes §4: returns a dict with ``labels`` (an int array,
    or None for ⊥) and the accounting.

    Line 2: α = 2 log(2/δ)/ε̂ + 1, σ_s = σ_2 = √((3α+2)/ε̂), δ_2 = δ/2, β = 0.2/α (:func:`pate_constants`).
    Line 3: GNMax labels. Line 4: E(X) = Σ_i β(q̃_i) (Papernot's data-dependent RDP at order α). Line 5: SS_β(X).
    Line 6: μ = log SS + β N(0, σ_2²) + √(2 log(2/δ_2)) σ_2 β. Line 7 (Lemma 3.6.5): upper = E + SS N(0, σ_s²) +
    σ_s √(2 log(2/δ_2)) e^μ. Line 8: ε_σ1 = upper + log(2/δ)/(α − 1) (Mironov at δ/2). Line 9: release iff ε′ ≥ ε_σ1.

    The guarantee (gptr.thm3_6_6): (ε′ + ε̂_true, δ) with ``corrected`` (ε̂_true from the corrected Lemma 3.6.5),
    (ε′ + ε̂, δ) as printed otherwise. Bad input: vote counts that are not integer histograms, or whose rows do not
    sum to ``teachers`` (default: the first row's total) → ConditionError. Computed at ``dps`` digits (a readable
    algorithm, not a catalogue evaluator)."""
    from .pate import test_cost

    rows = vote_rows(votes, "gptr.thm3_6_6")
    if teachers is not None and sum(rows[0]) != int(teachers):
        raise ConditionError("gptr.thm3_6_6", [spec.VOTES_SUM.describe()])
    K = sum(rows[0])
    with mp.workdps(dps):
        delta_m = mpf(delta)
        alpha, sigma_s, beta = pate_constants(eps_hat, delta_m)
        sigma_2, delta_2 = sigma_s, delta_m / 2
        labels = gnmax(rows, sigma_1, rng)
        E = data_dependent_rdp_beta(rows, mpf(sigma_1), alpha)
        SS = smooth_sensitivity_value(rows, K, mpf(sigma_1), alpha, beta)
        c = mpmath.sqrt(2 * mpmath.log(2 / delta_2))
        z1, z2 = rng.standard_normal(2)
        if SS > 0:
            mu = mpmath.log(SS) + beta * sigma_2 * mpf(float(z2)) + c * sigma_2 * beta
            upper = E + SS * sigma_s * mpf(float(z1)) + sigma_s * c * mpmath.exp(mu)
        else:  # SS = 0: E is constant on every dataset, nothing to hide
            mu, upper = mpf("-inf"), E
        eps_sigma1 = upper + mpmath.log(2 / delta_m) / (alpha - 1)
        passed = mpf(eps_prime) >= eps_sigma1
        cost = test_cost(eps_hat, delta_m) if corrected else mpf(eps_hat)
        return {
            "labels": labels if passed else None,
            "passed": bool(passed),
            "alpha": float(alpha), "sigma_s": float(sigma_s), "beta": float(beta),
            "rdp": float(E), "smooth_sensitivity": float(SS), "mu": float(mu), "upper": float(upper),
            "eps_sigma1": float(eps_sigma1),
            "guarantee": (float(mpf(eps_prime) + cost), float(delta_m)),
            "gnss_rdp": float(gnss_rdp(alpha, beta, sigma_s, sigma_2)),
        }
