"""Accountant audits: what a peer accountant claims for a setting, against (a) the dpspec reference (exact RDP of
the Poisson-subsampled Gaussian put through the accountant's own conversion at the same orders; the RDP-derived ε)
(b) the Monte Carlo truth (montecarlo.py: rigorous interval for δ(ε) of the composed mechanism, both
directions) and (c) dpspec's PLD sandwich (``pld_sandwich``: ``dpspec.fast.Accountant(method="pld")``, a certified
interval [lower, upper] ∋ the true ε at the setting's δ, both directions, the max; docs/pld.md:
connect-the-dots upper of Doroshenko et al. 2022, arXiv 2207.04380, and dpspec's lowered-dots lower). The sandwich is
the only floor for tight methods (PLD, PRV): the RDP-derived ε lies above the truth and decides nothing for them.

Verdicts (one per accountant × setting):

* ``error`` — the library is missing, the accountant raised, or it returned NaN (ε or any RDP value) or a
  negative ε.
* ``violation`` — a claimed RDP value lies below the exact RDP at the same order, or (reason ``unsound: …``) an RDP
  accountant's ε lies below its own conversion of the exact RDP at the order it reports, by more than
  ``EPS_RTOL`` (both deterministic, certified by the mpmath reference, and decided before and whatever the Monte
  Carlo says: Monte Carlo refines the reference, never overrides it); or the claimed δ at the claimed ε lies below
  the lower confidence bound of the true δ (statistical: per cell at the stated confidence, and in ``audit_all``
  only if the cell's p-value survives Holm's step-down across all Monte Carlo-tested cells of the matrix at
  family-wise level 1 − confidence; a cell that does not is ``consistent`` with the reason saying so).
  Approximations that are not bounds (GDP by CLT) get the same test and are labelled ``is_bound: false``.
  Also (reason ``unsound: … below dpspec's certified lower bound``, certified, whatever the Monte Carlo says): any
  accountant's ε (RDP, PLD, PRV or GDP) below the sandwich's lower ε by more than ``PLD_RTOL``/``PLD_ATOL``.
* ``loose`` — tight accountants (``Adapter.declared_error`` set: PRV, PLD): the claimed ε exceeds the sandwich's
  upper ε at δ·(1 − delta_rel) by more than the accountant's own declared ε error (``pld_comparison``); inside is
  ``consistent``, whatever the Monte Carlo slack. Other accountants: valid, but the claimed δ is more than
  ``LOOSE_FACTOR`` times the upper confidence bound of the true δ at the claimed ε (slack = that ratio); without a
  Monte Carlo truth, the claimed ε exceeds the reference ε of the same method (RDP accountants: same conversion at
  the same orders; others: the RDP-derived ε) by more than ``LOOSE_EPS_REL``.
* ``consistent`` — none of the above.

The property checks that would have caught the known bugs (notes §3, item 3) are run on every claim and listed in
``evidence.checks``: ε ≥ 0 and non-increasing in δ; RDP finite, ≥ 0, non-decreasing in α, (α−1)ρ(α) convex; the
sensitivity of ε to the order grid (dense re-run) and an optimum at the edge of the grid.

Bounded work: each claim runs in a child process killed after ``timeout`` seconds (isolation.py; a peer that does
not answer in time is an ``error`` row), with its warnings, log records and prints captured into
``evidence.peer_output`` (count and distinct messages) instead of the terminal; the Monte Carlo truth is skipped
(with the reason) when it would need more than ``MAX_MC_DRAWS`` composed per-step draws per direction.
"""
from __future__ import annotations

import functools
import math
import statistics
from dataclasses import dataclass, field
from typing import Any, Iterable

from dpspec.reference.precision import jsonable

from . import adapters as _adapters
from . import isolation, montecarlo, reference
from .settings import SETTINGS, Setting, get_setting

