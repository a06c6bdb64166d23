"""The convergence statements of seed 004 (DC-DPSGD) on the torch fast path: the clipping thresholds of Thms 4.1, B.1,
5.3, E.1 (and F.1's), the explicit inequalities (28), (40), (67), (68), the O-rates of Thm 4.1 and 5.4, F.1's (102)
and Thm 5.2's trace error. Mirrors ``dpspec.reference.dc.thresholds``, ``.convergence``, ``.rates`` and
``.subspace`` (float64, broadcasting over the numeric parameters; the Choice parameters are plain strings; lgamma
for a(θ), log space wherever a product could overflow: δ down to 1e-323, θ up to 10³); the same conditions refuse with
the reference's words."""
from __future__ import annotations

import math

import torch

from dpspec.reference.dc import spec
from dpspec.reference.errors import DomainError, ParameterError

from .._torch import log1mexp, params, refuse_outside

E = math.e
HALF = 0.5
LOG2 = math.log(2)
LOG4 = math.log(4)


def _log_a(theta: torch.Tensor) -> torch.Tensor:
    """log a(θ) of Lemma A.3 (L604–L627) in log space (no overflow at large θ; θ < 1/2 read as 1/2: those points are
    refused or marked outside by the caller): log 2 at θ = 1/2, 2θ log(4θ) + 2 on (1/2, 1], log((2^{2θ+1} + 2)
    Γ(2θ+1) + 2^{3θ}Γ(3θ+1)/3) above 1. (``fast.dc.subweibull.freedman_a`` is the same number, not in log space.)"""
    t = torch.clamp(theta, min=HALF)
    mid = 2 * t * torch.log(4 * t) + 2
    first = torch.logaddexp((2 * t + 1) * LOG2, torch.full_like(t, LOG2)) + torch.lgamma(2 * t + 1)
    heavy = torch.logaddexp(first, 3 * t * LOG2 + torch.lgamma(3 * t + 1) - math.log(3))
    return torch.where(t == HALF, torch.full_like(t, LOG2), torch.where(t <= 1, mid, heavy))


def _a(theta: torch.Tensor) -> torch.Tensor:
    return torch.exp(_log_a(theta))


def _llog(lx: torch.Tensor, p) -> torch.Tensor:
    """log(lx^p) for lx ≥ 0 (lx^0 = 1, 0^p = 0 for p > 0)."""
    p = torch.as_tensor(p, dtype=lx.dtype, device=lx.device)
    safe = torch.where(lx > 0, lx, torch.ones_like(lx))
    out = torch.where(lx > 0, p * torch.log(safe), torch.full_like(lx, -math.inf))
    return torch.where(p == 0, torch.zeros_like(out), out)


def _scaled(theta, base_log, lx):
    """θ·(base_log + log lx) = log(b^θ·lx^θ) with b = e^{base_log}, lx ≥ 0 (−inf at lx = 0): the θ-power and the
    log-power combined before multiplying, so that a huge θ gives ±inf, never inf − inf."""
    safe = torch.where(lx > 0, lx, torch.ones_like(lx))
    inner = base_log + torch.log(safe)
    return torch.where(lx > 0, theta * inner, torch.full_like(lx, -math.inf))


def _weighted(log_w, log_v):
    """log(w·v) with w = 0 giving −inf even where v is +inf (a zero weight of an infinite term)."""
    return torch.where(torch.isneginf(log_w), log_w, log_w + log_v)


def _l2(delta):
    """log(2/δ) without forming 2/δ (δ down to 1e-323)."""
    return LOG2 - torch.log(delta)


def _l1(delta):
    return -torch.log(delta)


def _lt(steps):
    """log √T = log(T)/2 (no rounding of √T)."""
    return torch.log(steps) / 2


def _log_ratio(m2, steps, d, batch, n, eps, delta):
    """log(σ̂_dp / c) = ½ log(m2·T·d·log(1/δ)) + log B − log(nε) (Thm B.1, L694)."""
    return (0.5 * (torch.log(m2) + torch.log(steps) + torch.log(d) + torch.log(_l1(delta))) + torch.log(batch)
            - torch.log(n) - torch.log(eps))


