"""ResourceClaim status rules: upstream's validateResourceClaimStatusUpdate and the functions it calls.

Request names come from the claim's spec; on a status update the API server has already reset the
spec to the stored one, so the new object's spec is used, as upstream does.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, forbidden, invalid, not_supported, required, too_long, too_many
from webhook.limits import (
    ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH,
    ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS,
    ALLOCATION_RESULTS_MAX_SIZE,
    DEVICE_CONFIG_MAX_SIZE,
    NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH,
    NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH,
    NETWORK_DEVICE_DATA_MAX_IPS,
    RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE,
)
from webhook.validation._helpers import as_dict, as_list, as_str, validate_set, validate_slice
from webhook.validation.bindingconditions import validate_device_binding_parameters
from webhook.validation.conditions import validate_conditions
from webhook.validation.deviceclaim import validate_allocation_request_refs
from webhook.validation.deviceconfig import validate_device_configuration
from webhook.validation.options import DEFAULT_OPTIONS, Options, name_field, short_circuit
from webhook.validation.equality import semantic_equal
from webhook.validation.interfaceaddress import validate_interface_address
from webhook.validation.meta import FIELD_IMMUTABLE
from webhook.validation.names import byte_len, validate_dns_label, validate_driver_name
from webhook.validation.nodeselector import validate_node_selector
from webhook.validation.poolname import validate_pool_name
from webhook.validation.rawjson import validate_raw_extension
from webhook.validation.requestref import RequestNames, validate_request_name_ref
from webhook.validation.skipnodeoperations import validate_skip_node_operations
from webhook.validation.tolerations import validate_device_tolerations
from webhook.validation.uid import validate_uid

ALLOCATION_CONFIG_MAX_SIZE = 2 * DEVICE_CONFIG_MAX_SIZE  # class + claim
ALLOCATION_CONFIG_SOURCES = ("FromClaim", "FromClass")

SharedDeviceID = tuple[str, str, str, str]


def shared_device_id(entry: Any) -> SharedDeviceID:
    """structured.MakeSharedDeviceID: an absent shareID and an empty one are the same ("")."""
    entry = as_dict(entry)
    return (as_str(entry.get("driver")), as_str(entry.get("pool")), as_str(entry.get("device")),
            as_str(entry.get("shareID")))


def render_device_id(device_id: SharedDeviceID) -> str:
    driver, pool, device, share_id = device_id
    text = f"{driver}/{pool}/{device}"
    return f"{text}/{share_id}" if share_id else text


def gather_allocated_devices(allocation: Any) -> set[SharedDeviceID]:
    results = as_list(as_dict(as_dict(allocation).get("devices")).get("results"))
    return {shared_device_id(result) for result in results}


def _consumer_key(ref: Any) -> str:
    return as_str(as_dict(ref).get("uid"))


def _validate_resource_claim_status_update(status: Any, old_status: Any, claim_deleted: bool,
                                          names: RequestNames, path: Path,
                                          opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    status, old_status = as_dict(status), as_dict(old_status)
    reserved_for = as_list(status.get("reservedFor"))
    errs = validate_set(reserved_for, RESOURCE_CLAIM_RESERVED_FOR_MAX_SIZE, validate_resource_claim_user_reference,
                        _consumer_key, path.child("reservedFor"), short_circuit(opts), name_field(opts, "uid"))
    allocation = status.get("allocation")
    allocation = allocation if isinstance(allocation, dict) else None
    allocated = gather_allocated_devices(allocation) if allocation is not None else set()
    errs.extend(validate_set(as_list(status.get("devices")), -1,
                             lambda device, p: validate_device_status(device, p, allocated, opts),
                             lambda device: render_device_id(shared_device_id(device)), path.child("devices"),
                             key_field=name_field(opts, "deviceID")))
    if reserved_for:
        if allocation is None:
            errs.append(forbidden(path.child("reservedFor"), "may not be specified when `allocated` is not set"))
        elif claim_deleted:
            old_refs = [_canonical_ref(r) for r in as_list(old_status.get("reservedFor"))]
            if any(_canonical_ref(r) not in old_refs for r in reserved_for):
                errs.append(forbidden(path.child("reservedFor"), "new entries may not be added while "
                                                                 "`deallocationRequested` or `deletionTimestamp` are set"))
    old_allocation = old_status.get("allocation")
    if isinstance(old_allocation, dict) and allocation is not None:
        if not semantic_equal(allocation, old_allocation, "AllocationResult"):
            errs.append(invalid(path.child("allocation"), allocation, FIELD_IMMUTABLE))
    elif allocation is not None:
        errs.extend(validate_allocation_result(allocation, path.child("allocation"), names, opts))
    return errs


def _canonical_ref(ref: Any) -> tuple[str, str, str, str]:
    ref = as_dict(ref)
    return (as_str(ref.get("apiGroup")), as_str(ref.get("resource")), as_str(ref.get("name")), as_str(ref.get("uid")))


def validate_resource_claim_user_reference(ref: Any, path: Path) -> ErrorList:
    ref = as_dict(ref)
    errs: ErrorList = []
    for key in ("resource", "name", "uid"):
        if not as_str(ref.get(key)):
            errs.append(required(path.child(key), ""))
    return errs


def validate_allocation_result(allocation: dict, path: Path, names: RequestNames,
                               opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    """Rules for a newly set allocation (a stored one is only compared, never re-validated)."""
    errs = validate_device_allocation_result(as_dict(allocation.get("devices")), path.child("devices"), names, opts)
    node_selector = allocation.get("nodeSelector")
    if isinstance(node_selector, dict):
        errs.extend(validate_node_selector(node_selector, path.child("nodeSelector")))
    return errs


def validate_device_allocation_result(devices: dict, path: Path, names: RequestNames,
                                      opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_slice(as_list(devices.get("results")), ALLOCATION_RESULTS_MAX_SIZE,
                          lambda result, p: validate_device_request_allocation_result(result, p, names, opts),
                          path.child("results"), short_circuit(opts))
    errs.extend(validate_slice(as_list(devices.get("config")), ALLOCATION_CONFIG_MAX_SIZE,
                               lambda config, p: validate_device_allocation_configuration(config, p, names, opts),
                               path.child("config"), short_circuit(opts)))
    return errs


def validate_device_request_allocation_result(result: Any, path: Path, names: RequestNames,
                                              opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    result = as_dict(result)
    behaviours = opts.profile.behaviours
    errs = validate_request_name_ref(as_str(result.get("request")), path.child("request"), names)
    errs.extend(validate_driver_name(as_str(result.get("driver")), path.child("driver"),
                                     behaviours.empty_driver_name_also_invalid))
    errs.extend(validate_pool_name(as_str(result.get("pool")), path.child("pool")))
    errs.extend(validate_dns_label(as_str(result.get("device")), path.child("device")))
    errs.extend(validate_device_binding_parameters(result, path, short_circuit(opts)))
    if behaviours.result_tolerations_validated:
        errs.extend(validate_device_tolerations(result.get("tolerations"), path.child("tolerations")))
    share_id = result.get("shareID")
    if isinstance(share_id, str):
        errs.extend(validate_uid(share_id, path.child("shareID")))
    if behaviours.skip_node_operations and result.get("skipNodeOperations") is not None:
        errs.extend(validate_skip_node_operations(result.get("skipNodeOperations"), path.child("skipNodeOperations")))
    return errs


def validate_device_allocation_configuration(config: Any, path: Path, names: RequestNames,
                                             opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    config = as_dict(config)
    errs = validate_allocation_config_source(as_str(config.get("source")), path.child("source"))
    errs.extend(validate_allocation_request_refs(config.get("requests"), path.child("requests"), names,
                                                 short_circuit(opts)))
    # Opaque parameters of an allocation do not depend on gates; never stored semantics.
    errs.extend(validate_device_configuration(config, path, opts.with_stored(False)))
    return errs


def validate_allocation_config_source(source: str, path: Path) -> ErrorList:
    if source == "":
        return [required(path, "")]
    if source not in ALLOCATION_CONFIG_SOURCES:
        return [not_supported(path, source, ALLOCATION_CONFIG_SOURCES)]
    return []


def validate_device_status(device: Any, path: Path, allocated: set[SharedDeviceID],
                           opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    device = as_dict(device)
    errs = validate_driver_name(as_str(device.get("driver")), path.child("driver"),
                                opts.profile.behaviours.empty_driver_name_also_invalid)
    errs.extend(validate_pool_name(as_str(device.get("pool")), path.child("pool")))
    errs.extend(validate_dns_label(as_str(device.get("device")), path.child("device")))
    share_id = device.get("shareID")
    if isinstance(share_id, str):
        errs.extend(validate_uid(share_id, path.child("shareID")))
    device_id = shared_device_id(device)
    if device_id not in allocated:
        errs.append(invalid(path, render_device_id(device_id), "must be an allocated device in the claim"))
    conditions = as_list(device.get("conditions"))
    if len(conditions) > ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS:
        errs.append(too_many(path.child("conditions"), len(conditions), ALLOCATED_DEVICE_STATUS_MAX_CONDITIONS))
    errs.extend(validate_conditions(conditions, path.child("conditions"), opts.profile))
    data = device.get("data")
    if data is not None:  # absent or null is an empty RawExtension: optional here
        errs.extend(validate_raw_extension(data, path.child("data"), False, ALLOCATED_DEVICE_STATUS_DATA_MAX_LENGTH))
    network_data = device.get("networkData")
    if isinstance(network_data, dict):
        errs.extend(validate_network_device_data(network_data, path.child("networkData"), short_circuit(opts)))
    return errs


def validate_network_device_data(data: dict, path: Path, short: bool = True) -> ErrorList:
    errs: ErrorList = []
    if byte_len(as_str(data.get("interfaceName"))) > NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH:
        errs.append(too_long(path.child("interfaceName"), "", NETWORK_DEVICE_DATA_INTERFACE_NAME_MAX_LENGTH))
    if byte_len(as_str(data.get("hardwareAddress"))) > NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH:
        errs.append(too_long(path.child("hardwareAddress"), "", NETWORK_DEVICE_DATA_HARDWARE_ADDRESS_MAX_LENGTH))
    errs.extend(validate_set(as_list(data.get("ips")), NETWORK_DEVICE_DATA_MAX_IPS,
                             lambda ip, p: validate_interface_address(as_str(ip), p), as_str, path.child("ips"),
                             short))
    return errs
