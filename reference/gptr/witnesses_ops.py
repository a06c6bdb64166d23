"""End-to-end witness of OPS-PTR ridge regression (seed 003, Ex 3.6.2 / Alg 14 and Alg 15 / Thm B.4.1; notes
shared/notes/generalized-ptr.md §3.6, §4): ``gptr.ops_ptr_release``, the exact output law of the whole algorithm on
a data set and its add/remove neighbour, for issue 18's Monte Carlo checks of the composed accountings.

The algorithm (reference/gptr/regression_algorithms.py: alg14_ops_ptr and alg15_ops_ptr with
``calibration="analytic"``, which differ only in their constants) releases, with ν the Gaussian noise per unit of
sensitivity and z₁, z₂ the shifts in units of the noise:

1. λ̃ = max(λ_min(X) + s₁Z₁ − s₁z₁, 0), s₁ = ‖𝒳‖²ν (Lemma B.4.3); ⊥ if λ + λ̃ ≤ ‖𝒳‖²;
2. Δ̃ = Δ(X) + s₂Z₂ + s₂z₂, s₂ = log(1 + ‖𝒳‖²/(λ + λ̃ − ‖𝒳‖²))·ν (Lemma B.4.2, corrected), Δ(X) = log(‖𝒴‖ +
   ‖𝒳‖‖θ*_λ(X)‖);
3. ⊥ if (1 + 2 log(2/δ_M))‖𝒳‖²/(2(λ + λ̃)) ≥ ε_M (no γ > 0 meets ε_M), else γ* (the corrected Thm 3.6.1 at
   (ε_M, δ_M), λ^P = λ̃, L̃ = ‖𝒳‖e^{Δ̃}; ⊥ also where γ* underflows a double), and θ ~ N(θ*_λ(X), (γ*(XᵀX + λI))⁻¹).

Every step is a function of the released values and fresh Gaussian noise, so the output law has an exact density on
{⊥₁} ∪ {⊥₂} ∪ releases (atoms at λ̃ = 0 included): N(λ̃) (or Φ at the atom) × N(Δ̃ | λ̃) × N(θ | γ*(λ̃, Δ̃)). An
output is the row (status, λ̃, Δ̃, θ₁, θ₂), status 0 = ⊥ after step 1, 1 = ⊥ after step 2/3, 2 = released (unused
entries 0). γ* is computed here in float64 log space,

    γ* = (2(ε_M − c)/(L̃K))²,  K = √(t/λ*) + √(t/λ* + 2(ε_M − c)/(λ* + ‖𝒳‖²)),  c = (1 + t)‖𝒳‖²/(2λ*),

t = 2 log(2/δ_M), λ* = λ + λ̃ (the stable root of ops.ops_gamma_star with a = L̃²/(2(λ* + ‖𝒳‖²)), b = L̃√(t/λ*)
factored; tests/gptr/test_gptr_witnesses_ops.py compares it with the mpmath evaluator and the sampler with the
reference algorithm).

Data sets (d = 2, given by their sufficient statistics, as ``gptr.ops_ridge``; rows of norm ≤ ‖𝒳‖ realise them:
k copies of √(h/k)e_i with label 0, plus z): z = (‖𝒳‖e₁, y), y = ‖𝒴‖. ``add``: X has Gram diag(λ_min,
λ_min + ‖𝒳‖²) and labels 0, X′ = X ∪ {z} (λ_min moves by the full ‖𝒳‖², Lemma B.4.3 attained; θ* and Δ move);
``remove``: X = rest ∪ {z}, rest with Gram diag(λ_min, λ_min), X′ = rest. ``order`` PQ: P = law on X, QP: the
reverse. A lower-bound witness (``dominating=False``): the neighbours are adversarial, not proven worst.

The statements' uses (:data:`EX3_6_2_USES`, :data:`THM_B4_1_USES`) choose λ and λ_min from the budget (:func:`_design`):
λ̃ sits at the clipping point (λ_min = s₁z₁), γ* exists (c ≤ ε_M/2) and L̃ ≈ L, so that the OPS step's loss is
close to what Thm 3.6.1 allows (a Gaussian mean shift μ with μ√(2 log(2/δ_M)) ≈ ε_M).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf
from scipy.special import log_ndtr as _np_log_ndtr

from .._normal import ndtri_upper
from ..catalogue import Witness, WitnessUse, register_witness
from ..domains import Choice, Param, Real
from ..errors import ParameterError
from ..precision import checked_param
from . import spec

SOURCE = "seed 003 (003_dabdd6bee088f80a.txt) Ex 3.6.2 / Alg 14, Alg 15 / Thm B.4.1; notes generalized-ptr.md §3.6, §4"
_LOG_2PI = math.log(2 * math.pi)
CASE = Choice(("add", "remove"))
ORDER = Choice(("PQ", "QP"))
SHIFT_Z = Real(-math.inf, math.inf, sample_lo=0, sample_hi=10)


class Dataset:
    """Sufficient statistics of one data set: Gram diagonal h, b = Xᵀy, θ*_λ, Δ = log(‖𝒴‖ + ‖𝒳‖‖θ*‖)."""

    def __init__(self, gram, b, lam, x_norm, y_norm):
        self.h = np.asarray(gram, dtype=np.float64) + lam  # diagonal of XᵀX + λI
        self.theta = np.asarray(b, dtype=np.float64) / self.h
        self.lam_min = float(min(gram))
        self.Delta = math.log(y_norm + x_norm * float(np.linalg.norm(self.theta)))


def datasets(lam, lam_min, x_norm, y_norm, case):
    """(X, X′) of the module docstring."""
    x2, y = x_norm * x_norm, y_norm
    if case == "add":
        X = Dataset([lam_min, lam_min + x2], [0.0, 0.0], lam, x_norm, y_norm)
        Xp = Dataset([lam_min + x2, lam_min + x2], [x_norm * y, 0.0], lam, x_norm, y_norm)
    else:
        X = Dataset([lam_min + x2, lam_min], [x_norm * y, 0.0], lam, x_norm, y_norm)
        Xp = Dataset([lam_min, lam_min], [0.0, 0.0], lam, x_norm, y_norm)
    return X, Xp


class OpsPtr:
    """The algorithm's constants and its two data sets, float64."""

    def __init__(self, eps_ops, delta_ops, noise, z1, z2, lam, lam_min, x_norm=1.0, y_norm=1.0, case="add",
                 order="PQ"):
        self.eps = float(checked_param("eps_ops", spec.POSITIVE, eps_ops))
        self.delta = float(checked_param("delta_ops", spec.DELTA, delta_ops))
        self.noise = float(checked_param("noise", spec.POSITIVE, noise))
        self.z1 = float(checked_param("z1", SHIFT_Z, z1))
        self.z2 = float(checked_param("z2", SHIFT_Z, z2))
        self.lam = float(checked_param("lam", spec.NONNEGATIVE, lam))
        self.x = float(checked_param("x_norm", spec.POSITIVE, x_norm))
        self.y = float(checked_param("y_norm", spec.POSITIVE, y_norm))
        lam_min = float(checked_param("lam_min", spec.NONNEGATIVE, lam_min))
        X, Xp = datasets(self.lam, lam_min, self.x, self.y, CASE.check("case", case))
        self.sides = (X, Xp) if ORDER.check("order", order) == "PQ" else (Xp, X)
        self.x2 = self.x * self.x
        self.t = 2 * math.log(2 / self.delta)
        self.s1 = self.x2 * self.noise

    # -- the deterministic steps, functions of the released values ------------------------------------------
    def stops_at_lambda(self, lam_t):
        return self.lam + lam_t <= self.x2

    def s2(self, lam_t):
        return np.log1p(self.x2 / np.maximum(self.lam + lam_t - self.x2, 1e-300)) * self.noise

    def log_gamma(self, lam_t, Delta_t):
        """log γ* (module docstring); NaN where infeasible (c ≥ ε_M)."""
        lam_star = self.lam + lam_t
        c = (1 + self.t) * self.x2 / (2 * lam_star)
        room = self.eps - c
        with np.errstate(invalid="ignore", divide="ignore"):
            K = np.sqrt(self.t / lam_star) + np.sqrt(self.t / lam_star + 2 * room / (lam_star + self.x2))
            lg = 2 * (np.log(2 * room) - math.log(self.x) - Delta_t - np.log(K))
        return np.where(room > 0, lg, np.nan)

    # -- sampling ---------------------------------------------------------------------------------------------
    def sample(self, rng, n):
        d = self.sides[0]
        out = np.zeros((n, 5))
        lam_t = np.maximum(d.lam_min + self.s1 * rng.standard_normal(n) - self.s1 * self.z1, 0.0)
        out[:, 1] = lam_t
        go = ~self.stops_at_lambda(lam_t)
        s2 = self.s2(lam_t)
        Delta_t = d.Delta + s2 * rng.standard_normal(n) + s2 * self.z2
        out[go, 2] = Delta_t[go]
        lg = self.log_gamma(lam_t, Delta_t)
        gamma = np.exp(np.where(np.isnan(lg), -np.inf, lg))
        release = go & (gamma > 0)
        out[:, 0] = np.where(release, 2.0, np.where(go, 1.0, 0.0))
        z = rng.standard_normal((n, 2))
        with np.errstate(divide="ignore", invalid="ignore"):
            theta = d.theta + z / np.sqrt(np.where(release, gamma, 1.0)[:, None] * d.h)
        out[release, 3:] = theta[release]
        return out

    # -- log density ------------------------------------------------------------------------------------------
    def log_density(self, o, which):
        d = self.sides[which]
        o = np.asarray(o, dtype=np.float64)
        status, lam_t, Delta_t, theta = o[:, 0], o[:, 1], o[:, 2], o[:, 3:5]
        mean1 = d.lam_min - self.s1 * self.z1
        atom = _np_log_ndtr((0.0 - mean1) / self.s1)
        dens = -0.5 * ((lam_t - mean1) / self.s1) ** 2 - math.log(self.s1) - 0.5 * _LOG_2PI
        out = np.where(lam_t == 0.0, atom, dens)
        go = status > 0.5
        s2 = self.s2(lam_t)
        mean2 = d.Delta + s2 * self.z2
        with np.errstate(divide="ignore", invalid="ignore"):
            out = out + np.where(go, -0.5 * ((Delta_t - mean2) / s2) ** 2 - np.log(s2) - 0.5 * _LOG_2PI, 0.0)
            rel = status > 1.5
            lg = self.log_gamma(lam_t, Delta_t)
            lg = np.where(rel, lg, 0.0)
            gh = np.exp(lg)[:, None] * d.h
            ops = 0.5 * np.sum(np.log(gh), axis=1) - 0.5 * np.sum(gh * (theta - d.theta) ** 2, axis=1) - _LOG_2PI
        return out + np.where(rel, ops, 0.0)


