"""PATE with generalized PTR (seed 003 §3.6.2: Theorem 3.6.4, Lemma 3.6.5, Theorem 3.6.6, Algorithm 6) and the
outside results it rests on: Papernot, Song, Mironov, Raghunathan, Talwar & Erlingsson, "Scalable Private Learning
with PATE", ICLR 2018, arXiv 1802.08908 (v1) — Proposition 7 (q̃), Proposition 8 (data-independent RDP of GNMax),
Theorem 6 with Proposition 10's choice of μ1, μ2 (data-dependent RDP), Theorem 23 (GNSS).

Formulas were checked against the authors' public code (tensorflow/privacy, research/pate_2018/core.py:
``compute_logq_gaussian``, ``rdp_data_independent_gaussian``, ``rdp_gaussian``; smooth_sensitivity.py:
``compute_rdp_of_smooth_sensitivity_gaussian``), everything in log space as there (q reaches 1e-40 at realistic
gaps; mpmath has no underflow, so q far below the double range is kept too). Notes: shared/notes/generalized-ptr.md
§2.4, §3.11–3.12, §5.2, §6 (E2, E3, E11, E14), §7.2, §8.

Neighbouring relation (notes §2.1, erratum E10): one teacher changes its vote on every query, so each query's vote
histogram moves by −e_a + e_b (ℓ2 sensitivity √2); GNMax's data-independent RDP is then α·2/(2σ²) = α/σ².

Statements registered here:

* ``gptr.thm3_6_4``   — data-dependent RDP of T GNMax queries: Σ_i min(α/σ², Thm 6 at q̃_i) (the default, with
                        Thm 6's validity conditions); ``printed`` T·e^{−2α/σ²}/α (not a bound, E3);
                        ``data_independent`` Tα/σ² (Prop 8, the printed data-independent half, correct).
* ``gptr.prop7_logq`` — log q̃ of one query (Papernot Prop 7).
* ``gptr.gnmax_composed`` — T-fold data-independent GNMax converted to DP (Mironov): T/σ² + 2√(T log(1/δ))/σ.
* ``gptr.lemma3_6_5`` — RDP of releasing (μ, upper), corrected (E2): the exact GNSS worst case over the smooth-
                        sensitivity axioms (three closed-form extreme pairs) + the μ release; ``thm23`` Papernot's
                        Thm 23 + μ (a bound for 2αβ ≤ ½, refuted near α = 1/(2β)); ``printed`` (3α+2)/(2σ_s²)
                        (not a bound: no σ-free term).
* ``gptr.lemma3_6_5_coverage`` — the exact failure probability P[upper(α) < ε(α, X)] (claim (ii)), by quadrature.
* ``gptr.thm3_6_6``   — Algorithm 6's (ε′ + ε̂_test, δ), ε̂_test the test cost with the corrected Lemma 3.6.5 (≤ ε̂)
                        and the max-form δ of Thm 3.5.3's proof (E14); ``printed`` (ε′ + ε̂, δ) (a bound);
                        ``thm23`` (ε′ + ε̂_Thm23, δ); ``sum_form`` (ε′ + ε̂_test, 3δ/2).
* ``gptr.alg6_sigma_s`` — Algorithm 6 line 2's σ_s = σ_2 for a test budget ε̂: the smallest σ with the exact lemma;
                        ``printed`` √((3α+2)/ε̂) (enough); ``thm23`` (larger).

Witness pairs: ``gptr.gnmax`` (the exact output law of GNMax on two vote histograms, notes §3.11) and
``gptr.gnss`` (the joint (μ, upper) release on the worst-case smooth-sensitivity pair, notes §3.12).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mp, mpf

from .._normal import log_ndtr
from ..catalogue import (Condition, Privacy, Source, Statement, Value, Variant, Witness, WitnessUse, register,
                         register_witness)
from ..domains import Param, Points
from ..errors import ConditionError, ParameterError, PrecisionError
from ..precision import log1mexp, logsumexp, self_checked
from . import spec
from .witnesses_pate import THM3_6_6_USES

PAPERNOT = ("Papernot, Song, Mironov, Raghunathan, Talwar & Erlingsson, Scalable Private Learning with PATE, "
            "ICLR 2018, arXiv 1802.08908v1")

# ---------------------------------------------------------------------------------------------------------------
# Vote histograms


def _as_int(x, name="votes"):
    """An exact non-negative integer from an int, float, numpy or mpf entry; None if it is not one."""
    try:
        if isinstance(x, (bool, np.bool_)):
            return None
        if isinstance(x, mpmath.mpf):
            if not mpmath.isfinite(x) or x != mpmath.floor(x):
                return None
            v = int(x)
        else:
            f = float(x)
            if not math.isfinite(f) or f != math.floor(f):
                return None
            v = int(x) if isinstance(x, (int, np.integer)) else int(f)
    except (TypeError, ValueError, OverflowError):
        return None
    return v if v >= 0 else None


def vote_rows(votes, statement_id: str = "gptr.thm3_6_4") -> list[tuple[int, ...]]:
    """The vote histograms as a list of rows of Python ints, one row per query (seed 003 Alg 6 line 3).

    Accepts a (T, C) array or nested list, or one query as a flat sequence of C counts. Refuses, with a
    ``ConditionError`` naming ``votes_counts`` (spec.VOTES_COUNTS), anything that is not T ≥ 1 rows of C ≥ 2
    non-negative integers with the same total ≥ 1 (the number of teachers)."""
    bad = ConditionError(statement_id, [spec.VOTES_COUNTS.describe()])
    try:
        arr = np.asarray(votes, dtype=object)
    except (TypeError, ValueError):
        raise bad from None
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] < 2:
        raise bad
    rows = []
    for r in arr:
        row = tuple(_as_int(x) for x in r)
        if any(v is None for v in row):
            raise bad
        rows.append(row)
    totals = {sum(r) for r in rows}
    if len(totals) != 1 or totals.pop() < 1:
        raise bad
    return rows


def votes_ok(votes) -> bool:
    """spec.VOTES_COUNTS as a predicate."""
    try:
        vote_rows(votes)
    except ConditionError:
        return False
    return True


def votes_sum_ok(votes, teachers) -> bool:
    """spec.VOTES_SUM as a predicate: every row sums to the number of teachers (False when votes_counts fails)."""
    try:
        rows = vote_rows(votes)
    except ConditionError:
        return False
    return sum(rows[0]) == int(teachers)


# ---------------------------------------------------------------------------------------------------------------
# Proposition 7 (q̃), Proposition 8 (data-independent RDP), Theorem 6 (data-dependent RDP)


def logq_row(row, sigma) -> mpf:
    """log q̃ of one query, Papernot et al. 2018 (arXiv 1802.08908v1) Prop 7 (their ``compute_logq_gaussian``):
    q̃ = min(Σ_{i≠i*} P[N(0, 2σ²) > n_{i*} − n_i], 1 − 1/m), i* the first argmax; each term is
    Φ(−(n_{i*} − n_i)/(√2 σ)), summed in log space."""
    sigma = mpf(sigma)
    top = max(row)
    i_star = row.index(top)
    scale = mpmath.sqrt(2) * sigma
    terms = [log_ndtr(-(mpf(top) - n) / scale) for i, n in enumerate(row) if i != i_star]
    return min(logsumexp(terms), mpmath.log1p(-mpf(1) / len(row)))


@self_checked
def gnmax_logq(votes, sigma) -> mpf:
    """Public helper: log q̃ (Papernot Prop 7) of one query ``votes`` (C ≥ 2 counts, or a one-row matrix), an upper
    bound on log P[GNMax(votes) ≠ argmax]. Seed 003 Thm 3.6.4 as corrected (notes §7.2)."""
    rows = vote_rows(votes, "gptr.prop7_logq")
    if len(rows) != 1:
        raise ConditionError("gptr.prop7_logq", [spec.SINGLE_QUERY.describe()])
    return logq_row(rows[0], _positive("sigma", sigma))


def _positive(name, x) -> mpf:
    x = mpf(x)
    if not (x > 0 and mpmath.isfinite(x)):
        from ..errors import DomainError

        raise DomainError(name, x, "(0, inf)")
    return x


def data_independent_rdp(sigma, alpha) -> mpf:
    """GNMax's data-independent RDP α/σ² (Papernot Prop 8; seed 003 Thm 3.6.4, second half): the Gaussian mechanism
    on a histogram of ℓ2 sensitivity √2, post-processed by argmax."""
    return mpf(alpha) / (mpf(sigma) ** 2)


def mu_prop10(logq, sigma) -> tuple[mpf, mpf]:
    """Papernot Prop 10's orders: μ2 = σ √(log(1/q̃)), μ1 = μ2 + 1."""
    mu2 = mpf(sigma) * mpmath.sqrt(-mpf(logq))
    return mu2 + 1, mu2


