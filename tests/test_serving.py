"""The server under pressure: deadlines (504, never a verdict), disconnects, overload (429), the health
port, connection limits, worker loss, and the inputs that used to give a 500. Every test talks to a
real `dra-webhook serve` over TLS with a CA-verifying client; none depends on how fast this machine is:
a slow request is a claim named `stall…`, which tests/slowpath keeps its worker on (checking its
deadline as real work does) until the test releases it or the deadline passes."""

from __future__ import annotations

import json
import os
import select
import signal
import socket
import ssl
import struct
import threading
import time
import uuid
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from support import RunningServer, free_port, review_body, start_server, valid_slice
from webhook import certs

SMALL = review_body(valid_slice())


SLOW_PATH = Path(__file__).resolve().parent / "slowpath"


@pytest.fixture
def server_with(tmp_path):
    servers: list[RunningServer] = []
    (tmp_path / "stall").mkdir()
    env = {"DRA_WEBHOOK_TEST_STALL": str(tmp_path / "stall"),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(SLOW_PATH), os.environ.get("PYTHONPATH")]))}

    def start(*args: str) -> RunningServer:
        servers.append(start_server(tmp_path, *args, cert_dir=certs_dir(tmp_path), env=env))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def stalled(name: str = "stall", pad: int = 0) -> dict:
    """A review of a valid claim whose validation waits for release(name) or its deadline (`pad`: bytes of
    annotation, for a large request). Its selector was never seen: it goes to a worker, not inline."""
    selector = {"cel": {"expression": f'device.driver == "{uuid.uuid4()}.example.com"'}}
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": name, "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpus",
                                                                           "selectors": [selector]}}]}}}
    if pad:
        claim["metadata"]["annotations"] = {"example.com/pad": "x" * pad}
    return review_body(claim)


def release(tmp_path: Path, name: str = "stall") -> None:
    (tmp_path / "stall" / name).touch()


def certs_dir(tmp_path: Path) -> Path:
    out = tmp_path / "certs"
    if not out.exists():
        certs.generate(out)
    return out


def tls_socket(server: RunningServer) -> ssl.SSLSocket:
    host, port = server.url.removeprefix("https://").split(":")
    context = ssl.create_default_context(cafile=str(server.ca_file))
    raw = socket.create_connection((host, int(port)), timeout=30)
    return context.wrap_socket(raw, server_hostname=host)


def read_until_closed(sock: ssl.SSLSocket, limit: float = 60) -> bytes:
    """Everything the server sends until it closes the connection (fails after `limit` seconds)."""
    sock.settimeout(limit)
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, ssl.SSLEOFError):
            return received
        if not chunk:
            return received
        received += chunk


def status_of(reply: httpx.Response) -> dict:
    assert reply.headers["content-type"] == "application/json"
    status = reply.json()
    assert status["kind"] == "Status" and status["status"] == "Failure"
    assert status["code"] == reply.status_code
    assert "\n" not in status["message"] and "Traceback" not in reply.text
    return status


def worker_pids(server: RunningServer) -> list[int]:
    pid = server.process.pid
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    # Worker processes are spawned; the other child is multiprocessing's resource tracker.
    return [int(child) for child in children if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes()]


def in_flight(server: RunningServer, path: str = "/validate") -> float:
    return metric(server, "controller_runtime_webhook_requests_in_flight", webhook=path)


def busy_workers(server: RunningServer) -> float:
    return metric(server, "dra_webhook_workers_busy")


def metric(server: RunningServer, name: str, **labels: str) -> float:
    text = server.client.get(server.url + "/metrics").text
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == name and sample.labels.items() >= labels.items():
                return sample.value
    return 0.0


def wait_for(condition, limit: float = 300) -> None:  # a hang guard: nothing here measures speed
    end = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < end, "condition not reached"
        time.sleep(0.05)


# ---- time ---------------------------------------------------------------------------------------

def test_running_out_of_time_is_a_504_status_never_a_verdict(server_with):
    server = server_with("--workers", "1")
    reply = server.post("/validate?timeout=1s", stalled())
    assert reply.status_code == 504
    status = status_of(reply)
    assert status["reason"] == "Timeout" and "deadline" in status["message"]
    assert "details" not in status  # one message, no causes about the object
    # The worker stopped at the deadline: the next request is answered, the server lives on.
    assert server.review("/validate", SMALL)["allowed"] is True
    assert "did not stop at the deadline" not in server.log_text()


