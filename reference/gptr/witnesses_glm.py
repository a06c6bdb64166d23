"""Witnesses of logistic-regression output perturbation with generalized PTR (seed 003, Rem B.3.7 and Ex B.3.8 /
Thm B.3.9; notes shared/notes/generalized-ptr.md §3.7–§3.8, §4), for issue 18's Monte Carlo checks: a convex solve
per neighbour, then exact Gaussian densities.

Data sets (labels ±1, ‖x‖ ≤ 1, loss l(s) = log(1 + e^{−s}) at the margin s = y xᵀθ, F = Σ l + λ‖θ‖²/2): X = m
copies of (e₁, +1), X′ = X ∪ {z}, z = (e₂, +1). The objective separates by coordinate, so θ*₁ and the first Hessian
entry are the same on X and X′ (the first coordinate of any output has the same law under both and cancels from the
privacy loss: it is left out), and on the second coordinate

    X:  θ*₂ = 0,  ∇²F₂₂ = λ;        X′:  λθ = σ(−θ) at θ = θ′ (one root, found by mpmath.findroot),  ∇²F₂₂ = λ + w,

w = σ(θ′)σ(−θ′) (σ the logistic function). X's local strong convexity λ_min(∇²F(θ*)) is λ (its unregularised
Hessian is singular along e₂), that of X′ is λ + w (m ≥ 1 copies of e₁ make the e₁ entry at least as large for the
values used here: m = 4 gives 4σ(θ₁)σ(−θ₁) > ¼ ≥ w).

``gptr.logistic_outpert`` (Rem B.3.7 = Thm B.3.6 for logistic regression, per-instance at X): θ̂₂ ~ N(θ*₂,
1/(γ∇²F₂₂)) on X and on X′, both orders. Exact log E_Q[(p/q)^α] (two Gaussians, closed form from the densities).

``gptr.logistic_ptr_release`` (Ex B.3.8 steps 2–7 with the corrected calibration, reference/gptr/
regression_algorithms.ex_b3_8_logistic_ptr(calibration="analytic")): λ^p = max(λ_min + sZ − s√(2 log(1/δ)), 0) with
s = 2.25·σ(ε/2, δ/2) and λ_min the smallest eigenvalue of the unregularised Hessian at θ* (0 on X, min(m·w₁, w) = w on
X′); α = λ^p + λ; ⊥ unless α > 1.25(1 + t)/(ε/2), t = 2 log(4/δ) (Rem B.3.7 at (ε/2, δ/2)); else γ* = αu*²,
u* = 2(ε/2 − c)/(√t + √(t + 4(ε/2 − c))), c = 1.25(1 + t)/α, and θ̂₂ ~ N(θ*₂, 1/(γ*∇²F₂₂)). Exact density per draw
(an atom at λ^p = 0, a Gaussian elsewhere; ⊥ or the Gaussian release), no closed-form moment. Output rows (status,
λ^p, θ̂₂), status 0 = ⊥, 1 = released.

Both are lower-bound witnesses (``dominating=False``): the added point changes λ_min by w ≤ ¼ where Thm B.3.11 allows
2.25, and its gradient is σ(−θ′) < ½ where L = 1 is allowed; they test the accountings on real data sets, not at
their worst case.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mp, mpf
from scipy.special import log_ndtr as _np_log_ndtr

from ..base.sgm import witness_order
from ..catalogue import Witness, WitnessUse, register_witness
from ..domains import Choice, Param
from ..errors import ParameterError
from ..precision import checked_param
from . import spec

SOURCE = "seed 003 (003_dabdd6bee088f80a.txt) Rem B.3.7, Ex B.3.8 / Thm B.3.9; notes generalized-ptr.md §3.7–§3.8"
ORDER = Choice(("PQ", "QP"))
_LOG_2PI = math.log(2 * math.pi)
SENSITIVITY = mpf("2.25")  # Δ_GS = 2RL + β for logistic regression (Thm B.3.11, λ ≥ 1)


def added_point_optimum(lam):
    """(θ′, w) on X′'s second coordinate: the root of λθ = σ(−θ) (increasing minus decreasing: one root in (0, ½/λ]),
    and w = σ(θ′)σ(−θ′), mpmath."""
    lam = mpf(lam)
    sig = lambda x: 1 / (1 + mpmath.exp(-x))  # noqa: E731
    lo, hi = mpf(0), mpf(1) / (2 * lam)
    with mp.workdps(mp.dps + 10):
        root = mpmath.findroot(lambda th: lam * th - sig(-th), (lo, hi), solver="anderson")
        w = sig(root) * sig(-root)
    return +root, +w


def _laws(lam, gamma, order):
    """[(mean, variance)] of θ̂₂ on (P, Q) at fixed γ."""
    theta, w = added_point_optimum(lam)
    laws = [(mpf(0), 1 / (gamma * lam)), (theta, 1 / (gamma * (lam + w)))]
    return laws if order == "PQ" else laws[::-1]


def _check(lam, gamma, order):
    lam = checked_param("lam", spec.POSITIVE, lam)
    gamma = checked_param("gamma", spec.POSITIVE, gamma)
    return lam, gamma, ORDER.check("order", order)


def _outpert_log(which):
    def log_density(o, lam, gamma, order="PQ"):
        with mp.workdps(30):
            m, v = _laws(*_check(lam, gamma, order))[which]
        m, v = float(m), float(v)
        o = np.asarray(o, dtype=np.float64)
        return -0.5 * (o - m) ** 2 / v - 0.5 * math.log(v) - 0.5 * _LOG_2PI
    return log_density


def _outpert_sample(rng, n, lam, gamma, order="PQ"):
    with mp.workdps(30):
        m, v = _laws(*_check(lam, gamma, order))[0]
    return float(m) + math.sqrt(float(v)) * rng.standard_normal(n)


def outpert_log_moment(alpha, lam, gamma, order="PQ"):
    """log ∫ p^α q^{1−α} of P = N(m₁, v₁), Q = N(m₂, v₂): (1 − α)/2·log v₁ + α/2·log v₂ − ½ log v_α −
    α(1 − α)(m₁ − m₂)²/(2v_α), v_α = αv₂ + (1 − α)v₁ (+inf where v_α ≤ 0), from the Gaussian integral."""
    alpha = witness_order(alpha)
    lam, gamma, order = _check(lam, gamma, order)
    if alpha == 0 or alpha == 1:
        return mpf(0)
    (m1, v1), (m2, v2) = _laws(lam, gamma, order)
    va = alpha * v2 + (1 - alpha) * v1
    if va <= 0:
        return mpf("inf")
    return ((1 - alpha) * mpmath.log(v1) + alpha * mpmath.log(v2) - mpmath.log(va)) / 2 \
        - alpha * (1 - alpha) * (m1 - m2) ** 2 / (2 * va)


register_witness(Witness(
    id="gptr.logistic_outpert",
    description="logistic output perturbation N(θ*, (γ∇²F(θ*))⁻¹) on X = m·(e₁, +1) and X′ = X ∪ {(e₂, +1)} (the "
                "coordinate that differs), both orders",
    params=(Param("lam", spec.POSITIVE, "λ = X's local strong convexity α", example=100),
            Param("gamma", spec.POSITIVE, "γ, the inverse noise scale", example=1),
            Param("order", ORDER, "PQ: P = law on X; QP: the reverse", default="PQ", example="PQ")),
    sample=_outpert_sample,
    log_p=_outpert_log(0),
    log_q=_outpert_log(1),
    source=SOURCE,
    dominating=False,
    log_moment=outpert_log_moment,
    note="The convex solve is one scalar root (the objective separates); exact densities and moment.",
))


# ---------------------------------------------------------------------------------------------------------------
# Ex B.3.8 end to end


class LogisticPtr:
    """Ex B.3.8's constants and the two data sets' second coordinates, float64 (module docstring)."""

    def __init__(self, eps, delta, lam, order="PQ"):
        e = checked_param("eps", spec.POSITIVE, eps)
        d = checked_param("delta", spec.DELTA, delta)
        lam = checked_param("lam", spec.POSITIVE, lam)
        if not lam >= 1:
            raise ParameterError(f"lam={lam}: Ex B.3.8 needs λ ≥ RL = 1 (Thm B.3.11)")
        from ..base.gaussian import gaussian_sigma

        with mp.workdps(30):
            self.s = float(SENSITIVITY * gaussian_sigma(e / 2, d / 2))
            self.margin = self.s * float(mpmath.sqrt(2 * mpmath.log(1 / d)))
            theta, w = added_point_optimum(lam)
        self.eps_m, self.t = float(e) / 2, 2 * math.log(4 / float(d))
        self.lam = float(lam)
        sides = [(0.0, 0.0, self.lam), (float(w), float(theta), self.lam + float(w))]  # (λ_min, θ*₂, ∇²F₂₂)
        self.sides = sides if ORDER.check("order", order) == "PQ" else sides[::-1]

    def log_gamma(self, lam_p):
        alpha = lam_p + self.lam
        c = 1.25 * (1 + self.t) / alpha
        room = self.eps_m - c
        with np.errstate(invalid="ignore", divide="ignore"):
            u = 2 * room / (math.sqrt(self.t) + np.sqrt(self.t + 4 * room))
            lg = np.log(alpha) + 2 * np.log(u)
        return np.where(room > 0, lg, np.nan)

    def sample(self, rng, n):
        lmin, theta, h = self.sides[0]
        lam_p = np.maximum(lmin + self.s * rng.standard_normal(n) - self.margin, 0.0)
        lg = self.log_gamma(lam_p)
        rel = ~np.isnan(lg)
        gamma = np.exp(np.where(rel, lg, 0.0))
        out = np.zeros((n, 3))
        out[:, 0] = rel
        out[:, 1] = lam_p
        out[:, 2] = np.where(rel, theta + rng.standard_normal(n) / np.sqrt(gamma * h), 0.0)
        return out

    def log_density(self, o, which):
        lmin, theta, h = self.sides[which]
        o = np.asarray(o, dtype=np.float64)
        rel, lam_p, th = o[:, 0] > 0.5, o[:, 1], o[:, 2]
        mean = lmin - self.margin
        dens = np.where(lam_p == 0.0, _np_log_ndtr(-mean / self.s),
                        -0.5 * ((lam_p - mean) / self.s) ** 2 - math.log(self.s) - 0.5 * _LOG_2PI)
        gh = np.exp(np.where(rel, self.log_gamma(lam_p), 0.0)) * h
        return dens + np.where(rel, 0.5 * np.log(gh) - 0.5 * gh * (th - theta) ** 2 - 0.5 * _LOG_2PI, 0.0)


register_witness(Witness(
    id="gptr.logistic_ptr_release",
    description="Ex B.3.8 end to end (corrected calibration): exact law of (λ^p, ⊥ or θ̂) on X = m·(e₁, +1) and "
                "X′ = X ∪ {(e₂, +1)}",
    params=(Param("eps", spec.POSITIVE, "ε of Ex B.3.8 (ε/2 release, ε/2 output perturbation)", example=1),
            Param("delta", spec.DELTA, "δ of Ex B.3.8", example="1e-5"),
            Param("lam", spec.POSITIVE, "λ ≥ 1, the proposed regularisation", example=100),
            Param("order", ORDER, "PQ: P = law on X; QP: the reverse", default="PQ", example="PQ")),
    sample=lambda rng, n, **kw: LogisticPtr(**kw).sample(rng, n),
    log_p=lambda o, **kw: LogisticPtr(**kw).log_density(o, 0),
    log_q=lambda o, **kw: LogisticPtr(**kw).log_density(o, 1),
    source=SOURCE,
    dominating=False,
    note="Whole-algorithm output law (release of λ^p, the test, ⊥ or the Hessian-shaped Gaussian), exact per draw; "
         "no log_moment (γ* depends on the released λ^p).",
))


# ---------------------------------------------------------------------------------------------------------------
# The statements' uses


def _rem_use(order):
    return lambda p: {"lam": p["alpha_sc"], "gamma": p["gamma"], "order": order}


def _b3_9_use(order):
    def f(p):
        eps, delta = mpf(p["eps"]), mpf(p["delta"])
        t = 2 * mpmath.log(4 / delta)
        lam = max(mpf(1), 2 * mpf("1.25") * (1 + t) / (eps / 2))  # c ≤ ε/4 at λ^p = 0: γ* exists, ⊥ never
        return {"eps": p["eps"], "delta": p["delta"], "lam": float(lam), "order": order}
    return f


REM_B3_7_USES = tuple(WitnessUse("gptr.logistic_outpert", _rem_use(o), f"X = m·(e₁, +1), X ∪ {{(e₂, +1)}}, {o}")
                      for o in ("PQ", "QP"))
THM_B3_9_USES = tuple(WitnessUse("gptr.logistic_ptr_release", _b3_9_use(o), f"Ex B.3.8 end to end, {o}")
                      for o in ("PQ", "QP"))
USES = {"gptr.rem_b3_7": REM_B3_7_USES, "gptr.thm_b3_9": THM_B3_9_USES}
