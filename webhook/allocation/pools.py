"""Pool gathering: `GatherPools` and friends (pools_experimental.go).

Out-dated slices are dropped; pools may come back incomplete (not every slice seen) or invalid
(duplicate device names, unknown counter sets). Pools are sorted by driver and pool name, slices by
name, and pools with binding conditions go last (except in `stable`, which has none of that feature), so
first-fit order is the scheduler's (before 1.36, see behaviours.allocator_sorts_by_name: as listed).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webhook.allocation.compatibility import slice_uses_groups
from webhook.allocation.nodes import NodeSelectorError, node_matches


@dataclass(eq=False)
class Slice:
    """One v1 ResourceSlice, with the fields the allocator reads."""

    name: str
    driver: str
    pool: str
    generation: int
    slice_count: int
    node_name: str
    all_nodes: bool
    node_selector: dict | None
    per_device: bool
    per_device_set: bool  # perDeviceNodeSelection given at all (even false)
    shared_counters: list
    devices: list
    source: str = ""
    skip_node_operations: tuple = ()  # 1.37 `spec.skipNodeOperations`

    @classmethod
    def from_object(cls, obj: dict, source: str = "") -> "Slice":
        spec = obj.get("spec") or {}
        pool = spec.get("pool") or {}
        return cls(name=(obj.get("metadata") or {}).get("name") or "", driver=spec.get("driver") or "",
                   pool=pool.get("name") or "", generation=int(pool.get("generation") or 0),
                   slice_count=int(pool.get("resourceSliceCount") or 0), node_name=spec.get("nodeName") or "",
                   all_nodes=bool(spec.get("allNodes")), node_selector=spec.get("nodeSelector"),
                   per_device=bool(spec.get("perDeviceNodeSelection")),
                   per_device_set=spec.get("perDeviceNodeSelection") is not None,
                   shared_counters=list(spec.get("sharedCounters") or []), devices=list(spec.get("devices") or []),
                   source=source, skip_node_operations=tuple(spec.get("skipNodeOperations") or ()))


@dataclass(eq=False)
class Pool:
    driver: str
    pool: str
    incomplete: bool = False
    invalid: bool = False
    invalid_reason: str = ""
    slices: list = field(default_factory=list)  # DeviceSlicesTargetingNode
    other_slices: list = field(default_factory=list)  # DeviceSlicesNotTargetingNode
    counter_sets: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.driver}/{self.pool}"


class GatherError(ValueError):
    pass


def slice_relevant(slice_: Slice, node: dict | None, counters_everywhere: bool = True) -> bool | None:
    """Whether the slice is for the node; None when it sets no known node selection (ignored).
    `counters_everywhere`: a slice of counter sets serves every node (from 1.35, where it holds no devices)."""
    if slice_.shared_counters and counters_everywhere:
        return True
    if slice_.node_name or slice_.all_nodes or slice_.node_selector is not None:
        try:
            return node_matches(node, slice_.node_name, slice_.all_nodes, slice_.node_selector)
        except NodeSelectorError as error:
            raise GatherError(f"failed to perform node selection for slice {slice_.name}: "
                              f"failed to parse node selector: {error}") from None
    if slice_.per_device:
        for device in slice_.devices:
            try:
                if node_matches(node, device.get("nodeName") or "", bool(device.get("allNodes")),
                                device.get("nodeSelector")):
                    return True
            except NodeSelectorError as error:
                raise GatherError(f"failed to perform node selection for device {device.get('name')} in slice "
                                  f"{slice_.name}: failed to parse node selector: {error}") from None
        return False
    return None


def gather_pools(slices_for_node: list, node: dict | None, features, all_slices: list) -> list:
    """GatherPools: the pools with devices this node can reach, in allocation order."""
    pools: dict[tuple[str, str], list] = {}
    deferred = []  # before allocator_sorts_by_name: experimental adds slices with binding conditions last
    # 1.37 with DRADeviceCompatibilityGroups off: a slice with a grouped device is ignored, which leaves its
    # pool incomplete (every implementation, sliceUsesCompatibilityGroups).
    ignore_grouped = features.compatibility_group_skew and not features.compatibility_groups
    for s in slices_for_node:
        # Without the gate a counter slice is left out; 1.34's slices hold counters beside devices and stay.
        if not features.partitionable_devices and (
                s.per_device_set or (s.shared_counters and not features.counters_beside_devices)):
            continue
        if ignore_grouped and slice_uses_groups(s):
            continue
        # counters_beside_devices (1.34): a slice with counter sets is matched to nodes like any other
        if slice_relevant(s, node, features.counter_slices_for_every_node and not features.counters_beside_devices):
            # 1.35 adds counter slices before this; 1.34's (with devices) are put last like the others
            if not features.sorts_by_name and features.experimental \
                    and (features.counters_beside_devices or not s.shared_counters) \
                    and any(d.get("bindingConditions") is not None for d in s.devices):
                deferred.append(s)
                continue
            _add_slice(pools, s)
    for s in deferred:
        _add_slice(pools, s)
    result, with_binding = [], []
    for (driver, name), members in pools.items():
        generation, count = members[0].generation, members[0].slice_count
        if features.incomplete_pools_searched:  # 1.34: this node's slices alone, the pool kept whole
            pool = _build_pool(driver, name, members, features, None)
            pool.incomplete = not complete(len(members), count)
            (with_binding if features.experimental and _has_binding_conditions(pool) else result).append(pool)
            continue
        if complete(len(members), count):
            pool = _build_pool(driver, name, members, features, None)
        else:
            obsolete, everything = _check_slices_in_pool(all_slices, driver, name, generation)
            if obsolete:
                continue
            if ignore_grouped:  # ignored slices do not count towards completeness either
                everything = [e for e in everything if not slice_uses_groups(e)]
            if not complete(len(everything), count):
                result.append(Pool(driver, name, incomplete=True))
                continue
            pool = _build_pool(driver, name, members, features, everything)
        # Only the implementations past `stable` put pools with binding conditions last.
        (with_binding if features.experimental and _has_binding_conditions(pool) else result).append(pool)
    if not features.sorts_by_name:
        return result + with_binding
    key = lambda p: (p.driver, p.pool)  # noqa: E731
    return sorted(result, key=key) + sorted(with_binding, key=key)


def complete(given: int, declared) -> bool:
    """gatherPools' rule, for `allocate` and `review` alike: a pool is complete when exactly resourceSliceCount
    slices of its newest generation exist; more slices than declared leave it as incomplete as fewer."""
    return given == declared


def incomplete_text(pool_id: str, given: int, declared, generation) -> str:
    """Why a pool is incomplete, in the words both commands print."""
    if isinstance(declared, int) and given > declared:
        return (f"pool {pool_id} is incomplete: {given} slices (generation {generation}) for a resourceSliceCount "
                f"of {declared}")
    return f"pool {pool_id} is incomplete: {given} of its {declared} slices (generation {generation})"


def _add_slice(pools: dict, s: Slice) -> None:
    key = (s.driver, s.pool)
    members = pools.get(key)
    if members is None or s.generation > members[0].generation:
        pools[key] = [s]
    elif s.generation == members[0].generation:
        members.append(s)


def _check_slices_in_pool(all_slices: list, driver: str, name: str, generation: int) -> tuple[bool, list]:
    found = []
    for s in all_slices:
        if s.driver != driver or s.pool != name:
            continue
        if s.generation == generation:
            found.append(s)
        elif s.generation > generation:
            return True, []
    return False, found


def _build_pool(driver: str, name: str, members: list, features, everything: list | None) -> Pool:
    if features.sorts_by_name:
        members = sorted(members, key=lambda s: s.name)
    if features.counters_beside_devices:  # 1.34: counters are the slice's own; a pool is invalid by names only
        problem = _duplicate_device_name(members)
        return Pool(driver, name, invalid=True, invalid_reason=problem) if problem else Pool(driver, name,
                                                                                               slices=members)
    if features.partitionable_devices:
        device_slices = [s for s in members if not s.shared_counters]
        counter_slices = [s for s in members if s.shared_counters]
    else:
        device_slices, counter_slices = members, []
    problem = _duplicate_device_name(device_slices)
    if problem:
        return Pool(driver, name, invalid=True, invalid_reason=problem)
    if not features.partitionable_devices:
        return Pool(driver, name, slices=device_slices)
    seen = {s.name for s in members}
    others = [s for s in everything or [] if s.name not in seen]
    # Counter slices come from all of the pool's slices (1.37 gathers them only through node selection).
    counter_slices = counter_slices + [s for s in others if s.shared_counters]
    others = [s for s in others if not s.shared_counters]
    counter_sets: dict = {}
    for s in counter_slices:
        for counter_set in s.shared_counters:
            if counter_set.get("name") in counter_sets:
                return Pool(driver, name, invalid=True,
                            invalid_reason=f"duplicate counter set name {counter_set.get('name')}")
            counter_sets[counter_set.get("name")] = counter_set
    problem = _check_counter_consumption(counter_sets, members)
    if problem:
        return Pool(driver, name, invalid=True, invalid_reason=problem)
    if not others:
        return Pool(driver, name, slices=device_slices, counter_sets=counter_sets)
    problem = _check_counter_consumption(counter_sets, others)
    if problem:
        return Pool(driver, name, invalid=True, invalid_reason=problem)
    return Pool(driver, name, slices=device_slices, other_slices=others, counter_sets=counter_sets)


def _duplicate_device_name(slices: list) -> str:
    names: set = set()
    for s in slices:
        for device in s.devices:
            if device.get("name") in names:
                return f"duplicate device name {device.get('name')}"
            names.add(device.get("name"))
    return ""


def _check_counter_consumption(counter_sets: dict, slices: list) -> str:
    for s in slices:
        for device in s.devices:
            for consumption in device.get("consumesCounters") or []:
                counter_set = counter_sets.get(consumption.get("counterSet"))
                if counter_set is None:
                    return f"counter set {consumption.get('counterSet')} not found"
                for counter in consumption.get("counters") or {}:
                    if counter not in (counter_set.get("counters") or {}):
                        return f"counter {counter} not found in counter set {counter_set.get('name')}"
    return ""


def _has_binding_conditions(pool: Pool) -> bool:
    return any(device.get("bindingConditions") is not None for s in pool.slices for device in s.devices)
