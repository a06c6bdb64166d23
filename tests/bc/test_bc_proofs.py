"""Proof checks of seed 002 (dpspec.proofs_checks.bc: symbolic, counting, a0): each holds, names existing
statements, and the machinery behind them can tell a false identity from a true one."""
from fractions import Fraction

import pytest
import sympy as sp
from mpmath import mp, mpf

from dpspec.proofs_checks.bc import _a0, counting, symbolic
from dpspec.proofs_checks.bc import _exact as X
from dpspec.proofs_checks.checks import CHECKS, all_checks
from dpspec.reference import catalogue

CHECK_IDS = (
    "bc.a0.canonical_pair_matches_cp_closed_form",
    "bc.conjugates.fl_profile_closed_form",
    "bc.conjugates.fu_profile_closed_form",
    "bc.conjugates.mixture_profile_is_weighted_sum",
    "bc.counting.bose_einstein_vandermonde",
    "bc.counting.f1_qk_matches_enumeration",
    "bc.counting.f4_ratio_and_bounds",
    "bc.counting.f7_tail_bound_holds",
    "bc.counting.g2_counting_bound",
    "bc.counting.true_occupancy_law_matches_enumeration",
    "bc.symbolic.cor33_gaussian_composition",
    "bc.symbolic.d13_inverse_formulas",
    "bc.symbolic.d14_beta_identities",
    "bc.symbolic.eq10_gaussian_derivative",
    "bc.symbolic.lemma_c5_single_component_is_g_mu",
    "bc.symbolic.lemma_c5_stationarity",
    "bc.symbolic.prop212_gives_eq7",
)


def test_the_bc_checks_are_registered():
    CHECKS.load()
    assert set(all_checks("bc")) == set(CHECK_IDS)


@pytest.mark.parametrize("check_id", CHECK_IDS)
def test_bc_check_holds(check_id):
    CHECKS.load()
    result = all_checks("bc")[check_id]()
    assert result.holds, (result.message, result.evidence)


def test_bc_checks_name_existing_statements():
    CHECKS.load()
    ids = {s.id for s in catalogue.statements()}
    for c in all_checks("bc").values():
        assert c.statements and set(c.statements) <= ids, c.id


# --- the machinery can fail ---------------------------------------------------------------------------------------

def test_symbolic_zero_test_rejects_a_false_identity():
    z = symbolic.z
    assert symbolic._zero(symbolic.Phi(-z) - (1 - symbolic.Phi(z)))
    assert not symbolic._zero(symbolic.Phi(-z) - symbolic.Phi(z))
    # eq. (10) with the wrong sign of μ²/2 is not the derivative
    mu = symbolic.mu
    assert not symbolic._zero(symbolic.g_prime_at(z, mu) + sp.exp(mu * z + mu ** 2 / 2))


def test_f4_ratio_differs_from_a_wrong_ratio():
    """The exact hypergeometric ratio at (N, m, g, k) = (20, 5, 4, 1) equals (m−k)(g−k)/((N−g−m+k+1)(k+1)), not the
    same expression without the +1 in the denominator."""
    q = X.hypergeometric_q(20, 5, 4)
    assert q[2] / q[1] == Fraction((5 - 1) * (4 - 1), (20 - 4 - 5 + 1 + 1) * 2)
    assert q[2] / q[1] != Fraction((5 - 1) * (4 - 1), (20 - 4 - 5 + 1) * 2)


def test_enumerations_see_a_wrong_law():
    """The brute-force enumerations distinguish the true occupancy law from Bose–Einstein, and F.1's q_k from the
    s = 1 hypergeometric law when s > 1."""
    assert X.occupancy_brute_force(4, 2, 2) != X.occupancy_bose_einstein(4, 2)
    assert X.round_q_brute_force(6, 2, 2, 2) != X.hypergeometric_q(6, 2, 2)[:3]


def test_g2_chain_is_strict_somewhere():
    """The G.2 chain is not an identity: at N = 64, ms = 8, g = 3 every step loses something."""
    N, ms, g = 64, 8, 3
    exact = Fraction(1)
    for i in range(g):
        exact *= Fraction(N - i * ms, N - i)
    assert exact > 1 - Fraction(g * g * ms, N - g)
    assert counting._distinct_rounds_brute_force(16, 4, 2) == Fraction(16 - 4, 15)


def test_canonical_pair_differs_from_the_remove_pair_below_zero():
    """The canonical C_p(G) pair mirrors the remove pair's positive losses: its negative-loss buckets are not the
    remove pair's (which stop at log(1 − p))."""
    with mp.workdps(20):
        b = _a0.cp_gaussian_buckets(mpf("0.1"), 2, mpf("0.05"))
        rem = _a0.ref_pld.SgmPair(mpf("0.1"), 2, "remove").buckets(mpf("0.05"))
    assert b.k0 == -b.k1 and rem.k0 > b.k0
    assert b.P[0] == rem.Q[-1]  # the lowest mirrored bucket carries the remove pair's top Q-mass as P-mass
