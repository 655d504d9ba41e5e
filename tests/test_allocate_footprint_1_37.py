"""What a claim takes from the node under Kubernetes 1.37 (`nodeAllocatableResources`), side by side with
1.36 (`nodeAllocatableResourceMappings`): the seed's worked examples in both shapes, the overheads, the
requests of Pods already on the node, the gate-off note and `review --explain`."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from allocation_objects import claim, device_class, node, request, resource_slice, write
from webhook import cli
from webhook.allocation.nodeallocatable import pod_requests

ON = ("--feature-gates", "DRANodeAllocatableResources=true")
V136, V137 = ("--kubernetes-version", "1.36"), ("--kubernetes-version", "1.37")
CLASS = device_class("dev", 'device.driver == "gpu.example.com"')


def run(capsys, tmp_path, objects: list, *argv: str) -> tuple[int, dict]:
    code = cli.main(["allocate", write(tmp_path / "in.json", objects), "--output", "json", *argv])
    return code, json.loads(capsys.readouterr().out)


def slice_of(count: int, field: str, value: dict, **extra) -> dict:
    return resource_slice("s", [{"name": f"dev-{i}", field: value, **extra} for i in range(count)])


# Per allocated device: 1.36 allocationMultiplier, 1.37 deviceMultiplier.
@pytest.mark.parametrize("resource, multiplier, count, expected", [
    ("cpu", "2", 4, "8"),  # a CPU core per device, 2 cpu each
    ("memory", "2Gi", 2, "4Gi"),  # host memory per GPU
    ("cpu", "500m", 3, "1500m"),  # fractional multipliers
])
def test_device_count_times_multiplier_in_both_shapes(tmp_path, capsys, resource, multiplier, count, expected):
    claims = [CLASS, claim("c", request("r", "dev", count)), node("node-1")]
    v136 = slice_of(count, "nodeAllocatableResourceMappings", {resource: {"allocationMultiplier": multiplier}})
    v137 = slice_of(count, "nodeAllocatableResources", {resource: {"mapping": {"deviceMultiplier": multiplier}}})
    for version, s in ((V136, v136), (V137, v137)):
        code, report = run(capsys, tmp_path, [s, *claims], *version, *ON)
        assert code == 0 and report["claims"][0]["nodeAllocatable"] == {resource: expected}
        assert report["nodeAllocatable"] == {resource: expected}
    # Each version reads only its own shape: the other one is an unknown field, so it takes nothing.
    for version, s in ((V136, v137), (V137, v136)):
        code, report = run(capsys, tmp_path, [s, *claims], *version, *ON)
        assert code == 0 and report["claims"][0]["nodeAllocatable"] == {}


def _shared(capacity_name: str, value: str, field: str, mapping: dict) -> dict:
    return resource_slice("s", [{"name": "pool-0", "allowMultipleAllocations": True,
                                 "capacity": {capacity_name: {"value": value}}, field: mapping}])


def test_consumed_capacity_times_multiplier_in_both_shapes(tmp_path, capsys):
    cores = "dra.example.com/cores"
    claims = [CLASS, claim("c", request("r", "dev", capacity={"requests": {cores: "8"}})), node("node-1")]
    v136 = _shared(cores, "64", "nodeAllocatableResourceMappings",
                   {"cpu": {"capacityKey": cores, "allocationMultiplier": "2"}})
    v137 = _shared(cores, "64", "nodeAllocatableResources",
                   {"cpu": {"mapping": {"capacityKey": cores, "capacityMultiplier": "2"}}})
    for version, s in ((V136, v136), (V137, v137)):
        code, report = run(capsys, tmp_path, [s, *claims], *version, *ON)
        assert code == 0 and report["claims"][0]["nodeAllocatable"] == {"cpu": "16"}


def test_consumed_capacity_without_a_multiplier(tmp_path, capsys):
    # 1.36 defaults allocationMultiplier to 1; 1.37 has no default (the API requires capacityMultiplier
    # with capacityKey), and the scheduler counts a missing one as 1.
    memory = "dra.example.com/memory"
    claims = [CLASS, claim("c", request("r", "dev", capacity={"requests": {memory: "4Gi"}})), node("node-1")]
    v136 = _shared(memory, "128Gi", "nodeAllocatableResourceMappings", {"memory": {"capacityKey": memory}})
    v137 = _shared(memory, "128Gi", "nodeAllocatableResources",
                   {"memory": {"mapping": {"capacityKey": memory, "capacityMultiplier": "1"}}})
    for version, s in ((V136, v136), (V137, v137)):
        code, report = run(capsys, tmp_path, [s, *claims], *version, *ON)
        assert code == 0 and report["claims"][0]["nodeAllocatable"] == {"memory": "4Gi"}


def test_capacity_key_on_a_dedicated_device_fails_the_pod(tmp_path, capsys):
    device = {"name": "dev-0", "capacity": {"dra.example.com/cores": {"value": "8"}}, "nodeAllocatableResources": {
        "cpu": {"mapping": {"capacityKey": "dra.example.com/cores", "capacityMultiplier": "1"}}}}
    objects = [CLASS, resource_slice("s", [device]), claim("c", request("r", "dev")), node("node-1")]
    code, report = run(capsys, tmp_path, objects, *V137, *ON)
    assert code == 0 and report["claims"][0]["nodeAllocatable"] == {}
    assert "consumes no capacity" in report["claims"][0]["nodeAllocatableProblems"][0]


# Overheads (1.37 only) ----------------------------------------------------------------------------

def _gpus_with_overhead(count: int = 2) -> dict:
    return slice_of(count, "nodeAllocatableResources", {
        "memory": {"overhead": {"perPod": "256Mi", "perContainer": "64Mi"}},
        "cpu": {"mapping": {"deviceMultiplier": "1"}, "overhead": {"perPod": "500m"}}})


def _pod(name: str, claim_name: str, *containers: str, node_name: str | None = None, **spec) -> dict:
    body: dict = {"resourceClaims": [{"name": "gpus", "resourceClaimName": claim_name}],
                  "containers": [{"name": c, "resources": {"claims": [{"name": "gpus"}]}} for c in containers], **spec}
    if node_name:
        body["nodeName"] = node_name
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default"}, "spec": body}


def test_overhead_per_pod_and_per_container(tmp_path, capsys):
    objects = [CLASS, _gpus_with_overhead(), claim("c", request("r", "dev", 2)), node("node-1")]
    code, report = run(capsys, tmp_path, objects, *V137, *ON)
    c = report["claims"][0]
    # Two devices: perPod and perContainer are summed over the claim's device results.
    assert code == 0 and c["nodeAllocatable"] == {"cpu": "3", "memory": "512Mi"}
    assert c["nodeAllocatablePerContainer"] == {"memory": "128Mi"} and c["nodeAllocatableContainers"] == 0
    # A Pod of the inputs uses the claim from two containers: 512Mi + 2 x 128Mi.
    code, report = run(capsys, tmp_path, objects + [_pod("app", "c", "main", "helper")], *V137, *ON)
    c = report["claims"][0]
    assert c["nodeAllocatable"] == {"cpu": "3", "memory": "768Mi"} and c["nodeAllocatableContainers"] == 2
    cli.main(["allocate", write(tmp_path / "t.json", objects + [_pod("app", "c", "main", "helper")]), *V137, *ON])
    assert "    takes from node-1: cpu 3, memory 768Mi (with memory 128Mi per container using the claim; " \
           "2 containers counted)\n" in capsys.readouterr().out


def test_pods_on_the_node_count_their_claims_node_allocatable_status(tmp_path, capsys):
    # A Pod already on the node whose claim took cpu 4 (status.nodeAllocatableResourceClaimStatuses):
    # 1.37 counts it, 1.36 only counts the Pod's own requests.
    busy = _pod("web", "other", "c", node_name="node-1")
    busy["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "2"}
    busy["status"] = {"nodeAllocatableResourceClaimStatuses": [
        {"resourceClaimName": "other", "containers": ["c"], "mapping": [{"name": "cpu", "quantity": "4"}]}]}
    host = {**node("node-1"), "status": {"allocatable": {"cpu": "10"}}}
    claims = [CLASS, claim("c", request("r", "dev", 3)), host, busy]
    v136 = slice_of(3, "nodeAllocatableResourceMappings", {"cpu": {"allocationMultiplier": "2"}})
    v137 = slice_of(3, "nodeAllocatableResources", {"cpu": {"mapping": {"deviceMultiplier": "2"}}})
    code, report = run(capsys, tmp_path, [v136, *claims], *V136, *ON)
    assert code == 0 and report["nodeAllocatableFit"] == {"fits": True, "free": {"cpu": "8"}, "short": {}}
    code, report = run(capsys, tmp_path, [v137, *claims], *V137, *ON)
    assert code == 1 and report["nodeAllocatableFit"] == {"fits": False, "free": {"cpu": "4"}, "short": {"cpu": "2"}}


def _c(name: str, cpu: str, **extra) -> dict:
    return {"name": name, "resources": {"requests": {"cpu": cpu}}, **extra}


def test_pod_requests_with_sidecars_init_containers_and_claim_overhead():
    # app 1 + sidecar 1 run together: 2; the init container runs next to the sidecar: 3 + 1 = 4 is the
    # peak. The claim's mapping 2, perPod 1 and perContainer 500m for each container it names (the sidecar
    # and one the pod does not have) add for the pod's lifetime (addDRANodeAllocatableClaimResources at
    # 1.37: no peak for init containers' claims), then pod overhead.
    pod = {"spec": {"initContainers": [_c("sidecar", "1", restartPolicy="Always"), _c("setup", "3")],
                    "containers": [_c("app", "1")], "overhead": {"cpu": "100m"}},
           "status": {"nodeAllocatableResourceClaimStatuses": [
               {"containers": ["sidecar", "gone"], "mapping": [{"name": "cpu", "quantity": "2"}],
                "overhead": [{"name": "cpu", "perPod": "1", "perContainer": "500m"}]}]}}
    assert pod_requests(pod) == {"cpu": 4 + 2 + 1 + 2 * Decimal("0.5") + Decimal("0.1")}


def test_an_init_container_claims_overhead_counts_for_the_pods_lifetime():
    # Allocator differential 1.37/1507: the init container's claim adds its perContainer 1 next to the
    # app's 2 (3), where the init container's own peak (1) would have hidden it.
    pod = {"spec": {"initContainers": [{"name": "init", "resources": {}}], "containers": [_c("app", "2")]},
           "status": {"nodeAllocatableResourceClaimStatuses": [
               {"containers": ["init"], "overhead": [{"name": "cpu", "perContainer": "1"}]}]}}
    assert pod_requests(pod) == {"cpu": Decimal(3)}


def test_pod_level_requests_replace_the_container_sum():
    pod = {"spec": {"containers": [_c("app", "1")], "resources": {"requests": {"cpu": "3"}}}}
    assert pod_requests(pod) == {"cpu": Decimal(3)}


def test_gate_off_note_names_the_1_37_field(tmp_path, capsys):
    objects = [CLASS, _gpus_with_overhead(1), claim("c", request("r", "dev")), node("node-1")]
    code, report = run(capsys, tmp_path, objects, *V137)
    assert code == 0 and "nodeAllocatable" not in report["claims"][0]
    assert report["notes"] == ["devices declare node-allocatable resources, but the footprint is not counted: "
                               "DRANodeAllocatableResources is off (enable it with --feature-gates "
                               "DRANodeAllocatableResources=true)"]


def test_review_explain_under_1_37(tmp_path, capsys):
    cores = _shared("dra.example.com/cores", "64", "nodeAllocatableResources", {
        "cpu": {"mapping": {"capacityKey": "dra.example.com/cores", "capacityMultiplier": "2"}}})["spec"]["devices"][0]
    gpu = {"name": "gpu-0", "nodeAllocatableResources": {
        "memory": {"mapping": {"deviceMultiplier": "2Gi"}, "overhead": {"perPod": "256Mi", "perContainer": "64Mi"}}}}
    path = write(tmp_path / "s.json", [resource_slice("s", [cores, gpu, {"name": "plain"}])])
    code = cli.main(["review", "--explain", "--kubernetes-version", "1.37",
                     "--feature-gates", "DRANodeAllocatableResources=true,DRAConsumableCapacity=true", path])
    lines = capsys.readouterr().out.splitlines()
    assert code == 0, lines
    assert lines[-2:] == [
        f"{path}#0.items[0]: ResourceSlice/s: device pool-0 takes from its node per allocation: "
        "cpu = consumed dra.example.com/cores x 2, at most 128",
        f"{path}#0.items[0]: ResourceSlice/s: device gpu-0 takes from its node per allocation: "
        "memory 2Gi per allocated device; memory 256Mi per pod using it; memory 64Mi per container using it"]


def test_a_shared_claim_pays_per_pod_for_each_pod_and_mapped_claims_cannot_be_shared(tmp_path, capsys):
    overhead_only = slice_of(1, "nodeAllocatableResources", {"memory": {"overhead": {"perPod": "256Mi",
                                                                                      "perContainer": "64Mi"}}})
    pods = [_pod("a", "c", "main"), _pod("b", "c", "main", "helper")]
    objects = [CLASS, overhead_only, claim("c", request("r", "dev")), node("node-1"), *pods]
    code, reports = run(capsys, tmp_path, objects, *V137, *ON)
    assert [r["pod"] for r in reports] == ["default/a", "default/b"]  # each pending pod answered on its own
    report = reports[0]
    c = report["claims"][0]
    assert code == 0 and c["nodeAllocatable"] == {"memory": "704Mi"}  # 2 pods x 256Mi + 3 containers x 64Mi
    assert "nodeAllocatableProblems" not in c
    objects[1] = _gpus_with_overhead(1)  # cpu has a mapping: the claim cannot be shared
    code, reports = run(capsys, tmp_path, objects, *V137, *ON)
    assert reports[0]["claims"][0]["nodeAllocatableProblems"] == [
        "the Pods a, b use the claim, but a claim with mapped node-allocatable resources cannot be shared across "
        "pods: the scheduler refuses all but the first"]


def test_a_template_counts_one_pod_of_its_own(tmp_path, capsys):
    from allocation_objects import template

    pod = _pod("a", "", "main", "helper")
    pod["spec"]["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": "t"}]
    other = json.loads(json.dumps(pod))
    other["metadata"]["name"] = "b"
    objects = [CLASS, _gpus_with_overhead(1), template("t", request("r", "dev")), node("node-1"), pod, other]
    code, reports = run(capsys, tmp_path, objects, *V137, *ON)
    assert [r["pod"] for r in reports] == ["default/a", "default/b"]  # each pending pod answered on its own
    c = reports[0]["claims"][0]
    assert code == 0 and c["nodeAllocatable"] == {"cpu": "1500m", "memory": "384Mi"}  # 256Mi + 2 x 64Mi
    assert c["nodeAllocatableContainers"] == 2 and "nodeAllocatableProblems" not in c
