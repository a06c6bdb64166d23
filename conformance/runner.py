"""Walk the catalogue and check every statement; Holm-correct each statement's statistical checks at its share of the
run's family-wise level.

Per statement (nothing here knows a statement id; everything comes from the entry's data):

1. its example parameters must evaluate (a statement that cannot evaluate its own example fails);
2. Monte Carlo checks against each witness pair it names, by what the statement declares its value to be
   (``Statement.value``: ``returns`` and the ``axis`` parameter; nothing is guessed from parameter names):
   * ``rdp_eps``: ε(α) at a few α (the axis) against the witness's lower confidence bound on the moment,
     and exactly against ``log_moment`` when the witness has one; at α = 1 the value is a KL divergence, checked
     against a lower confidence bound on E_P[L] and exactly against d/dα log_moment at α = 1;
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
sizes (``samples`` per witness point, fewer for T-fold compositions so that n·T stays within ``max_draws``; beyond
it only the importance-sampled checks run, within ``tilted_composed_draws``) and the
number of points of each property check; nothing is bounded by time, so a verdict is a function of the code, the
settings and the seed. Seeds derive from the run seed and the statement id (the witness point for Monte Carlo, the
check name for properties), nothing is carried from one statement to the next, and the family-wise level is split
over the catalogue, not over the selection, so ``--only`` reproduces the verdicts of a full run exactly.

After the statements, the operator checks of :mod:`.operators` run the same way (ids ``op.*``: the accountant,
``calibrate_sigma``, the training operators, the audit code), each a subject of the family-wise split, with its
counts fixed by the settings' ``op_*`` fields.
"""
from __future__ import annotations

import fnmatch
import math
import sys
import time
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable

import mpmath

from dpspec.reference import catalogue
from dpspec.reference.domains import Integer, Real
from dpspec.reference.errors import ConditionError, DpspecError

from . import edges, properties, strategies, tilting
from .checks import profile_check, rdp_exact_check, rdp_moment_check
from .sampling import one_torch_thread, resolve_witness, sample_losses, split_steps
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
    # orders above the sampling grid: only the exact check (witness log_moment, no samples) and the tilted check
    # (a declared family) run there; plain sampling has no power at these orders and is not run
    high_alphas: tuple[float, ...] = (128.0, 256.0, 1024.0)
    domain_points: int = 2  # drawn points of the statement's domain (inside its conditions) with exact/tilted checks
    domain_tries: int = 60  # candidate draws per domain point at most (bounded work; a point not found is skipped)
    low_ends_below: float = 1e-3  # a low-end point for each log-scale parameter whose range reaches below this
    eps: tuple[float, ...] = (0.5, 1.0)
    tilted_samples: int = 100_000  # draws per importance-sampled check (conformance.tilting; power measured here)
    # T-fold tilted profiles (Gaussian-mixture witnesses composed T times): n·T per-step draws per check at most, and
    # no check below tilted_composed_min composed draws (tilting.profile_interval; power in tests/conformance)
    tilted_composed_draws: int = 4_000_000
    tilted_composed_min: int = 200
    property_examples: int = 5  # points per property check (conformance.properties)
    edge_examples: int = 0  # edge-search points per statement (conformance.edges; the test suite runs a few)
    dps: int = 30
    # operator checks (conformance/operators.py: op.accountant, op.calibrate_sigma, the training operators, op.audit)
    op_pairs: int = 110  # distinct (q, σ) pairs of the subsampled Gaussian in the drawn accountant schedule
    op_orders: tuple[float, ...] = (2.0, 4.0, 16.0)  # integer orders (the reference SGM is an exact binomial sum)
    op_deltas: tuple[float, ...] = (1e-5,)
    op_fractional: bool = False  # also the reference composed curve at the accountant's own order α* (0.3 s a pair)
    op_calibrate_points: int = 1  # drawn (target ε, δ, q, steps) for calibrate_sigma (~4 s each: a certified search)
    op_calibrate_rtol: float = 1e-3
    op_batches: int = 12  # drawn batches per training-operator check
    op_audit: bool = False  # op.audit (about 5 s) runs with --full only
    op_audit_samples: int = 1000

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


