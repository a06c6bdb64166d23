"""Concentration tools of seed 004, Appendix A.2 (L634–L664): Lemma A.4 (Zhang 2005, Freedman/Bernstein form), Lemma
A.5 (Cutkosky & Mehta 2020, normalised-gradient inequality), Lemmas A.7/A.8 (Bakhshizadeh et al. 2023, truncated
heavy-tail concentration) and Lemma A.9 (Ahlswede–Winter). Notes: shared/notes/dc-dpsgd.md §2 (Lemmas A.4–A.9), §8.

Lemmas A.7/A.8 are stated for a law whose right tail is "captured" by I (P(X > x) ≤ e^{−I(x)}); dpspec evaluates them
for the Weibull law X ~ Weibull(shape 1/θ, scale λ) — the law of the sub-Weibull model (K = 2^θλ, dc.a3_1) — with
its exact tail I(x) = (x₊/λ)^{1/θ} (Lemma A.7, on X) and I(y) = ((y + μ)₊/λ)^{1/θ} (Lemma A.8, on the centred
Y = X − μ, μ = E X = λΓ(1 + θ)). v(L, η) is a 1-D integral (mpmath quadrature in u = (x/λ)^{1/θ} ~ Exp(1)), x_max the
largest root of x ↦ ηv(mx, η)I(mx)/(mx) − x (a scan, then bracketed root finding). I(x) = O(x) needs θ ≥ 1.

Public helpers: :func:`ahlswede_winter` (d, m, μ, R) and its inversion :func:`ahlswede_winter_mu`; :func:`weibull_v`,
:func:`weibull_x_max`.
"""
from __future__ import annotations

import functools

import mpmath

from ..catalogue import Condition, Source, Statement, Value, register
from ..errors import DomainError
from ..precision import self_checked, to_mpf
from . import spec

ZHANG = "Zhang, Data dependent concentration bounds for sequential prediction algorithms, COLT 2005"
CUTKOSKY = "Cutkosky & Mehta, Momentum improves normalized SGD, ICML 2020 (arXiv 2002.03305)"
BAKHSHIZADEH = "Bakhshizadeh, Maleki & de la Peña, Sharp concentration results for heavy-tailed distributions, " \
               "Information and Inference 2023 (arXiv 2003.13819)"
AHLSWEDE = "Ahlswede & Winter, Strong converse for identification via quantum channels, IEEE Trans. Inf. Theory 2002"

# ---------------------------------------------------------------------------------------------------------------
# Lemma A.4, A.5


@self_checked
def zhang_deviation(rho, var_sum, xi_bound, delta):
    """ρσ_n²/b + b log(1/δ)/ρ: with probability ≥ 1 − δ, Σξ_k − ΣE_{z_k}ξ_k ≤ this when |ξ_k − E_{z_k}ξ_k| ≤ b,
    ρ ∈ (0, 1] (seed 004, Lemma A.4, eq. 9, L634–L640; Zhang 2005). The proof uses e^r − r − 1 ≤ r² on (0, 1]."""
    return rho * var_sum / xi_bound - xi_bound * mpmath.log(delta) / rho


@self_checked
def normalized_inner_lower(v_norm, dev_norm):
    """‖v‖/3 − 8‖g − v‖/3 ≤ ⟨g/‖g‖, v⟩ for every g ≠ 0 and v = ∇L_S(w) (seed 004, Lemma A.5, L642–L643; Cutkosky &
    Mehta 2020), from the two norms. (A negative value is a valid, trivial bound.)"""
    return v_norm / 3 - 8 * dev_norm / 3


def normalized_inner_lower_vectors(g, v):
    """Lemma A.5 from the vectors: (⟨g/‖g‖, v⟩, ‖v‖/3 − 8‖g − v‖/3) as mpf (g ≠ 0)."""
    g = [mpmath.mpf(x) for x in g]
    v = [mpmath.mpf(x) for x in v]
    gn = mpmath.sqrt(mpmath.fsum(x * x for x in g))
    if gn == 0:
        raise DomainError("g", "the zero vector", "a nonzero vector")
    inner = mpmath.fsum(a * b for a, b in zip(g, v)) / gn
    vn = mpmath.sqrt(mpmath.fsum(x * x for x in v))
    dn = mpmath.sqrt(mpmath.fsum((a - b) ** 2 for a, b in zip(g, v)))
    return inner, normalized_inner_lower(vn, dn)


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.9


