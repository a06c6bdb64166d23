"""The accountant: tight (privacy loss distributions, the default) or RDP, for heterogeneous schedules, with an
Opacus-familiar interface.

``Accountant(method="pld")`` (the default) answers with certified intervals from the privacy loss distributions of
the records' dominating pairs (fast/base/pld.py; the construction and its proof: docs/pld.md):
``epsilon_interval(delta)`` / ``delta_interval(eps)`` → (lower, upper), both directions of add/remove neighbours;
``get_epsilon(delta)`` is the upper end (``inf`` when it cannot be certified); the lattice is refined until the ε
interval is at most max(eps_width = 5e-4, 1e-4·ε) wide (``grid_step`` says which step answered). Records without a
dominating pair in the mechanism table (PTR) need ``method="rdp"``. ``calibrate_sigma(..., method="pld")``
calibrates σ by the tight method. ``Accountant(method="rdp")`` is the RDP accountant described below; with either
method ``rdp(alphas)``, ``get_privacy_spent`` (which returns (ε, α*)) and any call given ``alphas`` use RDP.

``Accountant`` composes RECORDS ``Record(mechanism, params, count)``: ``count`` steps of a mechanism named by the
catalogue id of its RDP statement, at parameters in that statement's order (as dp-accounting composes DpEvents).
What it can account is ONE table, ``dpspec.fast.mechanisms.MECHANISMS`` (shared with ``fast.conversion.rdp_curve``);
``supports(id)`` asks it, and composing anything else raises ParameterError. ``compose(id, count=1, **params)``
records (tensors broadcast to one record per element); the named methods are one-liners over it
(sensitivity 1, add/remove neighbours):

* ``sgm(q, sigma, steps)`` — ``base.sgm_rdp``: the Poisson-subsampled Gaussian (DP-SGD step), RDP of Mironov, Talwar
  & Zhang 2019 (arXiv 1908.10530) from fast/base/sgm.py; q, σ, steps may be tensors (a whole schedule at once);
* ``gaussian(sigma, steps)`` — the Gaussian mechanism, α/(2σ²) (Mironov 2017, Prop. 7), recorded as SGM with q = 1
  (as Opacus does); ``compose("base.gaussian_rdp", sigma=σ)`` records it under its own id;
* ``laplace(b, steps)`` — ``base.laplace_rdp``: the Laplace mechanism (Mironov 2017, Prop. 6);
* ``ptr(sigma1, sigma2, b, delta0, steps)`` — ``ptr.thm4_3``: generalised PTR, Theorem 4.3 of seed 001;
* ``ptr_subsampled(q, sigma1, sigma2, b, delta0, steps)`` — ``ptr.thm4_4``: Poisson-subsampled PTR, per order α the
  tighter of Theorem 4.4 where its conditions (C1)–(C4) hold and the [ZW19] Thm 6 black-box bound with Theorem 4.3
  (``ptr.zw19_upper``, valid everywhere) — i.e. the min of the valid bounds (see the table entry).

Recording is O(1) per call: a record whose mechanism and parameters equal those of the LAST record of the same
mechanism is merged into it (its count grows), as Opacus' RDPAccountant.step merges runs; Python numbers are checked
against the table's domains without tensors (the same DomainError as the tensor path).

RDP composes additively (Mironov 2017, Prop. 1): ε_total(α) = Σ_i count_i·ε_i(α). ``rdp(alphas)`` evaluates that
in one batched pass per mechanism over the DISTINCT parameter tuples × orders (equal tuples are grouped and their
counts added), and ``epsilon(delta)`` / ``delta(eps)`` convert with the BBG+20 Thm 21 / CKS20 Prop. 12
formulas (fast/conversion.py) and a continuous order search (``_integer_then_zoom``, issue 14: as fast as Opacus'
RDPAccountant at its headline): the integer orders 2…64, 80, …, 256 in one batched call (the SGM's exact binomial
sums), then zoom rounds on log(α − 1) inside the best integer order's bracket — the first at Opacus' default orders
there too (so the answer is never above Opacus' at its own orders, up to the per-order RDP values) — until a
convexity bound on the gap is below 1e-10 relative (2–3 rounds at a smooth minimum). Where the best integer order
is 2 or 256 (the minimum may lie outside the ladder), the full search of fast/conversion.py runs instead: a grid that
contains Opacus' default orders, extended above 10^4 or below 1 + 10^-4 only where the best order is at an end, plus
golden-section refinement (at most len(GRID) + 89 orders). The answer is kept until the records change. The
reported ε is the objective at the order found, so it is a valid bound;
ε ≥ 0 and δ ≤ 1 as in the reference. ``get_epsilon``/``get_privacy_spent``/``epsilon``/``delta`` take δ (or ε) as a
real number (a Python or numpy number, or a one-element tensor; strings, None and booleans are refused) and
``alphas`` as None or a non-empty 1-D sequence of orders > 1; anything else is a DomainError naming the argument.

SGM direction: the accountant uses the remove direction D_α(μ‖μ0), which MTZ19 Thm 5 proves is the larger one
(the reference's ``base.sgm_rdp`` with direction="max" evaluates both and agrees; tests/spine/test_accountant.py
checks that), and which is what Opacus and dp-accounting compute. ``Accountant(direction="max")`` evaluates both
(the add direction needs quadrature at every order, about twice the cost).

Opacus compatibility: ``step(noise_multiplier=σ, sample_rate=q)`` records exactly as Opacus'
``RDPAccountant.step`` does; ``history`` is the Opacus-format view (σ, q, steps) of the SGM records (and of
``base.gaussian_rdp`` records, as (σ, 1.0, steps)); assigning it (as Opacus' ``get_noise_multiplier`` does) replaces
those records and keeps the others. ``get_epsilon(delta, alphas=None)`` searches continuously, or uses exactly the
given ``alphas``; ``get_privacy_spent``, ``mechanism()``, ``state_dict`` / ``load_state_dict`` as IAccountant (the
state dict stores the records; Opacus RDPAccountant state dicts and this accountant's pre-record format load too).
One difference: ``len(acc)`` is the number of steps recorded (IAccountant's documented meaning); Opacus'
RDPAccountant returns the number of (σ, q) runs. The PrivacyEngine adapter is in fast/opacus_compat.py (imports
opacus; this module does not).
"""
from __future__ import annotations

import math
import warnings
from collections import OrderedDict
from typing import Iterable, NamedTuple, Sequence

import torch

from dpspec.reference.domains import ALPHA, DELTA, EPS, NOISE, SAMPLING_RATE, STEPS, Choice, Real
from dpspec.reference.base.spec import PLD_EPS_WIDTH
from dpspec.reference.errors import DomainError, ParameterError

