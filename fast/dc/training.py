"""DC-DPSGD (seed 004, arXiv 2405.17529v1, Algorithm 1 L187–L208) as a torch training operator with a sound
accountant: the step (Algorithm 1 as printed and the sound readings of notes shared/notes/dc-dpsgd.md §3.4/§4.4),
the optimizer wrapper ``DCDPSGD``, and the accounting of each reading through the base subsampled-Gaussian accountant.

One step on a batch's per-sample gradients g_i (i = 1 … B; Algorithm 1 lines 5–12, notes §4.1):

    V        fresh public (pd, k) projection, sub-Weibull(θ_V) entries then QR (fast/dc/projection.py; line 6)
    λ_i      = ‖Vᵀ ĝ_i‖²,  ĝ_i = g^s_i/‖g^s_i‖ (g^s the coordinates the scores use; lines 7–8)
    λ̃_i     = λ_i + σ_tr z_i                                                   (line 9)
    labels   reading "B": tail iff λ̃_i > τ (τ fixed, data-independent)         (notes §3.4 B, §4.4)
             reading "A"/"C": tail = the ⌊pB⌋ largest λ̃_i (line 9 as printed)   (notes §3.4 A, C)
    ḡ_i      = g_i · min(1, c_i/‖g_i‖), c_i = c1 (tail) or c2 (body)           (line 10; global norm)
    noise    "single": Σ ḡ_i + N(0, σ_dp² c1² I)   (the sound form, notes §4.4)
             "per_sample": Σ (ḡ_i + N(0, c_i² σ_dp² I))   (line 10 as printed; NOT covered by any accountant:
             with Poisson batches the two neighbours' outputs have different covariances, notes §3.2 — a warning)
    update   = noisy_sum / b, b the expected batch size q·n (line 11 divides by B); w ← w − η·update (line 12)

Privacy (notes §3.4; helper B's reference dc.reading_a/b/c): under Poisson sampling at rate q each step is dominated
by the Poisson-subsampled Gaussian with effective multiplier σ_eff (sensitivity 1 in noise units):
    (B) σ_eff = σ_dp                                       (Δ_gp = c1; the trace noise plays no privacy role)
    (A) σ_eff = σ_dp / (2 − c2/c1)                         (Δ_gp = 2c1 − c2: z moves one other sample tail→body)
    (C) σ_eff = ((Δ_tr/σ_tr)² + ((2 − c2/c1)/σ_dp)²)^{−1/2}  (noisy scores released, Δ_tr = 1, or 1/k averaged V;
        the gradient part is A's: with top-⌊pB⌋ selection, adding z moves a shared sample tail → body even with the
        shared scores released and fixed, so the sum moves by 2c1 − c2 — not the notes' §3.4 (C) Δ_gp = c1)
and T steps compose as T self-compositions (dpspec.fast.accountant). With c1 = c2 readings (A) and (B) are DP-SGD:
the same step and the same accountant. ``epsilon`` and ``calibrate`` go through dpspec.fast.dc.accounting
(dc_epsilon, dc_calibrate_sigma; Δ_tr passed on), which calls the base SGM accountant at σ_eff.
"""
from __future__ import annotations

import functools
import math
import warnings
from typing import Iterable, NamedTuple

import torch

from dpspec.reference.dc import spec
from dpspec.reference.domains import DELTA, EPS
from dpspec.reference.errors import ConditionError, ParameterError

from ..ptr.training import per_sample_gradients, poisson_sample  # noqa: F401  (re-exported for users)
from .projection import DTYPE, check_k, directions, projection, trace_scores

TAIL_SLACK = 1e-9  # ⌊pB⌋ is computed as ⌊pB + 1e-9⌋ so that the binary rounding of p (0.29·100 = 28.999…) is ignored


