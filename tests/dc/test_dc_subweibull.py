"""dc sub-Weibull facts (helper A): seed 004 Def A.1, Assumption 3.1 (Orlicz K̂), Lemmas A.1, A.2, A.3, A.6, and the θ
test of notes shared/notes/dc-dpsgd.md §2-test/§4.5. Test vectors from notes §2 (a(θ), b(θ), g(θ) value lists, the
Lemma A.2 Monte Carlo "≤ 0.26 × bound", the §2-test simulation numbers); Monte Carlo on numpy Generators with fixed
seeds (sample sizes and confidence stated per test); fast (torch) against reference (mpmath)."""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import torch
from mpmath import mpf

from dpspec.fast.dc import subweibull as F
from dpspec.reference import catalogue
from dpspec.reference.dc import subweibull as R
from dpspec.reference.errors import ConditionError, DomainError, ParameterError
from tests._helpers import assert_fast_matches_at, assert_fast_matches_reference

catalogue.load_all()
Z = 5.0  # one-sided normal quantile of the Monte Carlo checks: level 2.9e-7 per check


@pytest.fixture(autouse=True)
def _thirty_digits():
    with mpmath.workdps(30):
        yield


def ev(sid, variant=None, allow_outside=False, **params):
    return catalogue.get(sid).evaluate(dps=30, variant=variant, allow_outside=allow_outside, **params)


def rel(a, b):
    return abs(mpf(a) - mpf(b)) / abs(mpf(b))


# ---------------------------------------------------------------------------------------------------------------
# notes §2 value lists (printed to 3–5 significant digits: tolerance half a unit in the last printed digit)

A_VALUES = [("0.5", "2", 0), ("0.5000000001", "14.78", 0.005), ("0.6", "21.13", 0.005), ("0.75", "38.39", 0.005),
            ("1", "118.2", 0.05), ("1.0000000001", "36.0", 0.05), ("1.5", "502.8", 0.05), ("2", "16176", 0.5),
            ("3", "6.20e7", 0.005e7)]


@pytest.mark.parametrize("theta, expected, half_unit", A_VALUES)
def test_freedman_a_notes_values(theta, expected, half_unit):
    assert abs(R.freedman_a(theta) - mpf(expected)) <= mpf(half_unit) + mpf(10) ** -25


def test_freedman_b_notes_values():
    assert abs(R.freedman_b("0.75") - mpf("6.196")) <= mpf("0.0005")
    assert abs(R.freedman_b(1) - mpf("10.873")) <= mpf("0.0005")
    assert abs(R.freedman_b("1.0000000001", n=10**4, delta="1e-5") - 2) <= mpf("1e-8")
    assert abs(R.freedman_b("1.5", n=10**4, delta="1e-5") - mpf("9.10")) <= mpf("0.005")
    assert abs(R.freedman_b(2, n=10**4, delta="1e-5") - mpf("41.45")) <= mpf("0.005")
    assert R.freedman_b("0.5") == 0  # the first case has no b
    # the printed reading 2·log(n)/δ^{θ−1} is far larger than the reconstructed one (the lemma's ranges shrink)
    printed = R.freedman_b(2, n=10**4, delta="1e-5", printed=True)
    assert rel(printed, 2 * mpmath.log(10**4) / mpf("1e-5")) < mpf(10) ** -25
    assert printed > 10**4 * R.freedman_b(2, n=10**4, delta="1e-5")
    with pytest.raises(ParameterError):
        R.freedman_b(2)


@pytest.mark.parametrize("theta, expected", [("0.5", "3.297"), ("1", "10.873"), ("1.5", "46.58"),
                                             ("2", "236.45"), ("3", "8677")])
def test_sum_constant_g_notes_values(theta, expected):
    digits = len(expected.replace(".", "").lstrip("0"))
    assert rel(R.sum_constant_g(theta), expected) <= 0.6 * 10 ** (1 - digits)


def test_g_continuous_at_one_and_closed_forms():
    assert R.sum_constant_g(1) == R.sum_constant_g(Fraction(1)) and rel(R.sum_constant_g(1), 4 * mpmath.e) < 1e-28
    up = R.sum_constant_g(1 + mpf(2) ** -60)
    assert rel(up, 4 * mpmath.e) < 1e-15  # the θ ≥ 1 branch 2(2eθ)^θ meets (4e)^θ at θ = 1


# ---------------------------------------------------------------------------------------------------------------
# E10: branch boundaries chosen from the exact θ