def _choice(name, value, options):
    if value not in options:
        raise DomainError(name, value, "one of {" + ", ".join(options) + "}")
    return value


# ---------------------------------------------------------------------------------------------------------------
# thresholds (in log space: log c = max over the two parts)


def _log_candidate(theorem, theta, K, steps, delta, case):
    lK, lt, l1, l2 = torch.log(K), _lt(steps), _l1(delta), _l2(delta)
    half = theta == HALF
    c = lambda v: math.log(v)
    if theorem == "thm4_1":
        return torch.maximum(c(4) + lK + _llog(lt, theta), c(39) + lK + _llog(l2, theta))
    if theorem == "thm_b1":
        t = c(4) + lK + _llog(lt, theta)
        d_half = (c(19 / 12) + lK + _llog(l1, HALF)) if case == "K_le_sigma_hat" else c(39) + lK + _llog(l2, HALF)
        return torch.maximum(t, torch.where(half, d_half, c(20) + lK + _llog(l2, theta)))
    if theorem == "thm5_3_c1":
        return torch.maximum(c(2) + lK + _scaled(theta, LOG4, lt), c(33) + lK + _scaled(theta, LOG4, l2))
    la = _log_a(theta)
    ls2a = 0.5 * (LOG2 + la)
    if theorem == "thm5_3_c2":
        return ls2a + lK + torch.maximum(c(2) + _llog(lt, HALF), c(33) + _llog(l2, HALF))
    le = c(16 / 12) + la + lK + _llog(l1, HALF)
    ge = c(33) + ls2a + lK + _llog(l2, HALF)
    d_half = le if case == "K_le_sigma_hat" else ge
    if theorem == "thm_e1_c1":
        return torch.where(half, torch.maximum(c(4) + lK + _llog(lt, HALF), d_half),
                           torch.maximum(c(2) + lK + _scaled(theta, LOG4, lt), c(17) + lK + _llog(l2, theta)))
    if theorem == "thm_e1_c2":
        return torch.maximum(c(2) + ls2a + lK + _llog(lt, HALF), d_half)
    if theorem == "thm_e1_c2_end":
        t = c(2) + ls2a + lK + _llog(lt, theta)
        return torch.maximum(t, torch.where(half, d_half, c(17) + lK + _llog(l2, theta)))
    if theorem == "thm_f1_c1":
        return c(2) + lK + _scaled(theta, LOG4, lt)
    return c(2) + ls2a + lK + _llog(lt, HALF)  # thm_f1_c2


def _candidate(theorem, theta, K, steps, delta, case):
    return torch.exp(_log_candidate(theorem, theta, K, steps, delta, case))


def _resolve(theorem, theta, K, steps, delta, case, m2, d, batch, n, eps):
    """(c, consistent) as reference.dc.thresholds.resolve_case, elementwise (the comparisons in log space)."""
    l_ge = _log_candidate(theorem, theta, K, steps, delta, "K_ge_sigma_hat")
    if theorem in ("thm4_1", "thm5_3_c1", "thm5_3_c2", "thm_f1_c1", "thm_f1_c2"):
        return torch.exp(l_ge), torch.ones_like(l_ge, dtype=torch.bool)
    l_le = _log_candidate(theorem, theta, K, steps, delta, "K_le_sigma_hat")
    split = torch.ones_like(theta, dtype=torch.bool) if theorem == "thm_e1_c2" else theta == HALF
    lr, lK = _log_ratio(m2, steps, d, batch, n, eps, delta), torch.log(K)
    ge_ok, le_ok = lK >= lr + l_ge, lK <= lr + l_le
    if case == "K_ge_sigma_hat":
        lc, ok = l_ge, ge_ok
    elif case == "K_le_sigma_hat":
        lc, ok = l_le, le_ok
    else:
        lc, ok = torch.where(ge_ok, l_ge, torch.where(le_ok, l_le, l_ge)), ge_ok | le_ok
    return torch.exp(torch.where(split, lc, l_ge)), ok | ~split


