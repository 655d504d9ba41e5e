"""A lower bound of cel-go's estimated cost for expressions too deep for the faithful engine.

Computed on the parse tree (`grammar`) with the rules of cel-go's estimator (`cost.py`) that need
no types: a node costs at least the sum of its children (the larger branch for a ternary); a
comprehension costs its range, plus, per element, at least its body and one for the accumulator.
Element counts are known for list and map literals (and map/filter over them); any other range
counts as empty, so the bound never exceeds what cel-go estimates: a selector is only refused when
cel-go would refuse it too.
"""

from __future__ import annotations

from webhook.cel.grammar import _VAR_MACROS, Node, _unwrap
from webhook.cel.estimates import MAX_UINT64

_SIZED_RESULTS = ("map", "filter")  # list results with one element at most per range element


def comprehension(node: Node) -> tuple[Node, int] | None:
    """(range, number of variables) when `node` is a comprehension macro call, else None."""
    if node.kind != "call" or node.children[0] is None:
        return None
    args = node.children[1:]
    variables = _VAR_MACROS.get(node.text, {}).get(len(args), 0)
    if not variables or node.text in ("optMap", "optFlatMap"):
        return None
    if all(_unwrap(a).kind == "ident" for a in args[:variables]):
        return node.children[0], variables
    return None


def range_size(node: Node) -> int:
    """A lower bound of cel-go's maximum size estimate of a range: elements of a literal, else 0."""
    node = _unwrap(node)
    while node.kind == "call" and node.text in _SIZED_RESULTS and comprehension(node):
        node = _unwrap(node.children[0])  # map/filter: cel-go sizes the result like its range
    if node.kind == "list":
        return sum(1 for optional in node.optional if not optional)
    if node.kind == "map":
        return sum(1 for optional in node.optional if not optional)
    return 0


def lower_bound(root: Node) -> int:
    """A lower bound of the maximum cost cel-go estimates for the tree (saturating like uint64)."""
    bounds: dict[int, int] = {}
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        kids = [c for c in node.children if c is not None]
        if not done:
            stack.append((node, True))
            stack.extend((c, False) for c in kids)
            continue
        found = comprehension(node)
        if found is not None:
            target, variables = found
            body = max((bounds[id(a)] for a in node.children[1 + variables:]), default=0)
            value = bounds[id(target)] + range_size(target) * max(body + 1, 1)
        elif node.kind == "cond":
            cond, then, other = (bounds[id(c)] for c in kids)
            value = cond + max(then, other)
        elif node.kind == "call" and node.text == "bind" and comprehension(node) is None:
            value = max((bounds[id(c)] for c in kids), default=0)  # cel.bind: at least its parts
        else:
            value = sum(bounds[id(c)] for c in kids)
        bounds[id(node)] = min(value, MAX_UINT64)
    return bounds[id(root)]