@self_checked
def ahlswede_winter(d, m, mu, R):
    """2d·exp(−mμ²/(4R)) ≥ P(‖(1/m)ΣY_i − EY‖₂ > μ) for i.i.d. random symmetric PSD d×d Y_i with ‖EY‖₂ ≤ 1, ‖Y‖₂ ≤ R,
    R ≥ 1, μ ∈ (0, 1) (seed 004, Lemma A.9, L662–L664; Ahlswede & Winter 2002). Not capped at 1."""
    d, m = to_mpf(d), to_mpf(m)
    return 2 * d * mpmath.exp(-m * mu**2 / (4 * R))


@self_checked
def ahlswede_winter_mu(d, m, R, delta):
    """The inversion of Lemma A.9: μ = 2·sqrt(R log(2d/δ)/m) makes 2d·exp(−mμ²/(4R)) = δ (notes §2 Lemma A.9; the
    first term 4 log(2d/δ_m)/k of Thm 5.2 comes from it). The lemma needs μ < 1, i.e. m > 4R log(2d/δ)."""
    d, m = to_mpf(d), to_mpf(m)
    return 2 * mpmath.sqrt(R * (mpmath.log(2 * d) - mpmath.log(delta)) / m)


# ---------------------------------------------------------------------------------------------------------------
# Lemmas A.7 / A.8 for the Weibull law


def _weibull_mean(theta, scale):
    return scale * mpmath.gamma(1 + theta)


def _tail_I(y, theta, scale, shift):
    """I(y) = ((y + shift)₊/λ)^{1/θ}: the exact log-tail of Y = X − shift, X ~ Weibull(1/θ, λ)."""
    z = y + shift
    if z <= 0:
        return mpmath.mpf(0)
    return mpmath.exp((mpmath.log(z) - mpmath.log(scale)) / theta)


def _v(L, eta, theta, scale, shift):
    """v(L, η) of Lemma A.7 (L662) for Y = X − shift: E[(Z^L)² 1(Z^L ≤ 0) + (Z^L)² exp(η I(L) Z^L/L) 1(Z^L > 0)],
    Z^L = Y·1(Y ≤ L) − E Y. Where Y > L, Z^L = shift − μ (≤ 0); where Y ≤ L, Z^L = X − μ. In u = (x/λ)^{1/θ} ~ Exp(1):
    (shift − μ)²·e^{−U} + ∫_0^U (λu^θ − μ)² w(u) e^{−u} du, U = ((L + shift)/λ)^{1/θ}, w = 1 below u_μ and
    exp(c(λu^θ − μ)), c = ηI(L)/L, above (the exponent c(λu^θ − μ) − u stays ≤ (η − 1)I(L) ≤ 0 there)."""
    mu = _weibull_mean(theta, scale)
    U = _tail_I(L, theta, scale, shift)
    c = eta * U / L
    u_mu = mpmath.gamma(1 + theta) ** (1 / theta)
    out = (shift - mu) ** 2 * mpmath.exp(-U)

    def low(u):
        return (scale * u**theta - mu) ** 2 * mpmath.exp(-u)

    def high(u):
        z = scale * u**theta - mu
        return z**2 * mpmath.exp(c * z - u)

    if U <= u_mu:
        return out + mpmath.quad(low, [0, U])
    out += mpmath.quad(low, [0, u_mu])
    pts = [u_mu]
    while pts[-1] * 4 < U:
        pts.append(pts[-1] * 4)
    pts.append(U)
    return out + mpmath.quad(high, pts)


