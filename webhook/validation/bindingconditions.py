"""validateDeviceBindingParameters: binding conditions of a device or an allocation result."""

from __future__ import annotations

from webhook.field import ErrorList, Path, duplicate, invalid
from webhook.limits import BINDING_CONDITIONS_MAX_SIZE, BINDING_FAILURE_CONDITIONS_MAX_SIZE
from webhook.validation._helpers import as_dict, as_list, as_str, validate_slice
from webhook.validation.names import validate_label_name


def _validate_condition_list(items: list, max_size: int, path: Path, short: bool) -> ErrorList:
    return validate_slice(items, max_size, lambda item, p: validate_label_name(as_str(item), p), path, short)


def validate_device_binding_parameters(obj: dict, path: Path, short: bool = True) -> ErrorList:
    """`short`: behaviour list_size_short_circuit (1.34 validates every condition of a list over its limit)."""
    obj = as_dict(obj)
    conditions = as_list(obj.get("bindingConditions"))
    failures = as_list(obj.get("bindingFailureConditions"))
    cond_path = path.child("bindingConditions")
    fail_path = path.child("bindingFailureConditions")
    errs = _validate_condition_list(conditions, BINDING_CONDITIONS_MAX_SIZE, cond_path, short)
    errs.extend(_validate_condition_list(failures, BINDING_FAILURE_CONDITIONS_MAX_SIZE, fail_path, short))
    errs.extend(_duplicates(conditions, cond_path))
    condition_set = {c for c in conditions if isinstance(c, str)}
    seen: set = set()
    for i, failure in enumerate(failures):
        if not isinstance(failure, str):
            continue
        if failure in seen:
            errs.append(duplicate(fail_path.index(i), failure))
        else:
            seen.add(failure)
        if failure in condition_set:
            errs.append(invalid(fail_path.index(i), failure,
                                "bindingFailureConditions must not overlap with bindingConditions"))
    if not conditions and failures:
        errs.append(invalid(cond_path, conditions, "bindingConditions are required to use bindingFailureConditions"))
    if not failures and conditions:
        errs.append(invalid(fail_path, failures, "bindingFailureConditions are required to use bindingConditions"))
    return errs


def _duplicates(items: list, path: Path) -> ErrorList:
    errs: ErrorList = []
    seen: set = set()
    for i, item in enumerate(items):
        if not isinstance(item, str):
            continue
        if item in seen:
            errs.append(duplicate(path.index(i), item))
        else:
            seen.add(item)
    return errs
