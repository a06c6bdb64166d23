"""The exact A1 trade-off function (seed 002, Def. 4.2; Lemma C.5) and its profile (reference/bc/mixture.py): the
notes' vectors (shared/notes/batch-clipping-fdp.md §5.2, §5.3, §5.5, §5.6), symmetry f(f(α)) = α, the conjugate
identity between f and δ, the c = 0 atom and the dropped mass, and the bad-input errors of the statements."""
from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.base.fdp import gdp_profile, gdp_tradeoff
from dpspec.reference.bc import mixture, qe
from dpspec.reference.errors import ConditionError, DomainError

catalogue.load_all()
SS = dict(sampling="subsampling", N=400, m=4, s=1, g=1, E=4, sigma=1)  # notes §5.2: E = 4, N/(sm) = 100, σ = 1


@pytest.fixture(autouse=True)
def _fifty_digits():
    with mpmath.workdps(50):
        yield


def _law():
    return qe.qe_law("subsampling", 400, 4, 1, 1, 4)


# ---------------------------------------------------------------------------------------------------------------
# The notes' vectors


def test_def4_2_vectors_of_the_notes():
    """notes §5.2, Def. 4.2, A1 SS g = 1, E = 4, N/(sm) = 100, σ = 1."""
    st = catalogue.get("bc.def4_2")
    for alpha, printed in (("0.05", 0.3946041546), ("0.1", 0.2751150362), ("0.5", 0.0257860361)):
        assert float(st(alpha=alpha, **SS)) == pytest.approx(printed, abs=1e-10)


def test_a1_profile_vectors_of_the_notes():
    """notes §5.2: δ(0, 0.5, 1, 2, 4) = 0.6465318, 0.5603288, 0.4732816, 0.3150561, 0.1100583; and the exact A1 f is
    not G_{√E/σ} = G_2-DP: δ_{G_2}(4) = 0.0849533 < δ(4)."""
    st = catalogue.get("bc.a1_profile")
    for eps, printed in ((0, 0.6465318), ("0.5", 0.5603288), (1, 0.4732816), (2, 0.3150561), (4, 0.1100583)):
        assert float(st(eps=eps, **SS)) == pytest.approx(printed, abs=1e-7)
    assert float(gdp_profile(4, 2)) == pytest.approx(0.0849533, abs=1e-7)
    assert st(eps=4, **SS) > gdp_profile(4, 2)


def test_a1_epsilon_e16_sigma4():
    """notes §5.3 second table, column "exact A1 f": E = 16, σ = 4, N/(sm) = 100 → ε(1e-5) = 4.9348 (above the
    paper's F.6 lower-bound value 4.8139: the F.6 guarantee is violated)."""
    eps = catalogue.get("bc.a1_epsilon")(delta="1e-5", sampling="subsampling", N=1600, m=16, s=1, g=1, E=16, sigma=4)
    assert float(eps) == pytest.approx(4.9348, abs=6e-5)
    assert eps > mpf("4.8139")


def test_a1_epsilon_e100_sigma2():
    """notes §5.3: E = 100, σ = 2 → 35.0088 (about 3 s: the law has ~350 atoms, self-checked at two precisions)."""
    eps = catalogue.get("bc.a1_epsilon")(delta="1e-5", sampling="subsampling", N=1600, m=16, s=1, g=1, E=100, sigma=2)
    assert float(eps) == pytest.approx(35.0088, abs=6e-5)


@pytest.mark.parametrize("g, E, sigma, true, be", [(3, 10, 2, 14.7547, 14.6791), (5, 10, 3, 12.1286, 11.9975)])
def test_shuffling_bc_true_and_bose_einstein_epsilons(g, E, sigma, true, be):
    """notes §5.5 table (N/s = 100, s = 64, δ = 1e-5): the true occupancy law gives the "true" column; the printed
    Bose–Einstein q_j (E-fold convolved here) the "BE" column, smaller (too optimistic); both below G_{√(gE)/σ}'s
    ε (c² ≤ gE always for BC with shuffling)."""
    eps = catalogue.get("bc.a1_epsilon")(delta="1e-5", sampling="shuffling", N=6400, m=1, s=64, g=g, E=E, sigma=sigma)
    assert float(eps) == pytest.approx(true, abs=6e-5)
    q = qe.bc_shuffling_bose_einstein(6400, 64, g)
    pmf = {j: x for j, x in enumerate(q) if x}
    for _ in range(E - 1):
        nxt = {}
        for a, pa in pmf.items():
            for b, pb in enumerate(q):
                if pb:
                    nxt[a + b] = nxt.get(a + b, 0) + pa * pb
        pmf = nxt
    support = tuple(sorted(pmf))
    eps_be = mixture.mixture_epsilon((support, tuple(pmf[k] for k in support)), sigma, mpf("1e-5"))
    assert float(eps_be) == pytest.approx(be, abs=6e-5)
    assert eps_be < eps
    assert mixture.mixture_delta(qe.qe_law("shuffling", 6400, 1, 64, g, E), sigma, eps) <= gdp_profile(
        eps, mpmath.sqrt(g * E) / sigma)


