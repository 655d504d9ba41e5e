"""Serving TLS in a cluster: certificate hot reload under load, and client certificates."""

from __future__ import annotations

import hashlib
import http.client
import json
import shutil
import socket
import ssl
import threading
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from support import launch_server, review_body, start_server, valid_slice, wait_for
from webhook import certs
from webhook.tlsreload import CertificateReloader, TLSOptions

POLL = 0.2  # --cert-reload-interval in the tests: short, so rotation is seen quickly


def fingerprint(der: bytes) -> str:
    return hashlib.sha256(der).hexdigest()


def file_fingerprint(path: Path) -> str:
    return fingerprint(certs.load_certificate(path).public_bytes(serialization.Encoding.DER))


def install(pair: certs.CertFiles, served: Path) -> None:
    served.mkdir(exist_ok=True)
    shutil.copy(pair.cert, served / "tls.crt")
    shutil.copy(pair.key, served / "tls.key")


def handshake_fingerprint(server_context: ssl.SSLContext, client_context: ssl.SSLContext) -> str:
    """A TLS handshake in memory; returns the fingerprint of the certificate the server presented."""
    server_in, server_out, client_in, client_out = (ssl.MemoryBIO() for _ in range(4))
    server = server_context.wrap_bio(server_in, server_out, server_side=True)
    client = client_context.wrap_bio(client_in, client_out, server_hostname="localhost")
    for _ in range(10):
        done = 0
        for side in (client, server):
            try:
                side.do_handshake()
                done += 1
            except ssl.SSLWantReadError:
                pass
        server_in.write(client_out.read())
        client_in.write(server_out.read())
        if done == 2:
            return fingerprint(client.getpeercert(binary_form=True))
    raise AssertionError("handshake did not finish")


@pytest.fixture
def pairs(tmp_path):
    """Two independent CA + serving pairs, the first installed in served/."""
    first, second = certs.generate(tmp_path / "a"), certs.generate(tmp_path / "b")
    install(first, tmp_path / "served")
    return first, second, tmp_path / "served"


def trusting(*pairs: certs.CertFiles) -> ssl.SSLContext:
    # Like an API server whose caBundle holds the old and the new CA during a CA rotation.
    context = ssl.create_default_context(cafile=str(pairs[0].ca_cert))
    for pair in pairs[1:]:
        context.load_verify_locations(cafile=str(pair.ca_cert))
    return context


# -- the reloader on its own ------------------------------------------------------------------------

def test_new_pair_is_used_for_new_handshakes(pairs):
    first, second, served = pairs
    loaded = []
    reloader = CertificateReloader(TLSOptions(str(served / "tls.crt"), str(served / "tls.key")),
                                   on_load=lambda pair: loaded.append(pair.not_after))
    client = trusting(first, second)
    assert handshake_fingerprint(reloader.current.context, client) == file_fingerprint(first.cert)
    assert reloader.check() is False  # nothing changed
    install(second, served)
    assert reloader.check() is True
    assert handshake_fingerprint(reloader.current.context, client) == file_fingerprint(second.cert)
    assert loaded == [certs.not_after(first.cert), certs.not_after(second.cert)]


