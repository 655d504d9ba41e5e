"""Field paths of declarative errors in the request's API version (Kubernetes 1.37, v1beta1 only).

From 1.37 declarative validation is enforced, and it runs on the object as the request sent it. For
v1beta1 its errors therefore name v1beta1 fields: a request's flat fields (`requests[i].allocationMode`,
not `requests[i].exactly.allocationMode`) and a slice device's `basic` (`devices[i].basic.taints[0]`).
Hand-written errors keep the internal (v1) paths. An error is declarative when a declarative-only rule
reported it (`FieldError.declarative`), or when it is a hand-written error marked covered by
declarative validation (upstream `MarkCoveredByDeclarative`), which the declarative twin replaces;
the covered ones inside the moved fields are listed here.
"""

from __future__ import annotations

import re
from dataclasses import replace

from webhook.conversion.resourceslice import BASIC_DEVICE_FIELDS_1_37
from webhook.field import ErrorList, FieldError
from webhook.profile import Profile

_CLAIM_REQUEST = re.compile(r"^((?:spec\.)?spec\.devices\.requests\[\d+\])\.exactly\.(.*)$")
_SLICE_DEVICE = re.compile(r"^(spec\.devices\[\d+\])\.(.*)$")

# (rest of the path after the moved prefix, error types) of covered hand-written errors.
_COVERED_REQUEST = [
    (re.compile(r"allocationMode"), {"FieldValueNotSupported"}),
    (re.compile(r"selectors"), {"FieldValueTooMany"}),
    (re.compile(r"tolerations\[\d+\]\.key"), {"FieldValueInvalid"}),
    (re.compile(r"tolerations\[\d+\]\.operator"), {"FieldValueRequired", "FieldValueNotSupported"}),
    (re.compile(r"tolerations\[\d+\]\.effect"), {"FieldValueNotSupported"}),
]
_COVERED_DEVICE = [
    (re.compile(r"attributes\[.*\]"), {"FieldValueInvalid"}),  # the attribute union, see _is_covered
    (re.compile(r"consumesCounters"), {"FieldValueTooMany"}),
    (re.compile(r"consumesCounters\[\d+\]"), {"FieldValueDuplicate"}),
    (re.compile(r"consumesCounters\[\d+\]\.counterSet"), {"FieldValueRequired", "FieldValueInvalid"}),
    (re.compile(r"consumesCounters\[\d+\]\.counters"), {"FieldValueRequired", "FieldValueInvalid"}),
    (re.compile(r"taints\[\d+\]\.effect"), {"FieldValueRequired", "FieldValueNotSupported"}),
    (re.compile(r"binding(Failure)?Conditions"), {"FieldValueTooMany"}),
]
_UNION_DETAIL = "exactly one value must be specified"


def _is_covered(error: FieldError, rest: str, table: list) -> bool:
    for pattern, types in table:
        if pattern.fullmatch(rest) and error.type.value in types:
            return not rest.startswith("attributes[") or error.detail == _UNION_DETAIL
    return False


def _reshape(error: FieldError, kind: str) -> FieldError:
    if kind in ("ResourceClaim", "ResourceClaimTemplate"):
        match = _CLAIM_REQUEST.match(error.field)
        if match and (error.declarative or _is_covered(error, match.group(2), _COVERED_REQUEST)):
            return replace(error, field=f"{match.group(1)}.{match.group(2)}", declarative=True)
    elif kind == "ResourceSlice":
        match = _SLICE_DEVICE.match(error.field)
        if match and match.group(2).split(".")[0].split("[")[0] in BASIC_DEVICE_FIELDS_1_37:
            if error.declarative or _is_covered(error, match.group(2), _COVERED_DEVICE):
                return replace(error, field=f"{match.group(1)}.basic.{match.group(2)}", declarative=True)
    return error


def to_request_version(kind: str, version: str, errors: ErrorList, profile: Profile) -> ErrorList:
    """`errors` with declarative ones at the request version's paths (only v1beta1 differs from v1)."""
    if version != "v1beta1" or not profile.behaviours.declarative_validation:
        return errors
    return [_reshape(error, kind) for error in errors]
