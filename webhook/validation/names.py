"""Name formats of apimachinery's validation and content packages (IsDNS1123Label, IsQualifiedName, ...).

`is_*` functions return the list of failure messages, like Go's `IsDNS1123Label` etc.
`validate_*` functions turn them into field errors at a path. Lengths are in bytes, as in Go,
and regexes are matched with `fullmatch` (Go's `$` does not accept a trailing newline).
"""

from __future__ import annotations

import re
from functools import lru_cache

from webhook.field import ErrorList, Path, invalid, required
from webhook.limits import DRIVER_NAME_MAX_LENGTH
from webhook.validation._helpers import Problem, materialise

DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
LABEL_VALUE_MAX_LENGTH = 63
QUALIFIED_NAME_MAX_LENGTH = 63

_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_C_IDENTIFIER_FMT = "[A-Za-z_][A-Za-z0-9_]*"
_C_IDENTIFIER_MSG = (
    "a valid C identifier must start with alphabetic character or '_', "
    "followed by a string of alphanumeric characters or '_'"
)
_LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)
_LABEL_VALUE_FMT = "(" + _LABEL_KEY_FMT + ")?"
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)

_dns1123_label = re.compile(_DNS1123_LABEL_FMT)
_dns1123_subdomain = re.compile(_DNS1123_SUBDOMAIN_FMT)
_c_identifier = re.compile(_C_IDENTIFIER_FMT)
_label_key = re.compile(_LABEL_KEY_FMT)
_label_value = re.compile(_LABEL_VALUE_FMT)


def byte_len(value: str) -> int:
    """Go's len() of a string: its UTF-8 byte count."""
    return len(value) if value.isascii() else len(value.encode("utf-8", "surrogatepass"))


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    shown = " or ".join(f"'{e}', " for e in examples)
    return f"{msg} (e.g. {shown}regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    return f"must be no more than {length} characters"


def empty_error() -> str:
    return "must be non-empty"


@lru_cache(maxsize=4096)
def is_dns1123_label(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > DNS1123_LABEL_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_LABEL_MAX_LENGTH))
    if not _dns1123_label.fullmatch(value):
        if _dns1123_subdomain.fullmatch(value):
            errs.append("must not contain dots")
        else:
            errs.append(regex_error(_DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=4096)
def is_dns1123_subdomain(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > DNS1123_SUBDOMAIN_MAX_LENGTH:
        errs.append(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH))
    if not _dns1123_subdomain.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_MSG, _DNS1123_SUBDOMAIN_FMT, "example.com"))
    return tuple(errs)


@lru_cache(maxsize=4096)
def is_c_identifier(value: str) -> tuple[str, ...]:
    if not _c_identifier.fullmatch(value):
        return (regex_error(_C_IDENTIFIER_MSG, _C_IDENTIFIER_FMT, "my_name", "MY_NAME", "MyName"),)
    return ()


@lru_cache(maxsize=4096)
def is_qualified_name(value: str) -> tuple[str, ...]:
    """content.IsLabelKey (= IsQualifiedName): label keys, taint keys, finalizers, conditions."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + empty_error())
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return (
            "a valid label key "
            + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
        )
    if not name:
        errs.append("name part " + empty_error())
    elif byte_len(name) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if not _label_key.fullmatch(name):
        errs.append("name part " + regex_error(_LABEL_KEY_MSG, _LABEL_KEY_FMT, "MyName", "my.name", "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=4096)
def is_label_value(value: str) -> tuple[str, ...]:
    errs = []
    if byte_len(value) > LABEL_VALUE_MAX_LENGTH:
        errs.append(max_len_error(LABEL_VALUE_MAX_LENGTH))
    if not _label_value.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return tuple(errs)


# Field-error forms: one Invalid per message, all at `path`.

def validate_dns_label(value: str, path: Path) -> ErrorList:
    return [invalid(path, value, m) for m in is_dns1123_label(value)]


def validate_dns_subdomain(value: str, path: Path) -> ErrorList:
    return [invalid(path, value, m) for m in is_dns1123_subdomain(value)]


def validate_label_name(value: str, path: Path) -> ErrorList:
    """metav1validation.ValidateLabelName: label keys, taint and toleration keys, binding conditions."""
    return [invalid(path, value, m) for m in is_qualified_name(value)]


def validate_label_value(value: str, path: Path) -> ErrorList:
    return [invalid(path, value, m) for m in is_label_value(value)]


def validate_node_name(value: str, path: Path) -> ErrorList:
    """validateNodeName: a node name is a DNS subdomain (core's ValidateNodeName)."""
    return validate_dns_subdomain(value, path)


@lru_cache(maxsize=8192)
def driver_name_problems(value: str) -> tuple[Problem, ...]:
    """The checks of validate_driver_name for a non-empty value, cacheable (see _helpers.materialise)."""
    problems: list[Problem] = []
    if byte_len(value) > DRIVER_NAME_MAX_LENGTH:
        problems.append(("TooLong", value, str(DRIVER_NAME_MAX_LENGTH)))
    problems.extend(("Invalid", value, m) for m in is_dns1123_subdomain(value.lower()))
    return tuple(problems)


def validate_driver_name(value: str, path: Path, empty_also_invalid: bool = False) -> ErrorList:
    """validateDriverName (core's ValidateCSIDriverName as 1.36 uses it): Required when empty, upper case allowed.
    `empty_also_invalid` (behaviour empty_driver_name_also_invalid, 1.34): an empty name is also checked on."""
    if not value:
        return [required(path, "")] + (materialise(driver_name_problems(value), path) if empty_also_invalid else [])
    return materialise(driver_name_problems(value), path)


RESOURCE_DEFAULT_NAMESPACE_PREFIX = "kubernetes.io/"
DEFAULT_RESOURCE_REQUESTS_PREFIX = "requests."  # a quota's name for a resource


def is_native_resource(name: str) -> bool:
    """v1helper.IsNativeResource: no domain, or a kubernetes.io/ domain."""
    return "/" not in name or RESOURCE_DEFAULT_NAMESPACE_PREFIX in name
