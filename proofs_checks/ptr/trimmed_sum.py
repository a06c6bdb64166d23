"""Theorem 5.1 (r-step local sensitivity of the trimmed sum) and the safety margin Δ, by brute force on small sets
(seed 001 §5; proof seed 000, A.3). Errata ptr.E15 (replacement vs add/remove distance) and ptr.E16 (m ≤ F).

TSUM_F(S) = Σ_{i ≤ m−F} x_(i) (ascending ℓ2 norms) if m > F, else 0. LS(S) = sup over add/remove neighbours S' of
‖TSUM_F(S) − TSUM_F(S')‖ with every point in the ball of radius R; LS^(r)(S) = max over S̃ with d(S, S̃) ≤ r of
LS(S̃); Δ(S) = min{r : LS^(r)(S) > τ}.

Brute force: data sets are multisets over a finite universe U (the points of S, one point of norm R, and a few
random points inside the ball). Adding a point of norm R is the worst case of the supremum (the difference
TSUM(S ∪ {x}) − TSUM(S) is x_(m−F+1) when ‖x‖ ≥ ‖x_(m−F+1)‖, else x), so LS over U equals LS over the ball;
the other points of U let the search find any better strategy for LS^(r). Norms are distinct (no ties).

Printed Thm 5.1: LS^(r) = ‖x_(m−F+1+r)‖ for r ≤ F−1 and GS = R for r > F−1; undefined when m−F+1+r ≤ 0 (m < F).
Closed form checked here for every m (τ < R): Δ(S) = max(0, F − #{i : ‖x_i‖ > τ}).
"""
from __future__ import annotations

import itertools
import math
import random
from typing import Iterable

import numpy as np

from dpspec.reference.ptr import tsum as reference_tsum

from . import CheckResult, check

Multiset = tuple[int, ...]  # sorted indices into the universe


def tsum(points: np.ndarray, S: Multiset, F: int) -> np.ndarray:
    if len(S) <= F:
        return np.zeros(points.shape[1])
    idx = sorted(S, key=lambda i: np.linalg.norm(points[i]))
    return points[list(idx[: len(S) - F])].sum(axis=0)


def neighbours(S: Multiset, universe: int) -> Iterable[Multiset]:
    for u in range(universe):
        yield tuple(sorted(S + (u,)))
    for j in range(len(S)):
        yield S[:j] + S[j + 1:]


def replacements(S: Multiset, universe: int) -> Iterable[Multiset]:
    for j in range(len(S)):
        rest = S[:j] + S[j + 1:]
        for u in range(universe):
            yield tuple(sorted(rest + (u,)))


def local_sensitivity(points: np.ndarray, S: Multiset, F: int) -> float:
    base = tsum(points, S, F)
    return max(float(np.linalg.norm(base - tsum(points, T, F))) for T in neighbours(S, len(points)))


def margin(points: np.ndarray, S: Multiset, F: int, tau: float, r_max: int, metric: str = "add_remove"):
    """Brute-force Δ(S) = min{r : some S̃ with d(S, S̃) ≤ r has LS(S̃) > τ}; None when no such S̃ exists within r_max
    steps (for "replace", the search space is finite and exhausted: None then means no S̃ at all in U)."""
    step = neighbours if metric == "add_remove" else replacements
    layer, seen = {S}, {S}
    for r in range(r_max + 1):
        if any(local_sensitivity(points, T, F) > tau for T in layer):
            return r
        layer = {T for U in layer for T in step(U, len(points))} - seen
        if not layer:
            return None
        seen |= layer
    return None


def ls_r_brute(points: np.ndarray, S: Multiset, F: int, r: int) -> float:
    """max LS(S̃) over d(S, S̃) ≤ r (add/remove)."""
    ball, layer = {S}, {S}
    for _ in range(r):
        layer = {T for U in layer for T in neighbours(U, len(points))} - ball
        ball |= layer
    return max(local_sensitivity(points, T, F) for T in ball)


def thm5_1_printed(norms_sorted: list[float], F: int, r: int, R: float):
    """Theorem 5.1 as printed; None where its index m−F+1+r is < 1 (undefined)."""
    m = len(norms_sorted)
    if r > F - 1:
        return R
    k = m - F + 1 + r
    return norms_sorted[k - 1] if k >= 1 else None


def margin_closed_form(norms: list[float], F: int, tau: float) -> int:
    """Δ(S) = max(0, F − #{i : ‖x_i‖ > τ}) for τ < R (Thm 5.1 for m > F; this module's derivation for m ≤ F)."""
    return max(0, F - sum(1 for v in norms if v > tau))


