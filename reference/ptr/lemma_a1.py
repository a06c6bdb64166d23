"""Lemma A.1 (appendix 000, A.2, eq. (63); = [MTZ19] Theorem 11 as restated by the paper).

If q ≤ 1/5, σ ≥ 4, 1 < α ≤ ½σ²L − 2 ln σ and α ≤ (½σ²L² − ln 5 − 2 ln σ)/(L + ln(qα) + 1/(2σ²)), with
L = ln(1 + 1/(q(α−1))), then for f of ℓ2-sensitivity τ

    E_{t~N(f(T),σ²)}[((1−q) + q·N(t; f(T'),σ²)/N(t; f(T),σ²))^α] ≤ 1 + 2q²τ²α(α−1)/σ².

Erratum E6: the conditions are stated on σ but must hold for the noise-to-sensitivity ratio σ/τ; the printed
denominator N(t; f2(T), σ²) is a typo for N(t; f(T), σ²). Here σ is the ratio (τ = 1), so the lemma reads
D_α(SGM_q,σ ‖ N(0,σ²)) ≤ ln(1 + 2q²α(α−1)/σ²)/(α−1) — the "1 + x" form, stronger than [MTZ19]'s published
(α, 2q²α/σ²)-RDP; it is checked against the exact sampled-Gaussian moment (witness ``base.sgm``).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from ..catalogue import Condition, Privacy, Source, Statement, Value, WitnessUse, register
from ..domains import NOISE, Param
from ..precision import self_checked
from .spec import LEMMA_A1_C3, LEMMA_A1_C4, LEMMA_A1_Q, LEMMA_A1_SIGMA, P_ALPHA, Q_RATE, SEED_APPENDIX
from .thm4_4 import mtz_c3, mtz_c4


@self_checked
def lemma_a1(alpha, q, sigma):
    """Lemma A.1 as an RDP bound: ln(1 + 2q²α(α−1)/σ²)/(α−1) (appendix 000, eq. (63), τ = 1)."""
    return mpmath.log1p(2 * q**2 * alpha * (alpha - 1) / sigma**2) / (alpha - 1)


CONDITIONS = (
    Condition.of(LEMMA_A1_Q, lambda p: p["q"] <= mpf(1) / 5),
    Condition.of(LEMMA_A1_SIGMA, lambda p: p["sigma"] >= 4),
    Condition.of(LEMMA_A1_C3, lambda p: mtz_c3(p["alpha"], p["q"], p["sigma"])),
    Condition.of(LEMMA_A1_C4, lambda p: mtz_c4(p["alpha"], p["q"], p["sigma"])),
)

register(Statement(
    id="ptr.lemma_a1",
    fast="dpspec.fast.ptr.bounds:lemma_a1",
    source=Source(SEED_APPENDIX, "Lemma A.1, eq. (63) ([MTZ19] Theorem 11)",
                  "closed-form RDP bound of the sampled Gaussian used by Theorem 4.4"),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="E_{N(0,σ²)}[((1−q) + q N(t;1,σ²)/N(t;0,σ²))^α] ≤ 1 + 2q²α(α−1)/σ² under q ≤ 1/5, σ ≥ 4, (C3), (C4)",
    params=(P_ALPHA, Param("q", Q_RATE, "sampling rate (the paper applies it at A(s) ≤ q')", example="0.01"),
            Param("sigma", NOISE, "noise-to-sensitivity ratio σ/τ (erratum E6)", example=4)),
    reference=lemma_a1,
    conditions=CONDITIONS,
    witnesses=(WitnessUse("base.sgm", lambda p: {"q": p["q"], "sigma": p["sigma"], "direction": "remove"},
                          "the moment the lemma bounds, exactly"),),
    privacy=Privacy("add_remove", "P||Q", "poisson"),
    note="Bounds the forward ('remove') moment only; the paper also needs reverse ≤ forward for B2 (erratum E5).",
))
