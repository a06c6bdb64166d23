"""Edge defects of the PTR statements (``ptr.*``, seed 001) and of the PTR training operators, pinned at the points
where they were found: domain extremes (1e-320, 1e300, 1 + 2^-52, 1e308, integer ends), non-finite and extreme
per-sample gradients, malformed sampler arguments, and the agreement of fast and reference on theorem conditions
and on ``allow_outside``. Each test failed on the code before the fix its docstring names, at one of its points at
least; a few points pin neighbouring cases that already held (the last session's thm5_2 point, non-integer α for
[ZW19], the allow_outside semantics of the statements whose conditions were already consistent).
"""
import itertools
import math

import mpmath
import pytest
import torch
from mpmath import mpf

from _helpers import assert_fast_matches_at, reference_value, relative_error
from dpspec.fast import gaussian_trimmed_sum, poisson_sample, ptr_trimmed_sum
from dpspec.fast.ptr import bounds as F
from dpspec.fast.ptr import operators as O
from dpspec.fast.ptr import rq as R
from dpspec.fast.ptr.utility import thm5_2 as fast_thm5_2
from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.ptr import lemma_a1 as ref_lemma_a1, thm4_4 as ref_thm4_4
from dpspec.reference.ptr.spec import FIG3_STEPS, ZW19_ALPHA_MAX

catalogue.load_all()

DBL_MAX = 1.7976931348623157e308
THM5_2 = dict(n=100, F=10, d=10, R=1, beta=1, lam_sc=1, sigma_g=0.1, sigma1=0.1, sigma2=5, eta_B=1e-5)  # examples
PTR = dict(q=0.01, sigma1=8.0, sigma2=4.0, b=1.0, delta0=1e-8)  # the statements' examples (Fig. 2 setting)


def _fast(x) -> float:
    return float(x)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 5.2 (ptr.thm5_2): no intermediate over- or underflow (fast/ptr/utility.py, base-2 log space)

@pytest.mark.parametrize("point", [
    dict(THM5_2, lam_sc=1e308),  # 2λ(n−2F) overflowed: 0.0 where the bound is 6.25e-308
    # R²·F/n², σ2², η·spread overflowed: inf where the bound is 5.7e98
    dict(THM5_2, R=1e200, lam_sc=1e300, sigma2=1e201, eta_B=0.01),
    dict(THM5_2, R=1e-200, eta_B=1e-300),  # (F/n)²R² underflowed to 0, leaving η·spread/gap: 1e-298 for 6.25e-105
    # the last session's point (η_B² underflowed): still exact
    dict(n=1, F=0, d=1, R=1000, beta=1000, lam_sc=1000, sigma_g=0, sigma1=0.05, sigma2=100, eta_B=8.37531e-285),
])
def test_thm5_2_is_exact_where_intermediates_leave_the_float_range(point):
    """The value agrees with the reference to 1e-12 relative, with no absolute floor (the suite's default floor
    1e-300 would let 0.0 pass for 6.25e-308)."""
    ref = reference_value("ptr.thm5_2", **point)
    assert 2.2250738585072014e-308 < ref < DBL_MAX  # an ordinary double
    assert relative_error(fast_thm5_2(**point), ref) <= 1e-12


def test_thm5_2_rounds_to_zero_only_below_the_float_range():
    """The issue's point (n = 1, λ = 1e308, η_B = 8.4e-285): the bound is 8.4e-589, below the smallest subnormal,
    so 0.0 is its correctly rounded value (the reference is 8.4e-589, not 6.25e-308)."""
    point = dict(n=1, F=0, d=1, R=1000, beta=1000, lam_sc=1e308, sigma_g=0, sigma1=0.05, sigma2=100,
                 eta_B=8.37531e-285)
    ref = reference_value("ptr.thm5_2", **point)
    assert ref < mpf(2) ** -1075 and _fast(fast_thm5_2(**point)) == 0.0


def test_thm5_2_conditions_refuse_where_squares_overflow():
    """σ2 = 1e200 < the (151) bound ≈ 9.5e200 at R = 1e201: the old float check compared inf ≥ inf and accepted."""
    point = dict(THM5_2, R=1e201, lam_sc=1e300, sigma2=1e200, eta_B=0.01)
    with pytest.raises(ConditionError) as ref_err:
        reference_value("ptr.thm5_2", **point)
    with pytest.raises(ConditionError) as fast_err:
        fast_thm5_2(**point)
    assert fast_err.value.failed == ref_err.value.failed == [ref_err.value.failed[0]]
    assert ref_err.value.failed[0].startswith("sigma2:")


# ---------------------------------------------------------------------------------------------------------------
# Theorem 4.3 family and [ZW19]: no overflow of α(α−1), no NaN from 0·inf

@pytest.mark.parametrize("sid, extra", [("ptr.thm4_3", {}), ("ptr.thm4_3_general", {"tau": 0.5}),
                                        ("ptr.a1_1_no_release", {})])
