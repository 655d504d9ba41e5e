"""HTTP connection limits uvicorn lacks: header read timeout, head size.

uvicorn gives the keep-alive idle timeout (`timeout_keep_alive`) and a header size limit
(`h11_max_incomplete_event_size`, which h11 applies only to a head still incomplete after a read;
here it applies to every head). A client sending its headers one byte at a time cancels the
idle timer with every byte and would hold its connection forever; here a connection waiting for
(the rest of) a request's headers is closed after the header read timeout, counted from the
connection or the request's first byte. The body read timeout is the app's (it knows the deadline).
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


class LimitedH11Protocol(H11Protocol):
    """H11Protocol with a header read timeout (config attribute `header_read_timeout`); the
    connection cap is applied when the connection is accepted (serving/accept.py)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._header_timer: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm_header_timer()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        super().connection_lost(exc)
        # uvicorn cancels its keep-alive timer only on a clean close: after a reset the timer would
        # hold this protocol, its TLS objects and buffers (~20 KiB) for the whole idle timeout.
        self._unset_keepalive_if_required()

    def data_received(self, data: bytes) -> None:
        if self.conn.their_state is h11.IDLE and self._head_too_large(data):
            self.send_400_response("Request head too large.")
            return
        super().data_received(data)
        if self.conn.their_state is h11.IDLE:  # still waiting for a complete request head
            if self._header_timer is None and not self.transport.is_closing():
                self._arm_header_timer()
        else:
            self._cancel_header_timer()

    def _head_too_large(self, data: bytes) -> bool:
        # h11 limits only a head still incomplete after a read; one read can bring a whole large head.
        limit = self.config.h11_max_incomplete_event_size
        buffered = self.conn.trailing_data[0]
        if len(buffered) + len(data) <= limit + 3:
            return False  # too short to hold a head over the limit: no copy
        prefix = bytes(buffered) + data[:max(0, limit + 4 - len(buffered))]
        return len(prefix) > limit + 3 and b"\r\n\r\n" not in prefix

    def on_response_complete(self) -> None:
        self._cancel_header_timer()  # the idle timer watches the connection until the next byte...
        super().on_response_complete()
        if self.conn.their_state is h11.IDLE and self.conn.trailing_data[0] and not self.transport.is_closing():
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
