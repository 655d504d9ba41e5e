"""Where apiequality.Semantic compares by value: the resource.Quantity and metav1.Time fields of the wire models.

apimachinery's `Semantic.DeepEqual` (pkg/api/equality) has its own equalities for `resource.Quantity`
(`a.Cmp(b) == 0`: "1Gi" equals "1024Mi"), `metav1.Time` and `metav1.MicroTime` (the same instant in UTC),
`labels.Selector`, `fields.Selector` and `metav1.FieldsV1`; the last three are no field of a DRA type (a
LabelSelector is a struct, compared field by field). A JSON value alone cannot say whether a string is a
quantity or a time, so the shape comes from the wire models: for a Go struct, the tree of its fields that
lead to a quantity or a time. Built from the pydantic models on first use (only when two values differ in
text but could be equal by value), and merged over every model of that struct (all releases: a field
keeps its type from release to release).
"""

from __future__ import annotations

import importlib
import pkgutil
import types
import typing
from functools import lru_cache
from typing import Any, Union

QUANTITY, TIME = "quantity", "time"
# A shape: QUANTITY, TIME, None (nothing compared by value below), ("list", item shape), ("map", value
# shape), or a struct's {JSON field name: shape} (fields without value leaves left out).
Shape = Any


def struct_shape(struct: str) -> Shape:
    """The shape of the Go struct named `struct` (as go_types names the models: "ResourceClaimSpec")."""
    return _struct_shapes().get(struct)


@lru_cache(maxsize=1)
def _struct_shapes() -> dict[str, Shape]:
    from webhook.api.base import WireModel
    from webhook.api.go_types import struct_name

    import webhook.api as package

    for module in pkgutil.iter_modules(package.__path__):
        importlib.import_module(f"{package.__name__}.{module.name}")
    shapes: dict[str, Shape] = {}
    pending = list(WireModel.__subclasses__())
    seen: set[type] = set()
    while pending:
        model = pending.pop()
        if model in seen:
            continue
        seen.add(model)
        pending.extend(model.__subclasses__())
        name = struct_name(model)
        shapes[name] = _merge(shapes.get(name), _model_shape(model, ()))
    return shapes


def _model_shape(model: type, building: tuple[type, ...]) -> Shape:
    if model in building or len(building) > 32:  # a recursive type: nothing new below
        return None
    fields = {}
    for name, info in model.model_fields.items():  # type: ignore[attr-defined]
        shape = _annotation_shape(info.annotation, building + (model,))
        if shape is not None:
            fields[info.alias or name] = shape
    return fields or None


def _annotation_shape(annotation: Any, building: tuple[type, ...]) -> Shape:
    from pydantic import BaseModel

    from webhook.api.base import Time
    from webhook.api.go_types import is_quantity

    while True:
        if annotation == Time:
            return TIME
        if is_quantity(annotation):
            return QUANTITY
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if origin is typing.Annotated:
            annotation = args[0]
        elif origin in (Union, types.UnionType):
            real = [a for a in args if a is not type(None)]
            if len(real) != 1:
                return None
            annotation = real[0]
        else:
            break
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_shape(annotation, building)
    if origin is list and args:
        item = _annotation_shape(args[0], building)
        return None if item is None else ("list", item)
    if origin is dict and len(args) == 2:
        value = _annotation_shape(args[1], building)
        return None if value is None else ("map", value)
    return None


def _merge(a: Shape, b: Shape) -> Shape:
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        return {key: _merge(a.get(key), b.get(key)) for key in {**a, **b}}
    if isinstance(a, tuple) and isinstance(b, tuple) and a[0] == b[0]:
        return (a[0], _merge(a[1], b[1]))
    return a  # the same field with two types: no release does that; the first one found wins


def child(shape: Shape, key: str | int) -> Shape:
    """The shape of a struct field, list item or map value (`key` a JSON name, an index or a map key)."""
    if isinstance(shape, dict):
        return shape.get(key) if isinstance(key, str) else None
    if isinstance(shape, tuple):
        kind, inner = shape
        if (kind == "list") == isinstance(key, int):
            return inner
    return None
