"""Thm 5.2 = D.1 of seed 004 (subspace skewing; reference/dc/subspace.py, fast/dc/convergence.py:thm5_2).

Test vectors: notes shared/notes/dc-dpsgd.md §2 Thm 5.2 (first term 0.258 / 0.553 / 0.304; printed second term 0.687 /
0.27; 3 significant digits: relative tolerance 5e-3) and §6 E5 (‖M − E M‖₂ = 1 − k/d for an orthonormal V: 0.9 at
d = 2000, k = 200 against (53)'s 0.51). Monte Carlo: seeded, stated sample sizes.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest

from dpspec.fast.dc import convergence as fc
from dpspec.reference import catalogue
from dpspec.reference.dc import subspace as sub
from dpspec.reference.errors import ConditionError, DomainError, ParameterError
from tests._helpers import assert_fast_matches_reference

catalogue.load_all()


def rel(a, b):
    return abs(float(a) - float(b)) / abs(float(b))


@pytest.mark.parametrize("d, k, value", [(2000, 200, 0.258), (5000, 100, 0.553), (20000, 200, 0.304)])
def test_first_term(d, k, value):
    """4 log(2d/δ_m)/k at δ_m = 0.01 (notes §2 Thm 5.2): (55) with σ_tr → 0."""
    tiny = mpmath.mpf("1e-30")
    assert rel(sub.subspace_error(d, k, "0.01", tiny, "0.5"), value) < 5e-3


@pytest.mark.parametrize("d, batch, value", [(100000, 256, 0.687), (2500000, 1000, 0.27)])
def test_printed_second_term(d, batch, value):
    """m2√B log^{1/2}(1/δ_tr)/√d at m2 = 4, δ_tr = 1e-5 (notes §2 Thm 5.2)."""
    st = catalogue.get("dc.thm5_2")
    v = st.evaluate(variant="printed", d=d, k=10 ** 6, delta_m="0.01", delta_noise="1e-5", sigma_tr=1, m2=4,
                    batch=batch)
    first = 4 * mpmath.log(2 * d / mpmath.mpf("0.01")) / 10 ** 6
    assert rel(v.value - first, value) < 1e-2
    assert not v.is_bound


def test_printed_gaussian_quantile_misses_sqrt2():
    """(55)'s σ_tr log^{1/2}(2/δ_tr): P(|Z| > √log(2/δ)) = 4.8e-4 > δ = 1e-5; the corrected √(2 log(2/δ)) keeps
    P(|Z| > t) ≤ δ (exact Gaussian tail, erfc)."""
    for delta in ("1e-5", "1e-3", "1e-2"):
        delta = mpmath.mpf(delta)
        tail = lambda t: mpmath.erfc(t / mpmath.sqrt(2))
        assert tail(mpmath.sqrt(mpmath.log(2 / delta))) > delta
        assert tail(mpmath.sqrt(2 * mpmath.log(2 / delta))) <= delta


def test_orthonormal_v_breaks_53():
    """E5: with VᵀV = I_k (Thm 5.2's hypothesis) M = VVᵀ is a projection and E M = (k/d)I for Haar V, so
    ‖M − E M‖₂ = 1 − k/d = 0.9 at d = 2000, k = 200, above (53)'s 2√(log(2d/δ_m)/k) = 0.508 (δ_m = 0.01)."""
    rng = np.random.default_rng(5)
    d, k = 2000, 200
    V, _ = np.linalg.qr(rng.normal(size=(d, k)))
    x = V[:, 0]  # ‖(M − (k/d)I)x‖ for a unit x in V's range: a lower bound on the spectral norm (M = VVᵀ not formed)
    gap = np.linalg.norm(V @ (V.T @ x) - (k / d) * x)
    assert abs(gap - 0.9) < 1e-9
    claimed = 2 * np.sqrt(np.log(2 * d / 0.01) / k)
    assert abs(claimed - 0.508) < 1e-3 and gap > claimed


def test_corrected_bound_holds_for_averaged_independent_vectors():
    """The corrected form (1/k-averaged V of i.i.d. uniform unit vectors, Algorithm 1 line 6): seeded, 400 draws of
    M at d = 30, k = 300, δ_m = 0.05. |λ − λ̂| = |ĝᵀ(M − I/d)ĝ| ≤ ‖M − I/d‖₂ ≤ min(1, 2√(log(2d/δ_m)/k)) must fail in
    at most δ_m of draws; with a 3σ binomial allowance: ≤ 0.05 + 3√(0.05·0.95/400) = 0.083. Observed rate 0."""
    rng = np.random.default_rng(7)
    d, k, draws, delta_m = 30, 300, 400, 0.05
    mu = float(min(1, 2 * mpmath.sqrt(mpmath.log(2 * d / mpmath.mpf(delta_m)) / k)))
    bad = 0
    g = rng.normal(size=d)
    g /= np.linalg.norm(g)
    for _ in range(draws):
        v = rng.normal(size=(k, d))
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        M = v.T @ v / k
        spec_gap = np.linalg.norm(M - np.eye(d) / d, 2)
        lam_gap = abs(g @ M @ g - 1 / d)
        assert lam_gap <= spec_gap + 1e-12
        bad += spec_gap > mu
    assert bad / draws <= 0.083
    # the noise-free part of the registered bound is this μ
    st = catalogue.get("dc.thm5_2")
    val = st.evaluate(d=d, k=k, delta_m=str(delta_m), delta_noise="0.5", sigma_tr="1e-30", m2=1, batch=1).value
    assert rel(val, mu) < 1e-12


def test_uninformative_scale():
    """E5: for an isotropic V, λ̂ = 1/d for every unit ĝ (here averaged V): the bound (≥ 0.26 + σ_tr·4.9 at the notes'
    sizes) is compared with a population trace that does not depend on the sample at all."""
    st = catalogue.get("dc.thm5_2")
    v = st.evaluate(d=20000, k=200, delta_m="0.01", delta_noise="1e-5", sigma_tr="0.7048", m2=4, batch=128).value
    assert v > 1 / 20000 * 1e4


def test_refusals():
    with pytest.raises(DomainError):
        sub.subspace_error(0, 10, "0.01", 1, "0.1")
    with pytest.raises(DomainError):
        sub.subspace_error(10, 10, "1.5", 1, "0.1")
    with pytest.raises(ParameterError):
        sub.subspace_error(10, 10, "0.01", 1, "0.1", form="printed")
    with pytest.raises(ConditionError, match="aw_mu_below_one"):
        catalogue.get("dc.thm5_2").evaluate(variant="eq55", d=2000, k=10, delta_m="0.01", delta_noise="0.1",
                                            sigma_tr=1, m2=1, batch=1)


def test_fast_matches_reference():
    assert_fast_matches_reference("dc.thm5_2", examples=12, fast=fc.thm5_2, tol=1e-12)
