"""The bound functions of seed 002 (van Dijk et al., arXiv 2212.05796): Defs. 4.3 (f̂U, fU) and 4.4 (f̂L, fL), their
(ε, δ) forms, and Theorems 4.5 / 4.6 and Lemmas C.2 / C.3 instantiated on the exact A1 mixture (notes
shared/notes/batch-clipping-fdp.md §2.5–§2.9, §4.4).

Normalised units (seed 002, §4; notes "Notation"): μ = c/σ, G_μ(α) = Φ(Φ^{-1}(1−α) − μ).

* f̂U(α) = u + (1−u) G_μ(α)  (Def. 4.3, μ = c_U/σ), and fU = min{f̂U, f̂U^{-1}}** (D.14), piecewise
      u + (1−u) G_μ(α) on [0, β0],   β0 + β1 − α on [β0, β1],   G_μ((α−u)/(1−u)) on [β1, 1],
  β0 = Φ(ln(1−u)/μ − μ/2) (where f̂U has slope −1) and β1 = f̂U(β0) = u + (1−u) Φ(−μ/2 − ln(1−u)/μ).
* f̂L(α) = G_μ(min{1, α + l})  (Def. 4.4, μ = c_L/σ), and fL = max{f̂L, f̂L^{-1}} (D.13), piecewise
      G_μ(α) − l on [0, β],   G_μ(min{1, α + l}) on [β, 1],   β the root of G_μ(β) − l = β.

(ε, δ) forms (ε ≥ 0; derived in the notes §2.5/§2.6 and re-derived here from δ(ε) = sup_α [1 − f(α) − e^ε α],
DRS Prop. 2.12; tests/bc/test_bc_bounds.py checks each against that supremum numerically):
* δ_{fU}(ε) = (1−u) δ_{G_μ}(ε − ln(1−u)): for ε ≥ 0 the maximiser has slope −e^ε ≤ −1, so it lies on the first
  piece, where 1 − f̂U − e^ε α = (1−u)[1 − G_μ(α) − e^{ε − ln(1−u)} α].
* δ_{fL}(ε) = l + δ_{G_μ}(ε) if e^ε ≥ s_β, and 1 − β(1 + e^ε) otherwise, with s_β = −G_μ'(β) = e^{μ z_β − μ²/2},
  z_β = Φ^{-1}(1 − β): on [0, β] the unconstrained maximiser of 1 − G_μ(α) + l − e^ε α lies left of β iff
  e^ε ≥ s_β; beyond β the slope of fL is −1/s_β ≥ −1 ≥ −e^ε, so the objective decreases there; fL(β) = β.
"""
from __future__ import annotations

import functools

import mpmath
from mpmath import mp, mpf

from .._normal import log_ndtr, ndtr
from .._solve import root
from ..base.fdp import gdp_tradeoff
from ..base.gaussian import delta_shift, gaussian_eps
from ..base.spec import TYPE_I
from ..catalogue import Privacy, Source, Statement, Value, WitnessUse, register
from ..domains import DELTA, EPS, Param
from ..precision import logsumexp, self_checked
from .qe import qe_conditions, qe_law
from .witnesses import a1_use, fl_use, fu_use
from .spec import P_C_L, P_C_U, P_L, P_SIGMA, P_U, QE_PARAMS, SEED

NOTES = "shared/notes/batch-clipping-fdp.md"
P_ALPHA = Param("alpha", TYPE_I, "type-I error α", example="0.1")
P_EPS = Param("eps", EPS, "ε ≥ 0", example=1)
P_DELTA = Param("delta", DELTA, "δ ∈ (0, 1)", example="1e-5")

# The conditions of Algorithm 1 that every q_E needs (helper of reference/bc/qe.py: spec.py's words, its predicates).
QE_CHECKS = qe_conditions()


def _G(alpha, mu):
    """G_μ(α) with G_μ(x) = 1 for x ≤ 0 and 0 for x ≥ 1 (the convention of seed 002, D.14)."""
    if alpha <= 0:
        return mpf(1)
    if alpha >= 1:
        return mpf(0)
    return gdp_tradeoff(alpha, mu)


