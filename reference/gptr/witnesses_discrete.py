"""End-to-end witnesses with a finite output space for seed 003's composed accountings (issue 18): the three
binary-vote procedures of Ex B.3.1 (``gptr.binary_procedure``) and Algorithm 5, Liu–Talwar random stopping over an
(ε*, δ*)-DP base mechanism (``gptr.random_stopping``, Thm 3.5.6). Notes shared/notes/generalized-ptr.md §3.10, §3.14,
§4.

Each pair is the OUTPUT LAW of the algorithm itself on two neighbouring data sets, computed exactly (mpmath, from the
algorithm's own randomness: Laplace tails and the law of the stopping time), not a reduction: outputs are the indices
0..m−1 of a finite list of outcomes, P = (P(o)), Q = (Q(o)). So

* the privacy loss log P(o) − log Q(o) is exact per outcome;
* log E_Q[(P/Q)^α] = log Σ_o P(o)^α Q(o)^{1−α} is exact (``log_moment``);
* where both laws charge every outcome, the loss is bounded by its extreme values and the pair declares the
  ``bounded_loss`` family (conformance/tilting.py), so conform also samples δ at the claimed ε at drawn domain
  points. tests/gptr/test_gptr_witnesses_discrete.py checks every law against the reference algorithms
  (reference/gptr/binary_vote.py, reference/gptr/algorithms.py) by simulation.

The pairs are lower-bound witnesses (``dominating=False``): the neighbours are chosen adversarially (below), not
proven worst.

``gptr.binary_procedure`` (Ex B.3.1; the procedures are binary_vote.laplace_rnm, classic_ptr_binary_vote,
gen_ptr_binary_vote). With t = n1 − n0 the signed gap of X and t′ = t ± 1 the neighbour's (add/remove one vote),
and Lap(1) tails P[Lap(1) > s] = ½e^{−s} (s ≥ 0), 1 − ½e^{s} (s < 0):

* laplace: argmax_i n_i + Lap(1/ε), two outcomes with P[class 0] = p(t) (binary_vote.log_p_signed);
* classic: t_p = |t| − log(1/δ)/ε̃ + Lap(1/ε̃); t_p > 1 releases the majority m = [t > 0], else a fair coin: P[m] =
  π + (1 − π)/2, π = P[Lap(1) > ε̃(1 − |t|) + log(1/δ)];
* gen_ptr: t_p as above; ε_p = sup_{g ≥ max(0, ⌈t_p⌉)} ε_{δ/2}(g) (binary_vote.sup_epsilon_above), non-increasing in
  ⌈t_p⌉; with g* the least g0 ≥ 0 whose ε_p ≤ ε′, the test passes iff ⌈t_p⌉ ≥ g*, i.e. t_p > g* − 1 (always when
  g* = 0), so π = P[Lap(1) > ε̃(g* − 1 − |t|) + log(1/δ)]; ⊥ with probability 1 − π, else the laplace law.
  Outcomes (class 0, class 1, ⊥).

``gptr.random_stopping`` (Alg 5 with one candidate; algorithms.alg5_ptr_selection): T̂ = min(T, G), G ~ Geometric(τ),
T̂ independent runs of a base mechanism with outcomes ordered by score, the best returned. With F the base CDF in
score order, P[best ≤ s] = E[F(s)^T̂] = h(F(s)),

    h(x) = Σ_{j<T} τ(1−τ)^{j−1} x^j + (1−τ)^{T−1} x^T = τx(1 − r^{T−1})/(1 − r) + (1−τ)^{T−1}x^T,   r = (1−τ)x,

and P[best = s] = h(F(s)) − h(F(s−1)) (formed with 40 extra digits: the differences reach δ*/τ). Base mechanisms
(ε*, δ*)-DP by construction: ``rr`` — two outcomes, X: (e^{ε*}, 1)/(1 + e^{ε*}), X′ the reverse (randomized response;
the best two-outcome base in a search over ε*-DP bases at ε* = 0.5, τ = 0.01: output loss 1.98ε*); ``bot_rr`` — a ⊥
(score −∞) below them, X: (b, (1−b)e^{ε*}/(1+e^{ε*}), (1−b)/(1+e^{ε*})), X′ with ⊥ at b·e^{−ε*} and the rest
reversed, renormalised so every ratio stays within e^{±ε*}; either with ``delta_star`` > 0 gets, on X only, a top
outcome of probability δ* (the other outcomes scaled by 1 − δ*): (ε*, δ*)-DP, infinite loss there.
"""
from __future__ import annotations

