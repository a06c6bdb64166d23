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

# checks against a witness pair (sampled, importance-sampled or exact from its log_moment)
MC_CHECKS = ("profile", "rdp-moment", "rdp-exact", "profile-tilted", "rdp-tilted", "kl-exact", "kl-sample")

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
    """``folder``/report.md plus one PNG per statement family with plottable checks (:func:`family_plots`)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    s = result.settings
    c = result.counts()
    lines = [f"# dpspec conformance report ({s.mode})", "",
             f"Confidence {s.confidence} (family-wise over the {result.family} subjects of a run — catalogue "
             f"statements and operator checks: an even share each, Holm over a subject's statistical checks), seed "
             f"{s.seed}, {s.samples} privacy-loss samples per witness point, {s.property_examples} points per "
             f"property check; {result.seconds:.1f} s.",
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
    plots = family_plots(result.verdicts, folder)
    if plots:
        lines += ["", "## Plots", "",
                  "One figure per statement family (a text's prefix × what the value is), one panel per statement, "
                  "along the axis of its claim at its example point: the claimed value, the exact value of the "
                  "witness pair where it has one (computed from the pair's own densities, not from the statement), "
                  "and the Monte Carlo interval of the witness's true value (a band where two-sided, a lower "
                  "confidence bound otherwise). An upper bound fails where the truth's interval lies above it.", ""]
        for title, p in plots:
            lines += [f"### {title}", "", f"![{title}]({p.name})", ""]
    path = folder / "report.md"
    path.write_text("\n".join(lines) + "\n")
    return path


FAMILY_TITLES = {"rdp_eps": "RDP curves ε(α)", "delta": "privacy profiles δ(ε)"}
_RDP_CHECKS = ("rdp-moment", "rdp-tilted", "rdp-exact")
_PROFILE_CHECKS = ("profile", "profile-tilted")


def family_plots(verdicts, folder: Path) -> list[tuple[str, Path]]:
    """One PNG per statement family — the statements of one text prefix (``base``, ``ptr``, ...) whose checks are
    along one kind of axis (RDP orders α, or profile ε) — with one panel per statement (:func:`_panel`). Returns
    (title, path) pairs; statements with fewer than two points along their axis are left out."""
    groups: dict[tuple[str, str], list[tuple[Verdict, str, list]]] = {}
    for v in verdicts:
        series = _series(v)
        if series is not None:
            kind, axis, checks = series
            groups.setdefault((v.subject.split(".")[0], kind), []).append((v, axis, checks))
    if not groups:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = []
    for (prefix, kind), members in sorted(groups.items()):
        cols = min(3, len(members))
        rows = math.ceil(len(members) / cols)
        fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.2 * rows), squeeze=False)
        for ax, (v, axis, checks) in zip(axes.flat, members):
            _panel(ax, v, kind, axis, checks)
        for ax in list(axes.flat)[len(members):]:
            ax.set_visible(False)
        title = f"{prefix}: {FAMILY_TITLES[kind]}"
        fig.suptitle(title, fontsize=10)
        fig.tight_layout()
        path = folder / f"family_{prefix}_{kind}.png"
        fig.savefig(path, dpi=80)
        plt.close(fig)
        out.append((title, path))
    return out


def _series(v: Verdict):
    """(kind, axis, checks) of a verdict's plottable Monte Carlo checks: those along the axis of its claim, at the
    point (all other parameters, witness included) shared by the most checks — its example point."""
    for kind, names, axis in (("rdp_eps", _RDP_CHECKS, "alpha"), ("delta", _PROFILE_CHECKS, None)):
        checks = [c for c in v.details if c.name in names and c.claimed is not None and "claimed_eps" not in c.point]
        if not checks:
            continue
        axis = axis or _varying(checks, "eps")
        if axis is None:
            continue
        by_rest: dict[tuple, list] = {}
        for c in checks:
            rest = tuple(sorted((k, str(x)) for k, x in c.point.items() if k != axis))
            by_rest.setdefault(rest, []).append(c)
        best = max(by_rest.values(), key=len)
        if len({c.point.get(axis) for c in best}) >= 2:
            return kind, axis, best
    return None


def _panel(ax, v: Verdict, kind: str, axis: str, checks) -> None:
    """Claimed value, exact witness value and Monte Carlo interval along ``axis`` for one statement."""
    def along(name):
        cs = sorted((c for c in checks if c.name == name), key=lambda c: c.point[axis])
        return [c.point[axis] for c in cs], cs

    claimed = {}
    for c in checks:
        claimed[c.point[axis]] = c.claimed
    xs = sorted(claimed)
    ax.plot(xs, [claimed[a] for a in xs], "o-", color="C0", label="claimed")
    x, exact = along("rdp-exact")
    if exact:
        ax.plot(x, [c.estimate for c in exact], "x", color="C3", ms=7, label="exact (witness densities)")
    for name, color in ((_RDP_CHECKS[1], "C2"), (_PROFILE_CHECKS[1], "C2"), (_RDP_CHECKS[0], "C1"),
                        (_PROFILE_CHECKS[0], "C1")):
        x, cs = along(name)
        if not cs:
            continue
        lo = [c.lo if c.lo is not None else math.nan for c in cs]
        hi = [c.hi if c.hi is not None else math.nan for c in cs]
        label = "tilted MC interval" if name.endswith("tilted") else "plain MC interval"
        if all(math.isnan(h) for h in hi):
            ax.plot(x, lo, "v--", color=color, label=label.replace("interval", "lower bound"))
        else:
            ax.fill_between(x, lo, hi, color=color, alpha=0.3, label=label)
    values = [y for y in claimed.values() if isinstance(y, (int, float)) and math.isfinite(y)]
    if values and min(values) > 0 and max(values) / min(values) > 30:  # (non-positive lower bounds are then hidden)
        ax.set_yscale("log")
    if min(xs) > 0 and max(xs) / min(xs) > 10:
        ax.set_xscale("log")
        ax.set_xticks(xs, [f"{a:g}" for a in xs])
        ax.minorticks_off()
    ax.set_xlabel("α" if axis == "alpha" else axis)
    ax.set_ylabel("ε(α)" if kind == "rdp_eps" else "δ")
    ax.set_title(f"{v.subject} ({v.status})", fontsize=8)
    ax.legend(fontsize=6)


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