@pytest.mark.parametrize("half", [0.5, "0.5", Fraction(1, 2), mpf("0.5")])
def test_branch_half_is_first_case_for_every_input_type(half):
    assert R.freedman_case(half) == "half" and R.freedman_a(half) == 2


def test_branch_boundaries_exact():
    assert R.freedman_case(1) == R.freedman_case("1.0") == R.freedman_case(Fraction(1)) == "mid"
    assert rel(R.freedman_a(1), 16 * mpmath.e**2) < 1e-28
    above = math.nextafter(1.0, 2.0)
    assert R.freedman_case(above) == "heavy" and abs(R.freedman_a(above) - 36) < 1e-10
    just = "0.5" + "0" * 60 + "1"  # 1/2 + 10^-61: below any working precision, still the second case
    assert R.freedman_case(just) == "mid" and rel(R.freedman_a(just), 2 * mpmath.e**2) < 1e-25
    with pytest.raises(ConditionError):  # just below 1/2: outside the lemma, however close
        R.freedman_a(Fraction(1, 2) - Fraction(1, 10**80))
    with pytest.raises(ConditionError):
        R.freedman_a(math.nextafter(0.5, 0))
    # the fast path decides on float64 values the same way
    th = torch.tensor([0.5, math.nextafter(0.5, 1), 1.0, above], dtype=torch.float64)
    a = F.freedman_a(th)
    assert a[0].item() == 2 and abs(a[1].item() - 2 * math.e**2) < 1e-12
    assert abs(a[2].item() - 16 * math.e**2) < 1e-10 and abs(a[3].item() - 36) < 1e-9


def test_freedman_a_log_space_up_to_theta_20():
    for theta in ("5", "12.5", "20"):
        t = mpf(theta)
        direct = (2 ** (2 * t + 1) + 2) * mpmath.gamma(2 * t + 1) + 2 ** (3 * t) * mpmath.gamma(3 * t + 1) / 3
        assert rel(R.freedman_a(theta), direct) < 1e-27
    assert math.isfinite(F.freedman_a(20.0).item())
    assert abs(F.freedman_a(20.0).item() / float(R.freedman_a(20)) - 1) < 1e-12


# ---------------------------------------------------------------------------------------------------------------
# Def A.1, Lemma A.1, Lemma A.6 closed forms


@pytest.mark.parametrize("theta, K, delta", [("0.5", "1", "1e-3"), ("1", "2", "0.5"), ("2", "0.3", "1e-300"),
                                             ("20", "1", "1e-5")])
def test_lemma_a1_inverts_def_a1(theta, K, delta):
    t = ev("dc.lemma_a1", theta=theta, K=K, delta=delta).value
    assert rel(ev("dc.def_a1", theta=theta, K=K, t=t).value, delta) < 1e-25


def test_def_a1_extreme_exponents_keep_precision():
    # (t/K)^{1/θ} = 10^60: e^{-10^60} must still be returned to full relative precision (self-checked)
    v = ev("dc.def_a1", theta="0.05", K="1", t="1000").value
    assert mpmath.log10(v) < -1e59


def test_weibull_exact_tail_at_lemma_a1_quantile():
    """Notes §2 Lemma A.1: Weibull(1/θ, λ) with K = 2^θλ: P(X > K log^θ(2/δ)) = (δ/2)² exactly."""
    for theta, lam, delta in (("0.5", "1", "0.1"), ("2", "3", "0.01")):
        K = 2 ** mpf(theta) * mpf(lam)
        t = R.tail_quantile(theta, K, delta)
        exact = mpmath.exp(-(t / mpf(lam)) ** (1 / mpf(theta)))
        assert rel(exact, (mpf(delta) / 2) ** 2) < 1e-25


@pytest.mark.parametrize("theta, p, slack", [("2", "2", "32"), ("0.5", "1", "2.83")])
def test_lemma_a6_weibull_slack(theta, p, slack):
    """Notes §2 Lemma A.6: E X^p = λ^pΓ(1 + pθ), K = 2^θλ, bound/exact = 2·2^{pθ} (32; 2.83)."""
    t, p_ = mpf(theta), mpf(p)
    lam = mpf("1.7")
    bound = ev("dc.lemma_a6", p=p, theta=theta, K=2**t * lam).value
    exact = lam**p_ * mpmath.gamma(1 + p_ * t)
    assert rel(bound / exact, 2 * 2 ** (p_ * t)) < 1e-25
    assert abs(bound / exact - mpf(slack)) <= mpf("0.005")