import functools

import mpmath
import numpy as np
from mpmath import mp, mpf

from ..base.sgm import witness_order
from ..catalogue import Witness, WitnessUse, register_witness
from ..domains import EPS, Choice, Param
from ..errors import ParameterError
from ..precision import checked_param, log1mexp, logsumexp
from . import spec

SOURCE = "seed 003 (003_dabdd6bee088f80a.txt) Ex B.3.1, Alg 5 / Thm 3.5.6; notes generalized-ptr.md §3.10, §4"


# ---------------------------------------------------------------------------------------------------------------
# A finite pair: laws as mpmath log-probability lists, sampled and evaluated in float64


def _log_lap_tail(s):
    """(log P[Lap(1) > s], log P[Lap(1) ≤ s]) in mpmath."""
    half = -mpmath.log(2)
    if s >= 0:
        up = half - s
        return up, log1mexp(up)
    low = half + s
    return log1mexp(low), low


def finite_log_moment(alpha, lp, lq):
    """log Σ_o P(o)^α Q(o)^{1−α} from the two log-probability lists (+inf where P charges an outcome Q does not and
    α > 1; 0 at α ∈ {0, 1} where the supports agree)."""
    alpha = witness_order(alpha)
    same_support = all((a == -mpmath.inf) == (b == -mpmath.inf) for a, b in zip(lp, lq))
    if same_support and (alpha == 0 or alpha == 1):
        return mpf(0)  # E_Q[1] = E_Q[p/q] = 1 exactly
    terms = []
    for a, b in zip(lp, lq):
        if a == -mpmath.inf:
            continue  # P(o)^α = 0 for α > 0
        if b == -mpmath.inf:
            if alpha > 1:
                return mpf("inf")
            continue
        terms.append(alpha * a + (1 - alpha) * b)
    return logsumexp(terms) if terms else mpf("-inf")


class _Finite:
    """float64 view of a finite pair: outputs are outcome indices (float), densities are table look-ups."""

    def __init__(self, lp, lq):
        self.lp = np.array([float(v) for v in lp])
        self.lq = np.array([float(v) for v in lq])

    def sample(self, rng, n):
        p = np.exp(self.lp)
        cdf = np.cumsum(p)
        cdf /= cdf[-1]
        return np.searchsorted(cdf, rng.random(n), side="right").astype(np.float64).clip(0, len(p) - 1)

    def _look(self, table, o):
        idx = np.asarray(o, dtype=np.float64).astype(np.int64)
        return table[idx]

    def log_p(self, o):
        return self._look(self.lp, o)

    def log_q(self, o):
        return self._look(self.lq, o)

    def bounded(self):
        """{"family": "bounded_loss", ...} when every outcome one law charges the other charges too, else None."""
        live = np.isfinite(self.lp) | np.isfinite(self.lq)  # outcomes neither law charges are never drawn
        if not (np.all(np.isfinite(self.lp[live])) and np.all(np.isfinite(self.lq[live]))):
            return None
        loss = self.lp[live] - self.lq[live]
        lo, hi = float(min(loss.min(), 0.0)), float(max(loss.max(), 0.0))
        return {"family": "bounded_loss", "lo": lo, "hi": hi}


def _memo(fn):
    """``fn`` remembered per (arguments, working precision): the runner evaluates a pair's laws for its sampler and
    both densities at the same parameters (the laws are mpmath values; a hit returns the same objects)."""
    cache: dict = {}

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        key = (tuple(str(a) for a in args), tuple(sorted((k, str(v)) for k, v in kwargs.items())), mp.prec)
        if key not in cache:
            if len(cache) > 512:
                cache.clear()
            cache[key] = fn(*args, **kwargs)
        return cache[key]
    return wrapped


def _register_finite(wid, description, params, laws, note):
    """Register a finite pair whose exact laws are ``laws(**params)`` -> (log P list, log Q list) in mpmath."""
    def np_pair(**kw):
        with mp.workdps(30):
            return _Finite(*laws(**kw))

    def log_moment(alpha, **kw):
        lp, lq = laws(**kw)
        return finite_log_moment(alpha, lp, lq)

    return register_witness(Witness(
        id=wid, description=description, params=params,
        sample=lambda rng, n, **kw: np_pair(**kw).sample(rng, n),
        log_p=lambda o, **kw: np_pair(**kw).log_p(o),
        log_q=lambda o, **kw: np_pair(**kw).log_q(o),
        source=SOURCE, dominating=False, log_moment=log_moment,
        tilt_family=lambda **kw: np_pair(**kw).bounded(),
        note=note))


