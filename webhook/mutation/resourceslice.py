"""ResourceSlice defaults: device taints get `timeAdded`, 1.36 node-allocatable mappings a multiplier of 1.

v1 and v1beta2 carry the device fields on the device itself; v1beta1 nests them under `basic`.
"""

from __future__ import annotations

from datetime import datetime

from webhook.mutation._walk import Patch, child, dict_items, dict_values, is_unset
from webhook.mutation.taints import default_time_added

DEFAULT_ALLOCATION_MULTIPLIER = "1"


def default_resource_slice(obj: dict, old: dict | None, operation: str, now: datetime, patch: Patch) -> None:
    for device, at in dict_items(*child(obj, "", "spec"), "devices"):
        _default_device_fields(device, at, now, patch)


def default_resource_slice_v1beta1(obj: dict, old: dict | None, operation: str, now: datetime, patch: Patch) -> None:
    for device, at in dict_items(*child(obj, "", "spec"), "devices"):
        basic, basic_at = child(device, at, "basic")
        if basic is not None:
            _default_device_fields(basic, basic_at, now, patch)


def default_resource_slice_1_37(obj: dict, old: dict | None, operation: str, now: datetime, patch: Patch) -> None:
    """1.37: taints only; the reshaped nodeAllocatableResources have no defaults."""
    for device, at in dict_items(*child(obj, "", "spec"), "devices"):
        _default_taints(device, at, now, patch)


def default_resource_slice_v1beta1_1_37(obj: dict, old: dict | None, operation: str, now: datetime,
                                        patch: Patch) -> None:
    for device, at in dict_items(*child(obj, "", "spec"), "devices"):
        basic, basic_at = child(device, at, "basic")
        if basic is not None:
            _default_taints(basic, basic_at, now, patch)


def _default_taints(device: dict, pointer: str, now: datetime, patch: Patch) -> None:
    for taint, at in dict_items(device, pointer, "taints"):
        default_time_added(taint, at, now, patch)


def _default_device_fields(device: dict, pointer: str, now: datetime, patch: Patch) -> None:
    if "taints" not in device and "nodeAllocatableResourceMappings" not in device:
        return  # most devices: nothing to default, nothing to walk
    _default_taints(device, pointer, now, patch)
    # Upstream defaults the map values by hand (defaulter-gen does not reach them), with or
    # without capacityKey.
    for mapping, at in dict_values(device, pointer, "nodeAllocatableResourceMappings"):
        if is_unset(mapping, "allocationMultiplier"):
            patch.set(mapping, at, "allocationMultiplier", DEFAULT_ALLOCATION_MULTIPLIER)


# 1.35 has no node-allocatable mappings (1.36 added them): its slices get taint defaults only, as 1.37's.
default_resource_slice_1_35 = default_resource_slice_1_37
default_resource_slice_v1beta1_1_35 = default_resource_slice_v1beta1_1_37
