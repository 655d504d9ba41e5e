"""The cost and result type of a common selector in one pass over the parsed message, without a Python tree.

Most selectors are made of literals, `device`, field selections, map and list indexing, `&&`, `||`
and operators (`==`, `<`, `+`, `in`, ...). For those, `cost.Coster` (cel-go's estimator) reduces to
the few rules below: the same arithmetic, paths and sizes, only without scopes (no comprehension
declares a variable), entry sizes (no literal list or map, no conditional, no concatenation
creates one) and function estimators (no member or library call). No node of these kinds is one a
literal validator checks. Anything else raises `Unsupported` at once, and the caller runs the general
estimator, so this module decides nothing on its own: `benchmarks/cel_differential.py` and
`tests/test_cel_differential.py` check that both give the same verdicts.

A node's result is the tuple (min cost, max cost, path, node id, size): `path` is what the general
estimator records for the node (`()` for none), `size` the size it stores for it (None: computed on
demand from the path and the type, as `Coster.compute_size` does).
"""

from __future__ import annotations

from webhook.cel import leaves
from webhook.cel.builtincost import plain_operator
from webhook.cel.checked import DYN, NOTABLE_CALLS, decoded_overloads, decoded_type
from webhook.cel.costnodes import ACCUMULATORS, QUALIFIED, SELECT_COSTED, is_scalar
from webhook.cel.estimates import MAX_UINT64, ONE, STRING_TRAVERSAL_COST_FACTOR, by_factor
from webhook.cel.sizes import DeviceSizes

_LOGICAL = frozenset({"_&&_", "_||_"})
_EQUALITY = frozenset({("equals",), ("not_equals",)})
_INDEX = {"index_list": "@items", "index_map": "@values"}
_LIBRARY_EQUALITY_KINDS = ("abstract", "message")  # types whose `==` the library estimator prices


class Unsupported(Exception):
    """The expression has a node this pass does not handle."""


def estimate(checked, sizes: DeviceSizes) -> tuple[tuple[int, int], tuple]:
    """(cost, root type as `Coster.type_of` gives it) of a parsed `CheckedExpr`; raises `Unsupported`."""
    type_get = checked.type_map.get
    reference_get = checked.reference_map.get
    size_estimate = sizes.estimate

    def type_of(node_id: int) -> tuple:
        raw = type_get(node_id)
        return DYN if raw is None else decoded_type(raw)

    def size_of(node: tuple):
        """Coster.compute_size of a visited node."""
        size = node[4]
        if size is not None:
            return size
        size = size_estimate(node[2])
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
        which = m.WhichOneof("expr_kind")
        if which == "select_expr":
            s = m.select_expr
            operand = visit(s.operand)
            if s.test_only:  # a presence test costs nothing itself, and records no path
                return operand[0], operand[1], (), m.id, None
            low, high = operand[0], operand[1]
            if type_of(operand[3])[0] in SELECT_COSTED:
                low = low + 1 if low < MAX_UINT64 else low
                high = high + 1 if high < MAX_UINT64 else high
            return low, high, operand[2] + (s.field,), m.id, None
        if which == "call_expr":
            return call(m, m.call_expr)
        if which == "const_expr":
            value = leaves.constant(m.const_expr)
            if isinstance(value, (str, bytes)):  # code points of a string, like Go's len([]rune(s))
                n = len(value)
                return 0, 0, (), m.id, (n, n)
            return 0, 0, (), m.id, ONE
        if which == "ident_expr":
            name = leaves.ident(m.ident_expr)
            qualified = QUALIFIED.get(name)
            if qualified is not None:
                return qualified[1][0], qualified[1][1], qualified[0], m.id, None
            return 1, 1, (name,), m.id, None
        raise Unsupported(which)

    def call(m, c) -> tuple:
        function = c.function
        if function in NOTABLE_CALLS or function == "dyn" or c.HasField("target"):
            raise Unsupported(function)
        args = c.args
        if function in _LOGICAL and len(args) == 2:
            lhs, rhs = visit(args[0]), visit(args[1])
            return lhs[0], min(lhs[1] + rhs[1], MAX_UINT64), (), m.id, None
        nodes = [visit(a) for a in args]
        raw = reference_get(m.id)
        overloads = () if raw is None else decoded_overloads(raw)
        if not overloads:
            return 0, 0, (), m.id, None
        low = high = 0
        for node in nodes:
            low += node[0]
            high += node[1]
        if plain_operator(function, overloads):  # Coster.cost_plain_operator: 1 + the arguments
            low, high = min(low + 1, MAX_UINT64), min(high + 1, MAX_UINT64)
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
                        size = memo = size_estimate(path)
                        if size is None and is_scalar(type_of(m.id)):
                            size = ONE
            return low, high, path, m.id, size
        if overloads in _EQUALITY and len(nodes) == 2:  # Coster.cost_sized_equality
            if function == "_==_":
                t = node_type(nodes[0])
                if t[0] in _LIBRARY_EQUALITY_KINDS and t == node_type(nodes[1]):
                    raise Unsupported("library equality")
            lhs, rhs = size_of(nodes[0]), size_of(nodes[1])
            smallest_max = min(MAX_UINT64 if lhs is None else lhs[1], MAX_UINT64 if rhs is None else rhs[1])
            traversal = by_factor((1 if smallest_max > 0 else 0, smallest_max), STRING_TRAVERSAL_COST_FACTOR)
            low, high = min(traversal[0] + low, MAX_UINT64), min(traversal[1] + high, MAX_UINT64)
            return low, high, (), m.id, (ONE if is_scalar(type_of(m.id)) else None)
        raise Unsupported(function)

    if not checked.HasField("expr"):
        raise Unsupported("no expression")
    root = visit(checked.expr)
    t = type_of(root[3])
    if t[0] == "dyn":
        t = sizes.value_type(root[2]) or t
    return (min(root[0], MAX_UINT64), min(root[1], MAX_UINT64)), t
