"""The largest eigenvalue of the GOE on the torch fast path (float64): CDF, upper tail and the quantile
τ(d, ρ) = F⁻¹_{λ1 GOE(d)}(1 − ρ/2) of seed 003 Lemma A.4.4 (Chiani 2014, Thm 2). Mirrors
``dpspec.reference.objpert.goe`` (same Hermite-function Pfaffian with closed-form entries: see its docstring; notes
objpert-pdp.md §4.5, §5.4, §8.1), batched over x (or ρ) for each d; d is a matrix size, so points are grouped by d.

Accuracy (float64):
* the upper tail P[λ1 > x] for x ≥ 0 is −expm1(½ Σ_k log1p(−μ_k)), μ_k the eigenvalues of M = A(∞)⁻¹B(x), with
  B(x) = A(∞) − A(x) formed from tail quantities only: no cancellation, relative accuracy ~1e-11 from the bulk down to
  tails of 1e-290 (tested against the reference); it underflows to 0 where exp(−x²/2) does (x/s > 37, s = 1 or √2);
* for x < 0 the tail is 1 − F(x) with F(x) ≤ ½ (no cancellation);
* the CDF F(x) = sqrt(det A(x)/det A(∞)) loses digits where F is small (the determinant of A(x) cancels there): the
  fast CDF refuses F < 1e-12 (DomainError naming x), where the reference (precision raised locally) must be used;
* the quantile solves log P[λ1 > x] = log(ρ/2) by Illinois regula falsi on a bracket checked by evaluation; it
  refuses ρ < 1e-280 (the tail's float64 range).
d ≤ 100 (GOE_MAX_DIM, the reference's limit; the fast path itself would go further, but is only tested up to it).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import DomainError
from dpspec.reference.objpert.spec import FAILURE, GOE_DIMENSION, GOE_NORM, GOE_POINT, POSITIVE

from .._torch import DTYPE, as_tensor, check, params

CDF_FLOOR = 1e-12  # the fast CDF refuses smaller values (cancellation in det A(x))
RHO_FLOOR = 1e-280  # the fast quantile refuses smaller ρ (float64 range of the tail)
_SQRT2 = math.sqrt(2.0)
_C0 = math.pi ** -0.25


def _tails(y: torch.Tensor, n: int):
    """(Ī (n,), J (N, n), L (N, n, n)) at the points y (N,): the recurrences of the reference's docstring."""
    like = y
    roots = torch.sqrt(torch.arange(n + 2, dtype=DTYPE, device=like.device))
    ibar = torch.zeros(n, dtype=DTYPE, device=like.device)
    ibar[0] = _C0 * math.sqrt(2 * math.pi)
    for k in range(1, n - 1):
        ibar[k + 1] = roots[k] * ibar[k - 1] / roots[k + 1]
    hs = [_C0 * torch.exp(-y * y / 2)]
    hs.append(_SQRT2 * y * hs[0])
    for k in range(1, n):
        hs.append((_SQRT2 * y * hs[k] - roots[k] * hs[k - 1]) / roots[k + 1])
    h = torch.stack(hs, dim=-1)  # (N, n+1)
    hp = torch.stack([((roots[k] * hs[k - 1]) if k else torch.zeros_like(y)) - roots[k + 1] * hs[k + 1]
                      for k in range(n)], dim=-1) / _SQRT2
    js = [ibar[0] * 0.5 * torch.special.erfc(y / _SQRT2)]  # Φ(−y) without 1 + erf cancellation
    if n > 1:
        js.append(_SQRT2 * hs[0])
    for k in range(1, n - 1):
        js.append((roots[k] * js[k - 1] + _SQRT2 * hs[k]) / roots[k + 1])
    jt = torch.stack(js, dim=-1)  # (N, n)
    hn = h[:, :n]
    idx = torch.arange(n, device=like.device)
    gap = (idx[None, :] - idx[:, None]).to(DTYPE)  # j − i
    t = (hn[:, :, None] * hp[:, None, :] - hn[:, None, :] * hp[:, :, None]) / torch.where(gap == 0, 1.0, 2 * gap)
    diag = [0.5 * torch.special.erfc(y)]  # Φ(−√2 y)
    for k in range(n - 1):
        diag.append(diag[k] + hs[k + 1] * hs[k] / (_SQRT2 * roots[k + 1]))
    t = torch.where(gap == 0, torch.diag_embed(torch.stack(diag, dim=-1)), t)
    # L: column 0 by the i-recurrence, then columns j+1 by the j-recurrence (vectorised over i and the points)
    col0 = [jt[:, 0] ** 2 / 2]
    if n > 1:
        col0.append(_SQRT2 * t[:, 0, 0])
    for i in range(1, n - 1):
        col0.append((roots[i] * col0[i - 1] + _SQRT2 * t[:, i, 0]) / roots[i + 1])
    cols = [torch.stack(col0, dim=-1)]  # each (N, n) over i
    prev = torch.zeros_like(cols[0])
    for j in range(n - 1):
        nxt = (roots[j] * prev - _SQRT2 * (t[:, :, j] - hn[:, j, None] * jt)) / roots[j + 1]
        prev = cols[j]
        cols.append(nxt)
    big_l = torch.stack(cols, dim=-1)  # (N, i, j)
    return ibar, jt, big_l