class StepResult(NamedTuple):
    """One DC-DPSGD step: ``update`` (the input's structure: tensor / list / dict, float64), ``noisy_sum`` (D,) the
    released noisy sum of clipped gradients, ``flat_update`` (D,), ``tail`` (B,) bool labels, ``scores`` (B,) noisy
    trace scores λ̃, ``clean_scores`` (B,) λ, ``norms`` (B,) global per-sample norms, ``factors`` (B,) clip factors
    min(1, c_i/‖g_i‖), ``n_tail``, ``threshold`` (τ, or the sorted score at ⌊pB⌋ in the public code; −inf/inf when
    every/no sample is tail) and the projection ``V`` used."""
    update: object
    noisy_sum: torch.Tensor
    flat_update: torch.Tensor
    tail: torch.Tensor
    scores: torch.Tensor
    clean_scores: torch.Tensor
    norms: torch.Tensor
    factors: torch.Tensor
    n_tail: int
    threshold: float
    V: torch.Tensor

    @property
    def fraction_clipped(self) -> float:
        """Share of the batch whose gradient was scaled down (factor < 1); 0 for an empty batch."""
        return float((self.factors < 1).double().mean()) if self.factors.numel() else 0.0


# ---------------------------------------------------------------------------------------------------------------
# argument checks (one clear error each)

def check_sigma(name: str, sigma) -> float:
    """σ ≥ 0 (σ = 0: no noise, not private — for tests); DomainError naming it otherwise."""
    return float(EPS.check(name, sigma))


CLIP_STATEMENT = "dc.sigma_eff"  # the statement whose condition c2 ≤ c1 the operator shares (fast/dc/accounting.py)


def check_clips(c1, c2) -> tuple[float, float]:
    """c1, c2 > 0 (DomainError naming each) and c2 ≤ c1 (ConditionError c2_at_most_c1, spec.C2_AT_MOST_C1, L190 —
    the same class and words as the accountant's and the catalogue's refusal of the same input)."""
    c1 = float(spec.POSITIVE.check("c1", c1))
    c2 = float(spec.POSITIVE.check("c2", c2))
    if c2 > c1:
        raise ConditionError(CLIP_STATEMENT, [spec.C2_AT_MOST_C1.describe()])
    return c1, c2


def tail_count(p_tail: float, B: int) -> int:
    """⌊pB⌋, the number of tail samples of top-p selection (Algorithm 1 line 9, "top-pB"; the public code's
    int(n/10) at p = 0.1), computed as ⌊pB + TAIL_SLACK⌋."""
    return min(B, int(math.floor(p_tail * B + TAIL_SLACK)))


