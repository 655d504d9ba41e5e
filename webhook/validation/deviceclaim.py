"""DeviceClaim rules shared by ResourceClaim and ResourceClaimTemplate (upstream validateDeviceClaim).

Ported from upstream's validateDeviceClaim and the functions it calls, in the same order, so the
error list comes out in the API server's order. `opts.stored` selects the CEL environment and skips the
size limit of opaque parameters; claims and templates are always validated with stored=False.
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path, invalid, not_supported, required
from webhook.limits import (
    DEVICE_CONFIG_MAX_SIZE,
    DEVICE_CONSTRAINTS_MAX_SIZE,
    DEVICE_REQUESTS_MAX_SIZE,
    FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE,
)
from webhook.validation import declarative
from webhook.validation._helpers import as_dict, as_int, as_list, as_str, validate_set, validate_slice
from webhook.validation.derivedattributes import (
    ClaimState,
    gather_constraint_attributes,
    validate_device_derived_attributes,
    validate_total_derived_attribute_cost,
)
from webhook.validation.deviceconfig import validate_device_configuration
from webhook.validation.names import validate_dns_label, validate_dns_subdomain
from webhook.validation.equality import semantic_equal
from webhook.validation.options import Options, declarative_rules, name_field, short_circuit
from webhook.validation.qualifiedname import validate_fully_qualified_name
from webhook.validation.requestdeclarative import ALLOCATION_MODES, validate_request_members_declaratively
from webhook.validation.requestref import RequestNames, gather_request_names, validate_request_name_ref
from webhook.validation.selectors import validate_selector_slice
from webhook.validation.tolerations import validate_device_tolerations

def _name_key(item: Any) -> str:
    return as_str(item.get("name")) if isinstance(item, dict) else ""


def validate_device_claim(device_claim: Any, path: Path, opts: Options) -> ErrorList:
    device_claim = as_dict(device_claim)
    names = gather_request_names(device_claim)
    state = ClaimState(gather_constraint_attributes(device_claim.get("constraints")))
    short, key_field = short_circuit(opts), name_field(opts)
    request_opts = _declarative_ratchet(device_claim, opts)
    errs = validate_set(as_list(device_claim.get("requests")), DEVICE_REQUESTS_MAX_SIZE,
                        lambda request, p: validate_device_request(request, p, request_opts(request), state),
                        _name_key, path.child("requests"), short, key_field)
    constraint_opts = opts.with_declarative_ratcheted(_unchanged(device_claim, opts.old_device_claim, "constraints"))
    errs.extend(validate_slice(as_list(device_claim.get("constraints")), DEVICE_CONSTRAINTS_MAX_SIZE,
                               lambda constraint, p: validate_device_constraint(constraint, p, names, constraint_opts),
                               path.child("constraints"), short))
    errs.extend(validate_slice(as_list(device_claim.get("config")), DEVICE_CONFIG_MAX_SIZE,
                               lambda config, p: validate_device_claim_configuration(config, p, names, opts),
                               path.child("config"), short))
    if opts.profile.behaviours.derived_attributes:
        errs.extend(validate_total_derived_attribute_cost(state, path))
    return errs


def _unchanged(device_claim: dict, old: dict | None, field: str) -> bool:
    return old is not None and semantic_equal(device_claim.get(field), as_dict(old).get(field), "DeviceClaim", field)


def _declarative_ratchet(device_claim: dict, opts: Options):
    """The options of each request: declarative validation (Validate_DeviceClaim) skips an unchanged request list,
    and in a changed one each request equal to the old request of its name."""
    old = opts.old_device_claim
    if old is None:
        return lambda request: opts
    if _unchanged(device_claim, old, "requests"):
        ratcheted = opts.with_declarative_ratcheted(True)
        return lambda request: ratcheted
    old_requests = {_name_key(r): r for r in as_list(as_dict(old).get("requests"))}
    return lambda request: opts.with_declarative_ratcheted(
        _name_key(request) in old_requests and semantic_equal(request, old_requests[_name_key(request)],
                                                               "DeviceRequest"))


def validate_device_request(request: Any, path: Path, opts: Options, state: ClaimState | None = None) -> ErrorList:
    request = as_dict(request)
    state = state if state is not None else ClaimState()
    request_name = as_str(request.get("name"))
    errs = validate_dns_label(as_str(request.get("name")), path.child("name"))
    first_available = as_list(request.get("firstAvailable"))
    exactly = request.get("exactly")
    has_first_available = len(first_available) > 0
    has_exactly = isinstance(exactly, dict)
    behaviours = opts.profile.behaviours
    both = has_first_available and has_exactly
    # 1.34 validates each member present and reports the union after them; later releases stop at the union.
    if has_first_available and (not has_exactly or behaviours.union_members_validated):
        errs.extend(validate_set(first_available, FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE,
                                 lambda sub, p: validate_device_sub_request(sub, p, opts, state, request_name),
                                 _name_key,
                                 path.child("firstAvailable"), short_circuit(opts), name_field(opts)))
    if has_exactly and (not has_first_available or behaviours.union_members_validated):
        errs.extend(validate_exact_device_request(exactly, path.child("exactly"), opts, state, request_name))
    if not has_first_available and not has_exactly:
        errs.append(required(path, "exactly one of `exactly` or `firstAvailable` is required"))
    elif both:
        errs.append(invalid(path, None, "exactly one of `exactly` or `firstAvailable` is required, "
                                        "but multiple fields are set"))
        if declarative_rules(opts) and not behaviours.union_members_validated:
            errs.extend(validate_request_members_declaratively(request, path))
    return errs


def _validate_request_body(request: dict, path: Path, opts: Options, state: ClaimState | None = None,
                           request_name: str = "") -> ErrorList:
    """The part common to `exactly` and a `firstAvailable` entry (class, selectors, mode, tolerations)."""
    errs = validate_device_class_ref(as_str(request.get("deviceClassName")), path.child("deviceClassName"))
    errs.extend(validate_selector_slice(request.get("selectors"), path.child("selectors"), opts))
    if opts.profile.behaviours.derived_attributes and request.get("derivedAttributes") is not None:
        errs.extend(validate_device_derived_attributes(request.get("derivedAttributes"),
                                                       path.child("derivedAttributes"), opts, request_name,
                                                       state or ClaimState()))
    errs.extend(validate_device_allocation_mode(as_str(request.get("allocationMode")), request.get("count"),
                                                path.child("allocationMode"), path.child("count")))
    errs.extend(validate_device_tolerations(request.get("tolerations"), path.child("tolerations"),
                                            opts.profile.behaviours.taint_effect_none))
    return errs


def validate_device_sub_request(sub_request: Any, path: Path, opts: Options, state: ClaimState | None = None,
                                parent_request_name: str = "") -> ErrorList:
    sub_request = as_dict(sub_request)
    name = as_str(sub_request.get("name"))
    errs = validate_dns_label(name, path.child("name"))
    errs.extend(_validate_request_body(sub_request, path, opts, state, f"{parent_request_name}/{name}"))
    return errs


def validate_exact_device_request(request: Any, path: Path, opts: Options, state: ClaimState | None = None,
                                  request_name: str = "") -> ErrorList:
    return _validate_request_body(as_dict(request), path, opts, state, request_name)


def validate_device_allocation_mode(mode: str, count: Any, mode_path: Path, count_path: Path) -> ErrorList:
    count = as_int(count)
    if mode == "All":
        if count != 0:
            return [invalid(count_path, count, f"must not be specified when allocationMode is '{mode}'")]
    elif mode == "ExactCount":
        if count <= 0:
            return [invalid(count_path, count, "must be greater than zero")]
    else:
        return [not_supported(mode_path, mode, ALLOCATION_MODES)]
    return []


def validate_device_class_ref(device_class: str, path: Path) -> ErrorList:
    """validateDeviceClass: a request's deviceClassName is required and a DNS subdomain."""
    if not device_class:
        return [required(path, "")]
    return validate_dns_subdomain(device_class, path)


