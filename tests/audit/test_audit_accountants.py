"""Accountant audits (dpspec.conformance.audit): every verdict path with stand-in accountants (no peer library
needed), the Monte Carlo truth against exact values, the property checks; and, marked ``peers``, the real peers.

Monte Carlo settings: seed 0 (or as stated), confidence 0.999, both directions. At the B9 setting of the notes
(q = 0.2, σ = 1, T = 10, δ = 1e-5) the true δ(3.53) ≈ 3.6e-4 (dp-accounting PLD), so 1000 tilted samples put the
lower confidence bound far above 1e-5 (measured ≈ 2.7e-4)."""
from __future__ import annotations

import math

import mpmath
import pytest
from scipy import integrate, stats

from dpspec.conformance.audit import accountants as A
from dpspec.conformance.audit import montecarlo as mc
from dpspec.conformance.audit import reference as ref
from dpspec.conformance.audit.adapters import Adapter, Claim
from dpspec.conformance.audit.settings import SETTINGS, Setting, get_setting

B9 = get_setting("gdp_worst_b9")  # notes §1.6 B9: GDP-CLT 3.53 vs tight 4.98 (PLD)
SEM = {"neighbouring": "add_remove", "direction": "test", "sampling": "poisson"}


@pytest.fixture(autouse=True)
def _integer_order_reference(monkeypatch):
    """Speed: the verdict logic does not depend on how the reference RDP-derived ε is optimised, so these tests
    use the integer-order search (reference column 'how' says so) instead of base.rdp_to_dp's α optimisation."""
    monkeypatch.setattr(A, "OPTIMISE_ORDER", False)


def fake(name, run, conversion=None, is_bound=True):
    return Adapter(name, "dpspec", f"stand-in {name}", is_bound, SEM, run, conversion)


def const(eps, rdp=None, order=None):
    return lambda s, deltas: Claim(eps, order, rdp, {d: eps for d in deltas})


def audit(adapter, setting=B9, samples=1000, mc_on=True):
    return A.audit_accountant(adapter.name, setting, samples=samples, seed=0, adapter=adapter, mc=mc_on)


# ---------------------------------------------------------------------------------------------------------
# Verdict paths


def _raise(s, deltas):
    raise RuntimeError("Cannot compute epsilon")


@pytest.mark.parametrize("run, needle", [
    (_raise, "raised RuntimeError"),
    (const(float("nan")), "eps_not_nan"),
    (const(-0.69), "eps_nonnegative"),
    (const(6.0, rdp={2.0: 1.0, 4.0: float("nan")}), "rdp_not_nan"),
])
def test_error_verdicts(run, needle):
    r = audit(fake("bad", run), mc_on=False)
    assert r.verdict == "error" and needle in r.reason
    doc = r.to_json()
    assert set(doc) >= {"library", "version", "accountant", "setting", "claimed", "reference", "mc_interval",
                        "verdict", "evidence"}


def test_violation_by_monte_carlo_gdp_value():
    r = audit(fake("gdp-like", const(3.5278), is_bound=False))  # Opacus GDP value at B9 (notes §1.6 B9)
    assert r.verdict == "violation" and not r.is_bound
    assert r.mc_interval["lo"] > B9.delta
    assert r.evidence["command"].startswith("dpspec audit accountant")


def test_consistent_and_loose_by_monte_carlo():
    # dp-accounting's PLD at B9 (0.6.0: 4.984213427). Rounded down to 4.9842 it is an under-report that dpspec's
    # PLD sandwich certifies (lower end 4.9842075): test_pld_sandwich_catches_a_rounded_down_tight_value.
    tight = audit(fake("pld-like", const(4.984213427)))
    assert tight.verdict == "consistent", tight.reason
    assert tight.mc_interval["lo"] <= B9.delta <= tight.mc_interval["hi"] * 1.5
    loose = audit(fake("generous", const(8.0)))
    assert loose.verdict == "loose" and loose.evidence["delta_slack"] > A.LOOSE_FACTOR


