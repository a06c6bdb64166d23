"""The fast q_E's tilted-FFT n-fold convolution (fast/bc/qe.py ``tilted_power`` / ``power_law``; seed 002 Def. 4.1;
notes batch-clipping-fdp.md §4.7; issue 15) against the exact reference (reference/bc/qe.py: rationals and fixed-point
big integers at 50 digits), exact moments, and the direct log-space convolution.

Tolerance table (relative error on a pmf entry q, by region; the reason beside each):

| region | tolerance | reason |
|---|---|---|
| reference entries q > 1e-70 (tilted-FFT path) | 5e-12 + 5e-15·e^{drop} per point, ≤ 2e-10 overall | each value comes from a tilt where it is within e^{-drop}, drop ≤ TRUST = 10, of that tilt's peak; the FFT floor is a few 1e-15 of the peak (measured: ≤ 4e-11 at drops 8–10, ≤ 3e-13 within e^{-6}) |
| reference entries q > 1e-70 (direct path: laws spanning ≤ 512 values, fallback) | 2e-10 here (tests/bc/test_bc_fast.py holds its small cases to 1e-12) | log-space direct convolution, every output a logsumexp of exact terms (measured ≤ 1e-13) |
| reference entries in [1e-320, 1e-80] (reference at 330 extra digits) | 2e-10 | the same bound; log p = log p_θ − θ(w − nμ₀) + nκ(θ) adds ≲ 1e-16·|log q| ≲ 1e-13 |
| reference entries ≤ 1e-70 at 50 digits | 1e-75 absolute | the reference drops entries below 10^-80 at each convolution (its own floor) |
| tails P(c² > c), P(c² < c) | 2e-10 (+1e-75 + the reference's dropped mass, absolute) | sums of the entries above; the reference counts what it dropped (< 10^-80 each, up to ~4e-74 in all at T = 10⁷) at +inf |
| total mass, mean and variance of c² at the done-when extremes (E = 10³, N/(sm) = 10⁴, g ≤ 64) | 2e-11 (total), 1e-10 (mean, variance) | exact from one round's / one epoch's law (T·E[L²], T·Var[L²]); the float64 round law's ~1 ulp per log p_k is multiplied by n·p_k in the n-fold law (≈ 1e-12 at T = 10⁷) |
"""
from __future__ import annotations

import math

import mpmath
import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from dpspec.fast.bc import qe as fq
from dpspec.reference.bc import qe as rq
from dpspec.reference.errors import ConditionError, DomainError, ParameterError

F64 = torch.float64


def _ref(cfg, digits=50, extra=0):
    with mpmath.workdps(digits):
        return rq.qe_law(*cfg, extra_digits=extra)


