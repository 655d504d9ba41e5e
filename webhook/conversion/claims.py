"""ResourceClaim, ResourceClaimTemplate and DeviceClass from v1beta1 / v1alpha3 to the v1 shape.

v1beta1 (and the v1alpha3 of Kubernetes 1.31/1.32) keeps a request's device fields flat, next to
`name`. Like the API server's conversion, an `exactly` is created whenever any of them is set, so
flat fields together with `firstAvailable` end up as "multiple fields are set". The older v1alpha3
also has `status.allocation.controller` and `status.deallocationRequested`, which no longer exist
and are dropped with a warning. v1beta2 is the v1 shape. Only dict/list-shaped parts are moved;
wrongly typed values are left where the type check will find them.
"""

from __future__ import annotations

from typing import Any

# Flat request fields that move into `exactly`, in the order of the v1 type.
EXACT_FIELDS = ("deviceClassName", "selectors", "allocationMode", "count", "adminAccess", "tolerations", "capacity")
# Kubernetes 1.37 added derivedAttributes to the flat v1beta1 request (and to `exactly`).
EXACT_FIELDS_1_37 = EXACT_FIELDS + ("derivedAttributes",)


def _is_set(field: str, value: Any, *, alpha: bool) -> bool:
    """hasAnyMainRequestFieldsSet: Go zero values and nil do not count; an empty list does."""
    if value is None:
        return False
    if field in ("deviceClassName", "allocationMode"):
        return value != ""
    if field == "count":
        return value != 0 or isinstance(value, bool)
    if field == "adminAccess" and alpha:
        return value is not False  # a plain bool in 1.31: false is unset
    return True


def _convert_request(request: Any, *, alpha: bool, fields: tuple[str, ...] = EXACT_FIELDS) -> Any:
    if not isinstance(request, dict):
        return request
    present = [f for f in fields if f in request]
    if not any(_is_set(f, request[f], alpha=alpha) for f in present):
        for f in present:  # zero values: the Go conversion drops them
            del request[f]
        return request
    exactly = {f: request.pop(f) for f in present}
    if alpha and exactly.get("adminAccess") is False:
        del exactly["adminAccess"]
    out: dict = {}
    for key, value in request.items():
        out[key] = value
        if key == "name":
            out["exactly"] = exactly
    if "exactly" not in out:
        out["exactly"] = exactly
    return out


def _convert_claim_spec(spec: Any, *, alpha: bool, fields: tuple[str, ...] = EXACT_FIELDS) -> None:
    devices = spec.get("devices") if isinstance(spec, dict) else None
    requests = devices.get("requests") if isinstance(devices, dict) else None
    if isinstance(requests, list):
        devices["requests"] = [_convert_request(r, alpha=alpha, fields=fields) for r in requests]


def _convert_alpha_status(status: Any, warnings: list[str]) -> None:
    if not isinstance(status, dict):
        return
    if "deallocationRequested" in status:
        if status.pop("deallocationRequested"):
            warnings.append("status.deallocationRequested no longer exists in resource.k8s.io/v1; ignored")
    allocation = status.get("allocation")
    if isinstance(allocation, dict) and "controller" in allocation:
        if allocation.pop("controller"):
            warnings.append("status.allocation.controller no longer exists in resource.k8s.io/v1; ignored")


def resource_claim_from_v1beta1(obj: dict) -> tuple[dict, list[str]]:
    _convert_claim_spec(obj.get("spec"), alpha=False)
    return obj, []


def resource_claim_template_from_v1beta1(obj: dict) -> tuple[dict, list[str]]:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _convert_claim_spec(spec.get("spec"), alpha=False)
    return obj, []


def resource_claim_from_v1beta1_1_37(obj: dict) -> tuple[dict, list[str]]:
    _convert_claim_spec(obj.get("spec"), alpha=False, fields=EXACT_FIELDS_1_37)
    return obj, []


def resource_claim_template_from_v1beta1_1_37(obj: dict) -> tuple[dict, list[str]]:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _convert_claim_spec(spec.get("spec"), alpha=False, fields=EXACT_FIELDS_1_37)
    return obj, []


def resource_claim_from_v1alpha3(obj: dict) -> tuple[dict, list[str]]:
    warnings: list[str] = []
    _convert_claim_spec(obj.get("spec"), alpha=True)
    _convert_alpha_status(obj.get("status"), warnings)
    return obj, warnings


def resource_claim_template_from_v1alpha3(obj: dict) -> tuple[dict, list[str]]:
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _convert_claim_spec(spec.get("spec"), alpha=True)
    return obj, []


def device_class_from_v1beta1(obj: dict) -> tuple[dict, list[str]]:
    """DeviceClass has the same shape in v1beta1 and v1."""
    return obj, []