@self_checked
def weibull_v(L, eta, theta, scale, centred=False):
    """v(L, η) of seed 004 Lemma A.7 (L662) for X ~ Weibull(shape 1/θ, scale λ) with I(x) = (x₊/λ)^{1/θ}
    (``centred=True``: for Y = X − μ with I(y) = ((y + μ)₊/λ)^{1/θ}, the setting of Lemma A.8). L > 0."""
    shift = _weibull_mean(theta, scale) if centred else mpmath.mpf(0)
    return _v(to_mpf(L), to_mpf(eta), to_mpf(theta), to_mpf(scale), shift)


def _h(x, m, eta, theta, scale, shift):
    """η v(mx, η) I(mx)/(mx) − x (x_max is the largest zero)."""
    L = m * x
    return eta * _v(L, eta, theta, scale, shift) * _tail_I(L, theta, scale, shift) / L - x


@functools.lru_cache(maxsize=256)
def _scan(m, eta, theta, scale, centred):
    """The last x (at 15 digits) of a ×4 grid where h ≥ 0, h negative on the next 6 points (a factor 4096; see
    :func:`_x_max`); cached, since both precisions of the self-check locate the same bracket."""
    with mpmath.workdps(15):
        m, eta, theta, scale = (mpmath.mpf(v) for v in (m, eta, theta, scale))
        shift = _weibull_mean(theta, scale) if centred else mpmath.mpf(0)
        sd = scale * mpmath.sqrt(mpmath.gamma(1 + 2 * theta) - mpmath.gamma(1 + theta) ** 2)
        x = sd / (64 * m)
        for _ in range(4000):  # down (×1/16) to a point where h ≥ 0 (there is one: h(0⁺) > 0)
            if _h(x, m, eta, theta, scale, shift) >= 0:
                break
            x /= 16
        last_pos, neg_run = None, 0
        for _ in range(4000):
            if _h(x, m, eta, theta, scale, shift) >= 0:
                last_pos, neg_run = x, 0
            else:
                neg_run += 1
                if last_pos is not None and neg_run >= 6:
                    return last_pos
            x *= 4
    raise DomainError("eta", eta, "η < 1 (x_max is not finite: spec.XMAX_FINITE)")


def _x_max(m, eta, theta, scale, centred):
    """x_max = sup{x ≥ 0 : x ≤ η v(mx, η) I(mx)/(mx)} (Lemma A.7, L654), the largest zero of h = :func:`_h`.

    h(0⁺) > 0 (v(0⁺) ≥ μ² and I(mx)/(mx) ≥ λ^{−1/θ}(mx)^{1/θ−1}); for η < 1 v(L, η) stays bounded while I(L)/L does
    not grow, so h → −∞. Located at 15 digits (:func:`_scan`): from x = σ_X/(64m), divided by 16 until h ≥ 0, x
    grows ×4 until h has been negative for 6 consecutive points past its last nonnegative value (a factor 4096);
    then refined at the working precision in the last sign change [a, 4a] by Ridders' method in log x (the other
    precision of the self-check starts from a narrow bracket around this root)."""
    shift = _weibull_mean(theta, scale) if centred else mpmath.mpf(0)
    last_pos = _scan(m, eta, theta, scale, centred)
    key = (m, eta, theta, scale, centred)
    f = lambda u: _h(mpmath.exp(u), m, eta, theta, scale, shift)  # noqa: E731
    lo = hi = None
    warm = _ROOTS.get(key)
    if warm is not None:  # the other precision of the self-check found it: a narrow bracket around it
        width = mpmath.mpf(10) ** (-warm[1] + 8) * max(1, abs(warm[0]))
        lo, hi = warm[0] - width, warm[0] + width
        f_lo, f_hi = f(lo), f(hi)
        if f_lo < 0 or f_hi >= 0:
            lo = hi = None
    if lo is None:
        lo, hi = mpmath.log(mpmath.mpf(last_pos)), mpmath.log(mpmath.mpf(last_pos)) + mpmath.log(4)
        f_lo, f_hi = f(lo), f(hi)
        if f_lo < 0 or f_hi >= 0:  # the 15-digit bracket moved at full precision: a wider one
            lo, hi = lo - mpmath.log(4), hi + mpmath.log(4)
            f_lo, f_hi = f(lo), f(hi)
            if f_lo < 0 or f_hi >= 0:  # pragma: no cover
                raise ArithmeticError("x_max: no sign change in the located bracket")
    u = _ridder(f, lo, hi, f_lo, f_hi)
    _ROOTS[key] = (u, mpmath.mp.dps)
    return mpmath.exp(u)


