"""A request's `derivedAttributes` (Kubernetes 1.37; upstream validateDeviceDerivedAttributes).

Each entry names an attribute computed by a CEL expression per candidate device. Hand-written rules:
the name must be used by a matchAttribute/distinctAttribute constraint that targets the request,
names are unique, and the expression compiles to a scalar (or list) within the cost limit; the sum
of all derived expressions' costs in one claim has its own limit. Declarative (stable) rules: at
most 32 entries, name and expression required, the name fully qualified.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from webhook import cel
from webhook.field import ErrorList, Path, forbidden, invalid
from webhook.limits import DEVICE_CLAIM_DERIVED_ATTRIBUTE_CEL_MAX_COST, DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE
from webhook.validation import declarative
from webhook.validation._helpers import as_dict, as_list, as_str, validate_set
from webhook.validation.options import Options



@dataclass
class ClaimState:
    """What the derived-attribute rules share across one DeviceClaim (upstream deviceValidationOptions)."""

    # Request reference ("" = every request, "req", "req/sub") -> attribute names constraints use there.
    constraint_attributes: dict[str, set[str]] = field(default_factory=dict)
    total_derived_attribute_cost: int = 0


def gather_constraint_attributes(constraints: Any) -> dict[str, set[str]]:
    attributes: dict[str, set[str]] = {}
    for constraint in as_list(constraints):
        constraint = as_dict(constraint)
        if isinstance(constraint.get("matchAttribute"), str):
            name = constraint["matchAttribute"]
        elif isinstance(constraint.get("distinctAttribute"), str):
            name = constraint["distinctAttribute"]
        else:
            continue
        for reference in as_list(constraint.get("requests")) or [""]:
            attributes.setdefault(as_str(reference), set()).add(name)
    return attributes


def is_attribute_used_by_constraint(name: str, request_name: str, attributes: dict[str, set[str]]) -> bool:
    if name in attributes.get("", ()) or name in attributes.get(request_name, ()):
        return True
    parent, slash, _ = request_name.partition("/")
    return bool(slash) and name in attributes.get(parent, ())


def validate_device_derived_attributes(attrs: Any, path: Path, opts: Options, request_name: str,
                                       state: ClaimState) -> ErrorList:
    attrs = as_list(attrs)
    errs = validate_set(attrs, -1,
                        lambda attr, p: validate_device_derived_attribute(attr, p, opts, request_name, state),
                        lambda attr: as_str(as_dict(attr).get("name")), path)
    if not opts.declarative_ratcheted:
        errs.extend(derived_attributes_declaratively(attrs, path))
    return errs


def validate_device_derived_attribute(attr: Any, path: Path, opts: Options, request_name: str,
                                      state: ClaimState) -> ErrorList:
    attr = as_dict(attr)
    errs: ErrorList = []
    name = as_str(attr.get("name"))
    if name and not is_attribute_used_by_constraint(name, request_name, state.constraint_attributes):
        errs.append(invalid(path.child("name"), name, "must be referenced by at least one matchAttribute or "
                                                      "distinctAttribute constraint targeting this request"))
    expression = as_str(attr.get("expression"))
    if expression and not opts.stored:
        cel_errs, cost = cel.validate_derived_attribute(expression, path.child("expression"),
                                                        features=cel.features_for(opts.profile))
        errs.extend(cel_errs)
        state.total_derived_attribute_cost += cost
    return errs


def validate_total_derived_attribute_cost(state: ClaimState, path: Path) -> ErrorList:
    if state.total_derived_attribute_cost > DEVICE_CLAIM_DERIVED_ATTRIBUTE_CEL_MAX_COST:
        return [forbidden(path, "too complex, total cost of derived attribute CEL expressions in the claim "
                                "exceeds cost limit")]
    return []


def derived_attributes_declaratively(attrs: list, path: Path) -> ErrorList:
    """The `+k8s:` rules of a derivedAttributes list (1.37): maxItems 32, each name and expression."""
    errs = declarative.max_items(attrs, DEVICE_DERIVED_ATTRIBUTES_MAX_SIZE, path)
    if errs:
        return errs
    for k, attr in enumerate(attrs):
        attr = as_dict(attr)
        name = attr.get("name")
        name_errs = declarative.required_value(name, path.index(k).child("name"))
        errs.extend(name_errs or declarative.resource_fully_qualified_name(as_str(name), path.index(k).child("name")))
        errs.extend(declarative.required_value(attr.get("expression"), path.index(k).child("expression")))
    return errs
