"""§5 of seed 001: the F-trimmed sum TSUM_F, its r-step local sensitivity LS^(r) (Theorem 5.1) and the safety
margin Δ(S) of PTR-TMEAN (Algorithm 3, appendix 000 A.5).

Definitions (seed 001 §5; appendix 000 A.3). S = {x_1, …, x_m} ⊂ R^d inside the ℓ2 ball of radius R (clipped),
x_(k) the k-th smallest by ℓ2 norm, add/remove distance d(S, S̃) = |S Δ S̃| (erratum E15: §4.1 says "replace"):
    TSUM_F(S) = Σ_{i=1}^{m−F} x_(i) if m > F, else 0;
    LS_f^(r)(S) = sup_{S̃: d(S,S̃) ≤ r} LS_f(S̃)     (printed "sup_{S,S̃}" and "= r"; erratum E14);
    Δ(S) = min{r : LS_f^(r)(S) > τ}.
Theorem 5.1 (as printed, m > F): LS^(r)_TSUM_F(S) = ||x_(m−F+1+r)|| if r ≤ F−1, and GS_TSUM_F (= R) if r > F−1.

Edge cases (erratum E16; the printed index is ≤ 0 when m ≤ F, which Poisson batches produce). Padding the sorted
norms with R beyond m (the added points of maximal norm), one formula covers every m ≥ 0, F ≥ 0:
    LS^(r)(S) = 0                       if m + r < F  (every reachable set has < F+1 points after one addition),
              = ||x_(m−F+1+r)||, with ||x_(j)|| := R for j > m, otherwise.
Derivation: LS(S̃) = ||x̃_(k−F+1)|| for |S̃| = k ≥ F (add a point of norm R: the sum gains x̃_(k−F+1); removals move
it by at most ||x̃_(k−F)||), and 0 for k < F; from S, adding a points of norm R and removing the c smallest puts
||x_(m+a−F+1)|| at that rank whatever c is, so a = r is best. Hence, for τ < R,
    Δ(S) = max(F − m, 0) + #{ j ∈ [max(m−F+1, 1), m] : ||x_(j)|| ≤ τ },      Δ(S) = ∞ if τ ≥ R,
which for m > F is the notes' closed form #{i ∈ {m−F+1, …, m} : ||x_(i)|| ≤ τ}. The brute-force checks are in
tests/ptr/test_ptr_tsum.py.
"""
from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mpf

from ..errors import DomainError


def _check(points, F, R=None):
    pts = np.asarray(points, dtype=float)
    if pts.ndim == 1:
        pts = pts.reshape(-1, 1) if pts.size else pts.reshape(0, 1)
    if pts.ndim != 2:
        raise DomainError("points", f"array of shape {pts.shape}", "an (m, d) array of vectors")
    if int(F) != F or F < 0:
        raise DomainError("F", F, "integers in [0, inf)")
    if R is not None and not mpf(R) > 0:
        raise DomainError("R", R, "(0, inf)")
    return pts, int(F)


def sorted_norms(points) -> list:
    """ℓ2 norms of the rows, ascending, in mpmath (each float coordinate taken exactly)."""
    pts, _ = _check(points, 0)
    return sorted(mpmath.sqrt(mpmath.fsum(mpf(float(c)) ** 2 for c in row)) for row in pts)


def tsum(points, F) -> np.ndarray:
    """TSUM_F(S) = Σ_{i=1}^{m−F} x_(i) if m > F, else 0 (seed 001 §5): drops the F largest-norm points."""
    pts, F = _check(points, F)
    m = pts.shape[0]
    if m <= F:
        return np.zeros(pts.shape[1])
    order = np.argsort(np.linalg.norm(pts, axis=1), kind="stable")
    return pts[order[: m - F]].sum(axis=0)


def ls_r(points, F, r, R):
    """LS^(r)_TSUM_F(S) (Theorem 5.1, extended to m ≤ F as in the module docstring)."""
    pts, F = _check(points, F, R)
    if int(r) != r or r < 0:
        raise DomainError("r", r, "integers in [0, inf)")
    norms, m = sorted_norms(pts), pts.shape[0]
    if m + r < F:
        return mpf(0)
    j = m - F + 1 + int(r)  # 1-based rank
    return norms[j - 1] if j <= m else mpf(R)


def ls_r_printed(points, F, r, R):
    """Theorem 5.1 verbatim: ||x_(m−F+1+r)|| if r ≤ F−1, else GS_TSUM_F = R; defined for m > F only (E16)."""
    pts, F = _check(points, F, R)
    m = pts.shape[0]
    if m <= F:
        raise DomainError("m", m, f"(F, inf) = ({F}, inf): Theorem 5.1's index m−F+1+r is undefined for m ≤ F")
    return sorted_norms(pts)[m - F + int(r)] if r <= F - 1 else mpf(R)