# ---------------------------------------------------------------------------------------------------------------
# Monte Carlo


def test_lemma_a1_monte_carlo():
    """Weibull(1/θ, λ = 1), K = 2^θ, δ = 0.1, N = 10^5 draws (seed 11): the empirical exceedance frequency of
    K log^θ(2/δ) is below δ and within Z standard errors of the exact (δ/2)² = 0.0025."""
    rng = np.random.default_rng(11)
    n, delta = 10**5, 0.1
    for theta in (0.5, 1.0, 2.0):
        t = float(R.tail_quantile(theta, 2**theta, delta))
        freq = float(np.mean(rng.weibull(1 / theta, n) > t))
        exact = (delta / 2) ** 2
        assert freq + Z * math.sqrt(exact * (1 - exact) / n) >= exact - 1e-12
        assert abs(freq - exact) <= Z * math.sqrt(exact * (1 - exact) / n)
        assert freq <= delta


def test_lemma_a2_monte_carlo_notes_ratio():
    """Notes §2 Lemma A.2: n = 20 iid Weibull(1/θ, 1) (K_i = 2^θ, the minimal scale), the empirical tail at the
    empirical quantiles 0.5–0.9999 is ≤ 0.26 × the bound, θ ∈ {0.5, 1, 2}. Here 10^5 sums (seed 12); at the 0.9999
    quantile the empirical tail is 10^-4 by construction, so the ratio is the bound's slack, not sampling noise."""
    rng = np.random.default_rng(12)
    for theta in (0.5, 1.0, 2.0):
        sums = rng.weibull(1 / theta, (10**5, 20)).sum(1)
        ratios = []
        for q in (0.5, 0.9, 0.99, 0.999, 0.9999):
            x = float(np.quantile(sums, q))
            emp = float(np.mean(sums >= x))
            bound = float(R.sum_tail_bound(theta, 20 * 2**theta, x))
            ratios.append(emp / bound)
        # the notes' "0.26" is rounded: at θ = 1 the sum is Gamma(20, 1) and the exact ratio at its median is
        # 0.5/bound(median) = 0.2616; the largest ratio is always at the median
        assert max(ratios) <= 0.265 and ratios[0] == max(ratios), (theta, ratios)
        if theta == 1.0:
            median = mpmath.findroot(lambda y: mpmath.gammainc(20, 0, y, regularized=True) - mpf(1) / 2, 19.67)
            exact = 0.5 / float(R.sum_tail_bound(1, 40, median))
            assert abs(exact - 0.2616) < 5e-5 and abs(ratios[0] - exact) < 0.005


def test_lemma_a6_monte_carlo():
    """Weibull(1/θ, λ = 1.3), N = 2·10^5 (seed 13): the sample moment E X^p lies within Z standard errors (from the
    exact variance λ^{2p}(Γ(1 + 2pθ) − Γ(1 + pθ)²)) of the exact moment, which is below Lemma A.6's bound."""
    rng = np.random.default_rng(13)
    n, lam = 2 * 10**5, 1.3
    for theta, p in ((0.5, 1.0), (1.0, 2.0), (2.0, 1.0)):
        x = rng.weibull(1 / theta, n) * lam
        exact = lam**p * math.gamma(1 + p * theta)
        sd = lam**p * math.sqrt(math.gamma(1 + 2 * p * theta) - math.gamma(1 + p * theta) ** 2)
        emp = float(np.mean(x**p))
        assert abs(emp - exact) <= Z * sd / math.sqrt(n)
        assert emp + Z * sd / math.sqrt(n) < float(R.moment_bound(p, theta, 2**theta * lam))


# ---------------------------------------------------------------------------------------------------------------
# the Orlicz scale K̂_θ (dc.a3_1) and the θ test


def test_orlicz_k_exact_definition():
    """K̂ solves (1/N)Σ exp((|x_i|/K)^{1/θ}) = 2 (reference at 30 digits); the numpy and torch values agree."""
    x = np.random.default_rng(3).weibull(1.0, 40) * 2.0
    for theta in ("0.5", "1", "3"):
        K = ev("dc.a3_1", samples=x, theta=theta).value
        mean = mpmath.fsum(mpmath.exp((abs(mpf(float(v))) / K) ** (1 / mpf(theta))) for v in x) / len(x)
        assert abs(mean - 2) < mpf(10) ** -25
        assert abs(R.orlicz_k(x, float(theta)) / float(K) - 1) < 1e-13
        assert abs(F.orlicz_k(torch.tensor(x), float(theta)).item() / float(K) - 1) < 1e-13