def thm6_valid(logq, sigma, alpha) -> bool:
    """Theorem 6's hypotheses (Papernot arXiv 1802.08908v1 Thm 6 with Prop 10's μ; their ``rdp_gaussian``): α ≤ μ1,
    μ2 > 1, −log q̃ > ε2 and log q̃ ≤ (μ2 − 1)ε2 − μ2 log(μ1/(μ1−1) · μ2/(μ2−1)), with ε_i = μ_i/σ². The public code
    uses α < μ1 strictly; the paper's condition is λ ≤ μ1 (used here)."""
    logq, sigma, alpha = mpf(logq), mpf(sigma), mpf(alpha)
    if not logq < 0:
        return False
    mu1, mu2 = mu_prop10(logq, sigma)
    if not (alpha <= mu1 and mu2 > 1):
        return False
    eps2 = mu2 / sigma**2
    if not -logq > eps2:
        return False
    return logq <= (mu2 - 1) * eps2 - mu2 * (mpmath.log(mu1 / (mu1 - 1)) + mpmath.log(mu2 / (mu2 - 1)))


def thm6_bound(logq, sigma, alpha) -> mpf:
    """Papernot Thm 6 (arXiv 1802.08908v1), μ from Prop 10, without its validity check (callers check
    :func:`thm6_valid`): (1/(α−1)) log((1−q)A^{α−1} + q B^{α−1}), A = (1−q)/(1 − (q e^{ε2})^{(μ2−1)/μ2}),
    B = e^{ε1}/q^{1/(μ1−1)}, all in log space (their ``rdp_gaussian``)."""
    logq, sigma, alpha = mpf(logq), mpf(sigma), mpf(alpha)
    if mpmath.isinf(logq):
        return mpf(0)
    mu1, mu2 = mu_prop10(logq, sigma)
    eps1, eps2 = mu1 / sigma**2, mu2 / sigma**2
    log1q = log1mexp(logq)
    log_a = (alpha - 1) * (log1q - log1mexp((logq + eps2) * (1 - 1 / mu2)))
    log_b = (alpha - 1) * (eps1 - logq / (mu1 - 1))
    # (1−q)A^{α−1} + qB^{α−1} = 1 + (1−q)(A^{α−1} − 1) + q(B^{α−1} − 1), A, B > 1: no cancellation as α → 1
    return mpmath.log1p(mpmath.exp(log1q) * mpmath.expm1(log_a) + mpmath.exp(logq) * mpmath.expm1(log_b)) / (alpha - 1)


def rdp_from_logq(logq, sigma, alpha) -> mpf:
    """min(α/σ², Thm 6 at q̃) where Thm 6's conditions hold, else α/σ² (Papernot's ``rdp_gaussian``)."""
    ind = data_independent_rdp(sigma, alpha)
    if thm6_valid(logq, sigma, alpha):
        return min(ind, thm6_bound(logq, sigma, alpha))
    return ind


@self_checked
def gnmax_rdp_data_dependent(votes, sigma, alpha) -> mpf:
    """Public helper: the data-dependent RDP of GNMax at order α on ``votes`` (one query: C counts; or a (T, C)
    matrix: the T queries composed, Σ_i), each query min(α/σ², Papernot Thm 6 at Prop 7's q̃) under Thm 6's validity
    conditions. Corrected seed 003 Thm 3.6.4 (erratum E3; notes §2.4, §7.2). Bounds D_α(M(D)‖M(D′)) for every
    neighbour D′ of this D (one direction)."""
    sigma, alpha = _positive("sigma", sigma), mpf(alpha)
    rows = vote_rows(votes)
    return mpmath.fsum(rdp_row(r, sigma, alpha) for r in rows)


def rdp_row(row, sigma, alpha) -> mpf:
    """:func:`rdp_from_logq` of one query, with guard digits for huge |log q̃|: e^{log q̃} keeps only
    dps − log10|log q̃| relative digits of a log q̃ known to dps digits (q̃ = e^{−2.5e11} at a gap of 1e6, σ = 1), so
    log q̃ and the bound are recomputed with log10|log q̃| + 5 more digits."""
    lq = logq_row(row, sigma)
    extra = int(mpmath.log10(abs(lq))) + 5 if abs(lq) > 10 else 0
    if extra:
        with mp.workdps(mp.dps + extra):
            value = rdp_from_logq(logq_row(row, sigma), sigma, alpha)
        return +value
    return rdp_from_logq(lq, sigma, alpha)


@self_checked
def gnmax_rdp_printed(sigma, alpha) -> mpf:
    """Public helper: seed 003 Thm 3.6.4's data-dependent RDP as printed, e^{−2α/σ1²}/α per query. Not a bound
    (erratum E3): it ignores the vote gap and decreases in α."""
    sigma, alpha = mpf(sigma), mpf(alpha)
    return mpmath.exp(-2 * alpha / sigma**2) / alpha


# ---------------------------------------------------------------------------------------------------------------
# gptr.thm3_6_4 and gptr.prop7_logq


@self_checked
def thm3_6_4(votes, sigma, alpha):
    """Seed 003 Theorem 3.6.4, corrected (notes §2.4, E3): the data-dependent RDP of labelling the T queries of
    ``votes`` with GNMax, Σ_i min(α/σ², Papernot Thm 6 at q̃_i) (arXiv 1802.08908v1 Thm 6, Prop 7, Prop 10)."""
    return gnmax_rdp_data_dependent(votes, sigma, alpha)


@self_checked
def thm3_6_4_printed(votes, sigma, alpha):
    """Seed 003 Theorem 3.6.4 verbatim, data-dependent half: T·e^{−2α/σ1²}/α (not a bound, E3)."""
    return len(vote_rows(votes)) * gnmax_rdp_printed(sigma, alpha)


@self_checked
def thm3_6_4_data_independent(votes, sigma, alpha):
    """Seed 003 Theorem 3.6.4, data-independent half (correct; Papernot Prop 8): T·α/σ1²."""
    return len(vote_rows(votes)) * data_independent_rdp(sigma, alpha)


@self_checked
def prop7_logq(votes, sigma):
    """Papernot et al. 2018 (arXiv 1802.08908v1) Prop 7: log q̃ ≥ log P[GNMax(votes) ≠ argmax] for one query."""
    return gnmax_logq(votes, sigma)


_VOTES_COND = Condition.of(spec.VOTES_COUNTS, lambda p: votes_ok(p["votes"]))
_ONE_ROW_COND = Condition.of(spec.SINGLE_QUERY, lambda p: not votes_ok(p["votes"]) or len(vote_rows(p["votes"])) == 1)


def _worst_neighbour(row) -> tuple[int, ...]:
    """One teacher moves its vote from the top class to the runner-up (the gap shrinks by 2)."""
    order = sorted(range(len(row)), key=lambda i: (-row[i], i))
    top, second = order[0], order[1]
    out = list(row)
    out[top] -= 1
    out[second] += 1
    return tuple(out)


def _best_neighbour(row) -> tuple[int, ...]:
    """One teacher moves its vote from the runner-up to the top class (the gap grows by 2); the runner-up may hold
    no vote, then a class that holds one gives it up."""
    order = sorted(range(len(row)), key=lambda i: (-row[i], i))
    top = order[0]
    donor = next((i for i in order[1:] if row[i] > 0), None)
    if donor is None:
        raise ParameterError("gptr.gnmax: every vote is already on the top class (no vote to move to it)")
    out = list(row)
    out[donor] -= 1
    out[top] += 1
    return tuple(out)


