"""Valid objects of the six kinds (resource.k8s.io/v1 shape), the starting points of the generated corpus.

Each seed is (kind, operation, subresource, object, old object or None); the object is valid under every DRA gate
of its release, so what a mutation breaks is the mutation's doing.
"""

from __future__ import annotations

import copy

G = "resource.k8s.io"
# A shared allocation's ID: a lowercase RFC 4122 UUID; a device's status names the allocation it reports on by it.
SHARE_ID = "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9"
_TAINT = {"key": "example.com/unhealthy", "value": "yes", "effect": "NoSchedule"}


def claim_spec() -> dict:
    return {"devices": {
        "requests": [
            {"name": "gpu", "exactly": {
                "deviceClassName": "gpu.example.com",
                "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                "allocationMode": "ExactCount", "count": 2,
                "tolerations": [{"key": "example.com/unhealthy", "operator": "Equal", "value": "yes",
                                 "effect": "NoSchedule", "tolerationSeconds": 30}],
                "capacity": {"requests": {"memory": "1Gi"}}}},
            {"name": "nic", "firstAvailable": [
                {"name": "fast", "deviceClassName": "nic.example.com", "allocationMode": "All",
                 "selectors": [{"cel": {"expression": 'device.attributes["nic.example.com"].speed >= 100'}}]},
                {"name": "slow", "deviceClassName": "nic.example.com", "allocationMode": "ExactCount", "count": 1,
                 "tolerations": [{"operator": "Exists"}]}]},
        ],
        "constraints": [{"requests": ["gpu", "nic"], "matchAttribute": "dra.example.com/numa"},
                        {"requests": ["gpu"], "distinctAttribute": "gpu.example.com/index"}],
        "config": [{"requests": ["gpu"], "opaque": {"driver": "gpu.example.com", "parameters": {"sharing": "mps"}}},
                   {"opaque": {"driver": "nic.example.com", "parameters": {"mtu": 9000}}}],
    }}


def claim(namespace: str = "default") -> dict:
    return {"apiVersion": f"{G}/v1", "kind": "ResourceClaim",
            "metadata": {"name": "claim-1", "namespace": namespace, "labels": {"app": "demo"},
                         "annotations": {"example.com/note": "x"}},
            "spec": claim_spec()}


def admin_claim() -> dict:
    return {"apiVersion": f"{G}/v1", "kind": "ResourceClaim",
            "metadata": {"name": "admin-claim", "namespace": "dra-admin"},
            "spec": {"devices": {"requests": [{"name": "all-gpus", "exactly": {
                "deviceClassName": "gpu.example.com", "allocationMode": "All", "adminAccess": True}}]}}}


def claim_status() -> dict:
    return {
        "allocation": {
            "devices": {
                "results": [
                    {"request": "gpu", "driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0",
                     "tolerations": [{"key": "example.com/unhealthy", "operator": "Exists", "effect": "NoSchedule"}],
                     "bindingConditions": ["dra.example.com/ready"], "bindingFailureConditions": ["dra.example.com/failed"],
                     "consumedCapacity": {"memory": "1Gi"}, "shareID": SHARE_ID},
                    {"request": "nic/fast", "driver": "nic.example.com", "pool": "node-1", "device": "eth1"}],
                "config": [{"source": "FromClaim", "requests": ["gpu"],
                            "opaque": {"driver": "gpu.example.com", "parameters": {"sharing": "mps"}}}]},
            "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [
                {"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}]},
            "allocationTimestamp": "2026-01-01T00:00:00Z"},
        "reservedFor": [{"resource": "pods", "name": "pod-1", "uid": "2d2a54b4-3f3c-4b41-8c2b-5cf1b2b0b0aa"}],
        "devices": [{"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0", "shareID": SHARE_ID,
                     "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
                                     "reason": "Ready", "message": "ok"}],
                     "data": {"uuid": "GPU-1"},
                     "networkData": {"interfaceName": "eth1", "ips": ["10.0.0.5/24", "fd00::5/64"],
                                     "hardwareAddress": "ea:9f:ab:cd:ef:01"}}],
    }


def template() -> dict:
    return {"apiVersion": f"{G}/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "template-1", "namespace": "default"},
            "spec": {"metadata": {"labels": {"app": "demo"}}, "spec": claim_spec()}}


def slice_devices() -> dict:
    return {"apiVersion": f"{G}/v1", "kind": "ResourceSlice", "metadata": {"name": "node-1-gpu"},
            "spec": {"driver": "gpu.example.com", "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2},
                     "nodeName": "node-1",
                     "devices": [
                         {"name": "gpu-0",
                          "attributes": {"model": {"string": "a100"}, "index": {"int": 0}, "healthy": {"bool": True},
                                         "dra.example.com/driverVersion": {"version": "1.2.3"}},
                          "capacity": {"memory": {"value": "40Gi"}, "cores": {"value": "108"}},
                          "consumesCounters": [{"counterSet": "gpu-0-counters",
                                                "counters": {"memory": {"value": "40Gi"}}}],
                          "taints": [dict(_TAINT)],
                          "bindsToNode": True, "bindingConditions": ["dra.example.com/ready"],
                          "bindingFailureConditions": ["dra.example.com/failed"]},
                         {"name": "gpu-1", "allowMultipleAllocations": True,
                          "capacity": {"memory": {"value": "40Gi", "requestPolicy": {
                              "default": "1Gi", "validRange": {"min": "1Gi", "max": "40Gi", "step": "1Gi"}}}}},
                     ]}}


