"""The fast paths of the report-accuracy statements (fast/objpert/report_accuracy.py) against the reference
(reference/objpert/report_accuracy.py): hypothesis draws from the statements' own domains, the printed variants, and
the conditions (both paths refuse with the same words where each condition alone fails)."""
from __future__ import annotations

import pytest
import torch

from dpspec.fast.objpert import report_accuracy as F
from dpspec.reference.errors import ConditionError
from dpspec.reference.objpert import report_accuracy as R
from tests._helpers import assert_fast_matches_at, assert_fast_matches_reference

CASES = {"objpert.thm2_3_5_accuracy": F.thm2_3_5_accuracy, "objpert.prop_a3_5": F.prop_a3_5,
         "objpert.prop_a5_1": F.prop_a5_1}


@pytest.mark.parametrize("sid", sorted(CASES))
def test_fast_matches_reference_on_drawn_points(sid):
    """8 hypothesis draws from the statement's Param domains (ρ down to 1e-300, d up to 100; the reference's exact
    τ at 50 digits makes each draw in the τ bounds' band cost seconds); points outside the conditions are discarded
    by the reference (the refusals are compared below)."""
    assert_fast_matches_reference(sid, fast=CASES[sid], examples=8, min_examples=3)


@pytest.mark.parametrize("part", ["users", "domain"])
def test_printed_variants(part):
    """The printed forms (not bounds) agree too, at a point inside the conditions (λ = 5, σ3 = 0.01, d = 5)."""
    p = dict(eps1bar="0.3", grad="0.7", lam=5, beta="0.25", sigma=3, sigma2=2, sigma3="0.01", d=5, rho="1e-4")
    assert_fast_matches_at("objpert.thm2_3_5_accuracy", fast=lambda **k: F.thm2_3_5_accuracy(**k, printed=True),
                           variant="printed", **p)
    assert_fast_matches_at("objpert.prop_a3_5", fast=lambda **k: F.prop_a3_5(**k, printed=True), variant="printed",
                           n=1000, part=part, **p)


def _words(fn, **kw):
    with pytest.raises(ConditionError) as exc:
        fn(**kw)
    return str(exc.value)


@pytest.mark.parametrize("lam,beta,sigma3,fails", [
    (1.0, 0.25, 0.1, "lam_above_goe"),   # 2σ3τ(5, 1e-3) = 1.37 > λ (between the τ bounds: exact quantile)
    (1.0, 0.25, 0.01, None),             # inside
    (0.4, 0.25, 0.01, "lam_at_least_2beta"),
    (1.0, 0.25, 1.0, "lam_above_goe"),   # far below the lower τ bound
])
def test_conditions_refuse_with_the_reference_words(lam, beta, sigma3, fails):
    """Inside: equal values (1e-12); outside one condition: both refuse, with the same message."""
    from dpspec.reference import catalogue

    p = dict(eps1bar=0.3, grad=0.5, lam=lam, beta=beta, sigma=5.0, sigma2=5.0, sigma3=sigma3, d=5, rho=1e-3)
    st = catalogue.get("objpert.thm2_3_5_accuracy")
    if fails is None:
        assert float(F.thm2_3_5_accuracy(**p)) == pytest.approx(float(st.evaluate(**p).value), rel=1e-12)
        return
    fast_words = _words(F.thm2_3_5_accuracy, **p)
    with pytest.raises(ConditionError) as exc:
        st.evaluate(**p)
    assert fails in fast_words and str(exc.value) == fast_words


def test_goe_condition_band_uses_the_exact_quantile():
    """λ_min just above and just below 2σ3τ(d, ρ) (τ from the fast quantile, inside the τ bounds' band): the fast
    condition flips exactly there, as the reference's does."""
    from dpspec.fast.objpert.goe import goe_quantile

    tau = float(goe_quantile(7, 1e-4))
    for factor, ok in ((1 + 1e-9, True), (1 - 1e-9, False)):
        lam_min = torch.tensor(2 * 0.05 * tau * factor, dtype=torch.float64)
        got = bool(F.at_least_2_sigma3_tau(lam_min.reshape(1), torch.tensor([0.05], dtype=torch.float64),
                                           torch.tensor([7.0], dtype=torch.float64),
                                           torch.tensor([1e-4], dtype=torch.float64)))
        assert got is ok
        assert R._lammin_goe_ok({"lam_min": __import__("mpmath").mpf(float(lam_min)), "sigma3":
                                 __import__("mpmath").mpf("0.05"), "d": 7, "rho": __import__("mpmath").mpf("1e-4")}) is ok
