"""RDP of the Poisson-subsampled Gaussian mechanism (SGM), vectorised, for every real order α > 1.

Setting (Mironov, Talwar, Zhang 2019, "Rényi Differential Privacy of the Sampled Gaussian Mechanism",
arXiv 1908.10530, §3): μ0 = N(0, σ²), μ1 = N(1, σ²), μ = (1 − q) μ0 + q μ1 (add/remove neighbours,
sensitivity 1). With the likelihood ratio r(z) = μ(z)/μ0(z) = 1 + x(z), x(z) = q·(e^{u(z)} − 1),
u(z) = (2z − 1)/(2σ²):

    remove direction  D_α(μ ‖ μ0) = log A_α / (α − 1),   A_α = E_{μ0}[r^α]
    add direction     D_α(μ0 ‖ μ) = log B_α / (α − 1),   B_α = E_μ[(μ0/μ)^α] = E_{μ0}[r^{1−α}]

``direction="max"`` is the larger of the two (MTZ19 Thm 5 shows it is the remove direction).

Numerics (the float bugs B1–B3 of /work/shared/notes/peer-accountants.md §1.6 are avoided by construction):
both moments are written as E_{μ0}[r^β] = 1 + E_{μ0}[ψ_β(x)] with ψ_β(x) = (1 + x)^β − 1 − βx ≥ 0 (the
subtracted term has mean E_{μ0}[x] = 0), so log(A − 1) is computed directly, without the cancellation
of 1 + O(q²), and no alternating series is summed. log(1 + x) = log(1 − q + q e^u) and log|x| = log q +
log|e^u − 1| are formed from q and u, never from x (x is near −1 when q → 1, and subnormal when q is).
The method is chosen per element:
* closed forms where a proven two-sided bound pins ε(α) to relative 1e-17 (below float64 rounding):
  remove, q^α e^{α(α−1)/(2σ²)} ≤ A_α ≤ (1+η)^α q^α e^{α(α−1)/(2σ²)} + (1 + 1/η)^α (1−q)^α (split r = (1−q) + qe^u
  at qe^u = (1−q)/η), so ε = α/(α−1)·(log q + (α−1)/(2σ²)) when α/σ² is large (see :func:`_closed_remove`);
  add, (1−q)^{1−α}·Φ(z*/σ)·e^{−τ} ≤ B_α ≤ (1−q)^{1−α}, so ε = −log(1 − q) when σ is small or α huge
  (:func:`_closed_add`). These cover every σ below ~1e-3 except the remove direction at α − 1 < ~1600σ², and
  in particular subnormal σ and α up to the float maximum, where the integrals below would overflow;
* integer α ≤ 256, remove direction: the exact binomial sum
  A_α − 1 = Σ_{k=2}^{α} C(α,k)(1−q)^{α−k} q^k (e^{k(k−1)/(2σ²)} − 1), all terms positive, in log space;
* otherwise a quadrature of E_{μ0}[ψ_β(x)] in the standardised variable t = z/σ (so σ² never overflows),
  over windows that hold all but e^{−50} of the mass (:func:`_windows`): around t = 0, 1/σ and 2/σ (the
  Gaussians that carry ψ's terms in x and x²), around the modes of μ0·r^β and its shoulder at t = β/σ, and
  around the transition of log r at t_s = 1/(2σ) + σ log((1 − q)/q), where the integrand's analyticity strip
  is only πσ wide (in t);
  - β > 1 and σ ≥ 0.5: the trapezoid rule on one uniform lattice of step h = min(0.5, 0.45σ) over the windows
    (:func:`_log_excess_lattice`; about 60–300 nodes);
  - otherwise composite Gauss–Legendre on panels: 10 per window, and near t_s panels graded geometrically from
    width 2σ (the strip) up to 1 (the Gaussian scale), so the node count grows like log(1/σ), not like 1/σ²
    (:func:`_log_excess_quadrature`). Below σ = 1e-3 the two clusters of mass (around z = 0 and z = 1) are
    integrated in coordinates anchored at each, so that a node's offset from its anchor is exact even where
    1/σ ≫ 1 (a float t near 1/σ would misplace the nodes by ulp(1/σ)).
  Where log r ≈ u (u > 30) and β < 2, the Gaussian factor and e^u are combined exactly,
  −t²/2 + u = −(t − 1/σ)²/2, before logs are added (their sum would lose 1e-16/σ² absolutely otherwise).

Range: ε(α) is returned as +inf where it exceeds the float64 range (e.g. σ = 1e-320: ε ≈ α/(2σ²); +inf is a
valid, vacuous bound) and as 0.0 where it is below the smallest subnormal (e.g. σ = 1e308: ε ≈ αq²/(2σ²) ~ 1e-617).
Where the quadrature itself cannot be carried out in float64 — the integrand's mass beyond t = ±2^40 (σ ≳ 1e9
and α ≳ 1e12σ where no closed form holds, e.g. α = 1e308, σ = 1e154, or the add direction at α = 1e30, σ = 1e12),
or log(A − 1) beyond the float range although ε is not — a PrecisionError names the parameters; the reference
evaluates there. (direction="max" needs the add direction only where remove < −log(1 − q).)
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import SAMPLING_RATE_WITH_ZERO, SGM_DIRECTION, SGM_DIRECTIONS
from dpspec.reference.domains import ALPHA, NOISE
from dpspec.reference.errors import PrecisionError

from .._torch import gauss_legendre, log1p_exp, log_expm1, log_factorials, log_sub, params

DIRECTIONS = SGM_DIRECTIONS  # the values of `direction` (the spec's tuple, not a copy)

_INT_MAX = 256  # integer orders up to this use the exact binomial sum
_W = 10.0  # window half-width in local standard deviations (tail mass below e^{-50})
_PANELS = 10  # Gauss–Legendre panels per window
_NODES = 16  # Gauss–Legendre nodes per panel
_FIXED_POINT_ITERATIONS = 100
_BISECTIONS = 64
_H_SIGMA, _H_STRIP = 0.5, 0.45  # trapezoid step in t = z/σ: h = min(0.5, 0.45σ) (see _log_excess_lattice)
_MAX_NODES = 1 << 16  # trapezoid nodes per chunk (cache-sized: 2^21 was ~1.5× slower)
_LATTICE_SIGMA = 0.5  # β > 1 and σ ≥ this: the lattice (≤ ~300 nodes); otherwise graded Gauss–Legendre
_ANCHORED_SIGMA = 1e-3  # below this, Gauss–Legendre in coordinates anchored at t = 0 and at t = 1/σ
_CLOSED_RTOL = 1e-17  # a closed form is used where its proven relative error is below this
_T_MAX = 2.0 ** 40  # |t| beyond this is out of reach of a float64 quadrature
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


# ---------------------------------------------------------------------------------------------------
# ψ_β(x) = (1 + x)^β − 1 − βx in log space, for x > −1 and β ∉ (0, 1) (then ψ ≥ 0). Each branch is evaluated
# only on the elements that take it (``_where_subset``), not on the whole tensor and then selected.

def _where_subset(mask: torch.Tensor, fn, out: torch.Tensor, *args: torch.Tensor) -> torch.Tensor:
    """``out[mask] = fn(*(a[mask] for a in args))`` for flat tensors, calling ``fn`` only on the selected part."""
    idx = mask.nonzero().squeeze(-1)
    if idx.numel():
        out.index_copy_(0, idx, fn(*(a.index_select(0, idx) for a in args)))
    return out


def _log_e2_series(y):
    series = torch.full_like(y, 1 / math.factorial(15))
    for j in range(14, 1, -1):  # e^y − 1 − y = y² Σ_{j≥2} y^{j−2}/j!  (Horner; the tail is below 1e-17)
        series = series * y + 1 / math.factorial(j)
    return 2 * torch.log(y.abs()) + torch.log(series)


def _log_e2_direct(y):
    yc = torch.clamp(y, max=30)
    return torch.where(y > 30, y + torch.log1p(-(1 + y) * torch.exp(-y)), torch.log(torch.expm1(yc) - yc))


def _log_e2(y: torch.Tensor) -> torch.Tensor:
    """log(e^y − 1 − y) (≥ 0 everywhere, 0 only at y = 0); flat tensor."""
    small = y.abs() < 0.25
    out = _where_subset(small, _log_e2_series, torch.empty_like(y), y)
    return _where_subset(~small, _log_e2_direct, out, y)


def _log_e2_of(b: torch.Tensor, L: torch.Tensor) -> torch.Tensor:
    """log E2(bL) = log(e^{bL} − 1 − bL) where the product bL may overflow (|b| up to the float maximum): at
    bL = −inf, E2 = |bL|·(1 − (1 − e^{bL})/|bL|) and the last factor is 1 to float precision; at +inf, +inf."""
    y = b * L
    inf = torch.full_like(y, math.inf)
    finite = _log_e2(torch.where(torch.isfinite(y), y, torch.zeros_like(y)))
    return torch.where(y == -math.inf, torch.log(b.abs()) + torch.log(L.abs()), torch.where(y == math.inf, inf, finite))


def _log_m_series(x, log_ax):
    series = torch.full_like(x, -1 / 15)
    for j in range(14, 1, -1):  # x − log(1+x) = x² Σ_{j≥2} (−1)^j x^{j−2}/j  (Horner; tail below 1e-18)
        series = (-1) ** j / j + series * x
    return 2 * log_ax + torch.log(series)


def _log_m(x: torch.Tensor, L: torch.Tensor, log_ax: torch.Tensor) -> torch.Tensor:
    """log(x − log(1 + x)) for x > −1 (≥ 0, 0 only at x = 0), with L = log(1 + x) and log_ax = log|x| given
    (both formed without cancellation); flat tensors."""
    small = x.abs() < 0.05
    out = _where_subset(small, _log_m_series, torch.empty_like(x), x, log_ax)
    return _where_subset(~small, lambda v, l: torch.log(v - l), out, x, L)


def _log_psi_series(beta, x, log_ax):
    """|x|·(|β| + 2) ≤ 0.1: ψ = Σ_{j≥2} C(β, j) x^j = y² Σ_{j≥2} c_j y^{j−2} with y = βx, c_2 = (β − 1)/(2β),
    c_{j+1} = c_j (β − j)/((j + 1)β) (no overflow for |β| up to the float maximum); the ratio of consecutive terms
    is at most 0.1. y² enters as 2·(log|β| + log|x|), exact even where x is subnormal."""
    y = beta * x
    inv = 1 / beta
    coef = (beta - 1) * inv / 2  # β − 1 is exact (no 1 − 1/β: it would cancel at β → 1)
    series, power = torch.zeros_like(x), torch.ones_like(x)
    for j in range(2, 18):
        series = series + coef * power
        coef = coef * (beta - j) * inv / (j + 1)
        power = power * y
    return 2 * (torch.log(beta.abs()) + log_ax) + torch.log(series)


def _log_psi_moderate(beta, x, L, log_ax):
    """u ≤ 30 (x is a float): L = log(1 + x), M = x − L, R = L − x/(1 + x), all ≥ 0, and
    β ∈ (1, 2), ε = β − 1:  ψ = (1 + x)·[E2(εL) + ε·R]  (both terms ≥ 0);
    β ≤ 0:  ψ = E2(βL) + |β|·M(x);   β ≥ 2:  ψ = E2(βL) − β·M(x)  (the second term is ≤ half the first);
    β ≥ 2 and x ≥ 2 (cheaper, no series):  ψ = (1 + x)^β·(1 − r),  r = (1 + βx)/(1 + x)^β ≤ 5/9.
    1 + x = e^L is never formed as 1 + x (x ≈ −1 when q → 1)."""
    near_one = (beta > 1) & (beta < 2)

    def near(b, L, x):
        eps = b - 1
        return L + torch.logaddexp(_log_e2(eps * L), torch.log(eps) + torch.log(L - x * torch.exp(-L)))

    def far(b, L, x, lax):
        log_e2, log_bm = _log_e2_of(b, L), torch.log(b.abs()) + _log_m(x, L, lax)
        return torch.where(b <= 0, torch.logaddexp(log_e2, log_bm), log_sub(log_e2, log_bm))

    def dominant(b, L, x):  # β ≥ 2, x ≥ 2: r = (1 + βx)/(1 + x)^β ≤ 5/9 (it decreases in β and in x there)
        log_1_bx = torch.log(b) + torch.log(x) + torch.log1p(1 / (b * x))  # log(1 + βx); βx may exceed the float range
        return b * L + torch.log1p(-torch.exp(log_1_bx - b * L))

    is_dominant = (beta >= 2) & (x >= 2)
    out = _where_subset(near_one, near, torch.empty_like(x), beta, L, x)
    out = _where_subset(is_dominant, dominant, out, beta, L, x)
    return _where_subset(~near_one & ~is_dominant, far, out, beta, L, x, log_ax)


def _log_psi_huge(beta, q, u, minus_u):
    """x > e^30, where x may exceed the float range: the same forms as _log_psi_moderate from logs only,
    log x = log q + log(e^u − 1), L = log(1 − q + q e^u), M = x(1 − L/x), R = L − 1 + 1/(1 + x).
    Where ``minus_u`` (β < 2 only): log ψ − u, with u taken out of L and log x analytically (L − u =
    log(q + (1 − q)e^{−u}), log x − u = log q + log(1 − e^{−u})), so that no term of size u is left to cancel."""
    log_q = torch.log(q)
    log_x_mu = log_q + torch.log1p(-torch.exp(-u))
    L_mu = torch.logaddexp(torch.log1p(-q) - u, log_q)
    L, log_x = L_mu + u, log_x_mu + u
    eps = beta - 1
    log_near = torch.where(minus_u, L_mu, L) + torch.logaddexp(
        _log_e2(eps * L), torch.log(eps.abs()) + torch.log(L - 1 + torch.exp(-L)))
    log_e2 = _log_e2_of(beta, L)
    log_e2 = torch.where(minus_u, log_e2 - u, log_e2)
    log_bm = torch.log(beta.abs()) + torch.where(minus_u, log_x_mu, log_x) + torch.log1p(-L * torch.exp(-log_x))
    log_far = torch.where(beta <= 0, torch.logaddexp(log_e2, log_bm), log_sub(log_e2, log_bm))
    return torch.where((beta > 1) & (beta < 2), log_near, log_far)


def log_psi(beta: torch.Tensor, q: torch.Tensor, u: torch.Tensor, minus_u: torch.Tensor | None = None) -> torch.Tensor:
    """log ψ_β(x) at x = q·(e^u − 1), ψ_β(x) = (1 + x)^β − 1 − βx, for β ≥ 1 or β ≤ 0, q < 1, without
    cancellation or overflow (x itself may exceed the float range: then only logs of it are formed).

    ``minus_u`` (optional boolean mask): there the result is log ψ − u, formed without the cancellation of the
    two where u is large (used with β < 2 only)."""
    beta, q, u = torch.broadcast_tensors(beta, q, u)
    shape = beta.shape
    beta, q, u = beta.reshape(-1), q.reshape(-1), u.reshape(-1)
    minus = (torch.zeros_like(u, dtype=torch.bool) if minus_u is None
             else torch.broadcast_to(minus_u, shape).reshape(-1))
    above = u > 30
    uc = torch.clamp(u, max=30)
    em1 = torch.expm1(uc)
    log_ax = torch.log(q) + torch.where(above, log_expm1(torch.where(above, u, 31.0)), torch.log(em1.abs()))
    # x as a float: exact product for u ≤ 30; from its log above (x > 0 there; +inf where x itself overflows)
    x = torch.where(above, torch.exp(torch.clamp(log_ax, max=700.0)), q * em1)
    huge = log_ax > 30  # x > 1e13: logs only (this implies u > 30; a tiny q can leave x small at u > 30)
    L = torch.where(x > -0.5, torch.log1p(x), torch.logaddexp(torch.log1p(-q), torch.log(q) + uc))
    small = (x.abs() * (beta.abs() + 2) <= 0.1) & ~huge
    out = _where_subset(small, _log_psi_series, torch.empty_like(x), beta, x, log_ax)
    out = _where_subset(~small & ~huge, _log_psi_moderate, out, beta, x, L, log_ax)
    out = _where_subset(huge, _log_psi_huge, out, beta, q, u, minus)
    # outside the huge branch u ≤ 30 + log(1/q) + 1 ≤ 776: a plain difference loses at most 1e-13
    out = torch.where(minus & ~huge, out - u, out)
    return out.reshape(shape)


# ---------------------------------------------------------------------------------------------------
# closed forms with proven error bounds (relative error below _CLOSED_RTOL)

def _closed_remove(alpha, q, sigma):
    """(where, ε) for the remove direction where a closed form is within relative 1e-17 of ε(α).

    With M = q^α e^{α(α−1)/(2σ²)} = E_{μ0}[(q e^u)^α] and any η > 0, (1 − q + qe^u)^α lies between (qe^u)^α and
    max((1+η)qe^u, (1+1/η)(1−q))^α ≤ (1+η)^α (qe^u)^α + (1+1/η)^α (1−q)^α (split at qe^u = (1−q)/η), so
    M ≤ A_α ≤ (1+η)^α M + (1+1/η)^α (1−q)^α, i.e. log A_α = log M + Δ, 0 ≤ Δ ≤ αη + e^D,
    D = α(log(1 + 1/η) + log(1−q)) − log M. With K = log q + (α−1)/(2σ²) (log M = αK) and η = δ/α,
    δ = ½·1e-17·αK: Δ ≤ 2δ = 1e-17·log M whenever K > 0 and D ≤ log δ; then ε = log A/(α−1) = α K/(α−1)
    to relative 1e-17. (σ² may underflow to 0: then K = +inf and ε = +inf, which is what ε is in float64.)"""
    K = torch.log(q) + (alpha - 1) * (0.5 / sigma**2)
    log_alpha = torch.log(alpha)
    log_delta = math.log(0.5 * _CLOSED_RTOL) + log_alpha + torch.log(K)  # NaN where K < 0: `ok` is False there
    D = alpha * (log1p_exp(log_alpha - log_delta) - K + torch.log1p(-q))
    ok = (K > 0) & (D <= log_delta)
    return ok, alpha / (alpha - 1) * K


def _closed_add(alpha, q, sigma):
    """(where, ε) for the add direction where ε(α) = −log(1 − q) to relative 1e-17.

    B_α = E_{μ0}[r^{1−α}] with r = (1 − q)(1 + y), y = (q/(1−q)) e^u = e^{(z − z_s)/σ²}, z_s = ½ + σ² log((1−q)/q):
    B = (1−q)^{1−α} I, I = E_{μ0}[(1 + y)^{−(α−1)}] ∈ (0, 1]. For z ≤ z* the integrand is ≥ e^{−(α−1)y(z*)}, so
    I ≥ Φ(z*/σ) e^{−τ} with τ = (α−1) y(z*). Taking y(z*) = τ' = ½·1e-17·(−log(1−q)):
    −log(1−q) − τ' − (−log Φ(z*/σ))/(α−1) ≤ ε ≤ −log(1−q), and the closed form holds when the last term is
    ≤ τ' too (−log Φ(x) ≤ 2Q(x) for x ≥ 0). Holds for every σ below ~0.01 and for huge α (e.g. 1e308 at σ = 1)."""
    c = -torch.log1p(-q)
    log_tol = math.log(0.5 * _CLOSED_RTOL) + torch.log(c)
    t_star = 0.5 / sigma + sigma * (torch.log1p(-q) - torch.log(q) + log_tol)  # z*/σ; 0.5/σ may be +inf
    bound = torch.where(t_star >= 0, math.log(2) + torch.special.log_ndtr(-t_star),
                        torch.log(-torch.special.log_ndtr(t_star)))  # log(−log Φ(t*)) (an upper bound for t* ≥ 0)
    return bound - torch.log(alpha - 1) <= log_tol, c


