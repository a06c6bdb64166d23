"""fast/bc/training.py: Algorithm 1 of seed 002 (samplers, individual / batch / mixed clipping, the optimizer wrapper)
against brute force on a tiny linear model, the samplers' laws, the errors, and the example's quick mode."""
import importlib.util
import itertools
import math
import pathlib

import pytest
import torch
from scipy import stats

from dpspec.reference.errors import DomainError, ParameterError
from dpspec.fast.bc.training import (BATCH_FITS, ROUNDS_INTEGER, BatchClippingSGD, BatchSampler, MeanGradient,
                                     SequentialSGD, clip_and_sum, noisy_round, shuffling_epoch, subsampling_round)

D_IN, D_OUT = 3, 2
CHI2_LEVEL = 1e-3  # each chi-square law test: fixed seed, rejects a correct sampler with probability 0.1%


def _linear(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Linear(D_IN, D_OUT).double()


def _mse(out, y):
    """Mean over samples of ½‖out − y‖² (the MEAN loss the subset optimisers expect)."""
    return 0.5 * ((out - y) ** 2).sum(-1).mean()


def _data(n, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, D_IN, generator=g, dtype=torch.float64), torch.randn(n, D_OUT, generator=g,
                                                                             dtype=torch.float64)


def _sample_grad(W, b, x, y):
    """∇ of ½‖Wx + b − y‖² by hand: (r xᵀ, r) with r = Wx + b − y."""
    r = W @ x + b - y
    return torch.outer(r, x), r


def _brute_round(W, b, xs, ys, clip, sigma, noise_seed, A="mean", inner_lr=0.0):
    """Algorithm 1 lines 19–23 by loops: a_h per subset, clip by the global norm, sum, + N(0, (2Cσ)²), ÷ m.
    A = "mean": eq (6), gradients at w averaged; "sgd": eq (2), s SGD steps, visited gradients summed;
    "sgd_mean": the same averaged."""
    m, s = xs.shape[:2]
    U_W, U_b, norms = torch.zeros_like(W), torch.zeros_like(b), []
    for h in range(m):
        aW, ab, Wj, bj = torch.zeros_like(W), torch.zeros_like(b), W.clone(), b.clone()
        for j in range(s):
            moving = A.startswith("sgd")
            gW, gb = _sample_grad(Wj if moving else W, bj if moving else b, xs[h, j], ys[h, j])
            aW, ab = aW + gW, ab + gb
            Wj, bj = Wj - inner_lr * gW, bj - inner_lr * gb
        if A in ("mean", "sgd_mean"):
            aW, ab = aW / s, ab / s
        norm = math.sqrt(float((aW ** 2).sum() + (ab ** 2).sum()))
        norms.append(norm)
        scale = 1 / max(1.0, norm / clip)
        U_W, U_b = U_W + scale * aW, U_b + scale * ab
    g = torch.Generator().manual_seed(noise_seed)  # the operator draws weight's noise, then bias's
    if sigma > 0:
        U_W = U_W + 2 * clip * sigma * torch.randn(W.shape, generator=g, dtype=W.dtype)
        U_b = U_b + 2 * clip * sigma * torch.randn(b.shape, generator=g, dtype=b.dtype)
    return U_W / m, U_b / m, torch.tensor(norms, dtype=torch.float64)


@pytest.mark.parametrize("m,s", [(4, 1), (1, 4), (3, 2), (2, 3)], ids=["IC", "BC", "MC32", "MC23"])
@pytest.mark.parametrize("clip", [0.3, 100.0])
@pytest.mark.parametrize("sigma", [0.0, 0.7])
def test_round_matches_brute_force(m, s, clip, sigma):
    model = _linear()
    W0, b0 = model.weight.detach().clone(), model.bias.detach().clone()
    x, y = _data(m * s)
    xs, ys = x.view(m, s, D_IN), y.view(m, s, D_OUT)
    lr = 0.2
    opt = BatchClippingSGD(model, _mse, lr=lr, clip=clip, sigma=sigma, m=m, s=s,
                           generator=torch.Generator().manual_seed(11))
    res = opt.step(xs, ys)
    uW, ub, norms = _brute_round(W0, b0, xs, ys, clip, sigma, noise_seed=11)
    torch.testing.assert_close(res.norms, norms, rtol=1e-12, atol=0)
    torch.testing.assert_close(res.update["weight"], uW, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(res.update["bias"], ub, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(model.weight.detach(), W0 - lr * uW, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(model.bias.detach(), b0 - lr * ub, rtol=1e-12, atol=1e-14)
    assert torch.equal(res.clipped, norms > clip)
    if clip == 0.3:  # these data give norms above 0.3: the clipping branch is exercised
        assert res.clipped.any()
    else:
        assert not res.clipped.any()
    assert opt.clipped_fraction == pytest.approx(float((norms > clip).double().mean()))


@pytest.mark.parametrize("reduction", ["sum", "mean"])
@pytest.mark.parametrize("m,s", [(1, 4), (2, 3)])
def test_sequential_sgd_matches_brute_force(reduction, m, s):
    """Eq (2): s SGD steps from w inside each subset; the sum (printed) or mean of the visited gradients."""
    model = _linear(3)
    W0, b0 = model.weight.detach().clone(), model.bias.detach().clone()
    x, y = _data(m * s, seed=4)
    xs, ys = x.view(m, s, D_IN), y.view(m, s, D_OUT)
    inner = 0.3
    opt = BatchClippingSGD(model, lr=0.1, clip=0.5, sigma=0.4, m=m, s=s,
                           subset_optimizer=SequentialSGD(_mse, inner, reduction=reduction),
                           generator=torch.Generator().manual_seed(5))
    res = opt.step(xs, ys)
    A = "sgd" if reduction == "sum" else "sgd_mean"
    uW, ub, norms = _brute_round(W0, b0, xs, ys, 0.5, 0.4, noise_seed=5, A=A, inner_lr=inner)
    torch.testing.assert_close(res.norms, norms, rtol=1e-12, atol=0)
    torch.testing.assert_close(res.update["weight"], uW, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(res.update["bias"], ub, rtol=1e-12, atol=1e-14)


def test_custom_subset_optimiser_and_torch_optimizer():
    """A plain callable A (a list in parameter order, called once per subset) and a server-side torch optimizer give
    the same round as the built-in MeanGradient with the built-in descent."""
    m, s, lr = 3, 2, 0.25
    x, y = _data(m * s, seed=7)
    xs, ys = x.view(m, s, D_IN), y.view(m, s, D_OUT)
    calls = []

    def A(model, params, xh, yh):
        calls.append(xh.shape)
        W, b = params["weight"], params["bias"]
        grads = [_sample_grad(W, b, xi, yi) for xi, yi in zip(xh, yh)]
        return [sum(g[0] for g in grads) / len(grads), sum(g[1] for g in grads) / len(grads)]

    ref = _linear()
    BatchClippingSGD(ref, _mse, lr=lr, clip=0.4, sigma=0.5, m=m, s=s,
                     generator=torch.Generator().manual_seed(2)).step(xs, ys)
    model = _linear()
    opt = BatchClippingSGD(model, lr=lr, clip=0.4, sigma=0.5, m=m, s=s, subset_optimizer=A,
                           optimizer=torch.optim.SGD(model.parameters(), lr=lr),
                           generator=torch.Generator().manual_seed(2))
    opt.step(xs, ys)
    assert calls == [torch.Size([s, D_IN])] * m
    torch.testing.assert_close(model.weight, ref.weight, rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(model.bias, ref.bias, rtol=1e-12, atol=1e-14)


def test_batch_clipping_backward_equals_vmap_path():
    """m = 1 uses one ordinary backward; it equals the per-subset torch.func gradient (and works on an MLP)."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 3)).double()
    x = torch.randn(1, 5, 4, dtype=torch.float64)
    y = torch.randint(0, 3, (1, 5))
    A = MeanGradient(torch.nn.functional.cross_entropy)
    params = {k: p.detach() for k, p in model.named_parameters()}
    fast = A.all_subsets(model, params, x, y)
    one = A(model, params, x[0], y[0])
    model.zero_grad()
    torch.nn.functional.cross_entropy(model(x[0]), y[0]).backward()
    for k, p in model.named_parameters():
        torch.testing.assert_close(fast[k][0], one[k], rtol=1e-12, atol=1e-15)
        torch.testing.assert_close(fast[k][0], p.grad, rtol=1e-12, atol=1e-15)


def test_dropout_subsets_draw_their_own_masks():
    """Random layers run under the vmap (randomness="different"): IC with dropout gives m distinct directions even
    for m identical samples, and the round still completes."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 32), torch.nn.Dropout(0.5), torch.nn.Linear(32, 2)).double()
    x = torch.randn(1, 1, 4, dtype=torch.float64).expand(6, 1, 4)
    y = torch.zeros(6, 1, dtype=torch.long)
    res = BatchClippingSGD(model, torch.nn.functional.cross_entropy, lr=0.1, clip=10.0, sigma=0.0, m=6, s=1).step(x, y)
    assert res.norms.unique().numel() > 1


def test_noise_has_std_two_c_sigma_over_m():
    """Zero directions: Ū/m is pure noise N(0, (2Cσ/m)²) per coordinate (line 22–23). Chi-square interval for the
    variance of n = 40 000 coordinates at confidence 1 − 1e-6 (fixed seed)."""
    m, C, sigma, n = 4, 0.5, 2.0, 40_000
    res = noisy_round({"w": torch.zeros(m, n, dtype=torch.float64)}, C, sigma, torch.Generator().manual_seed(3))
    ss = float((res.update["w"] ** 2).sum()) / (2 * C * sigma / m) ** 2
    lo, hi = stats.chi2.ppf([5e-7, 1 - 5e-7], n)
    assert lo < ss < hi
    assert not res.clipped.any() and torch.equal(res.norms, torch.zeros(m, dtype=torch.float64))


def test_clip_uses_global_norm_over_parameters():
    """[x]_C with ‖x‖ over all parameters together: (3, 4) split across two tensors has norm 5."""
    d = {"a": torch.tensor([[3.0], [0.3]], dtype=torch.float64), "b": torch.tensor([[4.0], [0.4]], dtype=torch.float64)}
    total, norms = clip_and_sum(d, 1.0)
    torch.testing.assert_close(norms, torch.tensor([5.0, 0.5], dtype=torch.float64))
    torch.testing.assert_close(total["a"], torch.tensor([0.6 + 0.3], dtype=torch.float64))
    torch.testing.assert_close(total["b"], torch.tensor([0.8 + 0.4], dtype=torch.float64))
    with pytest.raises(ParameterError, match="non-finite"):
        clip_and_sum({"a": torch.tensor([[math.inf], [1.0]])}, 1.0)


# ------------------------------------------------------------------------------------------------------------------
# Samplers

def test_shuffling_visits_every_sample_once_per_epoch():
    N, m, s, E = 24, 3, 2, 3
    sampler = BatchSampler("shuffling", N, m, s, epochs=E, generator=torch.Generator().manual_seed(0))
    rounds = list(sampler)
    assert len(rounds) == len(sampler) == E * N // (m * s) and sampler.rounds_per_epoch == 4
    assert all(r.shape == (m, s) for r in rounds)
    R = sampler.rounds_per_epoch
    epochs = [torch.cat([r.flatten() for r in rounds[e * R:(e + 1) * R]]) for e in range(E)]
    for ep in epochs:
        assert torch.equal(ep.sort().values, torch.arange(N))
    assert not torch.equal(epochs[0], epochs[1])  # a fresh permutation each epoch


def test_subsampling_rounds_are_distinct_subsets():
    N, m, s = 20, 2, 5
    sampler = BatchSampler("subsampling", N, m, s, epochs=2, generator=torch.Generator().manual_seed(0))
    rounds = list(sampler)
    assert len(rounds) == 2 * 2
    for r in rounds:
        assert r.shape == (m, s) and r.unique().numel() == m * s and 0 <= r.min() and r.max() < N


def _chi2_uniform(keys, outcomes):
    counts = [keys.count(o) for o in outcomes]
    assert sum(counts) == len(keys), "an outcome outside the support"
    return stats.chisquare(counts).pvalue


def test_subsampling_law_is_uniform_over_ordered_partitions():
    """SS, N = 5, m = 2, s = 1: the (S_{b,1}, S_{b,2}) pair is uniform over the 20 ordered pairs (uniform 2-subset
    and uniform partition). 20 000 rounds, chi-square at level 1e-3, fixed seed."""
    g = torch.Generator().manual_seed(1)
    keys = [tuple(subsampling_round(5, 2, 1, g).flatten().tolist()) for _ in range(20_000)]
    assert _chi2_uniform(keys, list(itertools.permutations(range(5), 2))) > CHI2_LEVEL


def test_subsampling_subset_is_uniform_over_batches():
    """SS, N = 6, m = 1, s = 3: the batch is uniform over the C(6, 3) = 20 subsets (20 000 rounds, level 1e-3)."""
    g = torch.Generator().manual_seed(2)
    keys = [tuple(sorted(subsampling_round(6, 1, 3, g).flatten().tolist())) for _ in range(20_000)]
    assert _chi2_uniform(keys, list(itertools.combinations(range(6), 3))) > CHI2_LEVEL


def test_shuffling_partition_law():
    """SH, N = 6, m = 2, s = 1 (R = 3): the first round's ordered pair is uniform over 30 pairs, and S_{1,1} as a set
    with N = 4, m = 2, s = 2 (R = 1) is uniform over the 6 2-subsets (15 000 epochs each, level 1e-3)."""
    g = torch.Generator().manual_seed(3)
    keys = [tuple(shuffling_epoch(6, 2, 1, g)[0].flatten().tolist()) for _ in range(15_000)]
    assert _chi2_uniform(keys, list(itertools.permutations(range(6), 2))) > CHI2_LEVEL
    keys = [tuple(sorted(shuffling_epoch(4, 2, 2, g)[0, 0].tolist())) for _ in range(15_000)]
    assert _chi2_uniform(keys, list(itertools.combinations(range(4), 2))) > CHI2_LEVEL


def _c2_of_run(rounds, g):
    """c² = Σ_rounds L², L = the number of a round's m subsets holding one of the g differentiating samples
    {0, …, g−1} (seed 002 D.7–D.9; notes §3.2)."""
    return sum(int((r < g).any(dim=1).sum()) ** 2 for r in rounds)


@pytest.mark.parametrize("sampling,N,m,s,g,E", [
    ("shuffling", 12, 2, 2, 3, 1), ("subsampling", 12, 2, 2, 2, 1), ("shuffling", 12, 1, 4, 3, 2),
    ("subsampling", 8, 4, 1, 2, 1)])
def test_sampler_runs_follow_q_E(sampling, N, m, s, g, E):
    """The samplers drive the accounting: c² of simulated runs follows q_E of dpspec.fast.bc.qe (seed 002 Def 4.1).
    3 000 runs, chi-square over the support (cells of expected count < 5 merged) at level 1e-3, fixed seed."""
    from dpspec.fast.bc.qe import qe_law
    law = qe_law(sampling, N, m, s, g, E)
    assert law.log_dropped == -math.inf
    support, pmf = law.support.tolist(), torch.exp(law.log_mass()).tolist()
    runs = 3_000
    gen = torch.Generator().manual_seed(4)
    c2 = [_c2_of_run(BatchSampler(sampling, N, m, s, epochs=E, generator=gen), g) for _ in range(runs)]
    assert set(c2) <= set(support)
    observed, expected, cell_o, cell_e = [], [], 0, 0.0
    for v, p in zip(support, pmf):  # merge small cells left to right
        cell_o, cell_e = cell_o + c2.count(v), cell_e + runs * p
        if cell_e >= 5:
            observed.append(cell_o), expected.append(cell_e)
            cell_o, cell_e = 0, 0.0
    if cell_e > 0:
        observed[-1], expected[-1] = observed[-1] + cell_o, expected[-1] + cell_e
    assert len(observed) >= 2
    assert stats.chisquare(observed, expected).pvalue > CHI2_LEVEL


def test_samplers_are_reproducible():
    a = list(BatchSampler("subsampling", 12, 2, 2, epochs=2, generator=torch.Generator().manual_seed(9)))
    b = list(BatchSampler("subsampling", 12, 2, 2, epochs=2, generator=torch.Generator().manual_seed(9)))
    assert all(torch.equal(x, y) for x, y in zip(a, b))


# ------------------------------------------------------------------------------------------------------------------
# Errors

def test_batch_too_large_is_refused():
    with pytest.raises(ParameterError, match=r"s·m ≤ N.*s·m = 3·4 = 12 > N = 10") as info:
        BatchSampler("shuffling", 10, 4, 3)
    assert BATCH_FITS.describe() in str(info.value)
    with pytest.raises(ParameterError, match="s·m ≤ N"):
        subsampling_round(10, 4, 3)


def test_rounds_must_be_integer():
    with pytest.raises(ParameterError, match=r"N/\(s·m\) = 10/4") as info:
        BatchSampler("subsampling", 10, 2, 2)
    assert ROUNDS_INTEGER.describe() in str(info.value)
    with pytest.raises(ParameterError, match="is an integer"):
        shuffling_epoch(10, 1, 3)
    assert subsampling_round(10, 2, 2).shape == (2, 2)  # one SS round needs only s·m ≤ N


@pytest.mark.parametrize("kwargs,name", [
    (dict(sampling="poisson"), "sampling"), (dict(N=0), "N"), (dict(m=1.5), "m"), (dict(s=0), "s"),
    (dict(epochs=0), "E"), (dict(N=float("nan")), "N")])
def test_bad_sampler_parameters(kwargs, name):
    args = dict(sampling="shuffling", N=12, m=2, s=3, epochs=1) | kwargs
    with pytest.raises(DomainError, match=f"^{name}="):
        BatchSampler(**args)


@pytest.mark.parametrize("kwargs,name", [(dict(clip=0.0), "clip"), (dict(sigma=-1.0), "sigma"),
                                         (dict(lr=float("nan")), "lr"), (dict(m=0), "m")])
def test_bad_optimizer_parameters(kwargs, name):
    args = dict(lr=0.1, clip=1.0, sigma=1.0, m=2, s=2) | kwargs
    with pytest.raises(DomainError, match=f"^{name}="):
        BatchClippingSGD(_linear(), _mse, **args)


def test_wrong_batch_shape_is_refused():
    opt = BatchClippingSGD(_linear(), _mse, lr=0.1, clip=1.0, sigma=1.0, m=2, s=3)
    x, y = _data(6)
    with pytest.raises(ParameterError, match=r"\(m, s\) = \(2, 3\)"):
        opt.step(x, y)
    with pytest.raises(ParameterError, match="loss_fn"):
        BatchClippingSGD(_linear(), lr=0.1, clip=1.0, sigma=1.0, m=2, s=3)


# ------------------------------------------------------------------------------------------------------------------
# The example

def _example():
    path = pathlib.Path(__file__).resolve().parents[2] / "examples" / "train_bc.py"
    spec = importlib.util.spec_from_file_location("train_bc_example", path)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    return example


def test_example_quick_mode_runs(capsys):
    """examples/train_bc.py's quick mode on a tiny setting: IC, BC and MC each train and report accuracy, time per
    step, peak memory (BC's, one backward, below IC's per-sample gradients) and the clipped share."""
    rows = _example().main(["--quick", "--data", "blobs", "--n-train", "64", "--batch", "8", "--mc-s", "4",
                            "--epochs", "1", "--no-accounting"])
    assert [(r["method"], r["m"], r["s"]) for r in rows] == [("IC", 8, 1), ("BC", 1, 8), ("MC", 2, 4)]
    for r in rows:
        assert 0.0 <= r["accuracy"] <= 1.0 and r["rounds"] == 8 and r["seconds_per_step"] > 0
        assert 0.0 <= r["clipped_fraction"] <= 1.0 and r["peak_memory_bytes"] > 0
    assert rows[1]["peak_memory_bytes"] < rows[0]["peak_memory_bytes"]
    out = capsys.readouterr().out
    assert all(f"\n{name} " in out for name in ("IC", "BC", "MC"))


def test_example_privacy_numbers():
    """The example's ε: A1 for g = 1 depends on the batch size ms only (q_E = Binomial(T, ms/N), notes §3.2), so IC
    and BC share it; A0 (subsampling) is the smaller, amplified number; shuffling has no A0 (notes §3.4)."""
    privacy = _example().privacy
    ic = privacy("subsampling", 64, 8, 1, 1, 2, 2.0, 1e-5)
    bc = privacy("subsampling", 64, 1, 8, 1, 2, 2.0, 1e-5)
    assert ic[0] == pytest.approx(bc[0], rel=1e-9) and math.isfinite(ic[0]) and ic[0] > 0
    assert ic[1] is not None and 0 < ic[1] < ic[0]
    sh = privacy("shuffling", 64, 8, 1, 1, 2, 2.0, 1e-5)
    assert sh[1] is None and "A0" in sh[2]
