"""The pair Theorem 3.6.6's proof reduces its test to (seed 003, Alg 6 and Lemma 3.6.5; notes
shared/notes/generalized-ptr.md §2.4, §3.12), attached for issue 18's Monte Carlo check of PATE-PTR's accounting.

Alg 6 releases, per query, the GNSS pair (a noisy μ = log SS_β and a noisy upper bound of the data-dependent RDP
ε(α, X), Lemma 3.6.5) and, if the test passes, a GNMax label. Thm 3.6.6's (ε′ + ε̂_test, δ) composes (i) the test
release, (α, ε_test)-RDP by the corrected Lemma 3.6.5 at Alg 6's constants α = 2 log(2/δ)/ε̂ + 1,
σ_s = σ_2 = √((3α + 2)/ε̂), β = 0.2/α, and (ii) the labels' data-dependent DP, tested against ε′. The end-to-end output law of one query needs the smooth sensitivity of
the data-dependent GNMax RDP on a neighbouring pair of vote histograms (Papernot's Algs 3–5) and the GNMax label law
by quadrature; of T queries, their composition. That is not built here (issue 18 keeps it open): the uses below are
part (i), the extreme GNSS pairs ``gptr.gnss`` (SS(X′) = e^{±β}SS(X)) at Alg 6's constants, a lower-bound witness of
the test's share — the claim (ε′ + ε̂_test, δ) must hold for them a fortiori.
"""
from __future__ import annotations

from mpmath import mpf

from ..catalogue import WitnessUse


def _gnss_use(direction):
    def f(p):
        from .pate import pate_constants

        alpha, sigma, beta = pate_constants(mpf(p["eps_hat"]), mpf(p["delta"]))
        return {"beta": beta, "sigma_s": sigma, "sigma_2": sigma, "direction": direction}
    return f


THM3_6_6_USES = tuple(WitnessUse("gptr.gnss", _gnss_use(d), f"Alg 6's test release at its constants, SS(X′) = "
                                 f"e^{{{'+' if d > 0 else '−'}β}}SS(X) (the proof's part (i) only)") for d in (1, -1))
USES = {"gptr.thm3_6_6": THM3_6_6_USES}
