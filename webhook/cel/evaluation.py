"""Evaluating selectors against devices as the scheduler does (dynamic-resource-allocation/cel DeviceMatches).

The checking environment (`environment.py`) declares `kubernetes.Quantity` and `kubernetes.Semver` as
abstract types, which the engine cannot hold at runtime. Evaluation therefore uses its own environment:
both become small proto messages (the exact value as a string) and the quantity and semver functions
get Python implementations. `device` is a map, so an attribute of an unknown domain reads as an empty
map (the domains named in the expression are filled in), an unknown id is a "no such key" error, and
ids without a domain are filed under the driver's domain, as upstream.

An expression is type-checked first with the faithful checking environment; only then evaluated here.

Limits. The scheduler evaluates a selector under a runtime cost limit of 1,000,000
(CELSelectorExpressionMaxCost, `cel.CostLimit` in DeviceMatches) and nothing else; the engine here
stops any evaluation after 10,000 comprehension iterations in all (cel-cpp's
`comprehension_max_iterations`, which cel-expr-python does not let a caller change). A selector that
runs into that is evaluated again by `_Unrolled`: the outer comprehensions of a nest that needs more
run as Python loops over the checked expression, the engine evaluating their parts (each within its
limit), so there is no iteration limit. That is the scheduler's answer whenever the selector's estimated cost
is within the limit (the actual cost never exceeds the estimate). Above it, the scheduler's answer
depends on the actual cost, which this engine does not count: the evaluation fails and says so.
Long evaluations check the caller's deadline (`deadline.check()`) at every iteration.
"""

from __future__ import annotations

import datetime
import re
import threading
from decimal import Decimal
from functools import cache, lru_cache

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, duration_pb2, message_factory, timestamp_pb2

from webhook import quantity as q
from webhook.cel import compiler, leaves
from webhook.cel.environment import _EXTENSIONS_YAML, Features
from webhook.cel import library
from webhook.cel.protos import message_class

T = cel.Type
QUANTITY_TYPE, SEMVER_TYPE = "kubernetes.Quantity", "kubernetes.Semver"
RUNTIME_COST_LIMIT = compiler.SELECTOR_EXPRESSION_MAX_COST  # resource/v1 CELSelectorExpressionMaxCost
ENGINE_ITERATION_LIMIT = 10_000  # cel-cpp RuntimeOptions.comprehension_max_iterations (per evaluation)
_ITERATION_BUDGET = "Iteration budget exceeded"
_DOMAIN = re.compile(r"""device\s*\.\s*(?:attributes|capacity)\s*\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\]""")


class EvaluationError(ValueError):
    """The selector cannot be evaluated for this device (compile error, runtime error, non-bool result)."""


@cache
def _pool() -> descriptor_pool.DescriptorPool:
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="kubernetes/dra_values.proto", package="kubernetes",
                                              syntax="proto3")
    for name in ("Quantity", "Semver"):
        message = file.message_type.add(name=name)
        message.field.add(name="v", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return pool


@cache
def _classes():
    pool = _pool()
    return tuple(message_factory.GetMessageClass(pool.FindMessageTypeByName(n)) for n in (QUANTITY_TYPE, SEMVER_TYPE))


# Quantities: the message holds the exact decimal value, so `==` compares values ("1Gi" == "1024Mi").
def quantity_value(quantity: q.Quantity):
    return _classes()[0](v=str(quantity.value.normalize()) if quantity.value else "0")


def _dec(message) -> Decimal:
    return Decimal(message.v)


def _parse_quantity(text: str):
    try:
        return quantity_value(q.parse_quantity(text))
    except q.QuantityError as error:
        raise ValueError(f"quantities must match the regular expression: {error}") from None


def _is_quantity(text: str) -> bool:
    try:
        q.parse_quantity(text)
    except q.QuantityError:
        return False
    return True


def _cmp(a, b) -> int:
    x, y = _dec(a), _dec(b)
    return (x > y) - (x < y)


def _as_integer(a) -> int:
    value = _dec(a)
    if value != value.to_integral_value() or not q.INT64_MIN <= value <= q.INT64_MAX:
        raise ValueError("cannot convert value to integer")
    return int(value)


def _arith(sign: int):
    def op(a, b):
        other = Decimal(b) if isinstance(b, int) else _dec(b)
        return _classes()[0](v=str((_dec(a) + sign * other).normalize()))
    return op


# Semantic versions (blang/semver, as Kubernetes' semver library uses it).
_SEMVER = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)"
                     r"(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][0-9A-Za-z-]*))*))?"
                     r"(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$")


