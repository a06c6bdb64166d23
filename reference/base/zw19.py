"""Poisson subsampling of any mechanism given its RDP curve (Zhu & Wang, "Poisson Subsampled Rényi
Differential Privacy", ICML 2019, PMLR 97:7634–7642; "ZW19"). γ = q is the sampling rate, ε(·) the base
mechanism's RDP curve, α ≥ 2 an integer, C(α, ℓ) binomial coefficients.

- Black-box upper bound (ZW19 Thm 6), valid for every mechanism with that curve:
      ε_sub(α) ≤ 1/(α−1) · log{ (1−γ)^{α−1}(αγ − γ + 1) + C(α,2) γ² (1−γ)^{α−2} e^{ε(2)}
                                + 3 Σ_{ℓ=3}^{α} C(α,ℓ) (1−γ)^{α−ℓ} γ^ℓ e^{(ℓ−1)ε(ℓ)} }.
- Tight formula (ZW19 Thm 5 lower bound; exact under their Thm 8 condition, e.g. Gaussian and Laplace):
      ε_sub(α) ≥ 1/(α−1) · log{ (1−γ)^{α−1}(αγ − γ + 1) + Σ_{ℓ=2}^{α} C(α,ℓ) (1−γ)^{α−ℓ} γ^ℓ e^{(ℓ−1)ε(ℓ)} }.
  (The first term is the ℓ = 0 and ℓ = 1 terms of the binomial expansion of E_q[(1 − γ + γ p/q)^α].)

Where the statements come from: the ZW19 full text was not reachable from this workspace; the forms above are
the ones recorded in shared/notes (ptr-rdp.md §7, peer-accountants.md B22), and the upper bound is confirmed
term by term by autodp's `rdp_acct.general_upperbound` (labelled "the upperbound in theorem 1 in 2019 ICML"),
which rewrites 3 e^{−ε(α)}(1 − γ + γe^{ε(α)})^α minus the ℓ = 0, 1, 2 and ℓ ≥ 3 corrections into exactly this
sum. The ZW19 abstract ("optimal up to an additive log(3)/(α−1)") matches the factor 3 on the ℓ ≥ 3 terms.

B22 (peer-accountants.md): autodp's public general Poisson bound, `compose_poisson_subsampled_mechanisms1` (used by
`AmplificationBySampling(PoissonSampling=True)` without improved_bound_flag), is NOT the Thm 6 above: its ℓ ≥ 3
terms are e^{ℓ·ε(ℓ+1)} with no factor 3 (the note's doubt is confirmed by reading the code). It is smaller
than Thm 6 whenever ℓε(ℓ+1) − (ℓ−1)ε(ℓ) < log 3 (small-ε mechanisms) and larger otherwise. Whether it is a valid
bound is not settled here: no counterexample was found (exact Poisson-subsampled RDP, both orientations and both
directions, of randomized response on a grid and of 1500 random 2–3-point mechanisms; tests/test_zw19.py keeps a
smaller version of that search, for Thm 6 and for autodp's form). dpspec implements Thm 6 as recorded.

Non-integer α (as in autodp): the cumulant K(α) = (α−1)·ε_sub(α) = log E[(p/q)^α] is convex in α with K(1) = 0.
- zw19_upper interpolates K linearly between the neighbouring integers (K(1) = 0 for α ∈ (1, 2)): by convexity
  the chord lies above K, and the integer values are upper bounds, so the interpolation stays an upper bound.
- zw19_lower uses only what is a lower bound under Thm 5's own hypothesis: ε_sub is non-decreasing in α, so
  ε_sub(α) ≥ lower(⌊α⌋) for α ≥ 2, and 0 for α ∈ (1, 2). (Linear CGF interpolation of the tight formula, as
  autodp does, is an UPPER bound on the exact value between integers; it is the variant "interpolated".)

Cost: α − 1 evaluations of the curve at the integers 2..⌈α⌉ and O(α) terms; α is capped at ZW19_ALPHA_MAX = 1e4
(reference/base/spec.py: a bound on the work, as for ptr.zw19_*); intended for α up to a few thousand.

The curve values are shared by the two runs of the self-check (`_shared_curve`): each ε(ℓ) is computed once, at the
higher run's precision (mp.dps + GUARD_HIGH − GUARD_LOW in the first run, i.e. the working digits + GUARD_HIGH), and
the lower run uses it rounded. Before, each run evaluated the curve at its own precision: ⌈α⌉ − 1 evaluations twice
(base.sgm_rdp at α = 1e4, q = 0.01, σ = 1: 20 s of CPU before, 14 s now; each a binomial sum of up to 1e4 terms). A
nested call (ZW19 as the curve of a conversion, or inside ptr.zw19_*) runs once and shares nothing: the curve at the
current precision, as before. What the self-check of a top-level call then checks: the
sum's own arithmetic (the log-weights, the log-sum of ⌈α⌉ − 1 terms, log1p at tiny γ, the interpolation) at two
precisions, as before; the curve's precision only at the order of the largest term of each sum (`_spot_check`: that
value is computed at the lower run's precision too and must agree with the shared one to the working digits), not
at every order. A curve that loses digits only at orders whose terms are not the largest is trusted there to its
own accuracy at GUARD_HIGH guard digits (nested evaluators are not self-checked either: this is the curve
evaluator's own precision, as it is inside every conversion).
"""
from __future__ import annotations