def _threshold_params(theta, K, steps, delta, m2=None, d=None, batch=None, n=None, eps=None):
    named = dict(theta=(theta, spec.THETA), K=(K, spec.POSITIVE), steps=(steps, spec.STEPS_REAL),
                 delta=(delta, spec.P_DELTA.domain))
    if m2 is not None:
        named.update(m2=(m2, spec.POSITIVE), d=(d, spec.DIMENSION), batch=(batch, spec.COUNT), n=(n, spec.COUNT),
                     eps=(eps, spec.POSITIVE))
    return params(**named)


def thm_b1(theta, K, steps, delta, m2, d, batch, n, eps, case="auto", allow_outside: bool = False) -> torch.Tensor:
    """Thm B.1's threshold c (``dc.thm_b1``; seed 004 L694–L696), the θ = 1/2 case by σ̂_dp at its own c (E15)."""
    case = _choice("case", case, spec.THRESHOLD_CASE.options)
    theta, K, steps, delta, m2, d, batch, n, eps = _threshold_params(theta, K, steps, delta, m2, d, batch, n, eps)
    c, ok = _resolve("thm_b1", theta, K, steps, delta, case, m2, d, batch, n, eps)
    refuse_outside("dc.thm_b1", [(spec.THETA_AT_LEAST_HALF, theta >= HALF),
                                 (spec.THRESHOLD_CASE_CONSISTENT, ok | (theta < HALF))], allow_outside)
    return c


def thm5_3(theta, K, steps, delta, which, allow_outside: bool = False) -> torch.Tensor:
    """Thm 5.3's c1 / c2 (``dc.thm5_3``; seed 004 L236, L240)."""
    which = _choice("which", which, spec.WHICH_THRESHOLD.options)
    theta, K, steps, delta = _threshold_params(theta, K, steps, delta)
    refuse_outside("dc.thm5_3", [(spec.THETA_AT_LEAST_HALF, theta >= HALF)], allow_outside)
    return _candidate("thm5_3_c1" if which == "c1" else "thm5_3_c2", theta, K, steps, delta, None)


def thm_e1(theta, K, steps, delta, which, m2, d, batch, n, eps, case="auto",
           allow_outside: bool = False) -> torch.Tensor:
    """Thm E.1's c1 / c2 (``dc.thm_e1``; seed 004 L1154–L1160), the K vs σ̂_dp split by σ̂_dp at its own c (E15)."""
    which = _choice("which", which, spec.WHICH_THRESHOLD.options)
    case = _choice("case", case, spec.THRESHOLD_CASE.options)
    theta, K, steps, delta, m2, d, batch, n, eps = _threshold_params(theta, K, steps, delta, m2, d, batch, n, eps)
    c, ok = _resolve("thm_e1_c1" if which == "c1" else "thm_e1_c2", theta, K, steps, delta, case, m2, d, batch, n,
                     eps)
    refuse_outside("dc.thm_e1", [(spec.THETA_AT_LEAST_HALF, theta >= HALF),
                                 (spec.THRESHOLD_CASE_CONSISTENT, ok | (theta < HALF))], allow_outside)
    return c


_SPLIT_ALWAYS = ("thm_e1_c2",)  # reference.dc.thresholds.split_applies: E.1's stated c2 splits at every θ
_SPLIT_AT_HALF = ("thm_b1", "thm_e1_c1", "thm_e1_c2_end")  # ... these at θ = 1/2 only


