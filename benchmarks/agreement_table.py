"""Where the fast path agrees with the reference: the edge search of ``dpspec.conformance.edges`` at a larger count,
summarised per statement as one Markdown table row (docs/agreement.md).

For every statement with a fast path, the search runs in its own subprocess (``--one ID``) with a time limit per
evaluation (``--time-limit``, an ``edge:timeout`` finding past it) and per statement (``--statement-timeout``; the
points evaluated until then still count); each point is streamed to a JSON-lines file as it is done. A row gives:

* the declared tolerance (``Statement.tolerance``);
* per parameter, the range of values over the points where both paths answered and agreed within it ("σ ∈ [1e-300,
  1e308]": the hull of the agreeing points, not a proof of agreement everywhere inside);
* the refusals both paths made alike (the theorem's conditions, points outside the domain);
* every finding (the fast path refusing where the reference answers or the reverse, a value outside the tolerance,
  NaN, a crash, a dtype dependence, a timeout), with the parameter ranges of the points where it occurred and one
  command that reproduces it;
* the slowest evaluation.

The findings in full and the five slowest evaluations of each statement follow the table.

    .venv/bin/python benchmarks/agreement_table.py                      # every statement, 60 points each
    .venv/bin/python benchmarks/agreement_table.py --examples 200 --ids base.sgm_rdp ptr.thm4_4
    .venv/bin/python benchmarks/agreement_table.py --quick              # 10 points, a smoke run

Writes docs/agreement.md (``--out``), benchmarks/results/agreement.json (``--json``) and the compact table between
the agreement-table markers of README.md (``--readme``; a run over every statement, or ``--from-json``).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


# ---------------------------------------------------------------------------------------------------------------
# the child: one statement's search, streamed


def run_one(statement_id: str, examples: int, seed: int | None, time_limit_s: float, jsonl: Path) -> None:
    from dpspec.conformance import edges
    from dpspec.reference import catalogue

    statement = catalogue.get(statement_id)
    with open(jsonl, "a", encoding="utf-8") as out:
        def on_record(record, failures):
            out.write(json.dumps({"record": record.to_json(),
                                  "findings": [{"name": c.name, "message": c.message,
                                                "command": c.reproduction.get("command", "")} for c in failures]},
                                 ensure_ascii=False) + "\n")
            out.flush()

        report = edges.edge_search(statement, examples=examples,
                                   seed=edges.stable_seed(statement_id, "agreement") if seed is None else seed,
                                   time_limit_s=time_limit_s, on_record=on_record)
        out.write(json.dumps({"done": True, "seconds": report.seconds, "points": len(report.records)}) + "\n")


# ---------------------------------------------------------------------------------------------------------------
# the parent: one subprocess per statement, then the table


def search(statement_id: str, args) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        jsonl = Path(tmp) / "points.jsonl"
        jsonl.touch()
        cmd = [sys.executable, __file__, "--one", statement_id, "--examples", str(args.examples),
               "--time-limit", str(args.time_limit), "--jsonl", str(jsonl)]
        if args.seed is not None:
            cmd += ["--seed", str(args.seed)]
        start = time.perf_counter()
        env = {**os.environ, "OMP_NUM_THREADS": os.environ.get("OMP_NUM_THREADS", "1")}
        try:
            proc = subprocess.run(cmd, cwd=ROOT, env=env, timeout=args.statement_timeout, capture_output=True,
                                  text=True)
            ended = "done" if proc.returncode == 0 else f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
        except subprocess.TimeoutExpired:
            ended = f"stopped after {args.statement_timeout} s"
        seconds = time.perf_counter() - start
        lines = [json.loads(line) for line in jsonl.read_text(encoding="utf-8").splitlines() if line.strip()]
    records = [x for x in lines if "record" in x]
    return {"id": statement_id, "ended": ended, "seconds": round(seconds, 1), "points": records}


def _fmt(v) -> str:
    if isinstance(v, bool) or v is None:
        return str(v)
    if isinstance(v, int):
        return str(v) if abs(v) < 10**7 else f"{v:.3g}"
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v):
            return str(v)
        if v == 0:
            return "0"
        if v == int(v) and abs(v) < 10**7:
            return str(int(v))
        short = f"{v:.4g}"
        rounded = float(short)
        if rounded != v and (math.isinf(rounded) or rounded == int(rounded)):  # 1 + 2⁻⁵² is not "1", max is not inf
            return repr(v)
        return short
    return str(v)


def _num(v):
    if isinstance(v, str) and v in ("inf", "-inf", "nan"):
        return float(v)
    return v


def ranges(points: list[dict]) -> list[str]:
    """Per parameter: [min, max] of numeric values, or the set of other values, over ``points``."""
    names: list[str] = []
    for p in points:
        names += [k for k in p if k not in names]
    out = []
    for name in names:
        values = [_num(p[name]) for p in points if name in p]
        numeric = [v for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
        if numeric and len(numeric) == len(values):
            finite = [v for v in numeric if not math.isnan(v)]
            if not finite:
                out.append(f"{name} = nan")
                continue
            lo, hi = min(finite), max(finite)
            nan = " or nan" if len(finite) < len(numeric) else ""
            out.append(f"{name} = {_fmt(lo)}{nan}" if lo == hi else f"{name} ∈ [{_fmt(lo)}, {_fmt(hi)}]{nan}")
        else:
            shown = sorted({json.dumps(v) if isinstance(v, list) else str(v) for v in values})
            out.append(f"{name} ∈ {{{', '.join(shown[:4])}{', …' if len(shown) > 4 else ''}}}")
    return out


def summarise(result: dict) -> dict:
    from dpspec.reference import catalogue

    st = catalogue.get(result["id"])
    points = result["points"]
    agreed = [x["record"]["point"] for x in points if x["record"]["agreed"]]
    alike: dict[str, int] = {}
    for x in points:
        r = x["record"]
        if r["reference"] == r["fast"] and r["reference"] != "value" and not r["failures"]:
            key = r["reference"] + (" (outside the domain)" if r["outside"] else "")
            alike[key] = alike.get(key, 0) + 1
        elif r["reference"] == "PrecisionError":
            alike["reference PrecisionError (fast unconstrained)"] = alike.get(
                "reference PrecisionError (fast unconstrained)", 0) + 1
    kinds: dict[str, list] = {}
    for x in points:
        for f in x["findings"]:
            kinds.setdefault(f["name"], []).append((x["record"], f))
    slow = []
    for x in points:
        r = x["record"]
        slow.append((r["reference_seconds"], "reference", r))
        if r["fast_seconds"] is not None:
            slow.append((r["fast_seconds"], "fast", r))
    slow.sort(key=lambda t: -t[0])
    return {"statement": st, "agreed": agreed, "alike": alike, "kinds": kinds, "slow": slow[:5],
            "n": len(points), "ended": result["ended"], "seconds": result["seconds"]}


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def row(s: dict) -> str:
    st = s["statement"]
    agree = "; ".join(ranges(s["agreed"])) if s["agreed"] else "no point compared"
    alike = "; ".join(f"{k} {v}" for k, v in sorted(s["alike"].items())) or "–"
    finds = []
    for name, items in sorted(s["kinds"].items()):
        where = "; ".join(ranges([r["point"] for r, _ in items]))
        finds.append(f"**{name.removeprefix('edge:')}** ×{len(items)}: {where}")
    differs = "<br>".join(finds) or "none found"
    slow = f"{s['slow'][0][0]:.2f} s ({s['slow'][0][1]})" if s["slow"] else "–"
    ended = "" if s["ended"] == "done" else f" ({s['ended']})"
    return (f"| `{st.id}` | {s['n']}{ended} | {st.tolerance:g} | {_escape(agree)} | {_escape(alike)} | "
            f"{_escape(differs)} | {slow} |")


README_START, README_END = "<!-- agreement-table:start -->", "<!-- agreement-table:end -->"


def readme_table(summaries: list[dict], args) -> str:
    """The README's compact form of the table: per statement, the domain where fast and reference agree, and the
    number of findings (details in docs/agreement.md)."""
    lines = [README_START,
             "<details><summary>Per statement: where the fast path agrees with the reference (generated by "
             "<code>benchmarks/agreement_table.py</code>; the full table with refusals, findings and timings is in "
             "docs/agreement.md)</summary>", "",
             f"{args.examples} edge-search draws per statement; *agrees on* is the hull of the points where both paths "
             "answered and agreed within the statement's tolerance.", "",
             "| statement | tolerance | agrees on | findings |", "|---|---|---|---|"]
    for s in summaries:
        st = s["statement"]
        agree = "; ".join(ranges(s["agreed"])) if s["agreed"] else "no point compared"
        n = sum(len(v) for v in s["kinds"].values())
        lines.append(f"| `{st.id}` | {st.tolerance:g} | {_escape(agree)} | {n or 'none'} |")
    lines += ["", "</details>", README_END]
    return "\n".join(lines)


def write_readme(summaries: list[dict], args, path: Path) -> bool:
    """Replace the block between the README markers (False when the README has no markers)."""
    text = path.read_text(encoding="utf-8")
    if README_START not in text or README_END not in text:
        return False
    head, rest = text.split(README_START, 1)
    _, tail = rest.split(README_END, 1)
    path.write_text(head + readme_table(summaries, args) + tail, encoding="utf-8")
    return True


def markdown(summaries: list[dict], args, seconds: float) -> str:
    lines = [
        "# Where the fast path agrees with the reference",
        "",
        "Generated by `benchmarks/agreement_table.py` (do not edit by hand): the edge search of",
        "`dpspec.conformance.edges` (points concentrated at the ends of every parameter's domain: 1+1e-9, subnormals,",
        "1e308, integers at their ends, just outside the domain; see that module's docstring) run for each statement",
        f"with a fast path: {args.examples} draws per statement (fewer distinct points where the domain is small),",
        f"seeds from the statement ids, a {args.time_limit:g} s limit per evaluation and {args.statement_timeout:g} s"
        " per statement, on a shared 2-core CPU",
        f"({date.today().isoformat()}, {seconds / 60:.0f} min in all). Reproduce with",
        "",
        f"    .venv/bin/python benchmarks/agreement_table.py --examples {args.examples} --time-limit "
        f"{args.time_limit:g}" + (f" --seed {args.seed}" if args.seed is not None else ""),
        "",
        "*agrees on*: the range of each parameter over the points where both paths answered and agreed within the",
        "declared tolerance (`Statement.tolerance`, relative, plus 1e-300 absolute) — the hull of the points tested,",
        "not a proof of agreement everywhere inside it. *both refuse*: points where the two paths refused alike.",
        "*fast refuses or differs*: every finding, with the parameter ranges of the points where it occurred (the",
        "commands that reproduce each are listed below the table). A point can carry several findings.",
        "",
        "| statement | points | tolerance | agrees on | both refuse | fast refuses or differs | slowest |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [row(s) for s in summaries]
    lines += ["", "## Findings", ""]
    any_finding = False
    for s in summaries:
        items = [(name, r, f) for name, group in sorted(s["kinds"].items()) for r, f in group]
        if not items:
            continue
        any_finding = True
        lines += [f"### `{s['statement'].id}`", ""]
        for name, r, f in items[:args.findings_per_statement]:
            lines.append(f"* {_escape(f['message'].split('  [reproduce:')[0])}  ")
            lines.append(f"  `{f['command']}`")
        if len(items) > args.findings_per_statement:
            lines.append(f"* … and {len(items) - args.findings_per_statement} more")
        lines.append("")
    if not any_finding:
        lines += ["None.", ""]
    lines += ["## Slowest evaluations", "",
              f"The five slowest evaluations of each statement (seconds, path, point) that took over "
              f"{args.slow_threshold:g} s.",
              ""]
    for s in summaries:
        shown = [f"{sec:.2f} s {path}: " + ", ".join(f"{k}={_fmt(_num(v))}" for k, v in r["point"].items())
                 for sec, path, r in s["slow"] if sec >= args.slow_threshold]
        if shown:
            lines += [f"* `{s['statement'].id}`: " + "; ".join(shown)]
    lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=60, help="draws per statement (default 60)")
    ap.add_argument("--seed", type=int, default=None, help="one seed for every statement (default: from the id)")
    ap.add_argument("--time-limit", type=float, default=20.0, help="seconds per evaluation (default 20)")
    ap.add_argument("--statement-timeout", type=float, default=900.0, help="seconds per statement (default 900)")
    ap.add_argument("--ids", nargs="*", default=None, help="statement ids (default: every one with a fast path)")
    ap.add_argument("--quick", action="store_true", help="10 draws per statement, a smoke run")
    ap.add_argument("--out", default=str(ROOT / "docs" / "agreement.md"))
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "agreement.json"))
    ap.add_argument("--readme", default=str(ROOT / "README.md"),
                    help="README whose agreement-table block is replaced (a whole run or --from-json; '' for none)")
    ap.add_argument("--findings-per-statement", type=int, default=12)
    ap.add_argument("--slow-threshold", type=float, default=1.0, help="list evaluations slower than this (s)")
    ap.add_argument("--from-json", default=None,
                    help="rebuild the Markdown from a JSON this script wrote (no search; --examples etc. as then)")
    ap.add_argument("--one", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--jsonl", default=None, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        run_one(args.one, args.examples, args.seed, args.time_limit, Path(args.jsonl))
        return 0
    if args.quick:
        args.examples = 10
    from dpspec.reference import catalogue

    if args.from_json:
        saved = json.loads(Path(args.from_json).read_text(encoding="utf-8"))
        args.examples, args.time_limit = saved["examples"], saved["time_limit_s"]
        args.statement_timeout = saved.get("statement_timeout_s", args.statement_timeout)
        args.seed = saved.get("seed", args.seed)
        results = saved["statements"]
        summaries = [summarise(r) for r in results]
        text = markdown(summaries, args, saved.get("seconds", sum(r["seconds"] for r in results)))
        Path(args.out).write_text(text, encoding="utf-8")
        print(f"wrote {args.out}")
        if args.readme and write_readme(summaries, args, Path(args.readme)):
            print(f"updated the table in {args.readme}")
        return 0

    ids = args.ids or [s.id for s in catalogue.statements() if s.fast is not None]
    start = time.perf_counter()
    results, summaries = [], []
    for sid in ids:
        result = search(sid, args)
        results.append(result)
        summaries.append(summarise(result))
        s = summaries[-1]
        print(f"{sid}: {s['n']} points, {sum(len(v) for v in s['kinds'].values())} finding(s), "
              f"{result['seconds']} s ({result['ended']})", flush=True)
        Path(args.json).parent.mkdir(parents=True, exist_ok=True)
        Path(args.json).write_text(json.dumps({"examples": args.examples, "time_limit_s": args.time_limit,
                                               "statement_timeout_s": args.statement_timeout, "seed": args.seed,
                                               "seconds": round(time.perf_counter() - start, 1),
                                               "statements": results}, ensure_ascii=False),
                                   encoding="utf-8")
    text = markdown(summaries, args, time.perf_counter() - start)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(text, encoding="utf-8")
    print(f"wrote {args.out} and {args.json}")
    if args.readme and not args.ids and write_readme(summaries, args, Path(args.readme)):
        print(f"updated the table in {args.readme}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