import contextvars
import functools

import mpmath
from mpmath import mp, mpf

from ..catalogue import Privacy, Source, Statement, Value, Variant, register
from ..domains import SAMPLING_RATE, Param
from ..errors import DomainError, PrecisionError
from ..precision import GUARD_HIGH, GUARD_LOW, checked_param as _check, logsumexp, self_checked, to_mpf
from ..precision import _inside as _self_check_inside  # nested evaluators run once (no self-check)
from .composition import alpha_monotone_where, curve_statement
from .spec import RDP_CURVE as CURVE, ZW19_ALPHA

_SOURCE = "Zhu & Wang, Poisson Subsampled Rényi Differential Privacy, ICML 2019 (PMLR 97:7634–7642)"




_SHARED = contextvars.ContextVar("dpspec_zw19_shared_curve", default=None)


def _shared_curve(checked):
    """Wrap a self-checked ZW19 evaluator so that its two runs share the curve values (module docstring): a fresh
    table per call (a curve that is itself a ZW19 bound gets its own), dropped when the call returns. A nested call
    (inside another self-checked evaluator, e.g. a conversion's order search) runs once: no table, the curve at the
    current precision, as before."""

    @functools.wraps(checked)
    def wrapper(*args, **kwargs):
        token = _SHARED.set(None if _self_check_inside.get() else {})
        try:
            return checked(*args, **kwargs)
        finally:
            _SHARED.reset(token)

    return wrapper


def _curve_value(curve, ell: int):
    """ε(ℓ) of the base curve at the current precision. Inside a shared table: computed once at mp.dps +
    GUARD_HIGH − GUARD_LOW digits (the higher run's precision when the first, lower, run asks) and reused by every
    run at up to that precision, rounded; outside one (a direct call of the unchecked function): at mp.dps."""
    table = _SHARED.get()
    if table is None:
        return to_mpf(curve(mpf(ell)))
    hit = table.get(ell)
    if hit is None or hit[1] < mp.dps:
        digits = mp.dps + GUARD_HIGH - GUARD_LOW
        with mp.workdps(digits):
            hit = (to_mpf(curve(mpf(ell))), digits)
        table[ell] = hit
    return +hit[0]


def _spot_check(curve, ell: int):
    """Recompute ε(ℓ) at the current precision and require agreement with the shared value to mp.dps − GUARD_LOW
    digits (the working digits in the self-check's lower run), where the shared value was computed at a higher
    precision: the self-check's test of the curve's precision, kept at the order of the largest term."""
    table = _SHARED.get()
    if table is None or ell not in table or table[ell][1] <= mp.dps or ("checked", ell, mp.dps) in table:
        return
    table["checked", ell, mp.dps] = True
    shared = table[ell][0]
    here = to_mpf(curve(mpf(ell)))
    digits = max(mp.dps - GUARD_LOW, 1)
    if here != shared and not abs(here - shared) <= max(abs(here), abs(shared)) * mpf(10) ** -digits:
        raise PrecisionError(f"ZW19: the curve's value at order {ell} differs between {mp.dps} and {table[ell][1]} "
                             f"digits beyond {digits} digits: {mpmath.nstr(here, digits + 3)} vs "
                             f"{mpmath.nstr(shared, digits + 3)}")


def _log_excess_factor(x, boost):
    """log(c·e^x − 1) for x ≥ 0, c = e^boost ≥ 1, without cancellation (−inf when c = 1 and x = 0)."""
    if boost == 0:
        return mpmath.log(mpmath.expm1(x)) if x > 0 else mpf("-inf")
    return mpmath.log(mpmath.expm1(boost) + mpmath.exp(boost) * mpmath.expm1(x))


