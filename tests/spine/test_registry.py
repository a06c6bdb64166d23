"""The one registry mechanism (dpspec.reference.registry) and the completeness of what is registered with it.

Completeness: every erratum names existing statements; every erratum cited in code or error messages is
registered under the right prefix; every variant that is not a bound is named by an erratum; every witness mapping
uses only its statement's parameters and yields exactly the witness's; every fast path takes its statement's
parameters (then only defaulted options); every proof check names existing statements. Each finder is a plain
function over its inputs, and a test below feeds it a broken input to show that it can fail.
"""
from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

from dpspec.proofs_checks import checks as proof_checks
from dpspec.proofs_checks import errata as errata_register
from dpspec.reference import catalogue
from dpspec.reference.catalogue import Variant, WitnessUse
from dpspec.reference.errors import ParameterError, UnknownStatementError
from dpspec.reference.registry import Registry, discover, natural_key

LAYERS = ("reference", "fast", "proofs_checks", "conformance")
STEPS = "steps"  # reserved witness-parameter name: T-fold composition (dpspec.conformance.sampling.STEPS_KEY)


def _folder(layer: str) -> Path:
    return Path(importlib.import_module(f"dpspec.{layer}").__file__).parent


def _prefixes() -> set[str]:
    """The id prefixes: the sub-packages of dpspec.reference and dpspec.proofs_checks (base, ptr, bc, ...)."""
    return {p.name for layer in ("reference", "proofs_checks") for p in _folder(layer).iterdir()
            if (p / "__init__.py").is_file()}


def _statement_ids() -> set[str]:
    return {s.id for s in catalogue.statements()}


def _erratum_ids() -> set[str]:
    return {e.id for e in errata_register.errata()}


# ---------------------------------------------------------------------------------------------------------------
# The mechanism

class _Entry:
    def __init__(self, id):
        self.id = id


def test_registry_registers_gets_and_orders_naturally():
    reg = Registry("thing", listing="`dpspec things` lists them")
    for i in ("ptr.E10", "ptr.E2", "bc.E9", "ptr.E1"):
        reg.register(_Entry(i))
    assert reg.ids() == ["bc.E9", "ptr.E1", "ptr.E2", "ptr.E10"]
    assert [e.id for e in reg.items()] == reg.ids() and len(reg) == 4 and "ptr.E2" in reg
    assert reg.get("ptr.E2").id == "ptr.E2"
    same = reg.get("ptr.E1")
    assert reg.register(same) is same  # registering the same object again is harmless


def test_registry_refuses_a_duplicate_id():
    reg = Registry("thing")
    reg.register(_Entry("ptr.x"))
    with pytest.raises(ValueError, match="duplicate thing id 'ptr.x'"):
        reg.register(_Entry("ptr.x"))


def test_unknown_id_names_close_ids_or_the_listing():
    reg = Registry("thing", listing="`dpspec things` lists them")
    for i in ("ptr.thm4_2", "ptr.thm4_4", "base.gaussian_rdp"):
        reg.register(_Entry(i))
    with pytest.raises(UnknownStatementError, match=r"unknown thing id 'ptr.thm44'; did you mean ptr.thm4_4"):
        reg.get("ptr.thm44")
    with pytest.raises(UnknownStatementError, match="`dpspec things` lists them"):
        reg.get("base.nothing_like_it")
    with pytest.raises(KeyError):  # UnknownStatementError is a KeyError and a ValueError
        reg.get("zzz")


def test_natural_key():
    assert sorted(["ptr.E10", "ptr.E9", "ptr.E1"], key=natural_key) == ["ptr.E1", "ptr.E9", "ptr.E10"]


def test_discovery_imports_every_public_module_once():
    discover("dpspec.proofs_checks")
    import sys

    assert "dpspec.proofs_checks.ptr.errata" in sys.modules and "dpspec.proofs_checks.bc.fdp" in sys.modules
    assert "dpspec.proofs_checks.ptr._exact" in sys.modules  # imported by the checks, not by discovery
    discover("dpspec.proofs_checks")  # a second call is a no-op


