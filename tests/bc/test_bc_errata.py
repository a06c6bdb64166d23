"""The seed-002 errata (bc.E1–bc.E16; dpspec.proofs_checks.bc.errata, bc.E9 in .fdp): every demonstration
reproduces, and the computations behind them are checked against independent ones (quadrature, closed forms,
enumeration, the notes' test vectors of shared/notes/batch-clipping-fdp.md §5)."""
from fractions import Fraction

import mpmath
import pytest
from mpmath import mp, mpf

from dpspec.proofs_checks.bc import _exact as X
from dpspec.proofs_checks.bc import errata as bc_errata
from dpspec.proofs_checks.bc import fdp as base_fdp
from dpspec.proofs_checks.errata import errata, get_erratum
from dpspec.reference import catalogue

# E1 and E2 run ~5 s and ~7 s (an ε(δ) root over 200 atoms; PLDs with 10⁴ steps): their full demonstrations are
# marked slow, and their pieces are tested below at cheaper points.
HEAVY = ("bc.E1", "bc.E2")
BC_IDS = ("bc.E1", "bc.E2", "bc.E3", "bc.E4", "bc.E5", "bc.E6", "bc.E7", "bc.E8", "bc.E9", "bc.E10", "bc.E11",
          "bc.E12", "bc.E13", "bc.E16")


@pytest.fixture(autouse=True)
def _dps():
    with mp.workdps(30):
        yield


def test_bc_e9_witness_reproduces():
    result, _ = get_erratum("bc.E9").check()
    assert result.reproduced, result.message


def test_neyman_pearson_tradeoff_of_the_canonical_pair_has_the_known_end_points():
    p, q = base_fdp.canonical_pair(mpmath.mpf(1), mpmath.mpf("0.01"))
    assert base_fdp.neyman_pearson_tradeoff(p, q, 0) == 1 - mpmath.mpf("0.01")
    assert abs(base_fdp.neyman_pearson_tradeoff(p, q, 1)) < mpmath.mpf(10) ** -14


def test_every_erratum_names_source_printed_and_corrected_forms():
    for e in errata():
        assert e.source and e.printed and e.corrected and e.summary, e.id
        assert e.severity in ("wrong", "typo", "gap"), e.id


def test_the_bc_errata_are_registered():
    registered = {e.id for e in errata() if e.id.startswith("bc.")}
    assert registered == set(BC_IDS)


@pytest.mark.parametrize("erratum_id", [i for i in BC_IDS if i not in HEAVY])
def test_bc_erratum_reproduces(erratum_id):
    result, _ = get_erratum(erratum_id).check()
    assert result.reproduced, (result.message, result.evidence)


@pytest.mark.slow
@pytest.mark.parametrize("erratum_id", HEAVY)
def test_heavy_bc_erratum_reproduces(erratum_id):
    result, _ = get_erratum(erratum_id).check()
    assert result.reproduced, (result.message, result.evidence)


def test_every_bc_erratum_names_only_bc_or_base_statements_that_exist():
    ids = {s.id for s in catalogue.statements()}
    for e in errata():
        if e.id.startswith("bc."):
            assert e.statements and set(e.statements) <= ids, e.id
            assert all(s.startswith(("bc.", "base.")) for s in e.statements), e.id


# --- E1 pieces ----------------------------------------------------------------------------------------------------

def test_exact_tails_at_the_printed_cuts_match_notes_5_3():
    """Notes §5.3 table: E = 4 → 0.2366 / 0.2141; E = 16 → 0.2733 / 0.2568 (Bin(100E, 1/100))."""
    for E, below, above in ((4, "0.2366", "0.2141"), (16, "0.2733", "0.2568")):
        t = bc_errata.hoeffding_tails(E)
        assert abs(t["P(c2 < cU2)"] - mpf(below)) < mpf("5e-5")
        assert abs(t["P(c2 > cL2)"] - mpf(above)) < mpf("5e-5")
        assert t["printed e^-E"] < t["P(c2 > cL2)"] / 10 < t["hoeffding exp(-2t^2/n)"]


def test_binomial_tails_agree_with_the_regularised_beta_function():
    """P(c² < k) for Bin(n, p) = I_{1−p}(n − k + 1, k) (an independent closed form)."""
    n, p, k = 1600, mpf(1) / 100, 12
    support, pmf, _ = X.binomial_law(n, p)
    below = mpmath.fsum(q for c, q in zip(support, pmf) if c < k)
    assert abs(below - mpmath.betainc(n - k + 1, k, 0, 1 - p, regularized=True)) < mpf(10) ** -25


def test_a1_mixture_matches_the_notes_vectors_and_the_catalogue():
    """Notes §5.2 (E = 4, N/(sm) = 100, σ = 1): δ(0, 1, 4) = 0.6465318, 0.4732816, 0.1100583, f(0.05) = 0.3946041546;
    and the catalogue's bc.a1_profile at the same q_E (N = 100, m = s = g = 1; bc.E5 compares bc.def4_2)."""
    support, pmf, _ = X.binomial_law(400, mpf(1) / 100)
    for eps, want in ((0, "0.6465318"), (1, "0.4732816"), (4, "0.1100583")):
        assert abs(X.mixture_delta(support, pmf, 1, eps) - mpf(want)) < mpf("5e-8")
    assert abs(X.mixture_tradeoff(support, pmf, 1, mpf("0.05")) - mpf("0.3946041546")) < mpf("5e-11")
    params = dict(sampling="subsampling", N=100, m=1, s=1, g=1, E=4, sigma=1, dps=20)
    ref = catalogue.get("bc.a1_profile").evaluate(eps=1, **params).value
    assert abs(ref - X.mixture_delta(support, pmf, 1, 1)) < mpf(10) ** -15


