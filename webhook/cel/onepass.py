"""The cost and result type of a common selector in one pass over the parsed message, without a Python tree.

Most selectors are made of literals, `device`, field selections, map and list indexing, `&&`, `||`
and operators (`==`, `<`, `+`, `in`, ...). For those, `cost.Coster` (cel-go's estimator) reduces to
the few rules below: the same arithmetic, paths and sizes, only without scopes (no comprehension
declares a variable), entry sizes (no literal list or map, no conditional, no concatenation
creates one) and function estimators (no member or library call). No node of these kinds is one a
literal validator checks. Anything else raises `Unsupported` at once, and the caller runs the general
estimator, so this module decides nothing on its own: `benchmarks/cel_differential.py` and
`tests/test_cel_differential.py` check that both give the same verdicts.

A node's result is the tuple (min cost, max cost, path, message, size): `path` is what the general
estimator records for the node (`()` for none), `size` the size it stores for it (None: computed on
demand from the path and the type, as `Coster.compute_size` does); the message gives the node id
when a type is needed.
"""

from __future__ import annotations

from math import ceil

from webhook.cel import leaves
from webhook.cel.builtincost import EQUALITY, plain_operator
from webhook.cel.checked import TYPES, decoded_overloads, decoded_type
from webhook.cel.costnodes import ACCUMULATORS, QUALIFIED, SCALARS, SELECT_COSTED, is_scalar
from webhook.cel.estimates import MAX_UINT64, ONE, STRING_TRAVERSAL_COST_FACTOR, by_factor
from webhook.cel.sizes import DeviceSizes

_LOGICAL = frozenset({"_&&_", "_||_"})
_INDEX = {"index_list": "@items", "index_map": "@values"}
_LIBRARY_EQUALITY_KINDS = ("abstract", "message")  # types whose `==` the library estimator prices
_STRING, _NAME = 0x32, 0x0A  # tags of Constant.string_value and Expr.Ident.name
_EXACT_FLOATS = 1 << 53  # every size below is a float exactly
# How `Coster.cost_call` prices a call without a target, by (function, serialized reference): its
# overload ids and one of these rules. Few distinct pairs exist; the table is bounded all the same.
_PLAIN, _EQUALITY, _OTHER = range(3)
_CALLS: dict[tuple[str, bytes | None], tuple[tuple[str, ...], int]] = {}
_CALLS_ENTRIES = 4096
_UNKNOWN = object()  # not in `DeviceSizes.estimates` yet (a get, not `in` then `[]`: another thread may clear it)


class Unsupported(Exception):
    """The expression has a node this pass does not handle."""


def _call_rule(function: str, raw: bytes | None) -> tuple[tuple[str, ...], int]:
    overloads = () if raw is None else decoded_overloads(raw)
    if overloads and plain_operator(function, overloads):
        rule = _PLAIN
    elif overloads in EQUALITY:
        rule = _EQUALITY
    else:
        rule = _OTHER
    if len(_CALLS) >= _CALLS_ENTRIES:
        _CALLS.clear()
    _CALLS[function, raw] = overloads, rule
    return overloads, rule


