"""Neighbouring output distributions (P, Q) of one DC-DPSGD step (seed 004, arXiv 2405.17529v1: Algorithm 1 L187–L206,
Appendix C L897–L1059), for sampling the privacy loss and exact checks. Notes shared/notes/dc-dpsgd.md §3.

The paper writes no pair down (errata dc.E3, dc.E4); these are the pairs its analysis implicitly uses and the ones a
sound analysis needs. Add/remove neighbours D' = D ∪ {z}; P is the law with z present, Q without ("remove").

``dc.ts_step``     §3.1: the released noisy trace scores: one score moves by Δ_tr under N(0, σ_tr²):
                   P = N(Δ_tr, σ_tr²), Q = N(0, σ_tr²) (1-D after projecting on the moved coordinate).
``dc.gp_step``     §3.2: the clipped gradient sum with ONE noise vector N(0, σ_dp²c1²I): the mean moves by Δ_gp = c1
                   (assignment fixed) or 2c1 − c2 (recomputed): P = N(Δ_gp, σ_dp²c1²), Q = N(0, σ_dp²c1²).
``dc.joint_step``  §3.3: trace scores and gradient on the SAME Poisson batch, 2-D output (score, gradient
                   coordinate): P = (1 − q)N(0, S) + qN((Δ_tr, Δ_gp), S), S = diag(σ_tr², σ_gp²) (c1 units), Q = N(0, S).
                   Its loss is a function of the projection on (Δ_tr/σ_tr², Δ_gp/σ_gp²): the 1-D subsampled Gaussian
                   at μ² = (Δ_tr/σ_tr)² + (Δ_gp/σ_gp)² (readings A/B/C of notes §3.4 are its special cases). With the
                   reserved ``steps`` it is the T-fold composed pair of each reading (conformance/sampling.py).
``dc.gp_variance_mismatch``  §3.2 "variance mismatch": Algorithm 1's per-sample noise with a random (Poisson) batch:
                   given that z is in the batch, its noise term changes the covariance: P = N(c_z e_1, s'²I_d),
                   Q = N(0, s²I_d), s² = n_tail c1² + n_body c2², s'² = s² + c_z² (units σ_dp/B), c_z the clip of
                   z's class. The loss grows linearly in d (KL ≈ (d/4)(s'²/s² − 1)² per step): NOT dominated by any
                   d-free Gaussian pair — a non-dominating witness for the d-dependence (it lower-bounds the
                   literal algorithm's divergence), sampled through its sufficient statistics (o_1, Σ_{j≥2} o_j²).

Exact moments from the pairs' own densities (never a statement's evaluator): Gaussian shift α(α−1)μ²/2; the joint
pair through the base SGM witness's binomial sum / quadrature at the rotated 1-D pair (σ = 1/μ), which is the same
pair after an orthogonal change of coordinates (the code is base's witness code, not a statement); the variance
mismatch by the closed-form Rényi divergence of two Gaussians per coordinate.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from ..base.sgm import sgm_witness_log_moment_binomial, sgm_witness_log_moment_quad, witness_order
from ..catalogue import Witness, register_witness
from ..domains import Choice, Param
from ..errors import DomainError
from ..precision import checked_param as _arg
from . import spec

SOURCE = "seed 004 (004_18684d5c7944b6f0.txt) Algorithm 1, App. C; notes dc-dpsgd.md §3.1–§3.3"
_LOG_2PI = math.log(2 * math.pi)


# ---------------------------------------------------------------------------------------------------------------
# 1-D Gaussian shift pairs (TS and GP steps)


def _shift_log_moment(alpha, mu):
    alpha = witness_order(alpha)
    return alpha * (alpha - 1) * mpf(mu) ** 2 / 2


def _lognorm(o, mean, s):
    return -0.5 * ((o - mean) / s) ** 2 - np.log(s) - 0.5 * _LOG_2PI


def _ts_mu(sigma_tr, delta_tr):
    return _arg("delta_tr", spec.POSITIVE, delta_tr) / _arg("sigma_tr", spec.POSITIVE, sigma_tr)


register_witness(Witness(
    id="dc.ts_step",
    description="P = N(Δ_tr, σ_tr²), Q = N(0, σ_tr²): the released noisy trace scores, one score moved by Δ_tr",
    params=(spec.P_SIGMA_TR, spec.P_DELTA_TR),
    sample=lambda rng, n, sigma_tr, delta_tr=1: float(delta_tr) + float(sigma_tr) * rng.standard_normal(n),
    log_p=lambda o, sigma_tr, delta_tr=1: _lognorm(np.asarray(o, float), float(delta_tr), float(sigma_tr)),
    log_q=lambda o, sigma_tr, delta_tr=1: _lognorm(np.asarray(o, float), 0.0, float(sigma_tr)),
    source=SOURCE + " (§3.1)",
    dominating=True,
    log_moment=lambda alpha, sigma_tr, delta_tr=1: _shift_log_moment(alpha, _ts_mu(sigma_tr, delta_tr)),
    tilt_family=lambda sigma_tr, delta_tr=1: {"family": "gaussian_mixture", "weights": [1.0],
                                              "shifts": [float(delta_tr)], "center": 0.0, "sigma": float(sigma_tr)},
    note="exact for a Gaussian release of the score vector with ℓ2 sensitivity Δ_tr (dc.claim_c1)",
))


def _gp_delta(c1, c2, selection):
    c1, c2 = _arg("c1", spec.POSITIVE, c1), _arg("c2", spec.POSITIVE, c2)
    if c2 > c1:
        raise DomainError("c2", mpmath.nstr(c2, 10), f"c2 ≤ c1 = {mpmath.nstr(c1, 10)}")
    return c1 if _arg("selection", spec.SELECTION, selection) == "fixed" else 2 * c1 - c2


def _gp_sample(rng, n, sigma_dp, c1, c2, selection="fixed"):
    return float(_gp_delta(c1, c2, selection)) + float(sigma_dp) * float(c1) * rng.standard_normal(n)


register_witness(Witness(
    id="dc.gp_step",
    description="P = N(Δ_gp, σ_dp²c1²), Q = N(0, σ_dp²c1²), Δ_gp = c1 (assignment fixed) or 2c1 − c2 (recomputed)",
    params=(spec.P_SIGMA_DP, spec.P_C1, spec.P_C2, spec.P_SELECTION),
    sample=_gp_sample,
    log_p=lambda o, sigma_dp, c1, c2, selection="fixed": _lognorm(np.asarray(o, float),
                                                                  float(_gp_delta(c1, c2, selection)),
                                                                  float(sigma_dp) * float(c1)),
    log_q=lambda o, sigma_dp, c1, c2, selection="fixed": _lognorm(np.asarray(o, float), 0.0,
                                                                  float(sigma_dp) * float(c1)),
    source=SOURCE + " (§3.2)",
    dominating=True,
    log_moment=lambda alpha, sigma_dp, c1, c2, selection="fixed": _shift_log_moment(
        alpha, _gp_delta(c1, c2, selection) / (_arg("sigma_dp", spec.POSITIVE, sigma_dp) * mpf(c1))),
    tilt_family=lambda sigma_dp, c1, c2, selection="fixed": {
        "family": "gaussian_mixture", "weights": [1.0], "shifts": [float(_gp_delta(c1, c2, selection))],
        "center": 0.0, "sigma": float(sigma_dp) * float(c1)},
    note="the gradient-perturbation step alone, one noise vector with a data-independent scale (the sound form)",
))


# ---------------------------------------------------------------------------------------------------------------
# the joint step: 2-D, Poisson-subsampled


def _joint_mu(sigma_tr, sigma_dp, delta_tr, delta_gp):
    sigma_tr, sigma_dp = _arg("sigma_tr", spec.POSITIVE, sigma_tr), _arg("sigma_dp", spec.POSITIVE, sigma_dp)
    delta_tr, delta_gp = _arg("delta_tr", spec.NONNEGATIVE, delta_tr), _arg("delta_gp", spec.POSITIVE, delta_gp)
    return mpmath.sqrt((delta_tr / sigma_tr) ** 2 + (delta_gp / sigma_dp) ** 2)


def _joint_sample(rng, n, q, sigma_tr, sigma_dp, delta_tr=1, delta_gp=1):
    b = (rng.random(n) < float(q)).astype(float)
    s = np.array([float(sigma_tr), float(sigma_dp)])
    shift = np.array([float(delta_tr), float(delta_gp)])
    return b[:, None] * shift[None, :] + s[None, :] * rng.standard_normal((n, 2))


def _joint_log_q(o, q, sigma_tr, sigma_dp, delta_tr=1, delta_gp=1):
    o = np.asarray(o, float).reshape(-1, 2)
    return _lognorm(o[:, 0], 0.0, float(sigma_tr)) + _lognorm(o[:, 1], 0.0, float(sigma_dp))


def _joint_log_p(o, q, sigma_tr, sigma_dp, delta_tr=1, delta_gp=1):
    o = np.asarray(o, float).reshape(-1, 2)
    lq = _joint_log_q(o, q, sigma_tr, sigma_dp)
    q = float(q)
    if q == 1.0:
        return _lognorm(o[:, 0], float(delta_tr), float(sigma_tr)) + _lognorm(o[:, 1], float(delta_gp), float(sigma_dp))
    dt, dg, st, sd = float(delta_tr), float(delta_gp), float(sigma_tr), float(sigma_dp)
    log_ratio = (2 * dt * o[:, 0] - dt * dt) / (2 * st * st) + (2 * dg * o[:, 1] - dg * dg) / (2 * sd * sd)
    return lq + np.logaddexp(np.log1p(-q), np.log(q) + log_ratio)


def _joint_log_moment(alpha, q, sigma_tr, sigma_dp, delta_tr=1, delta_gp=1):
    """log E_Q[(p/q)^α]: the pair is the 1-D remove pair (1 − q)N(0, σ²) + qN(1, σ²) vs N(0, σ²) with σ = 1/μ after
    whitening and an orthogonal rotation onto the shift (module docstring); base's witness moment routes."""
    alpha = witness_order(alpha)
    mu = _joint_mu(sigma_tr, sigma_dp, delta_tr, delta_gp)
    q = _arg("q", spec.P_Q.domain, q)
    if alpha in (0, 1):
        return mpf(0)
    if q == 1:
        return _shift_log_moment(alpha, mu)
    if alpha == int(alpha) and 0 <= alpha <= 256:
        return sgm_witness_log_moment_binomial(int(alpha), q, 1 / mu)
    return sgm_witness_log_moment_quad(alpha, q, 1 / mu, "remove")


