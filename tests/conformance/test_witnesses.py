"""Witness pairs (issue 12): exact moments by an independent route, samplers checked against them, tilt families
declared in the registrations.

* Every registered witness with a ``log_moment`` computes it without calling any reference statement evaluator
  (test_exact_moments_call_no_reference_evaluator patches every ``@self_checked`` evaluator of dpspec.reference to
  raise), and it agrees with the statements that name the witness at their example points and at the runner's
  orders (the conformance runner's own exact check, conformance.checks.rdp_exact_check); a bug planted in a
  reference evaluator is then caught by that check (test_planted_reference_bug_is_caught).
* The routes inside each witness agree with each other (binomial sums and quadrature at integer orders), the
  closed forms with quadrature of the pairs' densities written here from their definitions, and the mpmath
  densities with the numpy log_p/log_q the samplers are checked with.
* Samplers: conformance.sampling.check_sampler (normal approximation, z = 5, two-sided 5.7e-7 per check; fixed
  seeds; n stated per test) compares E_P[e^L] (α = 2, exact variance from log_moment(3)) and E_P[L] with the exact
  values; a sampler whose σ (or b) is 10 % off is caught.
"""
from __future__ import annotations

import dataclasses
import sys

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.conformance import runner, strategies, tilting
from dpspec.conformance.checks import rdp_exact_check
from dpspec.conformance.sampling import check_sampler, split_steps
from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError

catalogue.load_all()
DPS = 30  # the conformance runner's precision (conformance.runner.Settings.dps)
ALPHAS = (2.0, 4.0, 16.0, 64.0)  # the runner's orders (Settings.alphas, --quick)
WITH_MOMENT = [w.id for w in catalogue.witnesses() if w.log_moment is not None]


def example(witness):
    return {p.name: strategies.example_value(p) for p in witness.params}


def rdp_uses():
    """(statement, witness use) for every RDP statement whose witness has an exact moment."""
    out = []
    for st in catalogue.statements():
        if st.value.returns != "rdp_eps":
            continue
        for use in st.witnesses:
            if catalogue.get_witness(use.witness).log_moment is not None:
                out.append((st.id, use.witness))
    return out


def exact_checks(statement_id, witness_id, alphas=ALPHAS):
    """The runner's exact checks of a statement against one witness at its example point and the runner's orders
    (points outside the statement's conditions or axis domain skipped, as the runner does)."""
    st = catalogue.get(statement_id)
    use = next(u for u in st.witnesses if u.witness == witness_id)
    pair = catalogue.get_witness(witness_id)
    point = {p.name: strategies.example_value(p) for p in st.params if strategies.example_value(p) is not None}
    axis = st.value.axis
    domain = next(p.domain for p in st.params if p.name == axis)
    side = st.claim if pair.dominating else "upper"
    checks = []
    for a in sorted({float(point[axis]), *(x for x in alphas if domain.contains(x))}):
        p = {**point, axis: a}
        try:
            value = st.evaluate(dps=DPS, **p).value
        except ConditionError:
            continue
        own, steps = split_steps(pair, use.witness_params(p))
        if a == 1:  # a KL claim (α = 1): the runner's exact KL check, d/dα of the moment at 1
            checks.append(runner._kl_exact_check(pair.log_moment, own, value, steps, {"alpha": a}, side, {},
                                                 runner.QUICK))
            continue
        with mpmath.workdps(DPS):
            lm = pair.log_moment(a, **own)
        checks.append(rdp_exact_check(lm, a, value, steps, {"alpha": a}, side, {}))
    return checks


# ---------------------------------------------------------------------------------------------------------
# Independent route: no reference evaluator is called


def test_every_witness_with_a_moment_is_covered():
    assert {"base.gaussian", "base.laplace", "base.sgm", "ptr.thm4_3.case1", "ptr.thm4_3.case2",
            "ptr.thm4_4.case1_fwd", "ptr.thm4_4.case1_rev", "ptr.thm4_4.case2_fwd",
            "ptr.thm4_4.case2_rev"} <= set(WITH_MOMENT)


