"""The exact A1 trade-off function of seed 002 (Def. 4.2; Lemma C.5; eq. (5)/(16)) and its privacy profile.

In the A1 adversarial model (seed 002, §4 and D.7–D.9: the adversary is told the sampling instance, i.e. which rounds
hold how many differentiating subsets) the whole run of Algorithm 1 is the label-visible mixture: the label c ~ q_E
(Def. 4.1, :mod:`.qe`), then G_{c/σ}. Its trade-off function is the infimal mixture (eq. (5))

    f(α) = inf { Σ_c q_E(c) G_{c/σ}(α_c) : Σ_c q_E(c) α_c = α },

which Lemma C.5 solves with a Lagrange multiplier (Def. 4.2): f(α) = Σ_c q_E(c) Φ(Λσ/c − c/(2σ)) where
1 − α = Σ_c q_E(c) Φ(Λσ/c + c/(2σ)). Def. 4.2 is ill-posed at c = 0 (σ/c = ∞), and q_E(0) > 0 under subsampling
(q_E(0) = (1−p)^T); the c = 0 component is G_0(α) = 1 − α, whose term in the constraint is q_E(0)·1[Λ > 0], so
Λ = 0 on an α-interval of length q_E(0), where f has a segment of slope −1 (notes shared/notes/batch-clipping-fdp.md
§2.4 and the algorithm of §4.3, implemented in :func:`mixture_tradeoff`). Mass that :mod:`.qe` dropped (``Law.dropped``,
at c² = +∞) is a mutually singular component: it adds ``dropped`` to the constraint and nothing to f (so f(0) =
1 − dropped), and 1 to δ(ε) for every ε — both conservative.

The privacy profile of the mixture is the mixture of the profiles (the conjugate of an infimal mixture, notes §2.4):
δ(ε) = Σ_c q_E(c) δ_{G_{c/σ}}(ε) with δ_{G_μ} of seed 002 eq. (7) (``base.gdp_profile``'s helper
:func:`dpspec.reference.base.gaussian.profile_real`), and ε(δ) is its certified inverse (δ is decreasing in ε).
"""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from .._normal import ndtr, ndtri_upper
from ..base.gaussian import profile_real
from ..base.spec import EPS_REAL, TYPE_I
from ..catalogue import Privacy, Source, Statement, Value, WitnessUse, register
from ..domains import Param
from ..errors import PrecisionError
from ..precision import checked_param, self_checked
from . import spec
from .qe import Law, qe_conditions, qe_law
from .spec import P_DELTA, P_SIGMA, QE_PARAMS, SEED

SKIP_DIGITS = 5  # δ terms are skipped only where their total is certified below 10^−(dps+5) of the sum


# ---------------------------------------------------------------------------------------------------------------
# The mixture's components


