"""RDP → (ε, δ)-DP conversions, with the order α chosen by a certified search.

Given an RDP curve α ↦ ε(α) of one step and T steps (RDP composes additively: T·ε(α)):
- improved conversion (Balle, Barthe, Gaboardi, Hsu & Sato 2020, "Hypothesis testing
  interpretations and Rényi DP", Thm 21; Canonne, Kamath & Steinke 2020, "The discrete Gaussian for DP",
  Prop. 12): for every α > 1 the mechanism is (F(α), δ)-DP with
      F(α) = T·ε(α) + log((α−1)/α) − (log δ + log α)/(α − 1);
- the basic conversion (Mironov 2017, Prop. 3): F(α) = T·ε(α) + log(1/δ)/(α − 1);
- the reverse direction (CKS20 Prop. 12 solved for δ): (ε, δ(α))-DP with
      log δ(α) = (α − 1)(T·ε(α) − ε) − log α + (α − 1)·log(1 − 1/α).

Each holds for EVERY α > 1, so the value at any α is a valid bound; the reported value is the objective at the
order α* found by the search below, evaluated at the working precision (so it is a valid bound whatever the search
does), and the search makes it the infimum over all α > 1 up to a certified gap.

Why the search can be certified (the premise). For a Rényi divergence, (α − 1)·D_α(P‖Q) = log ∫ p^α q^{1−α} is
convex in α (Hölder's inequality; Van Erven & Harremoës 2014, "Rényi divergence and Kullback–Leibler divergence",
IEEE Trans. IT 60(7), §III), so an RDP curve that is the divergence of a fixed pair, or a maximum or positive sum of
such curves (Gaussian, Laplace, the sampled Gaussian in either direction or their max, T-fold compositions), has
G(α) = (α − 1)·T·ε(α) convex in α. Write v = α − 1 and u = 1/v. Then
- log δ(α) = G(α) − v·ε − log(1 + v) + v·log(v/(1 + v)) is convex in v: −log(1 + v) is convex, and
  v·log(v/(1 + v)) has second derivative 1/(v(1 + v)²) > 0;
- F(α) = N(v)/v for the two ε objectives, with N(v) = G + v·log(v/(1 + v)) − log(1 + v) + log(1/δ) (BBG+20) or
  N(v) = G + log(1/δ) (Mironov) convex in v; so F = u·N(1/u) is the perspective of N at (1, u): convex in u.
Both are therefore unimodal in s = log(α − 1) (a monotone change of variable), so a grid point lower than its two
neighbours brackets the global minimiser, and a convex function lies above every chord through two of its points
extended beyond them: on an interval between consecutive sampled points (in the convex coordinate c, u or v) it lies
above each chord through two sampled points to the left extended rightwards and each chord through two points to
the right extended leftwards, and beyond the sampled range above the outermost chords (for the ε objectives as
α → 1 also above the curve-free bound F ≥ log v + log(1/δ)/v − v − 1, valid for v ≤ log(1/δ) because ε(α) ≥ 0;
Mironov: F ≥ log(1/δ)/v; for δ, as α → 1, log δ(α) ≥ −v0·ε + v0·log v0 − (1 + v0)·log(1 + v0) for every α − 1 ≤ v0 ≤ 1/e,
again from ε(α) ≥ 0: `_Search._curve_free`; where that bound can close the tail α → 1, the search jumps to the order
where it does, `_Search.jump_down`). The reported δ is min(1, ·), so a log δ ≥ 0 counts as 0 in the certificate, and
where the best value is the cap (ε = 0, δ = 1) no Brent step is taken. With every sampled value widened by its rounding allowance (NOISE × the sum of the
absolute values of the objective's terms), the minimum over the intervals of the best of these lines is a lower
bound on the infimum over all α > 1; the search stops when the best value found is within the tolerance of it
(CERT_RTOL relative for ε, CERT_RTOL absolute in log δ, i.e. relative in δ; never below 100 rounding allowances).
The premise is checked, not assumed: the sampled values must be convex in c (chord slopes non-decreasing within
their allowances). For a curve whose samples are not (an upper bound that is not itself a divergence, e.g. some PTR
bounds) the result is the best order found (grid, then Brent, then the probes), a valid bound but a local minimum
only, and is returned without a certificate. A certificate that will not close (the minimiser below α − 1 = 1e-20
or above 10^4096, or a gap that MAX_POLISH evaluations do not close) raises PrecisionError naming the curve.

The search (`_minimise`, at SEARCH_DPS = 20 digits, so that it returns the same α* at every working precision):
0. for δ(ε) with ε > 0, first one order where a curve with T·ε(α) ≤ ε/2 puts δ below 10^LOG10_DELTA_FLOOR
   (`_Search.floor_probe`); if δ is below the floor there, the search stops at once (see below);
1. a grid in s = log(α − 1) with step 2 (7 points, α − 1 from e^−6 to e^6): the objectives are unimodal in s, so
   the grid only brackets the minimiser, which Brent and the certificate locate (a finer grid cost ~20 more curve
   evaluations per conversion, which dominated with expensive curves such as the sampled Gaussian);
2. extension, one point at a time, while the best point is the last one on a side and that side's tail bound is
   not within the tolerance: upwards with step 2 to α − 1 = e^14, then doubling s (e^28, e^56, … up to α − 1 =
   e^9431 ≈ 10^4096: a tiny δ puts the BBG+20 minimiser near α ≈ 1/δ); downwards with steps 2, then 4 and 6
   to α − 1 = e^−46 ≈ 1e-20 (orders that close to 1 are formed with extra digits so that α − 1 keeps 20 significant
   digits); for δ(ε), once δ at the best point is below the floor the search stops here (no Brent, no probes);
3. Brent's method (parabolic steps safeguarded by golden sections, to a width of BRENT_TOL in s) on the grid bracket
   around the best point, then probes at distances PROBES on both sides of its result. Where a parabolic step is
   rejected, Brent first tries the corner of the outer chords in the convex coordinate (`_Search.v_step`, with an
   exponential model of a wall where it lies between the best point and that corner) instead of a golden section:
   on a cliff of ε(α) (base.sgm_rdp at q = 9.39e-7, σ = 100: ε jumps from 1e-11 to 1e-4 within Δα ≈ 1 near
   α ≈ 277559) golden sections shrank an 8-wide bracket in s by 0.618 per curve evaluation (56 evaluations, ~50 s;
   now 44). At most FALLBACK_RUN such steps in a row that have not halved the bracket, then a golden section, so
   the search stays bounded; the step rule only proposes orders, the certificate below decides;
4. certification: while the gap is above the tolerance, the interval with the weakest lower bound gets a point where
   that bound is lowest (kept inside the interval's middle 90% in s), or the tail with it is extended; at most
   MAX_POLISH evaluations. In all, at most 1 + 7 + 14 + 15 grid points, 200 Brent steps, 2 probes and 60 more
   (typically 20 to 25 curve evaluations for a smooth curve, plus one at α* per working precision).
For δ(ε), as soon as some order has δ(α) < 10^LOG10_DELTA_FLOOR, the search stops: the reported δ is then within
10^LOG10_DELTA_FLOOR (absolute) of the infimum (δ ≥ 0). That infimum may be 0: when δ(α) still decreases at
the largest order tried and the curve has a value at α = ∞ (e.g. base.laplace_rdp: ε(∞) = 1/b) with T·ε(∞) ≤ ε, the
composition is (ε, 0)-DP ((∞, ε')-RDP is ε'-DP, Mironov 2017; RDP composes additively, his Prop. 1) and δ = 0 is
reported, at α* = ∞.

Curves. Orders where the curve is +∞, where its statement raises ConditionError (outside its own conditions: no bound
there) or a DomainError on ``alpha`` (outside the curve's α domain, e.g. the ZW19 sum's α ≤ 1e5) count as F = +∞; if
every order tried is such, the conversion raises ConditionError. A curve value that is NaN, negative (RDP is ≥ 0) or
not a number is refused with a DomainError naming the curve and the order; any other failure of the curve (e.g. a
PrecisionError of its own self-check) is re-raised as ONE short error naming the curve and the order (PrecisionError
for arithmetic failures, ParameterError otherwise), its message cut to one line.

ε is never negative: when F(α*) < 0 the reported ε is 0. This is a valid bound, not a clipped value: the
hockey-stick divergence sup_S P(S) − e^ε Q(S) is non-increasing in ε, so (ε', δ)-DP with ε' < 0 implies
(0, δ)-DP; and CKS20's pointwise inequality (1 − e^{ε−x})₊ ≤ e^{(α−1)(x−ε)}(1−1/α)^{α−1}/α holds for every real
ε, so F(α) < 0 is a legitimate (ε', δ) guarantee. Likewise δ is reported as min(1, δ(α*)) (every mechanism is
(ε, 1)-DP).
"""
from __future__ import annotations

