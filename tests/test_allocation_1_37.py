"""The allocator under `--kubernetes-version 1.37`: compatibility groups and derived attributes.

Ported from the 1.37 upstream tests of the structured allocator: the experimental allocator's
compatibility_groups_test.go (the intersection table, the rolling and the no-groups cases), the
integration tests testCompatibilityGroups (CompatibleCoAllocation, IncompatibleDevicesUnschedulable,
IncompatibleRejectedCompatibleAdmitted) and testDerivedAttributes, as our own data. The other cases
follow the 1.37 allocator code: the baseline from allocated devices, counter sets never compared,
backtracking, the version-skew skips with the gate off, and derived attributes shadowing the driver's
attribute for one request only. Every 1.36 upstream table case must give the same answer under 1.37.
"""

from __future__ import annotations

import json

import pytest

from allocation_objects import claim, device_class, node, request, resource_slice, write
from test_allocation_upstream import CASES, check_allocations
from webhook import cli
from webhook.allocation.compatibility import Intersection, group_set

V137 = ("--kubernetes-version", "1.37")
GROUPS_ON = ("--feature-gates", "DRADeviceCompatibilityGroups=true")
DERIVED_ON = ("--feature-gates", "DRADerivedAttributes=true")
GPU = device_class("gpu.example.com", 'device.driver == "gpu.example.com"')


def allocate(capsys, tmp_path, objects: list, *argv: str) -> tuple[int, dict]:
    code = cli.main(["allocate", write(tmp_path / "in.json", objects), "--output", "json", *argv])
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else {}


def devices(report: dict) -> list:
    """Per claim the allocated device names in result order, None when not allocated."""
    return [None if c["allocation"] is None else [r["device"] for r in c["allocation"]["devices"]["results"]]
            for c in report["claims"]]


def removed(report: dict, claim_index: int = 0) -> dict:
    return {e["reason"]: e for e in report["claims"][claim_index]["explanation"][0]["removed"]}


# The 1.36 table under 1.37 ----------------------------------------------------------------------

# 1.37's getAttributeValue makes a list attribute a CEL list whatever the gate (behaviour
# cel_list_values_always): where 1.36 fails the selector with "unsupported attribute value", 1.37 evaluates
# it and the list-valued constraint is not met (the real v1.37.2 allocator answers so).
# And 1.37 collects an allocationMode All request's devices by their static capacity (behaviour
# all_mode_static_capacity): a shared device with too little left is then one of "all" and cannot be
# allocated, where 1.36 left it out and allocated the rest.
DIFFERENT_UNDER_1_37 = {"list-attributes-disabled-match-constraint-with-lists": {"error": None, "results": []},
                        "list-attributes-disabled-distinct-constraint-with-lists": {"error": None, "results": []},
                        "consumable-capacity-multi-allocatable-device-allocation-mode-all-in-use-insufficient":
                            {"error": None, "results": []}}


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_1_36_upstream_case_gives_the_same_answer_under_1_37(case, tmp_path, capsys):
    path = tmp_path / "case.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": case["objects"]}))
    gates = ",".join(f"{name}={'true' if on else 'false'}" for name, on in sorted(case["gates"].items()))
    code = cli.main(["allocate", str(path), "--output", "json", "--feature-gates", gates, *V137])
    report = json.loads(capsys.readouterr().out)
    expect = DIFFERENT_UNDER_1_37.get(case["name"], case["expect"])
    if expect["error"] is not None:
        assert code == 1 and expect["error"] in report["error"]
        return
    check_allocations(case, code, report, expect)


# compatibility_groups_test.go -------------------------------------------------------------------

def test_the_cases_different_under_1_37_exist():
    assert set(DIFFERENT_UNDER_1_37) <= {c["name"] for c in CASES}


def _set(*groups: str) -> frozenset:
    return group_set(groups)


@pytest.mark.parametrize("intersection, candidate, want", [
    (Intersection(), _set("mig"), True),  # empty-intersection-admits-grouped
    (Intersection(), _set(), True),  # empty-intersection-admits-nil
    (Intersection().add(_set()), _set(), True),  # no-group members admit a no-group candidate
    (Intersection().add(_set()), _set("mig"), False),  # ... and reject a grouped one
    (Intersection().add(_set("mig")), _set(), False),  # grouped members reject a no-group candidate
    (Intersection().add(_set("mig")), _set("mig"), True),  # ... admit an overlapping one
    (Intersection().add(_set("mig")), _set("vgpu"), False),  # ... reject a disjoint one
    (Intersection().add(_set("foo", "foobar")), _set("bar", "foobar"), True),  # multi-group overlap
    (Intersection().add(_set("foo", "foobar")), _set("baz"), False),  # multi-group disjoint
])
def test_compatibility_group_intersection_admits(intersection, candidate, want):
    assert intersection.admits(candidate) is want


