"""The ``dpspec`` command line: list, eval, errata, plus the commands of the modules in COMMAND_MODULES
(conform, figures, audit, show), each of which provides ``register(app)``.

User errors (unknown id, missing/unknown parameter, out-of-domain value, NaN, a theorem outside its own
conditions) print one line on stderr and exit with status 2; no traceback.
"""
from __future__ import annotations

import fnmatch
import importlib
import json
import sys
from typing import Any, Optional

import typer

COMMAND_MODULES: list[str] = ["dpspec.conformance.cli_figures", "dpspec.conformance.cli_conform",
                                "dpspec.conformance.cli_audit", "dpspec.conformance.cli_show"]

app = typer.Typer(
    help="dpspec: a property-verified reference specification of differential-privacy bounds.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

USER_ERROR_EXIT = 2


def fail(message: str, code: int = USER_ERROR_EXIT) -> None:
    """Print one line on stderr and exit."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _user_errors():
    from dpspec.reference.errors import DpspecError, PrecisionError

    return (DpspecError, PrecisionError)


@app.command("list")
def list_statements(
    as_json: bool = typer.Option(False, "--json", help="Print the catalogue as JSON."),
    only: Optional[str] = typer.Option(None, "--only", help="Glob on statement ids, e.g. 'ptr.*'."),
    markdown: bool = typer.Option(False, "--markdown", help="Print the Markdown table used in the README."),
) -> None:
    """List the statement catalogue."""
    from dpspec.reference import catalogue

    entries = [s for s in catalogue.statements() if only is None or fnmatch.fnmatch(s.id, only)]
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


@app.command("eval")
def eval_statement(
    statement_id: str = typer.Argument(..., metavar="ID", help="Statement id, e.g. base.sgm_rdp."),
    assignments: list[str] = typer.Argument(None, metavar="NAME=VALUE...", help="Parameters."),
    variant: Optional[str] = typer.Option(None, "--variant", help="A named variant, e.g. printed."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON object."),
    dps: int = typer.Option(50, "--dps", min=10, max=2000, help="Decimal digits of working precision."),
    allow_outside: bool = typer.Option(False, "--allow-outside",
                                       help="Evaluate outside the theorem's own conditions (result is not a bound)."),
    fast: bool = typer.Option(False, "--fast", help="Evaluate the torch fast path instead of the reference."),
) -> None:
    """Evaluate one statement, e.g. `dpspec eval base.rdp_to_dp curve=base.sgm_rdp q=0.01 sigma=1 steps=10000 delta=1e-5`."""
    from dpspec.reference import catalogue

    try:
        st = catalogue.get(statement_id)
        raw = _parse_assignments(assignments or [])
        if fast:
            result = _eval_fast(st, raw, variant)
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


def _eval_fast(st, raw: dict[str, str], variant: Optional[str]) -> dict[str, Any]:
    import json

    from dpspec.reference.domains import Choice, Curve, Points
    from dpspec.reference.errors import ParameterError

    fn = st.fast_function()
    if fn is None:
        raise ParameterError(f"{st.id} has no fast path (dpspec list shows which statements do)")
    if variant not in (None, st.default_variant):
        raise ParameterError("--fast evaluates the default variant only")
    import torch

    def number(name: str, value: str):
        if not _is_number(value):
            raise ParameterError(f"{name}={value!r}: --fast takes numbers (or a curve's statement id)")
        return torch.tensor(float(value), dtype=torch.float64)

    kinds = {p.name: p.domain for p in st.params}
    curve_names = [n for n, d in kinds.items() if isinstance(d, Curve) and n in raw]
    rest = {k: v for k, v in raw.items() if k not in kinds}
    args: dict[str, Any] = {}
    for name, value in raw.items():
        if name not in kinds:
            continue
        if isinstance(kinds[name], Curve):
            from dpspec.fast.conversion import rdp_curve

            args[name] = rdp_curve(value, **{k: number(k, v) for k, v in rest.items()})
        elif isinstance(kinds[name], Choice):
            args[name] = value
        elif isinstance(kinds[name], Points):
            try:
                args[name] = torch.tensor(json.loads(value), dtype=torch.float64)
            except (ValueError, TypeError) as e:
                raise ParameterError(f"{name}={value!r}: expected a JSON array of rows ({e})") from None
        else:
            args[name] = number(name, value)
    if rest and not curve_names:
        raise ParameterError(f"{st.id}: unknown parameter(s) {', '.join(sorted(rest))}")
    missing = [p.name for p in st.params if p.name not in args and p.required]
    if missing:
        raise ParameterError(f"{st.id}: missing parameter(s) {', '.join(missing)}")
    out = fn(**args)
    values = out if isinstance(out, tuple) else (out,)
    shown = [repr(float(v)) for v in values]
    return {"id": st.id, "value": shown if isinstance(out, tuple) else shown[0], "variant": st.default_variant,
            "dps": None, "is_bound": True, "outside_conditions": [], "params": raw, "path": "fast"}


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


def main() -> None:
    app()


if __name__ == "__main__":
    main()
