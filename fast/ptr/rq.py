"""Rényi moments of the Poisson-subsampled Laplace test of PTR, vectorised, for every real order.

R_q^(β) = E_{s~μ0}[(μ(s)/μ0(s))^β] and R̃_q^(β) = R_q^(1−β), μ0 = Lap(0,b), μ = (1−q)Lap(0,b) + q Lap(1,b)
(seed 001 Theorem 4.4 and Remark 4.5; appendix 000 A.2 eqs. (43)–(44), (82)). Mirrors ``ptr.rq`` and
``ptr.rq_tilde`` (reference/ptr/rq.py), plus the cancellation-free excesses B1 − 1 and B2 − 1 of Theorem 4.4.

Piecewise form (notes ptr-rdp.md §2.10). The likelihood ratio ρ = Lap(s;1,b)/Lap(s;0,b) is e^{−1/b} on s < 0,
e^{1/b} on s > 1 and e^{u} on [0,1] with u = (2s−1)/b. With r(ρ) = 1 − q + qρ and, for any g,

    E_{μ0}[g(ρ)] = ½ g(e^{−1/b}) + ½ e^{−1/b} g(e^{1/b}) + ¼ e^{−1/(2b)} ∫_{−1/b}^{1/b} e^{−u/2} g(e^u) du

(s = (1 + bu)/2, ds = (b/2) du). In the variable u the integrand's only complex singularities are those of
log r, at u* ± iπ(2k+1) with u* = log((1−q)/q), a fixed distance π from the real axis whatever b, q and β are,
and away from u* the log-integrand is nearly linear (an exponential). The u-interval is therefore cut by a
composite mesh that is the union of three geometric meshes, clipped to [−1/b, 1/b]: one at each end point
(inward) and one at u* (both sides). Each mesh has panels of width ½d at distance d ≥ 1 (so a panel never
comes closer to a singularity than 2 half-widths, and an exponential of any rate λ is either resolved on a
panel, λ·width ≤ 20, or below e^{−40} of the mass nearer the centre), and panels 2^{−k} ≤ d ≤ 1 graded
towards the centre so that end-point layers of width 1/|β| are resolved. Points that coincide after clipping
give empty panels, which are skipped. The mesh and the nodes are held in v = u + 1/b ∈ [0, 2/b] (the weight
¼e^{−1/(2b)}e^{−u/2} is ¼e^{−v/2}), so that points near the end u = −1/b keep their offsets when 1/b is large
(b down to 2/DBL_MAX; :func:`expectation`). On every panel: 12-point Gauss–Legendre, summed in log space (on a panel
at distance d from a centre, with width ½d, an exponential of rate λ carries e^{−λd} of the mass and the rule's
error at λ·½d ≤ 20 is below 1e-13 of it). Tested agreement with the reference: |Δ log R| ≤ 1e-12·max(1, |log R|)
over β ∈ [−1e4, 1e4], q ∈ [1e-8, 0.9], b ∈ [0.05, 100] (observed ≤ 3e-13); Theorem 4.4 within 1e-10 relative;
R^(−1) = 1/(1−q) to 1e-13 for b from 1e-8 down to 2e-9 (tests/ptr/test_ptr_edges.py); below b = 2e-9 orders ≤ ½
take the proven closed form c₋^β and larger orders are refused, as in the reference (see _MAX_VARIATION below).

Theorem 4.4's excesses, without the cancellation of R^(α) − 2(1−q)R^(α−1) + (1−q)²R^(α−2) (notes §8):

    B1 − 1 = E_{μ0}[ψ_α(x) + c·r^{α−2}(qρ)²],   B2 − 1 = E_{μ0}[ψ_{1−α}(x) + c·r^{−1−α}(qρ)²],

with x = q(ρ − 1), ψ_β(x) = (1 + x)^β − 1 − βx ≥ 0 (E_{μ0}[x] = 0), A = qρ/r and c = 2α(α−1)/σ1² (appendix 000
eqs. (74)–(81); reference/ptr/thm4_4.py uses the same form). ψ comes from the SGM fast path (same x = q(e^u − 1)).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.domains import NOISE
from dpspec.reference.errors import DomainError
from dpspec.reference.ptr.spec import ANY_ORDER, Q_RATE

from .._torch import gauss_legendre, params
from ..base.sgm import log_psi

_NODES = 12
_RATIO = 1.5  # geometric growth of panel end points away from a centre (width ½d at distance d)
_RESOLVED = 10.0  # the finest panel has |β|·width ≤ this
_DBL_MAX = 1.7976931348623157e308


def log_r(u: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    """log(1 − q + q e^u), accurate for every real u and q ∈ (0, 1): log1p(q·expm1(u)) where r = 1 + q·expm1(u)
    ≥ ½ (there log1p has full relative accuracy), else logaddexp(log(1 − q), log q + u) — both terms exact to
    rounding, no cancellation. (log1p alone lost the digits of r where r ≪ 1: at q = 1 − 2.2e-16, u = −20 the sum
    1 + q·expm1(u) ≈ 2e-9 kept 7 digits, and R̃ at order −7.2 came out 1.35e-7 too large.)"""
    small = u <= 30
    us = torch.where(small, u, torch.zeros_like(u))
    x = q * torch.expm1(us)
    near_one = small & (x >= -0.5)
    return torch.where(near_one, torch.log1p(torch.where(near_one, x, torch.zeros_like(x))),
                       torch.logaddexp(torch.log1p(-q), torch.log(q) + u))


def _mesh(beta_abs: torch.Tensor, q: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Sorted panel end points (last dimension) on [0, 2/b] in the variable v = u + 1/b (module docstring);
    points that coincide after clipping give empty panels, which :func:`_log_integral` skips."""
    width = 2 / b
    n_fine = torch.clamp(torch.ceil(torch.log2((beta_abs + 2) / _RESOLVED)), min=0)
    k_max = int(n_fine.max())
    far = float(width.max())
    coarse = [1.0]
    while coarse[-1] < far:
        coarse.append(coarse[-1] * _RATIO)
    fine = torch.tensor([2.0**-k for k in range(k_max, 0, -1)], dtype=b.dtype, device=b.device)
    fine = torch.maximum(fine, torch.exp2(-n_fine).unsqueeze(-1))  # per row: only as fine as its |β| needs
    d = torch.cat([fine, torch.tensor(coarse, dtype=b.dtype, device=b.device).expand(*b.shape, -1)], dim=-1)
    v_star = (torch.log1p(-q) - torch.log(q) + 1 / b).unsqueeze(-1)
    zero, hi_ = torch.zeros_like(width).unsqueeze(-1), width.unsqueeze(-1)
    points = torch.cat([zero, hi_, d, hi_ - d, v_star, v_star - d, v_star + d], dim=-1)
    points = torch.minimum(torch.maximum(points, zero), hi_)
    return torch.sort(points, dim=-1).values


