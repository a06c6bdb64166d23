"""The fixed matrix of accountant-audit settings: DP-SGD with Poisson subsampling (rate q), Gaussian noise σ
(relative to the ℓ2 sensitivity), T steps, add/remove neighbours, and a target δ.

Every number below comes from /work/shared/notes/peer-accountants.md (table §1.1, vectors §1.5, bugs §1.6):
the headline setting of the notes, published test vectors, and the stress points at which the known float-library
failures B1–B3 and B5–B9 show up (or are shown gone: each note says what the installed versions — opacus 1.6.0,
dp-accounting 0.6.0, prv-accountant 0.2.0, autodp 0.2.3.1 — did there when it was measured).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MECHANISMS = ("sgm",)  # Poisson-subsampled Gaussian (the only mechanism every peer accounts for)


@dataclass(frozen=True)
class Setting:
    """One audit point. ``orders`` (optional) is a custom Rényi-order grid handed to the RDP accountants, as a user
    would; ``check_orders`` are extra orders at which claimed RDP values are compared with the reference;
    ``mc`` says whether the Monte Carlo truth is attempted (a stress point far from any δ we can estimate says no)."""

    name: str
    q: float
    sigma: float
    steps: int
    delta: float
    mechanism: str = "sgm"
    orders: tuple[float, ...] | None = None
    check_orders: tuple[float, ...] = ()
    mc: bool = True
    note: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    def __post_init__(self):
        """Every field checked against its domain, naming the field (a ``DomainError``, a ``ValueError``): NaN and
        ±inf are refused everywhere (σ = ∞ sent Opacus' fractional-order series into an endless loop)."""
        from dpspec.reference.domains import DELTA, NOISE, SAMPLING_RATE, STEPS, Choice, Real
        from dpspec.reference.errors import DomainError

        Choice(MECHANISMS).check("mechanism", self.mechanism)
        SAMPLING_RATE.check("q", self.q)
        NOISE.check("sigma", self.sigma)
        if isinstance(self.steps, bool):
            raise DomainError("steps", self.steps, STEPS.describe())
        STEPS.check("steps", self.steps)
        DELTA.check("delta", self.delta)
        order = Real(1, float("inf"), lo_open=True)
        for field_name in ("orders", "check_orders"):
            for a in getattr(self, field_name) or ():
                order.check(field_name, a)

    def describe(self) -> str:
        s = f"q={self.q:g}, σ={self.sigma:g}, T={self.steps}, δ={self.delta:g}"
        return s + (f", orders={list(self.orders)}" if self.orders else "")

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "mechanism": self.mechanism, "q": self.q, "sigma": self.sigma,
                "steps": self.steps, "delta": self.delta, "orders": list(self.orders) if self.orders else None,
                "neighbouring": "add_remove", "sampling": "poisson", "sensitivity": 1.0, "note": self.note}


