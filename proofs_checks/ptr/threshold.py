"""The test threshold B = b·ln(1/(2δ0)) (seed 001, Remark 4.1(3); seed 000, A.1) and the learning-rate switch of
eq. (92) (seed 000, A.4), which prints the threshold without the factor b (erratum ptr.E12)."""
from __future__ import annotations

import sympy as sp

from . import CheckResult, check

b, delta0 = sp.symbols("b delta0", positive=True)
s = sp.Symbol("s", real=True)


def laplace_tail(threshold) -> sp.Expr:
    """Pr[Lap(0, b) > threshold] for a threshold ≥ 0 (density e^{−s/b}/(2b) on s ≥ 0), symbolically."""
    return sp.simplify(sp.integrate(sp.exp(-s / b) / (2 * b), (s, threshold, sp.oo)))


@check(statements=("ptr.thm4_2", "ptr.thm4_3", "ptr.thm4_4"))
def threshold_tail_is_delta0() -> CheckResult:
    """Remark 4.1(3): Pr[Lap(0,b) > b·ln(1/(2δ0))] = δ0, for every b > 0 and δ0 ∈ (0, 1/2] (then B ≥ 0)."""
    tail = laplace_tail(b * sp.log(1 / (2 * delta0)))
    residual = sp.simplify(tail - delta0)
    return CheckResult("threshold_tail_is_delta0", residual == 0, {"tail": str(tail), "residual": str(residual)})


@check(statements=("ptr.thm5_2",))
def threshold_without_b_differs() -> CheckResult:
    """Eq. (92) switches on Δ̂ ≥ ln(1/(2δ0)) (no factor b): its tail is ½(2δ0)^{1/b}, which is δ0 only at b = 1.
    Evidence: the symbolic tail, its value at b = 1 and at b = 2, δ0 = 10⁻⁸ (exact rationals)."""
    tail = laplace_tail(sp.log(1 / (2 * delta0)))
    at_b1 = sp.simplify(tail.subs(b, 1) - delta0)
    example = tail.subs({b: 2, delta0: sp.Rational(1, 10**8)})
    differs = at_b1 == 0 and sp.simplify(example - sp.Rational(1, 10**8)) != 0
    return CheckResult("threshold_without_b_differs", bool(differs),
                       {"tail": str(tail), "tail_minus_delta0_at_b1": str(at_b1),
                        "tail_at_b2_delta0_1e-8": float(example), "delta0": 1e-8})
