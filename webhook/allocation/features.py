"""The allocator's feature switches (structured/internal Features), from a Profile's gates."""

from __future__ import annotations

from dataclasses import dataclass

from webhook.behaviours import MAPPINGS
from webhook.cel.environment import Features as CelFeatures


@dataclass(frozen=True)
class Features:
    admin_access: bool = True
    consumable_capacity: bool = True
    device_binding_and_status: bool = True
    device_taints: bool = True
    list_type_attributes: bool = False  # the allocator's (AllocatorFeatures); the CEL cache's is cel_list_types
    cel_list_types: bool = False  # DRAListTypeAttributes as the plugin's CEL cache gets it
    cel_list_values_always: bool = False  # 1.37: list attributes are CEL lists whatever the gate
    cel_includes_in_lists_library: bool = False  # 1.37: `includes` is the lists library's (its cost)
    partitionable_devices: bool = True
    prioritized_list: bool = True
    derived_attributes: bool = False  # 1.37
    compatibility_groups: bool = False  # 1.37
    node_allocatable_resources: bool = False  # not an allocator switch: the footprint (footprint.py)
    fractional_capacity_range: bool = False  # 1.37; only for choosing the allocator here
    optional_node_operations: bool = False  # 1.37; likewise
    # Release behaviours (behaviours.py), not gates:
    full_rollback: bool = False  # a rejected device's every step is undone
    compatibility_group_skew: bool = False  # devices of compatibility groups skipped when the gate is off
    skip_node_operations: bool = False  # slices' skipNodeOperations exists
    derived_attributes_field: bool = False  # requests' derivedAttributes exists
    node_allocatable_model: str | None = MAPPINGS  # the device field the footprint reads (None: none)
    sorts_by_name: bool = True  # pools and slices in name order (else as listed)
    all_subrequest_index_skew: bool = False  # All subrequests: checked under the previous key, continued under 0
    stable_bare: bool = False  # `stable` runs only with every optional feature off, and writes no tolerations
    shared_devices_use_counters: bool = True  # committed shares consume counters when they are rebuilt
    writes_tolerations: bool = True  # results carry their request's tolerations
    incomplete_pools_searched: bool = False  # 1.34: a pool is incomplete by this node's slices; still searched
    invalid_pool_stops_search: bool = False  # 1.34: reaching an invalid pool is an error
    counters_beside_devices: bool = False  # 1.34: a device consumes counter sets of its own slice
    distinct_by_address: bool = False  # 1.34: distinctAttribute clashes only on the same device's value
    capacity_recheck_at_result_index: bool = False  # 1.34: allocateDevice rechecks slice device r.deviceIndex
    search_restarts_per_device: bool = False  # before 1.36: each device of a request is sought from the start
    distinct_every_device: bool = False  # 1.37: distinctAttribute holds every device (before: one per request)
    counters_by_pool_id: bool = False  # 1.37: counters keyed by driver and pool (before: pool name)
    counter_slices_for_every_node: bool = True  # before 1.37: a counter slice is relevant for every node
    all_mode_static_capacity: bool = False  # 1.37: All collects devices by their capacity, not what is left
    shares_in_use_skip_counters: bool = True  # a shared device's further shares take no counters
    capacity_error_names_request: bool = False  # 1.34: a subrequest's capacity error names its request
    taint_prevents_by_effect: bool = True  # only NoSchedule/NoExecute taints not tolerated prevent allocation
    binding_or_status: bool = True  # 1.34: either binding gate (not both) asks for `experimental`

    @classmethod
    def from_profile(cls, profile) -> "Features":
        on = profile.enabled
        return cls(admin_access=on("DRAAdminAccess"), consumable_capacity=on("DRAConsumableCapacity"),
                   device_binding_and_status=on("DRADeviceBindingConditions") and on("DRAResourceClaimDeviceStatus"),
                   device_taints=on("DRADeviceTaints"),
                   list_type_attributes=profile.gate("DRAListTypeAttributes")
                   and profile.behaviours.allocator_gets_list_types,
                   cel_list_types=profile.gate("DRAListTypeAttributes"),
                   cel_list_values_always=profile.behaviours.cel_list_values_always,
                   cel_includes_in_lists_library=profile.behaviours.cel_includes_in_lists_library,
                   partitionable_devices=on("DRAPartitionableDevices"), prioritized_list=on("DRAPrioritizedList"),
                   derived_attributes=profile.gate("DRADerivedAttributes"),
                   compatibility_groups=profile.gate("DRADeviceCompatibilityGroups"),
                   fractional_capacity_range=profile.gate("DRAFractionalCapacityRange"),
                   optional_node_operations=profile.gate("DRAOptionalNodeOperations"),
                   node_allocatable_resources=profile.gate("DRANodeAllocatableResources"),
                   full_rollback=profile.behaviours.allocator_full_rollback,
                   compatibility_group_skew=profile.behaviours.compatibility_group_skew,
                   skip_node_operations=profile.behaviours.skip_node_operations,
                   derived_attributes_field=profile.behaviours.derived_attributes,
                   node_allocatable_model=profile.behaviours.node_allocatable_model,
                   sorts_by_name=profile.behaviours.allocator_sorts_by_name,
                   all_subrequest_index_skew=profile.behaviours.all_subrequest_index_skew,
                   stable_bare=profile.behaviours.stable_allocator_bare,
                   shared_devices_use_counters=profile.behaviours.shared_devices_use_counters,
                   writes_tolerations=profile.behaviours.allocator_writes_tolerations,
                   incomplete_pools_searched=profile.behaviours.incomplete_pools_searched,
                   invalid_pool_stops_search=profile.behaviours.invalid_pool_stops_search,
                   counters_beside_devices=profile.behaviours.counters_beside_devices,
                   distinct_by_address=profile.behaviours.distinct_attribute_by_address,
                   capacity_recheck_at_result_index=profile.behaviours.capacity_recheck_at_result_index,
                   search_restarts_per_device=profile.behaviours.search_restarts_per_device,
                   distinct_every_device=profile.behaviours.distinct_every_device,
                   counters_by_pool_id=profile.behaviours.counters_by_pool_id,
                   counter_slices_for_every_node=profile.behaviours.counter_slices_for_every_node,
                   all_mode_static_capacity=profile.behaviours.all_mode_static_capacity,
                   shares_in_use_skip_counters=profile.behaviours.shares_in_use_skip_counters,
                   capacity_error_names_request=profile.behaviours.capacity_error_names_request,
                   taint_prevents_by_effect=profile.behaviours.taint_prevents_by_effect,
                   binding_or_status=(on("DRADeviceBindingConditions") or on("DRAResourceClaimDeviceStatus"))
                   if profile.behaviours.binding_features_apart else
                   on("DRADeviceBindingConditions") and on("DRAResourceClaimDeviceStatus"))

    @property
    def stable_only(self) -> bool:
        """Whether the scheduler picks its `stable` allocator: no feature beyond admin access, prioritized
        lists, partitionable devices and taints is on (structured.NewAllocator)."""
        return not (self.binding_or_status or self.consumable_capacity or self.list_type_attributes
                    or self.derived_attributes or self.compatibility_groups or self.fractional_capacity_range
                    or self.optional_node_operations)

    @property
    def reads_node_operations(self) -> bool:
        """Whether the implementation the scheduler picks knows slices' `skipNodeOperations` (1.37): only
        `experimental` does, picked when a feature beyond `incubating`'s (admin access, prioritized lists,
        partitionable devices, taints, binding and status, consumable capacity, fractional capacity ranges)
        is on; `stable` and `incubating` neither skip such devices nor write the field into results."""
        return self.skip_node_operations and (self.list_type_attributes or self.optional_node_operations
                                              or self.derived_attributes or self.compatibility_groups)

    @property
    def experimental(self) -> bool:
        """Whether the scheduler picks its `experimental` implementation: a feature beyond the four that
        `incubating` (1.36: `stable`) supports is on."""
        return not self.stable_only

    @property
    def bare_stable(self) -> bool:
        """Whether a release's feature-less `stable` implementation runs (stable_bare: every feature off)."""
        return self.stable_bare and self.stable_only and not (
            self.admin_access or self.prioritized_list or self.partitionable_devices or self.device_taints)

    @property
    def cel(self) -> CelFeatures:
        """The selector environment the scheduler compiles with (cel.Features)."""
        return CelFeatures(consumable_capacity=self.consumable_capacity,
                           list_type_attributes=self.cel_list_types,
                           list_values_always=self.cel_list_values_always,
                           includes_in_lists_library=self.cel_includes_in_lists_library)
