"""The search (allocator_experimental.go): first fit over pools, slices and devices, with backtracking.

`Allocator(features, state, classes, slices, selection).allocate(node, claims)` returns one
AllocationResult per claim, None when there is no solution, and raises AllocationError when the input
makes allocation impossible. One Allocator serves many nodes (`--all-nodes`).
"""

from __future__ import annotations

from webhook.allocation import capacity as cap
from webhook.allocation import prepare
from webhook.allocation.checks import Checks
from webhook.allocation.compatibility import CompatibilityGroups
from webhook.allocation.counters import Counters
from webhook.allocation.deadline import CHECK_EVERY, NO_DEADLINE, Deadline
from webhook.allocation.derived import DerivedAttributes
from webhook.allocation.errors import (  # noqa: F401 - Candidate and AllocationError are this module's API too
    ALLOCATION_RESULTS_MAX_SIZE, AllocationError, Candidate, ResultMaxSizeExceeded, claim_ref)
from webhook.allocation.pools import GatherError, gather_pools
from webhook.allocation.requests import blocking_taint
from webhook.allocation.results import build_results



class Allocator:
    def __init__(self, features, state, classes: dict, slices: list, selection) -> None:
        self.features, self.state, self.classes, self.selection = features, state, classes, selection
        self.all_slices = slices
        self.slices_on_node: dict[str, list] = {}
        self.slices_shared: list = []
        for s in slices:
            if not s.node_name or s.shared_counters:
                self.slices_shared.append(s)
            else:
                self.slices_on_node.setdefault(s.node_name, []).append(s)
        self.devices_on_nodes = sum(len(s.devices) for group in self.slices_on_node.values() for s in group)
        self._generations: dict | None = None
        self.available_counters: dict = {}  # per pool (per slice before 1.35), computed once (as upstream)
        self.compatibility_baseline: dict = {}  # per pool, computed once (1.37)
        self.num_allocate_one = 0

    def generations(self) -> dict:
        """{(driver, pool): {generation: number of slices}} over every slice given (for explanations)."""
        if self._generations is None:
            self._generations = {}
            for s in self.all_slices:
                counts = self._generations.setdefault((s.driver, s.pool), {})
                counts[s.generation] = counts.get(s.generation, 0) + 1
        return self._generations

    def slices_for(self, node_name: str) -> list:
        return self.slices_on_node.get(node_name, []) + self.slices_shared

    def allocate(self, node: dict, claims: list, deadline: Deadline = NO_DEADLINE):
        """The AllocationResults, or None; AllocationError for input that cannot be allocated, GaveUp when
        the deadline passes first."""
        return self.start(node, claims, deadline).run()

    def start(self, node: dict, claims: list, deadline: Deadline = NO_DEADLINE) -> "_Run":
        """A run not yet started: `run()` allocates, and the run keeps what explanations need."""
        return _Run(self, node, claims, deadline)


