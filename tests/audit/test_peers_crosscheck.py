"""Cross-checks against the float64 peer libraries where they are right, and regression witnesses where they are
not (peer-accountants.md §1.6: B1 Opacus negative log A at large fractional α; B2 Opacus NaN for α ≳ 1030;
B3 dp-accounting's loose/∞ absolute-value series at small fractional α).

Agreement tolerance 1e-8 relative: the libraries' series stop at terms < e^{-30} absolute and use float64."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from mpmath import mp

from dpspec.reference import catalogue
from dpspec.reference.base.sgm import sgm_rdp
from dpspec.reference.base.zw19 import zw19_upper

pytestmark = pytest.mark.peers
opacus_rdp = pytest.importorskip("opacus.accountants.analysis.rdp")
dpa_rdp = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")


def ours(alpha, q, sigma):
    with mp.workdps(15):
        return float(sgm_rdp(alpha, q, sigma))  # q, σ, α taken as the exact binary floats the libraries see


# where both libraries are right: integer α up to 256, fractional α ≥ 2 with moderate q (outside B1/B3)
points = st.tuples(st.floats(1e-4, 0.3), st.floats(0.5, 10),
                   st.one_of(st.integers(2, 256).map(float), st.floats(2.0, 40.0)))


@settings(max_examples=10, deadline=None)
@given(points)
def test_opacus_and_dp_accounting_agree_where_they_are_right(point):
    q, sigma, alpha = point
    mine = ours(alpha, q, sigma)
    theirs_opacus = float(opacus_rdp.compute_rdp(q=q, noise_multiplier=sigma, steps=1, orders=[alpha])[0])
    theirs_dpa = float(dpa_rdp._compute_rdp_poisson_subsampled_gaussian(q, sigma, [alpha])[0])
    assert math.isclose(theirs_opacus, mine, rel_tol=1e-8, abs_tol=1e-300)
    if alpha == int(alpha):
        assert math.isclose(theirs_dpa, mine, rel_tol=1e-8, abs_tol=1e-300)
    else:  # dp-accounting's fractional series sums absolute values: an upper bound (B3)
        assert theirs_dpa >= mine * (1 - 1e-8)


def test_b1_opacus_negative_log_a():
    mine = ours(58.9, 0.4, 12.0)
    theirs = float(opacus_rdp.compute_rdp(q=0.4, noise_multiplier=12.0, steps=1, orders=[58.9])[0])
    assert mine > 0 > theirs  # Opacus under-reports: a negative RDP (log A ≈ −30 instead of +2.1)


def test_b2_opacus_nan_at_large_integer_alpha():
    with np.errstate(all="ignore"):
        theirs = float(opacus_rdp.compute_rdp(q=0.01, noise_multiplier=1.0, steps=1, orders=[1100])[0])
    assert math.isnan(theirs) or math.isinf(theirs)
    assert math.isfinite(ours(1100, 0.01, 1.0))


def test_b3_dp_accounting_loose_at_small_fractional_alpha():
    mine = ours(1.1, 0.4, 12.0)
    theirs = float(dpa_rdp._compute_rdp_poisson_subsampled_gaussian(0.4, 12.0, [1.1])[0])
    assert theirs > 50 * mine  # 0.0669 vs 6.12e-4: valid but ~100× loose


def test_autodp_general_upperbound_is_zw19_thm6():
    # autodp's `general_upperbound` (Thm 6 rewritten, exact for α ≤ 51) on the Gaussian curve
    rdp_acct = pytest.importorskip("autodp.rdp_acct")
    g = catalogue.curve("base.gaussian_rdp", sigma=1.5)
    func = lambda a: a / (2 * 1.5**2)  # noqa: E731
    with mp.workdps(15):
        for alpha in (3, 5, 10, 30):
            theirs = rdp_acct.general_upperbound(func, alpha, 0.05) / (alpha - 1)
            assert math.isclose(theirs, float(zw19_upper(alpha, 0.05, g)), rel_tol=1e-8)