def test_the_four_registers_share_the_mechanism():
    assert isinstance(catalogue.STATEMENTS, Registry) and isinstance(catalogue.WITNESSES, Registry)
    assert isinstance(errata_register.ERRATA, Registry) and isinstance(proof_checks.CHECKS, Registry)
    assert catalogue.get("ptr.thm4_4") is catalogue.STATEMENTS.get("ptr.thm4_4")
    with pytest.raises(UnknownStatementError, match="unknown erratum id 'ptr.E99'"):
        errata_register.get_erratum("ptr.E99")
    with pytest.raises(UnknownStatementError, match="unknown witness id"):
        catalogue.get_witness("base.nope")


def test_no_other_discovery_walks_remain():
    """One discovery function: no other module of the source tree walks packages itself."""
    offenders = []
    for layer in LAYERS:
        for path in _folder(layer).rglob("*.py"):
            if path.name != "registry.py" and re.search(r"pkgutil\.(walk_packages|iter_modules)", path.read_text()):
                offenders.append(str(path))
    assert not offenders, offenders


# ---------------------------------------------------------------------------------------------------------------
# Proof checks: ids from the module path, statements declared or by the default rule

def _fake(module: str, name: str = "some_check"):
    def fn():
        return proof_checks.CheckResult(name, True)

    fn.__module__, fn.__name__ = module, name
    return fn


def test_check_id_comes_from_the_module_path():
    assert proof_checks.check_id(_fake("dpspec.proofs_checks.bc.fdp", "x")) == "bc.fdp.x"
    assert proof_checks.check_id(_fake("dpspec.proofs_checks.ptr.thm4_4")) == "ptr.thm4_4.some_check"
    for bad in ("dpspec.proofs_checks.ptr", "dpspec.proofs_checks.errata", "somewhere.else.mod"):
        with pytest.raises(ValueError, match="proof checks live in dpspec.proofs_checks.<prefix>.<module>"):
            proof_checks.check_id(_fake(bad))


def test_default_statements_of_a_check():
    named_after = proof_checks.ProofCheck("ptr.thm4_4.c", _fake("dpspec.proofs_checks.ptr.thm4_4"))
    topic = proof_checks.ProofCheck("ptr.trimmed_sum.c", _fake("dpspec.proofs_checks.ptr.trimmed_sum"))
    declared = proof_checks.ProofCheck("ptr.trimmed_sum.c", _fake("x"), ("ptr.thm5_1",))
    assert named_after.statements == ("ptr.thm4_4",)
    assert topic.statements == ()
    assert declared.statements == ("ptr.thm5_1",)


def test_ptr_package_reexports_the_one_registry():
    from dpspec.proofs_checks import ptr

    assert ptr.check is proof_checks.check and ptr.CheckResult is proof_checks.CheckResult
    assert set(ptr.all_checks()) == {k for k in proof_checks.all_checks() if k.startswith("ptr.")}


def _naming_problems(entries, statement_ids) -> list[str]:
    """Entries (proof checks, errata) that name no statement or a statement that does not exist."""
    problems = []
    for e in entries:
        if not e.statements:
            problems.append(f"{e.id}: names no catalogue statement")
        problems += [f"{e.id}: names {s}, not a catalogue statement" for s in e.statements if s not in statement_ids]
    return problems


def test_every_proof_check_names_existing_statements():
    assert not _naming_problems(proof_checks.CHECKS.items(), _statement_ids())


def test_check_finder_can_fail():
    bad = [proof_checks.ProofCheck("ptr.x.c", _fake("dpspec.proofs_checks.ptr.x"), ()),
           proof_checks.ProofCheck("ptr.x.d", _fake("dpspec.proofs_checks.ptr.x"), ("ptr.nope",))]
    assert len(_naming_problems(bad, _statement_ids())) == 2


# ---------------------------------------------------------------------------------------------------------------
# Errata name statements; non-bound variants are named by errata

def test_every_erratum_names_existing_statements():
    assert not _naming_problems(errata_register.errata(), _statement_ids())


def _unexplained_variants(statements, errata) -> list[str]:
    named = {s for e in errata for s in e.statements}
    return [f"{st.id}: variant {name!r} is not a bound, but no erratum names {st.id}"
            for st in statements for name, v in st.variants.items() if not v.is_bound and st.id not in named]


def test_every_variant_that_is_not_a_bound_is_named_by_an_erratum():
    assert not _unexplained_variants(catalogue.statements(), errata_register.errata())