@pytest.mark.parametrize("alpha", [1e300, 1e308])
def test_thm4_3_family_at_huge_orders(sid, extra, alpha):
    """α(α−1)/(2σ²) overflowed, so ε = inf where ε ≈ α/(2σ2²) = 3.1e298 (α = 1e300)."""
    p = dict(alpha=alpha, **{k: PTR[k] for k in ("sigma1", "sigma2", "b", "delta0")}, **extra)
    ref = reference_value(sid, **p)
    fast = catalogue.get(sid).fast_function()(**p)
    assert relative_error(fast, ref) <= 1e-12


@pytest.mark.parametrize("name, value", [("sigma1", 1e-320), ("sigma1", 1e-300), ("sigma2", 5e-324), ("b", 1e-320)])
@pytest.mark.parametrize("alpha", [2.0, 2.5])
def test_zw19_upper_is_inf_not_nan_beyond_the_float_range(name, value, alpha):
    """(1 − t)·K(⌊α⌋) + t·K(⌈α⌉) at integer α was 1·inf + 0·inf = NaN; the reference is ~1e640 (beyond float64),
    so inf is the correctly rounded value."""
    p = dict(PTR, alpha=alpha, **{name: value})
    ref = reference_value("ptr.zw19_upper", **p)
    assert ref > DBL_MAX
    assert _fast(F.zw19_upper(**p)) == math.inf


def test_zw19_lower_reference_at_large_sigma1():
    """T1 took ln(1 + X) from 1 + X (X = 6e-10): 9 digits lost, the reference's self-check raised (at the
    catalogue's 50 digits, in the condition T2 ≥ T1)."""
    p = dict(PTR, alpha=2.0, sigma1=1e10)
    ref = reference_value("ptr.zw19_lower", **dict(p, delta0="1e-8"))  # as typed on the command line
    assert relative_error(F.zw19_lower(**p), ref) <= 1e-12


@pytest.mark.parametrize("sid", ["ptr.zw19_upper", "ptr.zw19_lower"])
def test_zw19_orders_are_bounded_in_both_paths(sid):
    """The [ZW19] sum has ⌊α⌋ − 1 terms: α = 1e10 hung the reference and exhausted the fast path's memory
    (α = 1e100 raised a raw OverflowError). Both now refuse above ZW19_ALPHA_MAX with a DomainError naming α."""
    for alpha in (ZW19_ALPHA_MAX * 10, 1e100):
        with pytest.raises(DomainError, match=r"^alpha="):
            reference_value(sid, **dict(PTR, alpha=alpha))
        with pytest.raises(DomainError, match=r"^alpha="):
            catalogue.get(sid).fast_function()(**dict(PTR, alpha=alpha))


# ---------------------------------------------------------------------------------------------------------------
# Conditions of Lemma A.1 and Theorem 4.4: one predicate in both paths

def _margins(p, sid):
    """|rhs − lhs|/scale of each condition of ``sid`` at p, at 60 digits (reference/ptr/thm4_4.py terms)."""
    with mpmath.workdps(60):
        if sid == "ptr.lemma_a1":
            q_eff, sigma = p["q"], p["sigma"]
            out = {"q": abs(p["q"] - mpf(1) / 5) / (mpf(1) / 5), "sigma": abs(sigma - 4) / 4}
        else:
            q_eff, sigma = ref_thm4_4.q_prime(p["q"], p["b"]), p["sigma2"]
            lhs, rhs = 4 * p["q"], (1 - p["q"]) * mpmath.exp(-1 / p["b"])
            out = {"C1": abs(rhs - lhs) / max(lhs, rhs), "C2": min(abs(p["sigma1"] - sigma) / sigma,
                                                                    abs(sigma - 4) / 4)}
        for name, terms in (("C3", ref_thm4_4._c3_terms), ("C4", ref_thm4_4._c4_terms)):
            lhs, rhs, scale = terms(p["alpha"], q_eff, sigma)
            out[name] = abs(rhs - lhs) / abs(scale)
    return out


def _compare_acceptance(sid, conditions, fast_masks, points):
    """Every condition, at every point not within 1e-10 (relative) of its boundary, holds in both paths or in
    neither; returns the number of (point, condition) pairs compared."""
    names = list(points[0])
    tensors = {k: torch.tensor([float(p[k]) for p in points], dtype=torch.float64) for k in names}
    masks = fast_masks(**tensors)
    compared, wrong = 0, []
    with mpmath.workdps(50):  # the catalogue's precision
        for i, p in enumerate(points):
            mp_p = {k: mpf(v) for k, v in p.items()}
            margins = _margins(mp_p, sid)
            for c in conditions:
                if margins[c.name] <= mpf("1e-10"):
                    continue  # within float64 rounding of the boundary: the fast path cannot decide it
                compared += 1
                if bool(c.holds(mp_p)) != bool(masks[c.name][i]):
                    wrong.append((c.name, p, bool(c.holds(mp_p))))
    assert not wrong, f"{sid}: fast and reference disagree at {wrong[:5]} ({len(wrong)} in all)"
    return compared


