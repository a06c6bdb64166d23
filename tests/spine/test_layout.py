"""The layout conventions (DESIGN.md, "Layout"): a statement's id prefix is a folder in every layer, imports flow
one way, and each text's dependency-free ``spec.py`` is the one source of its domains and condition words.

* placement: a statement ``P.x`` has its reference evaluator(s) under ``dpspec.reference.P``, its fast path under
  ``dpspec.fast.P``, witness pairs ``P.*`` or ``base.*`` (registered under ``dpspec.reference.<their prefix>``), its
  errata (``X.E*``, under ``dpspec.proofs_checks.X``, naming ``X.*`` or ``base.*`` statements) and proof checks
  (under ``dpspec.proofs_checks.<their prefix>``); a test file naming ``P.*`` ids lives in ``tests/P/`` (a text's
  tests may also name the ``base.*`` results it builds on) or in a cross-cutting folder (spine, conformance, audit).
* import layers (AST, imports inside functions included): reference never imports fast, conformance,
  proofs_checks or torch; proofs_checks never fast or conformance; fast never mpmath, sympy, conformance or
  proofs_checks, and from dpspec.reference only domains, errors and the ``spec`` modules; a ``spec.py`` imports the
  standard library and dpspec.reference.domains/errors only. At run time ``import dpspec.fast`` loads neither mpmath
  nor sympy, and the spec modules load no third-party package.
* spec: every condition of a statement is a ``ConditionSpec`` of its prefix's spec module, every seed it cites is in
  that module's ``SEEDS``, no domain is defined again in fast/, and fast and reference raise the same
  ``ConditionError`` words outside a statement's conditions.

The folders are read from the imported ``dpspec`` packages and from this file's ``tests/``, so the checks apply to
whatever tree is imported.
"""
from __future__ import annotations

import ast
import functools
import importlib
import inspect
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from dpspec.reference import catalogue
from dpspec.reference.domains import ConditionSpec, Integer, Real
from dpspec.reference.errors import ConditionError

LAYERS = ("reference", "fast", "proofs_checks", "conformance")
CROSS_CUTTING_TESTS = ("spine", "conformance", "audit")
TESTS = Path(__file__).resolve().parents[1]


def _folder(layer: str) -> Path:
    return Path(importlib.import_module(f"dpspec.{layer}").__file__).parent


def _prefixes() -> tuple[str, ...]:
    """The texts: the sub-packages of dpspec.reference that have a spec module."""
    return tuple(sorted(p.name for p in _folder("reference").iterdir() if (p / "spec.py").is_file()))


def _spec(prefix: str):
    return importlib.import_module(f"dpspec.reference.{prefix}.spec")


def _prefix(some_id: str) -> str:
    return some_id.split(".", 1)[0]


def _unwrap(fn):
    """The function behind functools.wraps / self_checked wrappers and partials."""
    while True:
        fn = inspect.unwrap(fn)
        if isinstance(fn, functools.partial):
            fn = fn.func
            continue
        return fn


def _module_of(fn) -> str:
    return getattr(_unwrap(fn), "__module__", None) or "?"


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


# ---------------------------------------------------------------------------------------------------------------
# Placement: one folder per id prefix in every layer

def test_every_text_is_a_folder_in_every_layer():
    prefixes = _prefixes()
    assert {"base", "ptr"} <= set(prefixes)
    missing = [f"{layer}/{p}/" for p in prefixes for layer in ("reference", "fast", "proofs_checks")
               if not (_folder(layer) / p / "__init__.py").is_file()]
    assert not missing, f"text folders missing: {missing}"


def test_every_statement_sits_in_its_prefix_folders():
    prefixes, wrong = _prefixes(), []
    for st in catalogue.statements():
        p = _prefix(st.id)
        if p not in prefixes:
            wrong.append(f"{st.id}: prefix {p!r} has no dpspec.reference.{p}.spec")
            continue
        evaluators = {"reference": st.reference, **{f"variant {k}": v.reference for k, v in st.variants.items()}}
        for what, fn in evaluators.items():
            module = _module_of(fn)
            if not _under(module, f"dpspec.reference.{p}"):
                wrong.append(f"{st.id}: {what} evaluator in {module}, not under dpspec.reference.{p}")
        if st.fast is not None:
            module = st.fast.partition(":")[0]
            if not _under(module, f"dpspec.fast.{p}"):
                wrong.append(f"{st.id}: fast path {st.fast} not under dpspec.fast.{p}")
            elif not _under(_module_of(st.fast_function()), f"dpspec.fast.{p}"):
                wrong.append(f"{st.id}: fast path {st.fast} is defined in {_module_of(st.fast_function())}")
        for use in st.witnesses:
            if _prefix(use.witness) not in (p, "base"):
                wrong.append(f"{st.id}: witness pair {use.witness} is neither {p}.* nor base.*")
    assert not wrong, "\n".join(wrong)


