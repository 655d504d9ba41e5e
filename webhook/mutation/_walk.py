"""Tolerant access to raw JSON, with the JSON Pointer of every part reached.

Defaults only touch what is dict or list shaped. Wrongly typed input is left as it is; the API
server would reject it while decoding, and the type check after defaulting reports it. Defaulting
must never be the place that crashes. Every default is set through `Patch.set`, which records the
RFC 6902 operation at the pointer the walk carried down, so the patch is known without a diff.
"""

from __future__ import annotations

from typing import Any, Iterator


def escape(key: str) -> str:
    """One JSON Pointer reference token (RFC 6901): "~" and "/" are escaped."""
    return key.replace("~", "~0").replace("/", "~1")


class Patch:
    """The operations applied to one object, in order. With `undoable`, each change is remembered so
    that `undo` gives the object back as it was (its key order included)."""

    __slots__ = ("ops", "_undo")

    def __init__(self, undoable: bool = False) -> None:
        self.ops: list[dict] = []
        self._undo: list[tuple[dict, str, bool, Any]] | None = [] if undoable else None

    def set(self, target: dict, pointer: str, key: str, value: Any) -> None:
        # "add" of an existing member would replace it too; "replace" says what happened.
        present = key in target
        if self._undo is not None:
            self._undo.append((target, key, present, target.get(key)))
        target[key] = value
        self.ops.append({"op": "replace" if present else "add", "path": f"{pointer}/{escape(key)}", "value": value})

    def undo(self) -> None:
        """Every change taken back, last first: a replaced member gets its value back in its place, an
        added one goes (the last key of its mapping by then, so the order is the original's)."""
        while self._undo:
            target, key, present, value = self._undo.pop()
            if present:
                target[key] = value
            else:
                del target[key]


def child(obj: Any, pointer: str, *keys: str) -> tuple[dict | None, str]:
    """The dict reached through `keys` and its pointer; None when any step is missing or not a dict."""
    for key in keys:
        if not isinstance(obj, dict):
            return None, pointer
        obj = obj.get(key)
        pointer = f"{pointer}/{escape(key)}"
    return (obj, pointer) if isinstance(obj, dict) else (None, pointer)


def dict_items(obj: Any, pointer: str, key: str) -> Iterator[tuple[dict, str]]:
    """The dict entries of the list `obj[key]` with their pointers; other entries and shapes are skipped."""
    values = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(values, list):
        base = f"{pointer}/{escape(key)}"
        yield from ((value, f"{base}/{i}") for i, value in enumerate(values) if isinstance(value, dict))


def dict_values(obj: Any, pointer: str, key: str) -> Iterator[tuple[dict, str]]:
    """The dict values of the map `obj[key]` with their pointers; other values and shapes are skipped."""
    values = obj.get(key) if isinstance(obj, dict) else None
    if isinstance(values, dict):
        base = f"{pointer}/{escape(key)}"
        yield from ((value, f"{base}/{escape(name)}") for name, value in values.items() if isinstance(value, dict))


def is_unset(obj: dict, key: str) -> bool:
    """Go decodes an absent field and an explicit null to the same nil/zero value."""
    return obj.get(key) is None


def is_empty_string(obj: dict, key: str) -> bool:
    """A Go string field is "" when absent, null or explicitly empty."""
    return obj.get(key) is None or obj.get(key) == ""


def copy_json(value: Any) -> Any:
    """A deep copy of decoded JSON (dicts, lists, scalars); several times faster than copy.deepcopy."""
    if isinstance(value, dict):
        return {k: copy_json(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) if isinstance(v, (dict, list)) else v for v in value]
    return value