class _Mixture:
    """A law of c² as Gaussian components: ``mu`` (c/σ for c > 0, ascending), ``q`` (their masses), ``q0`` (the mass
    at c = 0) and ``dropped`` (the mass at c = +∞). ``by_mass`` lists the components by decreasing mass and
    ``rest[i]`` is the mass of ``by_mass[i:]``, so a sum of terms each ≤ its mass can stop, certified, once the mass
    left is below a tolerance."""

    def __init__(self, law, sigma):
        if isinstance(law, Law):
            support, pmf, dropped = law.support, law.pmf, law.dropped
        else:
            support, pmf = law
            dropped = mpf(0)
        sigma = mpf(sigma)
        if not sigma > 0:
            raise PrecisionError(f"mixture: sigma must be > 0, got {sigma}")
        self.q0, self.dropped = mpf(0), mpf(dropped)
        self.mu, self.q = [], []
        for c2, q in zip(support, pmf):
            if c2 < 0:
                raise ValueError(f"mixture: support values are c² ≥ 0, got {c2}")
            q = mpf(q)
            if q == 0:
                continue
            if c2 == 0:
                self.q0 += q
            else:
                self.mu.append(mpmath.sqrt(mpf(c2)) / sigma)
                self.q.append(q)
        self.by_mass = sorted(range(len(self.q)), key=lambda i: -self.q[i])
        self.rest = [mpf(0)] * (len(self.q) + 1)
        for k in range(len(self.q) - 1, -1, -1):
            self.rest[k] = self.rest[k + 1] + self.q[self.by_mass[k]]

    def _sum(self, term, scale):
        """Σ_i q_i·term(i) with term ≤ 1 (and the slope sum alongside), stopping once the mass left is below
        10^−(dps+5)·scale: (sum, slope sum)."""
        tol = mpf(10) ** (-(mp.dps + SKIP_DIGITS)) * scale
        vals, slopes = [], []
        for k, i in enumerate(self.by_mass):
            if self.rest[k] <= tol:
                break
            v, d = term(i)
            vals.append(self.q[i] * v)
            slopes.append(self.q[i] * d)
        return mpmath.fsum(vals), mpmath.fsum(slopes)

    def lower(self, lam, scale=None):
        """(Σ_{c>0} q Φ(Λ/μ + μ/2), its Λ-derivative Σ q φ(Λ/μ + μ/2)/μ), to 10^−(dps+5)·scale."""
        def term(i):
            x = lam / self.mu[i] + self.mu[i] / 2
            return ndtr(x), _phi(x) / self.mu[i]
        return self._sum(term, mpf(0) if scale is None else scale)

    def upper(self, lam, scale=None):
        """(Σ_{c>0} q Φ(−Λ/μ − μ/2), minus its Λ-derivative), to 10^−(dps+5)·scale (upper tails: no 1 − x)."""
        def term(i):
            x = lam / self.mu[i] + self.mu[i] / 2
            return ndtr(-x), _phi(x) / self.mu[i]
        return self._sum(term, mpf(0) if scale is None else scale)

    def R(self, lam) -> mpf:
        """Σ_{c>0} q Φ(Λ/μ + μ/2) + dropped (the constraint 1 − α without the c = 0 atom)."""
        return self.lower(lam)[0] + self.dropped

    def B(self, lam) -> mpf:
        """Σ_{c>0} q Φ(Λ/μ − μ/2) (f without the c = 0 atom), every component summed."""
        return mpmath.fsum(q * ndtr(lam / mu - mu / 2) for mu, q in zip(self.mu, self.q))


def _phi(x) -> mpf:
    return mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)


def _newton_log(S, log_t, x0, lo, hi, increasing: bool) -> mpf:
    """The root of log S(x) = log_t on (lo, hi) (either end may be infinite), S monotone (``increasing`` or not),
    S(x) returning (S, |S'|): Newton steps on log S kept inside the bracket known so far, a bisection step where a
    step leaves a finite bracket or is not below half the previous step, a doubling step towards an infinite end.
    Stops when the bracket, or a Newton step inside it, is below 2^(8−prec)·max(1, |x|)."""
    tol = mpf(2) ** (-mp.prec + 8)
    x = x0
    last_step = None
    for _ in range(1000):
        s, ds = S(x)
        if s <= 0:
            g = mpf("-inf")
        else:
            g = mpmath.log(s) - log_t
        if g == 0:
            return x
        if (g > 0) == increasing:
            hi = x
        else:
            lo = x
        finite = mpmath.isfinite(lo) and mpmath.isfinite(hi)
        if finite and hi - lo <= tol * max(1, abs(lo), abs(hi)):
            return (lo + hi) / 2
        slope = (ds if increasing else -ds) / s if s > 0 else mpf(0)
        new = x - g / slope if slope != 0 and mpmath.isfinite(g) else None
        if new is not None and lo <= new <= hi and abs(new - x) <= tol * max(1, abs(x)):
            return new  # (new may round to x itself: the step is below x's last digit)
        if finite:
            stalled = new is not None and last_step is not None and abs(new - x) > last_step / 2
            if new is None or not lo < new < hi or stalled:
                new = (lo + hi) / 2
        elif new is None or not lo < new < hi:
            new = x - 2 * max(1, abs(x)) if not mpmath.isfinite(lo) else x + 2 * max(1, abs(x))
            if abs(new) > mpf(10) ** 30:
                raise PrecisionError("mixture_tradeoff: Λ not bracketed below 1e30")
        last_step = abs(new - x)
        x = new
    raise PrecisionError("mixture_tradeoff: no convergence")


