"""gptr reference core (helper A): seed 003 Thm 3.3.3, 3.3.4, Ex 3.5.2, Thm 3.5.3 / 3.5.7 / 3.5.6, B.2.3, B.2.4, B.2.5 and
Algorithms 3, 4, 5, 12. Test vectors from shared/notes/generalized-ptr.md §5.2 (and §2.1, §2.5), exact hockey-sticks of
PTR mixtures against the (ε, δ) statements on seeded random instances inside the hypotheses, and seeded Monte Carlo of
the algorithms (normal approximation at z = 5, two-sided 5.7e-7 per check, sample sizes stated)."""
from __future__ import annotations

import math
import random

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.base.gaussian import gaussian_profile
from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.gptr import algorithms as A
from dpspec.reference.gptr import generalized as G
from dpspec.reference.gptr import prelims as P
from dpspec.reference.gptr import selection as S
from dpspec.reference.gptr import witnesses as W

catalogue.load_all()
Z = 5.0


@pytest.fixture(autouse=True)
def _thirty_digits():
    """Test arithmetic (mpf literals, direct sums) at the catalogue's working precision of these comparisons."""
    with mpmath.workdps(30):
        yield


def ev(sid, variant=None, allow_outside=False, **params):
    return catalogue.get(sid).evaluate(dps=30, variant=variant, allow_outside=allow_outside, **params)


def close(a, b, rel):
    return abs(mpf(a) - mpf(b)) <= mpf(rel) * abs(mpf(b))


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.3.3 (Gaussian δ(ε)), notes §5.2

GAUSS = [((0, 1), "0.38292492", None), (("0.5", 1), "0.23842171", "-0.3244"), ((1, 1), "0.12693674", "-1.5711"),
         ((1, "0.5"), "0.006829595", "-2.5693"), ((2, 1), "0.020923636", "-6.8286")]


@pytest.mark.parametrize("point, corrected, printed", GAUSS)
def test_gaussian_delta_matches_the_notes_vectors(point, corrected, printed):
    eps, ratio = point
    d = ev("gptr.thm3_3_3", eps=eps, sensitivity=ratio, sigma=1).value
    assert close(d, corrected, "1e-7")
    p = ev("gptr.thm3_3_3", variant="printed", eps=eps, sensitivity=ratio, sigma=1)
    assert not p.is_bound
    if printed is None:  # ε = 0: both forms agree
        assert p.value == d
    else:
        assert close(p.value, printed, "5e-4") and p.value < 0  # the notes give 4-5 digits


def test_gaussian_delta_is_the_hockey_stick_by_quadrature():
    """Independent route: ∫ (φ_{Δ,σ} − e^ε φ_{0,σ})₊ by quadrature at Δ = 2, σ = 3, ε = 0.3."""
    eps, dlt, sig = mpf("0.3"), mpf(2), mpf(3)
    with mpmath.workdps(30):
        cut = dlt / 2 + eps * sig**2 / dlt  # p > e^ε q beyond this point
        integrand = lambda y: mpmath.npdf(y, dlt, sig) - mpmath.exp(eps) * mpmath.npdf(y, 0, sig)
        quad = mpmath.quad(integrand, [cut, cut + 10, mpmath.inf])
    assert close(P.gaussian_delta(eps, dlt, sig), quad, "1e-20")
    assert P.gaussian_delta(eps, dlt, sig) == gaussian_profile(eps, sig / dlt)  # relates to base


@pytest.mark.parametrize("eps, sens, sigma", [(0, "1e-320", "1e308"), ("1e308", 1, "1e-300"), ("1e-320", "1e300", 1),
                                              (20, 1, 1000), ("8.764306196", "0.001", "406.4212545")])
def test_gaussian_delta_at_extremes_is_a_probability(eps, sens, sigma):
    d = ev("gptr.thm3_3_3", eps=eps, sensitivity=sens, sigma=sigma).value
    assert 0 <= d <= 1 and not mpmath.isnan(d)


def test_gaussian_bad_input_names_the_value():
    with pytest.raises(DomainError, match="sigma=-1"):
        ev("gptr.thm3_3_3", eps=1, sensitivity=1, sigma=-1)
    with pytest.raises(DomainError, match="sensitivity=0"):
        ev("gptr.thm3_3_3", eps=1, sensitivity=0, sigma=1)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.3.4 (classic PTR) and its exact worst case, notes §2.1, §3.3, §5.2