VERDICTS = ("consistent", "loose", "violation", "error")
LOOSE_FACTOR = 2.0  # claimed δ ≥ 2 × (upper confidence bound of the true δ) at the claimed ε
LOOSE_EPS_REL = 0.05  # without MC: claimed ε more than 5 % above the reference ε of the same method
RDP_RTOL = 1e-6  # a claimed RDP below exact·(1 − RDP_RTOL) − RDP_ATOL is not an upper bound
RDP_ATOL = 1e-12
EPS_RTOL = RDP_RTOL  # a claimed ε below its certified floor·(1 − EPS_RTOL) − EPS_ATOL is unsound (the same
EPS_ATOL = RDP_ATOL  # tolerance as the RDP comparison; the reference itself is exact to ~1e-25 at 30 digits)
MONO_TOL = 1e-9
DEFAULT_SAMPLES = 3000
DEFAULT_CONFIDENCE = 0.999
SPREAD_ORDERS = (1.5, 2.0, 3.0, 4.0, 5.0, 8.0, 16.0, 32.0, 63.0, 64.0)
PEER_TIMEOUT = 300.0  # seconds one claim may take (the slowest matrix claim measured: opacus.prv at high_eps_b3,
#                      about 100 s on 2 busy cores)
MAX_MC_DRAWS = 2 * 10**8  # samples × steps per direction (the headline setting needs 3·10⁷, ~10 s per direction)
PLD_RTOL = 1e-6  # a claimed ε below the sandwich's lower ε·(1 − PLD_RTOL) − PLD_ATOL is unsound (the lower end is
PLD_ATOL = 1e-9  # rigorous up to the float64 rounding of the composed masses; the same relative slack as EPS_RTOL)
PLD_REFERENCE = True  # compute dpspec's PLD sandwich for every row (seconds per setting, cached); False: skip it
OPTIMISE_ORDER = True  # the reference RDP-derived ε at the optimal α (base.rdp_to_dp, seconds per setting); False:
#                        at the best integer order ≤ 256 (quicker; the verdict tests use it)


@dataclass
class AuditResult:
    library: str
    version: str
    accountant: str
    setting: dict[str, Any]
    claimed: dict[str, Any] | None
    reference: dict[str, Any] | None
    mc_interval: dict[str, Any] | None
    verdict: str
    evidence: dict[str, Any]
    is_bound: bool = True
    semantics: dict[str, Any] = field(default_factory=dict)
    reason: str = ""
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return jsonable({
            "library": self.library, "version": self.version, "accountant": self.accountant,
            "setting": self.setting, "claimed": self.claimed, "reference": self.reference,
            "mc_interval": self.mc_interval, "verdict": self.verdict, "evidence": self.evidence,
            "is_bound": self.is_bound, "semantics": self.semantics, "reason": self.reason,
            "seconds": round(self.seconds, 3)})


# ---------------------------------------------------------------------------------------------------------
# Property checks on a claim


def _check(name: str, ok: bool | None, detail: str = "", **data: Any) -> dict[str, Any]:
    return {"name": name, "ok": ok, "detail": detail, **data}


def property_checks(claim: _adapters.Claim, setting: Setting) -> list[dict[str, Any]]:
    eps = claim.epsilon
    out = [_check("eps_not_nan", not (isinstance(eps, float) and math.isnan(eps)), f"ε = {eps}"),
           _check("eps_nonnegative", not eps < 0, f"ε = {eps}")]
    pairs = sorted(claim.eps_at.items())
    if len(pairs) > 1:  # ε must be non-increasing in δ
        bad = [(d1, e1, d2, e2) for (d1, e1), (d2, e2) in zip(pairs, pairs[1:]) if e2 > e1 + MONO_TOL]
        out.append(_check("eps_nonincreasing_in_delta", not bad,
                          "; ".join(f"ε({d2:g})={e2:.6g} > ε({d1:g})={e1:.6g}" for d1, e1, d2, e2 in bad)))
    if claim.rdp:
        orders = sorted(claim.rdp)
        vals = [claim.rdp[a] for a in orders]
        nan = [a for a, v in zip(orders, vals) if math.isnan(v)]
        out.append(_check("rdp_not_nan", not nan, f"NaN at α = {nan}" if nan else ""))
        fin = [(a, v) for a, v in zip(orders, vals) if math.isfinite(v)]
        neg = [(a, v) for a, v in fin if v < 0]
        out.append(_check("rdp_nonnegative", not neg, "; ".join(f"ρ({a:g}) = {v:.6g}" for a, v in neg)))
        dec = [(a1, v1, a2, v2) for (a1, v1), (a2, v2) in zip(fin, fin[1:]) if v2 < v1 * (1 - 1e-9) - MONO_TOL]
        out.append(_check("rdp_nondecreasing_in_alpha", not dec,
                          "; ".join(f"ρ({a2:g})={v2:.6g} < ρ({a1:g})={v1:.6g}" for a1, v1, a2, v2 in dec[:3])))
        cgf = [(a, (a - 1) * v) for a, v in fin]
        slopes = [(c2 - c1) / (a2 - a1) for (a1, c1), (a2, c2) in zip(cgf, cgf[1:])]
        nonconvex = [cgf[i + 1][0] for i, (s1, s2) in enumerate(zip(slopes, slopes[1:]))
                     if s2 < s1 - 1e-7 * max(1.0, abs(s1))]
        out.append(_check("cgf_convex", not nonconvex,
                          f"(α−1)ρ(α) not convex at α = {nonconvex[:5]}" if nonconvex else ""))
        if claim.order is not None and len(orders) > 1:
            edge = claim.order in (orders[0], orders[-1])
            out.append(_check("optimum_inside_grid", not edge,
                              f"optimal order {claim.order:g} is at the edge of the grid" if edge else ""))
    dense = claim.extra.get("eps_dense_grid")
    if dense is not None and math.isfinite(eps):
        out.append(_check("order_grid_sensitivity", None, f"ε(default grid) − ε(dense grid) = {eps - dense:.6g}",
                          eps_dense_grid=dense, difference=eps - dense))
    return out


