"""Conversion of older resource.k8s.io versions to the v1 shape that validation reads.

The API server validates its internal form, which matches v1, so errors carry v1 paths even for
v1beta1 clients. Converters must tolerate wrongly typed input (they only move what is dict/list
shaped); type checking happens afterwards, on the v1 shape.

`to_v1(kind, version, obj)` returns `(v1_object, warnings)` and never mutates `obj`.
"""

from __future__ import annotations

import copy
from typing import Callable

from webhook.conversion import claims, resourceslice

Converter = Callable[[dict], tuple[dict, list[str]]]

# (kind, version) -> converter. Versions absent here are taken as already v1-shaped.
CONVERTERS: dict[tuple[str, str], Converter] = {
    ("ResourceSlice", "v1beta1"): resourceslice.resource_slice_from_v1beta1,
    ("ResourceClaim", "v1beta1"): claims.resource_claim_from_v1beta1,
    ("ResourceClaimTemplate", "v1beta1"): claims.resource_claim_template_from_v1beta1,
    ("ResourceClaim", "v1alpha3"): claims.resource_claim_from_v1alpha3,
    ("ResourceClaimTemplate", "v1alpha3"): claims.resource_claim_template_from_v1alpha3,
    ("DeviceClass", "v1beta1"): claims.device_class_from_v1beta1,
}


def to_v1(kind: str, version: str, obj: dict) -> tuple[dict, list[str]]:
    converter = CONVERTERS.get((kind, version))
    if converter is None:
        return obj, []
    return converter(copy.deepcopy(obj))
