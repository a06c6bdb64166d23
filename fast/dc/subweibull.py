"""Torch fast path of seed 004's sub-Weibull facts and concentration tools (Appendix A, L558–L664) and of the θ test
(notes shared/notes/dc-dpsgd.md §2-test, §4.5): float64, broadcasting, no Python loops over parameter points.

Mirrors dpspec.reference.dc.subweibull and dpspec.reference.dc.concentration: Def A.1 (4 ⇒ 1) ``tail_bound``,
Assumption 3.1's Orlicz scale ``orlicz_k`` (vectorised safeguarded Newton in log K, logsumexp, the exact bracket
[x_max/(log 2N)^θ, x_max/(log 2)^θ] — no expansion needed), Lemma A.1 ``tail_quantile``, A.2 ``sum_tail_bound``,
A.3 ``freedman_bound`` (a(θ), b(θ) with the branch boundaries θ = 1/2 and θ = 1 compared exactly in float64; E10),
A.4 ``zhang_deviation``, A.5 ``normalized_inner_lower``, A.6 ``moment_bound``, A.9 ``ahlswede_winter``; and the θ
test ``theta_weibull_plot``, ``theta_moment_slope``, ``hill_index``, ``growth_test`` on (…, N) batches of samples.
Lemmas A.7/A.8 (quadrature and root finding per point) have no fast path.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.dc import spec
from dpspec.reference.domains import DELTA
from dpspec.reference.errors import ConditionError, DomainError, ParameterError

from .._torch import as_tensor, params, refuse_outside

# ---------------------------------------------------------------------------------------------------------------
# constants of Lemmas A.2, A.3


def freedman_a(theta) -> torch.Tensor:
    """a(θ) of Lemma A.3 (seed 004 L604–L627): 2 at θ = 1/2, (4θ)^{2θ}e² on (1/2, 1], (2^{2θ+1} + 2)Γ(2θ + 1) +
    2^{3θ}Γ(3θ + 1)/3 above 1 (lgamma; overflows to inf beyond θ ≈ 57, as float64 must). θ < 1/2: ConditionError."""
    (theta,) = params(theta=(theta, spec.THETA))
    refuse_outside("dc.lemma_a3", [(spec.THETA_AT_LEAST_HALF, theta >= 0.5)])
    mid = torch.exp(2 * theta * torch.log(4 * theta) + 2)
    heavy = (torch.exp(torch.log(torch.exp2(2 * theta + 1) + 2) + torch.lgamma(2 * theta + 1))
             + torch.exp(3 * theta * math.log(2) + torch.lgamma(3 * theta + 1)) / 3)
    return torch.where(theta == 0.5, torch.full_like(theta, 2.0), torch.where(theta <= 1, mid, heavy))


def freedman_b(theta, n=None, delta=None, printed: bool = False) -> torch.Tensor:
    """b(θ) of Lemma A.3: 0 at θ = 1/2 (no b), (4θ)^θ e on (1/2, 1], 2·log^{θ−1}(n/δ) above 1 (reconstructed; printed:
    2·log(n)/δ^{θ−1}). n and δ are needed where θ > 1."""
    (theta,) = params(theta=(theta, spec.THETA))
    refuse_outside("dc.lemma_a3", [(spec.THETA_AT_LEAST_HALF, theta >= 0.5)])
    mid = torch.exp(theta * torch.log(4 * theta) + 1)
    if bool((theta > 1).any()):
        if n is None or delta is None:
            raise ParameterError("freedman_b: θ > 1 needs n and delta (b = 2·log^{θ−1}(n/δ), seed 004 L626)")
        theta, n, delta = params(theta=(theta, spec.THETA), n=(n, spec.COUNT), delta=(delta, DELTA))
        mid = torch.exp(theta * torch.log(4 * theta) + 1)
        if printed:
            heavy = 2 * torch.log(n) * torch.exp(-(theta - 1) * torch.log(delta))
        else:
            heavy = 2 * torch.exp((theta - 1) * torch.log(torch.log(n) - torch.log(delta)))
    else:
        heavy = mid
    return torch.where(theta == 0.5, torch.zeros_like(theta), torch.where(theta <= 1, mid, heavy))


def sum_constant_g(theta) -> torch.Tensor:
    """g(θ) of Lemma A.2: (4e)^θ for θ ≤ 1, 2(2eθ)^θ for θ ≥ 1."""
    (theta,) = params(theta=(theta, spec.THETA))
    return torch.where(theta <= 1, torch.exp(theta * (math.log(4) + 1)),
                       2 * torch.exp(theta * (torch.log(2 * theta) + 1)))


# ---------------------------------------------------------------------------------------------------------------
# closed forms (statements)


def tail_bound(theta, K, t) -> torch.Tensor:
    """dc.def_a1: 2exp(−(t/K)^{1/θ})."""
    theta, K, t = params(theta=(theta, spec.THETA), K=(K, spec.POSITIVE), t=(t, spec.POSITIVE))
    return 2 * torch.exp(-torch.exp((torch.log(t) - torch.log(K)) / theta))


def tail_quantile(theta, K, delta) -> torch.Tensor:
    """dc.lemma_a1: K·log^θ(2/δ)."""
    theta, K, delta = params(theta=(theta, spec.THETA), K=(K, spec.POSITIVE), delta=(delta, DELTA))
    return K * torch.exp(theta * torch.log(math.log(2) - torch.log(delta)))


def sum_tail_bound(theta, K_sum, x) -> torch.Tensor:
    """dc.lemma_a2: 2exp(−(x/(g(θ)ΣK_i))^{1/θ}) (2 at x = 0)."""
    theta, K_sum, x = params(theta=(theta, spec.THETA), K_sum=(K_sum, spec.POSITIVE), x=(x, spec.NONNEGATIVE))
    scale = sum_constant_g(theta) * K_sum
    return 2 * torch.exp(-torch.exp((torch.log(x) - torch.log(scale)) / theta))


def moment_bound(p, theta, K) -> torch.Tensor:
    """dc.lemma_a6: 2Γ(pθ + 1)K^p (log space)."""
    p, theta, K = params(p=(p, spec.POSITIVE), theta=(theta, spec.THETA), K=(K, spec.POSITIVE))
    return torch.exp(math.log(2) + torch.lgamma(p * theta + 1) + p * torch.log(K))


def freedman_condition_masks(theta, alpha_f, lam, m_max, n, delta, event, printed=False):
    """{condition name: mask} of dc.lemma_a3 (spec.THETA_AT_LEAST_HALF, A3_LAMBDA_RANGE, A3_ALPHA_RANGE)."""
    half = theta >= 0.5
    safe = torch.where(half, theta, torch.full_like(theta, 0.5))
    mid = torch.exp(safe * torch.log(4 * safe) + 1)
    if printed:
        heavy = 2 * torch.log(n) * torch.exp(-(safe - 1) * torch.log(delta))
    else:
        heavy = 2 * torch.exp((safe - 1) * torch.log(torch.log(n) - torch.log(delta)))
    b = torch.where(safe == 0.5, torch.zeros_like(safe), torch.where(safe <= 1, mid, heavy))
    bm = b * m_max
    if event == "E":
        lam_ok = _two_alpha_lam_at_most_one(alpha_f, lam)
        alpha_ok = alpha_f >= bm
    else:
        lam_ok = (bm == 0) | (lam <= 1 / torch.where(bm == 0, torch.ones_like(bm), bm))
        alpha_ok = torch.ones_like(half)
    return {spec.THETA_AT_LEAST_HALF.name: half, spec.A3_LAMBDA_RANGE.name: lam_ok | ~half,
            spec.A3_ALPHA_RANGE.name: alpha_ok | ~half}


def _two_alpha_lam_at_most_one(alpha_f: torch.Tensor, lam: torch.Tensor) -> torch.Tensor:
    """2αλ ≤ 1 decided exactly on the float64 values (as the reference does on their exact mpf values): in float64
    where the product is clearly away from 1, by exact rationals for the few elements within 1e-12 of it (a loop over
    those only: ties such as α = 50, λ = 0.01 are common)."""
    prod = 2 * alpha_f * lam
    ok = prod <= 1
    near = (prod - 1).abs() <= 1e-12
    if bool(near.any()):
        from fractions import Fraction  # noqa: PLC0415

        flat_ok = ok.clone().reshape(-1)
        for i in torch.nonzero(near.reshape(-1)).flatten().tolist():
            a, b = Fraction(alpha_f.reshape(-1)[i].item()), Fraction(lam.reshape(-1)[i].item())
            flat_ok[i] = 2 * a * b <= 1
        ok = flat_ok.reshape(ok.shape)
    return ok


_A3 = (spec.THETA_AT_LEAST_HALF, spec.A3_LAMBDA_RANGE, spec.A3_ALPHA_RANGE)


def freedman_bound(theta, x, alpha_f, beta_f, lam, m_max, n, delta, event="E", allow_outside: bool = False,
                   printed: bool = False) -> torch.Tensor:
    """dc.lemma_a3: exp(−λx + 2λ²β) (event E) or exp(−λx + λ²β/2) (event F), + 2δ where θ > 1; ConditionError
    outside the lemma's ranges (b printed with ``printed=True``) unless ``allow_outside``."""
    if event not in ("E", "F"):
        raise DomainError("event", event, spec.P_EVENT.domain.describe())
    theta, x, alpha_f, beta_f, lam, m_max, n, delta = params(
        theta=(theta, spec.THETA), x=(x, spec.NONNEGATIVE), alpha_f=(alpha_f, spec.POSITIVE),
        beta_f=(beta_f, spec.NONNEGATIVE), lam=(lam, spec.NONNEGATIVE), m_max=(m_max, spec.NONNEGATIVE),
        n=(n, spec.COUNT), delta=(delta, DELTA))
    masks = freedman_condition_masks(theta, alpha_f, lam, m_max, n, delta, event, printed)
    refuse_outside("dc.lemma_a3", [(c, masks[c.name]) for c in _A3], allow_outside)
    quad = 2 * lam**2 * beta_f if event == "E" else lam**2 * beta_f / 2
    return torch.exp(-lam * x + quad) + torch.where(theta > 1, 2 * delta, torch.zeros_like(delta))


