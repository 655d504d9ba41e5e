"""What cel-go's cost estimator (checker/cost.go) records about nodes: argument nodes, entry sizes,
local variables, and the facts about types and paths every estimator rule shares.
"""

from __future__ import annotations

from dataclasses import dataclass

from webhook.cel.checked import LIST, LITERAL, MAP, Expr
from webhook.cel.estimates import ONE, SELECT_AND_IDENT_COST, Estimate, fixed, union

ACCUMULATORS = ("__result__", "@result")
SCALARS = frozenset({"bool", "double", "duration", "int", "timestamp", "uint"})
# Qualified variables (environment.QUALIFIED_CAPACITY): cel-go sees the identifier `device` (1) and a
# select on that struct (1).
QUALIFIED = {"device.capacity": (("device", "capacity"), fixed(2 * SELECT_AND_IDENT_COST))}
_KINDS = {"message": "struct", "param": "type_param", "abstract": "opaque"}
SELECT_COSTED = frozenset({"map", "message", "param"})  # map, struct and type-param operands


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
class LocalVar:
    path: tuple[str, ...] | None
    size: Estimate | None
    entry_size: EntrySize | None


def kind(t: tuple) -> str:
    return _KINDS.get(t[0], t[0])


def is_scalar(t: tuple) -> bool:
    if t[0] in SCALARS:
        return True
    return t[0] == "abstract" and t[1] == "optional_type" and len(t) > 2 and is_scalar(t[2])


def literal_size(e: Expr) -> Estimate | None:
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
