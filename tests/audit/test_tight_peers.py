"""Tight peers (PLD, PRV) against dpspec's certified PLD sandwich (issue 14, goal 4), and the peer bugs B5–B9 of
/work/shared/notes/peer-accountants.md §1.6 re-found with the installed versions.

dpspec's sandwich: ``dpspec.fast.Accountant(method="pld").sgm(q, σ, T)``: ``epsilon_interval(δ)`` = (lower, upper)
with lower ≤ true ε(δ) ≤ upper (both directions of add/remove, the max; docs/pld.md). A peer value
below the lower end under-reports (certified); a tight peer may exceed the upper end by its own declared error only:
Opacus' PRV reports ε̂(δ − δ/1000) + 0.01 (``PRVAccountant.get_epsilon`` defaults) with ε̂ within 0.01 of the truth
(Gopi, Lee & Wutschitz 2021), so up to 0.02 above ε(δ − δ/1000); dp-accounting's PLD is pessimistic at
value_discretization_interval 1e-4.

Test vectors, from the peers' own test suites as installed (site-packages):
* dp-accounting 0.6.0 ``pld/pld_privacy_accountant_test.py::test_poisson_subsampled_gaussian`` (and
  ``test_self_composed_subsampled_gaussian``): q = 0.2, σ = 0.5, T = 3, δ(ε = 1) = 0.15594 (their tolerance 1e-3).
* Opacus 1.6.0 ``tests/accountants_test.py``: σ = 1.5, q = 0.04, δ = 1e-5: PRV ε = 6.777395712150674 at
  T = int(90 // 0.04) = 2249 (notes B16: not 2250), RDP ε = 7.32911117143 at T = int(90 / 0.04) = 2250, GDP ε in
  (6.59, 6.60) at T = 2249.
* Opacus 1.6.0 ``tests/prv_accountant.py::msr_values``: Microsoft prv_accountant ε at δ = 1e-6 for
  (σ, q, T); the rows with T ≤ 1000 run by default, the rest (T = 2·10⁴, 5·10⁴) are ``slow``.
"""
from __future__ import annotations

import functools
import math

import pytest

from dpspec.conformance.audit import accountants as A
from dpspec.conformance.audit.settings import Setting, get_setting

pytestmark = pytest.mark.peers

PRV_EPS_ERROR, PRV_DELTA_REL = 0.01, 1e-3  # Opacus PRVAccountant.get_epsilon defaults (eps_error, delta_error/δ)
PRV_SLACK = 2 * PRV_EPS_ERROR  # its upper may exceed the truth at δ − delta_error by this much (module docstring)
DPA_VDI = 1e-4  # dp-accounting PLDAccountant default value_discretization_interval
TOL = 1e-9  # float slack on the comparisons (the sandwich is certified up to float64 rounding)


@pytest.fixture(autouse=True)
def _needs_dpspec_pld(monkeypatch):
    """dpspec's PLD accountant must be in the tree; the audit's RDP-derived reference ε (which decides nothing
    here) uses the quick integer-order search, as in test_audit_accountants.py."""
    pytest.importorskip("dpspec.fast.base.pld")
    monkeypatch.setattr(A, "OPTIMISE_ORDER", False)


@functools.lru_cache(maxsize=None)
def pld(q: float, sigma: float, steps: int):
    """dpspec's PLD accountant for T SGM steps (the audit's own constructor)."""
    return A._pld_accountant(q, sigma, steps)


def eps_interval(q, sigma, steps, delta):
    lo, hi = pld(q, sigma, steps).epsilon_interval(delta)
    assert 0 <= lo <= hi, (lo, hi)
    return lo, hi


def prv_contained(value, q, sigma, steps, delta, slack=PRV_SLACK, delta_rel=PRV_DELTA_REL):
    """A PRV upper value is sound and within its declared error: lower(δ) ≤ value ≤ upper(δ(1−rel)) + slack.
    Returns (ok, (lower, value, upper(δ(1−rel)), value − upper(δ(1−rel))))."""
    lo, _ = eps_interval(q, sigma, steps, delta)
    _, hi_shifted = eps_interval(q, sigma, steps, delta * (1 - delta_rel))
    return lo - TOL <= value <= hi_shifted + slack + TOL, (lo, value, hi_shifted, value - hi_shifted)


