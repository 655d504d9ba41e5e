"""The types cel-go gives the nodes an attribute value reaches, where attribute values are `any`.

Without list-type attributes Kubernetes types attribute values `google.protobuf.Any`; the faithful
engine types them `dyn` (and its probe environment `Any`, but joins them its own way). cel-go treats
`any` like `dyn` when it joins two types (checker/types.go `isDyn`, `mostGeneral`): a conditional
takes `mostGeneral(else, then)`, a list or map literal `mostGeneral(previous, current)` element by
element, and of the two the `dyn` or `any` one wins, however deep (`[any]` against `[dyn]`). So
`(c ? [attr] : [dyn(1)])[0]` is `dyn` in cel-go and `[attr, attr][0]` is `any`.

`go_types` types again, bottom-up, the nodes an attribute value reaches, by cel-go's rules for the
kinds it knows: literals of lists and maps, conditionals, indexes, field selections, `dyn()`, list
concatenation, optionals, and comprehensions (macros included: an empty accumulator takes the type
its loop step gives it, as cel-go's type parameter does). A reached node of another kind whose type
holds `dyn` or `any` is unknown (None), and so is what it reaches: callers keep their own, lenient,
reading there. A node no attribute value reaches keeps the checker's type.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

from webhook.cel.checked import CALL, COMPREHENSION, IDENT, LIST, MAP, SELECT, CheckedAst, Expr, children

DYN = ("dyn",)
ANY = ("any",)
_PARAM = ("param", "")  # an empty literal's element type, bound by what joins it (a cel-go type parameter)
_DYN_LIKE = ("dyn", "any")  # cel-go's isDyn


def go_types(ast: CheckedAst, attribute_value: Callable[[Expr], bool] | None = None) -> dict[int, tuple | None]:
    """Node id -> cel-go's type of each node an attribute value reaches (None: not known here); nodes
    it does not reach are absent. `attribute_value(node)`: the node reads an attribute value, for an
    AST whose checker typed those `dyn`; without it, a node typed `any` (the probe environment's
    attribute values) is one."""
    typer = _Typer(ast, attribute_value)
    try:
        typer.type(ast.root, {})
    except RecursionError:
        return {}
    return {node_id: None if t is None else _dyn_for_params(t) for node_id, t in typer.types.items()}


class _Typer:
    def __init__(self, ast: CheckedAst, attribute_value) -> None:
        self.ast = ast
        self.attribute_value = attribute_value or self._read_from_any_map
        self.types: dict[int, tuple | None] = {}  # reached nodes only

    @cached_property
    def reads(self) -> dict[int, tuple[bool, frozenset]]:
        """Node id -> (an attribute value is read below it, the identifiers below it): what can reach a
        comprehension's loop, known before it is typed (so that each node is typed once). Only an
        expression with a comprehension asks."""
        reads: dict[int, tuple[bool, frozenset]] = {}
        stack: list[tuple[Expr, bool]] = [(self.ast.root, False)]
        while stack:
            node, done = stack.pop()
            if not done:
                stack.append((node, True))
                stack.extend((child, False) for child in children(node))
                continue
            below = [reads[child.id] for child in children(node)]
            names = frozenset().union(*(n for _, n in below)) if below else frozenset()
            if node.kind == IDENT:
                names = names | {node.value}
            reads[node.id] = (self.attribute_value(node) or any(t for t, _ in below), names)
        return reads

    def _read_from_any_map(self, node: Expr) -> bool:
        """The probe environment's attribute value: an `any` read from a map of `any` values."""
        if self.ast.type_of(node) != ANY:
            return False
        if node.kind == SELECT and not node.test_only:
            source = node.operand
        elif node.kind == CALL and node.value == "_[_]" and len(node.args) == 2:
            source = node.args[0]
        else:
            return False
        t = self.ast.type_of(source)
        return t[0] == "map" and t[2] == ANY

    def type(self, node: Expr, scope: dict) -> tuple | None | bool:
        """cel-go's type of a reached node (None: unknown); False: not reached (the checker's type)."""
        if node.kind == COMPREHENSION:
            result = self._comprehension(node, scope)
            if result is False:
                return False
        else:
            reached = [self.type(child, scope) is not False for child in children(node)]
            if self.attribute_value(node):
                result = ANY
            elif node.kind == IDENT and node.value in scope:
                result = scope[node.value]
            elif not any(reached):
                return False
            else:
                result = self._reached(node)
        self.types[node.id] = result
        return result

    def of(self, node: Expr) -> tuple | None:
        """A child's type, typed already: cel-go's if reached, else the checker's."""
        return self.types[node.id] if node.id in self.types else self.ast.type_of(node)

    def _reached(self, node: Expr) -> tuple | None:
        checked = self.ast.type_of(node)
        kind = node.kind
        if kind == SELECT:
            return checked if node.test_only else _member(self.of(node.operand), checked)
        if kind == LIST:
            element = _join_all([self.of(a) for a in node.args])
            return None if element is None else ("list", element)
        if kind == MAP:
            if not all(isinstance(k, Expr) for k, _ in node.entries):
                return checked if not _has_dyn_like(checked) else None  # a message literal
            key = _join_all([self.of(k) for k, _ in node.entries])
            value = _join_all([self.of(v) for _, v in node.entries])
            return None if key is None or value is None else ("map", key, value)
        if kind == CALL:
            known = self._call(node)
            if known is not None:
                return known
        return checked if not _has_dyn_like(checked) else None

    def _call(self, node: Expr) -> tuple | None:
        name, args = node.value, [self.of(a) for a in node.args]
        target = None if node.operand is None else self.of(node.operand)
        if None in args or (node.operand is not None and target is None):
            return None
        if name == "dyn" and len(args) == 1 and node.operand is None:
            return DYN
        if name == "_?_:_" and len(args) == 3:
            return _join(args[2], args[1])
        if name == "_[_]" and len(args) == 2:
            return _element(args[0])
        if name == "_+_" and len(args) == 2 and args[0][0] == args[1][0] == "list":
            element = _join(args[1][1], args[0][1])
            return None if element is None else ("list", element)
        if name == "_[?_]" and len(args) == 2:
            element = _element(args[0])
            return None if element is None else _optional(element)
        if len(args) == 1 and (name == "optional.of" or (name == "of" and _is_ident(node.operand, "optional"))):
            return _optional(args[0])
        if target is not None and target[0] == "abstract" and target[1] == "optional_type" and len(target) == 3:
            if name == "value" and not args:
                return target[2]
            if name == "orValue" and len(args) == 1:
                return _join(args[0], target[2])
        return None

    def _comprehension(self, node: Expr, scope: dict) -> tuple | None | bool:
        """cel-go's checkComprehension: the variables take the range's element (and key) types and the
        accumulator its start's, or, started empty (a macro's), what the loop step makes of it."""
        range_reached = self.type(node.iter_range, scope) is not False
        start = node.accu_init
        empty = start.kind in (LIST, MAP) and not start.args and not start.entries
        start_reached = self.type(start, scope) is not False
        accumulator = (("list", _PARAM) if start.kind == LIST else ("map", _PARAM, _PARAM)) if empty \
            else self.of(start)
        inner = dict(scope)
        for name in (node.iter_var, node.iter_var2, node.accu_var):
            inner.pop(name, None)
        if range_reached:
            first, second = _iteration(self.of(node.iter_range), bool(node.iter_var2))
            inner[node.iter_var] = first
            if node.iter_var2:
                inner[node.iter_var2] = second
        # The loop, with the accumulator as a variable once something reaches the comprehension: its
        # range or start, or, inside the loop, an attribute value or a variable from outside.
        loop = [self.reads[part.id] for part in (node.loop_step, node.loop_condition)]
        involved = range_reached or start_reached or any(
            attribute or any(name in inner for name in names) for attribute, names in loop)
        if involved:
            inner[node.accu_var] = accumulator
        self.type(node.loop_step, inner)
        self.type(node.loop_condition, inner)
        if involved and empty:
            step = self.of(node.loop_step)
            accumulator = None if step is None or _has_param(step) else step
        if involved:
            inner[node.accu_var] = accumulator
        return self.type(node.result, inner)