class Rows:
    """Per-sample gradients as one (B, D) float64 matrix: from a (B, D) tensor, or a list/tuple/dict of (B, *shape)
    tensors (one per parameter, concatenated in order). Non-finite entries are refused (no silent clipping of a
    broken gradient). ``rebuild`` maps a (D,) vector back to the input's structure without the batch axis."""

    def __init__(self, per_sample_grads):
        g = per_sample_grads
        if isinstance(g, torch.Tensor):
            if g.dim() != 2:
                raise ParameterError(f"a per-sample gradient tensor must be (B, D); got shape {tuple(g.shape)}")
            self.kind, self.keys, parts = "tensor", None, [g]
        elif isinstance(g, dict):
            self.kind, self.keys, parts = "dict", list(g), list(g.values())
        elif isinstance(g, (list, tuple)):
            self.kind, self.keys, parts = "list", None, list(g)
        else:
            raise ParameterError(f"per-sample gradients must be a tensor, list or dict; got {type(g).__name__}")
        if not parts:
            raise ParameterError("no per-sample gradient tensors")
        parts = [torch.as_tensor(p) for p in parts]
        B = parts[0].shape[0] if parts[0].dim() else -1
        if B < 0 or any(p.dim() < 1 or p.shape[0] != B for p in parts):
            raise ParameterError(f"per-sample gradients must share the batch axis; got shapes "
                                 f"{[tuple(p.shape) for p in parts]}")
        self.shapes = [tuple(p.shape[1:]) if self.kind != "tensor" else (p.shape[1],) for p in parts]
        self.sizes = [math.prod(s) for s in self.shapes]
        self.flat = torch.cat([p.reshape(B, n).to(DTYPE) for p, n in zip(parts, self.sizes)], dim=1)
        if not bool(torch.isfinite(self.flat).all()):
            bad = torch.nonzero(~torch.isfinite(self.flat).all(dim=1)).flatten().tolist()
            raise ParameterError(f"per-sample gradients of rows {bad} are not finite; refusing to clip them")

    def score_block(self, which) -> torch.Tensor:
        """The (B, pd) coordinates the trace scores use: all (None), a parameter by index, or by dict key."""
        if which is None:
            return self.flat
        if isinstance(which, str):
            if self.kind != "dict" or which not in self.keys:
                raise ParameterError(f"score_param {which!r} names no parameter (keys: {self.keys})")
            which = self.keys.index(which)
        if isinstance(which, bool) or not isinstance(which, int) or not 0 <= which < len(self.sizes):
            raise ParameterError(f"score_param {which!r} is not a parameter index in [0, {len(self.sizes)})")
        start = sum(self.sizes[:which])
        return self.flat[:, start:start + self.sizes[which]]

    def norms(self) -> torch.Tensor:
        """(B,) ‖g_i‖ over all parameters together (the clipping norm of line 10)."""
        return torch.linalg.vector_norm(self.flat, dim=1)

    @staticmethod
    def factors(norms: torch.Tensor, clips: torch.Tensor) -> torch.Tensor:
        """min(1, c_i/‖g_i‖) (line 10: g/max(1, ‖g‖/c)); 1 for a zero gradient."""
        clips = torch.as_tensor(clips, dtype=DTYPE, device=norms.device)
        safe = torch.where(norms > 0, norms, torch.ones_like(norms))
        return torch.where(norms > clips, clips / safe, torch.ones_like(norms))

    def rebuild(self, flat: torch.Tensor):
        if self.kind == "tensor":
            return flat
        parts, start = [], 0
        for shape, size in zip(self.shapes, self.sizes):
            parts.append(flat[start:start + size].reshape(shape))
            start += size
        return dict(zip(self.keys, parts)) if self.kind == "dict" else parts


# ---------------------------------------------------------------------------------------------------------------
# the fixed threshold of reading (B)

@functools.lru_cache(maxsize=256)
def default_tau(p_tail: float, d: int, k: int, sigma_tr: float = 0.0, form: str = "orthonormal") -> float:
    """A data-independent τ for reading (B) (notes §3.4 B): the (1 − p) quantile of the noisy score λ + σ_tr·Z of a
    uniformly random unit direction u under an orthonormal (d, k) V: λ = ‖Vᵀu‖² ~ Beta(k/2, (d − k)/2) (λ = 1 when
    k = d), divided by k for the averaged form. Then a gradient direction "as random as chance" is tail with
    probability p; real gradients aligned with V more often. p = 0 → +inf (no tail), p = 1 → −inf (all tail).
    (Only the threshold's independence from the data matters for privacy; this choice is a convenience.)"""
    from scipy import special

    p_tail = float(spec.FRACTION.check("p_tail", p_tail))
    k, d = check_k(k, d)
    sigma_tr = check_sigma("sigma_tr", sigma_tr)
    form = spec.PROJECTION_FORM.check("form", form)
    scale = 1.0 / k if form == "averaged" else 1.0
    if p_tail == 0.0:
        return math.inf
    if p_tail == 1.0:
        return -math.inf
    if k == d:
        return scale - sigma_tr * float(special.ndtri(p_tail))
    a, b = k / 2.0, (d - k) / 2.0
    if sigma_tr == 0.0:
        return scale * float(special.betaincinv(a, b, 1.0 - p_tail))
    from scipy import integrate, optimize

    def tail(t):  # P(λ + σZ > t) = ∫_0^1 Φ̄((t − F⁻¹(u))/σ) du
        f = lambda u: float(special.ndtr((scale * special.betaincinv(a, b, u) - t) / sigma_tr))  # noqa: E731
        return integrate.quad(f, 0.0, 1.0, limit=200, epsabs=1e-13, epsrel=1e-11)[0] - p_tail

    lo, hi = -scale - 40 * sigma_tr, 2 * scale + 40 * sigma_tr
    return float(optimize.brentq(tail, lo, hi, xtol=1e-14 * max(1.0, sigma_tr)))


