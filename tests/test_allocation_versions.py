"""The structured allocator of each release, side by side: what `allocate --kubernetes-version` changes.

Each case is run through `dra-webhook allocate --output json` under 1.34 (k8s.io/dynamic-resource-allocation
v0.34.9), 1.35 (v0.35.6) and 1.36 (v0.36.2); the 1.36 verdicts are upstream's own (TestAllocator and
TestLexicographicalAllocator of v0.36.2), the 1.34 and 1.35 ones follow from the code named in each case.
"""

from __future__ import annotations

import json

import pytest

from webhook import cli

NODE = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-1"}}
CLASS = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "class-a"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "driver-a"'}}]}}


def _slice(name: str, pool: str, *devices: dict, count: int = 1) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name},
            "spec": {"driver": "driver-a", "pool": {"name": pool, "resourceSliceCount": count, "generation": 1},
                     "nodeName": "node-1", "devices": list(devices)}}


def _claim(*requests: dict) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": "claim-0", "namespace": "default"}, "spec": {"devices": {"requests": list(requests)}}}


def _run(tmp_path, capsys, version: str, gates: str, objects: tuple[dict, ...]) -> tuple[dict, str]:
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [NODE, CLASS, *objects]}))
    code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", version,
                     "--feature-gates", gates])
    out, err = capsys.readouterr()
    assert code in (0, 1), err
    return json.loads(out), err


def _allocate(tmp_path, capsys, version: str, gates: str, *objects: dict) -> dict:
    report, err = _run(tmp_path, capsys, version, gates, objects)
    assert "not ported" not in err
    return report


def _allocate_any(tmp_path, capsys, version: str, gates: str, *objects: dict) -> dict:
    """`allocate` under a release, without looking at its notes."""
    return _run(tmp_path, capsys, version, gates, objects)[0]


def _devices(report: dict) -> list[tuple[str, str]] | None:
    allocation = report["claims"][0]["allocation"]
    if allocation is None:
        return None
    return [(r["request"], r["device"]) for r in allocation["devices"]["results"]]


_ALL_OFF = ("DRAAdminAccess=false,DRAConsumableCapacity=false,DRADeviceBindingConditions=false,"
            "DRAResourceClaimDeviceStatus=false,DRADeviceTaints=false,DRAPartitionableDevices=false")


def _generation(name: str, value: str) -> dict:
    return {"name": name, "attributes": {"generation": {"string": value}}}


def _all_of(name: str, generation: str) -> dict:
    return {"name": name, "deviceClassName": "class-a", "allocationMode": "All",
            "selectors": [{"cel": {"expression": f'device.attributes["driver-a"].generation == "{generation}"'}}]}


def test_all_mode_subrequest_uses_the_previous_subrequests_verdicts(tmp_path, capsys):
    """1.36 prioritized-list-allocation-mode-all-with-selectors. In 1.35 (allocator_incubating.go Allocate)
    subrequest 1 is checked under subrequest 0's key: device-1 was cached as not matching `v6`, so the
    `v5` subrequest finds no device either and nothing is allocated (behaviour all_subrequest_index_skew)."""
    objects = (_slice("slice-1", "pool-1", _generation("device-1", "v5")),
               _claim({"name": "req-0", "firstAvailable": [_all_of("sub-0", "v6"), _all_of("sub-1", "v5")]}))
    gates = _ALL_OFF + ",DRAPrioritizedList=true"
    assert _devices(_allocate(tmp_path, capsys, "1.36", gates, *objects)) == [("req-0/sub-1", "device-1")]
    assert _devices(_allocate(tmp_path, capsys, "1.35", gates, *objects)) is None


