"""What an allocated claim takes from the node under Kubernetes 1.37 (`nodeAllocatableResources`).

1.37 reshaped the 1.36 mappings into `{resource: {mapping: {capacityKey, capacityMultiplier,
deviceMultiplier}, overhead: {perPod, perContainer}}}` and dropped the default multiplier. The scheduler
(dynamicresources buildNodeAllocatableDRAInfo) sums, per claim, over its device results:
- mapping with `capacityKey`: the result's `consumedCapacity[capacityKey]` (that exact key) times
  `capacityMultiplier` when set; a key the result does not consume adds nothing; a result without
  consumedCapacity (a device that does not allow multiple allocations) fails the pod's scheduling;
- mapping with `deviceMultiplier`: that amount per device result;
- overhead: `perPod` and `perContainer`, each summed over the device results.
A pod then pays the mappings and perPod once, and perContainer once per container that references the
claim (component-helpers resource.PodRequests). Pods and containers are counted in the inputs' Pods
(one pod when none uses the claim); only a claim without mapped devices may be shared by several pods
(validateNodeAllocatableDRAClaimSharing), each paying its perPod.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from webhook.allocation import noderesources
from webhook.allocation.capacity import qty
from webhook.allocation.noderesources import Footprint, add, claim_entry_names, find_device
from webhook.quantity import Quantity

FIELD = "nodeAllocatableResources"


def resources(device: dict) -> dict:
    value = device.get(FIELD)
    return value if isinstance(value, dict) else {}


def _times(amount: Quantity, factor: Decimal) -> Quantity:
    return amount if factor == 1 else Quantity(amount.value * factor, amount.format, False)


@dataclass
class ClaimFootprint(Footprint):
    per_container: Footprint = field(default_factory=Footprint)  # perContainer, for each referencing container
    containers: int = 0  # containers of the inputs' Pods that reference the claim
    mapped: bool = False  # a device result has a mapping (the claim cannot be shared by pods)

    def extra(self) -> dict:
        if not self.per_container.amounts:
            return {}
        return {"nodeAllocatablePerContainer": self.per_container.to_dict(),
                "nodeAllocatableContainers": self.containers}


def claim_footprint(allocation: dict, slices: list, node: dict, containers: int = 0, pods: int = 1) -> ClaimFootprint:
    out = ClaimFootprint(containers=containers)
    per_pod = Footprint()
    for result in (allocation.get("devices") or {}).get("results") or []:
        device = find_device(slices, result, node)
        if device is None:
            continue
        for name in sorted(resources(device)):
            entry = resources(device)[name] or {}
            mapping, overhead = entry.get("mapping"), entry.get("overhead")
            if isinstance(mapping, dict):
                out.mapped = True
                _add_mapping(out, name, mapping, result)
            if isinstance(overhead, dict):
                if overhead.get("perPod") is not None:
                    per_pod.add(name, qty(overhead["perPod"]))
                if overhead.get("perContainer") is not None:
                    out.per_container.add(name, qty(overhead["perContainer"]))
    for name, amount in per_pod.amounts.items():
        out.add(name, _times(amount, Decimal(max(pods, 1))))
    for name, amount in out.per_container.amounts.items():
        if containers:
            out.add(name, _times(amount, Decimal(containers)))
    return out


def _add_mapping(out: Footprint, name: str, mapping: dict, result: dict) -> None:
    """addDeviceMapping."""
    key = mapping.get("capacityKey")
    if key:
        consumed = result.get("consumedCapacity")
        if consumed is None:
            out.problems.append(f"device {result.get('device')}: capacityKey {key} is set for {name}, but the "
                                "allocation consumes no capacity (the device does not allow multiple allocations); "
                                "the scheduler fails the pod")
            return
        if key not in consumed:
            return  # that capacity is not consumed: the mapping does not apply
        multiplier = mapping.get("capacityMultiplier")
        out.add(name, _times(qty(consumed[key]), qty(multiplier).value if multiplier is not None else Decimal(1)))
        return
    if mapping.get("deviceMultiplier") is not None:
        out.add(name, qty(mapping["deviceMultiplier"]))


def claim_status(allocation: dict, slices: list, node: dict, claim_name: str, containers: list) -> dict | None:
    """buildNodeAllocatableDRAInfo: the claim's NodeAllocatableResourceClaimStatus (per resource the mapped
    amount, the perPod and perContainer overheads; the containers that reference it), None when no device
    result maps or adds anything."""
    mapped, per_pod, per_container = Footprint(), Footprint(), Footprint()
    for result in (allocation.get("devices") or {}).get("results") or []:
        device = find_device(slices, result, node)
        for name in sorted(resources(device or {})):
            entry = resources(device)[name] or {}
            mapping, overhead = entry.get("mapping"), entry.get("overhead")
            if isinstance(mapping, dict):
                _add_mapping(mapped, name, mapping, result)
            if isinstance(overhead, dict):
                if overhead.get("perPod") is not None:
                    per_pod.add(name, qty(overhead["perPod"]))
                if overhead.get("perContainer") is not None:
                    per_container.add(name, qty(overhead["perContainer"]))
    if not (mapped.amounts or per_pod.amounts or per_container.amounts):
        return None
    overhead = [{"name": name, **({"perPod": str(per_pod.amounts[name])} if name in per_pod.amounts else {}),
                 **({"perContainer": str(per_container.amounts[name])} if name in per_container.amounts else {})}
                for name in sorted(set(per_pod.amounts) | set(per_container.amounts))]
    return {"resourceClaimName": claim_name, "containers": list(containers),
            "mapping": [{"name": name, "quantity": str(amount)} for name, amount in sorted(mapped.amounts.items())],
            "overhead": overhead}


def containers_using(pod: dict, claim_name: str, template: bool) -> list:
    """The names of the Pod's containers (init containers first) that reference the claim, once per
    reference (buildNodeAllocatableDRAInfo's Containers)."""
    spec = pod.get("spec") or {}
    names = claim_entry_names(pod, claim_name, template)
    return [container.get("name") for container in (spec.get("initContainers") or []) + (spec.get("containers") or [])
            for c in (container.get("resources") or {}).get("claims") or [] if c.get("name") in names]


def has_resources(allocations: list, slices: list, node: dict) -> bool:
    return any(resources(find_device(slices, r, node) or {}) for a in allocations if a
               for r in (a.get("devices") or {}).get("results") or [])


def users(pods: list, namespace: str, claim_name: str, template: bool) -> list:
    """[(pod name, containers referencing the claim)] for the Pods that use the claim (for a template:
    whose claims it creates); containers are init and regular ones."""
    out = []
    for pod in pods:
        meta = pod.get("metadata") or {}
        if (meta.get("namespace") or "default") != (namespace or "default"):
            continue
        spec = pod.get("spec") or {}
        names = claim_entry_names(pod, claim_name, template)
        if names:
            out.append((meta.get("name") or "", sum(
                1 for container in (spec.get("initContainers") or []) + (spec.get("containers") or [])
                for c in (container.get("resources") or {}).get("claims") or [] if c.get("name") in names)))
    return out


def _dra(pod: dict) -> dict:
    """addDRANodeAllocatableClaimResources (component-helpers at 1.37): every amount of the claim statuses
    counts for the pod's lifetime, perContainer once per container the status names (init containers and
    sidecars too: upstream leaves their peak to a TODO)."""
    fixed: dict = {}
    for status in (pod.get("status") or {}).get("nodeAllocatableResourceClaimStatuses") or []:
        for mapping in status.get("mapping") or []:
            if mapping.get("quantity") is not None:
                add(fixed, {mapping.get("name"): qty(mapping["quantity"]).value})
        users = len(status.get("containers") or [])
        for overhead in status.get("overhead") or []:
            if overhead.get("perPod") is not None:
                add(fixed, {overhead.get("name"): qty(overhead["perPod"]).value})
            if overhead.get("perContainer") is not None and users:
                add(fixed, {overhead.get("name"): qty(overhead["perContainer"]).value * users})
    return fixed


def pod_requests(pod: dict) -> dict:
    """noderesources.pod_requests with 1.37's claim statuses (`_dra`)."""
    return noderesources.pod_requests(pod, _dra)


def container_dra_allocations(pod: dict, container: str) -> dict:
    """GetContainerDRAAllocations: every amount (mapping, perPod, perContainer) of the claim statuses that
    name the container."""
    out: dict = {}
    for status in (pod.get("status") or {}).get("nodeAllocatableResourceClaimStatuses") or []:
        if container not in (status.get("containers") or []):
            continue
        for mapping in status.get("mapping") or []:
            if mapping.get("quantity") is not None:
                add(out, {mapping.get("name"): qty(mapping["quantity"]).value})
        for overhead in status.get("overhead") or []:
            for part in ("perPod", "perContainer"):
                if overhead.get(part) is not None:
                    add(out, {overhead.get("name"): qty(overhead[part]).value})
    return out


def pod_level_problem(pod: dict) -> str | None:
    """validatePodLevelResourcesCoverDRA (1.37), on the Pod with its claims' statuses: pod-level requests
    at least the containers' and claims' aggregate; each container's limit plus what its claims add within
    the pod-level limit, hugepages within it summed over the containers. The refusal, or None."""
    spec = pod.get("spec") or {}
    resources = spec.get("resources")
    if not isinstance(resources, dict) or not (pod.get("status") or {}).get("nodeAllocatableResourceClaimStatuses"):
        return None
    requests = resources.get("requests") or {}
    aggregate = noderesources.aggregate_requests(pod, _dra) if requests else {}
    for name in sorted(requests):
        if noderesources.pod_level_resource(name) and name in aggregate and aggregate[name] > qty(requests[name]).value:
            return f"pod level request for {name} is insufficient to cover the aggregated container and " \
                   "node-allocatable DRA requests"
    limits = resources.get("limits") or {}
    # Hugepages: the containers' aggregated limits plus every hugepages amount of the claims
    # (addDRANodeAllocatableLimits), within the pod-level limit.
    aggregate = noderesources.containers_aggregate(pod, "limits") if limits else {}
    add(aggregate, {name: value for name, value in _dra(pod).items() if name.startswith("hugepages-")})
    for name in sorted(aggregate):
        if name.startswith("hugepages-") and name in limits and aggregate[name] > qty(limits[name]).value:
            return f"pod level limit for {name} is insufficient to cover the aggregated container and " \
                   "node-allocatable DRA limits"
    for container in spec.get("containers") or [] if limits else ():
        dra = container_dra_allocations(pod, container.get("name"))
        for name, limit in sorted(((container.get("resources") or {}).get("limits") or {}).items()):
            if name.startswith("hugepages-") or name not in limits:
                continue
            if qty(limit).value + dra.get(name, Decimal(0)) > qty(limits[name]).value:
                return f"pod level limit for {name} is insufficient to cover the limit and DRA overhead for " \
                       f"container {container.get('name')}"
    return None


# `review --explain` -----------------------------------------------------------------------------

def describe_device(device: dict) -> list:
    """What each resource of the device takes from its node, per allocation."""
    lines = []
    capacity = device.get("capacity") or {}
    for name in sorted(resources(device)):
        entry = resources(device)[name] or {}
        mapping, overhead = entry.get("mapping") or {}, entry.get("overhead") or {}
        key = mapping.get("capacityKey")
        if key:
            multiplier = mapping.get("capacityMultiplier") or "1"
            total = (capacity.get(key) or {}).get("value")
            most = f", at most {_times(qty(total), qty(multiplier).value)}" if total is not None else ""
            shared = "" if device.get("allowMultipleAllocations") else \
                " (the device does not allow multiple allocations, so no capacity is consumed: the scheduler " \
                "fails the pod)"
            lines.append(f"{name} = consumed {key} x {multiplier}{most}{shared}")
        elif mapping.get("deviceMultiplier") is not None:
            lines.append(f"{name} {qty(mapping['deviceMultiplier'])} per allocated device")
        if overhead.get("perPod") is not None:
            lines.append(f"{name} {qty(overhead['perPod'])} per pod using it")
        if overhead.get("perContainer") is not None:
            lines.append(f"{name} {qty(overhead['perContainer'])} per container using it")
    return lines