# ---------------------------------------------------------------------------------------------------------------
# Definition 4.3: f̂U and fU

def _fu_kinks(c_U, u, sigma):
    """(β0, t1) with β1 = u + t1, t1 = (1−u) Φ(−μ/2 − ln(1−u)/μ): β1 − α is formed as (u − α) + t1, which keeps the
    linear piece's value β0 + β1 − α accurate where β1 ≈ α (β0, t1 ~ 1e-43 at μ = 27.5 beside u = 0.5)."""
    mu, log1mu = c_U / sigma, mpmath.log1p(-u)
    return ndtr(log1mu / mu - mu / 2), (1 - u) * ndtr(-mu / 2 - log1mu / mu)


def fu_betas(c_U, u, sigma):
    """(β0, β1) of Def. 4.3 (seed 002, Def. 4.3 and D.14; notes §2.5): β0 = 1 − Φ(c_U/(2σ) − (σ/c_U) ln(1−u)),
    β1 = u + (1−u)(1 − Φ(c_U/(2σ) + (σ/c_U) ln(1−u))); (0, 1) at u = 1 (then fU(α) = 1 − α)."""
    if u == 1:
        return mpf(0), mpf(1)
    beta0, t1 = _fu_kinks(c_U, u, sigma)
    return beta0, u + t1


@self_checked
def fu_hat(alpha, c_U, u, sigma):
    """f̂U_{c_U}(α) = u + (1−u) G_{c_U/σ}(α) (seed 002, Def. 4.3). An upper bound on the exact A1 trade-off f when
    u ≥ Σ_{c < c_U} q_E(c) (Thm 4.5); not itself a trade-off function (f̂U(α) > 1 − α near α = 1 when u > 0)."""
    return u + (1 - u) * _G(alpha, c_U / sigma)


@self_checked
def fu(alpha, c_U, u, sigma):
    """fU_{c_U}(α) = min{f̂U, f̂U^{-1}}**(α) (seed 002, Def. 4.3; D.14 with its G_{c_L/σ} typo read as G_{c_U/σ}):
    u + (1−u) G_μ(α) on [0, β0], β0 + β1 − α on [β0, β1], G_μ((α−u)/(1−u)) on [β1, 1], μ = c_U/σ (notes §2.5).
    A symmetric trade-off function; fU = 1 − α at u = 1 and fU = G_μ at u = 0."""
    if u == 1:
        return 1 - alpha
    beta0, t1 = _fu_kinks(c_U, u, sigma)
    mu = c_U / sigma
    if alpha <= beta0:
        return u + (1 - u) * _G(alpha, mu)
    if alpha - u <= t1:  # α ≤ β1
        return beta0 + ((u - alpha) + t1)
    return _G((alpha - u) / (1 - u), mu)


@self_checked
def fu_delta(eps, c_U, u, sigma):
    """δ(ε) of fU for ε ≥ 0 (seed 002, Def. 4.3; closed form of notes §2.5, derived in the module docstring):
    δ_{fU}(ε) = (1−u) δ_{G_μ}(ε − ln(1−u)), μ = c_U/σ, δ_{G_μ} of eq. (7); 0 at u = 1."""
    if u == 1:
        return mpf(0)
    return (1 - u) * delta_shift(eps - mpmath.log1p(-u), c_U / sigma)


@self_checked
def fu_eps(delta, c_U, u, sigma):
    """The smallest ε ≥ 0 with δ_{fU}(ε) ≤ δ (seed 002, Def. 4.3 with notes §2.5):
    ε = max{0, ln(1−u) + ε_{G_μ}(δ/(1−u))}, and 0 when δ ≥ 1 − u (δ_{fU} ≤ 1 − u everywhere)."""
    if u == 1 or delta >= 1 - u:
        return mpf(0)
    return max(mpf(0), mpmath.log1p(-u) + gaussian_eps(delta / (1 - u), sigma / c_U))


