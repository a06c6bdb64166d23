"""The Laplace mechanism of the test step (seed 001, §4 "Laplace Mechanism"; seed 000, A.1.1 eqs. (38)–(41)).

Pair P = Lap(1, b), Q = Lap(0, b) (GS(Δ) = 1, Remark 4.1(4)). Order α = 1 + a with a > 0 and u = 1/b > 0, so that
sympy knows the signs it needs.
"""
from __future__ import annotations

import sympy as sp

from . import CheckResult, check

a, b = sp.symbols("a b", positive=True)
s = sp.Symbol("s", real=True)
alpha = 1 + a


def laplace_moment_closed_form() -> sp.Expr:
    """[Mir17]: E_Q[(p/q)^α] = α/(2α−1)·e^{(α−1)/b} + (α−1)/(2α−1)·e^{−α/b}."""
    return alpha / (2 * alpha - 1) * sp.exp((alpha - 1) / b) + (alpha - 1) / (2 * alpha - 1) * sp.exp(-alpha / b)


@check(statements=("base.laplace_rdp",))
def laplace_rdp_closed_form() -> CheckResult:
    """∫ Lap(s;0,b)^{1−α} Lap(s;1,b)^α ds over (−∞,0], [0,1], [1,∞) equals the closed form, for all α > 1, b > 0."""
    # integrand = exp(−((1−α)|s| + α|s−1|)/b)/(2b), with the absolute values resolved on each piece
    integrand = lambda dev_q, dev_p: sp.exp(sp.expand(-((1 - alpha) * dev_q + alpha * dev_p) / b)) / (2 * b)
    pieces = [
        sp.integrate(integrand(-s, 1 - s), (s, -sp.oo, 0)),
        sp.integrate(integrand(s, 1 - s), (s, 0, 1)),
        sp.integrate(integrand(s, s - 1), (s, 1, sp.oo)),
    ]
    moment = sum(pieces)
    residual = sp.simplify(moment - laplace_moment_closed_form())
    return CheckResult("laplace_rdp_closed_form", residual == 0,
                       {"integral": str(sp.simplify(moment)), "residual": str(residual)})


@check(statements=("base.laplace_pure", "ptr.thm4_2"))
def laplace_pure_dp_is_one_over_b() -> CheckResult:
    """The Laplace privacy loss L(s) = (|s| − |s−1|)/b has sup 1/b (attained for s ≥ 1), and lim_{α→∞} of the
    Laplace RDP is 1/b: the pure-DP parameter is 1/b, not the printed e^{1/b} (erratum ptr.E3)."""
    loss = {"s<=0": sp.simplify((-s - (1 - s)) / b), "0<=s<=1": sp.simplify((s - (1 - s)) / b),
            "s>=1": sp.simplify((s - (s - 1)) / b)}
    sup_loss = sp.Max(loss["s<=0"], loss["0<=s<=1"].subs(s, 1), loss["s>=1"])  # the middle piece is increasing
    eps_rdp = sp.log(laplace_moment_closed_form()) / a
    limit = sp.limit(eps_rdp, a, sp.oo)
    holds = sp.simplify(sup_loss - 1 / b) == 0 and sp.simplify(limit - 1 / b) == 0
    return CheckResult("laplace_pure_dp_is_one_over_b", bool(holds),
                       {"loss_pieces": {k: str(v) for k, v in loss.items()}, "sup_loss": str(sup_loss),
                        "lim_alpha_to_inf_eps_rdp": str(limit)})


@check(statements=("ptr.ineq38_41",))
def inequality_38_41() -> CheckResult:
    """A.1.1, (38)–(41): ε_R-Lap(α) < α/((α−1)b). Since log is increasing, it suffices that
    e^{α/b} − [α/(2α−1)e^{(α−1)/b} + (α−1)/(2α−1)e^{−α/b}]
        = α/(2α−1)·e^{(α−1)/b}(e^{1/b} − 1) + (α−1)/(2α−1)·e^{−α/b}(e^{2α/b} − 1),
    an identity (checked) whose terms are positive: positive weights times e^{x} − 1 with x = 1/b, 2α/b > 0."""
    gap = sp.exp(alpha / b) - laplace_moment_closed_form()
    w1, w2 = alpha / (2 * alpha - 1), (alpha - 1) / (2 * alpha - 1)
    decomposition = w1 * sp.exp((alpha - 1) / b) * (sp.exp(1 / b) - 1) + w2 * sp.exp(-alpha / b) * (sp.exp(2 * alpha / b) - 1)
    identity = sp.simplify(sp.expand(gap - decomposition)) == 0
    signs = [w1.is_positive, w2.is_positive, (1 / b).is_positive, (2 * alpha / b).is_positive]
    return CheckResult("inequality_38_41", bool(identity and all(signs)),
                       {"identity": identity, "weights_and_exponents_positive": signs})
