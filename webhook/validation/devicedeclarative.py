"""Declarative rules inside a ResourceSlice device that Kubernetes 1.37 enforces without a hand-written twin.

`compatibilityGroups` of a counter consumption has declarative rules only. Because `spec.devices` is an
atomic list, declarative validation sees no old device once the list changed: taint effects that
hand-written validation ratchets are checked again, and long attribute keys are not shortened in paths.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid, required
from webhook.limits import ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH, DEVICE_COMPATIBILITY_GROUPS_MAX_SIZE
from webhook.validation import declarative
from webhook.validation._helpers import as_dict, as_list, as_str
from webhook.validation.taints import VALID_DEVICE_TAINT_EFFECTS

_ATTRIBUTE_VALUE_FIELDS = ("bool", "int", "string", "version", "bools", "ints", "strings", "versions")


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


def declarative_device_rules(device: dict, path: Path) -> ErrorList:
    """1.37: declarative rules inside a device without a hand-written twin that ran here.

    `spec.devices` is an atomic list, so declarative validation sees no old device: a taint effect
    that hand-written validation ratchets is still checked, and long attribute keys are not shortened.
    """
    errs: ErrorList = []
    for j, consumption in enumerate(as_list(device.get("consumesCounters"))):
        groups = as_dict(consumption).get("compatibilityGroups")
        if groups is not None:
            errs.extend(validate_compatibility_groups(groups, path.child("consumesCounters").index(j)
                                                      .child("compatibilityGroups")))
    for key, attribute in as_dict(device.get("attributes")).items():
        # Hand-written validation reports the attribute union at a shortened key; this is its twin.
        if len(key) > ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH:
            attribute = as_dict(attribute)
            if sum(attribute.get(name) is not None for name in _ATTRIBUTE_VALUE_FIELDS) != 1:
                value = attribute if attribute else ""
                errs.extend(declarative.mark([invalid(path.child("attributes").key(key), value,
                                                      "exactly one value must be specified")]))
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
