"""The registry's admin-access namespace check (AuthorizedForAdmin, AuthorizedForAdminStatus), as warnings.

The API server forbids `adminAccess: true` in a request (create of a claim or template) or in a
newly set allocation result (claim status update) unless the claim's namespace carries the label
`resource.kubernetes.io/admin-access: "true"`. A webhook only sees the object, never its
namespace, so it cannot decide this. Failing would reject valid claims in labelled namespaces and
passing silently would hide the rule; we allow and warn once per object, naming the first field the
API server would report, and leave the decision to the API server.
"""

from __future__ import annotations

from typing import Any

from webhook.field import Path
from webhook.validation._helpers import as_dict, as_list

DRA_ADMIN_NAMESPACE_LABEL_KEY = "resource.kubernetes.io/admin-access"
_DETAIL = (f"admin access to devices requires the `{DRA_ADMIN_NAMESPACE_LABEL_KEY}: true` label on the "
           "containing namespace; dra-webhook cannot see namespace labels, so the API server decides")


def _first_admin_request(spec: Any) -> int:
    for i, request in enumerate(as_list(as_dict(as_dict(spec).get("devices")).get("requests"))):
        if as_dict(as_dict(request).get("exactly")).get("adminAccess") is True:
            return i
    return -1


def spec_admin_access_warnings(spec: Any) -> list[str]:
    """Create of a claim or template. Upstream reports `spec.devices.requests[i].adminAccess` for both."""
    i = _first_admin_request(spec)
    if i < 0:
        return []
    return [f"{Path('spec', 'devices', 'requests').index(i).child('adminAccess')}: {_DETAIL}"]


def _has_admin_result(status: Any) -> int:
    results = as_list(as_dict(as_dict(as_dict(status).get("allocation")).get("devices")).get("results"))
    for i, result in enumerate(results):
        if as_dict(result).get("adminAccess") is True:
            return i
    return -1


def status_admin_access_warnings(status: Any, old_status: Any) -> list[str]:
    """Status update: only an allocation that newly brings admin access is checked upstream."""
    if _has_admin_result(old_status) >= 0:
        return []
    i = _has_admin_result(status)
    if i < 0:
        return []
    path = Path("status", "allocation", "devices", "results").index(i).child("adminAccess")
    return [f"{path}: {_DETAIL}"]
