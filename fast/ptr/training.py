"""TSGD+PTR (Algorithm 2 of the PTR paper, appendix seed 000_0fe14ad2f9124ea1.txt §A.5) and its baselines as
optimizer wrappers over per-sample gradients.

Algorithm 2, per step t: Poisson-sample B_t (each point w.p. q); per-sample gradients g_i (possibly corrupted);
clip to norm R; g̃, ω ← PTR-TMEAN({g_i}) (fast/ptr/operators.py); θ ← θ − η g̃; adjust F.

The F adaptation. Algorithm 2 (lines 13–17) increases F when ω = '+', which Algorithm 3 returns when the test
FAILS (Δ̂ ≤ b ln(1/(2δ0))), and decreases it otherwise; Remark 5.3(1) of seed 001 says the same ("if Δ̂ ≤ B … many
outliers, thus we increase F"). Appendix B.1.3 says the opposite ("If sensitivity test is passed, we increase F by
0.02 × batchsize"). We follow Algorithm 2 and Remark 5.3: it is the stable feedback (a larger F counts more norms
in Δ, so a failed test followed by a larger F makes the next test likelier to pass), while B.1.3's rule would grow F
without bound on clean data. The step is 0.02 × expected batch size (B.1.3). F is kept as a real number, clamped to
[0, expected batch size] (the paper states no clamp; erratum E16), and rounded to an integer for each aggregation.
The adaptation is post-processing of the released Δ̂ and costs no privacy.

Privacy: one TSGD+PTR step is Poisson-subsampled Algorithm 1 with f1 = SUM, f2 = TSUM_F (GS = R for both), so in
the normalised form of Theorems 4.3–4.4: σ1 = σ, σ2 = στ/R, b, δ0, sampling rate q. TSGD+Gaussian and DP-SGD
(TSUM_F or SUM + σR·N(0, I), GS = R) are the subsampled Gaussian mechanism (q, σ).

Per-sample gradients come from torch.func (``per_sample_gradients``: vmap of grad over the batch) or from Opacus'
GradSampleModule (``step()`` without arguments reads ``p.grad_sample``).
"""
from __future__ import annotations

from typing import Callable, Iterable

import torch
from torch.func import functional_call, grad, vmap

from dpspec.reference.errors import DomainError
from dpspec.reference.ptr.spec import SAMPLE_PROBABILITY, SAMPLE_SIZE

from .operators import PTRResult, gaussian_trimmed_sum, ptr_trimmed_sum


def poisson_sample(n: int, q: float, generator: torch.Generator | None = None, device=None) -> torch.Tensor:
    """Indices of a Poisson sample of {0, …, n−1}: each index independently with probability q (Algorithm 2 l. 4).

    ``n`` must be an integer ≥ 0 (an integer-valued float is accepted; booleans are not) and ``q`` a real number in
    [0, 1]; anything else (q = 2, q = NaN, n = −1, n = 2.5) raises a one-line DomainError naming the argument."""
    if isinstance(n, bool) or isinstance(n, torch.Tensor) and n.numel() != 1:
        raise DomainError("n", n, SAMPLE_SIZE.describe())
    n = SAMPLE_SIZE.check("n", n.item() if isinstance(n, torch.Tensor) else n)
    if isinstance(q, (bool, str, bytes)) or q is None:
        raise DomainError("q", repr(q), f"a real number in {SAMPLE_PROBABILITY.describe()}")
    try:
        q = float(q)
    except (TypeError, ValueError):
        raise DomainError("q", repr(q), f"a real number in {SAMPLE_PROBABILITY.describe()}") from None
    q = SAMPLE_PROBABILITY.check("q", q)
    return torch.nonzero(torch.rand(n, generator=generator, device=device) < q).flatten()


def per_sample_gradients(model: torch.nn.Module, loss_fn: Callable, inputs: torch.Tensor,
                         targets: torch.Tensor) -> dict[str, torch.Tensor]:
    """{name: (m, *shape)} gradients of loss_fn(model(x_i), y_i) for each sample i, by torch.func vmap(grad)."""
    params = {k: p.detach() for k, p in model.named_parameters() if p.requires_grad}
    if inputs.shape[0] == 0:
        return {k: p.new_zeros((0, *p.shape)) for k, p in params.items()}
    buffers = dict(model.named_buffers())

    def loss_one(p, x, y):
        return loss_fn(functional_call(model, (p, buffers), (x.unsqueeze(0),)), y.unsqueeze(0))

    return vmap(grad(loss_one), in_dims=(None, 0, 0))(params, inputs, targets)