EXTREME_Q = [5e-324, 1e-320, 1e-300, 1e-100, 1e-6, 0.01, 0.15, 0.5]
EXTREME_SIGMA = [1e-300, 3.9, 4.0, 8.0, 1e5, 1e154, 1e300]
EXTREME_ALPHA = [1 + 2**-52, 1 + 1e-9, 2.0, 10.0, 1e6, 1e100, 1e300]


def test_lemma_a1_fast_and_reference_accept_the_same_points():
    """At q = 1e-320 the fast path formed 1/(q(α−1)) = inf and (C4) as inf/inf = NaN: it refused what the reference
    accepted; and L + ln(qα) cancelled all 50 of the reference's digits at q = 1e-320, α = 1e200."""
    points = [dict(alpha=a, q=q, sigma=s) for a, q, s in itertools.product(EXTREME_ALPHA, EXTREME_Q, EXTREME_SIGMA)]
    assert _compare_acceptance("ptr.lemma_a1", ref_lemma_a1.CONDITIONS, F.lemma_a1_condition_masks, points) > 1000


def test_thm4_4_fast_and_reference_accept_the_same_points():
    points = [dict(alpha=a, q=q, sigma1=2 * s, sigma2=s, b=b, delta0=1e-8) for a, q, s, b in
              itertools.product(EXTREME_ALPHA, EXTREME_Q, EXTREME_SIGMA, [1e-3, 1.0, 1e3])]
    assert _compare_acceptance("ptr.thm4_4", ref_thm4_4.CONDITIONS, F.thm4_4_condition_masks, points) > 3000


@pytest.mark.parametrize("alpha", [2.0, 10.0, 100.0])
def test_conditions_at_q_1e_320_accept_in_both_paths(alpha):
    """The issue's points: the reference accepted, the fast path raised ConditionError (C4)."""
    assert_fast_matches_at("ptr.lemma_a1", alpha=alpha, q=1e-320, sigma=4.0)
    assert bool(F.thm4_4_valid(alpha, 1e-320, 8.0, 4.0, 1.0, 1e-8))


def test_c3_knife_edge_is_decided_exactly_by_the_reference():
    """At α = σ = 1e300, q = 1/2, (C3) reads α ≤ α − 1381.6 + O(1/α): false, but 50 digits cannot see it (the
    reference said true); it now raises its precision until the sign is certain."""
    with mpmath.workdps(50):
        assert not ref_thm4_4.mtz_c3(mpf(1e300), mpf("0.5"), mpf(1e300))
        assert ref_thm4_4.mtz_c3(mpf(1e300), mpf("0.5"), mpf(1e300) * 2)


def test_thm4_4_reference_next_to_alpha_one():
    """(1+x)^α − 1 − αx cancelled 16 digits at α = 1 + 2^-52: the reference's self-check raised PrecisionError."""
    assert_fast_matches_at("ptr.thm4_4", **dict(PTR, alpha=1 + 2**-52))


# ---------------------------------------------------------------------------------------------------------------
# R_q^(β): the reference's range, exact r^β, and the fast path at tiny b

@pytest.mark.parametrize("sid", ["ptr.rq", "ptr.rq_tilde"])
@pytest.mark.parametrize("beta", [1e308, -1e300])
def test_rq_reference_refuses_huge_orders_in_one_short_line(sid, beta):
    """β = 1e308: a self-check failure hundreds of digits long; β = −1e300 ran without end. Now a DomainError
    naming beta and its range at this q, b. The fast path refuses the same range with the same words (issue 13:
    it answered inf, R = e^{1.7e306}, where the reference refuses; fast/ptr/rq.py, _check_reference_range)."""
    with pytest.raises(DomainError) as err:
        reference_value(sid, beta=beta, q=0.01, b=1)
    message = str(err.value)
    assert message.startswith("beta=") and "\n" not in message and len(message) < 250 and "≤" in message
    with pytest.raises(DomainError) as fast_err:
        catalogue.get(sid).fast_function()(beta=beta, q=0.01, b=1)
    assert str(fast_err.value) == message


def test_rq_reference_keeps_r_minus_one_below_its_precision():
    """1 − q + qρ rounded to 1 at q = 1e-300: R_q^(1e300) came out 1.0, while R ≈ E[e^{ρ−1}] = 1.684."""
    for sid in ("ptr.rq", "ptr.rq_tilde"):
        ref = reference_value(sid, beta=1e300, q=1e-300, b=1)
        assert ref > mpf("1.3")
        assert relative_error(catalogue.get(sid).fast_function()(beta=1e300, q=1e-300, b=1), ref) <= 1e-12


def test_rq_reference_carries_the_digits_of_its_exponent():
    """R = e^{1.7e8} at β = 1e10: 9 digits of ln R went to the exponent and the self-check failed."""
    ref = reference_value("ptr.rq", beta=1e10, q=0.01, b=1)
    assert relative_error(R.log_rq(1e10, 0.01, 1.0), mpmath.log(ref)) <= 1e-12


