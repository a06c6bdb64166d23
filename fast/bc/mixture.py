"""The exact A1 trade-off function of seed 002 (Def. 4.2, Lemma C.5, Thm 4.6) and its privacy profile, vectorised:
f(α), δ(ε) = Σ_c q_E(c) δ_{G_{c/σ}}(ε) and ε(δ) of the label-visible mixture of Gaussian pairs with weights q_E
(notes batch-clipping-fdp.md §2.4, §3.2, §4.3). Mirrors ``dpspec.reference.bc.mixture``.

Evaluation (torch float64, log space): the laws of the distinct (sampling, N, m, s, g, E) of the inputs come from
fast/bc/qe.py (one per configuration, cached) and are padded into one (configurations × support) table; every
parameter point then gathers its row, so α, ε, δ and σ are evaluated together without Python loops over points.

* δ(ε) = Σ_c q(c) δ_{G_{c/σ}}(ε) + q(+inf) (notes §2.4, "exact (ε,δ) form"; mass dropped by qe.py sits at c = +inf,
  where δ_{G_∞} = 1), each δ_G by the cancellation-free log form of fast/base/gaussian.py, summed by logsumexp; the
  c = 0 component has δ = 0 at ε ≥ 0; a term is evaluated only where its bound q Φ(a_c) can matter (terms left out
  are together below 10^-20 of δ: see _log_delta_nonneg). ε < 0: the complement identity δ(ε) = 1 − e^ε + e^ε δ(−ε) of a symmetric
  trade-off function (fast/base/gaussian.log_profile_real).
* f(α) (Def. 4.2 with the c = 0 atom of notes §4.3): with μ_c = c/σ for c > 0,
  α(Λ) = Σ_{c>0} q Φ(−Λ/μ − μ/2) + q(0)·1[Λ < 0],  f(Λ) = Σ_{c>0} q Φ(Λ/μ − μ/2) + q(0)·1[Λ > 0];
  Λ solves α(Λ) = α by a vectorised bisection with safeguarded Newton steps in Λ (monotone: α decreasing, f
  increasing in Λ), on log α where α ≤ ½ and on log(1 − α) = log(Σ_{c>0} q Φ(Λ/μ + μ/2) + q(0)1[Λ>0] + q(+inf))
  where α > ½, so both ends keep their relative precision; support points whose masses together are below
  10^-20·min(α, 1 − α) are left out of that solve only (f is then summed over the whole support). The atom
  makes Λ = 0 an interval of α of length q(0), α ∈ [A, A + q(0)] with A = Σ_{c>0} q Φ(−μ/2), on which
  f = (A + q(0) − α) + A (a segment of slope −1; notes §2.4 "Gap", §6.5). The mass at +inf contributes α = 0
  and β = 0 for every Λ (so f(0) = 1 − q(+inf): pessimistic, as in the reference).
* ε(δ): the root of log δ(ε) = log δ by bisection and safeguarded Newton steps on ε ≥ 0 (δ(ε) decreases,
  δ′(ε) = −Σ q e^ε Φ(b_c)); 0 where δ ≥ δ(0), +inf where δ ≤ q(+inf) (no finite ε reaches it). Support points
  whose masses together are below 10^-20·δ at every point of a block are left out of the solve (their share of δ is
  below that: each δ_G ≤ 1).
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.base.spec import EPS_REAL, TYPE_I
from dpspec.reference.bc import spec
from dpspec.reference.domains import DELTA, NOISE

from .._torch import DTYPE, log1mexp, params
from ..base.gaussian import _log_exp_eps_ndtr, log_delta_shift, log_profile_real, shift_points
from . import qe

_CHUNK = 1 << 21  # (point, support) pairs per block
_DOUBLINGS = 1100  # bracket doublings of Λ or ε (2^1100 passes every float)


# ---------------------------------------------------------------------------------------------------------------
# the laws of the inputs, padded into one table


class Table:
    """The laws q_E of the distinct configurations of a batch of points: ``c`` (rows × S, c = √c², 0 on padding),
    ``logq`` (−inf on padding and at c = 0), ``log_q0`` (rows,), ``log_inf`` (rows,: mass at +inf) and ``row``
    (points,: which row each point uses); ``logp``: every mass (c = 0 included)."""

    def __init__(self, laws: list[qe.FastLaw], row: torch.Tensor):
        width = max(int(torch.isfinite(law.log_pmf).sum()) for law in laws)
        n = len(laws)
        self.c = torch.zeros((n, width), dtype=DTYPE)
        self.logq = torch.full((n, width), -math.inf, dtype=DTYPE)
        self.log_q0 = torch.full((n,), -math.inf, dtype=DTYPE)
        self.log_inf = torch.tensor([law.log_dropped for law in laws], dtype=DTYPE)
        self.logp = torch.full((n, width), -math.inf, dtype=DTYPE)  # every mass, c = 0 included
        for i, law in enumerate(laws):  # over distinct configurations (their supports differ in length)
            sup, lq = law.support.to(DTYPE), law.log_mass()
            zero = sup == 0
            if bool(zero.any()):
                self.log_q0[i] = lq[zero][0]
            self.c[i, : sup.numel()] = torch.sqrt(sup)
            self.logp[i, : sup.numel()] = lq
            self.logq[i, : sup.numel()] = torch.where(zero, torch.full_like(lq, -math.inf), lq)
        self.row = row

    @classmethod
    def from_law(cls, support, pmf, shape) -> "Table":
        """One explicit law (c² values and masses, e.g. of bc.lemma_c5's weights) for every point of ``shape``."""
        support = torch.as_tensor(support, dtype=DTYPE).flatten()
        pmf = torch.as_tensor(pmf, dtype=DTYPE).flatten()
        order = torch.argsort(support)
        sup, lp = support[order], torch.log(pmf[order])
        table = cls.__new__(cls)
        zero = sup == 0
        table.c = torch.sqrt(sup).unsqueeze(0)
        table.logq = torch.where(zero, torch.full_like(lp, -math.inf), lp).unsqueeze(0)
        table.log_q0 = torch.logsumexp(torch.where(zero, lp, torch.full_like(lp, -math.inf)), 0).reshape(1)
        table.log_inf = torch.full((1,), -math.inf, dtype=DTYPE)
        table.logp = lp.unsqueeze(0)
        table.row = torch.zeros(shape, dtype=torch.long)
        return table

    def gather(self, idx: torch.Tensor):
        """(c, logq, log_q0, log_inf) of the points ``idx`` (flat indices into ``row``)."""
        r = self.row.flatten()[idx]
        return self.c[r], self.logq[r], self.log_q0[r], self.log_inf[r]


def laws_of(sampling, N, m, s, g, E, *, statement_id: str, others: dict) -> tuple[Table, list[torch.Tensor]]:
    """Check every parameter (the reference's DomainError / ConditionError), broadcast the counts with ``others``
    (name → (value, domain)), and build the :class:`Table` of the distinct configurations."""
    spec.SAMPLING.check("sampling", sampling)
    tensors = params(N=(N, spec.DATASET_SIZE), m=(m, spec.SUBSETS), s=(s, spec.SUBSET_SIZE), g=(g, spec.GROUP_SIZE),
                     E=(E, spec.EPOCHS), **others)
    counts, rest = tensors[:5], tensors[5:]
    configs = torch.stack([t.flatten() for t in counts], dim=-1).to(torch.int64)
    unique, inverse = torch.unique(configs, dim=0, return_inverse=True)
    laws = []
    for Nv, mv, sv, gv, Ev in unique.tolist():  # over DISTINCT configurations, not points
        qe._check(Nv, mv, sv, gv, Ev, statement_id)
        laws.append(qe.qe_law(sampling, Nv, mv, sv, gv, Ev))
    return Table(laws, inverse.reshape(counts[0].shape)), rest


def _blocks(n_points: int, width: int):
    step = max(1, _CHUNK // max(1, width))
    for start in range(0, n_points, step):
        yield torch.arange(start, min(n_points, start + step))


# ---------------------------------------------------------------------------------------------------------------
# δ(ε)


_BISECT, _NEWTON = 40, 12
_EPS_BISECT = 14  # ε(δ): log δ(ε) is smooth, Newton converges from a bracket of width ~hi/1.6e4 (results unchanged
# to 4e-16 against 40 bisections on 2000 δ's, twice as fast)


def solve_decreasing(h, h_slope, lo: torch.Tensor, hi: torch.Tensor, bisections: int = _BISECT) -> torch.Tensor:
    """The root of a decreasing h with h(lo) > 0 > h(hi), vectorised: ``bisections`` bisections (default 40: the
    bracket shrinks by 1e12), then at most 12 safeguarded Newton steps (``h_slope`` returns h and h′; a step that leaves the bracket or is not
    finite is replaced by the midpoint), stopping once no point moves by more than 4 ulps; the bracket is narrowed
    at every evaluation, and the answer is the last point (inside the bracket)."""
    for _ in range(bisections):
        mid = (lo + hi) / 2
        above = h(mid) > 0
        lo, hi = torch.where(above, mid, lo), torch.where(above, hi, mid)
    x = (lo + hi) / 2
    for _ in range(_NEWTON):
        value, slope = h_slope(x)
        lo = torch.where(value >= 0, x, lo)
        hi = torch.where(value <= 0, x, hi)
        step = x - value / slope
        inside = torch.isfinite(step) & (step >= lo) & (step <= hi)
        following = torch.where(value == 0, x, torch.where(inside, step, (lo + hi) / 2))
        moved = (following - x).abs() > 4 * torch.finfo(DTYPE).eps * torch.maximum(x.abs(), following.abs())
        x = following
        if not bool(moved.any()):
            break
    return x


def _log_delta_nonneg(eps, sigma, c, logq, log_q0, log_inf):
    """log δ(ε) at ε ≥ 0 of the mixture rows (eps, sigma: (P,); c, logq: (P, S)). Terms are bounded first by
    q Φ(a_c) ≥ q δ_{G_c}(ε) (a = μ/2 − ε/μ); the exact δ_G is evaluated only where that bound is within 10^-20/S of
    the exact term of the largest bound (the others together are below 10^-20 of δ)."""
    mu = c / sigma.unsqueeze(-1)
    valid = ~torch.isneginf(logq) & (mu > 0)
    safe = torch.where(mu > 0, mu, torch.ones_like(mu))
    e = eps.unsqueeze(-1).expand_as(mu)
    a, _ = shift_points(e, safe)
    ninf = torch.full_like(mu, -math.inf)
    upper = torch.where(valid, logq + torch.special.log_ndtr(a), ninf)
    top = upper.argmax(dim=-1, keepdim=True)
    lower = (logq.gather(-1, top) + log_delta_shift(eps.unsqueeze(-1), mu.gather(-1, top))).squeeze(-1)
    lower = torch.where(torch.isnan(lower), torch.full_like(lower, -math.inf), lower)
    keep = valid & (upper >= (lower - _PRUNE_DIGITS * math.log(10) - math.log(mu.shape[-1])).unsqueeze(-1))
    terms = ninf.clone()
    terms[keep] = logq[keep] + log_delta_shift(e[keep], mu[keep])
    return torch.logaddexp(torch.logsumexp(terms, dim=-1), log_inf)


def _log_minus_slope(eps, sigma, c, logq):
    """log(−δ′(ε)) = log Σ_c q e^ε Φ(b_c) at ε ≥ 0 (δ_G′(ε) = −e^ε Φ(b): the φ terms cancel as e^ε φ(b) = φ(a))."""
    mu = c / sigma.unsqueeze(-1)
    safe = torch.where(mu > 0, mu, torch.ones_like(mu))
    a, b = shift_points(eps.unsqueeze(-1).expand_as(mu), safe)
    terms = logq + _log_exp_eps_ndtr(a, b)
    terms = torch.where(torch.isneginf(logq), torch.full_like(terms, -math.inf), terms)
    return torch.logsumexp(terms, dim=-1)


def log_mixture_delta(table: Table, eps: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """log δ(ε) of every point (shapes of ``eps``), every real ε."""
    out = torch.empty(eps.numel(), dtype=DTYPE)
    e, sg = eps.flatten(), sigma.flatten()
    for idx in _blocks(e.numel(), table.c.shape[-1]):
        c, logq, log_q0, log_inf = table.gather(idx)
        out[idx] = log_profile_real(e[idx], lambda x: _log_delta_nonneg(x, sg[idx], c, logq, log_q0, log_inf))
    return out.reshape(eps.shape)


def a1_profile(eps, sampling, N, m, s, g, E, sigma, allow_outside: bool = False) -> torch.Tensor:
    """δ(ε) of the exact A1 mixture (seed 002 Def. 4.2 / Thm 4.6 in (ε, δ) form; notes §2.4): Σ_c q_E(c) δ_{G_{c/σ}}(ε),
    elementwise over broadcast parameters (statement ``bc.a1_profile``)."""
    table, (eps, sigma) = laws_of(sampling, N, m, s, g, E, statement_id="bc.a1_profile",
                                  others={"eps": (eps, EPS_REAL), "sigma": (sigma, NOISE)})
    return torch.exp(log_mixture_delta(table, eps, sigma))


def mixture_delta(support, pmf, sigma, eps) -> torch.Tensor:
    """δ(ε) = Σ q(c) δ_{G_{c/σ}}(ε) of an explicit law (``support``: c² values, ``pmf``: their masses) over broadcast
    σ and ε (Lemma C.1 / C.5 in (ε, δ) form; notes §2.4)."""
    sigma, eps = params(sigma=(sigma, NOISE), eps=(eps, EPS_REAL))
    table = Table.from_law(support, pmf, eps.shape)
    return torch.exp(log_mixture_delta(table, eps, sigma))


# ---------------------------------------------------------------------------------------------------------------
# ε(δ)


_PRUNE_DIGITS = 20  # ε(δ): components whose masses together are below 10^-20·δ are left out


def _prune(c, logq, log_floor):
    """Drop the support columns where every point's mass is below e^{log_floor}/S (S the support size): their
    total mass, and so their share of δ (each δ_G ≤ 1), is below e^{log_floor} at every point."""
    keep = (logq >= (log_floor - math.log(max(1, logq.shape[-1]))).unsqueeze(-1)).any(dim=0)
    if bool(keep.all()) or not bool(keep.any()):
        return c, logq
    return c[:, keep], logq[:, keep]


def log_mixture_epsilon(table: Table, delta: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """ε(δ) of every point: bisection on ε ≥ 0 (module docstring)."""
    out = torch.empty(delta.numel(), dtype=DTYPE)
    d, sg = delta.flatten(), sigma.flatten()
    for idx in _blocks(d.numel(), table.c.shape[-1]):
        c, logq, log_q0, log_inf = table.gather(idx)
        log_d = torch.log(d[idx])
        c, logq = _prune(c, logq, log_d - _PRUNE_DIGITS * math.log(10))
        ldel = lambda e: _log_delta_nonneg(e, sg[idx], c, logq, log_q0, log_inf)  # noqa: E731
        h = lambda e: ldel(e) - log_d  # noqa: E731  decreasing in ε
        zero = h(torch.zeros_like(log_d)) <= 0
        unreachable = log_inf >= log_d
        hi = torch.ones_like(log_d)
        for _ in range(_DOUBLINGS):
            short = (h(hi) > 0) & ~unreachable & ~zero
            if not bool(short.any()):
                break
            hi = torch.where(short, 2 * hi, hi)
        def h_slope(e):
            value = ldel(e)
            return value - log_d, -torch.exp(_log_minus_slope(e, sg[idx], c, logq) - value)

        root = solve_decreasing(h, h_slope, torch.zeros_like(hi), hi, _EPS_BISECT)
        root = torch.where(zero, torch.zeros_like(root), root)
        out[idx] = torch.where(unreachable & ~zero, torch.full_like(root, math.inf), root)
    return out.reshape(delta.shape)


def a1_epsilon(delta, sampling, N, m, s, g, E, sigma, allow_outside: bool = False) -> torch.Tensor:
    """ε(δ) of the exact A1 mixture (inverse of :func:`a1_profile`; statement ``bc.a1_epsilon``): the smallest ε ≥ 0
    with δ(ε) ≤ δ; +inf where δ is at most the mass at c = +inf."""
    table, (delta, sigma) = laws_of(sampling, N, m, s, g, E, statement_id="bc.a1_epsilon",
                                    others={"delta": (delta, DELTA), "sigma": (sigma, NOISE)})
    return log_mixture_epsilon(table, delta, sigma)


def mixture_epsilon(support, pmf, sigma, delta) -> torch.Tensor:
    """ε(δ) of an explicit law (see :func:`mixture_delta`)."""
    sigma, delta = params(sigma=(sigma, NOISE), delta=(delta, DELTA))
    return log_mixture_epsilon(Table.from_law(support, pmf, delta.shape), delta, sigma)


# ---------------------------------------------------------------------------------------------------------------
# f(α)


def _logs(lam, mu, logq, log_q0, log_inf):
    """(log α(Λ), log(1 − α(Λ)), log f(Λ)) for Λ ≠ 0 (lam: (P,), mu/logq: (P, S)), the atom on its side of 0."""
    L = lam.unsqueeze(-1)
    safe_mu = torch.where(mu > 0, mu, torch.ones_like(mu))
    skip = torch.isneginf(logq)
    ninf = torch.full_like(mu, -math.inf)

    def lse(x):
        return torch.logsumexp(torch.where(skip, ninf, logq + x), dim=-1)

    pos = lam > 0
    none = torch.full_like(lam, -math.inf)
    log_alpha = torch.logaddexp(lse(torch.special.log_ndtr(-L / safe_mu - safe_mu / 2)), torch.where(pos, none, log_q0))
    log_comp = torch.logaddexp(torch.logaddexp(lse(torch.special.log_ndtr(L / safe_mu + safe_mu / 2)),
                                               torch.where(pos, log_q0, none)), log_inf)
    log_f = torch.logaddexp(lse(torch.special.log_ndtr(L / safe_mu - safe_mu / 2)), torch.where(pos, log_q0, none))
    return log_alpha, log_comp, log_f


def _log_one_minus_f(lam, mu, logq, log_q0, log_inf):
    """log(1 − f(Λ)) = log(Σ_{c>0} q Φ(μ/2 − Λ/μ) + q(0)·1[Λ < 0] + q(+inf)), a sum of positive terms (so f formed as
    1 − this never exceeds 1 by rounding where f is near 1)."""
    L = lam.unsqueeze(-1)
    safe_mu = torch.where(mu > 0, mu, torch.ones_like(mu))
    terms = torch.where(torch.isneginf(logq), torch.full_like(mu, -math.inf),
                        logq + torch.special.log_ndtr(safe_mu / 2 - L / safe_mu))
    atom = torch.where(lam < 0, log_q0, torch.full_like(lam, -math.inf))
    return torch.logaddexp(torch.logaddexp(torch.logsumexp(terms, dim=-1), atom), log_inf)


# A component's μ = c/σ above this is taken as this in the f(α) solve: every Gaussian term there is exactly 0 or 1 in
# float64 (G_μ(α) = Φ(Φ^{-1}(1 − α) − μ) with |Φ^{-1}| < 39), so the value is unchanged; μ = +inf (σ below ~1e-307)
# made Λ/μ NaN once the bracket doubled to ±inf (an edge search: NaN at σ = 2.2e-308, reference 1.6e-(1.75e330) → 0).
_MU_MAX = 1e300


def mixture_tradeoff_table(table: Table, alpha: torch.Tensor, sigma: torch.Tensor) -> torch.Tensor:
    """f(α) of every point (module docstring)."""
    out = torch.empty(alpha.numel(), dtype=DTYPE)
    a, sg = alpha.flatten(), sigma.flatten()
    for idx in _blocks(a.numel(), table.c.shape[-1]):
        c, logq, log_q0, log_inf = table.gather(idx)
        mu = torch.clamp(c / sg[idx].unsqueeze(-1), max=_MU_MAX)
        al = a[idx]
        safe_mu = torch.where(mu > 0, mu, torch.ones_like(mu))
        skip = torch.isneginf(logq)
        log_A = torch.logsumexp(torch.where(skip, torch.full_like(mu, -math.inf),
                                            logq + torch.special.log_ndtr(-safe_mu / 2)), dim=-1)
        A, q0 = torch.exp(log_A), torch.exp(log_q0)
        ends = (al == 0) | (al == 1)
        upper = (al < A) & ~ends  # Λ > 0
        lower = (al > A + q0) & ~ends  # Λ < 0
        flat = ~upper & ~lower & ~ends
        log_target, log_target_c = torch.log(al), torch.log1p(-al)
        small = al <= 0.5
        # the solve for Λ leaves out support points whose masses together are below 10^-20·min(α, 1 − α) (they
        # move α(Λ) by less than that); f itself is then evaluated on the whole support
        floor = torch.minimum(log_target, log_target_c) - _PRUNE_DIGITS * math.log(10)
        c_s, logq_s = _prune(c, logq, torch.where(ends | flat, torch.full_like(floor, math.inf), floor))
        mu_s = torch.clamp(c_s / sg[idx].unsqueeze(-1), max=_MU_MAX)
        safe_s = torch.where(mu_s > 0, mu_s, torch.ones_like(mu_s))
        skip_s = torch.isneginf(logq_s)

        def h(lam):
            log_alpha, log_comp, _ = _logs(lam, mu_s, logq_s, log_q0, log_inf)
            return torch.where(small, log_alpha - log_target, log_target_c - log_comp)

        def h_slope(lam):  # h and h′: dα/dΛ = −Σ q φ(Λ/μ + μ/2)/μ; h′ = α′/α (small α) or α′/(1 − α)
            log_alpha, log_comp, _ = _logs(lam, mu_s, logq_s, log_q0, log_inf)
            z = lam.unsqueeze(-1) / safe_s + safe_s / 2
            terms = torch.where(skip_s, torch.full_like(mu_s, -math.inf),
                                logq_s - z**2 / 2 - 0.5 * math.log(2 * math.pi) - torch.log(safe_s))
            log_d = torch.logsumexp(terms, dim=-1)
            value = torch.where(small, log_alpha - log_target, log_target_c - log_comp)
            return value, -torch.exp(log_d - torch.where(small, log_alpha, log_comp))

        # brackets: Λ > 0 branch on [0⁺, hi], Λ < 0 branch on [lo, 0⁻]
        tiny = torch.full_like(al, 5e-324)
        lo = torch.where(upper, tiny, -torch.ones_like(al))
        hi = torch.where(upper, torch.ones_like(al), -tiny)
        for _ in range(_DOUBLINGS):
            grow_hi = upper & (h(hi) > 0)
            grow_lo = lower & (h(lo) < 0)
            if not bool((grow_hi | grow_lo).any()):
                break
            hi = torch.where(grow_hi, 2 * hi, hi)
            lo = torch.where(grow_lo, 2 * lo, lo)
        lam = solve_decreasing(h, h_slope, lo, hi)
        lam = torch.where(flat, torch.ones_like(lam), lam)
        _, _, log_f = _logs(lam, mu, logq, log_q0, log_inf)
        value = torch.where(log_f > -math.log(2), -torch.expm1(_log_one_minus_f(lam, mu, logq, log_q0, log_inf)),
                            torch.exp(log_f))
        value = torch.where(flat, (A + q0 - al) + A, value)
        value = torch.where(al == 0, torch.exp(log1mexp(torch.clamp(log_inf, max=0.0))), value)
        out[idx] = torch.where(al == 1, torch.zeros_like(value), value)
    return out.reshape(alpha.shape)


def def4_2(alpha, sampling, N, m, s, g, E, sigma, allow_outside: bool = False) -> torch.Tensor:
    """f(α) of seed 002 Def. 4.2 (the exact A1 trade-off function, the guarantee of Thm 4.6), with q_E of
    Def. 4.1 and the c = 0 atom of notes §4.3; statement ``bc.def4_2``."""
    table, (alpha, sigma) = laws_of(sampling, N, m, s, g, E, statement_id="bc.def4_2",
                                    others={"alpha": (alpha, TYPE_I), "sigma": (sigma, NOISE)})
    return mixture_tradeoff_table(table, alpha, sigma)


def mixture_tradeoff(support, pmf, sigma, alpha) -> torch.Tensor:
    """f(α) = inf{Σ q G_{c/σ}(α_c) : Σ q α_c = α} of an explicit law (Lemma C.5 with μ_c = c/σ; the c = 0 atom as in
    Def. 4.2's repair, notes §4.3)."""
    sigma, alpha = params(sigma=(sigma, NOISE), alpha=(alpha, TYPE_I))
    return mixture_tradeoff_table(Table.from_law(support, pmf, alpha.shape), alpha, sigma)


# ---------------------------------------------------------------------------------------------------------------
# q_E itself (bc.def4_1)

_PARTS = {"at": "mass_at", "below": "tail_below", "above": "tail_above"}


def def4_1(sampling, N, m, s, g, E, c2, part="at", allow_outside: bool = False) -> torch.Tensor:
    """q_E at c² (``part`` = "at"), or its tail strictly below / above c² (seed 002 Def. 4.1; the tail above includes
    the mass that qe.py moved to +inf); statement ``bc.def4_1``."""
    spec.QE_PART.check("part", part)
    table, (c2,) = laws_of(sampling, N, m, s, g, E, statement_id="bc.def4_1", others={"c2": (c2, spec.C_SQUARED)})
    r = table.row
    v = torch.round(table.c[r] ** 2)
    lq = table.logp[r]
    target = c2.unsqueeze(-1)
    sel = {"at": v == target, "below": v < target, "above": v > target}[part]
    out = torch.logsumexp(torch.where(sel & ~torch.isneginf(lq), lq, torch.full_like(lq, -math.inf)), dim=-1)
    if part == "above":
        out = torch.logaddexp(out, table.log_inf[r])
    return torch.exp(out)


__all__ = ["a1_profile", "a1_epsilon", "def4_2", "def4_1", "mixture_delta", "mixture_epsilon", "mixture_tradeoff",
           "Table", "laws_of"]