class _PrivateSGD:
    """Shared plumbing: the parameters, the descent θ ← θ − η g̃, and reading Opacus' ``grad_sample``."""

    def __init__(self, params: Iterable[torch.nn.Parameter], *, lr: float, clip: float, sigma: float,
                 sample_rate: float, accountant=None, generator: torch.Generator | None = None):
        self.params = [p for p in params if p.requires_grad]
        self.lr, self.clip, self.sigma, self.sample_rate = float(lr), float(clip), float(sigma), float(sample_rate)
        self.accountant, self.generator = accountant, generator
        self.steps = 0

    def _grads(self, per_sample_grads):
        if per_sample_grads is None:  # Opacus GradSampleModule after backward()
            if any(getattr(p, "grad_sample", None) is None for p in self.params):
                raise ValueError("no per-sample gradients: pass them, or run backward() through a GradSampleModule")
            return [p.grad_sample for p in self.params]
        grads = list(per_sample_grads.values()) if isinstance(per_sample_grads, dict) else list(per_sample_grads)
        if len(grads) != len(self.params):
            raise ValueError(f"{len(grads)} per-sample gradient tensors for {len(self.params)} parameters")
        return grads

    @torch.no_grad()
    def _descend(self, aggregate):
        for p, g in zip(self.params, aggregate):
            p.add_(g.to(p.dtype), alpha=-self.lr)
        self.steps += 1

    def zero_grad(self):
        """Clear ``grad`` and Opacus' ``grad_sample`` of every parameter."""
        for p in self.params:
            p.grad = None
            if hasattr(p, "grad_sample"):
                p.grad_sample = None


class TSGDPTR(_PrivateSGD):
    """Algorithm 2 (TSGD+PTR): each ``step`` aggregates with PTR-TMEAN, descends, adapts F, and records the step.

    ``expected_batch_size`` = qN sets the F step (0.02 × it, appendix B.1.3) and F's upper clamp; ``F`` is the
    initial F (the paper does not give one; default 25% of the batch, its TSGD+Gaussian value). The accountant, if
    given, receives ``accountant.ptr_subsampled(q=, sigma1=, sigma2=, b=, delta0=)`` (fast.Accountant) per step (see record_step)."""

    def __init__(self, params, *, lr: float, clip: float, sigma: float, sample_rate: float,
                 expected_batch_size: float, tau: float, b: float = 1.0, delta0: float = 1e-8,
                 F: float | None = None, F_step_fraction: float = 0.02, accountant=None, generator=None):
        super().__init__(params, lr=lr, clip=clip, sigma=sigma, sample_rate=sample_rate, accountant=accountant,
                         generator=generator)
        self.tau, self.b, self.delta0 = float(tau), float(b), float(delta0)
        self.F_max = float(expected_batch_size)
        self.F = 0.25 * self.F_max if F is None else float(F)
        self.F_step = F_step_fraction * self.F_max
        self.history: list[tuple[int, bool, float]] = []  # (F used, test passed, Δ̂) per step

    def step(self, per_sample_grads=None) -> PTRResult:
        """One step of Algorithm 2 on this batch's per-sample gradients (a dict or list in parameter order, or
        None to read ``p.grad_sample``). Returns PTR-TMEAN's result (aggregate per parameter, passed, Δ̂)."""
        F = int(round(self.F))
        result = ptr_trimmed_sum(self._grads(per_sample_grads), F, self.tau, self.clip, self.b, self.delta0,
                                 self.sigma, generator=self.generator)
        self._descend(result.aggregate)
        passed = bool(result.passed)
        self.F = min(max(self.F + (-self.F_step if passed else self.F_step), 0.0), self.F_max)
        self.history.append((F, passed, float(result.delta_hat)))
        self.record_step()
        return result

    @property
    def ptr_parameters(self) -> dict:
        """One step's privacy parameters in the normalised form of Theorems 4.3–4.4 (GS(SUM) = GS(TSUM_F) = R)."""
        return dict(q=self.sample_rate, sigma1=self.sigma, sigma2=self.sigma * self.tau / self.clip,
                    b=self.b, delta0=self.delta0)

    def record_step(self):
        """Record one Poisson-subsampled PTR step with the accountant (when one was given)."""
        if self.accountant is not None:
            self.accountant.ptr_subsampled(**self.ptr_parameters)


class TSGDGaussian(_PrivateSGD):
    """TSGD+Gaussian (seed 001 §6 baseline): TSUM_F + σR·N(0, I) with a fixed F; F = 0 is plain DP-SGD
    (clip, SUM, σR·N(0, I)). Each step is recorded as one SGM step ``accountant.step(noise_multiplier=σ,
    sample_rate=q)`` (Opacus' form)."""

    def __init__(self, params, *, lr: float, clip: float, sigma: float, sample_rate: float, F: int = 0,
                 accountant=None, generator=None):
        super().__init__(params, lr=lr, clip=clip, sigma=sigma, sample_rate=sample_rate, accountant=accountant,
                         generator=generator)
        self.F = int(F)

    def step(self, per_sample_grads=None):
        aggregate = gaussian_trimmed_sum(self._grads(per_sample_grads), self.F, self.clip, self.sigma,
                                         generator=self.generator)
        self._descend(aggregate)
        if self.accountant is not None:
            self.accountant.step(noise_multiplier=self.sigma, sample_rate=self.sample_rate)
        return aggregate