import functools
import re

import mpmath
from mpmath import mp, mpf

from ..catalogue import Source, Statement, Value, register
from ..domains import DELTA, EPS, STEPS, Param
from ..errors import ConditionError, DomainError, ParameterError, PrecisionError
from ..precision import checked_param as _check, self_checked
from .spec import RDP_CURVE as CURVE

SEARCH_DPS = 20
NOISE = mpf(10) ** -17  # rounding allowance of one objective value at SEARCH_DPS digits, relative to its terms' size
CERT_RTOL = mpf(10) ** -12  # certified gap: relative for ε, absolute in log δ
LOG10_DELTA_FLOOR = -400
BRENT_TOL = mpf(10) ** -10  # Brent's stopping width in s = log(α − 1)
MAX_POLISH = 60
FALLBACK_RUN = 3  # Brent: at most this many fallback (V-corner) steps in a row that have not halved the bracket
PROBES = (mpf(10) ** -7,)  # distances in s of the probes placed on both sides of Brent's result
# the grid in s = log(α − 1): the core, then the extension points in the order they are added (step 2 in s: the
# objectives are unimodal in s, so the grid only has to bracket the minimiser; Brent and the certificate do the rest)
S_CORE = tuple(mpf(k) for k in range(-6, 7, 2))
S_UP = tuple(mpf(k) for k in (8, 10, 12, 14)) + tuple(mpf(28 * 2 ** j) for j in range(9)) + (mpf(9431),)
S_DOWN = tuple(-mpf(k) for k in (8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 32, 36, 40, 46))
_CITATION_BBG = ("Balle et al., Hypothesis testing interpretations and Rényi DP, AISTATS 2020 (Thm 21); "
                 "Canonne, Kamath & Steinke, The discrete Gaussian for DP, NeurIPS 2020 (Prop. 12)")
