"""Issue 13's last three reference defects (FINDINGS.md, "Still open at the edges"), pinned:

1. base.rdp_to_delta with base.sgm_rdp at q = 9.394516208467836e-07, σ = 100, ε = 0.001 took ~50 s: the minimiser
   sits on a cliff of ε(α) near α ≈ 277559 and Brent's golden sections shrank the bracket by 0.618 per curve
   evaluation (56 evaluations). Brent's fallback is now the corner of the outer chords (reference/base/conversion.py
   ``_Search.v_step``), bounded by ``FALLBACK_RUN``; the certificate is unchanged.
2. base.zw19_upper / zw19_lower evaluated the curve at every integer order twice (once per run of the self-check):
   the runs now share the values, computed once at the higher run's precision, and the curve's precision is still
   checked at the order of the largest term (reference/base/zw19.py ``_spot_check``).
3. Reference evaluators called from Python with int arguments computed in float (laplace_rdp(2, 1): 2/3 in float,
   4e-17 off): every registered evaluator converts its real parameters to mpf at entry (reference/precision.py
   ``_entry_mpf``, in ``self_checked``).
"""
import mpmath
import pytest
from mpmath import mp, mpf

from _helpers import working_precision
from dpspec.reference import catalogue, precision
from dpspec.reference.base import conversion as ref
from dpspec.reference.base import zw19
from dpspec.reference.errors import PrecisionError

catalogue.load_all()
_dps = working_precision(50)

Q_CLIFF, SIGMA_CLIFF = mpf("9.394516208467836e-07"), mpf(100)


def _cliff(alpha):
    """A cheap curve with base.sgm_rdp's cliff at q ≈ 9.4e-7, σ = 100 (ε ≈ 1.2e-11 below α ≈ 277559, then the
    q^α e^{α(α−1)/(2σ²)} term takes over within Δα ≈ 1): (α − 1)·ε(α) = log(e^{c(α−1)} + q^α e^{α(α−1)/(2σ²)}), a
    log-sum-exp of an affine and a convex function of α, so convex (the premise of the certificate)."""
    a = mpf(alpha)
    small = mpf("1.2e-11") * (a - 1)
    big = a * mpmath.log(Q_CLIFF) + a * (a - 1) / (2 * SIGMA_CLIFF**2)
    m = max(small, big)
    return (m + mpmath.log(mpmath.exp(small - m) + mpmath.exp(big - m))) / (a - 1)


def _counting(curve):
    calls = []

    def counted(alpha):
        calls.append(alpha)
        return curve(alpha)

    counted.__name__ = getattr(curve, "__name__", "curve")
    return counted, calls


def _search(name, curve, steps, param):
    counted, calls = _counting(curve)
    with mp.workdps(ref.SEARCH_DPS):
        search = ref._Search(name, counted, steps, mpf(param))
        s = search.run()
        return s, search.points[s][0], len(calls)