# ---------------------------------------------------------------------------------------------------------
# Reference comparisons


def _compare_orders(claim: _adapters.Claim, setting: Setting) -> list[float]:
    grid = sorted(claim.rdp)
    chosen = set(setting.orders or ()) | set(setting.check_orders) | (set(SPREAD_ORDERS) & set(grid))
    if claim.order is not None and claim.order in grid:
        i = grid.index(claim.order)
        chosen |= set(grid[max(0, i - 1):i + 2])
    return sorted(a for a in chosen if a in claim.rdp)


BBGHS_KL = "bbghs_kl"  # dp-accounting's conversion: CKS20 Prop. 12, and ε = 0 where its KL fallback applies


def own_epsilon(rho_total, alpha: float, delta: float, conversion: str):
    """The accountant's own conversion of a total RDP value at one order: ``reference.epsilon``; for ``bbghs_kl``
    (dp-accounting 0.6.0 ``rdp_privacy_accountant.compute_epsilon``) first its fallback ε = 0 where
    δ² + expm1(−ρ(α)) > 0, valid as δ ≥ √(1 − e^{−ρ(α)}) ≥ √(1 − e^{−KL}) ≥ TV (Bretagnolle–Huber; KL ≤ ρ(α)).
    Without it the floor of an accountant that reports ε = 0 there was the CKS20 value (3.58 at q = 0.01, σ = 1,
    T = 10, δ = 0.5, where dpspec's PLD sandwich certifies ε = 0): a false "unsound"."""
    if conversion == BBGHS_KL:
        import mpmath

        with mpmath.workdps(reference.DPS):
            if mpmath.mpf(delta) ** 2 + mpmath.expm1(-mpmath.mpf(rho_total)) > 0:
                return mpmath.mpf(0)
        conversion = "bbghs"
    return reference.epsilon(rho_total, alpha, delta, conversion)


def rdp_reference(adapter: _adapters.Adapter, claim: _adapters.Claim, setting: Setting) -> dict[str, Any]:
    """Claimed vs exact RDP at the compared orders, and the reference ε by the same conversion at the same
    orders (the accountant's optimal order, or the best compared order when it reports none)."""
    rows = []
    for a in _compare_orders(claim, setting):
        exact = float(setting.steps * reference.rdp(a, setting.q, setting.sigma))
        c = claim.rdp[a]
        ok = not math.isnan(c) and c >= exact * (1 - RDP_RTOL) - RDP_ATOL
        rows.append({"alpha": a, "claimed": c, "exact": exact, "rel_diff": (c - exact) / exact if exact else None,
                     "upper_bound": ok})
    out: dict[str, Any] = {"source": "base.sgm_rdp", "conversion": adapter.conversion, "rdp": rows}
    finite_rows = [r for r in rows if math.isfinite(r["exact"])]
    at = [r for r in finite_rows if r["alpha"] == claim.order] or finite_rows
    if at:
        best = min(at, key=lambda r: float(own_epsilon(r["exact"], r["alpha"], setting.delta, adapter.conversion)))
        eps_ref = float(own_epsilon(best["exact"], best["alpha"], setting.delta, adapter.conversion))
        out.update({"eps_same_orders": eps_ref, "alpha": best["alpha"],
                    "eps_rel_diff": (claim.epsilon - eps_ref) / eps_ref if eps_ref else None})
    return out


def rdp_epsilon(setting: Setting) -> dict[str, Any]:
    """The reference RDP-derived ε (an upper bound on the truth): base.rdp_to_dp of the base.sgm_rdp curve (α
    optimised); with ``OPTIMISE_ORDER`` off, the best integer order (BBGHS conversion), a valid bound as well."""
    return dict(_rdp_epsilon(setting.q, setting.sigma, setting.steps, setting.delta, OPTIMISE_ORDER))