def _validate_request_refs(refs: Any, path: Path, names: RequestNames, short: bool = True) -> ErrorList:
    return validate_set(as_list(refs), DEVICE_REQUESTS_MAX_SIZE,
                        lambda ref, p: validate_request_name_ref(ref, p, names), as_str, path, short)


def validate_device_constraint(constraint: Any, path: Path, names: RequestNames, opts: Options) -> ErrorList:
    constraint = as_dict(constraint)
    errs = _validate_request_refs(constraint.get("requests"), path.child("requests"), names, short_circuit(opts))
    match_attribute, distinct_attribute = constraint.get("matchAttribute"), constraint.get("distinctAttribute")
    if isinstance(match_attribute, str):
        errs.extend(_validate_constraint_attribute(match_attribute, path.child("matchAttribute"), opts))
        # Hand-written validation looks no further; enforced declarative rules check distinctAttribute too.
        if isinstance(distinct_attribute, str) and declarative_rules(opts):
            errs.extend(declarative.resource_fully_qualified_name(distinct_attribute, path.child("distinctAttribute")))
    elif isinstance(distinct_attribute, str):
        errs.extend(_validate_constraint_attribute(distinct_attribute, path.child("distinctAttribute"), opts))
    elif opts.profile.enabled("DRAConsumableCapacity"):
        # Upstream's wording, "multiple fields are set" included.
        errs.append(required(path, 'exactly one of "matchAttribute" or "distinctAttribute" is required, '
                                   "but multiple fields are set"))
    else:
        errs.append(required(path.child("matchAttribute"), ""))
    return errs


def _validate_constraint_attribute(name: str, path: Path, opts: Options) -> ErrorList:
    """Enforced declarative rules add a format check, which also rejects an upper-case domain."""
    errs = validate_fully_qualified_name(name, path, opts.profile.behaviours.empty_name_part_required)
    if declarative_rules(opts):
        return declarative.merge_covered(errs, declarative.resource_fully_qualified_name(name, path))
    return errs


def validate_device_claim_configuration(config: Any, path: Path, names: RequestNames, opts: Options) -> ErrorList:
    config = as_dict(config)
    errs = _validate_request_refs(config.get("requests"), path.child("requests"), names, short_circuit(opts))
    errs.extend(validate_device_configuration(config, path, opts))
    return errs


def validate_allocation_request_refs(refs: Any, path: Path, names: RequestNames, short: bool = True) -> ErrorList:
    """Request references of an allocation's config entry (same rules as a claim's config)."""
    return _validate_request_refs(refs, path, names, short)
