"""`--health-port`: plain-HTTP GET /healthz and /readyz on a thread of their own.

Like controller-runtime's health-probe bind address: the kubelet's probes never queue behind
admission work on the main port, need no TLS, and work when the main port requires client
certificates. /healthz says the process is alive (this thread can answer); /readyz says it can
serve (a valid certificate is loaded and a worker is up).

Bounded: at most MAX_CONNECTIONS connections (one thread each) are open at once, each for at most
CONNECTION_SECONDS (a probe takes milliseconds; the kubelet waits 1 s by default). A new connection
beyond the cap closes the oldest, which can only be a stalled client: a kubelet's probe still gets
through clients that connect and send nothing. A client that resets its connection is not worth a
log line, and nothing is written to stderr as plain text (the log is JSON on stdout).
"""

from __future__ import annotations

import logging
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

from webhook.logs import fields

log = logging.getLogger("dra-webhook")

MAX_CONNECTIONS = 16
CONNECTION_SECONDS = 5.0


def _handler(readiness: Callable[[], str | None], note: Callable[[], str] = lambda: "") -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "dra-webhook"
        sys_version = ""
        timeout = CONNECTION_SECONDS  # each read and write; the connection as a whole is bounded by the server

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.split("?", 1)[0] == "/healthz":
                self._answer(200, "ok")
            elif self.path.split("?", 1)[0] == "/readyz":
                problem = readiness()
                self._answer(503, f"not ready: {problem}") if problem else self._answer(200, "ok" + note())
            else:
                self._answer(404, "not found")

        def _answer(self, code: int, text: str) -> None:
            body = (text + "\n").encode()
            self.send_response(code)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args) -> None:  # noqa: A002 - probes are not logged
            pass

    return Handler


class _BoundedServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # socketserver's 5 would turn a burst of connections into SYN retries of probes

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._lock = threading.Lock()
        # Each open connection and when it must be done, oldest first (a dict keeps insertion order).
        self._open: dict[socket.socket, float] = {}

    def process_request(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        with self._lock:
            oldest = next(iter(self._open)) if len(self._open) >= MAX_CONNECTIONS else None
            if oldest is not None:
                del self._open[oldest]
            self._open[request] = time.monotonic() + CONNECTION_SECONDS
        if oldest is not None:
            _hang_up(oldest)
        super().process_request(request, client_address)

    def process_request_thread(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        try:
            super().process_request_thread(request, client_address)
        finally:
            with self._lock:
                self._open.pop(request, None)

    def service_actions(self) -> None:
        # Called by serve_forever at every poll (0.5 s): connections past their time are hung up,
        # which ends their threads' reads and writes.
        now = time.monotonic()
        with self._lock:
            late = [request for request, deadline in self._open.items() if deadline < now]
        for request in late:
            _hang_up(request)

    def handle_error(self, request, client_address) -> None:  # type: ignore[no-untyped-def]
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            return  # a client that reset, or that we hung up on
        log.warning("health port request failed", extra=fields(error=f"{type(error).__name__}: {error}"))


def _hang_up(request: socket.socket) -> None:
    try:
        request.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed by its thread


class HealthServer:
    def __init__(self, host: str, port: int, readiness: Callable[[], str | None],
                 note: Callable[[], str] = lambda: "") -> None:
        self._server = _BoundedServer((host, port), _handler(readiness, note))
        self._thread = threading.Thread(target=self._server.serve_forever, name="health", daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
