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
    tight = audit(fake("pld-like", const(4.9842)))  # dp-accounting PLD at B9 (notes §1.6 B9: 4.98)
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
