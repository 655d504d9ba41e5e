"""--max-bytes-in-flight: request body bytes received and reply bytes not yet sent, server-wide.

A request is charged for what has arrived, chunk by chunk, never for the Content-Length it declares:
a connection that declares 8 MiB and sends nothing holds nothing. Once reviewed, the body's bytes are
given back and its answer's taken, until the connection has taken the last of it (or died). A request
alone may exceed the budget (one review of the largest allowed body must always be possible); with
others in flight, a chunk or an answer that does not fit is refused (429).
"""

from __future__ import annotations


class ByteBudget:
    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0

    def charge(self) -> Charge:
        return Charge(self)


class Charge:
    """What one request holds of the budget; `release()` gives it all back (idempotent)."""

    __slots__ = ("budget", "held")

    def __init__(self, budget: ByteBudget) -> None:
        self.budget = budget
        self.held = 0

    def take(self, size: int) -> bool:
        """Charges `size` more bytes; False (nothing charged) when they do not fit beside the others."""
        budget = self.budget
        if budget.used + size > budget.limit and budget.used > self.held:
            return False
        budget.used += size
        self.held += size
        return True

    def force(self, size: int) -> None:
        """Charges bytes that exist already (a reply): counted, never refused."""
        self.budget.used += size
        self.held += size

    def release(self) -> None:
        self.budget.used -= self.held
        self.held = 0
