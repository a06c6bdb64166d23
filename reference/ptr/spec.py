"""Notation shared by the PTR statements: parameter domains, the test threshold, f_α and its inverse.

Global conventions (seed 001, §4; appendix 000, A.1): GS_f1 = GS_f2 = 1, so σ1, σ2 and b are noise-to-
sensitivity ratios; add/remove adjacency; the Theorems 4.2–4.4 assume σ1 = σ2/τ (so τ = σ2/σ1).
"""
from __future__ import annotations

import math

import mpmath
from mpmath import mpf

from ..domains import ALPHA, NOISE, Param, Real

# δ0 ∈ (0, 1/2]: the threshold b·ln(1/(2δ0)) of Remark 4.1(3) is ≥ 0 exactly there (seed 001, Remark 4.1(3)).
DELTA0 = Real(0, 0.5, lo_open=True, hi_open=False, scale="log", sample_lo=1e-12, sample_hi=0.5)
# Poisson subsampling rate q ∈ (0, 1) (Thm 4.4; q = 1 is the non-subsampled Thm 4.3).
Q_RATE = Real(0, 1, lo_open=True, hi_open=True, scale="log", sample_lo=1e-6, sample_hi=0.5)
# A Rényi order of any real sign (R_q^(β) is needed at β = 1−α, −α, −1−α).
ANY_ORDER = Real(-math.inf, math.inf, sample_lo=-10, sample_hi=10)
# σ1 may be +inf in the dpspec extension (textbook PTR refuses: Remark 4.1(1), "σ1 → ∞").
NOISE_OR_INF = Real(0, math.inf, lo_open=True, hi_open=True, scale="log", sample_lo=0.05, sample_hi=100,
                    allow_inf=True)

P_ALPHA = Param("alpha", ALPHA, "Rényi order α", example=2)
P_SIGMA1 = Param("sigma1", NOISE, "noise ratio σ1 of the f1 release (test failed)", example=8)
P_SIGMA2 = Param("sigma2", NOISE, "noise ratio σ2 of the f2 release (test passed); τ = σ2/σ1", example=4)
P_B = Param("b", NOISE, "Laplace scale b of the noisy safety margin Δ̂", example=1)
P_DELTA0 = Param("delta0", DELTA0, "δ0 = Pr[Lap(0,b) > threshold]", example="1e-8")
P_Q = Param("q", Q_RATE, "Poisson subsampling rate q", example="0.01")


def threshold(b, delta0):
    """The test threshold b·ln(1/(2δ0)), chosen so that Pr[Lap(0,b) > threshold] = δ0 (seed 001, Remark 4.1(3);
    called B in appendix A.1, `thr` here because B is also the batch size of Algorithm 2, erratum E20)."""
    return b * mpmath.log(1 / (2 * mpf(delta0)))


def eps_from_log_moment(log_moment, alpha):
    """f_α^{-1} in log form: ε = ln E / (α−1), with f_α(ε) = exp((α−1)ε) (seed 001, footnote 4)."""
    return log_moment / (alpha - 1)


def laplace_log_moment(alpha, b):
    """ln E_{Lap(0,b)}[(Lap(1,b)/Lap(0,b))^α] = (α−1)·ε_R-Lap^(b)(α) (seed 001, §4 "Laplace Mechanism")."""
    from ..base.laplace import laplace_rdp

    return (alpha - 1) * laplace_rdp(alpha, b)
