"""Checks of the A0 witness used by bc.E2/bc.E7 (:mod:`._a0`): the canonical pair of C_p(G_{1/σ}) built from the
remove pair of the Poisson-subsampled Gaussian (notes shared/notes/batch-clipping-fdp.md §3.3) is the paper's A0
per-round object ([2] Thm 4.2 / 5.1; seed 002 Lemma F.2)."""
from __future__ import annotations

import mpmath
from mpmath import mp, mpf

from dpspec.reference import catalogue

from ..checks import CheckResult, check
from . import _a0
from . import _exact as X

POINTS = (("0.1", 2), ("0.01", 10))


def cp_delta_from_closed_form(p, sigma, eps):
    """δ(ε) = sup_α 1 − C_p(G_μ)(α) − e^ε α (μ = 1/σ; [2] Prop 2.12) from the catalogue's C_p(G_μ)
    (base.gdp_subsampled): the sup is at the α ≤ x* where f_p' = p G'_μ − (1−p) = −e^ε, i.e. (eq. (10))
    μz − μ²/2 = log((e^ε − 1 + p)/p), α = 1 − Φ(z)."""
    p, mu, eps = mpf(p), 1 / mpf(sigma), mpf(eps)
    zz = (mpmath.log((mpmath.exp(eps) - 1 + p) / p) + mu * mu / 2) / mu
    alpha = X.ndtr(-zz)
    value = catalogue.get("base.gdp_subsampled").evaluate(alpha=alpha, p=p, mu=mu, dps=mp.dps).value
    return 1 - value - mpmath.exp(eps) * alpha


@check(statements=("base.gdp_subsampled", "bc.lemma_f2_upper"))
def canonical_pair_matches_cp_closed_form() -> CheckResult:
    """One step of the canonical pair (:func:`._a0.cp_gaussian_buckets`): total P- and Q-mass 1; its atom at L = 0 has
    the mass of C_p(G)'s linear segment, f_p(x*) − x* = (1−p)(Φ(μ/2) − Φ(−μ/2)), x* = Φ(−μ/2) (base.gdp_subsampled's
    closed form); and its connect-the-dots δ at grid points ε ∈ {0, 0.5, 1} (exact there) equals
    sup_α 1 − C_p(G_μ)(α) − e^ε α computed from base.gdp_subsampled, at (p, σ) ∈ POINTS."""
    rows, ok = {}, True
    with mp.workdps(25):
        for p, sigma in POINTS:
            step = mpf("0.02")
            b = _a0.cp_gaussian_buckets(mpf(p), sigma, step)
            mass_p = b.p_lo + mpmath.fsum(b.P) + b.p_hi
            mass_q = b.q_lo + mpmath.fsum(b.Q) + b.q_hi
            mu = 1 / mpf(sigma)
            st = catalogue.get("base.gdp_subsampled")
            x_star = X.ndtr(-mu / 2)
            segment = st.evaluate(alpha=x_star, p=p, mu=mu, dps=25).value - x_star
            atom = (1 - mpf(p)) * (2 * X.ndtr(mu / 2) - 1)
            pmf = _a0.ref_pld.to_fixed(_a0.ref_pld.upper_pmf(b), "upper", _a0.ref_pld.fixed_bits(mp.prec))
            deltas = {e: (mpf(_a0.ref_pld.pmf_delta(pmf, mpf(e))), cp_delta_from_closed_form(p, sigma, e))
                      for e in ("0", "0.5", "1")}
            row_ok = (abs(mass_p - 1) < mpf(10) ** -20 and abs(mass_q - 1) < mpf(10) ** -20
                      and abs(segment - atom) < mpf(10) ** -20
                      and all(abs(a - c) <= mpf(10) ** -15 + mpf(10) ** -9 * c for a, c in deltas.values()))
            ok &= row_ok
            rows[f"p={p}, sigma={sigma}"] = {"atom": mpmath.nstr(atom, 10), "segment": mpmath.nstr(segment, 10),
                                             "delta (pld, closed form)": {e: [mpmath.nstr(a, 10), mpmath.nstr(c, 10)]
                                                                          for e, (a, c) in deltas.items()}}
    return CheckResult("canonical_pair_matches_cp_closed_form", bool(ok), rows)
