"""What a claim takes from the node (DRANodeAllocatableResources, 1.36): the seed's worked examples,
the fit against the Node's allocatable, and the note when the gate is off."""

from __future__ import annotations

import json

import pytest

from allocation_objects import claim, device_class, node, request, resource_slice, write
from webhook import cli

ON = ("--feature-gates", "DRANodeAllocatableResources=true")
CLASS = device_class("dev", 'device.driver == "gpu.example.com"')


def run(capsys, tmp_path, objects: list, *argv: str) -> tuple[int, dict]:
    code = cli.main(["allocate", write(tmp_path / "in.json", objects), "--output", "json", *argv])
    return code, json.loads(capsys.readouterr().out)


def devices(count: int, mappings: dict, **extra) -> list:
    return [{"name": f"dev-{i}", "nodeAllocatableResourceMappings": mappings, **extra} for i in range(count)]


@pytest.mark.parametrize("mappings, count, expected", [
    ({"cpu": {"allocationMultiplier": "2"}}, 4, {"cpu": "8"}),  # a CPU core per device, 2 cpu each
    ({"memory": {"allocationMultiplier": "2Gi"}}, 2, {"memory": "4Gi"}),  # host memory per GPU
    ({"cpu": {"allocationMultiplier": "500m"}}, 3, {"cpu": "1500m"}),  # fractional multipliers
])
def test_device_count_times_multiplier(tmp_path, capsys, mappings, count, expected):
    objects = [CLASS, resource_slice("s", devices(count, mappings)), claim("c", request("r", "dev", count)),
               node("node-1")]
    code, report = run(capsys, tmp_path, objects, *ON)
    assert code == 0
    assert report["claims"][0]["nodeAllocatable"] == expected
    assert report["nodeAllocatable"] == expected


def _shared(capacity_name: str, value: str, mapping: dict) -> dict:
    return {"name": "pool-0", "allowMultipleAllocations": True, "capacity": {capacity_name: {"value": value}},
            "nodeAllocatableResourceMappings": mapping}


def test_consumed_capacity_times_multiplier(tmp_path, capsys):
    device = _shared("dra.example.com/cores", "64", {"cpu": {"capacityKey": "dra.example.com/cores",
                                                             "allocationMultiplier": "2"}})
    objects = [CLASS, resource_slice("s", [device]),
               claim("c", request("r", "dev", capacity={"requests": {"dra.example.com/cores": "8"}})), node("node-1")]
    code, report = run(capsys, tmp_path, objects, *ON)
    assert code == 0 and report["claims"][0]["nodeAllocatable"] == {"cpu": "16"}


def test_consumed_capacity_with_the_multiplier_defaulted(tmp_path, capsys):
    device = _shared("dra.example.com/memory", "128Gi", {"memory": {"capacityKey": "dra.example.com/memory"}})
    objects = [CLASS, resource_slice("s", [device]),
               claim("c", request("r", "dev", capacity={"requests": {"dra.example.com/memory": "4Gi"}})),
               node("node-1")]
    code, report = run(capsys, tmp_path, objects, *ON)
    assert code == 0 and report["claims"][0]["nodeAllocatable"] == {"memory": "4Gi"}


def test_shared_device_counts_once_per_allocation(tmp_path, capsys):
    device = _shared("dra.example.com/cores", "64", {"cpu": {"capacityKey": "dra.example.com/cores"}})
    want = {"capacity": {"requests": {"dra.example.com/cores": "4"}}}
    objects = [CLASS, resource_slice("s", [device]), claim("a", request("r", "dev", **want)),
               claim("b", request("r", "dev", **want)), node("node-1")]
    code, report = run(capsys, tmp_path, objects, *ON)
    assert code == 0
    assert [c["nodeAllocatable"] for c in report["claims"]] == [{"cpu": "4"}, {"cpu": "4"}]
    assert report["nodeAllocatable"] == {"cpu": "8"}


def test_capacity_key_on_a_dedicated_device_is_reported(tmp_path, capsys):
    device = {"name": "dev-0", "capacity": {"dra.example.com/cores": {"value": "8"}},
              "nodeAllocatableResourceMappings": {"cpu": {"capacityKey": "dra.example.com/cores"}}}
    objects = [CLASS, resource_slice("s", [device]), claim("c", request("r", "dev")), node("node-1")]
    code, report = run(capsys, tmp_path, objects, *ON)
    assert code == 0 and report["claims"][0]["nodeAllocatable"] == {}
    assert "consumes no capacity" in report["claims"][0]["nodeAllocatableProblems"][0]


