"""A lower bound of cel-go's estimated cost for expressions too deep for the faithful engine.

Computed on the parse tree (`grammar`) with the rules of cel-go's estimator (`cost.py`) that need
no types: a node costs at least the sum of its children (the larger branch for a ternary), an
identifier 1 (not a call's namespace), a list, map or message literal its base cost; a
comprehension costs its range, plus, per element, at least its body and one for the accumulator.
The element count of a range is cel-go's own size estimate where the faithful engine can compile
the range alone, with the comprehensions and binds that declare its variables around it (so
`device.attributes[d]` inside `device.attributes.all(d, ...)` gets the size Kubernetes gives it);
otherwise the elements of list and map literals (and map/filter over them), else none. So the
bound never exceeds what cel-go estimates: a selector is only refused when cel-go would refuse it.
"""

from __future__ import annotations

from collections import deque

from webhook.cel.estimates import LIST_CREATE_BASE_COST, MAP_CREATE_BASE_COST, MAX_UINT64, \
    SELECT_AND_IDENT_COST, STRUCT_CREATE_BASE_COST
from webhook.cel.grammar import VAR_MACROS, Node, unwrap
from webhook.cel.unparse import render

MAX_PART_COMPILES = 64  # distinct closed parts given to the faithful engine per selector and kind
MAX_PART_BYTES = 20_480  # their text: two maximal selectors (compiling takes 1 to 2 ms per KiB)
ENGINE_DEPTH = 32  # parts higher than the engine's parser limit are not tried
MAX_RANGE_COMPILES = 32  # distinct ranges (with their declarations) given to the faithful engine
RANGE_ITEM = "__deep_range_item"  # the variable of the comprehension that wraps a range to be sized
_BASE_COSTS = {"list": LIST_CREATE_BASE_COST, "map": MAP_CREATE_BASE_COST, "message": STRUCT_CREATE_BASE_COST}
_BIND_RANGE_COST = LIST_CREATE_BASE_COST  # cel.bind is a comprehension over an empty list literal
_LEAVES = frozenset({"literal", "ident", "field"})
# Macros whose loop step adds the cost of their bodies (by how many): `__result__ && b`, `__result__ || b`,
# `b ? __result__ + 1 : __result__`, `__result__ + [b]`, `b ? __result__ + [x] : __result__` (cel-go
# parser/macro.go and ext/comprehensions.go).
_ADDED_BODIES = {"all": 1, "exists": 1, "exists_one": 1, "existsOne": 1, "map": 1, "filter": 1}
# Literals standing for a part of a scalar type whose size cel-go's estimator takes as one; numbers in
# parentheses, so that `-part` stays a negation rather than reading as a negative literal.
_PLACEHOLDERS = {"bool": "true", "int": "(0)", "uint": "(0u)", "double": "(0.0)", "null": "null"}

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


def free_names(root: Node) -> tuple[dict[int, frozenset], dict[int, int]]:
    """Per node: the names bound in the tree that it uses from outside, and its height (the levels
    of nodes it holds, parentheses not counted)."""
    names = set()
    for node in _post_order(root):
        scope = _scope(node)
        if scope:
            names.update(scope[2])
    free: dict[int, frozenset] = {}
    height: dict[int, int] = {}
    for node in _post_order(root):
        kids = [c for c in node.children if c is not None]
        height[id(node)] = max((height[id(c)] for c in kids), default=0) + (node.kind != "paren")
        scope = _scope(node)
        if node.kind == "ident":
            free[id(node)] = frozenset({node.text} & names)
        elif scope:
            outside, inside, bound = scope
            inner = frozenset().union(*(free[id(c)] for c in inside))
            free[id(node)] = frozenset().union(*(free[id(c)] for c in outside)) | (inner - bound)
        else:
            free[id(node)] = frozenset().union(*(free[id(c)] for c in kids))
    return free, height


def exact_parts(root: Node, spine: PartCosts, others: PartCosts | None, free: dict,
                 height: dict) -> dict[int, tuple[int, tuple]]:
    """cel-go's own estimates (and types) of the largest parts the faithful engine can compile alone,
    by the id of the part as `unwrap` gives it.

    A part qualifies when it is more than a leaf, no higher than the engine parses, and uses no
    variable bound outside it (so its estimate does not depend on where it stands); the root
    already failed to compile. The highest path comes first (`spine`: replacing a part there is
    what makes the rest shallow), then, while `others` allows, the parts beside it. The argument
    of has() is never a part of its own (it must stay a selection).
    """
    exact: dict[int, tuple[int, tuple]] = {}
    top_node = unwrap(root)
    stack: list[tuple[Node, bool]] = [(top_node, True)]
    later: deque[Node] = deque()
    path: list[Node] = []  # the highest path so far, from the root
    while stack or later:
        if not stack:
            if others is None or others.exhausted:
                break
            stack.append((later.popleft(), False))
        node, on_spine = stack.pop()
        if on_spine:
            path.append(node)
        if node.kind in _LEAVES:
            continue
        if node is not top_node and not free[id(node)] and height[id(node)] <= ENGINE_DEPTH:
            found = (spine if on_spine else others)(render(node))
            if found is not None:
                exact[id(node)] = found
                if on_spine:
                    _climb(path, exact, spine, free, height)
                continue
        if node.kind == "call" and node.text == "has" and node.children[0] is None:
            continue
        kids = [unwrap(c) for c in node.children if c is not None]
        if not kids:
            continue
        if on_spine:
            top = max(kids, key=lambda k: height[id(k)])
            later.extend(k for k in kids if k is not top)
            stack.append((top, True))
        else:
            stack.extend((k, False) for k in reversed(kids))
    return exact


