"""PTR paper (seeds 000 + 001): reference values, cross-checks, conditions and bad inputs of dpspec.reference.ptr.

Vectors are those of shared/notes/ptr-rdp.md §5.2 (computed there with mpmath at 30–40 digits and quoted to
10–15 significant digits); each is compared at the digits quoted, evaluated at 50 digits."""
import mpmath
import pytest
from mpmath import mpf

from _helpers import evaluation as ev  # Statement.evaluate at the catalogue's 50 digits (= DPS)
from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError, DomainError
from dpspec.reference.ptr import thm4_3, thm4_4, witnesses

DPS = 50


def close(value, quoted: str):
    """Agreement to the number of significant digits quoted in the notes (half a unit in the last digit)."""
    digits = len(quoted.replace(".", "").replace("-", "").split("e")[0].lstrip("0"))
    return abs(value - mpf(quoted)) <= 0.5 * abs(mpf(quoted)) * mpf(10) ** (1 - digits)


# -- Theorem 4.3 -----------------------------------------------------------------------------------------

THM43 = [  # alpha, sigma1, sigma2, b, delta0, eps, T1, T2 (notes §5.2)
    (2, 8, 4, 1, "1e-8", "0.634748629999", "0.0156250004799", "0.634748629999"),
    (10, 8, 4, 1, "1e-8", "1.0068079021", "0.0781250080479", None),
    (32, 4, "4/3", 1, "1e-5", "8.62861530758", None, "1.97814842505"),
    (5, "1.1", "0.55", 1, "1e-8", "3.65971914226", None, "2.919193717"),
]


def _num(x):
    return mpf(4) / 3 if x == "4/3" else x


@pytest.mark.parametrize("alpha,s1,s2,b,d0,eps,t1,t2", THM43)
def test_thm4_3_vectors(alpha, s1, s2, b, d0, eps, t1, t2):
    with mpmath.workdps(DPS):
        s2 = _num(s2)
        assert close(ev("ptr.thm4_3", alpha=alpha, sigma1=s1, sigma2=s2, b=b, delta0=d0).value, eps)
        args = [mpf(x) for x in (alpha, s1, s2, d0)]
        if t1:
            assert close(thm4_3.T1(*args), t1)
        if t2:
            assert close(thm4_3.T2(mpf(alpha), mpf(s1), mpf(b)), t2)


@pytest.mark.parametrize("alpha", [mpf("1.01"), 2, mpf("3.5"), 10, 64])
@pytest.mark.parametrize("s1,s2,b,d0", [(8, 4, 1, "1e-8"), (4, mpf(4) / 3, 1, "1e-5"), ("1.1", "0.55", 2, "0.1")])
def test_thm4_3_is_the_max_of_the_two_exact_pair_moments(alpha, s1, s2, b, d0):
    """Tightness: each term of the max is the exact moment of a concrete pair (notes §3.3)."""
    with mpmath.workdps(DPS):
        p = {k: mpf(v) for k, v in dict(sigma1=s1, sigma2=s2, b=b, delta0=d0).items()}
        exact = max(catalogue.get_witness(f"ptr.thm4_3.case{c}").log_moment(alpha, **p) for c in (1, 2))
        value = ev("ptr.thm4_3", alpha=alpha, **p).value
        assert abs(value - exact / (mpf(alpha) - 1)) <= abs(value) * mpf(10) ** -45


def test_thm4_3_limits_delta0_to_zero_and_alpha_to_infinity():
    with mpmath.workdps(30):
        # δ0 → 0: T1 → α/(2σ1²) < T2, so ε = α/(2σ1²) + ε_R-Lap(α)
        v = ev("ptr.thm4_3", alpha=3, sigma1=2, sigma2=1, b=1, delta0="1e-40").value
        assert abs(v - thm4_3.T2(mpf(3), mpf(2), mpf(1))) < mpf(10) ** -25
        # α → ∞: slope 1/(2σ2²) for fixed δ0 > 0 (T1 dominates)
        a1, a2 = mpf(10) ** 6, 2 * mpf(10) ** 6
        e1 = ev("ptr.thm4_3", alpha=a1, sigma1=2, sigma2=1, b=1, delta0="1e-3").value
        e2 = ev("ptr.thm4_3", alpha=a2, sigma1=2, sigma2=1, b=1, delta0="1e-3").value
        assert abs((e2 - e1) / (a2 - a1) - mpf(1) / 2) < mpf(10) ** -4