def test_classic_ptr_claims_and_tight_variant():
    e, d = ev("gptr.thm3_3_4", eps="0.5", delta="1e-4").value
    assert e == 1 and close(d, "1e-4", "1e-28")
    tight = ev("gptr.thm3_3_4", variant="tight", eps="0.5", delta="1e-4")
    assert tight.is_bound and tight.value[0] == 1 and close(tight.value[1], "5e-5", "1e-28")


def test_classic_ptr_worst_hockey_stick_is_half_delta():
    """Notes §5.2: ε = 0.5, δ = 1e-4, β = 1: the worst hockey-stick at e^{2ε} over D ∈ {0..3}, neighbouring D and
    shifts is 4.99997e-5, at D = D′ = 0 and |f − f′| = 50 (25 release scales β/ε); never above δ/2."""
    eps, delta = mpf("0.5"), mpf("1e-4")
    worst = mpf(0)
    with mpmath.workdps(30):
        for d in range(4):
            for d2 in {max(d - 1, 0), d, d + 1}:
                # |f − f′| ≤ β (shift ≤ ε scales) unless both are unstable (D = D′ = 0): then any shift
                shifts = [0, eps / 2, eps] + ([5, 25, 40] if d == d2 == 0 else [])
                for s in shifts:
                    h = W.classic_ptr_hockey_stick(2 * eps, eps, delta, d, d2, s)
                    assert h <= delta / 2
                    worst = max(worst, h)
        at_50 = W.classic_ptr_hockey_stick(2 * eps, eps, delta, 0, 0, 25)
    assert close(at_50, "4.99997e-5", "1e-6")
    assert close(worst, delta / 2 * -mpmath.expm1(mpf("-19.5")), "1e-25")  # shift 40: δ/2 (1 − e^{(2ε − 40)/2})


def test_classic_ptr_pair_b_has_no_delta_at_two_eps():
    """Stable neighbours (|D − D′| = 1, |f − f′| ≤ β): privacy loss ≤ 2ε everywhere, so δ(2ε) = 0 exactly, while
    slightly below 2ε it is positive (the bound's ε is attained)."""
    eps, delta = mpf("0.5"), mpf("1e-4")
    for d, d2 in ((0, 1), (1, 0), (2, 3), (3, 2)):
        assert W.classic_ptr_hockey_stick(2 * eps, eps, delta, d, d2, eps) == 0
    assert W.classic_ptr_hockey_stick(2 * eps - mpf("0.01"), eps, delta, 3, 2, eps) > 0


def test_ex3_5_2_relates_to_laplace_pure():
    assert ev("gptr.ex3_5_2", local_sensitivity=3, phi=2).value == mpf("1.5")
    assert ev("gptr.ex3_5_2", local_sensitivity=0, phi=2).value == 0
    assert ev("gptr.ex3_5_2", local_sensitivity=2, phi=2).value == ev("base.laplace_pure", b=1).value


# ---------------------------------------------------------------------------------------------------------------
# Theorems 3.5.3 / 3.5.7 / B.2.4: arithmetic, limits, and exact mixtures inside the hypotheses


def test_budget_forms_and_limits():
    b = dict(eps=1, eps_hat="0.5", delta="1e-5", delta_hat="1e-6", delta_prime="1e-6")
    e, d = ev("gptr.thm3_5_3", **b).value
    assert e == mpf("1.5") and close(d, "1.1e-5", "1e-28")
    e, d = ev("gptr.thm3_5_3", variant="printed", **b).value
    assert e == mpf("1.5") and close(d, "1.2e-5", "1e-28")
    assert ev("gptr.thm3_5_7", **b).value == ev("gptr.thm3_5_3", **b).value
    assert ev("gptr.thm_b2_4", **b).value == ev("gptr.thm3_5_3", variant="printed", **b).value
    # δ′ = 0: plain composition in both forms
    zero = {**b, "delta_prime": 0}
    assert ev("gptr.thm3_5_3", **zero).value == ev("gptr.thm3_5_3", variant="printed", **zero).value
    # classic PTR as an instance (notes §2.2): ε̂ = ε, δ̂ = δ = 0, δ′ = δ/2 gives the tight (2ε, δ/2)
    assert G.gptr_budget(mpf("0.5"), mpf("0.5"), 0, 0, mpf("5e-5")) == P.classic_ptr_tight(mpf("0.5"), mpf("1e-4"))
    with pytest.raises(DomainError, match="delta_prime=1.5"):
        ev("gptr.thm3_5_3", **{**b, "delta_prime": "1.5"})
    with pytest.raises(DomainError, match="form="):
        G.gptr_budget(1, 1, mpf("0.1"), 0, 0, form="min")


