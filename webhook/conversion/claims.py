"""ResourceClaim, ResourceClaimTemplate and DeviceClass from v1beta1 / v1alpha3 to the v1 shape."""

from __future__ import annotations


def resource_claim_from_v1beta1(obj: dict) -> tuple[dict, list[str]]:
    return obj, []


def resource_claim_template_from_v1beta1(obj: dict) -> tuple[dict, list[str]]:
    return obj, []


def resource_claim_from_v1alpha3(obj: dict) -> tuple[dict, list[str]]:
    return obj, []


def resource_claim_template_from_v1alpha3(obj: dict) -> tuple[dict, list[str]]:
    return obj, []


def device_class_from_v1beta1(obj: dict) -> tuple[dict, list[str]]:
    return obj, []
