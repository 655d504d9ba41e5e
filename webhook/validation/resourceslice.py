"""ResourceSlice validation (upstream ValidateResourceSlice / ValidateResourceSliceUpdate).

Checks run in upstream order so error lists come out in the same order (Go map iteration aside).
"""

from __future__ import annotations

from webhook.field import ErrorList, Path, forbidden, invalid, required, too_many
from webhook.limits import (
    RESOURCE_SLICE_MAX_COUNTER_SETS,
    RESOURCE_SLICE_MAX_DEVICES,
    RESOURCE_SLICE_MAX_DEVICE_COUNTERS_PER_SLICE,
    RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES,
    RESOURCE_SLICE_MAX_SHARED_COUNTERS,
)
from webhook.validation._helpers import as_dict, as_int, as_list, as_str, validate_set
from webhook.validation import declarative, devicedeclarative
from webhook.validation.device import (
    has_list_attribute, validate_counter_set, validate_counter_set_1_34, validate_counter_set_at_key, validate_device,
)
from webhook.validation.equality import semantic_equal
from webhook.validation.options import DEFAULT_OPTIONS, Options
from webhook.validation.meta import validate_immutable, validate_object_meta, validate_object_meta_update
from webhook.validation.names import validate_driver_name, validate_node_name
from webhook.validation.nodeselector import validate_node_selector
from webhook.validation.poolname import validate_pool_name
from webhook.validation.qualifiedname import qualified_name_problems
from webhook.validation.skipnodeoperations import validate_skip_node_operations

_NODE_SELECTION_FIELDS = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"