# ---------------------------------------------------------------------------------------------------------
# dp-accounting's own PLD test vector


def test_dp_accounting_pld_test_vector_against_the_sandwich():
    """q = 0.2, σ = 0.5, T = 3: dp-accounting's test pins δ(1) = 0.15594 with tolerance 1e-3. dpspec certifies
    δ(1) ∈ [0.1559311, 0.1559328] (measured), so the pinned value is sound (≥ the lower end) but not the true δ
    rounded to its 5 digits (that is 0.15593): it exceeds the upper end by ≈ 7e-6, inside their tolerance, on the
    safe side. The installed accountant itself (0.15593278) lies in the sandwich, and its ε(0.15594) in dpspec's
    ε-interval."""
    dpa = pytest.importorskip("dp_accounting")
    lo, hi = pld(0.2, 0.5, 3).delta_interval(1.0)
    print(f"dpspec δ(1) ∈ [{lo:.8f}, {hi:.8f}]; dp-accounting's test pins 0.15594 ± 1e-3")
    assert lo <= 0.15594 <= hi + 1e-3  # sound, and within their stated tolerance
    assert 0.15594 - hi > 5e-6  # ... but not the correctly rounded 5-digit value (explained above)
    theirs = dpa.pld.PLDAccountant()
    theirs.compose(dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.2, dpa.GaussianDpEvent(0.5)), 3))
    d_theirs = theirs.get_delta(1.0)
    print(f"dp-accounting {dpa.__version__ if hasattr(dpa, '__version__') else ''} δ(1) = {d_theirs:.8f}")
    assert lo - TOL <= d_theirs <= hi + TOL
    e_lo, e_hi = eps_interval(0.2, 0.5, 3, 0.15594)
    e_theirs = theirs.get_epsilon(0.15594)
    print(f"dpspec ε(0.15594) ∈ [{e_lo:.8f}, {e_hi:.8f}]; dp-accounting {e_theirs:.8f}")
    assert e_lo - TOL <= e_theirs <= e_hi + DPA_VDI


# ---------------------------------------------------------------------------------------------------------
# Opacus' own accountant test vectors


def test_opacus_prv_test_vector_is_inside_the_sandwich():
    """Opacus' PRV test: 6.777395712150674 at T = 2249 (σ = 1.5, q = 0.04, δ = 1e-5) is sound and within its
    declared error; the installed Opacus still returns it."""
    ok, where = prv_contained(6.777395712150674, 0.04, 1.5, 2249, 1e-5)
    print("Opacus PRV test vector: lower(δ), value, upper(δ(1 − 1e-3)), excess =", where)
    assert ok, where
    accountants = pytest.importorskip("opacus.accountants")
    acc = accountants.PRVAccountant()
    acc.history = [(1.5, 0.04, 2249)]
    assert acc.get_epsilon(delta=1e-5) == pytest.approx(6.777395712150674, abs=1e-6)


def test_opacus_rdp_and_gdp_test_vectors_against_the_sandwich():
    """Same test file: the RDP value 7.32911117143 (T = 2250) is a valid upper bound (≥ dpspec's lower ε) and
    looser than the tight ε (above dpspec's upper ε); the GDP test's range (6.59, 6.60) (T = 2249) lies entirely
    below dpspec's certified lower ε: the CLT value under-reports (B9), so Opacus' GDP test pins an unsound ε."""
    lo, hi = eps_interval(0.04, 1.5, 2250, 1e-5)
    print(f"T = 2250: dpspec ε ∈ [{lo:.6f}, {hi:.6f}]; Opacus RDP test 7.32911117143")
    assert lo <= 7.32911117143 and 7.32911117143 > hi
    lo, hi = eps_interval(0.04, 1.5, 2249, 1e-5)
    print(f"T = 2249: dpspec ε ∈ [{lo:.6f}, {hi:.6f}]; Opacus GDP test range (6.59, 6.60)")
    assert 6.60 < lo


