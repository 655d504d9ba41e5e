"""Wire models of Kubernetes 1.34 where its shape differs from 1.35 (each class: the 1.35 one plus a delta).

DeviceTaintRule (v1alpha3) selects devices by `deviceClassName` and CEL `selectors` as well as by
driver, pool and device, and has no `status` (1.35 removed the two fields and added the status).
ResourceSlices, claims, templates and classes have the 1.35 shape (`spec.devices` lost no field;
only its `omitempty` changed, which makes no difference to a decoded object).
"""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from webhook.api import devicetaintrule as v135_rule
from webhook.api.base import Str, WireModel
from webhook.api.deviceclaim import DeviceSelector
from webhook.api.meta import ObjectMeta
from webhook.api.resourceslice import DeviceTaint


class DeviceTaintSelector(v135_rule.DeviceTaintSelector):
    device_class_name: Optional[Str] = Field(None, alias="deviceClassName")
    selectors: Optional[list[DeviceSelector]] = None


class DeviceTaintRuleSpec(WireModel):
    device_selector: Optional[DeviceTaintSelector] = Field(None, alias="deviceSelector")
    taint: Optional[DeviceTaint] = None


class DeviceTaintRule(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    metadata: Optional[ObjectMeta] = None
    spec: Optional[DeviceTaintRuleSpec] = None
