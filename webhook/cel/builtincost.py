"""cel-go's estimator for calls no function estimator prices (checker/cost.go functionCost, its builtin switch).

Also `plain_operator`: which operator calls every estimator leaves to the default, 1 + the arguments,
so that the walk can price them without building argument nodes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from webhook.cel import callcost
from webhook.cel.checked import Expr
from webhook.cel.coststate import CostState  # what the estimates read of the cost walk (cost.Coster)
from webhook.cel.estimates import (
    MAX_UINT64,
    ONE,
    STRING_TRAVERSAL_COST_FACTOR,
    Estimate,
    add,
    by_factor,
    multiply,
    total,
    union,
)

if TYPE_CHECKING:
    from webhook.cel.costnodes import Node

CallEstimate = tuple[Estimate, Estimate | None]  # (cost, result size)

EQUALITY = frozenset({("equals",), ("not_equals",)})
_SIZED_COMPARISONS = frozenset({
    "less_string", "greater_string", "less_equals_string", "greater_equals_string",
    "less_bytes", "greater_bytes", "less_equals_bytes", "greater_equals_bytes",
    "equals", "not_equals",
})


def builtin_cost(coster: CostState, e: Expr, overload: str, target: Node | None, args: list[Node],
                 arg_costs: list[Estimate]) -> CallEstimate:
    """cel-go functionCost's default switch: the builtins it prices by argument sizes, else 1 + arguments."""
    arg_sum = total(arg_costs)
    sz = coster.size_or_unknown
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
        true_entry = coster.compute_entry_size(args[1].expr)
        entry = true_entry.union(coster.compute_entry_size(args[2].expr)) if true_entry else None
        if entry is not None:
            coster.computed_entry_sizes[e.id] = entry
        return add(arg_costs[0], union(arg_costs[1], arg_costs[2])), size
    elif overload in ("add_string", "add_bytes", "add_list"):
        if len(args) == 2:
            result_size = add(sz(args[0]), sz(args[1]))
            lhs_entry = coster.compute_entry_size(args[0].expr)
            entry = lhs_entry.union(coster.compute_entry_size(args[1].expr)) if lhs_entry else None
            if entry is not None:
                coster.computed_entry_sizes[e.id] = entry
            if overload == "add_list":  # O(1), tracked for the size
                return add(ONE, arg_sum), result_size
            return add(by_factor(result_size, STRING_TRAVERSAL_COST_FACTOR), arg_sum), result_size
    elif overload in _SIZED_COMPARISONS:
        smallest_max = min(sz(args[0])[1], sz(args[1])[1])
        low = 1 if smallest_max > 0 else 0
        return add(by_factor((low, smallest_max), STRING_TRAVERSAL_COST_FACTOR), arg_sum), None
    return add(ONE, arg_sum), None


def plain_operator(function: str, overload_ids: tuple[str, ...]) -> bool:
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

# Overloads builtin_cost prices by themselves (everything else costs 1 + its arguments there).
_BUILTIN_ESTIMATED = _SIZED_COMPARISONS | {
    "string_format", "string_to_bytes", "bytes_to_string", "strings_quote", "starts_with_string", "ends_with_string",
    "in_list", "matches_string", "contains_string", "logical_or", "logical_and", "conditional", "add_string",
    "add_bytes", "add_list",
}


def _add(x: int, y: int) -> int:
    return min(x + y, MAX_UINT64)


def _mul(x: int, y: int) -> int:
    return min(x * y, MAX_UINT64)