_ROOTS: dict = {}  # (m, η, θ, λ, centred) → (log x_max, digits) of the last solve


def _ridder(f, a, b, fa, fb):
    """Ridders' method on [a, b] with f(a) ≥ 0 > f(b) (the bracket shrinks on both sides; quadratic convergence),
    to 2^{−prec+6} relative in the abscissa."""
    tol = mpmath.mpf(2) ** (-mpmath.mp.prec + 6) * max(1, abs(a), abs(b))
    x = (a + b) / 2
    for _ in range(200):
        c = (a + b) / 2
        fc = f(c)
        root = mpmath.sqrt(fc * fc - fa * fb)
        if root == 0:
            return c
        sign = 1 if fa > fb else -1
        x_new = c + (c - a) * sign * fc / root
        fx = f(x_new)
        if abs(x_new - x) <= tol or fx == 0:
            return x_new
        x = x_new
        if (fc >= 0) != (fx >= 0):
            a, fa, b, fb = (c, fc, x, fx) if fc >= 0 else (x, fx, c, fc)
        elif (fa >= 0) != (fx >= 0):
            b, fb = x, fx
        else:
            a, fa = x, fx
        if fa < 0 or fb >= 0:  # keep the orientation f(a) ≥ 0 > f(b)
            a, fa, b, fb = b, fb, a, fa
        if abs(b - a) <= tol:
            return (a + b) / 2
    raise ArithmeticError("x_max: Ridders' method did not converge")  # pragma: no cover


@self_checked
def weibull_x_max(m, eta, theta, scale, centred=False):
    """x_max of seed 004 Lemma A.7 (L654) for the Weibull law (see :func:`weibull_v`)."""
    return _x_max(to_mpf(m), to_mpf(eta), to_mpf(theta), to_mpf(scale), bool(centred))


@self_checked
def bakhshizadeh_a7(theta, scale, m, x, eta):
    """Lemma A.7 (seed 004, eq. 10, L648–L656; Bakhshizadeh et al. 2023) for m i.i.d. X ~ Weibull(1/θ, λ), I(x) =
    (x₊/λ)^{1/θ}: the bound on P(S_m − ES_m > mx),
        x ≥ x_max:      exp(−c_x η I(mx)) + m·exp(−I(mx)),  c_x = 1 − η v(mx, η) I(mx)/(2mx²);
        0 ≤ x ≤ x_max:  exp(−mx²/(2v(mx_max, η))) + m·exp(−m x_max²/(η v(mx_max, η))).
    The second branch's remainder is as extracted (the notes could not confirm it against the source); at x_max the
    definition gives m x_max²/(η v(m x_max, η)) = I(m x_max) exactly, so it equals m·exp(−I(m x_max)) and the two
    branches agree at x = x_max (both first terms are exp(−ηI(m x_max)/2)). At x = 0 the bound is ≥ 1."""
    theta, scale, eta = to_mpf(theta), to_mpf(scale), to_mpf(eta)
    m, x = to_mpf(m), to_mpf(x)
    shift = mpmath.mpf(0)
    xm = _x_max(m, eta, theta, scale, False)
    if x >= xm:
        L = m * x
        I = _tail_I(L, theta, scale, shift)
        c = 1 - eta * _v(L, eta, theta, scale, shift) * I / (2 * m * x**2)
        return mpmath.exp(-c * eta * I) + m * mpmath.exp(-I)
    vm = _v(m * xm, eta, theta, scale, shift)
    return mpmath.exp(-m * x**2 / (2 * vm)) + m * mpmath.exp(-m * xm**2 / (eta * vm))


