"""Errors raised by dpspec. Dependency-free: the fast path imports this module too.

Every user error is a ``ValueError`` subclass whose message names the parameter, the offending value and
the domain, so that the command line can print it as one line.
"""
from __future__ import annotations


class DpspecError(ValueError):
    """Base class of every user-facing dpspec error."""


class UnknownStatementError(DpspecError, KeyError):
    """An id that is not in the catalogue (statement, witness or erratum)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else "unknown id"


class ParameterError(DpspecError):
    """A parameter is missing, unknown, or malformed."""


class DomainError(ParameterError):
    """A parameter value lies outside its domain (NaN included)."""

    def __init__(self, name: str, value: object, domain: str):
        self.name, self.value, self.domain = name, value, domain
        shown = repr(value) if value is None or value == "" else value
        super().__init__(f"{name}={shown} is outside its domain {domain}")


class ConditionError(DpspecError):
    """A theorem is evaluated outside its own conditions (its validity predicate is false).

    The caller may opt in with ``allow_outside=True``; the result is then marked as not a bound.
    """

    def __init__(self, statement_id: str, failed: list[str]):
        self.statement_id, self.failed = statement_id, list(failed)
        super().__init__(
            f"{statement_id}: outside the statement's own conditions: {'; '.join(failed)} "
            "(pass allow_outside=True / --allow-outside to evaluate anyway; the result is then not a bound)"
        )


class PrecisionError(ArithmeticError):
    """A reference value failed its self-check (two working precisions disagree), or is NaN."""
