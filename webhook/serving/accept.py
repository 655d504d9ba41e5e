"""What the server does with an accepted TCP connection, before HTTP: the connection cap, TLS.

uvicorn would hand the listening socket one SSLContext and count a connection only once its TLS
handshake is done, so connections still in (or never starting) their handshake were not counted
against `--max-connections`. Here the listening socket is plain TCP and this factory, called for
every accepted connection, counts it at once, closes it at once when over the cap, and wraps it in
TLS itself:
- with the reloader's current context, taken for each connection: a TLS session (ticket or id)
  made with an older context is not resumed after a rotation, so a client certificate from a
  client CA that is gone gets no way around the new CA;
- with the header read timeout as handshake timeout and a small read buffer;
- dropping the socket transport's reference cycle when the connection is lost, so its memory is
  freed by reference counting then, not by a full collection that the server makes rare.
"""

from __future__ import annotations

import asyncio
import asyncio.sslproto
import logging
import ssl
import time
from typing import Any, Callable

from webhook.logs import fields
from webhook.serving.limits import LimitedH11Protocol

log = logging.getLogger("dra-webhook")

# asyncio allocates a read buffer of this size per TLS connection (256 KiB by default): 3,000 idle
# connections would hold 750 MiB. A TLS record is at most 16 KiB; a smaller buffer only means more
# reads of a large body.
TLS_READ_BUFFER_BYTES = 16 * 1024
REFUSED_LOG_INTERVAL_SECONDS = 10.0


class ServerTLSProtocol(asyncio.sslproto.SSLProtocol):
    """asyncio's server-side TLS for one accepted connection, counted in `accepted` while open."""

    # Zero while asyncio's __init__ allocates the read buffer: get_buffer() grows it at the first
    # read, so a connection that never sends a byte holds none.
    max_size = 0

    def __init__(self, app_protocol: asyncio.BaseProtocol, context: ssl.SSLContext, handshake_timeout: float,
                 accepted: set) -> None:
        super().__init__(asyncio.get_running_loop(), app_protocol, context, None, server_side=True,
                         ssl_handshake_timeout=handshake_timeout)
        self.max_size = TLS_READ_BUFFER_BYTES
        self._accepted = accepted
        # Counted from the factory call: asyncio accepts a whole backlog and calls the factory for
        # each socket before any connection_made runs (connection_lost always follows).
        accepted.add(self)
        self._hello_received = False

    def buffer_updated(self, nbytes: int) -> None:
        super().buffer_updated(nbytes)
        if nbytes < len(self._ssl_buffer):
            # A short read: nothing more waiting on the socket, the client is likely idle now. An
            # idle connection holds no read buffer (get_buffer() makes one at the next read); a
            # bulk transfer (full reads) keeps its buffer.
            self._ssl_buffer = bytearray()
            self._ssl_buffer_view = memoryview(self._ssl_buffer)

    def _do_handshake(self) -> None:
        # A server has nothing to say before the ClientHello, and OpenSSL's first handshake step
        # allocates its record buffers (~34 KiB): not for a connection that has sent nothing yet.
        if not self._hello_received:
            if not self._incoming.pending:
                return
            self._hello_received = True
        super()._do_handshake()

    def connection_lost(self, exc: Exception | None) -> None:
        self._accepted.discard(self)
        transport = self._transport
        super().connection_lost(exc)
        # The socket transport keeps its read callback as a bound method of itself (CPython 3.11+):
        # a cycle that only the collector would free, with the socket it holds.
        if transport is not None and hasattr(transport, "_read_ready_cb"):
            transport._read_ready_cb = None
        # A failed handshake's error holds the frames that raised it, and they hold this protocol.
        if exc is not None:
            exc.__traceback__ = None


class _Refused(asyncio.Protocol):
    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.abort()  # type: ignore[attr-defined]


class ConnectionFactory:
    """The protocol factory of the listening socket (uvicorn calls it as its `http` class)."""

    def __init__(self, max_connections: int, handshake_timeout: float,
                 tls_context: Callable[[], ssl.SSLContext] | None) -> None:
        self.max_connections = max_connections
        self.handshake_timeout = handshake_timeout
        self.tls_context = tls_context
        self.accepted: set[ServerTLSProtocol] = set()
        self._refused = 0
        self._refused_logged_at = float("-inf")

    def open_connections(self, server_state: Any) -> int:
        # Plain HTTP (local debugging): uvicorn's protocol counts itself from accept.
        return len(self.accepted) if self.tls_context else len(server_state.connections)

    def __call__(self, config: Any, server_state: Any, app_state: dict,
                 _loop: asyncio.AbstractEventLoop | None = None) -> asyncio.BaseProtocol:
        if self.open_connections(server_state) >= self.max_connections:
            self._log_refused()
            return _Refused()
        app = LimitedH11Protocol(config=config, server_state=server_state, app_state=app_state, _loop=_loop)
        if self.tls_context is None:
            return app
        return ServerTLSProtocol(app, self.tls_context(), self.handshake_timeout, self.accepted)

    def _log_refused(self) -> None:
        # A flood of connections must not become a flood of log lines: one line per interval.
        self._refused += 1
        now = time.monotonic()
        if now - self._refused_logged_at >= REFUSED_LOG_INTERVAL_SECONDS:
            log.warning("connections refused: too many open connections",
                        extra=fields(maxConnections=self.max_connections, refused=self._refused))
            self._refused = 0
            self._refused_logged_at = now