def _tradeoff(mix: _Mixture, alpha) -> tuple[mpf, mpf]:
    """(f(α), Λ) of the mixture (notes §4.3): three cases by where 1 − α falls against R(0⁻) and R(0⁻) + q0.
    For Λ > 0 the constraint is solved in the upper tails, α = Σ_{c>0} q Φ(−Λ/μ − μ/2) (no 1 − α rounding, so α may
    be tiny); for Λ < 0 in the lower tails, 1 − α = Σ_{c>0} q Φ(Λ/μ + μ/2) + dropped. Λ = −inf where f = 0."""
    alpha = mpf(alpha)
    if alpha == 0:
        return 1 - mix.dropped, mpf("inf")
    if alpha == 1:
        return mpf(0), mpf("-inf")
    target = 1 - alpha
    if target <= mix.dropped:  # every finite component at α_c = 1 already; the singular one costs nothing
        return mpf(0), mpf("-inf")
    if not mix.mu:  # only the c = 0 atom (and the singular mass): f = 1 − α − dropped on [0, 1 − dropped]
        return target - mix.dropped, mpf(0)
    r0 = mix.R(mpf(0))
    if r0 <= target <= r0 + mix.q0:  # Λ = 0: the slope −1 segment of the c = 0 atom
        return mix.B(mpf(0)) + (target - r0), mpf(0)
    k = max(range(len(mix.q)), key=lambda i: mix.q[i])
    mu = mix.mu[k]
    if target < r0:  # Λ < 0: Σ q Φ(Λ/μ + μ/2) = 1 − α − dropped
        t = target - mix.dropped
        x0 = mu * (-ndtri_upper(min(t, mpf(1) / 2)) - mu / 2)
        x0 = x0 if x0 < 0 else mpf(-1)
        lam = _newton_log(lambda x: mix.lower(x, t), mpmath.log(t), x0, mpf("-inf"), mpf(0), True)
        return mix.B(lam), lam
    x0 = mu * (ndtri_upper(min(alpha, mpf(1) / 2)) - mu / 2)  # Λ > 0: Σ q Φ(−Λ/μ − μ/2) = α
    x0 = x0 if x0 > 0 else mpf(1)
    lam = _newton_log(lambda x: mix.upper(x, alpha), mpmath.log(alpha), x0, mpf(0), mpf("inf"), False)
    return mix.B(lam) + mix.q0, lam


GUARD_DIGITS = 15  # extra digits of the direct form Φ(a) − e^ε Φ(b) of one component's δ


def _component_delta(eps, mu) -> tuple[mpf, mpf]:
    """(δ_{G_μ}(ε), e^ε Φ(−μ/2 − ε/μ)) for ε ≥ 0 (seed 002 eq. (7)). The direct difference Φ(a) − e^ε Φ(b) is formed
    with GUARD_DIGITS more digits and kept where it lost fewer than GUARD_DIGITS − 5 digits to cancellation
    (δ ≥ 10^−(GUARD_DIGITS−5)·Φ(a)); elsewhere δ comes from base.gdp_profile's log-space helper
    (:func:`~dpspec.reference.base.gaussian.profile_real`), which handles any cancellation."""
    with mp.workdps(mp.dps + GUARD_DIGITS):
        a = mu / 2 - eps / mu
        b = -mu / 2 - eps / mu
        pa = ndtr(a)
        eb = mpmath.exp(eps) * ndtr(b)
        d = pa - eb
        if d > pa * mpf(10) ** (-(GUARD_DIGITS - 5)):
            return +d, +eb
    return profile_real(eps, mu), eb


