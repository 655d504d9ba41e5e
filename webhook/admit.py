"""Dispatch by kind, operation and subresource: the one module that knows both the wire and DRA.

`validate()` checks the object as received; `mutate()` answers with the defaults as a JSON Patch;
`review()` does both in the API server's order (defaults, then validation), as the offline reviewer
needs. None of them raises, except `cel.DeadlineExceeded` when the caller's deadline
(`cel.request_deadline`) passes: a bug becomes `allowed: false` with code 500, logged with the uid.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable

from webhook import cel, conversion, mutation
from webhook.api.decode import check_types
from webhook.field import ErrorList
from webhook.review import (
    AdmissionRequest,
    AdmissionResponse,
    allow,
    deny,
    status_bad_request,
    status_internal,
    status_invalid,
)
from webhook.validation import deviceclass, devicetaintrule, resourceclaim, resourceclaimtemplate, resourceslice

log = logging.getLogger("dra-webhook")

GROUP = "resource.k8s.io"

CreateRule = Callable[[dict], ErrorList]
UpdateRule = Callable[[dict, dict], ErrorList]
WarningRule = Callable[[dict, "dict | None"], list[str]]


@dataclass(frozen=True)
class KindRules:
    namespaced: bool
    versions: tuple[str, ...]
    create: CreateRule
    update: UpdateRule
    status_update: UpdateRule | None = None
    warnings: WarningRule | None = None


RULES: dict[str, KindRules] = {
    "ResourceSlice": KindRules(
        namespaced=False,
        versions=("v1", "v1beta2", "v1beta1"),
        create=resourceslice.validate_resource_slice,
        update=resourceslice.validate_resource_slice_update,
        warnings=resourceslice.resource_slice_warnings,
    ),
    "ResourceClaim": KindRules(
        namespaced=True,
        versions=("v1", "v1beta2", "v1beta1", "v1alpha3"),
        create=resourceclaim.validate_resource_claim,
        update=resourceclaim.validate_resource_claim_update,
        status_update=resourceclaim.validate_resource_claim_status_update,
        warnings=resourceclaim.resource_claim_warnings,
    ),
    "ResourceClaimTemplate": KindRules(
        namespaced=True,
        versions=("v1", "v1beta2", "v1beta1", "v1alpha3"),
        create=resourceclaimtemplate.validate_resource_claim_template,
        update=resourceclaimtemplate.validate_resource_claim_template_update,
        warnings=resourceclaimtemplate.resource_claim_template_warnings,
    ),
    "DeviceClass": KindRules(
        namespaced=False,
        versions=("v1", "v1beta2", "v1beta1", "v1alpha3"),
        create=deviceclass.validate_device_class,
        update=deviceclass.validate_device_class_update,
    ),
    "DeviceTaintRule": KindRules(
        namespaced=False,
        versions=("v1beta2", "v1alpha3"),
        create=devicetaintrule.validate_device_taint_rule,
        update=devicetaintrule.validate_device_taint_rule_update,
        status_update=devicetaintrule.validate_device_taint_rule_status_update,
    ),
}

# Versions that Kubernetes 1.36 no longer serves for a kind but that we still accept and convert.
RETIRED_VERSIONS: dict[tuple[str, str], str] = {
    ("ResourceClaim", "v1alpha3"): "resource.k8s.io/v1alpha3 ResourceClaim is no longer served (since Kubernetes 1.32)",
    ("ResourceClaimTemplate", "v1alpha3"):
        "resource.k8s.io/v1alpha3 ResourceClaimTemplate is no longer served (since Kubernetes 1.32)",
    ("DeviceClass", "v1alpha3"): "resource.k8s.io/v1alpha3 DeviceClass is no longer served (since Kubernetes 1.32)",
}


@dataclass(frozen=True)
class Target:
    """What a request is about, resolved from request.kind and the object's own TypeMeta."""

    group: str
    version: str
    kind: str
    name: str