_PARAMS = (
    Param("eps_ops", spec.POSITIVE, "ε_M, the OPS step's budget (Thm 3.6.1 solved for γ)", example=1),
    Param("delta_ops", spec.DELTA, "δ_M, the OPS step's δ", example="1e-5"),
    Param("noise", spec.POSITIVE, "ν, Gaussian noise per unit of sensitivity of both releases", example=5),
    Param("z1", SHIFT_Z, "z₁, the downward shift of λ̃ in units of s₁", example=4),
    Param("z2", SHIFT_Z, "z₂, the upward shift of Δ̃ in units of s₂", example=4),
    Param("lam", spec.NONNEGATIVE, "λ, the ridge regularisation", example=30),
    Param("lam_min", spec.NONNEGATIVE, "λ_min of the smaller Gram matrix", example=20),
    Param("x_norm", spec.POSITIVE, "‖𝒳‖", default=1, example=1),
    Param("y_norm", spec.POSITIVE, "‖𝒴‖ (z's label)", default=1, example=1),
    Param("case", CASE, "add: X′ = X ∪ {z}; remove: X = X′ ∪ {z}", default="add", example="add"),
    Param("order", ORDER, "PQ: P = law on X; QP: the reverse", default="PQ", example="PQ"),
)

register_witness(Witness(
    id="gptr.ops_ptr_release",
    description="OPS-PTR ridge regression end to end (Alg 14 / Alg 15): exact law of (λ̃, Δ̃, ⊥ or θ) on a data set "
                "and its add/remove neighbour",
    params=_PARAMS,
    sample=lambda rng, n, **kw: OpsPtr(**kw).sample(rng, n),
    log_p=lambda o, **kw: OpsPtr(**kw).log_density(o, 0),
    log_q=lambda o, **kw: OpsPtr(**kw).log_density(o, 1),
    source=SOURCE,
    dominating=False,
    note="The whole algorithm's output law (releases, test, ⊥, OPS sample), exact per draw; no log_moment (the "
         "moment integrates over γ*(λ̃, Δ̃), a function of the released values with no closed form).",
))


