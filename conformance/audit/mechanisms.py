"""Black-box mechanism audits: a callable maps a dataset to an output (a number or an array); dpspec samples it on
two neighbouring datasets and returns an empirical **lower bound** on ε at the claimed δ, valid with confidence
1 − β, or checks an f-DP claim through empirical trade-off points with simultaneous bands.

Method (auditing notes §3.2–3.3, §3.6; the DP-Sniper / Jagielski et al. split-sample pattern):

1. *Selection sample* (n_select draws per dataset): choose the attack — a score s(o) and an event
   S = {s(o) > t} — and which dataset plays "a" (ε_LB is computed for P_a(S) ≤ e^ε P_b(S) + δ, both orders
   tried). The score is the log-likelihood ratio of the declared family fitted on this sample (``family`` =
   "gaussian": a linear score from the fitted means and pooled variance; "laplace": the difference of absolute
   deviations from the fitted medians over the fitted scale), otherwise a threshold on the projection onto the
   difference of the sample means. The event maximises the ε lower bound predicted for the estimation sample
   (``_best_event``): thresholds between distinct scores (uniform and tail-geometric ranks; never between scores
   that differ only by rounding), and for ``family="gaussian"`` thresholds beyond the sample from normal fits of
   the scores (tail-targeted: the events of claims at δ ≈ 1e-5..1e-7). The Laplace score is exactly constant on
   its flat tails (``fit_score``).
2. *Estimation sample* (fresh n_estimate draws per dataset): counts k_a, k_b of S; Clopper–Pearson bounds
   p_a ≥ lcb(β/2), p_b ≤ ucb(β/2) (union bound) and ε_LB = log((lcb − δ)/ucb) (0 when lcb ≤ δ). Because the
   attack was fixed before these draws, ε_LB ≤ ε(δ) of the mechanism with probability ≥ 1 − β.
3. Verdict: ``violation`` when ε_LB > claimed ε, else ``consistent`` (with the gap).

f-DP claims (``audit_tradeoff``): on the estimation sample, the empirical type-I/II errors α̂(t) = P̂_0[s > t],
β̂(t) = P̂_1[s ≤ t] of every threshold get two-sided DKW–Massart bands of half-width √(ln(4/β)/(2n)) per sample
(Massart 1990; union bound over the two samples), simultaneous in t. A threshold with
β̂(t) + w < f(min(1, α̂(t) + w)) contradicts the claim T(P_0, P_1) ≥ f (f non-increasing), and likewise with the
roles of the datasets swapped.

The callable takes ``(dataset)`` or ``(dataset, rng)``; with the second form it receives a seeded
``numpy.random.Generator`` and the audit is reproducible. A batched callable ``(dataset, rng, size)`` returns
``size`` outputs at once; its default sample sizes are 10⁵ + 10⁷ per dataset (``DEFAULT_SIZES``), drawn in chunks.
"""
from __future__ import annotations

import inspect
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from scipy import stats

FAMILIES = (None, "gaussian", "laplace")
MIN_EVENT_COUNT = 10  # events rarer than this (selection outputs; predicted estimation outputs for the tail fit)
#                       are not chosen (plug-in too noisy)
ROUNDING_RTOL = 1e-9  # scores closer than this (relative) differ by rounding: no threshold between them
CHUNK = 1 << 20  # outputs per call of a batched mechanism (bounded memory for large estimation samples)
DEFAULT_SIZES = {False: (4000, 10_000), True: (100_000, 10_000_000)}  # (n_select, n_estimate): per call, batched


# ---------------------------------------------------------------------------------------------------------
# Statistics


def clopper_pearson(k: int, n: int, beta: float) -> tuple[float, float]:
    """One-sided Clopper–Pearson bounds at level β each: (lower, upper) for a binomial proportion."""
    lo = 0.0 if k == 0 else float(stats.beta.ppf(beta, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - beta, k + 1, n - k))
    return lo, hi


