"""One step of DC-DPSGD as the authors' public code runs it, and one privacy-sound step with the same signature
(seed 004, arXiv 2405.17529v1, Algorithm 1 L187–L208; notes shared/notes/dc-dpsgd.md §4.3 (the public code,
NoNameSha/DC-DPSGD-N @ 9eb7e30, ``process_grad_batch_with_rp`` in models/DP-CNN-based/utils.py and the noise lines
of its main.py), §4.4 (the sound variant), §3.2 (effective noise), errata E6, E20).

``published_step`` reproduces the code, NOT Algorithm 1 (E20), for privacy tests of the algorithm as published
(helper F's audit): on the per-sample gradients g_i (B rows)

* V: a (pd × k) matrix of Weibull(scale 1, concentration 1) = Exp(1) entries (no signs), orthonormalised by QR
  (θ_V = 1, not the stated 2); pd = the size of ONE parameter tensor (``score_param``, the code's first layer);
* u = g^s / ‖g^s‖_F with g^s the (B, pd) block of that parameter and ‖·‖_F the Frobenius norm of the WHOLE batch
  (not per sample), scores λ_i = ‖Vᵀ|u_i|‖² (absolute values) plus N(0, σ_tr²), σ_tr = σ (``trace_noise="sigma"``,
  the CNN code) or σ/bs (``"sigma_over_B"``, the other scripts);
* threshold = the sorted (descending) noisy scores at index ⌊pB⌋ (the code's ``int(n/10)`` at p = 0.1); tail = the
  scores strictly above it — and, a quirk of the code (it marks the tail by overwriting scores with 0 and counts
  zeros), any score exactly 0 (probability 0 with trace noise); ⌊pB⌋ ≥ B makes every sample tail (the code would
  index out of range);
* per-sample clipping on the global norm: tail to c1 (``s_clip``), body to c2 (``clip``); the MEAN over the batch;
* noise added once to the mean: (n_tail/bs)·N(0, (σc1/bs)²) + (1 − n_tail/bs)·N(0, (σc2/bs)²), two independent
  draws, bs the loader's batch size (``batch_size``, default the number of rows). Effective multiplier relative to
  Δ = c1: σ·√((n_tail/bs)² + ((1 − n_tail/bs)c2/c1)²) = 0.1345σ at p = r = 0.1 (notes §3.2, E6): under-noised.

``sound_step`` is reading (B) of notes §3.4/§4.4: per-sample directions, a fresh public orthonormal sub-Weibull V
(θ_V = 2), a FIXED data-independent threshold τ (each label depends only on its own sample and its own trace
noise, so Δ_gp = c1 and the trace noise has no privacy role: σ_tr = 0 is sound), clipping c1/c2, ONE noise vector
N(0, σ²c1² I) on the clipped SUM. The released quantity is ``noisy_sum``; ``update`` = noisy_sum / batch_size
(pass the expected batch size q·n: dividing by the realised count is not the released sum's post-processing).
Privacy: PoissonSampled(q, Gaussian(σ)) per step under Poisson batches (dpspec.fast.dc.training accounts it).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.dc import spec
from dpspec.reference.errors import ParameterError

from .projection import DTYPE, check_k, orthonormalise, subweibull_matrix, trace_scores
from .training import Rows, StepResult, _label_clips, check_clips, check_sigma, discriminative_step, tail_count


def published_step(per_sample_grads, sigma: float, c1: float, c2: float, p_tail: float = 0.1, k: int = 200,
                   generator: torch.Generator | None = None, *, trace_noise: str = "sigma",
                   batch_size: int | None = None, score_param=0, weibull_scale: float = 1.0, theta_v: float = 1.0,
                   V: torch.Tensor | None = None, trace_draw: torch.Tensor | None = None,
                   grad_draw: tuple[torch.Tensor, torch.Tensor] | None = None) -> StepResult:
    """One step of the authors' public code (notes §4.3; module docstring), seed 004 Algorithm 1 as implemented
    rather than as printed (E6, E20). ``per_sample_grads``: a (B, D) tensor, or a list/tuple/dict of (B, *shape)
    tensors (one per parameter; ``score_param`` picks the one the scores use — index or key; None = all).
    ``sigma`` is the code's ``noise_multiplier`` (calibrated for ε/2 in the paper's recipe), c1 = ``s_clip`` (tail),
    c2 = ``clip`` (body), p_tail the tail fraction, k the projection dimension (k ≤ pd).

    Randomness, in this order from ``generator`` unless injected (for the numpy reference
    dpspec.reference.dc.algorithms.published_step): the Weibull matrix (``V`` = an already orthonormal (pd, k)
    matrix replaces it), the B trace-noise normals (``trace_draw``), the two (D,) gradient-noise normals
    (``grad_draw`` = (tail, body)). Returns a StepResult: ``update`` = the noisy mean (the code's ``p.grad``), in the
    input's structure; ``noisy_sum`` = B·update."""
    rows = Rows(per_sample_grads)
    sigma = check_sigma("sigma", sigma)
    c1, c2 = check_clips(c1, c2)
    p_tail = float(spec.FRACTION.check("p_tail", p_tail))
    trace_noise = spec.PUBLISHED_TRACE_NOISE.check("trace_noise", trace_noise)
    B, D = rows.flat.shape
    bs = B if batch_size is None else spec.COUNT.check("batch_size", batch_size)
    block = rows.score_block(score_param)
    k, _ = check_k(k, block.shape[1])
    if B == 0:
        raise ParameterError("the public code's step needs a non-empty batch (it takes the batch mean)")
    if V is None:
        V = orthonormalise(subweibull_matrix(block.shape[1], k, theta_v, generator, scale=weibull_scale,
                                             symmetric=False, device=block.device))
    V = _checked_V(V, block.shape[1], k)
    fro = torch.linalg.vector_norm(block)
    u = block / fro if fro > 0 else torch.zeros_like(block)
    clean = trace_scores(V, u.abs())
    std_tr = sigma if trace_noise == "sigma" else sigma / bs
    z_tr = _draw(trace_draw, (B,), generator, block.device, "trace_draw")
    scores = clean + std_tr * z_tr
    m = tail_count(p_tail, B)
    if m >= B:
        tail, threshold = torch.ones(B, dtype=torch.bool, device=block.device), -math.inf
    else:
        threshold = float(torch.sort(scores, descending=True).values[m])
        tail = (scores > threshold) | (scores == 0)
    n_tail = int(tail.sum())
    norms = rows.norms()
    factors = rows.factors(norms, _label_clips(tail, c1, c2))
    mean = (factors.unsqueeze(1) * rows.flat).sum(0) / B
    if grad_draw is None:
        z_tail = _draw(None, (D,), generator, block.device, "grad_draw")
        z_body = _draw(None, (D,), generator, block.device, "grad_draw")
    else:
        z_tail, z_body = (_draw(z, (D,), None, block.device, "grad_draw") for z in grad_draw)
    w = n_tail / bs
    noise = w * (sigma * c1 / bs) * z_tail + (1.0 - w) * (sigma * c2 / bs) * z_body
    flat_update = mean + noise
    return StepResult(rows.rebuild(flat_update), flat_update * B, flat_update, tail, scores, clean, norms, factors,
                      n_tail, threshold, V)


def published_sigma_eff(sigma: float, c1: float, c2: float, n_tail: int, batch_size: int) -> float:
    """The effective noise multiplier of the public code's noise relative to Δ = c1/bs on the mean (notes §3.2):
    σ·√((n_tail/bs)² + ((1 − n_tail/bs)·c2/c1)²); 0.1345σ at n_tail/bs = 0.1, c2/c1 = 0.1 (E6)."""
    sigma = check_sigma("sigma", sigma)
    c1, c2 = check_clips(c1, c2)
    w = n_tail / spec.COUNT.check("batch_size", batch_size)
    return sigma * math.hypot(w, (1.0 - w) * c2 / c1)


def sound_step(per_sample_grads, sigma: float, c1: float, c2: float, p_tail: float = 0.1, k: int = 200,
               generator: torch.Generator | None = None, *, tau: float | None = None, sigma_tr: float = 0.0,
               theta_v: float = 2.0, form: str = "orthonormal", batch_size: float | None = None, score_param=None,
               weibull_scale: float = 1.0, V: torch.Tensor | None = None, trace_draw: torch.Tensor | None = None,
               grad_draw: torch.Tensor | None = None) -> StepResult:
    """Reading (B) of notes §3.4 / the sound variant of §4.4, with ``published_step``'s positional signature: tail iff
    ‖Vᵀĝ_i‖² + σ_tr·z_i > τ (τ fixed; default ``default_tau(p_tail, pd, k, σ_tr, form)``: the (1 − p) quantile of a
    uniformly random direction's noisy score, data-independent), clipping c1 (tail) / c2 (body), one N(0, σ²c1² I)
    on the clipped sum; ``update`` = noisy_sum / batch_size. Per step it is the Poisson-subsampled Gaussian with
    multiplier σ (Δ = c1) when the batch is a Poisson sample. Injection as in published_step (``grad_draw`` one
    (D,) normal vector). seed 004 Algorithm 1 L187–L208 with lines 9–11 replaced as in notes §4.4."""
    return discriminative_step(per_sample_grads, sigma, c1, c2, k, generator, reading="B", p_tail=p_tail, tau=tau,
                               sigma_tr=sigma_tr, theta_v=theta_v, form=form, noise="single", batch_size=batch_size,
                               score_param=score_param, weibull_scale=weibull_scale, V=V, trace_draw=trace_draw,
                               grad_draw=grad_draw)


def _checked_V(V: torch.Tensor, d: int, k: int) -> torch.Tensor:
    V = torch.as_tensor(V, dtype=DTYPE)
    if tuple(V.shape) != (d, k):
        raise ParameterError(f"V must have shape (d, k) = ({d}, {k}); got {tuple(V.shape)}")
    return V


def _draw(given, shape, generator, device, name):
    if given is None:
        return torch.randn(shape, generator=generator, dtype=DTYPE, device=device)
    z = torch.as_tensor(given, dtype=DTYPE, device=device)
    if tuple(z.shape) != tuple(shape):
        raise ParameterError(f"{name} must have shape {tuple(shape)}; got {tuple(z.shape)}")
    return z
