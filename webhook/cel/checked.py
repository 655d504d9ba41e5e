"""A checked CEL AST in plain Python, read from the compiler's serialized `cel.expr.CheckedExpr`.

protobuf's C parser reads the bytes (`protos`); one walk turns the expression tree into `Expr`
nodes and notes the nodes the literal validators look at. Types, overload ids and source
positions are converted on demand (positions parsed only then).
"""

from __future__ import annotations

from webhook.cel import leaves
from webhook.cel.protos import message_class

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
# Calls the literal validators inspect (`format` exempts its arguments from homogeneity).
NOTABLE_CALLS = frozenset({"duration", "timestamp", "matches", "format"})


class _Parts:
    """Defaults of the parts only some kinds of node have (set on those nodes only, to keep nodes cheap)."""

    __slots__ = ()
    test_only = False  # select: has() test
    entries: list | tuple = ()  # map/struct entries (struct keys are field names)
    iter_var = iter_var2 = accu_var = ""
    iter_range = accu_init = loop_condition = loop_step = result = None


class Expr(_Parts):
    """One node of the checked expression."""

    __slots__ = ("id", "kind", "value", "operand", "args")

    def __init__(self, id: int, kind: int, value: object = None, operand: Expr | None = None,
                 args: list | tuple = ()) -> None:
        self.id = id
        self.kind = kind
        self.value = value  # literal value (bytes stay bytes, uint is ("uint", n)), ident or function/field name
        self.operand = operand  # select operand, call target
        self.args = args  # call args, list elements


class _Select(Expr):
    __slots__ = ("test_only",)


class _Aggregate(Expr):
    __slots__ = ("entries",)


class _Comprehension(Expr):
    __slots__ = ("iter_var", "iter_var2", "accu_var", "iter_range", "accu_init", "loop_condition", "loop_step",
                 "result")


def children(e: Expr):
    """The nodes right below `e`: operand, arguments, map and struct entries (a struct's field names are not
    nodes), a comprehension's parts."""
    if e.operand is not None:
        yield e.operand
    yield from e.args
    for key, value in e.entries:
        if isinstance(key, Expr):
            yield key
        yield value
    if e.kind == COMPREHENSION:
        yield from (e.iter_range, e.accu_init, e.loop_condition, e.loop_step, e.result)


class CheckedAst:
    __slots__ = ("root", "notable", "types", "_checked", "_serialized", "_positions")

    def __init__(self, root: Expr, notable: list[Expr], checked, serialized: bytes) -> None:
        self.root = root
        self.notable = notable  # pre-order: LIST, MAP, COMPREHENSION nodes and NOTABLE_CALLS
        self._checked = checked
        self._serialized = serialized
        self.types = _Types(checked.type_map)  # node id -> type: `ast.types[e.id]`
        self._positions: dict[int, int] | None = None

    def type_of(self, e: Expr) -> tuple:
        return self.types[e.id]

    def overloads(self, node_id: int) -> tuple[str, ...]:
        raw = self._checked.reference_map.get(node_id)
        return () if raw is None else _decoded(_REFERENCES, raw, _overloads_from_bytes)

    @property
    def positions(self) -> dict[int, int]:
        """Node id -> code point offset."""
        if self._positions is None:
            info = message_class("SerializedSourceInfo").FromString(self._serialized).value.source_info
            self._positions = dict(info.positions)
        return self._positions


# Distinct serialized types and references are few (the same handful in every selector): decode each once.
_MEMO_ENTRIES = 4096
TYPES: dict[bytes, tuple] = {}  # also read directly by `onepass`
_REFERENCES: dict[bytes, tuple[str, ...]] = {}


def _decoded(memo: dict, raw: bytes, decode_bytes):
    try:
        return memo[raw]
    except KeyError:
        pass
    value = decode_bytes(raw)
    if len(memo) >= _MEMO_ENTRIES:  # a hostile stream of odd types cannot grow it without bound
        memo.clear()
    memo[raw] = value
    return value


def decoded_type(raw: bytes) -> tuple:
    """A `type_map` value as a type tuple."""
    return _decoded(TYPES, raw, _type_from_bytes)


def decoded_overloads(raw: bytes) -> tuple[str, ...]:
    """A `reference_map` value as its overload ids."""
    return _decoded(_REFERENCES, raw, _overloads_from_bytes)


def _type_from_bytes(raw: bytes) -> tuple:
    return _type(message_class("Type").FromString(raw))


def _overloads_from_bytes(raw: bytes) -> tuple[str, ...]:
    return tuple(message_class("Reference").FromString(raw).overload_id)


