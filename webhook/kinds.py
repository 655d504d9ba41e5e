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
from typing import Any, Callable, Mapping

from webhook.conversion import claims as claim_conversion
from webhook.conversion import resourceslice as slice_conversion
from webhook.field import ErrorList
from webhook.mutation import claims as claim_defaults
from webhook.mutation import devicetaintrule as taint_rule_defaults
from webhook.mutation import resourcepoolstatusrequest as pool_status_defaults
from webhook.mutation import resourceslice as slice_defaults
from webhook.mutation._walk import Patch, copy_json
from webhook.behaviours import BEHAVIOURS
from webhook.profile import DEFAULT, Profile
from webhook import strategy
from webhook.strategy import DropStep, DroppedField
from webhook.strategy import deviceclass as class_strategy
from webhook.strategy import devicetaintrule as taint_rule_strategy
from webhook.strategy import kube135 as strategy_1_35
from webhook.strategy import kube137 as strategy_1_37
from webhook.strategy import resourceclaim as claim_strategy
from webhook.strategy import resourceclaimtemplate as template_strategy
from webhook.strategy import resourceslice as slice_strategy
from webhook.validation import (
    deviceclass, devicetaintrule, resourceclaim, resourceclaimtemplate, resourcepoolstatusrequest, resourceslice,
)
from webhook.validation.options import Options

GROUP = "resource.k8s.io"
_API = "webhook.api"  # the package of the wire models

Converter = Callable[[dict], tuple[dict, list[str]]]
# Defaults one object in place, recording each field it sets: (obj, old or None, operation, now, patch).
Defaulter = Callable[[dict, "dict | None", str, datetime, Patch], None]
CreateRule = Callable[[dict, Options], ErrorList]
UpdateRule = Callable[[dict, dict, Options], ErrorList]
# What the registry strategy adds to validation (namespace checks, warnings): (errors, warnings).
StrategyChecks = Callable[[dict, "dict | None", Options], tuple[ErrorList, list[str]]]

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
    # Kubernetes version -> the v1 wire shape, for type checks (webhook.api.decode), as the "module.Class"
    # name of its model: a clean object is checked by a cached validator, without importing the models.
    model: Mapping[str, str]
    # Kubernetes version -> API version -> how it is served.
    served: Mapping[str, Mapping[str, ApiVersion]]
    create: CreateRule
    update: UpdateRule
    status_update: UpdateRule | None = None
    # The behaviour (behaviours.py) that says whether a release has the status subresource ("": always).
    status_behaviour: str = ""
    strategy_checks: StrategyChecks | None = None
    retired: Mapping[str, Retired] = field(default_factory=dict)
    # What the registry strategy drops when a gate is off (PrepareForCreate/Update), main resource and status,
    # per Kubernetes version.
    drop_disabled: Mapping[str, DropStep] = field(default_factory=dict)
    drop_disabled_status: Mapping[str, DropStep] = field(default_factory=dict)
    # What the status strategy's PrepareForUpdate does after the drop (claims: dropDeallocatedStatusDevices):
    # (new, old, profile) -> new, or a changed copy.
    prepare_status: Callable[[dict, "dict | None", Profile], dict] | None = None

    def status_rule(self, profile: Profile) -> UpdateRule | None:
        """The status subresource's update rule in this release; None: the kind has no status subresource."""
        if self.status_behaviour and not getattr(profile.behaviours, self.status_behaviour):
            return None
        return self.status_update

    def api_version(self, profile: Profile, version: str) -> ApiVersion | Retired | None:
        served = self.served.get(profile.version, {})
        if version in served:
            return served[version]
        return self.retired.get(version)

    def served_versions(self, profile: Profile) -> list[str]:
        return list(self.served.get(profile.version, {}))

    def wire_model(self, profile: Profile) -> str:
        return self.model[profile.version]