def test_request_timeout_flag_is_the_deadline_without_a_query(server_with):
    server = server_with("--workers", "1", "--request-timeout", "1")
    assert server.post("/mutate", stalled()).status_code == 200  # defaulting is not held up
    reply = server.post("/validate", stalled())
    assert reply.status_code == 504 and status_of(reply)["reason"] == "Timeout"


@pytest.mark.parametrize("timeout", ["bogus", "5", "-1s", "0s", "99999999999999999999h", "2562048h",
                                     "9" * 5000 + "s"])
def test_malformed_timeout_is_a_400(webhook_server, timeout):
    # Go's ParseDuration refuses what an int64 of nanoseconds cannot hold; so does the server, at once.
    reply = webhook_server.post(f"/validate?timeout={timeout}", SMALL)
    assert reply.status_code == 400 and "timeout" in reply.text
    assert len(reply.text) < 200


def test_a_refused_envelope_quotes_a_bounded_part_of_the_request(webhook_server):
    # `kind must be AdmissionReview, not '…'`: an 800 KB kind of 4-byte characters, each \U000e0001
    # in the quote, came back as a 2 MB reply.
    body = {"apiVersion": "admission.k8s.io/v1", "kind": "\U000e0001" * 200_000, "request": {"uid": "1"}}
    reply = webhook_server.post("/validate", body)
    assert reply.status_code == 400 and "kind must be AdmissionReview" in reply.text
    assert len(reply.content) < 8192 and reply.text.rstrip().endswith("...(truncated)")


def test_a_long_timeout_is_clamped_to_the_max_request_timeout(server_with):
    # The API server waits 30 s at most: work that asks for 1000 hours stops at --max-request-timeout.
    # The review is never released: only the clamped deadline ends it (the client would give up at 30 s).
    server = server_with("--workers", "1", "--max-request-timeout", "2")
    reply = server.post("/validate?timeout=1000h", stalled())
    assert reply.status_code == 504 and status_of(reply)["reason"] == "Timeout"
    assert server.review("/validate", SMALL)["allowed"] is True


@pytest.mark.parametrize("query,expected", [
    (b"", None), (b"timeout=10s", "10s"), (b"timeout=1m30s", "1m30s"), (b"timeout=2.5s", "2.5s"),
    (b"timeout=5%73", "5s"), (b"dryRun=true&timeout=3s", "3s"), (b"timeout=3s&timeout=4s", "4s"),
    (b"other=1", None), (b"timeout=", ""), (b"timeout=1%20s", "1 s"),
])
def test_the_timeout_parameter_is_read_as_a_query_string(query, expected):
    from starlette.datastructures import QueryParams

    from webhook.serving.timeouts import timeout_parameter

    assert timeout_parameter(query, lambda: QueryParams(query)) == expected  # what Starlette's parsing gives


def test_go_durations_are_understood(webhook_server):
    for timeout in ("5s", "1m0s", "2.5s", "1500ms", "1h"):
        assert webhook_server.post(f"/validate?timeout={timeout}", SMALL).status_code == 200


def test_a_client_that_leaves_frees_its_worker(server_with):
    # One worker and a deadline far beyond the work's start: only cancellation frees the worker.
    server = server_with("--workers", "1", "--request-timeout", "60")
    sock = tls_socket(server)
    body = json.dumps(stalled()).encode()  # never released: only the cancellation can free the worker
    sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body) + body)
    wait_for(lambda: busy_workers(server) == 1)
    sock.close()
    reply = server.post("/validate?timeout=30s", SMALL)
    assert reply.status_code == 200, reply.text
    wait_for(lambda: "client disconnected before the answer" in server.log_text())


# ---- bounded work ---------------------------------------------------------------------------------

def test_requests_beyond_the_in_flight_cap_get_429_at_once(server_with, tmp_path):
    server = server_with("--workers", "1", "--max-requests-in-flight", "1", "--request-timeout", "60")
    slow = threading.Thread(target=server.post, args=("/validate", stalled()))
    slow.start()
    try:
        wait_for(lambda: busy_workers(server) == 1)  # counted once its body is in, being reviewed
        reply = server.post("/validate", SMALL)
        assert reply.status_code == 429 and reply.headers["retry-after"] == "1"
        assert status_of(reply)["reason"] == "TooManyRequests"
    finally:
        release(tmp_path)
        slow.join()
    assert server.review("/validate", SMALL)["allowed"] is True


