"""Both accountings of an Algorithm 1 run of seed 002, side by side: the exact A1 ε (Def. 4.2 mixture, the paper's
guarantee, Thm 4.6) and — where the standard (A0) analysis exists — the tight A0 ε of DP-SGD from
``dpspec.fast.Accountant`` (privacy loss distributions, certified interval), "so a user sees both numbers" (issue 15).

Units. The paper's round adds N(0, (2Cσ)² I) to a sum of subset results clipped to C, and its neighbours are
replace-one (seed 002, §4, D.4): one differentiating subset moves the sum by at most 2C, so one round is the Gaussian
mechanism with sensitivity 2C and noise 2Cσ, i.e. G_{1/σ} (seed 002 A.1). Algorithm 1 with subsampling draws EXACTLY
sm samples per round, without replacement, so its A0 object is C_γ(G_{1/σ})^{⊗T} with γ = sm/N (Dong, Roth & Su 2022,
arXiv 1905.02383, Thm 4.2 for sampling without replacement under replace-one, Thm 5.1 for DP-SGD; the witness
``bc.a0_round`` defines the round so). The accountant has it as mechanism ``base.sgm_wor_rdp`` (reference/base/
subsampling_wor.py, fast/base/pld_pairs_wor.py ``wor_pairs``): a batch of m of n records, per-record norm ≤ 1 so a
replacement moves the sum by ≤ 2, noise σ_wor, i.e. μ = 2/σ_wor. Seed 002's round (μ = 1/σ) is therefore
``Accountant().compose("base.sgm_wor_rdp", count=T, m=s*m, n=N, sigma=2*σ)``; T = E·N/(ms) rounds (a partial epoch:
exactly the rounds taken). The tight (PLD) accountant composes it through ONE symmetric pair whose trade-off function
is C_γ(f) = min{f_γ, f_γ^{-1}}** (the order of the pair may change from round to round under composition; Lebeda,
Regehr, Kamath & Steinke 2024, arXiv 2405.20769), which is sound by Dong–Roth–Su Thm 4.2, and answers a certified
interval. At σ = 2, E = 100, N = 50000 it gives [3.8353, 3.8356] (sm = 1024, T = 4883) and [1.7642, 1.7646]
(sm = 256, T = 19531), inside notes §5.6's C_p bracket ([3.8307, 3.8404], [1.7557, 1.7733];
tests/bc/test_bc_fast.py).
Caveats, in the result's ``a0_note``:

* the Poisson-subsampled add/remove number (the f_p pair of notes §3.3 at q = sm/N, noise multiplier σ: 3.2529 and
  1.4860 at the two settings above, ~18 % lower) is NOT a guarantee for this algorithm: it describes a different
  sampler and a different neighbouring relation, and is not reported;
* only g = 1 (group privacy of A0 is not analysed by the paper, notes §3.4) and only subsampling: shuffling has
  no A0 analysis in the text (notes §3.4, "A0 for shuffling (never analysed)") — none is invented here; ``eps_a0``
  is None there and the note says why.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

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
    rounds: int  # T = E·N/(ms) (BatchClippingAccountant: the rounds recorded)
    eps_a1: float  # exact A1 mixture (seed 002 Def. 4.2 / Thm 4.6)
    eps_a0: float | None  # certified upper end of the A0 interval (None where no A0 analysis exists)
    eps_a0_interval: tuple[float, float] | None
    a0_sample_rate: float | None  # γ = sm/N (exactly sm of N per round, without replacement)
    a0_noise_multiplier: float | None  # 2σ: base.sgm_wor_rdp's σ (shift 2 per replacement; μ = 2/(2σ) = 1/σ)
    a0_note: str

    def __str__(self) -> str:
        a0 = f"{self.eps_a0:.6g}" if self.eps_a0 is not None else "n/a"
        return (f"{self.sampling} N={self.N} m={self.m} s={self.s} g={self.g} E={self.E} σ={self.sigma:g} "
                f"δ={self.delta:g}: ε_A1 = {self.eps_a1:.6g}, ε_A0 = {a0} ({self.a0_note})")


_A0_NOTE = ("A0: C_γ(G_{1/σ})^{⊗T}, fixed-size batches of sm of N without replacement (γ = sm/N), replace-one "
            "neighbours (Dong–Roth–Su Thm 4.2/5.1): the accountant's base.sgm_wor_rdp with m = sm, n = N, noise 2σ, "
            "T rounds, composed through the symmetric pair C_γ(f) (sound, Thm 4.2), tight PLD accountant (certified "
            "interval); the Poisson add/remove number at q = sm/N is NOT a guarantee for this algorithm")
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
    lo, hi = _a0_interval(m * s, N, sigma, T, delta)
    return Report(sampling, N, m, s, g, E, sigma, delta, T, eps_a1, hi, (lo, hi), m * s / N, 2 * sigma, _A0_NOTE)


def _a0_interval(sm: int, N: int, sigma: float, rounds: int, delta: float) -> tuple[float, float]:
    """Certified (lower, upper) A0 ε at δ of ``rounds`` rounds of seed 002's Algorithm 1 with subsampling, g = 1:
    C_{sm/N}(G_{1/σ})^{⊗T} (Dong–Roth–Su, arXiv 1905.02383, Thm 4.2/5.1) as the accountant's ``base.sgm_wor_rdp``
    (m = sm of n = N without replacement, noise 2σ: shift 2, μ = 1/σ), tight PLD method (module docstring)."""
    from dpspec.fast import Accountant  # lazy: the accountant pulls in the PLD machinery

    acc = Accountant()
    acc.compose("base.sgm_wor_rdp", count=int(rounds), m=int(sm), n=int(N), sigma=2 * float(sigma))
    lo, hi = acc.epsilon_interval(delta)
    return float(lo), float(hi)


# ---------------------------------------------------------------------------------------------------------------
# An Opacus-style accountant for Algorithm 1 runs (issue 15, "accountant support for A1 runs next to A0")

_PARTIAL = ("{T} rounds are {full} full epochs and {rest} rounds of the next; A1 is accounted at {E} epochs (q_E is "
            "defined per epoch, Def. 4.1; a partial epoch's c² is at most a full one's under the natural coupling, so "
            "this is an upper bound)")


class BatchClippingAccountant:
    """Records the rounds of one Algorithm 1 run (seed 002, arXiv 2212.05796) and answers ε at δ under the paper's
    A1 adversary (exact Def. 4.2 mixture, Thm 4.6) and, where the standard analysis exists, under A0
    (C_γ(G_{1/σ})^{⊗T} through ``dpspec.fast.Accountant``; see :func:`report`), in the style of Opacus' accountants::

        acc = BatchClippingAccountant("subsampling", N=60000, m=64, s=4, g=1, sigma=2.0)
        for epoch in range(E):
            for batch in loader:  # N/(ms) rounds per epoch
                ...; acc.step()
        acc.get_epsilon(1e-5)          # the A1 ε (a float)
        acc.epsilon_report(1e-5)       # A1 and A0 side by side (a Report; eps_a0 None with the reason for shuffling)

    The run's parameters are checked at construction with the statements' words (DomainError, ConditionError);
    recording is O(1) per call. A1 needs whole epochs (q_E, Def. 4.1): a partial last epoch is accounted as a whole
    one (an upper bound, said in the report's note); A0 composes exactly the rounds taken."""

    def __init__(self, sampling, N, m, s, g, sigma):
        spec.SAMPLING.check("sampling", sampling)
        self.sampling = sampling
        self.N, self.m, self.s, self.g, _ = qe._check(N, m, s, g, 1, "bc.a1_epsilon")
        self.sigma = float(NOISE.check("sigma", sigma))
        self.rounds_per_epoch = self.N // (self.m * self.s)
        self.rounds = 0

    def step(self, rounds: int = 1) -> "BatchClippingAccountant":
        """Record ``rounds`` rounds of Algorithm 1 (one batch of m subsets of s samples each)."""
        rounds = int(rounds)
        if rounds < 0:
            raise ValueError(f"rounds = {rounds}: a run cannot take back rounds")
        self.rounds += rounds
        return self

    def epoch(self, epochs: int = 1) -> "BatchClippingAccountant":
        """Record ``epochs`` whole epochs (N/(ms) rounds each)."""
        return self.step(int(epochs) * self.rounds_per_epoch)

    @property
    def epochs(self) -> int:
        """The epochs A1 accounts: ⌈rounds / (N/(ms))⌉."""
        return -(-self.rounds // self.rounds_per_epoch)

    def get_epsilon(self, delta) -> float:
        """The A1 ε at δ of the rounds recorded so far (0.0 before the first round)."""
        delta = float(DELTA.check("delta", delta))
        if self.rounds == 0:
            return 0.0
        return float(mixture.a1_epsilon(delta, self.sampling, self.N, self.m, self.s, self.g, self.epochs,
                                        self.sigma))

    def epsilon_report(self, delta) -> Report:
        """A1 and A0 ε at δ side by side (:class:`Report`; A0 only for subsampling with g = 1, otherwise ``eps_a0``
        is None and ``a0_note`` says why — never a number without an analysis)."""
        if self.rounds == 0:
            raise ValueError("no round recorded yet: step() or epoch() first")
        full = report(self.sampling, self.N, self.m, self.s, self.g, self.epochs, self.sigma, delta)
        if self.rounds == full.rounds:
            return full
        note = _PARTIAL.format(T=self.rounds, full=self.rounds // self.rounds_per_epoch,
                               rest=self.rounds % self.rounds_per_epoch, E=self.epochs)
        if full.eps_a0 is None:
            return replace(full, rounds=self.rounds, a0_note=f"{full.a0_note}; {note}")
        lo, hi = _a0_interval(self.m * self.s, self.N, self.sigma, self.rounds, full.delta)  # exactly the rounds taken
        return replace(full, rounds=self.rounds, eps_a0=hi, eps_a0_interval=(lo, hi),
                       a0_note=f"{full.a0_note}; {note}")

    def state_dict(self) -> dict:
        return {"sampling": self.sampling, "N": self.N, "m": self.m, "s": self.s, "g": self.g, "sigma": self.sigma,
                "rounds": self.rounds}

    def load_state_dict(self, state: dict) -> None:
        other = BatchClippingAccountant(state["sampling"], state["N"], state["m"], state["s"], state["g"],
                                        state["sigma"])
        self.__dict__.update(other.__dict__)
        self.step(int(state["rounds"]))


__all__ = ["BatchClippingAccountant", "Report", "report"]
