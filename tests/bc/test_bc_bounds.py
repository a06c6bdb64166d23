"""Seed 002 bound functions (reference/bc/bounds.py): Defs. 4.3/4.4 (f̂U, fU, f̂L, fL), their (ε, δ) closed forms
checked against the supremum definition, Thms 4.5/4.6 and Lemmas C.2/C.3 with exact tails against the exact A1 f
(bc.def4_2). Test vectors: notes shared/notes/batch-clipping-fdp.md §5.2 (Def 4.3 / Def 4.4 rows)."""
import mpmath
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from mpmath import mp, mpf

from dpspec.reference import catalogue
from dpspec.reference.base.fdp import gdp_tradeoff
from dpspec.reference.base.gaussian import delta_shift
from dpspec.reference.bc import bounds as b
from dpspec.reference.bc.mixture import a1_profile, def4_2
from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.precision import _inside


def close(x, y, rel=1e-6, abs_=0.0):
    return abs(mpf(x) - mpf(y)) <= max(rel * abs(mpf(y)), abs_)


# ---------------------------------------------------------------------------------------------------------------
# notes §5.2 vectors

def test_def4_3_vectors_cu2_u005():
    beta0, beta1 = b.fu_betas(mpf(2), mpf("0.05"), mpf(1))
    assert close(beta0, "0.1525290856", 1e-9) and close(beta1, "0.2066935331", 1e-9)
    for alpha, want in (("0.1", "0.2744284"), ("0.18", "0.1792226"), ("0.5", "0.0265573")):
        assert close(b.fu(mpf(alpha), 2, mpf("0.05"), 1), want, 1e-6)
    for eps, want in ((0, "0.6407774"), (1, "0.4755133"), (3, "0.1686090")):
        assert close(b.fu_delta(eps, 2, mpf("0.05"), 1), want, 1e-6)


def test_def4_3_vectors_cu1_u03():
    beta0, beta1 = b.fu_betas(mpf(1), mpf("0.3"), mpf(1))
    assert close(beta0, "0.195812", 1e-5) and close(beta1, "0.610112", 1e-5)
    assert close(b.fu_delta(0, 1, mpf("0.3"), 1), "0.1940760", 1e-6)
    assert close(b.fu_delta(1, 1, mpf("0.3"), 1), "0.0509569", 1e-5)


def test_def4_4_vectors():
    assert close(b.fl_beta(2, mpf("0.05"), 1), "0.1349444421", 1e-9)
    for alpha, want in (("0.05", "0.311239969"), ("0.3", "0.053190056"), ("0.9", "1.33772e-4")):
        assert close(b.fl(mpf(alpha), 2, mpf("0.05"), 1), want, 1e-6)
    for eps, want in ((0, "0.7301111"), (1, "0.5598617"), (3, "0.2338131")):
        assert close(b.fl_delta(eps, 2, mpf("0.05"), 1), want, 1e-6)
    assert close(b.fl_beta(1, mpf("0.3"), 1), "0.174577", 1e-5)
    for eps, want in ((0, "0.6508458"), (1, "0.4269367"), (3, "0.3015372")):
        assert close(b.fl_delta(eps, 1, mpf("0.3"), 1), want, 1e-6)


# ---------------------------------------------------------------------------------------------------------------
# the (ε, δ) closed forms against δ(ε) = sup_α [1 − f(α) − e^ε α] (an independent grid + golden-section search)

def _sup(g):
    """max of a concave g on [0, 1]: a log- and linear grid, then golden section in the best cell. The evaluators run
    once each (as nested in a self-checked one): the search itself is the check here."""
    token = _inside.set(True)
    try:
        return _sup_search(g)
    finally:
        _inside.reset(token)


