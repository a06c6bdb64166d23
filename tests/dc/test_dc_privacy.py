"""DC-DPSGD privacy (seed 004, arXiv 2405.17529v1: Thm 5.1 L174, Appendix C L897–L1059): reference/dc/privacy.py and
reference/dc/readings.py against the notes' numbers (shared/notes/dc-dpsgd.md §2 T5.1 table, §3.2, §3.3, §3.4) and
against the base statements they call.

Tolerances. The notes' numbers are printed to 4 significant digits (σ's and m2's) or 2–3 (ε's); they were computed
with an integer(-ish) RDP order grid (dp_accounting/Opacus style), whereas base.rdp_to_dp searches every real order
(certified), so our RDP ε's are at most the notes' and can be lower by up to ~0.5% (MNIST 4+4 joint: 14.13 here vs
14.17 there). The default tests reach the RDP route at q = 1 (closed-form curve) and the PLD route at T = 2. Hence: σ and m2 to relative 2e-3 (4 digits + the grid), ε to 0.05 absolute + 0.5 % where the notes
give RDP values. The per-reading PLD values (3.48, 12.45, 43.5) need T = 18750: the mpmath PLD reference composes
at most 64 steps (base.pld_sgm_epsilon's domain), so they are the fast accountant's tests (tests/dc/
test_dc_accounting.py), not these. Each RDP value at the paper's sizes costs a certified order search (seconds each;
~20–40 s on a loaded 2-core machine): those are @pytest.mark.slow except one.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.base.conversion import rdp_to_dp
from dpspec.reference.base.gaussian import gaussian_profile, gaussian_sigma
from dpspec.reference.base.pld import pld_sgm_epsilon
from dpspec.reference.base.sgm import sgm_rdp
from dpspec.reference.dc import privacy as P
from dpspec.reference.dc import readings as R
from dpspec.reference.errors import ConditionError, DomainError, ParameterError

catalogue.load_all()

# notes §2 T5.1 table: setting → (q, T, δ, {ε: (σ_RDP, implied m2)})
MNIST = (mpf(128) / 60000, 18750, mpf("1e-5"))
CIFAR10 = (mpf(256) / 50000, 9766, mpf("1e-5"))
CIFAR10_HT = (mpf("0.020635"), 2423, mpf("1e-5"))
IMAGENETTE = (mpf("0.105608"), 473, mpf("1e-4"))
TABLE = {
    "MNIST": (MNIST, {8: ("0.5769", "21.68"), 4: ("0.7048", "8.09"), 2: ("0.9166", "3.42"), 6: ("0.6243", "14.28")}),
    "CIFAR10": (CIFAR10, {8: ("0.6814", "10.08"), 4: ("0.8837", "4.24"), 2: ("1.2988", "2.29"), 6: ("0.7515", "6.90")}),
    "CIFAR10-HT": (CIFAR10_HT, {8: ("0.9404", "4.77"), 4: ("1.3927", "2.61"), 2: ("2.3295", "1.83"),
                                6: ("1.0897", "3.60")}),
    "ImageNette": (IMAGENETTE, {8: ("1.5416", "3.13"), 4: ("2.5403", "2.13"), 2: ("4.4718", "1.65"),
                                6: ("1.8781", "2.61")}),
}
REL_SIGMA = 2e-3


@pytest.fixture(autouse=True)
def _thirty_digits():
    with mpmath.workdps(30):
        yield


# ---------------------------------------------------------------------------------------------------------------
# Claim C(3): amplification (notes §3.4 examples; erratum E22)


@pytest.mark.parametrize("eps, q, tight, printed", [(4, "0.1", "1.85", "5.36"), (8, "0.1", "5.70", "298"),
                                                    (1, "0.002133", "0.003658", "0.003665")])
def test_amplification_examples(eps, q, tight, printed):
    e_tight, d_tight = P.amplify(eps, "1e-5", q)
    e_printed, d_printed = P.amplify(eps, "1e-5", q, printed=True)
    assert e_tight == pytest.approx(float(tight), rel=5e-3)
    assert e_printed == pytest.approx(float(printed), rel=5e-3)
    assert d_tight == d_printed == mpf(q) * mpf("1e-5")
    assert e_tight < e_printed  # the printed form is valid (log(1 + x) ≤ x) and looser


def test_amplification_limits_and_refusals():
    assert P.amplify(3, 0, 1)[0] == pytest.approx(3, rel=1e-25)  # q = 1: no amplification
    assert P.amplify(3, 0, 1, printed=True)[0] == pytest.approx(float(mpmath.e**3 - 1), rel=1e-25)  # > ε at q = 1
    assert P.amplify(0, "0.5", "0.3") == (0, mpf("0.15"))
    with pytest.raises(DomainError, match="q"):
        P.amplify(1, "1e-5", 0)
    with pytest.raises(DomainError, match="eps"):
        P.amplify(-1, "1e-5", "0.1")


def test_claim_c3_is_the_tight_form_and_printed_a_valid_variant():
    st = catalogue.get("dc.claim_c3")
    assert st.variants["printed"].is_bound
    assert st.evaluate(eps=8, delta="1e-5", q="0.1").value[0] == pytest.approx(5.70, abs=5e-3)
    assert st.evaluate(eps=8, delta="1e-5", q="0.1", variant="printed").value[0] == pytest.approx(298.0, rel=1e-3)


# ---------------------------------------------------------------------------------------------------------------
# Theorem 5.1 as printed (E1): σ² = m2 T q² ln(1/δ)/ε²


@pytest.mark.parametrize("name", list(TABLE))
def test_thm51_sigma_reproduces_the_table_arithmetic(name):
    """Thm 5.1's σ at the table's implied m2 is the table's σ_RDP (the table is self-consistent; 4 digits)."""
    (q, steps, delta), rows = TABLE[name]
    for eps, (sigma, m2) in rows.items():
        assert P.thm51_sigma(eps, delta, q, steps, m2) == pytest.approx(float(sigma), rel=REL_SIGMA)


