"""Composition, vectorised: RDP additivity and basic (ε, δ) composition (base.rdp_composition,
base.basic_composition), and homogeneous composition of (ε, δ)-DP mechanisms (Kairouz, Oh & Viswanath, ICML
2015, "KOV15"). Mirrors reference/base/composition.py (its docstring derives the profile of the k-fold canonical pair).

With p = e^ε/(1+e^ε), w_ℓ = C(k,ℓ) p^{k−ℓ} (1−p)^ℓ (Σ w_ℓ = 1) and the active set ℓ with (k−2ℓ)ε > ε_g:
    δ₀(ε_g) = Σ_active w_ℓ (1 − e^{ε_g − (k−2ℓ)ε}),
    1 − δ₀  = Σ_inactive w_ℓ + Σ_active w_ℓ e^{ε_g − (k−2ℓ)ε}     (used when δ₀ > 1/2, no cancellation),
    δ_g     = −expm1(k log1p(−δ) + log(1 − δ₀))                      (KOV15 Thm 3.3).
All sums are of non-negative terms, in log space, each over a window of ±√(30(k+2)) terms around its largest
term (the log-terms are concave in ℓ; see _half_width), so a point costs O(√k) terms, not O(k). log C(k,ℓ) comes
from a table of lgamma values for k ≤ 4096 (absolute error about 1e-16·log Γ(k+1) ≤ 3e-12) and from Loader's
saddle-point form above (absolute error a few 1e-16 whatever k; lgamma differences would lose 1e-10 at k = 10⁵,
the domain's end).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import KOV_EPS, KOV_STEPS, PER_STEP_EPS, SLACK_DELTA, STEP_DELTA
from dpspec.reference.domains import ALPHA, EPS, STEPS
from dpspec.reference.errors import DomainError

from .._torch import log1mexp, log_factorials, params


def rdp_composition(curve, steps, alpha) -> torch.Tensor:
    """ε_T(α) = T·ε(α) (Mironov 2017, Prop. 1), elementwise; ``curve`` maps an α tensor to ε(α) (e.g.
    :func:`dpspec.fast.conversion.rdp_curve`). A negative ε(α) is no RDP curve: DomainError, as the reference."""
    steps, alpha = params(steps=(steps, STEPS), alpha=(alpha, ALPHA))
    value = curve(alpha)
    if bool((value < 0).any()) or bool(torch.isnan(value).any()):
        bad = value[(value < 0) | torch.isnan(value)][0].item()
        raise DomainError("curve", f"eps(alpha) = {bad!r}", "an RDP curve with eps(alpha) >= 0")
    return steps * value


def basic_composition(eps, delta, k) -> tuple[torch.Tensor, torch.Tensor]:
    """(kε, kδ) (Dwork & Roth 2014, Thm 3.16), elementwise."""
    eps, delta, k = params(eps=(eps, EPS), delta=(delta, STEP_DELTA), k=(k, STEPS))
    return k * eps, k * delta


def kov15_profile(eps, delta, k, eps_total) -> torch.Tensor:
    """δ_g = 1 − (1−δ)^k (1 − Σ_ℓ C(k,ℓ)(e^{(k−ℓ)ε} − e^{ε_g+ℓε})₊/(1+e^ε)^k) (KOV15 Thm 3.3), elementwise.

    Each of the sums of the module docstring runs over a window of its index set around its largest term (see
    :func:`_log_windowed_sum`); 1 − δ₀ from the two other sums only where δ₀ > 1/2. At ε = 0, δ₀ ≡ 0:
    δ_g = 1 − (1−δ)^k (the sums run at ε = 1 there and are discarded)."""
    eps, delta, k, eps_total = params(eps=(eps, KOV_EPS), delta=(delta, STEP_DELTA), k=(k, KOV_STEPS),
                                      eps_total=(eps_total, EPS))
    shape = eps.shape
    e, d, kk, g = (t.reshape(-1) for t in torch.broadcast_tensors(eps, delta, k, eps_total))
    zero = e == 0
    e = torch.where(zero, torch.ones_like(e), e)
    terms = _KovTerms(e, kk, g, log_factorials(int(kk.max().item()) + 1, kk))
    n_active = terms.n_active()  # ℓ < n_active: (k − 2ℓ)ε > ε_g
    log_delta0 = _log_windowed_sum(terms, "delta0", torch.zeros_like(kk), torch.minimum(n_active - 1, kk))
    log_one_minus = torch.log1p(-torch.exp(torch.clamp(log_delta0, max=0.0)))
    big = log_delta0 > -math.log(2)
    if bool(big.any()):
        log_one_minus[big] = _log_one_minus_delta0(terms, n_active, big)
    log_one_minus = torch.where(zero, torch.zeros_like(log_one_minus), log_one_minus)
    return (-torch.expm1(kk * torch.log1p(-d) + log_one_minus)).reshape(shape)


def _log_one_minus_delta0(terms: "_KovTerms", n_active: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """log(1 − δ₀) on the ``rows`` (a mask) as the sum of positive terms Σ_inactive w_ℓ + Σ_active w_ℓ e^{gap}."""
    sub, n, k = terms.select(rows), n_active[rows], terms.k[rows]
    return torch.logaddexp(_log_windowed_sum(sub, "inactive", n, k),
                           _log_windowed_sum(sub, "rest", torch.zeros_like(k), torch.minimum(n - 1, k)))


def kov15_optimal(eps, delta, k, delta_prime) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε_g, δ_g) of the optimal homogeneous composition (KOV15 Thm 3.3) in the form of Thm 3.4, elementwise:
    ε_g = min{ε' ≥ 0 : δ₀(ε') ≤ δ'} and δ_g = 1 − (1−δ)^k(1 − δ'), as the reference ``kov15_optimal``.

    The segment [(k−2i)ε, (k−2i+2)ε) holding ε_g is found by a vectorised binary search on i (δ₀ at the grid
    points increases with i); on it δ₀(ε') = A − e^{ε'}B (A, B: sums over ℓ < i of the weights C(k,ℓ)p^{k−ℓ}(1−p)^ℓ
    and C(k,ℓ)p^ℓ(1−p)^{k−ℓ}), so ε_g = log((A − δ')/B), the reference's closed form. A − δ' can cancel in float,
    so three Newton steps in y = e^{ε'} follow (δ₀ is linear in y on the segment: one step is exact up to the
    accuracy of δ₀(ε') − δ'), with δ₀ (δ' ≤ 1/2) or 1 − δ₀ (δ' > 1/2: near δ' = 1, δ₀ itself would need 1e-16 of
    1 − δ') from sums of positive terms, and δ₀ − δ' formed from their logs; kept in the segment."""
    eps, delta, k, delta_prime = params(eps=(eps, KOV_EPS), delta=(delta, STEP_DELTA), k=(k, KOV_STEPS),
                                        delta_prime=(delta_prime, SLACK_DELTA))
    return kov15_optimal_unchecked(eps, delta, k, delta_prime)