def random_instance(rng: random.Random, m: int, R: float = 1.0, extra: int = 2) -> tuple[np.ndarray, Multiset]:
    """2-D points with distinct norms in (0, R): the m data points, then one point of norm R, then ``extra``."""
    pts = []
    for _ in range(m + extra):
        radius, angle = rng.uniform(0.05, 0.95) * R, rng.uniform(0, 2 * math.pi)
        pts.append((radius * math.cos(angle), radius * math.sin(angle)))
    pts.insert(m, (R, 0.0))
    return np.array(pts), tuple(range(m))


@check(statements=("ptr.thm5_1", "ptr.safety_margin"))
def thm5_1_and_margin_by_brute_force(cases: int = 12, seed: int = 51) -> CheckResult:
    """Random 2-D sets with m ∈ {1..4}, F ∈ {1..3}, τ ∈ (0, R): brute-force LS^(r) (r ≤ 2) equals printed Thm 5.1
    wherever it is defined and the reference ``dpspec.reference.ptr.tsum.ls_r`` everywhere (m ≤ F included); the
    brute-force Δ equals max(0, F − #{‖x_i‖ > τ}) and the reference ``safety_margin``."""
    rng, R, mismatches, rows = random.Random(seed), 1.0, [], []
    for _ in range(cases):
        m, F, tau = rng.randint(1, 4), rng.randint(1, 3), rng.uniform(0.1, 0.9)
        points, S = random_instance(rng, m, R)
        data = points[list(S)]
        norms = sorted(float(np.linalg.norm(x)) for x in data)
        for r in range(3):
            brute = ls_r_brute(points, S, F, r)
            printed = thm5_1_printed(norms, F, r, R)
            reference = float(reference_tsum.ls_r(data, F, r, R))
            for name, value in (("printed", printed), ("reference", reference)):
                if value is not None and not math.isclose(brute, value, rel_tol=1e-12, abs_tol=1e-12):
                    mismatches.append({"m": m, "F": F, "r": r, "brute": brute, name: value})
        delta = margin(points, S, F, tau, r_max=F + 1)
        closed, reference = margin_closed_form(norms, F, tau), reference_tsum.safety_margin(data, F, tau, R)
        if not delta == closed == reference:
            mismatches.append({"m": m, "F": F, "tau": tau, "delta_brute": delta, "closed_form": closed,
                               "reference": str(reference)})
        rows.append({"m": m, "F": F, "tau": round(tau, 3), "delta": delta})
    return CheckResult("thm5_1_and_margin_by_brute_force", not mismatches,
                       {"seed": seed, "cases": rows, "mismatches": mismatches})


@check(statements=("ptr.safety_margin",))
def margin_has_global_sensitivity_one(cases: int = 10, seed: int = 52) -> CheckResult:
    """Remark 4.1(4) for TSUM: |Δ(S) − Δ(S ∪ {u})| ≤ 1 for every u of the universe (brute-force Δ)."""
    rng, worst = random.Random(seed), 0
    for _ in range(cases):
        m, F, tau = rng.randint(0, 3), rng.randint(1, 3), rng.uniform(0.1, 0.9)
        points, S = random_instance(rng, m)
        base = margin(points, S, F, tau, r_max=F + 1)
        for u in range(len(points)):
            worst = max(worst, abs(base - margin(points, tuple(sorted(S + (u,))), F, tau, r_max=F + 2)))
    return CheckResult("margin_has_global_sensitivity_one", worst <= 1, {"seed": seed, "max_difference": worst})


def replacement_example() -> dict:
    """Erratum ptr.E15: F = 2, S = {x} (m = 1 < F), S' = S ∪ {y}; τ = 0.5, R = 1. Δ in the add/remove distance
    changes by 1; Δ in the replacement distance (the §4.1 wording) is ∞ for S (size-preserving moves never reach
    a set with LS > 0, since LS(S̃) = 0 whenever |S̃| < F) and finite for S'."""
    points = np.array([[0.3, 0.0], [0.0, 0.4], [1.0, 0.0]])  # x, y, and the norm-R point
    F, tau = 2, 0.5
    S, S2 = (0,), (0, 1)
    return {"add_remove": (margin(points, S, F, tau, r_max=4), margin(points, S2, F, tau, r_max=4)),
            "replace": (margin(points, S, F, tau, r_max=4, metric="replace"),
                        margin(points, S2, F, tau, r_max=4, metric="replace"))}