def _on_beta_apis(served_v1: ApiVersion, v1beta2: ApiVersion, v1beta1: ApiVersion) -> dict[str, ApiVersion]:
    return {"v1": served_v1, "v1beta2": v1beta2, "v1beta1": v1beta1}


def _delta(base: Mapping[str, ApiVersion], **changes: ApiVersion) -> dict[str, ApiVersion]:
    """A later Kubernetes version's entry: the earlier one with these API versions changed or added."""
    return {**base, **changes}


def _revalidating(create: Callable, update: Callable) -> Callable:
    """A strategy's ValidateUpdate where the profile says it validates the new object in full first (1.34)."""
    def rule(new: dict, old: dict, opts: Any) -> list:
        errors = update(new, old, opts)
        if opts.profile.behaviours.update_revalidates_object:
            errors = create(new, opts) + errors
        return errors
    rule.__name__ = update.__name__
    rule.__doc__ = update.__doc__
    return rule


def _same(value: Any) -> dict[str, Any]:
    """A wire model or drop step that no supported Kubernetes version changed."""
    return {"1.34": value, "1.35": value, "1.36": value, "1.37": value}


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


KINDS: dict[str, Kind] = {
    "ResourceSlice": Kind(
        name="ResourceSlice", plural="resourceslices", namespaced=False,
        model={"1.34": f"{_API}.kube135.ResourceSlice",
               "1.35": f"{_API}.kube135.ResourceSlice", "1.36": f"{_API}.resourceslice.ResourceSlice",
               "1.37": f"{_API}.kube137.ResourceSlice"},
        served={"1.34": _SLICE_1_35, "1.35": _SLICE_1_35, "1.36": _SLICE_1_36, "1.37": _delta(
            _SLICE_1_36,
            # No allocationMultiplier default any more; v1beta1 lifts nodeAllocatableResources from `basic`.
            v1=ApiVersion(SERVED, defaulter=slice_defaults.default_resource_slice_1_37),
            v1beta2=ApiVersion(OPT_IN, defaulter=slice_defaults.default_resource_slice_1_37),
            v1beta1=ApiVersion(OPT_IN, slice_conversion.resource_slice_from_v1beta1_1_37,
                               slice_defaults.default_resource_slice_v1beta1_1_37),
        )},
        # v1alpha3 slices held capacities as bare quantities: no converter, checked as written. 1.33 still served
        # v1alpha3 (opt-in) for every kind; k8s.io/api v0.34 keeps only its DeviceTaintRule.
        retired={"v1alpha3": Retired("1.34")},
        create=resourceslice.validate_resource_slice,
        update=resourceslice.validate_resource_slice_update,
        strategy_checks=resourceslice.resource_slice_strategy_checks,
        drop_disabled={"1.34": strategy_1_35.drop_disabled_slice_fields,
                       "1.35": strategy_1_35.drop_disabled_slice_fields, "1.36": slice_strategy.drop_disabled_fields,
                       "1.37": strategy_1_37.drop_disabled_slice_fields},
    ),
    "ResourceClaim": Kind(
        name="ResourceClaim", plural="resourceclaims", namespaced=True,
        model={**_same(f"{_API}.resourceclaim.ResourceClaim"), "1.37": f"{_API}.kube137.ResourceClaim"},
        served={**_same(_CLAIM_1_36), "1.37": _delta(
            _CLAIM_1_36,
            v1beta1=ApiVersion(OPT_IN, claim_conversion.resource_claim_from_v1beta1_1_37,
                               claim_defaults.default_resource_claim_v1beta1),
        )},
        retired={"v1alpha3": Retired("1.34", claim_conversion.resource_claim_from_v1alpha3,
                                     claim_defaults.default_resource_claim_v1beta1)},
        create=resourceclaim.validate_resource_claim,
        update=_revalidating(resourceclaim.validate_resource_claim, resourceclaim.validate_resource_claim_update),
        status_update=resourceclaim.validate_resource_claim_status_update,
        strategy_checks=resourceclaim.resource_claim_strategy_checks,
        drop_disabled={**_same(claim_strategy.drop_disabled_spec_fields),
                       "1.37": strategy_1_37.drop_disabled_claim_fields},
        drop_disabled_status={**_same(claim_strategy.drop_disabled_status_fields),
                              "1.37": strategy_1_37.drop_disabled_claim_status_fields},
        prepare_status=claim_strategy.drop_deallocated_status_devices,
    ),
    "ResourceClaimTemplate": Kind(
        name="ResourceClaimTemplate", plural="resourceclaimtemplates", namespaced=True,
        model={**_same(f"{_API}.resourceclaimtemplate.ResourceClaimTemplate"),
               "1.37": f"{_API}.kube137.ResourceClaimTemplate"},
        served={**_same(_TEMPLATE_1_36), "1.37": _delta(
            _TEMPLATE_1_36,
            v1beta1=ApiVersion(OPT_IN, claim_conversion.resource_claim_template_from_v1beta1_1_37,
                               claim_defaults.default_resource_claim_template_v1beta1),
        )},
        retired={"v1alpha3": Retired("1.34", claim_conversion.resource_claim_template_from_v1alpha3,
                                     claim_defaults.default_resource_claim_template_v1beta1)},
        create=resourceclaimtemplate.validate_resource_claim_template,
        update=resourceclaimtemplate.validate_resource_claim_template_update,
        strategy_checks=resourceclaimtemplate.resource_claim_template_strategy_checks,
        drop_disabled={**_same(template_strategy.drop_disabled_fields),
                       "1.37": strategy_1_37.drop_disabled_template_fields},
    ),
    "DeviceClass": Kind(
        name="DeviceClass", plural="deviceclasses", namespaced=False,
        model=_same(f"{_API}.deviceclass.DeviceClass"),
        served={**_same(_CLASS_1_36), "1.37": _delta(_CLASS_1_36)},
        retired={"v1alpha3": Retired("1.34", claim_conversion.device_class_from_v1beta1)},
        create=deviceclass.validate_device_class,
        update=_revalidating(deviceclass.validate_device_class, deviceclass.validate_device_class_update),
        drop_disabled=_same(class_strategy.drop_disabled_fields),
    ),
    "DeviceTaintRule": Kind(
        name="DeviceTaintRule", plural="devicetaintrules", namespaced=False,
        model={**_same(f"{_API}.devicetaintrule.DeviceTaintRule"), "1.34": f"{_API}.kube134.DeviceTaintRule"},
        served={"1.34": _TAINT_RULE_1_34, "1.35": _TAINT_RULE_1_35, "1.36": _TAINT_RULE_1_36, "1.37": _delta(
            _TAINT_RULE_1_36,
            # 1.37 serves the kind as v1 (v1beta2's shape) and its gate is GA, on by default.
            v1=_taint_rule_api("1.37", SERVED),
        )},
        create=devicetaintrule.validate_device_taint_rule,
        update=devicetaintrule.validate_device_taint_rule_update,
        status_update=devicetaintrule.validate_device_taint_rule_status_update,
        status_behaviour="taint_rule_status",
        drop_disabled=_same(taint_rule_strategy.drop_disabled_fields),
        drop_disabled_status=_same(taint_rule_strategy.drop_disabled_fields),
    ),
    "ResourcePoolStatusRequest": Kind(
        name="ResourcePoolStatusRequest", plural="resourcepoolstatusrequests", namespaced=False,
        # 1.37 adds the partition and shareable views (and the request's default partition attribute).
        model={"1.36": f"{_API}.resourcepoolstatusrequest.ResourcePoolStatusRequest",
               "1.37": f"{_API}.kube137.ResourcePoolStatusRequest"},
        served={"1.36": _POOL_STATUS_1_36, "1.37": _delta(_POOL_STATUS_1_36)},
        create=resourcepoolstatusrequest.validate_resource_pool_status_request,
        update=resourcepoolstatusrequest.validate_resource_pool_status_request_update,
        status_update=resourcepoolstatusrequest.validate_resource_pool_status_request_status_update,
        # 1.37's strategy drops defaultPartitionTypeAttribute with DRAPartitionableDevicesType off (the differential
        # against upstream's registry showed it; the +k8s:ifDisabled rule then sees only a kept old value).
        drop_disabled={"1.37": strategy_1_37.drop_disabled_pool_status_request_fields},
    ),
}