@functools.lru_cache(maxsize=256)
def _rdp_epsilon(q: float, sigma: float, steps: int, delta: float, optimise: bool = True,
                 max_order: int = 256) -> dict[str, Any]:
    if optimise:
        return {"eps_rdp": reference.optimal_epsilon(q, sigma, steps, delta), "how": "base.rdp_to_dp (α optimised)"}
    best = None
    for a in range(2, max_order + 1):  # the remove direction, the larger one (MTZ19 Thm 5)
        e = float(reference.epsilon(steps * reference.log_a(a, q, sigma) / (a - 1), a, delta, "bbghs"))
        if best is None or e < best[0]:
            best = (e, a)
        elif e > best[0] * 1.5 + 1:
            break
    return {"eps_rdp": best[0], "alpha_rdp": best[1], "how": "best integer order, BBGHS conversion (base.sgm_rdp)"}


# ---------------------------------------------------------------------------------------------------------
# dpspec's PLD sandwich: the certified two-sided reference (a floor for every method, a ceiling for tight ones)

PLD_HOW = ("dpspec.fast.Accountant(method='pld').sgm(q, σ, T).epsilon_interval(δ): connect-the-dots upper "
           "(Doroshenko et al. 2022, arXiv 2207.04380) and dpspec's lowered-dots lower PLD, both directions (max)")


def _pld_accountant(q: float, sigma: float, steps: int):
    """dpspec's PLD accountant for T steps of the SGM (docs/pld.md), imported lazily:
    the audit runs (without this reference) in a tree that does not have it."""
    from dpspec.fast import Accountant

    return Accountant(method="pld").sgm(q, sigma, steps)


@functools.lru_cache(maxsize=256)
def _pld_interval(q: float, sigma: float, steps: int, delta: float) -> tuple[float, float, float, tuple[str, ...]]:
    """(lower ε, upper ε, grid step, warnings) of dpspec's PLD sandwich at δ (cached: one composition per setting
    and δ). Its warnings (e.g. an interval wider than the accountant's target) go into the row, not the terminal."""
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        acc = _pld_accountant(q, sigma, steps)
        lo, hi = acc.epsilon_interval(delta)
    return float(lo), float(hi), float(acc.grid_step), tuple(dict.fromkeys(str(w.message) for w in caught))


def pld_sandwich(setting: Setting, delta_rel: float = 0.0) -> dict[str, Any]:
    """dpspec's certified interval [``eps_pld_lower``, ``eps_pld_upper``] ∋ the true ε(δ) of the setting (both
    directions, the max), its grid step, and (``delta_rel`` > 0) the upper ε at δ·(1 − delta_rel)
    (``eps_pld_upper_shifted``: where a PRV accountant evaluates, δ minus its δ error). ``pld_error`` says why the
    sandwich is missing (not in this tree, refused, failed); ``PLD_REFERENCE`` off skips it."""
    if not PLD_REFERENCE:
        return {"pld_skipped": "PLD_REFERENCE is off"}
    args = (setting.q, setting.sigma, setting.steps)
    try:
        lo, hi, step, caught = _pld_interval(*args, setting.delta)
        out: dict[str, Any] = {"eps_pld_lower": lo, "eps_pld_upper": hi, "pld_grid_step": step, "pld_how": PLD_HOW}
        if caught:
            out["pld_warnings"] = list(caught)
        if delta_rel > 0:
            out["eps_pld_upper_shifted"] = _pld_interval(*args, setting.delta * (1 - delta_rel))[1]
            out["pld_shift_delta_rel"] = delta_rel
    except Exception as exc:  # the reference must not take the audit down; say why it is missing
        return {"pld_error": f"{type(exc).__name__}: {exc}"[:500]}
    if not (math.isfinite(lo) and lo >= 0 and hi >= lo):  # a broken sandwich decides nothing
        return {"pld_error": f"dpspec PLD sandwich [{lo!r}, {hi!r}] is not an interval of ε ≥ 0", **out,
                "eps_pld_lower": None, "eps_pld_upper": None}
    return out