def test_every_witness_pair_is_registered_in_its_prefix_folder():
    wrong = [f"{w.id}: registered from {_module_of(w.sample)}" for w in catalogue.witnesses()
             if not _under(_module_of(w.sample), f"dpspec.reference.{_prefix(w.id)}")]
    assert not wrong, "\n".join(wrong)


def _errata():
    from dpspec.proofs_checks import errata

    return errata.errata()


def test_every_erratum_sits_in_its_prefix_folder_and_names_its_text_or_base():
    wrong = []
    for e in _errata():
        p = _prefix(e.id)
        demo = getattr(e, "demonstration", None) or getattr(e, "witness")
        module = _module_of(demo)
        if not _under(module, f"dpspec.proofs_checks.{p}"):
            wrong.append(f"{e.id}: registered from {module}, not under dpspec.proofs_checks.{p}")
        wrong += [f"{e.id}: names {s}, neither {p}.* nor base.*" for s in e.statements if _prefix(s) not in (p, "base")]
    assert not wrong, "\n".join(wrong)


def test_every_proof_check_sits_in_its_prefix_folder():
    from dpspec.proofs_checks.checks import all_checks

    checks = all_checks()
    assert checks, "no proof checks found"
    wrong = [f"{k}: defined in {_module_of(c.fn)}" for k, c in checks.items()
             if not _under(_module_of(c.fn), f"dpspec.proofs_checks.{_prefix(k)}")]
    assert not wrong, "\n".join(wrong)


def _named_ids(path: Path, ids: set[str], token: re.Pattern) -> set[str]:
    named = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            named.update(t for t in token.findall(node.value) if t in ids)
    return named


def test_a_test_file_naming_ids_of_a_text_sits_in_that_texts_folder():
    ids = {st.id for st in catalogue.statements()} | {e.id for e in _errata()}
    token = re.compile(r"(?<![\w.])((?:%s)\.\w+)" % "|".join(map(re.escape, _prefixes())))
    wrong = []
    for path in sorted(TESTS.rglob("*.py")):
        parts = path.relative_to(TESTS).parts
        folder = parts[0] if len(parts) > 1 else None  # files directly in tests/ (conftest, _helpers): any id
        if folder is None or folder in CROSS_CUTTING_TESTS:
            continue
        allowed = {folder, "base"}
        for i in sorted(_named_ids(path, ids, token)):
            if _prefix(i) not in allowed:
                wrong.append(f"tests/{'/'.join(parts)} names {i}: move it to tests/{_prefix(i)}/ or a "
                             f"cross-cutting folder ({', '.join(CROSS_CUTTING_TESTS)})")
    assert not wrong, "\n".join(wrong)


# ---------------------------------------------------------------------------------------------------------------
# Import layers

def _modules(layer: str):
    """(dotted module name, path) of every source file of a layer."""
    root = _folder(layer)
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).with_suffix("").parts
        if rel[-1] == "__init__":
            yield ".".join(("dpspec", layer) + rel[:-1]), path, True
        else:
            yield ".".join(("dpspec", layer) + rel), path, False


