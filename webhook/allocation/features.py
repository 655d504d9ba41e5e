"""The allocator's feature switches (structured/internal Features), from a Profile's gates."""

from __future__ import annotations

from dataclasses import dataclass

from webhook.cel.environment import Features as CelFeatures


@dataclass(frozen=True)
class Features:
    admin_access: bool = True
    consumable_capacity: bool = True
    device_binding_and_status: bool = True
    device_taints: bool = True
    list_type_attributes: bool = False
    partitionable_devices: bool = True
    prioritized_list: bool = True
    node_allocatable_resources: bool = False  # not an allocator switch: the footprint (footprint.py)

    @classmethod
    def from_profile(cls, profile) -> "Features":
        on = profile.enabled
        return cls(admin_access=on("DRAAdminAccess"), consumable_capacity=on("DRAConsumableCapacity"),
                   device_binding_and_status=on("DRADeviceBindingConditions") and on("DRAResourceClaimDeviceStatus"),
                   device_taints=on("DRADeviceTaints"), list_type_attributes=on("DRAListTypeAttributes"),
                   partitionable_devices=on("DRAPartitionableDevices"), prioritized_list=on("DRAPrioritizedList"),
                   node_allocatable_resources=on("DRANodeAllocatableResources"))

    @property
    def cel(self) -> CelFeatures:
        """The selector environment the scheduler compiles with (cel.Features)."""
        return CelFeatures(consumable_capacity=self.consumable_capacity,
                           list_type_attributes=self.list_type_attributes)
