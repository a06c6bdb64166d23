"""Binary voting with report-noisy-max (seed 003, Example B.3.1 and Theorem B.3.2; notes
shared/notes/generalized-ptr.md §2.6, §3.10, §4, §5.2, erratum E4).

M(X) = argmax_{i∈{0,1}} n_i(X) + Lap(1/ε). With t = n1(X) − n0(X), the output is class 0 with probability
p(t) = P[Z > εt], Z = Lap(1) − Lap(1), whose density is (1 + |z|)e^{−|z|}/4 (Ex B.3.1; mathoverflow 66763, used
in Papernot's compute_logq_laplace), so P[Z > s] = (2 + s)e^{−s}/4 for s ≥ 0 and 1 − (2 − s)e^{s}/4 for s < 0. The
four add/remove neighbours (n_0 or n_1 moved by ±1, clamped at 0) reach exactly t ± 1 (an added vote always exists;
a removal at a zero count is the dataset itself), so Thm B.3.2's ε(X) depends on t only, and p(−t) = 1 − p(t)
makes it even in t.

* ``gptr.thm_b3_2`` — the exact data-dependent ε of Thm B.3.2 (δ = 0) and its approximate version w.r.t. δ > 0: for
  two-point laws the smallest ε ≥ 0 with max_o (P(o) − e^ε Q(o)) ≤ δ is max(0, max_o log((P(o) − δ)/Q(o))),
  maximised over the two neighbours and both directions. ``printed``: the text's ε·log((2 + εt)/(2 + ε(t+1))) (not
  a bound, E4(i): it is negative; the exact value εl + log((2+εt)/(2+ε(t+l))) increases to ε with the gap, E4(ii)).
* ``gptr.ex_b3_1`` — the accounting of the three procedures: Gen-PTR (ε̃ + ε′, δ), classic PTR (ε̃, δ), Laplace
  (ε, 0) (the text's "(ε, δ)", the ``printed`` variant, valid but loose).

Witness pair ``gptr.binary_rnm`` (notes §3.10): P = Bernoulli law of M on t, Q on a neighbour t′ (exact).
Reference algorithms: :func:`laplace_rnm`, :func:`classic_ptr_binary_vote`, :func:`gen_ptr_binary_vote`.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mp, mpf

from ..catalogue import (Condition, Privacy, Source, Statement, Value, Variant, Witness, WitnessUse, register,
                         register_witness)
from ..domains import Param
from ..errors import DomainError, ParameterError
from ..precision import log1mexp, log_sub, logsumexp, self_checked
from . import spec
from .witnesses_discrete import EX_B3_1_USES

def _log4():
    return mpmath.log(4)


def log_p0(u, eps) -> mpf:
    """log p(u) = log P[Z > εu] = log(2 + εu) − εu − log 4 for u ≥ 0 (Ex B.3.1), in log space (no underflow)."""
    s = mpf(eps) * mpf(u)
    return mpmath.log(2 + s) - s - _log4()


def log_p_signed(t, eps) -> tuple[mpf, mpf]:
    """(log P[o = 0], log P[o = 1]) of binary RNM at signed gap t: (log p(t), log(1 − p(t))), 1 − p via log1mexp for
    the larger side (notes §8: p underflows for εt > 745 in float64, 1 − p needs expm1)."""
    u = abs(int(t))
    small = log_p0(u, eps)
    big = log1mexp(small)
    return (small, big) if int(t) >= 0 else (big, small)


def _pair_terms(u, d, eps, delta):
    """The two direction-and-outcome log-ratio candidates of the Bernoulli pair (P at gap u ≥ 0, Q at u + d ≥ 0),
    both directions: log((P(o) − δ)/Q(o)) for each outcome o and each order of the pair (−inf where P(o) ≤ δ).
    At δ = 0 the class-0 ratios are formed analytically: log(p(u)/p(u+d)) = εd − log1p(εd/(2 + εu))."""
    eps = mpf(eps)
    a0 = log_p0(u, eps)
    b0 = log_p0(u + d, eps)
    a1, b1 = log1mexp(a0), log1mexp(b0)
    out = []
    if delta == 0:
        r0 = eps * d - mpmath.log1p(eps * d / (2 + eps * u))  # log p(u) − log p(u + d)
        out += [r0, -r0, a1 - b1, b1 - a1]
    else:
        ld = mpmath.log(delta)
        for x, y in ((a0, b0), (b0, a0), (a1, b1), (b1, a1)):
            out.append(log_sub(x, ld) - y if x > ld else mpf("-inf"))
    return out


def rnm_epsilon(t, eps, delta=0) -> mpf:
    """Thm B.3.2's ε(X) at gap t (and its δ-approximate version): max(0, every candidate of :func:`_pair_terms` over
    the neighbours t ± 1); even in t (module docstring)."""
    u, delta = abs(int(t)), mpf(delta)
    if mpf(eps) == 0:
        return mpf(0)
    cands = []
    for d in (1, -1):
        if u + d < 0:
            continue
        cands += _pair_terms(u, d, eps, delta)
    # t = 0: t′ = ±1 have the same law up to relabelling the classes (p(−1) = 1 − p(1)), so d = +1 covers both
    return max([mpf(0)] + cands)


@self_checked
def binary_rnm_epsilon(t, eps, delta=0) -> mpf:
    """Public helper: the exact data-dependent ε of binary report-noisy-max at vote gap t = n1 − n0 (seed 003 Thm
    B.3.2; δ = 0) or its approximate version w.r.t. δ ∈ (0, 1) (notes §2.6). Lies in [0, ε); at δ = 0 it increases to
    ε with |t| (E4)."""
    t = _gap(t)
    eps = _eps(eps)
    delta = mpf(delta)
    if not (0 <= delta < 1):
        raise DomainError("delta", delta, "[0, 1)")
    return rnm_epsilon(t, eps, delta)


@self_checked
def binary_rnm_epsilon_printed(t, eps) -> mpf:
    """Public helper: seed 003 Ex B.3.1's printed bound ε·log((2 + εt)/(2 + ε(t+1))) = −ε log1p(ε/(2 + εt)), derived
    for t ≥ 0. Not a bound (E4(i)): it is negative for every ε > 0."""
    t, eps = _gap(t), _eps(eps)
    if t < 0:
        from ..errors import ConditionError

        raise ConditionError("gptr.thm_b3_2", [spec.RNM_PRINTED_GAP.describe()])
    return -eps * mpmath.log1p(eps / (2 + eps * t))


def _gap(t) -> int:
    try:
        ok = float(t) == math.floor(float(t))
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok or not spec.VOTE_GAP.contains(t):
        raise DomainError("t", t, spec.VOTE_GAP.describe())
    return int(t)


def _eps(eps) -> mpf:
    eps = mpf(eps)
    if not (eps >= 0 and mpmath.isfinite(eps)):
        raise DomainError("eps", eps, "[0, inf)")
    return eps


@self_checked
def thm_b3_2(t, eps, delta):
    """Seed 003 Theorem B.3.2: ε(X) = max_{X′} {|log p/p′|, |log (1−p)/(1−p′)|} (δ = 0), exactly; for δ > 0 the
    smallest ε with both hockey-stick divergences ≤ δ over the neighbours (notes §2.6)."""
    return rnm_epsilon(t, eps, delta)


@self_checked
def thm_b3_2_printed(t, eps, delta):
    """Seed 003 Ex B.3.1's printed bound on log(p/p′): ε·log(1 − ε/(2 + ε(t+1))) (not a bound, E4)."""
    return binary_rnm_epsilon_printed(t, eps)


