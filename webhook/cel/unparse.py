"""An expression's text again from its parse tree (`grammar`), without redundant parentheses.

The tree is the one cel-go builds (grouping parentheses leave no trace in it), so the faithful
engine sees the same expression, only less nested: its parser stops at 32 levels, cel-go's at 250.
Comments and spacing are dropped; literals keep their exact text. Iterative, like the parser.
"""

from __future__ import annotations

from webhook.cel.grammar import BINARY, Node, unwrap

_MEMBER_KINDS = frozenset({"ident", "select", "call", "index", "list", "map", "message"})


def _level(node: Node) -> int:
    """Binding strength: ternary 0, binary operators by precedence, unary 6, member and primary 7."""
    if node.kind == "cond":
        return 0
    if node.kind == "binary":
        return BINARY[node.text]
    if node.kind == "unary":
        return 6
    if node.kind == "literal" and node.text.startswith("-"):
        return 6  # a signed literal reads like a negation
    return 7


def _wrapped(child: Node, needs: bool) -> list:
    return ["(", child, ")"] if needs else [child]


def _member_target(child: Node) -> list:
    inner = unwrap(child)
    # a literal keeps its parentheses: `(1).x`, `(1.5).x` must not lex as one number
    return _wrapped(inner, inner.kind not in _MEMBER_KINDS)


def _parts(node: Node) -> list:
    """The node's text as strings and child nodes, in order, with the parentheses its children need."""
    kind, children = node.kind, node.children
    if kind in ("literal", "ident", "field"):
        return [node.text]
    if kind == "paren":
        return [unwrap(node)]
    if kind == "binary":
        left, right = unwrap(children[0]), unwrap(children[1])
        level = BINARY[node.text]
        return [*_wrapped(left, _level(left) < level), f" {node.text} ", *_wrapped(right, _level(right) <= level)]
    if kind == "cond":
        cond, then, other = (unwrap(c) for c in children)
        return [*_wrapped(cond, _level(cond) == 0), " ? ", *_wrapped(then, _level(then) == 0), " : ", other]
    if kind == "unary":
        inner = unwrap(children[0])
        # cel-go folds `!!x` and `--x`, and reads `-1` as a literal: only members go bare
        return [node.text, *_wrapped(inner, inner.kind not in _MEMBER_KINDS)]
    if kind == "select":
        return [*_member_target(children[0]), ".?" if node.optional else ".", node.text]
    if kind == "index":
        return [*_member_target(children[0]), "[?" if node.optional else "[", unwrap(children[1]), "]"]
    if kind == "call":
        target, args = children[0], children[1:]
        head = [node.text, "("] if target is None else [*_member_target(target), ".", node.text, "("]
        return head + _joined(args) + [")"]
    if kind == "list":
        items = [[("?" if flag else ""), unwrap(c)] for flag, c in zip(node.optional, children)]
        return ["[", *_flat(items), "]"]
    if kind in ("map", "message"):
        items = [[("?" if flag else ""), unwrap(children[2 * k]), ": ", unwrap(children[2 * k + 1])]
                 for k, flag in enumerate(node.optional)]
        return [node.text if kind == "message" else "", "{", *_flat(items), "}"]
    raise ValueError(f"unknown node kind {kind}")


def _joined(nodes) -> list:
    return _flat([[unwrap(n)] for n in nodes])


def _flat(items: list[list]) -> list:
    out: list = []
    for k, item in enumerate(items):
        if k:
            out.append(", ")
        out.extend(item)
    return out


def render(root: Node, replace: dict[int, str] | None = None) -> str:
    """`replace` maps ids of nodes (as `unwrap` returns them) to texts written in their place."""
    out: list[str] = []
    stack: list = [unwrap(root)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif replace and id(item) in replace:
            out.append(replace[id(item)])
        else:
            stack.extend(reversed(_parts(item)))
    return "".join(out)
