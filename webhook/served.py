"""The API versions each supported Kubernetes release serves of each resource.k8s.io kind, with the
converter to the v1 shape and the defaulter of each, and the versions a release no longer serves but
that dra-webhook still understands (retired). A later release is the earlier entry plus a delta.

Part of the kinds registry (webhook.kinds holds the rest of each kind's entry); a table of its own
because the profile reads it too (which group versions a --runtime-config may name), and the profile
sits below the rules the registry holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable, Mapping

from webhook.behaviours import BEHAVIOURS, VERSIONS
from webhook.conversion import claims as claim_conversion
from webhook.conversion import resourceslice as slice_conversion
from webhook.mutation import claims as claim_defaults
from webhook.mutation import devicetaintrule as taint_rule_defaults
from webhook.mutation import resourcepoolstatusrequest as pool_status_defaults
from webhook.mutation import resourceslice as slice_defaults
from webhook.mutation._walk import Patch

Converter = Callable[[dict], tuple[dict, list[str]]]
# Defaults one object in place, recording each field it sets: (obj, old or None, operation, now, patch).
Defaulter = Callable[[dict, "dict | None", str, datetime, Patch], None]

# How a Kubernetes version serves an API version of a kind.
SERVED = "served"  # by default
OPT_IN = "opt-in"  # only when the cluster enables the API version (kube-apiserver --runtime-config)


@dataclass(frozen=True)
class ApiVersion:
    availability: str = SERVED
    converter: Converter | None = None  # to the v1 shape; None: the version already has it
    defaulter: Defaulter | None = None
    gate: str | None = None  # the kind is only served with this feature gate on


@dataclass(frozen=True)
class Retired:
    """A version no longer served; still converted, so that a hint can show the v1 verdict."""

    since: str
    converter: Converter | None = None
    defaulter: Defaulter | None = None


def _on_beta_apis(served_v1: ApiVersion, v1beta2: ApiVersion, v1beta1: ApiVersion) -> dict[str, ApiVersion]:
    return {"v1": served_v1, "v1beta2": v1beta2, "v1beta1": v1beta1}


def _delta(base: Mapping[str, ApiVersion], **changes: ApiVersion) -> dict[str, ApiVersion]:
    """A later Kubernetes version's entry: the earlier one with these API versions changed or added."""
    return {**base, **changes}


def every_release(value: Any) -> dict[str, Any]:
    """A wire model or drop step that no supported Kubernetes version changed."""
    return dict.fromkeys(VERSIONS, value)


_SLICE_1_35 = _on_beta_apis(
    ApiVersion(SERVED, defaulter=slice_defaults.default_resource_slice_1_35),
    ApiVersion(OPT_IN, defaulter=slice_defaults.default_resource_slice_1_35),
    ApiVersion(OPT_IN, slice_conversion.resource_slice_from_v1beta1, slice_defaults.default_resource_slice_v1beta1_1_35),
)
# 1.36: node-allocatable mappings, whose allocationMultiplier defaults to 1.
_SLICE_1_36 = _delta(
    _SLICE_1_35,
    v1=ApiVersion(SERVED, defaulter=slice_defaults.default_resource_slice),
    v1beta2=ApiVersion(OPT_IN, defaulter=slice_defaults.default_resource_slice),
    v1beta1=ApiVersion(OPT_IN, slice_conversion.resource_slice_from_v1beta1,
                       slice_defaults.default_resource_slice_v1beta1),
)
# Claims, templates and classes: 1.35 serves them as 1.36 does.
_CLAIM_1_36 = _on_beta_apis(
    ApiVersion(SERVED, defaulter=claim_defaults.default_resource_claim),
    ApiVersion(OPT_IN, defaulter=claim_defaults.default_resource_claim),
    ApiVersion(OPT_IN, claim_conversion.resource_claim_from_v1beta1, claim_defaults.default_resource_claim_v1beta1),
)
_TEMPLATE_1_36 = _on_beta_apis(
    ApiVersion(SERVED, defaulter=claim_defaults.default_resource_claim_template),
    ApiVersion(OPT_IN, defaulter=claim_defaults.default_resource_claim_template),
    ApiVersion(OPT_IN, claim_conversion.resource_claim_template_from_v1beta1,
               claim_defaults.default_resource_claim_template_v1beta1),
)
_CLASS_1_36 = _on_beta_apis(
    ApiVersion(SERVED),
    ApiVersion(OPT_IN),
    ApiVersion(OPT_IN, claim_conversion.device_class_from_v1beta1),
)

