"""The public checking API: is a claimed RDP curve or privacy profile a valid bound for a witness pair?

    verify_rdp_bound(curve, witness, params, alphas, confidence=0.999, samples=None, seed=0)
    verify_profile_bound(delta_of_eps, witness, params, eps, confidence=0.999, samples=None, seed=0)

``witness`` is a catalogue witness id ("base.gaussian": sigma; "base.laplace": b; "base.sgm": q, sigma,
direction) or any pair object with ``sample``/``log_p``/``log_q`` (see ``dpspec.reference.catalogue.Witness``);
``params`` are the witness's parameters, plus optionally ``steps`` for T-fold composition. The privacy loss is
sampled once (``samples`` draws, default :data:`DEFAULT_SAMPLES`; seeded) and every point is tested; the points
of one call are Holm-corrected together, so a correct bound fails with probability at most 1 − confidence.

The returned :class:`~dpspec.conformance.verdicts.Verdict` has ``passed``, ``details`` (one Check per point: claimed
value, estimate, confidence bound(s), p-value, and for RDP the exact comparison when the witness has
``log_moment``) and ``reproduction`` (witness id, parameters, steps, seed, sample size, strata).
"""
from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Mapping

from .checks import profile_check, rdp_exact_check, rdp_moment_check
from .sampling import resolve_witness, sample_losses, split_steps
from .verdicts import FAIL, PASS, Verdict, apply_holm

DEFAULT_SAMPLES = 100_000


def verify_rdp_bound(curve: Callable[[Any], Any], witness: Any, params: Mapping[str, Any], alphas: Iterable[Any],
                     confidence: float = 0.999, samples: int | None = None, seed: int = 0, *,
                     claim: str = "upper") -> Verdict:
    """Check a claimed RDP curve α ↦ ε(α) at ``alphas`` against the witness pair.

    ``claim="upper"`` (default): the curve claims ε(α) ≥ D_α(P‖Q); it fails when the lower confidence bound on the
    witness's moment exceeds e^{(α−1)ε(α)} (Holm-corrected over the α's), or when ε(α) is below the exact D_α
    (witness ``log_moment``). ``"exact"`` also fails when ε(α) differs from the exact D_α; ``"lower"`` is checked
    against the exact D_α only (sampling cannot bound a heavy-tailed moment from above).
    """
    _check_args(confidence, claim)
    start = time.perf_counter()
    pair = resolve_witness(witness)
    own, steps = split_steps(pair, params)
    sample = sample_losses(pair, params, samples or DEFAULT_SAMPLES, seed)
    dominating = bool(getattr(pair, "dominating", True))
    log_moment = getattr(pair, "log_moment", None)
    checks = []
    alphas = list(alphas)
    for alpha in alphas:
        claimed = curve(alpha)
        point = {"alpha": _plain(alpha)}
        if claim in ("upper", "exact"):
            checks.append(rdp_moment_check(sample, alpha, claimed, point, confidence))
        side = claim if dominating else "upper"
        if log_moment is not None and (dominating or claim != "lower"):
            checks.append(rdp_exact_check(log_moment(alpha, **own), alpha, claimed, steps, point, side,
                                          sample.record()))
    return _verdict("rdp bound", checks, sample, confidence, start, "verify_rdp_bound", curve,
                    [_plain(a) for a in alphas])


def verify_profile_bound(delta_of_eps: Callable[[Any], Any], witness: Any, params: Mapping[str, Any],
                         eps: Iterable[Any], confidence: float = 0.999, samples: int | None = None, seed: int = 0,
                         *, claim: str = "upper") -> Verdict:
    """Check a claimed privacy profile ε ↦ δ(ε) at the ``eps`` points against the witness pair.

    ``claim="upper"``: fails when the lower confidence bound of the witness's δ(ε) exceeds the claim
    (Holm-corrected over the ε's); ``"lower"``: when the upper confidence bound is below it; ``"exact"``: either.
    """
    _check_args(confidence, claim)
    start = time.perf_counter()
    pair = resolve_witness(witness)
    sample = sample_losses(pair, params, samples or DEFAULT_SAMPLES, seed)
    dominating = bool(getattr(pair, "dominating", True))
    if not dominating and claim == "lower":
        return Verdict("profile bound", "skipped", reproduction=sample.record(), confidence=confidence,
                       reason="a non-dominating witness cannot support a lower bound")
    side = claim if dominating else "upper"
    eps = list(eps)
    checks = [profile_check(sample, e, delta_of_eps(e), {"eps": _plain(e)}, side, confidence) for e in eps]
    return _verdict("profile bound", checks, sample, confidence, start, "verify_profile_bound", delta_of_eps,
                    [_plain(e) for e in eps])


def _verdict(subject, checks, sample, confidence, start, fn, claimed, points) -> Verdict:
    apply_holm(checks, 1 - confidence)
    v = Verdict(subject, PASS, checks, sample.record(), confidence, seconds=time.perf_counter() - start)
    v.settle()
    if v.status == FAIL:
        v.command = _command(v, fn, claimed, points)
    return v


def _command(v: Verdict, fn: str, claimed: Callable, points: list) -> str:
    """The call that reproduces the verdict (the claimed function by its catalogue id when it has one)."""
    w = v.reproduction
    name = getattr(claimed, "statement_id", None)
    what = (f"catalogue.curve({name!r}, **{getattr(claimed, 'params', {})!r})" if name
            else getattr(claimed, "__name__", "<claimed function>"))
    params = dict(w["params"], **({"steps": w["steps"]} if w["steps"] > 1 else {}))
    return (f"{fn}({what}, {w['witness']!r}, {params!r}, {points!r}, confidence={v.confidence}, "
            f"samples={w['samples']}, seed={w['seed']})")


def _check_args(confidence: float, claim: str) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence={confidence!r} must lie in (0, 1)")
    if claim not in ("upper", "exact", "lower"):
        raise ValueError(f"claim={claim!r}: one of upper, exact, lower")


def _plain(v: Any) -> Any:
    try:
        return float(v)
    except (TypeError, ValueError):
        return v
