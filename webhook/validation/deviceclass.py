"""DeviceClass validation (ValidateDeviceClass, ValidateDeviceClassUpdate).

Update is ValidateDeviceClassUpdate(new, old): the metadata (the create rules too from 1.35, then the
update rules) and the spec, the latter with "stored" semantics for a selectors or config list that is
unchanged, so that an unchanged over-long opaque configuration stays valid (upstream's own update table:
one TooLong for a changed over-long configuration, none for an unchanged one). 1.34's strategy runs
ValidateDeviceClass(new) first (kinds.py, behaviour update_revalidates_object): there every spec error
comes twice. From 1.37 declarative validation checks a new or changed extendedResourceName in place of
the hand-written rule.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid
from webhook.limits import DEVICE_CONFIG_MAX_SIZE, DEVICE_SELECTORS_MAX_SIZE
from webhook.validation import declarative
from webhook.validation._helpers import as_dict, as_list, validate_slice
from webhook.validation.deviceconfig import validate_device_configuration
from webhook.validation.equality import semantic_equal
from webhook.validation.meta import validate_object_meta, validate_object_meta_update, validate_object_meta_with_opts
from webhook.validation.names import DEFAULT_RESOURCE_REQUESTS_PREFIX, is_native_resource, is_qualified_name
from webhook.validation.options import DEFAULT_OPTIONS, Options
from webhook.validation.selectors import validate_selector


def is_extended_resource_name(name: str) -> bool:
    """core/v1 helper IsExtendedResourceName."""
    if is_native_resource(name) or name.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        return False
    return not is_qualified_name(DEFAULT_RESOURCE_REQUESTS_PREFIX + name)


def validate_device_class_spec(spec: Any, old_spec: Any, path: Path, opts: Options) -> ErrorList:
    spec = as_dict(spec)
    selectors = as_list(spec.get("selectors"))
    stored = opts.with_stored(old_spec is not None
                              and semantic_equal(selectors, as_list(as_dict(old_spec).get("selectors")),
                                                 "DeviceClassSpec", "selectors"))
    errs = validate_slice(selectors, DEVICE_SELECTORS_MAX_SIZE,
                          lambda selector, p: validate_selector(selector, p, stored, pinned=True),
                          path.child("selectors"), opts.profile.behaviours.list_size_short_circuit)
    config = as_list(spec.get("config"))
    stored = opts.with_stored(old_spec is not None
                              and semantic_equal(config, as_list(as_dict(old_spec).get("config")),
                                                 "DeviceClassSpec", "config"))
    errs.extend(validate_slice(config, DEVICE_CONFIG_MAX_SIZE,
                               lambda entry, p: validate_device_configuration(entry, p, stored), path.child("config"),
                               opts.profile.behaviours.list_size_short_circuit))
    name = spec.get("extendedResourceName")
    if isinstance(name, str):
        errs.extend(_validate_extended_resource_name(name, old_spec, path.child("extendedResourceName"), opts))
    return errs


def _validate_extended_resource_name(name: str, old_spec: Any, path: Path, opts: Options) -> ErrorList:
    errs = [] if is_extended_resource_name(name) else [invalid(path, name, "must be a valid extended resource name")]
    if not opts.profile.behaviours.declarative_validation:
        return errs
    if old_spec is not None and as_dict(old_spec).get("extendedResourceName") == name:
        return errs  # declarative validation does not validate an unchanged value again
    return declarative.merge_covered(errs, declarative.extended_resource_name(name, path))


def validate_device_class(obj: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    if opts.profile.behaviours.class_meta_with_opts:
        errs = validate_object_meta_with_opts(obj.get("metadata"), namespaced=False)
    else:
        errs = validate_object_meta(obj.get("metadata"), namespaced=False)
    errs.extend(validate_device_class_spec(obj.get("spec"), None, Path("spec"), opts))
    return errs


def validate_device_class_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta_with_opts(new.get("metadata"), namespaced=False) \
        if opts.profile.behaviours.update_validates_object_meta else []
    errs.extend(validate_object_meta_update(new.get("metadata"), old.get("metadata")))
    errs.extend(validate_device_class_spec(new.get("spec"), as_dict(old.get("spec")), Path("spec"), opts))
    return errs
