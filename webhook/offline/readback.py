"""Objects read back from a cluster (`kubectl get -o yaml`): how to tell them, and how to check their content.

Such a dump carries the metadata the API server sets. Sent back as a create, the storage layer refuses
its resourceVersion ("resourceVersion should not be set on objects to be created"); the rest of it the API
server overwrites without a word (rest.BeforeCreate: uid, creationTimestamp, deletionTimestamp and its
grace period; the strategies' PrepareForCreate: generation; the field manager: managedFields). So a
review keeps that faithful verdict and says why in one line, and `review --from-cluster` drops exactly
those fields first: what remains is checked as `kubectl create` of the cleaned object would be, the way
a backup is restored into a new cluster. (A create resets status, so a dump's status is not checked.)
"""

from __future__ import annotations

from typing import Any

# The metadata the API server sets on a create (or refuses, resourceVersion): what --from-cluster drops.
SERVER_SET = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink",
              "deletionTimestamp", "deletionGracePeriodSeconds")
# What marks a dump: fields no one writes into a manifest by hand.
_MARKERS = ("resourceVersion", "uid", "creationTimestamp", "managedFields")


def read_back(obj: Any) -> list[str]:
    """The server-set metadata fields of `obj` that mark it as read back from a cluster (none: [])."""
    meta = obj.get("metadata") if isinstance(obj, dict) else None
    if not isinstance(meta, dict):
        return []
    return [f"metadata.{name}" for name in _MARKERS if meta.get(name) not in (None, "", [])]


def hint(fields: list[str]) -> str:
    return (f"dra-webhook: this looks like an object read back from a cluster ({', '.join(fields)} set); "
            f"kubectl refuses it as a new object. To check its content, review it with --from-cluster")


def strip(obj: dict) -> dict:
    """`obj` without the metadata the API server sets (a copy when there is any)."""
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not any(name in meta for name in SERVER_SET):
        return obj
    return {**obj, "metadata": {k: v for k, v in meta.items() if k not in SERVER_SET}}
