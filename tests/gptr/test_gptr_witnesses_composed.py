"""End-to-end witnesses of seed 003's composed accountings (issue 18): reference/gptr/witnesses_discrete.py
(Ex B.3.1's procedures, Alg 5 / Thm 3.5.6), witnesses_ops.py (Alg 14 / Ex 3.6.2, Alg 15 / Thm B.4.1) and
witnesses_glm.py (Rem B.3.7, Ex B.3.8 / Thm B.3.9).

What is checked, and how:
* each witness's law is the reference algorithm's: the exact laws against simulations of the reference procedures
  (reference/gptr/binary_vote.py, algorithms.py, regression_algorithms.py), outcome frequencies within 5 binomial
  standard errors (two-sided 5.7e-7 per comparison), fixed seeds, n stated per test;
* the densities are normalised and agree with the samplers: E_P[q/p] = 1 within 5 standard errors;
* the algorithms' own constants computed in the witnesses (γ* in float64 log space) equal the mpmath evaluators;
* the finite pairs' exact δ at the claimed ε is ≤ the claimed δ (the accountings hold on these pairs), and is above
  it for a halved ε where the witness is tight enough (the power the conform check can have).
"""
from __future__ import annotations

import functools
import math

import mpmath
import numpy as np
import pytest
from mpmath import mpf

from dpspec.reference import catalogue
from dpspec.reference.gptr import algorithms as alg
from dpspec.reference.gptr import binary_vote as bv
from dpspec.reference.gptr import regression_algorithms as ra
from dpspec.reference.gptr import witnesses_discrete as wd
from dpspec.reference.gptr import witnesses_glm as wg
from dpspec.reference.gptr import witnesses_ops as wo

catalogue.load_all()
Z = 5.0


def _within(freq, prob, n):
    """|freq − prob| ≤ Z binomial standard errors (+1/n for probabilities near 0 or 1)."""
    return abs(freq - prob) <= Z * math.sqrt(max(prob * (1 - prob), 0.0) / n) + 1.0 / n


# ---------------------------------------------------------------------------------------------------------------
# Ex B.3.1's procedures


@pytest.mark.parametrize("procedure, t", [("gen_ptr", 24), ("gen_ptr", -26), ("classic", 12), ("classic", 13),
                                          ("laplace", 2), ("laplace", -1)])
def test_procedure_law_is_the_reference_procedure(procedure, t):
    """n = 500 (Gen-PTR) or 800 runs of the reference procedure (seed 11) at ε = ε̃ = 1, ε′ = 0.5, δ = 1e-5
    (Gen-PTR's threshold g* = 14: it passes from |t| ≈ 24.5, classic PTR from |t| ≈ 12.5)."""
    n, rng = (500 if procedure == "gen_ptr" else 800), np.random.default_rng(11)
    n1, n0 = (20 + t, 20) if t > 0 else (20, 20 - t)
    run = {"gen_ptr": lambda: bv.gen_ptr_binary_vote(n0, n1, 1, 1, 0.5, 1e-5, rng),
           "classic": lambda: bv.classic_ptr_binary_vote(n0, n1, 1, 1e-5, rng),
           "laplace": lambda: bv.laplace_rnm(n0, n1, 1, rng)}[procedure]
    counts = np.zeros(3)
    for _ in range(n):
        o = run()
        counts[2 if o is None else o] += 1
    with mpmath.workdps(30):
        law = [float(mpmath.exp(v)) for v in wd.procedure_law(procedure, t, 1, 1, "0.5", mpf("1e-5"))]
    assert abs(sum(law) - 1) < 1e-12
    assert all(_within(c / n, p, n) for c, p in zip(counts, law)), (counts / n, law)


def test_gen_ptr_threshold_is_where_the_sup_drops_below_eps_prime():
    with mpmath.workdps(30):
        g = wd.gen_ptr_threshold(mpf(1), mpf("0.5"), mpf("1e-5"))
        assert bv.sup_epsilon_above(float(g), 1, mpf("1e-5") / 2) <= 0.5 < bv.sup_epsilon_above(float(g - 1), 1,
                                                                                                mpf("1e-5") / 2)
        assert wd.gen_ptr_threshold(mpf(1), mpf(2), mpf("1e-5")) == 0  # ε_p ≤ ε < ε′: always passes


