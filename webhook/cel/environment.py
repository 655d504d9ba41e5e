"""The DRA selector environment for the faithful engine: the `device` variable and its libraries.

Kubernetes builds two flavours (apiserver pkg/cel/environment): *new* expressions see only what the
compatibility version (1.35 for a 1.36 server) and the enabled feature gates allow; *stored*
expressions see everything, so an object that was once valid keeps validating.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, struct_pb2

from webhook.cel.features import Features
from webhook.cel.library import kubernetes_functions
from webhook.cel.sizes import DeviceSizes

DEVICE_TYPE = "kubernetes.DRADevice"

# cel-go extension set of the 1.36 base environment, in the compiler's configuration language.
# `lists` version 2 of this compiler carries cel-go's version 3 functions; `strings` stays at 2
# (a later version would wrongly accept `reverse()`).
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
"""


@dataclass(frozen=True)
class Environment:
    env: cel.Env
    sizes: DeviceSizes
    features: Features
    stored: bool

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
    pool.Add(_device_descriptor(with_multi_alloc))
    return pool


_lock = threading.Lock()
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
    with_includes = stored or features.list_type_attributes
    env = cel.NewEnv(
        _pool(with_multi_alloc),
        config=cel.NewEnvConfigFromYaml(_EXTENSIONS_YAML),
        variables={"device": cel.Type(DEVICE_TYPE)},
        functions=list(kubernetes_functions(with_includes)),
    )
    env.compile("true")  # declaration conflicts only surface at the first compile: make them surface here
    return Environment(env, DeviceSizes(features.list_type_attributes), features, stored)