def _pad(core: torch.Tensor, border: torch.Tensor | None) -> torch.Tensor:
    if border is None:
        return core
    n = core.shape[-1]
    out = torch.zeros(core.shape[0], n + 1, n + 1, dtype=DTYPE, device=core.device)
    out[:, :n, :n] = core
    out[:, :n, n] = border
    out[:, n, :n] = -border
    return out


def _b_matrix(x: torch.Tensor, d: int) -> torch.Tensor:
    ibar, jt, big_l = _tails(x, d)
    core = ibar[None, :, None] * jt[:, None, :] - ibar[None, None, :] * jt[:, :, None] - (big_l - big_l.transpose(1, 2))
    return _pad(core, jt if d % 2 else None)


def _a_inf(d: int, device) -> torch.Tensor:
    """A(∞) = B(−∞): the same recurrences with h = 0, J = Ī, T = I (closed forms, no evaluation at −∞)."""
    n = d
    roots = [math.sqrt(k) for k in range(n + 2)]
    ibar = [0.0] * n
    ibar[0] = _C0 * math.sqrt(2 * math.pi)
    for k in range(1, n - 1):
        ibar[k + 1] = roots[k] * ibar[k - 1] / roots[k + 1]
    big_l = [[0.0] * n for _ in range(n)]
    big_l[0][0] = ibar[0] ** 2 / 2
    if n > 1:
        big_l[1][0] = _SQRT2
    for i in range(1, n - 1):
        big_l[i + 1][0] = roots[i] * big_l[i - 1][0] / roots[i + 1]
    for i in range(n):
        prev = 0.0
        for j in range(n - 1):
            nxt = (roots[j] * prev - _SQRT2 * (1.0 if i == j else 0.0)) / roots[j + 1]
            prev = big_l[i][j]
            big_l[i][j + 1] = nxt
    ib = torch.tensor(ibar, dtype=DTYPE, device=device)
    bl = torch.tensor(big_l, dtype=DTYPE, device=device)
    core = ib[:, None] * ib[None, :] - ib[None, :] * ib[:, None] - (bl - bl.T)
    return _pad(core[None], ib[None] if d % 2 else None)[0]


_A_INF: dict = {}


def _a_inf_pair(d: int, device) -> tuple[torch.Tensor, torch.Tensor]:
    """(A(∞), A(∞)⁻¹), cached per (d, device)."""
    key = (d, str(device))
    if key not in _A_INF:
        a = _a_inf(d, device)
        _A_INF[key] = (a, torch.linalg.inv(a))
    return _A_INF[key]


