"""A vectorised RDP accountant for heterogeneous schedules, with an Opacus-familiar interface.

``Accountant`` records steps of five mechanisms with their parameters (sensitivity 1, add/remove neighbours):

* ``sgm(q, sigma, steps)`` — the Poisson-subsampled Gaussian (DP-SGD step), RDP of Mironov, Talwar & Zhang 2019
  (arXiv 1908.10530) from fast/base/sgm.py; q, σ, steps may be tensors (a whole per-step schedule at once);
* ``gaussian(sigma, steps)`` — the Gaussian mechanism, α/(2σ²) (Mironov 2017, Prop. 7) = SGM with q = 1;
* ``laplace(b, steps)`` — the Laplace mechanism (Mironov 2017, Prop. 6; fast/base/laplace.py);
* ``ptr(sigma1, sigma2, b, delta0, steps)`` — generalised PTR, Theorem 4.3 of seed 001 (fast/ptr/bounds.py ``ptr_rdp``);
* ``ptr_subsampled(q, sigma1, sigma2, b, delta0, steps)`` — Poisson-subsampled PTR: per order α the tighter of
  Theorem 4.4 (seed 000/001, fast/ptr/bounds.py ``ptr_subsampled_rdp``) where its conditions (C1)–(C4) hold and the
  [ZW19] Thm 6 black-box bound with Theorem 4.3 (``ptr_zw19_upper``, valid everywhere) — i.e. the min of the
  valid bounds.

RDP composes additively (Mironov 2017, Prop. 1): ε_total(α) = Σ_i steps_i·ε_i(α). ``rdp(alphas)`` evaluates that
in one batched pass per mechanism over the DISTINCT parameter tuples × orders (equal tuples are merged and their
step counts added), and ``epsilon(delta)`` / ``delta(eps)`` convert with the BBG+20 Thm 21 / CKS20 Prop. 12
formulas (fast/conversion.py) and a continuous order search: a grid that contains Opacus' default orders (so the
answer is never above Opacus' at its own orders, up to the per-order RDP values) plus golden-section refinement.
The reported ε is the objective at the order found, so it is a valid bound; ε ≥ 0 and δ ≤ 1 as in the reference.

SGM direction: the accountant uses the remove direction D_α(μ‖μ0), which MTZ19 Thm 5 proves is the larger one
(the reference's ``base.sgm_rdp`` with direction="max" evaluates both and agrees; tests/spine/test_accountant.py
checks that), and which is what Opacus and dp-accounting compute. ``Accountant(direction="max")`` evaluates both
(the add direction needs quadrature at every order, about twice the cost).

Opacus compatibility: ``step(noise_multiplier=σ, sample_rate=q)`` appends to ``history`` exactly as Opacus'
``RDPAccountant.step`` does (runs of equal (σ, q) compressed into (σ, q, steps) tuples); ``history`` may be
assigned directly (as Opacus' ``get_noise_multiplier`` does); ``get_epsilon(delta, alphas=None)`` searches
continuously, or uses exactly the given ``alphas``; ``get_privacy_spent``, ``mechanism()``, ``state_dict`` /
``load_state_dict`` as IAccountant. One difference: ``len(acc)`` is the number of steps recorded (IAccountant's
documented meaning); Opacus' RDPAccountant returns the number of (σ, q) runs. The PrivacyEngine adapter is in
fast/opacus_compat.py (imports opacus; this module does not).
"""
from __future__ import annotations

import math
from collections import OrderedDict
from copy import deepcopy
from typing import Sequence

import torch

from dpspec.reference.domains import DELTA, EPS, NOISE, SAMPLING_RATE, STEPS, Choice, Real
from dpspec.reference.errors import DomainError, ParameterError

from ._torch import DTYPE, as_tensor, check, params
from .conversion import bbg_objective, log_delta_objective, minimise_over_orders
from .base.laplace import laplace_rdp
from .base.sgm import sgm_rdp

# Opacus 1.6.0 RDPAccountant.DEFAULT_ALPHAS (opacus/accountants/rdp.py): 1.1, 1.2, …, 10.9, 12, …, 63
OPACUS_ALPHAS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))
# The search grid: Opacus' default orders, every integer order 64…256 (exact binomial sums, cheap), orders close
# to 1 (1 + 10^-4 … 1 + 10^-0.5) and an integer geometric tail up to 10^4.
GRID = tuple(sorted(set(OPACUS_ALPHAS) | set(range(64, 257)) | {1 + 10 ** (-4 + i / 2) for i in range(8)}
                    | {round(256 * (1e4 / 256) ** (i / 8)) for i in range(1, 9)}))
GOLDEN_STEPS = 30  # golden-section steps on log(α − 1) inside the bracket of the best grid order (0.618^30 ≈ 5e-7)
CHUNK = 1 << 13  # (parameter tuple, order) points evaluated at once (the SGM quadrature forms ~700 nodes per point)

