"""The errata of seed 002 ("Generalizing DP-SGD with Shuffling and Batch Clipping", van Dijk, Nguyen, Nguyen,
Nguyen, arXiv 2212.05796; ``bc.*``), as entries of the errata register (dpspec.proofs_checks.errata). Numbering
follows notes shared/notes/batch-clipping-fdp.md §6 (item n → bc.En; bc.E9, f_{ε,δ} printed with min, lives in
:mod:`.fdp`). Each demonstration recomputes its evidence: exact binomial / multinomial / occupancy laws (mpmath at
30 digits, or fractions), the label-visible Gaussian mixture of Def. 4.2 (:mod:`._exact`), and for the A0 object a
certified upper bound on δ from the reference's connect-the-dots PLD of the canonical pair of C_p(G_{1/σ})
(:mod:`._a0`). Items not computable (§6 items 14, 15: assumptions and experiments) are not registered.
"""
from __future__ import annotations

from fractions import Fraction
from math import comb, prod

import mpmath
from mpmath import mp, mpf

from dpspec.reference import catalogue
from dpspec.reference.errors import ConditionError

from ..errata import Erratum, demonstration_with_checks, register_erratum
from . import _a0, a0, conjugates, counting
from . import _exact as X

SEED = X.SEED
DPS = 30
NOTES = "shared/notes/batch-clipping-fdp.md"


def _s(x, digits=6) -> str:
    return mpmath.nstr(mpf(x), digits) if not isinstance(x, str) else x


def _cat(statement_id: str, variant: str | None = None, **params) -> mpf:
    """The catalogue's value of a statement (its ``variant``) at 20 digits: the demonstrations compare their own
    computation with the statements they name."""
    extra = {"variant": variant} if variant else {}
    return catalogue.get(statement_id).evaluate(dps=20, **extra, **params).value


def _close(a, b, rel="1e-12") -> bool:
    a, b = mpf(a), mpf(b)
    return a == b or abs(a - b) <= mpf(rel) * max(abs(a), abs(b))


def _demo(fn, checks=()):
    """:func:`~dpspec.proofs_checks.errata.demonstration_with_checks` at this module's DPS."""
    return demonstration_with_checks(fn, checks, DPS)


# --- E1: Hoeffding without 1/n (F.2, F.5) ---------------------------------------------------------------------

E1_TAIL_EPOCHS = (1, 4, 16, 64, 100)
E1_ROUNDS_PER_EPOCH = 100  # N/(sm) = 100, p = sm/N = 1/100 (notes §5.3)
E1_VIOLATIONS = ((16, 4), (100, 2))  # (E, σ) rows of notes §5.3's second table where the F.6 lower bound fails


def ss_g1_law(E: int, rounds_per_epoch: int = E1_ROUNDS_PER_EPOCH):
    """q_E for SS with g = 1: c² ~ Bin(n = E·N/(sm), p = sm/N) (seed 002 F.2, eq. (21) at g = 1)."""
    return X.binomial_law(E * rounds_per_epoch, mpf(1) / rounds_per_epoch)


def hoeffding_tails(E: int) -> dict:
    """Exact tails of c² ~ Bin(100E, 1/100) at the printed cuts c_U² = (1 − 1/√(2E))E, c_L² = (1 + 1/√(2E))E,
    against the printed bound e^{−E} = exp(−2(E − c²)²) and Hoeffding's exp(−2(E − c²)²/n)."""
    support, pmf, dropped = ss_g1_law(E)
    n = E * E1_ROUNDS_PER_EPOCH
    c_u2 = (1 - 1 / mpmath.sqrt(2 * E)) * E
    c_l2 = (1 + 1 / mpmath.sqrt(2 * E)) * E
    below = mpmath.fsum(q for c, q in zip(support, pmf) if c < c_u2)
    above = mpmath.fsum(q for c, q in zip(support, pmf) if c > c_l2) + dropped
    printed = mpmath.exp(-2 * (E - c_u2) ** 2)
    hoeffding = mpmath.exp(-2 * (E - c_u2) ** 2 / n)
    return {"E": E, "P(c2 < cU2)": below, "P(c2 > cL2)": above, "printed e^-E": printed,
            "hoeffding exp(-2t^2/n)": hoeffding}


def f5_bc_tails(N=6400, s=64, g=2, E=4) -> dict:
    """F.5 (batch clipping, m = 1, SS): c² ~ Bin((N/s)E, q₁), q₁ = 1 − C(N−g, s)/C(N, s); F.9's q = (N/s)q₁ ≈ g. The
    printed tails at c² = (1 ∓ 1/√(2qE))qE are e^{−qE}; the exact ones (and the catalogue's bc.lemma_f9_q)."""
    q1 = 1 - Fraction(comb(N - g, s), comb(N, s))
    rounds = N // s
    support, pmf, dropped = X.binomial_law(rounds * E, mpf(q1.numerator) / q1.denominator)
    q = rounds * mpf(q1.numerator) / q1.denominator
    c_u2 = (1 - 1 / mpmath.sqrt(2 * q * E)) * q * E
    c_l2 = (1 + 1 / mpmath.sqrt(2 * q * E)) * q * E
    return {"q (F.9)": q, "bc.lemma_f9_q": _cat("bc.lemma_f9_q", N=N, s=s, g=g),
            "P(c2 < cU2)": mpmath.fsum(p for c, p in zip(support, pmf) if c < c_u2),
            "P(c2 > cL2)": mpmath.fsum(p for c, p in zip(support, pmf) if c > c_l2) + dropped,
            "printed e^-qE": mpmath.exp(-q * E)}


def f6_violation(E: int, sigma, delta="1e-5") -> dict:
    """At (E, σ): ε(δ) of the exact A1 mixture (c² ~ Bin(100E, 1/100), Def. 4.2) vs ε(δ) of the F.6 lower bound
    (Thm 4.6's fL at c_L² = (1 + 1/√(2E))E, l = e^{−E}: the symmetrisation of the printed
    G_{c_L/σ}(min{1, α + e^{−E}}), equivalent as a guarantee for a symmetric f); and the exact δ at the bound's ε."""
    delta = mpf(delta)
    law = ss_g1_law(E)
    support, pmf, trimmed_mass = X.trimmed(law, mpf(10) ** -25)  # components below 1e-25 change δ by < 1e-25·|C|
    mu_l = mpmath.sqrt((1 + 1 / mpmath.sqrt(2 * E)) * E) / mpf(sigma)
    l = mpmath.exp(-E)
    eps_bound = X.fl_epsilon(delta, mu_l, l)
    eps_exact = X.mixture_epsilon(support, pmf, sigma, delta, hi=2 * eps_bound)
    delta_exact_at_bound = X.mixture_delta(support, pmf, sigma, eps_bound)
    eps_gauss = X.eps_g(delta, mpmath.sqrt(E) / mpf(sigma))
    return {"E": E, "sigma": sigma, "delta": delta, "eps_exact_A1": eps_exact, "eps_F6_lower_bound": eps_bound,
            "eps_G_sqrtE_over_sigma": eps_gauss, "exact_delta_at_bound_eps": delta_exact_at_bound,
            "trimmed_mass": trimmed_mass + law[2]}


