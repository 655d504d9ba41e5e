"""ObjectMeta validation: apimachinery's objectmeta.go plus core's finalizer rule (validateKubeFinalizerName).

Metadata arrives as the JSON dict of the object's `metadata`; absent fields are Go zero values.
"""

from __future__ import annotations

from typing import Any, Callable

from webhook.field import ErrorList, Path, forbidden, internal_error, invalid, required, too_long
from webhook.validation._helpers import as_str
from webhook.validation.names import (
    byte_len,
    is_dns1123_label,
    is_dns1123_subdomain,
    is_label_value,
    is_qualified_name,
)

FIELD_IMMUTABLE = "field is immutable"
TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024
MAX_SUBRESOURCE_NAME_LENGTH = 256
MAX_FIELD_MANAGER_LENGTH = 128
STANDARD_FINALIZERS = frozenset({"kubernetes", "orphan", "foregroundDeletion"})

NameFunc = Callable[[str, bool], tuple[str, ...]]


def _mask_trailing_dash(name: str) -> str:
    # apimachinery's maskTrailingDash: a generateName prefix may end in '-'.
    if len(name) > 1 and name.endswith("-"):
        return name[:-2] + "a"
    return name


def name_is_dns_subdomain(name: str, prefix: bool) -> tuple[str, ...]:
    return is_dns1123_subdomain(_mask_trailing_dash(name) if prefix else name)


def name_is_dns_label(name: str, prefix: bool) -> tuple[str, ...]:
    return is_dns1123_label(_mask_trailing_dash(name) if prefix else name)


def name_is_path_segment(name: str, prefix: bool) -> tuple[str, ...]:
    """apimachinery's ValidatePathSegmentName: what a name must be to sit in a URL path (the registry's own check)."""
    if not prefix and name in (".", ".."):
        return (f"may not be '{name}'",)
    return tuple(f"may not contain '{c}'" for c in ("/", "%") if c in name)


def _str(meta: dict, key: str) -> str:
    value = meta.get(key)
    return as_str(value)


def validate_immutable(new: Any, old: Any, path: Path) -> ErrorList:
    """ValidateImmutableField: semantic deep-equal; callers normalise values compared by meaning (quantities)."""
    if new != old:
        return [invalid(path, new, FIELD_IMMUTABLE)]
    return []


def validate_labels(labels: dict | None, path: Path) -> ErrorList:
    errs: ErrorList = []
    for key, value in (labels or {}).items():
        if messages := is_qualified_name(key):  # names mostly pass: then no generator and no path is built
            errs.extend(invalid(path, key, m) for m in messages)
        if messages := is_label_value(as_str(value)):
            errs.extend(invalid(path, value, m) for m in messages)
    return errs


def validate_annotations(annotations: dict | None, path: Path) -> ErrorList:
    errs: ErrorList = []
    total = 0
    for key, value in (annotations or {}).items():
        if messages := is_qualified_name(key.lower()):
            errs.extend(invalid(path, key, m) for m in messages)
        total += byte_len(key) + byte_len(as_str(value))
    if total > TOTAL_ANNOTATION_SIZE_LIMIT:
        errs.append(too_long(path, "", TOTAL_ANNOTATION_SIZE_LIMIT))
    return errs


def _parse_group_version(api_version: str) -> tuple[str, str] | None:
    if not api_version:
        return ("", "")
    parts = api_version.split("/")
    if len(parts) == 1:
        return ("", parts[0])
    if len(parts) == 2:
        return (parts[0], parts[1])
    return None


def validate_owner_references(refs: list | None, path: Path) -> ErrorList:
    errs: ErrorList = []
    first_controller = ""
    for ref in refs or []:
        api_version, kind = _str(ref, "apiVersion"), _str(ref, "kind")
        group_version = _parse_group_version(api_version)
        group, version = group_version if group_version else ("", "")
        if not version:
            errs.append(invalid(path.child("apiVersion"), api_version, "version must not be empty"))
        if not kind:
            errs.append(invalid(path.child("kind"), kind, "must not be empty"))
        if not _str(ref, "name"):
            errs.append(invalid(path.child("name"), _str(ref, "name"), "must not be empty"))
        if not _str(ref, "uid"):
            errs.append(invalid(path.child("uid"), _str(ref, "uid"), "must not be empty"))
        if group == "" and version == "v1" and kind == "Event":
            errs.append(invalid(path, ref, "/v1, Kind=Event is disallowed from being an owner"))
        if ref.get("controller") is True:
            current = f"{kind}/{_str(ref, 'name')}"
            if first_controller:
                errs.append(invalid(path, refs, "Only one reference can have Controller set to true. "
                                    f'Found "true" in references for {first_controller} and {current}'))
            else:
                first_controller = current
    return errs