@pytest.mark.parametrize("alpha,s1,tau,b,d0", [(2, 8, "0.5", 1, "1e-8"), (7.5, 3, "0.25", "0.5", "1e-3"),
                                               (40, 2, 1, 3, "0.5")])
def test_extension_equals_thm4_3_when_sigma2_is_tau_sigma1(alpha, s1, tau, b, d0):
    with mpmath.workdps(DPS):
        s2 = mpf(s1) * mpf(tau)
        ext = ev("ptr.thm4_3_general", alpha=alpha, sigma1=s1, sigma2=s2, tau=tau, b=b, delta0=d0).value
        assert ext == ev("ptr.thm4_3", alpha=alpha, sigma1=s1, sigma2=s2, b=b, delta0=d0).value


def test_extension_textbook_ptr_and_mismatched_noise():
    with mpmath.workdps(30):
        inf = mpmath.inf
        alpha, s2, tau, b, d0 = mpf(4), mpf(2), mpf("0.5"), mpf(1), mpf("1e-6")
        v = ev("ptr.thm4_3_general", alpha=alpha, sigma1=inf, sigma2=s2, tau=tau, b=b, delta0=d0).value
        t1 = mpmath.log((1 - d0) + d0 * mpmath.exp(alpha * (alpha - 1) / (2 * s2**2))) / (alpha - 1)
        t2 = alpha * tau**2 / (2 * s2**2) + thm4_3.T2(alpha, inf, b)
        assert abs(v - max(t1, t2)) < mpf(10) ** -25
        # refusing costs less than releasing f1 with σ1 = 2 (where σ2 = τσ1 would need σ2 = 1)
        assert v < ev("ptr.thm4_3_general", alpha=4, sigma1=2, sigma2=s2, tau=tau, b=1, delta0=d0).value
        # σ2 larger than τσ1 ("too much" f2 noise) gives the f1 term back: Case 2 = α/(2σ1²) + Laplace
        big = ev("ptr.thm4_3_general", alpha=4, sigma1=2, sigma2=5, tau=tau, b=1, delta0=d0).value
        assert abs(big - max(thm4_3.T1(alpha, mpf(2), mpf(5), d0), thm4_3.T2(alpha, mpf(2), b))) < mpf(10) ** -25


# -- Appendix A.1.1 and inequality (38)–(41) ----------------------------------------------------------------

@pytest.mark.parametrize("alpha,b", [(mpf("1.001"), "0.1"), (2, 1), (10, 5), (1000, "0.5")])
def test_ineq38_41_and_no_release_is_worse(alpha, b):
    with mpmath.workdps(30):
        crude = ev("ptr.ineq38_41", alpha=alpha, b=b).value
        assert catalogue.get("base.laplace_rdp").evaluate(dps=30, alpha=alpha, b=b).value < crude
        p = dict(alpha=alpha, sigma1=3, sigma2=1, b=b, delta0="1e-6")
        assert ev("ptr.thm4_3", **p).value <= ev("ptr.a1_1_no_release", **p).value


# -- Theorem 4.2 -------------------------------------------------------------------------------------------

def test_thm4_2_vectors_and_printed_form():
    with mpmath.workdps(DPS):
        # notes §5.2 Fig. 1 table: σ1 = 10, δ0 = 1e-8, δ = 1e-5 − δ0 → ε_direct = 1.485; printed → 51.2
        p = dict(b=1, sigma1=10, delta0="1e-8", delta=mpf("1e-5") - mpf("1e-8"))
        corrected = ev("ptr.thm4_2", **p).value
        assert corrected == 1 + mpmath.sqrt(2 * mpmath.log(mpf("1.25") / p["delta"])) / 10
        assert close(corrected, "1.485")
        assert close(ev("ptr.thm4_2", variant="printed", **p).value, "51.2")
        assert not catalogue.get("ptr.thm4_2").variants["printed"].is_bound
        # the analytic Gaussian is never worse than the classical formula
        assert ev("ptr.thm4_2_analytic", **p).value < corrected


