"""Kubernetes 1.34 next to 1.35: the same request, both verdicts (every DRA gate of each version on),
and what else 1.34 does differently (gates, served versions, CEL, allocate, the command line)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cases_1_34 import ALL_GATES_1_34, ALL_GATES_1_35, Case, cases_by_id
from support import review_body, same_request_verdicts
from webhook import admit
from webhook.behaviours import BEHAVIOURS
from webhook.profile import GATES, ProfileError, make_profile
from webhook.review import decode_review

PROFILE_1_34 = make_profile("1.34", ALL_GATES_1_34)
PROFILE_1_35 = make_profile("1.35", ALL_GATES_1_35)


@pytest.mark.parametrize("case", cases_by_id())
def test_same_request_two_versions(case: Case):
    same_request_verdicts(case.obj, (PROFILE_1_34, case.v134, case.warnings_134),
                          (PROFILE_1_35, case.v135, case.warnings_135), old=case.old)


def test_gates_1_34_and_the_1_35_delta():
    defaults = make_profile("v1.34.2")
    assert defaults.version == "1.34"
    # rules-1.34 §2: DRA GA but not locked; DeviceTaintRule governed by DRADeviceTaints.
    assert GATES["1.34"]["DynamicResourceAllocation"].locked is False
    assert make_profile("1.34", "DynamicResourceAllocation=false").gates["DynamicResourceAllocation"] is False
    with pytest.raises(ProfileError, match="locked"):
        make_profile("1.35", "DynamicResourceAllocation=false")
    for gate in ("DRADeviceTaints", "DRAPartitionableDevices", "DRAConsumableCapacity", "DRADeviceBindingConditions",
                 "DRAExtendedResource"):
        assert GATES["1.34"][gate].stage == "Alpha" and not defaults.enabled(gate)
    for gate in ("DRAAdminAccess", "DRAPrioritizedList", "DRAResourceClaimDeviceStatus", "DRASchedulerFilterTimeout"):
        assert GATES["1.34"][gate].stage == "Beta" and defaults.enabled(gate)
    changed = {name for name in GATES["1.35"] if GATES["1.35"][name] != GATES["1.34"].get(name)}
    assert changed == {"DynamicResourceAllocation", "DRADeviceTaintRules"}
    with pytest.raises(ProfileError) as error:
        make_profile("1.34", "DRADeviceTaintRules=true")
    assert "unrecognized feature gate: DRADeviceTaintRules" in str(error.value)
    assert "known DRA gates of Kubernetes 1.34: DRAAdminAccess," in str(error.value)


def test_behaviours_side_by_side():
    """One row per difference, one column per release: 1.34's values next to 1.35's."""
    b134, b135 = BEHAVIOURS["1.34"], BEHAVIOURS["1.35"]
    assert (b134.max_taints_per_device, b135.max_taints_per_device) == (4, 16)
    for name in ("counters_beside_devices", "empty_name_part_required", "empty_attribute_required",
                 "taint_rule_cel_selectors", "duplicate_at_key_field"):
        assert (getattr(b134, name), getattr(b135, name)) == (True, False), name
    for name in ("reduced_device_limit", "taint_effect_none", "list_size_short_circuit", "new_cel_lists_extension"):
        assert (getattr(b134, name), getattr(b135, name)) == (False, True), name
    assert not b134.declarative_validation


def _cli(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webhook", *args], capture_output=True, text=True, input=stdin,
                          timeout=120)


_TAINT_RULE = """apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: r}
spec:
  deviceSelector:
    deviceClassName: gpu.example.com
    selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
  taint: {key: example.com/k, effect: NoSchedule}
"""


def test_review_1_34_serves_taint_rules_under_dra_device_taints_with_selectors():
    result = _cli("review", "--kubernetes-version", "1.34", "--feature-gates", "DRADeviceTaints=true", "-",
                  stdin=_TAINT_RULE)
    assert result.returncode == 0, result.stdout + result.stderr
    # Off by default: served only with DRADeviceTaints (1.34 has no DRADeviceTaintRules), which the warning names.
    result = _cli("review", "--kubernetes-version", "1.34", "-", stdin=_TAINT_RULE)
    assert "the feature gate DRADeviceTaints enabled (disabled by default in Kubernetes 1.34)" in result.stdout
    # 1.35 has neither field: strict decoding refuses them offline.
    result = _cli("review", "--kubernetes-version", "1.35", "--feature-gates", "DRADeviceTaintRules=true", "-o",
                  "json", "-", stdin=_TAINT_RULE)
    assert result.returncode == 1
    message = json.loads(result.stdout)["results"][0]["response"]["status"]["message"]
    assert 'unknown field "spec.deviceSelector.deviceClassName"' in message
    v1beta2 = _TAINT_RULE.replace("v1alpha3", "v1beta2")
    result = _cli("review", "--kubernetes-version", "1.34", "--feature-gates", "DRADeviceTaints=true", "-",
                  stdin=v1beta2)
    assert result.returncode == 1
    assert 'no matches for kind "DeviceTaintRule" in version "resource.k8s.io/v1beta2"' in result.stdout


def test_stored_selectors_keep_the_lists_extension():
    """A DeviceClass selector unchanged by an update compiles as stored in ValidateDeviceClassUpdate, but 1.34's
    strategy runs ValidateDeviceClass(new) first, which compiles it as new: the update is refused once, as
    1.34's registry refuses it (checked against upstream's own code by tests/upstream's oracle)."""
    expression = '[3, 1, 2].sort()[0] == 1 && device.driver == "gpu.example.com"'
    cls = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
           "metadata": {"name": "gpu.example.com", "resourceVersion": "1"},
           "spec": {"selectors": [{"cel": {"expression": expression}}]}}
    relabelled = {**cls, "metadata": {**cls["metadata"], "labels": {"x": "y"}}}
    profile = make_profile("1.34")
    updated = admit.validate(decode_review(review_body(relabelled, operation="UPDATE", old=cls)), profile=profile)
    assert not updated.allowed
    assert [c["field"] for c in updated.status["details"]["causes"]] == ["spec.selectors[0].cel.expression"]
    assert make_profile("1.35").behaviours.update_revalidates_object is False
    created = admit.validate(decode_review(review_body(cls)), profile=profile)
    assert not created.allowed
    assert "compilation failed" in created.status["details"]["causes"][0]["message"]