def zhang_deviation(rho, var_sum, xi_bound, delta) -> torch.Tensor:
    """dc.lemma_a4: ρσ_n²/b + b log(1/δ)/ρ."""
    rho, var_sum, xi_bound, delta = params(rho=(rho, spec.UNIT_OPEN_CLOSED), var_sum=(var_sum, spec.NONNEGATIVE),
                                           xi_bound=(xi_bound, spec.POSITIVE), delta=(delta, DELTA))
    return rho * var_sum / xi_bound - xi_bound * torch.log(delta) / rho


def normalized_inner_lower(v_norm, dev_norm) -> torch.Tensor:
    """dc.lemma_a5: ‖v‖/3 − 8‖g − v‖/3."""
    v_norm, dev_norm = params(v_norm=(v_norm, spec.NONNEGATIVE), dev_norm=(dev_norm, spec.NONNEGATIVE))
    return v_norm / 3 - 8 * dev_norm / 3


def ahlswede_winter(d, m, mu, R) -> torch.Tensor:
    """dc.lemma_a9: 2d·exp(−mμ²/(4R))."""
    d, m, mu, R = params(d=(d, spec.DIMENSION), m=(m, spec.COUNT), mu=(mu, spec.P_MU_AW.domain),
                         R=(R, spec.AT_LEAST_ONE))
    return 2 * d * torch.exp(-m * mu**2 / (4 * R))


