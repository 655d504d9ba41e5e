"""The pending Pod's pod-level resources against what its claims add (the dynamicresources plugin's
validatePodLevelRequestsCoverDRA in 1.36, validatePodLevelResourcesCoverDRA in 1.37), and claims generated
from a ResourceClaimTemplate in the node-allocatable footprint (resourceclaim.Name: the Pod's
status.resourceClaimStatuses)."""

from __future__ import annotations

import json

import pytest

from allocation_objects import claim, device_class, node, request, resource_slice, write
from webhook import cli
from webhook.allocation.noderesources import claim_entry_names

ON = ("--feature-gates", "DRANodeAllocatableResources=true")
CLASS = device_class("dev", 'device.driver == "gpu.example.com"')
HOST = {**node("node-1"), "status": {"allocatable": {"cpu": "16", "memory": "64Gi"}}}
# Per release: a device that takes 2 cpu from its node per allocation, in the release's field.
TWO_CPU = {"1.36": ("nodeAllocatableResourceMappings", {"cpu": {"allocationMultiplier": "2"}}),
           "1.37": ("nodeAllocatableResources", {"cpu": {"mapping": {"deviceMultiplier": "2"}}})}
UID = "6f1b7a52-4a2c-4a43-9d7e-0d5c1c1e2f10"


def run(capsys, tmp_path, objects: list, version: str) -> tuple[int, dict]:
    code = cli.main(["allocate", write(tmp_path / "in.json", objects), "--output", "json",
                     "--kubernetes-version", version, *ON])
    return code, json.loads(capsys.readouterr().out)


def gpus(version: str) -> dict:
    field, value = TWO_CPU[version]
    return resource_slice("s", [{"name": "dev-0", field: value}])


def pending(resources: dict | None = None, limits: dict | None = None, entry: dict | None = None) -> dict:
    container = {"name": "main", "resources": {"requests": {"cpu": "1"}, "claims": [{"name": "gpus"}]}}
    if limits:
        container["resources"]["limits"] = limits
    spec: dict = {"resourceClaims": [entry or {"name": "gpus", "resourceClaimName": "c"}], "containers": [container]}
    if resources:
        spec["resources"] = resources
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "app", "namespace": "default", "uid": UID},
            "spec": spec}


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_pod_level_requests_must_cover_the_containers_and_the_claims(tmp_path, capsys, version):
    objects = [CLASS, gpus(version), claim("c", request("r", "dev")), HOST]
    # The container asks 1 cpu, the claim adds 2: a pod-level request of 2 does not cover 3.
    code, report = run(capsys, tmp_path, objects + [pending({"requests": {"cpu": "2"}})], version)
    assert code == 1  # allocated, but the Pod stays pending: not placeable
    assert report["allocated"] is True
    problems = report["claims"][0]["nodeAllocatableProblems"]
    assert problems == ["Pod default/app: pod level request for cpu is insufficient to cover the aggregated "
                        "container and node-allocatable DRA requests: the scheduler refuses the Pod"]
    assert "nodeAllocatableFit" not in report
    # 3 covers it: the Pod asks its pod-level 3 of the node.
    code, report = run(capsys, tmp_path, objects + [pending({"requests": {"cpu": "3"}})], version)
    assert code == 0 and "nodeAllocatableProblems" not in report["claims"][0]
    assert report["nodeAllocatableFit"] == {"fits": True, "free": {"cpu": "16"}, "short": {}}


def test_1_37_a_container_limit_plus_its_claims_must_stay_within_the_pod_level_limit(tmp_path, capsys):
    objects = [CLASS, gpus("1.37"), claim("c", request("r", "dev")), HOST]
    tight = pending({"requests": {"cpu": "3"}, "limits": {"cpu": "2500m"}}, limits={"cpu": "1"})
    code, report = run(capsys, tmp_path, objects + [tight], "1.37")
    assert code == 1 and report["claims"][0]["nodeAllocatableProblems"] == [
        "Pod default/app: pod level limit for cpu is insufficient to cover the limit and DRA overhead for container "
        "main: the scheduler refuses the Pod"]
    roomy = pending({"requests": {"cpu": "3"}, "limits": {"cpu": "3"}}, limits={"cpu": "1"})
    code, report = run(capsys, tmp_path, objects + [roomy], "1.37")
    assert code == 0 and "nodeAllocatableProblems" not in report["claims"][0] and report["nodeAllocatableFit"]["fits"]