def test_orlicz_k_special_samples():
    assert R.orlicz_k(np.zeros(5), 1) == 0.0 and ev("dc.a3_1", samples=[0, 0], theta=1).value == 0
    one = ev("dc.a3_1", samples=[3.0], theta=2).value  # N = 1: e^{(3/K)^{1/2}} = 2 ⇒ K = 3/(log 2)²
    assert rel(one, 3 / mpmath.log(2) ** 2) < 1e-25
    assert rel(ev("dc.a3_1", samples=[-1.0, 2.0], theta=1).value, ev("dc.a3_1", samples=[1.0, 2.0], theta=1).value) \
        < 1e-28  # |x| (Def A.1 bounds |X|)
    with pytest.raises(ConditionError):
        ev("dc.a3_1", samples=[], theta=1)
    with pytest.raises(ConditionError):
        ev("dc.a3_1", samples=[[1.0, 2.0]], theta=1)
    with pytest.raises(ConditionError):
        ev("dc.a3_1", samples=[1.0, 2.0], theta="0.4")
    with pytest.raises(DomainError):
        ev("dc.a3_1", samples=[1.0, float("nan")], theta=1)
    with pytest.raises(ConditionError):
        F.a3_1(torch.tensor([]), 1.0)


def test_orlicz_k_weibull_at_1e5():
    """Notes §2-test: K̂_{θ0} at N = 10^5 is 1.408, 1.979, 3.949 against the exact 2^θλ = 1.414, 2, 4 (λ = 1). K̂ has
    no CLT (E e^{2(X/K)^{1/θ}} = ∞ at the true K); over 20 seeds the relative error at N = 10^5 stayed within
    [−2.6 %, +1.1 %], so a ±4 % window (seed 5) is the sampling-error check; the torch path agrees to 1e-12."""
    rng = np.random.default_rng(5)
    for theta in (0.5, 1.0, 2.0):
        x = rng.weibull(1 / theta, 10**5)
        k = R.orlicz_k(x, theta)
        assert abs(k / 2**theta - 1) <= 0.04
        assert abs(F.orlicz_k(torch.tensor(x), theta).item() / k - 1) < 1e-12


def test_growth_test_pareto_and_weibull():
    """Notes §2-test: Pareto(α = 1.5): K̂_1 grows (23 → 631 at N = 10^3 → 10^5); Weibull θ0 = 2: K̂_2 flat, K̂_{1/2}
    grows like (log N)^{3/2}. Nested prefixes of 10^5 draws (seed 1)."""
    rng = np.random.default_rng(1)
    pareto = rng.pareto(1.5, 10**5) + 1
    sizes, ks, slope, flat = R.growth_test(pareto, 1)
    assert list(sizes) == [10**3, 10**4, 10**5] and not flat and slope > 2 and ks[-1] > 5 * ks[0]
    w = rng.weibull(0.5, 10**5)
    assert R.growth_test(w, 2)[3] and not R.growth_test(w, 0.5)[3]
    fs, fk, fslope, fflat = F.growth_test(torch.tensor(pareto), 1)
    assert np.allclose(fk.numpy(), ks, rtol=1e-12) and abs(fslope - slope) < 1e-9 and fflat == flat
    alpha = R.hill_index(pareto)  # k = 10^4 order statistics: s.e. α/√k = 0.015
    assert abs(alpha - 1.5) <= Z * 1.5 / math.sqrt(10**4)
    assert abs(F.hill_index(torch.tensor(pareto)).item() / alpha - 1) < 1e-12


def test_weibull_plot_and_moment_slope():
    """Notes §2-test: Weibull-plot θ̂ at N = 10^4 ≈ θ0 (0.509, 0.989, 1.960); over 20 seeds it stayed within 3.2 % of
    θ0, so ±8 % (seed 7). The moment slope at N = 10^5 is biased low (notes 0.28, 0.66, 1.38): below θ0 and within
    0.1·θ0 + 0.05 of the notes' values (20-seed range 0.26–0.27, 0.64–0.69, 1.30–1.56)."""
    rng = np.random.default_rng(7)
    for theta, notes_slope in ((0.5, 0.28), (1.0, 0.66), (2.0, 1.38)):
        x = rng.weibull(1 / theta, 10**5)
        wp = R.theta_weibull_plot(x[:10**4])
        assert abs(wp / theta - 1) <= 0.08
        ms = R.theta_moment_slope(x)
        assert ms < theta and abs(ms - notes_slope) <= 0.1 * theta + 0.05
        assert abs(F.theta_weibull_plot(torch.tensor(x[:10**4])).item() / wp - 1) < 1e-10
        assert abs(F.theta_moment_slope(torch.tensor(x)).item() / ms - 1) < 1e-10


