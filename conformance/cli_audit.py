"""`dpspec audit ...`: audits of third-party DP implementations (see dpspec.conformance.audit).

* ``dpspec audit accountant NAME [--setting S | --q --sigma --steps --delta] [--json]``; NAME is a registered
  accountant or your own as ``MODULE:OBJECT`` (an Adapter, or a callable (setting, deltas) -> Claim | {δ: ε} | ε;
  see conformance/audit/adapters.py), the module searched in the current directory first
* ``dpspec audit accountants --all [--only NAME ...] [--json] [--report DIR]``
* ``dpspec audit mechanism MODULE:CALLABLE --d0 ... --d1 ... --claim EPS [--delta D] [--family F] [--gdp MU]``
  (the module searched in the current directory first)

Every numeric option is checked before anything runs (a one-line error naming it, exit 2). Each accountant's claim
runs in a child process limited to ``--timeout`` seconds (a peer that does not answer is an ``error`` row); what
the peers print, warn or log is captured into the JSON/Markdown report (``evidence.peer_output``), and the
terminal gets one line with the count.

Exit status: 0 when nothing is a violation, 1 when some result is a violation, 2 on a user error.
"""
from __future__ import annotations

import json
import sys
from typing import List, Optional

import typer

PEER_TIMEOUT = 300.0  # = audit.accountants.PEER_TIMEOUT (not imported here: the audit modules load lazily)


OPTION_OF = {"claim_eps": "--claim", "claim_delta": "--delta", "mu": "--gdp", "n_select": "--n-select",
             "n_estimate": "--n-estimate", "q": "--q", "sigma": "--sigma", "steps": "--steps", "delta": "--delta",
             "samples": "--samples", "seed": "--seed", "confidence": "--confidence", "timeout": "--timeout",
             "family": "--family"}


def _message(exc: Exception) -> str:
    """An error's one-line message, a DomainError's parameter named by its command-line option."""
    from dpspec.reference.errors import DomainError

    if isinstance(exc, DomainError) and exc.name in OPTION_OF:
        return str(DomainError(OPTION_OF[exc.name], exc.value, exc.domain))
    return str(exc).strip("'\"")


def _adapter(name: str):
    """The adapter NAME names (registered, or MODULE:OBJECT); a name that does not load is a one-line error."""
    from .audit import adapters
    from .cli import fail

    try:
        return adapters.get_adapter(name)
    except (ImportError, AttributeError, TypeError) as exc:  # MODULE:OBJECT that does not load
        fail(f"{name}: {type(exc).__name__}: {exc}")