def test_slices_in_name_order_or_as_listed(tmp_path, capsys):
    """1.36 lexicographical-sorting-slices: buildPool sorts a pool's slices by name, so the first fit is
    slice-a's device. 1.35's buildPool keeps the order the slices come in (allocator_sorts_by_name)."""
    objects = (_slice("slice-b", "pool-1", {"name": "device-b"}, count=2),
               _slice("slice-a", "pool-1", {"name": "device-a"}, count=2),
               _claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "count": 1}}))
    assert _devices(_allocate(tmp_path, capsys, "1.36", _ALL_OFF, *objects)) == [("req-0", "device-a")]
    assert _devices(_allocate(tmp_path, capsys, "1.35", _ALL_OFF, *objects)) == [("req-0", "device-b")]


def test_pools_in_name_order_or_as_listed(tmp_path, capsys):
    """1.36 lexicographical-sorting-pools: GatherPools sorts pools by driver and name. 1.35 returns them in
    Go map order, which is unspecified; here, as listed."""
    objects = (_slice("slice-1", "pool-b", {"name": "device-b"}), _slice("slice-2", "pool-a", {"name": "device-a"}),
               _claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "count": 1}}))
    assert _devices(_allocate(tmp_path, capsys, "1.36", _ALL_OFF, *objects)) == [("req-0", "device-a")]
    assert _devices(_allocate(tmp_path, capsys, "1.35", _ALL_OFF, *objects)) == [("req-0", "device-b")]


@pytest.mark.parametrize(("gates", "first"), [
    (",DRAConsumableCapacity=true", "device-plain"),
    (",DRADeviceTaints=true", "device-x"),
], ids=["experimental", "incubating"])
def test_binding_condition_slices_last_in_the_experimental_allocator(tmp_path, capsys, gates, first):
    """pools_experimental.go (v0.35.6) GatherPools adds slices with binding conditions after the others;
    pools_incubating.go does not. With binding conditions off their devices are not offered, but the
    other devices of such a slice are, and their place in the order changes."""
    bound = {"name": "device-bound", "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"]}
    objects = (_slice("slice-1", "pool-1", bound, {"name": "device-x"}, count=2),
               _slice("slice-2", "pool-1", {"name": "device-plain"}, count=2),
               _claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "count": 1}}))
    assert _devices(_allocate(tmp_path, capsys, "1.35", _ALL_OFF + gates, *objects)) == [("req-0", first)]
    assert _devices(_allocate(tmp_path, capsys, "1.36", _ALL_OFF + gates, *objects)) == [("req-0", "device-x")]


def test_bare_stable_allocator_writes_no_tolerations(tmp_path, capsys):
    """With every optional feature off, 1.35 runs its `stable` implementation, whose results carry no
    tolerations (allocator_stable.go v0.35.6); 1.36's `stable` is the former `incubating` and copies them."""
    toleration = {"key": "example.com/k", "operator": "Exists", "effect": "NoSchedule"}
    objects = (_slice("slice-1", "pool-1", {"name": "device-1"}),
               _claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "count": 1,
                                                    "tolerations": [toleration]}}))
    gates = _ALL_OFF + ",DRAPrioritizedList=false"
    for version, expected in (("1.36", [toleration]), ("1.35", None)):
        result = _allocate(tmp_path, capsys, version, gates, *objects)["claims"][0]["allocation"]["devices"]["results"]
        assert result[0].get("tolerations") == expected, version


def test_committed_shares_consume_counters_from_1_36(tmp_path, capsys):
    """1.36 allow-multiple-allocations-with-shared-device-counter-cross-cycle: device-1, shared by a claim
    in use, consumes the pool's only counter, so device-2 cannot be allocated. 1.35 rebuilds the counters
    from fully allocated devices only (allocator_experimental.go: AllocatedDevices.Has), so it can."""
    from test_allocation_upstream import CASES

    case = next(c for c in CASES if c["name"] == "allow-multiple-allocations-with-shared-device-counter-cross-cycle")
    gates = ",".join(f"{g}={'true' if on else 'false'}" for g, on in case["gates"].items()
                     if g != "DRAListTypeAttributes")
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": case["objects"]}))
    found = {}
    for version in ("1.35", "1.36"):
        code = cli.main(["allocate", str(path), "--output", "json", "--kubernetes-version", version,
                         "--feature-gates", gates])
        out, err = capsys.readouterr()
        assert code in (0, 1), err
        found[version] = _devices(json.loads(out))
    assert found == {"1.36": None, "1.35": [("req-0", "device-2")]}


