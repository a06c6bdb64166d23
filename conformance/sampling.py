"""Monte Carlo of the privacy loss L = log p(o) − log q(o), o ~ P, of a catalogue witness pair (P, Q).

A witness (``dpspec.reference.catalogue.Witness`` or any object with ``sample``, ``log_p`` and ``log_q``) gives
numpy samplers and log-densities; this module draws from it in chunks of bounded size, seeded and reproducible,
and returns the losses as torch float64 tensors (CPU, or any device asked for) for the estimators.

* T-fold composition (``steps`` = T): the loss of the composed pair is the sum of T independent per-step losses.
  In a statement's witness mapping the reserved name ``steps`` asks for composition (it is consumed here and not
  passed to a witness that has no parameter of that name).
* Stratification: when the witness provides ``strata(**params) -> [(probability, sampler)]`` (the samplers draw
  from P conditioned on their stratum, ``sampler(rng, n)`` or ``sampler(rng, n, **params)``), each stratum is
  sampled separately and carries its probability as weight, so rare branches (δ0 ≈ 1e-8) are seen. Strata are used
  for single steps only; composed runs sample P directly (the per-step branch probabilities multiply out).
* Every stratum gets its own numpy Generator spawned from ``SeedSequence(seed)``: the same seed and sample size
  give the same losses, whatever the chunk size.
* :func:`check_sampler` checks a witness's samplers against its exact ``log_moment`` (the moment at α = 2 and
  P's mean privacy loss, each in a stated-confidence interval), so that a sampler that draws from the wrong law
  is caught (tests/conformance/test_witnesses.py).
"""
from __future__ import annotations

import contextlib

import inspect
import sys
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np
import torch

STEPS_KEY = "steps"  # reserved witness-parameter name: T-fold composition
CHUNK = 1 << 18  # at most this many per-step outputs in memory at once
PROGRESS_MIN_DRAWS = 5_000_000  # show a progress bar (on a terminal) above this many per-step draws


@dataclass(frozen=True)
class Stratum:
    """Losses drawn from P conditioned on one stratum of probability ``weight``."""

    weight: float
    losses: torch.Tensor  # float64, shape (n,)


@dataclass(frozen=True)
class LossSample:
    """Privacy-loss samples of one witness at one parameter point."""

    witness: str
    params: dict[str, Any]
    steps: int
    seed: int
    strata: tuple[Stratum, ...]
    dominating: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return sum(int(s.losses.numel()) for s in self.strata)

    @property
    def stratified(self) -> bool:
        return len(self.strata) > 1

    def record(self) -> dict[str, Any]:
        """What identifies this sample: enough to draw it again."""
        return {"witness": self.witness, "params": {k: _plain(v) for k, v in self.params.items()},
                "steps": self.steps, "seed": self.seed, "samples": self.n, "dominating": self.dominating,
                "strata": [{"weight": s.weight, "n": int(s.losses.numel())} for s in self.strata]}


def resolve_witness(witness: Any):
    """A witness id (looked up in the catalogue) or a pair object with sample/log_p/log_q."""
    if isinstance(witness, str):
        from dpspec.reference import catalogue

        return catalogue.get_witness(witness)
    for attr in ("sample", "log_p", "log_q"):
        if not callable(getattr(witness, attr, None)):
            raise TypeError(f"a witness needs callable sample, log_p and log_q; {witness!r} has no {attr}")
    return witness


def witness_name(witness: Any) -> str:
    return getattr(witness, "id", None) or type(witness).__name__


def split_steps(witness: Any, params: Mapping[str, Any]) -> tuple[dict[str, Any], int]:
    """Separate the reserved ``steps`` entry (T-fold composition) from the witness's own parameters."""
    own = dict(params)
    names = {p.name for p in getattr(witness, "params", ())}
    if STEPS_KEY in own and STEPS_KEY not in names:
        steps = own.pop(STEPS_KEY)
        if int(steps) != steps or int(steps) < 1:
            raise ValueError(f"steps={steps!r}: composition needs a positive integer")
        return own, int(steps)
    return own, 1


