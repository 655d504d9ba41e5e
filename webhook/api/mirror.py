"""The TypedDict mirrors of the wire models, and their core schemas in a form JSON can hold.

The models are written as pydantic BaseModels (readable, with aliases); checking is done through
TypedDict mirrors of them, which pydantic validates about three times faster (no model instances).
Only a cache miss, a type error or an unknown field imports this module (and pydantic): see
`webhook.api.schema_cache`.
"""

from __future__ import annotations

import importlib
import types
import typing
from functools import lru_cache
from typing import Any, Union

from pydantic import BaseModel, ConfigDict, TypeAdapter, with_config
from typing_extensions import NotRequired, TypedDict

_STRICT = ConfigDict(extra="forbid", strict=True)
# Marks a Python function (a validator such as webhook.quantity.check_json_quantity) in a stored schema.
FUNCTION = "$function"


def load_model(ref: str) -> type[BaseModel]:
    """The wire model named "module.Class" (e.g. "webhook.api.resourceslice.ResourceSlice")."""
    module, _, name = ref.rpartition(".")
    return getattr(importlib.import_module(module), name)


def stored_schema(ref: str) -> dict:
    """The core schema and config of the model's mirror, as the TypeAdapter builds its validator with them,
    without the TypedDict classes (only names and serialisation use them) and with functions as markers."""
    adapter = _adapter(load_model(ref))
    return {"schema": _storable(adapter.core_schema), "config": {}}  # TypeAdapter(mirror) passes an empty config


def _storable(node: Any) -> Any:
    if isinstance(node, dict):
        return {key: _storable(value) for key, value in node.items() if key != "cls"}
    if isinstance(node, (list, tuple)):
        return [_storable(value) for value in node]
    if isinstance(node, types.FunctionType):
        return {FUNCTION: f"{node.__module__}:{node.__qualname__}"}
    if node is None or isinstance(node, (str, int, float, bool)):
        return node
    raise TypeError(f"cannot store {type(node).__name__} in a core schema")


@lru_cache(maxsize=None)
def _adapter(model: type[BaseModel]) -> TypeAdapter:
    return TypeAdapter(_mirror(model))


@lru_cache(maxsize=None)
def _mirror(model: type[BaseModel]) -> Any:
    fields = {(info.alias or name): NotRequired[_mirror_type(info.annotation, info.metadata)]
              for name, info in model.model_fields.items()}
    mirrored = TypedDict(f"{model.__name__}Wire", fields)  # type: ignore[operator]
    return with_config(_STRICT)(mirrored)


def _mirror_type(annotation: Any, metadata: list | tuple = ()) -> Any:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        result: Any = _mirror(annotation)
    else:
        origin, args = typing.get_origin(annotation), typing.get_args(annotation)
        if origin is typing.Annotated:
            result = typing.Annotated[(_mirror_type(args[0]), *args[1:])]
        elif origin in (Union, types.UnionType):
            result = Union[tuple(_mirror_type(a) for a in args)]
        elif origin is list:
            result = list[_mirror_type(args[0])] if args else list
        elif origin is dict:
            result = dict[_mirror_type(args[0]), _mirror_type(args[1])] if args else dict
        else:
            result = annotation
    if metadata:
        result = typing.Annotated[(result, *metadata)]
    return result