def test_thm4_2_printed_grows_with_noise_corrected_decreases():
    p = dict(b=1, delta0="1e-8", delta="1e-5")
    printed = [ev("ptr.thm4_2", variant="printed", sigma1=s, **p).value for s in (5, 10, 20)]
    corrected = [ev("ptr.thm4_2", sigma1=s, **p).value for s in (5, 10, 20)]
    assert printed[0] < printed[1] < printed[2]
    assert corrected[0] > corrected[1] > corrected[2]


def test_thm4_2_refuses_outside_the_classical_gaussian_range():
    p = dict(b=1, sigma1=2, delta0="1e-8", delta="1e-5")  # √(2 ln 1.25e5)/2 ≈ 2.4 > 1
    with pytest.raises(ConditionError):
        ev("ptr.thm4_2", **p)
    assert not ev("ptr.thm4_2", allow_outside=True, **p).is_bound
    assert ev("ptr.thm4_2_analytic", **p).value > 1  # valid there, and no condition


# -- Theorem 4.4 -------------------------------------------------------------------------------------------

THM44 = [  # alpha, q, sigma1, sigma2, b, delta0, eps, B0, B1, B2 (notes §5.2)
    (2, "0.01", 8, 4, 1, "1e-8", "9.73333504196e-5", "1.00000625000019", "1.00009733808746", "1.00009600393855"),
    (10, "0.01", 8, 4, 1, "1e-8", "5.0461875806e-4", "1.00028125000844", "1.00455189737625", "1.00417076648094"),
    (5, "0.05", 5, 4, 1, "1e-5", "7.80574653438e-3", "1.0040000225", "1.03171553650103", "1.02465426571365"),
    (3, "0.01", 8, 4, 2, "1e-5", "4.4792402916e-5", "1.0000187505625", "1.00008958881867", "1.00008885786909"),
]


@pytest.mark.parametrize("alpha,q,s1,s2,b,d0,eps,B0,B1,B2", THM44)
def test_thm4_4_vectors(alpha, q, s1, s2, b, d0, eps, B0, B1, B2):
    with mpmath.workdps(DPS):
        assert close(ev("ptr.thm4_4", alpha=alpha, q=q, sigma1=s1, sigma2=s2, b=b, delta0=d0).value, eps)
        terms = thm4_4.bound_terms(*(mpf(x) for x in (alpha, q, s1, s2, b, d0)))
        for t, quoted in zip(terms, (B0, B1, B2)):
            assert close(t, quoted)


def test_thm4_4_brackets_match_the_printed_R_expansion():
    """B1, B2 computed cancellation-free equal the printed forms with R and R̃ (eqs. (43)–(44))."""
    from dpspec.reference.ptr.rq import rq, rq_tilde_via_rq

    with mpmath.workdps(DPS):
        a, q, s1, s2, b, d0 = (mpf(x) for x in (7, "0.02", 6, 4, "1.5", "1e-6"))
        _, b1, b2 = thm4_4.bound_terms(a, q, s1, s2, b, d0)
        f = 2 * a * (a - 1) / s1**2
        p1 = rq(a, q, b) + f * (rq(a, q, b) - 2 * (1 - q) * rq(a - 1, q, b) + (1 - q) ** 2 * rq(a - 2, q, b))
        R = lambda x: rq_tilde_via_rq(x, q, b)
        p2 = R(a) + f * (R(a) - 2 * (1 - q) * R(a + 1) + (1 - q) ** 2 * R(a + 2))
        assert abs(b1 - p1) < mpf(10) ** -40 and abs(b2 - p2) < mpf(10) ** -40


def test_thm4_4_main_text_variant_is_looser():
    with mpmath.workdps(DPS):
        p = dict(alpha=2, q="0.01", sigma1=8, sigma2=4, b=1, delta0="1e-8")
        main = ev("ptr.thm4_4", variant="main_text", **p).value
        assert close(main, "8.28e-4")
        assert main > 8 * ev("ptr.thm4_4", **p).value