def kov15_optimal_unchecked(eps, delta, k, delta_prime) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`kov15_optimal` on tensors already checked, for any integer k ≥ 1 (the catalogue caps k at 10⁵ for
    the reference's sake; callers such as the Fig. 3 route compose up to 10⁶ steps: O(√k) terms per point)."""
    # (not torch.broadcast_shapes: it imports sympy, 0.3 s, lazily — an import that conform's time-budget
    # interrupt once cut in half, leaving a broken sympy module behind)
    eps, delta, k, delta_prime = torch.broadcast_tensors(eps, delta, k, delta_prime)
    shape = eps.shape
    e, d, kk, dp = (t.reshape(-1) for t in (eps, delta, k, delta_prime))
    zero = e == 0  # δ₀ ≡ 0 at ε = 0: ε_g = 0 (the search runs at ε = 1 there and is discarded)
    e = torch.where(zero, torch.ones_like(e), e)
    log_dp = torch.log(dp)
    log_factorial = log_factorials(int(kk.max().item()) + 1, kk)
    zeros = torch.zeros_like(kk)

    near_one = dp > 0.5  # there δ₀ = δ' is solved as 1 − δ₀ = 1 − δ' (exact: Sterbenz), both sides small
    log_target = torch.where(near_one, torch.log1p(-dp), log_dp)

    def objective(eps_g):
        """log δ₀(ε') (δ' ≤ 1/2, decreasing) or log(1 − δ₀(ε')) (δ' > 1/2, increasing), each a positive sum."""
        terms = _KovTerms(e, kk, eps_g, log_factorial)
        n = terms.n_active()
        out = _log_windowed_sum(terms, "delta0", zeros, torch.minimum(n - 1, kk))
        if bool(near_one.any()):
            out[near_one] = _log_one_minus_delta0(terms, n, near_one)
        return out

    def reaches(i):  # δ₀((k − 2i)ε) ≥ δ', or the grid point is ≤ 0
        grid = (kk - 2 * i) * e
        value = objective(torch.clamp(grid, min=0.0))
        return (grid <= 0) | torch.where(near_one, value <= log_target, value >= log_target)

    lo, hi = torch.ones_like(kk), torch.floor((kk + 1) / 2) + 1  # reaches(hi): (k − 2·hi)ε ≤ 0
    for _ in range(int(math.ceil(math.log2(float(kk.max().item()) + 2))) + 1):
        mid = torch.floor((lo + hi) / 2)
        ok = reaches(mid)
        open_ = lo < hi
        hi, lo = torch.where(open_ & ok, mid, hi), torch.where(open_ & ~ok, mid + 1, lo)
    i = lo
    weights = _KovTerms(e, kk, zeros, log_factorial)
    log_d = _log_windowed_sum(weights, "delta0", zeros, i - 1)  # log D: Σ_{ℓ<i} w_ℓ(1 − e^{−(k−2ℓ)ε}) = A − B
    log_b = _log_windowed_sum(weights, "rest", zeros, i - 1)  # log B: Σ_{ℓ<i} w_ℓ e^{−(k−2ℓ)ε}
    seg_lo = torch.clamp((kk - 2 * i) * e, min=0.0)
    seg_hi = (kk - 2 * i + 2) * e
    # e^{ε_g} = (A − δ')/B = 1 + (D − δ')/B (reference _segment_eps): D and B are positive sums, so for tiny ε the
    # start is not the difference of two O(1) logs (log A − log B lost every digit at ε = 1e-300). Where the
    # segment's end (k − 2i + 2)ε overflows, so does ε_g ≥ (k − 2i)ε (ε > 1.8e303 for k ≤ 1e5): the float value is
    # inf (before, nan_to_num also turned +inf into 1.8e308). A NaN start (non-finite terms) becomes the segment's
    # lower end; the Newton steps below refine every start.
    eps_g = torch.log1p(torch.exp(log_d + log1mexp(torch.clamp(log_dp - log_d, max=0.0)) - log_b))
    eps_g = torch.clamp(torch.nan_to_num(eps_g, nan=0.0, posinf=math.inf), min=seg_lo, max=seg_hi)
    for _ in range(3):  # Newton in y = e^{ε'}, where δ₀ = A − yB is linear: y ← y + (δ₀(y) − δ')/B
        value = objective(eps_g)
        # δ₀ − δ' = e^value − δ' (δ' ≤ 1/2) or (1 − δ') − e^value (δ' > 1/2), formed from logs without cancellation
        above = torch.where(near_one, value < log_target, value > log_target)  # δ₀ > δ': ε' must grow
        hi_log, lo_log = torch.maximum(value, log_target), torch.minimum(value, log_target)
        log_gap = log1mexp(torch.clamp(lo_log - hi_log, max=0.0)) + hi_log  # log |δ₀ − δ'|
        ratio = torch.exp(log_gap - eps_g - log_b)
        step = torch.log1p(torch.where(above, ratio, -torch.clamp(ratio, max=1 - 1e-16)))
        eps_g = torch.where(torch.isfinite(step), torch.clamp(eps_g + step, min=seg_lo, max=seg_hi), eps_g)
    # ε_g = 0 where δ₀(0) ≤ δ' (compared in the same form; at δ' = 1 the target log(1 − δ') = −inf always holds)
    at_zero = objective(zeros)
    eps_g = torch.where(torch.where(near_one, at_zero >= log_target, at_zero <= log_target) | zero, zeros, eps_g)
    delta_g = -torch.expm1(kk * torch.log1p(-d) + torch.log1p(-dp))
    return eps_g.reshape(shape), delta_g.reshape(shape)


class _KovTerms:
    """log of the terms of the three KOV15 sums at integer ℓ (float tensors), per point of a flat batch."""

    def __init__(self, e, k, g, log_factorial):
        self.e, self.k, self.g, self.log_factorial = e, k, g, log_factorial
        self.log_p = -torch.nn.functional.softplus(-e)  # log e^ε/(1+e^ε)
        self.log_1mp = -torch.nn.functional.softplus(e)  # log 1/(1+e^ε)

    def select(self, mask):
        return _KovTerms(self.e[mask], self.k[mask], self.g[mask], self.log_factorial)

    def gap(self, ell, rows=...):
        return self.g[rows] - (self.k[rows] - 2 * ell) * self.e[rows]  # < 0 exactly on the active set

    def n_active(self):
        """The number of ℓ ≥ 0 with gap(ℓ) < 0 (gap increases with ℓ), from the closed form, then corrected by
        the same float comparison the sums use."""
        n = torch.clamp(torch.ceil((self.k - self.g / self.e) / 2), min=0)
        n = torch.minimum(n, self.k + 1)
        for _ in range(2):
            n = torch.where((n > 0) & (self.gap(n - 1) >= 0), n - 1, n)
            n = torch.where((n <= self.k) & (self.gap(n) < 0), n + 1, n)
        return n

    def log(self, kind, ell, rows=..., precise=True):
        """log of term ``kind`` at ℓ (ell: tensor of shape (rows,) or (rows, j)); ℓ must lie in [0, k]. log C(k,ℓ)
        from log-gamma differences, or, for k > 4096 unless ``precise=False`` (enough to compare neighbours),
        from Loader's form (:func:`_log_binomial_pmf`)."""
        k, g, e, lp, l1p = (t[rows] for t in (self.k, self.g, self.e, self.log_p, self.log_1mp))
        if ell.ndim == 2:
            k, g, e, lp, l1p = (t.unsqueeze(-1) for t in (k, g, e, lp, l1p))
        gap = g - (k - 2 * ell) * e  # as in gap()
        lf = self.log_factorial
        log_w = lf[k.long()] - lf[ell.long()] - lf[(k - ell).long()] + (k - ell) * lp + ell * l1p
        large = (k > _LGAMMA_K_MAX).reshape(-1)
        if precise and bool(large.any()):  # there log-gamma differences lose more than 1e-16·log(4096!) ≈ 3e-12
            log_w[large] = _log_binomial_pmf(ell[large], k[large], lp[large], l1p[large], lf)
        if kind == "delta0":  # the sums run over active ℓ (gap < 0); a zero term is −inf (no clamp: gaps of 1e-300
            # are real at ε = 1e-300, and a clamp to −1e-300 made ε_g 0.2% off there)
            return log_w + torch.where(gap < 0, torch.log(-torch.expm1(torch.clamp(gap, max=0.0))),
                                       torch.full_like(gap, -math.inf))
        if kind == "rest":
            return log_w + gap
        return log_w


_LGAMMA_K_MAX = 4096
_STIRLERR_SERIES = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188)


