"""``dpspec show ID [--no-run] [--run-checks] [--json]``: everything the project knows about one id, computed.

ID is a catalogue statement (``ptr.thm4_4``), an erratum (``ptr.E1``), a proof check
(``ptr.thm4_4.white_box_dominates_inside_conditions``) or a witness pair (``base.gaussian``). For a statement:
source, summary, kind and claim, conditions, parameters with domains, the reference ``module:function``, the fast
path, witness pairs, variants, errata (with their current verdict: the demonstrations run, which may take seconds;
``--no-run`` skips them), proof checks (run with ``--run-checks``), the test files that name it, and the commands
that reproduce each check. The links are computed by :mod:`dpspec.conformance.links`.
Exit status: 2 for an unknown id; 1 when a demonstration or a check that was run does not reproduce / hold.
"""
from __future__ import annotations

import json
from typing import Any

import typer


def register(app: typer.Typer) -> None:
    @app.command("show")
    def show(
        some_id: str = typer.Argument(..., metavar="ID",
                                      help="A statement, erratum, proof check or witness pair id, e.g. ptr.thm4_4."),
        no_run: bool = typer.Option(False, "--no-run", help="Do not run errata demonstrations (nor a check's own)."),
        run_checks: bool = typer.Option(False, "--run-checks", help="Also run a statement's proof checks."),
        as_json: bool = typer.Option(False, "--json", help="Print a JSON object."),
    ) -> None:
        """Show one id with its back-links: reference, fast path, witnesses, variants, errata, checks, tests."""
        from dpspec.reference.errors import UnknownStatementError

        from . import links
        from .cli import fail

        try:
            found = links.resolve(some_id)
        except UnknownStatementError as exc:
            if any(c in some_id for c in "*?["):
                fail(f"no id matches {some_id!r}: show takes one id, not a pattern (`dpspec list --only "
                     f"{some_id!r}` and `dpspec errata --only {some_id!r}` take patterns)")
            fail(str(exc))
            return
        doc = to_json(found, run_errata=not no_run, run_checks=run_checks or (
            isinstance(found, links.CheckLinks) and not no_run))
        if as_json:
            typer.echo(json.dumps(doc, indent=2, ensure_ascii=False))
        else:
            typer.echo(render(doc))
        if not doc.get("ok", True):
            raise typer.Exit(1)


# ---------------------------------------------------------------------------------------------------------------
# One JSON document per kind of id

def _erratum_verdict(e, run: bool) -> dict[str, Any] | None:
    from dpspec.reference.precision import jsonable

    if not run:
        return None
    result, seconds = e.check()
    return {"reproduced": bool(result.reproduced), "message": result.message, "seconds": round(seconds, 3),
            "evidence": {k: jsonable(v, mpf_digits=20) for k, v in result.evidence.items()}}


def _check_result(c, run: bool) -> dict[str, Any] | None:
    import time

    from dpspec.reference.precision import jsonable

    if not run:
        return None
    start = time.perf_counter()
    try:
        r = c()
        out = {"holds": bool(r.holds), "message": r.message, "evidence": jsonable(r.evidence, mpf_digits=20)}
    except Exception as exc:  # a crashing check does not hold
        out = {"holds": False, "message": f"check raised {type(exc).__name__}: {exc}", "evidence": {}}
    out["seconds"] = round(time.perf_counter() - start, 3)
    return out


def _loc(loc) -> dict[str, Any] | None:
    return None if loc is None else {"target": loc.target, "file": loc.file, "line": loc.line}


def _tests(tests) -> list[dict[str, Any]]:
    return [{"path": t.path, "tests": list(t.tests), "command": t.command()} for t in tests]


_ABBREVIATIONS = ("eq", "eqs", "fig", "figs", "thm", "prop", "resp", "cf", "vs", "e.g", "i.e", "al", "sec", "no")


def _first_sentence(text: str) -> str:
    """The first sentence of a docstring (a period followed by a space ends it, unless it ends "Eq.", "i.e." …)."""
    import re

    text = " ".join(text.split())
    for m in re.finditer(r"\.\s", text):
        word = re.split(r"[\s(]", text[:m.start()])[-1].lower()
        if word not in _ABBREVIATIONS and not re.fullmatch(r"[a-z]", word):
            return text[:m.start() + 1]
    return text


