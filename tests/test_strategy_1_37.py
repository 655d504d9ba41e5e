"""The drop step of the 1.37 registry strategies: 1.36's steps plus the new gates' fields.

Each (kind, gate, field) case runs three ways under `--kubernetes-version 1.37`: created with the
gate off (the field goes, with its warning, and the report-only function agrees), with the gate on
(nothing changes), and updated when the old object already used the gate (kept).
"""

from __future__ import annotations

import copy

import pytest

from test_strategy import (
    DEV,
    REQ,
    RES,
    RES0,
    TREQ,
    Case,
    D0,
    R0,
    TR0,
    claim_status_with,
    assert_dropped_on_create,
    claim_with,
    slice_with,
    template_with,
)
from webhook.kinds import drop_disabled_fields
from webhook.profile import make_profile

CONSUMES = [{"counterSet": "cs", "counters": {"mem": {"value": "1"}}, "compatibilityGroups": ["a"]}]
DERIVED = [{"name": "derived/numa", "expression": "true"}]


def _slice_spec(**spec) -> dict:
    obj = slice_with()
    obj["spec"].update(spec)
    return obj


CASES = [
    Case("ResourceSlice", "DRAPartitionableDevicesType", _slice_spec(partitionTypeAttribute="gpu.example.com/type"),
         ("spec", "partitionTypeAttribute"), "spec.partitionTypeAttribute"),
    Case("ResourceSlice", "DRAOptionalNodeOperations", _slice_spec(skipNodeOperations=["*"]),
         ("spec", "skipNodeOperations"), "spec.skipNodeOperations"),
    Case("ResourceSlice", "DRADeviceCompatibilityGroups", slice_with(consumesCounters=CONSUMES),
         DEV + ("consumesCounters", 0, "compatibilityGroups"), f"{D0}.consumesCounters[0].compatibilityGroups"),
    Case("ResourceSlice", "DRANodeAllocatableResources",
         slice_with(nodeAllocatableResources={"cpu": {"overhead": {"perPod": "1"}}}),
         DEV + ("nodeAllocatableResources",), f"{D0}.nodeAllocatableResources"),
    Case("ResourceClaim", "DRADerivedAttributes", claim_with(exactly={"derivedAttributes": DERIVED}),
         REQ + ("exactly", "derivedAttributes"), f"{R0}.exactly.derivedAttributes"),
    Case("ResourceClaim", "DRADerivedAttributes", claim_with(sub={"derivedAttributes": DERIVED}),
         REQ + ("firstAvailable", 0, "derivedAttributes"), f"{R0}.firstAvailable[0].derivedAttributes"),
    Case("ResourceClaimTemplate", "DRADerivedAttributes", template_with(exactly={"derivedAttributes": DERIVED}),
         TREQ + ("exactly", "derivedAttributes"), f"{TR0}.exactly.derivedAttributes"),
    Case("ResourceClaim", "DRAOptionalNodeOperations", claim_status_with(result={"skipNodeOperations": ["*"]}),
         RES + ("skipNodeOperations",), f"{RES0}.skipNodeOperations", subresource="status"),
]


def gate_off(gate: str):
    return make_profile("1.37", {gate: False})


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_create_with_gate_off_drops_the_field_and_names_the_gate(case: Case):
    assert_dropped_on_create(case, gate_off(case.gate))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_gate_on_leaves_the_object_as_it_is(case: Case):
    profile = make_profile("1.37", {case.gate: True})
    assert drop_disabled_fields(case.kind, case.obj, None, profile, subresource=case.subresource) == (case.obj, [])


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_update_keeps_the_field_when_the_old_object_used_the_gate(case: Case):
    old = copy.deepcopy(case.obj)
    assert drop_disabled_fields(case.kind, case.obj, old, gate_off(case.gate),
                                subresource=case.subresource) == (case.obj, [])


def test_empty_compatibility_groups_are_no_use():
    new = slice_with(consumesCounters=CONSUMES)
    old = slice_with(consumesCounters=[{**CONSUMES[0], "compatibilityGroups": []}])
    _, dropped = drop_disabled_fields("ResourceSlice", new, old, gate_off("DRADeviceCompatibilityGroups"))
    assert [d.path for d in dropped] == [f"{D0}.consumesCounters[0].compatibilityGroups"]


def test_1_36_drops_the_mappings_and_1_37_the_reshaped_field():
    obj = slice_with(nodeAllocatableResources={"cpu": {"overhead": {"perPod": "1"}}},
                     nodeAllocatableResourceMappings={"cpu": {"capacityKey": "mem"}})
    gates = {"DRANodeAllocatableResources": False}
    _, v136 = drop_disabled_fields("ResourceSlice", obj, None, make_profile("1.36", gates))
    _, v137 = drop_disabled_fields("ResourceSlice", obj, None, make_profile("1.37", gates))
    assert [d.path for d in v136] == [f"{D0}.nodeAllocatableResourceMappings"]
    assert [d.path for d in v137] == [f"{D0}.nodeAllocatableResources"]


def test_an_update_adding_derived_attributes_with_the_gate_off_is_stripped_and_passes():
    # Upstream TestStrategyUpdateWithDerivedAttributes: the spec is immutable, but a field the strategy
    # drops is gone before the comparison.
    from support import review_body
    from webhook import admit
    from webhook.review import decode_review

    old = claim_with(exactly={"allocationMode": "ExactCount", "count": 1})
    old["metadata"]["resourceVersion"] = "1"
    new = copy.deepcopy(old)
    new["spec"]["devices"]["requests"][0]["exactly"]["derivedAttributes"] = DERIVED
    request = decode_review(review_body(new, operation="UPDATE", old=old))
    off = admit.review_manifest(request, profile=gate_off("DRADerivedAttributes"))
    on = admit.review_manifest(request, profile=make_profile("1.37", {"DRADerivedAttributes": True}))
    assert on.allowed is False and [c["field"] for c in on.status["details"]["causes"]] == ["spec"]
    assert off.allowed is True
    assert any("derivedAttributes dropped: feature gate DRADerivedAttributes is disabled" in w for w in off.warnings)


def test_a_kept_partition_type_attribute_may_not_change_with_the_gate_off():
    from webhook.field import Path
    from webhook.validation.options import Options
    from webhook.validation.resourceslice import validate_resource_slice_spec

    def spec(name):
        obj = slice_with(consumesCounters=[{"counterSet": "cs", "counters": {"mem": {"value": "1"}}}],
                         attributes={"type": {"string": "a"}, "other": {"string": "b"}})
        obj["spec"]["partitionTypeAttribute"] = name
        return obj["spec"]

    opts = Options(gate_off("DRAPartitionableDevicesType"))
    old = spec("gpu.example.com/type")
    unchanged = validate_resource_slice_spec(spec("gpu.example.com/type"), old, Path("spec"), opts)
    changed = validate_resource_slice_spec(spec("gpu.example.com/other"), old, Path("spec"), opts)
    assert unchanged == [] and [e.key for e in changed] == [("spec.partitionTypeAttribute", "FieldValueForbidden")]