# ---------------------------------------------------------------------------------------------------
# the exact binomial sum (integer α)

def _log_excess_binomial(alpha, q, sigma):
    """log(A_α − 1) for integer α ≥ 2 by the exact binomial sum (all terms positive)."""
    n_max = int(alpha.max().item())
    k = torch.arange(2, n_max + 1, dtype=alpha.dtype, device=alpha.device)
    a, qq, s = alpha.unsqueeze(-1), q.unsqueeze(-1), sigma.unsqueeze(-1)
    log_factorial = log_factorials(n_max, alpha)
    ai, ki = a.long(), k.long()
    log_binom = log_factorial[ai] - log_factorial[torch.minimum(ki, ai)] - log_factorial[torch.clamp(ai - ki, min=0)]
    terms = (log_binom + torch.special.xlog1py(a - k, -qq) + k * torch.log(qq)
             + log_expm1(k * (k - 1) / (2 * s**2)))
    terms = torch.where(k <= a, terms, torch.full_like(terms, -math.inf))
    return torch.logsumexp(terms, dim=-1)


# ---------------------------------------------------------------------------------------------------
# quadrature in t = z/σ: E_{μ0}[ψ_β(x)] = ∫ φ(t) ψ_β(x(u)) dt, u = (2z − 1)/(2σ²) = a(t − a/2), a = 1/σ

