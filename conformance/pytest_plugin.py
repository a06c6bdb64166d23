"""pytest plugin: check your own accountant or mechanism against dpspec inside your own test suite.

Registered as the ``pytest11`` entry point ``dpspec`` (pyproject.toml), so it loads automatically once dpspec is
installed (or explicitly with ``-p dpspec``; ``-p no:dpspec`` turns it off). It provides one fixture::

    def test_my_accountant(dpspec_conformance):
        report = dpspec_conformance.check_accountant(my_accountant)          # AssertionError when it fails
        assert report.verdict in ("consistent", "loose")

    def test_my_mechanism(dpspec_conformance):
        dpspec_conformance.check_mechanism(release, [1.0] * 5, [1.0] * 4, claim=(1.0, 1e-5), family="gaussian")

Both run exactly what ``dpspec audit`` runs, with its seeds, intervals and witnesses: ``check_accountant`` is
``audit.accountants.audit_accountant`` (same Monte Carlo truth, seed, confidence, reference, verdict rules) and
``check_mechanism`` is ``audit.mechanisms.audit_mechanism`` (same split-sample Clopper–Pearson bound). A check
fails (AssertionError whose message is the audit report, with the ``dpspec audit`` command that reproduces it)
when the verdict is ``violation`` or ``error``; otherwise it returns the result object.

``check_accountant(obj, **settings)``: ``obj`` is an ``Adapter`` or a callable ``(setting, deltas)`` returning a
``Claim``, a mapping ``{δ: ε}`` or ε (conformance/audit/adapters.py). Settings: ``setting`` (a name of the fixed
matrix, default ``PLUGIN_SETTING``, or a ``Setting``) or all of ``q``, ``sigma``, ``steps``, ``delta``; ``samples``
(default ``PLUGIN_SAMPLES``), ``seed`` (0), ``confidence`` (0.999), ``mc`` (True), ``timeout`` (seconds, default
``PLUGIN_TIMEOUT``), ``name``, ``is_bound``, ``conversion``. The defaults keep the work to a few seconds: the B9
setting of the matrix (q = 0.2, σ = 1, T = 10, δ = 1e-5) and the integer-order reference ε (``optimise_order``,
default False, as the audit's own verdict tests).

``check_mechanism(fn, d0, d1, claim, **settings)``: ``claim`` is ε or (ε, δ); settings ``delta``, ``family``,
``n_select``, ``n_estimate``, ``confidence`` (0.95), ``seed`` (0), as ``dpspec audit mechanism``.
"""
from __future__ import annotations

import json
from typing import Any, Callable

import pytest

PLUGIN_SETTING = "gdp_worst_b9"
PLUGIN_SAMPLES = 1000
PLUGIN_TIMEOUT = 120.0


class AuditFailure(AssertionError):
    """A dpspec check that failed; ``result`` is the audit result."""

    def __init__(self, message: str, result: Any):
        super().__init__(message)
        self.result = result


def _accountant_report(r) -> str:
    doc = r.to_json()
    lines = [f"dpspec accountant audit: {r.verdict.upper()} — {r.accountant} at {r.setting['name']} "
             f"(q={r.setting['q']:g}, σ={r.setting['sigma']:g}, T={r.setting['steps']}, δ={r.setting['delta']:g})",
             f"  reason:    {r.reason}"]
    if r.claimed:
        lines.append(f"  claimed:   ε = {r.claimed.get('epsilon')}")
    ref = r.reference or {}
    for key in ("eps_same_orders", "eps_rdp", "alpha", "how", "error", "eps_pld_lower", "eps_pld_upper",
                "pld_grid_step", "pld_error"):
        if key in ref:
            lines.append(f"  reference: {key} = {ref[key]}")
    if r.mc_interval:
        mc = r.mc_interval
        lines.append(f"  true δ(claimed ε) ∈ [{mc['lo']:.4g}, {mc['hi']:.4g}] (confidence {mc['confidence']}, "
                     f"{mc['method']})")
    if r.evidence.get("failed_checks"):
        lines.append(f"  failed checks: {', '.join(r.evidence['failed_checks'])}")
    lines.append(f"  reproduce: {r.evidence.get('command', '')}")
    lines.append("  json: " + json.dumps({k: doc[k] for k in ("verdict", "claimed", "reference", "mc_interval")},
                                         default=str, ensure_ascii=False)[:2000])
    return "\n".join(lines)


