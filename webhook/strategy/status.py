"""What every DRA status strategy's PrepareForUpdate does before validation (pkg/registry/resource/*/strategy.go):
a status update cannot change the spec or the metadata a user owns, so the stored spec is kept and
metav1.ResetObjectMetaForStatus copies the stored metadata fields back. Validation then sees that object."""

from __future__ import annotations

import copy
from typing import Any

# metav1.ResetObjectMetaForStatus: the fields it takes from the stored object (managedFields stay the request's).
_RESET_METADATA = ("deletionTimestamp", "generation", "selfLink", "labels", "annotations", "finalizers",
                   "ownerReferences")


def reset_for_status(obj: dict, old: dict) -> dict:
    """`obj` with `old`'s spec and `old`'s values of the metadata fields a status update cannot change."""
    out = dict(obj)
    if "spec" in old:
        out["spec"] = copy.deepcopy(old["spec"])
    else:
        out.pop("spec", None)
    new_meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else None
    old_meta = old.get("metadata") if isinstance(old.get("metadata"), dict) else {}
    if new_meta is not None:
        meta = dict(new_meta)
        for name in _RESET_METADATA:
            if name in old_meta:
                meta[name] = copy.deepcopy(old_meta[name])
            else:
                meta.pop(name, None)
        out["metadata"] = meta
    return out


def status_defaults(obj: Any, defaulted: dict, patch: list[dict]) -> tuple[Any, list[dict]]:
    """`obj` with the defaults of its status, and their patch: the API server defaults the whole body of a status
    update it decodes (a result toleration without operator gets Equal), then the status strategy keeps only its
    status; `defaulted` and `patch` are the whole body's."""
    patch = [op for op in patch if op.get("path") == "/status" or str(op.get("path", "")).startswith("/status/")]
    if not patch or not isinstance(obj, dict):
        return obj, []
    return {**obj, "status": defaulted.get("status")}, patch