def _sup_search(g):
    xs = sorted({mpf(0), mpf(1)} | {mpf(10) ** (-mpf(k) / 4) for k in range(1, 64)}
                | {mpf(k) / 50 for k in range(1, 50)})
    vals = [g(x) for x in xs]
    i = max(range(len(xs)), key=lambda j: vals[j])
    lo, hi = xs[max(i - 1, 0)], xs[min(i + 1, len(xs) - 1)]
    r = (mpmath.sqrt(5) - 1) / 2
    c, d = hi - r * (hi - lo), lo + r * (hi - lo)
    gc, gd = g(c), g(d)
    for _ in range(50):
        if gc >= gd:
            hi, d, gd = d, c, gc
            c = hi - r * (hi - lo)
            gc = g(c)
        else:
            lo, c, gc = c, d, gd
            d = lo + r * (hi - lo)
            gd = g(d)
    return max(vals[i], gc, gd)


CASES = [(2, "0.05", 1), (1, "0.3", 1), (5, "0.2", 1), (1, "0.9", 1), ("0.7", "1e-4", "0.5")]
SUP_CASES = [(c, t, sigma, eps) for (c, t, sigma), eps in zip(CASES * 2, [0, "0.3", 2, 5, 1, 3, "0.1", 4, 6, "0.5"])]


@pytest.mark.parametrize("c, t, sigma, eps", SUP_CASES)
def test_profiles_equal_the_supremum_definition(c, t, sigma, eps):
    """notes §2.5/§2.6 closed forms: verified here, not trusted. The search works with 20 digits beyond those that
    1 − f(α) − e^ε α cancels (about log10(1/δ))."""
    c, t, sigma, eps = mpf(c), mpf(t), mpf(sigma), mpf(eps)
    closed_u, closed_l = b.fu_delta(eps, c, t, sigma), b.fl_delta(eps, c, t, sigma)
    for closed, f in ((closed_u, b.fu), (closed_l, b.fl)):
        with mp.workdps(20 + max(0, int(-mpmath.log10(closed)))):
            k = mpmath.exp(eps)
            assert close(closed, _sup(lambda a: 1 - f(a, c, t, sigma) - k * a), 1e-8)


def test_profile_of_fu_is_the_larger_of_its_two_directions():
    """fU = min{f̂U, f̂U^{-1}}** (D.14), so δ_{fU} = max(δ_{f̂U}, δ_{f̂U^{-1}}), f̂U^{-1}(α) = G_μ((α−u)/(1−u)) (1 for
    α ≤ u): for ε ≥ 0 the f̂U direction is the larger (notes §2.5), and the two agree at ε = 0 (slope −1)."""
    c, u, sigma = mpf(1), mpf("0.3"), mpf(1)
    fu_hat_inv = lambda a: mpf(1) if a <= u else gdp_tradeoff((a - u) / (1 - u), c)
    with mp.workdps(20):
        for eps in (mpf(0), mpf(1)):
            k = mpmath.exp(eps)
            own = _sup(lambda a: 1 - b.fu_hat(a, c, u, sigma) - k * a)
            inverse = _sup(lambda a: 1 - fu_hat_inv(a) - k * a)
            assert close(b.fu_delta(eps, c, u, sigma), own, 1e-8)
            if eps == 0:
                assert close(own, inverse, 1e-8)
            else:
                assert inverse < own * mpf("0.9")


@pytest.mark.parametrize("c, t, sigma", CASES)
@pytest.mark.parametrize("delta", ["1e-2", "1e-6", "0.5"])
def test_eps_inverts_delta(c, t, sigma, delta):
    c, t, sigma, delta = mpf(c), mpf(t), mpf(sigma), mpf(delta)
    eu = b.fu_eps(delta, c, t, sigma)
    if eu > 0:
        assert close(b.fu_delta(eu, c, t, sigma), delta, 1e-12)
    else:
        assert b.fu_delta(0, c, t, sigma) <= delta
    el = b.fl_eps(delta, c, t, sigma)
    if delta <= t:
        assert mpmath.isinf(el)
    elif el > 0:
        assert close(b.fl_delta(el, c, t, sigma), delta, 1e-12)
        assert b.fl_delta(el * (1 - mpf("1e-6")), c, t, sigma) > delta
    else:
        assert b.fl_delta(0, c, t, sigma) <= delta


