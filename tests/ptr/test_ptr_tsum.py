"""§5 of the PTR paper: TSUM_F, LS^(r) (Theorem 5.1), Δ(S) (incl. m ≤ F and τ ≥ R), Theorem 5.2, and the reference
mechanisms (Algorithms 1 and 3). Brute force over small sets in R² with random norms (no ties)."""
import itertools

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.ptr import mechanisms, thm5_2, tsum

R = 1.0


def _ls_brute(S, F, cands):
    """LS(S) = max over neighbours (remove one point; add one candidate) of ||TSUM(S) − TSUM(S')||."""
    base = tsum.tsum(S, F)
    nbrs = [np.delete(S, i, axis=0) for i in range(len(S))] + [np.vstack([S, c]) if len(S) else c[None] for c in cands]
    return max((np.linalg.norm(tsum.tsum(n, F) - base) for n in nbrs), default=0.0)


def _ls_r_brute(S, F, r, cands):
    """sup over S̃ with d(S, S̃) ≤ r of LS(S̃): remove any subset, add any multiset of candidates."""
    best = 0.0
    for c in range(min(r, len(S)) + 1):
        for rem in itertools.combinations(range(len(S)), c):
            kept = np.delete(S, list(rem), axis=0)
            for add in itertools.combinations_with_replacement(range(len(cands)), r - c):
                St = np.vstack([kept] + [cands[j][None] for j in add]) if add else kept
                best = max(best, _ls_brute(St.reshape(-1, 2), F, cands))
    return best


def _random_set(rng, m):
    v = rng.normal(size=(m, 2))
    return v / np.linalg.norm(v, axis=1)[:, None] * rng.uniform(0.05, 0.95, size=(m, 1))


@pytest.mark.parametrize("seed", range(6))
def test_theorem_5_1_and_its_m_le_F_extension_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    m, F = int(rng.integers(0, 5)), int(rng.integers(0, 4))
    S = _random_set(rng, m).reshape(-1, 2)
    d = rng.normal(size=(2, 2))
    cands = np.vstack([d / np.linalg.norm(d, axis=1)[:, None] * R, _random_set(rng, 1)])  # norm-R points + one
    for r in range(3):
        brute = _ls_r_brute(S, F, r, cands)
        assert float(tsum.ls_r(S, F, r, R)) == pytest.approx(brute, abs=1e-12), (m, F, r)
        if m > F:
            assert tsum.ls_r_printed(S, F, r, R) == tsum.ls_r(S, F, r, R)


@pytest.mark.parametrize("seed", range(20))
def test_safety_margin_closed_form_equals_the_definition(seed):
    rng = np.random.default_rng(100 + seed)
    m, F = int(rng.integers(0, 9)), int(rng.integers(0, 6))
    S = _random_set(rng, m).reshape(-1, 2)
    for tau in (0.1, 0.5, 0.9):
        assert tsum.safety_margin(S, F, tau, R) == tsum.safety_margin_scan(S, F, tau, R)
    assert tsum.safety_margin(S, F, 1.0, R) == mpmath.inf  # τ ≥ R: LS never exceeds τ


def test_safety_margin_edge_cases():
    S = np.array([[0.1, 0.0], [0.0, 0.2], [0.3, 0.0]])
    assert tsum.safety_margin(S, 5, 0.5, R) == 2 + 3  # m ≤ F: F − m additions, then all m norms ≤ τ
    assert tsum.safety_margin(S, 1, 0.25, R) == 0  # ||x_(3)|| = 0.3 > τ
    assert tsum.safety_margin(S, 2, 0.5, R) == 2
    assert tsum.safety_margin(np.zeros((0, 2)), 0, 0.5, R) == 0  # empty set, F = 0: adding one point gives R
    with pytest.raises(DomainError):
        tsum.ls_r_printed(S, 3, 0, R)  # Theorem 5.1's index is undefined for m ≤ F (erratum E16)
    with pytest.raises(DomainError):
        tsum.safety_margin(S, -1, 0.5, R)


def test_global_sensitivity_of_delta_is_one_on_random_neighbours():
    rng = np.random.default_rng(7)
    for _ in range(30):
        S = _random_set(rng, int(rng.integers(1, 8)))
        F = int(rng.integers(0, 4))
        x = _random_set(rng, 1)
        a, b = tsum.safety_margin(S, F, 0.5, R), tsum.safety_margin(np.vstack([S, x]), F, 0.5, R)
        assert abs(a - b) <= 1


def test_tsum_trims_the_largest_norms():
    S = np.array([[3.0, 0], [0, 1.0], [0.5, 0], [0, -2.0]])
    assert np.allclose(tsum.tsum(S, 2), [0.5, 1.0])
    assert np.allclose(tsum.tsum(S, 4), 0) and np.allclose(tsum.tsum(S, 0), S.sum(axis=0))