def test_thm5_1_condition_and_refusals():
    st = catalogue.get("dc.thm5_1")
    q, steps, delta = MNIST
    assert st.evaluate(eps=4, delta=delta, q=q, steps=steps, m2="8.09", m1=47).value == pytest.approx(0.7048, rel=1e-3)
    with pytest.raises(ConditionError, match="eps_at_most_m1_q2_T"):  # notes §2: m1 ≥ ε/(q²T) = 46.87 needed
        st.evaluate(eps=4, delta=delta, q=q, steps=steps, m2="8.09", m1=46)
    with pytest.raises(DomainError, match="eps"):
        P.thm51_sigma(0, "1e-5", "0.1", 10, 1)


# ---------------------------------------------------------------------------------------------------------------
# σ_eff per reading and noise form (notes §3.2, §3.4)


def test_sigma_eff_values_of_the_notes():
    s = "0.7048"
    assert R.sigma_eff("B", s, 1, "0.1") == mpf(s)
    assert R.sigma_eff("A", s, 1, "0.1") == pytest.approx(0.3709, abs=5e-5)   # σ/(2 − c2/c1) = σ/1.9
    # (C): Δ_gp = 2c1 − c2 (top-⌊pB⌋ moves a shared sample tail → body even with the scores released): σ/√(1 + 1.9²);
    # the notes' σ/√2 = 0.4984 is (C) at c1 = c2
    assert R.sigma_eff("C", s, 1, "0.1", sigma_tr=s) == pytest.approx(0.32826, abs=5e-6)
    assert R.sigma_eff("C", s, 1, 1, sigma_tr=s) == pytest.approx(0.4984, abs=5e-5)
    assert R.sigma_eff("B", 1, 1, "0.1", noise="published", p_tail="0.1") == pytest.approx(0.1345, abs=5e-5)
    per = R.sigma_eff("B", 1, 1, "0.1", noise="per_sample", p_tail="0.1", batch=128)
    assert per / mpmath.sqrt(128) == pytest.approx(0.330, abs=5e-4)  # 0.330√B σ_dp
    # units: scaling c1, c2 together leaves σ_eff (noise σ_dp·c1) unchanged
    assert R.sigma_eff("A", "0.9", 10, 3) == pytest.approx(float(R.sigma_eff("A", "0.9", 1, "0.3")), rel=1e-25)
    # Δ_tr = 1/k (the 1/k-averaged V, k = 200) makes the trace noise nearly free
    # ... down to reading A's σ/1.9
    assert R.sigma_eff("C", s, 1, "0.1", sigma_tr=s, delta_tr=mpf(1) / 200) == pytest.approx(0.37094, abs=1e-5)


def test_sigma_eff_joint_is_below_both_components():
    for s_tr, s_dp in (("0.5", "2"), ("3", "0.7"), ("1", "1")):
        joint = R.sigma_eff("C", s_dp, 1, "0.5", sigma_tr=s_tr)
        assert joint < min(mpf(s_tr), mpf(s_dp))
        assert R.sigma_eff("A", s_dp, 1, "0.5") < mpf(s_dp)
        assert joint < R.sigma_eff("A", s_dp, 1, "0.5")  # C's gradient part is A's


