"""Disagreements the allocator differential (tests/allocator_differential.py) found between `dra-webhook
allocate` and the real structured allocators (v1.34.4, v1.35.4, v1.36.3, v1.37.2), each cut down to a
few objects and fixed in the product. The expected answers are those the real allocators give for these
objects; these tests need no Go.
"""

from __future__ import annotations

import json

import pytest

from webhook import cli

DRIVER = "d1.example.com"
NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}}}
CLASSES = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{driver}"'}}]}}
           for name, driver in (("c1", DRIVER), ("c2", "d2.example.com"))]
# The implementation with the four older features only (stable from 1.36, incubating before).
FOUR_ONLY = "DRAConsumableCapacity=false,DRADeviceBindingConditions=false"


def _device(name: str, model: str = "a", **extra) -> dict:
    return {"name": name, "attributes": {"model": {"string": model}, "numa": {"int": 0}},
            "capacity": {"memory": {"value": "8Gi"}}, **extra}


def _slice(name: str, devices: list, driver: str = DRIVER, pool: str = "pool-0", count: int = 1, **spec) -> dict:
    spec = {"driver": driver, "pool": {"name": pool, "generation": 1, "resourceSliceCount": count},
            **({"nodeName": "n1", "devices": devices} if devices else {}), **spec}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


def _claim(name: str, requests: list, constraints: list | None = None) -> dict:
    devices = {"requests": requests, **({"constraints": constraints} if constraints else {})}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "default"}, "spec": {"devices": devices}}


def _exact(name: str, class_name: str = "c1", count: int = 1, **extra) -> dict:
    return {"name": name, "exactly": {"deviceClassName": class_name, "allocationMode": "ExactCount",
                                      "count": count, **extra}}


def _allocate(tmp_path, capsys, version: str, gates: str, objects: list):
    """(devices per claim, or None when not allocated; the error)"""
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *CLASSES, *objects]}))
    code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", version,
                     "--feature-gates", gates])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    report = json.loads(out)
    if not report["allocated"]:
        return None, report["error"]
    return [[r["device"] for r in c["allocation"]["devices"]["results"]] for c in report["claims"]], None


# distinctAttribute over three devices of which two share the value: a request's second device replaced
# its first in the constraint before 1.37 (a map keyed by request name), so dev-0 (b) and dev-2 (b) never
# met; 1.37 keeps every device and refuses (behaviour distinct_every_device).
DISTINCT = [_slice("s", [_device("dev-0", "b"), _device("dev-1", "a"), _device("dev-2", "b")]),
            _claim("claim-0", [_exact("r0", count=2), _exact("r1")], [{"distinctAttribute": f"{DRIVER}/model"}])]

# Two drivers' pools named alike, each with a counter set cs-0: before 1.37 the counters are keyed by pool
# name alone, so d2's pool is measured against d1's counters (computed first); 1.37 keys them by driver and
# pool (behaviour counters_by_pool_id).
_CONSUMES = [{"counterSet": "cs-0", "counters": {"mem": {"value": "16Gi"}}}]
SAME_POOL_NAME = [
    _slice("d1-devices", [_device("dev-0", consumesCounters=_CONSUMES)], count=2),
    _slice("d1-counters", [], count=2, sharedCounters=[{"name": "cs-0", "counters": {"mem": {"value": "32Gi"}}}]),
    _slice("d2-devices", [_device("dev-0", consumesCounters=_CONSUMES)], driver="d2.example.com", count=2),
    _slice("d2-counters", [], driver="d2.example.com", count=2,
           sharedCounters=[{"name": "cs-0", "counters": {"mem": {"value": "16Gi"}}}]),
    _claim("claim-0", [_exact("r0", "c2")]), _claim("claim-1", [_exact("r0")])]

# A device rejected by a constraint after its counters were checked: v1.36.3 rolls its counters back
# (rollbackDevice), so dev-3 still fits; before 1.36.3 they stayed taken (behaviour allocator_full_rollback).
ROLLBACK = [
    _slice("devices", [_device("dev-0"), _device("dev-1", consumesCounters=[
        {"counterSet": "cs-0", "counters": {"mem": {"value": "8Gi"}}}]),
        _device("dev-2", "b", consumesCounters=_CONSUMES), _device("dev-3", consumesCounters=_CONSUMES)], count=2),
    _slice("counters", [], count=2, sharedCounters=[{"name": "cs-0", "counters": {"mem": {"value": "32Gi"}}}]),
    _claim("claim-0", [_exact("r0", count=2), _exact("r1")], [{"matchAttribute": f"{DRIVER}/model"}])]