class _Types(dict):
    """Node id -> type, decoded on first lookup (`[]`; nodes without a type are dyn)."""

    __slots__ = ("_raw",)

    def __init__(self, raw) -> None:
        super().__init__()
        self._raw = raw

    def __missing__(self, node_id: int) -> tuple:
        raw = self._raw.get(node_id)
        t = self[node_id] = DYN if raw is None else _decoded(TYPES, raw, _type_from_bytes)
        return t


class _Converter:
    __slots__ = ("notable",)

    def __init__(self) -> None:
        self.notable: list[Expr] = []

    def expr(self, m) -> Expr:
        which = m.WhichOneof("expr_kind")
        if which == "select_expr":
            s = m.select_expr
            if s.test_only:
                e = _Select(m.id, SELECT, s.field, self.expr(s.operand))
                e.test_only = True
                return e
            return Expr(m.id, SELECT, s.field, self.expr(s.operand))
        if which == "call_expr":
            c = m.call_expr
            function = c.function
            e = Expr(m.id, CALL, function)
            if function in NOTABLE_CALLS:
                self.notable.append(e)
            if c.HasField("target"):
                e.operand = self.expr(c.target)
            e.args = list(map(self.expr, c.args))
            return e
        if which == "const_expr":
            return Expr(m.id, LITERAL, leaves.constant(m.const_expr))
        if which == "ident_expr":
            return Expr(m.id, IDENT, leaves.ident(m.ident_expr))
        if which == "list_expr":
            e = Expr(m.id, LIST)
            self.notable.append(e)
            e.args = [self.expr(a) for a in m.list_expr.elements]
            return e
        if which == "struct_expr":
            s = m.struct_expr
            e = _Aggregate(m.id, STRUCT if s.message_name else MAP, s.message_name or None)
            if e.kind == MAP:
                self.notable.append(e)
            e.entries = [(self.expr(x.map_key) if x.HasField("map_key") else x.field_key, self.expr(x.value))
                         for x in s.entries]
            if e.entries and isinstance(e.entries[0][0], str):
                e.kind = STRUCT
            return e
        if which == "comprehension_expr":
            c = m.comprehension_expr
            e = _Comprehension(m.id, COMPREHENSION)
            self.notable.append(e)
            e.iter_var, e.iter_var2, e.accu_var = c.iter_var, c.iter_var2, c.accu_var
            e.iter_range = self.expr(c.iter_range)
            e.accu_init = self.expr(c.accu_init)
            e.loop_condition = self.expr(c.loop_condition)
            e.loop_step = self.expr(c.loop_step)
            e.result = self.expr(c.result)
            return e
        return Expr(m.id, LITERAL)


def _type(t) -> tuple:
    which = t.WhichOneof("type_kind")
    if which == "primitive":
        return _PRIMITIVES.get(t.primitive, DYN)
    if which == "message_type":
        return _MESSAGE_ALIASES.get(t.message_type, ("message", t.message_type))
    if which == "abstract_type":
        a = t.abstract_type
        return ("abstract", a.name, *(_type(p) for p in a.parameter_types))
    if which == "list_type":
        return ("list", _type(t.list_type.elem_type))
    if which == "map_type":
        return ("map", _type(t.map_type.key_type), _type(t.map_type.value_type))
    if which == "well_known":
        return _WELL_KNOWN.get(t.well_known, DYN)
    if which == "wrapper":
        return ("wrapper", _PRIMITIVES.get(t.wrapper, DYN))
    if which == "null":
        return ("null",)
    if which == "type":
        return ("type", _type(t.type))
    if which == "type_param":
        return ("param", t.type_param)
    if which == "error":
        return ("error",)
    if which == "function":
        return ("function",)
    return DYN


def parse(serialized: bytes):
    """The parsed `CheckedExpr` message of `Expression.serialize()` output (an Any wrapping it)."""
    global _from_string
    if _from_string is None:
        _from_string = message_class("SerializedChecked").FromString
    return _from_string(serialized).value


_from_string = None


def decode(serialized: bytes) -> CheckedAst:
    """Decodes `Expression.serialize()` output: an Any wrapping a CheckedExpr."""
    return build(parse(serialized), serialized)


def build(checked, serialized: bytes) -> CheckedAst:
    """The Python tree of a parsed `CheckedExpr` (`serialized`: what it was parsed from)."""
    if not checked.HasField("expr"):
        raise ValueError("checked expression without an expression tree")
    converter = _Converter()
    root = converter.expr(checked.expr)
    return CheckedAst(root, converter.notable, checked, serialized)


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
