"""The state of cel-go's cost estimator (checker/cost.go): scopes of comprehension variables, and the
paths and sizes recorded per node, which later rules and the function estimators read.
"""

from __future__ import annotations

from webhook.cel.checked import IDENT, LIST, LITERAL, MAP, CheckedAst, Expr
from webhook.cel.costnodes import ACCUMULATORS, EntrySize, LocalVar, Node, is_scalar, kind, literal_size
from webhook.cel.estimates import ONE, UNKNOWN, Estimate
from webhook.cel.sizes import DeviceSizes


class CostState:
    def __init__(self, ast: CheckedAst, sizes: DeviceSizes) -> None:
        self.ast = ast
        self.types = ast.types
        self.sizes = sizes
        self.paths: dict[int, tuple[str, ...]] = {}
        self.local_vars: dict[str, list[LocalVar]] = {}
        self.computed_sizes: dict[int, Estimate] = {}
        self.computed_entry_sizes: dict[int, EntrySize] = {}

    # --- scopes

    def _push(self, name: str, path, size, entry_size) -> None:
        self.local_vars.setdefault(name, []).append(LocalVar(path, size, entry_size))

    def _pop(self, name: str) -> None:
        self.local_vars[name].pop()

    def _peek(self, name: str) -> LocalVar | None:
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

    # --- paths and sizes

    def get_path(self, e: Expr) -> tuple[str, ...]:
        if e.kind == IDENT:
            v = self._peek(e.value)
            if v is not None:
                return v.path or ()
        return self.paths.get(e.id, ())

    def node_path(self, e: Expr) -> tuple[str, ...] | None:
        path = self.get_path(e)
        return None if path and path[0] in ACCUMULATORS else path  # only root variables get paths

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
            return literal_size(e)
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
