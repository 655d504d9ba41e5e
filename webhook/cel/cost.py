"""Static worst-case cost of a checked selector: a port of cel-go v0.26 checker/cost.go.

Kubernetes rejects a selector whose estimated maximum exceeds 1,000,000. Every rule below follows
the Go code line by line (names kept), so an upstream change can be diffed against it. Function
specific estimates live in `callcost`; sizes reachable through `device` in `sizes`.
"""

from __future__ import annotations

from dataclasses import dataclass

from webhook.cel import callcost
from webhook.cel.checked import CALL, COMPREHENSION, DYN, IDENT, LIST, LITERAL, MAP, SELECT, STRUCT, CheckedAst, Expr
from webhook.cel.estimates import (
    CONST_COST,
    LIST_CREATE_BASE_COST,
    MAP_CREATE_BASE_COST,
    MAX_UINT64,
    ONE,
    SELECT_AND_IDENT_COST,
    STRING_TRAVERSAL_COST_FACTOR,
    STRUCT_CREATE_BASE_COST,
    UNKNOWN,
    ZERO,
    Estimate,
    add,
    by_factor,
    fixed,
    multiply,
    total,
    union,
)
from webhook.cel.sizes import DeviceSizes

_ACCUMULATORS = ("__result__", "@result")
_SCALARS = {"bool", "double", "duration", "int", "timestamp", "uint"}
_PRESENCE_TEST_COST = ZERO  # Kubernetes: PresenceTestHasCost(false)


@dataclass(slots=True)
class EntrySize:
    container: str  # "list" or "map"
    key: Estimate
    val: Estimate

    def union(self, other: EntrySize | None) -> EntrySize | None:
        if other is None:
            return None
        return EntrySize(self.container, union(self.key, other.key), union(self.val, other.val))


@dataclass(slots=True)
class Node:
    """cel-go's checker.AstNode: what function estimators see of an argument or target."""

    path: tuple[str, ...] | None
    type: tuple
    expr: Expr | None
    computed_size: Estimate | None


@dataclass(slots=True)
class _LocalVar:
    path: tuple[str, ...] | None
    size: Estimate | None
    entry_size: EntrySize | None


_CONST = fixed(CONST_COST)
_SELECT_AND_IDENT = fixed(SELECT_AND_IDENT_COST)
_LOGICAL = frozenset({"_&&_", "_||_"})  # overloads logical_and, logical_or
# Qualified variables (environment.QUALIFIED_CAPACITY): cel-go sees the identifier `device` (1) and a
# select on that struct (1).
_QUALIFIED = {"device.capacity": (("device", "capacity"), fixed(2 * SELECT_AND_IDENT_COST))}
_KINDS = {"message": "struct", "param": "type_param", "abstract": "opaque"}
_SELECT_COSTED = frozenset({"map", "message", "param"})  # map, struct and type-param operands


def kind(t: tuple) -> str:
    return _KINDS.get(t[0], t[0])


def is_scalar(t: tuple) -> bool:
    if t[0] in _SCALARS:
        return True
    return t[0] == "abstract" and t[1] == "optional_type" and len(t) > 2 and is_scalar(t[2])


def _literal_size(e: Expr) -> Estimate | None:
    """computeExprSize: sizes CEL knows from the expression itself."""
    if e.kind == LITERAL:
        v = e.value
        if isinstance(v, str):
            return fixed(len(v))  # code points, like Go's len([]rune(s))
        if isinstance(v, bytes):
            return fixed(len(v))
        return ONE
    if e.kind == LIST:
        return fixed(len(e.args))
    if e.kind == MAP:
        return fixed(len(e.entries))
    return None