def test_shuffling_bc_781():
    """notes §5.5 third row: N/s = 781, s = 64, g = 2, E = 100, σ = 2 → 54.3528."""
    eps = catalogue.get("bc.a1_epsilon")(delta="1e-5", sampling="shuffling", N=781 * 64, m=1, s=64, g=2, E=100,
                                         sigma=2)
    assert float(eps) == pytest.approx(54.3528, abs=6e-5)


def test_paper_setting_n50000():
    """notes §5.6, A1 subsampling, exact f, N = 50000, sm = 64, E = 100, σ = 2: ε(1e-5) = 35.025. N/(sm) = 781.25
    is not an integer (outside ROUNDS_INTEGER); the notes take T = E·N/(sm) = 78125 rounds with p = sm/N, which is
    what the binomial law below is."""
    law = qe._binomial_law(78125, Fraction(64, 50000), 6)
    assert float(mixture.mixture_epsilon(law, 2, mpf("1e-5"))) == pytest.approx(35.025, abs=6e-4)


def test_shuffling_g1_is_gaussian():
    """Lemma G.2: shuffling with g = 1 is exactly G_{√E/σ} (c² = E)."""
    p = dict(sampling="shuffling", N=64, m=4, s=2, g=1, E=9, sigma=2)
    assert abs(catalogue.get("bc.a1_profile")(eps="1.5", **p) - gdp_profile(mpf("1.5"), mpf(3) / 2)) < mpf(10) ** -45
    assert abs(catalogue.get("bc.def4_2")(alpha="0.2", **p) - gdp_tradeoff(mpf("0.2"), mpf(3) / 2)) < mpf(10) ** -45


# ---------------------------------------------------------------------------------------------------------------
# Structure


@pytest.mark.parametrize("alpha", ["0.001", "0.01", "0.0179", "0.3", "0.7", "0.99"])
def test_symmetry_f_of_f_is_identity(alpha):
    """f is symmetric (notes §4.3): f(f(α)) = α, including in the slope −1 segment of the c = 0 atom."""
    law = _law()
    f = mixture.mixture_tradeoff(law, 1, alpha)
    assert abs(mixture.mixture_tradeoff(law, 1, f) - mpf(alpha)) < mpf(10) ** -40


def test_slope_minus_one_segment_of_the_c0_atom():
    """Λ = 0 on an α-interval of length q_E(0): there f(α) + α is constant (notes §2.4)."""
    law = _law()
    mix = mixture._Mixture(law, 1)
    r0 = mix.R(mpf(0))
    a1, a2 = 1 - r0 - mix.q0 * mpf("0.9"), 1 - r0 - mix.q0 * mpf("0.1")
    f1, f2 = mixture.mixture_tradeoff(law, 1, a1), mixture.mixture_tradeoff(law, 1, a2)
    assert abs((f1 + a1) - (f2 + a2)) < mpf(10) ** -45
    # outside the segment the slope is steeper on the left
    a0 = a1 - mix.q0
    assert mixture.mixture_tradeoff(law, 1, a0) + a0 > f1 + a1


def test_end_points_and_convexity():
    law = _law()
    assert mixture.mixture_tradeoff(law, 1, 0) == 1 - law.dropped
    assert mixture.mixture_tradeoff(law, 1, 1) == 0
    grid = [mpf(k) / 20 for k in range(21)]
    f = [mixture.mixture_tradeoff(law, 1, a) for a in grid]
    assert all(x >= y for x, y in zip(f, f[1:]))
    assert all(f[i - 1] - 2 * f[i] + f[i + 1] >= -mpf(10) ** -40 for i in range(1, 20))
    assert all(fi <= 1 - a for fi, a in zip(f, grid))