def _e1():
    tails = [hoeffding_tails(E) for E in E1_TAIL_EPOCHS]
    wrong = all(t["P(c2 < cU2)"] > t["printed e^-E"] and t["P(c2 > cL2)"] > t["printed e^-E"]
                for t in tails if t["E"] >= 4)
    hoeffding_holds = all(t["hoeffding exp(-2t^2/n)"] >= max(t["P(c2 < cU2)"], t["P(c2 > cL2)"]) for t in tails)
    bc = f5_bc_tails()
    wrong &= (_close(bc["q (F.9)"], bc["bc.lemma_f9_q"], "1e-12")
              and min(bc["P(c2 < cU2)"], bc["P(c2 > cL2)"]) > 10 * bc["printed e^-qE"])
    rows = [f6_violation(E, s) for E, s in E1_VIOLATIONS]
    violated = all(r["eps_exact_A1"] > r["eps_F6_lower_bound"] and r["exact_delta_at_bound_eps"] > r["delta"]
                   and r["trimmed_mass"] < mpf(10) ** -15 for r in rows)
    # the catalogue (E = 16, σ = 4, N/(sm) = 100): bc.lemma_f6_eps printed = the bound above; its exact-tail default
    # is +inf (tail 0.26 > δ) and its Chernoff repair (c_L² = 3E, l = e^{−E}) is above the exact A1 ε
    row = rows[0]
    params = dict(delta="1e-5", N=100, m=1, s=1, E=16, sigma=4)
    catalogue_rows = {"bc.lemma_f6_eps printed": _cat("bc.lemma_f6_eps", "printed", **params),
                      "bc.lemma_f6_eps default (exact tails)": _cat("bc.lemma_f6_eps", **params),
                      "bc.lemma_f6_eps chernoff": _cat("bc.lemma_f6_eps", "chernoff", **params)}
    wired = (_close(catalogue_rows["bc.lemma_f6_eps printed"], row["eps_F6_lower_bound"], "1e-10")
             and catalogue_rows["bc.lemma_f6_eps default (exact tails)"] >= row["eps_exact_A1"]
             and catalogue_rows["bc.lemma_f6_eps chernoff"] >= row["eps_exact_A1"])
    evidence = {"tails (N/(sm)=100)": [{k: _s(v) if k != "E" else v for k, v in t.items()} for t in tails],
                "F.5 BC tails (N=6400, s=64, g=2, E=4)": {k: _s(v) for k, v in bc.items()},
                "F.6 violated (delta=1e-5)": [{k: _s(v, 8) if k not in ("E", "sigma") else v for k, v in r.items()}
                                              for r in rows],
                "catalogue at E=16, sigma=4": {k: _s(v, 8) for k, v in catalogue_rows.items()}}
    return (wrong and hoeffding_holds and violated and wired, evidence,
            "exact tails at the printed cuts are 0.2–0.3, not e^{−E}; exact A1 ε above the F.6 'guarantee'")


register_erratum(Erratum(
    id="bc.E1",
    source=f"{SEED}, Appendix F.2 (proof of Lemma F.2, Hoeffding step) and F.5 (batch clipping); Lemmas F.2, F.6, "
           "F.9, Cor. F.4, Thm F.1 (cases g = 1 and BC), Table 1 rows 3–4",
    summary="Hoeffding applied without the 1/n: the tails at the printed cuts are ≈ 0.22–0.27, not e^{−E}, and "
            "the printed lower bounds are violated by the exact A1 trade-off",
    printed="Σ_{c'₁ ≤ c₁} q_E(c'₁) ≤ exp(−2(E − c₁)²) (and the upper tail alike); with (c_U)² = (1 − 1/√(2E))E, "
            "(c_L)² = (1 + 1/√(2E))E this gives u = l = e^{−E}; F.5: exp(−2((N/s)Eq₁ − c₁)²)",
    corrected="Hoeffding for c² ~ Bin(n, p): P(|c² − np| ≥ t) ≤ exp(−2t²/n). At the printed cuts the exact tails are "
              "P(c² < c_U²) = 0.2366, 0.2733, 0.2482, 0.2276 and P(c² > c_L²) = 0.2141, 0.2568, 0.2414, 0.2233 for "
              "E = 4, 16, 64, 100 (N/(sm) = 100), not e^{−E}; for BC (F.5, N = 6400, s = 64, g = 2, E = 4, q = 1.990) "
              "P(c² < c_U²) = 0.192, P(c² > c_L²) = 0.277, not e^{−qE} = 3.5e-4. Use the exact tails of q_E at the printed cuts (the "
              "statements' default forms), or Chernoff: c_L² = (1+t)E with l = exp(−Et²/(2+t)) (t = 2, c_L² = 3E "
              "for l = e^{−E}). With the printed tails, the exact A1 ε(1e-5) exceeds the F.6 'guarantee': 4.9348 vs "
              "4.8139 (E = 16, σ = 4), 35.0088 vs 34.7224 (E = 100, σ = 2; the paper's experimental setting).",
    demonstration=_demo(_e1, checks=(conjugates.fl_profile_closed_form,)),
    statements=("bc.lemma_f2_lower", "bc.lemma_f2_upper", "bc.lemma_f2_upper_profile", "bc.lemma_f6_lower",
                "bc.lemma_f6_upper", "bc.lemma_f6_eps", "bc.lemma_f9_lower", "bc.lemma_f9_upper",
                "bc.thm_f1_lower", "bc.thm_f1_upper", "bc.cor_f4", "bc.a1_epsilon"),
    severity="wrong",
    note=f"{NOTES} §2.12, §5.3, §6 item 1. The asymptotic message (√E as E → ∞) survives; the finite constants do "
         "not. The exact A1 ε is the bisection root of Σ_c q_E(c)δ_{G_{c/σ}}(ε) = δ with Bin(100E, 1/100) weights.",
))


# --- E2: Lemma F.2's upper bound and Cor F.3 are false for the A0 object ------------------------------------------

# (E, p = m/N, σ, [ε], grid step D of the PLD): notes §5.7; √E/σ = 1 in every row
E2_ROWS = ((4, "0.1", 2, (0, 1, 2), "0.02"), (16, "0.1", 4, (1,), "0.01"), (100, "0.01", 10, ("0.5", 1), "0.002"))
A0_DPS = 20


def f2_upper_refutation(E: int, p, sigma, eps_list, step) -> list[dict]:
    """At each ε: a certified upper bound on δ_A0(ε) of C_p(G_{1/σ})^{⊗T}, T = E/p (connect-the-dots PLD of the
    canonical pair), against the δ the printed upper bound forces: C ≤ f̂U = u + (1−u)G_{c_U/σ} implies
    δ_C(ε) ≥ δ_{f̂U}(ε) = (1−u)δ_{G_{c_U/σ}}(ε − ln(1−u)), c_U² = (1 − 1/√(2E))E, u = e^{−E}; and δ of G_{√E/σ}
    (Cor F.3's limit) and of G_μ at the CLT μ = p√T√(e^{1/σ²} − 1) ([2] Cor 5.4)."""
    steps = int(mpf(E) / mpf(p))
    mu_u = mpmath.sqrt((1 - 1 / mpmath.sqrt(2 * E)) * E) / mpf(sigma)
    u = mpmath.exp(-E)
    with mp.workdps(A0_DPS):
        pmf = _a0.a0_upper_pmf(mpf(p), mpf(sigma), steps, mpf(step))
        a0 = {e: mpf(_a0.ref_pld.pmf_delta(pmf, mpf(e))) for e in eps_list}
    clt = _a0.clt_mu(p, sigma, steps)
    return [{"E": E, "p": p, "T": steps, "sigma": sigma, "eps": e, "delta_A0_upper": a0[e],
             "delta_implied_by_F2_upper": X.fu_hat_delta(e, mu_u, u),
             "delta_G_sqrtE_over_sigma": X.delta_g(e, mpmath.sqrt(E) / mpf(sigma)),
             "clt_mu": clt, "delta_G_clt_mu": X.delta_g(e, clt)} for e in eps_list]


