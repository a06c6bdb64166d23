"""The clipped-gradient GLM loss of Song et al. 2020 (Lemma 5.1) used by Algorithm 7: seed 003, Thm C.6.2, Thm C.6.3
(lines 10080–10160); notes shared/notes/objpert-rdp.md §2.3 (Thm C.6.2, C.6.3), §6 E4_11, E4_12.

For a convex f(u; y), u = xᵀθ, and c = C/‖x‖: u_L solves f'(u_L) = −c (−∞ when f' > −c everywhere), u_H solves
f'(u_H) = c (+∞ when f' < c everywhere), and

    f_C(u) = f(u_L) − c(u − u_L)  (u < u_L),   f(u)  (u_L ≤ u ≤ u_H),   f(u_H) + c(u − u_H)  (u > u_H).

The additive constants f(u_L), f(u_H) are missing in the text (erratum E4_11: without them f_C is discontinuous; the
authors' code has them). Then ∇_θ f_C(xᵀθ; y) = f_C'(u) x has norm min(|f'(u)|‖x‖, C) ≤ C (Song et al.'s
∂ℓ_C = {min(1, C/‖g‖) g : g ∈ ∂ℓ}, which the text garbles to C/‖u_x(θ)‖), f_C is convex and C¹, and
f_C'' = f''·1[u_L < u < u_H] ≤ β a.e. (Thm C.6.3); f_C is not C² at u_L, u_H (E4_12, the text defers to Chaudhuri et
al. 2011 Cor 13).

Closed forms of u_L, u_H (from the authors' code, guarded): logistic with labels {0, 1} (f' = sigmoid(u) − y):
u_L = logit(y − c) when 0 < y − c < 1, u_H = logit(y + c) when 0 < y + c < 1, the side being unclipped otherwise
(the code's logit returns NaN there); logistic with labels ±1 is the same function of u with y01 = (1 + y)/2;
squared (u − y)²/2 (f' = u − y, helper C's convention): u_{L,H} = y ∓ c; log-cosh (L²/β) log cosh(βu/L):
u_H = −u_L = (L/β) atanh(c/L) when c < L.

Public helper (name fixed by the session contract): :func:`clipped_glm` (numpy f, d1, d2, as a GlmLoss of
reference/objpert/losses.py, so helper C's solver minimises it)."""
from __future__ import annotations

import math

import mpmath
import numpy as np
from mpmath import mpf

from ..catalogue import Condition, Source, Statement, Value, register
from ..errors import DomainError, ParameterError
from ..precision import self_checked
from .losses import GlmLoss, get_loss
from .spec import LABEL_CODING, P_CLIP, P_LABEL, P_LOSS_CLIPPED, P_X_NORM, SEED

SONG_2020 = ("Song, Steinke, Thakkar & Thakurta, Evading the curse of dimensionality in unconstrained private GLMs, "
             "AISTATS 2021 (arXiv 2006.06783), Lemma 5.1")
CLIPPABLE = ("logistic", "logistic01", "squared", "logcosh")


def _kind(loss: GlmLoss) -> str:
    for k in CLIPPABLE:
        if loss.name == k or loss.name.startswith(k + "("):
            return k
    raise ParameterError(f"clipped_glm: no closed form for u_L, u_H of the loss {loss.name!r}; expected one of "
                         f"{CLIPPABLE}")


def _np_logit(p):
    """logit(p) = log p − log1p(−p) for p in (0, 1); NaN never leaves: callers mask p outside (0, 1) first."""
    return np.log(p) - np.log1p(-p)


