"""Walk the catalogue and check every statement; Holm-correct each statement's statistical checks at its share of the
run's family-wise level.

Per statement (nothing here knows a statement id; everything comes from the entry's data):

1. its example parameters must evaluate (a statement that cannot evaluate its own example fails);
2. Monte Carlo checks against each witness pair it names, by what the statement declares its value to be
   (``Statement.value``: ``returns`` and the ``axis`` parameter; nothing is guessed from parameter names):
   * ``rdp_eps``: ε(α) at a few α (the axis) against the witness's lower confidence bound on the moment,
     and exactly against ``log_moment`` when the witness has one;
   * ``delta``: δ at a few ε (the axis) against the two-sided interval of the witness's δ(ε);
   * ``eps`` (ε at the δ named by the axis), ``eps_delta`` (a pair) and ``pure_eps`` (δ = 0): checked as δ at ε;
   * any other value (β of a trade-off function, μ, a noise scale, a loss, a plain number): no Monte Carlo
     check is derived yet; the verdict says so by name;
   ``claim`` decides the side: upper bounds fail when the truth's lower confidence bound exceeds them, lower bounds
   when its upper confidence bound is below them, exact values when either happens; a non-dominating witness only
   ever refutes upper (and exact) claims;
3. its properties at drawn points (:mod:`.properties`): the reference evaluates at points of its domain, declared
   monotonicity, fast ≈ reference, the fast path refusing exactly where the reference's conditions do.

Every amount of work is fixed by the :class:`Settings` (``--quick``, the default, or ``--full``): Monte Carlo sample
sizes (``samples`` per witness point, fewer for T-fold compositions so that n·T stays within ``max_draws``) and the
number of points of each property check; nothing is bounded by time, so a verdict is a function of the code, the
settings and the seed. Seeds derive from the run seed and the statement id (the witness point for Monte Carlo, the
check name for properties), nothing is carried from one statement to the next, and the family-wise level is split
over the catalogue, not over the selection, so ``--only`` reproduces the verdicts of a full run exactly.
"""
from __future__ import annotations

import contextlib
import fnmatch
import math
import sys
import time
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

import mpmath

from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DpspecError

from . import edges, properties, strategies, tilting
from .checks import profile_check, rdp_exact_check, rdp_moment_check
from .sampling import resolve_witness, sample_losses, split_steps
from .verdicts import FAIL, PASS, SKIPPED, Check, Verdict, apply_holm

MC_RETURNS = ("rdp_eps", "delta", "eps", "eps_delta", "pure_eps")
# Checks that do not make a statement checked on their own: its example evaluates, its drawn points evaluate.
NOT_SUBSTANTIVE = ("evaluate", "domain")


@dataclass(frozen=True)
class Settings:
    """What a run checks and how much: every count is fixed here (nothing depends on time or machine speed)."""

    mode: str = "quick"  # also the draw profile of the property checks (conformance.strategies.PROFILES)
    confidence: float = 0.999
    seed: int = 0
    only: str | None = None
    samples: int = 20_000  # privacy-loss draws per witness point
    min_samples: int = 2_000  # below this a composed witness point is skipped (n·T would exceed max_draws)
    max_draws: int = 2_000_000  # per-step draws per witness point
    alphas: tuple[float, ...] = (2.0, 4.0, 16.0, 64.0)  # 16 and 64: where only the tilted estimator sees the tail
    eps: tuple[float, ...] = (0.5, 1.0)
    tilted_samples: int = 100_000  # draws per importance-sampled check (conformance.tilting; power measured here)
    property_examples: int = 5  # points per property check (conformance.properties)
    edge_examples: int = 0  # edge-search points per statement (conformance.edges; the test suite runs a few)
    dps: int = 30

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


QUICK = Settings()
FULL = Settings(mode="full", samples=200_000, min_samples=10_000, max_draws=50_000_000, tilted_samples=200_000,
                alphas=(1.1, 1.5, 2.0, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0), eps=(0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0),
                property_examples=100, edge_examples=60)
EDGE_HANG_GUARD_S = 60.0  # seconds: an edge evaluation running longer is reported as a hang (--full only)