def pld_comparison(adapter: _adapters.Adapter, claim: _adapters.Claim, ref: dict[str, Any]) -> dict[str, Any] | None:
    """The claim against dpspec's sandwich: ``below_lower`` (an under-report, certified: the lower ε is rigorous),
    and for tight accountants (``adapter.declared_error``) ``above_upper``: the claim exceeds the upper ε (at
    δ·(1 − delta_rel)) by more than the declared ε error. None without a sandwich."""
    lo, hi = ref.get("eps_pld_lower"), ref.get("eps_pld_upper")
    if lo is None or hi is None:
        return None
    eps = claim.epsilon
    floor = lo * (1 - PLD_RTOL) - PLD_ATOL
    out: dict[str, Any] = {"lower": lo, "upper": hi, "grid_step": ref.get("pld_grid_step"), "claimed": eps,
                           "floor": floor, "rtol": PLD_RTOL, "atol": PLD_ATOL, "below_lower": eps < floor,
                           "inside": floor <= eps <= hi * (1 + PLD_RTOL) + PLD_ATOL}
    de = adapter.declared_error
    if de:
        ceiling = ref.get("eps_pld_upper_shifted", hi)
        limit = ceiling * (1 + PLD_RTOL) + PLD_ATOL + float(de.get("eps", 0.0))
        out.update({"declared_error": dict(de), "upper_at_shifted_delta": ceiling, "limit": limit,
                    "excess": eps - ceiling if math.isfinite(ceiling) else None,
                    "above_upper": math.isfinite(limit) and eps > limit})
    return out


def _pld_verdict(p: dict[str, Any], c: _adapters.Claim, result) -> AuditResult:
    """Loose or consistent for a tight accountant, by the sandwich (its upper ε is certified, so "inside" needs
    no Monte Carlo; the Monte Carlo slack stays in the evidence)."""
    lo, hi, de = p["lower"], p["upper"], p["declared_error"]
    what = de.get("what", f"declared ε error {de.get('eps', 0):g}")
    if p["above_upper"]:
        if c.epsilon == math.inf:
            return result("loose", f"ε = ∞ claimed (valid, vacuous); dpspec certifies ε ≤ {hi:.6g}")
        return result("loose", f"claimed ε = {c.epsilon:.6g} exceeds dpspec's certified upper ε = "
                               f"{p['upper_at_shifted_delta']:.6g} by {p['excess']:.3g}, more than its own "
                               f"declared error ({what})")
    return result("consistent", f"claimed ε = {c.epsilon:.6g} within dpspec's certified ε ∈ [{lo:.6g}, {hi:.6g}] "
                                f"(grid step {p['grid_step']:g}) up to its declared error ({what})")


# ---------------------------------------------------------------------------------------------------------
# One row


@dataclass
class _Partial:
    adapter: _adapters.Adapter
    setting: Setting
    version: str
    claim: _adapters.Claim | None
    error: str
    seconds: float
    output: isolation.Captured = field(default_factory=isolation.Captured)


def _preimport(adapter: _adapters.Adapter) -> isolation.Captured:
    """Import the peer library here (once, captured), so that the forked claims do not import it again."""
    import importlib
    import sys

    if not adapter.module or adapter.module in sys.modules:
        return isolation.Captured()
    with isolation.capture() as out:
        try:
            importlib.import_module(adapter.module)
        except Exception:  # the claim imports it again and reports the failure in its row
            pass
    return out


def run_claim(adapter: _adapters.Adapter, setting: Setting, timeout: float | None = PEER_TIMEOUT) -> _Partial:
    """The accountant's claim at ``setting``, in a child process limited to ``timeout`` seconds (None: in this
    process, no limit), its output captured."""
    version = adapter.version()
    if version == "not installed":
        return _Partial(adapter, setting, version, None, f"library {adapter.library} is not installed", 0.0)
    deltas = [setting.delta, setting.delta / 10]
    output = _preimport(adapter)
    outcome = isolation.run_limited(adapter.claim, setting, deltas, timeout=timeout)
    output.extend(outcome.captured)
    claim, error = outcome.value, outcome.error
    if not error and not isinstance(claim, _adapters.Claim):
        claim, error = None, f"returned {type(claim).__name__}, not a Claim"
    if error:  # a peer that raises or does not answer is a finding, not a crash
        return _Partial(adapter, setting, version, None, error[:500], outcome.seconds, output)
    return _Partial(adapter, setting, version, claim, "", outcome.seconds, output)


