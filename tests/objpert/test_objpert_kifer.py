"""Kifer et al.'s calibration of objective perturbation (seed 003 Thm 2.2.5, Thm 4.2.8; reference/objpert/kifer.py):
the notes' §5.3 table (objpert-pdp.md), §5.1/§5.2.B (objpert-rdp.md), the printed σ-vs-σ² erratum E1, the inverse
δ_Kifer(ε), the conditions and extreme parameters."""
from __future__ import annotations

import math

import mpmath
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.objpert.kifer import kifer_delta, kifer_sigma, kifer_sigma_printed

catalogue.load_all()

# notes objpert-pdp.md §5.3 (ξ = 1, β = 1/4, δ = 1e-6): ε1, λ = 2β/ε1, σ², σ, analytic-Gaussian σ at Δ = 1
TABLE_5_3 = [
    (1.0, 0.5, 120.069, 10.9576, 4.2247),
    (0.8, 0.625, 186.358, 13.6513, 5.1981),
    (0.5, 1.0, 472.277, 21.7319, 8.0576),
    (0.4, 1.25, 735.433, 27.1189, 9.9265),
    (0.2, 2.5, 2921.73, 54.0530, 18.9888),
]


def rel(a, b):
    return abs(float(a) - float(b)) / abs(float(b))


@pytest.mark.parametrize("eps, lam, var, sigma, agm", TABLE_5_3)
def test_table_5_3(eps, lam, var, sigma, agm):
    st = catalogue.get("objpert.thm2_2_5")
    got = st(eps=eps, delta="1e-6", xi=1, beta=0.25, lam=lam)  # λ exactly at the threshold 2β/ε1 is allowed
    assert rel(got, sigma) < 5e-6
    assert rel(got ** 2, var) < 5e-6
    # the analytic Gaussian column (base, for comparison: ObjPert needs 2.6–2.9× the noise)
    assert rel(catalogue.get("base.gaussian_sigma")(eps=eps, delta="1e-6"), agm) < 5e-5
    with pytest.raises(ConditionError, match="kifer_lambda"):
        st(eps=eps, delta="1e-6", xi=1, beta=0.25, lam=lam * (1 - 1e-9))


def test_printed_sigma_is_the_variance_erratum_e1():
    """Literal reading of the misprint: σ = 120.07 at ε1 = 1 (notes §5.3), 11× the correct σ; and too small when ξ
    is small (dimension check: scaling ξ by c scales the printed σ by c²)."""
    st = catalogue.get("objpert.thm2_2_5")
    printed = st.evaluate(variant="printed", eps=1, delta="1e-6", xi=1, beta=0.25, lam=0.5)
    assert not printed.is_bound
    assert rel(printed.value, 120.069) < 5e-6
    assert 10.9 < printed.value / st(eps=1, delta="1e-6", xi=1, beta=0.25, lam=0.5) < 11.0
    assert printed.value == pytest.approx(float(kifer_sigma(1, mpf("1e-6"), 1) ** 2), rel=1e-12)
    small = kifer_sigma_printed(1, mpf("1e-6"), mpf("0.01"))
    assert small < kifer_sigma(1, mpf("1e-6"), mpf("0.01")) / 9  # 0.0120 vs 0.1096


def test_thm4_2_8_sigma_and_inverse():
    """objpert-rdp.md §5.1: ε = 1, δ = 1e-5, L = 1 ⇒ σ ≥ 10.0821; δ_Kifer inverts the calibration exactly."""
    assert rel(kifer_sigma(1, mpf("1e-5"), 1), 10.0821) < 1e-5
    st = catalogue.get("objpert.thm4_2_8")
    for eps, delta, L in [(1, "1e-5", 1), (0.3, "1e-12", 2.5), (5, "0.01", 0.1), (0.01, "1e-300", 1)]:
        s = kifer_sigma(eps, mpf(delta), L)
        back = st(eps=eps, sigma=s, L=L, beta=0, lam=1)
        assert abs(back - mpf(delta)) <= mpf(delta) * mpf(10) ** -12  # mp.dps = 15 here


FIG_4_1_LEFT = [(0.25, 1.0), (0.5, 1.0), (0.75, 0.5017), (1.0, 0.1449), (1.5, 3.742e-3), (2.0, 2.026e-5)]


@pytest.mark.parametrize("eps, delta", FIG_4_1_LEFT)
def test_fig_4_1_kifer_row(eps, delta):
    """objpert-rdp.md §5.2.B: δ(ε) for Fig 4.1 left, (σ, β, λ) = (5, 1, 20), L = 1, Kifer's row."""
    got = catalogue.get("objpert.thm4_2_8")(eps=eps, sigma=5, L=1, beta=1, lam=20)
    assert rel(got, delta) < 2e-4


