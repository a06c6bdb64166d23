"""Back-links of an id, computed from the registries and the tests, never maintained by hand.

For a catalogue statement: its witness pairs (``Statement.witnesses``), its variants, the errata that name it
(``Erratum.statements``), the proof checks about it (``ProofCheck.statements``), the test files that name it (a
search of the repository's ``tests/`` folder, found next to the source tree; none when dpspec is installed without
its tests) and the commands that reproduce each check. For an erratum, a proof check or a witness pair: the same,
seen from the other side. ``dpspec show ID`` prints them.

Layering: conformance may import proofs_checks and reference; this module is the only place that joins them.
"""
from __future__ import annotations

import ast
import functools
import inspect
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from dpspec.proofs_checks.checks import CHECKS, ProofCheck
from dpspec.proofs_checks.errata import ERRATA, Erratum
from dpspec.reference import catalogue
from dpspec.reference.catalogue import Statement, Variant, Witness, WitnessUse
from dpspec.reference.errors import UnknownStatementError
from dpspec.reference.registry import natural_key


# ---------------------------------------------------------------------------------------------------------------
# Where things are

@functools.lru_cache(maxsize=1)
def repo_root() -> Path | None:
    """The source checkout (the folder holding reference/, tests/ and setup.py), or None when dpspec is installed
    without its repository (then no test files are found)."""
    root = Path(catalogue.__file__).resolve().parents[1]
    if (root / "tests").is_dir() and ((root / "setup.py").is_file() or (root / "pyproject.toml").is_file()):
        return root
    return None


def relative(path: str | Path | None) -> str | None:
    """A path relative to the checkout when it lies inside it."""
    if path is None:
        return None
    path, root = Path(path).resolve(), repo_root()
    if root is not None:
        try:
            return str(path.relative_to(root))
        except ValueError:
            pass
    return str(path)


@dataclass(frozen=True)
class CodeLocation:
    """``module:qualname`` of a function and where its source is (file relative to the checkout, line)."""

    target: str
    file: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.file and self.line else (self.file or "")
        return f"{self.target}" + (f"  ({where})" if where else "")


def locate(fn: Callable[..., Any] | None) -> CodeLocation | None:
    """Where a function is defined (the function behind self_checked / functools.wraps wrappers)."""
    if fn is None:
        return None
    fn = inspect.unwrap(fn)
    target = f"{getattr(fn, '__module__', '?')}:{getattr(fn, '__qualname__', getattr(fn, '__name__', '?'))}"
    try:
        file, line = inspect.getsourcefile(fn), inspect.getsourcelines(fn)[1]
    except (OSError, TypeError):
        return CodeLocation(target)
    return CodeLocation(target, relative(file), line)


# ---------------------------------------------------------------------------------------------------------------
# Tests that name an id

def id_pattern(some_id: str) -> re.Pattern:
    """The id as a whole token: ``ptr.thm4_4`` matches in "ptr.thm4_4." and "'ptr.thm4_4'", not in
    ``ptr.thm4_4_main``, ``ptr.thm4_4.case1_fwd`` or ``xptr.thm4_4``; ``ptr.E1`` not in ``ptr.E10``."""
    return re.compile(r"(?<![\w.])" + re.escape(some_id) + r"(?!\w|\.\w)")


@dataclass(frozen=True)
class FileLink:
    """A test file that names an id, and the tests in it whose source (decorators included) names it; no test
    names means the id occurs only at module level (a constant, a parametrisation list): the whole file then."""

    path: str  # relative to the checkout, e.g. "tests/ptr/test_ptr_reference.py"
    tests: tuple[str, ...] = ()

    def command(self) -> str:
        cmd = f"pytest {self.path}"
        return cmd + (f" -k {shlex.quote(' or '.join(self.tests))}" if self.tests else "")