def test_fits_and_does_not_fit_against_allocatable_and_bound_pods(tmp_path, capsys):
    busy = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
            "spec": {"nodeName": "node-1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "4"}}}]}}
    host = {**node("node-1"), "status": {"allocatable": {"cpu": "10", "memory": "32Gi"}}}
    base = [CLASS, resource_slice("s", devices(4, {"cpu": {"allocationMultiplier": "2"}})), host]
    code, report = run(capsys, tmp_path, base + [claim("c", request("r", "dev", 2))], *ON)
    assert report["nodeAllocatableFit"] == {"fits": True, "free": {"cpu": "10"}, "short": {}}
    assert code == 0
    code, report = run(capsys, tmp_path, base + [busy, claim("c", request("r", "dev", 4))], *ON)
    assert report["nodeAllocatableFit"] == {"fits": False, "free": {"cpu": "6"}, "short": {"cpu": "2"}}
    assert code == 1 and report["allocated"] is True  # allocated, but the scheduler's node fit fails
    cli.main(["allocate", write(tmp_path / "t.json", base + [busy, claim("c", request("r", "dev", 4))]), *ON])
    text = capsys.readouterr().out
    assert "    takes from node-1: cpu 8\n" in text
    assert "  does not fit on node node-1: short by cpu 2 (left: cpu 6)\n" in text


def test_gate_off_gives_no_footprint_and_says_which_gate(tmp_path, capsys):
    objects = [CLASS, resource_slice("s", devices(1, {"cpu": {"allocationMultiplier": "2"}})),
               claim("c", request("r", "dev")), node("node-1")]
    code, report = run(capsys, tmp_path, objects)
    assert code == 0 and "nodeAllocatable" not in report and "nodeAllocatable" not in report["claims"][0]
    assert report["notes"] == ["devices map node-allocatable resources, but the footprint is not counted: "
                               "DRANodeAllocatableResources is off (enable it with --feature-gates "
                               "DRANodeAllocatableResources=true)"]


def test_review_explain_prints_each_device_footprint_per_allocation(tmp_path, capsys):
    cores = _shared("dra.example.com/cores", "64", {"cpu": {"capacityKey": "dra.example.com/cores",
                                                            "allocationMultiplier": "2"}})
    gpu = {"name": "gpu-0", "nodeAllocatableResourceMappings": {"memory": {"allocationMultiplier": "2Gi"}}}
    path = write(tmp_path / "s.json", [resource_slice("s", [cores, gpu, {"name": "plain"}])])
    code = cli.main(["review", "--explain", path])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0
    assert lines[-2:] == [
        f"{path}#0.items[0]: ResourceSlice/s: device pool-0 takes from its node per allocation: "
        "cpu = consumed dra.example.com/cores x 2, at most 128",
        f"{path}#0.items[0]: ResourceSlice/s: device gpu-0 takes from its node per allocation: "
        "memory 2Gi per allocated device"]


def test_the_footprint_example_is_the_readme_one(capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    code = cli.main(["allocate", str(root / "examples" / "footprint"), *ON])
    out = capsys.readouterr().out
    assert code == 1
    assert "    takes from node-1: cpu 8, memory 1Gi\n" in out
    assert out in (root / "docs" / "guides" / "allocate.md").read_text()


def test_bound_pods_count_as_the_1_36_scheduler_sums_them():
    """PodRequests (component-helpers v0.36) with UseDRANodeAllocatableResourceClaimStatus, which the 1.36
    scheduler's NodeInfo uses with the gate on: a sidecar runs beside the containers (an init container only
    before them), and each claim status's `resources` are added. Summing the largest init container alone
    and no claim status undercounted what the node has left."""
    from decimal import Decimal

    from webhook.allocation.footprint import pod_requests

    pod = {"spec": {"initContainers": [{"name": "sidecar", "restartPolicy": "Always",
                                        "resources": {"requests": {"cpu": "1"}}},
                                       {"name": "init", "resources": {"requests": {"cpu": "3"}}}],
                    "containers": [{"name": "app", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}}]},
           "status": {"nodeAllocatableResourceClaimStatuses": [
               {"resourceClaimName": "pinned", "containers": ["app"], "resources": {"cpu": "4", "memory": "2Gi"}}]}}
    # containers: app 2 + sidecar 1 = 3; init phase: init 3 + sidecar 1 = 4; max 4; plus the claim's 4 cpu
    assert pod_requests(pod) == {"cpu": Decimal(8), "memory": Decimal(3 * 2 ** 30)}