def _e2():
    rows = [r for args in E2_ROWS for r in f2_upper_refutation(*args)]
    refuted = all(r["delta_A0_upper"] < r["delta_implied_by_F2_upper"] for r in rows) and \
        all(r["delta_A0_upper"] < r["delta_implied_by_F2_upper"] / 10 for r in rows if mpf(r["eps"]) >= 1)
    # Cor F.3: √E/σ = 1 in every row, but δ_A0 stays orders of magnitude below δ_{G_1} as E grows (4 → 100)
    at_one = [r for r in rows if mpf(r["eps"]) == 1]
    not_converging = all(r["delta_A0_upper"] < r["delta_G_sqrtE_over_sigma"] / 50 for r in at_one)
    # the catalogue at E = 4, p = m/N = 0.1, σ = 2, ε = 1: bc.lemma_f2_upper_profile printed = the forced δ above;
    # its default (exact tail u, an A1 statement) is still far above δ_A0: the upper bound constrains A1 only
    first = next(r for r in rows if r["E"] == 4 and mpf(r["eps"]) == 1)
    printed = _cat("bc.lemma_f2_upper_profile", "printed", eps=1, N=10, m=1, E=4, sigma=2)
    exact_u = _cat("bc.lemma_f2_upper_profile", eps=1, N=10, m=1, E=4, sigma=2)
    wired = _close(printed, first["delta_implied_by_F2_upper"], "1e-10") and exact_u > first["delta_A0_upper"]
    # which pair: the Poisson remove/add pairs composed separately (base.pld_sgm_delta's construction) give a δ
    # below the canonical C_p(G) pair's, on the same grid — they would under-state the A0 object
    with mp.workdps(A0_DPS):
        sgm_max = mpf(_a0.sgm_max_delta_upper(mpf("0.1"), 2, 40, 1, mpf("0.02")))
    wired &= sgm_max < first["delta_A0_upper"]
    evidence = {"rows": [{k: (_s(v) if isinstance(v, mpf) else v) for k, v in r.items()} for r in rows],
                "catalogue (E=4, p=0.1, sigma=2, eps=1)": {"bc.lemma_f2_upper_profile printed": _s(printed),
                                                           "bc.lemma_f2_upper_profile default (A1, exact u)":
                                                               _s(exact_u),
                                                           "max remove/add SGM pairs (not C_p(G)), same grid":
                                                               _s(sgm_max)}}
    return (refuted and not_converging and wired, evidence,
            "δ_A0 (certified upper bound) is orders of magnitude below the δ the printed upper bound forces, and "
            "does not approach δ_{G_{√E/σ}} as E grows with √E/σ = 1")


register_erratum(Erratum(
    id="bc.E2",
    source=f"{SEED}, Lemma F.2 (upper inequality) and Corollary F.3",
    summary="Lemma F.2's upper bound on C_{m/N}(G_{1/σ})^{⊗(N/m)E} and Cor F.3's limit G_{√E/σ} are false for the A0 "
            "(standard DP-SGD) trade-off function",
    printed="C_{m/N}(G_{1/σ})^{⊗(N/m)·E}(α) ≤ e^{−E} + (1 − e^{−E}) G_{√((1−1/√(2E))E)/σ}(α); Cor F.3: for E → ∞ with "
            "√E/σ → μ, C_{m/N}(G_{1/σ})^{⊗(N/m)·E} → G_μ",
    corrected="The upper bound holds only for the A1 (label-visible) trade-off (Thm 4.5 with exact tails). The A0 "
              "function is ≈ G_{p√T·√(e^{1/σ²}−1)} ([2] Cor 5.4), far closer to 1 − α: at E = 4, p = 0.1, σ = 2, "
              "δ_A0(0) ≈ 0.1512 and δ_A0(1) ≈ 1.075e-3 while the printed bound forces δ(0) ≥ 0.3004 and δ(1) ≥ 6.07e-2; at "
              "E = 100, p = 0.01, σ = 10, δ_A0(0.5) ≈ 1.1e-7 vs ≥ 0.224 (certified upper bounds; the demonstration "
              "uses coarser grids, e.g. ≤ 1.14e-3 and ≤ 2.7e-6). Cor F.3 holds for the A1 mixture (rate ~1/√E), not for C_p(G)^{⊗T}, whose limit "
              "(p fixed) is G_{μ√p}. Never test A0 accountants against the Lemma F.2 / Table 1 upper bounds.",
    demonstration=_demo(_e2, checks=(a0.canonical_pair_matches_cp_closed_form, conjugates.fu_profile_closed_form)),
    statements=("bc.lemma_f2_upper", "bc.lemma_f2_upper_profile", "bc.cor_f3", "base.gdp_subsampled"),
    severity="wrong",
    note=f"{NOTES} §2.12, §5.7, §6 item 2. δ_A0: connect-the-dots PLD (reference/base/pld.py, exact integer "
         "convolution) of the canonical pair of C_p(G_{1/σ}) (proofs_checks/bc/_a0.py) — the paper's object; the "
         "Poisson remove/add pairs of base.pld_sgm_delta give max{(f_p)^{⊗T}, (f_p^{-1})^{⊗T}}, whose δ is smaller "
         "(notes §5.6). Notes §5.7's δ_A0 column (e.g. 1.575e-6) came from a coarser pessimistic PLD; the certified "
         "values here are smaller (1.1e-7 at D = 1e-3), which only strengthens the refutation.",
))


# --- E3: Bose–Einstein occupancy law in G.3 / G.4 / Thm G.1 [BC] -----------------------------------------------

E3_BATCHES, E3_S = 100, 64  # N/s = 100, s = 64 (notes §5.5)


def epoch_law(q: list) -> tuple:
    """Law of one epoch's c² = J (BC with shuffling: each hit batch is a round with k = 1), from P(J = j)."""
    return tuple(j for j in range(len(q)) if q[j]), tuple(mpf(q[j].numerator) / q[j].denominator
                                                        for j in range(len(q)) if q[j])


def _e3():
    laws = {g: (X.occupancy_true(E3_BATCHES, E3_S, g), X.occupancy_bose_einstein(E3_BATCHES, g)) for g in (2, 3, 5)}
    n = E3_BATCHES * E3_S
    closed_g2 = (Fraction(2 * E3_S, n + E3_S), Fraction(E3_S - 1, n - 1))
    tails = {g: (float(sum(be[:g])), float(sum(true[:g])),
                 float(Fraction(g * g, E3_BATCHES - g - g * g))) for g, (true, be) in laws.items()}
    differs = all(true != be for true, be in laws.values())
    doubles = all(1.5 < be_t / true_t < 2.5 for be_t, true_t, _ in tails.values())
    g2_ok = laws[2][1][1] == closed_g2[0] and laws[2][0][1] == closed_g2[1]
    u_valid = all(u >= true_t for _, true_t, u in tails.values())
    # consequence: f_BE > f_true (one epoch, g = 3, σ = 1), and ε(1e-5) over E = 10 epochs (σ = 2) is smaller
    true3, be3 = epoch_law(laws[3][0]), epoch_law(laws[3][1])
    f_rows = {a: (X.mixture_tradeoff(*be3, 1, mpf(a)), X.mixture_tradeoff(*true3, 1, mpf(a))) for a in ("0.01", "0.1")}
    optimistic = all(be > true for be, true in f_rows.values())
    true10, be10 = X.power(true3, 10), X.power(be3, 10)
    eps_true = X.mixture_epsilon(*true10, 2, mpf("1e-5"), hi=50)
    eps_be = X.mixture_epsilon(*be10, 2, mpf("1e-5"), hi=50)
    eps_gauss = X.eps_g(mpf("1e-5"), mpmath.sqrt(30) / 2)
    evidence = {
        "q_j (N/s=100, s=64)": {f"g={g}": {"true": [f"{float(x):.5g}" for x in true],
                                         "bose_einstein": [f"{float(x):.5g}" for x in be]}
                               for g, (true, be) in laws.items()},
        "P(J<g): BE, true, paper's u": {f"g={g}": [f"{x:.5g}" for x in t] for g, t in tails.items()},
        "g=2 closed forms: BE 2s/(N+s), true (s-1)/(N-1)": [str(x) for x in closed_g2],
        "f_BE - f_true (g=3, sigma=1, one epoch)": {a: _s(be - true, 4) for a, (be, true) in f_rows.items()},
        "eps(1e-5), g=3, E=10, sigma=2": {"true": _s(eps_true, 8), "bose_einstein": _s(eps_be, 8),
                                          "G_sqrt(gE)/sigma": _s(eps_gauss, 8)},
    }
    # the catalogue: bc.g3_bose_einstein (printed / default) and bc.lemma_g4_eps (printed / default) agree
    cat_q = {j: (_cat("bc.g3_bose_einstein", "printed", N=n, s=E3_S, g=3, j=j), _cat("bc.g3_bose_einstein", N=n,
                                                                                    s=E3_S, g=3, j=j))
             for j in (1, 2, 3)}
    q_wired = all(_close(be, mpf(laws[3][1][j].numerator) / laws[3][1][j].denominator)
                  and _close(true, mpf(laws[3][0][j].numerator) / laws[3][0][j].denominator)
                  for j, (be, true) in cat_q.items())
    g4 = dict(delta="1e-5", N=n, s=E3_S, g=3, E=10, sigma=2)
    cat_eps = (_cat("bc.lemma_g4_eps", "printed", **g4), _cat("bc.lemma_g4_eps", **g4))
    eps_wired = _close(cat_eps[0], eps_be, "1e-9") and _close(cat_eps[1], eps_true, "1e-9")
    evidence["catalogue"] = {"bc.g3_bose_einstein (printed, default), g=3": {j: [_s(a), _s(b)]
                                                                            for j, (a, b) in cat_q.items()},
                             "bc.lemma_g4_eps (printed, default)": [_s(v, 8) for v in cat_eps]}
    ok = (differs and doubles and g2_ok and u_valid and optimistic and eps_be < eps_true <= eps_gauss and q_wired
          and eps_wired)
    return ok, evidence, "the printed q_j is Bose–Einstein; it about doubles P(J < g) and overstates privacy"


