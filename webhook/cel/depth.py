"""Expressions nested deeper than the faithful engine's parser limit (32) but maybe within cel-go's (250).

Kubernetes accepts such expressions, so rejecting them for depth would be wrong. They get cel-go's
grammar and limits (`grammar`); then, as far as the faithful engine can follow:
- nested only through grouping parentheses: the same tree without them (`unparse`) gets every check;
- still too deep: a lower bound of cel-go's cost (`deepcost`) refuses nests of comprehensions
  cel-go would refuse; type and cost checks are skipped otherwise, and the verdict says so.
"""

from __future__ import annotations

from webhook.cel import deepcost, grammar, unparse

# Texts of the compiler's nesting errors, e.g. "Exceeded max recursion depth of 32 when parsing" for
# long left-associative chains (`1 + 1 + ... + 1`), which cel-go parses up to depth 250.
_NESTING_ERRORS = ("recursion limit exceeded", "max recursion depth exceeded", "exceeded max recursion depth")
SKIPPED_WARNING = ("CEL selector nests deeper than the faithful engine allows (32 levels): type and cost checks "
                   "were skipped")
SELECTOR_EXPRESSION_MAX_COST = 1_000_000  # resource/v1 CELSelectorExpressionMaxCost
_RENDERED_NOTE = " (positions count in the expression without redundant parentheses)"


def is_nesting_error(message: str) -> bool:
    lowered = message.lower()
    return any(text in lowered for text in _NESTING_ERRORS)


def check_deep_expression(expression: str, faithful=None, rerender: bool = True, part_cost=None,
                          range_size=None):
    """The verdict for `expression`, which the faithful engine found too deep.

    `faithful(text)` is the faithful engine's verdict for another text (None: syntax only);
    `rerender` is False when `expression` is a rendering already, so this never goes round twice;
    `part_cost(text)` is the faithful engine's cost of a closed part, or None; `range_size(text)` its
    size estimate of a range (`deepcost.lower_bound`).
    """
    from webhook.cel.verdict import FORBIDDEN, INVALID, OK, Verdict

    try:
        tree = grammar.parse(expression)
    except grammar.CelSyntaxError as error:
        return Verdict(INVALID, f"compilation failed: {error}")
    if faithful is None:
        return Verdict(OK, warning=SKIPPED_WARNING)
    rendered = unparse.render(tree) if rerender else expression
    if rendered != expression:  # the same tree; if it is still too deep, this runs once more on it
        verdict = faithful(rendered)
        if verdict.outcome == INVALID and verdict.detail.startswith("compilation failed: ERROR: <input>:"):
            first, newline, rest = verdict.detail.partition("\n")
            verdict = Verdict(INVALID, first + _RENDERED_NOTE + newline + rest, verdict.cost, verdict.warning)
        return verdict
    bound = deepcost.lower_bound(tree, part_cost, range_size)
    if bound > SELECTOR_EXPRESSION_MAX_COST:
        return Verdict(FORBIDDEN, "too complex, exceeds cost limit", bound)
    return Verdict(OK, warning=SKIPPED_WARNING)
