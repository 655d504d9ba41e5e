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
from webhook.validation.equality import semantic_equal
from webhook.validation.names import validate_dns_label, validate_dns_subdomain, validate_driver_name
from webhook.validation.selectors import validate_selector_slice
from webhook.validation.poolname import validate_pool_name
from webhook.validation.taints import validate_device_taint


def validate_device_taint_selector(selector: Any, path: Path, old_selector: Any = None,
                                   opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    if not isinstance(selector, dict):
        return []
    errs: ErrorList = []
    cel_selectors = opts.profile.behaviours.taint_rule_cel_selectors
    class_name = selector.get("deviceClassName")
    if cel_selectors and isinstance(class_name, str):
        errs.extend(validate_dns_subdomain(class_name, path.child("deviceClassName")))
    driver, pool, device = selector.get("driver"), selector.get("pool"), selector.get("device")
    if isinstance(driver, str):
        errs.extend(validate_driver_name(driver, path.child("driver"), opts.profile.behaviours.empty_driver_name_also_invalid))
    if isinstance(pool, str):
        errs.extend(validate_pool_name(pool, path.child("pool")))
    if isinstance(device, str):
        errs.extend(validate_dns_label(device, path.child("device")))
    if cel_selectors:
        # Selectors exactly as before are compiled as stored; any change makes them new expressions.
        selectors = selector.get("selectors")
        stored = isinstance(old_selector, dict) and semantic_equal(selectors, old_selector.get("selectors"),
                                                                   "DeviceTaintSelector", "selectors")
        errs.extend(validate_selector_slice(selectors, path.child("selectors"), opts.with_stored(stored)))
    return errs


def validate_device_taint_rule_spec(spec: Any, old_spec: Any, path: Path, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    spec = as_dict(spec)
    old_selector = as_dict(old_spec).get("deviceSelector") if old_spec is not None else None
    errs = validate_device_taint_selector(spec.get("deviceSelector"), path.child("deviceSelector"), old_selector, opts)
    old_taint = as_dict(as_dict(old_spec).get("taint")) if old_spec is not None else None
    errs.extend(validate_device_taint(as_dict(spec.get("taint")), old_taint, path.child("taint"),
                                      opts.profile.behaviours.taint_effect_none))
    return errs


def validate_device_taint_rule(obj: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta(obj.get("metadata"), namespaced=False)
    errs.extend(validate_device_taint_rule_spec(obj.get("spec"), None, Path("spec"), opts))
    return errs


def validate_device_taint_rule_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(validate_device_taint_rule_spec(new.get("spec"), as_dict(old.get("spec")), Path("spec"), opts))
    return errs


def validate_device_taint_rule_status_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    if opts.profile.behaviours.taint_rule_cel_selectors:
        return errs  # 1.34 has no status (nor a /status subresource): nothing of it to check
    conditions = as_dict(new.get("status")).get("conditions")
    path = Path("status", "conditions")
    errs.extend(validate_conditions(conditions, path, opts.profile))
    if isinstance(conditions, list) and len(conditions) > DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS:
        errs.append(too_many(path, len(conditions), DEVICE_TAINT_RULE_STATUS_MAX_CONDITIONS))
    return errs
