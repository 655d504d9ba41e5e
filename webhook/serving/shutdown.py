"""How the server stops: SIGTERM (the kubelet), SIGINT (Ctrl+C) and SIGHUP (a closed terminal, or
a process manager's reload) all drain: no new connections, requests in flight finish within
`--shutdown-grace-seconds`, then the process exits 0 with a log line. uvicorn alone drains on
SIGTERM and SIGINT only, then re-raises the signal (an exit status of "killed"); SIGHUP killed the
process at once, without a word."""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from typing import Generator

import uvicorn

from webhook.logs import fields

log = logging.getLogger("dra-webhook")

DRAIN_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class DrainingServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config) -> None:
        super().__init__(config)
        self.stop_signal: str | None = None

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        if threading.current_thread() is not threading.main_thread():
            yield  # signals reach the main thread only
            return
        original = {sig: signal.signal(sig, self.handle_exit) for sig in DRAIN_SIGNALS}
        try:
            yield
        finally:
            for sig, handler in original.items():
                signal.signal(sig, handler)

    def handle_exit(self, sig: int, frame) -> None:  # type: ignore[no-untyped-def]
        if self.stop_signal is None:
            self.stop_signal = signal.Signals(sig).name
            log.info("draining", extra=fields(signal=self.stop_signal,
                                              graceSeconds=self.config.timeout_graceful_shutdown))
        super().handle_exit(sig, frame)

    def _log_started_message(self, listeners) -> None:  # type: ignore[no-untyped-def]
        pass  # the "serving" line says where, with the right scheme (uvicorn does not do our TLS)