def _validate_finalizers(finalizers: list | None, path: Path) -> ErrorList:
    errs: ErrorList = []
    names = [f for f in finalizers or [] if isinstance(f, str)]
    for name in names:
        if messages := is_qualified_name(name):
            errs.extend(invalid(path, name, m) for m in messages)
    if "orphan" in names and "foregroundDeletion" in names:
        errs.append(invalid(path, names, "finalizer orphan and foregroundDeletion cannot be both set"))
    return errs


def _validate_kube_finalizers(finalizers: list | None, path: Path) -> ErrorList:
    # core's validateKubeFinalizerName, run per entry on top of the apimachinery checks.
    errs: ErrorList = []
    for i, name in enumerate(finalizers or []):
        if not isinstance(name, str):
            continue
        item = path.index(i)
        if messages := is_qualified_name(name):
            errs.extend(invalid(item, name, m) for m in messages)
        if "/" not in name and name not in STANDARD_FINALIZERS:
            errs.append(invalid(item, name, "name is neither a standard finalizer name nor is it fully qualified"))
    return errs


def validate_managed_fields(entries: list | None, path: Path) -> ErrorList:
    errs: ErrorList = []
    for i, entry in enumerate(entries or []):
        item = path.index(i)
        operation = _str(entry, "operation")
        if operation not in ("Apply", "Update"):
            errs.append(invalid(item.child("operation"), operation, "must be `Apply` or `Update`"))
        fields_type = _str(entry, "fieldsType")
        if fields_type and fields_type != "FieldsV1":
            errs.append(invalid(item.child("fieldsType"), fields_type, "must be `FieldsV1`"))
        manager = _str(entry, "manager")
        if byte_len(manager) > MAX_FIELD_MANAGER_LENGTH:
            errs.append(too_long(item.child("manager"), manager, MAX_FIELD_MANAGER_LENGTH))
        for ch in manager:
            if not ch.isprintable():
                errs.append(invalid(item.child("manager"), manager, "invalid character " + repr(ch)))
                break
        subresource = _str(entry, "subresource")
        if byte_len(subresource) > MAX_SUBRESOURCE_NAME_LENGTH:
            errs.append(too_long(item.child("subresource"), subresource, MAX_SUBRESOURCE_NAME_LENGTH))
    return errs


def _validate_common(meta: dict, namespaced: bool, path: Path) -> ErrorList:
    errs: ErrorList = []
    namespace = _str(meta, "namespace")
    if namespaced:
        if not namespace:
            errs.append(required(path.child("namespace"), ""))
        elif messages := name_is_dns_label(namespace, False):
            errs.extend(invalid(path.child("namespace"), namespace, m) for m in messages)
    elif namespace:
        errs.append(forbidden(path.child("namespace"), "not allowed on this type"))
    generation = meta.get("generation")
    if isinstance(generation, int) and generation < 0:
        errs.append(invalid(path.child("generation"), generation, "must be greater than or equal to 0"))
    errs.extend(validate_labels(meta.get("labels"), path.child("labels")))
    errs.extend(validate_annotations(meta.get("annotations"), path.child("annotations")))
    errs.extend(validate_owner_references(meta.get("ownerReferences"), path.child("ownerReferences")))
    errs.extend(_validate_finalizers(meta.get("finalizers"), path.child("finalizers")))
    errs.extend(validate_managed_fields(meta.get("managedFields"), path.child("managedFields")))
    return errs


def validate_object_meta(meta: dict | None, namespaced: bool, name_fn: NameFunc = name_is_dns_subdomain,
                         path: Path | None = None) -> ErrorList:
    """core's ValidateObjectMeta (create): apimachinery's, plus the kube finalizer names."""
    path = path or Path("metadata")
    errs = validate_object_meta_accessor(meta, namespaced, name_fn, path)
    errs.extend(_validate_kube_finalizers((meta or {}).get("finalizers"), path.child("finalizers")))
    return errs


def validate_object_meta_accessor(meta: dict | None, namespaced: bool, name_fn: NameFunc,
                                  path: Path | None = None) -> ErrorList:
    """apimachinery's ValidateObjectMetaAccessor."""
    meta = meta or {}
    path = path or Path("metadata")
    errs: ErrorList = []
    generate_name = _str(meta, "generateName")
    if generate_name:
        if messages := name_fn(generate_name, True):
            errs.extend(invalid(path.child("generateName"), generate_name, m) for m in messages)
    name = _str(meta, "name")
    if not name:
        errs.append(required(path.child("name"), "name or generateName is required"))
    else:
        if messages := name_fn(name, False):
            errs.extend(invalid(path.child("name"), name, m) for m in messages)
    errs.extend(_validate_common(meta, namespaced, path))
    return errs