register_erratum(Erratum(
    id="bc.E3",
    source=f"{SEED}, Appendix G.3 (q_j), Lemma G.4 and Theorem G.1 (case general g, BC)",
    summary="G.3's occupancy law q_j is the Bose–Einstein law, not the law of a random permutation; the f built on "
            "it overstates privacy",
    printed="q_j = C(N/s, j) C(g−1, j−1) / C(N/s − 1 + g, g) (the probability that the g differentiating samples "
            "fall into exactly j distinct batches); M is f^{⊗E}-DP with f(α) = Σ_j q_j Φ(Λ(α)σ/√j − √j/(2σ))",
    corrected="P(J = j) = C(B, j) Σ_{i=0}^{j} (−1)^i C(j, i) C((j−i)s, g) / C(N, g), B = N/s (g distinct samples placed "
              "by a uniform permutation). For g = 2: BE gives P(J = 1) = 2s/(N+s), the truth (s−1)/(N−1). At N/s = "
              "100, s = 64: P(J < g) = 0.0198/0.0582/0.1813 (BE) vs 0.00985/0.02935/0.09514 (true) for g = 2, 3, 5. "
              "f_BE > f_true (g = 3, σ = 1: +2.6e-3 at α = 0.01), and ε(1e-5) over E = 10 epochs (σ = 2) is 14.6791 "
              "(BE) < 14.7547 (true): the printed f is not a valid lower bound. G_{√(gE)/σ} (l = 0) and the u-bound "
              "u = g²/(N/s − g − g²) remain valid for the true law, but their proof is not.",
    demonstration=_demo(_e3, checks=(counting.true_occupancy_law_matches_enumeration,
                                     counting.bose_einstein_vandermonde)),
    statements=("bc.g3_bose_einstein", "bc.lemma_g4", "bc.lemma_g4_eps", "bc.lemma_g4_upper"),
    severity="wrong",
    note=f"{NOTES} §2.13, §3.2, §5.5, §6 item 3. Exact rational laws (fractions); the mixtures in mpmath.",
))


# --- E4: Lemma C.4 (and C.1's symmetry remark) ------------------------------------------------------------------

E4_ALPHAS = ("0.01", "0.05", "0.2", "0.5")


def hidden_label_tradeoff(alpha, mu=1):
    """T(N(0,1), ½N(μ,1) + ½N(−μ,1))(α) by Neyman–Pearson: the likelihood ratio e^{−μ²/2}cosh(μx) increases in |x|,
    so the optimal test rejects |x| > t with α = 2Φ(−t): β = Φ(t − μ) − Φ(−t − μ), t = Φ^{-1}(1 − α/2)."""
    t = X.ndtri_upper(mpf(alpha) / 2)
    return X.ndtr(t - mu) - X.ndtr(-t - mu)


def _e4():
    rows = {a: (hidden_label_tradeoff(a), X.g_tradeoff(a, 1)) for a in E4_ALPHAS}
    c4_false = all(hidden - g > mpf("0.03") for hidden, g in rows.values())
    # the one-sided test at the same α is no better (a check that the |x| test is the NP test)
    one_sided = {a: (X.ndtr(X.ndtri_upper(mpf(a)) - 1) + X.ndtr(X.ndtri_upper(mpf(a)) + 1)) / 2 for a in E4_ALPHAS}
    np_ok = all(one_sided[a] >= rows[a][0] for a in E4_ALPHAS)
    # C.1: 'f(f(α)) = α on [0,1]' fails for a symmetric f with f(0) < 1, e.g. f_{ε,δ} (base.eps_delta_tradeoff)
    st = catalogue.get("base.eps_delta_tradeoff")
    f = lambda a: st.evaluate(alpha=a, eps=1, delta="0.01", dps=DPS).value
    ff1 = f(f(mpf(1)))
    c1_false = abs(ff1 - 1) > mpf("0.005")
    evidence = {"alpha: hidden-label T, G_1": {a: [_s(h, 6), _s(g, 6)] for a, (h, g) in rows.items()},
                "one-sided test beta (>= NP)": {a: _s(v, 6) for a, v in one_sided.items()},
                "C.1: f_{1,0.01}(f_{1,0.01}(1))": _s(ff1, 8)}
    return (c4_false and np_ok and c1_false, evidence,
            "two components each exactly G_1 mix (labels hidden) into a trade-off above G_1; f(f(1)) = 1 − δ ≠ 1")


register_erratum(Erratum(
    id="bc.E4",
    source=f"{SEED}, Appendix C, Lemma C.4 (used in D.9) and Lemma C.1 ('f(f(α)) = α'); Lemma C.3's proof",
    summary="Lemma C.4 is false when the component label is hidden; C.1's f(f(α)) = α needs f(0) = 1",
    printed="Lemma C.4: if f = f_i = T(M_i(d), M_i(d′)) for all i, then T(M(d), M(d′)) = f. Lemma C.1: if all f_i are "
            "symmetric, f is symmetric, and f_i(f_i(α)) = α and f(f(α)) = α on [0, 1]",
    corrected="C.4 holds when the adversary sees the component label (the A1 model, where D.9 uses it harmlessly); "
              "with hidden labels, M_1: N(0,1) vs N(1,1) and M_2: N(0,1) vs N(−1,1), weight ½ each, are both G_1, "
              "but T(N(0,1), ½N(1,1) + ½N(−1,1)) = 0.94229, 0.82992, 0.59960, 0.32538 > G_1 = 0.90764, 0.74049, "
              "0.43708, 0.15866 at α = 0.01, 0.05, 0.2, 0.5. C.1's f(f(α)) = α holds iff f(0) = 1 (f_{ε,δ} with "
              "δ > 0: f(f(1)) = 1 − δ). Lemma C.3's proof uses one threshold test with per-component type-I "
              "budgets 0 and α/(1−p_t), consistent only with a visible label (valid in A1, without log-concavity).",
    demonstration=_demo(_e4),
    statements=("bc.def4_2", "bc.lemma_c3"),
    severity="wrong",
    note=f"{NOTES} §2.9, §5.2, §6 item 4.",
))


# --- E5: Def 4.2 at c = 0 -------------------------------------------------------------------------------------