# ---------------------------------------------------------------------------------------------------------------
# the Orlicz scale K̂_θ and the θ test


def _sample_rows(samples) -> torch.Tensor:
    """|x| as a (…, N) tensor: an (N, 1) column (the catalogue's Points form) becomes (N,); N ≥ 1 and finite."""
    x = as_tensor(samples, name="samples")
    if x.dim() == 2 and x.shape[-1] == 1:
        x = x[:, 0]
    if x.dim() == 0 or x.shape[-1] == 0:
        raise ConditionError("dc.a3_1", [spec.SAMPLES_ONE_COLUMN.describe()])
    if not bool(torch.isfinite(x).all()):
        raise DomainError("samples", "a sample with a non-finite value", spec.SAMPLES.describe())
    return x.abs()


def _excess(logx: torch.Tensor, u: torch.Tensor, theta: torch.Tensor):
    """(log mean exp(y) − log 2, d/du) with y = exp((log x − u)/θ); logx (…, N), u and θ (…)."""
    y = torch.exp((logx - u[..., None]) / theta[..., None])
    lse = torch.logsumexp(y, dim=-1)
    w = torch.exp(y - lse[..., None])
    value = lse - math.log(logx.shape[-1]) - math.log(2)
    slope = -(w * y).sum(-1) / theta
    return value, slope