@check(statements=("ptr.safety_margin",))
def replacement_distance_breaks_sensitivity_one() -> CheckResult:
    """See :func:`replacement_example`: |Δ_add(S) − Δ_add(S')| ≤ 1 but Δ_replace(S) = ∞ while Δ_replace(S') is finite."""
    ex = replacement_example()
    add, rep = ex["add_remove"], ex["replace"]
    holds = None not in add and abs(add[0] - add[1]) <= 1 and rep[0] is None and rep[1] is not None
    return CheckResult("replacement_distance_breaks_sensitivity_one", holds,
                       {"delta_add_remove(S, S')": add, "delta_replace(S, S') (None = infinite)": rep})


@check(statements=("ptr.thm5_1", "ptr.safety_margin"))
def thm5_1_undefined_for_small_batches() -> CheckResult:
    """Erratum ptr.E16: for m < F the printed index m−F+1+r of Thm 5.1 is < 1 (undefined) at small r, while the
    brute force gives LS^(r) = 0 there and Δ = F − #{‖x_i‖ > τ}; and for τ ≥ R no S̃ is unsafe (LS ≤ R), Δ = ∞."""
    rng = random.Random(53)
    points, S = random_instance(rng, 1)
    norms = [float(np.linalg.norm(points[0]))]
    F, tau = 3, 0.5
    printed = [thm5_1_printed(norms, F, r, 1.0) for r in range(3)]
    brute = [ls_r_brute(points, S, F, r) for r in range(3)]
    delta = margin(points, S, F, tau, r_max=F + 1)
    never = margin(points, S, F, 1.0, r_max=F + 1)  # τ = R
    holds = (printed[:2] == [None, None] and brute[:2] == [0.0, 0.0] and delta == margin_closed_form(norms, F, tau)
             and never is None)
    return CheckResult("thm5_1_undefined_for_small_batches", holds,
                       {"m": 1, "F": F, "printed_LS_r(r=0,1,2)": printed, "brute_LS_r": brute,
                        "delta_brute": delta, "delta_closed_form": margin_closed_form(norms, F, tau),
                        "delta_at_tau_equal_R (None = infinite within F+1 steps)": never})


def ls_r_exact_distance(points: np.ndarray, S: Multiset, F: int, r: int) -> float:
    """max LS(S̃) over d(S, S̃) = r exactly (the printed "= r" of the LS^(r) definition)."""
    ball, layer = {S}, {S}
    for _ in range(r):
        layer = {T for U in layer for T in neighbours(U, len(points))} - ball
        ball |= layer
    return max(local_sensitivity(points, T, F) for T in layer)


@check(statements=("ptr.thm5_1", "ptr.safety_margin"))
def printed_ls_definitions_read_as_intended(cases: int = 12, seed: int = 54) -> CheckResult:
    """Erratum ptr.E14. (a) Printed literally, LS_f(S) = sup_{S,S': d(S,S')=1} ‖f(S) − f(S')‖ is GS_f, the same for
    every S: over a universe of 5 points (one of norm R = 1) and every multiset of ≤ 3 points it is R, while the
    intended LS(S) = sup over S' only equals Thm 5.1's r = 0 value ‖x_(m−F+1)‖ < R. (b) LS^(r) printed with
    d(S, S̃) = r equals the intended d ≤ r for TSUM (brute force on random sets, r ≤ 2): a harmless slip."""
    rng = random.Random(55)
    points, S = random_instance(rng, 3, extra=1)
    F = 1
    sets = [tuple(sorted(c)) for k in range(4) for c in itertools.combinations_with_replacement(range(len(points)), k)]
    literal = max(local_sensitivity(points, T, F) for T in sets)
    intended = local_sensitivity(points, S, F)
    norms = sorted(float(np.linalg.norm(points[i])) for i in S)
    thm = thm5_1_printed(norms, F, 0, 1.0)
    rng, worst = random.Random(seed), 0.0
    for _ in range(cases):
        m, F_ = rng.randint(1, 4), rng.randint(1, 3)
        pts, S_ = random_instance(rng, m, extra=1)
        for r in range(3):
            worst = max(worst, abs(ls_r_brute(pts, S_, F_, r) - ls_r_exact_distance(pts, S_, F_, r)))
    holds = abs(literal - 1.0) < 1e-12 and abs(intended - thm) < 1e-12 and intended < literal - 0.01 and worst < 1e-12
    return CheckResult("printed_ls_definitions_read_as_intended", bool(holds),
                       {"literal_LS_sup_over_pairs": literal, "LS(S)_sup_over_S'": intended, "thm5_1_r0": thm,
                        "sets_searched": len(sets), "max_|LS_r(<=r) - LS_r(=r)|": worst, "cases": cases,
                        "seed": seed})