def _climb(path: list[Node], exact: dict, costs: PartCosts, free: dict, height: dict) -> None:
    """Up the highest path from its exactly costed end: the highest closed ancestor that the engine
    can parse once that part is written as a literal of its type, costed as the ancestor with the
    literal plus the part (as `skeleton` does), again from there, while that holds."""
    while True:
        part = path[-1]
        cost, part_type = exact[id(part)]
        literal = _PLACEHOLDERS.get(part_type[0])
        if literal is None:
            return
        level, best = 1, None
        for k in range(len(path) - 2, 0, -1):  # not the root: it is the skeleton's
            parent, child = path[k], path[k + 1]
            kids = [unwrap(c) for c in parent.children if c is not None]
            if (parent.kind == "cond" and child is not kids[0]) or (comprehension(parent) and child is not kids[0]) \
                    or (parent.kind == "call" and parent.text == "has"):
                break  # not added once (a branch, a loop), or a selection that must stay one
            level = 1 + max([level] + [height[id(c)] for c in kids if c is not child])
            if level > ENGINE_DEPTH:
                break
            if not free[id(parent)]:
                best = k
        if best is None:
            return
        found = costs(render(path[best], {id(part): literal}))
        if found is None:
            return
        del exact[id(part)]
        exact[id(path[best])] = (min(found[0] + cost, MAX_UINT64), found[1])
        del path[best + 1:]


class PartCosts:
    """The faithful engine's (cost, type) of parts by their text: each text compiled once, at most
    `limit` texts and `byte_limit` bytes of them (then `exhausted`, and every other part unknown)."""

    def __init__(self, part_cost, limit: int = MAX_PART_COMPILES, byte_limit: int = MAX_PART_BYTES) -> None:
        self.part_cost, self.limit, self.byte_limit = part_cost, limit, byte_limit
        self.known: dict[str, tuple | None] = {}
        self.bytes = 0

    @property
    def exhausted(self) -> bool:
        return len(self.known) >= self.limit or self.bytes >= self.byte_limit

    def __call__(self, text: str) -> tuple[int, tuple] | None:
        if text not in self.known and not self.exhausted:
            self.bytes += len(text)
            self.known[text] = self.part_cost(text)
        return self.known.get(text)


def skeleton(root: Node, exact: dict[int, tuple[int, tuple]],
             sizes: dict[int, int] | None = None) -> tuple[str, int] | None:
    """The expression with each exactly costed part of a scalar type replaced by a literal of that
    type, and the parts' total cost; None when nothing is replaced.

    The literal has the part's type and, being a scalar, the same size (one), so the faithful
    engine types the skeleton as cel-go types the whole. Parts are replaced only where cel-go adds
    their cost (not in a ternary's branch): once, or, in the body of a macro whose loop step adds
    its body (`_ADDED_BODIES`), once per element of each range around it as cel-go sizes it
    (`sizes`, by comprehension node). So cel-go's estimate of the whole is the skeleton's (where
    literals cost nothing) plus the parts' so counted (saturating).
    """
    replace: dict[int, str] = {}
    total = 0
    stack = [(unwrap(root), 1)]
    while stack:
        node, times = stack.pop()
        found = exact.get(id(node))
        literal = found and _PLACEHOLDERS.get(found[1][0])
        if literal:
            replace[id(node)] = literal
            total = min(total + found[0] * times, MAX_UINT64)
            continue
        kids = [(c, times) for c in node.children if c is not None]
        if node.kind == "cond":
            kids = kids[:1]  # a ternary costs the larger branch
        elif comprehension(node):
            target, variables = comprehension(node)
            size = (sizes or {}).get(id(node))
            bodies = node.children[1 + variables:]
            kids = [(target, times)]
            if size is not None and _ADDED_BODIES.get(node.text) == len(bodies):
                kids += [(c, min(times * size, MAX_UINT64)) for c in bodies]
        stack.extend((unwrap(c), t) for c, t in kids)
    if not replace:
        return None
    return render(root, replace), total