# Kinds of the group that a supported Kubernetes version serves but dra-webhook does not check (none today).
UNCHECKED: dict[str, Mapping[str, Mapping[str, ApiVersion]]] = {}


def to_v1(kind: str, version: str, obj: dict, profile: Profile = DEFAULT) -> tuple[dict, list[str]]:
    """`obj` in the v1 shape (a converted copy; the object itself when already v1-shaped) and warnings."""
    entry = KINDS.get(kind)
    api_version = entry.api_version(profile, version) if entry else None
    converter = api_version.converter if api_version else None
    if converter is None:
        return obj, []
    return converter(copy_json(obj))


def default_with_patch(kind: str, version: str, obj: dict, old: dict | None, operation: str, now: datetime,
                       profile: Profile = DEFAULT, *, in_place: bool = False) -> tuple[dict, list[dict]]:
    """(`obj` defaulted as the API server defaults `version` objects, the JSON Patch from `obj` to it).

    `obj` itself is returned, defaulted, when `in_place`: for a caller that owns it and needs only the
    patch (the server, with a 2 MB claim it parsed for this request alone). Otherwise `obj` is left as
    it was and is returned itself when no default applies (most slices get none): it is defaulted,
    copied only when something was added, and the changes are undone."""
    patch = Patch(undoable=not in_place)
    entry = KINDS.get(kind)
    api_version = entry.api_version(profile, version) if entry else None
    defaulter = api_version.defaulter if api_version else None
    if defaulter is None or not isinstance(obj, dict):
        return obj, patch.ops
    try:
        defaulter(obj, old if isinstance(old, dict) else None, operation, now, patch)
        defaulted = obj if in_place or not patch.ops else copy_json(obj)
    finally:
        patch.undo()
    return defaulted, patch.ops


