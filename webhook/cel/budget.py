"""The per-request deadline and the warnings collected while validating one request.

Both live in context variables, so concurrent requests (threads or asyncio tasks) never share them.
Running out of time is a failure of the call, not a statement about the object: `check_deadline()`
raises `DeadlineExceeded`, which the server answers with a 504 Timeout Status. A selector already
being compiled is never interrupted (the compiler holds the GIL), so a request can overrun its
deadline by at most one selector; verdicts stay cached, so a retry resumes where this one stopped.

A review may also be limited to verdicts already cached (`cached_only`): the server answers small
requests in its own process that way and hands them to a worker when a selector needs compiling
(`CompileNeeded`). Verdicts compiled while `recording_verdicts` is active are collected, so that a
worker can pass them back to the server.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from typing import Callable

BUDGET_EXHAUSTED = "CEL time budget exhausted"

# A function returning the deadline (time.monotonic() seconds), so a caller can move it (to now,
# when the client has gone away) while the request runs.
DeadlineSource = Callable[[], float]

_deadline: ContextVar[DeadlineSource | None] = ContextVar("cel_deadline", default=None)
_warnings: ContextVar[list[str] | None] = ContextVar("cel_warnings", default=None)
_compiling_allowed: ContextVar[bool] = ContextVar("cel_compiling_allowed", default=True)
_recorded: ContextVar[list | None] = ContextVar("cel_recorded_verdicts", default=None)


class DeadlineExceeded(Exception):
    """The request's time ran out before its checks were done."""


class CompileNeeded(Exception):
    """A selector's verdict is not cached and the review may only use cached verdicts."""


class _Holding:
    """`with _Holding(var, value) as value:` -- `var` holds `value` inside the block. A class rather
    than a generator context manager: several are entered for every request."""

    __slots__ = ("var", "value", "token")

    def __init__(self, var: ContextVar, value) -> None:
        self.var, self.value = var, value

    def __enter__(self):
        self.token = self.var.set(self.value)
        return self.value

    def __exit__(self, *exc_info) -> bool:
        self.var.reset(self.token)
        return False


def request_deadline(source: DeadlineSource) -> _Holding:
    """Work inside the block stops with DeadlineExceeded once `source()` lies in the past."""
    return _Holding(_deadline, source)


def request_budget(seconds: float) -> _Holding:
    """`request_deadline` for a fixed number of seconds from now."""
    at = time.monotonic() + seconds
    return request_deadline(lambda: at)


def budget_exhausted() -> bool:
    source = _deadline.get()
    return source is not None and time.monotonic() >= source()


def check_deadline() -> None:
    """Raises DeadlineExceeded when the deadline of the current request has passed."""
    if budget_exhausted():
        raise DeadlineExceeded(BUDGET_EXHAUSTED)


def collect_warnings() -> _Holding:
    """Gives the list that receives the CEL warnings of the block, de-duplicated, in order."""
    return _Holding(_warnings, [])


def warn(message: str) -> None:
    collected = _warnings.get()
    if collected is not None and message not in collected:
        collected.append(message)


def cached_only() -> _Holding:
    """Inside the block, a selector whose verdict is not cached raises CompileNeeded."""
    return _Holding(_compiling_allowed, False)


def may_compile() -> None:
    """Raises CompileNeeded inside `cached_only`; compilers call it before compiling."""
    if not _compiling_allowed.get():
        raise CompileNeeded()


def recording_verdicts(recording: bool = True) -> _Holding:
    """Gives the list that receives (cache key, verdict, pinned) of every verdict compiled in the block
    (None, and nothing recorded, when not `recording`)."""
    return _Holding(_recorded, [] if recording else None)


def record(key: tuple, verdict, pinned: bool) -> None:
    recorded = _recorded.get()
    if recorded is not None:
        recorded.append((key, verdict, pinned))
