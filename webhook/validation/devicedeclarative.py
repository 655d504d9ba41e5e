"""Declarative rules of a ResourceSlice device, as Kubernetes 1.37 enforces them (Validate_Device).

`compatibilityGroups` of a counter consumption has declarative rules only. Because `spec.devices` is an
atomic list, declarative validation sees no old device once the list changed: taint effects that
hand-written validation ratchets are checked again, and long attribute keys are not shortened in paths.
Where hand-written validation stops at a list's limit (the slice's device limit, a device's 16 taints),
declarative validation goes on: `validate_device_declaratively` is every rule of one device.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, required
from webhook.limits import (
    BINDING_CONDITIONS_MAX_SIZE,
    BINDING_FAILURE_CONDITIONS_MAX_SIZE,
    DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE,
    RESOURCE_SLICE_MAX_COUNTER_SETS,
    RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET,
    RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION,
    RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
)
from webhook.validation import declarative
from webhook.validation._helpers import as_dict, as_list, as_str
from webhook.validation.taints import VALID_DEVICE_TAINT_EFFECTS

# The union of DeviceAttribute in its declared order (the order of "must specify exactly one of").
_ATTRIBUTE_VALUE_FIELDS = ("int", "bool", "string", "version", "ints", "bools", "strings", "versions")
_LIST_VALUE_FIELDS = frozenset(("ints", "bools", "strings", "versions"))
_SCALAR_VALUE_FIELDS = frozenset(("int", "bool", "string", "version"))


def validate_compatibility_groups(groups: Any, path: Path) -> ErrorList:
    """Kubernetes 1.37 `consumesCounters[j].compatibilityGroups`: declarative rules only."""
    groups = as_list(groups)
    errs = declarative.max_items(groups, DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE, path)
    if errs:
        return errs
    errs = declarative.unique_set(groups, path)
    for k, group in enumerate(groups):
        errs.extend(declarative.short_name(as_str(group), path.index(k)))
    return errs


def declarative_device_rules(device: dict, path: Path, common_attributes: bool = False) -> ErrorList:
    """1.37: declarative rules inside a device whose hand-written twins ran here, or that have none.

    To merge with the hand-written errors (declarative.merge_covered): the attribute value union (its
    hand-written twin counts an empty list as a value, and reports at a shortened key), compatibilityGroups.
    `spec.devices` is an atomic list, so declarative validation sees no old device: a taint effect that
    hand-written validation ratchets is still checked, and long attribute keys are not shortened.
    `common_attributes`: hand-written validation found one value in every attribute (no union to check).
    """
    errs: ErrorList = []
    consumes = as_list(device.get("consumesCounters"))
    for j, consumption in enumerate(consumes):
        consumption = as_dict(consumption)
        groups = consumption.get("compatibilityGroups")
        if groups is not None:
            errs.extend(validate_compatibility_groups(groups, path.child("consumesCounters").index(j)
                                                      .child("compatibilityGroups")))
        counters = as_dict(consumption.get("counters"))
        # maxItems stops a list of more than 2 consumptions first.
        if len(consumes) <= RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE:
            errs.extend(counter_keys_past_the_limit(counters, RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION,
                                                    path.child("consumesCounters").index(j).child("counters")))
    if not common_attributes:
        errs.extend(_attributes_rules(device, path))
    return errs


def declarative_taint_effects(taints: list, path: Path) -> ErrorList:
    errs: ErrorList = []
    for k, taint in enumerate(taints):
        effect = as_str(as_dict(taint).get("effect"))
        if effect == "":
            errs.append(required(path.index(k).child("effect"), ""))
        elif effect not in VALID_DEVICE_TAINT_EFFECTS:
            errs.extend(declarative.enum(effect, VALID_DEVICE_TAINT_EFFECTS, path.index(k).child("effect")))
    return declarative.mark(errs)


def _one_value(attribute: Any) -> bool:
    """The common attribute, one value: the union holds (checked before any path is built)."""
    if type(attribute) is dict and len(attribute) == 1:
        ((name, value),) = attribute.items()
        return name in _SCALAR_VALUE_FIELDS and value is not None or name in _LIST_VALUE_FIELDS and bool(value)
    return False


def _attributes_rules(device: dict, path: Path) -> ErrorList:
    """`_attribute_rules` of each attribute that does not hold one value (the common case: no path built)."""
    return [error for key, attribute in as_dict(device.get("attributes")).items() if not _one_value(attribute)
            for error in _attribute_rules(attribute, path.child("attributes").key(key))]


def _attribute_rules(attribute: Any, path: Path) -> ErrorList:
    """Validate_DeviceAttribute: the value union (a list counts when not empty). Its `strings[i]` maxBytes 64 is
    alpha (MarkAlpha), not enforced."""
    attribute = as_dict(attribute)
    return declarative.union({name: (len(as_list(attribute.get(name))) != 0 if name in _LIST_VALUE_FIELDS
                                     else attribute.get(name) is not None)
                              for name in _ATTRIBUTE_VALUE_FIELDS}, path)


def _counter_consumption_rules(consumption: Any, path: Path) -> ErrorList:
    """Validate_DeviceCounterConsumption: counterSet required and a short name; counters required, keys short
    names (reported at the map, as EachMapKey does); compatibilityGroups."""
    consumption = as_dict(consumption)
    counter_set = consumption.get("counterSet")
    errs = declarative.required_value(counter_set, path.child("counterSet")) or \
        declarative.short_name(as_str(counter_set), path.child("counterSet"))
    counters = as_dict(consumption.get("counters"))
    if not counters:
        errs.extend(declarative.mark([required(path.child("counters"), "")]))
    for key in counters:
        errs.extend(declarative.short_name(key, path.child("counters")))
    groups = consumption.get("compatibilityGroups")
    if groups is not None:
        errs.extend(validate_compatibility_groups(groups, path.child("compatibilityGroups")))
    return errs


def validate_device_declaratively(device: Any, path: Path) -> ErrorList:
    """Validate_Device as enforced declarative validation runs it: every rule of one device, for a device
    hand-written validation did not look at (the slice is over its device limit)."""
    device = as_dict(device)
    errs = _attributes_rules(device, path)
    consumes = as_list(device.get("consumesCounters"))
    consumes_path = path.child("consumesCounters")
    too_many = declarative.max_items(consumes, RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
                                     consumes_path)
    errs.extend(too_many)
    if not too_many:
        errs.extend(declarative.unique_map(consumes, lambda c: as_str(as_dict(c).get("counterSet")), consumes_path))
        for j, consumption in enumerate(consumes):
            errs.extend(_counter_consumption_rules(consumption, consumes_path.index(j)))
    errs.extend(declarative_taint_effects(as_list(device.get("taints")), path.child("taints")))
    errs.extend(declarative.max_items(as_list(device.get("bindingConditions")), BINDING_CONDITIONS_MAX_SIZE,
                                      path.child("bindingConditions")))
    errs.extend(declarative.max_items(as_list(device.get("bindingFailureConditions")),
                                      BINDING_FAILURE_CONDITIONS_MAX_SIZE, path.child("bindingFailureConditions")))
    for name, resource in as_dict(device.get("nodeAllocatableResources")).items():
        mapping = as_dict(resource).get("mapping")
        if isinstance(mapping, dict):  # the stable union; the dependent-required rules are alpha
            errs.extend(declarative.union({"capacityKey": mapping.get("capacityKey") is not None,
                                           "deviceMultiplier": mapping.get("deviceMultiplier") is not None},
                                          path.child("nodeAllocatableResources").key(name).child("mapping")))
    return errs


def counter_keys_past_the_limit(counters: Any, limit: int, path: Path) -> ErrorList:
    """Hand-written validateMap stops at TooMany over `limit` counters; the declarative key rule (EachMapKey
    with ShortName, reported at the map) checks every key still."""
    counters = as_dict(counters)
    if len(counters) <= limit:
        return []
    return [error for key in counters for error in declarative.short_name(key, path)]


def shared_counters_past_the_limit(counter_sets: list, path: Path) -> ErrorList:
    """`counter_keys_past_the_limit` of each counter set (when the list itself is within its maxItems)."""
    if len(counter_sets) > RESOURCE_SLICE_MAX_COUNTER_SETS:
        return []
    return [error for i, counter_set in enumerate(counter_sets)
            for error in counter_keys_past_the_limit(as_dict(counter_set).get("counters"),
                                                     RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET,
                                                     path.index(i).child("counters"))]