def _joint_family(q, sigma_tr, sigma_dp, delta_tr=1, delta_gp=1):
    """The joint pair as conformance.tilting's gaussian_mixture family on the line o = u·(Δ_tr, Δ_gp): in whitened
    coordinates the loss depends only on the projection t = μu on the shift, ℓ = (1 − q) + q·e^{μt − μ²/2}, i.e. the
    1-D remove pair (1 − q)N(0, σ²) + qN(1, σ²) vs N(0, σ²) in u with σ = 1/μ (module docstring)."""
    mu = float(_joint_mu(sigma_tr, sigma_dp, delta_tr, delta_gp))
    q = float(_arg("q", spec.P_Q.domain, q))
    return {"family": "gaussian_mixture", "weights": [1.0 - q, q], "shifts": [0.0, 1.0], "center": 0.0,
            "sigma": 1.0 / mu, "direction": [float(delta_tr), float(delta_gp)]}


register_witness(Witness(
    id="dc.joint_step",
    description="2-D (score, gradient) on one Poisson batch: P = (1−q)N(0, S) + qN((Δ_tr, Δ_gp), S), Q = N(0, S), "
                "S = diag(σ_tr², σ_dp²) (c1 units)",
    params=(spec.P_Q, spec.P_SIGMA_TR, spec.P_SIGMA_DP,
            Param("delta_tr", spec.NONNEGATIVE, "Δ_tr ≥ 0 (0: the scores are not released, readings A and B)",
                  default=1),
            Param("delta_gp", spec.POSITIVE, "Δ_gp/c1: 1 (assignment fixed) or 2 − c2/c1 (recomputed)", default=1)),
    sample=_joint_sample,
    log_p=_joint_log_p,
    log_q=_joint_log_q,
    source=SOURCE + " (§3.3, §3.4)",
    dominating=True,
    log_moment=_joint_log_moment,
    tilt_family=_joint_family,
    note="the joint step's dominating pair; its loss equals base.sgm's (remove) at σ = 1/μ_step: readings A, B, C "
         "of notes §3.4 are its special cases (dc.reading_*); 'steps' composes it T-fold",
))