@pytest.mark.parametrize("wid", WITH_MOMENT)
def test_exact_moments_call_no_reference_evaluator(wid, monkeypatch):
    """Every @self_checked evaluator bound in any dpspec.reference module raises: the moments still evaluate (at
    an integer order and a fractional one, so every route runs)."""
    def refuse(name):
        def raiser(*args, **kwargs):
            raise AssertionError(f"a witness moment called the reference evaluator {name}")
        return raiser

    for modname, module in list(sys.modules.items()):
        if not modname.startswith("dpspec.reference") or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if callable(value) and hasattr(value, "__wrapped__") and getattr(value, "__module__", "").startswith(
                    "dpspec.reference"):
                monkeypatch.setattr(module, attr, refuse(f"{value.__module__}.{attr}"))
    w = catalogue.get_witness(wid)
    with mpmath.workdps(20):
        for a in (mpf(3), mpf("2.5")):
            assert mpmath.isfinite(w.log_moment(a, **example(w)))


@pytest.mark.parametrize("statement_id, witness_id", rdp_uses())
def test_exact_moment_agrees_with_the_statement(statement_id, witness_id):
    """The runner's exact check passes at the example point and the runner's orders: exact claims equal the
    witness's D_α to 1e-9 relative, upper claims dominate it, lower claims stay below it."""
    checks = exact_checks(statement_id, witness_id)
    assert checks, "no point was compared"
    assert all(c.ok for c in checks), [c.message for c in checks if not c.ok]


def test_thm4_3_and_zw19_lower_equal_the_exact_pair_moments():
    """Theorem 4.3 is tight (notes §3.3): ε = max of the two pairs' D_α; ZW19's tight formula with ε_PTR equals the
    Case-2 per-subset moment at integer α where Case 2 dominates (erratum E7's proviso)."""
    p = dict(sigma1=8, sigma2=4, b=1, delta0="1e-8")
    with mpmath.workdps(DPS):
        for a in (2, 3, 7):
            d = [catalogue.get_witness(f"ptr.thm4_3.case{c}").log_moment(a, **p) / (a - 1) for c in (1, 2)]
            ref = catalogue.get("ptr.thm4_3").evaluate(dps=DPS, alpha=a, **p).value
            assert abs(max(d) - ref) <= abs(ref) * mpf(10) ** -25
            lower = catalogue.get("ptr.zw19_lower").evaluate(dps=DPS, alpha=a, q="0.01", **p).value
            exact = catalogue.get_witness("ptr.thm4_4.case2_fwd").log_moment(a, q="0.01", **p) / (a - 1)
            assert abs(lower - exact) <= abs(exact) * mpf(10) ** -25


@pytest.mark.parametrize("statement_id, witness_id, module, attr, factor", [
    ("base.sgm_rdp", "base.sgm", "dpspec.reference.base.sgm", "_eps_remove", mpf("1.01")),
    ("base.laplace_rdp", "base.laplace", "dpspec.reference.base.laplace", "_exp_excess", mpf("1.01")),
    ("ptr.thm4_3", "ptr.thm4_3.case2", "dpspec.reference.base.laplace", "_exp_excess", mpf("0.99")),
])
def test_planted_reference_bug_is_caught(statement_id, witness_id, module, attr, factor, monkeypatch):
    """A reference evaluator off by 1 % fails the runner's exact check. Before issue 12 the witness moments of
    base.sgm, base.laplace and ptr.thm4_3.case2 went through these very functions, so the check compared the wrong
    reference with itself and passed."""
    mod = sys.modules[module]
    original = getattr(mod, attr)
    monkeypatch.setattr(mod, attr, lambda *a, **k: original(*a, **k) * factor)
    checks = exact_checks(statement_id, witness_id, alphas=(2.0, 4.0))
    assert checks and not any(c.ok for c in checks), [c.message for c in checks]


# ---------------------------------------------------------------------------------------------------------
# The routes against each other and against the densities


def _log_quad_of_densities(log_p, log_q, alpha, points, scale):
    from dpspec.reference.base.sgm import witness_log_quad

    return witness_log_quad(lambda o: alpha * log_p(o) + (1 - alpha) * log_q(o), points, "test", scale)


def test_gaussian_closed_form_against_quadrature():
    w = catalogue.get_witness("base.gaussian")
    with mpmath.workdps(40):
        for a, s in ((mpf(2), mpf(1)), (mpf("7.5"), mpf("0.7")), (mpf("-0.5"), mpf(3)), (mpf("0.3"), mpf(2))):
            lp = lambda o: -((o - 1) / s) ** 2 / 2
            lq = lambda o: -(o / s) ** 2 / 2
            ref = _log_quad_of_densities(lp, lq, a, [a - 30 * s, a, a + 30 * s], s) - mpmath.log(s * mpmath.sqrt(2 * mpmath.pi))
            assert abs(w.log_moment(a, sigma=s) - ref) <= mpf(10) ** -30 * max(1, abs(ref))


