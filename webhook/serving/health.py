"""`--health-port`: plain-HTTP GET /healthz and /readyz on a thread of their own.

Like controller-runtime's health-probe bind address: the kubelet's probes never queue behind
admission work on the main port, need no TLS, and work when the main port requires client
certificates. /healthz says the process is alive (this thread can answer); /readyz says it can
serve (a valid certificate is loaded and a worker is up).
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable


def _handler(readiness: Callable[[], str | None]) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "dra-webhook"
        sys_version = ""
        timeout = 10  # a probe that stalls does not keep a thread

        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            if self.path.split("?", 1)[0] == "/healthz":
                self._answer(200, "ok")
            elif self.path.split("?", 1)[0] == "/readyz":
                problem = readiness()
                self._answer(503, f"not ready: {problem}") if problem else self._answer(200, "ok")
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


class HealthServer:
    def __init__(self, host: str, port: int, readiness: Callable[[], str | None]) -> None:
        self._server = ThreadingHTTPServer((host, port), _handler(readiness))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, name="health", daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
