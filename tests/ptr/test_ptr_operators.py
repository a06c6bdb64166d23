"""fast/ptr/operators.py: PTR-TMEAN (Algorithm 3 of the PTR paper) against the reference mechanism
(reference/ptr/mechanisms.py, reference/ptr/tsum.py) by brute force on tiny inputs and by Monte Carlo."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dpspec.fast.ptr.operators import clipped_norms, ptr_trimmed_sum, safety_margin, threshold
from dpspec.reference import catalogue
from dpspec.reference.errors import DomainError
from dpspec.reference.ptr import mechanisms, tsum

TINY_SIGMA = 1e-300  # noise σ·R·N(0,1) below 1e-299: the aggregate is the deterministic SUM / TSUM_F


def _random_set(rng, m, d=2, lo=0.05, hi=0.95):
    v = rng.normal(size=(m, d))
    return v / np.linalg.norm(v, axis=1)[:, None] * rng.uniform(lo, hi, size=(m, 1))


def _norms(S, clip=1.0):
    return clipped_norms([torch.as_tensor(S, dtype=torch.float64).reshape(len(S), np.shape(S)[1])], clip)[1]


# -- Δ(S): closed form vs the reference and vs brute force over neighbouring datasets -------------------------------

def _ls_brute(S, F, cands):
    """LS(S): max over neighbours (remove one point; add one candidate) of ||TSUM_F(S) − TSUM_F(S')||."""
    base = tsum.tsum(S, F)
    nbrs = [np.delete(S, i, axis=0) for i in range(len(S))] + [np.vstack([S, c[None]]) for c in cands]
    return max((np.linalg.norm(tsum.tsum(n, F) - base) for n in nbrs), default=0.0)


def _delta_brute(S, F, tau, cands, r_max):
    """Δ(S) = min{d(S, S̃) : LS(S̃) > τ}: breadth-first over add/remove steps (remove any point, add a candidate)."""
    frontier = {tuple(map(tuple, S))}
    for r in range(r_max + 1):
        if any(_ls_brute(np.array(s, dtype=float).reshape(-1, 2), F, cands) > tau for s in frontier):
            return r
        frontier = {tuple(sorted(s[:i] + s[i + 1:])) for s in frontier for i in range(len(s))} | \
                   {tuple(sorted(s + (tuple(c),))) for s in frontier for c in cands}
    return None


@pytest.mark.parametrize("seed", range(8))
def test_safety_margin_equals_brute_force_search_over_neighbours(seed):
    rng = np.random.default_rng(seed)
    m, F = int(rng.integers(0, 4)), int(rng.integers(0, 3))
    S = _random_set(rng, m).reshape(-1, 2)
    d = rng.normal(size=(2, 2))
    cands = np.vstack([d / np.linalg.norm(d, axis=1)[:, None], _random_set(rng, 1)])  # norm-R points + one inside
    for tau in (0.3, 0.7):
        fast = safety_margin(_norms(S), F, tau, 1.0).item()
        assert fast == _delta_brute(S, F, tau, cands, r_max=F + 1), (m, F, tau)


@settings(max_examples=60, deadline=None)
@given(m=st.integers(0, 12), F=st.integers(0, 10), tau=st.floats(0.01, 1.5), seed=st.integers(0, 2**32 - 1))
def test_safety_margin_equals_reference_closed_form_and_catalogue(m, F, tau, seed):
    S = _random_set(np.random.default_rng(seed), m, d=3).reshape(-1, 3)
    fast = safety_margin(_norms(S), F, tau, 1.0).item()
    assert fast == float(tsum.safety_margin(S, F, tau, 1.0))
    if m <= 5:  # the catalogue entry (self-checked, two precisions) on a few
        assert fast == float(catalogue.get("ptr.safety_margin").evaluate(points=S.tolist(), F=F, tau=tau, R=1.0).value)


def setup_module():
    catalogue.load_all()


# -- the released aggregate: deterministic part and branch --------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(m=st.integers(0, 9), F=st.integers(0, 6), seed=st.integers(0, 2**32 - 1), tau=st.sampled_from([0.4, 0.8, 2.0]))
def test_aggregate_is_sum_or_tsum_of_clipped_gradients_as_the_reference(m, F, seed, tau):
    rng = np.random.default_rng(seed)
    G = _random_set(rng, m, d=4, lo=0.05, hi=3.0).reshape(-1, 4)  # some norms above the clip R = 1.5
    R = 1.5
    norms = np.linalg.norm(G, axis=1)
    clipped = G * np.minimum(1, R / norms)[:, None]
    gen = torch.Generator().manual_seed(seed % 2**31)
    out = ptr_trimmed_sum(torch.as_tensor(G), F, tau, R, 1.0, 0.3, TINY_SIGMA, generator=gen)
    assert out.passed.item() == (out.delta_hat.item() > threshold(1.0, 0.3))
    # TSUM_F by its definition with exact clipped norms min(||g||, R): the clipped rows tie at R, broken by index
    # (stable sort), which the reference's float norms of the clipped rows cannot see; without ties it IS the reference.
    kept = np.argsort(np.minimum(norms, R), kind="stable")[: max(m - F, 0)]
    trimmed_sum = clipped[kept].sum(axis=0)
    if (norms > R).sum() <= 1:
        np.testing.assert_allclose(trimmed_sum, tsum.tsum(clipped, F), rtol=0, atol=1e-12)
    expected = trimmed_sum if out.passed else clipped.sum(axis=0)
    np.testing.assert_allclose(out.aggregate.numpy(), expected, rtol=0, atol=1e-12)
    if tau >= R:
        assert out.delta_hat.item() == math.inf and out.passed


def test_structure_dtype_and_joint_norm_over_a_sequence_of_tensors():
    rng = np.random.default_rng(0)
    G = torch.as_tensor(_random_set(rng, 7, d=6, lo=0.1, hi=3.0), dtype=torch.float32)
    parts = (G[:, :2].reshape(7, 2, 1), G[:, 2:].reshape(7, 2, 2))
    whole = ptr_trimmed_sum(G, 2, 0.6, 1.0, 1.0, 1e-2, TINY_SIGMA, torch.Generator().manual_seed(1))
    split = ptr_trimmed_sum(parts, 2, 0.6, 1.0, 1.0, 1e-2, TINY_SIGMA, torch.Generator().manual_seed(1))
    assert whole.aggregate.dtype == torch.float32 and [a.shape for a in split.aggregate] == [(2, 1), (2, 2)]
    assert bool(whole.passed == split.passed) and whole.delta_hat.item() == split.delta_hat.item()
    joined = torch.cat([split.aggregate[0].reshape(-1), split.aggregate[1].reshape(-1)])
    torch.testing.assert_close(joined, whole.aggregate, rtol=1e-6, atol=1e-6)


def test_same_generator_seed_same_output_and_bad_input_raises():
    G = torch.randn(6, 5, dtype=torch.float64)
    a = ptr_trimmed_sum(G, 2, 0.5, 1.0, 1.0, 1e-8, 1.1, torch.Generator().manual_seed(7))
    b = ptr_trimmed_sum(G, 2, 0.5, 1.0, 1.0, 1e-8, 1.1, torch.Generator().manual_seed(7))
    assert torch.equal(a.aggregate, b.aggregate) and a.delta_hat.item() == b.delta_hat.item()
    good = dict(F=2, tau=0.5, clip=1.0, b=1.0, delta0=1e-8, sigma=1.1)
    for bad in ({"F": -1}, {"F": 1.5}, {"tau": 0}, {"clip": -1}, {"b": 0}, {"delta0": 0.6}, {"delta0": 0},
                {"sigma": 0}, {"sigma": math.nan}):
        with pytest.raises(DomainError):
            ptr_trimmed_sum(G, **{**good, **bad})
    with pytest.raises(DomainError):
        ptr_trimmed_sum([G, G[:3]], **good)


# -- Monte Carlo: test pass rate and per-branch release distribution ----------------------------------------------
# Confidence: each check below has false-alarm probability ≤ 1e-3 (fixed seeds make the outcome deterministic).
ALPHA = 1e-3


def _pass_probability(Delta, b, delta0):
    """Pr[Δ + Lap(0, b) > thr] in closed form (Laplace survival function)."""
    x = threshold(b, delta0) - Delta
    return 0.5 * math.exp(-x / b) if x >= 0 else 1 - 0.5 * math.exp(x / b)


def _run(G, n, seed, **kw):
    gen = torch.Generator().manual_seed(seed)
    outs = [ptr_trimmed_sum(G, generator=gen, **kw) for _ in range(n)]
    passed = torch.stack([o.passed for o in outs]).numpy()
    return passed, torch.stack([o.aggregate for o in outs]).numpy(), torch.stack([o.delta_hat for o in outs]).numpy()


@pytest.mark.parametrize("m,F,tau", [(6, 3, 0.5), (2, 4, 0.5), (0, 1, 0.5)])  # m > F, m ≤ F, empty batch
def test_monte_carlo_pass_rate_and_branch_moments(m, F, tau):
    rng = np.random.default_rng(m)
    G = torch.as_tensor(_random_set(rng, m, d=3, lo=0.05, hi=1.6).reshape(-1, 3))
    kw = dict(F=F, tau=tau, clip=1.0, b=1.0, delta0=0.1, sigma=0.8)
    clipped = G.numpy() * np.minimum(1, 1 / np.linalg.norm(G.numpy(), axis=1))[:, None]
    Delta = float(tsum.safety_margin(clipped, F, tau, 1.0))
    n = 3000
    passed, agg, dhat = _run(G, n, seed=11 + m, **kw)
    p = _pass_probability(Delta, 1.0, 0.1)
    assert 0.02 < p < 0.98  # both branches are sampled
    assert stats.binomtest(int(passed.sum()), n, p).pvalue > ALPHA
    assert stats.kstest(dhat - Delta, stats.laplace(scale=1.0).cdf).pvalue > ALPHA
    for branch, mean, sd in ((True, tsum.tsum(clipped, F), 0.8 * tau), (False, clipped.sum(axis=0), 0.8 * 1.0)):
        x = (agg[passed == branch] - mean) / sd  # should be i.i.d. N(0, 1), 3 coordinates per draw
        k = x.size
        assert stats.ttest_1samp(x.reshape(-1), 0).pvalue > ALPHA / 2
        chi2 = float((x ** 2).sum())
        assert stats.chi2.ppf(ALPHA / 4, k) < chi2 < stats.chi2.ppf(1 - ALPHA / 4, k)


def test_distribution_matches_the_reference_mechanism_two_sample():
    rng = np.random.default_rng(5)
    G = _random_set(rng, 8, d=2, lo=0.1, hi=0.95).reshape(-1, 2)  # already clipped (the reference requires it)
    kw = dict(F=3, tau=0.6, b=1.0, delta0=0.2, sigma=1.0)
    n = 2000
    passed, agg, dhat = _run(torch.as_tensor(G), n, seed=3, clip=1.0, **kw)
    ref_rng = np.random.default_rng(4)
    ref = [mechanisms.ptr_tmean(ref_rng, G, R=1.0, **kw) for _ in range(n)]
    ref_passed = np.array([w == "−" for _, w, _ in ref])
    ref_agg = np.array([g for g, _, _ in ref])
    ref_dhat = np.array([d for _, _, d in ref])
    table = [[passed.sum(), n - passed.sum()], [ref_passed.sum(), n - ref_passed.sum()]]
    assert stats.fisher_exact(table).pvalue > ALPHA
    assert stats.ks_2samp(dhat, ref_dhat).pvalue > ALPHA
    for j in range(2):
        assert stats.ks_2samp(agg[:, j], ref_agg[:, j]).pvalue > ALPHA / 2


# ------------------------------------------------------------------------------------------------------------
# Catalogue forms of Theorem 5.1 and Δ(S) (ptr.thm5_1, ptr.safety_margin) against the reference

from dpspec.fast.ptr.operators import ls_tsum, safety_margin_of_points  # noqa: E402

_ROWS = st.integers(0, 12).flatmap(lambda m: st.lists(st.lists(st.floats(-2, 2), min_size=3, max_size=3),
                                                      min_size=m, max_size=m))


def _no_float_ties(points, *thresholds):
    # a norm within 1e-12 of a threshold (or of another norm) may compare differently in float64 and in mpmath
    norms = sorted(math.sqrt(sum(c * c for c in row)) for row in points)
    close = any(abs(a - b) < 1e-12 for a, b in zip(norms, norms[1:]))
    return not close and all(abs(n - t) > 1e-12 for n in norms for t in thresholds)


@settings(max_examples=60, deadline=None)
@given(points=_ROWS, F=st.integers(0, 8), r=st.integers(0, 6), R=st.floats(0.5, 4))
def test_ls_tsum_matches_thm5_1(points, F, r, R):
    ref = catalogue.get("ptr.thm5_1").evaluate(dps=30, points=points, F=F, r=r, R=R).value
    assert abs(float(ls_tsum(points, F, r, R)) - float(ref)) <= 1e-15 * max(1.0, float(ref))


@settings(max_examples=60, deadline=None)
@given(points=_ROWS, F=st.integers(0, 8), tau=st.floats(0.01, 4), R=st.floats(0.5, 4))
def test_safety_margin_of_points_matches_the_reference(points, F, tau, R):
    if not _no_float_ties(points, tau):
        return
    ref = catalogue.get("ptr.safety_margin").evaluate(dps=30, points=points, F=F, tau=tau, R=R).value
    assert float(safety_margin_of_points(points, F, tau, R)) == float(ref)