def safety_margin(points, F, tau, R):
    """Δ(S) = min{r : LS^(r)(S) > τ} in closed form (module docstring); mpmath.inf when τ ≥ R."""
    pts, F = _check(points, F, R)
    if not mpf(tau) > 0:
        raise DomainError("tau", tau, "(0, inf)")
    if mpf(tau) >= mpf(R):
        return mpmath.inf
    norms, m = sorted_norms(pts), pts.shape[0]
    first = max(m - F + 1, 1)
    return max(F - m, 0) + sum(1 for j in range(first, m + 1) if norms[j - 1] <= mpf(tau))


def safety_margin_scan(points, F, tau, R):
    """Δ(S) by its definition: the first r with LS^(r)(S) > τ (seed 001 §5, "enumerate all r")."""
    pts, F = _check(points, F, R)
    if mpf(tau) >= mpf(R):
        return mpmath.inf
    r = 0
    while not ls_r(pts, F, r, R) > mpf(tau):
        r += 1
    return r


# ---------------------------------------------------------------------------------------------------------------
# Catalogue entries: Theorem 5.1 (LS^(r)) and the safety margin Δ(S), with the dataset as a Points parameter.

from ..catalogue import Condition, Source, Statement, Value, Variant, register  # noqa: E402
from ..domains import Param, Points  # noqa: E402
from ..precision import self_checked  # noqa: E402
from .spec import POSITIVE, SEED_APPENDIX, SEED_MAIN, THM5_1_PRINTED_M_GT_F, TRIM  # noqa: E402

_POINTS = Param("points", Points(), "the (clipped) gradients S = {x_1, …, x_m} ⊂ R^d, one row each",
                example=[[0.1, 0.2], [0.5, 0.1], [0.9, 0.3], [0.2, 0.2]])
_F = Param("F", TRIM, "number of largest-norm points trimmed", example=1)
_R = Param("R", POSITIVE, "clip norm (GS of TSUM_F)", example=1)


@self_checked
def thm5_1(points, F, r, R):
    """Theorem 5.1 (seed 001 §5), extended to m ≤ F (erratum E16): LS^(r)_TSUM_F(S) = ||x_(m−F+1+r)|| with
    ||x_(j)|| := R for j > m, and 0 when m + r < F."""
    return ls_r(points, F, int(r), R)


@self_checked
def thm5_1_printed(points, F, r, R):
    """Theorem 5.1 verbatim (seed 001 §5): ||x_(m−F+1+r)|| if r ≤ F−1, else R; defined for m > F only."""
    return ls_r_printed(points, F, int(r), R)


@self_checked
def safety_margin_value(points, F, tau, R):
    """Δ(S) = min{r : LS^(r)(S) > τ} (seed 001 §5 / appendix 000 A.5), closed form; +inf when τ ≥ R."""
    return mpf(safety_margin(points, F, tau, R))


register(Statement(
    id="ptr.thm5_1",
    fast="dpspec.fast.ptr.operators:ls_tsum",
    source=Source(SEED_MAIN, "Theorem 5.1", "r-step local sensitivity of the F-trimmed sum (used by PTR-TMEAN)"),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="LS^(r)_TSUM_F(S) = ||x_(m−F+1+r)|| (R beyond m; 0 if m + r < F)",
    params=(_POINTS, _F, Param("r", TRIM, "number of add/remove steps", example=0), _R),
    reference=thm5_1,
    variants={"printed": Variant(
        thm5_1_printed, "Theorem 5.1 as printed: undefined for m ≤ F (erratum E16); equal to the default where "
        "defined", is_bound=True,
        conditions=(Condition.of(THM5_1_PRINTED_M_GT_F, lambda p: len(p["points"]) > p["F"]),))},
    default_variant="extended",
    note="Add/remove distance (erratum E15). Brute-force checks: tests/ptr/test_ptr_tsum.py, proofs_checks/ptr.",
))

register(Statement(
    id="ptr.safety_margin",
    fast="dpspec.fast.ptr.operators:safety_margin_of_points",
    source=Source(SEED_APPENDIX, "Algorithm 3 (PTR-TMEAN), Δ(S); §5 of 001",
                  "distance to an unsafe dataset, tested by PTR with Laplace noise"),
    kind="sensitivity",
    claim="exact",
    value=Value("number"),
    summary="Δ(S) = max(F−m, 0) + #{j ≥ max(m−F+1, 1) : ||x_(j)|| ≤ τ}; ∞ if τ ≥ R",
    params=(_POINTS, _F, Param("tau", POSITIVE, "sensitivity threshold τ", example=0.5), _R),
    reference=safety_margin_value,
    monotone={"tau": +1},
    note="Global sensitivity GS(Δ) = 1 under add/remove is checked by brute force in proofs_checks/ptr.",
))