# ---------------------------------------------------------------------------------------------------------------
# The statements' uses


LAMBDA_FACTOR = 20  # λ ≥ this × ‖𝒳‖²ν·max(z₂, 1): the Δ release's shift inflates L̃ by at most about e^{1/20}


def _design(eps_ops, delta_ops, noise, z1, z2, x_norm=1.0):
    """(λ, λ_min) of the module docstring: λ = max((1 + t)‖𝒳‖²/ε_M, 20‖𝒳‖²ν·max(z₂, 1)) (so c ≤ ε_M/2 and
    s₂z₂ ≤ 1/20: L̃ stays within about 5 % of L and Thm 3.6.1's γ* is near its worst case), λ_min = s₁z₁ (≥ 0)."""
    t = 2 * math.log(2 / delta_ops)
    x2 = x_norm**2
    lam = max((1 + t) * x2 / eps_ops, LAMBDA_FACTOR * x2 * noise * max(z2, 1.0))
    return lam, max(x2 * noise * z1, 0.0)


def _wparams(eps_ops, delta_ops, noise, z1, z2, case, order):
    lam, lam_min = _design(eps_ops, delta_ops, noise, z1, z2)
    if not (math.isfinite(lam) and math.isfinite(lam_min)) or lam_min > 1e12:
        raise ParameterError("OPS-PTR witness: constants out of the witness's range")
    return {"eps_ops": eps_ops, "delta_ops": delta_ops, "noise": noise, "z1": z1, "z2": z2, "lam": lam,
            "lam_min": lam_min, "x_norm": 1.0, "y_norm": 1.0, "case": case, "order": order}


