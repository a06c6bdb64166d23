"""mpmath notation shared by the PTR statements: the test threshold, f_α's inverse and the Laplace log-moment.

(The dependency-free part of the PTR notation, domains, parameters and condition texts, is :mod:`.spec`.)
"""
from __future__ import annotations

import mpmath
from mpmath import mpf


def threshold(b, delta0):
    """The test threshold b·ln(1/(2δ0)), chosen so that Pr[Lap(0,b) > threshold] = δ0 (seed 001, Remark 4.1(3);
    called B in appendix A.1, `thr` here because B is also the batch size of Algorithm 2, notes §6 item 20)."""
    return b * mpmath.log(1 / (2 * mpf(delta0)))


def eps_from_log_moment(log_moment, alpha):
    """f_α^{-1} in log form: ε = ln E / (α−1), with f_α(ε) = exp((α−1)ε) (seed 001, footnote 4)."""
    return log_moment / (alpha - 1)


def laplace_log_moment(alpha, b):
    """ln E_{Lap(0,b)}[(Lap(1,b)/Lap(0,b))^α] = (α−1)·ε_R-Lap^(b)(α) (seed 001, §4 "Laplace Mechanism")."""
    from ..base.laplace import laplace_rdp

    return (alpha - 1) * laplace_rdp(alpha, b)
