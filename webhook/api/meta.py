"""metav1.ObjectMeta as it travels in JSON."""

from __future__ import annotations

from typing import Any, Optional

from pydantic import Field

from webhook.api.base import Bool, Int64, Str, Time, WireModel


class OwnerReference(WireModel):
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    kind: Optional[Str] = None
    name: Optional[Str] = None
    uid: Optional[Str] = None
    controller: Optional[Bool] = None
    block_owner_deletion: Optional[Bool] = Field(None, alias="blockOwnerDeletion")


class ManagedFieldsEntry(WireModel):
    manager: Optional[Str] = None
    operation: Optional[Str] = None
    api_version: Optional[Str] = Field(None, alias="apiVersion")
    time: Optional[Time] = None
    fields_type: Optional[Str] = Field(None, alias="fieldsType")
    fields_v1: Optional[dict[str, Any]] = Field(None, alias="fieldsV1")
    subresource: Optional[Str] = None


class ObjectMeta(WireModel):
    name: Optional[Str] = None
    generate_name: Optional[Str] = Field(None, alias="generateName")
    namespace: Optional[Str] = None
    self_link: Optional[Str] = Field(None, alias="selfLink")
    uid: Optional[Str] = None
    resource_version: Optional[Str] = Field(None, alias="resourceVersion")
    generation: Optional[Int64] = None
    creation_timestamp: Optional[Time] = Field(None, alias="creationTimestamp")
    deletion_timestamp: Optional[Time] = Field(None, alias="deletionTimestamp")
    deletion_grace_period_seconds: Optional[Int64] = Field(None, alias="deletionGracePeriodSeconds")
    labels: Optional[dict[Str, Str]] = None
    annotations: Optional[dict[Str, Str]] = None
    owner_references: Optional[list[OwnerReference]] = Field(None, alias="ownerReferences")
    finalizers: Optional[list[Str]] = None
    managed_fields: Optional[list[ManagedFieldsEntry]] = Field(None, alias="managedFields")
