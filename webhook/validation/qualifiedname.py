"""Attribute names: validateQualifiedName and validateFullyQualifiedName.

A name is `<C identifier>` or `<driver-like domain>/<C identifier>`; three or more parts are
accepted without error, as upstream does.

The checks are cached per name (a ResourceSlice repeats the same attribute and capacity names on
every device) and return Problem tuples, so that a field path is only built when there is an error.
"""

from __future__ import annotations

from functools import lru_cache

from webhook.field import ErrorList, Path, invalid
from webhook.limits import DEVICE_MAX_ID_LENGTH
from webhook.validation._helpers import Problem, materialise
from webhook.validation.names import byte_len, driver_name_problems, is_c_identifier


@lru_cache(maxsize=8192)
def c_identifier_problems(value: str) -> tuple[Problem, ...]:
    """validateCIdentifier, as cacheable problems (see _helpers.materialise)."""
    problems: list[Problem] = []
    if byte_len(value) > DEVICE_MAX_ID_LENGTH:
        problems.append(("TooLong", "", str(DEVICE_MAX_ID_LENGTH)))
    problems.extend(("Invalid", value, m) for m in is_c_identifier(value))
    return tuple(problems)


@lru_cache(maxsize=16384)  # one argument: the cache's fast path, asked for every attribute of every device
def qualified_name_problems(name: str) -> tuple[Problem, ...]:
    """validateQualifiedName: C identifier, or domain/identifier; three or more parts pass (upstream gap)."""
    return _qualified_name_problems(name, False)


@lru_cache(maxsize=16384)
def qualified_name_problems_empty_required(name: str) -> tuple[Problem, ...]:
    """The same where an empty name or part is Required (behaviour empty_name_part_required)."""
    return _qualified_name_problems(name, True)


def problems_function(empty_required: bool):
    """The cached check of a release: Required or Invalid for empty parts."""
    return qualified_name_problems_empty_required if empty_required else qualified_name_problems


def _qualified_name_problems(name: str, empty_required: bool) -> tuple[Problem, ...]:
    """`empty_required`: an empty domain or name part is Required, not Invalid (1.34), and so is an empty
    name, once ("name required")."""
    if not name and empty_required:
        return (("Required", "", "name required"),)
    parts = name.split("/")
    if len(parts) == 1:
        return c_identifier_problems(parts[0])
    if len(parts) != 2:
        return ()
    domain, ident = parts
    problems: list[Problem] = []
    empty = "Required" if empty_required else "Invalid"
    if not domain:
        problems.append((empty, "", "the domain must not be empty"))
    else:
        problems.extend(driver_name_problems(domain))  # validateDriverName
    if not ident:
        problems.append((empty, "", "the name must not be empty"))
    else:
        problems.extend(c_identifier_problems(ident))
    return tuple(problems)


def validate_qualified_name(name: str, path: Path, empty_required: bool = False) -> ErrorList:
    """DRA's validateQualifiedName (attribute and capacity names), not apimachinery's label-key rule."""
    return materialise(problems_function(empty_required)(name), path)


def validate_fully_qualified_name(name: str, path: Path, empty_required: bool = False) -> ErrorList:
    errs = validate_qualified_name(name, path, empty_required)
    if empty_required:  # the validateFullyQualifiedName of 1.34: an empty name is only Required
        if name and "/" not in name:
            errs.append(invalid(path, name, "must include a domain"))
    elif "/" not in name:
        errs.append(invalid(path, name, "a fully qualified name must be a domain and a name separated by a slash"))
    return errs
