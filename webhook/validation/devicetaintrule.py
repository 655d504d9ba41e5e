"""DeviceTaintRule validation (ValidateDeviceTaintRule and its update functions), served as v1beta2 and v1alpha3.

The taint itself goes through the shared validate_device_taint (also used for ResourceSlice
devices); its effect is only checked when new or changed.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, too_many
from webhook.limits import DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS
from webhook.validation._helpers import as_dict
from webhook.validation.conditions import validate_conditions
from webhook.validation.options import DEFAULT_OPTIONS, Options
from webhook.validation.meta import validate_object_meta, validate_object_meta_update
from webhook.validation.names import validate_dns_label, validate_driver_name
from webhook.validation.poolname import validate_pool_name
from webhook.validation.taints import validate_device_taint


def validate_device_taint_selector(selector: Any, path: Path) -> ErrorList:
    if not isinstance(selector, dict):
        return []
    errs: ErrorList = []
    driver, pool, device = selector.get("driver"), selector.get("pool"), selector.get("device")
    if isinstance(driver, str):
        errs.extend(validate_driver_name(driver, path.child("driver")))
    if isinstance(pool, str):
        errs.extend(validate_pool_name(pool, path.child("pool")))
    if isinstance(device, str):
        errs.extend(validate_dns_label(device, path.child("device")))
    return errs


def validate_device_taint_rule_spec(spec: Any, old_spec: Any, path: Path) -> ErrorList:
    spec = as_dict(spec)
    errs = validate_device_taint_selector(spec.get("deviceSelector"), path.child("deviceSelector"))
    old_taint = as_dict(as_dict(old_spec).get("taint")) if old_spec is not None else None
    errs.extend(validate_device_taint(as_dict(spec.get("taint")), old_taint, path.child("taint")))
    return errs


def validate_device_taint_rule(obj: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta(obj.get("metadata"), namespaced=False)
    errs.extend(validate_device_taint_rule_spec(obj.get("spec"), None, Path("spec")))
    return errs


def validate_device_taint_rule_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(validate_device_taint_rule_spec(new.get("spec"), as_dict(old.get("spec")), Path("spec")))
    return errs


def validate_device_taint_rule_status_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    conditions = as_dict(new.get("status")).get("conditions")
    path = Path("status", "conditions")
    errs.extend(validate_conditions(conditions, path))
    if isinstance(conditions, list) and len(conditions) > DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS:
        errs.append(too_many(path, len(conditions), DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS))
    return errs
