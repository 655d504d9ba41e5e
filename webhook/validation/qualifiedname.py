"""Attribute names (catalogue B-07/B-08): validateQualifiedName and validateFullyQualifiedName.

A name is `<C identifier>` or `<driver-like domain>/<C identifier>`; three or more parts are
accepted without error, as upstream does.
"""

from __future__ import annotations

from webhook.field import ErrorList, Path, invalid, too_long
from webhook.validation.names import byte_len, is_c_identifier, validate_driver_name

DEVICE_MAX_ID_LENGTH = 32


def validate_c_identifier(value: str, path: Path) -> ErrorList:
    errs: ErrorList = []
    if byte_len(value) > DEVICE_MAX_ID_LENGTH:
        errs.append(too_long(path, "", DEVICE_MAX_ID_LENGTH))
    errs.extend(invalid(path, value, m) for m in is_c_identifier(value))
    return errs


def validate_resource_qualified_name(name: str, path: Path) -> ErrorList:
    parts = name.split("/")
    errs: ErrorList = []
    if len(parts) == 1:
        errs.extend(validate_c_identifier(parts[0], path))
    elif len(parts) == 2:
        domain, ident = parts
        if not domain:
            errs.append(invalid(path, "", "the domain must not be empty"))
        else:
            errs.extend(validate_driver_name(domain, path))
        if not ident:
            errs.append(invalid(path, "", "the name must not be empty"))
        else:
            errs.extend(validate_c_identifier(ident, path))
    return errs


def validate_fully_qualified_name(name: str, path: Path) -> ErrorList:
    errs = validate_resource_qualified_name(name, path)
    if "/" not in name:
        errs.append(invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash"))
    return errs
