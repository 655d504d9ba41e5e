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

from webhook.serving import chunks
from webhook.serving.chunks import ChunkCharge
from webhook.serving.memory import release_freed_memory
from webhook.serving.settings import DEFAULT_MAX_BODY_BYTES

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
    chunked = False  # the current request's body is chunked
    chunks = 0  # chunks of it parsed so far

    def next_event(self):  # type: ignore[no-untyped-def]
        event = super().next_event()
        kind = type(event)
        if kind is h11.Data:
            if event.chunk_start:
                self.chunks += 1
        elif kind is h11.Request:
            names = {name for name, _ in event.headers}
            if b"content-length" in names and b"transfer-encoding" in names:
                # uvicorn answers 400 and closes the connection; the body is never read.
                raise h11.RemoteProtocolError("both Content-Length and Transfer-Encoding", 400)
            self.chunked, self.chunks = b"transfer-encoding" in names, 0
        return event


class LimitedH11Protocol(H11Protocol):
    """H11Protocol with a header read timeout (config attribute `header_read_timeout`) and a head
    budget (`head_budget`); the connection cap is applied when the connection is accepted
    (serving/accept.py)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.conn = _Connection(h11.SERVER, self.config.h11_max_incomplete_event_size)
        self._head_charge = 0
        self._body: ChunkCharge | None = None  # the chunked body being received (serving/chunks.py)
        self._pace_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        if self._pace_timer is not None:
            self._pace_timer.cancel()
            self._pace_timer = None
        self._body = None
        self._charge_head(0)
        super().connection_lost(exc)
        # uvicorn cancels its keep-alive timer only on a clean close: after a reset the timer would
        # hold this protocol, its TLS objects and buffers (~20 KiB) for the whole idle timeout.
        self._unset_keepalive_if_required()

    def data_received(self, data: bytes) -> None:
        self._start_chunked_body()
        if self._body is not None:  # a chunked body: charged and paced
            self._body.pending += data
            if len(self._body.pending) > chunks.MAX_PENDING_BYTES:
                self.transport.pause_reading()
            self._feed_body()
            return
        rest = b""
        if self.conn.their_state is h11.IDLE:
            if self._head_too_large(data):
                self._refuse_head("request head too large")
                return
            if not self._charge_head(self._buffered_head() + len(data)):
                self._refuse_head("too many request heads being received")
                return
            end = data.find(b"\r\n\r\n")  # the head alone first: a chunked body after it is paced
            if 0 <= end < len(data) - 4:
                data, rest = data[:end + 4], data[end + 4:]
        super().data_received(data)
        self._recharge_head()
        self._start_chunked_body()
        if rest:
            self.data_received(rest)
            return
        if self.conn.their_state is h11.IDLE:  # still waiting for a complete request head
            if self._header_timer is None and not self.transport.is_closing():
                self._arm_header_timer()
        else:
            self._cancel_header_timer()

    def _start_chunked_body(self) -> None:
        if self._body is None and self.conn.their_state is h11.SEND_BODY and self.conn.chunked \
                and not self.transport.is_closing():
            limit = getattr(self.config, "max_body_bytes", DEFAULT_MAX_BODY_BYTES)
            self._body = ChunkCharge(limit, self.loop.time())

    def _feed_body(self) -> None:
        """Gives h11 what the chunked body's pace allows, a slice at a time, charging each slice's chunks
        and wire bytes; waits (reading paused) when the connection is ahead of its rate."""
        body = self._body
        while body is not None and body.pending and not self.transport.is_closing():
            body.refill(self.loop.time())
            if body.wait():
                break
            piece = bytes(body.pending[:chunks.SLICE_BYTES])
            del body.pending[:chunks.SLICE_BYTES]
            before = self.conn.chunks
            super().data_received(piece)
            refused = body.spend(self.conn.chunks - before, len(piece))
            if refused:
                self._refuse_body(refused)
                return
            if self.conn.their_state is not h11.SEND_BODY:  # the body is complete: what follows is not it
                self._body, rest = None, bytes(body.pending)
                self._resume_if_paced()
                self._recharge_head()
                if rest:
                    self.data_received(rest)
                return
        if body is not None and body.pending and not self.transport.is_closing():
            self.transport.pause_reading()
            if self._pace_timer is None:
                self._pace_timer = self.loop.call_later(body.wait(), self._paced)
        else:
            self._resume_if_paced()

    def _paced(self) -> None:
        self._pace_timer = None
        self._feed_body()

    def _resume_if_paced(self) -> None:
        # Reading stopped for the pace only: uvicorn's own flow control may still want it stopped.
        if not self.flow.read_paused and not self.transport.is_closing():
            self.transport.resume_reading()

    def _refuse_body(self, message: str) -> None:
        self._body = None
        body = message.encode() + b"\n"
        self.transport.write(b"HTTP/1.1 413 Content Too Large\r\n"
                             b"content-type: text/plain; charset=utf-8\r\nconnection: close\r\n"
                             b"content-length: %d\r\n\r\n" % len(body) + body)
        self.transport.close()

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
        self._start_chunked_body()  # a request read ahead whose body is chunked: paced from here
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