def _a_direct(x: torch.Tensor, d: int) -> torch.Tensor:
    """A(x) from tail quantities at −x (parity): (−1)^{i+j}(L_ij − L_ji)(−x), border (−1)^i J_i(−x)."""
    _, jt, big_l = _tails(-x, d)
    idx = torch.arange(d, device=x.device)
    sign = 1.0 - 2.0 * ((idx[:, None] + idx[None, :]) % 2).to(DTYPE)
    core = sign * (big_l - big_l.transpose(1, 2))
    border = jt * (1.0 - 2.0 * (idx % 2).to(DTYPE)) if d % 2 else None
    return _pad(core, border)


def _log_cdf_direct(x: torch.Tensor, d: int) -> torch.Tensor:
    a = _a_direct(x, d)
    _, logdet = torch.linalg.slogdet(a)
    _, logdet_inf = torch.linalg.slogdet(_a_inf(d, x.device))
    return (logdet - logdet_inf) / 2


def _log_det_identity_plus(n: torch.Tensor) -> torch.Tensor:
    """log det(I + N) for a batch of N with ‖N‖_∞ < 1 (I + N strictly diagonally dominant: elimination without
    pivoting is stable), eliminating on the deviation from I so that each pivot is 1 + ñ_kk with ñ_kk formed without
    adding 1: Σ_k log1p(ñ_kk), free of cancellation when N is small."""
    a = n.clone()
    m = a.shape[-1]
    total = torch.zeros(a.shape[0], dtype=DTYPE, device=a.device)
    for k in range(m):
        dev = a[:, k, k]
        total = total + torch.log1p(dev)
        if k + 1 < m:
            mult = a[:, k + 1:, k] / (1 + dev)[:, None]
            a[:, k + 1:, k + 1:] -= mult[:, :, None] * a[:, k, None, k + 1:]
    return total


def _log1m_cdf_tail(x: torch.Tensor, d: int) -> torch.Tensor:
    """log F(x) = ½ log det(I − M), M = A(∞)⁻¹ B(x) (x ≥ 0). Where ‖M‖_∞ ≤ ½ (the tail, sf small): the deviation
    elimination above (no cancellation in 1 − F); elsewhere (F not near 1) ½(log det(A(∞) − B) − log det A(∞))."""
    a_inf, a_inv = _a_inf_pair(d, x.device)
    b = _b_matrix(x, d)
    m = a_inv @ b  # A(∞) has condition number ≈ 1.2 d: its cached inverse is accurate
    small = m.abs().sum(dim=-1).amax(dim=-1) <= 0.5
    out = torch.empty_like(x)
    if bool(small.any()):
        out[small] = _log_det_identity_plus(-m[small]) / 2
    if bool((~small).any()):
        sign, logdet = torch.linalg.slogdet(a_inf - b[~small])
        _, logdet_inf = torch.linalg.slogdet(a_inf)
        out[~small] = torch.where(sign > 0, (logdet - logdet_inf) / 2, torch.full_like(logdet, -math.inf))
    return out


def _sf_chiani(x: torch.Tensor, d: int) -> torch.Tensor:
    """P[λ1 > x] (Chiani normalisation) for a 1-D batch x at one d."""
    out = torch.empty_like(x)
    upper = x >= 0
    if upper.any():
        out[upper] = -torch.expm1(_log1m_cdf_tail(x[upper], d))
    if (~upper).any():
        out[~upper] = -torch.expm1(_log_cdf_direct(x[~upper], d))
    return out


def _log_sf_chiani(x: torch.Tensor, d: int) -> torch.Tensor:
    out = torch.empty_like(x)
    upper = x >= 0
    if upper.any():
        out[upper] = torch.log(-torch.expm1(_log1m_cdf_tail(x[upper], d)))
    if (~upper).any():
        out[~upper] = torch.log1p(-torch.exp(_log_cdf_direct(x[~upper], d)))
    return out