def judge(p: _Partial, truth: montecarlo.SgmTruth | None, confidence: float, mc_reason: str = "",
          command: str = "") -> AuditResult:
    a, s = p.adapter, p.setting
    base = dict(library=a.library, version=p.version, accountant=a.name, setting=s.to_json(),
                is_bound=a.is_bound, semantics={"accountant_class": a.accountant, **a.semantics})
    evidence: dict[str, Any] = {"command": command, "peer_output": p.output.to_json()}
    if p.claim is None:  # the row still shows what dpspec certifies there (the sandwich is cheap and cached)
        sandwich = pld_sandwich(s)
        return AuditResult(claimed=None, reference=sandwich if "eps_pld_lower" in sandwich else None,
                           mc_interval=None, verdict="error", evidence=evidence, reason=p.error, seconds=p.seconds,
                           **base)
    c = p.claim
    claimed = {"epsilon": c.epsilon, "delta": s.delta, "order": c.order, "eps_at": c.eps_at, **c.extra}
    if c.rdp:
        claimed["rdp_orders"] = len(c.rdp)
    checks = property_checks(c, s)
    evidence["checks"] = checks
    failed = [k for k in checks if k["ok"] is False]
    evidence["failed_checks"] = [k["name"] for k in failed]

    errors = [k for k in failed if k["name"] in ("eps_not_nan", "eps_nonnegative", "rdp_not_nan")]
    ref: dict[str, Any] = {}
    try:
        if c.rdp and a.conversion:
            ref.update(rdp_reference(a, c, s))
        ref.update(rdp_epsilon(s))
    except Exception as exc:  # the reference must not take the audit down; say why it is missing
        ref["error"] = f"{type(exc).__name__}: {exc}"
    ref.update(pld_sandwich(s, float((a.declared_error or {}).get("delta_rel", 0.0))))
    mc = None
    if truth is not None and math.isfinite(c.epsilon) and c.epsilon >= 0:
        mc = truth.delta_interval(c.epsilon, confidence)
        mc["sample"] = truth.record()
    elif mc_reason:
        evidence["mc_skipped"] = mc_reason

    def result(verdict: str, reason: str) -> AuditResult:
        return AuditResult(claimed=claimed, reference=ref or None, mc_interval=mc, verdict=verdict,
                           evidence=evidence, reason=reason, seconds=p.seconds, **base)

    if errors:
        return result("error", "; ".join(f"{k['name']}: {k['detail']}" for k in errors))
    below = [r for r in ref.get("rdp", []) if not r["upper_bound"]]
    if below:
        r0 = min(below, key=lambda r: r["rel_diff"])
        evidence["rdp_below_exact"] = below
        return result("violation", f"claimed RDP below the exact value at α={r0['alpha']:g}: "
                                   f"{r0['claimed']:.6g} < {r0['exact']:.6g} (total over T={s.steps})")
    floor = _certified_floor(c, ref)
    if floor is not None and c.epsilon < floor * (1 - EPS_RTOL) - EPS_ATOL:
        rel = (c.epsilon - floor) / floor
        evidence["unsound"] = {"claimed": c.epsilon, "reference_floor": floor, "alpha": ref.get("alpha"),
                               "rel_diff": rel, "rtol": EPS_RTOL, "atol": EPS_ATOL}
        return result("violation", f"unsound: claimed ε = {c.epsilon:.6g} is {-100 * rel:.3g} % below the "
                                   f"reference ε = {floor:.6g} of its own conversion ({a.conversion}) of the exact "
                                   f"RDP at its own order α = {ref['alpha']:g} (certified by the mpmath "
                                   f"reference; tolerance {EPS_RTOL:g} relative), whatever the Monte Carlo says")
    tight = pld_comparison(a, c, ref)
    if tight is not None:
        evidence["pld"] = tight
    if tight is not None and tight["below_lower"]:
        rel = (c.epsilon - tight["lower"]) / tight["lower"] if tight["lower"] else -math.inf
        evidence["unsound"] = {"claimed": c.epsilon, "reference_floor": tight["lower"], "source": "dpspec PLD",
                               "rel_diff": rel, "rtol": PLD_RTOL, "atol": PLD_ATOL}
        return result("violation", f"unsound: claimed ε = {c.epsilon:.6g} is below dpspec's certified lower bound "
                                   f"ε ≥ {tight['lower']:.6g} (PLD sandwich [{tight['lower']:.6g}, "
                                   f"{tight['upper']:.6g}], grid step {tight['grid_step']:g}; {-100 * rel:.3g} % "
                                   f"under; tolerance {PLD_RTOL:g} relative), whatever the Monte Carlo says")
    if mc is not None and mc["lo"] > s.delta:
        evidence["delta_lower_confidence_bound"] = mc["lo"]
        p_value = truth.violation_pvalue(c.epsilon, s.delta)
        evidence["mc_test"] = {"pvalue": p_value, "level": 1 - confidence, "cells": 1, "correction": "none",
                               "rejected": True}
        return result("violation", f"true δ({c.epsilon:.6g}) ≥ {mc['lo']:.3g} > claimed δ = {s.delta:g} "
                                   f"(confidence {confidence}; p = {p_value:.3g})")
    if mc is not None:
        slack = s.delta / mc["hi"] if mc["hi"] > 0 else math.inf
        evidence["delta_slack"] = slack
    if tight is not None and "above_upper" in tight:
        return _pld_verdict(tight, c, result)
    if mc is not None:
        if slack > LOOSE_FACTOR:
            return result("loose", f"valid; claimed δ is {slack:.3g}× the upper confidence bound of the true "
                                   f"δ({c.epsilon:.6g}) = {mc['hi']:.3g}")
        return result("consistent", f"true δ({c.epsilon:.6g}) ∈ [{mc['lo']:.3g}, {mc['hi']:.3g}] "
                                    f"∋ or ≤ claimed δ = {s.delta:g}")
    return _judge_without_mc(c, ref, result)


