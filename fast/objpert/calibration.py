"""Accounting and calibration of Algorithm 7 (approximate minima perturbation with gradient clipping) on the torch
fast path (float64): seed 003 Thm 4.4.1 (RDP), Thm C.4.1 / Lemma C.4.6 (the dominating pair, corrected: erratum
objpert.E4_3) and Sec. 4.5 (the (σ, λ) calibration rule, lines 3890–3925); notes shared/notes/objpert-rdp.md §4 A2,
A4, A7, §5.2 I, §6 E4_22.

* :func:`amp_epsilon` — ε(δ) of ``count`` runs of Algorithm 7 by BOTH routes, the smaller reported as ``eps``:
  the RDP route (Thm 4.4.1 composed additively, BBG+20 Thm 21 / CKS20 Prop. 12 conversion with the continuous order
  search: ``Accountant(method="rdp")``) and the tight route (the privacy loss distribution of Algorithm 7's
  dominating pair — the Lemma C.4.6 pair with L := C times N(2τ/λ, σ_out²) vs N(0, σ_out²), fast/objpert/pairs.py
  ``amp_pair`` — composed by the PLD accountant, ``Accountant()``: its CERTIFIED upper end). Both are valid upper
  bounds, so their minimum is.
* :func:`amp_calibrate` — (σ, λ) for a target (ε, δ) by the Sec. 4.5 rule as the notes reconstruct it (A4, from the
  authors' ``calibrate_amp``): σ_G = L·σ_analytic(ε, δ) (fast.base.gaussian.gaussian_sigma, Balle & Wang 2018);
  λ starts at max(2β/ε, 1.05β) (the code's 2β/ε is below β for ε > 2: erratum E4_22) and grows ×1.05; at each λ,
  σ(λ) is the smallest σ whose Thm 4.4.1 curve converts to (ε, δ)-DP; the first λ with σ(λ) ≤ f·σ_G is returned with
  σ(λ). ``method="rdp"`` (the thesis' conversion; the reference ``objpert.amp_calibration``,
  reference/objpert/amp.py ``amp_calibrate``, within ~1e-6 relative) or ``method="pld"`` (σ(λ) and the λ step
  decided by the certified PLD upper end instead: a smaller σ and λ for the same (ε, δ); tens of PLD compositions,
  seconds to about a minute).

σ(λ) is non-increasing in λ (a = −log(1 − β/λ) and the τ-term 2τ²α/(σ_out²λ²) decrease, Thm 4.4.1), and σ(λ) ≤
f·σ_G iff the curve at σ = f·σ_G converts to ≤ ε, so the λ step is the first k where ONE conversion at σ = f·σ_G is
≤ ε (all k evaluated at once, in chunks), and σ(λ) is then found by a vectorised bracketing in log σ.
"""
from __future__ import annotations

import math

import torch

from dpspec.reference.errors import ConditionError, DomainError, ParameterError, PrecisionError
from dpspec.reference.objpert import spec

from .._torch import DTYPE
from ..conversion import bbg_objective, minimise_over_orders
from .amp import amp_rdp

MECHANISM = "objpert.thm4_4_1"
LAMBDA_GROWTH = 1.05  # Sec. 4.5 / calibrate_amp (notes §4 A4)
F_FACTOR = 1.3  # Sec. 4.5: σ ≤ f·σ_G with f = 1.3
MAX_LAMBDA_STEPS = 5000  # as the reference (1.05^5000 ≈ e^244): beyond, calibration_feasible fails
_CHUNK = 256  # λ steps evaluated at once
_BRACKET_POINTS = 33  # σ points per bracketing round (each round narrows log σ by 32×)
_BRACKET_ROUNDS = 7  # → 32^-7 ≈ 3e-11 of the first bracket's width in log σ


def _number(name, v, lo=0.0, lo_open=True, hi=math.inf):
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) \
            or not ((v > lo) if lo_open else (v >= lo)) or not v < hi:
        raise DomainError(name, v, f"{'(' if lo_open else '['}{lo:g}, {hi:g})")
    return float(v)


def _accountant(count, sigma, sigma_out, lam, beta, C, tau, **kwargs):
    from ..accountant import Accountant

    return Accountant(**kwargs).compose(MECHANISM, count=count, sigma=sigma, sigma_out=sigma_out, lam=lam,
                                        beta=beta, C=C, tau=tau)