# ---------------------------------------------------------------------------------------------------------------
# one step

def discriminative_step(per_sample_grads, sigma_dp: float, c1: float, c2: float, k: int = 200,
                        generator: torch.Generator | None = None, *, reading: str = "B", p_tail: float = 0.1,
                        tau: float | None = None, sigma_tr: float = 0.0, theta_v: float = 2.0,
                        form: str = "orthonormal", noise: str = "single", batch_size: float | None = None,
                        score_param=None, weibull_scale: float = 1.0, V: torch.Tensor | None = None,
                        trace_draw: torch.Tensor | None = None, grad_draw: torch.Tensor | None = None) -> StepResult:
    """One DC-DPSGD step (module docstring; seed 004 Algorithm 1 lines 6–11, L199–L205, with the selection of
    ``reading`` and the noise of ``noise``). ``per_sample_grads`` as ``Rows`` takes them (an empty batch, B = 0, is
    allowed: a Poisson batch may be empty; the noise is still added). σ_dp is relative to c1; σ_tr the trace-noise
    std; k ≤ pd (pd = the number of score coordinates); θ_V > 0; p ∈ [0, 1]; c2 ≤ c1 — one error each.
    ``batch_size`` divides the noisy sum (default: the number of rows; pass q·n for the sound normalisation).

    Randomness from ``generator`` in this order unless injected (for the numpy reference,
    dpspec.reference.dc.algorithms): V's sub-Weibull matrix and signs (``V``: a (pd, k) projection used as is), the
    B trace normals if σ_tr > 0 (``trace_draw``), the gradient normals if σ_dp > 0 — (D,) for "single", (B, D) for
    "per_sample" (``grad_draw``)."""
    rows = Rows(per_sample_grads)
    sigma_dp, sigma_tr = check_sigma("sigma_dp", sigma_dp), check_sigma("sigma_tr", sigma_tr)
    c1, c2 = check_clips(c1, c2)
    reading = spec.READING.check("reading", reading)
    p_tail = float(spec.FRACTION.check("p_tail", p_tail))
    noise = spec.STEP_NOISE.check("noise", noise)
    B, D = rows.flat.shape
    device = rows.flat.device
    if batch_size is None and B == 0:
        raise ParameterError("an empty batch has no mean: pass batch_size (the expected batch size q·n)")
    bs = float(B if batch_size is None else spec.POSITIVE.check("batch_size", batch_size))
    block = rows.score_block(score_param)
    k, pd = check_k(k, block.shape[1])
    if V is None:
        V = projection(pd, k, theta_v, generator, form=form, scale=weibull_scale, device=device)
    else:
        spec.THETA.check("theta_v", theta_v)
        V = torch.as_tensor(V, dtype=DTYPE, device=device)
        if tuple(V.shape) != (pd, k):
            raise ParameterError(f"V must have shape (pd, k) = ({pd}, {k}); got {tuple(V.shape)}")
    clean = trace_scores(V, directions(block))
    z_tr = _normals(trace_draw, (B,), generator, device, "trace_draw") if sigma_tr > 0 else None
    scores = clean + sigma_tr * z_tr if z_tr is not None else clean.clone()
    if reading == "B":
        if tau is None:
            tau = default_tau(p_tail, pd, k, sigma_tr, form)
        tau = float(tau)
        if math.isnan(tau):
            raise ParameterError("tau is NaN")
        tail, threshold = scores > tau, tau
    else:
        m = tail_count(p_tail, B)
        order = torch.argsort(scores, descending=True, stable=True)
        tail = torch.zeros(B, dtype=torch.bool, device=device)
        tail[order[:m]] = True
        threshold = (-math.inf if m >= B else math.inf if m == 0 else float(scores[order[m - 1]]))
    clips = _label_clips(tail, c1, c2)
    norms = rows.norms()
    factors = rows.factors(norms, clips)
    total = (factors.unsqueeze(1) * rows.flat).sum(0)
    if sigma_dp > 0:
        if noise == "single":
            total = total + sigma_dp * c1 * _normals(grad_draw, (D,), generator, device, "grad_draw")
        else:
            z = _normals(grad_draw, (B, D), generator, device, "grad_draw")
            total = total + sigma_dp * (clips.unsqueeze(1) * z).sum(0)
    flat_update = total / bs
    return StepResult(rows.rebuild(flat_update), total, flat_update, tail, scores, clean, norms, factors,
                      int(tail.sum()), threshold, V)


