"""Heterogeneous (ε, δ) composition: the optimal δ_g(ε_g) of k adaptively composed mechanisms that are (εᵢ, δᵢ)-DP
with different parameters (Murtagh & Vadhan, "The Complexity of Computing the Optimal Composition of Differential
Privacy", TCC 2016, arXiv 1507.03113v3, Thm 1.5), and its corollary at ε_g = Σεᵢ: (Σεᵢ, 1 − Π(1 − δᵢ)).

Murtagh–Vadhan Thm 1.5: the composition is (ε_g, δ_g)-DP iff

    (1/Π(1 + e^{εᵢ})) · Σ_{S ⊆ [k]} (e^{Σ_{i∈S} εᵢ} − e^{ε_g} e^{Σ_{i∉S} εᵢ})₊  ≤  1 − (1 − δ_g)/Π(1 − δᵢ),

so the optimal δ_g(ε_g) = 1 − Π(1 − δᵢ)·(1 − A(ε_g)) with A the left side; it is attained by the product of KOV15's
canonical pairs (witness ``base.kov15_heterogeneous_canonical``), and with all εᵢ, δᵢ equal it is KOV15 Thm 3.3
(``base.kov15_profile``). Computing it is #P-complete in general (their Thm 1.7); here equal εᵢ are grouped, so the
sum runs over Π(mⱼ + 1) count vectors for groups of sizes mⱼ (at most MAX_TERMS, else ParameterError). At
ε_g = Σεᵢ no term is positive (e^{a} ≤ e^{Σεᵢ}·e^{Σεᵢ − a}), which gives the heterogeneous basic composition
δ_g = 1 − Π(1 − δᵢ) (KOV15 Thm 3.5's ε-free part; Dwork & Roth Thm 3.16 is the looser Σδᵢ).

Mechanisms are given as ``mechanisms``, a (k, 2) array with rows (εᵢ, δᵢ), εᵢ ≥ 0, δᵢ ∈ [0, 1).
"""
from __future__ import annotations

import itertools
import math

import mpmath
import numpy as np
from mpmath import mpf

from ..catalogue import Privacy, Source, Statement, Value, Witness, WitnessUse, register, register_witness
from ..domains import EPS, Param, Points
from ..errors import DomainError, ParameterError
from ..precision import log1mexp, logsumexp, self_checked
from .composition import _canonical_probs

MURTAGH_VADHAN = ("Murtagh & Vadhan, The Complexity of Computing the Optimal Composition of Differential Privacy, "
                  "TCC 2016, arXiv 1507.03113v3")
MAX_TERMS = 200_000  # count vectors summed (Π(mⱼ + 1) over the groups of equal εᵢ)
MECHANISMS_DOMAIN = "a (k, 2) array of rows (eps_i, delta_i) with k >= 1, eps_i >= 0, 0 <= delta_i < 1"


def _mechanisms(mechanisms) -> np.ndarray:
    """The (k, 2) float array of (εᵢ, δᵢ), or DomainError naming the offending value."""
    arr = Points().check("mechanisms", mechanisms)
    if arr.shape[0] < 1 or arr.shape[1] != 2:
        raise DomainError("mechanisms", f"an array of shape {arr.shape}", MECHANISMS_DOMAIN)
    eps, delta = arr[:, 0], arr[:, 1]
    bad = np.flatnonzero((eps < 0) | (delta < 0) | (delta >= 1))
    if bad.size:
        i = int(bad[0])
        raise DomainError("mechanisms", f"row {i} = ({eps[i]!r}, {delta[i]!r})", MECHANISMS_DOMAIN)
    return arr


def _groups(arr: np.ndarray) -> list[tuple[mpf, int]]:
    """(εⱼ, mⱼ): the distinct ε values (exact: each float is an mpf exactly) and how often each occurs."""
    values, counts = np.unique(arr[:, 0], return_counts=True)
    return [(mpf(float(v)), int(c)) for v, c in zip(values, counts)]


def _log_one_minus_delta_product(arr: np.ndarray) -> mpf:
    """log Π(1 − δᵢ) = Σ log1p(−δᵢ)."""
    return mpmath.fsum(mpmath.log1p(-mpf(float(d))) for d in arr[:, 1])


