"""ResourceSlice create validation: the cases of upstream's TestValidateResourceSlice, ported.

Each case compares the multiset of (field, reason) with what the 1.36 API server reports.
"""

from __future__ import annotations

from collections import Counter

import pytest

from webhook.validation.resourceslice import validate_resource_slice

GOOD = "foo"
BAD = "!@#$%^"
DRIVER = "test.example.com"
INV, REQ, DUP, TOO_LONG, TOO_MANY = (
    "FieldValueInvalid", "FieldValueRequired", "FieldValueDuplicate", "FieldValueTooLong", "FieldValueTooMany")
FORBIDDEN, NOT_SUPPORTED, NOT_FOUND = "FieldValueForbidden", "FieldValueNotSupported", "FieldValueNotFound"
MAX_DEVICES, MAX_ADVANCED = 128, 64


def attributes() -> dict:
    return {"int": {"int": 42}, "string": {"string": "hello world"}, "version": {"version": "1.2.3"},
            "bool": {"bool": True}}


def test_slice(name: str = GOOD, node: str | None = GOOD, driver: str = DRIVER, devices: int = 1) -> dict:
    spec = {"driver": driver, "pool": {"name": node or "", "resourceSliceCount": 1},
            "devices": [{"name": f"device-{d}", "attributes": attributes(), "capacity": {"memory": {"value": "1Gi"}}}
                        for d in range(devices)]}
    if node is not None:
        spec["nodeName"] = node
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


test_slice.__test__ = False  # a builder, not a test


def with_counter_sets(count: int) -> dict:
    slice_ = test_slice()
    del slice_["spec"]["devices"]
    slice_["spec"]["sharedCounters"] = [{"name": f"counterset-{i}", "counters": {"memory": {"value": "1Gi"}}}
                                        for i in range(count)]
    return slice_


def with_binding(conditions, failures) -> dict:
    slice_ = test_slice()
    device = slice_["spec"]["devices"][0]
    if conditions is not None:
        device["bindingConditions"] = conditions
    if failures is not None:
        device["bindingFailureConditions"] = failures
    return slice_


def with_mappings(mappings: dict | None = None) -> dict:
    slice_ = test_slice()
    device = slice_["spec"]["devices"][0]
    device["capacity"] = {"dra.example.com/cpu": {"value": "100"}, "dra.example.com/memory": {"value": "100Gi"}}
    device["nodeAllocatableResourceMappings"] = mappings if mappings is not None else {
        "cpu": {"allocationMultiplier": "1", "capacityKey": "dra.example.com/cpu"},
        "memory": {"capacityKey": "dra.example.com/cpu"},
    }
    return slice_


def counters(n: int) -> dict:
    return {f"memory-{i}": {"value": "1Gi"} for i in range(n)}


def edit(slice_: dict, fn) -> dict:
    fn(slice_["spec"], slice_["spec"].get("devices"))
    return slice_


def D(i: int, *rest: str) -> str:
    return f"spec.devices[{i}]" + "".join(rest)


def _set_all(devices, key, value):
    for device in devices:
        device[key] = value


def _add_attr(devices, key, value, only_first=False):
    for device in devices[:1] if only_first else devices:
        device["attributes"][key] = value


def _list_attrs(max_values: int) -> dict:
    attrs = {}
    for i in range(32 - 1):
        attrs[f"list_attr_{i}"] = {"strings": ["x"] * (max_values - 30 if i == 0 else 1)}
    return attrs