def test_compatibility_group_set_null_and_empty_mean_no_groups():
    assert group_set(None) == group_set([]) == frozenset()
    assert group_set(["mig"]) == frozenset({"mig"})


def test_compatibility_group_intersection_rolling():
    i = Intersection()
    assert i.admits(_set("foo", "foobar"))
    i = i.add(_set("foo", "foobar"))
    assert i.admits(_set("bar", "foobar"))
    i = i.add(_set("bar", "foobar"))
    assert i.groups == {"foobar"}
    assert not i.admits(_set("baz"))
    assert i.admits(_set("qux", "foobar"))


def test_compatibility_group_intersection_no_groups_stacking():
    i = Intersection()
    for _ in range(3):
        assert i.admits(_set())
        i = i.add(_set())
    assert not i.admits(_set("mig"))


# Compatibility groups in the allocator ----------------------------------------------------------

def part(name: str, groups: list | None = None, counter_set: str = "gpu-0", each: str = "4") -> dict:
    consumption: dict = {"counterSet": counter_set, "counters": {"mem": {"value": each}}}
    if groups is not None:
        consumption["compatibilityGroups"] = groups
    return {"name": name, "consumesCounters": [consumption]}


def pool(node_name: str, *parts: dict, counter_sets: tuple = ("gpu-0",), room: str = "8") -> list:
    """A counter-set slice and a device slice of one pool (compatGroupsSlices): room for two devices."""
    counters = resource_slice(f"{node_name}-counters", [], node=node_name, pool=node_name, count=2, sharedCounters=[
        {"name": name, "counters": {"mem": {"value": room}}} for name in counter_sets])
    return [counters, resource_slice(f"{node_name}-devices", list(parts), node=node_name, pool=node_name, count=2)]


def in_use(name: str, *device_names: str, node_name: str = "node-1") -> dict:
    results = [{"request": "gpu", "driver": "gpu.example.com", "pool": node_name, "device": d} for d in device_names]
    return claim(name, request("gpu", count=len(device_names)), allocation={"devices": {"results": results}})