class _Orders:
    """What the sums at the integer orders 2..n share, computed once per evaluation (both ⌊α⌋ and ⌈α⌉ use it): the
    curve at ℓ = 2..n (each value checked ≥ 0), the factors log(c_ℓ e^{(ℓ−1)ε(ℓ)} − 1), and log ℓ! for ℓ = 0..n.
    (Before, the curve was evaluated for ⌊α⌋ and again for ⌈α⌉, and every weight took three log-gammas.)"""

    def __init__(self, n: int, gamma, curve, factor_3: bool):
        log3 = mpmath.log(3)
        self.log_gain = {}
        self.curve = curve
        for ell in range(2, n + 1):
            eps = _curve_value(curve, ell)
            if eps < 0:
                raise DomainError("curve", mpmath.nstr(eps, 8), f"an RDP curve (ε({ell}) ≥ 0)")
            self.log_gain[ell] = _log_excess_factor((ell - 1) * eps, log3 if factor_3 and ell >= 3 else mpf(0))
        self.log_factorial = [mpmath.loggamma(m + 1) for m in range(n + 1)]
        self.log_gamma, self.log_rest = mpmath.log(gamma), mpmath.log1p(-gamma)  # −inf at γ = 1

    def log_weight(self, alpha: int, ell: int):
        """log[C(α,ℓ) (1−γ)^{α−ℓ} γ^ℓ] (with 0·log 0 = 0 at γ = 1)."""
        lf = self.log_factorial
        rest = (alpha - ell) * self.log_rest if alpha > ell else mpf(0)
        return lf[alpha] - lf[ell] - lf[alpha - ell] + ell * self.log_gamma + rest


def _cgf_integer(alpha: int, orders: _Orders):
    """K(α) = (α−1)·bound at an integer α ≥ 2: the log of the ZW19 sum (Thm 6 or Thm 5, as ``orders`` was built).

    The sum is 1 + O(γ²): written head + Σ_{ℓ≥2} w_ℓ c_ℓ e^{(ℓ−1)ε(ℓ)} with weights w_ℓ = C(α,ℓ)(1−γ)^{α−ℓ}γ^ℓ
    that sum to 1 (the head is w_0 + w_1), it is 1 + Σ_{ℓ≥2} w_ℓ (c_ℓ e^{(ℓ−1)ε(ℓ)} − 1), a sum of
    non-negative terms, so K = log1p(that sum) keeps full relative precision down to γ = 1e-8 and below
    (forming log of the sum directly cancelled 2·log10(1/γ) digits)."""
    terms = [orders.log_weight(alpha, ell) + orders.log_gain[ell] for ell in range(2, alpha + 1)]
    _spot_check(orders.curve, 2 + max(range(len(terms)), key=terms.__getitem__))
    log_excess = logsumexp(terms)
    if log_excess > 0:
        return log_excess + mpmath.log1p(mpmath.exp(-log_excess))
    return mpmath.log1p(mpmath.exp(log_excess))


def _interpolated(alpha, gamma, curve, factor_3: bool):
    """K linearly interpolated between ⌊α⌋ and ⌈α⌉ (K(1) = 0), divided by α − 1."""
    n = int(mpmath.floor(alpha))
    if alpha == n:
        return _cgf_integer(n, _Orders(n, gamma, curve, factor_3)) / (alpha - 1)
    orders = _Orders(n + 1, gamma, curve, factor_3)
    t = alpha - n
    k_low = _cgf_integer(n, orders) if n >= 2 else mpf(0)
    k_high = _cgf_integer(n + 1, orders)
    return ((1 - t) * k_low + t * k_high) / (alpha - 1)


@_shared_curve
@self_checked
def zw19_upper(alpha, q, curve):
    """ZW19 Thm 6, the black-box upper bound on the RDP of M∘PoissonSample(q) (module docstring); non-integer α
    by linear interpolation of the cumulant (α−1)ε(α), which stays an upper bound by convexity.

    Not monotone in α, even for exact mechanism curves: the factor 3 enters the ℓ = 3 term at α > 2 and the
    interpolated cumulant need not be convex (Gaussian σ = 3, q = 1: 0.71597 at α = 3, 0.69775 at α = 3.1; Laplace
    b = 3, q = 0.05: 0.0223737 at α = 62, 0.0223733 at α = 63), so no α-monotonicity is declared (a bound that is not monotone
    stays a bound; the true RDP, non-decreasing in α, is also below its minimum over α' ≥ α)."""
    alpha, q, curve = _check("alpha", ZW19_ALPHA, alpha), _check("q", SAMPLING_RATE, q), _check("curve", CURVE, curve)
    return _interpolated(alpha, q, curve, factor_3=True)