def test_thm4_4_conditions_q_max_and_alpha_range():
    with mpmath.workdps(DPS):
        assert close(thm4_4.q_max(mpf(1)), "0.0842238084009") and close(thm4_4.q_max(mpf(2)), "0.131667561668")
        ok = [a for a in range(2, 20) if thm4_4.conditions_hold(a, "0.01", 8, 4, 1, "1e-8")]
        assert ok == list(range(2, 11))  # notes §2.10: "the conditions hold for integer α ≤ 10"
        qm = thm4_4.q_max(mpf(1))
        assert thm4_4.q_prime(qm, mpf(1)) == pytest.approx(0.2, rel=1e-30)


@pytest.mark.parametrize("bad", [dict(sigma1=3, sigma2=3),  # (C2): σ ≥ 4
                                 dict(sigma1=4, sigma2=5),  # (C2): σ1 ≥ σ2
                                 dict(q="0.09"),  # (C1) at b = 1
                                 dict(alpha=11)])  # (C3)/(C4)
def test_thm4_4_refuses_outside_its_conditions_unless_opted_in(bad):
    p = dict(alpha=2, q="0.01", sigma1=8, sigma2=4, b=1, delta0="1e-8") | bad
    with pytest.raises(ConditionError):
        ev("ptr.thm4_4", **p)
    e = ev("ptr.thm4_4", allow_outside=True, **p)
    assert not e.is_bound and e.outside and e.value > 0


def test_thm4_4_counterexample_outside_conditions_E1():
    """σ1=5, σ2=4, q=0.05, b=1, δ0=1e-5, α=64 (notes §6 E1): B1 = 231.19 < exact Case-2 moment 247.55."""
    with mpmath.workdps(20):
        p = {k: mpf(v) for k, v in dict(q="0.05", sigma1=5, sigma2=4, b=1, delta0="1e-5").items()}
        b0, b1, b2 = thm4_4.bound_terms(mpf(64), **p)
        exact = mpmath.exp(witnesses.case2_fwd_log_moment(64, **p))
        assert close(b1, "231.19") and close(exact, "247.55") and max(b0, b1, b2) < exact
        assert not thm4_4.conditions_hold(64, **p)


@pytest.mark.parametrize("alpha,q,s1,s2,b,d0", [(2, "0.01", 8, 4, 1, "1e-8"), (5, "0.05", 5, 4, 1, "1e-5"),
                                                (4, "0.03", 10, 4, "0.5", "0.01")])
def test_thm4_4_dominates_the_exact_per_subset_moments_inside_conditions(alpha, q, s1, s2, b, d0):
    with mpmath.workdps(20):
        p = {k: mpf(v) for k, v in dict(q=q, sigma1=s1, sigma2=s2, b=b, delta0=d0).items()}
        assert thm4_4.conditions_hold(alpha, **p)
        bound = max(thm4_4.bound_terms(mpf(alpha), **p))
        for name in ("case1_fwd", "case1_rev", "case2_fwd", "case2_rev"):
            exact = mpmath.exp(catalogue.get_witness(f"ptr.thm4_4.{name}").log_moment(alpha, **p))
            assert exact <= bound, name


# -- ZW19 with Theorem 4.3 ---------------------------------------------------------------------------------

@pytest.mark.parametrize("alpha,upper,lower", [(2, "8.8650856428e-5", "8.8650856428e-5"),
                                               (3, "1.38133878245e-4", "1.33468076515e-4"),
                                               (10, "5.77479506485e-4", "4.56308508076e-4")])
def test_zw19_with_thm4_3_vectors(alpha, upper, lower):
    p = dict(alpha=alpha, q="0.01", sigma1=8, sigma2=4, b=1, delta0="1e-8")
    with mpmath.workdps(DPS):
        assert close(ev("ptr.zw19_upper", **p).value, upper)
        assert close(ev("ptr.zw19_lower", **p).value, lower)


@pytest.mark.parametrize("alpha", [2, 3, 7])
def test_zw19_lower_is_the_exact_case2_subset_moment(alpha):
    with mpmath.workdps(30):
        p = {k: mpf(v) for k, v in dict(q="0.02", sigma1=6, sigma2=3, b="1.5", delta0="1e-8").items()}
        lower = ev("ptr.zw19_lower", alpha=alpha, **p).value
        exact = witnesses.case2_fwd_log_moment(alpha, **p) / (alpha - 1)
        assert abs(lower - exact) <= abs(exact) * mpf(10) ** -25


