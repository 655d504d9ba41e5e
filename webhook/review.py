"""AdmissionReview wire format in and out (admission.k8s.io/v1 and v1beta1). Knows nothing of DRA."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

import orjson

from webhook.field import ECHOED_CAUSES, TRUNCATED, FieldError, aggregate_message, bounded_text, echo_bounded

SUPPORTED_VERSIONS = ("admission.k8s.io/v1", "admission.k8s.io/v1beta1")


class ReviewError(ValueError):
    """The body is not a usable AdmissionReview (HTTP 400). The message is one line."""


@dataclass(frozen=True)
class GroupVersionKind:
    group: str = ""
    version: str = ""
    kind: str = ""


@dataclass(frozen=True)
class AdmissionRequest:
    uid: str
    kind: GroupVersionKind
    operation: str
    object: Any = None
    old_object: Any = None
    sub_resource: str = ""
    name: str = ""
    namespace: str = ""
    dry_run: bool = False
    review_api_version: str = "admission.k8s.io/v1"
    options: Any = None


@dataclass
class AdmissionResponse:
    uid: str
    allowed: bool
    status: dict | None = None
    warnings: list[str] = field(default_factory=list)
    patch: list[dict] | None = None
    # The denial the drivers' own checks make alone (never sent as such): what stays a denial in a cluster,
    # where a built-in rule's failure is a profile mismatch (serving/mismatch.py).
    drivers_status: dict | None = field(default=None, compare=False, repr=False)

    def to_dict(self, with_patch: bool = True) -> dict:
        out: dict[str, Any] = {"uid": self.uid, "allowed": self.allowed}
        if self.status is not None:
            out["status"] = self.status
        if self.patch and with_patch:
            out["patchType"] = "JSONPatch"
            out["patch"] = base64.b64encode(json.dumps(self.patch, separators=(",", ":")).encode()).decode()
        if self.warnings:
            out["warnings"] = list(self.warnings)
        return out


def _str_field(data: dict, key: str, where: str) -> str:
    value = data.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ReviewError(f"{where}.{key} must be a string")
    return value


def decode_review(body: Any) -> AdmissionRequest:
    """Turns a parsed JSON body into an AdmissionRequest, or raises ReviewError."""
    if not isinstance(body, dict):
        raise ReviewError("body must be a JSON object (an AdmissionReview)")
    api_version = body.get("apiVersion")
    if body.get("kind") not in (None, "AdmissionReview"):
        raise ReviewError(f"kind must be AdmissionReview, not {body.get('kind')!r}")
    if api_version is None:
        api_version = "admission.k8s.io/v1"
    if api_version not in SUPPORTED_VERSIONS:
        raise ReviewError(f"unsupported apiVersion {api_version!r}; expected one of {', '.join(SUPPORTED_VERSIONS)}")
    request = body.get("request")
    if not isinstance(request, dict):
        raise ReviewError("AdmissionReview has no request")
    uid = request.get("uid")
    if not isinstance(uid, str) or not uid:
        raise ReviewError("request.uid is missing or empty")
    kind = request.get("kind")
    if kind is None:
        kind = {}
    if not isinstance(kind, dict):
        raise ReviewError("request.kind must be an object")
    gvk = GroupVersionKind(_str_field(kind, "group", "request.kind"), _str_field(kind, "version", "request.kind"),
                           _str_field(kind, "kind", "request.kind"))
    operation = _str_field(request, "operation", "request") or "CREATE"
    dry_run = request.get("dryRun", False)
    return AdmissionRequest(
        uid=uid,
        kind=gvk,
        operation=operation,
        object=request.get("object"),
        old_object=request.get("oldObject"),
        sub_resource=_str_field(request, "subResource", "request"),
        name=_str_field(request, "name", "request"),
        namespace=_str_field(request, "namespace", "request"),
        dry_run=dry_run is True,
        review_api_version=api_version,
        options=request.get("options"),
    )


def encode_review(response: AdmissionResponse, api_version: str = "admission.k8s.io/v1") -> dict:
    return {"apiVersion": api_version, "kind": "AdmissionReview", "response": response.to_dict()}


def encode_review_bytes(response: AdmissionResponse, api_version: str = "admission.k8s.io/v1") -> bytes:
    """The response body. A lone surrogate (a "\\ud800" escape in the request, echoed in the uid or a
    message) has no UTF-8 form: such a body is written with \\u escapes, which Go's decoder reads
    as U+FFFD, as it does in the request it sent."""
    document = encode_review(response, api_version)
    try:
        # The bytes of json.dumps(ensure_ascii=False, compact) for what a response holds (strings,
        # booleans, ints, lists, maps: no float, which orjson writes in its own way), several times faster.
        return orjson.dumps(document)
    except orjson.JSONEncodeError:  # a lone surrogate (or an int beyond 64 bits): json decides
        pass
    try:
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(document, separators=(",", ":")).encode("ascii")


def allow(uid: str, warnings: list[str] | None = None, patch: list[dict] | None = None) -> AdmissionResponse:
    return AdmissionResponse(uid=uid, allowed=True, warnings=list(warnings or []), patch=patch)


def _shown(errors: list[FieldError]) -> tuple[list[FieldError], str]:
    """The errors a reply lists, and what its message says of the others (bounded echo only)."""
    if len(errors) <= ECHOED_CAUSES or not echo_bounded():
        return errors, ""
    return errors[:ECHOED_CAUSES], f" (and {len(errors) - ECHOED_CAUSES} more errors not shown)"


def status_invalid(group: str, kind: str, name: str, errors: list[FieldError]) -> dict:
    """metav1.Status as apimachinery's NewInvalid builds it."""
    qualified = f"{kind}.{group}" if group else kind
    name = bounded_text(name)
    errors, more = _shown(errors)
    message = f'{qualified} "{name}" is invalid'
    if errors:
        message += ": " + aggregate_message(errors) + more
    return {
        "apiVersion": "v1",
        "kind": "Status",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": "Invalid",
        "details": {
            "name": name,
            "group": group,
            "kind": kind,
            "causes": [{"reason": e.type.value, "message": e.body(), "field": e.field} for e in errors],
        },
        "code": 422,
    }


