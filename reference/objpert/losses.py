"""GLM losses ℓ(θ; (x, y)) = f(xᵀθ; y) of seed 003 (objective perturbation), with f, f', f'' as numpy-vectorised
functions (for the solver and the readable reference algorithms) and as mpmath scalars (for the exact ex-post pDP
reference at the working precision).

Notes objpert-pdp.md §2.C (Cor 2.3.2 "Specialisations") and §8.2: logistic with labels ±1 (f = log(1 + e^{−yu}),
f' = −y·sigmoid(−yu), f'' = sigmoid(u)·sigmoid(−u) ≤ 1/4, so β = 1/4 and ξ = 1 under ‖x‖ ≤ 1), logistic with labels
{0, 1} (f = log(1 + e^u) − yu, f' = sigmoid(u) − y, same f''), squared loss (u − y)²/2 (f'' = 1, ξ = ∞ on Θ = R^d),
and the log-cosh loss (L²/β)·log cosh(βu/L) of seed 003 ch. 4 (notes objpert-rdp.md §3 M1'): f' = L·tanh(βu/L),
f'' = β·sech²(βu/L), so sup|f'| = L and sup f'' = β are both attained (in the limit), y is ignored.

``beta`` is sup_u f''(u; y) and ``xi`` is sup_u |f'(u; y)| over the admissible labels (math.inf where unbounded);
with ‖x‖ ≤ 1 they are the smoothness β and the Lipschitz constant ξ (= L) of ℓ in θ.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import mpmath
import numpy as np

from ..errors import DomainError, ParameterError


def _np_sigmoid(u):
    """sigmoid(u) = 1/(1 + e^{−u}) without overflow (float64)."""
    u = np.asarray(u, dtype=float)
    out = np.empty_like(u)
    pos = u >= 0
    out[pos] = 1.0 / (1.0 + np.exp(-u[pos]))
    e = np.exp(u[~pos])
    out[~pos] = e / (1.0 + e)
    return out


def _np_softplus(u):
    """log(1 + e^u) without overflow (float64)."""
    return np.logaddexp(0.0, np.asarray(u, dtype=float))


def _mp_sigmoid(u):
    return 1 / (1 + mpmath.exp(-u))


def _mp_softplus(u):
    """log(1 + e^u) at the working precision, without overflow for large u."""
    return u + mpmath.log1p(mpmath.exp(-u)) if u > 0 else mpmath.log1p(mpmath.exp(u))


@dataclass(frozen=True)
class GlmLoss:
    """A GLM loss f(u; y) (u = xᵀθ): numpy-vectorised f, d1 = ∂f/∂u, d2 = ∂²f/∂u² and mpmath scalar mp_f, mp_d1,
    mp_d2; ``beta`` = sup f'', ``xi`` = sup |f'| (math.inf when unbounded); ``labels`` = the admissible label set
    (a tuple of values, or None for any |y| ≤ 1). Seed 003, §2.2.3 (GLM losses, ‖x‖ ≤ 1, |y| ≤ 1)."""

    name: str
    f: Callable = field(repr=False)
    d1: Callable = field(repr=False)
    d2: Callable = field(repr=False)
    mp_f: Callable = field(repr=False)
    mp_d1: Callable = field(repr=False)
    mp_d2: Callable = field(repr=False)
    beta: float
    xi: float
    labels: tuple | None = None

    def check_labels(self, y) -> np.ndarray:
        """The labels as a float array, or a DomainError naming the first inadmissible one."""
        y = np.asarray(y, dtype=float).reshape(-1)
        if not np.all(np.isfinite(y)):
            raise DomainError("y", y[~np.isfinite(y)][0], "finite labels")
        if self.labels is not None:
            bad = ~np.isin(y, np.asarray(self.labels, dtype=float))
            if bad.any():
                raise DomainError("y", float(y[bad][0]), f"labels in {set(self.labels)} for the {self.name} loss")
        elif np.any(np.abs(y) > 1):
            raise DomainError("y", float(y[np.abs(y) > 1][0]), "|y| ≤ 1 (seed 003, §2.2.3)")
        return y


def _logistic() -> GlmLoss:
    """Logistic loss, labels ±1: f = log(1 + e^{−yu}); notes objpert-pdp.md §2.C (Cor 2.3.2 specialisations)."""
    return GlmLoss(
        "logistic",
        f=lambda u, y: _np_softplus(-np.asarray(y, float) * np.asarray(u, float)),
        d1=lambda u, y: -np.asarray(y, float) * _np_sigmoid(-np.asarray(y, float) * np.asarray(u, float)),
        d2=lambda u, y: _np_sigmoid(np.asarray(u, float)) * _np_sigmoid(-np.asarray(u, float))
        + 0.0 * np.asarray(y, float),
        mp_f=lambda u, y: _mp_softplus(-mpmath.mpf(y) * u),
        mp_d1=lambda u, y: -mpmath.mpf(y) * _mp_sigmoid(-mpmath.mpf(y) * u),
        mp_d2=lambda u, y: _mp_sigmoid(u) * _mp_sigmoid(-u),
        beta=0.25, xi=1.0, labels=(-1.0, 1.0))


def _logistic01() -> GlmLoss:
    """Logistic loss, labels {0, 1}: f = log(1 + e^u) − yu; notes objpert-pdp.md §2.C."""
    return GlmLoss(
        "logistic01",
        f=lambda u, y: _np_softplus(u) - np.asarray(y, float) * np.asarray(u, float),
        d1=lambda u, y: _np_sigmoid(u) - np.asarray(y, float),
        d2=lambda u, y: _np_sigmoid(np.asarray(u, float)) * _np_sigmoid(-np.asarray(u, float))
        + 0.0 * np.asarray(y, float),
        mp_f=lambda u, y: _mp_softplus(u) - mpmath.mpf(y) * u,
        mp_d1=lambda u, y: _mp_sigmoid(u) - mpmath.mpf(y),
        mp_d2=lambda u, y: _mp_sigmoid(u) * _mp_sigmoid(-u),
        beta=0.25, xi=1.0, labels=(0.0, 1.0))


def _squared() -> GlmLoss:
    """Squared loss (u − y)²/2 (ridge regression): f'' = 1, ξ = ∞ on Θ = R^d; notes objpert-pdp.md §2.C."""
    return GlmLoss(
        "squared",
        f=lambda u, y: 0.5 * (np.asarray(u, float) - np.asarray(y, float)) ** 2,
        d1=lambda u, y: np.asarray(u, float) - np.asarray(y, float),
        d2=lambda u, y: np.ones(np.broadcast(np.asarray(u, float), np.asarray(y, float)).shape),
        mp_f=lambda u, y: (u - mpmath.mpf(y)) ** 2 / 2,
        mp_d1=lambda u, y: u - mpmath.mpf(y),
        mp_d2=lambda u, y: mpmath.mpf(1),
        beta=1.0, xi=math.inf, labels=None)


def _np_logcosh(v):
    """log cosh v = |v| + log1p(e^{−2|v|}) − log 2, stable for large |v|."""
    a = np.abs(np.asarray(v, float))
    return a + np.log1p(np.exp(-2.0 * a)) - math.log(2.0)


def logcosh(L: float = 1.0, beta: float = 1.0) -> GlmLoss:
    """The log-cosh loss f(u) = (L²/β) log cosh(βu/L), y ignored (seed 003 ch. 4; notes objpert-rdp.md §3 M1'):
    f' = L tanh(βu/L) (sup |f'| = L), f'' = β sech²(βu/L) (sup f'' = β, at u = 0)."""
    L = float(L)
    beta = float(beta)
    if not (math.isfinite(L) and L > 0):
        raise DomainError("L", L, "L > 0 (finite)")
    if not (math.isfinite(beta) and beta > 0):
        raise DomainError("beta", beta, "β > 0 (finite)")
    c = beta / L

    def f(u, y):
        return (L * L / beta) * _np_logcosh(c * np.asarray(u, float)) + 0.0 * np.asarray(y, float)

    def d1(u, y):
        return L * np.tanh(c * np.asarray(u, float)) + 0.0 * np.asarray(y, float)

    def d2(u, y):
        return beta / np.cosh(np.minimum(np.abs(c * np.asarray(u, float)), 700.0)) ** 2 + 0.0 * np.asarray(y, float)

    def mp_f(u, y):
        v = abs(mpmath.mpf(c) * u)
        return mpmath.mpf(L) ** 2 / mpmath.mpf(beta) * (v + mpmath.log1p(mpmath.exp(-2 * v)) - mpmath.log(2))

    return GlmLoss(
        f"logcosh(L={L!r}, beta={beta!r})", f=f, d1=d1, d2=d2, mp_f=mp_f,
        mp_d1=lambda u, y: mpmath.mpf(L) * mpmath.tanh(mpmath.mpf(beta) / mpmath.mpf(L) * u),
        mp_d2=lambda u, y: mpmath.mpf(beta) * mpmath.sech(mpmath.mpf(beta) / mpmath.mpf(L) * u) ** 2,
        beta=beta, xi=L, labels=None)


LOSSES: dict[str, GlmLoss] = {
    "logistic": _logistic(),
    "logistic01": _logistic01(),
    "squared": _squared(),
    "logcosh": logcosh(1.0, 1.0),
}
"""The named GLM losses; ``"logcosh"`` is the L = β = 1 instance, other parameters via :func:`logcosh`."""

LOSS_NAMES = ("logistic", "logistic01", "squared", "logcosh")


def get_loss(loss) -> GlmLoss:
    """A GlmLoss from a name in LOSSES or a GlmLoss itself; ParameterError otherwise."""
    if isinstance(loss, GlmLoss):
        return loss
    try:
        return LOSSES[str(loss)]
    except KeyError:
        raise ParameterError(f"loss: unknown loss {loss!r}; expected one of {sorted(LOSSES)} or a GlmLoss") from None