@pytest.mark.parametrize("b", [1e-8, 1e-16, 1e-300])
def test_fast_rq_at_tiny_b(b):
    """The body's weight e^{−u/2 − 1/(2b)} cancelled two numbers of size 1/(2b), and the end-point mesh
    −1/b + d lost d: R^(−1) was 1.505 at b = 1e-16 (exact: 1/(1−q) = 1.0101 to double precision for b ≤ 1e-8,
    the other terms being O(e^{−1/(2b)})); 1e-6 relative off at b = 1e-12. rq_tilde(2) = R^(−1) likewise."""
    expected = 1 / (1 - 0.01)
    assert relative_error(R.rq(-1.0, 0.01, b), expected) <= 1e-13
    assert relative_error(R.rq_tilde(2.0, 0.01, b), expected) <= 1e-13


def test_rq_at_tiny_b_both_paths_answer_orders_up_to_one_half():
    """rq_tilde's reference returned 0.505 at b = 1e-300 (its quadrature missed the layer of width b at s = 0), then
    refused every b < 2e-9 while the fast path answered (issue 13). Below b = 2e-9 an order ≤ ½ now has the proven
    closed form c₋^order (reference/ptr/rq.py, beside _TINY_B_MAX_ORDER) in both paths, also where 2/b is not a
    double (the fast quadrature gave NaN at b = 1e-320 before it refused there)."""
    with mpmath.workdps(50):
        expected = reference_value("ptr.rq_tilde", beta=2, q=0.01, b=1e-300)
        assert abs(expected - 1 / (1 - mpf(0.01))) < mpf(10) ** -45  # c₋ = 1 − q + q·e^{−1e300}
    assert relative_error(R.rq_tilde(2.0, 0.01, 1e-300), expected) <= 1e-15
    assert relative_error(R.rq(-1.0, 0.01, 1e-320), reference_value("ptr.rq", beta=-1, q=0.01, b=1e-320)) <= 1e-15


# ---------------------------------------------------------------------------------------------------------------
# Fig. 3 direct route, Δ(S) and LS_TSUM at integer and float extremes

def test_fig3_direct_overflowing_step_eps_and_bounded_steps():
    """b = 1e-320: ε_s = 1/b = inf raised 'eps=inf is outside its domain' (a parameter the user never gave); the
    reference's ε is 1e322, beyond float64. T = 1e15 hung the reference and asked the fast path for 8 PB."""
    p = dict(steps=100, q=0.01, sigma1=8.0, b=1e-320, delta0=1e-8, delta_gauss=1e-7, delta_slack=1e-6)
    ref_eps, ref_delta = reference_value("ptr.fig3_direct", **p)
    eps, delta = F.fig3_direct(**p)
    assert ref_eps > DBL_MAX and _fast(eps) == math.inf and relative_error(delta, ref_delta) <= 1e-12
    for steps in (FIG3_STEPS.hi + 1, 10**15):
        with pytest.raises(DomainError, match=r"^steps="):
            reference_value("ptr.fig3_direct", **dict(p, b=1.0, steps=steps))
        with pytest.raises(DomainError, match=r"^steps="):
            F.fig3_direct(**dict(p, b=1.0, steps=float(steps)))


def test_safety_margin_with_a_huge_trim_count():
    """F = 1e300: max(F − m, 0) overflowed torch's int64 (raw OverflowError)."""
    points = [[0.1, 0.2], [0.5, 0.1], [0.9, 0.3], [0.2, 0.2]]
    ref = reference_value("ptr.safety_margin", points=points, F=1e300, tau=0.5, R=1.0)
    assert _fast(O.safety_margin_of_points(points, 1e300, 0.5, 1.0)) == float(ref)


# ---------------------------------------------------------------------------------------------------------------
# allow_outside: the fast paths refuse and evaluate exactly where and as the reference does

OUTSIDE = [
    ("ptr.thm4_2", dict(b=1.0, sigma1=1.0, delta0=1e-8, delta=1e-5)),
    ("ptr.fig3_direct", dict(steps=10, q=0.01, sigma1=1.0, b=1.0, delta0=1e-8, delta_gauss=1e-7, delta_slack=1e-6)),
    ("ptr.lemma_a1", dict(alpha=50.0, q=0.3, sigma=3.0)),
    ("ptr.thm4_4", dict(alpha=64.0, q=0.3, sigma1=4.0, sigma2=8.0, b=1.0, delta0=1e-8)),
    ("ptr.zw19_lower", dict(alpha=6.0, q=0.01, sigma1=4.0, sigma2=0.5, b=1.0, delta0=0.1)),
    ("ptr.thm5_2", dict(n=3, F=2, d=1, R=1, beta=1, lam_sc=1, sigma_g=0, sigma1=1, sigma2=0.1, eta_B=1e-3)),
    ("ptr.thm5_2", dict(THM5_2, R=1e201, lam_sc=1e300, sigma2=1e200, eta_B=0.01)),
]