def test_bytes_beyond_the_budget_get_429(server_with):
    server = server_with("--max-bytes-in-flight", "100000", "--request-timeout", "30")
    sock = tls_socket(server)  # sends 90 kB of a 95 kB body and stalls: holds what it sent
    sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 95000\r\n\r\n" + b" " * 90000)
    wait_for(lambda: in_flight(server) == 1)
    wait_for(lambda: metric(server, "dra_webhook_bytes_in_flight") >= 90000)  # the server holds what was sent
    body = review_body(valid_slice(devices=128))
    assert len(json.dumps(body, separators=(",", ":"))) > 10000
    reply = server.post("/validate", body)
    assert reply.status_code == 429 and status_of(reply)["reason"] == "TooManyRequests"
    assert reply.headers["connection"] == "close"  # refused mid-body: the rest is not read
    sock.close()
    wait_for(lambda: in_flight(server) == 0)
    wait_for(lambda: metric(server, "dra_webhook_bytes_in_flight") == 0)  # all given back
    assert server.review("/validate", body)["allowed"] is True


def stalled_request(server: RunningServer, declared: int, sent: bytes = b"{") -> ssl.SSLSocket:
    sock = tls_socket(server)
    sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % declared + sent)
    return sock


def test_stalled_bodies_hold_no_budget(server_with):
    # Declared sizes are not charged, and bodies still arriving are no reviews in flight: 8 x 8 MiB
    # declared (the whole default --max-bytes-in-flight) and 65 stalled small bodies (over the default
    # --max-requests-in-flight) leave an ordinary request its answer.
    server = server_with()
    stalled = [stalled_request(server, 8 * 1024 * 1024) for _ in range(8)]
    stalled += [stalled_request(server, 2000) for _ in range(65)]
    try:
        wait_for(lambda: in_flight(server) == len(stalled))
        assert server.review("/validate", review_body(valid_slice(devices=16)))["allowed"] is True
    finally:
        for sock in stalled:
            sock.close()


def test_a_lost_worker_is_a_503_and_is_replaced(server_with):
    server = server_with("--workers", "1", "--request-timeout", "60")
    [pid] = worker_pids(server)
    result = {}
    slow = threading.Thread(target=lambda: result.update(reply=server.post("/validate", stalled())))
    slow.start()
    wait_for(lambda: busy_workers(server) == 1)
    os.kill(pid, signal.SIGKILL)
    slow.join()
    assert result["reply"].status_code == 503 and status_of(result["reply"])["reason"] == "ServiceUnavailable"
    wait_for(lambda: server.client.get(server.url + "/readyz").status_code == 200)
    assert server.review("/validate", SMALL)["allowed"] is True
    assert worker_pids(server) != [pid]


# ---- the health port --------------------------------------------------------------------------------

def test_health_port_answers_plain_http_when_the_main_port_wants_client_certificates(tmp_path):
    from support import launch_server
    from test_reload import client_certificate, trusting

    serving = certs.generate(tmp_path / "serving")
    client_ca = certs.generate(tmp_path / "client-ca")
    port = free_port()
    server = launch_server(tmp_path, "--client-ca-file", str(client_ca.ca_cert), "--health-port", str(port),
                           cert_dir=tmp_path / "serving", verify=trusting(serving),
                           cert=client_certificate(client_ca, tmp_path / "client"))
    try:
        health = f"http://127.0.0.1:{port}"
        assert httpx.get(health + "/healthz").text == "ok\n"
        assert httpx.get(health + "/readyz").text == "ok\n"
        assert httpx.get(health + "/metrics").status_code == 404
        assert httpx.post(health + "/healthz").status_code == 501
    finally:
        server.stop()


def test_health_port_answers_while_every_worker_is_busy(server_with, tmp_path):
    port = free_port()
    server = server_with("--workers", "1", "--health-port", str(port), "--request-timeout", "60")
    slow = threading.Thread(target=server.post, args=("/validate", stalled()))
    slow.start()
    try:
        wait_for(lambda: busy_workers(server) == 1)
        assert httpx.get(f"http://127.0.0.1:{port}/healthz").status_code == 200
        assert httpx.get(f"http://127.0.0.1:{port}/readyz").status_code == 200
    finally:
        release(tmp_path)
        slow.join()