def eps_lower_bound(k_a: int, k_b: int, n_a: int, n_b: int, delta: float, beta: float) -> float:
    """ε_LB = log((p_a^lcb − δ)/p_b^ucb), each bound at β/2; 0 when nothing can be certified."""
    lo_a, _ = clopper_pearson(k_a, n_a, beta / 2)
    _, hi_b = clopper_pearson(k_b, n_b, beta / 2)
    if lo_a <= delta:
        return 0.0
    return max(0.0, math.log((lo_a - delta) / hi_b))


def dkw_halfwidth(n: int, beta: float) -> float:
    """Two-sided DKW–Massart band half-width for an ECDF of n points at level β: √(ln(2/β)/(2n))."""
    return math.sqrt(math.log(2 / beta) / (2 * n))


# ---------------------------------------------------------------------------------------------------------
# Sampling and scores


def load_callable(spec: str) -> Callable:
    """``module:callable`` (e.g. ``mypkg.mech:release``), the module searched in the current directory first
    (loading.load_object)."""
    from .loading import load_object

    obj = load_object(spec, "CALLABLE")
    if not callable(obj):
        raise TypeError(f"{spec} is not callable")
    return obj


def check_options(*, claim_eps: float | None = None, claim_delta: float | None = None, mu: float | None = None,
                  confidence: float | None = None, seed: int | None = None, family: str | None = None,
                  n_select: int | None = None, n_estimate: int | None = None) -> None:
    """Refuse a bad option before any sampling, with a DomainError naming it: ε and μ finite and ≥ 0, δ in
    [0, 1), confidence in (0, 1), seed an integer ≥ 0, sample sizes integers ≥ 2 (None: not given)."""
    from dpspec.reference.domains import Choice, Integer, Real
    from dpspec.reference.errors import DomainError

    def integer(name: str, value, lo: int) -> None:
        if value is not None and (isinstance(value, bool) or not Integer(lo).contains(value)):
            raise DomainError(name, value, Integer(lo).describe())

    checks = (("claim_eps", claim_eps, Real(0, math.inf, lo_open=False)),
              ("claim_delta", claim_delta, Real(0, 1, lo_open=False, hi_open=True)),
              ("mu", mu, Real(0, math.inf, lo_open=False)),
              ("confidence", confidence, Real(0, 1)))
    for name, value, domain in checks:
        if value is not None:
            domain.check(name, value)
    integer("seed", seed, 0)
    integer("n_select", n_select, 2)
    integer("n_estimate", n_estimate, 2)
    if family is not None:
        Choice(tuple(f for f in FAMILIES if f)).check("family", family)