def test_violation_by_reference_rdp():
    """A stand-in RDP accountant that computes the SGM RDP with q/2 (planted bug) claims RDP values below the exact
    ones: a deterministic violation, whatever its ε."""
    s = get_setting("headline")
    orders = (2.0, 3.0, 4.0, 5.0)
    rdp = {a: s.steps * float(ref.log_a(int(a), s.q / 2, s.sigma)) / (a - 1) for a in orders}
    eps = min(float(ref.epsilon(rdp[a], a, s.delta, "bbghs")) for a in orders)
    r = audit(fake("half-q", const(eps, rdp, 4.0), "bbghs"), s, mc_on=False)
    assert r.verdict == "violation" and "below the exact value" in r.reason
    good = {a: s.steps * float(ref.log_a(int(a), s.q, s.sigma)) / (a - 1) for a in orders}
    eps_good = float(ref.epsilon(good[4.0], 4.0, s.delta, "bbghs"))
    ok = audit(fake("exact", const(eps_good, good, 4.0), "bbghs"), s, mc_on=False)
    assert ok.verdict == "consistent" and abs(ok.reference["eps_rel_diff"]) < 1e-9
    assert ok.reference["eps_same_orders"] == pytest.approx(6.71940211794, rel=1e-9)  # notes V12, ε(α=4)


def test_property_checks_catch_the_bug_shapes():
    s = get_setting("headline")
    claim = Claim(1.0, 3.0, {2.0: 1.0, 3.0: -0.5, 4.0: 0.9, 5.0: 0.95}, {1e-5: 1.0, 1e-6: 0.9})
    failed = {c["name"] for c in A.property_checks(claim, s) if c["ok"] is False}
    assert failed == {"rdp_nonnegative", "rdp_nondecreasing_in_alpha", "cgf_convex", "eps_nonincreasing_in_delta"}
    fine = Claim(1.0, 3.0, {2.0: 1.0, 3.0: 1.5, 4.0: 2.0}, {1e-5: 1.0, 1e-6: 1.2})
    assert all(c["ok"] is not False for c in A.property_checks(fine, s))


# ---------------------------------------------------------------------------------------------------------
# Monte Carlo truth and reference pieces


def _exact_profile(q, sigma, eps, direction):
    mix = lambda o: (1 - q) * stats.norm.pdf(o, 0, sigma) + q * stats.norm.pdf(o, 1, sigma)
    n0 = lambda o: stats.norm.pdf(o, 0, sigma)
    p, qq = (mix, n0) if direction == "remove" else (n0, mix)
    return integrate.quad(lambda o: max(p(o) - math.exp(eps) * qq(o), 0.0), -30, 30, points=[0, 1],
                          limit=400, epsabs=1e-13)[0]


@pytest.mark.parametrize("eps", [0.3, 1.0])
def test_monte_carlo_interval_contains_exact_single_step(eps):
    """T = 1, q = 0.2, σ = 0.5: the exact δ of each direction by quadrature lies in its 99.9 % interval."""
    truth = mc.sgm_truth(0.2, 0.5, 1, eps_ref=eps, samples=4000, seed=3)
    iv = truth.delta_interval(eps, 0.999)
    for d in ("remove", "add"):
        exact = _exact_profile(0.2, 0.5, eps, d)
        lo, hi = iv["per_direction"][d]["lo"], iv["per_direction"][d]["hi"]
        assert lo <= exact <= hi, (d, lo, exact, hi)
        assert hi - lo < 0.5 * exact + 1e-3  # informative, not vacuous


def test_tilt_normalisers_match_the_reference():
    assert float(ref.log_a(4, 0.01, 1.0)) / 3 == pytest.approx(3.63154048910757e-4, rel=1e-12)  # notes V12
    assert sum(ref.tilt_weights(6, 0.1, 2.0)) == pytest.approx(1.0)
    # Z_λ for λ = 1: E_N0[1/(1 − q + q e^u)] by scipy quadrature
    q, s = 0.2, 1.0
    f = lambda o: stats.norm.pdf(o, 0, s) / (1 - q + q * math.exp((2 * o - 1) / (2 * s * s)))
    assert float(ref.log_z_add(1.0, q, s)) == pytest.approx(math.log(integrate.quad(f, -40, 40)[0]), rel=1e-9)


def test_reference_matches_catalogue_sgm_at_integer_orders():
    # max over directions = remove at integer orders (MTZ19 Thm 5); the tilt's log-terms sum to A_α
    from dpspec.reference.base.sgm import sgm_binomial_log_terms

    for a in (2, 4, 7):
        assert float(ref.rdp(float(a), 0.01, 1.0)) == pytest.approx(float(ref.log_a(a, 0.01, 1.0)) / (a - 1),
                                                                     rel=1e-12)
        log_sum = float(mpmath.log(mpmath.fsum(mpmath.exp(t) for t in sgm_binomial_log_terms(a, 0.01, 1.0))))
        assert log_sum == pytest.approx(float(ref.log_a(a, 0.01, 1.0)), rel=1e-12)


