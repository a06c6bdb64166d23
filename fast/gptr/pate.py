"""PATE with generalized PTR on the torch fast path (float64, batched over T queries × Rényi orders): GNMax's
data-dependent RDP (Papernot et al. 2018, Thm 6 with Prop 7's q̃ and Prop 10's μ1, μ2, its validity conditions with
the paper's α ≤ μ1, min with the data-independent α/σ²; seed 003 Theorem 3.6.4, erratum E3), the printed form
exp(−2α/σ²)/α, the T-fold data-independent DP, Papernot's smooth sensitivity (LS at distance k, Algorithms 3–5 of
Papernot et al. 2018 as in their code: the monotone walk, here evaluated at every distance at once by water-filling),
the RDP of the (μ, upper) release of Lemma 3.6.5 (the exact GNSS worst case under the smooth-sensitivity axioms, as
the reference; Papernot's Thm 23 beside it; the printed (3α + 2)/(2σ_s²), erratum E2), its exact coverage failure
(Lemma 3.6.5 (ii)), and Algorithm 6's constants, test cost and accounting (Theorem 3.6.6). Mirrors
``dpspec.reference.gptr.pate`` and ``smooth_sensitivity``.

Everything is in log space (notes generalized-ptr.md §8): q̃ down to 1e-40 at realistic gaps and far below (log q̃ =
−10⁵ at a gap of n with small σ), log(1 − q) as log1mexp, b_u/b_l of Papernot's Prop 13 through log erfc and an
inverse of log Φ, Thm 6 as a logaddexp.

Votes: a (…, T, C) tensor (or array / nested list): one row of C ≥ 2 class counts per query, the leading dimensions
batch. The per-query results have the shape (…, T); σ and α broadcast against the batch (…) (e.g. votes (T, C) with
α of shape (A,) gives the A orders' sums, :func:`gnmax_rdp_per_query` the (A, T) table).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import DomainError
from dpspec.reference.gptr import spec

from .._torch import as_tensor, log1mexp, log_integral, params
from ._common import log_2_over, refuse_outside

_SQRT2 = math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


# ---------------------------------------------------------------------------------------------------------------
# special functions in log space


def log_erfc(x: torch.Tensor) -> torch.Tensor:
    """log erfc(x) for every real x: log erfcx(x) − x² for x > 0 (no underflow at x > 26.5), log erfc(x) else."""
    pos = x > 0
    xp = torch.where(pos, x, torch.zeros_like(x))
    xn = torch.where(pos, torch.zeros_like(x), x)
    return torch.where(pos, torch.log(torch.special.erfcx(xp)) - xp * xp, torch.log(torch.special.erfc(xn)))


def ndtri_exp(log_p: torch.Tensor) -> torch.Tensor:
    """Φ^{-1}(e^{log p}) for log p ≤ 0, also where e^{log p} underflows: ndtri where p ≥ 1e-300, else the
    asymptotic start x0 = −√(−2 log p − log(−4π log p)) refined by Newton steps on log Φ(x) = log p (log Φ is concave,
    the steps converge monotonically from the start)."""
    tiny = log_p < -690.0
    direct = torch.special.ndtri(torch.exp(torch.where(tiny, torch.zeros_like(log_p), log_p)))
    lp = torch.where(tiny, log_p, torch.full_like(log_p, -1000.0))
    x = -torch.sqrt(-2 * lp - torch.log(-4 * math.pi * lp))
    for _ in range(8):
        log_phi = -x * x / 2 - _LOG_SQRT_2PI
        x = x - (torch.special.log_ndtr(x) - lp) * torch.exp(torch.special.log_ndtr(x) - log_phi)
    return torch.where(tiny, x, direct)


def erfcinv_log(log_y: torch.Tensor) -> torch.Tensor:
    """erfc^{-1}(y) from log y, y ∈ (0, 1]: −Φ^{-1}(y/2)/√2."""
    return -ndtri_exp(log_y - math.log(2.0)) / _SQRT2


# ---------------------------------------------------------------------------------------------------------------
# votes


def as_votes(votes, name: str = "votes") -> torch.Tensor:
    """Votes as a float64 tensor (…, T, C) (a 1-d vector is one query); refuses non-finite entries. The counting
    conditions (non-negative integers, C ≥ 2, equal row totals) are checked by :func:`votes_ok` and
    :func:`votes_sum_ok`."""
    v = as_tensor(votes, name=name)
    if v.ndim == 1:
        v = v.unsqueeze(0)
    if v.ndim < 2 or not bool(torch.isfinite(v).all()):
        raise DomainError(name, "array", "an (m, d) array of finite reals (JSON on the command line)")
    return v


def votes_ok(votes: torch.Tensor) -> bool:
    """spec.VOTES_COUNTS: T ≥ 1 rows of C ≥ 2 non-negative integers, every row with the same total ≥ 1."""
    if votes.shape[-1] < 2 or votes.shape[-2] < 1:
        return False
    if not (bool((votes >= 0).all()) and bool((votes == torch.round(votes)).all())):
        return False
    totals = votes.sum(-1)
    return bool((totals >= 1).all()) and bool((totals == totals.reshape(-1)[0]).all())


def votes_sum_ok(votes: torch.Tensor, teachers) -> bool:
    """spec.VOTES_SUM: every row sums to the number of teachers K (True where votes_counts already fails, as the
    reference's predicate)."""
    if not votes_ok(votes):
        return True
    return bool((votes.sum(-1) == torch.as_tensor(teachers, dtype=votes.dtype)).all())


def log_q(votes: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """log q̃ of Papernot et al. 2018, Prop 7: log Σ_{i ≠ i*} P[N(0, 2σ²) > n_{i*} − n_i] (i* the first argmax),
    capped at log(1 − 1/C) (``compute_logq_gaussian``); votes (…, C), σ broadcasting with (…)."""
    C = votes.shape[-1]
    top, idx = votes.max(-1, keepdim=True)
    gaps = top - votes
    terms = torch.special.log_ndtr(-gaps / (_SQRT2 * sigma.unsqueeze(-1)))
    excluded = torch.zeros_like(votes, dtype=torch.bool).scatter_(-1, idx, True)
    terms = torch.where(excluded, torch.full_like(terms, -math.inf), terms)
    return torch.clamp(torch.logsumexp(terms, -1), max=math.log1p(-1.0 / C))


# ---------------------------------------------------------------------------------------------------------------
# Papernot Thm 6 (data-dependent RDP of GNMax given q̃)


def _mu(logq, sigma):
    """(μ1, μ2) of Papernot Prop 10: μ2 = σ√(−log q), μ1 = μ2 + 1."""
    mu2 = sigma * torch.sqrt(torch.clamp(-logq, min=0.0))
    return mu2 + 1, mu2


def _thm6(logq: torch.Tensor, sigma: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """Papernot Thm 6 at (μ1, μ2) of Prop 10, without its conditions (``_compute_data_dep_bound_gnmax``):
    (1/(α−1)) log((1 − q)A^{α−1} + qB^{α−1}), A = (1 − q)/(1 − (q e^{ε2})^{(μ2−1)/μ2}), B = e^{ε1}/q^{1/(μ1−1)},
    εi = μi/σ². Values where −log q ≤ ε2 or μ2 ≤ 1 are not used (set to +inf)."""
    var = sigma * sigma
    mu1, mu2 = _mu(logq, sigma)
    eps1, eps2 = mu1 / var, mu2 / var
    ok = (mu2 > 1) & (logq + eps2 < 0) & torch.isfinite(logq)
    lq = torch.where(ok, logq, torch.full_like(logq, -1.0))
    m2 = torch.where(ok, mu2, torch.full_like(mu2, 2.0))
    m1 = m2 + 1
    e1, e2 = m1 / var, m2 / var
    log1q = log1mexp(lq)
    log_a = (alpha - 1) * (log1q - log1mexp((lq + e2) * (1 - 1 / m2)))
    log_b = (alpha - 1) * (e1 - lq / (m1 - 1))
    far = torch.logaddexp(log1q + log_a, lq + log_b)
    # near α = 1 (log A^{α−1}, log B^{α−1} → 0) the log of 1 + (1 − q)(A^{α−1} − 1) + q(B^{α−1} − 1) keeps the digits
    # that the log-sum-exp cancels (relative error ~1e-16/(α − 1) there; the reference's thm6_bound form)
    near_ok = torch.maximum(log_a.abs(), log_b.abs()) < 1.0
    la = torch.where(near_ok, log_a, torch.zeros_like(log_a))
    lb = torch.where(near_ok, log_b, torch.ones_like(log_b))
    near = torch.log1p(torch.exp(log1q) * torch.expm1(la) + torch.exp(lq) * torch.expm1(lb))
    out = torch.where(near_ok, near, far) / (alpha - 1)
    del eps1, eps2
    return torch.where(ok, out, torch.full_like(out, math.inf))


def _thm6_valid(logq: torch.Tensor, sigma: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """Papernot Thm 6's conditions (arXiv 1802.08908v1 Thm 6, Prop 10; their ``rdp_gaussian``): α ≤ μ1 (the paper's
    λ ≤ μ1; the code has α < μ1, the reference follows the paper), μ2 > 1, log q ≤ (μ2 − 1)ε2 − μ2 log(μ1/(μ1 − 1) ·
    μ2/(μ2 − 1)) and −log q > ε2."""
    var = sigma * sigma
    mu1, mu2 = _mu(logq, sigma)
    eps2 = mu2 / var
    m2 = torch.where(mu2 > 1, mu2, torch.full_like(mu2, 2.0))
    m1 = m2 + 1
    lemma9 = logq <= (m2 - 1) * eps2 - m2 * (torch.log1p(1 / (m1 - 1)) + torch.log1p(1 / (m2 - 1)))
    return (alpha <= mu1) & (mu2 > 1) & lemma9 & (-logq > eps2)


def rdp_from_logq(logq, sigma, alpha) -> torch.Tensor:
    """Papernot's ``rdp_gaussian``: α/σ², replaced by Thm 6 where its conditions hold and it is smaller; 0 where
    log q = −inf (the output is fixed). Checked-free tensors broadcasting together."""
    logq, sigma, alpha = torch.broadcast_tensors(logq, sigma, alpha)
    data_ind = alpha / (sigma * sigma)
    dep = _thm6(logq, sigma, alpha)
    out = torch.where(_thm6_valid(logq, sigma, alpha), torch.minimum(dep, data_ind), data_ind)
    return torch.where(torch.isneginf(logq), torch.zeros_like(out), out)


def _sigma_alpha(sigma, alpha):
    return params(sigma=(sigma, spec.P_GNMAX_SIGMA.domain), alpha=(alpha, spec.P_GNMAX_ALPHA.domain))


def _batch(t: torch.Tensor) -> torch.Tensor:
    """A per-point parameter (σ, α, β) against per-query values (…, T): one trailing axis added to a tensor."""
    return t.unsqueeze(-1) if t.ndim else t


def gnmax_rdp_per_query(votes, sigma, alpha, allow_outside: bool = False) -> torch.Tensor:
    """The data-dependent RDP of each query, min(α/σ², Thm 6 at q̃_t) where Thm 6's conditions hold, else α/σ²
    (Papernot et al. 2018 Thm 6 + Prop 7 + Prop 10), shape (…, T) broadcast with σ and α (…)."""
    v = as_votes(votes)
    sigma, alpha = _sigma_alpha(sigma, alpha)  # the domains first, as Statement.evaluate checks them
    refuse_outside("gptr.thm3_6_4", [(spec.VOTES_COUNTS, votes_ok(v))], allow_outside)
    s, a = _batch(sigma), _batch(alpha)
    return rdp_from_logq(log_q(v, s), s, a)


def gnmax_rdp_data_dependent(votes, sigma, alpha, allow_outside: bool = False) -> torch.Tensor:
    """The data-dependent RDP at order α of the T GNMax answers, Σ_t min(α/σ², Thm 6 at q̃_t) (Papernot et al. 2018
    Thm 6 + Prop 7 with the validity conditions; seed 003 Theorem 3.6.4's data-dependent half, replaced: erratum
    E3). votes (…, T, C): summed over the T rows; σ, α broadcast against the batch (…) — e.g. votes (T, C) with α of
    shape (A,) gives the A orders of one vote matrix. ConditionError (votes_counts) where the votes are not counts
    of one teacher population, as the reference."""
    return gnmax_rdp_per_query(votes, sigma, alpha, allow_outside).sum(-1)


def gnmax_logq(votes, sigma, allow_outside: bool = False) -> torch.Tensor:
    """log q̃ of one query (Papernot et al. 2018, Prop 7; ``gptr.prop7_logq``): votes one row of C counts (or a
    batch (…, 1, C)); σ broadcast with the batch."""
    v = as_votes(votes)
    (sigma,) = params(sigma=(sigma, spec.P_GNMAX_SIGMA.domain))  # the domains first, as Statement.evaluate
    ok = votes_ok(v)
    refuse_outside("gptr.prop7_logq", [(spec.VOTES_COUNTS, ok), (spec.SINGLE_QUERY, not ok or v.shape[-2] == 1)],
                   allow_outside)
    return log_q(v, _batch(sigma)).squeeze(-1) if v.shape[-2] == 1 else log_q(v, _batch(sigma))


def gnmax_rdp_printed(sigma, alpha) -> torch.Tensor:
    """exp(−2α/σ²)/α per query, seed 003 Theorem 3.6.4 as printed (erratum E3: gap-independent, decreasing in α, not
    a bound)."""
    sigma, alpha = _sigma_alpha(sigma, alpha)
    return torch.exp(-2 * alpha / (sigma * sigma)) / alpha


def gnmax_data_independent_rdp(sigma, alpha) -> torch.Tensor:
    """α/σ² per query (Papernot et al. 2018 Prop 8: ℓ2 sensitivity √2; seed 003 Theorem 3.6.4's data-independent
    half)."""
    sigma, alpha = _sigma_alpha(sigma, alpha)
    return alpha / (sigma * sigma)


def gnmax_composed(T, sigma, delta) -> torch.Tensor:
    """min_α [Tα/σ² + log(1/δ)/(α − 1)] = T/σ² + 2√(T log(1/δ))/σ (T data-independent GNMax answers converted to DP
    at δ by Mironov's Prop 3; notes §2.4, attained at α = 1 + σ√(log(1/δ)/T); ``gptr.gnmax_composed``)."""
    T, sigma, delta = params(T=(T, spec.P_QUERIES.domain), sigma=(sigma, spec.P_GNMAX_SIGMA.domain),
                             delta=(delta, spec.P_DELTA.domain))
    return T / (sigma * sigma) + 2 * torch.sqrt(T * -torch.log(delta)) / sigma


# ---------------------------------------------------------------------------------------------------------------
# smooth sensitivity (Papernot et al. 2018, App. B: Algorithms 3–5 and their code)


def _bisect_increasing(f, lo: torch.Tensor, hi: torch.Tensor, steps: int = 120) -> torch.Tensor:
    """A root of f between lo and hi (f(lo) ≤ 0 < f(hi)), elementwise bisection to adjacent floats."""
    for _ in range(steps):
        mid = (lo + hi) / 2
        up = f(mid) > 0
        hi = torch.where(up, mid, hi)
        lo = torch.where(up, lo, mid)
    return (lo + hi) / 2


def logq0(sigma: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """log q0 of Papernot's ``compute_logq0_gnmax``: below it Thm 6 is smaller than α/σ² (the root of Thm 6 − α/σ²
    in log q, bracketed below the natural bound log q_ub = min(−(1 + 1/σ)², −((α − 0.99)/σ)², −1/σ²))."""
    sigma, alpha = torch.broadcast_tensors(sigma, alpha)
    ind = alpha / (sigma * sigma)
    cmp = lambda lq: _thm6(lq, sigma, alpha) - ind  # noqa: E731
    ub = torch.minimum(torch.minimum(-(1 + 1 / sigma) ** 2, -((alpha - 0.99) / sigma) ** 2), -1 / sigma**2)
    lb = 2 * ub
    for _ in range(200):  # loglb *= 1.5 while the data-dependent bound is still larger
        more = cmp(lb) > 0
        if not bool(more.any()):
            break
        lb = torch.where(more, 1.5 * lb, lb)
    root = _bisect_increasing(cmp, lb, ub)
    return torch.where(cmp(ub) < 0, ub, root)


def _log_b(logq: torch.Tensor, sigma: torch.Tensor, m: int, upper: bool) -> torch.Tensor:
    """log b_u(q) = log min(1, (m−1)/2 · erfc(erfc^{-1}(2q/(m−1)) − 1/σ)) (``upper``) or log b_l(q) = log((m−1)/2 ·
    erfc(erfc^{-1}(2q/(m−1)) + 1/σ)) (Papernot et al. 2018, Prop 13), in log space."""
    half = math.log((m - 1) / 2)
    z = erfcinv_log(logq + math.log(2.0 / (m - 1)))
    out = half + log_erfc(z + (-1 if upper else 1) / sigma)
    return torch.clamp(out, max=0.0) if upper else out


def _rdp_smooth(logq, sigma, alpha, lq0):
    """Papernot's ``_compute_rdp_gnmax``: α/σ² where log q ≥ log q0, Thm 6 below (no other condition)."""
    ind = alpha / (sigma * sigma)
    return torch.where(logq >= lq0, ind, _thm6(logq, sigma, alpha))


def _local_sensitivity(logq, sigma, alpha, m, lq0, lq1):
    """Papernot's Algorithm 3 (``_compute_local_sens_gnmax``): log q in [log q1, log q0] is moved to log q1, then
    max(β(b_u(q)) − β(q), β(q) − β(b_l(q))). At the moved point b_u(q1) = b_u(b_l(q0)) = q0 exactly (b_u and b_l
    are inverse maps), so log q0 itself is used there: in floating point the round trip lands a rounding error on
    either side of log q0, where β jumps when log q0 is the natural bound (Thm 6 already below α/σ² there) — the
    reference at 30 digits and Papernot's float code then differ from the exact value (the reference at 20, 38 and
    50 digits agrees with this choice; votes [[2, 0, 0, 0]], σ = 1, α = 1.778: plateau 1.7214, not 1.0021)."""
    moved = (logq >= lq1) & (logq <= lq0)
    logq = torch.where(moved, lq1, logq)
    beta = _rdp_smooth(logq, sigma, alpha, lq0)
    log_up = torch.where(moved, lq0 + torch.zeros_like(logq), _log_b(logq, sigma, m, True))
    up = _rdp_smooth(log_up, sigma, alpha, lq0)
    down = _rdp_smooth(_log_b(logq, sigma, m, False), sigma, alpha, lq0)
    return torch.maximum(up - beta, beta - down)


def _walk_states(votes: torch.Tensor, teachers: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The vote vectors at distances d = 0 … K − 1 of Papernot's walk (``compute_local_sensitivity_bounds_gnmax``),
    both directions, shape (…, T, K, C), sorted so that column 0 is the top class:
    left: the top class gains d votes, taken one at a time from the largest of the others (water-filling: the
    top j+1 other classes are levelled, j the largest with Σ_{i≤j}(r_i − r_j) ≤ d);
    right: the top class loses d votes to the second."""
    v, _ = torch.sort(votes, dim=-1, descending=True)
    top, rest = v[..., :1], v[..., 1:]  # (…, T, 1), (…, T, C−1)
    K, c = teachers, rest.shape[-1]
    d = torch.arange(K, dtype=v.dtype, device=v.device)  # (K,)
    # cost to level the top j+1 classes to r_j: c_j = Σ_{i<j}(r_i − r_j) = prefix_j − j·r_j
    prefix = torch.cumsum(rest, -1)
    j_idx = torch.arange(c, dtype=v.dtype, device=v.device)
    cost = (prefix - rest) - j_idx * rest  # c_j (c_0 = 0), non-decreasing in j
    j = (cost.unsqueeze(-2) <= d.view(-1, 1)).sum(-1) - 1  # (…, T, K): the largest j with c_j ≤ d
    mass = torch.gather(prefix, -1, j) - d  # Σ_{i≤j} r_i − d, spread over j + 1 classes
    width = (j + 1).to(v.dtype)
    level = torch.floor(torch.clamp(mass, min=0.0) / width)
    extra = torch.clamp(mass, min=0.0) - level * width  # classes at level + 1
    pos = j_idx.view(*([1] * (rest.ndim - 1)), 1, -1)  # (…, 1, 1, C−1) broadcast over (T, K)
    levelled = level.unsqueeze(-1) + (pos < extra.unsqueeze(-1)).to(v.dtype)
    new_rest = torch.where(pos <= j.unsqueeze(-1).to(v.dtype), levelled, rest.unsqueeze(-2))
    left = torch.cat([(top + d).unsqueeze(-1), new_rest], -1)
    right_top = top - d  # (…, T, K)
    right_second = rest[..., :1] + d
    right = torch.cat([right_top.unsqueeze(-1), right_second.unsqueeze(-1),
                       rest[..., 1:].unsqueeze(-2).expand(*right_top.shape, c - 1)], -1)
    return left, right


def local_sensitivities(votes, sigma, alpha, teachers) -> torch.Tensor:
    """LS at distance d = 0 … K − 1 of the data-dependent RDP of each GNMax query (Papernot et al. 2018, Algorithms
    4–5, ``compute_local_sensitivity_bounds_gnmax``), shape (…, T, K); σ and α scalars or broadcasting with (…)."""
    return _walk(votes, sigma, alpha, int(teachers))[0]


def walk_lengths(votes, sigma, alpha, teachers) -> torch.Tensor:
    """The number of distances d (0 … K) each query's walk evaluates before it settles on the plateau (0 where the
    votes start inside [log q1, log q0]); K where the walk fills the whole LS array."""
    return _walk(votes, sigma, alpha, int(teachers))[1].sum(-1)


def _walk(v, sigma, alpha, K: int):
    """(LS (…, T, K), walked mask (…, T, K)) of Papernot's walk, every distance at once."""
    m = v.shape[-1]
    sig = sigma.unsqueeze(-1).unsqueeze(-1) if sigma.ndim else sigma
    alp = alpha.unsqueeze(-1).unsqueeze(-1) if alpha.ndim else alpha
    lq0 = logq0(sig, alp)
    lq1 = _log_b(lq0, sig, m, False)
    plateau = _local_sensitivity(lq1, sig, alp, m, lq0, lq1)
    left, right = _walk_states(v, K)  # (…, T, K, C)
    lq_left = log_q(left, sig)
    lq_right = log_q(right, sig)
    lq_start = lq_left[..., :1]  # d = 0: the votes themselves
    go_left = lq_start > lq0
    lq_walk = torch.where(go_left, lq_left, lq_right)
    ls = _local_sensitivity(lq_walk, sig, alp, m, lq0, lq1)
    # the walk stops after the first d whose log q leaves the region (left: log q ≤ log q0 or the second class is
    # empty; right: log q ≥ log q1); the entries after it are the plateau
    second = left[..., 1]
    stop_left = (lq_left <= lq0) | (second <= 0)
    stop_right = lq_right >= lq1
    stop = torch.where(go_left, stop_left, stop_right)
    stopped_before = torch.cumsum(stop.to(torch.int64), -1) - stop.to(torch.int64) > 0
    inside = (lq_start >= lq1) & (lq_start <= lq0)
    walked = ~stopped_before & ~inside
    return torch.where(walked, ls, plateau), walked


def smooth_sensitivity(votes, teachers, sigma, alpha, beta, allow_outside: bool = False) -> torch.Tensor:
    """SS_β = max_{0≤d<K} e^{−βd} Σ_t LS_t(d): the β-smooth sensitivity of the T queries' summed data-dependent RDP
    at order α (``gptr.smooth_sensitivity``; Papernot et al. 2018 App. B Algs 3–5 and ``compute_discounted_max`` of
    the summed LS arrays, notes §8). votes (T, C) (or a batch (…, T, C) with σ, α, β broadcasting against (…));
    one number of teachers K per call. Refused (votes_counts, votes_sum, thm6_at_ub) as the reference."""
    v = as_votes(votes)
    sigma, alpha, beta, K = params(sigma=(sigma, spec.P_GNMAX_SIGMA.domain), alpha=(alpha, spec.P_GNMAX_ALPHA.domain),
                                   beta=(beta, spec.P_SMOOTH_BETA.domain), teachers=(teachers, spec.P_TEACHERS.domain))
    if K.numel() != 1 and not bool((K == K.reshape(-1)[0]).all()):
        raise DomainError("teachers", "a tensor of several values", "one number of teachers per call")
    refuse_outside("gptr.smooth_sensitivity", [
        (spec.VOTES_COUNTS, votes_ok(v)), (spec.VOTES_SUM, votes_sum_ok(v, K.reshape(-1)[0])),
        (spec.THM6_Q0, thm6_at_ub(sigma, alpha))], allow_outside)
    return _smooth_sensitivity(v, sigma, alpha, beta, int(K.reshape(-1)[0]))


def _smooth_sensitivity(v, sigma, alpha, beta, K: int) -> torch.Tensor:
    ls = local_sensitivities(v, sigma, alpha, K).sum(-2)  # (…, K)
    d = torch.arange(ls.shape[-1], dtype=ls.dtype, device=ls.device)
    return (ls * torch.exp(-_batch(beta) * d)).max(-1).values


def thm6_at_ub(sigma: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """spec.THM6_Q0: Thm 6's conditions at log q_ub = min(−(1 + 1/σ)², −((α − 0.99)/σ)², −1/σ²), the start of
    Papernot's q0 search."""
    sigma, alpha = torch.broadcast_tensors(sigma, alpha)
    ub = torch.minimum(torch.minimum(-(1 + 1 / sigma) ** 2, -((alpha - 0.99) / sigma) ** 2), -1 / sigma**2)
    return _thm6_valid(ub, sigma, alpha)


def data_dependent_rdp_beta(votes: torch.Tensor, sigma: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
    """E(X) = Σ_t β(q̃_t), Papernot's β (Thm 6 below log q0, α/σ² from it up: their ``_compute_rdp_gnmax``), the
    data-dependent RDP whose smooth sensitivity :func:`smooth_sensitivity` bounds (Algorithm 6 line 4)."""
    s, a = _batch(sigma), _batch(alpha)
    return _rdp_smooth(log_q(votes, s), s, a, logq0(s, a)).sum(-1)


# ---------------------------------------------------------------------------------------------------------------
# Lemma 3.6.5 (GNSS) and Algorithm 6's constants and accounting


def gnss_candidates(alpha: torch.Tensor, beta: torch.Tensor):
    """The (V_i, m_i) of the three extreme GNSS pairs under the smooth-sensitivity axioms (reference/gptr/pate.py,
    block comment before ``gnss_candidates``): D_i = V_i + m_i/σ_s² for SS ratio r = e^{−β} (shift e^{−β}), r = 1 and
    r = e^β (shift 1), with a = α − 1 apart (no digits lost as α → 1): y(e^{∓β}) = 1 + α expm1(∓2β),
    V(e^{−β}) = −β − log1p(−a expm1(2β))/(2a), V(e^β) = β − log1p(−a expm1(−2β))/(2a). Tensors with 2αβ < 1."""
    a = alpha - 1
    y_lo = 1 + alpha * torch.expm1(-2 * beta)
    y_hi = 1 + alpha * torch.expm1(2 * beta)
    v_lo = -beta - torch.log1p(-a * torch.expm1(2 * beta)) / (2 * a)
    v_hi = beta - torch.log1p(-a * torch.expm1(-2 * beta)) / (2 * a)
    zero = torch.zeros_like(v_lo)
    return [(v_lo, alpha * torch.exp(-2 * beta) / (2 * y_lo)), (zero, alpha / 2 + zero), (v_hi, alpha / (2 * y_hi))]


def gnss_exact(alpha, beta, sigma_s) -> torch.Tensor:
    """The RDP of the GNSS release alone, exactly: max_i V_i + m_i/σ_s² (the supremum over the axioms)."""
    cands = [v + m / sigma_s**2 for v, m in gnss_candidates(alpha, beta)]
    return torch.maximum(torch.maximum(cands[0], cands[1]), cands[2])


def thm23(alpha, beta, sigma_s) -> torch.Tensor:
    """Papernot et al. 2018 Thm 23 (their ``compute_rdp_of_smooth_sensitivity_gaussian``): αe^{2β}/σ_s² +
    (βα − ½ log(1 − 2αβ))/(α − 1); a bound for 2αβ ≤ ½ (reference/gptr/pate.py ``thm23``)."""
    free = (beta * alpha - 0.5 * torch.log1p(-2 * alpha * beta)) / (alpha - 1)
    return alpha * torch.exp(2 * beta) / sigma_s**2 + free


def _gnss_args(alpha, beta, sigma_s, sigma_2, allow_outside, statement_id="gptr.lemma3_6_5"):
    alpha, beta, sigma_s, sigma_2 = params(alpha=(alpha, spec.P_GNMAX_ALPHA.domain),
                                           beta=(beta, spec.P_SMOOTH_BETA.domain),
                                           sigma_s=(sigma_s, spec.P_SIGMA_S.domain),
                                           sigma_2=(sigma_2, spec.P_SIGMA_2.domain))
    ok = 2 * alpha * beta < 1
    refuse_outside(statement_id, [(spec.THM23_ORDER, ok)], allow_outside)
    return alpha, torch.where(ok, beta, torch.zeros_like(beta)), sigma_s, sigma_2, ok


def gnss_rdp_tight(alpha, beta, sigma_s, sigma_2, allow_outside: bool = False) -> torch.Tensor:
    """The RDP of releasing (μ, upper(α)), seed 003 Lemma 3.6.5 (i) corrected (erratum E2; ``gptr.lemma3_6_5``): the
    exact GNSS worst case under the smooth-sensitivity axioms (:func:`gnss_exact`) plus the μ release α/(2σ2²), for
    1 < α < 1/(2β) (condition thm23_order; +inf outside with ``allow_outside``)."""
    alpha, beta, sigma_s, sigma_2, ok = _gnss_args(alpha, beta, sigma_s, sigma_2, allow_outside)
    out = gnss_exact(alpha, beta, sigma_s) + alpha / (2 * sigma_2**2)
    return torch.where(ok, out, torch.full_like(out, math.inf))


def gnss_rdp(alpha, beta, sigma_s, sigma_2, allow_outside: bool = False) -> torch.Tensor:
    """Papernot's Thm 23 + the μ release α/(2σ2²) (the contract's ``gnss_rdp``; notes §2.4): valid for 2αβ ≤ ½."""
    alpha, beta, sigma_s, sigma_2, ok = _gnss_args(alpha, beta, sigma_s, sigma_2, allow_outside)
    out = thm23(alpha, beta, sigma_s) + alpha / (2 * sigma_2**2)
    return torch.where(ok, out, torch.full_like(out, math.inf))


def gnss_rdp_printed(alpha, sigma_s) -> torch.Tensor:
    """(3α + 2)/(2σ_s²), seed 003 Lemma 3.6.5 (i) as printed (σ2 = σ_s; too small, erratum E2)."""
    alpha, sigma_s = params(alpha=(alpha, spec.P_GNMAX_ALPHA.domain), sigma_s=(sigma_s, spec.P_SIGMA_S.domain))
    return (3 * alpha + 2) / (2 * sigma_s**2)


def _constants(eps_hat: torch.Tensor, delta: torch.Tensor):
    alpha = 2 * log_2_over(delta) / eps_hat + 1
    return alpha, torch.sqrt((3 * alpha + 2) / eps_hat), 0.2 / alpha


def pate_constants(eps_hat, delta) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(α, σ_s, β) of Algorithm 6 line 2 as printed: α = 2 log(2/δ)/ε̂ + 1, σ_s = σ2 = √((3α + 2)/ε̂) (notes §2.4
    [R]), β = 0.2/α."""
    eps_hat, delta = params(eps_hat=(eps_hat, spec.POSITIVE), delta=(delta, spec.P_DELTA.domain))
    return _constants(eps_hat, delta)


def test_cost(eps_hat: torch.Tensor, delta: torch.Tensor, form: str = "tight") -> torch.Tensor:
    """The DP cost at δ/2 of Algorithm 6's test release with its printed constants (α, σ_s = σ2, β of line 2):
    RDP(α) + log(2/δ)/(α − 1) (Mironov 2017 Prop 3), the RDP from Lemma 3.6.5 as ``form``: "tight" (the exact GNSS
    worst case + μ), "thm23" (Papernot's Thm 23 + μ), "printed" ((3α + 2)/(2σ_s²): exactly ε̂)."""
    alpha, sigma_s, beta = _constants(eps_hat, delta)
    conversion = log_2_over(delta) / (alpha - 1)
    if form == "tight":
        rdp = gnss_exact(alpha, beta, sigma_s) + alpha / (2 * sigma_s**2)
        # α > 1e300 (ε̂ below ~1e-300 log(2/δ); α overflows below ~1e-308): the cost is ε̂(17/18 + (log(5/3)/2 − 0.2)/
        # (2 log(2/δ))) up to a factor 1 + O(1/α) (the r = e^{−β} pair: y → 0.6, α V → log(5/3)/2 − 0.2)
        limit = eps_hat * (17.0 / 18.0 + (0.5 * math.log(5.0 / 3.0) - 0.2) / (2 * log_2_over(delta)))
    elif form == "thm23":
        rdp = thm23(alpha, beta, sigma_s) + alpha / (2 * sigma_s**2)
        limit = eps_hat * (0.5 + 0.5 / 3.0 + 1.0 / 3.0 + (0.2 - 0.5 * math.log(0.6)) / (2 * log_2_over(delta)))
    elif form == "printed":
        rdp = (3 * alpha + 2) / (2 * sigma_s**2)
        limit = eps_hat
    else:
        raise DomainError("form", form, "one of {tight, thm23, printed}")
    return torch.where(alpha > 1e300, limit, rdp + conversion)


def thm3_6_6(eps_prime, eps_hat, delta) -> tuple[torch.Tensor, torch.Tensor]:
    """(ε′ + ε̂_test, δ): Algorithm 6 (PATE-PTR) with the test cost from the corrected Lemma 3.6.5 (the exact GNSS worst
    case, erratum E2) and the max-form δ of Theorem 3.5.3's proof (E14): seed 003 Theorem 3.6.6 reconstructed
    (``gptr.thm3_6_6``)."""
    eps_prime, eps_hat, delta = params(eps_prime=(eps_prime, spec.P_EPS_PRIME.domain),
                                       eps_hat=(eps_hat, spec.POSITIVE), delta=(delta, spec.P_DELTA.domain))
    return eps_prime + test_cost(eps_hat, delta), delta


def alg6_sigma_s(eps_hat, delta) -> torch.Tensor:
    """The smallest σ_s = σ2 for which Algorithm 6's test release costs ε̂ at δ/2 with the exact Lemma 3.6.5 (α, β of
    line 2; log(2/δ)/(α − 1) = ε̂/2): σ² = max_i (α/2 + m_i)/(ε̂/2 − V_i) (``gptr.alg6_sigma_s``)."""
    eps_hat, delta = params(eps_hat=(eps_hat, spec.POSITIVE), delta=(delta, spec.P_DELTA.domain))
    alpha, _, beta = _constants(eps_hat, delta)
    # in log space: (α/2 + m)/(ε̂/2 − V) ~ 2 log(2/δ)/ε̂² overflows for ε̂ < 1e-154 while σ itself is finite to 1e-308
    log_need = [torch.log(alpha / 2 + m) - torch.log(eps_hat / 2 - v) for v, m in gnss_candidates(alpha, beta)]
    out = torch.exp(torch.maximum(torch.maximum(log_need[0], log_need[1]), log_need[2]) / 2)
    return torch.where(torch.isinf(alpha), torch.full_like(out, math.inf), out)  # ε̂ < ~1e-308: σ > 1e308


def alg6_sigma_s_thm23(eps_hat, delta) -> torch.Tensor:
    """σ_s = σ2 for which the test costs ε̂ through Papernot's Thm 23: σ² = α(e^{2β} + ½)/(ε̂/2 − (βα − ½ log(1 −
    2αβ))/(α − 1))."""
    eps_hat, delta = params(eps_hat=(eps_hat, spec.POSITIVE), delta=(delta, spec.P_DELTA.domain))
    alpha, _, beta = _constants(eps_hat, delta)
    free = (beta * alpha - 0.5 * torch.log1p(-2 * alpha * beta)) / (alpha - 1)
    return torch.sqrt(alpha * (torch.exp(2 * beta) + 0.5) / (eps_hat / 2 - free))


def _log_coverage_integrand(z, c, s):
    """log φ(z) + log Φ(−c e^{s(z + c)})."""
    return -z * z / 2 - _LOG_SQRT_2PI + torch.special.log_ndtr(-c * torch.exp(s * (z + c)))


_UNIT_BREAKS = (-40.0, -32.0, -24.0, *[float(k) for k in range(-16, 17)], 24.0, 40.0)
_WIDTH_BREAKS = tuple(float(k) for k in range(-16, 17))


def coverage_failure(delta_2, beta, sigma_2) -> torch.Tensor:
    """P[upper(α) < ε(α, X)] of seed 003 Lemma 3.6.5 (ii), exactly: E_Z[Φ(−c e^{βσ2(Z + c)})], c = √(2 log(2/δ2))
    (``gptr.lemma3_6_5_coverage``). The log-integrand f is concave (f'' ≤ −1): its mode z* is found by Newton
    steps, and the integral is a 24-point Gauss–Legendre rule, in log space, on the segments between the merged
    break points z* + k (unit steps to ±16, wider to ±40, where f is 128 below its peak), z* + k·h and z* + k/(βσ2),
    |k| ≤ 16, h = 1/√(−f''(z*)): right of the mode Φ(−c e^{βσ2(z+c)}) falls from ½ to 0 double-exponentially, within
    a few 1/(βσ2) (a cliff far narrower than 1 when βσ2 is large; at δ2 = ½, β = ½, σ2 = 10³ a grid without the
    1/(βσ2) points was 2e-6 off)."""
    delta_2, beta, sigma_2 = params(delta_2=(delta_2, spec.P_DELTA_2.domain), beta=(beta, spec.P_SMOOTH_BETA.domain),
                                    sigma_2=(sigma_2, spec.P_SIGMA_2.domain))
    c = torch.sqrt(2 * log_2_over(delta_2))
    s = beta * sigma_2

    def derivatives(z):  # f(z) = −z²/2 + log Φ(−w), w = c e^{s(z+c)}: f' = −z − s w r, r = φ(w)/Φ(−w)
        w = c * torch.exp(torch.clamp(s * (z + c), max=300.0))  # w ≤ 1e130·c: w² stays finite
        r = torch.exp(-w * w / 2 - _LOG_SQRT_2PI - torch.special.log_ndtr(-w))
        return -z - s * w * r, -1 - s * s * w * (r + w * r * (r - w))

    z = -c  # w = c there; the mode lies between −c − O(1/s) and 0
    for _ in range(200):
        d1, d2 = derivatives(z)
        z = z - torch.clamp(d1 / d2, -2.0, 2.0)
    h = 1 / torch.sqrt(-derivatives(z)[1])
    cliff = torch.clamp(1 / s, max=1.0)  # right of the mode Φ(−w) falls from ½ to 0 within a few 1/(βσ2)
    unit = torch.tensor(_UNIT_BREAKS, dtype=z.dtype, device=z.device)
    width = torch.tensor(_WIDTH_BREAKS, dtype=z.dtype, device=z.device)
    offsets = torch.cat([unit.expand(*z.shape, -1), h.unsqueeze(-1) * width, cliff.unsqueeze(-1) * width], -1)
    breaks = z.unsqueeze(-1) + torch.sort(offsets, -1).values
    cc, ss = c.unsqueeze(-1).unsqueeze(-1), s.unsqueeze(-1).unsqueeze(-1)
    return torch.exp(log_integral(lambda x: _log_coverage_integrand(x, cc, ss), breaks, n=24))
