"""apimachinery's semantic DeepEqual (`apiequality.Semantic.DeepEqual`) on JSON values.

The Go types compare an absent list or map equal to an empty one (the forked reflect treats nil
and empty alike) and absent pointers as nil; on the wire that is a missing key, `null`, `[]` or `{}`.
Semantic has its own equalities for resource.Quantity (by value: "1Gi" equals "1024Mi", 1 equals "1")
and metav1.Time (the same instant: "2026-01-01T01:00:00+01:00" equals "2026-01-01T00:00:00Z"); which
JSON values are quantities or times the caller says by naming the Go struct compared (and the fields
down to the values), whose shape the wire models give (webhook.api.semantic). Without a struct, values
compare as sent.
"""

from __future__ import annotations

from typing import Any

from webhook.api.gotime import instant
from webhook.api.semantic import QUANTITY, TIME, child, struct_shape
from webhook.quantity import parse_json_quantity

_MAX_DEPTH = 100  # deeper than any API object; past it, values compare as sent


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


def semantic_equal(a: Any, b: Any, struct: str = "", *fields: str) -> bool:
    """Whether `a` and `b` are equal for apiequality.Semantic; `struct` and `fields` say what they are: the
    Go struct ("ResourceClaimSpec") or one of its fields ("ResourceSliceSpec", "devices")."""
    if a == b:
        return True
    a, b = normalize(a), normalize(b)
    if a == b:
        return True
    return bool(struct) and _equal(a, b, (struct, *fields), 0)


def _equal(a: Any, b: Any, where: tuple, depth: int) -> bool:
    if a == b:
        return True
    if depth > _MAX_DEPTH:
        return False
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k], where + (k,), depth + 1) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y, where + (i,), depth + 1) for i, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, (dict, list)) or isinstance(b, (dict, list)):
        return False
    # Two scalars that differ as sent: equal only as two forms of one quantity or one instant, and only
    # where the struct has a quantity or a time (the models are asked only then).
    kind = _value_kind(a, b)
    return kind is not None and _shape_at(where) == kind


def _value_kind(a: Any, b: Any) -> str | None:
    """QUANTITY when `a` and `b` are one quantity, TIME when they are one instant, else None."""
    if isinstance(a, str) and isinstance(b, str):
        time_a = instant(a)
        if time_a is not None and time_a == instant(b):
            return TIME
    quantity_a, quantity_b = parse_json_quantity(a), parse_json_quantity(b)
    if quantity_a is not None and quantity_b is not None and quantity_a.value == quantity_b.value:
        return QUANTITY
    return None


def _shape_at(where: tuple) -> Any:
    shape = struct_shape(where[0])
    for key in where[1:]:
        if shape is None:
            break
        shape = child(shape, key)
    return shape