# ---------------------------------------------------------------------------------------------------------------
# Witness: the binary RNM output pair (notes §3.10)


def _witness_law(t, eps):
    return log_p_signed(int(t), eps)


def pair_epsilon(t, t_prime, eps, delta) -> mpf:
    """The ε of the two-point pair (P at t, Q at t′) at δ, one direction, from the pair's own laws:
    max(0, max_o log((P(o) − δ)/Q(o)))."""
    lp, lq = _witness_law(t, eps), _witness_law(t_prime, eps)
    delta = mpf(delta)
    if delta == 0:
        return max([mpf(0)] + [a - b for a, b in zip(lp, lq)])
    ld = mpmath.log(delta)
    return max([mpf(0)] + [log_sub(a, ld) - b for a, b in zip(lp, lq) if a > ld])


def worst_pair(p) -> dict:
    """The witness parameters of the neighbour and direction that attain Thm B.3.2's maximum at a point
    (t, eps, delta): argmax over (t′ = t ± 1) × (X‖X′, X′‖X) of :func:`pair_epsilon` (ties: the first)."""
    t, eps, delta = int(p["t"]), p["eps"], p.get("delta", 0)
    with mp.workdps(30):
        cands = []
        for tp in (t + 1, t - 1):
            if not spec.VOTE_GAP.contains(tp):
                continue
            cands.append((pair_epsilon(t, tp, eps, delta), {"t": t, "t_prime": tp, "eps": eps}))
            cands.append((pair_epsilon(tp, t, eps, delta), {"t": tp, "t_prime": t, "eps": eps}))
    return max(cands, key=lambda c: c[0])[1]


