"""ResourceClaim wire model (v1 shape)."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from webhook.api.base import Bool, Str, Time, WireModel
from webhook.api.conditions import Condition
from webhook.api.deviceclaim import DeviceToleration, OpaqueDeviceConfiguration, ResourceClaimSpec
from webhook.api.meta import ObjectMeta
from webhook.api.resourceslice import NodeSelector, Quantity


class DeviceRequestAllocationResult(WireModel):
    request: Optional[Str] = None
    driver: Optional[Str] = None
    pool: Optional[Str] = None
    device: Optional[Str] = None
    admin_access: Optional[Bool] = Field(None, alias="adminAccess")
    tolerations: Optional[list[DeviceToleration]] = None
    binding_conditions: Optional[list[Str]] = Field(None, alias="bindingConditions")
    binding_failure_conditions: Optional[list[Str]] = Field(None, alias="bindingFailureConditions")
    share_id: Optional[Str] = Field(None, alias="shareID")
    consumed_capacity: Optional[dict[Str, Quantity]] = Field(None, alias="consumedCapacity")


class DeviceAllocationConfiguration(WireModel):
    source: Optional[Str] = None
    requests: Optional[list[Str]] = None
    opaque: Optional[OpaqueDeviceConfiguration] = None


class DeviceAllocationResult(WireModel):
    results: Optional[list[DeviceRequestAllocationResult]] = None
    config: Optional[list[DeviceAllocationConfiguration]] = None


class AllocationResult(WireModel):
    devices: Optional[DeviceAllocationResult] = None
    node_selector: Optional[NodeSelector] = Field(None, alias="nodeSelector")
    allocation_timestamp: Optional[Time] = Field(None, alias="allocationTimestamp")


class ResourceClaimConsumerReference(WireModel):
    api_group: Optional[Str] = Field(None, alias="apiGroup")
    resource: Optional[Str] = None
    name: Optional[Str] = None
    uid: Optional[Str] = None


class NetworkDeviceData(WireModel):
    interface_name: Optional[Str] = Field(None, alias="interfaceName")
    ips: Optional[list[Str]] = None
    hardware_address: Optional[Str] = Field(None, alias="hardwareAddress")


class AllocatedDeviceStatus(WireModel):
    driver: Optional[Str] = None
    pool: Optional[Str] = None
    device: Optional[Str] = None
    share_id: Optional[Str] = Field(None, alias="shareID")
    conditions: Optional[list[Condition]] = None
    data: Any = None  # runtime.RawExtension: any JSON value
    network_data: Optional[NetworkDeviceData] = Field(None, alias="networkData")


class ResourceClaimStatus(WireModel):
    allocation: Optional[AllocationResult] = None
    reserved_for: Optional[list[ResourceClaimConsumerReference]] = Field(None, alias="reservedFor")
    devices: Optional[list[AllocatedDeviceStatus]] = None


class ResourceClaim(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    metadata: Optional[ObjectMeta] = None
    spec: Optional[ResourceClaimSpec] = None
    status: Optional[ResourceClaimStatus] = None