# ---------------------------------------------------------------------------------------------------------------
# trade-off axioms, symmetry, ordering

ALPHAS = [mpf(k) / 32 for k in range(33)]  # dyadic: exactly equally spaced


def _axioms(f):
    """0 ≤ f ≤ 1 − α, non-increasing, convex on a grid (to rounding at 25 digits)."""
    tol = mpf(10) ** -20
    vals = [f(a) for a in ALPHAS]
    for a, v in zip(ALPHAS, vals):
        assert 0 <= v <= 1 - a + tol
    assert all(x >= y - tol for x, y in zip(vals, vals[1:]))
    assert all(vals[i - 1] - 2 * vals[i] + vals[i + 1] >= -tol for i in range(1, len(vals) - 1))
    assert vals[0] > vals[-1]


@settings(max_examples=8, deadline=None, phases=(Phase.explicit, Phase.reuse, Phase.generate))
@given(c=st.floats(0.05, 8), t=st.floats(0, 0.95), sigma=st.floats(0.2, 5))
def test_fu_fl_are_symmetric_tradeoff_functions(c, t, sigma):
    with mp.workdps(25):
        c, t, sigma = mpf(c), mpf(t), mpf(sigma)
        _axioms(lambda a: b.fu(a, c, t, sigma))
        _axioms(lambda a: b.fl(a, c, t, sigma))
        for a in (mpf("0.001"), mpf("0.2"), mpf("0.6")):
            assert close(b.fu(b.fu(a, c, t, sigma), c, t, sigma), a, 1e-15, 1e-20)
            if a < 1 - t:
                assert close(b.fl(b.fl(a, c, t, sigma), c, t, sigma), a, 1e-15, 1e-20)
            assert b.fl_hat(a, c, t, sigma) <= b.fl(a, c, t, sigma) + mpf(10) ** -20
            assert b.fu(a, c, t, sigma) <= b.fu_hat(a, c, t, sigma) + mpf(10) ** -20


def test_pieces_meet_at_the_kinks():
    with mp.workdps(50):
        c, u, sigma = mpf(2), mpf("0.2"), mpf("1.5")
        beta0, beta1 = b.fu_betas(c, u, sigma)
        assert close(b.fu_hat(beta0, c, u, sigma), beta1, 1e-30)  # f̄(β0) = β1 (D.14)
        assert close(b.fu(beta1, c, u, sigma), gdp_tradeoff((beta1 - u) / (1 - u), c / sigma), 1e-30)
        assert close(gdp_tradeoff((beta1 - u) / (1 - u), c / sigma), beta0, 1e-30)  # f̄(β1) = β0
        beta = b.fl_beta(c, u, sigma)
        assert close(b.fl(beta, c, u, sigma), beta, 1e-30) and close(b.fl_hat(beta, c, u, sigma), beta, 1e-30)


def test_limits_u_l_zero_and_one():
    with mp.workdps(50):
        c, sigma, a = mpf(2), mpf(1), mpf("0.3")
        assert close(b.fu(a, c, 0, sigma), gdp_tradeoff(a, 2), 1e-40)
        assert close(b.fl(a, c, 0, sigma), gdp_tradeoff(a, 2), 1e-40)
        assert b.fu(a, c, 1, sigma) == 1 - a and b.fu_delta(1, c, 1, sigma) == 0
        assert b.fl(a, c, 1, sigma) == 0 and b.fl_delta(3, c, 1, sigma) == 1
        assert close(b.fu_delta(1, c, 0, sigma), delta_shift(1, 2), 1e-40)
        assert close(b.fl_delta(1, c, 0, sigma), delta_shift(1, 2), 1e-40)


