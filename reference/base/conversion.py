"""RDP → (ε, δ)-DP conversions, with the order α chosen by a continuous search.

Given an RDP curve α ↦ ε(α) of one step and T steps (RDP composes additively: T·ε(α)):
- improved conversion (Balle, Barthe, Gaboardi, Hsu & Sato 2020, "Hypothesis testing
  interpretations and Rényi DP", Thm 21; Canonne, Kamath & Steinke 2020, "The discrete Gaussian for DP",
  Prop. 12): for every α > 1 the mechanism is (F(α), δ)-DP with
      F(α) = T·ε(α) + log((α−1)/α) − (log δ + log α)/(α − 1);
- the basic conversion (Mironov 2017, Prop. 3): F(α) = T·ε(α) + log(1/δ)/(α − 1);
- the reverse direction (CKS20 Prop. 12 solved for δ): (ε, δ(α))-DP with
      log δ(α) = (α − 1)(T·ε(α) − ε) − log α + (α − 1)·log(1 − 1/α).

Each holds for EVERY α > 1, so a value at any α is a valid bound; the reported value is the one at the α found
by the search below (which makes it the infimum up to the search tolerance).

The search (`_minimise`) is not limited to a grid: a geometric grid in α − 1 (4 points per decade, over
[1e-3, 1e3] first and extended by decades up to ALPHA_MAX, or down to 1e-12, while the best point is at an end) brackets the
minimum, then Brent's method (parabolic steps safeguarded by golden sections) refines it. The search runs at a
fixed SEARCH_DPS = 20 digits, so it returns the same α* at every working precision; α* is located to about 14
significant digits (the objective is flat there: the value at α* is within ~1e-28 relative of the infimum), and
the objective is then evaluated at α* at the working precision. The result is exactly F(α*), a valid bound.
Checks: the refined minimum must not exceed any grid value (so it is a local minimum inside its bracket).

Orders where the curve is +∞, or where the curve's statement raises ConditionError (it is outside its own
conditions, so it gives no bound there), count as F = +∞ and are skipped; if every order is skipped the
conversion raises ConditionError. A minimum at ALPHA_MAX (a curve that keeps improving with α, e.g. a
near-zero-loss mechanism) is reported as the minimum over (1, ALPHA_MAX] — still a valid bound.

ε is never negative: when F(α*) < 0 the reported ε is 0. This is a valid bound, not a clipped value: the
hockey-stick divergence sup_S P(S) − e^ε Q(S) is non-increasing in ε, so (ε', δ)-DP with ε' < 0 implies
(0, δ)-DP; and CKS20's pointwise inequality (1 − e^{ε−x})₊ ≤ e^{(α−1)(x−ε)}(1−1/α)^{α−1}/α holds for every real
ε, so F(α) < 0 is a legitimate (ε', δ) guarantee. Likewise δ is reported as min(1, δ(α*)) (every mechanism is
(ε, 1)-DP).
"""
from __future__ import annotations

import functools

import mpmath
from mpmath import mp, mpf

from ..catalogue import Source, Statement, Value, register
from ..domains import DELTA, EPS, STEPS, Param
from ..errors import ConditionError, PrecisionError
from ..precision import checked_param as _check, self_checked, to_mpf
from .spec import RDP_CURVE as CURVE

SEARCH_DPS = 20
ALPHA_MAX = mpf(10) ** 6
_GRID_PER_DECADE = 4
_CITATION_BBG = ("Balle et al., Hypothesis testing interpretations and Rényi DP, AISTATS 2020 (Thm 21); "
                 "Canonne, Kamath & Steinke, The discrete Gaussian for DP, NeurIPS 2020 (Prop. 12)")




# ---------------------------------------------------------------------------------------------------
# the objectives at one order


def dp_at_order(eps_alpha, alpha, delta):
    """BBG+20 Thm 21 / CKS20 Prop. 12 at one order: ε = ε(α) + log((α−1)/α) − (log δ + log α)/(α−1)
    (may be negative; see the module docstring)."""
    return eps_alpha + mpmath.log((alpha - 1) / alpha) - (mpmath.log(delta) + mpmath.log(alpha)) / (alpha - 1)


def dp_at_order_mironov(eps_alpha, alpha, delta):
    """Mironov 2017 Prop. 3 at one order: ε = ε(α) + log(1/δ)/(α − 1)."""
    return eps_alpha - mpmath.log(delta) / (alpha - 1)


