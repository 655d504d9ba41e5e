"""Turns the validation errors of a wire model's mirror into field errors and unknown-field warnings.

Paths are rendered from the model (aliases, list indexes, map keys) the way Go's field.Path prints them.
"""

from __future__ import annotations

import types
import typing
from typing import Any, Union

from pydantic import BaseModel
from pydantic_core import ValidationError

from webhook.field import ErrorList, Path, type_invalid


def convert(model: type[BaseModel], obj: dict, exc: ValidationError) -> tuple[ErrorList, list[str]]:
    errors: ErrorList = []
    warnings: list[str] = []
    for err in exc.errors(include_url=False):
        loc = err["loc"]
        if err["type"] == "extra_forbidden":
            warnings.append(f'unknown field "{_render(model, loc)}"')
            continue
        errors.append(type_invalid(_render(model, loc), _value_at(obj, loc), _message(err)))
    return errors, warnings


def _message(err: dict) -> str:
    msg = err.get("msg", "invalid type")
    return msg[0].lower() + msg[1:] if msg else "invalid type"


def _value_at(obj: Any, loc: tuple) -> Any:
    node = obj
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    if isinstance(node, (dict, list)):
        return "<value omitted>"
    return node


def _unwrap(annotation: Any) -> Any:
    """Strips Optional/Annotated to the type that decides how the next path element renders."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
            containers = [a for a in args if typing.get_origin(a) in (list, dict)]
            annotation = (models or containers or args or [Any])[0]
        else:
            return annotation


def _render(model: type[BaseModel], loc: tuple) -> str:
    path: Path | None = None
    current: Any = model
    for part in loc:
        current = _unwrap(current)
        origin = typing.get_origin(current)
        if isinstance(current, type) and issubclass(current, BaseModel) and isinstance(part, str):
            name = part
            field_type: Any = Any
            for fname, info in current.model_fields.items():
                if (info.alias or fname) == part:
                    field_type = info.annotation
                    break
            path = Path(name) if path is None else path.child(name)
            current = field_type
        elif origin is list and isinstance(part, int):
            path = path.index(part) if path is not None else Path(f"[{part}]")
            current = typing.get_args(current)[0] if typing.get_args(current) else Any
        elif origin is dict:
            if part == "[key]":
                continue
            key = str(part)
            path = path.key(key) if path is not None else Path(key)
            args = typing.get_args(current)
            current = args[1] if len(args) == 2 else Any
        else:
            # Union branch names (e.g. 'str', 'int') and untyped content.
            if isinstance(part, int):
                path = path.index(part) if path is not None else Path(f"[{part}]")
            elif current is Any or origin is None and not isinstance(current, type):
                path = path.key(part) if path is not None else Path(str(part))
            current = Any
    return str(path) if path is not None else "<root>"