@pytest.mark.parametrize("sid, point", OUTSIDE)
def test_allow_outside_has_the_reference_semantics(sid, point):
    """Refusal: the same failed conditions, same words and order (the CLI's --fast --allow-outside reports them);
    with allow_outside the same value (the reference's, marked not a bound there)."""
    with pytest.raises(ConditionError) as ref_err:
        reference_value(sid, **point)
    fn = catalogue.get(sid).fast_function()
    with pytest.raises(ConditionError) as fast_err:
        fn(**point)
    assert fast_err.value.failed == ref_err.value.failed
    fast, ref = assert_fast_matches_at(sid, allow_outside=True, **point)
    fast_values = fast if isinstance(fast, tuple) else (fast,)
    assert all(not math.isnan(float(v)) for v in fast_values)


# ---------------------------------------------------------------------------------------------------------------
# PTR-TMEAN and TSGD+Gaussian on corrupted, extreme and integer per-sample gradients

def _grads(m=8, d=3, seed=0):
    return torch.randn(m, d, dtype=torch.float64, generator=torch.Generator().manual_seed(seed)) * 2


CORRUPT = {1: math.nan, 4: math.inf, 6: -math.inf}


def _corrupted(g):
    bad = g.clone()
    for i, v in CORRUPT.items():
        bad[i, i % g.shape[1]] = v
    return bad


def _zeroed(g):
    clean = g.clone()
    clean[list(CORRUPT)] = 0
    return clean


@pytest.mark.parametrize("F_trim, tau", [(0, 0.5), (2, 0.5), (2, 5.0), (9, 0.5)])
def test_nonfinite_rows_are_clipped_to_the_zero_vector(F_trim, tau):
    """One NaN or inf entry made the aggregate all-NaN. A row with a non-finite entry is now the zero vector: the
    whole run (Δ̂, test outcome, aggregate) equals the run on the gradients with those rows zeroed, so the privacy
    argument is that of clipping (every clipped row has norm ≤ R; that row's contribution is 0)."""
    g = _grads()
    run = lambda x: ptr_trimmed_sum(x, F_trim, tau, 1.0, 1.0, 1e-3, 0.5, generator=torch.Generator().manual_seed(3))
    out, ref = run(_corrupted(g)), run(_zeroed(g))
    assert bool(torch.isfinite(out.aggregate).all())
    assert torch.equal(out.aggregate, ref.aggregate) and bool(out.passed == ref.passed)
    assert out.delta_hat.item() == ref.delta_hat.item()
    gauss = lambda x: gaussian_trimmed_sum(x, F_trim, 1.0, 0.5, generator=torch.Generator().manual_seed(3))
    assert bool(torch.isfinite(gauss(_corrupted(g))).all()) and torch.equal(gauss(_corrupted(g)), gauss(_zeroed(g)))
    factor, norms = O.clipped_norms([_corrupted(g)], 1.0)
    assert [factor[i].item() for i in CORRUPT] == [0.0] * 3 and [norms[i].item() for i in CORRUPT] == [0.0] * 3


@pytest.mark.parametrize("dtype, big", [(torch.float64, 1e200), (torch.float64, 1e-200), (torch.float32, 3e38),
                                        (torch.float32, 1e20)])
def test_every_finite_row_is_clipped_to_norm_at_most_R_in_its_own_direction(dtype, big):
    """A row whose norm overflowed (float32 squares overflow at 1.8e19, float64 at 1.3e154) had clip factor
    R/inf = 0: it contributed nothing yet was ranked at norm R. Its contribution is now R·g/||g||."""
    g = torch.tensor([[big, -big, big / 2]], dtype=dtype)
    R_clip = 0.5
    sigma = 1e-300 if dtype == torch.float64 else 1e-40  # the noise σR·N(0, I) vanishes against R
    out = gaussian_trimmed_sum(g, 0, R_clip, sigma, generator=torch.Generator().manual_seed(0))
    norm = 1.5 * big  # ||(1, −1, 1/2)|| = 3/2, exactly (no float norm of g: it is what overflowed)
    exact = g.double()[0] / big * (min(R_clip, norm) / 1.5)
    tol = 1e-14 if dtype == torch.float64 else 1e-6
    torch.testing.assert_close(out.double(), exact, rtol=tol, atol=0)
    assert torch.linalg.vector_norm(out.double()).item() <= R_clip * (1 + tol)
    norms = O.clipped_norms([g], R_clip)[1]
    assert norms.item() == pytest.approx(min(R_clip, norm), rel=1e-12, abs=0)


