"""Defaults the API server applies, and the JSON Patch that brings an object to its defaulted form.

`apply_defaults(kind, version, obj, old, operation, now)` returns a defaulted deep copy (never mutates
its input); `make_patch(before, after)` returns the RFC 6902 operations. Foundation scope: no defaults.
"""

from __future__ import annotations

import copy
from datetime import datetime


def apply_defaults(kind: str, version: str, obj: dict, old: dict | None, operation: str, now: datetime) -> dict:
    return copy.deepcopy(obj)


def make_patch(before: dict, after: dict) -> list[dict]:
    import jsonpatch

    return list(jsonpatch.make_patch(before, after))