def _is_ident(node: Expr | None, name: str) -> bool:
    return node is not None and node.kind == IDENT and node.value == name


def _optional(t: tuple) -> tuple:
    return ("abstract", "optional_type", t)


def _has_dyn_like(t: tuple) -> bool:
    return t[0] in _DYN_LIKE or any(isinstance(p, tuple) and _has_dyn_like(p) for p in t[1:])


def _has_param(t: tuple) -> bool:
    return t[0] == "param" or any(isinstance(p, tuple) and _has_param(p) for p in t[1:])


def _dyn_for_params(t: tuple) -> tuple:
    """A type parameter still free at the end is `dyn` (cel-go's substitute with typeParamToDyn)."""
    if t[0] == "param":
        return DYN
    if not _has_param(t):
        return t
    return (t[0], *(_dyn_for_params(p) if isinstance(p, tuple) else p for p in t[1:]))


def _iteration(t: tuple | None, two: bool) -> tuple:
    """The comprehension variables' types over range `t`: a list's element (with two variables, its
    index and element), a map's key and value, `dyn` over `dyn`; (None, None) where cel-go refuses
    the range (`any`) or it is unknown."""
    if t is None:
        return None, None
    if t[0] == "list":
        return (("int",), t[1]) if two else (t[1], None)
    if t[0] == "map":
        return t[1], t[2]
    if t[0] == "dyn":
        return DYN, DYN
    return None, None


