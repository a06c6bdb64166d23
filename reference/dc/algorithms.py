"""DC-DPSGD's step written out plainly in numpy (seed 004, arXiv 2405.17529v1, Algorithm 1 L187–L208; notes
shared/notes/dc-dpsgd.md §4.1 (as printed), §4.3 (the authors' public code), §4.4 and §3.4 (the sound variants)).

The readable reference that the torch operator (dpspec.fast.dc.training, dpspec.fast.dc.published) is tested
against: per-sample loops, a seeded ``numpy.random.Generator`` for the randomness, and every random draw injectable
(``V``, ``trace_draw``, ``grad_draw``) so that a torch step and this one can be fed the same noise and compared to
rounding (tests/dc/test_dc_algorithms.py, op.dc_dpsgd). No statement is registered here: the privacy of these steps is
helper B's (dc.reading_a/b/c, dc.sigma_eff), their accounting the base subsampled-Gaussian accountant.

Three steps on the per-sample gradients g_1 … g_B (rows of a (B, D) array):

* ``algorithm1_printed`` — Algorithm 1 lines 6–11 as printed: V from sub-Weibull(θ_V) entries, orthonormalised,
  with V Vᵀ = (1/k) Σ v_i v_iᵀ (``form="averaged"``, line 6; or Theorem 5.2's Vᵀ V = I_k, ``"orthonormal"``),
  λ_i = ‖Vᵀ ĝ_i‖², λ̃_i = λ_i + N(0, σ_tr²), tail = the top ⌊pB⌋ of λ̃ (the text's "top-pB"; rounding unspecified,
  we take the public code's floor), per-sample noise N(0, c_i²σ_dp² I) on each clipped gradient, mean over B.
* ``sound_step`` — one of the readings of notes §3.4 with ONE noise vector N(0, σ_dp²c1² I) on the clipped sum:
  "B" tail iff λ̃_i > τ (τ fixed); "A"/"C" the top ⌊pB⌋ (their accounting differs, not the step); divided by
  ``batch_size`` (the expected batch size q·n).
* ``published_step`` — the public code (notes §4.3): Exp(1) entries (Weibull concentration 1) then QR, batch
  Frobenius normalisation, absolute values, trace noise σ (or σ/bs), threshold at sorted index ⌊pB⌋ (tail strictly
  above it, or a score exactly 0: the code's quirk), clipping c1/c2, batch mean, then
  (n_tail/bs)·N(0, (σc1/bs)²) + (1 − n_tail/bs)·N(0, (σc2/bs)²).

The projection's entries: s·λ·E^θ with E ~ Exp(1) and a fair sign s (symmetric) — Weibull(λ, concentration 1/θ),
sub-Weibull(θ) by Def A.1(1) (L563) —, then the thin QR with diag(R) > 0. A zero gradient's direction is 0.
"""
from __future__ import annotations

import math

import numpy as np

from .spec import C2_AT_MOST_C1, COUNT, FRACTION, K_AT_MOST_D, POSITIVE, PROJECTION_FORM, READING, STEP_NOISE, \
    THETA
from ..errors import ConditionError, ParameterError

TAIL_SLACK = 1e-9  # ⌊pB⌋ computed as ⌊pB + 1e-9⌋ (the binary rounding of p ignored), as the fast path


# ---------------------------------------------------------------------------------------------------------------
# checks and the projection (Algorithm 1 line 6, L199)

def _checks(c1, c2, p_tail, sigma_dp=0.0, sigma_tr=0.0):
    c1, c2 = float(POSITIVE.check("c1", c1)), float(POSITIVE.check("c2", c2))
    if c2 > c1:
        raise ConditionError("dc.sigma_eff", [C2_AT_MOST_C1.describe()])  # one class, one wording (dc.sigma_eff)
    for name, s in (("sigma_dp", sigma_dp), ("sigma_tr", sigma_tr)):
        if not (isinstance(s, (int, float)) and math.isfinite(s) and s >= 0):
            raise ParameterError(f"{name} = {s!r} must be a finite real ≥ 0")
    return c1, c2, float(FRACTION.check("p_tail", p_tail))


def check_k(k, d):
    """k, d integers ≥ 1 and k ≤ d (K_AT_MOST_D), one error each naming the value."""
    k, d = COUNT.check("k", k), COUNT.check("d", d)
    if k > d:
        raise ParameterError(f"k = {k} > d = {d}: the projection needs {K_AT_MOST_D.describe()}")
    return k, d