def validate_resource_slice(slice_: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta(slice_.get("metadata"), namespaced=False)
    errs.extend(validate_resource_slice_spec(as_dict(slice_.get("spec")), None, Path("spec"), opts))
    return errs


def validate_resource_slice_update(new: dict, old: dict, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_object_meta_update(new.get("metadata"), old.get("metadata"))
    errs.extend(validate_resource_slice_spec(as_dict(new.get("spec")), as_dict(old.get("spec")), Path("spec"), opts))
    return errs


def resource_slice_strategy_checks(new: dict, old: dict | None, opts: Options) -> tuple[ErrorList, list[str]]:
    """The registry's WarningsOnCreate / WarningsOnUpdate."""
    driver = as_str(as_dict(new.get("spec")).get("driver"))
    if driver != driver.lower() and opts.profile.behaviours.uppercase_driver_warning:
        quoted = '"' + driver.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return [], [f"spec.driver: driver names should be lowercase; {quoted} contains uppercase characters"]
    return [], []


def validate_resource_pool(pool: dict, path: Path) -> ErrorList:
    errs = validate_pool_name(as_str(pool.get("name")), path.child("name"))
    count = as_int(pool.get("resourceSliceCount"))
    if count <= 0:
        errs.append(invalid(path.child("resourceSliceCount"), count, "must be greater than zero"))
    generation = as_int(pool.get("generation"))
    if generation < 0:
        errs.append(invalid(path.child("generation"), generation, "must be greater than or equal to zero"))
    return errs


def _have_advanced_features(devices: list, list_type_attributes: bool = True) -> bool:
    """haveDeviceTaints || haveConsumesCounters || haveListAttributes (the last since 1.36)."""
    for device in devices:
        device = as_dict(device)
        if as_list(device.get("taints")) or as_list(device.get("consumesCounters")):
            return True
    return list_type_attributes and any(has_list_attribute(as_dict(as_dict(device).get("attributes"))) for device in devices)


def lookup_device(old_spec: dict | None, name: str) -> dict | None:
    if old_spec is None:
        return None
    for device in as_list(old_spec.get("devices")):
        if isinstance(device, dict) and as_str(device.get("name")) == name:
            return device
    return None


def _lookup_devices(old_spec: dict | None) -> dict[str, dict]:
    """lookup_device's answer for every name at once (the first old device of a name): one lookup per
    new device would be quadratic in a 128-device slice."""
    found: dict[str, dict] = {}
    if old_spec is not None:
        for device in as_list(old_spec.get("devices")):
            if isinstance(device, dict):
                found.setdefault(as_str(device.get("name")), device)
    return found


def validate_resource_slice_spec(spec: dict, old_spec: dict | None, path: Path,
                                 opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs = validate_driver_name(as_str(spec.get("driver")), path.child("driver"),
                                opts.profile.behaviours.empty_driver_name_also_invalid)
    pool = as_dict(spec.get("pool"))
    errs.extend(validate_resource_pool(pool, path.child("pool")))
    if old_spec is not None:
        old_pool = as_dict(old_spec.get("pool"))
        errs.extend(validate_immutable(as_str(pool.get("name")), as_str(old_pool.get("name")),
                                       path.child("pool", "name")))
        errs.extend(validate_immutable(as_str(spec.get("driver")), as_str(old_spec.get("driver")),
                                       path.child("driver")))
        errs.extend(validate_immutable(spec.get("nodeName"), old_spec.get("nodeName"), path.child("nodeName")))

    set_fields: list[str] = []
    node_name = spec.get("nodeName")
    if node_name is not None:
        node_name = as_str(node_name)
        if node_name:
            set_fields.append("`nodeName`")
            errs.extend(validate_node_name(node_name, path.child("nodeName")))
        else:
            errs.append(invalid(path.child("nodeName"), node_name, "must be either unset or set to a non-empty string"))
    node_selector = spec.get("nodeSelector")
    if node_selector is not None:
        set_fields.append("`nodeSelector`")
        node_selector = as_dict(node_selector)
        errs.extend(validate_node_selector(node_selector, path.child("nodeSelector")))
        terms = as_list(node_selector.get("nodeSelectorTerms"))
        if len(terms) != 1:
            errs.append(invalid(path.child("nodeSelector", "nodeSelectorTerms"), node_selector.get("nodeSelectorTerms"),
                                "must have exactly one node selector term"))
    for name in ("allNodes", "perDeviceNodeSelection"):
        flag = spec.get(name)
        if flag is None:
            continue
        if flag is True:
            set_fields.append(f"`{name}`")
        else:
            errs.append(invalid(path.child(name), flag, "must be either unset or set to true"))
    if not set_fields:
        errs.append(required(path, _NODE_SELECTION_FIELDS))
    elif len(set_fields) > 1:
        errs.append(invalid(path, "{" + ", ".join(set_fields) + "}",
                            _NODE_SELECTION_FIELDS + ", but multiple fields are set"))

    behaviours = opts.profile.behaviours
    if behaviours.counters_beside_devices:
        errs.extend(_validate_devices_and_counters_1_34(spec, old_spec, path, opts))
        return errs
    if spec.get("sharedCounters") is not None and spec.get("devices") is not None:
        errs.append(invalid(path, "", "only one of `sharedCounters` or `devices` is allowed"))

    devices = as_list(spec.get("devices"))
    max_devices = RESOURCE_SLICE_MAX_DEVICES
    # The lower limit only matters to a longer list: a shorter one is not scanned for the features.
    if behaviours.reduced_device_limit and len(devices) > RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES and \
            _have_advanced_features(devices, opts.profile.behaviours.list_type_attributes):
        max_devices = RESOURCE_SLICE_MAX_DEVICES_WITH_ADVANCED_FEATURES
    per_device_node_selection = spec.get("perDeviceNodeSelection")
    devices_path = path.child("devices")
    # Declarative rules inside devices run unless the (atomic) device list is unchanged.
    declarative_rules = behaviours.declarative_validation and (old_spec is None or not semantic_equal(spec.get("devices"), old_spec.get("devices"), "ResourceSliceSpec", "devices"))
    if len(devices) > max_devices:
        errs.append(too_many(devices_path, len(devices), max_devices))
        if declarative_rules:  # no declarative maxItems: every device is still validated declaratively
            for i, device in enumerate(devices):
                errs.extend(devicedeclarative.validate_device_declaratively(device, devices_path.index(i)))
    elif devices:
        old_devices = _lookup_devices(old_spec)
        errs.extend(validate_set(
            devices, max_devices,
            lambda device, p: validate_device(
                device, old_devices.get(as_str(as_dict(device).get("name"))), p, per_device_node_selection,
                opts, declarative_rules),
            lambda device: as_str(as_dict(device).get("name")),
            devices_path))

    shared_counters = as_list(spec.get("sharedCounters"))
    if shared_counters:
        errs.extend(validate_set(shared_counters, RESOURCE_SLICE_MAX_COUNTER_SETS,
                                 validate_counter_set_at_key if behaviours.map_key_errors_at_key else validate_counter_set,
                                 lambda counter_set: as_str(as_dict(counter_set).get("name")),
                                 path.child("sharedCounters")))
        if behaviours.declarative_validation and (old_spec is None or not semantic_equal(
                shared_counters, as_list(old_spec.get("sharedCounters")), "ResourceSliceSpec", "sharedCounters")):
            errs.extend(devicedeclarative.shared_counters_past_the_limit(shared_counters, path.child("sharedCounters")))
    if behaviours.partition_type_attribute or behaviours.skip_node_operations:
        errs.extend(_validate_spec_1_37(spec, old_spec, path, opts))
    return errs


def _validate_devices_and_counters_1_34(spec: dict, old_spec: dict | None, path: Path, opts: Options) -> ErrorList:
    """Kubernetes 1.34: counter sets sit beside the devices that consume them, limited by totals; every
    device is validated even when there are too many (no short-circuit)."""
    shared_counters = as_list(spec.get("sharedCounters"))
    counter_names = {as_str(as_dict(s).get("name")): set(as_dict(as_dict(s).get("counters"))) for s in shared_counters}
    devices = as_list(spec.get("devices"))
    devices_path = path.child("devices")
    old_devices = _lookup_devices(old_spec)
    per_device_node_selection = spec.get("perDeviceNodeSelection")
    errs = validate_set(
        devices, RESOURCE_SLICE_MAX_DEVICES,
        lambda device, p: validate_device(device, old_devices.get(as_str(as_dict(device).get("name"))), p,
                                          per_device_node_selection, opts, shared_counters=counter_names),
        lambda device: as_str(as_dict(device).get("name")), devices_path, short_circuit=False, key_field="name")
    consumed = sum(len(as_dict(as_dict(c).get("counters")))
                   for device in devices for c in as_list(as_dict(device).get("consumesCounters")))
    if consumed > RESOURCE_SLICE_MAX_DEVICE_COUNTERS_PER_SLICE:
        errs.append(invalid(devices_path, consumed, "the total number of counters in devices must not exceed "
                                                    f"{RESOURCE_SLICE_MAX_DEVICE_COUNTERS_PER_SLICE}"))
    total = sum(len(as_dict(as_dict(s).get("counters"))) for s in shared_counters)
    if total > RESOURCE_SLICE_MAX_SHARED_COUNTERS:
        errs.append(invalid(path.child("sharedCounters"), total, "the total number of shared counters must not exceed "
                                                                 f"{RESOURCE_SLICE_MAX_SHARED_COUNTERS}"))
    errs.extend(validate_set(shared_counters, -1, validate_counter_set_1_34,
                             lambda counter_set: as_str(as_dict(counter_set).get("name")),
                             path.child("sharedCounters"), key_field="name"))
    return errs


def _validate_spec_1_37(spec: dict, old_spec: dict | None, path: Path, opts: Options) -> ErrorList:
    errs: ErrorList = []
    name = spec.get("partitionTypeAttribute")
    if name is not None:
        name = as_str(name)
        errs.extend(validate_partition_type_attribute(spec, name, path))
        old_name = old_spec.get("partitionTypeAttribute") if old_spec is not None else None
        if old_spec is None or old_name != name:  # declarative, ratcheted when unchanged
            if opts.profile.gate("DRAPartitionableDevicesType"):
                errs.extend(declarative.resource_fully_qualified_name(name, path.child("partitionTypeAttribute")))
            elif old_name is not None:  # with the gate off only an old slice's value survives the strategy
                errs.extend(declarative.mark([forbidden(path.child("partitionTypeAttribute"), "")]))
    operations = spec.get("skipNodeOperations")
    if operations is not None:
        old_operations = old_spec.get("skipNodeOperations") if old_spec is not None else None
        errs.extend(validate_skip_node_operations(operations, path.child("skipNodeOperations"),
                                                  declarative_rules=old_spec is None or old_operations != operations))
    return errs


def _have_consumes_counters(devices: list) -> bool:
    return any(as_list(as_dict(device).get("consumesCounters")) for device in devices)


def lookup_qualified_attribute(attributes: dict, name: str, bare_name: str) -> tuple[object, bool]:
    """The attribute under its full name, else (same driver domain) under the bare name."""
    if name in attributes:
        return attributes[name], True
    if bare_name and bare_name in attributes:
        return attributes[bare_name], True
    return None, False


def validate_partition_type_attribute(spec: dict, name: str, path: Path) -> ErrorList:
    """Kubernetes 1.37: every device that consumes counters names its partition type as a string."""
    devices = as_list(spec.get("devices"))
    if not _have_consumes_counters(devices):
        return [invalid(path.child("partitionTypeAttribute"), name,
                        "may only be set on a slice which declares devices that consume counters")]
    # A malformed name is reported declaratively; no device can carry it.
    if qualified_name_problems(name) or "/" not in name:
        return []
    driver = as_str(spec.get("driver"))
    bare_name = name.removeprefix(driver + "/") if name.startswith(driver + "/") else ""
    errs: ErrorList = []
    for i, device in enumerate(devices):
        device = as_dict(device)
        if not as_list(device.get("consumesCounters")):
            continue
        attr_path = path.child("devices").index(i).child("attributes").key(name)
        attribute, found = lookup_qualified_attribute(as_dict(device.get("attributes")), name, bare_name)
        if not found:
            errs.append(required(attr_path, "device consumes counters and `partitionTypeAttribute` names this "
                                            "attribute, so it must be set"))
        elif as_dict(attribute).get("string") is None:
            errs.append(invalid(attr_path, attribute,
                                "must be a string value because `partitionTypeAttribute` names this attribute"))
    return errs