def _rnm_sample(rng, n, t, t_prime, eps):
    lp = _witness_law(t, eps)
    p0 = math.exp(float(lp[0]))
    return (rng.random(n) >= p0).astype(np.float64)  # 0.0 = class 0 (probability p0), 1.0 = class 1


def _rnm_log_density(which):
    def log_density(o, t, t_prime, eps):
        with mp.workdps(30):
            law = _witness_law(t if which == "p" else t_prime, eps)
        l0, l1 = float(law[0]), float(law[1])
        o = np.asarray(o, dtype=np.float64)
        return np.where(o == 0, l0, l1)
    return log_density


def _rnm_log_moment(alpha, t, t_prime, eps):
    """log E_Q[(p/q)^α] = log Σ_o P(o)^α Q(o)^{1−α} for the two Bernoulli laws (closed forms of Ex B.3.1)."""
    from ..base.sgm import witness_order

    alpha = witness_order(alpha)
    if alpha == 0 or alpha == 1:  # E_Q[1] = E_Q[p/q] = 1 exactly: the laws have the same full support
        return mpf(0)
    lp, lq = _witness_law(t, eps), _witness_law(t_prime, eps)
    return logsumexp(alpha * a + (1 - alpha) * b for a, b in zip(lp, lq))


register_witness(Witness(
    id="gptr.binary_rnm",
    description="binary report-noisy-max: P = Bernoulli law of argmax(n_i + Lap(1/ε)) at gap t, Q at gap t′",
    params=(Param("t", spec.VOTE_GAP, "gap n1 − n0 of X", example=5),
            Param("t_prime", spec.VOTE_GAP, "gap of the neighbour X′ (t ± 1)", example=6),
            Param("eps", spec.EPS, "ε = 1/b", example=1)),
    sample=_rnm_sample,
    log_p=_rnm_log_density("p"),
    log_q=_rnm_log_density("q"),
    source="seed 003 Ex B.3.1 / Thm B.3.2; notes generalized-ptr.md §3.10",
    dominating=True,
    log_moment=_rnm_log_moment,
    note="Exact two-point laws, log p(t) = log(2 + εt) − εt − log 4 for t ≥ 0 and 1 − p by log1mexp. Dominating "
         "for gptr.thm_b3_2 when mapped (worst_pair) to the neighbour and direction that attain its maximum.",
))


register(Statement(
    id="gptr.thm_b3_2",
    fast="dpspec.fast.gptr.binary_vote:thm_b3_2",
    source=Source(spec.SEED, "Theorem B.3.2", "exact data-dependent DP of binary report-noisy-max (Ex B.3.1)"),
    kind="eps_delta",
    claim="exact",
    value=Value("eps", "delta"),
    summary="ε(X) = max_{t′=t±1} max{|log p(t)/p(t′)|, |log (1−p(t))/(1−p(t′))|}, p(t) = (2+εt)e^{−εt}/4 (t ≥ 0)",
    params=(spec.P_VOTE_GAP, spec.P_RNM_EPS, spec.P_RNM_DELTA),
    reference=thm_b3_2,
    variants={"printed": Variant(
        thm_b3_2_printed, "seed 003 Ex B.3.1's bound ε·log((2+εt)/(2+ε(t+1))) (E4(i)): negative, so not a bound; the "
        "exact value εl + log((2+εt)/(2+ε(t+l))) increases to ε with t (E4(ii))", is_bound=False,
        conditions=(Condition.of(spec.RNM_PRINTED_GAP, lambda p: p["t"] >= 0),))},
    witnesses=(WitnessUse("gptr.binary_rnm", worst_pair, "the neighbour and direction attaining the maximum"),),
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"delta": -1},
    note="Data-dependent (Def 3.5.1, both directions) for the add/remove neighbours of Ex B.3.1. δ = 0 is the "
         "statement; δ > 0 the approximate version the notes use to explain Fig B.1(a) (0 once the neighbours' laws "
         "are δ-close: ε = 1 from t = 20, ε = 10 from t = 5 at δ = 1e-5). Relates base.laplace_pure: sup_t ε(t) = ε, "
         "the Laplace RNM's pure ε, never attained (E4).",
))


