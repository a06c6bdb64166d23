"""fast/ptr/training.py: Algorithm 2 (TSGD+PTR) and its baselines: per-sample gradients (torch.func and Opacus'
GradSampleModule), Poisson sampling, the descent, the F adaptation, and the accountant wiring."""
import math

import pytest
import torch
from scipy import stats

from dpspec.fast.accountant import Accountant
from dpspec.fast.ptr.operators import threshold
from dpspec.fast.ptr.training import TSGDGaussian, TSGDPTR, per_sample_gradients, poisson_sample

TINY_SIGMA = 1e-300  # negligible release noise: the update is the deterministic SUM / TSUM_F


def _model(seed=0):
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(4, 5), torch.nn.Tanh(), torch.nn.Linear(5, 3)).double()


def _data(m, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(m, 4, generator=g, dtype=torch.float64), torch.randint(0, 3, (m,), generator=g)


def _loss(out, y):
    return torch.nn.functional.cross_entropy(out, y, reduction="sum")


def test_per_sample_gradients_equal_one_backward_per_sample():
    model, (x, y) = _model(), _data(6)
    psg = per_sample_gradients(model, _loss, x, y)
    for i in range(6):
        model.zero_grad()
        _loss(model(x[i:i + 1]), y[i:i + 1]).backward()
        for name, p in model.named_parameters():
            torch.testing.assert_close(psg[name][i], p.grad, rtol=1e-12, atol=1e-14)
    empty = per_sample_gradients(model, _loss, x[:0], y[:0])
    assert all(v.shape[0] == 0 for v in empty.values())


def test_opacus_grad_sample_module_gives_the_same_gradients_and_the_same_step():
    from opacus import GradSampleModule

    x, y = _data(9)
    a, b = _model(), _model()
    gsm = GradSampleModule(b, loss_reduction="sum")
    opt_a = TSGDPTR(a.parameters(), lr=0.1, clip=1.0, sigma=1.1, sample_rate=0.5, expected_batch_size=8, tau=0.5,
                    delta0=0.2, generator=torch.Generator().manual_seed(3))
    opt_b = TSGDPTR(gsm.parameters(), lr=0.1, clip=1.0, sigma=1.1, sample_rate=0.5, expected_batch_size=8, tau=0.5,
                    delta0=0.2, generator=torch.Generator().manual_seed(3))
    psg = per_sample_gradients(a, _loss, x, y)
    _loss(gsm(x), y).backward()
    for (name, _), p in zip(a.named_parameters(), gsm.parameters()):
        torch.testing.assert_close(p.grad_sample, psg[name], rtol=1e-10, atol=1e-12)
    ra, rb = opt_a.step(psg), opt_b.step()  # the second reads p.grad_sample
    assert bool(ra.passed == rb.passed) and ra.delta_hat.item() == rb.delta_hat.item()
    for pa, pb in zip(a.parameters(), b.parameters()):
        torch.testing.assert_close(pa, pb, rtol=1e-10, atol=1e-12)
    opt_b.zero_grad()
    assert all(p.grad_sample is None and p.grad is None for p in gsm.parameters())


def test_poisson_sample_size_is_binomial():
    n, q, reps = 1000, 0.03, 200
    gen = torch.Generator().manual_seed(0)
    sizes = [len(poisson_sample(n, q, gen)) for _ in range(reps)]
    idx = poisson_sample(n, q, gen)
    assert bool((idx[1:] > idx[:-1]).all()) and (len(idx) == 0 or 0 <= idx.min() and idx.max() < n)
    # the total over 200 draws is Binomial(200·1000, q): two-sided exact test at level 1e-3
    assert stats.binomtest(sum(sizes), n * reps, q).pvalue > 1e-3


def _descent_check(opt, model, psg, expected):
    before = [p.detach().clone() for p in model.parameters()]
    result = opt.step(psg)
    for p0, p, e in zip(before, model.parameters(), expected):
        torch.testing.assert_close(p0 - p, opt.lr * e, rtol=1e-10, atol=1e-12)
    return result


def _clipped(psg, clip):
    rows = torch.cat([g.reshape(g.shape[0], -1) for g in psg.values()], dim=1)
    factor = torch.clamp(clip / rows.norm(dim=1), max=1.0)
    return factor, rows.norm(dim=1).clamp(max=clip)


def test_descent_uses_sum_after_failed_test_and_F_adapts_as_algorithm_2():
    model, (x, y) = _model(), _data(10)
    psg = per_sample_gradients(model, _loss, x, y)
    factor, norms = _clipped(psg, 0.1)
    assert bool((norms == 0.1).all())  # every gradient clipped: Δ = 0 for τ < R
    # Δ = 0: the test fails ('+') unless Lap(b) > b ln(1/(2δ0)) (probability δ0 = 1e-8): SUM release, F increases
    # by 0.02 × expected batch size
    opt = TSGDPTR(model.parameters(), lr=0.5, clip=0.1, sigma=TINY_SIGMA, sample_rate=0.1, expected_batch_size=10,
                  tau=0.05, b=1.0, delta0=1e-8, F=2, generator=torch.Generator().manual_seed(0))
    expected = [torch.einsum("m,m...->...", factor, g) for g in psg.values()]
    result = _descent_check(opt, model, psg, expected)
    assert not result.passed and opt.F == pytest.approx(2 + 0.2) and opt.history[-1][:2] == (2, False)
    for _ in range(60):  # F is clamped to the expected batch size
        opt.step(per_sample_gradients(model, _loss, x, y))
    assert opt.F == 10 and opt.steps == 61


def test_passed_test_releases_tsum_and_decreases_F_down_to_zero():
    model, (x, y) = _model(), _data(8)
    psg = per_sample_gradients(model, _loss, x, y)
    factor, norms = _clipped(psg, 100.0)
    opt = TSGDPTR(model.parameters(), lr=0.3, clip=100.0, sigma=TINY_SIGMA, sample_rate=0.1, expected_batch_size=8,
                  tau=50.0, b=1e-9, delta0=0.25, F=3, generator=torch.Generator().manual_seed(0))
    # no clipping, all norms ≤ τ: Δ = #top-3 = 3 > threshold 1e-9·ln 2: test passes, TSUM_3 drops the 3 largest
    keep = torch.zeros(8, dtype=torch.float64)
    keep[torch.argsort(norms)[:5]] = 1
    expected = [torch.einsum("m,m...->...", keep, g) for g in psg.values()]
    result = _descent_check(opt, model, psg, expected)
    assert result.passed and result.delta_hat.item() == pytest.approx(3, abs=1e-6) and 3 > threshold(1e-9, 0.25)
    assert opt.F == pytest.approx(3 - 0.16)
    for _ in range(30):
        opt.step(per_sample_gradients(model, _loss, x, y))
    # the feedback: with every norm ≤ τ, Δ = F (passes while F ≥ 1, fails at F = 0): F falls, then oscillates
    assert all(passed == (F_used >= 1) for F_used, passed, _ in opt.history)
    assert 0 <= opt.F < 1 and {F_used for F_used, _, _ in opt.history[-10:]} == {0, 1}


def test_baselines_trimmed_gaussian_and_dpsgd_and_sgm_accounting():
    model, (x, y) = _model(), _data(7)
    acc = Accountant(method="rdp")
    psg = per_sample_gradients(model, _loss, x, y)
    factor, norms = _clipped(psg, 0.5)
    opt = TSGDGaussian(model.parameters(), lr=0.2, clip=0.5, sigma=TINY_SIGMA, sample_rate=0.05, F=2,
                       accountant=acc, generator=torch.Generator().manual_seed(0))
    keep = factor.clone()
    keep[torch.argsort(norms, stable=True)[5:]] = 0  # ties (norm = R) trimmed from the larger index first
    _descent_check(opt, model, psg, [torch.einsum("m,m...->...", keep, g) for g in psg.values()])
    dpsgd = TSGDGaussian(model.parameters(), lr=0.2, clip=0.5, sigma=1.3, sample_rate=0.05, accountant=acc)
    dpsgd.step(per_sample_gradients(model, _loss, x, y))
    assert acc.history == [(TINY_SIGMA, 0.05, 1), (1.3, 0.05, 1)]


class _Recorder:
    def __init__(self):
        self.calls = []

    def ptr_subsampled(self, **kw):
        self.calls.append(kw)


def test_every_ptr_step_is_recorded_with_the_normalised_parameters():
    model, (x, y) = _model(), _data(5)
    rec = _Recorder()
    opt = TSGDPTR(model.parameters(), lr=0.1, clip=2.0, sigma=1.1, sample_rate=0.02, expected_batch_size=5, tau=0.5,
                  b=1.0, delta0=1e-8, accountant=rec)
    for m in (5, 0, 3):  # includes an empty Poisson batch
        opt.step(per_sample_gradients(model, _loss, x[:m], y[:m]))
    assert rec.calls == [dict(q=0.02, sigma1=1.1, sigma2=1.1 * 0.5 / 2.0, b=1.0, delta0=1e-8)] * 3
    assert all(math.isfinite(p.detach().sum().item()) for p in model.parameters())


def test_the_fast_accountant_receives_the_ptr_steps():
    model, (x, y) = _model(), _data(5)
    acc = Accountant(method="rdp")
    opt = TSGDPTR(model.parameters(), lr=0.1, clip=1.0, sigma=1.1, sample_rate=0.02, expected_batch_size=5, tau=0.5,
                  accountant=acc)
    for _ in range(3):
        opt.step(per_sample_gradients(model, _loss, x, y))
    assert acc.ptr_subsampled_history == [(0.02, 1.1, 0.55, 1.0, 1e-8, 3)]