# ---------------------------------------------------------------------------------------------------------------
# Definition 4.4: f̂L and fL

def _fl_z(mu, l):
    """:func:`_fl_z_at` cached per (μ, l, working precision): fL needs it at every α (tradeoff_profile's search calls
    fL hundreds of times)."""
    return _fl_z_cached(mpf(mu), mpf(l), mp.prec)


@functools.lru_cache(maxsize=256)
def _fl_z_cached(mu, l, prec):
    with mp.workprec(prec):
        return _fl_z_at(mu, l)


def _fl_z_at(mu, l):
    """z_β = Φ^{-1}(1 − β) for the β of Def. 4.4: G_μ(β) − l = β ⟺ Φ(z − μ) − Φ(−z) = l (β = Φ(−z)), whose left side
    increases in z from 0 at z = μ/2. For l ≤ 1/2 that difference is solved as it stands (exact 0 at z = μ/2, so a
    tiny l such as 1e-308 keeps its sign); for l > 1/2 as log(Φ(μ − z) + Φ(−z)) = log(1 − l), so that β keeps its
    relative precision when l is near 1 and β is tiny. +inf at l = 1 (β = 0)."""
    if l == 0:
        return mu / 2
    if l == 1:
        return mpf("inf")
    if l <= mpf(1) / 2:
        h = lambda z: l - (ndtr(z - mu) - ndtr(-z))  # decreasing in z
    else:
        target = mpmath.log1p(-l)
        h = lambda z: logsumexp([log_ndtr(mu - z), log_ndtr(-z)]) - target  # decreasing in z
    lo, hi = mu / 2, mu / 2 + 1
    while h(hi) > 0:
        lo, hi = hi, 2 * hi
    return root(h, lo, hi)


@self_checked
def fl_beta(c_L, l, sigma):
    """β of Def. 4.4 (seed 002, Def. 4.4 and D.13): the unique root in [0, 1] of G_{c_L/σ}(β) − l = β (the fixed
    point of fL); Φ(−c_L/(2σ)) at l = 0 and 0 at l = 1."""
    return ndtr(-_fl_z(c_L / sigma, l))


@self_checked
def fl_hat(alpha, c_L, l, sigma):
    """f̂L_{c_L}(α) = G_{c_L/σ}(min{1, α + l}) (seed 002, Def. 4.4). A lower bound on the exact A1 trade-off f when
    l ≥ Σ_{c > c_L} q_E(c) (Thm 4.6, Lemma C.2); not symmetric (its inverse is
    max{0, G_μ(α) − l}, D.13)."""
    return _G(alpha + l, c_L / sigma)


def _minus_l(value_fn, l):
    """value_fn() − l with enough guard digits for the cancellation (fL's first piece near l ≈ G_μ(α))."""
    extra = 15
    while True:
        with mp.workdps(mp.dps + extra):
            v = value_fn()
            d = v - l
        if d == 0 or v == 0:
            return +d
        lost = int(mpmath.log10(abs(v) / abs(d))) if d != 0 else extra
        if lost + 5 <= extra or extra > 1000:
            return +d
        extra = lost + 15


@self_checked
def fl(alpha, c_L, l, sigma):
    """fL_{c_L}(α) = max{f̂L, f̂L^{-1}}(α) (seed 002, Def. 4.4, D.13): G_μ(α) − l on [0, β] and G_μ(min{1, α + l})
    on [β, 1], μ = c_L/σ, β = :func:`fl_beta`. A symmetric trade-off function with fL(0) = 1 − l (so every (ε, δ)
    from it has δ ≥ l, notes §2.6)."""
    mu = c_L / sigma
    beta = ndtr(-_fl_z(mu, l))
    if alpha <= beta:
        return _minus_l(lambda: _G(alpha, mu), l)
    return _G(alpha + l, mu)


