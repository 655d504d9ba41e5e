"""What each Kubernetes release does differently, by name: the one place where versions are compared.

Rules never ask for a version number; they ask the profile for a named behaviour
(`profile.behaviours.capacity_ratcheting`). Each behaviour is one row of the table below, with its
value per release side by side, so the differences between releases read in one place. Feature
gates stay in `profile.py`: a gate can be switched by the operator, a behaviour here cannot.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from types import MappingProxyType
from typing import Mapping

from webhook.limits import DEVICE_TAINTS_MAX_LENGTH as TAINTS, DEVICE_TAINTS_MAX_LENGTH_1_34 as TAINTS_34

# The node-allocatable resource models of ResourceSlice devices.
MAPPINGS = "nodeAllocatableResourceMappings"  # 1.36: map of resource -> {capacityKey, allocationMultiplier}
RESOURCES = "nodeAllocatableResources"  # 1.37: the reshaped struct
NO_MODEL = None  # before 1.36: devices declare nothing they take from their node (either name is an unknown field)

VERSIONS: tuple[str, ...] = ("1.34", "1.35", "1.36", "1.37")

# The API versions a release deprecates (webhook/deprecation.py words the API server's warning):
# (version, kind) -> (deprecated in, unavailable in), as k8s.io/api's zz_generated.prerelease-lifecycle.go of
# 1.34-1.37 says, for the deprecations the release has reached (IsDeprecated). Not reached by any of them:
# v1beta2 DeviceTaintRule and v1alpha3 ResourcePoolStatusRequest, deprecated in 1.39.
_BETA_KINDS = ("ResourceClaim", "ResourceClaimTemplate", "ResourceSlice", "DeviceClass")
_V1BETA1 = {("v1beta1", kind): ("1.35", "1.38") for kind in _BETA_KINDS}
_V1BETA2 = {("v1beta2", kind): ("1.36", "1.39") for kind in _BETA_KINDS}
_V1ALPHA3 = {("v1alpha3", "DeviceTaintRule"): ("1.36", "1.39")}
NONE_DEPRECATED = MappingProxyType({})
DEPRECATED_1_35 = MappingProxyType(_V1BETA1)
DEPRECATED_1_36 = MappingProxyType({**_V1BETA1, **_V1BETA2, **_V1ALPHA3})

# name: (1.34, 1.35, 1.36, 1.37)  — see the Behaviours fields for what each one means.
_TABLE: dict[str, tuple] = {
    "declarative_validation":          (False,     False,     False,     True),
    "capacity_ratcheting":             (False,     False,     False,     True),
    "stored_selectors_recompiled":     (True,      True,      True,      False),
    "valid_range_bounds":              (False,     False,     False,     True),
    "result_tolerations_validated":    (False,     False,     False,     True),
    "node_allocatable_model":          (NO_MODEL,  NO_MODEL,  MAPPINGS,  RESOURCES),
    "partition_type_attribute":        (False,     False,     False,     True),
    "skip_node_operations":            (False,     False,     False,     True),
    "derived_attributes":              (False,     False,     False,     True),
    "allocator_full_rollback":         (False,     False,     True,      True),
    "compatibility_group_skew":        (False,     False,     False,     True),
    "map_key_errors_at_key":           (True,      True,      False,     False),
    "list_type_attributes":            (False,     False,     True,      True),
    "taint_rule_effect_moves_time":    (False,     False,     True,      True),
    "allocator_sorts_by_name":         (False,     False,     True,      True),
    "all_subrequest_index_skew":       (True,      True,      False,     False),
    "stable_allocator_bare":           (True,      True,      False,     False),
    "allocator_writes_tolerations":    (False,     True,      True,      True),
    "incomplete_pools_searched":       (True,      False,     False,     False),
    "invalid_pool_stops_search":       (True,      False,     False,     False),
    "distinct_attribute_by_address":   (True,      False,     False,     False),
    "capacity_recheck_at_result_index": (True,     False,     False,     False),
    "shares_in_use_skip_counters":     (False,     True,      True,      True),
    "capacity_error_names_request":    (True,      False,     False,     False),
    "taint_prevents_by_effect":        (False,     True,      True,      True),
    "binding_features_apart":          (True,      False,     False,     False),
    "taint_rule_status":               (False,     True,      True,      True),
    "shared_devices_use_counters":     (False,     False,     True,      True),
    "pool_status_conditions_unique":   (False,     False,     True,      False),
    "pool_status_partition_views":     (False,     False,     False,     True),
    "counters_beside_devices":         (True,      False,     False,     False),
    "reduced_device_limit":            (False,     True,      True,      True),
    "max_taints_per_device":           (TAINTS_34, TAINTS,    TAINTS,    TAINTS),
    "taint_effect_none":               (False,     True,      True,      True),
    "list_size_short_circuit":         (False,     True,      True,      True),
    "empty_name_part_required":        (True,      False,     False,     False),
    "empty_attribute_required":        (True,      False,     False,     False),
    "new_cel_lists_extension":         (False,     True,      True,      True),
    "taint_rule_cel_selectors":        (True,      False,     False,     False),
    "taint_rule_no_selector_matches_all": (True,   True,      True,      False),
    "claim_owner_pod_groups":          (False,     False,     True,      True),
    "duplicate_at_key_field":          (True,      False,     False,     False),
    "search_restarts_per_device":      (True,      True,      False,     False),
    "distinct_every_device":           (False,     False,     False,     True),
    "counters_by_pool_id":             (False,     False,     False,     True),
    "allocator_gets_list_types":       (False,     False,     False,     True),
    "cel_list_values_always":          (False,     False,     False,     True),
    "cel_includes_in_lists_library":   (False,     False,     False,     True),
    "counter_slices_for_every_node":   (True,      True,      True,      False),
    "all_mode_static_capacity":        (False,     False,     False,     True),
    "distinct_attribute_dropped":      (False,     True,      True,      True),
    "update_revalidates_object":       (True,      False,     False,     False),
    "update_validates_object_meta":    (False,     True,      True,      True),
    "immutable_spec_revalidated":      (True,      False,     False,     False),
    "handwritten_errors_deduplicated": (False,     False,     False,     True),
    "class_meta_with_opts":            (False,     True,      True,      True),
    "empty_driver_name_also_invalid":  (True,      False,     False,     False),
    "claim_tolerations_never_dropped": (True,      False,     False,     False),
    "uppercase_driver_warning":        (False,     True,      True,      True),
    "conditions_declarative_form":     (False,     False,     False,     True),
    "deprecated_apis":                 (NONE_DEPRECATED, DEPRECATED_1_35, DEPRECATED_1_36, DEPRECATED_1_36),
    "union_members_validated":         (True,      False,     False,     False),
    "decoder_names_embedded_structs":  (False,     True,      True,      True),
}


@dataclass(frozen=True)
class Behaviours:
    # resource/v1's `+k8s:` declarative rules are enforced (DeclarativeValidationBeta), so their errors
    # come in addition to the hand-written ones and render at the request version's paths.
    declarative_validation: bool
    # An unchanged device capacity map is not validated again on update.
    capacity_ratcheting: bool
    # A selector stored before is compiled again (in "stored" mode) on update.
    stored_selectors_recompiled: bool
    # validRange: step > 0, int64 bounds, default-vs-min/max errors at `.default`.
    valid_range_bounds: bool
    # Allocation result tolerations are validated like request tolerations.
    result_tolerations_validated: bool
    # Which field of a device declares what it takes from its node (MAPPINGS, RESOURCES or NO_MODEL).
    node_allocatable_model: str | None
    # ResourceSlice spec.partitionTypeAttribute exists.
    partition_type_attribute: bool
    # ResourceSlice spec.skipNodeOperations and allocation results' skipNodeOperations exist.
    skip_node_operations: bool
    # Device requests' derivedAttributes exist (and their total cost is bounded).
    derived_attributes: bool
    # The allocator undoes every step of a rejected device (counters included), not only some
    # (rollbackDevice: in 1.37 and in the 1.36 patch releases, v1.36.3 included; 1.36.2 did not).
    allocator_full_rollback: bool
    # The allocator skips devices of compatibility groups when the gate is off (version skew).
    compatibility_group_skew: bool
    # validateMap reports a bad key of attributes, capacity and counters at `<map>[<key>]` (the key
    # shortened to 96 or 63 characters, as for the entry's value errors), not at the map itself.
    map_key_errors_at_key: bool
    # Device attributes may hold lists (`ints`, `bools`, `strings`, `versions`); before, those names are
    # unknown fields: never counted or validated (the API server drops them before admission).
    list_type_attributes: bool
    # A DeviceTaintRule update that changes the effect moves `spec.taint.timeAdded` to now.
    taint_rule_effect_moves_time: bool
    # GatherPools sorts pools by driver and pool name and a pool's slices by name, so names steer first-fit
    # (761fc9d4). Before: slices as listed, pools in Go map order (unspecified; the order first listed here),
    # and the experimental implementation puts slices with binding conditions after the others.
    allocator_sorts_by_name: bool
    # Two slips of the subrequest index for allocationMode All, fixed together in 1.36 ("Fix incorrect
    # behavior when using AllocationModeAll with PrioritizedList"): validateDeviceRequest checks a
    # subrequest's devices under the previous subrequest's key (requestKey.subRequestIndex is set after the
    # call), so it reuses that one's cached selector verdicts; and allocateOne seeks the next device of an
    # All subrequest under subrequest 0 (deviceIndices without subRequestIndex).
    all_subrequest_index_skew: bool
    # The `stable` implementation supports no optional feature (SupportedFeatures is empty: it runs only
    # with them all off) and writes no tolerations into results; 1.36 promoted `incubating` to it.
    stable_allocator_bare: bool
    # Allocation results carry the tolerations of their request (1.35: "DRA device taints: fix toleration of
    # NoExecute"); 1.34's allocators write none.
    allocator_writes_tolerations: bool
    # GatherPools marks a pool incomplete when this node's slices of it do not add up to its slice count
    # (no look at other nodes' slices, no obsolete check), and the search still takes devices from it
    # (only allocationMode All refuses it); 1.35 looks at every slice and skips incomplete pools.
    incomplete_pools_searched: bool
    # The search fails with "pool P is invalid: ..." when it reaches an invalid pool; 1.35 skips it and
    # says "invalid resource pools were encountered" only when nothing could be allocated.
    invalid_pool_stops_search: bool
    # distinctAttribute compares where two values are stored, not the values (matchesAttribute compares
    # the pointers; fixed in 1.35, "Fix DistinctAttributeConstraint match comparision with value"): two
    # devices never clash, only the same device picked again.
    distinct_attribute_by_address: bool
    # allocateDevice checks the consumable capacity again on the device at the position of the result
    # being sought (CmpRequestOverCapacity(request, device.slice, r.deviceIndex), v0.34.9), not on the
    # candidate: the slice's device number r.deviceIndex decides (its capacities, its shares, whether
    # it allows multiple allocations), and past the slice's end Go panics. 1.35 passes the candidate.
    capacity_recheck_at_result_index: bool
    # allocateDevice skips the counter check of a device that allows multiple allocations and has a
    # share already (allocated or being allocated): its counters were taken once (1.35, skipCounterCheck);
    # 1.34 takes them again for every share.
    shares_in_use_skip_counters: bool
    # With DRAConsumableCapacity off, a subrequest with capacity requests is refused with its request's
    # name ("claim C, request R: has capacity requests"); 1.35 names the subrequest ("subrequest S").
    capacity_error_names_request: bool
    # Only a NoSchedule or NoExecute taint not tolerated prevents allocation (taintPreventsAllocation, with
    # the effect None in 1.35); 1.34's allTaintsTolerated refuses a device with any taint not tolerated.
    taint_prevents_by_effect: bool
    # The allocator's Features hold DeviceBinding and DeviceStatus apart (one per gate), and `experimental`
    # alone supports either: DRAResourceClaimDeviceStatus alone (on by default in 1.34) picks it. 1.35
    # merged them into DeviceBindingAndStatus, set only when both gates are on.
    binding_features_apart: bool
    # DeviceTaintRule has a `status` (conditions) and a /status subresource (1.35); 1.34's v1alpha3 has neither.
    taint_rule_status: bool
    # Counters left in a pool count the devices of committed shared allocations (consumable capacity) as
    # consuming theirs; before, only fully allocated devices ("DRA: account for shared devices when
    # rebuilding counters", 1.36.2).
    shared_devices_use_counters: bool
    # ResourcePoolStatusRequest (1.36 and later) status.conditions is a declarative `listType=map`
    # (Duplicate at a repeated type's item); 1.37 demoted the tag to alpha, which is not enforced.
    pool_status_conditions_unique: bool
    # ResourcePoolStatusRequest spec.defaultPartitionTypeAttribute and pools[].partitionSummary /
    # shareableSummary exist (and are validated).
    pool_status_partition_views: bool
    # The partitionable-devices model of 1.34: `sharedCounters` and the devices that consume them in one
    # slice; limits over totals (32 shared counters, 32 consumed counters per device, 1024 per slice), a
    # consumption must name a counter set of the same slice. From 1.35 counter sets live in slices of
    # their own, with per-list limits (8 sets, 2 consumptions per device, 32 counters each).
    counters_beside_devices: bool
    # A slice holds at most 64 devices (not 128) when any device has taints or consumes counters.
    reduced_device_limit: bool
    # DeviceTaintsMaxLength: taints per ResourceSlice device.
    max_taints_per_device: int
    # The taint effect `None` exists (taints, tolerations, DeviceTaintRule).
    taint_effect_none: bool
    # A list longer than its limit is only TooMany; before, every item is validated and TooMany appended.
    list_size_short_circuit: bool
    # An empty domain or name part of a qualified name (`/`, `x/`, `/y`) is Required, not Invalid.
    empty_name_part_required: bool
    # An attribute with no value is Required "exactly one value must be specified", not Invalid.
    empty_attribute_required: bool
    # New CEL expressions may use cel-go's lists extension (it came with compatibility version 1.34;
    # a 1.34 server compiles new expressions at 1.33, stored ones with every library).
    new_cel_lists_extension: bool
    # DeviceTaintRule v1alpha3 selects by `deviceClassName` and CEL `selectors` too, has no status, and is
    # governed by DRADeviceTaints (1.35 removed both fields and added DRADeviceTaintRules and the status).
    taint_rule_cel_selectors: bool
    # The scheduler's slice tracker (applyPatches) applies a DeviceTaintRule without `deviceSelector` to
    # every device, although the API says "without a selector, no devices are matched"; 1.37's tracker
    # does as the API says (`deviceSelector == nil` -> continue).
    taint_rule_no_selector_matches_all: bool
    # resourceclaim.IsForPod knows PodGroups (v0.36): with DRAWorkloadResourceClaims a generated claim
    # owned by the pod's PodGroup is the pod's too, and its error says "Pod" (before: "pod").
    claim_owner_pod_groups: bool
    # validateSet reports a repeated key at the item's key field (`devices[1].name`,
    # `consumesCounters[1].counterSet`), not at the item (`devices[1]`).
    duplicate_at_key_field: bool
    # allocateOne looks for each further device of a request from the first pool, slice and device again
    # (allocateOne has no startLocation before 1.36), so a device
    # that allows multiple allocations can serve one request twice, and first fit takes it again.
    search_restarts_per_device: bool
    # distinctAttribute compares a device with every device the constraint holds (a list, 1.37); before,
    # with one device per request name (a map keyed by request: a request's second device replaces its
    # first, so two devices of one request never clash, nor a third with the first).
    distinct_every_device: bool
    # The allocator keys a pool's available and consumed counters by driver and pool name (PoolID); before,
    # by pool name alone, so pools of two drivers with one name share the counters computed first.
    counters_by_pool_id: bool
    # The dynamicresources plugin passes DRAListTypeAttributes to the allocator (AllocatorFeatures); 1.36
    # gives it to the CEL cache only, so its allocator compares list attributes as scalars and picks the
    # implementation as if the gate were off.
    allocator_gets_list_types: bool
    # The CEL activation holds a list attribute as a list whatever the gate (getAttributeValue); 1.36 fails
    # the evaluation on it with the gate off ("unsupported attribute value").
    cel_list_values_always: bool
    # CEL `includes` is Kubernetes' lists library's (library.IncludesOption, overload list_includes_dyn_dyn),
    # priced by the library's estimator (a traversal of the target, strings by their length) instead of
    # DRA's own (dra_includes_dyn_dyn, at most 48 comparisons).
    cel_includes_in_lists_library: bool
    # GatherPools takes a slice of counter sets as relevant for every node; 1.37 takes it only through its
    # own node selection (none: ignored), so a pool seen through its counter slice alone is not gathered, and
    # the counters of a pool with devices here come in when the pool is completed from all slices.
    counter_slices_for_every_node: bool
    # An allocationMode All request collects the devices whose capacity could hold it at all (nothing
    # consumed: "static capacity"); before, net of the shares allocated, so a device with too little left
    # was left out of "all" instead of failing the request when it is allocated.
    all_mode_static_capacity: bool
    # With DRAConsumableCapacity off the claim strategy drops a new constraint's distinctAttribute. 1.34's
    # dropDisabledDRAResourceClaimConsumableCapacityFields clears a copy (`for _, c := range`), so the field
    # stays and is validated (found by the upstream differential); 1.35 drops it by index.
    distinct_attribute_dropped: bool
    # The ResourceClaim and DeviceClass strategies' ValidateUpdate run the create validation of the new object
    # before Validate*Update (1.34: `ValidateDeviceClass(new)` + `ValidateDeviceClassUpdate(new, old)`), so the
    # spec's causes of an update come twice; 1.35 calls Validate*Update alone.
    update_revalidates_object: bool
    # ValidateResourceClaimUpdate and ValidateDeviceClassUpdate begin with ValidateObjectMeta of the new object
    # (1.35); 1.34's begin with ValidateObjectMetaUpdate.
    update_validates_object_meta: bool
    # ValidateResourceClaimUpdate and ValidateResourceClaimTemplateUpdate validate the (immutable) spec again,
    # as stored, after the immutability check (1.34); 1.35 checks immutability alone.
    immutable_spec_revalidated: bool
    # Every resource.k8s.io strategy validates declaratively with the hand-written errors in hand (1.37:
    # rest.ValidateCreate/ValidateUpdate), and FilterCoveredHandwrittenErrors' ErrorList.Filter leaves one
    # hand-written error per message (webhook.validation.commonfields).
    handwritten_errors_deduplicated: bool
    # ValidateDeviceClass checks the metadata with ValidateObjectMetaWithOpts (1.35: generateName is not checked,
    # an InternalError for one without a name); 1.34 with ValidateObjectMeta and ValidateClassName.
    class_meta_with_opts: bool
    # ValidateCSIDriverName goes on after Required for an empty name (also Invalid as a DNS subdomain); 1.35
    # returns at Required.
    empty_driver_name_also_invalid: bool
    # The claim and claim template strategies drop no request tolerations with DRADeviceTaints off (1.35's
    # resourceclaimspec does): they are validated as sent.
    claim_tolerations_never_dropped: bool
    # The ResourceSlice strategy warns about a driver name with upper case (WarningsOnCreate/Update, 1.35).
    uppercase_driver_warning: bool
    # metav1 ValidateConditions (apimachinery v0.37) reports what metav1.Condition's declarative rules say: a
    # repeated type at the item (`conditions[1]`, listType=map), an empty type or status as Required; before,
    # the Duplicate is at `conditions[1].type`, an empty type Invalid (a qualified name), an empty status
    # NotSupported. Every kind with conditions: claim status devices, DeviceTaintRule, ResourcePoolStatusRequest.
    conditions_declarative_form: bool
    # The API versions whose every request the API server warns about: (version, kind) -> (deprecated in,
    # unavailable in).
    deprecated_apis: Mapping[tuple[str, str], tuple[str, str]]
    # validateDeviceRequest validates `firstAvailable` and `exactly` both when both are set, then reports
    # "exactly one of" (1.34); 1.35 reports the union alone (1.37's declarative rules still go into both).
    union_members_validated: bool
    # Go's JSON decoder (sigs.k8s.io/json of 2025, Go 1.24's encoding/json) names the embedded struct a field is
    # promoted from in a type error's field stack (`config.DeviceConfiguration.opaque.driver`); 1.34's
    # (sigs.k8s.io/json of 2024) names the JSON fields alone (`config.opaque.driver`).
    decoder_names_embedded_structs: bool


def _build() -> Mapping[str, Behaviours]:
    names = {f.name for f in fields(Behaviours)}
    if names != set(_TABLE):
        raise AssertionError(f"behaviour table and fields differ: {sorted(names ^ set(_TABLE))}")
    return MappingProxyType({version: Behaviours(**{name: row[i] for name, row in _TABLE.items()})
                             for i, version in enumerate(VERSIONS)})


BEHAVIOURS: Mapping[str, Behaviours] = _build()
