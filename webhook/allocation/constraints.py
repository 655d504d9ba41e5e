"""Claim constraints: matchAttribute and distinctAttribute (constraint.go, allocator_experimental.go).

Constraints are monotonic: once `add` refuses a device, more devices will not help. For every
successful `add` there is exactly one `remove` with the same arguments.
"""

from __future__ import annotations

_LISTS = ("ints", "bools", "strings", "versions")
_SCALARS = ("int", "bool", "string", "version")


def lookup_attribute(device: dict, driver: str, name: str) -> dict | None:
    """The attribute `domain/id`; an attribute without a domain counts as the driver's."""
    attributes = device.get("attributes") or {}
    if name in attributes:
        return attributes[name]
    domain, sep, ident = name.partition("/")
    if not sep or domain != driver:
        return None
    return attributes.get(ident)


def attribute_as_set(attribute: dict | None) -> tuple[str, frozenset] | None:
    """(kind, values) of a scalar or list attribute; kinds: int, bool, string, version."""
    if attribute is None:
        return None
    for key, kind in zip(_LISTS, _SCALARS):
        if attribute.get(key):
            return kind, frozenset(attribute[key])
    for kind in _SCALARS:
        if attribute.get(kind) is not None:
            return kind, frozenset([attribute[kind]])
    return None


def _scalar(attribute: dict) -> tuple[str, object] | None:
    for kind in _SCALARS:
        if attribute.get(kind) is not None:
            return kind, attribute[kind]
    return None


class _Constraint:
    kind = ""

    def __init__(self, requests: list, attribute: str, list_types: bool) -> None:
        self.request_names = set(requests or [])
        self.attribute = attribute
        self.list_types = list_types
        self.num_devices = 0

    def applies(self, request: str, sub_request: str) -> bool:
        if not self.request_names:
            return True
        if not sub_request:
            return request in self.request_names
        return request in self.request_names or f"{request}/{sub_request}" in self.request_names

    def describe(self) -> str:
        scope = f" of requests {', '.join(sorted(self.request_names))}" if self.request_names else ""
        return f"{self.kind} {self.attribute}{scope}"


class MatchAttribute(_Constraint):
    kind = "matchAttribute"

    def __init__(self, requests: list, attribute: str, list_types: bool) -> None:
        super().__init__(requests, attribute, list_types)
        self.value = None  # scalar (kind, value) or, with list types, (kind, set)

    def add(self, request: str, sub_request: str, device: dict, driver: str, lookup=lookup_attribute) -> bool:
        """`lookup(device, driver, name)` finds the attribute (a request's derived attributes first)."""
        if not self.applies(request, sub_request):
            return True
        attribute = lookup(device, driver, self.attribute)
        if attribute is None:
            return False
        if self.num_devices == 0:
            value = attribute_as_set(attribute) if self.list_types else _scalar(attribute)
            if value is None and self.list_types:
                return False
            self.value = value
            self.num_devices = 1
            return True
        if self.list_types:
            new = attribute_as_set(attribute)
            if new is None or self.value is None or new[0] != self.value[0] or not (new[1] & self.value[1]):
                return False
            self.value = (new[0], new[1] & self.value[1])
        else:
            mine = _scalar(attribute)
            if mine is None or self.value is None or mine != self.value:
                return False
        self.num_devices += 1
        return True

    def remove(self, request: str, sub_request: str, device: dict, driver: str) -> None:
        if self.applies(request, sub_request):
            self.num_devices -= 1


class DistinctAttribute(_Constraint):
    kind = "distinctAttribute"

    def __init__(self, requests: list, attribute: str, list_types: bool, by_address: bool = False,
                 every_device: bool = False) -> None:
        super().__init__(requests, attribute, list_types)
        # Before 1.37 keyed by request name, as upstream (a request's next device replaces its previous one,
        # which is then no longer compared); 1.37 keeps every device's, in order (distinct_attribute_every_device).
        self.attributes: dict = {}
        self.every_device = every_device
        self.by_address = by_address  # 1.34: the same attribute object (the same device), not an equal value

    def add(self, request: str, sub_request: str, device: dict, driver: str, lookup=lookup_attribute) -> bool:
        """`lookup(device, driver, name)` finds the attribute (a request's derived attributes first)."""
        if not self.applies(request, sub_request):
            return True
        attribute = lookup(device, driver, self.attribute)
        if attribute is None:
            return False
        if self.num_devices != 0 and not self._distinct(attribute):
            return False
        self.attributes[self.num_devices if self.every_device else request] = attribute
        self.num_devices += 1
        return True

    def _distinct(self, attribute: dict) -> bool:
        if self.list_types:
            new = attribute_as_set(attribute)
            if new is None:
                return False
            for other in self.attributes.values():
                old = attribute_as_set(other)
                if old is not None and old[0] == new[0] and new[1] & old[1]:
                    return False
            return True
        if not self.attributes:
            return True
        mine = _scalar(attribute)
        if mine is None:
            return False
        if self.by_address:
            return all(other is not attribute for other in self.attributes.values())
        return all(_scalar(other) != mine for other in self.attributes.values())

    def remove(self, request: str, sub_request: str, device: dict, driver: str) -> None:
        if self.applies(request, sub_request):
            self.num_devices -= 1
            self.attributes.pop(self.num_devices if self.every_device else request, None)


def build(constraint: dict, list_types: bool, distinct_by_address: bool = False, distinct_every_device: bool = False):
    """The constraint object, or None for an empty (unsupported) one."""
    if constraint.get("matchAttribute") is not None:
        return MatchAttribute(constraint.get("requests"), constraint["matchAttribute"], list_types)
    if constraint.get("distinctAttribute") is not None:
        return DistinctAttribute(constraint.get("requests"), constraint["distinctAttribute"], list_types,
                                 distinct_by_address, distinct_every_device)
    return None
