"""What an allocated claim takes from the node: DRANodeAllocatableResources, Kubernetes 1.36.

A device's `nodeAllocatableResourceMappings` ({resource: {allocationMultiplier, capacityKey}}) turn each
device result of a claim into node resources: without `capacityKey`, every allocated device adds
`allocationMultiplier` (4 devices x "2" = 8 cpu); with it, the result's `consumedCapacity[capacityKey]`
times the multiplier (8 cores x 2 = 16 cpu). Results are summed per claim, so a shared device counts
once per allocation. A device that is not shareable has no consumedCapacity in its result; a
capacityKey mapping on it is then an error of the scheduler's accounting. The feature is alpha and
off by default in 1.36. Kubernetes 1.37 reshaped these mappings: see nodeallocatable.py.

As the 1.36 plugin reads them: the capacityKey is looked up in consumedCapacity exactly as written, and a
result's device is found by pool and device name alone (getDeviceFromManager), in every slice, whatever
its driver or node: with two drivers' pools of one name, the first slice listed wins (the scheduler's
informer lists in no fixed order).
"""

from __future__ import annotations

from decimal import Decimal

from webhook.allocation import noderesources
from webhook.allocation.capacity import qty
from webhook.allocation.noderesources import Footprint
from webhook.quantity import BINARY_SI, DECIMAL_SI, Quantity

GATE = "DRANodeAllocatableResources"


def find_device_by_pool(slices: list, result: dict) -> dict | None:
    """getDeviceFromManager (1.36): the first device of that name in a slice of a pool of that name."""
    for s in slices:
        if s.pool != result.get("pool"):
            continue
        for device in s.devices:
            if device.get("name") == result.get("device"):
                return device
    return None


def mapped(device: dict) -> dict:
    return device.get("nodeAllocatableResourceMappings") or {}


def claim_footprint(allocation: dict, slices: list) -> Footprint:
    """`slices`: every slice, as listed (find_device_by_pool)."""
    out = Footprint()
    for result in (allocation.get("devices") or {}).get("results") or []:
        device = find_device_by_pool(slices, result)
        if device is None:
            continue
        for name in sorted(mapped(device)):
            mapping = mapped(device)[name] or {}
            multiplier = qty(mapping.get("allocationMultiplier") or "1")
            key = mapping.get("capacityKey")
            if key:
                consumed = result.get("consumedCapacity")
                if consumed is None:
                    out.problems.append(f"device {result.get('device')}: capacityKey {key} is set for {name}, but the "
                                        "allocation consumes no capacity (the device does not allow multiple "
                                        "allocations); the scheduler fails this claim's accounting")
                    continue
                base = consumed.get(key)
                if base is None:
                    continue  # that capacity is not consumed: the mapping does not apply
                base = qty(base)
                amount = base if multiplier.value == 1 else \
                    Quantity(base.value * multiplier.value, base.format, False)
                out.add(name, amount)
            else:
                out.add(name, multiplier)
    return out


def claim_status(total: Footprint, claim_name: str, containers: list) -> dict | None:
    """buildNodeAllocatableDRAInfo (1.36): the claim's NodeAllocatableResourceClaimStatus, None when no
    mapping applies."""
    if not total.amounts:
        return None
    return {"resourceClaimName": claim_name, "containers": list(containers), "resources": total.to_dict()}


def has_mappings(allocations: list, slices: list) -> bool:
    return any(mapped(find_device_by_pool(slices, r) or {}) for a in allocations if a
               for r in (a.get("devices") or {}).get("results") or [])


def pod_requests(pod: dict) -> dict:
    """The pod's requests as the 1.36 scheduler sums them (PodRequests with
    UseDRANodeAllocatableResourceClaimStatus): containers, init containers and sidecars, pod-level requests
    and overhead as in 1.37, plus every `resources` amount of its `nodeAllocatableResourceClaimStatuses`."""
    return noderesources.pod_requests(pod, _claim_status_resources)