def _normalize_semver(text: str) -> str:
    """Kubernetes' semver(s, true): a leading v, missing minor/patch and leading zeros are tolerated."""
    numbers, rest = re.match(r"^([0-9.]*)(.*)$", text.removeprefix("v")).group(1, 2)
    parts = numbers.split(".") if numbers else []
    if not parts or len(parts) > 3 or any(not p for p in parts):
        return text
    parts = [p.lstrip("0") or "0" for p in parts] + ["0"] * (3 - len(parts))
    return ".".join(parts) + rest


def parse_semver(text: str, normalize: bool = False):
    """The message for a version string; ValueError like upstream when it is not semver."""
    if normalize:
        text = _normalize_semver(text)
    match = _SEMVER.match(text)
    if not match:
        raise ValueError(f"could not parse semver: {text!r}")
    # Build metadata does not take part in comparisons or equality.
    return _classes()[1](v=text.split("+", 1)[0])


def _semver_key(message):
    core, _, pre = message.v.partition("-")
    numbers = tuple(int(p) for p in core.split("."))
    if not pre:
        return numbers, (1,)
    ids = tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split("."))
    return numbers, (0, ids)


def _semver_cmp(a, b) -> int:
    x, y = _semver_key(a), _semver_key(b)
    return (x > y) - (x < y)


def _compare(a, b) -> int:
    if a.DESCRIPTOR.full_name != b.DESCRIPTOR.full_name:
        raise ValueError("no such overload")
    return _semver_cmp(a, b) if a.DESCRIPTOR.full_name == SEMVER_TYPE else _cmp(a, b)


def _is_semver(text: str, normalize: bool = False) -> bool:
    try:
        parse_semver(text, normalize)
    except ValueError:
        return False
    return True


def _overload(oid, ret, params, impl, member=False):
    return cel.Overload(oid, ret, params, is_member=member, impl=impl)


_ERROR_FUNCTION = "@dra_error"  # not a name a selector can spell


def _raise(message: str):
    raise ValueError(message)


@cache
def _functions(with_includes: bool) -> tuple:
    Q, S = T(QUANTITY_TYPE), T(SEMVER_TYPE)
    B, I, STR = T.BOOL, T.INT, T.STRING  # noqa: E741
    ours = [
        cel.FunctionDecl("quantity", [_overload("string_to_quantity", Q, [STR], _parse_quantity)]),
        cel.FunctionDecl("isQuantity", [_overload("is_quantity_string", B, [STR], _is_quantity)]),
        cel.FunctionDecl("sign", [_overload("quantity_sign", I, [Q], lambda a: (_dec(a) > 0) - (_dec(a) < 0))]),
        # The runtime dispatches on kinds, and both value types are messages: one implementation
        # per name serves both overloads.
        cel.FunctionDecl("isGreaterThan", [
            _overload("quantity_is_greater_than", B, [Q, Q], lambda a, b: _compare(a, b) > 0, True),
            cel.Overload("semver_is_greater_than", B, [S, S], is_member=True)]),
        cel.FunctionDecl("isLessThan", [
            _overload("quantity_is_less_than", B, [Q, Q], lambda a, b: _compare(a, b) < 0, True),
            cel.Overload("semver_is_less_than", B, [S, S], is_member=True)]),
        cel.FunctionDecl("compareTo", [_overload("quantity_compare_to", I, [Q, Q], _compare, True),
                                       cel.Overload("semver_compare_to", I, [S, S], is_member=True)]),
        cel.FunctionDecl("asApproximateFloat", [_overload("quantity_get_float", T.DOUBLE, [Q],
                                                          lambda a: float(_dec(a)), True)]),
        cel.FunctionDecl("asInteger", [_overload("quantity_get_int", I, [Q], _as_integer, True)]),
        cel.FunctionDecl("isInteger", [_overload("quantity_is_integer", B, [Q],
                                                 lambda a: _dec(a) == _dec(a).to_integral_value(), True)]),
        cel.FunctionDecl("add", [_overload("quantity_add", Q, [Q, Q], _arith(1), True),
                                 _overload("quantity_add_int", Q, [Q, I], _arith(1), True)]),
        cel.FunctionDecl("sub", [_overload("quantity_sub", Q, [Q, Q], _arith(-1), True),
                                 _overload("quantity_sub_int", Q, [Q, I], _arith(-1), True)]),
        cel.FunctionDecl("semver", [_overload("string_to_semver", S, [STR], parse_semver),
                                    _overload("string_bool_to_semver", S, [STR, B], parse_semver)]),
        cel.FunctionDecl("isSemver", [_overload("is_semver_string", B, [STR], _is_semver),
                                      _overload("is_semver_string_bool", B, [STR, B], _is_semver)]),
        # An error carried from one evaluation into the next (`_Unrolled`): calling it yields the error.
        cel.FunctionDecl(_ERROR_FUNCTION, [_overload("dra_error_string", T.DYN, [STR], _raise)]),
        cel.FunctionDecl("major", [_overload("semver_major", I, [S], lambda a: _semver_key(a)[0][0], True)]),
        cel.FunctionDecl("minor", [_overload("semver_minor", I, [S], lambda a: _semver_key(a)[0][1], True)]),
        cel.FunctionDecl("patch", [_overload("semver_patch", I, [S], lambda a: _semver_key(a)[0][2], True)]),
    ]
    # Of the other Kubernetes libraries, only those with an implementation can be evaluated offline.
    ours += [
        cel.FunctionDecl("find", [_overload("string_find_string", STR, [STR, STR], library._find, True)]),
        cel.FunctionDecl("findAll", [
            _overload("string_find_all_string", T.List(STR), [STR, STR], library._find_all, True),
            _overload("string_find_all_string_int", T.List(STR), [STR, STR, I], library._find_all, True)]),
        *library._lists(),
    ]
    if with_includes:
        # The runtime matches argument kinds exactly (dyn matches nothing): one overload per kind.
        overloads = []
        for name, kind in (("int", I), ("bool", B), ("string", STR), ("semver", S)):
            overloads.append(_overload(f"dra_includes_list_{name}", B, [T.List(T.DYN), kind], library._includes, True))
            overloads.append(_overload(f"dra_includes_{name}_{name}", B, [kind, kind], library._includes, True))
        ours.append(cel.FunctionDecl("includes", overloads))
    return tuple(ours)


