"""Black-box privacy audit of DC-DPSGD as the authors published it (seed 004, "Clip Body and Tail Separately",
arXiv 2405.17529v1: Algorithm 1 L187–L206, Thm 5.1 L174, Claims C(2)/C(3) L954–L1058; notes
shared/notes/dc-dpsgd.md §3.2, §3.4, §4.3, errata dc.E2, dc.E4, dc.E6) — the "privacy test of the authors' algorithm as
published" of issue 19, through ``dpspec audit mechanism``.

The mechanism is ONE step of the public code (notes §4.3, helper E's ``dpspec.fast.dc.published.published_step``):
trace scores of the batch-Frobenius-normalised gradients under a fresh QR'd Exp(1) projection, noisy top-⌊pB⌋ tail
selection, clipping at c1 (tail) / c2 (body), the batch MEAN, and the code's noise
(n_tail/B)·N(0, (σc1/B)²) + (1 − n_tail/B)·N(0, (σc2/B)²) — effective multiplier ≈ 0.13σ relative to the
sensitivity c1/B of the mean (notes §3.2, dc.E6). The output released is the update direction (the code's ``p.grad``);
the parameters w − η·update are its post-processing.

The datasets (``PAIR``): D = ten zero gradients, D' = D ∪ {z} with z = (c1, 0, …): z sits exactly at the tail
clipping boundary, and the zero rows add nothing to the mean and get score 0, so z is the top score whenever its
trace noise allows (trace noise σ/B, the ResNet/ImageNette scripts' form: z is tail in ≈ 99 % of the draws) and the
whole shift c1/|D'| of the mean lies on one coordinate — the pair that maximises the mean shift per unit of the
code's noise. d = 2 coordinates (k = 2: V is a random rotation; the score of z is 1, of a zero row 0).

What the paper claims for that step, by its own recipe (notes §4.3 "Noise calibration", §2 Thm 5.1): σ is Opacus'
RDP calibration for ε/2 at the paper's (q, T, δ) (here ImageNette: ε = 8, δ = 1e-4, q = 1000/9469, T = 473 gives
σ = 2.5403, notes §2 T5.1 table), used for both components; the step on a given batch is the base mechanism M of
Claim C(2), claimed (ε_tr + ε_dp, δ)-DP with each ε the same RDP accountant's ε for ONE Gaussian step at σ (q = 1,
T = 1): ``paper_step_claim``. With subsampling (``batch`` given: a random batch of that size from the dataset, the
code's fixed-size loaders), the recipe's per-step claim is the amplified ε_tr + ε_dp at q = batch/n.

The sound variant (helper E's ``sound_step``, reading (B) of notes §3.4/§4.4: a fixed score threshold τ, ONE noise
vector N(0, σ²c1² I) on the clipped sum) at the same σ is certified by dpspec (``sound_step_certified``:
dc_epsilon reading "B", PLD upper end); its audit must stay below that.

Both black boxes are batched (``(dataset, rng, size)``): a draw-vectorised copy of E's step functions
(``published_draws`` / ``sound_draws``), equal to them draw by draw on injected randomness
(tests/dc/test_dc_audit.py checks it to 1e-12 on random gradients). ``python -m dpspec.conformance.audit.dc_published``
prints the report; the command-line form is in ``cli_example``.
"""
from __future__ import annotations

import json
import functools
from dataclasses import dataclass

import numpy as np
import torch

DTYPE = torch.float64
SUB_CHUNK = 1 << 16  # draws per vectorised block (bounded memory: SUB_CHUNK × B × d doubles)