def _delta_finite(mix: _Mixture, eps) -> tuple[mpf, mpf]:
    """(δ(ε) − dropped, −δ'(ε)) with δ(ε) = Σ_c q δ_{G_{c/σ}}(ε) + q0·δ_{G_0}(ε) + dropped and
    −δ'(ε) = e^ε Σ_c q Φ(−μ_c/2 − ε/μ_c) (+ q0 e^ε for ε < 0): d/dε of Φ(a) − e^ε Φ(b) is −e^ε Φ(b), the a- and
    b-terms of the chain rule cancelling.
    δ_{G_μ}(ε) is increasing in μ, so terms are summed from the largest μ down and the rest stops once
    (mass left)·(current δ) ≤ 10^−(dps+5)·(sum); at the top, components whose total mass is below 10^−(dps+5) of a
    lower bound on the sum are skipped (their δ is ≤ 1). The slope is summed over the same terms (it serves only
    Newton steps, whose result the root's bracket certifies)."""
    eps = mpf(eps)
    tol = mpf(10) ** (-(mp.dps + SKIP_DIGITS))
    total, slope = mpf(0), mpf(0)
    if eps < 0:
        total += mix.q0 * -mpmath.expm1(eps)
        slope += mix.q0 * mpmath.exp(eps)
    n = len(mix.mu)
    if n == 0:
        return total, slope
    cache = {}

    def term(i):
        if i not in cache:
            if eps >= 0:
                cache[i] = _component_delta(eps, mix.mu[i])
            else:  # ε < 0: the closed form and its slope hold there too (base.gaussian.profile_real)
                mu = mix.mu[i]
                cache[i] = (profile_real(eps, mu), mpmath.exp(eps) * ndtr(-mu / 2 - eps / mu))
        return cache[i]

    mode = max(range(n), key=lambda i: mix.q[i])
    lower = total + mix.q[mode] * term(mode)[0]
    top, skipped = n - 1, mpf(0)
    while top > mode and skipped + mix.q[top] <= tol * lower:
        skipped += mix.q[top]
        top -= 1
    below = [mpf(0)] * (n + 1)  # below[i] = Σ_{k<i} q_k
    for i in range(n):
        below[i + 1] = below[i] + mix.q[i]
    parts, slopes = [total], [slope]
    acc = total
    for i in range(top, -1, -1):
        d, e = term(i)
        parts.append(mix.q[i] * d)
        slopes.append(mix.q[i] * e)
        acc += parts[-1]
        if below[i] * d <= tol * acc:
            break
    return mpmath.fsum(parts), mpmath.fsum(slopes)


def _delta_slope(mix: _Mixture, eps) -> tuple[mpf, mpf]:
    """(δ(ε), −δ'(ε)), the dropped mass (δ = 1 for its singular component, slope 0) included."""
    finite, slope = _delta_finite(mix, eps)
    return finite + mix.dropped, slope


def _delta(mix: _Mixture, eps) -> mpf:
    """δ(ε) of the mixture (:func:`_delta_slope`)."""
    return _delta_slope(mix, eps)[0]


def mixture_tradeoff(law, sigma, alpha) -> mpf:
    """f(α) of seed 002 Def. 4.2 for a law of c² (a :class:`~.qe.Law`, or a pair (support of c² values, pmf)) and
    noise multiplier σ, with the c = 0 atom and the dropped mass handled (module docstring; notes §4.3)."""
    alpha = checked_param("alpha", TYPE_I, alpha)
    sigma = checked_param("sigma", spec.P_SIGMA.domain, sigma)
    return _tradeoff(_Mixture(law, sigma), alpha)[0]


def mixture_delta(law, sigma, eps) -> mpf:
    """δ(ε) = Σ_c q(c) δ_{G_{c/σ}}(ε) (+ the dropped mass, δ = 1 for its singular component): the exact privacy
    profile of the Def. 4.2 mixture (notes §2.4; seed 002 eq. (7) per component), every real ε."""
    eps = checked_param("eps", EPS_REAL, eps)
    sigma = checked_param("sigma", spec.P_SIGMA.domain, sigma)
    return _delta(_Mixture(law, sigma), eps)


