"""Why a request gets no device: every device of the inputs, sorted into the first reason that removes it.

The reasons follow the scheduler's checks in its order: node (slice or device node selection, pool
state), the class's selectors, the request's selectors, devices already allocated, taints, shared
counters, consumable capacity, and finally the claim's constraints. What is left is usable; when a
claim still fails, the devices were taken by other requests or no combination met the constraints.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from webhook.allocation import capacity as cap
from webhook.allocation import compatibility
from webhook.allocation.allocator import AllocationError, Candidate
from webhook.allocation.constraints import MatchAttribute, lookup_attribute
from webhook.allocation.pools import GatherError, incomplete_text, slice_relevant
from webhook.allocation.nodes import NodeSelectorError, node_matches
from webhook.allocation import taintrules
from webhook.allocation.requests import blocking_taint
from webhook.allocation.selection import SelectorError

# Reasons, in the order of the checks (and of the text output).
ON_ANOTHER_NODE = "on another node"
POOL_UNUSABLE = "pool not usable"
CLASS_SELECTOR = "class selector false"
REQUEST_SELECTOR = "request selector false"
SELECTOR_ERROR = "selector error"
FEATURE_OFF = "feature disabled"
ALLOCATED = "already allocated"
TAINTED = "tainted without a matching toleration"
COMPATIBILITY = "incompatible with the devices allocated on its counter set"
COUNTERS = "counters exhausted"
CAPACITY = "capacity or policy"
CONSTRAINT = "constraint conflict with another request"
REASONS = (ON_ANOTHER_NODE, POOL_UNUSABLE, CLASS_SELECTOR, REQUEST_SELECTOR, SELECTOR_ERROR, FEATURE_OFF, ALLOCATED,
           TAINTED, COMPATIBILITY, COUNTERS, CAPACITY, CONSTRAINT)
EXAMPLES = 3  # devices named per reason


@dataclass
class RequestExplanation:
    request: str
    device_class: str
    wanted: str
    considered: int = 0
    usable: int = 0
    removed: dict = field(default_factory=dict)  # reason -> [count, [(device, why)]]
    note: str = ""

    def remove(self, reason: str, device: str, why: str) -> None:
        entry = self.removed.setdefault(reason, [0, []])
        entry[0] += 1
        if len(entry[1]) < EXAMPLES:
            entry[1].append((device, why))

    def one_line(self, reason: str | None = None) -> str:
        """`needs 3, 2 usable of 5 devices: class selector false: 3 (e.g. drv/pool/dev: why)`: the first reason
        that removed devices (or `reason`, when it removed some), with one example, as a warning or a log line
        can carry it."""
        head = f"needs {self.wanted if self.wanted != 'All' else 'all matching'}, {self.usable} usable of " \
               f"{self.considered} device{'s' if self.considered != 1 else ''}"
        for reason in ([reason] if reason in self.removed else []) + list(REASONS):
            if reason in self.removed:
                count, examples = self.removed[reason]
                example = f" (e.g. {examples[0][0]}: {examples[0][1]})" if examples else ""
                return f"{head}: {reason}: {count}{example}"
        return head

    def to_dict(self) -> dict:
        removed = [{"reason": r, "count": self.removed[r][0],
                    "examples": [{"device": d, "why": w} for d, w in self.removed[r][1]]}
                   for r in REASONS if r in self.removed]
        out = {"request": self.request, "deviceClassName": self.device_class, "wanted": self.wanted,
               "considered": self.considered, "usable": self.usable, "removed": removed}
        if self.note:
            out["note"] = self.note
        return out


def _selector_verdict(run, key, device: dict, driver: str, selectors: list, owner: str):
    """(reason, why) for the first selector that is false or fails, else ("", "")."""
    return selector_verdict(run.a.selection, device, driver, selectors, owner)


def selector_verdict(selection, device: dict, driver: str, selectors: list, owner: str):
    """(None, why) for the first selector that is false, (SELECTOR_ERROR, why) for one that fails, else
    ("", ""): the explanation of one device against a list of selectors (admission warnings use it too)."""
    for i, selector in enumerate(selectors):
        expression = ((selector or {}).get("cel") or {}).get("expression") or ""
        try:
            if not selection.matches(expression, driver, device):
                return None, f"{owner} selectors[{i}] is false: {expression}"
        except SelectorError as error:
            return SELECTOR_ERROR, f"{owner} selectors[{i}]: {error.kind}: {error.detail}"
    return "", ""


def _node_reason(run, s, pools: dict) -> str:
    """Why the devices of slice `s` are out of reach of the node ("" when they are not)."""
    node_name = ((run.node or {}).get("metadata") or {}).get("name") or ""
    if s.node_name and s.node_name != node_name and not s.shared_counters:
        return f"slice {s.name} is for node {s.node_name}"
    if not run.features.partitionable_devices and (
            s.per_device_set or (s.shared_counters and not run.features.counters_beside_devices)):
        return f"slice {s.name} needs DRAPartitionableDevices"
    try:
        relevant = slice_relevant(s, run.node, run.features.counter_slices_for_every_node
                                  and not run.features.counters_beside_devices)
    except GatherError as error:
        return str(error)
    if relevant is None:
        return f"slice {s.name} sets no node selection this version knows"
    if not relevant:
        return f"the node selector of slice {s.name} does not match node {node_name}"
    return ""


def _count_other_nodes(run, node_name: str, out: RequestExplanation) -> None:
    """Devices of slices bound to other nodes, counted without looking at each (--all-nodes stays linear)."""
    local = run.a.slices_on_node
    total = run.a.devices_on_nodes - sum(len(s.devices) for s in local.get(node_name, []))
    if not total:
        return
    out.considered += total
    entry = out.removed.setdefault(ON_ANOTHER_NODE, [0, []])
    entry[0] += total
    for name, slices in local.items():
        if name == node_name:
            continue
        for s in slices:
            for device in s.devices:
                if len(entry[1]) >= EXAMPLES:
                    return
                entry[1].append(("/".join((s.driver, s.pool, device.get("name") or "")),
                                 f"slice {s.name} is for node {s.node_name}"))


def _pool_reason(run, s, pools: dict) -> str:
    pool = pools.get((s.driver, s.pool))
    generations = run.a.generations()[(s.driver, s.pool)]
    newest = max(generations)
    if s.generation < newest:
        return f"slice {s.name} is of generation {s.generation}, pool {s.driver}/{s.pool} is at generation {newest}"
    if pool is None:
        return f"pool {s.driver}/{s.pool} is being replaced by a newer generation"
    if pool.incomplete:
        skew = run.features.compatibility_group_skew and not run.features.compatibility_groups
        grouped = [g.name for g in run.a.all_slices if (g.driver, g.pool) == (s.driver, s.pool)
                   and g.generation == s.generation and compatibility.slice_uses_groups(g)] if skew else []
        if grouped:
            return (f"pool {pool.id} is incomplete: the scheduler ignores slice {grouped[0]}, whose devices declare "
                    "compatibility groups, with DRADeviceCompatibilityGroups off")
        given = generations[s.generation]
        return f"{incomplete_text(pool.id, given, s.slice_count, s.generation)} are published"
    if pool.invalid:
        return f"pool {pool.id} is invalid: {pool.invalid_reason}"
    if s not in pool.slices:
        return f"slice {s.name} is not part of the pool's current generation"
    return ""


def explain_request(run, key: tuple, data, claim_allocated: bool) -> RequestExplanation:
    request = data.request
    wanted = "All" if request.mode == "All" else str(request.count)
    out = RequestExplanation(data.name, request.class_name, wanted)
    pools = {(p.driver, p.pool): p for p in run.pools}
    class_name = ((data.device_class or {}).get("metadata") or {}).get("name") or request.class_name
    class_selectors = ((data.device_class or {}).get("spec") or {}).get("selectors") or []
    claim_constraints = run.constraints[key[0]]
    base, sub = (data.parent.name, request.name) if data.parent else (request.name, "")
    node_name = ((run.node or {}).get("metadata") or {}).get("name") or ""
    _count_other_nodes(run, node_name, out)
    for s in run.a.slices_for(node_name):
        pool_reason = None  # the same for every device of the slice: worked out once, when first asked
        for device in s.devices:
            device_id = (s.driver, s.pool, device.get("name"))
            label = "/".join(device_id)
            out.considered += 1
            reason = _node_reason(run, s, pools)
            if reason:
                out.remove(ON_ANOTHER_NODE, label, reason)
                continue
            if s.per_device:
                try:
                    here = node_matches(run.node, device.get("nodeName") or "", bool(device.get("allNodes")),
                                        device.get("nodeSelector"))
                except NodeSelectorError as error:
                    here, reason = False, str(error)
                if not here:
                    out.remove(ON_ANOTHER_NODE, label, reason or "the device's node selection does not match")
                    continue
            if pool_reason is None:
                pool_reason = _pool_reason(run, s, pools)
            if pool_reason:
                out.remove(POOL_UNUSABLE, label, pool_reason)
                continue
            if not run.features.device_binding_and_status and device.get("bindingConditions"):
                out.remove(FEATURE_OFF, label, "has binding conditions, DRADeviceBindingConditions is off")
                continue
            if run.features.reads_node_operations and s.skip_node_operations and not run.node_skips_operations():
                out.remove(FEATURE_OFF, label, "its slice sets skipNodeOperations, which needs "
                                               "DRAOptionalNodeOperations and a Node declaring it")
                continue
            failed, why = _selector_verdict(run, key, device, s.driver, class_selectors, f"class {class_name}")
            if why:
                out.remove(failed or CLASS_SELECTOR, label, why)
                continue
            failed, why = _selector_verdict(run, key, device, s.driver, request.selectors, "request")
            if why:
                out.remove(failed or REQUEST_SELECTOR, label, why)
                continue
            if not request.admin_access and device_id in run.a.state.devices:
                owner = run.a.state.owners.get(device_id)
                out.remove(ALLOCATED, label, f"allocated to claim {owner}" if owner else "allocated")
                continue
            if run.features.device_taints:
                taint = blocking_taint(device, request, run.features.taint_prevents_by_effect)
                if taint is not None:
                    out.remove(TAINTED, label, f"{taintrules.describe(taint)} is not tolerated")
                    continue
            candidate = Candidate(device_id, device, s, pools[(s.driver, s.pool)])
            if device.get("consumesCounters"):
                if not run.features.partitionable_devices:
                    out.remove(FEATURE_OFF, label, "consumes counters, DRAPartitionableDevices is off")
                    continue
                if run.features.compatibility_group_skew and run.features.compatibility_groups:
                    why = run.groups.refuses(candidate)
                    if why:
                        out.remove(COMPATIBILITY, label, why)
                        continue
                exceeded = run.counters.exceeded(candidate)
                if exceeded:
                    out.remove(COUNTERS, label, exceeded)
                    continue
            if run.features.consumable_capacity:
                why = _capacity_problem(run, request, candidate)
                if why:
                    out.remove(CAPACITY, label, why)
                    continue
            try:
                why = _constraint_problem(claim_constraints, base, sub, device, s.driver,
                                          run.derived.lookup(data.derived, candidate))
            except AllocationError as error:
                why = str(error)
            if why:
                out.remove(CONSTRAINT, label, why)
                continue
            out.usable += 1
    if not claim_allocated and out.usable:
        out.note = _note(out, data, claim_constraints)
        if run.features.consumable_capacity and run.features.capacity_recheck_at_result_index:
            out.note += ("; this allocator checks the capacity again on the device at the result's position in "
                         "the candidate's slice (allocateDevice, r.deviceIndex), which may refuse a device that fits")
    return out


def _capacity_problem(run, request, c) -> str:
    capacity = c.device.get("capacity") or {}
    requests = request.capacity_requests or {}
    missing = [name for name in requests if name not in capacity]
    if missing:
        return f"requests capacity {', '.join(missing)}, which the device does not define"
    consumed = run.a.state.capacity.get(c.id, {})
    for name, value in capacity.items():
        fractional = run.features.fractional_capacity_range
        try:
            want = cap.calculate_consumed_capacity(cap.qty(requests[name]) if name in requests else None, value,
                                                   fractional, name)
        except cap.CapacityArithmeticError as error:
            return str(error)
        if cap.violates_policy(want, value.get("requestPolicy"), fractional):
            return f"{name}: {want} is not allowed by the device's request policy"
        used = consumed.get(name, Decimal(0))  # a Decimal: nothing in use yet is "0" in the text too
        if used + want.value > cap.qty(value.get("value", "0")).value:
            return f"{name}: needs {want}, {value.get('value')} total with {_q(used)} in use"
    return ""


def _q(value) -> str:
    return cap.text(value)


def _constraint_problem(constraints: list, base: str, sub: str, device: dict, driver: str,
                        lookup=lookup_attribute) -> str:
    for constraint in constraints:
        if constraint.applies(base, sub) and lookup(device, driver, constraint.attribute) is None:
            return f"has no attribute {constraint.attribute}, which {constraint.describe()} needs"
    return ""


def _note(out: RequestExplanation, data, constraints: list) -> str:
    if out.wanted != "All" and out.usable < int(out.wanted):
        return f"needs {out.wanted}, only {out.usable} usable"
    if any(isinstance(c, MatchAttribute) or c.kind == "distinctAttribute" for c in constraints):
        names = "; ".join(c.describe() for c in constraints)
        return f"enough usable devices, but no combination satisfies the claim's constraints ({names}) " \
               "together with the other requests"
    return "enough usable devices, but the other requests and claims being allocated take them"
