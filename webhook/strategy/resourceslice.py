"""ResourceSlice: `dropDisabledFields` of the 1.36 registry strategy (create and update alike).

Each gate is decided per object: its fields are kept everywhere in the new slice as soon as the
old slice used any of them anywhere.
"""

from __future__ import annotations

from functools import partial
from itertools import chain

from webhook.field import Path
from webhook.strategy.dropper import BOOL, DICT, LIST, STRING, Dropper, child, dict_values, dicts, has_items, is_set

SPEC = Path("spec")
LIST_ATTRIBUTE_VALUES = ("bools", "ints", "strings", "versions")
_LIST_ATTRIBUTE_KEYS = frozenset(LIST_ATTRIBUTE_VALUES)


def drop_disabled_fields(new: dict, old: dict | None, d: Dropper) -> None:
    drop_disabled_dra_device_taints_fields(new, old, d)
    drop_disabled_dra_partitionable_devices_fields(new, old, d)
    drop_disabled_dra_device_binding_conditions_fields(new, old, d)
    drop_disabled_dra_consumable_capacity_fields(new, old, d)
    drop_disabled_dra_node_allocatable_resources_fields(new, old, d)
    drop_disable_dra_list_type_attributes_fields(new, old, d)


def _devices(slice_: dict | None, d: Dropper | None = None):
    """(path, device) of spec.devices[*], the path as a function that builds it (only a drop needs it:
    most slices drop nothing); through the dropper for the new object."""
    spec = d.child(slice_, "spec") if d else child(slice_, "spec")
    items = d.dicts(spec, "devices") if d else dicts(spec, "devices")
    for i, device in items:
        yield partial(_device_path, i), device


def _device_path(i: int) -> Path:
    return SPEC.child("devices").index(i)


def drop_disabled_dra_device_taints_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRADeviceTaints"
    if d.enabled(gate) or dra_device_taints_feature_in_use(old):
        return
    for path, device in _devices(new, d):
        d.drop(device, path, "taints", LIST, gate)


def dra_device_taints_feature_in_use(slice_: dict | None) -> bool:
    return any(has_items(device, "taints") for _, device in _devices(slice_))


def drop_disabled_dra_partitionable_devices_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRAPartitionableDevices"
    if d.enabled(gate) or dra_partitionable_devices_feature_in_use(old):
        return
    spec = d.child(new, "spec")
    d.drop(spec, SPEC, "sharedCounters", LIST, gate)
    d.drop(spec, SPEC, "perDeviceNodeSelection", BOOL, gate)
    for path, device in _devices(new, d):
        d.drop(device, path, "consumesCounters", LIST, gate)
        d.drop(device, path, "nodeName", STRING, gate)
        d.drop(device, path, "nodeSelector", DICT, gate)
        d.drop(device, path, "allNodes", BOOL, gate)


def dra_partitionable_devices_feature_in_use(slice_: dict | None) -> bool:
    spec = child(slice_, "spec")
    if has_items(spec, "sharedCounters") or is_set(spec, "perDeviceNodeSelection", BOOL):
        return True
    return any(has_items(device, "consumesCounters") or is_set(device, "nodeName", STRING)
               or is_set(device, "nodeSelector", DICT) or is_set(device, "allNodes", BOOL)
               for _, device in _devices(slice_))


def drop_disabled_dra_device_binding_conditions_fields(new: dict, old: dict | None, d: Dropper) -> None:
    # Upstream keeps the fields only when both gates are on; the warning names the one that is off.
    off = [gate for gate in ("DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus") if not d.enabled(gate)]
    if not off or dra_binding_conditions_feature_in_use(old):
        return
    for path, device in _devices(new, d):
        d.drop(device, path, "bindingConditions", LIST, off[0])
        d.drop(device, path, "bindingFailureConditions", LIST, off[0])
        d.drop(device, path, "bindsToNode", BOOL, off[0])


def dra_binding_conditions_feature_in_use(slice_: dict | None) -> bool:
    return any(has_items(device, "bindingConditions") or has_items(device, "bindingFailureConditions")
               or is_set(device, "bindsToNode", BOOL) for _, device in _devices(slice_))


def drop_disabled_dra_consumable_capacity_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRAConsumableCapacity"
    if d.enabled(gate) or dra_consumable_capacity_feature_in_use(old):
        return
    for path, device in _devices(new, d):
        d.drop(device, path, "allowMultipleAllocations", BOOL, gate)
        for name, capacity in d.dict_values(device, "capacity"):
            d.drop(capacity, lambda path=path, name=name: path().child("capacity").key(name), "requestPolicy", DICT, gate)


def dra_consumable_capacity_feature_in_use(slice_: dict | None) -> bool:
    for _, device in _devices(slice_):
        if is_set(device, "allowMultipleAllocations", BOOL):
            return True
        if any(is_set(capacity, "requestPolicy", DICT) for _, capacity in dict_values(device, "capacity")):
            return True
    return False


def drop_disabled_dra_node_allocatable_resources_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRANodeAllocatableResources"
    if d.enabled(gate) or dra_node_allocatable_resources_feature_in_use(old):
        return
    for path, device in _devices(new, d):
        if "nodeAllocatableResourceMappings" in device:  # most devices have none: no call
            d.drop(device, path, "nodeAllocatableResourceMappings", DICT, gate)


def dra_node_allocatable_resources_feature_in_use(slice_: dict | None) -> bool:
    return any(has_items(device, "nodeAllocatableResourceMappings", DICT) for _, device in _devices(slice_))


def drop_disable_dra_list_type_attributes_fields(new: dict, old: dict | None, d: Dropper) -> None:
    # What remains is an attribute without a value: validation then says "exactly one value must be
    # specified", as a default 1.36 API server does.
    gate = "DRAListTypeAttributes"
    if d.enabled(gate) or dra_list_type_attributes_feature_in_use(old):
        return
    for path, device in _devices(new, d):
        attributes = d.get(device, "attributes")
        if not isinstance(attributes, dict):
            continue
        # Up to 4096 attributes a slice, on every served request: first one pass in C over every
        # attribute's field names, the per-attribute walk only on a device where a list name shows up
        # (or an attribute that is not a map).
        try:
            if _LIST_ATTRIBUTE_KEYS.isdisjoint(chain.from_iterable(attributes.values())):
                continue
        except TypeError:
            pass
        for name, attribute in list(attributes.items()):
            if type(attribute) is not dict or _LIST_ATTRIBUTE_KEYS.isdisjoint(attribute):
                continue
            attribute_path = lambda path=path, name=name: path().child("attributes").key(name)  # noqa: E731
            for key in LIST_ATTRIBUTE_VALUES:
                d.drop(attribute, attribute_path, key, LIST, gate)


def dra_list_type_attributes_feature_in_use(slice_: dict | None) -> bool:
    # `!= nil`, not `len() > 0`: an explicit empty list counts as use.
    for _, device in _devices(slice_):
        for _, attribute in dict_values(device, "attributes"):
            if attribute.keys() & _LIST_ATTRIBUTE_KEYS and any(is_set(attribute, key, LIST)
                                                              for key in LIST_ATTRIBUTE_VALUES):
                return True
    return False