# Domains of the PTR parameters (as fast/ptr/bounds.py): δ0 ∈ (0, 1/2] (seed 001 Remark 4.1(3)); Thm 4.4 needs q ∈ (0, 1).
DELTA0 = Real(0, 0.5, lo_open=True, hi_open=False)
Q_RATE = Real(0, 1, lo_open=True, hi_open=True)
DIRECTIONS = Choice(("remove", "max"))

# mechanism → (parameter names, domains) of its history tuples (the last element of every tuple is the step count)
_MECHANISMS = {
    "sgm": (("sigma", NOISE), ("q", SAMPLING_RATE)),  # Opacus' order: (noise_multiplier, sample_rate, steps)
    "laplace": (("b", NOISE),),
    "ptr": (("sigma1", NOISE), ("sigma2", NOISE), ("b", NOISE), ("delta0", DELTA0)),
    "ptr_subsampled": (("q", Q_RATE), ("sigma1", NOISE), ("sigma2", NOISE), ("b", NOISE), ("delta0", DELTA0)),
}


def _ptr_curve(alpha, sigma1, sigma2, b, delta0):
    from .ptr.bounds import ptr_rdp

    return ptr_rdp(alpha, sigma1, sigma2, b, delta0)


def _ptr_subsampled_curve(alpha, q, sigma1, sigma2, b, delta0):
    """min(Theorem 4.4 where (C1)–(C4) hold, the [ZW19] black-box bound): the tightest valid bound per order."""
    from .ptr.bounds import ptr_subsampled_rdp, ptr_zw19_upper

    value, valid = ptr_subsampled_rdp(alpha, q, sigma1, sigma2, b, delta0)
    upper = ptr_zw19_upper(alpha, q, sigma1, sigma2, b, delta0)
    return torch.where(valid, torch.minimum(value, upper), upper)