def slice_devices_and_counters() -> dict:
    """1.34's partitionable devices: a device consumes counters of a set in its own slice (1.35 moved the sets to
    a slice of their own)."""
    out = slice_devices()
    out["spec"]["sharedCounters"] = copy.deepcopy(slice_counters()["spec"]["sharedCounters"])
    return out


def slice_counters() -> dict:
    return {"apiVersion": f"{G}/v1", "kind": "ResourceSlice", "metadata": {"name": "node-1-counters"},
            "spec": {"driver": "gpu.example.com", "pool": {"name": "node-1", "generation": 1, "resourceSliceCount": 2},
                     "nodeName": "node-1",
                     "sharedCounters": [{"name": "gpu-0-counters",
                                         "counters": {"memory": {"value": "40Gi"}, "cores": {"value": "108"}}}]}}


def slice_all_nodes() -> dict:
    return {"apiVersion": f"{G}/v1", "kind": "ResourceSlice", "metadata": {"generateName": "nic-"},
            "spec": {"driver": "nic.example.com", "pool": {"name": "fabric", "generation": 3, "resourceSliceCount": 1},
                     "allNodes": True,
                     "devices": [{"name": "eth1", "attributes": {"speed": {"int": 100}, "nic.example.com/pci": {
                         "string": "0000:3b:00.0"}}}]}}


def device_class() -> dict:
    return {"apiVersion": f"{G}/v1", "kind": "DeviceClass", "metadata": {"name": "gpu.example.com"},
            "spec": {"selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}],
                     "config": [{"opaque": {"driver": "gpu.example.com", "parameters": {"x": 1}}}],
                     "extendedResourceName": "example.com/gpu"}}


def taint_rule(version: str) -> dict:
    return {"apiVersion": f"{G}/{version}", "kind": "DeviceTaintRule", "metadata": {"name": "unhealthy-gpus"},
            "spec": {"deviceSelector": {"driver": "gpu.example.com", "pool": "node-1", "device": "gpu-0"},
                     "taint": {"key": "example.com/unhealthy", "value": "yes", "effect": "NoExecute"}}}


def taint_rule_status() -> dict:
    return {"conditions": [{"type": "EvictionInProgress", "status": "False", "observedGeneration": 1,
                            "lastTransitionTime": "2026-01-01T00:00:00Z", "reason": "Completed", "message": "done"}]}


def pool_request() -> dict:
    return {"apiVersion": f"{G}/v1alpha3", "kind": "ResourcePoolStatusRequest", "metadata": {"name": "gpus"},
            "spec": {"driver": "gpu.example.com", "poolName": "node-1", "limit": 10}}


def pool_request_status() -> dict:
    return {"poolCount": 1, "pools": [{"driver": "gpu.example.com", "poolName": "node-1", "generation": 1,
                                       "resourceSliceCount": 2, "totalDevices": 2, "allocatedDevices": 1,
                                       "availableDevices": 1, "unavailableDevices": 0, "nodeName": "node-1"}],
            "conditions": [{"type": "Complete", "status": "True", "lastTransitionTime": "2026-01-01T00:00:00Z",
                            "reason": "Done", "message": "", "observedGeneration": 1}]}


def _with(obj: dict, **fields) -> dict:
    out = copy.deepcopy(obj)
    out.update(copy.deepcopy(fields))
    return out


def seeds(release: str) -> list[tuple[str, str, str, dict, dict | None]]:
    """(kind, operation, subresource, object, old) for the kinds and versions `release` registers."""
    taint_version = {"1.34": "v1alpha3", "1.35": "v1alpha3", "1.36": "v1beta2"}.get(release, "v1")
    devices = slice_devices_and_counters() if release == "1.34" else slice_devices()
    out = [
        ("ResourceClaim", "create", "", claim(), None),
        ("ResourceClaim", "create", "", admin_claim(), None),
        ("ResourceClaim", "update", "", claim(), claim()),
        ("ResourceClaim", "update", "status", _with(claim(), status=claim_status()), claim()),
        ("ResourceClaim", "update", "status", _with(claim(), status=claim_status()),
         _with(claim(), status=claim_status())),
        ("ResourceClaimTemplate", "create", "", template(), None),
        ("ResourceClaimTemplate", "update", "", template(), template()),
        ("ResourceSlice", "create", "", devices, None),
        ("ResourceSlice", "create", "", slice_counters(), None),
        ("ResourceSlice", "create", "", slice_all_nodes(), None),
        ("ResourceSlice", "update", "", devices, copy.deepcopy(devices)),
        ("DeviceClass", "create", "", device_class(), None),
        ("DeviceClass", "update", "", device_class(), device_class()),
        ("DeviceTaintRule", "create", "", taint_rule(taint_version), None),
        ("DeviceTaintRule", "update", "", taint_rule(taint_version), taint_rule(taint_version)),
    ]
    if release != "1.34":
        rule = _with(taint_rule(taint_version), status=taint_rule_status())
        out.append(("DeviceTaintRule", "update", "status", rule, taint_rule(taint_version)))
    if release not in ("1.34", "1.35"):
        out += [("ResourcePoolStatusRequest", "create", "", pool_request(), None),
                ("ResourcePoolStatusRequest", "update", "status", _with(pool_request(), status=pool_request_status()),
                 pool_request())]
    return out