def _bernoulli_dp(p, q, eps_hat, delta_hat):
    """Is the test pair (Bern(p), Bern(q)) (ε̂, δ̂)-DP in both directions?"""
    e = mpmath.exp(eps_hat)
    return (p <= e * q + delta_hat and q <= e * p + delta_hat and 1 - p <= e * (1 - q) + delta_hat
            and 1 - q <= e * (1 - p) + delta_hat)


def _extreme_p(q, eps_hat, delta_hat, cap=mpf(1)):
    """The largest p ≤ cap with (Bern(p), Bern(q)) (ε̂, δ̂)-DP (the adversarial pass probability)."""
    e = mpmath.exp(eps_hat)
    hi = min(cap, e * q + delta_hat, 1 - (1 - q - delta_hat) / e)
    return hi if hi > 0 else None


def _instances(seed, n):
    """Seeded instances inside Thm 3.5.3's hypotheses (notes §3.4): (case, ε, ε̂, δ, δ̂, δ′, p, q, release, μ)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        eps, eps_hat = mpf(rng.choice([0, 0.1, 0.5, 1, 2])), mpf(rng.choice([0, 0.2, 0.5, 1]))
        delta_hat, delta_p = mpf(10) ** rng.uniform(-8, -1), mpf(10) ** rng.uniform(-8, -1)
        release = rng.choice(["laplace", "gaussian"])
        case = rng.choice(["both_bad", "good", "mixed"])
        if case == "both_bad":  # both pass w.p. ≤ δ′, releases anywhere
            q = delta_p * mpf(rng.uniform(0.01, 1))
            p = _extreme_p(q, eps_hat, delta_hat, cap=delta_p)
            mu, delta = mpf(rng.choice([1, 10, 40])), mpf(10) ** rng.uniform(-8, -1)
        else:  # X good (ε_φ(X) ≤ ε): the release pair is (ε, δ)-close in both directions
            q = mpf(rng.uniform(0.001, 0.99)) if case == "good" else mpf(rng.uniform(0.001, 0.99))
            p = _extreme_p(q, eps_hat, delta_hat, cap=(1 if case == "good" else delta_p))
            mu = eps if release == "laplace" else mpf(rng.uniform(0.05, 3))
            delta = W.release_hockey_stick(eps, release, mu) if release == "gaussian" else mpf(10) ** -9
            if delta >= 1 or delta == 0:
                continue
        if p is None or p <= 0 or p >= 1 or not _bernoulli_dp(p, q, eps_hat, delta_hat):
            continue
        out.append((case, eps, eps_hat, delta, delta_hat, delta_p, p, q, release, mu))
    return out


def test_exact_mixture_hockey_stick_is_below_the_max_form():
    """60 seeded instances inside the hypotheses (both neighbours bad; X good with an (ε, δ)-close release; X bad and
    X′ good): the exact hockey-stick of the PTR mixture at ε + ε̂ is ≤ δ̂ + max(δ, δ′); the both-bad instances reach
    at least half of it (the bound is not vacuous)."""
    ratios = []
    with mpmath.workdps(30):
        for case, eps, eps_hat, delta, delta_hat, delta_p, p, q, release, mu in _instances(2024, 60):
            eps_t, delta_t = G.gptr_budget(eps, eps_hat, delta, delta_hat, delta_p)
            h = W.mixture_hockey_stick(eps_t, p, q, release, mu)
            assert h <= delta_t, (case, eps, eps_hat, delta, delta_hat, delta_p, p, q, release, mu, h, delta_t)
            if case == "both_bad" and mu == 40:
                ratios.append(h / delta_t)
    assert ratios and max(ratios) > mpf("0.5")


def test_mixture_outside_the_hypotheses_exceeds_the_bound():
    """Negative control: a bad X passing with 10δ′ (false-positive rate above δ′) and releases far apart exceeds
    δ̂ + max(δ, δ′) — the exact check can fail."""
    eps, eps_hat, delta, delta_hat, delta_p = mpf(1), mpf("0.5"), mpf("1e-6"), mpf("1e-6"), mpf("1e-5")
    h = W.mixture_hockey_stick(eps + eps_hat, 10 * delta_p, 10 * delta_p, "laplace", 40)
    assert h > G.gptr_budget(eps, eps_hat, delta, delta_hat, delta_p)[1]


# ---------------------------------------------------------------------------------------------------------------
# Theorem B.2.5 (RDP), notes §2.5, §3.5


def test_b2_5_counterexample_exceeds_the_printed_claim():
    """Notes §2.5 [CHK]: σ_T = 1, threshold 4 (δ′ = Φ̄(4) = 3.17e-5, p′ = Φ̄(5) = 2.87e-7), ε̃(4) = 10 (Δ/σ = √5),
    ε(4) = 0.01, α = 4, ε̂(4) = α/(2σ_T²) = 2: the exact D_α is 11.25 > the claimed 8.55 (composition gives 12)."""
    alpha, dp = mpf(4), mpmath.ncdf(-4)
    true = G.b2_5_counterexample_divergence(alpha, 1, 4, mpmath.sqrt(5), 1)
    claimed = ev("gptr.thm_b2_5", variant="printed", alpha=4, eps_hat_alpha=2, eps_tilde_alpha=10, eps_alpha="0.01",
                 delta_prime=dp, pass_law="at_most")
    assert not claimed.is_bound
    assert close(true, "11.2515", "1e-5") and close(claimed.value, "8.5466", "1e-5")
    assert true > claimed.value and true < 2 + 10  # below plain composition ε̂ + ε̃
    with pytest.raises(ConditionError, match="equal_pass"):
        ev("gptr.thm_b2_5", alpha=4, eps_hat_alpha=2, eps_tilde_alpha=10, eps_alpha="0.01", delta_prime=dp,
           pass_law="at_most")


def _bern_renyi(alpha, p, q):
    return mpmath.log(p**alpha * q ** (1 - alpha) + (1 - p) ** alpha * (1 - q) ** (1 - alpha)) / (alpha - 1)


def test_b2_5_holds_under_the_equal_pass_hypothesis():
    """Seeded instances under the hypothesis (both bad passing with δ′; X good against a bad X′ passing with δ′,
    the test's ε̂(α) its exact Bernoulli Rényi divergence, the release at D_α ≤ ε(α)): the exact D_α (both
    directions) of the mixture is ≤ the bound."""
    rng = random.Random(7)
    with mpmath.workdps(30):
        for _ in range(60):
            alpha = mpf(rng.choice([1.5, 2, 4, 16, 64]))
            dp, eps_tilde = mpf(10) ** rng.uniform(-10, -1), mpf(rng.uniform(0.1, 20))
            eps_a = mpf(rng.uniform(0, 1)) * eps_tilde
            mu_bad = mpmath.sqrt(2 * eps_tilde / alpha)
            # both bad, equal pass probability: no test cost
            both = W.mixture_log_moment(alpha, dp, dp, "gaussian", mu_bad) / (alpha - 1)
            assert both <= G.thm_b2_5_rdp(alpha, 0, eps_tilde, eps_a, dp) * (1 + mpf("1e-25"))
            # X good (passing with p), X′ bad (δ′): release at D_α = ε(α) (Gaussian, symmetric)
            p = mpf(rng.uniform(0.001, 0.999))
            eps_hat = max(_bern_renyi(alpha, p, dp), _bern_renyi(alpha, dp, p))
            mu_good = mpmath.sqrt(2 * eps_a / alpha)
            bound = G.thm_b2_5_rdp(alpha, eps_hat, eps_tilde, eps_a, dp)
            fwd = W.mixture_log_moment(alpha, p, dp, "gaussian", mu_good) / (alpha - 1)
            rev = W.mixture_log_moment(alpha, dp, p, "gaussian", mu_good) / (alpha - 1)
            assert max(fwd, rev) <= bound * (1 + mpf("1e-25"))


def test_b2_5_limits_and_extremes():
    b = dict(alpha=4, eps_hat_alpha="0.5", eps_tilde_alpha=10, eps_alpha="0.1")
    assert close(ev("gptr.thm_b2_5", **b, delta_prime=0).value, "0.6", "1e-25")
    assert close(ev("gptr.thm_b2_5", **b, delta_prime=1).value, "10.5", "1e-25")
    # α → 1 and a tiny ε: first order δ′ε̃ + (1 − δ′)ε (the log of a number near 1 keeps its digits)
    v = ev("gptr.thm_b2_5", alpha="1.000000001", eps_hat_alpha=0, eps_tilde_alpha="1e-300", eps_alpha="1e-310",
           delta_prime="0.25").value
    assert close(v, mpf("0.25e-300") + mpf("0.75e-310"), "1e-8")
    # huge exponents do not overflow (notes §8: α = 43, ε̃ = 20; and ε̃ = 1e308)
    assert close(ev("gptr.thm_b2_5", alpha=43, eps_hat_alpha=0, eps_tilde_alpha=20, eps_alpha=0,
                    delta_prime="1e-5").value, 20 + mpmath.log(mpf("1e-5")) / 42, "1e-6")
    v = ev("gptr.thm_b2_5", alpha=1e4, eps_hat_alpha=0, eps_tilde_alpha=1e308, eps_alpha=0, delta_prime="1e-300").value
    assert mpmath.isfinite(v) and v <= 1e308 and close(v, 1e308, "1e-25")


# ---------------------------------------------------------------------------------------------------------------
# Theorem 3.5.6 (Liu–Talwar) and Theorem B.2.3, notes §5.2


def test_liu_talwar_ops_ptr_calibration():
    """k = 30, δ = 1e-6, τ = 0.05/k, δ2 = δ/2: T = 8705.19, δ* = ((δ − δ2)/T)²/2 = 1.6495e-21, √(2δ*) = 5.744e-11;
    the δ part is then δ exactly and ε = 1 needs ε* = 1/3 − √(2δ*)."""
    tau, delta, delta_2 = mpf("0.05") / 30, mpf("1e-6"), mpf("5e-7")
    T = S.liu_talwar_cutoff(tau, delta_2)
    assert close(T, "8705.19", "1e-6")
    delta_star = ((delta - delta_2) / T) ** 2 / 2
    assert close(delta_star, "1.6495e-21", "1e-4") and close(mpmath.sqrt(2 * delta_star), "5.744e-11", "1e-3")
    eps_star = mpf(1) / 3 - mpmath.sqrt(2 * delta_star)
    e, d = ev("gptr.thm3_5_6", eps_star=eps_star, delta_star=delta_star, tau=tau, delta_2=delta_2).value
    assert close(e, 1, "1e-25") and close(d, delta, "1e-25")
    e, d = ev("gptr.thm3_5_6", eps_star="0.1", delta_star=0, tau="0.5", delta_2="1e-3").value
    assert close(e, "0.3", "1e-28") and close(d, "1e-3", "1e-28")  # pure case: (3ε*, δ2)
    with pytest.raises(DomainError, match="tau=0"):
        ev("gptr.thm3_5_6", eps_star=1, delta_star=0, tau=0, delta_2="1e-3")


def test_selection_success_vectors_and_linearisation():
    """k = 30, τ = 0.05/k, T = 8705: E[T̂] = 600.0, P[best] = 0.9539; τ = 0.1/k: 0.912 (notes §5.2, E12); the printed
    linearisation E[T̂]/k is 20.0 — not a probability."""
    assert abs(ev("gptr.thm_b2_3", k=30, tau=mpf("0.05") / 30, T=8705).value - mpf("0.9539")) < mpf("5e-5")
    assert close(S.expected_stopping_time(mpf("0.05") / 30, 8705), 600, "1e-6")
    assert abs(ev("gptr.thm_b2_3", k=30, tau=mpf("0.1") / 30, T=4353).value - mpf("0.9119")) < mpf("5e-5")
    printed = ev("gptr.thm_b2_3", variant="printed", k=30, tau=mpf("0.05") / 30, T=8705)
    assert not printed.is_bound and close(printed.value, 20, "1e-5")


@pytest.mark.parametrize("k, tau, T", [(5, "0.2", 7), (1, "0.3", 4), (3, "1", 10), (12, "0.01", 50)])
def test_selection_success_and_quantile_against_the_geometric_law(k, tau, T):
    """Direct sums over the law of T̂ = min(T, G): P[T̂ = g] = τ(1 − τ)^{g−1} (g < T), (1 − τ)^{T−1} (g = T)."""
    tau = mpf(tau)
    law = [(g, tau * (1 - tau) ** (g - 1)) for g in range(1, T)] + [(T, (1 - tau) ** (T - 1))]
    success = 1 - sum(w * (1 - mpf(1) / k) ** g for g, w in law)
    quantile = sum(w * (1 - mpf(1) / (g + 1)) for g, w in law)
    assert close(S.selection_success(k, tau, T), success, "1e-25")
    assert close(S.expected_quantile(tau, T), quantile, "1e-25")


@pytest.mark.parametrize("tau, T", [("1e-300", 10**5), ("1e-6", 10**8), ("5e-324", 2**62), ("0.999999", 10**6)])
def test_quantile_at_extremes(tau, T):
    q = ev("gptr.thm_b2_3_quantile", tau=tau, T=T).value
    assert mpf("0.5") <= q < 1


# ---------------------------------------------------------------------------------------------------------------
# Algorithms 3, 4, 5, 12 (seeded Monte Carlo, z = 5)


def _binomial_ok(hits, n, p):
    p = float(p)
    return abs(hits / n - p) <= Z * math.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("distance, expected", [(0, "0.1"), (2, None), (12, None)])
def test_alg3_pass_probability_matches_its_formula(distance, expected):
    """n = 5000 runs, seed 11 + D; ε = 0.5, δ = 0.2: P[pass] = ½e^{−(log 5 − εD)} (δ/2 = 0.1 at D = 0), and
    1 − ½e^{log 5 − εD} above the threshold (D = 12)."""
    rng = np.random.default_rng(11 + distance)
    eps, delta, n = mpf("0.5"), mpf("0.2"), 5_000
    p = A.alg3_pass_probability(eps, delta, distance)
    if expected is not None:
        assert close(p, expected, "1e-25")
    outs = [A.alg3_classic_ptr(rng, 7.0, distance, eps, delta, 1.0) for _ in range(n)]
    assert _binomial_ok(sum(not o.refused for o in outs), n, p)
    assert outs[0].eps == 1 and outs[0].delta == delta


def test_alg5_stopping_time_and_success_match_theorem_b2_3():
    """n = 5000 runs, seed 5; k = 4 candidates (scores 0..3, the best is 3), τ = 0.05, δ2 = 0.05: cut-off
    ⌈log(20)/0.05⌉ = 60. Mean of T̂ against E[T̂] (variance from the law), P[T̂ = 60] = 0.95^59 and P[best returned]
    = selection_success(4, 0.05, 60), each within z = 5."""
    rng = np.random.default_rng(5)
    tau, delta_2, n, k = mpf("0.05"), mpf("0.05"), 5_000, 4
    outs = [A.alg5_ptr_selection(rng, list(range(k)), lambda r, phi: float(phi), lambda x: x, mpf("0.1"), 0, tau,
                                 delta_2) for _ in range(n)]
    T = outs[0].details["T"]
    assert T == 60
    t_hat = np.array([o.details["T_hat"] for o in outs], dtype=float)
    law = [(g, float(tau * (1 - tau) ** (g - 1))) for g in range(1, T)] + [(T, float((1 - tau) ** (T - 1)))]
    mean = sum(g * w for g, w in law)
    sd = math.sqrt(sum(g * g * w for g, w in law) - mean**2)
    assert abs(mean - float(S.expected_stopping_time(tau, T))) < 1e-9
    assert abs(t_hat.mean() - mean) <= Z * sd / math.sqrt(n)
    assert _binomial_ok(int((t_hat == T).sum()), n, (1 - tau) ** (T - 1))
    assert _binomial_ok(sum(o.release[0] == k - 1 for o in outs), n, S.selection_success(k, tau, T))
    e, d = outs[0].eps, outs[0].delta
    assert close(e, "0.3", "1e-28") and d == delta_2  # δ* = 0: (3ε*, δ2)


def test_alg4_and_alg12_refuse_and_release():
    rng = np.random.default_rng(3)
    budget = dict(eps=1, eps_hat="0.5", delta="1e-5", delta_hat="1e-6", delta_prime="1e-6")
    out = A.alg4_generalized_ptr(rng, lambda r: 42.0, A.upper_bound_test(lambda r: 2.0, 1), **budget)
    assert out.refused and out.eps == mpf("1.5") and close(out.delta, "1.1e-5", "1e-25")
    out = A.alg4_generalized_ptr(rng, lambda r: 42.0, A.upper_bound_test(lambda r: 0.5, 1), **budget)
    assert out.release == 42.0
    mechanisms = {"a": lambda r: 1.0, "b": lambda r: 2.0}
    out = A.alg12_uniform_bound(rng, lambda r: {"a": 3.0, "b": 0.7}, mechanisms, **budget)
    assert out.release == ("b", 2.0) and close(out.delta, "1.2e-5", "1e-25")
    assert A.alg12_uniform_bound(rng, lambda r: {"a": 3.0, "b": 3.0}, mechanisms, **budget).refused
    with pytest.raises(DomainError, match="delta_prime=2"):
        A.alg4_generalized_ptr(rng, lambda r: 0, lambda r: True, **{**budget, "delta_prime": 2})