def _max_values_case() -> dict:
    slice_ = test_slice(devices=14)
    devices = slice_["spec"]["devices"]
    extras = [None, {"int": 1}, {"bool": True}, {"string": "x"}, {"version": "1.0.0"}, {"ints": [1]},
              {"bools": [True]}, {"strings": ["extra"]}, {"versions": ["1.0.0"]}]
    for i, extra in enumerate(extras):
        devices[i]["attributes"] = _list_attrs(48)
        if extra is not None:
            devices[i]["attributes"]["extra_attr"] = extra
        devices[i].pop("capacity")
    devices[9]["attributes"] = {"mixed_list_attrs": {"strings": ["x"] * 46, "ints": [1], "bools": [True],
                                                     "versions": ["1.0.0"]}}
    devices[9].pop("capacity")
    for i, extra in zip(range(10, 14), [{"bools": [True, False]}, {"ints": [1, 2]}, {"strings": ["a", "b"]},
                                        {"versions": ["1.0.0", "1.0.1"]}]):
        devices[i]["attributes"] = _list_attrs(47)
        devices[i]["attributes"]["extra_attr"] = extra
        devices[i].pop("capacity")
    return slice_


def _combined_case() -> dict:
    slice_ = test_slice(devices=5)
    devices = slice_["spec"]["devices"]
    devices[0]["attributes"] = {f"attr_{i}": {"string": "x"} for i in range(32)}
    devices[0].pop("capacity")
    devices[1]["attributes"] = {}
    devices[1]["capacity"] = {f"cap_{i}": {"value": "1Gi"} for i in range(32)}
    devices[3]["attributes"] = dict(devices[0]["attributes"])
    devices[3]["capacity"] = {"cap": {"value": "1Gi"}}
    return slice_


def _taints_case() -> dict:
    slice_ = test_slice(devices=3)
    slice_["spec"]["devices"][0]["taints"] = [
        {"key": "example.com/taint", "effect": "NoExecute"},
        {"key": "taint", "value": "tainted", "effect": "NoSchedule", "timeAdded": "2026-01-01T00:00:00Z"},
        {},
        {"key": BAD, "value": BAD, "effect": "some-other-effect"},
    ]
    return slice_


T = "spec.devices[0].taints"
NS = "spec.nodeSelector.nodeSelectorTerms"
NAR = "spec.devices[0].nodeAllocatableResourceMappings"