@self_checked
def fl_delta(eps, c_L, l, sigma):
    """δ(ε) of fL for ε ≥ 0 (seed 002, Def. 4.4; closed form of notes §2.6, derived in the module docstring):
    l + δ_{G_μ}(ε) if ε ≥ ln s_β = μ z_β − μ²/2, else 1 − β(1 + e^ε); 1 at l = 1 (fL ≡ 0 on (0, 1])."""
    if l == 1:
        return mpf(1)
    mu = c_L / sigma
    z = _fl_z(mu, l)
    if eps >= mu * z - mu * mu / 2:
        return l + delta_shift(eps, mu)
    return 1 - ndtr(-z) * (1 + mpmath.exp(eps))


@self_checked
def fl_eps(delta, c_L, l, sigma):
    """The smallest ε ≥ 0 with δ_{fL}(ε) ≤ δ (seed 002, Def. 4.4 with notes §2.6); +inf when δ ≤ l (δ_{fL} > l for
    every finite ε: the δ-floor of Lemma C.2, notes §6 item 6). Closed form on the second piece, e^ε = (1−δ)/β − 1;
    otherwise the Gaussian ε_{G_μ}(δ − l)."""
    if delta <= l:
        return mpf("inf")
    mu = c_L / sigma
    z = _fl_z(mu, l)
    beta = ndtr(-z)
    log_s = mu * z - mu * mu / 2
    kink = l + delta_shift(log_s, mu)  # δ at e^ε = s_β, where the two pieces meet
    if delta >= kink:
        if delta >= 1 - 2 * beta:
            return mpf(0)
        return max(mpf(0), mpmath.log((1 - delta) / beta - 1))
    return gaussian_eps(delta - l, sigma / c_L)


# ---------------------------------------------------------------------------------------------------------------
# Registration: the definitions

_DEF_PRIVACY = Privacy("replace_one", "both", "n/a")

register(Statement(
    id="bc.def4_3",
    fast="dpspec.fast.bc.bounds:fu",
    source=Source(SEED, "Definition 4.3", "the symmetric upper-bound function fU = min{f̂U, f̂U^{-1}}** (D.14)"),
    kind="tradeoff",
    claim="exact",
    value=Value("beta", "alpha"),
    summary="fU(α) = u + (1−u)G_μ(α) on [0,β0]; β0+β1−α on [β0,β1]; G_μ((α−u)/(1−u)) on [β1,1]; μ = c_U/σ",
    params=(P_ALPHA, P_C_U, P_U, P_SIGMA),
    reference=fu,
    witnesses=(WitnessUse("bc.fu_pair", fu_use, "fU as a mechanism (notes §3.4)"),),
    privacy=_DEF_PRIVACY,
    monotone={"alpha": -1, "c_U": -1, "u": +1, "sigma": +1},
    note="The function of Def. 4.3 itself (exact); it bounds the A1 trade-off from above in bc.thm4_5. f̂U is "
         "bc.def4_3_hat (its own id: a different function, not a printed form).",
))

register(Statement(
    id="bc.def4_3_hat",
    fast="dpspec.fast.bc.bounds:fu_hat",
    source=Source(SEED, "Definition 4.3", "the upper-bound function f̂U = u + (1−u)G_{c_U/σ}"),
    kind="tradeoff",
    claim="exact",
    value=Value("beta", "alpha"),
    summary="f̂U(α) = u + (1−u) G_{c_U/σ}(α)",
    params=(P_ALPHA, P_C_U, P_U, P_SIGMA),
    reference=fu_hat,
    privacy=_DEF_PRIVACY,
    monotone={"alpha": -1, "c_U": -1, "u": +1, "sigma": +1},
    note="Not a trade-off function for u > 0 (it exceeds 1 − α near α = 1); fU ≤ f̂U.",
))