@self_checked
def bakhshizadeh_a8(theta, scale, m, t, eta):
    """Lemma A.8 (seed 004, eq. 11, L658–L660; Bakhshizadeh et al. 2023) for m i.i.d. Y = X − μ, X ~ Weibull(1/θ, λ),
    μ = λΓ(1 + θ) (E Y = 0 as the lemma assumes), I(y) = ((y + μ)₊/λ)^{1/θ} (Y's exact log-tail): the bound on
    P(S_m > mt), exp(−mt²/(2v(mt, η))) + exp(−η max{c_t, 1/2} I(mt)) + m·exp(−I(mt)),
    c_t = 1 − η v(mt, η) I(mt)/(2mt²)."""
    theta, scale, eta = to_mpf(theta), to_mpf(scale), to_mpf(eta)
    m, t = to_mpf(m), to_mpf(t)
    shift = _weibull_mean(theta, scale)
    L = m * t
    I = _tail_I(L, theta, scale, shift)
    v = _v(L, eta, theta, scale, shift)
    c = 1 - eta * v * I / (2 * m * t**2)
    return mpmath.exp(-m * t**2 / (2 * v)) + mpmath.exp(-eta * max(c, mpmath.mpf(1) / 2) * I) + m * mpmath.exp(-I)


# ---------------------------------------------------------------------------------------------------------------
# registration

_TAIL_LINEAR = Condition.of(spec.TAIL_AT_MOST_LINEAR, lambda p: p["theta"] >= 1)
_XMAX_FINITE = Condition.of(spec.XMAX_FINITE, lambda p: p["eta"] < 1)

register(Statement(
    id="dc.lemma_a4",
    fast="dpspec.fast.dc.subweibull:zhang_deviation",
    source=Source(spec.SEED, "Lemma A.4", "a Freedman/Bernstein inequality for sums of bounded martingale "
                  "differences", ZHANG),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="|ξ_k − E ξ_k| ≤ b, ρ ∈ (0, 1] ⇒ w.p. ≥ 1 − δ: Σξ_k − ΣE ξ_k ≤ ρσ_n²/b + b log(1/δ)/ρ",
    params=(spec.P_RHO, spec.P_VAR_SUM, spec.P_XI_BOUND, spec.P_DELTA),
    reference=zhang_deviation,
    monotone={"var_sum": +1, "delta": -1},
    note="Seed 004 L634–L640 (eq. 9). The proof needs e^r − r − 1 ≤ r² on (0, 1] (notes §2 Lemma A.4; a property test "
         "in tests/dc/test_dc_concentration.py). Used in Thm B.1's proof on ξ_t = −η_t⟨ḡ_t − E_t ḡ_t, ∇L_S(w_t)⟩.",
))

register(Statement(
    id="dc.lemma_a5",
    fast="dpspec.fast.dc.subweibull:normalized_inner_lower",
    source=Source(spec.SEED, "Lemma A.5", "inner product of a normalised vector with the gradient", CUTKOSKY),
    kind="utility",
    claim="lower",
    value=Value("number"),
    summary="⟨g/‖g‖, v⟩ ≥ ‖v‖/3 − 8‖g − v‖/3 (v = ∇L_S(w), any g ≠ 0): the right-hand side from the two norms",
    params=(spec.P_V_NORM, spec.P_DEV_NORM),
    reference=normalized_inner_lower,
    monotone={"v_norm": +1, "dev_norm": -1},
    note="Seed 004 L642–L643; the text writes ‖g − L_S(w)‖ (the ∇ is missing: a typo with no computable reading, "
         "notes §2 Lemma A.5). A deterministic inequality: dpspec.reference.dc.concentration."
         "normalized_inner_lower_vectors evaluates both sides from vectors (a hypothesis property test checks it). "
         "Used on −η_t⟨c g_t/‖g_t‖ s_t⁺, ∇L_S(w_t)⟩ in the proofs of Thms B.1 and E.1.",
))