CASES = [
    ("good", test_slice(devices=MAX_DEVICES), []),
    ("too-large", test_slice(driver=GOOD, devices=MAX_DEVICES + 1), [("spec.devices", TOO_MANY)]),
    ("good-taints", edit(test_slice(devices=MAX_ADVANCED),
                         lambda s, d: _set_all(d, "taints", [{"key": "example.com/taint", "effect": "NoExecute"}])), []),
    ("too-large-taints", edit(test_slice(devices=MAX_ADVANCED + 1),
                              lambda s, d: _set_all(d, "taints", [{"key": "example.com/taint", "effect": "NoExecute"}])),
     [("spec.devices", TOO_MANY)]),
    ("missing-name", test_slice(name=""), [("metadata.name", REQ)]),
    ("bad-name", test_slice(name=BAD), [("metadata.name", INV)]),
    ("generate-name", (lambda s: (s["metadata"].update(generateName="prefix-"), s)[1])(test_slice()), []),
    ("bad-labels", (lambda s: (s["metadata"].update(labels={"hello-world": "spaces not allowed"}), s)[1])(test_slice()),
     [("metadata.labels", INV)]),
    ("bad-annotations", (lambda s: (s["metadata"].update(annotations={BAD: "hello world"}), s)[1])(test_slice()),
     [("metadata.annotations", INV)]),
    ("bad-nodename", test_slice(node=BAD), [("spec.pool.name", INV), ("spec.nodeName", INV)]),
    ("bad-multi-pool-name", test_slice(node=BAD + "/" + BAD),
     [("spec.pool.name", INV), ("spec.pool.name", INV), ("spec.nodeName", INV)]),
    ("good-pool-name", edit(test_slice(), lambda s, d: s["pool"].update(name="x" * 253)), []),
    ("bad-pool", edit(test_slice(), lambda s, d: s["pool"].update(name="x/" * 126 + "xy", resourceSliceCount=0,
                                                                  generation=-1)),
     [("spec.pool.name", TOO_LONG), ("spec.pool.resourceSliceCount", INV), ("spec.pool.generation", INV)]),
    ("missing-pool-name", edit(test_slice(), lambda s, d: s["pool"].update(name="")), [("spec.pool.name", REQ)]),
    ("bad-empty-node-selector", edit(test_slice(), lambda s, d: (s.pop("nodeName"), s.update(nodeSelector={}))),
     [(NS, REQ), (NS, INV)]),
    ("bad-node-selection", edit(test_slice(), lambda s, d: s.update(nodeName="worker", nodeSelector={
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["worker"]}]}]})),
     [("spec", INV)]),
    ("bad-node-selection-all-nodes", edit(test_slice(), lambda s, d: s.update(nodeName="worker", allNodes=True)),
     [("spec", INV)]),
    ("empty-node-selection", edit(test_slice(), lambda s, d: s.pop("nodeName")), [("spec", REQ)]),
    ("bad-drivername", test_slice(driver=BAD), [("spec.driver", INV)]),
    ("both-shared-counters-and-devices", edit(test_slice(), lambda s, d: s.update(sharedCounters=[
        {"name": "counterset", "counters": {"memory": {"value": "1Gi"}}}])), [("spec", INV)]),
    ("bad-devices", edit(test_slice(driver=GOOD, devices=3), lambda s, d: d[1].update(name=BAD)),
     [(D(1, ".name"), INV)]),
    ("bad-attribute", edit(test_slice(driver=GOOD, devices=5), lambda s, d: (
        d[1].update(attributes={BAD: {}}),
        d[2].update(attributes={GOOD: {"string": "x", "version": "1.2.3"}}),
        d[3].update(attributes={GOOD: {"version": "x" * 65}}),
        d[4].update(attributes={GOOD: {"string": "x" * 65}}))),
     [(D(1, ".attributes"), INV), (D(1, ".attributes[!@#$%^]"), INV), (D(2, ".attributes[foo]"), INV),
      (D(3, ".attributes[foo].version"), INV), (D(3, ".attributes[foo].version"), TOO_LONG),
      (D(4, ".attributes[foo].string"), TOO_LONG)]),
    ("good-list-attribute", edit(test_slice(driver=GOOD, devices=4), lambda s, d: (
        d[0].update(attributes={GOOD: {"bools": [True]}}), d[1].update(attributes={GOOD: {"ints": [1]}}),
        d[2].update(attributes={GOOD: {"strings": ["x"]}}), d[3].update(attributes={GOOD: {"versions": ["1.2.3"]}}))),
     []),
    ("bad-list-attribute", edit(test_slice(driver=GOOD, devices=8), lambda s, d: (
        d[0].update(attributes={GOOD: {"ints": [1], "bools": [True]}}),
        d[1].update(attributes={GOOD: {"ints": [1], "bools": [True], "strings": []}}),
        d[2].update(attributes={GOOD: {"strings": ["x" * 65]}}),
        d[3].update(attributes={GOOD: {"versions": ["x" * 65]}}),
        d[4].update(attributes={GOOD: {"bools": []}}), d[5].update(attributes={GOOD: {"ints": []}}),
        d[6].update(attributes={GOOD: {"strings": []}}), d[7].update(attributes={GOOD: {"versions": []}}))),
     [(D(0, ".attributes[foo]"), INV), (D(1, ".attributes[foo].strings"), INV), (D(1, ".attributes[foo]"), INV),
      (D(2, ".attributes[foo].strings[0]"), TOO_LONG), (D(3, ".attributes[foo].versions[0]"), INV),
      (D(3, ".attributes[foo].versions[0]"), TOO_LONG), (D(4, ".attributes[foo].bools"), INV),
      (D(5, ".attributes[foo].ints"), INV), (D(6, ".attributes[foo].strings"), INV),
      (D(7, ".attributes[foo].versions"), INV)]),
    *[(f"max-devices-with-list-of-{kind}-attributes",
       edit(test_slice(driver=GOOD, devices=MAX_ADVANCED), lambda s, d, k=kind, v=value: _add_attr(d, k, {k: v})), [])
      for kind, value in (("ints", [1, 2, 3]), ("bools", [True, False, True]), ("strings", ["a", "b", "c"]),
                          ("versions", ["1.0.0", "2.0.0", "3.0.0"]))],
    *[(f"too-many-devices-with-list-of-{kind}-attributes",
       edit(test_slice(driver=GOOD, devices=MAX_ADVANCED + 1),
            lambda s, d, k=kind, v=value: _add_attr(d, k, {k: v}, only_first=True)), [("spec.devices", TOO_MANY)])
      for kind, value in (("ints", [1, 2, 3]), ("bools", [True, False, True]), ("strings", ["a", "b", "c"]),
                          ("versions", ["1.0.0", "2.0.0", "3.0.0"]))],
    ("good-attribute-names", edit(test_slice(driver=GOOD, devices=2), lambda s, d: d[1].update(attributes={
        "x" * 32: {"string": "y"}, "x" * 63 + "/" + "y" * 32: {"string": "z"}})), []),
    ("bad-attribute-c-identifier", edit(test_slice(driver=GOOD, devices=2),
                                        lambda s, d: d[1].update(attributes={"." * 33: {"string": "y"}})),
     [(D(1, ".attributes"), TOO_LONG), (D(1, ".attributes"), INV)]),
    ("bad-attribute-domain", edit(test_slice(driver=GOOD, devices=2),
                                  lambda s, d: d[1].update(attributes={"_" * 64 + "/y": {"string": "z"}})),
     [(D(1, ".attributes"), TOO_LONG), (D(1, ".attributes"), INV)]),
    ("bad-key-too-long", edit(test_slice(driver=GOOD, devices=2),
                              lambda s, d: d[1].update(attributes={"x" * 64 + "/" + "y" * 33: {"string": "z"}})),
     [(D(1, ".attributes"), TOO_LONG), (D(1, ".attributes"), TOO_LONG)]),
    ("bad-attribute-empty-domain-and-c-identifier", edit(test_slice(driver=GOOD, devices=2),
                                                         lambda s, d: d[1].update(attributes={"/": {"string": "z"}})),
     [(D(1, ".attributes"), INV), (D(1, ".attributes"), INV)]),
    ("combined-attributes-capacity-length", _combined_case(), [(D(3), INV)]),
    ("max-attribute-values-with-list", _max_values_case(),
     [(D(i), INV) for i in range(1, 14)] + [(D(9, ".attributes[mixed_list_attrs]"), INV)]),
    ("forbidden-request-policy-on-single-allocatable-capacity", edit(test_slice(driver=GOOD, devices=2),
        lambda s, d: d[1].update(capacity={"cap": {"value": "1Gi", "requestPolicy": {
            "default": "1Mi", "validRange": {"min": "1Mi"}}}})),
     [(D(1, ".capacity[cap].requestPolicy"), FORBIDDEN)]),
    ("invalid-node-selecor-label-value", edit(test_slice(driver=GOOD, devices=3), lambda s, d: (
        s.pop("nodeName"), s.update(nodeSelector={"nodeSelectorTerms": [{"matchExpressions": [
            {"key": "foo", "operator": "In", "values": ["-1"]}]}]}))),
     [(NS + "[0].matchExpressions[0].values[0]", INV)]),
    ("taints", _taints_case(),
     [(T + "[2].key", INV), (T + "[2].key", INV), (T + "[2].effect", REQ), (T + "[3].key", INV),
      (T + "[3].value", INV), (T + "[3].effect", NOT_SUPPORTED)]),
    ("too-many-taints", edit(test_slice(), lambda s, d: d[0].update(
        taints=[{"key": "example.com/taint", "effect": "NoExecute"}] * 17)), [(T, TOO_MANY)]),
    ("bad-PerDeviceNodeSelection", edit(test_slice(), lambda s, d: s.update(nodeName="worker",
                                                                             perDeviceNodeSelection=True)),
     [("spec", INV), (D(0), REQ)]),
    ("invalid-false-PerDeviceNodeSelection", edit(test_slice(), lambda s, d: s.update(
        nodeName="worker", perDeviceNodeSelection=False)), [("spec.perDeviceNodeSelection", INV)]),
    ("invalid-false-AllNodes", edit(test_slice(), lambda s, d: s.update(nodeName="worker", allNodes=False)),
     [("spec.allNodes", INV)]),
    ("invalid-empty-NodeName", edit(test_slice(), lambda s, d: s.update(nodeName="", allNodes=True)),
     [("spec.nodeName", INV)]),
    ("invalid-node-selector-in-basicdevice", edit(test_slice(), lambda s, d: (
        s.update(perDeviceNodeSelection=True), s.pop("nodeName"), d[0].update(nodeName="", allNodes=False))),
     [(D(0, ".nodeName"), INV), (D(0, ".allNodes"), INV), (D(0), REQ)]),
    ("bad-node-selector-in-basicdevice", edit(test_slice(), lambda s, d: (
        s.update(perDeviceNodeSelection=True), s.pop("nodeName"), d[0].update(nodeName="worker", allNodes=True))),
     [(D(0), INV)]),
    ("device-node-selection-without-per-device-mode", edit(test_slice(), lambda s, d: d[0].update(allNodes=False)),
     [(D(0), INV)]),
    ("missing-name-shared-counters", edit(with_counter_sets(1), lambda s, d: s.update(
        sharedCounters=[{"counters": {"memory": {"value": "1Gi"}}}])), [("spec.sharedCounters[0].name", REQ)]),
    ("bad-name-shared-counters", edit(with_counter_sets(0), lambda s, d: s.update(
        sharedCounters=[{"name": BAD, "counters": {"memory": {"value": "1Gi"}}}])),
     [("spec.sharedCounters[0].name", INV)]),
    ("missing-counter-shared-counters", edit(with_counter_sets(0), lambda s, d: s.update(
        sharedCounters=[{"name": GOOD}])), [("spec.sharedCounters[0].counters", REQ)]),
    ("bad-countername-shared-counters", edit(with_counter_sets(1), lambda s, d: s.update(
        sharedCounters=[{"name": GOOD, "counters": {BAD: {"value": "1Gi"}}}])),
     [("spec.sharedCounters[0].counters", INV)]),
    ("duplicate-shared-counters", edit(with_counter_sets(1), lambda s, d: s.update(sharedCounters=[
        {"name": GOOD, "counters": {"memory": {"value": "1Gi"}}}] * 2)), [("spec.sharedCounters[1]", DUP)]),
    ("max-shared-counters", with_counter_sets(8), []),
    ("too-many-shared-counters", with_counter_sets(9), [("spec.sharedCounters", TOO_MANY)]),
    ("max-counters-in-counter-set", edit(with_counter_sets(1), lambda s, d: s["sharedCounters"][0].update(
        counters=counters(32))), []),
    ("too-many-counters-in-counter-set", edit(with_counter_sets(1), lambda s, d: s["sharedCounters"][0].update(
        counters=counters(33))), [("spec.sharedCounters[0].counters", TOO_MANY)]),
    ("missing-name-counterset-consumes-counter", edit(test_slice(), lambda s, d: d[0].update(
        consumesCounters=[{"counters": {"memory": {"value": "1Gi"}}}])),
     [(D(0, ".consumesCounters[0].counterSet"), REQ)]),
    ("bad-name-counterset-consumes-counter", edit(test_slice(), lambda s, d: d[0].update(
        consumesCounters=[{"counterSet": BAD, "counters": {"memory": {"value": "1Gi"}}}])),
     [(D(0, ".consumesCounters[0].counterSet"), INV)]),
    ("duplicate-counterset-consumes-counter", edit(test_slice(), lambda s, d: d[0].update(
        consumesCounters=[{"counterSet": GOOD, "counters": {"memory": {"value": "1Gi"}}}] * 2)),
     [(D(0, ".consumesCounters[1]"), DUP)]),
    ("missing-counter-consumes-counter", edit(test_slice(), lambda s, d: d[0].update(
        consumesCounters=[{"counterSet": "counterset-0"}])), [(D(0, ".consumesCounters[0].counters"), REQ)]),
    ("max-device-counter-consumption-for-device", edit(test_slice(), lambda s, d: d[0].update(consumesCounters=[
        {"counterSet": f"counterset-{i}", "counters": {"memory": {"value": "1Gi"}}} for i in range(2)])), []),
    ("too-many-device-counter-consumption-for-device", edit(test_slice(), lambda s, d: d[0].update(consumesCounters=[
        {"counterSet": f"counterset-{i}", "counters": {"memory": {"value": "1Gi"}}} for i in range(3)])),
     [(D(0, ".consumesCounters"), TOO_MANY)]),
    ("max-counters-in-device-counter-consumption", edit(test_slice(), lambda s, d: d[0].update(
        consumesCounters=[{"counterSet": "counterset-0", "counters": counters(32)}])), []),
    ("too-many-counters-in-device-counter-consumption", edit(test_slice(), lambda s, d: d[0].update(
        consumesCounters=[{"counterSet": "counterset-0", "counters": counters(33)}])),
     [(D(0, ".consumesCounters[0].counters"), TOO_MANY)]),
    ("max-number-of-devices-with-consumes-counters", edit(test_slice(driver=GOOD, devices=MAX_ADVANCED),
        lambda s, d: _set_all(d, "consumesCounters", [{"counterSet": "counterset-0",
                                                       "counters": {"memory": {"value": "1Gi"}}}])), []),
    ("too-many-devices-with-consumes-counters", edit(test_slice(driver=GOOD, devices=MAX_ADVANCED + 1),
        lambda s, d: d[0].update(consumesCounters=[{"counterSet": "counterset-0",
                                                    "counters": {"memory": {"value": "1Gi"}}}])),
     [("spec.devices", TOO_MANY)]),
    ("good-binding-conditions", with_binding(["example.com/condition1", "condition2"],
                                             ["example.com/condition3", "condition4"]), []),
    ("too-many-binding-conditions", with_binding([f"condition{i}" for i in range(1, 6)], ["condition6", "condition7"]),
     [(D(0, ".bindingConditions"), TOO_MANY)]),
    ("too-many-binding-failure-conditions", with_binding(["condition1", "condition2"],
                                                         [f"condition{i}" for i in range(3, 8)]),
     [(D(0, ".bindingFailureConditions"), TOO_MANY)]),
    ("invalid-binding-conditions", with_binding(["condition1", "condition2!"], ["condition3", "condition4"]),
     [(D(0, ".bindingConditions[1]"), INV)]),
    ("invalid-binding-failure-conditions", with_binding(["condition1", "condition2"], ["condition3!", "condition4"]),
     [(D(0, ".bindingFailureConditions[0]"), INV)]),
    ("invalid-slice-has-binding-failure-but-no-binding-conditions", with_binding(None, ["condition1", "condition2"]),
     [(D(0, ".bindingConditions"), INV)]),
    ("invalid-slice-has-binding-conditions-but-no-binding-failure-conditions",
     with_binding(["condition1", "condition2"], None), [(D(0, ".bindingFailureConditions"), INV)]),
    ("duplicate-binding-conditions", with_binding(["condition1", "condition1"], ["condition2", "condition3"]),
     [(D(0, ".bindingConditions[1]"), DUP)]),
    ("duplicate-binding-failure-conditions", with_binding(["condition1", "condition2"], ["condition3", "condition3"]),
     [(D(0, ".bindingFailureConditions[1]"), DUP)]),
    ("overlapping-binding-conditions", with_binding(["condition1", "condition2"], ["condition1", "condition3"]),
     [(D(0, ".bindingFailureConditions[0]"), INV)]),
    ("correct-node-allocatable-resource-mappings", with_mappings(), []),
    ("node-allocatable-resource-mappings-both-quantityfrom", with_mappings(
        {"cpu": {"capacityKey": "dra.example.com/cpu", "allocationMultiplier": "1"}}), []),
    ("bad-node-allocatable-resource-mappings-no-quantityfrom", with_mappings({"cpu": {}}), [(NAR + "[cpu]", INV)]),
    ("bad-node-allocatable-resource-mappings-capacityKey-empty", with_mappings({"cpu": {"capacityKey": ""}}),
     [(NAR + "[cpu].capacityKey", INV)]),
    ("bad-node-allocatable-resource-mappings-capacity-key-not-found",
     with_mappings({"cpu": {"capacityKey": "nonexistent"}}), [(NAR + "[cpu].capacityKey", NOT_FOUND)]),
    ("bad-node-allocatable-resource-mappings-invalid-allocation-multiplier-negative",
     edit(test_slice(), lambda s, d: d[0].update(nodeAllocatableResourceMappings={"cpu": {"allocationMultiplier": "-1"}})),
     [(NAR + "[cpu].allocationMultiplier", INV)]),
    ("bad-node-allocatable-resource-mappings-invalid-allocation-multiplier-zero",
     edit(test_slice(), lambda s, d: d[0].update(nodeAllocatableResourceMappings={"cpu": {"allocationMultiplier": "0"}})),
     [(NAR + "[cpu].allocationMultiplier", INV)]),
    ("capacity key not in spec.devices[].capacity", with_mappings(
        {"memory": {"capacityKey": "dra.example.com/hugepages", "allocationMultiplier": "1"}}),
     [(NAR + "[memory].capacityKey", NOT_FOUND)]),
    ("mapped resource is not a node allocatable resource", with_mappings(
        {"dra.example.com/gpu": {"capacityKey": "dra.example.com/cpu", "allocationMultiplier": "1"}}),
     [(NAR + "[dra.example.com/gpu]", INV)]),
    # Not in the upstream table; catalogue rows and upstream code paths.
    ("mapping-key-kubernetes-io-prefix-is-native", with_mappings(
        {"hugepages-2Mi": {"allocationMultiplier": "1"}, "example.kubernetes.io/thing": {"allocationMultiplier": "1"}}),
     []),
    ("mapping-without-any-capacity", edit(test_slice(), lambda s, d: (d[0].pop("capacity"), d[0].update(
        nodeAllocatableResourceMappings={"cpu": {"capacityKey": "memory"}}))), [(NAR + "[cpu].capacityKey", NOT_FOUND)]),
    ("attribute-three-part-name-accepted", edit(test_slice(), lambda s, d: d[0]["attributes"].update(
        {"a/b/c": {"int": 1}})), []),
    ("attribute-key-truncated-in-path", edit(test_slice(), lambda s, d: d[0].update(attributes={
        "d" * 63 + "/" + "n" * 32 + "x": {}})),
     [(D(0, ".attributes"), TOO_LONG), (D(0, ".attributes[" + "d" * 47 + "..." + "d" * 12 + "/" + "n" * 32 + "x]"), INV)]),
    ("duplicate-device-names", edit(test_slice(devices=3), lambda s, d: d[2].update(name="device-0")),
     [(D(2), DUP)]),
    ("empty-device-name", edit(test_slice(), lambda s, d: d[0].update(name="")), [(D(0, ".name"), INV)]),
    ("shared-counters-and-empty-devices-list", edit(with_counter_sets(1), lambda s, d: s.update(devices=[])),
     [("spec", INV)]),
    ("empty-driver", test_slice(driver=""), [("spec.driver", REQ)]),
    ("long-uppercase-driver", test_slice(driver="A" * 64), [("spec.driver", TOO_LONG)]),
    ("pool-name-empty-segment", edit(test_slice(), lambda s, d: s["pool"].update(name="a//b")),
     [("spec.pool.name", INV)]),
    ("node-selector-two-terms", edit(test_slice(), lambda s, d: (s.pop("nodeName"), s.update(nodeSelector={
        "nodeSelectorTerms": [{}, {}]}))), [(NS, INV)]),
    ("node-selector-operators", edit(test_slice(), lambda s, d: (s.pop("nodeName"), s.update(nodeSelector={
        "nodeSelectorTerms": [{"matchExpressions": [
            {"key": "a", "operator": "In"}, {"key": "b", "operator": "Exists", "values": ["x"]},
            {"key": "c", "operator": "Gt", "values": ["1", "2"]}, {"key": "", "operator": "Bogus"}],
            "matchFields": [{"key": "metadata.uid", "operator": "Exists"},
                            {"key": "metadata.name", "operator": "In", "values": ["A_B"]}]}]}))),
     [(NS + "[0].matchExpressions[0].values", REQ), (NS + "[0].matchExpressions[1].values", FORBIDDEN),
      (NS + "[0].matchExpressions[2].values", REQ), (NS + "[0].matchExpressions[3].operator", INV),
      (NS + "[0].matchExpressions[3].key", INV), (NS + "[0].matchExpressions[3].key", INV),
      (NS + "[0].matchFields[0].operator", INV), (NS + "[0].matchFields[0].key", INV),
      (NS + "[0].matchFields[1].values[0]", INV)]),
]


