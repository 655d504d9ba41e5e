"""The deadline of one request: the API server's `?timeout=` (a Go duration), else the default.

The answer must reach the API server before it gives up, so work stops a little earlier than the
caller's deadline: a 504 that arrives after the caller has left helps nobody. No request works
longer than the API server would wait for it (`max_request_timeout_seconds`, 30 s: the largest
`timeoutSeconds` a webhook configuration may have), whatever its `?timeout=` says.
"""

from __future__ import annotations

import asyncio
import re

_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")
MAX_MARGIN_SECONDS = 0.5
# Longer than any duration Go prints ("-2562047h47m16.854775808s" is 25 characters): not a timeout
# the API server sent, and not worth scanning.
MAX_DURATION_CHARS = 64
# Go's time.Duration is an int64 of nanoseconds: ParseDuration refuses more ("invalid duration").
MAX_DURATION_NANOSECONDS = 2**63 - 1
# What the API server sends: `timeout=10s` alone. Anything else is parsed as a query string.
_ONLY_TIMEOUT = re.compile(rb"timeout=([0-9A-Za-z.]+)")


def parse_go_duration(text: str) -> float:
    """Seconds of a Go `time.Duration` string ("5s", "1m30s", "500ms"); ValueError otherwise, also for
    what Go's ParseDuration refuses as out of range."""
    if len(text) > MAX_DURATION_CHARS:
        raise ValueError(f"duration longer than {MAX_DURATION_CHARS} characters")
    sign = -1.0 if text.startswith("-") else 1.0
    body = text.lstrip("+-")
    if body == "0":
        return 0.0
    position, total = 0, 0.0
    while position < len(body):
        match = _PART.match(body, position)
        if not match:
            raise ValueError(f"invalid duration {text!r}")
        total += float(match.group(1)) * _UNITS[match.group(2)]
        position = match.end()
    if not body:
        raise ValueError(f"invalid duration {text!r}")
    if total * 1e9 > MAX_DURATION_NANOSECONDS:
        raise ValueError(f"duration {text!r} out of range (more than {MAX_DURATION_NANOSECONDS} ns)")
    return sign * total


def timeout_parameter(query_string: bytes, query_params) -> str | None:
    """The `timeout` query parameter; `query_params()` (the parsed query) is consulted only when the
    query is not just a plain `timeout=...`."""
    if not query_string:
        return None
    plain = _ONLY_TIMEOUT.fullmatch(query_string)
    if plain:
        return plain.group(1).decode("ascii")
    return query_params().get("timeout")


def work_seconds(query_timeout: str | None, default_seconds: float, max_seconds: float) -> float:
    """How long this request may work: the caller's timeout, at most `max_seconds`, minus a margin
    for the answer to travel."""
    seconds = default_seconds if query_timeout is None else parse_go_duration(query_timeout)
    if seconds <= 0:
        raise ValueError(f"timeout must be positive, not {query_timeout!r}")
    seconds = min(seconds, max_seconds)
    return seconds - min(MAX_MARGIN_SECONDS, seconds * 0.1)


class ReadWatch:
    """Cancels body reads that outlast their time, checked every `interval` seconds.

    One timer for all requests rather than one per request: almost every body arrives with its
    headers and never waits, and a timer armed and cancelled per request costs more than the
    rest of reading it. A read is stopped at most `interval` late.
    """

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self._due: dict[asyncio.Task, float] = {}  # task -> loop time by which its read must end
        self._expired: set[asyncio.Task] = set()
        self._timer: asyncio.TimerHandle | None = None

    def start(self, task: asyncio.Task, by: float) -> None:
        self._due[task] = by
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_at(loop.time() + self.interval, self._check)

    def stop(self, task: asyncio.Task) -> bool:
        """Forgets `task`; True when its read was cancelled because its time was up."""
        self._due.pop(task, None)
        if task in self._expired:
            self._expired.discard(task)
            task.uncancel()
            return True
        return False

    def _check(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        for task, by in list(self._due.items()):
            if by <= now:
                del self._due[task]
                self._expired.add(task)
                task.cancel()
        self._timer = loop.call_at(now + self.interval, self._check) if self._due else None
