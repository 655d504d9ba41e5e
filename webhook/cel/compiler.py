"""The faithful engine: compile, type-check, validate and cost one selector, as Kubernetes 1.36 does.

`check()` returns a `Verdict` (plain data, cached per expression and environment in `cache`). Mapping
a verdict to field errors is the caller's job, so the cache never holds paths.
"""

from __future__ import annotations

import re
from dataclasses import replace

from cel_expr_python import cel
from google.protobuf.message import DecodeError

from webhook.cel import deepcost, depth, onepass
from webhook.cel.budget import may_compile, record
from webhook.cel.cache import VerdictCache
from webhook.cel.checked import CALL, COMPREHENSION, IDENT, SELECT, CheckedAst, build, parse, type_name
from webhook.cel.cost import Coster
from webhook.cel.environment import Environment, Features, get_environment, restore
from webhook.cel.validators import find_issues, format_issues
from webhook.cel.verdict import FORBIDDEN, INTERNAL, INVALID, OK, Verdict
from webhook.limits import CEL_SELECTOR_EXPRESSION_MAX_COST as SELECTOR_EXPRESSION_MAX_COST

CACHE = VerdictCache()

_STATUS_PREFIX = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX = re.compile(r" \[[A-Z_]+\]$")


def _compiler_message(error: Exception) -> str:
    """The compiler's issue text without its status code decoration."""
    text = str(error)
    text = _STATUS_PREFIX.sub("", text, count=1)
    return _STATUS_SUFFIX.sub("", text.rstrip())


def _accepts_result(root_type: tuple, env: Environment, text: str) -> bool:
    """dracel's output type check: bool, or the type of attribute values (`any`; `dyn` with list-type
    attributes; 1.36 accepts `any` then too). Attribute values are `dyn` here, so a `dyn` result is
    accepted when Kubernetes would type it `any` (`_any_result`)."""
    kind = root_type[0]
    if kind in ("bool", "any"):
        return True
    if kind != "dyn":
        return False
    return env.features.list_type_attributes or _any_result(text, env)


def _any_result(text: str, env: Environment) -> bool:
    """Whether Kubernetes may type the result of `text` (which compiled, with a `dyn` result) `any`:
    the probe types attribute values `any`; the result is surely `dyn` when it is `dyn` there and no
    `any` value reaches it. cel-go and this compiler join `any` and `dyn` in opposite orders (`c ? a
    : dyn(1)` is `any` in cel-go), so an `any` value must be consumed where both type the result
    alike (`_absorbs`). When the probe cannot say: `any`, so nothing upstream accepts is refused."""
    probe = env.probe(text)
    if probe is None:
        return True
    try:
        serialized = probe.serialize()
        ast = build(parse(serialized), serialized)
        if ast.type_of(ast.root)[0] != "dyn":
            return True
        stack = [(ast.root, None)]
        while stack:
            node, parent = stack.pop()
            if _has_any(ast.type_of(node)) and not _absorbs(ast, parent, node):
                return True
            stack.extend((child, node) for child in _children(node))
    except (DecodeError, RecursionError):
        return True
    return False


def _has_any(t: tuple) -> bool:
    return t == ("any",) or any(isinstance(p, tuple) and _has_any(p) for p in t[1:])


def _absorbs(ast: CheckedAst, parent, child) -> bool:
    """Whether `parent` types alike in cel-go and here whatever the `any` in `child`'s type: a field
    selection (of `any`: dyn), an index by it or of a bare `any`/`dyn` (dyn), a call matching several
    overloads (dyn), a comprehension over it or starting from it (its variables are checked where
    they are used), a result of no dynamic type, or one that still carries `any` (checked further up).
    A loop step feeds the accumulator's type, which only the step's own nodes show here: not absorbed."""
    if parent is None:
        return False
    result = ast.type_of(parent)
    if _has_any(result) or not _has_dyn(result):
        return True
    if parent.kind == SELECT:
        return True
    if parent.kind == COMPREHENSION:  # (a bind's loop step is its variable: of the start's type)
        return (child is parent.iter_range or child is parent.accu_init or child is parent.loop_condition
                or (child is parent.loop_step and child.kind == IDENT and child.value == parent.accu_var))
    if parent.kind == CALL:
        if parent.value in ("_[_]", "_[?_]") and len(parent.args) == 2 and (
                child is parent.args[1] or ast.type_of(child)[0] in ("any", "dyn")):
            return True
        return len(ast.overloads(parent.id)) > 1
    return False


def _has_dyn(t: tuple) -> bool:
    return t == ("dyn",) or any(isinstance(p, tuple) and _has_dyn(p) for p in t[1:])