@pytest.mark.parametrize("p_tail", ["0.1", "0.5", "0.9"])
def test_claim_c2_recomputed_is_attained_and_the_brute_force_sees_tails(p_tail):
    """dc.claim_c2 (E4; the review's reading-C counterexample): under top-⌊pn⌋ selection, adding z moves the clipped
    sum by exactly 2c1 − c2 on the attaining pair (z takes x's tail slot); the brute-force property runs with tail
    samples present (n up to ⌈2/p⌉) and passes for both neighbour models."""
    c1, c2 = 1.0, 0.1
    g, sc, n = R._attaining_pair(c1, c2, float(p_tail))
    before, tail_d = R._clipped_sum(g[:n], sc[:n], c1, c2, float(p_tail))
    after, tail_d2 = R._clipped_sum(g, sc, c1, c2, float(p_tail))
    assert 0 in tail_d and 0 not in tail_d2 and n in tail_d2 and len(tail_d) == len(tail_d2) >= 1
    assert float(np.linalg.norm(after - before)) == pytest.approx(2 * c1 - c2, rel=1e-14)
    for sel in ("fixed", "recomputed"):
        R._sensitivity_brute_force(None, {"c1": c1, "c2": c2, "selection": sel, "p_tail": p_tail})
    assert R._attaining_pair(c1, c2, 1.0) is None and R._attaining_pair(c1, c2, 0.0) is None


def test_sigma_eff_refusals():
    with pytest.raises(ConditionError, match="c2_at_most_c1"):
        R.sigma_eff("B", 1, "0.1", 1)
    with pytest.raises(DomainError, match="reading"):
        R.sigma_eff("D", 1, 1, "0.1")
    with pytest.raises(ParameterError, match="sigma_tr"):
        R.sigma_eff("C", 1, 1, "0.1")
    with pytest.raises(ParameterError, match="batch"):
        R.sigma_eff("B", 1, 1, "0.1", noise="per_sample", p_tail="0.1")
    with pytest.raises(DomainError, match="p_tail"):
        R.sigma_eff("B", 1, 1, "0.1", noise="published", p_tail="1.5")


# ---------------------------------------------------------------------------------------------------------------
# Claims C(1), C(2)


def test_claim_c1_is_the_gaussian_profile_at_sigma_over_delta():
    for eps, s, d in ((1, "0.7048", 1), ("0.5", 2, "0.005"), (3, "0.3", "1.41421356")):
        assert R.claim_c1(eps, s, d) == gaussian_profile(eps, mpf(s) / mpf(d))
    assert R.claim_c1(1, 1, "0.5") < R.claim_c1(1, 1, 1)  # smaller Δ_tr, smaller δ


def test_claim_c2_sensitivities_and_the_printed_form():
    st = catalogue.get("dc.claim_c2")
    assert R.claim_c2(1, "0.1") == 1
    assert R.claim_c2(1, "0.1", "recomputed") == mpf("1.9")
    printed = st.evaluate(c1=1, c2="0.1", p_tail="0.1", variant="printed")
    assert not printed.is_bound and printed.value == pytest.approx(0.19, rel=1e-25)
    # the property check (a brute-force neighbour search on random small batches) runs and passes at both models
    for sel in ("fixed", "recomputed"):
        R._sensitivity_brute_force(st, {"c1": mpf(1), "c2": mpf("0.1"), "selection": sel, "p_tail": mpf("0.3")})


def test_claim_c2_brute_force_catches_a_too_small_sensitivity(monkeypatch):
    """The property is not vacuous: with the printed p c1 + (1−p) c2 in place of Δ_gp it fails."""
    st = catalogue.get("dc.claim_c2")
    monkeypatch.setattr(R, "claim_c2", lambda c1, c2, sel="fixed": R.claim_c2_printed(c1, c2, sel, "0.1"))
    with pytest.raises(AssertionError, match="moved the clipped sum"):
        R._sensitivity_brute_force(st, {"c1": mpf(1), "c2": mpf("0.1"), "selection": "fixed", "p_tail": mpf("0.1")})


# ---------------------------------------------------------------------------------------------------------------
# the readings: T-fold ε through the base accountants