def _golden_min(f, lo, hi, iters=200):
    """Minimum of a unimodal f on [lo, hi] by plain golden sections (independent of the search)."""
    ratio = (mpmath.sqrt(5) - 1) / 2
    c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc <= fd:
            hi, d, fd = d, c, fc
            c = hi - ratio * (hi - lo)
            fc = f(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + ratio * (hi - lo)
            fd = f(d)
    return min(fc, fd)


# ---------------------------------------------------------------------------------------------------
# 1. the order search on a cliff


def test_cliff_search_finds_the_minimum_in_fewer_evaluations():
    # before: 56 curve evaluations (golden sections across the cliff); now 42
    s, value, evaluations = _search("delta", _cliff, 1, "0.001")
    assert evaluations <= 45
    assert 2.7e5 < mpmath.exp(s) < 2.8e5
    with mp.workdps(30):
        def objective(v):
            return ref._objective("delta", _cliff(1 + v), v, mpf("0.001"))[0]
        best = _golden_min(objective, mpf(277000), mpf(278000))
    # the search's value is the objective at a real order, so ≥ the infimum; and within the certificate's tolerance
    assert abs(value - best) <= mpf(10) ** -11
    assert value >= best - mpf(10) ** -11


@pytest.mark.parametrize("statement, curve, steps, param, most", [
    ("bbg", catalogue.curve("base.gaussian_rdp", sigma=1), 10, "1e-5", 22),
    ("bbg", catalogue.curve("base.laplace_rdp", b=2), 10, "1e-5", 26),
    ("mironov", catalogue.curve("base.gaussian_rdp", sigma=3), 100, "1e-10", 22),
    ("delta", catalogue.curve("base.laplace_rdp", b=2), 10, "3", 26),
    # issue 13 item 2's tiny δ (minimiser near α = 1e24): 57 evaluations before, 41 now
    ("bbg", catalogue.curve("base.laplace_rdp", b="3189.1605773261945"), 1, "1.3875498994770122e-229", 45),
])
def test_smooth_curves_keep_their_evaluation_counts(statement, curve, steps, param, most):
    # the fallback replaces golden sections only: where Brent's parabolas work it changes nothing (counts as before)
    _, _, evaluations = _search(statement, curve, steps, param)
    assert evaluations <= most


def test_brent_stays_bounded_with_a_useless_fallback():
    # a fallback that always proposes the point next to the bracket's right end: after FALLBACK_RUN such steps
    # without halving the bracket Brent takes golden sections again, so it still converges
    calls = []

    def f(s):
        calls.append(s)
        return abs(s - mpf("0.3")) + (s - mpf("0.3")) ** 2

    with mp.workdps(ref.SEARCH_DPS):
        x = ref._brent(f, mpf(0), mpf("0.5"), mpf(1), fallback=lambda a, x, b: b - (b - a) / 20)
    assert abs(x - mpf("0.3")) < mpf(10) ** -9
    assert len(calls) < 120


@pytest.mark.slow
def test_sgm_cliff_conversion_is_the_minimum():
    # the case of FINDINGS.md (~50 s before, 56 SGM quadratures; now 44): the value is ≤ the objective at orders
    # around α* on both sides of the cliff, to the certified tolerance
    ref._minimise.cache_clear()
    curve = catalogue.curve("base.sgm_rdp", q=str(Q_CLIFF), sigma=100)
    counted, calls = _counting(curve)
    delta = ref.rdp_to_delta(counted, mpf("0.001"))
    assert len(calls) <= 46
    s = ref._minimise("delta", counted, 1, mpmath.nstr(mpf("0.001"), ref.SEARCH_DPS))
    alpha = 1 + mpmath.exp(s)
    assert 277000 < alpha < 278000
    with mp.workdps(30):
        for step in (mpf("-1"), mpf("-0.01"), mpf("0.01"), mpf("1")):
            a = alpha + step
            log_delta = ref._objective("delta", curve(a), a - 1, mpf("0.001"))[0]
            assert mpmath.log(delta) <= log_delta + mpf(10) ** -11


# ---------------------------------------------------------------------------------------------------
# 2. ZW19: the curve values shared by the two runs of the self-check


def _unshared(monkeypatch):
    """The pre-s14 behaviour: each run evaluates the curve at its own precision, no spot check."""
    monkeypatch.setattr(zw19, "_curve_value", lambda curve, ell: zw19.to_mpf(curve(mpf(ell))))
    monkeypatch.setattr(zw19, "_spot_check", lambda curve, ell: None)


@pytest.mark.parametrize("fn", [zw19.zw19_upper, zw19.zw19_lower, zw19.zw19_lower_interpolated])
def test_zw19_evaluates_each_order_once_with_the_same_value(fn, monkeypatch):
    gaussian = catalogue.curve("base.gaussian_rdp", sigma=2)
    counted, calls = _counting(gaussian)
    value = fn(mpf("30.5"), mpf("0.05"), counted)
    top = 31 if fn is not zw19.zw19_lower else 30
    # each order 2..top once, plus at most one spot check per sum (⌊α⌋ and ⌈α⌉)
    assert len(calls) <= (top - 1) + 2
    assert len({int(a) for a in calls}) == top - 1
    _unshared(monkeypatch)
    counted, calls = _counting(gaussian)
    assert fn(mpf("30.5"), mpf("0.05"), counted) == value
    assert len(calls) >= 2 * (top - 1)  # before: every order in both runs


def test_zw19_still_catches_a_curve_that_loses_digits():
    # a curve whose value moves in the 45th digit with the precision (the lower run's 58 digits vs 70): the
    # self-check's runs now share the values, and the spot check at the largest term still refuses it
    def lossy(alpha):
        return mpf(alpha) / 8 * (1 + mpf(10) ** (15 - mp.dps))

    with pytest.raises(PrecisionError, match="differs between"):
        zw19.zw19_upper(mpf(12), mpf("0.1"), lossy)
    ok = zw19.zw19_upper(mpf(12), mpf("0.1"), lambda alpha: mpf(alpha) / 8)
    assert ok > 0


def test_zw19_nested_in_zw19_gets_its_own_table(monkeypatch):
    gaussian = catalogue.curve("base.gaussian_rdp", sigma=3)

    def inner(alpha):
        return zw19.zw19_upper(alpha, mpf("0.5"), gaussian)

    value = zw19.zw19_lower(mpf(6), mpf("0.1"), inner)
    _unshared(monkeypatch)
    assert zw19.zw19_lower(mpf(6), mpf("0.1"), inner) == value


def test_nested_zw19_evaluates_the_curve_once_per_run_at_its_precision():
    # inside another self-checked evaluator (e.g. a conversion's order search) ZW19 runs once per outer run, with
    # the curve at that run's precision: no shared table, no extra digits
    seen = []

    def curve(alpha):
        seen.append(mp.dps)
        return mpf(alpha) / 8

    @precision.self_checked
    def outer(q):
        return zw19.zw19_upper(mpf(5), q, curve)

    assert outer(mpf("0.1")) > 0
    low, high = mp.dps + precision.GUARD_LOW, mp.dps + precision.GUARD_HIGH
    assert sorted(seen) == [low] * 4 + [high] * 4


@pytest.mark.slow
def test_zw19_with_sgm_curve_at_tiny_curve_q(monkeypatch):
    # α ≈ 300 with the curve's q = 1e-100 (FINDINGS.md: minutes in the reference): 299 SGM evaluations once
    # (6.2 s CPU before, 3.3 s now on the development machine), the same value as with per-run evaluation
    curve = catalogue.curve("base.sgm_rdp", q="1e-100", sigma=30)
    counted, calls = _counting(curve)
    value = zw19.zw19_upper(mpf(300), mpf("0.01"), counted)
    assert len(calls) <= 299 + 1
    _unshared(monkeypatch)
    assert zw19.zw19_upper(mpf(300), mpf("0.01"), curve) == value


# ---------------------------------------------------------------------------------------------------
# 3. int and float arguments of a direct call become mpf at entry

def test_direct_calls_with_ints_compute_in_mpf():
    from dpspec.reference.base.gaussian import gaussian_rdp
    from dpspec.reference.base.laplace import laplace_pure, laplace_rdp
    from dpspec.reference.base.sgm import sgm_rdp

    assert laplace_rdp(2, 1) == catalogue.get("base.laplace_rdp").evaluate(alpha=2, b=1).value
    assert laplace_rdp(2, 1) == laplace_rdp(mpf(2), mpf(1))
    assert laplace_pure(3) == 1 / mpf(3)
    assert gaussian_rdp(3, 7) == mpf(3) / 98
    assert gaussian_rdp(alpha=3.0, sigma=7) == mpf(3) / 98
    assert sgm_rdp(2, 0.5, 3) == sgm_rdp(mpf(2), mpf("0.5"), mpf(3))


def test_integer_parameters_keep_their_ints():
    from dpspec.reference.base.composition import basic_composition

    direct = basic_composition(0.5, 1e-6, 3)
    bound = catalogue.get("base.basic_composition").evaluate(eps=0.5, delta=1e-6, k=3).value
    assert direct == bound