def to_json(found, *, run_errata: bool = True, run_checks: bool = False) -> dict[str, Any]:
    from dpspec.reference.catalogue import KINDS
    from dpspec.reference.precision import jsonable

    from . import links

    if isinstance(found, links.StatementLinks):
        st = found.statement
        errata = []
        for e in found.errata:
            errata.append({"id": e.id, "severity": e.severity, "summary": e.summary,
                           "verdict": _erratum_verdict(e, run_errata), "command": f"dpspec errata --only {e.id}"})
        checks = [{"id": c.id, "doc": _first_sentence(c.doc), "result": _check_result(c, run_checks),
                   "command": f"dpspec show {c.id}"} for c in found.checks]
        ok = all(e["verdict"] is None or e["verdict"]["reproduced"] for e in errata) and \
            all(c["result"] is None or c["result"]["holds"] for c in checks)
        return {
            "type": "statement", "id": st.id, "ok": ok,
            "source": {"seed": st.source.seed, "number": st.source.number, "purpose": st.source.purpose,
                       "citation": st.source.citation, "short": st.source.short()},
            "summary": st.summary, "kind": st.kind, "kind_meaning": KINDS[st.kind], "claim": st.claim,
            "value": None if st.value is None else st.value.describe(),
            "extension": st.extension, "note": st.note,
            "privacy": None if st.privacy is None else {"neighbouring": st.privacy.neighbouring,
                                                        "direction": st.privacy.direction,
                                                        "sampling": st.privacy.sampling},
            "conditions": [{"name": c.name, "text": c.text} for c in st.conditions],
            "params": [{"name": p.name, "domain": p.domain.describe(), "doc": p.doc,
                        "default": None if p.required else jsonable(p.default), "example": jsonable(p.example)}
                       for p in st.params],
            "reference": _loc(found.reference), "fast": _loc(found.fast), "fast_error": found.fast_error or None,
            "tolerance": st.tolerance,
            "witnesses": [{"id": u.witness, "mapping": "computed" if callable(u.params) else dict(u.params),
                           "note": u.note, "description": None if w is None else w.description,
                           "source": None if w is None else w.source,
                           "dominating": None if w is None else w.dominating,
                           "registered": None if w is None else _loc(links.locate(w.sample))}
                          for u, w in found.witnesses],
            "variants": [{"name": st.default_variant, "is_bound": True,
                          "note": "the default form" + (" (corrected)" if found.variants else "")}]
                        + [{"name": n, "is_bound": v.is_bound, "note": v.note} for n, v in found.variants],
            "errata": errata, "checks": checks, "tests": _tests(found.tests), "commands": found.commands(),
        }
    if isinstance(found, links.ErratumLinks):
        e = found.erratum
        verdict = _erratum_verdict(e, run_errata)
        return {"type": "erratum", "id": e.id, "ok": verdict is None or verdict["reproduced"],
                "source": e.source, "summary": e.summary, "severity": e.severity, "printed": e.printed,
                "corrected": e.corrected, "note": e.note,
                "statements": [{"id": s.id, "summary": s.summary} for s in found.statements],
                "demonstration": _loc(found.demonstration), "verdict": verdict,
                "checks": [{"id": c.id, "doc": _first_sentence(c.doc)} for c in found.checks],
                "tests": _tests(found.tests),
                "commands": found.commands()}
    if isinstance(found, links.CheckLinks):
        c = found.check
        result = _check_result(c, run_checks)
        return {"type": "proof check", "id": c.id, "ok": result is None or result["holds"], "doc": c.doc,
                "statements": [{"id": s.id, "summary": s.summary} for s in found.statements],
                "location": _loc(found.location), "result": result, "tests": _tests(found.tests),
                "commands": found.commands()}
    w = found.witness
    return {"type": "witness pair", "id": w.id, "ok": True, "description": w.description, "source": w.source,
            "dominating": w.dominating, "exact_log_moment": w.log_moment is not None, "stratified": w.strata is not None,
            "params": [{"name": p.name, "domain": p.domain.describe(), "doc": p.doc} for p in w.params],
            "note": w.note, "registered": _loc(found.location),
            "used_by": [{"id": s.id, "summary": s.summary} for s in found.used_by], "tests": _tests(found.tests),
            "commands": found.commands()}


# ---------------------------------------------------------------------------------------------------------------
# Text

def _where(loc: dict[str, Any] | None) -> str:
    if not loc:
        return "(none)"
    return loc["target"] + (f"  ({loc['file']}:{loc['line']})" if loc.get("file") and loc.get("line") else "")


def _verdict(v: dict[str, Any] | None, yes: str, no: str, key: str) -> str:
    if v is None:
        return "not run"
    return f"{yes} ({v['seconds']:.1f} s)" if v[key] else f"{no} ({v['seconds']:.1f} s): {v['message']}"


