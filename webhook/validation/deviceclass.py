"""DeviceClass validation. Foundation scope: metadata only; the full rule set comes with its own issue."""

from __future__ import annotations

from webhook.field import ErrorList
from webhook.validation.meta import validate_object_meta, validate_object_meta_with_opts, validate_object_meta_update


def validate_device_class(obj: dict) -> ErrorList:
    return validate_object_meta_with_opts(obj.get("metadata"), namespaced=False)


def validate_device_class_update(new: dict, old: dict) -> ErrorList:
    return validate_object_meta_update(new.get("metadata"), old.get("metadata"))
