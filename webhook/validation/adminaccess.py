"""The registry's admin-access namespace check (AuthorizedForAdmin, AuthorizedForAdminStatus).

The API server forbids `adminAccess: true` in a request (create of a claim or template) or in a
newly set allocation result (claim status update) unless the claim's namespace carries the label
`resource.kubernetes.io/admin-access: "true"`. The check needs the namespace object. Where the
namespace is known (offline: the Namespace objects of the inputs, and the namespaces a new cluster
has, unlabelled), the check is made and reported as the API server reports it. Elsewhere (any
namespace served, an unknown one offline) failing would reject valid claims in labelled namespaces
and passing silently would hide the rule, so it allows and warns once per object.
"""

from __future__ import annotations

from typing import Any, Mapping

from webhook.field import ErrorList, Path, forbidden
from webhook.validation._helpers import as_dict, as_list

DRA_ADMIN_NAMESPACE_LABEL_KEY = "resource.kubernetes.io/admin-access"
_DETAIL = f"admin access to devices requires the `{DRA_ADMIN_NAMESPACE_LABEL_KEY}: true` label on the containing namespace"
_UNDECIDED = "; dra-webhook cannot see namespace labels, so the API server decides"

# Namespace name -> its labels, for the namespaces known (offline); None where none can be seen (served).
Namespaces = Mapping[str, Mapping[str, str]] | None


def _first_admin_request(spec: Any) -> int:
    for i, request in enumerate(as_list(as_dict(as_dict(spec).get("devices")).get("requests"))):
        if as_dict(as_dict(request).get("exactly")).get("adminAccess") is True:
            return i
    return -1


def _first_admin_result(status: Any) -> int:
    results = as_list(as_dict(as_dict(as_dict(status).get("allocation")).get("devices")).get("results"))
    for i, result in enumerate(results):
        if as_dict(result).get("adminAccess") is True:
            return i
    return -1


def _decide(path: Path, namespace: str, namespaces: Namespaces) -> tuple[ErrorList, list[str]]:
    if namespaces is None or namespace not in namespaces:
        return [], [f"{path}: {_DETAIL}{_UNDECIDED}"]
    if as_dict(namespaces.get(namespace)).get(DRA_ADMIN_NAMESPACE_LABEL_KEY) == "true":
        return [], []
    return [forbidden(path, _DETAIL)], []


def authorized_for_admin(spec: Any, namespace: str, namespaces: Namespaces) -> tuple[ErrorList, list[str]]:
    """Create of a claim or template. Upstream reports `spec.devices.requests[i].adminAccess` for both."""
    i = _first_admin_request(spec)
    if i < 0:
        return [], []
    return _decide(Path("spec", "devices", "requests").index(i).child("adminAccess"), namespace, namespaces)


def authorized_for_admin_status(status: Any, old_status: Any, namespace: str,
                                namespaces: Namespaces) -> tuple[ErrorList, list[str]]:
    """Status update: only an allocation that newly brings admin access is checked upstream."""
    if _first_admin_result(old_status) >= 0:
        return [], []
    i = _first_admin_result(status)
    if i < 0:
        return [], []
    path = Path("status", "allocation", "devices", "results").index(i).child("adminAccess")
    return _decide(path, namespace, namespaces)