def _epsilon(mix: _Mixture, delta) -> mpf:
    """The least ε ≥ 0 with δ(ε) ≤ δ: 0 where δ(0) ≤ δ; +inf where δ ≤ the mass at c = +∞ (δ(ε) → dropped as
    ε → ∞, never below); else the root of h(ε) = log δ(ε) − log δ (continuous, strictly decreasing there), by Newton
    steps on h (h' = δ'/δ from :func:`_delta_slope`) kept inside a bracket [lo, hi] with h(lo) > 0 > h(hi), with a
    bisection step wherever Newton leaves the bracket; it stops when the bracket, or a Newton
    step that lands inside it, is below 2^(8−prec)·max(1, ε)."""
    delta = mpf(delta)
    if delta <= mix.dropped:
        return mpf("inf")
    d0, s0 = _delta_slope(mix, 0)
    if d0 <= delta:
        return mpf(0)
    log_target = mpmath.log(delta)
    lo, hi = mpf(0), None
    x, d, s = mpf(0), d0, s0
    tol = mpf(2) ** (-mp.prec + 8)
    for _ in range(400):
        h = mpmath.log(d) - log_target
        if h > 0:
            lo = x
        elif h < 0:
            hi = x
        else:
            return x
        step = h * d / s if s > 0 else mpf("inf")  # Newton: x − h/h', h' = −s/d
        new = x + step
        width = None if hi is None else hi - lo
        if hi is not None and width <= tol * max(1, abs(hi)):
            return (lo + hi) / 2
        if hi is not None and abs(step) <= tol * max(1, abs(x)) and lo <= new <= hi:
            return new
        if hi is None:
            if not mpmath.isfinite(new) or new > 10 * x + 10:  # no upper end yet: grow at most geometrically
                new = 10 * x + 10
        elif not lo < new < hi:
            new = (lo + hi) / 2
        if new > mpf(10) ** 12:
            raise PrecisionError("mixture_epsilon: ε not bracketed below 1e12")
        x = new
        d, s = _delta_slope(mix, x)
        if d <= 0:
            raise PrecisionError(f"mixture_epsilon: δ({mpmath.nstr(x, 8)}) = 0 above the dropped mass")
    raise PrecisionError("mixture_epsilon: no convergence")


def mixture_epsilon(law, sigma, delta) -> mpf:
    """ε(δ) of the Def. 4.2 mixture: min{ε ≥ 0 : Σ_c q(c) δ_{G_{c/σ}}(ε) ≤ δ} (+inf when δ is at most the dropped
    mass at c = +∞; 0 when δ(0) ≤ δ)."""
    delta = checked_param("delta", spec.DELTA, delta)
    sigma = checked_param("sigma", spec.P_SIGMA.domain, sigma)
    return _epsilon(_Mixture(law, sigma), delta)


# ---------------------------------------------------------------------------------------------------------------
# Statements


ADAPT_ROUNDS = 4  # recomputations of q_E with more digits, at most (each needs the value > 10^5·dropped mass)


def _digits_below(x) -> int:
    """The decimal digits of 1/x (x ∈ (0, 1]), plus one: 10^−result < x/10."""
    return max(0, int(mpmath.ceil(-mpmath.log10(x)))) + 1


def _adaptive(qe_args, value_of, small_of):
    """value_of(q_E law) with the law's dropped mass (entries below 10^−(dps+30+extra), at c² = +∞) certified
    negligible: while dropped > 10^−(dps+5)·small_of(law, value) (the size of the value that the dropped mass could
    move), q_E is recomputed with extra_digits = the digits of that size; small_of returns None when nothing can
    move (then the value stands)."""
    extra = 0
    for _ in range(ADAPT_ROUNDS):
        law = qe_law(*qe_args, extra_digits=extra)
        value = value_of(law)
        small = small_of(law, value)
        if law.dropped == 0 or small is None or law.dropped <= mpf(10) ** (-(mp.dps + SKIP_DIGITS)) * small:
            return value
        more = _digits_below(small) if small > 0 else extra + 50
        extra = max(extra + 1, more)
    raise PrecisionError(f"q_E's dropped mass {mpmath.nstr(law.dropped, 5)} is not negligible against the value "
                         f"{mpmath.nstr(value, 5)} after {ADAPT_ROUNDS} recomputations")


def _tradeoff_with_dropped_at(law: Law, sigma, alpha) -> mpf:
    """f(α) with the dropped mass put back as one component at c² = law.dropped_from (every dropped entry had c² at
    least that, and G_{c/σ} decreases in c, so this is an upper bound on the true f; the computed f, with the dropped
    mass at c² = +∞, is a lower bound)."""
    extra = dict(zip(law.support, law.pmf))
    extra[law.dropped_from] = extra.get(law.dropped_from, mpf(0)) + law.dropped
    support = tuple(sorted(extra))
    return _tradeoff(_Mixture((support, tuple(extra[c] for c in support)), sigma), alpha)[0]