@pytest.mark.parametrize("procedure, eps, eps_tilde, eps_prime, delta", [
    ("gen_ptr", 1, 1, "0.5", "1e-5"), ("gen_ptr", 2, "0.5", 1, "1e-3"), ("classic", 1, 1, 2, "1e-5"),
    ("classic", 1, 3, 2, "1e-2"), ("laplace", 1, 1, 2, "1e-5"), ("laplace", "0.1", 1, 2, "1e-5")])
def test_ex_b3_1_holds_exactly_on_its_witness_pairs(procedure, eps, eps_tilde, eps_prime, delta):
    """The exact δ of both uses' pairs at the statement's ε is ≤ its δ (gptr.ex_b3_1, reference)."""
    p = {"procedure": procedure, "eps": eps, "eps_tilde": eps_tilde, "eps_prime": eps_prime, "delta": delta}
    claim_eps, claim_delta = catalogue.get("gptr.ex_b3_1").evaluate(dps=30, **p).value
    for use in wd.EX_B3_1_USES:
        w = use.witness_params(p)
        with mpmath.workdps(30):
            lp, lq = wd._procedure_laws(**w)
            assert wd.exact_hockey_stick(claim_eps, lp, lq) <= claim_delta


def test_classic_ptr_witness_is_tight_in_epsilon():
    """Classic PTR's largest-loss pair (gaps 14, 15 at ε̃ = 1, δ = 1e-5) has loss exactly ε̃: a claim of 0.9ε̃ (with
    its δ) is refuted by the exact δ, 5.4e-3 > 1e-5 (the power behind the conform check of the classic procedure)."""
    p = {"procedure": "classic", "eps": 1, "eps_tilde": 1, "eps_prime": 2, "delta": "1e-5"}
    w = wd.worst_procedure_pair(p, "loss")
    with mpmath.workdps(30):
        lp, lq = wd._procedure_laws(**w)
        assert max(a - b for a, b in zip(lp, lq) if a > -mpmath.inf) == pytest.approx(1, abs=1e-9)
        assert wd.exact_hockey_stick(mpf("0.9"), lp, lq) > 1e-3 > mpf("1e-5")


def test_finite_log_moment_is_the_sum_over_outcomes():
    w = catalogue.get_witness("gptr.binary_procedure")
    p = {"procedure": "gen_ptr", "eps": 1, "eps_tilde": 1, "eps_prime": "0.5", "delta": "1e-5", "t": 25,
         "t_prime": 24}
    with mpmath.workdps(30):
        lp, lq = wd._procedure_laws(**p)
        direct = mpmath.log(mpmath.fsum(mpmath.exp(3 * a - 2 * b) for a, b in zip(lp, lq)))
        assert abs(w.log_moment(3, **p) - direct) < mpf(10) ** -25
    fam = w.tilt_family(**p)
    assert fam["family"] == "bounded_loss" and fam["lo"] < 0 < fam["hi"]


# ---------------------------------------------------------------------------------------------------------------
# Alg 5 (Liu–Talwar random stopping)


@pytest.mark.parametrize("base", ["rr", "bot_rr"])
def test_random_stopping_law_is_alg5(base):
    """n = 1500 runs of algorithms.alg5_ptr_selection (seed 5) over the base, τ = 0.05, δ2 = e^−5 (cut-off 100)."""
    n, rng = 1500, np.random.default_rng(5)
    with mpmath.workdps(30):
        probs = [float(v) for v in wd.base_laws(base, mpf("0.5"), mpf(0))[0]]
        law = [float(mpmath.exp(v)) for v in wd._stopping_laws(mpf("0.5"), 0, mpf("0.05"), 100, base)[0]]
    shift = 1 if base == "bot_rr" else 0  # bot_rr's outcome 0 is ⊥ (None from the run)

    def run(rng, phi):
        k = int(rng.choice(len(probs), p=probs))
        return None if (base == "bot_rr" and k == 0) else k

    counts = np.zeros(len(probs))
    for _ in range(n):
        out = alg.alg5_ptr_selection(rng, [0], run, lambda r: r, "0.5", 0, "0.05", math.exp(-5))
        counts[0 if out.release is None else out.release[1]] += 1
    assert alg.alg5_cutoff(mpf("0.05"), mpf(math.exp(-5))) == 100 and shift in (0, 1)
    assert all(_within(c / n, q, n) for c, q in zip(counts, law)), (counts / n, law)


