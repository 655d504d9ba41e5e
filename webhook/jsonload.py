"""JSON bytes to Python values exactly as `json.loads` gives them, through orjson where that is the same.

orjson parses a request body two to three times faster. It refuses some inputs `json.loads` accepts
(lone surrogates, NaN, a byte order mark, numbers beyond the float range): those go to `json.loads`.
It also turns integers beyond 64 bits into floats without a word, so a body with 19 or more digits
in a row (int64 holds every 18-digit number) goes to `json.loads` as well.
"""

from __future__ import annotations

import json
from typing import Any, Callable

import orjson

_DIGITS_ONLY = bytes(48 if 48 <= i <= 57 else 32 for i in range(256))  # every digit a "0", the rest spaces
_MAYBE_BEYOND_INT64 = b"0" * 19


def loads(data: bytes, parse_constant: Callable[[str], Any] | None = None) -> Any:
    """`json.loads(data, parse_constant=parse_constant)`: the same values, the same exceptions."""
    if _MAYBE_BEYOND_INT64 not in data.translate(_DIGITS_ONLY):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # json.loads decides: it accepts some of these, and words its own errors
    return json.loads(data, parse_constant=parse_constant)
