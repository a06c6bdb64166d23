"""The fast accountant of DC-DPSGD (seed 004, arXiv 2405.17529v1: Thm 5.1 L174, Appendix C L897–L1059, Algorithm 1
L187–L206), torch float64 on dpspec's SGM accountant; notes shared/notes/dc-dpsgd.md §2 (T5.1 table), §3.2–§3.4,
§6 E1, E2, E6, §8.

Every sound reading of one DC-DPSGD step (notes §3.4) is a Poisson-subsampled Gaussian with an effective noise
multiplier σ_eff (sensitivity 1 after rescaling), so its T-fold (ε, δ) is CALLED from dpspec.fast.accountant
(``Accountant().sgm(q, σ_eff, T)``, method "pld" — certified interval, the default — or ``sgm_epsilon``, method
"rdp"); nothing here is a new SGM accountant. The mpmath reference of the same quantity is helper B's
``dpspec.reference.dc.readings.reading_epsilon`` (statements dc.reading_a/b/c, dc.sigma_eff).

* :func:`dc_sigma_eff` — σ_eff per reading and noise form (notes §3.2, §3.4; torch, broadcasting):
  σ_gp = σ_dp (single noise N(0, σ_dp²c1²I) on the clipped sum), σ_dp·√(B(p + (1−p)r²)) (Algorithm 1's per-sample
  noise, given the counts n_tail = pB), σ_dp·√(p² + ((1−p)r)²) (the public code's, 0.1345σ_dp at p = r = 0.1, E6),
  r = c2/c1; then (A) top-⌊pB⌋ internal: σ_gp·c1/(2c1 − c2); (B) fixed threshold: σ_gp; (C) the two-component view
  (scores released, same batch, top-⌊pB⌋): ((Δ_tr/σ_tr)² + ((2c1 − c2)/(c1σ_gp))²)^{−1/2} — C's gradient part is
  A's: adding z moves a shared sample tail → body even with the shared scores released (review counterexample;
  the notes' §3.4 (C) Δ_gp = c1 needs a slot model the operator does not implement). With c1 = c2, A = B and C's
  gradient part is B's.
* :func:`dc_epsilon` — ε(δ) of T steps: the CERTIFIED UPPER end of the PLD interval (method "pld", what
  ``Accountant().sgm(q, σ_eff, T).get_epsilon(δ)`` returns) or the RDP bound (method "rdp", ``sgm_epsilon``);
  :func:`dc_epsilon_interval` — the PLD interval (lower, upper) itself.
* :func:`dc_calibrate_sigma` — the σ_dp whose σ_eff is ``calibrate_sigma``'s σ for (target ε, δ, q, T), then
  CERTIFIED by the very call a user makes: σ_dp is stepped up until ``dc_epsilon(σ_dp) ≤ target`` (issue 14: the
  calibration decides on finer lattices than a default query refines, so the default-width ``epsilon_interval``
  upper end could exceed the target by ~1e-4 relative — calibrate_sigma now re-checks the SGM σ itself, commit
  0f24358 —, and the round trip σ_eff* → σ_dp → dc_sigma_eff(σ_dp) is a float computation that need not return
  σ_eff* exactly: the check is on the value the user computes).
* :func:`paper_sigma` (Thm 5.1 as printed, m2 a user parameter: erratum E1), :func:`implied_m2` (the m2 that makes
  it equal the calibrated σ: notes §2 T5.1 table), :func:`paper_claimed_epsilon` (what the paper claims: ε_tr + ε_dp,
  each component accounted as its own subsampled mechanism — invalid on one shared batch, erratum E2).
* statement-shaped fast paths of helper B's ids: :func:`sigma_eff` (dc.sigma_eff), :func:`reading_a` /
  :func:`reading_b` / :func:`reading_c` (dc.reading_a/b/c, RDP as the references' default), :func:`thm5_1`
  (dc.thm5_1), :func:`thm5_1_total` (dc.thm5_1_total), :func:`implied_m2_statement` (dc.implied_m2).
* :class:`DcAccountant` — the accountant with Opacus' ``step(noise_multiplier=σ_dp, sample_rate=q)`` /
  ``get_epsilon(delta)`` naming: each step is recorded as an SGM step at σ_eff (O(1), merged runs).

Reading names "A", "B", "C" (dpspec.reference.dc.spec.READING). ``sigma_tr`` matters only for reading C (ignored for
A and B: the trace noise has no privacy role there); ``sigma_tr="same"`` means σ_tr = σ_dp (the paper's recipe:
both calibrated for ε/2). Per-sample noise (``noise="per_sample"``) is accounted given the tail/body counts only:
under Poisson batches its covariance depends on the data (notes §3.2 "variance mismatch"), so those calls warn.
"""
from __future__ import annotations

