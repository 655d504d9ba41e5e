"""The RFC 6902 JSON Patch that turns the received object into its defaulted copy."""

from __future__ import annotations

from typing import Any

import jsonpatch


class _Reshaped(Exception):
    """A list changed length: left to jsonpatch, which knows how to diff sequences."""


def make_patch(before: dict, after: dict) -> list[dict]:
    """A diff of the two documents, so the pointers always match the object the API server holds.

    Defaulting only adds and sets values, so a walk of both documents finds the operations directly,
    in the object's key order (a stable patch for the same input), and skips unchanged subtrees at C
    speed; a list whose length changed is left to jsonpatch's sequence diff."""
    ops: list[dict] = []
    try:
        _diff(before, after, "", ops)
    except _Reshaped:
        return list(jsonpatch.make_patch(before, after))
    return ops


def _diff(src: Any, dst: Any, path: str, ops: list[dict]) -> None:
    if type(src) is not type(dst):
        ops.append({"op": "replace", "path": path, "value": dst})
    elif isinstance(src, dict):
        for key in src:
            if key not in dst:
                ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, value in dst.items():
            if key not in src:
                ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})
            elif _changed(src[key], value):
                _diff(src[key], value, f"{path}/{_escape(key)}", ops)
    elif isinstance(src, list):
        if len(src) != len(dst):
            raise _Reshaped
        for index, (old, new) in enumerate(zip(src, dst)):
            if _changed(old, new):
                _diff(old, new, f"{path}/{index}", ops)
    elif _changed(src, dst):
        ops.append({"op": "replace", "path": path, "value": dst})


def _changed(old: Any, new: Any) -> bool:
    # identity first, as container equality does: an unchanged NaN is not a change
    return old is not new and old != new


def _escape(key: str) -> str:
    return str(key).replace("~", "~0").replace("/", "~1")