def _resolve(request: AdmissionRequest) -> Target:
    obj = request.object if isinstance(request.object, dict) else {}
    if not obj and isinstance(request.old_object, dict):
        obj = request.old_object
    group, version, kind = request.kind.group, request.kind.version, request.kind.kind
    api_version = obj.get("apiVersion") if isinstance(obj.get("apiVersion"), str) else ""
    if not kind and isinstance(obj.get("kind"), str):
        kind = obj["kind"]
    if not group and not version and api_version:
        group, _, version = api_version.rpartition("/")
    metadata = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
    name = metadata.get("name") if isinstance(metadata.get("name"), str) else ""
    return Target(group, version, kind, name or request.name)


def _now() -> datetime:
    return datetime.now(timezone.utc)


class _Denied(Exception):
    """Internal control flow: the request is answered with this response."""

    def __init__(self, response: AdmissionResponse):
        self.response = response


def _unhandled(request: AdmissionRequest, target: Target) -> AdmissionResponse | None:
    """Answers requests we do not validate; None when the request is ours."""
    if target.group != GROUP:
        return allow(request.uid, [f"dra-webhook: {target.kind or 'object'} of group {target.group!r} is not "
                                   f"handled; allowed without checks"])
    rules = RULES.get(target.kind)
    if rules is None:
        return allow(request.uid, [f"dra-webhook: kind {target.kind!r} of {GROUP} is not handled; "
                                   f"allowed without checks"])
    if request.operation in ("DELETE", "CONNECT"):
        return allow(request.uid)
    if request.operation not in ("CREATE", "UPDATE"):
        return deny(request.uid, status_bad_request(GROUP, target.kind, target.name,
                                                    f"unsupported operation {request.operation!r}"))
    return None


def _prepare(request: AdmissionRequest, target: Target, raw: Any, role: str) -> tuple[dict, list[str]]:
    """Converts one object (object or oldObject) to v1 and checks its JSON types."""
    if not isinstance(raw, dict):
        message = f"request.{role} must be a JSON object" if raw is not None else f"request.{role} is missing"
        raise _Denied(deny(request.uid, status_bad_request(GROUP, target.kind, target.name, message)))
    warnings: list[str] = []
    retired = RETIRED_VERSIONS.get((target.kind, target.version))
    if retired and role == "object":
        warnings.append(retired)
    elif target.version and target.version not in RULES[target.kind].versions and role == "object":
        warnings.append(f"{GROUP}/{target.version} {target.kind} is not a version dra-webhook knows; "
                        f"validated as v1")
    converted, conversion_warnings = conversion.to_v1(target.kind, target.version, raw)
    warnings.extend(conversion_warnings)
    type_errors, unknown = check_types(target.kind, converted)
    if role == "object":
        warnings.extend(unknown)
    if type_errors:
        qualified = f"{target.kind}.{GROUP}"
        message = f'{qualified} "{target.name}" cannot be decoded: ' + "; ".join(str(e) for e in type_errors[:5])
        raise _Denied(deny(request.uid, status_bad_request(GROUP, target.kind, target.name, message, type_errors),
                           warnings))
    return converted, warnings


def _validate_objects(request: AdmissionRequest, target: Target, obj: dict, old: dict | None,
                      warnings: list[str]) -> AdmissionResponse:
    """Runs the kind's rules and attaches the CEL fallback warnings. The time limit is the caller's
    (`cel.request_deadline`, set by the server per request); offline checks have none."""
    with cel.collect_warnings() as cel_warnings:
        response = _check_objects(request, target, obj, old, warnings)
    for warning in cel_warnings:
        if f"dra-webhook: {warning}" not in response.warnings:
            response.warnings.append(f"dra-webhook: {warning}")
    return response


def _check_objects(request: AdmissionRequest, target: Target, obj: dict, old: dict | None,
                   warnings: list[str]) -> AdmissionResponse:
    rules = RULES[target.kind]
    if request.operation == "CREATE":
        errors = rules.create(obj)
    elif request.sub_resource == "status":
        if rules.status_update is None:
            return allow(request.uid, warnings + [f"dra-webhook: {target.kind} has no status subresource; "
                                                  f"allowed without checks"])
        errors = rules.status_update(obj, old or {})
    elif request.sub_resource:
        return allow(request.uid, warnings + [f"dra-webhook: subresource {request.sub_resource!r} of "
                                              f"{target.kind} is not handled; allowed without checks"])
    else:
        errors = rules.update(obj, old or {})
    if rules.warnings is not None:
        warnings = warnings + rules.warnings(obj, old if request.operation == "UPDATE" else None)
    if errors:
        return deny(request.uid, status_invalid(GROUP, target.kind, target.name, errors), warnings)
    return allow(request.uid, warnings)


