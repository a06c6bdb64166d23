"""Neighbouring output distributions (P, Q) of PTR, for sampling the privacy loss (notes §3).

Outputs are o = (s, t) ∈ R², arrays of shape (n, 2): s = Δ̂, the noisy safety margin, and t the released value
after the rotation argument of appendix 000, eq. (16) (a d-dimensional release with shift ||f(S) − f(S')|| is
the 1-D release along the shift). The branch is s ≤ thr (f1, σ1) or s > thr (f2, σ2), thr = b ln(1/(2δ0)).

Theorem 4.3 (non-subsampled; both pairs are dominating: each attains one term of the max, notes §3.3)
  ``ptr.thm4_3.case1``  LS_f2 > τ on both sides: Δ = Δ' = 0, both releases shifted by GS = 1.
      P: s ~ Lap(0,b), t|s ~ N(0, σ(s)²);  Q: s ~ Lap(0,b), t|s ~ N(1, σ(s)²).  E_Q[(p/q)^α] = f_α(T1(α)).
  ``ptr.thm4_3.case2``  Δ' = Δ + 1, f1 shifted by 1, f2 by τ = σ2/σ1 (so both branches have normalised shift 1/σ1).
      P: s ~ Lap(0,b), t|s ~ N(0, σ(s)²);  Q: s ~ Lap(1,b), t|s ~ N(m(s), σ(s)²), m = 1 (s ≤ thr), τ (s > thr).
      E_Q[(p/q)^α] = f_α(T2(α)).
Theorem 4.4 (one subset T of the quasi-convexity argument, appendix 000 eqs. (45)–(48); μ = (1−q)μ0 + qμ1 with μ0
the output law on T and μ1 on T ∪ {x}). Lower-bound witnesses (dominating=False): every valid upper bound on the
subsampled PTR must dominate their exact moments (they are realisable with S = ∅, S' = {x}).
  ``ptr.thm4_4.case1_fwd`` (P, Q) = (μ, μ0) and ``…case1_rev`` (μ0, μ), with μ0, μ1 the Case-1 laws above.
  ``ptr.thm4_4.case2_fwd`` (μ, μ0) and ``…case2_rev`` (μ0, μ), with μ0, μ1 the Case-2 laws above.

Exact log-moments ln E_Q[(p/q)^α] are mpmath, computed from the laws themselves and never through the statements'
evaluators (T1, T2, ε_R-Lap, R_q): the Thm 4.3 pairs in closed form, the subsampled pairs by a binomial sum of those
closed forms at integer orders and by quadrature over the log-likelihood ratio (whose density is in closed form)
at the others (section "exact moments" below). ``strata(**params)`` returns [(probability, sampler)]: the branches
s ≤ thr and s > thr (of each mixture component), so the δ0-rare branch can be sampled on its own and weighted.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from ..base.sgm import witness_guarded, witness_log_quad, witness_order, witness_truncation
from ..catalogue import Witness, register_witness
from ..precision import checked_param, logsumexp, to_mpf
from .spec import P_B, P_DELTA0, P_Q, P_SIGMA1, P_SIGMA2

SOURCE = "notes ptr-rdp.md §3.3–3.4; appendix 000_0fe14ad2f9124ea1.txt, A.1–A.2"

# --------------------------------------------------------------------------------------------------------------
# numpy pieces (samplers and log-densities)


def _thr(b, delta0) -> float:
    return float(b) * math.log(1 / (2 * float(delta0)))


def _lap_logpdf(x, m, b):
    return -np.abs(x - m) / b - math.log(2 * b)


def _norm_logpdf(x, m, sig):
    return -0.5 * ((x - m) / sig) ** 2 - np.log(sig) - 0.5 * math.log(2 * math.pi)


def _lap_tail_prob(m, b, thr) -> float:
    """Pr[Lap(m, b) > thr]."""
    z = (thr - m) / b
    return 0.5 * math.exp(-z) if z >= 0 else 1 - 0.5 * math.exp(z)


def _lap_conditional(rng, n, m, b, thr, upper: bool) -> np.ndarray:
    """n draws of Lap(m, b) conditioned on s > thr (upper) or s ≤ thr: memoryless exponential tail when the
    condition is a tail of the Laplace, otherwise rejection (acceptance probability ≥ 1/2)."""
    if upper and thr >= m:
        return thr + rng.exponential(b, n)
    if not upper and thr <= m:
        return thr - rng.exponential(b, n)
    out = np.empty(0)
    while out.size < n:
        s = rng.laplace(m, b, 2 * (n - out.size) + 16)
        out = np.concatenate([out, s[(s > thr) if upper else (s <= thr)]])
    return out[:n]


def _branch_sigma(s, sigma1, sigma2, thr):
    return np.where(s <= thr, sigma1, sigma2)


class _Law:
    """The output law of PTR on one dataset: s ~ Lap(loc, b); t | s ~ N(shift(s), σ(s)²)."""

    def __init__(self, loc, shift1, shift2, sigma1, sigma2, b, delta0):
        self.loc, self.shift1, self.shift2 = loc, shift1, shift2
        self.sigma1, self.sigma2, self.b = float(sigma1), float(sigma2), float(b)
        self.thr = _thr(b, delta0)

    def _t(self, rng, s):
        sig = _branch_sigma(s, self.sigma1, self.sigma2, self.thr)
        mean = np.where(s <= self.thr, self.shift1, self.shift2)
        return mean + sig * rng.standard_normal(s.shape)

    def sample(self, rng, n):
        s = rng.laplace(self.loc, self.b, n)
        return np.column_stack([s, self._t(rng, s)])

    def sample_branch(self, rng, n, upper: bool):
        s = _lap_conditional(rng, n, self.loc, self.b, self.thr, upper)
        return np.column_stack([s, self._t(rng, s)])

    def upper_prob(self) -> float:
        return _lap_tail_prob(self.loc, self.b, self.thr)

    def log_pdf(self, o):
        o = np.asarray(o, dtype=float)
        s, t = o[..., 0], o[..., 1]
        sig = _branch_sigma(s, self.sigma1, self.sigma2, self.thr)
        mean = np.where(s <= self.thr, self.shift1, self.shift2)
        return _lap_logpdf(s, self.loc, self.b) + _norm_logpdf(t, mean, sig)


class _Mixture:
    """(1−q)·law0 + q·law1 (Poisson subsampling of one element, appendix 000 eq. (46))."""

    def __init__(self, q, law0, law1):
        self.q, self.laws = float(q), (law0, law1)

    def sample(self, rng, n):
        pick = rng.random(n) < self.q
        out = self.laws[0].sample(rng, n)
        out[pick] = self.laws[1].sample(rng, int(pick.sum()))
        return out

    def log_pdf(self, o):
        return np.logaddexp(math.log1p(-self.q) + self.laws[0].log_pdf(o), math.log(self.q) + self.laws[1].log_pdf(o))

    def strata(self):
        out = []
        for weight, law in ((1 - self.q, self.laws[0]), (self.q, self.laws[1])):
            out += [(weight * p, sampler) for p, sampler in _law_strata(law)]
        return out


def _law_strata(law):
    p_up = law.upper_prob()
    return [(1 - p_up, lambda rng, n, law=law: law.sample_branch(rng, n, upper=False)),
            (p_up, lambda rng, n, law=law: law.sample_branch(rng, n, upper=True))]


def _tau(sigma1, sigma2) -> float:
    return float(sigma2) / float(sigma1)


def _laws(case, sigma1, sigma2, b, delta0):
    """(law on S or T, law on S' or T ∪ {x}) of the Case-1 / Case-2 worst-case pair."""
    base = _Law(0.0, 0.0, 0.0, sigma1, sigma2, b, delta0)
    if case == 1:
        return base, _Law(0.0, 1.0, 1.0, sigma1, sigma2, b, delta0)
    return base, _Law(1.0, 1.0, _tau(sigma1, sigma2), sigma1, sigma2, b, delta0)


# --------------------------------------------------------------------------------------------------------------
# exact moments (mpmath), from the pairs' own definitions — never through a statement's reference evaluator
# (issue 12: T1, T2, ε_R-Lap and R_q are what the exact conformance check tests, so they must not be used here)
#
# The laws above in mpmath: a law is (loc, shift1, shift2) with the common (σ1, σ2, b, thr): s ~ Lap(loc, b) and
# t | s ~ N(shift(s), σ(s)²), branch 1 (σ1) on s ≤ thr, branch 2 (σ2) on s > thr. Two routes:
#
# * pair moments (Thm 4.3 pairs; and every order k of law1 against law0): in closed form. Given s, the t-part of
#   ∫ p^α q^{1−α} dt is the Gaussian moment e^{α(α−1)(m_P − m_Q)²/(2σ(s)²)} (moment generating function), constant
#   on each branch; the s-part Lap(s; loc_P, b)^α Lap(s; loc_Q, b)^{1−α} is e^{linear} between the breakpoints
#   {loc_P, loc_Q, thr}, integrated exactly piece by piece (:func:`_pair_log_moment`).
# * subsampled pairs, E_{law0}[(1 − q + q·ℓ)^β] with ℓ = law1/law0 and β = α (fwd) or 1 − α (rev, E_μ[(μ0/μ)^α] =
#   E_{μ0}[(μ/μ0)^{1−α}]): for integer 0 ≤ β ≤ BINOMIAL_MAX the binomial sum Σ_k C(β,k)(1−q)^{β−k}q^k E_{law0}[ℓ^k]
#   of the pair moments above; otherwise quadrature over x = log ℓ, whose density under law0 is in closed form:
#   given s, x = log ρ(s) + κz − κ²/2 with z ~ N(0, 1), κ = (m1 − m0)/σ(s) and log ρ(s) linear on each piece, so
#   each piece contributes a Gaussian (log ρ constant) or a Gaussian smeared by an exponential over an interval (a
#   difference of normal CDFs) (:func:`_log_ratio_density`, :func:`_sub_log_moment_quad`).
# tests/conformance/test_witnesses.py checks the routes against each other, against the statements (T1, T2 and
# ZW19's tight formula equal these moments; Theorem 4.4 bounds them), the mpmath laws against the numpy densities,
# and the samplers against the moments.

BINOMIAL_MAX = 256  # integer orders up to this use the binomial sum of closed forms; others, the quadrature


class _MpLaw:
    def __init__(self, loc, shift1, shift2):
        self.loc, self.shifts = mpf(loc), (mpf(shift1), mpf(shift2))


def _mp_common(sigma1, sigma2, b, delta0):
    """(σ1, σ2, b, thr) in mpmath, thr = b ln(1/(2δ0)) (Pr[Lap(0, b) > thr] = δ0)."""
    sigma1, sigma2, b, delta0 = (to_mpf(x) for x in (sigma1, sigma2, b, delta0))
    return sigma1, sigma2, b, b * mpmath.log(1 / (2 * delta0))


def _mp_laws(case, sigma1, sigma2, b, delta0):
    """(law on S or T, law on S' or T ∪ {x}) in mpmath: the same pairs as :func:`_laws` (tested)."""
    common = _mp_common(sigma1, sigma2, b, delta0)
    base = _MpLaw(0, 0, 0)
    if case == 1:
        return base, _MpLaw(0, 1, 1), common
    return base, _MpLaw(1, 1, common[1] / common[0]), common


def mp_law_log_pdf(law, common, s, t):
    """log density of a law at (s, t), mpmath (the numpy _Law.log_pdf written again, for the tests)."""
    sigma1, sigma2, b, thr = common
    branch = 0 if s <= thr else 1
    sig = (sigma1, sigma2)[branch]
    return (-abs(s - law.loc) / b - mpmath.log(2 * b) - ((t - law.shifts[branch]) / sig) ** 2 / 2
            - mpmath.log(sig) - mpmath.log(2 * mpmath.pi) / 2)


def _pieces(common, *locs):
    """The s-pieces (u, v) between the sorted breakpoints {locs, thr}, u = −inf first and v = +inf last, each with
    its branch (0: s ≤ thr, 1: s > thr)."""
    thr = common[3]
    cuts = sorted(set(locs) | {thr})
    ends = [mpf("-inf")] + cuts + [mpf("inf")]
    return [(u, v, 0 if v <= thr else 1) for u, v in zip(ends[:-1], ends[1:])]


def _log_int_exp_linear(f, u, v, b):
    """log ∫_u^v e^{f(s)} ds for f linear on [u, v] (an infinite end: slope ±1/b there, so the integral is b·e^{f}
    at the finite end)."""
    if mpmath.isinf(u) and mpmath.isinf(v):
        raise ValueError("a piece needs one finite end")
    if mpmath.isinf(u) or mpmath.isinf(v):
        return mpmath.log(b) + f(v if mpmath.isinf(u) else u)
    fu, fv = f(u), f(v)
    d = abs(fv - fu)
    width = mpmath.log(v - u) + max(fu, fv)
    return width if d == 0 else width + mpmath.log(-mpmath.expm1(-d) / d)


def _pair_log_moment(alpha, P, Q, common):
    """log ∫∫ p^α q^{1−α} ds dt for two laws P, Q (closed form; see the section comment)."""
    sigma1, sigma2, b, _ = common
    sig = (sigma1, sigma2)
    terms = []
    for u, v, br in _pieces(common, P.loc, Q.loc):
        f = lambda s: -(alpha * abs(s - P.loc) + (1 - alpha) * abs(s - Q.loc)) / b - mpmath.log(2 * b)
        gauss = alpha * (alpha - 1) * (P.shifts[br] - Q.shifts[br]) ** 2 / (2 * sig[br] ** 2)
        terms.append(_log_int_exp_linear(f, u, v, b) + gauss)
    return logsumexp(terms)


def _log_phi_diff(A, B):
    """log(Φ(B) − Φ(A)), A < B, from the tail on the side where both lie (no cancellation of two numbers near 1)."""
    if A >= 0:
        return mpmath.log(mpmath.ncdf(-A) - mpmath.ncdf(-B))
    return mpmath.log(mpmath.ncdf(B) - mpmath.ncdf(A))


def _log_ratio_density(law0, law1, common):
    """x ↦ log of the density of x = log(law1/law0)(s, t) under law0, and the list of Gaussian centres and widths
    (c, κ) it is made of (for the quadrature's breakpoints)."""
    sigma1, sigma2, b, _ = common
    sig = (sigma1, sigma2)
    parts, centres = [], []
    for u, v, br in _pieces(common, law0.loc, law1.loc):
        kappa = (law1.shifts[br] - law0.shifts[br]) / sig[br]
        if kappa == 0:
            raise ValueError("the two laws release with the same mean on a branch: log ℓ has atoms")
        kappa = abs(kappa)
        # on (u, v): log Lap(s; loc0, b) = a0 + a1·s and log ρ(s) = r0 + r1·s (ρ = Lap(s; loc1)/Lap(s; loc0))
        mid = (u + v) / 2 if not (mpmath.isinf(u) or mpmath.isinf(v)) else (v - 1 if mpmath.isinf(u) else u + 1)
        a1 = -mpmath.sign(mid - law0.loc) / b
        a0 = -abs(mid - law0.loc) / b - mpmath.log(2 * b) - a1 * mid
        r1 = (mpmath.sign(mid - law0.loc) - mpmath.sign(mid - law1.loc)) / b
        r0 = (abs(mid - law0.loc) - abs(mid - law1.loc)) / b - r1 * mid
        f = lambda s, a0=a0, a1=a1: a0 + a1 * s
        if r1 == 0:
            log_mass = _log_int_exp_linear(f, u, v, b)
            parts.append(("atom", log_mass, r0 - kappa**2 / 2, kappa))
            centres.append((r0 - kappa**2 / 2, kappa))
        else:
            parts.append(("smear", a0, a1, r0, r1, u, v, kappa))
            centres += [(r0 + r1 * u - kappa**2 / 2, kappa), (r0 + r1 * v - kappa**2 / 2, kappa)]

    log_norm = mpmath.log(2 * mpmath.pi) / 2
    atoms = [(mpmath.exp(p[1] - mpmath.log(p[3]) - log_norm), p[2], p[3]) for p in parts if p[0] == "atom"]
    smears = [p[1:] for p in parts if p[0] == "smear"]

    def log_density(x):
        total = mpf(0)
        for weight, c, kappa in atoms:
            total += weight * mpmath.exp(-((x - c) / kappa) ** 2 / 2)
        for a0, a1, r0, r1, u, v, kappa in smears:
            # ∫_u^v e^{a0 + a1 s} φ_κ(x − r0 − r1 s + κ²/2) ds: complete the square in s
            c = x - r0 + kappa**2 / 2
            s_star = (r1 * c + a1 * kappa**2) / r1**2
            w = kappa / abs(r1)
            total += mpmath.exp(a0 + a1 * c / r1 + (a1 * kappa / r1) ** 2 / 2 + _log_phi_diff((u - s_star) / w,
                                                                                            (v - s_star) / w)) / abs(r1)
        return mpmath.log(total)

    return log_density, centres


def _sub_log_moment_quad(beta, q, law0, law1, common):
    """log E_{law0}[(1 − q + q·ℓ)^β] by quadrature over x = log ℓ (any real β). Bounds: (1 − q + qe^x)^β ≤
    2^{|β|}(1 − q)^{−|β|}·max(1, e^{βx}) and each Gaussian part of the density, tilted by e^{βx}, is a Gaussian moved
    by βκ², so beyond witness_truncation(·)·κ of the outermost (moved) centres the tails are negligible."""
    log_density, centres = _log_ratio_density(law0, law1, common)
    log_1mq = mpmath.log1p(-q)
    cap = abs(beta) * (mpmath.log(2) - log_1mq)
    half = witness_truncation(beta, cap)
    kmax = max(k for _, k in centres)
    moved = [c + max(beta, 0) * k**2 for c, k in centres]
    points = [c for c, _ in centres] + moved
    lo, hi = min(c for c, _ in centres) - half * kmax, max(moved) + half * kmax
    x_star = log_1mq - mpmath.log(q)  # where qe^x = 1 − q
    points += [lo, hi] + ([x_star] if lo < x_star < hi else [])

    def log_f(x):
        return log_density(x) + beta * (log_1mq + mpmath.log1p(q / (1 - q) * mpmath.exp(x)))

    return witness_log_quad(log_f, [p for p in points if lo <= p <= hi], "ptr witness", kmax)


def _sub_log_moment_binomial(n, q, law0, law1, common):
    """log Σ_k C(n,k)(1−q)^{n−k} q^k E_{law0}[ℓ^k] (integer n ≥ 0), E_{law0}[ℓ^k] the pair moment of order k."""
    terms = [mpmath.log(mpmath.binomial(n, k)) + (n - k) * mpmath.log1p(-q) + k * mpmath.log(q)
             + (_pair_log_moment(mpf(k), law1, law0, common) if k > 1 else mpf(0)) for k in range(n + 1)]
    return logsumexp(terms)


def _lost_digits(alpha, sigmas, b):
    """Digits by which M − 1 may fall below 1 (M − 1 ≳ α(α−1)·min(1/σ², 1/b²)/2): guard digits, a priori."""
    alpha = to_mpf(alpha)
    scale = max(max(0, 2 * mpmath.log10(to_mpf(x))) for x in (*sigmas, b))
    return scale + sum(max(0, -mpmath.log10(abs(v))) for v in (alpha, alpha - 1) if v != 0)


def _check(names_values):
    for name, domain, value in names_values:
        checked_param(name, domain, value)


def _checked_pair_params(alpha, sigma1, sigma2, b, delta0, q=None):
    witness_order(alpha)
    _check([("sigma1", P_SIGMA1.domain, sigma1), ("sigma2", P_SIGMA2.domain, sigma2), ("b", P_B.domain, b),
            ("delta0", P_DELTA0.domain, delta0)] + ([("q", P_Q.domain, q)] if q is not None else []))


def _pair_moment(case, alpha, sigma1, sigma2, b, delta0):
    _checked_pair_params(alpha, sigma1, sigma2, b, delta0)
    if to_mpf(alpha) in (0, 1):
        return mpf(0)  # E_Q[1] = E_Q[p/q] = 1 (the laws are mutually absolutely continuous)

    def compute():
        law0, law1, common = _mp_laws(case, sigma1, sigma2, b, delta0)
        return _pair_log_moment(to_mpf(alpha), law0, law1, common)  # P = law on S, Q = law on S'

    return witness_guarded(compute, f"ptr.thm4_3.case{case} witness", _lost_digits(alpha, (sigma1, sigma2), b))


def _sub_moment(case, beta_of, alpha, q, sigma1, sigma2, b, delta0):
    _checked_pair_params(alpha, sigma1, sigma2, b, delta0, q)
    if to_mpf(alpha) in (0, 1):
        return mpf(0)  # E_Q[1] = E_Q[p/q] = 1 (the laws are mutually absolutely continuous)

    def compute():
        law0, law1, common = _mp_laws(case, sigma1, sigma2, b, delta0)
        beta, qq = beta_of(to_mpf(alpha)), to_mpf(q)
        if beta == int(beta) and 0 <= beta <= BINOMIAL_MAX:
            return _sub_log_moment_binomial(int(beta), qq, law0, law1, common)
        return _sub_log_moment_quad(beta, qq, law0, law1, common)

    lost = _lost_digits(alpha, (sigma1, sigma2), b) + 2 * max(0, -mpmath.log10(to_mpf(q)))
    return witness_guarded(compute, f"ptr.thm4_4.case{case} witness", lost)


def _case2_sub_log_moment(beta, q, sigma1, b):
    """ln E_{μ0}[(μ/μ0)^β] of the Case-2 per-subset pair: it depends on σ1 and b only (both branches have the
    normalised shift 1/σ1), so σ2 = σ1 and δ0 = 1/4 stand in for the others."""
    return _sub_moment(2, lambda a: a, beta, q, sigma1, sigma1, b, mpf(1) / 4)


def case1_fwd_log_moment(alpha, q, sigma1, sigma2, b, delta0):
    """ln E_{μ0}[(μ/μ0)^α], μ = (1−q)μ0 + qμ1, Case-1 laws (section comment: binomial sum or quadrature)."""
    return _sub_moment(1, lambda a: a, alpha, q, sigma1, sigma2, b, delta0)


def case1_rev_log_moment(alpha, q, sigma1, sigma2, b, delta0):
    """ln E_{μ}[(μ0/μ)^α] = ln E_{μ0}[(μ/μ0)^{1−α}], Case-1 laws."""
    return _sub_moment(1, lambda a: 1 - a, alpha, q, sigma1, sigma2, b, delta0)


def case2_fwd_log_moment(alpha, q, sigma1, sigma2, b, delta0):
    """ln E_{μ0}[(μ/μ0)^α] for the Case-2 per-subset pair."""
    return _sub_moment(2, lambda a: a, alpha, q, sigma1, sigma2, b, delta0)


def case2_rev_log_moment(alpha, q, sigma1, sigma2, b, delta0):
    """ln E_{μ}[(μ0/μ)^α] = ln E_{μ0}[(μ/μ0)^{1−α}] for the Case-2 per-subset pair."""
    return _sub_moment(2, lambda a: 1 - a, alpha, q, sigma1, sigma2, b, delta0)


def thm4_3_case1_log_moment(alpha, sigma1, sigma2, b, delta0):
    """ln E_Q[(p/q)^α] of the Case-1 pair in closed form from the laws (equals (α−1)·T1(α), appendix eq. (24))."""
    return _pair_moment(1, alpha, sigma1, sigma2, b, delta0)


def thm4_3_case2_log_moment(alpha, sigma1, sigma2, b, delta0):
    """ln E_Q[(p/q)^α] of the Case-2 pair in closed form from the laws (equals (α−1)·T2(α), appendix eq. (32)
    with equality)."""
    return _pair_moment(2, alpha, sigma1, sigma2, b, delta0)


# --------------------------------------------------------------------------------------------------------------
# registration

_PAIR_PARAMS = (P_SIGMA1, P_SIGMA2, P_B, P_DELTA0)
_SUB_PARAMS = (P_Q, P_SIGMA1, P_SIGMA2, P_B, P_DELTA0)


def _register_pair(case):
    def sample(rng, n, sigma1, sigma2, b, delta0):
        return _laws(case, sigma1, sigma2, b, delta0)[0].sample(rng, n)

    def log_p(o, sigma1, sigma2, b, delta0):
        return _laws(case, sigma1, sigma2, b, delta0)[0].log_pdf(o)

    def log_q(o, sigma1, sigma2, b, delta0):
        return _laws(case, sigma1, sigma2, b, delta0)[1].log_pdf(o)

    def strata(sigma1, sigma2, b, delta0):
        return _law_strata(_laws(case, sigma1, sigma2, b, delta0)[0])

    what = ("Case 1 (Δ = Δ' = 0; f1 and f2 shifted by GS = 1): attains T1 of Theorem 4.3" if case == 1 else
            "Case 2 (Δ' = Δ + 1; f1 shifted by 1, f2 by τ = σ2/σ1): attains T2 of Theorem 4.3")
    register_witness(Witness(
        id=f"ptr.thm4_3.case{case}", description=what, params=_PAIR_PARAMS,
        sample=sample, log_p=log_p, log_q=log_q, source=SOURCE, dominating=True,
        log_moment=thm4_3_case1_log_moment if case == 1 else thm4_3_case2_log_moment, strata=strata,
        note="Symmetric pair: the reverse direction has the same moments. P is the law on S, Q on S'."))


def _register_sub(case, direction, log_moment):
    def laws(q, sigma1, sigma2, b, delta0):
        law0, law1 = _laws(case, sigma1, sigma2, b, delta0)
        return law0, _Mixture(q, law0, law1)

    first = 1 if direction == "fwd" else 0  # fwd: P = μ (mixture), Q = μ0; rev: P = μ0, Q = μ

    def sample(rng, n, q, sigma1, sigma2, b, delta0):
        return laws(q, sigma1, sigma2, b, delta0)[first].sample(rng, n)

    def log_p(o, q, sigma1, sigma2, b, delta0):
        return laws(q, sigma1, sigma2, b, delta0)[first].log_pdf(o)

    def log_q(o, q, sigma1, sigma2, b, delta0):
        return laws(q, sigma1, sigma2, b, delta0)[1 - first].log_pdf(o)

    def strata(q, sigma1, sigma2, b, delta0):
        p = laws(q, sigma1, sigma2, b, delta0)[first]
        return p.strata() if isinstance(p, _Mixture) else _law_strata(p)

    pq = "(μ, μ0)" if direction == "fwd" else "(μ0, μ)"
    register_witness(Witness(
        id=f"ptr.thm4_4.case{case}_{direction}",
        description=f"Poisson-subsampled PTR, one subset T, Case {case}: (P, Q) = {pq}, μ = (1−q)μ0 + qμ1",
        params=_SUB_PARAMS, sample=sample, log_p=log_p, log_q=log_q, source=SOURCE, dominating=False,
        log_moment=log_moment, strata=strata,
        note="Per-subset worst case of the quasi-convexity step (appendix eqs. (45)–(48)); realisable with "
             "S = ∅, S' = {x}, so its exact moment lower-bounds the worst case of subsampled PTR."))


_register_pair(1)
_register_pair(2)
_register_sub(1, "fwd", case1_fwd_log_moment)
_register_sub(1, "rev", case1_rev_log_moment)
_register_sub(2, "fwd", case2_fwd_log_moment)
_register_sub(2, "rev", case2_rev_log_moment)
