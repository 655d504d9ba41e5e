"""validateDeviceTaint, shared by ResourceSlice devices and DeviceTaintRule."""

from __future__ import annotations

from webhook.field import ErrorList, Path, not_supported, required
from webhook.validation._helpers import as_dict, as_str
from webhook.validation.names import validate_label_name, validate_label_value

DEVICE_TAINT_EFFECT_NO_SCHEDULE = "NoSchedule"
DEVICE_TAINT_EFFECT_NO_EXECUTE = "NoExecute"
DEVICE_TAINT_EFFECT_NONE = "None"
# Go's sets.List order (sorted), as NotSupported prints it.
VALID_DEVICE_TAINT_EFFECTS = (DEVICE_TAINT_EFFECT_NO_EXECUTE, DEVICE_TAINT_EFFECT_NO_SCHEDULE, DEVICE_TAINT_EFFECT_NONE)
# Before 1.35 (behaviour taint_effect_none).
VALID_DEVICE_TAINT_EFFECTS_WITHOUT_NONE = (DEVICE_TAINT_EFFECT_NO_EXECUTE, DEVICE_TAINT_EFFECT_NO_SCHEDULE)


def validate_device_taint(taint: dict, old_taint: dict | None, path: Path, effect_none: bool = True) -> ErrorList:
    """Key is a label key (empty gives two Invalid), value a label value; effect only when new or changed."""
    taint = as_dict(taint)
    errs: ErrorList = []
    key = as_str(taint.get("key"))
    errs.extend(validate_label_name(key, path.child("key")))
    value = as_str(taint.get("value"))
    if value:
        errs.extend(validate_label_value(value, path.child("value")))
    effect = as_str(taint.get("effect"))
    if old_taint is None or as_str(old_taint.get("effect") if isinstance(old_taint, dict) else None) != effect:
        if effect == "":
            errs.append(required(path.child("effect"), ""))
        else:
            effects = VALID_DEVICE_TAINT_EFFECTS if effect_none else VALID_DEVICE_TAINT_EFFECTS_WITHOUT_NONE
            if effect not in effects:
                errs.append(not_supported(path.child("effect"), effect, effects))
    return errs
