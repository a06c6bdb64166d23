"""Controls of the public API: correct bounds pass, planted wrong bounds fail with a witness.

Planted bugs (issue 4, Controls): Gaussian RDP claimed for σ·1.3; Laplace pure ε = 1/(2b); SGM RDP computed with
q/2; an SGM ε(δ) 10 % low; the printed Thm 4.2 of the PTR paper (seed 001_c3b5d7d7fc0e2c16.txt, Thm 4.2:
ε = e^{1/b} + σ1√(2 ln(1.25/δ)), notes ptr-rdp.md §2.6 / E3) against the Thm 4.3 Case-2 worst-case pair.
"""
import math

import pytest

from dpspec.conformance import verify_profile_bound, verify_rdp_bound
from dpspec.reference import catalogue

ALPHAS = [1.5, 2, 4, 8]


def _ids():
    return {s.id for s in catalogue.statements()}


def _witness_ids():
    return {w.id for w in catalogue.witnesses()}


def test_gaussian_rdp_correct_passes_and_sigma_times_1_3_fails():
    good = verify_rdp_bound(catalogue.curve("base.gaussian_rdp", sigma=1), "base.gaussian", {"sigma": 1}, ALPHAS,
                            samples=20_000)
    assert good.passed and len(good.details) == 2 * len(ALPHAS)
    bad = verify_rdp_bound(lambda a: a / (2 * 1.3**2), "base.gaussian", {"sigma": 1}, ALPHAS, samples=20_000)
    assert not bad.passed
    stat = [c for c in bad.failures if c.name == "rdp-moment"]
    assert stat, "the Monte Carlo test alone must catch it, not only the exact moment"
    c = stat[0]
    assert c.lo > c.claimed and c.p_value < 1e-6
    assert bad.reproduction["seed"] == 0 and bad.reproduction["samples"] == 20_000 and bad.reproduction["witness"] == "base.gaussian"
    assert bad.command


def test_monte_carlo_alone_catches_the_understated_gaussian_without_log_moment():
    class NoMoment:  # the Gaussian pair without its exact moment: only sampling can decide
        def __init__(self):
            w = catalogue.get_witness("base.gaussian")
            self.sample, self.log_p, self.log_q = w.sample, w.log_p, w.log_q

    bad = verify_rdp_bound(lambda a: a / (2 * 1.3**2), NoMoment(), {"sigma": 1}, [2, 4],
                           samples=50_000)
    assert not bad.passed and all(c.name == "rdp-moment" for c in bad.details)
    good = verify_rdp_bound(lambda a: a / 2, NoMoment(), {"sigma": 1}, [2, 4], samples=50_000)
    assert good.passed


@pytest.mark.skipif("base.laplace" not in _witness_ids(), reason="witness base.laplace not registered yet")
def test_laplace_pure_eps_half_fails_and_the_true_eps_passes():
    b = 1.0
    bad = verify_profile_bound(lambda e: 0, "base.laplace", {"b": b}, [1 / (2 * b)], samples=20_000)
    assert not bad.passed and bad.details[0].lo > 0.1  # δ(1/2) = 1 − e^{−1/4} ≈ 0.22
    good = verify_profile_bound(lambda e: 0, "base.laplace", {"b": b}, [1 / b], samples=20_000)
    assert good.passed


@pytest.mark.skipif("base.sgm" not in _witness_ids() or "base.sgm_rdp" not in _ids(), reason="SGM not registered yet")
@pytest.mark.parametrize("direction", ["remove", "add"])
def test_sgm_rdp_with_half_q_fails_and_the_exact_rdp_passes(direction):
    q, sigma = 0.2, 1.0
    params = {"q": q, "sigma": sigma, "direction": direction}
    good = verify_rdp_bound(catalogue.curve("base.sgm_rdp", q=q, sigma=sigma, direction=direction), "base.sgm",
                            params, [2, 4], samples=50_000)
    assert good.passed, [c.message for c in good.details]
    bad = verify_rdp_bound(catalogue.curve("base.sgm_rdp", q=q / 2, sigma=sigma, direction=direction), "base.sgm",
                           params, [2, 4], samples=50_000)
    assert not bad.passed
    assert any(c.name == "rdp-moment" for c in bad.failures)


@pytest.mark.skipif("base.sgm" not in _witness_ids(), reason="witness base.sgm not registered yet")
def test_sgm_eps_of_delta_ten_percent_low_fails():
    """True ε(δ) of 10 composed steps of the SGM (q = 0.2, σ = 1) at δ = 1e-3 from dp-accounting's PLD accountant
    (a tight, pessimistic upper bound); 0.9·ε must be refuted and ε itself must pass."""
    pld = pytest.importorskip("dp_accounting.pld.pld_privacy_accountant")
    from dp_accounting import dp_event

    acc = pld.PLDAccountant(value_discretization_interval=1e-4)
    acc.compose(dp_event.PoissonSampledDpEvent(0.2, dp_event.GaussianDpEvent(1.0)), 10)
    delta = 1e-3
    eps = acc.get_epsilon(delta)
    params = {"q": 0.2, "sigma": 1.0, "direction": "remove", "steps": 10}
    good = verify_profile_bound(lambda e: delta, "base.sgm", params, [eps], samples=100_000)
    assert good.passed
    bad = verify_profile_bound(lambda e: delta, "base.sgm", params, [0.9 * eps], samples=100_000)
    assert not bad.passed and bad.details[0].lo > delta
    assert bad.reproduction["steps"] == 10


@pytest.mark.skipif("ptr.thm4_2" not in _ids() or "ptr.thm4_3.case2" not in _witness_ids(),
                    reason="ptr.thm4_2 or the witness ptr.thm4_3.case2 not registered yet")
def test_printed_ptr_thm4_2_fails_and_the_corrected_form_passes():
    st = catalogue.get("ptr.thm4_2")
    point = {"b": 1, "sigma1": 0.5, "delta0": 1e-8, "delta": 1e-5}  # small σ1: the printed σ1·√(..) is far too small
    witness = {"sigma1": 0.5, "sigma2": 0.25, "b": 1, "delta0": 1e-8}  # Thm 4.2 assumes σ2 = τσ1 (τ = 1/2 here)

    def as_profile(value):
        eps, delta_total = value if isinstance(value, tuple) else (value, point["delta0"] + point["delta"])
        return float(eps), float(delta_total)

    printed_eps, delta_total = as_profile(st.evaluate(variant="printed", allow_outside=True, **point).value)
    bad = verify_profile_bound(lambda e: delta_total, "ptr.thm4_3.case2", witness, [printed_eps], samples=50_000)
    assert not bad.passed, bad.details[0].message
    eps, delta_total = as_profile(st.evaluate(allow_outside=True, **point).value)
    good = verify_profile_bound(lambda e: delta_total, "ptr.thm4_3.case2", witness, [eps], samples=50_000)
    assert good.passed, good.details[0].message


def test_bad_arguments_raise():
    with pytest.raises(ValueError):
        verify_rdp_bound(lambda a: a, "base.gaussian", {"sigma": 1}, [2], confidence=1.5)
    with pytest.raises(TypeError):
        verify_rdp_bound(lambda a: a, object(), {}, [2])
    assert math.isfinite(verify_profile_bound(lambda e: 1.0, "base.gaussian", {"sigma": 1}, [0.0],
                                              samples=1000).details[0].estimate)