def amp_epsilon(delta, sigma, sigma_out, lam, beta, C, tau, count: int = 1, pld: bool = True,
                eps_width: float | None = None) -> dict:
    """ε(δ) of ``count`` runs of Algorithm 7 (seed 003 Thm 4.4.1; add/remove neighbours, both directions) by the RDP
    route and, with ``pld``, the tight route (module docstring). Returns {"eps": the smaller valid upper bound,
    "method": "rdp" or "pld" (which gave it), "rdp": the RDP ε, "pld": (certified lower, certified upper) or None}.
    ``eps_width``: the PLD interval's target width (the accountant's default 5e-4 when None). Needs λ > β
    (ConditionError lambda_above_beta, from the accountant's table entry)."""
    delta = _number("delta", delta, 0.0, True, 1.0)
    eps_rdp = float(_accountant(count, sigma, sigma_out, lam, beta, C, tau, method="rdp").get_epsilon(delta))
    out = {"eps": eps_rdp, "method": "rdp", "rdp": eps_rdp, "pld": None}
    if pld:
        kw = {} if eps_width is None else {"eps_width": eps_width}
        lo, hi = _accountant(count, sigma, sigma_out, lam, beta, C, tau, **kw).epsilon_interval(delta)
        out["pld"] = (float(lo), float(hi))
        if hi < eps_rdp:
            out["eps"], out["method"] = float(hi), "pld"
    return out


# ---------------------------------------------------------------------------------------------------------------
# the RDP route, vectorised: ε(σ, λ) for many (σ, λ) at once


def rdp_epsilon(sigma, lam, delta, beta, C, tau, sigma_out) -> torch.Tensor:
    """ε(δ) of ONE run of Algorithm 7 by the RDP route (Thm 4.4.1, BBG+20 / CKS20 conversion, continuous order search
    of fast/conversion.py: the value at the order found, a valid bound), elementwise over broadcast ``sigma``, ``lam``
    tensors (σ = inf allowed: the λ-only limit a + 2τ²α/(σ_out²λ²)); ≥ 0."""
    sigma = torch.as_tensor(sigma, dtype=DTYPE)
    lam = torch.as_tensor(lam, dtype=DTYPE)
    sigma, lam = torch.broadcast_tensors(sigma, lam)
    d = torch.tensor(float(delta), dtype=DTYPE)
    finite = torch.isfinite(sigma)
    s = torch.where(finite, sigma, torch.full_like(sigma, 1e300))  # σ = 1e300: C/σ underflows to the limit curve

    def objective(alpha):
        rdp = amp_rdp(alpha, s.unsqueeze(-1), sigma_out, lam.unsqueeze(-1), beta, C, tau)
        return bbg_objective(rdp, alpha, d)

    value, _ = minimise_over_orders(objective, tuple(s.shape), s)
    return torch.clamp(value, min=0.0)


def _first_step(accepted_at, lam0) -> int | None:
    """The first k in [0, MAX_LAMBDA_STEPS] with accepted_at(λ0·1.05^k) (vectorised over chunks of k)."""
    for start in range(0, MAX_LAMBDA_STEPS + 1, _CHUNK):
        ks = torch.arange(start, min(start + _CHUNK, MAX_LAMBDA_STEPS + 1), dtype=DTYPE)
        ok = accepted_at(lam0 * LAMBDA_GROWTH ** ks)
        if bool(ok.any()):
            return start + int(torch.nonzero(ok)[0])
    return None


def _sigma_rdp(eps, delta, lam, beta, L, tau, sigma_out, hi) -> float:
    """The smallest σ ≤ ``hi`` with rdp_epsilon(σ, λ) ≤ ε (``hi`` is accepted): bracketing in log σ."""
    t_hi = math.log(hi)
    t_lo = t_hi - 1.0
    while bool(rdp_epsilon(math.exp(t_lo), lam, delta, beta, L, tau, sigma_out) <= eps):
        t_hi, t_lo = t_lo, t_lo - 2 * (t_hi - t_lo)
        if t_lo < -700:
            raise PrecisionError("amp_calibrate: no σ > e^-700 fails the target ε")
    for _ in range(_BRACKET_ROUNDS):
        ts = torch.linspace(t_lo, t_hi, _BRACKET_POINTS, dtype=DTYPE)
        ok = rdp_epsilon(torch.exp(ts), lam, delta, beta, L, tau, sigma_out) <= eps
        j = int(torch.nonzero(ok)[0])  # ok[-1] holds (t_hi accepted); ok[0] fails
        if j == 0:
            raise PrecisionError("amp_calibrate: ε(σ) is not monotone in σ on the bracket")
        t_lo, t_hi = float(ts[j - 1]), float(ts[j])
    return math.exp(t_hi)


def _pld_eps(sigma, lam, delta, beta, L, tau, sigma_out, eps_width) -> float:
    if not math.isfinite(sigma):
        sigma = 1e300
    kw = {} if eps_width is None else {"eps_width": eps_width}
    return float(_accountant(1, sigma, sigma_out, lam, beta, L, tau, **kw).epsilon_interval(delta)[1])


