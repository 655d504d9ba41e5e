"""Allocated state: what claims already in use reserve, gathered as the scheduler does.

A result with `shareID` is a shared allocation and adds its `consumedCapacity` to the device's
aggregate; an adminAccess result reserves nothing; any other result makes the device allocated.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from webhook.allocation.capacity import qty


@dataclass
class AllocatedState:
    devices: set = field(default_factory=set)  # {(driver, pool, device)}
    shared: set = field(default_factory=set)  # {(driver, pool, device, shareID)}
    capacity: dict = field(default_factory=dict)  # {(driver, pool, device): {name: Decimal}}
    owners: dict = field(default_factory=dict)  # {(driver, pool, device): "namespace/name"} for explanations

    def is_allocated(self, device_id: tuple) -> bool:
        """IsDeviceAllocated: fully allocated, or partly through shares."""
        return device_id in self.devices or device_id in self.capacity or \
            any(s[:3] == device_id for s in self.shared)


def gather(claims: list, consumable_capacity: bool = True) -> AllocatedState:
    """The allocated state of claims with `status.allocation` (v1 objects); shares count as such only
    with DRAConsumableCapacity on, as in the scheduler."""
    state = AllocatedState()
    for claim in claims:
        meta = claim.get("metadata") or {}
        owner = f"{meta.get('namespace') or 'default'}/{meta.get('name') or ''}"
        allocation = (claim.get("status") or {}).get("allocation") or {}
        for result in (allocation.get("devices") or {}).get("results") or []:
            if result.get("adminAccess"):
                continue
            device_id = (result.get("driver") or "", result.get("pool") or "", result.get("device") or "")
            state.owners.setdefault(device_id, owner)
            if consumable_capacity and result.get("shareID"):
                state.shared.add(device_id + (result["shareID"],))
                consumed = result.get("consumedCapacity") or {}
                if consumed:
                    total = state.capacity.setdefault(device_id, {})
                    for name, value in consumed.items():
                        total[name] = total.get(name, Decimal(0)) + qty(value).value
            else:
                state.devices.add(device_id)
    return state