def _np_breakpoints(kind, c, y, loss):
    """(u_L, u_H) as float arrays (±inf for an unclipped side), c = C/‖x‖ > 0."""
    c, y = np.broadcast_arrays(np.asarray(c, float), np.asarray(y, float))
    if kind in ("logistic", "logistic01"):
        y01 = (1 + y) / 2 if kind == "logistic" else y
        lo_p, hi_p = y01 - c, y01 + c
        lo_ok = (lo_p > 0) & (lo_p < 1)
        hi_ok = (hi_p > 0) & (hi_p < 1)
        u_l = np.where(lo_ok, _np_logit(np.where(lo_ok, lo_p, 0.5)), -np.inf)
        u_h = np.where(hi_ok, _np_logit(np.where(hi_ok, hi_p, 0.5)), np.inf)
        return u_l, u_h
    if kind == "squared":
        return y - c, y + c
    lip, beta = float(loss.xi), float(loss.beta)  # logcosh: f' = L tanh(βu/L)
    ok = c < lip
    u_h = np.where(ok, (lip / beta) * np.arctanh(np.where(ok, c / lip, 0.0)), np.inf)
    return -u_h, u_h


class ClippedGlm(GlmLoss):
    """A clipped GLM loss; a GlmLoss (numpy f, d1, d2 broadcasting u, y against the stored ‖x‖; mpmath scalars for a
    scalar ‖x‖) with the extra attributes ``base``, ``C``, ``x_norm`` and :meth:`breakpoints`."""


def clipped_glm(loss, C, x_norm) -> GlmLoss:
    """Song et al.'s clipped loss f_C (seed 003, Thm C.6.2 with the additive constants, erratum E4_11) of ``loss``
    (a name of reference/objpert/losses.py LOSSES — logistic, logistic01, squared, logcosh — or a logcosh GlmLoss)
    at clip norm C and feature norm ‖x‖ (a number, or an array aligned with the records): c = C/‖x‖, f_C' = clip of
    f' to [−c, c], f_C'' = f'' between u_L and u_H and 0 outside. Returns a GlmLoss named "clipped(...)" with
    ``beta`` = the base β (Thm C.6.3) and ``xi`` = min(ξ, c_max)."""
    base = get_loss(loss)
    kind = _kind(base)
    C = float(C)
    if not (math.isfinite(C) and C > 0):
        raise DomainError("C", C, "C > 0 (finite)")
    xn = np.asarray(x_norm, dtype=float)
    if not np.all(np.isfinite(xn) & (xn > 0)):
        raise DomainError("x_norm", x_norm, "‖x‖ > 0 (finite)")
    c = C / xn

    def parts(u, y):
        u = np.asarray(u, float)
        y = np.asarray(y, float)
        cc = np.broadcast_to(c, np.broadcast(u, y, c).shape) if np.ndim(c) else np.full(np.broadcast(u, y).shape, c)
        yy = np.broadcast_to(y, cc.shape)
        uu = np.broadcast_to(u, cc.shape)
        u_l, u_h = _np_breakpoints(kind, cc, yy, base)
        return uu, yy, cc, u_l, u_h

    def f(u, y):
        uu, yy, cc, u_l, u_h = parts(u, y)
        lo, hi = uu < u_l, uu > u_h
        mid = np.where(lo | hi, np.clip(uu, np.where(np.isfinite(u_l), u_l, -1e300),
                                        np.where(np.isfinite(u_h), u_h, 1e300)), uu)
        f_l = base.f(np.where(np.isfinite(u_l), u_l, 0.0), yy)
        f_h = base.f(np.where(np.isfinite(u_h), u_h, 0.0), yy)
        return np.where(lo, f_l - cc * (uu - np.where(lo, u_l, 0.0)),
                        np.where(hi, f_h + cc * (uu - np.where(hi, u_h, 0.0)), base.f(mid, yy)))

    def d1(u, y):
        uu, yy, cc, u_l, u_h = parts(u, y)
        return np.clip(base.d1(uu, yy), -cc, cc)

    def d2(u, y):
        uu, yy, cc, u_l, u_h = parts(u, y)
        return np.where((uu < u_l) | (uu > u_h), 0.0, base.d2(uu, yy))

    scalar = np.ndim(xn) == 0

    def _mp_points(y):
        if not scalar:
            raise ParameterError("clipped_glm: the mpmath forms need a scalar x_norm")
        return mp_breakpoints(kind, mpf(C) / mpf(float(xn)), mpf(y), base)

    def mp_f(u, y):
        u_l, u_h = _mp_points(y)
        c_mp = mpf(C) / mpf(float(xn))
        if u < u_l:
            return base.mp_f(u_l, y) - c_mp * (u - u_l)
        if u > u_h:
            return base.mp_f(u_h, y) + c_mp * (u - u_h)
        return base.mp_f(u, y)

    def mp_d1(u, y):
        c_mp = mpf(C) / mpf(float(xn))
        return max(-c_mp, min(c_mp, base.mp_d1(u, y)))

    def mp_d2(u, y):
        u_l, u_h = _mp_points(y)
        return mpf(0) if (u < u_l or u > u_h) else base.mp_d2(u, y)

    out = ClippedGlm(f"clipped({base.name}, C={C!r})", f=f, d1=d1, d2=d2, mp_f=mp_f, mp_d1=mp_d1, mp_d2=mp_d2,
                     beta=base.beta, xi=min(base.xi, float(np.max(c))), labels=base.labels)
    object.__setattr__(out, "base", base)
    object.__setattr__(out, "C", C)
    object.__setattr__(out, "x_norm", xn)
    object.__setattr__(out, "breakpoints", lambda y: _np_breakpoints(kind, c, y, base))
    object.__setattr__(out, "row", lambda i: clipped_glm(base, C, float(xn) if scalar else float(xn[i])))
    return out