# ---------------------------------------------------------------------------------------------------------------
# gptr.ex_b3_1: the three procedures' accounting


@self_checked
def ex_b3_1(procedure, eps, eps_tilde, eps_prime, delta):
    """Seed 003 Ex B.3.1's accounting: Gen-PTR (ε̃ + ε′, δ) (Thm 3.5.7: the ε̃-DP lower bound t_p fails w.p. δ/2,
    the data-dependent ε is taken w.r.t. δ/2, sum δ/2 + δ/2); classic PTR (ε̃, δ) (stability-based release, false
    pass w.p. δ/2 — so (ε̃, δ/2) holds too); Laplace RNM (ε, 0)."""
    eps, eps_tilde, eps_prime, delta = (mpf(v) for v in (eps, eps_tilde, eps_prime, delta))
    if procedure == "gen_ptr":
        return eps_tilde + eps_prime, delta
    if procedure == "classic":
        return eps_tilde, delta
    if procedure == "laplace":
        return eps, mpf(0)
    raise ParameterError(f"procedure={procedure!r}: one of {spec.BINARY_PROCEDURE.options}")


@self_checked
def ex_b3_1_printed(procedure, eps, eps_tilde, eps_prime, delta):
    """Ex B.3.1 verbatim: as the default, but "M is (ε, δ)-DP" for the Laplace mechanism (E4(v))."""
    if procedure == "laplace":
        return mpf(eps), mpf(delta)
    return ex_b3_1(procedure, eps, eps_tilde, eps_prime, delta)