def threshold_c(theorem, theta, K, steps, delta, case=None, m2=None, d=None, batch=None, n=None,
                eps=None) -> torch.Tensor:
    """The fast ``reference.dc.thresholds.threshold_c`` (same theorem names, same refusals): where the text splits
    on K vs σ̂_dp (seed 004 Thm B.1 L694–L696, Thm E.1 L1154–L1160; ``split_applies``), ``case`` names the case
    (taken as given without m2, d, batch, n, eps; checked with them: ConditionError where it fails), or
    (None/"auto") σ̂_dp is evaluated from m2, d, batch, n, eps — and without them ParameterError, as the reference."""
    _choice("theorem", theorem, spec.THRESHOLD_THEOREMS)
    case = "auto" if case is None else _choice("case", case, ("auto",) + spec.THRESHOLD_CASE.options[1:])
    missing = [name for name, v in (("m2", m2), ("d", d), ("batch", batch), ("n", n), ("eps", eps)) if v is None]
    if missing:
        theta, K, steps, delta = _threshold_params(theta, K, steps, delta)
        refuse_outside(f"dc.{theorem}", [(spec.THETA_AT_LEAST_HALF, theta >= HALF)])
        if case == "auto":
            splits = theorem in _SPLIT_ALWAYS or (theorem in _SPLIT_AT_HALF and bool((theta == HALF).any()))
            if splits:
                raise ParameterError(f"{theorem} splits on K vs σ̂_dp (θ = 1/2, or E.1's c2 at every θ): give case="
                                     f"'K_ge_sigma_hat' or 'K_le_sigma_hat', or m2, d, batch, n, eps to evaluate "
                                     f"σ̂_dp (missing: {', '.join(missing)})")
        return _candidate(theorem, theta, K, steps, delta, None if case == "auto" else case)
    theta, K, steps, delta, m2, d, batch, n, eps = _threshold_params(theta, K, steps, delta, m2, d, batch, n, eps)
    c, ok = _resolve(theorem, theta, K, steps, delta, case, m2, d, batch, n, eps)
    refuse_outside(f"dc.{theorem}", [(spec.THETA_AT_LEAST_HALF, theta >= HALF),
                                     (spec.THRESHOLD_CASE_CONSISTENT, ok)])
    return c


# ---------------------------------------------------------------------------------------------------------------
# explicit bounds, case A: (28), (67), (68), in log space (every term is positive)


def _log_bracket(beta, d, n, eps, delta, batch, m2):
    """log of the bracket of (28)/(67)/(68) (seed 004 L1090–L1091): logsumexp of its five terms' logs."""
    l2, l1 = _l2(delta), _l1(delta)
    lb, lm, ld, lB = torch.log(beta), torch.log(m2), torch.log(d), torch.log(batch)
    lne = torch.log(n) + torch.log(eps)
    ll2 = torch.log(l2)
    terms = [LOG2 + lb,
             math.log(8) + lb + lm + 1 + ld / 2 + 2 * lB + ll2 / 2 - lne,
             math.log(8) + lb + (1 + lm) / 2 + ld / 4 + lB - ll2 / 2 - lne / 2,
             math.log(8) + (1 + lm) / 2 + lB - ll2 / 2,
             math.log(64) + ld / 4 + torch.log(l1) / 4 - lne / 2]
    return torch.logsumexp(torch.stack(torch.broadcast_tensors(*terms)), dim=0)


def _case_a_params(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps):
    return params(theta=(theta, spec.THETA), K=(K, spec.POSITIVE), beta=(beta, spec.POSITIVE),
                  loss_gap=(loss_gap, spec.POSITIVE), d=(d, spec.DIMENSION), n=(n, spec.COUNT),
                  eps=(eps, spec.POSITIVE), delta=(delta, spec.P_DELTA.domain), batch=(batch, spec.COUNT),
                  m2=(m2, spec.POSITIVE), steps=(steps, spec.STEPS_REAL))


def _log_case_a(sid, which, theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, allow_outside):
    theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps = _case_a_params(
        theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps)
    refuse_outside(sid, [(spec.THETA_AT_LEAST_HALF, theta >= HALF),
                         (spec.DELTA_AT_MOST_2_OVER_E, delta <= 2 / E)], allow_outside)
    lK2, lt = 2 * torch.log(K), _lt(steps)
    if which == "eq28":
        lconst = math.log(8) + lK2 + torch.lgamma(2 * theta + 1)
        lpref = math.log(16) + lK2 + _llog(lt, 2 * theta)
    elif which == "eq67":
        la = _log_a(theta)
        llt = _llog(lt, 1)
        lconst = math.log(8) + la + lK2
        lpref = torch.where(torch.isneginf(llt), llt, math.log(8) + la + lK2 + llt)
    else:
        lconst = (2 * theta + 1) * LOG4 + lK2
        lpref = LOG4 + lK2 + _scaled(2 * theta, LOG4, lt)
    first = torch.logaddexp(math.log(4) + torch.log(loss_gap), lconst)
    second = lpref + torch.log(_l2(delta)) + _log_bracket(beta, d, n, eps, delta, batch, m2)
    return torch.logaddexp(first, second) - torch.log(steps) / 2


