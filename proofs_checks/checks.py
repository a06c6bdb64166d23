"""The proof-check register: mechanical checks of proof steps, one registry for every text.

A check is a function without (required) arguments that *recomputes* its claim and returns a
:class:`CheckResult`. Decorating it with :func:`check` registers it under ``<prefix>.<module>.<function>``, the
prefix and module read from where it lives: ``dpspec.proofs_checks.ptr.thm4_4.white_box_dominates_inside_conditions``
is ``ptr.thm4_4.white_box_dominates_inside_conditions``. ``statements=(...)`` names the catalogue ids a check is
about; without it the default is ``("<prefix>.<module>",)`` when that is a catalogue id (a module named after its
statement, e.g. ``ptr/thm4_4.py``), else nothing. The modules are discovered by the registry mechanism
(:mod:`dpspec.reference.registry`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from dpspec.reference.registry import Registry

PACKAGE = "dpspec.proofs_checks"


@dataclass(frozen=True)
class CheckResult:
    """Outcome of one proof check: ``holds`` is what the computation found; ``evidence`` the numbers behind it."""

    name: str
    holds: bool
    evidence: dict[str, Any] = field(default_factory=dict)
    message: str = ""


@dataclass(frozen=True)
class ProofCheck:
    """A registered check: ``id`` = ``<prefix>.<module>.<function>``, ``fn`` the function, ``declared`` the
    statements named by the decorator (None: the default, see the module docstring)."""

    id: str
    fn: Callable[..., CheckResult]
    declared: tuple[str, ...] | None = None

    @property
    def module(self) -> str:
        """``<prefix>.<module>`` (e.g. ``ptr.thm4_4``)."""
        return self.id.rsplit(".", 1)[0]

    @property
    def statements(self) -> tuple[str, ...]:
        if self.declared is not None:
            return self.declared
        from dpspec.reference import catalogue
        from dpspec.reference.errors import UnknownStatementError

        try:
            return (catalogue.get(self.module).id,)
        except UnknownStatementError:
            return ()

    @property
    def doc(self) -> str:
        return " ".join((self.fn.__doc__ or "").split())

    def __call__(self, **kwargs: Any) -> CheckResult:
        return self.fn(**kwargs)


CHECKS: Registry[ProofCheck] = Registry("proof check", (PACKAGE,), "`dpspec show STATEMENT_ID` lists its checks")


def check_id(fn: Callable[..., Any]) -> str:
    """``<prefix>.<module>.<function>`` from ``dpspec.proofs_checks.<prefix>.<module>``."""
    parts = fn.__module__.split(".")
    base = PACKAGE.split(".")
    if parts[:len(base)] != base or len(parts) != len(base) + 2:
        raise ValueError(f"{fn.__module__}.{fn.__name__}: proof checks live in {PACKAGE}.<prefix>.<module>")
    return ".".join(parts[len(base):] + [fn.__name__])


def check(fn: Callable[..., CheckResult] | None = None, *, statements: tuple[str, ...] | None = None):
    """Register a proof check (``@check`` or ``@check(statements=("ptr.thm4_4",))``); returns the function, with
    ``check_name`` (its id) and ``proof_check`` (the registered :class:`ProofCheck`) attached."""

    def decorate(f: Callable[..., CheckResult]) -> Callable[..., CheckResult]:
        entry = CHECKS.register(ProofCheck(check_id(f), f, None if statements is None else tuple(statements)))
        f.check_name, f.proof_check = entry.id, entry
        return f

    if isinstance(statements, str):
        raise TypeError("statements=(...) takes a tuple of catalogue ids")
    return decorate if fn is None else decorate(fn)


def all_checks(prefix: str | None = None) -> dict[str, ProofCheck]:
    """Every registered check (of one id prefix, e.g. ``"ptr"``, when given), ids in natural order."""
    return {c.id: c for c in CHECKS.items() if prefix is None or c.id.startswith(prefix + ".")}


def get_check(check_id: str) -> ProofCheck:
    return CHECKS.get(check_id)
