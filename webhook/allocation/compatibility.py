"""Compatibility groups of partitionable devices (Kubernetes 1.37, DRADeviceCompatibilityGroups).

A device's `consumesCounters[].compatibilityGroups` say which other devices drawing from the same
counter set it may be allocated with. Per pool and counter set the allocator keeps a rolling
intersection (compatibility_groups.go): the first member is always admitted; a device without groups
only joins members without groups; a grouped device joins grouped members while the intersection of
all their groups and its own stays non-empty. Devices on different counter sets are never compared.
The state starts from the devices already allocated (their groups read live from the slices, like
counters) and is rolled back on backtracking.

With the gate off while groups exist (a scheduler older than the API server), every implementation of
v1.37.2 ignores a slice with any grouped device when it gathers the pools (GatherPools,
sliceUsesCompatibilityGroups), also when it counts the pool's slices, so that pool is incomplete
(pools.gather_pools).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Intersection:
    """compatibilityGroupIntersection; `groups` is only meaningful with members that declared groups."""

    has_members: bool = False
    all_empty: bool = False
    groups: frozenset = frozenset()

    def admits(self, groups: frozenset) -> bool:
        if not self.has_members:
            return True
        if not groups:
            return self.all_empty
        if self.all_empty:
            return False
        return bool(self.groups & groups)

    def add(self, groups: frozenset) -> "Intersection":
        if not self.has_members:
            return Intersection(True, not groups, frozenset(groups))
        if self.all_empty or not groups:
            return self
        return Intersection(True, False, self.groups & groups)


def group_set(groups) -> frozenset:
    """compatibilityGroupSet: null and [] both mean "no groups"."""
    return frozenset(groups or ())


def _allocated_devices(allocator, pool):
    state = allocator.state
    for s in list(pool.slices) + list(pool.other_slices):
        for device in s.devices:
            if state.is_allocated((s.driver, s.pool, device.get("name"))):
                yield device


def baseline(allocator, pool) -> dict:
    """compatibilityGroupsBaselineForPool: counter set -> the intersection of the allocated devices."""
    cache = allocator.compatibility_baseline
    key = (pool.driver, pool.pool)
    found = cache.get(key)
    if found is None:
        found = {}
        for device in _allocated_devices(allocator, pool):
            for consumption in device.get("consumesCounters") or []:
                name = consumption.get("counterSet") or ""
                found[name] = found.get(name, Intersection()).add(group_set(consumption.get("compatibilityGroups")))
        cache[key] = found
    return found


class CompatibilityGroups:
    """The running intersections of one Allocate call (consumedCompatibilityGroups)."""

    def __init__(self, allocator) -> None:
        self.allocator = allocator
        self.running: dict[tuple, dict[str, Intersection]] = {}

    def check_and_consume(self, candidate):
        """checkAndConsumeCompatibilityGroups: (True, restore) when admitted on every counter set, else
        (False, None) with nothing changed."""
        pool = candidate.pool
        running = self.running.setdefault((pool.driver, pool.pool), {})
        base = baseline(self.allocator, pool)
        saved: list = []

        def restore() -> None:
            for name, previous, existed in reversed(saved):
                if existed:
                    running[name] = previous
                else:
                    running.pop(name, None)

        for consumption in candidate.device.get("consumesCounters") or []:
            name = consumption.get("counterSet") or ""
            existed = name in running
            current = running[name] if existed else base.get(name, Intersection())
            groups = group_set(consumption.get("compatibilityGroups"))
            if not current.admits(groups):
                restore()
                return False, None
            saved.append((name, current, existed))
            running[name] = current.add(groups)
        return True, restore

    def refuses(self, candidate) -> str:
        """For explanations: why the device alone cannot join what is already allocated ("" if it can)."""
        base = baseline(self.allocator, candidate.pool)
        for consumption in candidate.device.get("consumesCounters") or []:
            name = consumption.get("counterSet") or ""
            if not base.get(name, Intersection()).admits(group_set(consumption.get("compatibilityGroups"))):
                return f"its compatibility groups on counter set {name} do not match the devices allocated there"
        return ""


def slice_uses_groups(slice_) -> bool:
    """sliceUsesCompatibilityGroups: a device of the slice declares groups on a counter consumption."""
    return any(consumption.get("compatibilityGroups") for device in slice_.devices
               for consumption in device.get("consumesCounters") or [])
