"""Reports of accountant audits: a rich terminal table, a JSON document, a Markdown report."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Iterable

from .accountants import AuditResult

VERDICT_STYLE = {"consistent": "green", "loose": "yellow", "violation": "bold red", "error": "magenta"}


def _fmt(x: Any, digits: int = 6) -> str:
    if x is None:
        return ""
    if isinstance(x, float):
        return f"{x:.{digits}g}" if math.isfinite(x) else str(x)
    return str(x)


def _row(r: AuditResult) -> list[str]:
    c, ref, mc = r.claimed or {}, r.reference or {}, r.mc_interval
    eps = _fmt(c.get("epsilon"))
    ref_eps = ref.get("eps_same_orders", ref.get("eps_rdp"))
    interval = f"[{mc['lo']:.3g}, {mc['hi']:.3g}]" if mc else ""
    return [r.setting["name"], r.accountant, r.version, eps + ("" if r.is_bound else " (approx.)"),
            _fmt(ref_eps), pld_cell(ref), interval, r.verdict, ", ".join(r.evidence.get("failed_checks", []))]


def pld_cell(ref: dict[str, Any]) -> str:
    """dpspec's certified PLD interval of ε ("[lower, upper]"), or why it is missing."""
    lo, hi = ref.get("eps_pld_lower"), ref.get("eps_pld_upper")
    if lo is not None and hi is not None:
        return f"[{_fmt(lo, 7)}, {_fmt(hi, 7)}]"
    return "n/a" if ref.get("pld_error") else ""


HEADER = ["setting", "accountant", "version", "claimed ε", "reference ε", "dpspec PLD ε", "true δ(claimed ε)",
          "verdict", "failed checks"]
VERDICT_COLUMN = HEADER.index("verdict")


def print_table(results: Iterable[AuditResult]) -> None:
    from rich.console import Console
    from rich.table import Table

    results = list(results)
    table = Table(title=f"dpspec audit: {len(results)} accountant × setting results")
    for col in HEADER:
        table.add_column(col, overflow="fold")
    for r in results:
        row = _row(r)
        row[VERDICT_COLUMN] = f"[{VERDICT_STYLE[r.verdict]}]{r.verdict}[/]"
        table.add_row(*row)
    Console().print(table)


def peer_output_summary(results: Iterable[AuditResult]) -> str:
    """One line for the terminal: how many messages the peers printed, warned or logged (captured, not shown), or
    "" when none."""
    results = list(results)
    rows = [r for r in results if r.evidence.get("peer_output", {}).get("count")]
    total = sum(r.evidence["peer_output"]["count"] for r in rows)
    if not total:
        return ""
    return (f"peer output: {total} warning/log/print message(s) from {len(rows)} row(s) captured, not shown "
            "(evidence.peer_output in --json; listed in the --report Markdown)")


def holm_summary(results: Iterable[AuditResult]) -> str:
    """One line: how the Monte Carlo violations were corrected for multiplicity (accountants.holm)."""
    results = list(results)
    tests = [r.evidence.get("mc_test") for r in results if r.evidence.get("mc_test")]
    if not tests:
        return "Monte Carlo tests: none (no cell had a Monte Carlo interval)"
    t = tests[0]
    rejected = sum(bool(x.get("rejected")) for x in tests)
    return (f"Monte Carlo violations: Holm step-down across {t['cells']} cell(s) at family-wise level "
            f"{t['level']:g} ({rejected} rejected)" if t.get("correction") == "Holm" else
            f"Monte Carlo violations: per cell at level {t['level']:g} (no multiplicity correction)")


MARKDOWN_DISTINCT = 20  # distinct peer messages listed per row in the Markdown report (audit.json has them all)


def to_json(results: Iterable[AuditResult], **run: Any) -> str:
    return json.dumps({"run": run, "results": [r.to_json() for r in results]}, indent=2, ensure_ascii=False)


def markdown(results: Iterable[AuditResult], **run: Any) -> str:
    results = list(results)
    lines = ["# dpspec accountant audit", ""]
    if run:
        lines += ["Run: " + ", ".join(f"{k} = {v}" for k, v in run.items()), ""]
    counts = {v: sum(r.verdict == v for r in results) for v in VERDICT_STYLE}
    lines += ["Verdicts: " + ", ".join(f"{k}: {n}" for k, n in counts.items()), "",
              "Columns: *reference ε* is the dpspec reference RDP put through the accountant's own conversion at the "
              "same orders (RDP accountants) or the reference RDP-derived ε (others); *dpspec PLD ε* is dpspec's "
              "certified interval [lower, upper] ∋ the true ε (PLD sandwich, both directions; a claim below the "
              "lower end under-reports, certified); *true δ(claimed ε)* is the "
              "Monte Carlo confidence interval of the mechanism's δ at the claimed ε (both directions).", "",
              "| " + " | ".join(HEADER) + " | reason |", "|" + "---|" * (len(HEADER) + 1)]
    for r in results:
        cells = [c.replace("|", "/") for c in _row(r)] + [r.reason.replace("|", "/")]
        cells[VERDICT_COLUMN] = f"**{cells[VERDICT_COLUMN]}**"
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Findings", ""]
    for r in results:
        if r.verdict in ("violation", "error") or r.evidence.get("failed_checks"):
            lines.append(f"- `{r.accountant}` ({r.library} {r.version}) at `{r.setting['name']}` "
                         f"({r.setting.get('note', '')}): **{r.verdict}** — {r.reason}"
                         + (f"; failed checks: {', '.join(r.evidence['failed_checks'])}"
                            if r.evidence.get("failed_checks") else "")
                         + f". Reproduce: `{r.evidence.get('command', '')}`")
    noisy = [r for r in results if r.evidence.get("peer_output", {}).get("count")]
    if noisy:
        lines += ["", "## Peer output (captured)", "",
                  "What each accountant printed, warned or logged while computing its claim, captured instead of "
                  "shown on the terminal: the count, then the distinct messages.", ""]
        for r in noisy:
            po = r.evidence["peer_output"]
            lines.append(f"- `{r.accountant}` at `{r.setting['name']}`: {po['count']} message(s), "
                         f"{po['distinct']} distinct")
            lines += [f"  - `{m.replace('`', chr(39))}`" for m in po["messages"][:MARKDOWN_DISTINCT]]
            if po["distinct"] > MARKDOWN_DISTINCT:
                lines.append(f"  - … and {po['distinct'] - MARKDOWN_DISTINCT} more distinct (audit.json)")
    lines += ["", "## Semantics assumed by each accountant", ""]
    seen = set()
    for r in results:
        if r.accountant not in seen:
            seen.add(r.accountant)
            lines.append(f"- `{r.accountant}` ({r.library} {r.version}, bound: {r.is_bound}): "
                         + "; ".join(f"{k}: {v}" for k, v in r.semantics.items()))
    return "\n".join(lines) + "\n"


def write_report(results: Iterable[AuditResult], directory: str | Path, **run: Any) -> Path:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    results = list(results)
    (d / "audit.json").write_text(to_json(results, **run), encoding="utf-8")
    path = d / "audit.md"
    path.write_text(markdown(results, **run), encoding="utf-8")
    return path