def test_cli_and_suite_accept_1_34(tmp_path):
    assert "--kubernetes-version 1.34, 1.35, 1.36, 1.37" in _cli("--version").stdout
    suite = tmp_path / "suite.yaml"
    suite.write_text("""apiVersion: dra-webhook/v1alpha1
kind: TestSuite
name: taints on Kubernetes 1.34
kubernetesVersion: "1.34"
featureGates: {DRADeviceTaints: true}
tests:
  - name: five taints are too many
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
            taints: [{key: a, effect: NoSchedule}, {key: b, effect: NoSchedule}, {key: c, effect: NoSchedule},
                     {key: d, effect: NoSchedule}, {key: e, effect: NoSchedule}]
    expect:
      allowed: false
      causes: [{field: "spec.devices[0].taints", reason: FieldValueTooMany}]
""")
    result = _cli("test", str(suite))
    assert result.returncode == 0, result.stdout + result.stderr
    suite.write_text(suite.read_text().replace('kubernetesVersion: "1.34"', 'kubernetesVersion: "1.35"'))
    assert _cli("test", str(suite)).returncode == 1


_EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "allocate"

_COUNTERS_BESIDE_DEVICES = """apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: node-1-gpus}
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool: {name: node-1, resourceSliceCount: 1}
  sharedCounters: [{name: gpu-set, counters: {memory: {value: 8Gi}}}]
  devices:
  - name: gpu-0-half-0
    consumesCounters: [{counterSet: gpu-set, counters: {memory: {value: 6Gi}}}]
  - name: gpu-0-half-1
    consumesCounters: [{counterSet: gpu-set, counters: {memory: {value: 6Gi}}}]
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors: [{cel: {expression: 'device.driver == "gpu.example.com"'}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: two-halves, namespace: default}
spec:
  devices:
    requests: [{name: gpu, exactly: {deviceClassName: gpu, count: COUNT}}]
"""


def test_allocate_1_34_counts_counters_beside_devices(tmp_path):
    """1.34's partitionable-devices model (allocator_incubating.go v0.34.9 checkAvailableCounters): the
    counter sets of a device's own slice; two halves of 6Gi do not fit 8Gi, one does."""
    result = _cli("allocate", "--kubernetes-version", "1.34", "--node", "node-1", str(_EXAMPLES))
    assert result.returncode in (0, 1), result.stderr
    assert "not ported" not in result.stderr
    allocated = {}
    for count in (1, 2):
        path = tmp_path / f"slice-{count}.yaml"
        path.write_text(_COUNTERS_BESIDE_DEVICES.replace("COUNT", str(count)))
        result = _cli("allocate", "--kubernetes-version", "1.34", "--feature-gates", "DRAPartitionableDevices=true",
                      "--node", "node-1", "--output", "json", str(path))
        assert result.returncode in (0, 1), result.stderr
        allocation = json.loads(result.stdout)["claims"][0]["allocation"]
        allocated[count] = allocation and [r["device"] for r in allocation["devices"]["results"]]
    assert allocated == {1: ["gpu-0-half-0"], 2: None}
    assert "1.34" in _cli("allocate", "--help").stdout


def test_status_results_over_the_limit_are_each_validated_in_1_34():
    from cases_1_37 import claim, exact

    old = claim(exact())
    new = claim(exact(), status={"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": f"d{i}"} for i in range(32)] + [
        {"request": "nope", "driver": "gpu.example.com", "pool": "p", "device": "x"}]}}})
    body = review_body(new, operation="UPDATE", old=old, sub_resource="status")
    results = "status.allocation.devices.results"
    expected = {"1.34": [(f"{results}[32].request", "FieldValueInvalid"), (results, "FieldValueTooMany")],
                "1.35": [(results, "FieldValueTooMany")]}
    for version, causes in expected.items():
        response = admit.validate(decode_review(body), profile=make_profile(version))
        assert [(c["field"], c["reason"]) for c in response.status["details"]["causes"]] == causes, version


