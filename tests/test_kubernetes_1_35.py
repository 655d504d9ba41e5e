"""Kubernetes 1.35 next to 1.36: the same request, both verdicts (every DRA gate of each version on),
and what else 1.35 does differently (served versions, defaults, gates, the command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from cases_1_35 import ALL_GATES_1_35, ALL_GATES_1_36, Case, cases_by_id
from support import review_body, same_request_verdicts
from webhook import admit
from webhook.profile import GATES, SUPPORTED_VERSIONS, ProfileError, make_profile
from webhook.review import decode_review

PROFILE_1_35 = make_profile("1.35", ALL_GATES_1_35)
PROFILE_1_36 = make_profile("1.36", ALL_GATES_1_36)


@pytest.mark.parametrize("case", cases_by_id())
def test_same_request_two_versions(case: Case):
    _, warnings_136 = same_request_verdicts(case.obj, (PROFILE_1_35, case.v135, case.warnings_135),
                                            (PROFILE_1_36, case.v136, case.warnings_136))
    assert not any("unknown field" in w for w in warnings_136), warnings_136


def test_version_spellings_and_gates():
    assert SUPPORTED_VERSIONS == ("1.34", "1.35", "1.36", "1.37")
    for text in ("1.35", "v1.35", "1.35.4"):
        assert make_profile(text).version == "1.35"
    defaults = make_profile("1.35")
    # rules-1.35 §2: alpha/off in 1.35 what is beta/on in 1.36; DeviceTaintRules alpha.
    for gate in ("DRADeviceTaints", "DRAPartitionableDevices", "DRAConsumableCapacity", "DRADeviceBindingConditions",
                 "DRAExtendedResource", "DRADeviceTaintRules"):
        assert GATES["1.35"][gate].stage == "Alpha" and not defaults.enabled(gate)
    assert GATES["1.35"]["DRAAdminAccess"].stage == "Beta" and defaults.enabled("DRAAdminAccess")
    assert make_profile("1.35", "DRAAdminAccess=false").gates["DRAAdminAccess"] is False  # not locked before 1.36
    with pytest.raises(ProfileError, match="locked"):
        make_profile("1.36", "DRAAdminAccess=false")
    with pytest.raises(ProfileError) as error:
        make_profile("1.35", "DRAListTypeAttributes=true")
    assert "unrecognized feature gate: DRAListTypeAttributes" in str(error.value)
    assert "known DRA gates of Kubernetes 1.35: DRAAdminAccess," in str(error.value)
    assert "DRAResourcePoolStatus" not in str(error.value)


def test_gate_table_1_36_is_1_35_plus_a_delta():
    changed = {name for name in GATES["1.36"] if GATES["1.36"][name] != GATES["1.35"].get(name)}
    assert changed == {"DRAAdminAccess", "DRAPrioritizedList", "DRADeviceTaints", "DRADeviceTaintRules",
                       "DRAPartitionableDevices", "DRAConsumableCapacity", "DRADeviceBindingConditions",
                       "DRAExtendedResource", "DRAListTypeAttributes", "DRANodeAllocatableResources",
                       "DRAResourcePoolStatus", "DRAResourceClaimGranularStatusAuthorization",
                       "DRAWorkloadResourceClaims"}
    assert set(GATES["1.35"]) < set(GATES["1.36"])


def _mutate(obj: dict, profile, *, old: dict | None = None) -> list:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    body = review_body(obj, operation="UPDATE" if old else "CREATE", old=old)
    return admit.mutate(decode_review(body), profile=profile, now=now).patch or []


def _taint_rule(effect: str, version: str = "v1alpha3") -> dict:
    return {"apiVersion": f"resource.k8s.io/{version}", "kind": "DeviceTaintRule",
            "metadata": {"name": "r", "resourceVersion": "1"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com"},
                     "taint": {"key": "example.com/k", "effect": effect, "timeAdded": "2026-01-01T00:00:00Z"}}}


def test_taint_rule_time_added_is_not_moved_by_an_effect_change_in_1_35():
    old, new = _taint_rule("NoSchedule"), _taint_rule("NoExecute")
    assert _mutate(new, PROFILE_1_35, old=old) == []
    assert [op["path"] for op in _mutate(new, PROFILE_1_36, old=old)] == ["/spec/taint/timeAdded"]
    # Both default a missing timeAdded on create.
    bare = _taint_rule("NoSchedule")
    del bare["spec"]["taint"]["timeAdded"]
    assert [op["path"] for op in _mutate(bare, PROFILE_1_35)] == ["/spec/taint/timeAdded"]


def test_no_allocation_multiplier_default_in_1_35():
    obj = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
           "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "resourceSliceCount": 1}, "nodeName": "n",
                    "devices": [{"name": "d", "capacity": {"memory": {"value": "1Gi"}},
                                 "nodeAllocatableResourceMappings": {"memory": {"capacityKey": "memory"}}}]}}
    assert _mutate(obj, PROFILE_1_35) == []
    assert [op["value"] for op in _mutate(obj, PROFILE_1_36)] == ["1"]


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webhook", *args], capture_output=True, text=True, input=stdin,
                          timeout=120)


_SLICE_WITH_LISTS = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: p, resourceSliceCount: 1}
  devices:
  - name: d
    attributes:
      cores: {ints: [1, 2]}
"""

_TAINT_RULE_V1BETA2 = """apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: r}
spec:
  deviceSelector: {driver: gpu.example.com}
  taint: {key: example.com/k, effect: NoSchedule}
"""


