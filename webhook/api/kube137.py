"""Wire models of Kubernetes 1.37 where its shape differs from 1.36 (each class: the 1.36 one plus a delta).

1.37 replaced a device's `nodeAllocatableResourceMappings` by `nodeAllocatableResources` (the old name
is an unknown field now) and added `partitionTypeAttribute` and `skipNodeOperations` (slice spec),
`consumesCounters[].compatibilityGroups`, `derivedAttributes` (requests and subrequests) and
`skipNodeOperations` on allocation results.
"""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from webhook.api import deviceclaim as v136_claim
from webhook.api import resourceclaim as v136
from webhook.api import resourceclaimtemplate as v136_template
from webhook.api import resourcepoolstatusrequest as v136_rpsr
from webhook.api import resourceslice as v136_slice
from webhook.api.base import Int32, Str, WireModel
from webhook.api.resourceslice import Quantity


# ResourceSlice -----------------------------------------------------------------------------------

class NodeAllocatableMapping(WireModel):
    capacity_key: Optional[Str] = Field(None, alias="capacityKey")
    capacity_multiplier: Optional[Quantity] = Field(None, alias="capacityMultiplier")
    device_multiplier: Optional[Quantity] = Field(None, alias="deviceMultiplier")


class NodeAllocatableOverhead(WireModel):
    per_pod: Optional[Quantity] = Field(None, alias="perPod")
    per_container: Optional[Quantity] = Field(None, alias="perContainer")


class NodeAllocatableResource(WireModel):
    mapping: Optional[NodeAllocatableMapping] = None
    overhead: Optional[NodeAllocatableOverhead] = None


class DeviceCounterConsumption(v136_slice.DeviceCounterConsumption):
    compatibility_groups: Optional[list[Str]] = Field(None, alias="compatibilityGroups")


class Device(v136_slice.DeviceBase):
    consumes_counters: Optional[list[DeviceCounterConsumption]] = Field(None, alias="consumesCounters")
    node_allocatable_resources: Optional[dict[Str, NodeAllocatableResource]] = Field(
        None, alias="nodeAllocatableResources")


class ResourceSliceSpec(v136_slice.ResourceSliceSpec):
    devices: Optional[list[Device]] = None
    partition_type_attribute: Optional[Str] = Field(None, alias="partitionTypeAttribute")
    skip_node_operations: Optional[list[Str]] = Field(None, alias="skipNodeOperations")


class ResourceSlice(v136_slice.ResourceSlice):
    spec: Optional[ResourceSliceSpec] = None


# Claims and templates ----------------------------------------------------------------------------

class DeviceDerivedAttribute(WireModel):
    name: Optional[Str] = None
    expression: Optional[Str] = None


class ExactDeviceRequest(v136_claim.ExactDeviceRequest):
    derived_attributes: Optional[list[DeviceDerivedAttribute]] = Field(None, alias="derivedAttributes")


class DeviceSubRequest(v136_claim.DeviceSubRequest):
    derived_attributes: Optional[list[DeviceDerivedAttribute]] = Field(None, alias="derivedAttributes")


class DeviceRequest(v136_claim.DeviceRequest):
    exactly: Optional[ExactDeviceRequest] = None
    first_available: Optional[list[DeviceSubRequest]] = Field(None, alias="firstAvailable")


class DeviceClaim(v136_claim.DeviceClaim):
    requests: Optional[list[DeviceRequest]] = None


class ResourceClaimSpec(v136_claim.ResourceClaimSpec):
    devices: Optional[DeviceClaim] = None


class DeviceRequestAllocationResult(v136.DeviceRequestAllocationResult):
    skip_node_operations: Optional[list[Str]] = Field(None, alias="skipNodeOperations")


class DeviceAllocationResult(v136.DeviceAllocationResult):
    results: Optional[list[DeviceRequestAllocationResult]] = None


class AllocationResult(v136.AllocationResult):
    devices: Optional[DeviceAllocationResult] = None


class ResourceClaimStatus(v136.ResourceClaimStatus):
    allocation: Optional[AllocationResult] = None


class ResourceClaim(v136.ResourceClaim):
    spec: Optional[ResourceClaimSpec] = None
    status: Optional[ResourceClaimStatus] = None


class ResourceClaimTemplateSpec(v136_template.ResourceClaimTemplateSpec):
    spec: Optional[ResourceClaimSpec] = None


class ResourceClaimTemplate(v136_template.ResourceClaimTemplate):
    spec: Optional[ResourceClaimTemplateSpec] = None


# ResourcePoolStatusRequest (v1alpha3): the partition and shareable views of a pool, and the request's
# default grouping attribute for them.
class ResourcePoolStatusRequestSpec(v136_rpsr.ResourcePoolStatusRequestSpec):
    default_partition_type_attribute: Optional[Str] = Field(None, alias="defaultPartitionTypeAttribute")


class PartitionTypeStatus(WireModel):
    attribute: Optional[Str] = None
    type: Optional[Str] = None
    total: Optional[Int32] = None
    allocatable: Optional[Int32] = None


class ShareableCapacityStatus(WireModel):
    name: Optional[Str] = None
    total: Optional[Quantity] = None
    consumed: Optional[Quantity] = None
    available: Optional[Quantity] = None


class ShareableSummaryStatus(WireModel):
    fully_available_devices: Optional[Int32] = Field(None, alias="fullyAvailableDevices")
    partially_available_devices: Optional[Int32] = Field(None, alias="partiallyAvailableDevices")
    capacity: Optional[list[ShareableCapacityStatus]] = None


class PoolStatus(v136_rpsr.PoolStatus):
    partition_summary: Optional[list[PartitionTypeStatus]] = Field(None, alias="partitionSummary")
    shareable_summary: Optional[ShareableSummaryStatus] = Field(None, alias="shareableSummary")


class ResourcePoolStatusRequestStatus(v136_rpsr.ResourcePoolStatusRequestStatus):
    pools: Optional[list[PoolStatus]] = None


class ResourcePoolStatusRequest(v136_rpsr.ResourcePoolStatusRequest):
    spec: Optional[ResourcePoolStatusRequestSpec] = None
    status: Optional[ResourcePoolStatusRequestStatus] = None