def _children(e):
    if e.operand is not None:
        yield e.operand
    yield from e.args
    for key, value in e.entries:
        if not isinstance(key, str):
            yield key
        yield value
    if e.kind == COMPREHENSION:
        yield from (e.iter_range, e.accu_init, e.loop_condition, e.loop_step, e.result)


# A derived attribute (Kubernetes 1.37) must be a grouping key: a primitive scalar, or a list of them.
_DERIVED_SCALARS = ("bool", "int", "string", "any", "dyn")
_SEMVER = ("abstract", "kubernetes.Semver")


def _derived_scalar(t: tuple) -> bool:
    return t[0] in _DERIVED_SCALARS or t == _SEMVER


def _derived_result_problem(root_type: tuple, env: Environment) -> str:
    """dracel validateOutputType for a derived attribute: "" when the type is accepted."""
    allow_list = env.features.list_type_attributes or env.stored
    if _derived_scalar(root_type) or (allow_list and root_type[0] == "list" and _derived_scalar(root_type[1])):
        return ""
    lists = " or a list of these scalars" if allow_list else ""
    return f"must evaluate to a primitive scalar (string, integer, boolean, semver){lists}, not {type_name(root_type)}"


def _estimate_and_validate(expression: str, env: Environment, checked, serialized: bytes) -> tuple | Verdict:
    """The general way: the Python tree, cel-go's estimator and the literal validators."""
    try:
        ast: CheckedAst = build(checked, serialized)
        coster = Coster(ast, env.sizes)
        cost = coster.cost(ast.root)
    except RecursionError:  # the compiler caps nesting at 32, so this needs a very wide tree
        return Verdict(INTERNAL, "cost estimation failed: expression too deeply nested")
    issues = find_issues(ast, env.sizes, not env.features.list_type_attributes, coster.paths)
    if issues:
        return Verdict(INVALID, "compilation failed: " + format_issues(expression, ast, issues))
    return cost, coster.type_of(ast.root)


def _part_cost(text: str, env: Environment, checking: cel.Env | None = None) -> tuple[int, tuple] | None:
    """cel-go's maximum cost estimate and the type of a closed part of a too-deep selector; None when
    it does not compile here (too deep as well, or ill-typed)."""
    if checking is None:
        text, checking = env.checking(text)
    try:
        compiled = checking.compile(text)
    except (TypeError, RuntimeError):
        return None
    try:
        serialized = compiled.serialize()
        checked = parse(serialized)
    except DecodeError:  # nested deeper than protobuf's decoder allows
        return None
    try:
        cost, root_type = onepass.estimate(checked, env.sizes)
        return cost[1], root_type
    except (onepass.Unsupported, RecursionError):
        pass
    estimate = _estimate_and_validate(text, env, checked, serialized)
    return None if isinstance(estimate, Verdict) else (estimate[0][1], estimate[1])


def _range_size(text: str, env: Environment, checking: cel.Env | None = None) -> int | None:
    """cel-go's maximum size estimate of the range of the comprehension over `deepcost.RANGE_ITEM`
    in `text`; None when `text` does not compile here."""
    if checking is None:
        text, checking = env.checking(text)
    try:
        compiled = checking.compile(text)
        serialized = compiled.serialize()
        ast = build(parse(serialized), serialized)
        coster = Coster(ast, env.sizes)
        coster.cost(ast.root)
    except (TypeError, RuntimeError, DecodeError, RecursionError):
        return None
    stack = [ast.root]
    while stack:  # the wrapped comprehension sits in the loop steps of the declaring ones
        e = stack.pop()
        if e.kind == COMPREHENSION:
            if e.iter_var == deepcost.RANGE_ITEM:
                return coster.size_or_unknown(e.iter_range)[1]
            stack.extend((e.accu_init, e.loop_step, e.result))
        elif e.kind == CALL:
            stack.extend(e.args)
    return None


def _too_deep(expression: str, env: Environment, checking: cel.Env, derived: bool, one_pass: bool,
              rerender: bool) -> Verdict:
    return depth.check_deep_expression(
        expression, lambda text: _checked_verdict(text, env, checking, derived, one_pass, rerender=False), rerender,
        lambda text: _part_cost(text, env, checking), lambda text: _range_size(text, env, checking),
        lambda text: _checked_verdict(text, env, checking, derived, one_pass, rerender=False, deep=False))