# A subrequest with allocationMode All checks its devices under the previous subrequest's key before 1.36,
# caching "not selectable" for dev-0 under s1's key; upstream drops those verdicts before the search
# (deviceMatchesRequest is reset), so s1 still gets dev-0.
SUBREQUEST_CACHE = [_slice("s", [_device("dev-0")]), _claim("claim-0", [{"name": "r0", "firstAvailable": [
    {"name": "s1", "deviceClassName": "c1", "allocationMode": "ExactCount", "count": 1},
    {"name": "s2", "deviceClassName": "c2", "allocationMode": "All"}]}])]

# List attributes with a common element under matchAttribute: v1.36.3's plugin gives DRAListTypeAttributes
# to the CEL cache only, not to the allocator, which compares them as scalars (no match); 1.37 passes it
# (behaviour allocator_gets_list_types). With the gate off 1.36 fails on the list in CEL, 1.37 evaluates
# it (behaviour cel_list_values_always) and the constraint is not met.
LISTS = [_slice("s", [{"name": "dev-0", "attributes": {"numas": {"ints": [0, 1]}}},
                      {"name": "dev-1", "attributes": {"numas": {"ints": [1, 2]}}}]),
         _claim("claim-0", [_exact("r0", count=2)], [{"matchAttribute": f"{DRIVER}/numas"}])]
LIST_GATE = "DRAListTypeAttributes=true"

# A pool seen on this node through its counter slice alone: 1.37 gathers a counter slice only through
# node selection (it has none), so the pool is not there, and "all" devices are none; before, a counter
# slice serves every node, the pool is gathered, incomplete, and "all" fails on it (behaviour
# counter_slices_for_every_node).
_COUNTER_SET = [{"name": "cs-0", "counters": {"mem": {"value": "32Gi"}}}]
COUNTERS_ONLY = [_slice("counters", [], count=2, sharedCounters=_COUNTER_SET),
                 _claim("claim-0", [{"name": "r0", "exactly": {"deviceClassName": "c1", "allocationMode": "All"}}])]

# allocationMode All over a device with a share allocated (dev-0, 8Gi of its 32Gi taken): 1.37 collects it
# by its static capacity and then cannot allocate it (not allocated); before, it was left out by what is
# left, and the distinctAttribute constraint failed on dev-1 and dev-2 (an error) (behaviour
# all_mode_static_capacity).
_IN_USE = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
           "metadata": {"name": "in-use", "namespace": "default"},
           "spec": {"devices": {"requests": [{"name": "r0", "exactly": {"deviceClassName": "c1"}}]}},
           "status": {"allocation": {"devices": {"results": [
               {"request": "r0", "driver": DRIVER, "pool": "pool-0", "device": "dev-0",
                "shareID": "bb6a920d-50fb-8fe9-37cc-d29f4a75b26a", "consumedCapacity": {"memory": "8Gi"}}]}}}}
ALL_STATIC = [_slice("s", [dict(_device("dev-0", "b"), capacity={"memory": {"value": "32Gi"}}), _device("dev-1"),
                           _device("dev-2")]), _IN_USE,
              _claim("claim-0", [{"name": "r0", "exactly": {"deviceClassName": "c1", "allocationMode": "All"}}],
                     [{"distinctAttribute": f"{DRIVER}/model"}])]

CASES = [
    ("counters-only-1.37", "1.37", "", COUNTERS_ONLY, None),
    ("all-static-capacity-1.37", "1.37", "", ALL_STATIC, None),
    ("lists-1.36", "1.36", LIST_GATE, LISTS, None),
    ("lists-1.37", "1.37", LIST_GATE, LISTS, [["dev-0", "dev-1"]]),
    ("lists-gate-off-1.37", "1.37", "", LISTS, None),
    ("distinct-1.36", "1.36", "", DISTINCT, [["dev-0", "dev-1", "dev-2"]]),
    ("distinct-1.37", "1.37", "", DISTINCT, None),
    ("same-pool-name-1.36", "1.36", "", SAME_POOL_NAME, None),
    ("same-pool-name-1.37", "1.37", "", SAME_POOL_NAME, [["dev-0"], ["dev-0"]]),
    ("rollback-1.36", "1.36", "", ROLLBACK, [["dev-0", "dev-1", "dev-3"]]),
    ("subrequest-cache-1.34", "1.34", "", SUBREQUEST_CACHE, [["dev-0"]]),
    ("subrequest-cache-1.35", "1.35", "", SUBREQUEST_CACHE, [["dev-0"]]),
    ("subrequest-cache-1.37", "1.37", "", SUBREQUEST_CACHE, [["dev-0"]]),
]


