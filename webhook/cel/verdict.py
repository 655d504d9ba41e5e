"""The outcome of checking one selector, independent of engine and field path (so it can be cached)."""

from __future__ import annotations

from dataclasses import dataclass

OK, INVALID, FORBIDDEN, INTERNAL = "ok", "invalid", "forbidden", "internal"


@dataclass(frozen=True, slots=True)
class Verdict:
    outcome: str  # OK, INVALID, FORBIDDEN or INTERNAL
    detail: str = ""
    cost: int | None = None  # estimated worst-case cost when the expression compiled
    warning: str = ""  # set when a check could not be done the way Kubernetes does it
