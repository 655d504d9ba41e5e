"""One device of a ResourceSlice (upstream validateDevice).

Written for speed on the common, valid case: name checks are cached (qualifiedname.py, names.py),
and paths are only built when there is an error to report.
"""

from __future__ import annotations

import re
from functools import lru_cache
from itertools import chain
from typing import Any

from webhook.api.attributes import note_common
from webhook.api.gotime import instant
from webhook.behaviours import RESOURCES
from webhook.field import (
    ErrorList,
    Path,
    forbidden,
    invalid,
    not_found,
    required,
    too_long,
    too_many,
)
from webhook.limits import (
    ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH,
    COUNTER_MAX_KEY_LENGTH,
    DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH,
    RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE,
    RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE,
    RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET,
    RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE,
    RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION,
    RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
)
from webhook.quantity import INT64_MAX, INT64_MIN, parse_json_quantity
from webhook.validation._helpers import (
    as_dict, as_list, as_str, materialise, truncate_if_too_long, validate_set, validate_slice,
)
from webhook.validation import declarative, devicedeclarative
from webhook.validation.bindingconditions import validate_device_binding_parameters
from webhook.validation.equality import semantic_equal
from webhook.validation.names import (
    byte_len,
    is_dns1123_label,
    is_native_resource,
    validate_dns_label,
    validate_node_name,
)
from webhook.validation.nodeallocatable import validate_node_allocatable_resources
from webhook.validation.nodeselector import validate_node_selector
from webhook.validation.options import DEFAULT_OPTIONS, Options
from webhook.validation.qualifiedname import problems_function
from webhook.validation.requestpolicy import validate_request_policy
from webhook.validation.taints import validate_device_taint

_LIST_FIELDS = ("bools", "ints", "strings", "versions")

_NUMERIC_IDENTIFIER = r"(0|[1-9]\d*)"
_PRE_RELEASE_IDENTIFIER = r"(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)"
_BUILD_IDENTIFIER = r"[0-9a-zA-Z-]+"
_SEMVER = re.compile(
    _NUMERIC_IDENTIFIER + r"\." + _NUMERIC_IDENTIFIER + r"\." + _NUMERIC_IDENTIFIER
    + r"(-" + _PRE_RELEASE_IDENTIFIER + r"(\." + _PRE_RELEASE_IDENTIFIER + r")*)?"
    + r"(\+" + _BUILD_IDENTIFIER + r"(\." + _BUILD_IDENTIFIER + r")*)?",
    re.ASCII,
)
_SEMVER_MSG = "must be a string compatible with semver.org spec 2.0.0"
_PER_DEVICE_MSG = ("exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when "
                   "`perDeviceNodeSelection` is set to true in the ResourceSlice spec")


# Attributes ------------------------------------------------------------------------------------

def num_entries_device_attribute(attributes: dict, list_fields: tuple[str, ...] = _LIST_FIELDS) -> int:
    total = 0
    for attribute in attributes.values():
        if not isinstance(attribute, dict):
            total += 1
            continue
        count = sum(len(v) for f in list_fields if isinstance(v := attribute.get(f), list))
        total += count if count else 1
    return total