@pytest.mark.parametrize("eps", ["0", "0.5", "2", "6"])
def test_profile_is_the_conjugate_of_the_tradeoff(eps):
    """δ(ε) = sup_α 1 − f(α) − e^ε α, attained at Λ = ε: α* = 1 − R(ε) − q0, f(α*) = B(ε) + q0 (for ε > 0). δ is
    computed from the per-component profiles (base.gdp_profile's helper), the right side from Φ sums: two routes."""
    law = _law()
    mix = mixture._Mixture(law, 1)
    e = mpf(eps)
    if e > 0:
        alpha_star = 1 - mix.R(e) - mix.q0
        f_star = mix.B(e) + mix.q0
    else:
        alpha_star, f_star = 1 - mix.R(mpf(0)), mix.B(mpf(0))
    rhs = 1 - f_star - mpmath.exp(e) * alpha_star
    assert abs(mixture.mixture_delta(law, 1, e) - rhs) < mpf(10) ** -40
    assert abs(mixture.mixture_tradeoff(law, 1, alpha_star) - f_star) < mpf(10) ** -40


def test_epsilon_inverts_the_profile():
    law = _law()
    for delta in ("0.3", "1e-3", "1e-12"):
        e = mixture.mixture_epsilon(law, 1, delta)
        assert abs(mixture.mixture_delta(law, 1, e) / mpf(delta) - 1) < mpf(10) ** -35
    assert mixture.mixture_epsilon(law, 1, "0.9") == 0  # δ(0) = 0.6465 ≤ 0.9


def test_negative_eps_profile():
    """δ(ε) for ε < 0 is 1 − e^ε + e^ε δ(−ε) for each component and the c = 0 atom (δ_{G_0}(ε) = 1 − e^ε)."""
    law = _law()
    e = mpf("-0.7")
    rhs = -mpmath.expm1(e) + mpmath.exp(e) * mixture.mixture_delta(law, 1, -e)
    assert abs(mixture.mixture_delta(law, 1, e) - rhs) < mpf(10) ** -40


def test_c0_only_law_and_dropped_mass():
    only0 = ((0,), (mpf(1),))
    assert mixture.mixture_tradeoff(only0, 1, "0.3") == mpf("0.7")
    assert mixture.mixture_delta(only0, 1, 1) == 0
    assert mixture.mixture_epsilon(only0, 1, "1e-9") == 0
    # a law with mass d at c² = +inf: f(0) = 1 − d, f = 0 once 1 − α ≤ d, δ ≥ d everywhere, ε(δ ≤ d) = inf
    d = mpf("1e-3")
    law = qe.Law((0, 4), (mpf("0.5"), mpf("0.5") - d), d)
    assert mixture.mixture_tradeoff(law, 1, 0) == 1 - d
    assert mixture.mixture_tradeoff(law, 1, 1 - d / 2) == 0
    assert mixture.mixture_delta(law, 1, 50) >= d
    assert mixture.mixture_epsilon(law, 1, d / 2) == mpf("inf")


def test_statement_values_do_not_depend_on_the_drop_threshold():
    """A tiny δ(ε) (σ = 50, ε = 20) is far below the default dropped mass: the statement recomputes q_E with more
    digits, so the self-check (two precisions) agrees, and the value is the finite part alone."""
    st = catalogue.get("bc.a1_profile")
    v = st.evaluate(dps=30, eps=20, **{**SS, "sigma": 50}).value
    assert 0 < v < mpf(10) ** -1000
    e = catalogue.get("bc.a1_epsilon").evaluate(dps=30, delta="1e-200", **SS).value
    assert mpmath.isfinite(e) and e > 200


# ---------------------------------------------------------------------------------------------------------------
# Bad input: one clear error each


@pytest.mark.parametrize("sid, axis", [("bc.def4_2", {"alpha": "0.1"}), ("bc.a1_profile", {"eps": 1}),
                                       ("bc.a1_epsilon", {"delta": "1e-5"})])
@pytest.mark.parametrize("change, cls, words", [
    (dict(N=10, m=4, s=3), ConditionError, "batch_fits"),
    (dict(N=12, m=2, s=2, g=13), ConditionError, "group_fits"),
    (dict(N=10, m=2, s=2), ConditionError, "rounds_integer"),
    (dict(E=0), DomainError, "E=0"),
    (dict(sigma=0), DomainError, "sigma=0"),
    (dict(sigma=-1), DomainError, "sigma=-1"),
])
def test_bad_inputs(sid, axis, change, cls, words):
    with pytest.raises(cls, match=words) as info:
        catalogue.get(sid).evaluate(**axis, **{**SS, **change})
    if cls is ConditionError:
        assert len(info.value.failed) == (2 if words == "batch_fits" else 1)  # ms > N: N/(ms) ∉ ℤ as well


def test_direct_calls_check_their_arguments():
    with pytest.raises(DomainError, match="alpha="):
        mixture.mixture_tradeoff(_law(), 1, "1.5")
    with pytest.raises(DomainError, match="sigma="):
        mixture.mixture_delta(_law(), 0, 1)
    with pytest.raises(DomainError, match="delta="):
        mixture.mixture_epsilon(_law(), 1, 0)
