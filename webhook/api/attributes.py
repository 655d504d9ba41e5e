"""The type check of device attribute maps: quick, or left to validation (kept free of pydantic).

A max-size slice has 4096 attributes; pydantic-core's typed-dict check of each one is most of the
slice's type check. Nearly every attribute is one scalar of the right JSON type. The wire models'
validators check an attribute map through `check_common_attributes` (webhook.api.schema_cache):

- Quick: a loop accepts a map of such attributes at a fraction of pydantic's cost and refuses
  anything else; the caller (webhook.api.decode) then runs the full validator, whose verdict and
  errors are the ones reported. An accepted map is one the full check accepts too, without an error
  or an unknown field.
- Deferred (inside `deferring`, for the object of a request): the map is only noted, and validation,
  which walks every attribute anyway, reports each map whose attributes all were such common ones
  (`note_common`). A map it did not report is type-checked in full afterwards (webhook.admit), and
  only a clean verdict lets the validation's answer stand.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from webhook.quantity import INT64_MAX, INT64_MIN

# The JSON type of each scalar field of the DeviceAttribute wire model (all of them nullable).
_SCALARS = {"int": int, "bool": bool, "string": str, "version": str}
_scalar = _SCALARS.get
_STR = frozenset({str})


class Deferred:
    """The attribute maps of one object whose type check waits for validation, and those it vouched for."""

    __slots__ = ("maps", "common", "recording")

    def __init__(self) -> None:
        self.maps: list[dict] = []  # the maps themselves: alive, so their ids stay theirs
        self.common: set[int] = set()  # ids of maps validation found all common
        self.recording = True  # maps are deferred only while the object itself is type-checked

    def complete(self) -> bool:
        """Whether validation vouched for every deferred map."""
        common = self.common
        return all(id(attributes) in common for attributes in self.maps)


_deferred: ContextVar[Deferred | None] = ContextVar("dra_webhook_deferred_attributes", default=None)


class deferring:  # noqa: N801 - a context manager, named as one; a class: entered on every request
    """Inside the block, attribute maps are deferred to `deferred` (None: checked here, quick or full)."""

    __slots__ = ("deferred", "token")

    def __init__(self, deferred: Deferred | None) -> None:
        self.deferred = deferred

    def __enter__(self) -> None:
        self.token = _deferred.set(self.deferred)

    def __exit__(self, *exc: object) -> None:
        _deferred.reset(self.token)


def forget_deferred() -> None:
    """The full validator is checking the object: it judges every map itself."""
    deferred = _deferred.get()
    if deferred is not None and deferred.recording:
        deferred.maps.clear()


def note_common(attributes: dict) -> None:
    """Validation's word that every attribute of `attributes` is one scalar of the right JSON type
    (an int within int64, a bool, a string): the type check accepts such a map."""
    deferred = _deferred.get()
    if deferred is not None:
        deferred.common.add(id(attributes))


def check_common_attributes(attributes: Any) -> Any:
    """`attributes` itself when it is a map of single-scalar attributes of the right types, or a map with
    string keys deferred to validation; else ValueError."""
    deferred = _deferred.get()
    if deferred is not None and deferred.recording:
        if type(attributes) is not dict or not _STR.issuperset(map(type, attributes)):
            raise ValueError("not an attribute map")
        if attributes:
            deferred.maps.append(attributes)
        return attributes
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
