"""The Go names of the wire models, as Go's JSON decoder prints them in its type errors.

A wire model's class name is its Go struct's name, and a field's Go type follows from its annotation
(`Str` is `string`, `Int64` is `int64`, `list[X]` is `[]X`, `dict[K, V]` is `map[K]V`); only the
exceptions are listed here: the struct names that differ, the named Go types of scalars and map keys
(`DeviceTaintEffect`, `QualifiedName`, `types.UID`) and the types that decode themselves
(`resource.Quantity`, `metav1.Time`). A type prints as Go's `reflect.Type.String()` does: the package
name, not its path (`v1.DeviceCapacity`, `resource.Quantity`, `types.UID`).
"""

from __future__ import annotations

import types
import typing
from typing import Any, Union

from pydantic import BaseModel

from webhook.conversion.resourceslice import BASIC_DEVICE_FIELDS, BASIC_DEVICE_FIELDS_1_37

QUANTITY, TIME = "resource.Quantity", "v1.Time"  # types with their own UnmarshalJSON
PKG = "{pkg}"  # the package of the request's API version (v1, v1beta1, v1beta2, v1alpha3)

# Model classes whose Go struct has another name.
_STRUCT_NAMES = {"DeviceBase": "Device"}
# Structs of k8s.io/api/core/v1 and k8s.io/apimachinery/pkg/apis/meta/v1 (both packages are named v1).
_OTHER_PACKAGE = {"NodeSelector": "v1", "NodeSelectorTerm": "v1", "NodeSelectorRequirement": "v1",
                  "ObjectMeta": "v1", "OwnerReference": "v1", "ManagedFieldsEntry": "v1", "Condition": "v1"}
# (Go struct, JSON field) -> the named Go type of the field's scalar: of its elements for a list, of its
# keys for a map.
_NAMED = {
    ("Device", "attributes"): f"{PKG}.QualifiedName",
    ("Device", "capacity"): f"{PKG}.QualifiedName",
    ("Device", "nodeAllocatableResourceMappings"): "v1.ResourceName",
    ("NodeAllocatableResourceMapping", "capacityKey"): f"{PKG}.QualifiedName",
    # Kubernetes 1.37
    ("Device", "nodeAllocatableResources"): "v1.ResourceName",
    ("NodeAllocatableMapping", "capacityKey"): f"{PKG}.QualifiedName",
    ("ResourceSliceSpec", "partitionTypeAttribute"): f"{PKG}.FullyQualifiedName",
    ("ResourceSliceSpec", "skipNodeOperations"): f"{PKG}.SkipNodeOperation",
    ("DeviceRequestAllocationResult", "skipNodeOperations"): f"{PKG}.SkipNodeOperation",
    ("DeviceTaint", "effect"): f"{PKG}.DeviceTaintEffect",
    ("DeviceTaint", "timeAdded"): TIME,
    ("ExactDeviceRequest", "allocationMode"): f"{PKG}.DeviceAllocationMode",
    ("DeviceSubRequest", "allocationMode"): f"{PKG}.DeviceAllocationMode",
    ("CapacityRequirements", "requests"): f"{PKG}.QualifiedName",
    ("DeviceConstraint", "matchAttribute"): f"{PKG}.FullyQualifiedName",
    ("DeviceConstraint", "distinctAttribute"): f"{PKG}.FullyQualifiedName",
    ("DeviceToleration", "operator"): f"{PKG}.DeviceTolerationOperator",
    ("DeviceToleration", "effect"): f"{PKG}.DeviceTaintEffect",
    ("ResourceClaimConsumerReference", "uid"): "types.UID",
    ("AllocationResult", "allocationTimestamp"): TIME,
    ("DeviceRequestAllocationResult", "shareID"): "types.UID",
    ("DeviceRequestAllocationResult", "consumedCapacity"): f"{PKG}.QualifiedName",
    ("DeviceAllocationConfiguration", "source"): f"{PKG}.AllocationConfigSource",
    ("NodeSelectorRequirement", "operator"): "v1.NodeSelectorOperator",
    ("ObjectMeta", "uid"): "types.UID",
    ("ObjectMeta", "creationTimestamp"): TIME,
    ("ObjectMeta", "deletionTimestamp"): TIME,
    ("OwnerReference", "uid"): "types.UID",
    ("ManagedFieldsEntry", "operation"): "v1.ManagedFieldsOperationType",
    ("ManagedFieldsEntry", "time"): TIME,
    ("Condition", "status"): "v1.ConditionStatus",
    ("Condition", "lastTransitionTime"): TIME,
    # ResourcePoolStatusRequest (v1alpha3): its int32 fields (Int32 in the models)
    ("ResourcePoolStatusRequestSpec", "limit"): "int32",
    ("ResourcePoolStatusRequestStatus", "poolCount"): "int32",
    **{("PoolStatus", name): "int32" for name in ("resourceSliceCount", "totalDevices", "allocatedDevices",
                                                  "availableDevices", "unavailableDevices")},
    **{("PartitionTypeStatus", name): "int32" for name in ("total", "allocatable")},
    **{("ShareableSummaryStatus", name): "int32" for name in ("fullyAvailableDevices", "partiallyAvailableDevices")},
}