@pytest.mark.parametrize("eps_star, delta_star, tau, delta_2", [
    ("0.5", 0, "0.05", "1e-3"), ("0.3333", "1e-12", "0.01", "1e-6"), (1, "1e-6", "0.2", "1e-4")])
def test_thm3_5_6_holds_exactly_on_its_witness_pairs(eps_star, delta_star, tau, delta_2):
    p = {"eps_star": eps_star, "delta_star": delta_star, "tau": tau, "delta_2": delta_2}
    claim_eps, claim_delta = catalogue.get("gptr.thm3_5_6").evaluate(dps=30, **p).value
    for use in wd.THM3_5_6_USES:
        with mpmath.workdps(30):
            lp, lq = wd._stopping_laws(**use.witness_params(p))
            assert abs(mpmath.fsum(mpmath.exp(v) for v in lp) - 1) < mpf(10) ** -20
            assert wd.exact_hockey_stick(claim_eps, lp, lq) <= claim_delta


def test_random_stopping_loss_reaches_about_twice_eps_star():
    """The witness's largest loss at small τ (what limits the power against Liu–Talwar's 3ε*): between 1.5ε* and
    2ε* for randomized response at ε* = 0.5, τ = 0.01, T = 1000."""
    with mpmath.workdps(30):
        lp, lq = wd._stopping_laws(mpf("0.5"), 0, mpf("0.01"), 1000, "rr")
        top = max(abs(a - b) for a, b in zip(lp, lq))
    assert 0.75 < top < 1.0


# ---------------------------------------------------------------------------------------------------------------
# OPS-PTR (Alg 14, Alg 15)


def test_ops_gamma_star_matches_the_reference():
    from dpspec.reference.gptr.ops import ops_gamma_star

    m = wo.OpsPtr(eps_ops=1, delta_ops=1e-5, noise=5, z1=4, z2=4, lam=30, lam_min=20)
    for lam_t, Delta_t in ((50.0, 0.3), (200.0, 2.0), (3.0, -1.0), (0.0, 5.0)):
        got = math.exp(m.log_gamma(np.array([lam_t]), np.array([Delta_t]))[0])
        with mpmath.workdps(30):
            want = ops_gamma_star(mpf(1), mpf(30), mpf(lam_t), mpmath.exp(Delta_t), mpf(1), mpf("1e-5"))
        assert got == pytest.approx(float(want), rel=1e-12)
    assert np.isnan(m.log_gamma(np.array([-29.9]), np.array([0.0]))[0])  # c ≥ ε: ⊥


def _rows(gram_diag, label_first, x_norm=1.0):
    """Rows realising a diagonal Gram matrix (k copies of √(h/k)e_i, norms ≤ ‖𝒳‖) with labels 0, and z = (‖𝒳‖e₁, y)
    appended when label_first is not None (witnesses_ops's data sets)."""
    X, y = [], []
    for i, h in enumerate(gram_diag):
        k = max(1, math.ceil(h / x_norm**2))
        for _ in range(k):
            r = np.zeros(2)
            r[i] = math.sqrt(h / k)
            X.append(r)
            y.append(0.0)
    if label_first is not None:
        X.append(np.array([x_norm, 0.0]))
        y.append(label_first)
    return np.array(X), np.array(y)


