"""Property checks of a catalogue statement, driven by hypothesis with strategies from its parameter domains.

What is checked comes from the statement's data only:

* ``monotone``: {param: +1 | -1} — the value is non-decreasing (+1) or non-increasing (−1) in that parameter, the
  others held fixed (tuples componentwise), up to a relative tolerance of the working precision;
* ``fast``: the torch evaluator agrees with the reference within ``statement.tolerance`` (relative);
* ``properties``: extra callables ``f(statement, params)`` that raise (AssertionError or other) on a violation —
  where statements declare limits and identities.

A draw outside the theorem's own conditions (ConditionError) is discarded; any other error from the reference at a
point of its domain is a failure (it must evaluate there or say why). Each property search stops after
``max_examples`` draws or when its time budget is spent (then the number of examples checked is reported). The
same searches with larger budgets are the counterexample-search mode (``dpspec conform --full``).
"""
from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from typing import Any, Callable

import mpmath
from hypothesis import HealthCheck, Phase, Verbosity, given, reject, seed as hyp_seed, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable

from dpspec.reference.errors import ConditionError

from . import strategies
from .verdicts import Check

PROPERTY_DPS = 30


def statement_properties(statement, *, max_examples: int = 10, budget_s: float = 2.0, seed: int = 0,
                         dps: int = PROPERTY_DPS, cheap: bool = False) -> list[Check]:
    """Every declared property of ``statement`` as a deterministic Check (ok True/False, or None if no draw
    satisfied the statement's conditions within the budget). ``cheap``: curve parameters only from cheap curves."""
    jobs: list[tuple[str, st.SearchStrategy, Callable]] = []
    base = strategies.params(statement, cheap=cheap)
    for name, direction in statement.monotone.items():
        if name not in statement.param_names:
            jobs.append((f"monotone:{name}", st.just({}), _unknown_param(name)))
            continue
        domain = next(p.domain for p in statement.params if p.name == name)
        try:
            other = strategies.for_domain(domain, cheap)
        except TypeError:
            other = st.nothing()
        jobs.append((f"monotone:{name}", st.tuples(base, other),
                     _monotone(statement, name, direction, dps)))
    if statement.fast:
        jobs.append(("fast", base.filter(_fast_ready), _fast_agrees(statement, dps)))
    for fn in statement.properties:
        jobs.append((f"property:{getattr(fn, '__name__', 'check')}", base, _custom(statement, fn, dps)))
    budget_each = budget_s / max(1, len(jobs))
    return [search(name, strategy, body, max_examples=max_examples, budget_s=budget_each, seed=seed)
            for name, strategy, body in jobs]


def search(name: str, strategy: st.SearchStrategy, body: Callable[[Any], dict | None], *, max_examples: int,
           budget_s: float, seed: int) -> Check:
    """Run ``body`` on draws of ``strategy`` with hypothesis; ``body`` raises on a violation, calls
    ``hypothesis.reject()`` for draws outside the conditions, and returns the point it checked."""
    deadline = time.monotonic() + budget_s
    state = {"checked": 0, "failing": None, "error": None, "timeouts": 0}

    @hyp_seed(seed)
    @settings(max_examples=max_examples, deadline=None, database=None, verbosity=Verbosity.quiet,
              suppress_health_check=list(HealthCheck), phases=(Phase.explicit, Phase.generate, Phase.shrink))
    @given(strategy)
    def run(draw):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            reject()
        alarm = {"fired": False}
        try:
            with mpmath.workprec(mpmath.mp.prec), _time_limit(remaining, alarm):
                body(draw)
        except _OutOfTime:
            state["timeouts"] += 1
            reject()
        except ConditionError:
            reject()
        except Exception as exc:
            if alarm["fired"]:  # the interrupt surfaced as another error (caught and re-raised by the code under test)
                state["timeouts"] += 1
                reject()
            state["failing"], state["error"] = draw, f"{type(exc).__name__}: {exc}"
            raise
        state["checked"] += 1

    start = time.monotonic()
    try:
        run()
    except Unsatisfiable:
        pass
    except Exception:  # the property failed; state holds the (shrunk) counterexample
        pass
    seconds = time.monotonic() - start
    if state["failing"] is not None:
        return Check(name, _point(state["failing"]), ok=False, side="n/a",
                     message=f"counterexample: {state['error']}", methods={"seconds": seconds})
    if state["checked"] == 0:
        return Check(name, {}, ok=None, side="n/a", message="no draw within the statement's conditions and budget",
                     methods={"seconds": seconds})
    note = "" if state["checked"] >= max_examples else " (time budget reached)"
    if state["timeouts"]:
        note += f"; {state['timeouts']} evaluation(s) cut off by the budget"
    return Check(name, {}, ok=True, side="n/a", message=f"{state['checked']} examples{note}",
                 methods={"examples": state["checked"], "seconds": seconds})


