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

# The JSON type of each scalar field of the DeviceAttribute wire model (all of them nullable).
_SCALARS = {"int": int, "bool": bool, "string": str, "version": str}
_scalar = _SCALARS.get


def check_common_attributes(attributes: Any) -> Any:
    """`attributes` itself when it is a map of single-scalar attributes of the right types; else ValueError."""
    if type(attributes) is not dict:
        raise ValueError("not an attribute map")
    for key, attribute in attributes.items():
        if type(attribute) is not dict or len(attribute) != 1 or type(key) is not str:
            raise ValueError("not a common attribute")
        ((name, value),) = attribute.items()
        kind = type(value)
        if kind is not _scalar(name):
            if value is not None or name not in _SCALARS:
                raise ValueError("not a common attribute")
        elif kind is int and not INT64_MIN <= value <= INT64_MAX:
            raise ValueError("not a common attribute")
    return attributes