import math
import warnings

import torch

from dpspec.reference.dc import spec
from dpspec.reference.domains import DELTA, EPS, NOISE, SAMPLING_RATE, STEPS, Choice
from dpspec.reference.errors import ConditionError, DomainError, ParameterError, PrecisionError

from .._torch import DTYPE, as_tensor, params

STATEMENT = "dc.sigma_eff"  # the catalogue statement whose conditions (c2 ≤ c1) these functions share (helper B's)
METHODS = Choice(("pld", "rdp"))
# notes §3.2: one vector N(0, σ²c1²I) on the sum, Algorithm 1's per-sample noise, the public code's (spec section B's
# NOISE_FORM; kept here too, as spec section E defines a narrower NOISE_FORM of the same name)
NOISE_FORMS = Choice(("single", "per_sample", "published"))
SAME = "same"  # sigma_tr = "same": σ_tr = σ_dp (the paper's recipe)
CERTIFY_STEPS = 40  # at most this many upward steps of σ_dp in dc_calibrate_sigma's certification


# ---------------------------------------------------------------------------------------------------------------
# effective multiplier


def _reading(reading) -> str:
    return spec.READING.check("reading", reading)


def _noise(noise) -> str:
    return NOISE_FORMS.check("noise", noise)


def _warn_per_sample(noise: str) -> None:
    if noise == "per_sample":
        warnings.warn("dpspec: noise='per_sample' (Algorithm 1 as printed) is accounted given the tail/body counts "
                      "only; with Poisson batches the noise covariance depends on the data (notes §3.2, variance "
                      "mismatch), which no subsampled-Gaussian accountant covers", UserWarning, stacklevel=3)


def _gp_factor(noise: str, c1: torch.Tensor, c2: torch.Tensor, p_tail, batch) -> torch.Tensor:
    """σ_gp/σ_dp for the noise form (notes §3.2; seed 004 Algorithm 1 L187–L206, the public code notes §4.3)."""
    if noise == "single":
        return torch.ones_like(c1)
    r = c2 / c1
    (p,) = params(p_tail=(p_tail, spec.FRACTION))
    if noise == "published":
        return torch.sqrt(p ** 2 + ((1 - p) * r) ** 2)
    if batch is None:
        raise ParameterError("noise='per_sample' needs batch (the batch size B)")
    (b,) = params(batch=(batch, spec.COUNT))
    return torch.sqrt(b * (p + (1 - p) * r ** 2))


def _check_clips(c1, c2, allow_outside: bool = False, statement: str = STATEMENT):
    """(c1, c2) as tensors; c2 > c1 → ConditionError c2_at_most_c1 naming ``statement`` unless ``allow_outside``."""
    c1, c2 = params(c1=(c1, spec.POSITIVE), c2=(c2, spec.POSITIVE))
    if bool((c2 > c1).any()) and not allow_outside:
        raise ConditionError(statement, [spec.C2_AT_MOST_C1.describe()])
    return c1, c2