@pytest.mark.parametrize("slice_, expected", [(c[1], c[2]) for c in CASES], ids=[c[0] for c in CASES])
def test_validate_resource_slice(slice_, expected):
    assert Counter(e.key for e in validate_resource_slice(slice_)) == Counter(expected)


def test_message_texts():
    errs = validate_resource_slice(edit(test_slice(), lambda s, d: s.update(nodeName="worker", allNodes=True)))
    assert [str(e) for e in errs] == [
        'spec: Invalid value: "{`nodeName`, `allNodes`}": exactly one of `nodeName`, `nodeSelector`, `allNodes`, '
        '`perDeviceNodeSelection` is required, but multiple fields are set']
    errs = validate_resource_slice(test_slice(driver=GOOD, devices=MAX_DEVICES + 1))
    assert [str(e) for e in errs] == ["spec.devices: Too many: 129: must have at most 128 items"]
    errs = validate_resource_slice(edit(test_slice(), lambda s, d: d[0].update(
        nodeAllocatableResourceMappings={"cpu": {"allocationMultiplier": "-1"}})))
    assert [str(e) for e in errs] == [
        'spec.devices[0].nodeAllocatableResourceMappings[cpu].allocationMultiplier: Invalid value: "-1": '
        'must be positive']
    errs = validate_resource_slice(_taints_case())
    assert str(errs[-1]) == ('spec.devices[0].taints[3].effect: Unsupported value: "some-other-effect": '
                             'supported values: "NoExecute", "NoSchedule", "None"')


def test_odd_but_well_typed_input_does_not_crash():
    for spec in ({}, {"devices": [{}], "pool": {}}, {"devices": [{"attributes": {"a": {}}, "capacity": {"b": {}}}]},
                 {"nodeSelector": {"nodeSelectorTerms": [{"matchExpressions": [{}], "matchFields": [{}]}]}},
                 {"devices": [{"capacity": {"c": {"requestPolicy": {"validRange": {}}}}, "allowMultipleAllocations": True}]},
                 {"sharedCounters": [{}], "devices": None}):
        validate_resource_slice({"metadata": {"name": "x"}, "spec": spec})
    validate_resource_slice({})