def orlicz_k(samples, theta, allow_outside: bool = True) -> torch.Tensor:
    """K̂_θ = inf{K > 0 : (1/N)Σ exp((|x_i|/K)^{1/θ}) ≤ 2} (dc.a3_1; notes §2-test step 1, §4.5) for samples (…, N)
    (or an (N, 1) column) and θ broadcasting with (…): Newton's method in u = log K safeguarded by bisection inside
    the exact bracket [log x_max − θ log log 2N, log x_max − θ log log 2], logsumexp sums; 0 for an all-zero
    sample. The θ ≥ 1/2 of Assumption 3.1 is enforced only with ``allow_outside=False`` (the θ test uses any θ > 0;
    the catalogue's fast entry is :func:`a3_1`)."""
    x = _sample_rows(samples)
    theta = as_tensor(theta, like=x, name="theta")
    theta = params(theta=(theta, spec.THETA))[0]
    if not allow_outside:
        refuse_outside("dc.a3_1", [(spec.THETA_AT_LEAST_HALF, theta >= 0.5)])
    batch = torch.broadcast_shapes(x.shape[:-1], theta.shape)
    x = x.expand(*batch, x.shape[-1])
    theta = theta.expand(batch)
    n = x.shape[-1]
    xmax = x.max(-1).values
    zero = xmax == 0
    logxmax = torch.log(torch.where(zero, torch.ones_like(xmax), xmax))
    logx = torch.log(torch.where(zero[..., None], torch.ones_like(x), x))
    lo = logxmax - theta * math.log(math.log(2 * n))
    hi = logxmax - theta * math.log(math.log(2))
    u = hi.clone()
    for _ in range(200):
        f, df = _excess(logx, u, theta)
        lo = torch.where(f > 0, u, lo)
        hi = torch.where(f <= 0, u, hi)
        newton = u - f / df
        nxt = torch.where((newton > lo) & (newton < hi), newton, (lo + hi) / 2)
        done = (nxt - u).abs() <= 4e-16 * torch.clamp(u.abs(), min=1)
        u = nxt
        if bool(done.all()) or bool(((hi - lo) <= 4e-16 * torch.clamp(hi.abs(), min=1)).all()):
            break
    return torch.where(zero, torch.zeros_like(u), torch.exp(u))


def a3_1(samples, theta, allow_outside: bool = False) -> torch.Tensor:
    """dc.a3_1's fast entry: :func:`orlicz_k` with Assumption 3.1's θ ≥ 1/2 and the one-column sample enforced."""
    x = as_tensor(samples, name="samples")
    column = x.dim() == 1 and x.shape[0] >= 1 or x.dim() == 2 and x.shape[0] >= 1 and x.shape[1] == 1
    theta_t = params(theta=(theta, spec.THETA))[0]
    refuse_outside("dc.a3_1", [(spec.THETA_AT_LEAST_HALF, theta_t >= 0.5), (spec.SAMPLES_ONE_COLUMN, column)],
                   allow_outside)
    if not column:  # allow_outside cannot give a value without a sample
        raise ConditionError("dc.a3_1", [spec.SAMPLES_ONE_COLUMN.describe()])
    return orlicz_k(x, theta_t)


