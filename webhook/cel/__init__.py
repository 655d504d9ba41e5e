"""CEL selector checks. The only package that may import a CEL library.

`validate_cel_selector(expression, path, stored=...)` (upstream validateCELSelector) returns the field errors Kubernetes 1.36 reports at
`path` (`...selectors[j].cel.expression`), in its order of checks: byte length (TooLong, no compile),
compilation against the DRA `device` environment (Invalid "compilation failed: ..."), result type
(Invalid), estimated cost (Forbidden "too complex, exceeds cost limit").

Integration (one request = one AdmissionReview or one offline document):

    with cel.request_deadline(deadline), cel.collect_warnings() as cel_warnings:
        errors = rules.create(obj)          # calls validate_cel_selector for every selector
    warnings += cel_warnings                # strings, ready for AdmissionResponse.warnings

A selector reached after the request's deadline (`request_deadline`/`request_budget`) raises
`DeadlineExceeded`: the call failed, the object is neither allowed nor called invalid. Without a
deadline there is no time limit.

The environment follows the feature gates: `features=features_for(profile)`. DeviceClass selectors
should be checked with `pinned=True`, so that one-off claim selectors never evict them from the cache.
"""

from __future__ import annotations

from functools import lru_cache

from webhook.cel import engines
from webhook.cel.budget import (
    CompileNeeded,
    DeadlineExceeded,
    cached_only,
    check_deadline,
    collect_warnings,
    may_compile,
    recording_verdicts,
    request_budget,
    request_deadline,
    warn,
)
from webhook.cel.engines import ENGINES, active_engine, configure
from webhook.cel.features import Features
from webhook.field import ErrorList, Path, forbidden, internal_error, invalid, too_long

__all__ = [
    "ENGINES", "SELECTOR_EXPRESSION_MAX_LENGTH", "CompileNeeded", "DeadlineExceeded", "Features", "active_engine",
    "cached_only", "check_deadline", "clear_cache", "collect_warnings", "configure", "evaluate", "features_for",
    "learn_verdicts", "recording_verdicts", "request_budget", "request_deadline", "validate_cel_selector",
    "validate_derived_attribute",
]

SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024  # resource/v1 CELSelectorExpressionMaxLength, in bytes


def _sanitize(expression: str) -> tuple[str, int]:
    """The expression as the API server decodes it, and its length in UTF-8 bytes."""
    if expression.isascii():  # a flag of the string: no pass over it, no copy
        return expression, len(expression)
    try:
        return expression, len(expression.encode("utf-8"))
    except UnicodeEncodeError:  # the API server's JSON decoder turns lone surrogates into U+FFFD (3 bytes)
        expression = expression.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return expression, len(expression.encode("utf-8"))


def features_for(profile) -> Features:
    """The CEL environment's feature set for a `webhook.profile.Profile`."""
    # Without DRAListTypeAttributes (off, or a release without it) attribute values are `any`.
    return _features(profile.enabled("DRAConsumableCapacity"), profile.gate("DRAListTypeAttributes"),
                     profile.behaviours.list_type_attributes, profile.behaviours.new_cel_lists_extension,
                     profile.behaviours.cel_includes_in_lists_library)


@lru_cache(maxsize=None)  # asked per selector; a handful of possible values
def _features(consumable_capacity: bool, list_type_attributes: bool, list_types_exist: bool,
              lists_extension: bool = True, includes_in_lists_library: bool = False) -> Features:
    return Features(consumable_capacity=consumable_capacity, list_type_attributes=list_type_attributes,
                    list_types_exist=list_types_exist, lists_extension=lists_extension,
                    includes_in_lists_library=includes_in_lists_library)


def clear_cache() -> None:
    """Forgets every cached verdict (both engines)."""
    from webhook.cel import portable

    portable.check.cache_clear()
    if engines.cel_expr_available():
        from webhook.cel import compiler

        compiler.CACHE.clear()


def validate_cel_selector(expression: str, path: Path, *, stored: bool = False, features: Features = Features(),
                          pinned: bool = False) -> ErrorList:
    """Field errors for one `selectors[j].cel.expression`.

    `stored` picks the stored-expressions environment, `features` the gates it follows, `pinned` the
    cache tier of selectors that are reused by many requests (DeviceClass).
    """
    expression, size = _sanitize(expression)
    if size > SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, "", SELECTOR_EXPRESSION_MAX_LENGTH)]
    check_deadline()  # raises DeadlineExceeded; verdicts already cached stay cached
    if active_engine() == "cel-expr":
        from webhook.cel import compiler

        verdict = compiler.check(expression, stored, features, pinned)
    else:
        from webhook.cel import portable

        may_compile()  # the portable engine parses every time
        verdict = portable.check(expression)
    if verdict.warning:
        warn(f"{path}: {verdict.warning}")
    if verdict.outcome == "invalid":
        return [invalid(path, expression, verdict.detail)]
    if verdict.outcome == "forbidden":
        return [forbidden(path, verdict.detail)]
    if verdict.outcome == "internal":
        return [internal_error(path, verdict.detail)]
    return []


def validate_derived_attribute(expression: str, path: Path, *,
                               features: Features = Features()) -> tuple[ErrorList, int]:
    """Field errors for one `derivedAttributes[k].expression` (Kubernetes 1.37) and its estimated cost.

    Same checks as a selector, except the result type: a primitive scalar (string, int, bool, semver)
    or, with list-type attributes, a list of them. The cost also counts towards the claim's total.
    """
    expression, size = _sanitize(expression)
    if size > SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, "", SELECTOR_EXPRESSION_MAX_LENGTH)], 0
    check_deadline()  # raises DeadlineExceeded
    if active_engine() == "cel-expr":
        from webhook.cel import compiler

        verdict = compiler.check_derived(expression, False, features)
    else:
        from webhook.cel import portable

        may_compile()
        verdict = portable.check(expression)
    if verdict.warning:
        warn(f"{path}: {verdict.warning}")
    cost = verdict.cost or 0
    if verdict.outcome == "invalid":
        return [invalid(path, expression, verdict.detail)], 0
    if verdict.outcome == "forbidden":
        return [forbidden(path, verdict.detail)], cost
    if verdict.outcome == "internal":
        return [internal_error(path, verdict.detail)], 0
    return [], cost


def learn_verdicts(verdicts) -> None:
    """Caches verdicts a worker process compiled (recorded with `recording_verdicts`)."""
    if verdicts and active_engine() == "cel-expr":
        from webhook.cel import compiler

        compiler.learn(verdicts)


def evaluate(expression: str, device: dict, *, features: Features = Features()) -> bool:
    """Whether `device` matches the selector (offline matching); raises ValueError when it cannot say."""
    from webhook.cel.matching import evaluate as _evaluate

    return _evaluate(expression, device, features)
