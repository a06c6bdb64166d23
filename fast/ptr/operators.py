"""PTR-TMEAN (Algorithm 3 of the PTR paper, appendix seed 000_0fe14ad2f9124ea1.txt §A.5) as a torch training operator.

One call aggregates one batch of per-sample gradients g_1 … g_m:

    clip      g_i ← g_i · min(1, R/||g_i||)                                   (Algorithm 2, line 8)
    test      Δ̂ = Δ(S) + Lap(0, b)                                           (Algorithm 3, lines 1–2)
    release   Δ̂ ≤ b·ln(1/(2δ0)):  SUM(S)    + σR·N(0, I_d), test failed, '+'  (Algorithm 3, lines 3–4)
              otherwise:           TSUM_F(S) + στ·N(0, I_d), test passed, '−'  (Algorithm 3, lines 5–6)

TSUM_F(S) = Σ_{i ≤ m−F} x_(i) drops the F points of LARGEST ℓ2 norm (one-sided, by norm; 0 if m ≤ F; seed 001 §5),
so TSUM_F = SUM − (sum of the top-F rows by norm). Δ(S) is Theorem 5.1's closed form extended to every m (erratum
E16, reference/ptr/tsum.py): for τ < R, Δ = max(F − m, 0) + #{top-min(F, m) clipped norms ≤ τ}; Δ = ∞ for τ ≥ R
(the test always passes: LS_TSUM ≤ GS = R ≤ τ). The threshold keeps the factor b of Remark 4.1(3) (erratum E12).
Both sums are one weighted reduction w·G over the batch (w_i = clip factor, zeroed on the top-F rows for TSUM), so
the clipped matrix is never formed, only m norms are selected (torch.topk, no sort), and the branch is taken with
torch.where (the only host synchronisations read whether any row is non-finite or of extreme norm, see the note
above _row_norms). Ties in norm are broken by index, the larger index trimmed first, exactly as the reference's
stable argsort (see _top_rows for why a fixed tie-break matters). A sample with a non-finite entry is clipped to the
zero vector (note above _row_norms).
"""
from __future__ import annotations

import math
from collections import namedtuple
from typing import Sequence

import torch

from dpspec.reference.domains import Points
from dpspec.reference.errors import DomainError
from dpspec.reference.ptr.spec import DELTA0, POSITIVE, TRIM

PTRResult = namedtuple("PTRResult", "aggregate passed delta_hat")
PTRResult.__doc__ = ("Output of PTR-TMEAN: the noisy SUM (test failed) or TSUM_F (test passed), the test outcome "
                     "(0-dim bool tensor, True = passed = '−'), and the released Δ̂ (0-dim float64 tensor).")

def threshold(b: float, delta0: float) -> float:
    """The test threshold b·ln(1/(2δ0)) (seed 001 Remark 4.1(3); Algorithm 3 line 3)."""
    return b * math.log(1 / (2 * delta0))


def _as_rows(per_sample_grads) -> tuple[list[torch.Tensor], list[torch.Size], bool]:
    """The per-sample gradients as a list of (m, d_k) views, the per-sample shapes, and whether one tensor was
    given. Integer tensors are promoted to float64 (the aggregate is then float64: the noise is real); boolean,
    complex and non-tensor entries are refused with a DomainError naming ``per_sample_grads``."""
    single = isinstance(per_sample_grads, torch.Tensor)
    try:
        grads = [per_sample_grads] if single else list(per_sample_grads)
    except TypeError:
        raise DomainError("per_sample_grads", type(per_sample_grads).__name__,
                          "a tensor (m, ...) or a sequence of tensors (m, ...)") from None
    for g in grads:
        if not isinstance(g, torch.Tensor):
            raise DomainError("per_sample_grads", f"an entry of type {type(g).__name__}",
                              "a tensor (m, ...) or a sequence of tensors (m, ...)")
        if g.dtype == torch.bool or g.is_complex():
            raise DomainError("per_sample_grads", f"a tensor of dtype {g.dtype}", "real (floating or integer) tensors")
    grads = [g if g.is_floating_point() else g.to(torch.float64) for g in grads]
    if not grads or any(g.dim() < 1 for g in grads) or len({g.shape[0] for g in grads}) != 1:
        raise DomainError("per_sample_grads", "tensors without a common batch dimension",
                          "a tensor (m, ...) or a sequence of tensors (m, ...)")
    return [g.reshape(g.shape[0], math.prod(g.shape[1:])) for g in grads], [g.shape[1:] for g in grads], single


