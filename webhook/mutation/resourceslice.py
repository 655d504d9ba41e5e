"""ResourceSlice defaults: device taints get `timeAdded`, 1.36 node-allocatable mappings a multiplier of 1.

v1 and v1beta2 carry the device fields on the device itself; v1beta1 nests them under `basic`.
"""

from __future__ import annotations

from datetime import datetime

from webhook.mutation._walk import child, dict_items, dict_values, is_unset
from webhook.mutation.taints import default_time_added

DEFAULT_ALLOCATION_MULTIPLIER = "1"


def default_resource_slice(obj: dict, old: dict | None, operation: str, now: datetime) -> None:
    for device in dict_items(child(obj, "spec"), "devices"):
        _default_device_fields(device, now)


def default_resource_slice_v1beta1(obj: dict, old: dict | None, operation: str, now: datetime) -> None:
    for device in dict_items(child(obj, "spec"), "devices"):
        basic = child(device, "basic")
        if basic is not None:
            _default_device_fields(basic, now)


def default_resource_slice_1_37(obj: dict, old: dict | None, operation: str, now: datetime) -> None:
    """1.37: taints only; the reshaped nodeAllocatableResources have no defaults."""
    for device in dict_items(child(obj, "spec"), "devices"):
        _default_taints(device, now)


def default_resource_slice_v1beta1_1_37(obj: dict, old: dict | None, operation: str, now: datetime) -> None:
    for device in dict_items(child(obj, "spec"), "devices"):
        basic = child(device, "basic")
        if basic is not None:
            _default_taints(basic, now)


def _default_taints(device: dict, now: datetime) -> None:
    for taint in dict_items(device, "taints"):
        default_time_added(taint, now)


def _default_device_fields(device: dict, now: datetime) -> None:
    _default_taints(device, now)
    # Upstream defaults the map values by hand (defaulter-gen does not reach them), with or
    # without capacityKey.
    for mapping in dict_values(device, "nodeAllocatableResourceMappings"):
        if is_unset(mapping, "allocationMultiplier"):
            mapping["allocationMultiplier"] = DEFAULT_ALLOCATION_MULTIPLIER