def log_delta_at_order(eps_alpha, alpha, eps):
    """CKS20 Prop. 12 solved for δ, in log space: (α−1)(ε(α) − ε) − log α + (α−1) log(1 − 1/α)."""
    return (alpha - 1) * (eps_alpha - eps) - mpmath.log(alpha) + (alpha - 1) * mpmath.log1p(-1 / alpha)


# ---------------------------------------------------------------------------------------------------
# the search over α


def _safe(curve, alpha):
    """ε(α), or +∞ where the curve is outside its statement's conditions."""
    try:
        value = curve(alpha)
    except ConditionError:
        return mpf("inf")
    return to_mpf(value)


@functools.lru_cache(maxsize=64)
def _minimise(objective_name: str, curve, steps: int, param: str):
    """The α in (1, ALPHA_MAX] minimising the named objective (see module docstring), at SEARCH_DPS digits.
    Cached: the self-check evaluates the same conversion at two precisions."""
    objective = _OBJECTIVES[objective_name]
    with mp.workdps(SEARCH_DPS):
        p = mpf(param)
        f = lambda a: objective(steps * _safe(curve, a), a, p)  # noqa: E731
        grid = {}

        def evaluate(a):
            if a not in grid:
                grid[a] = f(a)
            return grid[a]

        lo_exp, hi_exp = -3, 3
        while True:
            n = (hi_exp - lo_exp) * _GRID_PER_DECADE
            points = [1 + mpf(10) ** (lo_exp + mpf(i) / _GRID_PER_DECADE) for i in range(n + 1)]
            points = [a for a in points if a <= ALPHA_MAX]
            values = [evaluate(a) for a in points]
            finite = [i for i, v in enumerate(values) if not mpmath.isinf(v)]
            if not finite:
                raise ConditionError(getattr(curve, "__name__", "curve"),
                                     ["the curve is infinite (or outside its conditions) at every order tried"])
            best = min(finite, key=lambda i: values[i])
            if best == len(points) - 1 and 1 + mpf(10) ** hi_exp < ALPHA_MAX:  # the grid's top 1 + 10^hi_exp
                hi_exp += 1
                continue
            if best == 0 and lo_exp > -12:
                lo_exp -= 2
                continue
            break
        if best in (0, len(points) - 1):
            return points[best]
        alpha = _brent(evaluate, points[best - 1], points[best], points[best + 1])
        if evaluate(alpha) > values[best]:
            raise PrecisionError(f"order search: refined value above the grid minimum at α={points[best]}")
        return alpha


def _brent(f, a, x, b, rel_tol=mpf(10) ** -9, max_iter=200):
    """Brent's minimisation (parabolic interpolation safeguarded by golden sections) of f on [a, b], starting
    from x with f(x) ≤ f(a), f(b). Returns the abscissa of the best value found."""
    golden = (3 - mpmath.sqrt(5)) / 2
    w = v = x
    fx = fw = fv = f(x)
    d = e = mpf(0)
    for _ in range(max_iter):
        m = (a + b) / 2
        tol = rel_tol * abs(x)
        if abs(x - m) <= 2 * tol - (b - a) / 2:
            return x
        parabolic = False
        if abs(e) > tol and not mpmath.isinf(fw) and not mpmath.isinf(fv):
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2 * (q - r)
            if q > 0:
                p = -p
            q = abs(q)
            if abs(p) < abs(q * e / 2) and q * (a - x) < p < q * (b - x):
                e, d = d, p / q
                parabolic = True
                u = x + d
                if u - a < 2 * tol or b - u < 2 * tol:
                    d = tol if x < m else -tol
        if not parabolic:
            e = (a - x) if x >= m else (b - x)
            d = golden * e
        u = x + (d if abs(d) >= tol else (tol if d > 0 else -tol))
        fu = f(u)
        if fu <= fx:
            if u >= x:
                a = x
            else:
                b = x
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            if u < x:
                a = u
            else:
                b = u
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v == x or v == w:
                v, fv = u, fu
    return x


_OBJECTIVES = {"bbg": dp_at_order, "mironov": dp_at_order_mironov, "delta": log_delta_at_order}


def _optimum(objective_name, curve, steps, param):
    """(objective value at α* at the working precision, α*)."""
    alpha = +_minimise(objective_name, curve, int(steps), mpmath.nstr(param, SEARCH_DPS))
    value = _OBJECTIVES[objective_name](steps * to_mpf(curve(alpha)), alpha, param)
    return value, alpha


# ---------------------------------------------------------------------------------------------------
# public evaluators


