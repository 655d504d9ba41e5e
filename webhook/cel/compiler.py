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
from webhook.cel.checked import CALL, COMPREHENSION, CheckedAst, build, parse, type_name
from webhook.cel.cost import Coster
from webhook.cel.environment import Environment, Features, get_environment, restore
from webhook.cel.resulttype import accepts_result
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
    elif not accepts_result(root_type, env, expression):
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