def test_all_mode_subrequest_continues_under_subrequest_0(tmp_path, capsys):
    """1.35 allocateOne seeks the next device of an All subrequest with deviceIndices{claim, request, device}
    (subrequest index 0): after device-1 for sub-1, sub-0's ExactCount of 5 continues the search, and
    fails; 1.36 (fixed in the same commit as the case above) allocates both v5 devices to sub-1."""
    exact = {"name": "sub-0", "deviceClassName": "class-a", "allocationMode": "ExactCount", "count": 5,
             "selectors": [{"cel": {"expression": 'device.attributes["driver-a"].generation == "v6"'}}]}
    objects = (_slice("slice-1", "pool-1", _generation("device-1", "v5"), _generation("device-2", "v5"),
                      _generation("device-3", "v6")),
               _claim({"name": "req-0", "firstAvailable": [exact, _all_of("sub-1", "v5")]}))
    gates = _ALL_OFF + ",DRAPrioritizedList=true"
    assert _devices(_allocate(tmp_path, capsys, "1.36", gates, *objects)) == [("req-0/sub-1", "device-1"),
                                                                             ("req-0/sub-1", "device-2")]
    assert _devices(_allocate(tmp_path, capsys, "1.35", gates, *objects)) is None


def test_incomplete_pool_searched_in_1_34(tmp_path, capsys):
    """1.34 GatherPools marks a pool incomplete by this node's slices and its search still takes their
    devices (allocator_incubating.go v0.34.9 checks IsIncomplete only for allocationMode All); 1.35 skips
    a pool whose slices do not add up."""
    objects = (_slice("slice-1", "pool-1", {"name": "device-1"}, count=2),
               _claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "count": 1}}))
    assert _devices(_allocate_any(tmp_path, capsys, "1.34", _ALL_OFF, *objects)) == [("req-0", "device-1")]
    assert _devices(_allocate(tmp_path, capsys, "1.35", _ALL_OFF, *objects)) is None


@pytest.mark.parametrize(("gates", "first"), [
    (",DRAConsumableCapacity=true", "device-plain"),
    (",DRADeviceTaints=true", "device-x"),
], ids=["experimental", "incubating"])
def test_pools_with_binding_conditions_last_in_the_experimental_allocator(tmp_path, capsys, gates, first):
    """pools_experimental.go (v0.35.6) GatherPools returns pools with binding conditions after the others
    (poolHasBindingConditions); pools_incubating.go keeps their order."""
    bound = {"name": "device-bound", "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"]}
    objects = (_slice("slice-1a", "pool-1", {"name": "device-x"}, count=2),
               _slice("slice-1b", "pool-1", bound, count=2),
               _slice("slice-2", "pool-2", {"name": "device-plain"}),
               _claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "count": 1}}))
    assert _devices(_allocate(tmp_path, capsys, "1.35", _ALL_OFF + gates, *objects)) == [("req-0", first)]


@pytest.mark.parametrize(("gates", "first"), [
    (",DRAConsumableCapacity=true", "device-plain"),
    ("", "device-x"),
], ids=["incubating", "stable"])
def test_1_36_stable_keeps_pools_with_binding_conditions_in_name_order(tmp_path, capsys, gates, first):
    """v0.36.2: pools_incubating.go GatherPools puts pools with binding conditions last, pools_stable.go
    (every feature it runs with is older than binding conditions) only sorts them by name."""
    bound = {"name": "device-bound", "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"]}
    objects = (_slice("slice-1", "pool-a", bound, {"name": "device-x"}),
               _slice("slice-2", "pool-b", {"name": "device-plain"}),
               _claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "count": 1}}))
    assert _devices(_allocate(tmp_path, capsys, "1.36", _ALL_OFF + gates, *objects)) == [("req-0", first)]


