"""Defaults the API server applies, and the JSON Patch that brings an object to its defaulted form.

`apply_defaults(kind, version, obj, old, operation, now)` returns a defaulted deep copy (never mutates
its input); `default_with_patch(...)` returns the defaulted object and the RFC 6902 operations the
defaulters applied, recorded as they set each field (no diff of the whole object). Defaults work on
the raw versioned object, because the patch has to address the object as the client sent it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from webhook.mutation import claims, devicetaintrule, resourceslice
from webhook.mutation._walk import Patch, copy_json

__all__ = ["DEFAULTERS", "apply_defaults", "default_with_patch"]

# Defaults one object in place, recording each field it sets: (obj, old or None, operation, now, patch).
Defaulter = Callable[[dict, dict | None, str, datetime, Patch], None]

# (kind, version) -> defaulter. DeviceClass has no defaults; kinds and versions absent here are
# returned unchanged. v1alpha3 claims are the retired flat shape, defaulted like v1beta1.
DEFAULTERS: dict[tuple[str, str], Defaulter] = {
    ("ResourceSlice", "v1"): resourceslice.default_resource_slice,
    ("ResourceSlice", "v1beta2"): resourceslice.default_resource_slice,
    ("ResourceSlice", "v1beta1"): resourceslice.default_resource_slice_v1beta1,
    ("ResourceClaim", "v1"): claims.default_resource_claim,
    ("ResourceClaim", "v1beta2"): claims.default_resource_claim,
    ("ResourceClaim", "v1beta1"): claims.default_resource_claim_v1beta1,
    ("ResourceClaim", "v1alpha3"): claims.default_resource_claim_v1beta1,
    ("ResourceClaimTemplate", "v1"): claims.default_resource_claim_template,
    ("ResourceClaimTemplate", "v1beta2"): claims.default_resource_claim_template,
    ("ResourceClaimTemplate", "v1beta1"): claims.default_resource_claim_template_v1beta1,
    ("ResourceClaimTemplate", "v1alpha3"): claims.default_resource_claim_template_v1beta1,
    ("DeviceTaintRule", "v1beta2"): devicetaintrule.default_device_taint_rule,
    ("DeviceTaintRule", "v1alpha3"): devicetaintrule.default_device_taint_rule,
}


def default_with_patch(kind: str, version: str, obj: dict, old: dict | None, operation: str, now: datetime,
                       *, in_place: bool = False) -> tuple[dict, list[dict]]:
    """(defaulted object, JSON Patch from `obj` to it). `in_place` defaults `obj` itself, for
    callers that only need the patch of an object they own (no copy of a 2 MB claim)."""
    defaulted = obj if in_place else copy_json(obj)
    patch = Patch()
    defaulter = DEFAULTERS.get((kind, version))
    if defaulter is not None and isinstance(defaulted, dict):
        defaulter(defaulted, old if isinstance(old, dict) else None, operation, now, patch)
    return defaulted, patch.ops


def apply_defaults(kind: str, version: str, obj: dict, old: dict | None, operation: str, now: datetime) -> dict:
    return default_with_patch(kind, version, obj, old, operation, now)[0]