@self_checked
def rdp_to_dp_order(curve, delta, steps=1):
    """(ε, α*): ε = max(0, F(α*)), F(α) = T·ε(α) + log((α−1)/α) − (log δ + log α)/(α − 1) (BBG+20 Thm 21 /
    CKS20 Prop. 12), α* the order found by the continuous search (module docstring)."""
    curve, delta, steps = _check("curve", CURVE, curve), _check("delta", DELTA, delta), _check("steps", STEPS, steps)
    value, alpha = _optimum("bbg", curve, int(steps), delta)
    return max(mpf(0), value), alpha


@self_checked
def rdp_to_dp(curve, delta, steps=1):
    """ε(δ) = min over real α > 1 of T·ε(α) + log((α−1)/α) − (log δ + log α)/(α − 1), and ≥ 0.

    Balle et al. 2020 Thm 21 / Canonne, Kamath & Steinke 2020 Prop. 12; α found by a continuous search."""
    return rdp_to_dp_order(curve, delta, steps)[0]


@self_checked
def rdp_to_dp_mironov(curve, delta, steps=1):
    """ε(δ) = min over real α > 1 of T·ε(α) + log(1/δ)/(α − 1) (Mironov 2017, Prop. 3)."""
    curve, delta, steps = _check("curve", CURVE, curve), _check("delta", DELTA, delta), _check("steps", STEPS, steps)
    return max(mpf(0), _optimum("mironov", curve, int(steps), delta)[0])


@self_checked
def rdp_to_delta(curve, eps, steps=1):
    """δ(ε) = min over real α > 1 of e^{(α−1)(T·ε(α) − ε)} (1 − 1/α)^{α−1} / α, and ≤ 1 (CKS20 Prop. 12)."""
    curve, eps, steps = _check("curve", CURVE, curve), _check("eps", EPS, eps), _check("steps", STEPS, steps)
    log_delta = _optimum("delta", curve, int(steps), eps)[0]
    return min(mpf(1), mpmath.exp(log_delta))


_CURVE_PARAM = Param("curve", CURVE, "RDP curve α ↦ ε(α) of one step (a callable, or a statement id on the CLI)",
                     example="base.gaussian_rdp")
_STEPS_PARAM = Param("steps", STEPS, "number of composed steps T (RDP adds up: T·ε(α))", default=1, example=1)

register(Statement(
    id="base.rdp_to_dp",
    fast="dpspec.fast.base.conversion:rdp_to_dp",
    source=Source("outside", "Thm 21 / Prop. 12", "RDP → (ε, δ) with the optimal order (continuous search)",
                  _CITATION_BBG),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) = min_α T·ε(α) + log((α−1)/α) − (log δ + log α)/(α−1), clamped at 0 (a valid bound)",
    params=(_CURVE_PARAM, Param("delta", DELTA, "target δ", example="1e-5"), _STEPS_PARAM),
    reference=rdp_to_dp,
    monotone={"delta": -1, "steps": +1},
    note="order search: geometric grid then Brent at 20 digits; ε at α* evaluated at the working precision",
))

register(Statement(
    id="base.rdp_to_dp_mironov",
    fast="dpspec.fast.base.conversion:rdp_to_dp_mironov",
    source=Source("outside", "Prop. 3", "basic RDP → (ε, δ) conversion",
                  "Mironov, Rényi Differential Privacy, CSF 2017"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) = min_α T·ε(α) + log(1/δ)/(α−1)",
    params=(_CURVE_PARAM, Param("delta", DELTA, "target δ", example="1e-5"), _STEPS_PARAM),
    reference=rdp_to_dp_mironov,
    monotone={"delta": -1, "steps": +1},
))

register(Statement(
    id="base.rdp_to_delta",
    fast="dpspec.fast.base.conversion:rdp_to_delta",
    source=Source("outside", "Prop. 12", "RDP → δ for a given ε (optimal order)",
                  "Canonne, Kamath & Steinke, The discrete Gaussian for DP, NeurIPS 2020"),
    kind="eps_delta",
    claim="upper",
    value=Value("delta", "eps"),
    summary="δ(ε) = min_α e^{(α−1)(T·ε(α) − ε)} (1 − 1/α)^{α−1}/α, capped at 1",
    params=(_CURVE_PARAM, Param("eps", EPS, "target ε ≥ 0", example=1), _STEPS_PARAM),
    reference=rdp_to_delta,
    monotone={"eps": -1, "steps": +1},
))