_STATEMENTS = {"bbg": "base.rdp_to_dp", "mironov": "base.rdp_to_dp_mironov", "delta": "base.rdp_to_delta"}
_INF = mpf("inf")


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


# The same objectives written in v = α − 1 (no cancellation in α − 1 near α = 1; log((α−1)/α) = −log1p(1/v)), as
# their terms: the value is their sum, and the sum of their absolute values sizes the rounding allowance.

def _terms_bbg(total, v, delta):
    return total, -mpmath.log1p(1 / v), -(mpmath.log(delta) + mpmath.log1p(v)) / v


def _terms_mironov(total, v, delta):
    return total, -mpmath.log(delta) / v


def _terms_delta(total, v, eps):
    return v * (total - eps), -mpmath.log1p(v), -v * mpmath.log1p(1 / v)


_OBJECTIVES = {"bbg": _terms_bbg, "mironov": _terms_mironov, "delta": _terms_delta}


def _objective(name, total, v, param):
    """(value, size) of the named objective at v = α − 1 for the composed RDP ``total`` (+∞ allowed)."""
    if mpmath.isinf(total):
        return _INF, _INF
    terms = _OBJECTIVES[name](total, v, param)
    return mpmath.fsum(terms), mpmath.fsum(abs(t) for t in terms)


# ---------------------------------------------------------------------------------------------------
# evaluating the curve


def _curve_name(curve) -> str:
    sid = getattr(curve, "statement_id", None)
    if sid is not None:
        params = getattr(curve, "params", {}) or {}
        shown = ", ".join(f"{k}={v}" for k, v in params.items())
        name = f"{sid}({shown})" if shown else sid
    else:
        name = getattr(curve, "__name__", None) or type(curve).__name__
    return name if len(name) <= 100 else name[:99] + "…"


_NUMBER = re.compile(r"[-+]?\d[\d.]*(?:[eE][-+]?\d+)?")


def _short_number(match) -> str:
    token = match.group(0)
    if len(token) <= 16:
        return token
    mantissa, _, exponent = token.replace("E", "e").partition("e")
    digits = exponent.lstrip("+-")
    if len(digits) > 8:
        sign = "-" if exponent.startswith("-") else ""
        return f"{mantissa[:8]}e{sign}<{len(digits)}-digit exponent>"
    return f"{mantissa[:12]}" + (f"e{exponent}" if exponent else "")


def _short(text: str, limit: int = 160) -> str:
    """One line of at most ``limit`` characters, long numbers shortened."""
    line = _NUMBER.sub(_short_number, str(text).strip().splitlines()[0] if str(text).strip() else "")
    return line if len(line) <= limit else line[:limit - 1] + "…"


def _failure(curve, alpha, exc) -> Exception:
    message = (f"curve={_curve_name(curve)} failed at alpha={mpmath.nstr(alpha, 10)}: "
               f"{type(exc).__name__}: {_short(exc)}")
    return PrecisionError(message) if isinstance(exc, ArithmeticError) else ParameterError(message)


def curve_value(curve, alpha) -> mpf:
    """ε(α) of one step: an mpf in [0, +∞]; +∞ where the curve is infinite, outside its statement's conditions
    (ConditionError) or outside its α domain (DomainError on ``alpha``). NaN, negative or non-numeric values raise a
    DomainError naming the curve and α; any other failure one short error (see the module docstring)."""
    try:
        value = curve(alpha)
    except ConditionError:
        return _INF
    except DomainError as exc:
        if exc.name == "alpha":
            return _INF
        raise _failure(curve, alpha, exc) from None
    except Exception as exc:  # noqa: BLE001 - any failure of a user or catalogue curve, reported in one line
        raise _failure(curve, alpha, exc) from None
    domain = "RDP values: a number in [0, inf] at every order alpha > 1"
    if isinstance(value, bool) or not isinstance(value, (int, float, mpmath.mpf)):
        raise DomainError("curve", f"{_curve_name(curve)} (returns {_short(repr(value), 60)} at alpha="
                                   f"{mpmath.nstr(alpha, 10)})", domain)
    x = mpf(value)
    if mpmath.isnan(x) or x < 0:
        raise DomainError("curve", f"{_curve_name(curve)} (returns {mpmath.nstr(x, 10)} at alpha="
                                   f"{mpmath.nstr(alpha, 10)})", domain)
    return x


