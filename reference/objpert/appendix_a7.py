"""Seed 003, chapter 2's definitions (Defs 2.2.1–2.2.3, evaluated on the chapter's running example, the Gaussian
mechanism) and the tool lemmas of appendix A.7 not registered elsewhere: A.7.1 (Sherman–Morrison–Woodbury), A.7.2
(rank-one determinant), A.7.4 (a tail bound of the privacy loss gives (ε, δ)), A.7.5 (maximum of subgaussians),
A.7.6 (Weyl), A.7.7 (change of variables), A.7.8 (billboard lemma). Lemma A.7.3 is objpert.lemma_a7_3
(gaussian_pdp.py).

The identities return one side, computed by the lemma's formula; their ``properties`` compute the other side
directly (a determinant, an inverse, a density) and fail when the two differ, so ``dpspec conform`` checks each one
at drawn points. Seed 003 lines: Defs 2.2.1–2.2.3 near L380–L420 (chapter 2, §2.2); Lemmas A.7.1–A.7.8 at
L5919–L6036. Notes: objpert-pdp.md §2 (Definitions) and §2.D (App. A.7).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from .._normal import ndtr
from ..catalogue import Condition, Privacy, Source, Statement, Value, WitnessUse, register
from ..domains import Param
from ..errors import DomainError
from ..precision import checked_param, self_checked
from . import spec
from .spec import DELTA, NONNEGATIVE, POSITIVE


def _matrix(name, value, rows=None, cols=None) -> mpmath.matrix:
    """An mpmath matrix from a Points value; DomainError when its shape is not (rows, cols) where given."""
    arr = spec.RECORDS.check(name, value)
    if arr.shape[0] == 0 or arr.shape[1] == 0:
        raise DomainError(name, "an empty array", "a matrix with at least one row and one column")
    if (rows is not None and arr.shape[0] != rows) or (cols is not None and arr.shape[1] != cols):
        want = f"({rows if rows is not None else 'm'}, {cols if cols is not None else 'n'})"
        raise DomainError(name, f"an array of shape {arr.shape}", f"a matrix of shape {want}")
    return mpmath.matrix([[mpf(float(v)) for v in row] for row in arr])


def _invertible(m: mpmath.matrix) -> bool:
    """|det m| above 1e-30 relative to the product of its rows' norms (Hadamard's bound): numerically invertible."""
    scale = mpmath.fprod(mpmath.norm(m[i, :]) for i in range(m.rows))
    return scale > 0 and abs(mpmath.det(m)) > mpf(10) ** -30 * scale


def _close(a: mpmath.matrix, b: mpmath.matrix) -> bool:
    return mpmath.mnorm(a - b, 1) <= mpf(10) ** -25 * (1 + mpmath.mnorm(a, 1) + mpmath.mnorm(b, 1))


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.7.1 (Sherman–Morrison–Woodbury)

def _smw_parts(A, U, C, V):
    a = _matrix("A", A)
    d = a.rows
    if a.cols != d:
        raise DomainError("A", f"an array of shape ({a.rows}, {a.cols})", "a square matrix")
    u = _matrix("U", U, rows=d)
    c = _matrix("C", C, rows=u.cols, cols=u.cols)
    v = _matrix("V", V, rows=u.cols, cols=d)
    return a, u, c, v


def _smw_ok(p) -> bool:
    try:
        a, u, c, v = _smw_parts(p["A"], p["U"], p["C"], p["V"])
    except DomainError:
        return False
    return _invertible(a) and _invertible(c) and _invertible(c ** -1 + v * a ** -1 * u)


_SMW = Condition.of(spec.SMW_INVERTIBLE_F, _smw_ok)


def smw_inverse(A, U, C, V) -> mpmath.matrix:
    """(A + UCV)⁻¹ by the right side of Lemma A.7.1: A⁻¹ − A⁻¹U(C⁻¹ + VA⁻¹U)⁻¹VA⁻¹."""
    a, u, c, v = _smw_parts(A, U, C, V)
    ai = a ** -1
    return ai - ai * u * (c ** -1 + v * ai * u) ** -1 * v * ai


@self_checked
def lemma_a7_1(A, U, C, V):
    """Seed 003, Lemma A.7.1 (Sherman–Morrison–Woodbury, L5919): tr((A + UCV)⁻¹) computed from the right side
    A⁻¹ − A⁻¹U(C⁻¹ + VA⁻¹U)⁻¹VA⁻¹ (A d×d, U d×r, C r×r, V r×d; A, C and C⁻¹ + VA⁻¹U invertible). The trace is the
    value shown; the property compares every entry with the inverse computed directly."""
    m = smw_inverse(A, U, C, V)
    return mpmath.fsum(m[i, i] for i in range(m.rows))


def _smw_property(statement, p):
    a, u, c, v = _smw_parts(p["A"], p["U"], p["C"], p["V"])
    if not _close(smw_inverse(p["A"], p["U"], p["C"], p["V"]), (a + u * c * v) ** -1):
        raise AssertionError("Lemma A.7.1's right side differs from (A + UCV)⁻¹ computed directly")


_MAT = dict(A=[[2, 0.5], [0.5, 1]], U=[[1], [0.3]], C=[[0.7]], V=[[0.2, 1]])

register(Statement(
    id="objpert.lemma_a7_1",
    source=Source(spec.SEED, "Lemma A.7.1", "Sherman–Morrison–Woodbury formula (used for H⁻¹ updates in the "
                  "ex-post pDP of Thm 2.3.1)"),
    kind="identity",
    claim="exact",
    value=Value("number"),
    summary="(A + UCV)⁻¹ = A⁻¹ − A⁻¹U(C⁻¹ + VA⁻¹U)⁻¹VA⁻¹ (value: its trace)",
    params=(Param("A", spec.RECORDS, "A, an invertible d×d matrix", example=_MAT["A"]),
            Param("U", spec.RECORDS, "U, d×r", example=_MAT["U"]),
            Param("C", spec.RECORDS, "C, an invertible r×r matrix", example=_MAT["C"]),
            Param("V", spec.RECORDS, "V, r×d", example=_MAT["V"])),
    reference=lemma_a7_1,
    conditions=(_SMW,),
    privacy=Privacy("n/a", "n/a", "none"),
    properties=(_smw_property,),
    note="An exact matrix identity; the property checks all entries against the direct inverse at 50 digits.",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.7.2 (determinant of a rank-one perturbation)

def _rank_one_parts(A, c, d):
    a = _matrix("A", A)
    if a.cols != a.rows:
        raise DomainError("A", f"an array of shape ({a.rows}, {a.cols})", "a square matrix")
    return a, _matrix("c", c, rows=1, cols=a.rows).T, _matrix("d", d, rows=1, cols=a.rows).T


def _rank_one_ok(p) -> bool:
    try:
        a, _, _ = _rank_one_parts(p["A"], p["c"], p["d"])
    except DomainError:
        return False
    return _invertible(a)


@self_checked
def lemma_a7_2(A, c, d):
    """Seed 003, Lemma A.7.2 (L5925): det(A + cdᵀ) = det(A)(1 + dᵀA⁻¹c) for invertible A; returns the right side.
    Thm 2.3.1 → Cor 2.3.2 applies it to the per-example Hessian f''·xxᵀ (the leverage score µ = xᵀH⁻¹x)."""
    a, cv, dv = _rank_one_parts(A, c, d)
    return mpmath.det(a) * (1 + (dv.T * a ** -1 * cv)[0, 0])


def _rank_one_property(statement, p):
    a, cv, dv = _rank_one_parts(p["A"], p["c"], p["d"])
    direct = mpmath.det(a + cv * dv.T)
    got = lemma_a7_2(p["A"], p["c"], p["d"])
    if abs(got - direct) > mpf(10) ** -25 * (1 + abs(direct)):
        raise AssertionError(f"det(A)(1 + dᵀA⁻¹c) = {mpmath.nstr(got, 15)} but det(A + cdᵀ) = {mpmath.nstr(direct, 15)}")


register(Statement(
    id="objpert.lemma_a7_2",
    source=Source(spec.SEED, "Lemma A.7.2", "matrix determinant lemma (rank-one perturbation)"),
    kind="identity",
    claim="exact",
    value=Value("number"),
    summary="det(A + cdᵀ) = det(A)(1 + dᵀA⁻¹c)",
    params=(Param("A", spec.RECORDS, "A, an invertible d×d matrix", example=_MAT["A"]),
            Param("c", spec.RECORDS, "c ∈ R^d, one row", example=[[1, 0.3]]),
            Param("d", spec.RECORDS, "d ∈ R^d, one row", example=[[0.2, 1]])),
    reference=lemma_a7_2,
    conditions=(Condition.of(spec.RANK_ONE_INVERTIBLE_F, _rank_one_ok),),
    privacy=Privacy("n/a", "n/a", "none"),
    properties=(_rank_one_property,),
    note="The symbolic check proofs_checks/objpert/symbolic_ch2 (2×2, 3×3) proves it; this entry evaluates it.",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.7.4 (a tail bound of the privacy loss gives (ε, δ)), on the Gaussian mechanism

@self_checked
def lemma_a7_4(eps, Delta, sigma):
    """Seed 003, Lemma A.7.4 (L5954) on the Gaussian mechanism with ℓ2 sensitivity Δ (Thm A.6.1's privacy loss
    L ~ N(S²/2, S²) under P, S = Δ/σ): the δ that the lemma certifies at ε is the loss's tail,
    δ_tail(ε) = P_P(L > ε) = Φ((S²/2 − ε)/S) (Δ = 0: 0). An upper bound on the exact δ(ε) (base.gaussian_profile),
    looser by the term e^ε P_Q(L > ε) that the tail bound drops. For pDP the lemma also needs P_Q(L < −ε) ≤ δ (the
    printed P_{p'}(−ε(o) < −ε) is a typo, erratum E18); for the Gaussian both tails are equal."""
    eps = checked_param("eps", spec.EPS, eps)
    Delta = checked_param("Delta", NONNEGATIVE, Delta)
    sigma = checked_param("sigma", POSITIVE, sigma)
    if Delta == 0:
        return mpf(0)
    s = Delta / sigma
    return ndtr((s * s / 2 - eps) / s)


register(Statement(
    id="objpert.lemma_a7_4",
    source=Source(spec.SEED, "Lemma A.7.4", "tail bound of the privacy loss ⇒ (ε, δ)-DP / pDP"),
    kind="profile",
    claim="upper",
    value=Value("delta", "eps"),
    summary="P_P(L > ε) ≤ δ ⇒ (ε, δ); Gaussian mechanism: δ = Φ((S²/2 − ε)/S), S = Δ/σ",
    params=(spec.P_EPS, spec.P_DELTA_NORM_C, spec.P_SIGMA_C),
    reference=lemma_a7_4,
    witnesses=(WitnessUse("base.gaussian", lambda p: {"sigma": p["sigma"] / p["Delta"]}),),
    privacy=Privacy("add_remove", "P||Q", "none"),
    monotone={"eps": -1, "Delta": +1, "sigma": -1},
    note="Used by Cor A.6.2 (objpert.cor_a6_2 inverts it: ε at δ) and Thm A.3.1. Exact δ: base.gaussian_profile.",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.7.5 (maximum of subgaussians)

@self_checked
def lemma_a7_5(sigma, n, t):
    """Seed 003, Lemma A.7.5 (L5986): for iid σ²-subgaussian X_1..X_n, P[max_i X_i ≥ √(2σ²(log n + t))] ≤ e^{−t};
    returns the threshold √(2σ²(log n + t)) (a bound that holds with probability ≥ 1 − e^{−t})."""
    sigma = checked_param("sigma", POSITIVE, sigma)
    n = checked_param("n", spec.COUNT, n)
    t = checked_param("t", POSITIVE, t)
    return mpmath.sqrt(2 * sigma ** 2 * (mpmath.log(n) + t))


def _max_gaussian_property(statement, p):
    """For X_i ~ N(0, σ²) (σ²-subgaussian): the exact P[max X_i ≥ threshold] = 1 − Φ(thr/σ)^n is ≤ e^{−t}."""
    thr = lemma_a7_5(p["sigma"], p["n"], p["t"])
    log_cdf = mpmath.log1p(-ndtr(-thr / p["sigma"]))
    exact = -mpmath.expm1(int(p["n"]) * log_cdf)
    if exact > mpmath.exp(-p["t"]) * (1 + mpf(10) ** -25):
        raise AssertionError(f"P[max ≥ threshold] = {mpmath.nstr(exact, 15)} > e^-t for Gaussians")


register(Statement(
    id="objpert.lemma_a7_5",
    source=Source(spec.SEED, "Lemma A.7.5", "maximum of n iid subgaussian variables"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="P[max_i X_i ≥ √(2σ²(log n + t))] ≤ e^{−t}",
    params=(Param("sigma", POSITIVE, "σ > 0, the subgaussian parameter", example=1),
            Param("n", spec.COUNT, "n ≥ 1 variables", example=100),
            Param("t", POSITIVE, "t > 0: the failure probability is e^{−t}", example=3)),
    reference=lemma_a7_5,
    privacy=Privacy("n/a", "n/a", "none"),
    properties=(_max_gaussian_property,),
    monotone={"sigma": +1, "n": +1, "t": +1},
    note="The property checks the Gaussian case exactly (1 − Φ(thr/σ)^n ≤ e^{−t}); tests check it by Monte Carlo.",
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.7.6 (Weyl's perturbation theorem for singular values)

def _weyl_parts(A, E):
    a = _matrix("A", A)
    if a.rows < a.cols:
        raise DomainError("A", f"an array of shape ({a.rows}, {a.cols})", "an m×n matrix with m ≥ n")
    return a, _matrix("E", E, rows=a.rows, cols=a.cols)


def _spectral_norm(m: mpmath.matrix) -> mpf:
    return max(mpmath.svd_r(m, compute_uv=False))


@self_checked
def lemma_a7_6(A, E):
    """Seed 003, Lemma A.7.6 (Weyl; Stewart & Sun 1990, Thm 4.11; L5999): max_i |σ_i(A) − σ_i(A + E)| ≤ ‖E‖₂ for
    m×n matrices, m ≥ n; returns ‖E‖₂. Used by Thm A.3.1 (λ_min moves by at most f''‖x‖² when z is added)."""
    _, e = _weyl_parts(A, E)
    return _spectral_norm(e)


def _weyl_property(statement, p):
    a, e = _weyl_parts(p["A"], p["E"])
    s1 = sorted(mpmath.svd_r(a, compute_uv=False), reverse=True)
    s2 = sorted(mpmath.svd_r(a + e, compute_uv=False), reverse=True)
    gap = max(abs(x - y) for x, y in zip(s1, s2))
    bound = lemma_a7_6(p["A"], p["E"])
    if gap > bound * (1 + mpf(10) ** -25) + mpf(10) ** -40:
        raise AssertionError(f"max |σ_i(A) − σ_i(A+E)| = {mpmath.nstr(gap, 15)} > ‖E‖₂ = {mpmath.nstr(bound, 15)}")


register(Statement(
    id="objpert.lemma_a7_6",
    source=Source(spec.SEED, "Lemma A.7.6", "Weyl's theorem for singular values",
                  "Stewart & Sun, Matrix Perturbation Theory, 1990, Thm 4.11"),
    kind="utility",
    claim="upper",
    value=Value("number"),
    summary="max_i |σ_i(A) − σ_i(A + E)| ≤ ‖E‖₂",
    params=(Param("A", spec.RECORDS, "A, m×n with m ≥ n", example=[[2, 0.5], [0.5, 1], [0, 0.3]]),
            Param("E", spec.RECORDS, "E, m×n", example=[[0.1, 0], [0, -0.2], [0.05, 0]])),
    reference=lemma_a7_6,
    conditions=(Condition.of(spec.WEYL_SHAPES_F, lambda p: _shapes_ok(_weyl_parts, p["A"], p["E"])),),
    privacy=Privacy("n/a", "n/a", "none"),
    properties=(_weyl_property,),
))


def _shapes_ok(parts, *args) -> bool:
    try:
        parts(*args)
        return True
    except DomainError:
        return False


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.7.7 (change of variables), for an affine map of a standard normal

def _affine_parts(M, shift, y):
    m = _matrix("M", M)
    if m.cols != m.rows:
        raise DomainError("M", f"an array of shape ({m.rows}, {m.cols})", "a square matrix")
    return m, _matrix("shift", shift, rows=1, cols=m.rows).T, _matrix("y", y, rows=1, cols=m.rows).T


def _affine_ok(p) -> bool:
    try:
        m, _, _ = _affine_parts(p["M"], p["shift"], p["y"])
    except DomainError:
        return False
    return _invertible(m)


@self_checked
def lemma_a7_7(M, shift, y):
    """Seed 003, Lemma A.7.7 (L6006): for a bijective differentiable g and Y = g(X),
    f_Y(y) = f_X(g⁻¹(y))·|det ∂g⁻¹(y)/∂y|; evaluated for X ~ N(0, I_d) and g(x) = Mx + shift: returns
    log f_Y(y) = log φ_d(M⁻¹(y − shift)) − log|det M|. Thm 2.3.1's proof applies it to θ ↦ b(θ) = −∇J(θ; D)."""
    m, s, yv = _affine_parts(M, shift, y)
    x = m ** -1 * (yv - s)
    d = m.rows
    return -mpmath.fsum(v ** 2 for v in x) / 2 - d * mpmath.log(2 * mpmath.pi) / 2 - mpmath.log(abs(mpmath.det(m)))


def _affine_property(statement, p):
    """Y = MX + shift is N(shift, MMᵀ): its log density computed directly."""
    m, s, yv = _affine_parts(p["M"], p["shift"], p["y"])
    cov = m * m.T
    r = yv - s
    direct = (-(r.T * cov ** -1 * r)[0, 0] / 2 - m.rows * mpmath.log(2 * mpmath.pi) / 2
              - mpmath.log(mpmath.det(cov)) / 2)
    got = lemma_a7_7(p["M"], p["shift"], p["y"])
    if abs(got - direct) > mpf(10) ** -25 * (1 + abs(direct)):
        raise AssertionError(f"change of variables {mpmath.nstr(got, 15)} ≠ N(shift, MMᵀ) log density "
                             f"{mpmath.nstr(direct, 15)}")


register(Statement(
    id="objpert.lemma_a7_7",
    source=Source(spec.SEED, "Lemma A.7.7", "change of variables for densities"),
    kind="identity",
    claim="exact",
    value=Value("number"),
    summary="f_Y(y) = f_X(g⁻¹(y))|det ∂g⁻¹/∂y|; X ~ N(0, I), g(x) = Mx + shift: log φ(M⁻¹(y − shift)) − log|det M|",
    params=(Param("M", spec.RECORDS, "M, an invertible d×d matrix", example=[[2, 0.5], [0, 1]]),
            Param("shift", spec.RECORDS, "the shift ∈ R^d, one row", example=[[0.1, -0.2]]),
            Param("y", spec.RECORDS, "the point y ∈ R^d, one row", example=[[0.5, 0.5]])),
    reference=lemma_a7_7,
    conditions=(Condition.of(spec.AFFINE_INVERTIBLE_F, _affine_ok),),
    privacy=Privacy("n/a", "n/a", "none"),
    properties=(_affine_property,),
))


# ---------------------------------------------------------------------------------------------------------------
# Lemma A.7.8 (billboard lemma)

@self_checked
def lemma_a7_8(eps, delta):
    """Seed 003, Lemma A.7.8 (billboard lemma, Hsu et al. 2016, arXiv 1311.4510; L6030): if A is (ε, δ)-DP then
    releasing f_i(Π_i D, A(D)) to each individual i is (ε, δ)-joint-DP; returns the joint-DP pair (ε, δ) (the same
    pair: post-processing of A(D) with each individual's own data). Used for publishing every individual's
    ex-post pDP report (seed 003 §2.3)."""
    return checked_param("eps", spec.EPS, eps), checked_param("delta", DELTA, delta)


register(Statement(
    id="objpert.lemma_a7_8",
    source=Source(spec.SEED, "Lemma A.7.8", "billboard lemma: (ε, δ)-DP ⇒ (ε, δ)-joint-DP of per-individual outputs",
                  "Hsu, Huang, Roth, Roughgarden & Wu, Private Matchings and Allocations, STOC 2014, arXiv 1311.4510"),
    kind="eps_delta",
    claim="upper",
    value=Value("eps_delta"),
    summary="A (ε, δ)-DP ⇒ {f_i(Π_i D, A(D))}_i is (ε, δ)-joint-DP",
    params=(spec.P_EPS, spec.P_DELTA),
    reference=lemma_a7_8,
    privacy=Privacy("add_remove", "both", "none"),
    monotone={"eps": +1, "delta": +1},
    note="Joint DP is a guarantee about the other individuals' outputs; no witness pair (not a two-distribution "
         "statement). Returns the input pair: the content is the reduction, not a number.",
))


# ---------------------------------------------------------------------------------------------------------------
# Definitions 2.2.1–2.2.3 on the Gaussian mechanism (the chapter's running example, Ex 2.2.4)

def _reverse_direction_by_event(eps, Delta, sigma) -> mpf:
    """H_{e^ε}(N(0, σ²)‖N(Δ, σ²)) from its own optimal event: N(0, σ²) exceeds e^ε N(Δ, σ²) exactly on o < c,
    c = Δ/2 − εσ²/Δ, so H = Pr_{N(0,σ²)}[o < c] − e^ε Pr_{N(Δ,σ²)}[o < c] (cancels when H is tiny: the property
    uses it only where H > 1e-20)."""
    c = Delta / 2 - eps * sigma ** 2 / Delta
    return ndtr(c / sigma) - mpmath.exp(eps) * ndtr((c - Delta) / sigma)


@self_checked
def def2_2_2(eps, Delta, sigma):
    """Seed 003, Definition 2.2.2 (per-instance DP, Wang 2019), on the Gaussian mechanism A(D) = Q(D) + N(0, σ²I)
    for a fixed pair (D, z) with ‖Q(D ± z) − Q(D)‖ = Δ: the smallest δ with Pr[A(D) ∈ S] ≤ e^ε Pr[A(D ± z) ∈ S] + δ
    AND the reverse inequality for every S, i.e. the larger of the two hockey-stick divergences (the definition
    requires both; the text writes ε for ε(D, D ± z)). For the Gaussian they are equal (the reflection o ↦ Δ − o
    swaps the pair): the value is the stable log-space profile of base.gaussian at noise σ/Δ (Balle & Wang 2018,
    Thm 8); the property computes the reverse direction from its own event."""
    from ..base.gaussian import delta_shift

    eps = checked_param("eps", spec.EPS, eps)
    Delta = checked_param("Delta", NONNEGATIVE, Delta)
    sigma = checked_param("sigma", POSITIVE, sigma)
    if Delta == 0:
        return mpf(0)
    return delta_shift(eps, sigma=sigma / Delta)


@self_checked
def def2_2_1(eps, Delta, sigma):
    """Seed 003, Definition 2.2.1 (DP under add/remove neighbours) on the Gaussian mechanism with ℓ2 sensitivity Δ
    (sup over D, z of ‖Q(D ± z) − Q(D)‖): the smallest δ at ε is the supremum over all pairs of Def 2.2.2's
    per-instance δ, which increases in ‖Δ_z‖, so it is attained at ‖Δ_z‖ = Δ: base.gaussian_profile at σ/Δ."""
    return def2_2_2(eps, Delta, sigma)


def _reverse_direction_agrees(statement, p):
    value = def2_2_2(p["eps"], p["Delta"], p["sigma"])
    if p["Delta"] == 0 or value < mpf(10) ** -20:
        return
    two = _reverse_direction_by_event(p["eps"], p["Delta"], p["sigma"])
    if abs(value - two) > mpf(10) ** -20 * value:
        raise AssertionError(f"the reverse direction's δ {mpmath.nstr(two, 15)} differs from {mpmath.nstr(value, 15)}")


def _supremum_at_the_sensitivity(statement, p):
    """Def 2.2.1's δ is the supremum over pairs: no pair with ‖Δ_z‖ < Δ has a larger per-instance δ."""
    top = def2_2_1(p["eps"], p["Delta"], p["sigma"])
    for f in (mpf("0.25"), mpf("0.5"), mpf("0.9")):
        inner = def2_2_2(p["eps"], p["Delta"] * f, p["sigma"])
        if inner > top * (1 + mpf(10) ** -25):
            raise AssertionError(f"a pair with ‖Δ_z‖ = {mpmath.nstr(f, 3)}Δ has δ {mpmath.nstr(inner, 15)} > "
                                 f"{mpmath.nstr(top, 15)}")


_DEF_PARAMS = (spec.P_EPS, spec.P_DELTA_NORM_C, spec.P_SIGMA_C)
_GAUSS_WITNESS = (WitnessUse("base.gaussian", lambda p: {"sigma": p["sigma"] / p["Delta"]}),)

register(Statement(
    id="objpert.def2_2_1",
    source=Source(spec.SEED, "Definition 2.2.1", "(ε, δ)-DP under add/remove neighbours (evaluated on the Gaussian "
                  "mechanism)"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε) = sup_{D,z,S} Pr[A(D) ∈ S] − e^ε Pr[A(D ± z) ∈ S]; Gaussian: Φ(Δ/2σ − εσ/Δ) − e^εΦ(−Δ/2σ − εσ/Δ)",
    params=_DEF_PARAMS,
    reference=def2_2_1,
    witnesses=_GAUSS_WITNESS,
    privacy=Privacy("add_remove", "both", "none"),
    properties=(_supremum_at_the_sensitivity,),
    monotone={"eps": -1, "Delta": +1, "sigma": -1},
    note="A definition has no value of its own: it is evaluated on the chapter's running example (Ex 2.2.4), where "
         "it is base.gaussian_profile at σ/Δ (the property checks that smaller per-instance shifts give less).",
))

register(Statement(
    id="objpert.def2_2_2",
    source=Source(spec.SEED, "Definition 2.2.2", "per-instance DP for a fixed (D, z) (Wang 2019), both directions"),
    kind="profile",
    claim="exact",
    value=Value("delta", "eps"),
    summary="δ(ε; D, z) = max(H_{e^ε}(A(D)‖A(D ± z)), H_{e^ε}(A(D ± z)‖A(D))); Gaussian with ‖Δ_z‖ = Δ",
    params=_DEF_PARAMS,
    reference=def2_2_2,
    witnesses=_GAUSS_WITNESS,
    privacy=Privacy("add_remove", "both", "none"),
    properties=(_reverse_direction_agrees,),
    monotone={"eps": -1, "Delta": +1, "sigma": -1},
    note="Δ is the per-instance ‖Q(D ± z) − Q(D)‖ (not the global sensitivity of Def 2.2.1); the reverse direction "
         "is computed from its own optimal event by the property and agrees for the Gaussian.",
))


@self_checked
def def2_2_3(o, q_d, delta_vec, sigma):
    """Seed 003, Definition 2.2.3 (ex-post per-instance DP): ε(o, D, D ± z) = |log(p_D(o)/p_{D±z}(o))| at an
    outcome o, on the Gaussian mechanism, from the two normal log densities written out (no closed form used);
    Thm A.6.1 (objpert.thm_a6_1) is its closed form."""
    from .gaussian_pdp import _row

    o, q, dv = _row("o", o), _row("q_d", q_d), _row("delta_vec", delta_vec)
    if not len(o) == len(q) == len(dv):
        raise DomainError("delta_vec", f"lengths {len(o)}, {len(q)}, {len(dv)}", "o, q_d, delta_vec of one length")
    sigma = checked_param("sigma", POSITIVE, sigma)
    s2 = sigma ** 2
    log_p = -mpmath.fsum((a - b) ** 2 for a, b in zip(o, q)) / (2 * s2)
    log_p_prime = -mpmath.fsum((a - b - v) ** 2 for a, b, v in zip(o, q, dv)) / (2 * s2)
    return abs(log_p - log_p_prime)


def _matches_thm_a6_1(statement, p):
    from .gaussian_pdp import thm_a6_1

    got, closed = def2_2_3(**p), thm_a6_1(**p)
    if abs(got - closed) > mpf(10) ** -25 * (1 + abs(closed)):
        raise AssertionError(f"Def 2.2.3 from densities {mpmath.nstr(got, 15)} ≠ Thm A.6.1 {mpmath.nstr(closed, 15)}")


register(Statement(
    id="objpert.def2_2_3",
    source=Source(spec.SEED, "Definition 2.2.3", "ex-post per-instance DP: |log p_D(o)/p_{D±z}(o)| at an outcome"),
    kind="pdp",
    claim="exact",
    value=Value("loss"),
    summary="ε(o, D, D ± z) = |log(Pr[A(D) = o]/Pr[A(D ± z) = o])| (Gaussian mechanism, from its densities)",
    params=(spec.P_O_ROW_C, spec.P_QD_C, spec.P_DELTA_VEC_C, spec.P_SIGMA_C),
    reference=def2_2_3,
    conditions=(Condition.of(spec.GAUSS_VECTORS_C, lambda p: _gauss_ok(p)),),
    privacy=Privacy("add_remove", "P||Q", "none"),
    properties=(_matches_thm_a6_1,),
    note="Generalises Ligett et al. 2017's ex-post DP; objpert.thm_a6_1 is the closed form (the property checks it), "
         "objpert.cor2_3_2 the same quantity for objective perturbation.",
))


def _gauss_ok(p) -> bool:
    from .gaussian_pdp import gauss_vectors_ok

    return gauss_vectors_ok(p["o"], p["q_d"], p["delta_vec"])
