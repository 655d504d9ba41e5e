"""ResourceClaimTemplate wire model (v1 shape)."""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from webhook.api.base import Str, WireModel
from webhook.api.deviceclaim import ResourceClaimSpec
from webhook.api.meta import ObjectMeta


class ResourceClaimTemplateSpec(WireModel):
    metadata: Optional[ObjectMeta] = None
    spec: Optional[ResourceClaimSpec] = None


class ResourceClaimTemplate(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    metadata: Optional[ObjectMeta] = None
    spec: Optional[ResourceClaimTemplateSpec] = None
