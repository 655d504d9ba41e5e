"""Shared helpers of the validation modules.

- as_dict / as_list / as_str / as_int: read a decoded JSON value as one type, or its zero value.
- Problem / materialise: cached check results turned into field errors only when there are some.
- validateSlice / validateSet and truncateIfTooLong, with Kubernetes' size short-circuit.
"""

from __future__ import annotations

from typing import Any, Callable, Hashable

from webhook.field import ErrorList, Path, duplicate, invalid, required, too_long, too_many

ItemValidator = Callable[[Any, Path], ErrorList]

# (type, value, detail) triples of a cacheable check, materialised at a path only on error.
# type is "TooLong" (detail: the maximum length), "Required" or "Invalid".
Problem = tuple[str, Any, str]


def as_dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def as_int(value: Any) -> int:
    """An int, but not a bool (JSON true is not a number); anything else is 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def materialise(problems: tuple[Problem, ...], path: Path | str) -> ErrorList:
    """The field errors of `problems`, all at `path` (rendered once)."""
    if not problems:
        return []
    errs: ErrorList = []
    text = str(path)
    for kind, value, detail in problems:
        if kind == "TooLong":
            errs.append(too_long(text, value, int(detail)))
        elif kind == "Required":
            errs.append(required(text, detail))
        else:
            errs.append(invalid(text, value, detail))
    return errs


def validate_slice(items: list | None, max_size: int, validate_item: ItemValidator, path: Path,
                   short_circuit: bool = True) -> ErrorList:
    """`len > max` is TooMany at the list and nothing else; otherwise every item is validated.

    Without `short_circuit` (behaviour list_size_short_circuit off, 1.34) every item is validated and
    TooMany comes after the item errors."""
    items = items or []
    too_long_list = max_size >= 0 and len(items) > max_size
    if too_long_list and short_circuit:
        return [too_many(path, len(items), max_size)]
    errs: ErrorList = []
    for i, item in enumerate(items):
        errs.extend(validate_item(item, path.index(i)))
    if too_long_list:
        errs.append(too_many(path, len(items), max_size))
    return errs


def validate_set(items: list | None, max_size: int, validate_item: ItemValidator,
                 key: Callable[[Any], Hashable], path: Path, short_circuit: bool = True,
                 key_field: str = "") -> ErrorList:
    """validate_slice, then Duplicate at the later index for each repeated key (at the index's
    `key_field` when given: behaviour duplicate_at_key_field, 1.34)."""
    items = items or []
    errs = validate_slice(items, max_size, validate_item, path, short_circuit)
    if short_circuit and max_size >= 0 and len(items) > max_size:
        return errs
    seen: set = set()
    for i, item in enumerate(items):
        k = key(item)
        if k in seen:
            errs.append(duplicate(path.index(i).child(key_field) if key_field else path.index(i), k))
        else:
            seen.add(k)
    return errs


def truncate_if_too_long(key: str, max_len: int) -> str:
    """The map-key shortening of validateMap: long keys keep their head and tail around '...'."""
    max_len = max(max_len, 16)
    if len(key) <= max_len:
        return key
    keep = max_len - 3
    head = (keep + 1) // 2
    tail = keep // 2
    return key[:head] + "..." + key[len(key) - tail:]