from . import mechanisms
from ._torch import DTYPE, as_tensor, check, params
from .conversion import MAX_GOLDEN, bbg_objective, curve_values, log_delta_objective, minimise_over_orders
from .base.sgm import sgm_rdp

# Opacus 1.6.0 RDPAccountant.DEFAULT_ALPHAS (opacus/accountants/rdp.py): 1.1, 1.2, …, 10.9, 12, …, 63
OPACUS_ALPHAS = tuple([1 + x / 10.0 for x in range(1, 100)] + list(range(12, 64)))
# The search grid (168 orders): Opacus' default orders, orders close to 1 (1 + 10^-4 … 1 + 10^-0.5) and an integer
# geometric tail from 111 to 10^4 (about 4 per decade; integer orders take the SGM's exact binomial sums). The search
# adds orders beyond either end only where the best order is there, then refines (fast/conversion.py).
GRID = tuple(sorted(set(OPACUS_ALPHAS) | {1 + 10 ** (-4 + i / 2) for i in range(8)}
                    | {round(63 * (1e4 / 63) ** (i / 9)) for i in range(1, 10)}))
GOLDEN_STEPS = MAX_GOLDEN  # at most this many golden-section steps on log(α − 1) (until the bracket is < 1e-8)
CHUNK = 1 << 13  # (parameter tuple, order) points evaluated at once (the SGM quadrature forms ~700 nodes per point)

DIRECTIONS = Choice(("remove", "max"))
METHODS = Choice(("pld", "rdp"))
# The PLD method's accuracy: the certified interval [lower, upper] for ε is refined until its width is at most
# max(EPS_WIDTH, EPS_WIDTH_REL·lower) (or the lattice step reaches MIN_GRID_STEP).
EPS_WIDTH = 5e-4
EPS_WIDTH_REL = 1e-4
FIRST_GRID_STEP = 1e-3
MIN_GRID_STEP = 1e-6

SGM, GAUSSIAN, LAPLACE, PTR, PTR_SUBSAMPLED = ("base.sgm_rdp", "base.gaussian_rdp", "base.laplace_rdp", "ptr.thm4_3",
                                               "ptr.thm4_4")
# The views of this accountant's format before records (state dicts and attributes): name → mechanism id; the
# tuples are (*params in the table's order, steps), except Opacus' history (σ, q, steps).
_LEGACY_VIEWS = {"laplace_history": LAPLACE, "ptr_history": PTR, "ptr_subsampled_history": PTR_SUBSAMPLED}


class Record(NamedTuple):
    """``count`` steps of ``mechanism`` (a table id) at ``params`` (floats, in the table entry's order)."""

    mechanism: str
    params: tuple[float, ...]
    count: int


def _check_one_relation(ids: Iterable[str]) -> None:
    """ParameterError when records of the replace-one relation (mechanisms.REPLACE_ONE) would be composed with
    add/remove ones: their composition is a guarantee under neither relation."""
    if len({m in mechanisms.REPLACE_ONE for m in ids}) > 1:
        raise ParameterError("this accountant would compose replace-one mechanisms ("
                             + ", ".join(sorted(mechanisms.REPLACE_ONE)) + ") with add/remove ones; their "
                             "composition holds under neither neighbouring relation: use one Accountant per relation")


def supports(mechanism) -> bool:
    """Whether the accountant can compose ``mechanism`` (an id, or a Record)."""
    return mechanisms.supports(getattr(mechanism, "mechanism", mechanism))


def _scalar(name: str, value, domain) -> float:
    """A Python-number parameter checked against its domain (the DomainError of the tensor path)."""
    if not isinstance(value, (int, float)):
        value = float(value)  # a 0-d tensor or numpy number (history assigned by hand, loaded state dicts)
    return float(domain.check(name, value))


def _count(name: str, value) -> int:
    if isinstance(value, bool):  # True is an int to Python, not a step count
        raise DomainError(name, value, STEPS.describe())
    return STEPS.check(name, value)


def _real(name: str, value, domain) -> torch.Tensor:
    """One real number (Python/numpy number or one-element tensor) checked against ``domain``, as a 0-d tensor."""
    if value is None or isinstance(value, (str, bytes, bool, complex, list, tuple)):
        raise DomainError(name, repr(value), f"a real number in {domain.describe()}")
    t = as_tensor(value, name=name)
    if t.numel() != 1:
        raise DomainError(name, f"a value of shape {tuple(t.shape)}", f"one real number in {domain.describe()}")
    return check(name, t.reshape(()), domain)


def _alphas(alphas) -> torch.Tensor | None:
    """None, or the given orders as a checked non-empty 1-D float64 tensor."""
    if alphas is None:
        return None
    domain = "a non-empty 1-D sequence of orders > 1"
    if isinstance(alphas, (str, bytes, bool)):
        raise DomainError("alphas", repr(alphas), domain)
    raw = alphas
    if not (isinstance(alphas, (torch.Tensor, int, float)) or hasattr(alphas, "dtype")):
        try:
            raw = list(alphas)
        except TypeError:
            raise DomainError("alphas", alphas, domain) from None
    orders = as_tensor(raw, name="alphas")
    if orders.ndim != 1 or orders.numel() == 0:
        raise DomainError("alphas", f"a value of shape {tuple(orders.shape)}", domain)
    return check("alphas", orders, ALPHA)


# The RDP method's default search (``_integer_then_zoom``): the integer orders first (the SGM's exact binomial sums,
# one cheap batched call), then a zoom on log(α − 1) inside the bracket of the best integer order.
INTEGER_ORDERS = tuple(range(2, 65)) + (80, 96, 128, 192, 256)
ZOOM_POINTS = 10      # uniform points of a zoom round inside the current bracket (plus the parabola's vertex)
ZOOM_ROUNDS = 40      # at most this many rounds (a V-shaped minimum needs many; a smooth one 2–4)
ZOOM_RTOL = 1e-10     # stop when the convexity bound on the gap to the bracket's minimum is below this·max(1, |F|)


def _gap_bound(s: list, v: list, j: int) -> float:
    """How far below v[j] (the smallest value found) the minimum between s[j-1] and s[j+1] can lie if the objective
    is convex there: the chord through the best point and one neighbour, extended past the best point, bounds it."""
    left = (v[j - 1] - v[j]) * (s[j + 1] - s[j]) / (s[j] - s[j - 1])
    right = (v[j + 1] - v[j]) * (s[j] - s[j - 1]) / (s[j + 1] - s[j])
    return max(left, right)