def _ex3_6_2_use(case, order):
    """Alg 14 at Ex 3.6.2's parameters: ν = σ(ε̂/2, δ̂/2) (analytic Gaussian), z_i = Φ̄⁻¹(δ′_i), OPS at (ε, δ)."""
    def f(p):
        from ..base.gaussian import gaussian_sigma

        eps, eps_hat, delta, delta_hat = (mpf(p[k]) for k in ("eps", "eps_hat", "delta", "delta_hat"))
        d1, d2 = mpf(p["delta_prime_1"]), mpf(p["delta_prime_2"])
        if not (eps > 0 and eps_hat > 0 and 0 < delta_hat < 1 and 0 < d1 < 1 and 0 < d2 < 1):
            raise ParameterError("Alg 14's Gaussian releases need ε, ε̂ > 0 and δ̂, δ′₁, δ′₂ in (0, 1)")
        noise = float(gaussian_sigma(eps_hat / 2, delta_hat / 2))
        return _wparams(float(eps), float(delta), noise, float(ndtri_upper(d1)), float(ndtri_upper(d2)), case, order)
    return f


def _thm_b4_1_use(case, order):
    """Alg 15 (analytic calibration) at (ε, δ): ν = alg15_sigma(ε, δ), z₁ = z₂ = √(2 log(2/δ)), OPS at (ε/2, δ/3)."""
    def f(p):
        from .ops import alg15_sigma

        eps, delta = mpf(p["eps"]), mpf(p["delta"])
        noise = float(alg15_sigma(eps, delta))
        z = float(mpmath.sqrt(2 * mpmath.log(2 / delta)))
        return _wparams(float(eps / 2), float(delta / 3), noise, z, z, case, order)
    return f


_CASES = tuple((c, o) for c in ("add", "remove") for o in ("PQ", "QP"))
EX3_6_2_USES = tuple(WitnessUse("gptr.ops_ptr_release", _ex3_6_2_use(c, o), f"Alg 14 end to end, {c} neighbour, {o}")
                     for c, o in _CASES)
THM_B4_1_USES = tuple(WitnessUse("gptr.ops_ptr_release", _thm_b4_1_use(c, o),
                                 f"Alg 15 (analytic calibration) end to end, {c} neighbour, {o}") for c, o in _CASES)