def exact_hockey_stick(eps, lp, lq):
    """sup_S P(S) − e^ε Q(S) = Σ_o (P(o) − e^ε Q(o))₊ of a finite pair (mpmath)."""
    eps = mpf(eps)
    return mpmath.fsum(max(mpf(0), mpmath.exp(a) - mpmath.exp(eps + b)) for a, b in zip(lp, lq))


# ---------------------------------------------------------------------------------------------------------------
# gptr.binary_procedure (Ex B.3.1)


def _rnm_law(t, eps):
    from .binary_vote import log_p_signed

    return list(log_p_signed(int(t), mpf(eps)))


def classic_pass_log(t, eps_tilde, delta):
    """(log π, log(1 − π)) of Ex B.3.1's classic test t_p > 1, t_p = |t| − log(1/δ)/ε̃ + Lap(1/ε̃)."""
    return _log_lap_tail(mpf(eps_tilde) * (1 - abs(int(t))) - mpmath.log(delta))


def gen_ptr_threshold(eps, eps_prime, delta) -> int:
    """g* = the least g0 ≥ 0 with sup_{g ≥ g0} ε_{δ/2}(g) ≤ ε′, as the reference algorithm computes that sup
    (binary_vote.sup_epsilon_above at t_p = g0; non-increasing in g0, so a bisection finds g*)."""
    from .binary_vote import sup_epsilon_above

    def ok(g0):
        return sup_epsilon_above(float(g0), eps, mpf(delta) / 2) <= float(eps_prime)

    if ok(0):
        return 0
    hi = 1
    while not ok(hi):
        hi *= 2
        if hi > 10**16:
            raise ParameterError("gen_ptr: no gap passes the test (ε′ below every sup of ε(g))")
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def gen_ptr_pass_log(t, eps, eps_tilde, eps_prime, delta, g_star=None):
    """(log π, log(1 − π)) of Ex B.3.1's Gen-PTR test at signed gap t (module docstring)."""
    g = gen_ptr_threshold(eps, eps_prime, delta) if g_star is None else g_star
    if g == 0:
        return mpf(0), mpf("-inf")
    return _log_lap_tail(mpf(eps_tilde) * (g - 1 - abs(int(t))) - mpmath.log(delta))


def procedure_law(procedure, t, eps, eps_tilde, eps_prime, delta, g_star=None):
    """Exact log-probabilities of (class 0, class 1, ⊥) of an Ex B.3.1 procedure at signed gap t (mpmath)."""
    eps, eps_tilde, eps_prime, delta = (mpf(v) for v in (eps, eps_tilde, eps_prime, delta))
    ninf = mpf("-inf")
    if procedure == "laplace":
        return _rnm_law(t, eps) + [ninf]
    if procedure == "classic":
        lp, l1mp = classic_pass_log(t, eps_tilde, delta)
        half = -mpmath.log(2)
        m = 1 if int(t) > 0 else 0
        major, minor = logsumexp([lp, l1mp + half]), l1mp + half
        law = [minor, minor]
        law[m] = major
        return law + [ninf]
    if procedure == "gen_ptr":
        lp, l1mp = gen_ptr_pass_log(t, eps, eps_tilde, eps_prime, delta, g_star)
        return [lp + v for v in _rnm_law(t, eps)] + [l1mp]
    raise ParameterError(f"procedure={procedure!r}: one of {spec.BINARY_PROCEDURE.options}")


@_memo
def _procedure_laws(procedure, eps, eps_tilde, eps_prime, delta, t, t_prime):
    procedure = spec.BINARY_PROCEDURE.check("procedure", procedure)
    eps = checked_param("eps", EPS, eps)
    eps_tilde = checked_param("eps_tilde", spec.POSITIVE, eps_tilde)
    eps_prime = checked_param("eps_prime", EPS, eps_prime)
    delta = checked_param("delta", spec.DELTA, delta)
    t, t_prime = int(t), int(t_prime)
    g = gen_ptr_threshold(eps, eps_prime, delta) if procedure == "gen_ptr" else None
    return (procedure_law(procedure, t, eps, eps_tilde, eps_prime, delta, g),
            procedure_law(procedure, t_prime, eps, eps_tilde, eps_prime, delta, g))