def test_theta_test_batched_rows():
    x = np.random.default_rng(9).weibull(1.0, (3, 2000))
    k = F.orlicz_k(torch.tensor(x), torch.tensor([0.5, 1.0, 2.0]))
    for i, theta in enumerate((0.5, 1.0, 2.0)):
        assert abs(k[i].item() / R.orlicz_k(x[i], theta) - 1) < 1e-12
    wp = F.theta_weibull_plot(torch.tensor(x))
    assert all(abs(wp[i].item() / R.theta_weibull_plot(x[i]) - 1) < 1e-10 for i in range(3))


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.3 conditions and variants


def test_lemma_a3_values_and_conditions():
    base = dict(x=100, alpha_f=50, beta_f=1000, lam="0.005", m_max=1, n=10**4, delta="1e-5")
    e = ev("dc.lemma_a3", theta=2, **base).value
    assert rel(e, mpmath.exp(mpf("-0.5") + 2 * mpf("0.005") ** 2 * 1000) + 2 * mpf("1e-5")) < 1e-25
    f = ev("dc.lemma_a3", theta=1, **{**base, "event": "F"}).value
    assert rel(f, mpmath.exp(mpf("-0.5") + mpf("0.005") ** 2 * 500)) < 1e-25  # no 2δ for θ ≤ 1
    # λ = 1/(2α) exactly is inside (α = 64, λ = 2^-7); the float 0.01 is just above 1/100: outside, in both paths
    assert ev("dc.lemma_a3", theta=2, **{**base, "alpha_f": 64, "lam": 2.0**-7}).value > 0
    assert F.freedman_bound(theta=2, event="E", **{**{k: float(v) for k, v in base.items()}, "alpha_f": 64.0,
                                                   "lam": 2.0**-7}).item() > 0
    with pytest.raises(ConditionError, match="lemma_a3_lambda_range"):
        ev("dc.lemma_a3", theta=2, **{**base, "lam": 0.01})
    with pytest.raises(ConditionError, match="lemma_a3_lambda_range"):
        F.freedman_bound(theta=2, event="E", **{**{k: float(v) for k, v in base.items()}, "lam": 0.01})
    with pytest.raises(ConditionError, match="lemma_a3_alpha_range"):
        ev("dc.lemma_a3", theta=2, **{**base, "alpha_f": 40, "lam": "0.0125"})  # b(2) = 41.45 > α
    with pytest.raises(ConditionError, match="lemma_a3_lambda_range"):
        ev("dc.lemma_a3", theta=2, **{**base, "lam": "0.02"})  # λ > 1/(2α)
    with pytest.raises(ConditionError, match="theta_at_least_half"):
        ev("dc.lemma_a3", theta="0.4", **base)
    # the printed b (2 log n/δ^{θ−1} = 1.8e6) refuses α = 50 where the reconstructed one accepts it
    with pytest.raises(ConditionError, match="lemma_a3_alpha_range"):
        ev("dc.lemma_a3", variant="printed", theta=2, **base)
    # for θ ≤ 1 the two readings of b coincide: same conditions, same value
    assert ev("dc.lemma_a3", variant="printed", theta=1, **base).value == ev("dc.lemma_a3", theta=1, **base).value
    fast = F.freedman_bound(theta=2, event="E", **{k: float(v) for k, v in base.items()})
    assert abs(fast.item() / float(e) - 1) < 1e-12
    with pytest.raises(ConditionError, match="lemma_a3_alpha_range"):
        F.freedman_bound(theta=2, event="E", printed=True, **{k: float(v) for k, v in base.items()})


# ---------------------------------------------------------------------------------------------------------------
# fast path against the reference


@pytest.mark.parametrize("sid", ["dc.def_a1", "dc.lemma_a1", "dc.lemma_a2", "dc.lemma_a6", "dc.lemma_a3"])
def test_fast_matches_reference(sid):
    assert_fast_matches_reference(sid, examples=12, tol=1e-10)


def test_fast_matches_reference_a3_1():
    x = np.random.default_rng(2).weibull(0.7, 25)
    for theta in (0.5, 1.3, 7.0):
        assert_fast_matches_at("dc.a3_1", tol=1e-12, samples=x.reshape(-1, 1), theta=theta)
