"""Reports of a conformance run: a plain-text table that fits an 80-column log, a JSON document (byte-identical
between two runs with the same code, settings and seed, apart from its ``timings`` field), and a Markdown report
with plots (estimated δ(ε) with its confidence band against the claimed profile; RDP lower confidence bounds
against the claimed ε(α))."""
from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

from .runner import NOT_SUBSTANTIVE, RunResult
from .verdicts import PASS, Verdict

MC_CHECKS = ("profile", "rdp-moment", "rdp-exact")

WIDTH = 80  # the terminal table fits an 80-column log; ids are never cut or wrapped


def table(result: RunResult, console=None, width: int = WIDTH) -> None:
    """The verdicts as a plain-text table of at most ``width`` columns (when the ids fit): one row per statement
    (id, claim, checks, verdict, worst margin), a reason that does not fit written on its own lines under the row,
    and for each failure the command that reproduces it. ``console``: a rich Console (its ``print``) or None
    (standard output)."""
    lines = table_lines(result, width)
    if console is not None:
        for line in lines:
            console.print(line, markup=False, highlight=False, soft_wrap=True)
    else:
        print("\n".join(lines))


def table_lines(result: RunResult, width: int = WIDTH) -> list[str]:
    s, c = result.settings, result.counts()
    head = (f"dpspec conform ({s.mode}, seed {s.seed}, confidence {s.confidence}): {c['pass']} pass, "
            f"{c['fail']} fail, {c['skipped']} skipped" + ("" if result.complete else
                                                          f", {len(result.not_run)} not run"))
    lines = textwrap.wrap(head, width) or [head]
    rows = [(v.subject, _claim(v), _checks(v), v.status, _margin(v)) for v in result.verdicts]
    header = ("id", "claim", "checks", "verdict", "margin")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    widths[1] = min(widths[1], max(5, width - 2 * 4 - widths[0] - widths[2] - widths[3] - widths[4]))
    fmt = lambda r: "  ".join(_cell(x, w) for x, w in zip(r, widths)).rstrip()  # noqa: E731
    lines += [fmt(header), fmt(tuple("-" * w for w in widths))]
    for v, row in zip(result.verdicts, rows):
        lines.append(fmt(row))
        if v.reason and v.status != PASS:
            lines += textwrap.wrap(v.reason, width, initial_indent="    ", subsequent_indent="    ",
                                   break_on_hyphens=False)
        if v.command:
            lines += textwrap.wrap(f"reproduce: {v.command}", width, initial_indent="    ",
                                   subsequent_indent="      ", break_on_hyphens=False, break_long_words=False)
    if not result.complete:
        lines.append("")
        lines += textwrap.wrap(f"time limit of {result.time_limit:g} s reached; not run: {', '.join(result.not_run)}",
                               width, subsequent_indent="    ", break_on_hyphens=False)
    lines.append(f"{result.seconds:.1f} s")
    return lines


def _claim(v: Verdict) -> str:
    return f"{v.extra.get('kind')}/{v.extra.get('claim')}"


def _checks(v: Verdict) -> str:
    """Monte Carlo and property checks, as counts: 'mc 8 p 5'."""
    mc = sum(1 for c in v.details if c.name in MC_CHECKS)
    prop = sum(1 for c in v.details if c.name not in MC_CHECKS and c.name not in NOT_SUBSTANTIVE)
    return f"mc {mc} p {prop}"


def _cell(text: str, w: int) -> str:
    return text.ljust(w) if len(text) <= w else text[:w - 1] + "…"


def write_json(result: RunResult, path: str | Path, timings: bool = True) -> None:
    """The run as JSON (``RunResult.to_json``); ``timings=False`` leaves out the only part that differs between two
    runs with the same code, settings and seed."""
    Path(path).write_text(json.dumps(result.to_json(timings=timings), indent=2) + "\n")


