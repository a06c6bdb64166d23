"""The runner uses the importance-sampled checks (conformance/tilting.py) where a witness declares its family, and the
edge search (conformance/edges.py) in --full, without timings in the verdicts."""
from __future__ import annotations

import dataclasses
import json

from dpspec.conformance import runner
from dpspec.reference import catalogue


def test_tilted_checks_see_an_under_claimed_sgm_curve_at_alpha_64():
    s = catalogue.get("base.sgm_rdp")
    # α = 64 only: the orders above 64 (exact and tilted checks at 128, 256, 1024: ~5 s more here) are checked for
    # this statement at its example in tests/conformance/test_runner_domain_points.py (test_sgm_tilted_checks_at_high_
    # orders_pass_and_have_power, test_high_orders_at_the_example_catch_a_bug_above_64), and their wiring into the
    # runner by test_rdp_composition_has_a_composed_gaussian_witness there (monte_carlo_checks: alphas + high_alphas)
    settings = dataclasses.replace(runner.QUICK, alphas=(64.0,), high_alphas=(), tilted_samples=20_000)
    v = runner.settle(runner.check_statement(s, settings))
    tilted = [c for c in v.details if c.name == "rdp-tilted"]
    assert tilted and not any(c.rejected for c in tilted) and v.status == "pass", [c.message for c in tilted]
    # the same witness against a curve claimed 3 % too small at α = 64: the tilted interval rejects it
    point = {**runner._example_point(s, None)[0], "alpha": 64.0}
    value = 0.97 * float(s.evaluate(dps=30, **point).value)
    use = s.witnesses[0]
    from dpspec.conformance import tilting
    from dpspec.conformance.sampling import resolve_witness

    check = tilting.check(resolve_witness(use.witness), use.witness_params(point), "rdp_eps", 64.0, value, "exact",
                          point, n=20_000, seed=1, confidence=0.999)
    assert check.p_value < 1e-6, check.message


def test_full_mode_runs_the_edge_search_and_keeps_timings_out():
    s = catalogue.get("base.gaussian_rdp")
    settings = dataclasses.replace(runner.QUICK, edge_examples=4)
    v = runner.check_statement(s, settings)
    edge = [c for c in v.details if c.name == "edge"]
    assert len(edge) == 1 and edge[0].ok
    text = json.dumps(edge[0].to_json() if hasattr(edge[0], "to_json") else edge[0].__dict__, default=str)
    assert "seconds" not in text and "slowest" not in text
    assert runner.FULL.edge_examples > 0 and runner.QUICK.edge_examples == 0


def test_an_exact_moment_that_cannot_be_computed_is_reported_not_raised():
    """A witness whose exact moment fails at a point (a quadrature PrecisionError: seen for the Thm 4.4 reverse
    witness outside the theorem's conditions) must not abort the statement's checks: the exact check is reported as
    not made, with the reason, and decides nothing."""
    from dpspec.reference.errors import PrecisionError

    def failing(alpha, **params):
        raise PrecisionError("quadrature error 1.0e-18 on 0.3133")

    c = runner._exact_check(failing, 4, {"sigma": 1.0}, 2.0, 1, {"alpha": 4}, "upper", {}, runner.QUICK)
    assert c.ok is None and not c.statistical and not c.failed
    assert c.name == "rdp-exact" and "not made" in c.message and "PrecisionError" in c.message
    good = runner._exact_check(lambda alpha, sigma: alpha * (alpha - 1) / (2 * sigma ** 2), 4, {"sigma": 1.0}, 2.0, 1,
                               {"alpha": 4}, "exact", {}, runner.QUICK)
    assert good.ok is True
