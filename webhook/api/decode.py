"""Type-checks a v1-shaped object against its wire model; the one place validation errors become field errors.

Type mismatches are what Go's JSON decoder rejects before any validation (`FieldValueTypeInvalid`
causes, worded as the decoder words them); unknown fields become warnings, as with the API server's
default field validation. A clean object costs one pydantic-core validator run: the validators come
from a cache of core schemas (`webhook.api.schema_cache`), so that neither pydantic nor the models are
imported unless an object has a type error or an unknown field. A model with device attribute maps is
checked by its quick validator first (`webhook.api.attributes`); whatever it refuses, the full
validator judges, so the errors and warnings are always the full validator's.
"""

from __future__ import annotations

import copy
from typing import Any

from webhook.api.attributes import forget_deferred
from webhook.api.schema_cache import ValidationError, quick_validator, validator
from webhook.field import ErrorList


def check_types(model: str | Any, obj: dict, version: str = "v1", sent: Any = None,
                embedded: bool = True) -> tuple[ErrorList, list[str]]:
    """Returns (type errors, unknown-field warnings) of `obj` against the wire model `model` (a class or
    its "module.Class" name). `version` is the API version the object was sent in (its Go package names
    the types in the errors; for v1beta1 the paths are moved back to where v1beta1 has the fields). The
    first error is the one the API server would report; the unknown fields come in the order they are
    written in `sent`, the object as sent (`obj` if not given: `obj` is it converted to v1). `embedded`: the
    release's decoder names embedded structs in its errors (behaviours `decoder_names_embedded_structs`)."""
    ref = model if isinstance(model, str) else f"{model.__module__}.{model.__qualname__}"
    quick = quick_validator(ref)
    if quick is not None:
        try:
            quick.validate_python(obj)
            return [], []
        except ValidationError:  # an error, an unknown field or an uncommon attribute
            forget_deferred()  # the full validator decides, on the attribute maps too
    try:
        validator(ref).validate_python(obj)
    except ValidationError as exc:
        from webhook.api import mirror, type_errors  # the paths are rendered from the models

        return type_errors.convert(mirror.load_model(ref), obj, exc, version, sent, embedded)
    return [], []


def without_unknown_fields(model: str | Any, obj: dict) -> dict:
    """`obj` as Go's decoder leaves it: without its unknown fields (a copy when it has some; `obj` itself
    otherwise). The API server validates, and compares with the stored object, what it decoded."""
    ref = model if isinstance(model, str) else f"{model.__module__}.{model.__qualname__}"
    try:
        validator(ref).validate_python(obj)
        return obj
    except ValidationError as exc:
        from webhook.api import type_errors

        locations = type_errors.unknown_locations(exc)
    if not locations:
        return obj
    out = copy.deepcopy(obj)
    for loc in locations:
        parent: Any = out
        for part in loc[:-1]:
            if isinstance(parent, dict) and isinstance(part, str) and part in parent:
                parent = parent[part]
            elif isinstance(parent, list) and isinstance(part, int) and 0 <= part < len(parent):
                parent = parent[part]
            else:  # a location through a union member's tag: not a place in the object
                parent = None
                break
        if isinstance(parent, dict):
            parent.pop(loc[-1], None)
    return out
