"""Figures of the seed papers, regenerated from the reference: ``render(paper, out)`` writes PNGs and the data
behind them (CSV). One module per paper; PAPERS maps the command-line name to the module."""
from __future__ import annotations

import importlib
from pathlib import Path

from dpspec.reference.errors import ParameterError

PAPERS = {"ptr": "dpspec.conformance.figures.ptr", "bc": "dpspec.conformance.figures.bc",
          "gptr": "dpspec.conformance.figures.gptr", "objpert-rdp": "dpspec.conformance.figures.objpert_rdp",
          "objpert-pdp": "dpspec.conformance.figures.objpert_pdp", "dc": "dpspec.conformance.figures.dc"}


def render(paper: str, out: Path, *, quick: bool = False, dpi: int = 150) -> list[Path]:
    if paper not in PAPERS:
        raise ParameterError(f"paper={paper!r}: known papers are {', '.join(sorted(PAPERS))}")
    return importlib.import_module(PAPERS[paper]).render(Path(out), quick=quick, dpi=dpi)