_lock = threading.Lock()
_envs: dict[bool, cel.Env] = {}


def _env(with_includes: bool) -> cel.Env:
    env = _envs.get(with_includes)
    if env is None:
        with _lock:
            env = _envs.get(with_includes)
            if env is None:
                env = _envs[with_includes] = cel.NewEnv(
                    _pool(), config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
                    variables={"device": T.Map(T.STRING, T.DYN)}, functions=list(_functions(with_includes)))
    return env


class _Program:
    """One compiled expression over `device`, ready to evaluate against many devices."""

    def __init__(self, expression: str, verdict) -> None:
        # The scheduler compiles without cost estimation: only compile errors count.
        if verdict.outcome not in ("ok", "forbidden"):
            raise EvaluationError(verdict.detail)
        try:
            self._program = _env(True).compile(expression)
        except RuntimeError as error:  # the checking environment accepted it: a gap of this one
            raise EvaluationError(f"compilation failed: {error}") from None
        self.domains = tuple(a or b for a, b in _DOMAIN.findall(expression))
        self.cost = verdict.cost  # the estimated worst case (None: not estimated)
        self._unrolled: _Unrolled | None = None

    def _eval(self, device: dict, deadline=None):
        """(result, value) for a `device_input` value; EvaluationError for runtime errors. Domains the
        expression names but the device lacks read as empty maps, as upstream's do."""
        for name in ("attributes", "capacity"):
            values = device[name]
            for domain in self.domains:
                if domain not in values:
                    values = device[name] = {**values, domain: {}}
        try:
            result = self._program.eval(data={"device": device})
            value = result.value()
        except Exception as error:  # noqa: BLE001 - any failure of the engine is a runtime error here
            if _ITERATION_BUDGET in str(error):
                return self._eval_unrolled(device, deadline)
            raise EvaluationError(str(error)) from None
        if not isinstance(value, bool) and "ERROR" in str(result.type()):
            if _ITERATION_BUDGET in str(value):
                return self._eval_unrolled(device, deadline)
            raise EvaluationError(_clean(str(value)))
        return result, value

    def _eval_unrolled(self, device: dict, deadline):
        """The evaluation past the engine's iteration limit (see the module's docstring)."""
        if self.cost is None or self.cost > RUNTIME_COST_LIMIT:
            estimate = "could not be estimated" if self.cost is None else f"is {self.cost:,}"
            raise EvaluationError(
                f"more than {ENGINE_ITERATION_LIMIT:,} comprehension iterations, and the estimated cost {estimate}, "
                f"above the scheduler's runtime cost limit of {RUNTIME_COST_LIMIT:,}: whether the scheduler stops "
                "it (\"operation cancelled: actual cost limit exceeded\") depends on its actual cost, which is not "
                "counted offline")
        if self._unrolled is None:
            self._unrolled = _Unrolled(self._program.serialize())
        value = self._unrolled.evaluate(device, deadline)
        return _Plain(value), value