def test_fl_beta_keeps_relative_precision_near_l_one():
    with mp.workdps(50):
        beta = b.fl_beta(1, 1 - mpf("1e-30"), 1)  # G(β) − l = β with β ~ 1e-31: a [0, 1] bisection would give 0
        assert 0 < beta < mpf("1e-29")
        with mp.workdps(120):  # the check cancels 36 digits of its own
            assert close(gdp_tradeoff(beta, 1) - (1 - mpf("1e-30")), beta, 1e-12)


def test_monotone_in_the_tail_mass():
    c, sigma, a = mpf("1.5"), mpf(1), mpf("0.15")
    us = [mpf(x) for x in ("0", "0.01", "0.1", "0.5")]
    fu_vals = [b.fu(a, c, u, sigma) for u in us]
    fl_vals = [b.fl(a, c, u, sigma) for u in us]
    assert fu_vals == sorted(fu_vals) and fl_vals == sorted(fl_vals, reverse=True)
    assert fu_vals[0] < fu_vals[-1] and fl_vals[0] > fl_vals[-1]


# ---------------------------------------------------------------------------------------------------------------
# Theorems 4.5 / 4.6, Lemmas C.2 / C.3 with exact tails against the exact A1 f (notes §5.3 last sentence)

CONFIGS = [("subsampling", 400, 4, 1, 1, 4, 1, 1, mpf(6) ** mpf("0.5")),  # c² ~ Bin(400, 0.01)
           ("subsampling", 60, 3, 2, 2, 2, "0.8", mpf(2), mpf(8) ** mpf("0.5")),
           ("shuffling", 64, 1, 8, 3, 3, "1.2", mpf(8) ** mpf("0.5"), 3)]


@pytest.mark.parametrize("sampling, N, m, s, g, E, sigma, c_U, c_L", CONFIGS)
def test_sandwich_with_exact_tails(sampling, N, m, s, g, E, sigma, c_U, c_L):
    kw = dict(sampling=sampling, N=N, m=m, s=s, g=g, E=E, sigma=mpf(sigma))
    with mp.workdps(20):
        for a in [mpf(k) / 7 for k in range(1, 7)] + [mpf("1e-4")]:
            f = def4_2(a, **kw)
            lo_hat = catalogue.get("bc.lemma_c2")(alpha=a, c_L=c_L, **kw)
            lo = catalogue.get("bc.thm4_6")(alpha=a, c_L=c_L, **kw)
            hi = catalogue.get("bc.thm4_5")(alpha=a, c_U=c_U, **kw)
            hi_c3 = catalogue.get("bc.lemma_c3")(alpha=a, c_U=c_U, **kw)
            u = b.exact_tail_below(sampling, N, m, s, g, E, c_U * c_U)
            hi_hat = b.fu_hat(a, c_U, u, mpf(sigma))
            tol = mpf(10) ** -15
            assert lo_hat <= lo + tol and lo <= f + tol and f <= hi + tol and hi <= hi_hat + tol, a
            assert f <= hi_c3 + tol and hi_c3 <= hi_hat + tol, a
        for eps in (0, 1, 3):
            d = a1_profile(eps, **kw)
            assert catalogue.get("bc.thm4_5_profile")(eps=eps, c_U=c_U, **kw) <= d + mpf(10) ** -15
            assert d <= catalogue.get("bc.thm4_6_profile")(eps=eps, c_L=c_L, **kw) + mpf(10) ** -15


def test_sandwich_is_not_vacuous():
    """The exact tails matter: with the tails set to 0 the 'bounds' are G at the cut and the A1 f crosses them."""
    kw = dict(sampling="subsampling", N=400, m=4, s=1, g=1, E=4, sigma=mpf(1))
    a = mpf("0.01")
    f = def4_2(a, **kw)
    assert b.fl(a, mpf(2) ** mpf("0.5"), 0, 1) > f  # a cut below E[c²] = 4 without l overstates privacy
    assert b.fu(a, mpf(6) ** mpf("0.5"), 0, 1) < f  # a cut above it without u is no upper bound
    kw.pop("sigma")
    lower = b.thm4_6(a, sigma=1, c_L=mpf(2) ** mpf("0.5"), **kw)
    assert lower <= f <= b.thm4_5(a, sigma=1, c_U=mpf(6) ** mpf("0.5"), **kw)


