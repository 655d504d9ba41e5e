"""Declarative validation (the `+k8s:` tags of the resource types), as enforced from Kubernetes 1.37.

1.37 enforces every DRA declarative rule (stable and beta). The server's answer is then the
hand-written errors, minus each one marked "covered" for which a declarative error of the same type
exists at the same field, plus all declarative errors (apiserver `FilterCoveredHandwrittenErrors`).
Declarative errors are computed on the object as the request sent it, so for v1beta1 requests they
carry v1beta1 paths (`webhook.validation.v1beta1_paths`). Functions here mirror apimachinery's
`pkg/api/validate` (format, enum, listType=set, maxItems, union, required).
"""

from __future__ import annotations

import re
from dataclasses import replace
from functools import lru_cache
from typing import Any, Iterable

from webhook.field import ErrorList, Path, duplicate, invalid, not_supported, required, too_long, too_many
from webhook.validation.names import (
    DEFAULT_RESOURCE_REQUESTS_PREFIX, DNS1123_SUBDOMAIN_MAX_LENGTH, RESOURCE_DEFAULT_NAMESPACE_PREFIX, byte_len,
    is_c_identifier, is_dns1123_label, is_dns1123_subdomain, is_qualified_name, regex_error,
)

RESOURCE_DEVICE_MAX_LENGTH = 32  # validate.resourceDeviceMaxLength
FULLY_QUALIFIED_NAME_PREFIX_MAX_LENGTH = 63


def mark(errs: Iterable) -> ErrorList:
    """The errors as declarative validation reports them."""
    return [replace(e, declarative=True) for e in errs]


def merge_covered(handwritten: ErrorList, declarative: ErrorList) -> ErrorList:
    """Covered hand-written errors give way to declarative ones of the same field and type."""
    shadowed = {e.key for e in declarative}
    return [e for e in handwritten if e.key not in shadowed] + mark(declarative)


def _c_identifier(value: str, path: Path) -> ErrorList:
    errs: ErrorList = []
    if byte_len(value) > RESOURCE_DEVICE_MAX_LENGTH:
        errs.append(too_long(path, value, RESOURCE_DEVICE_MAX_LENGTH))
    errs.extend(invalid(path, value, m) for m in is_c_identifier(value))
    return errs


def resource_fully_qualified_name(value: str, path: Path) -> ErrorList:
    """validate.ResourceFullyQualifiedName: `<DNS subdomain>/<C identifier>`, case-sensitive prefix.

    One part: C-identifier errors plus "must be a domain and a name"; three or more parts pass.
    """
    errs: ErrorList = []
    parts = value.split("/")
    if len(parts) == 1:
        errs.extend(_c_identifier(parts[0], path))
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append(invalid(path, "", "prefix must not be empty"))
        else:
            if byte_len(prefix) > FULLY_QUALIFIED_NAME_PREFIX_MAX_LENGTH:
                errs.append(too_long(path, prefix, FULLY_QUALIFIED_NAME_PREFIX_MAX_LENGTH))
            errs.extend(invalid(path, prefix, "prefix: " + m) for m in is_dns1123_subdomain(prefix))
        if not name:
            errs.append(invalid(path, "", "name must not be empty"))
        else:
            errs.extend(_c_identifier(name, path))
    if "/" not in value:
        errs.append(invalid(path, value, "a fully qualified name must be a domain and a name separated by a slash"))
    return mark(errs)


def extended_resource_name(value: str, path: Path) -> ErrorList:
    """validate.ExtendedResourceName (+k8s:format=k8s-extended-resource-name): a domain-prefixed path, not in
    kubernetes.io, not a quota name ("requests."), and a valid label key once prefixed with "requests."."""
    errs: ErrorList = []
    if "/" not in value:
        errs.append(invalid(path, value, "a name must be a domain-prefixed path, such as 'example.com/my-prop'"))
    elif RESOURCE_DEFAULT_NAMESPACE_PREFIX in value:
        errs.append(invalid(path, value, f'must not have "{RESOURCE_DEFAULT_NAMESPACE_PREFIX}" domain'))
    if value.startswith(DEFAULT_RESOURCE_REQUESTS_PREFIX):
        errs.append(invalid(path, value, f'must not have "{DEFAULT_RESOURCE_REQUESTS_PREFIX}" prefix'))
    errs.extend(invalid(path, value, m) for m in is_qualified_name(DEFAULT_RESOURCE_REQUESTS_PREFIX + value))
    return mark(errs)


def short_name(value: str, path: Path) -> ErrorList:
    """validate.ShortName (format=k8s-short-name): one Invalid per DNS-label message, even for length."""
    return mark(invalid(path, value, m) for m in is_dns1123_label(value))


# validate's own content package words a length error in bytes (util/validation says "characters").
def _content_max_len_error(length: int) -> str:
    return f"must be no more than {length} bytes"


_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL + "(\\." + _LABEL + ")*"
_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
                  "and must start and end with an alphanumeric character")
_SUBDOMAIN_CASELESS_MSG = ("an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must "
                           "start and end with an alphanumeric character")
