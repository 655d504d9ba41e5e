"""Evaluating a selector past the engine's iteration limit: the outer loops of its comprehensions in Python.

cel-cpp stops one evaluation after 10,000 comprehension iterations in all (`comprehension_max_iterations`,
which cel-expr-python does not let a caller change); the scheduler has no such limit. `Unrolled` works on
the checked expression (`Expression.serialize()`): each part goes to the engine whole first; a part that
runs into the limit has its outermost comprehensions run as Python loops (accumulator, condition, step
and result as CEL defines them), each replaced by an identifier bound to its value, and their parts go to
the engine whole again. Errors are values, as in CEL (`false && error` is false): an identifier bound to
one becomes a call of ERROR_FUNCTION, which the evaluation environment declares and which fails with the
message. Values cross from one evaluation to the next as plain data (durations and timestamps as their
messages; an optional cannot cross and is an error).
"""

from __future__ import annotations

import datetime

from google.protobuf import duration_pb2, timestamp_pb2

from webhook.cel import leaves
from webhook.cel.protos import message_class

ITERATION_BUDGET = "Iteration budget exceeded"  # the engine's message
ERROR_FUNCTION, ERROR_OVERLOAD = "@dra_error", "dra_error_string"  # not names a selector can spell


class Error:
    """An error as a value: carried between evaluations as CEL carries it (`false && error` is false)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


_COMPREHENSION = "comprehension_expr"
_BOUND_PREFIX = "@unrolled:"  # the identifier a comprehension's value is bound to


class Unrolled:
    """An expression evaluated with comprehensions as Python loops where the engine's limit requires it.

    Each part is first given to the engine whole; only a part that runs into the iteration limit has its
    outermost comprehensions run as Python loops (each replaced by an identifier bound to its value), and
    their parts are given to the engine whole again. So the engine does nearly all iterations, and only
    the outer loops of a deep nest run in Python."""

    def __init__(self, serialized: bytes, env, clean) -> None:
        """`serialized`: the engine's `Expression.serialize()`; `env` evaluates the parts (it declares
        ERROR_FUNCTION); `clean` tidies the engine's error messages."""
        self._env, self._clean = env, clean
        self._serialized = message_class("SerializedChecked")()
        self._serialized.ParseFromString(serialized)
        # (node id, names bound to errors, whole) -> (engine program, the names it reads)
        self._programs: dict[tuple, tuple] = {}
        self._split = {self._serialized.value.expr.id}  # nodes the engine cannot evaluate whole
        self._next_id = 1 << 40  # ids of the nodes made here

    def evaluate(self, device: dict, deadline):
        """The value for `device` (an Error for a runtime error); `deadline.check()` at every iteration."""
        return self._node(self._serialized.value.expr, {"device": device}, deadline)

    def _node(self, expr, bindings: dict, deadline):
        comprehension = expr.WhichOneof("expr_kind") == _COMPREHENSION
        inner = [] if comprehension else _outer_comprehensions(expr)
        if expr.id not in self._split and (comprehension or inner):
            value = self._engine(expr, bindings, True)
            if not (isinstance(value, Error) and ITERATION_BUDGET in value.message):
                return value
            self._split.add(expr.id)
        if comprehension:
            return self._comprehension(expr.comprehension_expr, bindings, deadline)
        if inner:
            bindings = dict(bindings)
            for node in inner:
                bindings[_BOUND_PREFIX + str(node.id)] = self._node(node, bindings, deadline)
        return self._engine(expr, bindings, False)

    def _engine(self, expr, bindings: dict, whole: bool):
        """The engine's value of `expr`: whole, or with its comprehensions read from `bindings`."""
        errors = tuple(sorted(name for name, value in bindings.items() if isinstance(value, Error)))
        program, names = self._program(expr, errors, whole)
        # Only what the part reads: converting `device` for every iteration would cost the most.
        data = {}
        for name in names:
            value = bindings.get(name, data)
            if isinstance(value, Error):
                data[f"{_BOUND_PREFIX}error:{name}"] = value.message
            elif value is not data:
                data[name] = value
        try:
            result = program.eval(data=data)
        except Exception as error:  # noqa: BLE001 - any failure of the engine is a runtime error here
            return Error(self._clean(str(error)))
        if "ERROR" in str(result.type()):
            return Error(self._clean(str(result.value())))
        try:
            return _carried(result.plain_value())
        except Exception:  # noqa: BLE001 - a value the engine cannot hand out (an optional)
            return Error(f"a value of type {result.type()} cannot be carried from one iteration to the next "
                          "offline")

    def _comprehension(self, c, bindings: dict, deadline):
        items = self._node(c.iter_range, bindings, deadline)
        if isinstance(items, Error):
            return items
        accu = self._node(c.accu_init, bindings, deadline)
        if isinstance(items, dict):
            pairs = list(items.items())
        elif isinstance(items, (list, tuple)):
            pairs = list(enumerate(items))
        else:
            return Error(f"expression of type '{type(items).__name__}' cannot be the range of a comprehension "
                          "(must be list, map, or dynamic)")
        two = bool(c.iter_var2)
        fast = _fast_condition(c)
        scope = dict(bindings)
        for key, item in pairs:
            if deadline is not None:
                deadline.check()
            if two:
                scope[c.iter_var], scope[c.iter_var2] = key, item
            else:
                scope[c.iter_var] = key if isinstance(items, dict) else item
            scope[c.accu_var] = accu
            condition = fast(accu) if fast is not None else self._node(c.loop_condition, scope, deadline)
            if condition is False:
                break
            if condition is not True:
                return condition if isinstance(condition, Error) else Error("no matching overload")
            accu = self._node(c.loop_step, scope, deadline)
        scope = dict(bindings)
        scope[c.accu_var] = accu
        return self._node(c.result, scope, deadline)

    def _program(self, expr, errors: tuple, whole: bool) -> tuple:
        key = (expr.id, errors, whole)
        known = self._programs.get(key)
        if known is None:
            checked = message_class("SerializedChecked")()
            checked.CopyFrom(self._serialized)
            checked.value.expr.CopyFrom(expr)
            names: set = set()
            self._rewrite(checked.value, checked.value.expr, set(errors), names, whole, top=True)
            known = self._programs[key] = (self._env.deserialize(checked.SerializeToString()), frozenset(names))
        return known

    def _rewrite(self, checked, expr, errors: set, names: set, whole: bool, top: bool = False) -> None:
        """Unless `whole`, comprehensions below the top become identifiers; identifiers bound to errors
        become error calls. `names` collects the identifiers read (a few are the comprehensions' own)."""
        kind = expr.WhichOneof("expr_kind")
        if kind == _COMPREHENSION and not top and not whole:
            expr.ident_expr = _ident_bytes(_BOUND_PREFIX + str(expr.id))
            kind = "ident_expr"
        if kind == "ident_expr":
            name = leaves.ident(expr.ident_expr)
            names.add(name)
            if name in errors:
                expr.call_expr.function = ERROR_FUNCTION
                checked.reference_map[expr.id] = _ERROR_REFERENCE
                argument = expr.call_expr.args.add()
                argument.id = self._next_id
                self._next_id += 1
                argument.ident_expr = _ident_bytes(f"{_BOUND_PREFIX}error:{name}")
            return
        for child in _children(expr):
            self._rewrite(checked, child, errors, names, whole)