@functools.lru_cache(maxsize=1)
def _test_sources() -> tuple[tuple[str, str], ...]:
    root = repo_root()
    if root is None:
        return ()
    out = []
    for path in sorted((root / "tests").rglob("test_*.py")):
        try:
            out.append((str(path.relative_to(root)), path.read_text(encoding="utf-8")))
        except (OSError, UnicodeDecodeError):
            continue
    return tuple(out)


def naming_test_files(some_id: str) -> list[FileLink]:
    """Every test file of the checkout whose text names ``some_id`` (see :func:`id_pattern`)."""
    pattern, found = id_pattern(some_id), []
    for path, text in _test_sources():
        if pattern.search(text):
            found.append(FileLink(path, _tests_naming(text, pattern)))
    return found


def _tests_naming(text: str, pattern: re.Pattern) -> tuple[str, ...]:
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return ()
    names = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node.name.lower().startswith("test"):
            parts = [ast.get_source_segment(text, d) or "" for d in node.decorator_list]
            parts.append(ast.get_source_segment(text, node) or "")
            if any(pattern.search(p) for p in parts):
                names.append(node.name)
    return tuple(names)


# ---------------------------------------------------------------------------------------------------------------
# Links of each kind of id

@dataclass
class StatementLinks:
    statement: Statement
    reference: CodeLocation | None
    fast: CodeLocation | None
    witnesses: list[tuple[WitnessUse, Witness | None]]
    variants: list[tuple[str, Variant]]
    errata: list[Erratum]
    checks: list[ProofCheck]
    tests: list[FileLink]
    fast_error: str = ""

    def commands(self) -> list[str]:
        """One command per check of this statement: conformance, each erratum, each proof check, each test file."""
        st = self.statement
        params = st.example_params()
        example = " ".join(_cli_arg(k, v, taken=params) for k, v in params.items())
        cmds = [f"dpspec eval {st.id} {example}".rstrip(), f"dpspec conform --only {shlex.quote(st.id)}"]
        cmds += [f"dpspec errata --only {e.id}" for e in self.errata]
        cmds += [f"dpspec show {c.id}" for c in self.checks]
        cmds += [t.command() for t in self.tests]
        return cmds


@dataclass
class ErratumLinks:
    erratum: Erratum
    statements: list[Statement]
    demonstration: CodeLocation | None
    tests: list[FileLink]
    checks: list[ProofCheck] = field(default_factory=list)  # the proof checks its demonstration runs

    def commands(self) -> list[str]:
        return [f"dpspec errata --only {self.erratum.id}", *(f"dpspec show {c.id}" for c in self.checks),
                *(t.command() for t in self.tests)]


@dataclass
class CheckLinks:
    check: ProofCheck
    statements: list[Statement]
    location: CodeLocation | None
    tests: list[FileLink]

    def commands(self) -> list[str]:
        return [f"dpspec show {self.check.id}", *(t.command() for t in self.tests)]


@dataclass
class WitnessLinks:
    witness: Witness
    used_by: list[Statement] = field(default_factory=list)
    location: CodeLocation | None = None
    tests: list[FileLink] = field(default_factory=list)

    def commands(self) -> list[str]:
        return [*(f"dpspec conform --only {shlex.quote(s.id)}" for s in self.used_by),
                *(t.command() for t in self.tests)]


def _cli_arg(name: str, v: Any, taken: dict[str, Any] = {}) -> str:
    """``name=value`` on the command line. A curve is its statement id followed by its own parameters
    (``curve=base.gaussian_rdp sigma=1``): those it is bound to (``statement_id`` and ``params``, as
    ``catalogue.curve`` returns), or, for a bare id, that statement's example parameters other than its axis and
    the names ``taken`` by the outer statement (on the command line the two share one namespace)."""
    sid, params = getattr(v, "statement_id", None), getattr(v, "params", None)
    if not (isinstance(sid, str) and isinstance(params, dict)) and isinstance(v, str) and v in catalogue.STATEMENTS:
        inner = catalogue.get(v)
        axis = inner.value.axis if inner.value is not None else None
        sid, params = v, {k: x for k, x in inner.example_params().items() if k != axis and k not in taken}
    if isinstance(sid, str) and isinstance(params, dict):
        return " ".join([f"{name}={sid}", *(f"{k}={_cli_value(x)}" for k, x in params.items())])
    return f"{name}={_cli_value(v)}"