# ---------------------------------------------------------------------------------------------------------------
# mpmath breakpoints and Theorem C.6.3


def _mp_logit(p):
    return mpmath.log(p) - mpmath.log1p(-p)


def mp_breakpoints(kind, c, y, base=None):
    """(u_L, u_H) at the working precision (±inf for an unclipped side); c = C/‖x‖ (Thm C.6.2, notes §2.3)."""
    inf = mpf("inf")
    if kind in ("logistic", "logistic01"):
        y01 = (1 + y) / 2 if kind == "logistic" else y
        lo_p, hi_p = y01 - c, y01 + c
        u_l = _mp_logit(lo_p) if 0 < lo_p < 1 else -inf
        u_h = _mp_logit(hi_p) if 0 < hi_p < 1 else inf
        return u_l, u_h
    if kind == "squared":
        return y - c, y + c
    lip, beta = mpf(base.xi), mpf(base.beta)
    u_h = (lip / beta) * mpmath.atanh(c / lip) if c < lip else inf
    return -u_h, u_h


def _label_fits(p) -> bool:
    y = p["y"]
    if p["loss"] == "logistic":
        return y in (-1, 1)
    if p["loss"] == "logistic01":
        return y in (0, 1)
    return True


@self_checked
def thm_c6_3(loss, C, x_norm, y):
    """sup_u f_C''(u; y) of the clipped loss (seed 003, Thm C.6.3): f_C'' = f'' on (u_L, u_H) and 0 outside, so the
    supremum is sup_{u_L < u < u_H} f''(u) ≤ β = sup f'' (β-smoothness is kept). Logistic (either coding): f'' =
    p(1 − p) with p = sigmoid(u), maximal 1/4 at u = 0; on (u_L, u_H) it is 1/4 unless the interval lies on one side
    of 0, then p(1 − p) at the near end, where p = y01 ∓ c (c = C/‖x‖). Squared: 1 (the interval is never empty)."""
    c = C / x_norm
    if loss == "squared":
        return mpf(1)
    y01 = (1 + y) / 2 if loss == "logistic" else y
    hi_p, lo_p = y01 + c, y01 - c
    if 0 < hi_p <= mpf(1) / 2:  # u_H ≤ 0
        return hi_p * (1 - hi_p)
    if mpf(1) / 2 <= lo_p < 1:  # u_L ≥ 0
        return lo_p * (1 - lo_p)
    return mpf(1) / 4