def _certified_floor(c: _adapters.Claim, ref: dict[str, Any]) -> float | None:
    """The least ε an RDP accountant may report, certified by the reference: its own conversion of the exact RDP at
    the order it reports (``eps_same_orders`` computed at ``claim.order``). Its RDP there is ≥ the exact value (else
    an RDP violation) and the conversion is increasing in ρ, so a smaller ε under-reports. None when the accountant
    reports no order among the compared ones (it may optimise over orders the reference did not evaluate) or no
    RDP: the RDP-derived ε is an upper bound on the truth, never a floor for other methods (PLD, PRV)."""
    same = ref.get("eps_same_orders")
    if same is None or c.order is None or ref.get("alpha") != c.order or not math.isfinite(c.epsilon):
        return None
    return float(same)


def _judge_without_mc(c: _adapters.Claim, ref: dict[str, Any], result) -> AuditResult:
    same = ref.get("eps_same_orders")
    limit = same if same is not None else ref.get("eps_rdp")
    if c.epsilon == math.inf:
        return result("loose", "ε = ∞ claimed (valid, vacuous)")
    if limit is None:
        return result("consistent", "no Monte Carlo truth and no reference here: only the property checks ran")
    rel = (c.epsilon - limit) / limit if limit else 0.0
    what = "the reference ε of the same conversion at the same orders" if same is not None else \
        "the reference RDP-derived ε"
    if rel > LOOSE_EPS_REL:
        return result("loose", f"claimed ε = {c.epsilon:.6g} exceeds {what} ({limit:.6g}) by {100 * rel:.3g} %")
    return result("consistent", f"claimed ε = {c.epsilon:.6g} vs {what} {limit:.6g} ({100 * rel:+.3g} %); "
                                "no Monte Carlo truth at this setting")


# ---------------------------------------------------------------------------------------------------------
# Public API


def _truth_for(setting: Setting, claims: Iterable[float], samples: int, seed: int
               ) -> tuple[montecarlo.SgmTruth | None, str]:
    if not setting.mc:
        return None, "setting marked mc=False (δ or ε out of Monte Carlo reach, or a pure numerics stress point)"
    if not 0 < setting.q < 1:
        return None, "q = 1: no subsampling"
    eps = [e for e in claims if math.isfinite(e) and e >= 0]
    if not eps:
        return None, "no finite, non-negative claim to evaluate"
    if samples * setting.steps > MAX_MC_DRAWS:
        return None, (f"samples × steps = {samples * setting.steps:.3g} composed draws per direction exceed the "
                      f"budget MAX_MC_DRAWS = {MAX_MC_DRAWS:.3g} (fewer --samples, or --no-mc)")
    eps_ref = statistics.median(eps)  # proposals are tuned before sampling, from the claims only
    try:
        return montecarlo.sgm_truth(setting.q, setting.sigma, setting.steps, eps_ref, samples=samples, seed=seed,
                                    max_draws=MAX_MC_DRAWS), ""
    except (ValueError, ArithmeticError) as exc:  # over the budget, or the reference refused (PrecisionError)
        return None, f"Monte Carlo truth unavailable: {type(exc).__name__}: {exc}"


def command_for(name: str, setting: Setting, samples: int, seed: int, confidence: float) -> str:
    """The command that reproduces one row (a setting outside the fixed matrix by its four numbers)."""
    known = any(s == setting for s in SETTINGS)
    where = f"--setting {setting.name}" if known else \
        f"--q {setting.q!r} --sigma {setting.sigma!r} --steps {setting.steps} --delta {setting.delta!r}"
    return f"dpspec audit accountant {name} {where} --samples {samples} --seed {seed} --confidence {confidence}"


def check_run_options(samples: int, seed: int, confidence: float, timeout: float | None) -> None:
    """Refuse bad run options before any claim runs, naming the option (DomainError)."""
    from dpspec.reference.domains import Integer, Real
    from dpspec.reference.errors import DomainError

    for name, value, lo in (("samples", samples, 2), ("seed", seed, 0)):
        if isinstance(value, bool) or not Integer(lo).contains(value):
            raise DomainError(name, value, Integer(lo).describe())
    Real(0, 1).check("confidence", confidence)
    if timeout is not None:
        Real(0, math.inf).check("timeout", timeout)


