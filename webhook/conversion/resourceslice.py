"""ResourceSlice v1beta1 -> v1. v1beta2 already has the v1 shape.

v1beta1 keeps the device fields under `devices[i].basic`, and `spec.nodeName` / `spec.allNodes` are
plain values whose zero value ("" / false) means unset. Only dict- and list-shaped things are moved;
anything wrongly typed is left where it is for the type check to report.
"""

from __future__ import annotations

BASIC_DEVICE_FIELDS = (
    "attributes", "capacity", "consumesCounters", "nodeName", "nodeSelector", "allNodes", "taints",
    "bindsToNode", "bindingConditions", "bindingFailureConditions", "allowMultipleAllocations",
    "nodeAllocatableResourceMappings",
)
# Kubernetes 1.37 replaced nodeAllocatableResourceMappings by nodeAllocatableResources.
BASIC_DEVICE_FIELDS_1_37 = BASIC_DEVICE_FIELDS[:-1] + ("nodeAllocatableResources",)


def resource_slice_from_v1beta1(obj: dict, fields: tuple[str, ...] = BASIC_DEVICE_FIELDS) -> tuple[dict, list[str]]:
    """Converts in place (the caller passes a copy) and returns (object, warnings)."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return obj, []
    if spec.get("nodeName") == "":
        del spec["nodeName"]
    if spec.get("allNodes") is False:
        del spec["allNodes"]
    devices = spec.get("devices")
    if isinstance(devices, list):
        for device in devices:
            if isinstance(device, dict):
                _lift_basic(device, fields)
    return obj, []


def resource_slice_from_v1beta1_1_37(obj: dict) -> tuple[dict, list[str]]:
    return resource_slice_from_v1beta1(obj, BASIC_DEVICE_FIELDS_1_37)


def _lift_basic(device: dict, fields: tuple[str, ...]) -> None:
    basic = device.get("basic")
    if basic is None:
        device.pop("basic", None)
        return
    if not isinstance(basic, dict):
        return  # wrongly typed: left for the type check ("basic" is then an unknown v1 field)
    for name in fields:
        if name in basic:
            device[name] = basic.pop(name)
    if not basic:
        del device["basic"]