def _integer_then_zoom(objective, device) -> tuple[torch.Tensor, torch.Tensor] | None:
    """(min value, argmin α) of ``objective`` (orders → values, NaN = +inf) found by: INTEGER_ORDERS in one call;
    the best one's neighbours a⁻ < a* < a⁺ bracket the minimiser (the objective is unimodal in s = log(α − 1):
    fast/conversion.py); then zoom rounds of ZOOM_POINTS points uniform in s over the current bracket, plus the
    vertex of the parabola through the best point and its neighbours, the first round also at Opacus' default
    orders inside the bracket (so the answer is never above Opacus' at its own orders, up to the per-order RDP
    values); the bracket becomes the best point's neighbours among all points evaluated, until ``_gap_bound`` is
    below ZOOM_RTOL·max(1, |F|) or ZOOM_ROUNDS rounds. Every value reported is the objective at an order evaluated,
    so it is a valid bound at that order. None where the best integer order is the first or the last of the ladder
    or no value is finite (the caller then runs the full continuous search)."""
    ints = torch.tensor(INTEGER_ORDERS, dtype=DTYPE, device=device)
    values = objective(ints)
    values = torch.where(torch.isnan(values), torch.full_like(values, math.inf), values).tolist()
    j = min(range(len(values)), key=values.__getitem__)
    if not math.isfinite(values[j]) or j == 0 or j == len(values) - 1:
        return None
    a_lo, a_hi = INTEGER_ORDERS[j - 1], INTEGER_ORDERS[j + 1]
    points = {math.log(a - 1): (v, float(a)) for a, v in zip(INTEGER_ORDERS[j - 1:j + 2], values[j - 1:j + 2])}
    first = [math.log(a - 1) for a in OPACUS_ALPHAS if a_lo < a < a_hi and a != int(a)]
    for _ in range(ZOOM_ROUNDS):
        s = sorted(points)
        v = [points[x][0] for x in s]
        k = min(range(len(v)), key=v.__getitem__)
        if 0 < k < len(s) - 1 and _gap_bound(s, v, k) <= ZOOM_RTOL * max(1.0, abs(v[k])):
            break
        lo, hi = s[max(k - 1, 0)], s[min(k + 1, len(s) - 1)]
        new = [lo + (hi - lo) * (i + 1) / (ZOOM_POINTS + 1) for i in range(ZOOM_POINTS)] + first
        first = []
        if 0 < k < len(s) - 1:  # the parabola through the best point and its neighbours: its vertex
            (x0, x1, x2), (y0, y1, y2) = s[k - 1:k + 2], v[k - 1:k + 2]
            den = (x1 - x0) * (y1 - y2) - (x1 - x2) * (y1 - y0)
            if den != 0 and all(map(math.isfinite, (y0, y1, y2))):
                vertex = x1 - 0.5 * ((x1 - x0) ** 2 * (y1 - y2) - (x1 - x2) ** 2 * (y1 - y0)) / den
                if lo < vertex < hi:  # the vertex and a cluster around it at three scales (a smooth minimum
                    # is then closed in one or two rounds)
                    new += [min(max(vertex + f * (hi - lo), lo), hi) for f in (0, -1e-1, 1e-1, -1e-2, 1e-2,
                                                                                -1e-3, 1e-3)]
        new = sorted({x for x in new if x not in points and lo < x < hi})
        if not new:
            break
        a = 1 + torch.exp(torch.tensor(new, dtype=DTYPE, device=device))
        got = objective(a)
        got = torch.where(torch.isnan(got), torch.full_like(got, math.inf), got).tolist()
        points.update((x, (y, o)) for x, y, o in zip(new, got, a.tolist()))
    value, order = min(points.values())
    return torch.tensor(value, dtype=DTYPE, device=device), torch.tensor(order, dtype=DTYPE, device=device)