def subweibull_matrix(d, k, theta, rng: np.random.Generator, scale=1.0, symmetric=True) -> np.ndarray:
    """(d, k) iid entries s·λ·E^θ, E ~ Exp(1), s = ±1 fair (or +1): Weibull(λ, 1/θ), sub-Weibull(θ) (Def A.1(1))."""
    theta = float(THETA.check("theta", theta))
    k, d = check_k(k, d)
    w = scale * rng.exponential(size=(d, k)) ** theta
    return w * rng.choice([-1.0, 1.0], size=(d, k)) if symmetric else w


def orthonormalise(w: np.ndarray, form="orthonormal") -> np.ndarray:
    """Q of the thin QR of w with diag(R) > 0; divided by √k for the printed averaged form (line 6)."""
    form = PROJECTION_FORM.check("form", form)
    q, r = np.linalg.qr(w, mode="reduced")
    q = q * np.sign(np.diag(r))
    return q / math.sqrt(q.shape[1]) if form == "averaged" else q


def trace_score(V: np.ndarray, g: np.ndarray) -> float:
    """λ = tr(Vᵀ ĝ ĝᵀ V) for one gradient g, ĝ = g/‖g‖ (lines 7–8, L200–L201); 0 for g = 0."""
    norm = math.sqrt(float(g @ g))
    if norm == 0:
        return 0.0
    u = g / norm
    return float(np.trace(V.T @ np.outer(u, u) @ V))


def clip(g: np.ndarray, c: float) -> np.ndarray:
    """g / max(1, ‖g‖/c) (line 10)."""
    return g / max(1.0, math.sqrt(float(g @ g)) / c)


def top_count(p_tail, B) -> int:
    """⌊pB⌋ (line 9's "top-pB")."""
    return min(B, int(math.floor(p_tail * B + TAIL_SLACK)))


def _top_labels(scores: np.ndarray, m: int) -> np.ndarray:
    tail = np.zeros(len(scores), dtype=bool)
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))  # descending, ties by index
    tail[order[:m]] = True
    return tail


def _projection(V, pd, k, theta_v, rng, form, scale=1.0, symmetric=True):
    k, pd = check_k(k, pd)
    if V is None:
        return orthonormalise(subweibull_matrix(pd, k, theta_v, rng, scale, symmetric), form)
    V = np.asarray(V, dtype=float)
    if V.shape != (pd, k):
        raise ParameterError(f"V must have shape ({pd}, {k}); got {V.shape}")
    return V


def _draw(given, shape, rng):
    return rng.standard_normal(shape) if given is None else np.asarray(given, dtype=float).reshape(shape)


# ---------------------------------------------------------------------------------------------------------------
# the three steps

def algorithm1_printed(grads, sigma_tr, sigma_dp, c1, c2, p_tail, k, rng: np.random.Generator, *,
                       form="averaged", theta_v=2.0, V=None, trace_draw=None, grad_draw=None) -> dict:
    """Algorithm 1 lines 6–11 (L199–L205) as printed, one step on the rows of ``grads`` (B, D): returns
    {"update": g̃ (D,), "tail": labels, "scores": λ̃, "V": V}. Per-sample noise (line 10) — NOT covered by any
    accountant under Poisson batches (notes §3.2). Draw order: V, B trace normals, (B, D) gradient normals."""
    c1, c2, p_tail = _checks(c1, c2, p_tail, sigma_dp, sigma_tr)
    grads = np.asarray(grads, dtype=float)
    B, D = grads.shape
    V = _projection(V, D, k, theta_v, rng, form)
    z_tr, z = _draw(trace_draw, (B,), rng), _draw(grad_draw, (B, D), rng)
    scores = np.array([trace_score(V, grads[i]) + sigma_tr * z_tr[i] for i in range(B)])
    tail = _top_labels(scores, top_count(p_tail, B))
    total = np.zeros(D)
    for i in range(B):
        c = c1 if tail[i] else c2
        total += clip(grads[i], c) + sigma_dp * c * z[i]
    return {"update": total / B, "tail": tail, "scores": scores, "V": V}