def _log_a(groups: list[tuple[mpf, int]], eps_total) -> mpf:
    """log A(ε_g), A = Σ_S (e^{a_S} − e^{ε_g + b_S})₊ / Π(1 + e^{εᵢ}) with a_S = Σ_{i∈S} εᵢ, b_S = Σ εᵢ − a_S;
    −inf when no term is positive. Summed over count vectors (sⱼ ≤ mⱼ: how many of group j lie in S) with weight
    Π C(mⱼ, sⱼ), in log space: each positive term is log C + a + log(1 − e^{ε_g + b − a})."""
    n_terms = math.prod(m + 1 for _, m in groups)
    if n_terms > MAX_TERMS:
        raise ParameterError(f"mechanisms: the optimal heterogeneous composition sums over {n_terms} count vectors "
                             f"(more than {MAX_TERMS}; it is #P-complete in general, Murtagh & Vadhan Thm 1.7): "
                             "group more mechanisms under equal eps, or use the PLD accountant's sandwich")
    total = mpmath.fsum(e * m for e, m in groups)
    log_norm = mpmath.fsum(m * mpmath.log1p(mpmath.exp(e)) for e, m in groups)
    terms = []
    for counts in itertools.product(*(range(m + 1) for _, m in groups)):
        a = mpmath.fsum(s * e for s, (e, _) in zip(counts, groups))
        gap = eps_total + (total - a) - a  # the term is positive iff gap < 0
        if gap >= 0:
            continue
        log_c = mpmath.fsum(mpmath.log(mpmath.binomial(m, s)) for s, (_, m) in zip(counts, groups))
        terms.append(log_c + a + log1mexp(gap))
    if not terms:
        return mpf("-inf")
    return logsumexp(terms) - log_norm


@self_checked
def kov15_heterogeneous_profile(mechanisms, eps_total):
    """The optimal δ_g(ε_g) of k adaptively composed (εᵢ, δᵢ)-DP mechanisms (Murtagh & Vadhan 2016, arXiv
    1507.03113v3, Thm 1.5): δ_g = 1 − Π(1 − δᵢ)(1 − A(ε_g)), computed as −expm1(Σ log1p(−δᵢ) + log(1 − A)) without
    cancellation. Exact: attained by the product of KOV15's canonical pairs. With equal (εᵢ, δᵢ) it is
    ``base.kov15_profile``; at ε_g ≥ Σεᵢ, 1 − Π(1 − δᵢ)."""
    arr = _mechanisms(mechanisms)
    log_a = _log_a(_groups(arr), mpf(eps_total))
    log_one_minus_a = mpf(0) if log_a == mpf("-inf") else log1mexp(min(log_a, mpf(0)))
    return -mpmath.expm1(_log_one_minus_delta_product(arr) + log_one_minus_a)


@self_checked
def heterogeneous_basic_composition(mechanisms):
    """(Σεᵢ, 1 − Π(1 − δᵢ)): k adaptively composed (εᵢ, δᵢ)-DP mechanisms are (Σεᵢ, 1 − Π(1 − δᵢ))-DP (Murtagh &
    Vadhan 2016, Thm 1.5 at ε_g = Σεᵢ, where A = 0; KOV15 Thm 3.5). Tighter than Dwork & Roth's (Σεᵢ, Σδᵢ), and the
    δ is optimal for that ε (the canonical product attains it)."""
    arr = _mechanisms(mechanisms)
    eps = mpmath.fsum(mpf(float(e)) for e in arr[:, 0])
    return eps, -mpmath.expm1(_log_one_minus_delta_product(arr))


_P_MECHANISMS = Param("mechanisms", Points(), "the composed mechanisms' parameters: a (k, 2) array of rows "
                      "(eps_i, delta_i), eps_i >= 0, 0 <= delta_i < 1", example=[[0.5, 1e-6], [0.1, 0], [0.1, 0]])

register(Statement(
    id="base.kov15_heterogeneous_profile",
    source=Source("outside", "Thm 1.5", "optimal δ for a total ε under heterogeneous (εᵢ, δᵢ) composition",
                  MURTAGH_VADHAN),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps_total"),
    summary="δ_g = 1 − Π(1−δᵢ)(1 − Σ_S (e^{Σ_S εᵢ} − e^{ε_g} e^{Σ_{S^c} εᵢ})₊ / Π(1+e^{εᵢ}))",
    params=(_P_MECHANISMS, Param("eps_total", EPS, "total ε_g ≥ 0", example=0.5)),
    reference=kov15_heterogeneous_profile,
    witnesses=(WitnessUse("base.kov15_heterogeneous_canonical", {"mechanisms": "mechanisms"}),),
    privacy=Privacy("any", "both", "none"),
    monotone={"eps_total": -1},
    note="with equal (εᵢ, δᵢ) it is base.kov15_profile (KOV15 Thm 3.3); reference only (equal εᵢ grouped; at most "
         f"{MAX_TERMS} count vectors); the PLD accountant composes pure/approximate DP pairs for larger k",
))