def dc_sigma_eff(reading, sigma_dp, c1, c2, sigma_tr=None, noise: str = "single", p_tail=0.1, batch=None,
                 delta_tr=1.0, *, allow_outside: bool = False, statement: str = STATEMENT) -> torch.Tensor:
    """σ_eff of one DC-DPSGD step (module docstring; seed 004 Thm 5.1 L174 / Claims C(1)–C(2) L903–L973 made
    sound, notes §3.2 and §3.4): the step is the Poisson-subsampled Gaussian with noise multiplier σ_eff.
    Broadcasts sigma_dp, c1, c2, sigma_tr, p_tail, batch, delta_tr; float64 tensor. c2 > c1 → ConditionError
    (c2_at_most_c1); an unknown reading or noise form, or a value outside its domain → DomainError; reading C
    without sigma_tr, per-sample noise without batch → ParameterError. ``allow_outside``: c2 > c1 answered (not a
    bound of the theorem's setting); readings A and C then need c2 < 2c1 (Δ = 2c1 − c2 > 0), else DomainError."""
    reading, noise = _reading(reading), _noise(noise)
    c1, c2 = _check_clips(c1, c2, allow_outside, statement)
    if reading in ("A", "C") and bool((c2 >= 2 * c1).any()):
        raise DomainError("c2", float(c2.max()), f"c2 < 2·c1 (reading {reading}'s sensitivity 2c1 − c2 must be "
                          "positive)")
    (s_dp,) = params(sigma_dp=(sigma_dp, spec.POSITIVE))
    s_gp = s_dp * _gp_factor(noise, c1, c2, p_tail, batch)
    a = 2 - c2 / c1  # (2c1 − c2)/c1, the selection's sensitivity in c1 units (A and C), without overflow at c1 ~ 1e308
    if reading == "B":
        out = s_gp * torch.ones_like(c1)
    elif reading == "A":
        out = s_gp / a
    else:
        if sigma_tr is None:
            raise ParameterError("reading 'C' releases the noisy scores: pass sigma_tr > 0 (or sigma_tr='same')")
        s_tr = s_dp if isinstance(sigma_tr, str) and sigma_tr == SAME else params(
            sigma_tr=(sigma_tr, spec.POSITIVE))[0]
        (d_tr,) = params(delta_tr=(delta_tr, spec.POSITIVE))
        out = 1 / torch.hypot(d_tr / s_tr, a / s_gp)
    return out


# ---------------------------------------------------------------------------------------------------------------
# ε(δ) of T steps


def _is_scalar(*values) -> bool:
    return not any(isinstance(v, torch.Tensor) or hasattr(v, "shape") for v in values)


def _sgm_inputs(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr, noise, p_tail, batch, delta_tr,
                allow_outside: bool = False):
    """(σ_eff, q, steps, δ) broadcast to one shape (float64 tensors), each checked."""
    s = dc_sigma_eff(reading, sigma_dp, c1, c2, sigma_tr, noise, p_tail, batch, delta_tr, allow_outside=allow_outside)
    q, steps, delta = params(q=(q, SAMPLING_RATE), steps=(steps, STEPS), delta=(delta, DELTA))
    return torch.broadcast_tensors(s, q, steps, delta)


def _pld_interval(q: float, sigma: float, steps: int, delta: float) -> tuple[float, float]:
    """The accountant's certified PLD interval of T SGM steps: the call a user makes."""
    from ..accountant import Accountant

    return Accountant().sgm(q, sigma, steps).epsilon_interval(delta)


def dc_epsilon_interval(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr=None, *, noise: str = "single",
                        p_tail=0.1, batch=None, delta_tr=1.0):
    """(lower, upper): the PLD accountant's certified interval for the tight ε(δ) of T DC-DPSGD steps under
    ``reading`` (Accountant().sgm(q, σ_eff, T).epsilon_interval(δ); fast/base/pld.py, docs/pld.md; notes §3.4
    Step 3). Scalar inputs → a pair of floats; tensors → a pair of tensors (one PLD composition per element)."""
    noise = _noise(noise)
    _warn_per_sample(noise)
    s, q_, n, d = _sgm_inputs(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr, noise, p_tail, batch, delta_tr)
    rows = [_pld_interval(*row[:2], int(row[2]), row[3]) for row in
            zip(*(t.reshape(-1).tolist() for t in (q_, s, n, d)))]
    if _is_scalar(q, steps, delta, sigma_dp, c1, c2, sigma_tr, p_tail, batch, delta_tr):
        return rows[0]
    lo = torch.tensor([r[0] for r in rows], dtype=DTYPE).reshape(s.shape)
    hi = torch.tensor([r[1] for r in rows], dtype=DTYPE).reshape(s.shape)
    return lo, hi


