"""validateDeviceToleration (catalogue B-17): tolerations of requests and subrequests.

Not checked upstream (so not here): an empty key with `Equal`, `tolerationSeconds`, and the
documented maximum of 16 tolerations.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid, not_supported, required
from webhook.validation.names import is_label_value, is_qualified_name

TOLERATION_OPERATORS = ("Equal", "Exists")
DEVICE_TAINT_EFFECTS = ("NoExecute", "NoSchedule", "None")  # sorted, as sets.List renders them


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def validate_device_toleration(toleration: Any, path: Path) -> ErrorList:
    toleration = toleration if isinstance(toleration, dict) else {}
    errs: ErrorList = []
    key = _str(toleration.get("key"))
    if key:
        errs.extend(invalid(path.child("key"), key, m) for m in is_qualified_name(key))
    operator, value = _str(toleration.get("operator")), _str(toleration.get("value"))
    if operator == "Exists":
        if value:
            errs.append(invalid(path.child("value"), value, "must be empty for operator `Exists`"))
    elif operator == "Equal":
        errs.extend(invalid(path.child("value"), value, m) for m in is_label_value(value))
    elif operator == "":
        errs.append(required(path.child("operator"), ""))
    else:
        errs.append(not_supported(path.child("operator"), operator, TOLERATION_OPERATORS))
    effect = _str(toleration.get("effect"))
    if effect and effect not in DEVICE_TAINT_EFFECTS:
        errs.append(not_supported(path.child("effect"), effect, DEVICE_TAINT_EFFECTS))
    return errs


def validate_device_tolerations(tolerations: Any, path: Path) -> ErrorList:
    errs: ErrorList = []
    for i, toleration in enumerate(tolerations if isinstance(tolerations, list) else []):
        errs.extend(validate_device_toleration(toleration, path.index(i)))
    return errs
