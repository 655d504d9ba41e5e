"""A per-request CEL time budget and the warnings collected while validating one request.

Both live in context variables, so concurrent requests (threads or asyncio tasks) never share them.
A selector already being compiled is never interrupted (the compiler holds the GIL; a 10 KiB
selector takes about 40 ms), so a request can overrun its budget by at most one selector.
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Iterator

BUDGET_EXHAUSTED = "CEL time budget exhausted"

_deadline: ContextVar[float | None] = ContextVar("cel_deadline", default=None)
_warnings: ContextVar[list[str] | None] = ContextVar("cel_warnings", default=None)


@contextmanager
def request_budget(seconds: float) -> Iterator[None]:
    """Limits the CEL work done inside the block; selectors checked after the deadline fail closed."""
    token = _deadline.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _deadline.reset(token)


def budget_exhausted() -> bool:
    deadline = _deadline.get()
    return deadline is not None and time.monotonic() >= deadline


@contextmanager
def collect_warnings() -> Iterator[list[str]]:
    """Yields the list that receives the CEL warnings of the block, de-duplicated, in order."""
    collected: list[str] = []
    token = _warnings.set(collected)
    try:
        yield collected
    finally:
        _warnings.reset(token)


def warn(message: str) -> None:
    collected = _warnings.get()
    if collected is not None and message not in collected:
        collected.append(message)