def _stirlerr(n: torch.Tensor, log_factorial: torch.Tensor) -> torch.Tensor:
    """log n! − log(√(2πn)(n/e)^n) for integers n ≥ 1: from the table below 16, else its asymptotic series
    (Loader 2000, "Fast and accurate computation of binomial probabilities"; error < 1e-17 for n ≥ 16)."""
    small = n < 16
    ns = torch.where(small, n, torch.ones_like(n))
    table = log_factorial[ns.long()] - (ns + 0.5) * torch.log(ns) + ns - 0.5 * math.log(2 * math.pi)
    nb = torch.where(small, torch.full_like(n, 16.0), n)
    inv2 = 1 / (nb * nb)
    series = torch.zeros_like(nb)
    for c in reversed(_STIRLERR_SERIES):
        series = series * inv2 + c
    return torch.where(small, table, series / nb)


def _bd0(x: torch.Tensor, m: torch.Tensor) -> torch.Tensor:
    """x log(x/m) + m − x ≥ 0 without cancellation (Loader 2000): a series in v = (x − m)/(x + m) when x ≈ m."""
    close = (x - m).abs() < 0.1 * (x + m)
    v = torch.where(close, (x - m) / (x + m), torch.zeros_like(x))
    total = (x - m) * v
    term = 2 * x * v
    v2 = v * v
    for j in range(1, 10):  # |v| < 0.1: the terms fall by 100 per step (the 10th is below 1e-20 of the first)
        term = term * v2
        total = total + term / (2 * j + 1)
    direct = x * torch.log(torch.where(close, torch.ones_like(x), x / m)) + m - x
    return torch.where(close, total, direct)


