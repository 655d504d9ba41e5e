"""The drivers' own checks of `opaque.parameters`, for the objects that carry device configurations.

ResourceClaim (`spec.devices.config`) and ResourceClaimTemplate (`spec.spec.devices.config`) are
checked when created: their spec is immutable, so an update never brings a new configuration, and
re-checking a stored one would block status updates once a profile became stricter. DeviceClass
(`spec.config`) is checked on create and whenever its configurations change, when the profile says
so (`deviceClassConfigs`). A configuration for a driver without a profile passes (with a warning when
asked). The parameters are read, never changed.
"""

from __future__ import annotations

from typing import Any

from webhook.drivers.profiles import DriverProfile
from webhook.drivers.registry import DriverSet, DriverSource
from webhook.drivers.validate import validate_value
from webhook.field import ErrorList, Path, forbidden, not_supported, required, type_invalid

NO_PROFILE_WARNING = "dra-webhook: no driver profile for {driver}; its opaque parameters at {path} are not checked"


def validate_opaque_parameters(profile: DriverProfile, drivers: DriverSet, driver: str, parameters: Any,
                               path: Path) -> ErrorList:
    """The driver's verdict on one configuration's parameters (`path` is `...opaque.parameters`)."""
    if not isinstance(parameters, dict):
        return []  # built-in validation reports it (must be a valid JSON object)
    if profile.decoding == "untyped":
        kind = profile.kinds[0]
    else:
        api_version, kind_name = parameters.get("apiVersion"), parameters.get("kind")
        errs: ErrorList = []
        for name, value in (("apiVersion", api_version), ("kind", kind_name)):
            if value is not None and not isinstance(value, str):
                errs.append(type_invalid(path.child(name), value, "must be of type string"))
            elif not value:
                errs.append(required(path.child(name), ""))
        if errs:
            return errs
        kind = profile.kind_for(api_version, kind_name)
        if kind is None:
            versions = sorted({k.api_version for k in profile.kinds})
            if api_version not in versions:
                return [not_supported(path.child("apiVersion"), api_version, versions)]
            return [not_supported(path.child("kind"), kind_name,
                                  sorted(k.kind for k in profile.kinds if k.api_version == api_version))]
    if profile.rules_skipped:
        from webhook.cel.budget import warn

        warn(f"{path}: CEL rules of driver profile {driver} were skipped: {profile.rules_skipped}")
    return validate_value(kind.schema, parameters, path, drivers.params(driver), profile.case_insensitive_keys)


def _within_limit(parameters: Any) -> bool:
    from webhook.limits import OPAQUE_PARAMETERS_MAX_LENGTH
    from webhook.validation.rawjson import raw_size

    try:
        return raw_size(parameters) <= OPAQUE_PARAMETERS_MAX_LENGTH
    except (TypeError, ValueError):
        return False


def _configs(kind: str, obj: dict) -> tuple[Any, Path] | None:
    spec = obj.get("spec") if isinstance(obj.get("spec"), dict) else {}
    if kind == "ResourceClaim":
        devices = spec.get("devices")
        return (devices.get("config") if isinstance(devices, dict) else None), Path("spec", "devices", "config")
    if kind == "ResourceClaimTemplate":
        inner = spec.get("spec") if isinstance(spec.get("spec"), dict) else {}
        devices = inner.get("devices")
        return (devices.get("config") if isinstance(devices, dict) else None), \
            Path("spec", "spec", "devices", "config")
    if kind == "DeviceClass":
        return spec.get("config"), Path("spec", "config")
    return None


def check_object(kind: str, obj: dict, old: dict | None, source: DriverSource) -> tuple[ErrorList, list[str]]:
    """(errors, warnings) of the drivers' checks for one object (`old`: the stored object on an update)."""
    if kind not in ("ResourceClaim", "ResourceClaimTemplate", "DeviceClass"):
        return [], []
    if old is not None and (kind != "DeviceClass" or _configs(kind, obj)[0] == _configs(kind, old)[0]):
        return [], []
    configs, path = _configs(kind, obj)
    if not isinstance(configs, list):
        return [], []
    drivers = source.current()
    errors: ErrorList = []
    warnings: list[str] = []
    for i, config in enumerate(configs):
        opaque = config.get("opaque") if isinstance(config, dict) else None
        if not isinstance(opaque, dict) or not isinstance(opaque.get("driver"), str):
            continue
        driver = opaque["driver"]
        opaque_path = path.index(i).child("opaque")
        profile = drivers.profile(driver)
        if profile is None:
            if source.warn_without_profile:
                warnings.append(NO_PROFILE_WARNING.format(driver=driver, path=opaque_path.child("parameters")))
            continue
        if kind == "DeviceClass":
            if profile.device_class_configs == "ignore":
                continue
            if profile.device_class_configs == "forbid":
                errors.append(forbidden(opaque_path, f"driver {driver} does not accept configuration from a "
                                                     f"DeviceClass"))
                continue
        parameters = opaque.get("parameters")
        if not _within_limit(parameters):
            # Built-in validation says Too long (or not JSON): the API server refuses the object before any
            # driver sees it. The rules are priced for 10 KiB: one `replace` on a 20 MB string took 2.7 GB.
            continue
        errors.extend(validate_opaque_parameters(profile, drivers, driver, parameters,
                                                 opaque_path.child("parameters")))
    return errors, warnings