MSR_VALUES = {  # opacus/tests/prv_accountant.py (Opacus 1.6.0), (σ, q, T): ε at δ = 1e-6
    (0.8, 0.001, 100): 0.270403364058018680360362395731,
    (1.5, 0.001, 100): 0.0393694193095203287535710501288,
    (2.0, 0.001, 100): 0.0291045369484074882560076247273,
    (3.0, 0.001, 100): 0.0215200934390882663016508757892,
    (0.8, 0.05, 100): 6.74105193941409996938318727189,
    (1.5, 0.05, 100): 1.95385313568420015961635272106,
    (2.0, 0.05, 100): 1.28363737962406521120328761754,
    (3.0, 0.05, 100): 0.767933789666825572517439013609,
    (0.8, 0.2, 100): 24.3336641779225644199868838768,
    (1.5, 0.2, 100): 8.49897785912163072907787864096,
    (2.0, 0.2, 100): 5.67205560882372950004537415225,
    (3.0, 0.2, 100): 3.38122051022184422208738396876,
    (0.8, 0.001, 1000): 0.477771266184522591657923840103,
    (1.5, 0.001, 1000): 0.0998206602308474855167474970585,
    (2.0, 0.001, 1000): 0.0712187825381152272985474382949,
    (3.0, 0.001, 1000): 0.0476159308713589302097801692071,
    (0.8, 0.05, 1000): 19.5258428053837356230815203162,
    (1.5, 0.05, 1000): 6.20996924657726712126759593957,
    (2.0, 0.05, 1000): 4.17279986668931890392286732094,
    (3.0, 0.05, 1000): 2.52757432605973830774814814504,
    (0.8, 0.001, 20000): 1.29600925757016161021795142005,
    (1.5, 0.001, 20000): 0.437005108654860807693154356457,
    (2.0, 0.001, 20000): 0.305837939762453436820521801565,
    (3.0, 0.001, 20000): 0.194031030686054706269061398416,
    (1.5, 0.05, 20000): 38.3066179140872336006395926233,
    (2.0, 0.05, 20000): 24.4217185703225858617315680021,
    (3.0, 0.05, 20000): 13.9611146992367061159256991232,
    (0.8, 0.001, 50000): 2.03451480771586634688219419331,
    (1.5, 0.001, 50000): 0.704218384555810095193351116905,
    (2.0, 0.001, 50000): 0.491354910211401318953505779064,
    (3.0, 0.001, 50000): 0.309694161156544023327796821832,
    (1.5, 0.05, 50000): 73.1901767238329625797632616013,
    (2.0, 0.05, 50000): 45.2369958613306906158868514467,
    (3.0, 0.05, 50000): 24.9420056431444763234139827546,
}


def _msr(key):
    sigma, q, steps = key
    ok, where = prv_contained(MSR_VALUES[key], q, sigma, steps, 1e-6)
    print(f"msr (σ, q, T) = {key}: lower(δ), value, upper(δ(1 − 1e-3)), excess = {where}")
    assert ok, (key, where)


@pytest.mark.parametrize("key", [k for k in MSR_VALUES if k[2] <= 1000])
def test_opacus_msr_values_inside_the_sandwich(key):
    _msr(key)


@pytest.mark.slow
@pytest.mark.parametrize("key", [k for k in MSR_VALUES if k[2] > 1000])
def test_opacus_msr_values_inside_the_sandwich_long(key):
    _msr(key)


# ---------------------------------------------------------------------------------------------------------
# The audit's judgement by the sandwich (real peers)


def _audit(name, setting):
    r = A.audit_accountant(name, setting, mc=False)
    print(f"{name} at {r.setting['name']}: {r.verdict} — {r.reason}")
    return r


