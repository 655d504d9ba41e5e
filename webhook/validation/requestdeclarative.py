"""Declarative rules of a device request (1.37's Validate_DeviceRequest and the types it reaches).

Hand-written validateDeviceRequest stops at "exactly one of `exactly` or `firstAvailable`" when a request has
both; declarative validation has no such union and validates each member on its own. These are the rules it
then reports (the hand-written twins of the members' other rules do not run).
"""

from __future__ import annotations

from typing import Any

from webhook.field import ErrorList, Path
from webhook.limits import DEVICE_SELECTORS_MAX_SIZE, FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE
from webhook.validation import declarative
from webhook.validation._helpers import as_dict, as_list, as_str
from webhook.validation.derivedattributes import derived_attributes_declaratively
from webhook.validation.names import validate_label_name
from webhook.validation.taints import VALID_DEVICE_TAINT_EFFECTS
from webhook.validation.tolerations import TOLERATION_OPERATORS

ALLOCATION_MODES = ("All", "ExactCount")


def _toleration_rules(toleration: Any, path: Path) -> ErrorList:
    """Validate_DeviceToleration: key (optional) a label key, operator required and an enum, effect an enum."""
    toleration = as_dict(toleration)
    key = as_str(toleration.get("key"))
    errs = declarative.mark(validate_label_name(key, path.child("key"))) if key else []
    operator = toleration.get("operator")
    errs.extend(declarative.required_value(operator, path.child("operator")) or
                declarative.enum(operator, TOLERATION_OPERATORS, path.child("operator")))
    effect = as_str(toleration.get("effect"))
    if effect:
        errs.extend(declarative.enum(effect, VALID_DEVICE_TAINT_EFFECTS, path.child("effect")))
    return errs


def _request_body_rules(request: dict, path: Path) -> ErrorList:
    """The rules `exactly` and a firstAvailable entry share: selectors, allocationMode, tolerations,
    derivedAttributes."""
    errs = declarative.max_items(as_list(request.get("selectors")), DEVICE_SELECTORS_MAX_SIZE, path.child("selectors"))
    mode = as_str(request.get("allocationMode"))
    if mode:
        errs.extend(declarative.enum(mode, ALLOCATION_MODES, path.child("allocationMode")))
    for i, toleration in enumerate(as_list(request.get("tolerations"))):
        errs.extend(_toleration_rules(toleration, path.child("tolerations").index(i)))
    if request.get("derivedAttributes") is not None:
        errs.extend(derived_attributes_declaratively(as_list(request.get("derivedAttributes")),
                                                     path.child("derivedAttributes")))
    return errs


def _sub_request_rules(sub_request: Any, path: Path) -> ErrorList:
    """Validate_DeviceSubRequest: deviceClassName required and a DNS subdomain, then the shared rules."""
    sub_request = as_dict(sub_request)
    class_name = sub_request.get("deviceClassName")
    errs = declarative.required_value(class_name, path.child("deviceClassName")) or \
        declarative.long_name(as_str(class_name), path.child("deviceClassName"))
    errs.extend(_request_body_rules(sub_request, path))
    return errs


def validate_request_members_declaratively(request: dict, path: Path) -> ErrorList:
    """Validate_DeviceRequest's members: `exactly`, then `firstAvailable` (maxItems 8, unique names, each entry)."""
    errs: ErrorList = []
    exactly = request.get("exactly")
    if isinstance(exactly, dict):
        errs.extend(_request_body_rules(exactly, path.child("exactly")))
    first_available = as_list(request.get("firstAvailable"))
    fa_path = path.child("firstAvailable")
    too_many = declarative.max_items(first_available, FIRST_AVAILABLE_DEVICE_REQUEST_MAX_SIZE, fa_path)
    if too_many:
        return errs + too_many
    errs.extend(declarative.unique_map(first_available, lambda sub: as_str(as_dict(sub).get("name")), fa_path))
    for i, sub_request in enumerate(first_available):
        errs.extend(_sub_request_rules(sub_request, fa_path.index(i)))
    return errs
