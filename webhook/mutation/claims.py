"""ResourceClaim and ResourceClaimTemplate defaults: allocation mode, count and toleration operator.

v1 and v1beta2 keep a single-device request under `exactly`; v1beta1 (and the retired v1alpha3
claim shape) put those fields flat on the request and default mode and count only when the request
names a deviceClassName, because a request without one is meant to use `firstAvailable`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable

from webhook.mutation._walk import Patch, child, dict_items, is_empty_string

EXACT_COUNT = "ExactCount"
DEFAULT_COUNT = 1
DEFAULT_TOLERATION_OPERATOR = "Equal"

RequestDefaulter = Callable[[dict, str, Patch], None]


def default_resource_claim(obj: dict, old: dict | None, operation: str, now: datetime, patch: Patch) -> None:
    _default_requests(*child(obj, "", "spec", "devices"), _default_request, patch)
    _default_result_tolerations(obj, patch)


def default_resource_claim_v1beta1(obj: dict, old: dict | None, operation: str, now: datetime, patch: Patch) -> None:
    _default_requests(*child(obj, "", "spec", "devices"), _default_flat_request, patch)
    _default_result_tolerations(obj, patch)


def default_resource_claim_template(obj: dict, old: dict | None, operation: str, now: datetime,
                                    patch: Patch) -> None:
    _default_requests(*child(obj, "", "spec", "spec", "devices"), _default_request, patch)


def default_resource_claim_template_v1beta1(obj: dict, old: dict | None, operation: str, now: datetime,
                                            patch: Patch) -> None:
    _default_requests(*child(obj, "", "spec", "spec", "devices"), _default_flat_request, patch)


def _default_requests(devices: dict | None, pointer: str, default_request: RequestDefaulter, patch: Patch) -> None:
    for request, at in dict_items(devices, pointer, "requests"):
        default_request(request, at, patch)
        for subrequest, sub_at in dict_items(request, at, "firstAvailable"):
            _default_allocation(subrequest, sub_at, patch)
            _default_tolerations(subrequest, sub_at, patch)


def _default_request(request: dict, pointer: str, patch: Patch) -> None:
    exactly, at = child(request, pointer, "exactly")
    if exactly is not None:
        _default_allocation(exactly, at, patch)
        _default_tolerations(exactly, at, patch)


def _default_flat_request(request: dict, pointer: str, patch: Patch) -> None:
    device_class_name = request.get("deviceClassName")
    if isinstance(device_class_name, str) and device_class_name:
        _default_allocation(request, pointer, patch)
    _default_tolerations(request, pointer, patch)


def _default_allocation(request: dict, pointer: str, patch: Patch) -> None:
    """Mode "" becomes ExactCount; ExactCount with count 0 becomes 1 (so an explicit 0 too)."""
    if is_empty_string(request, "allocationMode"):
        patch.set(request, pointer, "allocationMode", EXACT_COUNT)
    if request.get("allocationMode") == EXACT_COUNT and _is_zero_count(request.get("count")):
        patch.set(request, pointer, "count", DEFAULT_COUNT)


def _is_zero_count(count: object) -> bool:
    # bool is an int in Python but not in JSON; a wrongly typed count is left for the type check.
    return count is None or (type(count) is int and count == 0)


def _default_tolerations(owner: dict, pointer: str, patch: Patch) -> None:
    for toleration, at in dict_items(owner, pointer, "tolerations"):
        if is_empty_string(toleration, "operator"):
            patch.set(toleration, at, "operator", DEFAULT_TOLERATION_OPERATOR)


def _default_result_tolerations(obj: dict, patch: Patch) -> None:
    for result, at in dict_items(*child(obj, "", "status", "allocation", "devices"), "results"):
        _default_tolerations(result, at, patch)