def test_settings_matrix():
    names = [s.name for s in SETTINGS]
    assert "headline" in names and len(set(names)) == len(names)
    h = get_setting("headline")
    assert (h.q, h.sigma, h.steps, h.delta) == (0.01, 1.0, 10_000, 1e-5)  # notes §1.1
    with pytest.raises(ValueError):
        Setting("bad", q=0.0, sigma=1, steps=1, delta=1e-5)


# ---------------------------------------------------------------------------------------------------------
# Real peers (optional)


@pytest.mark.peers
def test_peers_known_failures_show_up():
    pytest.importorskip("opacus")
    pytest.importorskip("dp_accounting")
    b1 = A.audit_accountant("opacus.rdp", "frac_orders_b1", mc=False)  # notes B1: negative RDP
    assert b1.verdict == "error" and "rdp_nonnegative" in b1.evidence["failed_checks"]
    b2 = A.audit_accountant("opacus.rdp", "large_order_b2", mc=False)  # notes B2: NaN at α = 1100
    assert b2.verdict == "error" and "rdp_not_nan" in b2.reason
    b8 = A.audit_accountant("opacus.prv", "large_delta_b8", mc=False)  # notes B8: negative ε
    assert b8.verdict == "error" and "eps_nonnegative" in b8.reason
    rdp = A.audit_accountant("dp_accounting.rdp", "headline", mc=False)  # agrees with the reference at α = 4.1
    assert rdp.reference["alpha"] == 4.1 and abs(rdp.reference["eps_rel_diff"]) < 1e-5


@pytest.mark.peers
def test_peer_gdp_violation_at_b9():
    pytest.importorskip("opacus")
    r = A.audit_accountant("opacus.gdp", "gdp_worst_b9", samples=1000)
    assert r.verdict == "violation" and r.version.startswith("1.")


def test_missing_library_is_an_error_row():
    ad = Adapter("ghost", "no-such-distribution-dpspec", "ghost", True, SEM, const(1.0))
    r = A.audit_accountant("ghost", B9, adapter=ad, mc=False)
    assert r.verdict == "error" and "not installed" in r.reason and r.version == "not installed"


# ---------------------------------------------------------------------------------------------------------
# Issue 12: the reference decides before the Monte Carlo; Holm across the matrix


def _exact_rdp_accountant(scale=1.0, setting=B9, orders=(2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0, 16.0)):
    """An RDP accountant with the exact SGM RDP (base.sgm_rdp, via ref.log_a) and the BBGHS conversion at its best
    order; ``scale`` multiplies the ε it reports (0.98: a conversion that under-reports by 2 %)."""
    s = setting
    rdp = {a: s.steps * float(ref.log_a(int(a), s.q, s.sigma)) / (a - 1) for a in orders}

    def run(setting, deltas):
        eps = {d: min((float(ref.epsilon(rdp[a], a, d, "bbghs")), a) for a in orders) for d in deltas}
        e, order = eps[deltas[0]]
        return Claim(scale * e, order, rdp, {d: scale * v for d, (v, _) in eps.items()})

    return fake(f"exact-rdp×{scale}", run, "bbghs")


def test_rdp_accountant_under_reporting_by_2_percent_is_unsound_whatever_monte_carlo_says():
    """Issue 12: with a Monte Carlo truth the reference ε was ignored, so 0.98·ε of a correct RDP accountant was
    labelled loose (valid). The Monte Carlo interval at 0.98·ε is still compatible with the claim here (RDP is
    loose at B9: tight ε ≈ 4.98, notes §1.6 B9), so only the reference can catch it."""
    ok = audit(_exact_rdp_accountant(1.0))
    assert ok.verdict in ("consistent", "loose") and "unsound" not in ok.evidence, ok.reason
    bad = audit(_exact_rdp_accountant(0.98))
    assert bad.mc_interval is not None and bad.mc_interval["lo"] <= B9.delta  # MC alone: no violation
    assert bad.verdict == "violation" and bad.reason.startswith("unsound:"), bad.reason
    assert bad.evidence["unsound"]["rel_diff"] == pytest.approx(-0.02, rel=1e-6)