_PROCEDURE_PARAMS = (
    Param("procedure", spec.BINARY_PROCEDURE, "which procedure of Ex B.3.1", example="gen_ptr"),
    Param("eps", EPS, "ε of report-noisy-max", example=1),
    Param("eps_tilde", spec.POSITIVE, "ε̃ > 0, the budget of the private gap bound t_p", example=1),
    Param("eps_prime", EPS, "ε′, Gen-PTR's threshold on the data-dependent ε", example="0.5"),
    Param("delta", spec.DELTA, "δ of the procedures", example="1e-5"),
    Param("t", spec.VOTE_GAP, "signed gap n1 − n0 of X (P's side)", example=25),
    Param("t_prime", spec.VOTE_GAP, "signed gap of the neighbour X′ (t ± 1; Q's side)", example=24),
)

_register_finite(
    "gptr.binary_procedure",
    "Ex B.3.1's procedures end to end: the exact law of (class 0, class 1, ⊥) at gaps t (P) and t′ = t ± 1 (Q)",
    _PROCEDURE_PARAMS, _procedure_laws,
    "Exact output laws of the reference procedures (Laplace tails of the test and of report-noisy-max); "
    "lower-bound witness: the mappings pick the neighbouring gaps with the largest exact hockey-stick at the "
    "procedure's own ε (ex_b3_1_uses).")

CANDIDATE_SPAN = 3  # gaps 0 … SPAN and ±SPAN Laplace scales around the test's transition are searched


def procedure_own_eps(procedure, eps, eps_tilde, eps_prime):
    """The ε at which a procedure's neighbours are ranked: Gen-PTR ε̃ + ε′, classic ε̃, Laplace ε (Ex B.3.1)."""
    return {"gen_ptr": eps_tilde + eps_prime, "classic": eps_tilde, "laplace": eps}[procedure]


def worst_procedure_pair(p, rank="hockey") -> dict:
    """Witness parameters of the neighbouring gaps (t, t′ = t ± 1, both orders) with the largest exact hockey-stick
    at the procedure's own ε (``rank="hockey"``; ties broken at half that ε) or the largest privacy loss
    (``rank="loss"``), among gaps near 0 (where the classes are closest) and around the test's transition. From the
    witness's own laws only."""
    proc = str(p["procedure"])
    with mp.workdps(30):
        eps, et, ep, d = (mpf(p[k]) for k in ("eps", "eps_tilde", "eps_prime", "delta"))
        if not et > 0:
            raise ParameterError("eps_tilde must be > 0 for the witness")
        g = gen_ptr_threshold(eps, ep, d) if proc == "gen_ptr" else 2
        # the test's pass probability moves from 0 to 1 around |t| = g* − 1 + log(1/δ)/ε̃ (classic: g* = 2), over a
        # few Laplace scales 1/ε̃
        centre, scale = g - 1 - mpmath.log(d) / et, 1 / et
        around = {int(mpmath.nint(centre + k * scale / 2)) for k in range(-2 * CANDIDATE_SPAN, 2 * CANDIDATE_SPAN + 1)}
        gaps = sorted({*range(0, CANDIDATE_SPAN + 1), *(u for u in around if u >= 0)})
        target = procedure_own_eps(proc, eps, et, ep)
        best, best_val = None, None
        laws = {u: procedure_law(proc, u, eps, et, ep, d, g if proc == "gen_ptr" else None)
                for u in {*gaps, *(u + 1 for u in gaps)}}
        for u in gaps:
            for a, b in ((u, u + 1), (u + 1, u)):
                lp, lq = laws[a], laws[b]
                if rank == "hockey":  # ties (e.g. δ = 0 at the own ε everywhere) broken at half that ε
                    val = (exact_hockey_stick(target, lp, lq), exact_hockey_stick(target / 2, lp, lq))
                else:
                    val = max(x - y for x, y in zip(lp, lq) if x > -mpmath.inf)
                if best_val is None or val > best_val:
                    best_val, best = val, (a, b)
    return {"procedure": proc, "eps": p["eps"], "eps_tilde": p["eps_tilde"], "eps_prime": p["eps_prime"],
            "delta": p["delta"], "t": best[0], "t_prime": best[1]}


EX_B3_1_USES = (
    WitnessUse("gptr.binary_procedure", lambda p: worst_procedure_pair(p, "hockey"),
               "the procedure end to end at the neighbouring gaps with the largest exact δ at its own ε"),
    WitnessUse("gptr.binary_procedure", lambda p: worst_procedure_pair(p, "loss"),
               "the procedure end to end at the neighbouring gaps with the largest privacy loss"),
)


# ---------------------------------------------------------------------------------------------------------------
# gptr.random_stopping (Alg 5, Thm 3.5.6)