@dataclass
class RunResult:
    """The verdicts of a run. ``family`` is the number of statements the family-wise level is split over (the
    whole list given to :func:`run`, before ``--only``); ``not_run`` the statements a time limit left out;
    ``timings`` wall seconds per statement (kept out of the verdicts: they differ between runs)."""

    settings: Settings
    verdicts: list[Verdict]
    seconds: float = 0.0
    family: int = 0
    not_run: list[str] = field(default_factory=list)
    time_limit: float | None = None
    timings: dict[str, float] = field(default_factory=dict)
    cpu: dict[str, float] = field(default_factory=dict)  # process CPU seconds per statement (a shared machine)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == FAIL]

    @property
    def complete(self) -> bool:
        return not self.not_run

    def counts(self) -> dict[str, int]:
        return {s: sum(v.status == s for v in self.verdicts) for s in (PASS, FAIL, SKIPPED)}

    def to_json(self, timings: bool = True) -> dict[str, Any]:
        """The JSON document. Everything but ``timings`` is a function of the code, the settings and the seed (two
        runs give the same bytes); ``timings=False`` leaves the timings out."""
        doc = {"settings": self.settings.to_json(),
               "family": {"statements": self.family, "alpha_per_statement": _alpha(self.settings, self.family)},
               "complete": self.complete, "time_limit": self.time_limit, "not_run": list(self.not_run),
               "summary": self.counts(), "statements": [v.to_json() for v in self.verdicts]}
        if timings:
            doc["timings"] = {"total_s": round(self.seconds, 3),
                              "statements_s": {k: round(s, 3) for k, s in self.timings.items()},
                              "statements_cpu_s": {k: round(s, 3) for k, s in self.cpu.items()}}
        return doc


def _alpha(settings: Settings, family: int) -> float:
    return (1 - settings.confidence) / max(1, family)


def run(settings: Settings = QUICK, statements: Iterable | None = None, progress: bool | None = None,
        time_limit: float | None = None, clock: Callable[[], float] = time.monotonic,
        log: Callable[[str], None] | None = None) -> RunResult:
    """Check every (selected) statement.

    Family-wise error: the level 1 − confidence is split evenly over the statements of the list (the catalogue, or
    ``statements``) BEFORE ``--only`` selects from it, and each statement's statistical checks are Holm-corrected
    at its share. So a statement's verdict does not depend on which other statements run (``--only ID``
    reproduces it), and a full run still reports a true claim failed with probability at most 1 − confidence.

    ``time_limit`` (seconds): no statement is started after it has passed; those are listed in ``not_run`` (a
    statement that started always finishes, so the limit never changes a verdict). ``progress``: one line per
    statement on stderr (default: when stderr is a terminal); ``log`` replaces the printing."""
    with one_torch_thread():
        return _run(settings, statements, progress, time_limit, clock, log)


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


def _run(settings, statements, progress, time_limit, clock, log) -> RunResult:
    start = clock()
    wall = time.perf_counter()
    entries = list(statements) if statements is not None else catalogue.statements()
    family = len(entries)
    if settings.only:
        entries = [s for s in entries if _selected(s.id, settings.only)]
    show = progress if progress is not None else sys.stderr.isatty()
    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    alpha = _alpha(settings, family)
    result = RunResult(settings, [], family=family, time_limit=time_limit)
    for i, statement in enumerate(entries):
        if time_limit is not None and clock() - start >= time_limit:
            result.not_run = [s.id for s in entries[i:]]
            if show:
                say(f"time limit of {time_limit:g} s reached: {len(result.not_run)} statement(s) not run")
            break
        t0, c0 = time.perf_counter(), time.process_time()
        v = check_statement(statement, settings)
        apply_holm(v.details, alpha)
        if v.status != SKIPPED:
            v.settle()
        if v.status == FAIL:
            v.command = reproduce_command(v.subject, settings)
        v.seconds = time.perf_counter() - t0
        result.verdicts.append(v)
        result.timings[v.subject] = v.seconds
        result.cpu[v.subject] = time.process_time() - c0
        if show:
            say(f"[{i + 1}/{len(entries)}] {v.subject}: {v.status} ({v.seconds:.1f} s)")
    result.seconds = time.perf_counter() - wall
    return result


def _selected(statement_id: str, only: str) -> bool:
    """``only`` is a glob, or several globs separated by commas."""
    return any(fnmatch.fnmatch(statement_id, g.strip()) for g in only.split(",") if g.strip())


def check_statement(statement, settings: Settings = QUICK, variant: str | None = None,
                    params: dict[str, Any] | None = None) -> Verdict:
    """All checks of one statement (statistical ones not yet Holm-corrected: call :func:`settle` or use
    :func:`run`). ``variant`` checks a named variant (e.g. ``printed``) instead of the default; ``params``
    replaces the example point. Runs with one torch thread (:func:`one_torch_thread`)."""
    with one_torch_thread():
        return _check_statement(statement, settings, variant, params)


