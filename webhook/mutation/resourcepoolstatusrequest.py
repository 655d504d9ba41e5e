"""ResourcePoolStatusRequest: `spec.limit` defaults to 100 (`+default=100` in k8s.io/api resource/v1alpha3).

The spec is a struct, not a pointer: a request without one decodes to an empty spec, which gets the
limit too (and then fails validation for its missing driver).
"""

from __future__ import annotations

from datetime import datetime

from webhook.mutation._walk import Patch, child, is_unset
from webhook.limits import RESOURCE_POOL_STATUS_REQUEST_LIMIT_DEFAULT as LIMIT_DEFAULT


def default_resource_pool_status_request(obj: dict, old: dict | None, operation: str, now: datetime,
                                         patch: Patch) -> None:
    if is_unset(obj, "spec"):
        patch.set(obj, "", "spec", {"limit": LIMIT_DEFAULT})
        return
    spec, at = child(obj, "", "spec")
    if spec is not None and is_unset(spec, "limit"):
        patch.set(spec, at, "limit", LIMIT_DEFAULT)