SETTINGS: tuple[Setting, ...] = (
    # notes §1.1 (and V12): tight ε ≈ 6.1877 (PLD/PRV), RDP 6.7127 at α = 4.1, GDP-CLT 6.0071 (under-reports).
    Setting("headline", q=0.01, sigma=1.0, steps=10_000, delta=1e-5,
            note="notes §1.1 headline setting (DP-SGD, 100 epochs at q = 0.01)", tags=("headline",)),
    # notes §1.5 V3: Opacus' own test vector (RDP 7.32911117143 at T = 2250; GDP ∈ (6.59, 6.60)).
    Setting("opacus_v3", q=0.04, sigma=1.5, steps=2250, delta=1e-5, note="notes §1.5 V3 (Opacus tests)"),
    # notes §1.5 V1: Abadi et al. 2016 MNIST setting.
    Setting("abadi_v1", q=0.01, sigma=4.0, steps=10_000, delta=1e-5, note="notes §1.5 V1 (Abadi et al. 2016)"),
    # notes §1.6 B9: the worst GDP-CLT under-report found, 3.53 vs tight 4.98.
    Setting("gdp_worst_b9", q=0.2, sigma=1.0, steps=10, delta=1e-5, note="notes §1.6 B9 (CLT far from tight)"),
    # notes §1.6 B3: dp-accounting's absolute-value fractional series inflates ε (173.06 vs Opacus 147.06 vs
    # PLD 140.64); RDP at α ∈ {1.1, 1.25} is loose or ∞. δ = 1e-6 at ε ≈ 140 is out of Monte Carlo reach.
    Setting("high_eps_b3", q=0.05, sigma=0.8, steps=20_000, delta=1e-6, check_orders=(1.1, 1.25, 1.5),
            mc=False, note="notes §1.6 B3 (small fractional orders, high ε)"),
    # notes §1.6 B1 / §1.5 V7: a user grid of fractional orders near 59 at q = 0.4, σ = 12, where the float
    # series of Opacus returns log A ≈ −30 (negative RDP) instead of +2.10.
    Setting("frac_orders_b1", q=0.4, sigma=12.0, steps=100, delta=1e-5, orders=(58.5, 58.9, 59.05, 59.3, 60.5),
            mc=False, note="notes §1.6 B1 / §1.5 V7 (custom fractional orders)"),
    # notes §1.6 B2: α ≳ 1030 overflows the float binomial of Opacus' integer-order series (RDP = NaN).
    Setting("large_order_b2", q=0.01, sigma=1.0, steps=10_000, delta=1e-5, orders=(2.0, 4.0, 8.0, 1100.0),
            mc=False, note="notes §1.6 B2 (integer order 1100)"),
    # notes §1.6 B8: δ = 0.5 makes Opacus' RDP and PRV accountants return a negative ε.
    Setting("large_delta_b8", q=0.01, sigma=1.0, steps=10, delta=0.5, mc=False,
            note="notes §1.6 B8 (negative ε at large δ)"),
    # notes §1.6 B8, second half: a tiny GDP μ = q√(T(e^{1/σ²}−1)) ≈ 1e-5 makes Opacus' GaussianAccountant raise
    # "f(a) and f(b) must have different signs" (brentq bracket [0, 500]); the tight ε is ≈ 0.
    Setting("gdp_tiny_mu_b8", q=1e-4, sigma=10.0, steps=1, delta=1e-5, mc=False,
            note="notes §1.6 B8 (GDP brentq bracket error at tiny μ)"),
    # notes §1.6 B5/B6 (prv_accountant#42, opacus#601/#604): "Discrete mean differs from continuous mean
    # significantly" at large ε. Measured: prv_accountant 0.2.0 still raises here (PR #38 unreleased, B6); Opacus
    # 1.6.0's PRV (fixed, PR #606) gives 61.2151, dp-accounting's PLD 61.2 (δ = 1e-5 at ε ≈ 61: no Monte Carlo).
    Setting("large_eps_b5", q=0.2, sigma=1.0, steps=1000, delta=1e-5, mc=False,
            note="notes §1.6 B5/B6 (PRV 'discrete mean differs' at large ε)"),
    # notes §1.6 B7 (prv_accountant#17): at δ ≈ 1.1e-18 the PRV ε jumped (0.056 → 3.8) and eps_lower < 0.
    # Measured: both PRV accountants now refuse ("Floating point errors will dominate for such small values of
    # delta", a guard; Opacus' from δ ≤ 1e-14 here), and dp-accounting's PLD returns ε = ∞ (from δ ≤ 1e-15).
    Setting("tiny_delta_b7", q=0.00033, sigma=4.0, steps=10_000, delta=1.1e-18, mc=False,
            note="notes §1.6 B7 (PRV at δ ≈ 1e-18)"),
)


def get_setting(name: str) -> Setting:
    for s in SETTINGS:
        if s.name == name:
            return s
    raise KeyError(f"unknown setting {name!r}; known: {', '.join(s.name for s in SETTINGS)}")