def _params(fn: Callable) -> list[str]:
    try:
        return [p.name for p in inspect.signature(fn).parameters.values()
                if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        return []


def _takes_rng(fn: Callable) -> bool:
    return len(_params(fn)) >= 2


def is_batched(fn: Callable) -> bool:
    """A batched mechanism takes ``(dataset, rng, size)`` (a third parameter named ``size``) and returns ``size``
    outputs at once: an array of shape (size,) or (size, k)."""
    params = _params(fn)
    return len(params) >= 3 and params[2] == "size"


def sample_outputs(mechanism: Callable, dataset: Any, n: int, rng: np.random.Generator) -> np.ndarray:
    """n outputs as an (n, k) float array (scalars give k = 1); a batched mechanism is called once."""
    if is_batched(mechanism):
        out = np.asarray(mechanism(dataset, rng, n), dtype=np.float64)
        out = out.reshape(n, 1) if out.shape == (n,) else out
        if out.ndim != 2 or out.shape[0] != n:
            raise ValueError(f"a batched mechanism must return {n} outputs (shape ({n},) or ({n}, k)); "
                             f"got shape {np.shape(out)}")
    else:
        call = (lambda: mechanism(dataset, rng)) if _takes_rng(mechanism) else (lambda: mechanism(dataset))
        out = np.array([np.asarray(call(), dtype=np.float64).ravel() for _ in range(n)])
    if out.ndim != 2 or not np.isfinite(out).all():
        raise ValueError("the mechanism must return finite numbers or arrays of a fixed shape")
    return out


def count_event(mechanism: Callable, dataset: Any, n: int, rng: np.random.Generator,
                hit: Callable[[np.ndarray], np.ndarray]) -> int:
    """How many of n fresh outputs fall in the event, drawn in chunks of at most CHUNK (bounded memory)."""
    k, done = 0, 0
    while done < n:
        m = min(CHUNK, n - done)
        k += int(hit(sample_outputs(mechanism, dataset, m, rng)).sum())
        done += m
    return k


def fit_score(x0: np.ndarray, x1: np.ndarray, family: str | None) -> tuple[Callable[[np.ndarray], np.ndarray], str]:
    """A score that is large on outputs typical of dataset 0, fitted on the selection sample only.

    The Laplace log-likelihood ratio Σ_j (|x_j − m1_j| − |x_j − m0_j|)/b is computed on x_j clipped to
    [min(m0_j, m1_j), max(m0_j, m1_j)] (the same function: it is constant outside that interval). On its flat tails
    every output then gets exactly the same score, and inside it the floating-point score is monotone in each x_j.
    Unclipped, the tails were constant only up to rounding, and the rounding pattern of fl(|x − m1|) − fl(|x − m0|)
    differs between the outputs fl(3 + L) and fl(0 + L) (their floats are spaced differently), so a threshold on
    the flat tail made an event of the low-order bits of the output (issue 12: the README example reported
    ε ≥ 3.934 for a sum + Laplace(1) whose ε is 3; such events are real for floating-point Laplace, Mironov 2012,
    but they are not the declared family's likelihood ratio that this score stands for)."""
    if family not in FAMILIES:
        raise ValueError(f"family={family!r} not in {FAMILIES}")
    if family == "laplace":
        m0, m1 = np.median(x0, axis=0), np.median(x1, axis=0)
        b = max(float(np.mean(np.abs(np.concatenate([x0 - m0, x1 - m1])))), 1e-300)
        lo, hi = np.minimum(m0, m1), np.maximum(m0, m1)

        def laplace_llr(x: np.ndarray) -> np.ndarray:
            y = np.clip(x, lo, hi)
            return (np.abs(y - m1) - np.abs(y - m0)).sum(axis=1) / b

        return laplace_llr, "laplace log-likelihood ratio"
    m0, m1 = x0.mean(axis=0), x1.mean(axis=0)
    if family == "gaussian":
        var = np.maximum(np.concatenate([x0 - m0, x1 - m1]).var(axis=0), 1e-300)
        w = (m0 - m1) / var
        return (lambda x: (x - (m0 + m1) / 2) @ w), "gaussian log-likelihood ratio"
    d = m0 - m1
    d = d if np.any(d != 0) else np.ones_like(d)
    return (lambda x: x @ d), "threshold on the projection onto the mean difference"


def _candidate_thresholds(s: np.ndarray) -> np.ndarray:
    """Thresholds between distinct selection scores, at ranks spread uniformly (401) and geometrically towards both
    tails (down to MIN_EVENT_COUNT outputs), so that rare events are candidates too. A threshold is placed only in
    a gap wider than ROUNDING_RTOL·(1 + max |s|) between neighbouring distinct scores: scores closer than that
    differ by rounding, and an event must not separate them."""
    u = np.unique(s)
    if len(u) < 2:
        return u[:0]
    tol = ROUNDING_RTOL * (1.0 + float(np.max(np.abs(u))))
    gaps = np.diff(u)
    keep = np.flatnonzero(gaps > tol)
    if len(keep) == 0:
        return u[:0]
    mids = u[keep] + gaps[keep] / 2  # cuts between u[i] and u[i + 1]
    ranks = np.searchsorted(np.sort(s), mids, side="right")  # outputs at or below each cut (increasing)
    n = len(s)
    tail = np.geomspace(MIN_EVENT_COUNT, max(MIN_EVENT_COUNT, n / 2), 200)
    want = np.concatenate([np.linspace(0, n, 401), tail, n - tail])
    idx = np.unique(np.clip(np.searchsorted(ranks, want), 0, len(mids) - 1))
    return mids[idx]


def _cp_bounds(k, n, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper–Pearson (lower, upper) at level β each, for arrays of counts (as clopper_pearson)."""
    k = np.asarray(k, dtype=np.float64)
    with np.errstate(all="ignore"):
        lo = np.where(k > 0, stats.beta.ppf(beta, np.maximum(k, 1), n - k + 1), 0.0)
        hi = np.where(k < n, stats.beta.ppf(1 - beta, k + 1, np.maximum(n - k, 1)), 1.0)
    return np.nan_to_num(lo, nan=0.0), np.nan_to_num(hi, nan=1.0)


def _predicted_lb(p_a, p_b, n: int, delta: float, beta: float) -> np.ndarray:
    """The ε lower bound (eps_lower_bound) that counts n·p_a, n·p_b out of n draws per dataset would give."""
    lo_a, _ = _cp_bounds(np.floor(np.clip(p_a, 0, 1) * n), n, beta / 2)
    _, hi_b = _cp_bounds(np.ceil(np.clip(p_b, 0, 1) * n), n, beta / 2)
    with np.errstate(all="ignore"):
        out = np.where(lo_a > delta, np.log(np.maximum(lo_a - delta, 1e-300) / hi_b), 0.0)
    return np.maximum(np.nan_to_num(out, nan=0.0, neginf=0.0), 0.0)


def _best_event(s0: np.ndarray, s1: np.ndarray, delta: float, beta: float, n_estimate: int | None = None,
                gaussian_tail: bool = False) -> dict[str, Any]:
    """On the selection sample: the threshold, side and order whose ε lower bound is predicted largest for an
    estimation sample of n_estimate draws per dataset (default: the selection size).

    * Empirical candidates (``_candidate_thresholds``; at least MIN_EVENT_COUNT selection outputs in the event):
      the prediction scales the selection sample's pessimistic Clopper–Pearson ends (lower for the numerator,
      upper for the denominator, each at β/2) to n_estimate, so events that only look good by chance lose.
    * Tail-targeted candidates (``gaussian_tail``, when the declared family is Gaussian): normal laws fitted to
      each dataset's selection scores predict the probabilities of thresholds beyond the selection sample (±8 sd,
      4001 points), in the tails where the events of (ε, δ) claims at δ ≈ 1e-5..1e-7 lie; an event must have at
      least MIN_EVENT_COUNT predicted estimation outputs.

    Only the choice of the attack uses these predictions; the bound reported comes from the fresh estimation
    sample, so a wrong prediction costs power, never validity."""
    n0, n1 = len(s0), len(s1)
    n_est = int(n_estimate or min(n0, n1))
    best: dict[str, Any] = {"eps": -math.inf}

    def consider(ts, pa, pb, side, a, how):
        nonlocal best
        e = np.where(np.asarray(pa) * n_est >= MIN_EVENT_COUNT, _predicted_lb(pa, pb, n_est, delta, beta), -np.inf)
        if len(e) and np.max(e) > best["eps"]:
            i = int(np.argmax(e))
            best = {"eps": float(e[i]), "threshold": float(ts[i]), "side": side, "a": a, "how": how}

    ts = _candidate_thresholds(np.concatenate([s0, s1]))
    if len(ts):
        k0 = n0 - np.searchsorted(np.sort(s0), ts, side="right")  # selection outputs with s > t
        k1 = n1 - np.searchsorted(np.sort(s1), ts, side="right")
        for side, c0, c1 in ((">", k0, k1), ("<=", n0 - k0, n1 - k1)):
            for a, ka, na, kb, nb in (("d0", c0, n0, c1, n1), ("d1", c1, n1, c0, n0)):
                lo_a, _ = _cp_bounds(ka, na, beta / 2)
                _, hi_b = _cp_bounds(kb, nb, beta / 2)
                lo_a = np.where(ka >= MIN_EVENT_COUNT, lo_a, 0.0)
                consider(ts, lo_a, hi_b, side, a, "empirical")
    if gaussian_tail:
        mu0, sd0, mu1, sd1 = float(s0.mean()), float(s0.std()), float(s1.mean()), float(s1.std())
        if sd0 > 0 and sd1 > 0:
            tg = np.linspace(min(mu0 - 8 * sd0, mu1 - 8 * sd1), max(mu0 + 8 * sd0, mu1 + 8 * sd1), 4001)
            g0, g1 = stats.norm.sf(tg, mu0, sd0), stats.norm.sf(tg, mu1, sd1)
            for side, p0, p1 in ((">", g0, g1), ("<=", stats.norm.cdf(tg, mu0, sd0), stats.norm.cdf(tg, mu1, sd1))):
                consider(tg, p0, p1, side, "d0", "gaussian tail fit")
                consider(tg, p1, p0, side, "d1", "gaussian tail fit")
    return best


# ---------------------------------------------------------------------------------------------------------
# (ε, δ) audit


@dataclass
class MechanismAudit:
    claim_eps: float
    claim_delta: float
    eps_lower_bound: float
    confidence: float
    verdict: str  # "violation" | "consistent"
    attack: dict[str, Any]
    counts: dict[str, int]
    n_select: int
    n_estimate: int
    seed: int
    family: str | None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def audit_mechanism(mechanism: Callable, d0: Any, d1: Any, claim_eps: float, claim_delta: float = 0.0, *,
                    family: str | None = None, n_select: int | None = None, n_estimate: int | None = None,
                    confidence: float = 0.95, seed: int = 0) -> MechanismAudit:
    """Empirical lower bound on ε(δ = claim_delta) of ``mechanism`` on the neighbours (d0, d1), and a verdict.
    Sample sizes default to DEFAULT_SIZES: 4000 + 10⁴ per dataset for a mechanism called once per output,
    10⁵ + 10⁷ for a batched one (``is_batched``), which is what events of probability 1e-5..1e-7 need (a Gaussian
    mechanism claimed (ε, 1e-5)-DP with σ 20 % too small is caught only with ~10⁷ draws per dataset; plain
    Clopper–Pearson counts cannot certify a ratio of probabilities ≈ 1e-4 with fewer)."""
    check_options(claim_eps=claim_eps, claim_delta=claim_delta, confidence=confidence, seed=seed, family=family,
                  n_select=n_select, n_estimate=n_estimate)
    dflt_select, dflt_estimate = DEFAULT_SIZES[is_batched(mechanism)]
    n_select, n_estimate = n_select or dflt_select, n_estimate or dflt_estimate
    beta = 1 - confidence
    rng_sel, rng_est = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    x0, x1 = sample_outputs(mechanism, d0, n_select, rng_sel), sample_outputs(mechanism, d1, n_select, rng_sel)
    score, how = fit_score(x0, x1, family)
    event = _best_event(score(x0), score(x1), claim_delta, beta, n_estimate, gaussian_tail=family == "gaussian")
    attack = {"score": how, **{k: v for k, v in event.items() if k != "eps"}, "predicted_eps": event["eps"]}
    if "threshold" not in event:
        return MechanismAudit(claim_eps, claim_delta, 0.0, confidence, "consistent", attack, {}, n_select,
                              n_estimate, seed, family, "no event with enough mass in the selection sample")
    t, side = event["threshold"], event["side"]
    hit = (lambda x: score(x) > t) if side == ">" else (lambda x: score(x) <= t)
    k0 = count_event(mechanism, d0, n_estimate, rng_est, hit)
    k1 = count_event(mechanism, d1, n_estimate, rng_est, hit)
    k_a, k_b = (k0, k1) if event["a"] == "d0" else (k1, k0)
    lb = eps_lower_bound(k_a, k_b, n_estimate, n_estimate, claim_delta, beta)
    verdict = "violation" if lb > claim_eps else "consistent"
    reason = (f"ε ≥ {lb:.4g} with confidence {confidence} at δ = {claim_delta:g} > claimed ε = {claim_eps:g}"
              if verdict == "violation" else
              f"ε lower bound {lb:.4g} ≤ claimed ε = {claim_eps:g} (no evidence against the claim)")
    return MechanismAudit(claim_eps, claim_delta, lb, confidence, verdict, attack, {"d0": k0, "d1": k1},
                          n_select, n_estimate, seed, family, reason)


# ---------------------------------------------------------------------------------------------------------
# f-DP audit


@dataclass
class TradeoffAudit:
    verdict: str  # "violation" | "consistent"
    points: list[dict[str, float]]  # empirical (alpha, beta) with band half-widths
    worst: dict[str, float] | None  # the point most against the claim: f(α_ucb) − β_ucb (> 0 = violation)
    halfwidth: float
    confidence: float
    n_select: int
    n_estimate: int
    seed: int
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def gaussian_tradeoff(mu: float) -> Callable[[float], float]:
    """G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) (Dong, Roth & Su 2022, Def. 2.7), μ finite and ≥ 0."""
    check_options(mu=mu)
    return lambda a: float(stats.norm.cdf(stats.norm.ppf(1 - a) - mu))


def audit_tradeoff(mechanism: Callable, d0: Any, d1: Any, f: Callable[[float], float], *,
                   family: str | None = None, n_select: int = 1000, n_estimate: int = 4000,
                   confidence: float = 0.95, seed: int = 0, n_points: int = 41) -> TradeoffAudit:
    """Check the claim T(M(d0), M(d1)) ≥ f and T(M(d1), M(d0)) ≥ f with simultaneous DKW bands."""
    check_options(confidence=confidence, seed=seed, family=family, n_select=n_select, n_estimate=n_estimate)
    beta = 1 - confidence
    rng_sel, rng_est = (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(2))
    x0, x1 = sample_outputs(mechanism, d0, n_select, rng_sel), sample_outputs(mechanism, d1, n_select, rng_sel)
    score, how = fit_score(x0, x1, family)  # large on d0-like outputs
    e0, e1 = sample_outputs(mechanism, d0, n_estimate, rng_est), sample_outputs(mechanism, d1, n_estimate, rng_est)
    s0, s1 = score(e0), score(e1)
    w = dkw_halfwidth(n_estimate, beta / 2)  # each ECDF two-sided at β/2: both hold with probability ≥ 1 − β
    thresholds = np.quantile(np.concatenate([s0, s1]), np.linspace(0, 1, n_points))
    points, worst = [], None
    for t in thresholds:
        # test "reject d1 when s > t": type I under d1, type II under d0 (and the mirrored test)
        for null, alt, a_hat, b_hat in (("d1", "d0", float((s1 > t).mean()), float((s0 <= t).mean())),
                                        ("d0", "d1", float((s0 <= t).mean()), float((s1 > t).mean()))):
            gap = f(min(1.0, a_hat + w)) - min(1.0, b_hat + w)
            pt = {"threshold": float(t), "null": null, "alpha": a_hat, "beta": b_hat, "gap": gap}
            points.append(pt)
            if worst is None or gap > worst["gap"]:
                worst = pt
    verdict = "violation" if worst is not None and worst["gap"] > 0 else "consistent"
    reason = (f"at threshold {worst['threshold']:.4g}: β ≤ {min(1, worst['beta'] + w):.4g} < "
              f"f(α ≤ {min(1, worst['alpha'] + w):.4g}) (simultaneous bands, confidence {confidence})"
              if verdict == "violation" else "every empirical trade-off point is compatible with f within its band")
    return TradeoffAudit(verdict, points, worst, w, confidence, n_select, n_estimate, seed, reason,
                         {"score": how, "family": family})


def parse_dataset(text: str) -> Sequence[float] | Any:
    """A dataset on the command line: a JSON value (``[1, 0, 1]``) or comma-separated numbers."""
    import json

    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return [float(v) for v in text.split(",") if v.strip()]
