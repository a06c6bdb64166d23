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

Exact log-moments ln E_Q[(p/q)^α] are mpmath (integer orders ≥ 0 of the Gaussian mixture by a binomial sum,
other orders by quadrature). ``strata(**params)`` returns [(probability, sampler)]: the branches s ≤ thr and
s > thr (of each mixture component), so the δ0-rare branch can be sampled on its own and weighted.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from ..catalogue import Witness, register_witness
from ..precision import log_add, logsumexp
from .notation import laplace_log_moment
from .spec import P_B, P_DELTA0, P_Q, P_SIGMA1, P_SIGMA2
from .rq import ratio_expectation, rq_hyp2f1
from .thm4_3 import case1_log_moment

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
# exact moments (mpmath)


def _truncation(beta, A, sigma):
    """Half-width L in z = t/σ beyond which the Gaussian-mixture integrand is negligible: the integrand is
    ≤ φ(z)·max((1−A)^β, e^{βz/σ}) and the integrals are ≥ 1 for β ∉ (0, 1) (Jensen, E[λ] = 1), so the cut-off
    tails are below 10^{−(dps+10)} relative."""
    log_cap = abs(beta) * abs(mpmath.log1p(-A)) if A < 1 else mpf(0)
    return abs(beta) / sigma + mpmath.sqrt(2 * (mpmath.log(10) * (mpmath.mp.dps + 10) + log_cap)) + 1


def gaussian_mixture_log_moment(beta, A, sigma):
    """ln G_β(A, σ), G_β(A, σ) = E_{t~N(0,σ²)}[((1−A) + A·N(t;1,σ²)/N(t;0,σ²))^β] (the sampled-Gaussian moment;
    notes §3.4). Integer β ≥ 0: Σ_k C(β,k)(1−A)^{β−k}A^k e^{k(k−1)/(2σ²)}; otherwise quadrature over t."""
    A, sigma = mpf(A), mpf(sigma)
    if A == 0:
        return mpf(0)
    if beta >= 0 and beta == int(beta):
        n = int(beta)
        terms = [mpmath.log(mpmath.binomial(n, k)) + k * mpmath.log(A) + k * (k - 1) / (2 * sigma**2)
                 + ((n - k) * mpmath.log1p(-A) if k < n else mpf(0)) for k in range(n + 1)]
        return logsumexp(terms)

    L = _truncation(beta, A, sigma)

    def integrand(z):
        ratio = 1 - A + A * mpmath.exp(z / sigma - 1 / (2 * sigma**2))
        return mpmath.npdf(z) * ratio**beta

    return mpmath.log(mpmath.quad(integrand, [-L, 0, L]))


def _case1_sub_log_moment(beta, q, sigma1, sigma2, delta0):
    return log_add(mpmath.log1p(-delta0) + gaussian_mixture_log_moment(beta, q, sigma1),
                   mpmath.log(delta0) + gaussian_mixture_log_moment(beta, q, sigma2))


def _case2_sub_log_moment(beta, q, sigma1, b):
    """ln E_{μ0}[(μ/μ0)^β] for the Case-2 per-T pair. With t normalised to shift 1/σ1 in both branches,
    μ/μ0 = 1 − q + q·ρ(s)·λ(t) (ρ, λ the Laplace and Gaussian likelihood ratios, independent under μ0), so

        E = E_{s~Lap(0,b)}[r(s)^β G_β(A(s), σ1)],   r = 1−q+qρ, A = qρ/r          (integer β ≥ 0: binomial G)
          = E_{t~N(0,σ1²)}[(1−q+qλ(t))^β R_{q̃(t)}^(β)],  q̃ = qλ/(1−q+qλ)          (other β: ₂F₁ form of R)."""
    if beta >= 0 and beta == int(beta):
        def g(rho):
            r = 1 - q + q * rho
            return mpmath.exp(beta * mpmath.log(r) + gaussian_mixture_log_moment(beta, q * rho / r, sigma1))
        return mpmath.log(ratio_expectation(g, b))

    def integrand(z):
        lam = mpmath.exp(z / sigma1 - 1 / (2 * sigma1**2))
        c = 1 - q + q * lam
        return mpmath.npdf(z) * c**beta * rq_hyp2f1(beta, q * lam / c, b)

    L = _truncation(beta, q, sigma1)
    return mpmath.log(mpmath.quad(integrand, [-L, 0, L]))


def case1_fwd_log_moment(alpha, q, sigma1, sigma2, b, delta0):
    """ln E_{μ0}[(μ/μ0)^α] = ln[(1−δ0) G_α(q,σ1) + δ0 G_α(q,σ2)] (notes §3.4)."""
    return _case1_sub_log_moment(mpf(alpha), mpf(q), mpf(sigma1), mpf(sigma2), mpf(delta0))


def case1_rev_log_moment(alpha, q, sigma1, sigma2, b, delta0):
    """ln E_{μ}[(μ0/μ)^α] = ln E_{μ0}[(μ/μ0)^{1−α}] = ln[(1−δ0) G_{1−α}(q,σ1) + δ0 G_{1−α}(q,σ2)]."""
    return _case1_sub_log_moment(1 - mpf(alpha), mpf(q), mpf(sigma1), mpf(sigma2), mpf(delta0))


def case2_fwd_log_moment(alpha, q, sigma1, sigma2, b, delta0):
    """ln E_{μ0}[(μ/μ0)^α] for the Case-2 per-T pair (notes §3.4)."""
    return _case2_sub_log_moment(mpf(alpha), mpf(q), mpf(sigma1), mpf(b))


def case2_rev_log_moment(alpha, q, sigma1, sigma2, b, delta0):
    """ln E_{μ}[(μ0/μ)^α] = ln E_{μ0}[(μ/μ0)^{1−α}] for the Case-2 per-T pair (notes §3.4)."""
    return _case2_sub_log_moment(1 - mpf(alpha), mpf(q), mpf(sigma1), mpf(b))


def thm4_3_case1_log_moment(alpha, sigma1, sigma2, b, delta0):
    """ln E_Q[(p/q)^α] = ln[(1−δ0)e^{α(α−1)/(2σ1²)} + δ0 e^{α(α−1)/(2σ2²)}] = (α−1)·T1(α) (appendix eq. (24))."""
    return case1_log_moment(mpf(alpha), mpf(sigma1), mpf(sigma2), mpf(delta0))


def thm4_3_case2_log_moment(alpha, sigma1, sigma2, b, delta0):
    """ln E_Q[(p/q)^α] = α(α−1)/(2σ1²) + (α−1)ε_R-Lap^(b)(α) = (α−1)·T2(α) (appendix eq. (32), with equality)."""
    alpha = mpf(alpha)
    return alpha * (alpha - 1) / (2 * mpf(sigma1) ** 2) + laplace_log_moment(alpha, mpf(b))


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
