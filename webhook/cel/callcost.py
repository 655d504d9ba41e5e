"""Per-function cost estimates that Kubernetes plugs into cel-go's estimator.

Checked in this order, as cel-go does: the overload estimators registered by cel-go's `sets` and
`lists` (v3) extensions, then DRA's `includes`, then apiserver's `library.CostEstimator`, which
switches on the function *name* (pkg/cel/library/cost.go, 1.36).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from webhook.cel.coststate import CostState  # what the estimates read of the cost walk (cost.Coster)
from webhook.cel.estimates import (
    LIST_CREATE_BASE_COST,
    MAX_UINT64,
    ONE,
    REGEX_STRING_LENGTH_COST_FACTOR,
    STRING_TRAVERSAL_COST_FACTOR,
    UNKNOWN,
    Estimate,
    add,
    by_factor,
    fixed,
    multiply,
)
from webhook.cel.sizes import RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE

if TYPE_CHECKING:
    from webhook.cel.costnodes import Node

REGEX_FACTOR = REGEX_STRING_LENGTH_COST_FACTOR
CallEstimate = tuple[Estimate, Estimate | None]  # (cost, result size)

# apiserver pkg/cel/types.go and library: types whose equality is O(1) or bounded.
_UNIT_EQUALITY_TYPES = {
    "kubernetes.Quantity", "kubernetes.Semver", "net.IP", "net.CIDR",
    "kubernetes.authorization.Authorizer", "kubernetes.authorization.PathCheck",
    "kubernetes.authorization.GroupCheck", "kubernetes.authorization.ResourceCheck",
    "kubernetes.authorization.Decision",
}
MAX_FORMAT_SIZE = 100  # apiserver cel.MaxFormatSize
MAX_NAME_FORMAT_REGEX_SIZE = 128  # apiserver cel.MaxNameFormatRegexSize
_SORTABLE = ("int", "uint", "double", "bool", "google.protobuf.Duration", "google.protobuf.Timestamp",
             "duration", "timestamp", "string", "bytes")


def _size(coster: CostState, node: Node) -> Estimate:
    """apiserver `sizeEstimate` / cel-go ext `estimateSize`: computed, then the DRA sizes, else unknown."""
    if node.computed_size is not None:
        return node.computed_size
    size = coster.sizes.estimate(node.path)
    return UNKNOWN if size is None else size


def _int_literal(node: Node, default: int) -> int:
    e = node.expr
    if e is not None and e.kind == 0 and isinstance(e.value, int) and not isinstance(e.value, bool):
        return e.value % (1 << 64)
    return default


def _allocating_list_call(factor: float, list_size: Estimate) -> CallEstimate:
    cost = add(add(by_factor(list_size, factor), ONE), fixed(LIST_CREATE_BASE_COST))
    return cost, list_size


def _list_sort(coster: CostState, node: Node, elem_type: str) -> CallEstimate:
    size = _size(coster, node)
    factor = 2.0 + (STRING_TRAVERSAL_COST_FACTOR if elem_type in ("string", "bytes") else 0.0)
    return _allocating_list_call(factor, multiply(size, size))


def overload_estimate(coster: CostState, overload: str, target: Node | None, args: list[Node]) -> CallEstimate | None:
    """cel-go ext.Sets and ext.Lists(v3) overload estimators."""
    if not overload.startswith(("list_", "lists_")):  # all of their overload ids do
        return None
    if overload.startswith("list_sets_"):
        factor = {"list_sets_contains_list": 1.0, "list_sets_intersects_list": 1.0,
                  "list_sets_equivalent_list": 2.0}.get(overload)
        if factor is None or len(args) != 2:
            return None
        return add(by_factor(multiply(_size(coster, args[0]), _size(coster, args[1])), factor), ONE), None
    if overload == "list_slice":
        if target is None or len(args) != 2:
            return None
        size = _size(coster, target)
        start, end = _int_literal(args[0], 0), _int_literal(args[1], size[1])
        return _allocating_list_call(1, fixed((end - start) % (1 << 64)))
    if overload in ("lists_range", "list_range"):  # cel-cpp spells cel-go's lists_range without the s
        if target is not None or len(args) != 1:
            return None
        return _allocating_list_call(1, fixed(_int_literal(args[0], MAX_UINT64)))
    if overload == "list_reverse":
        if target is None or args:
            return None
        return _allocating_list_call(1, _size(coster, target))
    if overload in ("list_flatten", "list_flatten_int"):
        if target is None or len(args) > 1:
            return None
        depth = _int_literal(args[0], MAX_UINT64) if args else 1
        return _allocating_list_call(float(depth), _size(coster, target))
    if overload == "list_distinct":
        if target is None or args:
            return None
        size = _size(coster, target)
        return _allocating_list_call(2.0, multiply(size, size))
    if overload.startswith("list_") and overload.endswith("_sort"):
        elem = overload[len("list_"):-len("_sort")]
        if elem in _SORTABLE and target is not None and not args:
            return _list_sort(coster, target, elem)
    if overload.startswith("list_") and overload.endswith("_sortByAssociatedKeys"):
        elem = overload[len("list_"):-len("_sortByAssociatedKeys")]
        if elem in _SORTABLE and target is not None and len(args) == 1:
            return _list_sort(coster, args[0], elem)
    return None


def _list_element_node(node: Node) -> Node | None:
    """apiserver `listElementNode`: the first type parameter, reached through `@items`."""
    from webhook.cel.costnodes import Node

    params = node.type[1:] if node.type[0] in ("list", "map") else ()
    if not params:
        return None
    path = node.path + ("@items",) if node.path is not None else None
    return Node(path, params[0], None, None)


def _string_traversal(size: Estimate, factor: float = STRING_TRAVERSAL_COST_FACTOR) -> Estimate:
    return by_factor(size, factor)


def library_estimate(coster: CostState, function: str, overload: str, target: Node | None,
                     args: list[Node]) -> CallEstimate | None:
    """DRA's `includes`, then apiserver's library.CostEstimator.EstimateCallCost."""
    if function == "includes" and overload == "dra_includes_dyn_dyn" and target is not None:
        return multiply((0, RESOURCE_SLICE_MAX_ATTRIBUTE_VALUES_PER_DEVICE), ONE), None
    if not function[:1].isalpha() and function != "_==_":  # the only operator the library prices
        return None
    size = lambda node: _size(coster, node)  # noqa: E731
    if function == "check":
        return fixed(350000), None
    if function in ("serviceAccount", "path", "group", "resource", "subresource", "namespace", "name",
                    "allowed", "reason", "error", "errored"):
        return ONE, None
    if function in ("fieldSelector", "labelSelector"):
        if len(args) == 1:
            length = size(args[0])
            parse = by_factor(length, STRING_TRAVERSAL_COST_FACTOR)
            requirements = by_factor(by_factor(length, 0.5), float(LIST_CREATE_BASE_COST + 40))
            return add(add(fixed(LIST_CREATE_BASE_COST), parse), requirements), None
    elif function in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"):
        if target is not None:
            elem = _list_element_node(target)
            if elem is not None:
                elem_cost = ONE
                if elem.type[0] in ("string", "bytes"):
                    elem_cost = add(elem_cost, _string_traversal(size(elem)))
                return multiply(size(target), elem_cost), None
            if function == "includes":  # a dyn target may be a list: one comparison per element
                return multiply(size(target), ONE), None
            return _string_traversal(size(target)), None
    elif function in ("url", "jsonpatch.escapeKey"):
        if len(args) == 1:
            s = size(args[0])
            return _string_traversal(s), s
    elif function in ("lowerAscii", "upperAscii", "substring", "trim"):
        if target is not None:
            s = size(target)
            return _string_traversal(s), s
    elif function == "replace":
        if target is not None and len(args) >= 2:
            return _replace(size(target), size(args[0]), size(args[1]))
    elif function == "split":
        if target is not None:
            s = size(target)
            max_size = s[1]
            if len(args) > 1:
                limit = args[1].expr
                if limit is not None and limit.kind == 0 and isinstance(limit.value, int) \
                        and not isinstance(limit.value, bool):
                    max_size = limit.value % (1 << 64)
            return _string_traversal(s, 2 * STRING_TRAVERSAL_COST_FACTOR), (0, max_size)
    elif function == "join":
        if target is not None:
            result = (0, 0)
            list_size = size(target)
            elem = _list_element_node(target)
            if elem is not None:
                result = multiply(list_size, size(elem))
            if args:
                separators = (max(list_size[0] - 1, 0), max(list_size[1] - 1, 0))
                result = add(result, multiply(size(args[0]), separators))
            return _string_traversal(result), result
    elif function in ("find", "findAll"):
        if target is not None and args:
            s = size(target)
            str_cost = by_factor(add(s, ONE), STRING_TRAVERSAL_COST_FACTOR)
            regex_cost = by_factor(size(args[0]), REGEX_STRING_LENGTH_COST_FACTOR)
            return multiply(str_cost, regex_cost), (0, s[1])
    elif function in ("cidr", "isIP", "isCIDR"):
        if args:
            return _string_traversal(size(args[0])), None
    elif function == "ip":
        if overload == "cidr_ip":
            return ONE, None
        if args:
            return _string_traversal(size(args[0])), None
    elif function == "ip.isCanonical":
        if args:
            return _string_traversal(size(args[0]), 2 * STRING_TRAVERSAL_COST_FACTOR), None
    elif function in ("masked", "prefixLength", "family", "isUnspecified", "isLoopback", "isLinkLocalMulticast",
                      "isLinkLocalUnicast", "isGlobalUnicast"):
        return ONE, None
    elif function in ("containsIP", "containsCIDR"):
        if args:
            ip = (4, 16)
            cost = _string_traversal(add(ip, ip))
            if function == "containsCIDR":
                cost = add(add(cost, _string_traversal(ip)), ONE)
            if overload in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
                cost = add(cost, _string_traversal(size(args[0])))
            return cost, None
    elif function in ("quantity", "isQuantity", "semver", "isSemver"):
        if args:
            return _string_traversal(size(args[0])), None
    elif function == "validate":
        if args:
            return by_factor(_string_traversal(size(args[0])),
                             MAX_NAME_FORMAT_REGEX_SIZE * REGEX_STRING_LENGTH_COST_FACTOR), None
    elif function == "format.named":
        return ONE, None
    elif function in ("sign", "asInteger", "isInteger", "asApproximateFloat", "isGreaterThan", "isLessThan",
                      "compareTo", "add", "sub", "major", "minor", "patch"):
        return ONE, None
    elif function in ("getScheme", "getHostname", "getHost", "getPort", "getEscapedPath", "getQuery"):
        return ONE, None
    elif function == "_==_":
        if len(args) == 2 and args[0].type == args[1].type and args[0].type[0] in ("abstract", "message"):
            name = args[0].type[1]
            if name in _UNIT_EQUALITY_TYPES:
                return ONE, None
            if name == "kubernetes.NamedFormat":
                return _string_traversal((1, MAX_FORMAT_SIZE)), None
            if name == "kubernetes.URL":
                # Upstream reads the right-hand size twice; kept as is.
                rhs = args[1].computed_size
                width = rhs[1] if rhs is not None else 1
                return _string_traversal((1, width)), None
    return None


def _replace(sz: Estimate, to_replace: Estimate, replace_with: Estimate) -> CallEstimate:
    count_min = count_max = 0
    retained_min = retained_max = 0
    if to_replace[0] == 0:
        count_max = sz[1] + 1 if sz[1] < MAX_UINT64 else sz[1]
        retained_max = sz[1]
    elif replace_with[1] <= to_replace[0]:
        retained_max = sz[1]
    else:
        count_max = int(math.ceil(float(sz[1]) / float(to_replace[0])))
    if to_replace[1] == 0:
        count_min = sz[0] + 1 if sz[0] < MAX_UINT64 else sz[0]
        retained_min = sz[0]
    elif to_replace[1] <= replace_with[0]:
        retained_min = sz[0]
    else:
        count_min = int(math.ceil(float(sz[0]) / float(to_replace[1])))
    count_max = min(count_max, MAX_UINT64)
    result = add(multiply((count_min, count_max), replace_with), (retained_min, retained_max))
    return _string_traversal(sz, 2 * STRING_TRAVERSAL_COST_FACTOR), result