def validate_object_meta_with_opts(meta: dict | None, namespaced: bool, path: Path | None = None) -> ErrorList:
    """ValidateObjectMetaWithOpts as DeviceClass uses it (name a DNS subdomain, no generateName check)."""
    meta = meta or {}
    path = path or Path("metadata")
    errs: ErrorList = []
    name, generate_name = _str(meta, "name"), _str(meta, "generateName")
    if generate_name and not name:
        errs.append(internal_error(path.child("name"),
                                   f"generateName was specified ({generate_name!r}), but no name was generated"))
    if not name:
        errs.append(required(path.child("name"), "name or generateName is required"))
    else:
        if messages := is_dns1123_subdomain(name):
            errs.extend(invalid(path.child("name"), name, m) for m in messages)
    errs.extend(_validate_common(meta, namespaced, path))
    errs.extend(_validate_kube_finalizers(meta.get("finalizers"), path.child("finalizers")))
    return errs


def validate_object_meta_update(new: dict | None, old: dict | None, path: Path | None = None) -> ErrorList:
    """core's ValidateObjectMetaUpdate: apimachinery's, plus the kube finalizer names."""
    path = path or Path("metadata")
    errs = validate_object_meta_accessor_update(new, old, path)
    errs.extend(_validate_kube_finalizers((new or {}).get("finalizers"), path.child("finalizers")))
    return errs


def validate_object_meta_accessor_update(new: dict | None, old: dict | None, path: Path | None = None) -> ErrorList:
    """apimachinery's ValidateObjectMetaAccessorUpdate."""
    new, old = new or {}, old or {}
    path = path or Path("metadata")
    errs: ErrorList = []
    if old.get("deletionTimestamp") is not None:
        extra = sorted(set(new.get("finalizers") or []) - set(old.get("finalizers") or []))
        if extra:
            shown = "[]string{" + ", ".join(f'"{f}"' for f in extra) + "}"
            errs.append(forbidden(path.child("finalizers"), "no new finalizers can be added if the object is "
                                                            f"being deleted, found new finalizers {shown}"))
    if not _str(new, "resourceVersion"):
        errs.append(invalid(path.child("resourceVersion"), "", "must be specified for an update"))
    new_gen, old_gen = new.get("generation") or 0, old.get("generation") or 0
    if isinstance(new_gen, int) and isinstance(old_gen, int) and new_gen < old_gen:
        errs.append(invalid(path.child("generation"), new_gen, "must not be decremented"))
    for key, zero in (("name", ""), ("namespace", ""), ("uid", ""), ("creationTimestamp", None),
                      ("deletionTimestamp", None), ("deletionGracePeriodSeconds", None)):
        errs.extend(validate_immutable(new.get(key, zero), old.get(key, zero), path.child(key)))
    errs.extend(validate_labels(new.get("labels"), path.child("labels")))
    errs.extend(validate_annotations(new.get("annotations"), path.child("annotations")))
    errs.extend(validate_owner_references(new.get("ownerReferences"), path.child("ownerReferences")))
    errs.extend(validate_managed_fields(new.get("managedFields"), path.child("managedFields")))
    return errs


_TEMPLATE_FORBIDDEN = (
    ("name", "name"), ("generateName", "generateName"), ("namespace", "namespace"), ("selfLink", "selfLink"),
    ("uid", "uID"), ("resourceVersion", "resourceVersion"), ("generation", "generation"),
    ("creationTimestamp", "creationTimestamp"), ("deletionTimestamp", "deletionTimestamp"),
    ("deletionGracePeriodSeconds", "deletionGracePeriodSeconds"), ("ownerReferences", "ownerReferences"),
    ("finalizers", "finalizers"), ("managedFields", "managedFields"),
)


def validate_template_object_meta(meta: dict | None, path: Path) -> ErrorList:
    """core's ValidateTemplateObjectMeta (`spec.metadata` of a template): only labels and annotations may be set."""
    meta = meta or {}
    errs = validate_annotations(meta.get("annotations"), path.child("annotations"))
    errs.extend(validate_labels(meta.get("labels"), path.child("labels")))
    for json_name, go_name in _TEMPLATE_FORBIDDEN:
        if meta.get(json_name) not in (None, "", 0, [], {}):
            errs.append(forbidden(path.child(go_name), "cannot be set"))
    return errs