class Selector(_Program):
    """One compiled selector."""

    def __init__(self, expression: str, features: Features) -> None:
        super().__init__(expression, compiler.check(expression, True, features))

    def matches(self, device: dict, deadline=None) -> bool:
        """`device` as built by `device_input`; raises EvaluationError for runtime errors. A long
        evaluation calls `deadline.check()` (which may raise) at every comprehension iteration."""
        result, value = self._eval(device, deadline)
        if isinstance(value, bool):
            return value
        raise EvaluationError(f"CEL result of type {result.type()} could not be converted to bool")


class _Plain:
    """The result of an unrolled evaluation, shaped as the engine's (`type()`)."""

    def __init__(self, value) -> None:
        self._value = value

    def type(self) -> str:
        return type(self._value).__name__.upper() if not isinstance(self._value, list) else "LIST"

    def value(self):
        return self._value


class _Error:
    """An error as a value: carried between evaluations as CEL carries it (`false && error` is false)."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


_COMPREHENSION = "comprehension_expr"
_BOUND_PREFIX = "@unrolled:"  # the identifier a comprehension's value is bound to


class _Unrolled:
    """An expression evaluated with comprehensions as Python loops where the engine's limit requires it.

    Each part is first given to the engine whole; only a part that runs into the iteration limit has its
    outermost comprehensions run as Python loops (each replaced by an identifier bound to its value), and
    their parts are given to the engine whole again. So the engine does nearly all iterations, and only
    the outer loops of a deep nest run in Python."""

    def __init__(self, serialized: bytes) -> None:
        self._serialized = message_class("SerializedChecked")()
        self._serialized.ParseFromString(serialized)
        # (node id, names bound to errors, whole) -> (engine program, the names it reads)
        self._programs: dict[tuple, tuple] = {}
        self._split = {self._serialized.value.expr.id}  # nodes the engine cannot evaluate whole
        self._next_id = 1 << 40  # ids of the nodes made here

    def evaluate(self, device: dict, deadline):
        value = self._node(self._serialized.value.expr, {"device": device}, deadline)
        if isinstance(value, _Error):
            raise EvaluationError(value.message)
        return value

    def _node(self, expr, bindings: dict, deadline):
        comprehension = expr.WhichOneof("expr_kind") == _COMPREHENSION
        inner = [] if comprehension else _outer_comprehensions(expr)
        if expr.id not in self._split and (comprehension or inner):
            value = self._engine(expr, bindings, True)
            if not (isinstance(value, _Error) and _ITERATION_BUDGET in value.message):
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
        errors = tuple(sorted(name for name, value in bindings.items() if isinstance(value, _Error)))
        program, names = self._program(expr, errors, whole)
        # Only what the part reads: converting `device` for every iteration would cost the most.
        data = {}
        for name in names:
            value = bindings.get(name, data)
            if isinstance(value, _Error):
                data[f"{_BOUND_PREFIX}error:{name}"] = value.message
            elif value is not data:
                data[name] = value
        try:
            result = program.eval(data=data)
        except Exception as error:  # noqa: BLE001 - any failure of the engine is a runtime error here
            return _Error(_clean(str(error)))
        if "ERROR" in str(result.type()):
            return _Error(_clean(str(result.value())))
        try:
            return _carried(result.plain_value())
        except Exception:  # noqa: BLE001 - a value the engine cannot hand out (an optional)
            return _Error(f"a value of type {result.type()} cannot be carried from one iteration to the next "
                          "offline")

    def _comprehension(self, c, bindings: dict, deadline):
        items = self._node(c.iter_range, bindings, deadline)
        if isinstance(items, _Error):
            return items
        accu = self._node(c.accu_init, bindings, deadline)
        if isinstance(items, dict):
            pairs = list(items.items())
        elif isinstance(items, (list, tuple)):
            pairs = list(enumerate(items))
        else:
            return _Error(f"expression of type '{type(items).__name__}' cannot be the range of a comprehension "
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
                return condition if isinstance(condition, _Error) else _Error("no matching overload")
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
            known = self._programs[key] = (_env(True).deserialize(checked.SerializeToString()), frozenset(names))
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
                expr.call_expr.function = _ERROR_FUNCTION
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


_ERROR_REFERENCE = _string_field(3, "dra_error_string")  # a `Reference` with its overload_id


def _clean(text: str) -> str:
    text = re.sub(r"^[A-Z_]+: ", "", text.strip())
    text = re.sub(r" \[[A-Z_]+\]$", "", text)
    return text.replace("Key not found in map", "no such key")


@lru_cache(maxsize=4096)
def selector(expression: str, features: Features = Features()) -> Selector:
    """The compiled selector (cached); EvaluationError when it does not compile."""
    return Selector(expression, features)


def _split(name: str, driver: str) -> tuple[str, str]:
    domain, sep, ident = name.partition("/")
    return (domain, ident) if sep else (driver, name)


_LISTS = (("ints", int), ("bools", bool), ("strings", str), ("versions", "version"))


def _attribute_value(attribute: dict, list_types: bool):
    if list_types:
        for key, kind in _LISTS:
            if attribute.get(key) is not None:
                if kind == "version":
                    return [parse_semver(v) for v in attribute[key]]
                return list(attribute[key])
    if attribute.get("int") is not None:
        return int(attribute["int"])
    if attribute.get("bool") is not None:
        return bool(attribute["bool"])
    if attribute.get("string") is not None:
        return attribute["string"]
    if attribute.get("version") is not None:
        try:
            return parse_semver(attribute["version"])
        except ValueError as error:
            raise EvaluationError(f"parse semantic version: {error}") from None
    raise EvaluationError("unsupported attribute value")


def device_input(driver: str, device: dict, features: Features = Features()) -> dict:
    """The `device` variable for one v1 Device (EvaluationError for an attribute CEL cannot hold)."""
    attributes: dict[str, dict] = {}
    for name, attribute in (device.get("attributes") or {}).items():
        domain, ident = _split(name, driver)
        try:
            value = _attribute_value(attribute or {}, features.list_type_attributes)
        except EvaluationError as error:
            raise EvaluationError(f"attribute {name}: {error}") from None
        attributes.setdefault(domain, {})[ident] = value
    capacity: dict[str, dict] = {}
    for name, cap in (device.get("capacity") or {}).items():
        domain, ident = _split(name, driver)
        try:
            capacity.setdefault(domain, {})[ident] = quantity_value(q.parse_quantity(str((cap or {}).get("value"))))
        except q.QuantityError as error:
            raise EvaluationError(f"capacity {name}: {error}") from None
    return {"driver": driver, "allowMultipleAllocations": bool(device.get("allowMultipleAllocations") or False),
            "attributes": attributes, "capacity": capacity}


class DerivedAttribute(_Program):
    """One compiled `derivedAttributes[].expression` (Kubernetes 1.37), evaluated into a DeviceAttribute.

    The result must be a bool, int, string or semver, or a list of one of them (dracel
    EvaluateDerivedAttribute); anything else is an error, as a failed evaluation is.
    """

    def __init__(self, expression: str, features: Features) -> None:
        super().__init__(expression, compiler.check_derived(expression, True, features))

    def evaluate(self, device: dict, deadline=None) -> dict:
        """The DeviceAttribute (`{"int": 1}`, `{"strings": [...]}`, ...) for a `device_input` value."""
        result, value = self._eval(device, deadline)
        if isinstance(value, list):
            items = [item.value() if isinstance(item, cel.Value) else item for item in value]
            kinds = {_derived_kind(item) for item in items}
            if len(kinds) > 1 or None in kinds:
                raise EvaluationError(f"derived attribute list must hold values of one scalar type, not "
                                      f"{result.type()}")
            kind = kinds.pop() if kinds else "string"
            return {kind + "s": [_derived_value(item) for item in items]}
        kind = _derived_kind(value)
        if kind is None:
            raise EvaluationError(f"derived attribute must be a bool, int, string, semver or a list of these, "
                                  f"not {result.type()}")
        return {kind: _derived_value(value)}


def _derived_kind(value) -> str | None:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, str):
        return "string"
    if getattr(getattr(value, "DESCRIPTOR", None), "full_name", "") == SEMVER_TYPE:
        return "version"
    return None


def _derived_value(value):
    return value.v if _derived_kind(value) == "version" else value


@lru_cache(maxsize=1024)
def derived_attribute(expression: str, features: Features = Features()) -> DerivedAttribute:
    """The compiled derived attribute (cached); EvaluationError when it does not compile."""
    return DerivedAttribute(expression, features)
