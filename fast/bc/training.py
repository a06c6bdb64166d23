"""Algorithm 1 of seed 002 (002_5bf9d068e79d7537.txt; van Dijk, Nguyen, Nguyen, Nguyen, arXiv 2212.05796, "Generalizing
DP-SGD with Shuffling and Batch Clipping") as torch training operators: the two batch samplers and the
individual / batch / mixed clipping round, wrapped as an optimizer. Notes: shared/notes/batch-clipping-fdp.md §4.1.

One round b of epoch e (Algorithm 1, lines 16–24; notes §4.1):

    S_b = S_{b,1} ∪ … ∪ S_{b,m},  |S_{b,h}| = s                  (Sample_{s,m}, lines 13–15)
    a_h = A(w, {ξ_i : i ∈ S_{b,h}})  for h = 1 … m              (line 19: any optimiser A, started at the current w)
    U   = Σ_h [a_h]_C,   [x]_C = x / max(1, ‖x‖/C)               (line 21; ‖·‖ the global norm over all parameters)
    Ū   = U + N(0, (2Cσ)² I)                                    (line 22)
    w  ← w − η · Ū/m                                            (lines 23–24)

s = 1 is individual clipping (IC, DP-SGD, eq (1)); m = 1 is batch clipping (BC, eq (2)/(3)); s, m > 1 is mixed
clipping (MC, eq (6)). The default A is eq (6)'s (1/s) Σ_{i∈S_{b,h}} ∇f(w, ξ_i) (``MeanGradient``); eq (2)'s s
sequential SGD steps started at w is ``SequentialSGD``; any callable ``A(model, params, x_h, y_h)`` returning one
update direction per parameter may be passed instead.

Samplers (Algorithm 1 lines 11–15, notes §4.1 "Sample_{s,m}"): shuffling cuts a uniformly random permutation of [N]
into N/(ms) consecutive disjoint batches each epoch; subsampling draws an independent uniformly random ms-subset each
round. Both split S_b into m subsets of s by a uniformly random partition (for shuffling the consecutive cut of a
uniform permutation already is one; for subsampling the ms indices come in uniformly random order, so cutting them
is one). A run has T = E·N/(ms) rounds for both samplers (Algorithm 1 line 4), so N/(ms) must be an integer.

Privacy (seed 002 Def 4.1/4.2, Thms 4.5/4.6): after the normalisation of §4 (project on U − U′, divide by 2C) a round
with k differentiating subsets is G_{k/σ}; the whole run's A1 guarantee is the q_E mixture, next to the A0 number
in dpspec.fast.bc.accounting.report (tests/bc/test_bc_training.py checks that c² of runs drawn by these samplers
follows dpspec.fast.bc.qe.qe_law). The clipping of line 21 is what makes the sensitivity 2C; it is never skipped
and never silent: every round returns the m pre-clip norms and which subsets were clipped (``RoundResult``), and the
optimizer keeps running totals (``BatchClippingSGD.clipped_fraction``).
"""
from __future__ import annotations

from typing import Callable, Iterator, NamedTuple

import torch
from torch.func import functional_call, grad, vmap

from dpspec.reference.bc import spec
from dpspec.reference.bc.spec import BATCH_FITS, ROUNDS_INTEGER
from dpspec.reference.domains import EPS, NOISE, Choice
from dpspec.reference.errors import ParameterError

# The clipping constant C > 0 (line 21) is a positive real (the NOISE interval (0, ∞)); the noise multiplier σ ≥ 0
# (line 22: noise N(0, (2Cσ)² I)) and step sizes η ≥ 0 take [0, ∞) (the EPS interval; no copy of a reference domain
# is built in fast/). σ = 0 is accepted here (no noise, NOT private) for debugging and tests; the accounting layers
# require σ > 0.
CLIP = NOISE
SIGMA = LEARNING_RATE = EPS
REDUCTIONS = Choice(("sum", "mean"))  # SequentialSGD: eq (2)'s sum of the visited gradients, or their mean