def test_distinct_attribute_by_address_in_1_34(tmp_path, capsys):
    """constraint.go v0.34.9 matchesAttribute compares the values' pointers: two devices with the same
    model never clash (both allocated); 1.35 compares the values and finds no two distinct devices."""
    model = {"model": {"string": "a100"}}
    objects = (_slice("slice-1", "pool-1", {"name": "device-1", "attributes": model},
                      {"name": "device-2", "attributes": json.loads(json.dumps(model))}),
               {**_claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "count": 1}},
                         {"name": "req-1", "exactly": {"deviceClassName": "class-a", "count": 1}})})
    objects[1]["spec"]["devices"]["constraints"] = [{"distinctAttribute": "driver-a/model"}]
    gates = _ALL_OFF.replace("DRAConsumableCapacity=false", "DRAConsumableCapacity=true")
    assert _devices(_allocate_any(tmp_path, capsys, "1.34", gates, *objects)) == [("req-0", "device-1"),
                                                                                 ("req-1", "device-2")]
    assert _devices(_allocate(tmp_path, capsys, "1.35", gates, *objects)) is None


def _shared(name: str, **extra) -> dict:
    return {"name": name, "allowMultipleAllocations": True, **extra}


def _exact(name: str, count: int = 1, **extra) -> dict:
    return {"name": name, "exactly": {"deviceClassName": "class-a", "count": count, **extra}}


_CAPACITY_ON = _ALL_OFF.replace("DRAConsumableCapacity=false", "DRAConsumableCapacity=true")


def test_capacity_recheck_at_the_results_index_in_1_34(tmp_path, capsys):
    """allocator_experimental.go v0.34.9 allocateDevice calls CmpRequestOverCapacity(request, device.slice,
    r.deviceIndex): the capacity checked again is that of the slice's device at the result's index.
    For allocationMode All that is device-1 (full) while the candidate is device-2, so 1.34 allocates
    nothing; 1.35 checks device-2 itself (behaviour capacity_recheck_at_result_index)."""
    one = {"capacity-0": {"value": "1"}}
    in_use = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
              "metadata": {"name": "in-use", "namespace": "default"},
              "spec": {"devices": {"requests": [{"name": "r", "exactly": {"deviceClassName": "class-a"}}]}},
              "status": {"allocation": {"devices": {"results": [
                  {"request": "r", "driver": "driver-a", "pool": "pool-1", "device": "device-1",
                   "shareID": "00000000-0000-0000-0000-000000000001", "consumedCapacity": {"capacity-0": "1"}}]}}}}
    objects = (_slice("slice-1", "pool-1", _shared("device-1", capacity=one), _shared("device-2", capacity=one)),
               in_use, _claim({"name": "req-0", "exactly": {"deviceClassName": "class-a", "allocationMode": "All",
                                                            "capacity": {"requests": {"capacity-0": "1"}}}}))
    assert _devices(_allocate(tmp_path, capsys, "1.35", _CAPACITY_ON, *objects)) == [("req-0", "device-2")]
    report = _allocate(tmp_path, capsys, "1.34", _CAPACITY_ON, *objects)
    assert _devices(report) is None
    assert "checks the capacity again on the device at the result's position" in \
        report["claims"][0]["explanation"][0]["note"]


def test_capacity_recheck_past_the_slices_end_in_1_34(tmp_path, capsys):
    """The same slip with two one-device slices and a count of 2: the second result's index (1) is past
    slice-2's one device, where Go's bounds check panics in 1.34's scheduler. 1.35 seeks the second device
    from the start again (search_restarts_per_device) and takes device-1, which allows multiple
    allocations, a second time; 1.36 goes on from device-2. (The real allocators of v1.34.4, v1.35.4 and
    v1.36.3 answer so: tests/allocator_differential.py.)"""
    objects = (_slice("slice-1", "pool-1", _shared("device-1"), count=2),
               _slice("slice-2", "pool-1", _shared("device-2"), count=2), _claim(_exact("req-0", 2)))
    assert _devices(_allocate(tmp_path, capsys, "1.35", _CAPACITY_ON, *objects)) == [("req-0", "device-1"),
                                                                                    ("req-0", "device-1")]
    assert _devices(_allocate(tmp_path, capsys, "1.36", _CAPACITY_ON.replace("DRAAdminAccess=false,", ""),
                              *objects)) == [("req-0", "device-1"), ("req-0", "device-2")]
    report = _allocate(tmp_path, capsys, "1.34", _CAPACITY_ON, *objects)
    assert report["error"] == "panic: runtime error: index out of range [1] with length 1 (allocateDevice)"