def dc_epsilon(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr=None, method: str = "pld", *,
               noise: str = "single", p_tail=0.1, batch=None, delta_tr=1.0):
    """ε(δ) after T = ``steps`` DC-DPSGD steps at Poisson rate q under ``reading`` (seed 004 Thm 5.1, L174, made
    computable: notes §3.4 Steps 1–3): T-fold Poisson-subsampled Gaussian at σ_eff = dc_sigma_eff(...).

    method "pld" (default): the certified UPPER end of the PLD interval — exactly
    ``Accountant().sgm(q, σ_eff, T).get_epsilon(δ)`` (inf when it cannot be certified); the interval is
    :func:`dc_epsilon_interval`. method "rdp": ``sgm_epsilon`` (MTZ19 RDP, BBG+20/CKS20 conversion, continuous
    order search), a valid upper bound (looser). Scalar inputs → float; any tensor input → float64 tensor of the
    broadcast shape (PLD: one composition per element)."""
    method = METHODS.check("method", method)
    if method == "pld":
        out = dc_epsilon_interval(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr, noise=noise, p_tail=p_tail,
                                  batch=batch, delta_tr=delta_tr)
        return float(out[1]) if isinstance(out[1], float) else out[1]
    from ..accountant import sgm_epsilon

    noise = _noise(noise)
    _warn_per_sample(noise)
    s, q_, n, d = _sgm_inputs(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr, noise, p_tail, batch, delta_tr)
    eps = sgm_epsilon(s, q_, n, d)
    if _is_scalar(q, steps, delta, sigma_dp, c1, c2, sigma_tr, p_tail, batch, delta_tr):
        return float(eps)
    return eps


# ---------------------------------------------------------------------------------------------------------------
# calibration


def _sigma_dp_for(reading: str, s_eff: float, c1: float, c2: float, factor: float, sigma_tr, delta_tr: float
                  ) -> float:
    """The σ_dp whose dc_sigma_eff is s_eff (the inverse map; ``factor`` = σ_gp/σ_dp of the noise form; a = (2c1 −
    c2)/c1, the gradient part's sensitivity in c1 units for A and C)."""
    if reading == "B":
        return s_eff / factor
    a = 2 - c2 / c1
    if reading == "A":
        return s_eff * a / factor
    if isinstance(sigma_tr, str) and sigma_tr == SAME:  # σ_eff⁻² = (Δ_tr² + a²/factor²)/σ_dp²
        return s_eff * math.sqrt(delta_tr ** 2 + (a / factor) ** 2)
    rest = s_eff ** -2 - (delta_tr / sigma_tr) ** 2
    if not rest > 0:
        raise DomainError("sigma_tr", sigma_tr, f"(Δ_tr·σ_eff*, inf) = ({delta_tr * s_eff:.6g}, inf): the scores' "
                          "noise alone spends the target (reading C: 1/σ_eff*² = (Δ_tr/σ_tr)² + (a/σ_gp)²)")
    return a * rest ** -0.5 / factor


def dc_calibrate_sigma(reading, target_eps, delta, q, steps, c1, c2, sigma_tr=None, method: str = "pld", *,
                       noise: str = "single", p_tail=0.1, batch=None, delta_tr=1.0, rtol: float | None = None):
    """σ_dp for a target (ε, δ) after T DC-DPSGD steps under ``reading`` (notes §3.4 Step 4; seed 004 Thm 5.1 L174
    made computable): σ_eff* = dpspec.fast.accountant.calibrate_sigma(target_eps, δ, q, T, method) mapped back
    through the reading (B: σ_dp = σ_eff*/f, A: σ_eff*·a/f, C: a(σ_eff*⁻² − (Δ_tr/σ_tr)²)^{−1/2}/f, a = (2c1 −
    c2)/c1, f the noise form's σ_gp/σ_dp), then CERTIFIED: while ``dc_epsilon(reading, q, T, δ, σ_dp, …, method)`` — the
    call a user makes, with its default PLD width — exceeds the target, σ_dp grows by (1 + s) with s = rtol (the
    calibration's, 1e-3 for PLD / 1e-6 for RDP) doubling at each step (at most CERTIFY_STEPS; PrecisionError
    beyond). So ``dc_epsilon(result) ≤ target_eps`` holds for the returned value, exactly as evaluated.

    Scalars → float; tensors → float64 tensor (one calibration per element). Reading C: sigma_tr fixed (> Δ_tr·σ_eff*
    else DomainError on sigma_tr) or ``"same"`` (σ_tr = σ_dp). Unreachable targets: calibrate_sigma's DomainError."""
    from ..accountant import calibrate_sigma

    reading, method, noise = _reading(reading), METHODS.check("method", method), _noise(noise)
    c1t, c2t = _check_clips(c1, c2)
    factor_t = _gp_factor(noise, c1t, c2t, p_tail, batch)
    if reading == "C" and sigma_tr is None:
        raise ParameterError("reading 'C' releases the noisy scores: pass sigma_tr > 0 (or sigma_tr='same')")
    same = isinstance(sigma_tr, str) and sigma_tr == SAME
    tr = None if reading != "C" or same else params(sigma_tr=(sigma_tr, spec.POSITIVE))[0]
    (dtr,) = params(delta_tr=(delta_tr, spec.POSITIVE))
    target, d, q_, n = params(target_eps=(target_eps, EPS), delta=(delta, DELTA), q=(q, SAMPLING_RATE),
                              steps=(steps, STEPS))
    tensors = [target, d, q_, n, c1t, c2t, factor_t, dtr] + ([tr] if tr is not None else [])
    tensors = torch.broadcast_tensors(*tensors)
    step0 = (1e-3 if method == "pld" else 1e-6) if rtol is None else float(rtol)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the per-sample warning is given once, below
        for row in zip(*(t.reshape(-1).tolist() for t in tensors)):
            eps_t, dl, qq, tt, a1, a2, f, dt = row[:8]
            s_tr = SAME if same else (row[8] if tr is not None else None)
            s_eff = float(calibrate_sigma(eps_t, dl, qq, int(tt), method=method,
                                          **({} if rtol is None else {"rtol": rtol})))
            sigma_dp = _sigma_dp_for(reading, s_eff, a1, a2, f, s_tr, dt)
            out.append(_certify(reading, eps_t, dl, qq, int(tt), sigma_dp, a1, a2, s_tr, method, noise, step0,
                                p_tail, batch, dt))
    _warn_per_sample(noise)
    if _is_scalar(target_eps, delta, q, steps, c1, c2, sigma_tr, p_tail, batch, delta_tr):
        return out[0]
    return torch.tensor(out, dtype=DTYPE).reshape(tensors[0].shape)