def test_ops_ptr_sampler_is_alg14(monkeypatch):
    """n = 200 runs of regression_algorithms.alg14_ops_ptr (seed 3) on the rows of the add case's X′ (gaussian_sigma
    memoised: same values) against 20000 witness draws: P[λ̃ = 0], E[λ̃], E[Δ̃], E[θ₁] within 5 standard errors of
    their difference."""
    monkeypatch.setattr(ra, "gaussian_sigma", functools.lru_cache(None)(ra.gaussian_sigma))
    p = {"eps": 1, "eps_hat": "0.5", "delta": "1e-5", "delta_hat": "1e-6", "delta_prime_1": "5e-7",
         "delta_prime_2": "5e-7"}
    w = wo._ex3_6_2_use("add", "QP")(p)  # P = the law on X′ = X ∪ {z}
    rest, _ = _rows([w["lam_min"], w["lam_min"] + 1], None)
    X = np.vstack([rest, [[1.0, 0.0]]])
    y = np.concatenate([np.zeros(len(rest)), [1.0]])
    assert ra.lambda_min(X) == pytest.approx(w["lam_min"] + 1, rel=1e-12)
    rng = np.random.default_rng(3)
    ref = []
    for _ in range(200):
        rel, acc = ra.alg14_ops_ptr(X, y, w["lam"], eps=1, delta=1e-5, eps_hat=0.5, delta_hat=1e-6,
                                    delta_prime_1=5e-7, delta_prime_2=5e-7, rng=rng)
        assert rel is not None
        ref.append([acc["lam_min_p"], acc["Delta_p"], rel[0]])
    ref = np.array(ref)
    o = wo.OpsPtr(**w).sample(np.random.default_rng(4), 20000)
    assert np.all(o[:, 0] == 2)
    mine = np.column_stack([o[:, 1], o[:, 2], o[:, 3]])
    for k in range(3):
        a, b = ref[:, k], mine[:, k]
        se = math.sqrt(a.var() / len(a) + b.var() / len(b))
        assert abs(a.mean() - b.mean()) <= Z * se + 1e-12, (k, a.mean(), b.mean(), se)
    zero_ref, zero_mine = np.mean(ref[:, 0] == 0), np.mean(mine[:, 0] == 0)
    assert abs(zero_ref - zero_mine) <= Z * math.sqrt(0.25 / 200) + 0.01


@pytest.mark.parametrize("uses", ["ex3_6_2", "thm_b4_1"])
def test_ops_ptr_densities_are_normalised(uses):
    """E_P[q/p] = 1 (n = 20000, seed 2) for every use at the statements' examples: the two log densities and the
    sampler describe the same pair of laws (atoms at λ̃ = 0 and at ⊥ included)."""
    table = {"ex3_6_2": (wo.EX3_6_2_USES, "gptr.ex3_6_2"), "thm_b4_1": (wo.THM_B4_1_USES, "gptr.thm_b4_1")}
    use_list, sid = table[uses]
    st = catalogue.get(sid)
    example = {q.name: q.example for q in st.params}
    for use in use_list:
        m = wo.OpsPtr(**use.witness_params(example))
        o = m.sample(np.random.default_rng(2), 20000)
        r = np.exp(m.log_density(o, 1) - m.log_density(o, 0))
        assert abs(r.mean() - 1) <= Z * r.std() / math.sqrt(len(r)) + 1e-9, (use.note, r.mean())


def test_ops_ptr_statuses_follow_the_test():
    """At a budget where γ* rarely exists the witness outputs ⊥ (status 1) on most draws, and ⊥ after step 1 where
    λ + λ̃ ≤ ‖𝒳‖²: each status's frequency matches the exact probability from Φ."""
    from scipy.stats import norm

    m = wo.OpsPtr(eps_ops="0.5", delta_ops="1e-5", noise=5, z1=0, z2=1, lam="0.5", lam_min=20)
    o = m.sample(np.random.default_rng(8), 20000)
    t = 2 * math.log(2e5)
    need = (1 + t) / (2 * 0.5) - 0.5  # λ̃ above this is feasible
    p_feasible = norm.sf((need - 20) / 5)
    p_stop1 = norm.cdf((0.5 - 20) / 5)  # λ + λ̃ ≤ 1
    assert _within(np.mean(o[:, 0] == 2), p_feasible, len(o))
    assert _within(np.mean(o[:, 0] == 0), p_stop1, len(o))


