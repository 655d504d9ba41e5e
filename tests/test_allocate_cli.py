"""`dra-webhook allocate`: results, one test per explanation reason, --all-nodes, templates, claims in
use, stdin, gates and exit codes 0 / 1 / 2."""

from __future__ import annotations

import io
import json

import pytest

from allocation_objects import claim, device_class, gpu, node, request, resource_slice, template, write
from webhook import cli

GPU_CLASS = device_class("gpu.example.com", 'device.driver == "gpu.example.com"')
A100 = 'device.attributes["gpu.example.com"].model == "a100"'


def allocate(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    code = cli.main(["allocate", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def allocate_json(capsys, tmp_path, objects: list, *argv: str):
    code, out, err = allocate(capsys, write(tmp_path / "in.json", objects), "--output", "json", *argv)
    return code, (json.loads(out) if out.strip() else None), err


def removed(report: dict, claim_index: int = 0, request_index: int = 0) -> dict:
    explanation = report["claims"][claim_index]["explanation"][request_index]
    return {entry["reason"]: entry for entry in explanation["removed"]}


def two_gpus(node_name: str = "node-1", **device_extra) -> dict:
    return resource_slice(f"{node_name}-gpus", [gpu("gpu-0", **device_extra), gpu("gpu-1", **device_extra)],
                          node=node_name)


def test_allocates_first_fit_and_writes_the_allocation_result(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus(), claim("c", request("gpu", "gpu.example.com", 2, A100)), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0 and report["allocated"] is True and report["error"] is None and report["node"] == "node-1"
    allocation = report["claims"][0]["allocation"]
    assert [r["device"] for r in allocation["devices"]["results"]] == ["gpu-0", "gpu-1"]
    assert allocation["nodeSelector"] == {"nodeSelectorTerms": [{"matchFields": [
        {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]}
    assert report["claims"][0]["explanation"] == []


def test_class_config_lands_in_the_allocation(tmp_path, capsys):
    opaque = {"opaque": {"driver": "gpu.example.com", "parameters": {"mode": "fast"}}}
    objects = [device_class("gpu.example.com", 'device.driver == "gpu.example.com"', config=[opaque]), two_gpus(),
               claim("c", request("gpu")), node("node-1")]
    _, report, _ = allocate_json(capsys, tmp_path, objects)
    assert report["claims"][0]["allocation"]["devices"]["config"] == [
        {"source": "FromClass", "requests": ["gpu"], **opaque}]


# One test per explanation reason ----------------------------------------------------------------

def test_reason_on_another_node(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus("node-2"), claim("c", request("gpu")), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1 and report["allocated"] is False and report["error"] is None
    entry = removed(report)["on another node"]
    assert entry["count"] == 2 and entry["examples"][0]["why"] == "slice node-2-gpus is for node node-2"


def test_reason_node_selector_of_the_slice(tmp_path, capsys):
    selector = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["b"]}]}]}
    objects = [GPU_CLASS, resource_slice("zone-b", [gpu("gpu-0")], node=None, pool="zone-b", nodeSelector=selector),
               claim("c", request("gpu")), node("node-1", zone="a")]
    _, report, _ = allocate_json(capsys, tmp_path, objects)
    assert "does not match node node-1" in removed(report)["on another node"]["examples"][0]["why"]


def test_reason_class_selector_false_names_the_selector(tmp_path, capsys):
    objects = [device_class("h100", 'device.driver == "gpu.example.com"', 'device.attributes["gpu.example.com"]'
                            '.model == "h100"'), two_gpus(), claim("c", request("gpu", "h100")), node("node-1")]
    _, report, _ = allocate_json(capsys, tmp_path, objects)
    entry = removed(report)["class selector false"]
    assert entry["count"] == 2
    assert entry["examples"][0] == {"device": "gpu.example.com/node-1/gpu-0", "why": 'class h100 selectors[1] is false: '
                                    'device.attributes["gpu.example.com"].model == "h100"'}


def test_reason_request_selector_false_with_quantities(tmp_path, capsys):
    big = 'device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0'
    objects = [GPU_CLASS, two_gpus(), claim("c", request("gpu", "gpu.example.com", 1, big)), node("node-1")]
    _, report, _ = allocate_json(capsys, tmp_path, objects)
    assert removed(report)["request selector false"]["count"] == 2
    assert report["claims"][0]["explanation"][0]["usable"] == 0


def test_reason_already_allocated_names_the_claim_in_use(tmp_path, capsys):
    in_use = claim("training", request("gpu"), namespace="ml", allocation={"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-1"}]}})
    objects = [GPU_CLASS, two_gpus(), in_use, claim("c", request("gpu")), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1 and [c["name"] for c in report["claims"]] == ["c"]
    assert removed(report)["already allocated"]["examples"][0]["why"] == "allocated to claim ml/training"


def test_admin_access_results_reserve_nothing(tmp_path, capsys):
    in_use = claim("monitor", request("gpu", adminAccess=True), allocation={"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", "adminAccess": True}]}})
    objects = [GPU_CLASS, two_gpus(), in_use, claim("c", request("gpu", count=2)), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0 and report["allocated"] is True


def test_reason_tainted_and_toleration(tmp_path, capsys):
    taint = {"key": "maintenance", "value": "true", "effect": "NoSchedule"}
    objects = [GPU_CLASS, two_gpus(taints=[taint]), claim("c", request("gpu")), node("node-1")]
    _, report, _ = allocate_json(capsys, tmp_path, objects)
    assert removed(report)["tainted without a matching toleration"]["examples"][0]["why"] == \
        "taint maintenance=true:NoSchedule is not tolerated"
    toleration = {"key": "maintenance", "operator": "Exists", "effect": "NoSchedule"}
    objects[2] = claim("c", request("gpu", tolerations=[toleration]))
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0 and report["claims"][0]["allocation"]["devices"]["results"][0]["tolerations"] == [toleration]


def _partitions() -> list:
    counters = resource_slice("counters", [], pool="node-1", sharedCounters=[
        {"name": "gpu-0-mem", "counters": {"memory": {"value": "40Gi"}}}])
    parts = [{"name": f"gpu-0-part-{i}", "consumesCounters": [{"counterSet": "gpu-0-mem", "counters": {
        "memory": {"value": "20Gi"}}}]} for i in range(3)]
    devices = resource_slice("parts", parts, pool="node-1")
    counters["spec"]["pool"]["resourceSliceCount"] = devices["spec"]["pool"]["resourceSliceCount"] = 2
    return [counters, devices]


def test_reason_counters_exhausted(tmp_path, capsys):
    in_use = claim("other", request("gpu"), allocation={"devices": {"results": [
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0-part-0"},
        {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0-part-1"}]}})
    objects = [GPU_CLASS, *_partitions(), in_use, claim("c", request("gpu")), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1
    reasons = removed(report)
    assert reasons["already allocated"]["count"] == 2
    assert reasons["counters exhausted"]["examples"] == [
        {"device": "gpu.example.com/node-1/gpu-0-part-2", "why": "gpu-0-mem/memory needs 20Gi, 0 left"}]


def test_partitions_share_counters_within_one_claim(tmp_path, capsys):
    objects = [GPU_CLASS, *_partitions(), claim("c", request("gpu", count=2)), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0
    objects[-2] = claim("c", request("gpu", count=3))
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1 and report["claims"][0]["explanation"][0]["usable"] == 3
    assert "enough usable devices" in report["claims"][0]["explanation"][0]["note"]


def test_reason_capacity_or_policy_and_shared_allocation(tmp_path, capsys):
    policy = {"default": "1Gi", "validRange": {"min": "1Gi", "max": "8Gi", "step": "1Gi"}}
    nic = {"name": "nic-0", "allowMultipleAllocations": True,
           "capacity": {"bandwidth": {"value": "10Gi", "requestPolicy": policy}}}
    objects = [device_class("nic", 'device.driver == "gpu.example.com"'),
               resource_slice("nics", [nic], node="node-1"),
               claim("c", request("nic", "nic", capacity={"requests": {"bandwidth": "12Gi"}})), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1
    assert removed(report)["capacity or policy"]["examples"][0]["why"] == \
        "bandwidth: 12Gi is not allowed by the device's request policy"
    objects[2] = claim("c", request("nic", "nic", capacity={"requests": {"bandwidth": "1500Mi"}}))
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    result = report["claims"][0]["allocation"]["devices"]["results"][0]
    assert code == 0 and result["consumedCapacity"] == {"bandwidth": "2Gi"} and len(result["shareID"]) == 36


def test_shared_allocation_in_use_counts_its_consumed_capacity(tmp_path, capsys):
    nic = {"name": "nic-0", "allowMultipleAllocations": True, "capacity": {"bandwidth": {"value": "10Gi"}}}
    in_use = claim("other", request("nic", "nic"), allocation={"devices": {"results": [
        {"request": "nic", "driver": "gpu.example.com", "pool": "node-1", "device": "nic-0",
         "shareID": "aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa", "consumedCapacity": {"bandwidth": "8Gi"}}]}})
    objects = [device_class("nic", 'device.driver == "gpu.example.com"'), resource_slice("nics", [nic]), in_use,
               claim("c", request("nic", "nic", capacity={"requests": {"bandwidth": "4Gi"}})), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1
    assert removed(report)["capacity or policy"]["examples"][0]["why"] == \
        "bandwidth: needs 4Gi, 10Gi total with 8Gi in use"


def test_reason_constraint_conflict(tmp_path, capsys):
    devices = [gpu("gpu-0"), {"name": "gpu-1", "attributes": {"model": {"string": "a100"}}}]
    constraint = [{"matchAttribute": "gpu.example.com/index", "requests": ["a", "b"]}]
    objects = [GPU_CLASS, resource_slice("gpus", devices), claim("c", request("a"), request("b"),
                                                                 constraints=constraint), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1
    entry = removed(report)["constraint conflict with another request"]
    assert entry["examples"][0]["why"] == "has no attribute gpu.example.com/index, which matchAttribute " \
                                          "gpu.example.com/index of requests a, b needs"


def test_distinct_attribute_needs_different_values(tmp_path, capsys):
    constraint = [{"distinctAttribute": "gpu.example.com/model"}]
    objects = [GPU_CLASS, two_gpus(), claim("c", request("gpu", count=2), constraints=constraint), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1
    assert "no combination satisfies the claim's constraints (distinctAttribute gpu.example.com/model)" in \
        report["claims"][0]["explanation"][0]["note"]


def test_incomplete_pool_is_not_usable(tmp_path, capsys):
    objects = [GPU_CLASS, resource_slice("half", [gpu("gpu-0")], count=2), claim("c", request("gpu")),
               node("node-1")]
    _, report, _ = allocate_json(capsys, tmp_path, objects)
    assert removed(report)["pool not usable"]["examples"][0]["why"].startswith("pool gpu.example.com/node-1 is "
                                                                                 "incomplete")


# Errors, nodes, templates, inputs, exit codes ---------------------------------------------------

def test_unknown_class_is_an_error_not_a_crash(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus(), claim("c", request("gpu", "nope")), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1 and report["allocated"] is False
    assert report["error"] == "claim default/c, request gpu: could not retrieve device class nope: not found"


def test_cel_runtime_error_is_reported(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus(), claim("c", request("gpu", "gpu.example.com", 1,
                                                         'device.attributes["gpu.example.com"].nope == 1')),
               node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1 and "selector #0: CEL runtime error: no such key" in report["error"]


def test_all_nodes_reports_each_node(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus("node-1"), resource_slice("node-2-gpus", [gpu("gpu-0", model="h100")],
                                                              node="node-2"),
               claim("c", request("gpu", "gpu.example.com", 1, A100)), node("node-3")]
    code, report, _ = allocate_json(capsys, tmp_path, objects, "--all-nodes")
    assert code == 0
    assert [(r["node"], r["allocated"]) for r in report] == [("node-3", False), ("node-1", True), ("node-2", False)]
    code, out, _ = allocate(capsys, write(tmp_path / "in.json", objects), "--all-nodes")
    assert out.startswith("1 of 3 nodes fit: node-1\n")
    objects[3] = claim("c", request("gpu", "gpu.example.com", 3))
    code, report, _ = allocate_json(capsys, tmp_path, objects, "--all-nodes")
    assert code == 1 and not any(r["allocated"] for r in report)


def test_node_by_name_without_a_node_object(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus("node-2"), claim("c", request("gpu"))]
    code, report, _ = allocate_json(capsys, tmp_path, objects, "--node", "node-2")
    assert code == 0 and report["node"] == "node-2"


def test_node_selector_in_slices_uses_node_labels(tmp_path, capsys):
    selector = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}
    objects = [GPU_CLASS, resource_slice("net", [gpu("gpu-0")], node=None, pool="net", nodeSelector=selector),
               claim("c", request("gpu")), node("node-1", zone="a")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0 and report["claims"][0]["allocation"]["nodeSelector"] == selector


def test_template_is_allocated_as_the_claim_it_creates(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus(), template("single-gpu", request("gpu")), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0 and report["claims"][0]["name"] == "single-gpu"


def test_older_versions_are_converted_and_defaulted(tmp_path, capsys):
    beta_claim = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim",
                  "metadata": {"name": "c", "namespace": "default"},
                  "spec": {"devices": {"requests": [{"name": "gpu", "deviceClassName": "gpu.example.com"}]}}}
    beta_slice = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceSlice", "metadata": {"name": "s"},
                  "spec": {"driver": "gpu.example.com", "nodeName": "node-1",
                           "pool": {"name": "p", "resourceSliceCount": 1},
                           "devices": [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "a100"}}}}]}}
    code, report, _ = allocate_json(capsys, tmp_path, [GPU_CLASS, beta_slice, beta_claim, node("node-1")])
    assert code == 0 and report["claims"][0]["allocation"]["devices"]["results"][0]["device"] == "gpu-0"


def test_stdin_yaml(capsys, monkeypatch):
    import yaml

    text = yaml.safe_dump_all([GPU_CLASS, two_gpus(), claim("c", request("gpu")), node("node-1")])
    code, out, _ = allocate(capsys, "-", stdin=text, monkeypatch=monkeypatch)
    assert code == 0
    assert out.splitlines()[:3] == ["node node-1: all claims allocated", "  claim default/c: allocated",
                                    "    gpu: gpu.example.com/node-1/gpu-0"]


def test_text_explains_a_pending_claim(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus("node-2"), claim("c", request("gpu")), node("node-1")]
    code, out, _ = allocate(capsys, write(tmp_path / "in.json", objects))
    assert code == 1
    assert out.splitlines() == [
        "node node-1: the claims cannot all be allocated on this node",
        "  claim default/c: not allocated",
        "    request gpu (class gpu.example.com, wants 1 device): 2 devices considered, 0 usable",
        "      2 on another node",
        "        gpu.example.com/node-2/gpu-0: slice node-2-gpus is for node node-2",
        "        gpu.example.com/node-2/gpu-1: slice node-2-gpus is for node node-2"]


def test_feature_gates_change_the_answer_and_locked_gates_warn(tmp_path, capsys):
    taint = {"key": "k", "value": "v", "effect": "NoSchedule"}
    objects = [GPU_CLASS, two_gpus(taints=[taint]), claim("c", request("gpu")), node("node-1")]
    assert allocate_json(capsys, tmp_path, objects)[0] == 1
    assert allocate_json(capsys, tmp_path, objects, "--feature-gates", "DRADeviceTaints=false")[0] == 0
    code, _, err = allocate_json(capsys, tmp_path, objects, "--feature-gates", "DRAAdminAccess=false")
    assert code == 1 and "locked to true" in err


@pytest.mark.parametrize("argv, message", [
    (["--feature-gates", "NoSuchGate=true"], "unrecognized feature gate"),
    (["--kubernetes-version", "1.20"], "unsupported Kubernetes version"),
])
def test_usage_errors_exit_2(tmp_path, capsys, argv, message):
    path = write(tmp_path / "in.json", [GPU_CLASS, node("node-1")])
    code, out, err = allocate(capsys, path, *argv)
    assert code == 2 and message in err and out == ""


def test_no_node_and_unreadable_input_exit_2(tmp_path, capsys):
    path = write(tmp_path / "in.json", [GPU_CLASS, two_gpus(), claim("c", request("gpu"))])
    code, _, err = allocate(capsys, path)
    assert code == 2 and "give --node NAME or --all-nodes" in err
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [")
    assert allocate(capsys, str(bad), "--node", "n")[0] == 2
    assert allocate(capsys, str(tmp_path / "missing.yaml"), "--node", "n")[0] == 2
    malformed = write(tmp_path / "m.json", [GPU_CLASS, claim("c", request("gpu")),
                                            {**two_gpus(), "spec": {"devices": "nope", "nodeName": "node-1",
                                                                    "pool": {"name": "p"}}}])
    code, _, err = allocate(capsys, malformed, "--node", "node-1")
    assert code == 2 and "malformed input" in err and "Traceback" not in err  # an input that cannot be used


def test_selector_evaluated_once_per_device_across_nodes(tmp_path, capsys):
    from webhook.allocation import inputs, outcome
    from webhook.profile import DEFAULT

    slices = [resource_slice(f"n{i}", [gpu("gpu-0"), gpu("gpu-1")], node=f"n{i}") for i in range(5)]
    path = write(tmp_path / "in.json", [GPU_CLASS, *slices, claim("c", request("gpu", "gpu.example.com", 2, A100))])
    read = inputs.read([path])
    allocator = outcome.build_allocator(read, DEFAULT)
    for name in inputs.node_names(read):
        assert outcome.allocate_on(allocator, inputs.node_object(read, name), read).allocated
    for name in inputs.node_names(read):  # a second round evaluates nothing new
        outcome.allocate_on(allocator, inputs.node_object(read, name), read)
    assert allocator.selection.evaluations == 5 * 2 * 2


def test_the_example_cluster_explains_the_pending_training_claim(capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    code, out, _ = allocate(capsys, str(root / "examples" / "allocate"), "--node", "node-1")
    assert code == 1
    assert "1 already allocated\n        gpu.example.com/node-1/gpu-0: allocated to claim data/etl-gpu" in out
    assert "taint example.com/maintenance=fan:NoSchedule is not tolerated" in out
    guide = (root / "docs" / "guides" / "allocate.md").read_text()
    assert out in guide  # the guide shows this very output


def test_first_available_subrequests_are_explained_each(tmp_path, capsys):
    h100 = 'device.attributes["gpu.example.com"].model == "h100"'
    prioritized = {"name": "gpu", "firstAvailable": [
        {"name": "big", "deviceClassName": "gpu.example.com", "count": 1, "selectors": [{"cel": {"expression": h100}}]},
        {"name": "two", "deviceClassName": "gpu.example.com", "count": 3}]}
    objects = [GPU_CLASS, two_gpus(), claim("c", prioritized), node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 1
    explained = report["claims"][0]["explanation"]
    assert [(e["request"], e["wanted"], e["usable"]) for e in explained] == [("gpu/big", "1", 0), ("gpu/two", "3", 2)]
    objects[2] = claim("c", {**prioritized, "firstAvailable": prioritized["firstAvailable"][::-1][:1] + [
        {"name": "one", "deviceClassName": "gpu.example.com", "count": 1}]})
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0 and report["claims"][0]["allocation"]["devices"]["results"][0]["request"] == "gpu/one"


def test_all_mode_needs_at_least_one_device(tmp_path, capsys):
    objects = [GPU_CLASS, two_gpus(), claim("c", {"name": "all", "exactly": {"deviceClassName": "gpu.example.com",
                                                                             "allocationMode": "All"}}),
               node("node-1")]
    code, report, _ = allocate_json(capsys, tmp_path, objects)
    assert code == 0 and len(report["claims"][0]["allocation"]["devices"]["results"]) == 2
    code, report, _ = allocate_json(capsys, tmp_path, objects[:1] + [two_gpus("node-2")] + objects[2:])
    assert code == 1 and report["claims"][0]["explanation"][0]["wanted"] == "All"

