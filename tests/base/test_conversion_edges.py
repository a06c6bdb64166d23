"""Edge cases of the RDP → (ε, δ) conversions (base.rdp_to_dp, base.rdp_to_dp_mironov, base.rdp_to_delta) in the
reference (reference/base/conversion.py: the certified order search) and the fast path (fast/conversion.py), and of
the noise calibration (fast/accountant.py ``calibrate_sigma``). Each test pins a defect found on main:

* the reference's order search stopped below α = 1e6 (its top grid point was filtered out), 48% to 290% above the
  minimum when δ is tiny; it must now be ≤ the objective at any order (to its certified tolerance);
* broken user curves (NaN, negative, wrong shape, not a number) gave inf or 0 instead of an error;
* a curve failing inside the search gave an error message of hundreds of characters;
* the fast search evaluated the curve at 443 orders per call (now at most 127);
* calibrate_sigma returned its lower bracket end 0.05 when that already met the target, accepted rtol = nan and
  looped forever at rtol ≤ 0.
"""
import contextlib
import math
import random
import signal

import mpmath
import pytest
import torch
from mpmath import mpf

from _helpers import relative_error as rel, working_precision
from dpspec.fast import accountant as fast_accountant
from dpspec.fast import conversion as fast_spine
from dpspec.fast.accountant import calibrate_sigma, sgm_epsilon
from dpspec.fast.base import conversion as fast
from dpspec.fast.conversion import rdp_curve
from dpspec.reference import catalogue
from dpspec.reference.base import conversion as ref
from dpspec.reference.errors import ConditionError, DomainError, ParameterError, PrecisionError

catalogue.load_all()
_dps = working_precision(30)

REFERENCE = {"bbg": ref.rdp_to_dp, "mironov": ref.rdp_to_dp_mironov, "delta": ref.rdp_to_delta}
AT_ORDER = {"bbg": ref.dp_at_order, "mironov": ref.dp_at_order_mironov, "delta": ref.log_delta_at_order}


@contextlib.contextmanager
def deadline(seconds):
    """Fail (TimeoutError) instead of hanging: the old calibrate_sigma looped forever at rtol ≤ 0."""
    def stop(*_):
        raise TimeoutError(f"still running after {seconds} s")

    before = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, before)


# ---------------------------------------------------------------------------------------------------------------
# the reference's order search reaches the infimum


def test_tiny_delta_laplace_reaches_the_pure_dp_limit():
    # Laplace, δ = 1.39e-229: main returned 0.0012241 although its own objective is 0.000825 at α = 1e6. As α → ∞
    # the BBG+20 objective tends to T·ε(∞) = 1/b (Mironov 2017 Table II) and dips below it only by O(δ) (its
    # minimiser is near α ≈ 1/δ), so the infimum is 1/b to ~1e-225 relative.
    b = mpf("3189.1605773261945")
    value = ref.rdp_to_dp(catalogue.curve("base.laplace_rdp", b=b), mpf("1.3875498994770122e-229"))
    assert rel(value, 1 / b) < 1e-15
    fast_value = fast.rdp_to_dp(rdp_curve("base.laplace_rdp", b=float(b)), 1.3875498994770122e-229)
    assert rel(fast_value.item(), float(value)) < 1e-10  # the fast search extends beyond α = 1e6 too (main: 0.000825)


def test_mironov_gaussian_closed_form_beyond_alpha_1e6():
    # Mironov 2017 Prop. 3 with the Gaussian curve α/(2σ²) (Prop. 7): min over real α > 1 of α/(2σ²) + L/(α − 1),
    # L = log(1/δ), is at α − 1 = σ·√(2L), value 1/(2σ²) + √(2L)/σ (set the derivative to 0). Here α* ≈ 3.3e6, above
    # main's search range (it returned 3× the minimum).
    sigma, delta = mpf(10) ** 5, mpf(10) ** -240
    L = -mpmath.log(delta)
    value = ref.rdp_to_dp_mironov(catalogue.curve("base.gaussian_rdp", sigma=sigma), delta)
    assert rel(value, 1 / (2 * sigma**2) + mpmath.sqrt(2 * L) / sigma) < 1e-13


CASES = [  # (objective, curve statement, its parameters, δ or ε, steps)
    ("bbg", "base.gaussian_rdp", {"sigma": "0.7"}, "1e-5", 100),
    ("bbg", "base.laplace_rdp", {"b": 1}, "1e-300", 10),
    ("bbg", "base.laplace_rdp", {"b": "3189.1605773261945"}, "1.3875498994770122e-229", 1),
    ("mironov", "base.laplace_rdp", {"b": "0.7"}, "1e-5", 10),
    ("delta", "base.gaussian_rdp", {"sigma": 3}, "2", 20),
    ("delta", "base.laplace_rdp", {"b": 4}, "0.5", 3),
]