def _e5():
    E, n, p = 4, 400, Fraction(1, 100)
    q0_exact = (1 - p) ** n
    support, pmf, _ = X.binomial_law(n, mpf(1) / 100)
    q0 = pmf[0]
    sigma = 1
    try:  # the printed component Φ(Λσ/c − c/(2σ)) at c = 0
        X.ndtr(mpf(1) * sigma / mpf(0))
        division = "no error"
    except ZeroDivisionError as exc:
        division = f"ZeroDivisionError: {exc}"
    comps = [(q, mpmath.sqrt(c) / sigma) for c, q in zip(support, pmf) if c > 0]
    r0 = mpmath.fsum(q * X.ndtr(mu / 2) for q, mu in comps)
    sup_rhs = mpmath.fsum(q for q, _ in comps)  # lim_{Λ→∞} of the printed right-hand side without c = 0
    # the slope −1 segment: 1 − α ∈ [r0, r0 + q0]
    a_lo, a_hi = 1 - r0 - q0, 1 - r0
    a_mid = (a_lo + a_hi) / 2
    f_lo, f_mid, f_hi = (X.mixture_tradeoff(support, pmf, sigma, a) for a in (a_lo, a_mid, a_hi))
    slopes = ((f_mid - f_lo) / (a_mid - a_lo), (f_hi - f_mid) / (a_hi - a_mid))
    symmetric = abs(X.mixture_tradeoff(support, pmf, sigma, f_mid) - a_mid)
    no_root = sup_rhs < 1 - q0 / 2  # for α < q0 (1 − α > 1 − q0), no Λ solves the printed equation
    # the catalogue's bc.def4_2 (N = 100, m = s = 1, g = 1, E = 4, σ = 1: the same q_E) on the segment
    cat = lambda a: _cat("bc.def4_2", alpha=a, sampling="subsampling", N=100, m=1, s=1, g=1, E=4, sigma=sigma)
    c_lo, c_hi = a_lo + (a_hi - a_lo) / 4, a_hi - (a_hi - a_lo) / 4
    cat_slope = (cat(c_hi) - cat(c_lo)) / (c_hi - c_lo)
    ok = (abs(cat_slope + 1) < mpf(10) ** -12 and abs(cat(a_mid) - f_mid) < mpf(10) ** -15
          and q0 > 0 and abs(q0 - mpf(q0_exact.numerator) / q0_exact.denominator) < mpf(10) ** -25
          and division.startswith("ZeroDivisionError") and no_root
          and all(abs(s + 1) < mpf(10) ** -15 for s in slopes) and symmetric < mpf(10) ** -15)
    evidence = {"q_E(0) (E=4, n=400, p=0.01)": _s(q0, 10), "e^-E": _s(mpmath.exp(-E), 10),
                "printed term at c=0": division, "sup_Lambda RHS without c=0 (= 1 - q_E(0))": _s(sup_rhs, 10),
                "segment alpha": [_s(a_lo, 8), _s(a_hi, 8)], "slopes on it": [_s(s, 12) for s in slopes],
                "|f(f(mid)) - mid|": _s(symmetric, 3), "bc.def4_2 slope on the segment": _s(cat_slope, 12)}
    return ok, evidence, "q_E(0) > 0 for SS: the printed Λ-equation divides by zero; f has a slope −1 segment"


register_erratum(Erratum(
    id="bc.E5",
    source=f"{SEED}, Definition 4.2 (and D.10, Lemma C.5 with μ_c = c/σ)",
    summary="Def 4.2 is ill-defined when q_E(0) > 0 (always for subsampling): c = 0 divides by zero",
    printed="f(α) = Σ_{c∈C} q_E(c) Φ(Λ(α)σ/c − c/(2σ)), with Λ(α) defined by 1 − α = Σ_{c∈C} q_E(c) Φ(Λ(α)σ/c + c/(2σ))",
    corrected="The c = 0 component is G_0(α) = 1 − α, contributing q_E(0)·1[Λ > 0] to both sums; Λ(α) = 0 on an "
              "α-interval of length q_E(0), where f is the segment of slope −1 (notes §4.3). For SS q_E(0) = "
              "(1 − sm/N)^T ≈ e^{−E} (0.0179506 at E = 4, N/(sm) = 100); without the c = 0 term the printed equation "
              "has no root for α < q_E(0).",
    demonstration=_demo(_e5, checks=(conjugates.mixture_profile_is_weighted_sum,)),
    statements=("bc.def4_2", "bc.def4_1", "bc.a1_profile"),
    severity="gap",
    note=f"{NOTES} §2.4, §4.3, §6 item 5.",
))


# --- E6: '≈ G_μ' is never exact GDP -----------------------------------------------------------------------------

def _e6():
    delta = mpf("1e-5")
    # (a) F.7 at γ = 1/g, E = 10, g = 1 (N = 1000, m = 10): l = e^{−γgE} = e^{−10} > δ ⇒ ε = ∞; Cor F.8's μ finite
    l_f7 = mpmath.exp(-10)
    mu_f8 = mpmath.sqrt((mpmath.e + 1) * 1 * 1 * 10) / 2
    eps_fl = X.fl_epsilon(delta, mu_f8, l_f7)
    eps_f8 = X.eps_g(delta, mu_f8)
    # (b) Thm G.1 [g ≥ 1] at N = 50000, ms = 64, g = 2, E = 100: per-epoch l and its E-epoch floor
    N, ms, g, E = 50000, 64, 2, 100
    l_g = Fraction(g * g * ms, N - g)
    floor = 1 - (1 - l_g) ** E
    exact_collision = 1 - prod(Fraction(N - i * ms, N - i) for i in range(g))
    # (c) exact A1 SS (E = 4, N/(sm) = 100, σ = 1) is not G_{√E/σ}-DP: δ(4) above δ_{G_2}(4)
    support, pmf, _ = X.binomial_law(400, mpf(1) / 100)
    d_exact, d_gauss = X.mixture_delta(support, pmf, 1, 4), X.delta_g(4, 2)
    f8 = dict(delta="1e-5", N=1000, m=10, g=1, E=10, sigma=2)
    cat_f8 = (_cat("bc.cor_f8", "printed", **f8), _cat("bc.cor_f8", **f8))
    wired = _close(cat_f8[0], eps_f8, "1e-9") and mpmath.isinf(cat_f8[1])
    ok = (mpmath.isinf(eps_fl) and eps_f8 < 100 and float(floor) > 0.4 and float(exact_collision) < float(l_g)
          and d_exact > d_gauss and wired)
    evidence = {"F.7/F.8 (N=1000,m=10,g=1,E=10,sigma=2)": {"l": _s(l_f7), "eps_fL(1e-5)": "inf",
                                                           "mu_F8": _s(mu_f8), "eps_G_mu(1e-5)": _s(eps_f8)},
                "G.1 (N=50000,ms=64,g=2,E=100)": {"l": f"{float(l_g):.7g}", "1-(1-l)^E": f"{float(floor):.4f}",
                                                  "exact P(two in one round)": f"{float(exact_collision):.4g}"},
                "SS E=4 sigma=1 delta(4)": {"exact_A1": _s(d_exact, 7), "G_2": _s(d_gauss, 7)},
                "bc.cor_f8 (printed, default)": [_s(v) for v in cat_f8]}
    return ok, evidence, "fL has a δ-floor l (1 − (1−l)^E over epochs); the exact SS f is not G_{√E/σ}-DP"


register_erratum(Erratum(
    id="bc.E6",
    source=f"{SEED}, Corollary F.8, Lemma G.3 / Theorem G.1 (case g ≥ 1), Table 1 ('≈ G_μ' rows), abstract",
    summary="'≈ G_μ-DP' is never exact: fL has a δ-floor l, and the exact A1 f for subsampling is not G_{√E/σ}-DP",
    printed="M in Lemma F.7 is approximately G_μ-DP, μ = √((e + 1/g) min{m,g} g E)/σ (Cor F.8); h^{⊗E} ≥ "
            "(G_{√g/σ}(min{1, α + g²ms/(N−g)}))^{⊗E} ≈ G_{√(gE)/σ} (Thm G.1)",
    corrected="fL(0) = 1 − l: every (ε, δ) from it has δ ≥ l (ε = ∞ below; after E epochs δ ≥ 1 − (1−l)^E). F.7 with "
              "γ = 1/g, E = 10: l = e^{−10} = 4.54e-5 > 1e-5, so ε(1e-5) = ∞ although G_μ (μ = 3.049) gives 17.03. "
              "G.3 at N = 50000, ms = 64, g = 2, E = 100: l = 5.120205e-3, floor 0.4015 (the exact per-epoch collision "
              "probability is 1.26e-3). The exact SS f has δ(4) = 0.1101 > δ_{G_2}(4) = 0.0850 at E = 4, σ = 1: its "
              "strict μ* is c_max/σ. Pair every 'approximately' with its δ.",
    demonstration=_demo(_e6),
    statements=("bc.cor_f8", "bc.lemma_g3", "bc.thm_g1_lower", "bc.lemma_f7_eps", "bc.def4_4_profile",
                "bc.a1_profile"),
    severity="gap",
    note=f"{NOTES} §2.6, §4.6, §5.2, §5.5, §6 item 6.",
))