def _calibrate_pld(eps, delta, L, beta, tau, sigma_out, target, lam0, k_rdp, sigma_rdp, rtol, eps_width):
    """The PLD version of the rule: the first k ≤ k_rdp accepted by the certified PLD upper ε at σ = f·σ_G (binary
    search: acceptance is monotone in k), then σ by bisection in log σ to ``rtol``."""
    lam_of = lambda k: lam0 * LAMBDA_GROWTH ** k  # noqa: E731
    ok = lambda k: _pld_eps(target, lam_of(k), delta, beta, L, tau, sigma_out, eps_width) <= eps  # noqa: E731
    hi_k = k_rdp
    while not ok(hi_k):  # the certified PLD upper end may exceed the RDP ε only by its lattice error
        hi_k += 1
        if hi_k > MAX_LAMBDA_STEPS:
            raise ConditionError("objpert.amp_calibration", [spec.AMP_CALIBRATION_FEASIBLE.describe()])
    lo_k = -1  # not accepted (virtual)
    while hi_k - lo_k > 1:
        mid = (lo_k + hi_k) // 2
        lo_k, hi_k = (lo_k, mid) if ok(mid) else (mid, hi_k)
    lam = lam_of(hi_k)
    acc = lambda s: _pld_eps(s, lam, delta, beta, L, tau, sigma_out, eps_width) <= eps  # noqa: E731
    s_hi = min(target, sigma_rdp) if hi_k == k_rdp else target  # both accepted under PLD when PLD ≤ RDP
    if not acc(s_hi):
        s_hi = target
    s_lo = s_hi / 2
    while acc(s_lo):
        s_hi, s_lo = s_lo, s_lo / 2
    while s_hi / s_lo - 1 > rtol:
        mid = math.sqrt(s_lo * s_hi)
        s_lo, s_hi = (s_lo, mid) if acc(mid) else (mid, s_hi)
    return s_hi, lam


def amp_calibrate(eps, delta, L, beta, tau, sigma_out, f: float = F_FACTOR, method: str = "rdp",
                  rtol: float = 1e-3, eps_width: float | None = None) -> tuple[float, float]:
    """(σ, λ) for (ε, δ)-DP Algorithm 7 (seed 003 Sec. 4.5; notes §4 A4; module docstring): L is the clip norm C
    (Thm C.6.3), β the smoothness sup f''·max‖x‖², τ the gradient-norm threshold and σ_out the output noise. With
    ``method="rdp"`` the reference objpert.amp_calibration's rule in float64 (σ to ~1e-9 relative of the order
    search's ε); with ``method="pld"`` the same rule under the certified PLD ε (σ to ``rtol``, an upper end: the ε at
    the returned σ is certified ≤ target). Refusals as the reference: β > 0 (calibration_beta_positive) and a λ step
    within MAX_LAMBDA_STEPS (calibration_feasible)."""
    eps = _number("eps", eps, 0.0, True, 50.0 + 1e-12)
    delta = _number("delta", delta, 0.0, True, 1.0)
    L = _number("L", L)
    beta = _number("beta", beta, 0.0, False)
    tau = _number("tau", tau, 0.0, False)
    sigma_out = _number("sigma_out", sigma_out)
    f = _number("f", f, 1.0, False)
    if method not in ("rdp", "pld"):
        raise ParameterError(f"method: expected 'rdp' or 'pld', got {method!r}")
    if not beta > 0:
        raise ConditionError("objpert.amp_calibration", [spec.CALIBRATION_BETA_POSITIVE.describe()])
    from ..base.gaussian import gaussian_sigma

    sigma_g = L * float(gaussian_sigma(eps, delta))
    target = f * sigma_g
    lam0 = max(2 * beta / eps, 1.05 * beta)  # erratum E4_22: the code's 2β/ε alone is < β for ε > 2

    def accepted_at(lams):
        return rdp_epsilon(torch.full_like(lams, target), lams, delta, beta, L, tau, sigma_out) <= eps

    # σ_∞ ≥ f·σ_G (even λ → ∞ — a → 0, the τ-term → 0 — misses ε at σ = f·σ_G): no step can succeed
    if not bool(accepted_at(torch.tensor([1e300], dtype=DTYPE))):
        raise ConditionError("objpert.amp_calibration", [spec.AMP_CALIBRATION_FEASIBLE.describe()])
    k = _first_step(accepted_at, lam0)
    if k is None:
        raise ConditionError("objpert.amp_calibration", [spec.AMP_CALIBRATION_FEASIBLE.describe()])
    lam = lam0 * LAMBDA_GROWTH ** k
    sigma = _sigma_rdp(eps, delta, lam, beta, L, tau, sigma_out, target)
    if method == "rdp":
        return sigma, lam
    return _calibrate_pld(eps, delta, L, beta, tau, sigma_out, target, lam0, k, sigma, float(rtol), eps_width)
