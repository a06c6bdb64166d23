"""What the audit compares accountants with on the reference side (mpmath, no float arithmetic in the values):

* ``rdp(alpha, q, sigma)`` — the exact RDP of one step of the Poisson-subsampled Gaussian (both directions, the
  max), from the catalogue entry ``base.sgm_rdp`` when it is registered; at integer orders the closed form below
  is used otherwise (and cross-checked against the entry in the tests).
* ``log_a_int(alpha, q, sigma)`` — the integer-order moment A_α = E_{N(0,σ²)}[((1−q) + q e^{(2o−1)/(2σ²)})^α]
  = Σ_k C(α,k) (1−q)^{α−k} q^k e^{k(k−1)/(2σ²)} (Mironov, Talwar & Zhang 2019, "Rényi DP of the sampled
  Gaussian mechanism", §3.3, integer α), in log space; the remove-direction RDP is log A_α / (α−1). The same
  weights define the exponentially tilted proposal of the Monte Carlo truth (montecarlo.py).
* the two RDP→(ε, δ) conversions the peers use, so that a peer's ε is compared with the reference RDP put through
  the *same* conversion at the *same* orders (differences are then the peer's RDP numerics, not its conversion):
  ``bbghs`` ε = T·ρ(α) + log((α−1)/α) − (log δ + log α)/(α−1) (Balle, Barthe, Gaboardi, Hsu & Sato 2020, Thm 21;
  = Canonne, Kamath & Steinke 2020, Prop. 12), and ``mironov`` ε = T·ρ(α) + log(1/δ)/(α−1) (Mironov 2017, Prop. 3).
"""
from __future__ import annotations

import functools


import mpmath
from mpmath import mp, mpf

CONVERSIONS = ("bbghs", "mironov")
DPS = 30


class ReferenceUnavailable(RuntimeError):
    """The reference value needed is not available (entry not registered, or a fractional order without it)."""


@functools.lru_cache(maxsize=4096)
def log_a_int(alpha: int, q: float, sigma: float) -> mpf:
    """log A_α for integer α ≥ 1 (MTZ19 §3.3), at ``DPS`` digits."""
    if int(alpha) != alpha or alpha < 1:
        raise ValueError(f"alpha={alpha}: integer order ≥ 1 needed")
    with mp.workdps(DPS + 10):
        terms = _log_terms(int(alpha), q, sigma)
        m = max(terms)
        return +(m + mpmath.log(mpmath.fsum(mpmath.exp(t - m) for t in terms)))


def _log_terms(a: int, q: float, sigma: float) -> list:
    """log of C(a,k)(1−q)^{a−k} q^k e^{k(k−1)/(2σ²)}, k = 0..a (0 < q < 1)."""
    if not 0 < q < 1:
        raise ValueError(f"q={q}: the mixture form needs 0 < q < 1")
    q_, s2 = mpf(q), mpf(sigma) ** 2
    return [mpmath.log(mpmath.binomial(a, k)) + (a - k) * mpmath.log1p(-q_) + k * mpmath.log(q_)
            + k * (k - 1) / (2 * s2) for k in range(a + 1)]


def tilt_weights(alpha: int, q: float, sigma: float) -> list[float]:
    """Mixture weights w_k ∝ C(α,k)(1−q)^{α−k} q^k e^{k(k−1)/(2σ²)} (k = 0..α), as floats summing to 1."""
    with mp.workdps(DPS + 10):
        la = log_a_int(int(alpha), q, sigma)
        out = [float(mpmath.exp(t - la)) for t in _log_terms(int(alpha), q, sigma)]
    total = sum(out)
    return [x / total for x in out]


def _catalogue_rdp():
    """The registered ``base.sgm_rdp`` entry, or None."""
    from dpspec.reference import catalogue

    try:
        return catalogue.get("base.sgm_rdp")
    except Exception:  # not registered, or the catalogue failed to load: fall back (the report says which)
        return None


def available() -> bool:
    return _catalogue_rdp() is not None