class Accountant:
    """Composes heterogeneous steps; answers ``epsilon(delta)``, ``delta(eps)`` and the RDP curve ``rdp(alphas)``."""

    def __init__(self, device: torch.device | str | None = None, direction: str = "remove"):
        self.history: list[tuple] = []  # SGM runs (σ, q, steps), Opacus' format; Gaussian steps have q = 1
        self.laplace_history: list[tuple] = []  # (b, steps)
        self.ptr_history: list[tuple] = []  # (σ1, σ2, b, δ0, steps)
        self.ptr_subsampled_history: list[tuple] = []  # (q, σ1, σ2, b, δ0, steps)
        self.device = torch.device(device) if device is not None else torch.device("cpu")
        self.direction = DIRECTIONS.check("direction", direction)

    # -- recording ------------------------------------------------------------------------------------------
    def _histories(self) -> dict[str, list]:
        return {"sgm": self.history, "laplace": self.laplace_history, "ptr": self.ptr_history,
                "ptr_subsampled": self.ptr_subsampled_history}

    def _record(self, mechanism: str, steps, **values) -> "Accountant":
        """Append one run per element of the broadcast inputs, merging a run with the previous one when its
        parameters are equal (as Opacus' RDPAccountant.step does)."""
        spec = _MECHANISMS[mechanism]
        tensors = params(**{name: (values[name], dom) for name, dom in spec}, steps=(steps, STEPS))
        columns = [t.reshape(-1).tolist() for t in tensors]
        history = self._histories()[mechanism]
        for row in zip(*columns):
            key, n = tuple(row[:-1]), int(row[-1])
            if history and tuple(history[-1][:-1]) == key:
                history[-1] = (*key, history[-1][-1] + n)
            else:
                history.append((*key, n))
        return self

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """One SGM step, recorded exactly as Opacus' ``RDPAccountant.step``."""
        self._record("sgm", 1, sigma=noise_multiplier, q=sample_rate)

    def sgm(self, q, sigma, steps=1) -> "Accountant":
        """Record an SGM schedule: q, σ, steps broadcast to one shape; element i = ``steps[i]`` steps."""
        return self._record("sgm", steps, sigma=sigma, q=q)

    def gaussian(self, sigma, steps=1) -> "Accountant":
        """The Gaussian mechanism (sensitivity 1) = SGM with q = 1."""
        return self._record("sgm", steps, sigma=sigma, q=1.0)

    def laplace(self, b, steps=1) -> "Accountant":
        """The Laplace mechanism with scale b (sensitivity 1)."""
        return self._record("laplace", steps, b=b)

    def ptr(self, sigma1, sigma2, b, delta0, steps=1) -> "Accountant":
        """Generalised PTR (seed 001 Algorithm 1, Theorem 4.3; σ2 = τσ1, Δ̂ released)."""
        return self._record("ptr", steps, sigma1=sigma1, sigma2=sigma2, b=b, delta0=delta0)

    def ptr_subsampled(self, q, sigma1, sigma2, b, delta0, steps=1) -> "Accountant":
        """Poisson-subsampled PTR (Theorem 4.4 where valid, else the [ZW19] black-box bound)."""
        return self._record("ptr_subsampled", steps, q=q, sigma1=sigma1, sigma2=sigma2, b=b, delta0=delta0)

    def __len__(self) -> int:
        """The number of steps recorded (all mechanisms)."""
        return sum(int(run[-1]) for h in self._histories().values() for run in h)

    # -- the composed curve ---------------------------------------------------------------------------------
    def _curve(self, mechanism: str):
        if mechanism == "sgm":
            return lambda a, sigma, q: sgm_rdp(a, q, sigma, direction=self.direction)
        return {"laplace": laplace_rdp, "ptr": _ptr_curve, "ptr_subsampled": _ptr_subsampled_curve}[mechanism]

    def _groups(self, mechanism: str):
        """(distinct parameter tuples (G, p), their total step counts (G,)), or None when nothing is recorded."""
        history = self._histories()[mechanism]
        if not history:
            return None
        h = torch.tensor([[float(x) for x in run] for run in history], dtype=DTYPE, device=self.device)
        keys, inverse = torch.unique(h[:, :-1], dim=0, return_inverse=True)
        counts = torch.zeros(len(keys), dtype=DTYPE, device=self.device).index_add_(0, inverse, h[:, -1])
        return keys, counts

    def _composed(self, alphas: torch.Tensor, groups) -> torch.Tensor:
        """Σ over mechanisms and distinct tuples of steps·ε(α), for flat ``alphas``."""
        total = torch.zeros_like(alphas)
        for mechanism, (keys, counts) in groups.items():
            curve = self._curve(mechanism)
            rows = max(1, CHUNK // max(1, alphas.numel()))  # memory only: the chunks are large batches
            for i in range(0, len(keys), rows):
                k = keys[i:i + rows]
                eps = curve(alphas.unsqueeze(0), *(k[:, j:j + 1] for j in range(k.shape[1])))  # (tuples, orders)
                total = total + (counts[i:i + rows].unsqueeze(-1) * eps).sum(0)
        return total

    def _all_groups(self) -> dict:
        return {m: g for m in _MECHANISMS if (g := self._groups(m)) is not None}

    def rdp(self, alphas) -> torch.Tensor:
        """The composed RDP ε_total(α) = Σ_i steps_i·ε_i(α) at the given orders (any shape)."""
        alphas = as_tensor(alphas).to(device=self.device, dtype=DTYPE)
        return self._composed(alphas.reshape(-1), self._all_groups()).reshape(alphas.shape)

    def _search(self, objective, alphas, target):
        """(min value, argmin α) of objective(ε_total(α), α, target) over the given orders, or continuously."""
        groups = self._all_groups()
        curve = lambda a: self._composed(a.reshape(-1), groups).reshape(a.shape)  # noqa: E731
        if alphas is not None:
            orders = as_tensor(alphas if isinstance(alphas, torch.Tensor) else list(alphas))
            orders = orders.to(device=self.device, dtype=DTYPE)
            orders = check("alphas", orders.reshape(-1), Real(1, math.inf, lo_open=True, hi_open=True))
            values = objective(curve(orders), orders, target)
            values = torch.where(torch.isnan(values), torch.full_like(values, math.inf), values)
            i = int(torch.argmin(values))
            return values[i], orders[i]
        grid = torch.tensor(GRID, dtype=DTYPE, device=self.device)
        return minimise_over_orders(lambda a: objective(curve(a), a, target), (), grid, grid=grid,
                                    golden_steps=GOLDEN_STEPS)

    # -- answers --------------------------------------------------------------------------------------------
    def get_privacy_spent(self, *, delta: float, alphas: Sequence[float] | None = None) -> tuple[float, float]:
        """(ε, α*) for target δ (Opacus' signature): ε = max(0, F(α*)), F of BBG+20 Thm 21 / CKS20 Prop. 12.
        With nothing recorded: (0, nan)."""
        d = check("delta", as_tensor(float(delta)).to(self.device), DELTA)
        if not len(self):
            return 0.0, math.nan
        value, alpha = self._search(bbg_objective, alphas, d)
        return max(0.0, float(value)), float(alpha)

    def get_epsilon(self, delta: float, alphas: Sequence[float] | None = None, **kwargs) -> float:
        """ε for target δ (Opacus' IAccountant.get_epsilon; extra keyword arguments are ignored, as Opacus does)."""
        return self.get_privacy_spent(delta=delta, alphas=alphas)[0]

    def epsilon(self, delta: float, alphas: Sequence[float] | None = None) -> float:
        """ε for target δ (continuous order search, or exactly the given ``alphas``)."""
        return self.get_epsilon(delta, alphas)

    def delta(self, eps: float, alphas: Sequence[float] | None = None) -> float:
        """δ for target ε: min(1, min_α δ(α)), log δ(α) of CKS20 Prop. 12 (order searched)."""
        e = check("eps", as_tensor(float(eps)).to(self.device), EPS)
        if not len(self):
            return 0.0
        value, _ = self._search(log_delta_objective, alphas, e)
        return min(1.0, math.exp(float(value)))

    # -- state (Opacus' IAccountant format) ---------------------------------------------------------------
    @classmethod
    def mechanism(cls) -> str:
        return "dpspec"

    def state_dict(self, destination=None):
        destination = OrderedDict() if destination is None else destination
        destination["history"] = deepcopy(self.history)
        for name in ("laplace_history", "ptr_history", "ptr_subsampled_history"):
            destination[name] = deepcopy(getattr(self, name))
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict):
        """Load a state dict of this accountant, or of Opacus' RDPAccountant (mechanism "rdp": same history)."""
        if not state_dict or "history" not in state_dict or "mechanism" not in state_dict:
            raise ParameterError("state_dict is empty or lacks 'history' / 'mechanism'")
        if state_dict["mechanism"] not in (self.mechanism(), "rdp"):
            raise ParameterError(f"state_dict of {state_dict['mechanism']!r} cannot be loaded into a "
                                 f"{self.mechanism()!r} accountant")
        self.history = list(state_dict["history"])
        for name in ("laplace_history", "ptr_history", "ptr_subsampled_history"):
            setattr(self, name, list(state_dict.get(name, [])))


