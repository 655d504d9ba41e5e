"""Turns the validation errors of a wire model's mirror into field errors worded as Go's JSON decoder
words them, and unknown-field warnings.

Each error keeps our precise path (list indexes, map keys, rendered like Go's field.Path) as its field;
its detail is what the API server's decoder (sigs.k8s.io/json, a fork of encoding/json: `literalStore`,
`object`, `array`, `addErrorContext`, `UnmarshalTypeError.Error`) says about the value:
`json: cannot unmarshal string into Go struct field Device.spec.devices.capacity of type v1.DeviceCapacity`
— the JSON kind of the value ("number 1.5" when an integer does not parse), the struct holding the last
field entered, the JSON field names from the root (no indexes, no keys) and the Go type the value missed,
pointers dereferenced. Types that decode themselves say their own words: resource.Quantity the error of
ParseQuantity, metav1.Time that of decoding a string. The one the API server reports comes first (see
`convert`). A null is refused with pydantic's words: Go would decode it as the zero value.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel
from pydantic_core import ValidationError

from webhook.api import go_types, gotime
from webhook.field import ErrorList, FieldError, Path, go_json_number, go_quote, type_invalid
from webhook.quantity import json_quantity_error


@dataclass(frozen=True)
class _Located:
    """Where one error is: our path, Go's error context and the type the value did not fit."""

    path: str
    struct: str  # Go's errorContext.Struct: the struct holding the last field entered
    fields: tuple[str, ...]  # Go's errorContext.FieldStack
    annotation: Any  # the wire type at the error
    named: str  # the named Go type of its scalar ("" for a plain one)
    depth: int  # how much of the location is in the object (the rest names a quantity's union members)
    steps: tuple = ()  # the path's JSON names, keys and indexes in the sent version (the strict decoder's path)


# How many strict decoding errors the decoder keeps (sigs.k8s.io/json saveStrictError): the rest are not named.
MAX_STRICT_ERRORS = 100


def convert(model: type[BaseModel], obj: dict, exc: ValidationError,
            version: str = "v1", sent: Any = None, embedded: bool = True) -> tuple[ErrorList, list[str]]:
    """(type errors, unknown-field warnings); `version` is the API version the object was sent in, whose
    Go package names the DRA types. The first error is the one the API server reports: Go's decoder saves
    the first type error and goes on, but an UnmarshalJSON error (a quantity's, a time's) stops it at
    once and is returned instead; so those come first, then the others, each in document order.

    The unknown fields are the strict decoder's errors (sigs.k8s.io/json): in the order the fields are
    written in `sent` (the object as sent, `obj` if not given), named by their JSON path in the sent version
    (map keys after a dot like field names: `capacity.cores`), Go-quoted, at most MAX_STRICT_ERRORS.
    `embedded`: the decoder names the embedded structs a field is promoted from (behaviours
    `decoder_names_embedded_structs`)."""
    found: dict[str, tuple[tuple, FieldError]] = {}
    unknown: list[tuple[str | int, ...]] = []
    positions = _Positions(obj)
    for err in exc.errors(include_url=False):
        loc = err["loc"]
        located = _locate(model, loc, version, embedded)
        if err["type"] == "extra_forbidden":
            basic = _unlifted_basic(located, obj, loc, version)
            if basic is None:
                unknown.append(located.steps)
            elif isinstance(basic, dict):  # what the conversion did not lift: unknown BasicDevice fields
                unknown.extend(located.steps + (key,) for key in basic)
            else:
                found[located.path] = ((True, positions.of(loc)), type_invalid(
                    located.path, "<value omitted>" if isinstance(basic, list) else basic,
                    f"json: cannot unmarshal {_json_kind(basic, '')} into Go struct field {located.struct}."
                    f"{'.'.join(located.fields)} of type {version}.{go_types.BASIC_DEVICE}"))
            continue
        if located.path in found:  # one error per value: a quantity's union reports each member
            continue
        error, stops = _error(located, _value_at(obj, loc[:located.depth]), err, version)
        found[located.path] = ((not stops, positions.of(loc[:located.depth])), error)
    ordered = sorted(found.values(), key=lambda item: item[0])
    return [error for _, error in ordered], strict_warnings(unknown, obj if sent is None else sent)


def unknown_locations(exc: ValidationError) -> list[tuple]:
    """Where the unknown fields are in the object validated: what Go's decoder leaves out of the object."""
    return [err["loc"] for err in exc.errors(include_url=False) if err["type"] == "extra_forbidden"]


def strict_warnings(unknown: list[tuple[str | int, ...]], sent: Any) -> list[str]:
    """The strict decoder's `unknown field "…"` errors for the fields at `unknown` (paths of JSON names, keys and
    indexes in the sent object): in document order, each once, the first MAX_STRICT_ERRORS."""
    positions = _Positions(sent)
    ordered = sorted(set(unknown), key=positions.of)
    return [f"unknown field {go_quote(strict_path(steps))}" for steps in ordered[:MAX_STRICT_ERRORS]]


def strict_path(steps: tuple[str | int, ...]) -> str:
    """A path as the strict decoder writes it (its strictFieldStack): names and map keys joined by dots, indexes
    in brackets: `spec.devices[0].capacity.cores.bogus`."""
    out: list[str] = []
    for step in steps:
        if isinstance(step, int):
            out.append(f"[{step}]")
        else:
            out.append(f".{step}" if out else step)
    return "".join(out)