def test_errata_finders_can_fail():
    erratum = errata_register.Erratum("ptr.E98", "s", "s", "p", "c", lambda: None, statements=())
    wrong = errata_register.Erratum("ptr.E97", "s", "s", "p", "c", lambda: None, statements=("ptr.nope",))
    assert len(_naming_problems([erratum, wrong], _statement_ids())) == 2
    st = catalogue.get("base.zw19_upper")
    fake = type("S", (), {"id": st.id, "variants": {"printed": Variant(st.reference, "x", is_bound=False)}})()
    assert _unexplained_variants([fake], errata_register.errata())


# ---------------------------------------------------------------------------------------------------------------
# Every erratum cited in code or messages is registered

ID_CITATION = re.compile(r"(?<![\w.])(?P<prefix>[a-z][a-z0-9_]*)\.E(?P<n>\d+)(?!\w)")
E_LIST = r"E\d+(?:\([a-z]+\))?(?:'s)?(?:\s*(?:,|–|-|and)\s*E\d+(?:\([a-z]+\))?)*"
WORD_CITATION = re.compile(r"\b[Ee]rrat(?:um|a)\b[\s:]+(?P<list>" + E_LIST + ")")
PAREN_CITATION = re.compile(r"\((?P<list>" + E_LIST + r")[);,]")


def citations(text: str, prefix: str | None, prefixes: set[str]) -> list[tuple[int, str]]:
    """(line, erratum id) of every erratum citation in a source text: explicit ids (``ptr.E6``, ``bc.E9``), and
    bare numbers after "erratum"/"errata" or in parentheses ("(E16)", "errata E9–E11, E3"), which take the prefix
    of the file's folder (``None`` outside a prefix folder: then the citation reads ``?.E<n>``)."""
    found = []
    for m in ID_CITATION.finditer(text):
        if m["prefix"] in prefixes:
            found.append((m.start(), f"{m['prefix']}.E{m['n']}"))
    for pattern in (WORD_CITATION, PAREN_CITATION):
        for m in pattern.finditer(text):
            numbers: list[int] = []
            for part in re.finditer(r"E(\d+)(?:\s*[–-]\s*E(\d+))?", m["list"]):
                lo, hi = int(part[1]), int(part[2] or part[1])
                numbers += range(lo, hi + 1)
            found += [(m.start(), f"{prefix or '?'}.E{n}") for n in numbers]
    return sorted({(text.count("\n", 0, pos) + 1, i) for pos, i in found})


def _citation_problems(files, registered, prefixes) -> list[str]:
    """files: (display path, prefix of its folder or None, text)."""
    return [f"{path}:{line}: cites {i}, which is not a registered erratum"
            for path, prefix, text in files for line, i in citations(text, prefix, prefixes) if i not in registered]


def _source_files():
    prefixes = _prefixes()
    for layer in LAYERS:
        root = _folder(layer)
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root).parts
            prefix = rel[0] if len(rel) > 1 and rel[0] in prefixes else None
            yield f"{layer}/{'/'.join(rel)}", prefix, path.read_text(encoding="utf-8")


def test_every_cited_erratum_is_registered():
    problems = _citation_problems(_source_files(), _erratum_ids(), _prefixes())
    assert not problems, "\n".join(problems)


def test_citations_are_found_and_resolved():
    prefixes = {"ptr", "bc", "base"}
    text = ('"""Errata E3, E4 and erratum E9–E11; see (E16), ptr.E6(a), bc.E9 and "erratum E7\'s proviso".\n'
            'Not citations: noqa: E731, E1 − E2 ~ Exp(1), ptr.E1_POINTS."""\n')
    assert [i for _, i in citations(text, "ptr", prefixes)] == sorted(
        ["ptr.E3", "ptr.E4", "ptr.E9", "ptr.E10", "ptr.E11", "ptr.E16", "ptr.E6", "bc.E9", "ptr.E7"])
    assert citations("(erratum E7)", None, prefixes) == [(1, "?.E7")]


def test_citation_finder_can_fail():
    files = [("reference/ptr/x.py", "ptr", "a proviso (erratum E7)\n"), ("fast/x.py", None, "(E1)\n"),
             ("reference/base/y.py", "base", "see bc.E9 and erratum E9\n")]
    problems = _citation_problems(files, {"ptr.E1", "bc.E9"}, {"ptr", "bc", "base"})
    assert problems == ["reference/ptr/x.py:1: cites ptr.E7, which is not a registered erratum",
                        "fast/x.py:1: cites ?.E1, which is not a registered erratum",
                        "reference/base/y.py:1: cites base.E9, which is not a registered erratum"]