# --- E7: A1 ignores amplification by sampling -------------------------------------------------------------------

def _e7():
    E, sigma, eps = 4, 2, 1
    rows = []
    for p in ("0.1", "0.01"):
        n = int(E / mpf(p))
        support, pmf, _ = X.binomial_law(n, mpf(p))
        with mp.workdps(A0_DPS):
            a0 = _a0.a0_delta_upper(mpf(p), sigma, n, eps, mpf("0.02"))
        rows.append({"p": p, "T": n, "delta_A1(1)": X.mixture_delta(support, pmf, sigma, eps),
                     "delta_A0_upper(1)": mpf(a0)})
    cat = _cat("bc.a1_profile", eps=eps, sampling="subsampling", N=10, m=1, s=1, g=1, E=E, sigma=sigma)  # p = 0.1
    wired = _close(cat, rows[0]["delta_A1(1)"], "1e-12")
    a1_flat = wired and abs(rows[0]["delta_A1(1)"] / rows[1]["delta_A1(1)"] - 1) < mpf("0.05")
    a0_drops = rows[1]["delta_A0_upper(1)"] < rows[0]["delta_A0_upper(1)"] / 10
    a0_below = all(r["delta_A0_upper(1)"] < r["delta_A1(1)"] for r in rows)
    evidence = {"E=4, sigma=2, eps=1": [{k: (_s(v) if isinstance(v, mpf) else v) for k, v in r.items()}
                                        for r in rows],
                "bc.a1_profile (N=10, m=s=g=1, E=4, sigma=2, eps=1)": _s(cat)}
    return (a1_flat and a0_drops and a0_below, evidence,
            "the A1 δ barely moves as p = sm/N drops 10× at fixed E; the A0 δ drops by orders of magnitude")


register_erratum(Erratum(
    id="bc.E7",
    source=f"{SEED}, §4 (model A1, Theorems 4.5/4.6) and the comparisons built on it (BC vs IC, SH vs SS, "
           "'no accountant needed'), §5 (σ = 2, E = 100)",
    summary="The A1 guarantees ignore amplification by sampling: they do not improve as sm/N → 0 at fixed E",
    printed="'A differential privacy accountant for computing the effect of composition is not needed' (after "
            "Lemma F.2); batch clipping / shuffling compared with DP-SGD through the A1 bounds",
    corrected="In A1, c² → Poisson(E) as p = sm/N → 0 with E fixed, so the guarantee stays ≈ G_{√E/σ}; the A0 "
              "guarantee C_p(G_{1/σ})^{⊗T} improves (μ ∝ √p). At E = 4, σ = 2, ε = 1: δ_A1 = 0.12645 at p = 0.1 and 0.12644 at "
              "p = 0.01, while δ_A0 ≤ 1.14e-3 at p = 0.1 and ≤ 1.2e-9 at p = 0.01. The paper's experiments (σ = 2, E = 100) "
              "are ε(1e-5) ≈ 33–35 in A1 against 0.8–3.8 in A0 (IC/SS); the comparisons live inside the much "
              "weaker A1 class, which the paper does not say.",
    demonstration=_demo(_e7),
    statements=("bc.a1_profile", "bc.a1_epsilon", "base.gdp_subsampled"),
    severity="gap",
    note=f"{NOTES} §1 item 8, §5.6, §6 item 7. A1 values: exact Bin(E/p, p) mixture; A0: certified PLD upper "
         "bound of C_p(G_{1/σ})^{⊗T} (see bc.E2).",
))


# --- E8: D.4 'orthogonal' ---------------------------------------------------------------------------------------

def _e8():
    C = mpf(1)
    rows = {}
    for k in (1, 2, 3, 4):
        orthogonal = [[2 * C if i == h else mpf(0) for i in range(k)] for h in range(k)]
        aligned = [[2 * C] + [mpf(0)] * (k - 1) for _ in range(k)]
        norm = lambda vs: mpmath.sqrt(mpmath.fsum(mpmath.fsum(v[i] for v in vs) ** 2 for i in range(k)))
        rows[k] = (norm(orthogonal), norm(aligned))
    ok = all(abs(o - 2 * mpmath.sqrt(k) * C) < mpf(10) ** -25 and abs(a - 2 * k * C) < mpf(10) ** -25
             for k, (o, a) in rows.items()) and all(o < a for k, (o, a) in rows.items() if k > 1)
    sigma = 2
    trade = {k: (X.g_tradeoff("0.1", o / (2 * C) / sigma), X.g_tradeoff("0.1", a / (2 * C) / sigma))
             for k, (o, a) in rows.items()}
    evidence = {"k: ||sum||, orthogonal vs aligned (C=1)": {k: [_s(o), _s(a)] for k, (o, a) in rows.items()},
                "G(0.1) at sigma=2: orthogonal vs aligned": {k: [_s(o), _s(a)] for k, (o, a) in trade.items()}}
    return ok, evidence, "orthogonal differences of norm 2C sum to 2√k C; only aligned ones reach 2kC"


register_erratum(Erratum(
    id="bc.E8",
    source=f"{SEED}, Appendix D.4 (sensitivity of a round with k differentiating subsets)",
    summary="D.4: ‖U − U′‖ = 2kC needs the k differences aligned, not orthogonal",
    printed="'This upper bound is met with equality if all the terms happen to be orthogonal to one another.'",
    corrected="k orthogonal differences of norm 2C give ‖U − U′‖ = 2√k C (G_{√k/σ}); equality 2kC (G_{k/σ}, the worst "
              "case the analysis uses) needs parallel, aligned differences. The conclusion G_{k/σ} is unaffected.",
    demonstration=_demo(_e8),
    statements=("bc.def4_1", "bc.def4_2"),
    severity="typo",
    note=f"{NOTES} §2.10, §6 item 8.",
))


# --- E10: the IC lower bound is loose (not a property of IC) ----------------------------------------------------

def ic_g2_row(N=1000, m=10, g=2, E=10, sigma=2, delta="1e-5") -> dict:
    """Exact A1 ε(δ) of IC with SS (s = 1) at g = 2 (c² = n1 + 4 n2, trinomial over T = EN/m rounds with the
    hypergeometric q_k of eq. (21)) vs Cor F.8's G_μ and G_{√(gE)/σ}."""
    q = X.hypergeometric_q(N, m, g)
    law = X.trinomial_law(E * N // m, mpf(q[1].numerator) / q[1].denominator,
                          mpf(q[2].numerator) / q[2].denominator)
    support, pmf, trimmed = X.trimmed(law, mpf(10) ** -25)
    delta = mpf(delta)
    mu_f8 = mpmath.sqrt((mpmath.e + mpf(1) / g) * min(m, g) * g * E) / sigma
    mu_bc = mpmath.sqrt(g * E) / mpf(sigma)
    eps_f8, eps_bc = X.eps_g(delta, mu_f8), X.eps_g(delta, mu_bc)
    eps_exact = X.mixture_epsilon(support, pmf, sigma, delta, hi=eps_f8)
    mean = mpmath.fsum(c * q for c, q in zip(support, pmf))
    return {"eps_exact_A1": eps_exact, "eps_CorF8": eps_f8, "mu_CorF8": mu_f8, "eps_G_sqrt(gE)/sigma": eps_bc,
            "mean c2": mean, "dropped": trimmed + law[2]}