def threads(server: RunningServer) -> int:
    return len(os.listdir(f"/proc/{server.process.pid}/task"))


def test_health_port_holds_few_stalled_clients_and_still_answers_probes(server_with):
    port = free_port()
    server = server_with("--health-port", str(port))
    health = f"http://127.0.0.1:{port}"
    assert httpx.get(health + "/healthz").status_code == 200
    time.sleep(0.5)
    before = threads(server)
    stalled = []
    try:
        for _ in range(60):  # connect, start a request, never finish it
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            stalled.append(sock)
        time.sleep(0.5)
        assert threads(server) <= before + 16 + 2  # a thread each for the newest 16 at most (+ hung-up ones ending)
        assert httpx.get(health + "/healthz", timeout=5).status_code == 200  # a probe gets through
        # Stalled clients are hung up on after a while, even the newest.
        stalled[-1].settimeout(30)
        assert stalled[-1].recv(1) == b""
        # A client that resets its connection mid-request leaves no traceback in the log.
        for sock in stalled:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        stalled.clear()
        for _ in range(5):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            time.sleep(0.1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            sock.close()
        assert httpx.get(health + "/healthz").status_code == 200
        time.sleep(0.5)
        assert "Traceback" not in server.log_text()
        assert all(line.startswith("{") for line in server.log_text().splitlines() if line.strip())
    finally:
        for sock in stalled:
            sock.close()


# ---- connections ------------------------------------------------------------------------------------

def test_slow_headers_are_closed_by_the_header_timeout(server_with):
    server = server_with("--header-read-timeout", "1")
    slow = [tls_socket(server) for _ in range(20)]
    for sock in slow:
        sock.sendall(b"POST /validate HTTP/1.1\r\nHo")
    assert server.review("/validate", SMALL)["allowed"] is True  # ordinary requests go on
    for sock in slow:
        assert read_until_closed(sock) == b""  # closed without an answer
        sock.close()


def test_header_timeout_also_applies_to_the_next_request_on_a_kept_connection(server_with):
    server = server_with("--header-read-timeout", "1")
    sock = tls_socket(server)
    body = json.dumps(SMALL).encode()
    request = (b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sock.sendall(request + b"POST /val")
    received = read_until_closed(sock)
    assert received.startswith(b"HTTP/1.1 200 ") and received.count(b"HTTP/1.1") == 1
    sock.close()


def test_a_stalled_body_gets_408_and_the_connection_is_closed(server_with):
    server = server_with("--body-read-timeout", "1")
    sock = tls_socket(server)
    sock.sendall(b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: 1000000\r\n\r\n{\"apiVersion\":")
    received = read_until_closed(sock)
    assert received.startswith(b"HTTP/1.1 408 ")
    assert received.endswith(b"request body not received in time\n")
    sock.close()


def test_oversized_headers_get_431(server_with):
    server = server_with("--max-header-bytes", "8192")
    reply = server.client.post(server.url + "/validate", json=SMALL, headers={"X-Big": "a" * 20000})
    assert reply.status_code == 431
    assert server.review("/validate", SMALL)["allowed"] is True


def test_heads_being_received_share_one_budget(server_with):
    server = server_with("--max-buffered-header-bytes", "1000000")
    unfinished = b"POST /validate HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * 60_000  # under --max-header-bytes
    held = [tls_socket(server) for _ in range(17)]  # 16 such heads fit in the budget, 17 do not
    try:
        for sock in held:
            sock.sendall(unfinished)
        refused: list[bytes] = []
        end = time.monotonic() + 30
        while not refused and time.monotonic() < end:
            for sock in list(held):
                sock.settimeout(0.05)
                try:
                    first = sock.recv(1)
                except TimeoutError:
                    continue  # still waiting for the rest of its head
                refused.append(first + read_until_closed(sock, limit=30))
                held.remove(sock)
                sock.close()
        assert len(refused) == 1, refused
        assert refused[0].startswith(b"HTTP/1.1 431 ")
        assert refused[0].endswith(b"too many request heads being received\n")
        assert server.review("/validate", SMALL)["allowed"] is True  # a whole small head is always taken
        for sock in held:  # the others are waiting for the rest of their heads
            sock.settimeout(0.2)
            with pytest.raises(TimeoutError):
                sock.recv(1)
    finally:
        for sock in held:
            sock.close()
    # The budget is given back when those connections go.
    whole = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Pad: " + b"a" * 60_000 + b"\r\n\r\n"
    wait_for(lambda: tls_exchange(server, whole).startswith(b"HTTP/1.1 200 "))


def tls_exchange(server: RunningServer, request: bytes) -> bytes:
    with tls_socket(server) as sock:
        sock.sendall(request)
        return read_until_closed(sock, limit=30)


def test_content_length_with_transfer_encoding_is_a_400_and_the_connection_is_closed(server_with):
    server = server_with()
    smuggled = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    received = tls_exchange(server, b"POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                                    b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" % len(smuggled)
                            + smuggled)
    assert received.startswith(b"HTTP/1.1 400 ")
    assert received.count(b"HTTP/1.1 ") == 1  # the smuggled request is never served


def refused(server: RunningServer) -> bool:
    """True when the server closes a new connection before or right after its TLS handshake."""
    try:
        sock = tls_socket(server)
    except (ConnectionResetError, ssl.SSLError, OSError):
        return True
    with sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return read_until_closed(sock) == b""


def test_connections_beyond_the_cap_are_closed(server_with):
    server = server_with("--max-connections", "4")
    open_ = [tls_socket(server) for _ in range(3)]  # with the harness client's one: the cap
    assert refused(server)
    for sock in open_:
        sock.close()
    wait_for(lambda: server.client.get(server.url + "/healthz").status_code == 200)
    with httpx.Client(verify=ssl.create_default_context(cafile=str(server.ca_file))) as other:
        assert other.post(server.url + "/validate", json=SMALL).status_code == 200


def test_connections_are_counted_from_accept_not_from_the_handshake(server_with):
    server = server_with("--max-connections", "20", "--header-read-timeout", "2")
    host, port = server.url.removeprefix("https://").split(":")
    bare = [socket.create_connection((host, int(port)), timeout=30) for _ in range(20)]  # no ClientHello
    try:
        wait_for(lambda: refused(server))  # the cap is reached by connections still before their handshake
    finally:
        for sock in bare[:10]:
            sock.close()
    wait_for(lambda: server.client.get(server.url + "/healthz").status_code == 200)
    # The others are closed by the handshake timeout (the header read timeout), or were refused.
    for sock in bare[10:]:
        sock.settimeout(30)
        try:
            assert sock.recv(1) == b""
        except ConnectionResetError:
            pass
        sock.close()


def test_a_burst_of_connections_is_counted_as_it_is_accepted(server_with):
    """asyncio accepts a whole backlog at once and makes every protocol before any connection_made:
    a cap counted there let a burst through whole."""
    server = server_with("--max-connections", "20", "--header-read-timeout", "3600")  # only the cap closes any
    host, port = server.url.removeprefix("https://").split(":")
    os.kill(server.process.pid, signal.SIGSTOP)  # the burst waits in the listen backlog
    try:
        burst = [socket.create_connection((host, int(port)), timeout=10) for _ in range(60)]
    finally:
        os.kill(server.process.pid, signal.SIGCONT)
    try:
        # Refused connections are aborted as soon as they are accepted (readable: EOF or reset): at most 20
        # of the 60 are held, so 40 close (a cap counted too late holds them all, and this never ends).
        wait_for(lambda: len(select.select(burst, [], [], 0)[0]) >= 40)
    finally:
        for sock in burst:
            sock.close()


def rss_mib(server: RunningServer) -> float:
    status = Path(f"/proc/{server.process.pid}/status").read_text()
    return int(next(line for line in status.splitlines() if line.startswith("VmRSS:")).split()[1]) / 1024


def connect_and_close(server: RunningServer, count: int) -> None:
    for _ in range(count):
        with tls_socket(server) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(4096).startswith(b"HTTP/1.1 200 ")


def test_closed_connections_give_their_memory_back(server_with):
    server = server_with()
    connect_and_close(server, 100)  # allocator pools, caches: the first connections' memory stays
    before = rss_mib(server)
    connect_and_close(server, 600)  # closed without close_notify, as most clients do
    # Each used to stay for the idle timeout (uvicorn's keep-alive timer held it): ~33 KiB each.
    grown = rss_mib(server) - before
    assert grown < 6, f"{grown:.1f} MiB"


def test_connections_that_send_nothing_hold_little_memory(server_with):
    server = server_with("--header-read-timeout", "60")
    host, port = server.url.removeprefix("https://").split(":")
    connect_and_close(server, 50)
    before = rss_mib(server)
    bare = [socket.create_connection((host, int(port)), timeout=30) for _ in range(1000)]
    try:
        assert not refused(server)  # a later connection served: every one before it was accepted
        # No TLS buffers before the ClientHello (~64 KiB each before).
        grown = rss_mib(server) - before
        assert grown < 36, f"{grown:.0f} MiB"
    finally:
        for sock in bare:
            sock.close()


def test_idle_connections_are_closed(server_with):
    server = server_with("--idle-timeout", "1")
    sock = tls_socket(server)
    sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
    received = read_until_closed(sock)
    assert received.startswith(b"HTTP/1.1 200 ") and received.endswith(b"ok\n")


def test_sighup_drains_and_exits_0_and_workers_ignore_it(server_with):
    server = server_with("--shutdown-grace-seconds", "10")
    for pid in worker_pids(server):
        os.kill(pid, signal.SIGHUP)  # a terminal's hangup reaches every process of its group
    time.sleep(0.5)
    assert len(worker_pids(server)) == 2 and "exited" not in server.log_text()
    assert server.review("/validate", SMALL)["allowed"] is True
    server.client.close()
    server.process.send_signal(signal.SIGHUP)
    assert server.process.wait(timeout=30) == 0
    lines = [json.loads(line) for line in server.log_text().splitlines() if line.startswith("{")]
    assert any(line["msg"] == "draining" and line["signal"] == "SIGHUP" for line in lines)
    assert lines[-1]["msg"] == "stopped"


# ---- inputs that used to be a 500 --------------------------------------------------------------------

def raw_post(server: RunningServer, path: str, text: str) -> httpx.Response:
    return server.client.post(server.url + path, content=text.encode(), headers={"content-type": "application/json"})


@pytest.mark.parametrize("path", ["/validate", "/mutate"])
def test_lone_surrogates_in_uid_and_name_are_answered(webhook_server, path):
    obj = valid_slice(name="SURROGATE")
    text = json.dumps(review_body(obj, uid="UID")).replace("SURROGATE", "\\ud800").replace('"UID"', '"\\udc00x"')
    reply = raw_post(webhook_server, path, text)
    assert reply.status_code == 200, reply.text
    response = json.loads(reply.content)["response"]
    assert response["uid"] == "\udc00x"  # echoed; a Go client reads it as U+FFFD, as it sent it
    if path == "/validate":
        assert response["allowed"] is False and response["status"]["code"] == 422
        assert response["status"]["details"]["causes"][0]["field"] == "metadata.name"


def test_quantity_overflow_is_a_verdict_not_a_500(webhook_server):
    obj = valid_slice()
    obj["spec"]["devices"][0]["capacity"]["memory"] = {
        "value": "1Gi", "requestPolicy": {"default": "99999999999999999999e1000000",
                                          "validRange": {"min": "1", "step": "99999999999999999999e1000000"}}}
    response = webhook_server.review("/validate", review_body(obj))
    assert response.get("status", {}).get("code", 200) != 500, response
    claim = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
             "metadata": {"name": "c", "namespace": "default"},
             "spec": {"devices": {"requests": [{"name": "r", "exactly": {
                 "deviceClassName": "gpus", "allocationMode": "ExactCount", "count": 1,
                 "capacity": {"requests": {"mem": "99999999999999999999e1000000"}}}}]}}}
    response = webhook_server.review("/validate", review_body(claim))
    assert response.get("status", {}).get("code", 200) != 500, response
    assert "Traceback" not in webhook_server.log_text() and "Overflow" not in webhook_server.log_text()


def test_logs_carry_bounded_strings_only(webhook_server):
    obj = valid_slice()
    obj["metadata"]["name"] = {"password": "hunter2-c0ffee"}
    webhook_server.post("/validate", review_body(obj, uid="uid-object-name"))
    obj["metadata"]["name"] = "n" * 100_000
    webhook_server.post("/validate", review_body(obj, uid="uid-long-name"))
    lines = [json.loads(line) for line in webhook_server.log_text().splitlines() if line.startswith("{")]
    [object_name] = [line for line in lines if line.get("uid") == "uid-object-name"]
    [long_name] = [line for line in lines if line.get("uid") == "uid-long-name"]
    assert object_name["name"] == "" and "hunter2" not in webhook_server.log_text()
    assert long_name["name"].startswith("nnnn") and len(long_name["name"]) < 300
    assert all(len(line) < 5000 for line in webhook_server.log_text().splitlines())


def test_large_requests_never_hold_the_last_worker(server_with, tmp_path):
    server = server_with("--workers", "2", "--request-timeout", "60")
    big = [stalled(f"stall-{i}", pad=100 * 1024) for i in range(2)]
    assert all(len(json.dumps(body)) > 64 * 1024 for body in big)
    results: list[httpx.Response] = []
    threads = [threading.Thread(target=lambda b=b: results.append(server.post("/validate", b)))
               for b in big]
    for thread in threads:
        thread.start()
    try:
        # The second large request waits; one worker stays free.
        wait_for(lambda: busy_workers(server) == 1 and metric(server, "dra_webhook_requests_waiting") == 1)
        assert server.review("/validate", SMALL)["allowed"] is True  # and a small one gets it at once
    finally:
        release(tmp_path, "stall-0")
        release(tmp_path, "stall-1")
        for thread in threads:
            thread.join()
    assert [r.status_code for r in results] == [200, 200]  # both answered, one after the other


def test_metrics_dashboards_expect(webhook_server):
    webhook_server.review("/validate", SMALL)
    webhook_server.post("/validate?timeout=bogus", SMALL)
    text = webhook_server.client.get(webhook_server.url + "/metrics").text
    assert "_created" not in text
    names = {sample.name: sample for family in text_string_to_metric_families(text) for sample in family.samples}
    for name in ("controller_runtime_webhook_requests_total", "controller_runtime_webhook_latency_seconds_bucket",
                 "controller_runtime_webhook_requests_in_flight", "dra_webhook_requests_total",
                 "dra_webhook_workers_ready", "process_resident_memory_bytes", "python_gc_objects_collected_total",
                 "python_info"):
        assert name in names, name
    codes = {(s.labels["webhook"], s.labels["code"]) for family in text_string_to_metric_families(text)
             for s in family.samples if s.name == "controller_runtime_webhook_requests_total"}
    assert {("/validate", "200"), ("/validate", "400")} <= codes


@pytest.mark.parametrize("raw", [
    [], [(b"content-type", b"application/json")],
    [(b"host", b"x"), (b"content-type", b"application/json; charset=utf-8"), (b"content-length", b"12")],
    [(b"content-length", b"5"), (b"content-length", b"7"), (b"content-type", b"a/b"), (b"content-type", b"c/d")],
    [(b"content-type", b"application/\xe9+json")],
])
def test_the_envelope_headers_read_as_starlette_reads_them(raw):
    from starlette.datastructures import Headers

    from webhook.serving.app import _envelope_headers

    headers = Headers(raw=raw)
    assert _envelope_headers(raw) == (headers.get("content-type", ""), headers.get("content-length"))


# ---- replies --------------------------------------------------------------------------------------

def many_requests_claim(requests: int) -> dict:
    """A claim whose /mutate answer (a default per request) is about 3x its size."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "many", "namespace": "default"},
            "spec": {"devices": {"requests": [{"name": f"request-{i:05d}", "exactly": {"deviceClassName": "gpus"}}
                                              for i in range(requests)]}}}


def non_reading_post(server: RunningServer, body: bytes) -> ssl.SSLSocket:
    """POSTs `body` to /mutate and reads nothing (a small receive buffer: the answer cannot hide in the
    kernel's buffers)."""
    host, port = server.url.removeprefix("https://").split(":")
    raw = socket.socket()
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    raw.settimeout(30)
    raw.connect((host, int(port)))
    sock = ssl.create_default_context(cafile=str(server.ca_file)).wrap_socket(raw, server_hostname=host)
    sock.sendall(b"POST /mutate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(body) + body)
    return sock


def test_answers_count_against_the_byte_budget_until_sent(server_with):
    # A 3 MB claim's 11 MB patch, unread, holds its bytes: the same request from another client is
    # reviewed (its body fits) but its answer does not fit beside the first: 429, not a second patch.
    server = server_with("--max-bytes-in-flight", "17000000", "--request-timeout", "30")
    body = json.dumps(review_body(many_requests_claim(50_000))).encode()
    reader = non_reading_post(server, body)
    wait_for(lambda: in_flight(server, "/mutate") == 0)  # answered; its patch waits for the reader
    reply = server.post("/mutate", json.loads(body))
    assert reply.status_code == 429 and "answer bytes" in status_of(reply)["message"]
    reader.close()  # its answer's bytes leave the budget with it
    wait_for(lambda: server.post("/mutate", json.loads(body)).status_code == 200)


def test_a_client_that_never_reads_its_reply_is_cut_off_and_its_bytes_freed(server_with):
    # A 4 MB claim whose 12 MB patch the client never reads (its receive buffer kept small, so the
    # reply cannot hide in the kernel's buffers): after --write-timeout the connection is aborted
    # and the reply's bytes leave --max-bytes-in-flight, which another large request then needs.
    server = server_with("--write-timeout", "1", "--max-bytes-in-flight", "17000000", "--request-timeout", "30")
    body = json.dumps(review_body(many_requests_claim(50_000))).encode()
    reader = non_reading_post(server, body)
    wait_for(lambda: "the client did not read its reply" in server.log_text(), limit=30)
    # Its budget is free again (while the reply was held, this request's answer did not fit: 429)...
    assert len(server.post("/mutate", json.loads(body)).content) > 2 * len(body)
    # ...and it was cut off, not sent.
    received = read_until_closed(reader)
    assert received.startswith(b"HTTP/1.1 200 ") and len(received) < 2 * len(body)
    reader.close()
    assert server.review("/validate", SMALL)["allowed"] is True


def test_a_huge_invalid_name_comes_back_bounded_with_its_causes(webhook_server):
    # A 3 MB name was echoed in each cause, in the message and as details.name: 18 MB of reply.
    obj = valid_slice()
    obj["metadata"]["name"] = "A" * 3_000_000
    reply = webhook_server.post("/validate", review_body(obj))
    assert reply.status_code == 200 and len(reply.content) < 64 * 1024
    status = reply.json()["response"]["status"]
    assert status["code"] == 422 and status["reason"] == "Invalid"
    assert {(c["field"], c["reason"]) for c in status["details"]["causes"]} == {("metadata.name", "FieldValueInvalid")}
    assert any(c["message"].endswith("...(truncated): must be no more than 253 characters")
               for c in status["details"]["causes"])
    assert status["details"]["name"] == "A" * 256 + "...(truncated)"


def test_cel_error_lists_come_back_bounded_per_cause(webhook_server):
    # 32 selectors of 10,000 bytes, each with cel-go's 100 errors, every one quoting the whole line: about
    # 1.1 MB of detail per selector, 36 MB of reply, built again for every request that repeats it.
    selector = ("device.driver == 1 +) " * 460)[:10_000]
    obj = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "errors.example.com"},
           "spec": {"selectors": [{"cel": {"expression": selector}} for _ in range(32)]}}
    reply = webhook_server.post("/validate", review_body(obj))
    assert reply.status_code == 200 and len(reply.content) < 3 * 1024 * 1024
    status = reply.json()["response"]["status"]
    assert len(status["message"]) <= 33 * 1024 and status["message"].endswith("...(truncated)")
    causes = status["details"]["causes"]
    assert [c["field"] for c in causes] == [f"spec.selectors[{i}].cel.expression" for i in range(32)]
    assert all(c["message"].startswith("Invalid value: ") and "compilation failed: ERROR: <input>:1:21: Syntax error"
               in c["message"] and c["message"].endswith("...(truncated)") for c in causes)


def test_a_denial_lists_a_bounded_number_of_causes(webhook_server):
    obj = valid_slice(devices=128)
    for device in obj["spec"]["devices"]:
        device["name"] = "Bad_" + device["name"]
        device["attributes"]["x" * 70] = {"int": 1}
    status = webhook_server.review("/validate", review_body(obj))["status"]
    causes = status["details"]["causes"]
    assert len(causes) == 128 and causes[0]["field"] == "spec.devices[0].name"
    assert status["message"].endswith(" more errors not shown)")


def test_warnings_are_cut_as_the_api_server_relays_them(webhook_server):
    # Past 4 KiB of warnings in all, the API server keeps 256 characters of each, and stops at 4 KiB.
    obj = valid_slice()
    for i in range(50):
        obj["spec"][f"unknown{i:02d}" + "y" * 1000] = 1
    response = webhook_server.review("/validate", review_body(obj))
    warnings = response["warnings"]
    assert response["allowed"] is True and warnings[0].startswith('unknown field "spec.unknown00yyy')
    assert all(len(w) == 256 for w in warnings) and sum(len(w) for w in warnings) <= 4096