def test_integer_gradients_are_promoted_and_other_dtypes_refused():
    """int64 gradients raised a raw 'linalg.vector_norm: Expected a floating point' error."""
    gi = torch.randint(-5, 6, (7, 2, 2), generator=torch.Generator().manual_seed(0))
    a = ptr_trimmed_sum(gi, 2, 0.5, 3.0, 1.0, 1e-3, 0.7, generator=torch.Generator().manual_seed(1))
    b = ptr_trimmed_sum(gi.double(), 2, 0.5, 3.0, 1.0, 1e-3, 0.7, generator=torch.Generator().manual_seed(1))
    assert a.aggregate.dtype == torch.float64 and torch.equal(a.aggregate, b.aggregate)
    c = gaussian_trimmed_sum([gi, gi[:, 0]], 1, 3.0, 0.7, generator=torch.Generator().manual_seed(1))
    d = gaussian_trimmed_sum([gi.double(), gi[:, 0].double()], 1, 3.0, 0.7, generator=torch.Generator().manual_seed(1))
    assert all(torch.equal(x, y) for x, y in zip(c, d))
    for bad in (gi > 0, gi.to(torch.complex128), [gi, "x"], 3.0):
        with pytest.raises(DomainError, match=r"^per_sample_grads="):
            ptr_trimmed_sum(bad, 2, 0.5, 3.0, 1.0, 1e-3, 0.7)


@pytest.mark.parametrize("n, q, name", [(10, 2.0, "q"), (10, math.nan, "q"), (10, -0.1, "q"), (10, "0.5", "q"),
                                        (10, None, "q"), (-1, 0.5, "n"), (2.5, 0.5, "n"), (True, 0.5, "n"),
                                        (math.inf, 0.5, "n"), (1e300, 0.5, "n")])
def test_poisson_sample_validates_its_arguments(n, q, name):
    """q = 2 sampled everything, q = NaN nothing (silently); n = −1 and n = 2.5 raised raw torch errors."""
    with pytest.raises(DomainError, match=rf"^{name}=") as err:
        poisson_sample(n, q)
    assert "\n" not in str(err.value)


def test_poisson_sample_edges_of_its_domain():
    gen = torch.Generator().manual_seed(0)
    assert poisson_sample(0, 0.5, gen).numel() == 0 and poisson_sample(5, 0.0, gen).numel() == 0
    assert torch.equal(poisson_sample(5.0, 1.0, gen), torch.arange(5))


# ---------------------------------------------------------------------------------------------------------------
# Issue 13, open edge findings of the PTR fast path (FINDINGS.md): each test failed on the code before its fix

def test_zw19_with_a_zero_weight_and_an_infinite_curve_value_is_not_nan():
    """q = 1 makes the weights (1−q)^{α−ℓ} of ℓ < α exactly 0 while ε(ℓ) = inf (Laplace b = 1e-323, 1/b overflows):
    log w + log gain was −inf + inf = NaN (fast/base/zw19.py, log_excess); a zero weight now contributes 0. The
    reference is ≈ 1e323, beyond the double range: inf agrees."""
    from _helpers import curve_arg

    curve = curve_arg("ptr.thm4_3", sigma1=100.0, sigma2=100.0, b=1e-323, delta0=1e-12)
    for alpha in (5.0, 6.5):
        fast, ref = assert_fast_matches_at("base.zw19_upper", alpha=alpha, q=1.0, curve=curve)
        assert _fast(fast) == math.inf and ref > mpf("1e322")
    fast_curve = curve.fast()
    from dpspec.fast.base.zw19 import zw19_lower, zw19_upper

    assert _fast(zw19_upper(10000.0, 1.0, fast_curve)) == math.inf  # the issue's point (α = 1e4)
    assert _fast(zw19_lower(10000.0, 1.0, fast_curve)) == math.inf
    # a zero weight next to a finite gain still adds nothing: q = 1 is the curve itself at integer α
    finite = curve_arg("ptr.thm4_3", sigma1=100.0, sigma2=100.0, b=2.0, delta0=1e-12)
    assert_fast_matches_at("base.zw19_lower", alpha=7.0, q=1.0, curve=finite)


def test_thm4_3_general_with_subnormal_tau_and_sigma2_is_inf_not_nan():
    """τ²/σ2² was 0/0 = NaN at τ = 5e-324, σ2 = 1e-323 (both squares underflow); (τ/σ2)² = 0.25. The value is
    ≈ 5e645 (T1 with 1/σ2² = 1e646), inf in doubles."""
    point = dict(alpha=1.0000000000000007, sigma1=1e-06, sigma2=1e-323, tau=5e-324, b=1.0000000000000002,
                 delta0=0.0018223676841534625)
    fast, ref = assert_fast_matches_at("ptr.thm4_3_general", **point)
    assert _fast(fast) == math.inf and ref > mpf("1e645")
    # τ = σ2 = 1e-170: τ² and σ2² underflow to 0 (NaN before); the value ≈ 1e340 (1/σ2²) is inf in doubles
    fast, ref = assert_fast_matches_at("ptr.thm4_3_general", alpha=2.0, sigma1=1.0, sigma2=1e-170, tau=1e-170,
                                       b=1.0, delta0=1e-8)
    assert _fast(fast) == math.inf and ref > mpf("1e339")