def _carried(value):
    """A result as the engine takes it back as data: durations and timestamps as their messages."""
    if isinstance(value, list):
        return [_carried(v) for v in value]
    if isinstance(value, dict):
        return {k: _carried(v) for k, v in value.items()}
    if isinstance(value, datetime.timedelta):
        message = duration_pb2.Duration()
        message.FromTimedelta(value)
        return message
    if isinstance(value, datetime.datetime):
        message = timestamp_pb2.Timestamp()
        message.FromDatetime(value)
        return message
    return value


def _fast_condition(c):
    """The loop condition of the macros, without the engine: `true` (map, filter), `@not_strictly_false(accu)`
    (all), `@not_strictly_false(!accu)` (exists); None for any other."""
    condition = c.loop_condition
    kind = condition.WhichOneof("expr_kind")
    if kind == "const_expr":
        return (lambda accu: True) if leaves.constant(condition.const_expr) is True else None
    if kind != "call_expr" or condition.call_expr.function != "@not_strictly_false" \
            or len(condition.call_expr.args) != 1:
        return None
    argument = condition.call_expr.args[0]
    if argument.WhichOneof("expr_kind") == "ident_expr" and leaves.ident(argument.ident_expr) == c.accu_var:
        return lambda accu: accu is not False
    if argument.WhichOneof("expr_kind") == "call_expr" and argument.call_expr.function == "!_" \
            and len(argument.call_expr.args) == 1:
        inner = argument.call_expr.args[0]
        if inner.WhichOneof("expr_kind") == "ident_expr" and leaves.ident(inner.ident_expr) == c.accu_var:
            return lambda accu: accu is not True
    return None


def _children(expr) -> list:
    kind = expr.WhichOneof("expr_kind")
    if kind == "select_expr":
        return [expr.select_expr.operand]
    if kind == "call_expr":
        call = expr.call_expr
        return ([call.target] if call.HasField("target") else []) + list(call.args)
    if kind == "list_expr":
        return list(expr.list_expr.elements)
    if kind == "struct_expr":
        return [part for entry in expr.struct_expr.entries
                for part in ((entry.map_key,) if entry.HasField("map_key") else ()) + (entry.value,)]
    if kind == _COMPREHENSION:
        c = expr.comprehension_expr
        return [c.iter_range, c.accu_init, c.loop_condition, c.loop_step, c.result]
    return []


def _outer_comprehensions(expr) -> list:
    """The comprehensions in `expr` not inside another one (none when `expr` is one itself)."""
    found, stack = [], list(reversed(_children(expr)))
    while stack:
        node = stack.pop()
        if node.WhichOneof("expr_kind") == _COMPREHENSION:
            found.append(node)
        else:
            stack.extend(reversed(_children(node)))
    return found


def _ident_bytes(name: str) -> bytes:
    """An `Expr.Ident` message on the wire: field 1, the name."""
    raw = name.encode()
    return b"\n" + _varint_bytes(len(raw)) + raw


def _varint_bytes(n: int) -> bytes:
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        if n:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _string_field(number: int, text: str) -> bytes:
    raw = text.encode()
    return _varint_bytes(number << 3 | 2) + _varint_bytes(len(raw)) + raw


_ERROR_REFERENCE = _string_field(3, ERROR_OVERLOAD)  # a `Reference` with its overload_id