# ---------------------------------------------------------------------------------------------------------------
# Witness mappings

class _Tracked(dict):
    """The statement's parameters; reading a name it does not have fails with the name."""

    def __getitem__(self, key):
        if key not in self:
            raise KeyError(f"{key!r} is not a parameter of the statement ({', '.join(self)})")
        return super().__getitem__(key)


def _mapping_problems(st, bound) -> list[str]:
    problems = []
    for use in st.witnesses:
        try:
            witness = catalogue.get_witness(use.witness)
        except UnknownStatementError:
            problems.append(f"{st.id}: witness {use.witness} is not registered")
            continue
        if not callable(use.params):
            problems += [f"{st.id} → {use.witness}: maps {s!r}, not a parameter of the statement"
                         for s in use.params if s not in st.param_names]
        try:
            produced = use.witness_params(_Tracked(bound))
        except KeyError as exc:
            problems.append(f"{st.id} → {use.witness}: {exc.args[0]}")
            continue
        own = {p.name for p in witness.params}
        required = {p.name for p in witness.params if p.required}
        extra = set(produced) - own - ({STEPS} if STEPS not in own else set())
        missing = required - set(produced)
        if extra or missing:
            problems.append(f"{st.id} → {use.witness}: produces {sorted(produced)}; the witness takes "
                            f"{sorted(own)} (unknown {sorted(extra)}, missing {sorted(missing)})")
    return problems


@pytest.mark.parametrize("statement_id", sorted(s.id for s in catalogue.statements() if s.witnesses))
def test_witness_mapping_uses_the_statements_parameters_and_yields_the_witnesss(statement_id):
    st = catalogue.get(statement_id)
    bound = st.bind(st.example_params())  # the statement's example point, defaults filled in
    assert not _mapping_problems(st, bound)


def test_mapping_finder_can_fail():
    st = catalogue.get("base.gaussian_eps")
    bound = st.bind(st.example_params())
    foreign = type("S", (), {"id": st.id, "param_names": st.param_names,
                             "witnesses": (WitnessUse("base.gaussian", {"sigma": "sigma", "eps": "eps"}),
                                           WitnessUse("base.gaussian", lambda p: {"sigma": p["noise"]}),
                                           WitnessUse("base.gaussian", {"delta": "scale"}),
                                           WitnessUse("base.nope", {}))})()
    problems = _mapping_problems(foreign, bound)
    assert len(problems) == 5, problems


def test_every_statement_with_witnesses_has_an_example_point():
    for st in catalogue.statements():
        if st.witnesses:
            try:
                st.bind(st.example_params())
            except ParameterError as exc:
                pytest.fail(f"{st.id}: {exc}")


# ---------------------------------------------------------------------------------------------------------------
# Fast paths take their statement's parameters

def _signature_problems(statement_id, param_names, fn) -> list[str]:
    params = list(inspect.signature(fn).parameters.values())
    leading = [p.name for p in params[:len(param_names)]
               if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    problems = []
    if leading != list(param_names):
        problems.append(f"{statement_id}: fast path starts with ({', '.join(p.name for p in params)}), "
                        f"the statement has ({', '.join(param_names)})")
    for p in params[len(param_names):]:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or p.default is p.empty:
            problems.append(f"{statement_id}: fast path has {p} beyond the statement's parameters "
                            "(only options with a default may follow)")
    return problems


@pytest.mark.parametrize("statement_id", sorted(s.id for s in catalogue.statements() if s.fast))
def test_fast_path_signature_matches_the_statement(statement_id):
    st = catalogue.get(statement_id)
    assert not _signature_problems(st.id, st.param_names, st.fast_function())


def test_signature_finder_can_fail():
    def swapped(sigma, alpha, allow_outside=False):
        pass

    def required_extra(alpha, sigma, scale):
        pass

    def fine(alpha, sigma, *, allow_outside=False):
        pass

    assert _signature_problems("x", ("alpha", "sigma"), swapped)
    assert _signature_problems("x", ("alpha", "sigma"), required_extra)
    assert not _signature_problems("x", ("alpha", "sigma"), fine)