def test_laplace_closed_form_against_quadrature_and_mironov():
    """Direct piecewise integration (the witness) against quadrature of Lap(1, b)^α Lap(0, b)^{1−α} and against
    Mironov 2017, Prop. 6 as printed; at b = 1e300 the value α(α−1)/(2b²)·(1 + O(1/b)) keeps its digits."""
    w = catalogue.get_witness("base.laplace")
    with mpmath.workdps(40):
        for a, b in ((mpf(2), mpf(1)), (mpf("5.5"), mpf("0.3")), (mpf("0.25"), mpf(2)), (mpf(-2), mpf(1))):
            lp = lambda o: -abs(o - 1) / b - mpmath.log(2 * b)
            lq = lambda o: -abs(o) / b - mpmath.log(2 * b)
            quad = _log_quad_of_densities(lp, lq, a, [-150 * b, 0, 1, 1 + 150 * b], b)  # tails e^{−150}
            value = w.log_moment(a, b=b)
            assert abs(value - quad) <= mpf(10) ** -30 * max(1, abs(quad))
            if a > 1:
                printed = mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) / b) + (a - 1) / (2 * a - 1) * mpmath.exp(-a / b))
                assert abs(value - printed) <= mpf(10) ** -30 * abs(printed)
        big = w.log_moment(mpf("1.5"), b=mpf("1e300"))
        assert big > 0 and abs(big / (mpf("0.375") * mpf(10) ** -600) - 1) < mpf(10) ** -250
        assert w.log_moment(1, b=3) == 0


def test_sgm_binomial_and_quadrature_routes_agree():
    from dpspec.reference.base.sgm import sgm_witness_log_moment_binomial, sgm_witness_log_moment_quad

    with mpmath.workdps(DPS):
        for a, q, s in ((2, "0.01", 1), (16, "0.01", 1), (64, "0.1", "0.8"), (3, 1, 1)):
            binom = sgm_witness_log_moment_binomial(a, q, s)
            quad = sgm_witness_log_moment_quad(a, q, s, "remove")
            assert abs(binom - quad) <= abs(binom) * mpf(10) ** -(DPS - 5)
        # q = 1e-40: M − 1 ≈ q²(e − 1) = 1.7e-80 is far below the working precision; the a-priori guard digits
        # keep it (it rounded to M = 1, log M = 0, before them)
        q = mpf("1e-40")
        expected = mpmath.log1p(q**2 * (mpmath.e - 1))  # E_Q[(1 − q + qL)²] = 1 + q²(E_Q[L²] − 1), E_Q[L²] = e
        for value in (sgm_witness_log_moment_binomial(2, q, 1), sgm_witness_log_moment_quad(2, q, 1, "remove")):
            assert abs(value / expected - 1) < mpf(10) ** -30


@pytest.mark.parametrize("case", [1, 2])
def test_ptr_subsampled_binomial_and_quadrature_routes_agree(case):
    from dpspec.reference.ptr import witnesses as W

    with mpmath.workdps(DPS):
        law0, law1, common = W._mp_laws(case, 8, 4, 1, mpf("1e-3"))
        q = mpf("0.05")
        for n in (2, 5):
            binom = W._sub_log_moment_binomial(n, q, law0, law1, common)
            quad = W._sub_log_moment_quad(mpf(n), q, law0, law1, common)
            assert abs(binom - quad) <= abs(binom) * mpf(10) ** -(DPS - 5)


def test_case2_rev_where_the_old_route_failed():
    """The former ₂F₁-in-quadrature route raised PrecisionError here (q = 0.2, σ1 = 3, b = 0.7, α = 17); the
    log-ratio-density quadrature gives the same value at 30 and at 50 digits, below the bound ln 1/(1−q)^{α−1}
    (μ0/μ ≤ 1/(1−q))."""
    w = catalogue.get_witness("ptr.thm4_4.case2_rev")
    p = dict(q="0.2", sigma1=3, sigma2=2, b="0.7", delta0="0.01")
    values = []
    for dps in (30, 50):
        with mpmath.workdps(dps):
            values.append(w.log_moment(17, **p))
    with mpmath.workdps(60):
        assert abs(values[0] - values[1]) <= abs(values[1]) * mpf(10) ** -28
        assert 0 < values[1] < -16 * mpmath.log1p(-mpf("0.2"))


