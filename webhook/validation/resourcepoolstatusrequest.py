"""ResourcePoolStatusRequest validation (resource.k8s.io/v1alpha3, gate DRAResourcePoolStatus).

The kind was born declarative: its rules are the `+k8s:` tags of k8s.io/api resource/v1alpha3
(generated into pkg/apis/resource/v1alpha3/zz_generated.validations.go), enforced from the start
(`rest.WithDeclarativeEnforcement()` in the registry strategy) whatever the version's
DeclarativeValidation stage. The hand-written part (validation_resourcepoolstatusrequest.go) is the
object's metadata, a status that never changes once set, and the status conditions.

The registry strategy decides what each request can touch: a create drops the status
(PrepareForCreate), an update of the main resource keeps the old status, a status update keeps the
old spec. So create checks metadata and spec, update the spec's immutability, status update the
status. Declarative rules do not check again what an update left unchanged (ratcheting): a field
equal to its old value, a list equal to the old list.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, forbidden, invalid
from webhook.limits import RESOURCE_POOL_STATUS_REQUEST_LIMIT_DEFAULT as LIMIT_DEFAULT
from webhook.limits import RESOURCE_POOL_STATUS_REQUEST_LIMIT_MAX as LIMIT_MAX
from webhook.profile import Profile
from webhook.validation._helpers import as_dict, as_int, as_list, as_str
from webhook.validation.conditions import validate_conditions
from webhook.validation.declarative import (
    long_name, long_name_caseless, mark, max_bytes, max_items, maximum, minimum, required_pointer,
    required_value, resource_fully_qualified_name, resource_pool_name, unique_map,
)
from webhook.validation.equality import semantic_equal
from webhook.validation.meta import FIELD_IMMUTABLE, validate_object_meta, validate_object_meta_update
from webhook.validation.options import DEFAULT_OPTIONS, Options

# The bounds of the `+k8s:` tags (upstream names no constants for them but the limit's).
LIMIT_MIN = 1
MAX_POOLS = 1000
MAX_CONDITIONS = 10
VALIDATION_ERROR_MAX_BYTES = 256
MAX_PARTITION_TYPES = 32  # pools[].partitionSummary (1.37)
MAX_SHAREABLE_CAPACITIES = 32  # pools[].shareableSummary.capacity (1.37)
PARTITION_TYPE_GATE = "DRAPartitionableDevicesType"
_COUNTS = ("totalDevices", "allocatedDevices", "availableDevices", "unavailableDevices")


# Declarative rules --------------------------------------------------------------------------------

def _spec(spec: dict, path: Path, profile: Profile) -> ErrorList:
    """Validate_ResourcePoolStatusRequestSpec (on create: on update a changed spec is only immutable)."""
    driver = as_str(spec.get("driver"))
    errs = required_value(driver, path.child("driver")) or long_name_caseless(driver, path.child("driver"))
    pool_name = spec.get("poolName")
    if isinstance(pool_name, str):  # optional: only a set pointer is checked, "" included
        errs.extend(resource_pool_name(pool_name, path.child("poolName")))
    limit = spec.get("limit")
    if isinstance(limit, int):  # checked after defaulting: "optional with a default" is required
        errs.extend(maximum(limit, LIMIT_MAX, path.child("limit")) + minimum(limit, LIMIT_MIN, path.child("limit")))
    else:
        errs.extend(required_pointer(None, path.child("limit")))
    attribute = spec.get("defaultPartitionTypeAttribute")
    if profile.behaviours.pool_status_partition_views and isinstance(attribute, str):
        at = path.child("defaultPartitionTypeAttribute")
        # +k8s:ifDisabled(DRAPartitionableDevicesType)=+k8s:forbidden, else a fully qualified name
        errs.extend(resource_fully_qualified_name(attribute, at) if profile.gate(PARTITION_TYPE_GATE)
                    else mark([forbidden(at, "")]))
    return errs


def _count(value: Any, bound: int, path: Path, required: bool) -> ErrorList:
    """An int32 pointer with +k8s:minimum (and +k8s:required when `required`)."""
    if not isinstance(value, int):
        return required_pointer(None, path) if required else []
    return minimum(value, bound, path)


def _partition_types(items: list, path: Path) -> ErrorList:
    if len(items) > MAX_PARTITION_TYPES:  # short-circuits the list's other rules
        return max_items(items, MAX_PARTITION_TYPES, path)
    errs = unique_map(items, lambda t: (as_str(as_dict(t).get("attribute")), as_str(as_dict(t).get("type"))), path)
    for i, item in enumerate(items):
        item, at = as_dict(item), path.index(i)
        errs.extend(required_value(as_str(item.get("attribute")), at.child("attribute")))
        errs.extend(required_value(as_str(item.get("type")), at.child("type")))
        errs.extend(_count(item.get("total"), 0, at.child("total"), required=True))
        errs.extend(_count(item.get("allocatable"), 0, at.child("allocatable"), required=True))
    return errs


def _shareable(summary: dict, path: Path) -> ErrorList:
    errs = _count(summary.get("fullyAvailableDevices"), 0, path.child("fullyAvailableDevices"), required=True)
    errs.extend(_count(summary.get("partiallyAvailableDevices"), 0, path.child("partiallyAvailableDevices"),
                       required=True))
    capacities, at = as_list(summary.get("capacity")), path.child("capacity")
    if len(capacities) > MAX_SHAREABLE_CAPACITIES:
        return errs + max_items(capacities, MAX_SHAREABLE_CAPACITIES, at)
    for i, capacity in enumerate(capacities):
        capacity, item_at = as_dict(capacity), at.index(i)
        errs.extend(required_value(as_str(capacity.get("name")), item_at.child("name")))
        for key in ("total", "consumed", "available"):
            errs.extend(required_pointer(capacity.get(key), item_at.child(key)))
    return errs


def _pool(pool: dict, path: Path, profile: Profile) -> ErrorList:
    """Validate_PoolStatus; pools are an atomic list, so an entry is never compared with an old one."""
    driver = as_str(pool.get("driver"))
    errs = required_value(driver, path.child("driver")) or long_name_caseless(driver, path.child("driver"))
    name = as_str(pool.get("poolName"))
    errs.extend(required_value(name, path.child("poolName")) or resource_pool_name(name, path.child("poolName")))
    generation = as_int(pool.get("generation"))  # an int64 value: 0 counts as missing (+k8s:required)
    errs.extend(minimum(generation, 0, path.child("generation")) if generation else
                required_pointer(None, path.child("generation")))
    errs.extend(_count(pool.get("resourceSliceCount"), 1, path.child("resourceSliceCount"), required=False))
    for key in _COUNTS:
        errs.extend(_count(pool.get(key), 0, path.child(key), required=False))
    node_name = pool.get("nodeName")
    if isinstance(node_name, str):
        errs.extend(long_name(node_name, path.child("nodeName")))
    message = pool.get("validationError")
    if isinstance(message, str):
        errs.extend(max_bytes(message, VALIDATION_ERROR_MAX_BYTES, path.child("validationError")))
    if profile.behaviours.pool_status_partition_views:
        partition_types = as_list(pool.get("partitionSummary"))
        if partition_types:
            errs.extend(_partition_types(partition_types, path.child("partitionSummary")))
        shareable = pool.get("shareableSummary")
        if isinstance(shareable, dict):
            errs.extend(_shareable(shareable, path.child("shareableSummary")))
    return errs


def _status(status: dict, old: dict | None, path: Path, profile: Profile) -> ErrorList:
    """Validate_ResourcePoolStatusRequestStatus; `old` is the old status (None when there was none)."""

    def changed(key: str) -> bool:
        return old is None or not semantic_equal(status.get(key), old.get(key), "ResourcePoolStatusRequestStatus", key)

    errs: ErrorList = []
    if changed("poolCount"):
        errs.extend(_count(status.get("poolCount"), 0, path.child("poolCount"), required=True))
    pools = as_list(status.get("pools"))
    if pools and changed("pools"):
        if len(pools) > MAX_POOLS:
            errs.extend(max_items(pools, MAX_POOLS, path.child("pools")))
        else:
            for i, pool in enumerate(pools):
                errs.extend(_pool(as_dict(pool), path.child("pools").index(i), profile))
    conditions = as_list(status.get("conditions"))
    if conditions and changed("conditions"):
        at = path.child("conditions")
        if len(conditions) > MAX_CONDITIONS:
            errs.extend(max_items(conditions, MAX_CONDITIONS, at))
        elif profile.behaviours.pool_status_conditions_unique:
            errs.extend(unique_map(conditions, lambda c: as_str(as_dict(c).get("type")), at))
    return errs


def _known_spec(spec: Any, profile: Profile) -> dict:
    """The spec as the API server decodes and defaults it, for the immutability comparison."""
    spec = as_dict(spec)
    known = {"driver": as_str(spec.get("driver")), "poolName": spec.get("poolName"),
             "limit": LIMIT_DEFAULT if spec.get("limit") is None else spec.get("limit")}
    if profile.behaviours.pool_status_partition_views:
        known["defaultPartitionTypeAttribute"] = spec.get("defaultPartitionTypeAttribute")
    return known


# Registry strategy compositions --------------------------------------------------------------------

def validate_resource_pool_status_request(obj: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    """Create: metadata and spec; the status is dropped before validation (PrepareForCreate)."""
    errs = validate_object_meta(obj.get("metadata"), namespaced=False)
    errs.extend(_spec(as_dict(obj.get("spec")), Path("spec"), opts.profile))
    return errs


def validate_resource_pool_status_request_update(new: dict, old: dict,
                                                 opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    """Update: the spec is immutable (+k8s:immutable, which short-circuits its other rules); the status
    sent is replaced by the old one (PrepareForUpdate), so it is not looked at."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    if _known_spec(new.get("spec"), opts.profile) != _known_spec(old.get("spec"), opts.profile):
        errs.extend(mark([invalid(Path("spec"), None, FIELD_IMMUTABLE)]))
    return errs


def validate_resource_pool_status_request_status_update(new: dict, old: dict,
                                                        opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    """Status update: once set, the status never changes (the request is complete); a first status
    gets its conditions checked by hand and everything else by the declarative rules."""
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    status, old_status = new.get("status"), old.get("status")
    if old_status is not None:
        if not semantic_equal(status, old_status, "ResourcePoolStatusRequestStatus"):
            errs.append(invalid(Path("status"), status, FIELD_IMMUTABLE))
    elif isinstance(status, dict):
        errs.extend(validate_conditions(status.get("conditions"), Path("status", "conditions"), opts.profile))
    if isinstance(status, dict) and not semantic_equal(status, old_status, "ResourcePoolStatusRequestStatus"):
        errs.extend(_status(status, as_dict(old_status) if isinstance(old_status, dict) else None,
                            Path("status"), opts.profile))
    return errs
