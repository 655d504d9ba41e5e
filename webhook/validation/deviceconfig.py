"""Opaque device configuration (validateDeviceConfiguration): claims, allocation results, DeviceClass."""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, required
from webhook.limits import OPAQUE_PARAMETERS_MAX_LENGTH
from webhook.validation._helpers import as_str
from webhook.validation.names import validate_driver_name
from webhook.validation.options import Options
from webhook.validation.rawjson import validate_raw_extension


def validate_opaque_configuration(opaque: dict, path: Path, opts: Options) -> ErrorList:
    driver = opaque.get("driver")
    errs = validate_driver_name(as_str(driver), path.child("driver"),
                                opts.profile.behaviours.empty_driver_name_also_invalid)
    errs.extend(validate_raw_extension(opaque.get("parameters"), path.child("parameters"), opts.stored,
                                       OPAQUE_PARAMETERS_MAX_LENGTH))
    return errs


def validate_device_configuration(config: Any, path: Path, opts: Options) -> ErrorList:
    """`config` is the object that inlines DeviceConfiguration; `path` is that object's path."""
    opaque = config.get("opaque") if isinstance(config, dict) else None
    if not isinstance(opaque, dict):
        return [required(path.child("opaque"), "")]
    return validate_opaque_configuration(opaque, path.child("opaque"), opts)