def test_status_lists_past_their_limit_and_empty_drivers_in_1_34():
    """1.34 validates every IP and config request reference of a list over its limit (TooMany after them), and
    an empty driver name is Required and also Invalid; 1.35 stops at TooMany and at Required."""
    from collections import Counter

    from cases_1_37 import claim, exact

    old = claim(exact())
    config = {"source": "FromClaim", "requests": ["gpu", "nope"] + [f"r{i}" for i in range(31)],
              "opaque": {"driver": "", "parameters": {}}}
    new = claim(exact(), status={
        "allocation": {"devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "p",
                                                "device": "d"}], "config": [config]}},
        "devices": [{"driver": "", "pool": "p", "device": "d"},
                    {"driver": "gpu.example.com", "pool": "p", "device": "d",
                     "networkData": {"ips": ["bad"] + [f"10.0.0.{i}/24" for i in range(16)]}}]})
    body = review_body(new, operation="UPDATE", old=old, sub_resource="status")
    config_path, ips = "status.allocation.devices.config[0]", "status.devices[1].networkData.ips"
    common = {("status.devices[0].driver", "FieldValueRequired"): 1, ("status.devices[0]", "FieldValueInvalid"): 1,
              (ips, "FieldValueTooMany"): 1, (f"{config_path}.requests", "FieldValueTooMany"): 1,
              (f"{config_path}.opaque.driver", "FieldValueRequired"): 1}
    expected = {
        "1.34": Counter({**common, ("status.devices[0].driver", "FieldValueInvalid"): 1,
                         (f"{ips}[0]", "FieldValueInvalid"): 1,
                         (f"{config_path}.opaque.driver", "FieldValueInvalid"): 1,
                         **{(f"{config_path}.requests[{i}]", "FieldValueInvalid"): 1 for i in range(1, 33)}}),
        "1.35": Counter(common)}
    for version, causes in expected.items():
        response = admit.validate(decode_review(body), profile=make_profile(version))
        assert Counter((c["field"], c["reason"]) for c in response.status["details"]["causes"]) == causes, version


def test_match_attribute_without_a_domain_in_1_34_words():
    """validateFullyQualifiedName of 1.34: "must include a domain" (1.35 words it differently)."""
    from cases_1_37 import claim, exact

    obj = claim(exact(), constraints=[{"requests": ["gpu"], "matchAttribute": "model"}])
    messages = {}
    for version in ("1.34", "1.35"):
        response = admit.validate(decode_review(review_body(obj)), profile=make_profile(version))
        messages[version] = [(c["field"], c["message"]) for c in response.status["details"]["causes"]]
    field = "spec.devices.constraints[0].matchAttribute"
    assert messages["1.34"] == [(field, 'Invalid value: "model": must include a domain')]
    assert messages["1.35"] == [(field, 'Invalid value: "model": a fully qualified name must be a domain and a name '
                                        'separated by a slash')]


def test_taint_rule_selectors_unchanged_on_update_compile_as_stored():
    from cases_1_34 import _taint_rule

    old = _taint_rule(selectors=[{"cel": {"expression": "[3, 1, 2].sort()[0] == 1"}}])
    old["metadata"]["resourceVersion"] = "1"
    relabelled = {**old, "metadata": {**old["metadata"], "labels": {"x": "y"}}}
    profile = make_profile("1.34", ALL_GATES_1_34)
    assert admit.validate(decode_review(review_body(relabelled, operation="UPDATE", old=old)), profile=profile).allowed
    response = admit.validate(decode_review(review_body(old)), profile=profile)
    causes = [c["field"] for c in response.status["details"]["causes"]]
    assert causes == ["spec.deviceSelector.selectors[0].cel.expression"]


def test_taint_rule_status_subresource_from_1_35():
    """1.35 added DeviceTaintRule status conditions and the /status subresource (validated); 1.34's v1alpha3
    has neither, so a status update is no request 1.34 serves: allowed unchecked, with a warning."""
    old = {"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule",
           "metadata": {"name": "r", "resourceVersion": "1", "uid": "6f1c2b9e-0d4a-4c7e-9b35-2a8e1f0c7d64",
                        "creationTimestamp": "2025-01-01T00:00:00Z"},
           "spec": {"deviceSelector": {"driver": "gpu.example.com"},
                    "taint": {"key": "example.com/k", "effect": "NoSchedule", "timeAdded": "2025-01-01T00:00:00Z"}}}
    new = json.loads(json.dumps(old))
    new["status"] = {"conditions": [{"type": "", "status": "Maybe"}]}
    body = review_body(new, operation="UPDATE", old=old, sub_resource="status")
    gates = {"1.34": "DRADeviceTaints=true", "1.35": "DRADeviceTaints=true,DRADeviceTaintRules=true"}
    found = {}
    for version, gate in gates.items():
        response = admit.validate(decode_review(body), profile=make_profile(version, gate))
        found[version] = (response.allowed, any("has no status subresource" in w for w in response.warnings or []))
    assert found == {"1.34": (True, True), "1.35": (False, False)}
