"""A user-written driver profile loaded from a directory, enforced by a real server over TLS and offline, and
reloaded in the running server when its ConfigMap-style directory changes (no restart)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from drivercases import claim_with
from support import cli, review_body, start_server
from test_drivers_schema import USER_PROFILE

DRIVER = "fpga.example.org"
P = "spec.devices.config[0].opaque.parameters"
GOOD = {"apiVersion": "fpga.example.org/v1", "kind": "FpgaConfig", "bitstream": "a.bit", "clockMHz": 800}
SHARED_FAST = {**GOOD, "mode": "Shared", "clockMHz": 500}  # the profile's second rule refuses it
PARTITIONED = {**GOOD, "partitions": 2}  # the first rule refuses it while the driver's gate is off


def _publish(directory: Path, text: str, generation: int) -> None:
    """What the kubelet does to a mounted ConfigMap: a new timestamped directory, `..data` swapped to it."""
    version = directory / f"..{generation}"
    version.mkdir()
    (version / "fpga.yaml").write_text(text)
    link = directory / "..data_tmp"
    link.symlink_to(version.name)
    os.replace(link, directory / "..data")
    if not (directory / "fpga.yaml").is_symlink():
        (directory / "fpga.yaml").symlink_to("..data/fpga.yaml")


def _causes(response: dict) -> list[tuple[str, str]]:
    details = (response.get("status") or {}).get("details") or {}
    return sorted((c["field"], c["reason"]) for c in details.get("causes", []))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("drivers-serve")
    profiles = workdir / "profiles"
    profiles.mkdir()
    _publish(profiles, USER_PROFILE, 1)
    server = start_server(workdir, "--driver-profiles", str(profiles), "--cert-reload-interval", "0.2",
                          "--workers", "1")
    yield server, profiles
    server.stop()


def test_user_profile_enforced_by_the_server(served):
    server, _ = served
    assert server.review("/validate", review_body(claim_with(DRIVER, GOOD)))["allowed"] is True
    response = server.review("/validate", review_body(claim_with(DRIVER, GOOD, SHARED_FAST, PARTITIONED)))
    assert response["allowed"] is False
    assert _causes(response) == [("spec.devices.config[1].opaque.parameters.clockMHz", "FieldValueInvalid"),
                                 ("spec.devices.config[2].opaque.parameters.partitions", "FieldValueForbidden")]
    assert "shared mode runs at most at 400 MHz" in response["status"]["message"]
    # the bundled profiles are there too, and a driver without a profile passes
    assert server.review("/validate", review_body(claim_with("other.example.com", {"x": 1})))["allowed"] is True


def test_profile_reloaded_in_the_running_server(served):
    server, profiles = served
    body = review_body(claim_with(DRIVER, SHARED_FAST))
    assert server.review("/validate", body)["allowed"] is False
    pid = server.process.pid
    _publish(profiles, USER_PROFILE.replace("self.clockMHz <= 400", "self.clockMHz <= 500"), 2)
    deadline = time.monotonic() + 60  # the verdict is what is asserted; the wait only bounds a broken reload
    while server.review("/validate", body)["allowed"] is False and time.monotonic() < deadline:
        time.sleep(0.1)
    assert server.review("/validate", body)["allowed"] is True
    # every process of the server has the new profile: many requests, all allowed
    assert all(server.review("/validate", review_body(claim_with(DRIVER, SHARED_FAST)))["allowed"] for _ in range(10))
    # a broken update keeps the last good profiles, and says so in the log
    _publish(profiles, USER_PROFILE.replace("kinds:", "kinds: 3\nx:"), 3)
    deadline = time.monotonic() + 60
    while "driver profiles not reloaded" not in server.log_text() and time.monotonic() < deadline:
        assert server.review("/validate", body)["allowed"] is True  # reloads happen as requests come
        time.sleep(0.1)
    assert "driver profiles not reloaded" in server.log_text()
    assert server.review("/validate", body)["allowed"] is True
    assert server.review("/validate", review_body(claim_with(DRIVER, PARTITIONED)))["allowed"] is False
    assert server.process.pid == pid and server.process.poll() is None


def test_user_profile_enforced_offline_review_and_test(tmp_path):
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    (profiles / "fpga.yaml").write_text(USER_PROFILE)
    manifest = tmp_path / "claim.yaml"
    manifest.write_text(json.dumps(claim_with(DRIVER, GOOD, SHARED_FAST)))
    result = cli("review", "--driver-profiles", str(profiles), "-o", "json", str(manifest))
    assert result.returncode == 1, result.stderr
    messages = json.loads(result.stdout)["results"][0]["messages"]
    assert [(m["field"], m["reason"]) for m in messages] == [
        ("spec.devices.config[1].opaque.parameters.clockMHz", "FieldValueInvalid")]
    # without the profile, the same claim passes
    assert cli("review", str(manifest)).returncode == 0
    # the gate flag turns the first rule off
    gated = tmp_path / "gated.yaml"
    gated.write_text(json.dumps(claim_with(DRIVER, PARTITIONED)))
    assert cli("review", "--driver-profiles", str(profiles), str(gated)).returncode == 1
    assert cli("review", "--driver-profiles", str(profiles), "--driver-feature-gates",
               "fpga.example.org:Partitions=true", str(gated)).returncode == 0
    suite = tmp_path / "suite.yaml"
    suite.write_text(
        "apiVersion: dra-webhook/v1alpha1\nkind: TestSuite\ntests:\n"
        "- name: the second rule of the fpga profile\n"
        "  object: claim.yaml\n"
        "  expect:\n"
        "    allowed: false\n"
        "    causes:\n"
        f"    - {{field: 'spec.devices.config[1].opaque.parameters.clockMHz', reason: FieldValueInvalid}}\n")
    result = cli("test", "--driver-profiles", str(profiles), str(suite))
    assert result.returncode == 0, result.stdout + result.stderr


def test_broken_profile_stops_the_start_with_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(USER_PROFILE.replace("self.clockMHz <= 400", "self.clockMHz <= "))
    for command in (["review", "--driver-profile", str(bad), str(bad)],
                    ["serve", "--insecure-http", "--port", "1", "--driver-profile", str(bad)]):
        result = cli(*command)
        assert result.returncode == 2
        assert f"{bad}:26: " in result.stderr and "compilation failed" in result.stderr
    checked = cli("profiles", "check", str(bad))
    assert checked.returncode == 1 and f"{bad}:26: " in checked.stdout
    listed = cli("profiles", "list", "--driver-profile", str(tmp_path / "missing.yaml"))
    assert listed.returncode == 2 and "missing.yaml" in listed.stderr
    listed = cli("profiles", "list")
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()] == [
        "compute-domain.nvidia.com", "dra.cpu", "dra.net", "gpu.example.com", "gpu.nvidia.com"]


def test_as_in_a_cluster_the_drivers_refusal_stays_a_denial(tmp_path):
    """Without --enforce-builtin-rules (serve's default, as in a cluster) a built-in rule's failure is a
    profile mismatch, answered allowed; the drivers' checks are no built-in rule (the API server cannot make
    them): what they refuse stays refused, alone. Before, every driver denial was answered allowed."""
    profiles = tmp_path / "profiles"
    profiles.mkdir()
    _publish(profiles, USER_PROFILE, 1)
    server = start_server(tmp_path, "--driver-profiles", str(profiles), "--workers", "1", enforce=False)
    try:
        response = server.review("/validate", review_body(claim_with(DRIVER, GOOD, SHARED_FAST)))
        assert response["allowed"] is False
        assert _causes(response) == [("spec.devices.config[1].opaque.parameters.clockMHz", "FieldValueInvalid")]
        claim = claim_with(DRIVER, GOOD, SHARED_FAST)
        claim["metadata"]["labels"] = {"bad label!": "x"}  # a built-in rule's failure beside the driver's
        response = server.review("/validate", review_body(claim))
        assert response["allowed"] is False
        assert _causes(response) == [("spec.devices.config[1].opaque.parameters.clockMHz", "FieldValueInvalid")]
        assert any(w.startswith("[profile-mismatch]") and "metadata.labels" in w for w in response["warnings"])
        assert server.review("/validate", review_body(claim_with(DRIVER, GOOD)))["allowed"] is True
    finally:
        server.stop()
