"""``dpspec figures PAPER --out DIR``: regenerate a paper's figures (PNG) and their data (CSV)."""
from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    @app.command("figures")
    def figures(
        paper: str = typer.Argument(..., help="Which paper: ptr, bc, gptr, objpert-rdp, objpert-pdp, dc."),
        out: Path = typer.Option(..., "--out", help="Directory for the PNG and CSV files (created if missing)."),
        quick: bool = typer.Option(False, "--quick", help="Small grids (a smoke test; seconds instead of minutes)."),
        dpi: int = typer.Option(150, "--dpi", min=20, max=600, help="Resolution of the PNG files."),
    ) -> None:
        """Write the figures of PAPER (PNG) and the data behind them (CSV) into --out."""
        from dpspec.conformance.cli import fail
        from dpspec.conformance.figures import render
        from dpspec.reference.errors import DpspecError

        if out.exists() and not out.is_dir():  # before minutes of computation
            fail(f"--out {str(out)!r} exists and is not a directory")
        try:
            written = render(paper, out, quick=quick, dpi=dpi)
        except DpspecError as exc:
            fail(str(exc))
            return
        except OSError as exc:  # the folder cannot be created or written (permissions, a file in the path, ...)
            fail(f"--out {str(out)!r}: {exc.strerror or exc}" + (f" ({exc.filename})" if exc.filename else ""))
            return
        for path in written:
            typer.echo(str(path))
