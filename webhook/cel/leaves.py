"""The two leaf messages of a CEL expression, `Constant` and `Expr.Ident`, read from their wire bytes.

`protos` declares both as bytes: for a node with no children, reading a few bytes here is cheaper
than a protobuf message wrapper. Each holds one field (cel-spec `syntax.proto`); as protobuf does,
the last occurrence wins and unknown fields are skipped.
"""

from __future__ import annotations

import struct

_DOUBLE = struct.Struct("<d").unpack_from
_TWO_TO_63, _TWO_TO_64 = 1 << 63, 1 << 64


def _varint(b: bytes, i: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = b[i]
        i += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, i
        shift += 7


def _skip(b: bytes, i: int, wire: int) -> int:
    if wire == 0:
        return _varint(b, i)[1]
    if wire == 2:
        n, i = _varint(b, i)
        return i + n
    if wire == 1:
        return i + 8
    if wire == 5:
        return i + 4
    raise ValueError(f"unsupported wire type {wire}")


def constant(b: bytes) -> object:
    """The literal's value: str, int, bool, float, bytes, ("uint", n) (kept apart from int), or None (null)."""
    value = None
    i, end = 0, len(b)
    while i < end:
        tag = b[i]
        if tag < 0x80:
            i += 1
        else:
            tag, i = _varint(b, i)
        if tag == 0x32 or tag == 0x3A:  # string_value, bytes_value
            n = b[i]
            if n < 0x80:
                i += 1
            else:
                n, i = _varint(b, i)
            value = b[i:i + n]
            i += n
            if tag == 0x32:
                value = value.decode("utf-8")
        elif tag == 0x18:  # int64_value
            value, i = _varint(b, i)
            if value >= _TWO_TO_63:
                value -= _TWO_TO_64
        elif tag == 0x10:  # bool_value
            v, i = _varint(b, i)
            value = v != 0
        elif tag == 0x20:  # uint64_value
            v, i = _varint(b, i)
            value = ("uint", v)
        elif tag == 0x29:  # double_value
            value = _DOUBLE(b, i)[0]
            i += 8
        elif tag == 0x08:  # null_value (an enum)
            i = _skip(b, i, 0)
            value = None
        else:  # a field this reader does not know (as for protobuf: skipped)
            i = _skip(b, i, tag & 7)
    return value


def ident(b: bytes) -> str:
    """`Expr.Ident.name`."""
    name = ""
    i, end = 0, len(b)
    while i < end:
        tag = b[i]
        if tag < 0x80:
            i += 1
        else:
            tag, i = _varint(b, i)
        if tag == 0x0A:
            n = b[i]
            if n < 0x80:
                i += 1
            else:
                n, i = _varint(b, i)
            name = b[i:i + n].decode("utf-8")
            i += n
        else:
            i = _skip(b, i, tag & 7)
    return name
