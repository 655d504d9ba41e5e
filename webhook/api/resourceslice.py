"""ResourceSlice wire model (v1 shape, which v1beta2 shares and v1beta1 is converted to).

Every field is optional, as JSON allows; Kubernetes rules live in webhook.validation. Quantities
are a JSON string or number that must parse as a resource.Quantity (Go's decoder rejects the
request otherwise).
"""

from __future__ import annotations

from typing import Annotated, Any, Optional

from pydantic import AfterValidator, Field

from webhook.api.base import Bool, Int64, QuantityValue, Str, Time, WireModel
from webhook.api.meta import ObjectMeta
from webhook.quantity import check_json_quantity

Quantity = Annotated[QuantityValue, AfterValidator(check_json_quantity)]


class NodeSelectorRequirement(WireModel):
    key: Optional[Str] = None
    operator: Optional[Str] = None
    values: Optional[list[Str]] = None


class NodeSelectorTerm(WireModel):
    match_expressions: Optional[list[NodeSelectorRequirement]] = Field(None, alias="matchExpressions")
    match_fields: Optional[list[NodeSelectorRequirement]] = Field(None, alias="matchFields")


class NodeSelector(WireModel):
    node_selector_terms: Optional[list[NodeSelectorTerm]] = Field(None, alias="nodeSelectorTerms")


class ResourcePool(WireModel):
    name: Optional[Str] = None
    generation: Optional[Int64] = None
    resource_slice_count: Optional[Int64] = Field(None, alias="resourceSliceCount")


class Counter(WireModel):
    value: Optional[Quantity] = None


class CounterSet(WireModel):
    name: Optional[Str] = None
    counters: Optional[dict[Str, Counter]] = None


class DeviceAttribute(WireModel):
    int_: Optional[Int64] = Field(None, alias="int")
    bool_: Optional[Bool] = Field(None, alias="bool")
    string: Optional[Str] = None
    version: Optional[Str] = None
    ints: Optional[list[Int64]] = None
    bools: Optional[list[Bool]] = None
    strings: Optional[list[Str]] = None
    versions: Optional[list[Str]] = None


class CapacityRequestPolicyRange(WireModel):
    min: Optional[Quantity] = None
    max: Optional[Quantity] = None
    step: Optional[Quantity] = None


class CapacityRequestPolicy(WireModel):
    default: Optional[Quantity] = None
    valid_values: Optional[list[Quantity]] = Field(None, alias="validValues")
    valid_range: Optional[CapacityRequestPolicyRange] = Field(None, alias="validRange")


class DeviceCapacity(WireModel):
    value: Optional[Quantity] = None
    request_policy: Optional[CapacityRequestPolicy] = Field(None, alias="requestPolicy")


class DeviceCounterConsumption(WireModel):
    counter_set: Optional[Str] = Field(None, alias="counterSet")
    counters: Optional[dict[Str, Counter]] = None


class DeviceTaint(WireModel):
    key: Optional[Str] = None
    value: Optional[Str] = None
    effect: Optional[Str] = None
    time_added: Optional[Time] = Field(None, alias="timeAdded")


class NodeAllocatableResourceMapping(WireModel):
    capacity_key: Optional[Str] = Field(None, alias="capacityKey")
    allocation_multiplier: Optional[Quantity] = Field(None, alias="allocationMultiplier")


class DeviceBase(WireModel):
    """The device fields every supported Kubernetes version has."""

    name: Optional[Str] = None
    attributes: Optional[dict[Str, DeviceAttribute]] = None
    capacity: Optional[dict[Str, DeviceCapacity]] = None
    consumes_counters: Optional[list[DeviceCounterConsumption]] = Field(None, alias="consumesCounters")
    node_name: Optional[Str] = Field(None, alias="nodeName")
    node_selector: Optional[NodeSelector] = Field(None, alias="nodeSelector")
    all_nodes: Optional[Bool] = Field(None, alias="allNodes")
    taints: Optional[list[DeviceTaint]] = None
    binds_to_node: Optional[Bool] = Field(None, alias="bindsToNode")
    binding_conditions: Optional[list[Str]] = Field(None, alias="bindingConditions")
    binding_failure_conditions: Optional[list[Str]] = Field(None, alias="bindingFailureConditions")
    allow_multiple_allocations: Optional[Bool] = Field(None, alias="allowMultipleAllocations")


class Device(DeviceBase):
    """The 1.36 device (1.37 replaced the mappings by `nodeAllocatableResources`)."""

    node_allocatable_resource_mappings: Optional[dict[Str, NodeAllocatableResourceMapping]] = Field(
        None, alias="nodeAllocatableResourceMappings")


class ResourceSliceSpec(WireModel):
    driver: Optional[Str] = None
    pool: Optional[ResourcePool] = None
    node_name: Optional[Str] = Field(None, alias="nodeName")
    node_selector: Optional[NodeSelector] = Field(None, alias="nodeSelector")
    all_nodes: Optional[Bool] = Field(None, alias="allNodes")
    devices: Optional[list[Device]] = None
    per_device_node_selection: Optional[Bool] = Field(None, alias="perDeviceNodeSelection")
    shared_counters: Optional[list[CounterSet]] = Field(None, alias="sharedCounters")


class ResourceSlice(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    metadata: Optional[ObjectMeta] = None
    spec: Optional[ResourceSliceSpec] = None
    status: Optional[dict[str, Any]] = None
