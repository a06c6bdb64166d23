"""Both accountings of an Algorithm 1 run of seed 002, side by side: the exact A1 ε (Def. 4.2 mixture, the paper's
guarantee, Thm 4.6) and — where the standard (A0) analysis exists — the tight A0 ε of DP-SGD from
``dpspec.fast.Accountant`` (privacy loss distributions, certified interval), "so a user sees both numbers" (issue 15).

Units. The paper's round adds N(0, (2Cσ)² I) to a sum of subset results clipped to C, and its neighbours are
replace-one (seed 002, §4, D.4): one differentiating subset moves the sum by at most 2C, so one round is the Gaussian
mechanism with sensitivity 2C and noise 2Cσ, i.e. G_{1/σ} (seed 002 A.1; [2] Thm 5.1: DP-SGD is
C_{m/N}(G_{1/σ})^{⊗T}-DP). In the accountant's units (sensitivity 1) the noise multiplier is therefore σ itself —
not 2σ, which is the Opacus convention (add/remove neighbours, sensitivity C, notes §2.11 "Opacus remark") and would
describe a different neighbouring relation. The accountant composes T = E·N/(ms) steps of the Poisson-subsampled
Gaussian with rate q = sm/N (the f_p pair of notes §3.3, both directions of add/remove, i.e. of the dominating pair
N(0,1) vs (1−q)N(0,1) + qN(1/σ,1)); this reproduces notes §5.6's "f_p pair (Poisson-style, both directions, noise
multiplier 2)" column (σ = 2, E = 100, N = 50000: 3.2529 at sm = 1024 and 1.4860 at sm = 256, tests/bc/test_bc_fast.py).
Caveats, in the result's ``a0_note``:

* it is the A0 ε of Poisson subsampling with rate sm/N. The paper's SS draws exactly ms samples per round
  (without replacement), whose A0 function is C_{sm/N}(G_{1/σ})^{⊗T} ([2] Thm 4.2/5.1), somewhat larger
  (notes §5.6 bracket: [3.8307, 3.8404] at sm = 1024 against 3.2529). That symmetrised composition is not in the
  accountant's mechanism table, so it is not reported;
* only g = 1 (group privacy of A0 is not analysed by the paper, notes §3.4) and only subsampling: shuffling has
  no A0 analysis in the text (notes §3.4, "A0 for shuffling (never analysed)") — none is invented here; ``eps_a0``
  is None there and the note says why.
"""
from __future__ import annotations

from dataclasses import dataclass

from dpspec.reference.bc import spec
from dpspec.reference.domains import DELTA, NOISE

from . import mixture, qe


@dataclass(frozen=True)
class Report:
    """ε of one run at δ under both adversaries (see the module docstring)."""

    sampling: str
    N: int
    m: int
    s: int
    g: int
    E: int
    sigma: float
    delta: float
    rounds: int  # T = E·N/(ms)
    eps_a1: float  # exact A1 mixture (seed 002 Def. 4.2 / Thm 4.6)
    eps_a0: float | None  # certified upper end of the A0 interval (None where no A0 analysis exists)
    eps_a0_interval: tuple[float, float] | None
    a0_sample_rate: float | None  # q = sm/N
    a0_noise_multiplier: float | None  # σ (replace-one sensitivity 2C, noise 2Cσ)
    a0_note: str

    def __str__(self) -> str:
        a0 = f"{self.eps_a0:.6g}" if self.eps_a0 is not None else "n/a"
        return (f"{self.sampling} N={self.N} m={self.m} s={self.s} g={self.g} E={self.E} σ={self.sigma:g} "
                f"δ={self.delta:g}: ε_A1 = {self.eps_a1:.6g}, ε_A0 = {a0} ({self.a0_note})")


_A0_NOTE = ("A0: Poisson-subsampled Gaussian, q = sm/N, noise multiplier σ (replace-one sensitivity 2C, noise 2Cσ), "
            "T = E·N/(ms) steps, tight PLD accountant (certified interval); the paper's fixed-size subsampling has "
            "the larger C_q(G_{1/σ})^{⊗T}, not reported")
_NO_A0_SHUFFLING = "no A0 analysis exists for shuffling (seed 002 analyses it only in A1; notes §3.4)"
_NO_A0_GROUP = "no A0 analysis for groups g > 1 in the text (notes §3.4); only A1 is reported"


def report(sampling, N, m, s, g, E, sigma, delta) -> Report:
    """ε at δ of an Algorithm 1 run (seed 002) under A1 (exact mixture, :func:`dpspec.fast.bc.mixture.a1_epsilon`)
    and, for subsampling with g = 1, under A0 (``dpspec.fast.Accountant``, module docstring). Same errors as the
    statements (DomainError, ConditionError with the texts of reference/bc/spec.py)."""
    spec.SAMPLING.check("sampling", sampling)
    N, m, s, g, E = qe._check(N, m, s, g, E, "bc.a1_epsilon")
    sigma = float(NOISE.check("sigma", sigma))
    delta = float(DELTA.check("delta", delta))
    eps_a1 = float(mixture.a1_epsilon(delta, sampling, N, m, s, g, E, sigma))
    T = E * (N // (m * s))
    if sampling == "shuffling":
        return Report(sampling, N, m, s, g, E, sigma, delta, T, eps_a1, None, None, None, None, _NO_A0_SHUFFLING)
    if g != 1:
        return Report(sampling, N, m, s, g, E, sigma, delta, T, eps_a1, None, None, None, None, _NO_A0_GROUP)
    from dpspec.fast import Accountant  # lazy: the accountant pulls in the PLD machinery

    q = m * s / N
    acc = Accountant()
    acc.sgm(q=q, sigma=sigma, steps=T)
    lo, hi = acc.epsilon_interval(delta)
    return Report(sampling, N, m, s, g, E, sigma, delta, T, eps_a1, float(hi), (float(lo), float(hi)), q, sigma,
                  _A0_NOTE)


__all__ = ["Report", "report"]