def _label_clips(tail: torch.Tensor, c1: float, c2: float) -> torch.Tensor:
    """(B,) float64 c_i = c1 on the tail, c2 on the body (built in float64: torch.where of Python floats is float32)."""
    one = torch.ones(tail.shape, dtype=DTYPE, device=tail.device)
    return torch.where(tail, c1 * one, c2 * one)


def _normals(given, shape, generator, device, name):
    if given is None:
        return torch.randn(shape, generator=generator, dtype=DTYPE, device=device)
    z = torch.as_tensor(given, dtype=DTYPE, device=device)
    if tuple(z.shape) != tuple(shape):
        raise ParameterError(f"{name} must have shape {tuple(shape)}; got {tuple(z.shape)}")
    return z


def step_function(reading: str = "B", *, sigma_dp: float, c1: float, c2: float, p_tail: float = 0.1, k: int = 200,
                  tau: float | None = None, sigma_tr: float | None = None, expected_batch: float | None = None,
                  theta_v: float = 2.0, form: str = "orthonormal", noise: str = "single"):
    """A function ``(per_sample_grads, generator) -> noisy_sum`` (D,) running ``discriminative_step`` with these
    settings (for experiments that keep their own parameters: w ← w − η·noisy_sum/(q n)). The arguments are checked
    once here (c2 ≤ c1, p ∈ [0, 1], θ_V > 0, the reading; k ≤ d at the first call); σ_tr defaults to 0 for readings
    A and B and is required for C."""
    reading = spec.READING.check("reading", reading)
    c1, c2 = check_clips(c1, c2)
    sigma_dp = check_sigma("sigma_dp", sigma_dp)
    p_tail = float(spec.FRACTION.check("p_tail", p_tail))
    spec.THETA.check("theta_v", theta_v)
    if reading == "C" and not sigma_tr:
        raise ParameterError("reading (C) releases the noisy scores: pass sigma_tr > 0")
    s_tr = 0.0 if sigma_tr is None else check_sigma("sigma_tr", sigma_tr)

    def step(per_sample_grads, generator=None) -> torch.Tensor:
        return discriminative_step(per_sample_grads, sigma_dp, c1, c2, k, generator, reading=reading, p_tail=p_tail,
                                   tau=tau, sigma_tr=s_tr, theta_v=theta_v, form=form, noise=noise,
                                   batch_size=1.0 if expected_batch is None else expected_batch).noisy_sum

    return step


# ---------------------------------------------------------------------------------------------------------------
# accounting (notes §3.4 Step 3–4)