def _mechanism_report(r, name: str) -> str:
    return "\n".join([
        f"dpspec mechanism audit: {r.verdict.upper()} — {name}",
        f"  reason:  {r.reason}",
        f"  claim:   (ε, δ) = ({r.claim_eps:g}, {r.claim_delta:g}); ε lower bound {r.eps_lower_bound:.4g} "
        f"(confidence {r.confidence})",
        f"  attack:  {r.attack}",
        f"  counts:  {r.counts} of {r.n_estimate} estimation draws per dataset (selection {r.n_select}), "
        f"seed {r.seed}, family {r.family}"])


class Conformance:
    """The object behind the ``dpspec_conformance`` fixture."""

    def check_accountant(self, obj: Any, **settings: Any):
        from dpspec.conformance.audit import accountants, adapters
        from dpspec.conformance.audit.settings import Setting, get_setting

        opts = dict(settings)
        custom = {k: opts.pop(k) for k in ("q", "sigma", "steps", "delta") if k in opts}
        setting = opts.pop("setting", None)
        if custom:
            if setting is not None or len(custom) != 4:
                raise TypeError("give all of q, sigma, steps, delta (and no setting), or a setting")
            setting = Setting("custom", **custom)
        setting = get_setting(setting or PLUGIN_SETTING) if not isinstance(setting, Setting) else setting
        name = opts.pop("name", None) or getattr(obj, "name", None) or getattr(obj, "__qualname__", "accountant")
        if isinstance(obj, adapters.Adapter):
            ad = obj
        elif callable(obj):
            semantics = getattr(obj, "semantics", None)
            ad = adapters.Adapter(
                name, "own code", name, bool(opts.pop("is_bound", getattr(obj, "is_bound", True))),
                dict(semantics) if isinstance(semantics, dict) else {"declared": "by the caller's own code"},
                adapters._claim_of(name, obj), opts.pop("conversion", getattr(obj, "conversion", None)),
                version_text="own code")
        else:
            raise TypeError(f"{obj!r} is neither an Adapter nor a callable (setting, deltas) -> Claim | {{δ: ε}} | ε")
        optimise = opts.pop("optimise_order", False)
        kwargs = {"samples": opts.pop("samples", PLUGIN_SAMPLES), "seed": opts.pop("seed", 0),
                  "confidence": opts.pop("confidence", accountants.DEFAULT_CONFIDENCE),
                  "mc": opts.pop("mc", True), "timeout": opts.pop("timeout", PLUGIN_TIMEOUT)}
        if opts:
            raise TypeError(f"unknown settings: {', '.join(sorted(opts))}")
        previous = accountants.OPTIMISE_ORDER
        accountants.OPTIMISE_ORDER = bool(optimise)
        try:
            r = accountants.audit_accountant(ad.name, setting, adapter=ad, **kwargs)
        finally:
            accountants.OPTIMISE_ORDER = previous
        if r.verdict in ("violation", "error"):
            raise AuditFailure(_accountant_report(r), r)
        return r

    def check_mechanism(self, fn: Callable, d0: Any, d1: Any, claim: Any, **settings: Any):
        from dpspec.conformance.audit import mechanisms

        if isinstance(claim, (tuple, list)):
            if len(claim) != 2 or "delta" in settings:
                raise TypeError("claim is ε or (ε, δ) (and then no delta= setting)")
            eps, delta = claim
        else:
            eps, delta = claim, settings.pop("delta", 0.0)
        r = mechanisms.audit_mechanism(fn, d0, d1, float(eps), float(delta), **settings)
        if r.verdict == "violation":
            raise AuditFailure(_mechanism_report(r, getattr(fn, "__qualname__", repr(fn))), r)
        return r


@pytest.fixture
def dpspec_conformance() -> Conformance:
    """Checks of an accountant or a mechanism against dpspec (module docstring)."""
    return Conformance()