def _failure(code: int, reason: str, message: str) -> dict:
    """A metav1.Status of a failed call, as apimachinery's StatusError carries it."""
    return {"apiVersion": "v1", "kind": "Status", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}


def status_bad_request(group: str, kind: str, name: str, message: str, errors: list[FieldError] = ()) -> dict:
    name = bounded_text(name)
    errors, more = _shown(list(errors))
    status = _failure(400, "BadRequest", message + more)
    if errors:
        status["details"] = {
            "name": name,
            "group": group,
            "kind": kind,
            "causes": [{"reason": e.type.value, "message": e.body(), "field": e.field} for e in errors],
        }
    return status


def status_not_found(message: str) -> dict:
    """A request about something that is not there (an API version or kind the server does not serve)."""
    return _failure(404, "NotFound", message)


def status_internal(message: str) -> dict:
    return _failure(500, "InternalError", message)


def deny(uid: str, status: dict, warnings: list[str] | None = None) -> AdmissionResponse:
    return AdmissionResponse(uid=uid, allowed=False, status=status, warnings=list(warnings or []))


# Warnings: the API server relays a webhook's warnings as Warning headers and, past 4 KiB of them
# in all, cuts each to 256 runes (k8s.io/apiserver/pkg/endpoints/filters/warning.go,
# truncateAtTotalRunes and truncateItemRunes). The server applies the same rule before sending.
WARNINGS_TOTAL_CHARS = 4 * 1024
WARNING_CHARS = 256
# Any one message of a served reply: a last bound for text built from the request outside the
# field errors (which bound their values themselves); well above a denial listing every cause.
MESSAGE_CHARS = 32 * 1024


def _relayed_warnings(warnings: list[str]) -> list[str]:
    """What the API server's warning recorder keeps of `warnings` (dedupe, then the 4 KiB rule)."""
    if sum(len(w) for w in warnings) <= WARNINGS_TOTAL_CHARS:
        return warnings
    seen: set[str] = set()
    kept: list[str] = []
    written, truncating = 0, False
    for text in warnings:
        if not text or (truncating and written >= WARNINGS_TOTAL_CHARS) or text in seen:
            continue
        seen.add(text)
        if truncating:
            text = text[:WARNING_CHARS]
        if truncating or written + len(text) <= WARNINGS_TOTAL_CHARS:
            written += len(text)
            kept.append(text)
            continue
        truncating = True  # every warning so far is kept whole: cut them all, this one too
        kept = [w[:WARNING_CHARS] for w in (*kept, text)]
        written = sum(len(w) for w in kept)
    return kept


relayed_warnings = _relayed_warnings  # for the cluster-state warnings, added after the review


def bound_echoes(response: AdmissionResponse) -> AdmissionResponse:
    """The response as the server sends it: warnings as the API server would relay them, and no
    message beyond MESSAGE_CHARS (field errors, built under field.bounded_echo, are short already)."""
    response.warnings = _relayed_warnings(response.warnings)
    status = response.status
    if status is not None:
        message = status.get("message")
        if isinstance(message, str) and len(message) > MESSAGE_CHARS:
            # Cut here whatever the context: this runs after the bounded review, where bounded_text
            # would hand the message back whole.
            status["message"] = message[:MESSAGE_CHARS] + TRUNCATED
    return response
