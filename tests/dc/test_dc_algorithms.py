"""DC-DPSGD's step (seed 004 Algorithm 1, L187–L208): the torch operator (fast/dc/training.py, fast/dc/published.py,
fast/dc/projection.py) against the numpy reference (reference/dc/algorithms.py) on injected noise, against a brute
force on a tiny linear model (per-sample gradients by hand), and the projection's construction (L199)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import torch

from dpspec.fast.dc import projection as fproj
from dpspec.fast.dc.published import published_sigma_eff, published_step, sound_step
from dpspec.fast.dc.training import DCDPSGD, discriminative_step, per_sample_gradients
from dpspec.reference.dc import algorithms as ref

RTOL = 1e-12  # float64 sums of ≤ 12 clipped rows of ≤ 30 entries and a (30, k) projection: n·u ≈ 1e-14


def _rel(a, b) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max()) / max(float(np.abs(b).max()), 1e-300)


def _problem(seed, B=11, D=30):
    rng = np.random.default_rng(seed)
    G = rng.normal(size=(B, D)) * rng.uniform(0.05, 4, size=(B, 1))
    if B > 3:
        G[2] = 0.0  # a zero gradient: direction 0, score 0, never clipped
    return rng, G


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("reading", ["A", "B", "C"])
@pytest.mark.parametrize("form", ["orthonormal", "averaged"])
@pytest.mark.parametrize("noise", ["single", "per_sample"])
def test_fast_step_equals_numpy_reference_on_injected_noise(seed, reading, form, noise):
    rng, G = _problem(seed)
    B, D = G.shape
    k = int(rng.integers(1, D + 1))
    V = ref.orthonormalise(ref.subweibull_matrix(D, k, 2.0, rng), form)
    z_tr = rng.standard_normal(B)
    z = rng.standard_normal((D,) if noise == "single" else (B, D))
    c1 = float(rng.uniform(0.5, 2))
    c2, s_dp, s_tr = c1 * float(rng.uniform(0.05, 1)), float(rng.uniform(0.1, 2)), float(rng.uniform(0.01, 0.3))
    tau = float(np.median([ref.trace_score(V, g) for g in G]))
    kw = dict(reading=reading, tau=tau if reading == "B" else None, sigma_tr=s_tr, form=form, noise=noise,
              batch_size=9.5)
    want = ref.sound_step(G, s_dp, c1, c2, 0.3, k, rng, V=V, trace_draw=z_tr, grad_draw=z, **kw)
    got = discriminative_step(torch.from_numpy(G), s_dp, c1, c2, k, p_tail=0.3, V=torch.from_numpy(V),
                              trace_draw=torch.from_numpy(z_tr), grad_draw=torch.from_numpy(z), **kw)
    assert (got.tail.numpy() == want["tail"]).all()
    assert 0 < got.n_tail < B  # both labels occur, so the comparison sees c1 and c2
    assert _rel(got.noisy_sum.numpy(), want["noisy_sum"]) <= RTOL
    assert _rel(got.flat_update.numpy(), want["update"]) <= RTOL


@pytest.mark.parametrize("seed", range(3))
def test_algorithm1_as_printed_is_the_top_p_step_with_per_sample_noise(seed):
    """Algorithm 1 lines 6–11 (averaged V, top-⌊pB⌋, per-sample noise, mean over B) = discriminative_step(reading
    "A", noise "per_sample", form "averaged", batch_size B)."""
    rng, G = _problem(seed)
    B, D = G.shape
    k = 7
    V = ref.orthonormalise(ref.subweibull_matrix(D, k, 2.0, rng), "averaged")
    z_tr, z = rng.standard_normal(B), rng.standard_normal((B, D))
    want = ref.algorithm1_printed(G, 0.01, 0.9, 1.0, 0.1, 0.2, k, rng, V=V, trace_draw=z_tr, grad_draw=z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the step function itself does not warn; only the optimizer does
        got = discriminative_step(torch.from_numpy(G), 0.9, 1.0, 0.1, k, reading="A", p_tail=0.2, sigma_tr=0.01,
                                  form="averaged", noise="per_sample", V=torch.from_numpy(V),
                                  trace_draw=torch.from_numpy(z_tr), grad_draw=torch.from_numpy(z))
    assert got.n_tail == math.floor(0.2 * B) == int(want["tail"].sum())
    assert _rel(got.flat_update.numpy(), want["update"]) <= RTOL


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("mode", ["sigma", "sigma_over_B"])
def test_published_step_equals_numpy_reference(seed, mode):
    rng, G = _problem(seed, B=12)
    B, D = G.shape
    pd, k = 20, 5  # the scores use the first "parameter" (20 coordinates), as the code uses the first layer
    V = ref.orthonormalise(ref.subweibull_matrix(pd, k, 1.0, rng, symmetric=False))
    z_tr, z_t, z_b = rng.standard_normal(B), rng.standard_normal(D), rng.standard_normal(D)
    want = ref.published_step(G, 0.7, 1.0, 0.1, 0.25, k, rng, score_cols=(0, pd), trace_noise=mode, V=V,
                              trace_draw=z_tr, grad_draw=(z_t, z_b), batch_size=16)
    parts = [torch.from_numpy(G[:, :pd].reshape(B, 4, 5)), torch.from_numpy(G[:, pd:])]
    got = published_step(parts, 0.7, 1.0, 0.1, 0.25, k, trace_noise=mode, V=torch.from_numpy(V),
                         trace_draw=torch.from_numpy(z_tr), grad_draw=(torch.from_numpy(z_t), torch.from_numpy(z_b)),
                         batch_size=16)
    assert got.n_tail == want["n_tail"] == math.floor(0.25 * B)
    assert [tuple(u.shape) for u in got.update] == [(4, 5), (D - pd,)]
    assert _rel(got.flat_update.numpy(), want["update"]) <= RTOL


def test_published_step_by_hand_on_a_tiny_batch():
    """Four gradients in R², k = 1, V = e_1, no trace noise: scores |g_i1|²/‖G‖_F²; the sorted score at ⌊0.5·4⌋ = 2
    is the threshold; tail = strictly above it, plus the code's quirk: a score exactly 0 counts as tail (notes
    §4.3; ``eigen_g == 0``)."""
    G = torch.tensor([[3.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-2.0, 0.5]], dtype=torch.float64)
    z_tr = torch.zeros(4, dtype=torch.float64)
    z_t, z_b = torch.tensor([1.0, -1.0], dtype=torch.float64), torch.tensor([0.5, 2.0], dtype=torch.float64)
    V = torch.tensor([[1.0], [0.0]], dtype=torch.float64)
    r = published_step(G, 2.0, 1.0, 0.5, 0.5, 1, V=V, trace_draw=z_tr, grad_draw=(z_t, z_b))
    fro2 = 9 + 1 + 2 + 4.25
    want = torch.tensor([9.0, 0.0, 1.0, 4.0], dtype=torch.float64) / fro2
    assert torch.allclose(r.clean_scores, want, rtol=0, atol=1e-15)
    assert r.threshold == pytest.approx(1 / fro2, rel=1e-15)
    assert r.tail.tolist() == [True, True, False, True] and r.n_tail == 3  # sample 1: score 0, the quirk
    clipped = [G[0] / 3.0, G[1], G[2] * 0.5 / math.sqrt(2), G[3] / math.sqrt(4.25)]
    mean = sum(clipped) / 4
    noise = 0.75 * (2.0 * 1.0 / 4) * z_t + 0.25 * (2.0 * 0.5 / 4) * z_b
    assert torch.allclose(r.flat_update, mean + noise, rtol=1e-14, atol=0)
    # the effective multiplier of this noise relative to c1 (notes §3.2, E6): σ√(w² + ((1 − w)c2/c1)²)
    assert published_sigma_eff(2.0, 1.0, 0.5, 2, 4) == pytest.approx(2.0 * math.hypot(0.5, 0.25), rel=1e-15)
    assert published_sigma_eff(1.0, 1.0, 0.1, 12.8, 128) == pytest.approx(0.1345, abs=5e-5)  # notes §3.2: 0.1345σ


def test_optimizer_step_equals_brute_force_on_a_linear_model():
    """DCDPSGD.step on Linear(3, 2) with ½‖Wx + b − y‖²: per-sample gradients by hand (r xᵀ, r), the public V and
    normals replayed from the same generator, the update w − lr·(Σ clipped + σc1 z)/b computed in numpy."""
    rng = np.random.default_rng(7)
    B, lr, c1, c2, s_dp, k, expected = 9, 0.3, 1.0, 0.2, 0.8, 3, 8.0
    W, b = rng.normal(size=(2, 3)), rng.normal(size=2)
    xs, ys = rng.normal(size=(B, 3)) * rng.uniform(0.2, 3, size=(B, 1)), rng.normal(size=(B, 2))
    model = torch.nn.Linear(3, 2).double()
    with torch.no_grad():
        model.weight.copy_(torch.from_numpy(W)), model.bias.copy_(torch.from_numpy(b))
    opt = DCDPSGD(model.parameters(), lr=lr, c1=c1, c2=c2, sigma_dp=s_dp, sample_rate=0.1, expected_batch_size=expected,
                  k=k, tau=0.4, generator=torch.Generator().manual_seed(11))
    loss = lambda out, y: 0.5 * ((out - y) ** 2).sum(-1).mean()  # noqa: E731
    result = opt.step(per_sample_gradients(model, loss, torch.from_numpy(xs), torch.from_numpy(ys)))
    # by hand
    rows = []
    for x, y in zip(xs, ys):
        r = W @ x + b - y
        rows.append(np.concatenate([np.outer(r, x).ravel(), r]))
    g = torch.Generator().manual_seed(11)
    V = fproj.projection(8, k, 2.0, g).numpy()
    z = torch.randn(8, generator=g, dtype=torch.float64).numpy()
    total = np.zeros(8)
    labels = []
    for row in rows:
        u = row / np.linalg.norm(row)
        tail = float(np.sum((V.T @ u) ** 2)) > 0.4
        labels.append(tail)
        c = c1 if tail else c2
        total += row * min(1.0, c / np.linalg.norm(row))
    w1 = np.concatenate([W.ravel(), b]) - lr * (total + s_dp * c1 * z) / expected
    got = np.concatenate([model.weight.detach().numpy().ravel(), model.bias.detach().numpy()])
    assert result.tail.tolist() == labels and 0 < sum(labels) < B
    assert _rel(got, w1) <= RTOL
    assert opt.steps == 1 and opt.history[0][:2] == (B, sum(labels))


# ---------------------------------------------------------------------------------------------------------------
# the projection (Algorithm 1 line 6, L199)

@pytest.mark.parametrize("form", ["orthonormal", "averaged"])
def test_projection_is_orthonormal_or_averaged_and_numpy_agrees(form):
    g = torch.Generator().manual_seed(3)
    W = fproj.subweibull_matrix(50, 10, 2.0, g)
    V = fproj.orthonormalise(W, form)
    scale = 1.0 / 10 if form == "averaged" else 1.0
    assert torch.allclose(V.T @ V, scale * torch.eye(10, dtype=torch.float64), atol=1e-13, rtol=0)
    assert _rel(V.numpy(), ref.orthonormalise(W.numpy(), form)) <= 1e-12
    dirs = fproj.directions(torch.randn(200, 50, generator=g, dtype=torch.float64))
    s = fproj.trace_scores(V, dirs)
    assert bool((s >= 0).all()) and bool((s <= scale * (1 + 1e-12)).all())
    # the span of W is the span of V: W = V (Vᵀ W)/scale
    assert torch.allclose(V @ (V.T @ W) / scale, W, atol=1e-10 * float(W.abs().max()), rtol=0)


def test_subweibull_entries_have_the_weibull_tail():
    """P(|W| > t) = exp(−(t/λ)^{1/θ}) for the entries s·λ·E^θ (Def A.1(1), L563): 200 000 entries (seed 5), at
    three t; each count within 5 binomial standard deviations (two-sided level ≈ 6e-7 each)."""
    theta, lam = 2.0, 0.5
    W = fproj.subweibull_matrix(2000, 100, theta, torch.Generator().manual_seed(5), scale=lam).abs().reshape(-1)
    n = W.numel()
    for t in (0.1, 1.0, 5.0):
        p = math.exp(-((t / lam) ** (1 / theta)))
        hits = int((W > t).sum())
        assert abs(hits - n * p) <= 5 * math.sqrt(n * p * (1 - p)), (t, hits, n * p)
    signs = fproj.subweibull_matrix(400, 50, theta, torch.Generator().manual_seed(6)).sign()
    assert abs(float(signs.mean())) <= 5 / math.sqrt(signs.numel())  # fair signs (5 sd)
    assert bool((fproj.subweibull_matrix(30, 4, 1.0, torch.Generator().manual_seed(1), symmetric=False) > 0).all())


def test_sound_step_defaults_are_reading_B_with_no_trace_noise():
    g = torch.Generator().manual_seed(2)
    G = torch.randn(40, 60, generator=g, dtype=torch.float64)
    a = sound_step(G, 1.0, 1.0, 0.1, 0.1, 20, torch.Generator().manual_seed(9))
    b = discriminative_step(G, 1.0, 1.0, 0.1, 20, torch.Generator().manual_seed(9), reading="B", p_tail=0.1)
    assert torch.equal(a.flat_update, b.flat_update) and torch.equal(a.tail, b.tail)
    assert torch.equal(a.scores, a.clean_scores)  # σ_tr = 0 by default: reading (B) needs no trace noise
