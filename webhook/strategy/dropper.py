"""The drop step shared by every kind: remove one gated field, or only report that it would go.

Objects are raw v1-shaped JSON. Go decodes an absent field and an explicit null to nil, and
rejects a wrongly typed value while decoding, long before the registry strategy runs. So a field
counts as set only when it holds the JSON type of its Go field; anything else is left alone for
the type check that follows. Navigation only steps through dicts and lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from webhook.field import Path

# JSON shapes of the Go field types: slices, maps and structs, *bool, *string.
LIST, DICT, BOOL, STRING = list, dict, bool, str


@dataclass(frozen=True)
class DroppedField:
    """One field the registry strategy removes because its feature gate is off."""

    path: str  # field.Path string in the v1 shape, e.g. "spec.devices[0].bindingConditions"
    gate: str

    def warning(self) -> str:
        return f"{self.path} dropped: feature gate {self.gate} is disabled"


def is_set(obj: Any, key: str, shape: type) -> bool:
    """Go's `x != nil` for a pointer, slice or map field."""
    return isinstance(obj, dict) and isinstance(obj.get(key), shape)


def has_items(obj: Any, key: str, shape: type = LIST) -> bool:
    """Go's `len(x) > 0` for a slice (or map) field."""
    return is_set(obj, key, shape) and len(obj[key]) > 0


def dicts(obj: Any, key: str) -> Iterator[tuple[int, dict]]:
    """(index, item) of the dict items of the list `obj[key]`, as read-only access to an old object."""
    values = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(values, list):
        yield from ((i, value) for i, value in enumerate(values) if isinstance(value, dict))


def dict_values(obj: Any, key: str) -> Iterator[tuple[str, dict]]:
    """(key, value) of the dict values of the map `obj[key]`."""
    values = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(values, dict):
        yield from ((k, value) for k, value in values.items() if isinstance(value, dict))


def child(obj: Any, *keys: str) -> dict | None:
    """The dict reached through `keys`, or None when a step is missing or not a dict."""
    for key in keys:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj if isinstance(obj, dict) else None


@dataclass
class Dropper:
    """Walks the new object for one strategy run; `remove=False` reports without touching it.

    When only reporting, a dropped field is remembered as gone, so that a later step does not
    report fields inside it (upstream drops `firstAvailable` before the tolerations inside it).
    """

    profile: Any
    remove: bool
    dropped: list[DroppedField] = field(default_factory=list)
    _gone: set[tuple[int, str]] = field(default_factory=set)

    def enabled(self, gate: str) -> bool:
        return self.profile.enabled(gate)

    def get(self, obj: Any, key: str) -> Any:
        if not isinstance(obj, dict) or (self._gone and (id(obj), key) in self._gone):
            return None
        return obj.get(key)

    def child(self, obj: Any, key: str) -> dict | None:
        value = self.get(obj, key)
        return value if isinstance(value, dict) else None

    def dicts(self, obj: Any, key: str) -> Iterator[tuple[int, dict]]:
        values = self.get(obj, key)
        if isinstance(values, list):
            yield from ((i, value) for i, value in enumerate(values) if isinstance(value, dict))

    def dict_values(self, obj: Any, key: str) -> Iterator[tuple[str, dict]]:
        values = self.get(obj, key)
        if isinstance(values, dict):
            yield from ((k, value) for k, value in list(values.items()) if isinstance(value, dict))

    def drop(self, obj: Any, path: Path | Callable[[], Path], key: str, shape: type, gate: str) -> None:
        """Go's `obj.Key = nil`: removes `obj[key]` if it is set. `path` is obj's path, or a function
        that builds it (only called for a drop, as most calls find nothing)."""
        if not isinstance(self.get(obj, key), shape):
            return
        path = path() if callable(path) else path
        self.dropped.append(DroppedField(str(path.child(key)), gate))
        if self.remove:
            del obj[key]
        else:
            self._gone.add((id(obj), key))