class _OutOfTime(Exception):
    """An evaluation ran past the property's time budget (the draw is discarded, not failed)."""


def _inside_import(frame) -> bool:
    """Whether the interrupted code is executing a module import (importlib's frames are on the stack)."""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib"):
            return True
        frame = frame.f_back
    return False


@contextlib.contextmanager
def _time_limit(seconds: float, alarm: dict | None = None):
    """Interrupt the block after ``seconds`` (SIGALRM; main thread on POSIX only, otherwise no limit). ``alarm``
    records that the interrupt fired, so that an error the interrupted code raised in its place is recognised."""
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        yield
        return

    def expire(signum, frame):
        if _inside_import(frame):  # an import cut in half leaves a broken module in sys.modules (it happened:
            signal.setitimer(signal.ITIMER_REAL, 0.05)  # torch's lazy `import sympy`): wait until it is done
            return
        if alarm is not None:
            alarm["fired"] = True
        raise _OutOfTime()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ---------------------------------------------------------------------------------------------------------
# Property bodies


def _evaluate(statement, params: dict, dps: int):
    return statement.evaluate(dps=dps, **params).value


def _monotone(statement, name: str, direction: int, dps: int):
    def body(draw):
        params, other = draw
        lo_p, hi_p = sorted([params[name], other], key=float)
        if float(lo_p) == float(hi_p):
            return
        v_lo = _components(_evaluate(statement, {**params, name: lo_p}, dps))
        v_hi = _components(_evaluate(statement, {**params, name: hi_p}, dps))
        tol = mpmath.mpf(10) ** (-(dps - 10))
        for a, b in zip(v_lo, v_hi):
            if a == b:
                continue
            diff = (b - a) * direction
            if diff < -tol * max(abs(a), abs(b)):
                raise AssertionError(f"not {'non-decreasing' if direction > 0 else 'non-increasing'} in {name}: "
                                     f"{name}={_num(lo_p)} gives {mpmath.nstr(a, 12)}, {name}={_num(hi_p)} "
                                     f"gives {mpmath.nstr(b, 12)}")
    return body


def _fast_agrees(statement, dps: int):
    import torch

    def body(params):
        ref = _components(_evaluate(statement, params, dps))
        out = statement.fast_function()(**{k: _tensor(v, torch) for k, v in params.items()})
        fast = out if isinstance(out, tuple) else (out,)
        for r, f in zip(ref, fast):
            f = float(f)
            r = float(r) if mpmath.isfinite(r) else (math.inf if r > 0 else -math.inf)
            if math.isinf(r) or math.isinf(f):
                if r != f:
                    raise AssertionError(f"fast {f!r} vs reference {r!r}")
                continue
            if abs(f - r) > statement.tolerance * abs(r) + 1e-300:
                raise AssertionError(f"fast {f!r} vs reference {r!r}: relative error "
                                     f"{abs(f - r) / max(abs(r), 1e-300):.3g} > {statement.tolerance}")
    return body


def _custom(statement, fn, dps: int):
    def body(params):
        with mpmath.workdps(dps):
            fn(statement, statement.bind(params))
    return body


def _unknown_param(name: str):
    def body(_):
        raise AssertionError(f"monotone declares {name!r}, which is not a parameter")
    return body


def _fast_ready(params: dict) -> bool:
    return not any(callable(v) for v in params.values())


def _tensor(v, torch):
    if isinstance(v, str):
        return v
    if isinstance(v, (list, tuple)) or getattr(v, "ndim", 0):  # a Points dataset (rows of coordinates)
        return torch.tensor([[float(c) for c in row] for row in v], dtype=torch.float64).reshape(len(v), -1)
    return torch.tensor(float(v), dtype=torch.float64)


def _components(v):
    return v if isinstance(v, tuple) else (v,)


def _num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


def _point(draw) -> dict:
    if isinstance(draw, tuple):  # monotone draws: (params, other value)
        params, other = draw
        return {**{k: _show(v) for k, v in params.items()}, "other": _show(other)}
    return {k: _show(v) for k, v in draw.items()}


def _show(v):
    if callable(v):
        return getattr(v, "statement_id", getattr(v, "__name__", "curve")) + (
            f"{getattr(v, 'params', '')}" if hasattr(v, "params") else "")
    return _num(v)
