"""Small builders of DRA objects for the allocate tests (v1 JSON shapes)."""

from __future__ import annotations

import json
from pathlib import Path

V1 = "resource.k8s.io/v1"


def device_class(name: str, *expressions: str, config: list | None = None) -> dict:
    spec: dict = {"selectors": [{"cel": {"expression": e}} for e in expressions]}
    if config:
        spec["config"] = config
    return {"apiVersion": V1, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def gpu(name: str, model: str = "a100", memory: str = "40Gi", **extra) -> dict:
    return {"name": name, "attributes": {"model": {"string": model}, "index": {"int": int(name.rsplit("-", 1)[-1])}},
            "capacity": {"memory": {"value": memory}}, **extra}


def resource_slice(name: str, devices: list, node: str | None = "node-1", pool: str | None = None,
                   driver: str = "gpu.example.com", count: int = 1, generation: int = 1, **spec) -> dict:
    body: dict = {"driver": driver, "pool": {"name": pool or node or "shared", "generation": generation,
                                             "resourceSliceCount": count}, **spec}
    if node:
        body["nodeName"] = node
    elif "nodeSelector" not in spec and "perDeviceNodeSelection" not in spec:
        body.setdefault("allNodes", True)
    if devices:
        body["devices"] = devices
    return {"apiVersion": V1, "kind": "ResourceSlice", "metadata": {"name": name}, "spec": body}


def request(name: str, class_name: str = "gpu.example.com", count: int = 1, *selectors: str, **extra) -> dict:
    exactly: dict = {"deviceClassName": class_name, "count": count, **extra}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    return {"name": name, "exactly": exactly}


def claim(name: str, *requests: dict, constraints: list | None = None, namespace: str = "default",
          allocation: dict | None = None) -> dict:
    devices: dict = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    obj = {"apiVersion": V1, "kind": "ResourceClaim", "metadata": {"name": name, "namespace": namespace},
           "spec": {"devices": devices}}
    if allocation is not None:
        obj["status"] = {"allocation": allocation}
    return obj


def template(name: str, *requests: dict) -> dict:
    return {"apiVersion": V1, "kind": "ResourceClaimTemplate", "metadata": {"name": name, "namespace": "default"},
            "spec": {"spec": {"devices": {"requests": list(requests)}}}}


def node(name: str, **labels: str) -> dict:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def write(path: Path, objects: list) -> str:
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    return str(path)



def hopeless_search(devices: int = 50, requests: int = 10) -> list:
    """The crafted worst case of the allocator's backtracking: identical devices, requests bound together by
    a `matchAttribute` constraint, and a last request whose `firstAvailable` subrequests (`allocationMode:
    All`, then one device) match no device, so every combination of devices for the earlier requests is
    tried before the answer (no) is known. 50 devices and 10 requests would take years."""
    same = [gpu(f"gpu-{i}") for i in range(devices)]
    for device in same:
        device["attributes"]["index"] = {"int": 0}  # identical devices: nothing tells them apart
    never = [{"cel": {"expression": 'device.attributes["gpu.example.com"].model == "h100"'}}]
    count = max(1, min(devices // requests, 31 // max(1, requests - 1)))
    wanted = [request(f"r{i}", "gpu.example.com", count) for i in range(requests - 1)]
    wanted.append({"name": "last", "firstAvailable": [
        {"name": "all", "deviceClassName": "gpu.example.com", "allocationMode": "All", "selectors": never},
        {"name": "one", "deviceClassName": "gpu.example.com", "count": 1, "selectors": never}]})
    return [device_class("gpu.example.com", 'device.driver == "gpu.example.com"'),
            resource_slice("gpus", same), node("node-1"),
            claim("hopeless", *wanted, constraints=[{"matchAttribute": "gpu.example.com/model"}])]


# Hostile dumps (tests/test_allocate_hostile.py; their time is benchmarks/hostile.py's) -------------

def taint_rules_dump(rules: int, devices: int = 128) -> dict:
    """One node, one slice of `devices` devices, a claim tolerating every NoSchedule taint, and `rules`
    DeviceTaintRules without a selector: every rule taints every device, the last one NoExecute."""
    return {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "node-a",
                  "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": f"gpu-{i}"} for i in range(devices)]}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ml"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
             "deviceClassName": "gpu.example.com",
             "tolerations": [{"operator": "Exists", "effect": "NoSchedule"}]}}]}}},
        *({"apiVersion": "resource.k8s.io/v1alpha3", "kind": "DeviceTaintRule", "metadata": {"name": f"rule-{r}"},
           "spec": {"taint": {"key": f"k{r}", "effect": "NoExecute" if r == rules - 1 else "NoSchedule"}}}
          for r in range(rules))]}


def shared_claim_dump(pods: int, reserved: int) -> dict:
    """`pods` pods sharing one allocated claim whose reservedFor has `reserved` entries (the last one the
    first pod), each pod also asking for a claim from a template that a free device satisfies."""
    reserved_for = [{"resource": "pods", "name": f"other-{i}", "uid": f"other-{i}"} for i in range(reserved - 1)]
    reserved_for.append({"resource": "pods", "name": "p0", "uid": "uid-0"})
    return {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
         "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": "s"},
         "spec": {"driver": "gpu.example.com", "nodeName": "node-a",
                  "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
                  "devices": [{"name": "gpu-0"}, {"name": "gpu-1"}]}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "shared", "namespace": "ml"},
         "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}},
         "status": {"allocation": {
             "devices": {"results": [{"request": "gpu", "driver": "gpu.example.com", "pool": "p", "device": "gpu-0"}]},
             "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                 {"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}},
             "reservedFor": reserved_for}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
         "metadata": {"name": "t", "namespace": "ml"},
         "spec": {"spec": {"devices": {"requests": [
             {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com"}}]}}}},
        *({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{p}", "namespace": "ml", "uid": f"uid-{p}"},
           "spec": {"containers": [{"name": "c"}], "resourceClaims": [
               {"name": "shared", "resourceClaimName": "shared"}, {"name": "own", "resourceClaimTemplateName": "t"}]}}
          for p in range(pods))]}