def test_review_1_35_refuses_list_attributes_as_unknown_fields_and_serves_taint_rules_as_v1alpha3():
    result = _cli("review", "--kubernetes-version", "v1.35.4", "-o", "json", "-", stdin=_SLICE_WITH_LISTS)
    assert result.returncode == 1, result.stderr
    message = json.loads(result.stdout)["results"][0]["response"]["status"]["message"]
    assert 'strict decoding error: unknown field "spec.devices[0].attributes.cores.ints"' in message
    assert _cli("review", "--kubernetes-version", "1.36", "--feature-gates", "DRAListTypeAttributes=true",
                "-", stdin=_SLICE_WITH_LISTS).returncode == 0
    result = _cli("review", "--kubernetes-version", "1.35", "--feature-gates", "DRADeviceTaintRules=true", "-",
                  stdin=_TAINT_RULE_V1BETA2)
    assert result.returncode == 1
    assert 'no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1beta2"' in result.stdout
    assert "resource.k8s.io/v1alpha3" in result.stdout
    v1alpha3 = _TAINT_RULE_V1BETA2.replace("v1beta2", "v1alpha3")
    assert _cli("review", "--kubernetes-version", "1.35", "--feature-gates", "DRADeviceTaintRules=true", "-",
                stdin=v1alpha3).returncode == 0


def test_cli_usage_errors_list_the_supported_versions_and_gates():
    version = _cli("--version")
    assert "--kubernetes-version 1.34, 1.35, 1.36, 1.37" in version.stdout
    for command in ("review -", "test -", "allocate -", "serve"):
        result = _cli(*command.split(), "--kubernetes-version", "1.33")
        assert result.returncode == 2, (command, result.stderr)
        assert "supported: 1.34, 1.35, 1.36, 1.37" in result.stderr, (command, result.stderr)
    result = _cli("review", "--kubernetes-version", "1.35", "--feature-gates", "DRANodeAllocatableResources=true", "-",
                  stdin=_SLICE_WITH_LISTS)
    assert result.returncode == 2
    assert "unrecognized feature gate: DRANodeAllocatableResources" in result.stderr
    assert "known DRA gates of Kubernetes 1.35" in result.stderr


def test_allocate_1_35_runs_its_own_allocator(tmp_path):
    """examples/allocate under 1.35 and 1.34: with DRADeviceTaints off (their default) the tainted gpu-3 is
    usable, but no two usable A100s share a NUMA node: not allocated (exit 1), for the same reasons."""
    import json
    from pathlib import Path

    examples = Path(__file__).resolve().parent.parent / "examples" / "allocate"
    for version in ("1.35", "1.34"):
        result = _cli("allocate", "--kubernetes-version", version, "--node", "node-1", "-o", "json", str(examples))
        assert result.returncode == 1, result.stderr
        assert "not ported" not in result.stderr
        report = json.loads(result.stdout)
        [claim] = report["claims"]
        assert report["allocated"] is False and claim["name"] == "training-gpus" and claim["allocation"] is None
        [explained] = claim["explanation"]
        assert (explained["considered"], explained["usable"]) == (6, 2), version
        assert sorted((r["reason"], r["count"]) for r in explained["removed"]) == [
            ("already allocated", 1), ("on another node", 2), ("request selector false", 1)], version
        assert "matchAttribute gpu.example.com/numa" in explained["note"]


_SUITE = """apiVersion: dra-webhook/v1alpha1
kind: TestSuite
name: map keys on Kubernetes 1.35
kubernetesVersion: "1.35"
tests:
  - name: a bad attribute key is reported at the key
    object:
      apiVersion: resource.k8s.io/v1
      kind: ResourceSlice
      metadata: {name: s}
      spec:
        driver: gpu.example.com
        nodeName: node-1
        pool: {name: p, resourceSliceCount: 1}
        devices:
          - name: d
            attributes:
              "bad key": {string: x}
    expect:
      allowed: false
      causes: [{field: "spec.devices[0].attributes[bad key]", reason: FieldValueInvalid}]
"""


def test_suite_kubernetes_version_1_35(tmp_path):
    suite = tmp_path / "suite.yaml"
    suite.write_text(_SUITE)
    result = _cli("test", str(suite))
    assert result.returncode == 0, result.stdout + result.stderr
    suite.write_text(_SUITE.replace('kubernetesVersion: "1.35"', 'kubernetesVersion: "1.36"'))
    assert _cli("test", str(suite)).returncode == 1


def test_stored_selectors_have_no_includes_before_list_attributes():
    """An unchanged DeviceClass selector is compiled as stored (every library); 1.35's has no includes()."""
    expression = 'device.attributes["gpu.example.com"].cores.includes(1)'
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
           "metadata": {"name": "gpu.example.com", "resourceVersion": "1"},
           "spec": {"selectors": [{"cel": {"expression": expression}}]}}
    relabelled = {**cls, "metadata": {**cls["metadata"], "labels": {"x": "y"}}}
    body = review_body(relabelled, operation="UPDATE", old=cls)
    path = "spec.selectors[0].cel.expression"
    for profile, allowed in ((make_profile("1.36"), True), (make_profile("1.35"), False)):
        response = admit.validate(decode_review(body), profile=profile)
        assert response.allowed is allowed, (profile.version, response.status)
        if not allowed:
            assert [c["field"] for c in response.status["details"]["causes"]] == [path]