def sound_step(grads, sigma_dp, c1, c2, p_tail, k, rng: np.random.Generator, *, reading="B", tau=None,
               sigma_tr=0.0, form="orthonormal", theta_v=2.0, noise="single", batch_size=None, V=None,
               trace_draw=None, grad_draw=None) -> dict:
    """One step of a sound reading (notes §3.4 A/B/C, §4.4): labels by the fixed threshold τ (B; required here) or
    the top ⌊pB⌋ (A, C), clipping c1/c2, one N(0, σ_dp²c1² I) on the clipped sum ("single"; "per_sample" is line
    10's form, for comparison), divided by ``batch_size`` (default B). Returns {"noisy_sum", "update", "tail",
    "scores", "V"}. Draw order: V, B trace normals (if σ_tr > 0), gradient normals (if σ_dp > 0)."""
    c1, c2, p_tail = _checks(c1, c2, p_tail, sigma_dp, sigma_tr)
    reading, noise = READING.check("reading", reading), STEP_NOISE.check("noise", noise)
    grads = np.asarray(grads, dtype=float)
    B, D = grads.shape
    V = _projection(V, D, k, theta_v, rng, form)
    z_tr = _draw(trace_draw, (B,), rng) if sigma_tr > 0 else np.zeros(B)
    scores = np.array([trace_score(V, grads[i]) + sigma_tr * z_tr[i] for i in range(B)])
    if reading == "B":
        if tau is None:
            raise ParameterError("reading (B) needs the fixed threshold tau")
        tail = scores > float(tau)
    else:
        tail = _top_labels(scores, top_count(p_tail, B))
    total = np.zeros(D)
    for i in range(B):
        total += clip(grads[i], c1 if tail[i] else c2)
    if sigma_dp > 0:
        if noise == "single":
            total += sigma_dp * c1 * _draw(grad_draw, (D,), rng)
        else:
            z = _draw(grad_draw, (B, D), rng)
            for i in range(B):
                total += sigma_dp * (c1 if tail[i] else c2) * z[i]
    if batch_size is None and B == 0:
        raise ParameterError("an empty batch has no mean: pass batch_size (the expected batch size q·n)")
    bs = B if batch_size is None else float(POSITIVE.check("batch_size", batch_size))
    return {"noisy_sum": total, "update": total / bs, "tail": tail, "scores": scores, "V": V}


def published_step(grads, sigma, c1, c2, p_tail, k, rng: np.random.Generator, *, score_cols=None,
                   trace_noise="sigma", batch_size=None, weibull_scale=1.0, V=None, trace_draw=None,
                   grad_draw=None) -> dict:
    """The public code's step (notes §4.3; module docstring) on the rows of ``grads`` (B, D); ``score_cols`` = the
    (start, stop) columns of the one parameter the scores use (default all). Returns {"update" (the noisy mean),
    "tail", "scores", "n_tail", "V"}. Draw order: the (pd, k) Exp(1) matrix, B trace normals, the tail then the body
    (D,) gradient normals."""
    c1, c2, p_tail = _checks(c1, c2, p_tail, sigma)
    grads = np.asarray(grads, dtype=float)
    B, D = grads.shape
    if B == 0:
        raise ParameterError("the public code's step needs a non-empty batch (it takes the batch mean)")
    a, b = (0, D) if score_cols is None else score_cols
    block = grads[:, a:b]
    V = _projection(V, block.shape[1], k, 1.0, rng, "orthonormal", weibull_scale, symmetric=False)
    bs = B if batch_size is None else int(batch_size)
    fro = math.sqrt(float((block ** 2).sum()))
    u = np.abs(block / fro) if fro > 0 else np.zeros_like(block)
    std_tr = sigma if trace_noise == "sigma" else sigma / bs
    z_tr = _draw(trace_draw, (B,), rng)
    scores = np.array([float(np.trace(V.T @ np.outer(u[i], u[i]) @ V)) + std_tr * z_tr[i] for i in range(B)])
    m = top_count(p_tail, B)
    if m >= B:
        tail = np.ones(B, dtype=bool)
    else:
        threshold = sorted(scores, reverse=True)[m]
        tail = (scores > threshold) | (scores == 0)
    n_tail = int(tail.sum())
    mean = np.zeros(D)
    for i in range(B):
        mean += clip(grads[i], c1 if tail[i] else c2) / B
    if grad_draw is None:
        z_tail, z_body = rng.standard_normal(D), rng.standard_normal(D)
    else:
        z_tail, z_body = (np.asarray(z, dtype=float) for z in grad_draw)
    w = n_tail / bs
    noise = w * (sigma * c1 / bs) * z_tail + (1 - w) * (sigma * c2 / bs) * z_body
    return {"update": mean + noise, "tail": tail, "scores": scores, "n_tail": n_tail, "V": V}