def write_markdown(result: RunResult, folder: str | Path) -> Path:
    """``folder``/report.md plus one PNG per statement with a plottable check."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    s = result.settings
    c = result.counts()
    lines = [f"# dpspec conformance report ({s.mode})", "",
             f"Confidence {s.confidence} (family-wise over the {result.family} statements of the catalogue: an even "
             f"share each, Holm over a statement's statistical checks), seed {s.seed}, {s.samples} privacy-loss "
             f"samples per witness point, {s.property_examples} points per property check; {result.seconds:.1f} s.",
             "",
             f"**{c['pass']} pass, {c['fail']} fail, {c['skipped']} skipped.**", "",
             *([f"Time limit of {result.time_limit:g} s reached; not run: {', '.join(result.not_run)}.", ""]
               if not result.complete else []),
             "| id | claim | checks run | verdict | worst margin |", "|---|---|---|---|---|"]
    for v in result.verdicts:
        reason = f" ({v.reason})" if v.reason and v.status != PASS else ""
        lines.append(f"| `{v.subject}` | {v.extra.get('kind')}/{v.extra.get('claim')} | "
                     f"{v.extra.get('checks_run', '')} | {v.status}{_md(reason)} | {_margin(v)} |")
    failed = result.failed
    if failed:
        lines += ["", "## Failures", ""]
        for v in failed:
            lines += [f"### `{v.subject}`", "", _md(v.reason), "", f"Reproduce: `{v.command}`", ""]
            for chk in v.failures:
                lines.append(f"- {chk.name} at {chk.point}: {_md(chk.message)} (p = {chk.p_value})")
    plots = [(v, _plot(v, folder)) for v in result.verdicts]
    plots = [(v, p) for v, p in plots if p is not None]
    if plots:
        lines += ["", "## Plots", ""]
        for v, p in plots:
            lines += [f"### `{v.subject}`", "", f"![{v.subject}]({p.name})", ""]
    path = folder / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


def _plot(v: Verdict, folder: Path) -> Path | None:
    rdp = [c for c in v.details if c.name == "rdp-moment"]
    prof = [c for c in v.details if c.name == "profile" and "claimed_eps" not in c.point]
    axis = _varying(prof, "eps")
    prof = prof if axis else []
    if len(rdp) < 2 and len(prof) < 2:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5, 3.5))
    if len(rdp) >= 2:
        for w in sorted({c.point.get("witness") for c in rdp}):
            cs = sorted((c for c in rdp if c.point.get("witness") == w), key=lambda c: c.point["alpha"])
            a = [c.point["alpha"] for c in cs]
            ax.plot(a, [c.claimed for c in cs], "o-", label=f"claimed ε(α) [{w}]")
            ax.plot(a, [c.lo if c.lo is not None else math.nan for c in cs], "v--",
                    label=f"lower confidence bound of D_α [{w}]")
        ax.set_xlabel("α"), ax.set_ylabel("ε(α)")
    else:
        for w in sorted({c.point.get("witness") for c in prof}):
            cs = sorted((c for c in prof if c.point.get("witness") == w), key=lambda c: c.point[axis])
            e = [c.point[axis] for c in cs]
            ax.plot(e, [c.claimed for c in cs], "o-", label=f"claimed δ(ε) [{w}]")
            ax.fill_between(e, [c.lo for c in cs], [c.hi for c in cs], alpha=0.3, label=f"witness δ(ε) band [{w}]")
        ax.set_xlabel(axis), ax.set_ylabel("δ")
    ax.set_title(v.subject)
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = folder / f"{v.subject.replace('/', '_')}.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def _varying(checks, prefix: str) -> str | None:
    """The point parameter (named ``prefix``...) along which the checks vary: the plot's x axis."""
    keys = {k for c in checks for k in c.point if k.startswith(prefix)}
    for k in sorted(keys):
        if len({c.point.get(k) for c in checks}) > 1:
            return k
    return None


def _margin(v: Verdict) -> str:
    m = v.worst_margin
    return "" if m is None else f"{m:.3g}"


def _md(s: str) -> str:
    return s.replace("|", "\\|")
