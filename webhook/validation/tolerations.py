"""validateDeviceToleration: tolerations of requests and subrequests.

Not checked upstream (so not here): an empty key with `Equal`, `tolerationSeconds`, and the
documented maximum of 16 tolerations.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid, not_supported, required
from webhook.validation._helpers import as_dict, as_list, as_str
from webhook.validation.names import validate_label_name, validate_label_value
from webhook.validation.taints import VALID_DEVICE_TAINT_EFFECTS, VALID_DEVICE_TAINT_EFFECTS_WITHOUT_NONE

TOLERATION_OPERATORS = ("Equal", "Exists")


def validate_device_toleration(toleration: Any, path: Path,
                               effects: tuple[str, ...] = VALID_DEVICE_TAINT_EFFECTS) -> ErrorList:
    toleration = as_dict(toleration)
    errs: ErrorList = []
    key = as_str(toleration.get("key"))
    if key:
        errs.extend(validate_label_name(key, path.child("key")))
    operator, value = as_str(toleration.get("operator")), as_str(toleration.get("value"))
    if operator == "Exists":
        if value:
            errs.append(invalid(path.child("value"), value, "must be empty for operator `Exists`"))
    elif operator == "Equal":
        errs.extend(validate_label_value(value, path.child("value")))
    elif operator == "":
        errs.append(required(path.child("operator"), ""))
    else:
        errs.append(not_supported(path.child("operator"), operator, TOLERATION_OPERATORS))
    effect = as_str(toleration.get("effect"))
    if effect and effect not in effects:
        errs.append(not_supported(path.child("effect"), effect, effects))
    return errs


def validate_device_tolerations(tolerations: Any, path: Path, effect_none: bool = True) -> ErrorList:
    """`effect_none`: the release knows the taint effect `None` (behaviour taint_effect_none)."""
    effects = VALID_DEVICE_TAINT_EFFECTS if effect_none else VALID_DEVICE_TAINT_EFFECTS_WITHOUT_NONE
    errs: ErrorList = []
    for i, toleration in enumerate(as_list(tolerations)):
        errs.extend(validate_device_toleration(toleration, path.index(i), effects))
    return errs
