"""ResourceClaim wire model (v1 shape). Foundation scope: typed metadata, untyped spec and status."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from webhook.api.base import Str, WireModel
from webhook.api.meta import ObjectMeta


class ResourceClaim(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    metadata: Optional[ObjectMeta] = None
    spec: Optional[dict[str, Any]] = None
    status: Optional[dict[str, Any]] = None
