"""ResourceClaim: what the 1.36 registry strategies drop for disabled gates.

The main resource (create, update) drops only spec fields: its status is cleared on create and
replaced by the old status on update. The status subresource drops only status fields: its spec is
replaced by the old spec. The "already in use" checks look at the whole old claim.
"""

from __future__ import annotations

from typing import Any

from webhook.field import Path
from webhook.strategy import resourceclaimspec
from webhook.strategy.dropper import BOOL, DICT, LIST, STRING, Dropper, child, dicts, has_items, is_set
from webhook.validation.claimstatus import shared_device_id

STATUS = Path("status")
RESULTS = STATUS.child("allocation", "devices", "results")


def drop_disabled_spec_fields(new: dict, old: dict | None, d: Dropper) -> None:
    resourceclaimspec.drop_disabled_fields(d.child(new, "spec"), Path("spec"), child(old, "spec"), d)


def drop_disabled_status_fields(new: dict, old: dict | None, d: Dropper) -> None:
    drop_disabled_dra_resource_claim_device_status_fields(new, old, d)
    drop_disabled_dra_admin_access_status_fields(new, old, d)
    drop_disabled_dra_resource_claim_consumable_capacity_status_fields(new, old, d)
    drop_device_binding_conditions_fields(new, old, d)


def _results(claim: dict | None, d: Dropper | None = None):
    """(path, result) of status.allocation.devices.results[*]."""
    if d:
        devices = d.child(d.child(d.child(claim, "status"), "allocation"), "devices")
        items = d.dicts(devices, "results")
    else:
        items = dicts(child(claim, "status", "allocation", "devices"), "results")
    for i, result in items:
        yield RESULTS.index(i), result


def _status_devices(claim: dict | None, d: Dropper | None = None):
    items = d.dicts(d.child(claim, "status"), "devices") if d else dicts(child(claim, "status"), "devices")
    for i, device in items:
        yield STATUS.child("devices").index(i), device


def drop_disabled_dra_admin_access_status_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRAAdminAccess"
    if d.enabled(gate) or dra_admin_access_feature_in_use(old):
        return
    for path, result in _results(new, d):
        d.drop(result, path, "adminAccess", BOOL, gate)


def dra_admin_access_feature_in_use(claim: dict | None) -> bool:
    if resourceclaimspec.dra_admin_access_feature_in_use(child(claim, "spec")):
        return True
    return any(is_set(result, "adminAccess", BOOL) for _, result in _results(claim))


def is_dra_resource_claim_device_status_in_use(claim: dict | None) -> bool:
    return has_items(child(claim, "status"), "devices")


def drop_disabled_dra_resource_claim_device_status_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRAResourceClaimDeviceStatus"
    if not d.enabled(gate) and not is_dra_resource_claim_device_status_in_use(old):
        d.drop(d.child(new, "status"), STATUS, "devices", LIST, gate)


def dra_consumable_capacity_feature_in_use(claim: dict | None) -> bool:
    if resourceclaimspec.dra_consumable_capacity_feature_in_use(child(claim, "spec")):
        return True
    if any(is_set(result, "shareID", STRING) or is_set(result, "consumedCapacity", DICT)
           for _, result in _results(claim)):
        return True
    return any(is_set(device, "shareID", STRING) for _, device in _status_devices(claim))


def drop_disabled_dra_resource_claim_consumable_capacity_status_fields(new: dict, old: dict | None,
                                                                       d: Dropper) -> None:
    gate = "DRAConsumableCapacity"
    if d.enabled(gate) or dra_consumable_capacity_feature_in_use(old):
        return
    for path, result in _results(new, d):
        d.drop(result, path, "shareID", STRING, gate)
        d.drop(result, path, "consumedCapacity", DICT, gate)
    for path, device in _status_devices(new, d):
        d.drop(device, path, "shareID", STRING, gate)


def drop_device_binding_conditions_fields(new: dict, old: dict | None, d: Dropper) -> None:
    # Gated on DRADeviceBindingConditions alone. 1.36 keeps status.allocation.allocationTimestamp;
    # dropping it too came after the release.
    gate = "DRADeviceBindingConditions"
    if d.enabled(gate) or dra_device_binding_conditions_in_use(old):
        return
    for path, result in _results(new, d):
        d.drop(result, path, "bindingConditions", LIST, gate)
        d.drop(result, path, "bindingFailureConditions", LIST, gate)


def dra_device_binding_conditions_in_use(claim: dict | None) -> bool:
    return any(has_items(result, "bindingConditions") or has_items(result, "bindingFailureConditions")
               for _, result in _results(claim))


def drop_deallocated_status_devices(new: dict, old: dict | None, profile: Any) -> dict:
    """dropDeallocatedStatusDevices, the status strategy's last step (PrepareForUpdate): the status of a device
    that the old allocation had and the new one no longer has is dropped without a word (deallocating a claim
    leaves its device statuses behind). `new` itself when nothing goes, else a copy without them."""
    if not profile.enabled("DRAResourceClaimDeviceStatus") and not is_dra_resource_claim_device_status_in_use(old):
        return new
    deallocated = _allocated_ids(old) - _allocated_ids(new)
    status = child(new, "status")
    devices = status.get("devices") if status is not None else None
    if not deallocated or not isinstance(devices, list):
        return new
    kept = [device for device in devices if shared_device_id(device) not in deallocated]
    if len(kept) == len(devices):
        return new
    out = {**new, "status": {**status, "devices": kept}}
    if not kept:
        del out["status"]["devices"]  # Go sets an emptied list to nil
    return out


def _allocated_ids(claim: dict | None) -> set:
    return {shared_device_id(result) for _, result in _results(claim)}
