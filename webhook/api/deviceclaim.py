"""Wire models shared by claims, templates and classes (v1 shape): requests, selectors, config."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from webhook.api.base import Bool, Int64, Str, WireModel
from webhook.api.resourceslice import Quantity


class CELDeviceSelector(WireModel):
    expression: Optional[Str] = None


class DeviceSelector(WireModel):
    cel: Optional[CELDeviceSelector] = None


class DeviceToleration(WireModel):
    key: Optional[Str] = None
    operator: Optional[Str] = None
    value: Optional[Str] = None
    effect: Optional[Str] = None
    toleration_seconds: Optional[Int64] = Field(None, alias="tolerationSeconds")


class CapacityRequirements(WireModel):
    requests: Optional[dict[Str, Quantity]] = None


class ExactDeviceRequest(WireModel):
    device_class_name: Optional[Str] = Field(None, alias="deviceClassName")
    selectors: Optional[list[DeviceSelector]] = None
    allocation_mode: Optional[Str] = Field(None, alias="allocationMode")
    count: Optional[Int64] = None
    admin_access: Optional[Bool] = Field(None, alias="adminAccess")
    tolerations: Optional[list[DeviceToleration]] = None
    capacity: Optional[CapacityRequirements] = None


class DeviceSubRequest(WireModel):
    name: Optional[Str] = None
    device_class_name: Optional[Str] = Field(None, alias="deviceClassName")
    selectors: Optional[list[DeviceSelector]] = None
    allocation_mode: Optional[Str] = Field(None, alias="allocationMode")
    count: Optional[Int64] = None
    tolerations: Optional[list[DeviceToleration]] = None
    capacity: Optional[CapacityRequirements] = None


class DeviceRequest(WireModel):
    name: Optional[Str] = None
    exactly: Optional[ExactDeviceRequest] = None
    first_available: Optional[list[DeviceSubRequest]] = Field(None, alias="firstAvailable")


class DeviceConstraint(WireModel):
    requests: Optional[list[Str]] = None
    match_attribute: Optional[Str] = Field(None, alias="matchAttribute")
    distinct_attribute: Optional[Str] = Field(None, alias="distinctAttribute")


class OpaqueDeviceConfiguration(WireModel):
    driver: Optional[Str] = None
    parameters: Any = None  # runtime.RawExtension: any JSON value


class DeviceClaimConfiguration(WireModel):
    requests: Optional[list[Str]] = None
    opaque: Optional[OpaqueDeviceConfiguration] = None


class DeviceClaim(WireModel):
    requests: Optional[list[DeviceRequest]] = None
    constraints: Optional[list[DeviceConstraint]] = None
    config: Optional[list[DeviceClaimConfiguration]] = None


class ResourceClaimSpec(WireModel):
    devices: Optional[DeviceClaim] = None