def _certify(reading, target, delta, q, steps, sigma_dp, c1, c2, sigma_tr, method, noise, step, p_tail, batch,
             delta_tr) -> float:
    """σ_dp stepped up until dc_epsilon (the user's call) is ≤ target (dc_calibrate_sigma's docstring)."""
    for _ in range(CERTIFY_STEPS):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # an unconverged interval: its upper end still counts
            eps = dc_epsilon(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr, method, noise=noise,
                             p_tail=_scalar_of(p_tail), batch=_scalar_of(batch), delta_tr=delta_tr)
        if eps <= target:
            return sigma_dp
        sigma_dp *= 1 + step
        step *= 2
    raise PrecisionError(f"dc_calibrate_sigma: no certified sigma_dp found for target_eps = {target!r} after "
                         f"{CERTIFY_STEPS} steps up (last eps = {eps!r})")


def _scalar_of(v):
    """A Python number for p_tail/batch in the per-element certification (tensor inputs: their single value)."""
    if v is None or isinstance(v, (int, float)):
        return v
    t = as_tensor(v)
    if t.numel() != 1:
        raise ParameterError("dc_calibrate_sigma: pass p_tail and batch as numbers (one per call)")
    return float(t)


# ---------------------------------------------------------------------------------------------------------------
# the paper's recipe: Thm 5.1 as printed, its implied constant, its claimed ε


def paper_sigma(eps, delta, q, steps, m2) -> torch.Tensor:
    """Thm 5.1 as printed (seed 004 L174): σ = √(m2·T·q²·ln(1/δ))/ε, with m2 a USER parameter (the text never fixes
    it: an existence statement, erratum dc.E1; notes §2). ε > 0. Broadcasting float64 tensor."""
    eps, delta, q, steps, m2 = params(eps=(eps, spec.P_EPS_DP.domain), delta=(delta, DELTA), q=(q, SAMPLING_RATE),
                                      steps=(steps, STEPS), m2=(m2, spec.POSITIVE))
    return torch.sqrt(m2 * steps * q ** 2 * torch.log(1 / delta)) / eps


def implied_m2(eps, delta, q, steps, method: str = "rdp", rtol: float | None = None):
    """The m2 that makes Thm 5.1's σ (seed 004 L174) equal the accountant's calibrated σ for one SGM at (ε, δ, q, T):
    m2 = σ*²ε²/(T q² ln(1/δ)), σ* = calibrate_sigma(ε, δ, q, T, method) (notes §2 T5.1 table: 1.6–21.7 at the
    paper's settings by RDP; erratum dc.E1: m2 is not a constant). ``rtol``: calibrate_sigma's (σ to that relative
    precision, so m2 to about twice it). Scalars → float; tensors → tensor."""
    from ..accountant import calibrate_sigma

    method = METHODS.check("method", method)
    e, d, qq, n = params(eps=(eps, spec.P_EPS_DP.domain), delta=(delta, DELTA), q=(q, SAMPLING_RATE),
                         steps=(steps, STEPS))
    sigma = calibrate_sigma(e, d, qq, n, method=method, **({} if rtol is None else {"rtol": rtol}))
    m2 = sigma ** 2 * e ** 2 / (n * qq ** 2 * torch.log(1 / d))
    return float(m2) if _is_scalar(eps, delta, q, steps) else m2


