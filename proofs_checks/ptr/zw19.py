"""Theorem 4.3 fed to the general [ZW19] Poisson-subsampling bounds (seed 001 §4.3, Fig. 2): the black-box upper
bound (ZW19 Thm 6) and the tight formula ("lower bound"), reference ids ``ptr.zw19_upper`` / ``ptr.zw19_lower``.

- lower ≤ upper at every integer α, with equality at α = 2 (Thm 6 has the factor 3 only on ℓ ≥ 3);
- when T2(ℓ) ≥ T1(ℓ) for all ℓ ≤ α, the lower formula is the exact moment of the case-2 per-subset pair
  (computed independently in ``_exact`` from Laplace moments by quadrature);
- at α = 2 the white-box bound (Thm 4.4) is therefore never below the black-box one when T2 dominates: the
  paper's "much tighter than the black-box bound" (Fig. 2) cannot hold at small α (notes §6, E1 bullets).
"""
from __future__ import annotations

import mpmath
from mpmath import mpf

from dpspec.reference.catalogue import get

from . import CheckResult, check
from ._exact import subsampled_case1_log_forward, subsampled_case2_log_forward, to_eps

# Fig. 2 setting of notes §5.2 (σ1 = 8, τ = 0.5, b = 1, q = 0.01, δ0 = 1e-8) and the values computed there.
FIG2 = {"q": "0.01", "sigma1": 8, "sigma2": 4, "b": 1, "delta0": "1e-8"}
NOTES_VALUES = {2: ("8.8650856428e-5", "8.8650856428e-5"), 3: ("1.38133878245e-4", "1.33468076515e-4"),
                10: ("5.77479506485e-4", "4.56308508076e-4")}


def _eps(statement_id, alpha, params, dps=30):
    return get(statement_id).evaluate(dps=dps, alpha=alpha, **params).value


@check(statements=("ptr.zw19_lower", "ptr.zw19_upper"))
def zw19_lower_at_most_upper_with_equality_at_two() -> CheckResult:
    """In the Fig. 2 setting, for α = 2..12: lower ≤ upper, lower(2) = upper(2) to 1e-25 relative, and the values
    of notes §5.2 at α = 2, 3, 10 are reproduced to 1e-10 relative."""
    rows, holds = {}, True
    with mpmath.workdps(30):
        for alpha in range(2, 13):
            up, lo = _eps("ptr.zw19_upper", alpha, FIG2), _eps("ptr.zw19_lower", alpha, FIG2)
            holds &= lo <= up
            if alpha == 2:
                holds &= abs(up - lo) <= mpf("1e-25") * up
            if alpha in NOTES_VALUES:
                want_up, want_lo = map(mpf, NOTES_VALUES[alpha])
                holds &= abs(up - want_up) <= mpf("1e-10") * want_up and abs(lo - want_lo) <= mpf("1e-10") * want_lo
            rows[alpha] = {"upper": mpmath.nstr(up, 12), "lower": mpmath.nstr(lo, 12)}
    return CheckResult("zw19_lower_at_most_upper_with_equality_at_two", bool(holds), rows)


@check(statements=("ptr.zw19_lower",))
def zw19_lower_is_the_case2_pair_moment() -> CheckResult:
    """Where T2 dominates (Fig. 2 setting, α ≤ 10), ptr.zw19_lower equals the exact case-2 per-subset ε to 1e-12."""
    rows, holds = {}, True
    with mpmath.workdps(30):
        for alpha in (2, 3, 5, 10):
            lo = _eps("ptr.zw19_lower", alpha, FIG2)
            exact = to_eps(subsampled_case2_log_forward(alpha, mpf(FIG2["q"]), FIG2["sigma1"], FIG2["b"]), alpha)
            holds &= abs(lo - exact) <= mpf("1e-12") * exact
            rows[alpha] = {"zw19_lower": mpmath.nstr(lo, 15), "case2_pair": mpmath.nstr(exact, 15)}
    return CheckResult("zw19_lower_is_the_case2_pair_moment", bool(holds), rows)


@check(statements=("ptr.thm4_4", "ptr.zw19_upper"))
def white_box_not_tighter_at_alpha_two() -> CheckResult:
    """At α = 2 in the Fig. 2 setting the white-box Thm 4.4 (9.73e-5) is above the black-box bound (8.87e-5), which
    there equals an exact lower-bound witness; the white-box wins only from α = 5 on (notes §5.2)."""
    with mpmath.workdps(30):
        rows = {a: {"white_box": _eps("ptr.thm4_4", a, FIG2), "black_box": _eps("ptr.zw19_upper", a, FIG2)}
                for a in (2, 3, 4, 5, 10)}
    holds = all(rows[a]["white_box"] > rows[a]["black_box"] for a in (2, 3, 4)) and all(
        rows[a]["white_box"] < rows[a]["black_box"] for a in (5, 10))
    return CheckResult("white_box_not_tighter_at_alpha_two", holds,
                       {a: {k: mpmath.nstr(v, 10) for k, v in r.items()} for a, r in rows.items()})


