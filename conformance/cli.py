"""The ``dpspec`` command line: list, eval, errata, plus the commands of the modules in COMMAND_MODULES
(conform, figures, audit, show), each of which provides ``register(app)``.

User errors (unknown id, missing/unknown parameter, out-of-domain value, NaN, a theorem outside its own
conditions, and the command line's own usage errors: an unknown option, a missing argument, a value of the wrong
type) print one line ``error: ...`` on stderr, at most ``MAX_ERROR_CHARS`` characters, and exit with status 2; no
traceback, no usage box.

Threads: the command line runs torch with one intra-op thread (the fast path works on small tensors, where more
threads only add synchronisation, and under CPU contention oversubscription slowed it ~15x); set the environment
variable ``DPSPEC_TORCH_THREADS=N`` for N threads. ``import dpspec.fast`` alone never changes torch's settings.
"""
from __future__ import annotations

import fnmatch
import importlib
import importlib.abc
import importlib.util
import json
import os
import sys
from typing import Any, Optional

import typer
from typer.core import TyperGroup

COMMAND_MODULES: list[str] = ["dpspec.conformance.cli_figures", "dpspec.conformance.cli_conform",
                                "dpspec.conformance.cli_audit", "dpspec.conformance.cli_show"]

USER_ERROR_EXIT = 2
MAX_ERROR_CHARS = 400  # an error line longer than this is cut (its full length is stated)


def one_line(message: str, limit: int = MAX_ERROR_CHARS) -> str:
    """``message`` on one line (runs of whitespace, newlines included, become one space), cut to ``limit``
    characters with its full length stated."""
    text = " ".join(str(message).split())
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text)} characters]"


def fail(message: str, code: int = USER_ERROR_EXIT) -> None:
    """Print one line on stderr and exit."""
    typer.echo(f"error: {one_line(message)}", err=True)
    raise typer.Exit(code)


def _user_errors():
    from dpspec.reference.errors import DpspecError, PrecisionError

    return (DpspecError, PrecisionError)