def _member(operand: tuple | None, checked: tuple) -> tuple | None:
    """A field of `operand`: a message's field as checked, a map's value, `dyn` of `dyn` or `any`."""
    if operand is None:
        return None
    if operand[0] == "message":
        return checked
    if operand[0] == "map":
        return operand[2]
    return DYN if operand[0] in _DYN_LIKE else None


def _element(operand: tuple | None) -> tuple | None:
    """`operand[i]`: a list's element, a map's value; `dyn` of `dyn` or `any` (both overloads match)."""
    if operand is None:
        return None
    if operand[0] == "list":
        return operand[1]
    if operand[0] == "map":
        return operand[2]
    return DYN if operand[0] in _DYN_LIKE else None


def _join(later: tuple | None, earlier: tuple | None) -> tuple | None:
    """Where cel-go binds one type parameter to both (a conditional's branches, an optional and its
    default, two concatenated lists): mostGeneral(later, earlier); None when not assignable."""
    if later is None or earlier is None or not _assignable(later, earlier):
        return None
    return _most_general(later, earlier)


def _join_all(elements: list) -> tuple | None:
    """cel-go's joinTypes over a literal's elements: mostGeneral(previous, current) while assignable,
    else `dyn` (the homogeneity validator reports the mismatch)."""
    joined = None
    for t in elements:
        if t is None:
            return None
        if joined is None:
            joined = t
        elif _assignable(joined, t):
            joined = _most_general(joined, t)
        else:
            return DYN
    return _PARAM if joined is None else joined


def _assignable(a: tuple, b: tuple) -> bool:
    """cel-go's isAssignable for the types joined here (a free parameter takes the other type)."""
    if a[0] in _DYN_LIKE or b[0] in _DYN_LIKE or a[0] in ("error", "param") or b[0] in ("error", "param"):
        return True
    agree = _parameters_agree(a, b, _assignable)
    return a == b if agree is None else agree


def _less_specific(a: tuple, b: tuple) -> bool:
    """cel-go's isEqualOrLessSpecific (a free parameter is bound to the other type: never chosen)."""
    if b[0] == "param":
        return True
    if a[0] == "param":
        return False
    if a[0] in _DYN_LIKE:
        return True
    if b[0] in _DYN_LIKE:
        return False
    agree = _parameters_agree(a, b, _less_specific)
    if agree is not None:
        return agree
    return a[0] == b[0] == "type" or a == b


def _parameters_agree(a: tuple, b: tuple, relation) -> bool | None:
    """For two lists, maps or abstract types: the same kind and name, and `relation` parameter by
    parameter; False for types of different kinds; None for two types of another same kind."""
    if a[0] != b[0] or len(a) != len(b):
        return False
    if a[0] in ("list", "map"):
        return all(relation(p, q) for p, q in zip(a[1:], b[1:]))
    if a[0] == "abstract":
        return a[1] == b[1] and all(relation(p, q) for p, q in zip(a[2:], b[2:]))
    return None


def _most_general(a: tuple, b: tuple) -> tuple:
    if a[0] in ("list", "map") and a[0] == b[0] and len(a) == len(b) and (_has_param(a) or _has_param(b)):
        return (a[0], *(_most_general(p, q) for p, q in zip(a[1:], b[1:])))  # a parameter is bound inside
    return a if _less_specific(a, b) else b