def paper_claimed_epsilon(q, steps, delta, sigma_dp, sigma_tr=None, *, m2=None, method: str = "rdp"):
    """What the paper claims for a run at (σ_tr, σ_dp) (seed 004 Thm 5.1 L174, Claim C(2) L954–L973): ε_tr + ε_dp
    at δ, each component accounted as its OWN Poisson-subsampled Gaussian with unit sensitivity — by the accountant
    (``method`` "rdp", as the authors' code calibrates through Opacus' RDP accountant, notes §4.3; or "pld"), or, with
    ``m2`` given, by Thm 5.1's printed formula inverted, ε_x = √(m2 T q² ln(1/δ))/σ_x. sigma_tr None → σ_tr = σ_dp
    (the paper's recipe: both for ε/2). This sum is NOT a valid guarantee: both components use the same batch
    (erratum dc.E2; the sound value is dc_epsilon(reading "C")). Scalars → float; tensors → tensor."""
    s_dp = sigma_dp
    s_tr = sigma_dp if sigma_tr is None else sigma_tr
    q_, n, d, a, b = params(q=(q, SAMPLING_RATE), steps=(steps, STEPS), delta=(delta, DELTA),
                            sigma_dp=(s_dp, NOISE), sigma_tr=(s_tr, NOISE))
    if m2 is not None:
        (m,) = params(m2=(m2, spec.POSITIVE))
        root = torch.sqrt(m * n * q_ ** 2 * torch.log(1 / d))
        out = root / a + root / b
    else:
        method = METHODS.check("method", method)
        if method == "rdp":
            from ..accountant import sgm_epsilon

            out = sgm_epsilon(a, q_, n, d) + sgm_epsilon(b, q_, n, d)
        else:
            flat = [_pld_interval(qq, x, int(t), dd)[1] + _pld_interval(qq, y, int(t), dd)[1]
                    for qq, t, dd, x, y in zip(*(v.reshape(-1).tolist() for v in (q_, n, d, a, b)))]
            out = torch.tensor(flat, dtype=DTYPE).reshape(q_.shape)
    return float(out) if _is_scalar(q, steps, delta, sigma_dp, sigma_tr, m2) else out


# ---------------------------------------------------------------------------------------------------------------
# an Opacus-style accountant


def _accountant_base():
    from ..accountant import Accountant

    return Accountant