@pytest.mark.parametrize(("version", "gates", "objects", "expected"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_answer_of_the_real_allocator(version, gates, objects, expected, tmp_path, capsys):
    devices, error = _allocate(tmp_path, capsys, version, gates, objects)
    assert error is None
    assert devices == expected


@pytest.mark.parametrize(("version", "objects", "error"), [
    ("1.36", COUNTERS_ONLY, "asks for all devices, but resource pool d1.example.com/pool-0 is currently being updated"),
    ("1.36", ALL_STATIC, "cannot add device d1.example.com/pool-0/dev-2 because a claim constraint would not be"),
], ids=["counters-only-1.36", "all-static-capacity-1.36"])
def test_error_of_the_real_allocator(version, objects, error, tmp_path, capsys):
    devices, found = _allocate(tmp_path, capsys, version, "", objects)
    assert devices is None and error in found


@pytest.mark.parametrize("version", ["1.35", "1.36", "1.37"])
def test_distinct_attribute_is_an_empty_constraint_without_consumable_capacity(version, tmp_path, capsys):
    """Only the implementations with consumable capacity know distinctAttribute; the one the scheduler picks
    with the four older features alone sees an empty constraint and fails the scheduling attempt."""
    devices, error = _allocate(tmp_path, capsys, version, FOUR_ONLY, DISTINCT)
    assert devices is None
    assert "constraint #0: empty constraint (unsupported constraint type?)" in error


# Found with DeviceTaintRules and the 1.37 alpha features in the scenarios -------------------------------

def _rule(api: str, spec_extra: dict | None = None) -> dict:
    return {"apiVersion": f"resource.k8s.io/{api}", "kind": "DeviceTaintRule", "metadata": {"name": "rule-0"},
            "spec": {"taint": {"key": "broken", "value": "yes", "effect": "NoSchedule"}, **(spec_extra or {})}}


# A DeviceTaintRule without deviceSelector: the slice tracker before 1.37 applies it to every device (so
# dev-0 is tainted and not tolerated); 1.37's does as the API documents, "without a selector, no devices
# are matched" (behaviour taint_rule_no_selector_matches_all). An empty selector matches every device in both.
NO_SELECTOR = [_slice("s", [_device("dev-0")]), _claim("claim-0", [_exact("r0")])]
RULE_GATE = "DRADeviceTaintRules=true"

# A slice that skips node operations, on a node that does not declare DRAOptionalNodeOperations: only the
# experimental allocator (picked for an alpha feature) knows the field and skips the device; 1.37's default
# implementation (incubating) allocates it and writes no skipNodeOperations (reads_node_operations).
SKIPPING = [_slice("s", [_device("dev-0")], skipNodeOperations=["*"]), _claim("claim-0", [_exact("r0")])]


@pytest.mark.parametrize(("version", "rule", "expected"), [
    ("1.36", _rule("v1beta2"), None),
    ("1.37", _rule("v1"), [["dev-0"]]),
    ("1.36", _rule("v1beta2", {"deviceSelector": {}}), None),
    ("1.37", _rule("v1", {"deviceSelector": {}}), None),
    ("1.37", _rule("v1", {"deviceSelector": {"device": "dev-0"}}), None),
], ids=["no-selector-1.36", "no-selector-1.37", "empty-selector-1.36", "empty-selector-1.37", "device-1.37"])
def test_taint_rule_selection_of_the_real_tracker(version, rule, expected, tmp_path, capsys):
    devices, error = _allocate(tmp_path, capsys, version, RULE_GATE, [*NO_SELECTOR, rule])
    assert error is None and devices == expected


@pytest.mark.parametrize(("gates", "expected"), [
    ("", [["dev-0"]]), ("DRAListTypeAttributes=true", None), ("DRAOptionalNodeOperations=true", None)])
def test_skip_node_operations_is_read_by_the_experimental_allocator_only(gates, expected, tmp_path, capsys):
    devices, error = _allocate(tmp_path, capsys, "1.37", gates, SKIPPING)
    assert error is None and devices == expected


def _cores_claim(amount: str) -> list:
    device = {"name": "dev-0", "allowMultipleAllocations": True, "capacity": {"cores": {"value": "2", "requestPolicy": {
        "default": "500m", "validRange": {"min": "250m", "max": "1500m", "step": "250m"}}}}}
    return [_slice("s", [device]), _claim("claim-0", [_exact("r0", capacity={"requests": {"cores": amount}})])]


@pytest.mark.parametrize(("gates", "amount", "consumed"), [
    ("DRAFractionalCapacityRange=true", "300m", "500m"),  # rounded up to min + n * step in milli-units
    ("DRAFractionalCapacityRange=true", "1", "1"),
    ("DRAFractionalCapacityRange=true", "1600m", None),  # past max once rounded: not allocated
    ("", "300m", "1"),  # without the gate, whole units rounded up: 300m -> 1 (min 250m -> 1, step -> 1)
])
def test_fractional_capacity_range_is_rounded_in_milli_units(gates, amount, consumed, tmp_path, capsys):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *CLASSES, *_cores_claim(amount)]}))
    code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", "1.37",
                     "--feature-gates", gates])
    report = json.loads(capsys.readouterr().out)
    assert code == (0 if consumed else 1) and report["error"] is None
    if consumed:
        result = report["claims"][0]["allocation"]["devices"]["results"][0]
        assert result["consumedCapacity"] == {"cores": consumed}


