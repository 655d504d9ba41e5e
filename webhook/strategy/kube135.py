"""What the Kubernetes 1.35 registry strategies drop for disabled gates: the 1.36 steps minus a delta.

ResourceSlice: 1.35 has neither list-type attributes (DRAListTypeAttributes) nor
`nodeAllocatableResourceMappings` (DRANodeAllocatableResources): both are unknown fields there, not
gated ones, so there is nothing to drop. Claims, templates, classes and DeviceTaintRule drop what
1.36 drops (every gate involved exists in 1.35).
"""

from __future__ import annotations

from webhook.strategy import resourceslice
from webhook.strategy.dropper import Dropper


def drop_disabled_slice_fields(new: dict, old: dict | None, d: Dropper) -> None:
    resourceslice.drop_disabled_dra_device_taints_fields(new, old, d)
    resourceslice.drop_disabled_dra_partitionable_devices_fields(new, old, d)
    resourceslice.drop_disabled_dra_device_binding_conditions_fields(new, old, d)
    resourceslice.drop_disabled_dra_consumable_capacity_fields(new, old, d)