def estimate(checked, sizes: DeviceSizes) -> tuple[tuple[int, int], tuple]:
    """(cost, root type as `Coster.type_of` gives it) of a parsed `CheckedExpr`; raises `Unsupported`."""
    # `[]` rather than `.get` (which parses keywords): a missing key reads as empty bytes (upb adds
    # it), which decode to dyn and to no overloads, as a missing entry does in `checked`.
    type_map, reference_map = checked.type_map, checked.reference_map
    types, calls, estimates, size_estimate = TYPES, _CALLS, sizes.estimates, sizes.estimate

    def type_of(m) -> tuple:
        raw = type_map[m.id]
        return types.get(raw) or decoded_type(raw)

    def size_of(node: tuple):
        """Coster.compute_size of a visited node."""
        size = node[4]
        if size is not None:
            return size
        path = node[2]
        size = estimates.get(path, _UNKNOWN)
        if size is _UNKNOWN:
            size = size_estimate(path)
        if size is not None:
            return size
        return ONE if is_scalar(type_of(node[3])) else None

    def node_type(node: tuple) -> tuple:
        """Coster.node_type(e, Coster.node_path(e))."""
        t = type_of(node[3])
        path = node[2]
        if t[0] == "dyn" and path and path[0] not in ACCUMULATORS:
            t = sizes.value_type(path) or t
        return t

    def visit(m) -> tuple:
        """(min cost, max cost, path, message, size) of one node; the cases in order of frequency."""
        which = m.WhichOneof("expr_kind")
        if which == "call_expr":
            c = m.call_expr
            function = c.function
            # Functions named like identifiers are the library's (and dyn()): estimators price them. The
            # others, operators, are never member calls (no grammar gives them a target).
            if function.isidentifier():
                raise Unsupported(function)
            args = c.args
            if len(args) == 2:
                lhs_node, rhs_node = nodes = (visit(args[0]), visit(args[1]))
                if function in _LOGICAL:  # Coster.cost_call's shortcut for && and ||
                    high = lhs_node[1] + rhs_node[1]
                    return lhs_node[0], (high if high < MAX_UINT64 else MAX_UINT64), (), m, None
                low, high = lhs_node[0] + rhs_node[0], lhs_node[1] + rhs_node[1]
            else:
                nodes = [visit(a) for a in args]
                low = high = 0
                for node in nodes:
                    low += node[0]
                    high += node[1]
            node_id = m.id
            raw = reference_map[node_id]
            overloads, rule = calls.get((function, raw)) or _call_rule(function, raw)
            if not overloads:
                return 0, 0, (), m, None
            if rule == _PLAIN:  # Coster.cost_plain_operator: 1 + the arguments
                low = low + 1 if low < MAX_UINT64 else MAX_UINT64  # (min() parses keywords: slower)
                high = high + 1 if high < MAX_UINT64 else MAX_UINT64
                path = ()
                size = memo = None
                for overload in overloads:
                    sub = _INDEX.get(overload)
                    if sub is not None and nodes:
                        size = None  # the container's entry size: none in these shapes
                        path = nodes[0][2] + (sub,)
                    if size is None:  # Coster.compute_size(e), which keeps the first size it finds
                        if memo is not None:
                            size = memo
                        else:
                            size = memo = estimates.get(path, _UNKNOWN)
                            if size is _UNKNOWN:
                                size = memo = size_estimate(path)
                            if size is None and is_scalar(type_of(m)):
                                size = ONE
                return low, high, path, m, size
            if rule == _EQUALITY and len(nodes) == 2:  # Coster.cost_sized_equality
                if function == "_==_":
                    t = node_type(lhs_node)
                    if t[0] in _LIBRARY_EQUALITY_KINDS and t == node_type(rhs_node):
                        raise Unsupported("library equality")
                lhs, rhs = size_of(lhs_node), size_of(rhs_node)
                smallest_max = MAX_UINT64 if lhs is None else lhs[1]
                if rhs is not None and rhs[1] < smallest_max:
                    smallest_max = rhs[1]
                if smallest_max < _EXACT_FLOATS:  # estimates.by_factor, without its guards for huge sizes
                    traversal = (1 if smallest_max > 0 else 0), ceil(smallest_max * STRING_TRAVERSAL_COST_FACTOR)
                else:
                    traversal = by_factor((1 if smallest_max > 0 else 0, smallest_max), STRING_TRAVERSAL_COST_FACTOR)
                low, high = low + traversal[0], high + traversal[1]
                low, high = (low if low < MAX_UINT64 else MAX_UINT64), (high if high < MAX_UINT64 else MAX_UINT64)
                raw = type_map[node_id]
                t = types.get(raw) or decoded_type(raw)
                scalar = t[0] in SCALARS or t[0] == "abstract" and is_scalar(t)
                return low, high, (), m, (ONE if scalar else None)
            raise Unsupported(function)
        if which == "select_expr":
            s = m.select_expr
            operand = visit(s.operand)
            if s.test_only:  # a presence test costs nothing itself, and records no path
                return operand[0], operand[1], (), m, None
            low, high = operand[0], operand[1]
            raw = type_map[operand[3].id]
            if (types.get(raw) or decoded_type(raw))[0] in SELECT_COSTED:
                low = low + 1 if low < MAX_UINT64 else low
                high = high + 1 if high < MAX_UINT64 else high
            return low, high, operand[2] + (s.field,), m, None
        if which == "const_expr":
            raw = m.const_expr
            n = len(raw) - 2
            if n >= 0 and raw[0] == _STRING and raw[1] == n and raw.isascii():  # a short ASCII string: usual
                return 0, 0, (), m, (n, n)  # code points (Go's len([]rune(s))), here one per byte
            value = leaves.constant(raw)
            if isinstance(value, (str, bytes)):
                n = len(value)
                return 0, 0, (), m, (n, n)
            return 0, 0, (), m, ONE
        if which == "ident_expr":
            raw = m.ident_expr
            if len(raw) > 1 and raw[0] == _NAME and raw[1] == len(raw) - 2:
                name = raw[2:].decode("utf-8")
            else:
                name = leaves.ident(raw)
            qualified = QUALIFIED.get(name)
            if qualified is not None:
                return qualified[1][0], qualified[1][1], qualified[0], m, None
            return 1, 1, (name,), m, None
        raise Unsupported(which)

    if not checked.HasField("expr"):
        raise Unsupported("no expression")
    root = visit(checked.expr)
    t = type_of(root[3])
    if t[0] == "dyn":
        t = sizes.value_type(root[2]) or t
    return (min(root[0], MAX_UINT64), min(root[1], MAX_UINT64)), t