class Accountant:
    """Composes records; answers ``epsilon(delta)``, ``delta(eps)`` and the RDP curve ``rdp(alphas)``."""

    def __init__(self, device: torch.device | str | None = None, direction: str = "remove", method: str = "pld",
                 eps_width: float = EPS_WIDTH):
        self._store: list[Record] = []
        self._last: dict[str, int] = {}  # mechanism → index of its last record (the merge target)
        # the last SGM record as [index, q, σ, steps not yet added to it]: step() only counts (``_records`` adds)
        self._run: list | None = None
        self.device = torch.device(device) if device is not None else torch.device("cpu")
        self.direction = DIRECTIONS.check("direction", direction)
        self.method = METHODS.check("method", method)
        self.eps_width = _number("eps_width", eps_width, PLD_EPS_WIDTH)
        self._plds: dict[tuple, object] = {}  # (lattice step, direction) → (upper, lower) composed PLDs
        self._plds_key: tuple = ()
        self._pld_cache: dict = {}
        self._pld_group_list: list = []
        self._rdp_answers: dict = {}  # (records, direction, objective, target) → (value, α) of the RDP search
        self.grid_step: float | None = None  # the lattice step of the last PLD answer
        self.converged: bool | None = None  # whether that answer met its target width

    # -- recording ------------------------------------------------------------------------------------------
    @property
    def _records(self) -> list[Record]:
        """The record list, with the steps that ``step()`` counted added to the last SGM record."""
        run = self._run
        if run is not None and run[3]:
            i = run[0]
            r = self._store[i]
            self._store[i] = (r[0], r[1], r[2] + run[3])
            run[3] = 0
        return self._store

    @_records.setter
    def _records(self, records) -> None:
        self._set_records(records)

    @property
    def records(self) -> tuple[Record, ...]:
        """The composed records (equal consecutive records of a mechanism merged), as ``Record``s (the list holds
        plain tuples: a NamedTuple costs several µs to allocate here, which ``step()`` would pay per new record)."""
        return tuple(Record(*r) for r in self._records)

    def supports(self, mechanism) -> bool:
        """Whether this accountant can compose ``mechanism`` (a catalogue id, or a Record)."""
        return supports(mechanism)

    def _append(self, mechanism: str, values: tuple, count: int) -> None:
        """O(1): merge with the last record of ``mechanism`` when its parameters are equal, else append."""
        if mechanism not in self._last:
            _check_one_relation((*self._last, mechanism))
        i = self._last.get(mechanism)
        if i is not None and self._records[i][1] == values:
            self._records[i] = (mechanism, values, self._records[i][2] + count)
        else:
            self._last[mechanism] = len(self._records)
            self._records.append((mechanism, values, count))  # a plain tuple: ``records`` makes Records
            if mechanism == SGM:
                self._run = [len(self._store) - 1, values[0], values[1], 0]

    def _set_records(self, records: Iterable[Record]) -> None:
        store = list(records)
        _check_one_relation(r[0] for r in store)
        self._store = store
        self._last = {r[0]: i for i, r in enumerate(self._store)}
        i = self._last.get(SGM)
        self._run = None if i is None else [i, self._store[i][1][0], self._store[i][1][1], 0]

    # -- tight accounting (method "pld") --------------------------------------------------------------------
    def _pld_groups(self) -> list[tuple[dict, int]]:
        """[({direction: LossPair}, count)] over the distinct (mechanism, parameters) of the records."""
        totals: dict[tuple[str, tuple], int] = {}
        for m, p, n in self._records:
            totals[(m, p)] = totals.get((m, p), 0) + n
        groups = []
        for (m, p), n in totals.items():
            entry = mechanisms.get(m)
            if entry.pairs is None:
                raise ParameterError(f"{m} has no privacy loss distribution in dpspec.fast.mechanisms (tight "
                                     "accounting needs a dominating pair); use Accountant(method='rdp')")
            groups.append((entry.pairs(*p), n))
        return groups

    def _pld_state(self) -> list[tuple[dict, int]]:
        """The PLD groups of the current records; the caches are dropped when the records have changed."""
        key = tuple(self._records)
        if key != self._plds_key:
            self._plds, self._pld_cache = {}, {}
            self._pld_group_list = self._pld_groups()
            self._plds_key = key
        return self._pld_group_list

    def _pld_composed(self, step: float, direction: str, tail: float):
        """(upper, lower) composed PLDs of the current records in ``direction`` at lattice ``step``, leaving out at
        most ``tail`` of mass per side (cached; a composition that left out less serves too)."""
        from .base import pld

        groups = self._pld_state()
        for (st, d, tl), value in self._plds.items():
            if st == step and d == direction and tl <= tail:
                return value
        value = pld.compose_direction(groups, step, direction, device=self.device, cache=self._pld_cache, tail=tail)
        self._plds[(step, direction, tail)] = value
        return value

    def _refined(self, interval_of, target_of, min_step: float = MIN_GRID_STEP, floor_of=None,
                 tail: float = 1e-30):
        """The certified interval of the composition, narrowed until its width is at most ``target_of(lo, hi)``.

        Each direction of add/remove neighbours has its own certified interval ``interval_of(upper, lower)``; the
        answer is (max of the lower ends, max of the upper ends). Lattice step 1e-3 first (coarser while the
        lattice would be too large); then only the directions whose upper end exceeds the answer's lower end are
        recomputed, at a step chosen from the measured rate at which the width shrinks (second order or faster),
        and a direction's interval is the intersection of those found for it (each is certified)."""
        from .base import pld

        directions = pld.directions_of(self._pld_state())
        usable = {k: v for k, v in self._plds.items() if k[2] <= tail}
        if usable and all(any(k[1] == d for k in usable) for d in directions):
            # compositions of these records already computed (an earlier query): every one of them certifies an
            # interval here too; start from their intersection and the finest step among them
            found = {}
            for (st, d, _), value in usable.items():
                a, b = interval_of(*value)
                old = found.get(d, (-math.inf, math.inf))
                found[d] = (max(old[0], a), min(old[1], b))
            step = min(k[0] for k in usable)
        else:
            step = FIRST_GRID_STEP
            while True:
                try:
                    found = {d: interval_of(*self._pld_composed(step, d, tail)) for d in directions}
                    break
                except ParameterError as exc:
                    if "grid points" not in str(exc) and "bins" not in str(exc):
                        raise
                    step *= 4
        combined = lambda: (max(v[0] for v in found.values()), max(v[1] for v in found.values()))  # noqa: E731

        def floor_reached(lo, hi, step):
            """Whether the upper side's float allowance (eta per bin, over all bins) is a sizeable part of what
            decides the answer (``floor_of(upper composition, lo, hi)``) in every direction still refined."""
            if floor_of is None:
                return False
            live = [self._pld_composed(step, d, tail)[0] for d in directions if found[d][1] > lo]
            return bool(live) and all(floor_of(up, lo, hi) for up in live)
        lo, hi = combined()
        width, target = (hi - lo if math.isfinite(hi) else 0.0), target_of(lo, hi)
        previous = None
        for _ in range(8):
            if width <= target or step <= min_step:
                break
            # the width shrinks like step^rate: rate 3 is what the lower side shows at fine steps (the upper side
            # alone is second order); measured between the last two steps once there are two
            rate = 3.0
            if previous is not None:
                p_step, p_width = previous
                if 0 < width < p_width:
                    rate = min(max(math.log(p_width / width) / math.log(p_step / step), 2.0), 3.5)
            new_step = step * (target / width) ** (1 / rate) * 0.9
            previous = (step, width)
            finer = max(min_step, min(new_step, step / 1.5))
            try:
                for d in directions:
                    if found[d][1] > lo:  # this direction may decide the answer
                        a, b = interval_of(*self._pld_composed(finer, d, tail))
                        found[d] = (max(found[d][0], a), min(found[d][1], b))
            except ParameterError as exc:  # the lattice would exceed MAX_BINS: keep what is certified
                if "grid points" not in str(exc) and "bins" not in str(exc):
                    raise
                break
            step = finer
            lo, hi = combined()
            width, target = (hi - lo if math.isfinite(hi) else 0.0), target_of(lo, hi)
            if floor_reached(lo, hi, step):
                break  # the floating-point allowance, not the lattice, limits the width: a finer lattice cannot help
        self.grid_step = step
        self.converged = width <= target
        if not self.converged and math.isfinite(target):
            warnings.warn(f"dpspec: the certified interval [{lo:.6g}, {hi:.6g}] is wider than the target {target:.3g}; "
                          f"the finest lattice step tried was {step:.3g} (the next would exceed the lattice size "
                          "limit or MIN_GRID_STEP)", RuntimeWarning, stacklevel=3)
        return lo, max(lo, hi)

    def epsilon_interval(self, delta) -> tuple[float, float]:
        """(lower, upper): certified bounds on the tight ε(δ) of the composition (privacy loss distributions,
        both directions of add/remove neighbours; fast/base/pld.py), narrowed to a width of at most
        max(eps_width, 1e-4·lower). upper = inf when it cannot be certified."""
        d = float(_real("delta", delta, DELTA))
        if not len(self):
            return 0.0, 0.0
        return self._refined(lambda up, low: (low.epsilon(d), up.epsilon(d)),
                             lambda lo, hi: max(self.eps_width, EPS_WIDTH_REL * lo),
                             floor_of=lambda up, lo, hi: up.eta * up.bins >= 1e-2 * d, tail=_tail_for(d))

    def delta_interval(self, eps) -> tuple[float, float]:
        """(lower, upper): certified bounds on the tight δ(ε) of the composition, narrowed until the δ interval
        is at most 1e-3 of δ wide (relative), or the lattice step is 1e-6."""
        e = float(_real("eps", eps, EPS))
        if not len(self):
            return 0.0, 0.0
        return self._refined(lambda up, low: (float(low.delta(e)), float(up.delta(e))),
                             lambda lo, hi: 1e-3 * hi,
                             floor_of=lambda up, lo, hi: up.eta * up.bins >= 1e-2 * max(hi, 1e-300))

    def _compose(self, mechanism: str, values: dict, count, count_name: str) -> "Accountant":
        entry = mechanisms.get(mechanism)
        if len(values) != len(entry.params) or any(n not in values for n in entry.names):
            entry.check_names(values)
        if isinstance(count, int) and all(isinstance(values[n], (int, float)) for n in entry.names):
            # one record, no tensors (Opacus' optimizer hook calls step() once per step)
            self._append(mechanism, tuple(_scalar(n, values[n], d) for n, d in entry.params),
                         _count(count_name, count))
            return self
        tensors = params(**{n: (values[n], d) for n, d in entry.params}, **{count_name: (count, STEPS)})
        for row in zip(*(t.reshape(-1).tolist() for t in tensors)):
            self._append(mechanism, tuple(row[:-1]), int(row[-1]))
        return self

    def compose(self, mechanism: str, count=1, **values) -> "Accountant":
        """Record ``count`` steps of ``mechanism`` (a catalogue id of the mechanism table) at the given parameters
        (its record parameters by name); tensors broadcast to one record per element. ParameterError when the
        mechanism cannot be accounted (``supports``) or a parameter is missing or unknown; DomainError for a value
        outside its domain."""
        return self._compose(mechanism, values, count, "count")

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """One SGM step, recorded exactly as Opacus' ``RDPAccountant.step`` (about 1 µs when it repeats the last SGM
        record's Python-float parameters: the count grows, nothing is checked again). Python floats are checked by
        two chained comparisons (NaN fails both; the domains σ ∈ (0, inf), q ∈ (0, 1]) and appended as a new record
        without tensors; anything else — other types, and every value outside its domain — goes through ``compose``,
        which raises the one DomainError naming the argument."""
        if type(noise_multiplier) is float and type(sample_rate) is float:
            run = self._run
            if run is not None and run[1] == sample_rate and run[2] == noise_multiplier:
                run[3] += 1
                return
            if 0.0 < noise_multiplier < math.inf and 0.0 < sample_rate <= 1.0:
                # a new SGM record (the run above holds the last one's parameters, so it cannot merge)
                if run is None and self._last:
                    _check_one_relation((*self._last, SGM))
                store = self._store
                if run is None:
                    self._run = run = [0, 0.0, 0.0, 0]
                elif run[3]:
                    r = store[run[0]]
                    store[run[0]] = (r[0], r[1], r[2] + run[3])
                    run[3] = 0
                run[0] = self._last[SGM] = len(store)
                run[1], run[2] = sample_rate, noise_multiplier
                store.append((SGM, (sample_rate, noise_multiplier), 1))
                return
        self._compose(SGM, {"q": sample_rate, "sigma": noise_multiplier}, 1, "steps")

    def sgm(self, q, sigma, steps=1) -> "Accountant":
        """Record an SGM schedule: q, σ, steps broadcast to one shape; element i = ``steps[i]`` steps."""
        return self._compose(SGM, {"q": q, "sigma": sigma}, steps, "steps")

    def gaussian(self, sigma, steps=1) -> "Accountant":
        """The Gaussian mechanism (sensitivity 1) = SGM with q = 1 (as Opacus records it)."""
        return self._compose(SGM, {"q": 1.0, "sigma": sigma}, steps, "steps")

    def laplace(self, b, steps=1) -> "Accountant":
        """The Laplace mechanism with scale b (sensitivity 1)."""
        return self._compose(LAPLACE, {"b": b}, steps, "steps")

    def ptr(self, sigma1, sigma2, b, delta0, steps=1) -> "Accountant":
        """Generalised PTR (seed 001 Algorithm 1, Theorem 4.3; σ2 = τσ1, Δ̂ released)."""
        return self._compose(PTR, dict(sigma1=sigma1, sigma2=sigma2, b=b, delta0=delta0), steps, "steps")

    def ptr_subsampled(self, q, sigma1, sigma2, b, delta0, steps=1) -> "Accountant":
        """Poisson-subsampled PTR (Theorem 4.4 where valid, else the [ZW19] black-box bound)."""
        return self._compose(PTR_SUBSAMPLED, dict(q=q, sigma1=sigma1, sigma2=sigma2, b=b, delta0=delta0), steps,
                             "steps")

    def __len__(self) -> int:
        """The number of steps recorded (all mechanisms)."""
        return sum(r[2] for r in self._records)

    # -- views: Opacus' history, and the per-mechanism lists of the pre-record format -----------------------
    def _replace(self, family: tuple[str, ...], rows: Iterable[tuple[str, Sequence, object]]) -> None:
        """Replace the records of the ``family`` mechanisms by ``rows`` (mechanism, params, count), checked and
        appended as given (not merged); on error nothing changes."""
        kept = [r for r in self._records if r[0] not in family]
        self._set_records(kept + self._checked(rows))

    @staticmethod
    def _checked(rows: Iterable[tuple[str, Sequence, object]]) -> list[Record]:
        out = []
        for mechanism, values, count in rows:
            entry = mechanisms.get(mechanism)
            values = tuple(values)
            if len(values) != len(entry.params):
                raise ParameterError(f"{mechanism}: a record needs {len(entry.params)} parameters "
                                     f"({', '.join(entry.names)}), got {values!r}")
            out.append(Record(mechanism, tuple(_scalar(n, v, d) for (n, d), v in zip(entry.params, values)),
                              _count("steps", count)))
        return out

    @property
    def history(self) -> list[tuple]:
        """Opacus' format: (σ, q, steps) per SGM record (Gaussian records as (σ, 1.0, steps)). Assignable: the
        assigned runs replace the SGM and Gaussian records (as Opacus' ``get_noise_multiplier`` does)."""
        out = []
        for m, p, n in self._records:
            if m == SGM:
                out.append((p[1], p[0], n))
            elif m == GAUSSIAN:
                out.append((p[0], 1.0, n))
        return out

    @history.setter
    def history(self, runs) -> None:
        self._replace((SGM, GAUSSIAN), ((SGM, (q, sigma), n) for sigma, q, n in runs))

    def _legacy_view(self, mechanism: str) -> list[tuple]:
        return [(*p, n) for m, p, n in self._records if m == mechanism]

    laplace_history = property(lambda self: self._legacy_view(LAPLACE),
                               lambda self, runs: self._replace((LAPLACE,), ((LAPLACE, r[:-1], r[-1]) for r in runs)),
                               doc="(b, steps) per Laplace record (the pre-record format; assignable).")
    ptr_history = property(lambda self: self._legacy_view(PTR),
                           lambda self, runs: self._replace((PTR,), ((PTR, r[:-1], r[-1]) for r in runs)),
                           doc="(σ1, σ2, b, δ0, steps) per PTR record (the pre-record format; assignable).")
    ptr_subsampled_history = property(
        lambda self: self._legacy_view(PTR_SUBSAMPLED),
        lambda self, runs: self._replace((PTR_SUBSAMPLED,), ((PTR_SUBSAMPLED, r[:-1], r[-1]) for r in runs)),
        doc="(q, σ1, σ2, b, δ0, steps) per subsampled-PTR record (the pre-record format; assignable).")

    # -- the composed curve ---------------------------------------------------------------------------------
    def _groups(self) -> dict[str, tuple[torch.Tensor, torch.Tensor]]:
        """mechanism → (distinct parameter tuples (G, p), their total counts (G,)) over the records."""
        totals: dict[str, dict[tuple, int]] = {}
        for m, p, n in self._records:
            group = totals.setdefault(m, {})
            group[p] = group.get(p, 0) + n
        return {m: (torch.tensor(list(g), dtype=DTYPE, device=self.device).reshape(len(g), -1),
                    torch.tensor([float(n) for n in g.values()], dtype=DTYPE, device=self.device))
                for m, g in totals.items()}

    def _composed(self, alphas: torch.Tensor, groups) -> torch.Tensor:
        """Σ over mechanisms and distinct tuples of count·ε(α), for flat ``alphas``."""
        total = torch.zeros_like(alphas)
        options = {"direction": self.direction}
        rows = max(1, CHUNK // max(1, alphas.numel()))  # memory only: the chunks are large batches
        for mechanism, (keys, counts) in groups.items():
            entry = mechanisms.get(mechanism)
            curve = entry.curve
            extra = {k: options[k] for k in entry.options if k in options}
            for i in range(0, len(keys), rows):
                k = keys[i:i + rows]
                columns = {n: k[:, j:j + 1] for j, n in enumerate(entry.names)}
                eps = curve(alpha=alphas.unsqueeze(0), **columns, **extra)  # (tuples, orders)
                total = total + (counts[i:i + rows].unsqueeze(-1) * eps).sum(0)
        return total

    def rdp(self, alphas) -> torch.Tensor:
        """The composed RDP ε_total(α) = Σ_i count_i·ε_i(α) at the given orders (any shape)."""
        alphas = as_tensor(alphas).to(device=self.device, dtype=DTYPE)
        return self._composed(alphas.reshape(-1), self._groups()).reshape(alphas.shape)

    def _search(self, objective, orders, target):
        """(min value, argmin α) of objective(ε_total(α), α, target) over the given (checked) orders, or
        continuously."""
        groups = self._groups()
        composed = lambda a: self._composed(a.reshape(-1), groups).reshape(a.shape)  # noqa: E731
        composed.__name__ = "the accountant's composed curve"
        curve = lambda a: curve_values(composed, a)  # noqa: E731
        if orders is not None:
            orders = orders.to(device=self.device)
            values = objective(curve(orders), orders, target)
            values = torch.where(torch.isnan(values), torch.full_like(values, math.inf), values)
            i = int(torch.argmin(values))
            return values[i], orders[i]
        key = (tuple(self._records), self.direction, objective.__name__, float(target))
        if key in self._rdp_answers:
            return self._rdp_answers[key]
        found = _integer_then_zoom(lambda a: objective(curve(a), a, target), self.device)
        if found is None:  # the best integer order is at an end of the ladder: the full continuous search
            grid = torch.tensor(GRID, dtype=DTYPE, device=self.device)
            found = minimise_over_orders(lambda a: objective(curve(a), a, target), (), grid, grid=grid,
                                         golden_steps=GOLDEN_STEPS)
        if len(self._rdp_answers) > 64:
            self._rdp_answers.clear()
        self._rdp_answers[key] = found
        return found

    # -- answers --------------------------------------------------------------------------------------------
    def get_privacy_spent(self, *, delta: float, alphas: Sequence[float] | None = None) -> tuple[float, float]:
        """(ε, α*) for target δ (Opacus' signature): ε = max(0, F(α*)), F of BBG+20 Thm 21 / CKS20 Prop. 12.
        With nothing recorded: (0, nan)."""
        d = _real("delta", delta, DELTA).to(self.device)
        orders = _alphas(alphas)
        if not len(self):
            return 0.0, math.nan
        value, alpha = self._search(bbg_objective, orders, d)
        return max(0.0, float(value)), float(alpha)

    def get_epsilon(self, delta: float, alphas: Sequence[float] | None = None, **kwargs) -> float:
        """ε for target δ (Opacus' IAccountant.get_epsilon; extra keyword arguments are ignored, as Opacus does):
        method "pld" (the default): the certified upper end of ``epsilon_interval`` (inf when it cannot be
        certified); method "rdp", or ``alphas`` given: the RDP answer of ``get_privacy_spent``."""
        if self.method == "pld" and alphas is None:
            return self.epsilon_interval(delta)[1]
        return self.get_privacy_spent(delta=delta, alphas=alphas)[0]

    def epsilon(self, delta: float, alphas: Sequence[float] | None = None) -> float:
        """ε for target δ (as ``get_epsilon``)."""
        return self.get_epsilon(delta, alphas)

    def delta(self, eps: float, alphas: Sequence[float] | None = None) -> float:
        """δ for target ε: method "pld": the upper end of ``delta_interval``; method "rdp" (or ``alphas`` given):
        min(1, min_α δ(α)), log δ(α) of CKS20 Prop. 12 (order searched)."""
        if self.method == "pld" and alphas is None:
            return self.delta_interval(eps)[1]
        e = _real("eps", eps, EPS).to(self.device)
        orders = _alphas(alphas)
        if not len(self):
            return 0.0
        value, _ = self._search(log_delta_objective, orders, e)
        return min(1.0, math.exp(float(value)))

    # -- state (Opacus' IAccountant format) ---------------------------------------------------------------
    @classmethod
    def mechanism(cls) -> str:
        return "dpspec"

    def state_dict(self, destination=None):
        """The records, as plain tuples (mechanism id, params, count): picklable with ``torch.load(weights_only=True)``."""
        destination = OrderedDict() if destination is None else destination
        destination["records"] = [(m, tuple(p), n) for m, p, n in self._records]
        destination["mechanism"] = self.mechanism()
        return destination

    def load_state_dict(self, state_dict):
        """Load a state dict of this accountant (records), of its pre-record format (``history`` plus
        ``laplace_history`` / ``ptr_history`` / ``ptr_subsampled_history``), or of Opacus' RDPAccountant (mechanism
        "rdp": ``history`` only). Every record is checked; on error nothing changes."""
        if not state_dict or "mechanism" not in state_dict or not ({"records", "history"} & set(state_dict)):
            raise ParameterError("state_dict is empty or lacks 'records' (or 'history') / 'mechanism'")
        if state_dict["mechanism"] not in (self.mechanism(), "rdp"):
            raise ParameterError(f"state_dict of {state_dict['mechanism']!r} cannot be loaded into a "
                                 f"{self.mechanism()!r} accountant")
        if "records" in state_dict:
            rows = [tuple(r) for r in state_dict["records"]]
        else:
            rows = [(SGM, (q, sigma), n) for sigma, q, n in state_dict["history"]]
            for name, mechanism in _LEGACY_VIEWS.items():
                rows += [(mechanism, run[:-1], run[-1]) for run in state_dict.get(name, [])]
        self._set_records(self._checked(rows))


# ---------------------------------------------------------------------------------------------------------------
# noise calibration

# Arguments of calibrate_sigma: its relative precision, and how far below ``lo`` the bracket may be extended.
RTOL = Real(1e-14, 1, lo_open=False, hi_open=True)
LOWER_DECADES = 8


def sgm_epsilon(sigma, q, steps, delta, direction: str = "remove") -> torch.Tensor:
    """ε(δ) of ``steps`` SGM steps at (q, σ), elementwise over the broadcast inputs (continuous order search
    over the accountant's grid)."""
    direction = DIRECTIONS.check("direction", direction)
    sigma, q, steps, delta = params(sigma=(sigma, NOISE), q=(q, SAMPLING_RATE), steps=(steps, STEPS),
                                    delta=(delta, DELTA))
    shape = sigma.shape
    s, qq, n, d = (t.reshape(-1, 1) for t in (sigma, q, steps, delta))
    grid = torch.tensor(GRID, dtype=sigma.dtype, device=sigma.device)
    curve = lambda a: sgm_rdp(a, qq, s, direction=direction)  # noqa: E731
    curve.__name__ = "base.sgm_rdp"
    value, _ = minimise_over_orders(
        lambda a: bbg_objective(n * curve_values(curve, a), a, d), (s.shape[0],), grid,
        grid=grid, golden_steps=GOLDEN_STEPS)
    return torch.clamp(value, min=0.0).reshape(shape)


def _number(name: str, value, domain) -> float:
    """A Python/numpy number (or 0-d tensor) checked against ``domain``."""
    if value is None or isinstance(value, (str, bytes, bool, complex, list, tuple)):
        raise DomainError(name, repr(value), f"a real number in {domain.describe()}")
    return float(_real(name, value, domain))


def calibrate_sigma(target_eps, delta, q, steps, *, rtol: float | None = None, lo: float = 0.05, hi: float = 1e3,
                    direction: str = "remove", method: str = "rdp") -> torch.Tensor:
    """The smallest noise multiplier σ, to relative precision ``rtol``, whose ε(δ) after ``steps`` SGM steps at rate
    q is ≤ target_eps (``sgm_epsilon``), elementwise over the broadcast inputs (target_eps, delta, q, steps).

    ε(σ) is non-increasing in σ (data processing: N(·, σ'²) is N(·, σ²) plus independent noise, for both neighbouring
    distributions; the conversion is monotone in the RDP), so {σ : ε(σ) ≤ target} = [σ*, ∞), and σ* is bracketed
    and bisected in log σ:
    * ``hi`` is the largest σ accepted: if ε(hi) > target_eps, DomainError on target_eps (unreachable with σ ≤ hi);
    * if ``lo`` already meets the target, the bracket is extended downwards a decade at a time (at most
      LOWER_DECADES = 8 decades); if σ = lo·1e-8 still meets it, DomainError on target_eps saying that every σ ≥ that
      bound meets it (pass a smaller ``lo``): a bracket end is never returned as the answer;
    * bisection keeps ε(σ_hi) ≤ target_eps < ε(σ_lo) and stops when σ_hi/σ_lo ≤ 1 + rtol/2, after at most
      ⌈log2(log(σ_hi/σ_lo)/log1p(rtol/2))⌉ steps (≤ 61 for any bracket of doubles and rtol ≥ 1e-14).
    The returned σ* = σ_hi has ε(σ*) ≤ target_eps (evaluated, not interpolated) and ε(σ*·(1 − rtol)) > target_eps
    (σ*·(1 − rtol) < σ_lo). Arguments: target_eps ≥ 0, δ ∈ (0, 1), q ∈ (0, 1], steps an integer ≥ 1 (numbers or
    tensors); rtol ∈ [1e-14, 1), 0 < lo < hi < inf (numbers); direction "remove" or "max". Anything else is a
    DomainError naming the argument.

    method "pld" (tight; default rtol 1e-3): the same search on the certified upper end of the PLD sandwich, each
    decision refined until it is decided (``_pld_decides``); the returned σ also passes the check a user makes,
    ``Accountant().sgm(q, σ, steps).get_epsilon(δ) <= target_eps`` (``_certified_by_default_query``)."""
    direction = DIRECTIONS.check("direction", direction)
    method = METHODS.check("method", method)
    rtol = _number("rtol", (PLD_RTOL if method == "pld" else 1e-6) if rtol is None else rtol, RTOL)
    lo, hi = _number("lo", lo, NOISE), _number("hi", hi, NOISE)
    if not lo < hi:
        raise DomainError("hi", hi, f"(lo, inf) = ({lo:g}, inf)")
    target, delta, q, steps = params(target_eps=(target_eps, EPS), delta=(delta, DELTA), q=(q, SAMPLING_RATE),
                                     steps=(steps, STEPS))
    if method == "pld":
        out = torch.empty_like(target)
        flat = out.reshape(-1)
        for i, row in enumerate(zip(*(t.reshape(-1).tolist() for t in (target, delta, q, steps)))):
            flat[i] = _calibrate_pld(*row, rtol=rtol, lo=lo, hi=hi)
        return out
    eps_at = lambda log_sigma: sgm_epsilon(torch.exp(log_sigma), q, steps, delta, direction)  # noqa: E731
    log_lo = torch.full_like(target, math.log(lo))
    log_hi = torch.full_like(target, math.log(hi))
    unreachable = eps_at(log_hi) > target
    if bool(unreachable.any()):
        bad = target[unreachable].flatten()[0].item()
        raise DomainError("target_eps", bad, f"reachable with sigma <= {hi:g} at these q, steps, delta")
    met = eps_at(log_lo) <= target  # lo meets the target: σ* lies below lo, extend the bracket downwards
    for decades in range(1, LOWER_DECADES + 1):
        if not bool(met.any()):
            break
        log_hi = torch.where(met, log_lo, log_hi)
        log_lo = torch.where(met, log_lo - math.log(10), log_lo)
        met = met & (eps_at(log_lo) <= target)
    if bool(met.any()):
        bad = target[met].flatten()[0].item()
        floor = lo * 10.0 ** -LOWER_DECADES
        raise DomainError("target_eps", bad, f"targets missed by some sigma >= {floor:g} (every sigma >= {floor:g} "
                                             "meets this one at these q, steps, delta: the smallest such sigma lies "
                                             "below; pass a smaller lo)")
    # invariant: ε(e^log_hi) ≤ target < ε(e^log_lo); stop when e^(log_hi − log_lo) ≤ 1 + rtol/2
    stop = math.log1p(rtol / 2)
    width = float((log_hi - log_lo).max()) if log_hi.numel() else 0.0
    for _ in range(math.ceil(math.log2(width / stop)) + 1 if width > stop else 0):  # the bound on the steps
        active = (log_hi - log_lo) > stop
        if not bool(active.any()):
            break
        mid = (log_lo + log_hi) / 2
        ok = eps_at(mid) <= target
        log_hi = torch.where(active & ok, mid, log_hi)
        log_lo = torch.where(active & ~ok, mid, log_lo)
    return torch.exp(log_hi)


PLD_RTOL = 1e-3          # calibrate_sigma(method="pld")'s default relative precision of σ
PLD_CALIBRATION_STEP = 2e-5  # the finest lattice a calibration decision may use (then it is decided conservatively)


def _pld_decides(q: float, sigma: float, steps: int, delta: float, target: float) -> bool:
    """Whether the certified upper ε(δ) of ``steps`` SGM steps at (q, σ) is <= target: the PLD sandwich is refined
    only until target lies outside its interval (or the lattice reaches PLD_CALIBRATION_STEP, where an undecided
    σ counts as too small)."""
    acc = Accountant().sgm(q, sigma, steps)

    def target_of(lo, hi):
        if hi <= target or lo > target:
            return math.inf                       # decided
        return max(0.5 * min(target - lo, hi - target), 1e-12)

    with warnings.catch_warnings():  # an undecided σ is decided conservatively below, not reported
        warnings.simplefilter("ignore", RuntimeWarning)
        lo, hi = acc._refined(lambda up, low: (low.epsilon(delta), up.epsilon(delta)), target_of,
                              min_step=PLD_CALIBRATION_STEP)
    return hi <= target


def _calibrate_pld(target: float, delta: float, q: float, steps: float, *, rtol: float, lo: float, hi: float
                   ) -> float:
    """The smallest σ in [lo, hi] (to relative precision rtol) whose certified tight ε(δ) is <= target: a bracket
    grown by factors 1.5 from the central-limit guess q·sqrt(2 T log(1/δ))/ε, then bisection in log σ, every
    decision certified by ``_pld_decides``."""
    steps = int(steps)
    guess = q * math.sqrt(2 * steps * math.log(1 / delta)) / max(target, 1e-12)
    s = min(max(guess, lo), hi)
    if _pld_decides(q, s, steps, delta, target):
        s_hi = s
        while True:
            s_lo = s_hi / 1.5
            if s_lo < lo:
                if _pld_decides(q, lo, steps, delta, target):
                    raise DomainError("target_eps", target, f"met by sigma = lo = {lo:g} already (pass a smaller lo)")
                s_lo = lo
                break
            if not _pld_decides(q, s_lo, steps, delta, target):
                break
            s_hi = s_lo
    else:
        s_lo = s
        while True:
            s_hi = s_lo * 1.5
            if s_hi > hi:
                if not _pld_decides(q, hi, steps, delta, target):
                    raise DomainError("target_eps", target, f"reachable with sigma <= {hi:g} at these q, steps, "
                                                            "delta")
                s_hi = hi
                break
            if _pld_decides(q, s_hi, steps, delta, target):
                break
            s_lo = s_hi
    stop = math.log1p(rtol / 2)
    log_lo, log_hi = math.log(s_lo), math.log(s_hi)
    while log_hi - log_lo > stop:
        mid = (log_lo + log_hi) / 2
        if _pld_decides(q, math.exp(mid), steps, delta, target):
            log_hi = mid
        else:
            log_lo = mid
    return _certified_by_default_query(target, delta, q, steps, math.exp(log_hi), rtol=rtol, hi=hi)


def _default_upper(q: float, sigma: float, steps: int, delta: float) -> float:
    """The ε(δ) a user reads at (q, σ, steps): ``Accountant().sgm(q, σ, steps).get_epsilon(δ)``, the certified
    upper end of the default refinement (max(eps_width, 1e-4·ε) wide)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return Accountant().sgm(q, sigma, steps).epsilon_interval(delta)[1]


def _certified_by_default_query(target: float, delta: float, q: float, steps: int, sigma: float, *, rtol: float,
                                hi: float) -> float:
    """σ, raised by factors (1 + rtol/2) until the default query (:func:`_default_upper`) also reports ε ≤ target.

    The bisection decides at lattice steps down to PLD_CALIBRATION_STEP, finer than the default query refines
    (it stops at a width of 1e-4·ε): at the bisection's σ the default query's upper end could exceed the target by
    about that width (issue 14: 0.10009 at target 0.1, q = 64/455, 143 steps, δ = 1e-5). A calibrated σ must pass the
    very call a user makes to check it; ε(σ) falls by about the relative step per step, so one or two steps
    usually suffice. The relative step starts at rtol/2 and doubles after each failed check (a small rtol would
    otherwise never close a gap of 1e-4), so σ ends at most about twice the needed relative raise above it (at most
    64 checks, then DomainError)."""
    step = rtol / 2
    for _ in range(64):
        if _default_upper(q, sigma, steps, delta) <= target:
            return sigma
        sigma *= 1 + step
        step *= 2
        if sigma > hi:
            break
    raise DomainError("target_eps", target, f"certified by the default accountant query with sigma <= {hi:g} at "
                                            "these q, steps, delta")



def _tail_for(delta: float) -> float:
    """The mass a composition may leave out per side when answering at ``delta``: 1e-8·δ (the upper side adds it to
    δ, the lower side subtracts twice it: a relative change of 1e-8 in δ), within [1e-40, 1e-12]."""
    return min(max(1e-8 * delta, 1e-40), 1e-12)
