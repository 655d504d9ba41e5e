"""The drop step of the 1.36 registry strategies for disabled DRA feature gates.

Every (kind, gate, field) case is run four ways: created with the gate off (the field goes, with
its warning), with the gate on (nothing changes), updated when the old object already used the
gate (kept), and for each of these the input is left untouched and the report-only function agrees.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

import pytest

from webhook.profile import GATES, make_profile
from webhook.kinds import disabled_fields_present, drop_disabled_fields
from webhook.validation.resourceslice import validate_resource_slice

ALL_OFF = make_profile(gates={name: False for name in GATES["1.36"]}, allow_locked=True)
ALL_ON = make_profile(gates={name: True for name in GATES["1.36"]})


def gate_off(gate: str):
    return make_profile(gates={gate: False}, allow_locked=True)


def gate_on(gate: str):
    return make_profile(gates={gate: True})


def slice_with(**device_fields) -> dict:
    spec_fields = {key: device_fields.pop(key) for key in ("sharedCounters", "perDeviceNodeSelection")
                   if key in device_fields}
    device = {"name": "gpu-0", "attributes": {"model": {"string": "a100"}}, "capacity": {"mem": {"value": "1Gi"}}}
    device.update(device_fields)
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
            "spec": {"driver": "gpu.example.com", "pool": {"name": "p", "resourceSliceCount": 1},
                     "nodeName": "node-1", **spec_fields, "devices": [device]}}


def claim_spec_with(exactly: dict | None = None, sub: dict | None = None, constraint: dict | None = None) -> dict:
    request: dict[str, Any] = {"name": "req-0"}
    if exactly is not None:
        request["exactly"] = {"deviceClassName": "gpu", **exactly}
    if sub is not None:
        request["firstAvailable"] = [{"name": "sub-0", "deviceClassName": "gpu", **sub}]
    devices: dict[str, Any] = {"requests": [request]}
    if constraint is not None:
        devices["constraints"] = [{"requests": ["req-0"], **constraint}]
    return {"devices": devices}


def claim_with(**kwargs) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ns"},
            "spec": claim_spec_with(**kwargs)}


def template_with(**kwargs) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t", "namespace": "ns"}, "spec": {"spec": claim_spec_with(**kwargs)}}


RESULT = {"request": "req-0", "driver": "gpu.example.com", "pool": "p", "device": "gpu-0"}


def claim_status_with(result: dict | None = None, device: dict | None = None) -> dict:
    claim = claim_with(exactly={})
    status: dict[str, Any] = {"allocation": {"devices": {"results": [{**RESULT, **(result or {})}]}}}
    if device is not None:
        status["devices"] = [{"driver": "gpu.example.com", "pool": "p", "device": "gpu-0", **device}]
    claim["status"] = status
    return claim


def class_with(**spec) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"}, "spec": spec}


@dataclass
class Case:
    """`obj` carries one gated field at `steps` (rendered upstream-style as `path`)."""

    kind: str
    gate: str
    obj: dict
    steps: tuple
    path: str
    subresource: str = ""
    old: dict | None = None  # an old object already using the gate; default: obj itself
    id: str = field(default="")

    def __post_init__(self):
        self.id = self.id or f"{self.kind}{'/' + self.subresource if self.subresource else ''}:{self.path}"


def without(obj: dict, steps: tuple) -> dict:
    expected = copy.deepcopy(obj)
    parent = expected
    for step in steps[:-1]:
        parent = parent[step]
    del parent[steps[-1]]
    return expected


DEV = ("spec", "devices", 0)
REQ = ("spec", "devices", "requests", 0)
TREQ = ("spec", "spec", "devices", "requests", 0)
RES = ("status", "allocation", "devices", "results", 0)
D0, R0, TR0 = "spec.devices[0]", "spec.devices.requests[0]", "spec.spec.devices.requests[0]"
RES0 = "status.allocation.devices.results[0]"
TOLERATIONS = [{"key": "dead", "operator": "Exists", "effect": "NoSchedule"}]

CASES = [
    # ResourceSlice
    Case("ResourceSlice", "DRADeviceTaints", slice_with(taints=[{"key": "k", "effect": "NoSchedule"}]),
         DEV + ("taints",), f"{D0}.taints"),
    Case("ResourceSlice", "DRAPartitionableDevices", slice_with(sharedCounters=[{"name": "cs", "counters": {}}]),
         ("spec", "sharedCounters"), "spec.sharedCounters"),
    Case("ResourceSlice", "DRAPartitionableDevices", slice_with(perDeviceNodeSelection=True),
         ("spec", "perDeviceNodeSelection"), "spec.perDeviceNodeSelection"),
    Case("ResourceSlice", "DRAPartitionableDevices",
         slice_with(consumesCounters=[{"counterSet": "cs", "counters": {}}]),
         DEV + ("consumesCounters",), f"{D0}.consumesCounters"),
    Case("ResourceSlice", "DRAPartitionableDevices", slice_with(nodeName="node-1"), DEV + ("nodeName",),
         f"{D0}.nodeName"),
    Case("ResourceSlice", "DRAPartitionableDevices", slice_with(nodeSelector={"nodeSelectorTerms": []}),
         DEV + ("nodeSelector",), f"{D0}.nodeSelector"),
    Case("ResourceSlice", "DRAPartitionableDevices", slice_with(allNodes=False), DEV + ("allNodes",),
         f"{D0}.allNodes"),
    Case("ResourceSlice", "DRADeviceBindingConditions", slice_with(bindingConditions=["attached"]),
         DEV + ("bindingConditions",), f"{D0}.bindingConditions"),
    Case("ResourceSlice", "DRADeviceBindingConditions", slice_with(bindingFailureConditions=["failed"]),
         DEV + ("bindingFailureConditions",), f"{D0}.bindingFailureConditions"),
    Case("ResourceSlice", "DRADeviceBindingConditions", slice_with(bindsToNode=True), DEV + ("bindsToNode",),
         f"{D0}.bindsToNode"),
    # The slice keeps binding conditions only when the device-status gate is on as well.
    Case("ResourceSlice", "DRAResourceClaimDeviceStatus", slice_with(bindingConditions=["attached"]),
         DEV + ("bindingConditions",), f"{D0}.bindingConditions", id="slice-binding-needs-device-status"),
    Case("ResourceSlice", "DRAConsumableCapacity", slice_with(allowMultipleAllocations=True),
         DEV + ("allowMultipleAllocations",), f"{D0}.allowMultipleAllocations"),
    Case("ResourceSlice", "DRAConsumableCapacity",
         slice_with(capacity={"mem": {"value": "1Gi", "requestPolicy": {"default": "1Mi"}}}),
         DEV + ("capacity", "mem", "requestPolicy"), f"{D0}.capacity[mem].requestPolicy"),
    Case("ResourceSlice", "DRANodeAllocatableResources",
         slice_with(nodeAllocatableResourceMappings={"cpu": {"allocationMultiplier": "2"}}),
         DEV + ("nodeAllocatableResourceMappings",), f"{D0}.nodeAllocatableResourceMappings"),
    *[Case("ResourceSlice", "DRAListTypeAttributes", slice_with(attributes={"list": {key: value}}),
           DEV + ("attributes", "list", key), f"{D0}.attributes[list].{key}")
      for key, value in (("ints", [1, 2]), ("bools", [True]), ("strings", ["a", "b"]), ("versions", ["1.0.0"]))],
    # ResourceClaim, main resource
    Case("ResourceClaim", "DRAPrioritizedList", claim_with(sub={}), REQ + ("firstAvailable",),
         f"{R0}.firstAvailable"),
    Case("ResourceClaim", "DRADeviceTaints", claim_with(exactly={"tolerations": TOLERATIONS}),
         REQ + ("exactly", "tolerations"), f"{R0}.exactly.tolerations"),
    Case("ResourceClaim", "DRADeviceTaints", claim_with(sub={"tolerations": TOLERATIONS}),
         REQ + ("firstAvailable", 0, "tolerations"), f"{R0}.firstAvailable[0].tolerations"),
    Case("ResourceClaim", "DRAAdminAccess", claim_with(exactly={"adminAccess": True}),
         REQ + ("exactly", "adminAccess"), f"{R0}.exactly.adminAccess"),
    Case("ResourceClaim", "DRAConsumableCapacity", claim_with(exactly={}, constraint={"distinctAttribute": "a/b"}),
         ("spec", "devices", "constraints", 0, "distinctAttribute"), "spec.devices.constraints[0].distinctAttribute"),
    Case("ResourceClaim", "DRAConsumableCapacity", claim_with(exactly={"capacity": {"requests": {"mem": "1Mi"}}}),
         REQ + ("exactly", "capacity"), f"{R0}.exactly.capacity"),
    Case("ResourceClaim", "DRAConsumableCapacity", claim_with(sub={"capacity": {"requests": {"mem": "1Mi"}}}),
         REQ + ("firstAvailable", 0, "capacity"), f"{R0}.firstAvailable[0].capacity"),
    # ResourceClaimTemplate: the same claim spec rules, one level down
    Case("ResourceClaimTemplate", "DRAPrioritizedList", template_with(sub={}), TREQ + ("firstAvailable",),
         f"{TR0}.firstAvailable"),
    Case("ResourceClaimTemplate", "DRADeviceTaints", template_with(exactly={"tolerations": TOLERATIONS}),
         TREQ + ("exactly", "tolerations"), f"{TR0}.exactly.tolerations"),
    Case("ResourceClaimTemplate", "DRAAdminAccess", template_with(exactly={"adminAccess": False}),
         TREQ + ("exactly", "adminAccess"), f"{TR0}.exactly.adminAccess"),
    Case("ResourceClaimTemplate", "DRAConsumableCapacity", template_with(sub={"capacity": {"requests": {}}}),
         TREQ + ("firstAvailable", 0, "capacity"), f"{TR0}.firstAvailable[0].capacity"),
    # ResourceClaim status; `old` is the claim before the status update
    Case("ResourceClaim", "DRAResourceClaimDeviceStatus", claim_status_with(device={}), ("status", "devices"),
         "status.devices", subresource="status"),
    Case("ResourceClaim", "DRAAdminAccess", claim_status_with(result={"adminAccess": True}), RES + ("adminAccess",),
         f"{RES0}.adminAccess", subresource="status"),
    Case("ResourceClaim", "DRAConsumableCapacity", claim_status_with(result={"shareID": "abc"}), RES + ("shareID",),
         f"{RES0}.shareID", subresource="status"),
    Case("ResourceClaim", "DRAConsumableCapacity", claim_status_with(result={"consumedCapacity": {"mem": "1Mi"}}),
         RES + ("consumedCapacity",), f"{RES0}.consumedCapacity", subresource="status"),
    Case("ResourceClaim", "DRAConsumableCapacity", claim_status_with(device={"shareID": "abc"}),
         ("status", "devices", 0, "shareID"), "status.devices[0].shareID", subresource="status"),
    Case("ResourceClaim", "DRADeviceBindingConditions", claim_status_with(result={"bindingConditions": ["ok"]}),
         RES + ("bindingConditions",), f"{RES0}.bindingConditions", subresource="status"),
    Case("ResourceClaim", "DRADeviceBindingConditions",
         claim_status_with(result={"bindingFailureConditions": ["bad"]}),
         RES + ("bindingFailureConditions",), f"{RES0}.bindingFailureConditions", subresource="status"),
    # DeviceClass
    Case("DeviceClass", "DRAExtendedResource", class_with(extendedResourceName="example.com/gpu"),
         ("spec", "extendedResourceName"), "spec.extendedResourceName"),
]


def assert_dropped_on_create(case: Case, profile) -> None:
    """With the case's gate off in `profile`: the field goes with its warning, the report-only function
    agrees, and the input is untouched. (Shared with the 1.37 cases.)"""
    before = copy.deepcopy(case.obj)
    old = claim_with(exactly={}) if case.subresource == "status" else None  # a status update has an old claim
    dropped_obj, dropped = drop_disabled_fields(case.kind, case.obj, old, profile, subresource=case.subresource)
    assert dropped_obj == without(case.obj, case.steps)
    assert [d.warning() for d in dropped] == [f"{case.path} dropped: feature gate {case.gate} is disabled"]
    assert disabled_fields_present(case.kind, case.obj, old, profile, subresource=case.subresource) == dropped
    assert case.obj == before


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_create_with_gate_off_drops_the_field_and_names_the_gate(case: Case):
    assert_dropped_on_create(case, gate_off(case.gate))


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_gate_on_leaves_the_object_as_it_is(case: Case):
    before = copy.deepcopy(case.obj)
    dropped_obj, dropped = drop_disabled_fields(case.kind, case.obj, None, gate_on(case.gate),
                                                subresource=case.subresource)
    assert (dropped_obj, dropped) == (before, [])
    assert dropped_obj is case.obj  # nothing dropped: no copy is made
    assert disabled_fields_present(case.kind, case.obj, None, ALL_ON, subresource=case.subresource) == []
    assert case.obj == before


@pytest.mark.parametrize("case", CASES, ids=lambda case: case.id)
def test_update_keeps_the_field_when_the_old_object_used_the_gate(case: Case):
    old = copy.deepcopy(case.old or case.obj)
    before = copy.deepcopy(case.obj)
    dropped_obj, dropped = drop_disabled_fields(case.kind, case.obj, old, gate_off(case.gate),
                                                subresource=case.subresource)
    assert (dropped_obj, dropped) == (before, [])
    assert disabled_fields_present(case.kind, case.obj, old, gate_off(case.gate), subresource=case.subresource) == []


# --- the "already in use" rule is per object and per gate, as upstream writes it -------------------

def test_slice_old_use_on_another_device_keeps_the_field_on_every_device():
    new = slice_with(taints=[{"key": "k", "effect": "NoSchedule"}])
    old = slice_with()
    old["spec"]["devices"].append({"name": "gpu-1", "taints": [{"key": "x", "effect": "NoExecute"}]})
    assert drop_disabled_fields("ResourceSlice", new, old, gate_off("DRADeviceTaints"))[1] == []


def test_old_use_of_one_gate_does_not_keep_another_gates_fields():
    new = slice_with(taints=[{"key": "k", "effect": "NoSchedule"}], attributes={"list": {"ints": [1]}})
    old = slice_with(taints=[{"key": "k", "effect": "NoSchedule"}])
    _, dropped = drop_disabled_fields("ResourceSlice", new, old, ALL_OFF)
    assert [d.warning() for d in dropped] == [
        "spec.devices[0].attributes[list].ints dropped: feature gate DRAListTypeAttributes is disabled"]


def test_empty_lists_count_as_use_where_upstream_tests_nil_and_not_where_it_tests_length():
    # List attributes: `!= nil`, so an old `ints: []` is use. Taints: `len() > 0`, so `taints: []` is not.
    new = slice_with(attributes={"list": {"strings": ["a"]}}, taints=[{"key": "k", "effect": "NoSchedule"}])
    old = slice_with(attributes={"list": {"ints": []}}, taints=[])
    _, dropped = drop_disabled_fields("ResourceSlice", new, old, ALL_OFF)
    assert [d.path for d in dropped] == ["spec.devices[0].taints"]


def test_claim_prioritized_list_in_a_subrequest_keeps_exactly_tolerations_in_use_too():
    new = claim_with(exactly={"tolerations": TOLERATIONS})
    old = claim_with(sub={"tolerations": TOLERATIONS})
    assert drop_disabled_fields("ResourceClaim", new, old, gate_off("DRADeviceTaints"))[1] == []


def test_claim_status_admin_access_is_in_use_when_the_old_spec_asked_for_it():
    new = claim_status_with(result={"adminAccess": True})
    old = claim_with(exactly={"adminAccess": True})
    assert drop_disabled_fields("ResourceClaim", new, old, gate_off("DRAAdminAccess"),
                                subresource="status")[1] == []


def test_claim_status_shared_devices_are_in_use_when_the_old_spec_requested_capacity():
    new = claim_status_with(result={"shareID": "abc"})
    old = claim_with(exactly={"capacity": {"requests": {"mem": "1Mi"}}})
    assert drop_disabled_fields("ResourceClaim", new, old, gate_off("DRAConsumableCapacity"),
                                subresource="status")[1] == []


# --- what each strategy touches, and what 1.36 leaves alone ---------------------------------------

def test_claim_main_resource_drops_spec_fields_only_and_status_update_status_fields_only():
    claim = claim_status_with(result={"adminAccess": True})
    claim["spec"] = claim_spec_with(exactly={"adminAccess": True})
    main = drop_disabled_fields("ResourceClaim", claim, None, gate_off("DRAAdminAccess"))[1]
    status = drop_disabled_fields("ResourceClaim", claim, None, gate_off("DRAAdminAccess"), subresource="status")[1]
    assert [d.path for d in main] == [f"{R0}.exactly.adminAccess"]
    assert [d.path for d in status] == [f"{RES0}.adminAccess"]


def test_fields_1_36_does_not_drop_are_kept():
    # allocationTimestamp and result tolerations carry gates too, but 1.36's status strategy keeps them.
    claim = claim_status_with(result={"tolerations": TOLERATIONS})
    claim["status"]["allocation"]["allocationTimestamp"] = "2026-01-01T00:00:00Z"
    assert drop_disabled_fields("ResourceClaim", claim, None, ALL_OFF, subresource="status")[1] == []


def test_device_taint_rule_has_no_gated_fields():
    rule = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "DeviceTaintRule", "metadata": {"name": "r"},
            "spec": {"taint": {"key": "k", "effect": "NoSchedule"}}}
    assert drop_disabled_fields("DeviceTaintRule", rule, None, ALL_OFF) == (rule, [])


def test_fields_inside_a_dropped_field_are_not_reported_again():
    # firstAvailable goes first (DRAPrioritizedList), so its tolerations and capacity are not visited;
    # status.devices goes first (DRAResourceClaimDeviceStatus), so its shareID is not either.
    claim = claim_with(sub={"tolerations": TOLERATIONS, "capacity": {"requests": {}}})
    status = claim_status_with(device={"shareID": "abc"})
    for obj, sub, paths in ((claim, "", [f"{R0}.firstAvailable"]), (status, "status", ["status.devices"])):
        dropped_obj, dropped = drop_disabled_fields("ResourceClaim", obj, None, ALL_OFF, subresource=sub)
        assert [d.path for d in dropped] == paths
        assert disabled_fields_present("ResourceClaim", obj, None, ALL_OFF, subresource=sub) == dropped


def test_kitchen_sink_report_only_agrees_with_dropping():
    new = slice_with(taints=[{"key": "k", "effect": "NoSchedule"}], sharedCounters=[{"name": "cs"}],
                     nodeName="n", bindsToNode=True, allowMultipleAllocations=True,
                     nodeAllocatableResourceMappings={"cpu": {}},
                     attributes={"a": {"ints": [1]}, "b": {"string": "x", "versions": ["1.0.0"]}})
    before = copy.deepcopy(new)
    dropped_obj, dropped = drop_disabled_fields("ResourceSlice", new, None, ALL_OFF)
    assert disabled_fields_present("ResourceSlice", new, None, ALL_OFF) == dropped
    assert new == before
    assert len(dropped) == 8
    assert dropped_obj["spec"]["devices"][0]["attributes"] == {"a": {}, "b": {"string": "x"}}


def test_list_attribute_dropped_on_create_then_fails_validation_like_the_api_server():
    obj, dropped = drop_disabled_fields("ResourceSlice", slice_with(attributes={"list": {"strings": ["a"]}}),
                                        None, make_profile())  # 1.36 defaults: DRAListTypeAttributes off
    assert [d.warning() for d in dropped] == [
        "spec.devices[0].attributes[list].strings dropped: feature gate DRAListTypeAttributes is disabled"]
    errors = [(str(e.field), e.detail) for e in validate_resource_slice(obj)]
    assert errors == [("spec.devices[0].attributes[list]", "exactly one value must be specified")]


# --- wrongly typed input ------------------------------------------------------------------------

# Nothing here holds a correctly typed gated value, so nothing may be dropped under any gate.
WRONG = [
    None, "text", 3, [], [{"spec": {}}],
    {"spec": None}, {"spec": []}, {"spec": "x"},
    {"spec": {"devices": "x"}}, {"spec": {"devices": [None, 3, "x", []]}},
    {"spec": {"devices": [{"attributes": [], "capacity": "x", "taints": "x"}]}},
    {"spec": {"devices": [{"attributes": {"a": "x", "b": {"ints": "x"}}, "capacity": {"m": []}}]}},
    {"spec": {"devices": {"requests": "x", "constraints": [None, {"distinctAttribute": 3}]}}},
    {"spec": {"devices": {"requests": [None, {"exactly": [], "firstAvailable": "x"}]}}},
    {"spec": {"spec": {"devices": {"requests": [{"exactly": {"adminAccess": "yes", "tolerations": {}}}]}}}},
    {"status": {"allocation": {"devices": {"results": "x"}}, "devices": {"a": 1}}},
    {"status": {"allocation": {"devices": {"results": [None, {"shareID": 3, "adminAccess": "no"}]}}}},
]
# Correctly typed gated containers with garbage inside: dropped as a whole or walked through.
GARBAGE_INSIDE = [
    {"spec": {"devices": {"requests": [{"firstAvailable": [1, None, {"tolerations": "x"}]}]}}},
    {"status": {"allocation": [], "devices": [None, {"shareID": []}, 3]}},
    {"spec": {"sharedCounters": [1], "devices": [{"taints": [None], "attributes": {"a": {"ints": [None]}}}]}},
]
KINDS = [("ResourceSlice", ""), ("ResourceClaim", ""), ("ResourceClaim", "status"), ("ResourceClaimTemplate", ""),
         ("DeviceClass", ""), ("DeviceTaintRule", ""), ("NoSuchKind", "")]
PROFILES = [ALL_OFF] + [gate_off(gate) for gate in sorted(GATES["1.36"])]


@pytest.mark.parametrize("obj", WRONG + GARBAGE_INSIDE, ids=repr)
@pytest.mark.parametrize("kind,subresource", KINDS)
def test_wrongly_typed_input_is_left_for_the_type_check(kind, subresource, obj):
    before = copy.deepcopy(obj)
    for profile in PROFILES:
        for old in (None, obj, {"spec": 1}, "x"):
            dropped_obj, dropped = drop_disabled_fields(kind, obj, old, profile, subresource=subresource)
            assert dropped == disabled_fields_present(kind, obj, old, profile, subresource=subresource)
            if obj in WRONG:
                assert (dropped_obj, dropped) == (before, [])
            assert obj == before


def test_list_attribute_found_among_scalar_devices_and_odd_values():
    # Devices without any list value are skipped whole; the one device with a list value (after
    # scalars and wrongly typed entries) still has it found, at its own index.
    obj = slice_with(attributes={"model": {"string": "a100"}})
    plain = obj["spec"]["devices"][0]
    with_list = {"name": "gpu-1", "attributes": {"a": {"int": 1}, "odd": "x", "none": None,
                                                 "z": {"bool": True, "versions": ["1.0.0"]}}}
    obj["spec"]["devices"] = [plain, with_list, copy.deepcopy(plain)]
    present = disabled_fields_present("ResourceSlice", obj, None, make_profile())
    assert [d.warning() for d in present] == [
        "spec.devices[1].attributes[z].versions dropped: feature gate DRAListTypeAttributes is disabled"]
    dropped_obj, dropped = drop_disabled_fields("ResourceSlice", obj, None, make_profile())
    assert dropped == present
    assert dropped_obj["spec"]["devices"][1]["attributes"] == {"a": {"int": 1}, "odd": "x", "none": None,
                                                                "z": {"bool": True}}
    assert dropped_obj["spec"]["devices"][0] == plain
