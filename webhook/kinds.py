"""THE kinds registry: what dra-webhook knows about each resource.k8s.io kind, in one table.

Per kind: whether it is namespaced, its wire model, the API versions each supported Kubernetes
version serves (with the converter to the v1 shape and the defaulter of that version), the versions
a Kubernetes version no longer serves but that we still understand (retired), and the rules for
create, update and the status subresource. A later Kubernetes version is the earlier entry plus a
delta. Nothing else in the code keeps a per-kind table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Callable, Mapping

from pydantic import BaseModel

from webhook.api.deviceclass import DeviceClass
from webhook.api.devicetaintrule import DeviceTaintRule
from webhook.api.resourceclaim import ResourceClaim
from webhook.api.resourceclaimtemplate import ResourceClaimTemplate
from webhook.api.resourceslice import ResourceSlice
from webhook.conversion import claims as claim_conversion
from webhook.conversion import resourceslice as slice_conversion
from webhook.field import ErrorList
from webhook.mutation import claims as claim_defaults
from webhook.mutation import devicetaintrule as taint_rule_defaults
from webhook.mutation import resourceslice as slice_defaults
from webhook.profile import DEFAULT, Profile
from webhook.validation import deviceclass, devicetaintrule, resourceclaim, resourceclaimtemplate, resourceslice
from webhook.validation.options import Options

GROUP = "resource.k8s.io"

Converter = Callable[[dict], tuple[dict, list[str]]]
# Defaults one copied object in place: (obj, old or None, operation, now).
Defaulter = Callable[[dict, "dict | None", str, datetime], None]
CreateRule = Callable[[dict, Options], ErrorList]
UpdateRule = Callable[[dict, dict, Options], ErrorList]
WarningRule = Callable[[dict, "dict | None"], list[str]]

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


@dataclass(frozen=True)
class Kind:
    name: str
    plural: str
    namespaced: bool
    model: type[BaseModel]  # the v1 wire shape, for type checks (webhook.api.decode)
    # Kubernetes version -> API version -> how it is served.
    served: Mapping[str, Mapping[str, ApiVersion]]
    create: CreateRule
    update: UpdateRule
    status_update: UpdateRule | None = None
    warnings: WarningRule | None = None
    retired: Mapping[str, Retired] = field(default_factory=dict)

    def api_version(self, profile: Profile, version: str) -> ApiVersion | Retired | None:
        served = self.served.get(profile.version, {})
        if version in served:
            return served[version]
        return self.retired.get(version)

    def served_versions(self, profile: Profile) -> list[str]:
        return list(self.served.get(profile.version, {}))


def _on_beta_apis(served_v1: ApiVersion, v1beta2: ApiVersion, v1beta1: ApiVersion) -> dict[str, ApiVersion]:
    return {"v1": served_v1, "v1beta2": v1beta2, "v1beta1": v1beta1}


KINDS: dict[str, Kind] = {
    "ResourceSlice": Kind(
        name="ResourceSlice", plural="resourceslices", namespaced=False, model=ResourceSlice,
        served={"1.36": _on_beta_apis(
            ApiVersion(SERVED, defaulter=slice_defaults.default_resource_slice),
            ApiVersion(OPT_IN, defaulter=slice_defaults.default_resource_slice),
            ApiVersion(OPT_IN, slice_conversion.resource_slice_from_v1beta1,
                       slice_defaults.default_resource_slice_v1beta1),
        )},
        # v1alpha3 slices held capacities as bare quantities: no converter, checked as written.
        retired={"v1alpha3": Retired("1.32")},
        create=resourceslice.validate_resource_slice,
        update=resourceslice.validate_resource_slice_update,
        warnings=resourceslice.resource_slice_warnings,
    ),
    "ResourceClaim": Kind(
        name="ResourceClaim", plural="resourceclaims", namespaced=True, model=ResourceClaim,
        served={"1.36": _on_beta_apis(
            ApiVersion(SERVED, defaulter=claim_defaults.default_resource_claim),
            ApiVersion(OPT_IN, defaulter=claim_defaults.default_resource_claim),
            ApiVersion(OPT_IN, claim_conversion.resource_claim_from_v1beta1,
                       claim_defaults.default_resource_claim_v1beta1),
        )},
        retired={"v1alpha3": Retired("1.32", claim_conversion.resource_claim_from_v1alpha3,
                                     claim_defaults.default_resource_claim_v1beta1)},
        create=resourceclaim.validate_resource_claim,
        update=resourceclaim.validate_resource_claim_update,
        status_update=resourceclaim.validate_resource_claim_status_update,
        warnings=resourceclaim.resource_claim_warnings,
    ),
    "ResourceClaimTemplate": Kind(
        name="ResourceClaimTemplate", plural="resourceclaimtemplates", namespaced=True,
        model=ResourceClaimTemplate,
        served={"1.36": _on_beta_apis(
            ApiVersion(SERVED, defaulter=claim_defaults.default_resource_claim_template),
            ApiVersion(OPT_IN, defaulter=claim_defaults.default_resource_claim_template),
            ApiVersion(OPT_IN, claim_conversion.resource_claim_template_from_v1beta1,
                       claim_defaults.default_resource_claim_template_v1beta1),
        )},
        retired={"v1alpha3": Retired("1.32", claim_conversion.resource_claim_template_from_v1alpha3,
                                     claim_defaults.default_resource_claim_template_v1beta1)},
        create=resourceclaimtemplate.validate_resource_claim_template,
        update=resourceclaimtemplate.validate_resource_claim_template_update,
        warnings=resourceclaimtemplate.resource_claim_template_warnings,
    ),
    "DeviceClass": Kind(
        name="DeviceClass", plural="deviceclasses", namespaced=False, model=DeviceClass,
        served={"1.36": _on_beta_apis(
            ApiVersion(SERVED),
            ApiVersion(OPT_IN),
            ApiVersion(OPT_IN, claim_conversion.device_class_from_v1beta1),
        )},
        retired={"v1alpha3": Retired("1.32", claim_conversion.device_class_from_v1beta1)},
        create=deviceclass.validate_device_class,
        update=deviceclass.validate_device_class_update,
    ),
    "DeviceTaintRule": Kind(
        name="DeviceTaintRule", plural="devicetaintrules", namespaced=False, model=DeviceTaintRule,
        served={"1.36": {
            "v1beta2": ApiVersion(OPT_IN, defaulter=taint_rule_defaults.default_device_taint_rule,
                                  gate="DRADeviceTaintRules"),
            "v1alpha3": ApiVersion(OPT_IN, defaulter=taint_rule_defaults.default_device_taint_rule,
                                   gate="DRADeviceTaintRules"),
        }},
        create=devicetaintrule.validate_device_taint_rule,
        update=devicetaintrule.validate_device_taint_rule_update,
        status_update=devicetaintrule.validate_device_taint_rule_status_update,
    ),
}

# Kinds of the group that a supported Kubernetes version serves but dra-webhook does not check.
UNCHECKED: dict[str, Mapping[str, Mapping[str, ApiVersion]]] = {
    "ResourcePoolStatusRequest": {"1.36": {"v1alpha3": ApiVersion(OPT_IN, gate="DRAResourcePoolStatus")}},
}


def copy_json(value):
    """A deep copy of JSON-shaped data (dicts, lists, scalars): what copy.deepcopy does, 3x faster,
    since there are no cycles or custom types to track."""
    if type(value) is dict:
        return {key: copy_json(item) for key, item in value.items()}
    if type(value) is list:
        return [copy_json(item) for item in value]
    return value


def to_v1(kind: str, version: str, obj: dict, profile: Profile = DEFAULT) -> tuple[dict, list[str]]:
    """`obj` in the v1 shape (a converted copy; the object itself when already v1-shaped) and warnings."""
    entry = KINDS.get(kind)
    api_version = entry.api_version(profile, version) if entry else None
    converter = api_version.converter if api_version else None
    if converter is None:
        return obj, []
    return converter(copy_json(obj))


def apply_defaults(kind: str, version: str, obj: dict, old: dict | None, operation: str, now: datetime,
                   profile: Profile = DEFAULT) -> dict:
    """A defaulted deep copy of `obj` (never mutated), as the API server defaults `version` objects."""
    defaulted = copy_json(obj)
    entry = KINDS.get(kind)
    api_version = entry.api_version(profile, version) if entry else None
    defaulter = api_version.defaulter if api_version else None
    if defaulter is not None and isinstance(defaulted, dict):
        defaulter(defaulted, old if isinstance(old, dict) else None, operation, now)
    return defaulted