def test_a_request_no_whole_number_of_milli_units_is_an_error_in_milli_arithmetic(tmp_path, capsys):
    devices, error = _allocate(tmp_path, capsys, "1.37", "DRAFractionalCapacityRange=true", _cores_claim("300500u"))
    assert devices is None
    assert error == ('claim default/claim-0, request r0: checking capacity for device d1.example.com/pool-0/dev-0: '
                     'capacity "cores": capacity request cannot be represented in the device\'s range arithmetic: '
                     'request 300500u is not a representable milli value')


def test_explaining_a_shared_device_without_capacity_in_use(tmp_path, capsys):
    """The explanation of a shared device that nothing has consumed yet and that is too small printed the
    amount in use as an int and crashed (found when requests asked for a capacity no claim had used)."""
    device = {"name": "dev-0", "allowMultipleAllocations": True, "capacity": {"memory": {"value": "8Gi"}}}
    objects = [_slice("s", [device]), _claim("claim-0", [_exact("r0", capacity={"requests": {"memory": "16Gi"}})])]
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *CLASSES, *objects]}))
    code = cli.main(["allocate", str(path), "--kubernetes-version", "1.37"])
    out, err = capsys.readouterr()
    assert code == 1 and not err
    assert "memory: needs 16Gi, 8Gi total with 0 in use" in out


# The 1.36 plugin's node-allocatable footprint (buildNodeAllocatableDRAInfo, getDeviceFromManager): a
# result's device is found by pool and device name alone in every slice, the first listed (here d1's dev-0,
# although d2's was allocated); a capacityKey is read in consumedCapacity exactly as written; a claim whose
# devices map node resources but that no container of the Pod references makes the Pod unschedulable.
def _mapped(name: str, mappings: dict, **extra) -> dict:
    return {**_device(name), "nodeAllocatableResourceMappings": mappings, **extra}


def _pod(containers_use_claim: bool = True) -> dict:
    claims = [{"name": "rc0"}] if containers_use_claim else []
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"resourceClaims": [{"name": "rc0", "resourceClaimName": "claim-0"}],
                     "containers": [{"name": "c0", "image": "x", "resources": {"claims": claims}}]}}


_SHARED = {"allowMultipleAllocations": True, "capacity": {"memory": {"value": "8Gi"}}}
FOOTPRINT_1_36 = {
    "pool-name-only": ([_slice("a", [_mapped("dev-0", {"cpu": {"allocationMultiplier": "1"}})]),
                        _slice("b", [_mapped("dev-0", {"cpu": {"allocationMultiplier": "500m"}})],
                               driver="d2.example.com"),
                        _claim("claim-0", [_exact("r0", "c2")]), _pod()], {"cpu": "1"}, ""),
    "qualified-capacity-key": ([_slice("a", [_mapped("dev-0", {"memory": {"capacityKey": f"{DRIVER}/memory"},
                                                                "cpu": {"allocationMultiplier": "2"}}, **_SHARED)]),
                                _claim("claim-0", [_exact("r0")]), _pod()], {"cpu": "2"}, ""),
    "capacity-key": ([_slice("a", [_mapped("dev-0", {"memory": {"capacityKey": "memory",
                                                                "allocationMultiplier": "2"}}, **_SHARED)]),
                      _claim("claim-0", [_exact("r0")]), _pod()], {"memory": "16Gi"}, ""),
    "no-container": ([_slice("a", [_mapped("dev-0", {"cpu": {"allocationMultiplier": "1"}})]),
                      _claim("claim-0", [_exact("r0")]), _pod(False)], {"cpu": "1"},
                     "node-allocatable resource claim not referenced by any container"),
}