@self_checked
def def4_2(alpha, sampling, N, m, s, g, E, sigma):
    """Seed 002, Def. 4.2 (Lemma C.5, Thm. 4.6): the exact trade-off function f(α) of the A1 label-visible mixture
    Σ_c q_E(c) G_{c/σ}, with the c = 0 atom's slope −1 segment (notes §2.4, §4.3).

    The dropped mass D of q_E is evaluated at c² = +∞ (f_D, a lower bound on the exact f); every dropped entry had
    c² ≥ law.dropped_from, so f with D there instead is an upper bound. q_E is recomputed with more digits until the
    two agree to 10^−(dps+5)·f_D (where f_D = 0 because 1 − α ≤ D: until D is below 1 − α)."""
    alpha = checked_param("alpha", TYPE_I, alpha)
    sigma = checked_param("sigma", spec.P_SIGMA.domain, sigma)

    def value(law):
        return _tradeoff(_Mixture(law, sigma), alpha)[0]

    def small(law, f):
        if alpha in (0, 1):
            return None
        if f == 0:
            return 1 - alpha
        gap = _tradeoff_with_dropped_at(law, sigma, alpha) - f
        if gap <= mpf(10) ** (-(mp.dps + SKIP_DIGITS)) * f:
            return None
        return f * law.dropped / gap  # the size D would need, in proportion, for the gap to be tol·f

    return _adaptive((sampling, N, m, s, g, E), value, small)


@self_checked
def a1_profile(eps, sampling, N, m, s, g, E, sigma):
    """The privacy profile of seed 002's Def. 4.2 mixture (A1 adversary): δ(ε) = Σ_c q_E(c) δ_{G_{c/σ}}(ε), δ_{G_μ}
    from seed 002 eq. (7) (notes §2.4, §4.3). The dropped mass of q_E adds itself to δ, so q_E is recomputed with more
    digits where the rest of δ is not 10^(dps+5) times larger."""

    eps_ = checked_param("eps", EPS_REAL, eps)
    finite = {}

    def value(law):
        finite[id(law)] = _delta_finite(_Mixture(law, sigma), eps_)[0]
        return finite[id(law)] + law.dropped

    return _adaptive((sampling, N, m, s, g, E), value, lambda law, d: finite[id(law)] or None)


@self_checked
def a1_epsilon(delta, sampling, N, m, s, g, E, sigma):
    """ε(δ) of seed 002's Def. 4.2 mixture (A1 adversary): the least ε ≥ 0 with Σ_c q_E(c) δ_{G_{c/σ}}(ε) ≤ δ. q_E is
    built with its drop threshold δ times 10^−(dps+30), so the dropped mass never decides ε."""
    law = qe_law(sampling, N, m, s, g, E, extra_digits=_digits_below(delta))
    return mixture_epsilon(law, sigma, delta)


def _a1_pair(p):
    return {k: p[k] for k in ("sampling", "N", "m", "s", "g", "E", "sigma")}


def symmetric(statement, params):
    """A property check (``Statement.properties``) of bc.def4_2: the A1 trade-off f is symmetric, f(f(α)) = α.
    Swapping the two hypotheses of the label-visible mixture swaps P_c and Q_c in every component, and each G_{c/σ}
    is symmetric (Dong, Roth & Su 2022, Prop. 2.4 and §2.3), so the swapped pair has the same trade-off; the trade-off
    of a swapped pair is f⁻¹ (ibid., Prop. 2.4), hence f = f⁻¹. A misread or rescaled f breaks it."""
    alpha = mpf(params["alpha"])
    value = statement.reference(**params)
    if not 0 <= value <= 1:
        raise AssertionError(f"{statement.id}: f({mpmath.nstr(alpha, 12)}) = {mpmath.nstr(value, 12)} is not in [0, 1]")
    back = statement.reference(**{**params, "alpha": value})
    if abs(back - alpha) > mpf(10) ** -12 * max(alpha, mpf(10) ** -12):
        raise AssertionError(f"{statement.id}: f(f(α)) = {mpmath.nstr(back, 15)} ≠ α = {mpmath.nstr(alpha, 15)} "
                             "(the A1 mixture trade-off is symmetric)")


symmetric.why = "the label-visible A1 mixture of symmetric G_{c/σ} is symmetric: f(f(α)) = α"


