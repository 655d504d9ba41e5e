"""What a Pod and its claims take from a node, as both node-allocatable models count it (1.36:
footprint.py, 1.37: nodeallocatable.py): amounts per resource, a result's device, a Pod's requests."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from webhook.allocation.capacity import qty
from webhook.allocation.nodes import NodeSelectorError, node_matches
from webhook.quantity import Quantity


@dataclass
class Footprint:
    amounts: dict = field(default_factory=dict)  # resource -> Quantity
    problems: list = field(default_factory=list)

    def add(self, name: str, amount: Quantity) -> None:
        current = self.amounts.get(name)
        self.amounts[name] = amount if current is None else current.add(amount)

    def to_dict(self) -> dict:
        return {name: str(self.amounts[name]) for name in sorted(self.amounts)}


def find_device(slices: list, result: dict, node: dict) -> dict | None:
    for s in slices:
        if s.driver != result.get("driver") or s.pool != result.get("pool"):
            continue
        for device in s.devices:
            if device.get("name") == result.get("device"):
                if s.per_device:
                    try:
                        if not node_matches(node, device.get("nodeName") or "", bool(device.get("allNodes")),
                                            device.get("nodeSelector")):
                            return None
                    except NodeSelectorError:
                        return None
                return device
    return None


def add(total: dict, more: dict) -> None:
    for name, value in more.items():
        total[name] = total.get(name, Decimal(0)) + value


def container_amounts(container: dict, field: str = "requests") -> dict:
    return {name: qty(value).value for name, value in
            ((container.get("resources") or {}).get(field) or {}).items()}


def containers_aggregate(pod: dict, field: str = "requests") -> dict:
    """aggregateContainerResourcesByFn: the containers' requests (or limits), init containers and sidecars
    as the scheduler sums them (the sidecars run next to the containers and to later init containers)."""
    spec = pod.get("spec") or {}
    total: dict = {}
    for container in spec.get("containers") or []:
        add(total, container_amounts(container, field))
    sidecars: dict = {}
    peak: dict = {}
    for container in spec.get("initContainers") or []:
        use = container_amounts(container, field)
        if container.get("restartPolicy") == "Always":
            add(total, use)
            add(sidecars, use)
            use = dict(sidecars)
        else:
            add(use, sidecars)
        for name, value in use.items():
            peak[name] = max(peak.get(name, value), value)
    for name, value in peak.items():
        total[name] = max(total.get(name, value), value)
    return total


def pod_level_resource(name: str) -> bool:
    """IsSupportedPodLevelResource."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def aggregate_requests(pod: dict, dra) -> dict:
    """AggregateContainerRequests with UseDRANodeAllocatableResourceClaimStatus: the containers' requests
    plus what the claims' statuses add for the pod's lifetime (`dra(pod)`: each release's model reads them
    its own way)."""
    total = containers_aggregate(pod)
    add(total, dra(pod))
    return total


def pod_requests(pod: dict, dra, pod_level: bool = True) -> dict:
    """PodRequests: aggregate_requests, replaced by the pod-level requests where set (unless `pod_level`
    is off: SkipPodLevelResources), plus the pod overhead."""
    spec = pod.get("spec") or {}
    total = aggregate_requests(pod, dra)
    for name, value in ((spec.get("resources") or {}).get("requests") or {}).items() if pod_level else ():
        if pod_level_resource(name):
            total[name] = qty(value).value
    add(total, {name: qty(value).value for name, value in (spec.get("overhead") or {}).items()})
    return total


def claim_entry_names(pod: dict, claim_name: str, template: bool) -> set:
    """The names of the Pod's resourceClaims entries that stand for the claim: resourceclaim.Name (its
    resourceClaimName, or for a template the generated claim's name in status.resourceClaimStatuses);
    `template`: the claim is a template's own (no claim generated yet), named by resourceClaimTemplateName."""
    entries = [e for e in (pod.get("spec") or {}).get("resourceClaims") or [] if isinstance(e, dict)]
    if template:
        return {e.get("name") for e in entries if e.get("resourceClaimTemplateName") == claim_name}
    generated = {s.get("name"): s.get("resourceClaimName")
                 for s in (pod.get("status") or {}).get("resourceClaimStatuses") or [] if isinstance(s, dict)}
    return {e.get("name") for e in entries
            if (e.get("resourceClaimName") or (generated.get(e.get("name")) if e.get("resourceClaimTemplateName")
                                               else None)) == claim_name}
