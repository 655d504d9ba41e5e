"""What the Kubernetes 1.37 registry strategies drop for disabled gates: the 1.36 steps plus a delta.

ResourceSlice (pkg/registry/resource/resourceslice/strategy.go at 1.37): `nodeAllocatableResources`
replaces 1.36's mappings under DRANodeAllocatableResources; `spec.partitionTypeAttribute`
(DRAPartitionableDevicesType), `spec.skipNodeOperations` (DRAOptionalNodeOperations) and
`consumesCounters[].compatibilityGroups` (DRADeviceCompatibilityGroups, kept when the old slice had
a non-empty list) are new. Claim specs: `derivedAttributes` of requests and subrequests
(DRADerivedAttributes). Claim status: `results[].skipNodeOperations` (DRAOptionalNodeOperations).
As in 1.36, a gate's fields stay on update when the old object already used them.
"""

from __future__ import annotations

from webhook.field import Path
from webhook.strategy import resourceclaim, resourceclaimspec, resourceslice
from webhook.strategy.dropper import DICT, LIST, STRING, Dropper, child, dicts, has_items, is_set

SPEC = resourceslice.SPEC


# ResourceSlice -----------------------------------------------------------------------------------

def drop_disabled_slice_fields(new: dict, old: dict | None, d: Dropper) -> None:
    resourceslice.drop_disabled_dra_device_taints_fields(new, old, d)
    resourceslice.drop_disabled_dra_partitionable_devices_fields(new, old, d)
    resourceslice.drop_disabled_dra_device_binding_conditions_fields(new, old, d)
    resourceslice.drop_disabled_dra_consumable_capacity_fields(new, old, d)
    drop_disabled_dra_node_allocatable_resources_fields(new, old, d)
    resourceslice.drop_disable_dra_list_type_attributes_fields(new, old, d)
    drop_disabled_dra_partitionable_devices_type_fields(new, old, d)
    drop_disabled_dra_optional_node_operations_fields(new, old, d)
    drop_disabled_dra_device_compatibility_groups_fields(new, old, d)


def _devices(slice_: dict | None, d: Dropper | None = None):
    return resourceslice._devices(slice_, d)


def drop_disabled_dra_node_allocatable_resources_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRANodeAllocatableResources"
    if d.enabled(gate) or any(has_items(device, "nodeAllocatableResources", DICT) for _, device in _devices(old)):
        return
    for path, device in _devices(new, d):
        d.drop(device, path, "nodeAllocatableResources", DICT, gate)


def drop_disabled_dra_partitionable_devices_type_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRAPartitionableDevicesType"
    if d.enabled(gate) or is_set(child(old, "spec"), "partitionTypeAttribute", STRING):
        return
    d.drop(d.child(new, "spec"), SPEC, "partitionTypeAttribute", STRING, gate)


def drop_disabled_dra_optional_node_operations_fields(new: dict, old: dict | None, d: Dropper) -> None:
    gate = "DRAOptionalNodeOperations"
    if d.enabled(gate) or has_items(child(old, "spec"), "skipNodeOperations"):
        return
    d.drop(d.child(new, "spec"), SPEC, "skipNodeOperations", LIST, gate)


def _consumptions(slice_: dict | None, d: Dropper | None = None):
    for path, device in _devices(slice_, d):
        items = d.dicts(device, "consumesCounters") if d else dicts(device, "consumesCounters")
        for j, consumption in items:
            yield (lambda path=path, j=j: path().child("consumesCounters").index(j)), consumption


def drop_disabled_dra_device_compatibility_groups_fields(new: dict, old: dict | None, d: Dropper) -> None:
    # null and [] do not count as use.
    gate = "DRADeviceCompatibilityGroups"
    if d.enabled(gate) or any(has_items(c, "compatibilityGroups") for _, c in _consumptions(old)):
        return
    for path, consumption in _consumptions(new, d):
        d.drop(consumption, path, "compatibilityGroups", LIST, gate)


# Claim specs -------------------------------------------------------------------------------------

def drop_disabled_claim_spec_fields(new: dict | None, path: Path, old: dict | None, d: Dropper) -> None:
    resourceclaimspec.drop_disabled_fields(new, path, old, d)
    drop_disabled_dra_derived_attributes_fields(new, path, old, d)


def _request_bodies(spec: dict | None, path: Path, d: Dropper | None = None):
    """(path, exactly or subrequest) of every request body that may carry derivedAttributes."""
    for req_path, request in resourceclaimspec._requests(spec, path, d):
        exactly_path, exactly = resourceclaimspec._exactly(request, req_path, d)
        if exactly is not None:
            yield exactly_path, exactly
        yield from resourceclaimspec._subrequests(request, req_path, d)


def dra_derived_attributes_in_use(spec: dict | None) -> bool:
    return any(has_items(body, "derivedAttributes") for _, body in _request_bodies(spec, Path("")))


def drop_disabled_dra_derived_attributes_fields(new: dict | None, path: Path, old: dict | None,
                                                d: Dropper) -> None:
    gate = "DRADerivedAttributes"
    if d.enabled(gate) or dra_derived_attributes_in_use(old):
        return
    for body_path, body in _request_bodies(new, path, d):
        d.drop(body, body_path, "derivedAttributes", LIST, gate)


def drop_disabled_claim_fields(new: dict, old: dict | None, d: Dropper) -> None:
    drop_disabled_claim_spec_fields(d.child(new, "spec"), Path("spec"), child(old, "spec"), d)


def drop_disabled_template_fields(new: dict, old: dict | None, d: Dropper) -> None:
    drop_disabled_claim_spec_fields(d.child(d.child(new, "spec"), "spec"), Path("spec", "spec"),
                                    child(old, "spec", "spec"), d)


# Claim status ------------------------------------------------------------------------------------

def drop_disabled_claim_status_fields(new: dict, old: dict | None, d: Dropper) -> None:
    resourceclaim.drop_disabled_status_fields(new, old, d)
    gate = "DRAOptionalNodeOperations"
    if d.enabled(gate) or any(has_items(r, "skipNodeOperations") for _, r in resourceclaim._results(old)):
        return
    for path, result in resourceclaim._results(new, d):
        d.drop(result, path, "skipNodeOperations", LIST, gate)


# ResourcePoolStatusRequest ----------------------------------------------------------------------

def drop_disabled_pool_status_request_fields(new: dict, old: dict | None, d: Dropper) -> None:
    """dropDisabledDRAPartitionableDevicesTypeFields of pkg/registry/resource/resourcepoolstatusrequest at 1.37:
    the request's default partition attribute is dropped, not refused, unless the old request set it."""
    gate = "DRAPartitionableDevicesType"
    if d.enabled(gate) or is_set(child(old, "spec"), "defaultPartitionTypeAttribute", STRING):
        return
    d.drop(d.child(new, "spec"), SPEC, "defaultPartitionTypeAttribute", STRING, gate)