def apply_defaults(kind: str, version: str, obj: dict, old: dict | None, operation: str, now: datetime,
                   profile: Profile = DEFAULT) -> dict:
    """A defaulted copy of `obj` (never mutated)."""
    defaulted = default_with_patch(kind, version, obj, old, operation, now, profile)[0]
    return copy_json(defaulted) if defaulted is obj else defaulted


def _drop_step(kind: str, subresource: str, profile: Profile) -> DropStep | None:
    entry = KINDS.get(kind)
    if entry is None or subresource not in ("", "status"):
        return None
    return (entry.drop_disabled_status if subresource == "status" else entry.drop_disabled).get(profile.version)


def drop_disabled_fields(kind: str, obj: dict, old: dict | None, profile: Profile, *,
                         subresource: str = "") -> tuple[dict, list[DroppedField]]:
    """`obj` (v1 shape) as the registry strategy leaves it with `profile`'s gates, and what it dropped; on a
    status update, after the kind's own last step (`prepare_status`), which drops without a word."""
    obj, dropped = strategy.drop_disabled_fields(_drop_step(kind, subresource, profile), obj, old, profile)
    entry = KINDS.get(kind)
    if subresource == "status" and entry is not None and entry.prepare_status is not None and isinstance(obj, dict):
        obj = entry.prepare_status(obj, old if isinstance(old, dict) else None, profile)
    return obj, dropped


def disabled_fields_present(kind: str, obj: dict, old: dict | None, profile: Profile, *,
                            subresource: str = "") -> list[DroppedField]:
    """What `drop_disabled_fields` would drop, without copying `obj`."""
    return strategy.disabled_fields_present(_drop_step(kind, subresource, profile), obj, old, profile)