def _gnmax_use(move):
    def mapping(p):
        rows = vote_rows(p["votes"])
        if sum(rows[0]) > WITNESS_MAX_TEACHERS or len(rows) > WITNESS_MAX_QUERIES:
            raise ParameterError("gptr.gnmax: the exact law is computed for small examples only")
        return {"votes": [list(r) for r in rows], "votes_prime": [list(move(r)) for r in rows],
                "sigma": p["sigma"]}
    return mapping


register(Statement(
    id="gptr.thm3_6_4",
    fast="dpspec.fast.gptr.pate:gnmax_rdp_data_dependent",
    source=Source(spec.SEED, "Theorem 3.6.4", "data-dependent RDP of GNMax labels (PATE), corrected with Papernot "
                  "et al. 2018 Thm 6 + Prop 7", citation=PAPERNOT),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α, X) = Σ_i min(α/σ1², Thm 6 at q̃_i) [Papernot et al. 2018 Thm 6, Prop 7, Prop 10]",
    params=(spec.P_VOTES, spec.P_GNMAX_SIGMA, spec.P_GNMAX_ALPHA),
    reference=thm3_6_4,
    conditions=(_VOTES_COND,),
    variants={
        "printed": Variant(thm3_6_4_printed, "seed 003 Thm 3.6.4 verbatim: T·e^{−2α/σ1²}/α (erratum E3): gap-free, "
                           "decreasing in α, above α/σ1² for α < σ1 — not a bound", is_bound=False),
        "data_independent": Variant(thm3_6_4_data_independent, "the printed data-independent half T·α/σ1² "
                                    "(Papernot Prop 8): valid for every dataset"),
    },
    witnesses=(WitnessUse("gptr.gnmax", _gnmax_use(_worst_neighbour),
                          "a teacher moves its vote from the top class to the runner-up"),
               WitnessUse("gptr.gnmax", _gnmax_use(_best_neighbour),
                          "a teacher moves its vote from the runner-up to the top class")),
    privacy=Privacy("replace_one", "P||Q", "none"),
    monotone={"alpha": +1},
    note="Data-dependent: bounds D_α(M(X)‖M(X′)) for every X′ obtained by one teacher changing its votes (ℓ2 "
         "sensitivity √2 per query), X the given votes; not a DP guarantee on its own (seed 003 §3.6.2: it must be "
         "released privately, Lemma 3.6.5). The printed e^{−2α/σ²}/α is replaced by Papernot's Thm 6 (notes §2.4, "
         "E3); the data-independent variant equals base.gaussian_rdp at σ/√2 (sensitivity √2). [R] the "
         "neighbouring relation (teacher vote change) is the notes' E10 reading.",
))

register(Statement(
    id="gptr.prop7_logq",
    fast="dpspec.fast.gptr.pate:gnmax_logq",
    source=Source("outside", "Prop. 7", "upper bound q̃ on P[GNMax ≠ argmax] used by seed 003 Thm 3.6.4 / Alg 6",
                  PAPERNOT),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="log q̃ = min(log Σ_{i≠i*} Φ(−(n_{i*} − n_i)/(√2σ)), log(1 − 1/m))",
    params=(spec.P_VOTES, spec.P_GNMAX_SIGMA),
    reference=prop7_logq,
    conditions=(_VOTES_COND, _ONE_ROW_COND),
    monotone={"sigma": +1},
    note="Union bound over the classes that could beat the top one, each a N(0, 2σ²) tail; capped at log(1 − 1/m). "
         "An upper bound on the exact log P[GNMax ≠ i*] that the gptr.gnmax witness computes by quadrature.",
))


# ---------------------------------------------------------------------------------------------------------------
# T-fold data-independent GNMax converted to DP (notes §2.4)


@self_checked
def gnmax_composed(T, sigma, delta):
    """T GNMax queries, data-independent RDP Tα/σ² (Papernot Prop 8), converted at δ with Mironov 2017 Prop 3 and
    the exact minimiser α* = 1 + σ√(log(1/δ)/T): ε = T/σ² + 2√(T log(1/δ))/σ (seed 003 §3.6.2, Fig 3.2's Gaussian
    baseline; notes §2.4, §5.2)."""
    T, sigma, delta = mpf(T), mpf(sigma), mpf(delta)
    L = -mpmath.log(delta)
    return T / sigma**2 + 2 * mpmath.sqrt(T * L) / sigma