def test_sgm_mpmath_densities_are_the_sampled_pair():
    from dpspec.reference.base import sgm

    rng = np.random.default_rng(0)
    for direction in ("remove", "add"):
        o = sgm._sgm_sample(rng, 50, 0.1, 0.8, direction)
        lp, lq = sgm._sgm_witness_densities(mpf("0.1"), mpf("0.8"), direction)
        np.testing.assert_allclose([float(lp(mpf(x))) for x in o], sgm._sgm_log_p(o, 0.1, 0.8, direction), rtol=1e-12)
        np.testing.assert_allclose([float(lq(mpf(x))) for x in o], sgm._sgm_log_q(o, 0.1, 0.8, direction), rtol=1e-12)


@pytest.mark.parametrize("case", [1, 2])
def test_ptr_mpmath_laws_are_the_sampled_laws(case):
    """The exact moments read the laws from _mp_laws; the samplers and log_p/log_q from _laws: the same laws
    (δ0 = 0.05 so that both branches are drawn)."""
    from dpspec.reference.ptr import witnesses as W

    params = (2.0, 1.0, 1.0, 0.05)
    rng = np.random.default_rng(1)
    for np_law, mp_law in zip(W._laws(case, *params)[:2], W._mp_laws(case, *params)[:2]):
        o = np_law.sample(rng, 200)
        assert (o[:, 0] > np_law.thr).any() and (o[:, 0] <= np_law.thr).any()
        common = W._mp_laws(case, *params)[2]
        mp_values = [float(W.mp_law_log_pdf(mp_law, common, mpf(s), mpf(t))) for s, t in o]
        np.testing.assert_allclose(mp_values, np_law.log_pdf(o), rtol=1e-12)


@pytest.mark.parametrize("wid", ["base.gaussian", "base.laplace", "base.sgm", "ptr.thm4_3.case1"])
def test_moment_refuses_bad_orders_and_parameters(wid):
    w = catalogue.get_witness(wid)
    p = example(w)
    for bad in (float("nan"), float("inf")):
        with pytest.raises(DomainError, match="alpha="):
            w.log_moment(bad, **p)
    name = w.params[0].name
    with pytest.raises(DomainError, match=f"{name}="):
        w.log_moment(2, **{**p, name: -1})


# Seed 003 ch. 4's dominating pairs put Q-mass at −∞, where P has none (Lemma C.4.6): E_Q[(p/q)^0] = Q(p > 0) < 1.
Q_ATOM_PAIRS = ("objpert.c4_6_pair", "objpert.c4_3_pair", "objpert.c4_7_pair", "objpert.alg7_pair")
# Exact 1-D objective perturbations whose densities are integrated by quadrature (reference/objpert/
# witnesses_exact.py): their moments carry the quadrature's error, not an exact 0.
QUADRATURE_PAIRS = ("objpert.logcosh_add", "objpert.logcosh_remove")


def test_moments_at_orders_zero_and_one_are_exactly_zero():
    """E_Q[1] = E_Q[p/q] = 1 for these mutually absolutely continuous pairs: log M = 0, not a rounding residue."""
    with mpmath.workdps(DPS):
        for wid in WITH_MOMENT:
            if wid in ("base.kov15_canonical",) + Q_ATOM_PAIRS + QUADRATURE_PAIRS:
                continue  # not a pair of this change (reference/base/composition.py); the two kinds below
            w = catalogue.get_witness(wid)
            assert [w.log_moment(a, **example(w)) for a in (0, 1)] == [0, 0], wid


def test_moments_of_pairs_with_an_atom_of_q_at_minus_infinity():
    """Lemma C.4.6's Q has an atom at −∞ of mass δ(0) (= 1 − 2e^{−a}Φ(−L/σ), Thm 4.3.1 at ε = 0): E_Q[p/q] = 1 still
    (P ≪ Q), but E_Q[(p/q)^0] = Q(p > 0) = 1 − δ(0) per step; the quadrature pairs agree with 0 to 1e-12."""
    from dpspec.reference.objpert.glm_bounds import objpert_delta
    with mpmath.workdps(DPS):
        for wid in Q_ATOM_PAIRS:
            w = catalogue.get_witness(wid)
            order0, order1 = (w.log_moment(a, **example(w)) for a in (0, 1))
            assert order1 == 0 and order0 < 0, wid
        w = catalogue.get_witness("objpert.c4_6_pair")
        p = example(w)
        want = mpmath.log(1 - objpert_delta(0, p["sigma"], p["lam"], p["beta"], p["L"]))
        assert abs(w.log_moment(0, **p) - want) <= mpmath.mpf(10) ** (-DPS + 5) * abs(want)
        for wid in QUADRATURE_PAIRS:
            w = catalogue.get_witness(wid)
            assert all(abs(w.log_moment(a, **example(w))) <= 1e-12 for a in (0, 1)), wid