def _log_integral(log_f, bp: torch.Tensor) -> torch.Tensor:
    """log ∫ f over [bp[..., 0], bp[..., −1]] for flat rows of panel end points ``bp`` (N, P+1): Gauss–Legendre
    on every non-empty panel; ``log_f(u, rows)`` gives log f at nodes u (K, n) of the rows ``rows`` (K,)."""
    x, w = gauss_legendre(_NODES, bp)
    a, half = bp[:, :-1], (bp[:, 1:] - bp[:, :-1]) / 2
    rows, panels = torch.nonzero(half > 0, as_tuple=True)
    h = half[rows, panels].unsqueeze(-1)
    z = a[rows, panels].unsqueeze(-1) + h * (1 + x)
    terms = torch.full((bp.shape[0], a.shape[1], _NODES), -math.inf, dtype=bp.dtype, device=bp.device)
    terms[rows, panels] = torch.log(h) + torch.log(w) + log_f(z, rows)
    return torch.logsumexp(terms.flatten(-2), dim=-1)


def expectation(log_g, q: torch.Tensor, b: torch.Tensor, beta_abs: torch.Tensor) -> torch.Tensor:
    """log E_{s~Lap(0,b)}[g(ρ(s))] for g > 0 given as ``log_g(u, rows)`` = log g(e^u) at the parameters of
    ``rows`` (module docstring). ``q``, ``b``, ``beta_abs``: flat tensors of one shape; the log-slope of g in u
    must be at most ``beta_abs`` + 2 in size (it sets the finest panels).

    The body ¼e^{−1/(2b)}∫_{−1/b}^{1/b} e^{−u/2} g(e^u) du is integrated as ¼∫_0^{2/b} e^{−v/2} g(e^{v−1/b}) dv,
    v = u + 1/b: the weight's log is −v/2 exactly, where −u/2 − 1/(2b) cancelled two numbers of size 1/(2b) and
    the nodes u = −1/b + d lost d (at b = 1e-16 the end-point mesh collapsed and R^(−1) came out 1.505, not
    1/(1−q) = 1.0101). Needs 2/b to be a finite double: DomainError naming b below 2/DBL_MAX ≈ 1.1e-308."""
    if not bool(torch.isfinite(2 / b).all()):
        raise DomainError("b", float(b[~torch.isfinite(2 / b)][0]),
                          f"({2 / _DBL_MAX:.2g}, inf) in the fast path (2/b must be a finite double)")
    rows = torch.arange(b.numel(), device=b.device).unsqueeze(-1)
    one_over_b = (1 / b).unsqueeze(-1)
    tails = torch.logaddexp(math.log(0.5) + log_g(-one_over_b, rows), math.log(0.5) - one_over_b + log_g(one_over_b, rows))
    body = _log_integral(lambda v, r: -v / 2 + log_g(v - one_over_b[r], r.unsqueeze(-1)), _mesh(beta_abs, q, b))
    return torch.logaddexp(tails.squeeze(-1), math.log(0.25) + body)