def _cdf_chiani(x: torch.Tensor, d: int) -> torch.Tensor:
    out = torch.empty_like(x)
    lower = x < 0
    if lower.any():
        out[lower] = torch.exp(_log_cdf_direct(x[lower], d))
    if (~lower).any():
        out[~lower] = torch.exp(_log1m_cdf_tail(x[~lower], d))
    return out


def _scale(norm) -> float:
    if norm not in GOE_NORM.options:
        raise DomainError("norm", norm, GOE_NORM.describe())
    return _SQRT2 if norm == "sqrt2" else 1.0


def _by_dimension(fn, x: torch.Tensor, d: torch.Tensor) -> torch.Tensor:
    """fn(x_group, d) over the groups of equal d (a matrix size: the only loop, over distinct d values)."""
    out = torch.empty_like(x)
    flat_x, flat_d, flat_out = x.reshape(-1), d.reshape(-1), out.reshape(-1)
    for dim in torch.unique(flat_d).tolist():
        sel = flat_d == dim
        flat_out[sel] = fn(flat_x[sel], int(dim))
    return flat_out.reshape(x.shape)


def goe_lambda1_sf(x, d, norm="sqrt2") -> torch.Tensor:
    """P[λ1 > x] for the d×d GOE (seed 003 Lemma A.4.4's law; Chiani 2014, Thm 2), norm "sqrt2" ((Z+Zᵀ)/√2) or
    "chiani" ((Z+Zᵀ)/2); d ≤ 100. Relative accuracy ~1e-11 for tails ≥ 1e-200 at every d ≤ 100 (measured against
    the reference: 2e-13 at d = 50, 1e-200 … 1e-243); deeper, at large d, the float64 determinant loses the tail
    (d = 50, x = 54: 1e-7 relative; x = 55: 0 against 6e-277) — use dpspec.reference.objpert.goe there."""
    s = _scale(norm)
    x, d = params(x=(x, GOE_POINT), d=(d, GOE_DIMENSION))
    return _by_dimension(_sf_chiani, x / s, d)


def goe_lambda1_cdf(x, d, norm="sqrt2") -> torch.Tensor:
    """P[λ1 ≤ x] for the d×d GOE (norm as goe_lambda1_sf); refuses values below 1e-12 (DomainError naming x: the
    determinant cancels there, use dpspec.reference.objpert.goe.goe_lambda1_cdf)."""
    s = _scale(norm)
    x, d = params(x=(x, GOE_POINT), d=(d, GOE_DIMENSION))
    out = _by_dimension(_cdf_chiani, x / s, d)
    small = out < CDF_FLOOR
    if bool(small.any()):
        bad = x[small].flatten()[0].item()
        raise DomainError("x", bad, f"points with P[λ1 ≤ x] ≥ {CDF_FLOOR:g} (the fast CDF's float64 range; the "
                          f"reference goe_lambda1_cdf computes smaller values)")
    return out


