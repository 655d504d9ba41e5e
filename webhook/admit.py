"""Dispatch by kind, operation and subresource: the one module that knows both the wire and DRA.

`validate()` checks the object as received; `mutate()` answers with the defaults as a JSON Patch;
`review()` does both in the API server's order (defaults, then validation), as the offline reviewer
needs. None of them raises, except `cel.DeadlineExceeded` when the caller's deadline
(`cel.request_deadline`) passes: a bug becomes `allowed: false` with code 500, logged with the uid.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Mapping

from webhook import cel, deprecation, kinds, manifest
from webhook.api import attributes as attribute_types
from webhook.api.decode import check_types, without_unknown_fields
from webhook.conversion import paths
from webhook.drivers import check as drivers
from webhook.kinds import GROUP, KINDS, Retired
from webhook.profile import DEFAULT, Profile
from webhook.review import (
    AdmissionRequest,
    AdmissionResponse,
    allow,
    deny,
    status_bad_request,
    status_internal,
    status_invalid,
    status_not_found,
)
from webhook.strategy.status import reset_for_status, status_defaults
from webhook.validation.commonfields import one_per_message, validate_common_fields
from webhook.validation.options import Options


# Field validation of bare manifests, as kubectl's --validate asks the API server for it.
STRICT, WARN, IGNORE = "Strict", "Warn", "Ignore"
# The stored object of an update was defaulted when it was written, before the request: a clock default (a
# taint's timeAdded) that a manifest leaves out differs between the two objects, as in a cluster.
_WRITTEN_BEFORE = timedelta(seconds=1)


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
    if target.kind not in KINDS:
        return allow(request.uid, [f"dra-webhook: kind {target.kind!r} of {GROUP} is not handled; "
                                   f"allowed without checks"])
    if request.operation in ("DELETE", "CONNECT"):
        return allow(request.uid)
    if request.operation not in ("CREATE", "UPDATE"):
        return deny(request.uid, status_bad_request(GROUP, target.kind, target.name,
                                                    f"unsupported operation {request.operation!r}"))
    return None


def _version_warnings(target: Target, profile: Profile) -> list[str]:
    """The cluster sent this version, so it serves it; say so only when we do not know the version."""
    api_version = KINDS[target.kind].api_version(profile, target.version)
    if isinstance(api_version, Retired):
        return [f"{GROUP}/{target.version} {target.kind} is no longer served (since Kubernetes {api_version.since})"]
    if api_version is None and target.version:
        return [f"{GROUP}/{target.version} {target.kind} is not a version dra-webhook knows; validated as v1"]
    return []


def _prepare(request: AdmissionRequest, target: Target, raw: Any, role: str, profile: Profile,
             field_validation: str = WARN) -> tuple[dict, list[str]]:
    """Converts one object (object or oldObject) to v1 and checks its JSON types.

    Unknown fields are warnings, as the API server's default field validation has them; with
    `field_validation` STRICT (kubectl's default for what it sends) they refuse the object, IGNORE drops them.
    """
    if not isinstance(raw, dict):
        message = f"request.{role} must be a JSON object" if raw is not None else f"request.{role} is missing"
        raise _Denied(deny(request.uid, status_bad_request(GROUP, target.kind, target.name, message)))
    warnings = _version_warnings(target, profile) if role == "object" else []
    converted, conversion_warnings = kinds.to_v1(target.kind, target.version, raw, profile)
    warnings.extend(conversion_warnings)
    type_errors, unknown = check_types(KINDS[target.kind].wire_model(profile), converted, target.version or "v1",
                                       raw, profile.behaviours.decoder_names_embedded_structs)
    if role == "object" and unknown and field_validation == STRICT and not type_errors:
        message = (f'{target.kind} in version "{target.version}" cannot be handled as a {target.kind}: '
                   f"strict decoding error: " + ", ".join(unknown))
        raise _Denied(deny(request.uid, status_bad_request(GROUP, target.kind, target.name, message), warnings))
    if type_errors:  # the API server refuses the object with the first one (transformDecodeError), and
        # says nothing of unknown fields then: the decoder's strict errors become warnings only for an object
        # that decoded (k8s.io/apiserver handlers/create.go, update.go).
        message = f'{target.kind} in version "{target.version}" cannot be handled as a {target.kind}: ' + \
            type_errors[0].detail
        raise _Denied(deny(request.uid, status_bad_request(GROUP, target.kind, target.name, message, type_errors),
                           warnings))
    if unknown:  # dropped, as by Go's decoder: what is validated (and compared with the stored object) is the rest
        converted = without_unknown_fields(KINDS[target.kind].wire_model(profile), converted)
        if role == "object" and field_validation != IGNORE:
            warnings.extend(unknown)
    return converted, warnings


def _validate_objects(request: AdmissionRequest, target: Target, obj: dict, old: dict | None,
                      warnings: list[str], opts: Options) -> AdmissionResponse:
    """Runs the kind's rules and attaches the CEL fallback warnings. The time limit is the caller's
    (`cel.request_deadline`, set by the server per request); offline checks have none."""
    with cel.collect_warnings() as cel_warnings:
        response = _check_objects(request, target, obj, old, warnings, opts)
    for warning in cel_warnings:
        if f"dra-webhook: {warning}" not in response.warnings:
            response.warnings.append(f"dra-webhook: {warning}")
    return response


def _check_objects(request: AdmissionRequest, target: Target, obj: dict, old: dict | None,
                   warnings: list[str], opts: Options) -> AdmissionResponse:
    kind = KINDS[target.kind]
    if request.operation == "CREATE":
        errors = kind.create(obj, opts)
    elif request.sub_resource == "status":
        status_update = kind.status_rule(opts.profile)
        if status_update is None:
            return allow(request.uid, warnings + [f"dra-webhook: {target.kind} has no status subresource; "
                                                  f"allowed without checks"])
        errors = status_update(obj, old or {}, opts)
    elif request.sub_resource:
        return allow(request.uid, warnings + [f"dra-webhook: subresource {request.sub_resource!r} of "
                                              f"{target.kind} is not handled; allowed without checks"])
    else:
        errors = kind.update(obj, old or {}, opts)
    driver_errors: list = []
    if request.operation in ("CREATE", "UPDATE") and not request.sub_resource:
        # The drivers' own checks of their opaque parameters (webhook.drivers), after the built-in rules.
        driver_errors, driver_warnings = drivers.check_object(target.kind, obj, old if request.operation == "UPDATE"
                                                              else None, opts.profile.drivers)
        errors, warnings = errors + driver_errors, warnings + driver_warnings
    errors = paths.to_request_version(target.kind, target.version, errors, opts.profile)
    strategy_warnings: list[str] = []
    if kind.strategy_checks is not None:  # upstream reports these before the validation errors
        strategy_errors, strategy_warnings = kind.strategy_checks(obj, old if request.operation == "UPDATE" else None,
                                                                  opts)
        errors = strategy_errors + errors
    if request.operation == "UPDATE":  # rest.BeforeUpdate checks the common metadata before the strategy does
        errors = validate_common_fields(obj, old or {}, kind.namespaced) + errors
    if opts.profile.behaviours.handwritten_errors_deduplicated:
        errors = one_per_message(errors)
    if not errors:  # rest.BeforeCreate/BeforeUpdate return the errors before asking for the warnings
        warnings = warnings + strategy_warnings
    if errors:
        response = deny(request.uid, status_invalid(GROUP, target.kind, target.name, errors), warnings)
        if driver_errors:
            response.drivers_status = status_invalid(GROUP, target.kind, target.name, driver_errors)
        return response
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
    except (cel.DeadlineExceeded, cel.CompileNeeded):
        raise  # a failed call, not a verdict (504 Timeout), or work for a worker process
    except RecursionError:
        return deny(request.uid, status_bad_request(GROUP, target.kind, target.name, "object is nested too deeply"))
    except Exception:  # a bug of ours: never a crash, never a silent allow
        import logging  # only here: offline start-up stays short

        logging.getLogger("dra-webhook").exception("internal error while reviewing uid=%s kind=%s name=%s",
                                                   request.uid, target.kind, target.name)
        return deny(request.uid, status_internal(f"dra-webhook internal error while reviewing "
                                                 f"{target.kind or 'object'} {target.name!r} (uid {request.uid})"))


@dataclass(frozen=True)
class _Manifest:
    """How a bare manifest reaches validation: kubectl's field validation, and the namespaces (with their
    labels) the cluster is known to have."""

    field_validation: str
    namespaces: Mapping[str, Mapping[str, str]]


def _validate_request(request: AdmissionRequest, target: Target, profile: Profile,
                      manifest: _Manifest | None = None, defer_attribute_types: bool = True) -> AdmissionResponse:
    """`manifest` is None for what a cluster sent (or recorded); for a bare manifest the registry
    strategy's drop step runs as it would, and its admin-access check sees the known namespaces.

    The type check of the object's device attribute maps is left to validation, which walks every
    attribute anyway (webhook.api.attributes); a map validation does not vouch for is type-checked in
    full afterwards, and anything but a clean verdict answers the request as if it had come first."""
    field_validation = manifest.field_validation if manifest else WARN
    deferred = attribute_types.Deferred() if defer_attribute_types else None
    with attribute_types.deferring(deferred):
        obj, warnings = _prepare(request, target, request.object, "object", profile, field_validation)
        if deferred is not None:
            deferred.recording = False  # the object's maps only (not the old object's)
        if deferred is None or not deferred.maps:
            return _validate_prepared(request, target, obj, warnings, profile, manifest)
        try:
            response: AdmissionResponse | None = _validate_prepared(request, target, obj, warnings, profile,
                                                                    manifest)
        except (cel.DeadlineExceeded, cel.CompileNeeded):
            raise
        except Exception:  # the old object's type errors or a rule's failure: the object's types come first
            response = None
    if response is not None and deferred.complete():
        return response
    type_errors, unknown = check_types(KINDS[target.kind].wire_model(profile), obj, target.version or "v1",
                                       embedded=profile.behaviours.decoder_names_embedded_structs)
    if response is not None and not type_errors and not unknown:
        return response
    return _validate_request(request, target, profile, manifest, defer_attribute_types=False)


def _validate_prepared(request: AdmissionRequest, target: Target, obj: dict, warnings: list[str], profile: Profile,
                       manifest: _Manifest | None) -> AdmissionResponse:
    """The rest of `_validate_request` once the object is converted and type-checked."""
    old = None
    if request.operation == "UPDATE":
        old, _ = _prepare(request, target, request.old_object, "oldObject", profile)
    if manifest is not None:  # what the registry strategy does before validation, said out loud
        if request.sub_resource == "status" and isinstance(old, dict):
            obj = reset_for_status(obj, old)
        obj, dropped = kinds.drop_disabled_fields(target.kind, obj, old, profile, subresource=request.sub_resource)
        warnings.extend(d.warning() for d in dropped)
    else:  # the API server has dropped them already: if any arrive, our gates are not the cluster's
        present = kinds.disabled_fields_present(target.kind, obj, old, profile, subresource=request.sub_resource)
        warnings.extend(f"dra-webhook: {d.path} is set, but feature gate {d.gate} is disabled in this webhook's "
                        f"--feature-gates; the cluster's gates differ (a cluster with it disabled drops the field)"
                        for d in present)
    opts = Options(profile, namespaces=manifest.namespaces if manifest else None)
    return _validate_objects(request, target, obj, old, warnings, opts)


def validate(request: AdmissionRequest, *, profile: Profile = DEFAULT) -> AdmissionResponse:
    """The validating webhook: the object is checked as received (already defaulted in a cluster)."""
    return _guarded(request, lambda target: _validate_request(request, target, profile))


def _defaulted(request: AdmissionRequest, target: Target, now: datetime, profile: Profile,
               in_place: bool = False) -> tuple[dict, list[dict]]:
    obj = request.object
    if not isinstance(obj, dict):
        raise _Denied(deny(request.uid, status_bad_request(GROUP, target.kind, target.name,
                                                           "request.object must be a JSON object")))
    old = request.old_object if isinstance(request.old_object, dict) else None
    return kinds.default_with_patch(target.kind, target.version, obj, old, request.operation, now, profile,
                                    in_place=in_place)


def mutate(request: AdmissionRequest, *, profile: Profile = DEFAULT, now: datetime | None = None,
           in_place: bool = False) -> AdmissionResponse:
    """The mutating webhook: the defaults the API server would apply, as a JSON Patch.

    `in_place` defaults request.object itself instead of a copy, for a caller that owns it (the
    server, which parsed it for this request alone): a 2 MB claim is not copied to compute a patch.
    """

    def body(target: Target) -> AdmissionResponse:
        if request.sub_resource:
            return allow(request.uid)
        _, patch = _defaulted(request, target, now or _now(), profile, in_place=in_place)
        return allow(request.uid, patch=patch or None)

    return _guarded(request, body)


def review(request: AdmissionRequest, *, profile: Profile = DEFAULT, apply_defaults: bool = True,
           now: datetime | None = None) -> AdmissionResponse:
    """Offline review of a recorded AdmissionReview: defaults first (unless disabled), then validation of
    the defaulted object. The response carries the defaulting patch, so reports can show what the API
    server would add."""
    return _review(request, profile, apply_defaults, now, manifest=None)


def _review(request: AdmissionRequest, profile: Profile, apply_defaults: bool, now: datetime | None,
            manifest: _Manifest | None) -> AdmissionResponse:
    def body(target: Target) -> AdmissionResponse:
        patch: list[dict] = []
        effective = request
        if apply_defaults and request.sub_resource in ("", "status"):
            moment = now or _now()  # one clock reading for both objects
            after, patch = _defaulted(request, target, moment, profile)
            if request.sub_resource == "status":
                after, patch = status_defaults(request.object, after, patch)
            if after is not request.object:  # the same object when no default applies
                effective = replace(request, object=after)
            if isinstance(request.old_object, dict):  # the stored object: defaulted when written (earlier) and read
                stored = kinds.default_with_patch(target.kind, target.version, request.old_object, None, "CREATE",
                                                  moment - _WRITTEN_BEFORE, profile)[0]
                if stored is not request.old_object:
                    effective = replace(effective, old_object=stored)
        response = _validate_request(effective, target, profile, manifest)
        if patch:
            response.patch = patch
        return response

    return _guarded(request, body)


def _zero_nulls(value: Any, profile: Profile) -> Any:
    """A manifest's nulls in lists and maps as Go's decoder leaves them (webhook.api.nulls), read in the shape of
    the version it was sent in (a converted version: v1beta1's), before defaulting and conversion."""
    if not isinstance(value, dict) or not isinstance(value.get("apiVersion"), str) or value.get("kind") not in KINDS:
        return value
    from webhook.api import nulls

    if not nulls.contains_null(value):
        return value
    group, _, version = value["apiVersion"].rpartition("/")
    api_version = KINDS[value["kind"]].api_version(profile, version) if group == GROUP else None
    if api_version is None or isinstance(api_version, Retired):
        return value
    from webhook.api.mirror import load_model

    layout = nulls.V1 if api_version.converter is None else nulls.FLAT
    return nulls.zero_nulls(load_model(KINDS[value["kind"]].wire_model(profile)), value, layout)


def review_manifest(request: AdmissionRequest, *, profile: Profile = DEFAULT, namespace: str = manifest.DEFAULT_NAMESPACE,
                    apply_defaults: bool = True, now: datetime | None = None,
                    field_validation: str = STRICT,
                    namespaces: Mapping[str, Mapping[str, str]] | None = None) -> AdmissionResponse:
    """Offline review of bare manifests wrapped as a request (object, and oldObject for an UPDATE).

    First what kubectl and the API server do to a manifest: a group/version/kind the target Kubernetes
    does not serve is refused in kubectl's words (for a retired version still understood, a hint gives
    the verdict of the object converted to v1); a namespaced object without a namespace gets
    `namespace`, a cluster-scoped one loses any it names; a create with only `generateName` gets a
    name; unknown fields refuse the object under kubectl's default strict field validation. Then the
    review, with the fields of disabled gates dropped as the registry strategy drops them.

    `namespaces` are the labels of the namespaces known to exist (`manifest.namespaces_in`, the
    default: a new cluster's); the admin-access check is decided for them and only warned about for
    any other namespace.
    """
    context = _Manifest(field_validation, manifest.namespaces_in(()) if namespaces is None else namespaces)
    source = request.object if isinstance(request.object, dict) else request.old_object
    if not isinstance(source, dict):
        return review(request, profile=profile, apply_defaults=apply_defaults, now=now)
    placed = {role: manifest.place_in_namespace(getattr(request, role), namespace)
              for role in ("object", "old_object") if isinstance(getattr(request, role), dict)}
    if request.operation == "CREATE" and "object" in placed:
        placed["object"] = manifest.generate_name(placed["object"])
    for role in ("object", "old_object"):  # JSON nulls as Go decodes them, where the wire model has the shape
        if role in placed:
            placed[role] = _zero_nulls(placed[role], profile)
    placed_namespace = manifest.namespace_of(placed.get("object") or placed.get("old_object"))
    if placed_namespace is not None:
        placed["namespace"] = placed_namespace
    effective = replace(request, **placed)
    mapping = manifest.map_manifest(source, profile)
    if mapping.refusal is None:
        response = _review(effective, profile, apply_defaults, now, context)
        response.warnings[:0] = deprecation.manifest_warnings(source, profile) + mapping.warnings
        if response.allowed and request.operation == "CREATE" and manifest.resource_version_set(source):
            # The storage layer refuses it after validation and admission: a plain error, so a 500.
            return deny(request.uid, status_internal("Internal error occurred: resourceVersion should not be set "
                                                     "on objects to be created"), response.warnings)
        return response
    warnings = list(mapping.warnings)
    if mapping.retired:
        kind = manifest.type_meta(source)[2]
        converted = _review(effective, profile, apply_defaults, now, context)
        verdict = "allowed" if converted.allowed else "denied: " + str((converted.status or {}).get("message", ""))
        warnings.append(f"dra-webhook: converted to {GROUP}/v1, this {kind} would be {verdict}")
    return deny(request.uid, status_not_found(mapping.refusal), warnings)