# -- Theorem 5.2 -------------------------------------------------------------------------------------------

P52 = dict(n=100, F=10, d=10, R=1, beta=1, lam_sc=1, sigma_g="0.1", sigma1="0.1", sigma2=5, eta_B="1e-5")


def test_thm5_2_value_and_algebra():
    with mpmath.workdps(40):
        v = catalogue.get("ptr.thm5_2").evaluate(dps=40, **P52).value
        p = {k: mpf(x) for k, x in P52.items()}
        rho = 1 - 2 * p["eta_B"] * 80 + p["eta_B"] ** 2 * (100**2 + 91 * 90)
        M = p["eta_B"] ** 2 * 91 * (90 * p["sigma_g"] ** 2 + 10 * 25) + (mpf(10) / 100) ** 2
        assert abs(v - M / (1 - rho)) < mpf(10) ** -35
        # with η_A = ((n−F)/n)η_B and hypothesis (151), Routine A is no worse (A.4): ρ_A ≤ ρ_B, M_A ≤ M_B
        eta_a = p["eta_B"] * 90 / 100
        assert thm5_2.rho_a(100, 10, p["beta"], p["lam_sc"], eta_a) <= rho
        assert thm5_2.m_a(100, 10, 10, p["R"], p["sigma_g"], p["sigma1"], eta_a) <= M


@pytest.mark.parametrize("bad,cond", [(dict(F=50), "F_below_half"), (dict(eta_B=1), "step_size"),
                                      (dict(sigma2="0.1"), "sigma2")])
def test_thm5_2_hypotheses_are_conditions(bad, cond):
    with pytest.raises(ConditionError, match=cond):
        catalogue.get("ptr.thm5_2").evaluate(**(P52 | bad))


def test_thm5_2_sigma2_hypothesis_printed_FR_vs_FR_squared():
    """Erratum E10: with R ≠ 1 the printed F·R and the dimensionally correct F·R² differ."""
    args = dict(n=100, F=10, d=1, R=mpf(3), sigma_g=mpf(0), sigma1=mpf("0.1"))
    s2 = mpf(6)  # (n−F)(n+1)/n² = 0.909: 36 ≥ 0.909·(3·10 + 0.01) but 36 < 0.909·(9·10 + 0.01)
    assert thm5_2.sigma2_hypothesis(sigma2=s2, printed=True, **args)
    assert not thm5_2.sigma2_hypothesis(sigma2=s2, **args)


# -- mechanisms --------------------------------------------------------------------------------------------

def test_generalized_ptr_branch_frequencies_and_textbook_refusal():
    rng = np.random.default_rng(11)
    f1, f2 = (lambda S: np.array([1.0])), (lambda S: np.array([0.0]))
    # Δ = 0 (unsafe dataset): the f2 branch has probability exactly δ0 = 0.2
    runs = [mechanisms.generalized_ptr(rng, None, f1, f2, lambda S: 0, b=1, delta0=0.2, sigma1=1e-9, sigma2=1e-9)
            for _ in range(20000)]
    frac = np.mean([abs(y[0]) < 0.5 for _, y in runs])
    assert abs(frac - 0.2) < 3.3 * np.sqrt(0.2 * 0.8 / 20000)
    dh, y = mechanisms.generalized_ptr(rng, None, f1, f2, lambda S: -50, b=1, delta0=0.2, sigma1=np.inf, sigma2=1)
    assert y is None and dh < 0
    with pytest.raises(DomainError):
        mechanisms.generalized_ptr(rng, None, f1, f2, lambda S: 0, b=1, delta0=0.7, sigma1=1, sigma2=1)


def test_ptr_tmean_releases_tsum_when_safe_and_sum_when_not():
    rng = np.random.default_rng(12)
    g = np.vstack([np.full((20, 2), 0.05), [[0.9, 0.0]] * 2])  # m = 22, F = 4: Δ = #top-4 norms ≤ τ = 2
    out, flag, dh = mechanisms.ptr_tmean(rng, g, F=4, tau=0.5, R=1, b=0.01, delta0=0.4, sigma=1e-9)
    assert flag == "−" and np.allclose(out, tsum.tsum(g, 4), atol=1e-6)  # threshold 0.0022 < Δ̂ ≈ 2 + Lap(0.01)
    out, flag, dh = mechanisms.ptr_tmean(rng, g, F=4, tau=0.5, R=1, b=1, delta0=1e-8, sigma=1e-9)
    assert flag == "+" and np.allclose(out, g.sum(axis=0), atol=1e-6)  # threshold 17.7 ≫ Δ̂ ≈ 2 + Lap(1)
    with pytest.raises(DomainError):
        mechanisms.ptr_tmean(rng, 2 * g, F=4, tau=0.5, R=1, b=1, delta0=1e-8, sigma=1)