@pytest.mark.parametrize("objective, sid, params, target, steps", CASES)
def test_no_order_beats_the_reference(objective, sid, params, target, steps):
    """The reference is ≤ the objective at 80 random orders (α − 1 log-uniform over [1e-6, 1e300], seeded), to its
    certified tolerance (CERT_RTOL relative)."""
    curve = catalogue.curve(sid, **params)
    value = REFERENCE[objective](curve, target, steps)
    rng = random.Random(f"{objective}{sid}{target}")
    for _ in range(80):
        alpha = 1 + mpf(10) ** rng.uniform(-6, 300 if rng.random() < 0.3 else 8)
        try:
            at = AT_ORDER[objective](steps * curve(alpha), alpha, mpf(target))
        except (ConditionError, DomainError):  # no bound at that order (outside the curve's conditions or domain)
            continue
        at = min(mpf(1), mpmath.exp(at)) if objective == "delta" else max(mpf(0), at)
        assert value <= at * (1 + ref.CERT_RTOL), (alpha, value, at)


def test_pure_dp_composition_has_delta_zero():
    # Laplace b = 5818.86, 3 steps, ε = 0.00174 ≥ T/b: the composition is (ε, 0)-DP ((∞, ε)-RDP is ε-DP), so δ = 0;
    # main's reference returned 7.4e-307 (its search stopped at α = 5.6e5), the fast path 0.0 (e^−1224 underflows).
    assert ref.rdp_to_delta(catalogue.curve("base.laplace_rdp", b="5818.86"), "0.00174", 3) == 0
    assert fast.rdp_to_delta(rdp_curve("base.laplace_rdp", b=5818.86), 0.00174, 3).item() == 0.0
    # a δ in the subnormal range is formed in log space, not lost
    r = ref.rdp_to_delta(catalogue.curve("base.gaussian_rdp", sigma=1), 38)
    f = fast.rdp_to_delta(rdp_curve("base.gaussian_rdp", sigma=1.0), 38.0)
    assert mpf("1e-308") < r < mpf("1e-307") and rel(f.item(), float(r)) < 1e-10


def test_orders_outside_the_curve_domain_count_as_infinite():
    # a curve defined for α ≤ 100 only (it raises DomainError on alpha above): the same as +inf there
    g = catalogue.curve("base.gaussian_rdp", sigma=30)

    def capped(a):
        if a > 100:
            raise DomainError("alpha", a, "(1, 100]")
        return g(a)

    infinite = lambda a: g(a) if a <= 100 else mpf("inf")  # noqa: E731
    assert ref.rdp_to_dp(capped, "1e-30", 3) == ref.rdp_to_dp(infinite, "1e-30", 3)
    fg = rdp_curve("base.gaussian_rdp", sigma=30.0)

    def fast_capped(a):
        if bool((a > 100).any()):
            raise DomainError("alpha", a.max().item(), "(1, 100]")
        return fg(a)

    want = fast.rdp_to_dp(lambda a: torch.where(a > 100, math.inf, fg(a)), 1e-30, 3)
    assert fast.rdp_to_dp(fast_capped, 1e-30, 3).item() == pytest.approx(want.item(), rel=1e-12)


# ---------------------------------------------------------------------------------------------------------------
# broken curves and failing curves


BROKEN = [
    ("nan", lambda a: a * float("nan"), lambda a: mpf("nan")),
    ("negative", lambda a: -a, lambda a: -a),
    ("not a number", lambda a: "0.5", lambda a: "0.5"),
    ("wrong shape", lambda a: a[..., :1], lambda a: [a]),
]


@pytest.mark.parametrize("what, fast_curve, ref_curve", BROKEN, ids=[b[0] for b in BROKEN])
def test_broken_curves_are_refused_naming_the_curve(what, fast_curve, ref_curve):
    # main: fast rdp_to_dp returned inf (NaN curve) or 0.0 (negative curve)
    for call in (lambda: fast.rdp_to_dp(fast_curve, 1e-5), lambda: fast.rdp_to_delta(fast_curve, 1.0),
                 lambda: ref.rdp_to_dp(ref_curve, "1e-5"), lambda: ref.rdp_to_delta(ref_curve, 1)):
        with pytest.raises(DomainError) as err:
            call()
        assert err.value.name == "curve" and "<lambda>" in str(err.value) and "alpha=" in str(err.value)