class DcAccountant:
    """DC-DPSGD's accountant with Opacus' naming (fast/opacus_compat.py): ``step(noise_multiplier=σ_dp,
    sample_rate=q)`` records one step, ``get_epsilon(delta)`` answers (method "pld": the certified upper end; "rdp":
    the RDP bound), ``epsilon_interval(delta)`` the PLD interval, ``history`` the (σ_dp, q, steps) runs as given,
    ``len()`` the number of steps. The reading, clipping thresholds and noise form are fixed at construction; each
    step is recorded in the wrapped ``dpspec.fast.Accountant`` (``.accountant``) as an SGM step at σ_eff =
    dc_sigma_eff(reading, σ_dp, c1, c2, …) (notes §3.4: every sound reading is the subsampled Gaussian at σ_eff), so
    recording is O(1) and merged per run. ``sigma_tr`` (reading C): a number, or "same" (σ_tr = σ_dp).

    c1, c2 are REQUIRED for readings A and C (their σ_eff depends on c2/c1: a default c1 = c2 would account σ_eff =
    σ_dp while training clips the body at c2 < c1 — ParameterError); reading B ignores them (default 1, 1).
    ``step`` takes σ_dp, not σ_eff: dpspec.fast.dc.training.DCDPSGD passes σ_dp to a DcAccountant (and refuses
    one whose reading, c1, c2, σ_tr or Δ_tr differ from its own)."""

    def __init__(self, reading: str = "B", c1: float | None = None, c2: float | None = None, sigma_tr=None, *,
                 method: str = "pld", noise: str = "single", p_tail: float = 0.1, batch=None, delta_tr: float = 1.0,
                 device=None):
        self.reading, self.noise = _reading(reading), _noise(noise)
        if self.reading in ("A", "C") and (c1 is None or c2 is None):
            raise ParameterError(f"DcAccountant(reading={self.reading!r}) needs c1 and c2 (σ_eff depends on c2/c1; "
                                 f"got c1 = {c1!r}, c2 = {c2!r})")
        c1, c2 = (1.0 if c1 is None else c1), (1.0 if c2 is None else c2)
        self.method = METHODS.check("method", method)
        self.c1, self.c2, self.sigma_tr, self.p_tail, self.batch, self.delta_tr = c1, c2, sigma_tr, p_tail, batch, \
            delta_tr
        _warn_per_sample(self.noise)
        self._sigma_of(1.0)  # check the fixed arguments now (one clear error at construction)
        self.accountant = _accountant_base()(device=device, method=method)
        self._eff: dict[float, float] = {}
        self._runs: list[list] = []  # [σ_dp, q, steps]

    def _sigma_of(self, sigma_dp: float) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return float(dc_sigma_eff(self.reading, sigma_dp, self.c1, self.c2, self.sigma_tr, self.noise,
                                      self.p_tail, self.batch, self.delta_tr))

    def step(self, *, noise_multiplier: float, sample_rate: float) -> None:
        """One DC-DPSGD step at σ_dp = noise_multiplier and Poisson rate q = sample_rate (as Opacus' hook calls)."""
        runs = self._runs
        if runs and runs[-1][0] == noise_multiplier and runs[-1][1] == sample_rate:
            runs[-1][2] += 1
        else:
            key = float(noise_multiplier)
            s = self._eff.get(key)
            if s is None:
                s = self._eff[key] = self._sigma_of(key)
            runs.append([noise_multiplier, sample_rate, 1])
        self.accountant.step(noise_multiplier=self._eff[float(noise_multiplier)], sample_rate=sample_rate)

    @property
    def history(self) -> list[tuple]:
        """(σ_dp, q, steps) per run, as recorded (Opacus' format, σ_dp not σ_eff)."""
        return [tuple(r) for r in self._runs]

    def get_epsilon(self, delta: float, **kwargs) -> float:
        """ε for target δ: the wrapped accountant's ``get_epsilon`` (PLD: certified upper end; RDP: the bound)."""
        return self.accountant.get_epsilon(delta, **kwargs)

    def epsilon_interval(self, delta: float) -> tuple[float, float]:
        """The PLD accountant's certified (lower, upper) for ε(δ)."""
        return self.accountant.epsilon_interval(delta)

    def __len__(self) -> int:
        return len(self.accountant)

    @classmethod
    def mechanism(cls) -> str:
        return "dpspec-dc"


# ---------------------------------------------------------------------------------------------------------------
# the catalogue statements' fast paths (helper B's dc.* ids; keyword names and defaults as the reference's)


def sigma_eff(reading, sigma_dp, c1, c2, sigma_tr, delta_tr=1.0, noise="single", p_tail=0.1, batch=256,
              allow_outside: bool = False):
    """dc.sigma_eff (seed 004 Thm 5.1 / Algorithm 1; notes §3.2, §3.4): :func:`dc_sigma_eff` with the
    statement's parameter order (sigma_tr is used by reading C only)."""
    return dc_sigma_eff(reading, sigma_dp, c1, c2, sigma_tr, noise, p_tail, batch, delta_tr,
                        allow_outside=allow_outside, statement="dc.sigma_eff")


def _rdp_tensor(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr=None, delta_tr=1.0, statement=None,
                allow_outside: bool = False) -> torch.Tensor:
    from ..accountant import sgm_epsilon

    try:
        s, q_, n, d = _sgm_inputs(reading, q, steps, delta, sigma_dp, c1, c2, sigma_tr, "single", 0.1, None,
                                  delta_tr, allow_outside)
    except ConditionError as exc:  # the same condition words, under the statement evaluated
        raise ConditionError(statement or exc.statement_id, exc.failed) from None
    return sgm_epsilon(s, q_, n, d)


def reading_a(q, steps, delta, sigma_dp, c1, c2, allow_outside: bool = False) -> torch.Tensor:
    """dc.reading_a (notes §3.4 A): ε(δ) of T-fold SGM(q, σ_dp·c1/(2c1 − c2)) by RDP (``sgm_epsilon``), as the
    reference's default method; c2 > c1 → ConditionError c2_at_most_c1 unless ``allow_outside``."""
    return _rdp_tensor("A", q, steps, delta, sigma_dp, c1, c2, statement="dc.reading_a", allow_outside=allow_outside)