def _guarded(request: AdmissionRequest, body: Callable[[Target], AdmissionResponse]) -> AdmissionResponse:
    target = Target("", "", "", "")
    try:
        target = _resolve(request)
        unhandled = _unhandled(request, target)
        if unhandled is not None:
            return unhandled
        return body(target)
    except _Denied as denied:
        return denied.response
    except cel.DeadlineExceeded:
        raise  # a failed call, not a verdict: the server answers 504 Timeout
    except RecursionError:
        return deny(request.uid, status_bad_request(GROUP, target.kind, target.name, "object is nested too deeply"))
    except Exception:  # a bug of ours: never a crash, never a silent allow
        log.exception("internal error while reviewing uid=%s kind=%s name=%s", request.uid, target.kind, target.name)
        return deny(request.uid, status_internal(f"dra-webhook internal error while reviewing "
                                                 f"{target.kind or 'object'} {target.name!r} (uid {request.uid})"))


def validate(request: AdmissionRequest) -> AdmissionResponse:
    """The validating webhook: the object is checked as received (already defaulted in a cluster)."""

    def body(target: Target) -> AdmissionResponse:
        obj, warnings = _prepare(request, target, request.object, "object")
        old = None
        if request.operation == "UPDATE":
            old, _ = _prepare(request, target, request.old_object, "oldObject")
        return _validate_objects(request, target, obj, old, warnings)

    return _guarded(request, body)


def _defaulted(request: AdmissionRequest, target: Target, now: datetime,
               in_place: bool = False) -> tuple[dict, list[dict]]:
    obj = request.object
    if not isinstance(obj, dict):
        raise _Denied(deny(request.uid, status_bad_request(GROUP, target.kind, target.name,
                                                           "request.object must be a JSON object")))
    old = request.old_object if isinstance(request.old_object, dict) else None
    return mutation.default_with_patch(target.kind, target.version, obj, old, request.operation, now,
                                       in_place=in_place)


def mutate(request: AdmissionRequest, now: datetime | None = None, *, in_place: bool = False) -> AdmissionResponse:
    """The mutating webhook: the defaults the API server would apply, as a JSON Patch.

    `in_place` defaults request.object itself instead of a copy, for a caller that owns it (the
    server, which parsed it for this request alone): a 2 MB claim is not copied to compute a patch.
    """

    def body(target: Target) -> AdmissionResponse:
        if request.sub_resource:
            return allow(request.uid)
        _, patch = _defaulted(request, target, now or _now(), in_place=in_place)
        return allow(request.uid, patch=patch or None)

    return _guarded(request, body)


def review(request: AdmissionRequest, *, apply_defaults: bool = True, now: datetime | None = None) -> AdmissionResponse:
    """Offline review: defaults first (unless disabled), then validation of the defaulted object.

    The response carries the defaulting patch, so reports can show what the API server would add.
    """

    def body(target: Target) -> AdmissionResponse:
        patch: list[dict] = []
        effective = request
        if apply_defaults and not request.sub_resource:
            after, patch = _defaulted(request, target, now or _now())
            effective = _replace_object(request, after)
        obj, warnings = _prepare(effective, target, effective.object, "object")
        old = None
        if request.operation == "UPDATE":
            old, _ = _prepare(effective, target, effective.old_object, "oldObject")
        response = _validate_objects(effective, target, obj, old, warnings)
        if patch:
            response.patch = patch
        return response

    return _guarded(request, body)


def _replace_object(request: AdmissionRequest, obj: dict) -> AdmissionRequest:
    from dataclasses import replace

    return replace(request, object=obj)
