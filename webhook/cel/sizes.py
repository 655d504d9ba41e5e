"""Worst-case sizes of what `device` exposes: the DRA size estimator (dynamic-resource-allocation cel/compile.go).

The cost estimator asks for the size of a node by its field path (`device`, field names, `@keys`,
`@values`, `@items`). The bounds come from the ResourceSlice limits in resource/v1 types.go.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from webhook.cel.estimates import Estimate
from webhook.limits import (
    DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH,
    DEVICE_MAX_DOMAIN_LENGTH,
    DEVICE_MAX_ID_LENGTH,
    DRIVER_NAME_MAX_LENGTH,
    RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE,
    RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE,
)

QUANTITY = ("abstract", "kubernetes.Quantity")
_MEMO_ENTRIES = 4096


@dataclass(eq=False)
class DeclNode:
    """The part of apiserver's DeclType the estimator reads."""

    max_elements: int
    fields: dict[str, DeclNode] = field(default_factory=dict)
    key: DeclNode | None = None
    elem: DeclNode | None = None
    cel_type: tuple | None = None  # set where the CEL type is narrower than what the compiler reports


def _map(key: DeclNode, elem: DeclNode) -> DeclNode:
    return DeclNode(RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE, key=key, elem=elem)


class DeviceSizes:
    """Size estimates below `device`; one instance per compiler feature set."""

    def __init__(self, list_type_attributes: bool) -> None:
        domain = DeclNode(DEVICE_MAX_DOMAIN_LENGTH)
        ident = DeclNode(DEVICE_MAX_ID_LENGTH)
        value_size = DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH
        if list_type_attributes:  # a value may be a list of up to 48 items, or a scalar
            value_size = max(value_size, RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE)
        self.attribute = DeclNode(value_size)
        self.quantity = DeclNode(0, cel_type=QUANTITY)
        self.device = DeclNode(0, fields={
            "driver": DeclNode(DRIVER_NAME_MAX_LENGTH),
            "allowMultipleAllocations": DeclNode(1),
            "attributes": _map(domain, _map(ident, self.attribute)),
            "capacity": _map(domain, _map(ident, self.quantity)),
        })
        self._resolved: dict[tuple[str, ...], DeclNode | None] = {}
        self._types: dict[tuple[str, ...], tuple | None] = {}
        self.estimates: dict[tuple[str, ...], Estimate | None] = {}  # `estimate` by path (read by `onepass`)

    def resolve(self, path: tuple[str, ...] | None) -> DeclNode | None:
        """The declaration `path` leads to, as the DRA size estimator walks it (memoized: paths repeat)."""
        if not path or path[0] != "device":
            return None
        try:
            return self._resolved[path]
        except KeyError:
            pass
        node = self._walk(path, by_type=False)
        if len(self._resolved) >= _MEMO_ENTRIES:  # paths carry user-chosen names: keep the memo bounded
            self._resolved.clear()
        self._resolved[path] = node
        return node

    def _walk(self, path: tuple[str, ...], by_type: bool) -> DeclNode | None:
        node = self.device
        for name in path[1:]:
            if name in ("@items", "@values"):
                nxt = node.elem
            elif name == "@keys":
                nxt = node.key
            else:
                nxt = node.fields.get(name)
                # Any name under an attribute map has the attribute's bound, whatever the name. The type
                # checker also gives any name under a capacity map the Quantity type (the size estimator
                # does not know it).
                if nxt is None and (node.elem is self.attribute or by_type and node.elem is self.quantity):
                    nxt = node.elem
            if nxt is None:
                return None
            node = nxt
        return node

    def value_type(self, path: tuple[str, ...] | None) -> tuple | None:
        """The CEL type Kubernetes declares at `path` where it is narrower than the compiler's `dyn`."""
        if not path or path[0] != "device":
            return None
        try:
            return self._types[path]
        except KeyError:
            pass
        node = self._walk(path, by_type=True)
        if len(self._types) >= _MEMO_ENTRIES:
            self._types.clear()
        t = self._types[path] = None if node is None else node.cel_type
        return t

    def estimate(self, path: tuple[str, ...] | None) -> Estimate | None:
        try:
            return self.estimates[path]
        except KeyError:
            pass
        node = self.resolve(path)
        size = None if node is None else (0, node.max_elements)
        if path is not None:
            if len(self.estimates) >= _MEMO_ENTRIES:
                self.estimates.clear()
            self.estimates[path] = size
        return size