register(Statement(
    id="base.heterogeneous_basic_composition",
    source=Source("outside", "Thm 1.5 at ε_g = Σεᵢ", "(Σεᵢ, 1 − Π(1 − δᵢ)) for heterogeneous (εᵢ, δᵢ) composition",
                  MURTAGH_VADHAN),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="(ε_g, δ_g) = (Σεᵢ, 1 − Π(1 − δᵢ))",
    params=(_P_MECHANISMS,),
    reference=heterogeneous_basic_composition,
    witnesses=(WitnessUse("base.kov15_heterogeneous_canonical", {"mechanisms": "mechanisms"}),),
    privacy=Privacy("any", "both", "none"),
    note="tighter than base.basic_composition's kδ (1 − (1 − δ)^k ≤ kδ); the δ is optimal at ε_g = Σεᵢ",
))


# ---------------------------------------------------------------------------------------------------
# The product of KOV15's canonical pairs, one per mechanism

def _probs(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k, 4) probabilities of P̃ᵢ and Q̃ᵢ on {0, 1, 2, 3}: KOV15 §3's canonical pair of each row (εᵢ, δᵢ)
    (``composition._canonical_probs``)."""
    pairs = [_canonical_probs(e, d) for e, d in arr]
    return np.stack([p for p, _ in pairs]), np.stack([q for _, q in pairs])


def _sample(rng: np.random.Generator, n: int, mechanisms) -> np.ndarray:
    """n draws of the k-fold product of P̃ᵢ: shape (n, k), column i from mechanism i."""
    p, _ = _probs(_mechanisms(mechanisms))
    u = rng.random((n, p.shape[0]))
    return (u[..., None] > np.cumsum(p, axis=1)[None, :, :-1]).sum(axis=-1)


def _log_density(which: int):
    def log_density(o, mechanisms):
        probs = _probs(_mechanisms(mechanisms))[which]
        o = np.asarray(o)
        with np.errstate(divide="ignore"):
            logs = np.log(probs)
        return logs[np.arange(logs.shape[0]), o].sum(axis=-1)

    return log_density


def _log_moment(alpha, mechanisms):
    """log E_Q̃[(p̃/q̃)^α] of the product: +inf when some δᵢ > 0 (α > 1); otherwise
    Σᵢ log((e^{αεᵢ} + e^{(1−α)εᵢ})/(1 + e^{εᵢ}))."""
    arr = _mechanisms(mechanisms)
    alpha = mpf(alpha)
    if alpha > 1 and bool((arr[:, 1] > 0).any()):
        return mpf("inf")
    if alpha == 0 or alpha == 1:  # every factor is log((1 + e^ε)/(1 + e^ε)) = 0 exactly
        return mpf(0)
    return mpmath.fsum(logsumexp([alpha * mpf(float(e)), (1 - alpha) * mpf(float(e))]) - mpmath.log1p(mpmath.exp(e))
                       for e in arr[:, 0])


register_witness(Witness(
    id="base.kov15_heterogeneous_canonical",
    description="the product of KOV15's canonical (εᵢ, δᵢ) pairs on {0, 1, 2, 3}, one per composed mechanism",
    # the witness's own example has every δᵢ = 0 (its moments are finite there: α > 1 with δᵢ > 0 gives +inf)
    params=(Param("mechanisms", Points(), _P_MECHANISMS.doc, example=[[0.5, 0.0], [0.1, 0.0], [0.1, 0.0]]),),
    sample=_sample,
    log_p=_log_density(0),
    log_q=_log_density(1),
    source=MURTAGH_VADHAN + ", proof of Thm 1.5 (the product of the dominating pairs of KOV15 §3)",
    dominating=True,
    log_moment=_log_moment,
    note="outputs have shape (n, k); the privacy loss is +inf on outcome 0 of a mechanism with δᵢ > 0",
))