def _extra_digits(s) -> int:
    """Digits needed beyond the working precision so that α = 1 + e^s keeps e^s to full precision."""
    return max(0, int(mpmath.ceil(-s / mpmath.ln(10)))) if s < 0 else 0


# ---------------------------------------------------------------------------------------------------
# the search over α


class _Search:
    """The certified order search of one conversion (module docstring), at SEARCH_DPS digits."""

    def __init__(self, name, curve, steps, param):
        self.name, self.curve, self.steps, self.param = name, curve, steps, param
        self.eps_objective = name != "delta"  # convex in u = 1/(α−1); the δ objective in v = α − 1
        self.points = {}  # s → (value, size)
        self.log_delta = mpmath.log(param) if name != "delta" else None

    # -- evaluation ----------------------------------------------------------------------------------
    def f(self, s) -> mpf:
        if s not in self.points:
            with mp.workdps(SEARCH_DPS + _extra_digits(s)):
                v = mpmath.exp(s)
                total = self.steps * curve_value(self.curve, 1 + v)
                value, size = _objective(self.name, total, v, self.param)
            self.points[s] = (value, size)
        return self.points[s][0]

    def best(self):
        s = min(self.points, key=lambda k: self.points[k][0])
        return s, self.points[s][0]

    def below_floor(self) -> bool:
        """δ objective: the best sampled δ is below 10^LOG10_DELTA_FLOOR, so it is within that (absolutely) of the
        infimum, which is ≥ 0: the search may stop (module docstring)."""
        return not self.eps_objective and self.best()[1] < LOG10_DELTA_FLOOR * mpmath.ln(10)

    def floor_probe(self):
        """s = log v_f, v_f = 2·|log 10^LOG10_DELTA_FLOOR|/ε, for the δ objective with ε > 0 (None otherwise, or
        outside the search range): there log δ(α) ≤ v_f·(T·ε(α) − ε) ≤ LOG10_DELTA_FLOOR·log 10 as soon as
        T·ε(α) ≤ ε/2 (the other two terms, −log(1 + v) and −v·log(1 + 1/v), are ≤ 0), so one evaluation settles a
        δ below the floor (a slowly growing curve and a large ε), whatever the grid would cost. A curve that fails at
        that order (other than by a DomainError) only loses the probe."""
        if self.eps_objective or not self.param > 0:
            return None
        s = mpmath.log(2 * (-LOG10_DELTA_FLOOR) * mpmath.ln(10) / self.param)
        return s if S_DOWN[-1] <= s <= S_UP[-1] else None

    def tolerance(self, s) -> mpf:
        value, size = self.points[s]
        scale = abs(value) if self.eps_objective else mpf(1)
        return max(CERT_RTOL * scale, 100 * NOISE * size)

    # -- the certificate ------------------------------------------------------------------------------
    def _sorted(self):
        """[(c, f, noise, s)] in increasing convex coordinate c (u = e^−s for the ε objectives, v = e^s for δ)."""
        rows = []
        for s, (value, size) in self.points.items():
            c = mpmath.exp(-s) if self.eps_objective else mpmath.exp(s)
            rows.append((c, value, NOISE * size, s))
        rows.sort(key=lambda r: r[0])
        return rows

    def _convex(self, rows) -> bool:
        """Whether the finite sampled values are convex in c, within their rounding allowances."""
        for a, b, c in zip(rows, rows[1:], rows[2:]):
            if mpmath.isinf(a[1]) or mpmath.isinf(b[1]) or mpmath.isinf(c[1]):
                continue
            left, right = (b[1] - a[1]) / (b[0] - a[0]), (c[1] - b[1]) / (c[0] - b[0])
            slack = (a[2] + b[2]) / (b[0] - a[0]) + (b[2] + c[2]) / (c[0] - b[0])
            if left > right + slack:
                return False
        return True

    def _curve_free(self, c):
        """A lower bound of the objective over the tail α → 1 beyond the convex coordinate c (the orders with
        α − 1 ≤ v0, v0 = 1/c for the ε objectives, v0 = c for δ), using only ε(α) ≥ 0 (any RDP curve); −∞ where
        it does not apply.
        - ε objectives (u ≥ c): Mironov F ≥ log(1/δ)/v ≥ log(1/δ)/v0; BBG+20 F ≥ log v + log(1/δ)/v − v − 1,
          which is non-increasing in v for v ≤ log(1/δ) (derivative (v − log(1/δ))/v² − 1 < 0).
        - δ objective (v ≤ v0 < 1/e): log δ(α) = v·T·ε(α) − v·ε + v·log v − (1 + v)·log(1 + v) (the CKS20 Prop. 12
          objective of the module docstring, v·log(v/(1 + v)) − log(1 + v) regrouped), and with T·ε(α) ≥ 0 each
          remaining term is non-increasing in v on (0, 1/e] (ε ≥ 0; v·log v decreases below 1/e; (1 + v)·log(1 + v)
          increases), so log δ(α) ≥ −v0·ε + v0·log v0 − (1 + v0)·log(1 + v0) (≥ −v0(ε + 1 + v0 + log(1/v0))).
        Lowered by the rounding allowance of its own terms."""
        if not self.eps_objective:
            v0, eps = c, self.param
            if not (0 < v0 <= 1 / mpmath.e):
                return -_INF
            terms = (-v0 * eps, v0 * mpmath.log(v0), -(1 + v0) * mpmath.log1p(v0))
            return mpmath.fsum(terms) - NOISE * mpmath.fsum(abs(t) for t in terms)
        v, log_inv_delta = 1 / c, -self.log_delta
        if self.name == "mironov":
            return log_inv_delta / v * (1 - NOISE)
        if v <= log_inv_delta:
            terms = (mpmath.log(v), log_inv_delta / v, -v, mpf(-1))
            return mpmath.fsum(terms) - NOISE * mpmath.fsum(abs(t) for t in terms)
        return -_INF

    def _tail_bound_down(self, s):
        """The curve-free lower bound over all orders with α − 1 ≤ e^s (see :meth:`_curve_free`)."""
        return self._curve_free(mpmath.exp(-s) if self.eps_objective else mpmath.exp(s))

    def jump_down(self, pool):
        """The order to add in the tail α → 1 when that tail holds the weakest bound: the largest s (an integer,
        within the extension range and below every sampled point) where the curve-free bound alone reaches the
        target ``enough`` of the certificate; None where no such s exists (the next point of the pool is taken).
        The pool's points above it are dropped: the bound covers all orders below it. One evaluation instead of up to
        15 (each ~1 s for the sampled Gaussian near α = 1)."""
        s_best, f_best = self.best()
        enough = self._enough(s_best, f_best)
        hi, lo = min(self.points), S_DOWN[-1]
        if not hi > lo or self._tail_bound_down(lo) < enough:
            return None
        if self._tail_bound_down(hi - 1) >= enough:
            lo = hi - 1
        else:
            a, b = lo, hi - 1  # bound(a) ≥ enough > bound(b); the bound is non-increasing in s
            for _ in range(60):
                m = (a + b) / 2
                if self._tail_bound_down(m) >= enough:
                    a = m
                else:
                    b = m
            lo = a
        s = mpmath.floor(lo)
        pool[:] = [x for x in pool if x < s]
        return s

    @staticmethod
    def _lines(rows, finite, j, n, reach):
        """Lower lines (value at c_j, value at c_{j+1}) valid on [c_j, c_{j+1}]: chords through two sampled points on
        one side, extended across the interval, each lowered by its rounding allowance; ``reach`` = 1: the adjacent
        chords only, else up to 4 end points and 6 partners a side (closer pairs are tighter, wider ones less
        sensitive to rounding)."""
        lines = []
        y0, y1 = rows[j][0], rows[j + 1][0]
        ends, partners = (1, 1) if reach == 1 else (4, 6)
        for b in range(j, max(j - ends, 0), -1):  # chords left of the interval, extended to the right
            for a in range(b - 1, max(b - 1 - partners, -1), -1):
                if finite[a] and finite[b]:
                    width = rows[b][0] - rows[a][0]
                    slope = (rows[b][1] - rows[a][1]) / width - (rows[a][2] + rows[b][2]) / width
                    base = rows[b][1] - rows[b][2]
                    lines.append((base + slope * (y0 - rows[b][0]), base + slope * (y1 - rows[b][0])))
        for a in range(j + 1, min(j + 1 + ends, n - 1)):  # chords right of the interval, extended to the left
            for b in range(a + 1, min(a + 1 + partners, n)):
                if finite[a] and finite[b]:
                    width = rows[b][0] - rows[a][0]
                    slope = (rows[b][1] - rows[a][1]) / width + (rows[a][2] + rows[b][2]) / width
                    base = rows[a][1] - rows[a][2]
                    lines.append((base - slope * (rows[a][0] - y0), base - slope * (rows[a][0] - y1)))
        return lines

    @staticmethod
    def _min_of_max(lines):
        """(min over x ∈ [0, 1] of the max of the lines, its x); a line is (value at 0, value at 1). Only the lines
        best at either end enter (a valid, slightly weaker bound); −∞ without lines."""
        if not lines:
            return -_INF, mpf(1) / 2
        chosen = {max(lines, key=lambda l: l[0]), max(lines, key=lambda l: l[1])}
        xs = [mpf(0), mpf(1)]
        chosen = list(chosen)
        for i, (a0, a1) in enumerate(chosen):
            for b0, b1 in chosen[i + 1:]:
                denom = (a1 - a0) - (b1 - b0)
                if denom != 0:
                    x = (b0 - a0) / denom
                    if 0 < x < 1:
                        xs.append(x)
        return min(((max(l0 + (l1 - l0) * x for l0, l1 in chosen), x) for x in xs), key=lambda r: r[0])

    def bounds(self, enough=None, tails_only=False):
        """[(lower bound, where)] over the intervals between sampled points and the two tails; where is
        ("tail", side) with side "up"/"down" in s, or ("gap", s_left, s_right, s_weakest). An interval whose bound
        from its adjacent chords already reaches ``enough`` is not examined further."""
        rows = self._sorted()
        finite = [not mpmath.isinf(r[1]) for r in rows]
        n = len(rows)
        out = []
        low_c_side, high_c_side = ("up", "down") if self.eps_objective else ("down", "up")

        def outside_finite(i, j):
            return any(finite[k] for k in range(n) if k < i or k > j)

        # tail at c → 0: chords through the first point, extended to the left (a line's minimum is at an end)
        if not finite[0]:
            low = _INF if outside_finite(0, 0) else -_INF
        else:
            low = -_INF
            for b in range(1, min(7, n)):
                if finite[b]:
                    width = rows[b][0] - rows[0][0]
                    slope = (rows[b][1] - rows[0][1] + rows[0][2] + rows[b][2]) / width
                    base = rows[0][1] - rows[0][2]
                    low = max(low, min(base - slope * rows[0][0], base))
        if not self.eps_objective:
            low = max(low, self._curve_free(rows[0][0]))
        out.append((low, ("tail", low_c_side)))
        for j in range(0 if not tails_only else n, n - 1):
            p, q = rows[j], rows[j + 1]
            if not finite[j] and not finite[j + 1]:
                out.append((_INF if outside_finite(j, j + 1) else -_INF, ("gap", p[3], q[3], (p[3] + q[3]) / 2)))
                continue
            bound, x = self._min_of_max(self._lines(rows, finite, j, n, 1))
            if enough is None or bound < enough:
                bound, x = self._min_of_max(self._lines(rows, finite, j, n, 2))
            # the curve-free bound over the whole tail α → 1 beyond the interval's end on that side covers it too
            free = self._curve_free(p[0] if self.eps_objective else q[0])
            if free > bound:
                bound, x = free, mpf(1) / 2
            c = p[0] + x * (q[0] - p[0])
            s = -mpmath.log(c) if self.eps_objective else mpmath.log(c)
            out.append((bound, ("gap", p[3], q[3], s)))
        # tail at c → ∞: a chord into the last point with a non-negative (lowered) slope bounds it by that point
        high = -_INF
        if not finite[-1]:
            high = _INF if outside_finite(n - 1, n - 1) else -_INF
        else:
            for a in range(n - 2, max(n - 8, -1), -1):
                if finite[a]:
                    width = rows[-1][0] - rows[a][0]
                    if (rows[-1][1] - rows[a][1] - rows[a][2] - rows[-1][2]) / width >= 0:
                        high = rows[-1][1] - rows[-1][2]
                        break
            if self.eps_objective:
                high = max(high, self._curve_free(rows[-1][0]))
        out.append((high, ("tail", high_c_side)))
        return out

    def capped(self) -> bool:
        """The best value is reported capped: ε = max(0, F) with F ≤ 0, δ = min(1, e^{log δ}) with log δ ≥ 0."""
        f_best = self.best()[1]
        return f_best <= 0 if self.eps_objective else f_best >= 0

    def _enough(self, s_best, f_best):
        """The level every lower bound must reach: the reported value less the tolerance. For δ the reported value is
        min(1, δ(α*)), so a log δ above 0 counts as 0 (min(1, e^{inf}) ≥ e^{−tol}·min(1, e^{f_best}))."""
        if not self.eps_objective:
            f_best = min(f_best, mpf(0))
        return f_best - self.tolerance(s_best)

    def certified(self, tails_only=False) -> tuple[bool, object]:
        """(done, the weakest place): done when the certificate holds (``tails_only``: its two tail parts), or cannot
        apply (non-convex samples, ε ≤ 0, δ below the floor)."""
        s_best, f_best = self.best()
        if self.eps_objective and f_best <= 0:
            return True, None  # ε reported as 0: the infimum of max(0, F) exactly
        if not self.eps_objective and f_best < LOG10_DELTA_FLOOR * mpmath.ln(10):
            return True, None
        enough = self._enough(s_best, f_best)
        if self.eps_objective and enough <= 0:
            return True, None  # the reported max(0, F) ≥ 0 ≥ enough: within the tolerance of the infimum
        rows = self._sorted()
        if not self._convex(rows):
            return True, None  # the premise fails: best order found, certified locally only
        lowest, where = min(self.bounds(enough, tails_only), key=lambda b: b[0])
        return lowest >= enough, where

    # -- the search ------------------------------------------------------------------------------------
    def v_step(self, a, x, b):
        """A trial order for Brent's fallback (:func:`_brent`): the corner where the chord through the two sampled
        points nearest left of x meets the chord through the two nearest right of x, both in the convex coordinate
        c (u = 1/(α − 1) for ε, v = α − 1 for δ), or, where it lies between x and that corner, the minimum of the
        left chord plus an exponential wall fitted to the two right points' excess over it (a cliff's cumulant is a
        log-sum-exp: near its foot the excess grows exponentially, and chords from the right then creep by ~the
        wall's width per step); mapped back to s and kept inside the middle 90% of [a, b]; None where it does not
        apply (fewer than two finite points a side, or chords that do not form a V). On a cliff of ε(α)
        (base.sgm_rdp at q ≈ 1e-6, σ = 100: ε jumps from 1e-11 to 1e-4 within Δα ≈ 1 near α ≈ 277559) the
        objective is a V at every scale above the cliff's width and golden sections shrink the bracket by only
        0.618 per evaluation. Only a step rule: the certificate decides whether the result is the minimum."""
        rows = [(c, f) for c, f, _, _ in self._sorted() if not mpmath.isinf(f)]
        cx = mpmath.exp(-x) if self.eps_objective else mpmath.exp(x)
        left = [(c, f) for c, f in rows if c < cx][-2:]
        right = [(c, f) for c, f in rows if c > cx][:2]
        if len(left) < 2 or len(right) < 2:
            return None
        (c2, f2), (c1, f1) = left
        (d1, g1), (d2, g2) = right
        slope_left, slope_right = (f1 - f2) / (c1 - c2), (g2 - g1) / (d2 - d1)
        if not slope_left < slope_right:
            return None
        corner = (g1 - f1 + slope_left * c1 - slope_right * d1) / (slope_left - slope_right)
        # the wall as an exponential over the left line (the cumulant of a cliff is a log-sum-exp): its minimum
        excess1, excess2 = g1 - f1 - slope_left * (d1 - c1), g2 - f1 - slope_left * (d2 - c1)
        if slope_left < 0 and 0 < excess1 < excess2:
            rate = mpmath.log(excess2 / excess1) / (d2 - d1)
            wall = d1 + mpmath.log(-slope_left / (rate * excess1)) / rate
            if min(cx, corner) < wall < max(cx, corner):
                corner = wall
        if not corner > 0:
            return None
        u = -mpmath.log(corner) if self.eps_objective else mpmath.log(corner)
        margin = (b - a) / 20
        return min(max(u, a + margin), b - margin)

    def _next_in_tail(self, side, pool):
        """The next order to add in a tail: in the tail α → 1, where the curve-free bound can close it, the order
        :meth:`jump_down` finds; else the next point of the pool (which must not be empty)."""
        if side == "down":
            s = self.jump_down(pool)
            if s is not None:
                return s
        return pool.pop(0)

    def run(self):
        probe = self.floor_probe()
        if probe is not None:
            try:
                self.f(probe)
            except DomainError:
                raise  # a broken curve (NaN, negative) is refused wherever it shows
            except (PrecisionError, ParameterError):
                pass  # the curve fails that far out (e.g. a huge α): the probe is dropped, the search goes on as usual
            else:
                if self.below_floor():
                    return probe
        for s in S_CORE:
            self.f(s)
        up, down = list(S_UP), list(S_DOWN)
        while True:  # extension (bounded by the lists)
            if all(mpmath.isinf(value) for value, _ in self.points.values()):
                nxt = [pool.pop(0) for pool in (up, down) if pool]
                if not nxt:
                    raise ConditionError(_STATEMENTS[self.name], [
                        f"curve={_curve_name(self.curve)} is infinite, outside its conditions or outside its alpha "
                        "domain at every order tried (alpha - 1 from 1e-20 to 1e4096)"])
                for x in nxt:
                    self.f(x)
                continue
            s_best, _ = self.best()
            done, where = self.certified(tails_only=True)
            if done or where[0] != "tail":
                break
            pool = up if where[1] == "up" else down
            if not pool or s_best != (max(self.points) if where[1] == "up" else min(self.points)):
                break
            self.f(self._next_in_tail(where[1], pool))
        if self.below_floor():
            return self.best()[0]  # certified as it stands (module docstring): no Brent, no probes
        # Brent on the grid bracket around the best point, then probes on both sides of its result; not where the best
        # value is reported capped (ε = 0, δ = 1): there the certificate alone decides whether a lower value exists
        grid = sorted(self.points)
        s_best, _ = self.best()
        i = grid.index(s_best)
        a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
        if a < b and not self.capped():
            x = _brent(self.f, a, s_best, b, fallback=self.v_step)
            for h in PROBES:
                self.f(x - h)
                self.f(x + h)
        # certification: refine where the lower bound is weakest
        for polished in range(MAX_POLISH + 1):
            done, where = self.certified()
            if done:
                return self.best()[0]
            if polished == MAX_POLISH:
                break
            if where[0] == "tail":
                pool = up if where[1] == "up" else down
                if not pool:
                    break
                self.f(self._next_in_tail(where[1], pool))
            else:
                left, right, s = where[1:]
                lo, hi = min(left, right), max(left, right)
                self.f(min(max(s, lo + (hi - lo) / 20), hi - (hi - lo) / 20))
        s_best, f_best = self.best()
        place = (f"the tail {where[1]}wards (alpha - 1 {'above 1e4096' if where[1] == 'up' else 'below 1e-20'})"
                 if where and where[0] == "tail" else "near the best order")
        raise PrecisionError(
            f"order search: the minimum of the {_STATEMENTS[self.name]} objective for curve="
            f"{_curve_name(self.curve)} could not be certified in {place} (best {mpmath.nstr(f_best, 12)} at "
            f"alpha - 1 = {mpmath.nstr(mpmath.exp(s_best), 8)})")