def _cli_value(v: Any) -> str:
    text = str(v)
    return shlex.quote(text) if any(c.isspace() or c in "[]{}(),'\"" for c in text) else text


def errata_of(statement_id: str) -> list[Erratum]:
    return [e for e in ERRATA.items() if statement_id in e.statements]


def checks_of(statement_id: str) -> list[ProofCheck]:
    return [c for c in CHECKS.items() if statement_id in c.statements]


def statement_links(statement_id: str) -> StatementLinks:
    st = catalogue.get(statement_id)
    uses = []
    for use in st.witnesses:
        try:
            uses.append((use, catalogue.get_witness(use.witness)))
        except UnknownStatementError:
            uses.append((use, None))
    fast, fast_error = None, ""
    if st.fast is not None:
        try:
            fast = locate(st.fast_function())
        except Exception as exc:  # a broken fast link is shown, not fatal
            fast_error = f"{type(exc).__name__}: {exc}"
    return StatementLinks(st, locate(st.reference), fast, uses, list(st.variants.items()), errata_of(st.id),
                          checks_of(st.id), naming_test_files(st.id), fast_error)


def erratum_links(erratum_id: str) -> ErratumLinks:
    e = ERRATA.get(erratum_id)
    statements = []
    for sid in e.statements:
        try:
            statements.append(catalogue.get(sid))
        except UnknownStatementError:
            pass
    checks = [CHECKS.get(c) for c in getattr(e.demonstration, "checks", ()) if c in CHECKS]
    return ErratumLinks(e, statements, locate(e.demonstration), naming_test_files(e.id), checks)


def check_links(check_id: str) -> CheckLinks:
    c = CHECKS.get(check_id)
    statements = []
    for sid in c.statements:
        try:
            statements.append(catalogue.get(sid))
        except UnknownStatementError:
            pass
    fn_name = check_id.rsplit(".", 1)[-1]
    tests = naming_test_files(c.id) or [t for t in _files_naming_word(fn_name)]
    return CheckLinks(c, statements, locate(c.fn), tests)


def _files_naming_word(word: str) -> list[FileLink]:
    """Test files that call a check by its function name (e.g. ``thm4_4.white_box_dominates_inside_conditions``)."""
    pattern = re.compile(r"(?<![\w])" + re.escape(word) + r"(?!\w)")
    return [FileLink(path, _tests_naming(text, pattern)) for path, text in _test_sources() if pattern.search(text)]


def witness_links(witness_id: str) -> WitnessLinks:
    w = catalogue.get_witness(witness_id)
    used_by = [s for s in catalogue.statements() if any(u.witness == w.id for u in s.witnesses)]
    return WitnessLinks(w, used_by, locate(w.sample), naming_test_files(w.id))


def resolve(some_id: str) -> StatementLinks | ErratumLinks | CheckLinks | WitnessLinks:
    """The links of any id: a statement, an erratum, a proof check or a witness pair (tried in that order)."""
    for registry, build in ((catalogue.STATEMENTS, statement_links), (ERRATA, erratum_links),
                            (CHECKS, check_links), (catalogue.WITNESSES, witness_links)):
        if some_id in registry:
            return build(some_id)
    close: list[str] = []
    for registry in (catalogue.STATEMENTS, ERRATA, CHECKS, catalogue.WITNESSES):
        close += [k for k in registry.suggest(some_id) if k not in close]
    hint = f"; did you mean {', '.join(sorted(close, key=natural_key)[:4])}?" if close else \
        "; `dpspec list` shows the catalogue, `dpspec errata` the errata"
    raise UnknownStatementError(f"unknown id {some_id!r} (not a statement, erratum, proof check or witness pair)"
                                f"{hint}")