# A per-sample gradient row is clipped to norm ≤ R by a per-record map into the ball B(0, R): g ↦ g·min(1, R/||g||)
# for a finite row, and g ↦ 0 (the zero vector, norm 0) for a row with any non-finite entry (NaN or ±inf). Theorem
# 5.1 and Theorems 4.3–4.4 need only that every clipped point lies in B(0, R) (GS(SUM) = GS(TSUM_F) = R) and that
# TSUM_F ranks the clipped points by their norms with a fixed tie-break; both hold for this map, applied record by
# record, so the privacy analysis is unchanged. The zero vector rather than "norm +inf, trimmed first": a corrupted
# row then contributes nothing to either sum and spends none of the F trimming slots (a row of norm R in the top F
# would also lower Δ without adding information). Before, one such row made the whole aggregate NaN.
#
# Norms are accumulated in float64 (float32 squares overflow at 1.8e19); rows of float64 entries whose norm still
# over- or underflows (entries beyond ~1e154, or all below ~1e-154) get their norm rescaled by their largest entry,
# and rows whose clip factor is below what their dtype holds to full precision get their clipped contribution in
# float64, so that ||clipped row|| ≤ R (up to rounding) holds for every finite row.
_NORMAL_NORMS = (2.0**-450, 2.0**450)