def _log_binomial_pmf(ell, k, log_p, log_1mp, log_factorial):
    """log C(k,ℓ) p^{k−ℓ}(1−p)^ℓ to an absolute error of a few 1e-16·(1 + |log term|) whatever k (Loader's
    saddle-point form; log-gamma differences lose 1e-16·log k! ≈ 1e-10 at k = 10⁵). ``k``, ``log_p``,
    ``log_1mp`` may have size 1 along the dimensions in which ``ell`` varies; what depends on them only is
    computed at their size."""
    inner = (ell > 0) & (ell < k)
    li = torch.where(inner, ell, torch.ones_like(ell))
    kc = torch.clamp(k, min=2.0)
    mean_low, mean_high = kc * torch.exp(log_1mp), kc * torch.exp(log_p)  # E ℓ, E(k − ℓ)
    lc = (_stirlerr(kc, log_factorial) - _stirlerr(li, log_factorial) - _stirlerr(torch.clamp(kc - li, min=1.0), log_factorial)
          - _bd0(li, mean_low) - _bd0(kc - li, mean_high))
    log_inner = lc - 0.5 * (math.log(2 * math.pi) + torch.log(li) + torch.log1p(-li / kc))
    return torch.where(inner, log_inner, torch.where(ell == 0, k * log_p, k * log_1mp))