# ---------------------------------------------------------------------------------------------------------------
# Logistic output perturbation (Rem B.3.7, Ex B.3.8)


def test_logistic_optimum_is_newtons():
    with mpmath.workdps(30):
        theta, w = wg.added_point_optimum(100)
    X = np.array([[1.0, 0.0]] * 4 + [[0.0, 1.0]])
    t, h = ra.logistic_fit(X, np.ones(5), 100.0)
    assert t[1] == pytest.approx(float(theta), rel=1e-10) and h[1, 1] == pytest.approx(float(w), rel=1e-10)
    assert h[0, 0] > 0.25 >= float(w)  # e₁'s Hessian entry exceeds w: λ_min(X′) = w


def test_logistic_outpert_moment_against_quadrature():
    w = catalogue.get_witness("gptr.logistic_outpert")
    with mpmath.workdps(30):
        (m1, v1), (m2, v2) = wg._laws(mpf(3), mpf(2), "QP")
        pdf = lambda x, m, v: mpmath.exp(-(x - m) ** 2 / (2 * v)) / mpmath.sqrt(2 * mpmath.pi * v)  # noqa: E731
        quad = mpmath.quad(lambda x: pdf(x, m1, v1) ** 3 * pdf(x, m2, v2) ** -2, [-mpmath.inf, m1, mpmath.inf])
        assert abs(w.log_moment(3, lam=3, gamma=2, order="QP") - mpmath.log(quad)) < mpf(10) ** -20


def test_logistic_ptr_gamma_and_normalisation():
    from dpspec.reference.gptr.glm import logistic_gamma_star

    p = wg._b3_9_use("PQ")({"eps": 1, "delta": "1e-5"})
    m = wg.LogisticPtr(**p)
    lam_p = np.array([0.0, 3.0])
    with mpmath.workdps(30):
        want = [float(logistic_gamma_star(mpf("0.5"), mpf(v) + mpf(p["lam"]), mpf("1e-5") / 2)) for v in lam_p]
    assert np.exp(m.log_gamma(lam_p)) == pytest.approx(want, rel=1e-12)
    for order in ("PQ", "QP"):
        m = wg.LogisticPtr(**{**p, "order": order})
        o = m.sample(np.random.default_rng(6), 20000)
        r = np.exp(m.log_density(o, 1) - m.log_density(o, 0))
        assert abs(r.mean() - 1) <= Z * r.std() / math.sqrt(len(r)) + 1e-9


# ---------------------------------------------------------------------------------------------------------------
# The uses (wired into the statements' ``witnesses=``)


def _all_uses():
    from dpspec.reference.gptr import witnesses_pate as wp

    return {"gptr.ex_b3_1": wd.EX_B3_1_USES, "gptr.thm3_5_6": wd.THM3_5_6_USES, "gptr.ex3_6_2": wo.EX3_6_2_USES,
            "gptr.thm_b4_1": wo.THM_B4_1_USES, **wg.USES, **wp.USES}


@pytest.mark.parametrize("statement_id", sorted(_all_uses()))
def test_uses_apply_at_the_statement_examples(statement_id):
    """Every use maps the statement's example to parameters inside its witness's domains (what conform's runner
    requires before it samples), and the pair samples finite log densities there."""
    from dpspec.conformance.runner import _witness_params

    st = catalogue.get(statement_id)
    example = {q.name: q.example for q in st.params if q.example is not None}
    for use in _all_uses()[statement_id]:
        w = _witness_params(use, example)
        assert w is not None, use.note
        pair = catalogue.get_witness(use.witness)
        o = pair.sample(np.random.default_rng(0), 200, **w)
        lp, lq = pair.log_p(o, **w), pair.log_q(o, **w)
        assert np.all(np.isfinite(lp)) and not np.any(np.isnan(lq)), use.note