def _row(name, p, lo=2e-5, hi=3e-5, delta=1e-5):
    ev = {"mc_test": {"pvalue": p, "level": 0.001, "cells": 1, "correction": "none", "rejected": True}} \
        if p is not None else {}
    return A.AuditResult("lib", "1", name, {"name": "s", "delta": delta}, {"epsilon": 1.0}, None,
                         {"lo": lo, "hi": hi}, "violation" if p is not None else "consistent", ev, reason="x")


def test_holm_across_matrix_cells():
    """Holm (1979) at level 0.01 over m = 4 tested cells: thresholds 0.0025, 0.00333, 0.005, 0.01; p = 0.001
    and 0.003 are rejected, 0.006 is not (0.006 > 0.005), and the step-down stops there."""
    rows = [_row("a", 0.003), _row("b", 0.001), _row("c", 0.006), _row("d", None, lo=0, hi=5e-6)]
    out = A.holm(rows, 0.01)
    assert [r.verdict for r in out] == ["violation", "violation", "consistent", "consistent"]
    assert "Holm across 4" in out[2].reason and out[2].evidence["mc_test"]["rejected"] is False
    assert all(r.evidence["mc_test"]["cells"] == 4 and r.evidence["mc_test"]["correction"] == "Holm" for r in out)


def test_violation_pvalue_agrees_with_the_interval():
    """The cell p-value is the test behind 'lower bound > claimed δ': p ≤ 1 − c exactly when lo(c) > δ."""
    truth = mc.sgm_truth(B9.q, B9.sigma, B9.steps, eps_ref=4.5, samples=1000, seed=0)
    for eps in (3.5278, 4.4, 4.6, 4.9842):  # GDP value at B9 (a violation) ... PLD value (consistent)
        p = truth.violation_pvalue(eps, B9.delta)
        lo = lambda c: truth.delta_interval(eps, c)["lo"]  # noqa: E731
        assert (p <= 1e-3) == (lo(0.999) > B9.delta), (eps, p)
        if 1e-12 < p < 0.5:  # the bisection's end is rejected, a point 5 % below it is not
            assert lo(1 - p) > B9.delta >= lo(1 - 0.95 * p), (eps, p)


# ---------------------------------------------------------------------------------------------------------
# Issue 14: dpspec's PLD sandwich as the certified two-sided reference


def tight_fake(name, run, eps_error=0.01):
    """A stand-in tight accountant declaring an additive ε error (as PRV's eps_error)."""
    return Adapter(name, "dpspec", f"stand-in {name}", True, SEM, run,
                   declared_error={"eps": eps_error, "delta_rel": 0.0, "what": f"stand-in ε error {eps_error:g}"})


@pytest.fixture
def b9_sandwich():
    pytest.importorskip("dpspec.fast.base.pld")
    ref = A.pld_sandwich(B9)
    assert "eps_pld_lower" in ref, ref
    return ref["eps_pld_lower"], ref["eps_pld_upper"]


def test_pld_sandwich_catches_a_rounded_down_tight_value(b9_sandwich):
    """B9: the tight ε is 4.98421 (dp-accounting PLD 4.984213, PRV estimate 4.984214). 4.9842, 1.5e-6 relative
    under the certified lower end, is a violation without Monte Carlo; so is the GDP-CLT value 3.5278 of any
    accountant (here one that declares itself a bound)."""
    lo, hi = b9_sandwich
    assert 4.9842 < lo <= 4.984213427 <= hi and hi - lo < 1e-4
    for eps in (4.9842, 3.5278):
        r = audit(fake("under", const(eps)), mc_on=False)
        assert r.verdict == "violation" and "below dpspec's certified lower bound" in r.reason, r.reason
        assert r.evidence["unsound"]["source"] == "dpspec PLD" and r.reference["eps_pld_lower"] == lo


