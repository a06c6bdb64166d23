"""The per-instance objective-perturbation pair of seed 003, chapter 2 (notes objpert-pdp.md §3.1): P = A(D),
Q = A(D'), D' = D ± z, for one fixed small GLM instance, with the exact densities of the released θ̂P.

Algorithm 1 releases θ̂P = argmin_θ J(θ; D) + bᵀθ, b ~ N(0, σ²I_d), J(θ; D) = Σ_i f(x_iᵀθ; y_i) + (λ/2)‖θ‖². The map
θ ↦ b = −∇J(θ; D) is a C¹ bijection of R^d (J is λ-strongly convex) with Jacobian −∇²J(θ; D), so by the change of
variables (Lemma A.7.7)

    log p_D(θ) = −‖∇J(θ; D)‖²/(2σ²) − (d/2) log(2πσ²) + log det ∇²J(θ; D),

and the same with D' for q. ``sample`` draws b and solves (batched damped Newton to rounding level, solver.py);
``log_p``/``log_q`` evaluate these densities directly (float64), never through the Cor 2.3.2 / Thm 2.3.1 evaluators,
so the identity log p − log q = L (Cor 2.3.2, signed) is a check between two routes, and E_P[e^{−L}] = 1 (the pair
is mutually absolutely continuous) checks the sampler against the densities (tests/objpert/test_objpert_expost.py).

The instance (d = 2, logistic loss with labels ±1, ‖x‖ ≤ 1, so ξ = 1 and β = 1/4) is notes §5.2's worked example:
D0 = {((1, 0), +1), ((0, 1), −1)}, z = ((0.6, 0.8), +1). member = "out": D = D0, D' = D0 + z; member = "in":
D = D0 + z, D' = D0. Not a dominating pair: its profile lies below any valid DP profile of ObjPert at (ξ, β) ≤ (1, 1/4)
— objpert.thm4_2_8 (Kifer et al.'s δ(ε)) uses it, so the harness checks δ_{D,z}(ε) ≤ δ_Kifer(ε) from one side.
"""
from __future__ import annotations

import math

import numpy as np

from ..catalogue import Witness, register_witness
from ..domains import Choice, Param
from ..errors import DomainError
from .losses import LOSSES
from .solver import objpert_minimiser_batch
from .spec import POSITIVE

D0 = np.array([[1.0, 0.0, 1.0], [0.0, 1.0, -1.0]])
Z = np.array([0.6, 0.8, 1.0])
LOSS = LOSSES["logistic"]
SOURCE = "seed 003 (003_dabdd6bee088f80a.txt) Algorithm 1, Thm 2.3.1, Lemma A.7.7; notes objpert-pdp.md §3.1, §5.2"


def datasets(member: str):
    """(D, D') of the pair as (n, d + 1) arrays: D' = D + z for member = "out", D' = D − z for "in"."""
    with_z = np.vstack([D0, Z])
    if member == "out":
        return D0, with_z
    if member == "in":
        return with_z, D0
    raise DomainError("member", member, "one of {out, in}")


def _log_density(data: np.ndarray, theta, sigma, lam) -> np.ndarray:
    """log p(θ) = log φ_σ(∇J(θ; data)) + log det ∇²J(θ; data) for rows θ of an (m, d) array (module docstring)."""
    theta = np.atleast_2d(np.asarray(theta, dtype=float))
    sigma, lam = float(sigma), float(lam)
    X, y = data[:, :-1], data[:, -1]
    d = X.shape[1]
    u = theta @ X.T
    grad = LOSS.d1(u, y[None, :]) @ X + lam * theta
    H = np.einsum("mi,ij,ik->mjk", LOSS.d2(u, y[None, :]), X, X) + lam * np.eye(d)
    sign, logdet = np.linalg.slogdet(H)
    return -np.sum(grad * grad, axis=1) / (2 * sigma * sigma) - 0.5 * d * math.log(2 * math.pi * sigma * sigma) \
        + logdet


def _sample(rng: np.random.Generator, n: int, sigma, lam, member="out") -> np.ndarray:
    D, _ = datasets(member)
    B = float(sigma) * rng.standard_normal((n, D.shape[1] - 1))
    return objpert_minimiser_batch(D[:, :-1], D[:, -1], LOSS, float(lam), B)


def _log_p(o, sigma, lam, member="out"):
    return _log_density(datasets(member)[0], o, sigma, lam)


def _log_q(o, sigma, lam, member="out"):
    return _log_density(datasets(member)[1], o, sigma, lam)


register_witness(Witness(
    id="objpert.pdp_objpert",
    description="per-instance ObjPert pair A(D) vs A(D ± z): 2-D logistic regression, D0 = {((1,0),+1), ((0,1),−1)},"
                " z = ((0.6,0.8),+1); θ̂P's densities by the change of variables",
    params=(Param("sigma", POSITIVE, "σ > 0, the noise b ~ N(0, σ²I_2)", example=5),
            Param("lam", POSITIVE, "λ > 0, the ridge regulariser", example=20),
            Param("member", Choice(("out", "in")), "out: D = D0, D' = D0 + z; in: D = D0 + z, D' = D0",
                  default="out", example="out")),
    sample=_sample,
    log_p=_log_p,
    log_q=_log_q,
    source=SOURCE,
    dominating=False,
    note="Per-instance, not worst case: used from one side (objpert.thm4_2_8). Sampling solves ObjPert per draw "
         "(batched Newton, ~1e5 draws/s at d = 2). Its privacy loss equals objpert.cor2_3_2's signed L at every "
         "outcome (tests), and E_P[e^{−L}] = 1.",
))
