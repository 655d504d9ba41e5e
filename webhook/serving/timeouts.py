"""The deadline of one request: the API server's `?timeout=` (a Go duration), else the default.

The answer must reach the API server before it gives up, so work stops a little earlier than the
caller's deadline: a 504 that arrives after the caller has left helps nobody.
"""

from __future__ import annotations

import re

_UNITS = {"ns": 1e-9, "us": 1e-6, "\u00b5s": 1e-6, "\u03bcs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}
_PART = re.compile(r"(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)")
MAX_MARGIN_SECONDS = 0.5
# What the API server sends: `timeout=10s` alone. Anything else is parsed as a query string.
_ONLY_TIMEOUT = re.compile(rb"timeout=([0-9A-Za-z.]+)")


def parse_go_duration(text: str) -> float:
    """Seconds of a Go `time.Duration` string ("5s", "1m30s", "500ms"); ValueError otherwise."""
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


def work_seconds(query_timeout: str | None, default_seconds: float) -> float:
    """How long this request may work: the caller's timeout minus a margin for the answer to travel."""
    seconds = default_seconds if query_timeout is None else parse_go_duration(query_timeout)
    if seconds <= 0:
        raise ValueError(f"timeout must be positive, not {query_timeout!r}")
    return seconds - min(MAX_MARGIN_SECONDS, seconds * 0.1)
