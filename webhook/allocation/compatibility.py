"""Compatibility groups of partitionable devices (Kubernetes 1.37, DRADeviceCompatibilityGroups).

A device's `consumesCounters[].compatibilityGroups` say which other devices drawing from the same
counter set it may be allocated with. Per pool and counter set the allocator keeps a rolling
intersection (compatibility_groups.go): the first member is always admitted; a device without groups
only joins members without groups; a grouped device joins grouped members while the intersection of
all their groups and its own stays non-empty. Devices on different counter sets are never compared.
The state starts from the devices already allocated (their groups read live from the slices, like
counters) and is rolled back on backtracking.

With the gate off while groups exist (a scheduler older than the API server), a device that declares
groups is never allocated, nor is any device on a counter set where an allocated device declares them
(skipForDisabledCompatibilityGroups, the incubating and experimental allocators). When the scheduler runs
its stable allocator (no beta or alpha allocator feature on), a slice with any grouped device is ignored
altogether, so its pool is incomplete (slicesWithoutCompatibilityGroups).
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


def grouped_counter_sets(allocator, pool) -> set:
    """groupedCounterSetsForPool: counter sets where an allocated device declares groups."""
    cache = allocator.grouped_counter_sets
    key = (pool.driver, pool.pool)
    found = cache.get(key)
    if found is None:
        found = {consumption.get("counterSet") or "" for device in _allocated_devices(allocator, pool)
                 for consumption in device.get("consumesCounters") or [] if consumption.get("compatibilityGroups")}
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


def skip_when_disabled(allocator, candidate) -> str:
    """skipForDisabledCompatibilityGroups: why the device is skipped with the gate off ("" if it is not)."""
    grouped = grouped_counter_sets(allocator, candidate.pool)
    for consumption in candidate.device.get("consumesCounters") or []:
        name = consumption.get("counterSet") or ""
        if consumption.get("compatibilityGroups"):
            return (f"it declares compatibility groups on counter set {name}, which the scheduler ignores with "
                    "DRADeviceCompatibilityGroups off")
        if name in grouped:
            return (f"an allocated device declares compatibility groups on counter set {name}, which the scheduler "
                    "cannot check with DRADeviceCompatibilityGroups off")
    return ""


def slice_uses_groups(slice_) -> bool:
    """sliceUsesCompatibilityGroups."""
    return any(consumption.get("compatibilityGroups") for device in slice_.devices
               for consumption in device.get("consumesCounters") or [])


def slices_without_groups(slices: list) -> list:
    """slicesWithoutCompatibilityGroups (stable allocator, gate off)."""
    return [s for s in slices if not slice_uses_groups(s)]