def _check_statement(statement, settings, variant, params) -> Verdict:
    start = time.perf_counter()
    v = Verdict(statement.id, SKIPPED, confidence=settings.confidence,
                extra={"kind": statement.kind, "claim": statement.claim, "variant": variant or "default"})
    point, missing = _example_point(statement, params)
    reasons = []
    if missing:
        reasons.append(f"no example for {', '.join(missing)}")
    else:
        smoke = _smoke(statement, point, variant, settings.dps)
        if smoke is not None:
            v.details.append(smoke)
        if smoke is None or smoke.ok:
            mc, why = monte_carlo_checks(statement, point, settings, variant)
            v.details += mc
            if why:
                reasons.append(why)
    if variant in (None, statement.default_variant):
        v.details += properties.statement_properties(
            statement, examples=settings.property_examples, seed=settings.seed, dps=settings.dps,
            profile=settings.mode)
    if settings.edge_examples and variant in (None, statement.default_variant):
        # the edge search (conformance/edges.py) at the ends of every domain; a point that runs past
        # EDGE_HANG_GUARD_S is an edge:timeout failure — the one check that can depend on machine speed, and only
        # for an evaluation that is at least that slow (a valid input must answer within seconds)
        v.details += edges.edge_checks(statement, examples=settings.edge_examples,
                                       seed=strategies.stable_seed(settings.seed, statement.id, "edges"),
                                       fast=statement.fast is not None, time_limit_s=EDGE_HANG_GUARD_S,
                                       timings=False)
    substantive = [c for c in v.details if c.name not in NOT_SUBSTANTIVE and (c.statistical or c.ok is not None)]
    v.status = PASS if substantive or any(c.ok is False for c in v.details) else SKIPPED
    if v.status == SKIPPED:
        reasons.append("no property declared")
    v.reason = "; ".join(reasons)
    v.extra["checks_run"] = _summary(v.details)
    v.seconds = time.perf_counter() - start
    return v


def settle(verdict: Verdict) -> Verdict:
    """Holm within one statement's checks, then its status (for checks made outside :func:`run`)."""
    apply_holm(verdict.details, 1 - verdict.confidence)
    return verdict.settle()


def reproduce_command(statement_id: str, settings: Settings) -> str:
    mode = " --full" if settings.mode == "full" else ""
    return f"dpspec conform --only '{statement_id}' --seed {settings.seed} --confidence {settings.confidence}{mode}"


# ---------------------------------------------------------------------------------------------------------
# Monte Carlo