class OneLineErrors(TyperGroup):
    """The root command: usage errors (typer/click's ``UsageError``: unknown option, missing argument, bad value
    for an option), other click errors and dpspec user errors that escape a command print one line and exit 2,
    instead of typer's boxed usage message. Running with no arguments still prints the help."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        try:
            from typer._click import exceptions as click_exc  # typer ≥ 0.2x vendors click
        except ImportError:  # pragma: no cover - older typer runs on the click package
            from click import exceptions as click_exc

        no_args_help = getattr(click_exc, "NoArgsIsHelpError", ())  # click < 8.2 prints the help itself
        try:
            rv = super().main(args=args, prog_name=prog_name, complete_var=complete_var, standalone_mode=False,
                              **extra)
            code = rv if isinstance(rv, int) and not isinstance(rv, bool) else 0  # an Exit's code, else success
        except no_args_help as exc:
            exc.show()
            code = exc.exit_code
        except click_exc.UsageError as exc:
            hint = f" (see '{exc.ctx.command_path} --help')" if exc.ctx is not None else ""
            typer.echo(f"error: {one_line(exc.format_message())}{hint}", err=True)
            code = USER_ERROR_EXIT
        except click_exc.ClickException as exc:
            typer.echo(f"error: {one_line(exc.format_message())}", err=True)
            code = USER_ERROR_EXIT
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            code = 1
        except _user_errors() as exc:
            typer.echo(f"error: {one_line(str(exc))}", err=True)
            code = USER_ERROR_EXIT
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    help="dpspec: a property-verified reference specification of differential-privacy bounds. Torch runs with one "
         "intra-op thread here; set DPSPEC_TORCH_THREADS=N for N.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    cls=OneLineErrors,
)


@app.command("list")
def list_statements(
    as_json: bool = typer.Option(False, "--json", help="Print the catalogue as JSON."),
    only: Optional[str] = typer.Option(None, "--only", help="Glob on statement ids, e.g. 'ptr.*'."),
    markdown: bool = typer.Option(False, "--markdown", help="Print the Markdown table used in the README."),
) -> None:
    """List the statement catalogue."""
    from dpspec.reference import catalogue

    entries = [s for s in catalogue.statements() if only is None or fnmatch.fnmatch(s.id, only)]
    if not entries:
        fail(f"no statement matches {only!r} (`dpspec list` shows them all)")
    if as_json:
        typer.echo(json.dumps([s.to_json() for s in entries], indent=2, ensure_ascii=False))
        return
    if markdown:
        typer.echo(markdown_table(entries))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"dpspec catalogue: {len(entries)} statements")
    for col in ("id", "kind", "claim", "parameters", "source", "fast", "witnesses", "variants"):
        table.add_column(col, overflow="fold")
    for s in entries:
        table.add_row(s.id, s.kind, s.claim, ", ".join(s.param_names), s.source.short(),
                      "yes" if s.fast else "", ", ".join(w.witness for w in s.witnesses),
                      ", ".join(s.variant_names) if s.variants else "")
    Console().print(table)


def markdown_table(entries) -> str:
    """The catalogue as a Markdown table (the README embeds it between markers; a test keeps it current)."""
    lines = ["| id | kind | claim | parameters | source | fast | variants |", "|---|---|---|---|---|---|---|"]
    for s in entries:
        src = s.source.number + (f" ({s.source.citation})" if s.source.seed == "outside" else f" ({s.source.seed})")
        variants = ", ".join(s.variants) if s.variants else ""
        lines.append(f"| `{s.id}` | {s.kind} | {s.claim}{' (ext.)' if s.extension else ''} | "
                     f"{', '.join(s.param_names)} | {src.replace('|', '/')} | {'yes' if s.fast else ''} | {variants} |")
    return "\n".join(lines)


def _parse_assignments(items: list[str]) -> dict[str, str]:
    params: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name:
            fail(f"expected name=value, got {item!r}")
        if name in params:
            fail(f"parameter {name} given twice")
        params[name.strip()] = value.strip()
    return params


def bind_cli_params(statement, raw: dict[str, str]) -> dict[str, Any]:
    """Split name=value pairs between a statement and the statement named by its curve parameter(s):
    ``curve=base.sgm_rdp q=0.01 sigma=1`` binds q and sigma to base.sgm_rdp."""
    from dpspec.reference import catalogue
    from dpspec.reference.domains import Curve
    from dpspec.reference.errors import ParameterError

    curve_params = [p.name for p in statement.params if isinstance(p.domain, Curve)]
    own = {k: v for k, v in raw.items() if k in statement.param_names}
    rest = {k: v for k, v in raw.items() if k not in statement.param_names}
    if not curve_params:
        return raw  # the statement reports unknown parameters itself
    if len(curve_params) > 1 and rest:
        raise ParameterError(f"{statement.id} has several curve parameters; cannot assign {', '.join(rest)}")
    for name in curve_params:
        if name in own:
            target = catalogue.get(own[name])
            unknown = sorted(set(rest) - set(target.param_names))
            if unknown:
                raise ParameterError(
                    f"unknown parameter(s) {', '.join(unknown)} for {statement.id} or its curve {target.id}")
            own[name] = catalogue.curve(target.id, **rest)
            rest = {}
    if rest:
        raise ParameterError(f"{statement.id}: unknown parameter(s) {', '.join(sorted(rest))}")
    return own


def _format(value: Any, digits: int) -> Any:
    import mpmath

    if isinstance(value, tuple):
        return [_format(v, digits) for v in value]
    if isinstance(value, mpmath.mpf):
        if mpmath.isinf(value):
            return "inf" if value > 0 else "-inf"
        return mpmath.nstr(value, digits, strip_zeros=False, min_fixed=-5, max_fixed=8)
    return str(value)


DEFAULT_DPS = 50


@app.command("eval")
def eval_statement(
    statement_id: str = typer.Argument(..., metavar="ID", help="Statement id, e.g. base.sgm_rdp."),
    assignments: list[str] = typer.Argument(None, metavar="NAME=VALUE...", help="Parameters."),
    variant: Optional[str] = typer.Option(None, "--variant", help="A named variant, e.g. printed."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON object."),
    dps: Optional[int] = typer.Option(None, "--dps", min=10, max=2000,
                                      help=f"Decimal digits of working precision (reference only; default {DEFAULT_DPS})."),
    allow_outside: bool = typer.Option(False, "--allow-outside",
                                       help="Evaluate outside the theorem's own conditions (result is not a bound)."),
    fast: bool = typer.Option(False, "--fast", help="Evaluate the torch fast path instead of the reference."),
) -> None:
    """Evaluate one statement, e.g. `dpspec eval base.rdp_to_dp curve=base.sgm_rdp q=0.01 sigma=1 steps=10000 delta=1e-5`."""
    from dpspec.reference import catalogue

    if fast and dps is not None:
        fail("--dps applies to the reference only (the fast path computes in float64)")
    dps = DEFAULT_DPS if dps is None else dps
    try:
        st = catalogue.get(statement_id)
        raw = _parse_assignments(assignments or [])
        if fast:
            result = _eval_fast(st, raw, variant, allow_outside)
        else:
            params = bind_cli_params(st, raw)
            ev = st.evaluate(dps=dps, variant=variant, allow_outside=allow_outside, **params)
            result = {"id": st.id, "value": _format(ev.value, dps), "variant": ev.variant, "dps": dps,
                      "is_bound": ev.is_bound, "outside_conditions": list(ev.outside), "params": raw,
                      "path": "reference"}
    except _user_errors() as exc:
        fail(str(exc))
        return
    if as_json:
        typer.echo(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        value = result["value"]
        shown = ", ".join(value) if isinstance(value, list) else value
        extra = ""
        if not result.get("is_bound", True):
            why = ("outside " + "; ".join(result["outside_conditions"]) if result["outside_conditions"]
                   else f"the {result['variant']} variant is not a bound")
            extra = f"   [NOT A BOUND: {why}]"
        typer.echo(f"{result['id']} [{result['variant']}] = {shown}{extra}")


def _eval_fast(st, raw: dict[str, str], variant: Optional[str], allow_outside: bool = False) -> dict[str, Any]:
    """The fast path at one point. Numbers are parsed here and checked against the parameter's own domain with
    the text as typed (``k=inf`` and ``k=2.5`` are refused for an integer parameter before torch sees them); a
    number float64 cannot hold (``1e400``, ``1e-400``) is refused rather than read as inf or 0. ``allow_outside``: a point outside the theorem's own conditions is evaluated anyway and marked
    not a bound, naming the failed conditions (as the reference does)."""
    import inspect
    import json
    import math

    from dpspec.reference import catalogue
    from dpspec.reference.domains import Choice, Curve, Integer, Points, Real
    from dpspec.reference.errors import ConditionError, DomainError, ParameterError

    fn = st.fast_function()
    if fn is None:
        raise ParameterError(f"{st.id} has no fast path (dpspec list shows which statements do)")
    if variant not in (None, st.default_variant):
        raise ParameterError("--fast evaluates the default variant only")
    import torch

    def number(name: str, value: str, domain=None):
        if not _is_number(value):
            raise ParameterError(f"{name}={value!r}: --fast takes numbers (or a curve's statement id)")
        x = float(value)
        text = value.strip().lower().lstrip("+-")
        if math.isinf(x) and "inf" not in text:
            raise ParameterError(f"{name}={value}: beyond the float64 range of the fast path (drop --fast: the "
                                 "reference computes with it)")
        if x == 0 and any(c in "123456789" for c in text.split("e")[0]):
            raise ParameterError(f"{name}={value}: below the float64 range of the fast path, which would read 0 "
                                 "(drop --fast: the reference computes with it)")
        if isinstance(domain, Integer):
            if not (math.isfinite(x) and x == int(x) and domain.contains(int(x))):
                raise DomainError(name, value, domain.describe())
        elif isinstance(domain, Real) and not domain.contains(x):
            raise DomainError(name, value, domain.describe())
        return torch.tensor(x, dtype=torch.float64)

    kinds = {p.name: p.domain for p in st.params}
    curve_names = [n for n, d in kinds.items() if isinstance(d, Curve) and n in raw]
    rest = {k: v for k, v in raw.items() if k not in kinds}
    args: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in kinds:
            continue
        if isinstance(kinds[name], Curve):
            from dpspec.fast.conversion import rdp_curve

            target = {p.name: p.domain for p in catalogue.get(value).params} if value in catalogue.STATEMENTS \
                else {}
            args[name] = rdp_curve(value, **{k: number(k, v, target.get(k)) for k, v in rest.items()})
        elif isinstance(kinds[name], Choice):
            args[name] = value
        elif isinstance(kinds[name], Points):
            try:
                args[name] = torch.tensor(json.loads(value), dtype=torch.float64)
            except (ValueError, TypeError) as e:
                raise ParameterError(f"{name}={value!r}: expected a JSON array of rows ({e})") from None
        else:
            args[name] = number(name, value, kinds[name])
    if rest and not curve_names:
        raise ParameterError(f"{st.id}: unknown parameter(s) {', '.join(sorted(rest))}")
    missing = [p.name for p in st.params if p.name not in args and p.required]
    if missing:
        raise ParameterError(f"{st.id}: missing parameter(s) {', '.join(missing)}")
    outside: list[str] = []
    try:
        out = fn(**args)
    except ConditionError as exc:
        if not allow_outside:
            raise
        if "allow_outside" not in inspect.signature(fn).parameters:  # every fast path with conditions takes it
            raise ParameterError(f"{st.id}: its fast path cannot evaluate outside the conditions "
                                 "(drop --fast to use the reference with --allow-outside)") from None
        outside = list(exc.failed)
        out = fn(**args, allow_outside=True)
    values = out if isinstance(out, tuple) else (out,)
    shown = [repr(float(v)) for v in values]
    return {"id": st.id, "value": shown if isinstance(out, tuple) else shown[0], "variant": st.default_variant,
            "dps": None, "is_bound": not outside, "outside_conditions": outside, "params": raw, "path": "fast"}


def _is_number(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


@app.command("errata")
def errata_command(
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
    only: Optional[str] = typer.Option(None, "--only", help="Glob on erratum ids, e.g. 'ptr.*'."),
) -> None:
    """Re-run every erratum's demonstration (a computation); exit non-zero if any does not reproduce."""
    from dpspec.proofs_checks.errata import errata
    from dpspec.reference.precision import jsonable

    entries = [e for e in errata() if only is None or fnmatch.fnmatch(e.id, only)]
    if not entries:
        fail(f"no erratum matches {only!r} (`dpspec errata` runs them all)")
    rows = []
    for e in _progress(entries, "errata demonstrations"):
        result, seconds = e.check()
        rows.append({"id": e.id, "source": e.source, "summary": e.summary, "severity": e.severity,
                     "statements": list(e.statements), "printed": e.printed, "corrected": e.corrected,
                     "reproduced": bool(result.reproduced), "message": result.message,
                     "evidence": {k: jsonable(v, mpf_digits=20) for k, v in result.evidence.items()},
                     "seconds": round(seconds, 3)})
    if as_json:
        typer.echo(json.dumps(rows, indent=2, ensure_ascii=False))
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"dpspec errata register: {len(rows)} entries")
        for col in ("id", "source", "summary", "reproduced"):
            table.add_column(col, overflow="fold")
        for r in rows:
            table.add_row(r["id"], r["source"], r["summary"],
                          "[green]yes[/green]" if r["reproduced"] else f"[red]NO[/red] {r['message']}")
        Console().print(table)
    if any(not r["reproduced"] for r in rows):
        raise typer.Exit(1)


