"""Definition 3.1 of seed 004 ((ε, δ)-differential privacy, L107, eq. (2)) realised for one DC-DPSGD step: the
smallest δ for which the step's dominating pair is (ε, δ)-DP — an upper bound on the step's own δ, equal to it where
the worst case is attained (the slot model with every sample labelled tail; with c2 < c1 and a rule that labels some
samples body, the shift c1 is not reached on every draw) — computed from the definition itself: the supremum over
events Y of
P(M(D) ∈ Y) − e^ε P(M(D') ∈ Y) over both orders of an add/remove neighbouring pair (notes shared/notes/dc-dpsgd.md
§2 D3.1: "computable for a given pair via the hockey-stick divergence").

The output laws (notes §3.3, witness ``dc.joint_step``): one Poisson batch at rate q; the released noisy trace score of
the added sample's slot and the gradient sum's coordinate along z's clipped gradient, in c1 units,

    P = (1 − q)·N(0, S) + q·N((Δ_tr, Δ_gp), S),   Q = N(0, S),   S = diag(σ_tr², σ_dp²),

P the law with z (D' = D ∪ {z}), Q without. Every sound reading of notes §3.4 is this pair: (A) Δ_tr = 0,
Δ_gp = 2 − c2/c1; (B) Δ_tr = 0, Δ_gp = 1; (C) Δ_tr, Δ_gp = 2 − c2/c1 (departing on purpose from the notes' Δ_gp = c1:
with top-⌊pB⌋ labels one sample can push another from tail to body, FINDINGS.md "Seed 004"); the slot model
(dc.reading_c_slot, an algorithm variant) Δ_tr, Δ_gp = 1.

The supremum, from the definition. Whitening and rotating onto the shift, the likelihood ratio p/q depends on the
output only through u = (Δ_tr o₁/σ_tr² + Δ_gp o₂/σ_dp²)/μ, μ² = (Δ_tr/σ_tr)² + (Δ_gp/σ_dp)² (u ~ N(0, 1) under Q
and N(μ, 1) under the z-branch of P), and p/q = 1 − q + q·e^{μu − μ²/2} is increasing in u. By the Neyman–Pearson
lemma the supremum over ALL events is attained at Y* = {p/q > e^ε}:

* remove (P against Q): Y* = {u > t*}, t* = (log((e^ε − 1 + q)/q) + μ²/2)/μ, and
  δ = P(Y*) − e^ε Q(Y*) = q·Φ̄(t* − μ) − (e^ε − 1 + q)·Φ̄(t*)   (Φ̄ = 1 − Φ; ε ≥ 0 keeps e^ε − 1 + q > 0);
* add (Q against P): Y* = {u < s*}, s* = (log((e^{−ε} − 1 + q)/q) + μ²/2)/μ where e^{−ε} > 1 − q, and
  δ = (1 − (1 − q)e^ε)·Φ(s*) − q e^ε·Φ(s* − μ); where e^{−ε} ≤ 1 − q the ratio Q/P never exceeds e^ε: δ = 0;
* max: the larger (Definition 3.1 asks (2) for every ordered neighbouring pair).

This is not a new accountant: it is base.sgm_profile's one-step profile at σ = 1/μ (Zhu, Dong & Wang 2022, which
reduces to the Gaussian profile at a shifted ε instead of locating the event) — a property checks the two agree, and
another that no other event (half-lines off the threshold, intervals, complements) exceeds the value.
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Privacy, Source, Statement, Value, WitnessUse, register
from ..errors import ParameterError
from ..precision import checked_param as _arg, self_checked
from . import spec
from .witnesses import _joint_mu as _mu  # μ_step of the joint pair (notes §3.4), one definition


def _sf(x):
    """Φ̄(x) = P(N(0, 1) > x), without cancellation in the upper tail."""
    return mpmath.ncdf(-x)


def remove_event(eps, q, mu):
    """The optimal event's threshold t* of the remove order ({u > t*}: p/q > e^ε; module docstring)."""
    return (mpmath.log((mpmath.exp(eps) - 1 + q) / q) + mu**2 / 2) / mu


def add_event(eps, q, mu):
    """The optimal event's threshold s* of the add order ({u < s*}: q/p > e^ε), or None where the ratio never
    exceeds e^ε (e^{−ε} ≤ 1 − q)."""
    g = mpmath.exp(-eps) - 1 + q
    if g <= 0:
        return None
    return (mpmath.log(g / q) + mu**2 / 2) / mu


