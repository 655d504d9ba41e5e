"""CEL selector checks. The only package that may import a CEL library.

`validate_selector(expression, path, stored=...)` returns the field errors Kubernetes 1.36 reports at
`path` (`...selectors[j].cel.expression`), in its order of checks: byte length (TooLong, no compile),
compilation against the DRA `device` environment (Invalid "compilation failed: ..."), result type
(Invalid), estimated cost (Forbidden "too complex, exceeds cost limit").

Integration (one request = one AdmissionReview or one offline document):

    with cel.request_budget(seconds), cel.collect_warnings() as cel_warnings:
        errors = rules.create(obj)          # calls validate_selector for every selector
    warnings += cel_warnings                # strings, ready for AdmissionResponse.warnings

A selector reached after the request's deadline (`request_deadline`/`request_budget`) raises
`DeadlineExceeded`: the call failed, the object is neither allowed nor called invalid. Without a
deadline there is no time limit.
"""

from __future__ import annotations

from webhook.cel.budget import (
    DeadlineExceeded,
    check_deadline,
    collect_warnings,
    request_budget,
    request_deadline,
    warn,
)
from webhook.cel.engines import ENGINES, active_engine, configure
from webhook.field import ErrorList, Path, forbidden, internal_error, invalid, too_long

__all__ = [
    "ENGINES", "SELECTOR_EXPRESSION_MAX_LENGTH", "DeadlineExceeded", "active_engine", "check_deadline",
    "collect_warnings", "configure", "evaluate", "request_budget", "request_deadline", "validate_selector",
]

SELECTOR_EXPRESSION_MAX_LENGTH = 10 * 1024  # resource/v1 CELSelectorExpressionMaxLength, in bytes


def _sanitize(expression: str) -> str:
    # The API server's JSON decoder turns lone surrogates into U+FFFD (also 3 bytes in UTF-8).
    try:
        expression.encode("utf-8")
    except UnicodeEncodeError:
        return expression.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    return expression


def validate_selector(expression: str, path: Path, *, stored: bool = False) -> ErrorList:
    """Field errors for one `selectors[j].cel.expression`; `stored` picks the stored-expressions environment."""
    expression = _sanitize(expression)
    if len(expression.encode("utf-8")) > SELECTOR_EXPRESSION_MAX_LENGTH:
        return [too_long(path, "", SELECTOR_EXPRESSION_MAX_LENGTH)]
    check_deadline()  # raises DeadlineExceeded; verdicts already cached stay cached
    if active_engine() == "cel-expr":
        from webhook.cel import compiler

        verdict = compiler.check(expression, stored)
    else:
        from webhook.cel import portable

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


def evaluate(expression: str, device: dict) -> bool:
    """Whether `device` matches the selector (offline matching); raises ValueError when it cannot say."""
    from webhook.cel.matching import evaluate as _evaluate

    return _evaluate(expression, device)
