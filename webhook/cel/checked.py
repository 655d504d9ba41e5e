"""A checked CEL AST in plain Python, decoded from the `cel.expr.CheckedExpr` wire format.

The compiler hands back a serialized `google.protobuf.Any` holding a `CheckedExpr`. Only the parts the
cost estimator and the literal validators need are decoded: the expression tree, the type of every
node and the overload ids of every call. A small hand-written wire reader keeps this free of
generated protobuf classes.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

# Node kinds, named after cel-go's ast.ExprKind.
LITERAL, IDENT, SELECT, CALL, LIST, MAP, STRUCT, COMPREHENSION = range(8)

# Types are small tuples: ("bool",), ("list", elem), ("map", key, value), ("message", name),
# ("abstract", name, params...), ("dyn",), ("any",), ("error",), ...
DYN = ("dyn",)
_PRIMITIVES = {1: ("bool",), 2: ("int",), 3: ("uint",), 4: ("double",), 5: ("string",), 6: ("bytes",)}
_WELL_KNOWN = {1: ("any",), 2: ("timestamp",), 3: ("duration",)}
# Well-known messages the checker treats as CEL built-in types.
_MESSAGE_ALIASES = {
    "google.protobuf.Struct": ("map", ("string",), DYN),
    "google.protobuf.Value": DYN,
    "google.protobuf.ListValue": ("list", DYN),
}


@dataclass(slots=True, eq=False)
class Expr:
    id: int
    kind: int
    value: object = None  # literal value (bytes literals stay bytes), ident or function/field name
    operand: Expr | None = None  # select operand, call target
    test_only: bool = False
    args: list[Expr] = field(default_factory=list)  # call args, list elements
    entries: list[tuple[Expr, Expr]] = field(default_factory=list)  # map/struct entries (struct keys are names)
    # comprehension parts
    iter_var: str = ""
    iter_var2: str = ""
    accu_var: str = ""
    iter_range: Expr | None = None
    accu_init: Expr | None = None
    loop_condition: Expr | None = None
    loop_step: Expr | None = None
    result: Expr | None = None


@dataclass(slots=True)
class CheckedAst:
    root: Expr
    types: dict[int, tuple]
    overloads: dict[int, list[str]]
    positions: dict[int, int] = field(default_factory=dict)  # node id -> code point offset

    def type_of(self, e: Expr) -> tuple:
        return self.types.get(e.id, DYN)


class _Reader:
    """Iterates (field number, wire type, value) over one message; nested messages stay bytes."""

    __slots__ = ("buf", "pos", "end")

    def __init__(self, buf: bytes | memoryview, pos: int = 0, end: int | None = None) -> None:
        self.buf, self.pos, self.end = buf, pos, len(buf) if end is None else end

    def varint(self) -> int:
        buf, pos, result, shift = self.buf, self.pos, 0, 0
        while True:
            b = buf[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if b < 0x80:
                self.pos = pos
                return result
            shift += 7

    def __iter__(self):
        while self.pos < self.end:
            key = self.varint()
            number, wire = key >> 3, key & 7
            if wire == 0:
                yield number, self.varint()
            elif wire == 2:
                size = self.varint()
                start = self.pos
                self.pos += size
                yield number, self.buf[start:self.pos]
            elif wire == 1:
                start = self.pos
                self.pos += 8
                yield number, self.buf[start:self.pos]
            elif wire == 5:
                start = self.pos
                self.pos += 4
                yield number, self.buf[start:self.pos]
            else:
                raise ValueError(f"unsupported wire type {wire}")


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _text(b) -> str:
    return bytes(b).decode("utf-8", "surrogatepass")


def _constant(buf) -> object:
    for number, v in _Reader(buf):
        if number == 1:
            return None
        if number == 2:
            return bool(v)
        if number == 3:
            return _signed(v)
        if number == 4:
            return ("uint", v)  # keep uint distinct from int for the literal validators
        if number == 5:
            return struct.unpack("<d", v)[0]
        if number == 6:
            return _text(v)
        if number == 7:
            return bytes(v)
    return None


def _expr(buf) -> Expr:
    e = Expr(0, LITERAL)
    for number, v in _Reader(buf):
        if number == 2:
            e.id = v
        elif number == 3:
            e.kind, e.value = LITERAL, _constant(v)
        elif number == 4:
            e.kind = IDENT
            for n, w in _Reader(v):
                if n == 1:
                    e.value = _text(w)
        elif number == 5:
            e.kind = SELECT
            for n, w in _Reader(v):
                if n == 1:
                    e.operand = _expr(w)
                elif n == 2:
                    e.value = _text(w)
                elif n == 3:
                    e.test_only = bool(w)
        elif number == 6:
            e.kind = CALL
            for n, w in _Reader(v):
                if n == 1:
                    e.operand = _expr(w)
                elif n == 2:
                    e.value = _text(w)
                elif n == 3:
                    e.args.append(_expr(w))
        elif number == 7:
            e.kind = LIST
            for n, w in _Reader(v):
                if n == 1:
                    e.args.append(_expr(w))
        elif number == 8:
            e.kind = MAP
            for n, w in _Reader(v):
                if n == 1:
                    e.value = _text(w)
                    e.kind = STRUCT
                elif n == 2:
                    e.entries.append(_entry(w))
            if e.entries and isinstance(e.entries[0][0], str):
                e.kind = STRUCT
        elif number == 9:
            e.kind = COMPREHENSION
            for n, w in _Reader(v):
                if n == 1:
                    e.iter_var = _text(w)
                elif n == 2:
                    e.iter_range = _expr(w)
                elif n == 3:
                    e.accu_var = _text(w)
                elif n == 4:
                    e.accu_init = _expr(w)
                elif n == 5:
                    e.loop_condition = _expr(w)
                elif n == 6:
                    e.loop_step = _expr(w)
                elif n == 7:
                    e.result = _expr(w)
                elif n == 8:
                    e.iter_var2 = _text(w)
    return e


def _entry(buf) -> tuple:
    key: object = None
    value = None
    for n, w in _Reader(buf):
        if n == 2:
            key = _text(w)
        elif n == 3:
            key = _expr(w)
        elif n == 4:
            value = _expr(w)
    return key, value


def _type(buf) -> tuple:
    for number, v in _Reader(buf):
        if number == 1:
            return DYN
        if number == 2:
            return ("null",)
        if number in (3, 4):
            prim = _PRIMITIVES.get(v, DYN)
            return prim if number == 3 else ("wrapper", prim)
        if number == 5:
            return _WELL_KNOWN.get(v, DYN)
        if number == 6:
            elem = DYN
            for n, w in _Reader(v):
                if n == 1:
                    elem = _type(w)
            return ("list", elem)
        if number == 7:
            key, val = DYN, DYN
            for n, w in _Reader(v):
                if n == 1:
                    key = _type(w)
                elif n == 2:
                    val = _type(w)
            return ("map", key, val)
        if number == 8:
            return ("function",)
        if number == 9:
            name = _text(v)
            return _MESSAGE_ALIASES.get(name, ("message", name))
        if number == 10:
            return ("param", _text(v))
        if number == 11:
            return ("type", _type(v))
        if number == 12:
            return ("error",)
        if number == 14:
            name, params = "", []
            for n, w in _Reader(v):
                if n == 1:
                    name = _text(w)
                elif n == 2:
                    params.append(_type(w))
            return ("abstract", name, *params)
    return DYN


def _map_entry(buf) -> tuple[int, object]:
    key, value = 0, b""
    for n, w in _Reader(buf):
        if n == 1:
            key = _signed(w)
        elif n == 2:
            value = w
    return key, value


def decode(serialized: bytes) -> CheckedAst:
    """Decodes `Expression.serialize()` output: an Any wrapping a CheckedExpr."""
    payload = memoryview(serialized)
    for n, w in _Reader(payload):
        if n == 2:
            payload = w
            break
    root: Expr | None = None
    types: dict[int, tuple] = {}
    overloads: dict[int, list[str]] = {}
    positions: dict[int, int] = {}
    for number, v in _Reader(payload):
        if number == 2:
            key, ref = _map_entry(v)
            ids = [_text(w) for n, w in _Reader(ref) if n == 3]
            if ids:
                overloads[key] = ids
        elif number == 3:
            key, t = _map_entry(v)
            types[key] = _type(t)
        elif number == 4:
            root = _expr(v)
        elif number == 5:
            positions = _positions(v)
    if root is None:
        raise ValueError("checked expression without an expression tree")
    return CheckedAst(root, types, overloads, positions)


def _positions(source_info) -> dict[int, int]:
    positions: dict[int, int] = {}
    for n, w in _Reader(source_info):
        if n == 4:
            key, offset = 0, 0
            for m, x in _Reader(w):
                if m == 1:
                    key = _signed(x)
                elif m == 2:
                    offset = x
            positions[key] = offset
    return positions


def type_name(t: tuple) -> str:
    """cel-go's Type.String(), as used in 'must evaluate to bool ... not <type>'."""
    kind = t[0]
    if kind == "list":
        return f"list({type_name(t[1])})"
    if kind == "map":
        return f"map({type_name(t[1])}, {type_name(t[2])})"
    if kind in ("message", "param"):
        return t[1]
    if kind == "abstract":
        name = "optional_type" if t[1] == "optional_type" else t[1]
        return name + (f"({', '.join(type_name(p) for p in t[2:])})" if len(t) > 2 else "")
    if kind == "type":
        return f"type({type_name(t[1])})"
    if kind == "wrapper":
        return f"wrapper({type_name(t[1])})"
    if kind == "timestamp":
        return "google.protobuf.Timestamp"
    if kind == "duration":
        return "google.protobuf.Duration"
    if kind == "null":
        return "null_type"
    return kind