@functools.lru_cache(maxsize=64)
def _minimise(objective_name: str, curve, steps: int, param: str):
    """s* = log(α* − 1) minimising the named objective (module docstring), found at SEARCH_DPS digits. Cached: the
    self-check evaluates the same conversion at two precisions."""
    with mp.workdps(SEARCH_DPS):
        search = _Search(objective_name, curve, steps, mpf(param))
        s = search.run()
        if objective_name == "delta" and s == max(search.points) and search.points[s][0] < 0:
            # δ(α) still decreasing at the largest order tried: if the curve has a value at α = ∞ with T·ε(∞) ≤ ε,
            # the composition is (ε, 0)-DP ((∞, ε')-RDP is ε'-DP; RDP composes additively), so δ = 0 exactly
            e_inf = curve_value(curve, _INF)
            if not mpmath.isinf(e_inf) and steps * e_inf <= search.param:
                return _INF
        return s


def _brent(f, a, x, b, abs_tol=BRENT_TOL, max_iter=200, fallback=None):
    """Brent's minimisation (parabolic interpolation safeguarded by golden sections) of f on [a, b], starting
    from x ∈ [a, b]. Returns the abscissa of the best value found (every evaluation is kept by ``f``).

    ``fallback(a, x, b)``, where given, proposes the step taken instead of a golden section (None: golden section):
    :meth:`_Search.v_step`, which finds a kink of the objective (a cliff of the curve) in a few steps where golden
    sections shrink the bracket by 0.618 per evaluation. At most FALLBACK_RUN fallback steps in a row may leave the
    bracket wider than half its width at the start of the run; then a golden section is taken (and a new run may
    begin), so the bracket still shrinks by 0.618 at least once every FALLBACK_RUN + 1 non-parabolic steps (the
    search stays bounded by max_iter as before; the certificate, not the step rule, vouches for the result)."""
    golden = (3 - mpmath.sqrt(5)) / 2
    w = v = x
    fx = fw = fv = f(x)
    d = e = mpf(0)
    tol = abs_tol
    run_width, run = None, 0  # bracket width when the current run of fallback steps began, and its length
    for _ in range(max_iter):
        if run_width is not None and (b - a) <= run_width / 2:
            run_width, run = None, 0  # the run has halved the bracket: it may go on
        fallback_ok = run < FALLBACK_RUN
        m = (a + b) / 2
        if abs(x - m) <= 2 * tol - (b - a) / 2:
            return x
        parabolic = False
        if abs(e) > tol and not mpmath.isinf(fx) and not mpmath.isinf(fw) and not mpmath.isinf(fv):
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
            u = fallback(a, x, b) if fallback is not None and fallback_ok else None
            if u is not None and abs(u - x) >= tol:
                d, run = u - x, run + 1
                run_width = b - a if run_width is None else run_width
            else:
                run_width, run = None, 0  # a golden section: a new run may begin
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


