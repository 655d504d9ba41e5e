"""metav1 ValidateConditions: `status.devices[].conditions`, DeviceTaintRule and ResourcePoolStatusRequest status.

apimachinery v0.37 rewrote it in the form of metav1.Condition's declarative rules (listType=map on `type`,
+k8s:required on `type` and `status`): behaviour conditions_declarative_form."""

from __future__ import annotations

import re
from typing import Any

from webhook.field import ErrorList, Path, duplicate, invalid, not_supported, required, too_long
from webhook.profile import DEFAULT, Profile
from webhook.validation._helpers import as_dict, as_list, as_str
from webhook.validation.names import byte_len, is_qualified_name, regex_error

CONDITION_STATUSES = ("False", "True", "Unknown")  # sorted, as sets.String.List renders them
MAX_REASON_LENGTH = 1 * 1024
MAX_MESSAGE_LENGTH = 32 * 1024
_REASON_FMT = "[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?"
_REASON_MSG = ("a condition reason must start with alphabetic character, optionally followed by a string of "
               "alphanumeric characters or '_,:', and must end with an alphanumeric character or '_'")
_reason = re.compile(_REASON_FMT)
# metav1.Time's zero value, as it round-trips through JSON.
_ZERO_TIMES = ("", "0001-01-01T00:00:00Z", "0001-01-01T00:00:00+00:00")


def is_zero_time(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value in _ZERO_TIMES)


def validate_condition(condition: Any, path: Path, profile: Profile = DEFAULT) -> ErrorList:
    condition = as_dict(condition)
    errs: ErrorList = []
    ctype = as_str(condition.get("type"))
    status = as_str(condition.get("status"))
    declarative_form = profile.behaviours.conditions_declarative_form
    if declarative_form and not ctype:
        errs.append(required(path.child("type"), "is required"))
    else:
        errs.extend(invalid(path.child("type"), ctype, m) for m in is_qualified_name(ctype))
    if declarative_form and not status:
        errs.append(required(path.child("status"), ""))
    elif status not in CONDITION_STATUSES:
        errs.append(not_supported(path.child("status"), status, CONDITION_STATUSES))
    generation = condition.get("observedGeneration")
    if isinstance(generation, int) and not isinstance(generation, bool) and generation < 0:
        errs.append(invalid(path.child("observedGeneration"), generation, "must be greater than or equal to zero"))
    if is_zero_time(condition.get("lastTransitionTime")):
        errs.append(required(path.child("lastTransitionTime"), ""))
    reason = as_str(condition.get("reason"))
    if not reason:
        errs.append(required(path.child("reason"), ""))
    else:
        if not _reason.fullmatch(reason):
            errs.append(invalid(path.child("reason"), reason, regex_error(
                _REASON_MSG, _REASON_FMT, "my_name", "MY_NAME", "MyName", "ReasonA,ReasonB", "ReasonA:ReasonB")))
        if byte_len(reason) > MAX_REASON_LENGTH:
            errs.append(too_long(path.child("reason"), "", MAX_REASON_LENGTH))
    if byte_len(as_str(condition.get("message"))) > MAX_MESSAGE_LENGTH:
        errs.append(too_long(path.child("message"), "", MAX_MESSAGE_LENGTH))
    return errs


def validate_conditions(conditions: Any, path: Path, profile: Profile = DEFAULT) -> ErrorList:
    """A repeated type is a Duplicate at the item's `type` (before v0.37) or at the item."""
    errs: ErrorList = []
    seen: set[str] = set()
    declarative_form = profile.behaviours.conditions_declarative_form
    for i, condition in enumerate(as_list(conditions)):
        ctype = as_str(condition.get("type")) if isinstance(condition, dict) else ""
        if ctype in seen:
            errs.append(duplicate(path.index(i) if declarative_form else path.index(i).child("type"), ctype))
        else:
            seen.add(ctype)
        errs.extend(validate_condition(condition, path.index(i), profile))
    return errs
