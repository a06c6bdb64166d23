"""Verdict objects and family-wise error control.

A :class:`Check` is one test at one point: statistical (it has a p-value for the null hypothesis "the claim is
true there") or deterministic (an exact comparison, a property, fast vs reference: it has ``ok``). A
:class:`Verdict` collects the checks of one claimed bound (or one catalogue statement) with the reproduction record
and the command that reproduces it. :func:`holm` applies Holm's step-down procedure over every statistical check
of a run, so the probability that any true claim is reported failed is at most 1 − confidence.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Sequence

from dpspec.reference.precision import jsonable

PASS, FAIL, SKIPPED = "pass", "fail", "skipped"


@dataclass
class Check:
    """One check at one point. ``p_value`` is None for deterministic checks (then ``ok`` decides)."""

    name: str  # e.g. "rdp-moment", "rdp-exact", "profile", "monotone:sigma", "fast", "property:<fn>"
    point: dict[str, Any]
    claimed: float | None = None
    estimate: float | None = None  # plug-in estimate of the witness's quantity
    lo: float | None = None  # two-sided interval at the run's confidence (or a one-sided bound)
    hi: float | None = None
    p_value: float | None = None
    ok: bool | None = None  # deterministic checks
    side: str = "upper"  # which claim: "upper" (fails if truth > claimed), "lower", "exact"
    methods: dict[str, Any] = field(default_factory=dict)
    reproduction: dict[str, Any] = field(default_factory=dict)  # what draws the sample again (LossSample.record)
    message: str = ""
    rejected: bool = False  # set by holm() for statistical checks

    @property
    def statistical(self) -> bool:
        return self.p_value is not None

    @property
    def failed(self) -> bool:
        return self.rejected if self.statistical else self.ok is False

    @property
    def margin(self) -> float | None:
        """claimed − (lower bound of the truth) for upper claims, (upper bound) − claimed for lower claims;
        negative means the data contradict the claim (before multiplicity correction)."""
        if self.claimed is None:
            return None
        if self.side == "lower":
            return None if self.hi is None else self.hi - self.claimed
        if self.lo is None:
            return None
        m = self.claimed - self.lo
        if self.side == "exact" and self.hi is not None:
            m = min(m, self.hi - self.claimed)
        return m

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["failed"], d["margin"] = self.failed, self.margin
        return jsonable(d)


@dataclass
class Verdict:
    """The outcome of checking one claim: ``passed``, per-point ``details``, the ``reproduction`` record (the
    witness pair, its parameters, seed and sample size)."""

    subject: str
    status: str  # PASS | FAIL | SKIPPED
    details: list[Check] = field(default_factory=list)
    reproduction: dict[str, Any] = field(default_factory=dict)
    confidence: float = 0.999
    reason: str = ""  # why skipped, or a summary of the failure
    command: str = ""  # the one command that reproduces it
    seconds: float = 0.0  # wall time; not part of to_json() (the JSON of a verdict is the same on every run)
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def passed(self) -> bool:
        return self.status != FAIL

    @property
    def failures(self) -> list[Check]:
        return [c for c in self.details if c.failed]

    @property
    def worst_margin(self) -> float | None:
        margins = [c.margin for c in self.details if c.margin is not None]
        return min(margins) if margins else None

    def settle(self) -> "Verdict":
        """Set ``status`` from the checks (after :func:`holm` has marked rejections)."""
        if self.status != SKIPPED or self.details:
            self.status = FAIL if self.failures else PASS
        if self.failures:
            c = self.failures[0]
            more = f" (+{len(self.failures) - 1} more)" if len(self.failures) > 1 else ""
            where = f" at {_short(c.point)}" if c.point else ""
            self.reason = f"{c.name}{where}: {c.message}{more}".strip()
        return self

    def __bool__(self) -> bool:
        return self.passed

    def to_json(self) -> dict[str, Any]:
        return jsonable({"id": self.subject, "verdict": self.status, "reason": self.reason,
                          "command": self.command, "confidence": self.confidence,
                          "worst_margin": self.worst_margin, "reproduction": self.reproduction, **self.extra,
                          "checks": [c.to_json() for c in self.details]})


def holm(p_values: Sequence[float], alpha: float) -> list[bool]:
    """Holm's step-down procedure: which hypotheses to reject at family-wise error ≤ ``alpha``."""
    order = sorted(range(len(p_values)), key=lambda i: p_values[i])
    m = len(p_values)
    rejected = [False] * m
    for rank, i in enumerate(order):
        if p_values[i] <= alpha / (m - rank):
            rejected[i] = True
        else:
            break
    return rejected


def apply_holm(checks: Iterable[Check], alpha: float) -> None:
    """Mark ``rejected`` on every statistical check, Holm-corrected over all of them together."""
    stats = [c for c in checks if c.statistical]
    for c, r in zip(stats, holm([c.p_value for c in stats], alpha)):
        c.rejected = r


def _short(point: dict[str, Any]) -> str:
    return ", ".join(f"{k}={_fmt(v)}" for k, v in point.items())


def _fmt(v: Any) -> str:
    """A point's value in a reason: floats in full (shortest repr), so that the reason reproduces the point."""
    return repr(v) if isinstance(v, float) else str(v)
