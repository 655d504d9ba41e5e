"""A lower bound of cel-go's estimated cost for expressions too deep for the faithful engine.

Computed on the parse tree (`grammar`) with the rules of cel-go's estimator (`cost.py`) that need
no types: a node costs at least the sum of its children (the larger branch for a ternary); a
comprehension costs its range, plus, per element, at least its body and one for the accumulator.
Element counts are known for list and map literals (and map/filter over them); any other range
counts as empty, so the bound never exceeds what cel-go estimates: a selector is only refused when
cel-go would refuse it too.
"""

from __future__ import annotations

from webhook.cel.estimates import MAX_UINT64
from webhook.cel.grammar import VAR_MACROS, Node, unwrap
from webhook.cel.unparse import render

MAX_PART_COMPILES = 16  # closed parts given to the faithful engine, largest first

_SIZED_RESULTS = ("map", "filter")  # list results with one element at most per range element


def comprehension(node: Node) -> tuple[Node, int] | None:
    """(range, number of variables) when `node` is a comprehension macro call, else None."""
    if node.kind != "call" or node.children[0] is None:
        return None
    args = node.children[1:]
    variables = VAR_MACROS.get(node.text, {}).get(len(args), 0)
    if not variables or node.text in ("optMap", "optFlatMap"):
        return None
    if all(unwrap(a).kind == "ident" for a in args[:variables]):
        return node.children[0], variables
    return None


def range_size(node: Node) -> int:
    """A lower bound of cel-go's maximum size estimate of a range: elements of a literal, else 0."""
    node = unwrap(node)
    while node.kind == "call" and node.text in _SIZED_RESULTS and comprehension(node):
        node = unwrap(node.children[0])  # map/filter: cel-go sizes the result like its range
    if node.kind == "list":
        return sum(1 for optional in node.optional if not optional)
    if node.kind == "map":
        return sum(1 for optional in node.optional if not optional)
    return 0


def _post_order(root: Node):
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        if done:
            yield node
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in node.children if c is not None)


def _scope(node: Node):
    """(children outside the scope, children inside it, names bound) for a comprehension or cel.bind."""
    found = comprehension(node)
    if found:
        target, variables = found
        args = node.children[1:]
        return [target], args[variables:], {unwrap(a).text for a in args[:variables]}
    target = node.children[0] if node.kind == "call" else None
    if node.text == "bind" and target is not None and unwrap(target).kind == "ident" \
            and unwrap(target).text == "cel" and len(node.children) == 4:
        var, init, body = node.children[1:]
        return [init], [body], {unwrap(var).text}
    return None


def _exact_parts(root: Node, part_cost) -> dict[int, int]:
    """cel-go's own estimates of the largest parts that the faithful engine can compile alone.

    A part qualifies when it holds a comprehension and uses no variable bound outside it (so its
    estimate does not depend on where it stands); the root already failed to compile.
    """
    names = set()
    for node in _post_order(root):
        scope = _scope(node)
        if scope:
            names.update(scope[2])
    free: dict[int, frozenset] = {}
    nests: dict[int, bool] = {}
    for node in _post_order(root):
        kids = [c for c in node.children if c is not None]
        scope = _scope(node)
        if node.kind == "ident":
            free[id(node)] = frozenset({node.text} & names)
        elif scope:
            outside, inside, bound = scope
            inner = frozenset().union(*(free[id(c)] for c in inside))
            free[id(node)] = frozenset().union(*(free[id(c)] for c in outside)) | (inner - bound)
        else:
            free[id(node)] = frozenset().union(*(free[id(c)] for c in kids))
        nests[id(node)] = comprehension(node) is not None or any(nests[id(c)] for c in kids)
    exact: dict[int, int] = {}
    stack = [c for c in reversed(root.children) if c is not None]
    attempts = 0
    while stack and attempts < MAX_PART_COMPILES:
        node = stack.pop()
        if not nests[id(node)]:
            continue
        if not free[id(node)]:
            attempts += 1
            cost = part_cost(render(node))
            if cost is not None:
                exact[id(node)] = cost
                continue
        stack.extend(c for c in reversed(node.children) if c is not None)
    return exact


def lower_bound(root: Node, part_cost=None) -> int:
    """A lower bound of the maximum cost cel-go estimates for the tree (saturating like uint64).

    `part_cost(text)`, when given, is the faithful engine's estimate for a closed part (or None).
    """
    exact = _exact_parts(root, part_cost) if part_cost else {}
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
        if id(node) in exact:
            value = exact[id(node)]
        elif found is not None:
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