def test_audit_judges_tight_peers_by_the_sandwich():
    """Opacus' PRV at its own test setting (T = 2249) and dp-accounting's PLD at B9 are consistent, decided by the
    sandwich without any Monte Carlo; Opacus' GDP at B9 is a certified violation (below the lower ε)."""
    pytest.importorskip("opacus")
    pytest.importorskip("dp_accounting")
    v3 = Setting("opacus_prv_test", q=0.04, sigma=1.5, steps=2249, delta=1e-5)
    prv = _audit("opacus.prv", v3)
    tight = prv.evidence["pld"]
    assert prv.verdict == "consistent" and tight["above_upper"] is False
    assert tight["lower"] <= prv.claimed["epsilon"] and 0 < tight["excess"] < 2 * PRV_EPS_ERROR, tight
    b9 = get_setting("gdp_worst_b9")
    dpa = _audit("dp_accounting.pld", b9)
    assert dpa.verdict == "consistent" and "within dpspec's certified" in dpa.reason
    gdp = _audit("opacus.gdp", b9)
    assert gdp.verdict == "violation" and "below dpspec's certified lower bound" in gdp.reason
    assert gdp.mc_interval is None  # certified without Monte Carlo


# ---------------------------------------------------------------------------------------------------------
# Peer bugs B5–B9 (notes §1.6) with the installed versions (opacus 1.6.0, dp-accounting 0.6.0, prv-accountant 0.2.0)


def test_b6_prv_accountant_still_fails_at_large_epsilon():
    """B6: prv_accountant 0.2.0 (the fix of PR #38 never released) still raises "Discrete mean differs" at
    q = 0.2, σ = 1, T = 1000, where dpspec certifies ε ≈ 61.2029 (B5's failure, in the unfixed copy)."""
    pytest.importorskip("prv_accountant")
    r = _audit("prv_accountant", get_setting("large_eps_b5"))
    assert r.verdict == "error" and "Discrete mean differs" in r.reason
    assert 61 < r.reference["eps_pld_lower"] <= r.reference["eps_pld_upper"] < 61.3


@pytest.mark.slow
def test_b5_opacus_prv_fixed_at_large_epsilon():
    """B5 (opacus#601/#604, fixed by PR #606) is gone in Opacus 1.6.0: its PRV answers at q = 0.2, σ = 1,
    T = 1000 (61.2151 measured), inside the sandwich up to its declared error (slow: about 10 s)."""
    pytest.importorskip("opacus")
    r = _audit("opacus.prv", get_setting("large_eps_b5"))
    assert r.verdict == "consistent" and r.evidence["pld"]["inside"] is False, r.reason  # above upper, < declared


def test_b7_tiny_delta():
    """B7 (prv_accountant#17: ε jumps 0.056 → 3.8 near δ = 1.1e-18) is gone as a wrong answer: both PRV
    accountants now refuse (a floating-point guard); dp-accounting's PLD answers ε = ∞ (valid, vacuous: loose)."""
    pytest.importorskip("opacus")
    pytest.importorskip("prv_accountant")
    pytest.importorskip("dp_accounting")
    s = get_setting("tiny_delta_b7")
    for name in ("opacus.prv", "prv_accountant"):
        r = _audit(name, s)
        assert r.verdict == "error" and "Floating point errors will dominate" in r.reason
    r = _audit("dp_accounting.pld", s)
    assert r.claimed["epsilon"] == math.inf and r.verdict == "loose"


def test_b8_negative_epsilon_and_gdp_bracket():
    """B8 is still there in Opacus 1.6.0: at δ = 0.5 its RDP and PRV accountants return a negative ε, and its GDP
    accountant raises a brentq bracket error at a tiny μ."""
    pytest.importorskip("opacus")
    for name in ("opacus.rdp", "opacus.prv"):
        r = _audit(name, get_setting("large_delta_b8"))
        assert r.verdict == "error" and "eps_nonnegative" in r.reason and r.claimed["epsilon"] < 0
    r = _audit("opacus.gdp", get_setting("gdp_tiny_mu_b8"))
    assert r.verdict == "error" and "must have different signs" in r.reason