def test_delta_g_matches_base_gdp_profile():
    st = catalogue.get("base.gdp_profile")
    for eps, mu in ((0, "0.5"), (1, 2), (35, 5), ("0.3", "0.01")):
        ref = st.evaluate(eps=eps, mu=mu, dps=30).value
        assert abs(X.delta_g(eps, mu) - ref) <= mpf(10) ** -20 * ref


def test_the_printed_f6_bound_holds_once_the_tail_is_repaired():
    """With Chernoff's repair (c_L² = 3E, l = e^{−E}; notes §6 item 1) Thm 4.6's fL is a valid guarantee: its ε(1e-5)
    is above the exact A1 ε, while the printed cut (1 + 1/√(2E))E with l = e^{−E} is below it (E = 16, σ = 4)."""
    E, sigma, delta = 16, 4, mpf("1e-5")
    support, pmf, _ = X.trimmed(X.binomial_law(100 * E, mpf(1) / 100), mpf(10) ** -25)
    exact = X.mixture_epsilon(support, pmf, sigma, delta, hi=20)
    repaired = X.fl_epsilon(delta, mpmath.sqrt(3 * E) / sigma, mpmath.exp(-E))
    printed = X.fl_epsilon(delta, mpmath.sqrt((1 + 1 / mpmath.sqrt(2 * E)) * E) / sigma, mpmath.exp(-E))
    assert printed < exact < repaired
    assert abs(exact - mpf("4.9348")) < mpf("5e-5")  # notes §5.3


def test_fl_delta_matches_the_notes_vector():
    """Notes §5.2: Def. 4.4 with c_L = 2, l = 0.05, σ = 1 has δ(0, 1, 3) = 0.7301111, 0.5598617, 0.2338131 (the
    closed form against the conjugate: bc.conjugates.fl_profile_closed_form)."""
    for eps, want in ((0, "0.7301111"), (1, "0.5598617"), (3, "0.2338131")):
        assert abs(X.fl_delta(eps, 2, "0.05") - mpf(want)) < mpf("5e-8")


# --- E2 pieces ----------------------------------------------------------------------------------------------------

def test_f2_upper_is_refuted_at_a_cheap_row():
    """E = 16, p = 0.1, σ = 4 (T = 160), ε = 1: δ_A0 ≤ 3.8e-4 (PLD upper bound; notes §5.7: 3.6e-4) while the printed
    upper bound forces δ ≥ 0.0956."""
    (row,) = bc_errata.f2_upper_refutation(16, "0.1", 4, (1,), "0.01")
    assert row["delta_A0_upper"] < mpf("3.8e-4") < row["delta_implied_by_F2_upper"] / 100
    assert abs(row["delta_implied_by_F2_upper"] - mpf("0.09557")) < mpf("5e-5")


# --- E3, E4, E16 pieces -------------------------------------------------------------------------------------------

def test_hidden_label_tradeoff_matches_quadrature_and_notes():
    """β = Q(|X| ≤ t), Q = ½N(1,1) + ½N(−1,1), by quadrature of the density; notes §5.2: 0.82992 at α = 0.05."""
    for a in ("0.05", "0.2"):
        t = X.ndtri_upper(mpf(a) / 2)
        density = lambda x: (mpmath.npdf(x, 1, 1) + mpmath.npdf(x, -1, 1)) / 2
        assert abs(mpmath.quad(density, [-t, 0, t]) - bc_errata.hidden_label_tradeoff(a)) < mpf(10) ** -20
    assert abs(bc_errata.hidden_label_tradeoff("0.05") - mpf("0.82992")) < mpf("5e-6")


def test_true_occupancy_law_matches_notes_and_closed_form():
    """N/s = 100, s = 64: g = 2 true law P(J = 1) = (s−1)/(N−1) = 0.00985, BE 2s/(N+s) = 0.0198 (notes §5.5)."""
    true, be = X.occupancy_true(100, 64, 2), X.occupancy_bose_einstein(100, 2)
    assert true[1] == Fraction(63, 6399)
    assert be[1] == Fraction(128, 6464)
    assert sum(true) == 1 and sum(be) == 1


def test_factor2_heuristic_counterexample_is_a_real_crossing():
    """k = 2, σ = 1: at ε = 0 the mixture ¼δ_{G_2} + ½δ_{G_1} is below δ_{G_1}; the search finds the first grid ε > 0
    where it is above (a sign change, not a search artefact)."""
    eps, mix, heuristic = bc_errata.factor2_counterexample(2, 1)
    assert eps > 0 and mix > heuristic
    assert X.delta_g(0, 2) / 4 + X.delta_g(0, 1) / 2 < X.delta_g(0, 1)


def test_f8_threshold_is_about_2_7_m_for_large_E():
    assert bc_errata.f8_threshold(10, 100) == 26
    g = bc_errata.f8_threshold(100, 10 ** 6)
    assert 2.6 < g / 100 < 2.75  # (e + 1/g)/(1 + 1/√(2E)) → e