@dataclass(frozen=True)
class Setting:
    """One audit configuration: the paper's recipe (which (ε, δ, q, T) calibrated σ) and the step's knobs."""
    name: str = "imagenette"
    eps_total: float = 8.0     # the paper's claimed (ε_tr + ε_dp) for the whole run
    delta: float = 1e-4        # ImageNette's δ (seed 004 G.1; notes §2)
    q: float = 1000 / 9469     # B/n of ImageNette (notes §2 T5.1 table)
    steps: int = 473           # 50 epochs (notes §5.6)
    sigma: float = 2.5403      # calibrate_sigma(ε/2 = 4, 1e-4, q, T, method="rdp") (notes §2 T5.1 table)
    c1: float = 1.0
    c2: float = 0.1            # c1 = 10·c2 (the paper's default; ImageNette's 1.5/0.15 has the same ratio)
    p_tail: float = 0.1
    k: int = 2
    trace_noise: str = "sigma_over_B"  # the ResNet9/ImageNette scripts (notes §4.3); "sigma" is the CNN one
    tau: float = 0.5           # the sound step's fixed threshold (scores are 1 for z, 0 for a zero row: k = d)


SETTING = Setting()
ROWS, DIM = 10, 2


def pair(setting: Setting = SETTING, rows: int = ROWS, dim: int = DIM) -> tuple[list, list]:
    """(D, D'): ``rows`` zero gradients, and the same plus z = (c1, 0, …, 0) (module docstring)."""
    d0 = [[0.0] * dim for _ in range(rows)]
    z = [float(setting.c1)] + [0.0] * (dim - 1)
    return d0, d0 + [z]


PAIR = pair()


# ---------------------------------------------------------------------------------------------------------------
# the two steps, vectorised over independent draws (E's published_step / sound_step on each draw)


def _grads(dataset) -> torch.Tensor:
    g = torch.as_tensor(np.asarray(dataset, dtype=np.float64), dtype=DTYPE)
    if g.dim() != 2:
        raise ValueError(f"a dataset is a list of per-sample gradient vectors (B × d); got shape {tuple(g.shape)}")
    return g


def _exp_projection(R: int, pd: int, k: int, theta_v: float, scale: float, symmetric: bool,
                    gen: torch.Generator) -> torch.Tensor:
    """(R, pd, k) independent copies of dpspec.fast.dc.projection's orthonormalise(subweibull_matrix(...)): entries
    s·λ·E^θ (E ~ Exp(1); s a sign when ``symmetric``), QR with diag(R) > 0."""
    u = 1.0 - torch.rand((R, pd, k), generator=gen, dtype=DTYPE)
    w = scale * torch.pow(-torch.log(u), theta_v)
    if symmetric:
        w = w * (torch.randint(0, 2, (R, pd, k), generator=gen).to(DTYPE) * 2.0 - 1.0)
    qm, r = torch.linalg.qr(w, mode="reduced")
    return qm * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)


def _factors(norms: torch.Tensor, clips: torch.Tensor) -> torch.Tensor:
    """min(1, c/‖g‖), 1 for a zero row (fast.dc.training.Rows.factors)."""
    safe = torch.where(norms > 0, norms, torch.ones_like(norms))
    return torch.where(norms > clips, clips / safe, torch.ones_like(norms))