class _Positions:
    """Where paths are written in a document: the key and index positions along each, each mapping's keys
    indexed once (many unknown fields of one mapping cost their number, not its square)."""

    def __init__(self, root: Any):
        self.root = root
        self.indexes: dict[int, dict[str, int]] = {}

    def of(self, steps: tuple[str | int, ...]) -> tuple[int, ...]:
        node, place = self.root, []
        for step in steps:
            if isinstance(node, dict) and isinstance(step, str):
                index = self.indexes.get(id(node))
                if index is None:
                    index = self.indexes[id(node)] = {key: n for n, key in enumerate(node)}
                if step not in index:
                    break
                place.append(index[step])
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                place.append(step)
            else:
                break
            node = node[step]
        return tuple(place)


def _unlifted_basic(located: _Located, obj: dict, loc: tuple, version: str) -> Any:
    """A v1beta1 device's `basic` that the conversion to v1 left in place (not an object, or with fields
    it does not know), or None."""
    if version == "v1beta1" and located.struct == "Device" and located.fields[-1:] == ("basic",):
        return _value_at(obj, loc)
    return None


def _error(located: _Located, value: Any, err: dict, version: str) -> tuple[FieldError, bool]:
    """(the error, whether it stops Go's decoder)."""
    shown = "<value omitted>" if isinstance(value, (dict, list)) else value
    if go_types.is_quantity(located.annotation):
        return type_invalid(located.path, shown, json_quantity_error(value) or "invalid quantity"), True
    if value is None:  # Go decodes null as the zero value: only our checks refuse it
        return type_invalid(located.path, shown, _pydantic_message(err)), False
    target = go_types.go_type(located.annotation, located.named, version)
    kind = _json_kind(value, target)
    if target == go_types.TIME:  # metav1.Time.UnmarshalJSON decodes a string with a fresh decoder, then parses it
        if isinstance(value, str):
            return type_invalid(located.path, shown, gotime.rfc3339_error(value) or "invalid time"), True
        # The inner decoder's UnmarshalTypeError gets the outer one's context on its way out (addErrorContext).
        return type_invalid(located.path, shown, f"json: cannot unmarshal {kind} into Go struct field "
                                                 f"{located.struct}.{'.'.join(located.fields)} of type string"), True
    if not located.struct:
        return type_invalid(located.path, shown, f"json: cannot unmarshal {kind} into Go value of type {target}"), False
    return type_invalid(located.path, shown, f"json: cannot unmarshal {kind} into Go struct field "
                                             f"{located.struct}.{'.'.join(located.fields)} of type {target}"), False


def _json_kind(value: Any, target: str) -> str:
    """UnmarshalTypeError.Value: the JSON kind; for a number into an integer, the number's text."""
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return f"number {go_json_number(value)}" if target in ("int64", "int32") else "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _pydantic_message(err: dict) -> str:
    msg = err.get("msg", "invalid type")
    return msg[0].lower() + msg[1:] if msg else "invalid type"


def _value_at(obj: Any, loc: tuple) -> Any:
    node = obj
    for part in loc:
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _field_type(model: type[BaseModel], alias: str) -> Any:
    for name, info in model.model_fields.items():
        if (info.alias or name) == alias:
            return info.annotation
    return Any


def _locate(model: type[BaseModel], loc: tuple, version: str, embedded: bool = True) -> _Located:
    path: Path | None = None
    current: Any = model
    struct, fields, named, depth = "", [], "", 0
    steps: list[str | int] = []
    for depth, part in enumerate(loc):
        if go_types.is_quantity(current):  # the rest of the location names union members
            break
        base = go_types.strip_optional(current)
        while typing.get_origin(base) is typing.Annotated:
            base = typing.get_args(base)[0]
        origin, args = typing.get_origin(base), typing.get_args(base)
        if isinstance(base, type) and issubclass(base, BaseModel) and isinstance(part, str):
            v1_struct = go_types.struct_name(base)
            named = go_types.named_type(v1_struct, part, version)
            struct, names = go_types.in_version(v1_struct, part, version)
            if names and embedded:
                fields.extend(go_types.embedded(v1_struct, part))
            for name in names:
                fields.append(name)
                steps.append(name)
                path = Path(name) if path is None else path.child(name)
            current = _field_type(base, part)
        elif origin is list and isinstance(part, int):  # a list's named type is its elements'
            path = path.index(part) if path is not None else Path(f"[{part}]")
            steps.append(part)
            current = args[0] if args else Any
        elif origin is dict:  # a map's named type is its keys'
            if part == "[key]":
                continue
            path = path.key(str(part)) if path is not None else Path(str(part))
            steps.append(str(part))
            current, named = (args[1] if len(args) == 2 else Any), ""
        else:  # untyped content (a RawExtension, a status map)
            if isinstance(part, int):
                path = path.index(part) if path is not None else Path(f"[{part}]")
            else:
                path = path.key(str(part)) if path is not None else Path(str(part))
            steps.append(part if isinstance(part, int) else str(part))
            current, named = Any, ""
    else:
        depth = len(loc)
    return _Located(str(path) if path else "<root>", struct, tuple(fields), current, named, depth, tuple(steps))
