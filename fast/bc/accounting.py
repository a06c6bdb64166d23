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



# ---------------------------------------------------------------------------------------------------------------
# An Opacus-style accountant for Algorithm 1 runs (issue 15, "accountant support for A1 runs next to A0")

_PARTIAL = ("{T} rounds are {full} full epochs and {rest} rounds of the next; A1 is accounted at {E} epochs (q_E is "
            "defined per epoch, Def. 4.1; a partial epoch's c² is at most a full one's under the natural coupling, so "
            "this is an upper bound)")


class BatchClippingAccountant:
    """Records the rounds of one Algorithm 1 run (seed 002, arXiv 2212.05796) and answers ε at δ under the paper's
    A1 adversary (exact Def. 4.2 mixture, Thm 4.6) and, where the standard analysis exists, under A0
    (``dpspec.fast.Accountant``; see :func:`report`), in the style of Opacus' accountants::

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
        from dpspec.fast import Accountant  # A0 composes exactly the rounds taken

        acc = Accountant()
        acc.sgm(q=full.a0_sample_rate, sigma=self.sigma, steps=self.rounds)
        lo, hi = acc.epsilon_interval(full.delta)
        return replace(full, rounds=self.rounds, eps_a0=float(hi), eps_a0_interval=(float(lo), float(hi)),
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
