"""dracel's check of a selector's result type: `bool`, or the type of attribute values.

Kubernetes (dynamic-resource-allocation cel/compile.go) accepts `bool` and `any` (attribute values
without list-type attributes), and `dyn` only with list-type attributes (1.37: exactly the attribute
type). Attribute values are `dyn` in the faithful engine, so a `dyn` result is compiled again in the
probe environment, where attribute values are `google.protobuf.Any`, to tell the two apart.
"""

from __future__ import annotations

from google.protobuf.message import DecodeError

from webhook.cel.checked import CALL, COMPREHENSION, IDENT, SELECT, CheckedAst, build, children, parse
from webhook.cel.environment import Environment
from webhook.cel.gotyping import go_types


def accepts_result(root_type: tuple, env: Environment, text: str) -> bool:
    """dracel's output type check: bool, or the type of attribute values (`any`; `dyn` with list-type
    attributes; 1.36 accepts `any` then too). Attribute values are `dyn` here, so a `dyn` result is
    accepted when Kubernetes would type it `any` (`_any_result`)."""
    kind = root_type[0]
    if kind in ("bool", "any"):
        return True
    if kind != "dyn":
        return False
    return env.accepts_dyn_result or _any_result(text, env)


def _any_result(text: str, env: Environment) -> bool:
    """Whether Kubernetes may type the result of `text` (which compiled, with a `dyn` result) `any`:
    the probe types attribute values `any`; the result is surely `dyn` when it is `dyn` there and no
    `any` value reaches it. Where the two type checkers join `any` with `dyn` is trusted only in a
    conditional of plain values (the later branch's type wins in both, checked against the API
    server); elsewhere an `any` value must be consumed where both type the result alike (`_absorbs`). When the probe cannot say: `any`, so nothing upstream accepts is refused."""
    probe = env.probe(text)
    if probe is None:
        return True
    try:
        serialized = probe.serialize()
        ast = build(parse(serialized), serialized)
        if ast.type_of(ast.root)[0] != "dyn":
            return True
        joined = go_types(ast).get(ast.root.id)  # cel-go's joins of `any` and `dyn`, where it can say
        if joined is not None:
            return joined[0] != "dyn"
        stack = [(ast.root, None)]
        while stack:
            node, parent = stack.pop()
            if _has(ast.type_of(node), "any") and not _absorbs(ast, parent, node):
                return True
            stack.extend((child, node) for child in children(node))
    except (DecodeError, RecursionError):
        return True
    return False


def _has(t: tuple, kind: str) -> bool:
    """Whether type `t` is, or holds somewhere inside, the bare type `kind` ("any", "dyn")."""
    return t == (kind,) or any(isinstance(p, tuple) and _has(p, kind) for p in t[1:])


def _absorbs(ast: CheckedAst, parent, child) -> bool:
    """Whether `parent` types alike in cel-go and here whatever the `any` in `child`'s type: a field
    selection (of `any`: dyn), an index by it or of a bare `any`/`dyn` (dyn), a call matching several
    overloads (dyn), a comprehension over it or starting from it (its variables are checked where
    they are used), a result of no dynamic type, or one that still carries `any` (checked further up).
    A loop step feeds the accumulator's type, which only the step's own nodes show here: not absorbed."""
    if parent is None:
        return False
    result = ast.type_of(parent)
    if _has(result, "any") or not _has(result, "dyn"):
        return True
    if parent.kind == SELECT:
        return True
    if parent.kind == COMPREHENSION:  # (a bind's loop step is its variable: of the start's type)
        return (child is parent.iter_range or child is parent.accu_init or child is parent.loop_condition
                or (child is parent.loop_step and child.kind == IDENT and child.value == parent.accu_var))
    if parent.kind == CALL:
        if parent.value == "_?_:_" and len(parent.args) == 3 and child is not parent.args[0] and all(
                ast.type_of(branch) in (("any",), ("dyn",)) for branch in parent.args[1:]):
            return True  # both join a plain `any` and `dyn` alike: the later branch's type wins
        if parent.value in ("_[_]", "_[?_]") and len(parent.args) == 2 and (
                child is parent.args[1] or ast.type_of(child)[0] in ("any", "dyn")):
            return True
        return len(ast.overloads(parent.id)) > 1
    return False


