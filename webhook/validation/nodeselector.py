"""core's ValidateNodeSelector, with invalid label values not tolerated.

No exactly-one-term rule here: ResourceSlice adds that itself at the spec level.
"""

from __future__ import annotations

from webhook.field import ErrorList, Path, forbidden, invalid, required
from webhook.validation._helpers import as_dict, as_list, as_str
from webhook.validation.names import is_dns1123_subdomain, is_label_value, is_qualified_name

_LABEL_OPERATORS_WITH_VALUES = ("In", "NotIn")
_LABEL_OPERATORS_WITHOUT_VALUES = ("Exists", "DoesNotExist")
_LABEL_OPERATORS_SINGLE_VALUE = ("Gt", "Lt")
OBJECT_NAME_FIELD = "metadata.name"


def validate_node_selector(selector: dict, path: Path) -> ErrorList:
    """ValidateNodeSelector: at least one term, then every term."""
    selector = as_dict(selector)
    terms_path = path.child("nodeSelectorTerms")
    terms = as_list(selector.get("nodeSelectorTerms"))
    if not terms:
        return [required(terms_path, "must have at least one node selector term")]
    errs: ErrorList = []
    for i, term in enumerate(terms):
        errs.extend(validate_node_selector_term(term, terms_path.index(i)))
    return errs


def validate_node_selector_term(term: dict, path: Path) -> ErrorList:
    term = as_dict(term)
    errs: ErrorList = []
    for j, req in enumerate(as_list(term.get("matchExpressions"))):
        errs.extend(validate_node_selector_requirement(req, path.child("matchExpressions").index(j)))
    for j, req in enumerate(as_list(term.get("matchFields"))):
        errs.extend(validate_node_field_selector_requirement(req, path.child("matchFields").index(j)))
    return errs


def validate_node_selector_requirement(req: dict, path: Path) -> ErrorList:
    req = as_dict(req)
    operator = as_str(req.get("operator"))
    values = as_list(req.get("values"))
    errs: ErrorList = []
    if operator in _LABEL_OPERATORS_WITH_VALUES:
        if not values:
            errs.append(required(path.child("values"), "must be specified when `operator` is 'In' or 'NotIn'"))
    elif operator in _LABEL_OPERATORS_WITHOUT_VALUES:
        if values:
            errs.append(forbidden(path.child("values"),
                                  "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"))
    elif operator in _LABEL_OPERATORS_SINGLE_VALUE:
        if len(values) != 1:
            errs.append(required(path.child("values"),
                                 "must be specified single value when `operator` is 'Lt' or 'Gt'"))
    else:
        errs.append(invalid(path.child("operator"), operator, "not a valid selector operator"))
    key = as_str(req.get("key"))
    errs.extend(invalid(path.child("key"), key, m) for m in is_qualified_name(key))
    values_path = path.child("values")
    for v, value in enumerate(values):
        value = as_str(value)
        errs.extend(invalid(values_path.index(v), value, m) for m in is_label_value(value))
    return errs


def validate_node_field_selector_requirement(req: dict, path: Path) -> ErrorList:
    req = as_dict(req)
    operator = as_str(req.get("operator"))
    values = as_list(req.get("values"))
    errs: ErrorList = []
    if operator in _LABEL_OPERATORS_WITH_VALUES:
        if len(values) != 1:
            errs.append(required(path.child("values"),
                                 "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"))
    else:
        errs.append(invalid(path.child("operator"), operator, "not a valid selector operator"))
    key = as_str(req.get("key"))
    if key != OBJECT_NAME_FIELD:
        errs.append(invalid(path.child("key"), key, "not a valid field selector key"))
    else:
        values_path = path.child("values")
        for v, value in enumerate(values):
            value = as_str(value)
            errs.extend(invalid(values_path.index(v), value, m) for m in is_dns1123_subdomain(value))
    return errs