# ---------------------------------------------------------------------------------------------------------
# Samplers against the exact moments


@pytest.mark.parametrize("wid", WITH_MOMENT)
def test_sampler_matches_the_exact_moment(wid):
    """n = 1e5 draws (2e4 for the 100-fold KOV15 product), seed 7, at the witness's example parameters."""
    w = catalogue.get_witness(wid)
    n = 20_000 if wid == "base.kov15_canonical" else 100_000
    checks = check_sampler(wid, example(w), n=n, seed=7)
    assert len(checks) >= 2 and all(c.ok for c in checks), [str(c) for c in checks if not c.ok]


def _scaled_sampler(w, name, factor):
    """The witness with a sampler that draws with parameter ``name`` times ``factor`` (log_p, log_q unchanged)."""
    def sample(rng, n, **params):
        return w.sample(rng, n, **{**params, name: float(params[name]) * factor})
    return dataclasses.replace(w, sample=sample, strata=None)


@pytest.mark.parametrize("wid, params, names", [
    ("base.gaussian", {"sigma": 1}, ("sigma",)),
    ("base.sgm", {"q": "0.1", "sigma": 1, "direction": "remove"}, ("sigma",)),
    ("base.sgm", {"q": "0.1", "sigma": 1, "direction": "add"}, ("sigma",)),
    ("base.laplace", {"b": 1}, ("b",)),
    ("ptr.thm4_3.case1", {"sigma1": 2, "sigma2": 1, "b": 1, "delta0": "1e-3"}, ("sigma1", "sigma2")),
    ("ptr.thm4_3.case2", {"sigma1": 2, "sigma2": 1, "b": 1, "delta0": "1e-3"}, ("sigma1", "sigma2")),
])
def test_sampler_with_sigma_off_by_ten_percent_is_caught(wid, params, names):
    """The same check, n = 1e5, seed 7: the correct sampler passes, the one drawing with σ (b) × 1.1 fails."""
    w = catalogue.get_witness(wid)
    assert all(c.ok for c in check_sampler(w, params, n=100_000, seed=7))
    bad = w
    for name in names:
        bad = _scaled_sampler(bad, name, 1.1)
    assert not all(c.ok for c in check_sampler(bad, params, n=100_000, seed=7))


# ---------------------------------------------------------------------------------------------------------
# Tilt families: data in the registrations


def test_tilt_families_come_from_the_registrations():
    """base.gaussian, base.sgm (remove) and base.laplace declare their families in their Witness entries; the PTR
    pairs declare none (2-D outputs with a branch-dependent σ, unbounded losses: no family of tilting.py fits);
    tilting.family reads the field alone (no table by id: a copy without the field has no family)."""
    fams = {"base.gaussian": ({"sigma": 1.5}, "gaussian_mixture"),
            "base.sgm": ({"q": 0.1, "sigma": 1.0, "direction": "remove"}, "gaussian_mixture"),
            "base.laplace": ({"b": 2.0}, "bounded_loss")}
    for wid, (params, name) in fams.items():
        w = catalogue.get_witness(wid)
        assert w.tilt_family is not None and tilting.family(w, params).name == name
        assert tilting.family(dataclasses.replace(w, tilt_family=None), params) is None
    assert tilting.family("base.sgm", {"q": 0.1, "sigma": 1.0, "direction": "add"}) is None
    assert not hasattr(tilting, "BUILTIN")
    for w in catalogue.witnesses():
        if w.id.startswith("ptr."):
            assert w.tilt_family is None


def test_declared_families_describe_the_pairs():
    """Each declared family at its witness's example passes tilting's per-draw density check, and its interval
    covers the exact moment from log_moment (α = 4, n = 2000, seed 0, confidence 0.999)."""
    for wid in ("base.gaussian", "base.sgm", "base.laplace"):
        w = catalogue.get_witness(wid)
        p = example(w)
        iv = tilting.rdp_moment_interval(w, p, 4.0, n=2000, seed=0)
        with mpmath.workdps(DPS):
            exact = float(w.log_moment(4, **p) / 3)
        assert iv.lo <= exact <= iv.hi, (wid, iv.lo, exact, iv.hi)
