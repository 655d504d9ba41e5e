"""validateRawExtension: opaque `parameters` and `status.devices[].data`.

The webhook sees the parsed JSON value, not the bytes the client sent. The size is measured on the
compact JSON encoding of that value, which is how the API server re-encodes it for admission.
An absent value or JSON `null` is an empty RawExtension (Required).
"""

from __future__ import annotations

import json
from typing import Any

from webhook.field import ErrorList, Path, invalid, required, too_long

_MISSING = object()


# json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False), without building
# the encoder on every call (json.dumps does for any non-default argument).
_COMPACT = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def raw_size(value: Any) -> int:
    """The size of the compact JSON encoding, by the C encoder in one pass. A value built from YAML
    aliases is bounded by the loader's alias budget before it gets here (offline/yamlload.py)."""
    return len(_COMPACT.encode(value).encode("utf-8", "surrogatepass"))


def validate_raw_extension(value: Any, path: Path, stored: bool, max_length: int) -> ErrorList:
    """validateRawExtension: first hit wins (empty, too long unless stored, not JSON, null, not an object)."""
    if value is None or value is _MISSING:
        return [required(path, "")]
    try:
        size = raw_size(value)
    except (TypeError, ValueError) as exc:
        return [invalid(path, "<value omitted>", f"error parsing data as JSON: {exc}")]
    if not stored and size > max_length:
        return [too_long(path, "", max_length)]
    if not isinstance(value, dict):
        return [invalid(path, "<value omitted>", "must be a valid JSON object")]
    return []