def test_compatible_devices_are_allocated_together(tmp_path, capsys):
    objects = [GPU, *pool("node-1", part("dev-0", ["mig"]), part("dev-1", ["mig"])),
               claim("c", request("gpu", count=2)), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0", "dev-1"]]


def test_disjoint_groups_are_not_allocated_together(tmp_path, capsys):
    objects = [GPU, *pool("node-1", part("dev-0", ["mig"]), part("dev-1", ["vgpu"])),
               claim("c", request("gpu", count=2)), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 1 and devices(report) == [None] and report["error"] is None
    objects[-2] = claim("c", request("gpu", count=1))
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0"]]


def test_the_claim_goes_to_the_node_with_a_compatible_pair(tmp_path, capsys):
    objects = [GPU, *pool("node-a", part("dev-0", ["mig"]), part("dev-1", ["vgpu"])),
               *pool("node-b", part("dev-0", ["mig"]), part("dev-1", ["mig"])),
               claim("c", request("gpu", count=2)), node("node-a"), node("node-b")]
    code = cli.main(["allocate", write(tmp_path / "in.json", objects), "--all-nodes", "-o", "json", *V137, *GROUPS_ON])
    reports = {r["node"]: r for r in json.loads(capsys.readouterr().out)}
    assert code == 0 and not reports["node-a"]["allocated"] and devices(reports["node-b"]) == [["dev-0", "dev-1"]]
    # The first claim took node-b's counter set: a second one fits nowhere.
    objects.insert(-3, in_use("first", "dev-0", "dev-1", node_name="node-b"))
    code = cli.main(["allocate", write(tmp_path / "in.json", objects), "--all-nodes", "-o", "json", *V137, *GROUPS_ON])
    assert code == 1 and not any(r["allocated"] for r in json.loads(capsys.readouterr().out))


def test_the_intersection_narrows_as_devices_join(tmp_path, capsys):
    parts = [part("dev-0", ["foo", "foobar"]), part("dev-1", ["bar", "foobar"]), part("dev-2", ["baz"])]
    objects = [GPU, *pool("node-1", *parts, room="12"), claim("c", request("gpu", count=3)), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 1
    parts[2] = part("dev-2", ["qux", "foobar"])
    objects[1:3] = pool("node-1", *parts, room="12")
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0", "dev-1", "dev-2"]]


def test_devices_without_groups_stack_but_do_not_mix_with_grouped_ones(tmp_path, capsys):
    parts = [part("dev-0"), part("dev-1", []), part("dev-2", ["mig"])]  # null and [] both mean no groups
    objects = [GPU, *pool("node-1", *parts, room="12"), claim("c", request("gpu", count=2)), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0", "dev-1"]]
    objects[-2] = claim("c", request("gpu", count=3))
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 1


def test_allocated_devices_seed_the_intersection(tmp_path, capsys):
    parts = [part("dev-0", ["mig"]), part("dev-1", ["vgpu"]), part("dev-2"), part("dev-3", ["mig", "x"])]
    objects = [GPU, *pool("node-1", *parts, room="16"), in_use("other", "dev-0"), claim("c", request("gpu")),
               node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-3"]]
    objects[-2] = claim("c", request("gpu", count=2))
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 1
    reasons = removed(report)
    assert [e["device"] for e in reasons["incompatible with the devices allocated on its counter set"]["examples"]] == \
        ["gpu.example.com/node-1/dev-1", "gpu.example.com/node-1/dev-2"]


def test_devices_on_different_counter_sets_are_not_compared(tmp_path, capsys):
    objects = [GPU, *pool("node-1", part("dev-0", ["mig"]), part("dev-1", ["vgpu"], counter_set="gpu-1"),
                          counter_sets=("gpu-0", "gpu-1")),
               claim("c", request("gpu", count=2)), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0", "dev-1"]]


def test_backtracking_restores_the_intersection(tmp_path, capsys):
    # First fit takes dev-0, which matches nothing; the search must undo it to find dev-1 + dev-2.
    parts = [part("dev-0", ["a"]), part("dev-1", ["b"]), part("dev-2", ["b", "c"])]
    objects = [GPU, *pool("node-1", *parts, room="12"), claim("c", request("gpu", count=2)), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-1", "dev-2"]]


def test_a_candidate_rejected_later_leaves_no_groups_behind(tmp_path, capsys):
    # dev-0 passes the group check, then its taint rejects it: 1.37 rolls its groups (and counters) back.
    tainted = {**part("dev-0", ["a"]), "taints": [{"key": "k", "value": "v", "effect": "NoSchedule"}]}
    objects = [GPU, *pool("node-1", tainted, part("dev-1", ["b"]), room="8"), claim("c", request("gpu")),
               node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-1"]]


def test_two_claims_share_the_intersection(tmp_path, capsys):
    parts = [part("dev-0", ["a"]), part("dev-1", ["b"]), part("dev-2", ["a"])]
    objects = [GPU, *pool("node-1", *parts, room="12"), claim("c1", request("gpu")), claim("c2", request("gpu")),
               node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0"], ["dev-2"]]


def test_another_share_of_an_allocated_device_is_not_checked_again(tmp_path, capsys):
    # The slice changed after allocation: dev-0 (shared) and dev-1 now declare disjoint groups. A further
    # share of dev-0 charges no counters and is not checked against the groups; dev-1's peers are.
    shared = {**part("dev-0", ["mig"]), "allowMultipleAllocations": True, "capacity": {"mem": {"value": "10"}}}
    share = {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "dev-0",
             "shareID": "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa", "consumedCapacity": {"mem": "1"}}
    other = {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "dev-1"}
    objects = [GPU, *pool("node-1", shared, part("dev-1", ["vgpu"]), part("dev-2", ["vgpu"]), room="12"),
               claim("old", request("gpu", count=2), allocation={"devices": {"results": [share, other]}}),
               claim("c", request("gpu", capacity={"requests": {"mem": "1"}})), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0"]]
    objects[-2] = claim("c", request("gpu", "gpu.example.com", 1, 'device.allowMultipleAllocations == false'))
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 1  # dev-2 {vgpu} meets an empty intersection of {mig} and {vgpu}


# Version skew: the scheduler's gate off while the API server kept the groups.

def test_gate_off_ignores_a_slice_with_a_grouped_device(tmp_path, capsys):
    # v1.37.2's GatherPools (every implementation) ignores a slice with a grouped device while the gate is
    # off, and does not count it towards the pool's slices: the pool is incomplete, so not even its devices
    # without groups are allocated (the real v1.37.2 allocator answers so: tests/allocator_differential.py).
    parts = [part("dev-0", ["mig"]), part("dev-1"), part("dev-2")]
    objects = [GPU, *pool("node-1", *parts, room="12"), claim("c", request("gpu")), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0"]]
    code, report = allocate(capsys, tmp_path, objects, *V137)  # DRADeviceCompatibilityGroups: 1.37 default off
    assert code == 1 and devices(report) == [None] and report["error"] is None
    why = removed(report)["pool not usable"]["examples"][0]["why"]
    assert why == ("pool gpu.example.com/node-1 is incomplete: the scheduler ignores slice node-1-devices, whose "
                   "devices declare compatibility groups, with DRADeviceCompatibilityGroups off")


def test_gate_off_leaves_the_pool_incomplete_and_other_pools_usable(tmp_path, capsys):
    # The grouped devices are in a slice of their own: the pool's other device slice is not enough, the
    # pool stays incomplete; a pool without groups on the same node is allocated from.
    counters = resource_slice("node-1-counters", [], node="node-1", pool="node-1", count=3, sharedCounters=[
        {"name": "gpu-0", "counters": {"mem": {"value": "16"}}}])
    plain = resource_slice("node-1-a", [part("dev-0")], node="node-1", pool="node-1", count=3)
    grouped = resource_slice("node-1-b", [part("dev-1", ["mig"])], node="node-1", pool="node-1", count=3)
    other = resource_slice("other", [{"name": "dev-9"}], node="node-1", pool="other", count=1)
    objects = [GPU, counters, plain, grouped, claim("c", request("gpu")), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137, *GROUPS_ON)
    assert code == 0 and devices(report) == [["dev-0"]]
    code, report = allocate(capsys, tmp_path, objects, *V137)
    assert code == 1 and devices(report) == [None]
    code, report = allocate(capsys, tmp_path, [*objects[:-2], other, *objects[-2:]], *V137)
    assert code == 0 and devices(report) == [["dev-9"]]


def test_every_allocator_ignores_slices_with_groups(tmp_path, capsys):
    # The stable allocator (no beta allocator feature on) and the incubating one (1.37's defaults) alike.
    objects = [GPU, *pool("node-1", part("dev-0", ["mig"]), part("dev-1")), claim("c", request("gpu")),
               node("node-1")]
    stable = ("--feature-gates", "DRAConsumableCapacity=false,DRADeviceBindingConditions=false")
    for gates in (stable, ()):
        code, report = allocate(capsys, tmp_path, objects, *V137, *gates)
        assert code == 1 and "pool not usable" in removed(report)


def test_groups_mean_nothing_to_a_1_36_scheduler(tmp_path, capsys):
    objects = [GPU, *pool("node-1", part("dev-0", ["mig"]), part("dev-1", ["vgpu"])),
               claim("c", request("gpu", count=2)), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects)
    assert code == 0 and devices(report) == [["dev-0", "dev-1"]]


# Derived attributes -----------------------------------------------------------------------------

def _numa_slice(name: str, driver: str, key: str, values: dict) -> dict:
    return resource_slice(name, [{"name": device, "attributes": {key: {"string": value}}}
                                 for device, value in values.items()], driver=driver, pool=name)


def _two_drivers() -> list:
    """testDerivedAttributes: two drivers name the NUMA node differently."""
    return [device_class("class-a", 'device.driver == "driver-a.example.com"'),
            device_class("class-b", 'device.driver == "driver-b.example.com"'),
            _numa_slice("slice-a", "driver-a.example.com", "dra.example.com/numa",
                        {"device-a1": "numa-0", "device-a2": "numa-1"}),
            _numa_slice("slice-b", "driver-b.example.com", "dra.example.com/numaNode",
                        {"device-b1": "numa-1", "device-b2": "numa-2"}),
            node("node-1")]


def _derived(name: str, expression: str) -> list:
    return [{"name": name, "expression": expression}]


def _numa_claim() -> dict:
    return claim("c", request("req-a", "class-a", derivedAttributes=_derived(
                     "derived/sharedNumaNode", 'device.attributes["dra.example.com"].numa')),
                 request("req-b", "class-b", derivedAttributes=_derived(
                     "derived/sharedNumaNode", 'device.attributes["dra.example.com"].numaNode')),
                 constraints=[{"requests": ["req-a", "req-b"], "matchAttribute": "derived/sharedNumaNode"}])


def test_derived_attributes_align_devices_of_two_drivers(tmp_path, capsys):
    code, report = allocate(capsys, tmp_path, [*_two_drivers(), _numa_claim()], *V137, *DERIVED_ON)
    assert code == 0 and devices(report) == [["device-a2", "device-b1"]]


def test_derived_attributes_with_the_scheduler_gate_off_are_an_error(tmp_path, capsys):
    code, report = allocate(capsys, tmp_path, [*_two_drivers(), _numa_claim()], *V137)
    assert code == 1
    assert report["error"] == ("claim default/c, request req-a: cannot handle request with derived attributes, "
                               "the feature is disabled")


def test_derived_attributes_are_unknown_to_1_36(tmp_path, capsys):
    # A 1.36 scheduler does not know the field: the constraint names an attribute no device has.
    code, report = allocate(capsys, tmp_path, [*_two_drivers(), _numa_claim()])
    assert code == 1 and report["error"] is None and devices(report) == [None]


def _numa_gpus() -> list:
    return [GPU, resource_slice("s", [{"name": f"gpu-{i}", "attributes": {"numa": {"int": n}, "index": {"int": i}}}
                                      for i, n in enumerate((0, 1, 1, 2))]), node("node-1")]


def test_a_derived_attribute_shadows_the_driver_attribute_for_its_request_only(tmp_path, capsys):
    same_numa = [{"matchAttribute": "gpu.example.com/numa"}]
    plain = claim("c", request("a"), request("b"), constraints=same_numa)
    code, report = allocate(capsys, tmp_path, [*_numa_gpus(), plain], *V137, *DERIVED_ON)
    assert code == 0 and devices(report) == [["gpu-1", "gpu-2"]]
    shifted = claim("c", request("a", derivedAttributes=_derived(
        "gpu.example.com/numa", 'device.attributes["gpu.example.com"].numa + 1')), request("b"), constraints=same_numa)
    code, report = allocate(capsys, tmp_path, [*_numa_gpus(), shifted], *V137, *DERIVED_ON)
    assert code == 0 and devices(report) == [["gpu-0", "gpu-1"]]  # a: numa 0 counts as 1; b: gpu-1 has numa 1


def test_a_derived_attribute_with_distinct_attribute(tmp_path, capsys):
    pairs = claim("c", request("a", count=2, derivedAttributes=_derived(
        "derived/pair", 'device.attributes["gpu.example.com"].index / 2')),
        constraints=[{"distinctAttribute": "derived/pair"}])
    code, report = allocate(capsys, tmp_path, [*_numa_gpus(), pairs], *V137, *DERIVED_ON)
    assert code == 0 and devices(report) == [["gpu-0", "gpu-2"]]


def test_a_derived_attribute_on_a_subrequest(tmp_path, capsys):
    sub = {"name": "r", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu.example.com", "count": 4},
        {"name": "small", "deviceClassName": "gpu.example.com", "count": 2,
         "derivedAttributes": _derived("derived/top", 'device.attributes["gpu.example.com"].index >= 2')}]}
    objects = [*_numa_gpus(), claim("c", sub, constraints=[{"requests": ["r"], "matchAttribute": "derived/top"}])]
    code, report = allocate(capsys, tmp_path, objects, *V137, *DERIVED_ON)
    # "big" needs derived/top, which only "small" defines: no device has it, so "small" gets gpu-0 and gpu-1.
    assert code == 0 and devices(report) == [["gpu-0", "gpu-1"]]
    assert report["claims"][0]["allocation"]["devices"]["results"][0]["request"] == "r/small"


def test_a_derived_list_value_matches_by_intersection(tmp_path, capsys):
    numa = 'int(device.attributes["gpu.example.com"].numa)'
    near = claim("c", request("a", derivedAttributes=_derived("gpu.example.com/numa", f"[{numa}, {numa} + 2]")),
        request("b", "gpu.example.com", 1, 'device.attributes["gpu.example.com"].index == 3'),
        constraints=[{"matchAttribute": "gpu.example.com/numa"}])
    gates = ("--feature-gates", "DRADerivedAttributes=true,DRAListTypeAttributes=true")
    code, report = allocate(capsys, tmp_path, [*_numa_gpus(), near], *V137, *gates)
    assert code == 0 and devices(report) == [["gpu-0", "gpu-3"]]  # gpu-0: [0, 2] meets gpu-3's numa 2


def test_a_derived_attribute_that_fails_to_evaluate_stops_the_allocation(tmp_path, capsys):
    broken = claim("c", request("a", derivedAttributes=_derived(
        "derived/x", 'device.attributes["gpu.example.com"].missing')), constraints=[{"matchAttribute": "derived/x"}])
    code, report = allocate(capsys, tmp_path, [*_numa_gpus(), broken], *V137, *DERIVED_ON)
    assert code == 1
    assert report["error"].startswith("evaluate derived attribute derived/x on device gpu.example.com/node-1/gpu-0 "
                                      "failed: ")
    assert "missing" in report["error"]


def test_a_derived_attribute_that_does_not_compile_stops_the_allocation(tmp_path, capsys):
    mixed = claim("c", request("a", derivedAttributes=_derived("derived/x", '[1, "a"]')),
                  constraints=[{"matchAttribute": "derived/x"}])
    code, report = allocate(capsys, tmp_path, [*_numa_gpus(), mixed], *V137, *DERIVED_ON)
    assert code == 1 and report["error"].startswith("compile derived attribute derived/x failed: compilation failed")


# Optional node operations (1.37: a device of a slice with skipNodeOperations) ---------------------

def test_skip_node_operations_needs_the_gate_and_a_node_declaring_it(tmp_path, capsys):
    skipping = resource_slice("s", [{"name": "gpu-0"}], skipNodeOperations=["NodePrepareResources",
                                                                               "NodeUnprepareResources"])
    declaring = {**node("node-1"), "status": {"declaredFeatures": ["DRAOptionalNodeOperations"]}}
    gate = ("--feature-gates", "DRAOptionalNodeOperations=true")
    code, report = allocate(capsys, tmp_path, [GPU, skipping, claim("c", request("gpu")), declaring], *V137, *gate)
    assert code == 0 and report["claims"][0]["allocation"]["devices"]["results"][0]["skipNodeOperations"] == [
        "NodePrepareResources", "NodeUnprepareResources"]
    code, report = allocate(capsys, tmp_path, [GPU, skipping, claim("c", request("gpu")), node("node-1")], *V137, *gate)
    assert code == 1 and "DRAOptionalNodeOperations" in removed(report)["feature disabled"]["examples"][0]["why"]
    # With the gate off, only the experimental allocator (picked for another alpha feature) skips the
    # device; 1.37's default incubating allocator does not know the field: it allocates the device and writes
    # no skipNodeOperations (the real v1.37.2 allocator answers so: tests/allocator_differential.py).
    experimental = ("--feature-gates", "DRAListTypeAttributes=true")
    code, report = allocate(capsys, tmp_path, [GPU, skipping, claim("c", request("gpu")), declaring], *V137,
                            *experimental)
    assert code == 1
    code, report = allocate(capsys, tmp_path, [GPU, skipping, claim("c", request("gpu")), declaring], *V137)
    assert code == 0 and "skipNodeOperations" not in report["claims"][0]["allocation"]["devices"]["results"][0]


def test_an_incomplete_pools_reason_is_worked_out_once_per_slice(tmp_path, capsys, monkeypatch):
    """The "pool not usable" explanation looked at every slice of the cluster for each device of an incomplete
    pool (and on every release): quadratic in a dump's size. It is now asked once per slice, and the cluster's
    slices are walked only where the skew can apply. Counted, not timed."""
    from webhook.allocation import compatibility

    calls = []
    real = compatibility.slice_uses_groups
    monkeypatch.setattr(compatibility, "slice_uses_groups", lambda s: calls.append(s) or real(s))
    slices = [resource_slice(f"node-1-{i}", [{"name": f"dev-{i}-{j}"} for j in range(8)], node="node-1",
                             pool="node-1", count=20) for i in range(6)]  # 6 of 20 slices: incomplete
    objects = [GPU, *slices, claim("c", request("gpu")), node("node-1")]
    code, report = allocate(capsys, tmp_path, objects, *V137)
    assert code == 1 and "pool not usable" in removed(report)
    explained = len(calls)
    assert explained <= 6 * 6 * 2, explained  # at most every slice, once per slice (and the allocator's own)
    calls.clear()
    code, report = allocate(capsys, tmp_path, objects, "--kubernetes-version", "1.36")
    assert code == 1 and "pool not usable" in removed(report)
    assert len(calls) <= 6 * 2, len(calls)  # no skew in 1.36: the explanation does not walk the slices