register(Statement(
    id="gptr.gnmax_composed",
    fast="dpspec.fast.gptr.pate:gnmax_composed",
    source=Source(spec.SEED, "Theorem 3.6.4 (data-independent half) + RDP→DP at δ (Fig 3.2's Gaussian baseline)",
                  "DP of T data-independent GNMax queries"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε = min_α [Tα/σ² + log(1/δ)/(α−1)] = T/σ² + 2√(T log(1/δ))/σ",
    params=(spec.P_QUERIES, spec.P_GNMAX_SIGMA, spec.P_DELTA),
    reference=gnmax_composed,
    witnesses=(WitnessUse("base.gaussian", lambda p: {"sigma": mpf(p["sigma"]) / mpmath.sqrt(2), "steps": p["T"]},
                          "the noisy histogram (ℓ2 sensitivity √2) that GNMax post-processes, T-fold"),),
    privacy=Privacy("replace_one", "both", "none"),
    monotone={"T": +1, "sigma": -1, "delta": -1},
    note="Equals base.rdp_to_dp_mironov of T·base.gaussian_rdp at σ/√2, minimised over real α > 1 in closed form "
         "(notes §8 sympy check). Neighbours: one teacher changes its votes.",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma 3.6.5 (GNSS, corrected) and Algorithm 6's constants
#
# The GNSS release (Papernot App. B.4; seed 003 Lemma 3.6.5) is y = f(X) + SS_β(X)·σ_s Z. The smooth-sensitivity
# axioms allow, for neighbours X, X′ (normalising SS_β(X) = 1): SS_β(X′) = r ∈ [e^{−β}, e^β] and a shift
# |f(X) − f(X′)| = Δ ≤ min(LS(X), LS(X′)) ≤ min(1, r). For P = N(0, σ²), Q = N(Δ, r²σ²) the Rényi divergence is
# D_α = V(r) + αΔ²/(2σ² y(r)), y(r) = αr² − α + 1, V(r) = (α log r − ½ log y(r))/(α − 1) (Gaussian closed form,
# checked by quadrature in the tests). V is decreasing on r ≤ 1 and increasing on r ≥ 1 (dV/dx ∝ (α−1)(x−1),
# x = r²); with Δ = min(1, r) the mean term r²/y is decreasing in r on r ≤ 1, and on r ≥ 1 the derivative of
# h(x) = V + α/(2σ²y) has the sign of (x−1)/x − α/(σ²y), increasing in x, so h is quasi-convex there. Hence the
# supremum over the axioms is attained at r ∈ {e^{−β}, 1, e^β}: three closed-form candidates V_i + m_i/σ².


def gnss_candidates(alpha, beta):
    """The (V_i, m_i) of the three extreme GNSS pairs (block comment above): D_i = V_i + m_i/σ_s², for r = e^{−β}
    (Δ = e^{−β}), r = 1 (Δ = 1) and r = e^β (Δ = 1), with a = α − 1 kept apart so that α → 1 loses no digits:
    y(e^{∓β}) = 1 + α expm1(∓2β), V(e^{−β}) = −β − log1p(−a expm1(2β))/(2a), V(e^β) = β − log1p(−a expm1(−2β))/(2a).
    Finite for α(1 − e^{−2β}) < 1, which 2αβ < 1 implies."""
    alpha, beta = mpf(alpha), mpf(beta)
    a = alpha - 1
    y_lo = 1 + alpha * mpmath.expm1(-2 * beta)
    y_hi = 1 + alpha * mpmath.expm1(2 * beta)
    if not y_lo > 0:
        raise ConditionError("gptr.lemma3_6_5", [spec.THM23_ORDER.describe()])
    v_lo = -beta - mpmath.log1p(-a * mpmath.expm1(2 * beta)) / (2 * a)
    v_hi = beta - mpmath.log1p(-a * mpmath.expm1(-2 * beta)) / (2 * a)
    return [(v_lo, alpha * mpmath.exp(-2 * beta) / (2 * y_lo)), (mpf(0), alpha / 2), (v_hi, alpha / (2 * y_hi))]


def gnss_rdp_exact(alpha, beta, sigma_s) -> mpf:
    """The RDP of the GNSS release alone, exactly: the supremum of D_α over the smooth-sensitivity axioms (block
    comment above), max_i V_i + m_i/σ_s²."""
    sigma_s = mpf(sigma_s)
    return max(v + m / sigma_s**2 for v, m in gnss_candidates(alpha, beta))


def thm23(alpha, beta, sigma_s) -> mpf:
    """Papernot et al. 2018 (arXiv 1802.08908v1) Thm 23 as in their code (``compute_rdp_of_smooth_sensitivity_
    gaussian``): α e^{2β}/σ_s² + (βα − ½ log(1 − 2αβ))/(α − 1). Proven here for 2αβ ≤ ½ only (it is then ≥
    :func:`gnss_rdp_exact`: with y(e^{−β}) ≥ 1 − 2αβ ≥ ½ the mean term αe^{−2β}/(2σ²y) ≤ αe^{2β}/σ², and both
    V(e^{±β}) ≤ (βα − ½ log(1 − 2αβ))/(α − 1)). Above it the pair r = e^{−β} exceeds it: α = 64, β = 0.004655,
    σ_s = 15 gives the exact 0.34867 against 0.29902."""
    alpha, beta, sigma_s = mpf(alpha), mpf(beta), mpf(sigma_s)
    free = (beta * alpha - mpmath.log1p(-2 * alpha * beta) / 2) / (alpha - 1)
    return alpha * mpmath.exp(2 * beta) / sigma_s**2 + free


def _check_order(alpha, beta):
    alpha, beta = mpf(alpha), mpf(beta)
    if not (alpha > 1 and 2 * alpha * beta < 1):
        raise ConditionError("gptr.lemma3_6_5", [spec.THM23_ORDER.describe()])
    return alpha, beta


@self_checked
def gnss_rdp(alpha, beta, sigma_s, sigma_2) -> mpf:
    """Public helper (contract): RDP of releasing (μ, upper) in seed 003 Lemma 3.6.5 with Papernot's Thm 23 (notes
    §2.4, erratum E2): Thm 23, α e^{2β}/σ_s² + (βα − ½ log(1 − 2αβ))/(α − 1), plus the μ = log SS_β release (a
    Gaussian mechanism, sensitivity β, noise βσ_2), α/(2σ_2²). Refuses α outside (1, 1/(2β)); a valid bound for
    2αβ ≤ ½ (:func:`thm23`), not beyond — :func:`gnss_rdp_tight` is the exact GNSS part."""
    alpha, beta = _check_order(alpha, beta)
    return thm23(alpha, beta, sigma_s) + alpha / (2 * mpf(sigma_2) ** 2)


@self_checked
def gnss_rdp_tight(alpha, beta, sigma_s, sigma_2) -> mpf:
    """The RDP of releasing (μ, upper) (seed 003 Lemma 3.6.5 (i)), corrected: the exact GNSS worst case under the
    smooth-sensitivity axioms (:func:`gnss_rdp_exact`) plus the μ release α/(2σ_2²) (composition), 1 < α < 1/(2β)."""
    alpha, beta = _check_order(alpha, beta)
    return gnss_rdp_exact(alpha, beta, sigma_s) + alpha / (2 * mpf(sigma_2) ** 2)


@self_checked
def gnss_rdp_printed(alpha, sigma_s) -> mpf:
    """Public helper: seed 003 Lemma 3.6.5 as printed (σ_2 = σ_s): (3α + 2)/(2σ_s²) = (α+1)/σ_s² + α/(2σ_s²).
    Not a bound in general (erratum E2): it goes to 0 as σ_s → ∞ while the noise-scale mismatch e^{±β} always
    leaks (the σ-free part max(V(e^{±β})) > 0)."""
    alpha, sigma_s = mpf(alpha), mpf(sigma_s)
    return (3 * alpha + 2) / (2 * sigma_s**2)


@self_checked
def lemma3_6_5(alpha, beta, sigma_s, sigma_2):
    """Seed 003 Lemma 3.6.5 (i), corrected (E2): the RDP of the (β, σ_s, σ_2)-GNSS release with the μ release."""
    return gnss_rdp_tight(alpha, beta, sigma_s, sigma_2)


@self_checked
def lemma3_6_5_thm23(alpha, beta, sigma_s, sigma_2):
    """Seed 003 Lemma 3.6.5 (i) through Papernot's Thm 23 (the proof sketch's citation) + the μ release."""
    return gnss_rdp(alpha, beta, sigma_s, sigma_2)


@self_checked
def lemma3_6_5_printed(alpha, beta, sigma_s, sigma_2):
    """Seed 003 Lemma 3.6.5 (i) verbatim: (3α+2)/(2σ_s²) (σ_2 = σ_s in Alg 6; here the printed form in σ_s)."""
    return gnss_rdp_printed(alpha, sigma_s)


def _thm23_order(p) -> bool:
    return p["alpha"] > 1 and 2 * p["alpha"] * p["beta"] < 1


def _gnss_use(direction):
    return lambda p: {"beta": p["beta"], "sigma_s": p["sigma_s"], "sigma_2": p["sigma_2"], "direction": direction}


register(Statement(
    id="gptr.lemma3_6_5",
    fast="dpspec.fast.gptr.pate:gnss_rdp_tight",
    source=Source(spec.SEED, "Lemma 3.6.5 (i)", "RDP of the private upper bound of the data-dependent RDP (GNSS "
                  "+ μ release), corrected: the exact GNSS worst case (cf. Papernot et al. 2018 Thm 23)",
                  citation=PAPERNOT),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) = max_{r∈{e^−β,1,e^β}} [V(r) + α min(1,r)²/(2σ_s²(αr²−α+1))] + α/(2σ_2²), 1 < α < 1/(2β)",
    params=(spec.P_GNMAX_ALPHA, spec.P_SMOOTH_BETA, spec.P_SIGMA_S, spec.P_SIGMA_2),
    reference=lemma3_6_5,
    conditions=(Condition.of(spec.THM23_ORDER, _thm23_order),),
    variants={
        "thm23": Variant(lemma3_6_5_thm23, "Papernot et al. 2018 Thm 23 (the proof sketch's citation, their code's "
                         "form) + α/(2σ_2²): a bound where 2αβ ≤ ½ (proven here); refuted near α = 1/(2β) by the "
                         "gptr.gnss pair", conditions=(Condition.of(spec.THM23_ORDER, _thm23_order),
                                                       Condition.of(spec.THM23_HALF,
                                                                    lambda p: 4 * p["alpha"] * p["beta"] <= 1))),
        "printed": Variant(lemma3_6_5_printed, "seed 003 Lemma 3.6.5 verbatim: (3α+2)/(2σ_s²) = (α+1)/σ_s² "
                           "+ α/(2σ_s²) (erratum E2): no σ-free term, so it vanishes as σ_s → ∞ while the scale "
                           "mismatch e^{±β} leaks — not a bound (it holds at Alg 6's constants)", is_bound=False),
    },
    witnesses=(WitnessUse("gptr.gnss", _gnss_use(1), "neighbour with SS_β larger by e^β"),
               WitnessUse("gptr.gnss", _gnss_use(-1), "neighbour with SS_β smaller by e^−β")),
    privacy=Privacy("replace_one", "both", "none"),
    monotone={"alpha": +1, "sigma_s": -1, "sigma_2": -1, "beta": +1},
    note="[R] The seed omits the proof; reconstruction (notes §2.4): μ = log SS_β + βN(0, σ_2²) + const is a Gaussian "
         "mechanism of sensitivity β (log SS_β is β-Lipschitz), (α, α/(2σ_2²))-RDP; given μ, upper adds the public "
         "shift σ_s√(2 log(2/δ_2))e^μ to the GNSS release ε(α,X) + SS_β(X)N(0, σ_s²); composition gives the sum. "
         "The GNSS part is computed exactly over the smooth-sensitivity axioms (three closed-form extreme pairs) "
         "instead of Papernot's Thm 23, whose closed form (the 'thm23' variant) holds for 2αβ ≤ ½ but not near "
         "α = 1/(2β). At Alg 6's constants (2αβ = 0.4) both hold and the printed (3α+2)/(2σ_s²) is above the exact "
         "value (0.2909 vs 0.2539 at σ_s = 15, α = 42.96).",
))


@self_checked
def coverage_failure(delta_2, beta, sigma_2, c=None):
    """P[upper(α) < ε(α, X)] for seed 003 Lemma 3.6.5 (ii), exactly (notes §2.4, §8): with c = √(2 log(2/δ_2)),
    e^μ = SS·e^{βσ_2(Z_2 + c)} and upper − ε = SS σ_s (Z_1 + c e^{βσ_2(Z_2 + c)}), Z_1, Z_2 independent N(0, 1), so
    the failure probability is p = P[Z_1 < −c e^{s(Z_2 + c)}], s = βσ_2 (σ_s and SS cancel). ``c`` overrides the tail
    constant (the authors' code uses √(log(2/δ_2)), notes §2.4 [EXT]).

    One of two 1-D integrals of a log-concave function, chosen so that no factor varies faster than unit scale:
      s ≤ 1: conditioning on Z_2 = z, p = ∫ φ(z) Φ(−c e^{s(z+c)}) dz, whose cliff (Φ(−c e^{s(z+c)}) falling from ½
             to 0) is 1/s ≥ 1 wide;
      s > 1: conditioning on Z_1 = −e^y (Z_1 < 0 is needed), p = ∫ e^y φ(e^y) Φ((y − log c)/s − c) dy, whose
             Φ factor varies on scale s > 1 (as s → ∞ it is Φ(−c) and p → Φ(−c)/2).
    (The z-form alone needs break points on the 1/s scale of its cliff at large s: with unit steps it was wrong
    there, as the fast path reported, and with a golden-section mode search it raised PrecisionError from s ≈ 1e8 on,
    e.g. δ_2 = 0.999, β = 1e5, σ_2 = 1e3, and as s → ∞.) Both integrands are log-concave (−z²/2 and y − e^{2y}/2
    are, and log Φ of a concave argument is), which :func:`log_concave_integral` uses to place its break points and
    to bound the cut tails."""
    delta_2, beta, sigma_2 = mpf(delta_2), mpf(beta), mpf(sigma_2)
    c = mpmath.sqrt(2 * mpmath.log(2 / delta_2)) if c is None else mpf(c)
    s = beta * sigma_2
    half_log_2pi = mpmath.log(2 * mpmath.pi) / 2

    def mills(x):
        """φ(x)/Φ(x), in log space (no underflow for x ≪ 0)."""
        return mpmath.exp(-x * x / 2 - half_log_2pi - log_ndtr(x))

    if s <= 1:
        def f(z):
            return -z * z / 2 + log_ndtr(-c * mpmath.exp(s * (z + c)))

        def df(z):
            w = c * mpmath.exp(s * (z + c))
            return -z - s * w * mills(-w)
        start = -c
    else:
        log_c = mpmath.log(c)

        def f(y):
            return y - mpmath.exp(2 * y) / 2 + log_ndtr((y - log_c) / s - c)

        def df(y):
            return 1 - mpmath.exp(2 * y) + mills((y - log_c) / s - c) / s
        start = mpf(0)
    log_total = log_concave_integral(f, df, start)
    return mpmath.exp(log_total - half_log_2pi)


_LEVELS = (1, 4, 10, 20, 35, 60, 100)  # drops below the peak (nats) where the quadrature pieces end


def log_concave_integral(log_f, d_log_f, start) -> mpf:
    """log ∫ exp(log_f) over the real line for a concave log_f with derivative d_log_f that has a maximum.

    The mode: a bracket of the root of the (decreasing) derivative grown by doubling from ``start``, then the
    bracketed root. The break points: on each side the points where log_f has fallen by 1, 4, 10, 20, 35, 60, 100
    and K = (dps + 20)·ln 10 + 10 nats below the peak (bracketed roots, to 10^-3 of their distance to the mode: the
    pieces need not end exactly there), so that each piece has a bounded dynamic range and a width fitted to the
    integrand's own scale, however narrow (1/(βσ_2) for the coverage integral) or wide. Gauss–Legendre on each piece
    in the coordinate (x − mode)/w, w the distance between the two 1-nat points, so the integral is of order 1 and
    mpmath's absolute error control is relative. Tails: beyond the last point x_K, concavity puts log_f below the
    chord from the mode, so each cut tail is at most e^{log_f(x_K)}·|x_K − mode|/(peak − log_f(x_K)); both are checked
    to be below 10^{−(dps+20)} of the integral (PrecisionError otherwise)."""
    from .._solve import root

    start = mpf(start)
    lo, hi, step = start, start, mpf(1)
    while not d_log_f(lo) > 0:
        lo -= step
        step *= 2
        if step > mpf(10) ** 30:
            raise PrecisionError("log_concave_integral: no bracket of the mode (left)")
    step = mpf(1)
    while not d_log_f(hi) < 0:
        hi += step
        step *= 2
        if step > mpf(10) ** 30:
            raise PrecisionError("log_concave_integral: no bracket of the mode (right)")
    mode = root(d_log_f, lo, hi) if lo < hi else lo
    peak = log_f(mode)
    K = (mp.dps + 20) * mpmath.log(10) + 10
    levels = [mpf(v) for v in _LEVELS if v < K] + [K]
    points = {mode}
    ends = {}
    for side in (-1, 1):
        def g(t):
            return log_f(mode + side * t)
        inner, outer = mpf(0), mpf(1)
        for level in levels:
            target = peak - level
            outer = max(outer, 2 * inner)
            while g(outer) > target:  # grow past the level ...
                inner, outer = outer, 2 * outer
                if outer > mpf(10) ** 40:
                    raise PrecisionError("log_concave_integral: the integrand does not fall off")
            while outer / 2 > inner and g(outer / 2) <= target:  # ... or shrink to within a factor 2 of it
                outer /= 2
            inner = max(inner, outer / 2)  # g(outer / 2) > target where outer / 2 > inner (the loop's exit)
            t = root(lambda x, target=target: g(x) - target, inner, outer, abs_tol=outer * mpf("1e-3"))
            points.add(mode + side * t)
            ends[(side, level)] = mode + side * t
            inner = t
    width = ends[(1, levels[0])] - ends[(-1, levels[0])]
    pts = sorted((x - mode) / width for x in points)
    total = mpmath.quad(lambda u: mpmath.exp(log_f(mode + u * width) - peak), pts, method="gauss-legendre")
    log_total = peak + mpmath.log(width) + mpmath.log(total)
    for side in (-1, 1):
        x_k = ends[(side, K)]
        drop = peak - log_f(x_k)
        log_tail = peak - drop + mpmath.log(abs(x_k - mode)) - mpmath.log(drop)
        if log_tail > log_total - (mp.dps + 20) * mpmath.log(10):
            raise PrecisionError("log_concave_integral: a cut tail exceeds 10^-(dps+20) of the integral")
    return log_total


def _window(mode, width) -> list[mpf]:
    """Quadrature break points around the mode of a log-concave integrand whose log has curvature ≤ −1/width²
    (here −z²/2 plus concave terms): beyond |z − mode| = R·width, R² = 2(dps + 20) log 10, the integrand is below
    e^{−R²/2} of its peak, so the cut tails hold less than 10^{−(dps+20)} of the mass; no infinite end (the
    integrands are not evaluated at huge arguments)."""
    R = mpmath.sqrt(2 * (mp.dps + 20) * mpmath.log(10))
    ks = [-R, -R / 2, -8, -4, -2, -1, 0, 1, 2, 4, 8, R / 2, R]
    return sorted({mode + k * width for k in ks if abs(k) <= R})


@self_checked
def lemma3_6_5_coverage(delta_2, beta, sigma_2):
    """Seed 003 Lemma 3.6.5 (ii): the exact probability that upper(α) falls below ε(α, X) (claimed ≤ δ_2)."""
    return coverage_failure(delta_2, beta, sigma_2)


@self_checked
def lemma3_6_5_coverage_printed(delta_2, beta, sigma_2):
    """Seed 003 Lemma 3.6.5 (ii) as printed: the failure probability is at most δ_2."""
    return mpf(delta_2)


register(Statement(
    id="gptr.lemma3_6_5_coverage",
    fast="dpspec.fast.gptr.pate:coverage_failure",
    source=Source(spec.SEED, "Lemma 3.6.5 (ii)", "the GNSS upper bound covers the data-dependent RDP w.p. ≥ 1 − δ_2"),
    kind="utility",
    claim="exact",
    value=Value("number"),
    summary="P[upper(α) < ε(α,X)] = E_Z[Φ(−c e^{βσ_2(Z + c)})], c = √(2 log(2/δ_2)) (≤ δ_2)",
    params=(spec.P_DELTA_2, spec.P_SMOOTH_BETA, spec.P_SIGMA_2),
    reference=lemma3_6_5_coverage,
    variants={"printed": Variant(lemma3_6_5_coverage_printed, "the lemma's claim: at most δ_2 (two one-sided "
                                 "Gaussian tails of δ_2/2 each); an upper bound of the exact value")},
    monotone={"delta_2": +1},
    note="The exact value is far below δ_2 (notes §5.2: 2.26e-11 against δ_2 = 5e-6 at Alg 6's σ_2 = 15). [R] the "
         "reading of Alg 6 line 6 (√(2 log(2/δ_2)), not the authors' code's √(log(2/δ_2)): the code's variant misses "
         "δ_2, notes §2.4).",
))


@self_checked
def pate_constants(eps_hat, delta) -> tuple[mpf, mpf, mpf]:
    """Public helper: seed 003 Algorithm 6 line 2 as printed: α = 2 log(2/δ)/ε̂ + 1, σ_s = σ_2 = √((3α+2)/ε̂)
    ([R] notes §2.4: the reading that makes Lemma 3.6.5's printed cost equal ε̂/2), β = 0.2/α. Returns
    (α, σ_s, β)."""
    eps_hat, delta = mpf(eps_hat), mpf(delta)
    if not eps_hat > 0:
        from ..errors import DomainError

        raise DomainError("eps_hat", eps_hat, "(0, inf)")
    alpha = 2 * mpmath.log(2 / delta) / eps_hat + 1
    return alpha, mpmath.sqrt((3 * alpha + 2) / eps_hat), mpf("0.2") / alpha


@self_checked
def pate_eps_hat(sigma_s, delta) -> mpf:
    """ε̂ of Algorithm 6 line 2 for a given σ_s (the inverse of :func:`pate_constants`, the experiment fixes
    σ_s = σ_2 = 15): σ_s² ε̂ = 3α + 2 = 6 log(2/δ)/ε̂ + 5, so ε̂ = (5 + √(25 + 24 σ_s² log(2/δ)))/(2σ_s²)."""
    sigma_s, delta = mpf(sigma_s), mpf(delta)
    L = mpmath.log(2 / delta)
    return (5 + mpmath.sqrt(25 + 24 * sigma_s**2 * L)) / (2 * sigma_s**2)


TEST_COST_FORMS = ("tight", "thm23", "printed")


def test_cost(eps_hat, delta, form: str = "tight") -> mpf:
    """The DP cost at δ/2 of Algorithm 6's test release with its printed constants (α, σ_s = σ_2, β from ε̂, δ):
    RDP(α) + log(2/δ)/(α − 1) (Mironov 2017 Prop 3), the RDP from Lemma 3.6.5 in ``form``: "tight" (the exact GNSS
    worst case + μ), "thm23" (Papernot's Thm 23 + μ, valid here since 2αβ = 0.4), "printed" ((3α+2)/(2σ_s²), which
    makes the cost exactly ε̂)."""
    alpha, sig, beta = pate_constants(eps_hat, delta)
    conversion = mpmath.log(2 / mpf(delta)) / (alpha - 1)
    if form == "tight":
        return gnss_rdp_tight(alpha, beta, sig, sig) + conversion
    if form == "thm23":
        return gnss_rdp(alpha, beta, sig, sig) + conversion
    if form == "printed":
        return gnss_rdp_printed(alpha, sig) + conversion
    raise ParameterError(f"form={form!r}: one of {TEST_COST_FORMS}")


@self_checked
def thm3_6_6(eps_prime, eps_hat, delta):
    """Seed 003 Theorem 3.6.6, reconstructed (notes §2.4, E2, E14): Algorithm 6 is (ε′ + ε̂_test, δ)-DP, ε̂_test the
    test cost from the corrected Lemma 3.6.5 (exact GNSS worst case) at Alg 6's constants (≤ ε̂ for every ε̂ > 0, δ < 1),
    δ = δ/2 (test) + max(δ/2, δ_2 = δ/2) (Thm 3.5.7 with the max form of Thm 3.5.3's proof)."""
    return mpf(eps_prime) + test_cost(eps_hat, delta, "tight"), mpf(delta)


@self_checked
def thm3_6_6_thm23(eps_prime, eps_hat, delta):
    """Theorem 3.6.6 with the test cost from Papernot's Thm 23 (notes §5.2: ε̂ = 0.58174 → 0.58994 at σ_s = 15)."""
    return mpf(eps_prime) + test_cost(eps_hat, delta, "thm23"), mpf(delta)


@self_checked
def thm3_6_6_printed(eps_prime, eps_hat, delta):
    """Seed 003 Theorem 3.6.6 verbatim: (ε′ + ε̂, δ)."""
    return mpf(eps_prime) + mpf(eps_hat), mpf(delta)


@self_checked
def thm3_6_6_sum_form(eps_prime, eps_hat, delta):
    """Theorem 3.6.6 through the printed (sum) form of Thm 3.5.3: (ε′ + ε̂_test, δ/2 + δ/2 + δ/2) (E14)."""
    return mpf(eps_prime) + test_cost(eps_hat, delta, "tight"), 3 * mpf(delta) / 2


_P_EPS_HAT_POS = Param("eps_hat", spec.POSITIVE, "ε̂ > 0, the budget of Alg 6's test (its release costs ε̂ at δ/2 "
                       "as printed)", example="0.58174")

register(Statement(
    id="gptr.thm3_6_6",
    fast="dpspec.fast.gptr.pate:thm3_6_6",
    source=Source(spec.SEED, "Theorem 3.6.6", "privacy of PATE-PTR (Algorithm 6), with the corrected Lemma 3.6.5"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="(ε′ + ε̂_test, δ): ε̂_test = ε_GNSS(α) + α/(2σ_2²) + log(2/δ)/(α−1) ≤ ε̂ at α, σ_s = σ_2, β of Alg 6",
    params=(spec.P_EPS_PRIME, _P_EPS_HAT_POS, spec.P_DELTA),
    reference=thm3_6_6,
    variants={
        "printed": Variant(thm3_6_6_printed, "seed 003 Thm 3.6.6 verbatim: (ε′ + ε̂, δ) — a bound: the exact test "
                           "cost is below ε̂ for every ε̂, δ (the printed lemma is above the exact GNSS RDP at Alg 6's "
                           "constants)"),
        "thm23": Variant(thm3_6_6_thm23, "test cost from Papernot's Thm 23 (notes §2.4, E2: 0.58994 for ε̂ = "
                         "0.58174): valid, above ε̂"),
        "sum_form": Variant(thm3_6_6_sum_form, "through Thm 3.5.3's printed sum δ + δ̂ + δ′: (ε′ + ε̂_test, 3δ/2) "
                            "(E14); valid, looser"),
    },
    privacy=Privacy("replace_one", "both", "none"),
    monotone={"eps_prime": +1, "eps_hat": +1},
    witnesses=THM3_6_6_USES,
    note="[R] No proof in the seed (notes §2.4): the test release is (α, ε_test)-RDP (gptr.lemma3_6_5 at Alg 6's "
         "constants), converted at δ/2 (base.rdp_to_dp_mironov); the labels' data-dependent DP is "
         "upper + log(2/δ)/(α−1) w.r.t. δ/2 (gptr.thm3_6_4 released privately); false positive δ_2 = δ/2 "
         "(gptr.lemma3_6_5_coverage); Thm 3.5.7 with the max form of Thm 3.5.3's proof (gptr.thm3_5_3) gives δ "
         "(the sum form 3δ/2, E14). The notes' E2 (test cost 0.58994 > ε̂) holds only through Thm 23; the exact GNSS "
         "worst case gives 0.5448 < 0.58174. The seed's prose swaps ε′ and ε̂ (E11); here ε̂ pays for the test.",
))


@self_checked
def alg6_sigma_s(eps_hat, delta):
    """The smallest σ_s = σ_2 for which Algorithm 6's test release costs ε̂ at δ/2 (α, β as in Alg 6 line 2), with the
    exact Lemma 3.6.5: log(2/δ)/(α−1) = ε̂/2, so α/(2σ²) + max_i(V_i + m_i/σ²) = ε̂/2, i.e.
    σ² = max_i (α/2 + m_i)/(ε̂/2 − V_i) (:func:`gnss_candidates`; every V_i < ε̂/2 at β = 0.2/α)."""
    eps_hat, delta = mpf(eps_hat), mpf(delta)
    alpha, _, beta = pate_constants(eps_hat, delta)
    need = []
    for v, m in gnss_candidates(alpha, beta):
        room = eps_hat / 2 - v
        if not room > 0:  # pragma: no cover - impossible at β = 0.2/α (module analysis)
            raise PrecisionError("alg6_sigma_s: no σ reaches the budget")
        need.append((alpha / 2 + m) / room)
    return mpmath.sqrt(max(need))


@self_checked
def alg6_sigma_s_thm23(eps_hat, delta):
    """σ_s = σ_2 for which the test costs ε̂ through Papernot's Thm 23: α(e^{2β} + ½)/σ² = ε̂/2 − (βα − ½ log(1 −
    2αβ))/(α − 1) (the σ-free term is 0.45541/(α−1) < ε̂/2 at β = 0.2/α for every δ < 1)."""
    eps_hat, delta = mpf(eps_hat), mpf(delta)
    alpha, _, beta = pate_constants(eps_hat, delta)
    room = eps_hat / 2 - (beta * alpha - mpmath.log1p(-2 * alpha * beta) / 2) / (alpha - 1)
    return mpmath.sqrt(alpha * (mpmath.exp(2 * beta) + mpf(1) / 2) / room)


@self_checked
def alg6_sigma_s_printed(eps_hat, delta):
    """Seed 003 Algorithm 6 line 2: σ_s = σ_2 = √((3α + 2)/ε̂) ([R] notes §2.4)."""
    return pate_constants(eps_hat, delta)[1]


register(Statement(
    id="gptr.alg6_sigma_s",
    fast="dpspec.fast.gptr.pate:alg6_sigma_s",
    source=Source(spec.SEED, "Algorithm 6, line 2", "noise σ_s = σ_2 of PATE-PTR's test for a test budget ε̂"),
    kind="calibration",
    claim="exact",
    value=Value("noise"),
    summary="σ_s² = max_i (α/2 + m_i)/(ε̂/2 − V_i), α = 2 log(2/δ)/ε̂ + 1, β = 0.2/α (exact GNSS worst case)",
    params=(_P_EPS_HAT_POS, spec.P_DELTA),
    reference=alg6_sigma_s,
    variants={
        "printed": Variant(alg6_sigma_s_printed, "seed 003 Alg 6 line 2: √((3α+2)/ε̂) — enough noise (above the exact "
                           "calibration), by the exact Lemma 3.6.5"),
        "thm23": Variant(alg6_sigma_s_thm23, "the calibration through Papernot's Thm 23 (larger than printed, E2)"),
    },
    monotone={"eps_hat": -1},
    note="Alg 6's other constants (α = 2 log(2/δ)/ε̂ + 1, β = 0.2/α, δ_2 = δ/2) are kept; pate_constants(ε̂, δ) "
         "returns the printed triple (α, σ_s, β). Relates gptr.lemma3_6_5 and base.rdp_to_dp_mironov.",
))


# ---------------------------------------------------------------------------------------------------------------
# Witness: the exact output law of GNMax (notes §3.11)

WITNESS_MAX_TEACHERS = 10**6
WITNESS_MAX_QUERIES = 8
LAW_DPS = 20  # the float64 laws of the sampler (the exact moment runs at the caller's precision)


def _log_outcome_integrand(z, gaps):
    """log φ(z) + Σ_j w_j log Φ(a_j + z), (a_j, w_j) the distinct gaps (n_k − n_j)/σ and their multiplicities: the
    density of the top class's noise times the probability that every other class stays below (notes §3.11)."""
    return -z * z / 2 - mpmath.log(2 * mpmath.pi) / 2 + mpmath.fsum(w * log_ndtr(a + z) for a, w in gaps)


def _mills(x) -> mpf:
    """φ(x)/Φ(x) in log space."""
    return mpmath.exp(-x * x / 2 - mpmath.log(2 * mpmath.pi) / 2 - log_ndtr(x))


def log_outcome_probability(row, k, sigma) -> mpf:
    """log P[argmax_j (n_j + σ Z_j) = k] = log ∫ φ(z) Π_{j≠k} Φ((n_k − n_j)/σ + z) dz (notes §3.11), by quadrature
    around the mode of the (log-concave) integrand; exact to the working precision for tiny probabilities too."""
    sigma = mpf(sigma)
    counts: dict = {}
    for j, n in enumerate(row):
        if j != k:
            counts[int(n)] = counts.get(int(n), 0) + 1
    gaps = [((mpf(row[k]) - mpf(n)) / sigma, w) for n, w in sorted(counts.items())]
    z = mpf(0)
    for _ in range(500):  # Newton on the concave log-integrand: f' = −z + Σ w r(a+z), f'' = −1 − Σ w r(x)(x + r(x))
        rs = [(a + z, _mills(a + z), w) for a, w in gaps]
        d1 = -z + mpmath.fsum(w * r for _, r, w in rs)
        d2 = -1 - mpmath.fsum(w * r * (x + r) for x, r, w in rs)
        step = d1 / d2
        z -= max(min(step, 10), -10)
        if abs(step) <= mpf(2) ** (-mp.prec // 2) * max(1, abs(z)):
            break
    else:  # pragma: no cover - Newton on a strictly concave function converges
        raise PrecisionError("gnmax law: the mode search did not converge")
    curvature = 1 + mpmath.fsum(w * r * (x + r) for x, r, w in ((a + z, _mills(a + z), w) for a, w in gaps))
    width = 1 / mpmath.sqrt(curvature)
    peak = _log_outcome_integrand(z, gaps)
    total = mpmath.quad(lambda x: mpmath.exp(_log_outcome_integrand(x, gaps) - peak), _window(z, width),
                        method="gauss-legendre")  # smooth on each of the 12 pieces: faster than tanh-sinh, as accurate
    return peak + mpmath.log(total)


_LAW_CACHE: dict = {}


def gnmax_log_law(row, sigma) -> list[mpf]:
    """[log P[GNMax(row) = k] for k], at the working precision (cached by row, σ and precision)."""
    key = (tuple(int(n) for n in row), str(mpf(sigma)), mp.prec)
    if key not in _LAW_CACHE:
        by_count: dict = {}  # classes with equal counts have equal probabilities: one integral each
        for k, n in enumerate(row):
            if int(n) not in by_count:
                by_count[int(n)] = log_outcome_probability(row, k, sigma)
        _LAW_CACHE[key] = [by_count[int(n)] for n in row]
        if len(_LAW_CACHE) > 256:
            _LAW_CACHE.pop(next(iter(_LAW_CACHE)))
    return _LAW_CACHE[key]


def _witness_rows(votes, votes_prime):
    rows, rows_p = vote_rows(votes, "gptr.gnmax"), vote_rows(votes_prime, "gptr.gnmax")
    if len(rows) != len(rows_p) or any(len(a) != len(b) for a, b in zip(rows, rows_p)):
        raise ParameterError("gptr.gnmax: votes and votes_prime must have the same shape")
    return rows, rows_p


def _float_laws(votes, votes_prime, sigma):
    rows, rows_p = _witness_rows(votes, votes_prime)
    with mp.workdps(LAW_DPS):
        lp = np.array([[float(v) for v in gnmax_log_law(r, sigma)] for r in rows])
        lq = np.array([[float(v) for v in gnmax_log_law(r, sigma)] for r in rows_p])
    return rows, lp, lq


def _gnmax_sample(rng: np.random.Generator, n: int, votes, votes_prime, sigma) -> np.ndarray:
    """n draws of the T labels of GNMax on ``votes`` (P): argmax_j (n_j + σ Z_j), an (n, T) array of class indices."""
    rows, _, _ = _float_laws(votes, votes_prime, sigma)
    counts = np.array(rows, dtype=np.float64)
    out = np.empty((n, len(rows)), dtype=np.float64)
    for i in range(len(rows)):
        noisy = counts[i][None, :] + float(sigma) * rng.standard_normal((n, counts.shape[1]))
        out[:, i] = np.argmax(noisy, axis=1)
    return out


def _gnmax_log_density(which):
    def log_density(o, votes, votes_prime, sigma):
        _, lp, lq = _float_laws(votes, votes_prime, sigma)
        law = lp if which == "p" else lq
        o = np.asarray(o, dtype=np.int64).reshape(len(o), -1)
        return sum(law[i][o[:, i]] for i in range(law.shape[0]))
    return log_density


def _gnmax_log_moment(alpha, votes, votes_prime, sigma):
    """log E_Q[(p/q)^α] = Σ_i log Σ_k P_i(k)^α Q_i(k)^{1−α} from the two exact laws (quadrature of the pair's own
    output probabilities; never gptr.thm3_6_4's evaluator)."""
    from ..base.sgm import witness_order

    alpha = witness_order(alpha)
    if alpha == 0 or alpha == 1:  # E_Q[1] = E_Q[p/q] = 1 exactly: the laws have the same full support
        return mpf(0)
    rows, rows_p = _witness_rows(votes, votes_prime)
    total = mpf(0)
    for r, rp in zip(rows, rows_p):
        lp, lq = gnmax_log_law(r, sigma), gnmax_log_law(rp, sigma)
        total += logsumexp(alpha * a + (1 - alpha) * b for a, b in zip(lp, lq))
    return total


register_witness(Witness(
    id="gptr.gnmax",
    description="GNMax labels on two vote histograms: P = law of argmax(n + σZ), Q = law of argmax(n′ + σZ)",
    params=(Param("votes", Points(), "votes of X, (T, C)", example=[[300, 200, 0]]),
            Param("votes_prime", Points(), "votes of the neighbour X′ (one teacher changed its votes)",
                  example=[[299, 201, 0]]),
            Param("sigma", spec.GNMAX_SIGMA, "GNMax noise σ1", example=40)),
    sample=_gnmax_sample,
    log_p=_gnmax_log_density("p"),
    log_q=_gnmax_log_density("q"),
    source="seed 003 Thm 3.6.4 / Alg 6 line 3; notes generalized-ptr.md §3.11",
    dominating=False,
    log_moment=_gnmax_log_moment,
    note="The exact output law, P[argmax = k] = ∫ φ(z) Π_{j≠k} Φ((n_k − n_j)/σ + z) dz, by quadrature around the "
         "integrand's mode (any probability, 1e-40 included). A neighbouring pair, not a worst case: data-dependent "
         "bounds must lie above its divergence.",
))


# ---------------------------------------------------------------------------------------------------------------
# Witness: the GNSS release (notes §3.12)


def _gnss_scales(beta, sigma_s, sigma_2, direction):
    """The pair's constants: with SS(X) = 1, ε(X) = 0, μ/β ~ N(0, σ_2²) vs N(d, σ_2²); upper ~ N(0, σ_s²) vs
    N(min(1, e^{dβ}), e^{2dβ} σ_s²), d = ±1 (SS(X′) = e^{dβ} SS(X); the shift is at most min(SS(X), SS(X′)))."""
    d = int(direction)
    if d not in (-1, 1):
        raise ParameterError(f"gptr.gnss: direction={direction!r} must be -1 or 1")
    return d, float(beta), float(sigma_s), float(sigma_2)


def _gnss_sample(rng, n, beta, sigma_s, sigma_2, direction):
    d, b, ss, s2 = _gnss_scales(beta, sigma_s, sigma_2, direction)
    return np.stack([s2 * rng.standard_normal(n), ss * rng.standard_normal(n)], axis=1)


def _norm_logpdf(x, mean, sd):
    return -0.5 * ((x - mean) / sd) ** 2 - np.log(sd) - 0.5 * np.log(2 * np.pi)


def _gnss_log_p(o, beta, sigma_s, sigma_2, direction):
    d, b, ss, s2 = _gnss_scales(beta, sigma_s, sigma_2, direction)
    o = np.asarray(o, dtype=np.float64)
    return _norm_logpdf(o[:, 0], 0.0, s2) + _norm_logpdf(o[:, 1], 0.0, ss)


def _gnss_log_q(o, beta, sigma_s, sigma_2, direction):
    d, b, ss, s2 = _gnss_scales(beta, sigma_s, sigma_2, direction)
    o = np.asarray(o, dtype=np.float64)
    return _norm_logpdf(o[:, 0], float(d), s2) + _norm_logpdf(o[:, 1], min(1.0, math.exp(d * b)), ss * math.exp(d * b))


def gaussian_log_moment(alpha, m0, s0, m1, s1) -> mpf:
    """log ∫ p^α q^{1−α} for P = N(m0, s0²), Q = N(m1, s1²), from the densities (completing the square):
    s_α² = α s1² + (1−α) s0² must be > 0; then the integral is s0^{1−α} s1^α / s_α · e^{−α(1−α)(m0−m1)²/(2 s_α²)}
    (+inf where s_α² ≤ 0)."""
    alpha, m0, s0, m1, s1 = (mpf(v) for v in (alpha, m0, s0, m1, s1))
    var = alpha * s1**2 + (1 - alpha) * s0**2
    if not var > 0:
        return mpf("inf")
    return ((1 - alpha) * mpmath.log(s0) + alpha * mpmath.log(s1) - mpmath.log(var) / 2
            + alpha * (alpha - 1) * (m0 - m1) ** 2 / (2 * var))


def _gnss_log_moment(alpha, beta, sigma_s, sigma_2, direction):
    """log E_Q[(p/q)^α] of the product pair: the μ coordinate's plus the upper coordinate's (each from
    :func:`gaussian_log_moment`, a closed form of the pair's own Gaussian densities)."""
    from ..base.sgm import witness_order

    alpha = witness_order(alpha)
    if alpha == 0 or alpha == 1:  # E_Q[1] = E_Q[p/q] = 1 exactly: the laws have the same full support
        return mpf(0)
    d = int(direction)
    if d not in (-1, 1):
        raise ParameterError(f"gptr.gnss: direction={direction!r} must be -1 or 1")
    beta, sigma_s, sigma_2 = mpf(beta), mpf(sigma_s), mpf(sigma_2)
    return (gaussian_log_moment(alpha, 0, sigma_2, d, sigma_2)
            + gaussian_log_moment(alpha, 0, sigma_s, min(mpf(1), mpmath.exp(d * beta)), sigma_s * mpmath.exp(d * beta)))


register_witness(Witness(
    id="gptr.gnss",
    description="(μ/β, upper) with SS(X) = 1: P = N(0, σ_2²) × N(0, σ_s²), Q = N(d, σ_2²) × N(min(1, e^{dβ}), "
                "e^{2dβ}σ_s²)",
    params=(Param("beta", spec.SMOOTH_BETA, "β of the smooth sensitivity", example="0.004655"),
            Param("sigma_s", spec.GNSS_SIGMA, "σ_s", example=15),
            Param("sigma_2", spec.GNSS_SIGMA, "σ_2", example=15),
            Param("direction", spec.GNSS_DIRECTION, "d = ±1: SS(X′) = e^{dβ} SS(X)", example=1)),
    sample=_gnss_sample,
    log_p=_gnss_log_p,
    log_q=_gnss_log_q,
    source="seed 003 Lemma 3.6.5 / Alg 6 lines 6–7; notes generalized-ptr.md §3.12",
    dominating=False,
    log_moment=_gnss_log_moment,
    note="Smooth sensitivity allows |ε(X) − ε(X′)| ≤ min(SS(X), SS(X′)) and SS(X′)/SS(X) ∈ [e^{−β}, e^β]; these are "
         "the extreme pairs r = e^{±β}, with the shift c·e^μ (public given μ) removed. Not declared dominating (the "
         "r = 1 pair can be the GNSS worst case, and the μ part is composed). As σ_s → ∞ the divergence stays at the "
         "scale-mismatch term, which the printed (3α+2)/(2σ_s²) misses (E2); near α = 1/(2β) the r = e^{−β} pair "
         "exceeds Papernot's Thm 23.",
))