BASES = Choice(("rr", "bot_rr"))
ORDERS = Choice(("PQ", "QP"))
BOT_MASS = mpf("0.5")  # ⊥ mass b of the bot_rr base on X


def base_laws(base, eps_star, delta_star):
    """(P, Q) of the base mechanism in score order (lowest first), mpmath probabilities (module docstring)."""
    e = mpmath.exp(eps_star)
    if base == "rr":
        p = [e / (1 + e), 1 / (1 + e)]
        q = [1 / (1 + e), e / (1 + e)]
    elif base == "bot_rr":
        b = BOT_MASS
        p = [b, (1 - b) * e / (1 + e), (1 - b) / (1 + e)]
        q = [b / e, (1 - b) / (1 + e), (1 - b) * e / (1 + e)]
        s = mpmath.fsum(q)
        q = [v / s for v in q]
    else:
        raise ParameterError(f"base={base!r}: one of {BASES.options}")
    if delta_star > 0:
        p = [v * (1 - delta_star) for v in p] + [delta_star]
        q = q + [mpf(0)]
    return p, q


def stopping_pgf(x, tau, T):
    """h(x) = E[x^T̂], T̂ = min(T, Geometric(τ)) (module docstring)."""
    if x == 0:
        return mpf(0)
    if tau == 1:
        return x
    r = (1 - tau) * x
    head = tau * x * (1 - r ** (T - 1)) / (1 - r) if r != 1 else tau * x * (T - 1)
    return head + (1 - tau) ** (T - 1) * x**T


def stopping_law(probs, tau, T):
    """log P[best = s] for each outcome s of a base law in score order (mpmath, 40 extra digits)."""
    with mp.workdps(mp.dps + 40):
        out, prev, F = [], mpf(0), mpf(0)
        for v in probs:
            F += v
            h = stopping_pgf(min(F, mpf(1)), tau, T)
            d = h - prev
            out.append(mpmath.log(d) if d > 0 else mpf("-inf"))
            prev = h
    return [+v for v in out]


@_memo
def _stopping_laws(eps_star, delta_star, tau, T, base="rr", order="PQ"):
    eps_star = checked_param("eps_star", EPS, eps_star)
    delta_star = checked_param("delta_star", spec.HALF_OPEN_DELTA, delta_star)
    tau = checked_param("tau", spec.TAU, tau)
    T = int(checked_param("T", spec.COUNT, T))
    base = BASES.check("base", base)
    order = ORDERS.check("order", order)
    p, q = base_laws(base, eps_star, delta_star)
    laws = stopping_law(p, tau, T), stopping_law(q, tau, T)
    return laws if order == "PQ" else laws[::-1]


_STOPPING_PARAMS = (
    Param("eps_star", EPS, "ε* of each base run", example="0.5"),
    Param("delta_star", spec.HALF_OPEN_DELTA, "δ* of each base run (an atom on X only)", example=0),
    Param("tau", spec.TAU, "stopping probability τ of G", example="0.05"),
    Param("T", spec.COUNT, "integer cut-off T of Alg 5", example=100),
    Param("base", BASES, "the base mechanism (module docstring)", default="rr", example="rr"),
    Param("order", ORDERS, "PQ: P = output law on X (the side with the δ* atom); QP: the reverse", default="PQ",
          example="PQ"),
)

_register_finite(
    "gptr.random_stopping",
    "Alg 5 end to end (one candidate): the best of min(T, Geometric(τ)) runs of an (ε*, δ*)-DP base, exact law",
    _STOPPING_PARAMS, _stopping_laws,
    "Exact output law through the stopping time's generating function; lower-bound witness (Liu & Talwar's 3ε* is "
    "not attained by these bases: about 2ε* at small τ).")


def _stopping_use(base, order="PQ"):
    def f(p):
        from .algorithms import alg5_cutoff

        T = alg5_cutoff(mpf(p["tau"]), mpf(p["delta_2"]))
        if T > 10**7:
            raise ParameterError("cut-off beyond the witness's range")  # the use does not apply there
        return {"eps_star": p["eps_star"], "delta_star": p["delta_star"], "tau": p["tau"], "T": T, "base": base,
                "order": order}
    return f


THM3_5_6_USES = tuple(
    WitnessUse("gptr.random_stopping", _stopping_use(base, order),
               f"Alg 5 end to end over {what}, integer cut-off ⌈log(1/δ2)/τ⌉, {order}")
    for base, what in (("rr", "randomized response"), ("bot_rr", "⊥ below two randomized-response outcomes"))
    for order in ("PQ", "QP"))
