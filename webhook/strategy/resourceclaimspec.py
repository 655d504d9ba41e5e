"""The claim spec shared by ResourceClaim and ResourceClaimTemplate: `DropDisabledFields` of 1.36's
pkg/api/resourceclaimspec. `path` is where the spec sits (`spec` or `spec.spec`); `old` is the old
spec or None.
"""

from __future__ import annotations

from webhook.field import Path
from webhook.strategy.dropper import BOOL, DICT, LIST, STRING, Dropper, child, dicts, has_items, is_set


def drop_disabled_fields(new: dict | None, path: Path, old: dict | None, d: Dropper) -> None:
    drop_disabled_dra_prioritized_list_fields(new, path, old, d)
    # After the prioritized list, so that dropped subrequests are not visited.
    drop_disabled_dra_device_taints_fields(new, path, old, d)
    drop_disabled_dra_admin_access_fields(new, path, old, d)
    drop_disabled_dra_resource_claim_consumable_capacity_fields(new, path, old, d)


def _requests(spec: dict | None, path: Path, d: Dropper | None = None):
    """(path, request) of devices.requests[*]; through the dropper for the new object."""
    devices = d.child(spec, "devices") if d else child(spec, "devices")
    items = d.dicts(devices, "requests") if d else dicts(devices, "requests")
    for i, request in items:
        yield path.child("devices", "requests").index(i), request


def _subrequests(request: dict, path: Path, d: Dropper | None = None):
    items = d.dicts(request, "firstAvailable") if d else dicts(request, "firstAvailable")
    for j, sub in items:
        yield path.child("firstAvailable").index(j), sub


def _exactly(request: dict, path: Path, d: Dropper | None = None):
    exactly = d.child(request, "exactly") if d else child(request, "exactly")
    return path.child("exactly"), exactly


def drop_disabled_dra_device_taints_fields(new: dict | None, path: Path, old: dict | None, d: Dropper) -> None:
    gate = "DRADeviceTaints"
    if d.enabled(gate) or dra_device_taints_in_use(old) or d.profile.behaviours.claim_tolerations_never_dropped:
        return
    for req_path, request in _requests(new, path, d):
        exactly_path, exactly = _exactly(request, req_path, d)
        d.drop(exactly, exactly_path, "tolerations", LIST, gate)
        for sub_path, sub in _subrequests(request, req_path, d):
            d.drop(sub, sub_path, "tolerations", LIST, gate)


def dra_device_taints_in_use(spec: dict | None) -> bool:
    for req_path, request in _requests(spec, Path("")):
        if has_items(child(request, "exactly"), "tolerations"):
            return True
        if any(has_items(sub, "tolerations") for _, sub in _subrequests(request, req_path)):
            return True
    return False


def drop_disabled_dra_prioritized_list_fields(new: dict | None, path: Path, old: dict | None, d: Dropper) -> None:
    gate = "DRAPrioritizedList"
    if d.enabled(gate) or dra_prioritized_list_feature_in_use(old):
        return
    for req_path, request in _requests(new, path, d):
        d.drop(request, req_path, "firstAvailable", LIST, gate)


def dra_prioritized_list_feature_in_use(spec: dict | None) -> bool:
    return any(has_items(request, "firstAvailable") for _, request in _requests(spec, Path("")))


def drop_disabled_dra_admin_access_fields(new: dict | None, path: Path, old: dict | None, d: Dropper) -> None:
    gate = "DRAAdminAccess"
    if d.enabled(gate) or dra_admin_access_feature_in_use(old):
        return
    for req_path, request in _requests(new, path, d):
        exactly_path, exactly = _exactly(request, req_path, d)
        d.drop(exactly, exactly_path, "adminAccess", BOOL, gate)


def dra_admin_access_feature_in_use(spec: dict | None) -> bool:
    return any(is_set(child(request, "exactly"), "adminAccess", BOOL) for _, request in _requests(spec, Path("")))


def drop_disabled_dra_resource_claim_consumable_capacity_fields(new: dict | None, path: Path, old: dict | None,
                                                                 d: Dropper) -> None:
    # A constraint left without distinctAttribute fails validation afterwards, as upstream's does.
    gate = "DRAConsumableCapacity"
    if d.enabled(gate) or dra_consumable_capacity_feature_in_use(old):
        return
    devices_path = path.child("devices")
    if d.profile.behaviours.distinct_attribute_dropped:
        for i, constraint in d.dicts(d.child(new, "devices"), "constraints"):
            d.drop(constraint, devices_path.child("constraints").index(i), "distinctAttribute", STRING, gate)
    for req_path, request in _requests(new, path, d):
        exactly_path, exactly = _exactly(request, req_path, d)
        d.drop(exactly, exactly_path, "capacity", DICT, gate)
        for sub_path, sub in _subrequests(request, req_path, d):
            d.drop(sub, sub_path, "capacity", DICT, gate)


def dra_consumable_capacity_feature_in_use(spec: dict | None) -> bool:
    constraints = dicts(child(spec, "devices"), "constraints")
    if any(is_set(constraint, "distinctAttribute", STRING) for _, constraint in constraints):
        return True
    for req_path, request in _requests(spec, Path("")):
        if is_set(child(request, "exactly"), "capacity", DICT):
            return True
        if any(is_set(sub, "capacity", DICT) for _, sub in _subrequests(request, req_path)):
            return True
    return False
