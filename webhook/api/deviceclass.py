"""DeviceClass wire model (v1 shape)."""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from webhook.api.base import Str, WireModel
from webhook.api.deviceclaim import DeviceSelector, OpaqueDeviceConfiguration
from webhook.api.meta import ObjectMeta


class DeviceClassConfiguration(WireModel):
    opaque: Optional[OpaqueDeviceConfiguration] = None


class DeviceClassSpec(WireModel):
    selectors: Optional[list[DeviceSelector]] = None
    config: Optional[list[DeviceClassConfiguration]] = None
    extended_resource_name: Optional[Str] = Field(None, alias="extendedResourceName")


class DeviceClass(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    metadata: Optional[ObjectMeta] = None
    spec: Optional[DeviceClassSpec] = None