def _taint_rule_api(version: str, availability: str = OPT_IN) -> ApiVersion:
    behaviours = BEHAVIOURS[version]
    defaulter = taint_rule_defaults.defaulter(behaviours.taint_rule_effect_moves_time)
    # 1.34 has no gate of the kind's own: DRADeviceTaints governs it.
    gate = "DRADeviceTaints" if behaviours.taint_rule_cel_selectors else "DRADeviceTaintRules"
    return ApiVersion(availability, defaulter=defaulter, gate=gate)


# DeviceTaintRule is v1alpha3 only in 1.34 and 1.35 (1.34's with CEL selectors); 1.36 adds v1beta2.
_TAINT_RULE_1_34 = {"v1alpha3": _taint_rule_api("1.34")}
_TAINT_RULE_1_35 = {"v1alpha3": _taint_rule_api("1.35")}
_TAINT_RULE_1_36 = {"v1beta2": _taint_rule_api("1.36"), "v1alpha3": _taint_rule_api("1.36")}  # preferred first
# New in 1.36, alpha: served only with the API version and the gate enabled, in 1.36 and 1.37 alike.
_POOL_STATUS_1_36 = {
    "v1alpha3": ApiVersion(OPT_IN, defaulter=pool_status_defaults.default_resource_pool_status_request,
                           gate="DRAResourcePoolStatus"),
}


# Kind -> Kubernetes release -> API version -> how it is served.
SERVED_VERSIONS: dict[str, Mapping[str, Mapping[str, ApiVersion]]] = {
    "ResourceSlice": {"1.34": _SLICE_1_35, "1.35": _SLICE_1_35, "1.36": _SLICE_1_36, "1.37": _delta(
        _SLICE_1_36,
        # No allocationMultiplier default any more; v1beta1 lifts nodeAllocatableResources from `basic`.
        v1=ApiVersion(SERVED, defaulter=slice_defaults.default_resource_slice_1_37),
        v1beta2=ApiVersion(OPT_IN, defaulter=slice_defaults.default_resource_slice_1_37),
        v1beta1=ApiVersion(OPT_IN, slice_conversion.resource_slice_from_v1beta1_1_37,
                           slice_defaults.default_resource_slice_v1beta1_1_37),
    )},
    "ResourceClaim": {**every_release(_CLAIM_1_36), "1.37": _delta(
        _CLAIM_1_36,
        v1beta1=ApiVersion(OPT_IN, claim_conversion.resource_claim_from_v1beta1_1_37,
                           claim_defaults.default_resource_claim_v1beta1),
    )},
    "ResourceClaimTemplate": {**every_release(_TEMPLATE_1_36), "1.37": _delta(
        _TEMPLATE_1_36,
        v1beta1=ApiVersion(OPT_IN, claim_conversion.resource_claim_template_from_v1beta1_1_37,
                           claim_defaults.default_resource_claim_template_v1beta1),
    )},
    "DeviceClass": {**every_release(_CLASS_1_36), "1.37": _delta(_CLASS_1_36)},
    "DeviceTaintRule": {"1.34": _TAINT_RULE_1_34, "1.35": _TAINT_RULE_1_35, "1.36": _TAINT_RULE_1_36, "1.37": _delta(
        _TAINT_RULE_1_36,
        # 1.37 serves the kind as v1 (v1beta2's shape) and its gate is GA, on by default.
        v1=_taint_rule_api("1.37", SERVED),
    )},
    "ResourcePoolStatusRequest": {"1.36": _POOL_STATUS_1_36, "1.37": _delta(_POOL_STATUS_1_36)},
}

# v1alpha3 slices held capacities as bare quantities: no converter, checked as written. 1.33 still served
# v1alpha3 (opt-in) for every kind; k8s.io/api v0.34 keeps only its DeviceTaintRule.
RETIRED_VERSIONS: dict[str, Mapping[str, Retired]] = {
    "ResourceSlice": {"v1alpha3": Retired("1.34")},
    "ResourceClaim": {"v1alpha3": Retired("1.34", claim_conversion.resource_claim_from_v1alpha3,
                                 claim_defaults.default_resource_claim_v1beta1)},
    "ResourceClaimTemplate": {"v1alpha3": Retired("1.34", claim_conversion.resource_claim_template_from_v1alpha3,
                                 claim_defaults.default_resource_claim_template_v1beta1)},
    "DeviceClass": {"v1alpha3": Retired("1.34", claim_conversion.device_class_from_v1beta1)},
}


def registered_versions(release: str) -> set[str]:
    """The resource.k8s.io versions a release registers (those a --runtime-config may name)."""
    return {version for by_release in SERVED_VERSIONS.values() for version in by_release.get(release, {})}