register(Statement(
    id="bc.def4_3_profile",
    fast="dpspec.fast.bc.bounds:fu_delta",
    source=Source(SEED, "Definition 4.3 (its (ε, δ) form; notes §2.5)", "δ(ε) of fU in closed form"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ_{fU}(ε) = (1−u) δ_{G_{c_U/σ}}(ε − ln(1−u)), ε ≥ 0",
    params=(P_EPS, P_C_U, P_U, P_SIGMA),
    reference=fu_delta,
    witnesses=(WitnessUse("bc.fu_pair", fu_use, "fU as a mechanism (notes §3.4)"),),
    privacy=_DEF_PRIVACY,
    monotone={"eps": -1, "c_U": +1, "u": -1, "sigma": -1},
))

register(Statement(
    id="bc.def4_4",
    fast="dpspec.fast.bc.bounds:fl",
    source=Source(SEED, "Definition 4.4", "the symmetric lower-bound function fL = max{f̂L, f̂L^{-1}} (D.13)"),
    kind="tradeoff",
    claim="exact",
    value=Value("beta", "alpha"),
    summary="fL(α) = G_μ(α) − l on [0,β]; G_μ(min{1, α+l}) on [β,1]; G_μ(β) − l = β; μ = c_L/σ",
    params=(P_ALPHA, P_C_L, P_L, P_SIGMA),
    reference=fl,
    witnesses=(WitnessUse("bc.fl_pair", fl_use, "fL as a mechanism (notes §3.4)"),),
    privacy=_DEF_PRIVACY,
    monotone={"alpha": -1, "c_L": -1, "l": -1, "sigma": +1},
    note="The function of Def. 4.4 itself (exact); it bounds the A1 trade-off from below in bc.thm4_6. f̂L is "
         "bc.def4_4_hat.",
))

register(Statement(
    id="bc.def4_4_hat",
    fast="dpspec.fast.bc.bounds:fl_hat",
    source=Source(SEED, "Definition 4.4", "the lower-bound function f̂L = G_{c_L/σ}(min{1, α + l})"),
    kind="tradeoff",
    claim="exact",
    value=Value("beta", "alpha"),
    summary="f̂L(α) = G_{c_L/σ}(min{1, α + l})",
    params=(P_ALPHA, P_C_L, P_L, P_SIGMA),
    reference=fl_hat,
    privacy=_DEF_PRIVACY,
    monotone={"alpha": -1, "c_L": -1, "l": -1, "sigma": +1},
    note="Not symmetric; f̂L ≤ fL.",
))

register(Statement(
    id="bc.def4_4_profile",
    fast="dpspec.fast.bc.bounds:fl_delta",
    source=Source(SEED, "Definition 4.4 (its (ε, δ) form; notes §2.6)", "δ(ε) of fL in closed form"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ_{fL}(ε) = l + δ_{G_μ}(ε) if e^ε ≥ s_β, else 1 − β(1 + e^ε); s_β = −G_μ'(β)",
    params=(P_EPS, P_C_L, P_L, P_SIGMA),
    reference=fl_delta,
    witnesses=(WitnessUse("bc.fl_pair", fl_use, "fL as a mechanism (notes §3.4)"),),
    privacy=_DEF_PRIVACY,
    monotone={"eps": -1, "c_L": +1, "l": +1, "sigma": -1},
))


# ---------------------------------------------------------------------------------------------------------------
# Theorems 4.5 / 4.6 and Lemmas C.2 / C.3 on the exact A1 mixture

def c2_max(sampling, N, m, s, g, E) -> int:
    """An upper bound on c² (seed 002, Def. 4.1): L ≤ min{m, g} per round, so c² ≤ T·min{m,g}² under subsampling
    (T = E·N/(ms)); Σ_b L_b² ≤ max_b L_b · Σ_b L_b ≤ min{m,g}·g per shuffled epoch, so c² ≤ E·g·min{m,g}."""
    N, m, s, g, E = int(N), int(m), int(s), int(g), int(E)
    if sampling == "subsampling":
        return E * (N // (m * s)) * min(m, g) ** 2
    return E * g * min(m, g)


def exact_tail_below(sampling, N, m, s, g, E, c2):
    """u′ = Σ_{c′² < c2} q_E(c′) (seed 002, D.11; Def. 4.1's q_E from reference/bc/qe.py, exact); ``c2`` is the
    squared cut point (so an integer cut such as gE is compared exactly). Mass that qe.py dropped (below
    10^−(dps+30), counted at c² = +∞) is added back when it may have come from below c2 (``Law.dropped_from``): a
    larger u only weakens the upper bounds that use it, so they stay valid."""
    law = qe_law(sampling, int(N), int(m), int(s), int(g), int(E))
    extra = law.dropped if law.dropped and law.dropped_from < c2 else 0
    return law.tail_below(c2) + extra


def exact_tail_above(sampling, N, m, s, g, E, c2):
    """l′ = Σ_{c′² > c2} q_E(c′) (seed 002, D.11; exact, dropped mass counted at +inf c²); ``c2`` squared. Exactly 0
    when c2 is at least :func:`c2_max` (the dropped mass lies below that too), so that a cut beyond every possible c²
    does not carry a precision-dependent 10^−(dps+30) into G_{c_L/σ}(l)."""
    if c2 >= c2_max(sampling, N, m, s, g, E):
        return mpf(0)
    law = qe_law(sampling, int(N), int(m), int(s), int(g), int(E))
    above = law.tail_above(c2)
    if above > mpf(1) / 2:
        # the complement of the small side: q_E sums to 1 exactly (dropped mass counted above), so this is the same
        # l without the summation's rounding — where every c² lies above c2 (e.g. N = ms) it is exactly 1, where the
        # sum of the masses was 1 − O(10^-dps) and fL(0) = 1 − l differed between the two self-check precisions
        return 1 - (law.tail_below(c2) + law.mass_at(c2))
    return above


@self_checked
def thm4_5(alpha, sampling, N, m, s, g, E, sigma, c_U):
    """Theorem 4.5 (seed 002): in model A1 every h with M h-DP satisfies h ≤ fU_{c_U} ≤ f̂U_{c_U}; here with the
    exact tail u = Σ_{c < c_U} q_E(c) (the smallest u Def. 4.3 admits), so the value fU(α) is an upper bound on the
    exact A1 trade-off f of Def. 4.2. Proof route: Lemma C.3 via D.11, then D.12 (symmetrisation)."""
    u = exact_tail_below(sampling, N, m, s, g, E, c_U * c_U)
    return fu(alpha, c_U, u, sigma)


@self_checked
def thm4_6(alpha, sampling, N, m, s, g, E, sigma, c_L):
    """Theorem 4.6 (seed 002): in model A1, M is f-DP and f ≥ fL_{c_L} ≥ f̂L_{c_L}; here with the exact tail
    l = Σ_{c > c_L} q_E(c), so the value fL(α) is a lower bound on the exact A1 trade-off f (a valid guarantee).
    Proof route: Lemma C.2 via D.11 (lower chain), then D.12/D.13."""
    l = exact_tail_above(sampling, N, m, s, g, E, c_L * c_L)
    return fl(alpha, c_L, l, sigma)


@self_checked
def thm4_5_profile(eps, sampling, N, m, s, g, E, sigma, c_U):
    """δ(ε) of Theorem 4.5's fU with the exact tail (seed 002, Thm 4.5 and Def. 4.3; notes §2.5): a lower bound on
    the A1 mixture's δ(ε), since f ≤ fU."""
    return fu_delta(eps, c_U, exact_tail_below(sampling, N, m, s, g, E, c_U * c_U), sigma)


@self_checked
def thm4_6_profile(eps, sampling, N, m, s, g, E, sigma, c_L):
    """δ(ε) of Theorem 4.6's fL with the exact tail (seed 002, Thm 4.6 and Def. 4.4; notes §2.6): an upper bound on
    the A1 mixture's δ(ε) (a valid (ε, δ) guarantee), since f ≥ fL."""
    return fl_delta(eps, c_L, exact_tail_above(sampling, N, m, s, g, E, c_L * c_L), sigma)


@self_checked
def lemma_c2(alpha, sampling, N, m, s, g, E, sigma, c_L):
    """Lemma C.2 (seed 002) on the A1 mixture of Gaussians G_{c/σ} with weights q_E(c) (D.11, eq. (18) lower chain):
    with p = Σ_{c > c_L} q_E(c) (the less private components), T(M(d), M(d′))(α) ≥ f(α) ≥ G_{c_L/σ}(min{1, α + p}).
    (Components c ≤ c_L satisfy G_{c/σ} ≥ G_{c_L/σ}, so the lemma's f_t may be G_{c_L/σ} for any cut c_L.)"""
    return fl_hat(alpha, c_L, exact_tail_above(sampling, N, m, s, g, E, c_L * c_L), sigma)


@self_checked
def lemma_c3(alpha, sampling, N, m, s, g, E, sigma, c_U):
    """Lemma C.3 (seed 002) on the A1 mixture (D.11, eq. (17)–(18) upper chain): with p = Σ_{c < c_U} q_E(c) (the more
    private components), T(M(d), M^{sim}(d′))(α) ≤ p + (1−p) G_{c_U/σ}(min{1, α/(1−p)}); 1 at p = 1.

    Valid with the component label visible (model A1), without log-concavity; for hidden labels the proof's single
    threshold test does not give it (notes §2.9, 'Doubt')."""
    p = exact_tail_below(sampling, N, m, s, g, E, c_U * c_U)
    if p == 1:
        return mpf(1)
    return p + (1 - p) * _G(min(mpf(1), alpha / (1 - p)), c_U / sigma)


_A1_PRIVACY = Privacy("replace_one", "both", "without_replacement")
_QE_MONO = {"alpha": -1, "sigma": +1}
_P_C_U = Param("c_U", P_C_U.domain, "cut point c_U (in c units, not squared); u = Σ_{c<c_U} q_E(c) exactly",
               example=2)
_P_C_L = Param("c_L", P_C_L.domain, "cut point c_L (in c units, not squared); l = Σ_{c>c_L} q_E(c) exactly",
               example=3)

register(Statement(
    id="bc.thm4_5",
    fast="dpspec.fast.bc.bounds:thm4_5",
    source=Source(SEED, "Theorem 4.5", "upper bound fU on the A1 trade-off function (no better guarantee exists)"),
    kind="tradeoff",
    claim="upper",
    value=Value("beta", "alpha"),
    summary="f(α) ≤ fU_{c_U}(α) ≤ f̂U_{c_U}(α), u = Σ_{c<c_U} q_E(c) (exact)",
    params=(P_ALPHA, *QE_PARAMS, P_SIGMA, _P_C_U),
    reference=thm4_5,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use(), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=QE_CHECKS,
    privacy=_A1_PRIVACY,
    monotone=_QE_MONO,
    note="Model A1 only: it does not bound the standard (A0) trade-off function (notes §2.7, §6 item 2).",
))

register(Statement(
    id="bc.thm4_6",
    fast="dpspec.fast.bc.bounds:thm4_6",
    source=Source(SEED, "Theorem 4.6", "lower bound fL on the A1 trade-off function (a DP guarantee)"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f(α) ≥ fL_{c_L}(α) ≥ f̂L_{c_L}(α), l = Σ_{c>c_L} q_E(c) (exact)",
    params=(P_ALPHA, *QE_PARAMS, P_SIGMA, _P_C_L),
    reference=thm4_6,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use(), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=QE_CHECKS,
    privacy=_A1_PRIVACY,
    monotone=_QE_MONO,
    note="The theorem's first claim (M is f-DP with Def. 4.2's f) is bc.def4_2; this entry is its sandwich part.",
))

register(Statement(
    id="bc.thm4_5_profile",
    fast="dpspec.fast.bc.bounds:thm4_5_profile",
    source=Source(SEED, "Theorem 4.5 ((ε, δ) form; notes §2.5)", "δ(ε) of fU with the exact tail"),
    kind="profile",
    claim="lower",
    value=Value("delta", "eps"),
    summary="δ_f(ε) ≥ (1−u) δ_{G_{c_U/σ}}(ε − ln(1−u)), u = Σ_{c<c_U} q_E(c)",
    params=(P_EPS, *QE_PARAMS, P_SIGMA, _P_C_U),
    reference=thm4_5_profile,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use(), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=QE_CHECKS,
    privacy=_A1_PRIVACY,
    monotone={"eps": -1, "sigma": -1},
))

def above_the_exact_profile(statement, params):
    """A property check of bc.thm4_6_profile: Theorem 4.6's fL is a lower bound on the exact A1 trade-off f, so
    its δ_{fL}(ε) is at least the exact δ_f(ε) of bc.a1_profile at the same point (an upper bound made too small
    — rescaled or misread — falls below it where the bound is tight)."""
    from ..catalogue import get

    value = statement.reference(**params)
    exact = get("bc.a1_profile").reference(**{k: params[k] for k in ("eps", "sampling", "N", "m", "s", "g", "E",
                                                                      "sigma")})
    if value < exact * (1 - mpf(10) ** -10):
        raise AssertionError(f"{statement.id} = {mpmath.nstr(value, 12)} is below the exact A1 δ(ε) = "
                             f"{mpmath.nstr(exact, 12)} (bc.a1_profile) at the same point")


above_the_exact_profile.why = "an upper bound on the A1 δ(ε) cannot fall below the exact A1 δ(ε) (bc.a1_profile)"


register(Statement(
    id="bc.thm4_6_profile",
    fast="dpspec.fast.bc.bounds:thm4_6_profile",
    source=Source(SEED, "Theorem 4.6 ((ε, δ) form; notes §2.6)", "δ(ε) of fL with the exact tail"),
    kind="profile",
    claim="upper",
    value=Value("delta", "eps"),
    summary="δ_f(ε) ≤ δ_{fL}(ε), l = Σ_{c>c_L} q_E(c)",
    params=(P_EPS, *QE_PARAMS, P_SIGMA, _P_C_L),
    reference=thm4_6_profile,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use(), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=QE_CHECKS,
    privacy=_A1_PRIVACY,
    monotone={"eps": -1, "sigma": -1},
    properties=(above_the_exact_profile,),
))

register(Statement(
    id="bc.lemma_c2",
    fast="dpspec.fast.bc.bounds:lemma_c2",
    source=Source(SEED, "Lemma C.2", "lower bound of a mixture by its cut component (here the A1 Gaussian mixture)"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f(α) ≥ G_{c_L/σ}(min{1, α + Σ_{c>c_L} q_E(c)})",
    params=(P_ALPHA, *QE_PARAMS, P_SIGMA, _P_C_L),
    reference=lemma_c2,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use(), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=QE_CHECKS,
    privacy=_A1_PRIVACY,
    monotone=_QE_MONO,
    note="The lemma is stated for any ordered mixture f_1 ≤ f_2 ≤ …; dpspec instantiates it on the text's only use, "
         "the A1 mixture of G_{c/σ} with weights q_E (D.11), with the cut at c_L rather than at a component index.",
))

register(Statement(
    id="bc.lemma_c3",
    fast="dpspec.fast.bc.bounds:lemma_c3",
    source=Source(SEED, "Lemma C.3", "upper bound of a mixture by its cut component (here the A1 Gaussian mixture)"),
    kind="tradeoff",
    claim="upper",
    value=Value("beta", "alpha"),
    summary="f(α) ≤ p + (1−p) G_{c_U/σ}(min{1, α/(1−p)}), p = Σ_{c<c_U} q_E(c)",
    params=(P_ALPHA, *QE_PARAMS, P_SIGMA, _P_C_U),
    reference=lemma_c3,
    witnesses=(WitnessUse("bc.a1_mixture", a1_use(), "the label-visible A1 mixture (notes §3.2)"),),
    conditions=QE_CHECKS,
    privacy=_A1_PRIVACY,
    monotone=_QE_MONO,
    note="Valid with visible labels (A1), the setting of the text's only use (D.11); its proof does not cover hidden "
         "labels (notes §2.9). Tighter than f̂U (D.11 weakens it to u + (1−u)G(α)).",
))
