"""Serving certificate hot reload: poll the PEM files, hand new handshakes a fresh TLS context.

A mounted Secret changes by swapping a symlink, which sends no inotify event for the files we
opened, so the files are polled. Each accepted connection is wrapped with the newest good context
(`current.context`); open connections keep the session they have. A TLS session is resumed only
by the context that made it (its ticket keys and session cache), so after a rotation every client
makes a full handshake against the new certificate and client CA. A half-written or mismatched
pair is logged and ignored: the last good pair goes on serving until the files change again.
"""

from __future__ import annotations

import logging
import ssl
import threading
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

from cryptography import x509
from cryptography.hazmat.primitives import hashes

from webhook.logs import fields

log = logging.getLogger("dra-webhook")

DEFAULT_INTERVAL_SECONDS = 10.0


@dataclass(frozen=True)
class TLSOptions:
    cert_file: str
    key_file: str
    min_version: ssl.TLSVersion = ssl.TLSVersion.TLSv1_2
    client_ca_file: str | None = None

    def files(self) -> tuple[str, ...]:
        return (self.cert_file, self.key_file) + ((self.client_ca_file,) if self.client_ca_file else ())


@dataclass(frozen=True)
class LoadedPair:
    context: ssl.SSLContext
    certificate: x509.Certificate

    @property
    def not_after(self) -> datetime:
        return self.certificate.not_valid_after_utc

    @property
    def fingerprint(self) -> str:
        return self.certificate.fingerprint(hashes.SHA256()).hex()


def build_context(options: TLSOptions) -> ssl.SSLContext:
    # Every context gets the same settings: a swapped-in context decides the certificate chain
    # and the trust store for client certificates of the handshake it joins.
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = options.min_version
    context.load_cert_chain(options.cert_file, options.key_file)
    if options.client_ca_file:
        context.load_verify_locations(cafile=options.client_ca_file)
        context.verify_mode = ssl.CERT_REQUIRED
    return context


def certificate_problem(certificate: x509.Certificate, now: datetime | None = None) -> str | None:
    """Why a certificate cannot serve right now, or None."""
    now = now or datetime.now(timezone.utc)
    if now < certificate.not_valid_before_utc:
        return f"serving certificate not valid before {certificate.not_valid_before_utc.isoformat()}"
    if now >= certificate.not_valid_after_utc:
        return f"serving certificate expired at {certificate.not_valid_after_utc.isoformat()}"
    return None


def _describe(pair: LoadedPair) -> dict:
    return fields(notAfter=pair.not_after.isoformat(), serial=format(pair.certificate.serial_number, "x"),
                  sha256=pair.fingerprint)


class CertificateReloader:
    """Holds the current TLS context; `check()` reloads it when the files have changed."""

    def __init__(self, options: TLSOptions, on_load: Callable[[LoadedPair], None] = lambda _: None,
                 on_attempt: Callable[[bool], None] = lambda _: None) -> None:
        self._options = options
        self._on_load = on_load
        self._on_attempt = on_attempt
        self._snapshot = self._read()
        self.current = self._load(self._snapshot)  # a broken pair at start-up is fatal: raise
        self._on_load(self.current)
        log.info("serving certificate loaded", extra=_describe(self.current))
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def _read(self) -> tuple[bytes, ...]:
        return tuple(Path(name).read_bytes() for name in self._options.files())

    def _load(self, snapshot: tuple[bytes, ...]) -> LoadedPair:
        context = build_context(self._options)
        return LoadedPair(context, x509.load_pem_x509_certificate(snapshot[0]))

    def check(self) -> bool:
        """Polls once. True when a new pair was loaded and is now used for new handshakes."""
        try:
            snapshot = self._read()
        except OSError as exc:
            return self._keep_current(f"unreadable: {exc}")
        if snapshot == self._snapshot:
            return False
        self._snapshot = snapshot  # a broken pair is tried once, not on every poll
        try:
            loaded = self._load(snapshot)
            unchanged = self._read() == snapshot
        except (OSError, ssl.SSLError, ValueError) as exc:
            return self._keep_current(str(exc))
        if not unchanged:
            self._snapshot = ()  # still being written: look again at the next poll
            return self._keep_current("files changed while loading")
        self.current = loaded
        self._on_attempt(True)
        self._on_load(loaded)
        log.info("serving certificate reloaded", extra=_describe(loaded))
        return True

    def _keep_current(self, reason: str) -> bool:
        log.warning("new certificate files not loaded; keeping the current pair",
                    extra=fields(error=reason, notAfter=self.current.not_after.isoformat()))
        self._on_attempt(False)
        return False

    def start(self, interval: float = DEFAULT_INTERVAL_SECONDS) -> None:
        def poll() -> None:
            while not self._stop.wait(interval):
                try:
                    self.check()
                except Exception:  # a bug here must not stop polling for the next rotation
                    log.exception("certificate reload check failed")

        self._thread = threading.Thread(target=poll, name="cert-reload", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