def sample_losses(witness: Any, params: Mapping[str, Any], n: int, seed: int = 0, steps: int | None = None,
                  device: str | torch.device = "cpu", progress: bool | None = None) -> LossSample:
    """Draw ``n`` privacy losses of the witness at ``params`` (T-fold composed when ``steps`` > 1).

    ``steps`` may also come inside ``params`` under the reserved key ``steps``. With strata (single step only),
    ``n`` is split between strata in proportion to sqrt(probability) with at least a tenth of an equal share each,
    so rare strata get enough samples while the weights keep the estimate unbiased.
    """
    pair = resolve_witness(witness)
    own, t = split_steps(pair, params)
    if steps is not None:
        t = int(steps)
    if n < 2:
        raise ValueError(f"n={n}: need at least two samples")
    root = np.random.SeedSequence(seed)
    strata_fn = getattr(pair, "strata", None)
    total = n * t
    show = progress if progress is not None else (total >= PROGRESS_MIN_DRAWS and sys.stderr.isatty())
    with _Progress(show, total, f"sampling {witness_name(pair)}") as bar:
        if strata_fn is not None and t == 1:
            parts = list(strata_fn(**own))
            weights = [float(w) for w, _ in parts]
            if abs(sum(weights) - 1.0) > 1e-9:
                raise ValueError(f"{witness_name(pair)}: stratum probabilities sum to {sum(weights)}, not 1")
            counts = _allocate(n, weights)
            children = root.spawn(len(parts))
            strata = []
            for (w, sampler), k, child in zip(parts, counts, children):
                draw = _bind_sampler(sampler, own)
                losses = _losses(pair, draw, own, k, 1, np.random.default_rng(child), bar)
                strata.append(Stratum(float(w), losses.to(device)))
        else:
            draw = lambda rng, m: pair.sample(rng, m, **own)
            losses = _losses(pair, draw, own, n, t, np.random.default_rng(root.spawn(1)[0]), bar)
            strata = [Stratum(1.0, losses.to(device))]
    return LossSample(witness_name(pair), own, t, seed, tuple(strata), bool(getattr(pair, "dominating", True)))