def _exact_under_thm8(curve) -> bool:
    """The curve is one for which the tight formula is exact (ZW19 Thm 8): base.gaussian_rdp or base.laplace_rdp."""
    st = curve_statement(curve)
    return st is not None and st.id in ("base.gaussian_rdp", "base.laplace_rdp")


@_shared_curve
@self_checked
def zw19_lower(alpha, q, curve):
    """ZW19 Thm 5 tight formula (exact under Thm 8, e.g. Gaussian); non-integer α: lower(⌊α⌋) for α ≥ 2 (ε_sub is
    non-decreasing in α) and 0 for α ∈ (1, 2) (module docstring).

    Monotonicity in α is declared only for the Gaussian and Laplace curves (exact there, so non-decreasing by van
    Erven & Harremoës 2014, Thm 3): with a curve that is only a bound the formula need not be (ptr.ineq38_41,
    q = 0.5: 0.954 at α = 2, 0.877 at α = 3)."""
    alpha, q, curve = _check("alpha", ZW19_ALPHA, alpha), _check("q", SAMPLING_RATE, q), _check("curve", CURVE, curve)
    n = int(mpmath.floor(alpha))
    if n < 2:
        return mpf(0)
    return _cgf_integer(n, _Orders(n, q, curve, factor_3=False)) / (n - 1)


@_shared_curve
@self_checked
def zw19_lower_interpolated(alpha, q, curve):
    """The ZW19 tight formula with autodp's linear CGF interpolation between integers (K(1) = 0). Equal to the
    formula at integers; between integers an UPPER bound on the exact value when the formula is exact."""
    alpha, q, curve = _check("alpha", ZW19_ALPHA, alpha), _check("q", SAMPLING_RATE, q), _check("curve", CURVE, curve)
    return _interpolated(alpha, q, curve, factor_3=False)


_PARAMS = (
    Param("alpha", ZW19_ALPHA, "Rényi order (integers as in the theorems; others see the docstring; the sum has "
          "⌈α⌉ − 1 terms, α ≤ 1e4)", example=4),
    Param("q", SAMPLING_RATE, "Poisson sampling rate γ", example="0.01"),
    Param("curve", CURVE, "RDP curve α ↦ ε(α) of the base mechanism", example="base.gaussian_rdp"),
)

register(Statement(
    id="base.zw19_upper",
    fast="dpspec.fast.base.zw19:zw19_upper",
    source=Source("outside", "Thm 6", "black-box RDP amplification by Poisson subsampling, any mechanism", _SOURCE),
    kind="rdp",
    claim="upper",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≤ log{(1−γ)^{α−1}(αγ−γ+1) + C(α,2)γ²(1−γ)^{α−2}e^{ε(2)} + 3Σ_{ℓ≥3}C(α,ℓ)(1−γ)^{α−ℓ}γ^ℓe^{(ℓ−1)ε(ℓ)}}/(α−1)",
    params=_PARAMS,
    reference=zw19_upper,
    privacy=Privacy("add_remove", "both", "poisson"),
    monotone={"q": +1},
    note="non-integer α: linear interpolation of (α−1)ε(α) (an upper bound by convexity); not monotone in α (see "
         "zw19_upper's docstring)",
))

register(Statement(
    id="base.zw19_lower",
    fast="dpspec.fast.base.zw19:zw19_lower",
    source=Source("outside", "Thm 5 (exact under Thm 8)", "tight RDP of Poisson subsampling (lower bound)",
                  _SOURCE),
    kind="rdp",
    claim="lower",
    value=Value("rdp_eps", "alpha"),
    summary="ε(α) ≥ log{(1−γ)^{α−1}(αγ−γ+1) + Σ_{ℓ≥2}C(α,ℓ)(1−γ)^{α−ℓ}γ^ℓe^{(ℓ−1)ε(ℓ)}}/(α−1)",
    params=_PARAMS,
    reference=zw19_lower,
    variants={"interpolated": Variant(zw19_lower_interpolated,
                                      "autodp's linear CGF interpolation between integers: an upper bound on the "
                                      "exact value between integers, not a lower bound", is_bound=False)},
    privacy=Privacy("add_remove", "P||Q", "poisson"),
    monotone={"q": +1},
    properties=(alpha_monotone_where(_exact_under_thm8, "with the Gaussian or Laplace curve the formula is the exact "
                                     "RDP of the subsampled mechanism (ZW19 Thm 8), non-decreasing in α by van Erven & "
                                     "Harremoës 2014, Thm 3, and ⌊α⌋ keeps that"),),
    note="a lower bound when one neighbouring pair attains ε(ℓ) for all ℓ ≤ α; exact under ZW19 Thm 8",
))