def _quantile_chiani(target_log: torch.Tensor, d: int) -> torch.Tensor:
    """x with log P[λ1 > x] = target_log (Chiani normalisation), a 1-D batch at one d: Illinois regula falsi."""
    # lo: P[λ1 > x] ≥ P[A_11 > x] = Φ(−x), so x = Φ⁻¹(1 − target) − 1 lies below the root
    z = -torch.special.ndtri(torch.exp(target_log))
    lo = z - 1.0
    hi = math.sqrt(2 * d) + torch.sqrt(-2 * target_log) + 1.0
    flo = _log_sf_chiani(lo, d) - target_log
    fhi = _log_sf_chiani(hi, d) - target_log
    for _ in range(60):  # λ1 is 1-Lipschitz in the standard normals: hi is above the root; checked, widened if not
        bad = fhi >= 0
        if not bool(bad.any()):
            break
        lo = torch.where(bad, hi, lo)
        flo = torch.where(bad, fhi, flo)
        hi = torch.where(bad, hi + torch.sqrt(-2 * target_log) + 1.0, hi)
        fhi = torch.where(bad, _log_sf_chiani(hi, d) - target_log, fhi)
    for _ in range(60):  # hi beyond the float64 range of the tail (log P = −inf): move it halfway down
        out = ~torch.isfinite(fhi)
        if not bool(out.any()):
            break
        hi = torch.where(out, (lo + hi) / 2, hi)
        fhi = torch.where(out, _log_sf_chiani(hi, d) - target_log, fhi)
    side = torch.zeros_like(lo)
    x = lo
    done = torch.zeros_like(lo, dtype=torch.bool)
    for _ in range(100):
        x_new = (lo * fhi - hi * flo) / (fhi - flo)
        x = torch.where(done, x, x_new)
        fx = _log_sf_chiani(x, d) - target_log
        # log P[λ1 > x] carries ~1e-13 relative rounding: |fx| ≤ 1e-12·max(1, |log(ρ/2)|) moves x by ~1e-13
        done = done | (fx.abs() <= 1e-12 * torch.clamp(target_log.abs(), min=1.0)) | ((hi - lo) <= 4e-16 * x.abs())
        if bool(done.all()):
            break
        pos = fx > 0
        fhi = torch.where(pos & (side == 1), fhi / 2, fhi)
        flo = torch.where(~pos & (side == -1), flo / 2, flo)
        lo, flo = torch.where(pos, x, lo), torch.where(pos, fx, flo)
        hi, fhi = torch.where(pos, hi, x), torch.where(pos, fhi, fx)
        side = torch.where(pos, torch.ones_like(side), -torch.ones_like(side))
    return x


def goe_quantile(d, rho, norm="sqrt2") -> torch.Tensor:
    """τ(d, ρ) with P[λ1 > τ] = ρ/2 (seed 003 Lemma A.4.4; notes §4.5, §5.4), norm "sqrt2" (the lemma's (Z+Zᵀ)/√2)
    or "chiani" ((Z+Zᵀ)/2: the thesis' τ = 12 at d = 50, ρ = 8.465e−6, erratum E2). Refuses ρ < 1e-280."""
    s = _scale(norm)
    d, rho = params(d=(d, GOE_DIMENSION), rho=(rho, FAILURE))
    if bool((rho < RHO_FLOOR).any()):
        bad = rho[rho < RHO_FLOOR].flatten()[0].item()
        raise DomainError("rho", bad, f"[{RHO_FLOOR:g}, 1) (the fast quantile's float64 range; the reference "
                          f"goe_quantile takes any ρ ∈ (0, 1))")
    tau = s * _by_dimension(lambda r, dim: _quantile_chiani(torch.log(r / 2), dim), rho, d)
    lost = ~torch.isfinite(tau)
    if bool(lost.any()):  # the float64 log tail fails first at large d (d = 100 below ρ ≈ 1e-240): refuse, never NaN
        bad = rho[lost].flatten()[0].item()
        raise DomainError("rho", bad, f"ρ where the float64 tail of the d×d GOE is resolved (every d ≤ 100 for ρ ≥ "
                          f"1e-200; measured, session 16); the reference goe_quantile takes any ρ ∈ (0, 1)")
    return tau


def goe_norm_bound(sigma, d, rho) -> torch.Tensor:
    """σ τ(d, ρ) (seed 003 Lemma A.4.4, objpert.lemma_a4_4): ‖σ(Z+Zᵀ)/√2‖₂ ≤ στ w.p. ≥ 1 − ρ."""
    sigma = check("sigma", as_tensor(sigma, name="sigma"), POSITIVE)
    return sigma * goe_quantile(d, rho, "sqrt2")