def published_draws(grads, sigma: float, c1: float, c2: float, p_tail: float, k: int, R: int,
                    gen: torch.Generator | None = None, *, trace_noise: str = "sigma", theta_v: float = 1.0,
                    weibull_scale: float = 1.0, V=None, trace_draw=None, grad_draw=None) -> torch.Tensor:
    """(R, d): R independent outputs (``update``, the noisy mean) of ``published_step(grads, sigma, c1, c2, p_tail, k,
    trace_noise=..., score_param=None)`` (notes §4.3). Injection as E's, with a leading draw axis: V (R, pd, k),
    trace_draw (R, B), grad_draw = (tail (R, d), body (R, d))."""
    from dpspec.fast.dc.training import check_clips, check_sigma, tail_count

    g = _grads(grads)
    sigma = check_sigma("sigma", sigma)
    c1, c2 = check_clips(c1, c2)
    B, D = g.shape
    if B == 0:
        raise ValueError("the public code's step needs a non-empty batch")
    if V is None:
        V = _exp_projection(R, D, k, theta_v, weibull_scale, False, gen)
    fro = torch.linalg.vector_norm(g)
    u = (g / fro if fro > 0 else torch.zeros_like(g)).abs()
    clean = torch.einsum("bd,rdk->rbk", u, torch.as_tensor(V, dtype=DTYPE)).pow(2).sum(-1)  # (R, B)
    std_tr = sigma if trace_noise == "sigma" else sigma / B
    z_tr = torch.randn((R, B), generator=gen, dtype=DTYPE) if trace_draw is None else torch.as_tensor(trace_draw)
    scores = clean + std_tr * z_tr
    m = tail_count(p_tail, B)
    if m >= B:
        tail = torch.ones((R, B), dtype=torch.bool)
    else:
        thr = torch.sort(scores, dim=1, descending=True).values[:, m:m + 1]
        tail = (scores > thr) | (scores == 0)
    one = torch.ones((R, B), dtype=DTYPE)
    clips = torch.where(tail, c1 * one, c2 * one)
    f = _factors(torch.linalg.vector_norm(g, dim=1).expand(R, B), clips)
    mean = f @ g / B  # (R, D)
    if grad_draw is None:
        z_tail = torch.randn((R, D), generator=gen, dtype=DTYPE)
        z_body = torch.randn((R, D), generator=gen, dtype=DTYPE)
    else:
        z_tail, z_body = (torch.as_tensor(z, dtype=DTYPE) for z in grad_draw)
    w = tail.sum(1, keepdim=True).to(DTYPE) / B
    return mean + w * (sigma * c1 / B) * z_tail + (1.0 - w) * (sigma * c2 / B) * z_body


def sound_draws(grads, sigma: float, c1: float, c2: float, p_tail: float, k: int, R: int,
                gen: torch.Generator | None = None, *, tau: float, batch_size: float, theta_v: float = 2.0,
                V=None, grad_draw=None) -> torch.Tensor:
    """(R, d): R independent outputs (``update`` = noisy clipped sum / batch_size) of ``sound_step(grads, sigma, c1,
    c2, p_tail, k, tau=tau, sigma_tr=0, batch_size=batch_size)`` (reading (B), notes §3.4/§4.4; σ_tr = 0: the trace
    noise has no privacy role there). Injection: V (R, pd, k), grad_draw (R, d)."""
    from dpspec.fast.dc.training import check_clips, check_sigma

    g = _grads(grads)
    sigma = check_sigma("sigma", sigma)
    c1, c2 = check_clips(c1, c2)
    B, D = g.shape
    if V is None:
        V = _exp_projection(R, D, k, theta_v, 1.0, True, gen)
    norms = torch.linalg.vector_norm(g, dim=1, keepdim=True)
    dirs = torch.where(norms > 0, g / torch.where(norms > 0, norms, torch.ones_like(norms)), torch.zeros_like(g))
    scores = torch.einsum("bd,rdk->rbk", dirs, torch.as_tensor(V, dtype=DTYPE)).pow(2).sum(-1)
    one = torch.ones((R, B), dtype=DTYPE)
    clips = torch.where(scores > float(tau), c1 * one, c2 * one)
    total = _factors(norms.squeeze(1).expand(R, B), clips) @ g
    z = torch.randn((R, D), generator=gen, dtype=DTYPE) if grad_draw is None else torch.as_tensor(grad_draw)
    return (total + sigma * c1 * z) / float(batch_size)


# ---------------------------------------------------------------------------------------------------------------
# the black boxes of `dpspec audit mechanism` (batched: (dataset, rng, size))


def _seed(rng: np.random.Generator) -> torch.Generator:
    return torch.Generator().manual_seed(int(rng.integers(0, 2**62)))


def _batches(g: torch.Tensor, batch: int | None, R: int, gen: torch.Generator) -> list[tuple[torch.Tensor, int]]:
    """The batches of R draws: the whole dataset (batch None), or a uniformly random ``batch``-subset per draw (the
    code's shuffled fixed-size loaders, notes §4.3), grouped by composition (rows are identified by content, so the
    draws with equal batches share one vectorised call)."""
    if batch is None or batch >= len(g):
        return [(g, R)]
    _, content = torch.unique(g, dim=0, return_inverse=True)  # equal rows are interchangeable
    idx = torch.rand((R, len(g)), generator=gen).argsort(dim=1)[:, :batch]
    keys = content[idx].sort(dim=1).values
    uniq, first, counts = _unique_rows(keys)
    return [(g[idx[i]], int(c)) for i, c in zip(first, counts)]


