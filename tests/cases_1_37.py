"""Objects whose verdict differs between Kubernetes 1.36 and 1.37: the same request, both verdicts.

Each case is (name, request body pieces, causes under 1.36 defaults, causes under 1.37 with every DRA
gate on). Causes are {(field, reason): count}; an empty dict means allowed. Shared by the in-process
tests and the HTTPS tests against `serve --kubernetes-version 1.37`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from webhook.profile import GATES

GROUP = "resource.k8s.io"
ALL_GATES_1_37 = ",".join(f"{name}=true" for name in sorted(GATES["1.37"]))

INVALID, REQUIRED, NOT_FOUND, DUPLICATE = "FieldValueInvalid", "FieldValueRequired", "FieldValueNotFound", \
    "FieldValueDuplicate"
NOT_SUPPORTED, TOO_MANY, FORBIDDEN, INTERNAL = "FieldValueNotSupported", "FieldValueTooMany", \
    "FieldValueForbidden", "InternalError"
TOO_LONG = "FieldValueTooLong"


def slice_(*devices: dict, version: str = "v1", **spec) -> dict:
    return {"apiVersion": f"{GROUP}/{version}", "kind": "ResourceSlice",
            "metadata": {"name": "node-1-gpu", "resourceVersion": "1"},
            "spec": {"driver": "gpu.example.com", "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 1},
                     "nodeName": "node-1", "devices": list(devices) or [{"name": "gpu-0"}], **spec}}


def multi(capacity: dict, name: str = "gpu-0") -> dict:
    return {"name": name, "allowMultipleAllocations": True, "capacity": capacity}


def policy_range(value: str, default: str, **valid_range: str) -> dict:
    return {"mem": {"value": value, "requestPolicy": {"default": default, "validRange": valid_range}}}


def claim(*requests: dict, constraints: list | None = None, version: str = "v1", status: dict | None = None) -> dict:
    obj = {"apiVersion": f"{GROUP}/{version}", "kind": "ResourceClaim",
           "metadata": {"name": "claim", "namespace": "default", "resourceVersion": "1"},
           "spec": {"devices": {"requests": list(requests)}}}
    if constraints is not None:
        obj["spec"]["devices"]["constraints"] = constraints
    if status is not None:
        obj["status"] = status
    return obj


def exact(name: str = "gpu", **fields) -> dict:
    return {"name": name, "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "ExactCount",
                                      "count": 1, **fields}}


def allocated(claim_obj: dict, **result_fields) -> dict:
    obj = copy.deepcopy(claim_obj)
    obj["status"] = {"allocation": {"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", **result_fields}]}}}
    return obj


@dataclass
class Case:
    name: str
    obj: dict
    v136: dict
    v137: dict
    old: dict | None = None
    sub_resource: str = ""
    # Substrings one warning must contain, per version.
    warnings_136: list[str] = field(default_factory=list)
    warnings_137: list[str] = field(default_factory=list)

    @property
    def operation(self) -> str:
        return "UPDATE" if self.old is not None else "CREATE"


_CEL = "spec.devices.requests[0].exactly.selectors[0].cel.expression"
_LONG_KEY = "a" * 63 + "/" + "b" * 33
_SHORT_KEY = "a" * 47 + "..." + "a" * 12 + "/" + "b" * 33  # upstream truncateIfTooLong to 96 bytes
_NA = "spec.devices[0].nodeAllocatableResources"
_NARM = "spec.devices[0].nodeAllocatableResourceMappings"
_P = "spec.devices[0].capacity[mem].requestPolicy"
_R = "spec.devices.requests[0].exactly"
_RESULT = "status.allocation.devices.results[0]"

_taint_slice_old = slice_({"name": "gpu-0", "taints": [{"key": "k", "effect": "Bogus"}]},
                          {"name": "gpu-1"})
_taint_slice_new = slice_({"name": "gpu-0", "taints": [{"key": "k", "effect": "Bogus"}]},
                          {"name": "gpu-1", "attributes": {"model": {"string": "a100"}}})
_capacity_old = slice_(multi(policy_range("10", "0", min="1")))
_capacity_new = slice_(multi(policy_range("10", "0", min="1")), {"name": "gpu-1"})
_claim_plain = claim(exact())
_class_plain = {"apiVersion": f"{GROUP}/v1", "kind": "DeviceClass", "metadata": {"name": "gpu", "resourceVersion": "1"},
                "spec": {}}


def _with(obj: dict, metadata: dict | None = None, **spec) -> dict:
    return {**obj, "metadata": {**obj["metadata"], **(metadata or {})}, "spec": {**obj["spec"], **spec}}


def pool_status_request(status: dict | None = None, **spec) -> dict:
    obj = {"apiVersion": f"{GROUP}/v1alpha3", "kind": "ResourcePoolStatusRequest",
           "metadata": {"name": "node-1-gpus", "resourceVersion": "1"},
           "spec": {"driver": "gpu.example.com", "limit": 100, **spec}}
    if status is not None:
        obj["status"] = status
    return obj


_READY = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-05-04T09:13:00Z", "reason": "Ready"}
_CONDITIONS = "status.devices[0].conditions"


def _with_device_conditions(claim_obj: dict, *conditions: dict) -> dict:
    obj = copy.deepcopy(claim_obj)
    obj["status"]["devices"] = [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
                                 "conditions": [dict(c) for c in conditions]}]
    return obj

def _over_the_device_limit() -> dict:
    """65 devices, one tainted (the limit is 64): hand-written validation stops at TooMany, the declarative rules of
    every device go on."""
    return slice_({"name": "d-0", "taints": [{"key": "k", "effect": "Later"}, {"key": "k"}]},
                  {"name": "d-1", "attributes": {"a": {"int": 1, "string": "x"}, "b": {}}},
                  {"name": "d-2", "consumesCounters": [{"counterSet": f"s{i}", "counters": {"c": {"value": "1"}}}
                                                       for i in range(3)]},
                  {"name": "d-3", "consumesCounters": [{"counterSet": "A_B", "counters": {"Bad_Name": {"value": "1"}}},
                                                       {"counterSet": "A_B", "counters": {}}]},
                  *({"name": f"d-{i}"} for i in range(4, 65)))


def _sub(name: str, device_class: str = "gpu.example.com") -> dict:
    return {"name": name, "deviceClassName": device_class, "allocationMode": "ExactCount", "count": 1}


def _template(claim_obj: dict, **labels: str) -> dict:
    return {"apiVersion": f"{GROUP}/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "template", "namespace": "default", "resourceVersion": "1", "labels": labels},
            "spec": {"spec": copy.deepcopy(claim_obj["spec"])}}


_UPPER_CASE_CONSTRAINT = claim(exact(), constraints=[{"requests": ["gpu"], "matchAttribute": "Example.com/model"}])
_BOTH_MEMBERS = claim({"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "Some"},
                       "firstAvailable": [_sub("a"), _sub("a", "BAD_CLASS")]})


def _too_many_counters() -> dict:
    """33 counters, one with a name that is not a DNS label."""
    return {**{f"c{i}": {"value": "1"} for i in range(32)}, "Bad_Name": {"value": "1"}}


def _device_class(extended_resource_name: str) -> dict:
    return {"apiVersion": f"{GROUP}/v1", "kind": "DeviceClass", "metadata": {"name": "gpu", "resourceVersion": "1"},
            "spec": {"extendedResourceName": extended_resource_name}}


_COMPLETE = {"type": "Complete", "status": "True", "lastTransitionTime": "2026-05-04T09:13:00Z", "reason": "Done"}

CASES = [
    # nodeAllocatableResources replaced nodeAllocatableResourceMappings.
    Case("node-allocatable-resources-new-shape",
         slice_({"name": "gpu-0", "capacity": {"memory": {"value": "40Gi"}},
                 "nodeAllocatableResources": {"memory": {"mapping": {"capacityKey": "memory",
                                                                     "capacityMultiplier": "1"}},
                                              "cpu": {"overhead": {"perPod": "100m"}}}}),
         {}, {}, warnings_136=[f'unknown field "{_NA}"']),
    Case("node-allocatable-resources-rules",
         slice_({"name": "gpu-0", "nodeAllocatableResources": {
             "abc": {}, "cpu": {"mapping": {"capacityMultiplier": "1"}},
             "memory": {"mapping": {"capacityKey": "missing", "capacityMultiplier": "-1", "deviceMultiplier": "0"}},
             "hugepages-2Mi": {"overhead": {"perPod": "-1", "perContainer": "0"}}}}),
         {}, {(f"{_NA}[abc]", INVALID): 1, (f"{_NA}[abc]", REQUIRED): 1,
              (f"{_NA}[cpu].mapping.capacityKey", REQUIRED): 1, (f"{_NA}[cpu].mapping", INVALID): 1,
              (f"{_NA}[memory].mapping.capacityKey", NOT_FOUND): 1,
              (f"{_NA}[memory].mapping.capacityMultiplier", INVALID): 1,
              (f"{_NA}[memory].mapping.deviceMultiplier", INVALID): 1, (f"{_NA}[memory].mapping", INVALID): 1,
              (f"{_NA}[hugepages-2Mi].overhead.perPod", INVALID): 1}),
    Case("node-allocatable-resource-mappings-are-gone",
         slice_({"name": "gpu-0", "nodeAllocatableResourceMappings": {"ephemeral-storage": {"capacityKey": "x"}}}),
         {(f"{_NARM}[ephemeral-storage].capacityKey", NOT_FOUND): 1}, {},
         warnings_137=[f'unknown field "{_NARM}"']),
    # requestPolicy.
    Case("valid-range-default-below-min",
         slice_(multi(policy_range("10", "0", min="1"))),
         {(f"{_P}.validRange.min", INVALID): 1}, {(f"{_P}.validRange.default", INVALID): 1}),
    Case("valid-range-default-above-max",
         slice_(multi(policy_range("10", "6", min="1", max="5"))),
         {(f"{_P}.validRange.max", INVALID): 1}, {(f"{_P}.validRange.default", INVALID): 1}),
    Case("valid-range-step-zero",
         slice_(multi(policy_range("10", "1", min="1", step="0"))),
         {(f"{_P}.validRange.step", INTERNAL): 1}, {(f"{_P}.validRange.step", INVALID): 1}),
    Case("valid-range-step-negative",
         slice_(multi(policy_range("10", "3", min="1", step="-2"))),
         {}, {(f"{_P}.validRange.step", INVALID): 1}),
    Case("valid-range-negative-bounds",
         slice_(multi(policy_range("10", "-2", min="-4", step="2"))),
         {}, {(f"{_P}.validRange.default", INVALID): 1, (f"{_P}.validRange.min", INVALID): 1}),
    Case("valid-range-fractional-not-a-multiple",
         slice_(multi(policy_range("10", "1.5", min="1", step="0.2"))),
         {}, {(f"{_P}.validRange.step", INVALID): 1}),
    Case("valid-range-below-milli",
         slice_(multi(policy_range("10", "1", min="1", step="0.0005"))),
         {}, {(f"{_P}.validRange.step", INVALID): 1}),
    # 1.37 with DRAFractionalCapacityRange keys validValues by AsDec().String(): 5 and 5.0 differ (the real
    # kube-apiserver 1.37 accepts this; 1.36's key is Value(), 5 for both).
    Case("valid-values-same-value-spelled-twice",
         slice_(multi({"mem": {"value": "10", "requestPolicy": {"default": "5", "validValues": ["5", "5.0"]}}})),
         {(f"{_P}.validValues[1]", DUPLICATE): 1}, {}),
    Case("valid-values-rounding-to-the-same-integer",
         slice_(multi({"mem": {"value": "10", "requestPolicy": {"default": "10", "validValues": ["9.9", "10"]}}})),
         {(f"{_P}.validValues[1]", DUPLICATE): 1}, {}),
    # Capacity ratcheting on update.
    Case("unchanged-invalid-capacity-is-ratcheted", _capacity_new, {(f"{_P}.validRange.min", INVALID): 1}, {},
         old=_capacity_old),
    # Declarative validation: the taint effect of an unchanged device is checked once the device list changes.
    Case("old-taint-effect-in-a-changed-device-list", _taint_slice_new,
         {}, {("spec.devices[0].taints[0].effect", NOT_SUPPORTED): 1}, old=_taint_slice_old),
    Case("new-device-copying-an-old-invalid-taint",
         slice_({"name": "gpu-0", "taints": [{"key": "k", "effect": "Bogus"}]}, {"name": "gpu-1"},
                {"name": "gpu-0-other", "taints": [{"key": "k", "effect": "Bogus"}]}),
         {("spec.devices[2].taints[0].effect", NOT_SUPPORTED): 1},
         {("spec.devices[0].taints[0].effect", NOT_SUPPORTED): 1,
          ("spec.devices[2].taints[0].effect", NOT_SUPPORTED): 1},
         old=_taint_slice_old),
    Case("unchanged-device-list-keeps-its-old-taint-effect",
         dict(_taint_slice_old, metadata={"name": "node-1-gpu", "resourceVersion": "1", "labels": {"a": "b"}}),
         {}, {}, old=_taint_slice_old),
    # Declarative validation does not shorten long map keys in paths (hand-written validation does).
    Case("long-attribute-key-with-an-invalid-value",
         slice_({"name": "gpu-0", "attributes": {_LONG_KEY: {}}}),
         {("spec.devices[0].attributes", TOO_LONG): 1, (f"spec.devices[0].attributes[{_SHORT_KEY}]", INVALID): 1},
         {("spec.devices[0].attributes", TOO_LONG): 1, (f"spec.devices[0].attributes[{_SHORT_KEY}]", INVALID): 1,
          (f"spec.devices[0].attributes[{_LONG_KEY}]", INVALID): 1}),
    # New slice fields.
    Case("partition-type-attribute",
         slice_({"name": "gpu-0", "attributes": {"type": {"int": 1}},
                 "consumesCounters": [{"counterSet": "set", "counters": {"mem": {"value": "1"}}}]},
                {"name": "gpu-1", "consumesCounters": [{"counterSet": "set", "counters": {"mem": {"value": "1"}}}]},
                partitionTypeAttribute="gpu.example.com/type"),
         {}, {("spec.devices[0].attributes[gpu.example.com/type]", INVALID): 1,
              ("spec.devices[1].attributes[gpu.example.com/type]", REQUIRED): 1},
         warnings_136=['unknown field "spec.partitionTypeAttribute"']),
    Case("partition-type-attribute-without-counters",
         slice_(partitionTypeAttribute="Type"),
         {}, {("spec.partitionTypeAttribute", INVALID): 2}),
    Case("skip-node-operations",
         slice_(skipNodeOperations=["NodePrepareResources", "Other", "Other"]),
         {}, {("spec.skipNodeOperations", INVALID): 1, ("spec.skipNodeOperations[1]", NOT_SUPPORTED): 1,
              ("spec.skipNodeOperations[2]", NOT_SUPPORTED): 1, ("spec.skipNodeOperations[2]", DUPLICATE): 1}),
    Case("compatibility-groups",
         slice_({"name": "gpu-0", "consumesCounters": [
             {"counterSet": "set", "counters": {"mem": {"value": "1"}}, "compatibilityGroups": ["a", "a"]},
             {"counterSet": "other", "counters": {"mem": {"value": "1"}}, "compatibilityGroups": ["x", "y", "z"]}]},
             {"name": "gpu-1", "consumesCounters": [
                 {"counterSet": "set", "counters": {"mem": {"value": "1"}},
                  "compatibilityGroups": ["Upper", "a" * 64]}]}),
         {}, {("spec.devices[0].consumesCounters[0].compatibilityGroups[1]", DUPLICATE): 1,
              ("spec.devices[0].consumesCounters[1].compatibilityGroups", TOO_MANY): 1,
              ("spec.devices[1].consumesCounters[0].compatibilityGroups[0]", INVALID): 1,
              ("spec.devices[1].consumesCounters[0].compatibilityGroups[1]", INVALID): 1}),
    # Claims.
    Case("derived-attributes",
         claim(exact(derivedAttributes=[
             {"name": "derived/numa", "expression": 'device.attributes["gpu.example.com"].numa'},
             {"name": "derived/numa", "expression": "1.5"},
             {"name": "", "expression": ""},
             {"name": "unused.example.com/x", "expression": "device.driver"},
             {"name": "bare", "expression": "device.driver"}]),
             constraints=[{"matchAttribute": "derived/numa"}]),
         {}, {(f"{_R}.derivedAttributes[1]", DUPLICATE): 1,
              (f"{_R}.derivedAttributes[1].expression", INVALID): 1,
              (f"{_R}.derivedAttributes[2].name", REQUIRED): 1,
              (f"{_R}.derivedAttributes[2].expression", REQUIRED): 1,
              (f"{_R}.derivedAttributes[3].name", INVALID): 1,
              (f"{_R}.derivedAttributes[4].name", INVALID): 2},
         warnings_136=[f'unknown field "{_R}.derivedAttributes"']),
    Case("derived-attributes-of-a-subrequest",
         claim({"name": "gpu", "firstAvailable": [
             {"name": "big", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1,
              "derivedAttributes": [{"name": "derived/numa", "expression": "true"}]},
             {"name": "small", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1,
              "derivedAttributes": [{"name": "derived/numa", "expression": "true"}]}]},
             constraints=[{"requests": ["gpu/big"], "matchAttribute": "derived/numa"}]),
         {}, {("spec.devices.requests[0].firstAvailable[1].derivedAttributes[0].name", INVALID): 1}),
    Case("upper-case-domain-of-a-constraint-attribute",
         claim(exact(), constraints=[{"matchAttribute": "Gpu.example.com/numa"}]),
         {}, {("spec.devices.constraints[0].matchAttribute", INVALID): 1}),
    Case("result-tolerations",
         allocated(_claim_plain, tolerations=[{"key": "k", "operator": "Bogus"}]),
         {}, {(f"{_RESULT}.tolerations[0].operator", NOT_SUPPORTED): 1},
         old=_claim_plain, sub_resource="status"),
    # metav1 ValidateConditions of apimachinery v0.37 says what metav1.Condition's declarative rules say.
    Case("device-status-conditions",
         _with_device_conditions(allocated(_claim_plain), _READY, _READY, {**_READY, "type": "", "status": ""}),
         {(f"{_CONDITIONS}[1].type", DUPLICATE): 1, (f"{_CONDITIONS}[2].type", INVALID): 2,
          (f"{_CONDITIONS}[2].status", NOT_SUPPORTED): 1},
         {(f"{_CONDITIONS}[1]", DUPLICATE): 1, (f"{_CONDITIONS}[2].type", REQUIRED): 1,
          (f"{_CONDITIONS}[2].status", REQUIRED): 1},
         old=allocated(_claim_plain), sub_resource="status"),
    Case("result-skip-node-operations",
         allocated(_claim_plain, skipNodeOperations=["NodePrepareResources"]),
         {}, {(f"{_RESULT}.skipNodeOperations", INVALID): 1},
         old=_claim_plain, sub_resource="status",
         warnings_136=[f'unknown field "{_RESULT}.skipNodeOperations"']),
    # v1beta1: declarative errors name v1beta1 fields from 1.37 on.
    Case("v1beta1-toleration-operator",
         claim({"name": "gpu", "deviceClassName": "gpu.example.com", "allocationMode": "ExactCount", "count": 1,
                "tolerations": [{"key": "k", "operator": "Bogus"}]}, version="v1beta1"),
         {(f"{_R}.tolerations[0].operator", NOT_SUPPORTED): 1},
         {("spec.devices.requests[0].tolerations[0].operator", NOT_SUPPORTED): 1}),
    Case("v1beta1-taint-effect",
         slice_({"name": "gpu-0", "basic": {"taints": [{"key": "k", "effect": "Bogus"}]}}, version="v1beta1"),
         {("spec.devices[0].taints[0].effect", NOT_SUPPORTED): 1},
         {("spec.devices[0].basic.taints[0].effect", NOT_SUPPORTED): 1}),
    # ResourcePoolStatusRequest: 1.37 made the declarative listType=map of status.conditions alpha; its
    # hand-written ValidateConditions reports what the declarative rules say.
    Case("pool-status-condition-types",
         pool_status_request({"poolCount": 0, "conditions": [_COMPLETE, _COMPLETE]}),
         {("status.conditions[1].type", DUPLICATE): 1, ("status.conditions[1]", DUPLICATE): 1},
         {("status.conditions[1]", DUPLICATE): 1},  # ValidateConditions of apimachinery v0.37: at the item
         old=pool_status_request(), sub_resource="status"),
    Case("pool-status-default-partition-type-attribute",
         pool_status_request(defaultPartitionTypeAttribute="profile"),
         {}, {("spec.defaultPartitionTypeAttribute", INVALID): 1},
         warnings_136=['unknown field "spec.defaultPartitionTypeAttribute"']),
    # Updates: rest.BeforeUpdate's own metadata checks, then the strategy's (ValidateObjectMeta and
    # ValidateObjectMetaUpdate of the claim): four copies of a bad label in 1.36. 1.37 validates declaratively
    # with the hand-written errors in hand, and ErrorList.Filter leaves one per message.
    Case("update-bad-label-copies", _with(_claim_plain, {"labels": {"app": "demo-"}}), {("metadata.labels", INVALID): 4},
         {("metadata.labels", INVALID): 1}, old=_claim_plain),
    Case("update-changed-uid-copies", _with(_claim_plain, {"uid": "9d4e2a71-6b3c-4f58-8a0e-7c1b5d3f2e69"}),
         {("metadata.uid", INVALID): 2}, {("metadata.uid", INVALID): 1}, old=_claim_plain),
    # 1.37: the declarative format k8s-extended-resource-name (beta, enforced) replaces the covered hand-written
    # "must be a valid extended resource name", each of its messages a cause; an unchanged value is not checked
    # declaratively again, so the hand-written error stays.
    Case("extended-resource-name-declarative", _with(_class_plain, extendedResourceName="example."),
         {("spec.extendedResourceName", INVALID): 1}, {("spec.extendedResourceName", INVALID): 2}),
    Case("extended-resource-name-changed-on-update", _with(_class_plain, extendedResourceName="example."),
         {("spec.extendedResourceName", INVALID): 1}, {("spec.extendedResourceName", INVALID): 2},
         old=_with(_class_plain, extendedResourceName="example.com/gpu")),
    Case("extended-resource-name-unchanged-on-update",
         _with(_class_plain, {"labels": {"a": "b"}}, extendedResourceName="example."),
         {("spec.extendedResourceName", INVALID): 1}, {("spec.extendedResourceName", INVALID): 1},
         old=_with(_class_plain, extendedResourceName="example.")),
    # 1.37's declarative validation goes on where hand-written validation stops at a list's limit.
    Case("devices-past-the-slice-limit-are-still-validated",
         _over_the_device_limit(),
         {("spec.devices", TOO_MANY): 1},
         {("spec.devices", TOO_MANY): 1, ("spec.devices[0].taints[0].effect", NOT_SUPPORTED): 1,
          ("spec.devices[0].taints[1].effect", REQUIRED): 1, ("spec.devices[1].attributes[a]", INVALID): 1,
          ("spec.devices[1].attributes[b]", INVALID): 1, ("spec.devices[2].consumesCounters", TOO_MANY): 1,
          ("spec.devices[3].consumesCounters[1]", DUPLICATE): 1,
          ("spec.devices[3].consumesCounters[0].counterSet", INVALID): 1,
          ("spec.devices[3].consumesCounters[1].counterSet", INVALID): 1,
          ("spec.devices[3].consumesCounters[0].counters", INVALID): 1,
          ("spec.devices[3].consumesCounters[1].counters", REQUIRED): 1}),
    Case("taint-effects-past-the-taint-limit-are-still-checked",
         slice_({"name": "gpu-0",
                 "taints": [{"key": "k", "effect": "NoSchedule"}] * 15 + [{"key": "k"}, {"key": "k", "effect": "x"}]}),
         {("spec.devices[0].taints", TOO_MANY): 1},
         {("spec.devices[0].taints", TOO_MANY): 1, ("spec.devices[0].taints[15].effect", REQUIRED): 1,
          ("spec.devices[0].taints[16].effect", NOT_SUPPORTED): 1}),
    Case("counter-names-past-the-counter-limit-are-still-checked",
         slice_({"name": "gpu-0", "consumesCounters": [{"counterSet": "set", "counters": _too_many_counters()}]}),
         {("spec.devices[0].consumesCounters[0].counters", TOO_MANY): 1},
         {("spec.devices[0].consumesCounters[0].counters", TOO_MANY): 1,
          ("spec.devices[0].consumesCounters[0].counters", INVALID): 1}),
    Case("counter-set-names-past-the-counter-limit-are-still-checked",
         {**slice_(), "spec": {**{k: v for k, v in slice_()["spec"].items() if k != "devices"},
                               "sharedCounters": [{"name": "set", "counters": _too_many_counters()}]}},
         {("spec.sharedCounters[0].counters", TOO_MANY): 1},
         {("spec.sharedCounters[0].counters", TOO_MANY): 1, ("spec.sharedCounters[0].counters", INVALID): 1}),
    Case("an-empty-list-attribute-is-no-value",
         slice_({"name": "gpu-0", "attributes": {"a": {"ints": []}}}),
         {("spec.devices[0].attributes[a].ints", INVALID): 1},
         {("spec.devices[0].attributes[a].ints", INVALID): 1, ("spec.devices[0].attributes[a]", INVALID): 1}),
    Case("exactly-and-first-available-are-each-validated",
         claim({"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "allocationMode": "Some",
                                           "tolerations": [{"key": "bad key!", "operator": "Nope"}]},
                "firstAvailable": [_sub("a"), _sub("a", "BAD_CLASS"), _sub("b", "")]}),
         {("spec.devices.requests[0]", INVALID): 1},
         {("spec.devices.requests[0]", INVALID): 1, (f"{_R}.allocationMode", NOT_SUPPORTED): 1,
          (f"{_R}.tolerations[0].key", INVALID): 1, (f"{_R}.tolerations[0].operator", NOT_SUPPORTED): 1,
          ("spec.devices.requests[0].firstAvailable[1]", DUPLICATE): 1,
          ("spec.devices.requests[0].firstAvailable[1].deviceClassName", INVALID): 1,
          ("spec.devices.requests[0].firstAvailable[2].deviceClassName", REQUIRED): 1}),
    Case("exactly-and-first-available-over-8",
         claim({"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"},
                "firstAvailable": [_sub(f"s{i}", "") for i in range(9)]}),
         {("spec.devices.requests[0]", INVALID): 1},
         {("spec.devices.requests[0]", INVALID): 1, ("spec.devices.requests[0].firstAvailable", TOO_MANY): 1}),
    Case("both-constraint-attributes-are-checked",
         claim(exact(), constraints=[{"requests": ["gpu"], "matchAttribute": "bad", "distinctAttribute": "BAD.com/x"}]),
         {("spec.devices.constraints[0].matchAttribute", INVALID): 1},
         {("spec.devices.constraints[0].matchAttribute", INVALID): 1,
          ("spec.devices.constraints[0].distinctAttribute", INVALID): 1}),
    # Declarative validation ratchets what an update leaves unchanged (a template's create rules run on updates).
    Case("template-update-keeps-an-unchanged-upper-case-constraint-domain",
         _template(_UPPER_CASE_CONSTRAINT, app="x"), {}, {}, old=_template(_UPPER_CASE_CONSTRAINT)),
    Case("template-update-ratchets-unchanged-request-members",
         _template(_BOTH_MEMBERS, app="x"),
         {("spec.spec.devices.requests[0]", INVALID): 1}, {("spec.spec.devices.requests[0]", INVALID): 1},
         old=_template(_BOTH_MEMBERS)),
    Case("extended-resource-name-format",
         _device_class("bad name"),
         {("spec.extendedResourceName", INVALID): 1}, {("spec.extendedResourceName", INVALID): 2}),
    Case("unchanged-extended-resource-name-is-ratcheted",
         _device_class("bad name"),
         {("spec.extendedResourceName", INVALID): 1}, {("spec.extendedResourceName", INVALID): 1},
         old=_device_class("bad name")),
    # CEL `includes` (undeclared with 1.36's default gates) is the lists library's in 1.37: priced as a
    # traversal of its target (3 for a literal of three ints, not DRA's 48; strings by their unknown length).
    *[Case(f"cel-includes-{name}", claim(exact(selectors=[{"cel": {"expression": expression}}])),
           {(_CEL, INVALID): 1}, want)
      for name, expression, want in (
          ("at-the-cost-limit", "lists.range(55554).all(i, [1, 2, 3].includes(i))", {}),
          ("past-the-cost-limit", "lists.range(55555).all(i, [1, 2, 3].includes(i))", {(_CEL, FORBIDDEN): 1}),
          ("of-strings", '["ab", "c"].includes("ab")', {(_CEL, FORBIDDEN): 1}),
      )],
]


def cases_by_id() -> list:
    import pytest

    return [pytest.param(case, id=case.name) for case in CASES]