class _Run(Checks):
    """One Allocate call (the upstream `allocator`)."""

    def __init__(self, alloc: Allocator, node: dict, claims: list, deadline: Deadline = NO_DEADLINE) -> None:
        self.a, self.features, self.node, self.claims = alloc, alloc.features, node, claims
        self.deadline = deadline
        self.request_data: dict[tuple, RequestData] = {}
        self.constraints: list[list] = [[] for _ in claims]
        self.results: list[list] = [[] for _ in claims]
        self.matches: dict = {}
        self.allocating: dict[tuple, set] = {}
        self.allocating_capacity: dict[tuple, dict] = {}
        self.pools: list = []
        self.counters = Counters(alloc)
        self.groups = CompatibilityGroups(alloc)
        self.derived = DerivedAttributes(alloc.features, deadline)
        self.steps = 0

    def run(self):
        """The results, or None; AllocationError, or GaveUp when the deadline passes (the scheduler's
        allocator checks its context at every step, and CEL every 100 iterations)."""
        self.a.selection.deadline = self.deadline
        try:
            return self._run()
        finally:
            self.a.selection.deadline = NO_DEADLINE

    def _run(self):
        self.deadline.check()
        name = ((self.node or {}).get("metadata") or {}).get("name") or ""
        try:
            slices, every = self.a.slices_for(name), self.a.all_slices
            self.pools = gather_pools(slices, self.node, self.features, every)
        except GatherError as error:
            raise AllocationError(f"gather pool information: {error}") from None
        for index, claim in enumerate(self.claims):
            prepare.prepare_claim(self, index, claim)
        # The selector verdicts of the preparation (allocationMode All) are dropped before the search, as
        # upstream resets deviceMatchesRequest here: a verdict cached under another subrequest's key
        # (all_subrequest_index_skew) affects the preparation only.
        self.matches = {}
        try:
            done = self.allocate_one((0, 0, 0, 0), False, (0, 0, 0))
        except ResultMaxSizeExceeded:
            done = False
        if not done:
            if any(p.invalid for p in self.pools) and not self.features.invalid_pool_stops_search:
                raise AllocationError("invalid resource pools were encountered")
            return None
        return build_results(self)

    # Search -------------------------------------------------------------------------------------

    def allocate_one(self, r: tuple, allocate_sub: bool, start: tuple) -> bool:
        """allocateOne; r = (claim, request, subrequest, device) indices, start = (pool, slice, device)."""
        self.a.num_allocate_one += 1
        self.steps += 1
        if not self.steps % CHECK_EVERY:
            self.deadline.check()
        claim_i, request_i, sub_i, device_i = r
        if claim_i >= len(self.claims):
            return True
        requests = ((self.claims[claim_i].get("spec") or {}).get("devices") or {}).get("requests") or []
        if request_i >= len(requests):
            try:
                return self.allocate_one((claim_i + 1, 0, 0, 0), False, (0, 0, 0))
            except ResultMaxSizeExceeded:
                return False
        key = (claim_i, request_i, sub_i)
        data = self.request_data[key]
        if not allocate_sub and data.parent is not None:
            all_exceeded = True
            s_index = 0
            while (claim_i, request_i, s_index) in self.request_data:
                try:
                    ok = self.allocate_one((claim_i, request_i, s_index, device_i), True, (0, 0, 0))
                except ResultMaxSizeExceeded:
                    s_index += 1
                    continue
                all_exceeded = False
                if ok:
                    data.selected_sub_request = s_index
                    return True
                s_index += 1
            if all_exceeded:
                raise ResultMaxSizeExceeded()
            return False
        request = data.request
        every = request.mode == "All"
        if every and not data.all_devices:
            return False
        if device_i >= data.num_devices:
            return self.allocate_one((claim_i, request_i + 1, 0, 0), False, (0, 0, 0))
        if len(self.results[claim_i]) + data.num_devices - device_i > ALLOCATION_RESULTS_MAX_SIZE:
            raise ResultMaxSizeExceeded()
        if every:
            ok, undo = self.allocate_device(r, data.all_devices[device_i], True)
            if not ok:
                return False
            following = 0 if self.features.all_subrequest_index_skew else sub_i  # upstream's slip before 1.36
            try:
                done = self.allocate_one((claim_i, request_i, following, device_i + 1), allocate_sub, (0, 0, 0))
            except BaseException:
                undo()
                raise
            if not done:
                undo()
            return done
        for p_index in range(start[0], len(self.pools)):
            pool = self.pools[p_index]
            if pool.invalid and self.features.invalid_pool_stops_search:
                raise AllocationError(f"pool {pool.pool} is invalid: {pool.invalid_reason}")
            if (pool.incomplete and not self.features.incomplete_pools_searched) or pool.invalid:
                continue
            s_start = start[1] if p_index == start[0] else 0
            for s_index in range(s_start, len(pool.slices)):
                s = pool.slices[s_index]
                d_start = start[2] if (p_index, s_index) == start[:2] else 0
                for d_index in range(d_start, len(s.devices)):
                    device = s.devices[d_index]
                    device_id = (pool.driver, pool.pool, device.get("name"))
                    if request.admin_access and claim_i in self.allocating.get(device_id, ()):
                        continue
                    if not request.admin_access and self.device_in_use(device_id):
                        continue
                    if not self.is_selectable(key, data, s, d_index):
                        continue
                    candidate = Candidate(device_id, device, s, pool)
                    if self.features.consumable_capacity and not self.capacity_fits(request, candidate,
                                                                                    claim_i=claim_i):
                        continue
                    ok, undo = self.allocate_device(r, candidate, False)
                    if not ok:
                        continue
                    following = (0, 0, 0) if self.features.search_restarts_per_device else (p_index, s_index,
                                                                                             d_index + 1)
                    try:
                        done = self.allocate_one((claim_i, request_i, sub_i, device_i + 1), allocate_sub, following)
                    except BaseException:
                        undo()
                        raise
                    if done:
                        return True
                    undo()
        return False

    def allocate_device(self, r: tuple, c: Candidate, must: bool):
        """allocateDevice: (True, undo) when the candidate is taken, (False, None) otherwise.

        1.36.3 and 1.37 roll back every step of a rejected candidate (rollbackDevice); before (1.36.2 and
        earlier), the counters of a device rejected after the counter check stayed added, and this port
        does the same without allocator_full_rollback.
        """
        claim_i = r[0]
        data = self.request_data[r[:3]]
        request = data.request
        rollback = self.features.full_rollback
        multi = self.features.consumable_capacity and bool(c.device.get("allowMultipleAllocations"))
        if not multi and request.admin_access and claim_i in self.allocating.get(c.id, ()):
            return False, None
        if not request.admin_access and self.device_in_use(c.id):
            return False, None
        if self.features.reads_node_operations and c.slice.skip_node_operations and not self.node_skips_operations():
            return False, None
        consumes = c.device.get("consumesCounters") or []
        if not self.features.partitionable_devices and consumes:
            return False, None
        skip_counters = self.features.shares_in_use_skip_counters and multi and self.capacity_in_use(c.id)
        steps: list = []  # undo functions of the steps taken so far (with full rollback)

        def reject():
            if rollback:
                for step in reversed(steps):
                    step()
            return False, None
        # With the gate off there is nothing to check: gather_pools ignored every slice with groups.
        if self.features.compatibility_group_skew and self.features.compatibility_groups and not skip_counters \
                and consumes:
            ok, restore = self.groups.check_and_consume(c)
            if not ok:
                return False, None
            steps.append(restore)
        if not skip_counters and consumes:
            if not self.counters.check_and_add(c):
                return reject()
            steps.append(lambda: self.counters.remove(c))
        base, sub = (data.parent.name, request.name) if data.parent else (request.name, "")
        by_effect = self.features.taint_prevents_by_effect
        if self.features.device_taints and blocking_taint(c.device, request, by_effect) is not None:
            return reject()  # before rollbackDevice, counters stayed added here; so they do in this port
        constraints = self.constraints[claim_i]
        lookup = self.derived.lookup(data.derived, c)
        for i, constraint in enumerate(constraints):
            try:
                added = constraint.add(base, sub, c.device, c.id[0], lookup)
            except AllocationError:
                for e in range(i):
                    constraints[e].remove(base, sub, c.device, c.id[0])
                reject()
                raise
            if not added:
                for e in range(i):
                    constraints[e].remove(base, sub, c.device, c.id[0])
                reject()
                if must:
                    raise AllocationError(f"claim {claim_ref(self.claims[claim_i])}, request {request.name}: cannot "
                                          f"add device {'/'.join(c.id)} because a claim constraint would not be "
                                          "satisfied")
                return False, None
        holders = self.allocating.setdefault(c.id, set())
        if not multi:
            holders.add(claim_i)
        consumed, share = None, False
        if self.features.consumable_capacity:
            if not self.capacity_fits(request, self.rechecked(c, r[3]), claim_i=claim_i, doing="rechecking"):
                if rollback:
                    holders.discard(claim_i)
                    for constraint in constraints:
                        constraint.remove(base, sub, c.device, c.id[0])
                return reject()
            if multi:
                consumed = cap.consumed_from_request(request.capacity_requests, c.device.get("capacity") or {},
                                                     self.features.fractional_capacity_range)
                share = True
                total = self.allocating_capacity.setdefault(c.id, {})
                for name, value in consumed.items():
                    total[name] = total.get(name, 0) + value.value
        self.results[claim_i].append({"request": request.name, "parent": data.parent.name if data.parent else "",
                                      "candidate": c, "share": share, "consumed": consumed or None,
                                      "admin": request.admin_access})
        previous = len(self.results[claim_i]) - 1

        def undo() -> None:
            for constraint in constraints:
                constraint.remove(base, sub, c.device, c.id[0])
            self.allocating[c.id].discard(claim_i)
            if multi:
                taken = self.results[claim_i][previous]["consumed"]
                if taken:
                    total = self.allocating_capacity[c.id]
                    for name, value in taken.items():
                        total[name] -= value.value
                    if all(v == 0 for v in total.values()):
                        del self.allocating_capacity[c.id]
            if rollback:
                for step in reversed(steps):
                    step()
            elif not multi and self.features.partitionable_devices and consumes:
                self.counters.remove(c)
            del self.results[claim_i][previous:]
        return True, undo

    def rechecked(self, c: Candidate, device_i: int) -> Candidate:
        """The device allocateDevice checks the capacity of again: the candidate, or (1.34) the device of
        its slice at the position of the result sought (capacity_recheck_at_result_index)."""
        if not self.features.capacity_recheck_at_result_index:
            return c
        devices = c.slice.devices
        if device_i >= len(devices):
            # Go's bounds check: the scheduler panics (and its process exits) rather than report an error.
            raise AllocationError(f"panic: runtime error: index out of range [{device_i}] with length "
                                  f"{len(devices)} (allocateDevice)")
        device = devices[device_i]
        return Candidate((c.id[0], c.id[1], device.get("name")), device, c.slice, c.pool)
