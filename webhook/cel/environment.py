"""The DRA selector environment for the faithful engine: the `device` variable and its libraries.

Kubernetes builds two flavours (apiserver pkg/cel/environment): *new* expressions see only what the
compatibility version (1.35 for a 1.36 server) and the enabled feature gates allow; *stored*
expressions see everything, so an object that was once valid keeps validating.

`device` is a proto message whose attribute and capacity maps hold Structs (dyn values). Capacity
values are Quantity in Kubernetes, which a proto field cannot say, so the qualified variable
`device.capacity` is declared as well, with that exact type: the checker resolves the longest
declared name first.

Expressions are compiled as `checking()` rewrites them, always to a text of the same length (so
positions and costs stay): this compiler turns `has(device.capacity)` into the qualified variable
itself, so it reads `has(device.driver  )` (a field test of the same type and cost); and the lists
extension's `flatten` is typed `list(dyn)` here, where cel-go declares `list(list(T)) -> list(T)`, so
calls of it are renamed to `flatte_`, declared as cel-go declares flatten (the compiler's own
extension keeps `sortBy` and the rest). `restore()` maps messages back to the expression as written.

Checking environments declare the strings extension and Kubernetes' list `indexOf`/`lastIndexOf`
from cel-go's declarations (`signatures`). `resulttype` tells whether a `dyn` result is `any` in
Kubernetes (an attribute value, without list-type attributes): the probe environment types
attribute values as `google.protobuf.Any`. The compiled programs of the checking environments are
never run: `runtime_env` (the compiler's own strings extension, which implements its functions)
compiles what `matching` evaluates.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from cel_expr_python import cel
from google.protobuf import any_pb2, descriptor_pb2, descriptor_pool, struct_pb2

from webhook.cel import signatures
from webhook.cel.features import Features
from webhook.cel.library import QUANTITY, kubernetes_functions, list_index_extension
from webhook.cel.sizes import DeviceSizes

DEVICE_TYPE = "kubernetes.DRADevice"
QUALIFIED_CAPACITY = "device.capacity"  # map(string, map(string, kubernetes.Quantity))
QUALIFIED_ATTRIBUTES = "device.attributes"  # the probe's: map(string, map(string, google.protobuf.Any))
# has() on a qualified variable: the field name is rewritten to `driver`, padded to the same length.
_CAPACITY_PRESENCE = re.compile(r"has\s*\(\s*device\s*\.\s*(capacity)\s*\)")
_ATTRIBUTES_PRESENCE = re.compile(r"has\s*\(\s*device\s*\.\s*(attributes)\s*\)")
TYPED_FLATTEN = "flatte_"  # as long as `flatten`

# cel-go extension set of the 1.36 base environment, in the compiler's configuration language.
# `lists` version 2 of this compiler carries cel-go's version 3 functions; `strings` stays at 2
# (a later version would wrongly accept `reverse()`). The ordering operators compare across numeric
# types (cel.CrossTypeNumericComparisons); the runtime implements that already. The `functions:`
# section comes last: composed configurations append their declarations to it.
_EXTENSIONS_YAML = """
name: dra-selectors
extensions:
- name: strings
  version: 2
- name: bindings
- name: optional
- name: sets
- name: lists
  version: 2
- name: two-var-comprehensions
""" + signatures.STDLIB_WITHOUT_ORDERING + signatures.functions_yaml(signatures.ORDERING)
_STRINGS = "- name: strings\n  version: 2\n"
_LISTS = "- name: lists\n  version: 2\n"
# Checking: the strings extension as cel-go declares it, with Kubernetes' list indexOf/lastIndexOf.
_CHECKING_YAML = (_EXTENSIONS_YAML.replace(_STRINGS, "")
                  + signatures.functions_yaml(signatures.STRINGS_V2 + signatures.KUBERNETES_LIST_INDEX)
                  .replace("functions:\n", ""))
# Compatibility version 1.33 (new expressions on a 1.34 server): the same without the lists extension.
_CHECKING_YAML_WITHOUT_LISTS = _CHECKING_YAML.replace(_LISTS, "")
# For expressions calling flatten: cel-go's flatten declarations, under the name the call is renamed to.
_TYPED_FLATTEN_YAML = signatures.functions_yaml(
    tuple((TYPED_FLATTEN, *decl[1:]) for decl in signatures.LISTS)).replace("functions:\n", "")
_FLATTEN = re.compile(r"\bflatten\b")


def _same_length(field: str):
    def replace(match: re.Match) -> str:
        text, start = match.group(0), match.start(1) - match.start(0)
        name = match.group(1)
        return text[:start] + field.ljust(len(name)) + text[start + len(name):]
    return replace


def restore(message: str, expression: str, text: str) -> str:
    """`message` about `text` (a `checking()` rewrite of `expression`) as if about `expression`."""
    if text == expression:
        return message
    for written, compiled in zip(expression.split("\n"), text.split("\n")):
        if written != compiled:
            message = message.replace(compiled, written)
            message = message.replace(compiled.replace("\t", " "), written.replace("\t", " "))
    if TYPED_FLATTEN in text and TYPED_FLATTEN not in expression:
        message = message.replace(TYPED_FLATTEN, "flatten")
    return message


@dataclass(frozen=True)
class Environment:
    env: cel.Env  # `device` and `device.capacity` with Quantity values
    sizes: DeviceSizes
    features: Features
    stored: bool
    with_lists: bool  # the lists extension is declared
    # Built on first use (few selectors call flatten or have a dyn result; only evaluation needs the
    # runtime): name -> env or None.
    _make: Callable[[str], cel.Env | None] = field(compare=False, repr=False)
    _made: dict = field(default_factory=dict, compare=False, repr=False)

    def _lazy(self, name: str) -> cel.Env | None:
        if name not in self._made:
            with _lazy_lock:
                if name not in self._made:
                    self._made[name] = self._make(name)
        return self._made[name]

    @property
    def runtime_env(self) -> cel.Env:
        """`device` alone, with implementations: for evaluation."""
        return self._lazy("runtime")

    def checking(self, expression: str) -> tuple[str, cel.Env]:
        """The text to compile for `expression` (as long as it) and the environment to compile it in."""
        text = expression
        # Substring tests first: a regular expression search takes ~20 ns a character, the test ~0.4.
        if "capacity" in text and "has" in text:
            text = _CAPACITY_PRESENCE.sub(_same_length("driver"), text)
        if "flatten" in text and self.with_lists and TYPED_FLATTEN not in text and _FLATTEN.search(text):
            return _FLATTEN.sub(TYPED_FLATTEN, text), self._lazy("flatten")
        return text, self.env

    def compile(self, expression: str) -> cel.Expression:
        """`expression` compiled for checking; RuntimeError with the compiler's message about it."""
        text, env = self.checking(expression)
        try:
            return env.compile(text)
        except RuntimeError as error:
            if text is expression:
                raise
            raise RuntimeError(restore(str(error), expression, text)) from None

    def probe(self, text: str) -> cel.Expression | None:
        """`text` (a `checking()` text) compiled with attribute values typed `google.protobuf.Any`, as
        Kubernetes types them without list-type attributes; None when it does not compile so."""
        if "attributes" in text and "has" in text:
            text = _ATTRIBUTES_PRESENCE.sub(_same_length("driver"), text)
        try:
            return self._lazy("probe").compile(text)
        except (RuntimeError, TypeError):
            return None

    @property
    def accepts_dyn_result(self) -> bool:
        return self.features.list_type_attributes