def _imports(module: str, path: Path, is_package: bool):
    """(imported name, line) for every import statement of a file, at any depth; ``from m import n`` yields m and
    m.n (n may be a module)."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = parts[:len(parts) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module
            yield name, node.lineno
            for alias in node.names:
                yield f"{name}.{alias.name}", node.lineno


def _is(name: str, *packages: str) -> bool:
    return any(_under(name, p) for p in packages)


def _fast_may_use(name: str) -> bool:
    """From dpspec.reference the fast path uses only domains, errors and the spec modules (and their packages)."""
    parts = name.split(".")
    if parts[:2] != ["dpspec", "reference"]:
        return True
    if len(parts) == 2 or parts[2] in ("domains", "errors"):
        return True
    text_package = (_folder("reference") / parts[2] / "spec.py").is_file()
    return text_package and (len(parts) == 3 or parts[3] == "spec")


def _violations(layer: str, rule) -> list[str]:
    out = []
    for module, path, is_package in _modules(layer):
        for name, line in _imports(module, path, is_package):
            why = rule(module, name)
            if why:
                out.append(f"{layer}/{path.relative_to(_folder(layer)).as_posix()}:{line} imports {name} ({why})")
    return out


def _reference_rule(module, name):
    if _is(name, "dpspec.fast", "dpspec.conformance", "dpspec.proofs_checks", "torch"):
        return "reference → fast/conformance/proofs_checks/torch"
    allowed = _is(name, "__future__", "dpspec.reference.domains", "dpspec.reference.errors") \
        or name.split(".")[0] in sys.stdlib_module_names
    if module.endswith(".spec") and not allowed:
        return "a spec module imports the standard library and dpspec.reference.domains/errors only"
    return None


def _proofs_checks_rule(module, name):
    if _is(name, "dpspec.fast", "dpspec.conformance"):
        return "proofs_checks → fast/conformance"
    return None


def _fast_rule(module, name):
    if _is(name, "mpmath", "sympy", "dpspec.conformance", "dpspec.proofs_checks"):
        return "fast → mpmath/sympy/conformance/proofs_checks"
    if not _fast_may_use(name):
        return "fast may use dpspec.reference's domains, errors and spec modules only"
    return None


@pytest.mark.parametrize("layer,rule", [("reference", _reference_rule), ("proofs_checks", _proofs_checks_rule),
                                        ("fast", _fast_rule)], ids=["reference", "proofs_checks", "fast"])
def test_import_layer_contract(layer, rule):
    wrong = _violations(layer, rule)
    assert not wrong, "\n".join(wrong)


def test_import_dpspec_fast_loads_neither_mpmath_nor_sympy_and_specs_load_no_third_party_package():
    # every module of dpspec.fast (opacus_compat aside: it is the Opacus adapter, imported on demand)
    code = ("import importlib, pkgutil, sys, dpspec.fast\n"
            "for m in pkgutil.walk_packages(dpspec.fast.__path__, 'dpspec.fast.'):\n"
            "    if m.name != 'dpspec.fast.opacus_compat': importlib.import_module(m.name)\n"
            "print(sorted(m for m in ('mpmath', 'sympy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", f"import dpspec.fast loaded {out.strip()}"
    specs = [f"dpspec.reference.{p}.spec" for p in _prefixes()]
    code = (f"import importlib, sys\nbefore = set(sys.modules)\nfor m in {specs!r}: importlib.import_module(m)\n"
            "print(sorted({m.split('.')[0] for m in set(sys.modules) - before} - set(sys.stdlib_module_names)"
            " - {'dpspec'}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", f"the spec modules loaded {out.strip()}"


# ---------------------------------------------------------------------------------------------------------------
# spec: one source of seeds, domains and condition words

def test_a_spec_binds_each_name_once():
    """A text's spec.py is written in sections by several hands; a second binding of a name silently replaces the
    first for every statement that imports it (seed 003's objpert spec had P_C_UNIV twice: the GOE lemmas' constant
    replaced Thm C.7.1's)."""
    twice = []
    for path in sorted((TESTS.parent / "reference").glob("*/spec.py")):
        seen: dict[str, int] = {}
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                bound = [a.asname or a.name.split(".")[0] for a in node.names]
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                bound = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
            else:
                continue
            for name in bound:
                if name in seen and name != "_":
                    twice.append(f"{path.parent.name}/spec.py: {name} bound at lines {seen[name]} and {node.lineno}")
                seen.setdefault(name, node.lineno)
    assert not twice, twice


def test_statements_cite_their_texts_seeds_and_conditions():
    wrong = []
    for st in catalogue.statements():
        spec = _spec(_prefix(st.id))
        if st.source.seed != "outside" and st.source.seed not in spec.SEEDS:
            wrong.append(f"{st.id}: seed {st.source.seed} not in {spec.__name__}.SEEDS")
        words = {v for v in vars(spec).values() if isinstance(v, ConditionSpec)}
        conditions = list(st.conditions) + [c for v in st.variants.values() for c in (v.conditions or ())]
        wrong += [f"{st.id}: condition {c.name!r} is not a ConditionSpec of {spec.__name__}" for c in conditions
                  if ConditionSpec(c.name, c.text) not in words]
    assert not wrong, "\n".join(wrong)


def _bounds(domain):
    if isinstance(domain, Real):
        return ("Real", domain.lo, domain.hi, domain.lo_open, domain.hi_open, domain.allow_inf)
    if isinstance(domain, Integer):
        return ("Integer", domain.lo, domain.hi)
    return None


def _known_domains() -> dict[tuple, list[str]]:
    """The domains of dpspec.reference.domains and of every spec module, by their bounds."""
    known: dict[tuple, list[str]] = {}
    seen: set[int] = set()  # a spec module re-exports the generic domains it imports: name each object once
    for module in ["dpspec.reference.domains"] + [f"dpspec.reference.{p}.spec" for p in _prefixes()]:
        for name, value in vars(importlib.import_module(module)).items():
            if _bounds(value) is not None and name.isupper() and id(value) not in seen:
                seen.add(id(value))
                known.setdefault(_bounds(value), []).append(f"{module}.{name}")
    return known


def _literal_domain(node: ast.Call):
    """The Real/Integer a call with literal arguments builds (math.inf allowed), else None."""
    if not (isinstance(node.func, ast.Name) and node.func.id in ("Real", "Integer")):
        return None
    try:
        code = compile(ast.Expression(node), "<domain>", "eval")
        return eval(code, {"__builtins__": {}, "Real": Real, "Integer": Integer, "math": math})
    except Exception:
        return None


def test_fast_defines_no_copy_of_a_reference_domain():
    known, wrong = _known_domains(), []
    for module, path, _ in _modules("fast"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            domain = _literal_domain(node) if isinstance(node, ast.Call) else None
            if domain is not None and _bounds(domain) in known:
                wrong.append(f"fast/{path.relative_to(_folder('fast')).as_posix()}:{node.lineno} builds "
                             f"{ast.unparse(node)}: import {' or '.join(known[_bounds(domain)])}")
    assert not wrong, "\n".join(wrong)


# A point outside the conditions of every statement whose fast path enforces them.
OUTSIDE = {
    "base.gaussian_classical": dict(delta=1e-5, sigma=1.0),
    "base.sgm_wor_profile": dict(eps=1.0, m=10, n=5, sigma=1.0),
    "base.sgm_wor_rdp": dict(alpha=2.0, m=10, n=5, sigma=1.0),
    "objpert.thm2_3_5_accuracy": dict(eps1bar=0.3, grad=0.5, lam=1.0, beta=0.25, sigma=5.0, sigma2=5.0, sigma3=0.1,
                                      d=5, rho=1e-3),
    "objpert.prop_a3_5": dict(eps1bar=0.3, grad=0.5, lam=1.0, beta=0.25, sigma=5.0, sigma2=5.0, sigma3=0.1, d=5,
                              rho=1e-3, n=1000, part="users"),
    "objpert.prop_a5_1": dict(lam_min=1.0, sigma3=0.1, d=5, rho=1e-3),
    "ptr.thm4_2": dict(b=1.0, sigma1=1.0, delta0=1e-8, delta=1e-5),
    "ptr.fig3_direct": dict(steps=10, q=0.01, sigma1=1.0, b=1.0, delta0=1e-8, delta_gauss=1e-7, delta_slack=1e-6),
    "ptr.lemma_a1": dict(alpha=2.0, q=0.5, sigma=1.0),
    "ptr.thm4_4": dict(alpha=2.0, q=0.5, sigma1=1.0, sigma2=2.0, b=1.0, delta0=1e-8),
    "ptr.thm5_2": dict(n=10, F=6, d=10, R=1.0, beta=1.0, lam_sc=1.0, sigma_g=0.1, sigma1=0.1, sigma2=0.01,
                       eta_B=1e-5),
    "ptr.zw19_lower": dict(alpha=3.0, q=0.01, sigma1=8.0, sigma2=0.5, b=100.0, delta0=0.5),
    # seed 002: a batch of s·m = 6 samples from N = 4 (Algorithm 1's conditions; no value exists outside them)
    **{sid: dict(sampling="subsampling", N=4, m=2, s=3, g=1, E=1, sigma=1.0, **extra) for sid, extra in (
        ("bc.a1_epsilon", dict(delta=1e-5)), ("bc.a1_profile", dict(eps=1.0)), ("bc.def4_2", dict(alpha=0.1)),
        ("bc.thm4_5", dict(alpha=0.1, c_U=1.0)), ("bc.thm4_6", dict(alpha=0.1, c_L=1.0)),
        ("bc.thm4_5_profile", dict(eps=1.0, c_U=1.0)), ("bc.thm4_6_profile", dict(eps=1.0, c_L=1.0)),
        ("bc.lemma_c2", dict(alpha=0.1, c_L=1.0)), ("bc.lemma_c3", dict(alpha=0.1, c_U=1.0)))},
    "bc.def4_1": dict(sampling="subsampling", N=4, m=2, s=3, g=1, E=1, c2=1),
    "bc.g3_bose_einstein": dict(N=4, s=3, g=5, j=1),
    # seed 003 ch. 3 (gptr.*): Algorithm 13's "passes with at most δ′", λ* = λ + λ_min ≤ 0, an infeasible γ budget, a
    # removal with λ + λ_min ≤ ‖𝒳‖², R(L + β) < β/2, λ < RL, an eigengap d_k ≤ 2, Thm 23 above 1/(2β), bad vote counts
    "gptr.thm_b2_5": dict(alpha=4.0, eps_hat_alpha=2.0, eps_tilde_alpha=10.0, eps_alpha=0.01, delta_prime=3e-5,
                          pass_law="at_most"),
    "gptr.thm3_6_1": dict(gamma=1.0, lam=0.0, lam_min=0.0, L=1.0, x_norm=1.0, delta=1e-6),
    "gptr.thm3_6_1_gamma": dict(eps=0.1, lam=1.0, lam_min=1.0, L=1.0, x_norm=1.0, delta=1e-6),
    "gptr.alg14": dict(gamma=1.0, lam=0.0, lam_min_p=0.0, Delta_p=0.5, x_norm=1.0, delta=1e-6),
    "gptr.lemma_b4_2": dict(lam=0.5, lam_min=0.2, x_norm=1.0),
    "gptr.rem_b3_7_gamma": dict(eps=0.5, alpha_sc=30.0, delta=1e-6),
    "gptr.thm_b3_6": dict(R=0.01, L=0.1, beta=1.0, alpha_sc=1.0, gamma=1.0, delta=1e-6),
    "gptr.thm_b3_11": dict(R=1.0, L=1.0, beta=0.25, lam=0.5),
    "gptr.thm_b3_13": dict(d_k=1.5, sigma=1.0, delta=1e-5),
    "gptr.lemma3_6_5": dict(alpha=60.0, beta=0.01, sigma_s=15.0, sigma_2=15.0),
    "gptr.thm3_6_4": dict(votes=[[3, 2, 1], [3, 3, 1]], sigma=10.0, alpha=5.0),
    "gptr.prop7_logq": dict(votes=[[3, 2], [4, 1]], sigma=10.0),
    "gptr.smooth_sensitivity": dict(votes=[[3, 2], [4, 1]], teachers=6, sigma=10.0, alpha=5.0, beta=0.01),
    # seed 003 ch. 2 and 4 (objpert.*): λ ≤ β (the Jacobian term is infinite), λ < 2β/ε (Kifer's condition), a removal
    # whose target is not in the records, a per-example Hessian eigenvalue ≥ λ, data of the wrong shape
    **{sid: dict(sigma=5.0, lam=0.5, beta=1.0, L=1.0, **extra) for sid, extra in (
        ("objpert.thm4_3_1", dict(eps=1.0)), ("objpert.thm4_3_1_epsilon", dict(delta=1e-5)),
        ("objpert.thm4_3_2", dict(alpha=2.0)), ("objpert.thm4_3_2_kl", dict(alpha=1.0)),
        ("objpert.lemma_c4_3", dict(eps=1.0, x_norm=0.5)), ("objpert.lemma_c4_6", dict(alpha=0.05)),
        ("objpert.thm_c5_1", dict(alpha=2.0, d=10)))},
    "objpert.thm4_4_1": dict(alpha=2.0, sigma=5.0, sigma_out=0.15, lam=0.5, beta=1.0, C=1.0, tau=0.01),
    "objpert.thm_c6_1": dict(alpha=2.0, sigma=5.0, sigma_out=0.15, lam=0.5, beta=1.0, L=1.0, tau=0.01),
    "objpert.thm2_2_5": dict(eps=1.0, delta=1e-5, xi=1.0, beta=0.25, lam=0.1),
    "objpert.thm4_2_8": dict(eps=1.0, sigma=5.0, L=1.0, beta=1.0, lam=1.0),
    **{sid: dict(records=[[1.0, 0.0, 1.0], [0.0, 1.0, -1.0]], target=[[0.6, 0.8, 1.0]], theta=[[0.3, -0.2]], lam=1.0,
                 sigma=1.0, loss="logistic", member="in") for sid in ("objpert.cor2_3_2", "objpert.thm2_3_1")},
    "objpert.thm2_3_3": dict(eigs=[[2.0]], lam=1.0),
    "objpert.thm2_3_4": dict(grad=[[0.6, 0.8], [0.1, 0.2]], sigma=1.0, rho=0.01),
    "objpert.thm_a6_1": dict(o=[[0.3, 0.5]], q_d=[[0.0, 0.0]], delta_vec=[[1.0]], sigma=1.0),
    # seed 004 (dc.*): θ < 1/2 (Assumption 3.1), Lemma A.3's λ above its range
    "dc.a3_1": dict(samples=[[1.0], [2.0]], theta=0.4),
    "dc.lemma_a3": dict(theta=2.0, x=100.0, alpha_f=40.0, beta_f=1000.0, lam=0.02, m_max=1.0, n=10000, delta=1e-5,
                        event="E"),
    # θ < 1/2, δ > 2/e (log(2/δ) < 1), a threshold case whose own condition fails, a negative coefficient in (40)
    "dc.thm_b1": dict(theta=0.4, K=1.0, steps=473.0, delta=1e-05, m2=4.0, d=100000, batch=256, n=50000, eps=4.0),
    "dc.thm5_3": dict(theta=0.4, K=1.0, steps=473.0, delta=1e-05, which="c1"),
    "dc.thm_e1": dict(theta=0.5, K=1.0, steps=473.0, delta=1e-05, which="c2", m2=4.0, d=100000, batch=256,
                      n=100000000, eps=4.0),
    **{sid: dict(K=1.0, beta=1.0, loss_gap=1.0, d=100000, n=50000, eps=4.0, batch=256, m2=4.0, steps=186.4, **extra)
       for sid, extra in (("dc.thm_b1_eq28", dict(theta=1.0, delta=0.8)), ("dc.thm_e1_eq67", dict(theta=1.0, delta=0.8)),
                          ("dc.thm_e1_eq68", dict(theta=0.4, delta=1e-05)),
                          ("dc.thm_b1_eq40", dict(theta=1.0, delta=1e-05, c=1000.0)),
                          ("dc.thm_f1", dict(theta=1.0, delta=0.8, p_tail=0.1, delta_m_prime=0.01)))},
    "dc.reading_a": dict(q=0.01, steps=100, delta=1e-5, sigma_dp=1.0, c1=1.0, c2=1.5),
    "dc.sigma_eff": dict(reading="A", sigma_dp=1.0, c1=1.0, c2=1.5, sigma_tr=1.0),
    "dc.thm5_1": dict(eps=8.0, delta=1e-5, q=0.01, steps=100, m2=4.0, m1=1.0),
    "dc.thm5_1_total": dict(eps_tr=4.0, eps_dp=4.0, delta=1e-5, q=0.01, steps=100, m2=4.0, m1=1.0, c1=1.0, c2=1.5),
    "dc.reading_c": dict(q=0.01, steps=100, delta=1e-5, sigma_dp=1.0, c1=1.0, c2=1.5, sigma_tr=1.0),
    "dc.thm4_1": dict(theta=0.4, steps=186.4, delta=1e-05, d=100000, n=50000, eps=4.0),
    "dc.thm5_4": dict(theta=0.4, steps=186.4, delta=1e-05, d=100000, n=50000, eps=4.0, p_tail=0.1),
}


def test_every_statement_with_conditions_and_a_fast_path_has_an_outside_point():
    enforcing = sorted(st.id for st in catalogue.statements() if st.conditions and st.fast is not None)
    no_switch = [i for i in enforcing
                 if "allow_outside" not in inspect.signature(catalogue.get(i).fast_function()).parameters]
    assert not no_switch, f"fast paths that do not enforce their statement's conditions: {no_switch}"
    assert enforcing == sorted(OUTSIDE), "add a point outside the conditions to OUTSIDE"


@pytest.mark.parametrize("statement_id", sorted(OUTSIDE))
def test_fast_and_reference_raise_the_same_condition_words(statement_id):
    st, point = catalogue.get(statement_id), OUTSIDE[statement_id]
    with pytest.raises(ConditionError) as reference:
        st.evaluate(dps=30, **point)
    with pytest.raises(ConditionError) as fast:
        st.fast_function()(**point)
    assert fast.value.failed == reference.value.failed
    assert str(fast.value) == str(reference.value)