def eq28(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, allow_outside: bool = False):
    """Eq. (28) of Thm B.1's proof (``dc.thm_b1_eq28``; seed 004 L1088–L1093)."""
    return torch.exp(_log_case_a("dc.thm_b1_eq28", "eq28", theta, K, beta, loss_gap, d, n, eps, delta, batch, m2,
                                 steps, allow_outside))


def eq67(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, allow_outside: bool = False):
    """Eq. (67) corrected, 8aK²/√T (``dc.thm_e1_eq67``; seed 004 L1727–L1735; E17)."""
    return torch.exp(_log_case_a("dc.thm_e1_eq67", "eq67", theta, K, beta, loss_gap, d, n, eps, delta, batch, m2,
                                 steps, allow_outside))


def eq68(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, allow_outside: bool = False):
    """Eq. (68) corrected, 4^{2θ+1}K² (``dc.thm_e1_eq68``; seed 004 L1737–L1744; E17)."""
    return torch.exp(_log_case_a("dc.thm_e1_eq68", "eq68", theta, K, beta, loss_gap, d, n, eps, delta, batch, m2,
                                 steps, allow_outside))


def eq40(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c, allow_outside: bool = False):
    """Eq. (40) of Thm B.1's proof divided by its coefficient and √T (``dc.thm_b1_eq40``; seed 004 L855–L858);
    +inf where the coefficient is ≤ 0 (refused unless ``allow_outside``)."""
    theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps = _case_a_params(
        theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps)
    (c,) = params(c=(c, spec.POSITIVE))
    theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c = torch.broadcast_tensors(
        theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, c)
    l1, l2 = _l1(delta), _l2(delta)
    r = torch.exp(_log_ratio(m2, steps, d, batch, n, eps, delta))
    coef = c / 3 - 19 / 3 * K * torch.exp(_llog(l2, theta)) - 4 * math.sqrt(E) * r * c * torch.sqrt(l1)
    refuse_outside("dc.thm_b1_eq40", [(spec.THETA_AT_LEAST_HALF, theta >= HALF),
                                      (spec.DELTA_AT_MOST_2_OVER_E, delta <= 2 / E),
                                      (spec.EQ40_COEFFICIENT_POSITIVE, (coef > 0) | (theta < HALF))], allow_outside)
    lc2, lne, ll2 = 2 * torch.log(c), torch.log(n) + torch.log(eps), torch.log(l2)
    lb, lm, lT, ld, lB = torch.log(beta), torch.log(m2), torch.log(steps), torch.log(d), torch.log(batch)
    terms = [torch.log(loss_gap),
             LOG2 + lb + lm + 1 + ld + lT + lc2 + 2 * lB + 2 * ll2 - 2 * lne,
             LOG2 + lb + (1 + lm + lT + ld) / 2 + lc2 + lB + ll2 - lne,
             lb + lc2 - LOG2]
    lrhs = torch.logsumexp(torch.stack(terms), dim=0)
    safe = torch.where(coef > 0, coef, torch.ones_like(coef))
    return torch.where(coef > 0, torch.exp(lrhs - torch.log(safe) - lT / 2), torch.full_like(coef, math.inf))


# ---------------------------------------------------------------------------------------------------------------
# rates, F.1's (102), Thm 5.2


def _rate_params(theta, steps, delta, d, n, eps, constant):
    return params(theta=(theta, spec.THETA), steps=(steps, spec.STEPS_REAL), delta=(delta, spec.P_DELTA.domain),
                  d=(d, spec.DIMENSION), n=(n, spec.COUNT), eps=(eps, spec.POSITIVE),
                  constant=(constant, spec.POSITIVE))


def thm4_1(theta, steps, delta, d, n, eps, constant=1, allow_outside: bool = False):
    """Thm 4.1's rate times ``constant`` (``dc.thm4_1``; seed 004 L155–L157), in log space."""
    theta, steps, delta, d, n, eps, constant = _rate_params(theta, steps, delta, d, n, eps, constant)
    refuse_outside("dc.thm4_1", [(spec.THETA_AT_LEAST_HALF, theta >= HALF)], allow_outside)
    lx = torch.log(steps) - torch.log(delta)  # log(T/δ) > 0
    out = (torch.log(constant) + torch.log(d) / 4 + 1.25 * torch.log(lx) - (torch.log(n) + torch.log(eps)) / 2
           + _theta_logs(theta, lx, _lt(steps)))
    return torch.exp(out)


