"""HTTP connection limits uvicorn lacks: header read timeout, head size, a budget for heads, framing.

uvicorn gives the keep-alive idle timeout (`timeout_keep_alive`) and a header size limit
(`h11_max_incomplete_event_size`, which h11 applies only to a head still incomplete after a read;
here it applies to every head). A client sending its headers one byte at a time cancels the
idle timer with every byte and would hold its connection forever; here a connection waiting for
(the rest of) a request's headers is closed after the header read timeout, counted from the
connection or the request's first byte. The body read timeout is the app's (it knows the deadline).

Heads still being received sit in memory outside the request budgets: all connections together
may hold `HeadBudget.limit` bytes of them; a connection that would go over is answered 431 and
closed (like a head over the size limit, as Go's server answers). A request with both
Content-Length and Transfer-Encoding is answered 400 and the connection closed (RFC 9112 6.1):
h11 would read the body as chunked, and a proxy in front of us might not have.
"""

from __future__ import annotations

import asyncio
import logging

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from webhook.serving.memory import release_freed_memory

log = logging.getLogger("dra-webhook")

TRIM_INTERVAL_SECONDS = 30.0


async def release_freed_memory_periodically(interval: float = TRIM_INTERVAL_SECONDS) -> None:
    """Memory freed by closed connections goes back to the system, so a burst of slow clients does
    not leave its peak RSS behind."""
    while True:
        await asyncio.sleep(interval)
        release_freed_memory()


class HeadBudget:
    """Bytes of request heads received and not yet complete, over all connections."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0


class _Connection(h11.Connection):
    def next_event(self):  # type: ignore[no-untyped-def]
        event = super().next_event()
        if isinstance(event, h11.Request):
            names = {name for name, _ in event.headers}
            if b"content-length" in names and b"transfer-encoding" in names:
                # uvicorn answers 400 and closes the connection; the body is never read.
                raise h11.RemoteProtocolError("both Content-Length and Transfer-Encoding", 400)
        return event


class LimitedH11Protocol(H11Protocol):
    """H11Protocol with a header read timeout (config attribute `header_read_timeout`) and a head
    budget (`head_budget`); the connection cap is applied when the connection is accepted
    (serving/accept.py)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _Connection(h11.SERVER, self.config.h11_max_incomplete_event_size)
        self._head_charge = 0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        self._charge_head(0)
        super().connection_lost(exc)
        # uvicorn cancels its keep-alive timer only on a clean close: after a reset the timer would
        # hold this protocol, its TLS objects and buffers (~20 KiB) for the whole idle timeout.
        self._unset_keepalive_if_required()

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE:
            if self._head_too_large(data):
                self._refuse_head("request head too large")
                return
            if not self._charge_head(self._buffered_head() + len(data)):
                self._refuse_head("too many request heads being received")
                return
        super().data_received(data)
        self._recharge_head()
        if self.conn.their_state is h11.IDLE:  # still waiting for a complete request head
            if self._header_timer is None and not self.transport.is_closing():
                self._arm_header_timer()
        else:
            self._cancel_header_timer()

    def _buffered_head(self) -> int:
        # h11's `trailing_data` copies its whole buffer: a head sent a byte at a time would cost
        # quadratic copying. The buffer's length is what is charged.
        buffer = getattr(self.conn, "_receive_buffer", None)
        return len(buffer) if buffer is not None else len(self.conn.trailing_data[0])

    def _charge_head(self, size: int) -> bool:
        budget: HeadBudget = self.config.head_budget
        if size > self._head_charge and budget.used + size - self._head_charge > budget.limit:
            return False
        budget.used += size - self._head_charge
        self._head_charge = size
        return True

    def _recharge_head(self) -> None:
        # What h11 still buffers of an incomplete head; a complete head is the request budgets' now.
        waiting = self.conn.their_state is h11.IDLE and not self.transport.is_closing()
        self._charge_head(self._buffered_head() if waiting else 0)

    def _refuse_head(self, message: str) -> None:
        self._charge_head(0)
        body = message.encode() + b"\n"
        self.transport.write(b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
                             b"content-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
                             b"content-length: %d\r\n\r\n" % len(body) + body)
        self.transport.close()

    def _head_too_large(self, data: bytes) -> bool:
        # h11 limits only a head still incomplete after a read; one read can bring a whole large head.
        limit = self.config.h11_max_incomplete_event_size
        if self._buffered_head() + len(data) <= limit + 3:
            return False  # too short to hold a head over the limit: no copy
        buffered = self.conn.trailing_data[0]
        prefix = buffered + data[:max(0, limit + 4 - len(buffered))]
        return len(prefix) > limit + 3 and b"\r\n\r\n" not in prefix

    def on_response_complete(self) -> None:
        self._cancel_header_timer()  # the idle timer watches the connection until the next byte...
        super().on_response_complete()
        self._recharge_head()
        if self.conn.their_state is h11.IDLE and self._buffered_head() and not self.transport.is_closing():
            self._arm_header_timer()  # ...unless part of the next request head came with this one

    def _arm_header_timer(self) -> None:
        self._header_timer = self.loop.call_later(self.config.header_read_timeout, self._header_timeout)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _header_timeout(self) -> None:
        self._header_timer = None
        if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
            self.transport.close()