# half-width of a window around a sum's largest term: the log of every term is concave in ℓ with second
# difference ≤ −4/(k+2) (that of the binomial weights), so a term H from the largest is below it by at least
# 2(H−1)²/(k+2) ≥ 60, and all terms outside the window together are below e^{−60}(k+1) < 1e-20 of the sum.
def _half_width(k):
    return torch.ceil(torch.sqrt(30 * (k + 2))) + 2


def _log_windowed_sum(terms: _KovTerms, kind: str, lo: torch.Tensor, hi: torch.Tensor) -> torch.Tensor:
    """log Σ_{ℓ=lo}^{hi} of the terms ``kind`` (−inf where the range is empty), over a window around the largest
    term: its position by a vectorised binary search on the sign of the (non-increasing) log-differences,
    then at most 2H + 1 terms. Points are grouped by window length (powers of two) to limit padding."""
    out = torch.full_like(lo, -math.inf)
    nonempty = hi >= lo
    # argmax: the smallest ℓ in [lo, hi] with log t(ℓ+1) ≤ log t(ℓ), or hi
    a, b = lo.clone(), torch.maximum(hi, lo)
    for _ in range(int(math.ceil(math.log2(float(terms.k.max().item()) + 2))) + 1):
        mid = torch.floor((a + b) / 2)
        step = mid + 1 <= hi
        rising = step & (terms.log(kind, torch.minimum(mid + 1, terms.k), precise=False)
                         > terms.log(kind, mid, precise=False))
        a, b = torch.where(rising, mid + 1, a), torch.where(rising, b, mid)
    h = _half_width(terms.k)
    start, stop = torch.maximum(a - h, lo), torch.minimum(a + h, hi)
    length = torch.clamp(stop - start + 1, min=1)
    bucket = torch.ceil(torch.log2(length)).long()
    for level in torch.unique(bucket[nonempty]).tolist():
        rows = torch.nonzero(nonempty & (bucket == level)).squeeze(-1)
        ell = start[rows].unsqueeze(-1) + torch.arange(2**level, dtype=lo.dtype, device=lo.device)
        inside = ell <= stop[rows].unsqueeze(-1)
        ell = torch.minimum(ell, stop[rows].unsqueeze(-1))
        values = torch.where(inside, terms.log(kind, ell, rows), torch.full_like(ell, -math.inf))
        out[rows] = torch.logsumexp(values, dim=-1)
    return out


def kov15_closed(eps, delta, k, delta_prime) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε̃, δ_g) of KOV15 Thm 3.4: ε̃ = min{kε, kε·tanh(ε/2) + ε√(2k log(e + √(kε²)/δ')),
    kε·tanh(ε/2) + ε√(2k log(1/δ'))}, δ_g = 1 − (1−δ)^k(1 − δ'), elementwise."""
    eps, delta, k, delta_prime = params(eps=(eps, PER_STEP_EPS), delta=(delta, STEP_DELTA), k=(k, KOV_STEPS),
                                        delta_prime=(delta_prime, SLACK_DELTA))
    drift = torch.tanh(eps / 2) * eps * k  # (e^ε − 1)/(e^ε + 1) = tanh(ε/2)
    log_term = torch.logaddexp(torch.ones_like(eps), 0.5 * torch.log(k) + torch.log(eps) - torch.log(delta_prime))
    second = drift + eps * torch.sqrt(2 * k * log_term)
    third = drift + eps * torch.sqrt(2 * k * -torch.log(delta_prime))
    delta_g = -torch.expm1(k * torch.log1p(-delta) + torch.log1p(-delta_prime))
    return torch.minimum(k * eps, torch.minimum(second, third)), delta_g
