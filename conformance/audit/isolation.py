"""Running a peer's code with a bound on its time and with its output captured.

Peers can run for a very long time on valid input, or forever: Opacus 1.6.0's fractional-order series
(``_compute_log_a_for_frac_alpha``) loops until a term is below e^-30, and at σ = ∞ every term is NaN, so it never
stops; prv_accountant at σ = 0.001 and dp-accounting's PLD at T = 10⁹ ran for minutes without an answer (measured
here). ``run_limited`` therefore runs one call in a forked child process and waits at most ``timeout`` seconds; a
child still running then is killed and the call reported as timed out (the audit turns that into an ``error``
row). The call's result comes back through a pipe (it must pickle).

Peers also print freely (dp-accounting logs a warning per fractional order that does not converge: 118 lines
before the table of ``dpspec audit accountants --all``). :func:`capture` collects, while a call runs, Python
warnings, logging records (every logger's handlers are replaced by one collector) and whatever is written to the
file descriptors 1 and 2 (``print``, C-level writes); :class:`Captured` is the count and the distinct messages,
which go into the audit's evidence and report instead of the terminal.

Without ``fork`` (Windows) or with ``timeout=None`` the call runs in this process, captured but without a time
limit.
"""
from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable

MAX_MESSAGE_CHARS = 300  # one captured message is cut to this length
MAX_DISTINCT = 200  # distinct messages kept per call (the count still counts every one)


@dataclass
class Captured:
    """What a call printed, warned or logged: ``count`` messages in all, ``messages`` the distinct ones in order of
    first appearance (at most MAX_DISTINCT, each at most MAX_MESSAGE_CHARS characters)."""

    count: int = 0
    messages: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        text = " ".join(str(text).split())
        if not text:
            return
        if len(text) > MAX_MESSAGE_CHARS:
            text = text[:MAX_MESSAGE_CHARS] + "…"
        self.count += 1
        if text not in self.messages and len(self.messages) < MAX_DISTINCT:
            self.messages.append(text)

    def extend(self, other: "Captured") -> None:
        for m in other.messages:
            if m not in self.messages and len(self.messages) < MAX_DISTINCT:
                self.messages.append(m)
        self.count += other.count

    def to_json(self) -> dict[str, Any]:
        return {"count": self.count, "distinct": len(self.messages), "messages": list(self.messages)}


class _Collector(logging.Handler):
    def __init__(self, out: Captured):
        super().__init__(logging.NOTSET)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        try:
            self.out.add(f"{record.levelname} {record.name}: {record.getMessage()}")
        except Exception:  # a record whose message cannot be formatted
            self.out.add(f"{record.levelname} {record.name}: {record.msg!r}")


@contextlib.contextmanager
def capture():
    """Collect warnings, log records and writes to fds 1/2 made inside the block into a :class:`Captured`
    (yielded; filled when the block ends). Everything is restored afterwards."""
    out = Captured()
    collector = _Collector(out)
    loggers = [logging.getLogger()] + [lg for lg in logging.Logger.manager.loggerDict.values()
                                        if isinstance(lg, logging.Logger)]
    saved_handlers = [(lg, lg.handlers[:]) for lg in loggers]
    for lg in loggers:  # the root and every logger that does not propagate get the collector, no other handler
        lg.handlers = [collector] if lg is loggers[0] or not lg.propagate else []
    streams = (sys.stdout, sys.stderr)
    for s in streams:
        with contextlib.suppress(Exception):
            s.flush()
    tmp = tempfile.TemporaryFile(mode="w+b")
    saved_fds = []
    for fd in (1, 2):
        with contextlib.suppress(OSError):
            saved_fds.append((fd, os.dup(fd)))
            os.dup2(tmp.fileno(), fd)
    sys.stdout = sys.stderr = open(tmp.fileno(), "w", encoding="utf-8", errors="replace", closefd=False)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield out
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stdout.close()  # closefd=False: the temporary file stays open
        sys.stdout, sys.stderr = streams
        for fd, saved in saved_fds:
            os.dup2(saved, fd)
            os.close(saved)
        for lg, handlers in saved_handlers:
            lg.handlers = handlers
        for w in caught:
            out.add(f"{w.category.__name__}: {w.message}")
        tmp.seek(0)
        for line in tmp.read().decode("utf-8", errors="replace").splitlines():
            out.add(line)
        tmp.close()


@dataclass
class Outcome:
    """The result of one limited call: ``value`` (None when it failed), ``error`` (why, else ""), the seconds it
    took and what it printed."""

    value: Any
    error: str
    seconds: float
    captured: Captured


def _call_captured(fn: Callable, args: tuple) -> tuple[Any, str, Captured]:
    value, error = None, ""
    with capture() as out:
        try:
            value = fn(*args)
        except Exception as exc:  # a peer that raises is a finding
            error = f"raised {type(exc).__name__}: {exc}"
    return value, error, out


def _child(conn, fn: Callable, args: tuple) -> None:
    value, error, out = _call_captured(fn, args)
    try:
        conn.send((value, error, out))
    except Exception as exc:  # the value does not pickle
        conn.send((None, f"returned a value that cannot be sent back ({type(exc).__name__}: {exc})", out))
    conn.close()


def can_limit() -> bool:
    """Whether calls can be time-limited here (needs the ``fork`` start method)."""
    return "fork" in multiprocessing.get_all_start_methods()


def run_limited(fn: Callable, *args: Any, timeout: float | None) -> Outcome:
    """``fn(*args)`` with output captured, in a forked child killed after ``timeout`` seconds (module docstring).
    ``timeout=None``, or no fork on this platform: in this process, without a limit."""
    t0 = time.perf_counter()
    if timeout is None or not can_limit():
        value, error, out = _call_captured(fn, args)
        return Outcome(value, error, time.perf_counter() - t0, out)
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    for s in (sys.stdout, sys.stderr):  # nothing buffered here is written twice by the child
        with contextlib.suppress(Exception):
            s.flush()
    child = ctx.Process(target=_child, args=(send, fn, args))  # not a daemon: a peer may start processes
    child.start()
    send.close()
    try:
        if recv.poll(timeout):
            try:
                value, error, out = recv.recv()
            except EOFError:
                child.join()
                value, error, out = None, f"its process ended without a result (exit code {child.exitcode})", \
                    Captured()
        else:
            value, error, out = None, f"timed out after {timeout:g} s (killed)", Captured()
    finally:
        if child.is_alive():
            child.kill()
        child.join()
        recv.close()
    return Outcome(value, error, time.perf_counter() - t0, out)
