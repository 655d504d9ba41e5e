"""THE kinds registry: what dra-webhook knows about each resource.k8s.io kind, in one table.

Per kind: whether it is namespaced, its wire model, the API versions each supported Kubernetes
version serves and those it no longer serves but that we still understand (their table is
webhook.served, which the profile reads too), and the rules for create, update and the status
subresource. A later Kubernetes version is the earlier entry plus a delta. Nothing else in the code
keeps a per-kind table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Callable, Mapping

from webhook.field import ErrorList
from webhook.mutation._walk import Patch, copy_json
from webhook.profile import DEFAULT, Profile
from webhook.served import RETIRED_VERSIONS, SERVED_VERSIONS, ApiVersion, Retired, every_release
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

CreateRule = Callable[[dict, Options], ErrorList]
UpdateRule = Callable[[dict, dict, Options], ErrorList]
# What the registry strategy adds to validation (namespace checks, warnings): (errors, warnings).
StrategyChecks = Callable[[dict, "dict | None", Options], tuple[ErrorList, list[str]]]

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



KINDS: dict[str, Kind] = {
    "ResourceSlice": Kind(
        name="ResourceSlice", plural="resourceslices", namespaced=False,
        model={"1.34": f"{_API}.kube135.ResourceSlice",
               "1.35": f"{_API}.kube135.ResourceSlice", "1.36": f"{_API}.resourceslice.ResourceSlice",
               "1.37": f"{_API}.kube137.ResourceSlice"},
        served=SERVED_VERSIONS["ResourceSlice"],
        retired=RETIRED_VERSIONS["ResourceSlice"],
        create=resourceslice.validate_resource_slice,
        update=resourceslice.validate_resource_slice_update,
        strategy_checks=resourceslice.resource_slice_strategy_checks,
        drop_disabled={"1.34": strategy_1_35.drop_disabled_slice_fields,
                       "1.35": strategy_1_35.drop_disabled_slice_fields, "1.36": slice_strategy.drop_disabled_fields,
                       "1.37": strategy_1_37.drop_disabled_slice_fields},
    ),
    "ResourceClaim": Kind(
        name="ResourceClaim", plural="resourceclaims", namespaced=True,
        model={**every_release(f"{_API}.resourceclaim.ResourceClaim"), "1.37": f"{_API}.kube137.ResourceClaim"},
        served=SERVED_VERSIONS["ResourceClaim"],
        retired=RETIRED_VERSIONS["ResourceClaim"],
        create=resourceclaim.validate_resource_claim,
        update=_revalidating(resourceclaim.validate_resource_claim, resourceclaim.validate_resource_claim_update),
        status_update=resourceclaim.validate_resource_claim_status_update,
        strategy_checks=resourceclaim.resource_claim_strategy_checks,
        drop_disabled={**every_release(claim_strategy.drop_disabled_spec_fields),
                       "1.37": strategy_1_37.drop_disabled_claim_fields},
        drop_disabled_status={**every_release(claim_strategy.drop_disabled_status_fields),
                              "1.37": strategy_1_37.drop_disabled_claim_status_fields},
        prepare_status=claim_strategy.drop_deallocated_status_devices,
    ),
    "ResourceClaimTemplate": Kind(
        name="ResourceClaimTemplate", plural="resourceclaimtemplates", namespaced=True,
        model={**every_release(f"{_API}.resourceclaimtemplate.ResourceClaimTemplate"),
               "1.37": f"{_API}.kube137.ResourceClaimTemplate"},
        served=SERVED_VERSIONS["ResourceClaimTemplate"],
        retired=RETIRED_VERSIONS["ResourceClaimTemplate"],
        create=resourceclaimtemplate.validate_resource_claim_template,
        update=resourceclaimtemplate.validate_resource_claim_template_update,
        strategy_checks=resourceclaimtemplate.resource_claim_template_strategy_checks,
        drop_disabled={**every_release(template_strategy.drop_disabled_fields),
                       "1.37": strategy_1_37.drop_disabled_template_fields},
    ),
    "DeviceClass": Kind(
        name="DeviceClass", plural="deviceclasses", namespaced=False,
        model=every_release(f"{_API}.deviceclass.DeviceClass"),
        served=SERVED_VERSIONS["DeviceClass"],
        retired=RETIRED_VERSIONS["DeviceClass"],
        create=deviceclass.validate_device_class,
        update=_revalidating(deviceclass.validate_device_class, deviceclass.validate_device_class_update),
        drop_disabled=every_release(class_strategy.drop_disabled_fields),
    ),
    "DeviceTaintRule": Kind(
        name="DeviceTaintRule", plural="devicetaintrules", namespaced=False,
        model={**every_release(f"{_API}.devicetaintrule.DeviceTaintRule"), "1.34": f"{_API}.kube134.DeviceTaintRule"},
        served=SERVED_VERSIONS["DeviceTaintRule"],
        create=devicetaintrule.validate_device_taint_rule,
        update=devicetaintrule.validate_device_taint_rule_update,
        status_update=devicetaintrule.validate_device_taint_rule_status_update,
        status_behaviour="taint_rule_status",
        drop_disabled=every_release(taint_rule_strategy.drop_disabled_fields),
        drop_disabled_status=every_release(taint_rule_strategy.drop_disabled_fields),
    ),
    "ResourcePoolStatusRequest": Kind(
        name="ResourcePoolStatusRequest", plural="resourcepoolstatusrequests", namespaced=False,
        # 1.37 adds the partition and shareable views (and the request's default partition attribute).
        model={"1.36": f"{_API}.resourcepoolstatusrequest.ResourcePoolStatusRequest",
               "1.37": f"{_API}.kube137.ResourcePoolStatusRequest"},
        served=SERVED_VERSIONS["ResourcePoolStatusRequest"],
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