def _losses(pair, draw, params, n: int, steps: int, rng: np.random.Generator, bar) -> torch.Tensor:
    """Sum of ``steps`` independent per-step losses for each of ``n`` draws, in chunks of at most CHUNK outputs."""
    out = torch.zeros(n, dtype=torch.float64)
    per_chunk = max(1, CHUNK // max(steps, 1))
    for start in range(0, n, per_chunk):
        m = min(per_chunk, n - start)
        acc = torch.zeros(m, dtype=torch.float64)
        done = 0
        while done < steps:  # steps are drawn in blocks so that m·block ≤ CHUNK
            block = min(steps - done, max(1, CHUNK // m))
            o = draw(rng, m * block)
            loss = np.asarray(pair.log_p(o, **params), dtype=np.float64) - np.asarray(pair.log_q(o, **params),
                                                                                      dtype=np.float64)
            if np.isnan(loss).any():
                raise FloatingPointError(f"{witness_name(pair)}: the privacy loss is NaN for some outputs "
                                         "(log p and log q both infinite?)")
            acc += torch.from_numpy(loss.reshape(block, m)).sum(dim=0) if block > 1 else torch.from_numpy(loss)
            done += block
            bar.advance(m * block)
        out[start:start + m] = acc
    return out


def _bind_sampler(sampler, params):
    """Stratum samplers are ``sampler(rng, n)`` (closed over the parameters) or ``sampler(rng, n, **params)``."""
    try:
        sig = inspect.signature(sampler)
        required = [p for p in sig.parameters.values() if p.default is inspect.Parameter.empty
                    and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        takes_params = len(required) > 2 or any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values())
    except (TypeError, ValueError):
        takes_params = False
    return (lambda rng, m: sampler(rng, m, **params)) if takes_params else sampler


def _allocate(n: int, weights: list[float]) -> list[int]:
    k = len(weights)
    raw = [max(np.sqrt(w), 0.1 * sum(np.sqrt(weights)) / k) if w > 0 else 0.0 for w in weights]
    s = sum(raw)
    counts = [max(2, int(round(n * r / s))) if r > 0 else 0 for r in raw]
    return counts


@contextlib.contextmanager
def one_torch_thread():
    """Run with one torch intra-op thread, restoring the caller's setting after. A torch reduction (the mean and
    variance of 1e5 Monte Carlo terms) is summed in an order that depends on the thread count, so without this
    the last digits of an interval differed between `dpspec conform` (the CLI uses one thread) and the same run
    from Python (torch's default: one per core) — and verdict JSON must be a function of code and seed."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _plain(v: Any) -> Any:
    if isinstance(v, (bool, int, float, str)) or v is None:
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)


class _Progress:
    """A rich progress bar on stderr for long runs; a no-op otherwise."""

    def __init__(self, show: bool, total: int, description: str):
        self.show, self.total, self.description = show, total, description
        self._progress = self._task = None

    def __enter__(self):
        if self.show:
            from rich.progress import Progress

            self._progress = Progress(transient=True)
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=self.total)
        return self

    def advance(self, k: int) -> None:
        if self._progress is not None:
            self._progress.update(self._task, advance=k)

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.stop()
        return False


# ---------------------------------------------------------------------------------------------------------
# The samplers against the exact moments

SAMPLER_Z = 5.0  # two-sided normal quantile of the sampler checks: 5.7e-7 per check
KL_STEP = "1e-3"  # central-difference step of d/dα log_moment at α = 1 (the mean privacy loss)


@dataclass(frozen=True)
class SamplerCheck:
    """One comparison of a Monte Carlo mean with its exact value: ``ok`` when |estimate − exact| ≤ halfwidth."""

    witness: str
    what: str
    estimate: float
    exact: float
    halfwidth: float
    n: int

    @property
    def ok(self) -> bool:
        return abs(self.estimate - self.exact) <= self.halfwidth

    def __str__(self) -> str:
        return (f"{self.witness} {self.what}: estimate {self.estimate:.6g}, exact {self.exact:.6g}, "
                f"|difference| {abs(self.estimate - self.exact):.3g} vs half-width {self.halfwidth:.3g} (n = {self.n})")


def check_sampler(witness: Any, params: Mapping[str, Any], *, n: int, seed: int = 0, alpha: float = 2.0,
                  z: float = SAMPLER_Z, dps: int = 30) -> list[SamplerCheck]:
    """A witness's samplers against its exact ``log_moment`` (one step; ``n`` draws, seeded):

    1. ``sample`` (P itself): the mean of e^{(α−1)L} against M(α) = E_P[e^{(α−1)L}] = E_Q[(p/q)^α] = e^{log_moment(α)},
       with the EXACT variance M(2α − 1) − M(α)² (E_P[e^{2(α−1)L}] = E_Q[(p/q)^{2α−1}]), half-width z·sd/√n;
    2. ``sample``: the mean of L against E_P[L] = KL(P‖Q) = d/dα log_moment at α = 1 (the derivative of Q's cumulant
       generating function of L: E_Q[L e^L]/E_Q[e^L] = E_P[L]), by the central difference at 1 ± KL_STEP (its error,
       O(KL_STEP²) relative, is far below the half-width), half-width z·s/√n with the sample's s.d. s;
    3. where the witness has ``strata`` (what :func:`sample_losses` and the conformance runner use): the
       stratum-weighted mean of e^{(α−1)L} against M(α), half-width z·sqrt(Σ w_k² s_k²/n_k) (per-stratum sample
       variances).

    Normal approximation at z = SAMPLER_Z (5: two-sided 5.7e-7 per check); α = 2 keeps Var e^{(α−1)L} finite and
    moderate for every catalogue witness. Raises for a witness without ``log_moment``."""
    import mpmath

    pair = resolve_witness(witness)
    own, steps = split_steps(pair, params)
    if steps != 1:
        raise ValueError("check_sampler checks one step (the composed loss is a sum of independent steps)")
    log_moment = getattr(pair, "log_moment", None)
    if log_moment is None:
        raise ValueError(f"{witness_name(pair)}: no exact log_moment to check the sampler against")
    name = witness_name(pair)
    a = float(alpha)
    with mpmath.workdps(dps):
        lm = log_moment(mpmath.mpf(a), **own)
        var = mpmath.exp(log_moment(mpmath.mpf(2 * a - 1), **own)) - mpmath.exp(2 * lm)
        h = mpmath.mpf(KL_STEP)
        kl = (log_moment(1 + h, **own) - log_moment(1 - h, **own)) / (2 * h)
        moment = float(mpmath.exp(lm))
        sd = float(mpmath.sqrt(var)) if var > 0 else 0.0
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    o = pair.sample(rng, n, **own)
    L = np.asarray(pair.log_p(o, **own), dtype=np.float64) - np.asarray(pair.log_q(o, **own), dtype=np.float64)
    x = np.exp((a - 1) * L)
    out = [SamplerCheck(name, f"E_P[e^((α−1)L)] at α = {a:g}", float(x.mean()), moment, z * sd / np.sqrt(n), n),
           SamplerCheck(name, "E_P[L] = KL(P‖Q)", float(L.mean()), float(kl), z * float(L.std(ddof=1)) / np.sqrt(n),
                        n)]
    if getattr(pair, "strata", None) is not None:
        sample = sample_losses(pair, own, n, seed + 1)
        est, v = 0.0, 0.0
        for st in sample.strata:
            y = torch.exp((a - 1) * st.losses)
            est += st.weight * float(y.mean())
            v += st.weight ** 2 * float(y.var()) / y.numel()
        out.append(SamplerCheck(name, f"stratified E_P[e^((α−1)L)] at α = {a:g}", est, moment, z * v ** 0.5, n))
    return out