def test_reading_pld_is_base_pld_at_sigma_eff():
    """Small T (the PLD reference's domain): reading (C) by PLD is base.pld_sgm_epsilon at σ_eff, and above the
    single-component value."""
    q, steps, delta = "0.1", 2, "1e-5"
    s_eff = R.sigma_eff("C", "1.2", 1, "0.1", sigma_tr=2)
    got = R.reading_epsilon("C", q, steps, delta, "1.2", 1, "0.1", sigma_tr=2, method="pld")
    assert got == pytest.approx(float(pld_sgm_epsilon(delta, q, s_eff, steps, "0.125")), rel=1e-20)
    assert got > R.reading_epsilon("B", q, steps, delta, "1.2", 1, "0.1", method="pld")
    with pytest.raises(DomainError, match="steps"):
        R.reading_epsilon("B", q, 65, delta, 1, 1, "0.1", method="pld")


@pytest.mark.slow
def test_reading_b_imagenette_matches_the_table():
    """ImageNette (q = 0.105608, T = 473, δ = 1e-4): ε_RDP at the table's σ(ε = 8) = 1.5416 is 8 (reading (B) is DP-SGD
    at σ_dp); and it equals base.rdp_to_dp of base.sgm_rdp called directly."""
    q, steps, delta = IMAGENETTE
    got = R.reading_epsilon("B", q, steps, delta, "1.5416", 1, "0.1")
    assert got == pytest.approx(8, abs=0.02)
    direct = rdp_to_dp(lambda a: sgm_rdp(a, q, mpf("1.5416")), delta, steps)
    assert got == pytest.approx(float(direct), rel=1e-20)


def test_implied_m2_q1_against_the_exact_gaussian():
    """q = 1 (notes §2 limits): T Gaussian steps are one Gaussian at σ/√T, so the exact m2 is σ_G(ε, δ)²ε²/ln(1/δ)
    (base.gaussian_sigma); the notes give 1.209 (ε = 1) and 1.625 (ε = 4) at δ = 1e-5. The RDP-implied m2 is larger
    (RDP→DP is lossy) but within 25 %."""
    delta = mpf("1e-5")
    for eps, notes in ((1, "1.209"), (4, "1.625")):
        exact = gaussian_sigma(eps, delta) ** 2 * eps**2 / mpmath.log(1 / delta)
        assert exact == pytest.approx(float(notes), rel=2e-3)
        rdp = P.implied_m2(eps, delta, 1, 10)
        assert exact < rdp < exact * mpf("1.25")
        # the definition: Thm 5.1's σ at the implied m2 is the calibrated σ, and that σ gives ε by RDP
        sigma = P.thm51_sigma(eps, delta, 1, 10, rdp)
        assert R.sgm_epsilon_rdp(1, sigma, 10, delta) == pytest.approx(eps, rel=1e-8)


def test_implied_m2_statement_at_sigma_is_the_calibrating_form_inverted():
    """dc.implied_m2 (parametrised by σ) at the σ that privacy.implied_m2 calibrates for ε gives the same m2, q = 1."""
    delta = mpf("1e-5")
    m2 = P.implied_m2(4, delta, 1, 10)
    sigma = P.thm51_sigma(4, delta, 1, 10, m2)
    assert catalogue.get("dc.implied_m2").evaluate(q=1, steps=10, delta=delta, sigma=sigma, dps=30).value == \
        pytest.approx(float(m2), rel=1e-7)


def test_thm5_1_total_q1_against_the_exact_gaussian():
    """q = 1, T = 10, ε_tr = ε_dp = 1 at m2 = 1.2: the sound total is the T-fold Gaussian at σ_eff = (σ_tr⁻² +
    σ_dp⁻²)^{−1/2}; RDP's ε is above the exact one (base.gaussian_eps at σ_eff·√... composed: σ_eff/√T) and below
    1.3× it. Without subsampling the printed ε_tr + ε_dp = 2 is not violated here (1.60: Gaussian composition is
    √-additive in μ); E2 is a subsampling effect (the slow MNIST test: 14.1 > 8)."""
    from dpspec.reference.base.gaussian import gaussian_eps

    st = catalogue.get("dc.thm5_1_total")
    kw = dict(eps_tr=1, eps_dp=1, delta=mpf("1e-5"), q=1, steps=10, m2="1.2", c1=1, c2=1, m1=100)
    sound = st.evaluate(dps=30, **kw).value
    # c2 < c1: the gradient part pays 2c1 − c2 (the top-⌊pB⌋ selection), so the sound total grows
    assert st.evaluate(dps=30, **{**kw, "c2": "0.1"}).value > sound
    s = P.thm51_sigma(1, kw["delta"], 1, 10, "1.2")
    exact = gaussian_eps(kw["delta"], s / mpmath.sqrt(2) / mpmath.sqrt(10))
    assert exact < sound < mpf("1.3") * exact
    printed = st.evaluate(dps=30, variant="printed", **kw)
    assert printed.value == 2 and not printed.is_bound and sound < 2