QUICK = Settings()
FULL = Settings(mode="full", samples=200_000, min_samples=10_000, max_draws=50_000_000, tilted_samples=200_000,
                tilted_composed_draws=20_000_000,
                alphas=(1.1, 1.5, 2.0, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0), eps=(0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0),
                high_alphas=(128.0, 256.0, 512.0, 1024.0), domain_points=16, low_ends_below=math.inf,
                property_examples=100, edge_examples=60, op_pairs=200, op_orders=(2.0, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0),
                op_deltas=(1e-5, 1e-8), op_fractional=True, op_calibrate_points=5, op_batches=60, op_audit=True,
                op_audit_samples=3000)
EDGE_HANG_GUARD_S = 60.0  # seconds: an edge evaluation running longer is reported as a hang (--full only)


@dataclass
class RunResult:
    """The verdicts of a run. ``family`` is the number of subjects the family-wise level is split over (the
    statements given to :func:`run` plus its operator checks, before ``--only``); ``not_run`` the subjects a time
    limit left out;
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
        log: Callable[[str], None] | None = None, operators: Iterable | None = None) -> RunResult:
    """Check every (selected) statement, then every (selected) operator check (conformance/operators.py: ids
    ``op.*``, e.g. ``op.accountant``; ``--only 'op.*'`` selects them).

    ``operators``: the operator checks to run; by default all of ``operators.OPERATORS`` when ``statements`` is
    None (the catalogue run of ``dpspec conform``), none when a statement list is given (pass
    ``operators=operators.OPERATORS`` with a full statement list to reproduce the family of a CLI run).

    Family-wise error: the level 1 − confidence is split evenly over the subjects of the run (the statements of the
    list — the catalogue, or ``statements`` — plus the operator checks) BEFORE ``--only`` selects from them, and each
    subject's statistical checks are Holm-corrected at its share. So a statement's verdict does not depend on which
    other statements run (``--only ID`` reproduces it), and a full run still reports a true claim failed with
    probability at most 1 − confidence.

    ``time_limit`` (seconds): no statement is started after it has passed; those are listed in ``not_run`` (a
    statement that started always finishes, so the limit never changes a verdict). ``progress``: one line per
    statement on stderr (default: when stderr is a terminal); ``log`` replaces the printing."""
    with one_torch_thread():
        return _run(settings, statements, progress, time_limit, clock, log, operators)


def _run(settings, statements, progress, time_limit, clock, log, operators) -> RunResult:
    from . import operators as operator_checks

    start = clock()
    wall = time.perf_counter()
    if operators is None:
        operators = operator_checks.OPERATORS if statements is None else ()
    entries = list(statements if statements is not None else catalogue.statements()) + list(operators)
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
        if isinstance(statement, operator_checks.OperatorCheck):
            v = check_operator(statement, settings)
        else:
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
        if statement.witnesses and statement.value.returns in MC_RETURNS:  # at drawn points of the domain only
            mc, why = monte_carlo_checks(statement, None, settings, variant)
            v.details += mc
            if why and not mc:
                reasons.append(why)
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


def check_operator(op, settings: Settings = QUICK) -> Verdict:
    """All checks of one operator check (conformance/operators.py), statistical ones not yet Holm-corrected. Runs
    with one torch thread. A check that raises is a failure naming the exception (an operator must not crash on
    inputs drawn from its domain); one that does not run under these settings is skipped, saying why."""
    with one_torch_thread():
        start = time.perf_counter()
        v = Verdict(op.id, SKIPPED, confidence=settings.confidence,
                    extra={"kind": "operator", "claim": op.claim, "variant": "default"})
        why = op.skip(settings)
        if why:
            v.reason = why
        else:
            try:
                v.details = list(op.run(settings))
            except Exception as exc:  # noqa: BLE001 - reported as the check's failure, in one line
                v.details = [Check("run", {}, ok=False, side="n/a",
                                   message=f"the check raised {type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
                                   if str(exc) else f"the check raised {type(exc).__name__}")]
            v.status = PASS if v.details else SKIPPED
            if not v.details:
                v.reason = "no check ran"
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
    """Checks against every witness of the statement; returns (checks, reason when none could be made).

    At the example ``point`` (when there is one): plain sampling, exact and tilted checks along the axis grid
    (:func:`_axis_points`), then exact and tilted checks only at ``Settings.high_alphas``. At the drawn points of
    :func:`domain_points` (inside the statement's conditions, at the low ends of its parameters): exact and tilted
    checks only (no plain sampling) at each point's own axis value and at ``Settings.high_alphas`` where the
    conditions admit them (the first drawn point is chosen so that they do). Every sample-free check's point names where
    it was made (``at``: "example", "domain 1", "low q", ...) and the ``dpspec eval`` command of its claimed value
    (``eval``); ``dpspec conform --only ID`` with the run's seed reproduces the verdict."""
    returns = statement.value.returns
    if returns not in MC_RETURNS:
        return [], f"no Monte Carlo check for a value that is {statement.value.describe()}"
    if not statement.witnesses:
        return [], "no witness pair"
    if returns == "rdp_eps" and statement.claim == "lower" and not any(
            getattr(resolve_witness(u.witness), "log_moment", None) for u in statement.witnesses):
        return [], "an RDP lower bound needs an exact log_moment (sampling only bounds the moment from below)"
    checks, reasons = [], []
    drawn = domain_points(statement, settings, variant, point)
    for use_index, use in enumerate(statement.witnesses):
        pair = resolve_witness(use.witness)
        dominating = bool(getattr(pair, "dominating", True))
        if statement.claim == "lower" and not dominating:
            reasons.append(f"{use.witness}: a non-dominating witness cannot refute a lower bound")
            continue
        side = statement.claim if dominating else "upper"
        cache: dict[str, Any] = {}
        for p in (_axis_points(statement, point, settings) if point is not None else []):
            wparams = _witness_params(use, p)
            if wparams is None:  # the use does not apply at this point (e.g. a curve of another mechanism)
                continue
            try:
                value = statement.evaluate(dps=settings.dps, variant=variant, **p).value
            except ConditionError:
                continue
            own, steps = split_steps(pair, wparams)
            n = min(settings.samples, settings.max_draws // steps)
            key = repr(sorted((k, str(x)) for k, x in wparams.items()))
            if n < settings.min_samples:  # no plain sample; the importance-sampled checks still run (their own budget)
                reasons.append(f"{use.witness}: {steps}-fold composition exceeds the plain draw budget")
                shown = {**{k: _plain(x) for k, x in p.items()}, "witness": use.witness}
                checks += _tilted_checks(statement, pair, wparams, own, steps, p, value, shown, side, settings,
                                         _derive_seed(settings.seed, statement.id, use_index, key + ":tilted"))
                continue
            if key not in cache:
                seed = _derive_seed(settings.seed, statement.id, use_index, key)
                cache[key] = sample_losses(pair, wparams, n, seed)
            sample = cache[key]
            shown = {k: _plain(x) for k, x in p.items()}
            shown["witness"] = use.witness
            checks += _point_checks(statement, pair, sample, own, steps, p, value, shown, side, settings)
            checks += _tilted_checks(statement, pair, wparams, own, steps, p, value, shown, side, settings,
                                     _derive_seed(settings.seed, statement.id, use_index, key + ":tilted"))
    # sample-free checks: every point at the high orders (those inside the conditions), every drawn point also at
    # its own axis value; the statement is evaluated once per point, every witness use checked against it
    where = [("example", p) for p in _high_orders(statement, point, settings, own_axis=False)] if point else []
    for label, q in drawn:
        where += [(label, p) for p in _high_orders(statement, q, settings, own_axis=True)]
    for label, p in where:
        checks += _sample_free_point(statement, p, settings, variant, label)
    if point is None and not drawn:
        reasons.append("no example point, and no point of the domain inside the conditions was drawn")
    return checks, "; ".join(dict.fromkeys(reasons)) if not checks else ""


def _sample_free_point(statement, p, settings, variant, label) -> list[Check]:
    """:func:`_sample_free_checks` of every witness use at one point, the statement evaluated once."""
    uses = []
    for use_index, use in enumerate(statement.witnesses):
        pair = resolve_witness(use.witness)
        dominating = bool(getattr(pair, "dominating", True))
        if statement.claim == "lower" and not dominating:
            continue
        if _witness_params(use, p) is not None:
            uses.append((use_index, use, pair, statement.claim if dominating else "upper"))
    if not uses:
        return []
    try:
        value = statement.evaluate(dps=settings.dps, variant=variant, **strategies.reference_args(p)).value
    except ConditionError:
        return []
    return [c for use_index, use, pair, side in uses
            for c in _sample_free_checks(statement, pair, use, use_index, p, side, settings, variant, label, value)]


def _sample_free_checks(statement, pair, use, use_index, p, side, settings, variant, label, value=None
                        ) -> list[Check]:
    """The exact check (the witness's ``log_moment``: no samples) and the tilted check (its declared family) of the
    claimed value at one point ``p`` (drawn values; the statement evaluated at :func:`strategies.reference_args`
    of it unless its ``value`` is given)."""
    wparams = _witness_params(use, p)
    if wparams is None:
        return []
    if value is None:
        try:
            value = statement.evaluate(dps=settings.dps, variant=variant, **strategies.reference_args(p)).value
        except ConditionError:
            return []
    own, steps = split_steps(pair, wparams)
    shown = {k: _plain(x) for k, x in strategies.plain(p).items()}
    shown.update({"witness": use.witness, "at": label, "eval": eval_command(statement.id, p, variant)})
    key = repr(sorted((k, str(x)) for k, x in wparams.items()))
    out = []
    axis = statement.value.axis
    log_moment = getattr(pair, "log_moment", None)
    if statement.value.returns == "rdp_eps" and log_moment is not None:
        record = {"witness": use.witness, "params": {k: _plain(x) for k, x in own.items()}, "steps": steps,
                  "log_moment": True}
        out.append(_exact_check(log_moment, mpmath.mpf(p[axis]), own, value, steps, shown, side, record, settings))
    seed = strategies.stable_seed(settings.seed, statement.id, "mc-sample-free", use_index, key, str(p[axis])
                                  if axis in p else "")
    out += _tilted_checks(statement, pair, wparams, own, steps, p, value, shown, side, settings, seed)
    return out


def _high_orders(statement, point, settings, own_axis: bool) -> list[dict[str, Any]]:
    """``point`` at the settings' high orders (RDP statements whose axis domain holds them), preceded by the point
    itself when ``own_axis`` (a drawn point carries its own drawn order or ε)."""
    out = [dict(point)] if own_axis else []
    if statement.value.returns != "rdp_eps":
        return out
    axis = statement.value.axis
    domain = next(q.domain for q in statement.params if q.name == axis)
    own = float(point[axis]) if own_axis and axis in point else None
    return out + [{**point, axis: float(a)} for a in settings.high_alphas if domain.contains(a) and a != own]


def domain_points(statement, settings: Settings, variant: str | None = None,
                  example: dict[str, Any] | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Points of the statement's declared domain for the sample-free Monte Carlo checks, as (label, point); every
    point is inside the statement's conditions at its own axis value and has a witness use that applies:

    * ``domain i``: ``Settings.domain_points`` draws of :class:`strategies.Draws` (the profile of the run); for an
      RDP statement the first is the first draw whose conditions also admit the lowest of ``Settings.high_alphas``
      (a theorem whose conditions bound α, e.g. ptr.thm4_4's (C3)/(C4), is checked above α = 64 there), falling back
      to the first draw inside the conditions;
    * ``low NAME``: for each log-scale real parameter other than the axis whose range reaches below
      ``Settings.low_ends_below`` (1e-3 in --quick: sampling rates, δ0; every one in --full), the example point (or
      the first drawn one) with NAME drawn log-uniformly from the lowest two decades of its range (q ∈ [1e-8, 1e-6]
      for a sampling rate), and with ``--full`` also ``high NAME`` from the highest two decades.

    Deterministic: one :class:`strategies.Draws` stream per statement, seeded by ``stable_seed(run seed, id,
    "mc-domain")``; at most ``Settings.domain_tries`` candidates per point (bounded work)."""
    if settings.domain_points <= 0:
        return []
    draws = strategies.Draws(strategies.stable_seed(settings.seed, statement.id, "mc-domain"), settings.mode)
    axis = statement.value.axis
    high = settings.high_alphas[0] if statement.value.returns == "rdp_eps" and settings.high_alphas else None
    out: list[tuple[str, dict[str, Any]]] = []
    for i in range(settings.domain_points):
        found = fallback = None
        for _ in range(settings.domain_tries):
            try:
                cand = draws.params(statement)
            except (TypeError, ValueError):
                break
            if not _applies(statement, cand, settings, variant):
                continue
            if high is None or i > 0:
                found = cand
                break
            fallback = fallback or cand
            if _applies(statement, {**cand, axis: float(high)}, settings, variant):
                found = cand
                break
        if found or fallback:
            out.append((f"domain {i + 1}", found or fallback))
    base = dict(example) if example is not None else (dict(out[0][1]) if out else None)
    if base is None:
        return out
    ends = ("low", "high") if settings.mode == "full" else ("low",)
    for q in statement.params:
        if q.name == axis or not isinstance(q.domain, Real) or q.domain.scale != "log" or q.name not in base:
            continue
        lo, hi = (float(v) for v in draws._range(q.domain))
        if not (0 < lo < hi < math.inf) or lo >= settings.low_ends_below:
            continue
        for end in ends:
            a, b = (lo, min(hi, lo * 100)) if end == "low" else (max(lo, hi / 100), hi)
            for _ in range(settings.domain_tries):
                x = float(f"{math.exp(math.log(a) + draws.rng.random() * (math.log(b) - math.log(a))):.10g}")
                cand = {**base, q.name: x}
                if q.domain.contains(x) and _applies(statement, cand, settings, variant):
                    out.append((f"{end} {q.name}", cand))
                    break
    return out


def _applies(statement, point, settings, variant) -> bool:
    """The point (drawn values; evaluated as :func:`strategies.reference_args` gives them) binds, lies inside the statement's conditions (no reference evaluation) and some witness use maps
    it (a mapping returning None does not apply there)."""
    conditions = statement.conditions
    if variant not in (None, statement.default_variant) and variant in statement.variants:
        own = statement.variants[variant].conditions
        conditions = conditions if own is None else own
    try:
        with mpmath.workdps(settings.dps):
            bound = statement.bind(strategies.reference_args(point))
            if any(not c.holds(bound) for c in conditions):
                return False
    except (DpspecError, ArithmeticError):
        return False
    return any(_witness_params(use, point) is not None for use in statement.witnesses)


def _witness_params(use, point):
    """The witness parameters of a use at a point, or None where the use does not apply: its mapping refuses the
    point (a DpspecError, e.g. base.rdp_composition's Gaussian witness for a curve of another mechanism, or an
    ArithmeticError, e.g. σ = 1/μ at μ = 0) or yields a value outside the witness's own parameter domains."""
    try:
        wparams = use.witness_params(point)
    except (DpspecError, ArithmeticError):
        return None
    pair = resolve_witness(use.witness)
    for q in getattr(pair, "params", ()):
        if q.name in wparams and isinstance(q.domain, (Real, Integer)):
            try:
                x = float(wparams[q.name])
            except (TypeError, ValueError):
                return None
            if not q.domain.contains(x):
                return None
    return wparams


def eval_command(statement_id: str, point: dict[str, Any], variant: str | None = None) -> str:
    """The ``dpspec eval`` command of the statement's value at ``point`` (a curve as its id and its parameters)."""
    parts = [f"dpspec eval {statement_id}"]
    if variant:
        parts.append(f"--variant {variant}")
    for k, v in point.items():
        sid = getattr(v, "statement_id", None)
        if sid is not None:
            parts.append(f"{k}={sid}")
            parts += [f"{ck}={_decimal(cv)}" for ck, cv in (getattr(v, "params", None) or {}).items()]
        else:
            parts.append(f"{k}={_decimal(v)}")
    return " ".join(parts)


def _decimal(v: Any) -> Any:
    """A float as the decimal string of its shortest repr (exactly what ``dpspec eval`` parses)."""
    return repr(v) if isinstance(v, float) else v


def _exact_check(log_moment, alpha, own, value, steps, shown, side, record, settings) -> Check:
    """The exact check against the witness's ``log_moment``; where the moment itself cannot be computed to the
    working precision (a PrecisionError or ArithmeticError of its quadrature) the check is reported as not made
    (``ok`` None, the reason in its message) — a limit of the witness, not evidence about the claim. At α = 1 the
    claim is a KL divergence: :func:`_kl_exact_check`."""
    if float(alpha) == 1:
        return _kl_exact_check(log_moment, own, value, steps, shown, side, record, settings)
    try:
        with mpmath.workdps(settings.dps):
            lm = log_moment(alpha, **own)
    except (DpspecError, ArithmeticError) as exc:
        return Check("rdp-exact", shown, claimed=_plain(value), side=side, reproduction=record,
                     message=f"not made: the witness's exact moment failed here ({type(exc).__name__}: "
                             f"{str(exc)[:200]})")
    return rdp_exact_check(lm, alpha, value, steps, shown, side, record)


KL_DIFF_AGREE = mpmath.mpf(10) ** -20  # two numerical derivatives of log_moment at α = 1 must agree this closely


def _kl_exact_check(log_moment, own, value, steps, shown, side, record, settings) -> Check:
    """The exact KL check (α = 1): D_1(P‖Q) = KL = E_P[L] = d/dα log E_Q[(p/q)^α] at α = 1 (the moment's
    log is (α − 1)D_α, whose derivative at 1 is D_1; van Erven & Harremoës 2014, Thm 5), T-fold: T·KL. The
    derivative of the witness's own ``log_moment`` is taken by mpmath.diff at 2·dps digits (central differences, or
    forward ones where the moment refuses α < 1; steps of two sizes, which must agree to KL_DIFF_AGREE relative,
    else the check is reported as not made), and the
    claim is compared like ``rdp_exact_check`` (relative tolerance EXACT_RTOL of checks.py)."""
    from .checks import EXACT_RTOL  # noqa: PLC0415

    record = {**record, "kl": "d/dα log_moment at α = 1"}
    try:
        with mpmath.workdps(2 * settings.dps):
            f = lambda a: log_moment(a, **own)  # noqa: E731
            try:
                d1 = mpmath.diff(f, 1)
                side_kw = {}
            except DpspecError:  # a moment defined for α ≥ 1 only: one-sided differences
                side_kw = {"direction": 1}
                d1 = mpmath.diff(f, 1, **side_kw)
            d2 = mpmath.diff(f, 1, h=mpmath.mpf(2) ** (-mpmath.mp.prec // 4), **side_kw)
            if not (mpmath.isfinite(d1) and abs(d1 - d2) <= KL_DIFF_AGREE * max(abs(d1), mpmath.mpf(1e-30))):
                raise ArithmeticError(f"the numerical derivatives of log_moment at α = 1 disagree ({mpmath.nstr(d1, 12)}"
                                      f" vs {mpmath.nstr(d2, 12)})")
    except (DpspecError, ArithmeticError, ValueError, ZeroDivisionError) as exc:
        return Check("kl-exact", shown, claimed=_plain(value), side=side, reproduction=record,
                     message=f"not made: the witness's KL (d/dα of its exact moment at 1) failed here "
                             f"({type(exc).__name__}: {str(exc)[:200]})")
    with mpmath.workdps(50):
        exact = steps * d1
        claimed = mpmath.mpf(value)
        tol = EXACT_RTOL * max(abs(exact), mpmath.mpf(1e-30))
        ok = {"upper": claimed >= exact - tol, "lower": claimed <= exact + tol,
              "exact": abs(claimed - exact) <= tol}[side]
        msg = f"KL claimed {mpmath.nstr(claimed, 12)}; witness D_1 = E_P[L] = {mpmath.nstr(exact, 12)}"
    ex = float(exact)
    return Check("kl-exact", shown, claimed=float(claimed), estimate=ex, lo=ex, hi=ex, ok=bool(ok), side=side,
                 reproduction=record, message=msg)


def _kl_sample_check(sample, claimed, shown, confidence) -> Check:
    """Statistical check of a claimed KL divergence (an upper or exact claim; α = 1 of an RDP statement) against a
    lower confidence bound on E_P[L] from the plain sample: Y = L − 1 + e^{−L} ≥ 0 has mean E_P[L] (E_P[e^{−L}] =
    Q(p > 0) ≤ 1, with equality where Q ≪ P; otherwise the mean is smaller, which keeps the bound a lower one), and
    min(Y, c)/c ∈ [0, 1] for c = claimed × (2, 8, 32) (checks.TRUNCATION_FACTORS, Bonferroni over them and the
    gating methods) gives a bounded-mean p-value of H0 "E_P[L] ≤ claimed" that is valid for every n (as
    checks.rdp_moment_check does for the moment)."""
    import torch  # noqa: PLC0415

    from .checks import TRUNCATION_FACTORS, _gating_methods  # noqa: PLC0415
    from .intervals import pvalue_above, stratified_lower  # noqa: PLC0415

    c = float(claimed)
    if math.isnan(c):
        raise ValueError(f"claimed KL is NaN at {shown}")
    beta = 1 - confidence
    strata = [(s.weight, s.losses) for s in sample.strata]
    ys = [(w, torch.where(torch.isneginf(L), torch.full_like(L, math.inf), L - 1 + torch.exp(-L))) for w, L in strata]
    est = sum(w * float(y[torch.isfinite(y)].mean()) for w, y in ys if w > 0)
    if c == math.inf or c <= 0:
        p = 1.0 if c == math.inf else 0.0
        return Check("kl-sample", {**shown}, claimed=c, estimate=est, p_value=p, side="upper",
                     reproduction=sample.record(), message=f"KL claimed {c:.6g}: decided without samples")
    gate = _gating_methods(sample)
    k = len(TRUNCATION_FACTORS) * len(gate)
    p_values, lo = [], 0.0
    for factor in TRUNCATION_FACTORS:
        cap = c * factor
        z = [(w, torch.clamp(y, max=cap) / cap) for w, y in ys]
        for m in gate:
            p_values.append(pvalue_above(z, 1 / factor, m, beta))
            lo = max(lo, cap * stratified_lower(z, beta / k, m, tune=beta))
    p = min(1.0, k * min(p_values))
    return Check("kl-sample", {**shown}, claimed=c, estimate=est, lo=lo, p_value=p, side="upper",
                 methods={"truncation_factors": list(TRUNCATION_FACTORS), "p_values": p_values},
                 reproduction=sample.record(),
                 message=f"KL claimed {c:.6g}; witness E_P[L] ≥ {lo:.6g} at {confidence} (plug-in {est:.6g}, "
                         f"n = {sample.n})")


def _point_checks(statement, pair, sample, own, steps, p, value, shown, side, settings) -> list[Check]:
    conf = settings.confidence
    axis = statement.value.axis
    if statement.value.returns == "rdp_eps":
        out = []
        if side in ("upper", "exact"):
            kl = float(p[axis]) == 1  # α = 1: the value is a KL divergence, E_P[L] (no division by α − 1)
            out.append(_kl_sample_check(sample, value, shown, conf) if kl else
                       rdp_moment_check(sample, p[axis], value, shown, conf))
        log_moment = getattr(pair, "log_moment", None)
        if log_moment is not None:
            out.append(_exact_check(log_moment, p[axis], own, value, steps, shown, side, sample.record(), settings))
        return out
    if statement.value.returns == "delta":
        return [profile_check(sample, p[axis], value, shown, side, conf)]
    eps, delta = _eps_delta(statement, p, value)
    side = _eps_side(eps, side)
    if side is None:
        return []
    return [profile_check(sample, eps, delta, {**shown, "claimed_eps": _plain(eps)}, side, conf)]


def _tilted_checks(statement, pair, wparams, own, steps, p, value, shown, side, settings, seed) -> list[Check]:
    """Importance-sampled checks (conformance/tilting.py) where the witness declares its family: RDP moments by the
    tilted law and profiles δ(ε) by sampling toward large losses, each with an empirical-Bernstein interval. They
    see what plain sampling cannot (ε(α) at α up to 64, δ down to 1e-10); the plain checks stay beside them.
    T-fold Gaussian-mixture profiles (e.g. dc.reading_* through dc.joint_step at T up to 1e4) run with
    n = min(tilted_samples, tilted_composed_draws // T) composed draws, none below tilted_composed_min; at α = 1 (a
    KL) there is no tilted check (the exact and plain-sample KL checks run)."""
    fam = tilting.family(pair, own)
    if fam is None:
        return []
    conf, n, axis = settings.confidence, settings.tilted_samples, statement.value.axis
    returns = statement.value.returns
    if returns == "rdp_eps":
        if float(p[axis]) == 1:
            return []  # a KL (α = 1): no tilted estimator of E_P[L] yet (the exact and plain-sample KL checks run)
        return [tilting.check(pair, wparams, "rdp_eps", float(p[axis]), value, side, shown, n=n, seed=seed,
                              confidence=conf)]
    if returns == "delta":
        eps, delta, point = p[axis], value, shown
    else:
        eps, delta = _eps_delta(statement, p, value)
        point = {**shown, "claimed_eps": _plain(eps)}
        side = _eps_side(eps, side)
        if side is None:
            return []
    if float(eps) == math.inf:
        return []
    if steps != 1 and isinstance(fam, tilting.GaussianMixture):
        # T-fold: every step tilted by one λ (tilting.composed_law); n·T per-step draws within the settings' budget
        n = min(n, settings.tilted_composed_draws // steps)
        if n < settings.tilted_composed_min or tilting.composed_law(fam, steps, float(eps)) is None:
            return []
    return [tilting.check(pair, wparams, "delta", float(eps), delta, side, point, n=n, seed=seed, confidence=conf)]


def _eps_side(eps, side):
    """The side on which a claimed ε(δ) is checked as δ at ε, or None. ε(δ) = inf{ε ≥ 0 : δ(ε) ≤ δ} is 0 whenever
    δ(0) ≤ δ, so a claimed ε = 0 says nothing as a LOWER bound (every ε(δ) ≥ 0) and must not be read as "δ(0) ≥ δ":
    a lower claim of 0 is not checked, an exact one only as an upper claim (δ(0) ≤ δ). (Found when the T-fold tilted
    checks first reached base.pld_sgm_epsilon_lower at q = 5e-8: its lower ε is 0 there, δ(0) ≈ 1e-7 < δ = 1e-5.)"""
    if float(eps) == 0 and side in ("lower", "exact"):
        return None if side == "lower" else "upper"
    return side


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

