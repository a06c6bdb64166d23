"""What the audit compares accountants with on the reference side: the catalogue's own mpmath reference, never a
copy of it (no float arithmetic in the values).

* ``rdp(alpha, q, sigma)`` — the exact RDP of one step of the Poisson-subsampled Gaussian (both directions, the
  max): the catalogue entry ``base.sgm_rdp`` (reference/base/sgm.py), at any real order.
* ``log_a(alpha, q, sigma)`` — log A_α = (α−1)·ρ_remove(α), A_α = E_{N(0,σ²)}[((1−q) + q e^{(2o−1)/(2σ²)})^α]
  (Mironov, Talwar & Zhang 2019, "Rényi DP of the sampled Gaussian mechanism", §3.3; at integer α the exact
  binomial sum Σ_k C(α,k) (1−q)^{α−k} q^k e^{k(k−1)/(2σ²)}): ``base.sgm_rdp`` with ``direction="remove"``.
* ``tilt_weights(alpha, q, sigma)`` — the weights of that binomial sum (``sgm_binomial_log_terms`` of
  reference/base/sgm.py, the recurrence of its own binomial sum), normalised: the exponentially tilted proposal of
  the Monte Carlo truth (montecarlo.py).
* ``log_z_add(lam, q, sigma)`` — log Z_λ, Z_λ = E_{N(0,σ²)}[(1 − q + q e^{(2o−1)/(2σ²)})^{−λ}], the add-direction
  Rényi moment: λ·ρ_add(λ+1) from ``base.sgm_rdp`` with ``direction="add"``.
* the two RDP→(ε, δ) conversions the peers use (reference/base/conversion.py, at one order), so that a peer's ε is
  compared with the reference RDP put through the *same* conversion at the *same* orders (differences are then the
  peer's RDP numerics, not its conversion): ``bbghs`` (``dp_at_order``: Balle, Barthe, Gaboardi, Hsu & Sato 2020,
  Thm 21 = Canonne, Kamath & Steinke 2020, Prop. 12) and ``mironov`` (``dp_at_order_mironov``: Mironov 2017,
  Prop. 3).
* ``optimal_epsilon(q, sigma, steps, delta)`` — ``base.rdp_to_dp`` of the ``base.sgm_rdp`` curve (α optimised).
"""
from __future__ import annotations

import functools

import mpmath
from mpmath import mp, mpf

from dpspec.reference import catalogue
from dpspec.reference.base.conversion import dp_at_order, dp_at_order_mironov
from dpspec.reference.base.sgm import sgm_binomial_log_terms

CONVERSIONS = ("bbghs", "mironov")
_AT_ORDER = {"bbghs": dp_at_order, "mironov": dp_at_order_mironov}
DPS = 30


def _sgm(alpha, q: float, sigma: float, direction: str) -> mpf:
    return catalogue.get("base.sgm_rdp").evaluate(dps=DPS, alpha=alpha, q=q, sigma=sigma, direction=direction).value


@functools.lru_cache(maxsize=4096)
def rdp(alpha: float, q: float, sigma: float) -> mpf:
    """Exact per-step RDP ρ(α) of the Poisson-subsampled Gaussian (max over both directions), ``base.sgm_rdp``."""
    return _sgm(alpha, q, sigma, "max")


@functools.lru_cache(maxsize=4096)
def log_a(alpha: float, q: float, sigma: float) -> mpf:
    """log A_α = (α−1)·ρ_remove(α) (``base.sgm_rdp``, remove direction), at ``DPS`` digits."""
    with mp.workdps(DPS):
        a = mpf(alpha)
        return +((a - 1) * _sgm(alpha, q, sigma, "remove"))


def tilt_weights(alpha: int, q: float, sigma: float) -> list[float]:
    """Mixture weights w_k ∝ C(α,k)(1−q)^{α−k} q^k e^{k(k−1)/(2σ²)} (k = 0..α), as floats summing to 1."""
    with mp.workdps(DPS + 10):
        terms = sgm_binomial_log_terms(int(alpha), q, sigma)
        m = max(terms)
        la = m + mpmath.log(mpmath.fsum(mpmath.exp(t - m) for t in terms))
        out = [float(mpmath.exp(t - la)) for t in terms]
    total = sum(out)
    return [x / total for x in out]


@functools.lru_cache(maxsize=1024)
def log_z_add(lam: float, q: float, sigma: float) -> mpf:
    """log Z_λ = λ·D_{λ+1}(N(0,σ²) ‖ (1−q)N(0,σ²) + qN(1,σ²)) (λ > 0): ``base.sgm_rdp`` in the add direction at
    order λ+1 (its quadrature, self-checked at two precisions)."""
    if not (0 < q < 1 and lam > 0 and sigma > 0):
        raise ValueError(f"log_z_add needs 0 < q < 1, λ > 0, σ > 0 (got q={q}, λ={lam}, σ={sigma})")
    with mp.workdps(DPS):
        l_ = mpf(lam)
        return +(l_ * _sgm(l_ + 1, q, sigma, "add"))


def epsilon(rho_total: mpf, alpha: float, delta: float, conversion: str) -> mpf:
    """ε at δ from a total RDP value ρ at order α, by the named conversion (module docstring), floored at 0
    (a negative value of the formula means that (0, δ) holds; ε is never reported negative)."""
    if conversion not in _AT_ORDER:
        raise ValueError(f"conversion={conversion!r} not in {CONVERSIONS}")
    with mp.workdps(DPS):
        return max(_AT_ORDER[conversion](mpf(rho_total), mpf(alpha), mpf(delta)), mpf(0))


def optimal_epsilon(q: float, sigma: float, steps: int, delta: float) -> float:
    """The reference RDP-derived ε with α optimised: ``base.rdp_to_dp`` of the ``base.sgm_rdp`` curve."""
    curve = catalogue.curve("base.sgm_rdp", q=q, sigma=sigma)
    value = catalogue.get("base.rdp_to_dp").evaluate(dps=20, curve=curve, delta=delta, steps=steps).value
    return float(value[0] if isinstance(value, tuple) else value)