# ---------------------------------------------------------------------------------------------------------------
# slow: the notes' tables at the paper's sizes (seconds to a minute per value)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(TABLE))
def test_table_sigma_rdp_gives_the_target_epsilon(name):
    """notes §2 T5.1 table: ε_RDP(σ_RDP) = ε for every setting and ε ∈ {2, 4, 6, 8} (σ to 4 digits: ε to ~0.3 %)."""
    (q, steps, delta), rows = TABLE[name]
    for eps, (sigma, _) in rows.items():
        assert R.reading_epsilon("B", q, steps, delta, sigma, 1, 1) == pytest.approx(eps, rel=4e-3)


@pytest.mark.slow
@pytest.mark.parametrize("name, eps", [("ImageNette", 8), ("MNIST", 4), ("CIFAR10", 4)])
def test_implied_m2_table(name, eps):
    (q, steps, delta), rows = TABLE[name]
    sigma, m2 = rows[eps]
    assert P.calibrate_sgm_sigma(eps, delta, q, steps) == pytest.approx(float(sigma), rel=REL_SIGMA)
    assert P.implied_m2(eps, delta, q, steps) == pytest.approx(float(m2), rel=2 * REL_SIGMA + 1e-3)
    at_sigma = catalogue.get("dc.implied_m2").evaluate(q=q, steps=steps, delta=delta, sigma=sigma, dps=30).value
    assert at_sigma == pytest.approx(float(m2), rel=2 * REL_SIGMA + 1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("name, sep, joint", [("MNIST", "5.49", "14.17"), ("CIFAR10", "5.81", "10.59"),
                                               ("CIFAR10-HT", "5.88", "7.28"), ("ImageNette", "5.97", "6.39")])
def test_separate_vs_joint_rdp(name, sep, joint):
    """notes §3.3 (E2), 4+4 split at σ(ε = 4): 'separate' = two SGM accountants composed (RDP curves added) and
    the sound joint accounting (reading C, σ_eff = σ/√2); the joint ε exceeds the separate one."""
    (q, steps, delta), rows = TABLE[name]
    sigma = mpf(rows[4][0])
    separate = rdp_to_dp(lambda a: 2 * sgm_rdp(a, q, sigma), delta, steps)
    joint_eps = R.reading_epsilon("C", q, steps, delta, sigma, 1, 1, sigma_tr=sigma)
    assert separate == pytest.approx(float(sep), abs=0.05 + 5e-3 * float(sep))
    assert joint_eps == pytest.approx(float(joint), abs=0.05 + 5e-3 * float(joint))
    assert joint_eps > separate


@pytest.mark.slow
def test_readings_mnist_numbers():
    """notes §3.4 at MNIST, σ = 0.7048, c2/c1 = 0.1: (B) RDP 4.00; (C) at c1 = c2 > 8 (PLD 12.45, RDP ≥ it); (A) > it;
    (C) at c2/c1 = 0.1 (Δ_gp = 2c1 − c2, corrected) ≈ 80.1 by RDP (PLD [72.20, 72.70]) > (A)."""
    (q, steps, delta), _ = TABLE["MNIST"]
    b = R.reading_epsilon("B", q, steps, delta, "0.7048", 1, "0.1")
    c_eq = R.reading_epsilon("C", q, steps, delta, "0.7048", 1, 1, sigma_tr="0.7048")
    c = R.reading_epsilon("C", q, steps, delta, "0.7048", 1, "0.1", sigma_tr="0.7048")
    a = R.reading_epsilon("A", q, steps, delta, "0.7048", 1, "0.1")
    assert b == pytest.approx(4.00, abs=0.01)
    assert 12.45 < c_eq < 14.2
    assert a > c_eq and c > a and c == pytest.approx(80.1, abs=0.1)


@pytest.mark.slow
def test_thm5_1_total_mnist_exceeds_the_printed_sum():
    st = catalogue.get("dc.thm5_1_total")
    (q, steps, delta), _ = TABLE["MNIST"]
    kw = dict(eps_tr=4, eps_dp=4, delta=delta, q=q, steps=steps, m2="8.09", c1=1, c2=1, m1=100)
    sound = st.evaluate(**kw).value
    printed = st.evaluate(**kw, variant="printed")
    assert not printed.is_bound and printed.value == 8
    assert sound == pytest.approx(14.13, abs=0.05) and sound > printed.value


def _remove_equals_max(q, s, a):
    import mpmath as mp_

    from dpspec.reference.base.sgm import sgm_rdp as base_sgm_rdp
    from dpspec.reference.dc import readings as R_

    with mp_.workdps(30):
        rm, mx = R_.SgmCurve(q, s)(mp_.mpf(a)), base_sgm_rdp(mp_.mpf(a), mp_.mpf(q), mp_.mpf(s))
        assert abs(rm - mx) <= mp_.mpf("1e-25") * mx, (q, s, a, rm, mx)
        assert rm == base_sgm_rdp(mp_.mpf(a), mp_.mpf(q), mp_.mpf(s), "remove")


def test_reading_curve_is_the_remove_direction_which_is_the_max():
    """The readings' RDP curve (R.SgmCurve) is base.sgm_rdp's remove direction; MTZ19 Thm 5 (add ≤ remove) makes it
    base.sgm_rdp's default "max" (equal to 1e-25 at 30 digits; here an integer order, the binomial route; a
    fractional one, the quadrature route, in the slow sibling), so skipping base's numerical add check per order
    (issue 19's cost item) changes no reading."""
    from dpspec.reference.dc import readings as R_

    _remove_equals_max("0.2", "0.6", "3")
    assert "remove" in repr(R_.SgmCurve("0.1", "1"))


@pytest.mark.slow
def test_reading_curve_is_the_max_at_a_fractional_order():
    """As above at α = 7.5, q = 0.00512, σ = 0.8837 (the example's curve; quadrature in both directions, ~4 s)."""
    _remove_equals_max("0.00512", "0.8837", "7.5")


def test_reading_pld_beyond_64_steps_at_q_one_is_the_exact_gaussian():
    """Reading B's PLD variant at q = 1, T = 1000 (beyond base.pld_sgm_epsilon's T ≤ 64): the T-fold Gaussian
    mechanism is the Gaussian mechanism at σ/√T, so the value is base.gaussian_eps(δ, σ/√T) — below the RDP reading
    (a valid bound) and above the ε of the Gaussian at 0.99·σ/√T (it is the exact value, not a looser one); at
    q < 1 beyond 64 steps the variant still refuses with a DomainError."""
    import mpmath as mp_

    from dpspec.reference.base.gaussian import gaussian_eps
    from dpspec.reference.dc import readings as R_

    with mp_.workdps(30):
        ev = catalogue.get("dc.reading_b").evaluate(variant="pld", q=1, steps=1000, delta="1e-5", sigma_dp=20)
        exact = gaussian_eps(mp_.mpf("1e-5"), 20 / mp_.sqrt(1000))
        assert abs(ev.value - exact) <= mp_.mpf("1e-25") * exact
        rdp = catalogue.get("dc.reading_b").evaluate(q=1, steps=1000, delta="1e-5", sigma_dp=20).value
        assert exact < rdp and gaussian_eps(mp_.mpf("1e-5"), mp_.mpf("0.99") * 20 / mp_.sqrt(1000)) > exact
        with pytest.raises(DomainError):
            R_.sgm_epsilon_pld("0.5", 20, 1000, "1e-5")


def test_claim_c2_printed_sensitivity_plant_is_caught_by_conform():
    """The self-test plant dc.claim_c2:printed-sensitivity:ref (conformance/selftest.py: Claim C(2)'s printed
    p c1 + (1 − p) c2 in place of c1 / 2c1 − c2) fails dc.claim_c2 in conform (its brute-force sensitivity property:
    a tail sample moves the sum by c1 > the printed value), and undoing it restores the pass."""
    import dataclasses

    from dpspec.conformance import runner, selftest

    settings = dataclasses.replace(runner.QUICK, property_examples=3)
    plant = selftest.get("dc.claim_c2:printed-sensitivity:ref")
    with plant.applied():
        bad = runner.settle(runner.check_statement(catalogue.get("dc.claim_c2"), settings))
    assert bad.status == "fail" and any(c.failed and "sensitivity" in c.name for c in bad.details)
    good = runner.settle(runner.check_statement(catalogue.get("dc.claim_c2"), settings))
    assert good.status == "pass"
