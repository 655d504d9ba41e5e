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

# The node-allocatable resource models of ResourceSlice devices.
MAPPINGS = "nodeAllocatableResourceMappings"  # 1.36: map of resource -> {capacityKey, allocationMultiplier}
RESOURCES = "nodeAllocatableResources"  # 1.37: the reshaped struct
NO_MODEL = None  # 1.35: devices declare nothing they take from their node (either name is an unknown field)

VERSIONS: tuple[str, ...] = ("1.35", "1.36", "1.37")

# name: (1.35, 1.36, 1.37)  — see the Behaviours fields for what each one means.
_TABLE: dict[str, tuple] = {
    "declarative_validation":          (False,     False,     True),
    "capacity_ratcheting":             (False,     False,     True),
    "stored_selectors_recompiled":     (True,      True,      False),
    "valid_range_bounds":              (False,     False,     True),
    "result_tolerations_validated":    (False,     False,     True),
    "node_allocatable_model":          (NO_MODEL,  MAPPINGS,  RESOURCES),
    "partition_type_attribute":        (False,     False,     True),
    "skip_node_operations":            (False,     False,     True),
    "derived_attributes":              (False,     False,     True),
    "allocator_full_rollback":         (False,     False,     True),
    "compatibility_group_skew":        (False,     False,     True),
    "map_key_errors_at_key":           (True,      False,     False),
    "list_type_attributes":            (False,     True,      True),
    "taint_rule_effect_moves_time":    (False,     True,      True),
    "allocator_ported":                (False,     True,      True),
    "pool_status_conditions_unique":   (False,     True,      False),
    "pool_status_partition_views":     (False,     False,     True),
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
    # The allocator undoes every step of a rejected device (counters included), not only some.
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
    # `allocate` runs this release's own structured allocator; False: the next release's, with this
    # release's gates (1.35: the v0.36 allocator; its gates still choose stable/incubating/experimental).
    allocator_ported: bool
    # ResourcePoolStatusRequest (1.36 and later) status.conditions is a declarative `listType=map`
    # (Duplicate at a repeated type's item); 1.37 demoted the tag to alpha, which is not enforced.
    pool_status_conditions_unique: bool
    # ResourcePoolStatusRequest spec.defaultPartitionTypeAttribute and pools[].partitionSummary /
    # shareableSummary exist (and are validated).
    pool_status_partition_views: bool


def _build() -> Mapping[str, Behaviours]:
    names = {f.name for f in fields(Behaviours)}
    if names != set(_TABLE):
        raise AssertionError(f"behaviour table and fields differ: {sorted(names ^ set(_TABLE))}")
    return MappingProxyType({version: Behaviours(**{name: row[i] for name, row in _TABLE.items()})
                             for i, version in enumerate(VERSIONS)})


BEHAVIOURS: Mapping[str, Behaviours] = _build()
