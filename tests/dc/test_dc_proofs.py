"""Proof checks of seed 004 (DC-DPSGD; dpspec.proofs_checks.dc.symbolic): each holds, names existing statements, and
each check family has power: a planted false claim (the printed line, a wrong constant, a point outside the
condition) makes it fail."""
import pytest
from mpmath import mp, mpf

from dpspec.proofs_checks.checks import CHECKS, all_checks
from dpspec.proofs_checks.dc import symbolic
from dpspec.reference import catalogue

CHECK_NAMES = ("lemma_a6_moment_integral", "lemma_a1_inversion", "weibull_orlicz_scale", "amplification_algebra",
               "eq28_from_eq27", "eq67_eq68_constants", "thresholds_equal_at_half", "lemma_a4_exp_bound",
               "eq49_square_difference", "eq41_coefficient")
CHECK_IDS = ("dc.symbolic.lemma_a6_moment_integral", "dc.symbolic.lemma_a1_inversion", "dc.symbolic.weibull_orlicz_scale",
             "dc.symbolic.amplification_algebra", "dc.symbolic.eq28_from_eq27", "dc.symbolic.eq67_eq68_constants",
             "dc.symbolic.thresholds_equal_at_half", "dc.symbolic.lemma_a4_exp_bound",
             "dc.symbolic.eq49_square_difference", "dc.symbolic.eq41_coefficient")

# one planted failure per check family: (check, keyword arguments that assert a false claim)
PLANTED = (
    ("lemma_a6_moment_integral", {"claim": "2*K**p*gamma(p*theta)"}),  # Γ(pθ) for Γ(pθ + 1)
    ("lemma_a1_inversion", {"claim": "K*log(1/delta)**theta"}),  # log(1/δ) for log(2/δ)
    ("weibull_orlicz_scale", {"claim": "2*lam**theta"}),  # 2λ^θ for 2^θλ
    ("amplification_algebra", {"claim": "p1447"}),  # the printed final line
    ("amplification_algebra", {"claim": "p1441"}),  # the printed p1441 → p1442 step
    ("eq28_from_eq27", {"points": (dict(delta="0.9", d=10, n=10 ** 6, eps=8, beta=1, B=1, m2=1),)}),  # δ > 2/e
    ("eq67_eq68_constants", {"claim": "printed"}),  # 2aK²/√T, K² missing
    ("thresholds_equal_at_half", {"theta": 1}),  # c1 ≠ c2 off θ = 1/2
    ("lemma_a4_exp_bound", {"r_max": 2}),  # e^r − r − 1 ≤ r² fails at r = 2
    ("eq49_square_difference", {"form": "printed"}),  # the printed (49)
    ("eq41_coefficient", {"divisor": "1/3"}),  # the printed divisor of (41)
)


@pytest.fixture(autouse=True)
def _dps():
    CHECKS.load()
    with mp.workdps(30):
        yield


def test_the_dc_checks_are_registered():
    assert set(all_checks("dc")) == set(CHECK_IDS) == {f"dc.symbolic.{n}" for n in CHECK_NAMES}


@pytest.mark.parametrize("check_id", CHECK_IDS)
def test_dc_check_holds(check_id):
    result = all_checks("dc")[check_id]()
    assert result.holds, (result.message, result.evidence)


@pytest.mark.parametrize("name, planted", PLANTED, ids=[f"{n}-{next(iter(k))}" for n, k in PLANTED])
def test_a_planted_false_claim_fails(name, planted):
    result = getattr(symbolic, name)(**planted)
    assert not result.holds, result.evidence


def test_every_family_has_a_planted_failure():
    assert {n for n, _ in PLANTED} == set(CHECK_NAMES)


def test_dc_checks_name_existing_statements():
    ids = {s.id for s in catalogue.statements()}
    for c in all_checks("dc").values():
        assert c.statements and set(c.statements) <= ids, (c.id, set(c.statements) - ids)


def test_amplification_search_finds_the_p1447_and_p1441_defects():
    """The evidence of the check: the chain holds to rounding, p1447 is violated by ≈ 1 and p1441 → p1442 by qδ > 0."""
    viol = symbolic.amplification_algebra().evidence["largest violations (2e5 seeded draws)"]
    assert max(viol["p1437"], viol["p1440"], viol["p1442"]) <= 1e-12
    assert viol["p1447"] > 0.9 and viol["p1441->p1442"] > 0


def test_eq41_slip_factor():
    """(1/3)/(20/3 − 4√e) = 4.64 (notes §6 E15: 'about 4.6×')."""
    ev = symbolic.eq41_coefficient().evidence
    assert 4.6 < float(ev["slip factor"]) < 4.7 and 0.0717 < float(ev["coefficient lower bound (x K L2)"]) < 0.0719


def test_freedman_a_closed_form_matches_the_notes_values():
    """Notes §2 Lemma A.3: a(1/2) = 2, a(0.6) = 21.13, a(0.75) = 38.39, a(1) = 118.2, a(1.5) = 502.8, a(2) = 16176,
    a(3) = 6.20e7 (4 significant digits)."""
    want = {"0.5": 2, "0.6": "21.13", "0.75": "38.39", "1": "118.2", "1.5": "502.8", "2": 16176, "3": "6.20e7"}
    for theta, value in want.items():
        got = symbolic.freedman_a_independent(theta)
        assert abs(got / mpf(value) - 1) < mpf("5e-4"), (theta, got)
    with pytest.raises(ValueError, match="theta"):
        symbolic.freedman_a_independent("0.4")


@pytest.mark.parametrize("name", ("lemma_a6_moment_integral", "lemma_a1_inversion", "weibull_orlicz_scale",
                                  "thresholds_equal_at_half"))
def test_the_reference_comparison_ran(name):
    """These checks compare with helper A's reference when its contract name exists; the suite insists it does."""
    text = repr(getattr(symbolic, name)().evidence)
    assert "not available" not in text, text