def render(doc: dict[str, Any]) -> str:
    out: list[str] = []
    add = out.append

    def section(title: str, rows: list[str]) -> None:
        add(f"{title}:" + ("" if rows else " (none)"))
        out.extend(f"  {r}" for r in rows)

    def tests_and_commands() -> None:
        section("tests", [f"{t['path']}" + (f" :: {', '.join(t['tests'])}" if t["tests"] else "")
                          for t in doc["tests"]] if doc["tests"] else
                ["(no test file names it" + ("" if _has_tests() else "; dpspec is installed without its tests")
                 + ")"])
        section("reproduce", doc["commands"])

    if doc["type"] == "statement":
        add(f"{doc['id']}  [{doc['kind']}, {doc['claim']}{', dpspec extension' if doc['extension'] else ''}]")
        src = doc["source"]
        add(f"source: {src['short']} ({src['purpose']})")
        if doc["summary"]:
            add(f"summary: {doc['summary']}")
        add(f"kind: {doc['kind']} ({doc['kind_meaning']}); claim: {doc['claim']}")
        if doc["value"]:
            add(f"value: {doc['value']}")
        if doc["privacy"]:
            pr = doc["privacy"]
            add(f"privacy: {pr['neighbouring']} neighbours, direction {pr['direction']}, sampling {pr['sampling']}")
        section("conditions", [f"{c['name']}: {c['text']}" for c in doc["conditions"]])
        section("parameters", [f"{p['name']} ∈ {p['domain']}" + (f" (default {p['default']})" if p["default"]
                                                                  is not None else "")
                               + (f" — {p['doc']}" if p["doc"] else "")
                               + (f" [example {p['example']}]" if p["example"] is not None else "")
                               for p in doc["params"]])
        add(f"reference: {_where(doc['reference'])}")
        add("fast: " + (_where(doc["fast"]) if doc["fast"] else (doc["fast_error"] or "(none)"))
            + (f"; tolerance {doc['tolerance']:g} relative" if doc["fast"] else ""))
        section("witness pairs", [f"{w['id']} (parameters: {w['mapping']})"
                                  + (f" — {w['description']}" if w["description"] else " — NOT REGISTERED")
                                  + (f"; source: {w['source']}" if w["source"] else "")
                                  + (f"; registered in {w['registered']['file']}:{w['registered']['line']}"
                                     if w["registered"] and w["registered"]["file"] else "")
                                  + (f"; {w['note']}" if w["note"] else "") for w in doc["witnesses"]])
        section("variants", [f"{v['name']}: {'a bound' if v['is_bound'] else 'NOT a bound'} — {v['note']}"
                             for v in doc["variants"]])
        section("errata", [f"{e['id']} [{e['severity']}] {e['summary']} — "
                           + _verdict(e["verdict"], "reproduced", "DOES NOT REPRODUCE", "reproduced")
                           for e in doc["errata"]])
        section("proof checks", [f"{c['id']} — {c['doc']} — "
                                 + _verdict(c["result"], "holds", "DOES NOT HOLD", "holds") for c in doc["checks"]])
        if doc["note"]:
            add(f"note: {doc['note']}")
        tests_and_commands()
    elif doc["type"] == "erratum":
        add(f"{doc['id']}  [{doc['severity']}] {doc['summary']}")
        add(f"source: {doc['source']}")
        add(f"printed: {doc['printed']}")
        add(f"corrected: {doc['corrected']}")
        section("statements", [f"{s['id']} — {s['summary']}" for s in doc["statements"]])
        add(f"demonstration: {_where(doc['demonstration'])}")
        if doc["checks"]:
            section("runs the proof checks", [f"{c['id']} — {c['doc']}" for c in doc["checks"]])
        add("verdict: " + _verdict(doc["verdict"], "reproduced", "DOES NOT REPRODUCE", "reproduced"))
        if doc["verdict"] and doc["verdict"]["evidence"]:
            add("evidence:")
            out.extend("  " + line for line in json.dumps(doc["verdict"]["evidence"], indent=2,
                                                          ensure_ascii=False).splitlines())
        if doc["note"]:
            add(f"note: {doc['note']}")
        tests_and_commands()
    elif doc["type"] == "proof check":
        add(f"{doc['id']}  [proof check]")
        add(f"claim: {doc['doc']}")
        section("statements", [f"{s['id']} — {s['summary']}" for s in doc["statements"]])
        add(f"code: {_where(doc['location'])}")
        add("result: " + _verdict(doc["result"], "holds", "DOES NOT HOLD", "holds"))
        if doc["result"] and doc["result"]["evidence"]:
            add("evidence:")
            out.extend("  " + line for line in json.dumps(doc["result"]["evidence"], indent=2,
                                                          ensure_ascii=False).splitlines())
        tests_and_commands()
    else:
        add(f"{doc['id']}  [witness pair{'' if doc['dominating'] else ', not dominating'}]")
        add(f"description: {doc['description']}")
        if doc["source"]:
            add(f"source: {doc['source']}")
        section("parameters", [f"{p['name']} ∈ {p['domain']}" + (f" — {p['doc']}" if p["doc"] else "")
                               for p in doc["params"]])
        add(f"exact log-moment: {'yes' if doc['exact_log_moment'] else 'no'}; stratified sampling: "
            f"{'yes' if doc['stratified'] else 'no'}")
        add(f"registered: {_where(doc['registered'])}")
        section("used by", [f"{s['id']} — {s['summary']}" for s in doc["used_by"]])
        if doc["note"]:
            add(f"note: {doc['note']}")
        tests_and_commands()
    return "\n".join(out)


def _has_tests() -> bool:
    from . import links

    return links.repo_root() is not None