class Coster:
    def __init__(self, ast: CheckedAst, sizes: DeviceSizes) -> None:
        self.ast = ast
        self.types = ast.types
        self.sizes = sizes
        self.paths: dict[int, tuple[str, ...]] = {}
        self.local_vars: dict[str, list[_LocalVar]] = {}
        self.computed_sizes: dict[int, Estimate] = {}
        self.computed_entry_sizes: dict[int, EntrySize] = {}

    # --- scopes

    def _push(self, name: str, path, size, entry_size) -> None:
        self.local_vars.setdefault(name, []).append(_LocalVar(path, size, entry_size))

    def _pop(self, name: str) -> None:
        self.local_vars[name].pop()

    def _peek(self, name: str) -> _LocalVar | None:
        stack = self.local_vars.get(name)
        return stack[-1] if stack else None

    def _range_container(self, range_expr: Expr, entry: EntrySize | None) -> str:
        return entry.container if entry is not None else kind(self.types[range_expr.id])

    def push_iter_key(self, name: str, range_expr: Expr) -> None:
        entry = self.compute_entry_size(range_expr)
        container = self._range_container(range_expr, entry)
        sub = "@indices" if container == "list" else "@keys"
        self._push(name, self.get_path(range_expr) + (sub,), entry.key if entry else None, None)

    def push_iter_value(self, name: str, range_expr: Expr) -> None:
        entry = self.compute_entry_size(range_expr)
        container = self._range_container(range_expr, entry)
        sub = "@items" if container == "list" else "@values"
        self._push(name, self.get_path(range_expr) + (sub,), entry.val if entry else None, None)

    def push_iter_single(self, name: str, range_expr: Expr) -> None:
        entry = self.compute_entry_size(range_expr)
        size = entry.key if entry else None
        sub = "@keys"
        if self._range_container(range_expr, entry) == "list":
            size = entry.val if entry else None
            sub = "@items"
        self._push(name, self.get_path(range_expr) + (sub,), size, None)

    def push_local_var(self, name: str, e: Expr) -> None:
        self._push(name, self.get_path(e), self.compute_size(e), self.compute_entry_size(e))

    # --- the walk

    def cost(self, e: Expr | None) -> Estimate:
        if e is None:
            return ZERO
        k = e.kind
        if k == LITERAL:
            return _CONST
        if k == IDENT:
            return self.cost_ident(e)
        if k == SELECT:
            return self.cost_select(e)
        if k == CALL:
            return self.cost_call(e)
        if k == LIST:
            return self.cost_create_list(e)
        if k == MAP:
            return self.cost_create_map(e)
        if k == STRUCT:
            return self.cost_create_struct(e)
        if k == COMPREHENSION:
            return self.cost_bind(e) if self.is_bind(e) else self.cost_comprehension(e)
        return ZERO

    def cost_ident(self, e: Expr) -> Estimate:
        qualified = _QUALIFIED.get(e.value)  # local names never contain dots
        if qualified is not None:
            self.paths[e.id] = qualified[0]
            return qualified[1]
        v = self._peek(e.value)
        self.paths[e.id] = v.path if v is not None and v.path is not None else (e.value,)
        return _SELECT_AND_IDENT

    def cost_select(self, e: Expr) -> Estimate:
        operand = e.operand
        if e.test_only:
            return add(_PRESENCE_TEST_COST, self.cost(operand))
        if operand.kind == IDENT and operand.value not in _QUALIFIED:  # cost_ident and get_path, inlined
            v = self._peek(operand.value)
            operand_path = self.paths[operand.id] = v.path if v is not None and v.path is not None \
                else (operand.value,)
            if v is not None:
                operand_path = v.path or ()
            total_cost = _SELECT_AND_IDENT
        else:
            total_cost = self.cost(operand)
            operand_path = self.paths.get(operand.id, ())
        if self.types[operand.id][0] in _SELECT_COSTED:
            total_cost = (min(total_cost[0] + SELECT_AND_IDENT_COST, MAX_UINT64),
                          min(total_cost[1] + SELECT_AND_IDENT_COST, MAX_UINT64))
        self.paths[e.id] = operand_path + (e.value,)
        return total_cost

    def cost_call(self, e: Expr) -> Estimate:
        if e.value in _LOGICAL and len(e.args) == 2 and e.operand is None:
            # Shortcut of the general path below: && and || cost their left side plus, at most, the right.
            lhs, rhs = self.cost(e.args[0]), self.cost(e.args[1])
            return (lhs[0], min(lhs[1] + rhs[1], MAX_UINT64))
        if e.value == "dyn" and e.args:  # dyn() only disables type checking
            arg_cost = self.cost(e.args[0])
            self.copy_size_estimates(e, e.args[0])
            return add(ONE, arg_cost)
        args = e.args
        arg_costs = [_CONST if arg.kind == LITERAL else self.cost(arg) for arg in args]
        overload_ids = self.ast.overloads(e.id)
        if not overload_ids:
            return ZERO
        if e.operand is None:
            if _plain_operator(e.value, overload_ids):
                return self.cost_plain_operator(e, overload_ids, arg_costs)
            if overload_ids in _EQUALITY and len(args) == 2 and not self.library_equality(e.value, args):
                return self.cost_sized_equality(e, arg_costs)
        arg_nodes = [self.new_node(arg) for arg in args]
        sum_cost = ZERO
        target = None
        if e.operand is not None:
            sum_cost = self.cost(e.operand)
            target = self.new_node(e.operand)
        fn_cost = (MAX_UINT64, 0)
        result_size = None
        for overload in overload_ids:
            call_cost, call_size = self.function_cost(e, e.value, overload, target, arg_nodes, arg_costs)
            fn_cost = union(fn_cost, call_cost)
            if call_size is not None:
                result_size = call_size if result_size is None else union(result_size, call_size)
            if overload in ("index_list", "index_map") and args:
                entry = self.compute_entry_size(args[0])
                result_size = entry.val if entry is not None else None
                sub = "@items" if overload == "index_list" else "@values"
                self.paths[e.id] = self.get_path(args[0]) + (sub,)
            if result_size is None:
                result_size = self.compute_size(e)
        self.set_size(e, result_size)
        return add(sum_cost, fn_cost)

    def cost_plain_operator(self, e: Expr, overload_ids: tuple[str, ...], arg_costs: list[Estimate]) -> Estimate:
        """`cost_call` for operators that no estimator prices: 1 + the arguments, without argument nodes."""
        arg_sum = total(arg_costs)
        result_size = None
        for overload in overload_ids:
            if overload in ("index_list", "index_map") and e.args:
                entry = self.compute_entry_size(e.args[0])
                result_size = entry.val if entry is not None else None
                sub = "@items" if overload == "index_list" else "@values"
                self.paths[e.id] = self.get_path(e.args[0]) + (sub,)
            if result_size is None:
                result_size = self.compute_size(e)
        self.set_size(e, result_size)
        return add(ONE, arg_sum)

    def library_equality(self, function: str, args: list[Expr]) -> bool:
        """Whether callcost.library_estimate prices this `_==_` (two equal opaque or struct types)."""
        if function != "_==_":
            return False
        t = self.node_type(args[0], self.node_path(args[0]))
        return t[0] in ("abstract", "message") and t == self.node_type(args[1], self.node_path(args[1]))

    def cost_sized_equality(self, e: Expr, arg_costs: list[Estimate]) -> Estimate:
        """`cost_call` for ==/!= that builtin_cost prices by the smaller operand, without argument nodes."""
        lhs, rhs = self.compute_size(e.args[0]), self.compute_size(e.args[1])
        smallest_max = min(MAX_UINT64 if lhs is None else lhs[1], MAX_UINT64 if rhs is None else rhs[1])
        cost = add(by_factor((1 if smallest_max > 0 else 0, smallest_max), STRING_TRAVERSAL_COST_FACTOR),
                   total(arg_costs))
        self.set_size(e, self.compute_size(e))
        return cost

    def cost_create_list(self, e: Expr) -> Estimate:
        sum_cost = ZERO
        item_size = (0 if not e.args else MAX_UINT64, 0)
        for elem in e.args:
            sum_cost = add(sum_cost, self.cost(elem))
            item_size = union(item_size, self.size_or_unknown(elem))
        self.computed_entry_sizes[e.id] = EntrySize("list", ONE, item_size)
        return add(sum_cost, fixed(LIST_CREATE_BASE_COST))

    def cost_create_map(self, e: Expr) -> Estimate:
        sum_cost = ZERO
        empty = 0 if not e.entries else MAX_UINT64
        key_size, val_size = (empty, 0), (empty, 0)
        for key, value in e.entries:
            sum_cost = add(sum_cost, self.cost(key))
            sum_cost = add(sum_cost, self.cost(value))
            key_size = union(key_size, self.size_or_unknown(key))
            val_size = union(val_size, self.size_or_unknown(value))
        self.computed_entry_sizes[e.id] = EntrySize("map", key_size, val_size)
        return add(sum_cost, fixed(MAP_CREATE_BASE_COST))

    def cost_create_struct(self, e: Expr) -> Estimate:
        return add(total(self.cost(value) for _, value in e.entries), fixed(STRUCT_CREATE_BASE_COST))

    def cost_comprehension(self, e: Expr) -> Estimate:
        sum_cost = add(self.cost(e.iter_range), self.cost(e.accu_init))
        self.push_local_var(e.accu_var, e.accu_init)
        if e.iter_var2:
            self.push_iter_key(e.iter_var, e.iter_range)
            self.push_iter_value(e.iter_var2, e.iter_range)
        else:
            self.push_iter_single(e.iter_var, e.iter_range)
        loop_cost = self.cost(e.loop_condition)
        step_cost = self.cost(e.loop_step)
        self._pop(e.iter_var)
        if e.iter_var2:
            self._pop(e.iter_var2)
        sum_cost = add(sum_cost, self.cost(e.result))
        self._pop(e.accu_var)
        range_count = self.size_or_unknown(e.iter_range)
        sum_cost = add(sum_cost, multiply(range_count, add(step_cost, loop_cost)))
        init_kind = e.accu_init.kind
        if init_kind == LITERAL:
            self.set_size(e, self.compute_size(e.accu_init))
        elif init_kind in (LIST, MAP):
            self.set_size(e, range_count)
            step_entry = self.compute_entry_size(e.loop_step)
            if step_entry is not None:
                self.computed_entry_sizes[e.id] = step_entry
        return sum_cost

    def is_bind(self, e: Expr) -> bool:
        r, cond = e.iter_range, e.loop_condition
        return (r.kind == LIST and not r.args and cond.kind == LITERAL and cond.value is False
                and e.accu_var not in _ACCUMULATORS)

    def cost_bind(self, e: Expr) -> Estimate:
        sum_cost = add(self.cost(e.iter_range), self.cost(e.accu_init))  # binds keep the empty range's cost
        self.push_local_var(e.accu_var, e.accu_init)
        sum_cost = add(sum_cost, self.cost(e.result))
        self._pop(e.accu_var)
        self.copy_size_estimates(e, e.result)
        return sum_cost

    # --- calls

    def function_cost(self, e: Expr, function: str, overload: str, target: Node | None, args: list[Node],
                      arg_costs: list[Estimate]) -> tuple[Estimate, Estimate | None]:
        estimate = callcost.overload_estimate(self, overload, target, args)
        if estimate is None:
            estimate = callcost.library_estimate(self, function, overload, target, args)
        if estimate is not None:
            call_cost, result_size = estimate
            return add(call_cost, total(arg_costs)), result_size
        return self.builtin_cost(e, overload, target, args, arg_costs)

    def builtin_cost(self, e: Expr, overload: str, target: Node | None, args: list[Node],
                     arg_costs: list[Estimate]) -> tuple[Estimate, Estimate | None]:
        arg_sum = total(arg_costs)
        sz = self.size_or_unknown
        if overload == "string_format":
            if target is not None:
                return add(by_factor(sz(target), STRING_TRAVERSAL_COST_FACTOR), arg_sum), None
        elif overload == "string_to_bytes":
            if len(args) == 1:
                s = sz(args[0])
                return add(by_factor(s, STRING_TRAVERSAL_COST_FACTOR), arg_sum), (s[0], _mul(s[1], 4))
        elif overload == "bytes_to_string":
            if len(args) == 1:
                s = sz(args[0])
                return add(by_factor(s, STRING_TRAVERSAL_COST_FACTOR), arg_sum), (s[0] // 4, s[1])
        elif overload == "strings_quote":
            if len(args) == 1:
                s = sz(args[0])
                return add(by_factor(s, STRING_TRAVERSAL_COST_FACTOR), arg_sum), (_add(s[0], 2), _add(_mul(s[1], 2), 2))
        elif overload in ("starts_with_string", "ends_with_string"):
            if len(args) == 1:
                return add(by_factor(sz(args[0]), STRING_TRAVERSAL_COST_FACTOR), arg_sum), None
        elif overload == "in_list":
            if len(args) == 2:
                return add(by_factor(sz(args[1]), 1), arg_sum), None
        elif overload == "matches_string":
            if target is not None and len(args) == 1:
                str_cost = by_factor(add(sz(target), ONE), STRING_TRAVERSAL_COST_FACTOR)
                regex_cost = by_factor(sz(args[0]), callcost.REGEX_FACTOR)
                return add(multiply(str_cost, regex_cost), arg_sum), None
        elif overload == "contains_string":
            if target is not None and len(args) == 1:
                str_cost = by_factor(sz(target), STRING_TRAVERSAL_COST_FACTOR)
                sub_cost = by_factor(sz(args[0]), STRING_TRAVERSAL_COST_FACTOR)
                return add(multiply(str_cost, sub_cost), arg_sum), None
        elif overload in ("logical_or", "logical_and"):
            lhs, rhs = arg_costs[0], arg_costs[1]
            return (lhs[0], add(lhs, rhs)[1]), None
        elif overload == "conditional":
            size = union(sz(args[1]), sz(args[2]))
            true_entry = self.compute_entry_size(args[1].expr)
            entry = true_entry.union(self.compute_entry_size(args[2].expr)) if true_entry else None
            if entry is not None:
                self.computed_entry_sizes[e.id] = entry
            return add(arg_costs[0], union(arg_costs[1], arg_costs[2])), size
        elif overload in ("add_string", "add_bytes", "add_list"):
            if len(args) == 2:
                result_size = add(sz(args[0]), sz(args[1]))
                lhs_entry = self.compute_entry_size(args[0].expr)
                entry = lhs_entry.union(self.compute_entry_size(args[1].expr)) if lhs_entry else None
                if entry is not None:
                    self.computed_entry_sizes[e.id] = entry
                if overload == "add_list":  # O(1), tracked for the size
                    return add(ONE, arg_sum), result_size
                return add(by_factor(result_size, STRING_TRAVERSAL_COST_FACTOR), arg_sum), result_size
        elif overload in _SIZED_COMPARISONS:
            smallest_max = min(sz(args[0])[1], sz(args[1])[1])
            low = 1 if smallest_max > 0 else 0
            return add(by_factor((low, smallest_max), STRING_TRAVERSAL_COST_FACTOR), arg_sum), None
        return add(ONE, arg_sum), None

    # --- paths and sizes

    def get_path(self, e: Expr) -> tuple[str, ...]:
        if e.kind == IDENT:
            v = self._peek(e.value)
            if v is not None:
                return v.path or ()
        return self.paths.get(e.id, ())

    def type_of(self, e: Expr) -> tuple:
        """The node's type as Kubernetes declares it: capacity values are Quantity there, dyn to the compiler."""
        if e.kind == COMPREHENSION and self.is_bind(e):
            return self.type_of(e.result)
        t = self.types[e.id]
        if t[0] == "dyn":
            t = self.sizes.value_type(self.get_path(e)) or t
        return t

    def node_path(self, e: Expr) -> tuple[str, ...] | None:
        path = self.get_path(e)
        return None if path and path[0] in _ACCUMULATORS else path  # only root variables get paths

    def node_type(self, e: Expr, path: tuple[str, ...] | None) -> tuple:
        t = self.types[e.id]
        if t[0] == "dyn" and path:
            t = self.sizes.value_type(path) or t
        return t

    def new_node(self, e: Expr) -> Node:
        path = self.node_path(e)
        return Node(path, self.node_type(e, path), e, self.compute_size(e))

    def set_size(self, e: Expr, size: Estimate | None) -> None:
        if size is not None:
            self.computed_sizes[e.id] = size

    def size_or_unknown(self, node) -> Estimate:
        size = node.computed_size if isinstance(node, Node) else self.compute_size(node)
        return UNKNOWN if size is None else size

    def copy_size_estimates(self, dst: Expr, src: Expr) -> None:
        self.set_size(dst, self.compute_size(src))
        entry = self.compute_entry_size(src)
        if entry is not None:
            self.computed_entry_sizes[dst.id] = entry

    def compute_size(self, e: Expr) -> Estimate | None:
        if e.kind == LITERAL or e.kind == LIST or e.kind == MAP:  # never in computed_sizes: same order
            return _literal_size(e)
        size = self.computed_sizes.get(e.id)
        if size is not None:
            return size
        size = self.sizes.estimate(self.get_path(e))
        if size is not None:
            self.computed_sizes[e.id] = size
            return size
        if is_scalar(self.types[e.id]):
            return ONE
        if e.kind == IDENT:
            v = self._peek(e.value)
            if v is not None and v.size is not None:
                return v.size
        return None

    def compute_entry_size(self, e: Expr) -> EntrySize | None:
        entry = self.computed_entry_sizes.get(e.id)
        if entry is not None:
            return entry
        if e.kind == IDENT:
            v = self._peek(e.value)
            if v is not None:
                return v.entry_size
        return None


def _plain_operator(function: str, overload_ids: tuple[str, ...]) -> bool:
    """Whether every estimator leaves this operator call to builtin_cost's default (1 + arguments)."""
    key = (function, overload_ids)
    plain = _PLAIN.get(key)
    if plain is None:
        # callcost.library_estimate switches on names; callcost.overload_estimate on list_ overloads
        plain = not (function[:1].isalpha() or function == "_==_") and not any(
            overload.startswith(("list_", "lists_")) or overload in _BUILTIN_ESTIMATED for overload in overload_ids)
        if len(_PLAIN) < 4096:  # a few dozen operator/overload pairs exist
            _PLAIN[key] = plain
    return plain


_PLAIN: dict[tuple[str, tuple[str, ...]], bool] = {}


_EQUALITY = frozenset({("equals",), ("not_equals",)})
_SIZED_COMPARISONS = frozenset({
    "less_string", "greater_string", "less_equals_string", "greater_equals_string",
    "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes",
    "equals", "not_equals",
})


def _add(x: int, y: int) -> int:
    return min(x + y, MAX_UINT64)


def _mul(x: int, y: int) -> int:
    return min(x * y, MAX_UINT64)


def estimate_cost(ast: CheckedAst, sizes: DeviceSizes) -> Estimate:
    """cel-go `checker.Cost` with the Kubernetes estimator; callers compare the max with the limit."""
    return Coster(ast, sizes).cost(ast.root)

# Overloads builtin_cost prices by themselves (everything else costs 1 + its arguments there).
_BUILTIN_ESTIMATED = _SIZED_COMPARISONS | {
    "string_format", "string_to_bytes", "bytes_to_string", "strings_quote", "starts_with_string", "ends_with_string",
    "in_list", "matches_string", "contains_string", "logical_or", "logical_and", "conditional", "add_string",
    "add_bytes", "add_list",
}
