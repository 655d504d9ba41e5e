"""Tolerant access to raw JSON: defaults only touch what is dict or list shaped.

Wrongly typed input is left as it is; the API server would reject it while decoding, and the
type check after defaulting reports it. Defaulting must never be the place that crashes.
"""

from __future__ import annotations

from typing import Any, Iterator


def child(obj: Any, *keys: str) -> dict | None:
    """The dict reached through `keys`, or None when any step is missing or not a dict."""
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj if isinstance(obj, dict) else None


def dict_items(obj: Any, key: str) -> Iterator[dict]:
    """The dict entries of the list `obj[key]`; other entries and other shapes are skipped."""
    values = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(values, list):
        yield from (value for value in values if isinstance(value, dict))


def dict_values(obj: Any, key: str) -> Iterator[dict]:
    """The dict values of the map `obj[key]`; other values and other shapes are skipped."""
    values = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(values, dict):
        yield from (value for value in values.values() if isinstance(value, dict))


def is_unset(obj: dict, key: str) -> bool:
    """Go decodes an absent field and an explicit null to the same nil/zero value."""
    return obj.get(key) is None


def is_empty_string(obj: dict, key: str) -> bool:
    """A Go string field is "" when absent, null or explicitly empty."""
    return obj.get(key) is None or obj.get(key) == ""