def _unique_rows(keys: torch.Tensor) -> tuple[torch.Tensor, list[int], list[int]]:
    """The distinct rows of ``keys``, the index of each one's first occurrence, and their counts."""
    uniq, inverse, counts = torch.unique(keys, dim=0, return_inverse=True, return_counts=True)
    first = torch.full((len(uniq),), len(keys), dtype=torch.long).scatter_reduce(
        0, inverse, torch.arange(len(keys)), reduce="amin")
    return uniq, first.tolist(), counts.tolist()


def published_mechanism(setting: Setting = SETTING, batch: int | None = None):
    """A batched black box: ``size`` outputs of one public-code step at ``setting`` on ``dataset`` (or on a random
    ``batch``-subset of it per draw)."""

    def release(dataset, rng, size):
        g, gen = _grads(dataset), _seed(rng)
        out = []
        for start in range(0, size, SUB_CHUNK):
            R = min(SUB_CHUNK, size - start)
            parts = [published_draws(b, setting.sigma, setting.c1, setting.c2, setting.p_tail, setting.k, r, gen,
                                     trace_noise=setting.trace_noise) for b, r in _batches(g, batch, R, gen)]
            block = torch.cat(parts)
            out.append(block[torch.randperm(R, generator=gen)])
        return torch.cat(out).numpy()

    return release


def sound_mechanism(setting: Setting = SETTING, batch: int | None = None, batch_size: float = ROWS):
    """A batched black box: ``size`` outputs of the sound step (reading B) at ``setting``; ``batch_size`` is the fixed
    divisor (data-independent: the release is the noisy sum up to a public constant)."""

    def release(dataset, rng, size):
        g, gen = _grads(dataset), _seed(rng)
        out = []
        for start in range(0, size, SUB_CHUNK):
            R = min(SUB_CHUNK, size - start)
            parts = [sound_draws(b, setting.sigma, setting.c1, setting.c2, setting.p_tail, setting.k, r, gen,
                                 tau=setting.tau, batch_size=batch_size) for b, r in _batches(g, batch, R, gen)]
            out.append(torch.cat(parts)[torch.randperm(R, generator=gen)])
        return torch.cat(out).numpy()

    return release


published_release = published_mechanism()  # `dpspec audit mechanism dpspec.conformance.audit.dc_published:...`
sound_release = sound_mechanism()


# ---------------------------------------------------------------------------------------------------------------
# claims


@functools.lru_cache(maxsize=32)
def paper_step_claim(setting: Setting = SETTING, q: float = 1.0) -> tuple[float, float]:
    """(ε, δ) the paper's recipe claims for ONE step at sampling rate q (q = 1: the step on a given batch, the base
    mechanism of Claim C(2)): ε_tr + ε_dp with each the RDP accountant's ε(δ) of one Poisson-subsampled Gaussian step
    at (q, σ) (dpspec.fast.dc.accounting.paper_claimed_epsilon with steps = 1; the recipe calibrates through Opacus'
    RDP accountant, notes §4.3), δ as the paper states it (Thm 5.1: δ, not δ_tr + δ_dp)."""
    from dpspec.fast.dc.accounting import paper_claimed_epsilon

    return float(paper_claimed_epsilon(q, 1, setting.delta, setting.sigma, setting.sigma)), setting.delta


def recipe_sigma_check(setting: Setting = SETTING) -> float:
    """ε(δ) of T SGM steps at (q, σ) by RDP: ≈ ε_total/2 when σ is the recipe's calibration (the T5.1 table value)."""
    from dpspec.fast.accountant import sgm_epsilon

    return float(sgm_epsilon(setting.sigma, setting.q, setting.steps, setting.delta))