def _device_descriptor(with_multi_alloc: bool) -> descriptor_pb2.FileDescriptorProto:
    """`kubernetes.DRADevice` as a proto3 message: attribute and capacity maps hold Structs (dyn values)."""
    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="kubernetes/dra_device.proto", package="kubernetes",
                                              syntax="proto3", dependency=["google/protobuf/struct.proto"])
    message = file.message_type.add(name="DRADevice")
    message.field.add(name="driver", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    if with_multi_alloc:
        message.field.add(name="allowMultipleAllocations", number=2, type=field.TYPE_BOOL, label=field.LABEL_OPTIONAL)
    for number, name in ((3, "attributes"), (4, "capacity")):
        entry = message.nested_type.add(name=name.capitalize() + "Entry")
        entry.options.map_entry = True
        entry.field.add(name="key", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
        entry.field.add(name="value", number=2, type=field.TYPE_MESSAGE, label=field.LABEL_OPTIONAL,
                        type_name=".google.protobuf.Struct")
        message.field.add(name=name, number=number, type=field.TYPE_MESSAGE, label=field.LABEL_REPEATED,
                          type_name=f".kubernetes.DRADevice.{entry.name}")
    return file


@cache
def _pool(with_multi_alloc: bool) -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(struct_pb2.DESCRIPTOR.serialized_pb)
    pool.AddSerializedFile(any_pb2.DESCRIPTOR.serialized_pb)  # attribute values in the probe
    pool.Add(_device_descriptor(with_multi_alloc))
    return pool


_lock = threading.Lock()
_lazy_lock = threading.Lock()
_environments: dict[tuple[bool, Features], Environment] = {}


def get_environment(stored: bool, features: Features = Features()) -> Environment:
    """One shared environment per (stored?, features); building one takes a few milliseconds."""
    key = (stored, features)
    env = _environments.get(key)
    if env is None:
        with _lock:
            env = _environments.get(key)
            if env is None:
                env = _environments[key] = _build(stored, features)
    return env


def _build(stored: bool, features: Features) -> Environment:
    # Stored expressions ignore versions and gates: every field and function is declared.
    with_multi_alloc = stored or features.consumable_capacity
    with_includes = (stored and features.list_types_exist) or features.list_type_attributes
    includes_id = "list_includes_dyn_dyn" if features.includes_in_lists_library else "dra_includes_dyn_dyn"
    # Stored expressions ignore versions: the lists extension is there for them in every release.
    with_lists = stored or features.lists_extension
    T = cel.Type
    qualified = {"device": T(DEVICE_TYPE), QUALIFIED_CAPACITY: T.Map(T.STRING, T.Map(T.STRING, QUANTITY))}
    alone = {"device": T(DEVICE_TYPE)}

    def new(yaml: str, variables: dict, runtime: bool = False, **extra) -> cel.Env:
        env = cel.NewEnv(_pool(with_multi_alloc), config=cel.NewEnvConfigFromYaml(yaml), variables=variables,
                         functions=list(kubernetes_functions(with_includes, includes_id, runtime)), **extra)
        env.compile("true")  # declaration conflicts only surface at the first compile: make them surface here
        return env

    checking = _CHECKING_YAML if with_lists else _CHECKING_YAML_WITHOUT_LISTS

    def make(name: str) -> cel.Env | None:
        if name == "runtime":
            runtime = _EXTENSIONS_YAML if with_lists else _EXTENSIONS_YAML.replace(_LISTS, "")
            return new(runtime, alone, True, extensions=[list_index_extension()])
        flatten = _TYPED_FLATTEN_YAML if with_lists else ""
        if name == "probe":
            any_values = T.Map(T.STRING, T.Map(T.STRING, T("google.protobuf.Any")))
            return new(checking + flatten, {**qualified, QUALIFIED_ATTRIBUTES: any_values})
        return new(checking + flatten, qualified)  # "flatten"

    return Environment(new(checking, qualified), DeviceSizes(features.list_type_attributes), features, stored,
                       with_lists, make)