def _e10():
    r = ic_g2_row()
    params = dict(delta="1e-5", N=1000, m=10, g=2, E=10, sigma=2)
    cat = {"bc.cor_f8 printed": _cat("bc.cor_f8", "printed", **params),
           "bc.lemma_f7_eps (gamma=1/2)": _cat("bc.lemma_f7_eps", gamma="0.5", **params)}
    wired = _close(cat["bc.cor_f8 printed"], r["eps_CorF8"], "1e-9") and mpmath.isinf(cat["bc.lemma_f7_eps (gamma=1/2)"])
    ok = (r["eps_exact_A1"] < mpf("1.2") * r["eps_G_sqrt(gE)/sigma"] and r["eps_CorF8"] > 2.5 * r["eps_exact_A1"]
          and r["dropped"] < mpf(10) ** -15 and wired)
    return (ok, {"N=1000, m=10, g=2, E=10, sigma=2, delta=1e-5": {k: _s(v, 7) for k, v in r.items()},
                 "catalogue": {k: _s(v, 8) for k, v in cat.items()}},
            "the exact IC ε is within 20% of G_{√(gE)/σ}; Cor F.8's is ~3× larger")


register_erratum(Erratum(
    id="bc.E10",
    source=f"{SEED}, §4 discussion after Theorem 4.6 / Appendix F.4 ('batch clipping gives a better guarantee "
           "unless the lower bound is not tight'), Corollary F.8",
    summary="The IC lower bound of F.7/F.8 is loose by ~3× in ε; the exact A1 IC guarantee is close to BC's "
            "G_{√(gE)/σ}",
    printed="IC lower bound ≈ G_{√((e+γ) min{m,g} g E)/σ} ≤ G_{√(gE)/σ}: 'batch clipping provides a better DP "
            "guarantee than individual clipping (unless the lower bound is not tight)'",
    corrected="The bound is not tight: at N = 1000, m = 10, g = 2, E = 10, σ = 2 the exact A1 ε(1e-5) of IC is 13.33, "
              "against 39.54 from Cor F.8's μ = 5.673 and 11.48 from G_{√(gE)/σ}; the exact IC values for g = 2..8 "
              "are 8–16% above G_{√(gE)/σ} (notes §5.4). The IC-vs-BC gap is an artefact of the bound.",
    demonstration=_demo(_e10),
    statements=("bc.cor_f8", "bc.lemma_f7", "bc.a1_epsilon"),
    severity="gap",
    note=f"{NOTES} §2.15, §5.4, §6 item 10.",
))


# --- E11: Cor F.8's 'g > m' ------------------------------------------------------------------------------------

def f8_threshold(m: int, E: int) -> int:
    """The smallest g > m with μ < μ′ (Cor F.8: μ² ∝ (e + 1/g) min{m,g} g E, μ′² ∝ (1 + 1/√(2E)) g² E)."""
    g = m + 1
    while (mpmath.e + mpf(1) / g) * m >= (1 + 1 / mpmath.sqrt(2 * E)) * g:
        g += 1
    return g


def _e11():
    rows = {(m, E): f8_threshold(m, E) for m, E in ((1, 100), (10, 100), (64, 100), (10, 10))}
    ratio = {k: mpf(g) / k[0] for k, g in rows.items()}
    g, m, E = 2 * 10, 10, 100  # g = 2m > m, yet μ > μ′
    mu2 = (mpmath.e + mpf(1) / g) * min(m, g) * g * E
    mu2p = (1 + 1 / mpmath.sqrt(2 * E)) * g * g * E
    ok = mu2 > mu2p and all(r > 2 for r in ratio.values())
    evidence = {"smallest g > m with mu < mu' (m, E)": {f"m={m},E={E}": g for (m, E), g in rows.items()},
                "ratio g*/m": {f"m={m},E={E}": _s(r, 4) for (m, E), r in ratio.items()},
                "g=20, m=10, E=100: mu^2, mu'^2 (times sigma^2)": [_s(mu2, 6), _s(mu2p, 6)]}
    return ok, evidence, "G_μ beats G_μ′ only for g > (e + 1/g)m/(1 + 1/√(2E)) ≈ 2.6–2.7m"


register_erratum(Erratum(
    id="bc.E11",
    source=f"{SEED}, Corollary F.8 and the comparison after it (Appendix F.4)",
    summary="Cor F.8's 'for g > m, G_μ outperforms G_μ′' needs g ≳ 2.7m, not g > m",
    printed="μ = √((e + 1/g)·min{m,g}·g·E)/σ vs the group-privacy μ′ = √((1 + 1/√(2E))·g·g·E)/σ: for g > m the "
            "former is better",
    corrected="For g > m, μ < μ′ iff g > (e + 1/g)m/(1 + 1/√(2E)), i.e. g ≳ 2.5m–2.7m (the factor tends to e as E → ∞; smallest such g: 3 for m = 1, 26 "
              "for m = 10, 163 for m = 64 at E = 100). E.g. g = 20 > m = 10, E = 100: μ²σ² = 55366 > μ′²σ² = 42828, "
              "so G_μ is the weaker guarantee; the claim fails for every m < g ≤ (e + 1/g)m/(1 + 1/√(2E)).",
    demonstration=_demo(_e11),
    statements=("bc.cor_f8",),
    severity="wrong",
    note=f"{NOTES} §2.12 (Cor F.8), §6 item 11.",
))


# --- E12: typos and garbled symbols -----------------------------------------------------------------------------

def _e12():
    # F.1 with s − k′_h (not "s − h′_h") and k′_h ≠ 0 (not "k_h ≠ 0"): equals brute force and sums to 1
    small = [(7, 2, 2, 2), (8, 2, 2, 3), (7, 3, 2, 2)]
    f1_ok = all(X.f1_q(*c) == X.round_q_brute_force(*c) for c in small)
    q30 = X.f1_q(30, 3, 2, 3)
    sums_ok = sum(q30) == 1
    # D.14: β with G_{c_U/σ}((β − u)/(1 − u)) = β satisfies f̂U(β) = β only with G_{c_U/σ} (printed: G_{c_L/σ})
    mu_u, mu_l, u = mpf(2), mpf(1), mpf("0.05")
    lo, hi = mpf(0), mpf(1)
    for _ in range(150):
        mid = (lo + hi) / 2
        if (X.g_tradeoff((mid - u) / (1 - u), mu_u) if mid > u else 1) > mid:
            lo = mid
        else:
            hi = mid
    beta = (lo + hi) / 2
    fixed_u = abs(u + (1 - u) * X.g_tradeoff(beta, mu_u) - beta)
    fixed_l = abs(u + (1 - u) * X.g_tradeoff(beta, mu_l) - beta)
    cat_hat = _cat("bc.def4_3_hat", alpha=beta, c_U=2, u=u, sigma=1)  # f̂U of the catalogue at β
    d14_ok = fixed_u < mpf(10) ** -20 and fixed_l > mpf("0.01") and _close(cat_hat, beta, "1e-15")
    # G.2: c_L = √g (printed '√ag'): with c_L² = g, P(c² > g) ≤ l; exact for g = 2: (ms − s)/(N − 1)
    N, m, s, g = 6400, 4, 16, 2
    exact = Fraction(m * s - s, N - 1)
    l = Fraction(g * g * m * s, N - g)
    g2_ok = exact <= l
    evidence = {"F.1 corrected = brute force": {str(c): [str(x) for x in X.f1_q(*c)] for c in small},
                "F.1 (30,3,2,3)": [f"{float(x):.5f}" for x in q30],
                "D.14 beta (c_U/sigma=2, u=0.05)": _s(beta, 10),
                "|fU_hat(beta) - beta| with G_cU, with G_cL (c_L/sigma=1)": [_s(fixed_u, 3), _s(fixed_l, 6)],
                "G.2 (N=6400,m=4,s=16,g=2): exact P(c2>g), l": [f"{float(exact):.6g}", f"{float(l):.6g}"]}
    return f1_ok and sums_ok and d14_ok and g2_ok, evidence, "corrected forms recomputed"