def test_zw19_lower_refuses_when_case1_dominates():
    p = dict(alpha=32, q="0.01", sigma1=4, sigma2=mpf(4) / 3, b=1, delta0="1e-5")  # T1 dominates at α = 32
    with pytest.raises(ConditionError):
        ev("ptr.zw19_lower", **p)


def test_fig3_direct_composes_and_grows_with_steps():
    base = dict(q="0.01", sigma1=8, b=1, delta0="1e-8", delta_gauss="1e-7", delta_slack="5e-6")
    e1, d1 = ev("ptr.fig3_direct", steps=1, **base).value
    e10, d10 = ev("ptr.fig3_direct", steps=10, **base).value
    # one step: the amplified Theorem 4.2 ε; KOV15 with k = 1 trades the slack δ' for ε only, exactly
    # ε' = ln(e^ε − δ'(1 + e^ε))
    with mpmath.workdps(DPS):
        eps_step = 1 + mpmath.sqrt(2 * mpmath.log(mpf("1.25") / mpf("1e-7"))) / 8
        amp = mpmath.log1p(mpf("0.01") * mpmath.expm1(eps_step))
        assert abs(e1 - mpmath.log(mpmath.exp(amp) - mpf("5e-6") * (1 + mpmath.exp(amp)))) < mpf(10) ** -40
        assert abs(d1 - (1 - (1 - mpf("0.01") * (mpf("1e-8") + mpf("1e-7"))) * (1 - mpf("5e-6")))) < mpf(10) ** -45
    assert e10 > e1 and d10 > d1 and e10 <= 10 * e1


# -- bad inputs --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("sid,bad", [
    ("ptr.thm4_3", dict(delta0=0)), ("ptr.thm4_3", dict(delta0="0.6")), ("ptr.thm4_3", dict(alpha=1)),
    ("ptr.thm4_3", dict(alpha="0.5")), ("ptr.thm4_3", dict(sigma1=-1)), ("ptr.thm4_3", dict(sigma2=0)),
    ("ptr.thm4_3", dict(b=-2)), ("ptr.thm4_3", dict(b=float("nan"))),
    ("ptr.thm4_4", dict(q=0)), ("ptr.thm4_4", dict(q=1)), ("ptr.thm4_4", dict(q="1.5")),
    ("ptr.thm4_4", dict(alpha=1)), ("ptr.thm4_4", dict(sigma2=-4)), ("ptr.thm4_4", dict(delta0=1)),
    ("ptr.thm4_2", dict(delta=0)), ("ptr.thm4_2", dict(sigma1=-1)), ("ptr.rq", dict(q=1)), ("ptr.rq", dict(b=0)),
])
def test_bad_inputs_raise_domain_errors(sid, bad):
    defaults = {
        "ptr.thm4_3": dict(alpha=2, sigma1=8, sigma2=4, b=1, delta0="1e-8"),
        "ptr.thm4_4": dict(alpha=2, q="0.01", sigma1=8, sigma2=4, b=1, delta0="1e-8"),
        "ptr.thm4_2": dict(b=1, sigma1=10, delta0="1e-8", delta="1e-5"),
        "ptr.rq": dict(beta=2, q="0.01", b=1),
    }[sid]
    with pytest.raises(DomainError) as info:
        ev(sid, **(defaults | bad))
    assert info.value.name in bad


def test_binomial_route_rejects_non_integer_orders():
    with pytest.raises(DomainError):
        ev("ptr.rq", variant="binomial", beta="2.5", q="0.1", b=1)
    with pytest.raises(DomainError):
        ev("ptr.rq", variant="binomial", beta=-1, q="0.1", b=1)


def test_every_ptr_statement_evaluates_at_its_example():
    for st in catalogue.statements():
        if st.id.startswith("ptr."):
            e = st.evaluate(dps=20, **st.example_params())
            for v in (e.value if isinstance(e.value, tuple) else (e.value,)):
                assert mpmath.isfinite(v) and v >= 0, st.id
