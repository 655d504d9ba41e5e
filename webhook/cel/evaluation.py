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
runs into that is evaluated again by `unrolled.Unrolled`: the outer comprehensions of a nest that needs more
run as Python loops over the checked expression, the engine evaluating their parts (each within its
limit), so there is no iteration limit. That is the scheduler's answer whenever the selector's estimated cost
is within the limit (the actual cost never exceeds the estimate). Above it, the scheduler's answer
depends on the actual cost, which this engine does not count: the evaluation fails and says so.
Long evaluations check the caller's deadline (`deadline.check()`) at every iteration.
"""

from __future__ import annotations

import re
import threading
from decimal import Decimal
from functools import cache, lru_cache

from cel_expr_python import cel
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, message_factory

from webhook import quantity as q
from webhook.numbers import parse_uint64
from webhook.cel import compiler, unrolled
from webhook.cel.environment import _EXTENSIONS_YAML, Features
from webhook.cel import library, netlib

T = cel.Type
QUANTITY_TYPE, SEMVER_TYPE = "kubernetes.Quantity", "kubernetes.Semver"
ANY = T("google.protobuf.Any")
RUNTIME_COST_LIMIT = compiler.SELECTOR_EXPRESSION_MAX_COST  # resource/v1 CELSelectorExpressionMaxCost
ENGINE_ITERATION_LIMIT = 10_000  # cel-cpp RuntimeOptions.comprehension_max_iterations (per evaluation)
_DOMAIN = re.compile(r"""device\s*\.\s*(?:attributes|capacity)\s*\[\s*(?:"([^"\\]*)"|'([^'\\]*)')\s*\]""")


class EvaluationError(ValueError):
    """The selector cannot be evaluated for this device (compile error, runtime error, non-bool result)."""


@cache
def _pool() -> descriptor_pool.DescriptorPool:
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="kubernetes/dra_values.proto", package="kubernetes",
                                              syntax="proto3")
    for name in ("Quantity", "Semver", *netlib.MESSAGES):
        message = file.message_type.add(name=name)
        message.field.add(name="v", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(any_pb2.DESCRIPTOR.serialized_pb)  # includes() takes values of every kind as Any
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
    core, _, pre = text.split("+", 1)[0].partition("-")
    numeric = core.split(".") + [p for p in pre.split(".") if pre and p.isascii() and p.isdigit()]
    if any(parse_uint64(part) is None for part in numeric):  # blang/semver: strconv.ParseUint(part, 10, 64)
        raise ValueError(f"could not parse semver: {text!r}: a number is out of range")
    # Build metadata does not take part in comparisons or equality.
    return _classes()[1](v=text.split("+", 1)[0])


def _semver_key(message):
    core, _, pre = message.v.partition("-")
    numbers = tuple(parse_uint64(p) for p in core.split("."))  # in range: parse_semver checked
    if not pre:
        return numbers, (1,)
    ids = tuple((0, parse_uint64(p), "") if p.isascii() and p.isdigit() else (1, 0, p) for p in pre.split("."))
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


def _raise(message: str):
    raise ValueError(message)


@cache
def _functions(with_includes: bool, unbounded_includes: bool = False) -> tuple:
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
        cel.FunctionDecl(unrolled.ERROR_FUNCTION, [_overload(unrolled.ERROR_OVERLOAD, T.DYN, [STR], _raise)]),
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
        # Upstream's includes takes any two values (dyn, dyn). The runtime matches declared kinds
        # exactly and dyn matches none, but google.protobuf.Any matches every kind.
        impl = library.includes_any_length if unbounded_includes else library._includes
        ours.append(cel.FunctionDecl("includes", [_overload("includes_any_any", B, [ANY, ANY], impl, True)]))
    return tuple(ours)


_lock = threading.Lock()
_envs: dict[bool, cel.Env] = {}


def _env(unbounded_includes: bool) -> cel.Env:
    """The evaluation environment (includes() always declared: the checking environment decides)."""
    env = _envs.get(unbounded_includes)
    if env is None:
        with _lock:
            env = _envs.get(unbounded_includes)
            if env is None:
                env = _envs[unbounded_includes] = cel.NewEnv(
                    _pool(), config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
                    variables={"device": T.Map(T.STRING, T.DYN)},
                    functions=list(_functions(True, unbounded_includes)),
                    extensions=[library.list_index_extension()])
    return env


class _Program:
    """One compiled expression over `device`, ready to evaluate against many devices."""

    def __init__(self, expression: str, verdict, features: Features) -> None:
        # The scheduler compiles without cost estimation: only compile errors count.
        if verdict.outcome not in ("ok", "forbidden"):
            raise EvaluationError(verdict.detail)
        self._env = _env(features.includes_in_lists_library)
        try:
            self._program = self._env.compile(expression)
        except RuntimeError as error:  # the checking environment accepted it: a gap of this one
            raise EvaluationError(f"compilation failed: {error}") from None
        self.domains = tuple(a or b for a, b in _DOMAIN.findall(expression))
        self.cost = verdict.cost  # the estimated worst case (None: not estimated)
        self._unrolled: unrolled.Unrolled | None = None

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
            if unrolled.ITERATION_BUDGET in str(error):
                return self._eval_unrolled(device, deadline)
            raise EvaluationError(str(error)) from None
        if not isinstance(value, bool) and "ERROR" in str(result.type()):
            if unrolled.ITERATION_BUDGET in str(value):
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
            self._unrolled = unrolled.Unrolled(self._program.serialize(), self._env, _clean)
        value = self._unrolled.evaluate(device, deadline)
        if isinstance(value, unrolled.Error):
            raise EvaluationError(value.message)
        return _Plain(value), value


class Selector(_Program):
    """One compiled selector."""

    def __init__(self, expression: str, features: Features) -> None:
        super().__init__(expression, compiler.check(expression, True, features), features)

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
            value = _attribute_value(attribute or {}, features.list_type_attributes or features.list_values_always)
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
        super().__init__(expression, compiler.check_derived(expression, True, features), features)

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


_rule_envs: dict[tuple, cel.Env] = {}


def rule_environment(variables: tuple[str, ...]) -> cel.Env:
    """An environment for CustomResourceDefinition-style rules (`x-kubernetes-validations`): each named
    variable is `dyn` (`self`, `oldSelf`, `params`), with the libraries evaluation implements here. Used by
    driver profiles (webhook.drivers.rules), which evaluate what they compile."""
    env = _rule_envs.get(variables)
    if env is None:
        with _lock:
            env = _rule_envs.get(variables)
            if env is None:
                env = _rule_envs[variables] = cel.NewEnv(
                    _pool(), config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
                    variables={name: T.DYN for name in variables},
                    functions=list(_functions(False)) + netlib.functions(_pool()),
                    extensions=[library.list_index_extension()])
    return env
