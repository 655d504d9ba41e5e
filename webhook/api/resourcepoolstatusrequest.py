"""ResourcePoolStatusRequest wire model (resource.k8s.io/v1alpha3, Kubernetes 1.36; 1.37's delta: kube137)."""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from webhook.api.base import Int32, Int64, Str, WireModel
from webhook.api.conditions import Condition
from webhook.api.meta import ObjectMeta


class ResourcePoolStatusRequestSpec(WireModel):
    driver: Optional[Str] = None
    pool_name: Optional[Str] = Field(None, alias="poolName")
    limit: Optional[Int32] = None


class PoolStatus(WireModel):
    driver: Optional[Str] = None
    pool_name: Optional[Str] = Field(None, alias="poolName")
    generation: Optional[Int64] = None
    resource_slice_count: Optional[Int32] = Field(None, alias="resourceSliceCount")
    total_devices: Optional[Int32] = Field(None, alias="totalDevices")
    allocated_devices: Optional[Int32] = Field(None, alias="allocatedDevices")
    available_devices: Optional[Int32] = Field(None, alias="availableDevices")
    unavailable_devices: Optional[Int32] = Field(None, alias="unavailableDevices")
    node_name: Optional[Str] = Field(None, alias="nodeName")
    validation_error: Optional[Str] = Field(None, alias="validationError")


class ResourcePoolStatusRequestStatus(WireModel):
    pool_count: Optional[Int32] = Field(None, alias="poolCount")
    pools: Optional[list[PoolStatus]] = None
    conditions: Optional[list[Condition]] = None


class ResourcePoolStatusRequest(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    metadata: Optional[ObjectMeta] = None
    spec: Optional[ResourcePoolStatusRequestSpec] = None
    status: Optional[ResourcePoolStatusRequestStatus] = None