def validate_device_attribute_string_value(value: Any, path_fn) -> ErrorList:
    if isinstance(value, str) and byte_len(value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
        return [too_long(path_fn(), "", DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH)]
    return []


def validate_device_attribute_version_value(value: Any, path_fn) -> ErrorList:
    value = as_str(value)
    errs: ErrorList = []
    if not _SEMVER.fullmatch(value):
        errs.append(invalid(path_fn(), value, _SEMVER_MSG))
    if byte_len(value) > DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH:
        errs.append(too_long(path_fn(), "", DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH))
    return errs


def validate_device_attribute(attribute: Any, path: Path, list_fields: tuple[str, ...] = _LIST_FIELDS,
                              empty_required: bool = False) -> ErrorList:
    """`list_fields`: the list-valued fields the release has (none before 1.36: unknown fields, not values);
    `empty_required`: no value at all is Required, not Invalid (behaviour empty_attribute_required)."""
    attribute = as_dict(attribute)
    errs: ErrorList = []
    num_fields = 0
    if attribute.get("bool") is not None:
        num_fields += 1
    if attribute.get("int") is not None:
        num_fields += 1
    if (value := attribute.get("string")) is not None:
        num_fields += 1
        errs.extend(validate_device_attribute_string_value(value, lambda: path.child("string")))
    if (value := attribute.get("version")) is not None:
        num_fields += 1
        errs.extend(validate_device_attribute_version_value(value, lambda: path.child("version")))
    for name in list_fields:
        items = attribute.get(name)
        if items is None:
            continue
        num_fields += 1
        items = as_list(items)
        if not items:
            errs.append(invalid(path.child(name), [], "must not be empty if specified"))
        if name == "strings":
            for i, item in enumerate(items):
                errs.extend(validate_device_attribute_string_value(item, lambda i=i: path.child("strings").index(i)))
        elif name == "versions":
            for i, item in enumerate(items):
                errs.extend(validate_device_attribute_version_value(item, lambda i=i: path.child("versions").index(i)))
    if num_fields == 0:
        errs.append(required(path, "exactly one value must be specified") if empty_required
                    else invalid(path, "", "exactly one value must be specified"))
    elif num_fields > 1:
        errs.append(invalid(path, attribute, "exactly one value must be specified"))
    return errs


_LIST_FIELD_SET = frozenset(_LIST_FIELDS)


@lru_cache(maxsize=8192)
def _version_ok(value: str) -> bool:
    return byte_len(value) <= DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH and _SEMVER.fullmatch(value) is not None


_SHORT_STRING = DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH // 4  # characters: at most 4 bytes each, always short enough


def _validate_attributes(attributes: dict, path: Path, at_key: bool = False,
                         list_fields: tuple[str, ...] = _LIST_FIELDS,
                         empty_required: bool = False) -> tuple[ErrorList, int, bool]:
    """Key and value errors of the attribute map, numEntriesDeviceAttribute, and whether every attribute was a
    common one (one value: no attribute union can fail).

    The common valid attribute (exactly one scalar field of its JSON type that passes its checks, one
    value) is recognised inline: a call per attribute is a large share of a 4096-attribute slice's
    checks. Every other attribute goes through validate_device_attribute. A map of common attributes
    only is one the type check accepts: `note_common` says so (see webhook.api.attributes).
    `at_key`: key errors go to `attributes[<key>]` (behaviour map_key_errors_at_key), else to the map;
    `empty_required`: empty name parts and empty attributes are Required (1.34's behaviours)."""
    errs: ErrorList = []
    num_values = 0
    map_path: Path | None = None
    common = True
    name_problems = problems_function(empty_required)
    for key, attribute in attributes.items():
        problems = name_problems(key)
        if problems:
            map_path = map_path or path.child("attributes")
            errs.extend(materialise(problems, _key_path(map_path, key, ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH)
                                    if at_key else map_path))
        if type(attribute) is dict and len(attribute) == 1:
            ((name, value),) = attribute.items()
            kind = type(value)
            if name == "int":
                if kind is int and INT64_MIN <= value <= INT64_MAX:
                    num_values += 1
                    continue
            elif name == "bool":
                if kind is bool:
                    num_values += 1
                    continue
            elif kind is str and ((name == "string" and (len(value) <= _SHORT_STRING
                                                         or byte_len(value) <= DEVICE_ATTRIBUTE_MAX_VALUE_LENGTH))
                                  or (name == "version" and _version_ok(value))):
                num_values += 1
                continue
        common = False
        num_values += num_entries_device_attribute({key: attribute}, list_fields)
        map_path = map_path or path.child("attributes")
        errs.extend(validate_device_attribute(
            attribute, _key_path(map_path, key, ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH), list_fields, empty_required))
    if common:
        note_common(attributes)
    return errs, num_values, common


def _key_path(map_path: Path, key: str, max_len: int) -> Path:
    """validateMap's path of one entry: the key shortened in the middle when longer than `max_len`."""
    return map_path.key(truncate_if_too_long(key, max_len))


def has_list_attribute(attributes: dict) -> bool:
    try:  # one pass in C over every attribute's field names; a list field name sends it to the exact walk
        if _LIST_FIELD_SET.isdisjoint(chain.from_iterable(attributes.values())):
            return False
    except TypeError:  # an attribute that is not a map (or holds unhashable items): the walk judges it
        pass
    for attribute in attributes.values():
        if type(attribute) is dict and not _LIST_FIELD_SET.isdisjoint(attribute):
            if any(attribute.get(f) is not None for f in _LIST_FIELDS):
                return True
    return False


# Capacity --------------------------------------------------------------------------------------

def _validate_capacity(capacity: dict, allow_multiple_allocations: bool, path: Path,
                       opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    errs: ErrorList = []
    map_path: Path | None = None
    at_key = opts.profile.behaviours.map_key_errors_at_key
    name_problems = problems_function(opts.profile.behaviours.empty_name_part_required)
    for key, entry in capacity.items():
        problems = name_problems(key)
        if problems:
            map_path = map_path or path.child("capacity")
            errs.extend(materialise(problems, _key_path(map_path, key, ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH)
                                    if at_key else map_path))
        entry = as_dict(entry)
        policy = entry.get("requestPolicy")
        if policy is None:
            continue
        map_path = map_path or path.child("capacity")
        key_path = _key_path(map_path, key, ATTRIBUTE_AND_CAPACITY_MAX_KEY_LENGTH)
        policy_path = key_path.child("requestPolicy")
        if allow_multiple_allocations:
            errs.extend(validate_request_policy(parse_json_quantity(entry.get("value")), as_dict(policy), policy_path,
                                                opts.profile))
        else:
            errs.append(forbidden(policy_path, "allowMultipleAllocations must be true"))
    return errs


# Counters --------------------------------------------------------------------------------------

def validate_counter_map(counters: dict, max_size: int, path: Path, at_key: bool = False) -> ErrorList:
    """validateMap(counters, max, 63, validateCounterName, <any quantity is valid>); `at_key`: errors at
    `counters[<key>]` (behaviour map_key_errors_at_key), else at the map."""
    if max_size >= 0 and len(counters) > max_size:  # negative: the limit is over a total, checked by the caller
        return [too_many(path, len(counters), max_size)]
    errs: ErrorList = []
    for key in counters:
        if not isinstance(key, str):
            continue
        errs.extend(validate_dns_label(key, _key_path(path, key, COUNTER_MAX_KEY_LENGTH) if at_key else path))
    return errs


def _validate_named_counters(obj: Any, name_field: str, max_counters: int, path: Path,
                             at_key: bool = False, label_name: bool = True) -> ErrorList:
    """The shape both counter lists share: a DNS-label name (`label_name`, else only a name) and a
    non-empty counter map."""
    obj = as_dict(obj)
    errs: ErrorList = []
    name = as_str(obj.get(name_field))
    if not name:
        errs.append(required(path.child(name_field), ""))
    elif label_name:
        errs.extend(validate_dns_label(name, path.child(name_field)))
    counters = as_dict(obj.get("counters"))
    if not counters:
        errs.append(required(path.child("counters"), ""))
    else:
        errs.extend(validate_counter_map(counters, max_counters, path.child("counters"), at_key))
    return errs


def validate_device_counter_consumption(consumption: Any, path: Path, at_key: bool = False) -> ErrorList:
    return _validate_named_counters(consumption, "counterSet",
                                    RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE_COUNTER_CONSUMPTION, path, at_key)


def validate_counter_set(counter_set: Any, path: Path, at_key: bool = False) -> ErrorList:
    return _validate_named_counters(counter_set, "name", RESOURCE_SLICE_MAX_COUNTERS_PER_COUNTER_SET, path, at_key)


def validate_counter_set_1_34(counter_set: Any, path: Path) -> ErrorList:
    """1.34: no limit per set (the caller bounds the total); a counter's errors at its key."""
    return _validate_named_counters(counter_set, "name", -1, path, at_key=True)


def _validate_consumption_1_34(consumption: Any, path: Path) -> ErrorList:
    """validateDeviceCounterConsumption of 1.34: counterSet Required only when empty, no limit per entry."""
    return _validate_named_counters(consumption, "counterSet", -1, path, at_key=True, label_name=False)


def _validate_consumes_counters_1_34(consumes: list, shared_counters: dict[str, set], path: Path) -> ErrorList:
    """1.34: any number of consumptions, at most 32 counters over all of them, each naming a counter set
    (and its counters) of the same slice."""
    consumes_path = path.child("consumesCounters")
    errs = validate_set(consumes, -1, _validate_consumption_1_34, _counter_set_name, consumes_path,
                        key_field="counterSet")
    total = sum(len(as_dict(as_dict(c).get("counters"))) for c in consumes)
    if total > RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE:
        errs.append(invalid(path, total, "the total number of counters must not exceed "
                                         f"{RESOURCE_SLICE_MAX_COUNTERS_PER_DEVICE}"))
    for i, consumption in enumerate(consumes):
        consumption = as_dict(consumption)
        counter_set = as_str(consumption.get("counterSet"))
        names = shared_counters.get(counter_set)
        if names is None:
            errs.append(invalid(consumes_path.index(i).child("counterSet"), counter_set,
                                "must reference a counterSet defined in the ResourceSlice sharedCounters"))
            continue
        for name in as_dict(consumption.get("counters")):
            if name not in names:
                errs.append(invalid(consumes_path.index(i).child("counters"), name,
                                    "must reference a counter defined in the ResourceSlice sharedCounters"))
    return errs


def validate_device_counter_consumption_at_key(consumption: Any, path: Path) -> ErrorList:
    return validate_device_counter_consumption(consumption, path, at_key=True)


def validate_counter_set_at_key(counter_set: Any, path: Path) -> ErrorList:
    return validate_counter_set(counter_set, path, at_key=True)


def _counter_set_name(item: Any) -> str:
    return as_str(as_dict(item).get("counterSet"))


# Taints ----------------------------------------------------------------------------------------

def _taint_key(taint: Any) -> tuple:
    taint = as_dict(taint)
    added = taint.get("timeAdded")
    return (as_str(taint.get("key")), as_str(taint.get("value")), as_str(taint.get("effect")),
            (isinstance(added, str) and instant(added)) or added)


def taints_equal(a: Any, b: Any) -> bool:
    """Semantic deep-equal of two taint lists (nil and empty are equal; timeAdded the same instant)."""
    a, b = as_list(a), as_list(b)
    if a == b:  # unchanged: no time to parse
        return True
    return len(a) == len(b) and all(_taint_key(x) == _taint_key(y) for x, y in zip(a, b))


def _validate_taints(taints: list, path: Path, opts: Options = DEFAULT_OPTIONS) -> ErrorList:
    behaviours = opts.profile.behaviours
    effect_none = behaviours.taint_effect_none
    return validate_slice(taints, behaviours.max_taints_per_device,
                          lambda taint, p: validate_device_taint(as_dict(taint), None, p, effect_none), path,
                          behaviours.list_size_short_circuit)


# Node selection --------------------------------------------------------------------------------

def _validate_node_selection(device: dict, per_device_node_selection: Any, path: Path) -> ErrorList:
    errs: ErrorList = []
    node_name = device.get("nodeName")
    node_selector = device.get("nodeSelector")
    all_nodes = device.get("allNodes")
    if per_device_node_selection is True:
        set_fields: list[str] = []
        if node_name is not None:
            node_name = as_str(node_name)
            if node_name:
                set_fields.append("`nodeName`")
                errs.extend(validate_node_name(node_name, path.child("nodeName")))
            else:
                errs.append(invalid(path.child("nodeName"), node_name, "must not be empty"))
        if node_selector is not None:
            set_fields.append("`nodeSelector`")
            errs.extend(validate_node_selector(as_dict(node_selector), path.child("nodeSelector")))
        if all_nodes is not None:
            if all_nodes is True:
                set_fields.append("`allNodes`")
            else:
                errs.append(invalid(path.child("allNodes"), all_nodes, "must be either unset or set to true"))
        if not set_fields:
            errs.append(required(path, _PER_DEVICE_MSG))
        elif len(set_fields) > 1:
            errs.append(invalid(path, "{" + ", ".join(set_fields) + "}", _PER_DEVICE_MSG))
    elif node_name is not None or node_selector is not None or all_nodes is not None:
        errs.append(invalid(path, None, "`nodeName`, `nodeSelector` and `allNodes` can only be set if "
                                        "`perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
    return errs


# Node allocatable resources --------------------------------------------------------------------

def validate_node_allocatable_resource_mappings(mappings: dict, capacities: Any, path: Path) -> ErrorList:
    errs: ErrorList = []
    capacities = capacities if isinstance(capacities, dict) else None
    for resource_name, mapping in mappings.items():
        key_path = path.key(resource_name)
        if not is_native_resource(resource_name):
            errs.append(invalid(key_path, resource_name, "must be a node allocatable resource name"))
        mapping = as_dict(mapping)
        multiplier_raw = mapping.get("allocationMultiplier")
        capacity_key = mapping.get("capacityKey")
        if multiplier_raw is None and capacity_key is None:
            errs.append(invalid(key_path, "", "at least one of allocationMultiplier or capacityKey must be set"))
            continue
        if multiplier_raw is not None:
            multiplier = parse_json_quantity(multiplier_raw)
            if multiplier is not None and multiplier.sign() <= 0:
                errs.append(invalid(key_path.child("allocationMultiplier"), str(multiplier), "must be positive"))
        if capacity_key is not None:
            capacity_key = as_str(capacity_key)
            if capacity_key == "":
                errs.append(invalid(key_path.child("capacityKey"), "", "capacityKey must not be an empty string"))
            elif capacities is None or capacity_key not in capacities:
                errs.append(not_found(key_path.child("capacityKey"), capacity_key))
    return errs


# The device ------------------------------------------------------------------------------------

def validate_device(device: Any, old_device: dict | None, path: Path, per_device_node_selection: Any,
                    opts: Options = DEFAULT_OPTIONS, declarative_rules: bool = False,
                    shared_counters: dict[str, set] | None = None) -> ErrorList:
    """`declarative_rules`: declarative validation is enforced and the device list is new or changed;
    `shared_counters`: the slice's counter names per set (behaviour counters_beside_devices, 1.34)."""
    device = as_dict(device)
    behaviours = opts.profile.behaviours
    errs: ErrorList = []
    allow_multiple_allocations = device.get("allowMultipleAllocations") is True
    name = as_str(device.get("name"))
    if is_dns1123_label(name):
        errs.extend(validate_dns_label(name, path.child("name")))

    attributes = as_dict(device.get("attributes"))
    capacity = as_dict(device.get("capacity"))
    total = len(attributes) + len(capacity)
    if total > RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE:
        errs.append(invalid(path, total, "the total number of attributes and capacities must not exceed "
                                         f"{RESOURCE_SLICE_MAX_ATTRIBUTES_AND_CAPACITIES_PER_DEVICE}"))
    list_fields = _LIST_FIELDS if behaviours.list_type_attributes else ()
    attribute_errs, num_values, common_attributes = (
        _validate_attributes(attributes, path, behaviours.map_key_errors_at_key, list_fields,
                             behaviours.empty_attribute_required) if attributes else ([], 0, True))
    # RD-03 came with list attributes (1.36); before, the 32 attributes-and-capacities bound it.
    if num_values > RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE and behaviours.list_type_attributes:
        errs.append(invalid(path, num_values, "the total number of attribute values must not exceed "
                                              f"{RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE}"))
    errs.extend(attribute_errs)
    # A ratcheted capacity map is skipped when it equals the old device's.
    if capacity and not (behaviours.capacity_ratcheting and old_device is not None
                         and semantic_equal(old_device.get("capacity"), capacity, "Device", "capacity")):
        errs.extend(_validate_capacity(capacity, allow_multiple_allocations, path, opts))

    taints = as_list(device.get("taints"))
    taints_changed = old_device is None or not taints_equal(old_device.get("taints"), taints)
    if taints_changed and taints:
        errs.extend(_validate_taints(taints, path.child("taints"), opts))
    # Declarative rules check every effect: of taints hand-written validation ratchets, and of a list past its
    # limit (no declarative maxItems), where hand-written validation stops at TooMany.
    if declarative_rules and (not taints_changed or len(taints) > behaviours.max_taints_per_device):
        errs.extend(devicedeclarative.declarative_taint_effects(taints, path.child("taints")))

    consumes = as_list(device.get("consumesCounters"))
    if consumes and behaviours.counters_beside_devices:
        errs.extend(_validate_consumes_counters_1_34(consumes, shared_counters or {}, path))
    elif consumes:
        errs.extend(validate_set(consumes, RESOURCE_SLICE_MAX_DEVICE_COUNTER_CONSUMPTIONS_PER_DEVICE,
                                 validate_device_counter_consumption_at_key if behaviours.map_key_errors_at_key
                                 else validate_device_counter_consumption, _counter_set_name,
                                 path.child("consumesCounters")))

    errs.extend(_validate_node_selection(device, per_device_node_selection, path))

    if device.get("bindingConditions") or device.get("bindingFailureConditions"):
        errs.extend(validate_device_binding_parameters(device, path, behaviours.list_size_short_circuit))
    model = behaviours.node_allocatable_model
    declared = device.get(model)
    if isinstance(declared, dict) and declared:
        if model == RESOURCES:
            errs.extend(validate_node_allocatable_resources(declared, device.get("capacity"), path.child(model),
                                                            declarative_rules))
        else:
            errs.extend(validate_node_allocatable_resource_mappings(declared, device.get("capacity"),
                                                                    path.child(model)))
    if declarative_rules:
        declarative_errs = devicedeclarative.declarative_device_rules(device, path, common_attributes)
        if declarative_errs:
            errs = declarative.merge_covered(errs, declarative_errs)
    return errs