def audit_accountant(name: str, setting: Setting | str = "headline", *, samples: int = DEFAULT_SAMPLES,
                     seed: int = 0, confidence: float = DEFAULT_CONFIDENCE, adapter: _adapters.Adapter | None = None,
                     mc: bool = True, timeout: float | None = PEER_TIMEOUT) -> AuditResult:
    """Audit one accountant at one setting. ``adapter`` overrides the registry (e.g. a user's own accountant;
    ``name`` may also be ``module:object``, see adapters.py); the claim runs under ``timeout`` seconds."""
    check_run_options(samples, seed, confidence, timeout)
    setting = get_setting(setting) if isinstance(setting, str) else setting
    ad = adapter or _adapters.get_adapter(name)
    p = run_claim(ad, setting, timeout)
    truth, why = (None, "Monte Carlo disabled") if not mc else \
        _truth_for(setting, [p.claim.epsilon] if p.claim else [], samples, seed)
    return judge(p, truth, confidence, why, command_for(ad.name, setting, samples, seed, confidence))


def audit_all(names: Iterable[str] | None = None, settings: Iterable[Setting] | None = None, *,
              samples: int = DEFAULT_SAMPLES, seed: int = 0, confidence: float = DEFAULT_CONFIDENCE,
              mc: bool = True, progress=None, timeout: float | None = PEER_TIMEOUT) -> list[AuditResult]:
    """The matrix: every accountant × every setting. The Monte Carlo truth is sampled once per setting (tuned at
    the median claim) and shared by its rows; ``progress(message)`` is called as the run advances; each claim
    runs under ``timeout`` seconds."""
    check_run_options(samples, seed, confidence, timeout)
    ads = [_adapters.get_adapter(n) for n in (names or _adapters.ADAPTERS)]
    results: list[AuditResult] = []
    for s in (settings or SETTINGS):
        partials = []
        for ad in ads:
            if progress:
                progress(f"{s.name}: {ad.name}")
            partials.append(run_claim(ad, s, timeout))
        claims = [p.claim.epsilon for p in partials if p.claim is not None]
        if progress and mc and s.mc:
            progress(f"{s.name}: Monte Carlo truth")
        truth, why = _truth_for(s, claims, samples, seed) if mc else (None, "Monte Carlo disabled")
        results += [judge(p, truth, confidence, why, command_for(p.adapter.name, s, samples, seed, confidence))
                    for p in partials]
    return holm(results, 1 - confidence)


def holm(results: list[AuditResult], level: float) -> list[AuditResult]:
    """Holm's step-down procedure (Holm 1979) across the Monte Carlo-tested cells of a matrix, family-wise level
    ``level``: the cells' p-values of H0 "true δ(claimed ε) ≤ claimed δ" sorted ascending, p_(i) is rejected while
    p_(j) ≤ level / (m − j + 1) for every j ≤ i (m = number of cells with a Monte Carlo interval). A cell rejected
    at its own level but not by Holm becomes ``consistent`` (reason and ``evidence.mc_test`` say why).
    Deterministic violations (RDP below exact, unsound ε) are certified by the reference and not part of the family.
    Only cells rejected at their own level need a p-value: the others have p > level and are never rejected."""
    tested = [r for r in results if r.mc_interval is not None]
    m = len(tested)
    cand = sorted((r for r in tested if "mc_test" in r.evidence), key=lambda r: r.evidence["mc_test"]["pvalue"])
    stop = False
    for i, r in enumerate(cand):
        t = r.evidence["mc_test"]
        threshold = level / (m - i)
        stop = stop or t["pvalue"] > threshold
        t.update({"cells": m, "level": level, "correction": "Holm", "holm_threshold": threshold,
                  "rejected": not stop})
        if stop:
            mc = r.mc_interval
            r.verdict = "consistent"
            r.reason = (f"true δ({r.claimed['epsilon']:.6g}) ∈ [{mc['lo']:.3g}, {mc['hi']:.3g}]: above the claimed "
                        f"δ = {r.setting['delta']:g} at this cell's level, but p = {t['pvalue']:.3g} is not "
                        f"significant after Holm across {m} Monte Carlo cells (family-wise level {level:g})")
    for r in tested:
        r.evidence.setdefault("mc_test", {"pvalue": None, "cells": m, "level": level, "correction": "Holm",
                                          "rejected": False})
    return results