def test_conditions_and_domains():
    st45 = catalogue.get("bc.thm4_5")
    with pytest.raises(ConditionError, match="batch_fits"):
        st45(alpha="0.1", sampling="subsampling", N=10, m=4, s=4, g=1, E=1, sigma=1, c_U=1)
    with pytest.raises(DomainError):
        st45(alpha="0.1", sampling="subsampling", N=16, m=4, s=4, g=1, E=1, sigma=1, c_U=0)
    with pytest.raises(DomainError):
        catalogue.get("bc.def4_3")(alpha="0.1", c_U=1, u="1.5", sigma=1)
    with pytest.raises(DomainError):
        catalogue.get("bc.def4_4")(alpha="0.1", c_L=1, l="0.1", sigma=0)
    with pytest.raises(DomainError):
        catalogue.get("bc.thm4_6")(alpha="0.1", sampling="subsampling", N=16, m=4, s=4, g=1, E=0, sigma=1, c_L=1)


def test_catalogue_entries_evaluate_at_their_examples():
    ids = ["bc.def4_3", "bc.def4_3_hat", "bc.def4_3_profile", "bc.def4_4", "bc.def4_4_hat", "bc.def4_4_profile",
           "bc.thm4_5", "bc.thm4_6", "bc.thm4_5_profile", "bc.thm4_6_profile", "bc.lemma_c2", "bc.lemma_c3"]
    for i in ids:
        st_ = catalogue.get(i)
        v = st_.evaluate(dps=20, **st_.example_params()).value
        assert 0 <= v <= 1, i


def test_cut_beyond_every_c2_has_an_exact_zero_tail():
    """qe.py drops entries below 10^−(dps+30) to c² = +∞; a cut beyond every possible c² must not see that
    (precision-dependent) mass: at μ = 400 it made G_μ(l) differ between the self-check's two precisions."""
    assert b.c2_max("subsampling", 894, 3, 1, 4, 1) == 298 * 9
    assert b.c2_max("shuffling", 64, 2, 2, 3, 5) == 5 * 3 * 2
    assert b.exact_tail_above("subsampling", 894, 3, 1, 4, 1, 2682) == 0
    assert b.exact_tail_above("subsampling", 894, 3, 1, 4, 1, 2681) > 0
    v = catalogue.get("bc.lemma_c2").evaluate(alpha=0, sampling="subsampling", N=894, m=3, s=1, g=4, E=1,
                                              sigma="0.25", c_L=100).value
    assert v == 1


def test_a_tail_holding_every_c_is_exactly_one():
    """Where every c² of q_E lies above the cut (shuffling, N = 8 = 2·ms: c² ≥ 2·E), l is exactly 1 (the complement of
    the empty side), not a sum of masses 1 − O(10^-dps) that differs between the self-check's two precisions, and
    Thm 4.6's fL(0) = 1 − l is 0 at both."""
    from mpmath import mpf

    from dpspec.reference.bc import bounds as rb
    assert rb.exact_tail_above("shuffling", 8, 2, 2, 2, 5, mpf("0.25")) == 1
    thm = catalogue.get("bc.thm4_6")
    for dps in (30, 60):
        assert thm.evaluate(dps=dps, alpha=0, sampling="shuffling", N=8, m=2, s=2, g=2, E=5, sigma=1, c_L="0.5").value == 0
    law = rb.qe_law("subsampling", 400, 4, 1, 1, 4)
    # a large tail equals the plain sum to the working precision (the complement changes rounding only)
    assert abs(rb.exact_tail_above("subsampling", 400, 4, 1, 1, 4, mpf(1)) - law.tail_above(1)) < mpf(10) ** -40