def inverts_the_profile(statement, params):
    """A property check of bc.a1_epsilon: ε(δ) is the least ε with δ(ε) ≤ δ, so the profile bc.a1_profile at the
    returned ε is at most δ (an ε that is too small — a rescaled or misread inverse — gives δ(ε) > δ)."""
    from ..catalogue import get

    eps = statement.reference(**params)
    if not mpmath.isfinite(eps):
        return
    at = get("bc.a1_profile").reference(eps=eps, **{k: params[k] for k in ("sampling", "N", "m", "s", "g", "E",
                                                                            "sigma")})
    if at > mpf(params["delta"]) * (1 + mpf(10) ** -10):
        raise AssertionError(f"{statement.id}: δ(ε) = {mpmath.nstr(at, 12)} > δ = {mpmath.nstr(mpf(params['delta']), 12)}"
                             f" at the returned ε = {mpmath.nstr(eps, 12)} (bc.a1_profile)")


inverts_the_profile.why = "ε(δ) is the least ε with δ(ε) ≤ δ: bc.a1_profile at the returned ε must not exceed δ"


_A1 = ("A1 adversary (seed 002, §4, D.7–D.9): the adversary sees the sampling instance, so the run is the "
       "label-visible mixture c ~ q_E, then G_{c/σ}; this ignores amplification by sampling (an A0 analysis is far "
       "tighter, notes §1 item 8).")
_PRIVACY = Privacy("replace_one", "both", "subsampling or shuffling (param sampling; Algorithm 1)")
_WITNESS = (WitnessUse("bc.a1_mixture", _a1_pair, "the label-visible A1 mixture pair (notes §3.2)"),)
_PARAMS = (*QE_PARAMS, P_SIGMA)

register(Statement(
    id="bc.def4_2",
    fast="dpspec.fast.bc.mixture:def4_2",
    source=Source(SEED, "Def. 4.2", "the exact A1 trade-off function f of Algorithm 1 (Lemma C.5, Thm. 4.6)"),
    kind="tradeoff",
    claim="lower",
    value=Value("beta", "alpha"),
    summary="f(α) = Σ_c q_E(c) Φ(Λσ/c − c/(2σ)), 1 − α = Σ_c q_E(c) Φ(Λσ/c + c/(2σ)) (c = 0: slope −1 segment)",
    params=(Param("alpha", TYPE_I, "type-I error α", example="0.1"), *_PARAMS),
    conditions=qe_conditions(),
    reference=def4_2,
    witnesses=_WITNESS,
    privacy=_PRIVACY,
    monotone={"alpha": -1, "sigma": +1, "E": -1, "g": -1},
    properties=(symmetric,),
    note=_A1 + " Lemma C.5 (the Gaussian-mixture infimum with explicit weights and means) is this evaluator with "
                "the weights q_E(c) and means c/σ; it has no entry of its own (no parameter type holds a weighted "
                "list of means).",
))

register(Statement(
    id="bc.a1_profile",
    fast="dpspec.fast.bc.mixture:a1_profile",
    source=Source(SEED, "Def. 4.2 (δ(ε))", "the (ε, δ) profile of the exact A1 trade-off function (notes §2.4)"),
    kind="profile",
    claim="upper",
    value=Value("delta", "eps"),
    summary="δ(ε) = Σ_c q_E(c) [Φ(−εσ/c + c/(2σ)) − e^ε Φ(−εσ/c − c/(2σ))]",
    params=(Param("eps", EPS_REAL, "any real ε", example=1), *_PARAMS),
    conditions=qe_conditions(),
    reference=a1_profile,
    witnesses=_WITNESS,
    privacy=_PRIVACY,
    monotone={"eps": -1, "sigma": -1, "E": +1, "g": +1},
    note=_A1 + " Exact for the A1 pair; as a DP guarantee of Algorithm 1 it is an upper bound on δ.",
))

register(Statement(
    id="bc.a1_epsilon",
    fast="dpspec.fast.bc.mixture:a1_epsilon",
    source=Source(SEED, "Def. 4.2 (ε(δ))", "ε at a target δ of the exact A1 trade-off function (notes §4.3)"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps", "delta"),
    summary="ε(δ) = min{ε ≥ 0 : Σ_c q_E(c) δ_{G_{c/σ}}(ε) ≤ δ}",
    params=(P_DELTA, *_PARAMS),
    conditions=qe_conditions(),
    reference=a1_epsilon,
    witnesses=_WITNESS,
    privacy=_PRIVACY,
    monotone={"delta": -1, "sigma": -1, "E": +1, "g": +1},
    properties=(inverts_the_profile,),
    note=_A1,
))
