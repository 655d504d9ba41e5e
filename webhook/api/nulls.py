"""JSON nulls as Go's encoding/json reads them into the API types, before anything else looks at an object.

Go leaves a null as the zero value: a null list element or map value becomes the element type's zero value
(an empty struct, which validation then judges, e.g. `name: Invalid value: ""`), a null struct field or
pointer stays unset. The wire models would refuse those nulls as type errors; the API server does not
(found by the upstream differential, tests/upstream). Only lists and maps of objects, strings, numbers and
booleans are rewritten; a null where the model allows it (an unset field) is left as it is.

The API server decodes into the request version's own types, before conversion and defaulting. v1beta1 (and
v1alpha3) differ from the v1 wire models in two places only: a claim request keeps its ExactDeviceRequest fields
flat, next to its name, and a slice device keeps its fields under `basic`; `FLAT` reads the v1 models so.
"""

from __future__ import annotations

import types
import typing
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Union

if TYPE_CHECKING:  # pydantic loads only when a null is found (a warm review never imports it)
    from pydantic import BaseModel

_ZERO = {str: "", int: 0, float: 0, bool: False}
V1, FLAT = "v1", "flat"  # the layouts: the wire models' own, and v1beta1's (flat requests, `basic` devices)
# The fields that make a model the slice device, whose fields v1beta1 nests under `basic`.
_DEVICE_FIELDS = frozenset({"attributes", "capacity", "consumesCounters"})


def zero_nulls(model: type[BaseModel], value: Any, layout: str = V1) -> Any:
    """`value` (a JSON object for `model`, in `layout`) with the nulls in its lists and maps replaced by zero
    values; the same object when there are none, a changed copy otherwise."""
    return _visit(model, value, 0, layout)


def _visit(annotation: Any, value: Any, depth: int, layout: str) -> Any:
    if depth > 64 or value is None:
        return value
    kind, element = _shape(annotation)
    if kind == "model" and isinstance(value, dict):
        fields = _fields(element, layout)
        changed = None
        for key, item in value.items():
            inner = fields.get(key)
            if inner is None or item is None:
                continue
            new = _visit(inner, item, depth + 1, layout)
            if new is not item:
                changed = changed if changed is not None else dict(value)
                changed[key] = new
        return value if changed is None else changed
    if kind == "list" and isinstance(value, list):
        out = [_zero(element) if item is None else _visit(element, item, depth + 1, layout) for item in value]
        return value if all(a is b for a, b in zip(out, value)) else out
    if kind == "dict" and isinstance(value, dict):
        out = {k: _zero(element) if item is None else _visit(element, item, depth + 1, layout)
               for k, item in value.items()}
        return value if all(out[k] is value[k] for k in value) else out
    return value


def _zero(annotation: Any) -> Any:
    kind, element = _shape(annotation)
    if kind == "model":
        return {}
    if kind == "list":
        return []
    if kind == "dict":
        return {}
    if kind == "quantity":
        return "0"  # Quantity.UnmarshalJSON of null: the zero quantity
    return _ZERO.get(element) if element in _ZERO else None


@lru_cache(maxsize=None)
def _fields(model: type[BaseModel], layout: str = V1) -> dict[str, Any]:
    """JSON name -> annotation of `model`'s fields as `layout` spells the model."""
    fields = {(info.alias or name): info.annotation for name, info in model.model_fields.items()}
    if layout != FLAT:
        return fields
    if "exactly" in fields and _shape(fields["exactly"])[0] == "model":  # a request: its exact fields beside it
        for key, annotation in _fields(_shape(fields["exactly"])[1]).items():
            fields.setdefault(key, annotation)
    if _DEVICE_FIELDS <= fields.keys():  # a slice device: its fields (all but the name) under `basic`
        fields["basic"] = model
    return fields


@lru_cache(maxsize=None)
def _shape(annotation: Any) -> tuple[str, Any]:
    """("model"|"list"|"dict"|"scalar", the model, element or scalar type) of an annotation."""
    while True:
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if origin is typing.Annotated:
            annotation = args[0]
            continue
        if origin in (Union, types.UnionType):
            from webhook.api.go_types import is_quantity  # with the models (pydantic): not on a warm review

            if is_quantity(annotation):
                return "quantity", None
            annotation = next(a for a in args if a is not type(None))
            continue
        break
    from pydantic import BaseModel

    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "model", annotation
    if origin is list and args:
        return "list", args[0]
    if origin is dict and len(args) == 2:
        return "dict", args[1]
    return "scalar", annotation if isinstance(annotation, type) else None


def contains_null(value: Any, depth: int = 0) -> bool:
    """Whether a JSON value holds a null in a list or as a map value (cheap: the models load only then)."""
    if depth > 64:
        return False
    if isinstance(value, dict):
        return any(item is None or contains_null(item, depth + 1) for item in value.values())
    if isinstance(value, list):
        return any(item is None or contains_null(item, depth + 1) for item in value)
    return False
