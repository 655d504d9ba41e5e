"""DeviceTaintRule wire model (v1beta2 / v1alpha3 shape; both are the same in 1.36)."""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from webhook.api.base import Str, WireModel
from webhook.api.conditions import Condition
from webhook.api.meta import ObjectMeta
from webhook.api.resourceslice import DeviceTaint


class DeviceTaintSelector(WireModel):
    driver: Optional[Str] = None
    pool: Optional[Str] = None
    device: Optional[Str] = None


class DeviceTaintRuleSpec(WireModel):
    device_selector: Optional[DeviceTaintSelector] = Field(None, alias="deviceSelector")
    taint: Optional[DeviceTaint] = None


class DeviceTaintRuleStatus(WireModel):
    conditions: Optional[list[Condition]] = None


class DeviceTaintRule(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    metadata: Optional[ObjectMeta] = None
    spec: Optional[DeviceTaintRuleSpec] = None
    status: Optional[DeviceTaintRuleStatus] = None