def _optimum(objective_name, curve, steps, param):
    """(objective value at α* at the working precision, α*); (−∞, +∞) for δ(ε) = 0 at α = ∞ (see _minimise)."""
    s = _minimise(objective_name, curve, int(steps), mpmath.nstr(param, SEARCH_DPS))
    if mpmath.isinf(s):
        return -_INF, _INF
    with mp.workdps(mp.dps + _extra_digits(s)):
        v = mpmath.exp(s)
        alpha = 1 + v
        value, _ = _objective(objective_name, steps * curve_value(curve, alpha), v, param)
    return +value, alpha


# ---------------------------------------------------------------------------------------------------
# public evaluators


@self_checked
def rdp_to_dp_order(curve, delta, steps=1):
    """(ε, α*): ε = max(0, F(α*)), F(α) = T·ε(α) + log((α−1)/α) − (log δ + log α)/(α − 1) (BBG+20 Thm 21 /
    CKS20 Prop. 12), α* the order found by the certified search (module docstring)."""
    curve, delta, steps = _check("curve", CURVE, curve), _check("delta", DELTA, delta), _check("steps", STEPS, steps)
    value, alpha = _optimum("bbg", curve, int(steps), delta)
    return max(mpf(0), value), alpha


@self_checked
def rdp_to_dp(curve, delta, steps=1):
    """ε(δ) = min over real α > 1 of T·ε(α) + log((α−1)/α) − (log δ + log α)/(α − 1), and ≥ 0.

    Balle et al. 2020 Thm 21 / Canonne, Kamath & Steinke 2020 Prop. 12; α found by the certified search
    (module docstring: the value is the objective at that α, within the certified gap of the infimum)."""
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
    note="certified order search at 20 digits (module docstring); the objective at α* at the working precision",
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