def _verdict(expression: str, env: Environment, derived: bool = False, one_pass: bool = True,
             rerender: bool = True, deep: bool = True) -> Verdict | None:
    """`one_pass=False` skips `onepass` (the differential test compares both ways); `rerender=False`
    when `expression` is a too-deep expression rendered without redundant parentheses (`depth`);
    `deep=False`: None rather than the deep path when it is too deep."""
    text, checking = env.checking(expression)
    verdict = _checked_verdict(text, env, checking, derived, one_pass, rerender, deep)
    if text is not expression and verdict is not None and verdict.detail:
        return replace(verdict, detail=restore(verdict.detail, expression, text))
    return verdict


def _checked_verdict(expression: str, env: Environment, checking: cel.Env, derived: bool = False,
                     one_pass: bool = True, rerender: bool = True, deep: bool = True) -> Verdict | None:
    """The verdict on `expression` as `Environment.checking` rewrote it, compiled in `checking`."""
    try:
        compiled = checking.compile(expression)
    except TypeError as error:  # the caller sanitises strings; anything else the binding rejects
        return Verdict(INTERNAL, f"unexpected compilation error: {error}")
    except RuntimeError as error:
        message = _compiler_message(error)
        if depth.is_nesting_error(message):
            if not deep:
                return None
            return _too_deep(expression, env, checking, derived, one_pass, rerender)
        return Verdict(INVALID, "compilation failed: " + message)
    serialized = compiled.serialize()
    try:
        checked = parse(serialized)
    except DecodeError:  # compiled, but nested deeper than protobuf's decoder allows (100 messages)
        if not deep:
            return None
        return _too_deep(expression, env, checking, derived, one_pass, rerender)
    estimate = None
    if one_pass:
        try:
            estimate = onepass.estimate(checked, env.sizes)  # no literal validator applies there
        except (onepass.Unsupported, RecursionError):
            pass
    if estimate is None:
        estimate = _estimate_and_validate(expression, env, checked, serialized)
        if isinstance(estimate, Verdict):
            return estimate
    cost, root_type = estimate
    if derived:
        problem = _derived_result_problem(root_type, env)
        if problem:
            return Verdict(INVALID, problem)
    elif not _accepts_result(root_type, env, expression):
        return Verdict(INVALID, f"must evaluate to bool or the unknown type, not {type_name(root_type)}")
    if cost[1] > SELECTOR_EXPRESSION_MAX_COST:
        return Verdict(FORBIDDEN, "too complex, exceeds cost limit", cost[1])
    return _ok(cost[1])


_OK_VERDICTS: dict[int, Verdict] = {}


def _ok(cost: int) -> Verdict:
    """The OK verdict of this cost: one shared object per cost (verdicts are immutable; costs repeat)."""
    verdict = _OK_VERDICTS.get(cost)
    if verdict is None:
        if len(_OK_VERDICTS) >= 4096:
            _OK_VERDICTS.clear()
        verdict = _OK_VERDICTS[cost] = Verdict(OK, cost=cost)
    return verdict


def check(expression: str, stored: bool = False, features: Features = Features(), pinned: bool = False) -> Verdict:
    """The verdict for one (already length-checked) expression; failures are cached as well.

    `pinned` (implied by `stored`) keeps the verdict in the cache tier that claim selectors cannot evict.
    """
    key = (expression, stored, features.key)
    pinned = pinned or stored
    verdict = CACHE.get(key, pinned)
    if verdict is None:
        may_compile()
        verdict = _uncached(expression, stored, features)
        CACHE.put(key, verdict, pinned)
        record(key, verdict, pinned)
    return verdict


def _uncached(expression: str, stored: bool, features: Features, derived: bool = False) -> Verdict:
    try:
        env = get_environment(stored, features)
    except Exception as error:  # noqa: BLE001 - Kubernetes reports environment problems as internal errors
        return Verdict(INTERNAL, f"unexpected error loading CEL environment: {error}")
    return _verdict(expression, env, derived)


def check_derived(expression: str, stored: bool = False, features: Features = Features()) -> Verdict:
    """The verdict for one derived-attribute expression (result: a scalar or a list of scalars)."""
    key = (expression, stored, features.key, "derived")
    verdict = CACHE.get(key, False)
    if verdict is None:
        may_compile()
        verdict = _uncached(expression, stored, features, derived=True)
        CACHE.put(key, verdict, False)
        record(key, verdict, False)
    return verdict


def learn(verdicts) -> None:
    """Caches verdicts another process compiled (see budget.recording_verdicts)."""
    for key, verdict, pinned in verdicts:
        CACHE.put(key, verdict, pinned)


def compile_expression(expression: str, stored: bool = False, features: Features = Features()):
    """The compiled program, for evaluation (capacity values are plain JSON there, so `device` alone)."""
    return get_environment(stored, features).runtime_env.compile(expression)
