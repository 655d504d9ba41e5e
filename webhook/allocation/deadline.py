"""The wall-clock bound of one allocation: the scheduler's filter timeout, offline.

The scheduler runs each node's allocation under a context with `filterTimeout` (DynamicResources
plugin args, `DynamicResourcesFilterTimeoutDefault` = 10 s; feature gate DRASchedulerFilterTimeout,
beta and on by default since 1.34). The allocator checks the context at every search step and CEL
checks it every 100 comprehension iterations; when it has expired the node is unschedulable with
"timed out trying to allocate devices". `--timeout 0` turns the bound off, as `filterTimeout: 0` does.

Here the search reads the clock every `CHECK_EVERY` steps (a read costs less than a tenth of a
step) and before each CEL evaluation; `--all-nodes` adds a bound over all nodes (`--total-timeout`).
"""

from __future__ import annotations

import time

DEFAULT_TIMEOUT_SECONDS = 10.0  # DynamicResourcesFilterTimeoutDefault
DEFAULT_TOTAL_TIMEOUT_SECONDS = 60.0
CHECK_EVERY = 64  # search steps between two reads of the clock


def clock() -> float:
    """The one clock every deadline reads (a test replaces it with a counter: no verdict of a test then
    depends on the machine's speed)."""
    return time.monotonic()


class GaveUp(Exception):
    """The search ran out of time; not a statement about the input (the scheduler: Unschedulable)."""

    def __init__(self, elapsed: float, why: str) -> None:
        super().__init__(f"gave up after {elapsed:.1f}s: {why}")
        self.elapsed, self.why = elapsed, why


def seconds_text(seconds: float) -> str:
    """A duration as the flags take it: 10s, 0.5s, 1m30s."""
    if seconds >= 60 and seconds == int(seconds):
        minutes, rest = divmod(int(seconds), 60)
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    return f"{seconds:g}s"


class Deadline:
    """When one node's allocation must stop: its own timeout, or what is left of the total."""

    def __init__(self, timeout: float | None, total_end: float | None = None, total: float | None = None,
                 scope: str = "nodes") -> None:
        self.start = clock()
        self.timeout, self.total = timeout, total
        self.scope = scope  # what the total is shared by: "nodes", "pods", or "pods and nodes"
        ends = [e for e in (self.start + timeout if timeout else None, total_end) if e is not None]
        self.end = min(ends) if ends else None
        self.by_total = self.end is not None and self.end == total_end

    def expired(self) -> bool:
        return self.end is not None and clock() >= self.end

    def check(self) -> None:
        """GaveUp once the time is up."""
        if self.end is not None and (now := clock()) >= self.end:
            raise GaveUp(now - self.start, self.why())

    def why(self) -> str:
        if self.by_total:
            return f"the time for all {self.scope} ran out (--total-timeout {seconds_text(self.total or 0)})"
        return (f"the time for one node ran out (--timeout {seconds_text(self.timeout or 0)}, the scheduler's "
                "filterTimeout); the scheduler finds the node unschedulable then (\"timed out trying to allocate "
                "devices\")")


NO_DEADLINE = Deadline(None)