def event_gap(eps, q, mu, lo, hi, order):
    """P(Y) − e^ε Q(Y) of the interval event Y = {lo < u < hi} (lo, hi may be ∓inf) for the order "remove" (P the
    law with z) or "add" (swapped), on the sufficient statistic u (module docstring)."""
    def mass(shift):  # Φ(hi − shift) − Φ(lo − shift), from the tail the interval lies in (no 1 − Φ cancellation)
        a, b = lo - shift, hi - shift
        if a > 0:
            return mpmath.ncdf(-a) - mpmath.ncdf(-b)
        return mpmath.ncdf(b) - mpmath.ncdf(a)
    with_z = (1 - q) * mass(0) + q * mass(mu)
    without = mass(0)
    first, second = (with_z, without) if order == "remove" else (without, with_z)
    return first - mpmath.exp(eps) * second


def _remove_delta(eps, q, mu):
    t = remove_event(eps, q, mu)
    return q * _sf(t - mu) - (mpmath.exp(eps) - 1 + q) * _sf(t)


def _add_delta(eps, q, mu):
    s = add_event(eps, q, mu)
    if s is None:
        return mpf(0)
    return (1 - (1 - q) * mpmath.exp(eps)) * mpmath.ncdf(s) - q * mpmath.exp(eps) * mpmath.ncdf(s - mu)


def _check(eps, q, direction):
    return (_arg("eps", spec.EPS, eps), _arg("q", spec.P_Q.domain, q),
            _arg("direction", spec.DEF_DIRECTION, direction))


@self_checked
def def3_1(eps, q, sigma_tr, sigma_dp, delta_tr=1, delta_gp=1, direction="max"):
    """The smallest δ with which one DC-DPSGD step's dominating pair is (ε, δ)-DP in the sense of seed 004
    Definition 3.1 (L107, eq. (2)) — an upper bound on the step's δ, equal to it where the worst case is attained:
    sup_Y P(M(D) ∈ Y) − e^ε P(M(D') ∈ Y) over every event Y and the chosen order(s) of an add/remove pair,
    for the joint step's output laws (module docstring; notes §2 D3.1, §3.3). The supremum is attained at the
    Neyman–Pearson event {likelihood ratio > e^ε}, a half-line of the sufficient statistic u; never negative."""
    eps, q, direction = _check(eps, q, direction)
    mu = _mu(sigma_tr, sigma_dp, delta_tr, delta_gp)
    parts = []
    if direction in ("remove", "max"):
        parts.append(_remove_delta(eps, q, mu))
    if direction in ("add", "max"):
        parts.append(_add_delta(eps, q, mu))
    return max(max(parts), mpf(0))  # the empty event gives 0: a tiny negative rounding of an exact 0 is not a δ


# ---------------------------------------------------------------------------------------------------------------
# witnesses and properties


def _order(p) -> str:
    """The order of the pair that attains the value at p: the one named, or for "max" the larger (remove on ties),
    compared at 20 digits (a witness mapping, not a bound)."""
    direction = p.get("direction", "max")
    if direction != "max":
        return direction
    with mpmath.workdps(20):
        eps, q, _ = _check(p["eps"], p["q"], "max")
        mu = _mu(p["sigma_tr"], p["sigma_dp"], p.get("delta_tr", 1), p.get("delta_gp", 1))
        return "remove" if _remove_delta(eps, q, mu) >= _add_delta(eps, q, mu) else "add"


def _joint_params(p):
    """dc.joint_step (the 2-D pair itself, remove order) where the remove order attains the value."""
    if _order(p) != "remove":
        raise ParameterError("dc.joint_step is the remove order; the add order is checked on base.sgm")
    return {"q": p["q"], "sigma_tr": p["sigma_tr"], "sigma_dp": p["sigma_dp"], "delta_tr": p.get("delta_tr", 1),
            "delta_gp": p.get("delta_gp", 1)}


def _sgm_params(p):
    """base.sgm at σ = 1/μ (the same pair on its sufficient statistic u) in the order that attains the value: covers
    both orders, as base.sgm_profile's use does."""
    mu = _mu(p["sigma_tr"], p["sigma_dp"], p.get("delta_tr", 1), p.get("delta_gp", 1))
    return {"q": p["q"], "sigma": 1 / mu, "direction": _order(p)}


def _rel():
    """The relative agreement asked of two evaluations at the working precision: 10^(5 − digits)."""
    return mpf(10) ** (5 - mpmath.mp.dps)


def _agrees_with_base_sgm_profile(statement, p):
    """Property: the value (located event) equals base.sgm_profile at σ = 1/μ (ZDW22's shifted-ε reduction, computed
    independently) to 10^(5 − working digits) relative (1e-20 at the reference's 25+; absolute 1e-300 below)."""
    from ..base.sgm_profile import sgm_profile  # noqa: PLC0415

    eps, q, direction = _check(p["eps"], p["q"], p.get("direction", "max"))
    mu = _mu(p["sigma_tr"], p["sigma_dp"], p.get("delta_tr", 1), p.get("delta_gp", 1))
    mine = def3_1(eps, q, p["sigma_tr"], p["sigma_dp"], p.get("delta_tr", 1), p.get("delta_gp", 1), direction)
    theirs = sgm_profile(eps, q, 1 / mu, direction)
    if abs(mine - theirs) > max(_rel() * abs(theirs), mpf("1e-300")):
        raise AssertionError(f"Def 3.1's supremum {mpmath.nstr(mine, 15)} ≠ base.sgm_profile "
                             f"{mpmath.nstr(theirs, 15)} at σ = 1/μ = {mpmath.nstr(1 / mu, 10)}")