def _progress(items, description: str):
    """Iterate with a rich progress bar on a terminal (stderr), silently otherwise."""
    if not sys.stderr.isatty() or len(items) < 2:
        yield from items
        return
    from rich.progress import track

    yield from track(items, description=description, transient=True)



for _name in COMMAND_MODULES:
    importlib.import_module(_name).register(app)


TORCH_THREADS_ENV = "DPSPEC_TORCH_THREADS"


def torch_threads() -> int:
    """The intra-op thread count the command line gives torch: ``DPSPEC_TORCH_THREADS`` (a positive integer), else 1."""
    text = os.environ.get(TORCH_THREADS_ENV, "").strip()
    if not text:
        return 1
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        from dpspec.reference.errors import DomainError

        raise DomainError(TORCH_THREADS_ENV, text, "integers ≥ 1 (torch intra-op threads)")
    return n


class _AfterImport(importlib.abc.MetaPathFinder):
    """A one-shot import hook: once module ``name`` has been executed, ``hook(module)`` runs. Lets the command
    line set torch's thread count without importing torch (a second or more) for commands that never use it."""

    def __init__(self, name: str, hook):
        self.name, self.hook = name, hook

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        sys.meta_path.remove(self)  # one shot; the search below must not find this finder again
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None:
            return spec
        inner, hook = spec.loader, self.hook

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return inner.create_module(spec)

            def exec_module(self, module):
                module.__spec__.loader = module.__loader__ = inner  # the module sees its own loader
                inner.exec_module(module)
                hook(module)

        spec.loader = Loader()
        return spec


def apply_torch_thread_policy() -> int:
    """Give torch ``torch_threads()`` intra-op threads: now if torch is loaded, else as soon as it is imported.
    Returns the count. Called by :func:`main` only: library users keep their own torch settings."""
    n = torch_threads()
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(n)
    elif not any(isinstance(f, _AfterImport) and f.name == "torch" for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport("torch", lambda torch: torch.set_num_threads(n)))
    return n


def main() -> None:
    """The ``dpspec`` entry point: torch's thread policy (module docstring), then the app."""
    try:
        apply_torch_thread_policy()
    except _user_errors() as exc:
        typer.echo(f"error: {one_line(str(exc))}", err=True)
        sys.exit(USER_ERROR_EXIT)
    app()


if __name__ == "__main__":
    main()