@pytest.mark.parametrize("case", sorted(FOOTPRINT_1_36))
def test_node_allocatable_footprint_of_the_1_36_plugin(case, tmp_path, capsys):
    objects, amounts, problem = FOOTPRINT_1_36[case]
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, *CLASSES, *objects]}))
    code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", "1.36",
                     "--feature-gates", "DRANodeAllocatableResources=true,DRAConsumableCapacity=true"])
    out, err = capsys.readouterr()
    node = json.loads(out)
    node = node["nodes"][0] if "nodes" in node else node
    assert node["allocated"], err
    assert node["nodeAllocatable"] == amounts
    problems = [p for c in node["claims"] for p in c.get("nodeAllocatableProblems") or []]
    assert (problem in problems[0]) if problem else not problems
    assert code == (1 if problem else 0)  # a Pod the plugin refuses stays pending


# nodeFitsResources (1.36, 1.37): the Pod fits when its requests with its claims' node-allocatable statuses
# (its containers' own requests too) fit what the node has left after the bound Pods; only cpu, memory,
# ephemeral-storage and hugepages are checked. The footprint alone (1 cpu) fits the 2 cpu left; with the
# container's own 1500m it does not.
def _fit_case(version: str, container_cpu: str) -> list:
    mapping = {"nodeAllocatableResourceMappings": {"cpu": {"allocationMultiplier": "1"}}} if version == "1.36" else \
        {"nodeAllocatableResources": {"cpu": {"mapping": {"deviceMultiplier": "1"}}}}
    node = {**NODE, "status": {"allocatable": {"cpu": "4", "memory": "8Gi"}}}
    bound = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "bound", "namespace": "default"},
             "spec": {"nodeName": "n1", "containers": [{"name": "app", "image": "x",
                                                        "resources": {"requests": {"cpu": "2"}}}]}}
    pod = _pod()
    pod["spec"]["containers"][0]["resources"]["requests"] = {"cpu": container_cpu}
    return [node, _slice("a", [{**_device("dev-0"), **mapping}]), _claim("claim-0", [_exact("r0")]), pod, bound]


@pytest.mark.parametrize("version", ["1.36", "1.37"])
@pytest.mark.parametrize(("container_cpu", "fits"), [("500m", True), ("1500m", False)])
def test_the_pod_fits_with_its_own_requests(version, container_cpu, fits, tmp_path, capsys):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*CLASSES, *_fit_case(version, container_cpu)]}))
    code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", version,
                     "--feature-gates", "DRANodeAllocatableResources=true", "--node", "n1"])
    report = json.loads(capsys.readouterr().out)
    node = report["nodes"][0] if "nodes" in report else report
    assert node["allocated"] and node["nodeAllocatable"] == {"cpu": "1"}
    assert node["nodeAllocatableFit"]["fits"] is fits and code == (0 if fits else 1)
    if not fits:
        assert node["nodeAllocatableFit"]["short"] == {"cpu": "500m"}


def test_the_pod_fit_is_checked_when_a_device_declares_node_resources_that_do_not_apply(tmp_path, capsys):
    """1.36: the allocated device maps memory from a capacity the allocation does not consume, so the
    claim takes nothing; the plugin still checks the Pod's own requests (3 cpu, 2 left)."""
    objects = _fit_case("1.36", "3")
    objects[1] = _slice("a", [_mapped("dev-0", {"memory": {"capacityKey": "cores"}}, **_SHARED)])
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [*CLASSES, *objects]}))
    code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", "1.36",
                     "--feature-gates", "DRANodeAllocatableResources=true,DRAConsumableCapacity=true", "--node", "n1"])
    report = json.loads(capsys.readouterr().out)
    node = report["nodes"][0] if "nodes" in report else report
    assert code == 1 and node["allocated"] and node["nodeAllocatable"] == {}
    assert node["nodeAllocatableFit"] == {"fits": False, "free": {"cpu": "2"}, "short": {"cpu": "1"}}