def _claim_named(name: str, *requests: dict) -> dict:
    claim = _claim(*requests)
    claim["metadata"]["name"] = name
    return claim


def test_shares_in_use_take_counters_again_in_1_34(tmp_path, capsys):
    """allocator_experimental.go v0.35.6 allocateDevice skips the counter check of a shared device with a
    share already (skipCounterCheck), so three claims share device-1 (4Gi of an 8Gi counter); v0.34.9
    takes its counters for every share, and the third claim does not fit (behaviour
    shares_in_use_skip_counters)."""
    device = _shared("device-1", consumesCounters=[{"counterSet": "set-1", "counters": {"memory": {"value": "4Gi"}}}])
    counters = [{"name": "set-1", "counters": {"memory": {"value": "8Gi"}}}]
    claims = [_claim_named(f"claim-{i}", _exact("req-0")) for i in range(3)]
    gates = _CAPACITY_ON.replace("DRAPartitionableDevices=false", "DRAPartitionableDevices=true")
    beside = _slice("slice-1", "pool-1", device)  # 1.34: counter sets in the devices' slice
    beside["spec"]["sharedCounters"] = counters
    apart = _slice("slice-1", "pool-1", device, count=2)  # 1.35: counter sets in a slice of their own
    of_counters = _slice("slice-2", "pool-1", count=2)
    del of_counters["spec"]["devices"]
    of_counters["spec"]["sharedCounters"] = counters
    found = {}
    for version, slices in (("1.34", (beside,)), ("1.35", (apart, of_counters))):
        report = _allocate(tmp_path, capsys, version, gates, *slices, *claims)
        found[version] = [c["allocation"] is not None for c in report["claims"]]
    assert found == {"1.34": [False, False, False], "1.35": [True, True, True]}


def test_subrequest_capacity_error_names_its_request_in_1_34(tmp_path, capsys):
    """With DRAConsumableCapacity off, v0.34.9 Allocate refuses a subrequest's capacity requests with its
    request's name; v0.35.6 names the subrequest (behaviour capacity_error_names_request)."""
    sub = {"name": "sub-0", "deviceClassName": "class-a", "capacity": {"requests": {"capacity-0": "1"}}}
    objects = (_slice("slice-1", "pool-1", {"name": "device-1"}), _claim({"name": "req-0", "firstAvailable": [sub]}))
    gates = _ALL_OFF.replace("DRADeviceBindingConditions=false", "DRADeviceBindingConditions=true") \
        .replace("DRAResourceClaimDeviceStatus=false", "DRAResourceClaimDeviceStatus=true") + ",DRAPrioritizedList=true"
    tail = ": has capacity requests, but the DRAConsumableCapacity feature is disabled"
    found = {version: _allocate(tmp_path, capsys, version, gates, *objects)["error"] for version in ("1.34", "1.35")}
    assert found == {"1.34": f"claim default/claim-0, request req-0{tail}",
                     "1.35": f"claim default/claim-0, subrequest sub-0{tail}"}


