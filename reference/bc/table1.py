"""Table 1 of seed 002 ("Trade-off functions h for the mechanism M defined by Algorithm 1"), reconstructed: the
extracted text lost its header row and the "x x" column labels, so each row is matched to the lemma with the identical
formula (notes shared/notes/batch-clipping-fdp.md §2.14 **[reconstructed]**). Each row carries the statement ids it
comes from, its printed h and its exact counterpart: the exact A1 trade-off f of Def. 4.2 (bc.def4_2 / bc.a1_epsilon)
for the same sampler, clipping and group size.

:func:`table1_rows` evaluates, for one setting (N, m, s, g, E, σ, δ), each row's ε at δ for the printed h (the ε of the
G_μ that the row states or approximates: the guarantee end of a printed range) and for the exact A1 f. The clipping of a
row fixes (m, s) with the batch size ms kept: IC uses (ms, 1), BC (1, ms), general (6) the given (m, s); rows for g = 1
use g = 1. Row 1 is the A0 trade-off C_{m/N}(G_{1/σ})^{⊗(N/m)E} ([2] Thm 5.1), computed by the PLD (fast/base/pld.py),
not here: its printed ε is None. This feeds ``dpspec figures bc``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import mpmath
from mpmath import mpf

from ..base.gaussian import gaussian_eps
from .mixture import a1_epsilon


@dataclass(frozen=True)
class Row:
    """One reconstructed row of seed 002, Table 1 (notes §2.14)."""

    number: int
    sampling: str  # "subsampling" | "shuffling"
    clipping: str  # "IC" (s = 1), "BC" (m = 1), "general" (formula (6))
    groups: str  # the group sizes the row speaks of: "1", ">=1", "<=s"
    printed_h: str  # the row's h as printed (reconstructed)
    model: str  # "A0" | "A1"
    approximation: str  # the printed approximation condition
    statements: tuple[str, ...]  # the catalogue statements it comes from
    exact: str  # its exact counterpart, in words
    printed_mu: Callable | None  # (m, s, g, E, sigma) -> μ of the printed G_μ (the guarantee end), None for A0

    def config(self, m: int, s: int, g: int) -> tuple[int, int, int]:
        """(m′, s′, g′) of the exact A1 f for this row, batch size ms kept."""
        mm, ss = {"IC": (m * s, 1), "BC": (1, m * s), "general": (m, s)}[self.clipping]
        return mm, ss, (1 if self.groups == "1" else g)


def _sqrt(x):
    return mpmath.sqrt(mpf(x))


ROWS: tuple[Row, ...] = (
    Row(1, "subsampling", "IC", "1", "C_{m/N}(G_{1/σ})^{⊗(N/m)E} (from [2]; the original DP-SGD setting [1])", "A0",
        "exact", ("bc.thm_f1_lower", "bc.lemma_f2_lower"),
        "the A0 trade-off by PLD (base.sgm_wor_rdp: fixed-size batches, symmetric pair C_γ(f)); the A1 f beside it",
        None),
    Row(2, "subsampling", "IC", ">=1", "h ∈≈ [G_{√((e+γ)min{m,g}gE)/σ}, 1−α]", "A1", "small e^{−γgE}",
        ("bc.lemma_f7", "bc.cor_f8"), "A1 f with the hypergeometric round law (s = 1)",
        lambda m, s, g, E, sigma: _sqrt((mpmath.e + mpf(1) / g) * min(m, g) * g * E) / sigma),
    Row(3, "subsampling", "BC", ">=1", "h ∈≈ [G_{√((1+1/√(2gE))gE)/σ}, G_{√((1−1/√(2gE))gE)/σ}]", "A1",
        "small e^{−gE}, small s/N", ("bc.lemma_f9_lower", "bc.lemma_f9_upper"),
        "A1 f with c² ~ Binomial(EN/s, q_1) (m = 1)",
        lambda m, s, g, E, sigma: _sqrt((1 + 1 / _sqrt(2 * g * E)) * g * E) / sigma),
    Row(4, "subsampling", "general", "1", "h ∈≈ [G_{√((1+1/√(2E))E)/σ}, G_{√((1−1/√(2E))E)/σ}]", "A1", "small e^{−E}",
        ("bc.lemma_f6_lower", "bc.lemma_f6_upper", "bc.lemma_f6_eps"), "A1 f with c² ~ Binomial(EN/(sm), sm/N)",
        lambda m, s, g, E, sigma: _sqrt((1 + 1 / _sqrt(2 * E)) * E) / sigma),
    Row(5, "shuffling", "general", "1", "h = G_{√E/σ}", "A1", "exact", ("bc.lemma_g2", "bc.thm_g1_lower"),
        "A1 f with c² = E (identical)", lambda m, s, g, E, sigma: _sqrt(E) / sigma),
    Row(6, "shuffling", "general", ">=1", "h ∈≈ [G_{√(gE)/σ}, 1−α]", "A1", "constant E and small g²ms/(N−g)",
        ("bc.lemma_g3", "bc.thm_g1_lower"), "A1 f of the shuffled law of Σ_b L_b² (exact counting)",
        lambda m, s, g, E, sigma: _sqrt(g * E) / sigma),
    Row(7, "shuffling", "BC", ">=1", "h ∈ [G_{√(gE)/σ}, 1−α]", "A1", "exact", ("bc.lemma_g4_gauss",),
        "A1 f of the true occupancy law", lambda m, s, g, E, sigma: _sqrt(g * E) / sigma),
    Row(8, "shuffling", "BC", "<=s", "h ≈ G_{√(gE)/σ}", "A1", "constant E and small g²/(N/s − g − g²)",
        ("bc.lemma_g4", "bc.lemma_g4_upper"), "A1 f of the true occupancy law (the printed q_j is Bose–Einstein)",
        lambda m, s, g, E, sigma: _sqrt(g * E) / sigma),
)


def table1_rows(N, m, s, g, E, sigma, delta) -> list[dict]:
    """Per row of :data:`ROWS`: ε at δ of the printed h (``eps_printed``; None for the A0 row) and of the exact A1 f
    (``eps_exact``, bc.a1_epsilon at the row's configuration), with the configuration and the statement ids.
    ``eps_exact`` is None where the configuration is outside Algorithm 1's conditions (row 8 needs g ≤ ms)."""
    out = []
    for row in ROWS:
        mm, ss, gg = row.config(int(m), int(s), int(g))
        entry = {"row": row.number, "sampling": row.sampling, "clipping": row.clipping, "groups": row.groups,
                 "model": row.model, "printed_h": row.printed_h, "statements": row.statements,
                 "config": {"N": int(N), "m": mm, "s": ss, "g": gg}, "printed_mu": None, "eps_printed": None,
                 "eps_exact": None}
        if row.printed_mu is not None:
            mu = row.printed_mu(mm, ss, gg, mpf(E), mpf(sigma))
            entry["printed_mu"] = mu
            entry["eps_printed"] = gaussian_eps(mpf(delta), 1 / mu)
        if row.groups != "<=s" or gg <= ss:
            entry["eps_exact"] = a1_epsilon(mpf(delta), row.sampling, int(N), mm, ss, gg, int(E), mpf(sigma))
        out.append(entry)
    return out