# The reference's range (reference/ptr/rq.py, _guard_digits and _in_range), mirrored so that both paths answer and
# refuse the same points with the same words: below b = 2/_MAX_VARIATION an order ≤ ½ has the proven closed form
# R = c₋^order (c₋ = 1 − q + q·e^{−1/b}; relative error below e^{−2·10^8}, proof beside _TINY_B_MAX_ORDER there),
# a larger order is refused naming b; above it, V = |order|·ln(c₊/c₋) + 1/b > _MAX_VARIATION is refused naming beta.
_MAX_VARIATION = 1e9
_TINY_B_MAX_ORDER = 0.5


def _nstr(x: float, n: int) -> str:
    """``mpmath.nstr(x, n)`` for a float x (the reference's number format in its refusals)."""
    text = f"{x:.{n}g}"
    mantissa, _, exponent = text.partition("e")
    if "." not in mantissa and mantissa not in ("inf", "-inf", "nan"):
        mantissa += ".0"
    if not exponent:
        return mantissa
    return f"{mantissa}e{exponent[0]}{exponent[1:].lstrip('0') or '0'}"


def _tiny_b(order: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Where the closed form R = c₋^order applies: 1/b > _MAX_VARIATION/2 and order ≤ ½."""
    return (1 / b > _MAX_VARIATION / 2) & (order <= _TINY_B_MAX_ORDER)


def _check_reference_range(order, beta, q, b, order_text: str) -> None:
    """DomainError, in the reference's words, at the first point outside its range (module comment above)."""
    rule = f"the reference's quadrature range |{order_text}|·ln(c₊/c₋) + 1/b ≤ 1e9, c± = 1 − q + q·e^(±1/b)"
    small_b = 1 / b > _MAX_VARIATION / 2
    refused_b = small_b & (order > _TINY_B_MAX_ORDER)
    if bool(refused_b.any()):
        raise DomainError("b", _nstr(float(b[refused_b][0]), 10),
                          f"b ≥ {_nstr(2 / _MAX_VARIATION, 3)} where {order_text} > 1/2 ({rule})")
    one_over_b = torch.where(small_b, torch.ones_like(b), 1 / b)
    spread = log_r(one_over_b, q) - log_r(-one_over_b, q)  # ln(c₊/c₋) ≥ 0, no overflow of e^{1/b}
    refused = ~small_b & (order.abs() * spread + one_over_b > _MAX_VARIATION)
    if bool(refused.any()):
        i = torch.nonzero(refused.reshape(-1))[0, 0]
        bb, qq, sp = (float(t.reshape(-1)[i]) for t in (b, q, spread))
        limit = (_MAX_VARIATION - 1 / bb) / sp
        raise DomainError("beta", _nstr(float(beta.reshape(-1)[i]), 10),
                          f"|{order_text}| ≤ {_nstr(limit, 3)} at q={_nstr(qq, 6)}, b={_nstr(bb, 6)} ({rule})")


def log_rq(beta, q, b) -> torch.Tensor:
    """log R_q^(β) for every real β, q ∈ (0, 1), b > 0, elementwise (no overflow: R itself may exceed float64).
    Below b = 2e-9 an order β ≤ ½ takes the closed form β·ln c₋ (module comment above _MAX_VARIATION), also
    where 2/b is not a double."""
    beta, q, b = params(beta=(beta, ANY_ORDER), q=(q, Q_RATE), b=(b, NOISE))
    shape = beta.shape
    beta, q, b = beta.reshape(-1), q.reshape(-1), b.reshape(-1)
    if beta.numel() == 0:
        return beta.reshape(shape)
    closed = _tiny_b(beta, b)
    out = beta * log_r(-1 / b, q)  # β·ln c₋ (the value where ``closed``)
    rest = ~closed
    if bool(rest.any()):
        bs, qs, bbs = beta[rest], q[rest], b[rest]
        out[rest] = expectation(lambda u, rows: bs[rows] * log_r(u, qs[rows]), qs, bbs, bs.abs())
    return out.reshape(shape)


def rq(beta, q, b) -> torch.Tensor:
    """R_q^(β) = E_{s~Lap(0,b)}[((1−q) + q Lap(s;1,b)/Lap(s;0,b))^β] (mirrors ``ptr.rq``), in the reference's
    range (DomainError outside it, in the reference's words); +inf where R exceeds the float64 range (use
    :func:`log_rq` there, which answers beyond the reference's range too)."""
    beta, q, b = params(beta=(beta, ANY_ORDER), q=(q, Q_RATE), b=(b, NOISE))
    _check_reference_range(beta, beta, q, b, "β")
    return torch.exp(log_rq(beta, q, b))


def rq_tilde(beta, q, b) -> torch.Tensor:
    """R̃_q^(β) = E_{s~μ}[(μ0(s)/μ(s))^β] = R_q^(1−β) (appendix 000 eq. (82); mirrors ``ptr.rq_tilde``), in the
    reference's range for the order 1 − β (DomainError outside it)."""
    beta, q, b = params(beta=(beta, ANY_ORDER), q=(q, Q_RATE), b=(b, NOISE))
    _check_reference_range(1 - beta, beta, q, b, "1−β")
    return torch.exp(log_rq(1 - beta, q, b))


def log_excess_b(alpha: torch.Tensor, q: torch.Tensor, b: torch.Tensor, log_c: torch.Tensor,
                 reverse: bool) -> torch.Tensor:
    """log(B1 − 1) (``reverse=False``) or log(B2 − 1) (``reverse=True``) of Theorem 4.4, with log c the log of
    the bracket's factor (2α(α−1)/σ1² in the full version); flat tensors of one shape, unchecked."""
    order = 1 - alpha if reverse else alpha
    power = -1 - alpha if reverse else alpha - 2

    def log_g(u, rows):
        qq = q[rows]
        bracket = log_c[rows] + power[rows] * log_r(u, qq) + 2 * (torch.log(qq) + u)
        return torch.logaddexp(log_psi(order[rows], qq, u), bracket)

    return expectation(log_g, q, b, alpha + 2)