_subdomain = re.compile(_SUBDOMAIN_FMT)
# Go's (?i)[a-z] also matches the letters that fold to k and s: U+212A (Kelvin sign) and U+017F (long s).
_CASELESS = "a-zA-Z0-9\u017f\u212a"
_caseless_label = f"[{_CASELESS}]([-{_CASELESS}]*[{_CASELESS}])?"
_subdomain_caseless = re.compile(_caseless_label + "(\\." + _caseless_label + ")*")


@lru_cache(maxsize=4096)
def content_dns1123_subdomain(value: str, caseless: bool = False) -> tuple[str, ...]:
    """content.IsDNS1123Subdomain / IsDNS1123SubdomainCaseless: the messages of validate.LongName(Caseless)."""
    errs = []
    if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(_content_max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not (_subdomain_caseless if caseless else _subdomain).fullmatch(value):
        errs.append(regex_error(_SUBDOMAIN_CASELESS_MSG if caseless else _SUBDOMAIN_MSG, _SUBDOMAIN_FMT,
                                "Example.com" if caseless else "example.com"))
    return tuple(errs)


def long_name(value: str, path: Path) -> ErrorList:
    """validate.LongName (format=k8s-long-name): one Invalid per message."""
    return mark(invalid(path, value, m) for m in content_dns1123_subdomain(value))


def long_name_caseless(value: str, path: Path) -> ErrorList:
    """validate.LongNameCaseless (format=k8s-long-name-caseless): upper case letters pass."""
    return mark(invalid(path, value, m) for m in content_dns1123_subdomain(value, True))


def resource_pool_name(value: str, path: Path) -> ErrorList:
    """validate.ResourcePoolName (format=k8s-resource-pool-name): TooLong over 253 bytes, then per
    '/'-separated segment "segment i: must not be empty" or its LongName errors (the segment as value)."""
    errs: ErrorList = []
    if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(too_long(path, value, DNS1123_SUBDOMAIN_MAX_LENGTH))
    for i, part in enumerate(value.split("/")):
        if not part:
            errs.append(invalid(path, value, f"segment {i}: must not be empty"))
        else:
            errs.extend(invalid(path, part, f"segment {i}: {m}") for m in content_dns1123_subdomain(part))
    return mark(errs)


def minimum(value: int, bound: int, path: Path) -> ErrorList:
    """validate.Minimum (+k8s:minimum)."""
    return mark([invalid(path, value, f"must be greater than or equal to {bound}")]) if value < bound else []


def maximum(value: int, bound: int, path: Path) -> ErrorList:
    """validate.Maximum (+k8s:maximum)."""
    return mark([invalid(path, value, f"must be less than or equal to {bound}")]) if value > bound else []


def max_bytes(value: str, limit: int, path: Path) -> ErrorList:
    """validate.MaxBytes (+k8s:maxBytes): TooLong, the value not shown."""
    return mark([too_long(path, value, limit)]) if byte_len(value) > limit else []


def required_pointer(value: Any, path: Path) -> ErrorList:
    """+k8s:required on a pointer: absent and null are missing, a zero value is not."""
    return mark([required(path, "")]) if value is None else []


def unique_map(items: list, key, path: Path) -> ErrorList:
    """+k8s:listType=map / +k8s:unique=map: Duplicate (the whole item) at each later item whose keys repeat."""
    errs: ErrorList = []
    seen: set = set()
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            errs.append(duplicate(path.index(i), item))
        else:
            seen.add(k)
    return mark(errs)


def required_value(value: Any, path: Path) -> ErrorList:
    """+k8s:required on a string: absent and "" are both missing."""
    return mark([required(path, "")]) if value is None or value == "" else []


def max_items(items: list, limit: int, path: Path) -> ErrorList:
    """+k8s:maxItems (short-circuits the item rules of the same list)."""
    return mark([too_many(path, len(items), limit)]) if len(items) > limit else []


def unique_set(items: list, path: Path) -> ErrorList:
    """+k8s:listType=set / +k8s:unique=set: Duplicate at each later repeat."""
    errs: ErrorList = []
    seen: list = []
    for i, item in enumerate(items):
        if item in seen:
            errs.append(duplicate(path.index(i), item))
        else:
            seen.append(item)
    return mark(errs)


def enum(value: Any, allowed: tuple[str, ...], path: Path) -> ErrorList:
    """+k8s:enum: NotSupported with the allowed values, sorted as validate.Enum lists them."""
    if value in allowed:
        return []
    return mark([not_supported(path, value, sorted(allowed))])


def union(members: dict[str, bool], path: Path) -> ErrorList:
    """+k8s:unionMember: exactly one member set (`""` counts as set)."""
    names = ", ".join(f"`{name}`" for name in members)
    count = sum(members.values())
    if count == 0:
        return mark([invalid(path, "", f"must specify one of: {names}")])
    if count > 1:
        set_names = ", ".join(name for name, is_set in members.items() if is_set)  # no backticks, as upstream
        return mark([invalid(path, "{" + set_names + "}", f"must specify exactly one of: {names}")])
    return []