@functools.lru_cache(maxsize=4096)
def rdp(alpha: float, q: float, sigma: float) -> mpf:
    """Exact per-step RDP ρ(α) of the Poisson-subsampled Gaussian (max over both directions)."""
    entry = _catalogue_rdp()
    if entry is not None:
        params = {"alpha": alpha, "q": q, "sigma": sigma}
        if "direction" in entry.param_names:
            params["direction"] = "max"
        return entry.evaluate(dps=DPS, **params).value
    if float(alpha).is_integer() and alpha >= 2:
        # At integer orders the remove direction D_α(mixture‖N(0,σ²)) = log A_α/(α−1) is the larger one (MTZ19 §3.3).
        with mp.workdps(DPS):
            return +(log_a_int(int(alpha), q, sigma) / (int(alpha) - 1))
    raise ReferenceUnavailable(f"base.sgm_rdp is not registered; no reference at fractional order α={alpha}")


def epsilon(rho_total: mpf, alpha: float, delta: float, conversion: str) -> mpf:
    """ε at δ from a total RDP value ρ at order α, by the named conversion (module docstring), floored at 0
    (a negative value of the formula means that (0, δ) holds; ε is never reported negative)."""
    with mp.workdps(DPS):
        a, d, r = mpf(alpha), mpf(delta), mpf(rho_total)
        if conversion == "bbghs":
            e = r + mpmath.log((a - 1) / a) - (mpmath.log(d) + mpmath.log(a)) / (a - 1)
        elif conversion == "mironov":
            e = r + mpmath.log(1 / d) / (a - 1)
        else:
            raise ValueError(f"conversion={conversion!r} not in {CONVERSIONS}")
        return max(e, mpf(0))



def optimal_epsilon(q: float, sigma: float, steps: int, delta: float) -> float | None:
    """The reference RDP-derived ε with α optimised (``base.rdp_to_dp``), when that entry is registered."""
    from dpspec.reference import catalogue

    try:
        st = catalogue.get("base.rdp_to_dp")
        curve = catalogue.curve("base.sgm_rdp", q=q, sigma=sigma)
    except Exception:  # not registered, or the catalogue failed to load
        return None
    params = {"curve": curve, "delta": delta}
    if "steps" in st.param_names:
        params["steps"] = steps
    value = st.evaluate(dps=20, **params).value
    return float(value[0] if isinstance(value, tuple) else value)


@functools.lru_cache(maxsize=1024)
def log_z_add(lam: float, q: float, sigma: float) -> mpf:
    """log Z_λ, Z_λ = E_{o~N(0,σ²)}[(1 − q + q e^{(2o−1)/(2σ²)})^{−λ}] = exp(λ·D_{λ+1}(N(0,σ²) ‖ mixture)), the
    add-direction Rényi moment, by mpmath quadrature on a split real line; computed at two precisions and
    returned only if they agree to 12 digits (the value only enters a bound constant)."""
    if not (0 < q < 1 and lam > 0 and sigma > 0):
        raise ValueError(f"log_z_add needs 0 < q < 1, λ > 0, σ > 0 (got q={q}, λ={lam}, σ={sigma})")

    def at(dps: int) -> mpf:
        with mp.workdps(dps):
            q_, s, l_ = mpf(q), mpf(sigma), mpf(lam)
            lq, l1q = mpmath.log(q_), mpmath.log1p(-q_)

            def f(o):
                h = l1q + mpmath.log1p(mpmath.exp(lq - l1q + (2 * o - 1) / (2 * s * s)))
                return mpmath.exp(-o * o / (2 * s * s) - l_ * h) / (s * mpmath.sqrt(2 * mpmath.pi))

            pts = [-mpmath.inf] + [k * s for k in (-40, -10, -4, -1, 0, 1, 4, 10, 40)] + [mpmath.inf]
            return mpmath.log(mpmath.quad(f, pts))

    low, high = at(DPS), at(DPS + 15)
    if abs(low - high) > mpf(10) ** -12 * max(1, abs(high)):
        raise ArithmeticError(f"log_z_add: quadrature at two precisions disagrees ({low} vs {high})")
    return high