def _posterior_logit(t, q, a):
    """logit of w(t) = q μ1/μ at z = σt (the posterior probability of the shifted component): a(t − a/2) + logit q."""
    return a * (t - a / 2) + torch.log(q) - torch.log1p(-q)


def _fixed_points(t, beta, q, a):
    """Iterate t ← βa·w(t) elementwise (flat tensors), in blocks of 10 iterations, at most
    _FIXED_POINT_ITERATIONS in all, each block only on the elements still moving. The iteration is monotone with
    rate ρ = βa²·w(1 − w) = 1 − curv (curv as in the windows), so after a step s the distance to the fixed point
    is about s·ρ/(1 − ρ); an element stops after a block whose last step puts that below 1e-3 of the local width
    1/√(1 − ρ), i.e. s·ρ ≤ 1e-3·(1 − ρ)^{3/2}. (Its value does not depend on the rest of the batch.)"""
    t = t.clone()
    idx = torch.arange(t.shape[0], device=t.device)
    for _ in range(_FIXED_POINT_ITERATIONS // 10):
        tt, b, qq, aa = t[idx], beta[idx], q[idx], a[idx]
        ba = b * aa
        for _ in range(10):
            old, tt = tt, ba * torch.sigmoid(_posterior_logit(tt, qq, aa))
        w = torch.sigmoid(_posterior_logit(tt, qq, aa))
        rate = torch.clamp(b * w * (1 - w) * aa * aa, max=1.0)
        moving = (tt - old).abs() * rate > 1e-3 * (1 - rate) ** 1.5
        t[idx] = tt
        idx = idx[moving]
        if idx.numel() == 0:
            break
    return t


def _negative_mode(beta, q, a):
    """(t_m, local width) of the mode of φ·r^β for β ≤ 0: the root of h(t) = t − βa·w(t), increasing, in
    [βa·w(0), 0]. Bisection in v = asinh(−t), whose range is at most asinh(1e300) ≈ 691 (β may be −1e308): 64 steps
    put the root within (1 + |t|)·4e-17. The comparison h < 0 ⇔ log(−t) < log|β| + log a + log w(t) is made in logs.
    The log-integrand's curvature there is 1 + |β|w(1 − w)a² = 1 + |t_m|·a·(1 − w) ≥ 1."""
    log_ba = torch.log(beta.abs()) + torch.log(a)
    shift = torch.log(q) - torch.log1p(-q) - a * a / 2  # logit w(t) = a·t + shift
    logsig = torch.nn.functional.logsigmoid
    hi = torch.asinh(torch.exp(torch.clamp(log_ba + logsig(shift), max=690.0)))
    lo = torch.zeros_like(hi)
    for _ in range(_BISECTIONS):
        mid = (lo + hi) / 2
        sh = torch.sinh(mid)
        below = torch.log(sh) < log_ba + logsig(shift - a * sh)  # h(t) > 0 at t = −sinh(mid)
        lo, hi = torch.where(below, mid, lo), torch.where(below, hi, mid)
    t = -torch.sinh((lo + hi) / 2)
    w = torch.sigmoid(_posterior_logit(t, q, a))
    return t, 1 / torch.sqrt(1 + (-t) * a * (1 - w))


def _windows(beta, q, sigma):
    """The windows of the quadrature for one sign of β (flat tensors): (lo, hi, row), each (n, 7), in coordinates
    relative to the row's anchor, row 0 anchored at t = 0 and row 1 at t = a = 1/σ, plus the kink t_s (n,).

    Together they hold all but e^{−50} of the mass of φ·ψ_β(x): ψ ≤ β|x| ≤ βq where x < 0 and ψ ≤ r^β where
    x ≥ 0 (β > 1), ψ ≤ r^β where x < 0 and ψ ≤ |β|x where x ≥ 0 (β ≤ 0), ψ ≤ C_β x² where |x| < 1, and
    φ·x ∝ φ(t − a), φ·x² ≤ q²(φ + e^{a²}φ(t − 2a)): windows around t = 0, a, 2a (width 1), around the modes of φ·r^β
    (for β > 0 the fixed points of t = βa·w(t), reached from 0 and from βa, width 1/√curv ≤ W; for β ≤ 0 the one
    mode, at three widths, as the curvature falls from its value there to 1 on the left) and its shoulder at
    t = βa (for β > 0 it need not be a mode: it was missed at β = 45.9235, q = 0.04, σ = 2.85: 3.5e-12 of the mass),
    and around the transition t_s of log r (width 1; the Gauss–Legendre rule grades its panels towards t_s).

    Below _ANCHORED_SIGMA (only the remove direction at β < 1 + ~1600σ² comes here, see the closed forms) the
    mass lies in two clusters, around t = 0 (row 0) and around t = a ≥ 1000 (row 1), and the windows around 2a and
    t_s ≈ a/2 are left out: there φ ≤ e^{−a²/32} against a mass of at least e^{−O(log a)} relative (the shoulder
    and the window around a are offset from a analytically, (β − 1)a)."""
    n = beta.shape[0]
    a = 1 / sigma
    zero = torch.zeros_like(beta)
    t_s = a / 2 + sigma * (torch.log1p(-q) - torch.log(q))
    # far transitions (|t_s| > _T_MAX happens only for σ > ~1e9, where its width σ in t is far above 1) are
    # smooth at the Gaussian scale: no window
    t_s = torch.where(t_s.abs() <= _T_MAX, t_s, zero)
    anchored = sigma < _ANCHORED_SIGMA
    centre, width, row = [], [], []

    def add(c, w, r=None):
        centre.append(c), width.append(w)
        row.append(torch.zeros(n, dtype=torch.long, device=beta.device) if r is None else r)

    one = torch.ones_like(beta)
    row_a = anchored.long()  # what lies near t = a goes to row 1 in the anchored regime
    add(zero, one)  # t = 0
    add(torch.where(anchored, zero, a), one, row_a)  # t = a
    add(torch.where(anchored, zero, 2 * a), torch.where(anchored, zero, one))  # t = 2a (not in the anchored regime)
    add(torch.where(anchored, zero, t_s), torch.where(anchored, zero, one))  # transition (idem)
    if bool((beta > 0).any()):
        t_lo, t_hi = _fixed_points(torch.cat([zero, beta * a]), *(torch.cat([t, t]) for t in (beta, q, a))
                                   ).reshape(2, n)

        def local_width(t):
            w = torch.sigmoid(_posterior_logit(t, q, a))
            return 1 / torch.sqrt(torch.clamp(1 - beta * w * (1 - w) * a * a, min=1 / _W**2))

        add(t_lo, local_width(t_lo))
        add(torch.where(anchored, t_hi - a, t_hi), local_width(t_hi), row_a)
        add(torch.where(anchored, (beta - 1) * a, beta * a), one, row_a)  # the shoulder at t = βa
        far = (t_hi.abs() > _T_MAX) | (beta * a > _T_MAX)
    else:
        t_m, w_m = _negative_mode(beta, q, a)
        for w in (w_m, torch.sqrt(w_m), one):
            add(t_m, w)
        far = t_m.abs() > _T_MAX
    if bool(far.any()):
        i = int(far.nonzero()[0, 0])
        raise PrecisionError(
            f"base.sgm_rdp (fast): the mass of the integrand lies beyond 2^40 standard deviations (alpha="
            f"{float(1 + beta[i].abs() if beta[i] <= 0 else beta[i])!r}, q={float(q[i])!r}, sigma={float(sigma[i])!r}, "
            f"{'add' if beta[i] <= 0 else 'remove'}): out of reach of a float64 quadrature (σ ≳ 1e9 and α ≳ 1e12σ "
            "without a closed form); use the reference")
    c, w, r = torch.stack(centre, -1), torch.stack(width, -1), torch.stack(row, -1)
    return c - _W * w, c + _W * w, r, torch.where(anchored, zero, t_s)


def _row_frame(r, a):
    """(anchor of the row, its offset from a): row 0 at t = 0, row 1 at t = a."""
    return torch.where(r == 1, a, torch.zeros_like(a)), torch.where(r == 1, torch.zeros_like(a), -a)


def _log_f(s, beta, q, a, r):
    """log of φ(t)·ψ_β(x) at t = (row anchor) + s, flat tensors: u = a(t − a/2); where u > 30 and β < 2,
    −t²/2 + u = −(t − a)²/2 is combined exactly (log_psi then returns log ψ − u)."""
    anchor, to_a = _row_frame(r, a)
    u = a * (s + (anchor - a / 2))  # anchor − a/2 = ±a/2 exactly
    kappa = (u > 30) & (beta < 2)
    d = torch.where(kappa, s + to_a, s + anchor)  # t − a where κ, else t
    return -d * d / 2 + log_psi(beta, q, u, minus_u=kappa) - _HALF_LOG_2PI


def _log_excess_quadrature(beta, q, sigma):
    """log(E_{μ0}[r^β] − 1) = log ∫ φ(t) ψ_β(x) dt by composite Gauss–Legendre, for one sign of β across the batch.

    Panels: every window is cut into _PANELS equal panels (width 2 at the Gaussian scale: 16 nodes integrate a
    Gaussian there to 1e-16), and towards the transition t_s of log r into panels [t_s + 2σ·2^k, t_s + 2σ·2^{k+1}]
    (both sides) until they meet the transition window's own panels: the branch points of log(1 + x) lie πσ off the real axis at t_s, and a panel whose
    distance to them is at least its width converges like 5.8^{−32}. Node count ~ 16·(70 + 2 log2(1/σ)) per point."""
    n = beta.shape[0]
    a = 1 / sigma
    lo, hi, rows, t_s = _windows(beta, q, sigma)
    j = torch.arange(_PANELS + 1, dtype=beta.dtype, device=beta.device) / _PANELS
    win_bp = lo.unsqueeze(-1) + (hi - lo).unsqueeze(-1) * j  # (n, windows, P+1)
    win_row = rows.unsqueeze(-1).expand_as(win_bp)
    k_max = max(0, math.ceil(math.log2(_W / (2 * min(max(float(sigma.min()), _ANCHORED_SIGMA), 1.0))))) + 1
    g = torch.clamp(2 * sigma.unsqueeze(-1) * 2.0 ** torch.arange(k_max, dtype=beta.dtype, device=beta.device), max=_W)
    graded = torch.cat([t_s.unsqueeze(-1) - g, t_s.unsqueeze(-1) + g, t_s.unsqueeze(-1)], -1)  # row 0
    bp_all = torch.cat([win_bp.flatten(-2), graded], -1)
    row_all = torch.cat([win_row.flatten(-2), torch.zeros_like(graded, dtype=win_row.dtype)], -1)
    a_col = a.unsqueeze(-1)
    lo_cut = torch.where(row_all == 1, -a_col / 4, torch.full_like(bp_all, -math.inf))  # anchored regime only
    hi_cut = torch.where((row_all == 0) & (sigma < _ANCHORED_SIGMA).unsqueeze(-1), a_col / 4,
                         torch.full_like(bp_all, math.inf))
    panels_lo, panels_hi, panels_point, panels_row = [], [], [], []
    for r in (0, 1):
        sel = row_all == r
        # the other row's breakpoints are parked at −inf (sorted first, zero-width panels between them)
        bp = torch.where(sel, torch.clamp(bp_all, min=lo_cut, max=hi_cut), torch.full_like(bp_all, -math.inf))
        bp, _ = torch.sort(bp, dim=-1)
        left, right = bp[..., :-1], bp[..., 1:]
        mid = (left + right) / 2
        in_row = (rows == r).unsqueeze(-2)
        inside = ((mid.unsqueeze(-1) >= lo.unsqueeze(-2)) & (mid.unsqueeze(-1) <= hi.unsqueeze(-2)) & in_row).any(-1)
        valid = inside & (right > left) & torch.isfinite(left)
        p, i = valid.nonzero(as_tuple=True)
        panels_lo.append(left[p, i]), panels_hi.append(right[p, i]), panels_point.append(p)
        panels_row.append(torch.full_like(p, r))
    left, right = torch.cat(panels_lo), torch.cat(panels_hi)
    point, prow = torch.cat(panels_point), torch.cat(panels_row)
    x, w = gauss_legendre(_NODES, beta)
    half = ((right - left) / 2).unsqueeze(-1)
    s = ((left + right) / 2).unsqueeze(-1) + half * x
    log_w = torch.log(half) + torch.log(w)
    pt = point.unsqueeze(-1).expand_as(s).reshape(-1)
    log_f = _log_f(s.reshape(-1), beta[pt], q[pt], a[pt], prow.unsqueeze(-1).expand_as(s).reshape(-1))
    terms = log_f + log_w.reshape(-1)
    return _scatter_logsumexp(terms, pt, n, beta)


def _scatter_logsumexp(terms, index, n, like):
    top = torch.full((n,), -math.inf, dtype=like.dtype, device=like.device).scatter_reduce(0, index, terms, "amax")
    safe_top = torch.where(torch.isfinite(top), top, torch.zeros_like(top))
    total = torch.zeros_like(top).index_add_(0, index, torch.exp(terms - safe_top[index]))
    return safe_top + torch.log(total)


def _lattice(beta, q, sigma):
    """The trapezoid lattice of :func:`_log_excess_lattice` (single frame, σ ≥ _LATTICE_SIGMA): origin c, step h,
    and per window (last dimension) the first lattice index and the node count, windows made disjoint (each
    node belongs to one window)."""
    lo, hi, _, _ = _windows(beta, q, sigma)
    lo, order = torch.sort(lo, dim=-1)
    hi = torch.gather(hi, -1, order)
    covered = torch.cummax(hi, dim=-1).values  # right end of the union of windows 0..k
    before = torch.cat([torch.full_like(covered[..., :1], -math.inf), covered[..., :-1]], -1)
    start, stop = torch.maximum(lo, before), torch.maximum(covered, before)
    h = torch.minimum(torch.full_like(sigma, _H_SIGMA), _H_STRIP * sigma)
    c = lo[..., 0]
    first = torch.ceil((start - c.unsqueeze(-1)) / h.unsqueeze(-1))
    last = torch.ceil((stop - c.unsqueeze(-1)) / h.unsqueeze(-1))  # exclusive; equals the next window's first
    return c, h, first, torch.clamp(last - first, min=0).long()


def _log_excess_lattice(beta, q, sigma):
    """log(E_{μ0}[r^β] − 1) for β > 1, σ ≥ _LATTICE_SIGMA, by the trapezoid rule on a uniform lattice restricted
    to the windows.

    The integrand φ(t)·ψ_β(x(t)) is analytic in the strip |Im t| < πσ (the branch points of log(1 + x) lie at
    Re t = t_s), has width at least 1 around every mode (log r^β is convex for β > 0), and is negligible at the
    windows' ends, so the trapezoid rule converges geometrically in 1/h (Trefethen & Weideman, "The exponentially
    convergent trapezoidal rule", SIAM Rev. 56 (2014), Thm 5.1: error ~ e^{−2πd/h} for a strip of half-width d;
    for a Gaussian of width 1 alone, ~e^{−2π²/h²}). With h = min(0.5, 0.45σ) both exponents are ≥ 39; measured
    against the Gauss–Legendre rule on 2·10⁴ random points of the whole domain: ≤ 6e-13 relative in ε (5.6e-13 is
    the Gauss–Legendre rule's own error there), while h 1.4× larger already gives 1.5e-11, so the step has a
    margin. About 60 nodes per point at σ ≈ 1, a few hundred at σ = 0.5. The lattice is ragged (each point has its
    own node count); points are processed in chunks of at most _MAX_NODES nodes."""
    c, h, first, counts = _lattice(beta, q, sigma)
    per_point = counts.sum(-1)
    out = torch.empty_like(beta)
    begin = 0
    ends = torch.cumsum(per_point, 0)
    while begin < beta.shape[0]:
        # the largest chunk [begin, end) with at most _MAX_NODES nodes (at least one point)
        budget = (ends[begin - 1] if begin else 0) + _MAX_NODES
        end = max(begin + 1, int(torch.searchsorted(ends, budget, right=True)))
        rows = slice(begin, end)
        out[rows] = _lattice_sum(beta[rows], q[rows], sigma[rows], c[rows], h[rows], first[rows], counts[rows])
        begin = end
    return out


def _lattice_sum(beta, q, sigma, c, h, first, counts):
    n, k = counts.shape
    flat = counts.reshape(-1)
    window = torch.repeat_interleave(torch.arange(n * k, device=beta.device), flat)
    offset = torch.cumsum(flat, 0) - flat
    j = first.reshape(-1)[window] + (torch.arange(window.shape[0], device=beta.device) - offset[window]).to(beta.dtype)
    point = window // k
    t = c[point] + h[point] * j
    a = 1 / sigma
    log_f = _log_f(t, beta[point], q[point], a[point], torch.zeros_like(point))
    return _scatter_logsumexp(log_f, point, n, beta) + torch.log(h)


def log_excess(beta, q, sigma) -> torch.Tensor:
    """log(E_{μ0}[r^β] − 1) for β > 1 or β ≤ 0, 0 < q < 1, elementwise (flat tensors of one shape), by the exact
    binomial sum (integer 2 ≤ β ≤ 256) or the quadrature; no closed forms here (see :func:`sgm_rdp`)."""
    out = torch.empty_like(beta)
    is_int = (beta == torch.round(beta)) & (beta >= 2) & (beta <= _INT_MAX) & (q < 1)
    if bool(is_int.any()):
        out[is_int] = _log_excess_binomial(beta[is_int], q[is_int], sigma[is_int])
    lattice = ~is_int & (beta > 0) & (sigma >= _LATTICE_SIGMA)
    for sel, method in ((lattice, _log_excess_lattice),
                        (~is_int & ~lattice & (beta > 0), _log_excess_quadrature),
                        (~is_int & (beta <= 0), _log_excess_quadrature)):
        if bool(sel.any()):
            out[sel] = method(beta[sel], q[sel], sigma[sel])
    return out


def _direction(alpha, q, sigma, remove: bool) -> torch.Tensor:
    """ε(α) of one direction for 0 < q < 1 (flat tensors): the closed form where it holds, else log1p(A − 1)/(α − 1)."""
    ok, eps = (_closed_remove if remove else _closed_add)(alpha, q, sigma)
    rest = ~ok
    if bool(rest.any()):
        a, qq, s = alpha[rest], q[rest], sigma[rest]
        log_ex = log_excess(a if remove else 1 - a, qq, s)
        # log1p(A − 1)/(α − 1); where A − 1 < e^{-36}, log1p(A − 1) = A − 1 to float precision and the quotient is
        # formed in logs, so that an A − 1 below the float range (q = 1e-160) does not round before the division
        value = torch.where(log_ex < -36, torch.exp(log_ex - torch.log(a - 1)), log1p_exp(log_ex) / (a - 1))
        bad = ~torch.isfinite(value)
        if bool(bad.any()):
            i = int(bad.nonzero()[0, 0])
            raise PrecisionError(
                f"base.sgm_rdp (fast, {'remove' if remove else 'add'}): (α−1)·ε(α) is not a float64 here "
                f"(alpha={float(a[i])!r}, q={float(qq[i])!r}, sigma={float(s[i])!r}; log of the moment − 1 = "
                f"{float(log_ex[i])!r}): α ≳ 1e300 with σ ≳ 1e150 is out of the fast path's range; use the reference")
        eps = eps.clone()
        eps[rest] = value
    return eps


def sgm_rdp(alpha, q, sigma, direction: str = "max") -> torch.Tensor:
    """ε(α) of the Poisson-subsampled Gaussian mechanism (see the module docstring), elementwise.

    ``alpha``, ``q``, ``sigma``: tensors or numbers (broadcast; any real dtype, computed in float64); ``direction``:
    "max", "remove" or "add". Mirrors ``base.sgm_rdp`` of the reference. Never NaN: +inf where ε exceeds the
    float64 range (a vacuous but valid bound, e.g. subnormal σ), 0.0 where it is below the smallest subnormal;
    PrecisionError where the fast path cannot evaluate (see the module docstring)."""
    SGM_DIRECTION.check("direction", direction)
    alpha, q, sigma = params(alpha=(alpha, ALPHA), q=(q, SAMPLING_RATE_WITH_ZERO), sigma=(sigma, NOISE))
    shape = alpha.shape
    alpha, q, sigma = alpha.reshape(-1), q.reshape(-1), sigma.reshape(-1)
    eps = alpha / 2 / sigma / sigma  # q = 1: the Gaussian mechanism, both directions (as fast.gaussian_rdp: no σ²)
    eps = torch.where(q == 0, torch.zeros_like(eps), eps)  # q = 0: P = Q, ε(α) = 0
    sub = (q < 1) & (q > 0)
    if bool(sub.any()):
        a, qq, s = alpha[sub], q[sub], sigma[sub]
        if direction == "remove":
            value = _direction(a, qq, s, remove=True)
        elif direction == "add":
            value = _direction(a, qq, s, remove=False)
        else:
            value = _direction(a, qq, s, remove=True)
            # add ≤ −log(1 − q) always (r ≥ 1 − q and 1 − α < 0): the add direction is needed only below that
            need = value < -torch.log1p(-qq)
            if bool(need.any()):
                value = value.clone()
                value[need] = torch.maximum(value[need], _direction(a[need], qq[need], s[need], remove=False))
        eps[sub] = value
    return eps.reshape(shape)