def test_classical_gaussian_condition_below_the_reciprocal_range_of_delta():
    """1.25/δ overflowed for δ < 7e-309, so ε_N = inf and the fast path refused (ConditionError) where
    ε_N = √(2 ln(1.25/δ))/σ1 = 3.8e-5 (ln 1.25 − ln δ now, fast/ptr/bounds.py, _classical_gaussian_eps)."""
    assert_fast_matches_at("ptr.thm4_2", b=3.5656618625895735, sigma1=1e6, delta0=1e-300, delta=1e-310)
    assert_fast_matches_at("ptr.fig3_direct", steps=100, q=0.01, sigma1=1e6, b=3.5, delta0=1e-300,
                           delta_gauss=1.5e-323, delta_slack=1e-6, gaussian="classical")
    # where ε_N ≥ 1 both still refuse (σ1 = 1: ε_N = √(2·(ln 1.25 + 713.8)) = 37.8)
    for sid, point in (("ptr.thm4_2", dict(b=1.0, sigma1=1.0, delta0=1e-8, delta=1e-310)),
                       ("ptr.fig3_direct", dict(steps=10, q=0.01, sigma1=1.0, b=1.0, delta0=1e-8,
                                                delta_gauss=1e-320, delta_slack=1e-6))):
        with pytest.raises(ConditionError):
            reference_value(sid, **point)
        with pytest.raises(ConditionError):
            catalogue.get(sid).fast_function()(**point)


def test_zw19_lower_condition_is_decided_without_the_common_term():
    """T1(ℓ) and T2(ℓ) are both ℓ/(2σ1²) plus corrections below 1e-300 at σ2 = 1e300, b = 1e200, δ0 = 1e-300: the
    fast path compared the rounded terms and refused case2_dominates at ℓ = 2 (an ulp of T1), while σ2 ≥ σ1 makes
    T1 ≤ ℓ/(2σ1²) < T2 exactly. Now L = (ℓ−1)ε_Lap(ℓ) is compared with D = log1p(δ0·expm1(c − a)) in log space."""
    issue = dict(q=0.5, sigma1=8.0, sigma2=1e300, b=1e200, delta0=1e-300)
    assert_fast_matches_at("ptr.zw19_lower", alpha=2.5, **issue)
    fast = F.zw19_lower(alpha=2666.058445421417, **issue)  # the issue's point; reference 20.1347177266893755
    assert relative_error(fast, mpf("20.134717726689375537444400080432")) <= 1e-13


def _dominates_fast(n, s1, s2, b, d0) -> bool:
    t = [torch.tensor([float(v)], dtype=torch.float64) for v in (n, s1, s2, b, d0)]
    return bool(F._case2_dominates(*t))


def test_case2_dominates_agrees_with_the_exact_reference_decision_at_extremes():
    """The fast condition of ptr.zw19_lower against the reference's exact one (reference/ptr/thm4_3.py,
    case2_dominates_at: D ≤ L with the precision raised until the sign is certain) on a grid of extreme values.
    At ℓ = 2, σ1 = 1e150, σ2 = 100, b = 1e200, δ0 = 5e-324, T1 − T2 = 5e-328 > 0 is 28 digits below T1: the condition
    fails, and comparing the rounded float terms (the old fast path) said it holds. At σ2 = 1e100, b = 1e300,
    δ0 = 1e-200 the gap is 100 digits below T1, beyond the 50 digits of comparing the reference's T1 and T2."""
    from dpspec.reference.ptr.thm4_3 import case2_dominates_at

    for point in ((2, 1e150, 100.0, 1e200, 5e-324), (2, 1e150, 1e100, 1e300, 1e-200)):
        assert not case2_dominates_at(*point) and not _dominates_fast(*point)
    assert case2_dominates_at(2, 8.0, 1e300, 1e200, 1e-300) and _dominates_fast(2, 8.0, 1e300, 1e200, 1e-300)
    values = [1e-300, 0.05, 1.0, 8.0, 1e5, 1e150, 1e300]
    disagree = [(n, s1, s2, b, d0) for n in (2, 7) for s1, s2 in itertools.product(values, values)
                for b in (1e-300, 1.0, 1e200) for d0 in (5e-324, 1e-8, 0.5)
                if _dominates_fast(n, s1, s2, b, d0) != all(case2_dominates_at(l, s1, s2, b, d0)
                                                            for l in range(2, n + 1))]
    assert not disagree, disagree[:5]


@pytest.mark.parametrize("points", [[[1.0, math.nan], [0.5, 0.2]], [[math.inf]], torch.tensor([[0.1], [-math.inf]])])
def test_catalogue_forms_of_thm5_1_and_safety_margin_refuse_non_finite_points(points):
    """The fast ptr.thm5_1 / ptr.safety_margin answered for points with NaN or inf entries, which the reference's
    Points domain refuses (fast/ptr/operators.py, _points_and_norms)."""
    for sid, extra in (("ptr.thm5_1", dict(F=1, r=0, R=1.0)), ("ptr.safety_margin", dict(F=1, tau=0.5, R=1.0))):
        with pytest.raises(DomainError, match=r"^points=") as ref_err:
            reference_value(sid, points=points, **extra)
        with pytest.raises(DomainError, match=r"^points=") as fast_err:
            catalogue.get(sid).fast_function()(points=points, **extra)
        domain_text = str(ref_err.value).split(" domain ")[-1]
        assert "\n" not in str(fast_err.value) and str(fast_err.value).endswith(domain_text)
    assert float(O.ls_tsum([[0.1, 0.2], [1.0, 0.0]], 1, 0, 1.0)) == 1.0  # finite points still answer