def pod_level_problem(pod: dict) -> str | None:
    """validatePodLevelRequestsCoverDRA (1.36): the pod-level requests must cover what the containers and
    the claims' statuses (in `pod`) add up to; the refusal, or None."""
    if not ((pod.get("spec") or {}).get("resources") or {}).get("requests"):
        return None
    with_pod_level = pod_requests(pod)
    without = noderesources.pod_requests(pod, _claim_status_resources, pod_level=False)
    for name in sorted(with_pod_level):
        if name in without and without[name] > with_pod_level[name]:
            return f"pod level request for {name} is insufficient to cover the aggregated container and " \
                   "node-allocatable DRA requests"
    return None


def _claim_status_resources(pod: dict) -> dict:
    """Claim statuses as the 1.36 scheduler reads them: `resources`, for the pod's lifetime."""
    total: dict = {}
    for status in (pod.get("status") or {}).get("nodeAllocatableResourceClaimStatuses") or []:
        for name, value in (status.get("resources") or {}).items():
            total[name] = total.get(name, Decimal(0)) + qty(value).value
    return total


def fit(total: Footprint, node: dict, pods: list, requests=None) -> dict | None:
    """Whether the footprint fits in the node's allocatable after the pods bound to it; None without it.
    `requests(pod)` sums a pod's requests (1.36's `pod_requests` by default)."""
    requests = requests or pod_requests
    allocatable = (node.get("status") or {}).get("allocatable")
    if not isinstance(allocatable, dict):
        return None
    name = (node.get("metadata") or {}).get("name")
    used: dict = {}
    for pod in pods:
        if (pod.get("spec") or {}).get("nodeName") == name:
            for resource, value in requests(pod).items():
                used[resource] = used.get(resource, Decimal(0)) + value
    free, short = {}, {}
    for resource, amount in total.amounts.items():
        left = (qty(allocatable[resource]).value if resource in allocatable else Decimal(0)) - \
            used.get(resource, Decimal(0))
        free[resource] = str(Quantity(max(left, Decimal(0)), amount.format, False))
        if amount.value > left:
            short[resource] = str(Quantity(amount.value - left, amount.format, False))
    return {"fits": not short, "free": free, "short": short}


# nodeFitsResources: the resources the plugin checks (others are left to NodeResourcesFit), and of those
# the ones it checks only when the Pod asks for some (hugepages also at zero).
FIT_CHECKED = ("cpu", "memory", "ephemeral-storage")


def node_fit(demand: dict, node: dict, pods: list, requests) -> dict | None:
    """nodeFitsResources: whether the Pod's requests `demand` ({resource: Decimal}, with its claims) fit what
    the node has left after the pods bound to it; None without the node's allocatable."""
    checked = Footprint()
    for name, value in sorted(demand.items()):
        if name.startswith("hugepages-") or (name in FIT_CHECKED and value > 0):
            checked.add(name, Quantity(value, BINARY_SI if value == value.to_integral_value() and value % 1024 == 0
                                       and value != 0 else DECIMAL_SI, False))
    return fit(checked, node, pods, requests)


def describe_device(device: dict) -> list:
    """Per allocation of this device: what each mapping takes from the node (`review --explain`)."""
    lines = []
    capacity = device.get("capacity") or {}
    for name in sorted(mapped(device)):
        mapping = mapped(device)[name] or {}
        multiplier = mapping.get("allocationMultiplier") or "1"
        key = mapping.get("capacityKey")
        if not key:
            lines.append(f"{name} {qty(multiplier)} per allocated device")
            continue
        total = (capacity.get(key) or {}).get("value")
        most = ""
        if total is not None:
            top = qty(total)
            if qty(multiplier).value != 1:
                top = Quantity(top.value * qty(multiplier).value, top.format, False)
            most = f", at most {top}"
        shared = "" if device.get("allowMultipleAllocations") else \
            " (the device does not allow multiple allocations, so no capacity is consumed: the scheduler fails " \
            "its accounting)"
        lines.append(f"{name} = consumed {key} x {multiplier}{most}{shared}")
    return lines