def theta_weibull_plot(samples, top: float = 0.1) -> torch.Tensor:
    """θ̂ = 1/slope of log(−log Ŝ) on log t over the top fraction (Ŝ(x_(i)) = (N − i + 1/2)/N), per row of (…, N);
    mirrors dpspec.reference.dc.subweibull.theta_weibull_plot."""
    x = torch.sort(_sample_rows(samples), dim=-1).values
    n = x.shape[-1]
    k = max(int(round(top * n)), 3)
    if n < 4 or k > n:
        raise ConditionError("dc.a3_1", [spec.SAMPLES_ONE_COLUMN.describe() + " (the Weibull plot needs N ≥ 4)"])
    idx = torch.arange(n - k, n, dtype=x.dtype, device=x.device)
    tail = x[..., n - k:]
    if not bool((tail > 0).all()):
        raise DomainError("samples", "a zero in the top fraction", "a sample with a positive tail")
    s = torch.log(tail)
    y = torch.log(-torch.log((n - idx - 0.5) / n))
    sc = s - s.mean(-1, keepdim=True)
    slope = (sc * (y - y.mean())).sum(-1) / (sc**2).sum(-1)
    return 1 / slope


def theta_moment_slope(samples, num: int = 20) -> torch.Tensor:
    """The slope of log ‖X‖_{p,emp} on log p, p ∈ [1, log N] (geometric grid of ``num`` points), per row."""
    x = _sample_rows(samples)
    n = x.shape[-1]
    if n < 8:
        raise ConditionError("dc.a3_1", [spec.SAMPLES_ONE_COLUMN.describe() + " (the moment slope needs N ≥ 8)"])
    ps = torch.exp(torch.linspace(0, math.log(math.log(n)), num, dtype=x.dtype, device=x.device))
    logx = torch.log(x)
    lognorm = (torch.logsumexp(ps[:, None] * logx[..., None, :], dim=-1) - math.log(n)) / ps
    lp = torch.log(ps) - torch.log(ps).mean()
    return ((lognorm - lognorm.mean(-1, keepdim=True)) * lp).sum(-1) / (lp**2).sum()


def hill_index(samples, top: float = 0.1) -> torch.Tensor:
    """The Hill estimator α̂ over the ⌈top·N⌉ largest points, per row (mirrors the reference)."""
    x = torch.sort(_sample_rows(samples), dim=-1).values
    n = x.shape[-1]
    k = max(int(math.ceil(top * n)), 2)
    if k >= n or not bool((x[..., n - k - 1] > 0).all()):
        raise DomainError("samples", "the Hill threshold is not positive", "a sample with N > k and x_(N−k) > 0")
    gamma = torch.log(x[..., n - k:] / x[..., n - k - 1:n - k]).mean(-1)
    return 1 / gamma


def growth_test(samples, theta, sizes=None, max_slope: float = 0.5):
    """K̂_θ on nested prefixes (sizes 10³, 10⁴, … ≤ N by default) of a 1-d sample: (sizes, K̂ values, slope, flat) with
    slope the least-squares slope of log K̂ on log log N and flat = slope ≤ ``max_slope`` (notes §2-test step 2;
    mirrors dpspec.reference.dc.subweibull.growth_test)."""
    x = _sample_rows(samples)
    if x.dim() != 1:
        raise DomainError("samples", f"shape {tuple(x.shape)}", "a 1-d sample")
    n = x.shape[0]
    if sizes is None:
        sizes = [10**j for j in range(3, 12) if 10**j <= n] or [n]
    sizes = [int(s) for s in sizes]
    if any(s < 2 or s > n for s in sizes):
        raise DomainError("sizes", str(sizes), f"sizes in [2, {n}]")
    ks = torch.stack([orlicz_k(x[:s], theta) for s in sizes])
    if len(sizes) < 2 or not bool((ks > 0).all()):
        return torch.tensor(sizes), ks, 0.0, True
    ll = torch.log(torch.log(torch.tensor(sizes, dtype=ks.dtype, device=ks.device)))
    lk = torch.log(ks)
    llc = ll - ll.mean()
    slope = float((llc * (lk - lk.mean())).sum() / (llc**2).sum())
    return torch.tensor(sizes), ks, slope, slope <= max_slope
