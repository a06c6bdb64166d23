"""Walk the catalogue and check every statement; Holm-correct the statistical checks of the whole run.

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
3. its declared properties (monotonicity, fast ≈ reference, extra property callables) by hypothesis.

Sample sizes are set per statement (``samples`` per witness point, fewer for T-fold compositions so that n·T stays
within ``max_draws``), so a run grows linearly with the catalogue. Seeds are derived from the run seed, the
statement id and the witness point, so ``--only`` reproduces the numbers of a full run.
"""
from __future__ import annotations

import fnmatch
import sys
import time
import zlib
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable

import mpmath

from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DpspecError

from . import properties, strategies
from .checks import profile_check, rdp_exact_check, rdp_moment_check
from .sampling import resolve_witness, sample_losses, split_steps
from .verdicts import FAIL, PASS, SKIPPED, Check, Verdict, apply_holm

MC_RETURNS = ("rdp_eps", "delta", "eps", "eps_delta", "pure_eps")


@dataclass(frozen=True)
class Settings:
    mode: str = "quick"
    confidence: float = 0.999
    seed: int = 0
    only: str | None = None
    samples: int = 20_000  # privacy-loss draws per witness point
    min_samples: int = 2_000  # below this a composed witness point is skipped (n·T would exceed max_draws)
    max_draws: int = 2_000_000  # per-step draws per witness point
    alphas: tuple[float, ...] = (2.0, 4.0)
    eps: tuple[float, ...] = (0.5, 1.0)
    property_examples: int = 5
    property_budget_s: float = 1.5
    dps: int = 30

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


QUICK = Settings()
FULL = Settings(mode="full", samples=200_000, min_samples=10_000, max_draws=50_000_000,
                alphas=(1.1, 1.5, 2.0, 3.0, 4.0, 8.0, 16.0), eps=(0.0, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0),
                property_examples=100, property_budget_s=30.0)


@dataclass
class RunResult:
    settings: Settings
    verdicts: list[Verdict]
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == FAIL]

    def counts(self) -> dict[str, int]:
        return {s: sum(v.status == s for v in self.verdicts) for s in (PASS, FAIL, SKIPPED)}

    def to_json(self) -> dict[str, Any]:
        return {"settings": self.settings.to_json(), "seconds": round(self.seconds, 3), "summary": self.counts(),
                "statements": [v.to_json() for v in self.verdicts]}


def run(settings: Settings = QUICK, statements: Iterable | None = None, progress: bool | None = None) -> RunResult:
    """Check every (selected) statement; Holm over all statistical checks of the run at 1 − confidence."""
    start = time.perf_counter()
    entries = list(statements) if statements is not None else catalogue.statements()
    if settings.only:
        entries = [s for s in entries if fnmatch.fnmatch(s.id, settings.only)]
    show = progress if progress is not None else sys.stderr.isatty()
    verdicts = [check_statement(s, settings) for s in _track(entries, show)]
    apply_holm([c for v in verdicts for c in v.details], 1 - settings.confidence)
    for v in verdicts:
        if v.status != SKIPPED:
            v.settle()
        if v.status == FAIL:
            v.command = reproduce_command(v.subject, settings)
    return RunResult(settings, verdicts, time.perf_counter() - start)


def check_statement(statement, settings: Settings = QUICK, variant: str | None = None,
                    params: dict[str, Any] | None = None) -> Verdict:
    """All checks of one statement (statistical ones not yet Holm-corrected: call :func:`settle` or use
    :func:`run`). ``variant`` checks a named variant (e.g. ``printed``) instead of the default; ``params``
    replaces the example point."""
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
            statement, max_examples=settings.property_examples, budget_s=settings.property_budget_s,
            seed=settings.seed, dps=settings.dps, cheap=settings.mode == "quick")
    substantive = [c for c in v.details if c.name != "evaluate" and (c.statistical or c.ok is not None)]
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
        if c.name == "evaluate":
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


def _track(items: list, show: bool):
    if not show or len(items) < 2:
        yield from items
        return
    from rich.progress import track

    yield from track(items, description="conform", transient=True)