def sigma_eff(reading: str, sigma_dp: float, c1: float, c2: float, sigma_tr: float | None = None,
              delta_tr: float = 1.0) -> float:
    """The effective SGM noise multiplier of one step under ``reading`` (notes §3.4 corrected; module docstring):
    B: σ_dp; A: σ_dp/(2 − c2/c1); C: ((Δ_tr/σ_tr)² + ((2 − c2/c1)/σ_dp)²)^{−1/2} (σ_tr > 0 required). σ_dp > 0.
    The operator's scalar view of dpspec.fast.dc.accounting.dc_sigma_eff (one formula, one set of refusals)."""
    from .accounting import dc_sigma_eff

    return float(dc_sigma_eff(reading, sigma_dp, c1, c2, sigma_tr, delta_tr=delta_tr))


def dc_epsilon_of(reading: str, q: float, steps: int, delta: float, sigma_dp: float, c1: float, c2: float,
                  sigma_tr: float | None = None, delta_tr: float = 1.0, method: str = "pld") -> float:
    """ε(δ) after ``steps`` DC-DPSGD steps at Poisson rate q under ``reading``: the σ_eff-SGM composed ``steps``
    times (notes §3.4 Step 3), through dpspec.fast.dc.accounting.dc_epsilon. 0 for steps = 0."""
    from .accounting import dc_epsilon

    sigma_eff(reading, sigma_dp, c1, c2, sigma_tr, delta_tr)  # the operator's own checks first
    steps = int(spec.NONNEGATIVE.check("steps", steps))
    if steps == 0:
        return 0.0
    return float(dc_epsilon(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr=sigma_tr, method=method,
                            delta_tr=delta_tr))


def dc_calibrate(reading: str, target_eps: float, delta: float, q: float, steps: int, c1: float, c2: float,
                 sigma_tr: float | None = None, delta_tr: float = 1.0, method: str = "rdp") -> float:
    """The smallest σ_dp (to the calibration's rtol) whose ``dc_epsilon_of`` meets (target_eps, δ): σ_eff* =
    dpspec.fast.calibrate_sigma(target, δ, q, steps) mapped back through the reading (B: σ_dp = σ_eff*, A: ×(2 −
    c2/c1), C: (2 − c2/c1)(σ_eff*⁻² − (Δ_tr/σ_tr)²)^{−1/2}), through dpspec.fast.dc.accounting.dc_calibrate_sigma
    (certified: dc_epsilon_of(result) ≤ target)."""
    from .accounting import dc_calibrate_sigma

    reading = spec.READING.check("reading", reading)
    c1, c2 = check_clips(c1, c2)
    return float(dc_calibrate_sigma(reading, target_eps, delta, q, steps, c1, c2, sigma_tr=sigma_tr, method=method,
                                    delta_tr=delta_tr))


# ---------------------------------------------------------------------------------------------------------------
# the optimizer wrapper