def register(app: typer.Typer) -> None:
    audit = typer.Typer(help="Audit third-party accountants and black-box mechanisms.", no_args_is_help=True)
    app.add_typer(audit, name="audit")

    @audit.command("accountant")
    def accountant(
        name: str = typer.Argument(..., help="Accountant, e.g. opacus.gdp (see `dpspec audit accountants --all`), "
                                             "or your own as MODULE:OBJECT."),
        setting: Optional[str] = typer.Option(None, "--setting", help="A named setting of the fixed matrix."),
        q: Optional[float] = typer.Option(None, "--q", help="Poisson sampling rate (custom setting)."),
        sigma: Optional[float] = typer.Option(None, "--sigma", help="Noise multiplier (custom setting)."),
        steps: Optional[int] = typer.Option(None, "--steps", help="Number of steps (custom setting)."),
        delta: Optional[float] = typer.Option(None, "--delta", help="Target δ (custom setting)."),
        samples: int = typer.Option(3000, "--samples", min=100, help="Monte Carlo samples per direction."),
        seed: int = typer.Option(0, "--seed", min=0),
        confidence: float = typer.Option(0.999, "--confidence", min=0.5, max=1 - 1e-12),
        no_mc: bool = typer.Option(False, "--no-mc", help="Skip the Monte Carlo truth."),
        timeout: float = typer.Option(PEER_TIMEOUT, "--timeout", help="Seconds the accountant's claim may take."),
        as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    ) -> None:
        """Audit one accountant at one setting (default: the notes' headline setting)."""
        from .audit import accountants, report
        from .audit.settings import Setting, get_setting
        from .cli import fail

        custom = [v is not None for v in (q, sigma, steps, delta)]
        if any(custom) and (not all(custom) or setting):
            fail("a custom setting needs all of --q --sigma --steps --delta (and no --setting)")
        try:
            accountants.check_run_options(samples, seed, confidence, timeout)
            s = Setting("custom", q=q, sigma=sigma, steps=steps, delta=delta) if any(custom) else \
                get_setting(setting or "headline")
            ad = _adapter(name)
            r = accountants.audit_accountant(ad.name, s, samples=samples, seed=seed, confidence=confidence,
                                             mc=not no_mc, adapter=ad, timeout=timeout)
        except (KeyError, ValueError, ArithmeticError) as exc:
            fail(_message(exc))
            return
        if as_json:
            typer.echo(json.dumps(r.to_json(), indent=2, ensure_ascii=False))
        else:
            report.print_table([r])
            typer.echo(f"{r.verdict}: {r.reason}")
            summary = report.peer_output_summary([r])
            if summary:
                typer.echo(summary, err=True)
        if r.verdict == "violation":
            raise typer.Exit(1)

    @audit.command("accountants")
    def accountants_cmd(
        all_: bool = typer.Option(False, "--all", help="Every installed accountant × every setting."),
        only: Optional[List[str]] = typer.Option(None, "--only", help="Restrict to these accountants."),
        setting: Optional[List[str]] = typer.Option(None, "--setting", help="Restrict to these settings."),
        samples: int = typer.Option(3000, "--samples", min=100, help="Monte Carlo samples per direction."),
        seed: int = typer.Option(0, "--seed", min=0),
        confidence: float = typer.Option(0.999, "--confidence", min=0.5, max=1 - 1e-12),
        timeout: float = typer.Option(PEER_TIMEOUT, "--timeout", help="Seconds each accountant's claim may take."),
        as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
        report_dir: Optional[str] = typer.Option(None, "--report", help="Write audit.md and audit.json here."),
    ) -> None:
        """The matrix of accountants × settings, with a table (or JSON) and an optional Markdown report."""
        import time

        from .audit import accountants, report
        from .audit.settings import get_setting
        from .cli import fail

        if not (all_ or only or setting):
            fail("give --all, or restrict with --only / --setting")
        try:
            accountants.check_run_options(samples, seed, confidence, timeout)
            settings = [get_setting(s) for s in setting] if setting else None
            for n in only or ():
                _adapter(n)  # an unknown name fails here, before any claim runs
            progress = (lambda m: typer.echo(f"  {m}", err=True)) if sys.stderr.isatty() else None
            t0 = time.perf_counter()
            results = accountants.audit_all(only or None, settings, samples=samples, seed=seed,
                                            confidence=confidence, progress=progress, timeout=timeout)
            seconds = round(time.perf_counter() - t0, 1)
        except (KeyError, ValueError, ArithmeticError) as exc:
            fail(_message(exc))
            return
        run = {"samples": samples, "seed": seed, "confidence": confidence, "seconds": seconds,
               "multiple_testing": report.holm_summary(results)}
        if as_json:
            typer.echo(report.to_json(results, **run))
        else:
            report.print_table(results)
            typer.echo(f"{len(results)} results in {seconds} s")
            typer.echo(report.holm_summary(results))
            summary = report.peer_output_summary(results)
            if summary:
                typer.echo(summary, err=True)
        if report_dir:
            path = report.write_report(results, report_dir, **run)
            typer.echo(f"report: {path}", err=True)
        if any(r.verdict == "violation" for r in results):
            raise typer.Exit(1)

    @audit.command("mechanism")
    def mechanism(
        target: str = typer.Argument(..., metavar="MODULE:CALLABLE", help="f(dataset) or f(dataset, rng)."),
        d0: str = typer.Option(..., "--d0", help="First dataset: JSON or comma-separated numbers."),
        d1: str = typer.Option(..., "--d1", help="Neighbouring dataset."),
        claim: Optional[float] = typer.Option(None, "--claim", help="Claimed ε (with --delta)."),
        delta: float = typer.Option(0.0, "--delta", help="Claimed δ."),
        gdp: Optional[float] = typer.Option(None, "--gdp", help="Claimed μ-GDP (f-DP audit) instead of --claim."),
        family: Optional[str] = typer.Option(None, "--family", help="Declared output family: gaussian|laplace."),
        n_select: Optional[int] = typer.Option(None, "--n-select", min=100,
                                               help="Selection draws per dataset (default 4000; batched 10⁵)."),
        n_estimate: Optional[int] = typer.Option(None, "--n-estimate", min=100,
                                                 help="Estimation draws per dataset (default 10⁴; batched 10⁷)."),
        confidence: float = typer.Option(0.95, "--confidence", min=0.5, max=1 - 1e-12),
        seed: int = typer.Option(0, "--seed", min=0),
        as_json: bool = typer.Option(False, "--json"),
    ) -> None:
        """Black-box audit: an ε lower bound at the claimed δ (or f-DP trade-off points) from samples.
        MODULE is searched in the current directory first."""
        from .audit import mechanisms as m
        from .cli import fail

        if (claim is None) == (gdp is None):
            fail("give exactly one of --claim EPS or --gdp MU")
        try:  # every number before the module is imported or anything is sampled
            m.check_options(claim_eps=claim, claim_delta=delta, mu=gdp, confidence=confidence, seed=seed,
                            family=family, n_select=n_select, n_estimate=n_estimate)
        except ValueError as exc:
            fail(_message(exc))
            return
        try:
            fn = m.load_callable(target)
            a, b = m.parse_dataset(d0), m.parse_dataset(d1)
            if gdp is not None:
                r = m.audit_tradeoff(fn, a, b, m.gaussian_tradeoff(gdp), family=family,
                                     n_select=n_select or 1000, n_estimate=n_estimate or 4000,
                                     confidence=confidence, seed=seed)
            else:
                r = m.audit_mechanism(fn, a, b, claim, delta, family=family, n_select=n_select,
                                      n_estimate=n_estimate, confidence=confidence, seed=seed)
        except (ImportError, AttributeError, TypeError, ValueError) as exc:
            fail(f"{type(exc).__name__}: {exc}")
            return
        out = r.to_json()
        if gdp is not None and not as_json:
            out.pop("points")
        typer.echo(json.dumps(out, indent=2, ensure_ascii=False) if as_json else f"{r.verdict}: {r.reason}")
        if r.verdict == "violation":
            raise typer.Exit(1)