def test_slice_with_counters_and_binding_conditions_last_in_1_34(tmp_path, capsys):
    """pools_experimental.go v0.34.9 GatherPools puts every slice with binding conditions after the others,
    counter sets or not (1.34 keeps counter sets beside devices); so slice-2's device-plain comes first.
    From 1.35 a slice of counter sets holds no devices and is added before the node match."""
    bound = {"name": "device-bound", "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"]}
    first = _slice("slice-1", "pool-1", bound, {"name": "device-x"}, count=2)
    second = _slice("slice-2", "pool-1", {"name": "device-plain"}, count=2)
    for s in (first, second):
        s["spec"]["sharedCounters"] = [{"name": "set-1", "counters": {"memory": {"value": "8Gi"}}}]
    objects = (first, second, _claim(_exact("req-0")))
    assert _devices(_allocate(tmp_path, capsys, "1.34", _CAPACITY_ON, *objects)) == [("req-0", "device-plain")]


def test_any_taint_not_tolerated_prevents_allocation_in_1_34(tmp_path, capsys):
    """allocator_experimental.go v0.34.9 allTaintsTolerated refuses a device with any taint not tolerated;
    v0.35.6 taintPreventsAllocation looks only at NoSchedule and NoExecute (the effect None came with it).
    1.34's API server accepts neither None nor other effects, so only input it never stored differs here
    (behaviour taint_prevents_by_effect)."""
    objects = (_slice("slice-1", "pool-1", {"name": "device-1", "taints": [{"key": "k", "effect": "None"}]}),
               _claim(_exact("req-0")))
    gates = _ALL_OFF.replace("DRADeviceTaints=false", "DRADeviceTaints=true")
    assert _devices(_allocate(tmp_path, capsys, "1.35", gates, *objects)) == [("req-0", "device-1")]
    assert _devices(_allocate(tmp_path, capsys, "1.34", gates, *objects)) is None


def test_device_status_alone_picks_the_experimental_allocator_in_1_34(tmp_path, capsys):
    """v0.34.9's Features hold DeviceBinding and DeviceStatus apart and only `experimental` supports them, so
    DRAResourceClaimDeviceStatus alone (on by default in 1.34) runs it: its GatherPools puts slice-1 (with
    binding conditions) last and device-plain comes first. 1.35 needs both gates for that (DeviceBindingAndStatus)
    and runs `incubating`, which keeps slice-1 first (behaviour binding_features_apart)."""
    bound = {"name": "device-bound", "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"]}
    objects = (_slice("slice-1", "pool-1", bound, {"name": "device-x"}, count=2),
               _slice("slice-2", "pool-1", {"name": "device-plain"}, count=2), _claim(_exact("req-0")))
    gates = _ALL_OFF.replace("DRAResourceClaimDeviceStatus=false", "DRAResourceClaimDeviceStatus=true")
    assert _devices(_allocate(tmp_path, capsys, "1.34", gates, *objects)) == [("req-0", "device-plain")]
    assert _devices(_allocate(tmp_path, capsys, "1.35", gates, *objects)) == [("req-0", "device-x")]


@pytest.mark.parametrize("version", ["1.34", "1.35", "1.36"])
def test_capacity_requests_with_the_gate_off_refused_only_past_stable(tmp_path, capsys, version):
    """With DRAConsumableCapacity off, Allocate of `experimental` (and of 1.36's `incubating`) refuses a request
    with capacity requests; `stable`, which runs when no feature beyond it is on, has no such check (v0.34.9 to
    v0.36.2 allocator_stable.go) and allocates, capacity ignored."""
    objects = (_slice("slice-1", "pool-1", {"name": "device-1", "capacity": {"memory": {"value": "1Gi"}}}),
               _claim(_exact("req-0", capacity={"requests": {"memory": "1Gi"}})))
    assert _devices(_allocate(tmp_path, capsys, version, _ALL_OFF, *objects)) == [("req-0", "device-1")]
    binding = _ALL_OFF.replace("DRADeviceBindingConditions=false", "DRADeviceBindingConditions=true") \
        .replace("DRAResourceClaimDeviceStatus=false", "DRAResourceClaimDeviceStatus=true")
    error = _allocate(tmp_path, capsys, version, binding, *objects)["error"]
    assert error == ("claim default/claim-0, request req-0: has capacity requests, but the DRAConsumableCapacity "
                     "feature is disabled")