register_erratum(Erratum(
    id="bc.E12",
    source=f"{SEED}, App. F.1 (q_k), D.14, G.2, App. B, eq. (5), F.1 footnote ¶ / App. E ('v'), §5",
    summary="Typos and garbled symbols: F.1 (s − h′_h, k_h), D.14 (G_{c_L/σ} for G_{c_U/σ}), G.2 (√(ag)), App. B "
            "(G_{1/σ}), eq. (5) (Σ_i), 'v', 'µ' as learning rate, 'Table ??', batch size 1028",
    printed="F.1: 's − h′_h non-differentiating samples', 'k = #{h | k_h ≠ 0}'; D.14: 'G_{cL/σ} is convex, "
            "G_{cL/σ}(0) = 1 …', 'G_{cL/σ}(β) = …'; G.2: 'c ≤ c_L = √ag'; App. B: 'gives G_{1/σ}'; (5): "
            "'Σ_i q_E(c) α_c = α'; 's = v = 1', 'static m, s, and v'; 'µ = 0.025'; 'Table ??'; '1028'",
    corrected="F.1: s − k′_h and k′_h ≠ 0 (then q_k equals brute-force enumeration and sums to 1); D.14: G_{c_U/σ} "
              "throughout (β solves G_{c_U/σ}((β−u)/(1−u)) = β and then f̂U(β) = β; with G_{c_L/σ} it does not); "
              "G.2: c_L = √g; App. B: G_{c/σ}; (5): Σ_c; 'v' is undefined (a leftover); µ is the learning rate η; "
              "Table 3; 1024. Table 1's note about Thm G.1 sits on a subsampling row (belongs to rows 7/8).",
    demonstration=_demo(_e12, checks=(counting.f1_qk_matches_enumeration,)),
    statements=("bc.def4_1", "bc.def4_3", "bc.lemma_g3"),
    severity="typo",
    note=f"{NOTES} §2.10, §2.12, §2.13, §6 item 12.",
))


# --- E13: missing conditions ------------------------------------------------------------------------------------

def _e13():
    sizes = (64, 128, 256, 512, 1024)
    non_integer = {N: [b for b in sizes if N % b] for N in (50000, 60000)}
    # G.4: u = g²/(N/s − g − g²) is undefined or ≤ 0 unless N/s > g + g², and ≥ 1 unless N/s > g + 2g²
    u_of = lambda B, g: Fraction(g * g, B - g - g * g) if B != g + g * g else None
    g4 = {B: u_of(B, 2) for B in (5, 6, 7, 10)}
    # F.7: β = e^{N/(N−g−m)} + γ needs N > g + m
    f7 = {N: (N - 2 - 10) for N in (11, 12, 13)}
    # the catalogue refuses them by name: bc.def4_1 at N = 50000, ms = 64; bc.lemma_f7 at N = 12, m = 10, g = 2
    refusals = {}
    for sid, params in (("bc.def4_1", dict(sampling="subsampling", N=50000, m=1, s=64, g=1, E=1, c2=1, part="at")),
                        ("bc.lemma_f7", dict(alpha="0.1", N=12, m=10, g=2, E=1, sigma=1, gamma=1))):
        try:
            _cat(sid, **params)
            refusals[sid] = "no error"
        except ConditionError as exc:
            refusals[sid] = str(exc)[:120]
    refused = all(v != "no error" for v in refusals.values())
    ok = (all(len(v) == len(sizes) for v in non_integer.values()) and g4[6] is None and g4[5] < 0 and g4[7] >= 1
          and f7[12] == 0 and f7[11] < 0 and refused)
    evidence = {"batch sizes with N/(ms) non-integer": {str(N): v for N, v in non_integer.items()},
                "G.4 u at g=2, N/s = 5, 6, 7, 10": {str(B): (str(u) if u is not None else "division by zero")
                                                     for B, u in g4.items()},
                "F.7 N − g − m at g=2, m=10": f7, "catalogue refusals": refusals}
    return ok, evidence, "the printed formulas break outside the missing conditions"


register_erratum(Erratum(
    id="bc.E13",
    source=f"{SEED}, Algorithm 1 (T = E·N/(ms)), Lemma F.7, G.3/Lemma G.4, G.2, §5 (CIFAR-10/MNIST batch sizes)",
    summary="Missing conditions: N/(ms) integer, N > g + m (F.7), N/s > g + g² (G.4), g(ms−1)/(N−g+1) ≤ 1 (G.2), "
            "g ≤ s (q_j), E ≥ 1",
    printed="Algorithm 1 runs N/(ms) rounds per epoch; F.7 β = e^{N/(N−g−m)} + γ; G.4 u = g²/(N/s − g − g²) — with no "
            "conditions stated",
    corrected="N/(ms) must be an integer (the paper's N = 50000/60000 with ms ∈ {64, …, 1024} never is); F.7 needs "
              "N > g + m; G.4 needs N/s > g + g² (else u is undefined or ≤ 0) and is vacuous unless N/s > g + 2g² (else u ≥ 1: cap "
              "u at 1); G.2's Bernoulli step "
              "needs g(ms−1)/(N−g+1) ≤ 1; the q_j count needs g ≤ s; E ≥ 1 keeps 1 − 1/√(2E) > 0. The catalogue "
              "states them as conditions (e.g. bc.def4_1 and bc.lemma_f7 raise ConditionError outside them).",
    demonstration=_demo(_e13),
    statements=("bc.def4_1", "bc.lemma_f7", "bc.lemma_g4_upper"),
    severity="gap",
    note=f"{NOTES} §6 item 13.",
))


# --- E16: Appendix E's factor-2 heuristic ------------------------------------------------------------------------

def factor2_counterexample(k=2, sigma=1, grid=tuple(mpf(i) / 4 for i in range(0, 41))):
    """The first ε on ``grid`` where the mixture over k′ ~ Bin(k, ½) of G_{k′/σ} (label visible: δ = Σ P(k′)
    δ_{G_{k′/σ}}) has δ above δ_{G_{k/(2σ)}}, the heuristic of App. E; None if there is none."""
    weights = [(kp, Fraction(comb(k, kp), 2 ** k)) for kp in range(k + 1)]
    for eps in grid:
        mix = mpmath.fsum(mpf(w.numerator) / w.denominator * X.delta_g(eps, mpf(kp) / sigma) for kp, w in weights)
        heuristic = X.delta_g(eps, mpf(k) / (2 * sigma))
        if mix > heuristic:
            return eps, mix, heuristic
    return None


def _e16():
    rows = {(k, s): factor2_counterexample(k, s) for k, s in ((2, 1), (4, 2), (1, 1))}
    ok = all(r is not None for r in rows.values())
    evidence = {f"k={k}, sigma={s}": ({"first eps": _s(r[0], 4), "delta_mixture": _s(r[1]),
                                       "delta_G_k/(2sigma)": _s(r[2])} if r else None) for (k, s), r in rows.items()}
    return ok, evidence, "the mixture's δ exceeds δ_{G_{k/(2σ)}}: the factor-2 heuristic is not a bound"


register_erratum(Erratum(
    id="bc.E16",
    source=f"{SEED}, Appendix E (probabilistic filtered batches)",
    summary="Appendix E's 'G_{k/(2σ)}, a factor 2 improvement' (from the mean k/2 of k′) is not a bound",
    printed="'In expectation, the sensitivity is kC … and we have the Gaussian trade-off function G_{k/(2σ)}. This "
            "seems to indicate a factor 2 improvement (at best)'",
    corrected="With k′ ~ Bin(k, ½) the round is the mixture of G_{k′/σ}; its δ(ε) = Σ P(k′) δ_{G_{k′/σ}}(ε) exceeds "
              "δ_{G_{k/(2σ)}}(ε) (the k′ = k component dominates at large ε): already at ε = 0.25 for k = 2, σ = 1 "
              "(0.3143 vs 0.3077), at ε = 0.5 for k = 4, σ = 2 (0.2479 vs 0.2384), at ε = 0.25 for k = 1, σ = 1. A "
              "mixture of G_{k′/σ} is not G_{E(k′)/σ}; the transformed q_E of App. E is the object to compute.",
    demonstration=_demo(_e16),
    statements=("base.gdp_profile", "bc.a1_profile", "bc.app_e_round_profile"),
    severity="wrong",
    note=f"{NOTES} §2.11, §6 item 16. The paper itself calls it a heuristic and leaves it to future work.",
))