def _declared_range(target: Node, chain, free: dict, rendered: dict[int, str]) -> str:
    """A text declaring the variables `target` uses as where it stands, then ranging over it:
    `R1.all(v1, cel.bind(w, I, target.all(item, true)))`. `chain` links the enclosing scopes,
    innermost first, as (scope node, outer link). `rendered` memoises texts of nodes: the scopes
    around many comprehensions are the same nodes, rendered once."""
    def text(node: Node) -> str:
        key = id(node)
        if key not in rendered:
            rendered[key] = render(node)
        return rendered[key]

    needed = set(free[id(target)])
    heads: list[str] = []
    while needed and chain is not None:
        scope_node, chain = chain
        outside, _, bound = _scope(scope_node)
        if not needed & bound:
            continue
        needed = (needed - bound) | set().union(*(free[id(c)] for c in outside))
        found = comprehension(scope_node)
        if found:
            range_node, variables = found
            names = ", ".join(unwrap(a).text for a in scope_node.children[1:1 + variables])
            heads.append(f"({text(range_node)}).all({names}, ")
        else:
            var, init = scope_node.children[1], scope_node.children[2]
            heads.append(f"cel.bind({unwrap(var).text}, {text(init)}, ")
    inner = f"({text(target)}).all({RANGE_ITEM}, true)"
    return "".join(reversed(heads)) + inner + ")" * len(heads)


def engine_range_sizes(root: Node, range_size_of, free: dict) -> dict[int, int]:
    """cel-go's maximum size estimate of each comprehension's range that the faithful engine can
    size (`range_size_of(text)`: the size of the range of the comprehension over RANGE_ITEM)."""
    sizes: dict[int, int] = {}
    asked: dict[str, int | None] = {}
    rendered: dict[int, str] = {}
    stack: list = [(root, None)]
    while stack:
        node, chain = stack.pop()
        found = comprehension(node)
        if found is not None:
            text = _declared_range(found[0], chain, free, rendered)
            if text not in asked and len(asked) < MAX_RANGE_COMPILES:
                asked[text] = range_size_of(text)
            if asked.get(text) is not None:
                sizes[id(node)] = asked[text]
        scope = _scope(node)
        inside = scope[1] if scope else ()
        for child in node.children:
            if child is not None:
                inner = any(child is c for c in inside)
                stack.append((child, (node, chain) if inner else chain))
    return sizes


def lower_bound(root: Node, part_cost=None, range_size_of=None) -> int:
    """A lower bound of the maximum cost cel-go estimates for the tree (saturating like uint64).

    `part_cost(text)`, when given, is the faithful engine's (estimate, type) for a closed part (or
    None); `range_size_of(text)` its maximum size estimate of a range (see `engine_range_sizes`).
    """
    return analyse(root, part_cost, range_size_of)[0]


def analyse(root: Node, part_cost=None, range_size_of=None,
            others: PartCosts | None = None) -> tuple[int, dict[int, tuple[int, tuple]], dict[int, int]]:
    """(`lower_bound`, the exactly costed parts and the ranges' sizes for `skeleton`). `part_cost` and
    `others`, when they are `PartCosts`, are the budgets of the highest path and of the parts beside
    it (None: only the highest path); a plain function gets a budget of each."""
    free, height = free_names(root)
    if part_cost is not None and not isinstance(part_cost, PartCosts):
        part_cost, others = PartCosts(part_cost), PartCosts(part_cost)
    exact = exact_parts(root, part_cost, others, free, height) if part_cost is not None else {}
    engine_sizes = engine_range_sizes(root, range_size_of, free) if range_size_of else {}
    namespaces = _call_namespaces(root)
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
        if id(unwrap(node)) in exact:
            value = exact[id(unwrap(node))][0]
        elif found is not None:
            target, variables = found
            body = max((bounds[id(a)] for a in node.children[1 + variables:]), default=0)
            size = engine_sizes.get(id(node))
            value = bounds[id(target)] + (range_size(target) if size is None else size) * max(body + 1, 1)
        elif node.kind == "cond":
            cond, then, other = (bounds[id(c)] for c in kids)
            value = cond + max(then, other)
        elif _scope(node) is not None:  # cel.bind: its empty range, the value and the body
            value = _BIND_RANGE_COST + bounds[id(node.children[2])] + bounds[id(node.children[3])]
        elif node.kind == "ident":
            value = 0 if id(node) in namespaces else SELECT_AND_IDENT_COST
        else:
            value = _BASE_COSTS.get(node.kind, 0) + sum(bounds[id(c)] for c in kids)
        bounds[id(node)] = min(value, MAX_UINT64)
    return bounds[id(root)], exact, engine_sizes


def _call_namespaces(root: Node) -> set[int]:
    """Identifiers that may name a function's namespace (`math` in `math.least(...)`), not a value:
    receivers of calls, directly or through selections (`a.b.f()`); they count nothing."""
    found: set[int] = set()
    for node in _post_order(root):
        if node.kind == "call" and node.children[0] is not None:
            target = unwrap(node.children[0])
            while target.kind == "select":
                target = unwrap(target.children[0])
            if target.kind == "ident":
                found.add(id(target))
    return found