def _theta_logs(theta, lx, lt):
    """log(hat-log(T/δ)·log^{2θ}(√T)) = max(0, θ − 1)·log lx + 2θ·log lt, the θ-multiples combined first (a huge θ
    gives ±inf, not inf − inf)."""
    llx = torch.log(lx)
    safe = torch.where(lt > 0, lt, torch.ones_like(lt))
    heavy = theta * (llx + 2 * torch.log(safe)) - llx
    light = 2 * theta * torch.log(safe)
    return torch.where(lt > 0, torch.where(theta > 1, heavy, light), torch.full_like(lt, -math.inf))


def thm5_4(theta, steps, delta, d, n, eps, p_tail, constant=1, allow_outside: bool = False):
    """Thm 5.4's p-weighted rate times ``constant`` (``dc.thm5_4``; seed 004 L250–L254), in log space."""
    theta, steps, delta, d, n, eps, constant = _rate_params(theta, steps, delta, d, n, eps, constant)
    (p,) = params(p_tail=(p_tail, spec.FRACTION))
    refuse_outside("dc.thm5_4", [(spec.THETA_AT_LEAST_HALF, theta >= HALF)], allow_outside)
    lx, lt = torch.log(steps) - torch.log(delta), _lt(steps)
    priv = torch.log(constant) + torch.log(d) / 4 + 1.25 * torch.log(lx) - (torch.log(n) + torch.log(eps)) / 2
    tail = _weighted(torch.log(p), _theta_logs(theta, lx, lt))
    body = torch.log1p(-p) + _llog(lt, 1)
    return torch.exp(priv + torch.logaddexp(tail, body))


def thm_f1(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps, p_tail, delta_m_prime,
           allow_outside: bool = False):
    """F.1's posited (102) with (68), (67) (``dc.thm_f1``; seed 004 L1740–L1745; heuristic, E11), in log space."""
    _case_a_params(theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps)  # every domain before a condition
    p, dm = params(p_tail=(p_tail, spec.FRACTION), delta_m_prime=(delta_m_prime, spec.PROB_OPEN))
    lt = _log_case_a("dc.thm_f1", "eq68", theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps,
                     allow_outside)
    lb = _log_case_a("dc.thm_f1", "eq67", theta, K, beta, loss_gap, d, n, eps, delta, batch, m2, steps,
                     allow_outside)
    hi, lo = torch.maximum(lt, lb), torch.minimum(lt, lb)
    diff = torch.where(torch.isinf(hi), torch.full_like(hi, -math.inf), lo - hi)
    gap = torch.where(torch.isinf(hi), hi, hi + log1mexp(torch.clamp(diff, max=0.0)))  # log |C_tail − C_body|
    lkeep = torch.log1p(-dm)
    terms = torch.stack(torch.broadcast_tensors(_weighted(lkeep + torch.log(p), lt),
                                                _weighted(lkeep + torch.log1p(-p), lb), _weighted(torch.log(dm), gap)))
    return torch.exp(torch.logsumexp(terms, dim=0))


def thm5_2(d, k, delta_m, delta_noise, sigma_tr, m2, batch):
    """Thm 5.2 corrected: min(1, 2√(log(2d/δ_m)/k)) + σ_tr√(2 log(2/δ_tr)) (``dc.thm5_2``; seed 004 L1067–L1130)."""
    d, k, delta_m, delta_noise, sigma_tr, m2, batch = params(
        d=(d, spec.DIMENSION), k=(k, spec.COUNT), delta_m=(delta_m, spec.PROB_OPEN),
        delta_noise=(delta_noise, spec.PROB_OPEN), sigma_tr=(sigma_tr, spec.POSITIVE), m2=(m2, spec.POSITIVE),
        batch=(batch, spec.COUNT))
    mu = 2 * torch.sqrt((LOG2 + torch.log(d) - torch.log(delta_m)) / k)
    return torch.clamp(mu, max=1.0) + sigma_tr * torch.sqrt(2 * _l2(delta_noise))