def _row_norms(rows: Sequence[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    """(finite, norms): whether each row's entries are all finite, and its ℓ2 norm over all tensors (float64; 0
    where not finite)."""
    finite = torch.stack([torch.isfinite(r).all(dim=1) for r in rows]).all(dim=0)
    norms = torch.linalg.vector_norm(
        torch.stack([torch.linalg.vector_norm(r, dim=1, dtype=torch.float64) for r in rows]), dim=0)
    norms = torch.where(finite, norms, torch.zeros_like(norms))
    rescue = finite & ((norms < _NORMAL_NORMS[0]) | (norms > _NORMAL_NORMS[1]))
    if bool(rescue.any()):  # a host synchronisation, only to find such rows
        idx = torch.nonzero(rescue).flatten()
        sub = [r.index_select(0, idx).to(torch.float64) for r in rows]
        top = torch.stack([torch.linalg.vector_norm(r, ord=math.inf, dim=1) for r in sub]).amax(dim=0)
        scale = torch.where(top > 0, top, torch.ones_like(top)).unsqueeze(-1)
        scaled = torch.linalg.vector_norm(
            torch.stack([torch.linalg.vector_norm(r / scale, dim=1) for r in sub]), dim=0)
        norms = norms.index_put((idx,), scale.squeeze(-1) * scaled)
    return finite, norms


def clipped_norms(rows: Sequence[torch.Tensor], clip: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-sample clip factors min(1, R/||g_i||) (norm over all tensors of a sample) and the clipped norms; a row
    with a non-finite entry is the zero vector (factor 0, clipped norm 0; see the note above)."""
    finite, norms = _row_norms(rows)
    factor = torch.where(finite, torch.clamp(clip / norms, max=1.0), torch.zeros_like(norms))  # ||g|| = 0: 1
    return factor, torch.clamp(norms, max=clip)


def safety_margin(norms: torch.Tensor, F: int, tau: float, clip: float) -> torch.Tensor:
    """Δ(S) from the clipped norms: max(F − m, 0) + #{top-min(F, m) norms ≤ τ}, ∞ if τ ≥ R (float64, 0-dim).

    Theorem 5.1 (seed 001 §5) extended to m ≤ F as derived in reference/ptr/tsum.py (erratum E16)."""
    return _margin(torch.topk(norms, min(F, norms.shape[0]), sorted=False).values, norms.shape[0], F, tau, clip)


def _margin(top_norms: torch.Tensor, m: int, F: int, tau: float, clip: float) -> torch.Tensor:
    if tau >= clip:
        return torch.tensor(math.inf, dtype=torch.float64, device=top_norms.device)
    # max(F − m, 0) as a float: F may be any integer (F = 1e300 overflowed torch's int64 before)
    return (top_norms <= tau).sum().to(torch.float64) + float(max(F - m, 0))


def _top_rows(norms: torch.Tensor, top_norms: torch.Tensor, F: int) -> torch.Tensor:
    """Mask of the F rows of largest norm (all rows when m ≤ F), ties at the F-th largest norm broken towards the
    larger index, as the reference's stable argsort does.

    A fixed tie-break (batch order = dataset order under Poisson sampling) makes x_(k) a total order on the data,
    which Theorem 5.1's proof needs: clipping puts many norms at exactly R, and an arbitrary tie-break could move
    TSUM_F by up to 2R between neighbours."""
    m = norms.shape[0]
    if m <= F:
        return torch.ones_like(norms, dtype=torch.bool)
    if F == 0:
        return torch.zeros_like(norms, dtype=torch.bool)
    v = top_norms.min()  # the F-th largest norm
    above, tied = norms > v, norms == v
    from_end = torch.flip(torch.cumsum(torch.flip(tied.to(torch.int64), (0,)), 0), (0,))
    return above | (tied & (from_end <= F - above.sum()))


def _laplace(b: float, generator, device) -> torch.Tensor:
    """Lap(0, b) as b·(E1 − E2), E1, E2 ~ Exp(1) i.i.d. (always finite)."""
    e = torch.empty(2, dtype=torch.float64, device=device).exponential_(generator=generator)
    return b * (e[0] - e[1])


def ptr_trimmed_sum(per_sample_grads, F, tau, clip, b, delta0, sigma, generator=None) -> PTRResult:
    """One run of PTR-TMEAN (Algorithm 3, appendix A.5 of the PTR paper) on per-sample gradients.

    ``per_sample_grads``: a tensor (m, ...) or a sequence of tensors (m, ...) (e.g. one per parameter, Opacus'
    ``p.grad_sample``); the norm of a sample is taken over all of them. Integer tensors are promoted to float64.
    A sample with any non-finite entry (NaN, ±inf) is clipped to the zero vector: it contributes nothing, is not
    trimmed, and the privacy analysis is that of clipping (every clipped sample has norm ≤ ``clip``; note above
    :func:`_row_norms`). F (integer ≥ 0, trimmed count), tau (τ > 0, the proposed local sensitivity), clip (R > 0),
    b (Laplace scale > 0), delta0 (δ0 ∈ (0, 1/2]), sigma (noise multiplier > 0) are numbers. ``generator``
    (torch.Generator on the gradients' device) drives Lap and N.
    Returns PTRResult(aggregate, passed, delta_hat); ``aggregate`` has the structure and (floating) dtype of the
    input, the noise is σR·N(0, I) after a failed test and στ·N(0, I) after a passed one. Finding non-finite rows
    and rows of extreme norm costs one host synchronisation.
    """
    rows, shapes, single = _as_rows(per_sample_grads)
    F = TRIM.check("F", F)
    tau, clip, b, sigma = (POSITIVE.check(n, float(v)) for n, v in
                           (("tau", tau), ("clip", clip), ("b", b), ("sigma", sigma)))
    delta0 = DELTA0.check("delta0", float(delta0))

    factor, norms = clipped_norms(rows, clip)
    m = norms.shape[0]
    top = torch.topk(norms, min(F, m), sorted=False)
    delta_hat = _margin(top.values, m, F, tau, clip) + _laplace(b, generator, rows[0].device)
    passed = delta_hat > threshold(b, delta0)

    trimmed = torch.where(_top_rows(norms, top.values, F), torch.zeros_like(factor), factor)
    weights = torch.where(passed, trimmed, factor)
    noise_sd = [torch.tensor(s, dtype=torch.float64, device=passed.device) for s in (sigma * tau, sigma * clip)]
    scale = torch.where(passed, *noise_sd)
    return PTRResult(_release(rows, shapes, single, weights, scale, generator), passed, delta_hat)


def _release(rows, shapes, single, weights, scale, generator):
    """Σ_i w_i g_i + scale·N(0, I) for every tensor, in the input's structure, shapes and dtype. Rows with a
    non-finite entry have w_i = 0 and are left out (0·NaN would be NaN); rows whose weight is below what the
    smallest-range dtype holds to full precision (a huge row clipped hard) are summed in float64."""
    finite = torch.stack([torch.isfinite(r).all(dim=1) for r in rows]).all(dim=0)
    floor = max(torch.finfo(r.dtype).tiny / torch.finfo(r.dtype).eps for r in rows)
    exact = finite & (weights > 0) & (weights < floor)
    special = ~finite | exact
    if bool(special.any()):  # a host synchronisation, only to find such rows
        bad = torch.nonzero(~finite).flatten()
        rows = [r.index_fill(0, bad, 0) if bad.numel() else r for r in rows]
        idx = torch.nonzero(exact).flatten()
        w_exact = weights.index_select(0, idx)
        weights = torch.where(special, torch.zeros_like(weights), weights)
    else:
        idx = None
    aggregate = []
    for r, shape in zip(rows, shapes):
        noise = torch.randn(r.shape[1], generator=generator, device=r.device, dtype=r.dtype)
        total = weights.to(r.dtype) @ r
        if idx is not None and idx.numel():
            total = total + (w_exact @ r.index_select(0, idx).to(torch.float64)).to(r.dtype)
        aggregate.append((total + torch.as_tensor(scale).to(r.dtype) * noise).reshape(shape))
    return aggregate[0] if single else tuple(aggregate)


def gaussian_trimmed_sum(per_sample_grads, F, clip, sigma, generator=None):
    """TSGD+Gaussian's aggregator (seed 001 §6; notes §4.4): TSUM_F(clipped) + σR·N(0, I), F fixed; F = 0 is the
    DP-SGD step (clip, SUM, σR·N(0, I)). Same input structure, dtype promotion, clipping (a sample with a non-finite
    entry is the zero vector) and tie-break as ``ptr_trimmed_sum``."""
    rows, shapes, single = _as_rows(per_sample_grads)
    F = TRIM.check("F", F)
    clip, sigma = POSITIVE.check("clip", float(clip)), POSITIVE.check("sigma", float(sigma))
    factor, norms = clipped_norms(rows, clip)
    if F:
        top = torch.topk(norms, min(F, norms.shape[0]), sorted=False).values
        factor = torch.where(_top_rows(norms, top, F), torch.zeros_like(factor), factor)
    return _release(rows, shapes, single, factor, sigma * clip, generator)


# ---------------------------------------------------------------------------------------------------------------
# Catalogue forms (dataset given as an (m, d) array of points, as in reference/ptr/tsum.py)

_POINTS = Points()


def _points_and_norms(points, F, R):
    """The points' norms and the checked F, R. ``points`` must be an (m, d) array of finite reals, the reference's
    ``Points`` domain (reference/domains.py): a non-tensor goes through that domain's own parser (lists, numpy,
    JSON text), a tensor is checked on its device; a non-finite entry is a DomainError, as in the reference
    (the catalogue forms take a dataset, not gradients: the training operator's zero map of non-finite rows,
    above _row_norms, is no part of them)."""
    if not isinstance(points, torch.Tensor):
        points = _POINTS.check("points", points)
    elif points.dtype == torch.bool or points.is_complex():
        raise DomainError("points", f"tensor of dtype {points.dtype}", _POINTS.describe())
    pts = torch.as_tensor(points, dtype=torch.float64)
    if pts.ndim == 1:
        pts = pts.reshape(-1, 1)
    if pts.ndim != 2:
        raise DomainError("points", f"array of shape {tuple(pts.shape)}", _POINTS.describe())
    finite = torch.isfinite(pts)
    if not bool(finite.all()):
        raise DomainError("points", f"array with entry {pts[~finite][0].item()}", _POINTS.describe())
    return torch.linalg.vector_norm(pts, dim=-1), TRIM.check("F", float(F)), POSITIVE.check("R", float(R))


def ls_tsum(points, F, r, R) -> torch.Tensor:
    """LS^(r)_TSUM_F(S) = ||x_(m−F+1+r)|| (R beyond m; 0 if m + r < F) (seed 001 Theorem 5.1, extended to m ≤ F as
    in reference/ptr/tsum.py, erratum E16); mirrors ``ptr.thm5_1``. The rank is found by ``torch.kthvalue``."""
    norms, F, R = _points_and_norms(points, F, R)
    r = TRIM.check("r", float(r))
    m, j = norms.shape[0], norms.shape[0] - F + 1 + r  # 1-based rank
    if m + r < F:
        return torch.zeros((), dtype=torch.float64)
    if j > m:
        return torch.tensor(R, dtype=torch.float64)
    return torch.kthvalue(norms, j).values


def safety_margin_of_points(points, F, tau, R) -> torch.Tensor:
    """Δ(S) = max(F − m, 0) + #{top-min(F, m) norms ≤ τ}, ∞ if τ ≥ R (mirrors ``ptr.safety_margin``; the same
    closed form as :func:`safety_margin`, which works on norms)."""
    norms, F, R = _points_and_norms(points, F, R)
    return safety_margin(norms, F, POSITIVE.check("tau", float(tau)), R)