def test_pld_sandwich_judges_tight_accountants_loose_or_consistent(b9_sandwich):
    """A tight accountant is consistent up to its declared error above the certified upper end, loose beyond it
    (ε = ∞ too); an RDP-like accountant (no declared error) above the upper end keeps the old verdict path."""
    lo, hi = b9_sandwich
    inside = audit(tight_fake("tight", const(hi + 0.005)), mc_on=False)
    assert inside.verdict == "consistent" and "within dpspec's certified" in inside.reason, inside.reason
    assert inside.evidence["pld"]["above_upper"] is False and inside.evidence["pld"]["inside"] is False
    loose = audit(tight_fake("tight-loose", const(hi + 0.02)), mc_on=False)
    assert loose.verdict == "loose" and loose.evidence["pld"]["excess"] == pytest.approx(0.02, rel=1e-9)
    vacuous = audit(tight_fake("tight-inf", const(math.inf)), mc_on=False)
    assert vacuous.verdict == "loose" and "vacuous" in vacuous.reason
    other = audit(fake("rdp-like", const(hi + 0.02)), mc_on=False)
    assert "above_upper" not in other.evidence["pld"] and "dpspec's certified" not in other.reason


def test_audit_runs_without_the_pld_sandwich(monkeypatch):
    """The sandwich missing (not in the tree, or refused) or switched off: the row says why and the old
    verdict paths decide (the GDP value at B9 is still a Monte Carlo violation)."""
    def missing(q, sigma, steps):
        raise ImportError("no PLD accountant in this tree")

    monkeypatch.setattr(A, "_pld_accountant", missing)
    A._pld_interval.cache_clear()
    try:
        r = audit(fake("gdp-like", const(3.5278), is_bound=False))
        assert r.verdict == "violation" and "pld" not in r.evidence and r.reason.startswith("true δ")
        assert r.reference["pld_error"] == "ImportError: no PLD accountant in this tree"
        monkeypatch.setattr(A, "PLD_REFERENCE", False)
        r = audit(fake("gdp-like", const(3.5278), is_bound=False), mc_on=False)
        assert r.reference["pld_skipped"] and r.verdict == "consistent"  # nothing left to catch it without MC
    finally:
        A._pld_interval.cache_clear()


def test_dp_accounting_kl_fallback_is_part_of_its_conversion():
    """dp-accounting's RDP conversion returns ε = 0 where δ² + expm1(−ρ(α)) > 0 (its KL fallback, valid). At
    q = 0.01, σ = 1, T = 10, δ = 0.5 an accountant with the exact RDP reporting that 0 is consistent under the
    ``bbghs_kl`` conversion (dpspec's PLD sandwich certifies ε = 0 there); judged as plain BBGHS (CKS20 Prop. 12
    alone, ≈ 3.58 at α = 1.1, the order dp-accounting reports there: the first of its grid) the same claim was a
    false 'unsound'."""
    s = get_setting("large_delta_b8")
    orders = (1.1, 2.0, 4.0)
    rdp = {a: s.steps * float(ref.rdp(a, s.q, s.sigma)) for a in orders}
    assert s.delta ** 2 + math.expm1(-rdp[1.1]) > 0  # the fallback applies at α = 1.1
    zero = const(0.0, rdp, 1.1)
    ok = audit(fake("dpa-like", zero, A.BBGHS_KL), s, mc_on=False)
    assert ok.verdict == "consistent" and ok.reference["eps_same_orders"] == 0, ok.reason
    plain = audit(fake("dpa-as-bbghs", zero, "bbghs"), s, mc_on=False)
    assert plain.verdict == "violation" and plain.reference["eps_same_orders"] > 3


class _StubPLD:
    """A stand-in for dpspec's PLD accountant returning a fixed interval, warning once per call."""

    grid_step = 1e-3

    def __init__(self, interval):
        self.interval = interval

    def epsilon_interval(self, delta):
        import warnings

        warnings.warn("stub: interval wider than the target", RuntimeWarning)
        return self.interval


def test_pld_sandwich_warnings_go_into_the_row_and_a_broken_one_decides_nothing(monkeypatch):
    monkeypatch.setattr(A, "_pld_accountant", lambda q, sigma, steps: _StubPLD((4.0, 6.0)))
    A._pld_interval.cache_clear()
    try:
        r = audit(fake("stub", const(3.9)), mc_on=False)
        assert r.reference["pld_warnings"] == ["stub: interval wider than the target"]
        assert r.verdict == "violation" and "ε ≥ 4" in r.reason
        monkeypatch.setattr(A, "_pld_accountant", lambda q, sigma, steps: _StubPLD((6.0, 4.0)))  # lower > upper
        A._pld_interval.cache_clear()
        r = audit(fake("stub", const(3.9)), mc_on=False)
        assert "not an interval" in r.reference["pld_error"] and "pld" not in r.evidence
    finally:
        A._pld_interval.cache_clear()
