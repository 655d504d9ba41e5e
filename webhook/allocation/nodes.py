"""Node selection: `NodeMatches` and the subset of component-helpers' nodeaffinity it needs."""

from __future__ import annotations

from webhook.numbers import parse_int64  # strconv.ParseInt(v, 10, 64), as nodeaffinity reads Gt/Lt


class NodeSelectorError(ValueError):
    """A node selector that the scheduler cannot parse."""


def node_name(node: dict | None) -> str:
    return ((node or {}).get("metadata") or {}).get("name") or ""


def _labels(node: dict | None) -> dict:
    return ((node or {}).get("metadata") or {}).get("labels") or {}


def _label_requirement(req: dict, labels: dict) -> bool:
    key, op, values = req.get("key", ""), req.get("operator", ""), list(req.get("values") or [])
    if op in ("In", "NotIn"):
        if not values:
            raise NodeSelectorError(f"{key}: for 'in', 'notin' operators, values set can't be empty")
        if op == "In":
            return key in labels and labels[key] in values
        return key not in labels or labels[key] not in values
    if op in ("Exists", "DoesNotExist"):
        if values:
            raise NodeSelectorError(f"{key}: values set must be empty for exists and does not exist")
        return (key in labels) == (op == "Exists")
    if op in ("Gt", "Lt"):
        if len(values) != 1 or parse_int64(values[0]) is None:
            raise NodeSelectorError(f"{key}: for 'Gt', 'Lt' operators, exactly one integer value is required")
        have = parse_int64(labels.get(key)) if key in labels else None
        if have is None:
            return False
        bound = parse_int64(values[0])
        return have > bound if op == "Gt" else have < bound
    raise NodeSelectorError(f"{op!r} is not a valid label selector operator")


def _field_requirement(req: dict, node: dict | None) -> bool:
    key, op, values = req.get("key", ""), req.get("operator", ""), list(req.get("values") or [])
    if key != "metadata.name":
        raise NodeSelectorError(f"{key}: not a supported field selector key")
    if op not in ("In", "NotIn") or len(values) != 1:
        raise NodeSelectorError(f"unexpected number of value ({len(values)}) for node field selector operator {op!r}")
    return (node_name(node) == values[0]) == (op == "In")


def selector_matches(selector: dict, node: dict | None) -> bool:
    """nodeaffinity.NodeSelector.Match: the terms are ORed; an empty term matches nothing."""
    labels = _labels(node)
    matched = False
    for term in selector.get("nodeSelectorTerms") or []:
        expressions, fields = term.get("matchExpressions") or [], term.get("matchFields") or []
        if not expressions and not fields:
            continue
        # Every requirement is parsed, as NewNodeSelector does, so a bad one is an error even after a match.
        ok = all([_label_requirement(r, labels) for r in expressions] + [_field_requirement(r, node) for r in fields])
        matched = matched or ok
    return matched


def node_matches(node: dict | None, name_to_match: str, all_nodes: bool, selector: dict | None) -> bool:
    """NodeMatches: nodeName, allNodes or nodeSelector, in that order."""
    if name_to_match:
        return node is not None and node_name(node) == name_to_match
    if all_nodes:
        return True
    if selector is not None:
        return selector_matches(selector, node)
    return False
