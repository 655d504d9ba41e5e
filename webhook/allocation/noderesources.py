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


def container_requests(container: dict) -> dict:
    return {name: qty(value).value for name, value in
            ((container.get("resources") or {}).get("requests") or {}).items()}


def pod_requests(pod: dict, dra) -> dict:
    """Containers (with their perContainer overhead), init containers and sidecars as the scheduler sums
    them (component-helpers PodRequests), plus the claims' mappings and perPod overhead, pod-level requests
    and the pod overhead. `dra(pod)` -> (for the pod's lifetime, per container name) reads the claim
    statuses (each release's model has its own)."""
    spec = pod.get("spec") or {}
    fixed, per_container = dra(pod)
    total: dict = {}
    for container in spec.get("containers") or []:
        add(total, container_requests(container))
        add(total, per_container.get(container.get("name"), {}))
    sidecars: dict = {}
    peak: dict = {}
    for container in spec.get("initContainers") or []:
        use = container_requests(container)
        add(use, per_container.get(container.get("name"), {}))
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
    add(total, fixed)
    for name, value in ((spec.get("resources") or {}).get("requests") or {}).items():
        if name in ("cpu", "memory") or name.startswith("hugepages-"):
            total[name] = qty(value).value
    add(total, {name: qty(value).value for name, value in (spec.get("overhead") or {}).items()})
    return total