register(Statement(
    id="dc.lemma_a7",
    source=Source(spec.SEED, "Lemma A.7", "truncated concentration of i.i.d. heavy-tailed sums (Weibull law, "
                  "I(x) = (x/λ)^{1/θ})", BAKHSHIZADEH),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="P(S_m − ES_m > mx) ≤ exp(−c_xηI(mx)) + m e^{−I(mx)} (x ≥ x_max), exp(−mx²/(2v(mx_max, η))) + "
            "m exp(−m x_max²/(ηv(mx_max, η))) (x ≤ x_max); X ~ Weibull(1/θ, λ)",
    params=(spec.P_THETA, spec.P_SCALE_W, spec.P_M_IID, spec.P_X_MEAN, spec.P_ETA),
    reference=bakhshizadeh_a7,
    conditions=(_TAIL_LINEAR, _XMAX_FINITE),
    note="Seed 004 L648–L656 (eq. 10), evaluated for X ~ Weibull(shape 1/θ, scale λ) with its exact tail "
         "I(x) = (x₊/λ)^{1/θ} (increasing, continuous, O(x) for θ ≥ 1). v(L, η) by mpmath quadrature, x_max by a "
         "scan and bracketed root finding. The text's trailing '∀β ∈ (0, 1]' is read ∀η ∈ (0, 1] (notes §2). "
         "UNCONFIRMED: the second branch's remainder m·exp(−m x_max²/(ηv(mx_max, η))) is as extracted (the notes "
         "could not check it against Bakhshizadeh et al.); by the definition of x_max it equals m·exp(−I(m x_max)), "
         "which makes (10) continuous at x = x_max — consistent, not a confirmation. At η = 1 v(L, 1) grows without "
         "bound (like L²/(θ − 1) for θ > 1, L³ at θ = 1) and x_max = ∞ (condition xmax_finite: η < 1).",
))

register(Statement(
    id="dc.lemma_a8",
    source=Source(spec.SEED, "Lemma A.8", "truncated concentration of i.i.d. centred heavy-tailed sums (Weibull law "
                  "centred)", BAKHSHIZADEH),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="E X = 0 ⇒ P(S_m > mt) ≤ exp(−mt²/(2v(mt, η))) + exp(−η max{c_t, 1/2} I(mt)) + m e^{−I(mt)}; "
            "X = W − EW, W ~ Weibull(1/θ, λ)",
    params=(spec.P_THETA, spec.P_SCALE_W, spec.P_M_IID, spec.P_T_DEV, spec.P_ETA),
    reference=bakhshizadeh_a8,
    conditions=(_TAIL_LINEAR,),
    note="Seed 004 L658–L660 (eq. 11), evaluated for the centred Weibull Y = W − μ (μ = λΓ(1 + θ)) with its exact "
         "tail I(y) = ((y + μ)₊/λ)^{1/θ}; v(mt, η) by mpmath quadrature. Used with Lemma A.3 in Thm E.1's proof "
         "(L1303–L1307: β = k v(L, η)).",
))

register(Statement(
    id="dc.lemma_a9",
    fast="dpspec.fast.dc.subweibull:ahlswede_winter",
    source=Source(spec.SEED, "Lemma A.9", "Ahlswede–Winter matrix concentration", AHLSWEDE),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="Y_i i.i.d. symmetric PSD, ‖EY‖ ≤ 1, ‖Y‖ ≤ R (R ≥ 1), μ ∈ (0, 1) ⇒ P(‖(1/m)ΣY_i − EY‖ > μ) ≤ "
            "2d·exp(−mμ²/(4R))",
    params=(spec.P_D, spec.P_M_IID, spec.P_MU_AW, spec.P_R_AW),
    reference=ahlswede_winter,
    monotone={"d": +1, "m": -1, "mu": -1, "R": +1},
    note="Seed 004 L662–L664 (the text: 'Ahlsweede'). The Y_i must be independent (notes §2). Inverted "
         "(ahlswede_winter_mu): μ = 2·sqrt(R log(2d/δ)/m), the first term 4 log(2d/δ_m)/k of Thm 5.2 (dc.thm5_2) "
         "after squaring with R = 1, m = k.",
))