# --- erratum E7: the Fig. 2 "lower bound" is a lower bound only under a proviso ---------------------------------
# A point where T1(ℓ) > T2(ℓ) for some ℓ ≤ α (small σ2, large δ0) while T2 dominates at small ℓ.
E7_POINT = {"alpha": 8, "q": "0.05", "sigma1": 4, "sigma2": 1, "b": 1, "delta0": "1e-3"}


@check(statements=("ptr.zw19_lower",))
def lower_formula_unattained_outside_proviso() -> CheckResult:
    """Erratum ptr.E7: at E7_POINT, T1(ℓ) > T2(ℓ) for some 2 ≤ ℓ ≤ α, ptr.zw19_lower refuses without opt-in, and
    the ZW19 tight formula with ε(ℓ) = Thm 4.3 exceeds the exact forward ε of both per-subset worst-case pairs
    (case 1: (1−δ0)G_α(q, σ1) + δ0 G_α(q, σ2); case 2: the product pair) by more than 10%: no pair attains it.
    In the Fig. 2 setting (FIG2, T2 dominant) it equals the case-2 pair (zw19_lower_is_the_case2_pair_moment)."""
    from dpspec.reference.errors import ConditionError
    from dpspec.reference.ptr.thm4_3 import T1, T2

    with mpmath.workdps(30):
        p = {k: mpf(v) for k, v in E7_POINT.items()}
        alpha = int(p["alpha"])
        t1_wins = [l for l in range(2, alpha + 1)
                   if T1(l, p["sigma1"], p["sigma2"], p["delta0"]) > T2(l, p["sigma1"], p["b"])]
        try:
            get("ptr.zw19_lower").evaluate(dps=30, **E7_POINT)
            refused = False
        except ConditionError:
            refused = True
        ev = get("ptr.zw19_lower").evaluate(dps=30, allow_outside=True, **E7_POINT)
        case1 = to_eps(subsampled_case1_log_forward(alpha, p["q"], p["sigma1"], p["sigma2"], p["delta0"]), alpha)
        case2 = to_eps(subsampled_case2_log_forward(alpha, p["q"], p["sigma1"], p["b"]), alpha)
    holds = (bool(t1_wins) and t1_wins[-1] == alpha and refused and not ev.is_bound
             and ev.value > mpf("1.1") * max(case1, case2))
    return CheckResult("lower_formula_unattained_outside_proviso", bool(holds),
                       {"point": E7_POINT, "orders_where_T1_dominates": t1_wins, "refused_without_opt_in": refused,
                        "zw19_lower_formula": mpmath.nstr(ev.value, 10), "exact_case1_pair": mpmath.nstr(case1, 10),
                        "exact_case2_pair": mpmath.nstr(case2, 10)})


@check(statements=("base.zw19_lower",))
def interpolated_lower_formula_is_above_exact_between_integers() -> CheckResult:
    """Erratum ptr.E7 (non-integer orders): the ZW19 tight formula with its cumulant linearly interpolated between
    integers (autodp's practice; variant ``interpolated`` of base.zw19_lower) exceeds the exact RDP of the
    Poisson-subsampled Gaussian (base.sgm_rdp, MTZ19 series) at α = 2.5, 3.5, 10.5 (q = 0.01, σ = 1): between
    integers it is an upper bound, not a lower bound. The default (value at ⌊α⌋) stays below."""
    from dpspec.reference import catalogue

    rows, holds = {}, True
    with mpmath.workdps(30):
        curve = catalogue.curve("base.gaussian_rdp", sigma=1)
        for alpha in ("2.5", "3.5", "10.5"):
            st = get("base.zw19_lower")
            interp = st.evaluate(dps=30, variant="interpolated", alpha=alpha, q="0.01", curve=curve)
            default = st.evaluate(dps=30, alpha=alpha, q="0.01", curve=curve).value
            exact = get("base.sgm_rdp").evaluate(dps=30, alpha=alpha, q="0.01", sigma=1).value
            holds &= interp.value > exact >= default and not interp.is_bound
            rows[alpha] = {"interpolated": mpmath.nstr(interp.value, 10), "exact_sgm": mpmath.nstr(exact, 10),
                           "default_floor": mpmath.nstr(default, 10)}
    return CheckResult("interpolated_lower_formula_is_above_exact_between_integers", bool(holds), rows)
