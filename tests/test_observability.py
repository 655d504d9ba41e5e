"""What an operator sees: /readyz, /metrics, JSON log lines, and a graceful stop on SIGTERM."""

from __future__ import annotations

import json
import signal
import socket
import ssl
from datetime import datetime, timedelta, timezone

import pytest
from prometheus_client.parser import text_string_to_metric_families

from support import launch_server, review_body, start_server, valid_slice, wait_for
from webhook import certs

SECRET = "body-marker-7d41c2"  # put into request bodies; must never show up in the logs


@pytest.fixture(scope="module")
def fresh_server(tmp_path_factory):
    """A server of this module's own, so its metrics count only the requests sent here."""
    server = start_server(tmp_path_factory.mktemp("observability"))
    yield server
    server.stop()


def samples(text: str) -> dict[tuple[str, frozenset], float]:
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return out


def labels(**values: str) -> frozenset:
    return frozenset(values.items())


def test_metrics_count_reviews_by_path_kind_operation_allowed_and_dry_run(fresh_server):
    allowed, denied = valid_slice(), valid_slice(devices=129)
    fresh_server.review("/validate", review_body(allowed))
    fresh_server.review("/validate", review_body(allowed))
    fresh_server.review("/validate", review_body(denied, dry_run=True))
    fresh_server.review("/mutate", review_body(allowed))
    fresh_server.client.post(fresh_server.url + "/validate", content=b"not json",
                             headers={"content-type": "application/json"})

    reply = fresh_server.client.get(fresh_server.url + "/metrics")
    assert reply.status_code == 200
    assert reply.headers["content-type"].startswith("text/plain")
    got = samples(reply.text)

    def review(path, allowed, dry_run):
        return labels(path=path, kind="ResourceSlice", operation="CREATE", allowed=allowed, dry_run=dry_run)

    assert got[("dra_webhook_requests_total", review("/validate", "true", "false"))] == 2
    assert got[("dra_webhook_requests_total", review("/validate", "false", "true"))] == 1
    assert got[("dra_webhook_requests_total", review("/mutate", "true", "false"))] == 1
    assert got[("dra_webhook_request_duration_seconds_count", review("/validate", "true", "false"))] == 2
    assert got[("dra_webhook_request_duration_seconds_sum", review("/validate", "true", "false"))] > 0
    assert got[("dra_webhook_rejected_requests_total", labels(path="/validate", code="400"))] == 1
    assert got[("dra_webhook_requests_in_flight", labels(path="/validate"))] == 0
    expiry = got[("dra_webhook_serving_certificate_expiry_timestamp_seconds", labels())]
    assert expiry == certs.not_after(fresh_server.cert_dir / "tls.crt").timestamp()


def test_unknown_kinds_do_not_become_label_values(fresh_server):
    pod = {"apiVersion": "v1", "kind": "MadeUpKind-123", "metadata": {"name": "p"}}
    fresh_server.review("/validate", review_body(pod, operation="INVENTED"))
    text = fresh_server.client.get(fresh_server.url + "/metrics").text
    assert "MadeUpKind-123" not in text and "INVENTED" not in text
    assert samples(text)[("dra_webhook_requests_total", labels(path="/validate", kind="other", operation="other",
                                                               allowed="true", dry_run="false"))] == 1


def _log_some_requests(server) -> list[dict]:
    obj = valid_slice(name="log-check")
    obj["metadata"]["annotations"] = {"example.com/note": SECRET}
    server.review("/validate", review_body(obj, uid="uid-allowed-1"))
    bad = valid_slice(name="Bad_Name")
    bad["metadata"]["labels"] = {"note": SECRET}
    server.review("/validate", review_body(bad, uid="uid-denied-1"))
    server.client.post(server.url + "/validate", content=f'{{"broken": "{SECRET}"'.encode(),
                       headers={"content-type": "application/json"})
    wait_for(lambda: '"request refused"' in server.log_text(), "the last request logged")
    text = server.log_text()
    assert SECRET not in text
    return [json.loads(line) for line in text.splitlines() if line.strip()]  # every line is JSON


