"""apimachinery's semantic DeepEqual on JSON values.

The Go types compare an absent list or map equal to an empty one (the forked reflect treats nil
and empty alike) and absent pointers as nil; on the wire that is a missing key, `null`, `[]` or `{}`.
Quantities are compared as sent; both sides come from the API server in canonical form.
"""

from __future__ import annotations

from typing import Any


def normalize(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = normalize(item)
            if item is None or item == [] or item == {}:
                continue
            out[key] = item
        return out
    if isinstance(value, list):
        return [normalize(item) for item in value]
    return value


def semantic_equal(a: Any, b: Any) -> bool:
    if a == b:
        return True
    return normalize(a) == normalize(b)