def test_1_37_hugepages_limits_of_the_containers_and_claims_within_the_pod_level_limit(tmp_path, capsys):
    devices = resource_slice("s", [{"name": "dev-0", "nodeAllocatableResources": {
        "hugepages-2Mi": {"mapping": {"deviceMultiplier": "20Mi"}}}}])
    objects = [CLASS, devices, claim("c", request("r", "dev")), HOST]
    pod = pending({"requests": {"cpu": "1"}, "limits": {"hugepages-2Mi": "40Mi"}},
                  limits={"hugepages-2Mi": "30Mi"})
    code, report = run(capsys, tmp_path, objects + [pod], "1.37")  # 30Mi + 20Mi > 40Mi
    assert code == 1 and report["claims"][0]["nodeAllocatableProblems"] == [
        "Pod default/app: pod level limit for hugepages-2Mi is insufficient to cover the aggregated container and "
        "node-allocatable DRA limits: the scheduler refuses the Pod"]
    pod["spec"]["resources"]["limits"]["hugepages-2Mi"] = "50Mi"
    code, report = run(capsys, tmp_path, objects + [pod], "1.37")
    assert "nodeAllocatableProblems" not in report["claims"][0]
    # Past the plugin's check, to the node's fit: this node has no hugepages to give.
    assert code == 1 and report["nodeAllocatableFit"]["short"] == {"hugepages-2Mi": "20Mi"}


def generated(pod: dict, claim_obj: dict) -> tuple[dict, dict]:
    """The Pod takes the claim through a template: the claim is the one generated for it."""
    pod["spec"]["resourceClaims"] = [{"name": "gpus", "resourceClaimTemplateName": "t"}]
    pod["status"] = {"resourceClaimStatuses": [{"name": "gpus", "resourceClaimName": claim_obj["metadata"]["name"]}]}
    claim_obj["metadata"]["annotations"] = {"resource.kubernetes.io/pod-claim-name": "gpus"}
    claim_obj["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": "app", "uid": UID,
                                                 "controller": True, "blockOwnerDeletion": True}]
    return pod, claim_obj


@pytest.mark.parametrize("version", ["1.36", "1.37"])
def test_a_claim_generated_from_a_template_counts_the_containers_that_reference_it(tmp_path, capsys, version):
    pod, gen = generated(pending(), claim("app-gpus-x7k2p", request("r", "dev")))
    devices = gpus(version)
    if version == "1.37":  # and 500m for each container that references the claim
        devices["spec"]["devices"][0]["nodeAllocatableResources"]["cpu"]["overhead"] = {"perContainer": "500m"}
    code, report = run(capsys, tmp_path, [CLASS, devices, gen, HOST, pod], version)
    assert code == 0
    c = report["claims"][0]
    # Before: no container seemed to reference it (1.36 refused the Pod; 1.37 counted no container).
    assert "nodeAllocatableProblems" not in c
    assert c["nodeAllocatable"] == {"cpu": "2" if version == "1.36" else "2500m"}
    assert report["nodeAllocatableFit"] == {"fits": True, "free": {"cpu": "16"}, "short": {}}
    pod["spec"]["containers"][0]["resources"]["claims"] = []  # no container references it
    code, report = run(capsys, tmp_path, [CLASS, devices, gen, HOST, pod], version)
    refused = version == "1.36"  # 1.36 refuses the Pod; 1.37 counts no container
    assert bool(report["claims"][0].get("nodeAllocatableProblems")) == refused and code == (1 if refused else 0)


def test_claim_entry_names_follow_resourceclaim_name():
    pod = {"spec": {"resourceClaims": [{"name": "a", "resourceClaimName": "c"},
                                       {"name": "b", "resourceClaimTemplateName": "t"},
                                       {"name": "d", "resourceClaimTemplateName": "t"}]},
           "status": {"resourceClaimStatuses": [{"name": "b", "resourceClaimName": "c"}, {"name": "d"}]}}
    assert claim_entry_names(pod, "c", False) == {"a", "b"}  # by name, and generated for "b"
    assert claim_entry_names(pod, "t", True) == {"b", "d"}  # the template's own (not generated yet)
    assert claim_entry_names(pod, "x", False) == set()