def test_denials_and_refusals_are_logged_at_info_allowed_reviews_at_debug(fresh_server):
    lines = _log_some_requests(fresh_server)
    reviews = {line.get("uid"): line for line in lines if line.get("msg") == "admission review"}
    assert "uid-allowed-1" not in reviews  # counted by the metrics; logged with --log-level debug
    denied = reviews["uid-denied-1"]
    assert (denied["kind"], denied["name"], denied["operation"], denied["allowed"], denied["level"]) == (
        "ResourceSlice", "Bad_Name", "CREATE", False, "info")
    assert denied["durationMs"] >= 0 and denied["time"]
    refused = [line for line in lines if line.get("msg") == "request refused"]
    assert refused and refused[-1]["code"] == 400 and refused[-1]["level"] == "info"


def test_with_debug_logging_every_review_has_one_json_line_and_never_the_body(tmp_path):
    server = start_server(tmp_path, "--log-level", "debug")
    try:
        lines = _log_some_requests(server)
    finally:
        server.stop()
    by_uid = {line.get("uid"): line for line in lines if line.get("msg") == "admission review"}
    for uid, name, allowed, level in (("uid-allowed-1", "log-check", True, "debug"),
                                      ("uid-denied-1", "Bad_Name", False, "info")):
        line = by_uid[uid]
        assert (line["kind"], line["name"], line["operation"], line["allowed"]) == ("ResourceSlice", name, "CREATE",
                                                                                    allowed)
        assert line["durationMs"] >= 0 and line["level"] == level and line["time"]


def test_readyz_fails_when_the_certificate_has_expired(tmp_path):
    two_days_ago = datetime.now(timezone.utc) - timedelta(days=2)
    files = certs.generate(tmp_path / "certs", now=two_days_ago, days=1)
    # Like the kubelet's HTTPS probes, this client does not verify the certificate.
    server = launch_server(tmp_path, cert_dir=tmp_path / "certs", verify=False)
    try:
        reply = server.client.get(server.url + "/readyz")
        assert reply.status_code == 503
        assert "expired" in reply.text and certs.not_after(files.cert).isoformat() in reply.text
        assert server.client.get(server.url + "/healthz").status_code == 200  # alive, just not ready
    finally:
        server.stop()


def test_readyz_is_ok_with_a_valid_certificate(fresh_server):
    assert fresh_server.client.get(fresh_server.url + "/readyz").text == "ok\n"


def _read_http_response(sock: ssl.SSLSocket) -> tuple[int, bytes]:
    data = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def _refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    except OSError:
        return True
    return False


def _in_flight(server) -> float:
    text = server.client.get(server.url + "/metrics").text
    return next((float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                 if line.startswith('controller_runtime_webhook_requests_in_flight{webhook="/validate"}')), 0.0)


def test_sigterm_lets_the_request_in_flight_finish(tmp_path):
    # A grace period no test waits out: exiting at all proves the drain ended with the last request.
    server = start_server(tmp_path, "--shutdown-grace-seconds", "3600", "--log-level", "debug")
    port = int(server.url.rsplit(":", 1)[1])
    context = ssl.create_default_context(cafile=str(server.ca_file))
    body = json.dumps(review_body(valid_slice(devices=128), uid="uid-in-flight")).encode()
    head = (f"POST /validate HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    try:
        with context.wrap_socket(socket.create_connection(("127.0.0.1", port)), server_hostname="127.0.0.1") as tls:
            # The request is in flight: headers and half the body sent, the rest held back, as a
            # slow client on a slow link would. The server cannot answer before it has it all.
            tls.sendall(head + body[: len(body) // 2])
            wait_for(lambda: _in_flight(server) == 1, "the request counted in flight")
            # The harness's idle keep-alive connection would never answer the server's TLS close
            # (a Go client, as the API server's, does), holding shutdown to the full grace period.
            server.client.close()
            server.process.send_signal(signal.SIGTERM)
            wait_for(lambda: '"msg": "draining", "signal": "SIGTERM"' in server.log_text(), "the drain begun")
            assert server.process.poll() is None, "server exited with a request in flight"
            wait_for(lambda: _refused(port), "new connections refused once shutting down")
            assert server.process.poll() is None, "server exited with a request in flight"
            tls.sendall(body[len(body) // 2:])
            status, payload = _read_http_response(tls)
        assert status == 200
        response = json.loads(payload)["response"]
        assert response["uid"] == "uid-in-flight" and response["allowed"] is True
        wait_for(lambda: server.process.poll() is not None, "the process exited after its last request")
        assert server.process.returncode == 0  # a drain asked for and done
        assert "uid-in-flight" in server.log_text()
    finally:
        server.stop()