def _no_event_exceeds(statement, p):
    """Property (Definition 3.1 quantifies over every event): 60 other events — half-lines with thresholds off t*
    and s*, intervals around them, their complements, everything and nothing — none has P(Y) − e^ε Q(Y) above the
    value (relative slack 10^(5 − working digits)), and the located events attain it."""
    eps, q, direction = _check(p["eps"], p["q"], p.get("direction", "max"))
    mu = _mu(p["sigma_tr"], p["sigma_dp"], p.get("delta_tr", 1), p.get("delta_gp", 1))
    value = def3_1(eps, q, p["sigma_tr"], p["sigma_dp"], p.get("delta_tr", 1), p.get("delta_gp", 1), direction)
    inf = mpmath.inf
    orders = ("remove", "add") if direction == "max" else (direction,)
    slack = _rel() * max(value, mpf("1e-300"))
    for order in orders:
        t = remove_event(eps, q, mu) if order == "remove" else add_event(eps, q, mu)
        centre = t if t is not None else mu / 2
        events = [(-inf, inf), (centre, centre)]
        for h in (mpf("1e-6"), mpf("0.01"), mpf("0.3"), 1, 3):
            for c in (centre - h, centre + h):
                events += [(c, inf), (-inf, c)]
            events += [(centre - h, centre + h), (centre, centre + h), (centre - h, centre)]
        for lo, hi in events:
            gap = event_gap(eps, q, mu, lo, hi, order)
            if gap > value + slack:
                raise AssertionError(f"the event ({mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}) gives "
                                     f"{mpmath.nstr(gap, 15)} > δ = {mpmath.nstr(value, 15)} ({order})")
        if t is not None:
            best = event_gap(eps, q, mu, t, inf, order) if order == "remove" else event_gap(eps, q, mu, -inf, t, order)
            if direction != "max" and abs(best - value) > max(_rel() * value, mpf("1e-300")):
                raise AssertionError(f"the located event gives {mpmath.nstr(best, 15)} ≠ δ {mpmath.nstr(value, 15)}")


register(Statement(
    id="dc.def3_1",
    source=Source(spec.SEED, "Def 3.1", "(ε, δ)-DP (L107, eq. (2)) realised for one DC-DPSGD step: the smallest δ "
                  "at ε, the supremum over events of P(M(D) ∈ Y) − e^ε P(M(D') ∈ Y)"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = sup_Y P(Y) − e^ε Q(Y) of the joint step's laws: remove q Φ̄(t*−μ) − (e^ε−1+q) Φ̄(t*), "
            "t* = (log((e^ε−1+q)/q) + μ²/2)/μ, μ² = (Δ_tr/σ_tr)² + (Δ_gp/σ_dp)²; add the swapped pair; max both",
    params=(spec.P_EPS_DEF, spec.P_Q, spec.P_SIGMA_TR, spec.P_SIGMA_DP, spec.P_DELTA_TR_DEF, spec.P_DELTA_GP_DEF,
            spec.P_DIRECTION_DEF),
    reference=def3_1,
    properties=(_agrees_with_base_sgm_profile, _no_event_exceeds),
    witnesses=(WitnessUse("dc.joint_step", _joint_params, "the joint step's 2-D pair itself (remove order: P the "
                          "law with z); applies where the remove order attains the value"),
               WitnessUse("base.sgm", _sgm_params, "the same pair on its sufficient statistic u (σ = 1/μ), in the "
                          "order that attains the value (both orders)")),
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"eps": -1, "q": +1, "sigma_tr": -1, "sigma_dp": -1, "delta_gp": +1},
    note="Definition 3.1 leaves the neighbouring relation open ('differ in exactly one data point'); Appendix C's "
         "proofs use add/remove in both orders (L907, L985; erratum dc.E7), so direction 'max' is the definition. "
         "One step, not composed: T steps are dc.reading_a/b/c, dc.reading_c_slot (ε at δ, through the base "
         "accountants). Relates: base.sgm_profile is this value at σ = 1/μ (checked as a property: ZDW22 reduce "
         "to the Gaussian profile at a shifted ε, here the event is located); base.gaussian_profile at q = 1 "
         "(Balle & Wang 2018 Thm 8). Pairs of each reading: (A) Δ_tr = 0, Δ_gp = 2 − c2/c1; (B) Δ_tr = 0, "
         "Δ_gp = 1; (C) Δ_gp = 2 − c2/c1; the slot model Δ_gp = 1 (dc.sigma_eff gives 1/μ).",
))
