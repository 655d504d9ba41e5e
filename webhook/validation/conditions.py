"""metav1 ValidateConditions: `status.devices[].conditions`, DeviceTaintRule status."""

from __future__ import annotations

import re
from typing import Any

from webhook.field import ErrorList, Path, duplicate, invalid, not_supported, required, too_long
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


def validate_condition(condition: Any, path: Path) -> ErrorList:
    condition = as_dict(condition)
    errs: ErrorList = []
    ctype = as_str(condition.get("type"))
    errs.extend(invalid(path.child("type"), ctype, m) for m in is_qualified_name(ctype))
    status = as_str(condition.get("status"))
    if status not in CONDITION_STATUSES:
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


def validate_conditions(conditions: Any, path: Path) -> ErrorList:
    errs: ErrorList = []
    seen: set[str] = set()
    for i, condition in enumerate(as_list(conditions)):
        ctype = as_str(condition.get("type")) if isinstance(condition, dict) else ""
        if ctype in seen:
            errs.append(duplicate(path.index(i).child("type"), ctype))
        else:
            seen.add(ctype)
        errs.extend(validate_condition(condition, path.index(i)))
    return errs