class DCDPSGD:
    """DC-DPSGD (seed 004 Algorithm 1, L187–L208) as an optimizer wrapper with the sound accountant (module
    docstring). ``step(per_sample_grads)`` runs lines 6–12 on one Poisson batch's per-sample gradients (a dict/list
    in parameter order, or None to read Opacus' ``p.grad_sample``), descends w ← w − lr·update, and records the step.
    Per-sample gradients: ``per_sample_gradients(model, loss_fn, x, y)`` (torch.func vmap(grad)) or Opacus'
    GradSampleModule; batches: ``poisson_sample(n, q, generator)``.

    Arguments: lr; c1 ≥ c2 > 0; sigma_dp (σ_dp, relative to c1; ``DCDPSGD.calibrate`` for a target (ε, δ));
    sample_rate q; expected_batch_size (q·n, the divisor of line 11); k (200), theta_v (2; G.1 L1796), form
    ("orthonormal" | "averaged"); reading ("B" default: threshold ``tau``, default ``default_tau(p_tail, …)``; "A",
    "C": top-⌊pB⌋); p_tail (0.1); sigma_tr (default 0 for A/B — no privacy role there —, required > 0 for C);
    noise ("single" | "per_sample": the printed form, warned: the accountant does not cover it and ``epsilon``
    refuses); score_param (which parameter the scores use; None = all); accountant (an optional
    dpspec.fast.Accountant or Opacus-like object receiving ``step(noise_multiplier=σ_eff, sample_rate=q)``; a
    dpspec.fast.dc.accounting.DcAccountant maps σ_dp → σ_eff itself, so it receives σ_dp instead, and is refused
    (ParameterError) unless its reading, c1, c2, σ_tr, Δ_tr give this optimizer's σ_eff; with noise='per_sample'
    an accountant is refused: no accountant covers that noise); generator (torch.Generator on the parameters'
    device).

    ``history`` records per step the realised batch size, n_tail and the fraction clipped: data-dependent
    statistics that the accountant does NOT cover — they are not private; do not release them."""

    def __init__(self, params: Iterable[torch.nn.Parameter], *, lr: float, c1: float, c2: float, sigma_dp: float,
                 sample_rate: float, expected_batch_size: float, k: int = 200, theta_v: float = 2.0,
                 form: str = "orthonormal", reading: str = "B", p_tail: float = 0.1, tau: float | None = None,
                 sigma_tr: float | None = None, noise: str = "single", score_param=None, accountant=None,
                 generator: torch.Generator | None = None, method: str = "pld"):
        self.params = [p for p in params if p.requires_grad]
        self.lr = check_sigma("lr", lr)
        self.c1, self.c2 = check_clips(c1, c2)
        self.sigma_dp = float(spec.POSITIVE.check("sigma_dp", sigma_dp))
        self.sample_rate = float(spec.P_Q.domain.check("sample_rate", sample_rate))
        self.expected_batch_size = float(spec.POSITIVE.check("expected_batch_size", expected_batch_size))
        self.k = spec.COUNT.check("k", k)
        self.theta_v = float(spec.THETA.check("theta_v", theta_v))
        self.form = spec.PROJECTION_FORM.check("form", form)
        self.reading = spec.READING.check("reading", reading)
        self.p_tail = float(spec.FRACTION.check("p_tail", p_tail))
        self.tau = None if tau is None else float(tau)
        if self.reading == "C" and sigma_tr is None:
            raise ParameterError("reading (C) releases the noisy scores: pass sigma_tr > 0")
        self.sigma_tr = 0.0 if sigma_tr is None else check_sigma("sigma_tr", sigma_tr)
        self.noise = spec.STEP_NOISE.check("noise", noise)
        if self.noise == "per_sample":
            warnings.warn("DCDPSGD(noise='per_sample') is Algorithm 1 line 10 as printed: with Poisson batches the "
                          "neighbours' outputs have different covariances (notes §3.2); no accountant covers it and "
                          "epsilon() refuses", UserWarning, stacklevel=2)
        self.delta_tr = 1.0 / self.k if self.form == "averaged" else 1.0
        self.sigma_eff = sigma_eff(self.reading, self.sigma_dp, self.c1, self.c2, self.sigma_tr or None,
                                   self.delta_tr)
        self.score_param, self.accountant, self.generator, self.method = score_param, accountant, generator, method
        self._accountant_sigma = self._check_accountant(accountant)
        self.steps = 0
        # (batch size, n_tail, fraction clipped) per step: data-dependent, NOT covered by the accountant (not private)
        self.history: list[tuple[int, int, float]] = []

    def _check_accountant(self, accountant) -> float:
        """The noise multiplier to pass to ``accountant.step``: σ_eff for a plain (SGM) accountant, σ_dp for a
        DcAccountant (which applies the σ_dp → σ_eff map itself; passing σ_eff would apply it twice). Refuses an
        accountant with noise='per_sample' and a DcAccountant whose map gives another σ_eff (ParameterError)."""
        if accountant is None:
            return self.sigma_eff
        if self.noise != "single":
            raise ParameterError("DCDPSGD(noise='per_sample', accountant=...): no accountant covers Algorithm 1's "
                                 "per-sample noise (notes §3.2 variance mismatch); use noise='single' or drop the "
                                 "accountant")
        from .accounting import DcAccountant

        if not isinstance(accountant, DcAccountant):
            return self.sigma_eff
        theirs = accountant._sigma_of(self.sigma_dp)
        if not math.isclose(theirs, self.sigma_eff, rel_tol=1e-12):
            raise ParameterError(f"DcAccountant(reading={accountant.reading!r}, c1={accountant.c1!r}, "
                                 f"c2={accountant.c2!r}, sigma_tr={accountant.sigma_tr!r}, delta_tr="
                                 f"{accountant.delta_tr!r}) maps sigma_dp = {self.sigma_dp:g} to σ_eff = {theirs:.6g}; "
                                 f"this optimizer's step has σ_eff = {self.sigma_eff:.6g} (reading {self.reading!r}, "
                                 f"c1 = {self.c1:g}, c2 = {self.c2:g}): construct the accountant with the same "
                                 "settings")
        return self.sigma_dp

    @classmethod
    def calibrate(cls, target_eps: float, delta: float, q: float, steps: int, c1: float, c2: float, *,
                  reading: str = "B", sigma_tr: float | None = None, form: str = "orthonormal", k: int = 200,
                  method: str = "rdp") -> float:
        """σ_dp for a target (ε, δ) after ``steps`` steps at rate q (``dc_calibrate``)."""
        delta_tr = 1.0 / spec.COUNT.check("k", k) if spec.PROJECTION_FORM.check("form", form) == "averaged" else 1.0
        return dc_calibrate(reading, target_eps, delta, q, steps, c1, c2, sigma_tr, delta_tr, method)

    def _grads(self, per_sample_grads):
        if per_sample_grads is None:
            if any(getattr(p, "grad_sample", None) is None for p in self.params):
                raise ParameterError("no per-sample gradients: pass them, or run backward() through a "
                                     "GradSampleModule")
            return [p.grad_sample for p in self.params]
        grads = list(per_sample_grads.values()) if isinstance(per_sample_grads, dict) else list(per_sample_grads)
        if len(grads) != len(self.params):
            raise ParameterError(f"{len(grads)} per-sample gradient tensors for {len(self.params)} parameters")
        return grads

    def step(self, per_sample_grads=None) -> StepResult:
        """One step of Algorithm 1 (lines 6–12) on this Poisson batch's per-sample gradients; records it."""
        result = discriminative_step(
            self._grads(per_sample_grads), self.sigma_dp, self.c1, self.c2, self.k, self.generator,
            reading=self.reading, p_tail=self.p_tail, tau=self.tau, sigma_tr=self.sigma_tr, theta_v=self.theta_v,
            form=self.form, noise=self.noise, batch_size=self.expected_batch_size, score_param=self.score_param)
        with torch.no_grad():
            for p, u in zip(self.params, result.update):
                p.add_(u.to(p.dtype), alpha=-self.lr)
        self.steps += 1
        self.history.append((int(result.tail.numel()), result.n_tail, result.fraction_clipped))  # not private
        if self.accountant is not None:  # noise == "single" here (refused at construction otherwise)
            self.accountant.step(noise_multiplier=self._accountant_sigma, sample_rate=self.sample_rate)
        return result

    def epsilon(self, delta: float, method: str | None = None) -> float:
        """ε(δ) of the steps taken so far (``dc_epsilon_of`` at σ_eff, q, steps); refused for noise='per_sample'."""
        if self.noise != "single":
            raise ParameterError("noise='per_sample' (Algorithm 1 as printed) is not covered by any accountant "
                                 "(notes §3.2 variance mismatch); use noise='single'")
        DELTA.check("delta", delta)
        return dc_epsilon_of(self.reading, self.sample_rate, self.steps, delta, self.sigma_dp, self.c1, self.c2,
                             self.sigma_tr or None, self.delta_tr, method or self.method)

    def zero_grad(self):
        """Clear ``grad`` and Opacus' ``grad_sample`` of every parameter."""
        for p in self.params:
            p.grad = None
            if hasattr(p, "grad_sample"):
                p.grad_sample = None