def _clipped_properties(statement, p):
    """Property (notes §8, Thm C.6.3): on a grid around u_L, u_H the numpy clipped loss has |f_C'|·‖x‖ ≤ C, f_C'
    non-decreasing (convexity), f_C'' ≤ the returned sup (also by finite differences of f_C'), the returned sup ≤ β,
    and f_C continuous at u_L and u_H (the additive constants of erratum E4_11)."""
    value = statement.reference(**p)
    cl = clipped_glm(p["loss"], float(p["C"]), float(p["x_norm"]))
    beta = cl.beta
    if value > beta * (1 + mpf(10) ** -30):
        raise AssertionError(f"sup f_C'' = {value} > β = {beta}")
    y = float(p["y"])
    u_l, u_h = (float(v) for v in cl.breakpoints(np.array(y)))
    centre = [v for v in (u_l, u_h, 0.0) if math.isfinite(v)]
    grid = np.unique(np.concatenate([np.linspace(m - 8, m + 8, 801) for m in centre]))
    grid = grid[np.isfinite(grid)]
    d1 = cl.d1(grid, y)
    d2 = cl.d2(grid, y)
    v = float(value)
    if np.any(np.abs(d1) * float(p["x_norm"]) > float(p["C"]) * (1 + 1e-12)):
        raise AssertionError("|f_C'|·‖x‖ > C on the grid")
    if np.any(np.diff(d1) < -1e-12 * (1 + np.abs(d1[:-1]))):
        raise AssertionError("f_C' decreases: f_C not convex")
    if np.any(d2 > v * (1 + 1e-9) + 1e-300):
        raise AssertionError(f"f_C'' = {d2.max()} > sup {v}")
    wide = np.diff(grid) > 1e-4  # merged grids leave near-duplicate points; their quotients are rounding noise
    slopes = np.diff(d1)[wide] / np.diff(grid)[wide]
    if np.any(slopes > v * (1 + 1e-6) + 1e-12):
        raise AssertionError(f"(f_C'(u+h) − f_C'(u))/h = {slopes.max()} > sup {v}")
    for b in (u_l, u_h):
        if math.isfinite(b):
            h = 1e-7 * max(1.0, abs(b))
            jump = abs(float(cl.f(np.array(b + h), y)) - float(cl.f(np.array(b - h), y)))
            if jump > 4 * h * max(1.0, float(p["C"] / p["x_norm"])) + 1e-9:
                raise AssertionError(f"f_C jumps by {jump} at {b}")


register(Statement(
    id="objpert.thm_c6_3",
    source=Source(SEED, "Thm C.6.3 (with Thm C.6.2 = Song et al. 2020 Lemma 5.1)",
                  "the clipped-gradient GLM loss keeps β-smoothness (and has |f_C'|·‖x‖ ≤ C)", SONG_2020),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="sup_u f_C''(u; y) = sup_{u_L<u<u_H} f''(u; y) ≤ β, with f_C' = clip(f', ±C/‖x‖), u_{L,H}: f'(u) = ∓C/‖x‖",
    params=(P_LOSS_CLIPPED, P_CLIP, P_X_NORM, P_LABEL),
    reference=thm_c6_3,
    conditions=(Condition.of(LABEL_CODING, _label_fits),),
    properties=(_clipped_properties,),
    note="Returns the smoothness constant of the clipped loss in u = xᵀθ (the text's claim is that it is ≤ β = 1/4 "
         "for logistic, 1 for squared; in θ multiply by ‖x‖²); the property checks the numpy clipped loss "
         "(clipped_glm, used by Algorithm 7 in reference/objpert/amp_algorithms.py) on a grid: |f_C'|‖x‖ ≤ C, "
         "convexity, f_C'' ≤ the value, continuity (E4_11's constants). f_C is C¹, not C² (E4_12): Thm 4.4.1 applies "
         "to it by the Huber-type argument of Chaudhuri et al. 2011 Cor 13, left as an exercise in the text.",
))