# ------------------------------------------------------------------------------------------------------------------
# Samplers (Algorithm 1, lines 10–15)

def check_batch_shape(N, m, s, *, whole_rounds: bool = True) -> tuple[int, int, int]:
    """(N, m, s) as Python ints: each an integer ≥ 1 (DomainError), s·m ≤ N (BATCH_FITS) and, when
    ``whole_rounds``, N/(s·m) an integer (ROUNDS_INTEGER; Algorithm 1 line 16 runs N/(ms) rounds per epoch) —
    a ParameterError naming the condition and the values otherwise (seed 002, Algorithm 1 lines 13–16)."""
    N, m, s = spec.DATASET_SIZE.check("N", N), spec.SUBSETS.check("m", m), spec.SUBSET_SIZE.check("s", s)
    if not spec.batch_fits(N, m, s):
        raise ParameterError(f"Algorithm 1 needs {BATCH_FITS.describe()}; got s·m = {s}·{m} = {s * m} > N = {N}")
    if whole_rounds and not spec.rounds_integer(N, m, s):
        raise ParameterError(f"Algorithm 1 needs {ROUNDS_INTEGER.describe()}; got N/(s·m) = {N}/{s * m} "
                             f"= {N / (s * m):.6g}")
    return N, m, s


def shuffling_epoch(N: int, m: int, s: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """One epoch of the shuffling sampler (seed 002, Algorithm 1 lines 11–15; notes §4.1 "SH"): a uniformly random
    permutation of {0, …, N−1} cut into R = N/(ms) consecutive disjoint batches, each cut into m subsets of s.
    Returns a LongTensor of shape (R, m, s); row [b, h] is S_{b,h}. Every index appears exactly once."""
    N, m, s = check_batch_shape(N, m, s)
    return torch.randperm(N, generator=generator).view(N // (m * s), m, s)


def subsampling_round(N: int, m: int, s: int, generator: torch.Generator | None = None) -> torch.Tensor:
    """One round of the subsampling sampler (seed 002, Algorithm 1 lines 13–15; notes §4.1 "SS"): a uniformly random
    ms-subset of {0, …, N−1} split into m subsets of s by a uniformly random partition. Returns a LongTensor (m, s).
    (The first ms entries of a uniform permutation are a uniform ms-subset in uniformly random order, so cutting
    them into m consecutive runs of s is a uniform partition.) Only s·m ≤ N is required here."""
    N, m, s = check_batch_shape(N, m, s, whole_rounds=False)
    return torch.randperm(N, generator=generator)[: m * s].view(m, s)


class BatchSampler:
    """The Sample_{s,m} of Algorithm 1 over a whole run (seed 002, Algorithm 1 lines 10–16): iterating yields the
    T = E·N/(ms) rounds' index tensors of shape (m, s), R = N/(ms) per epoch, in order. ``sampling`` is
    "shuffling" (a fresh permutation per epoch) or "subsampling" (an independent ms-subset per round). A
    ``torch.Generator`` makes the run reproducible. Index the data with it: ``x[idx]`` has shape (m, s, …)."""

    def __init__(self, sampling: str, N: int, m: int, s: int, epochs: int = 1,
                 generator: torch.Generator | None = None):
        self.sampling = spec.SAMPLING.check("sampling", sampling)
        self.N, self.m, self.s = check_batch_shape(N, m, s)
        self.epochs = spec.EPOCHS.check("E", epochs)
        self.generator = generator

    @property
    def rounds_per_epoch(self) -> int:
        """R = N/(ms) (Algorithm 1 line 16)."""
        return self.N // (self.m * self.s)

    def __len__(self) -> int:
        """T = E·N/(ms) rounds (Algorithm 1 line 4)."""
        return self.epochs * self.rounds_per_epoch

    def epoch(self) -> torch.Tensor:
        """One epoch's rounds as a LongTensor (R, m, s)."""
        if self.sampling == "shuffling":
            return shuffling_epoch(self.N, self.m, self.s, self.generator)
        return torch.stack([subsampling_round(self.N, self.m, self.s, self.generator)
                            for _ in range(self.rounds_per_epoch)])

    def __iter__(self) -> Iterator[torch.Tensor]:
        for _ in range(self.epochs):
            yield from self.epoch()


# ------------------------------------------------------------------------------------------------------------------
# Per-subset optimisers A (Algorithm 1 line 19)

class MeanGradient:
    """A of eq (6) (seed 002 §5): a_h = (1/s) Σ_{i∈S_{b,h}} ∇f(w, ξ_i), the mean gradient over the subset at the
    current w. ``loss_fn(outputs, targets)`` must return the MEAN loss over the samples it is given (torch's default
    reduction), so its gradient on a subset is a_h.

    ``all_subsets`` computes the m directions at once: m = 1 (batch clipping) is one ordinary backward of the batch's
    mean loss (the memory advantage seed 002 §5 describes: ∇Σf = Σ∇f, no per-sample gradients); m > 1 is one
    torch.func vmap(grad) over the m subsets (for IC, s = 1, these are the per-sample gradients), with independent
    randomness per subset (dropout). Modules that update buffers in the forward pass (batch norm in training mode)
    do not run under vmap; seed 002 §2 allows batch norm over S_{b,h}, which needs a per-subset loop (a plain
    callable A)."""

    def __init__(self, loss_fn: Callable):
        self.loss_fn = loss_fn

    def _loss(self, model, buffers):
        def loss(params, x, y):
            return self.loss_fn(functional_call(model, (params, buffers), (x,)), y)
        return loss

    def __call__(self, model, params, x, y) -> dict[str, torch.Tensor]:
        """a_h for one subset (x: (s, …), y: (s, …))."""
        return grad(self._loss(model, dict(model.named_buffers())))(params, x, y)

    def all_subsets(self, model, params, x, y) -> dict[str, torch.Tensor]:
        """{name: (m, *shape)}: a_h for the m subsets x[h], y[h] (x: (m, s, …))."""
        loss = self._loss(model, dict(model.named_buffers()))
        if x.shape[0] == 1:  # batch clipping: one plain backward
            with torch.enable_grad():
                leaves = {k: p.detach().requires_grad_(True) for k, p in params.items()}
                grads = torch.autograd.grad(loss(leaves, x[0], y[0]), list(leaves.values()))
            return {k: g.unsqueeze(0) for k, g in zip(leaves, grads)}
        return vmap(grad(loss), in_dims=(None, 0, 0), randomness="different")(params, x, y)


class SequentialSGD:
    """A of eq (2) (seed 002 §1): s sequential SGD steps w_{j+1} = w_j − η ∇f(w_j, ξ_{i_j}) from w_1 = w, returning
    Σ_j ∇f(w_j, ξ_{i_j}) (``reduction="sum"``, eq (2) as printed; = (w_1 − w_{s+1})/η) or its mean (1/s)Σ_j
    (``reduction="mean"``, which is eq (6)'s a_h when η = 0). ``lr`` is the inner step size η (eq (2) uses the round
    step size). ``loss_fn`` as for MeanGradient (mean loss; here applied to one sample at a time). The m subsets run
    in one torch.func vmap (the s steps are a loop inside it)."""

    def __init__(self, loss_fn: Callable, lr: float, reduction: str = "sum"):
        self.loss_fn = loss_fn
        self.lr = LEARNING_RATE.check("lr", lr)
        self.reduction = REDUCTIONS.check("reduction", reduction)

    def _run(self, model, buffers):
        def one_loss(params, x, y):
            return self.loss_fn(functional_call(model, (params, buffers), (x.unsqueeze(0),)), y.unsqueeze(0))
        step_grad = grad(one_loss)

        def run(params, x, y):
            total = {k: torch.zeros_like(p) for k, p in params.items()}
            w = dict(params)
            for j in range(x.shape[0]):
                g = step_grad(w, x[j], y[j])
                total = {k: total[k] + g[k] for k in total}
                w = {k: w[k] - self.lr * g[k] for k in w}
            scale = 1.0 if self.reduction == "sum" else 1.0 / x.shape[0]
            return {k: scale * t for k, t in total.items()}
        return run

    def __call__(self, model, params, x, y) -> dict[str, torch.Tensor]:
        """a_h for one subset (x: (s, …))."""
        return self._run(model, dict(model.named_buffers()))(params, x, y)

    def all_subsets(self, model, params, x, y) -> dict[str, torch.Tensor]:
        """{name: (m, *shape)} for the m subsets x[h] (x: (m, s, …)), one vmap."""
        return vmap(self._run(model, dict(model.named_buffers())), in_dims=(None, 0, 0),
                    randomness="different")(params, x, y)


def subset_directions(A, model: torch.nn.Module, params: dict, x: torch.Tensor, y: torch.Tensor) -> dict:
    """{name: (m, *shape)}: line 19's a_h for every subset h. Uses ``A.all_subsets`` when A has it (the built-ins),
    otherwise calls ``A(model, params, x[h], y[h])`` once per subset (a dict by parameter name, or a sequence in
    parameter order) and stacks the results."""
    if hasattr(A, "all_subsets"):
        return A.all_subsets(model, params, x, y)
    names = list(params)
    outs = []
    for h in range(x.shape[0]):
        a = A(model, params, x[h], y[h])
        a = dict(zip(names, a)) if not isinstance(a, dict) else a
        if set(a) != set(names):
            raise ParameterError(f"the subset optimiser returned directions for {sorted(a)}, expected {names}")
        outs.append(a)
    return {k: torch.stack([o[k] for o in outs]) for k in names}


# ------------------------------------------------------------------------------------------------------------------
# Clipping and noise (Algorithm 1 lines 21–23)

class RoundResult(NamedTuple):
    """One round of Algorithm 1: ``update`` = Ū/m per parameter (line 23), ``norms`` the m pre-clip global norms
    ‖a_h‖ (line 21), ``clipped`` (m,) bool where ‖a_h‖ > C (those were scaled down to norm C)."""
    update: dict
    norms: torch.Tensor
    clipped: torch.Tensor

    @property
    def fraction_clipped(self) -> float:
        return self.clipped.double().mean().item()


def global_norms(directions: dict) -> torch.Tensor:
    """(m,) ‖a_h‖: the ℓ2 norm of each subset's direction over ALL parameters together (seed 002 line 21)."""
    return torch.sqrt(sum(d.flatten(1).pow(2).sum(1) for d in directions.values()))


def clip_and_sum(directions: dict, clip: float) -> tuple[dict, torch.Tensor]:
    """U = Σ_h [a_h]_C with [x]_C = x / max(1, ‖x‖/C) (seed 002, Algorithm 1 line 21, eq (1)); returns (U, norms).
    A direction with a non-finite entry has norm inf or NaN: it raises (no silent clipping of a broken update)."""
    norms = global_norms(directions)
    if not torch.isfinite(norms).all():
        bad = torch.nonzero(~torch.isfinite(norms)).flatten().tolist()
        raise ParameterError(f"subset directions {bad} have a non-finite norm; refusing to clip them")
    factor = 1.0 / torch.clamp(norms / clip, min=1.0)
    return {k: torch.einsum("m,m...->...", factor.to(d.dtype), d) for k, d in directions.items()}, norms


def noisy_round(directions: dict, clip: float, sigma: float, generator: torch.Generator | None = None) -> RoundResult:
    """Lines 21–23 of Algorithm 1 (seed 002): Ū/m = (Σ_h [a_h]_C + N(0, (2Cσ)² I)) / m, the noise drawn per parameter
    in the dict's order with ``generator``. ``directions`` = {name: (m, *shape)}."""
    clip, sigma = CLIP.check("clip", clip), SIGMA.check("sigma", sigma)
    m = next(iter(directions.values())).shape[0]
    total, norms = clip_and_sum(directions, clip)
    std = 2.0 * clip * sigma
    update = {}
    for k, u in total.items():
        if std > 0:
            u = u + std * torch.randn(u.shape, generator=generator, dtype=u.dtype, device=u.device)
        update[k] = u / m
    return RoundResult(update, norms, norms > clip)


class BatchClippingSGD:
    """Algorithm 1 (seed 002) as an optimizer wrapper: ``step(x, y)`` runs one round on the batch x, y of shape
    (m, s, …) (e.g. ``x[idx]`` for ``idx`` from :class:`BatchSampler`): a_h by ``subset_optimizer`` (default
    MeanGradient(loss_fn), eq (6)), clip each to C, sum, add N(0, (2Cσ)² I), divide by m, and move w:
    ``w ← w − lr · Ū/m`` (line 24), or, when a torch ``optimizer`` over the same parameters is given, p.grad ← Ū/m and
    ``optimizer.step()`` (post-processing of the released Ū/m, no privacy cost; e.g. momentum at the server).
    ``lr`` may be changed between rounds (Algorithm 1's η_i; §5's ×0.9 schedule). σ = 0 means no noise (not private).

    The noise is drawn with ``generator``, which must live on the parameters' device (torch.Generator(device=…)).
    Clipping is logged, never silent: each round's RoundResult has the m norms and clipped flags, and
    ``clipped_fraction`` is the running share of clipped subsets."""

    def __init__(self, model: torch.nn.Module, loss_fn: Callable | None = None, *, lr: float, clip: float,
                 sigma: float, m: int, s: int, subset_optimizer=None, optimizer: torch.optim.Optimizer | None = None,
                 generator: torch.Generator | None = None):
        if subset_optimizer is None:
            if loss_fn is None:
                raise ParameterError("pass loss_fn (for the default A, MeanGradient) or a subset_optimizer")
            subset_optimizer = MeanGradient(loss_fn)
        self.model, self.A, self.optimizer, self.generator = model, subset_optimizer, optimizer, generator
        self.lr = LEARNING_RATE.check("lr", lr)
        self.clip, self.sigma = CLIP.check("clip", clip), SIGMA.check("sigma", sigma)
        self.m, self.s = spec.SUBSETS.check("m", m), spec.SUBSET_SIZE.check("s", s)
        self.rounds = 0
        self.subsets_clipped = 0

    @property
    def clipped_fraction(self) -> float:
        """Share of all subsets so far whose ‖a_h‖ exceeded C (0 before the first round)."""
        return self.subsets_clipped / (self.rounds * self.m) if self.rounds else 0.0

    def _check_batch(self, x, y):
        want = (self.m, self.s)
        if tuple(x.shape[:2]) != want or tuple(y.shape[:2]) != want:
            raise ParameterError(f"a round takes inputs and targets of leading shape (m, s) = {want}; got "
                                 f"{tuple(x.shape)} and {tuple(y.shape)} (index the data with BatchSampler's (m, s) "
                                 "index tensors)")

    def step(self, x: torch.Tensor, y: torch.Tensor) -> RoundResult:
        """One round (Algorithm 1 lines 17–24) on x, y of leading shape (m, s)."""
        self._check_batch(x, y)
        named = {k: p for k, p in self.model.named_parameters() if p.requires_grad}
        params = {k: p.detach() for k, p in named.items()}
        directions = subset_directions(self.A, self.model, params, x, y)
        result = noisy_round(directions, self.clip, self.sigma, self.generator)
        with torch.no_grad():
            if self.optimizer is None:
                for k, p in named.items():
                    p.add_(result.update[k].to(p.dtype), alpha=-self.lr)
            else:
                for k, p in named.items():
                    p.grad = result.update[k].to(p.dtype).clone()
        if self.optimizer is not None:
            self.optimizer.step()
        self.rounds += 1
        self.subsets_clipped += int(result.clipped.sum())
        return result
