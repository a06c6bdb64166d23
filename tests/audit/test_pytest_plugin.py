"""The pytest plugin (dpspec.conformance.pytest_plugin, entry point pytest11 ``dpspec``): a peer library's own test
suite, run in a child pytest that loads the plugin by its entry point, checks a deliberately wrong accountant
(fails, with a readable audit report) and a correct one (passes). Default plugin work: the B9 setting, 1000 Monte
Carlo samples, seed 0, confidence 0.999 (a few seconds)."""
from __future__ import annotations

pytest_plugins = ["pytester"]

PEER_TESTS = '''
import math
from dpspec.conformance.audit import reference as ref
from dpspec.conformance.audit.adapters import Claim

ORDERS = (2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 12.0, 16.0)


def rdp_accountant(scale):
    """A peer's RDP accountant: exact SGM RDP, BBGHS conversion; scale < 1 is a planted under-report."""
    def run(setting, deltas):
        rdp = {a: setting.steps * float(ref.log_a(int(a), setting.q, setting.sigma)) / (a - 1) for a in ORDERS}
        eps = {d: min((float(ref.epsilon(rdp[a], a, d, "bbghs")), a) for a in ORDERS) for d in deltas}
        e, order = eps[deltas[0]]
        return Claim(scale * e, order, rdp, {d: scale * v for d, (v, _) in eps.items()})
    run.conversion = "bbghs"
    return run


def gdp_clt(setting, deltas):
    """A peer's 'accountant' that uses the GDP central limit theorem as if it were a bound (3.5278 at B9)."""
    return {d: 3.5278 for d in deltas}


def test_correct_accountant(dpspec_conformance):
    r = dpspec_conformance.check_accountant(rdp_accountant(1.0), name="peer.rdp")
    assert r.verdict in ("consistent", "loose")


def test_wrong_accountant_under_reports(dpspec_conformance):
    dpspec_conformance.check_accountant(rdp_accountant(0.98), name="peer.rdp_bug")


def test_wrong_accountant_clt(dpspec_conformance):
    dpspec_conformance.check_accountant(gdp_clt, name="peer.gdp")
'''


def test_plugin_fails_a_wrong_accountant_and_passes_a_correct_one(pytester):
    pytester.makepyfile(test_peer=PEER_TESTS)
    # a child process with plugin autoloading on: the fixture can only come from the pytest11 entry point
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                                           "-W", "ignore::DeprecationWarning")
    result.assert_outcomes(passed=1, failed=2)
    out = result.stdout.str()
    assert "dpspec accountant audit: VIOLATION — peer.rdp_bug" in out and "unsound:" in out
    assert "dpspec accountant audit: VIOLATION — peer.gdp" in out and "true δ(claimed ε) ∈" in out
    assert "reproduce: dpspec audit accountant peer.gdp --setting gdp_worst_b9" in out


def test_plugin_mechanism_check(dpspec_conformance):
    import numpy as np
    import pytest

    def release(x, rng, size):
        return float(np.sum(x)) + rng.laplace(0.0, 0.5, size)  # scale halved: true ε = 2

    ok = dpspec_conformance.check_mechanism(release, [1.0] * 5, [1.0] * 4, claim=2.0, family="laplace",
                                            n_select=4000, n_estimate=20000)
    assert ok.verdict == "consistent"
    with pytest.raises(AssertionError, match="dpspec mechanism audit: VIOLATION"):
        dpspec_conformance.check_mechanism(release, [1.0] * 5, [1.0] * 4, claim=(1.0, 0.0), family="laplace",
                                           n_select=4000, n_estimate=20000)