@pytest.mark.parametrize("broken", ["new cert, old key", "half-written cert", "empty key", "missing key"])
def test_broken_pair_keeps_the_last_good_one(pairs, broken):
    first, second, served = pairs
    attempts = []
    reloader = CertificateReloader(TLSOptions(str(served / "tls.crt"), str(served / "tls.key")),
                                   on_attempt=attempts.append)
    if broken == "new cert, old key":
        shutil.copy(second.cert, served / "tls.crt")
    elif broken == "half-written cert":
        data = second.cert.read_bytes()
        (served / "tls.crt").write_bytes(data[: len(data) // 2])
    elif broken == "empty key":
        (served / "tls.key").write_bytes(b"")
    else:
        (served / "tls.key").unlink()
    assert reloader.check() is False
    assert reloader.check() is False
    # A broken pair is tried once; unreadable files are reported on every poll.
    assert attempts == ([False, False] if broken == "missing key" else [False])
    assert handshake_fingerprint(reloader.current.context, trusting(first)) == file_fingerprint(first.cert)
    install(second, served)  # the rotation completes: the next poll takes it
    assert reloader.check() is True
    assert handshake_fingerprint(reloader.current.context, trusting(second)) == file_fingerprint(second.cert)


# -- rotation under a running server ----------------------------------------------------------------

class Load:
    """Sends reviews continuously, each on a new connection (a new handshake), from a thread."""

    def __init__(self, port: int, context: ssl.SSLContext, limit: int = 3000):
        self.port, self.context, self.limit = port, context, limit
        self.body = json.dumps(review_body(valid_slice())).encode()
        self.results: list[tuple[float, bool, str]] = []  # (monotonic time, answered 200 + allowed, peer cert)
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _one(self) -> None:
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=10)
        try:
            conn.request("POST", "/validate", self.body, {"content-type": "application/json"})
            reply = conn.getresponse()
            data = reply.read()
            ok = reply.status == 200 and json.loads(data)["response"]["allowed"] is True
            self.results.append((time.monotonic(), ok, fingerprint(conn.sock.getpeercert(binary_form=True))))
        except (OSError, http.client.HTTPException, ValueError) as exc:
            self.errors.append(repr(exc))
            self.results.append((time.monotonic(), False, ""))
        finally:
            conn.close()

    def _run(self) -> None:
        while not self._stop.is_set() and len(self.results) < self.limit:
            self._one()

    def __enter__(self) -> "Load":
        self._thread.start()
        return self

    def __exit__(self, *_) -> None:
        self._stop.set()
        self._thread.join(timeout=30)

    def first_seen(self, cert_fingerprint: str) -> float | None:
        return next((t for t, _, fp in self.results if fp == cert_fingerprint), None)


def test_rotation_under_load_fails_no_request(pairs, tmp_path):
    first, second, served = pairs
    shutil.copy(first.ca_cert, served / "ca.crt")
    server = start_server(tmp_path, "--cert-reload-interval", str(POLL), cert_dir=served)
    old, new = file_fingerprint(first.cert), file_fingerprint(second.cert)
    kept_alive: list[int] = []
    try:
        with Load(int(server.url.rsplit(":", 1)[1]), trusting(first, second)) as load, \
                httpx.Client(verify=trusting(first, second)) as persistent:
            def keep_alive_request() -> None:
                kept_alive.append(persistent.post(server.url + "/validate", content=load.body,
                                                  headers={"content-type": "application/json"}).status_code)

            keep_alive_request()  # opens a connection on the old certificate
            # A rotation as a careless writer does it: half the certificate, then all of it (still
            # the old key), then the key. Neither intermediate state may reach a client; each step waits
            # for the server's own word that a poll saw it, never for a time.
            data = second.cert.read_bytes()
            kept = server.log_text().count("keeping the current pair")
            (served / "tls.crt").write_bytes(data[: len(data) // 2])
            wait_for(lambda: server.log_text().count("keeping the current pair") > kept, "the half certificate seen")
            kept = server.log_text().count("keeping the current pair")
            (served / "tls.crt").write_bytes(data)
            wait_for(lambda: server.log_text().count("keeping the current pair") > kept, "the old key's mismatch seen")
            keep_alive_request()
            answered_before = len(load.results)
            shutil.copy(second.key, served / "tls.key")
            rotated = time.monotonic()  # orders the requests around the rotation; measures nothing
            wait_for(lambda: "serving certificate reloaded" in server.log_text(), "the new pair loaded")
            wait_for(lambda: load.first_seen(new) is not None, "the new certificate served")
            keep_alive_request()  # the connection opened before the rotation still works
        seen_after = load.first_seen(new)
        assert not load.errors, load.errors[:3]
        assert all(ok for _, ok, _ in load.results)
        assert answered_before >= 1 and len(load.results) > answered_before
        assert kept_alive == [200, 200, 200]
        assert all(fp == old for t, _, fp in load.results if t < rotated)
        assert all(fp == new for t, _, fp in load.results if t > seen_after)
        log = server.log_text()
        assert "keeping the current pair" in log
        assert certs.not_after(second.cert).isoformat() in log
        print(f"\n{len(load.results)} requests during rotation, 0 failed")
    finally:
        server.stop()


# -- client certificates ----------------------------------------------------------------------------

def client_certificate(ca: certs.CertFiles, out: Path) -> tuple[str, str]:
    """A client certificate (clientAuth) signed by ca, as the API server's would be."""
    ca_cert = certs.load_certificate(ca.ca_cert)
    ca_key = serialization.load_pem_private_key(ca.ca_key.read_bytes(), password=None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.now(timezone.utc)
    cert = (x509.CertificateBuilder()
            .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "kube-apiserver")]))
            .issuer_name(ca_cert.subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(minutes=5)).not_valid_after(now + timedelta(days=1))
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
            .sign(ca_key, hashes.SHA256()))
    out.mkdir(parents=True, exist_ok=True)
    (out / "client.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (out / "client.key").write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                                       serialization.NoEncryption()))
    return str(out / "client.crt"), str(out / "client.key")


def test_client_ca_file_requires_a_certificate_from_that_ca(tmp_path):
    serving = certs.generate(tmp_path / "serving")
    client_ca = certs.generate(tmp_path / "client-ca")
    other_ca = certs.generate(tmp_path / "other-ca")
    good = client_certificate(client_ca, tmp_path / "good")
    stranger = client_certificate(other_ca, tmp_path / "stranger")
    server = launch_server(tmp_path, "--client-ca-file", str(client_ca.ca_cert), cert_dir=tmp_path / "serving",
                           verify=trusting(serving), cert=good)
    try:
        body = review_body(valid_slice())
        assert server.review("/validate", body)["allowed"] is True
        for cert in (None, stranger):
            context = trusting(serving)
            if cert:
                context.load_cert_chain(*cert)
            with httpx.Client(verify=context) as client, pytest.raises(httpx.TransportError):
                client.post(server.url + "/validate", json=body)
        assert server.client.get(server.url + "/healthz").status_code == 200
    finally:
        server.stop()


def resumed_request(url: str, context: ssl.SSLContext, session: ssl.SSLSession | None) -> tuple[bytes, ssl.SSLSession,
                                                                                              bool]:
    """One GET /healthz on a new connection offering `session`: (the reply or b"" when the server
    refused, the session to resume next, whether this one was resumed)."""
    host, port = url.removeprefix("https://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as raw:
        try:
            with context.wrap_socket(raw, server_hostname="localhost", session=session) as sock:
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                reply = b""
                while chunk := sock.recv(4096):
                    reply += chunk
                return reply, sock.session, sock.session_reused
        except (ssl.SSLError, ConnectionResetError, BrokenPipeError):
            return b"", session, False


def test_sessions_of_the_old_client_ca_are_not_resumed_after_a_rotation(tmp_path):
    serving = certs.generate(tmp_path / "serving")
    old_ca, new_ca = certs.generate(tmp_path / "old-ca"), certs.generate(tmp_path / "new-ca")
    client_ca = tmp_path / "client-ca.crt"
    shutil.copy(old_ca.ca_cert, client_ca)
    old_client = client_certificate(old_ca, tmp_path / "old-client")
    server = launch_server(tmp_path, "--client-ca-file", str(client_ca), "--cert-reload-interval", str(POLL),
                           cert_dir=tmp_path / "serving", verify=trusting(serving), cert=old_client)
    try:
        context = trusting(serving)
        context.load_cert_chain(*old_client)
        reply, session, _ = resumed_request(server.url, context, None)
        assert reply.startswith(b"HTTP/1.1 200 ")
        reply, session, reused = resumed_request(server.url, context, session)
        assert reply.startswith(b"HTTP/1.1 200 ") and reused  # resumption works: the check below means something
        shutil.copy(new_ca.ca_cert, client_ca)  # the old client CA is no longer trusted
        wait_for(lambda: "serving certificate reloaded" in server.log_text(), "the client CA reloaded")
        reply, _, reused = resumed_request(server.url, context, session)
        assert not reused and reply == b""  # a full handshake, which the old client certificate fails
        new_client = trusting(serving)
        new_client.load_cert_chain(*client_certificate(new_ca, tmp_path / "new-client"))
        assert resumed_request(server.url, new_client, None)[0].startswith(b"HTTP/1.1 200 ")
    finally:
        server.stop()
