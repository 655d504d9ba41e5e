"""In a cluster, a built-in rule's failure is answered allowed with a [profile-mismatch] warning, counted
and logged; `--enforce-builtin-rules` with an explicit release keeps the denial; offline stays strict."""

from __future__ import annotations

import json
import time

import pytest

from support import cli, review_body, start_server, valid_slice
from webhook.profile import make_profile
from webhook.serving import worker


def counters_beside_devices() -> dict:
    """Valid on 1.34 with DRAPartitionableDevices; 1.35 and later want counters and devices in separate slices."""
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "node-1-partitioned"},
            "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                     "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                     "sharedCounters": [{"name": "gpu-0-counters", "counters": {"memory": {"value": "40Gi"}}}],
                     "devices": [{"name": f"gpu-0-half-{i}", "consumesCounters": [
                         {"counterSet": "gpu-0-counters", "counters": {"memory": {"value": "20Gi"}}}]}
                         for i in range(2)]}}


def _handle(obj: dict, enforce: bool, profile=None, path: str = "/validate"):
    job = worker.Job(path, json.dumps(review_body(obj)).encode())
    reply = worker.handle(job, lambda: time.monotonic() + 10, profile or make_profile("1.36"), enforce)
    return reply, json.loads(reply.body)["response"]


def test_builtin_failure_is_allowed_with_a_warning_per_rule():
    reply, response = _handle(counters_beside_devices(), enforce=False)
    assert response["allowed"] is True and "status" not in response
    assert reply.mismatches == ("FieldValueInvalid",)
    [warning] = [w for w in response["warnings"] if w.startswith("[profile-mismatch] ")]
    assert "ResourceSlice FieldValueInvalid at spec: " in warning
    assert "only one of `sharedCounters` or `devices` is allowed" in warning
    assert "Kubernetes 1.36" in warning and "the API server accepted this object" in warning


def test_enforced_builtin_rules_deny_as_before():
    reply, response = _handle(counters_beside_devices(), enforce=True)
    assert response["allowed"] is False and response["status"]["code"] == 422
    assert reply.mismatches == ()


def test_a_valid_object_has_no_mismatch():
    reply, response = _handle(counters_beside_devices(), enforce=False,
                              profile=make_profile("1.34", "DRAPartitionableDevices=true"))
    assert response["allowed"] is True and reply.mismatches == ()
    assert not any(w.startswith("[profile-mismatch]") for w in response.get("warnings", []))


def test_each_failed_rule_is_named():
    reply, response = _handle(valid_slice(devices=129, name="Not_A_Name"), enforce=False)
    assert response["allowed"] is True
    assert sorted(reply.mismatches) == ["FieldValueInvalid", "FieldValueTooMany"]
    assert sum(w.startswith("[profile-mismatch] ") for w in response["warnings"]) == 2


def test_mutate_is_untouched():
    reply, response = _handle(counters_beside_devices(), enforce=False, path="/mutate")
    assert response["allowed"] is True and reply.mismatches == ()


def test_offline_review_stays_strict(tmp_path):
    manifest = tmp_path / "slice.yaml"
    manifest.write_text(json.dumps(counters_beside_devices()))
    result = cli("review", "--kubernetes-version", "1.36", str(manifest))
    assert result.returncode == 1, result.stdout + result.stderr
    assert "only one of `sharedCounters` or `devices` is allowed" in result.stdout


def test_enforcement_needs_an_explicit_release():
    result = cli("serve", "--enforce-builtin-rules", "--port", "1")
    assert result.returncode == 2
    assert "--enforce-builtin-rules needs an explicit --kubernetes-version" in result.stderr


@pytest.fixture(scope="module")
def in_cluster_server(tmp_path_factory):
    server = start_server(tmp_path_factory.mktemp("mismatch"), "--kubernetes-version", "1.36", enforce=False)
    yield server
    server.stop()


def test_served_over_tls_allowed_counted_and_logged(in_cluster_server):
    response = in_cluster_server.review("/validate", review_body(counters_beside_devices()))
    assert response["allowed"] is True
    assert any(w.startswith("[profile-mismatch] ResourceSlice FieldValueInvalid at spec: ")
               for w in response["warnings"])
    metrics = in_cluster_server.client.get(in_cluster_server.url + "/metrics").text
    assert 'dra_webhook_profile_mismatches_total{kind="ResourceSlice",rule="FieldValueInvalid"} 1.0' in metrics
    deadline = time.monotonic() + 10
    while "profile-mismatch" not in in_cluster_server.log_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = [json.loads(line) for line in in_cluster_server.log_text().splitlines()
             if line.startswith("{") and "profile-mismatch" in line]
    assert len(lines) == 1 and lines[0]["rules"] == "FieldValueInvalid" and lines[0]["kind"] == "ResourceSlice"