KIFER_EPS = [((5, 1, 20), 1e-3, 1.64163), ((5, 1, 20), 1e-5, 2.05796), ((5, 1, 20), 1e-8, 2.55443),
             ((10, 1, 5), 1e-3, 0.80005), ((10, 1, 5), 1e-5, 1.00838), ((10, 1, 5), 1e-8, 1.25673),
             ((8, 1, 10), 1e-3, 1.00649), ((8, 1, 10), 1e-5, 1.26686), ((8, 1, 10), 1e-8, 1.57728)]


@pytest.mark.parametrize("params, delta, eps", KIFER_EPS)
def test_table_b_kifer_column(params, delta, eps):
    """objpert-rdp.md §5.2.B, the Kifer column ε(δ): δ_Kifer at the tabulated ε is δ (to the table's 6 digits)."""
    sigma, beta, lam = params
    st = catalogue.get("objpert.thm4_2_8")
    got = st(eps=eps, sigma=sigma, L=1, beta=beta, lam=lam)
    # dδ/dε · Δε with |Δε| ≤ 5e-6 (6 printed digits): relative change of δ ≤ |d log δ/dε|·5e-6
    slope = (eps * sigma ** 2 - 2) / 4
    assert abs(math.log(float(got) / delta)) <= slope * 6e-6


def test_kifer_delta_no_guarantee_and_monotone():
    assert kifer_delta(1, 5, 1, 1, 1) == 1  # λ < 2β/ε: no guarantee
    assert kifer_delta(0, 5, 1, 0, 1) == 1
    st = catalogue.get("objpert.thm4_2_8")
    with pytest.raises(ConditionError, match="kifer_lambda"):
        st(eps=1, sigma=5, L=1, beta=1, lam=1.5)
    vals = [st(eps=e, sigma=5, L=1, beta=1, lam=20) for e in (0.1, 0.5, 1, 2, 4, 8)]
    assert all(a >= b for a, b in zip(vals, vals[1:])) and vals[-1] < mpf(10) ** -60


@pytest.mark.parametrize("eps, delta, xi", [(1e-3, "1e-300", 1e-3), (20, "0.5", 1e3), (1e-3, "1e-300", 1e3),
                                            (1e4, "1e-5", 1), (1, "0.9999", 1e-300)])
def test_extremes_are_finite(eps, delta, xi):
    st = catalogue.get("objpert.thm2_2_5")
    s = st(eps=eps, delta=delta, xi=xi, beta=0, lam=1)
    assert mpmath.isfinite(s) and s > 0
    d = catalogue.get("objpert.thm4_2_8")(eps=eps, sigma=s, L=xi, beta=0, lam=1)
    assert abs(d - mpf(delta)) <= mpf(delta) * mpf(10) ** -12


def test_domain_errors():
    st = catalogue.get("objpert.thm2_2_5")
    with pytest.raises(DomainError):
        st(eps=0, delta="1e-6", xi=1, beta=0.25, lam=1)
    with pytest.raises(DomainError):
        st(eps=1, delta=1, xi=1, beta=0.25, lam=1)
    with pytest.raises(DomainError):
        kifer_sigma(1, mpf("1e-6"), 0)


def test_per_instance_profile_below_kifer():
    """The per-instance pair objpert.pdp_objpert (logistic, ξ = 1, β = 1/4) at (σ, λ) = (6, 1), ε = 1: its profile
    δ_{D,z}(ε) = E_P[(1 − e^{ε − L})₊] (10,000 seeded draws, mean + 5 standard errors) lies below δ_Kifer(ε) with
    L = 1, β = 1/4 (2e^{−4} = 0.0366) — the one-sided check the harness makes through objpert.thm4_2_8's witness use."""
    import numpy as np

    pair = catalogue.get_witness("objpert.pdp_objpert")
    rng = np.random.default_rng(20261127)
    for member in ("out", "in"):
        o = pair.sample(rng, 10_000, sigma=6, lam=1, member=member)
        loss = pair.privacy_loss(o, sigma=6, lam=1, member=member)
        h = np.maximum(0.0, 1.0 - np.exp(1.0 - loss))
        upper = h.mean() + 5 * h.std() / math.sqrt(h.size)
        kifer = float(catalogue.get("objpert.thm4_2_8")(eps=1, sigma=6, L=1, beta=0.25, lam=1))
        assert kifer == pytest.approx(2 * math.exp(-4), rel=1e-12)
        assert upper <= kifer