def monte_carlo_checks(statement, point: dict[str, Any], settings: Settings, variant: str | None = None
                       ) -> tuple[list[Check], str]:
    """Checks against every witness of the statement; returns (checks, reason when none could be made)."""
    returns = statement.value.returns
    if returns not in MC_RETURNS:
        return [], f"no Monte Carlo check for a value that is {statement.value.describe()}"
    if not statement.witnesses:
        return [], "no witness pair"
    if returns == "rdp_eps" and statement.claim == "lower" and not any(
            getattr(resolve_witness(u.witness), "log_moment", None) for u in statement.witnesses):
        return [], "an RDP lower bound needs an exact log_moment (sampling only bounds the moment from below)"
    checks, reasons = [], []
    for use_index, use in enumerate(statement.witnesses):
        pair = resolve_witness(use.witness)
        dominating = bool(getattr(pair, "dominating", True))
        if statement.claim == "lower" and not dominating:
            reasons.append(f"{use.witness}: a non-dominating witness cannot refute a lower bound")
            continue
        side = statement.claim if dominating else "upper"
        cache: dict[str, Any] = {}
        for p in _axis_points(statement, point, settings):
            try:
                value = statement.evaluate(dps=settings.dps, variant=variant, **p).value
                wparams = use.witness_params(p)
            except ConditionError:
                continue
            own, steps = split_steps(pair, wparams)
            n = min(settings.samples, settings.max_draws // steps)
            if n < settings.min_samples:
                reasons.append(f"{use.witness}: {steps}-fold composition exceeds the draw budget")
                continue
            key = repr(sorted((k, str(x)) for k, x in wparams.items()))
            if key not in cache:
                seed = _derive_seed(settings.seed, statement.id, use_index, key)
                cache[key] = sample_losses(pair, wparams, n, seed)
            sample = cache[key]
            shown = {k: _plain(x) for k, x in p.items()}
            shown["witness"] = use.witness
            checks += _point_checks(statement, pair, sample, own, steps, p, value, shown, side, settings)
            checks += _tilted_checks(statement, pair, wparams, own, steps, p, value, shown, side, settings,
                                     _derive_seed(settings.seed, statement.id, use_index, key + ":tilted"))
    return checks, "; ".join(dict.fromkeys(reasons)) if not checks else ""


def _point_checks(statement, pair, sample, own, steps, p, value, shown, side, settings) -> list[Check]:
    conf = settings.confidence
    axis = statement.value.axis
    if statement.value.returns == "rdp_eps":
        out = []
        if side in ("upper", "exact"):
            out.append(rdp_moment_check(sample, p[axis], value, shown, conf))
        log_moment = getattr(pair, "log_moment", None)
        if log_moment is not None:
            with mpmath.workdps(settings.dps):
                lm = log_moment(p[axis], **own)
            out.append(rdp_exact_check(lm, p[axis], value, steps, shown, side, sample.record()))
        return out
    if statement.value.returns == "delta":
        return [profile_check(sample, p[axis], value, shown, side, conf)]
    eps, delta = _eps_delta(statement, p, value)
    return [profile_check(sample, eps, delta, {**shown, "claimed_eps": _plain(eps)}, side, conf)]


def _tilted_checks(statement, pair, wparams, own, steps, p, value, shown, side, settings, seed) -> list[Check]:
    """Importance-sampled checks (conformance/tilting.py) where the witness declares its family: RDP moments by the
    tilted law and profiles δ(ε) by sampling toward large losses, each with an empirical-Bernstein interval. They
    see what plain sampling cannot (ε(α) at α up to 64, δ down to 1e-10); the plain checks stay beside them."""
    fam = tilting.family(pair, own)
    if fam is None:
        return []
    conf, n, axis = settings.confidence, settings.tilted_samples, statement.value.axis
    returns = statement.value.returns
    if returns == "rdp_eps":
        return [tilting.check(pair, wparams, "rdp_eps", float(p[axis]), value, side, shown, n=n, seed=seed,
                              confidence=conf)]
    if steps != 1 and not isinstance(fam, tilting.BoundedLoss):
        return []  # composed Gaussian-mixture profiles have no proven weight bound (tilting.profile_interval)
    if returns == "delta":
        eps, delta, point = p[axis], value, shown
    else:
        eps, delta = _eps_delta(statement, p, value)
        point = {**shown, "claimed_eps": _plain(eps)}
    if float(eps) == math.inf:
        return []
    return [tilting.check(pair, wparams, "delta", float(eps), delta, side, point, n=n, seed=seed, confidence=conf)]


def _eps_delta(statement, p, value):
    """(ε, δ) of a value declared ``eps`` (at the δ named by the axis), ``eps_delta`` (a pair) or ``pure_eps``."""
    returns = statement.value.returns
    if returns == "eps_delta":
        if not isinstance(value, tuple) or len(value) != 2:
            raise ValueError(f"{statement.id}: an (ε, δ) value must be a pair, got {value!r}")
        return value
    if isinstance(value, tuple):
        raise ValueError(f"{statement.id}: declared to return {returns!r}, got a tuple of {len(value)} numbers")
    if returns == "eps":
        return value, p[statement.value.axis]
    return value, 0  # pure_eps


def _axis_points(statement, point, settings) -> list[dict[str, Any]]:
    """The example point, and the same point moved along the axis to the settings' orders (RDP) or ε (profiles)."""
    returns, axis = statement.value.returns, statement.value.axis
    if returns not in ("rdp_eps", "delta"):
        return [point]
    domain = next(q.domain for q in statement.params if q.name == axis)
    grid = settings.alphas if returns == "rdp_eps" else settings.eps
    values = sorted({float(point[axis]), *(g for g in grid if domain.contains(g))})
    return [{**point, axis: x} for x in values]


def _example_point(statement, params):
    if params is not None:
        return dict(params), []
    point, missing = {}, []
    for q in statement.params:
        value = strategies.example_value(q)
        if value is None:
            if q.required:
                missing.append(q.name)
            continue
        point[q.name] = value
    return point, missing


def _smoke(statement, point, variant, dps) -> Check | None:
    try:
        ev = statement.evaluate(dps=dps, variant=variant, **point)
    except (DpspecError, ArithmeticError, ValueError) as exc:
        return Check("evaluate", {k: _plain(x) for k, x in point.items()}, ok=False, side="n/a",
                     message=f"the example does not evaluate: {type(exc).__name__}: {exc}")
    return Check("evaluate", {k: _plain(x) for k, x in point.items()}, ok=True, side="n/a",
                 message=f"value {_show(ev.value)}")


def _summary(checks: list[Check]) -> str:
    counts: dict[str, int] = {}
    for c in checks:
        if c.name in NOT_SUBSTANTIVE:
            continue
        key = c.name.split(":")[0]
        counts[key] = counts.get(key, 0) + 1
    return " ".join(f"{k}:{n}" for k, n in counts.items()) or "-"


def _derive_seed(seed: int, statement_id: str, use_index: int, key: str) -> int:
    return zlib.crc32(f"{seed}|{statement_id}|{use_index}|{key}".encode())


def _plain(v: Any) -> Any:
    if callable(v):
        return getattr(v, "statement_id", "curve")
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def _show(v: Any) -> str:
    if isinstance(v, tuple):
        return "(" + ", ".join(_show(x) for x in v) + ")"
    try:
        return mpmath.nstr(v, 10)
    except (TypeError, ValueError):
        return str(v)