register(Statement(
    id="gptr.ex_b3_1",
    fast="dpspec.fast.gptr.binary_vote:ex_b3_1",
    source=Source(spec.SEED, "Example B.3.1", "privacy of the three binary-vote procedures (Gen-PTR, classic PTR, "
                  "Laplace report-noisy-max)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="Gen-PTR (ε̃ + ε′, δ); classic PTR (ε̃, δ); Laplace RNM (ε, 0)",
    params=(Param("procedure", spec.BINARY_PROCEDURE, "which procedure of Ex B.3.1", example="gen_ptr"),
            spec.P_RNM_EPS,
            Param("eps_tilde", spec.EPS, "ε̃, the budget of the private lower bound t_p of the gap", example=1),
            spec.P_EPS_PRIME,
            spec.P_DELTA),
    reference=ex_b3_1,
    variants={"printed": Variant(ex_b3_1_printed, "the text's \"M is (ε, δ)-DP\" for the Laplace mechanism "
                                 "(E4(v)): valid, with a δ it does not need")},
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": +1, "eps_tilde": +1, "eps_prime": +1, "delta": +1},
    witnesses=EX_B3_1_USES,
    note="Gen-PTR instantiates gptr.thm3_5_7 (ε̂ = ε̃, δ̂ = 0, δ′ = δ/2, the mechanism's data-dependent ε "
         "(gptr.thm_b3_2) w.r.t. δ/2, sum form); its upper bound must be sup_{t′ ≥ t_p} ε(t′), not ε(t_p) "
         "(E4(iii)). Classic PTR relates gptr.thm3_3_4 (stability-based: LS = 0 when the gap exceeds 1). The "
         "Laplace procedure is base.laplace_pure's ε (sensitivity 1 per count, report-noisy-max). Witness: "
         "gptr.binary_procedure, each procedure's exact output law at neighbouring vote gaps (the uses pick the "
         "neighbour with the largest exact δ and the largest loss; not a proven worst case, notes §3.14).",
))


# ---------------------------------------------------------------------------------------------------------------
# Reference algorithms (notes §4, Example B.3.1)

SCAN_LIMIT = 10**4  # at most this many gaps are scanned for sup_{t′ ≥ t_p} ε(t′); beyond, ε (always valid)


def laplace_rnm(n0, n1, eps, rng: np.random.Generator) -> int:
    """Report-noisy-max: argmax_i n_i + Lap(1/ε) (Ex B.3.1; ties, of probability 0, go to class 0)."""
    noise = rng.laplace(0.0, 1.0 / float(eps), size=2)
    return int(n1 + noise[1] > n0 + noise[0])


def _private_gap_lower_bound(gap, eps_tilde, delta, rng) -> float:
    """t_p = t − log(1/δ)/ε̃ + Lap(1/ε̃): ε̃-DP (the gap has sensitivity 1), P[t_p > t] = δ/2 (Ex B.3.1)."""
    return float(gap) - math.log(1 / float(delta)) / float(eps_tilde) + rng.laplace(0.0, 1.0 / float(eps_tilde))


def classic_ptr_binary_vote(n0, n1, eps_tilde, delta, rng: np.random.Generator) -> int:
    """Ex B.3.1's classic PTR: if t_p > 1 release the true majority (LS = 0), else a uniformly random class.
    (ε̃, δ)-DP as the text states (the false pass has probability δ/2)."""
    t_p = _private_gap_lower_bound(abs(n1 - n0), eps_tilde, delta, rng)
    if t_p > 1:
        return int(n1 > n0)
    return int(rng.integers(0, 2))


def sup_epsilon_above(t_p, eps, delta) -> float:
    """sup over integer gaps g ≥ max(0, ⌈t_p⌉) of the δ-approximate ε(g) (E4(iii): ε(·) is not monotone, so its value
    at t_p alone is not an upper bound). ε(g) = 0 once p(g − 1) ≤ δ (the neighbours' laws are then δ-close); if more
    than SCAN_LIMIT gaps remain, returns ε (the Laplace bound, valid for every gap)."""
    eps_m, delta_m = mpf(eps), mpf(delta)
    start = max(0, math.ceil(t_p))
    if eps_m == 0:
        return 0.0
    if delta_m == 0:
        return float(eps)  # the pure ε(g) increases to ε (E4(ii))
    ld = mpmath.log(delta_m)

    def above(g):  # p(g − 1) > δ: the laws at g and g ± 1 may still be δ-far
        return g < 1 or log_p0(g - 1, eps_m) > ld

    hi = max(start, 1)
    while above(hi):  # bracket the first g with p(g − 1) ≤ δ (p decreases in g)
        hi *= 2
    lo = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if above(mid) else (lo, mid)
    end = hi  # ε(g) = 0 for g ≥ end
    if start >= end:
        return 0.0
    if end - start > SCAN_LIMIT:
        return float(eps)
    return float(max(rnm_epsilon(g, eps_m, delta_m) for g in range(start, end)))


def gen_ptr_binary_vote(n0, n1, eps, eps_tilde, eps_prime, delta, rng: np.random.Generator, *,
                        printed: bool = False):
    """Ex B.3.1's Gen-PTR (notes §4): t_p = gap − log(1/δ)/ε̃ + Lap(1/ε̃); ε_p = sup_{g ≥ t_p} ε_{δ/2}(g); if ε_p ≤ ε′
    return argmax_i n_i + Lap(1/ε), else None (⊥). (ε̃ + ε′, δ)-DP (gptr.ex_b3_1). ``printed=True`` uses the text's
    ε_p = ε(t_p) instead (E4(iii): not an upper bound where ε(·) increases)."""
    gap = abs(int(n1) - int(n0))
    t_p = _private_gap_lower_bound(gap, eps_tilde, delta, rng)
    with mp.workdps(20):
        if printed:
            eps_p = float(rnm_epsilon(max(0, math.ceil(t_p)), mpf(eps), mpf(delta) / 2))
        else:
            eps_p = sup_epsilon_above(t_p, eps, mpf(delta) / 2)
    if eps_p <= float(eps_prime):
        return laplace_rnm(n0, n1, eps, rng)
    return None