def reading_b(q, steps, delta, sigma_dp) -> torch.Tensor:
    """dc.reading_b (notes §3.4 B): ε(δ) of T-fold SGM(q, σ_dp) by RDP (``sgm_epsilon``)."""
    return _rdp_tensor("B", q, steps, delta, sigma_dp, 1.0, 1.0)


def reading_c(q, steps, delta, sigma_dp, c1, c2, sigma_tr, delta_tr=1.0, allow_outside: bool = False
              ) -> torch.Tensor:
    """dc.reading_c (notes §3.4 C, corrected): ε(δ) of T-fold SGM(q, ((Δ_tr/σ_tr)² + ((2c1 − c2)/(c1σ_dp))²)^{−1/2})
    by RDP (Δ_gp = 2c1 − c2: top-⌊pB⌋ selection, module docstring); c2 > c1 → ConditionError c2_at_most_c1 unless
    ``allow_outside``."""
    return _rdp_tensor("C", q, steps, delta, sigma_dp, c1, c2, sigma_tr, delta_tr, statement="dc.reading_c",
                       allow_outside=allow_outside)


def thm5_1(eps, delta, q, steps, m2, m1=100, allow_outside: bool = False) -> torch.Tensor:
    """dc.thm5_1 (seed 004 Thm 5.1, L174, as printed): σ = √(m2 T q² ln(1/δ))/ε, refused where ε > m1·q²·T
    (eps_at_most_m1_q2_T) unless ``allow_outside``; m1, m2 user parameters (erratum dc.E1)."""
    from .._torch import refuse_outside

    sigma = paper_sigma(eps, delta, q, steps, m2)
    e, q_, n, m = params(eps=(eps, spec.POSITIVE), q=(q, SAMPLING_RATE), steps=(steps, STEPS),
                         m1=(m1, spec.POSITIVE))
    refuse_outside("dc.thm5_1", [(spec.EPS_AT_MOST_M1_Q2_T, e <= m * q_ ** 2 * n)], allow_outside)
    return sigma


def thm5_1_total(eps_tr, eps_dp, delta, q, steps, m2, c1, c2, m1=100, allow_outside: bool = False) -> torch.Tensor:
    """dc.thm5_1_total (seed 004 Thm 5.1 L174, Claim C(2) L954–L973; notes §3.3): the sound ε(δ) of the two
    perturbations at the printed σ_tr, σ_dp — reading C (Δ_tr = 1, Δ_gp = 2c1 − c2), ONE subsampled Gaussian,
    T-fold, by RDP; c1, c2 required (Thm 5.1 prints none; Claim C(2)'s setting has c2 < c1; at c1 = c2 the
    gradient part is DP-SGD's). Refused where max(ε_tr, ε_dp) > m1 q² T or c2 > c1 unless ``allow_outside``."""
    from .._torch import refuse_outside

    s_tr = paper_sigma(eps_tr, delta, q, steps, m2)
    s_dp = paper_sigma(eps_dp, delta, q, steps, m2)
    a, b, q_, n, m = params(eps_tr=(eps_tr, spec.POSITIVE), eps_dp=(eps_dp, spec.POSITIVE), q=(q, SAMPLING_RATE),
                            steps=(steps, STEPS), m1=(m1, spec.POSITIVE))
    c1_, c2_ = params(c1=(c1, spec.POSITIVE), c2=(c2, spec.POSITIVE))
    refuse_outside("dc.thm5_1_total", [(spec.EPS_PARTS_AT_MOST_M1_Q2_T, torch.maximum(a, b) <= m * q_ ** 2 * n),
                                       (spec.C2_AT_MOST_C1, c2_ <= c1_)], allow_outside)
    return _rdp_tensor("C", q, steps, delta, s_dp, c1, c2, s_tr, statement="dc.thm5_1_total",
                       allow_outside=allow_outside)


def implied_m2_statement(eps, delta, q, steps) -> torch.Tensor:
    """dc.implied_m2 (seed 004 Thm 5.1 L174; notes §2 T5.1 table): :func:`implied_m2` by RDP, σ to rtol 1e-9."""
    e, d, qq, n = params(eps=(eps, spec.POSITIVE), delta=(delta, DELTA), q=(q, SAMPLING_RATE), steps=(steps, STEPS))
    return implied_m2(e, d, qq, n, rtol=1e-9)
