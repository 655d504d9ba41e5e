"""The same request under Kubernetes 1.36 (defaults) and 1.37 (every DRA gate on): both verdicts."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from cases_1_37 import ALL_GATES_1_37, GROUP, Case, cases_by_id, claim, exact, slice_
from support import review_body, validation_causes
from webhook import admit, kinds
from webhook.behaviours import BEHAVIOURS
from webhook.profile import DEFAULT, GATES, SUPPORTED_VERSIONS, ProfileError, make_profile
from webhook.review import decode_review

PROFILE_1_37 = make_profile("1.37", ALL_GATES_1_37)


def _verdict(case: Case, profile) -> tuple[Counter, list[str]]:
    return validation_causes(review_body(case.obj, operation=case.operation, old=case.old, sub_resource=case.sub_resource), profile)


@pytest.mark.parametrize("case", cases_by_id())
def test_same_request_two_versions(case: Case):
    causes_136, warnings_136 = _verdict(case, DEFAULT)
    causes_137, warnings_137 = _verdict(case, PROFILE_1_37)
    assert (causes_136, causes_137) == (Counter(case.v136), Counter(case.v137))
    for expected in case.warnings_136:
        assert any(expected in w for w in warnings_136), warnings_136
    for expected in case.warnings_137:
        assert any(expected in w for w in warnings_137), warnings_137


def test_gate_table_is_1_36_plus_a_delta():
    assert SUPPORTED_VERSIONS == ("1.34", "1.35", "1.36", "1.37") and DEFAULT.version == "1.36"
    changed = {name for name in GATES["1.37"] if GATES["1.37"][name] != GATES["1.36"].get(name)}
    assert changed == {"DRAPrioritizedList", "DRADeviceTaints", "DRADeviceTaintRules", "DRAResourceClaimDeviceStatus",
                       "DRAExtendedResource", "DRAPartitionableDevicesType", "DRAOptionalNodeOperations",
                       "DRAFractionalCapacityRange", "DRADerivedAttributes", "DRADeviceCompatibilityGroups"}
    defaults = make_profile("1.37")
    assert defaults.enabled("DRADeviceTaintRules") and not defaults.enabled("DRAFractionalCapacityRange")
    assert not make_profile("1.36").enabled("DRADeviceTaintRules")


def test_new_gates_are_unknown_to_1_36_and_locks_follow_the_version():
    with pytest.raises(ProfileError, match="unrecognized feature gate: DRADerivedAttributes"):
        make_profile("1.36", "DRADerivedAttributes=true")
    make_profile("1.36", "DRAPrioritizedList=false")  # not locked in 1.36
    with pytest.raises(ProfileError, match="locked"):
        make_profile("1.37", "DRAPrioritizedList=false")


def test_each_version_has_its_behaviours_and_rules_ask_for_them_by_name():
    assert set(BEHAVIOURS) == set(SUPPORTED_VERSIONS)
    assert DEFAULT.behaviours is BEHAVIOURS["1.36"] and PROFILE_1_37.behaviours is BEHAVIOURS["1.37"]
    assert DEFAULT.behaviours.node_allocatable_model == "nodeAllocatableResourceMappings"
    assert PROFILE_1_37.behaviours.node_allocatable_model == "nodeAllocatableResources"
    # Rules never compare version numbers: only the registries name versions.
    allowed = {"profile.py", "behaviours.py", "kinds.py", "served.py"}
    root = Path(__file__).resolve().parent.parent / "webhook"
    offenders = [f"{path.relative_to(root)}:{number}" for path in root.rglob("*.py") if path.name not in allowed
                 for number, line in enumerate(path.read_text().splitlines(), 1)
                 if re.search(r'["\']1\.3[4-7]["\']', line)]
    assert offenders == []


def test_device_taint_rule_is_served_as_v1_only_from_1_37():
    rule = {"apiVersion": f"{GROUP}/v1", "kind": "DeviceTaintRule", "metadata": {"name": "maintenance"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com"}, "taint": {"key": "k", "effect": "Bogus"}}}
    body = review_body(rule)
    old = admit.validate(decode_review(body))
    new = admit.validate(decode_review(body), profile=make_profile("1.37"))
    assert any("not a version dra-webhook knows" in w for w in old.warnings)
    assert not any("not a version" in w for w in new.warnings)
    assert [c["field"] for c in new.status["details"]["causes"]] == ["spec.taint.effect"]
    assert kinds.KINDS["DeviceTaintRule"].served_versions(make_profile("1.37"))[-1] == "v1"


def test_offline_manifest_of_a_v1_taint_rule_needs_1_37():
    rule = {"apiVersion": f"{GROUP}/v1", "kind": "DeviceTaintRule", "metadata": {"name": "maintenance"},
            "spec": {"taint": {"key": "k", "effect": "NoSchedule"}}}
    from datetime import datetime, timezone

    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    refused = admit.review_manifest(decode_review(review_body(rule)), profile=DEFAULT, namespace="default",
                                    apply_defaults=True, now=now)
    accepted = admit.review_manifest(decode_review(review_body(rule)), profile=make_profile("1.37"),
                                     namespace="default", apply_defaults=True, now=now)
    assert refused.allowed is False and accepted.allowed is True


def test_allocation_multiplier_is_defaulted_only_by_1_36():
    obj = slice_({"name": "gpu-0", "capacity": {"memory": {"value": "1Gi"}},
                  "nodeAllocatableResourceMappings": {"memory": {"capacityKey": "memory"}},
                  "nodeAllocatableResources": {"memory": {"mapping": {"capacityKey": "memory"}}}})
    from datetime import datetime, timezone

    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    v136 = kinds.apply_defaults("ResourceSlice", "v1", obj, None, "CREATE", now, DEFAULT)
    v137 = kinds.apply_defaults("ResourceSlice", "v1", obj, None, "CREATE", now, PROFILE_1_37)
    assert v136["spec"]["devices"][0]["nodeAllocatableResourceMappings"]["memory"]["allocationMultiplier"] == "1"
    assert v137 == obj


@pytest.mark.parametrize("kind,obj,path", [
    ("ResourceSlice", slice_({"name": "gpu-0", "basic": {"nodeAllocatableResources": {
        "cpu": {"overhead": {"perPod": "1"}}}}}, version="v1beta1"),
     ("spec", "devices", 0, "nodeAllocatableResources")),
    ("ResourceClaim", claim({"name": "gpu", "deviceClassName": "gpu.example.com",
                             "derivedAttributes": [{"name": "derived/x", "expression": "true"}]}, version="v1beta1"),
     ("spec", "devices", "requests", 0, "exactly", "derivedAttributes")),
])
def test_v1beta1_shapes_of_the_new_fields_convert_to_v1(kind, obj, path):
    converted, _ = kinds.to_v1(kind, "v1beta1", obj, PROFILE_1_37)
    node = converted
    for step in path:
        node = node[step]
    assert node


def test_a_stored_selector_is_not_compiled_again_from_1_37():
    cls = {"apiVersion": f"{GROUP}/v1", "kind": "DeviceClass", "metadata": {"name": "gpu", "resourceVersion": "1"},
           "spec": {"selectors": [{"cel": {"expression": "device.driver == "}}]}}
    body = review_body(cls, operation="UPDATE", old=cls)
    assert admit.validate(decode_review(body)).allowed is False
    assert admit.validate(decode_review(body), profile=PROFILE_1_37).allowed is True


_NESTED = ('device.attributes["gpu.example.com"].all(k, device.capacity["gpu.example.com"].all(j, '
           'device.attributes["gpu.example.com"].all(i, i.size() > k.size())))')  # estimated cost 269540


@pytest.mark.parametrize("requests,causes", [
    (3, {}),  # 3 x 269540 is within the claim's limit of 1000000
    (4, {("spec.devices", "FieldValueForbidden"): 1}),
])
def test_total_cost_of_derived_attributes_in_one_claim(requests, causes):
    obj = claim(*[exact(f"r{i}", derivedAttributes=[{"name": "derived/x", "expression": _NESTED}])
                  for i in range(requests)], constraints=[{"matchAttribute": "derived/x"}])
    assert _verdict(Case("cost", obj, {}, {}), PROFILE_1_37)[0] == Counter(causes)


def test_review_of_the_1_37_examples_needs_the_1_37_profile(capsys):
    from pathlib import Path

    from webhook import cli

    examples = Path(__file__).resolve().parent.parent / "examples" / "kubernetes-1.37"
    manifests = [str(p) for p in sorted(examples.glob("*.yaml")) if p.name != "suite.yaml"]
    gates = "DRAPartitionableDevicesType=true,DRADeviceCompatibilityGroups=true,DRANodeAllocatableResources=true," \
            "DRADerivedAttributes=true"
    assert cli.main(["review", "--warnings-as-errors", "--kubernetes-version", "1.37", "--feature-gates", gates,
                     *manifests]) == 0
    capsys.readouterr()
    # Under 1.36 the new fields are unknown and v1 DeviceTaintRule is no served version.
    assert cli.main(["review", "-o", "json", *manifests]) == 1
    results = {Path(r["file"]).name: r["response"] for r in json.loads(capsys.readouterr().out)["results"]}
    assert results["devicetaintrule-maintenance.yaml"]["allowed"] is False
    # kubectl's strict field validation refuses the 1.37 fields a 1.36 API server does not know.
    slice_message = results["resourceslice-node-1-devices.yaml"]["status"]["message"]
    assert 'strict decoding error: ' in slice_message and 'unknown field "spec.partitionTypeAttribute"' in slice_message
