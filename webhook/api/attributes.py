"""The quick type check of a device's attribute map (kept free of pydantic, like webhook.quantity's).

A max-size slice has 4096 attributes; pydantic-core's typed-dict check of each one is most of the
slice's type check. Nearly every attribute is one scalar of the right JSON type, which this loop
accepts at a fraction of the cost. Anything else is refused here, and the caller (webhook.api.decode)
then runs the full validator, whose verdict and errors are the ones reported: an accepted map is one
the full check accepts too, without an error or an unknown field.
"""

from __future__ import annotations

from typing import Any

from webhook.quantity import INT64_MAX, INT64_MIN

_NONE = type(None)
# (field, JSON type) pairs the DeviceAttribute wire model accepts for its scalar fields (all nullable).
_SCALARS = frozenset({("int", int), ("bool", bool), ("string", str), ("version", str),
                      ("int", _NONE), ("bool", _NONE), ("string", _NONE), ("version", _NONE)})


def check_common_attributes(attributes: Any) -> Any:
    """`attributes` itself when it is a map of single-scalar attributes of the right types; else ValueError."""
    if type(attributes) is not dict:
        raise ValueError("not an attribute map")
    for key, attribute in attributes.items():
        if type(key) is not str or type(attribute) is not dict or len(attribute) != 1:
            raise ValueError("not a common attribute")
        ((name, value),) = attribute.items()
        kind = type(value)
        if (name, kind) not in _SCALARS or (kind is int and not INT64_MIN <= value <= INT64_MAX):
            raise ValueError("not a common attribute")
    return attributes
