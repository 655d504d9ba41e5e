"""Objects carrying drivers' opaque configurations, and their verdicts through the webhook's own path."""

from __future__ import annotations

from collections import Counter

from support import review_body, validation_causes
from webhook.profile import DEFAULT, make_profile
from webhook.drivers.registry import DriverSource


def claim_with(driver: str, *parameters: dict, requests: int = 1) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ns"},
            "spec": {"devices": {
                "requests": [{"name": f"r{i}", "exactly": {"deviceClassName": "gpu", "allocationMode": "ExactCount", "count": 1}} for i in range(requests)],
                "config": [{"opaque": {"driver": driver, "parameters": p}} for p in parameters]}}}


def template_with(driver: str, *parameters: dict) -> dict:
    inner = claim_with(driver, *parameters)["spec"]
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": "t", "namespace": "ns"}, "spec": {"spec": inner}}


def class_with(driver: str, *parameters: dict) -> dict:
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "gpu"},
            "spec": {"config": [{"opaque": {"driver": driver, "parameters": p}} for p in parameters]}}


def profile_with_gates(gates: str = "", **kwargs):
    from webhook.drivers.registry import parse_driver_gates

    return make_profile(drivers=DriverSource(gates=parse_driver_gates(gates), **kwargs))


def causes_of(obj: dict, profile=DEFAULT) -> Counter:
    causes, _ = validation_causes(review_body(obj), profile)
    return causes


def fields(obj: dict, profile=DEFAULT) -> list[tuple[str, str]]:
    """The (field, reason) pairs of the verdict, sorted; [] when allowed."""
    return sorted(causes_of(obj, profile).elements())


def messages(obj: dict, profile=DEFAULT) -> list[str]:
    from webhook import admit
    from webhook.review import decode_review

    response = admit.validate(decode_review(review_body(obj)), profile=profile)
    details = (response.status or {}).get("details", {})
    return [f"{c['field']}: {c['message']}" for c in details.get("causes", [])]