@functools.lru_cache(maxsize=32)
def sound_step_certified(setting: Setting = SETTING, q: float = 1.0) -> float:
    """dpspec's certified ε(δ) of one sound step (reading B, σ_eff = σ) at rate q: dc_epsilon, PLD upper end."""
    from dpspec.fast.dc.accounting import dc_epsilon

    return float(dc_epsilon("B", q, 1, setting.delta, setting.sigma, setting.c1, setting.c2))


def cli_example(setting: Setting = SETTING, which: str = "published", n_select: int = 20_000,
                n_estimate: int = 200_000) -> list[str]:
    """The ``dpspec audit mechanism`` arguments that audit ``which`` against its claim (the paper's per-step claim for
    the published step, dpspec's certificate for the sound one)."""
    d0, d1 = pair(setting)
    claim = paper_step_claim(setting)[0] if which == "published" else sound_step_certified(setting)
    return ["audit", "mechanism", f"dpspec.conformance.audit.dc_published:{which}_release", "--d0", json.dumps(d0),
            "--d1", json.dumps(d1), "--claim", f"{claim:.6g}", "--delta", f"{setting.delta:g}", "--family",
            "gaussian", "--n-select", str(n_select), "--n-estimate", str(n_estimate)]


def audit(setting: Setting = SETTING, *, batch: int | None = None, rows: int = ROWS, n_select: int = 20_000,
          n_estimate: int = 200_000, seed: int = 0, confidence: float = 0.95) -> dict:
    """Both audits at ``setting``: the published step against the paper's per-step claim, the sound step against
    dpspec's certificate. ``batch``: a random batch of that size per draw from ``rows`` zero rows (+ z), the claims
    then at q = batch/rows (resp. batch/(rows + 1) for D' — the code's loaders; the recipe's q is batch/n)."""
    from .mechanisms import audit_mechanism

    d0, d1 = pair(setting, rows)
    q = 1.0 if batch is None else batch / rows
    claim_eps, claim_delta = paper_step_claim(setting, q)
    cert = sound_step_certified(setting, q)
    bs = rows if batch is None else batch
    pub = audit_mechanism(published_mechanism(setting, batch), d0, d1, claim_eps, claim_delta, family="gaussian",
                          n_select=n_select, n_estimate=n_estimate, confidence=confidence, seed=seed)
    snd = audit_mechanism(sound_mechanism(setting, batch, bs), d0, d1, cert, setting.delta, family="gaussian",
                          n_select=n_select, n_estimate=n_estimate, confidence=confidence, seed=seed)
    return {"setting": setting.name, "sigma": setting.sigma, "q": q, "delta": setting.delta,
            "paper_total_claim": setting.eps_total, "paper_step_claim": claim_eps,
            "published_lower_bound": pub.eps_lower_bound, "published_verdict": pub.verdict,
            "sound_certified": cert, "sound_lower_bound": snd.eps_lower_bound, "sound_verdict": snd.verdict,
            "confidence": confidence, "n_select": n_select, "n_estimate": n_estimate, "seed": seed,
            "published": pub.to_json(), "sound": snd.to_json()}


def report(result: dict) -> str:
    """A short human-readable summary of ``audit``'s result."""
    return "\n".join([
        f"DC-DPSGD one-step audit (seed 004; {result['setting']}: σ = {result['sigma']:g} from the paper's recipe, "
        f"q = {result['q']:.4g}, δ = {result['delta']:g}; confidence {result['confidence']}, "
        f"{result['n_estimate']} estimation draws per dataset)",
        f"  public code's step:  ε ≥ {result['published_lower_bound']:.3f}  vs the paper's claim for this step "
        f"{result['paper_step_claim']:.3f} (whole run: {result['paper_total_claim']:g})  → "
        f"{result['published_verdict']}",
        f"  sound step (B):      ε ≥ {result['sound_lower_bound']:.3f}  vs dpspec's certificate "
        f"{result['sound_certified']:.3f}  → {result['sound_verdict']}"])


if __name__ == "__main__":  # pragma: no cover - a convenience
    print(report(audit()))
