"""Expressions nested deeper than the faithful engine's parser limit (32) but maybe within cel-go's (250).

Kubernetes accepts such expressions, so rejecting them would be wrong. They get cel-go's grammar and
limits (`syntax`); type and cost checks are skipped and the verdict says so.
"""

from __future__ import annotations

from webhook.cel import syntax

# Texts of the compiler's nesting errors, e.g. "Exceeded max recursion depth of 32 when parsing" for
# long left-associative chains (`1 + 1 + ... + 1`), which cel-go parses up to depth 250.
_NESTING_ERRORS = ("recursion limit exceeded", "max recursion depth exceeded", "exceeded max recursion depth")
SKIPPED_WARNING = "CEL selector nests deeper than 32 levels: type and cost checks were skipped"


def is_nesting_error(message: str) -> bool:
    lowered = message.lower()
    return any(text in lowered for text in _NESTING_ERRORS)


def check_deep_expression(expression: str):
    from webhook.cel.verdict import INVALID, OK, Verdict

    error = syntax.syntax_error(expression)
    if error is not None:
        return Verdict(INVALID, "compilation failed: " + error)
    return Verdict(OK, warning=SKIPPED_WARNING)