BASIC_DEVICE = "BasicDevice"  # v1beta1 only
# (Go struct, JSON field) -> the embedded (`json:",inline"`) structs the field is promoted from, in every version:
# Go's decoder names them in an error's field stack (`config.DeviceConfiguration.opaque`), the JSON path does not.
_EMBEDDED = {(struct, "opaque"): ("DeviceConfiguration",)
             for struct in ("DeviceClaimConfiguration", "DeviceClassConfiguration", "DeviceAllocationConfiguration")}


def embedded(struct: str, field: str) -> tuple[str, ...]:
    """The Go names of the embedded structs a struct's JSON field is promoted from (decode.go `object`)."""
    return _EMBEDDED.get((struct, field), ())


def in_version(struct: str, field: str, version: str) -> tuple[str, tuple[str, ...]]:
    """(the Go struct holding a v1 struct's field in `version`, the JSON names leading to it there).

    v1beta1 keeps a device's fields other than its name in `basic` (a BasicDevice), and a request's
    fields flat in DeviceRequest, where v1 has them in `exactly` (an ExactDeviceRequest). Only what the
    conversion moved moves back (an unknown field stays where it was)."""
    if version != "v1beta1":
        return struct, (field,)
    if struct == "Device" and field in BASIC_DEVICE_FIELDS + BASIC_DEVICE_FIELDS_1_37:
        return BASIC_DEVICE, ("basic", field)
    if struct == "DeviceRequest" and field == "exactly":
        return struct, ()
    if struct == "ExactDeviceRequest":
        return "DeviceRequest", (field,)
    return struct, (field,)


def struct_name(model: type[BaseModel]) -> str:
    return _STRUCT_NAMES.get(model.__name__, model.__name__)


def package(struct: str, version: str) -> str:
    return _OTHER_PACKAGE.get(struct, version)


def strip_optional(annotation: Any) -> Any:
    """The annotation without Optional (Go decodes through a pointer: the error names the pointee)."""
    if typing.get_origin(annotation) in (Union, types.UnionType):
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _base(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def is_quantity(annotation: Any) -> bool:
    """A quantity is the one non-optional union of the wire models (JSON string or number)."""
    base = _base(strip_optional(annotation))
    return typing.get_origin(base) in (Union, types.UnionType) and type(None) not in typing.get_args(base)


def named_type(struct: str, field: str, version: str) -> str:
    """The named Go type of the scalar of field `field` of the v1 struct `struct` ("" for a plain one)."""
    return _NAMED.get((struct, field), "").replace(PKG, version)


def go_type(annotation: Any, named: str, version: str) -> str:
    """`reflect.Type.String()` of the Go type of `annotation`, whose scalar (element of a list, key of a
    map) is the named type `named` ("" for a plain one); pointers dereferenced, as the decoder reports."""
    annotation = strip_optional(annotation)
    if is_quantity(annotation):
        return QUANTITY
    base = _base(annotation)
    origin, args = typing.get_origin(base), typing.get_args(base)
    if isinstance(base, type) and issubclass(base, BaseModel):
        name = struct_name(base)
        name = "DeviceRequest" if version == "v1beta1" and name == "ExactDeviceRequest" else name
        return f"{package(name, version)}.{name}"
    if origin is list:
        return "[]" + go_type(args[0] if args else Any, named, version)
    if origin is dict:
        return f"map[{named or 'string'}]{go_type(args[1] if len(args) == 2 else Any, '', version)}"
    if named:
        return named
    return {str: "string", int: "int64", bool: "bool"}.get(base, "interface {}")
