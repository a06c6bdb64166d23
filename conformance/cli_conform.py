"""`dpspec conform [--quick | --full] [--only PATTERN] [--confidence C] [--seed S] [--json PATH] [--no-timings]
[--report DIR] [--time-limit SECONDS] [--quiet]`: check every catalogue statement (see
:mod:`dpspec.conformance.runner`).

`dpspec conform --self-test [--with-tests] [--json PATH]`: the harness self-test (:mod:`dpspec.conformance.selftest`):
plant each bug, run conform on the ids it touches (and the errata, and with ``--with-tests`` the test suite), print
the table and the kill rate. Exit 0 when conform caught every unsound plant, else 1 (the survivors are listed).

Exit status: 0 every statement that ran passed (or was skipped) and all ran; 1 a statement failed; 2 a usage error;
3 ``--time-limit`` stopped the run before every statement ran (and none of those that ran failed).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Optional

import typer

EXIT_FAILED = 1
EXIT_INCOMPLETE = 3


def register(app: typer.Typer) -> None:
    @app.command("conform")
    def conform(
        quick: bool = typer.Option(False, "--quick", help="Small samples and few points per property (the default)."),
        full: bool = typer.Option(False, "--full", help="Large samples and more points per property."),
        only: Optional[str] = typer.Option(None, "--only", help="Glob on statement ids, e.g. 'ptr.*' (several: "
                                                                  "comma-separated)."),
        confidence: float = typer.Option(0.999, "--confidence", min=0.5, max=1 - 1e-12,
                                         help="Family-wise confidence of a run over the whole catalogue."),
        seed: int = typer.Option(0, "--seed", help="Run seed (per-statement and per-check seeds derive from it)."),
        json_path: Optional[str] = typer.Option(None, "--json", help="Write the JSON document here."),
        no_timings: bool = typer.Option(False, "--no-timings",
                                        help="Leave the timings out of the JSON (then two runs with the same seed "
                                             "write the same bytes; with them only the 'timings' field differs)."),
        report: Optional[str] = typer.Option(None, "--report", help="Write report.md and plots to this folder."),
        time_limit: Optional[float] = typer.Option(
            None, "--time-limit", min=0, help="Start no statement after this many seconds; the run then lists what "
                                              "was not run and exits 3. Verdicts of statements that ran are "
                                              "unaffected."),
        quiet: bool = typer.Option(False, "--quiet", help="No progress line per statement on stderr."),
        self_test: bool = typer.Option(False, "--self-test", help="Plant bugs and report which conform (and the "
                                                                  "errata) catch; exit 1 if an unsound one survives "
                                                                  "that is not a documented limit of the harness."),
        with_tests: bool = typer.Option(False, "--with-tests", help="With --self-test: also run the test suite of "
                                                                    "each plant's folder with the plant active."),
    ) -> None:
        """Check every statement: Monte Carlo against witness pairs, properties at drawn points, fast path."""
        from .cli import fail

        if quick and full:
            fail("--quick and --full exclude each other")
        from . import report as reports
        from . import runner

        settings = replace(runner.FULL if full else runner.QUICK, confidence=confidence, seed=seed, only=only)
        if with_tests and not self_test:
            fail("--with-tests needs --self-test")
        if self_test:
            _self_test(settings, only, with_tests, json_path, no_timings, quiet)
            return
        result = runner.run(settings, progress=not quiet, time_limit=time_limit)
        if not result.verdicts and result.complete:
            fail(f"no statement matches --only {only!r}")
        reports.table(result)
        if json_path:
            reports.write_json(result, json_path, timings=not no_timings)
        if report:
            reports.write_markdown(result, report)
        if result.failed:
            raise typer.Exit(EXIT_FAILED)
        if not result.complete:
            raise typer.Exit(EXIT_INCOMPLETE)


def _self_test(settings, only, with_tests, json_path, no_timings, quiet) -> None:
    import fnmatch
    import json
    import sys

    from . import selftest
    from .cli import fail

    plants = selftest.plants()
    if only:
        plants = [p for p in plants if any(fnmatch.fnmatch(p.name, g.strip()) or any(
            fnmatch.fnmatch(i, g.strip()) for i in p.ids) for g in only.split(",") if g.strip())]
        if not plants:
            fail(f"no plant matches --only {only!r}")
    log = None if quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    result = selftest.run(replace(settings, only=None), plants, with_errata=True, with_tests=with_tests, log=log)
    print(selftest.table(result))
    if json_path:
        with open(json_path, "w", encoding="utf-8") as fh:
            json.dump(result.to_json(timings=not no_timings), fh, indent=1, sort_keys=True)
            fh.write("\n")
    if result.unexplained:
        raise typer.Exit(EXIT_FAILED)