def _compare(fast: fq.FastLaw, ref, rel=1e-11, floor=1e-75, ref_floor=1e-70):
    """Every reference entry above ``ref_floor`` within ``rel``, every entry within ``floor`` absolute, no fast mass
    above ``floor`` outside the reference's support, tails at five points within ``rel`` (+ ``floor`` + the reference's
    dropped mass, which it counts at +inf). Returns the largest relative
    error seen on the entries above ``ref_floor``."""
    sup = torch.tensor(ref.support)
    lo, n = fast.offset, fast.log_pmf.numel()
    inside = (sup >= lo) & (sup < lo + n)
    fv = torch.zeros(sup.numel(), dtype=F64)
    fv[inside] = torch.exp(fast.log_pmf[sup[inside] - lo])
    rv = torch.tensor([float(q) for q in ref.pmf], dtype=F64)
    keep = rv > ref_floor
    worst = float(((fv - rv).abs() / rv)[keep].max())
    assert worst <= rel, worst
    assert bool(((fv - rv).abs() <= rel * rv + floor).all())
    others = torch.ones(n, dtype=torch.bool)
    others[(sup[inside] - lo)] = False
    extra = float(torch.exp(torch.logsumexp(fast.log_pmf[others], 0))) if bool(others.any()) else 0.0
    assert extra <= floor, extra
    k = len(ref.support)
    floor += float(ref.dropped)  # the reference counts the entries it dropped (< 10^-80 each) at c² = +inf
    for c2 in {ref.support[0], ref.support[k // 4], ref.support[k // 2], ref.support[3 * k // 4], ref.support[-1]}:
        for part in ("tail_below", "tail_above"):
            with mpmath.workdps(50):
                r = float(getattr(ref, part)(c2))
            f = getattr(fast, part)(c2)
            assert abs(f - r) <= rel * abs(r) + floor, (c2, part, f, r)
    return worst


def _uses_fft(cfg) -> bool:
    """Whether qe_law(*cfg) takes the tilted-FFT path (not the binomial closed form, not the direct small-law path,
    not the direct fallback)."""
    sampling, N, m, s, g, E = cfg
    if sampling == "subsampling":
        rl = fq.round_law_subsampling(N, m, s, g)
        if rl.numel() == 2:
            return False
        base, n = fq._squares_law(rl), E * (N // (m * s))
    else:
        base, n = fq.epoch_law_shuffling(N, m, s, g), E
    fin = torch.nonzero(torch.isfinite(base.log_pmf)).flatten()
    if n == 1 or fin.numel() < 2 or n * (int(fin[-1]) - int(fin[0])) <= fq.DIRECT_SPAN:
        return False
    return fq.tilted_power(base, n) is not None


# ---------------------------------------------------------------------------------------------------------------
# against the exact reference


@st.composite
def fft_configs(draw):
    """Configurations whose n-fold law is wide enough for the tilted-FFT path (and cheap for the reference)."""
    sampling = draw(st.sampled_from(["subsampling", "shuffling"]))
    m = draw(st.integers(1, 4))
    s = draw(st.integers(1, 3))
    R = draw(st.integers(2, 30))
    N = R * m * s
    g = draw(st.integers(2, min(5, N)))
    E = draw(st.integers(2, 80) if sampling == "shuffling" else st.integers(1, 6))
    return (sampling, N, m, s, g, E)


@settings(max_examples=12, deadline=None)
@given(fft_configs())
def test_qe_matches_reference_drawn(cfg):
    """Hypothesis-drawn (sampling, N, m, s, g, E): the fast law (whichever path it takes) against the reference."""
    _compare(fq.qe_law(*cfg), _ref(cfg), rel=2e-10)


@st.composite
def wide_configs(draw):
    """Configurations with a wide n-fold law (n·span > DIRECT_SPAN: the tilted-FFT path unless it falls back)."""
    sampling = draw(st.sampled_from(["subsampling", "shuffling"]))
    m = draw(st.integers(1 if sampling == "shuffling" else 2, 4))
    s = draw(st.integers(1, 3))
    R = draw(st.integers(5, 40))
    N = R * m * s
    g = draw(st.integers(2, min(5, N)))
    E = draw(st.integers(100, 300) if sampling == "shuffling" else st.integers(2, 8))
    return (sampling, N, m, s, g, E)


@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
@given(wide_configs())
def test_qe_fft_path_drawn(cfg):
    """Hypothesis-drawn wide configurations that take the tilted-FFT path (others are skipped by ``assume``) against
    the reference, at the table's 2e-10."""
    assume(_uses_fft(cfg))
    fq.qe_law.cache_clear()
    _compare(fq.qe_law(*cfg), _ref(cfg), rel=2e-10)


PINNED_FFT = [("subsampling", 400, 4, 1, 2, 4), ("subsampling", 240, 3, 2, 3, 6), ("subsampling", 1000, 10, 1, 2, 10),
              ("subsampling", 30, 3, 2, 3, 25), ("shuffling", 6400, 1, 64, 3, 400), ("shuffling", 960, 4, 4, 4, 200),
              ("shuffling", 240, 3, 4, 3, 80), ("shuffling", 60, 5, 1, 4, 60)]


def _base(cfg):
    """(one round's law of L² or one epoch's law of c², the number n of i.i.d. copies summed)."""
    sampling, N, m, s, g, E = cfg
    if sampling == "subsampling":
        return fq._squares_law(fq.round_law_subsampling(N, m, s, g)), E * (N // (m * s))
    return fq.epoch_law_shuffling(N, m, s, g), E


@pytest.mark.parametrize("cfg", PINNED_FFT, ids=lambda c: "-".join(map(str, c)))
def test_qe_fft_path_matches_reference(cfg):
    """Pinned configurations that DO take the tilted-FFT path (checked), including laws with holes near the ends of the
    support (SS: c² sums of squares; SH with s = 1: c² on a lattice of step 2) and valleys between lattice points (SH
    m, s ≥ 2), against the reference: per point, relative error ≤ 5e-12 + 5e-15·e^{−drop} (drop: how far below its
    tilt's peak the value was read, ≥ −TRUST; 5e-12: the float64 per-round law's ~1 ulp in each log p_k times n,
    measured 1.4e-12 at n = 1000), and the whole law by :func:`_compare` at the table's 2e-10."""
    assert _uses_fft(cfg)
    fq.qe_law.cache_clear()
    ref = _ref(cfg)
    _compare(fq.qe_law(*cfg), ref, rel=2e-10)
    parts = fq.tilted_parts(*_base(cfg))
    law = parts.law
    c2 = parts.start + parts.d * torch.arange(parts.best.numel())
    refmap = dict(zip(ref.support, ref.pmf))
    checked = 0
    for c, best in zip(c2.tolist(), parts.best.tolist()):
        q = refmap.get(c)
        if q is None or q < mpmath.mpf("1e-70") or not law.offset <= c < law.offset + law.log_pmf.numel():
            continue
        err = abs(math.expm1(float(law.log_pmf[c - law.offset]) - float(mpmath.log(q))))
        assert err <= 5e-12 + 5e-15 * math.exp(-best), (c, best, err)
        checked += 1
    assert checked >= 100


def test_qe_far_tail_below_1e300():
    """Notes §4.7 pitfall: an FFT leaves ~1e-14 of the peak as spurious tail mass. With tilts, entries in [1e-320, 1e-80]
    (reference at 330 extra digits) agree to 2e-10 relative on the FFT path; a plain (untilted) FFT of the same law is
    off by orders of magnitude there (the power of this test: it would catch a lost far tail)."""
    cfg = ("subsampling", 240, 3, 2, 3, 6)
    assert _uses_fft(cfg)
    ref = _ref(cfg, digits=30, extra=330)
    fast = fq.qe_law(*cfg)
    base = fq._squares_law(fq.round_law_subsampling(*cfg[1:5]))
    n = cfg[5] * (cfg[1] // (cfg[2] * cfg[3]))
    size = 1 << math.ceil(math.log2(n * (base.log_pmf.numel() - 1) + base.offset * n + 1))
    plain = torch.fft.irfft(torch.fft.rfft(torch.exp(base.log_pmf), size) ** n, size)  # offset 0 (base.offset = 0)
    checked, plain_bad = 0, 0
    for c2, q in zip(ref.support, ref.pmf):
        if mpmath.mpf("1e-320") < q < mpmath.mpf("1e-80"):
            lq = float(mpmath.log(q))
            f = float(fast.log_pmf[c2 - fast.offset])
            assert abs(math.expm1(f - lq)) <= 2e-10, (c2, f, lq)
            checked += 1
            plain_bad += not (abs(float(plain[c2]) / math.exp(lq) - 1) < 1e-3) if lq > -700 else 1
    assert checked >= 50
    assert plain_bad == checked  # the untilted FFT gets none of them


# ---------------------------------------------------------------------------------------------------------------
# the done-when extremes: exact moments


def _round_moments(sampling, N, m, s, g):
    """(E[Y], Var[Y]) of one round's L² (SS) or one epoch's c² (SH), exactly, from the reference's rational laws."""
    from fractions import Fraction

    if sampling == "subsampling":
        law = {k * k: q for k, q in enumerate(rq._round_law_subsampling_exact(N, m, s, g))}
    elif m == 1:  # c² = J: the exact occupancy law (the reference's closed form)
        law = dict(enumerate(rq._occupancy_exact(N, s, g)))
    else:
        counts = rq._epoch_counts_shuffling(N, m, s, g)
        total = math.comb(N, g)
        law = {c: Fraction(v, total) for c, v in counts.items()}
    mean = sum(c * q for c, q in law.items())
    return mean, sum(c * c * q for c, q in law.items()) - mean * mean


def _law_moments(law: fq.FastLaw):
    p = torch.exp(law.log_pmf)
    v = torch.arange(law.log_pmf.numel(), dtype=F64) + law.offset
    mean = float(torch.sum(p * v))
    return float(torch.sum(p)), mean, float(torch.sum(p * (v - mean) ** 2))


EXTREMES = [("subsampling", 640000, 8, 8, 8, 1000),  # T = 10^7 rounds, L ∈ 0..8
            ("subsampling", 2560000, 16, 16, 16, 100),
            ("shuffling", 640000, 1, 64, 64, 1000),  # batch clipping, g = 64, E = 10^3
            ("shuffling", 640000, 1, 64, 8, 1000)]


@pytest.mark.parametrize("cfg", EXTREMES, ids=lambda c: "-".join(map(str, c)))
def test_extremes_moments(cfg):
    """At E = 10³ / N/(sm) = 10⁴ / g up to 64: total mass 1 to 2e-11 (the dropped mass is ≤ e^{-740}; the float64
    per-round law carries ~1 ulp in each log p_k, which the n-fold law multiplies by n·p_k: 1e7·1e-16·8e-4 ≈ 1e-12 for
    log P(L = 0) at T = 10⁷; measured 1.3e-12 … 2.7e-12), mean and variance of c² equal n·E[Y] and n·Var[Y] of the
    per-round (per-epoch) law to 1e-10; the tilted-FFT path is the one taken."""
    sampling, N, m, s, g, E = cfg
    assert _uses_fft(cfg)
    n = E * (N // (m * s)) if sampling == "subsampling" else E
    mean1, var1 = _round_moments(sampling, N, m, s, g)
    fq.qe_law.cache_clear()
    law = fq.qe_law(*cfg)
    total, mean, var = _law_moments(law)
    assert law.log_dropped < -740
    assert total == pytest.approx(1.0, abs=2e-11)
    assert mean == pytest.approx(float(n * mean1), rel=1e-10)
    assert var == pytest.approx(float(n * var1), rel=1e-10)


@pytest.mark.slow
@pytest.mark.parametrize("cfg", EXTREMES[:3], ids=lambda c: "-".join(map(str, c)))
def test_extremes_match_reference(cfg):
    """The same extremes against the exact reference (seconds to a minute each: 4.7 s, 1.8 s, 29 s measured)."""
    _compare(fq.qe_law(*cfg), _ref(cfg), rel=2e-10)


# ---------------------------------------------------------------------------------------------------------------
# the fallback and the refusals


def test_fallback_when_a_point_is_not_covered(monkeypatch):
    """Where a point of the support is not within TRUST of some tilt's peak, tilted_power says so (None) and power_law
    convolves directly: with TRUST lowered to 1 the FFT path refuses a law it otherwise takes, and when the FFT path
    refuses, power_law's law is the direct convolution's, entry for entry."""
    base, n = _base(("subsampling", 400, 4, 1, 2, 4))
    assert fq.tilted_power(base, n) is not None
    assert fq.tilted_power(base, n, trust=1.0) is None
    monkeypatch.setattr(fq, "TRUST", 1.0)
    monkeypatch.setattr(fq.tilted_power, "__defaults__", (1.0,))
    direct = fq.power(base, n)
    law = fq.power_law(base, n)
    assert law.offset == direct.offset and bool(torch.equal(law.log_pmf, direct.log_pmf))


def test_holes_near_the_ends_are_exact():
    """SH with s = 1, m = 5, g = 4, E = 60: one epoch's c² ∈ {4, 6, 8, 10, 16} (a lattice of step 2); the values just
    below the maximum 16·60 that no 60 epochs sum to (960 − 2, 960 − 4: 16 − c² ∈ {0, 6, …, 12} has no 2 or 4) are
    exact zeros in the fast law, as in the reference, while the top 960 itself (mass ~e^{-540}) is kept."""
    cfg = ("shuffling", 60, 5, 1, 4, 60)
    assert _uses_fft(cfg)
    fast = fq.qe_law(*cfg)
    ref = _ref(cfg, digits=30, extra=330)  # entries down to 1e-360
    support = set(ref.support)
    assert 960 in support and fast.mass_at(960) > 0
    holes = [c for c in range(900, 961) if c not in support]
    assert {958, 956} <= set(holes)
    for c in holes:
        assert fast.mass_at(c) == 0.0


@pytest.mark.parametrize("cfg,error", [(("subsampling", 10, 4, 3, 2, 1), ConditionError),  # s·m > N
                                       (("shuffling", 10, 1, 2, 11, 1), ConditionError),  # g > N
                                       (("subsampling", 10, 1, 2, 1, 0), DomainError),  # E = 0
                                       (("shuffling", 64 * 10**5, 64, 1, 64, 1000), ParameterError)])  # too large
def test_refusals_unchanged(cfg, error):
    """The same refusal as the reference (one clear error each)."""
    fq.qe_law.cache_clear()
    with pytest.raises(error):
        fq.qe_law(*cfg)
    with pytest.raises(error):
        rq.qe_law(*cfg)