# ---------------------------------------------------------------------------------------------------------------
# the variance mismatch of Algorithm 1's per-sample noise under Poisson sampling (non-dominating)


CLASS = Choice(("tail", "body"))


def _mismatch(batch, p_tail, c1, c2, z_class):
    """(c_z, s², s'²) in units σ_dp/B (module docstring; notes §3.2)."""
    b = int(_arg("batch", spec.COUNT, batch))
    p = _arg("p_tail", spec.FRACTION, p_tail)
    c1, c2 = _arg("c1", spec.POSITIVE, c1), _arg("c2", spec.POSITIVE, c2)
    cz = c1 if _arg("z_class", CLASS, z_class) == "tail" else c2
    s2 = p * b * c1**2 + (1 - p) * b * c2**2
    return cz, s2, s2 + cz**2


def _mm_floats(batch, p_tail, c1, c2, z_class):
    cz, s2, s2p = _mismatch(batch, p_tail, c1, c2, z_class)
    return float(cz), math.sqrt(float(s2)), math.sqrt(float(s2p))


def _mm_sample(rng, n, d, batch, p_tail, c1, c2, z_class="body"):
    cz, s, sp = _mm_floats(batch, p_tail, c1, c2, z_class)
    d = int(_arg("d", spec.DIMENSION, d))
    o1 = cz + sp * rng.standard_normal(n)
    rest = sp * sp * rng.chisquare(d - 1, n) if d > 1 else np.zeros(n)
    return np.stack([o1, rest], axis=1)


