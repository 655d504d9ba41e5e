"""Wire models of Kubernetes 1.35 where its shape differs from 1.36 (each class: the 1.36 one minus a delta).

1.35 has no list-type attributes (`ints`, `bools`, `strings`, `versions`: KEP-5491 came in 1.36) and no
`nodeAllocatableResourceMappings` on a device: both are unknown fields, reported as for any unknown
field. Claims, templates, classes and DeviceTaintRule v1alpha3 have the 1.36 shape.
"""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from webhook.api import resourceslice as v136_slice
from webhook.api.base import Bool, Int64, Str, WireModel


class DeviceAttribute(WireModel):  # named as 1.36's: the quick attribute-map check finds it by name
    int_: Optional[Int64] = Field(None, alias="int")
    bool_: Optional[Bool] = Field(None, alias="bool")
    string: Optional[Str] = None
    version: Optional[Str] = None


class Device(v136_slice.DeviceBase):
    attributes: Optional[dict[Str, DeviceAttribute]] = None


class ResourceSliceSpec(v136_slice.ResourceSliceSpec):
    devices: Optional[list[Device]] = None


class ResourceSlice(v136_slice.ResourceSlice):
    spec: Optional[ResourceSliceSpec] = None