# ---------------------------------------------------------------------------------------------------------------
# noise calibration

def sgm_epsilon(sigma, q, steps, delta, direction: str = "remove") -> torch.Tensor:
    """ε(δ) of ``steps`` SGM steps at (q, σ), elementwise over the broadcast inputs (continuous order search
    over the accountant's grid)."""
    sigma, q, steps, delta = params(sigma=(sigma, NOISE), q=(q, SAMPLING_RATE), steps=(steps, STEPS),
                                    delta=(delta, DELTA))
    shape = sigma.shape
    s, qq, n, d = (t.reshape(-1, 1) for t in (sigma, q, steps, delta))
    grid = torch.tensor(GRID, dtype=sigma.dtype, device=sigma.device)
    value, _ = minimise_over_orders(
        lambda a: bbg_objective(n * sgm_rdp(a, qq, s, direction=direction), a, d), (s.shape[0],), grid,
        grid=grid, golden_steps=GOLDEN_STEPS)
    return torch.clamp(value, min=0.0).reshape(shape)


def calibrate_sigma(target_eps, delta, q, steps, *, rtol: float = 1e-6, lo: float = 0.05, hi: float = 1e3,
                    direction: str = "remove") -> torch.Tensor:
    """The smallest σ (to relative precision ``rtol``) with ε(δ) ≤ target_eps after ``steps`` SGM steps at rate q,
    elementwise over the broadcast inputs: bisection in log σ on [lo, hi], all targets at once.

    The returned σ* has ε(σ*) ≤ target_eps (evaluated, not interpolated) and ε(σ*·(1 − rtol)) > target_eps.
    DomainError when a target is unreachable with σ ≤ hi."""
    target, delta, q, steps = params(target_eps=(target_eps, EPS), delta=(delta, DELTA), q=(q, SAMPLING_RATE),
                                     steps=(steps, STEPS))
    log_lo = torch.full_like(target, math.log(lo))
    log_hi = torch.full_like(target, math.log(hi))
    eps_hi = sgm_epsilon(torch.exp(log_hi), q, steps, delta, direction)
    if bool((eps_hi > target).any()):
        bad = target[eps_hi > target].flatten()[0].item()
        raise DomainError("target_eps", bad, f"reachable with sigma <= {hi:g} at these q, steps, delta")
    below = sgm_epsilon(torch.exp(log_lo), q, steps, delta, direction) <= target
    log_hi = torch.where(below, log_lo, log_hi)  # already feasible at lo: report lo
    # invariant: ε(e^log_hi) ≤ target < ε(e^log_lo); stop when e^(log_hi − log_lo) − 1 < rtol/2
    while bool(((log_hi - log_lo > math.log1p(rtol / 2)) & ~below).any()):
        mid = (log_lo + log_hi) / 2
        ok = sgm_epsilon(torch.exp(mid), q, steps, delta, direction) <= target
        log_hi, log_lo = torch.where(ok, mid, log_hi), torch.where(ok, log_lo, mid)
    return torch.exp(log_hi)
