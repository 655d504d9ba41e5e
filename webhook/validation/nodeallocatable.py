"""A device's `nodeAllocatableResources` (Kubernetes 1.37; upstream validateNodeAllocatableResources).

1.37 replaced 1.36's `nodeAllocatableResourceMappings` ({capacityKey, allocationMultiplier}, see
device.validate_node_allocatable_resource_mappings) by `{mapping: {capacityKey, capacityMultiplier,
deviceMultiplier}, overhead: {perPod, perContainer}}`, with no defaults. `mapping` is also a
declarative union of `capacityKey` and `deviceMultiplier`.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid, not_found, required
from webhook.quantity import parse_json_quantity
from webhook.validation import declarative
from webhook.validation._helpers import as_dict, as_str

HUGEPAGES_PREFIX = "hugepages-"


def is_node_allocatable_resource_name(name: str) -> bool:
    """corehelper.IsNodeAllocatableResourceName: cpu, memory and huge pages only.

    Upstream's helper body was not at hand; this is the set its 1.37 test table accepts (cpu, memory,
    hugepages-2Mi) and rejects (ephemeral-storage, abc, kubernetes.io/foo, dra.example.com/gpu).
    """
    return name in ("cpu", "memory") or name.startswith(HUGEPAGES_PREFIX)


def _sign(raw: Any) -> int | None:
    quantity = parse_json_quantity(raw) if raw is not None else None
    return None if quantity is None else quantity.sign()


def _text(raw: Any) -> str:
    quantity = parse_json_quantity(raw)
    return str(quantity) if quantity is not None else str(raw)


def validate_node_allocatable_resources(resources: dict, capacities: Any, path: Path,
                                        declarative_rules: bool = True) -> ErrorList:
    """`declarative_rules` is False when declarative validation ratchets the (unchanged) device list."""
    errs: ErrorList = []
    for resource_name, entry in resources.items():
        key_path = path.key(resource_name)
        if not is_node_allocatable_resource_name(resource_name):
            errs.append(invalid(key_path, resource_name, "must be a node allocatable resource name"))
        entry = as_dict(entry)
        mapping, overhead = entry.get("mapping"), entry.get("overhead")
        if mapping is None and overhead is None:
            errs.append(required(key_path, "at least one of mapping or overhead must be set"))
        if mapping is not None:
            errs.extend(validate_node_allocatable_mapping(as_dict(mapping), capacities, key_path.child("mapping"),
                                                          declarative_rules))
        if overhead is not None:
            errs.extend(validate_node_allocatable_overhead_mapping(as_dict(overhead), key_path.child("overhead")))
    return errs


def validate_node_allocatable_mapping(mapping: dict, capacities: Any, path: Path,
                                      declarative_rules: bool = True) -> ErrorList:
    errs: ErrorList = []
    capacity_key = mapping.get("capacityKey")
    capacity_multiplier = mapping.get("capacityMultiplier")
    if capacity_key is not None:
        capacity_key = as_str(capacity_key)
        if capacity_key == "":
            errs.append(invalid(path.child("capacityKey"), "", "capacityKey must not be an empty string"))
        elif not isinstance(capacities, dict) or capacity_key not in capacities:
            errs.append(not_found(path.child("capacityKey"), capacity_key))
        if capacity_multiplier is None:
            errs.append(required(path.child("capacityMultiplier"),
                                 "capacityMultiplier is required when capacityKey is set"))
        elif (_sign(capacity_multiplier) or 0) <= 0:
            errs.append(invalid(path.child("capacityMultiplier"), _text(capacity_multiplier), "must be positive"))
    device_multiplier = mapping.get("deviceMultiplier")
    if device_multiplier is not None and (_sign(device_multiplier) or 0) <= 0:
        errs.append(invalid(path.child("deviceMultiplier"), _text(device_multiplier), "must be positive"))
    if capacity_multiplier is not None and capacity_key is None:
        errs.append(required(path.child("capacityKey"), "capacityKey is required when capacityMultiplier is set"))
    if declarative_rules:  # the stable union has no hand-written twin
        errs.extend(declarative.union({"capacityKey": capacity_key is not None,
                                       "deviceMultiplier": device_multiplier is not None}, path))
    return errs


def validate_node_allocatable_overhead_mapping(overhead: dict, path: Path) -> ErrorList:
    per_pod, per_container = overhead.get("perPod"), overhead.get("perContainer")
    if per_pod is None and per_container is None:
        return [invalid(path, "", "at least one of perPod or perContainer must be set")]
    errs: ErrorList = []
    if per_pod is not None and (_sign(per_pod) or 0) < 0:
        errs.append(invalid(path.child("perPod"), _text(per_pod), "must be non-negative"))
    if per_container is not None and (_sign(per_container) or 0) < 0:
        errs.append(invalid(path.child("perContainer"), _text(per_container), "must be non-negative"))
    return errs