def test_a_failing_curve_gives_one_short_error():
    long_message = "quadrature did not converge: error 9.7476525157647788926e-" + "1684238707" * 40 + " and more" * 300

    def failing(a):
        raise PrecisionError(long_message)

    def user_bug(a):
        raise ValueError("boom\nsecond line")

    with pytest.raises(PrecisionError) as err:
        ref.rdp_to_dp(failing, "1e-5")
    assert "curve=failing" in str(err.value) and "alpha=" in str(err.value) and len(str(err.value)) < 300
    with pytest.raises(ParameterError) as err:
        ref.rdp_to_dp(user_bug, "1e-5")
    assert str(err.value).startswith("curve=user_bug failed at alpha=") and "\n" not in str(err.value)
    # the CLI case of the report: σ = 1e-320 puts the minimiser below α − 1 = 1e-20; one short refusal naming the curve
    tiny = catalogue.curve("base.sgm_rdp", q="0.01", sigma="1e-320")
    with pytest.raises((PrecisionError, ParameterError)) as err:
        catalogue.get("base.rdp_to_dp").evaluate(dps=20, curve=tiny, steps=10, delta="1e-5")
    assert "curve=base.sgm_rdp(q=0.01, sigma=1e-320)" in str(err.value) and len(str(err.value)) < 400


# ---------------------------------------------------------------------------------------------------------------
# bounded work


def test_the_fast_search_evaluates_a_bounded_number_of_orders():
    orders = []
    gaussian = rdp_curve("base.gaussian_rdp", sigma=2.0)

    def counting(a):
        orders.append(a.shape[-1])
        return gaussian(a)

    for delta in (1e-5, 1e-300, 0.5):
        orders.clear()
        fast.rdp_to_dp(counting, delta, 10)
        assert sum(orders) <= fast_spine.GRID + len(fast_spine.HIGH) + len(fast_spine.LOW) + 2 + fast_spine.MAX_GOLDEN
        assert sum(orders) <= 127  # main: 443 orders per call
    evaluated = []
    original = fast_accountant.Accountant._composed

    def composed(self, alphas, groups):
        evaluated.append(alphas.numel())
        return original(self, alphas, groups)

    acc = fast_accountant.Accountant().gaussian(3.0, 10)
    try:
        fast_accountant.Accountant._composed = composed
        acc.get_epsilon(1e-5)
    finally:
        fast_accountant.Accountant._composed = original
    assert sum(evaluated) <= len(fast_accountant.GRID) + 88  # main: 422


# ---------------------------------------------------------------------------------------------------------------
# calibrate_sigma


def test_calibrate_sigma_extends_the_bracket_below_lo():
    # q = 1 (the Gaussian mechanism, closed form): ε(0.05) ≈ 2300 already meets 1e4, so main returned lo = 0.05
    sigma = calibrate_sigma(1e4, 1e-5, 1.0, 10)
    assert sigma.item() < 0.05
    assert sgm_epsilon(sigma, 1.0, 10, 1e-5).item() <= 1e4 < sgm_epsilon(sigma * (1 - 1e-6), 1.0, 10, 1e-5).item()
    with pytest.raises(DomainError) as err:  # met by every σ ≥ lo·1e-8: refused, not answered with a bracket end
        calibrate_sigma(1e30, 1e-5, 1.0, 1)
    assert err.value.name == "target_eps" and "every sigma" in str(err.value)


@pytest.mark.parametrize("kwargs, name", [
    ({"rtol": float("nan")}, "rtol"), ({"rtol": 0.0}, "rtol"), ({"rtol": -1.0}, "rtol"), ({"rtol": 1.0}, "rtol"),
    ({"rtol": "1e-3"}, "rtol"), ({"lo": 0.0}, "lo"), ({"lo": None}, "lo"), ({"hi": math.inf}, "hi"),
    ({"lo": 2e3}, "hi"), ({"target_eps": math.nan}, "target_eps"), ({"delta": 0.0}, "delta"), ({"q": 0.0}, "q"),
    ({"steps": 2.5}, "steps"), ({"direction": "add"}, "direction"),
])
def test_calibrate_sigma_refuses_bad_arguments(kwargs, name):
    args = {"target_eps": 1.0, "delta": 1e-5, "q": 1.0, "steps": 10, **kwargs}
    with deadline(20), pytest.raises(DomainError) as err:  # main: rtol=nan returned ≈ 1000, rtol ≤ 0 never returned
        calibrate_sigma(**args)
    assert err.value.name == name


def test_calibrate_sigma_bisection_is_bounded(monkeypatch):
    calls = []
    original = fast_accountant.sgm_epsilon

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(fast_accountant, "sgm_epsilon", counting)
    sigma = calibrate_sigma(torch.tensor([0.5, 3.0]), 1e-5, 1.0, 10, rtol=1e-14, lo=1e-3, hi=1e6)
    # ε(σ_hi), ε(σ_lo), then at most ⌈log2(log(1e9)/log1p(5e-15))⌉ + 1 = 54 bisection steps
    assert len(calls) <= 2 + math.ceil(math.log2(math.log(1e9) / math.log1p(5e-15))) + 1
    assert bool((original(sigma, 1.0, 10, 1e-5) <= torch.tensor([0.5, 3.0])).all())