def test_rq_tilde_refuses_where_the_reference_does_at_tiny_b():
    """At β = −1 + 1e-16 (order 1 − β ≈ 2 > ½), q = 3.8e-6, b = 1e-200 the fast path answered inf while the reference
    refuses b: now both refuse with the same words."""
    point = dict(beta=-0.9999999999999999, q=3.8e-6, b=1e-200)
    with pytest.raises(DomainError) as ref_err:
        reference_value("ptr.rq_tilde", **point)
    with pytest.raises(DomainError) as fast_err:
        R.rq_tilde(**point)
    assert str(fast_err.value) == str(ref_err.value) and str(ref_err.value).startswith("b=")


@pytest.mark.parametrize("beta", [-3.0, 0.25, 0.5])
def test_rq_closed_form_below_b_2e_9_continues_the_quadrature(beta):
    """The closed form R = c₋^β (b < 2e-9, β ≤ ½) and the quadrature just above b = 2e-9 (fast mesh, and the
    reference's tanh-sinh) agree: their difference is O(e^{−1/(2b)})."""
    q = 0.3
    expected = beta * math.log1p(-q)
    assert abs(float(R.log_rq(beta, q, 2.1e-9)) - expected) <= 1e-13 * max(1.0, abs(expected))
    assert abs(float(R.log_rq(beta, q, 1.9e-9)) - expected) <= 1e-15 * max(1.0, abs(expected))
    assert_fast_matches_at("ptr.rq", beta=beta, q=q, b=1.9e-9)


def test_reference_zw19_lower_condition_is_decided_exactly_where_t1_and_t2_round_equal():
    """reference/ptr/blackbox.py case2_dominates compared the rounded T1 and T2; at σ1 = 1e150 both are a/(ℓ−1) plus
    corrections 100 digits below it, so the 50-digit comparison called (E7's proviso) true where it fails (σ2 < σ1:
    D = log1p(δ0·expm1(c − a)) > 0 = ... > L). It now refuses, as the fast path does."""
    from dpspec.reference import catalogue
    from dpspec.reference.errors import ConditionError

    point = dict(alpha=2, q=0.5, sigma1=1e150, sigma2=1e100, b=1e300, delta0=1e-200)
    with pytest.raises(ConditionError, match="case2_dominates"):
        catalogue.get("ptr.zw19_lower").evaluate(**point)


def test_rq_tilde_near_q_one_keeps_the_digits_of_a_small_r():
    """fast log_r formed log1p(q·expm1(u)) everywhere: at q = 1 − 2.2e-16, u = −1/b = −20 the sum 1 + q·expm1(u)
    ≈ 2e-9 kept only 7 digits, and R̃ at β = 8.2 (order −7.2) was 1.35e-7 too large (found by the agreement run).
    Where r < ½ it is now logaddexp(log(1 − q), log q + u)."""
    point = dict(beta=8.19568478311037, q=0.9999999999999998, b=0.05)
    from dpspec.fast.ptr import rq as fast_rq

    want = reference_value("ptr.rq_tilde", **point)
    got = float(fast_rq.rq_tilde(**point))
    assert relative_error(got, want) < 1e-12, (got, want)


@pytest.mark.parametrize("alpha", [
    9.999999999999996,  # the same overflow: K ≈ (ℓ−1)·4.5e307 is inf from ℓ = 5 on; reference 0.5 s
    pytest.param(9999.999999999996, marks=pytest.mark.slow),  # where it was found; reference ~22 s (ZW19 sum to 1e4)
])
def test_zw19_lower_is_not_inf_where_its_value_is_a_double(alpha):
    """At b = 2.2e-308 Theorem 4.3's ε(ℓ) ≈ 4.5e307, so the ZW19 log-sum K ≈ (ℓ−1)·ε(ℓ) overflowed and the fast
    LOWER bound came out inf where the value is 4.49e307 (agreement run, at α ≈ 1e4). K/(α − 1) is now formed from
    the dominating term scaled by (ℓ−1)/(α−1). At α ≈ 10 K overflows as well (the same branch: with it removed the
    fast value is inf at both orders), and the reference sums 10 terms instead of 10⁴."""
    point = dict(alpha=alpha, q=6.003973276093422e-06, sigma1=4.033379204578527, sigma2=4.0,
                 b=2.2250738585072014e-308, delta0=1e-30)
    got = float(F.zw19_lower(**point))
    want = reference_value("ptr.zw19_lower", dps=20, **point)
    assert math.isfinite(got) and relative_error(got, want) < 1e-10, (got, want)
