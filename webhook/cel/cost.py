"""Static worst-case cost of a checked selector: a port of cel-go v0.26 checker/cost.go.

Kubernetes rejects a selector whose estimated maximum exceeds 1,000,000. Every rule below follows
the Go code line by line (names kept), so an upstream change can be diffed against it. Function
specific estimates live in `callcost`, the builtin ones in `builtincost`, what is recorded about
nodes in `costnodes`; sizes reachable through `device` in `sizes`. `onepass` prices the common
selector shapes by the same rules without building a tree.
"""

from __future__ import annotations

from webhook.cel import callcost
from webhook.cel.builtincost import EQUALITY, builtin_cost, plain_operator
from webhook.cel.checked import CALL, COMPREHENSION, IDENT, LIST, LITERAL, MAP, SELECT, STRUCT, CheckedAst, Expr
from webhook.cel.coststate import CostState
from webhook.cel.costnodes import (
    ACCUMULATORS,
    QUALIFIED,
    SELECT_COSTED,
    EntrySize,
    Node,
)
from webhook.cel.estimates import (
    CONST_COST,
    LIST_CREATE_BASE_COST,
    MAP_CREATE_BASE_COST,
    MAX_UINT64,
    ONE,
    SELECT_AND_IDENT_COST,
    STRING_TRAVERSAL_COST_FACTOR,
    STRUCT_CREATE_BASE_COST,
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

_PRESENCE_TEST_COST = ZERO  # Kubernetes: PresenceTestHasCost(false)
_CONST = fixed(CONST_COST)
_SELECT_AND_IDENT = fixed(SELECT_AND_IDENT_COST)
_LOGICAL = frozenset({"_&&_", "_||_"})  # overloads logical_and, logical_or


class Coster(CostState):
    """cel-go's coster: the walk (`cost`) and the call rules; state and sizes in `CostState`."""

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
        qualified = QUALIFIED.get(e.value)  # local names never contain dots
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
        if operand.kind == IDENT and operand.value not in QUALIFIED:  # cost_ident and get_path, inlined
            v = self._peek(operand.value)
            operand_path = self.paths[operand.id] = v.path if v is not None and v.path is not None \
                else (operand.value,)
            if v is not None:
                operand_path = v.path or ()
            total_cost = _SELECT_AND_IDENT
        else:
            total_cost = self.cost(operand)
            operand_path = self.paths.get(operand.id, ())
        if self.types[operand.id][0] in SELECT_COSTED:
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
            if plain_operator(e.value, overload_ids):
                return self.cost_plain_operator(e, overload_ids, arg_costs)
            if overload_ids in EQUALITY and len(args) == 2 and not self.library_equality(e.value, args):
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
                and e.accu_var not in ACCUMULATORS)

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
        return builtin_cost(self, e, overload, target, args, arg_costs)

    def type_of(self, e: Expr) -> tuple:
        """The node's type as Kubernetes declares it: capacity values are Quantity there, dyn to the compiler."""
        if e.kind == COMPREHENSION and self.is_bind(e):
            return self.type_of(e.result)
        t = self.types[e.id]
        if t[0] == "dyn":
            t = self.sizes.value_type(self.get_path(e)) or t
        return t



def estimate_cost(ast: CheckedAst, sizes: DeviceSizes) -> Estimate:
    """cel-go `checker.Cost` with the Kubernetes estimator; callers compare the max with the limit."""
    return Coster(ast, sizes).cost(ast.root)