def _mm_log_density(o, d, mean, s):
    o = np.asarray(o, float).reshape(-1, 2)
    d = int(d)
    return -0.5 * ((o[:, 0] - mean) ** 2 + o[:, 1]) / (s * s) - d * (np.log(s) + 0.5 * _LOG_2PI)


def _mm_log_p(o, d, batch, p_tail, c1, c2, z_class="body"):
    cz, _, sp = _mm_floats(batch, p_tail, c1, c2, z_class)
    return _mm_log_density(o, d, cz, sp)


def _mm_log_q(o, d, batch, p_tail, c1, c2, z_class="body"):
    _, s, _ = _mm_floats(batch, p_tail, c1, c2, z_class)
    return _mm_log_density(o, d, 0.0, s)


def _mm_log_moment(alpha, d, batch, p_tail, c1, c2, z_class="body"):
    """log E_Q[(p/q)^α] = (α − 1)D_α(N(c_z e_1, s'²I_d) ‖ N(0, s²I_d)), per coordinate the Gaussian closed form
    (Gil, Alajaji & Linder 2013): with v_α = αs² + (1 − α)s'² > 0,
    (α−1)D_α = α(α−1)m²/(2v_α) − ½ log(v_α/(s^{2α} s'^{2(1−α)})), m the coordinate's mean shift; +inf where v_α ≤ 0."""
    alpha = witness_order(alpha)
    d = int(_arg("d", spec.DIMENSION, d))
    cz, s2, s2p = _mismatch(batch, p_tail, c1, c2, z_class)
    v = alpha * s2 + (1 - alpha) * s2p
    if v <= 0:
        return mpf("inf")
    per = -(mpmath.log(v) - alpha * mpmath.log(s2) - (1 - alpha) * mpmath.log(s2p)) / 2
    return d * per + alpha * (alpha - 1) * cz**2 / (2 * v)


register_witness(Witness(
    id="dc.gp_variance_mismatch",
    description="Algorithm 1's per-sample noise, z in the batch: P = N(c_z e_1, s'²I_d), Q = N(0, s²I_d), "
                "s² = B(p c1² + (1−p)c2²), s'² = s² + c_z² (units σ_dp/B); output (o_1, Σ_{j≥2} o_j²)",
    params=(spec.P_D, spec.P_BATCH, spec.P_P_TAIL, spec.P_C1, spec.P_C2,
            Param("z_class", CLASS, "the class of the added sample z (its clip c_z: c1 tail, c2 body)",
                  default="body")),
    sample=_mm_sample,
    log_p=_mm_log_p,
    log_q=_mm_log_q,
    source=SOURCE + " (§3.2 variance mismatch)",
    dominating=False,
    log_moment=_mm_log_moment,
    note="not dominating: the conditional pair given z in the batch and the counts; its divergence grows linearly in "
         "d (KL ≈ (d/4)(c_z²/s²)²: 0.013 at d = 1e5, ≈ 21 at d = 1.6e8 for B = 128, p = 0.1, c1 = 1, c2 = 0.1, z body; "
         "notes §3.2), so no d-free Gaussian accountant covers Algorithm 1's literal noise (dc.sigma_eff "
         "noise='per_sample').",
))
