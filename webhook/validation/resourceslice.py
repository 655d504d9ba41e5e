"""ResourceSlice validation (catalogue §2). Foundation scope: metadata and the device-count limit."""

from __future__ import annotations

from webhook.field import ErrorList, Path, too_many
from webhook.validation.meta import validate_object_meta, validate_object_meta_update

RESOURCE_SLICE_MAX_DEVICES = 128


def validate_resource_slice(slice_: dict) -> ErrorList:
    errs = validate_object_meta(slice_.get("metadata"), namespaced=False)
    errs.extend(_validate_spec(slice_.get("spec") or {}, Path("spec")))
    return errs


def validate_resource_slice_update(new: dict, old: dict) -> ErrorList:
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(_validate_spec(new.get("spec") or {}, Path("spec")))
    return errs


def resource_slice_warnings(new: dict, old: dict | None) -> list[str]:
    return []


def _validate_spec(spec: dict, path: Path) -> ErrorList:
    devices = spec.get("devices") or []
    if len(devices) > RESOURCE_SLICE_MAX_DEVICES:
        return [too_many(path.child("devices"), len(devices), RESOURCE_SLICE_MAX_DEVICES)]
    return []
